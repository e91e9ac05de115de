/*
 * lbt-rate - request rates per key over time: the keys with the highest
 * peak (or total), their baseline, the jump and how long it lasted; or,
 * with --series, the counts per bucket for plotting.  The work is in
 * lib/analysis/rate.c; this file is options and output.
 */
#include <stdio.h>
#include <unistd.h>

#include "lbt/cli.h"
#include "lbt/rate.h"

#define SPARK_WIDTH 40

/* Write a bucket's time, or an absent cell when `have` is 0. */
static void out_bucket(lbt_out *out, int have, int64_t bucket, int64_t step)
{
	char buf[40];

	if (!have) {
		lbt_out_absent(out);
		return;
	}
	lbt_bucket_format(bucket, step, buf, sizeof buf);
	lbt_out_cstr(out, buf);
}

/* The ranked keys, one row each (a sparkline last when `spark`). */
static lbt_out *print_rows(lbt_cli *cli, const lbt_rate *r, lbt_rate_by by, int spark)
{
	const lbt_out_col cols[] = {
		{ lbt_rate_by_name(by), LBT_COL_STR }, { "total", LBT_COL_NUM },
		{ "peak_rps", LBT_COL_NUM }, { "peak_at", LBT_COL_STR },
		{ "baseline_rps", LBT_COL_NUM }, { "jump_start", LBT_COL_STR },
		{ "jump_end", LBT_COL_STR }, { "sustained_rps", LBT_COL_NUM },
		{ "spark", LBT_COL_STR },
	};
	lbt_out *out = lbt_cli_out(cli, cols, spark ? 9 : 8);
	int64_t step = lbt_rate_step(r);
	char buf[SPARK_WIDTH * 3 + 1];

	for (size_t i = 0; i < lbt_rate_nrows(r); i++) {
		const lbt_rate_row *w = lbt_rate_row_at(r, i);

		lbt_out_cstr(out, w->key);
		lbt_out_int(out, w->total);
		lbt_out_double(out, w->peak_rate, 2);
		out_bucket(out, 1, w->peak_bucket, step);
		lbt_out_double(out, w->baseline_rate, 2);
		out_bucket(out, w->jump, w->jump_start, step);
		if (w->jump && w->ongoing)
			lbt_out_cstr(out, "ongoing");
		else
			out_bucket(out, w->jump, w->jump_end, step);
		if (w->jump)
			lbt_out_double(out, w->sustained_rate, 2);
		else
			lbt_out_absent(out);
		if (spark) {
			lbt_rate_sparkline(r, i, SPARK_WIDTH, buf, sizeof buf);
			lbt_out_cstr(out, buf);
		}
	}
	return out;
}

/* --series: every bucket of the input's span for each ranked key, zeros
 * included, in time order then rank order. */
static lbt_out *print_series(lbt_cli *cli, const lbt_rate *r, lbt_rate_by by)
{
	const lbt_out_col cols[] = {
		{ "time", LBT_COL_STR }, { lbt_rate_by_name(by), LBT_COL_STR },
		{ "count", LBT_COL_NUM },
	};
	lbt_out *out = lbt_cli_out(cli, cols, 3);
	int64_t first, last;

	if (lbt_rate_span(r, &first, &last) < 0)
		return out;
	for (int64_t b = first; b <= last; b++)
		for (size_t i = 0; i < lbt_rate_nrows(r); i++) {
			out_bucket(out, 1, b, lbt_rate_step(r));
			lbt_out_cstr(out, lbt_rate_row_at(r, i)->key);
			lbt_out_int(out, lbt_rate_count(r, i, b));
		}
	return out;
}

/* Options, the record loop, the table. */
int main(int argc, char **argv)
{
	static const lbt_cli_prog prog = {
		"lbt-rate", "[options] [file ...]",
		"Request rates per key over time: peaks, baselines and jumps.",
		LBT_CLI_INPUT | LBT_CLI_FILTER | LBT_CLI_OUTPUT, 0, -1
	};
	lbt_rate_opts o = LBT_RATE_OPTS_INIT;
	int64_t top = 10;
	int series = 0;
	lbt_cli_opt opts[] = {
		LBT_OPT_FN("by", 'b', lbt_rate_opt_by, &o, "WHAT", "key (default), path, host, "
		    "src, net, status, term, frontend, backend, server or lb"),
		LBT_OPT_DURATION("step", 's', &o.step_us, 1000, 86400000000LL, "TIME",
		    "bucket width: 1s (default), 10s, 1m ..."),
		LBT_OPT_INT("top", 'n', &top, 0, 1000000, "N", "keys to show (default 10; 0: all)"),
		LBT_OPT_FN("rank", 0, lbt_rate_opt_rank, &o, "peak|total", "order of the keys"),
		LBT_OPT_FN("jump-factor", 0, lbt_rate_opt_factor, &o, "K",
		    "a jump is K times the baseline (default 5)"),
		LBT_OPT_DURATION("jump-min", 0, &o.jump_min_us, 0, 86400000000LL, "TIME",
		    "for at least this long (default 10s)"),
		LBT_OPT_FN("jump-floor", 0, lbt_rate_opt_floor, &o, "RATE",
		    "and at least RATE req/s (default 2)"),
		LBT_OPT_FN("v4-prefix", 0, lbt_netgroup_opt_v4, &o.net, "BITS",
		    "--by net: IPv4 prefix (default 32)"),
		LBT_OPT_FN("v6-prefix", 0, lbt_netgroup_opt_v6, &o.net, "BITS",
		    "--by net: IPv6 prefix (default 64)"),
		LBT_OPT_FLAG("series", 0, &series, "print time, key, count for every bucket"),
		LBT_OPT_END
	};
	lbt_cli cli;
	lbt_err err;
	lbt_rate *r;
	lbt_input *in;
	lbt_out *out;
	lbt_rec *rec;

	lbt_cli_parse(&cli, &prog, opts, argc, argv);
	o.top = (size_t)top;
	if ((r = lbt_rate_new(&o, &err)) == NULL)
		lbt_cli_die(&cli, &err);
	cli.in.wanted = lbt_rate_fields(r) | LBT_BIT(LBT_F_LINE);
	in = lbt_cli_input(&cli);
	while (lbt_cli_next(&cli, in, &rec))
		if (lbt_rate_add(r, rec) < 0)
			break;
	if (lbt_rate_finish(r, &err) < 0)
		lbt_cli_die(&cli, &err);
	if (lbt_rate_stats_get(r)->counted == 0 && lbt_rate_stats_get(r)->no_key > 0)
		fprintf(stderr, "lbt-rate: none of %llu records has a %s (see --by, --key-regex)\n",
		    (unsigned long long)lbt_rate_stats_get(r)->records, lbt_rate_by_name(o.by));
	if (series)
		out = print_series(&cli, r, o.by);
	else
		out = print_rows(&cli, r, o.by, cli.out_mode == LBT_OUT_TABLE && isatty(1));
	lbt_rate_free(r);
	return lbt_cli_finish(&cli, in, out);
}
