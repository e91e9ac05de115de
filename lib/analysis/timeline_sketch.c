/*
 * timeline_sketch.c - the values of one dimension (keys, sources, Hosts)
 * that get a series: a space-saving sketch (Metwally, Agrawal and El
 * Abbadi, 2005) of `cap` counters, each with its cells.
 *
 * While the dimension has at most cap values every one is kept and every
 * count and series is exact.  Past that, a new value takes the slot of
 * the smallest count m, starting at m + 1 (err = m: its count is an upper
 * bound), and its series starts with its next record (a value that comes
 * once and is pushed out again, the common case past cap, then costs no
 * series at all); a value sent more than total / cap times is always kept.  The slots are found by an open-addressing index
 * (linear probing, deletion by backward shift, so no tombstones) and the
 * smallest count by a min-heap of slots.  Memory: cap slots and their
 * cells, whatever the number of values.
 *
 * Merging two sketches keeps every value while the union fits; past that,
 * the cap largest counts (mergeable summaries, Agarwal et al. 2012), the
 * others counted as evicted.
 */
#include <stdlib.h>
#include <string.h>

#include "timeline_int.h"

/* Index slot of a hash. */
static size_t home(const tl_sketch *s, uint64_t h)
{
	return (size_t)(h & (s->icap - 1));
}

/* @return the slot of key[0..klen), or (size_t)-1 when absent; *pos gets
 * its index position (or the empty one where it would go). */
static size_t find(const tl_sketch *s, const void *key, size_t klen, size_t *pos)
{
	size_t i = home(s, lbt_hash_bytes(key, klen));

	for (;; i = (i + 1) & (s->icap - 1)) {
		uint32_t e = s->idx[i];

		if (e == 0) {
			*pos = i;
			return (size_t)-1;
		}
		if (s->v[e - 1].klen == klen && memcmp(s->v[e - 1].key, key, klen) == 0) {
			*pos = i;
			return e - 1;
		}
	}
}

/* Remove index position i, shifting back the entries that probed past it. */
static void idx_delete(tl_sketch *s, size_t i)
{
	size_t j = i, mask = s->icap - 1;

	s->idx[i] = 0;
	for (;;) {
		size_t k;

		j = (j + 1) & mask;
		if (s->idx[j] == 0)
			return;
		k = home(s, lbt_hash_bytes(s->v[s->idx[j] - 1].key, s->v[s->idx[j] - 1].klen));
		/* entry j may move to i when its home is not in (i, j] cyclically */
		if ((i <= j) ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		s->idx[i] = s->idx[j];
		s->idx[j] = 0;
		i = j;
	}
}

/* Swap heap positions a and b. */
static void heap_swap(tl_sketch *s, size_t a, size_t b)
{
	size_t t = s->heap[a];

	s->heap[a] = s->heap[b];
	s->heap[b] = t;
	s->v[s->heap[a]].hpos = a;
	s->v[s->heap[b]].hpos = b;
}

/* Heap order: count.  Which of equal smallest counts is pushed out only
 * matters past cap, where the counts are upper bounds anyway; comparing
 * keys too cost a fifth of the sketch's time on uniform input (callgrind). */
static int heap_less(const tl_sketch *s, size_t a, size_t b)
{
	return s->v[s->heap[a]].count < s->v[s->heap[b]].count;
}

/* Move heap position i down after its count grew. */
static void heap_down(tl_sketch *s, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;

		if (l < s->n && heap_less(s, l, m))
			m = l;
		if (r < s->n && heap_less(s, r, m))
			m = r;
		if (m == i)
			return;
		heap_swap(s, i, m);
		i = m;
	}
}

/* Move heap position i up. */
static void heap_up(tl_sketch *s, size_t i)
{
	while (i > 0 && heap_less(s, i, (i - 1) / 2)) {
		heap_swap(s, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
}

/* Empty slots for cap values.  @return 0, or -1 when out of memory. */
int lbt_tli_sketch_init(tl_sketch *s, size_t cap, int with_req)
{
	memset(s, 0, sizeof *s);
	s->cap = cap > 0 ? cap : 1;
	s->with_req = with_req;
	for (s->icap = 4; s->icap < 2 * s->cap; s->icap *= 2)
		;
	s->v = calloc(s->cap, sizeof *s->v);
	s->idx = calloc(s->icap, sizeof *s->idx);
	s->heap = calloc(s->cap, sizeof *s->heap);
	return s->v && s->idx && s->heap ? 0 : -1;
}

/* Free what slot w holds and clear it. */
static void subj_clear(struct tl_subj *w)
{
	free(w->key);
	lbt_tli_cells_free(&w->cells);
	lbt_tli_cells_free(&w->c429);
	lbt_tli_cells_free(&w->cref);
	lbt_hmap_free(w->req);
	memset(w, 0, sizeof *w);
}

/* Put key into slot `slot` (emptied, its key buffer kept) at index position
 * pos.  @return 0 or -1. */
static int subj_fill(tl_sketch *s, size_t slot, size_t pos, const void *key, size_t klen)
{
	struct tl_subj *w = &s->v[slot];

	if (w->kcap < klen + 1) {
		char *k = realloc(w->key, klen + 1);

		if (k == NULL)
			return -1;
		w->key = k;
		w->kcap = klen + 1;
	}
	memcpy(w->key, key, klen);
	w->key[klen] = '\0';
	w->klen = klen;
	s->idx[pos] = (uint32_t)slot + 1;
	return 0;
}

/* A new value when every slot is taken: the smallest count's slot, its
 * key buffer kept.  @return the slot, or (size_t)-1 when out of memory. */
static size_t evict(tl_sketch *s, const void *key, size_t klen)
{
	size_t slot = s->heap[0], pos, kcap = s->v[slot].kcap;
	uint64_t m = s->v[slot].count;
	char *kbuf = s->v[slot].key;

	find(s, s->v[slot].key, s->v[slot].klen, &pos);
	idx_delete(s, pos);
	s->v[slot].key = NULL;
	subj_clear(&s->v[slot]);
	s->v[slot].key = kbuf;
	s->v[slot].kcap = kcap;
	s->v[slot].hpos = 0;
	find(s, key, klen, &pos);
	if (subj_fill(s, slot, pos, key, klen) < 0)
		return (size_t)-1;
	s->v[slot].count = m;
	s->v[slot].err = m;
	s->evicted++;
	return slot;
}

/*
 * Count one more of key[0..klen): its slot, counted (count + 1), created
 * or taken from the smallest count when new; *evicted is 1 in that last
 * case (the caller then starts its series with its next record).
 * @return the slot's value, or NULL when out of memory.
 */
struct tl_subj *lbt_tli_sketch_hit(tl_sketch *s, const void *key, size_t klen, int *evicted)
{
	size_t pos, slot = find(s, key, klen, &pos);

	*evicted = 0;
	if (slot == (size_t)-1) {
		*evicted = s->n == s->cap;
		if (s->n < s->cap) {
			slot = s->n;
			if (subj_fill(s, slot, pos, key, klen) < 0)
				return NULL;
			s->heap[s->n] = slot;
			s->v[slot].hpos = s->n++;
			heap_up(s, s->v[slot].hpos);
		} else if ((slot = evict(s, key, klen)) == (size_t)-1) {
			return NULL;
		}
	}
	s->v[slot].count++;
	heap_down(s, s->v[slot].hpos);
	return &s->v[slot];
}

/* Add src's value w into dst's slot d: counts, cells, last, requests.
 * @return 0 or -1 (no memory). */
static int subj_join(struct tl_subj *d, const struct tl_subj *w, tl_intern_fn fn, void *ctx)
{
	lbt_evidence last = w->last;

	d->count += w->count;
	d->err += w->err;
	if (lbt_tli_cells_merge(&d->cells, &w->cells, fn, ctx) < 0 ||
	    lbt_tli_cells_merge(&d->c429, &w->c429, fn, ctx) < 0 ||
	    lbt_tli_cells_merge(&d->cref, &w->cref, fn, ctx) < 0)
		return -1;
	if (last.set && fn != NULL && last.file != NULL &&
	    (last.file = fn(ctx, last.file)) == NULL)
		return -1;
	if (last.set && (!d->last.set || lbt_evidence_cmp(&last, &d->last) > 0))
		d->last = last;
	return lbt_tli_req_merge(d, w, fn, ctx);
}

/* qsort order of slots for the merge's cut: count descending, then key. */
static int by_count(const void *a, const void *b)
{
	const struct tl_subj *x = *(struct tl_subj *const *)a, *y = *(struct tl_subj *const *)b;
	size_t n = x->klen < y->klen ? x->klen : y->klen;
	int c;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	c = memcmp(x->key, y->key, n);
	return c != 0 ? c : (x->klen > y->klen) - (x->klen < y->klen);
}

/* Rebuild dst's index and heap from its n slots. */
static void rebuild(tl_sketch *s)
{
	memset(s->idx, 0, s->icap * sizeof *s->idx);
	for (size_t i = 0; i < s->n; i++) {
		size_t pos;

		find(s, s->v[i].key, s->v[i].klen, &pos);
		s->idx[pos] = (uint32_t)i + 1;
		s->heap[i] = i;
		s->v[i].hpos = i;
	}
	for (size_t i = s->n / 2 + 1; i-- > 0;)
		heap_down(s, i);
}

/*
 * Keep the cap largest of dst's slots and the extra values x[0..nx)
 * (src's values dst lacks, moved out of src), freeing the others.
 * @return 0, or -1 when out of memory.
 */
static int keep_largest(tl_sketch *dst, struct tl_subj *x, size_t nx)
{
	size_t n = dst->n + nx, k = 0;
	struct tl_subj **all = malloc((n ? n : 1) * sizeof *all), *keep;

	if (all == NULL || (keep = malloc(dst->cap * sizeof *keep)) == NULL) {
		free(all);
		return -1;
	}
	for (size_t i = 0; i < dst->n; i++)
		all[k++] = &dst->v[i];
	for (size_t i = 0; i < nx; i++)
		all[k++] = &x[i];
	qsort(all, n, sizeof *all, by_count);
	for (size_t i = 0; i < n; i++) {
		if (i < dst->cap)
			keep[i] = *all[i];
		else
			subj_clear(all[i]);
	}
	dst->evicted += n > dst->cap ? n - dst->cap : 0;
	dst->n = n < dst->cap ? n : dst->cap;
	memcpy(dst->v, keep, dst->n * sizeof *keep);
	free(keep);
	free(all);
	rebuild(dst);
	return 0;
}

/*
 * Merge src into dst (same cap): common values added, src's others moved
 * over; past cap, the largest kept.  src is left empty (free it after).
 * @return 0, or -1 when out of memory.
 */
int lbt_tli_sketch_merge(tl_sketch *dst, tl_sketch *src, tl_intern_fn fn, void *ctx)
{
	struct tl_subj *x = malloc((src->n ? src->n : 1) * sizeof *x);
	size_t nx = 0;
	int rc = 0;

	if (x == NULL)
		return -1;
	dst->evicted += src->evicted;
	for (size_t i = 0; i < src->n && rc == 0; i++) {
		struct tl_subj *w = &src->v[i], moved = { 0 };
		size_t pos, slot = find(dst, w->key, w->klen, &pos);

		if (slot != (size_t)-1) {
			rc = subj_join(&dst->v[slot], w, fn, ctx);
			continue;
		}
		moved.key = w->key;         /* the value itself, renamed into dst's names */
		moved.klen = w->klen;
		moved.kcap = w->kcap;
		w->key = NULL;
		rc = subj_join(&moved, w, fn, ctx);
		x[nx++] = moved;
	}
	if (rc == 0)
		rc = keep_largest(dst, x, nx);
	free(x);
	return rc;
}

/* Rebucket every value's cells by factor.  @return 0 or -1. */
int lbt_tli_sketch_rebucket(tl_sketch *s, int64_t factor)
{
	for (size_t i = 0; i < s->n; i++)
		if (lbt_tli_cells_rebucket(&s->v[i].cells, factor) < 0 ||
		    lbt_tli_cells_rebucket(&s->v[i].c429, factor) < 0 ||
		    lbt_tli_cells_rebucket(&s->v[i].cref, factor) < 0)
			return -1;
	return 0;
}

/* Free every slot and the arrays; NULL arrays accepted. */
void lbt_tli_sketch_free(tl_sketch *s)
{
	for (size_t i = 0; s->v != NULL && i < s->n; i++)
		subj_clear(&s->v[i]);
	free(s->v);
	free(s->idx);
	free(s->heap);
	memset(s, 0, sizeof *s);
}

/* ---- the requests of a tracked source ------------------------------------ */

/* "METHOD path" of r (the key when there is no path) into b.  @return its length. */
static size_t req_text(const lbt_rec *r, char *b, size_t size)
{
	lbt_str m = (r->have & LBT_BIT(LBT_F_METHOD)) ? r->method : lbt_str_make("-", 1);
	lbt_str p = (r->have & LBT_BIT(LBT_F_PATH)) ? r->path :
	    (r->have & LBT_BIT(LBT_F_KEY)) ? r->key : lbt_str_make("-", 1);
	size_t n = 0;

	for (size_t i = 0; i < m.n && n + 1 < size; i++)
		b[n++] = m.p[i];
	b[n++] = ' ';
	for (size_t i = 0; i < p.n && n < size; i++)
		b[n++] = p.p[i];
	return n;
}

/*
 * Count r in w's requests (refused or not); past LBT_TL_RETRY_CAP pairs a
 * new pair is only counted in req_over.  @return 0 or -1 (no memory).
 */
int lbt_tli_req_add(struct tl_subj *w, const lbt_rec *r, int refused, const char *file)
{
	char b[256];
	size_t n = req_text(r, b, sizeof b);
	struct tl_req *q;
	int created = 0;

	if (w->req == NULL && (w->req = lbt_hmap_new(sizeof *q)) == NULL)
		return -1;
	if ((q = lbt_hmap_get(w->req, b, n)) == NULL) {
		if (lbt_hmap_count(w->req) >= LBT_TL_RETRY_CAP) {
			w->req_over++;
			return 0;
		}
		if ((q = lbt_hmap_put(w->req, b, n, &created)) == NULL)
			return -1;
		q->first_us = q->last_us = r->time_us;
	}
	q->n++;
	if (r->time_us < q->first_us)
		q->first_us = r->time_us;
	if (r->time_us > q->last_us)
		q->last_us = r->time_us;
	if (refused) {
		if (q->nref == 0 || r->time_us < q->ref_first_us)
			q->ref_first_us = r->time_us;
		if (q->nref == 0 || r->time_us > q->ref_last_us)
			q->ref_last_us = r->time_us;
		q->nref++;
		if (lbt_evidence_better(&q->ref, r))
			lbt_evidence_set(&q->ref, r, file);
	}
	return 0;
}

/* Add src's requests into dst's (cap as in lbt_tli_req_add).  @return 0 or -1. */
int lbt_tli_req_merge(struct tl_subj *dst, const struct tl_subj *src, tl_intern_fn fn,
    void *ctx)
{
	size_t n = src->req ? lbt_hmap_count(src->req) : 0;

	dst->req_over += src->req_over;
	for (size_t i = 0; i < n; i++) {
		lbt_hmap_entry e;
		const struct tl_req *s;
		struct tl_req *d;
		lbt_evidence ref;
		int created = 0;

		lbt_hmap_at(src->req, i, &e);
		s = e.val;
		if (dst->req == NULL && (dst->req = lbt_hmap_new(sizeof *d)) == NULL)
			return -1;
		if ((d = lbt_hmap_get(dst->req, e.key, e.klen)) == NULL &&
		    lbt_hmap_count(dst->req) >= LBT_TL_RETRY_CAP) {
			dst->req_over += s->n;
			continue;
		}
		if (d == NULL && (d = lbt_hmap_put(dst->req, e.key, e.klen, &created)) == NULL)
			return -1;
		if (created)
			*d = (struct tl_req){ 0, 0, s->first_us, s->last_us, LBT_EVIDENCE_INIT, 0, 0 };
		if (d->nref == 0) {
			d->ref_first_us = s->ref_first_us;
			d->ref_last_us = s->ref_last_us;
		} else if (s->nref > 0) {
			d->ref_first_us = s->ref_first_us < d->ref_first_us ? s->ref_first_us :
			    d->ref_first_us;
			d->ref_last_us = s->ref_last_us > d->ref_last_us ? s->ref_last_us :
			    d->ref_last_us;
		}
		d->n += s->n;
		d->nref += s->nref;
		d->first_us = s->first_us < d->first_us ? s->first_us : d->first_us;
		d->last_us = s->last_us > d->last_us ? s->last_us : d->last_us;
		ref = s->ref;
		if (ref.set && fn != NULL && ref.file != NULL &&
		    (ref.file = fn(ctx, ref.file)) == NULL)
			return -1;
		if (ref.set && lbt_evidence_cmp(&ref, &d->ref) < 0)
			d->ref = ref;
	}
	return 0;
}
