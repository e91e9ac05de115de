/*
 * input.h - the record stream of log files: files or stdin, any
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
 * Includes: err.h, filter.h, format.h, rec.h, syslog.h (input.c: everything
 * upstream: source, event, key).
 */
#ifndef LBT_INPUT_H
#define LBT_INPUT_H

#include <stdint.h>

#include "lbt/err.h"
#include "lbt/filter.h"
#include "lbt/format.h"
#include "lbt/rec.h"
#include "lbt/syslog.h"

/*
 * Which records a stream keeps by tier (--tier; lbt_stream, lib/run/
 * stream.c, applies it, so that every analysis counts one tier).
 */
typedef enum lbt_tier_use {
	LBT_TIER_USE_DEFAULT,      /* every record; lbt_cli_run makes it AUTO */
	LBT_TIER_USE_AUTO,         /* the lb tier when the inputs hold both tiers, else all */
	LBT_TIER_USE_LB,           /* records of the lb tier, and those of no known tier */
	LBT_TIER_USE_BACKEND,      /* records of the backend tier, and of no known tier */
	LBT_TIER_USE_ALL           /* every record */
} lbt_tier_use;

/* An input with its own options (input_spec.h). */
typedef struct lbt_input_spec lbt_input_spec;

/* Called for each malformed line that should be reported (see max_reported). */
typedef void (*lbt_input_diag_fn)(void *ctx, const lbt_err *err);

typedef struct lbt_input_opts {
	const char *format;        /* --format NAME|FILE, or NAME,NAME: those built-ins,
	                              the format of each line chosen as detection does */
	const char *log_format;    /* --log-format TEMPLATE ('%' haproxy, '$' nginx) */
	const char *escape;        /* nginx escape= for --log-format */
	const char *haproxy_cfg;   /* --haproxy-cfg FILE */
	const char *frontend;      /* --frontend NAME; NULL with haproxy_cfg: every proxy
	                              that logs, each line read with the format of the
	                              proxy it names (%ft), else of the one it fits */
	const char *nginx_conf;    /* --nginx-conf FILE */
	const char *log_name;      /* --log-name NAME */
	const char *captures;      /* --captures host,ua */
	const char *trusted_proxies;   /* --trusted-proxies LIST|@FILE: which address of
	                              an X-Forwarded-For list is the client
	                              (lbt_format_set_trusted); NULL none given, ""
	                              an empty list: the connecting address counts */
	const char *key_regex;     /* --key-regex */
	const char *log_tz;        /* --log-tz ZONE, NULL = UTC */
	const char *lb;            /* --lb-name: LB host for files without syslog host */
	lbt_tier tier;             /* tier= of an input: its records' tier; NONE: by the
	                              format (HAProxy lb, NGINX backend) */
	lbt_tier_use use_tier;     /* --tier: which records lbt_stream keeps */
	const lbt_input_spec *specs;   /* --input / --sources: inputs with their own
	                              options over these, queued first (input_spec.h) */
	size_t nspecs;
	const char *db;            /* --db FILE: read records from an lbt-index database
	                              instead of logs: lbt_stream_open (lib/run/,
	                              stream.h) reads it; lbt_input ignores it */
	lbt_filter_opts filter;
	uint64_t wanted;           /* fields the program needs; 0 = all */
	int own_provenance;        /* file:line always of this input, even when lbt-tsv
	                              input carries the original log's (lbt-index) */
	int strict;                /* first malformed line is fatal */
	int events;                /* also return event records */
	int max_reported;          /* malformed lines passed to diag (default 5) */
	lbt_input_diag_fn diag;
	void *diag_ctx;
	int64_t now_us;            /* anchor for relative times; 0 = now */
	int threads;               /* > 1: compressed input and pipes are decoded
	                              ahead on a thread of their own (source.h) */
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
	int64_t first_us, last_us; /* earliest and latest time of the records read,
	                              before the filters, kept when a filter is set
	                              (first > last, or both 0 from an index: none
	                              known) */
	uint64_t unread_files;     /* files with lines and no request read: every
	                              one malformed (or an event), or no format detected */
	uint64_t unread_lines;     /* ... the lines of the first of them */
	char unread_path[256];     /* ... its path as queued, "" none */
	uint64_t parts;            /* parts of files read by other threads and joined
	                              (lbt_input_stats_add) */
	uint64_t partial_files;    /* files (or parts) that gave requests but left more
	                              than LBT_INPUT_UNREAD_PERCENT of their lines
	                              malformed */
	uint64_t partial_lines;    /* ... the lines of the first of them */
	uint64_t partial_malformed;   /* ... its malformed lines */
	uint64_t partial_first;    /* ... the number of its first malformed line */
	char partial_path[256];    /* ... its path as queued, "" none */
} lbt_input_stats;

/*
 * The share of a file's lines that may be malformed before the answer
 * stops being one: above it, every program says so on stderr with the
 * counts and exits LBT_EXIT_UNREAD although records were read.  1 %:
 * real logs have a few odd lines (a TLS hello on a plain port, a line cut
 * by the logger, HAProxy's <BADREQ>), far below it; a flood in a format
 * the run does not read is far above it (6,000 of 7,200 lines), and so is
 * a proxy whose lines are not understood.  Between the two, a rate or a
 * top-N computed without one line in a hundred can move a verdict, so the
 * run must not look like a full answer.
 */
#define LBT_INPUT_UNREAD_PERCENT 1

typedef struct lbt_input lbt_input;

/*
 * @return an input with the files of opts->specs queued (each with its
 * spec's options), or NULL with err (bad format, template, regex, zone,
 * filter; a spec's error names its sources file and line).
 */
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

/* The filter of the input (its --since/--until bounds once fixed: filter.h). */
const lbt_filter *lbt_input_filter(const lbt_input *in);

/* Format in use for the current (or last) file (of several, the one that
 * read the last line), or NULL. */
const lbt_format *lbt_input_format(const lbt_input *in);

/*
 * The built-in formats of the current (or last) file (--format or
 * detection), as a --format list ("haproxy-httplog,haproxy-tcplog"), into
 * buf.  @return buf, or NULL when they are not built-ins (a template, a
 * configuration) or there are none (lbt-index keeps the list to resume a
 * grown file).
 */
const char *lbt_input_format_names(const lbt_input *in, char *buf, size_t size);

/*
 * The tiers of the queued inputs, as a mask of LBT_BIT(tier), known
 * before reading: a spec's tier=, the tier of the formats the options
 * name, else detection on each file's first lines (read again when the
 * file is).  LBT_BIT(LBT_TIER_NONE) stands for inputs whose tier cannot
 * be known ahead (stdin, an unreadable file, a format of no tier).  For
 * lbt_stream's --tier auto; does not change what lbt_input_next returns.
 */
unsigned lbt_input_tiers(lbt_input *in);

/*
 * 1 when a queued input is a stream (source.h's lbt_source_stream: stdin
 * from a pipe or a terminal, a FIFO, /dev/fd/N, a socket), known before
 * reading, from stat(2) alone.  Such inputs are read once, on one thread,
 * as their lines come; a program printing records as it reads (lbt-cat)
 * flushes each one.
 */
int lbt_input_live(const lbt_input *in);

/*
 * For lbt-index (lib/db/db_index.c; added by "index", implemented in input.c):
 *
 * lbt_input_add_at: queue `path` like lbt_input_add, with `name` (NULL = the
 * path) as the provenance name given to lbt_source_open (rec->file,
 * messages), and skip its first `skip_lines` lines: they are read from the
 * source and dropped unparsed (not counted in stats, not used for format
 * detection); records keep their true line numbers.
 *
 * lbt_input_line: the whole line (syslog wrapper included, as the source
 * returned it) of the record last returned by lbt_input_next; valid until
 * the next call.  NULL (and *len 0) when there is none.
 *
 * lbt_input_source: the source of the file being read, or NULL when none
 * is open; lbt-index reads lbt_source_offset/_raw_offset from it for
 * progress and resume offsets.
 */
void lbt_input_add_at(lbt_input *in, const char *path, const char *name, uint64_t skip_lines);
const char *lbt_input_line(const lbt_input *in, size_t *len);
const struct lbt_source *lbt_input_source(const lbt_input *in);

/*
 * Score every built-in format on the first lines of `path` ("-" = stdin)
 * exactly as per-file detection does (up to 50 non-blank lines, syslog
 * wrappers stripped; `log_tz` NULL = UTC), for lbt-formats --detect.
 * scores[] as lbt_format_detect (best first); *tried = lines scored.
 * Added by glue, implemented in input.c.
 * @return the number of scores, or -1 with err (file named).
 */
int lbt_input_score_file(const char *path, const char *log_tz, lbt_format_score *scores,
    int max, int *tried, lbt_err *err);

/*
 * Parse one line (syslog wrapper included) exactly as lbt_input_next does
 * with format `f` (NULL: event lines only), without filters or counters:
 * wrapper, format, event fallback, LB host, syslog time, key.  For
 * lbt-formats --explain; added by glue.
 * @return 1 with *rec (a request or an event, valid until the next call),
 * 0 for a line the format skips (a header), -1 with err saying why the
 * line does not parse.
 */
int lbt_input_parse_line(lbt_input *in, lbt_format *f, const char *line, size_t len,
    lbt_rec **rec, lbt_err *err);

/*
 * Score every built-in format on one line (syslog wrapper included) as
 * per-file detection scores its sample: the wrapper stripped with the
 * input's zone (its kind into *wrapper), then lbt_format_detect on the
 * message; scores[] best first.  For lbt-formats --explain.
 * @return the number of scores written (at most max).
 */
int lbt_input_score_line(lbt_input *in, const char *line, size_t len,
    lbt_format_score *scores, int max, lbt_syslog_kind *wrapper);

/*
 * A file read in parts, one input a part, each on its own thread
 * (input_part.c; lib/run/par.c drives it).
 *
 * lbt_input_pause: from now on lbt_input_next returns 0 once each file
 * is open (its formats chosen, before its first record: filters that
 * drop its first lines do not delay a cut) and at its end (after its
 * last record or its error); lbt_input_more then says whether files
 * remain (1) or the input is done (0).
 *
 * lbt_input_cuttable: the size of the file open now when it can be read in parts: a plain regular file that is not
 * stdin, not resumed (skip), read with named or built-in formats, not
 * under strict; else 0; *from: the bytes it has read already, before
 * which no cut may fall; *path: the file's path.  lbt_input_cut: read it only up to byte end (a
 * line start); @return 0, or -1 when it has read past end already (it
 * reads on to its end: do not make the other parts).
 *
 * lbt_input_part: an input over bytes [off, end) of that file (off a line
 * start, line0 the lines before it), with the same options and formats,
 * the same provenance name, its malformed lines reported through diag
 * (ctx).  @return it (free with lbt_input_free), or NULL with err.
 * Made on in's thread while in has the file open; lbt_input_part_lines
 * may set line0 later, before the part's first record (another thread
 * counts the lines before it).
 *
 * lbt_input_report: report a part's malformed line as in's own, within
 * in's max_reported.  lbt_input_stats_add: add a part's counters to in's.
 */
void lbt_input_pause(lbt_input *in);
int lbt_input_more(const lbt_input *in);
uint64_t lbt_input_cuttable(const lbt_input *in, uint64_t *from, const char **path);
int lbt_input_cut(lbt_input *in, uint64_t end);
lbt_input *lbt_input_part(const lbt_input *in, uint64_t off, uint64_t end, uint64_t line0,
    lbt_input_diag_fn diag, void *ctx, lbt_err *err);
void lbt_input_part_lines(lbt_input *part, uint64_t line0);
void lbt_input_report(lbt_input *in, const lbt_err *e);
void lbt_input_stats_add(lbt_input *in, const lbt_input_stats *st);

void lbt_input_free(lbt_input *in);

#endif
