/*
 * changepoint.h - the episodes of a rate over time: when a series rises
 * well above its own baseline, how high, for how long, and when it falls
 * to a fraction of it.  One engine for lbt-rate, lbt-offenders and
 * lbt-timeline, on a dense series of counts per bucket.
 *
 * The method, in three steps:
 *
 *  1. Segmentation.  The counts are cut into segments of constant rate by
 *     PELT (Killick, Fearnhead and Eckley, 2012) with the Poisson cost of a
 *     segment, 2 (C - C ln(C / L)) for C events in L buckets, and a
 *     penalty per change point (default 2 ln n, the BIC of a Poisson
 *     segment).  The segmentation is exact for the cost; pruning keeps it
 *     near linear in n.  Traffic is burstier than Poisson, so two adjacent
 *     segments whose rates differ by less than `merge_ratio` are merged,
 *     closest first.
 *
 *  2. Baseline.  A series that is absent from the first bucket of the
 *     input for so long that the rate it then appears with makes that
 *     absence improbable (no event in f buckets when f x rate > 7, a chance
 *     below 0.1 %; the rate of its first segment, from its first event) is
 *     `new`: it has no baseline, and its first bucket is first_seen.  For
 *     the others the baseline is the mean rate over the buckets of the
 *     segments that are not elevated, before the first episode (all of
 *     them when the series starts elevated): a mean of counts, so a key
 *     seen 29 times a minute has a baseline of 0.48 req/s, not the 0 a
 *     median of whole counts gives.  "Elevated" is decided against the
 *     median bucket rate first, then once more against the baseline.
 *
 *  3. Episodes.  A segment is elevated when its rate is at least
 *     max(factor x baseline, floor) (floor alone for a new series), and
 *     depressed when it is at most drop_fraction x baseline while the
 *     baseline is at least floor.  A rise is a run of elevated segments;
 *     a segment inside the run whose rate is below lull_fraction of both
 *     its neighbours' for at least min_buckets splits it in two (a lull
 *     between two floods).  A drop is a run of depressed segments (an LB
 *     that leaves rotation, a server going dark).  Episodes shorter than
 *     min_buckets are left out.  Each has its start and end bucket (end =
 *     n and `ongoing` when it lasts to the end), the bucket and rate of
 *     its peak (a drop: its lowest), its mean rate, the rate before it and
 *     its ratio to the baseline.
 *
 * Limits: rates are per bucket width; a series of a few events (less than
 * about 2 min_buckets of them) yields no episode; episodes closer than
 * min_buckets may merge; a baseline measured over less than min_buckets
 * buckets is marked `short_baseline`.
 * Includes: nothing.
 */
#ifndef LBT_CHANGEPOINT_H
#define LBT_CHANGEPOINT_H

#include <stddef.h>
#include <stdint.h>

typedef struct lbt_cp_opts {
	double factor;          /* a rise is >= factor x baseline; > 1, default 5 */
	double floor;           /* and >= floor events a second; default 2 */
	double drop_fraction;   /* a drop is <= this x baseline; default 0.2 */
	double lull_fraction;   /* a lull splits a rise below this x its neighbours; 0.25 */
	double merge_ratio;     /* adjacent segments closer than this merge; default 2 */
	size_t min_buckets;     /* shortest episode and lull; default 10 */
	double penalty;         /* PELT penalty per change point; 0: 2 ln n */
} lbt_cp_opts;

#define LBT_CP_OPTS_INIT { 5.0, 2.0, 0.2, 0.25, 2.0, 10, 0.0 }

typedef enum lbt_cp_kind {
	LBT_CP_RISE,
	LBT_CP_DROP
} lbt_cp_kind;

/* One episode; buckets are indices into the series given. */
typedef struct lbt_cp_episode {
	lbt_cp_kind kind;
	size_t start, end;      /* [start, end); end = n when ongoing */
	int ongoing;
	size_t peak;            /* the highest bucket (a drop: the lowest) */
	double peak_rate;       /* its count a second */
	double mean_rate;       /* events a second over [start, end) */
	double from_rate;       /* the rate of the segment before (the baseline when none) */
	double ratio;           /* mean_rate / baseline; 0 when there is no baseline */
} lbt_cp_episode;

typedef struct lbt_cp_segment {
	size_t start, end;      /* [start, end) */
	double rate;            /* events a second */
} lbt_cp_segment;

typedef struct lbt_cp_result {
	int is_new;             /* absent before first_seen: no baseline */
	int short_baseline;     /* measured over fewer than min_buckets buckets */
	size_t first_seen;      /* first bucket with an event (n when none) */
	double baseline;        /* events a second; 0 when new */
	lbt_cp_episode *ep;     /* in time order */
	size_t nep;
	lbt_cp_segment *seg;    /* the merged segmentation, in time order */
	size_t nseg;
} lbt_cp_result;

/*
 * Find the baseline and the episodes of v[0..n) (counts per bucket of
 * step_s seconds).  `o` NULL means LBT_CP_OPTS_INIT.  res is filled (free
 * it with lbt_cp_result_free, also after an error).
 * @return 0, or -1 when out of memory (res empty).
 */
int lbt_cp_find(const int64_t *v, size_t n, double step_s, const lbt_cp_opts *o,
    lbt_cp_result *res);

/* Free what lbt_cp_find allocated; res becomes empty.  NULL accepted. */
void lbt_cp_result_free(lbt_cp_result *res);

#endif
