/*
 * db_write.c - bulk load of records into an lbt index (lbt-index): the
 * connection (open, writer's lock, pragmas, prepared INSERTs, close), the
 * transactions, and storing the rows that lbt_dbi_build (db_dict.c, on
 * lbt-index's reading thread) made.
 *
 * Storing (the caller's thread): prepared INSERTs with bound integers;
 * request rows are buffered and inserted LBT_DBI_ROWS at a time by one
 * multi-row INSERT, so SQLite's fixed cost of a statement execution (about
 * 0.8 µs here) is paid once per 32 rows.  docs/index-design.md has the
 * numbers.  A new dictionary entry is inserted just before the first row
 * that uses it, in the same transaction, so a killed run leaves no row
 * pointing to a missing id.  The journal is WAL with synchronous=NORMAL: a
 * killed process (or a crashed machine) loses at most the uncommitted
 * batch, never committed ones.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "db_int.h"

/*
 * Pragmas for bulk loading; see the file comment for the crash argument.
 * A small page cache is deliberate: appending rows needs little, and
 * CREATE INDEX then sorts in file-backed runs instead of one huge
 * in-memory list: 0.8 s instead of 3.5 s per index over 1M rows here.
 */
static const char write_pragmas[] =
	"PRAGMA journal_mode = WAL;"
	"PRAGMA synchronous = NORMAL;"
	"PRAGMA cache_size = -8192;"
	"PRAGMA wal_autocheckpoint = 16384;";

/*
 * Prepare "INSERT INTO requests VALUES (NULL, ?...), ..." for `rows` rows
 * into *st.  @return 0 or -1 with err.
 */
static int prepare_requests(lbt_db *db, int rows, sqlite3_stmt **st, lbt_err *err)
{
	size_t cap = 64 + (size_t)rows * (LBT_DBI_REQ_COLS * 3 + 12), n;
	char *sql = malloc(cap);
	int rc;

	if (sql == NULL)
		return lbt_err_set(err, "out of memory");
	n = (size_t)snprintf(sql, cap, "INSERT INTO requests VALUES ");
	for (int r = 0; r < rows; r++) {
		n += (size_t)snprintf(sql + n, cap - n, r ? ", (NULL" : "(NULL");
		for (int i = 0; i < LBT_DBI_REQ_COLS; i++)
			n += (size_t)snprintf(sql + n, cap - n, ",?");
		n += (size_t)snprintf(sql + n, cap - n, ")");
	}
	rc = lbt_dbi_prepare(db, sql, st, err);
	free(sql);
	return rc;
}

/* Prepare the row INSERTs.  @return 0 or -1 with err. */
static int prepare_inserts(lbt_db *db, lbt_err *err)
{
	if (prepare_requests(db, 1, &db->ins_req, err) < 0 ||
	    prepare_requests(db, LBT_DBI_ROWS, &db->ins_reqs, err) < 0 ||
	    lbt_dbi_prepare(db, "INSERT INTO shapes VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
	    &db->ins_shape, err) < 0 ||
	    lbt_dbi_prepare(db, "INSERT INTO events VALUES (NULL, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
	    &db->ins_ev, err) < 0 ||
	    lbt_dbi_prepare(db, "INSERT INTO addrs VALUES (?, ?, ?, ?)", &db->ins_addr,
	    err) < 0 ||
	    lbt_dbi_prepare(db, "INSERT INTO nets VALUES (?, ?, ?, ?)", &db->ins_net, err) < 0 ||
	    lbt_dbi_prepare(db, "INSERT OR REPLACE INTO raw VALUES (?, ?, ?, ?)",
	    &db->ins_raw, err) < 0)
		return -1;
	return 0;
}

/*
 * Take the writer's lock: an flock(2) on the database file for the whole
 * run (SQLite's own locks are fcntl ones, held per transaction, and do not
 * see it).  Two writers would each resume from the other's committed
 * batches and load the same lines twice.  @return 0 or -1 with err.
 */
static int writer_lock(lbt_db *db, lbt_err *err)
{
	db->lock_fd = open(db->path, O_RDONLY | O_CLOEXEC);
	if (db->lock_fd < 0)
		return lbt_err_at(err, db->path, 0, "%s", strerror(errno));
	if (flock(db->lock_fd, LOCK_EX | LOCK_NB) < 0)
		return lbt_err_at(err, db->path, 0, errno == EWOULDBLOCK ?
		    "another lbt-index is writing this index" : "%s", strerror(errno));
	return 0;
}

/* Open the index for writing; see db.h.  @return the handle or NULL with err. */
lbt_db *lbt_db_open(const char *path, const lbt_db_opts *opts, lbt_err *err)
{
	lbt_db *db = calloc(1, sizeof *db);

	if (db == NULL || (db->path = strdup(path)) == NULL) {
		free(db);
		lbt_err_set(err, "out of memory");
		return NULL;
	}
	db->lock_fd = -1;
	db->opts = *opts;
	if (db->opts.batch == 0)
		db->opts.batch = 200000;
	db->group = (lbt_netgroup)LBT_NETGROUP_INIT;
	db->h = lbt_dbi_open(path, 1, err);
	if (db->h == NULL || writer_lock(db, err) < 0 || lbt_dbi_exec(db->h, path, write_pragmas, err) < 0 ||
	    lbt_dbi_load_caches(db, err) < 0 || prepare_inserts(db, err) < 0 ||
	    (opts->keep_raw && (db->raw = lbt_dbi_raw_new(db->h, err)) == NULL)) {
		db->broken = 1;
		lbt_db_close(db, NULL);
		return NULL;
	}
	return db;
}

/* Free every statement and cache of db (not the handle). */
static void free_caches(lbt_db *db)
{
	lbt_dbi_free_caches(db);
	sqlite3_finalize(db->ins_req);
	sqlite3_finalize(db->ins_reqs);
	sqlite3_finalize(db->ins_shape);
	sqlite3_finalize(db->ins_ev);
	sqlite3_finalize(db->ins_addr);
	sqlite3_finalize(db->ins_net);
	sqlite3_finalize(db->ins_raw);
	lbt_dbi_raw_free(db->raw);
}

/*
 * Commit, create the query indices, checkpoint the WAL and free db.
 * @return 0, or -1 with err.  NULL accepted.
 */
int lbt_db_close(lbt_db *db, lbt_err *err)
{
	int rc = 0;

	if (db == NULL)
		return 0;
	if (db->in_txn && !db->broken)
		rc = lbt_dbi_commit(db, err);
	else if (db->in_txn)
		lbt_dbi_rollback(db);
	if (rc == 0 && !db->broken && db->h != NULL) {
		rc = lbt_dbi_create_indices(db->h, db->path, err);
		if (rc == 0)
			sqlite3_exec(db->h, "PRAGMA optimize; PRAGMA wal_checkpoint(TRUNCATE)",
			    NULL, NULL, NULL);
	}
	free_caches(db);
	sqlite3_close(db->h);
	if (db->lock_fd >= 0)
		close(db->lock_fd);
	free(db->path);
	free(db);
	return rc;
}

/* Begin the writer's transaction if none is open.  @return 0 or -1 with err. */
int lbt_dbi_begin(lbt_db *db, lbt_err *err)
{
	if (db->broken)
		return lbt_err_at(err, db->path, 0, "index unusable after an earlier error");
	if (db->in_txn)
		return 0;
	if (lbt_dbi_exec(db->h, db->path, "BEGIN IMMEDIATE", err) < 0) {
		db->broken = 1;
		return -1;
	}
	db->in_txn = 1;
	return 0;
}

/* Step a bound INSERT and reset it.  @return 0 or -1 with err (db broken). */
static int step_insert(lbt_db *db, sqlite3_stmt *st, lbt_err *err)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		db->broken = 1;
		return lbt_dbi_fail(db->h, db->path, "insert", err);
	}
	return 0;
}

/* Bind buffered row r at parameters first..first+LBT_DBI_REQ_COLS-1 of st. */
static void bind_row(sqlite3_stmt *st, int first, const struct lbt_dbi_row *r)
{
	for (int c = 0; c < LBT_DBI_REQ_COLS; c++) {
		if (r->null >> c & 1)
			sqlite3_bind_null(st, first + c);
		else
			sqlite3_bind_int64(st, first + c, r->v[c]);
	}
}

/*
 * Insert the buffered rows: a full buffer with the multi-row INSERT, a
 * partial one row by row.  @return 0 or -1 with err (db broken).
 */
static int flush_rows(lbt_db *db, lbt_err *err)
{
	int n = db->nrows;

	db->nrows = 0;
	if (n == LBT_DBI_ROWS) {
		for (int i = 0; i < n; i++)
			bind_row(db->ins_reqs, 1 + i * LBT_DBI_REQ_COLS, &db->rows[i]);
		return step_insert(db, db->ins_reqs, err);
	}
	for (int i = 0; i < n; i++) {
		bind_row(db->ins_req, 1, &db->rows[i]);
		if (step_insert(db, db->ins_req, err) < 0)
			return -1;
	}
	return 0;
}

/* Store buffered rows and queued raw lines, and commit.  @return 0 or -1 with err (db broken). */
int lbt_dbi_commit(lbt_db *db, lbt_err *err)
{
	if (!db->in_txn)
		return 0;
	if (flush_rows(db, err) < 0 ||
	    (db->raw != NULL && lbt_dbi_raw_flush(db->raw, db->h, db->ins_raw, err) < 0)) {
		db->broken = 1;
		return -1;
	}
	db->in_txn = 0;
	if (lbt_dbi_exec(db->h, db->path, "COMMIT", err) < 0) {
		db->broken = 1;
		sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	return 0;
}

/*
 * Roll the open transaction back, dropping the buffered rows; the time
 * base is read again before the next load (it may have been set in the
 * transaction).  Ids that the caches gave out in the transaction are not
 * forgotten: the caller marks the handle broken unless the transaction
 * added no row.
 */
void lbt_dbi_rollback(lbt_db *db)
{
	if (db->in_txn)
		sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
	db->in_txn = 0;
	db->nrows = 0;
	db->have_base = 0;
}

/* Read the time base when it is not known.  @return 0 or -1 with err. */
int lbt_dbi_load_base(lbt_db *db, lbt_err *err)
{
	int rc;

	if (db->have_base)
		return 0;
	if ((rc = lbt_dbi_time_base(db->h, db->path, &db->time_base, err)) < 0)
		return -1;
	db->have_base = rc;
	return 0;
}

/* ---- storing rows (the writer's thread) ------------------------------- */

/* Insert shape k as id.  @return 0 or -1 with err. */
static int insert_shape(lbt_db *db, const struct lbt_dbi_shape *k, int64_t id, lbt_err *err)
{
	sqlite3_stmt *st = db->ins_shape;

	sqlite3_bind_int64(st, 1, id);
	for (int i = 0; i < LBT_DBI_NSHAPE; i++) {
		if (k->id[i] > 0)
			sqlite3_bind_int64(st, 2 + i, k->id[i]);
		else
			sqlite3_bind_null(st, 2 + i);
	}
	sqlite3_bind_int64(st, 2 + LBT_DBI_NSHAPE, k->clock);
	if (k->tier > 0)
		sqlite3_bind_int64(st, 3 + LBT_DBI_NSHAPE, k->tier);
	else
		sqlite3_bind_null(st, 3 + LBT_DBI_NSHAPE);
	return step_insert(db, st, err);
}

/* Insert an address or network entry e with statement st.  @return 0 or -1 */
static int insert_addr(lbt_db *db, sqlite3_stmt *st, const struct lbt_dbi_new *e,
    const char *text, lbt_err *err)
{
	sqlite3_bind_int64(st, 1, e->id);
	sqlite3_bind_blob(st, 2, e->b, 16, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, e->x);
	sqlite3_bind_text(st, 4, text, (int)e->len, SQLITE_STATIC);
	return step_insert(db, st, err);
}

/* Insert entry e of news; see db_int.h.  @return 0 or -1 with err (db broken). */
int lbt_dbi_store_new(lbt_db *db, const struct lbt_dbi_news *news, const struct lbt_dbi_new *e,
    lbt_err *err)
{
	const char *text = e->len ? news->text + e->off : "";
	char sql[96];

	switch (e->kind) {
	case LBT_DBI_NEW_DICT:
		sqlite3_bind_int64(db->dict[e->dict].ins, 1, e->id);
		sqlite3_bind_text(db->dict[e->dict].ins, 2, text, (int)e->len, SQLITE_STATIC);
		return step_insert(db, db->dict[e->dict].ins, err);
	case LBT_DBI_NEW_ADDR:
		return insert_addr(db, db->ins_addr, e, text, err);
	case LBT_DBI_NEW_NET:
		return insert_addr(db, db->ins_net, e, text, err);
	case LBT_DBI_NEW_SHAPE:
		return insert_shape(db, &e->shape, e->id, err);
	case LBT_DBI_NEW_BASE:
		snprintf(sql, sizeof sql, "INSERT INTO meta VALUES ('time_base', %lld)",
		    (long long)e->id);
		if (lbt_dbi_exec(db->h, db->path, sql, err) == 0)
			return 0;
		break;
	}
	db->broken = 1;
	return -1;
}

/* Insert an event row (its msg present when msg.p is not NULL). @return 0 or -1 */
static int store_event(lbt_db *db, const struct lbt_dbi_row *r, lbt_str msg, lbt_err *err)
{
	sqlite3_stmt *st = db->ins_ev;

	for (int c = 0; c < 8; c++) {
		if (r->null >> c & 1)
			sqlite3_bind_null(st, 1 + c);
		else
			sqlite3_bind_int64(st, 1 + c, r->v[c]);
	}
	if (msg.p != NULL)
		sqlite3_bind_text(st, 9, msg.n ? msg.p : "", (int)msg.n, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 9);
	return step_insert(db, st, err);
}

/* Store a built row and its raw line; see db_int.h.  @return 0 or -1 with err. */
int lbt_dbi_store(lbt_db *db, const struct lbt_dbi_row *row, int event, lbt_str msg,
    const char *raw, size_t raw_len, lbt_err *err)
{
	int rc = 0;

	if (event) {
		rc = store_event(db, row, msg, err);
	} else {
		db->rows[db->nrows] = *row;
		if (++db->nrows == LBT_DBI_ROWS)
			rc = flush_rows(db, err);
	}
	if (rc == 0 && db->raw != NULL && raw != NULL)
		rc = lbt_dbi_raw_add(db->raw, db->h, db->ins_raw, row->v[event ? 2 : 1],
		    (uint64_t)row->v[event ? 3 : 2], raw, raw_len, err);
	if (rc < 0)
		db->broken = 1;
	return rc;
}
