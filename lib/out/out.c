/*
 * out.c - tables for people and programs.  See include/lbt/out.h.
 *
 * TSV and NDJSON rows are built in the writer's own row buffer and handed
 * to the FILE with one fwrite per row (see "Row buffer" below); Markdown
 * rows go straight to the FILE as their cells arrive; TABLE rows are kept
 * in a block of up to BLOCK_ROWS rows (or BLOCK_BYTES of text) so the
 * column widths can be measured, then printed.  Widths only grow from one block to the next, so a
 * long listing keeps its columns where they were.
 *
 * Escaping, by mode (docs/output-safety.md; the unsafe characters are
 * esc.h's: C0, DEL, C1, the bidi controls, bytes that are not UTF-8):
 *   TSV    \t \n \r \\ as two-character escapes; the other controls (C0,
 *          DEL) and the bytes of a C1 or bidi control as \xHH, which
 *          lbt's TSV reader undoes; every other byte as it is (a byte that
 *          is not UTF-8 included: TSV keeps the exact bytes).
 *   JSON   RFC 8259 strings: \" \\ \b \f \n \r \t, other bytes below 0x20
 *          and DEL as \u00XX, C1 and bidi controls as \uXXXX; other valid
 *          UTF-8 passes through; a byte that is not part
 *          of valid UTF-8 is written as \u00XX with the byte's value (read
 *          as Latin-1), so the output is always valid JSON and no byte of
 *          evidence is lost (U+FFFD would lose it).  A consumer that needs
 *          the exact bytes can tell the two apart only by context.
 *   TABLE  esc.h's terminal rule (LBT_ESC_TERM): \t \n \r, \xHH for other
 *          C0 controls, DEL and bytes that are not UTF-8, \uXXXX for C1 and
 *          bidi controls.  Widths count code points (no East Asian width
 *          table).
 *   MD     esc.h's Markdown rule (LBT_ESC_MD): the terminal rule, & < > as
 *          entities, \ ` * _ [ ] | ~ after a backslash.
 * A write error (EPIPE, ENOSPC) is remembered by the FILE and reported by
 * lbt_out_flush() / lbt_out_free().
 *
 * This file is the writer, its cells and the TSV and NDJSON rows; the TABLE
 * and Markdown writers are out_table.c, what both share out_int.h.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lbt/esc.h"
#include "lbt/utf8.h"
#include "lbt/out.h"
#include "lbt/timeparse.h"
#include "out_int.h"

static int json_keys(lbt_out *o);
static void json_keys_free(lbt_out *o);

/* Mode to use when none was asked: TABLE on a terminal, TSV otherwise. */
lbt_out_mode lbt_out_default_mode(FILE *fp)
{
	return isatty(fileno(fp)) ? LBT_OUT_TABLE : LBT_OUT_TSV;
}

/*
 * Make a writer for cols[0..ncols) on fp.  The column names must outlive
 * the writer.  @return the writer, or NULL when out of memory or ncols < 1.
 */
lbt_out *lbt_out_new(FILE *fp, lbt_out_mode mode, const lbt_out_col *cols, int ncols,
    int color)
{
	lbt_out *o;

	if (ncols < 1 || (o = calloc(1, sizeof *o)) == NULL)
		return NULL;
	o->fp = fp;
	o->mode = mode;
	o->ncols = ncols;
	o->color = color && mode == LBT_OUT_TABLE;
	o->header = 1;
	o->cols = malloc((size_t)ncols * sizeof *cols);
	o->width = calloc((size_t)ncols, sizeof *o->width);
	if (o->cols == NULL || o->width == NULL) {
		free(o->cols);
		free(o->width);
		free(o);
		return NULL;
	}
	memcpy(o->cols, cols, (size_t)ncols * sizeof *cols);
	if ((mode == LBT_OUT_TSV || mode == LBT_OUT_JSON) && (o->row = malloc(ROW_CAP)) == NULL) {
		lbt_out_free(o);
		return NULL;
	}
	if (mode == LBT_OUT_TABLE && lbt_outi_table_names(o) < 0) {
		lbt_out_free(o);
		return NULL;
	}
	if (mode == LBT_OUT_JSON && json_keys(o) < 0) {
		lbt_out_free(o);
		return NULL;
	}
	return o;
}

/* Flush the FILE after every streamed row when on; see out.h. */
void lbt_out_set_line_flush(lbt_out *o, int on)
{
	o->line_flush = on;
}

/* Turn the header line off (TSV, TABLE) or on; Markdown always has one. */
void lbt_out_set_header(lbt_out *o, int on)
{
	o->header = on;
}

/*
 * Row buffer (TSV, JSON).  Cells are escaped into o->row and the finished
 * row goes to the FILE with one fwrite: a row used to cost 60 to 120 stdio
 * calls.  Measured with callgrind, 100k lines of bench/genlog.sh, default
 * fields (31 cells), together with the escape tables below: stdio
 * (fwrite_unlocked, _IO_file_xsputn, mempcpy) from 2750 to 85 (TSV) and
 * from 5180 to 165 (JSON) instructions per line; whole lbt-cat from 16605
 * to 12594 (TSV) and 19763 to 13887 (JSON).  The FILE still receives
 * whole rows in order, so writes the caller makes to it between rows
 * interleave as before, and its error flag still reports failed writes.
 * The helpers are inline (measured: lbt-cat --json from 13200 to 12800,
 * --tsv from 11710 to 11660 instructions per line).
 */

/* Hand the buffered bytes to the FILE and empty the buffer. */
static void row_flush(lbt_out *o)
{
	if (o->rlen > 0)
		fwrite(o->row, 1, o->rlen, o->fp);
	o->rlen = 0;
}

/* Make room for `need` (<= ROW_CAP) more bytes.  @return where they go. */
static inline char *row_room(lbt_out *o, size_t need)
{
	if (ROW_CAP - o->rlen < need)
		row_flush(o);
	return o->row + o->rlen;
}

/* Append s[0..n) as it is; a piece too long for the buffer goes straight out. */
static inline void row_put(lbt_out *o, const char *s, size_t n)
{
	if (ROW_CAP - o->rlen < n) {
		row_flush(o);
		if (n >= ROW_CAP) {
			fwrite(s, 1, n, o->fp);
			return;
		}
	}
	memcpy(o->row + o->rlen, s, n);
	o->rlen += n;
}

/* Append one byte. */
static inline void row_byte(lbt_out *o, char c)
{
	*row_room(o, 1) = c;
	o->rlen++;
}

/*
 * TSV escapes: the letter after the backslash, 'x' for a control written
 * \xHH, 'u' for the first byte of a sequence that may be a C1 or bidi
 * control (U+0080-U+00BF, U+0600-U+063F, U+2000-U+2FFF), 0 for a byte
 * copied as it is.  Scanning with this table and copying each clean run
 * with one memcpy replaced four compares per byte and an fwrite per run
 * (measured, with the row buffer: put_tsv from 3490 to 1570 instructions
 * per line).
 */
static const char tsv_esc[256] = {
	'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 't', 'n', 'x', 'x', 'r', 'x', 'x',
	'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x',
	['\\'] = '\\', [0x7F] = 'x', [0xC2] = 'u', [0xD8] = 'u', [0xE2] = 'u',
};

/* Word tricks: ONES has 0x01 in every byte, HIGHS 0x80. */
#define ONES  0x0101010101010101ull
#define HIGHS 0x8080808080808080ull

/* Nonzero when some byte of w is below b (b <= 0x80); the scans only use
 * it to leave the word loop, the byte tables decide. */
static inline uint64_t any_below(uint64_t w, unsigned b)
{
	return (w - ONES * b) & ~w & HIGHS;
}

/* Nonzero when some byte of w equals c. */
static inline uint64_t any_equal(uint64_t w, unsigned char c)
{
	return any_below(w ^ (ONES * c), 1);
}

/*
 * First i in [i, n) with tsv_esc[u[i]] set, or n.  Eight bytes at a time
 * while no byte is a control, a backslash or the first byte of a possible
 * C1 or bidi control (measured, before the controls: put_tsv from 1570 to
 * 870 instructions per line).
 */
static size_t tsv_scan(const unsigned char *u, size_t i, size_t n)
{
	for (; i + 8 <= n; i += 8) {
		uint64_t w;

		memcpy(&w, u + i, 8);
		if (any_below(w, 0x20) | any_equal(w, '\\') | any_equal(w, 0x7F) |
		    any_equal(w, 0xC2) | any_equal(w, 0xD8) | any_equal(w, 0xE2))
			break;
	}
	while (i < n && tsv_esc[u[i]] == 0)
		i++;
	return i;
}

/* Append the TSV escape of the k bytes at u: \t \n \r \\, else \xHH each. */
static void put_tsv_escape(lbt_out *o, const unsigned char *u, size_t k)
{
	static const char hex[] = "0123456789abcdef";
	char *d = row_room(o, 4 * k);

	if (k == 1 && tsv_esc[u[0]] != 'x') {
		d[0] = '\\';
		d[1] = tsv_esc[u[0]];
		o->rlen += 2;
		return;
	}
	for (size_t j = 0; j < k; j++, d += 4) {
		memcpy(d, "\\x", 2);
		d[2] = hex[u[j] >> 4];
		d[3] = hex[u[j] & 15];
	}
	o->rlen += 4 * k;
}

/* Append s[0..n) escaped for TSV. */
static void put_tsv(lbt_out *o, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t run = 0, i = 0, k = 1;
	unsigned long cp;

	while ((i = tsv_scan(u, i, n)) < n) {
		if (tsv_esc[u[i]] == 'u' && lbt_esc_next(u + i, n - i, &k, &cp) != LBT_ESC_CTRL) {
			i += k;           /* a character that may pass */
			continue;
		}
		if (tsv_esc[u[i]] != 'u')
			k = 1;
		row_put(o, s + run, i - run);
		put_tsv_escape(o, u + i, k);
		run = i += k;
	}
	row_put(o, s + run, n - run);
}

/*
 * JSON byte classes: 0 copied as it is, 1 escaped, 2 starts a UTF-8
 * sequence to check.  One table look-up per clean byte instead of four
 * compares (measured with the row buffer: put_json_str from 2220 to 1700
 * instructions per line, lbt-cat --json).
 */
#define J1 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1
#define J2 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2
static const unsigned char json_cls[256] = {
	J1, J1, ['"'] = 1, ['\\'] = 1, [0x7F] = 1,
	[0x80] = J2, J2, J2, J2, J2, J2, J2, J2,
};
#undef J1
#undef J2

/* JSON short escapes: the letter after the backslash, 0 for \u00XX. */
static const char json_short[256] = {
	['"'] = '"', ['\\'] = '\\', ['\b'] = 'b', ['\f'] = 'f', ['\n'] = 'n',
	['\r'] = 'r', ['\t'] = 't',
};

/* Append byte c as a JSON escape (\" \\ \b \f \n \r \t, else \u00XX). */
static void put_json_escape(lbt_out *o, unsigned char c)
{
	static const char hex[] = "0123456789abcdef";
	char *d = row_room(o, 6);

	d[0] = '\\';
	if (json_short[c] != 0) {
		d[1] = json_short[c];
		o->rlen += 2;
		return;
	}
	memcpy(d + 1, "u00", 3);
	d[4] = hex[c >> 4];
	d[5] = hex[c & 15];
	o->rlen += 6;
}

/* Append code point cp (< 0x10000) as \uXXXX. */
static void put_json_u(lbt_out *o, unsigned long cp)
{
	static const char hex[] = "0123456789abcdef";
	char *d = row_room(o, 6);

	memcpy(d, "\\u", 2);
	for (int j = 0; j < 4; j++)
		d[2 + j] = hex[cp >> (12 - 4 * j) & 15];
	o->rlen += 6;
}

/*
 * First i in [i, n) with json_cls[u[i]] set, or n.  Eight bytes at a time
 * while all are printable ASCII other than '"' and '\\' (measured:
 * put_json_str from 1700 to 1190 instructions per line).
 */
static size_t json_scan(const unsigned char *u, size_t i, size_t n)
{
	for (; i + 8 <= n; i += 8) {
		uint64_t w;

		memcpy(&w, u + i, 8);
		if (any_below(w, 0x20) | (w & HIGHS) | any_equal(w, '"') | any_equal(w, '\\') |
		    any_equal(w, 0x7F))
			break;
	}
	while (i < n && json_cls[u[i]] == 0)
		i++;
	return i;
}

/* Append s[0..n) as a JSON string with its quotes (see the file comment). */
static void put_json_str(lbt_out *o, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t run = 0, i = 0, k;
	unsigned long cp;

	row_byte(o, '"');
	while ((i = json_scan(u, i, n)) < n) {
		if (json_cls[u[i]] == 2 && (k = lbt_utf8_len(u + i, n - i)) > 0) {
			if ((u[i] == 0xC2 || u[i] == 0xD8 || u[i] == 0xE2) &&
			    lbt_esc_next(u + i, n - i, &k, &cp) == LBT_ESC_CTRL) {
				row_put(o, s + run, i - run);
				put_json_u(o, cp);     /* a C1 or bidi control */
				run = i + k;
			}
			i += k;
			continue;
		}
		row_put(o, s + run, i - run);
		put_json_escape(o, u[i]);
		run = ++i;
	}
	row_put(o, s + run, n - run);
	row_byte(o, '"');
}

/*
 * Make the JSON keys of every column once: {"name": for the first,
 * ,"name": for the others (names escaped, built in the row buffer).
 * @return 0, or -1 when out of memory.
 */
static int json_keys(lbt_out *o)
{
	o->jkey = calloc((size_t)o->ncols, sizeof *o->jkey);
	o->jkey_len = calloc((size_t)o->ncols, sizeof *o->jkey_len);
	if (o->jkey == NULL || o->jkey_len == NULL)
		return -1;
	for (int c = 0; c < o->ncols; c++) {
		if (strlen(o->cols[c].name) > ROW_CAP / 8)
			return -1;       /* would not fit the buffer escaped */
		o->rlen = 0;
		row_byte(o, c == 0 ? '{' : ',');
		put_json_str(o, o->cols[c].name, strlen(o->cols[c].name));
		row_byte(o, ':');
		if ((o->jkey[c] = malloc(o->rlen)) == NULL)
			return -1;
		memcpy(o->jkey[c], o->row, o->rlen);
		o->jkey_len[c] = o->rlen;
	}
	o->rlen = 0;
	return 0;
}

/* Free the JSON keys. */
static void json_keys_free(lbt_out *o)
{
	for (int c = 0; o->jkey && c < o->ncols; c++)
		free(o->jkey[c]);
	free(o->jkey);
	free(o->jkey_len);
}

/* True when s[0..n) is a JSON number (-?int[.frac][e[+-]exp]). */
static int is_json_number(const char *s, size_t n)
{
	size_t i = 0, d;

	if (i < n && s[i] == '-')
		i++;
	for (d = i; i < n && s[i] >= '0' && s[i] <= '9'; i++)
		;
	if (i == d || (s[d] == '0' && i - d > 1))
		return 0;
	if (i < n && s[i] == '.') {
		for (d = ++i; i < n && s[i] >= '0' && s[i] <= '9'; i++)
			;
		if (i == d)
			return 0;
	}
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		if (++i < n && (s[i] == '+' || s[i] == '-'))
			i++;
		for (d = i; i < n && s[i] >= '0' && s[i] <= '9'; i++)
			;
		if (i == d)
			return 0;
	}
	return i == n;
}

/* Write the TSV header line (column names, escaped). */
static void tsv_header(lbt_out *o)
{
	for (int c = 0; c < o->ncols; c++) {
		if (c > 0)
			row_byte(o, '\t');
		put_tsv(o, o->cols[c].name, strlen(o->cols[c].name));
	}
	row_byte(o, '\n');
	row_flush(o);
}

/* Print the header of a streamed mode once, before the first row. */
static void stream_header(lbt_out *o)
{
	if (o->header_done)
		return;
	o->header_done = 1;
	if (o->mode == LBT_OUT_TSV && o->header)
		tsv_header(o);
	else if (o->mode == LBT_OUT_MD)
		lbt_outi_md_header(o);
}

/*
 * Start a TSV or JSON cell: the header before the first row, then the
 * separator (TSV) or the key (JSON) of the current column.
 */
static inline void row_cell_start(lbt_out *o)
{
	if (o->col == 0)
		stream_header(o);
	if (o->mode == LBT_OUT_JSON)
		row_put(o, o->jkey[o->col], o->jkey_len[o->col]);
	else if (o->col > 0)
		row_byte(o, '\t');
}

/* End a TSV or JSON cell; after the last column, close and write the row. */
static void row_cell_end(lbt_out *o)
{
	if (++o->col < o->ncols)
		return;
	o->col = 0;
	if (o->mode == LBT_OUT_JSON)
		row_byte(o, '}');
	row_byte(o, '\n');
	row_flush(o);
	if (o->line_flush)
		fflush(o->fp);      /* its error stays in the FILE's flag (lbt_out_flush) */
}

/*
 * Write one cell in a streamed mode (TSV, JSON, MD).  s NULL = absent;
 * `bare` = a number: unquoted in JSON.
 */
static void stream_cell(lbt_out *o, const char *s, size_t n, int bare)
{
	if (o->mode == LBT_OUT_MD) {
		if (o->col == 0)
			stream_header(o);
		lbt_outi_md_cell(o, s, n);
		return;
	}
	row_cell_start(o);
	if (o->mode == LBT_OUT_TSV) {
		if (s != NULL)
			put_tsv(o, s, n);
	} else if (s == NULL) {
		row_put(o, "null", 4);
	} else if (bare || (o->cols[o->col].type == LBT_COL_NUM && is_json_number(s, n))) {
		row_put(o, s, n);
	} else {
		put_json_str(o, s, n);
	}
	row_cell_end(o);
}

/* Route one cell to the mode's writer. */
static void out_cell(lbt_out *o, const char *s, size_t n, int bare)
{
	if (o->mode == LBT_OUT_TABLE)
		lbt_outi_table_cell(o, s, n);
	else
		stream_cell(o, s, n, bare);
}

/* A string cell s[0..n). */
void lbt_out_str(lbt_out *o, const char *s, size_t n)
{
	out_cell(o, s ? s : "", s ? n : 0, 0);
}

/* A NUL-terminated string cell; NULL is an absent cell. */
void lbt_out_cstr(lbt_out *o, const char *s)
{
	out_cell(o, s, s ? strlen(s) : 0, 0);
}

/* Decimal digits of u (1 for 0). */
static size_t count_digits(uint64_t u)
{
	size_t n = 1;

	for (; u >= 10000; u /= 10000)
		n += 4;
	return n + (u >= 10) + (u >= 100) + (u >= 1000);
}

/*
 * Write u in decimal so that it ends just before `end`, two digits per
 * division (measured: lbt_out_int with its conversion from 1380 to 1200
 * instructions per line, lbt-cat --tsv, 16 integer cells).  @return where the digits start.
 */
static char *put_digits(char *end, uint64_t u)
{
	static const char pairs[201] =
	"0001020304050607080910111213141516171819"
	"2021222324252627282930313233343536373839"
	"4041424344454647484950515253545556575859"
	"6061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

	for (; u >= 100; u /= 100) {
		end -= 2;
		memcpy(end, pairs + 2 * (u % 100), 2);
	}
	if (u >= 10) {
		end -= 2;
		memcpy(end, pairs + 2 * u, 2);
	} else {
		*--end = (char)('0' + u);
	}
	return end;
}

/*
 * An integer cell (bare in JSON), converted without printf.  TSV and JSON
 * write the digits straight into the row buffer instead of through
 * out_cell and put_tsv (measured: 86 instructions per integer cell before
 * the two-digit conversion, from ~160).
 */
void lbt_out_int(lbt_out *o, int64_t v)
{
	uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
	size_t n = count_digits(u) + (v < 0);
	char b[24], *p;

	if (o->mode != LBT_OUT_TSV && o->mode != LBT_OUT_JSON) {
		p = put_digits(b + sizeof b, u);
		if (v < 0)
			*--p = '-';
		out_cell(o, p, (size_t)(b + sizeof b - p), 1);
		return;
	}
	row_cell_start(o);
	p = put_digits(row_room(o, n) + n, u);
	o->rlen += n;
	if (v < 0)
		*--p = '-';
	row_cell_end(o);
}

/* A time cell with milliseconds; see out.h. */
void lbt_out_time(lbt_out *o, int64_t us)
{
	char b[48];

	out_cell(o, b, lbt_time_format(us, 0, b, sizeof b), 0);
}

/* A time cell with whole seconds, or milliseconds when it has a fraction. */
void lbt_out_time_s(lbt_out *o, int64_t us)
{
	char b[48];

	out_cell(o, b, lbt_time_format_s(us, b, sizeof b), 0);
}

/* A number with `decimals` digits after the point; NaN and infinities are absent. */
void lbt_out_double(lbt_out *o, double v, int decimals)
{
	char b[64];
	int n;

	if (!isfinite(v) || fabs(v) > 1e30) {
		out_cell(o, NULL, 0, 0);
		return;
	}
	n = snprintf(b, sizeof b, "%.*f", decimals < 0 ? 0 : decimals > 17 ? 17 : decimals, v);
	out_cell(o, b, (size_t)n, 1);
}

/* An absent cell: empty in TSV, null in JSON, "-" in TABLE and MD. */
void lbt_out_absent(lbt_out *o)
{
	out_cell(o, NULL, 0, 0);
}

/*
 * Complete a half-written row with absent cells, print buffered rows (and
 * the header when no row came), flush the FILE.
 * @return 0, or -1 when a write failed (EPIPE, ENOSPC ...).
 */
int lbt_out_flush(lbt_out *o)
{
	while (o->col != 0)
		lbt_out_absent(o);
	if (o->mode == LBT_OUT_TABLE)
		lbt_outi_table_flush(o);
	else
		stream_header(o);
	if (fflush(o->fp) != 0 || ferror(o->fp))
		return -1;
	return 0;
}

/* Flush and free; NULL accepted.  @return as lbt_out_flush(). */
int lbt_out_free(lbt_out *o)
{
	int rc;

	if (o == NULL)
		return 0;
	rc = lbt_out_flush(o);
	json_keys_free(o);
	free(o->row);
	free(o->cols);
	free(o->names);
	free(o->width);
	free(o->buf);
	free(o->cells);
	free(o);
	return rc;
}
