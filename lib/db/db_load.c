/*
 * db_load.c - the small tables of an index loaded into memory by id, for
 * the reader (db_read.c): dictionaries, file names, addresses, shapes.  A
 * row of requests then costs one step and array look-ups, never a join.
 * The address text is parsed here (the index keeps the text only, which
 * the view shows).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db_int.h"
#include "lbt/vec.h"

/* Free the arrays of s (a zeroed one accepted). */
void lbt_dbi_strs_free(struct lbt_dbi_strs *s)
{
	free(s->text);
	free(s->off);
	free(s->len);
	memset(s, 0, sizeof *s);
}

/* Append bytes p[0..n) as entry id of s (NUL-terminated). @return 0 or -1 */
static int strs_put(struct lbt_dbi_strs *s, int64_t id, const void *p, size_t n)
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

/* max(id) + 1 of table.  @return it, or -1 */
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

/* Load `col` of table into s by id; see db_int.h.  @return 0 or -1 with err. */
int lbt_dbi_strs_load(sqlite3 *h, const char *path, struct lbt_dbi_strs *s,
    const char *table, const char *col, lbt_err *err)
{
	char sql[96];
	sqlite3_stmt *st = NULL;
	int rc;

	s->n = table_size(h, table);
	if (s->n < 0)
		return lbt_dbi_fail(h, path, table, err);
	s->off = calloc((size_t)s->n, sizeof *s->off);
	s->len = malloc((size_t)s->n * sizeof *s->len);
	if (s->off == NULL || s->len == NULL)
		return lbt_err_set(err, "out of memory");
	for (int64_t i = 0; i < s->n; i++)
		s->len[i] = SIZE_MAX;
	snprintf(sql, sizeof sql, "SELECT id, %s FROM %s", col, table);
	if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) != SQLITE_OK)
		return lbt_dbi_fail(h, path, table, err);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		const void *p = sqlite3_column_blob(st, 1);

		if (id > 0 && id < s->n &&
		    strs_put(s, id, p, (size_t)sqlite3_column_bytes(st, 1)) < 0) {
			sqlite3_finalize(st);
			return lbt_err_set(err, "out of memory");
		}
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : lbt_dbi_fail(h, path, table, err);
}

/* Load the addresses by id (their text parsed); see db_int.h.  @return 0 or -1 */
int lbt_dbi_addrs_load(sqlite3 *h, const char *path, lbt_addr **addrs, int64_t *n,
    lbt_err *err)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if ((*n = table_size(h, "addrs")) < 0)
		return lbt_dbi_fail(h, path, "addrs", err);
	if ((*addrs = calloc((size_t)*n, sizeof **addrs)) == NULL)
		return lbt_err_set(err, "out of memory");
	if (sqlite3_prepare_v2(h, "SELECT id, text FROM addrs", -1, &st, NULL) != SQLITE_OK)
		return lbt_dbi_fail(h, path, "addrs", err);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		const char *t = (const char *)sqlite3_column_text(st, 1);

		if (id <= 0 || id >= *n || t == NULL ||
		    lbt_addr_parse(t, (size_t)sqlite3_column_bytes(st, 1), &(*addrs)[id]) < 0) {
			sqlite3_finalize(st);
			return lbt_err_at(err, path, 0, "address %lld of the index is not an "
			    "address", (long long)id);
		}
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : lbt_dbi_fail(h, path, "addrs", err);
}

/* The shape of the current row of a LBT_DBI_SHAPE_SELECT statement; see db_int.h. */
void lbt_dbi_shape_row(sqlite3_stmt *st, struct lbt_dbi_shape *k)
{
	memset(k, 0, sizeof *k);
	k->file_id = sqlite3_column_int64(st, 1);
	for (int i = 0; i < LBT_DBI_NSHAPE; i++)
		k->id[i] = sqlite3_column_int64(st, 2 + i);
	k->clock = sqlite3_column_int64(st, 2 + LBT_DBI_NSHAPE);
	k->status = sqlite3_column_type(st, 3 + LBT_DBI_NSHAPE) == SQLITE_NULL ?
	    LBT_DBI_NO_STATUS : sqlite3_column_int64(st, 3 + LBT_DBI_NSHAPE);
	k->tier = sqlite3_column_int64(st, 4 + LBT_DBI_NSHAPE);   /* NULL: 0, unknown */
}

/* Load the shapes by id (file_id 0: no such shape); see db_int.h.  @return 0 or -1 */
int lbt_dbi_shapes_load(sqlite3 *h, const char *path, struct lbt_dbi_shape **shapes,
    int64_t *n, lbt_err *err)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if ((*n = table_size(h, "shapes")) < 0)
		return lbt_dbi_fail(h, path, "shapes", err);
	if ((*shapes = calloc((size_t)*n, sizeof **shapes)) == NULL)
		return lbt_err_set(err, "out of memory");
	if (sqlite3_prepare_v2(h, LBT_DBI_SHAPE_SELECT, -1, &st, NULL) != SQLITE_OK)
		return lbt_dbi_fail(h, path, "shapes", err);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);

		if (id > 0 && id < *n)
			lbt_dbi_shape_row(st, &(*shapes)[id]);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : lbt_dbi_fail(h, path, "shapes", err);
}
