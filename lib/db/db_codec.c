/*
 * db_codec.c - the compact encodings of an lbt index (schema version 5):
 * the columns of a block of requests as texts of code points (blocks.time,
 * blocks.path ...), the id lists of a run (runs.shapes, keys, nets), and
 * the sort of a run.
 *
 * A column of a block: SQLite has no function that reads an integer out of
 * a blob, but unicode(substr(text, k, 1)) reads the code point of the k-th
 * character, and UTF-8 spends 1 byte on a code point below 128, 2 below
 * 2048, 3 below 65536: a text of code points is an array of integers that
 * stock sqlite3 can index into (the view requests_v does).  Each value of
 * a column takes `width` characters (1 to 4, the same for the whole column
 * of one block):
 *
 *     width 1:    code point v + 3        (v from -1, a timer logged as -1,
 *                                          to 55292, below the surrogates)
 *     width 2, 3: v + 1 in digits of 15 bits (each code point digit + 2),
 *                 most significant first   (v up to 2^30 - 2, 2^45 - 2)
 *     width 4:    v + 2^59 in 4 digits     (any v of +-2^59)
 *
 * and an absent value is `width` characters 1.  Code points stay below
 * 0xD800: never a surrogate nor U+FFFE, never 0, and a view decodes a
 * value with one unicode(substr()) per character.
 */
#include <string.h>

#include "db_int.h"
#include "lbt/vec.h"

/* Offset added to a value of width w: 3 (a code point), 1, or 2^59 (width 4). */
static int64_t offset_of(int w)
{
	return w == 1 ? 3 : w < LBT_DBI_MAX_WIDTH ? 1 : (int64_t)1 << 59;
}

/* The smallest width that holds v.  @return 1 to 4, or 0 when none does. */
static int width_of(int64_t v)
{
	if (v >= -1 && v <= LBT_DBI_CHAR_MAX)
		return 1;
	if (v >= -1 && v < ((int64_t)1 << 30) - 1)
		return 2;
	if (v >= -1 && v < ((int64_t)1 << 45) - 1)
		return 3;
	if (v >= -((int64_t)1 << 59) && v < (int64_t)1 << 59)
		return 4;
	return 0;
}

/* UTF-8 of code point u (< 0x10000) at out.  @return bytes written (1 to 3). */
static size_t put_utf8(uint8_t *out, uint32_t u)
{
	if (u < 0x80) {
		out[0] = (uint8_t)u;
		return 1;
	}
	if (u < 0x800) {
		out[0] = (uint8_t)(0xC0 | u >> 6);
		out[1] = (uint8_t)(0x80 | (u & 0x3F));
		return 2;
	}
	out[0] = (uint8_t)(0xE0 | u >> 12);
	out[1] = (uint8_t)(0x80 | (u >> 6 & 0x3F));
	out[2] = (uint8_t)(0x80 | (u & 0x3F));
	return 3;
}

/* The w characters of v (or of an absent value) at out.  @return bytes written. */
static size_t put_value(uint8_t *out, int present, int64_t v, int w)
{
	uint64_t d = (uint64_t)(v + offset_of(w));
	size_t n = 0;

	if (w == 1)
		return put_utf8(out, present ? (uint32_t)d : 1);
	for (int i = w - 1; i >= 0; i--)
		n += put_utf8(out + n, present ? (uint32_t)(d >> (15 * i) & 0x7FFF) + 2 : 1);
	return n;
}

/* Encode a column; see db_int.h.  @return bytes written, or -1 */
long lbt_dbi_col_encode(const int64_t *v, const uint8_t *present, size_t n, int *width,
    uint8_t *out)
{
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	size_t len = 0;
	int w;

	for (size_t i = 0; i < n; i++) {
		if (!present[i])
			continue;
		lo = v[i] < lo ? v[i] : lo;
		hi = v[i] > hi ? v[i] : hi;
	}
	*width = 1;
	if (lo > hi)
		return 0;
	w = width_of(lo) > width_of(hi) ? width_of(lo) : width_of(hi);
	if (width_of(lo) == 0 || width_of(hi) == 0)
		return -1;
	*width = w;
	for (size_t i = 0; i < n; i++) {
		/* one character below 128: the common case, written directly */
		if (w == 1 && present[i] && v[i] < 0x80 - 3)
			out[len++] = (uint8_t)(v[i] + 3);
		else
			len += put_value(out + len, present[i], v[i], w);
	}
	return (long)len;
}

/*
 * The code point at s[*i] (UTF-8 of at most 3 bytes, as written above), *i
 * moved past it.  @return it, or 0 for a broken sequence.
 */
static uint32_t get_utf8(const uint8_t *s, size_t n, size_t *i)
{
	uint32_t c = s[(*i)++];
	int more = c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : 0;

	if ((c >= 0x80 && more == 0) || c >= 0xF0)
		return 0;
	c &= more == 2 ? 0x0F : more == 1 ? 0x1F : 0x7F;
	for (; more > 0; more--) {
		if (*i >= n || (s[*i] & 0xC0) != 0x80)
			return 0;
		c = c << 6 | (s[(*i)++] & 0x3F);
	}
	return c;
}

/* Decode a column; see db_int.h.  @return 0 or -1 */
int lbt_dbi_col_decode(const uint8_t *s, size_t len, int width, size_t n, int64_t *v,
    uint8_t *present)
{
	size_t at = 0;

	if (s == NULL || len == 0) {
		memset(present, 0, n);
		return 0;
	}
	for (size_t k = 0; k < n; k++) {
		uint64_t d = 0;
		uint32_t c = 0;

		for (int i = 0; i < width; i++) {
			if (at >= len || (c = get_utf8(s, len, &at)) == 0 ||
			    c > (width == 1 ? LBT_DBI_CHAR_MAX + 3u : 0x8001u))
				return -1;
			if (i == 0 && c == 1)
				break;
			d = width == 1 ? c : d << 15 | (c - 2);
		}
		present[k] = c != 1;
		if (c == 1) {
			for (int i = 1; i < width; i++)
				if (at >= len || get_utf8(s, len, &at) != 1)
					return -1;
			continue;
		}
		v[k] = (int64_t)d - offset_of(width);
	}
	return at == len ? 0 : -1;
}

/*
 * Stable LSD radix sort of (key, order) pairs by key, 11 bits a pass, as
 * many passes as the largest key needs.  tkey/tmp: scratch of n entries.
 * order (and tmp) may be NULL: the keys alone are sorted.
 */
void lbt_dbi_sort_keys(uint64_t *key, uint32_t *order, uint64_t *tkey, uint32_t *tmp,
    size_t n)
{
	uint64_t max = 0;
	size_t count[2048];

	for (size_t i = 0; i < n; i++)
		max |= key[i];
	for (int shift = 0; shift < 64 && (max >> shift) != 0; shift += 11) {
		size_t sum = 0;

		memset(count, 0, sizeof count);
		for (size_t i = 0; i < n; i++)
			count[key[i] >> shift & 2047]++;
		for (size_t d = 0; d < 2048; d++) {
			size_t c = count[d];

			count[d] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++) {
			size_t at = count[key[i] >> shift & 2047]++;

			tkey[at] = key[i];
			if (order != NULL)
				tmp[at] = order[i];
		}
		memcpy(key, tkey, n * sizeof *key);
		if (order != NULL)
			memcpy(order, tmp, n * sizeof *order);
	}
}

/* Append v as LEB128 to b.  @return 0 or -1 (out of memory). */
static int put_leb(struct lbt_dbi_buf *b, uint64_t v)
{
	if (LBT_GROW(b->p, b->cap, b->n + 10, 256) < 0)
		return -1;
	do {
		uint8_t byte = v & 0x7F;

		v >>= 7;
		b->p[b->n++] = (uint8_t)(byte | (v ? 0x80 : 0));
	} while (v);
	return 0;
}

/* Encode the distinct values of v as a list; see db_int.h.  @return 0 or -1 */
int lbt_dbi_list_encode(uint64_t *v, uint64_t *tmp, size_t n, struct lbt_dbi_buf *b)
{
	uint64_t prev = 0;

	b->n = 0;
	lbt_dbi_sort_keys(v, NULL, tmp, NULL, n);
	for (size_t i = 0; i < n; i++) {
		if (i > 0 && v[i] == v[i - 1])
			continue;
		if (put_leb(b, v[i] - prev) < 0)
			return -1;
		prev = v[i];
	}
	return 0;
}

/* Does the list p[0..n) meet want[0..nw)?  See db_int.h.  @return 1, 0 or -1 */
int lbt_dbi_list_meets(const uint8_t *p, size_t n, const int64_t *want, size_t nw)
{
	uint64_t v = 0;
	size_t i = 0, w = 0;

	while (i < n && w < nw) {
		uint64_t d = 0;
		int shift = 0;

		do {
			if (i >= n || shift > 63)
				return -1;
			d |= (uint64_t)(p[i] & 0x7F) << shift;
			shift += 7;
		} while (p[i++] & 0x80);
		v += d;
		while (w < nw && (uint64_t)want[w] < v)
			w++;
		if (w < nw && (uint64_t)want[w] == v)
			return 1;
	}
	return 0;
}
