/*
 * occupancy_bucket.c - the buckets every occupancy stream shares (see
 * occupancy_int.h): found or created by number, and a stream's maximum
 * written into one.  The sweeps (occupancy_sweep.c), the merge
 * (occupancy_merge.c) and the API (occupancy.c) all write through here;
 * this file calls none of them.
 */
#include <stdlib.h>
#include <string.h>

#include "lbt/hmap.h"
#include "lbt/occupancy.h"
#include "occupancy_int.h"

/* The bucket numbered b, created zeroed when new.  @return it, or NULL
 * when out of memory. */
lbt_occ_bucket *lbt_occi_bucket_get(lbt_occ *o, int64_t b)
{
	lbt_occ_bucket *p;
	int created = 0;

	if (o->last != NULL && o->last_b == b)
		return o->last;
	p = lbt_hmap_put(o->buckets, &b, sizeof(b), &created);
	if (p == NULL)
		return NULL;
	if (created)
		p->bucket = b;
	o->last = p;
	o->last_b = b;
	return p;
}

/*
 * Write one stream's maximum m for bucket b into the shared bucket: the
 * first stream sets it, later ones add to it (an upper bound, flagged).
 * The moment and tarpitted slots kept are those of the largest stream
 * maximum; of equal ones, the earliest moment, then the most tarpitted, so
 * that the order the streams are written in (the order of the files on the
 * command line, or of their first records) does not show.
 * A stream that held nothing there writes nothing.  @return 0 or -1.
 */
int lbt_occi_bucket_put(lbt_occ *o, int64_t b, const struct bmax *m)
{
	lbt_occ_bucket *p;
	int32_t *smax;

	if (m->max == 0 && m->nt == 0 && m->flags == 0)
		return 0;
	p = lbt_occi_bucket_get(o, b);
	if (p == NULL)
		return -1;
	smax = &((struct obucket *)(void *)p)->smax;     /* pub is its first member */
	if (p->nstreams > 0) {
		p->flags |= LBT_OCC_MERGED;
		if (m->max > *smax || (m->max == *smax && (m->at < p->max_at_us ||
		    (m->at == p->max_at_us && m->tp > p->max_tarpit)))) {
			p->max_at_us = m->at;
			p->max_tarpit = m->tp;
			*smax = m->max;
		}
		p->max += m->max;
		p->max_nt += m->nt;
	} else {
		p->max = *smax = m->max;
		p->max_tarpit = m->tp;
		p->max_at_us = m->at;
		p->max_nt = m->nt;
	}
	p->flags |= m->flags;
	p->nstreams++;
	return 0;
}
