/*
 * db_read.c - records back out of an lbt index (--db FILE).
 *
 * Requests come from the merge of the runs (db_merge.c), in (time, file,
 * line) order, events from one query ordered the same way; the two are
 * merged here.  The filter options are resolved into ids once
 * (lbt_dbi_select, db_query.c): time bounds, keys and shapes go into each
 * run's WHERE clause as bound parameters, and the runs whose lists rule
 * them out are skipped.  That is a superset; every row then goes through
 * lbt_filter_match() on the reader's own filter, the same code as the
 * raw-log path, so both paths agree exactly.
 *
 * A run's query selects only the columns of the wanted fields (SQLite's
 * cost is per column read); dictionaries, addresses, files and shapes are
 * in memory by id (db_load.c), so a row costs one sqlite3_step, its
 * integers and array look-ups: no text is made or parsed, except the
 * handful of bytes of nums (db_codec.c).  Times are stored relative to
 * the index's time base; the reader adds it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db_int.h"
#include "lbt/event.h"
#include "lbt/filter.h"
#include "lbt/key.h"

struct lbt_db_reader {
	sqlite3 *h;
	char *path;
	lbt_filter *filter;
	lbt_key *key;          /* --key-regex at read time, or NULL */
	struct lbt_dbi_sel sel;
	lbt_dbi_merge *merge;  /* the requests */
	const struct lbt_dbi_pos *req;  /* ... on the row waiting, or NULL */
	int req_used;          /* that row was returned: take the next first */
	int req_done;
	sqlite3_stmt *ev;      /* the events query, NULL when ended or not read */
	int ev_row, ev_used;
	int want[LBT_DBI_NCOL];        /* the columns of blocks to decode */
	uint8_t ids[LBT_DBI_NID], nums[LBT_DBI_NNUM];  /* ... of them, dictionary ids */
	int nids, nnums;               /* (k >= 1 of LBT_DBI_I_*) and numbers (k) */
	struct lbt_dbi_strs dict[LBT_DBI_NDICT];
	struct lbt_dbi_strs files;     /* NUL-terminated paths */
	lbt_addr *addrs;       /* by id */
	int64_t naddrs;
	struct lbt_dbi_shape *shapes;  /* by id */
	int64_t nshapes;
	unsigned tiers;        /* LBT_BIT of every shape's tier (LBT_TIER_NONE: unknown) */
	int one_tier;          /* the tier of every shape, or -1 when they differ */
	int64_t base;          /* time base of the index */
	uint64_t wanted;       /* fields filled (LBT_BIT mask) */
	lbt_rec rec;
	int64_t file_id;       /* of rec, for raw lines */
	sqlite3_stmt *raw_st;
	lbt_dbi_raw *raw;
};

/* ---- what to read ------------------------------------------------------ */

/* Fields that come from a request's shape (and the clock of its time). */
#define SHAPE_FIELDS (LBT_BIT(LBT_F_LB) | LBT_BIT(LBT_F_FRONTEND) | \
	LBT_BIT(LBT_F_BACKEND) | LBT_BIT(LBT_F_SERVER) | LBT_BIT(LBT_F_METHOD) | \
	LBT_BIT(LBT_F_VERSION) | LBT_BIT(LBT_F_TERM) | LBT_BIT(LBT_F_STATUS))

/*
 * The tiers of the shapes loaded into r->tiers, and into r->one_tier the
 * tier they all share (-1 when they differ): an index of one tier gives
 * every request its tier without decoding the shape column.
 */
static void shapes_tiers(lbt_db_reader *r)
{
	r->tiers = 0;
	r->one_tier = -1;
	for (int64_t id = 1; id < r->nshapes; id++) {
		int64_t t = r->shapes[id].tier;

		if (r->shapes[id].file_id == 0)
			continue;               /* no such shape */
		t = t > LBT_TIER_NONE && t < LBT_TIER_COUNT ? t : LBT_TIER_NONE;
		r->tiers |= LBT_BIT(t);
	}
	for (int t = 0; t < LBT_TIER_COUNT; t++)
		if (r->tiers == LBT_BIT(t))
			r->one_tier = t;
}

/*
 * The columns of blocks that the wanted fields need: time always (the
 * merge orders by it), the line when wanted or when events are merged with
 * the requests, the shape when one of its fields is wanted, the clock of
 * a time is not the run's or the tiers of the requests differ (lbt_stream
 * keeps one).  Every column costs its decoding, and SQLite
 * about 180 instructions a block.
 */
static void choose_columns(lbt_db_reader *r, int events)
{
	uint64_t w = r->wanted;

	memset(r->want, 0, sizeof r->want);
	r->want[LBT_DBI_C_TIME] = 1;
	r->want[LBT_DBI_C_LINE] = events || (w & LBT_BIT(LBT_F_LINE));
	r->want[LBT_DBI_C_SHAPE] = (w & SHAPE_FIELDS) != 0 || r->one_tier < 0 ||
	    ((w & LBT_BIT(LBT_F_TIME)) && !lbt_dbi_merge_clocks_known(r->merge));
	r->want[LBT_DBI_C_IDS + LBT_DBI_I_ADDR] = (w & LBT_BIT(LBT_F_CLIENT)) != 0;
	for (int i = 1; i < LBT_DBI_NID; i++)
		r->want[LBT_DBI_C_IDS + i] =
		    (w & LBT_BIT(lbt_dbi_dicts[lbt_dbi_id_dicts[i]].field)) != 0;
	r->want[LBT_DBI_C_BYTES] = (w & LBT_BIT(LBT_F_BYTES)) != 0;
	for (int k = 0; k < LBT_DBI_NNUM; k++)
		r->want[LBT_DBI_C_NUMS + k] = (w & LBT_BIT(lbt_dbi_nums[k].field)) != 0;
	/* listed, so that a row walks its few columns, not all 23 (callgrind:
	 * 120 instructions a row for lbt-rate's two) */
	r->nids = r->nnums = 0;
	for (int i = 1; i < LBT_DBI_NID; i++)
		if (r->want[LBT_DBI_C_IDS + i])
			r->ids[r->nids++] = (uint8_t)i;
	for (int k = 0; k < LBT_DBI_NNUM; k++)
		if (r->want[LBT_DBI_C_NUMS + k])
			r->nums[r->nnums++] = (uint8_t)k;
}

/* Load what the wanted fields need.  @return 0 or -1 with err. */
static int load_all(lbt_db_reader *r, lbt_err *err)
{
	if (lbt_dbi_time_base(r->h, r->path, &r->base, err) < 0 ||
	    lbt_dbi_shapes_load(r->h, r->path, &r->shapes, &r->nshapes, err) < 0)
		return -1;
	shapes_tiers(r);
	for (int i = 0; i < LBT_DBI_NDICT; i++)
		if ((r->wanted & LBT_BIT(lbt_dbi_dicts[i].field)) &&
		    lbt_dbi_strs_load(r->h, r->path, &r->dict[i], lbt_dbi_dicts[i].table, "name",
		    err) < 0)
			return -1;
	if (lbt_dbi_strs_load(r->h, r->path, &r->files, "files", "path", err) < 0)
		return -1;
	if ((r->wanted & LBT_BIT(LBT_F_CLIENT)) &&
	    lbt_dbi_addrs_load(r->h, r->path, &r->addrs, &r->naddrs, err) < 0)
		return -1;
	return 0;
}

/* ---- rows to records --------------------------------------------------- */

/* Set string field f of rec to entry id of dictionary s, if there is one. */
static void set_id(lbt_rec *rec, lbt_field f, const struct lbt_dbi_strs *s, int64_t id)
{
	if (s->off == NULL || id <= 0 || id >= s->n || s->len[id] == SIZE_MAX)
		return;
	*lbt_rec_str(rec, f) = lbt_str_make(s->text + s->off[id], s->len[id]);
	rec->have |= LBT_BIT(f);
}

/* Set the provenance of rec: file file_id, and the line (when has_line). */
static void set_file(lbt_db_reader *r, int64_t fid, int has_line, uint64_t line)
{
	r->file_id = fid;
	if (fid > 0 && fid < r->files.n && r->files.len[fid] != SIZE_MAX) {
		r->rec.file = r->files.text + r->files.off[fid];
		r->rec.have |= LBT_BIT(LBT_F_FILE);
	}
	if (has_line) {
		r->rec.line = line;
		r->rec.have |= LBT_BIT(LBT_F_LINE);
	}
}

/* The clock, LB, status, tier and the shape's strings of the row's shape. */
static void fill_shape(lbt_db_reader *r, int64_t id)
{
	lbt_rec *rec = &r->rec;
	const struct lbt_dbi_shape *s;

	if (id <= 0 || id >= r->nshapes)
		return;
	s = &r->shapes[id];
	if (rec->have & LBT_BIT(LBT_F_TIME))
		rec->clock = (lbt_clock)s->clock;
	if (s->status != LBT_DBI_NO_STATUS) {
		rec->status = (int32_t)s->status;
		rec->have |= LBT_BIT(LBT_F_STATUS);
	}
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

/* The client address of id, from the addresses in memory. */
static void fill_client(lbt_db_reader *r, int64_t id)
{
	if (r->addrs == NULL || id <= 0 || id >= r->naddrs || r->addrs[id].family == 0)
		return;
	r->rec.client = r->addrs[id];
	r->rec.have |= LBT_BIT(LBT_F_CLIENT);
}

/*
 * Fill r->rec from the request the merge is on: row i of its decoded block
 * (the clock is the run's unless the shape is read).
 */
static void fill_request(lbt_db_reader *r, const struct lbt_dbi_pos *pos)
{
	const struct lbt_dbi_dblock *b = pos->b;
	size_t i = pos->i;
	lbt_rec *rec = &r->rec;

	lbt_rec_clear(rec);
	rec->clock = LBT_CLOCK_NONE;
	if (pos->has_time) {
		rec->time_us = pos->time + r->base;
		rec->clock = (lbt_clock)(pos->clock > 0 ? pos->clock : 0);
		rec->have |= LBT_BIT(LBT_F_TIME);
	}
	if (r->one_tier > LBT_TIER_NONE) {
		rec->tier = (lbt_tier)r->one_tier;
		rec->have |= LBT_BIT(LBT_F_TIER);
	}
	set_file(r, pos->file_id, r->want[LBT_DBI_C_LINE],
	    (uint64_t)b->v[LBT_DBI_C_LINE][i]);
	if (r->want[LBT_DBI_C_SHAPE])
		fill_shape(r, b->v[LBT_DBI_C_SHAPE][i]);
	if (r->want[LBT_DBI_C_IDS] && b->present[LBT_DBI_C_IDS][i])
		fill_client(r, b->v[LBT_DBI_C_IDS][i]);
	for (int j = 0; j < r->nids; j++) {
		int c = LBT_DBI_C_IDS + r->ids[j], d = lbt_dbi_id_dicts[r->ids[j]];

		if (b->present[c][i])
			set_id(rec, lbt_dbi_dicts[d].field, &r->dict[d], b->v[c][i]);
	}
	if (r->want[LBT_DBI_C_BYTES] && b->present[LBT_DBI_C_BYTES][i]) {
		rec->bytes = b->v[LBT_DBI_C_BYTES][i];
		rec->have |= LBT_BIT(LBT_F_BYTES);
	}
	for (int j = 0; j < r->nnums; j++) {
		int k = r->nums[j], c = LBT_DBI_C_NUMS + k;

		if (!b->present[c][i])
			continue;
		*lbt_rec_i32(rec, lbt_dbi_nums[k].field) = (int32_t)b->v[c][i];
		rec->have |= LBT_BIT(lbt_dbi_nums[k].field);
	}
	if ((rec->have & LBT_BIT(LBT_F_TIME)) && rec->clock != LBT_CLOCK_NONE)
		rec->have |= LBT_BIT(LBT_F_CLOCK);
	if (r->key != NULL) {
		rec->have &= ~LBT_BIT(LBT_F_KEY);
		if ((rec->have & LBT_BIT(LBT_F_PATH)) &&
		    lbt_key_extract(r->key, rec->path.p, rec->path.n, &rec->key))
			rec->have |= LBT_BIT(LBT_F_KEY);
	}
}

/* Set string field f of rec from dictionary s, id in column col. */
static void set_str(lbt_rec *rec, lbt_field f, const struct lbt_dbi_strs *s, sqlite3_stmt *st,
    int col)
{
	if (s->off == NULL || sqlite3_column_type(st, col) == SQLITE_NULL)
		return;
	set_id(rec, f, s, sqlite3_column_int64(st, col));
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

/*
 * Fill r->rec from the current events row: time clock file_id line lb_id
 * frontend_id backend_id server_id msg (msg valid until the next step).
 */
static void fill_event(lbt_db_reader *r, sqlite3_stmt *st)
{
	lbt_rec *rec = &r->rec;
	static const int dicts[4] = {
		LBT_DBI_D_LB, LBT_DBI_D_FRONTEND, LBT_DBI_D_BACKEND, LBT_DBI_D_SERVER
	};

	lbt_rec_clear(rec);
	rec->kind = LBT_KIND_EVENT;
	if (sqlite3_column_type(st, 0) != SQLITE_NULL) {
		rec->time_us = sqlite3_column_int64(st, 0) + r->base;
		rec->clock = (lbt_clock)sqlite3_column_int(st, 1);
		rec->have |= LBT_BIT(LBT_F_TIME);
	}
	set_file(r, sqlite3_column_int64(st, 2), 1, (uint64_t)sqlite3_column_int64(st, 3));
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

/* ---- the two streams ----------------------------------------------------- */

/* Take the next request if the one waiting was returned.  @return 0 or -1 with err. */
static int advance_requests(lbt_db_reader *r, lbt_err *err)
{
	int rc;

	if (r->req_done || (r->req != NULL && !r->req_used))
		return 0;
	rc = lbt_dbi_merge_next(r->merge, &r->req, err);
	r->req_used = 0;
	if (rc <= 0) {
		r->req = NULL;
		r->req_done = 1;
	}
	return rc < 0 ? -1 : 0;
}

/* Step the events query if its row was returned.  @return 0 or -1 with err. */
static int advance_events(lbt_db_reader *r, lbt_err *err)
{
	int rc;

	if (r->ev == NULL || (r->ev_row && !r->ev_used))
		return 0;
	rc = sqlite3_step(r->ev);
	r->ev_used = 0;
	r->ev_row = rc == SQLITE_ROW;
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return lbt_dbi_fail(r->h, r->path, "read", err);
	if (!r->ev_row) {
		sqlite3_finalize(r->ev);
		r->ev = NULL;
	}
	return 0;
}

/*
 * True when the waiting event comes before the waiting request (time NULL
 * first, file, line: the requests query has the line when events are read).
 */
static int event_first(const lbt_db_reader *r)
{
	const struct lbt_dbi_pos *q = r->req;
	sqlite3_stmt *e = r->ev;
	int en = sqlite3_column_type(e, 0) == SQLITE_NULL;
	int64_t a[3], b[3];

	if ((q->has_time == 0) != en)
		return en;
	a[0] = en ? 0 : sqlite3_column_int64(e, 0);
	a[1] = sqlite3_column_int64(e, 2);
	a[2] = sqlite3_column_int64(e, 3);
	b[0] = q->has_time ? q->time : 0;
	b[1] = q->file_id;
	b[2] = q->b->v[LBT_DBI_C_LINE][q->i];
	for (int i = 0; i < 3; i++)
		if (a[i] != b[i])
			return a[i] < b[i];
	return 0;
}

/*
 * Next record in (time, file, line) order from the two streams, skipping
 * rows that the filter refuses.  @return 1, 0 at the end, -1 with err.
 */
int lbt_db_reader_next(lbt_db_reader *r, lbt_rec **rec, lbt_err *err)
{
	for (;;) {
		int ev;

		if (advance_requests(r, err) < 0 || advance_events(r, err) < 0)
			return -1;
		if (r->req == NULL && !r->ev_row)
			return 0;
		ev = r->req == NULL || (r->ev_row && event_first(r));
		if (ev) {
			r->ev_used = 1;
			fill_event(r, r->ev);
		} else {
			r->req_used = 1;
			fill_request(r, r->req);
		}
		if (lbt_filter_match(r->filter, &r->rec)) {
			*rec = &r->rec;
			return 1;
		}
	}
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
	if (sqlite3_prepare_v2(r->h, events ? "SELECT min(t) FROM (SELECT min(min_time) AS t"
	    " FROM runs UNION ALL SELECT min(time) FROM events)" : "SELECT min(min_time) FROM runs",
	    -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
		lbt_rec_clear(&probe);
		probe.time_us = sqlite3_column_int64(st, 0) + r->base;
		probe.have = LBT_BIT(LBT_F_TIME);
		(void)lbt_filter_match(r->filter, &probe);
	}
	sqlite3_finalize(st);
}

/*
 * Resolve the filter and start both streams (events only when asked for
 * and no option that only requests have is given).  @return 0 or -1 with err.
 */
static int start_streams(lbt_db_reader *r, const lbt_filter_opts *f, int events,
    lbt_err *err)
{
	int64_t since, until;

	events = events && !f->key && !f->src && !f->status && !f->term;
	lbt_filter_bounds(r->filter, &since, &until);
	if (lbt_dbi_select(r->h, r->path, f, since, until, r->base, r->shapes, r->nshapes,
	    r->dict, &r->sel, err) < 0)
		return -1;
	r->merge = lbt_dbi_merge_open(r->h, r->path, &r->sel, err);
	if (r->merge == NULL)
		return -1;
	choose_columns(r, events);
	lbt_dbi_merge_columns(r->merge, r->want);
	if (events && lbt_dbi_events_query(r->h, r->path, f, &r->sel, &r->ev, err) < 0)
		return -1;
	return 0;
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
	if (load_all(r, err) < 0)
		return -1;
	resolve_tod(r, f, o->events);
	return start_streams(r, f, o->events, err);
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
	return r->tiers;
}

/* Close r and free everything; NULL accepted. */
void lbt_db_reader_close(lbt_db_reader *r)
{
	if (r == NULL)
		return;
	lbt_dbi_merge_close(r->merge);
	sqlite3_finalize(r->ev);
	sqlite3_finalize(r->raw_st);
	lbt_dbi_raw_free(r->raw);
	for (int i = 0; i < LBT_DBI_NDICT; i++)
		lbt_dbi_strs_free(&r->dict[i]);
	lbt_dbi_strs_free(&r->files);
	lbt_dbi_sel_free(&r->sel);
	free(r->addrs);
	free(r->shapes);
	lbt_filter_free(r->filter);
	lbt_key_free(r->key);
	sqlite3_close(r->h);
	free(r->path);
	free(r);
}
