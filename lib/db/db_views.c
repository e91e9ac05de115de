/*
 * db_views.c - the SQL of schema version 4 that depends on the layout of
 * requests.nums (lbt_dbi_nums): the views, which decode it, and the
 * migration from version 3, which encodes it.  Both are made from the one
 * table of numbers, so that the C codec (db_codec.c), the views and the
 * migration cannot disagree on a position.
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

/* Position (1-based character) of number `name` in requests.nums. */
static int num_pos(const char *name)
{
	for (int k = 0; k < LBT_DBI_NNUM; k++)
		if (strcmp(lbt_dbi_nums[k].name, name) == 0)
			return k + 1;
	return 0;
}

/*
 * The number at character k of r.nums (db_codec.c): 1 NULL, 2 in
 * nums_big, else the code point less 4 and the skipped ranges.
 */
static void num_expr(struct sb *b, const char *name)
{
	int k = num_pos(name);

	sb_add(b, "CASE unicode(substr(r.nums, %d, 1)) WHEN 1 THEN NULL WHEN 2 THEN"
	    " (SELECT g.value FROM nums_big g WHERE g.id = r.id AND g.pos = %d)"
	    " ELSE unicode(substr(r.nums, %d, 1)) - 4"
	    " - (unicode(substr(r.nums, %d, 1)) >= 57344) * 2048"
	    " - (unicode(substr(r.nums, %d, 1)) >= 65536) * 2 END AS %s", k, k, k, k, k, name);
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

/* The first columns of requests_v (a literal: not a format, its % are SQL's). */
static const char requests_head[] =
	"CREATE VIEW requests_v AS SELECT r.id AS id, " TIME_TEXT(ABS_TIME("r")) " AS time, "
	ABS_TIME("r") " AS time_us, f.path AS file, r.line AS line, lb.name AS lb,"
	" a.text AS client, n.text AS net, ";

/* The view columns after bytes, in the order of version 3's view. */
static const char *const late_cols[] = {
	"th", "ti", "tq", "tr", "tw", "tc", "tresp", "ta", "tt", "term",
	"ac", "fc", "bc", "sc", "rc", "sq", "bq",
};

/* The joins of requests_v: a shape holds the file, LB and the fields that repeat. */
static const char requests_from[] =
	" FROM (SELECT " BASE " AS base) b, requests r"
	" LEFT JOIN shapes s ON s.id = r.shape_id LEFT JOIN files f ON f.id = s.file_id"
	" LEFT JOIN lbs lb ON lb.id = s.lb_id LEFT JOIN addrs a ON a.id = r.addr_id"
	" LEFT JOIN nets n ON n.id = a.net_id LEFT JOIN frontends fe ON fe.id = s.frontend_id"
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

/* The views of version 4; see db_int.h.  @return the SQL or NULL */
char *lbt_dbi_views_sql(void)
{
	struct sb b = { 0 };

	sb_add(&b, "%s", requests_head);
	num_expr(&b, "port");
	sb_add(&b, ", fe.name AS frontend, be.name AS backend, sv.name AS server,"
	    " m.name AS method, p.name AS path, q.name AS query, h.name AS host,"
	    " v.name AS version, s.status AS status, r.bytes AS bytes");
	for (size_t i = 0; i < sizeof late_cols / sizeof late_cols[0]; i++) {
		sb_add(&b, ", ");
		if (strcmp(late_cols[i], "term") == 0)
			sb_add(&b, "t.name AS term");
		else
			num_expr(&b, late_cols[i]);
	}
	sb_add(&b, ", u.name AS ua, k.name AS key%s%s", requests_from, events_view);
	return sb_done(&b);
}

/* ---- migration 3 -> 4 ----------------------------------------------------- */

/*
 * Tables new in version 4, shapes and requests under temporary names.
 * shapes_all serves the look-up of each old row's new shape.
 */
static const char tables_v4[] =
	"CREATE TABLE shapes4 (id INTEGER PRIMARY KEY, file_id INTEGER NOT NULL,"
	" lb_id INTEGER, frontend_id INTEGER, backend_id INTEGER, server_id INTEGER,"
	" method_id INTEGER, version_id INTEGER, term_id INTEGER, clock INTEGER NOT NULL,"
	" status INTEGER);"
	"CREATE TABLE requests4 (id INTEGER PRIMARY KEY, time INTEGER, line INTEGER NOT NULL,"
	" shape_id INTEGER NOT NULL, addr_id INTEGER, path_id INTEGER, key_id INTEGER,"
	" host_id INTEGER, ua_id INTEGER, query_id INTEGER, bytes INTEGER, nums TEXT);"
	"CREATE TABLE nums_big (id INTEGER NOT NULL, pos INTEGER NOT NULL,"
	" value INTEGER NOT NULL, PRIMARY KEY (id, pos)) WITHOUT ROWID;"
	"CREATE TABLE runs (id INTEGER PRIMARY KEY, file_id INTEGER NOT NULL,"
	" first_id INTEGER NOT NULL, last_id INTEGER NOT NULL, untimed INTEGER NOT NULL,"
	" min_time INTEGER, max_time INTEGER, shapes BLOB, keys BLOB, nets BLOB);";

/* The shapes of version 3's rows with their file, LB and status. */
#define SHAPE_COLS "file_id, lb_id, frontend_id, backend_id, server_id, method_id," \
	" version_id, term_id, clock, status"

static const char shapes_v4[] =
	"INSERT INTO shapes4 (" SHAPE_COLS ") SELECT DISTINCT r.file_id, r.lb_id,"
	" s.frontend_id, s.backend_id, s.server_id, s.method_id, s.version_id, s.term_id,"
	" coalesce(s.clock, 0), r.status FROM requests r LEFT JOIN shapes s ON s.id = r.shape_id;"
	"CREATE INDEX shapes_all ON shapes4 (" SHAPE_COLS ");"
	/* new ids in (file, time, line) order, NULL times first: one run per file */
	"CREATE TEMP TABLE renumber AS SELECT row_number() OVER"
	" (ORDER BY r.file_id, r.time, r.line) AS nid, r.id AS oid,"
	" (SELECT n.id FROM shapes4 n WHERE n.file_id = r.file_id AND n.lb_id IS r.lb_id"
	" AND n.frontend_id IS s.frontend_id AND n.backend_id IS s.backend_id"
	" AND n.server_id IS s.server_id AND n.method_id IS s.method_id"
	" AND n.version_id IS s.version_id AND n.term_id IS s.term_id"
	" AND n.clock = coalesce(s.clock, 0) AND n.status IS r.status) AS sid"
	" FROM requests r LEFT JOIN shapes s ON s.id = r.shape_id;";

/* The nums character of version 3's column c (db_codec.c's mapping, in SQL). */
static void enc_expr(struct sb *b, const char *c)
{
	sb_add(b, "CASE WHEN r.%s IS NULL THEN 1 WHEN r.%s < -1 OR r.%s > %d THEN 2"
	    " WHEN r.%s + 4 < 55296 THEN r.%s + 4 WHEN r.%s + 2052 < 65534 THEN r.%s + 2052"
	    " ELSE r.%s + 2054 END", c, c, c, LBT_DBI_NUM_MAX, c, c, c, c, c);
}

/* The rows and their numbers too large for nums, renumbered. */
static void requests_v4(struct sb *b)
{
	sb_add(b, "INSERT INTO requests4 SELECT m.nid, r.time, r.line, m.sid, r.addr_id,"
	    " r.path_id, r.key_id, r.host_id, r.ua_id, r.query_id, r.bytes,"
	    " nullif(rtrim(char(");
	for (int k = 0; k < LBT_DBI_NNUM; k++) {
		sb_add(b, k ? ", " : "");
		enc_expr(b, lbt_dbi_nums[k].name);
	}
	sb_add(b, "), char(1)), '') FROM temp.renumber m JOIN requests r ON r.id = m.oid"
	    " ORDER BY m.nid;");
	for (int k = 0; k < LBT_DBI_NNUM; k++) {
		const char *c = lbt_dbi_nums[k].name;

		sb_add(b, "INSERT INTO nums_big SELECT m.nid, %d, r.%s FROM temp.renumber m"
		    " JOIN requests r ON r.id = m.oid WHERE r.%s < -1 OR r.%s > %d;", k + 1, c, c,
		    c, LBT_DBI_NUM_MAX);
	}
}

/*
 * One run per file (its lists left NULL: a run without lists is read for
 * every filter), then the new tables take the old names; addresses keep
 * their text and network only (the reader parses the text).
 */
static const char finish_v4[] =
	"INSERT INTO runs (file_id, first_id, last_id, untimed, min_time, max_time)"
	" SELECT s.file_id, min(r.id), max(r.id), sum(r.time IS NULL), min(r.time), max(r.time)"
	" FROM requests4 r JOIN shapes4 s ON s.id = r.shape_id GROUP BY s.file_id"
	" ORDER BY min(r.id);"
	"DROP TABLE temp.renumber; DROP TABLE requests; DROP TABLE shapes;"
	"DROP INDEX shapes_all;"
	"ALTER TABLE requests4 RENAME TO requests; ALTER TABLE shapes4 RENAME TO shapes;"
	"ALTER TABLE addrs DROP COLUMN addr;";

/* The migration 3 -> 4; see db_schema.c.  @return the SQL or NULL */
char *lbt_dbi_migrate4_sql(void)
{
	struct sb b = { 0 };

	sb_add(&b, "DROP VIEW requests_v; DROP VIEW events_v;"
	    " DROP INDEX IF EXISTS requests_time; DROP INDEX IF EXISTS requests_key;"
	    " DROP INDEX IF EXISTS requests_net; DROP INDEX IF EXISTS requests_lb;");
	sb_add(&b, "%s%s", tables_v4, shapes_v4);
	requests_v4(&b);
	sb_add(&b, "%s", finish_v4);
	return sb_done(&b);
}
