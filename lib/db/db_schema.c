/*
 * db_schema.c - the layout of an lbt index, in one place: tables, views,
 * query indices, and the migrations between versions (PRAGMA
 * user_version).  man/lbt-index.1 documents the same layout for people.
 *
 * Repeated strings live in dictionary tables (id, name) and rows hold ids,
 * so the index stays small; client addresses are in `addrs`, with their
 * grouping network (/32, /64) in `nets`; times are integer UTC
 * microseconds; every row carries its provenance (file, line).
 *
 * Version 2 (docs/index-design.md has the measurements): times are stored
 * relative to a base kept in meta ('time_base', whole UTC days), so they
 * take 6 bytes instead of 8; the fields that repeat together are one
 * `shapes` row referenced by shape_id.
 *
 * Version 4: shapes.tier, the tier that wrote a shape's requests (LB or
 * backend), for --tier.
 *
 * Version 5 (docs/index-design.md): SQLite's cost, to insert a row and to
 * read one, is per row and per column, about 1000 and 180 instructions,
 * more than parsing the log line.  So requests are stored in blocks of up
 * to LBT_DBI_BLOCK, one row of `blocks` each, with a text column per field
 * that holds every request's value as code points (db_codec.c): the view
 * requests_v joins blocks with `seq` (1..LBT_DBI_BLOCK) and reads value k
 * with unicode(substr(column, k, 1)), so that stock sqlite3 still sees one
 * row per request.  The file, LB and status join the shape; the network is
 * the address's.  Blocks come in runs: up to LBT_DBI_RUN_ROWS requests of
 * one file sorted by (time, line), and a row of `runs` with their block
 * range, time range and the lists of the shapes, keys and networks they
 * hold.  Reading in time order is a merge of runs (db_merge.c) instead of
 * a walk of a time index, and the key, source, status, term and LB
 * filters skip the runs whose lists rule them out: requests need no
 * index.
 *
 * The columns themselves are db_layout.c's, the SQL of version 5 made from
 * them db_views.c's; opening an index (lbt_dbi_open) is the top of the
 * db files: it registers lbt_batch (db_vtab.c) and migrates (version 5 in
 * db_migrate.c, which stores through db_run.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db_int.h"

/*
 * Version 1, frozen: a new index is created as version 1 and migrated, so
 * the migration to version 2 runs on every new index too.  Dictionary
 * tables are added by create_dicts().
 */
static const char schema_v1[] =
	"CREATE TABLE meta (name TEXT PRIMARY KEY, value) WITHOUT ROWID;"
	"INSERT INTO meta VALUES ('application', 'lbtriage');"
	"CREATE TABLE files ("
	" id INTEGER PRIMARY KEY, path TEXT NOT NULL, dev INTEGER, ino INTEGER,"
	" size INTEGER, mtime INTEGER, head BLOB NOT NULL, copy_of INTEGER,"
	" lines INTEGER NOT NULL DEFAULT 0, offset INTEGER NOT NULL DEFAULT 0,"
	" lb TEXT, format TEXT, indexed INTEGER);"
	"CREATE TABLE nets (id INTEGER PRIMARY KEY, net BLOB NOT NULL,"
	" bits INTEGER NOT NULL, text TEXT NOT NULL);"
	"CREATE TABLE addrs (id INTEGER PRIMARY KEY, addr BLOB NOT NULL,"
	" net_id INTEGER NOT NULL, text TEXT NOT NULL);"
	"CREATE TABLE requests ("
	" id INTEGER PRIMARY KEY, time INTEGER, clock INTEGER,"
	" file_id INTEGER NOT NULL, line INTEGER NOT NULL, addr_id INTEGER, net_id INTEGER,"
	" lb_id INTEGER, frontend_id INTEGER, backend_id INTEGER, server_id INTEGER,"
	" method_id INTEGER, path_id INTEGER, query_id INTEGER, host_id INTEGER,"
	" version_id INTEGER, term_id INTEGER, ua_id INTEGER, key_id INTEGER,"
	" port INTEGER, status INTEGER, bytes INTEGER, th INTEGER, ti INTEGER,"
	" tq INTEGER, tr INTEGER, tw INTEGER, tc INTEGER, tresp INTEGER, ta INTEGER,"
	" tt INTEGER, ac INTEGER, fc INTEGER, bc INTEGER, sc INTEGER, rc INTEGER,"
	" sq INTEGER, bq INTEGER);"
	"CREATE TABLE events ("
	" id INTEGER PRIMARY KEY, time INTEGER, clock INTEGER,"
	" file_id INTEGER NOT NULL, line INTEGER NOT NULL, lb_id INTEGER,"
	" frontend_id INTEGER, backend_id INTEGER, server_id INTEGER, msg TEXT);"
	"CREATE TABLE raw_dicts (id INTEGER PRIMARY KEY, dict BLOB NOT NULL);"
	"CREATE TABLE raw (file_id INTEGER NOT NULL, line INTEGER NOT NULL,"
	" dict_id INTEGER, z BLOB NOT NULL, PRIMARY KEY (file_id, line)) WITHOUT ROWID;";

/* Text of a time in µs, as lbt prints it (ms, or µs when not whole ms). */
#define TIME_TEXT(c) \
	"strftime('%Y-%m-%dT%H:%M:%S', " c " / 1000000, 'unixepoch') || " \
	"CASE WHEN " c " % 1000 = 0 THEN printf('.%03dZ', (" c " / 1000) % 1000) " \
	"ELSE printf('.%06dZ', " c " % 1000000) END"

static const char views_v1[] =
	"CREATE VIEW requests_v AS SELECT r.id AS id, " TIME_TEXT("r.time") " AS time,"
	" r.time AS time_us, f.path AS file, r.line AS line, lb.name AS lb,"
	" a.text AS client, n.text AS net, r.port AS port, fe.name AS frontend,"
	" be.name AS backend, sv.name AS server, m.name AS method, p.name AS path,"
	" q.name AS query, h.name AS host, v.name AS version, r.status AS status,"
	" r.bytes AS bytes, r.th AS th, r.ti AS ti, r.tq AS tq, r.tr AS tr, r.tw AS tw,"
	" r.tc AS tc, r.tresp AS tresp, r.ta AS ta, r.tt AS tt, t.name AS term,"
	" r.ac AS ac, r.fc AS fc, r.bc AS bc, r.sc AS sc, r.rc AS rc, r.sq AS sq,"
	" r.bq AS bq, u.name AS ua, k.name AS key"
	" FROM requests r LEFT JOIN files f ON f.id = r.file_id"
	" LEFT JOIN lbs lb ON lb.id = r.lb_id LEFT JOIN addrs a ON a.id = r.addr_id"
	" LEFT JOIN nets n ON n.id = r.net_id LEFT JOIN frontends fe ON fe.id = r.frontend_id"
	" LEFT JOIN backends be ON be.id = r.backend_id LEFT JOIN servers sv ON sv.id = r.server_id"
	" LEFT JOIN methods m ON m.id = r.method_id LEFT JOIN paths p ON p.id = r.path_id"
	" LEFT JOIN queries q ON q.id = r.query_id LEFT JOIN hosts h ON h.id = r.host_id"
	" LEFT JOIN versions v ON v.id = r.version_id LEFT JOIN terms t ON t.id = r.term_id"
	" LEFT JOIN uas u ON u.id = r.ua_id LEFT JOIN keys k ON k.id = r.key_id;"
	"CREATE VIEW events_v AS SELECT e.id AS id, " TIME_TEXT("e.time") " AS time,"
	" e.time AS time_us, f.path AS file, e.line AS line, lb.name AS lb,"
	" fe.name AS frontend, be.name AS backend, sv.name AS server, e.msg AS msg"
	" FROM events e LEFT JOIN files f ON f.id = e.file_id"
	" LEFT JOIN lbs lb ON lb.id = e.lb_id LEFT JOIN frontends fe ON fe.id = e.frontend_id"
	" LEFT JOIN backends be ON be.id = e.backend_id"
	" LEFT JOIN servers sv ON sv.id = e.server_id;";

/* The time base of an index (0 when it has none yet). */
#define BASE "coalesce((SELECT value FROM meta WHERE name = 'time_base'), 0)"

/* One shape column of r matched against s, NULL equal to NULL. */
#define SHAPE_IS(c) " AND s." c " IS r." c

/*
 * Version 1 -> 2: the time base (the first day of the data already
 * indexed), shapes from the distinct combinations of v1 rows, requests
 * rebuilt in the v2 column order (ids kept), event times made relative,
 * views recreated over the new layout.  The query indices of requests go
 * with the old table and are rebuilt by the next lbt_dbi_create_indices.
 */
static const char migrate_v2_sql[] =
	"DROP VIEW requests_v; DROP VIEW events_v;"
	"INSERT INTO meta SELECT 'time_base', b FROM (SELECT min(t) / 86400000000 *"
	" 86400000000 AS b FROM (SELECT min(time) AS t FROM requests UNION ALL"
	" SELECT min(time) FROM events)) WHERE b IS NOT NULL;"
	"CREATE TABLE shapes (id INTEGER PRIMARY KEY, frontend_id INTEGER,"
	" backend_id INTEGER, server_id INTEGER, method_id INTEGER, version_id INTEGER,"
	" term_id INTEGER, clock INTEGER);"
	"INSERT INTO shapes (frontend_id, backend_id, server_id, method_id, version_id,"
	" term_id, clock) SELECT DISTINCT frontend_id, backend_id, server_id, method_id,"
	" version_id, term_id, clock FROM requests;"
	"CREATE INDEX shapes_all ON shapes (frontend_id, backend_id, server_id, method_id,"
	" version_id, term_id, clock);"
	"CREATE TABLE requests2 ("
	" id INTEGER PRIMARY KEY, time INTEGER, file_id INTEGER NOT NULL,"
	" line INTEGER NOT NULL, addr_id INTEGER, net_id INTEGER, shape_id INTEGER,"
	" lb_id INTEGER, status INTEGER, path_id INTEGER, key_id INTEGER, port INTEGER,"
	" bytes INTEGER, tr INTEGER, tw INTEGER, tc INTEGER, tresp INTEGER, ta INTEGER,"
	" ac INTEGER, fc INTEGER, bc INTEGER, sc INTEGER, rc INTEGER, sq INTEGER, bq INTEGER,"
	" host_id INTEGER, ua_id INTEGER, query_id INTEGER, th INTEGER, ti INTEGER,"
	" tq INTEGER, tt INTEGER);"
	"INSERT INTO requests2 SELECT r.id, r.time - " BASE ", r.file_id, r.line, r.addr_id,"
	" r.net_id, (SELECT s.id FROM shapes s WHERE 1" SHAPE_IS("frontend_id")
	SHAPE_IS("backend_id") SHAPE_IS("server_id") SHAPE_IS("method_id")
	SHAPE_IS("version_id") SHAPE_IS("term_id") SHAPE_IS("clock") "),"
	" r.lb_id, r.status, r.path_id, r.key_id, r.port, r.bytes, r.tr, r.tw, r.tc,"
	" r.tresp, r.ta, r.ac, r.fc, r.bc, r.sc, r.rc, r.sq, r.bq, r.host_id, r.ua_id,"
	" r.query_id, r.th, r.ti, r.tq, r.tt FROM requests r ORDER BY r.id;"
	"DROP TABLE requests; ALTER TABLE requests2 RENAME TO requests; DROP INDEX shapes_all;"
	"UPDATE events SET time = time - " BASE ";";

/* Time in µs of the row r (relative in the table), as an SQL expression. */
#define ABS_TIME(r) "(" r ".time + b.base)"

/* The columns of requests_v (version 2) and where they come from. */
#define REQUESTS_V_COLS \
	"r.id AS id, " TIME_TEXT(ABS_TIME("r")) " AS time," \
	" " ABS_TIME("r") " AS time_us, f.path AS file, r.line AS line, lb.name AS lb," \
	" a.text AS client, n.text AS net, r.port AS port, fe.name AS frontend," \
	" be.name AS backend, sv.name AS server, m.name AS method, p.name AS path," \
	" q.name AS query, h.name AS host, v.name AS version, r.status AS status," \
	" r.bytes AS bytes, r.th AS th, r.ti AS ti, r.tq AS tq, r.tr AS tr, r.tw AS tw," \
	" r.tc AS tc, r.tresp AS tresp, r.ta AS ta, r.tt AS tt, t.name AS term," \
	" r.ac AS ac, r.fc AS fc, r.bc AS bc, r.sc AS sc, r.rc AS rc, r.sq AS sq," \
	" r.bq AS bq, u.name AS ua, k.name AS key"
#define REQUESTS_V_FROM \
	" FROM (SELECT " BASE " AS base) b, requests r" \
	" LEFT JOIN files f ON f.id = r.file_id LEFT JOIN shapes s ON s.id = r.shape_id" \
	" LEFT JOIN lbs lb ON lb.id = r.lb_id LEFT JOIN addrs a ON a.id = r.addr_id" \
	" LEFT JOIN nets n ON n.id = r.net_id LEFT JOIN frontends fe ON fe.id = s.frontend_id" \
	" LEFT JOIN backends be ON be.id = s.backend_id LEFT JOIN servers sv ON sv.id = s.server_id" \
	" LEFT JOIN methods m ON m.id = s.method_id LEFT JOIN paths p ON p.id = r.path_id" \
	" LEFT JOIN queries q ON q.id = r.query_id LEFT JOIN hosts h ON h.id = r.host_id" \
	" LEFT JOIN versions v ON v.id = s.version_id LEFT JOIN terms t ON t.id = s.term_id" \
	" LEFT JOIN uas u ON u.id = r.ua_id LEFT JOIN keys k ON k.id = r.key_id;"

static const char views_v2[] =
	"CREATE VIEW requests_v AS SELECT " REQUESTS_V_COLS REQUESTS_V_FROM
	"CREATE VIEW events_v AS SELECT e.id AS id, " TIME_TEXT(ABS_TIME("e")) " AS time,"
	" " ABS_TIME("e") " AS time_us, f.path AS file, e.line AS line, lb.name AS lb,"
	" fe.name AS frontend, be.name AS backend, sv.name AS server, e.msg AS msg"
	" FROM (SELECT " BASE " AS base) b, events e LEFT JOIN files f ON f.id = e.file_id"
	" LEFT JOIN lbs lb ON lb.id = e.lb_id LEFT JOIN frontends fe ON fe.id = e.frontend_id"
	" LEFT JOIN backends be ON be.id = e.backend_id"
	" LEFT JOIN servers sv ON sv.id = e.server_id;";

/*
 * Query indices.  Requests have none (version 5): the rows of a run are
 * stored in time order and `runs` says what each run holds, which serves
 * every query the programs make (db_merge.c); the indices of version 3
 * cost 50 bytes a row and 1.3 to 1.9 s per million rows to build.  Events
 * are few: an index in time order is cheap.
 */
static const char indices_v5[] =
	"CREATE INDEX IF NOT EXISTS events_time ON events (time, file_id);";

/* Create the dictionary tables of lbt_dbi_dicts.  @return 0 or -1. */
static int create_dicts(sqlite3 *h, const char *path, lbt_err *err)
{
	char sql[160];

	for (int i = 0; i < LBT_DBI_NDICT; i++) {
		snprintf(sql, sizeof sql, "CREATE TABLE %s (id INTEGER PRIMARY KEY, "
		    "name TEXT NOT NULL);", lbt_dbi_dicts[i].table);
		if (lbt_dbi_exec(h, path, sql, err) < 0)
			return -1;
	}
	return 0;
}

/* Migration 0 -> 1: an empty file becomes a version-1 index. @return 0 or -1 */
static int migrate_1(sqlite3 *h, const char *path, lbt_err *err)
{
	if (lbt_dbi_exec(h, path, schema_v1, err) < 0 || create_dicts(h, path, err) < 0 ||
	    lbt_dbi_exec(h, path, views_v1, err) < 0)
		return -1;
	return 0;
}

/* Migration 1 -> 2: see migrate_v2_sql.  @return 0 or -1 */
static int migrate_2(sqlite3 *h, const char *path, lbt_err *err)
{
	if (lbt_dbi_exec(h, path, migrate_v2_sql, err) < 0 ||
	    lbt_dbi_exec(h, path, views_v2, err) < 0)
		return -1;
	return 0;
}

/*
 * Migration 2 -> 3: files.content, the fingerprint of a file's first
 * requests (db_index.c), so that the same requests under another wrapper
 * or compression are recognised and not stored twice.  Files indexed
 * before keep NULL: they are not compared.  @return 0 or -1
 */
static int migrate_3(sqlite3 *h, const char *path, lbt_err *err)
{
	return lbt_dbi_exec(h, path, "ALTER TABLE files ADD COLUMN content BLOB;", err);
}

/*
 * Migration 3 -> 4: shapes.tier, the tier of the requests of a shape
 * (lbt_tier: 1 lb, 2 backend, NULL unknown), so that an analysis over an
 * index of LB and NGINX logs counts one tier (lib/run/stream.c); requests_v
 * shows it by name.  Rows indexed before have none: they are kept by every
 * --tier, as records of no known tier are.  @return 0 or -1
 */
static int migrate_4(sqlite3 *h, const char *path, lbt_err *err)
{
	return lbt_dbi_exec(h, path, "ALTER TABLE shapes ADD COLUMN tier INTEGER;"
	    "DROP VIEW requests_v;"
	    "CREATE VIEW requests_v AS SELECT " REQUESTS_V_COLS ", CASE s.tier WHEN 1 THEN"
	    " 'lb' WHEN 2 THEN 'backend' END AS tier" REQUESTS_V_FROM, err);
}

/* Migration 4 -> 5: see the file comment and db_migrate.c.  @return 0 or -1 */
static int migrate_5(sqlite3 *h, const char *path, lbt_err *err)
{
	return lbt_dbi_migrate5(h, path, err);
}

/* Migrations, indexed by the version they produce (entry 0 unused). */
static int (*const migrations[LBT_DB_VERSION + 1])(sqlite3 *, const char *, lbt_err *) = {
	NULL, migrate_1, migrate_2, migrate_3, migrate_4, migrate_5,
};

/* Read PRAGMA user_version.  @return it, or -1 with err (not a database). */
static int user_version(sqlite3 *h, const char *path, lbt_err *err)
{
	sqlite3_stmt *st = NULL;
	int v = -1;

	if (sqlite3_prepare_v2(h, "PRAGMA user_version", -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_step(st) != SQLITE_ROW) {
		lbt_err_at(err, path, 0, "not an lbt index: %s", sqlite3_errmsg(h));
	} else {
		v = sqlite3_column_int(st, 0);
	}
	sqlite3_finalize(st);
	return v;
}

/* True when the database has no table at all (a new file). */
static int is_empty(sqlite3 *h)
{
	sqlite3_stmt *st = NULL;
	int empty = 0;

	if (sqlite3_prepare_v2(h, "SELECT count(*) FROM sqlite_master", -1, &st, NULL) ==
	    SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
		empty = sqlite3_column_int(st, 0) == 0;
	sqlite3_finalize(st);
	return empty;
}

/*
 * Bring the schema from version v to LBT_DB_VERSION, each step in its own
 * transaction together with the new user_version.  @return 0 or -1.
 */
static int migrate(sqlite3 *h, const char *path, int v, lbt_err *err)
{
	char sql[64];

	for (v = v + 1; v <= LBT_DB_VERSION; v++) {
		snprintf(sql, sizeof sql, "PRAGMA user_version = %d", v);
		if (lbt_dbi_exec(h, path, "BEGIN IMMEDIATE", err) < 0)
			return -1;
		if (migrations[v](h, path, err) < 0 || lbt_dbi_exec(h, path, sql, err) < 0 ||
		    lbt_dbi_exec(h, path, "COMMIT", err) < 0) {
			sqlite3_exec(h, "ROLLBACK", NULL, NULL, NULL);
			return -1;
		}
	}
	return 0;
}

/* Check the version of an open database; migrate when writable. @return 0 or -1 */
static int check_version(sqlite3 *h, const char *path, int writable, lbt_err *err)
{
	int v = user_version(h, path, err);

	if (v < 0)
		return -1;
	if (v > LBT_DB_VERSION)
		return lbt_err_at(err, path, 0, "index version %d is newer than this "
		    "program (%d)", v, LBT_DB_VERSION);
	if (v == 0 && !is_empty(h))
		return lbt_err_at(err, path, 0, "not an lbt index (a database with "
		    "other tables)");
	if (v == LBT_DB_VERSION)
		return 0;
	if (!writable)
		return lbt_err_at(err, path, 0, v == 0 ? "not an lbt index (empty)" :
		    "index version %d is old: run lbt-index on it to upgrade", v);
	/* A block is about 3 KB: 64 KB pages hold 20 (4 KB pages, one: 30 %
	 * of each page lost).  Only a new database can still choose. */
	if (v == 0 && lbt_dbi_exec(h, path, "PRAGMA page_size = 65536", err) < 0)
		return -1;
	return migrate(h, path, v, err);
}

/*
 * Open the index, in multi-thread mode (each handle is used by one thread,
 * so SQLite's per-call mutexes are dropped: -7 % of the load time), and
 * check or migrate its version; a writable handle has lbt_batch
 * (db_vtab.c).  @return the handle or NULL with err.
 */
sqlite3 *lbt_dbi_open(const char *path, int writable, lbt_err *err)
{
	sqlite3 *h = NULL;
	int flags = (writable ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READONLY) |
	    SQLITE_OPEN_NOMUTEX;

	if (sqlite3_open_v2(path, &h, flags, NULL) != SQLITE_OK) {
		lbt_err_at(err, path, 0, "cannot open index: %s",
		    h ? sqlite3_errmsg(h) : "out of memory");
		sqlite3_close(h);
		return NULL;
	}
	sqlite3_busy_timeout(h, 5000);
	/* lbt_batch before a migration: version 5's stores blocks through it */
	if ((writable && lbt_dbi_vtab_register(h, path, err) < 0) ||
	    check_version(h, path, writable, err) < 0) {
		sqlite3_close(h);
		return NULL;
	}
	return h;
}

/* Create the query indices that do not exist yet.  @return 0 or -1 with err. */
int lbt_dbi_create_indices(sqlite3 *h, const char *path, lbt_err *err)
{
	return lbt_dbi_exec(h, path, indices_v5, err);
}

/*
 * The time base of the index (meta 'time_base'): request and event times
 * are stored relative to it.  @return 1 with *base, 0 when none is set yet
 * (*base 0), -1 with err.
 */
int lbt_dbi_time_base(sqlite3 *h, const char *path, int64_t *base, lbt_err *err)
{
	sqlite3_stmt *st = NULL;
	int rc;

	*base = 0;
	if (sqlite3_prepare_v2(h, "SELECT value FROM meta WHERE name = 'time_base'", -1, &st,
	    NULL) != SQLITE_OK)
		return lbt_dbi_fail(h, path, "time base", err);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*base = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return lbt_dbi_fail(h, path, "time base", err);
	return rc == SQLITE_ROW;
}
