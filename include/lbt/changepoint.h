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
 *     segment).  Cuts are placed between blocks of h = min_buckets / 2
 *     buckets, then each is moved to the best bucket within h of it: at
 *     the bucket level the Poisson cost would isolate every burst of a
 *     client that pings 6 times every 5 s, or of a proxy at maxconn that
 *     logs in bursts, and an episode lasts min_buckets anyway.  A cut
 *     inside a run of empty blocks is never better than one at its ends
 *     (both segment costs are concave in where it falls), so only the n_c
 *     block boundaries next to a non-empty block are candidates: exact for
 *     block cuts, and a sparse series costs what its events cost.  PELT
 *     prunes well when the rate changes, but a long steady series keeps
 *     every candidate (quadratic); so when n_c > LBT_CP_EXACT (256),
 *     every B-th candidate (B = ceil(n_c / 256)) is segmented, then each
 *     change point is moved to the best candidate within B of it: a
 *     steady day of seconds costs 6.5 M instructions, an hour 3 M.
 *     Segments shorter than min_buckets are then folded into the
 *     neighbour of the closer rate, the shortest first, and, since traffic
 *     is burstier than Poisson, two adjacent segments whose rates differ
 *     by less than `merge_ratio` are merged, closest first.
 *
 *  2. Baseline.  A series that is absent from the first bucket of the
 *     input for so long that the rate it then appears with makes that
 *     absence improbable (no event in f buckets when f x rate > 7, a chance
 *     below 0.1 %; the rate of its first segment, from its first event) is
 *     `new`: it has no baseline, and its first bucket is first_seen.  For
 *     the others the baseline is the mean rate before the first abnormal
 *     period (segments away from the usual level, by step_ratio or more
 *     either way, lasting min_buckets together): its count over its
 *     seconds, short bursts included, so a key seen 29 times a minute has
 *     a baseline of 0.48 req/s, not the 0 a median of whole counts gives.
 *     When the series starts abnormal, the mean over every bucket outside
 *     abnormal periods.  The usual level is first the rate of the first
 *     segment (what the series did when the input began, so that a flood
 *     lasting most of the input is not taken for the baseline), or the
 *     median bucket rate when that first rate is a rise over it (the input
 *     began inside a flood) and that median is not 0 (an LB out of
 *     rotation for most of the input); then once more the baseline found.  An explicit window (base_from
 *     < base_to) replaces all this: the baseline is the mean rate in it,
 *     and a series without an event in it is new.
 *
 *  3. Episodes.  A segment is elevated when its rate is at least
 *     thr = max(factor x baseline, floor) (floor alone for a new series),
 *     and depressed when it is at most drop_fraction x baseline while the
 *     baseline is at least floor.  A rise is a run of elevated segments
 *     (other segments shorter than min_buckets inside it are part of it);
 *     its parts shorter than min_buckets are folded into the neighbour of
 *     the closer rate, and the parts left that differ by less than
 *     step_ratio are merged.  What remains is one episode each (a flood
 *     whose logged rate went from 57/s to 200/s when tarpit became deny is
 *     two), except a lull: a part below lull_fraction of the highest part
 *     on each side of it, which is no episode (a pause between two
 *     floods).  A rise whose mean is below thr is left out.  A drop is a
 *     run of depressed segments (an LB that leaves rotation, a server
 *     going dark).  Episodes shorter than min_buckets are left out.  Each
 *     has its start and end bucket (end = n and `ongoing` when it lasts to
 *     the end), the bucket and rate of its peak (a drop: its lowest), its
 *     mean rate, the rate before it and its ratio to the baseline.  The
 *     main episode is the first rise (when the series left its baseline),
 *     or the first drop when there is no rise.
 *
 * Limits: rates are per bucket width; a series of a few events (less than
 * about 2 min_buckets of them) yields no episode; episodes closer than
 * min_buckets may merge; a baseline measured over less than min_buckets
 * buckets is marked `short_baseline`; the segmentation is the optimum
 * over block cuts (past LBT_CP_EXACT candidates, over a coarser grid),
 * refined, not the optimum over every bucket; the edges of an episode are
 * found to the bucket, its length to within the folding of shorter parts.
 * Includes: err.h, series.h.
 */
#ifndef LBT_CHANGEPOINT_H
#define LBT_CHANGEPOINT_H

#include <stddef.h>
#include <stdint.h>

#include "lbt/err.h"
#include "lbt/series.h"

#define LBT_CP_EXACT 256        /* candidates segmented exactly */

typedef struct lbt_cp_opts {
	double factor;          /* a rise is >= factor x baseline; > 1, default 5 */
	double floor;           /* and >= floor events a second; default 2 */
	double drop_fraction;   /* a drop is <= this x baseline; 0..1, default 0.2 */
	double lull_fraction;   /* a lull splits a rise below this x its neighbours; 0.25 */
	double merge_ratio;     /* adjacent segments closer than this merge; default 2 */
	double step_ratio;      /* parts of a rise this far apart are two episodes; 3 */
	size_t min_buckets;     /* shortest episode and lull; default 10 */
	double penalty;         /* PELT penalty per change point; 0: 2 ln n */
	size_t base_from;       /* an explicit baseline window [base_from, base_to) */
	size_t base_to;         /* of bucket indices; base_to <= base_from: none */
} lbt_cp_opts;

#define LBT_CP_OPTS_INIT { 5.0, 2.0, 0.2, 0.25, 2.0, 3.0, 10, 0.0, 0, 0 }

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
	double from_rate;       /* the rate of the part before (the baseline when none) */
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
	size_t main;            /* the main episode's index in ep; nep when none */
	lbt_cp_segment *seg;    /* the merged segmentation, in time order */
	size_t nseg;
} lbt_cp_result;

/*
 * What a ranked row shows of its change points, the same in lbt-rate and
 * lbt-offenders (one definition: `--by net` and lbt-offenders agree).
 * Buckets are absolute: origin + index.
 */
typedef struct lbt_cp_summary {
	int is_new;             /* no baseline (lbt_cp_result.is_new) */
	double baseline;        /* events a second; 0 when new */
	size_t episodes;        /* rises and drops */
	int has_main;           /* a main episode; the fields below are set */
	lbt_cp_kind kind;       /* a rise, or a drop when there is no rise */
	int ongoing;            /* it lasts to the end of the input */
	int64_t start, end;     /* its buckets [start, end); end = n + origin when ongoing */
	double peak_rate;       /* its highest bucket (a drop: lowest), a second */
	double mean_rate;       /* its mean, a second */
	int has_ratio;          /* a main episode and a baseline above 0 */
	double ratio;           /* mean_rate / baseline */
} lbt_cp_summary;

/*
 * Find the baseline and the episodes of v[0..n) (counts per bucket of
 * step_s seconds).  `o` NULL means LBT_CP_OPTS_INIT; its values are not
 * checked here (lbt_cp_opts_check).  res is filled (free it with
 * lbt_cp_result_free, also after an error).
 * @return 0, or -1 when out of memory (res empty).
 */
int lbt_cp_find(const int64_t *v, size_t n, double step_s, const lbt_cp_opts *o,
    lbt_cp_result *res);

/* Free what lbt_cp_find allocated; res becomes empty.  NULL accepted. */
void lbt_cp_result_free(lbt_cp_result *res);

/* @return the main episode of res, or NULL when it has none. */
const lbt_cp_episode *lbt_cp_main(const lbt_cp_result *res);

/* @return the summary of res, its bucket index k being bucket origin + k. */
lbt_cp_summary lbt_cp_summarize(const lbt_cp_result *res, int64_t origin);

/*
 * Could a series with these touched buckets (sorted by bucket, as
 * lbt_series_points gives them) have a rise?  A rise lasts min_buckets
 * with a mean of at least floor, so some min_buckets buckets hold at least
 * floor x min_buckets x step_s / 2 events; a series without them has none.
 * Lets a caller that must rank every series by its episodes run the engine
 * on the few that can have one.  @return 1 when it may, 0 when it cannot.
 */
int lbt_cp_may_rise(const lbt_series_point *p, size_t n, double step_s, const lbt_cp_opts *o);

/*
 * Check option values (factor > 1, floor >= 0, drop_fraction in [0, 1),
 * min_buckets >= 1, the ratios > 1), naming the option as lbt-rate(1)
 * does ("--jump-factor: must be greater than 1").  @return 0 or -1 with err.
 */
int lbt_cp_opts_check(const lbt_cp_opts *o, lbt_err *err);

/* Buckets of step_us in a duration: ceil(dur_us / step_us), at least 1. */
size_t lbt_cp_buckets(int64_t dur_us, int64_t step_us);

/*
 * Option handlers in the shape of lbt_cli_fn (cli.h), ctx being an
 * lbt_cp_opts: --jump-factor (> 1), --jump-floor (req/s, >= 0) and
 * --drop-fraction (0 <= f < 1).  @return 0, or -1 with err.
 */
int lbt_cp_opt_factor(void *cp_opts, const char *arg, lbt_err *err);
int lbt_cp_opt_floor(void *cp_opts, const char *arg, lbt_err *err);
int lbt_cp_opt_drop(void *cp_opts, const char *arg, lbt_err *err);

#endif
