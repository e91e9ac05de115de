/*
 * db_query.c - the SQL of --db reads, built with placeholders only: the
 * option values given by the user (keys, networks, LB names, termination
 * prefixes, times) are always bound parameters, never SQL text.
 *
 * The WHERE clause selects a superset of what the filter accepts (keys
 * compared without case, networks widened to their /32 or /64 groups);
 * db_read.c runs lbt_filter_match() on
 * every row, so the SQL only has to be fast, never exact.
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

/* SQL text being built and its parameters, in order. */
struct query {
	char *sql;
	size_t n, cap;
	struct bind *v;
	size_t nv, vcap;
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

/* One --term item: "substr(name, 1, len) = item". */
static void term_item(struct query *q, const char *s, size_t n)
{
	q_sql(q, "substr(name, 1, ");
	q_int(q, (int64_t)n);
	q_sql(q, ") = ");
	q_text(q, s, n);
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

/*
 * " AND (status BETWEEN lo AND hi OR ...)" for the statuses --status
 * accepts, found by asking lbt_filter_match() about each of -1..599 on a
 * filter compiled from --status alone: the option is parsed by filter.c
 * only, never here.  Nothing is added if that filter cannot be made (the
 * reader's own filter already reported the bad value).
 */
static void status_ranges(struct query *q, const char *status)
{
	lbt_filter_opts so = LBT_FILTER_OPTS_INIT;
	lbt_filter *f;
	lbt_rec probe;
	int lo = INT32_MIN;

	so.status = status;
	if ((f = lbt_filter_new(&so, 0, NULL)) == NULL)
		return;
	lbt_rec_clear(&probe);
	probe.have = LBT_BIT(LBT_F_STATUS);
	q_sql(q, " AND (0");
	for (int s = -1; s <= 600; s++) {
		probe.status = s;
		if (s < 600 && lbt_filter_match(f, &probe)) {
			lo = lo == INT32_MIN ? s : lo;
			continue;
		}
		if (lo == INT32_MIN)
			continue;
		q_sql(q, " OR status BETWEEN ");
		q_int(q, lo);
		q_sql(q, " AND ");
		q_int(q, s - 1);
		lo = INT32_MIN;
	}
	q_sql(q, ")");
	lbt_filter_free(f);
}

/*
 * WHERE clause of a query on `table` (requests, or events when ev) for the
 * filter options, time bounds already resolved into since/until (absolute;
 * the table holds times relative to `base`).
 */
static void q_where(struct query *q, const lbt_filter_opts *o, int64_t since,
    int64_t until, int64_t base, int ev)
{
	q_sql(q, " WHERE 1");
	if (since != INT64_MIN) {
		q_sql(q, " AND time >= ");
		q_int(q, since - base);
	}
	if (until != INT64_MAX) {
		q_sql(q, " AND time < ");
		q_int(q, until - base);
	}
	if (o->lb) {
		q_sql(q, " AND lb_id IN (SELECT id FROM lbs WHERE name IN (");
		q_each(q, o->lb, ", ", text_item);
		q_sql(q, "))");
	}
	if (ev)
		return;
	if (o->key) {
		q_sql(q, " AND key_id IN (SELECT id FROM keys WHERE name COLLATE NOCASE IN (");
		q_each(q, o->key, ", ", text_item);
		q_sql(q, "))");
	}
	if (o->term) {
		q_sql(q, " AND shape_id IN (SELECT id FROM shapes WHERE term_id IN"
		    " (SELECT id FROM terms WHERE ");
		q_each(q, o->term, " OR ", term_item);
		q_sql(q, "))");
	}
	if (o->src) {
		q_sql(q, " AND net_id IN (SELECT id FROM nets WHERE ");
		q_each(q, o->src, " OR ", src_item);
		q_sql(q, ")");
	}
	if (o->status)
		status_ranges(q, o->status);
}

/* Prepare q on h and bind its parameters into *st.  @return 0 or -1 with err. */
static int q_prepare(sqlite3 *h, const char *path, struct query *q, sqlite3_stmt **st,
    lbt_err *err)
{
	if (q->oom)
		return lbt_err_set(err, "out of memory");
	if (sqlite3_prepare_v2(h, q->sql, -1, st, NULL) != SQLITE_OK)
		return lbt_dbi_fail(h, path, "query", err);
	for (size_t i = 0; i < q->nv; i++) {
		struct bind *b = &q->v[i];
		int col = (int)i + 1;

		if (b->blob)
			sqlite3_bind_blob(*st, col, b->b, 16, SQLITE_TRANSIENT);
		else if (b->is_text)
			sqlite3_bind_text(*st, col, b->text, -1, SQLITE_TRANSIENT);
		else
			sqlite3_bind_int64(*st, col, b->i);
	}
	return 0;
}

/*
 * Columns of the requests query: time shape_id file_id line addr_id, then
 * lbt_dbi_cols (LBT_DBI_QCOL_* in db_int.h); a column whose field is not
 * wanted is selected as NULL (positions stay fixed), which saves decoding
 * it: lbt-rate --db over 1M rows took 0.92 s instead of 1.78 s.
 */
static void req_columns(struct query *q, uint64_t wanted)
{
	q_sql(q, "SELECT time, shape_id, file_id, line");
	q_sql(q, wanted & LBT_BIT(LBT_F_CLIENT) ? ", addr_id" : ", NULL");
	for (int i = 0; i < LBT_DBI_NCOL; i++) {
		q_sql(q, ", ");
		q_sql(q, wanted & LBT_BIT(lbt_dbi_cols[i].field) ? lbt_dbi_cols[i].column : "NULL");
	}
	q_sql(q, " FROM requests");
}

/* Build, prepare and bind the ordered query; see db_int.h.  @return 0 or -1 with err. */
int lbt_dbi_query(sqlite3 *h, const char *path, int ev, const lbt_filter_opts *o,
    uint64_t wanted, int64_t since, int64_t until, int64_t base, sqlite3_stmt **st,
    lbt_err *err)
{
	struct query q = { 0 };
	int rc;

	if (ev)
		q_sql(&q, "SELECT time, clock, file_id, line, lb_id, frontend_id, backend_id,"
		    " server_id, msg FROM events");
	else
		req_columns(&q, wanted);
	q_where(&q, o, since, until, base, ev);
	q_sql(&q, " ORDER BY time, file_id, id");
	rc = q_prepare(h, path, &q, st, err);
	q_free(&q);
	return rc;
}
