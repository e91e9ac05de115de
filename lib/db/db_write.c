/*
 * db_write.c - bulk load of records into an lbt index (lbt-index): the
 * connection (open, writer's lock, pragmas, prepared INSERTs, close), the
 * transactions, and storing what lbt_dbi_build (db_dict.c) made.
 *
 * Everything that comes in numbers goes in by batches, one INSERT ...
 * SELECT FROM lbt_batch (db_vtab.c) per table and batch: the new
 * dictionary entries, addresses, networks and shapes of each batch of the
 * reading thread, the requests of each run (db_run.c).  SQLite's fixed cost
 * of a statement execution (about 0.8 µs here) is then paid per batch, not
 * per row; docs/index-design.md has the numbers.  New entries are inserted
 * in the transaction of the rows that use them, so a killed run leaves no
 * row pointing to a missing id.  The journal is WAL with
 * synchronous=NORMAL: a killed process (or a crashed machine) loses at most
 * the uncommitted batch, never committed ones.
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
 * Appending rows needs a small page cache only.
 */
static const char write_pragmas[] =
	"PRAGMA journal_mode = WAL;"
	"PRAGMA synchronous = NORMAL;"
	"PRAGMA cache_size = -8192;"
	"PRAGMA wal_autocheckpoint = 16384;";

/* Prepare the INSERTs.  @return 0 or -1 with err. */
static int prepare_inserts(lbt_db *db, lbt_err *err)
{
	if (lbt_dbi_prepare(db, "INSERT INTO shapes SELECT c0, c1, c2, c3, c4, c5, c6, c7,"
	    " c8, c9, c10, c11 FROM lbt_batch(?1)", &db->ins_shape, err) < 0 ||
	    lbt_dbi_prepare(db, "INSERT INTO addrs (id, net_id, text) SELECT c0, c1, c2 FROM"
	    " lbt_batch(?1)", &db->ins_addr, err) < 0 ||
	    lbt_dbi_prepare(db, "INSERT INTO nets (id, net, bits, text) SELECT c0, c1, c2, c3"
	    " FROM lbt_batch(?1)", &db->ins_net, err) < 0 ||
	    lbt_dbi_prepare(db, "INSERT INTO events VALUES (NULL, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
	    &db->ins_ev, err) < 0 ||
	    lbt_dbi_prepare(db, "INSERT OR REPLACE INTO raw VALUES (?, ?, ?, ?)",
	    &db->ins_raw, err) < 0)
		return -1;
	return 0;
}

/*
 * Take the writer's lock: an flock(2) on the database file for the whole
 * run (SQLite's own locks are fcntl ones, held per transaction, and do not
 * see it).  Two writers would each resume from the other's committed
 * batches and load the same lines twice, or migrate a new index twice: the
 * lock is taken before SQLite opens the file (an empty file is a new
 * database to SQLite).  @return 0 or -1 with err.
 */
static int writer_lock(lbt_db *db, lbt_err *err)
{
	db->lock_fd = open(db->path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
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
	if (writer_lock(db, err) < 0 || (db->h = lbt_dbi_open(path, 1, err)) == NULL ||
	    lbt_dbi_exec(db->h, path, write_pragmas, err) < 0 ||
	    lbt_dbi_store_init(&db->store, db->h, db->path, err) < 0 ||
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
	sqlite3_finalize(db->ins_shape);
	sqlite3_finalize(db->ins_ev);
	sqlite3_finalize(db->ins_addr);
	sqlite3_finalize(db->ins_net);
	sqlite3_finalize(db->ins_raw);
	lbt_dbi_raw_free(db->raw);
	lbt_dbi_store_free(&db->store);
	lbt_dbi_news_free(&db->news);
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

/* Store the run and queued raw lines, and commit.  @return 0 or -1 with err (db broken). */
int lbt_dbi_commit(lbt_db *db, lbt_err *err)
{
	if (!db->in_txn)
		return 0;
	if (lbt_dbi_run_flush(&db->store, err) < 0 ||
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
 * Roll the open transaction back, dropping the run; the time base and the
 * next request id are read again (the transaction may have set them).  Ids that the caches gave out in the transaction are not
 * forgotten: the caller marks the handle broken unless the transaction
 * added no row.
 */
void lbt_dbi_rollback(lbt_db *db)
{
	if (db->in_txn)
		sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
	db->in_txn = 0;
	lbt_dbi_run_drop(&db->store);
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

/* The new entries of one table: positions in the news list. */
struct group {
	const struct lbt_dbi_news *news;
	size_t *at;
	size_t n;
};

/* Text of entry e of news (its arena), "" when empty. */
static const char *news_text(const struct lbt_dbi_news *news, const struct lbt_dbi_new *e)
{
	return e->len ? news->text + e->off : "";
}

/* Result of a shape id (0: NULL). */
static void result_nz(sqlite3_context *out, int64_t v)
{
	if (v != 0)
		sqlite3_result_int64(out, v);
}

/* Column col of entry i of a group of dictionary strings: id name. */
static void dict_column(void *ctx, size_t i, int col, sqlite3_context *out)
{
	const struct group *g = ctx;
	const struct lbt_dbi_new *e = &g->news->v[g->at[i]];

	if (col == 0)
		sqlite3_result_int64(out, e->id);
	else
		sqlite3_result_text(out, news_text(g->news, e), (int)e->len, SQLITE_STATIC);
}

/* Column col of entry i of addresses (id net_id text) or networks (id net bits text). */
static void addr_column(void *ctx, size_t i, int col, sqlite3_context *out)
{
	const struct group *g = ctx;
	const struct lbt_dbi_new *e = &g->news->v[g->at[i]];
	int net = e->kind == LBT_DBI_NEW_NET;

	if (col == 0)
		sqlite3_result_int64(out, e->id);
	else if (net && col == 1)
		sqlite3_result_blob(out, e->b, 16, SQLITE_STATIC);
	else if (col == 1 + net)
		sqlite3_result_int64(out, e->x);
	else
		sqlite3_result_text(out, news_text(g->news, e), (int)e->len, SQLITE_STATIC);
}

/* Column col of entry i of shapes: id file_id lb ... term clock status tier. */
static void shape_column(void *ctx, size_t i, int col, sqlite3_context *out)
{
	const struct group *g = ctx;
	const struct lbt_dbi_shape *k = &g->news->v[g->at[i]].shape;

	if (col == 0)
		sqlite3_result_int64(out, g->news->v[g->at[i]].id);
	else if (col == 1)
		sqlite3_result_int64(out, k->file_id);
	else if (col < 2 + LBT_DBI_NSHAPE)
		result_nz(out, k->id[col - 2]);
	else if (col == 2 + LBT_DBI_NSHAPE)
		sqlite3_result_int64(out, k->clock);
	else if (col == 3 + LBT_DBI_NSHAPE && k->status != LBT_DBI_NO_STATUS)
		sqlite3_result_int64(out, k->status);
	else if (col == 4 + LBT_DBI_NSHAPE)
		result_nz(out, k->tier);
}

/*
 * Insert the entries of news of one kind (and dictionary) with st, the
 * columns given by fn.  at: scratch of news->n positions.  @return 0 or -1.
 */
static int store_group(lbt_db *db, const struct lbt_dbi_news *news, size_t *at,
    enum lbt_dbi_new_kind kind, int dict, sqlite3_stmt *st,
    void (*fn)(void *, size_t, int, sqlite3_context *), lbt_err *err)
{
	struct group g = { news, at, 0 };
	struct lbt_dbi_vbatch b = { 0, &g, fn };

	for (size_t i = 0; i < news->n; i++)
		if (news->v[i].kind == kind && (kind != LBT_DBI_NEW_DICT || news->v[i].dict == dict))
			at[g.n++] = i;
	b.n = g.n;
	return lbt_dbi_vtab_insert(db->h, db->path, st, &b, err);
}

/* Insert the time base of news, if it has one.  @return 0 or -1 with err. */
static int store_base(lbt_db *db, const struct lbt_dbi_news *news, lbt_err *err)
{
	char sql[96];

	for (size_t i = 0; i < news->n; i++) {
		if (news->v[i].kind != LBT_DBI_NEW_BASE)
			continue;
		snprintf(sql, sizeof sql, "INSERT INTO meta VALUES ('time_base', %lld)",
		    (long long)news->v[i].id);
		return lbt_dbi_exec(db->h, db->path, sql, err);
	}
	return 0;
}

/* Insert every entry of news, a statement per table; see db_int.h.  @return 0 or -1 */
int lbt_dbi_store_news(lbt_db *db, const struct lbt_dbi_news *news, lbt_err *err)
{
	size_t *at;
	int rc = 0;

	if (news->n == 0)
		return 0;
	if ((at = malloc(news->n * sizeof *at)) == NULL)
		return lbt_err_set(err, "out of memory");
	for (int d = 0; rc == 0 && d < LBT_DBI_NDICT; d++)
		rc = store_group(db, news, at, LBT_DBI_NEW_DICT, d, db->dict[d].ins, dict_column,
		    err);
	if (rc == 0)
		rc = store_group(db, news, at, LBT_DBI_NEW_NET, 0, db->ins_net, addr_column, err);
	if (rc == 0)
		rc = store_group(db, news, at, LBT_DBI_NEW_ADDR, 0, db->ins_addr, addr_column, err);
	if (rc == 0)
		rc = store_group(db, news, at, LBT_DBI_NEW_SHAPE, 0, db->ins_shape, shape_column,
		    err);
	if (rc == 0)
		rc = store_base(db, news, err);
	free(at);
	if (rc < 0)
		db->broken = 1;
	return rc;
}

/* Bind v at parameter i of st, NULL when id is 0. */
static void bind_nz(sqlite3_stmt *st, int i, int64_t v)
{
	if (v != 0)
		sqlite3_bind_int64(st, i, v);
	else
		sqlite3_bind_null(st, i);
}

/* Store an event of file_id and its raw line; see db_int.h.  @return 0 or -1 with err. */
int lbt_dbi_store_event(lbt_db *db, int64_t file_id, const struct lbt_dbi_event *ev,
    lbt_str msg, const char *raw, size_t raw_len, lbt_err *err)
{
	sqlite3_stmt *st = db->ins_ev;
	int rc;

	if (ev->timed) {
		sqlite3_bind_int64(st, 1, ev->time);
		sqlite3_bind_int64(st, 2, ev->clock);
	} else {
		sqlite3_bind_null(st, 1);
		sqlite3_bind_null(st, 2);
	}
	sqlite3_bind_int64(st, 3, file_id);
	sqlite3_bind_int64(st, 4, (int64_t)ev->line);
	for (int i = 0; i < 4; i++)
		bind_nz(st, 5 + i, ev->id[i]);
	if (msg.p != NULL)
		sqlite3_bind_text(st, 9, msg.n ? msg.p : "", (int)msg.n, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 9);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		rc = lbt_dbi_fail(db->h, db->path, "insert", err);
	else
		rc = 0;
	if (rc == 0 && db->raw != NULL && raw != NULL)
		rc = lbt_dbi_raw_add(db->raw, db->h, db->ins_raw, file_id, ev->line, raw, raw_len,
		    err);
	if (rc < 0)
		db->broken = 1;
	return rc;
}

/* Store a request of file_id and its raw line; see db_int.h.  @return 0 or -1 with err. */
int lbt_dbi_store(lbt_db *db, int64_t file_id, const struct lbt_dbi_row *row,
    const char *raw, size_t raw_len, lbt_err *err)
{
	int rc = lbt_dbi_run_add(&db->store, file_id, row, err);

	if (rc == 0 && db->raw != NULL && raw != NULL)
		rc = lbt_dbi_raw_add(db->raw, db->h, db->ins_raw, file_id, row->line, raw, raw_len,
		    err);
	if (rc < 0)
		db->broken = 1;
	return rc;
}
