/*
 * cli_message.c - the messages of every program in one shape, "NAME: ..."
 * on stderr: errors (file:line: why, as lbt_err_str shapes them) and the
 * status they set, diagnostics, notes, the note of an empty answer, and
 * the error that exits.  See include/lbt/cli.h.
 *
 * Direction: cli.c, cli_status.c and cli_cfg.c call these; they call no
 * other cli*.c file.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_int.h"
#include "lbt/esc.h"

/* Print "NAME: text" and a newline to stderr, the text escaped for a
 * terminal (esc.h): a message quotes bytes of a log (the excerpt of a
 * malformed line, a key, a file name), which must not reach the terminal
 * as they are. */
static void say_text(const lbt_cli *cli, const char *text)
{
	lbt_clii_progress_clear(cli);     /* a message on a line of its own */
	fprintf(stderr, "%s: ", cli->prog->name);
	lbt_esc_fput(stderr, text, strlen(text), LBT_ESC_TERM);
	fputc('\n', stderr);
}

/* Print "NAME: file:line: msg" (err as lbt_err_str shapes it) to stderr:
 * the one printer of errors, diagnostics and notes. */
void lbt_clii_say_err(const lbt_cli *cli, const lbt_err *err)
{
	char buf[1024];

	say_text(cli, lbt_err_str(err, buf, sizeof buf));
}

/* Print "NAME: msg" and a newline to stderr. */
void lbt_clii_vsay(const lbt_cli *cli, const char *fmt, va_list ap)
{
	char buf[2048];

	vsnprintf(buf, sizeof buf, fmt, ap);
	say_text(cli, buf);
}

/* Print "NAME: file:line: msg" to stderr; status 1, or as err->kind says. */
void lbt_cli_error(lbt_cli *cli, const lbt_err *err)
{
	lbt_clii_say_err(cli, err);
	if (err->kind == LBT_ERR_UNREAD)
		cli->unread = 1;       /* the file was read: nothing in it parsed */
	else if (err->kind == LBT_ERR_EMPTY)
		cli->empty = 1;
	else
		cli->status = LBT_EXIT_ERROR;
}

/* Print "NAME: " and a formatted message to stderr; status 1. */
void lbt_cli_errorf(lbt_cli *cli, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	lbt_clii_vsay(cli, fmt, ap);
	va_end(ap);
	cli->status = 1;
}

/* Print the error and exit 1. */
_Noreturn void lbt_cli_die(const lbt_cli *cli, const lbt_err *err)
{
	lbt_clii_say_err(cli, err);
	exit(1);
}

/* The diag callback: "NAME: file:line: why" on stderr, status unchanged. */
void lbt_cli_diag(void *ctx, const lbt_err *err)
{
	lbt_clii_say_err(ctx, err);
}

/* Print "NAME: " and a formatted note to stderr; the status is unchanged. */
void lbt_cli_note(const lbt_cli *cli, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	lbt_clii_vsay(cli, fmt, ap);
	va_end(ap);
}

/* Print "NAME: " and a note saying why the answer is empty; mark it empty. */
void lbt_cli_empty(lbt_cli *cli, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	lbt_clii_vsay(cli, fmt, ap);
	va_end(ap);
	cli->empty = 1;
}
