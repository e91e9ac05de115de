/*
 * db_run.c - storing requests in runs of blocks (schema version 5;
 * db_schema.c).
 *
 * The writer collects the requests of one file in the order they are
 * read, up to LBT_DBI_RUN_ROWS or until the transaction commits, then
 * stores them as one run: sorted by (time, line) (a stable radix sort on
 * the time: they arrive in line order), cut into blocks of LBT_DBI_BLOCK
 * requests, each a row of `blocks` with a text column per field
 * (db_codec.c), all inserted by one INSERT ... SELECT FROM lbt_batch;
 * then the run's row in `runs`: its block and time ranges and the
 * distinct shapes, keys and networks of its requests.  Within a file, the
 * requests of a run are in (time, line) order and a later run holds later
 * lines, which is what the reader's merge relies on (db_merge.c).
 *
 * A block stores its time column relative to its earliest time t0, in
 * milliseconds when every time of the block is a whole millisecond after
 * it (tunit 1000; logs are in ms), and its lines relative to the smallest
 * (line0): both then take one or two bytes a request.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db_int.h"
#include "lbt/vec.h"

/* Allocate the run's buffers.  @return 0 or -1 */
static int run_init(struct lbt_dbi_run *run)
{
	memset(run, 0, sizeof *run);
	run->rows = malloc(LBT_DBI_RUN_ROWS * sizeof *run->rows);
	run->order = malloc(LBT_DBI_RUN_ROWS * sizeof *run->order);
	run->otmp = malloc(LBT_DBI_RUN_ROWS * sizeof *run->otmp);
	run->key = malloc(LBT_DBI_RUN_ROWS * sizeof *run->key);
	run->ktmp = malloc(LBT_DBI_RUN_ROWS * sizeof *run->ktmp);
	run->blk = malloc((LBT_DBI_RUN_ROWS / LBT_DBI_BLOCK + 1) * sizeof *run->blk);
	if (run->rows == NULL || run->order == NULL || run->otmp == NULL ||
	    run->key == NULL || run->ktmp == NULL || run->blk == NULL)
		return -1;
	return 0;
}

/* Prepare the store's INSERTs and allocate its run; see db_int.h.  @return 0 or -1 */
int lbt_dbi_store_init(struct lbt_dbi_store *st, sqlite3 *h, const char *path, lbt_err *err)
{
	char sql[512];
	size_t n;

	memset(st, 0, sizeof *st);
	st->h = h;
	st->path = path;
	if (run_init(&st->run) < 0)
		return lbt_err_set(err, "out of memory");
	n = (size_t)snprintf(sql, sizeof sql, "INSERT INTO blocks SELECT c0");
	for (int i = 1; i < LBT_DBI_BLOCK_HEAD + LBT_DBI_NCOL; i++)
		n += (size_t)snprintf(sql + n, sizeof sql - n, ", c%d", i);
	snprintf(sql + n, sizeof sql - n, " FROM lbt_batch(?1)");
	if (sqlite3_prepare_v3(h, sql, -1, SQLITE_PREPARE_PERSISTENT, &st->ins_blocks,
	    NULL) != SQLITE_OK ||
	    sqlite3_prepare_v3(h, "INSERT INTO runs (file_id, first_block, last_block, untimed,"
	    " min_time, max_time, clock, shapes, keys, nets) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
	    -1, SQLITE_PREPARE_PERSISTENT, &st->ins_run, NULL) != SQLITE_OK)
		return lbt_dbi_fail(h, path, "prepare", err);
	return 0;
}

/* Free the store (a zeroed one accepted). */
void lbt_dbi_store_free(struct lbt_dbi_store *st)
{
	struct lbt_dbi_run *run = &st->run;

	sqlite3_finalize(st->ins_blocks);
	sqlite3_finalize(st->ins_run);
	free(run->rows);
	free(run->order);
	free(run->otmp);
	free(run->key);
	free(run->ktmp);
	free(run->blk);
	free(run->text.p);
	for (int i = 0; i < 3; i++)
		free(run->lists[i].p);
	memset(st, 0, sizeof *st);
}

/* Forget the run and the next ids (the transaction was rolled back). */
void lbt_dbi_run_drop(struct lbt_dbi_store *st)
{
	st->run.n = 0;
	st->next_req = st->next_block = 0;
}

/* What a run's row in `runs` says about its requests. */
struct run_info {
	int64_t min_time, max_time;   /* of the timed ones */
	int64_t untimed;              /* requests without a time */
	int clock;                    /* of every timed one; -1 when they differ */
};

/*
 * Sort the run's rows by (time, line) into run->order: untimed rows
 * first (key 0), then by time relative to the run's earliest; the sort is
 * stable and the rows are in line order.  Fills *ri.
 */
static void sort_run(struct lbt_dbi_run *run, struct run_info *ri)
{
	int64_t lo = INT64_MAX, hi = INT64_MIN, n0 = 0;
	int clock = -2;

	for (size_t i = 0; i < run->n; i++) {
		const struct lbt_dbi_row *r = &run->rows[i];

		if (!r->timed) {
			n0++;
			continue;
		}
		lo = r->time < lo ? r->time : lo;
		hi = r->time > hi ? r->time : hi;
		clock = clock == -2 || clock == r->clock ? r->clock : -1;
	}
	for (size_t i = 0; i < run->n; i++) {
		const struct lbt_dbi_row *r = &run->rows[i];

		run->key[i] = r->timed ? (uint64_t)(r->time - lo) + 1 : 0;
		run->order[i] = (uint32_t)i;
	}
	lbt_dbi_sort_keys(run->key, run->order, run->ktmp, run->otmp, run->n);
	*ri = (struct run_info){ lo, hi, n0, clock == -2 ? 0 : clock };
}

/* The values of a block, column by column, before encoding. */
struct block_values {
	int64_t v[LBT_DBI_NCOL][LBT_DBI_BLOCK];
	uint8_t present[LBT_DBI_NCOL][LBT_DBI_BLOCK];
	uint8_t any[LBT_DBI_NCOL];   /* some value of the column is present */
};

/*
 * Spread the rows of a block into columns (time from t0 in tunit, lines
 * from line0), one pass over each row.
 */
static void block_values(struct block_values *bv, const struct lbt_dbi_blk *b,
    const struct lbt_dbi_row *const *rows, size_t n)
{
	memset(bv->any, 0, sizeof bv->any);
	for (size_t i = 0; i < n; i++) {
		const struct lbt_dbi_row *r = rows[i];

		bv->v[LBT_DBI_C_TIME][i] = r->timed ? (r->time - b->t0) / b->tunit : 0;
		bv->present[LBT_DBI_C_TIME][i] = r->timed;
		bv->v[LBT_DBI_C_LINE][i] = (int64_t)r->line - b->line0;
		bv->v[LBT_DBI_C_SHAPE][i] = r->shape;
		bv->present[LBT_DBI_C_LINE][i] = bv->present[LBT_DBI_C_SHAPE][i] = 1;
		for (int k = 0; k < LBT_DBI_NID; k++) {
			bv->v[LBT_DBI_C_IDS + k][i] = r->id[k];
			bv->present[LBT_DBI_C_IDS + k][i] = r->id[k] != 0;
		}
		bv->v[LBT_DBI_C_BYTES][i] = r->bytes;
		bv->present[LBT_DBI_C_BYTES][i] = r->has_bytes;
		for (int k = 0; k < LBT_DBI_NNUM; k++) {
			bv->v[LBT_DBI_C_NUMS + k][i] = r->num[k];
			bv->present[LBT_DBI_C_NUMS + k][i] = (uint8_t)(r->num_have >> k & 1);
		}
	}
	for (int c = 0; c < LBT_DBI_NCOL; c++)
		for (size_t i = 0; i < n && !bv->any[c]; i++)
			bv->any[c] = bv->present[c][i];
}

/*
 * The head of block b from its rows rows[0..n) (sorted, untimed first):
 * time range and unit, smallest line.
 */
static void block_head(struct lbt_dbi_blk *b, const struct lbt_dbi_row *const *rows,
    size_t n)
{
	int ms = 1;

	b->timed = 0;
	b->t0 = b->t1 = 0;
	b->line0 = INT64_MAX;
	for (size_t i = 0; i < n; i++) {
		const struct lbt_dbi_row *r = rows[i];

		b->line0 = (int64_t)r->line < b->line0 ? (int64_t)r->line : b->line0;
		if (!r->timed)
			continue;
		if (!b->timed)
			b->t0 = r->time;        /* sorted: the first timed is the earliest */
		b->timed = 1;
		b->t1 = r->time;
		ms = ms && (r->time - b->t0) % 1000 == 0;
	}
	b->tunit = ms ? 1000 : 1;
}

/*
 * Encode the columns of block b (rows[0..n), sorted) into the run's text
 * arena; bv is scratch.  @return 0, or -1 with err (out of memory, a value
 * out of range).
 */
static int encode_block(struct lbt_dbi_run *run, struct lbt_dbi_blk *b,
    const struct lbt_dbi_row *const *rows, size_t n, struct block_values *bv, lbt_err *err)
{
	block_head(b, rows, n);
	block_values(bv, b, rows, n);
	b->widths = 0;
	for (int c = 0; c < LBT_DBI_NCOL; c++) {
		long len;
		int w;

		b->off[c] = run->text.n;
		b->len[c] = 0;
		if (!bv->any[c])
			continue;
		if (LBT_GROW(run->text.p, run->text.cap, run->text.n + LBT_DBI_COL_BYTES, 65536) < 0)
			return lbt_err_set(err, "out of memory");
		len = lbt_dbi_col_encode(bv->v[c], bv->present[c], n, &w, run->text.p + run->text.n);
		if (len < 0)
			return lbt_err_set(err, "a %s value too large for the index",
			    lbt_dbi_col_names[c]);
		b->len[c] = (uint32_t)len;
		b->widths |= (uint64_t)(w - 1) << (2 * c);
		run->text.n += (size_t)len;
	}
	return 0;
}

/* Cut the sorted run into blocks and encode them (ids from first).  @return 0 or -1 */
static int encode_run(struct lbt_dbi_run *run, int64_t first, lbt_err *err)
{
	const struct lbt_dbi_row *rows[LBT_DBI_BLOCK];
	struct block_values *bv = malloc(sizeof *bv);
	int rc = 0;

	if (bv == NULL)
		return lbt_err_set(err, "out of memory");
	run->nblk = 0;
	run->text.n = 0;
	for (size_t at = 0; at < run->n; at += LBT_DBI_BLOCK) {
		struct lbt_dbi_blk *b = &run->blk[run->nblk++];
		size_t n = run->n - at < LBT_DBI_BLOCK ? run->n - at : LBT_DBI_BLOCK;

		for (size_t i = 0; i < n; i++)
			rows[i] = &run->rows[run->order[at + i]];
		b->first = first + (int64_t)at;
		b->n = (int64_t)n;
		if ((rc = encode_block(run, b, rows, n, bv, err)) < 0)
			break;
	}
	free(bv);
	return rc;
}

/*
 * Column col of block i of the run (ctx), in `blocks` order: id (NULL:
 * SQLite gives max(id) + 1), first n t0 t1 tunit line0 widths, the texts.
 */
static void block_column(void *ctx, size_t i, int col, sqlite3_context *out)
{
	const struct lbt_dbi_run *run = ctx;
	const struct lbt_dbi_blk *b = &run->blk[i];
	int c = col - LBT_DBI_BLOCK_HEAD;

	switch (col) {
	case 0: return;
	case 1: sqlite3_result_int64(out, b->first); return;
	case 2: sqlite3_result_int64(out, b->n); return;
	case 3: if (b->timed) sqlite3_result_int64(out, b->t0); return;
	case 4: if (b->timed) sqlite3_result_int64(out, b->t1); return;
	case 5: sqlite3_result_int64(out, b->tunit); return;
	case 6: sqlite3_result_int64(out, b->line0); return;
	case 7: sqlite3_result_int64(out, (int64_t)b->widths); return;
	}
	if (c >= 0 && c < LBT_DBI_NCOL && b->len[c] > 0)
		sqlite3_result_text(out, (const char *)run->text.p + b->off[c], (int)b->len[c],
		    SQLITE_STATIC);
}

/*
 * The distinct values of one id of the run's rows (0: shape, 1: key,
 * 2: network) as a list into run->lists[which].  @return 0 or -1.
 */
static int run_list(struct lbt_dbi_run *run, int which)
{
	size_t n = 0;

	for (size_t i = 0; i < run->n; i++) {
		const struct lbt_dbi_row *r = &run->rows[i];
		int64_t v = which == 0 ? r->shape : which == 1 ? r->id[LBT_DBI_I_KEY] : r->net;

		if (v > 0)
			run->key[n++] = (uint64_t)v;
	}
	return lbt_dbi_list_encode(run->key, run->ktmp, n, &run->lists[which]);
}

/* Insert the run's row in `runs` (blocks first..last).  @return 0 or -1 with err. */
static int insert_run_row(struct lbt_dbi_store *s, int64_t first, int64_t last,
    const struct run_info *ri, lbt_err *err)
{
	struct lbt_dbi_run *run = &s->run;
	sqlite3_stmt *st = s->ins_run;
	int rc;

	sqlite3_bind_int64(st, 1, run->file_id);
	sqlite3_bind_int64(st, 2, first);
	sqlite3_bind_int64(st, 3, last);
	sqlite3_bind_int64(st, 4, ri->untimed);
	if (ri->untimed < (int64_t)run->n) {
		sqlite3_bind_int64(st, 5, ri->min_time);
		sqlite3_bind_int64(st, 6, ri->max_time);
	} else {
		sqlite3_bind_null(st, 5);
		sqlite3_bind_null(st, 6);
	}
	if (ri->clock >= 0)
		sqlite3_bind_int(st, 7, ri->clock);
	else
		sqlite3_bind_null(st, 7);
	for (int i = 0; i < 3; i++)
		sqlite3_bind_blob(st, 8 + i, run->lists[i].n ? run->lists[i].p : (const void *)"",
		    (int)run->lists[i].n, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : lbt_dbi_fail(s->h, s->path, "insert run", err);
}

/* Read the ids of the next request and block when not known.  @return 0 or -1 with err. */
static int load_next_ids(struct lbt_dbi_store *s, lbt_err *err)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if (s->next_block > 0)
		return 0;
	if (sqlite3_prepare_v2(s->h, "SELECT coalesce(max(id), 0) + 1, coalesce(max(first + n),"
	    " 1) FROM blocks", -1, &st, NULL) != SQLITE_OK)
		return lbt_dbi_fail(s->h, s->path, "blocks", err);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		s->next_block = sqlite3_column_int64(st, 0);
		s->next_req = sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : lbt_dbi_fail(s->h, s->path, "blocks", err);
}

/* Store the run; see db_int.h.  @return 0 or -1 with err. */
int lbt_dbi_run_flush(struct lbt_dbi_store *s, lbt_err *err)
{
	struct lbt_dbi_run *run = &s->run;
	struct lbt_dbi_vbatch blocks = { 0, run, block_column };
	struct run_info ri;
	int64_t last;

	if (run->n == 0)
		return 0;
	if (load_next_ids(s, err) < 0)
		return -1;
	sort_run(run, &ri);
	if (encode_run(run, s->next_req, err) < 0)
		return -1;
	blocks.n = run->nblk;
	if (lbt_dbi_vtab_insert(s->h, s->path, s->ins_blocks, &blocks, err) < 0)
		return -1;
	/* A NULL id (max(id) + 1) spares SQLite the B-tree seek per row that
	 * checking a given id costs; the ids are still known: one writer. */
	last = s->next_block + (int64_t)run->nblk - 1;
	if (sqlite3_last_insert_rowid(s->h) != last)
		return lbt_err_at(err, s->path, 0, "blocks: ids of a run are not consecutive");
	for (int i = 0; i < 3; i++)
		if (run_list(run, i) < 0)
			return lbt_err_set(err, "out of memory");
	if (insert_run_row(s, s->next_block, last, &ri, err) < 0)
		return -1;
	s->next_block = last + 1;
	s->next_req += (int64_t)run->n;
	run->n = 0;
	return 0;
}

/* Add a row of file_id to the run; see db_int.h.  @return 0 or -1 with err. */
int lbt_dbi_run_add(struct lbt_dbi_store *s, int64_t file_id, const struct lbt_dbi_row *row,
    lbt_err *err)
{
	struct lbt_dbi_run *run = &s->run;

	if (run->n > 0 && (run->n == LBT_DBI_RUN_ROWS || run->file_id != file_id) &&
	    lbt_dbi_run_flush(s, err) < 0)
		return -1;
	run->file_id = file_id;
	run->rows[run->n++] = *row;
	return 0;
}
