/*
 * timeline_cells.c - a sparse series whose buckets carry a count and the
 * evidence of what they counted (the smallest record by time, file,
 * line), and the ladder of bucket widths the automatic step climbs.
 *
 * Buckets are numbered floor(time / step).  Rebucketing by an integer
 * factor maps bucket b to floor(b / factor), which is floor(time / (step x
 * factor)) because the ladder's widths divide one another: a series
 * rebucketed equals the series counted at the wider step from the start,
 * so when the step changed does not show in the result.
 */
#include <stdlib.h>
#include <string.h>

#include "timeline_int.h"

/* The widths of the automatic step, each a multiple of the one before. */
static const int64_t ladder_s[] = {
	1, 5, 10, 30, 60, 300, 600, 1800, 3600, 10800, 21600, 43200, 86400
};

/* floor(a / b) for b > 0, also for negative a. */
int64_t lbt_tli_floor_div(int64_t a, int64_t b)
{
	int64_t q = a / b;

	return (a % b != 0 && (a < 0)) ? q - 1 : q;
}

/*
 * The width after step_us on the ladder (twice the last one beyond it).
 * @return it, in µs.
 */
int64_t lbt_tli_step_next(int64_t step_us)
{
	for (size_t i = 0; i < sizeof ladder_s / sizeof ladder_s[0]; i++)
		if (ladder_s[i] * 1000000 > step_us)
			return ladder_s[i] * 1000000;
	return step_us * 2;
}

/* The bucket number of a map entry (keys are not aligned in the map's arena). */
static int64_t key_bucket(const lbt_hmap_entry *e)
{
	int64_t b;

	memcpy(&b, e->key, sizeof b);
	return b;
}

/* The cell of bucket b, created when new.  @return it, or NULL (no memory). */
static struct tl_cell *cell_of(tl_cells *c, int64_t b)
{
	struct tl_cell *p;
	int created = 0;

	if (c->last != NULL && c->last_b == b)
		return c->last;
	if (c->m == NULL && (c->m = lbt_hmap_new(sizeof(struct tl_cell))) == NULL)
		return NULL;
	if ((p = lbt_hmap_put(c->m, &b, sizeof b, &created)) == NULL)
		return NULL;
	c->last_b = b;
	return c->last = p;
}

/*
 * Count record r (its interned file name `file`) in bucket b.
 * @return 0, or -1 when out of memory.
 */
int lbt_tli_cells_add(tl_cells *c, int64_t b, const lbt_rec *r, const char *file)
{
	struct tl_cell *p = cell_of(c, b);

	if (p == NULL)
		return -1;
	p->n++;
	if (lbt_evidence_better(&p->ev, r))
		lbt_evidence_set(&p->ev, r, file);
	return 0;
}

/* Add cell `s` (its file renamed by fn) into bucket b of c.  @return 0 or -1. */
static int cell_join(tl_cells *c, int64_t b, const struct tl_cell *s, tl_intern_fn fn,
    void *ctx)
{
	struct tl_cell *p = cell_of(c, b);
	lbt_evidence e = s->ev;

	if (p == NULL)
		return -1;
	p->n += s->n;
	if (e.set && fn != NULL && e.file != NULL && (e.file = fn(ctx, e.file)) == NULL)
		return -1;
	if (e.set && lbt_evidence_cmp(&e, &p->ev) < 0)
		p->ev = e;
	return 0;
}

/*
 * Add every cell of src to dst: counts summed, the smaller evidence kept,
 * src's file names renamed through fn (NULL: kept as they are).
 * @return 0, or -1 when out of memory.
 */
int lbt_tli_cells_merge(tl_cells *dst, const tl_cells *src, tl_intern_fn fn, void *ctx)
{
	size_t n = src->m ? lbt_hmap_count(src->m) : 0;

	for (size_t i = 0; i < n; i++) {
		lbt_hmap_entry e;

		lbt_hmap_at(src->m, i, &e);
		if (cell_join(dst, key_bucket(&e), e.val, fn, ctx) < 0)
			return -1;
	}
	return 0;
}

/*
 * Make each bucket b bucket floor(b / factor) (factor >= 1).
 * @return 0, or -1 when out of memory (c unchanged).
 */
int lbt_tli_cells_rebucket(tl_cells *c, int64_t factor)
{
	tl_cells w = { NULL, 0, NULL };
	size_t n = c->m ? lbt_hmap_count(c->m) : 0;

	if (factor <= 1 || n == 0)
		return 0;
	for (size_t i = 0; i < n; i++) {
		lbt_hmap_entry e;

		lbt_hmap_at(c->m, i, &e);
		if (cell_join(&w, lbt_tli_floor_div(key_bucket(&e), factor), e.val,
		    NULL, NULL) < 0) {
			lbt_tli_cells_free(&w);
			return -1;
		}
	}
	lbt_tli_cells_free(c);
	*c = w;
	return 0;
}

/* v[i] = the count of bucket first + i, for i in [0, n); the rest 0. */
void lbt_tli_cells_dense(const tl_cells *c, int64_t first, size_t n, int64_t *v)
{
	size_t m = c->m ? lbt_hmap_count(c->m) : 0;

	for (size_t i = 0; i < n; i++)
		v[i] = 0;
	for (size_t i = 0; i < m; i++) {
		lbt_hmap_entry e;
		int64_t b;

		lbt_hmap_at(c->m, i, &e);
		b = key_bucket(&e) - first;
		if (b >= 0 && (uint64_t)b < n)
			v[b] = ((const struct tl_cell *)e.val)->n;
	}
}

/*
 * The smallest evidence of buckets [from, to) into *ev: that of the first
 * bucket with a count (bucket order is time order).
 * @return 1 when there is one, 0 when those buckets are empty.
 */
int lbt_tli_cells_first(const tl_cells *c, int64_t from, int64_t to, lbt_evidence *ev)
{
	if (c->m == NULL)
		return 0;
	for (int64_t b = from; b < to; b++) {
		const struct tl_cell *p = lbt_hmap_get(c->m, &b, sizeof b);

		if (p != NULL && p->n > 0 && p->ev.set) {
			*ev = p->ev;
			return 1;
		}
	}
	return 0;
}

/* Free the cells; c becomes empty. */
void lbt_tli_cells_free(tl_cells *c)
{
	lbt_hmap_free(c->m);
	c->m = NULL;
	c->last = NULL;
}
