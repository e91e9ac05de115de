/*
 * occupancy.h - connection-slot occupancy over time, rebuilt from request
 * intervals: how many slots were held at once, and for how long.
 *
 * Each request held one slot over [start, end).  Two measures per time
 * bucket (bucket = floor(t / step), as series.h):
 *
 *   slot_us   the slot-microseconds held inside the bucket, i.e. the
 *             integral of the occupancy; slot_us / step is the mean number
 *             of slots held.  Exact and independent of input order.
 *   max       the most slots held at the same instant inside the bucket,
 *             found by a sweep over interval endpoints (ends before starts
 *             at the same instant, so [0,1) and [1,2) never overlap).  A
 *             request of 0 µs (an "instant": timers are whole milliseconds)
 *             holds no slot-time but counts one slot more than those held
 *             at its moment; several instants of one moment count as one,
 *             since the logs cannot tell whether they overlapped.
 *
 * The sweep needs the endpoints in time order, but logs are written when a
 * request ends while the record's time is its start, so starts arrive out
 * of order by up to the longest request.  Endpoints therefore wait in a
 * min-heap and are swept once they lie more than `window_us` before the
 * latest end seen ("the sweep point").  Memory is the requests of one
 * window (and a copy of the first window's, for lbt_occ_merge) plus the
 * touched buckets, never the whole input.
 *
 * Each input file is its own stream with its own sweep, so files given in
 * any order (access.log before access.log.1) stay exact.  Where two streams
 * hold slots in the same bucket (rotation boundary, two load balancers
 * logged without a host name), their maxima are added: an upper bound,
 * flagged LBT_OCC_MERGED.  A request whose start lies before its stream's
 * sweep point (out of order by more than the window) is "late": buckets it
 * covers entirely get +1 (exact), the bucket where it starts gets +1 as an
 * upper bound, flagged LBT_OCC_LATE.
 *
 * Periods: with a threshold, the sweep records the maximal intervals where
 * at least `threshold` slots were held, joining two periods less than one
 * step apart.  The same is done with tarpitted requests left out (the
 * what-if: had they been refused at once, holding nothing).  Buckets whose
 * maximum is only an upper bound add periods of whole buckets, flagged.
 * The header includes nothing of lbt; lib/analysis/occupancy.c uses hmap and series
 * (lbt_bucket_of).
 */
#ifndef LBT_OCCUPANCY_H
#define LBT_OCCUPANCY_H

#include <stddef.h>
#include <stdint.h>

/* Flags of buckets and periods. */
#define LBT_OCC_LATE    0x1u   /* a late request raised the maximum: upper bound */
#define LBT_OCC_MERGED  0x2u   /* maxima of several streams added: upper bound */

typedef struct lbt_occ_opts {
	int64_t step_us;      /* bucket width, > 0 */
	int64_t window_us;    /* reorder tolerance, >= 0 */
	int32_t threshold;    /* periods at >= threshold slots; 0: no periods */
} lbt_occ_opts;

#define LBT_OCC_OPTS_INIT { 10000000, 60000000, 0 }

typedef struct lbt_occ_bucket {
	int64_t bucket;       /* floor(t / step_us) */
	int64_t slot_us;      /* slot-µs held inside the bucket */
	int64_t tarpit_us;    /* of which by tarpitted requests */
	int32_t max;          /* most slots held at once */
	int32_t max_tarpit;   /* tarpitted slots at the first moment of max */
	int64_t max_at_us;    /* first moment max was reached */
	int32_t max_nt;       /* most slots held at once by untarpitted requests */
	uint32_t flags;       /* LBT_OCC_* */
	uint32_t nstreams;    /* streams that held slots here (internal) */
} lbt_occ_bucket;

typedef struct lbt_occ_period {
	int64_t start_us;     /* first moment at >= threshold */
	int64_t end_us;       /* first moment below it again (exclusive) */
	int64_t above_us;     /* time at >= threshold inside [start, end) */
	int32_t peak;         /* most slots held at once */
	int32_t peak_tarpit;  /* tarpitted slots at the first moment of peak */
	int64_t peak_at_us;
	uint32_t flags;       /* LBT_OCC_*: whole-bucket bounds, not event times */
} lbt_occ_period;

typedef struct lbt_occ_stats {
	uint64_t intervals;        /* requests added */
	uint64_t tarpit;           /* of which tarpitted */
	uint64_t instant;          /* of 0 µs (held for 1 µs) */
	uint64_t late;             /* out of order by more than the window */
	uint32_t streams;          /* input files seen */
	uint64_t upper_buckets;    /* buckets flagged LATE or MERGED */
	int64_t slot_us;           /* total slot-µs */
	int64_t tarpit_us;         /* of which tarpitted */
	int32_t peak;              /* largest bucket maximum */
	int32_t peak_tarpit;       /* tarpitted slots at that moment */
	int64_t peak_at_us;        /* first moment of the peak */
	uint32_t peak_flags;       /* flags of the peak's bucket */
	int32_t peak_nt;           /* the same, tarpitted left out */
	int64_t peak_nt_at_us;
} lbt_occ_stats;

typedef struct lbt_occ lbt_occ;

/* @return an empty occupancy, or NULL (out of memory, or step_us <= 0). */
lbt_occ *lbt_occ_new(const lbt_occ_opts *opts);

/* The bytes one input's stream costs an occupancy at least (its radix heap
 * of pending endpoints): what a caller that makes one occupancy per key
 * counts against a memory budget. */
size_t lbt_occ_stream_bytes(void);

/* NULL accepted. */
void lbt_occ_free(lbt_occ *o);

/*
 * Add one request holding a slot over [start_us, end_us) (end <= start:
 * an instant at start_us).  `stream` identifies the input file by pointer
 * (the caller interns names); NULL is a stream too.  `tarpit` marks a
 * tarpitted request.  Not after lbt_occ_finish().
 * @return 0, or -1 when out of memory (the occupancy is then incomplete).
 */
int lbt_occ_add(lbt_occ *o, const void *stream, int64_t start_us, int64_t end_us,
    int tarpit);

/*
 * Merge src (same options, unfinished) into o, as if o had also been given
 * src's requests, after its own; src is consumed (only lbt_occ_free after).
 * Streams are matched by id, src's mapped first by `map` (NULL: ids as
 * they are; the tarpit maps one accumulator's interned file names to the
 * other's).  Slot time is exact; a stream in one part only is moved over;
 * a stream in both (a file cut at a line boundary, o holding the first
 * lines) is swept again where the parts meet, which is exact unless a
 * request was out of order by more than the window across the cut, when
 * the parts stay two streams (maxima added, flagged LBT_OCC_MERGED).
 * For this each stream keeps, to its end, a copy of the endpoints of its
 * first window (its head) and the buckets that window closed.
 * @return 0, or -1 (out of memory, different options, finished).
 */
int lbt_occ_merge(lbt_occ *o, lbt_occ *src, const void *(*map)(const void *id, void *ctx),
    void *ctx);

/* Sweep what is left and build the results.  @return 0, or -1 (out of memory). */
int lbt_occ_finish(lbt_occ *o);

/* After finish: the touched buckets in time order; *n gets their count. */
const lbt_occ_bucket *lbt_occ_buckets(const lbt_occ *o, size_t *n);

/* After finish: the periods (whatif != 0: tarpitted left out) in time order. */
const lbt_occ_period *lbt_occ_periods(const lbt_occ *o, int whatif, size_t *n);

/* After finish (the counters are also valid before). */
const lbt_occ_stats *lbt_occ_stats_get(const lbt_occ *o);

/* The options given to lbt_occ_new(). */
const lbt_occ_opts *lbt_occ_opts_get(const lbt_occ *o);

#endif
