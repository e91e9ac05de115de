/*
 * db_sql.c - the calls to SQLite every db_*.c file makes, in one shape:
 * sqlite's error turned into an lbt_err naming the index file, a run of
 * statements without results, a statement prepared to be kept.
 *
 * Direction: every db_*.c file calls these; they call no other db_*.c
 * file.
 */
#include "db_int.h"

/* Fill err with "what: sqlite's message" and the file.  @return -1 */
int lbt_dbi_fail(sqlite3 *h, const char *path, const char *what, lbt_err *err)
{
	return lbt_err_at(err, path, 0, "%s: %s", what, h ? sqlite3_errmsg(h) : "out of memory");
}

/* Run sql (several statements allowed).  @return 0 or -1 with err. */
int lbt_dbi_exec(sqlite3 *h, const char *path, const char *sql, lbt_err *err)
{
	char *msg = NULL;

	if (sqlite3_exec(h, sql, NULL, NULL, &msg) == SQLITE_OK)
		return 0;
	lbt_err_at(err, path, 0, "sqlite: %s", msg ? msg : sqlite3_errmsg(h));
	sqlite3_free(msg);
	return -1;
}

/* Prepare sql on db into *st.  @return 0 or -1 with err. */
int lbt_dbi_prepare(lbt_db *db, const char *sql, sqlite3_stmt **st, lbt_err *err)
{
	if (sqlite3_prepare_v3(db->h, sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL) != SQLITE_OK)
		return lbt_dbi_fail(db->h, db->path, "prepare", err);
	return 0;
}
