/*
 * ipset.c - sets of addresses as sorted disjoint ranges.  See ipset.h.
 *
 * An address is read as a number: the four IPv4 bytes as a 32-bit one, the
 * sixteen IPv6 bytes as a 128-bit one (GCC and Clang's unsigned __int128,
 * which every 64-bit target of theirs has).  Ranges are inclusive at both
 * ends, so the last address of a family needs no number past it.  The
 * invariant after norm(): sorted by (family, lo), and each range starts at
 * least two after the end of the one before (no overlap, no adjacency).
 */
#include <stdlib.h>
#include <string.h>

#include "lbt/ipset.h"
#include "lbt/vec.h"

__extension__ typedef unsigned __int128 u128;

struct range {
	int family;          /* 4 or 6 */
	u128 lo, hi;         /* inclusive */
};

struct lbt_ipset {
	struct range *r;
	size_t n, cap;
	int dirty;           /* appended since the last norm() */
};

/* Width of a family's addresses in bits. */
static int width(int family)
{
	return family == 4 ? 32 : 128;
}

/* The address as a number of its family. */
static u128 to_num(const lbt_addr *a)
{
	u128 v = 0;
	int from = a->family == 4 ? 12 : 0;

	for (int i = from; i < 16; i++)
		v = v << 8 | a->b[i];
	return v;
}

/* The address of family `family` whose number is v. */
static void from_num(int family, u128 v, lbt_addr *a)
{
	static const uint8_t v4mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	a->family = (uint8_t)family;
	if (family == 4)
		memcpy(a->b, v4mapped, 12);
	for (int i = 15; i >= (family == 4 ? 12 : 0); i--) {
		a->b[i] = (uint8_t)(v & 0xff);
		v >>= 8;
	}
}

/* 2^k - 1 for k in 0..128 (all ones for 128). */
static u128 ones(int k)
{
	return k >= 128 ? ~(u128)0 : ((u128)1 << k) - 1;
}

/* A new empty set.  @return it or NULL */
lbt_ipset *lbt_ipset_new(void)
{
	return calloc(1, sizeof(lbt_ipset));
}

/* Free s and its ranges; NULL accepted. */
void lbt_ipset_free(lbt_ipset *s)
{
	if (s == NULL)
		return;
	free(s->r);
	free(s);
}

/* Append one range.  @return 0 or -1 when out of memory */
static int push(lbt_ipset *s, int family, u128 lo, u128 hi)
{
	if (LBT_GROW(s->r, s->cap, s->n + 1, 16) < 0)
		return -1;
	s->r[s->n++] = (struct range){ family, lo, hi };
	s->dirty = 1;
	return 0;
}

/* Append net/bits as a range.  @return 0 or -1 when out of memory */
int lbt_ipset_add(lbt_ipset *s, const lbt_addr *net, int bits)
{
	int w;
	u128 host;

	if (net->family != 4 && net->family != 6)
		return 0;
	w = width(net->family);
	bits = bits < 0 ? 0 : bits > w ? w : bits;
	host = ones(w - bits);
	return push(s, net->family, to_num(net) & ~host, to_num(net) | host);
}

/* qsort order of ranges: family, then start. */
static int range_cmp(const void *pa, const void *pb)
{
	const struct range *a = pa, *b = pb;

	if (a->family != b->family)
		return a->family < b->family ? -1 : 1;
	return a->lo < b->lo ? -1 : a->lo > b->lo;
}

/* Sort and merge overlapping or adjacent ranges (see the invariant above). */
static void norm(lbt_ipset *s)
{
	size_t k = 0;

	if (!s->dirty)
		return;
	qsort(s->r, s->n, sizeof s->r[0], range_cmp);
	for (size_t i = 0; i < s->n; i++) {
		struct range *last = k > 0 ? &s->r[k - 1] : NULL;

		if (last && last->family == s->r[i].family &&
		    (last->hi == ones(width(last->family)) || s->r[i].lo <= last->hi + 1)) {
			if (s->r[i].hi > last->hi)
				last->hi = s->r[i].hi;
			continue;
		}
		s->r[k++] = s->r[i];
	}
	s->n = k;
	s->dirty = 0;
}

/* Add every range of x to s.  @return 0 or -1 */
int lbt_ipset_union(lbt_ipset *s, lbt_ipset *x)
{
	norm(x);
	for (size_t i = 0; i < x->n; i++)
		if (push(s, x->r[i].family, x->r[i].lo, x->r[i].hi) < 0)
			return -1;
	return 0;
}

/*
 * Append to `out` what is left of range a after removing the sorted,
 * disjoint ranges x[*j..] of its family; *j moves past the ranges that end
 * before a does (they cannot touch a later range of s).  @return 0 or -1
 */
static int cut(lbt_ipset *out, struct range a, const struct range *x, size_t nx, size_t *j)
{
	while (*j < nx && (x[*j].family < a.family ||
	    (x[*j].family == a.family && x[*j].hi < a.lo)))
		(*j)++;
	for (size_t k = *j; k < nx && x[k].family == a.family && x[k].lo <= a.hi; k++) {
		if (x[k].lo > a.lo && push(out, a.family, a.lo, x[k].lo - 1) < 0)
			return -1;
		if (x[k].hi >= a.hi)
			return 0;
		a.lo = x[k].hi + 1;
	}
	return push(out, a.family, a.lo, a.hi);
}

/* s = s minus x.  @return 0 or -1 (s unchanged) */
int lbt_ipset_subtract(lbt_ipset *s, lbt_ipset *x)
{
	lbt_ipset out = { NULL, 0, 0, 0 };
	size_t j = 0;

	norm(s);
	norm(x);
	for (size_t i = 0; i < s->n; i++)
		if (cut(&out, s->r[i], x->r, x->n, &j) < 0) {
			free(out.r);
			return -1;
		}
	free(s->r);
	*s = out;
	s->dirty = 0;
	return 0;
}

/* True when s holds nothing. */
int lbt_ipset_empty(lbt_ipset *s)
{
	norm(s);
	return s->n == 0;
}

/* Index of the first range of `family` that ends at or after v (s->n when none). */
static size_t first_from(const lbt_ipset *s, int family, u128 v)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct range *r = &s->r[mid];

		if (r->family < family || (r->family == family && r->hi < v))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* How much of net/bits s holds: ranges are disjoint and non-adjacent, so
 * one range holds all of it or none does. */
lbt_ipset_cover lbt_ipset_covers(lbt_ipset *s, const lbt_addr *net, int bits)
{
	int w;
	u128 host, lo, hi;
	size_t i;

	if (net->family != 4 && net->family != 6)
		return LBT_IPSET_NONE;
	norm(s);
	w = width(net->family);
	bits = bits < 0 ? 0 : bits > w ? w : bits;
	host = ones(w - bits);
	lo = to_num(net) & ~host;
	hi = lo | host;
	i = first_from(s, net->family, lo);
	if (i == s->n || s->r[i].family != net->family || s->r[i].lo > hi)
		return LBT_IPSET_NONE;
	return s->r[i].lo <= lo && s->r[i].hi >= hi ? LBT_IPSET_ALL : LBT_IPSET_PART;
}

/* True when s holds a. */
int lbt_ipset_has(lbt_ipset *s, const lbt_addr *a)
{
	return lbt_ipset_covers(s, a, width(a->family)) == LBT_IPSET_ALL;
}

/* True when a and b hold the same addresses. */
int lbt_ipset_equal(lbt_ipset *a, lbt_ipset *b)
{
	norm(a);
	norm(b);
	if (a->n != b->n)
		return 0;
	for (size_t i = 0; i < a->n; i++)
		if (a->r[i].family != b->r[i].family || a->r[i].lo != b->r[i].lo ||
		    a->r[i].hi != b->r[i].hi)
			return 0;
	return 1;
}

/* Trailing zero bits of v, `w` when v is 0. */
static int tz(u128 v, int w)
{
	int k = 0;

	if (v == 0)
		return w;
	while ((v & 1) == 0) {
		v >>= 1;
		k++;
	}
	return k;
}

/*
 * Append range r as aligned networks of at most 2^maxk addresses to
 * *out: from r.lo, each time the largest block aligned there that fits.
 * @return 0 or -1
 */
static int split(struct range r, int maxk, lbt_ipnet **out, size_t *n, size_t *cap)
{
	int w = width(r.family);

	for (;;) {
		int k = tz(r.lo, w);

		if (k > maxk)
			k = maxk;
		while (k > 0 && r.hi - r.lo < ones(k))
			k--;
		if (LBT_GROW(*out, *cap, *n + 1, 16) < 0)
			return -1;
		from_num(r.family, r.lo, &(*out)[*n].net);
		(*out)[(*n)++].bits = w - k;
		if (r.hi - r.lo == ones(k))
			return 0;
		r.lo += ones(k) + 1;
	}
}

/* The set as the fewest aligned networks no wider than the limits.  @return 0 or -1 */
int lbt_ipset_networks(lbt_ipset *s, int v4_min, int v6_min, lbt_ipnet **out, size_t *n)
{
	size_t cap = 0;

	*out = NULL;
	*n = 0;
	norm(s);
	for (size_t i = 0; i < s->n; i++) {
		int w = width(s->r[i].family), min = s->r[i].family == 4 ? v4_min : v6_min;

		min = min < 0 ? 0 : min > w ? w : min;
		if (split(s->r[i], w - min, out, n, &cap) < 0) {
			free(*out);
			*out = NULL;
			*n = 0;
			return -1;
		}
	}
	return 0;
}
