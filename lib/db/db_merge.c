/*
 * db_merge.c - the requests of an index in (time, file, line) order,
 * merged from its runs (schema version 5; db_schema.c).
 *
 * A run's requests are sorted by (time, line) and belong to one file, so
 * reading its blocks in id order, each decoded into memory, gives one
 * sorted stream; the merge keeps a heap of the streams that are open,
 * keyed by their current request (time, NULL first, then file and run),
 * and opens a run only when the heap reaches its first possible request
 * (its earliest time, its file), so that only the runs that overlap in
 * time are open at once: one or two for the log of one LB (a run overlaps
 * the next by the longest request), one per LB for several.  Each open
 * run is a statement of its own, prepared once and reused from a pool,
 * and a decoded block.  Within a file, requests with the same time are in
 * line order inside a run, and a run with a smaller first block holds
 * smaller lines: the run orders ties, no line is needed.
 *
 * The runs the selection rules out are never opened: those outside the
 * time bounds, and those whose lists (the distinct shapes, keys and
 * networks of their requests) hold none of the ids the filter can match.
 * A block outside the time bounds is not read either.
 */
#include <stdlib.h>
#include <string.h>

#include "db_int.h"
#include "lbt/vec.h"

/* An open run. */
typedef struct lbt_dbi_pos stream;

struct lbt_dbi_merge {
	const char *path;
	sqlite3 *h;
	const struct lbt_dbi_sel *sel;
	int want[LBT_DBI_NCOL];        /* columns to decode */
	struct lbt_dbi_runrow *runs;   /* the runs to read, by first possible row */
	size_t nruns, next;
	stream *heap;
	size_t nheap;
	sqlite3_stmt **pool;           /* prepared, not in use */
	size_t npool, pool_cap;
	struct lbt_dbi_dblock **free_blocks;   /* decoded-block buffers not in use */
	size_t nfree, free_cap;
	int top_used;                  /* the heap's top row was returned */
};

/* Order of two keys (has_time, time, file, run), NULL time first: <0, 0, >0. */
static int key_cmp(int ah, int64_t at, int64_t af, int64_t al, int bh, int64_t bt,
    int64_t bf, int64_t bl)
{
	if (ah != bh)
		return ah - bh;
	if (ah && at != bt)
		return at < bt ? -1 : 1;
	if (af != bf)
		return af < bf ? -1 : 1;
	return (al > bl) - (al < bl);
}

/* True when stream a's row comes before b's. */
static int before(const stream *a, const stream *b)
{
	return key_cmp(a->has_time, a->time, a->file_id, a->first, b->has_time, b->time,
	    b->file_id, b->first) < 0;
}

/* Restore the heap order from position i down. */
static void sift_down(struct lbt_dbi_merge *m, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, s = i;
		stream t;

		if (l < m->nheap && before(&m->heap[l], &m->heap[s]))
			s = l;
		if (r < m->nheap && before(&m->heap[r], &m->heap[s]))
			s = r;
		if (s == i)
			return;
		t = m->heap[i];
		m->heap[i] = m->heap[s];
		m->heap[s] = t;
		i = s;
	}
}

/* Restore the heap order from position i up. */
static void sift_up(struct lbt_dbi_merge *m, size_t i)
{
	while (i > 0 && before(&m->heap[i], &m->heap[(i - 1) / 2])) {
		stream t = m->heap[i];

		m->heap[i] = m->heap[(i - 1) / 2];
		m->heap[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
}

/* Set the stream's key from its current request. */
static void read_key(stream *s)
{
	s->has_time = s->b->present[LBT_DBI_C_TIME][s->i];
	s->time = s->b->v[LBT_DBI_C_TIME][s->i];
}

/*
 * Decode the wanted columns of the block the stream's statement is on
 * into s->b.  @return 0 or -1 with err (a broken block).
 */
static int decode_block(const struct lbt_dbi_merge *m, stream *s, lbt_err *err)
{
	sqlite3_stmt *st = s->st;
	struct lbt_dbi_dblock *b = s->b;
	int64_t n = sqlite3_column_int64(st, 0), t0 = sqlite3_column_int64(st, 1);
	int64_t unit = sqlite3_column_int64(st, 2), line0 = sqlite3_column_int64(st, 3);
	uint64_t widths = (uint64_t)sqlite3_column_int64(st, 4);
	int q = LBT_DBI_Q_TEXTS;

	if (n <= 0 || n > LBT_DBI_BLOCK)
		return lbt_err_at(err, m->path, 0, "a damaged block: it claims %lld requests, a "
		    "block holds 1 to %d", (long long)n, LBT_DBI_BLOCK);
	b->n = (size_t)n;
	for (int c = 0; c < LBT_DBI_NCOL; c++) {
		if (!m->want[c])
			continue;
		if (lbt_dbi_col_decode(sqlite3_column_blob(st, q), (size_t)sqlite3_column_bytes(st, q),
		    (int)(widths >> (2 * c) & 3) + 1, b->n, b->v[c], b->present[c]) < 0)
			return lbt_err_at(err, m->path, 0, "a broken %s column in a block",
			    lbt_dbi_col_names[c]);
		q++;
	}
	for (size_t i = 0; i < b->n; i++) {
		if (b->present[LBT_DBI_C_TIME][i])
			b->v[LBT_DBI_C_TIME][i] = t0 + b->v[LBT_DBI_C_TIME][i] * unit;
		if (m->want[LBT_DBI_C_LINE] && b->present[LBT_DBI_C_LINE][i])
			b->v[LBT_DBI_C_LINE][i] += line0;
	}
	return 0;
}

/* Put a run's statement and block back into the pools.  @return 0, -1 out of memory */
static int release(struct lbt_dbi_merge *m, stream *s)
{
	sqlite3_reset(s->st);
	if (LBT_GROW(m->pool, m->pool_cap, m->npool + 1, 8) < 0 ||
	    LBT_GROW(m->free_blocks, m->free_cap, m->nfree + 1, 8) < 0) {
		sqlite3_finalize(s->st);
		free(s->b);
		return -1;
	}
	m->pool[m->npool++] = s->st;
	m->free_blocks[m->nfree++] = s->b;
	s->st = NULL;
	s->b = NULL;
	return 0;
}

/*
 * Move stream s to its next request, reading the next block when the one
 * decoded is done.  @return 1 on a request (key read), 0 at the run's end
 * (statement and block released), -1 with err.
 */
static int stream_step(struct lbt_dbi_merge *m, stream *s, lbt_err *err)
{
	int rc;

	if (s->b->n > 0 && ++s->i < s->b->n) {
		read_key(s);
		return 1;
	}
	rc = sqlite3_step(s->st);
	if (rc == SQLITE_ROW) {
		s->i = 0;
		if (decode_block(m, s, err) < 0)
			return -1;
		read_key(s);
		return 1;
	}
	if (rc != SQLITE_DONE)
		return lbt_dbi_fail(m->h, m->path, "read", err);
	if (release(m, s) < 0)
		return lbt_err_set(err, "out of memory");
	return 0;
}

/* Open run r: a statement and a block, its first request pushed.  @return 0 or -1 */
static int open_run(struct lbt_dbi_merge *m, const struct lbt_dbi_runrow *r, lbt_err *err)
{
	stream s = { .file_id = r->file_id, .first = r->first, .clock = r->clock };
	int rc;

	if (m->npool > 0)
		s.st = m->pool[--m->npool];
	else if (lbt_dbi_run_query(m->h, m->path, m->want, m->sel, &s.st, err) < 0)
		return -1;
	s.b = m->nfree > 0 ? m->free_blocks[--m->nfree] : malloc(sizeof *s.b);
	if (s.b == NULL) {
		sqlite3_finalize(s.st);
		return lbt_err_set(err, "out of memory");
	}
	s.b->n = 0;
	sqlite3_bind_int64(s.st, 1, r->first);
	sqlite3_bind_int64(s.st, 2, r->last);
	if ((rc = stream_step(m, &s, err)) <= 0)
		return rc;
	m->heap[m->nheap++] = s;
	sift_up(m, m->nheap - 1);
	return 0;
}

/* True when run r's first row may come before (or with) the heap's top row. */
static int run_due(const struct lbt_dbi_merge *m, const struct lbt_dbi_runrow *r)
{
	const stream *t = &m->heap[0];
	int rh = !r->untimed && r->has_time;

	if (m->nheap == 0)
		return 1;
	return key_cmp(rh, r->min_time, r->file_id, r->first, t->has_time, t->time, t->file_id,
	    t->first) <= 0;
}

/* Next request; see db_int.h.  @return 1, 0 at the end, -1 with err. */
int lbt_dbi_merge_next(lbt_dbi_merge *m, const struct lbt_dbi_pos **pos, lbt_err *err)
{
	if (m->top_used) {
		int rc = stream_step(m, &m->heap[0], err);

		m->top_used = 0;
		if (rc < 0)
			return -1;
		if (rc == 0)
			m->heap[0] = m->heap[--m->nheap];
		sift_down(m, 0);
	}
	while (m->next < m->nruns && run_due(m, &m->runs[m->next]))
		if (open_run(m, &m->runs[m->next++], err) < 0)
			return -1;
	if (m->nheap == 0)
		return 0;
	*pos = &m->heap[0];
	m->top_used = 1;
	return 1;
}

/* Set the columns to decode; see db_int.h. */
void lbt_dbi_merge_columns(lbt_dbi_merge *m, const int want[LBT_DBI_NCOL])
{
	memcpy(m->want, want, sizeof m->want);
	m->want[LBT_DBI_C_TIME] = 1;
}

/* Whether every run to read has one clock; see db_int.h. */
int lbt_dbi_merge_clocks_known(const lbt_dbi_merge *m)
{
	for (size_t i = 0; i < m->nruns; i++)
		if (m->runs[i].clock < 0)
			return 0;
	return 1;
}

/*
 * Whether run list column col of st (a blob, NULL: no list) allows the
 * wanted ids.  @return 1 read the run, 0 skip it.
 */
static int list_allows(sqlite3_stmt *st, int col, int has, const int64_t *ids, size_t n)
{
	if (!has || sqlite3_column_type(st, col) == SQLITE_NULL)
		return 1;
	return lbt_dbi_list_meets(sqlite3_column_blob(st, col),
	    (size_t)sqlite3_column_bytes(st, col), ids, n) != 0;
}

/* Whether the run of the current row of st (the runs query) can hold a match. */
static int run_selected(sqlite3_stmt *st, const struct lbt_dbi_sel *sel)
{
	int timed = sqlite3_column_type(st, 4) != SQLITE_NULL;

	if (sel->since != INT64_MIN || sel->until != INT64_MAX) {
		if (!timed || sqlite3_column_int64(st, 5) < sel->since ||
		    sqlite3_column_int64(st, 4) >= sel->until)
			return 0;
	}
	return list_allows(st, 6, sel->has_shapes, sel->shapes, sel->nshapes) &&
	    list_allows(st, 7, sel->has_keys, sel->keys, sel->nkeys) &&
	    list_allows(st, 8, sel->has_nets, sel->nets, sel->nnets);
}

/* Load the runs sel does not rule out, by first possible row.  @return 0 or -1 */
static int load_runs(lbt_dbi_merge *m, const struct lbt_dbi_sel *sel, lbt_err *err)
{
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	int rc;

	if (sqlite3_prepare_v2(m->h, "SELECT file_id, first_block, last_block, untimed, min_time,"
	    " max_time, shapes, keys, nets, clock FROM runs ORDER BY untimed = 0,"
	    " CASE WHEN untimed = 0 THEN min_time END, file_id, first_block", -1, &st, NULL) != SQLITE_OK)
		return lbt_dbi_fail(m->h, m->path, "runs", err);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct lbt_dbi_runrow *r;

		if (!run_selected(st, sel))
			continue;
		if (LBT_GROW(m->runs, cap, m->nruns + 1, 64) < 0) {
			sqlite3_finalize(st);
			return lbt_err_set(err, "out of memory");
		}
		r = &m->runs[m->nruns++];
		r->file_id = sqlite3_column_int64(st, 0);
		r->first = sqlite3_column_int64(st, 1);
		r->last = sqlite3_column_int64(st, 2);
		r->untimed = sqlite3_column_int64(st, 3) > 0;
		r->has_time = sqlite3_column_type(st, 4) != SQLITE_NULL;
		r->min_time = sqlite3_column_int64(st, 4);
		r->clock = sqlite3_column_type(st, 9) == SQLITE_NULL ? -1 :
		    sqlite3_column_int(st, 9);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : lbt_dbi_fail(m->h, m->path, "runs", err);
}

/* Start a merge; see db_int.h.  @return it or NULL with err. */
lbt_dbi_merge *lbt_dbi_merge_open(sqlite3 *h, const char *path, const struct lbt_dbi_sel *sel,
    lbt_err *err)
{
	lbt_dbi_merge *m = calloc(1, sizeof *m);

	if (m == NULL) {
		lbt_err_set(err, "out of memory");
		return NULL;
	}
	*m = (lbt_dbi_merge){ .path = path, .h = h, .sel = sel };
	m->want[LBT_DBI_C_TIME] = 1;
	if (load_runs(m, sel, err) < 0) {
		lbt_dbi_merge_close(m);
		return NULL;
	}
	if ((m->heap = calloc(m->nruns + 1, sizeof *m->heap)) == NULL) {
		lbt_err_set(err, "out of memory");
		lbt_dbi_merge_close(m);
		return NULL;
	}
	return m;
}

/* Close m and every statement; NULL accepted. */
void lbt_dbi_merge_close(lbt_dbi_merge *m)
{
	if (m == NULL)
		return;
	for (size_t i = 0; i < m->nheap; i++) {
		sqlite3_finalize(m->heap[i].st);
		free(m->heap[i].b);
	}
	for (size_t i = 0; i < m->npool; i++)
		sqlite3_finalize(m->pool[i]);
	for (size_t i = 0; i < m->nfree; i++)
		free(m->free_blocks[i]);
	free(m->heap);
	free(m->pool);
	free(m->free_blocks);
	free(m->runs);
	free(m);
}
