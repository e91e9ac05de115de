/*
 * format_tsv.c - lbt-cat's TSV read back.
 *
 * The first line names the columns with lbt_field_name() words, in any
 * order and any subset ("time\tclient\tpath"); it returns LBT_PARSE_SKIP and
 * configures the columns (a later header, from a second file concatenated
 * to the first, reconfigures them).  Values use the TSV escapes \t \n \r \\
 * and \xHH (lib/out/out.c);
 * an empty value is an absent field.  Times are ISO 8601; a "clock" column
 * says which clock (lbt_clock_name), else REQUEST is assumed.  "file" and "line" columns keep
 * the provenance of the original log, so that evidence printed after
 * `lbt-cat | lbt-offenders` points at the log, not at the pipe (lbt_input
 * falls back to its own when they are absent, and lbt-index always uses its
 * own).  A non-empty "msg" makes an event.
 */
#include <string.h>

#include "format_int.h"
#include "lbt/addr.h"
#include "lbt/num.h"
#include "lbt/timeparse.h"

#define MAX_COLS 64

/*
 * Configure the columns when s[0..len) is a header (every tab-separated
 * word is a field name).  @return 1 header, 0 not a header
 */
static int try_header(lbt_format *f, const char *s, size_t len)
{
	int8_t cols[MAX_COLS];
	const char *p = s, *e = s + len;
	int n = 0;

	for (;;) {
		const char *tab = memchr(p, '\t', (size_t)(e - p));
		const char *end = tab ? tab : e;
		int fld = lbt_field_lookup(p, (size_t)(end - p));

		if (fld < 0 || n == MAX_COLS)
			return 0;
		cols[n++] = (int8_t)fld;
		if (tab == NULL)
			break;
		p = tab + 1;
	}
	memcpy(f->tsv_col, cols, (size_t)n);
	f->tsv_n = n;
	return 1;
}

/* The value of hex digit c, or -1. */
static int hex_digit(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
	    c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* Undo the TSV escapes of s[0..*n) into scratch when there are any. @return 0 or -1 */
static int unescape(struct fmt_ctx *c, const char **s, size_t *n)
{
	const char *p = *s, *e = *s + *n;
	char *o, *w;

	if (memchr(p, '\\', *n) == NULL)
		return 0;
	o = w = lbt_fmti_scratch(c->f, *n);
	if (o == NULL)
		return lbt_err_set(c->err, "out of scratch memory");
	while (p < e) {
		int hi, lo;

		if (*p == '\\' && p + 1 < e && p[1] != '\0' && strchr("tnr\\", p[1]) != NULL) {
			*w++ = p[1] == 't' ? '\t' : p[1] == 'n' ? '\n' : p[1] == 'r' ? '\r' : '\\';
			p += 2;
		} else if (*p == '\\' && e - p >= 4 && p[1] == 'x' && (hi = hex_digit(p[2])) >= 0 &&
		    (lo = hex_digit(p[3])) >= 0) {
			*w++ = (char)(hi << 4 | lo);       /* a control lbt_out wrote \xHH */
			p += 4;
		} else
			*w++ = *p++;
	}
	*s = o;
	*n = (size_t)(w - o);
	return 0;
}

/* "bad FIELD 'value' at column N". @return -1 */
static int bad(struct fmt_ctx *c, int fld, const char *s, size_t n, size_t col)
{
	return lbt_err_set(c->err, "bad %s '%.*s' at column %zu", lbt_field_name((lbt_field)fld),
	    (int)(n > 40 ? 40 : n), s, col);
}

/*
 * Keep a "file" or "line" value, when either is wanted: the file name as a
 * NUL-terminated copy in scratch (rec->file is a C string).  @return 0 or -1
 */
static int provenance(struct fmt_ctx *c, int fld, const char *s, size_t n, size_t col)
{
	const uint64_t both = LBT_BIT(LBT_F_FILE) | LBT_BIT(LBT_F_LINE);
	lbt_rec *r = c->rec;
	int64_t line;
	char *copy;

	if (!(c->f->wanted & both))
		return 0;
	if (fld == LBT_F_LINE) {
		if (lbt_num_i64(s, n, &line) < 0 || line < 1)
			return bad(c, fld, s, n, col);
		r->line = (uint64_t)line;
	} else {
		if (unescape(c, &s, &n) < 0 || (copy = lbt_fmti_scratch(c->f, n + 1)) == NULL)
			return lbt_err_set(c->err, "out of scratch memory");
		if (memchr(s, '\0', n) != NULL)       /* rec->file is a C string */
			return lbt_err_set(c->err, "bad file (a NUL byte) at column %zu", col);
		memcpy(copy, s, n);
		copy[n] = '\0';
		r->file = copy;
	}
	r->have |= LBT_BIT(fld);
	return 0;
}

/* Convert one non-empty value of field fld. @return 0 or -1 */
static int conv(struct fmt_ctx *c, int fld, const char *s, size_t n, size_t col)
{
	lbt_rec *r = c->rec;
	int32_t *i32 = lbt_rec_i32(r, (lbt_field)fld);
	lbt_str *str = lbt_rec_str(r, (lbt_field)fld);
	int ok = 0;

	if (fld == LBT_F_FILE || fld == LBT_F_LINE)
		return provenance(c, fld, s, n, col);
	if (!(c->f->wanted & LBT_BIT(fld)))
		return 0;
	if (fld == LBT_F_TIME) {
		ok = lbt_time_parse_iso(s, n, NULL, &r->time_us) == 0;
		if (!(r->have & LBT_BIT(LBT_F_CLOCK)))
			r->clock = LBT_CLOCK_REQUEST;
	} else if (fld == LBT_F_CLOCK) {
		int k = lbt_clock_lookup(s, n);

		ok = k > 0;
		r->clock = ok ? (lbt_clock)k : r->clock;
	} else if (fld == LBT_F_TIER) {
		int k = lbt_tier_lookup(s, n);

		ok = k > 0;
		r->tier = ok ? (lbt_tier)k : r->tier;
	} else if (fld == LBT_F_CLIENT_FROM) {
		int k = lbt_client_from_lookup(s, n);

		ok = k >= 0;
		r->client_from = ok ? (uint8_t)k : r->client_from;
	} else if (fld == LBT_F_CLIENT)
		ok = lbt_addr_parse(s, n, &r->client) == 0;
	else if (fld == LBT_F_CONN)
		ok = lbt_addr_parse(s, n, &r->conn) == 0;
	else if (fld == LBT_F_BYTES)
		ok = lbt_num_i64(s, n, &r->bytes) == 0;
	else if (i32 != NULL)
		ok = lbt_num_i32(s, n, i32) == 0;
	else if (str != NULL) {
		if (unescape(c, &s, &n) < 0)
			return -1;
		*str = lbt_str_make(s, n);
		ok = 1;
		if (fld == LBT_F_MSG)
			r->kind = LBT_KIND_EVENT;
	}
	if (!ok)
		return bad(c, fld, s, n, col);
	r->have |= LBT_BIT(fld);
	return 0;
}

/*
 * Parse a TSV line: a header (configures columns) or a record.
 * @return 1 header (skip), 0 record, -1 error
 */
int lbt_fmti_tsv_parse(struct fmt_ctx *c, const char *s, size_t len)
{
	lbt_format *f = c->f;
	const char *p = s, *e = s + len;
	int k = 0;

	if (try_header(f, s, len))
		return 1;
	if (f->tsv_n == 0)
		return lbt_err_set(c->err, "no lbt-tsv header line before this record");
	for (;;) {
		const char *tab = memchr(p, '\t', (size_t)(e - p));
		const char *end = tab ? tab : e;

		if (k == f->tsv_n)
			return lbt_err_set(c->err, "more than the %d columns of the header at column %zu",
			    f->tsv_n, (size_t)(p - s) + 1);
		if (end > p && conv(c, f->tsv_col[k], p, (size_t)(end - p), (size_t)(p - s) + 1) < 0)
			return -1;
		k++;
		if (tab == NULL)
			break;
		p = tab + 1;
	}
	if (k != f->tsv_n)
		return lbt_err_set(c->err, "expected %d columns, found %d", f->tsv_n, k);
	return 0;
}
