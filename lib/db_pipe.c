/*
 * db_pipe.c - lbt-index on two cores: one thread reads and parses records
 * (lbt_input_next), the caller's thread writes them to SQLite.
 *
 * Parsing is about a third of the work of a row and the SQLite side the
 * rest (perf on 300k httplog lines: lbt_input_next 33 %, lbt_dbi_add 61 %),
 * so overlapping them saves about a third of the load time on this 2-core
 * machine.  Records are views into the input's buffers, valid until the
 * next call, so the reading thread copies each one into a batch: the
 * lbt_rec itself, and its strings (and the raw line, for --keep-raw) into
 * the batch's arena, with offsets in place of pointers until the batch is
 * handed over.  NBATCH batches circulate between the two threads under one
 * mutex; a batch changes hands once per BATCH_RECS records, so locking
 * costs nothing per record.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "db_int.h"

#define NBATCH 4
#define BATCH_RECS 4096

/* One copied record: the lbt_rec (string offsets into the arena) and its raw line. */
struct prec {
	lbt_rec rec;
	size_t raw_off, raw_len;
	int has_raw;
};

struct batch {
	struct prec *recs;
	size_t n;
	char *arena;
	size_t used, cap;
	int full;               /* written by the reader, not yet taken */
	int last;               /* the input ended (or failed) after these records */
	int failed;             /* ... with err */
	lbt_err err;
};

struct lbt_dbi_pipe {
	lbt_input *in;
	int keep_raw;
	void (*tick)(void *ctx);
	void *tick_ctx;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct batch b[NBATCH];
	int rd, wr;             /* next batch the writer takes / the reader fills */
	int stop;               /* the writer gave up: the reader ends */
	size_t str_off[LBT_F_COUNT];  /* offsets of the lbt_str members of lbt_rec */
	int nstr;
};

/* Fill p->str_off with the offsets of every string member of lbt_rec. */
static void find_strings(struct lbt_dbi_pipe *p)
{
	lbt_rec r;

	for (int f = 0; f < LBT_F_COUNT; f++) {
		lbt_str *s = lbt_rec_str(&r, (lbt_field)f);

		if (s != NULL)
			p->str_off[p->nstr++] = (size_t)((char *)s - (char *)&r);
	}
}

/* The i-th string member of rec. */
static lbt_str *str_at(const struct lbt_dbi_pipe *p, lbt_rec *rec, int i)
{
	return (lbt_str *)((char *)rec + p->str_off[i]);
}

/* Append p[0..n) to the batch arena.  @return its offset, or SIZE_MAX (out of memory). */
static size_t arena_put(struct batch *b, const char *p, size_t n)
{
	size_t off = b->used;

	if (b->used + n > b->cap) {
		size_t cap = b->cap ? b->cap : 65536;
		char *a;

		while (cap < b->used + n)
			cap *= 2;
		if ((a = realloc(b->arena, cap)) == NULL)
			return SIZE_MAX;
		b->arena = a;
		b->cap = cap;
	}
	if (n > 0)
		memcpy(b->arena + off, p, n);
	b->used += n;
	return off;
}

/* Copy rec (and its raw line) into batch b.  @return 0 or -1 (out of memory). */
static int copy_rec(struct lbt_dbi_pipe *p, struct batch *b, const lbt_rec *rec)
{
	struct prec *d = &b->recs[b->n];
	size_t len;

	d->rec = *rec;
	d->rec.file = NULL;
	for (int i = 0; i < p->nstr; i++) {
		lbt_str *s = str_at(p, &d->rec, i);
		size_t off;

		if ((off = arena_put(b, s->p, s->n)) == SIZE_MAX)
			return -1;
		s->p = (const char *)(uintptr_t)off;
	}
	d->has_raw = 0;
	if (p->keep_raw) {
		const char *line = lbt_input_line(p->in, &len);

		d->has_raw = line != NULL;
		if (line != NULL && (d->raw_off = arena_put(b, line, len)) == SIZE_MAX)
			return -1;
		d->raw_len = len;
	}
	b->n++;
	return 0;
}

/* Wait for batch p->wr to be free; NULL when the writer stopped. */
static struct batch *reader_claim(struct lbt_dbi_pipe *p)
{
	struct batch *b;

	pthread_mutex_lock(&p->mu);
	while (p->b[p->wr].full && !p->stop)
		pthread_cond_wait(&p->cv, &p->mu);
	b = p->stop ? NULL : &p->b[p->wr];
	pthread_mutex_unlock(&p->mu);
	if (b != NULL)
		b->n = b->used = 0;
	return b;
}

/* Hand batch p->wr to the writer. */
static void reader_publish(struct lbt_dbi_pipe *p)
{
	pthread_mutex_lock(&p->mu);
	p->b[p->wr].full = 1;
	p->wr = (p->wr + 1) % NBATCH;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
}

/* Fill batch b from the input until it is full or the input ends. */
static void reader_fill(struct lbt_dbi_pipe *p, struct batch *b)
{
	lbt_rec *rec;
	int r;

	while (b->n < BATCH_RECS) {
		if ((r = lbt_input_next(p->in, &rec, &b->err)) <= 0) {
			b->last = 1;
			b->failed = r < 0;
			return;
		}
		if (copy_rec(p, b, rec) < 0) {
			b->last = b->failed = 1;
			lbt_err_set(&b->err, "out of memory");
			return;
		}
	}
	if (p->tick != NULL)
		p->tick(p->tick_ctx);
}

/* The reading thread: fill and publish batches until the input ends. */
static void *reader_main(void *arg)
{
	struct lbt_dbi_pipe *p = arg;
	struct batch *b;

	while ((b = reader_claim(p)) != NULL) {
		b->last = b->failed = 0;
		reader_fill(p, b);
		reader_publish(p);
		if (b->last)
			break;
	}
	return NULL;
}

/* Start the reading thread on `in`; see db_int.h.  @return the pipe or NULL with err. */
lbt_dbi_pipe *lbt_dbi_pipe_start(lbt_input *in, int keep_raw, void (*tick)(void *),
    void *tick_ctx, lbt_err *err)
{
	lbt_dbi_pipe *p = calloc(1, sizeof *p);
	int ok = p != NULL;

	for (int i = 0; ok && i < NBATCH; i++)
		ok = (p->b[i].recs = malloc(BATCH_RECS * sizeof *p->b[i].recs)) != NULL;
	if (!ok) {
		lbt_dbi_pipe_stop(p);
		lbt_err_set(err, "out of memory");
		return NULL;
	}
	find_strings(p);
	p->in = in;
	p->keep_raw = keep_raw;
	p->tick = tick;
	p->tick_ctx = tick_ctx;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	if (pthread_create(&p->thread, NULL, reader_main, p) != 0) {
		pthread_mutex_destroy(&p->mu);
		pthread_cond_destroy(&p->cv);
		for (int i = 0; i < NBATCH; i++)
			free(p->b[i].recs);
		free(p);
		lbt_err_set(err, "cannot start the reading thread");
		return NULL;
	}
	return p;
}

/* Turn the arena offsets of every record of b into pointers. */
static void fix_pointers(const struct lbt_dbi_pipe *p, struct batch *b)
{
	for (size_t i = 0; i < b->n; i++) {
		lbt_rec *rec = &b->recs[i].rec;

		for (int k = 0; k < p->nstr; k++) {
			lbt_str *s = str_at(p, rec, k);

			s->p = b->arena ? b->arena + (uintptr_t)s->p : "";
		}
	}
}

/* Give the batch taken before (if any) back to the reader. */
static void release_taken(lbt_dbi_pipe *p, int *taken)
{
	if (!*taken)
		return;
	pthread_mutex_lock(&p->mu);
	p->b[p->rd].full = 0;
	p->rd = (p->rd + 1) % NBATCH;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	*taken = 0;
}

/*
 * Give back the batch taken before, wait for the next one and make its
 * strings pointers.  @return 1 a batch, 0 after the last one.
 */
int lbt_dbi_pipe_next(lbt_dbi_pipe *p, lbt_dbi_batch *out, lbt_err *err)
{
	struct batch *b;

	release_taken(p, &out->taken);
	if (out->ended)
		return 0;
	pthread_mutex_lock(&p->mu);
	while (!p->b[p->rd].full)
		pthread_cond_wait(&p->cv, &p->mu);
	pthread_mutex_unlock(&p->mu);
	b = &p->b[p->rd];
	out->taken = 1;
	fix_pointers(p, b);
	out->n = b->n;
	out->ended = b->last;
	out->failed = b->failed;
	if (b->failed)
		*err = b->err;
	return 1;
}

/* The i-th record of the batch taken; *line is its raw line or NULL. */
const lbt_rec *lbt_dbi_pipe_rec(lbt_dbi_pipe *p, size_t i, const char **line, size_t *len)
{
	struct batch *b = &p->b[p->rd];
	struct prec *r = &b->recs[i];

	*line = r->has_raw ? b->arena + r->raw_off : NULL;
	*len = r->has_raw ? r->raw_len : 0;
	return &r->rec;
}

/* Stop the reading thread (it ends at its next batch), join it, free p; NULL accepted. */
void lbt_dbi_pipe_stop(lbt_dbi_pipe *p)
{
	if (p == NULL)
		return;
	if (p->in != NULL) {
		pthread_mutex_lock(&p->mu);
		p->stop = 1;
		pthread_cond_broadcast(&p->cv);
		pthread_mutex_unlock(&p->mu);
		pthread_join(p->thread, NULL);
		pthread_mutex_destroy(&p->mu);
		pthread_cond_destroy(&p->cv);
	}
	for (int i = 0; i < NBATCH; i++) {
		free(p->b[i].recs);
		free(p->b[i].arena);
	}
	free(p);
}
