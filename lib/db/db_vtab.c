/*
 * db_vtab.c - lbt_batch, a table-valued function over rows in the
 * writer's memory, so that a whole batch goes in with one statement:
 *
 *     INSERT INTO addrs (id, net_id, text) SELECT c0, c1, c2 FROM lbt_batch(?1)
 *
 * with ?1 bound to a struct lbt_dbi_vbatch by sqlite3_bind_pointer (the
 * pointer cannot be forged from SQL text: its type string must match).
 * SQLite's cost of a statement execution (about 0.8 µs here: VDBE start,
 * cursor open and seek) is then paid once per batch instead of once per
 * row; what is left per row is one VColumn per column and the B-tree
 * insert.  The module is eponymous-only (no CREATE VIRTUAL TABLE) and
 * registered on the writer's connection alone: a stock sqlite3 never sees
 * it, and the index holds no trace of it.
 */
#include <stdio.h>
#include <string.h>

#include "db_int.h"

#define POINTER_TYPE "lbt_dbi_vbatch"

/* The cursor: the batch and the row it is on. */
struct cursor {
	sqlite3_vtab_cursor base;
	struct lbt_dbi_vbatch *b;
	size_t i;
};

/* Declare the columns c0..c15 and the hidden argument.  @return SQLITE_OK or an error. */
static int vt_connect(sqlite3 *h, void *aux, int argc, const char *const *argv,
    sqlite3_vtab **vt, char **err)
{
	char sql[256];
	size_t n = (size_t)snprintf(sql, sizeof sql, "CREATE TABLE x(");
	int rc;

	(void)aux;
	(void)argc;
	(void)argv;
	(void)err;
	for (int i = 0; i < LBT_DBI_VCOLS; i++)
		n += (size_t)snprintf(sql + n, sizeof sql - n, "c%d, ", i);
	snprintf(sql + n, sizeof sql - n, "batch HIDDEN)");
	if ((rc = sqlite3_declare_vtab(h, sql)) != SQLITE_OK)
		return rc;
	*vt = sqlite3_malloc(sizeof **vt);
	if (*vt == NULL)
		return SQLITE_NOMEM;
	memset(*vt, 0, sizeof **vt);
	return SQLITE_OK;
}

/* Free the table.  @return SQLITE_OK */
static int vt_disconnect(sqlite3_vtab *vt)
{
	sqlite3_free(vt);
	return SQLITE_OK;
}

/*
 * The only plan: the batch argument given (batch = ?1), passed to
 * xFilter.  Without it there is nothing to read.  @return SQLITE_OK, or
 * SQLITE_CONSTRAINT for a plan without the argument.
 */
static int vt_best_index(sqlite3_vtab *vt, sqlite3_index_info *ii)
{
	(void)vt;
	for (int i = 0; i < ii->nConstraint; i++) {
		const struct sqlite3_index_constraint *c = &ii->aConstraint[i];

		if (c->iColumn == LBT_DBI_VCOLS && c->op == SQLITE_INDEX_CONSTRAINT_EQ &&
		    c->usable) {
			ii->aConstraintUsage[i].argvIndex = 1;
			ii->aConstraintUsage[i].omit = 1;
			ii->estimatedCost = 1;
			ii->estimatedRows = 1000;
			return SQLITE_OK;
		}
	}
	return SQLITE_CONSTRAINT;
}

/* A cursor.  @return SQLITE_OK or SQLITE_NOMEM */
static int vt_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out)
{
	struct cursor *c = sqlite3_malloc(sizeof *c);

	(void)vt;
	if (c == NULL)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof *c);
	*out = &c->base;
	return SQLITE_OK;
}

/* Free a cursor.  @return SQLITE_OK */
static int vt_close(sqlite3_vtab_cursor *c)
{
	sqlite3_free(c);
	return SQLITE_OK;
}

/* Start at the first row of the batch bound as the argument (none: empty). */
static int vt_filter(sqlite3_vtab_cursor *base, int idx, const char *s, int argc,
    sqlite3_value **argv)
{
	struct cursor *c = (struct cursor *)base;

	(void)idx;
	(void)s;
	c->b = argc > 0 ? sqlite3_value_pointer(argv[0], POINTER_TYPE) : NULL;
	c->i = 0;
	return SQLITE_OK;
}

/* Next row.  @return SQLITE_OK */
static int vt_next(sqlite3_vtab_cursor *base)
{
	((struct cursor *)base)->i++;
	return SQLITE_OK;
}

/* @return true after the last row */
static int vt_eof(sqlite3_vtab_cursor *base)
{
	struct cursor *c = (struct cursor *)base;

	return c->b == NULL || c->i >= c->b->n;
}

/* Value of column col of the current row (the hidden one reads NULL).  @return SQLITE_OK */
static int vt_column(sqlite3_vtab_cursor *base, sqlite3_context *out, int col)
{
	struct cursor *c = (struct cursor *)base;

	if (col < LBT_DBI_VCOLS)
		c->b->column(c->b->ctx, c->i, col, out);
	return SQLITE_OK;
}

/* The row number as rowid.  @return SQLITE_OK */
static int vt_rowid(sqlite3_vtab_cursor *base, sqlite3_int64 *rowid)
{
	*rowid = (sqlite3_int64)((struct cursor *)base)->i;
	return SQLITE_OK;
}

static const sqlite3_module batch_module = {
	.iVersion = 0,
	.xCreate = NULL,               /* eponymous-only */
	.xConnect = vt_connect,
	.xBestIndex = vt_best_index,
	.xDisconnect = vt_disconnect,
	.xDestroy = vt_disconnect,
	.xOpen = vt_open,
	.xClose = vt_close,
	.xFilter = vt_filter,
	.xNext = vt_next,
	.xEof = vt_eof,
	.xColumn = vt_column,
	.xRowid = vt_rowid,
};

/* Register lbt_batch on h; see db_int.h.  @return 0 or -1 with err. */
int lbt_dbi_vtab_register(sqlite3 *h, const char *path, lbt_err *err)
{
	if (sqlite3_create_module(h, "lbt_batch", &batch_module, NULL) != SQLITE_OK)
		return lbt_dbi_fail(h, path, "lbt_batch", err);
	return 0;
}

/* Insert batch b with st; see db_int.h.  @return 0 or -1 with err. */
int lbt_dbi_vtab_insert(sqlite3 *h, const char *path, sqlite3_stmt *st,
    struct lbt_dbi_vbatch *b, lbt_err *err)
{
	int rc;

	if (b->n == 0)
		return 0;
	sqlite3_bind_pointer(st, 1, b, POINTER_TYPE, NULL);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc == SQLITE_DONE ? 0 : lbt_dbi_fail(h, path, "insert", err);
}
