/*
 * episode_report.h - the change points of a ranked row (changepoint.h) as
 * cells and rows, the same in lbt-rate(1) and lbt-offenders(1): the
 * baseline cell ("new" for a series without one), and --episodes, one row
 * an episode.
 * Includes: changepoint.h, report.h.
 */
#ifndef LBT_EPISODE_REPORT_H
#define LBT_EPISODE_REPORT_H

#include <stdint.h>

#include "lbt/changepoint.h"
#include "lbt/report.h"

#define LBT_EPISODE_NCOLS 8

/* What a narrow terminal leaves out of the --episodes table first (out.h,
 * lbt_out_set_drop): the key or source, kind, start and peak stay. */
#define LBT_EPISODE_DROP "end,mean_rps,from_rps,ratio"

/*
 * The columns of --episodes into cols[0..LBT_EPISODE_NCOLS): `first` (the
 * key's column name), kind ("rise" or "drop"), start, end ("ongoing"),
 * from_rps (the rate of the part before it), peak_rps (a drop: its lowest
 * bucket), mean_rps, ratio (mean over baseline; absent without one).
 */
void lbt_episode_report_cols(lbt_out_col *cols, const char *first);

/* One row per episode of cp, named `key`; bucket index k of cp is bucket
 * origin + k of step_us. */
void lbt_episode_report_rows(lbt_out *out, const char *key, const lbt_cp_result *cp,
    int64_t origin, int64_t step_us);

/* A baseline cell: "new", or the rate with two decimals. */
void lbt_episode_report_baseline(lbt_out *out, const lbt_cp_summary *s);

/* A ratio cell: "new", the main episode's ratio with two decimals, or
 * absent (no main episode, a baseline of 0). */
void lbt_episode_report_ratio(lbt_out *out, const lbt_cp_summary *s);

/* The main episode's cells: jump_start, jump_end ("ongoing") and
 * sustained_rps (its mean); absent without one. */
void lbt_episode_report_main(lbt_out *out, const lbt_cp_summary *s, int64_t step_us);

#endif
