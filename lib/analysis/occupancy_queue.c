/*
 * occupancy_queue.c - the pending endpoints of one occupancy stream: a
 * radix heap ordered by (time, kind), described in occupancy_int.h.  The
 * sweep that feeds and drains it is occupancy.c.
 */
#include <stdlib.h>

#include "occupancy_int.h"

/* Grow *v (elements of `size` bytes, *cap of them) to hold `need`.
 * @return 0, or -1 when out of memory (*v unchanged). */
int lbt_occi_grow(void **v, size_t *cap, size_t need, size_t size)
{
	size_t ncap = *cap ? *cap : 16;
	void *p;

	if (need <= *cap)
		return 0;
	while (ncap < need)
		ncap *= 2;
	p = realloc(*v, ncap * size);
	if (p == NULL)
		return -1;
	*v = p;
	*cap = ncap;
	return 0;
}

/* Key of time t in the radix heap: t with its sign bit flipped, so that
 * unsigned order is the order of the times. */
static uint64_t rh_key(int64_t t)
{
	return (uint64_t)t ^ ((uint64_t)1 << 63);
}

/* The time of key k (inverse of rh_key). */
static int64_t rh_time(uint64_t k)
{
	return (int64_t)(k ^ ((uint64_t)1 << 63));
}

/*
 * Put key k of `kind` in its bucket: the counts of k == last, or the bucket
 * of the highest digit where k differs from last (k > last).  Inlined in
 * its two callers: the call cost a third of the queue (callgrind).
 * @return 0 or -1 (out of memory).
 */
static inline __attribute__((always_inline)) int rh_put(struct rheap *h, uint64_t k,
    uint32_t kind)
{
	struct rbucket *b;
	int l, d;

	if (k == h->last) {
		h->cnt0[kind]++;
		h->n0++;
		return 0;
	}
	l = (63 - __builtin_clzll(k ^ h->last)) / RH_DIG;
	d = (int)(k >> (l * RH_DIG)) & (RH_RADIX - 1);
	b = &h->b[l][d];
	if (b->n == b->cap && lbt_occi_grow((void **)&b->v, &b->cap, b->n + 1, sizeof(*b->v)) < 0)
		return -1;
	b->v[b->n++] = (struct rev){ k, kind };
	if (b->n == 1) {
		b->min = k;
		h->lused |= (uint64_t)1 << l;
		h->dused[l][d / 64] |= (uint64_t)1 << (d % 64);
	} else if (k < b->min) {
		b->min = k;
	}
	return 0;
}

/* The lowest bucket that is not empty (there must be one); its digit
 * into *l. */
static struct rbucket *rh_lowest(const struct rheap *h, int *l)
{
	int w = 0;

	*l = __builtin_ctzll(h->lused);
	while (h->dused[*l][w] == 0)
		w++;
	return (struct rbucket *)&h->b[*l][w * 64 + __builtin_ctzll(h->dused[*l][w])];
}

/* Push an endpoint on the stream's queue h: t must not be before the last
 * endpoint popped (the sweep guarantees it, see lbt_occ_add).
 * @return 0 or -1 (out of memory). */
int lbt_occi_rh_push(struct rheap *h, int64_t t, uint32_t kind)
{
	if (rh_put(h, rh_key(t), kind) < 0)
		return -1;
	h->n++;
	return 0;
}

/* The time of the smallest endpoint into *t, without moving anything.
 * @return 1, or 0 when the queue is empty. */
int lbt_occi_rh_min(const struct rheap *h, int64_t *t)
{
	int l;

	if (h->n0 > 0)
		*t = rh_time(h->last);
	else if (h->lused != 0)
		*t = rh_time(rh_lowest(h, &l)->min);
	else
		return 0;
	return 1;
}

/* Empty bucket b of digit l: clear its bits. */
static void rh_clear(struct rheap *h, struct rbucket *b, int l)
{
	int d = (int)(b - h->b[l]), w;

	b->n = 0;
	h->dused[l][d / 64] &= ~((uint64_t)1 << (d % 64));
	for (w = 0; w < RH_RADIX / 64; w++)
		if (h->dused[l][w] != 0)
			return;
	h->lused &= ~((uint64_t)1 << l);
}

/*
 * Remove the smallest endpoint (the queue must not be empty) into *e:
 * when no key equals `last`, the lowest bucket's minimum becomes `last`
 * and its keys are spread over the buckets below.  Endpoints of one time
 * come out by kind, the order of (t, kind) the sweep needs.
 * @return 0 or -1 (out of memory).
 */
int lbt_occi_rh_pop(struct rheap *h, struct ev *e)
{
	uint32_t kind = 0;

	if (h->n0 == 0) {
		int l;
		struct rbucket *b = rh_lowest(h, &l);
		size_t n = b->n;

		rh_clear(h, b, l);
		h->last = b->min;
		for (size_t i = 0; i < n; i++)
			if (rh_put(h, b->v[i].k, b->v[i].kind) < 0)
				return -1;
	}
	while (h->cnt0[kind] == 0)
		kind++;
	h->cnt0[kind]--;
	h->n0--;
	h->n--;
	*e = (struct ev){ rh_time(h->last), kind };
	return 0;
}

/* Free what the buckets of h hold (not h itself). */
void lbt_occi_rh_free(struct rheap *h)
{
	for (int l = 0; l < RH_NDIG; l++)
		for (int d = 0; d < RH_RADIX; d++)
			free(h->b[l][d].v);
}
