/*
 * input.h - the record stream every program reads: files or stdin, any
 * compression, syslog wrappers, any format (given or detected per file),
 * event lines, key extraction and the shared filters, with malformed lines
 * counted and reported, never lost silently.
 *
 *     lbt_input *in = lbt_input_new(&opts, &err);
 *     lbt_input_add(in, "access.log.zst");  ...
 *     while ((r = lbt_input_next(in, &rec, &err)) != 0) {
 *             if (r < 0) { report err; continue; }   // a file failed; others go on
 *             ...use rec...
 *     }
 *     lbt_input_free(in);
 *
 * Includes: everything upstream (source, syslog, format, event, key, filter).
 */
#ifndef LBT_INPUT_H
#define LBT_INPUT_H

#include <stdint.h>

#include "lbt/err.h"
#include "lbt/filter.h"
#include "lbt/format.h"
#include "lbt/rec.h"

/* Called for each malformed line that should be reported (see max_reported). */
typedef void (*lbt_input_diag_fn)(void *ctx, const lbt_err *err);

typedef struct lbt_input_opts {
	const char *format;        /* --format NAME|FILE */
	const char *log_format;    /* --log-format TEMPLATE ('%' haproxy, '$' nginx) */
	const char *escape;        /* nginx escape= for --log-format */
	const char *haproxy_cfg;   /* --haproxy-cfg FILE */
	const char *frontend;      /* --frontend NAME */
	const char *nginx_conf;    /* --nginx-conf FILE */
	const char *log_name;      /* --log-name NAME */
	const char *captures;      /* --captures host,ua */
	const char *key_regex;     /* --key-regex */
	const char *log_tz;        /* --log-tz ZONE, NULL = UTC */
	const char *lb;            /* --lb-name: LB host for files without syslog host */
	const char *db;            /* --db FILE: read records from an lbt-index database
	                              instead of logs (lib/db.c); filters pushed into SQL */
	lbt_filter_opts filter;
	uint64_t wanted;           /* fields the program needs; 0 = all */
	int strict;                /* first malformed line is fatal */
	int events;                /* also return event records */
	int max_reported;          /* malformed lines passed to diag (default 5) */
	lbt_input_diag_fn diag;
	void *diag_ctx;
	int64_t now_us;            /* anchor for relative times; 0 = now */
} lbt_input_opts;

typedef struct lbt_input_stats {
	uint64_t files;
	uint64_t lines;
	uint64_t records;          /* requests parsed */
	uint64_t events;
	uint64_t skipped;          /* blank lines, headers */
	uint64_t malformed;
	uint64_t filtered;         /* records that did not pass the filters */
	uint64_t failed_files;     /* files that could not be opened or broke */
} lbt_input_stats;

typedef struct lbt_input lbt_input;

/* @return an input, or NULL with err (bad format, template, regex, zone, filter). */
lbt_input *lbt_input_new(const lbt_input_opts *opts, lbt_err *err);

/* Queue a path ("-" = stdin).  Opened lazily, in order. */
void lbt_input_add(lbt_input *in, const char *path);

/*
 * Next record that passes the filters.
 * @return 1 a record (valid until the next call), 0 end of every input,
 * -1 an error ending one file (unreadable, corrupt compressed data,
 * detection failed, or a malformed line under strict): err is filled with
 * file and line or offset, and the next call goes on with the next file
 * (under strict, it returns 0).
 */
int lbt_input_next(lbt_input *in, lbt_rec **rec, lbt_err *err);

const lbt_input_stats *lbt_input_stats_get(const lbt_input *in);

/* Format in use for the current (or last) file, or NULL. */
const lbt_format *lbt_input_format(const lbt_input *in);

void lbt_input_free(lbt_input *in);

#endif
