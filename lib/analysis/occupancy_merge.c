/*
 * occupancy_merge.c - two occupancies made one (lbt_occ_merge, see
 * occupancy.h; docs/analysis-interface.md tells why it is exact).
 *
 * Slot time is a sum per bucket.  A stream (input file) found in one part
 * only is moved over: streams are swept apart and their maxima meet only
 * in the shared buckets, whose combination does not depend on the order.
 * A stream found in both parts (a file cut at a line boundary, dst with
 * the first lines) is swept again where the parts meet: everything src
 * swept before its fence is kept raw (its head), so src's head endpoints
 * join dst's pending ones, dst sweeps on to src's fence, and from there
 * src's main sweep, which no endpoint of dst reaches, goes on as dst's.
 * That is exact when src's first lines were no request late for dst:
 * every start of src at or after dst's sweep point, every end of dst
 * before src's fence.  Otherwise (a request out of order by more than the
 * window across the cut) the two parts stay two streams, whose maxima add
 * up to upper bounds flagged MERGED, as for two files.
 */
#include <stdlib.h>
#include <string.h>

#include "lbt/hmap.h"
#include "lbt/series.h"
#include "occupancy_int.h"

/* Add src bucket q (several streams' maxima already combined) into o's
 * bucket of the same number, as if its streams had written it there.
 * @return 0 or -1. */
static int bucket_merge(lbt_occ *o, const struct obucket *q)
{
	lbt_occ_bucket *p = lbt_occi_bucket_get(o, q->pub.bucket);
	struct obucket *ob = (struct obucket *)(void *)p;

	if (p == NULL)
		return -1;
	p->slot_us += q->pub.slot_us;
	p->tarpit_us += q->pub.tarpit_us;
	if (q->pub.nstreams == 0)
		return 0;
	if (p->nstreams > 0) {
		p->flags |= LBT_OCC_MERGED;
		if (q->smax > ob->smax || (q->smax == ob->smax && (q->pub.max_at_us < p->max_at_us ||
		    (q->pub.max_at_us == p->max_at_us && q->pub.max_tarpit > p->max_tarpit)))) {
			p->max_at_us = q->pub.max_at_us;
			p->max_tarpit = q->pub.max_tarpit;
			ob->smax = q->smax;
		}
		p->max += q->pub.max;
		p->max_nt += q->pub.max_nt;
	} else {
		p->max = q->pub.max;
		ob->smax = q->smax;
		p->max_tarpit = q->pub.max_tarpit;
		p->max_at_us = q->pub.max_at_us;
		p->max_nt = q->pub.max_nt;
	}
	p->flags |= q->pub.flags;
	p->nstreams += q->pub.nstreams;
	return 0;
}

/* Append stream s to o's streams.  @return 0 or -1. */
static int stream_adopt(lbt_occ *o, struct stream *s)
{
	if (lbt_occi_grow((void **)&o->st, &o->capst, o->nst + 1, sizeof(*o->st)) < 0)
		return -1;
	o->st[o->nst++] = s;
	o->stats.streams++;
	return 0;
}

/* True when the parts a (first) and b of one file meet exactly (see the
 * file comment). */
static int parts_meet(const struct stream *a, const struct stream *b)
{
	return b->late == 0 && (!a->has_swept || b->min_start >= a->swept) &&
	    (!a->has_wm || a->wm < b->fence);
}

/* Push b's raw head endpoints, and every pending one when b has not split,
 * onto a's queue.  @return 0 or -1. */
static int take_endpoints(struct stream *a, struct stream *b)
{
	struct ev e;

	for (size_t i = 0; i < b->nraw; i++)
		if (lbt_occi_rh_push(&a->rh, b->raw[i].t, b->raw[i].kind) < 0)
			return -1;
	while (!b->split && b->rh.n > 0)
		if (lbt_occi_rh_pop(&b->rh, &e) < 0 || lbt_occi_rh_push(&a->rh, e.t, e.kind) < 0)
			return -1;
	return 0;
}

/* Give b's queue (what b has not swept) to a, whose own is empty. */
static void take_queue(struct stream *a, struct stream *b)
{
	lbt_occi_rh_free(&a->rh);
	memcpy(&a->rh, &b->rh, sizeof(a->rh));
	memset(&b->rh, 0, sizeof(b->rh));
}

/*
 * a has swept to b's fence with its head (a's fence is not before b's):
 * a's head stops there, b's main sweep becomes a's, b's fence a's.
 */
static void take_main(struct stream *a, struct stream *b)
{
	free(a->main.all.v);
	free(a->main.nt.v);
	a->main = b->main;
	memset(&b->main, 0, sizeof(b->main));
	a->fence_main = b->fence_main;
	a->has_fence_main = b->has_fence_main;
	a->fence = b->fence;
	a->split = 1;
}

/* Merge part b of a file into part a (a first; parts_meet).  @return 0 or -1. */
static int stream_merge(lbt_occ *o, struct stream *a, struct stream *b)
{
	if (take_endpoints(a, b) < 0)
		return -1;
	if (b->min_start < a->min_start)
		a->min_start = b->min_start;
	if (b->split) {
		if (lbt_occi_sweep(o, a, b->fence) < 0)
			return -1;
		if (!a->split)
			take_main(a, b);
		else if (lbt_occi_join(o, a, &a->main, b) < 0)
			return -1;
		take_queue(a, b);
		a->swept = b->swept;
	}
	if (b->wm > a->wm)
		a->wm = b->wm;
	return lbt_occi_sweep(o, a, a->wm - o->o.window_us);
}

/* The stream of o with id, or NULL. */
static struct stream *stream_find(lbt_occ *o, const void *id)
{
	for (size_t i = 0; i < o->nst; i++)
		if (o->st[i]->id == id)
			return o->st[i];
	return NULL;
}

/* Move or merge every stream of src into o; src keeps none.  @return 0 or -1. */
static int streams_merge(lbt_occ *o, lbt_occ *src, const void *(*map)(const void *, void *),
    void *ctx)
{
	int rc = 0;

	for (size_t i = 0; i < src->nst; i++) {
		struct stream *b = src->st[i], *a;

		b->id = map != NULL ? map(b->id, ctx) : b->id;
		a = stream_find(o, b->id);
		if (rc == 0 && a != NULL && parts_meet(a, b)) {
			rc = stream_merge(o, a, b);
			lbt_occi_stream_free(b);
			continue;
		}
		if (a != NULL)
			b->id = b;             /* a stream of its own: two upper-bounded parts */
		if (rc == 0)
			rc = stream_adopt(o, b);
		else
			lbt_occi_stream_free(b);
	}
	src->nst = 0;
	return rc;
}

/* Merge src into o (see occupancy.h); src is left without streams.
 * @return 0 or -1. */
int lbt_occ_merge(lbt_occ *o, lbt_occ *src, const void *(*map)(const void *, void *),
    void *ctx)
{
	const lbt_occ_stats *t = &src->stats;
	lbt_hmap_entry e;

	if (o->finished || src->finished || o->o.step_us != src->o.step_us ||
	    o->o.window_us != src->o.window_us || o->o.threshold != src->o.threshold)
		return -1;
	o->stats.intervals += t->intervals;
	o->stats.tarpit += t->tarpit;
	o->stats.instant += t->instant;
	o->stats.late += t->late;
	o->stats.slot_us += t->slot_us;
	o->stats.tarpit_us += t->tarpit_us;
	o->last = NULL;
	o->last_st = NULL;
	for (size_t i = 0; i < lbt_hmap_count(src->buckets); i++) {
		lbt_hmap_at(src->buckets, i, &e);
		if (bucket_merge(o, e.val) < 0)
			return -1;
	}
	return streams_merge(o, src, map, ctx);
}
