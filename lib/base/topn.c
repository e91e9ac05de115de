/*
 * topn.c - the first k entries of a map by selection (see topn.h).
 *
 * A binary heap of at most k entries with the worst one (last under cmp)
 * at its root: an entry better than the root replaces it.  Most entries
 * of a long tail lose that one compare and cost nothing more.  The heap
 * is then emptied from the back, worst first, into rank order.
 */
#include <stdlib.h>

#include "lbt/topn.h"

/* A heap over entries, ordered so that the root ranks last. */
struct heap {
	lbt_hmap_entry *v;
	size_t n;
	lbt_hmap_cmp cmp;
	void *ctx;
};

/* Non-zero when v[i] ranks after v[j] (it belongs nearer the root). */
static int worse(const struct heap *h, size_t i, size_t j)
{
	return h->cmp(&h->v[i], &h->v[j], h->ctx) > 0;
}

/* Swap two heap slots. */
static void swap(struct heap *h, size_t i, size_t j)
{
	lbt_hmap_entry t = h->v[i];

	h->v[i] = h->v[j];
	h->v[j] = t;
}

/* Move v[i] up while it ranks after its parent. */
static void sift_up(struct heap *h, size_t i)
{
	while (i > 0 && worse(h, i, (i - 1) / 2)) {
		swap(h, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
}

/* Move v[i] down while a child ranks after it. */
static void sift_down(struct heap *h, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, w = i;

		if (l < h->n && worse(h, l, w))
			w = l;
		if (r < h->n && worse(h, r, w))
			w = r;
		if (w == i)
			return;
		swap(h, i, w);
		i = w;
	}
}

/* Offer entry e to a heap of capacity k. */
static void offer(struct heap *h, size_t k, const lbt_hmap_entry *e)
{
	if (h->n < k) {
		h->v[h->n++] = *e;
		sift_up(h, h->n - 1);
	} else if (h->cmp(e, &h->v[0], h->ctx) < 0) {
		h->v[0] = *e;
		sift_down(h, 0);
	}
}

/* The first k entries of m under cmp among those keep accepts, best first
 * (see topn.h).  @return the malloc'ed array, or NULL when out of memory. */
lbt_hmap_entry *lbt_hmap_top(const lbt_hmap *m, size_t k, lbt_hmap_cmp cmp, lbt_hmap_pred keep,
    void *ctx, size_t *n, size_t *passing)
{
	size_t count = lbt_hmap_count(m), pass = 0;
	struct heap h = { NULL, 0, cmp, ctx };

	if (k == 0 || k > count)
		k = count;
	if ((h.v = malloc((k ? k : 1) * sizeof(*h.v))) == NULL)
		return NULL;
	for (size_t i = 0; i < count; i++) {
		lbt_hmap_entry e;

		lbt_hmap_at(m, i, &e);
		if (keep != NULL && !keep(&e, ctx))
			continue;
		pass++;
		if (k > 0)
			offer(&h, k, &e);
	}
	*n = h.n;
	while (h.n > 1) {               /* the root, worst left, goes to the back */
		swap(&h, 0, h.n - 1);
		h.n--;
		sift_down(&h, 0);
	}
	if (passing != NULL)
		*passing = pass;
	return h.v;
}
