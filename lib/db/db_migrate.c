/*
 * db_migrate.c - migration of an index from schema version 4 to 5
 * (db_schema.c): one row per request becomes runs of blocks.
 *
 * SQL makes the new shapes (version 4's, tier included, with the file, LB
 * and status of its rows); the rows are then read in (file, time, line) order and stored
 * through the writer's own run code (db_run.c), so that a migrated index
 * is laid out exactly as a new one: runs of at most LBT_DBI_RUN_ROWS
 * requests of one file, with their lists.  Ids of requests change (they
 * follow the new order); nothing refers to them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db_int.h"

/* The shapes of version 4's rows with their file, LB and status. */
#define SHAPE_COLS "file_id, lb_id, frontend_id, backend_id, server_id, method_id," \
	" version_id, term_id, clock, status, tier"

static const char shapes_sql[] =
	"DROP VIEW requests_v; DROP VIEW events_v;"
	"DROP INDEX IF EXISTS requests_time; DROP INDEX IF EXISTS requests_key;"
	"DROP INDEX IF EXISTS requests_net; DROP INDEX IF EXISTS requests_lb;"
	"INSERT INTO shapes5 (" SHAPE_COLS ") SELECT DISTINCT r.file_id, r.lb_id,"
	" s.frontend_id, s.backend_id, s.server_id, s.method_id, s.version_id, s.term_id,"
	" coalesce(s.clock, 0), r.status, s.tier FROM requests r"
	" LEFT JOIN shapes s ON s.id = r.shape_id;"
	"CREATE INDEX shapes_all ON shapes5 (" SHAPE_COLS ");";

/*
 * Every row of version 4 with its new shape, in (file, time, line) order:
 * 0 file_id, 1 shape, 2 clock, 3 time, 4 line, 5 addr_id, 6 net_id, then
 * path key host ua query ids, bytes, and the numbers of lbt_dbi_nums.
 */
#define ROWS_HEAD "SELECT r.file_id, (SELECT n.id FROM shapes5 n WHERE n.file_id = r.file_id" \
	" AND n.lb_id IS r.lb_id AND n.frontend_id IS s.frontend_id" \
	" AND n.backend_id IS s.backend_id AND n.server_id IS s.server_id" \
	" AND n.method_id IS s.method_id AND n.version_id IS s.version_id" \
	" AND n.term_id IS s.term_id AND n.clock = coalesce(s.clock, 0)" \
	" AND n.status IS r.status AND n.tier IS s.tier), coalesce(s.clock, 0), r.time," \
	" r.line, r.addr_id, r.net_id, r.path_id, r.key_id, r.host_id, r.ua_id, r.query_id, r.bytes"
#define ROWS_FIXED 13

static const char finish_sql[] =
	"DROP TABLE requests; DROP TABLE shapes; DROP INDEX shapes_all;"
	"ALTER TABLE shapes5 RENAME TO shapes; ALTER TABLE addrs DROP COLUMN addr;";

/* Integer column c of st into *v.  @return whether it is not NULL. */
static int col(sqlite3_stmt *st, int c, int64_t *v)
{
	*v = sqlite3_column_int64(st, c);
	return sqlite3_column_type(st, c) != SQLITE_NULL;
}

/* The row of version 4 at the current row of st (ROWS_HEAD). */
static void old_row(sqlite3_stmt *st, struct lbt_dbi_row *r)
{
	int64_t v;

	memset(r, 0, sizeof *r);
	r->shape = sqlite3_column_int64(st, 1);
	r->clock = (uint8_t)sqlite3_column_int(st, 2);
	r->timed = (uint8_t)col(st, 3, &r->time);
	r->line = (uint64_t)sqlite3_column_int64(st, 4);
	col(st, 5, &r->id[LBT_DBI_I_ADDR]);
	col(st, 6, &r->net);
	for (int i = 1; i < LBT_DBI_NID; i++)
		col(st, 6 + i, &r->id[i]);
	r->has_bytes = (uint8_t)col(st, 12, &r->bytes);
	for (int k = 0; k < LBT_DBI_NNUM; k++) {
		if (!col(st, ROWS_FIXED + k, &v))
			continue;
		r->num[k] = (int32_t)v;
		r->num_have |= (uint32_t)1 << k;
	}
}

/* The SELECT of every old row (ROWS_HEAD, the numbers, the order), malloc'ed. */
static char *rows_sql(void)
{
	size_t cap = sizeof ROWS_HEAD + 256 + LBT_DBI_NNUM * 16, n;
	char *sql = malloc(cap);

	if (sql == NULL)
		return NULL;
	n = (size_t)snprintf(sql, cap, "%s", ROWS_HEAD);
	for (int k = 0; k < LBT_DBI_NNUM; k++)
		n += (size_t)snprintf(sql + n, cap - n, ", r.%s", lbt_dbi_nums[k].name);
	snprintf(sql + n, cap - n, " FROM requests r LEFT JOIN shapes s ON s.id = r.shape_id"
	    " ORDER BY r.file_id, r.time, r.line");
	return sql;
}

/* Store every old row in runs of blocks.  @return 0 or -1 with err. */
static int move_rows(sqlite3 *h, const char *path, lbt_err *err)
{
	struct lbt_dbi_store store;
	sqlite3_stmt *st = NULL;
	char *sql = rows_sql();
	int rc = -1;

	if (sql == NULL)
		return lbt_err_set(err, "out of memory");
	if (lbt_dbi_store_init(&store, h, path, err) == 0) {
		if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) != SQLITE_OK) {
			lbt_dbi_fail(h, path, "migration", err);
		} else {
			struct lbt_dbi_row r;

			while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
				old_row(st, &r);
				if (lbt_dbi_run_add(&store, sqlite3_column_int64(st, 0), &r, err) < 0)
					break;
			}
			rc = rc == SQLITE_DONE ? lbt_dbi_run_flush(&store, err) :
			    rc == SQLITE_ROW ? -1 : lbt_dbi_fail(h, path, "migration", err);
		}
	}
	sqlite3_finalize(st);
	lbt_dbi_store_free(&store);
	free(sql);
	return rc;
}

/* Migrate 4 -> 5; see db_int.h.  @return 0 or -1 with err. */
int lbt_dbi_migrate5(sqlite3 *h, const char *path, lbt_err *err)
{
	char *tables = lbt_dbi_tables5_sql(), *views = lbt_dbi_views_sql();
	int rc = -1;

	if (tables == NULL || views == NULL)
		lbt_err_set(err, "out of memory");
	else if (lbt_dbi_exec(h, path, tables, err) == 0 &&
	    lbt_dbi_exec(h, path, shapes_sql, err) == 0 && move_rows(h, path, err) == 0 &&
	    lbt_dbi_exec(h, path, finish_sql, err) == 0 && lbt_dbi_exec(h, path, views, err) == 0)
		rc = 0;
	free(tables);
	free(views);
	return rc;
}
