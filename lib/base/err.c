/*
 * err.c - filling and formatting lbt_err.  See include/lbt/err.h.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lbt/err.h"

/* Write the message part of `err` from a va_list. */
static void err_vset(lbt_err *err, const char *fmt, va_list ap)
{
	vsnprintf(err->msg, sizeof err->msg, fmt, ap);
}

/* Fill the message, clearing file and line (err.h).  @return -1 */
int lbt_err_set(lbt_err *err, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL)
		return -1;
	lbt_err_clear(err);
	va_start(ap, fmt);
	err_vset(err, fmt, ap);
	va_end(ap);
	return -1;
}

/* Fill file, line and message (err.h).  @return -1 */
int lbt_err_at(lbt_err *err, const char *file, uint64_t line, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL)
		return -1;
	lbt_err_clear(err);
	snprintf(err->file, sizeof err->file, "%s", file ? file : "");
	err->line = line;
	va_start(ap, fmt);
	err_vset(err, fmt, ap);
	va_end(ap);
	return -1;
}

/* Empty every part of err; NULL accepted. */
void lbt_err_clear(lbt_err *err)
{
	if (err != NULL)
		memset(err, 0, sizeof *err);
}

/* "file:line: msg", "file: msg" or "msg" into buf.  @return buf */
const char *lbt_err_str(const lbt_err *err, char *buf, size_t size)
{
	if (err->file[0] != '\0' && err->line > 0)
		snprintf(buf, size, "%s:%llu: %s", err->file,
		    (unsigned long long)err->line, err->msg);
	else if (err->file[0] != '\0')
		snprintf(buf, size, "%s: %s", err->file, err->msg);
	else
		snprintf(buf, size, "%s", err->msg);
	return buf;
}
