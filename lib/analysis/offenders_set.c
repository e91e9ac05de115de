/*
 * offenders_set.c - the two small sets a source keeps (see offenders_int.h,
 * struct addrset and struct topk): its distinct client addresses (the
 * first inline, an open-addressing table from the second on, a
 * HyperLogLog sketch past ADDR_EXACT) and the space-saving counters over
 * its key numbers.
 *
 * Direction: offenders.c, offenders_state.c, offenders_merge.c and
 * offenders_budget.c call these; they call no other offenders*.c file.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lbt/hll.h"
#include "offenders_int.h"

/* Mix the two halves of an address into 64 bits.  The varying bits of
 * addresses in one /64 sit in the top bytes of `lo` (memory order read
 * as a little-endian word), so every bit must reach every other:
 * splitmix64's finaliser does that. */
static uint64_t set_hash64(uint64_t hi, uint64_t lo)
{
	uint64_t z = hi * 0x9e3779b97f4a7c15ull ^ lo;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* @return the slot number of an address (set_hash64's low bits). */
static uint32_t set_hash(uint64_t hi, uint64_t lo)
{
	return (uint32_t)set_hash64(hi, lo);
}

/* Turn the exact set into its sketch: every stored address (the first
 * one among them, "::" by its flag) counted in a new HyperLogLog.
 * @return 0 or -1 (no memory; the set is kept). */
int lbt_offendersi_set_sketch(struct addrset *s)
{
	if (s->hll != NULL)
		return 0;
	if ((s->hll = lbt_hll_new()) == NULL)
		return -1;
	if (s->slot == NULL && s->n > 0)
		lbt_hll_add(s->hll, set_hash64(s->first[0], s->first[1]));
	for (uint32_t i = 0; s->slot != NULL && i <= s->mask; i++)
		if ((s->slot[i][0] | s->slot[i][1]) != 0)
			lbt_hll_add(s->hll, set_hash64(s->slot[i][0], s->slot[i][1]));
	if (s->has_zero)
		lbt_hll_add(s->hll, set_hash64(0, 0));
	free(s->slot);
	s->slot = NULL;
	return 0;
}

/* Free the set's table or sketch. */
void lbt_offendersi_set_free(struct addrset *s)
{
	free(s->slot);
	free(s->hll);
	s->slot = NULL;
	s->hll = NULL;
}

/* @return the distinct addresses: exact, or the sketch's estimate
 * (*approx = 1). */
uint64_t lbt_offendersi_set_count(const struct addrset *s, int *approx)
{
	*approx = s->hll != NULL;
	return s->hll ? (uint64_t)llround(lbt_hll_estimate(s->hll)) : s->n;
}

/* Slot of address (hi, lo) in the set's table, or the empty one to use. */
static uint32_t set_probe(const struct addrset *s, uint64_t hi, uint64_t lo)
{
	uint32_t i = set_hash(hi, lo) & s->mask;

	while ((s->slot[i][0] | s->slot[i][1]) != 0 &&
	    (s->slot[i][0] != hi || s->slot[i][1] != lo))
		i = (i + 1) & s->mask;
	return i;
}

/* Store (hi, lo) (not zero, not present) in the table.  @return 0 or -1. */
static int set_store(struct addrset *s, uint64_t hi, uint64_t lo)
{
	if (s->slot == NULL || (s->n + 1) * 4 > (s->mask + 1) * 3) {
		uint32_t ocap = s->slot ? s->mask + 1 : 0, ncap = ocap ? ocap * 2 : 8;
		uint64_t (*old)[2] = s->slot;

		if ((s->slot = calloc(ncap, sizeof(*s->slot))) == NULL) {
			s->slot = old;
			return -1;
		}
		s->mask = ncap - 1;
		for (uint32_t i = 0; i < ocap; i++)
			if ((old[i][0] | old[i][1]) != 0)
				memcpy(s->slot[set_probe(s, old[i][0], old[i][1])], old[i], 16);
		free(old);
	}
	uint32_t i = set_probe(s, hi, lo);

	s->slot[i][0] = hi;
	s->slot[i][1] = lo;
	return 0;
}

/* Add address (hi, lo) (the two halves of lbt_addr.b) to a source's set,
 * counted up to cap.  @return 0 or -1 (no memory). */
int lbt_offendersi_set_add(struct addrset *s, uint64_t hi, uint64_t lo, size_t cap)
{
	if (s->hll != NULL) {
		lbt_hll_add(s->hll, set_hash64(hi, lo));
		return 0;
	}
	if (s->n == 0) {
		s->first[0] = hi, s->first[1] = lo, s->n = 1;
		return 0;
	}
	if (s->slot == NULL && hi == s->first[0] && lo == s->first[1])
		return 0;
	if (s->slot == NULL && set_store(s, s->first[0], s->first[1]) < 0)
		return -1;
	if ((hi | lo) == 0) {                 /* "::": flag, not a slot */
		if (!s->has_zero)
			s->has_zero = 1, s->n++;
		return 0;
	}
	uint32_t i = set_probe(s, hi, lo);

	if ((s->slot[i][0] | s->slot[i][1]) != 0)
		return 0;
	if (s->n >= cap) {
		s->capped = 1;
		return 0;
	}
	if (s->n >= ADDR_EXACT) {
		if (lbt_offendersi_set_sketch(s) < 0)
			return -1;
		lbt_hll_add(s->hll, set_hash64(hi, lo));
		return 0;
	}
	if (set_store(s, hi, lo) < 0)
		return -1;
	s->n++;
	return 0;
}

/* Count key number id in a source's space-saving counters. */
void lbt_offendersi_topk_add(struct topk *t, uint32_t id)
{
	uint32_t m = 0;

	for (uint32_t i = 0; i < t->n; i++)
		if (t->id[i] == id) {
			if (t->cnt[i] < UINT32_MAX)
				t->cnt[i]++;
			return;
		}
	if (t->n < LBT_OFF_TOPK) {
		t->id[t->n] = id, t->cnt[t->n] = 1, t->err[t->n] = 0;
		t->n++;
		return;
	}
	for (uint32_t i = 1; i < LBT_OFF_TOPK; i++)
		if (t->cnt[i] < t->cnt[m])
			m = i;
	t->id[m] = id;
	t->err[m] = t->cnt[m];
	t->cnt[m]++;
}
