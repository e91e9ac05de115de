/*
 * offenders_budget.c - lbt-offenders within --max-memory (see offenders.h,
 * "Memory budget").
 *
 * The estimate is the source map's bytes, the arena's and, for the full
 * states, a mean cost per request in the tally and per stored address
 * (both arrays grow by half).  Checked every CHECK_EVERY
 * records, it triggers a prune past the budget; the new map, built while
 * the old one still lives, holds at most half the sources, so a prune
 * briefly takes up to half the budget again (a drop is rare, ten million
 * sources of one request fit in the default 1G).
 *
 * The prune keeps the sources whose upper bound (requests + err) passes a
 * threshold T, T the smallest that drops at least half of them
 * (lbt_budget_threshold, budget.h: the machinery every budget shares; this
 * file prunes itself because a source's full state lives in an arena).
 * Every dropped source sent at most T, so the floor becomes the larger of
 * itself and T; a source counted afterwards starts with the
 * floor as its error (lbt_offenders_add).  The kept sources are copied
 * into a new map and a new arena, the dropped ones' tables freed.
 */
#include <stdlib.h>
#include <string.h>

#include "lbt/budget.h"
#include "offenders_int.h"

#define CHECK_EVERY 4096

/* @return the estimated bytes of o's source state. */
static size_t state_bytes(const lbt_offenders *o)
{
	return lbt_hmap_bytes(o->srcs) + o->arena.bytes + o->extra;
}

/* @return the upper bound of entry he's requests (lbt_budget_weight_fn). */
static uint64_t upper(const lbt_hmap_entry *he, void *ctx)
{
	const struct src_entry *e = he->val;

	(void)ctx;
	return e->full ? e->full->requests + e->full->err : 1;
}

/* Copy entry he into map m (its full state into arena a) when its upper
 * bound passes t; the old tables stay shared until the prune succeeds.
 * @return 1 copied, 0 not, -1 when out of memory. */
static int keep(const lbt_hmap_entry *he, uint64_t t, lbt_hmap *m, lbt_arena *a)
{
	const struct src_entry *e = he->val;
	struct src_entry *to;

	if (upper(he, NULL) <= t)
		return 0;
	if ((to = lbt_hmap_put(m, he->key, he->klen, NULL)) == NULL)
		return -1;
	*to = *e;
	if (e->full != NULL) {
		if ((to->full = lbt_arena_alloc(a, sizeof(*to->full))) == NULL)
			return -1;
		*to->full = *e->full;
	}
	return 1;
}

/* Free the tables of the sources of o at or under t (dropped). */
static void free_dropped(lbt_offenders *o, uint64_t t)
{
	lbt_hmap_entry he;

	for (size_t i = 0; i < lbt_hmap_count(o->srcs); i++) {
		const struct src_entry *e;

		lbt_hmap_at(o->srcs, i, &he);
		e = he.val;
		if (e->full != NULL && upper(&he, NULL) <= t) {
			lbt_tally_free(&e->full->sec);
			lbt_addrset_free(&e->full->addrs);
		}
	}
}

/* The prune at t that dropped n, in the stats, as lbt_budget_record does. */
static void budget_record(lbt_offenders *o, uint64_t t, uint64_t n)
{
	lbt_budget b = { o->o.max_memory, o->st.pruned, o->st.dropped, o->st.floor };

	lbt_budget_record(&b, t, n);
	o->st.pruned = b.pruned;
	o->st.dropped = b.dropped;
	o->st.floor = b.floor;
}

/* Drop the sources at or under the threshold (see the file comment).
 * @return 0, or -1 when out of memory (o unchanged). */
static int prune(lbt_offenders *o)
{
	int64_t t = lbt_budget_threshold(o->srcs, upper, NULL);
	lbt_hmap *m = lbt_hmap_new_fixed(sizeof(lbt_addr), sizeof(struct src_entry));
	lbt_arena a = LBT_ARENA_INIT;
	lbt_hmap_entry he;
	size_t n = lbt_hmap_count(o->srcs), kept = 0;
	int k = 0;

	for (size_t i = 0; t >= 0 && m != NULL && k >= 0 && i < n; i++) {
		lbt_hmap_at(o->srcs, i, &he);
		if ((k = keep(&he, (uint64_t)t, m, &a)) == 1)
			kept++;
	}
	if (t < 0 || m == NULL || k < 0) {
		lbt_hmap_free(m);
		lbt_arena_free(&a);
		return -1;
	}
	free_dropped(o, (uint64_t)t);
	lbt_hmap_free(o->srcs);
	lbt_arena_free(&o->arena);
	o->srcs = m;
	o->arena = a;
	o->extra = n ? (size_t)((double)o->extra * (double)kept / (double)n) : 0;
	budget_record(o, (uint64_t)t, n - kept);
	return 0;
}

/* Prune when over the budget.  @return 0, or -1 when out of memory. */
int lbt_offendersi_budget_now(lbt_offenders *o)
{
	if (o->o.max_memory == 0 || state_bytes(o) <= o->o.max_memory)
		return 0;
	return prune(o);
}

/* lbt_offendersi_budget_now every CHECK_EVERY records.  @return 0 or -1. */
int lbt_offendersi_budget(lbt_offenders *o)
{
	return o->st.counted % CHECK_EVERY != 0 ? 0 : lbt_offendersi_budget_now(o);
}

/* lbt_cli_fn for --max-memory SIZE.  @return 0 or -1 with err. */
int lbt_offenders_opt_max_memory(void *opts, const char *arg, lbt_err *err)
{
	return lbt_budget_parse(arg, &((lbt_offenders_opts *)opts)->max_memory, err);
}
