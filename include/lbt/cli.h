/*
 * cli.h - what every lbt-* program shares on its command line, so that a
 * cmd/ file is options, then library calls (lib/README.md: one thin main
 * a program).
 *
 * This is the one module of liblbt that speaks: it prints to stdout and
 * stderr and exits, on behalf of a program's main().  No other module of
 * lib/ may include it (the library reports, the program speaks).
 *
 * One option table per program feeds both getopt_long and --help, so the
 * two cannot drift (git's parse-options).  A program declares its own
 * options with the LBT_OPT_* macros and the shared groups it takes:
 *
 *     static int raw, events;
 *     static const char *fields;
 *     lbt_cli_opt opts[] = {
 *         LBT_OPT_FLAG("raw", 0, &raw, "print the matching raw lines"),
 *         LBT_OPT_STR("fields", 'f', &fields, "LIST", "columns to print"),
 *         LBT_OPT_END
 *     };
 *     static const lbt_cli_prog prog = { "lbt-cat", "[options] [file ...]",
 *         "print access-log records, filtered", LBT_CLI_INPUT | LBT_CLI_FILTER |
 *         LBT_CLI_OUTPUT, 0, -1 };
 *     lbt_cli cli;
 *     lbt_cli_parse(&cli, &prog, opts, argc, argv);    // exits on --help, errors
 *     lbt_stream *in = lbt_cli_stream(&cli);           // exits on bad options
 *     lbt_out *out = lbt_cli_out(&cli, cols, ncols);
 *     lbt_rec *rec;
 *     while (lbt_cli_next(&cli, in, &rec)) ...         // file errors printed
 *     return lbt_cli_finish(&cli, in, out);            // summary, exit status
 *
 * An analysis program runs its analyses through lbt_cli_run() instead of
 * the loop (driver.h), then writes its report (lib/report/).
 *
 * Messages have one shape: "lbt-cat: access.log:12: why".  The exit status
 * is one table for every program (docs/exit-status.md): LBT_EXIT_* below.
 * Some malformed lines alone do not change it, unless --strict; an input of
 * which no line could be read does (LBT_EXIT_UNREAD), and so does an answer
 * made of nothing (LBT_EXIT_EMPTY): a script's `prog > list || handle` never
 * takes an empty list for success.
 * Includes: analysis.h, err.h, input.h, out.h, report.h, stream.h.
 */
#ifndef LBT_CLI_H
#define LBT_CLI_H

#include <stdint.h>

#include "lbt/analysis.h"
#include "lbt/binds.h"
#include "lbt/err.h"
#include "lbt/input.h"
#include "lbt/input_spec.h"
#include "lbt/out.h"
#include "lbt/report.h"
#include "lbt/stream.h"
#include "lbt/tarpit_cfg.h"

/*
 * The exit status of every program, in order of precedence when several
 * apply (ERROR first, then UNREAD, then EMPTY, then a program's verdict):
 * 1..3 say the output is not an answer to trust, 4..5 that the records were
 * read and something was found.
 */
enum {
	LBT_EXIT_OK = 0,        /* records were read and the answer printed */
	LBT_EXIT_ERROR = 1,     /* bad usage or option value, an input that could not
	                           be read or broke, output not written */
	LBT_EXIT_EMPTY = 2,     /* nothing to answer from: no record, or none left by
	                           the filters (--since/--until, --key, --tier...);
	                           lbt-deny: no source to deny */
	LBT_EXIT_UNREAD = 3,    /* an input with lines none of which could be read
	                           (wrong --format, --frontend, --log-name...) */
	LBT_EXIT_FOUND = 4,     /* lbt-audit: a finding at --fail-on; lbt-triage: an
	                           anomaly, over by the end of the data */
	LBT_EXIT_ONGOING = 5    /* lbt-triage: an anomaly still going on */
};

/* What an option does with its argument. */
typedef enum lbt_cli_type {
	LBT_CLI_FLAG,        /* no argument: *(int *)dest = 1 */
	LBT_CLI_STR,         /* *(const char **)dest = the argument */
	LBT_CLI_INT,         /* *(int64_t *)dest = lbt_num_parse(arg, min, max) */
	LBT_CLI_DURATION,    /* *(int64_t *)dest = lbt_duration_parse(arg, min, max), µs */
	LBT_CLI_FN,          /* fn(dest, arg, err), argument required */
	LBT_CLI_FN_OPTARG,   /* fn(dest, arg or NULL, err): --name or --name=ARG */
	LBT_CLI_ALIAS        /* an old name of option `arg` (LBT_OPT_ALIAS) */
} lbt_cli_type;

/* Handler of an LBT_CLI_FN option.  @return 0, or -1 with err (exit 1). */
typedef int (*lbt_cli_fn)(void *ctx, const char *arg, lbt_err *err);

typedef struct lbt_cli_opt {
	const char *name;    /* long name without "--"; NULL ends a table */
	int short_name;      /* 'f', or 0 for none */
	lbt_cli_type type;
	void *dest;          /* see lbt_cli_type; the ctx of an FN */
	int64_t min, max;    /* bounds of INT and DURATION */
	lbt_cli_fn fn;       /* FN, FN_OPTARG */
	const char *arg;     /* argument name shown by --help ("FILE"); NULL for flags */
	const char *help;    /* one line, lower case, no full stop */
} lbt_cli_opt;

#define LBT_OPT_FLAG(l, s, p, h) \
	{ (l), (s), LBT_CLI_FLAG, (p), 0, 0, NULL, NULL, (h) }
#define LBT_OPT_STR(l, s, p, a, h) \
	{ (l), (s), LBT_CLI_STR, (p), 0, 0, NULL, (a), (h) }
#define LBT_OPT_INT(l, s, p, lo, hi, a, h) \
	{ (l), (s), LBT_CLI_INT, (p), (lo), (hi), NULL, (a), (h) }
#define LBT_OPT_DURATION(l, s, p, lo, hi, a, h) \
	{ (l), (s), LBT_CLI_DURATION, (p), (lo), (hi), NULL, (a), (h) }
#define LBT_OPT_FN(l, s, f, ctx, a, h) \
	{ (l), (s), LBT_CLI_FN, (ctx), 0, 0, (f), (a), (h) }
/*
 * A hidden alias: --l does what --target does (any option of the program
 * or of its groups, same argument), and is left out of --help.  Only for
 * an old spelling kept so that scripts still work; NEWS names each one.
 * An alias of no option aborts at parse time (a program's bug).
 */
#define LBT_OPT_ALIAS(l, target) \
	{ (l), 0, LBT_CLI_ALIAS, NULL, 0, 0, NULL, (target), NULL }
#define LBT_OPT_END \
	{ NULL, 0, LBT_CLI_FLAG, NULL, 0, 0, NULL, NULL, NULL }

/*
 * Shared option groups (lbt_cli_prog.groups):
 *   LBT_CLI_INPUT   --input 'PATH KEY=VALUE...'  --sources FILE
 *                   --format NAME|FILE  --log-format TEMPLATE  --escape MODE
 *                   --haproxy-cfg FILE  --frontend NAME  --nginx-conf FILE
 *                   --log-name NAME  --captures LIST  --key-regex RE
 *                   --trusted-proxies LIST|@FILE
 *                   --log-tz ZONE  --lb-name NAME  --db FILE  --strict
 *                   --threads N
 *   LBT_CLI_FILTER  --since TIME  --until TIME  --key LIST  --src LIST
 *                   --status LIST  --term LIST  --lb LIST  --tier WHICH
 *                   --now TIME
 *   LBT_CLI_OUTPUT  --tsv  --json  --table  --md  --no-header  --wide
 *                   -f/--fields LIST
 *                   --color[=auto|always|never]
 * Every program also has -h/--help and --version.
 */
#define LBT_CLI_INPUT   0x1u
#define LBT_CLI_FILTER  0x2u
#define LBT_CLI_OUTPUT  0x4u

typedef struct lbt_cli_prog {
	const char *name;       /* "lbt-cat" */
	const char *synopsis;   /* after the name, as in the man page SYNOPSIS;
	                           several forms separated by '\n' */
	const char *summary;    /* one line for --help: what the program does */
	unsigned groups;        /* LBT_CLI_INPUT | ... */
	int min_args;           /* operands required */
	int max_args;           /* operands allowed; -1 = any number */
} lbt_cli_prog;

/* The parsed command line; lives in main()'s frame. */
typedef struct lbt_cli {
	const lbt_cli_prog *prog;
	const lbt_cli_opt *opts;   /* the program's own options */
	lbt_input_opts in;         /* filled by the INPUT and FILTER groups;
	                              diag is lbt_cli_diag with this cli */
	lbt_input_specs specs;     /* --input and --sources, in order (in.specs points
	                              here); freed by lbt_cli_finish */
	lbt_out_mode out_mode;     /* the mode asked, else TABLE on a terminal, TSV */
	int out_asked;             /* --tsv/--json/--table/--md was given */
	int header;                /* 1, or 0 after --no-header */
	int color;                 /* --color resolved (auto: stdout is a terminal,
	                              NO_COLOR is unset, TERM is set and not dumb) */
	const char *fields;        /* -f/--fields: the columns shown, or NULL */
	int width;                 /* TABLE lines fit this many columns (the
	                              terminal's, $COLUMNS, 80); 0 = --wide or
	                              another mode */
	char **args;               /* operands, NULL-terminated (argv's memory) */
	int nargs;
	int status;                /* exit status so far: 1 once an error was printed */
	uint64_t records;          /* records handed to the program (lbt_cli_next,
	                              lbt_cli_run): 0 makes the run LBT_EXIT_EMPTY */
	int empty;                 /* lbt_cli_empty: the answer is empty anyway */
	int unread;                /* an input none of whose lines could be read */
	struct lbt_clii_progress *progress;   /* the progress line on stderr (a
	                              terminal), NULL none: cli_progress.c */
	int threads;               /* --threads N, else the cores online; lbt_cli_stream
	                              gives it to the input, lbt_cli_run to the driver */
} lbt_cli;

/*
 * Parse argv with the program's own options `opts` (LBT_OPT_END-terminated,
 * may be NULL) and its groups.  Never returns on -h/--help (help on stdout,
 * exit 0), --version (stdout, exit 0), or a usage error: unknown option,
 * missing or bad argument, wrong number of operands, two output modes
 * (message and usage on stderr, exit 1).
 */
void lbt_cli_parse(lbt_cli *cli, const lbt_cli_prog *prog, const lbt_cli_opt *opts,
    int argc, char **argv);

/* Print "usage: NAME SYNOPSIS" (every form) to stderr and exit 1. */
_Noreturn void lbt_cli_usage(const lbt_cli *cli);

/* Print "NAME: file:line: msg" to stderr and set cli->status to 1; an
 * error of kind LBT_ERR_UNREAD or LBT_ERR_EMPTY (err.h) marks the run
 * unread or empty instead. */
void lbt_cli_error(lbt_cli *cli, const lbt_err *err);

/* Print "NAME: " and a printf-style message to stderr; status 1. */
void lbt_cli_errorf(lbt_cli *cli, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Print "NAME: file:line: msg" to stderr and exit 1. */
_Noreturn void lbt_cli_die(const lbt_cli *cli, const lbt_err *err);

/*
 * The lbt_input_diag_fn every program uses (ctx = the lbt_cli): prints a
 * malformed line or a detection note as "NAME: file:line: why" to stderr.
 * Does not change the exit status.
 */
void lbt_cli_diag(void *ctx, const lbt_err *err);

/*
 * Open the record stream of cli->in over the --input / --sources inputs
 * and the operands ("-", or none and no --input: stdin; the index with
 * --db).  On a bad option value (format, template, regex, zone, filter,
 * --db with inputs, stdin named twice) prints it and exits 1.
 */
lbt_stream *lbt_cli_stream(lbt_cli *cli);

/*
 * For a program that prints records as it reads them (lbt-cat): 1 when
 * an input of s is live (lbt_input_live: a pipe, tail -f, a FIFO) and
 * stdout a pipe, a socket or a terminal, where each record must come out
 * as it is read (the caller flushes it: lbt_out_set_line_flush).  Then
 * the default mode on a terminal is TSV: a table waits for its last row.
 */
int lbt_cli_live(lbt_cli *cli, lbt_stream *s);

/*
 * Next record of `s`, printing (and counting in the exit status) the
 * error of an input that failed before going on with the next one.
 * @return 1 a record in *rec, 0 at the end of every input.
 */
int lbt_cli_next(lbt_cli *cli, lbt_stream *s, lbt_rec **rec);

/*
 * The record loop of an analysis program: cli->in.wanted = the fields of
 * v[0..n) and `also`, --tier auto unless given (an analysis counts one
 * tier), the stream over the operands, every record through
 * the analyses (driver.h), each finished; input errors are printed and the
 * run goes on, a failed analysis is printed and exits 1.
 * @return the stream (its counters make the summary of lbt_cli_finish).
 */
lbt_stream *lbt_cli_run(lbt_cli *cli, lbt_analysis *v, size_t n, uint64_t also);

/*
 * The haproxy.cfg files of the inputs (--haproxy-cfg and every input's
 * haproxy-cfg=), for the maxconn of each load balancer's frontends
 * (tarpit_cfg.h); exits on a file that cannot be read.  @return the set,
 * maybe empty; free it with lbt_tarpit_cfgs_free.
 */
lbt_tarpit_cfgs *lbt_cli_tarpit_cfgs(const lbt_cli *cli);

/*
 * The load balancer's own addresses: the `bind` addresses (binds.h) of
 * the same haproxy.cfg files, each given to fn, for a rule that must
 * never name them; exits on a file that cannot be read.
 */
void lbt_cli_lb_addrs(const lbt_cli *cli, lbt_binds_fn fn, void *ctx);

/* A line parser with cli->in's options, no files (lbt-formats --explain);
 * exits on a bad option value.  Free it with lbt_input_free. */
lbt_input *lbt_cli_input(lbt_cli *cli);

/* The report options (report.h) of cli's output flags, with `top` rows. */
lbt_report_opts lbt_cli_report_opts(const lbt_cli *cli, size_t top);

/* Print "NAME: " and a printf-style note to stderr; the status is unchanged. */
void lbt_cli_note(const lbt_cli *cli, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* A writer on stdout with the mode, colour and header of cli; exits when out of memory. */
lbt_out *lbt_cli_out(lbt_cli *cli, const lbt_out_col *cols, int ncols);

/*
 * Print the end-of-run summary to stderr, only when something went wrong:
 *   "lbt-cat: 12 malformed lines of 1200 (first 5 shown above)"
 *   "lbt-cat: 1 of 3 files failed (see above)"
 */
void lbt_cli_summary(lbt_cli *cli, const lbt_input_stats *st);

/* Print "NAME: " and a note saying why the answer is empty; the run exits
 * LBT_EXIT_EMPTY unless something worse happened. */
void lbt_cli_empty(lbt_cli *cli, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * For a program that reads its inputs itself (lbt-index): an input of
 * `lines` lines, `malformed` of them, none read as a request (`requests`
 * 0), or more than LBT_INPUT_UNREAD_PERCENT of its lines malformed, is
 * named on stderr and makes the run LBT_EXIT_UNREAD.
 */
void lbt_cli_check_read(lbt_cli *cli, const char *path, uint64_t lines, uint64_t malformed,
    uint64_t requests);

/*
 * End of run: free `out` (may be NULL), flush stdout (a write error is
 * printed, status 1), print the summary of stream `in` (may be NULL; a
 * note when --tier left records out) and free it, free the --input list.
 * With a stream, say why the answer is empty or partial (cli_status.c): an
 * unread input (its lines, and the format detection would choose, with its
 * score), no record at all, the filters leaving none (the data's first and
 * last time; a --since/--until window outside them), and which day a bare
 * HH:MM was taken on when the data spans more than a day.
 * @return the exit status for main(): LBT_EXIT_ERROR, UNREAD, EMPTY or OK,
 * in that precedence (a program's verdict may replace OK).
 */
int lbt_cli_finish(lbt_cli *cli, lbt_stream *in, lbt_out *out);

/* The inputs named on the command line (operands and --input), after
 * lbt_cli_parse: more than one, and an input that names no LB gets its
 * file's name (lbt_rec_lb_or_input). */
size_t lbt_cli_ninputs(const lbt_cli *cli);

#endif
