/*
 * db_dict.c - the id caches of the writer and the row builder, the half
 * of a bulk load that runs on lbt-index's reading thread (lbt_dbi_build).
 *
 * Strings and addresses become ids through in-memory caches (lbt_hmap)
 * loaded from the dictionary tables at open, so a row costs hash look-ups,
 * and a repeated value (the same frontend as the previous row) one memcmp;
 * ids given out for the first time are listed (struct lbt_dbi_news) for
 * the writer, which inserts them (db_write.c).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db_int.h"
#include "lbt/vec.h"

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

	if (lbt_dbi_prepare(db, sql, &st, err) < 0)
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
	if (lbt_dbi_prepare(db, "SELECT id, frontend_id, backend_id, server_id, method_id,"
	    " version_id, term_id, clock, tier FROM shapes", &st, err) < 0)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct lbt_dbi_shape k;
		int64_t id = sqlite3_column_int64(st, 0), *v;

		memset(&k, 0, sizeof k);
		for (int i = 0; i < LBT_DBI_NSHAPE; i++)
			k.id[i] = sqlite3_column_int64(st, 1 + i);
		k.clock = sqlite3_column_int64(st, 1 + LBT_DBI_NSHAPE);
		k.tier = sqlite3_column_int64(st, 2 + LBT_DBI_NSHAPE);
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
 * Find the row members (find_members), create and load the caches of
 * every dictionary, addrs, nets and shapes, and prepare the dictionary
 * INSERTs; see db_int.h.  What is made before a failure is freed by
 * lbt_dbi_free_caches.  @return 0 or -1 with err.
 */
int lbt_dbi_load_caches(lbt_db *db, lbt_err *err)
{
	char sql[128];

	find_members(db);
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
		if (lbt_dbi_prepare(db, sql, &c->ins, err) < 0)
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

/* Free the caches of db and the dictionary INSERTs (NULL members accepted). */
void lbt_dbi_free_caches(lbt_db *db)
{
	for (int i = 0; i < LBT_DBI_NDICT; i++) {
		sqlite3_finalize(db->dict[i].ins);
		lbt_hmap_free(db->dict[i].map);
	}
	lbt_hmap_free(db->addrs);
	lbt_hmap_free(db->nets);
	lbt_hmap_free(db->shapes);
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

	if (LBT_GROW(n->v, n->cap, n->n + 1, 256) < 0 ||
	    LBT_GROW(n->text, n->text_cap, n->text_n + len, 16384) < 0)
		return NULL;
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
 * term, clock and tier), given out when new; the previous row's shape is
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
	k.tier = (rec->have & LBT_BIT(LBT_F_TIER)) ? (int64_t)rec->tier : 0;
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
