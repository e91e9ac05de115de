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
 * threshold T, T the smallest that drops at least half of them, read in a
 * histogram of upper bounds (capped at HBINS - 1: sources above never
 * drop).  Every dropped source sent at most T, so the floor becomes the
 * larger of itself and T; a source counted afterwards starts with the
 * floor as its error (lbt_offenders_add).  The kept sources are copied
 * into a new map and a new arena, the dropped ones' tables freed.
 */
#include <stdlib.h>
#include <string.h>

#include "lbt/num.h"
#include "offenders_int.h"

#define CHECK_EVERY 4096
#define HBINS 4096

/* @return the estimated bytes of o's source state. */
static size_t state_bytes(const lbt_offenders *o)
{
	return lbt_hmap_bytes(o->srcs) + o->arena.bytes + o->extra;
}

/* @return the upper bound of entry he's requests. */
static uint64_t upper(const lbt_hmap_entry *he)
{
	const struct src_entry *e = he->val;

	return e->full ? e->full->requests + e->full->err : 1;
}

/* The threshold: the smallest T < HBINS with at most half the sources
 * above it (HBINS - 1 when none is).  @return T, or -1 (no memory). */
static int64_t threshold(const lbt_offenders *o)
{
	size_t n = lbt_hmap_count(o->srcs), above = n, *h = calloc(HBINS, sizeof(*h));
	lbt_hmap_entry he;
	int64_t t;

	if (h == NULL)
		return -1;
	for (size_t i = 0; i < n; i++) {
		uint64_t u;

		lbt_hmap_at(o->srcs, i, &he);
		u = upper(&he);
		h[u < HBINS ? u : HBINS - 1]++;
	}
	for (t = 0; t < HBINS - 1; t++) {
		above -= h[t];
		if (above * 2 <= n)
			break;
	}
	free(h);
	return t;
}

/* Copy entry he into map m (its full state into arena a) when its upper
 * bound passes t; the old tables stay shared until the prune succeeds.
 * @return 1 copied, 0 not, -1 when out of memory. */
static int keep(const lbt_hmap_entry *he, uint64_t t, lbt_hmap *m, lbt_arena *a)
{
	const struct src_entry *e = he->val;
	struct src_entry *to;

	if (upper(he) <= t)
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
		if (e->full != NULL && upper(&he) <= t) {
			lbt_tally_free(&e->full->sec);
			lbt_addrset_free(&e->full->addrs);
		}
	}
}

/* Drop the sources at or under the threshold (see the file comment).
 * @return 0, or -1 when out of memory (o unchanged). */
static int prune(lbt_offenders *o)
{
	int64_t t = threshold(o);
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
	if ((uint64_t)t > o->st.floor)
		o->st.floor = (uint64_t)t;
	o->st.pruned++;
	o->st.dropped += n - kept;
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
	static const char units[] = "KMGT";
	size_t digits = strspn(arg, "0123456789");
	const char *u = arg + digits, *unit = *u != '\0' ? strchr(units, *u) : NULL;
	int64_t v;
	int shift = 0;

	if (unit != NULL) {
		shift = 10 * (int)(unit - units + 1);
		if (*++u == 'i')
			u++;
	}
	if (*u == 'B')
		u++;
	if (digits == 0 || *u != '\0' || lbt_num_i64(arg, digits, &v) < 0 ||
	    (uint64_t)v > (UINT64_MAX >> 2) >> shift)
		return lbt_err_set(err, "--max-memory: '%s' is not a size (1G, 512M, ...)", arg);
	if (((uint64_t)v << shift) < ((uint64_t)1 << 20))
		return lbt_err_set(err, "--max-memory: '%s' is less than 1M", arg);
	((lbt_offenders_opts *)opts)->max_memory = (size_t)((uint64_t)v << shift);
	return 0;
}
