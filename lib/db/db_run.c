/*
 * db_run.c - storing requests in runs (schema version 4; db_schema.c).
 *
 * The writer collects the requests of one file in the order they are
 * read, up to LBT_DBI_RUN_ROWS or until the transaction commits, then
 * stores them as one run: sorted by (time, line) (a stable radix sort on
 * the time: they arrive in line order), with consecutive ids, in one
 * INSERT ... SELECT FROM lbt_batch, followed by the numbers too large for
 * nums and the run's row in `runs`: its id and time ranges and the
 * distinct shapes, keys and networks of its rows.  Within a file, ids then
 * follow (time, line) inside a run and lines across runs, which is what
 * the reader's merge relies on (db_merge.c).
 */
#include <stdlib.h>
#include <string.h>

#include "db_int.h"
#include "lbt/vec.h"

/* A number kept in nums_big. */
struct lbt_dbi_big {
	int64_t id;
	int64_t pos;
	int64_t value;
};

/* Allocate the run's buffers; see db_int.h.  @return 0 or -1 */
int lbt_dbi_run_init(struct lbt_dbi_run *run)
{
	memset(run, 0, sizeof *run);
	run->rows = malloc(LBT_DBI_RUN_ROWS * sizeof *run->rows);
	run->order = malloc(LBT_DBI_RUN_ROWS * sizeof *run->order);
	run->otmp = malloc((LBT_DBI_RUN_ROWS + 1) * sizeof *run->otmp);
	run->key = malloc(LBT_DBI_RUN_ROWS * sizeof *run->key);
	run->ktmp = malloc(LBT_DBI_RUN_ROWS * sizeof *run->ktmp);
	run->nums = malloc((size_t)LBT_DBI_RUN_ROWS * LBT_DBI_NUMS_BYTES);
	if (run->rows == NULL || run->order == NULL || run->otmp == NULL ||
	    run->key == NULL || run->ktmp == NULL || run->nums == NULL)
		return -1;
	return 0;
}

/* Free the run's buffers (a zeroed run accepted). */
void lbt_dbi_run_free(struct lbt_dbi_run *run)
{
	free(run->rows);
	free(run->order);
	free(run->otmp);
	free(run->key);
	free(run->ktmp);
	free(run->nums);
	free(run->big);
	for (int i = 0; i < 3; i++)
		free(run->lists[i].p);
	memset(run, 0, sizeof *run);
}

/* Forget the rows collected (the transaction was rolled back). */
void lbt_dbi_run_drop(lbt_db *db)
{
	db->run.n = 0;
	db->run.nbig = 0;
}

/*
 * Sort the run's rows by (time, line) into run->order: untimed rows
 * first (key 0), then by time relative to the run's earliest; the sort is
 * stable and the rows are in line order.  Sets the time range.
 */
static void sort_run(struct lbt_dbi_run *run, int64_t *min_time, int64_t *max_time,
    int64_t *untimed)
{
	int64_t lo = INT64_MAX, hi = INT64_MIN, n0 = 0;

	for (size_t i = 0; i < run->n; i++) {
		const struct lbt_dbi_row *r = &run->rows[i];

		if (!r->timed) {
			n0++;
			continue;
		}
		lo = r->time < lo ? r->time : lo;
		hi = r->time > hi ? r->time : hi;
	}
	for (size_t i = 0; i < run->n; i++) {
		const struct lbt_dbi_row *r = &run->rows[i];

		run->key[i] = r->timed ? (uint64_t)(r->time - lo) + 1 : 0;
		run->order[i] = (uint32_t)i;
	}
	lbt_dbi_sort_keys(run->key, run->order, run->ktmp, run->otmp, run->n);
	*min_time = lo;
	*max_time = hi;
	*untimed = n0;
}

/*
 * Encode the nums of every row (in sorted order) into run->nums, offsets
 * in run->otmp, and list the numbers too large for them (ids from
 * first_id).  @return 0 or -1 (out of memory).
 */
static int encode_nums(struct lbt_dbi_run *run)
{
	size_t at = 0;

	run->nbig = 0;
	for (size_t i = 0; i < run->n; i++) {
		const struct lbt_dbi_row *r = &run->rows[run->order[i]];
		uint32_t big;

		run->otmp[i] = (uint32_t)at;
		at += lbt_dbi_nums_encode(r, run->nums + at, &big);
		for (int k = 0; big != 0 && k < LBT_DBI_NNUM; k++) {
			if (!(big >> k & 1))
				continue;
			if (LBT_GROW(run->big, run->big_cap, run->nbig + 1, 64) < 0)
				return -1;
			run->big[run->nbig++] = (struct lbt_dbi_big){ run->first_id + (int64_t)i,
			    k + 1, r->num[k] };
		}
	}
	run->otmp[run->n] = (uint32_t)at;
	return 0;
}

/* Result of an id column: NULL for 0. */
static void result_id(sqlite3_context *out, int64_t id)
{
	if (id != 0)
		sqlite3_result_int64(out, id);
}

/*
 * Column col of request i of the run (ctx), in requests column order: the
 * row order[i], its nums at otmp[i] in run->nums.
 */
static void request_column(void *ctx, size_t i, int col, sqlite3_context *out)
{
	const struct lbt_dbi_run *run = ctx;
	const struct lbt_dbi_row *r = &run->rows[run->order[i]];
	uint32_t off = run->otmp[i], len = run->otmp[i + 1] - off;

	switch (col) {
	case 0: sqlite3_result_int64(out, run->first_id + (int64_t)i); break;
	case 1: if (r->timed) sqlite3_result_int64(out, r->time); break;
	case 2: sqlite3_result_int64(out, (int64_t)r->line); break;
	case 3: sqlite3_result_int64(out, r->shape); break;
	case 4 + LBT_DBI_NID: if (r->has_bytes) sqlite3_result_int64(out, r->bytes); break;
	case 5 + LBT_DBI_NID:
		if (len > 0)
			sqlite3_result_text(out, (const char *)run->nums + off, (int)len,
			    SQLITE_STATIC);
		break;
	default:
		if (col >= 4 && col < 4 + LBT_DBI_NID)
			result_id(out, r->id[col - 4]);
	}
}

/* Column col of number i of nums_big: id pos value. */
static void big_column(void *ctx, size_t i, int col, sqlite3_context *out)
{
	const struct lbt_dbi_big *b = &((const struct lbt_dbi_run *)ctx)->big[i];

	sqlite3_result_int64(out, col == 0 ? b->id : col == 1 ? b->pos : b->value);
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

/* Insert the run's row in `runs`.  @return 0 or -1 with err. */
static int insert_run_row(lbt_db *db, int64_t min_time, int64_t max_time, int64_t untimed,
    lbt_err *err)
{
	struct lbt_dbi_run *run = &db->run;
	sqlite3_stmt *st = db->ins_run;
	int rc;

	sqlite3_bind_int64(st, 1, run->file_id);
	sqlite3_bind_int64(st, 2, run->first_id);
	sqlite3_bind_int64(st, 3, run->first_id + (int64_t)run->n - 1);
	sqlite3_bind_int64(st, 4, untimed);
	if (untimed < (int64_t)run->n) {
		sqlite3_bind_int64(st, 5, min_time);
		sqlite3_bind_int64(st, 6, max_time);
	} else {
		sqlite3_bind_null(st, 5);
		sqlite3_bind_null(st, 6);
	}
	for (int i = 0; i < 3; i++)
		sqlite3_bind_blob(st, 7 + i, run->lists[i].n ? run->lists[i].p : (const void *)"",
		    (int)run->lists[i].n, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : lbt_dbi_fail(db->h, db->path, "insert run", err);
}

/* Read the id of the next request when it is not known.  @return 0 or -1 with err. */
static int load_next_id(lbt_db *db, lbt_err *err)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if (db->next_req > 0)
		return 0;
	if (sqlite3_prepare_v2(db->h, "SELECT coalesce(max(id), 0) + 1 FROM requests", -1,
	    &st, NULL) != SQLITE_OK)
		return lbt_dbi_fail(db->h, db->path, "requests", err);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		db->next_req = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : lbt_dbi_fail(db->h, db->path, "requests", err);
}

/* Store the run; see db_int.h.  @return 0 or -1 with err. */
int lbt_dbi_run_flush(lbt_db *db, lbt_err *err)
{
	struct lbt_dbi_run *run = &db->run;
	struct lbt_dbi_vbatch rows = { run->n, run, request_column };
	struct lbt_dbi_vbatch big = { 0, run, big_column };
	int64_t min_time, max_time, untimed;

	if (run->n == 0)
		return 0;
	if (load_next_id(db, err) < 0)
		return -1;
	run->first_id = db->next_req;
	sort_run(run, &min_time, &max_time, &untimed);
	if (encode_nums(run) < 0)
		return lbt_err_set(err, "out of memory");
	if (lbt_dbi_vtab_insert(db->h, db->path, db->ins_reqs, &rows, err) < 0)
		return -1;
	big.n = run->nbig;
	if (lbt_dbi_vtab_insert(db->h, db->path, db->ins_big, &big, err) < 0)
		return -1;
	for (int i = 0; i < 3; i++)
		if (run_list(run, i) < 0)
			return lbt_err_set(err, "out of memory");
	if (insert_run_row(db, min_time, max_time, untimed, err) < 0)
		return -1;
	db->next_req += (int64_t)run->n;
	run->n = 0;
	return 0;
}

/* Add a row of file_id to the run; see db_int.h.  @return 0 or -1 with err. */
int lbt_dbi_run_add(lbt_db *db, int64_t file_id, const struct lbt_dbi_row *row, lbt_err *err)
{
	struct lbt_dbi_run *run = &db->run;

	if (run->n > 0 && (run->n == LBT_DBI_RUN_ROWS || run->file_id != file_id) &&
	    lbt_dbi_run_flush(db, err) < 0)
		return -1;
	run->file_id = file_id;
	run->rows[run->n++] = *row;
	return 0;
}
