/*
 * db_pipe.c - lbt-index on two cores: one thread reads and parses records
 * (lbt_input_next) and turns them into rows of ids (lbt_dbi_build: the
 * dictionary, address and shape look-ups), the caller's thread inserts the
 * rows into SQLite.
 *
 * Parsing and the look-ups take about as long as SQLite's inserts, so
 * overlapping them halves the load time on this 2-core machine.  Records
 * are views into the input's buffers, valid until the next call, but a
 * built row holds only integers; what else a batch needs is copied into
 * its arena (an event's message, the raw line for --keep-raw) and the new
 * dictionary entries are listed with their texts (struct lbt_dbi_news).
 * NBATCH batches circulate between the two threads under one mutex; a
 * batch changes hands once per BATCH_RECS records, so locking costs
 * nothing per record.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "db_int.h"
#include "lbt/vec.h"

#define NBATCH 4
#define BATCH_RECS 4096

/* One record of a batch: its row, and where its texts are in the arena. */
struct item {
	union {
		struct lbt_dbi_row row;
		struct lbt_dbi_event ev;
	} u;
	uint64_t line;
	int event;
	int has_msg, has_raw;
	size_t msg_off, msg_len, raw_off, raw_len;
};

struct batch {
	struct item *items;
	size_t n;
	char *arena;
	size_t used, cap;
	struct lbt_dbi_news news;
	int full;               /* written by the reader, not yet taken */
	int last;               /* the input ended (or failed) after these records */
	int failed;             /* ... with err */
	lbt_err err;
};

struct lbt_dbi_pipe {
	lbt_input *in;
	lbt_db *db;
	int64_t file_id;
	int keep_raw;
	void (*tick)(void *ctx);
	void *tick_ctx;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct batch b[NBATCH];
	int rd, wr;             /* next batch the writer takes / the reader fills */
	int stop;               /* the writer gave up: the reader ends */
	int started;            /* the thread runs (join it) */
};

/* Append p[0..n) to the batch arena.  @return its offset, or SIZE_MAX (out of memory). */
static size_t arena_put(struct batch *b, const char *p, size_t n)
{
	size_t off = b->used;

	if (LBT_GROW(b->arena, b->cap, b->used + n, 65536) < 0)
		return SIZE_MAX;
	if (n > 0)
		memcpy(b->arena + off, p, n);
	b->used += n;
	return off;
}

/*
 * Build rec's row into batch b, copying its message (events) and raw line
 * (--keep-raw).  @return 0 or -1 (out of memory).
 */
static int add_rec(struct lbt_dbi_pipe *p, struct batch *b, const lbt_rec *rec)
{
	struct item *d = &b->items[b->n];
	const char *line;
	size_t len;

	d->event = rec->kind == LBT_KIND_EVENT;
	if ((d->event ? lbt_dbi_build_event(p->db, rec, &d->u.ev, &b->news) :
	    lbt_dbi_build(p->db, p->file_id, rec, &d->u.row, &b->news)) < 0)
		return -1;
	d->line = rec->line;
	d->has_msg = d->event && (rec->have & LBT_BIT(LBT_F_MSG));
	if (d->has_msg && (d->msg_off = arena_put(b, rec->msg.p, rec->msg.n)) == SIZE_MAX)
		return -1;
	d->msg_len = rec->msg.n;
	line = p->keep_raw ? lbt_input_line(p->in, &len) : NULL;
	d->has_raw = line != NULL;
	if (line != NULL && (d->raw_off = arena_put(b, line, len)) == SIZE_MAX)
		return -1;
	d->raw_len = d->has_raw ? len : 0;
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
	if (b != NULL) {
		b->n = b->used = 0;
		lbt_dbi_news_clear(&b->news);
	}
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
		if (add_rec(p, b, rec) < 0) {
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

/* Free the batches of p and p; NULL accepted. */
static void pipe_free(lbt_dbi_pipe *p)
{
	if (p == NULL)
		return;
	for (int i = 0; i < NBATCH; i++) {
		free(p->b[i].items);
		free(p->b[i].arena);
		lbt_dbi_news_free(&p->b[i].news);
	}
	free(p);
}

/*
 * Start the reading thread on `in`, building rows of file_id with db's
 * caches; see db_int.h.  @return the pipe or NULL with err.
 */
lbt_dbi_pipe *lbt_dbi_pipe_start(lbt_input *in, lbt_db *db, int64_t file_id,
    void (*tick)(void *), void *tick_ctx, lbt_err *err)
{
	lbt_dbi_pipe *p = calloc(1, sizeof *p);
	int ok = p != NULL;

	for (int i = 0; ok && i < NBATCH; i++)
		ok = (p->b[i].items = malloc(BATCH_RECS * sizeof *p->b[i].items)) != NULL;
	if (!ok) {
		pipe_free(p);
		lbt_err_set(err, "out of memory");
		return NULL;
	}
	p->in = in;
	p->db = db;
	p->file_id = file_id;
	p->keep_raw = db->opts.keep_raw;
	p->tick = tick;
	p->tick_ctx = tick_ctx;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	if (pthread_create(&p->thread, NULL, reader_main, p) != 0) {
		pthread_mutex_destroy(&p->mu);
		pthread_cond_destroy(&p->cv);
		pipe_free(p);
		lbt_err_set(err, "cannot start the reading thread");
		return NULL;
	}
	p->started = 1;
	return p;
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
	out->n = b->n;
	out->ended = b->last;
	out->failed = b->failed;
	if (b->failed)
		*err = b->err;
	return 1;
}

/* Item i of the batch taken; see db_int.h. */
void lbt_dbi_pipe_item(lbt_dbi_pipe *p, size_t i, struct lbt_dbi_item *it)
{
	struct batch *b = &p->b[p->rd];
	struct item *d = &b->items[i];

	it->row = d->event ? NULL : &d->u.row;
	it->ev = d->event ? &d->u.ev : NULL;
	it->line = d->line;
	it->msg = d->has_msg ? lbt_str_make(d->msg_len ? b->arena + d->msg_off : "",
	    d->msg_len) : lbt_str_make(NULL, 0);
	it->raw = !d->has_raw ? NULL : d->raw_len ? b->arena + d->raw_off : "";
	it->raw_len = d->raw_len;
}

/* The new entries of the batch taken. */
const struct lbt_dbi_news *lbt_dbi_pipe_news(lbt_dbi_pipe *p)
{
	return &p->b[p->rd].news;
}

/* Stop the reading thread (it ends at its next batch), join it, free p; NULL accepted. */
void lbt_dbi_pipe_stop(lbt_dbi_pipe *p)
{
	if (p == NULL)
		return;
	if (p->started) {
		pthread_mutex_lock(&p->mu);
		p->stop = 1;
		pthread_cond_broadcast(&p->cv);
		pthread_mutex_unlock(&p->mu);
		pthread_join(p->thread, NULL);
		pthread_mutex_destroy(&p->mu);
		pthread_cond_destroy(&p->cv);
	}
	pipe_free(p);
}
