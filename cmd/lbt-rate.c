/*
 * lbt-rate - request rates per key over time: the keys with the highest
 * peak (or total), their baseline, their episodes (rises and drops) and
 * the main one; with --episodes every episode, with --series the counts
 * per bucket for plotting.  The work is in
 * lib/analysis/rate.c, the rows in lib/report/rate_report.c; this file is
 * options.
 */
#include <unistd.h>

#include "lbt/cli.h"
#include "lbt/follow.h"
#include "lbt/rate_report.h"

/* --follow: the options of each refresh's analysis. */
struct follow_ctx {
	lbt_cli *cli;
	lbt_rate_opts *o;
	int series, episodes;
};

/* --follow: a fresh analysis.  @return 1, or -1 with err */
static int follow_make(void *ctx, lbt_analysis *v, lbt_err *err)
{
	struct follow_ctx *f = ctx;

	v[0] = lbt_rate_analysis(lbt_rate_new(f->o, err));
	return v[0].acc != NULL ? 1 : -1;
}

/* --follow: the rows of the window (NDJSON rows without a terminal). */
static int follow_write(void *ctx, lbt_follow_view *view, FILE *fp, lbt_err *err)
{
	struct follow_ctx *f = ctx;
	lbt_report_opts p = lbt_cli_report_opts(f->cli, 0);
	int rc;

	p.mode = view->json ? LBT_OUT_JSON : LBT_OUT_TABLE;
	if (f->series)
		rc = lbt_rate_report_series(view->v[0].acc, fp, &p);
	else if (f->episodes)
		rc = lbt_rate_report_episodes(view->v[0].acc, fp, &p);
	else
		rc = lbt_rate_report_rows(view->v[0].acc, fp, &p, 0);
	return rc < 0 ? lbt_err_set(err, "out of memory") : 0;
}

/* lbt-rate --follow: lib/cli/follow.c's loop until a signal. */
static int follow(lbt_cli *cli, const lbt_follow_opts *fo, struct follow_ctx *f)
{
	lbt_follow_prog p = { f, follow_make, follow_write, 1 };

	return lbt_cli_follow_signals(cli, fo, &p);
}

/* Options, the analysis over the input, its rows. */
int main(int argc, char **argv)
{
	static const lbt_cli_prog prog = {
		"lbt-rate", "[options] [file ...]",
		"Request rates per key over time: peaks, baselines and episodes.",
		LBT_CLI_INPUT | LBT_CLI_FILTER | LBT_CLI_OUTPUT, 0, -1
	};
	lbt_rate_opts o = LBT_RATE_OPTS_INIT;
	int64_t top = 10;
	int series = 0, episodes = 0;
	lbt_follow_opts fo = LBT_FOLLOW_OPTS_INIT;
	lbt_cli_opt opts[] = {
		LBT_OPT_FN("by", 'b', lbt_rate_opt_by, &o, "WHAT", "key (default), path, host, "
		    "src, net, status, term, frontend, backend, server or lb"),
		LBT_OPT_DURATION("step", 's', &o.step_us, 1000, 86400000000LL, "TIME",
		    "bucket width: 1s (default), 10s, 1m ..."),
		LBT_OPT_INT("top", 'n', &top, 0, 1000000, "N", "keys to show (default 10; 0: all)"),
		LBT_OPT_FN("rank", 0, lbt_rate_opt_rank, &o, "peak|total", "order of the keys"),
		LBT_OPT_FN("jump-factor", 0, lbt_cp_opt_factor, &o.cp, "K",
		    "a rise is K times the baseline (default 5)"),
		LBT_OPT_DURATION("jump-min", 0, &o.jump_min_us, 0, 86400000000LL, "TIME",
		    "an episode lasts at least this long (default 10s)"),
		LBT_OPT_FN("jump-floor", 0, lbt_cp_opt_floor, &o.cp, "RATE",
		    "and a rise at least RATE req/s (default 2)"),
		LBT_OPT_FN("drop-fraction", 0, lbt_cp_opt_drop, &o.cp, "F",
		    "a drop is at most F times the baseline (default 0.2)"),
		LBT_OPT_FN("v4-prefix", 0, lbt_netgroup_opt_v4, &o.net, "BITS",
		    "--by net: IPv4 prefix (default 32)"),
		LBT_OPT_FN("v6-prefix", 0, lbt_netgroup_opt_v6, &o.net, "BITS",
		    "--by net: IPv6 prefix (default 64)"),
		LBT_OPT_FLAG("episodes", 0, &episodes, "print every episode of the keys shown"),
		LBT_OPT_FLAG("series", 0, &series, "print time, key, count for every bucket"),
		LBT_OPT_FN("max-memory", 0, lbt_budget_opt, &o.max_memory, "SIZE",
		    "memory for keys (default 1G); past it counts get a bound"),
		LBT_OPT_FOLLOW(&fo),
		LBT_OPT_END
	};
	lbt_cli cli;
	lbt_err err;
	lbt_analysis a;
	lbt_stream *in;
	lbt_report_opts p;
	char note[320];
	int rc;

	lbt_cli_parse(&cli, &prog, opts, argc, argv);
	lbt_follow_check(&cli, &fo);
	o.top = (size_t)top;
	o.name_inputs = lbt_cli_ninputs(&cli) > 1;
	if (series && episodes) {
		lbt_cli_errorf(&cli, "--series and --episodes exclude each other");
		lbt_cli_usage(&cli);
	}
	if (fo.on) {
		struct follow_ctx f = { &cli, &o, series, episodes };

		fo.max_memory = o.max_memory / 4;
		return follow(&cli, &fo, &f);
	}
	a = lbt_rate_analysis(lbt_rate_new(&o, &err));
	if (a.acc == NULL)
		lbt_cli_die(&cli, &err);
	in = lbt_cli_run(&cli, &a, 1, LBT_BIT(LBT_F_LINE));
	if (lbt_rate_report_empty(a.acc, note, sizeof note))
		lbt_cli_empty(&cli, "%s", note);
	if (lbt_rate_report_approx(a.acc, note, sizeof note))
		lbt_cli_note(&cli, "%s", note);
	p = lbt_cli_report_opts(&cli, 0);
	if (series)
		rc = lbt_rate_report_series(a.acc, stdout, &p);
	else if (episodes)
		rc = lbt_rate_report_episodes(a.acc, stdout, &p);
	else
		rc = lbt_rate_report_rows(a.acc, stdout, &p,
		    cli.out_mode == LBT_OUT_TABLE && isatty(1));
	lbt_analysis_free(&a);
	if (rc < 0)
		cli.status = 1;
	return lbt_cli_finish(&cli, in, NULL);
}
