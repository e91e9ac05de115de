/*
 * db_query.c - what --db reads ask of SQLite, built with placeholders
 * only: the option values given by the user (keys, networks, LB names,
 * times) are always bound parameters, never SQL text.
 *
 * The filter options are first resolved into ids (lbt_dbi_select): the
 * keys named (without case), the networks that can hold a --src address
 * (widened to their /32 or /64 groups), the shapes whose LB, termination
 * state and status pass --lb, --term and --status (asked of
 * lbt_filter_match itself, so no option is parsed here).  The merge
 * (db_merge.c) skips the runs whose lists hold none of them, and the
 * blocks outside the time bounds.  All of it selects a superset of what
 * the filter accepts: db_read.c runs lbt_filter_match() on every request,
 * so this only has to be fast, never exact.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db_int.h"
#include "lbt/vec.h"

/* A bound value of a query. */
struct bind {
	int blob;              /* 0 integer or text, 1 16-byte blob */
	int is_text;
	int64_t i;
	char *text;            /* owned copy */
	uint8_t b[16];
};

/* SQL text being built and its parameters, in order from number `first`. */
struct query {
	char *sql;
	size_t n, cap;
	struct bind *v;
	size_t nv, vcap;
	int first;
	int oom;
};

/* Append s to the SQL text. */
static void q_sql(struct query *q, const char *s)
{
	size_t k = strlen(s);

	if (LBT_GROW(q->sql, q->cap, q->n + k + 1, 1024) < 0) {
		q->oom = 1;
		return;
	}
	memcpy(q->sql + q->n, s, k + 1);
	q->n += k;
}

/* Append a parameter; its "?" is written by the caller.  @return it or NULL */
static struct bind *q_val(struct query *q)
{
	if (LBT_GROW(q->v, q->vcap, q->nv + 1, 16) < 0) {
		q->oom = 1;
		return NULL;
	}
	memset(&q->v[q->nv], 0, sizeof q->v[0]);
	return &q->v[q->nv++];
}

/* "?" bound to an integer. */
static void q_int(struct query *q, int64_t i)
{
	struct bind *b = q_val(q);

	if (b != NULL)
		b->i = i;
	q_sql(q, "?");
}

/* "?" bound to a copy of the text s[0..n). */
static void q_text(struct query *q, const char *s, size_t n)
{
	struct bind *b = q_val(q);

	if (b != NULL && (b->text = strndup(s, n)) == NULL)
		q->oom = 1;
	if (b != NULL)
		b->is_text = 1;
	q_sql(q, "?");
}

/* "?" bound to a 16-byte blob. */
static void q_blob(struct query *q, const uint8_t b16[16])
{
	struct bind *b = q_val(q);

	if (b != NULL) {
		b->blob = 1;
		memcpy(b->b, b16, 16);
	}
	q_sql(q, "?");
}

/* Free the query's text and parameters. */
static void q_free(struct query *q)
{
	for (size_t i = 0; i < q->nv; i++)
		free(q->v[i].text);
	free(q->v);
	free(q->sql);
}

/* Call fn(q, item, len) for each comma-separated item of list, with the SQL
 * text `join` between two. */
static void q_each(struct query *q, const char *list, const char *join,
    void (*fn)(struct query *, const char *, size_t))
{
	const char *cur = list;
	lbt_str it;

	for (int first = 1; lbt_str_next_item(&cur, ',', &it); first = 0) {
		if (!first)
			q_sql(q, join);
		fn(q, it.p, it.n);
	}
}

/* Set bits from bit `from` (0 = most significant) to 127 in b. */
static void set_host_bits(uint8_t b[16], int from)
{
	for (int i = from; i < 128; i++)
		b[i / 8] |= (uint8_t)(0x80 >> (i % 8));
}

/*
 * One --src item: "net BETWEEN lo AND hi", the range of grouping networks
 * (/32, /64) that can hold an address of ADDR/BITS.  An unparsable item
 * was already refused by lbt_filter_new.
 */
static void src_item(struct query *q, const char *s, size_t n)
{
	char buf[LBT_ADDR_STRLEN + 8];
	lbt_addr lo, hi;
	int bits, keep;

	snprintf(buf, sizeof buf, "%.*s", (int)n, s);
	if (lbt_addr_parse_prefix(buf, &lo, &bits) < 0) {
		q_sql(q, "0");
		return;
	}
	keep = lo.family == 4 ? bits : (bits < 64 ? bits : 64);
	lbt_addr_mask(&lo, keep);
	hi = lo;
	set_host_bits(hi.b, lo.family == 4 ? 96 + keep : keep);
	q_sql(q, "net BETWEEN ");
	q_blob(q, lo.b);
	q_sql(q, " AND ");
	q_blob(q, hi.b);
}

/* A plain list item bound as text. */
static void text_item(struct query *q, const char *s, size_t n)
{
	q_text(q, s, n);
}

/* Prepare q on h and bind its parameters into *st.  @return 0 or -1 with err. */
static int q_prepare(sqlite3 *h, const char *path, struct query *q, sqlite3_stmt **st,
    lbt_err *err)
{
	if (q->oom)
		return lbt_err_set(err, "out of memory");
	if (sqlite3_prepare_v3(h, q->sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL) != SQLITE_OK)
		return lbt_dbi_fail(h, path, "query", err);
	for (size_t i = 0; i < q->nv; i++) {
		struct bind *b = &q->v[i];
		int col = q->first + (int)i;

		if (b->blob)
			sqlite3_bind_blob(*st, col, b->b, 16, SQLITE_TRANSIENT);
		else if (b->is_text)
			sqlite3_bind_text(*st, col, b->text, -1, SQLITE_TRANSIENT);
		else
			sqlite3_bind_int64(*st, col, b->i);
	}
	return 0;
}

/* Compare two ids for qsort. */
static int id_cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/*
 * The ids that q (a SELECT of one integer) returns, ascending, into
 * *ids and *n.  @return 0 or -1 with err.
 */
static int q_ids(sqlite3 *h, const char *path, struct query *q, int64_t **ids, size_t *n,
    lbt_err *err)
{
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	int rc;

	*ids = NULL;
	*n = 0;
	if (q_prepare(h, path, q, &st, err) < 0)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (LBT_GROW(*ids, cap, *n + 1, 64) < 0) {
			sqlite3_finalize(st);
			return lbt_err_set(err, "out of memory");
		}
		(*ids)[(*n)++] = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return lbt_dbi_fail(h, path, "query", err);
	if (*n > 0)
		qsort(*ids, *n, sizeof **ids, id_cmp);
	return 0;
}

/* The ids of the keys named by --key (a list), without case.  @return 0 or -1 */
static int select_keys(sqlite3 *h, const char *path, const char *list,
    struct lbt_dbi_sel *sel, lbt_err *err)
{
	struct query q = { .first = 1 };
	int rc;

	q_sql(&q, "SELECT id FROM keys WHERE name COLLATE NOCASE IN (");
	q_each(&q, list, ", ", text_item);
	q_sql(&q, ")");
	rc = q_ids(h, path, &q, &sel->keys, &sel->nkeys, err);
	q_free(&q);
	sel->has_keys = 1;
	return rc;
}

/* The ids of the networks that can hold a --src address.  @return 0 or -1 */
static int select_nets(sqlite3 *h, const char *path, const char *list,
    struct lbt_dbi_sel *sel, lbt_err *err)
{
	struct query q = { .first = 1 };
	int rc;

	q_sql(&q, "SELECT id FROM nets WHERE ");
	q_each(&q, list, " OR ", src_item);
	rc = q_ids(h, path, &q, &sel->nets, &sel->nnets, err);
	q_free(&q);
	sel->has_nets = 1;
	return rc;
}

/* Point f of rec at entry id of dictionary d (if it has one). */
static void probe_str(lbt_rec *rec, lbt_field f, const struct lbt_dbi_strs *d, int64_t id)
{
	if (d->off == NULL || id <= 0 || id >= d->n || d->len[id] == SIZE_MAX)
		return;
	*lbt_rec_str(rec, f) = lbt_str_make(d->text + d->off[id], d->len[id]);
	rec->have |= LBT_BIT(f);
}

/*
 * The shapes whose LB, termination state and status pass --lb, --term and
 * --status: each asked of a filter made of those options alone, on a
 * record holding only those fields.  @return 0 or -1 with err.
 */
static int select_shapes(const lbt_filter_opts *o, const struct lbt_dbi_shape *shapes,
    int64_t nshapes, const struct lbt_dbi_strs *dicts, struct lbt_dbi_sel *sel,
    lbt_err *err)
{
	lbt_filter_opts so = LBT_FILTER_OPTS_INIT;
	lbt_filter *f;
	size_t cap = 0;
	lbt_rec probe;

	so.lb = o->lb;
	so.term = o->term;
	so.status = o->status;
	if ((f = lbt_filter_new(&so, 0, err)) == NULL)
		return -1;
	sel->has_shapes = 1;
	for (int64_t id = 1; id < nshapes; id++) {
		const struct lbt_dbi_shape *s = &shapes[id];

		if (s->file_id == 0)
			continue;              /* no such shape */
		lbt_rec_clear(&probe);
		probe_str(&probe, LBT_F_LB, &dicts[LBT_DBI_D_LB], s->id[0]);
		probe_str(&probe, LBT_F_TERM, &dicts[LBT_DBI_D_TERM], s->id[LBT_DBI_NSHAPE - 1]);
		if (s->status != LBT_DBI_NO_STATUS) {
			probe.status = (int32_t)s->status;
			probe.have |= LBT_BIT(LBT_F_STATUS);
		}
		if (!lbt_filter_match(f, &probe))
			continue;
		if (LBT_GROW(sel->shapes, cap, sel->nshapes + 1, 64) < 0) {
			lbt_filter_free(f);
			return lbt_err_set(err, "out of memory");
		}
		sel->shapes[sel->nshapes++] = id;
	}
	lbt_filter_free(f);
	return 0;
}

/* Resolve the filter options into sel; see db_int.h.  @return 0 or -1 with err. */
int lbt_dbi_select(sqlite3 *h, const char *path, const lbt_filter_opts *o, int64_t since,
    int64_t until, int64_t base, const struct lbt_dbi_shape *shapes, int64_t nshapes,
    const struct lbt_dbi_strs *dicts, struct lbt_dbi_sel *sel, lbt_err *err)
{
	memset(sel, 0, sizeof *sel);
	sel->since = since == INT64_MIN ? INT64_MIN : since - base;
	sel->until = until == INT64_MAX ? INT64_MAX : until - base;
	if (o->key && select_keys(h, path, o->key, sel, err) < 0)
		return -1;
	if (o->src && select_nets(h, path, o->src, sel, err) < 0)
		return -1;
	if ((o->lb || o->term || o->status) &&
	    select_shapes(o, shapes, nshapes, dicts, sel, err) < 0)
		return -1;
	return 0;
}

/* Free the id sets of sel. */
void lbt_dbi_sel_free(struct lbt_dbi_sel *sel)
{
	free(sel->keys);
	free(sel->nets);
	free(sel->shapes);
	memset(sel, 0, sizeof *sel);
}

/* " AND time >= since AND time < until" for the bounds that are set. */
static void q_time(struct query *q, const struct lbt_dbi_sel *sel)
{
	if (sel->since != INT64_MIN) {
		q_sql(q, " AND time >= ");
		q_int(q, sel->since);
	}
	if (sel->until != INT64_MAX) {
		q_sql(q, " AND time < ");
		q_int(q, sel->until);
	}
}

/*
 * The query of a run's blocks; see db_int.h.  A block is read when its
 * time range meets the bounds (t0, t1: its earliest and latest time).
 * @return 0 or -1 with err.
 */
int lbt_dbi_run_query(sqlite3 *h, const char *path, const int want[LBT_DBI_NCOL],
    const struct lbt_dbi_sel *sel, sqlite3_stmt **st, lbt_err *err)
{
	struct query q = { .first = 3 };
	int rc;

	q_sql(&q, "SELECT n, t0, tunit, line0, widths");
	for (int c = 0; c < LBT_DBI_NCOL; c++) {
		if (want[c]) {
			q_sql(&q, ", ");
			q_sql(&q, lbt_dbi_col_names[c]);
		}
	}
	q_sql(&q, " FROM blocks WHERE id BETWEEN ?1 AND ?2");
	if (sel->since != INT64_MIN) {
		q_sql(&q, " AND t1 >= ");
		q_int(&q, sel->since);
	}
	if (sel->until != INT64_MAX) {
		q_sql(&q, " AND t0 < ");
		q_int(&q, sel->until);
	}
	q_sql(&q, " ORDER BY id");
	rc = q_prepare(h, path, &q, st, err);
	q_free(&q);
	return rc;
}

/* The ordered events query; see db_int.h.  @return 0 or -1 with err. */
int lbt_dbi_events_query(sqlite3 *h, const char *path, const lbt_filter_opts *o,
    const struct lbt_dbi_sel *sel, sqlite3_stmt **st, lbt_err *err)
{
	struct query q = { .first = 1 };
	int rc;

	q_sql(&q, "SELECT time, clock, file_id, line, lb_id, frontend_id, backend_id,"
	    " server_id, msg FROM events WHERE 1");
	q_time(&q, sel);
	if (o->lb) {
		q_sql(&q, " AND lb_id IN (SELECT id FROM lbs WHERE name IN (");
		q_each(&q, o->lb, ", ", text_item);
		q_sql(&q, "))");
	}
	q_sql(&q, " ORDER BY time, file_id, id");
	rc = q_prepare(h, path, &q, st, err);
	q_free(&q);
	return rc;
}
