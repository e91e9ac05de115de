/*
 * db_write.c - bulk load of records into an lbt index (lbt-index).
 *
 * One prepared INSERT per table with bound integers; strings and addresses
 * become ids through in-memory caches (lbt_hmap) loaded from the dictionary
 * tables at open, so a row costs hash look-ups and one sqlite3_step, and a
 * repeated value (the same frontend as the previous row) costs one memcmp.
 * New dictionary entries are inserted in the same transaction as the rows
 * that use them, so a killed run leaves no orphan ids behind.  The journal
 * is WAL with synchronous=NORMAL: a killed process (or a crashed machine)
 * loses at most the uncommitted batch, never committed ones.
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
	return 0;
}

/*
 * Offsets of the members behind lbt_dbi_dicts and lbt_dbi_ints, so that
 * binding a row does not go through the field table 31 times.
 */
static void find_members(lbt_db *db)
{
	lbt_rec r;

	for (int i = 0; i < LBT_DBI_NDICT; i++)
		db->str_off[i] = (size_t)((char *)lbt_rec_str(&r, lbt_dbi_dicts[i].field) -
		    (char *)&r);
	for (int i = 0; i < LBT_DBI_NINT; i++) {
		int32_t *m = lbt_rec_i32(&r, lbt_dbi_ints[i].field);

		db->int_off[i] = m ? (size_t)((char *)m - (char *)&r) : 0;
	}
}

/* Prepare the row INSERTs.  @return 0 or -1 with err. */
static int prepare_inserts(lbt_db *db, lbt_err *err)
{
	char sql[512];
	size_t n;

	n = (size_t)snprintf(sql, sizeof sql, "INSERT INTO requests VALUES (NULL");
	for (int i = 0; i < LBT_DBI_REQ_COLS; i++)
		n += (size_t)snprintf(sql + n, sizeof sql - n, ", ?");
	snprintf(sql + n, sizeof sql - n, ")");
	if (prepare(db, sql, &db->ins_req, err) < 0 ||
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
	sqlite3_finalize(db->ins_req);
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
		sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
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

/* Store queued raw lines and commit.  @return 0 or -1 with err (db broken). */
int lbt_dbi_commit(lbt_db *db, lbt_err *err)
{
	if (!db->in_txn)
		return 0;
	if (db->raw != NULL && lbt_dbi_raw_flush(db->raw, db->h, db->ins_raw, err) < 0) {
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

/*
 * Id of s in dictionary i, inserting it when new.  The previous look-up is
 * remembered (the map's copy of its key), so runs of the same value cost a
 * memcmp.  @return the id (> 0), or -1 with err.
 */
static int64_t dict_id(lbt_db *db, int i, lbt_str s, lbt_err *err)
{
	struct lbt_dbi_cache *c = &db->dict[i];
	struct dict_val *v;
	int created;

	if (c->last != NULL && s.n == c->last_n && memcmp(s.p, c->last, s.n) == 0)
		return c->last_id;
	v = put_key(c->map, s.n ? s.p : "", s.n, 1, &created);
	if (v == NULL)
		return lbt_err_set(err, "out of memory");
	if (created) {
		v->id = c->next_id++;
		sqlite3_bind_int64(c->ins, 1, v->id);
		sqlite3_bind_text(c->ins, 2, s.n ? s.p : "", (int)s.n, SQLITE_STATIC);
		if (step_insert(db, c->ins, err) < 0)
			return -1;
	}
	c->last = v->key;
	c->last_n = s.n;
	c->last_id = v->id;
	return v->id;
}

/* Id of the network of a (inserting it when new).  @return id, or -1. */
static int64_t net_id(lbt_db *db, const lbt_addr *a, lbt_err *err)
{
	lbt_addr net;
	int bits, created;
	int64_t *v;
	char text[LBT_ADDR_STRLEN];

	lbt_netgroup_of(&db->group, a, &net, &bits);
	v = lbt_hmap_put(db->nets, net.b, 16, &created);
	if (v == NULL)
		return lbt_err_set(err, "out of memory");
	if (!created)
		return *v;
	*v = db->next_net++;
	lbt_netgroup_format(&db->group, &net, text, sizeof text);
	sqlite3_bind_int64(db->ins_net, 1, *v);
	sqlite3_bind_blob(db->ins_net, 2, net.b, 16, SQLITE_STATIC);
	sqlite3_bind_int(db->ins_net, 3, bits);
	sqlite3_bind_text(db->ins_net, 4, text, -1, SQLITE_STATIC);
	return step_insert(db, db->ins_net, err) < 0 ? -1 : *v;
}

/* Ids of the address a and its network (inserting when new).  @return 0 or -1 */
static int addr_ids(lbt_db *db, const lbt_addr *a, struct addr_ids *out, lbt_err *err)
{
	struct addr_ids *v;
	int created;
	char text[LBT_ADDR_STRLEN];

	v = lbt_hmap_put(db->addrs, a->b, 16, &created);
	if (v == NULL)
		return lbt_err_set(err, "out of memory");
	if (created) {
		v->net_id = net_id(db, a, err);
		if (v->net_id < 0)
			return -1;
		v->addr_id = db->next_addr++;
		lbt_addr_format(a, text, sizeof text);
		sqlite3_bind_int64(db->ins_addr, 1, v->addr_id);
		sqlite3_bind_blob(db->ins_addr, 2, a->b, 16, SQLITE_STATIC);
		sqlite3_bind_int64(db->ins_addr, 3, v->net_id);
		sqlite3_bind_text(db->ins_addr, 4, text, -1, SQLITE_STATIC);
		if (step_insert(db, db->ins_addr, err) < 0)
			return -1;
	}
	*out = *v;
	return 0;
}

/*
 * Bind parameter `col` of st to the dictionary id of string field i of rec,
 * or NULL when absent.  @return 0 or -1.
 */
static int bind_dict(lbt_db *db, sqlite3_stmt *st, int col, int i, const lbt_rec *rec,
    lbt_err *err)
{
	lbt_field f = lbt_dbi_dicts[i].field;
	int64_t id;

	if (!(rec->have & LBT_BIT(f)))
		return sqlite3_bind_null(st, col) == SQLITE_OK ? 0 : -1;
	id = dict_id(db, i, *(const lbt_str *)((const char *)rec + db->str_off[i]), err);
	if (id < 0)
		return -1;
	sqlite3_bind_int64(st, col, id);
	return 0;
}

/* Bind time, clock, file and line (parameters 1..4) of rec. */
static void bind_head(sqlite3_stmt *st, int64_t file_id, const lbt_rec *rec)
{
	if (rec->have & LBT_BIT(LBT_F_TIME)) {
		sqlite3_bind_int64(st, 1, rec->time_us);
		sqlite3_bind_int(st, 2, (int)rec->clock);
	} else {
		sqlite3_bind_null(st, 1);
		sqlite3_bind_null(st, 2);
	}
	sqlite3_bind_int64(st, 3, file_id);
	sqlite3_bind_int64(st, 4, (int64_t)rec->line);
}

/* Insert a request row.  @return 0 or -1 with err. */
static int add_request(lbt_db *db, int64_t file_id, const lbt_rec *rec, lbt_err *err)
{
	sqlite3_stmt *st = db->ins_req;
	struct addr_ids ids = { 0, 0 };
	int col = LBT_DBI_REQ_FIXED + 1;

	bind_head(st, file_id, rec);
	if (rec->have & LBT_BIT(LBT_F_CLIENT) && rec->client.family != 0) {
		if (addr_ids(db, &rec->client, &ids, err) < 0)
			return -1;
		sqlite3_bind_int64(st, 5, ids.addr_id);
		sqlite3_bind_int64(st, 6, ids.net_id);
	} else {
		sqlite3_bind_null(st, 5);
		sqlite3_bind_null(st, 6);
	}
	for (int i = 0; i < LBT_DBI_NDICT; i++, col++)
		if (bind_dict(db, st, col, i, rec, err) < 0)
			return -1;
	for (int i = 0; i < LBT_DBI_NINT; i++, col++) {
		lbt_field f = lbt_dbi_ints[i].field;

		if (!(rec->have & LBT_BIT(f)))
			sqlite3_bind_null(st, col);
		else if (f == LBT_F_BYTES)
			sqlite3_bind_int64(st, col, rec->bytes);
		else
			sqlite3_bind_int(st, col, *(const int32_t *)((const char *)rec +
			    db->int_off[i]));
	}
	return step_insert(db, st, err);
}

/* Insert an event row (time, provenance, lb, proxy names, msg). @return 0 or -1 */
static int add_event(lbt_db *db, int64_t file_id, const lbt_rec *rec, lbt_err *err)
{
	sqlite3_stmt *st = db->ins_ev;
	static const int dicts[4] = { 0, 1, 2, 3 };   /* lb frontend backend server */

	bind_head(st, file_id, rec);
	for (int i = 0; i < 4; i++)
		if (bind_dict(db, st, 5 + i, dicts[i], rec, err) < 0)
			return -1;
	if (rec->have & LBT_BIT(LBT_F_MSG))
		sqlite3_bind_text(st, 9, rec->msg.n ? rec->msg.p : "", (int)rec->msg.n,
		    SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 9);
	return step_insert(db, st, err);
}

/* Add rec as a request or event row, and its raw line.  @return 0 or -1 with err. */
int lbt_dbi_add(lbt_db *db, int64_t file_id, const lbt_rec *rec, const char *line,
    size_t len, lbt_err *err)
{
	int rc = rec->kind == LBT_KIND_EVENT ? add_event(db, file_id, rec, err) :
	    add_request(db, file_id, rec, err);

	if (rc < 0) {
		db->broken = 1;
		return -1;
	}
	if (db->raw != NULL && line != NULL &&
	    lbt_dbi_raw_add(db->raw, db->h, db->ins_raw, file_id, rec->line, line, len,
	    err) < 0) {
		db->broken = 1;
		return -1;
	}
	return 0;
}
