/*
 * out_table.c - the writers of lbt_out for people: TABLE rows are kept in
 * a block of up to BLOCK_ROWS rows (or BLOCK_BYTES of text) so the column
 * widths can be measured, then printed (widths only grow from one block to
 * the next, so a long listing keeps its columns where they were); Markdown
 * rows go straight to the FILE as their cells arrive.  Cells are escaped
 * for a terminal (see the escaping of every mode in out.c).  The writer
 * itself is out.c.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "lbt/esc.h"
#include "out_int.h"
#include "lbt/vec.h"

#define ANSI_BOLD  "\033[1m"
#define ANSI_DIM   "\033[2m"
#define ANSI_RESET "\033[0m"
#define ANSI_MARK  "\033[1;31m"

#define ELLIPSIS     "\xe2\x80\xa6"   /* U+2026, one column */
#define MIN_NARROWED 8                /* a text column is never narrowed below */

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
		if ((o->shown == NULL || o->shown[c]) && buf_put_safe(&o->buf, &o->len, &o->cap,
		    o->cols[c].name, strlen(o->cols[c].name), 1) == 0)
			fprintf(o->fp, "| %.*s ", (int)o->len, o->buf);
	}
	fputs("|\n", o->fp);
	for (int c = 0; c < o->ncols; c++)
		if (o->shown == NULL || o->shown[c])
			fputs(o->cols[c].type == LBT_COL_NUM ? "| ---: " : "| --- ", o->fp);
	fputs("|\n", o->fp);
}

/* Write one Markdown cell (s NULL = absent), and the row end after the last;
 * the caller printed the header before the first cell of the first row. */
void lbt_outi_md_cell(lbt_out *o, const char *s, size_t n)
{
	o->len = 0;
	if (o->shown != NULL && !o->shown[o->col])
		;                                 /* not among --fields */
	else if (s != NULL && buf_put_safe(&o->buf, &o->len, &o->cap, s, n, 1) == 0)
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

/* Byte offset of the character `k` of the (valid UTF-8) s[0..n), or n. */
static size_t char_offset(const char *s, size_t n, size_t k)
{
	size_t i = 0;

	for (; i < n; i++)
		if (((unsigned char)s[i] & 0xC0) != 0x80 && k-- == 0)
			break;
	return i;
}

/* Write s[0..n) (escaped text, `w` characters) in `room` < w characters:
 * its head and tail around an ellipsis, so that both ends stay readable
 * (a key's prefix, an address's last group). */
static void put_shortened(FILE *fp, const char *s, size_t n, size_t w, size_t room)
{
	size_t keep = room > 1 ? room - 1 : 0, head = (keep + 1) / 2, tail = keep - head;
	size_t h = char_offset(s, n, head), t = char_offset(s, n, w - tail);

	assert(room < w);
	fwrite(s, 1, h, fp);
	fputs(ELLIPSIS, fp);
	fwrite(s + t, 1, n - t, fp);
}

/* The first column shown (0 unless the fit left columns out). */
static int first_shown(const lbt_out *o)
{
	int c = 0;

	while (o->hidden && c < o->ncols - 1 && o->hidden[c])
		c++;
	return c;
}

/* True when c is the last column shown. */
static int last_shown(const lbt_out *o, int c)
{
	for (int k = c + 1; k < o->ncols; k++)
		if (o->hidden == NULL || !o->hidden[k])
			return 0;
	return 1;
}

/* Write one TABLE cell padded to width w, aligned by its column type. */
static void table_put(lbt_out *o, int c, const char *s, size_t n, int absent, int head)
{
	size_t tw = text_width(s, n), w = tw > o->width[c] ? o->width[c] : tw;
	size_t pad = o->width[c] - w;
	int right = o->cols[c].type == LBT_COL_NUM, last = last_shown(o, c);
	const char *on = head ? ANSI_BOLD : absent ? ANSI_DIM : NULL;

	if (o->hidden && o->hidden[c])
		return;
	if (c > first_shown(o))
		fputs("  ", o->fp);
	if (right)
		put_spaces(o->fp, pad);
	if (o->color && on)
		fputs(on, o->fp);
	if (tw > w)
		put_shortened(o->fp, s, n, tw, w);
	else
		fwrite(s, 1, n, o->fp);
	if (o->color && on)
		fputs(ANSI_RESET, o->fp);
	if (!right && !last)
		put_spaces(o->fp, pad);
}

/* Width of column c's name when a header is printed, else 0. */
static size_t name_width(const lbt_out *o, int c)
{
	return o->header ? text_width(o->cols[c].name, strlen(o->cols[c].name)) : 0;
}

/* Grow the column widths to fit the header and the buffered block. */
static void table_measure(lbt_out *o)
{
	for (int c = 0; c < o->ncols; c++) {
		size_t w = name_width(o, c);

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

/* Columns a line of the shown columns takes, separators included. */
static size_t line_width(const lbt_out *o)
{
	size_t w = 0;
	int shown = 0;

	for (int c = 0; c < o->ncols; c++) {
		if (o->hidden && o->hidden[c])
			continue;
		w += o->width[c];
		shown++;
	}
	return w + (shown > 1 ? 2 * (size_t)(shown - 1) : 0);
}

/* Leave out the next column of the drop order.  @return 0, or -1 when
 * none is left to leave out. */
static int hide_next(lbt_out *o)
{
	int best = -1;

	for (int c = 0; o->drop && c < o->ncols; c++)
		if (o->drop[c] > 0 && !o->hidden[c] && (best < 0 || o->drop[c] < o->drop[best]))
			best = c;
	if (best < 0)
		return -1;
	o->hidden[best] = 1;
	return 0;
}

/* Narrow the widest text column by one.  @return 0, or -1 when none can
 * be narrowed any more. */
static int narrow_widest(lbt_out *o)
{
	int best = -1;

	for (int c = 0; c < o->ncols; c++) {
		size_t floor = name_width(o, c) > MIN_NARROWED ? name_width(o, c) : MIN_NARROWED;

		if ((o->hidden && o->hidden[c]) || o->cols[c].type != LBT_COL_STR ||
		    o->width[c] <= floor || (o->narrow && !o->narrow[c]))
			continue;
		if (best < 0 || o->width[c] > o->width[best])
			best = c;
	}
	if (best < 0)
		return -1;
	o->limit[best] = --o->width[best];
	return 0;
}

/*
 * Fit the lines into o->max_width: the widths measured so far are first
 * held to what earlier blocks narrowed them to, then (before the header
 * only, so that the columns never change under it) columns are left out in
 * their drop order, then text columns narrowed, widest first.
 */
static void table_fit(lbt_out *o)
{
	size_t max = (size_t)o->max_width;

	if (o->max_width <= 0)
		return;
	if (o->hidden == NULL)
		o->hidden = calloc((size_t)(unsigned)o->ncols, 1);
	if (o->limit == NULL) {
		o->limit = calloc((size_t)(unsigned)o->ncols, sizeof *o->limit);
		if (o->hidden == NULL || o->limit == NULL) {
			lbt_outi_table_free(o);     /* out of memory: lines stay whole */
			o->max_width = 0;
			return;
		}
	}
	for (int c = 0; c < o->ncols; c++)
		if (o->limit[c] > 0 && o->width[c] > o->limit[c])
			o->width[c] = o->limit[c];
	while (!o->header_done && line_width(o) > max && hide_next(o) == 0)
		;
	while (line_width(o) > max && narrow_widest(o) == 0)
		;
}

/* Fit TABLE lines into `width` columns; 0 = no limit. */
void lbt_out_set_width(lbt_out *o, int width)
{
	o->max_width = o->mode == LBT_OUT_TABLE && width > 0 ? width : 0;
}

/* The columns that may be left out, first named first (see out.h). */
void lbt_out_set_drop(lbt_out *o, const char *names)
{
	unsigned rank = 0;

	assert(o->nrows == 0 && !o->header_done);
	if (o->mode != LBT_OUT_TABLE || names == NULL ||
	    (o->drop == NULL && (o->drop = calloc((size_t)(unsigned)o->ncols, sizeof *o->drop)) == NULL))
		return;                 /* out of memory: every column is kept */
	while (*names != '\0') {
		size_t n = strcspn(names, ",");

		rank++;
		for (int c = 0; c < o->ncols; c++)
			if (strlen(o->cols[c].name) == n && memcmp(o->cols[c].name, names, n) == 0 &&
			    o->drop[c] == 0)
				o->drop[c] = rank;
		names += n + (names[n] == ',');
	}
}

/* --fields in a TABLE: the columns not shown are hidden from the start
 * (the fit may hide more).  @return 0, or -1 when out of memory. */
int lbt_outi_table_hide(lbt_out *o, const unsigned char *shown)
{
	if (o->hidden == NULL && (o->hidden = calloc((size_t)(unsigned)o->ncols, 1)) == NULL)
		return -1;
	for (int c = 0; c < o->ncols; c++)
		o->hidden[c] = !shown[c];
	return 0;
}

/* The text columns that may be narrowed (see out.h). */
void lbt_out_set_narrow(lbt_out *o, const char *names)
{
	assert(o->nrows == 0 && !o->header_done);
	if (o->mode != LBT_OUT_TABLE || names == NULL ||
	    (o->narrow == NULL && (o->narrow = calloc((size_t)(unsigned)o->ncols, 1)) == NULL))
		return;                 /* out of memory: any text column narrows */
	while (*names != '\0') {
		size_t n = strcspn(names, ",");

		for (int c = 0; c < o->ncols; c++)
			if (strlen(o->cols[c].name) == n && memcmp(o->cols[c].name, names, n) == 0)
				o->narrow[c] = 1;
		names += n + (names[n] == ',');
	}
}

/* Free what the fit keeps (lbt_out_free). */
void lbt_outi_table_free(lbt_out *o)
{
	free(o->drop);
	free(o->narrow);
	free(o->hidden);
	free(o->limit);
	o->drop = NULL;
	o->narrow = NULL;
	o->hidden = NULL;
	o->limit = NULL;
}

/* Print the buffered TABLE block (header first, once) and empty it. */
void lbt_outi_table_flush(lbt_out *o)
{
	table_measure(o);
	table_fit(o);
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

/* True when the word w[0..n) (a trailing ',', ':' or '.' aside) is one of
 * the space-separated `marks`. */
static int is_marked(const char *w, size_t n, const char *marks)
{
	while (n > 0 && (w[n - 1] == ',' || w[n - 1] == ':' || w[n - 1] == '.'))
		n--;
	while (marks != NULL && n > 0 && *marks != '\0') {
		size_t k = strcspn(marks, " ");

		if (k == n && memcmp(marks, w, n) == 0)
			return 1;
		marks += k;
		while (*marks == ' ')
			marks++;
	}
	return 0;
}

/* Write the word p[0..n) escaped by `rule`, in red bold when it is marked. */
static void put_word(FILE *fp, const char *p, size_t n, lbt_esc_rule rule, const char *marks)
{
	int on = is_marked(p, n, marks);

	if (on)
		fputs(ANSI_MARK, fp);
	lbt_esc_fput(fp, p, n, rule);
	if (on)
		fputs(ANSI_RESET, fp);
}

/* A line of text with its marked words in red bold when `color`.
 * @return 0, or -1 on a write error. */
int lbt_out_line_marked(FILE *fp, const char *text, const char *marks, int color)
{
	const char *p = text;

	while (*p != '\0') {
		size_t n = strcspn(p, " ");

		put_word(fp, p, n, LBT_ESC_TERM, color ? marks : NULL);
		p += n;
		for (; *p == ' '; p++)
			putc(' ', fp);
	}
	putc('\n', fp);
	return ferror(fp) ? -1 : 0;
}

/* Write `text` wrapped at `width` columns, each word escaped by `rule`
 * (its escaped length is its width) and in red bold when it is one of
 * `marks` (NULL: none).  @return 0, or -1 on a write error. */
static int paragraph(FILE *fp, const char *text, int width, const char *first,
    const char *rest, lbt_esc_rule rule, const char *marks)
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
		put_word(fp, p, n, rule, marks);
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
	return paragraph(fp, text, width, first, rest, LBT_ESC_TERM, NULL);
}

/* lbt_out_paragraph with the words of `marks` in red bold when `color`.
 * @return 0, or -1 on a write error. */
int lbt_out_paragraph_marked(FILE *fp, const char *text, int width, const char *first,
    const char *rest, const char *marks, int color)
{
	return paragraph(fp, text, width, first, rest, LBT_ESC_TERM, color ? marks : NULL);
}

/* A Markdown paragraph wrapped at `width` columns: every word escaped as
 * if it started a line.  @return 0, or -1 on a write error. */
int lbt_out_md_paragraph(FILE *fp, const char *text, int width)
{
	return paragraph(fp, text, width, "", "", LBT_ESC_MD_LINE, NULL);
}
