/*
 * db_dict.c - the id caches of the writer and the row builder
 * (lbt_dbi_build).
 *
 * Strings and addresses become ids through in-memory caches (lbt_hmap)
 * loaded from the dictionary tables at open, so a row costs hash look-ups,
 * and a repeated value (the same frontend as the previous row) one memcmp;
 * ids given out for the first time are listed (struct lbt_dbi_news) for
 * the writer, which inserts them (db_write.c).  The address cache is keyed
 * by the 16 bytes of the address; the index keeps only its text (the view
 * shows it), parsed again when the caches are loaded.
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
 * Load the rows (id, key) of `sql` into map as key -> int64 id (the value
 * a struct dict_val when the map is a dictionary's, with_key) and set
 * *next to max(id) + 1.  @return 0 or -1.
 */
static int load_map(lbt_db *db, const char *sql, lbt_hmap *map, int with_key,
    int64_t *next, lbt_err *err)
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
		char *v = put_key(map, k ? k : "", n, with_key, NULL);

		if (v == NULL) {
			sqlite3_finalize(st);
			return lbt_err_set(err, "out of memory loading dictionaries");
		}
		memcpy(v, &id, sizeof id);
		if (id >= *next)
			*next = id + 1;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return lbt_dbi_fail(db->h, db->path, "loading dictionaries", err);
	return 0;
}

/*
 * Load the shapes table into db->shapes (key: struct lbt_dbi_shape) and
 * set db->next_shape.  @return 0 or -1 with err.
 */
static int load_shapes(lbt_db *db, lbt_err *err)
{
	sqlite3_stmt *st = NULL;
	int rc;

	db->next_shape = 1;
	if ((db->shapes = lbt_hmap_new(sizeof(int64_t))) == NULL)
		return lbt_err_set(err, "out of memory");
	if (sqlite3_prepare_v2(db->h, LBT_DBI_SHAPE_SELECT, -1, &st, NULL) != SQLITE_OK)
		return lbt_dbi_fail(db->h, db->path, "loading shapes", err);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct lbt_dbi_shape k;
		int64_t id = sqlite3_column_int64(st, 0), *v;

		lbt_dbi_shape_row(st, &k);
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
 * Load the addresses (id, text, net_id) into db->addrs, keyed by their 16
 * bytes, and set db->next_addr.  @return 0 or -1 with err.
 */
static int load_addrs(lbt_db *db, lbt_err *err)
{
	sqlite3_stmt *st = NULL;
	int rc;

	db->next_addr = 1;
	if (sqlite3_prepare_v2(db->h, "SELECT id, text, net_id FROM addrs", -1, &st,
	    NULL) != SQLITE_OK)
		return lbt_dbi_fail(db->h, db->path, "loading addresses", err);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct addr_ids *v;
		lbt_addr a;
		int64_t id = sqlite3_column_int64(st, 0);

		if (lbt_addr_parse((const char *)sqlite3_column_text(st, 1),
		    (size_t)sqlite3_column_bytes(st, 1), &a) < 0) {
			sqlite3_finalize(st);
			return lbt_err_at(err, db->path, 0, "address %lld of the index is "
			    "not an address", (long long)id);
		}
		if ((v = lbt_hmap_put(db->addrs, a.b, 16, NULL)) == NULL)
			break;
		v->addr_id = id;
		v->net_id = sqlite3_column_int64(st, 2);
		if (id >= db->next_addr)
			db->next_addr = id + 1;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return rc == SQLITE_ROW ? lbt_err_set(err, "out of memory") :
		    lbt_dbi_fail(db->h, db->path, "loading addresses", err);
	return 0;
}

/*
 * Offsets of the members behind lbt_dbi_dicts and lbt_dbi_nums, so that
 * building a row does not go through the field table for each of them.
 */
static void find_members(lbt_db *db)
{
	lbt_rec r;

	for (int i = 0; i < LBT_DBI_NDICT; i++)
		db->str_off[i] = (size_t)((char *)lbt_rec_str(&r, lbt_dbi_dicts[i].field) -
		    (char *)&r);
	for (int i = 0; i < LBT_DBI_NNUM; i++)
		db->num_off[i] = (size_t)((char *)lbt_rec_i32(&r, lbt_dbi_nums[i].field) -
		    (char *)&r);
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
		if (load_map(db, sql, c->map, 1, &c->next_id, err) < 0)
			return -1;
		snprintf(sql, sizeof sql, "INSERT INTO %s (id, name) SELECT c0, c1 FROM"
		    " lbt_batch(?1)", lbt_dbi_dicts[i].table);
		if (lbt_dbi_prepare(db, sql, &c->ins, err) < 0)
			return -1;
	}
	db->addrs = lbt_hmap_new(sizeof(struct addr_ids));
	db->nets = lbt_hmap_new(sizeof(int64_t));
	if (db->addrs == NULL || db->nets == NULL)
		return lbt_err_set(err, "out of memory");
	if (load_addrs(db, err) < 0 ||
	    load_map(db, "SELECT id, net FROM nets", db->nets, 0, &db->next_net, err) < 0)
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

/* ---- building rows ------------------------------------------------------ */

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
 * The shape id of rec of file_id (its LB, frontend, backend, server,
 * method, version, term, clock, status and tier), given out when new; the
 * previous row's shape is remembered.  @return the id (> 0), or -1 (out
 * of memory).
 */
static int64_t shape_id(lbt_db *db, int64_t file_id, const lbt_rec *rec,
    struct lbt_dbi_news *news)
{
	struct lbt_dbi_shape k;
	struct lbt_dbi_new *e;
	int64_t *v;
	int created;

	memset(&k, 0, sizeof k);
	k.file_id = file_id;
	for (int i = 0; i < LBT_DBI_NSHAPE; i++)
		if (field_id(db, lbt_dbi_shape_dicts[i], rec, &k.id[i], news) < 0)
			return -1;
	k.clock = (rec->have & LBT_BIT(LBT_F_TIME)) ? (int64_t)rec->clock : 0;
	k.status = (rec->have & LBT_BIT(LBT_F_STATUS)) ? rec->status : LBT_DBI_NO_STATUS;
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

/* The port, timers and counters of rec into r (lbt_dbi_nums). */
static void build_nums(const lbt_db *db, const lbt_rec *rec, struct lbt_dbi_row *r)
{
	r->num_have = 0;
	for (int k = 0; k < LBT_DBI_NNUM; k++) {
		if (!(rec->have & LBT_BIT(lbt_dbi_nums[k].field)))
			continue;
		r->num[k] = *(const int32_t *)((const char *)rec + db->num_off[k]);
		r->num_have |= (uint32_t)1 << k;
	}
}

/* Build the row of request rec; see db_int.h.  @return 0 or -1 (out of memory). */
int lbt_dbi_build(lbt_db *db, int64_t file_id, const lbt_rec *rec, struct lbt_dbi_row *r,
    struct lbt_dbi_news *news)
{
	struct addr_ids ids = { 0, 0 };
	int client = (rec->have & LBT_BIT(LBT_F_CLIENT)) && rec->client.family != 0;

	r->timed = (rec->have & LBT_BIT(LBT_F_TIME)) != 0;
	r->time = 0;
	if (r->timed && rel_time(db, rec->time_us, &r->time, news) < 0)
		return -1;
	if (client && addr_ids(db, &rec->client, &ids, news) < 0)
		return -1;
	if ((r->shape = shape_id(db, file_id, rec, news)) < 0)
		return -1;
	r->line = rec->line;
	r->clock = r->timed ? (uint8_t)rec->clock : 0;
	r->id[LBT_DBI_I_ADDR] = ids.addr_id;
	r->net = ids.net_id;
	for (int i = 1; i < LBT_DBI_NID; i++)
		if (field_id(db, lbt_dbi_id_dicts[i], rec, &r->id[i], news) < 0)
			return -1;
	r->has_bytes = (rec->have & LBT_BIT(LBT_F_BYTES)) != 0;
	r->bytes = rec->bytes;
	build_nums(db, rec, r);
	return 0;
}

/* Build the row of event rec; see db_int.h.  @return 0 or -1 (out of memory). */
int lbt_dbi_build_event(lbt_db *db, const lbt_rec *rec, struct lbt_dbi_event *ev,
    struct lbt_dbi_news *news)
{
	static const int dicts[4] = {
		LBT_DBI_D_LB, LBT_DBI_D_FRONTEND, LBT_DBI_D_BACKEND, LBT_DBI_D_SERVER
	};

	ev->timed = (rec->have & LBT_BIT(LBT_F_TIME)) != 0;
	ev->time = 0;
	if (ev->timed && rel_time(db, rec->time_us, &ev->time, news) < 0)
		return -1;
	ev->clock = ev->timed ? (int)rec->clock : 0;
	ev->line = rec->line;
	for (int i = 0; i < 4; i++)
		if (field_id(db, dicts[i], rec, &ev->id[i], news) < 0)
			return -1;
	return 0;
}
