/*
 * follow.h - --follow for the analysis programs (lbt-triage, lbt-rate,
 * lbt-offenders): growing logs and stdin followed as `tail -F` does
 * (tail.h), the records of the last --window kept in a ring of bounded
 * size (ring.h) and analysed again every --interval by fresh analyses,
 * the answer redrawn on a terminal or written as one NDJSON snapshot a
 * line; the answers of --watch networks (else the networks of the rule
 * the program proposed) before and after the moment they turned to 429.
 * Design: docs/follow.md.
 *
 * The program owns the signals: lbt_cli_follow_signals sets SIGINT/SIGTERM
 * handlers that set a stop flag, and lbt_cli_follow returns within a tick
 * of it.
 * Includes: analysis.h, cli.h.
 */
#ifndef LBT_FOLLOW_H
#define LBT_FOLLOW_H

#include <signal.h>
#include <stdio.h>

#include "lbt/analysis.h"
#include "lbt/cli.h"

typedef struct lbt_follow_opts {
	int on;                    /* --follow */
	int64_t window_us;         /* --window, default 5 min */
	int64_t interval_us;       /* --interval, default 1 s */
	const char *watch;         /* --watch NET[,NET...] */
	size_t max_memory;         /* the ring's budget (--max-memory / 4 where the
	                              program has it), default 256 MiB */
} lbt_follow_opts;

#define LBT_FOLLOW_OPTS_INIT { 0, 300000000, 1000000, NULL, 256u << 20 }

/* The four options, in a program's option table. */
#define LBT_OPT_FOLLOW(fo) \
	LBT_OPT_FOLLOW_NO_WINDOW(fo), \
	LBT_OPT_DURATION("window", 0, &(fo)->window_us, 1000000, 86400000000LL, "TIME", \
	    "--follow: analyse the records of the last TIME (5m)")

/* Without --window, for a program whose --window means something else
 * (lbt-tarpit's slot sweep): its window is the default, 5 min. */
#define LBT_OPT_FOLLOW_NO_WINDOW(fo) \
	LBT_OPT_FLAG("follow", 0, &(fo)->on, "follow growing logs and stdin (tail -F), redraw"), \
	LBT_OPT_DURATION("interval", 0, &(fo)->interval_us, 100000, 3600000000LL, "TIME", \
	    "--follow: refresh every TIME (1s)"), \
	LBT_OPT_STR("watch", 0, &(fo)->watch, "NET[,NET...]", \
	    "--follow: these networks' answers before and after")

/* What a refresh gives the program's write(). */
typedef struct lbt_follow_view {
	lbt_analysis *v;           /* finished analyses, as make() made them */
	size_t n;
	uint64_t records;          /* records they were fed */
	int64_t now_us;            /* the newest record's time */
	int json;                  /* write one JSON document (squashed to a line) */
	int color, width;          /* the screen's */
	char watch[1024];          /* write() may propose networks to watch, one a
	                              line (the rule's); kept when --watch was not given */
} lbt_follow_view;

typedef struct lbt_follow_prog {
	void *ctx;
	/* Fresh analyses into v[0..8).  @return how many, or -1 with err. */
	int (*make)(void *ctx, lbt_analysis *v, lbt_err *err);
	/* The answer of view->v to fp.  @return 0, or -1 with err. */
	int (*write)(void *ctx, lbt_follow_view *view, FILE *fp, lbt_err *err);
	int rows;                  /* write() gives NDJSON rows (out.h): the snapshot's
	                              answer is their array, else one document */
} lbt_follow_prog;

/* --window, --interval or --watch without --follow: a usage error (exit 1). */
void lbt_follow_check(lbt_cli *cli, const lbt_follow_opts *fo);

/*
 * Follow the inputs of cli (operands, --input, --sources; none: stdin)
 * until *stop or the end of every input (stdin closed).
 * @return the exit status: LBT_EXIT_OK, or LBT_EXIT_ERROR (an input that
 * could not be followed, an analysis that failed).
 */
int lbt_cli_follow(lbt_cli *cli, const lbt_follow_opts *fo, const lbt_follow_prog *p,
    volatile sig_atomic_t *stop);

/* lbt_cli_follow until SIGINT or SIGTERM, whose handlers it sets: what
 * every program's --follow calls (lib/cli is the program's layer). */
int lbt_cli_follow_signals(lbt_cli *cli, const lbt_follow_opts *fo, const lbt_follow_prog *p);

#endif
