/*
 * db_views.c - the SQL of schema version 5 made from the layout of blocks
 * (lbt_dbi_col_names, db_codec.c's encoding): the tables, and the views
 * that turn blocks back into one row per request.  `requests` has the
 * integer columns of version 4's table of that name (ids, relative time,
 * numbers), requests_v the names, addresses and times as text, as before.
 * Being made from the same tables as the C codec, the SQL cannot disagree
 * with it on a position.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db_int.h"
#include "lbt/vec.h"

/* SQL text being built; oom is set on the first failed append. */
struct sb {
	char *p;
	size_t n, cap;
	int oom;
};

/* Append printf-formatted text to b. */
static void sb_add(struct sb *b, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (b->oom)
		return;
	va_start(ap, fmt);
	k = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (k < 0 || LBT_GROW(b->p, b->cap, b->n + (size_t)k + 1, 4096) < 0) {
		b->oom = 1;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(b->p + b->n, (size_t)k + 1, fmt, ap);
	va_end(ap);
	b->n += (size_t)k;
}

/* The text of b (caller frees), or NULL (and freed) when out of memory. */
static char *sb_done(struct sb *b)
{
	if (b->oom || b->p == NULL) {
		free(b->p);
		return NULL;
	}
	return b->p;
}

/* Index of block column `name` (lbt_dbi_col_names), or -1. */
static int col_index(const char *name)
{
	for (int c = 0; c < LBT_DBI_NCOL; c++)
		if (strcmp(lbt_dbi_col_names[c], name) == 0)
			return c;
	return -1;
}

/*
 * Value s.k of block column `name` (db_codec.c): width (widths, 2 bits a
 * column) 1 character, its code point less 3, or 2 to 4 characters, digits
 * of 15 bits plus 2, most significant first, less 1 (2^59 for 4); a first
 * character 1 is NULL (nullif then makes the whole sum NULL).
 */
static void col_expr(struct sb *b, const char *name)
{
	int c = col_index(name);

	sb_add(b, "CASE (b.widths >> %d) & 3 WHEN 0 THEN nullif(unicode(substr(b.%s, s.k, 1)),"
	    " 1) - 3", 2 * c, name);
	for (int w = 2; w <= LBT_DBI_MAX_WIDTH; w++) {
		sb_add(b, w < LBT_DBI_MAX_WIDTH ? " WHEN %d THEN " : " ELSE ", w - 1);
		for (int j = 0; j < w; j++) {
			const char *f = j == 0 ? "(nullif(unicode(substr(b.%s, %d * s.k - %d, 1)), 1)"
			    " - 2) * %lld + " : "(unicode(substr(b.%s, %d * s.k - %d, 1)) - 2) * %lld + ";

			sb_add(b, f, name, w, w - 1 - j, (long long)((int64_t)1 << (15 * (w - 1 - j))));
		}
		sb_add(b, "0 - %lld", w < LBT_DBI_MAX_WIDTH ? 1LL : (long long)((int64_t)1 << 59));
	}
	sb_add(b, " END");
}

/* The time base of an index (0 when it has none yet). */
#define BASE "coalesce((SELECT value FROM meta WHERE name = 'time_base'), 0)"

/* Text of a time in µs, as lbt prints it (ms, or µs when not whole ms). */
#define TIME_TEXT(c) \
	"strftime('%Y-%m-%dT%H:%M:%S', " c " / 1000000, 'unixepoch') || " \
	"CASE WHEN " c " % 1000 = 0 THEN printf('.%03dZ', (" c " / 1000) % 1000) " \
	"ELSE printf('.%06dZ', " c " % 1000000) END"

/* Time in µs of the row r (relative in the table), as an SQL expression. */
#define ABS_TIME(r) "(" r ".time + b.base)"

/* The view columns of v4's requests table, after time, file_id and line. */
static const char *const id_cols[] = {
	"addr_id", "net_id", "shape_id", "lb_id", "status", "path_id", "key_id", "host_id",
	"ua_id", "query_id", "bytes",
};

/* The block column of a view column of ids ("" when it comes from a join). */
static const char *id_source(const char *view_col)
{
	static const char *const map[][2] = {
		{ "addr_id", "addr" }, { "shape_id", "shape" }, { "path_id", "path" },
		{ "key_id", "key" }, { "host_id", "host" }, { "ua_id", "ua" },
		{ "query_id", "query" }, { "bytes", "bytes" },
	};

	for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
		if (strcmp(map[i][0], view_col) == 0)
			return map[i][1];
	return "";
}

/*
 * The view `requests`: one row per request with the integer columns of
 * version 4's table (ids, relative time, numbers), decoded from blocks.
 * CROSS JOIN keeps blocks the outer loop: rows come in block order.
 */
static void requests_view(struct sb *b)
{
	sb_add(b, "CREATE VIEW requests AS SELECT b.first + s.k - 1 AS id, b.t0 + (");
	col_expr(b, "time");
	sb_add(b, ") * b.tunit AS time, sh.file_id AS file_id, b.line0 + (");
	col_expr(b, "line");
	sb_add(b, ") AS line");
	for (size_t i = 0; i < sizeof id_cols / sizeof id_cols[0]; i++) {
		const char *src = id_source(id_cols[i]);

		if (*src == '\0') {
			sb_add(b, strcmp(id_cols[i], "net_id") == 0 ? ", a.net_id AS net_id" :
			    ", sh.%s AS %s", id_cols[i], id_cols[i]);
			continue;
		}
		sb_add(b, ", (");
		col_expr(b, src);
		sb_add(b, ") AS %s", id_cols[i]);
	}
	for (int k = 0; k < LBT_DBI_NNUM; k++) {
		sb_add(b, ", (");
		col_expr(b, lbt_dbi_nums[k].name);
		sb_add(b, ") AS %s", lbt_dbi_nums[k].name);
	}
	sb_add(b, " FROM blocks b CROSS JOIN seq s ON s.k <= b.n LEFT JOIN shapes sh ON sh.id = (");
	col_expr(b, "shape");
	sb_add(b, ") LEFT JOIN addrs a ON a.id = (");
	col_expr(b, "addr");
	sb_add(b, ");");
}

/* The first columns of requests_v (a literal: not a format, its % are SQL's). */
static const char requests_v_head[] =
	"CREATE VIEW requests_v AS SELECT r.id AS id, " TIME_TEXT(ABS_TIME("r")) " AS time, "
	ABS_TIME("r") " AS time_us, f.path AS file, r.line AS line, lb.name AS lb,"
	" a.text AS client, n.text AS net, r.port AS port, fe.name AS frontend,"
	" be.name AS backend, sv.name AS server, m.name AS method, p.name AS path,"
	" q.name AS query, h.name AS host, v.name AS version, r.status AS status,"
	" r.bytes AS bytes, r.th AS th, r.ti AS ti, r.tq AS tq, r.tr AS tr, r.tw AS tw,"
	" r.tc AS tc, r.tresp AS tresp, r.ta AS ta, r.tt AS tt, t.name AS term,"
	" r.ac AS ac, r.fc AS fc, r.bc AS bc, r.sc AS sc, r.rc AS rc, r.sq AS sq,"
	" r.bq AS bq, u.name AS ua, k.name AS key,"
	" CASE s.tier WHEN 1 THEN 'lb' WHEN 2 THEN 'backend' END AS tier"
	" FROM (SELECT " BASE " AS base) b, requests r"
	" LEFT JOIN shapes s ON s.id = r.shape_id LEFT JOIN files f ON f.id = r.file_id"
	" LEFT JOIN lbs lb ON lb.id = r.lb_id LEFT JOIN addrs a ON a.id = r.addr_id"
	" LEFT JOIN nets n ON n.id = r.net_id LEFT JOIN frontends fe ON fe.id = s.frontend_id"
	" LEFT JOIN backends be ON be.id = s.backend_id LEFT JOIN servers sv ON sv.id = s.server_id"
	" LEFT JOIN methods m ON m.id = s.method_id LEFT JOIN paths p ON p.id = r.path_id"
	" LEFT JOIN queries q ON q.id = r.query_id LEFT JOIN hosts h ON h.id = r.host_id"
	" LEFT JOIN versions v ON v.id = s.version_id LEFT JOIN terms t ON t.id = s.term_id"
	" LEFT JOIN uas u ON u.id = r.ua_id LEFT JOIN keys k ON k.id = r.key_id;";

static const char events_view[] =
	"CREATE VIEW events_v AS SELECT e.id AS id, " TIME_TEXT(ABS_TIME("e")) " AS time,"
	" " ABS_TIME("e") " AS time_us, f.path AS file, e.line AS line, lb.name AS lb,"
	" fe.name AS frontend, be.name AS backend, sv.name AS server, e.msg AS msg"
	" FROM (SELECT " BASE " AS base) b, events e LEFT JOIN files f ON f.id = e.file_id"
	" LEFT JOIN lbs lb ON lb.id = e.lb_id LEFT JOIN frontends fe ON fe.id = e.frontend_id"
	" LEFT JOIN backends be ON be.id = e.backend_id"
	" LEFT JOIN servers sv ON sv.id = e.server_id;";

/* The views of version 5; see db_int.h.  @return the SQL or NULL */
char *lbt_dbi_views_sql(void)
{
	struct sb b = { 0 };

	requests_view(&b);
	sb_add(&b, "%s%s", requests_v_head, events_view);
	return sb_done(&b);
}

/* The tables of version 5; see db_int.h.  @return the SQL or NULL */
char *lbt_dbi_tables5_sql(void)
{
	struct sb b = { 0 };

	sb_add(&b, "CREATE TABLE shapes5 (id INTEGER PRIMARY KEY, file_id INTEGER NOT NULL,"
	    " lb_id INTEGER, frontend_id INTEGER, backend_id INTEGER, server_id INTEGER,"
	    " method_id INTEGER, version_id INTEGER, term_id INTEGER, clock INTEGER NOT NULL,"
	    " status INTEGER, tier INTEGER);");
	sb_add(&b, "CREATE TABLE blocks (id INTEGER PRIMARY KEY, first INTEGER NOT NULL,"
	    " n INTEGER NOT NULL, t0 INTEGER, t1 INTEGER, tunit INTEGER NOT NULL,"
	    " line0 INTEGER NOT NULL, widths INTEGER NOT NULL");
	for (int c = 0; c < LBT_DBI_NCOL; c++)
		sb_add(&b, ", %s TEXT", lbt_dbi_col_names[c]);
	sb_add(&b, ");");
	sb_add(&b, "CREATE TABLE runs (id INTEGER PRIMARY KEY, file_id INTEGER NOT NULL,"
	    " first_block INTEGER NOT NULL, last_block INTEGER NOT NULL,"
	    " untimed INTEGER NOT NULL, min_time INTEGER, max_time INTEGER, clock INTEGER,"
	    " shapes BLOB, keys BLOB, nets BLOB);");
	sb_add(&b, "CREATE TABLE seq (k INTEGER PRIMARY KEY);"
	    "WITH RECURSIVE c(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM c WHERE k < %d)"
	    " INSERT INTO seq SELECT k FROM c;", LBT_DBI_BLOCK);
	return sb_done(&b);
}
