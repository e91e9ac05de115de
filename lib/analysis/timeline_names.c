/*
 * timeline_names.c - the strings a timeline keeps, interned once for its
 * life (subjects, LBs, messages, file names: see struct tl_name), and for
 * each file its request end times by blocks of TL_BLOCK lines, which
 * timeline_lines.c reads to place HAProxy's lines that have no time.
 *
 * Direction: every timeline*.c file that keeps a string calls these;
 * they call no other timeline*.c file.
 */
#include <stdlib.h>
#include <string.h>

#include "timeline_int.h"

/*
 * The interned copy of s[0..n) (stable for the life of tl); a file name
 * also gets its blocks of end times.  @return it, or NULL when out of memory.
 */
const char *lbt_tli_intern(lbt_timeline *tl, const char *s, size_t n, int file)
{
	struct tl_name *v;
	int created = 0;

	if ((v = lbt_hmap_put(tl->names, s, n, &created)) == NULL)
		return NULL;
	if (created) {
		lbt_hmap_entry e;

		lbt_hmap_at(tl->names, lbt_hmap_count(tl->names) - 1, &e);
		v->s = e.key;
	}
	if (file && v->f == NULL && (v->f = calloc(1, sizeof *v->f)) == NULL)
		return NULL;
	return v->s;
}

/* tl_intern_fn: the interned copy of a file name of another accumulator. */
const char *lbt_tli_intern_file(void *ctx, const char *file)
{
	return lbt_tli_intern(ctx, file, strlen(file), 1);
}

/* ---- per file: end times by blocks of lines ------------------------------ */

/* @return when r's line was written: its time plus Tt (accept clock) or Ta. */
int64_t lbt_tli_end_of(const lbt_rec *r)
{
	int64_t ms = 0;

	if (r->clock == LBT_CLOCK_END || r->clock == LBT_CLOCK_SYSLOG)
		return r->time_us;
	if (r->clock == LBT_CLOCK_ACCEPT && (r->have & LBT_BIT(LBT_F_TT)) && r->tt >= 0)
		ms = r->tt;
	else if ((r->have & LBT_BIT(LBT_F_TA)) && r->ta >= 0)
		ms = r->ta;
	return r->time_us + ms * 1000;
}

/* Make room for block k in f (new blocks NONE).  @return 0 or -1. */
static int file_grow(struct tl_file *f, size_t k)
{
	if (k < f->nblk)
		return 0;
	if (LBT_GROW(f->b, f->cap, k + 1, 64) < 0)
		return -1;
	for (size_t i = f->nblk; i <= k; i++)
		f->b[i].maxend = f->b[i].minend = LBT_TL_NONE;
	f->nblk = k + 1;
	return 0;
}

/* Keep the larger (hi) or smaller end time in *dst. */
static void keep_end(int64_t *dst, int64_t v, int hi)
{
	if (v != LBT_TL_NONE && (*dst == LBT_TL_NONE || (hi ? v > *dst : v < *dst)))
		*dst = v;
}

/* Note r's end time in its line's block of f.  @return 0 or -1. */
int lbt_tli_file_note(struct tl_file *f, const lbt_rec *r)
{
	size_t k = (size_t)(r->line / TL_BLOCK);
	int64_t e = lbt_tli_end_of(r);

	if (!(r->have & LBT_BIT(LBT_F_LINE)))
		return 0;
	if (file_grow(f, k) < 0)
		return -1;
	keep_end(&f->b[k].maxend, e, 1);
	keep_end(&f->b[k].minend, e, 0);
	f->last_line = r->line > f->last_line ? r->line : f->last_line;
	return 0;
}

/* Join src's blocks into dst's.  @return 0 or -1. */
int lbt_tli_file_merge(struct tl_file *dst, const struct tl_file *src)
{
	if (src->nblk > 0 && file_grow(dst, src->nblk - 1) < 0)
		return -1;
	for (size_t k = 0; k < src->nblk; k++) {
		keep_end(&dst->b[k].maxend, src->b[k].maxend, 1);
		keep_end(&dst->b[k].minend, src->b[k].minend, 0);
	}
	dst->last_line = src->last_line > dst->last_line ? src->last_line : dst->last_line;
	return 0;
}

/* Free f's blocks and f. */
void lbt_tli_file_free(struct tl_file *f)
{
	if (f == NULL)
		return;
	free(f->b);
	free(f);
}
