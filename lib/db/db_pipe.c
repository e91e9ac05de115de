/*
 * db_pipe.c - lbt-index on two cores: one thread reads and parses records
 * (lbt_input_next) and copies them into batches, the caller's thread turns
 * them into rows of ids (lbt_dbi_build: the dictionary, address and shape
 * look-ups) and stores them.
 *
 * With requests stored in blocks (db_run.c), SQLite costs the writer only
 * a few hundred instructions a request: parsing every field of a line
 * (6800 instructions, callgrind, httplog with a syslog header) is the
 * larger half, so the reading thread parses and copies (its strings into
 * the batch's arena, 300 instructions) and the look-ups (2400) run on the
 * writer's: the two threads then take about as long, and the caches of
 * ids have one thread only.  Records are views into the input's buffers,
 * valid until the next call: each is copied whole (and the raw line for
 * --keep-raw).  NBATCH batches circulate between the two threads under
 * one mutex; a batch changes hands once per BATCH_RECS records, so locking
 * costs nothing per record.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "db_int.h"
#include "lbt/vec.h"

#define NBATCH 4
#define BATCH_RECS 4096

/* The string fields of a record, copied into the arena. */
static const lbt_field str_fields[] = {
	LBT_F_LB, LBT_F_FRONTEND, LBT_F_BACKEND, LBT_F_SERVER, LBT_F_METHOD, LBT_F_PATH,
	LBT_F_QUERY, LBT_F_HOST, LBT_F_VERSION, LBT_F_TERM, LBT_F_UA, LBT_F_KEY, LBT_F_MSG,
};
#define NSTR (sizeof str_fields / sizeof str_fields[0])

/*
 * One record of a batch: its copy (strings at off[] in the arena, made
 * pointers by the writer), then the row the writer built from it.
 */
struct item {
	lbt_rec rec;
	size_t off[NSTR];
	union {
		struct lbt_dbi_row row;
		struct lbt_dbi_event ev;
	} u;
	int event;
	int has_raw;
	size_t raw_off, raw_len;
};

struct batch {
	struct item *items;
	size_t n;
	char *arena;
	size_t used, cap;
	int full;               /* written by the reader, not yet taken */
	int last;               /* the input ended (or failed) after these records */
	int failed;             /* ... with err */
	lbt_err err;
	struct lbt_dbi_content content;   /* the input's, up to the batch's end */
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
	size_t str_off[NSTR];   /* offset in lbt_rec of each of str_fields */
	int rd, wr;             /* next batch the writer takes / the reader fills */
	int stop;               /* the writer gave up: the reader ends */
	struct lbt_dbi_content content;   /* of the requests read so far (reader's) */
	int started;            /* the thread runs (join it) */
};

/* The string member k of str_fields in rec (offsets in p->str_off). */
static lbt_str *rec_str(const struct lbt_dbi_pipe *p, lbt_rec *rec, size_t k)
{
	return (lbt_str *)((char *)rec + p->str_off[k]);
}

/*
 * Copy rec into batch b: the struct, its strings and (--keep-raw) its
 * line into the arena, grown once for all of them.  @return 0 or -1 (out
 * of memory).
 */
static int add_rec(struct lbt_dbi_pipe *p, struct batch *b, const lbt_rec *rec)
{
	struct item *d = &b->items[b->n];
	const char *line = NULL;
	size_t len = 0, need = 0;

	d->rec = *rec;
	d->event = rec->kind == LBT_KIND_EVENT;
	if (p->keep_raw)
		line = lbt_input_line(p->in, &len);
	for (size_t k = 0; k < NSTR; k++)
		need += rec_str(p, &d->rec, k)->n;
	if (LBT_GROW(b->arena, b->cap, b->used + need + len, 65536) < 0)
		return -1;
	for (size_t k = 0; k < NSTR; k++) {
		const lbt_str *s = rec_str(p, &d->rec, k);

		d->off[k] = SIZE_MAX;
		if (!(rec->have & LBT_BIT(str_fields[k])) || s->n == 0)
			continue;
		memcpy(b->arena + b->used, s->p, s->n);
		d->off[k] = b->used;
		b->used += s->n;
	}
	d->has_raw = line != NULL;
	d->raw_off = b->used;
	d->raw_len = len;
	if (line != NULL && len > 0)
		memcpy(b->arena + b->used, line, len);
	b->used += d->has_raw ? len : 0;
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
		if (add_rec(p, b, rec) < 0) {
			b->last = b->failed = 1;
			lbt_err_set(&b->err, "out of memory");
			return;
		}
		if (rec->kind == LBT_KIND_REQUEST)
			lbt_dbi_content_add(&p->content, rec);
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
		b->content = p->content;
		reader_publish(p);
		if (b->last)
			break;
	}
	return NULL;
}

/* Two FNV-1a 64-bit lanes over s[0..n) (a fingerprint, not a defence). */
static void fnv2(uint64_t h[2], const void *s, size_t n)
{
	const unsigned char *p = s;

	for (size_t i = 0; i < n; i++) {
		h[0] = (h[0] ^ p[i]) * UINT64_C(0x100000001b3);
		h[1] = (h[1] ^ p[i]) * UINT64_C(0x100000001b3) + 0x9e;
	}
}

/* An empty fingerprint; see db_int.h. */
void lbt_dbi_content_init(struct lbt_dbi_content *c)
{
	c->h[0] = UINT64_C(0xcbf29ce484222325);
	c->h[1] = UINT64_C(0x84222325cbf29ce4);
	c->n = 0;
}

/* Fold one request's identity in, up to LBT_DBI_CONTENT_RECORDS of them. */
void lbt_dbi_content_add(struct lbt_dbi_content *c, const lbt_rec *r)
{
	int32_t nums[2] = { r->port, r->status };

	if (c->n >= LBT_DBI_CONTENT_RECORDS)
		return;
	fnv2(c->h, &r->time_us, sizeof r->time_us);
	fnv2(c->h, &r->client, sizeof r->client);
	fnv2(c->h, nums, sizeof nums);
	fnv2(c->h, r->method.p ? r->method.p : "", r->method.n);
	fnv2(c->h, "\n", 1);
	fnv2(c->h, r->path.p ? r->path.p : "", r->path.n);
	fnv2(c->h, "\n", 1);
	c->n++;
}

/* The fingerprint's bytes: the lanes with the count folded in. */
void lbt_dbi_content_end(const struct lbt_dbi_content *c, unsigned char out[LBT_DBI_CONTENT_BYTES])
{
	uint64_t h[2] = { c->h[0], c->h[1] };

	fnv2(h, &c->n, sizeof c->n);
	memcpy(out, h, LBT_DBI_CONTENT_BYTES);
}

/* Free the batches of p and p; NULL accepted. */
static void pipe_free(lbt_dbi_pipe *p)
{
	if (p == NULL)
		return;
	for (int i = 0; i < NBATCH; i++) {
		free(p->b[i].items);
		free(p->b[i].arena);
	}
	free(p);
}

/*
 * Start the reading thread on `in` (rows of file_id, built with db's
 * caches by lbt_dbi_pipe_build); see db_int.h.  @return the pipe or NULL
 * with err.
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
	for (size_t k = 0; k < NSTR; k++) {
		lbt_rec r;

		p->str_off[k] = (size_t)((char *)lbt_rec_str(&r, str_fields[k]) - (char *)&r);
	}
	p->tick = tick;
	p->tick_ctx = tick_ctx;
	lbt_dbi_content_init(&p->content);
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
	out->content = b->content;
	if (b->failed)
		*err = b->err;
	return 1;
}

/* Make the strings of item d of batch b pointers into its arena. */
static void item_strings(const struct lbt_dbi_pipe *p, const struct batch *b, struct item *d)
{
	for (size_t k = 0; k < NSTR; k++) {
		lbt_str *s = rec_str(p, &d->rec, k);

		if (d->off[k] == SIZE_MAX)
			*s = lbt_str_make("", 0);       /* absent (see have) or empty */
		else
			*s = lbt_str_make(b->arena + d->off[k], s->n);
	}
}

/* Build the rows of the batch taken; see db_int.h.  @return 0 or -1 (out of memory). */
int lbt_dbi_pipe_build(lbt_dbi_pipe *p, struct lbt_dbi_news *news)
{
	struct batch *b = &p->b[p->rd];

	lbt_dbi_news_clear(news);
	for (size_t i = 0; i < b->n; i++) {
		struct item *d = &b->items[i];

		item_strings(p, b, d);
		if ((d->event ? lbt_dbi_build_event(p->db, &d->rec, &d->u.ev, news) :
		    lbt_dbi_build(p->db, p->file_id, &d->rec, &d->u.row, news)) < 0)
			return -1;
	}
	return 0;
}

/* Item i of the batch taken, once built; see db_int.h. */
void lbt_dbi_pipe_item(lbt_dbi_pipe *p, size_t i, struct lbt_dbi_item *it)
{
	struct batch *b = &p->b[p->rd];
	struct item *d = &b->items[i];

	it->row = d->event ? NULL : &d->u.row;
	it->ev = d->event ? &d->u.ev : NULL;
	it->line = d->rec.line;
	it->msg = d->event && (d->rec.have & LBT_BIT(LBT_F_MSG)) ? d->rec.msg :
	    lbt_str_make(NULL, 0);
	it->raw = !d->has_raw ? NULL : d->raw_len ? b->arena + d->raw_off : "";
	it->raw_len = d->raw_len;
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
