/*
 * db_read.c - records back out of an lbt index (--db FILE).
 *
 * Two queries, requests and events, each ordered by (time, file_id, id)
 * (the requests_time index delivers that order, and within one file ids
 * follow line numbers), are merged in C by (time, file, line).  The filter
 * options are pushed into their WHERE clauses as bound parameters only:
 * time bounds, key, LB, termination state and source network become range
 * or IN (SELECT id FROM dictionary ...) tests.  The SQL selects a superset;
 * every row then goes through lbt_filter_match() on the reader's own
 * filter, the same code as the raw-log path, so both paths agree exactly.
 * Dictionaries (and addresses, files, shapes) are loaded into arrays
 * indexed by id once, so a row costs one sqlite3_step and array look-ups.
 * Times are stored relative to the index's time base; the reader adds it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db_int.h"
#include "lbt/event.h"
#include "lbt/filter.h"
#include "lbt/key.h"
#include "lbt/vec.h"

/* A dictionary table in memory: id -> bytes. */
struct strs {
	char *text;
	size_t *off, *len;     /* indexed by id; len SIZE_MAX for no such id */
	int64_t n;             /* ids 0..n-1 */
	size_t text_n, text_cap;
};

/* One query and its current row. */
struct cursor {
	sqlite3_stmt *st;
	int row;               /* a row is waiting */
	int used;              /* that row was returned: step before the next look */
	int events;            /* this is the events query */
};

struct lbt_db_reader {
	sqlite3 *h;
	char *path;
	lbt_filter *filter;
	lbt_key *key;          /* --key-regex at read time, or NULL */
	struct cursor c[2];    /* requests, events */
	struct strs dict[LBT_DBI_NDICT];
	struct strs files;     /* NUL-terminated paths */
	lbt_addr *addrs;       /* by id */
	int64_t naddrs;
	struct lbt_dbi_shape *shapes;   /* by id; NULL ids as 0 */
	int64_t nshapes;
	int64_t base;          /* time base of the index */
	uint64_t wanted;       /* fields filled (LBT_BIT mask) */
	lbt_rec rec;
	int64_t file_id;       /* of rec, for raw lines */
	sqlite3_stmt *raw_st;
	lbt_dbi_raw *raw;
};

/* ---- loading ----------------------------------------------------------- */

/* Free the arrays of s. */
static void strs_free(struct strs *s)
{
	free(s->text);
	free(s->off);
	free(s->len);
}

/* Append bytes p[0..n) as entry id of s (NUL-terminated). @return 0 or -1 */
static int strs_put(struct strs *s, int64_t id, const void *p, size_t n)
{
	if (LBT_GROW(s->text, s->text_cap, s->text_n + n + 1, 4096) < 0)
		return -1;
	if (n > 0)
		memcpy(s->text + s->text_n, p, n);
	s->text[s->text_n + n] = '\0';
	s->off[id] = s->text_n;
	s->len[id] = n;
	s->text_n += n + 1;
	return 0;
}

/* max(id) + 1 of table, via sql "SELECT max(id) FROM ...". @return it, or -1 */
static int64_t table_size(sqlite3 *h, const char *table)
{
	char sql[96];
	sqlite3_stmt *st = NULL;
	int64_t n = -1;

	snprintf(sql, sizeof sql, "SELECT coalesce(max(id), 0) + 1 FROM %s", table);
	if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

/* Load `col` of table into s by id.  @return 0 or -1 with err. */
static int strs_load(lbt_db_reader *r, struct strs *s, const char *table, const char *col,
    lbt_err *err)
{
	char sql[96];
	sqlite3_stmt *st = NULL;
	int rc;

	s->n = table_size(r->h, table);
	if (s->n < 0)
		return lbt_dbi_fail(r->h, r->path, table, err);
	s->off = calloc((size_t)s->n, sizeof *s->off);
	s->len = malloc((size_t)s->n * sizeof *s->len);
	if (s->off == NULL || s->len == NULL)
		return lbt_err_set(err, "out of memory");
	for (int64_t i = 0; i < s->n; i++)
		s->len[i] = SIZE_MAX;
	snprintf(sql, sizeof sql, "SELECT id, %s FROM %s", col, table);
	if (sqlite3_prepare_v2(r->h, sql, -1, &st, NULL) != SQLITE_OK)
		return lbt_dbi_fail(r->h, r->path, table, err);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		const void *p = sqlite3_column_blob(st, 1);

		if (id > 0 && id < s->n &&
		    strs_put(s, id, p, (size_t)sqlite3_column_bytes(st, 1)) < 0)
			break;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : lbt_dbi_fail(r->h, r->path, table, err);
}

/* Load the addresses by id.  @return 0 or -1 with err. */
static int addrs_load(lbt_db_reader *r, lbt_err *err)
{
	sqlite3_stmt *st = NULL;
	static const uint8_t mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	int rc;

	r->naddrs = table_size(r->h, "addrs");
	if (r->naddrs < 0)
		return lbt_dbi_fail(r->h, r->path, "addrs", err);
	if ((r->addrs = calloc((size_t)r->naddrs, sizeof *r->addrs)) == NULL)
		return lbt_err_set(err, "out of memory");
	if (sqlite3_prepare_v2(r->h, "SELECT id, addr FROM addrs", -1, &st, NULL) != SQLITE_OK)
		return lbt_dbi_fail(r->h, r->path, "addrs", err);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		lbt_addr *a;

		if (id <= 0 || id >= r->naddrs || sqlite3_column_bytes(st, 1) != 16)
			continue;
		a = &r->addrs[id];
		memcpy(a->b, sqlite3_column_blob(st, 1), 16);
		a->family = memcmp(a->b, mapped, 12) == 0 ? 4 : 6;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : lbt_dbi_fail(r->h, r->path, "addrs", err);
}

/* Load the shapes by id.  @return 0 or -1 with err. */
static int shapes_load(lbt_db_reader *r, lbt_err *err)
{
	sqlite3_stmt *st = NULL;
	int rc;

	r->nshapes = table_size(r->h, "shapes");
	if (r->nshapes < 0)
		return lbt_dbi_fail(r->h, r->path, "shapes", err);
	if ((r->shapes = calloc((size_t)r->nshapes, sizeof *r->shapes)) == NULL)
		return lbt_err_set(err, "out of memory");
	if (sqlite3_prepare_v2(r->h, "SELECT id, frontend_id, backend_id, server_id, method_id,"
	    " version_id, term_id, clock, tier FROM shapes", -1, &st, NULL) != SQLITE_OK)
		return lbt_dbi_fail(r->h, r->path, "shapes", err);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);

		if (id <= 0 || id >= r->nshapes)
			continue;
		for (int i = 0; i < LBT_DBI_NSHAPE; i++)
			r->shapes[id].id[i] = sqlite3_column_int64(st, 1 + i);
		r->shapes[id].clock = sqlite3_column_int64(st, 1 + LBT_DBI_NSHAPE);
		r->shapes[id].tier = sqlite3_column_int64(st, 2 + LBT_DBI_NSHAPE);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : lbt_dbi_fail(r->h, r->path, "shapes", err);
}

/* Load what the wanted fields need.  @return 0 or -1 with err. */
static int load_all(lbt_db_reader *r, uint64_t wanted, lbt_err *err)
{
	if (lbt_dbi_time_base(r->h, r->path, &r->base, err) < 0 || shapes_load(r, err) < 0)
		return -1;
	for (int i = 0; i < LBT_DBI_NDICT; i++)
		if ((wanted & LBT_BIT(lbt_dbi_dicts[i].field)) &&
		    strs_load(r, &r->dict[i], lbt_dbi_dicts[i].table, "name", err) < 0)
			return -1;
	if (strs_load(r, &r->files, "files", "path", err) < 0)
		return -1;
	if ((wanted & LBT_BIT(LBT_F_CLIENT)) && addrs_load(r, err) < 0)
		return -1;
	return 0;
}

/* ---- rows to records --------------------------------------------------- */

/* Set string field f of rec to entry id of dictionary s, if there is one. */
static void set_id(lbt_rec *rec, lbt_field f, const struct strs *s, int64_t id)
{
	if (s->off == NULL || id <= 0 || id >= s->n || s->len[id] == SIZE_MAX)
		return;
	*lbt_rec_str(rec, f) = lbt_str_make(s->text + s->off[id], s->len[id]);
	rec->have |= LBT_BIT(f);
}

/* Set string field f of rec from dictionary s, id in column col. */
static void set_str(lbt_rec *rec, lbt_field f, const struct strs *s, sqlite3_stmt *st, int col)
{
	if (s->off == NULL || sqlite3_column_type(st, col) == SQLITE_NULL)
		return;
	set_id(rec, f, s, sqlite3_column_int64(st, col));
}

/* Time, clock and provenance (columns 0..3), common to both queries. */
static void fill_head(lbt_db_reader *r, sqlite3_stmt *st)
{
	lbt_rec *rec = &r->rec;
	int64_t fid = sqlite3_column_int64(st, 2);

	lbt_rec_clear(rec);
	if (sqlite3_column_type(st, 0) != SQLITE_NULL) {
		rec->time_us = sqlite3_column_int64(st, 0) + r->base;
		rec->clock = (lbt_clock)sqlite3_column_int(st, 1);
		rec->have |= LBT_BIT(LBT_F_TIME);
	}
	r->file_id = fid;
	if (fid > 0 && fid < r->files.n && r->files.len[fid] != SIZE_MAX) {
		rec->file = r->files.text + r->files.off[fid];
		rec->have |= LBT_BIT(LBT_F_FILE);
	}
	rec->line = (uint64_t)sqlite3_column_int64(st, 3);
	rec->have |= LBT_BIT(LBT_F_LINE);
}

/* The client address of the row, from the addrs cache. */
static void fill_client(lbt_db_reader *r, sqlite3_stmt *st)
{
	int64_t id;

	if (r->addrs == NULL || sqlite3_column_type(st, 4) == SQLITE_NULL)
		return;
	id = sqlite3_column_int64(st, 4);
	if (id <= 0 || id >= r->naddrs || r->addrs[id].family == 0)
		return;
	r->rec.client = r->addrs[id];
	r->rec.have |= LBT_BIT(LBT_F_CLIENT);
}

/* The clock and the shape's strings (column 1: shape_id) of the row. */
static void fill_shape(lbt_db_reader *r, sqlite3_stmt *st)
{
	lbt_rec *rec = &r->rec;
	int64_t id = sqlite3_column_int64(st, 1);
	const struct lbt_dbi_shape *s;

	rec->clock = LBT_CLOCK_NONE;
	if (id <= 0 || id >= r->nshapes)
		return;
	s = &r->shapes[id];
	if (rec->have & LBT_BIT(LBT_F_TIME))
		rec->clock = (lbt_clock)s->clock;
	if ((rec->have & LBT_BIT(LBT_F_TIME)) && rec->clock != LBT_CLOCK_NONE)
		rec->have |= LBT_BIT(LBT_F_CLOCK);
	if (s->tier > LBT_TIER_NONE && s->tier < LBT_TIER_COUNT) {
		rec->tier = (lbt_tier)s->tier;
		rec->have |= LBT_BIT(LBT_F_TIER);
	}
	for (int i = 0; i < LBT_DBI_NSHAPE; i++) {
		int d = lbt_dbi_shape_dicts[i];

		if (r->wanted & LBT_BIT(lbt_dbi_dicts[d].field))
			set_id(rec, lbt_dbi_dicts[d].field, &r->dict[d], s->id[i]);
	}
}

/* Fill r->rec from the current requests row. */
static void fill_request(lbt_db_reader *r, sqlite3_stmt *st)
{
	lbt_rec *rec = &r->rec;

	fill_head(r, st);
	fill_shape(r, st);
	fill_client(r, st);
	for (int i = 0; i < LBT_DBI_NCOL; i++) {
		const struct lbt_dbi_col *c = &lbt_dbi_cols[i];
		int col = LBT_DBI_QCOL + i;

		if (!(r->wanted & LBT_BIT(c->field)) || sqlite3_column_type(st, col) == SQLITE_NULL)
			continue;
		if (c->dict >= 0) {
			set_str(rec, c->field, &r->dict[c->dict], st, col);
			continue;
		}
		if (c->field == LBT_F_BYTES)
			rec->bytes = sqlite3_column_int64(st, col);
		else
			*lbt_rec_i32(rec, c->field) = sqlite3_column_int(st, col);
		rec->have |= LBT_BIT(c->field);
	}
	if (r->key != NULL) {
		rec->have &= ~LBT_BIT(LBT_F_KEY);
		if ((rec->have & LBT_BIT(LBT_F_PATH)) &&
		    lbt_key_extract(r->key, rec->path.p, rec->path.n, &rec->key))
			rec->have |= LBT_BIT(LBT_F_KEY);
	}
}

/*
 * The fields of an event that the index does not store (its kind, level,
 * client, request parts, host), read back from its message as lbt_input
 * read them (a connection error keeps only its text: those stay absent).
 */
static void event_fields(lbt_rec *rec)
{
	static const lbt_field from_msg[] = { LBT_F_EVENT, LBT_F_LEVEL, LBT_F_CLIENT,
		LBT_F_METHOD, LBT_F_PATH, LBT_F_QUERY, LBT_F_VERSION, LBT_F_HOST, LBT_F_REQUEST };
	lbt_rec m;

	lbt_rec_clear(&m);
	if (!(rec->have & LBT_BIT(LBT_F_MSG)) || lbt_event_parse(rec->msg.p, rec->msg.n, NULL,
	    &m) < 0)
		return;
	for (size_t i = 0; i < sizeof from_msg / sizeof from_msg[0]; i++) {
		lbt_field f = from_msg[i];

		if ((rec->have & LBT_BIT(f)) || !(m.have & LBT_BIT(f)))
			continue;
		if (f == LBT_F_CLIENT)
			rec->client = m.client;
		else
			*lbt_rec_str(rec, f) = *lbt_rec_str(&m, f);
		rec->have |= LBT_BIT(f);
	}
}

/* Fill r->rec from the current events row (msg stays valid until the next step). */
static void fill_event(lbt_db_reader *r, sqlite3_stmt *st)
{
	lbt_rec *rec = &r->rec;
	static const int dicts[4] = { 0, 1, 2, 3 };   /* lb frontend backend server */

	fill_head(r, st);
	rec->kind = LBT_KIND_EVENT;
	for (int i = 0; i < 4; i++)
		set_str(rec, lbt_dbi_dicts[dicts[i]].field, &r->dict[dicts[i]], st, 4 + i);
	if (sqlite3_column_type(st, 8) != SQLITE_NULL) {
		rec->msg = lbt_str_make((const char *)sqlite3_column_text(st, 8),
		    (size_t)sqlite3_column_bytes(st, 8));
		rec->have |= LBT_BIT(LBT_F_MSG);
	}
	if ((rec->have & LBT_BIT(LBT_F_TIME)) && rec->clock != LBT_CLOCK_NONE)
		rec->have |= LBT_BIT(LBT_F_CLOCK);
	event_fields(rec);
}

/* Step cursor c if its row was used.  @return 0 or -1 with err. */
static int cursor_advance(lbt_db_reader *r, struct cursor *c, lbt_err *err)
{
	int rc;

	if (c->st == NULL || (c->row && !c->used))
		return 0;
	rc = sqlite3_step(c->st);
	c->used = 0;
	c->row = rc == SQLITE_ROW;
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		c->row = 0;
		return lbt_dbi_fail(r->h, r->path, "read", err);
	}
	if (!c->row) {
		sqlite3_finalize(c->st);
		c->st = NULL;
	}
	return 0;
}

/* Compare the current rows of a and b by (time, file_id, line); NULL time first. */
static int cursor_cmp(struct cursor *a, struct cursor *b)
{
	int an = sqlite3_column_type(a->st, 0) == SQLITE_NULL;
	int bn = sqlite3_column_type(b->st, 0) == SQLITE_NULL;

	if (an != bn)
		return an ? -1 : 1;
	for (int col = an ? 2 : 0; col < 4; col++) {
		int64_t x, y;

		if (col == 1)
			continue;
		x = sqlite3_column_int64(a->st, col);
		y = sqlite3_column_int64(b->st, col);
		if (x != y)
			return x < y ? -1 : 1;
	}
	return 0;
}

/*
 * Next record in (time, file, line) order from the two cursors, skipping
 * rows that the filter refuses.  @return 1, 0 at the end, -1 with err.
 */
int lbt_db_reader_next(lbt_db_reader *r, lbt_rec **rec, lbt_err *err)
{
	for (;;) {
		struct cursor *c;

		if (cursor_advance(r, &r->c[0], err) < 0 || cursor_advance(r, &r->c[1], err) < 0)
			return -1;
		if (!r->c[0].row && !r->c[1].row)
			return 0;
		c = !r->c[1].row ? &r->c[0] : !r->c[0].row ? &r->c[1] :
		    cursor_cmp(&r->c[0], &r->c[1]) <= 0 ? &r->c[0] : &r->c[1];
		c->used = 1;
		if (c->events)
			fill_event(r, c->st);
		else
			fill_request(r, c->st);
		if (lbt_filter_match(r->filter, &r->rec)) {
			*rec = &r->rec;
			return 1;
		}
	}
}

/* Prepare the requests (ev 0) or events (ev 1) query.  @return 0 or -1 with err. */
static int open_cursor(lbt_db_reader *r, int ev, const lbt_filter_opts *o, lbt_err *err)
{
	int64_t since, until;

	lbt_filter_bounds(r->filter, &since, &until);
	r->c[ev].events = ev;
	return lbt_dbi_query(r->h, r->path, ev, o, r->wanted, since, until, r->base,
	    &r->c[ev].st, err);
}

/* ---- open, raw lines, close ------------------------------------------ */

/*
 * Fix time-of-day bounds (--since 23:00) on the day of the first timed
 * record (events only when they are read), as the raw-log path does with
 * the first record it reads.
 */
static void resolve_tod(lbt_db_reader *r, const lbt_filter_opts *o, int events)
{
	int64_t since, until;
	sqlite3_stmt *st = NULL;
	lbt_rec probe;

	lbt_filter_bounds(r->filter, &since, &until);
	if (!((o->since && since == INT64_MIN) || (o->until && until == INT64_MAX)))
		return;
	if (sqlite3_prepare_v2(r->h, events ? "SELECT min(t) FROM (SELECT min(time) AS t FROM"
	    " requests UNION ALL SELECT min(time) FROM events)" : "SELECT min(time) FROM requests",
	    -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
		lbt_rec_clear(&probe);
		probe.time_us = sqlite3_column_int64(st, 0) + r->base;
		probe.have = LBT_BIT(LBT_F_TIME);
		(void)lbt_filter_match(r->filter, &probe);
	}
	sqlite3_finalize(st);
}

/* Open the parts of a reader.  @return 0 or -1 with err. */
static int reader_init(lbt_db_reader *r, const lbt_input_opts *o, lbt_err *err)
{
	const lbt_filter_opts *f = &o->filter;
	uint64_t wanted = o->wanted ? o->wanted : ~(uint64_t)0;
	int64_t now = o->now_us;

	if ((r->h = lbt_dbi_open(r->path, 0, err)) == NULL)
		return -1;
	if (now == 0)
		now = lbt_time_now_us();
	if ((r->filter = lbt_filter_new(f, now, err)) == NULL)
		return -1;
	if (o->key_regex && (r->key = lbt_key_new(o->key_regex, err)) == NULL)
		return -1;
	wanted |= lbt_filter_fields(r->filter);
	if (r->key != NULL)
		wanted |= LBT_BIT(LBT_F_PATH);
	r->wanted = wanted;
	if (load_all(r, wanted, err) < 0)
		return -1;
	resolve_tod(r, f, o->events);
	if (open_cursor(r, 0, f, err) < 0)
		return -1;
	if (o->events && !f->key && !f->src && !f->status && !f->term &&
	    open_cursor(r, 1, f, err) < 0)
		return -1;
	return 0;
}

/* Open a reader; see db.h.  @return it, or NULL with err. */
lbt_db_reader *lbt_db_reader_open(const char *path, const lbt_input_opts *opts,
    lbt_err *err)
{
	lbt_db_reader *r = calloc(1, sizeof *r);

	if (r == NULL || (r->path = strdup(path)) == NULL) {
		free(r);
		lbt_err_set(err, "out of memory");
		return NULL;
	}
	if (reader_init(r, opts, err) < 0) {
		lbt_db_reader_close(r);
		return NULL;
	}
	return r;
}

/*
 * The kept raw line of the record last returned, looked up by (file_id,
 * line).  @return 1 found, 0 none kept, -1 with err.
 */
int lbt_db_reader_raw(lbt_db_reader *r, const char **line, size_t *len, lbt_err *err)
{
	int rc;

	if (r->raw_st == NULL) {
		if (sqlite3_prepare_v2(r->h, "SELECT dict_id, z FROM raw WHERE file_id = ? AND"
		    " line = ?", -1, &r->raw_st, NULL) != SQLITE_OK)
			return lbt_dbi_fail(r->h, r->path, "raw lines", err);
		if ((r->raw = lbt_dbi_raw_new(NULL, err)) == NULL)
			return -1;
	}
	sqlite3_bind_int64(r->raw_st, 1, r->file_id);
	sqlite3_bind_int64(r->raw_st, 2, (int64_t)r->rec.line);
	rc = sqlite3_step(r->raw_st);
	if (rc == SQLITE_ROW)
		rc = lbt_dbi_raw_decode(r->raw, r->h, sqlite3_column_int64(r->raw_st, 0),
		    sqlite3_column_blob(r->raw_st, 1), (size_t)sqlite3_column_bytes(r->raw_st, 1),
		    line, len, err) < 0 ? -1 : 1;
	else if (rc == SQLITE_DONE)
		rc = 0;
	else
		rc = lbt_dbi_fail(r->h, r->path, "raw lines", err);
	sqlite3_reset(r->raw_st);
	return rc;
}

/* The tiers of the index's requests (their shapes'), as a mask; see db.h. */
unsigned lbt_db_reader_tiers(lbt_db_reader *r)
{
	sqlite3_stmt *st = NULL;
	unsigned m = 0;

	if (sqlite3_prepare_v2(r->h, "SELECT DISTINCT tier FROM shapes", -1, &st, NULL) !=
	    SQLITE_OK)
		return 1u << LBT_TIER_NONE;
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t t = sqlite3_column_int64(st, 0);

		m |= 1u << (t > 0 && t < LBT_TIER_COUNT ? t : LBT_TIER_NONE);
	}
	sqlite3_finalize(st);
	return m;
}

/* Close r and free everything; NULL accepted. */
void lbt_db_reader_close(lbt_db_reader *r)
{
	if (r == NULL)
		return;
	sqlite3_finalize(r->c[0].st);
	sqlite3_finalize(r->c[1].st);
	sqlite3_finalize(r->raw_st);
	lbt_dbi_raw_free(r->raw);
	for (int i = 0; i < LBT_DBI_NDICT; i++)
		strs_free(&r->dict[i]);
	strs_free(&r->files);
	free(r->addrs);
	free(r->shapes);
	lbt_filter_free(r->filter);
	lbt_key_free(r->key);
	sqlite3_close(r->h);
	free(r->path);
	free(r);
}
