/*
 * addrset.c - a source's distinct addresses (see addrset.h).
 *
 * Three forms.  LBT_ADDRSET_LO: the lower halves, the upper one being the
 * network's; one address inline, two or more in an array sorted by value,
 * found by binary search and inserted by a move of the tail (at most
 * LBT_ADDRSET_EXACT entries, 2 KiB).  LBT_ADDRSET_PAIRS: the same array of
 * (hi, lo) pairs, sorted by hi then lo, for an address outside the
 * network's upper half.  LBT_ADDRSET_SKETCH: a HyperLogLog of every
 * address, from the one past LBT_ADDRSET_EXACT on.  The array grows by
 * half, never past LBT_ADDRSET_EXACT.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lbt/addrset.h"
#include "lbt/hll.h"

/* Mix the two halves of an address into 64 bits.  The varying bits of
 * addresses in one /64 sit in the top bytes of `lo` (memory order read
 * as a little-endian word), so every bit must reach every other:
 * splitmix64's finaliser does that. */
static uint64_t hash64(uint64_t hi, uint64_t lo)
{
	uint64_t z = hi * 0x9e3779b97f4a7c15ull ^ lo;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* @return 1 when s keeps its addresses in the array u.v. */
static int has_array(const lbt_addrset *s)
{
	return s->form == LBT_ADDRSET_PAIRS || (s->form == LBT_ADDRSET_LO && s->n >= 2);
}

/* @return the words an address takes in the array of form `form`. */
static size_t width(int form)
{
	return form == LBT_ADDRSET_PAIRS ? 2 : 1;
}

/* Address i of the exact set s (hi, lo), its upper half net_hi in form LO. */
static void addr_at(const lbt_addrset *s, uint64_t net_hi, uint32_t i, uint64_t *hi,
    uint64_t *lo)
{
	if (s->form == LBT_ADDRSET_PAIRS) {
		*hi = s->u.v[2 * i];
		*lo = s->u.v[2 * i + 1];
	} else {
		*hi = net_hi;
		*lo = s->n == 1 ? s->u.one : s->u.v[i];
	}
}

/* Turn the exact set into its sketch of the same addresses.
 * @return 0 or -1 (no memory; s unchanged). */
static int to_sketch(lbt_addrset *s, uint64_t net_hi)
{
	uint8_t *h = lbt_hll_new();
	uint64_t hi, lo;

	if (h == NULL)
		return -1;
	for (uint32_t i = 0; i < s->n; i++) {
		addr_at(s, net_hi, i, &hi, &lo);
		lbt_hll_add(h, hash64(hi, lo));
	}
	if (has_array(s))
		free(s->u.v);
	s->u.hll = h;
	s->form = LBT_ADDRSET_SKETCH;
	return 0;
}

/* Room for one more address in the array (made, the inline address moved
 * into it, when there is none).  @return 0 or -1 (no memory). */
static int reserve(lbt_addrset *s)
{
	size_t w = width(s->form), ncap = s->cap < 4 ? 4 : s->cap + s->cap / 2;
	int had = has_array(s);
	uint64_t one = s->u.one, *v;

	if (had && s->n < s->cap)
		return 0;
	if (ncap > LBT_ADDRSET_EXACT)
		ncap = LBT_ADDRSET_EXACT;
	if ((v = realloc(had ? s->u.v : NULL, ncap * w * sizeof(*v))) == NULL)
		return -1;
	if (!had && s->n == 1)
		v[0] = one;              /* form LO: PAIRS always has its array */
	s->u.v = v;
	s->cap = (uint16_t)ncap;
	return 0;
}

/* Turn the lower halves into pairs of upper half net_hi.
 * @return 0 or -1 (no memory; s unchanged). */
static int to_pairs(lbt_addrset *s, uint64_t net_hi)
{
	uint32_t cap = s->n + 1 > 4 ? s->n + 1 : 4;
	uint64_t *v = malloc(2 * cap * sizeof(*v)), hi, lo;

	if (v == NULL)
		return -1;
	for (uint32_t i = 0; i < s->n; i++) {
		addr_at(s, net_hi, i, &hi, &lo);
		v[2 * i] = hi, v[2 * i + 1] = lo;
	}
	if (has_array(s))
		free(s->u.v);
	s->u.v = v;
	s->cap = (uint16_t)cap;
	s->form = LBT_ADDRSET_PAIRS;
	return 0;
}

/* Compare address (hi, lo) with entry i of the array.  @return <0, 0, >0. */
static int cmp_at(const lbt_addrset *s, uint32_t i, uint64_t hi, uint64_t lo)
{
	uint64_t ehi = s->form == LBT_ADDRSET_PAIRS ? s->u.v[2 * i] : hi,
	    elo = s->u.v[width(s->form) * i + (s->form == LBT_ADDRSET_PAIRS)];

	if (hi != ehi)
		return hi < ehi ? -1 : 1;
	return (lo > elo) - (lo < elo);
}

/* Binary search of (hi, lo) in the array (n >= 2).  @return 1 with *at
 * its entry, or 0 with *at the entry it goes before. */
static int search(const lbt_addrset *s, uint64_t hi, uint64_t lo, uint32_t *at)
{
	uint32_t a = 0, b = s->n;

	while (a < b) {
		uint32_t mid = a + (b - a) / 2;
		int c = cmp_at(s, mid, hi, lo);

		if (c == 0) {
			*at = mid;
			return 1;
		}
		if (c > 0)
			a = mid + 1;
		else
			b = mid;
	}
	*at = a;
	return 0;
}

/* @return 1 when (hi, lo) is in the exact set s. */
static int has(const lbt_addrset *s, uint64_t net_hi, uint64_t hi, uint64_t lo)
{
	uint32_t at;

	if (s->n == 0)
		return 0;
	if (s->n == 1 && s->form == LBT_ADDRSET_LO)
		return hi == net_hi && lo == s->u.one;
	if (s->form == LBT_ADDRSET_LO && hi != net_hi)
		return 0;
	return search(s, hi, lo, &at);
}

/* Insert (hi, lo), absent, into the exact set.  @return 0 or -1. */
static int insert(lbt_addrset *s, uint64_t net_hi, uint64_t hi, uint64_t lo)
{
	uint32_t at = 0;
	size_t w;

	if (s->form == LBT_ADDRSET_LO && hi != net_hi && to_pairs(s, net_hi) < 0)
		return -1;
	if (s->n == 0 && s->form == LBT_ADDRSET_LO) {
		s->u.one = lo;
		s->n = 1;
		return 0;
	}
	if (reserve(s) < 0)
		return -1;
	w = width(s->form);
	search(s, hi, lo, &at);
	memmove(s->u.v + w * (at + 1), s->u.v + w * at, w * (s->n - at) * sizeof(*s->u.v));
	if (w == 2)
		s->u.v[2 * at] = hi;
	s->u.v[w * at + (w - 1)] = lo;
	s->n++;
	return 0;
}

/* Add (hi, lo), counted up to cap.  @return 0 or -1 (out of memory). */
int lbt_addrset_add(lbt_addrset *s, uint64_t net_hi, uint64_t hi, uint64_t lo, size_t cap)
{
	if (s->form == LBT_ADDRSET_SKETCH) {
		lbt_hll_add(s->u.hll, hash64(hi, lo));
		return 0;
	}
	if (has(s, net_hi, hi, lo))
		return 0;
	if (s->n > 0 && s->n >= cap) {
		s->capped = 1;
		return 0;
	}
	if (s->n >= LBT_ADDRSET_EXACT) {
		if (to_sketch(s, net_hi) < 0)
			return -1;
		lbt_hll_add(s->u.hll, hash64(hi, lo));
		return 0;
	}
	return insert(s, net_hi, hi, lo);
}

/* Union of src into dst (see addrset.h).  @return 0 or -1. */
int lbt_addrset_merge(lbt_addrset *dst, const lbt_addrset *src, uint64_t net_hi, size_t cap)
{
	uint64_t hi, lo;

	if (src->form == LBT_ADDRSET_SKETCH) {
		if (dst->form != LBT_ADDRSET_SKETCH && to_sketch(dst, net_hi) < 0)
			return -1;
		lbt_hll_merge(dst->u.hll, src->u.hll);
	} else {
		for (uint32_t i = 0; i < src->n; i++) {
			addr_at(src, net_hi, i, &hi, &lo);
			if (lbt_addrset_add(dst, net_hi, hi, lo, cap) < 0)
				return -1;
		}
	}
	dst->capped |= src->capped;
	return 0;
}

/* @return the distinct addresses, *approx = 1 for the sketch's estimate. */
uint64_t lbt_addrset_count(const lbt_addrset *s, int *approx)
{
	*approx = s->form == LBT_ADDRSET_SKETCH;
	return *approx ? (uint64_t)llround(lbt_hll_estimate(s->u.hll)) : s->n;
}

/* @return the bytes held outside the struct. */
size_t lbt_addrset_bytes(const lbt_addrset *s)
{
	if (s->form == LBT_ADDRSET_SKETCH)
		return LBT_HLL_M;
	return has_array(s) ? (size_t)s->cap * width(s->form) * sizeof(uint64_t) : 0;
}

/* Free the array or the sketch; s is empty again. */
void lbt_addrset_free(lbt_addrset *s)
{
	if (s == NULL)
		return;
	if (s->form == LBT_ADDRSET_SKETCH)
		free(s->u.hll);
	else if (has_array(s))
		free(s->u.v);
	*s = (lbt_addrset)LBT_ADDRSET_INIT;
}
