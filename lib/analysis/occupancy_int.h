/*
 * occupancy_int.h - what lib/occupancy*.c share; never installed.
 *
 *   occupancy.c        the public API, the shared buckets, streams, results
 *   occupancy_sweep.c  the sweep of one stream: head and main, periods, late requests
 *   occupancy_merge.c  two occupancies made one (lbt_occ_merge)
 *   occupancy_queue.c  the pending endpoints of one stream (radix heap)
 *
 * Direction: occupancy.c and occupancy_merge.c call occupancy_sweep.c,
 * which calls back only lbt_occi_bucket_get/_put; all call
 * occupancy_queue.c, which calls nothing.
 */
#ifndef LBT_OCCUPANCY_INT_H
#define LBT_OCCUPANCY_INT_H

#include <stddef.h>
#include <stdint.h>

#include "lbt/occupancy.h"

/*
 * Endpoint kinds, in the order they apply at one moment: interval ends,
 * interval starts, then requests of 0 µs.  Such an instant is one event
 * that counts one slot more than those held at its moment, without holding
 * it: it meets the intervals starting then, not those ending then, and not
 * the other instants of the same millisecond (the logs cannot tell whether
 * they overlapped; HAProxy often serves them one after the other on a
 * single free slot).
 */
#define EV_TARPIT  0x1u
#define EV_END     0x0u
#define EV_START   0x2u
#define EV_INSTANT 0x4u
#define EV_TYPE(k) ((k) & 0x6u)

struct ev {
	int64_t t;
	uint32_t kind;              /* EV_END, EV_START or EV_INSTANT, | EV_TARPIT */
};

/*
 * Pending endpoints: a radix heap (Ahuja, Mehlhorn, Orlin, Tarjan 1990)
 * with 8-bit digits.  It needs every key pushed to be at least the last
 * one popped, which the sweep gives: it pops endpoints before `swept`
 * only, and pushes none before it.  Bucket (L, d) holds the keys whose
 * highest digit differing from `last` is digit L, of value d; keys equal
 * to `last` are only counted, by kind, since two endpoints of one time and
 * kind are the same to the sweep.  A pop that finds no key equal to `last`
 * takes the lowest bucket's minimum as `last` and spreads that bucket over
 * lower digits: a key moves at most 8 times, 3 or 4 over a minute of µs.
 * Measured (callgrind, lbt-tarpit --tsv on bench/genlog.sh, 400 000
 * lines, the default 60 s window: ~240 000 endpoints pending): the binary
 * heap on (t, kind) it replaces cost ~1490 instructions a line (push and
 * pop), this ~500 (lbt-tarpit 6740 -> 5750 a line); with 1-bit digits
 * (64 buckets) keys moved ~25 times and it saved nothing.
 */
#define RH_DIG   8                      /* bits of a digit */
#define RH_NDIG  (64 / RH_DIG)          /* digits of a key */
#define RH_RADIX (1 << RH_DIG)

struct rev {
	uint64_t k;                 /* rh_key() of the time */
	uint32_t kind;
};

struct rbucket {
	struct rev *v;
	size_t n, cap;
	uint64_t min;               /* smallest key of v (valid when n > 0) */
};

struct rheap {
	uint64_t last;              /* key of the last endpoint popped (0 before) */
	uint64_t lused;             /* bit L: some bucket of digit L is not empty */
	uint64_t dused[RH_NDIG][RH_RADIX / 64];   /* bit d of digit L: (L, d) is not empty */
	size_t n;                   /* endpoints pending */
	size_t n0;                  /* of them with key `last`, counted in cnt0 */
	size_t cnt0[8];             /* by kind */
	struct rbucket b[RH_NDIG][RH_RADIX];
};

/* ---- the sweep's state (occupancy_sweep.c) ----------------------------- */

/* The running (or closed) maximum of one bucket, or of the part of it
 * from `from` on (a sweep begun at the fence). */
struct bmax {
	int32_t max;                /* most slots held at once */
	int32_t tp;                 /* tarpitted slots at the first moment of max */
	int32_t nt;                 /* most untarpitted slots at once */
	int64_t at;                 /* first moment of max */
	uint32_t flags;             /* LBT_OCC_* */
};

/* A bucket a stream's head closed, kept in the stream until it is final. */
struct hbucket {
	int64_t bucket;
	struct bmax m;
};

/* Periods being built by one sweep (all slots, or untarpitted ones). */
struct ptrack {
	int open;                   /* currently at >= threshold */
	int64_t above_since;        /* when the current run at >= threshold began */
	lbt_occ_period cur;         /* the period being built */
	lbt_occ_period *v;          /* closed periods, in time order */
	size_t n, cap;
};

/* One sweep over endpoints in time order from an entry level on. */
struct sweep {
	int32_t cur, cur_nt;        /* slots held at the sweep point */
	int has_cb;                 /* cb, from, m are valid */
	int64_t cb;                 /* bucket of the sweep point */
	int64_t from;               /* start of m's part of cb: cb's start, or the fence */
	struct bmax m;              /* maximum of cb over [from, sweep point) */
	int carry;                  /* m is the level carried to `from`, not yet held */
	struct ptrack all, nt;
};

/*
 * One input file.  Its sweep is cut at the fence, its first start plus the
 * window plus 1 µs: the head sweeps what lies before (closed buckets kept
 * in hb, endpoints kept in raw), the main sweep what follows (buckets
 * written to the shared map).  A part of the same file read before this
 * one ends before the fence (unless a request was late), so a merge
 * re-sweeps only the head with it (occupancy_merge.c; occupancy.h).
 */
struct stream {
	const void *id;             /* caller's pointer (file name) */
	struct rheap rh;            /* pending endpoints, in (t, kind) order */
	int has_swept, has_wm, has_first;
	int64_t swept;              /* endpoints before it have been applied */
	int64_t wm;                 /* latest end seen */
	int64_t fence;              /* first start + window + 1 */
	int64_t min_start;          /* earliest start pushed */
	uint64_t late;              /* requests that came late to this stream */
	int split;                  /* the main sweep has begun at the fence */
	struct sweep head, main;
	struct ev *raw;             /* the head's endpoints, as swept */
	size_t nraw, capraw;
	struct hbucket *hb;         /* buckets the head closed, in time order */
	size_t nhb, caphb;
	int has_fence_main;         /* fence_main is valid */
	struct bmax fence_main;     /* the main's part of the fence bucket, closed */
};

/* A bucket in the map: the public part first (bucket_get() hands out a
 * pointer to it), and the largest maximum one stream wrote into it. */
struct obucket {
	lbt_occ_bucket pub;
	int32_t smax;
};

struct lbt_occ {
	lbt_occ_opts o;
	struct lbt_hmap *buckets;   /* int64 bucket -> struct obucket */
	int64_t last_b;             /* cache of the last bucket looked up */
	lbt_occ_bucket *last;
	struct stream **st;
	size_t nst, capst;
	struct stream *last_st;
	lbt_occ_stats stats;
	int finished;
	lbt_occ_bucket *sorted;     /* after finish */
	size_t nsorted;
	lbt_occ_period *per[2];     /* after finish: all, what-if */
	size_t nper[2];
};

/* occupancy.c: the shared buckets (each comment is above its definition). */
lbt_occ_bucket *lbt_occi_bucket_get(lbt_occ *o, int64_t b);
int lbt_occi_bucket_put(lbt_occ *o, int64_t b, const struct bmax *m);

/* occupancy_sweep.c */
int lbt_occi_sweep(lbt_occ *o, struct stream *s, int64_t limit);
int lbt_occi_late(lbt_occ *o, struct stream *s, int64_t st, int64_t e, int tarpit);
int lbt_occi_stream_finish(lbt_occ *o, struct stream *s);
int lbt_occi_join(lbt_occ *o, struct stream *s, struct sweep *x, struct stream *b);
void lbt_occi_stream_free(struct stream *s);

/* occupancy_queue.c: the array growth every file uses, and the queue (each
 * function's comment is above its definition). */
int lbt_occi_grow(void **v, size_t *cap, size_t need, size_t size);
int lbt_occi_rh_push(struct rheap *h, int64_t t, uint32_t kind);
int lbt_occi_rh_min(const struct rheap *h, int64_t *t);
int lbt_occi_rh_pop(struct rheap *h, struct ev *e);
void lbt_occi_rh_free(struct rheap *h);

#endif
