/*
 * cli.h - what every lbt-* program shares on its command line, so that a
 * cmd/ file is options, then library calls (DESIGN.md: "thin").
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
 * Messages have one shape: "lbt-cat: access.log:12: why".  Exit status: 0
 * success; 1 bad usage, a bad option value, or an input that could not be
 * read or broke (the other inputs are still processed, then the status is
 * 1).  Malformed lines alone do not change the status, unless --strict.
 * Includes: analysis.h, err.h, input.h, out.h, report.h, stream.h.
 */
#ifndef LBT_CLI_H
#define LBT_CLI_H

#include <stdint.h>

#include "lbt/analysis.h"
#include "lbt/err.h"
#include "lbt/input.h"
#include "lbt/input_spec.h"
#include "lbt/out.h"
#include "lbt/report.h"
#include "lbt/stream.h"

/* What an option does with its argument. */
typedef enum lbt_cli_type {
	LBT_CLI_FLAG,        /* no argument: *(int *)dest = 1 */
	LBT_CLI_STR,         /* *(const char **)dest = the argument */
	LBT_CLI_INT,         /* *(int64_t *)dest = lbt_num_parse(arg, min, max) */
	LBT_CLI_DURATION,    /* *(int64_t *)dest = lbt_duration_parse(arg, min, max), µs */
	LBT_CLI_FN,          /* fn(dest, arg, err), argument required */
	LBT_CLI_FN_OPTARG    /* fn(dest, arg or NULL, err): --name or --name=ARG */
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
#define LBT_OPT_END \
	{ NULL, 0, LBT_CLI_FLAG, NULL, 0, 0, NULL, NULL, NULL }

/*
 * Shared option groups (lbt_cli_prog.groups):
 *   LBT_CLI_INPUT   --input 'PATH KEY=VALUE...'  --sources FILE
 *                   --format NAME|FILE  --log-format TEMPLATE  --escape MODE
 *                   --haproxy-cfg FILE  --frontend NAME  --nginx-conf FILE
 *                   --log-name NAME  --captures LIST  --key-regex RE
 *                   --log-tz ZONE  --lb-name NAME  --db FILE  --strict
 *                   --threads N
 *   LBT_CLI_FILTER  --since TIME  --until TIME  --key LIST  --src LIST
 *                   --status LIST  --term LIST  --lb LIST  --tier WHICH
 *                   --now TIME
 *   LBT_CLI_OUTPUT  --tsv  --json  --table  --md  --no-header
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
	int color;                 /* --color resolved (auto: stdout is a terminal
	                              and NO_COLOR is unset) */
	char **args;               /* operands, NULL-terminated (argv's memory) */
	int nargs;
	int status;                /* exit status so far: 1 once an error was printed */
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

/* Print "NAME: file:line: msg" to stderr and set cli->status to 1. */
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

/*
 * End of run: free `out` (may be NULL), flush stdout (a write error is
 * printed, status 1), print the summary of stream `in` (may be NULL; a
 * note when --tier left records out) and free it, free the --input list.
 * @return the exit status for main().
 */
int lbt_cli_finish(lbt_cli *cli, lbt_stream *in, lbt_out *out);

#endif
