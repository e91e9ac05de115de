/*
 * err.h - how liblbt reports a failure.
 *
 * The library never prints and never exits (the library reports, the
 * program speaks: lib/README.md, cli/ is the one layer that prints).  A function that can fail takes an `lbt_err *` and,
 * on failure, fills it and returns -1 (or NULL).  The program then prints it
 * in one shape, the layout of glibc's error_at_line():
 *
 *     lbt-cat: access.log:1234: bad accept date '[04/Dex/2025'
 *
 * Leaf module: includes nothing of lbt.
 */
#ifndef LBT_ERR_H
#define LBT_ERR_H

#include <stddef.h>
#include <stdint.h>

typedef struct lbt_err {
	char msg[512];      /* what is wrong, lowercase, no full stop */
	char file[256];     /* input it concerns, "" when none */
	uint64_t line;      /* 1-based line number, 0 when none */
	uint64_t offset;    /* byte offset in the (decompressed) input, when known */
	int kind;           /* LBT_ERR_FAIL, or what else it is (cli.h's exit status) */
} lbt_err;

/* What an error is, beyond its message: the exit status a program gives. */
enum {
	LBT_ERR_FAIL = 0,   /* a failure: the input or the command is at fault */
	LBT_ERR_EMPTY,      /* nothing to answer from (a --baseline window outside the data) */
	LBT_ERR_UNREAD      /* an input read whole, none of whose lines parsed (no
	                       format detected) */
};

/*
 * Fill `err` (may be NULL) with a printf-style message; file and line are
 * cleared.  @return -1 always, so that `return lbt_err_set(...)` reads well.
 */
int lbt_err_set(lbt_err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Like lbt_err_set(), with a file name and line number. @return -1 */
int lbt_err_at(lbt_err *err, const char *file, uint64_t line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Clear `err` (may be NULL). */
void lbt_err_clear(lbt_err *err);

/*
 * Format `err` the way every program prints it, without the program name:
 * "file:line: msg", "file: msg" or "msg".  @return buf
 */
const char *lbt_err_str(const lbt_err *err, char *buf, size_t size);

#endif
