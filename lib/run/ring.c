/*
 * ring.c - the records of a sliding window in chunks of bounded total
 * size (see ring.h).  A record is its lbt_rec followed by its strings,
 * copied into the chunk: the chunk never moves, so the copy's views point
 * into it and feeding needs no fix-up.
 */
#include <assert.h>
#include <stdalign.h>
#include <stdlib.h>
#include <string.h>

#include "lbt/ring.h"

#define CHUNK (1u << 20)

struct chunk {
	struct chunk *next;
	size_t used, cap;
	uint64_t n;
	int64_t max_us;            /* newest record of the chunk */
	alignas(max_align_t) char data[];
};

struct lbt_ring {
	int64_t window_us;
	size_t max_bytes, bytes;
	struct chunk *head, *tail;
	uint64_t n;                /* records held (some may be past the window) */
	int64_t last_us;           /* newest time seen */
	int64_t cut_us;            /* newest time dropped for the budget */
	uint64_t dropped;
};

lbt_ring *lbt_ring_new(int64_t window_us, size_t max_bytes)
{
	lbt_ring *r = calloc(1, sizeof *r);

	assert(window_us > 0);
	if (r == NULL)
		return NULL;
	r->window_us = window_us;
	r->max_bytes = max_bytes < 2 * CHUNK ? 2 * CHUNK : max_bytes;
	r->last_us = INT64_MIN;
	r->cut_us = INT64_MIN;
	return r;
}

/* The string members of a record, for its copy. */
static lbt_str *str_at(lbt_rec *c, int i)
{
	lbt_str *v[] = { &c->lb, &c->frontend, &c->backend, &c->server, &c->method, &c->path,
		&c->query, &c->host, &c->version, &c->term, &c->ua, &c->key, &c->msg,
		&c->event, &c->level, &c->request };

	return i < (int)(sizeof v / sizeof v[0]) ? v[i] : NULL;
}

/* Bytes a record takes in a chunk, aligned for the next one. */
static size_t rec_size(const lbt_rec *rec)
{
	size_t n = sizeof *rec;
	lbt_str *s;

	for (int i = 0; (s = str_at((lbt_rec *)rec, i)) != NULL; i++)
		n += s->p != NULL ? s->n : 0;
	return (n + alignof(max_align_t) - 1) & ~(alignof(max_align_t) - 1);
}

/* Free the oldest chunk. */
static void drop_head(lbt_ring *r)
{
	struct chunk *c = r->head;

	r->head = c->next;
	if (r->head == NULL)
		r->tail = NULL;
	r->bytes -= sizeof *c + c->cap;
	r->n -= c->n;
	free(c);
}

/* The newest time seen minus the window (no record yet: the earliest). */
static int64_t window_start(const lbt_ring *r)
{
	return r->last_us < INT64_MIN + r->window_us ? INT64_MIN : r->last_us - r->window_us;
}

/* Free the chunks wholly before the window, then the oldest while over
 * the budget (their records still in it are counted as dropped). */
static void evict(lbt_ring *r)
{
	int64_t from = window_start(r);

	while (r->head != NULL && r->head != r->tail && r->head->max_us < from)
		drop_head(r);
	while (r->head != NULL && r->head != r->tail && r->bytes > r->max_bytes) {
		r->dropped += r->head->n;
		if (r->head->max_us > r->cut_us)
			r->cut_us = r->head->max_us;
		drop_head(r);
	}
}

/* A chunk with room for need bytes at the tail.  @return it, or NULL */
static struct chunk *room(lbt_ring *r, size_t need)
{
	struct chunk *c = r->tail;
	size_t cap = need > CHUNK ? need : CHUNK;

	if (c != NULL && c->cap - c->used >= need)
		return c;
	if ((c = malloc(sizeof *c + cap)) == NULL)
		return NULL;
	c->next = NULL;
	c->used = 0;
	c->cap = cap;
	c->n = 0;
	c->max_us = INT64_MIN;
	if (r->tail != NULL)
		r->tail->next = c;
	else
		r->head = c;
	r->tail = c;
	r->bytes += sizeof *c + cap;
	evict(r);
	return c;
}

int lbt_ring_add(lbt_ring *r, const lbt_rec *rec)
{
	size_t need = rec_size(rec);
	struct chunk *c;
	lbt_rec *copy;
	char *p;
	lbt_str *s;

	if (!(rec->have & LBT_BIT(LBT_F_TIME)))
		return 0;
	if ((c = room(r, need)) == NULL)
		return -1;
	copy = (lbt_rec *)(void *)(c->data + c->used);
	*copy = *rec;
	p = (char *)(copy + 1);
	for (int i = 0; (s = str_at(copy, i)) != NULL; i++)
		if (s->p != NULL) {
			memcpy(p, s->p, s->n);
			s->p = p;
			p += s->n;
		}
	c->used += need;
	c->n++;
	r->n++;
	if (rec->time_us > c->max_us)
		c->max_us = rec->time_us;
	if (rec->time_us > r->last_us)
		r->last_us = rec->time_us;
	return 1;
}

/* The oldest time in the window: the window asked, or later when the
 * budget cut it. */
static int64_t window_from(const lbt_ring *r)
{
	int64_t from = window_start(r);

	return r->cut_us >= from ? r->cut_us + 1 : from;
}

int lbt_ring_each(const lbt_ring *r, int (*fn)(void *ctx, const lbt_rec *rec), void *ctx)
{
	int64_t from = window_from(r);

	for (const struct chunk *c = r->head; c != NULL; c = c->next)
		for (size_t at = 0; at < c->used; ) {
			const lbt_rec *rec = (const lbt_rec *)(const void *)(c->data + at);
			int rc;

			at += rec_size(rec);
			if (rec->time_us >= from && (rc = fn(ctx, rec)) != 0)
				return rc;
		}
	return 0;
}

struct feed {
	lbt_analysis *v;
	size_t n;
	uint64_t fed;
};

static int feed_one(void *ctx, const lbt_rec *rec)
{
	struct feed *f = ctx;

	for (size_t i = 0; i < f->n; i++)
		f->v[i].ops->add(f->v[i].acc, rec);   /* a failure is sticky: finish says it */
	f->fed++;
	return 0;
}

uint64_t lbt_ring_feed(const lbt_ring *r, lbt_analysis *v, size_t n)
{
	struct feed f = { v, n, 0 };

	lbt_ring_each(r, feed_one, &f);
	return f.fed;
}

static int count_one(void *ctx, const lbt_rec *rec)
{
	lbt_ring_stats *st = ctx;

	st->records++;
	if (rec->time_us < st->first_us)
		st->first_us = rec->time_us;
	return 0;
}

lbt_ring_stats lbt_ring_stats_get(const lbt_ring *r)
{
	lbt_ring_stats st = { 0, r->bytes, INT64_MAX, r->last_us, r->dropped, 0 };

	lbt_ring_each(r, count_one, &st);
	if (st.records == 0)
		st.first_us = st.last_us = 0;
	else
		st.held_us = r->last_us - st.first_us;
	return st;
}

void lbt_ring_free(lbt_ring *r)
{
	if (r == NULL)
		return;
	while (r->head != NULL)
		drop_head(r);
	free(r);
}
