/*
 * budget.c - a memory budget for a map of log-chosen keys (see budget.h).
 *
 * The threshold is read in a histogram of weights (capped at HBINS - 1:
 * entries above never drop).  The new map, built while the old one still
 * lives, holds at most half the entries, so a prune briefly takes up to
 * half the budget again.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbt/budget.h"
#include "lbt/num.h"

#define HBINS 4096

/* Parse SIZE ("512M", "1G", "1GiB", ...; at least 1M).  @return 0 or -1 with err. */
int lbt_budget_parse(const char *arg, size_t *bytes, lbt_err *err)
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
	*bytes = (size_t)((uint64_t)v << shift);
	return 0;
}

/* lbt_cli_fn for --max-memory into a size_t.  @return 0 or -1 with err. */
int lbt_budget_opt(void *bytes, const char *arg, lbt_err *err)
{
	return lbt_budget_parse(arg, bytes, err);
}

/* True every `every` counts when bytes pass the budget. */
int lbt_budget_due(const lbt_budget *b, uint64_t count, uint64_t every, size_t bytes)
{
	return b->max != 0 && count % every == 0 && bytes > b->max;
}

/* The smallest T < HBINS with at most half the entries above it (HBINS - 1
 * when none is).  @return T, or -1 (no memory). */
int64_t lbt_budget_threshold(const lbt_hmap *m, lbt_budget_weight_fn w, void *ctx)
{
	size_t n = lbt_hmap_count(m), above = n, *h = calloc(HBINS, sizeof(*h));
	lbt_hmap_entry e;
	int64_t t;

	if (h == NULL)
		return -1;
	for (size_t i = 0; i < n; i++) {
		uint64_t u;

		lbt_hmap_at(m, i, &e);
		u = w(&e, ctx);
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

/* A prune at t dropped n: the floor is the larger of itself and t. */
void lbt_budget_record(lbt_budget *b, uint64_t t, uint64_t n)
{
	if (t > b->floor)
		b->floor = t;
	b->pruned++;
	b->dropped += n;
}

/* Drop the entries at or under the threshold (see the header).
 * @return 0, or -1 when out of memory (*m unchanged). */
int lbt_budget_prune(lbt_budget *b, lbt_hmap **m, size_t klen, size_t val_size,
    lbt_budget_weight_fn w, lbt_budget_drop_fn drop, void *ctx)
{
	int64_t t = lbt_budget_threshold(*m, w, ctx);
	lbt_hmap *to = klen ? lbt_hmap_new_fixed(klen, val_size) : lbt_hmap_new(val_size);
	size_t n = lbt_hmap_count(*m), kept = 0;
	lbt_hmap_entry e;
	int fail = t < 0 || to == NULL;

	for (size_t i = 0; !fail && i < n; i++) {
		void *v;

		lbt_hmap_at(*m, i, &e);
		if (w(&e, ctx) <= (uint64_t)t)
			continue;
		if ((v = lbt_hmap_put(to, e.key, e.klen, NULL)) == NULL)
			fail = 1;
		else
			memcpy(v, e.val, val_size);
		kept += !fail;
	}
	if (fail) {
		lbt_hmap_free(to);
		return -1;
	}
	for (size_t i = 0; drop != NULL && i < n; i++) {
		lbt_hmap_at(*m, i, &e);
		if (w(&e, ctx) <= (uint64_t)t)
			drop(&e, ctx);
	}
	lbt_hmap_free(*m);
	*m = to;
	lbt_budget_record(b, (uint64_t)t, n - kept);
	return 0;
}

/* The sentence of a pruned budget.  @return 1 with buf, or 0 (exact). */
int lbt_budget_note(const lbt_budget *b, const char *what, const char *unit, char *buf,
    size_t size)
{
	int mib = b->max >= ((size_t)1 << 20);

	if (b->dropped == 0)
		return 0;
	snprintf(buf, size, "over --max-memory (%zu %s for them): %llu %s of at most %llu %s "
	    "each were dropped; a count shown may be short by at most %llu",
	    mib ? b->max >> 20 : b->max >> 10, mib ? "MiB" : "KiB",
	    (unsigned long long)b->dropped, what, (unsigned long long)b->floor, unit,
	    (unsigned long long)b->floor);
	return 1;
}

/* Merge src's counters into dst. */
void lbt_budget_merge(lbt_budget *dst, const lbt_budget *src)
{
	dst->pruned += src->pruned;
	dst->dropped += src->dropped;
	dst->floor += src->floor;
}
