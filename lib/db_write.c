/*
 * db_write.c - bulk load of records into an lbt index (lbt-index).
 *
 * Two halves.  Building (lbt_dbi_build, on lbt-index's reading thread):
 * strings and addresses become ids through in-memory caches (lbt_hmap)
 * loaded from the dictionary tables at open, so a row costs hash look-ups,
 * and a repeated value (the same frontend as the previous row) one memcmp;
 * ids given out for the first time are listed for the writer.  Storing
 * (the caller's thread): prepared INSERTs with bound integers; request
 * rows are buffered and inserted LBT_DBI_ROWS at a time by one multi-row
 * INSERT, so SQLite's fixed cost of a statement execution (about 0.8 µs
 * here) is paid once per 32 rows.  docs/index-design.md has the numbers.
 * A new dictionary entry is inserted just before the first row that uses
 * it, in the same transaction, so a killed run leaves no row pointing to a
 * missing id.  The journal is WAL with synchronous=NORMAL: a killed
 * process (or a crashed machine) loses at most the uncommitted batch,
 * never committed ones.
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

/* Value of a dictionary cache: the id, and the map's copy of the key. */
struct dict_val {
	int64_t id;
	const char *key;
};

/* Value of the address cache. */
struct addr_ids {
	int64_t addr_id;
	int64_t net_id;
};

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
 * lbt_hmap_put, and when the key is new and `with_key` says that the value
 * is a struct dict_val, point its `key` at the map's copy (stable for the
 * life of the map).  @return the value or NULL (out of memory).
 */
static void *put_key(lbt_hmap *m, const void *k, size_t n, int with_key, int *created)
{
	int c = 0;
	void *v = lbt_hmap_put(m, k, n, &c);

	if (v != NULL && c && with_key) {
		lbt_hmap_entry e;

		lbt_hmap_at(m, lbt_hmap_count(m) - 1, &e);
		((struct dict_val *)v)->key = e.key;
	}
	if (created != NULL)
		*created = c;
	return v;
}

/* Prepare sql on db into *st.  @return 0 or -1 with err. */
static int prepare(lbt_db *db, const char *sql, sqlite3_stmt **st, lbt_err *err)
{
	if (sqlite3_prepare_v3(db->h, sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL) != SQLITE_OK)
		return lbt_dbi_fail(db->h, db->path, "prepare", err);
	return 0;
}

/*
 * Load the rows (id, key[, net_id]) of `sql` into map as key -> int64 id
 * (and the net_id at val_off when val_off > 0; with_key for dictionary
 * values) and set *next to max(id) + 1.  @return 0 or -1.
 */
static int load_map(lbt_db *db, const char *sql, lbt_hmap *map, size_t val_off,
    int with_key, int64_t *next, lbt_err *err)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if (prepare(db, sql, &st, err) < 0)
		return -1;
	*next = 1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		const void *k = sqlite3_column_blob(st, 1);
		size_t n = (size_t)sqlite3_column_bytes(st, 1);
		char *v = put_key(map, k ? k : "", n, val_off == 0 && with_key, NULL);

		if (v == NULL) {
			sqlite3_finalize(st);
			return lbt_err_set(err, "out of memory loading dictionaries");
		}
		memcpy(v, &id, sizeof id);
		if (val_off > 0) {
			int64_t net = sqlite3_column_int64(st, 2);

			memcpy(v + val_off, &net, sizeof net);
		}
		if (id >= *next)
			*next = id + 1;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return lbt_dbi_fail(db->h, db->path, "loading dictionaries", err);
	return 0;
}

/*
 * Load the shapes table into db->shapes (key: struct lbt_dbi_shape, NULL
 * ids as 0) and set db->next_shape.  @return 0 or -1 with err.
 */
static int load_shapes(lbt_db *db, lbt_err *err)
{
	sqlite3_stmt *st = NULL;
	int rc;

	db->next_shape = 1;
	if ((db->shapes = lbt_hmap_new(sizeof(int64_t))) == NULL)
		return lbt_err_set(err, "out of memory");
	if (prepare(db, "SELECT id, frontend_id, backend_id, server_id, method_id,"
	    " version_id, term_id, clock FROM shapes", &st, err) < 0)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct lbt_dbi_shape k;
		int64_t id = sqlite3_column_int64(st, 0), *v;

		memset(&k, 0, sizeof k);
		for (int i = 0; i < LBT_DBI_NSHAPE; i++)
			k.id[i] = sqlite3_column_int64(st, 1 + i);
		k.clock = sqlite3_column_int64(st, 1 + LBT_DBI_NSHAPE);
		if ((v = lbt_hmap_put(db->shapes, &k, sizeof k, NULL)) == NULL)
			break;
		*v = id;
		if (id >= db->next_shape)
			db->next_shape = id + 1;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return rc == SQLITE_ROW ? lbt_err_set(err, "out of memory") :
		    lbt_dbi_fail(db->h, db->path, "loading shapes", err);
	return 0;
}

/* Create and load the caches of every dictionary, addrs and nets. @return 0 or -1 */
static int load_caches(lbt_db *db, lbt_err *err)
{
	char sql[128];

	for (int i = 0; i < LBT_DBI_NDICT; i++) {
		struct lbt_dbi_cache *c = &db->dict[i];

		c->map = lbt_hmap_new(sizeof(struct dict_val));
		if (c->map == NULL)
			return lbt_err_set(err, "out of memory");
		snprintf(sql, sizeof sql, "SELECT id, name FROM %s", lbt_dbi_dicts[i].table);
		if (load_map(db, sql, c->map, 0, 1, &c->next_id, err) < 0)
			return -1;
		snprintf(sql, sizeof sql, "INSERT INTO %s (id, name) VALUES (?, ?)",
		    lbt_dbi_dicts[i].table);
		if (prepare(db, sql, &c->ins, err) < 0)
			return -1;
	}
	db->addrs = lbt_hmap_new(sizeof(struct addr_ids));
	db->nets = lbt_hmap_new(sizeof(int64_t));
	if (db->addrs == NULL || db->nets == NULL)
		return lbt_err_set(err, "out of memory");
	if (load_map(db, "SELECT id, addr, net_id FROM addrs", db->addrs,
	    offsetof(struct addr_ids, net_id), 0, &db->next_addr, err) < 0 ||
	    load_map(db, "SELECT id, net FROM nets", db->nets, 0, 0, &db->next_net, err) < 0)
		return -1;
	return load_shapes(db, err);
}

/*
 * Offsets of the members behind lbt_dbi_dicts and lbt_dbi_cols, so that
 * binding a row does not go through the field table 31 times (bytes, the
 * only int64 integer, is read directly).
 */
static void find_members(lbt_db *db)
{
	lbt_rec r;

	for (int i = 0; i < LBT_DBI_NDICT; i++)
		db->str_off[i] = (size_t)((char *)lbt_rec_str(&r, lbt_dbi_dicts[i].field) -
		    (char *)&r);
	for (int i = 0; i < LBT_DBI_NCOL; i++) {
		int32_t *m = lbt_rec_i32(&r, lbt_dbi_cols[i].field);

		db->col_off[i] = m ? (size_t)((char *)m - (char *)&r) : 0;
	}
}

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
	rc = prepare(db, sql, st, err);
	free(sql);
	return rc;
}

/* Prepare the row INSERTs.  @return 0 or -1 with err. */
static int prepare_inserts(lbt_db *db, lbt_err *err)
{
	if (prepare_requests(db, 1, &db->ins_req, err) < 0 ||
	    prepare_requests(db, LBT_DBI_ROWS, &db->ins_reqs, err) < 0 ||
	    prepare(db, "INSERT INTO shapes VALUES (?, ?, ?, ?, ?, ?, ?, ?)", &db->ins_shape,
	    err) < 0 ||
	    prepare(db, "INSERT INTO events VALUES (NULL, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
	    &db->ins_ev, err) < 0 ||
	    prepare(db, "INSERT INTO addrs VALUES (?, ?, ?, ?)", &db->ins_addr, err) < 0 ||
	    prepare(db, "INSERT INTO nets VALUES (?, ?, ?, ?)", &db->ins_net, err) < 0 ||
	    prepare(db, "INSERT OR REPLACE INTO raw VALUES (?, ?, ?, ?)", &db->ins_raw, err) < 0)
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
	find_members(db);
	db->h = lbt_dbi_open(path, 1, err);
	if (db->h == NULL || writer_lock(db, err) < 0 || lbt_dbi_exec(db->h, path, write_pragmas, err) < 0 ||
	    load_caches(db, err) < 0 || prepare_inserts(db, err) < 0 ||
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
	for (int i = 0; i < LBT_DBI_NDICT; i++) {
		sqlite3_finalize(db->dict[i].ins);
		lbt_hmap_free(db->dict[i].map);
	}
	lbt_hmap_free(db->addrs);
	lbt_hmap_free(db->nets);
	lbt_hmap_free(db->shapes);
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

/* ---- building rows (the reading thread) -------------------------------- */

/* Empty n, keeping its memory. */
void lbt_dbi_news_clear(struct lbt_dbi_news *n)
{
	n->n = 0;
	n->text_n = 0;
}

/* Free n's memory; NULL accepted. */
void lbt_dbi_news_free(struct lbt_dbi_news *n)
{
	if (n == NULL)
		return;
	free(n->v);
	free(n->text);
}

/*
 * Append an entry of `kind` with id and text p[0..len) to n.
 * @return it (other members zero), or NULL when out of memory.
 */
static struct lbt_dbi_new *news_add(struct lbt_dbi_news *n, enum lbt_dbi_new_kind kind,
    int64_t id, const char *p, size_t len)
{
	struct lbt_dbi_new *e;

	if (n->n == n->cap) {
		size_t cap = n->cap ? n->cap * 2 : 256;
		struct lbt_dbi_new *v = realloc(n->v, cap * sizeof *v);

		if (v == NULL)
			return NULL;
		n->v = v;
		n->cap = cap;
	}
	if (n->text_n + len > n->text_cap) {
		size_t cap = n->text_cap ? n->text_cap : 16384;
		char *t;

		while (cap < n->text_n + len)
			cap *= 2;
		if ((t = realloc(n->text, cap)) == NULL)
			return NULL;
		n->text = t;
		n->text_cap = cap;
	}
	e = &n->v[n->n++];
	memset(e, 0, sizeof *e);
	e->kind = kind;
	e->id = id;
	e->off = n->text_n;
	e->len = len;
	e->at = n->at;
	if (len > 0)
		memcpy(n->text + n->text_n, p, len);
	n->text_n += len;
	return e;
}

/*
 * Id of s in dictionary i, given out (and queued in news) when new.  The
 * previous look-up is remembered (the map's copy of its key), so runs of
 * the same value cost a memcmp.  @return the id (> 0), or -1 (out of memory).
 */
static int64_t dict_id(lbt_db *db, int i, lbt_str s, struct lbt_dbi_news *news)
{
	struct lbt_dbi_cache *c = &db->dict[i];
	struct dict_val *v;
	struct lbt_dbi_new *e;
	int created;

	if (c->last != NULL && s.n == c->last_n && memcmp(s.p, c->last, s.n) == 0)
		return c->last_id;
	v = put_key(c->map, s.n ? s.p : "", s.n, 1, &created);
	if (v == NULL)
		return -1;
	if (created) {
		v->id = c->next_id++;
		if ((e = news_add(news, LBT_DBI_NEW_DICT, v->id, s.p, s.n)) == NULL)
			return -1;
		e->dict = i;
	}
	c->last = v->key;
	c->last_n = s.n;
	c->last_id = v->id;
	return v->id;
}

/* Id of the network of a (given out when new).  @return id, or -1 (out of memory). */
static int64_t net_id(lbt_db *db, const lbt_addr *a, struct lbt_dbi_news *news)
{
	lbt_addr net;
	int bits, created;
	int64_t *v;
	struct lbt_dbi_new *e;
	char text[LBT_ADDR_STRLEN];

	lbt_netgroup_of(&db->group, a, &net, &bits);
	v = lbt_hmap_put(db->nets, net.b, 16, &created);
	if (v == NULL)
		return -1;
	if (!created)
		return *v;
	*v = db->next_net++;
	lbt_netgroup_format(&db->group, &net, text, sizeof text);
	if ((e = news_add(news, LBT_DBI_NEW_NET, *v, text, strlen(text))) == NULL)
		return -1;
	e->x = bits;
	memcpy(e->b, net.b, 16);
	return *v;
}

/* Ids of the address a and its network (given out when new).  @return 0 or -1 */
static int addr_ids(lbt_db *db, const lbt_addr *a, struct addr_ids *out,
    struct lbt_dbi_news *news)
{
	struct addr_ids *v;
	struct lbt_dbi_new *e;
	int created;
	char text[LBT_ADDR_STRLEN];

	v = lbt_hmap_put(db->addrs, a->b, 16, &created);
	if (v == NULL)
		return -1;
	if (created) {
		if ((v->net_id = net_id(db, a, news)) < 0)
			return -1;
		v->addr_id = db->next_addr++;
		lbt_addr_format(a, text, sizeof text);
		if ((e = news_add(news, LBT_DBI_NEW_ADDR, v->addr_id, text, strlen(text))) == NULL)
			return -1;
		e->x = v->net_id;
		memcpy(e->b, a->b, 16);
	}
	*out = *v;
	return 0;
}

/*
 * Dictionary id of string field i of rec: *id set (0 when absent).
 * @return 0 or -1 (out of memory).
 */
static int field_id(lbt_db *db, int i, const lbt_rec *rec, int64_t *id,
    struct lbt_dbi_news *news)
{
	*id = 0;
	if (!(rec->have & LBT_BIT(lbt_dbi_dicts[i].field)))
		return 0;
	*id = dict_id(db, i, *(const lbt_str *)((const char *)rec + db->str_off[i]), news);
	return *id < 0 ? -1 : 0;
}

/*
 * The shape id of rec (its frontend, backend, server, method, version,
 * term and clock), given out when new; the previous row's shape is
 * remembered.  @return the id (> 0), or -1 (out of memory).
 */
static int64_t shape_id(lbt_db *db, const lbt_rec *rec, struct lbt_dbi_news *news)
{
	struct lbt_dbi_shape k;
	struct lbt_dbi_new *e;
	int64_t *v;
	int created;

	memset(&k, 0, sizeof k);
	for (int i = 0; i < LBT_DBI_NSHAPE; i++)
		if (field_id(db, lbt_dbi_shape_dicts[i], rec, &k.id[i], news) < 0)
			return -1;
	k.clock = (rec->have & LBT_BIT(LBT_F_TIME)) ? (int64_t)rec->clock : 0;
	if (db->last_shape_id > 0 && memcmp(&k, &db->last_shape, sizeof k) == 0)
		return db->last_shape_id;
	if ((v = lbt_hmap_put(db->shapes, &k, sizeof k, &created)) == NULL)
		return -1;
	if (created) {
		*v = db->next_shape++;
		if ((e = news_add(news, LBT_DBI_NEW_SHAPE, *v, NULL, 0)) == NULL)
			return -1;
		e->shape = k;
	}
	db->last_shape = k;
	db->last_shape_id = *v;
	return *v;
}

/*
 * The time t relative to the index's time base, which is set (to the
 * first whole UTC day at or before t, queued in news) with the first timed
 * row of an index that has none.  @return 0 or -1 (out of memory).
 */
static int rel_time(lbt_db *db, int64_t t, int64_t *rel, struct lbt_dbi_news *news)
{
	static const int64_t day = 86400000000LL;

	if (!db->have_base) {
		db->time_base = (t >= 0 ? t : t - (day - 1)) / day * day;
		if (news_add(news, LBT_DBI_NEW_BASE, db->time_base, NULL, 0) == NULL)
			return -1;
		db->have_base = 1;
	}
	*rel = t - db->time_base;
	return 0;
}

/* Set value c of row r, or NULL when `present` is false. */
static void row_set(struct lbt_dbi_row *r, int c, int present, int64_t v)
{
	if (present)
		r->v[c] = v;
	else
		r->null |= (uint64_t)1 << c;
}

/* Fill the head of row r (time file line addr net shape).  @return 0 or -1. */
static int row_head(lbt_db *db, struct lbt_dbi_row *r, int64_t file_id, const lbt_rec *rec,
    struct lbt_dbi_news *news)
{
	struct addr_ids ids = { 0, 0 };
	int timed = (rec->have & LBT_BIT(LBT_F_TIME)) != 0;
	int client = (rec->have & LBT_BIT(LBT_F_CLIENT)) && rec->client.family != 0;
	int64_t t = 0, shape;

	if (timed && rel_time(db, rec->time_us, &t, news) < 0)
		return -1;
	if (client && addr_ids(db, &rec->client, &ids, news) < 0)
		return -1;
	if ((shape = shape_id(db, rec, news)) < 0)
		return -1;
	row_set(r, 0, timed, t);
	row_set(r, 1, 1, file_id);
	row_set(r, 2, 1, (int64_t)rec->line);
	row_set(r, 3, client, ids.addr_id);
	row_set(r, 4, client, ids.net_id);
	row_set(r, 5, 1, shape);
	return 0;
}

/* The row of a request.  @return 0 or -1 (out of memory). */
static int build_request(lbt_db *db, int64_t file_id, const lbt_rec *rec,
    struct lbt_dbi_row *r, struct lbt_dbi_news *news)
{
	if (row_head(db, r, file_id, rec, news) < 0)
		return -1;
	for (int i = 0; i < LBT_DBI_NCOL; i++) {
		const struct lbt_dbi_col *col = &lbt_dbi_cols[i];
		int c = LBT_DBI_REQ_FIXED + i, have = (rec->have & LBT_BIT(col->field)) != 0;
		int64_t id;

		if (col->dict >= 0) {
			if (field_id(db, col->dict, rec, &id, news) < 0)
				return -1;
			row_set(r, c, have, id);
		} else if (col->field == LBT_F_BYTES) {
			row_set(r, c, have, rec->bytes);
		} else {
			row_set(r, c, have, *(const int32_t *)((const char *)rec + db->col_off[i]));
		}
	}
	return 0;
}

/* The row of an event: time clock file line lb frontend backend server. @return 0/-1 */
static int build_event(lbt_db *db, int64_t file_id, const lbt_rec *rec,
    struct lbt_dbi_row *r, struct lbt_dbi_news *news)
{
	static const int dicts[4] = { 0, 1, 2, 3 };   /* lb frontend backend server */
	int timed = (rec->have & LBT_BIT(LBT_F_TIME)) != 0;
	int64_t t = 0, id;

	if (timed && rel_time(db, rec->time_us, &t, news) < 0)
		return -1;
	row_set(r, 0, timed, t);
	row_set(r, 1, timed, (int64_t)rec->clock);
	row_set(r, 2, 1, file_id);
	row_set(r, 3, 1, (int64_t)rec->line);
	for (int i = 0; i < 4; i++) {
		if (field_id(db, dicts[i], rec, &id, news) < 0)
			return -1;
		row_set(r, 4 + i, id > 0, id);
	}
	return 0;
}

/* Build the row of rec; see db_int.h.  @return 0 or -1 (out of memory). */
int lbt_dbi_build(lbt_db *db, int64_t file_id, const lbt_rec *rec, struct lbt_dbi_row *row,
    struct lbt_dbi_news *news)
{
	row->null = 0;
	return rec->kind == LBT_KIND_EVENT ? build_event(db, file_id, rec, row, news) :
	    build_request(db, file_id, rec, row, news);
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
