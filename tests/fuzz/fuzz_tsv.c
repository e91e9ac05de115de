/*
 * fuzz_tsv.c - libFuzzer target: the lbt-tsv format (lbt-cat's TSV read
 * back, lib/read/format_tsv.c).
 *
 *     make fuzz            # builds every target, runs each FUZZ_SECONDS
 *
 * The input is a stream of lines, as lbt_source hands them out (split at
 * LF, one trailing CR removed), parsed in order by one lbt-tsv format: a
 * header line names the columns, rows follow, a later header reconfigures.
 * Whatever the bytes: no crash, no sanitizer report, a status among OK,
 * SKIP and BAD, and a BAD line says why.  Two more properties:
 *   - a record survives lbt-cat: written back through the TSV writer
 *     (lbt_out, the cells lbt-cat prints) under the same header and read
 *     again, it has the same fields with the same text
 *     (lbt_rec_format_field), kind and clock;
 *   - a second format that wants only some fields (lbt_format_set_wanted)
 *     reads every line the first one read, with the same values for
 *     those fields: leaving fields out never makes a line fail or change.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbt/format.h"
#include "lbt/out.h"
#include "lbt/rec.h"

#define MAX_COLS 64           /* a header has at most this many columns */

/* Masks for the second format, chosen by the first byte of the input. */
static const uint64_t subsets[] = {
	LBT_BIT(LBT_F_TIME) | LBT_BIT(LBT_F_CLIENT) | LBT_BIT(LBT_F_STATUS),
	LBT_BIT(LBT_F_PATH) | LBT_BIT(LBT_F_KEY) | LBT_BIT(LBT_F_MSG),
	LBT_BIT(LBT_F_FILE) | LBT_BIT(LBT_F_LINE) | LBT_BIT(LBT_F_BYTES),
	0,                        /* every field, as the first format */
};

/* Two buffers for field texts, each big enough for any value of the input. */
struct texts {
	char *a, *b;
	size_t room;
};

/* The columns of the last header line seen. */
struct header {
	lbt_field col[MAX_COLS];
	int n;
};

/* Open an lbt-tsv format; abort when the built-in is missing. */
static lbt_format *open_tsv(void)
{
	lbt_err err;
	lbt_format *f = lbt_format_open("lbt-tsv", &err);

	if (f == NULL)
		abort();
	return f;
}

/*
 * Parse one line and check what holds for any line: a known status, and a
 * reason on BAD.  @return the status
 */
static int parse(lbt_format *f, const char *s, size_t n, lbt_rec *rec)
{
	lbt_err err;
	int r;

	memset(&err, 0, sizeof err);
	r = lbt_format_parse(f, s, n, rec, &err);
	if (r != LBT_PARSE_OK && r != LBT_PARSE_SKIP && r != LBT_PARSE_BAD)
		abort();
	if (r == LBT_PARSE_BAD && err.msg[0] == '\0')
		abort();
	return r;
}

/*
 * Note the columns when s[0..n) is a header (every tab-separated word a
 * field name, at most MAX_COLS, format.h): lines that format_tsv.c skips
 * as headers.  Blank lines are skipped too and change nothing.  Trailing
 * CRs and LFs are not part of the line (lbt_format_parse drops them).
 */
static void note_header(struct header *h, const char *s, size_t n)
{
	struct header t = { .n = 0 };
	const char *p = s, *e;

	while (n > 0 && (s[n - 1] == '\r' || s[n - 1] == '\n'))
		n--;
	e = s + n;

	for (;;) {
		const char *tab = memchr(p, '\t', (size_t)(e - p));
		const char *end = tab ? tab : e;
		int fld = lbt_field_lookup(p, (size_t)(end - p));

		if (fld < 0 || t.n == MAX_COLS)
			return;
		t.col[t.n++] = (lbt_field)fld;
		if (tab == NULL)
			break;
		p = tab + 1;
	}
	*h = t;
}

/* One cell as lbt-cat writes it (cmd/lbt-cat.c print_rec). */
static void write_cell(lbt_out *o, const lbt_rec *rec, lbt_field f, struct texts *t)
{
	lbt_rec *r = (lbt_rec *)rec;
	const lbt_str *s = lbt_rec_str(r, f);
	const int32_t *v = lbt_rec_i32(r, f);
	if (!(rec->have & LBT_BIT(f)))
		lbt_out_absent(o);
	else if (s != NULL)
		lbt_out_str(o, s->p, s->n);
	else if (v != NULL)
		lbt_out_int(o, *v);
	else if (f == LBT_F_BYTES || f == LBT_F_LINE)
		lbt_out_int(o, f == LBT_F_BYTES ? rec->bytes : (int64_t)rec->line);
	else
		lbt_out_str(o, t->a, lbt_rec_format_field(rec, f, t->a, t->room));
}

/* rec under header h as TSV text (header line, then the row); malloc'ed. */
static char *write_tsv(const struct header *h, const lbt_rec *rec, struct texts *t,
    size_t *len)
{
	lbt_out_col cols[MAX_COLS];
	char *text = NULL;
	FILE *fp = open_memstream(&text, len);
	lbt_out *o;

	if (fp == NULL)
		abort();
	for (int i = 0; i < h->n; i++)
		cols[i] = (lbt_out_col){ lbt_field_name(h->col[i]),
		    lbt_field_is_numeric(h->col[i]) ? LBT_COL_NUM : LBT_COL_STR };
	if ((o = lbt_out_new(fp, LBT_OUT_TSV, cols, h->n, 0)) == NULL)
		abort();
	for (int i = 0; i < h->n; i++)
		write_cell(o, rec, h->col[i], t);
	if (lbt_out_free(o) != 0 || fclose(fp) != 0)
		abort();
	return text;
}

/* The next line of t[*pos..n), as lbt_source splits: at LF, one CR removed. */
static size_t next_line(const char *t, size_t n, size_t *pos, const char **line)
{
	const char *p = t + *pos;
	const char *nl = memchr(p, '\n', n - *pos);
	size_t len = nl ? (size_t)(nl - p) : n - *pos;

	*line = p;
	*pos += len + (nl != NULL);
	if (len > 0 && p[len - 1] == '\r')
		len--;
	return len;
}

/*
 * Fields in mask: present in a and b alike, with the same text.  @return 1
 * when they agree
 */
static int same_fields(const lbt_rec *a, const lbt_rec *b, uint64_t mask, struct texts *t)
{
	if ((a->have & mask) != (b->have & mask))
		return 0;
	for (int f = 0; f < LBT_F_COUNT; f++) {
		size_t na, nb;

		if (!(mask & a->have & LBT_BIT(f)))
			continue;
		na = lbt_rec_format_field(a, (lbt_field)f, t->a, t->room);
		nb = lbt_rec_format_field(b, (lbt_field)f, t->b, t->room);
		if (na != nb || memcmp(t->a, t->b, na) != 0)
			return 0;
	}
	return 1;
}

/*
 * Write rec (read under header h) as lbt-cat would and read it back with a
 * fresh format: the header is skipped, the row is a record with the same
 * fields, kind and clock.  Aborts when not.
 */
static void round_trip(const struct header *h, const lbt_rec *rec, struct texts *t)
{
	lbt_format *f = open_tsv();
	size_t len, pos = 0, n;
	char *text = write_tsv(h, rec, t, &len);
	const char *line;
	lbt_rec back;

	n = next_line(text, len, &pos, &line);
	if (parse(f, line, n, &back) != LBT_PARSE_SKIP)
		abort();
	n = next_line(text, len, &pos, &line);
	if (pos != len || parse(f, line, n, &back) != LBT_PARSE_OK)
		abort();
	if (back.have != rec->have || back.kind != rec->kind || back.clock != rec->clock ||
	    !same_fields(rec, &back, ~(uint64_t)0, t))
		abort();
	free(text);
	lbt_format_free(f);
}

/* Every line of the input through the full format and the partial one. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *t = (const char *)data, *line;
	uint64_t mask = size ? subsets[data[0] % 4] : 0, cmp = mask ? mask : ~(uint64_t)0;
	lbt_format *all = open_tsv(), *some = open_tsv();
	struct header h = { .n = 0 };
	struct texts tx = { malloc(size + 64), malloc(size + 64), size + 64 };
	size_t pos = 0;
	lbt_rec ra, rs;

	if (tx.a == NULL || tx.b == NULL)
		abort();
	lbt_format_set_wanted(some, mask);
	while (pos < size) {
		size_t n = next_line(t, size, &pos, &line);
		int r = parse(all, line, n, &ra), s = parse(some, line, n, &rs);

		if ((r == LBT_PARSE_SKIP) != (s == LBT_PARSE_SKIP) ||
		    (r == LBT_PARSE_OK && s != LBT_PARSE_OK))
			abort();
		if (r == LBT_PARSE_SKIP)
			note_header(&h, line, n);
		if (r != LBT_PARSE_OK)
			continue;
		if (!same_fields(&ra, &rs, cmp, &tx))
			abort();
		round_trip(&h, &ra, &tx);
	}
	free(tx.a);
	free(tx.b);
	lbt_format_free(all);
	lbt_format_free(some);
	return 0;
}
