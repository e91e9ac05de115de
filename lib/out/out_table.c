/*
 * out_table.c - the writers of lbt_out for people: TABLE rows are kept in
 * a block of up to BLOCK_ROWS rows (or BLOCK_BYTES of text) so the column
 * widths can be measured, then printed (widths only grow from one block to
 * the next, so a long listing keeps its columns where they were); Markdown
 * rows go straight to the FILE as their cells arrive.  Cells are escaped
 * for a terminal (see the escaping of every mode in out.c).  The writer
 * itself is out.c.
 */
#include <stdlib.h>
#include <string.h>

#include "lbt/esc.h"
#include "out_int.h"
#include "lbt/vec.h"

#define ANSI_BOLD  "\033[1m"
#define ANSI_DIM   "\033[2m"
#define ANSI_RESET "\033[0m"

/*
 * Append s[0..n) to the growing buffer b (len, cap), escaped by the
 * output-safety rule (esc.h): for a terminal, or for Markdown when `md`.
 * @return 0, or -1 when out of memory.
 */
static int buf_put_safe(char **b, size_t *len, size_t *cap, const char *s, size_t n, int md)
{
	if (n > (SIZE_MAX - *len - 1) / 6 || LBT_GROW(*b, *cap, *len + LBT_ESC_MAX(n) + 1, 4096) < 0)
		return -1;
	*len += lbt_esc(*b + *len, *cap - *len, s, n, md ? LBT_ESC_MD : LBT_ESC_TERM);
	return 0;
}

/*
 * Escape the column names for a terminal once (a name may come from a log:
 * lbt-tarpit's frontend names head its tables) and point the columns at
 * the copies.  @return 0, or -1 when out of memory.
 */
int lbt_outi_table_names(lbt_out *o)
{
	size_t total = 0, off = 0;

	for (int c = 0; c < o->ncols; c++)
		total += lbt_esc(NULL, 0, o->cols[c].name, strlen(o->cols[c].name), LBT_ESC_TERM) + 1;
	if ((o->names = malloc(total)) == NULL)
		return -1;
	for (int c = 0; c < o->ncols; c++) {
		const char *name = o->cols[c].name;

		o->cols[c].name = o->names + off;
		off += lbt_esc(o->names + off, total - off, name, strlen(name), LBT_ESC_TERM) + 1;
	}
	return 0;
}

/* Code points in the (already escaped, valid UTF-8) s[0..n). */
static size_t text_width(const char *s, size_t n)
{
	size_t w = 0;

	for (size_t i = 0; i < n; i++)
		w += ((unsigned char)s[i] & 0xC0) != 0x80;
	return w;
}

/* Write `n` spaces. */
static void put_spaces(FILE *fp, size_t n)
{
	static const char sp[] = "                                ";

	while (n > 0) {
		size_t k = n < sizeof sp - 1 ? n : sizeof sp - 1;

		fwrite(sp, 1, k, fp);
		n -= k;
	}
}

/* Write the Markdown header and alignment lines. */
void lbt_outi_md_header(lbt_out *o)
{
	for (int c = 0; c < o->ncols; c++) {
		o->len = 0;
		if (buf_put_safe(&o->buf, &o->len, &o->cap, o->cols[c].name,
		    strlen(o->cols[c].name), 1) == 0)
			fprintf(o->fp, "| %.*s ", (int)o->len, o->buf);
	}
	fputs("|\n", o->fp);
	for (int c = 0; c < o->ncols; c++)
		fputs(o->cols[c].type == LBT_COL_NUM ? "| ---: " : "| --- ", o->fp);
	fputs("|\n", o->fp);
}

/* Write one Markdown cell (s NULL = absent), and the row end after the last;
 * the caller printed the header before the first cell of the first row. */
void lbt_outi_md_cell(lbt_out *o, const char *s, size_t n)
{
	o->len = 0;
	if (s != NULL && buf_put_safe(&o->buf, &o->len, &o->cap, s, n, 1) == 0)
		fprintf(o->fp, "| %.*s ", (int)o->len, o->buf);
	else
		fputs("| - ", o->fp);
	if (++o->col == o->ncols) {
		fputs("|\n", o->fp);
		o->col = 0;
	}
}

/* Make room for one more TABLE row.  @return 0 or -1 when out of memory. */
static int table_grow(lbt_out *o)
{
	/* one element a row: ncols cells */
	return lbt_grow((void **)&o->cells, &o->rows_cap, o->nrows + 1,
	    (size_t)o->ncols * sizeof *o->cells, 64);
}

/* Write one TABLE cell padded to width w, aligned by its column type. */
static void table_put(lbt_out *o, int c, const char *s, size_t n, int absent, int head)
{
	size_t pad = o->width[c] - text_width(s, n);
	int right = o->cols[c].type == LBT_COL_NUM, last = c == o->ncols - 1;
	const char *on = head ? ANSI_BOLD : absent ? ANSI_DIM : NULL;

	if (c > 0)
		fputs("  ", o->fp);
	if (right)
		put_spaces(o->fp, pad);
	if (o->color && on)
		fputs(on, o->fp);
	fwrite(s, 1, n, o->fp);
	if (o->color && on)
		fputs(ANSI_RESET, o->fp);
	if (!right && !last)
		put_spaces(o->fp, pad);
}

/* Grow the column widths to fit the header and the buffered block. */
static void table_measure(lbt_out *o)
{
	for (int c = 0; c < o->ncols; c++) {
		size_t w = o->header ? text_width(o->cols[c].name, strlen(o->cols[c].name)) : 0;

		if (w > o->width[c])
			o->width[c] = w;
		for (size_t r = 0; r < o->nrows; r++) {
			const struct cell *ce = &o->cells[r * (size_t)o->ncols + c];

			w = ce->absent ? 1 : text_width(o->buf + ce->off, ce->len);
			if (w > o->width[c])
				o->width[c] = w;
		}
	}
}

/* Print the buffered TABLE block (header first, once) and empty it. */
void lbt_outi_table_flush(lbt_out *o)
{
	table_measure(o);
	if (!o->header_done && o->header) {
		for (int c = 0; c < o->ncols; c++)
			table_put(o, c, o->cols[c].name, strlen(o->cols[c].name), 0, 1);
		putc('\n', o->fp);
	}
	o->header_done = 1;
	for (size_t r = 0; r < o->nrows; r++) {
		for (int c = 0; c < o->ncols; c++) {
			const struct cell *ce = &o->cells[r * (size_t)o->ncols + c];

			if (ce->absent)
				table_put(o, c, "-", 1, 1, 0);
			else
				table_put(o, c, o->buf + ce->off, ce->len, 0, 0);
		}
		putc('\n', o->fp);
	}
	o->nrows = 0;
	o->len = 0;
}

/* Buffer one TABLE cell (s NULL = absent); print the block when it is full. */
void lbt_outi_table_cell(lbt_out *o, const char *s, size_t n)
{
	struct cell *ce;

	if (o->col == 0 && table_grow(o) < 0)
		lbt_outi_table_flush(o);      /* out of memory: print what we have */
	if (o->rows_cap == 0)
		return;
	ce = &o->cells[o->nrows * (size_t)o->ncols + (size_t)o->col];
	ce->off = o->len;
	ce->len = 0;
	ce->absent = s == NULL;
	if (s != NULL && buf_put_safe(&o->buf, &o->len, &o->cap, s, n, 0) == 0)
		ce->len = o->len - ce->off;
	if (++o->col < o->ncols)
		return;
	o->col = 0;
	if (++o->nrows >= BLOCK_ROWS || o->len >= BLOCK_BYTES)
		lbt_outi_table_flush(o);
}

/* A line of text (escaped for a terminal), bold when asked.
 * @return 0, or -1 on a write error. */
int lbt_out_line(FILE *fp, const char *text, int bold)
{
	if (bold && text[0] != '\0')
		fputs(ANSI_BOLD, fp);
	lbt_esc_fput(fp, text, strlen(text), LBT_ESC_TERM);
	if (bold && text[0] != '\0')
		fputs(ANSI_RESET, fp);
	putc('\n', fp);
	return ferror(fp) ? -1 : 0;
}

/* Write `text` wrapped at `width` columns, each word escaped by `rule`
 * (its escaped length is its width).  @return 0, or -1 on a write error. */
static int paragraph(FILE *fp, const char *text, int width, const char *first,
    const char *rest, lbt_esc_rule rule)
{
	const char *p = text;
	int lead = (int)strlen(first), col = lead;

	fputs(first, fp);
	while (*p != '\0') {
		size_t n = strcspn(p, " "), w = lbt_esc(NULL, 0, p, n, rule);

		if (col > lead && col + 1 + (int)w > width) {
			putc('\n', fp);
			fputs(rest, fp);
			col = lead = (int)strlen(rest);
		} else if (col > lead) {
			putc(' ', fp);
			col++;
		}
		lbt_esc_fput(fp, p, n, rule);
		col += (int)w;
		p += n;
		while (*p == ' ')
			p++;
	}
	putc('\n', fp);
	return ferror(fp) ? -1 : 0;
}

/* A paragraph for a terminal wrapped at `width` columns with the two line
 * prefixes.  @return 0, or -1 on a write error. */
int lbt_out_paragraph(FILE *fp, const char *text, int width, const char *first,
    const char *rest)
{
	return paragraph(fp, text, width, first, rest, LBT_ESC_TERM);
}

/* A Markdown paragraph wrapped at `width` columns: every word escaped as
 * if it started a line.  @return 0, or -1 on a write error. */
int lbt_out_md_paragraph(FILE *fp, const char *text, int width)
{
	return paragraph(fp, text, width, "", "", LBT_ESC_MD_LINE);
}
