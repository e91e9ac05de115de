/*
 * ring.h - the records of a sliding window, copied into a ring of bounded
 * size, for --follow (docs/follow.md): each refresh feeds the records of
 * the last window to fresh analyses, and the answer is theirs exactly, the
 * same as a run over a file of those records.
 *
 * Records are copied with their strings into chunks of 1 MiB, in arrival
 * order.  A chunk whose newest record is older than the window (by the
 * records' own times: the newest time seen minus the window) is freed;
 * so is the oldest chunk while the ring is over its byte budget, and the
 * window held is then shorter than the one asked (lbt_ring_stats says by
 * how much).  Memory is the budget, whatever the rate or the hours run.
 *
 * Also here: the answers of watched networks before and after a rule took
 * effect (lbt_watch), counted as records arrive, in constant memory.
 * Includes: addr.h, analysis.h, err.h, rec.h.
 */
#ifndef LBT_RING_H
#define LBT_RING_H

#include <stddef.h>
#include <stdint.h>

#include "lbt/addr.h"
#include "lbt/analysis.h"
#include "lbt/err.h"
#include "lbt/rec.h"

typedef struct lbt_ring lbt_ring;

/* @return a ring of the last window_us of records, in at most max_bytes
 * (at least one chunk), or NULL when out of memory. */
lbt_ring *lbt_ring_new(int64_t window_us, size_t max_bytes);

/*
 * Copy rec (a record with a time; others are not kept) and its strings;
 * rec->file is kept as a pointer (the input owns it, and outlives the
 * ring).  @return 1 kept, 0 not (no time), -1 out of memory.
 */
int lbt_ring_add(lbt_ring *r, const lbt_rec *rec);

/* Call fn on every record of the window, oldest chunk first; stops at
 * fn's first non-zero return.  @return that, or 0. */
int lbt_ring_each(const lbt_ring *r, int (*fn)(void *ctx, const lbt_rec *rec), void *ctx);

/* Feed the window's records to v[0..n) (add only: the caller finishes).
 * @return the records fed. */
uint64_t lbt_ring_feed(const lbt_ring *r, lbt_analysis *v, size_t n);

typedef struct lbt_ring_stats {
	uint64_t records;          /* records in the window */
	size_t bytes;              /* memory of the chunks */
	int64_t first_us, last_us; /* oldest record in the window, newest seen */
	uint64_t dropped;          /* records dropped for the budget while still in the window */
	int64_t held_us;           /* the window held: last - the cut, <= window */
} lbt_ring_stats;

lbt_ring_stats lbt_ring_stats_get(const lbt_ring *r);

/* NULL accepted. */
void lbt_ring_free(lbt_ring *r);

/* One side of a watched network's answers. */
typedef struct lbt_watch_side {
	uint64_t requests;
	uint64_t s429;             /* answered 429 */
	uint64_t backend;          /* reached a server: not <NOSRV>, not tarpitted */
} lbt_watch_side;

typedef struct lbt_watch_net {
	lbt_addr net;
	int bits;
	char name[64];             /* "203.0.113.0/24" */
	int64_t mark_us;           /* the second its answers turned to 429 (more than
	                              half of them, after a second with fewer); 0 none */
	lbt_watch_side before, after;
	/* the second being counted, decided when a later one starts */
	int64_t sec;
	lbt_watch_side cur;
	int seen_low;              /* a second of fewer than half 429 came first */
} lbt_watch_net;

typedef struct lbt_watch lbt_watch;

/* @return an empty watch list, or NULL when out of memory. */
lbt_watch *lbt_watch_new(void);

/* Watch the networks of `list` (NET[,NET...], or one a line; a bare
 * address is its /32 or /128).  @return 0, or -1 with err naming the bad one. */
int lbt_watch_add(lbt_watch *w, const char *list, lbt_err *err);

/* Count rec in the first watched network holding its client. */
void lbt_watch_count(lbt_watch *w, const lbt_rec *rec);

size_t lbt_watch_count_nets(const lbt_watch *w);

/* The i-th network, its open second counted on its side (after once
 * marked) in *out.  @return 1, 0 past the last. */
int lbt_watch_at(const lbt_watch *w, size_t i, lbt_watch_net *out);

/* NULL accepted. */
void lbt_watch_free(lbt_watch *w);

#endif
