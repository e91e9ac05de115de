/*
 * episode_report.c - change points as cells and rows (see episode_report.h).
 */
#include "lbt/episode_report.h"

/* The --episodes columns after `first`. */
void lbt_episode_report_cols(lbt_out_col *cols, const char *first)
{
	static const lbt_out_col rest[LBT_EPISODE_NCOLS - 1] = {
		{ "kind", LBT_COL_STR }, { "start", LBT_COL_STR }, { "end", LBT_COL_STR },
		{ "from_rps", LBT_COL_NUM }, { "peak_rps", LBT_COL_NUM },
		{ "mean_rps", LBT_COL_NUM }, { "ratio", LBT_COL_NUM },
	};

	cols[0] = (lbt_out_col){ first, LBT_COL_STR };
	for (int i = 0; i < LBT_EPISODE_NCOLS - 1; i++)
		cols[i + 1] = rest[i];
}

/* One row per episode of cp. */
void lbt_episode_report_rows(lbt_out *out, const char *key, const lbt_cp_result *cp,
    int64_t origin, int64_t step_us)
{
	for (size_t i = 0; i < cp->nep; i++) {
		const lbt_cp_episode *e = &cp->ep[i];

		lbt_out_cstr(out, key);
		lbt_out_cstr(out, e->kind == LBT_CP_RISE ? "rise" : "drop");
		lbt_report_bucket(out, origin + (int64_t)e->start, step_us);
		if (e->ongoing)
			lbt_out_cstr(out, "ongoing");
		else
			lbt_report_bucket(out, origin + (int64_t)e->end, step_us);
		lbt_out_double(out, e->from_rate, 2);
		lbt_out_double(out, e->peak_rate, 2);
		lbt_out_double(out, e->mean_rate, 2);
		if (!cp->is_new && cp->baseline > 0)
			lbt_out_double(out, e->ratio, 2);
		else
			lbt_out_absent(out);
	}
}

/* "new" or the baseline rate. */
void lbt_episode_report_baseline(lbt_out *out, const lbt_cp_summary *s)
{
	if (s->is_new)
		lbt_out_cstr(out, "new");
	else
		lbt_out_double(out, s->baseline, 2);
}

/* "new", the ratio, or an absent cell. */
void lbt_episode_report_ratio(lbt_out *out, const lbt_cp_summary *s)
{
	if (s->is_new)
		lbt_out_cstr(out, "new");
	else if (s->has_ratio)
		lbt_out_double(out, s->ratio, 2);
	else
		lbt_out_absent(out);
}

/* Start, end and mean of the main episode, or three absent cells. */
void lbt_episode_report_main(lbt_out *out, const lbt_cp_summary *s, int64_t step_us)
{
	if (!s->has_main) {
		lbt_out_absent(out);
		lbt_out_absent(out);
		lbt_out_absent(out);
		return;
	}
	lbt_report_bucket(out, s->start, step_us);
	if (s->ongoing)
		lbt_out_cstr(out, "ongoing");
	else
		lbt_report_bucket(out, s->end, step_us);
	lbt_out_double(out, s->mean_rate, 2);
}
