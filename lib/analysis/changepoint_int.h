/*
 * changepoint_int.h - what lib/analysis/changepoint*.c share; never installed.
 *
 *   changepoint_seg.c  the segmentation: candidates, PELT, refinement, merging
 *   changepoint.c      baseline, new, episodes, the public functions
 *
 * Direction: changepoint.c calls changepoint_seg.c, never the other way.
 */
#ifndef LBT_CHANGEPOINT_INT_H
#define LBT_CHANGEPOINT_INT_H

#include <stddef.h>
#include <stdint.h>

#include "lbt/changepoint.h"

/* A series and its prefix sums: S[i] = v[0] + ... + v[i - 1]. */
struct lbt_cpi_sums {
	const int64_t *v;
	double *S;
	size_t n;
	double step;                 /* seconds a bucket, > 0 */
};

/* Events a second over [s, t) (0 when empty). */
double lbt_cpi_rate(const struct lbt_cpi_sums *x, size_t s, size_t t);

/*
 * Segment x into res->seg (time order): PELT with penalty beta over the
 * candidate cuts between blocks of min_buckets / 2, each cut then moved to
 * the best bucket near it, segments shorter than min_buckets folded into a neighbour
 * (lbt_cpi_fold), then adjacent segments closer than merge_ratio merged.  @return 0, or -1 when out of memory.
 */
int lbt_cpi_segment(const struct lbt_cpi_sums *x, double beta, double merge_ratio,
    size_t min_buckets, lbt_cp_result *res);

/*
 * Fold every segment of s[0..*n) shorter than `min` buckets into the
 * neighbour of the closer rate, the shortest first; at the end of the
 * series only when shorter than min / 2.
 * Rates recomputed.
 */
void lbt_cpi_fold(lbt_cp_segment *s, size_t *n, const struct lbt_cpi_sums *x, size_t min);

/*
 * Merge adjacent segments of s[0..*n) whose rates differ by less than
 * `ratio` (max / min), the closest pair first; rates recomputed from x.
 */
void lbt_cpi_merge(lbt_cp_segment *s, size_t *n, const struct lbt_cpi_sums *x, double ratio);

#endif
