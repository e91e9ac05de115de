/*
 * rate_report.c - lbt-rate(1)'s rows (see rate_report.h).
 */
#include <stdio.h>
#include <string.h>

#include "lbt/episode_report.h"
#include "lbt/rate_report.h"

#define SPARK_WIDTH 40

/* The cells of ranked key i (a sparkline last when `spark`).  The columns
 * of before the change-point engine keep their places (scripts cut them);
 * first_seen, episodes and ratio follow. */
static void row(lbt_out *out, const lbt_rate *r, size_t i, int spark, int approx)
{
	const lbt_rate_row *w = lbt_rate_row_at(r, i);
	int64_t step = lbt_rate_step(r);
	char buf[SPARK_WIDTH * 3 + 1];

	lbt_out_cstr(out, w->key);
	lbt_out_int(out, w->total);
	lbt_out_double(out, w->peak_rate, 2);
	lbt_report_bucket(out, w->peak_bucket, step);
	lbt_episode_report_baseline(out, &w->cp);
	lbt_episode_report_main(out, &w->cp, step);
	lbt_report_bucket(out, w->first, step);
	lbt_out_int(out, (int64_t)w->cp.episodes);
	lbt_episode_report_ratio(out, &w->cp);
	if (approx)
		lbt_out_int(out, w->total_err);
	if (spark) {
		lbt_rate_sparkline(r, i, SPARK_WIDTH, buf, sizeof buf);
		lbt_out_cstr(out, buf);
	}
}

/*
 * With --by lb and more than one LB, the total across them: every LB's
 * requests in one series (the analysis's series of every key), its total,
 * peak and first bucket; baseline and episodes are per LB only (absent).
 * The name "(total)" is none a host can have.
 */
static void total_row(lbt_out *out, const lbt_rate *r, int spark, int approx)
{
	int64_t first, last, peak = 0, peak_b = 0, sum = 0, step = lbt_rate_step(r);

	if (lbt_rate_span(r, &first, &last) < 0)
		return;
	for (int64_t b = first; b <= last; b++) {
		int64_t c = lbt_rate_total_count(r, b);

		sum += c;
		if (c > peak)
			peak = c, peak_b = b;
	}
	lbt_out_cstr(out, "(total)");
	lbt_out_int(out, sum);
	lbt_out_double(out, (double)peak * 1e6 / (double)step, 2);
	lbt_report_bucket(out, peak_b, step);
	for (int i = 0; i < 4; i++)        /* baseline, jump start/end, sustained */
		lbt_out_absent(out);
	lbt_report_bucket(out, first, step);
	lbt_out_absent(out);               /* episodes */
	lbt_out_absent(out);               /* ratio */
	if (approx)
		lbt_out_int(out, 0);           /* the series of every key is never pruned */
	if (spark)
		lbt_out_absent(out);
}

/*
 * What a narrow terminal leaves out first (out.h, lbt_out_set_drop): the
 * key (whole: it is copied into a rule), total, peak_rps and jump_start
 * (which, how hard, since when) stay; the sparkline, the first and peak
 * times, the jump's end and the change-point details go first.
 */
#define RATE_DROP "spark,first_seen,peak_at,jump_end,sustained_rps,episodes,baseline_rps,ratio"

/* The ranked keys, one row each.  @return 0 or -1. */
int lbt_rate_report_rows(const lbt_rate *r, FILE *fp, const lbt_report_opts *p, int spark)
{
	const lbt_out_col cols[] = {
		{ lbt_rate_by_name(lbt_rate_opts_get(r)->by), LBT_COL_STR },
		{ "total", LBT_COL_NUM }, { "peak_rps", LBT_COL_NUM }, { "peak_at", LBT_COL_STR },
		{ "baseline_rps", LBT_COL_NUM }, { "jump_start", LBT_COL_STR },
		{ "jump_end", LBT_COL_STR }, { "sustained_rps", LBT_COL_NUM },
		{ "first_seen", LBT_COL_STR }, { "episodes", LBT_COL_NUM },
		{ "ratio", LBT_COL_NUM },
	};
	int ncols = (int)(sizeof cols / sizeof cols[0]);
	int approx = lbt_rate_stats_get(r)->budget.floor > 0;
	lbt_out_col all[sizeof cols / sizeof cols[0] + 2];
	lbt_out *out;

	for (int i = 0; i < ncols; i++)
		all[i] = cols[i];
	if (approx)                    /* over --max-memory only, as lbt-offenders' requests_err */
		all[ncols++] = (lbt_out_col){ "total_err", LBT_COL_NUM };
	if (spark)
		all[ncols++] = (lbt_out_col){ "spark", LBT_COL_STR };
	if ((out = lbt_report_writer(fp, p, all, ncols)) == NULL)
		return -1;
	lbt_out_set_drop(out, RATE_DROP);
	lbt_out_set_narrow(out, "");          /* no column narrows: the key stays whole */
	for (size_t i = 0; i < lbt_rate_nrows(r); i++)
		row(out, r, i, spark, approx);
	if (lbt_rate_opts_get(r)->by == LBT_RATE_BY_LB && lbt_rate_stats_get(r)->keys > 1)
		total_row(out, r, spark, approx);
	return lbt_out_free(out);
}

/* Every episode of every ranked key, in rank order.  @return 0 or -1. */
int lbt_rate_report_episodes(const lbt_rate *r, FILE *fp, const lbt_report_opts *p)
{
	lbt_out_col cols[LBT_EPISODE_NCOLS];
	lbt_out *out;
	int64_t origin;

	lbt_episode_report_cols(cols, lbt_rate_by_name(lbt_rate_opts_get(r)->by));
	if ((out = lbt_report_writer(fp, p, cols, LBT_EPISODE_NCOLS)) == NULL)
		return -1;
	lbt_out_set_drop(out, LBT_EPISODE_DROP);
	for (size_t i = 0; i < lbt_rate_nrows(r); i++) {
		const lbt_cp_result *cp = lbt_rate_changes(r, i, &origin);

		lbt_episode_report_rows(out, lbt_rate_row_at(r, i)->key, cp, origin,
		    lbt_rate_step(r));
	}
	return lbt_out_free(out);
}

/* Every bucket of the span for each ranked key.  @return 0 or -1. */
int lbt_rate_report_series(const lbt_rate *r, FILE *fp, const lbt_report_opts *p)
{
	const lbt_out_col cols[] = {
		{ "time", LBT_COL_STR }, { lbt_rate_by_name(lbt_rate_opts_get(r)->by), LBT_COL_STR },
		{ "count", LBT_COL_NUM },
	};
	lbt_out *out = lbt_report_writer(fp, p, cols, 3);
	int64_t first, last;

	if (out == NULL)
		return -1;
	if (lbt_rate_span(r, &first, &last) == 0)
		for (int64_t b = first; b <= last; b++)
			for (size_t i = 0; i < lbt_rate_nrows(r); i++) {
				lbt_report_bucket(out, b, lbt_rate_step(r));
				lbt_out_cstr(out, lbt_rate_row_at(r, i)->key);
				lbt_out_int(out, lbt_rate_count(r, i, b));
			}
	return lbt_out_free(out);
}

/* The "over --max-memory" sentence.  @return 1 with buf, or 0 (exact). */
int lbt_rate_report_approx(const lbt_rate *r, char *buf, size_t size)
{
	const lbt_rate_stats *st = lbt_rate_stats_get(r);
	int n;

	if (!lbt_budget_note(&st->budget, "keys", "requests", buf, size))
		return 0;
	n = (int)strlen(buf);
	snprintf(buf + n, size - (size_t)n, " (a row's total_err); the total rate and the span "
	    "are exact");
	return 1;
}

/* The "none has the --by field" sentence.  @return 1 with buf, or 0. */
int lbt_rate_report_empty(const lbt_rate *r, char *buf, size_t size)
{
	const lbt_rate_stats *st = lbt_rate_stats_get(r);

	if (st->counted != 0 || st->no_key == 0)
		return 0;
	snprintf(buf, size, "none of %llu records has a %s (see --by, --key-regex)",
	    (unsigned long long)st->records, lbt_rate_by_name(lbt_rate_opts_get(r)->by));
	return 1;
}
