/*
 * lbt-tarpit - what the tarpit held, and whether the frontends ran out of
 * connection slots: held seconds per source and bucket, slot occupancy
 * against maxconn, periods near it, the same had the tarpitted requests
 * been denied at once, and where fc says the frontend was full.  The work
 * is in lib/analysis/tarpit*.c and occupancy*.c, the sections in
 * lib/report/tarpit_report.c; this file is options and which sections.
 */
#include <stdio.h>
#include <stdlib.h>

#include "lbt/cli.h"
#include "lbt/follow.h"
#include "lbt/tarpit_cfg.h"
#include "lbt/tarpit_report.h"

#define NSECT LBT_TARPIT_NSECTIONS

/* The sections asked for, else the default ones: the summary in a machine
 * mode; on a terminal every section but the series. */
static int pick_sections(lbt_cli *cli, const int *asked, int *show)
{
	int i, n = 0;

	for (i = 0; i < NSECT; i++)
		n += asked[i] != 0;
	if (n > 1 && cli->out_mode != LBT_OUT_TABLE) {
		lbt_cli_errorf(cli, "--tsv, --json and --md print one section: choose one of "
		    "--summary, --periods, --by-source, --series, --full, --notes");
		lbt_cli_usage(cli);
	}
	for (i = 0; i < NSECT; i++)
		show[i] = n > 0 ? asked[i] != 0 : (cli->out_mode == LBT_OUT_TABLE ?
		    i != LBT_TARPIT_SERIES : i == LBT_TARPIT_SUMMARY);
	return n;
}

/* Print the chosen sections.  Without --notes, the findings among the
 * notes (missing fields, full frontends, upper bounds) go to stderr.
 * @return 0, or -1 when writing failed. */
static int print(lbt_cli *cli, const lbt_tarpit *t, const int *show, int asked,
    int64_t top)
{
	lbt_tarpit_print p = lbt_cli_report_opts(cli, top >= 0 ? (size_t)top :
	    cli->out_mode == LBT_OUT_TABLE ? 10 : 0);
	int i, rc = 0;

	for (i = 0; i < NSECT && rc == 0; i++)          /* by default, no empty table */
		if (show[i] && (asked || lbt_tarpit_has(t, (lbt_tarpit_section)i)))
			rc = lbt_tarpit_write(t, (lbt_tarpit_section)i, stdout, &p);
	for (size_t k = 0; !show[LBT_TARPIT_NOTES] && k < lbt_tarpit_nnotes(t); k++) {
		const lbt_tarpit_note *n = lbt_tarpit_note_at(t, k);

		if (n->kind != LBT_NOTE_METHOD && n->kind != LBT_NOTE_CAVEAT)
			lbt_cli_note(cli, "note: %s", n->text);
	}
	return rc;
}

/* --follow: the options of each refresh's analysis and what to show. */
struct follow_ctx {
	lbt_cli *cli;
	lbt_tarpit_opts *o;
	const int *asked;
	int nasked;
	int64_t top;
};

/* --follow: a fresh analysis.  @return 1, or -1 with err */
static int follow_make(void *ctx, lbt_analysis *v, lbt_err *err)
{
	struct follow_ctx *f = ctx;

	v[0] = lbt_tarpit_analysis(lbt_tarpit_new(f->o, err));
	return v[0].acc != NULL ? 1 : -1;
}

/* --follow: the sections of the window, as on a terminal (every one but
 * the series), or the summary's NDJSON rows without one. */
static int follow_write(void *ctx, lbt_follow_view *view, FILE *fp, lbt_err *err)
{
	struct follow_ctx *f = ctx;
	const lbt_tarpit *t = view->v[0].acc;
	lbt_tarpit_print p = lbt_cli_report_opts(f->cli, f->top >= 0 ? (size_t)f->top :
	    view->json ? 0 : 10);
	int rc = 0;

	p.mode = view->json ? LBT_OUT_JSON : LBT_OUT_TABLE;
	p.text = 0;           /* a snapshot's rows are JSON, a screen's a table */
	for (int i = 0; i < NSECT && rc == 0; i++) {
		int show = f->nasked > 0 ? f->asked[i] : view->json ? i == LBT_TARPIT_SUMMARY :
		    i != LBT_TARPIT_SERIES;

		if (show && (f->nasked > 0 || lbt_tarpit_has(t, (lbt_tarpit_section)i)))
			rc = lbt_tarpit_write(t, (lbt_tarpit_section)i, fp, &p);
	}
	return rc < 0 ? lbt_err_set(err, "out of memory") : 0;
}

/* lbt-tarpit --follow: lib/cli/follow.c's loop until a signal. */
static int follow(lbt_cli *cli, const lbt_follow_opts *fo, struct follow_ctx *f)
{
	lbt_follow_prog p = { f, follow_make, follow_write, 1 };

	return lbt_cli_follow_signals(cli, fo, &p);
}

/* Options, the analysis over the input, the sections. */
int main(int argc, char **argv)
{
	static const lbt_cli_prog prog = {
		"lbt-tarpit", "[options] [file ...]",
		"Socket time held by the tarpit, connection-slot occupancy against maxconn, "
		"and the same\nhad the tarpitted requests been denied at once.",
		LBT_CLI_INPUT | LBT_CLI_FILTER | LBT_CLI_OUTPUT, 0, -1
	};
	lbt_tarpit_opts o = LBT_TARPIT_OPTS_INIT;
	int64_t maxconn = 0, pct = 90, near = 1, top = -1;
	int asked[NSECT] = { 0 }, show[NSECT], nasked;
	lbt_follow_opts fo = LBT_FOLLOW_OPTS_INIT;
	lbt_cli_opt opts[] = {
		LBT_OPT_DURATION("step", 's', &o.step_us, 1000, 86400000000LL, "TIME",
		    "bucket width (default 10s)"),
		LBT_OPT_INT("maxconn", 'm', &maxconn, 1, INT32_MAX, "N",
		    "maxconn of every frontend (default: --haproxy-cfg)"),
		LBT_OPT_INT("threshold", 0, &pct, 1, 100, "PCT",
		    "periods at >= PCT % of maxconn (default 90)"),
		LBT_OPT_INT("full-within", 0, &near, 0, 1000000, "N",
		    "fc >= maxconn - N means full (default 1)"),
		LBT_OPT_DURATION("window", 0, &o.window_us, 0, 86400000000LL, "TIME",
		    "reorder tolerance of the slot sweep (default 60s)"),
		LBT_OPT_FN("v4-prefix", 0, lbt_netgroup_opt_v4, &o.net, "BITS",
		    "IPv4 source prefix (default 32)"),
		LBT_OPT_FN("v6-prefix", 0, lbt_netgroup_opt_v6, &o.net, "BITS",
		    "IPv6 source prefix (default 64)"),
		LBT_OPT_FN("max-memory", 0, lbt_budget_opt, &o.max_memory, "SIZE",
		    "memory for sources (default 1G); past it counts get a bound"),
		LBT_OPT_INT("top", 'n', &top, 0, 100000000, "N",
		    "rows of --by-source and --full (default 10 on a terminal; 0: all)"),
		LBT_OPT_FLAG("summary", 0, &asked[LBT_TARPIT_SUMMARY], "one summary per frontend"),
		LBT_OPT_FLAG("periods", 0, &asked[LBT_TARPIT_PERIODS],
		    "periods near maxconn, logged and what-if"),
		LBT_OPT_FLAG("by-source", 0, &asked[LBT_TARPIT_SOURCES], "sources by held time"),
		LBT_OPT_FLAG("series", 0, &asked[LBT_TARPIT_SERIES], "every time bucket"),
		LBT_OPT_FLAG("full", 0, &asked[LBT_TARPIT_FULL],
		    "buckets where fc reached maxconn, with evidence"),
		LBT_OPT_FLAG("notes", 0, &asked[LBT_TARPIT_NOTES], "findings and caveats"),
		LBT_OPT_FOLLOW_NO_WINDOW(&fo),
		LBT_OPT_END
	};
	lbt_tarpit_cfgs *cfg;
	lbt_analysis a;
	lbt_stream *in;
	lbt_cli cli;
	lbt_err err;

	lbt_cli_parse(&cli, &prog, opts, argc, argv);
	lbt_follow_check(&cli, &fo);
	o.name_inputs = lbt_cli_ninputs(&cli) > 1;
	nasked = pick_sections(&cli, asked, show);
	o.maxconn = (int32_t)maxconn;
	o.threshold_pct = (int)pct;
	o.near = (int32_t)near;
	cfg = lbt_cli_tarpit_cfgs(&cli);
	lbt_tarpit_cfgs_use(&o, cfg);
	if (fo.on) {
		struct follow_ctx f = { &cli, &o, asked, nasked, top };
		int rc;

		fo.max_memory = o.max_memory / 4;
		rc = follow(&cli, &fo, &f);
		lbt_tarpit_cfgs_free(cfg);
		return rc;
	}
	if ((a = lbt_tarpit_analysis(lbt_tarpit_new(&o, &err))).acc == NULL)
		lbt_cli_die(&cli, &err);
	in = lbt_cli_run(&cli, &a, 1, 0);
	if (print(&cli, a.acc, show, nasked, top) < 0)
		cli.status = 1;
	lbt_analysis_free(&a);
	lbt_tarpit_cfgs_free(cfg);
	return lbt_cli_finish(&cli, in, NULL);
}
