/*
 * cli_int.h - what the files of lib/cli share; never installed.
 *
 *   cli.c         options, the stream and the record loop, the end of a run
 *   cli_status.c  the exit status of a run and the notes that explain an
 *                 empty or partial answer (docs/exit-status.md)
 *   cli_message.c messages in one shape, "NAME: ..." on stderr
 *   cli_cfg.c     the haproxy.cfg files the inputs name
 *
 * Direction, top down: cli.c calls cli_status.c; every file calls
 * cli_message.c, which calls none of them.
 */
#ifndef LBT_CLI_INT_H
#define LBT_CLI_INT_H

#include <stdarg.h>

#include "lbt/cli.h"

/*
 * After the run over `s`: say on stderr why the answer is empty or partial
 * (cli.h, lbt_cli_finish) and mark cli unread or empty accordingly.
 */
void lbt_clii_explain(lbt_cli *cli, const lbt_stream *s);

/* @return the exit status of the run: ERROR, UNREAD, EMPTY, OK in that order. */
int lbt_clii_status(const lbt_cli *cli);

/* cli_message.c (each function's comment is above its definition) */
void lbt_clii_say_err(const lbt_cli *cli, const lbt_err *err);
void lbt_clii_vsay(const lbt_cli *cli, const char *fmt, va_list ap);

/* cli_progress.c: the progress line on stderr (a terminal).  start: from
 * now on, over stream s; clear: erase the line shown (the next tick
 * writes it again); end: erase it and stop. */
void lbt_clii_progress_start(lbt_cli *cli, lbt_stream *s);
void lbt_clii_progress_clear(const lbt_cli *cli);
void lbt_clii_progress_end(lbt_cli *cli, lbt_stream *s);

#endif
