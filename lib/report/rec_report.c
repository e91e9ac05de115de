/*
 * rec_report.c - records as rows (see rec_report.h): the one --fields
 * parser and the one record-to-cells mapping of lbt-cat and lbt-formats.
 */
#include <string.h>

#include "lbt/rec_report.h"

static const lbt_field default_fields[] = {
	LBT_F_TIME, LBT_F_LB, LBT_F_CLIENT, LBT_F_PORT, LBT_F_FRONTEND, LBT_F_BACKEND,
	LBT_F_SERVER, LBT_F_METHOD, LBT_F_PATH, LBT_F_QUERY, LBT_F_HOST, LBT_F_STATUS,
	LBT_F_BYTES, LBT_F_TR, LBT_F_TW, LBT_F_TC, LBT_F_TRESP, LBT_F_TA, LBT_F_TT,
	LBT_F_TERM, LBT_F_AC, LBT_F_FC, LBT_F_BC, LBT_F_SC, LBT_F_RC, LBT_F_SQ, LBT_F_BQ,
	LBT_F_UA, LBT_F_KEY, LBT_F_CLIENT_FROM, LBT_F_CONN, LBT_F_FILE, LBT_F_LINE,
};

/* Fill err with "--fields: 'x' is not a field" and the list of valid names.
 * @return -1 */
static int bad_field(const char *name, size_t n, lbt_err *err)
{
	char names[LBT_F_COUNT * 12] = "";

	for (int f = 0; f < LBT_F_COUNT; f++) {
		strcat(names, f ? " " : "");
		strcat(names, lbt_field_name((lbt_field)f));
	}
	return lbt_err_set(err, "--fields: '%.*s' is not a field (fields: %s)", (int)n, name,
	    names);
}

/* Parse a --fields list into f[].  @return the number of fields, or -1 with err. */
static int fields_parse(const char *list, lbt_field *f, lbt_err *err)
{
	int n = 0;

	for (const char *p = list;; p++) {
		const char *e = p + strcspn(p, ",");
		int k = lbt_field_lookup(p, (size_t)(e - p));

		if (k < 0)
			return bad_field(p, (size_t)(e - p), err);
		if (n == LBT_REC_MAX_COLS)
			return lbt_err_set(err, "--fields: more than %d columns", LBT_REC_MAX_COLS);
		f[n++] = (lbt_field)k;
		if (*e == '\0')
			return n;
		p = e;
	}
}

/* The columns of --fields or the defaults.  @return 0 or -1 with err. */
int lbt_rec_cols_parse(lbt_rec_cols *c, const char *fields, int events, lbt_err *err)
{
	int n = 0;

	if (fields && (n = fields_parse(fields, c->f, err)) < 0)
		return -1;
	if (fields == NULL) {
		for (n = 0; n < (int)(sizeof default_fields / sizeof default_fields[0]); n++)
			c->f[n] = default_fields[n];
		if (events)
			c->f[n++] = LBT_F_MSG;
	}
	for (int i = 0; i < n; i++)
		c->cols[i] = (lbt_out_col){ lbt_field_name(c->f[i]),
		    lbt_field_is_numeric(c->f[i]) ? LBT_COL_NUM : LBT_COL_STR };
	c->n = n;
	return 0;
}

/* @return the LBT_BIT mask of the columns' fields. */
uint64_t lbt_rec_cols_fields(const lbt_rec_cols *c)
{
	uint64_t m = 0;

	for (int i = 0; i < c->n; i++)
		m |= LBT_BIT(c->f[i]);
	return m;
}

/* Write field f of rec as one cell: absent, a string, a number (unless
 * `text`), or its text form (times, addresses, file names) made in buf
 * (the caller's, so that a row costs one buffer, not one a cell). */
static inline void cell(lbt_out *o, lbt_rec *rec, lbt_field f, int text, char *buf,
    size_t size)
{
	const lbt_str *s = lbt_rec_str(rec, f);
	const int32_t *v = text ? NULL : lbt_rec_i32(rec, f);

	if (!(rec->have & LBT_BIT(f)))
		lbt_out_absent(o);
	else if (s != NULL)
		lbt_out_str(o, s->p, s->n);
	else if (v != NULL)
		lbt_out_int(o, *v);
	else if (!text && (f == LBT_F_BYTES || f == LBT_F_LINE))
		lbt_out_int(o, f == LBT_F_BYTES ? rec->bytes : (int64_t)rec->line);
	else
		lbt_out_str(o, buf, lbt_rec_format_field(rec, f, buf, size));
}

/* One row of c's columns. */
void lbt_rec_row(lbt_out *o, lbt_rec *rec, const lbt_rec_cols *c)
{
	char buf[4096];       /* times, addresses, file names */

	for (int i = 0; i < c->n; i++)
		cell(o, rec, c->f[i], 0, buf, sizeof buf);
}

/* "field", "value" for every present field but provenance. */
void lbt_rec_explain(lbt_out *o, lbt_rec *rec)
{
	char buf[4096];

	for (int f = 0; f < LBT_F_COUNT; f++) {
		if (!(rec->have & LBT_BIT(f)) || f == LBT_F_FILE || f == LBT_F_LINE)
			continue;
		lbt_out_cstr(o, lbt_field_name((lbt_field)f));
		cell(o, rec, (lbt_field)f, 1, buf, sizeof buf);
	}
}
