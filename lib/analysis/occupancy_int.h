/*
 * occupancy_int.h - what lib/occupancy*.c share; never installed.
 *
 *   occupancy.c        the sweep: streams, buckets, periods, the public API
 *   occupancy_queue.c  the pending endpoints of one stream (radix heap)
 *
 * Direction: occupancy.c calls occupancy_queue.c, never the other way.
 */
#ifndef LBT_OCCUPANCY_INT_H
#define LBT_OCCUPANCY_INT_H

#include <stddef.h>
#include <stdint.h>

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

/* occupancy_queue.c: the array growth both files use, and the queue (each
 * function's comment is above its definition). */
int lbt_occi_grow(void **v, size_t *cap, size_t need, size_t size);
int lbt_occi_rh_push(struct rheap *h, int64_t t, uint32_t kind);
int lbt_occi_rh_min(const struct rheap *h, int64_t *t);
int lbt_occi_rh_pop(struct rheap *h, struct ev *e);
void lbt_occi_rh_free(struct rheap *h);

#endif
