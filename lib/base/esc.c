/*
 * esc.c - the output-safety rule.  See include/lbt/esc.h and
 * docs/output-safety.md.
 *
 * Runs of ASCII a rule writes as it is are copied whole (plain_end); any
 * other character alone: lbt_esc_next classifies it, esc_piece writes what
 * a rule shows for it (at most PIECE_MAX bytes).  lbt_esc and lbt_esc_fput
 * collect runs and pieces into a buffer or a FILE.
 */
#include <assert.h>
#include <string.h>

#include "lbt/esc.h"
#include "lbt/utf8.h"

#define PIECE_MAX 8

/* The code point of the valid k-byte UTF-8 sequence at p. */
static unsigned long decode(const unsigned char *p, size_t k)
{
	unsigned long cp = k == 1 ? p[0] : k == 2 ? p[0] & 0x1Fu : k == 3 ? p[0] & 0x0Fu : p[0] & 0x07u;

	for (size_t i = 1; i < k; i++)
		cp = cp << 6 | (p[i] & 0x3Fu);
	return cp;
}

/* True for a code point that must not reach a person as it is: a control
 * (C0, DEL, C1) moves the cursor or starts an escape sequence, a bidi
 * control reorders the text around it. */
static int is_unsafe(unsigned long cp)
{
	return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || cp == 0x061C || cp == 0x200E ||
	    cp == 0x200F || (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

/* Classify the first character of p[0..n); see esc.h. */
int lbt_esc_next(const unsigned char *p, size_t n, size_t *len, unsigned long *cp)
{
	size_t k;

	assert(n >= 1);
	if (p[0] < 0x80) {
		*len = 1;
		*cp = p[0];
		return is_unsafe(p[0]) ? LBT_ESC_CTRL : LBT_ESC_SAFE;
	}
	if ((k = lbt_utf8_len(p, n)) == 0) {
		*len = 1;
		*cp = p[0];
		return LBT_ESC_BAD;
	}
	*len = k;
	*cp = decode(p, k);
	return is_unsafe(*cp) ? LBT_ESC_CTRL : LBT_ESC_SAFE;
}

/* The entity of c in HTML (md: only & < >), or NULL. */
static const char *entity(unsigned char c, int md)
{
	switch (c) {
	case '&': return "&amp;";
	case '<': return "&lt;";
	case '>': return "&gt;";
	case '"': return md ? NULL : "&quot;";
	case '\'': return md ? NULL : "&#39;";
	default: return NULL;
	}
}

/* True for the ASCII punctuation Markdown reads anywhere in a line. */
static int md_punct(unsigned char c)
{
	return c != '\0' && strchr("\\`*_[]|~", c) != NULL;
}

/*
 * Where a Markdown line starting with the word s[0..n) needs a backslash
 * so that no block starts: 0 before a heading's #, a list's - + or a
 * setext line's =, the index of the . or ) of a list number ("12." alone:
 * a list number is followed by a space, "3.5" is none); n when none.
 */
static size_t md_line_mark(const char *s, size_t n)
{
	size_t d = 0;

	if (n > 0 && s[0] != '\0' && strchr("#-+=", s[0]) != NULL)
		return 0;
	while (d < n && d < 10 && s[d] >= '0' && s[d] <= '9')
		d++;
	if (d > 0 && d < 10 && d + 1 == n && (s[d] == '.' || s[d] == ')'))
		return d;
	return n;
}

/* Write an escape of an unsafe character (cls, cp) to o.  @return its length */
static size_t put_unsafe(char *o, int cls, unsigned long cp)
{
	static const char hex[] = "0123456789abcdef";

	if (cls == LBT_ESC_CTRL && (cp == '\t' || cp == '\n' || cp == '\r')) {
		o[0] = '\\';
		o[1] = cp == '\t' ? 't' : cp == '\n' ? 'n' : 'r';
		return 2;
	}
	if (cls == LBT_ESC_BAD || cp < 0x80) {
		memcpy(o, "\\x", 2);
		o[2] = hex[cp >> 4 & 15];
		o[3] = hex[cp & 15];
		return 4;
	}
	assert(cp <= 0xFFFF);     /* C1 and bidi controls: all in the BMP */
	memcpy(o, "\\u", 2);
	for (int i = 0; i < 4; i++)
		o[2 + i] = hex[cp >> (12 - 4 * i) & 15];
	return 6;
}

/*
 * What `rule` shows for the character at s[i..n) into o[0..PIECE_MAX);
 * `mark` is where a Markdown line needs its backslash (md_line_mark).
 * *used gets the input bytes it took.  @return the bytes written
 */
static size_t esc_piece(const char *s, size_t i, size_t n, lbt_esc_rule rule, size_t mark,
    char *o, size_t *used)
{
	const unsigned char *u = (const unsigned char *)s + i;
	int md = rule == LBT_ESC_MD || rule == LBT_ESC_MD_LINE;
	unsigned long cp;
	int cls = lbt_esc_next(u, n - i, used, &cp);
	const char *e;

	if (cls != LBT_ESC_SAFE)
		return put_unsafe(o, cls, cp);
	if (*used > 1 || rule == LBT_ESC_TERM) {
		memcpy(o, u, *used);
		return *used;
	}
	if ((e = entity(u[0], md)) != NULL) {
		memcpy(o, e, strlen(e));
		return strlen(e);
	}
	if (md && (md_punct(u[0]) || i == mark)) {
		o[0] = '\\';
		o[1] = (char)u[0];
		return 2;
	}
	o[0] = (char)u[0];
	return 1;
}

/*
 * The ASCII bytes each rule writes as they are: bit 0 TERM, bit 1 the
 * Markdown rules, bit 2 HTML (printable ASCII but the rule's syntax:
 * & < > \\ ` * _ [ ] | ~ for Markdown, & < > " ' for HTML).  A table, not
 * compares: lbt-cat --table reads every cell through it.
 */
static const unsigned char plain_bits[128] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	7, 7, 3, 7, 7, 7, 1, 3, 7, 7, 5, 7, 7, 7, 7, 7,
	7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 1, 7, 1, 7,
	7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7,
	7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 5, 5, 5, 7, 5,
	5, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7,
	7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 5, 7, 5, 0,
};

/* The bit of plain_bits for rule. */
static unsigned plain_bit(lbt_esc_rule rule)
{
	static const unsigned char bit[] = { 1, 2, 2, 4 };   /* by lbt_esc_rule */

	assert((unsigned)rule < sizeof bit);
	return bit[rule];
}

/*
 * The end of the run of bytes from i that `rule` writes as they are (not
 * past the Markdown line mark): copied whole, they spare esc_piece's
 * classification of every byte (measured: lbt-cat --table 60 % slower
 * without it).
 */
static size_t plain_end(const char *s, size_t i, size_t n, unsigned bit, size_t mark)
{
	const unsigned char *u = (const unsigned char *)s;

	while (i < n && i != mark && u[i] < 0x80 && (plain_bits[u[i]] & bit) != 0)
		i++;
	return i;
}

/* Escape s[0..n) by rule into dst[0..size); see esc.h. */
size_t lbt_esc(char *dst, size_t size, const char *s, size_t n, lbt_esc_rule rule)
{
	size_t mark = rule == LBT_ESC_MD_LINE ? md_line_mark(s, n) : n;
	unsigned bit = plain_bit(rule);
	size_t len = 0, used, k;
	int cut = 0;

	for (size_t i = 0; i < n; i += used) {
		char piece[PIECE_MAX];
		size_t j = plain_end(s, i, n, bit, mark);
		const char *from = piece;

		if (j > i) {
			from = s + i;
			k = used = j - i;
		} else {
			k = esc_piece(s, i, n, rule, mark, piece, &used);
		}
		if (!cut && len + k < size) {
			memcpy(dst + len, from, k);
		} else if (!cut) {
			cut = 1;          /* plain bytes up to the end, a whole escape or nothing */
			if (size > 0 && j > i) {
				memcpy(dst + len, from, size - 1 - len);
				dst[size - 1] = '\0';
			} else if (size > 0) {
				dst[len] = '\0';
			}
		}
		len += k;
	}
	if (!cut && size > 0)
		dst[len] = '\0';
	return len;
}

/* Write s[0..n) escaped by rule to fp.  @return 0, or -1 when writing failed. */
int lbt_esc_fput(FILE *fp, const char *s, size_t n, lbt_esc_rule rule)
{
	size_t mark = rule == LBT_ESC_MD_LINE ? md_line_mark(s, n) : n;
	unsigned bit = plain_bit(rule);
	char b[1024];
	size_t len = 0, used;

	for (size_t i = 0; i < n; i += used) {
		size_t j = plain_end(s, i, n, bit, mark);

		if (len + PIECE_MAX > sizeof b || (j > i && len > 0)) {
			fwrite(b, 1, len, fp);
			len = 0;
		}
		if (j > i) {
			fwrite(s + i, 1, j - i, fp);
			used = j - i;
			continue;
		}
		len += esc_piece(s, i, n, rule, mark, b + len, &used);
	}
	if (len > 0)
		fwrite(b, 1, len, fp);
	return ferror(fp) ? -1 : 0;
}

/* A JSON text to fp with DEL as \u007f; see esc.h. */
int lbt_esc_json_write(const char *buf, size_t size, void *fp)
{
	const char *p = buf, *end = buf + size, *del;

	while ((del = memchr(p, 0x7F, (size_t)(end - p))) != NULL) {
		fwrite(p, 1, (size_t)(del - p), fp);
		fputs("\\u007f", fp);
		p = del + 1;
	}
	fwrite(p, 1, (size_t)(end - p), fp);
	return ferror(fp) ? -1 : 0;
}
