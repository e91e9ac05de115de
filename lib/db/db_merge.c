/*
 * db_merge.c - the requests of an index in (time, file, line) order,
 * merged from its runs (schema version 4; db_schema.c).
 *
 * A run's rows are sorted by (time, line) and belong to one file, so a
 * scan of its id range is one sorted stream; the merge keeps a heap of the
 * streams that are open, keyed by their current row (time, NULL first,
 * then file id and line), and opens a run only when the heap reaches its
 * first possible row (its earliest time and its file), so that at any
 * moment only the runs that overlap in time are open: one or two for the
 * log of one LB (a run overlaps the next by the longest request), one per
 * LB for several.  Each open run is a statement of its own, prepared once
 * and reused from a pool.
 *
 * The runs the selection rules out are never opened: those outside the
 * time bounds, and those whose lists (the distinct shapes, keys and
 * networks of their rows) hold none of the ids the filter can match.  A
 * run without lists (made by the migration from version 3) is read for
 * every filter.
 */
#include <stdlib.h>
#include <string.h>

#include "db_int.h"
#include "lbt/vec.h"

/* An open run: its statement on the current row, and that row's key. */
struct stream {
	sqlite3_stmt *st;
	int64_t file_id;
	int has_time;
	int64_t time, line;
};

struct lbt_dbi_merge {
	const char *path;
	sqlite3 *h;
	struct lbt_dbi_runrow *runs;   /* the runs to read, by first possible row */
	size_t nruns, next;
	struct stream *heap;
	size_t nheap;
	sqlite3_stmt **pool;           /* prepared, not in use */
	size_t npool, pool_cap;
	int (*prepare)(void *ctx, sqlite3_stmt **st, lbt_err *err);
	void *ctx;
	int time_col, line_col;
	int top_used;                  /* the heap's top row was returned */
};

/* Order of two keys (has_time, time, file, line), NULL time first: <0, 0, >0. */
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
static int before(const struct stream *a, const struct stream *b)
{
	return key_cmp(a->has_time, a->time, a->file_id, a->line, b->has_time, b->time,
	    b->file_id, b->line) < 0;
}

/* Restore the heap order from position i down. */
static void sift_down(struct lbt_dbi_merge *m, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, s = i;
		struct stream t;

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
		struct stream t = m->heap[i];

		m->heap[i] = m->heap[(i - 1) / 2];
		m->heap[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
}

/* Read the key of the stream's current row. */
static void read_key(const struct lbt_dbi_merge *m, struct stream *s)
{
	s->has_time = m->time_col >= 0 && sqlite3_column_type(s->st, m->time_col) != SQLITE_NULL;
	s->time = s->has_time ? sqlite3_column_int64(s->st, m->time_col) : 0;
	s->line = sqlite3_column_int64(s->st, m->line_col);
}

/* Put a statement back into the pool (reset first).  @return 0, -1 out of memory */
static int release(struct lbt_dbi_merge *m, sqlite3_stmt *st)
{
	sqlite3_reset(st);
	if (LBT_GROW(m->pool, m->pool_cap, m->npool + 1, 8) < 0) {
		sqlite3_finalize(st);
		return -1;
	}
	m->pool[m->npool++] = st;
	return 0;
}

/*
 * Step stream s.  @return 1 on a row (key read), 0 at its end (statement
 * released), -1 with err.
 */
static int stream_step(struct lbt_dbi_merge *m, struct stream *s, lbt_err *err)
{
	int rc = sqlite3_step(s->st);

	if (rc == SQLITE_ROW) {
		read_key(m, s);
		return 1;
	}
	if (rc != SQLITE_DONE)
		return lbt_dbi_fail(m->h, m->path, "read", err);
	if (release(m, s->st) < 0)
		return lbt_err_set(err, "out of memory");
	s->st = NULL;
	return 0;
}

/* Open run r: a statement from the pool, its first row pushed.  @return 0 or -1 */
static int open_run(struct lbt_dbi_merge *m, const struct lbt_dbi_runrow *r, lbt_err *err)
{
	struct stream s = { NULL, r->file_id, 0, 0, 0 };
	int rc;

	if (m->npool > 0)
		s.st = m->pool[--m->npool];
	else if (m->prepare(m->ctx, &s.st, err) < 0)
		return -1;
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
	const struct stream *t = &m->heap[0];
	int rh = !r->untimed && r->has_time;

	if (m->nheap == 0)
		return 1;
	return key_cmp(rh, r->min_time, r->file_id, 0, t->has_time, t->time, t->file_id, 0) <= 0;
}

/* Next request; see db_int.h.  @return 1, 0 at the end, -1 with err. */
int lbt_dbi_merge_next(lbt_dbi_merge *m, sqlite3_stmt **st, int64_t *file_id, lbt_err *err)
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
	*st = m->heap[0].st;
	*file_id = m->heap[0].file_id;
	m->top_used = 1;
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

	if (sqlite3_prepare_v2(m->h, "SELECT file_id, first_id, last_id, untimed, min_time,"
	    " max_time, shapes, keys, nets FROM runs ORDER BY untimed = 0,"
	    " CASE WHEN untimed = 0 THEN min_time END, file_id, first_id", -1, &st, NULL) != SQLITE_OK)
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
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : lbt_dbi_fail(m->h, m->path, "runs", err);
}

/* Start a merge; see db_int.h.  @return it or NULL with err. */
lbt_dbi_merge *lbt_dbi_merge_open(sqlite3 *h, const char *path, const struct lbt_dbi_sel *sel,
    int (*prepare)(void *ctx, sqlite3_stmt **st, lbt_err *err), void *ctx, int time_col,
    int line_col, lbt_err *err)
{
	lbt_dbi_merge *m = calloc(1, sizeof *m);

	if (m == NULL) {
		lbt_err_set(err, "out of memory");
		return NULL;
	}
	*m = (lbt_dbi_merge){ .path = path, .h = h, .prepare = prepare, .ctx = ctx,
	    .time_col = time_col, .line_col = line_col };
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
	for (size_t i = 0; i < m->nheap; i++)
		sqlite3_finalize(m->heap[i].st);
	for (size_t i = 0; i < m->npool; i++)
		sqlite3_finalize(m->pool[i]);
	free(m->heap);
	free(m->pool);
	free(m->runs);
	free(m);
}
