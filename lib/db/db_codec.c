/*
 * db_codec.c - the compact encodings of an lbt index (schema version 4):
 * the numbers of a request as one text of code points (requests.nums), the
 * id lists of a run (runs.shapes, keys, nets), and the sort of a run.
 *
 * nums: SQLite has no function that reads an integer out of a blob, but
 * unicode(substr(text, k, 1)) reads the code point of the k-th character,
 * and UTF-8 spends 1 byte on a code point below 128, 2 below 2048, 3 below
 * 65536: a text of code points is an array of variable-length integers
 * that stock sqlite3 can index into (the view requests_v does).  Number k
 * of lbt_dbi_nums is character k+1:
 *
 *     1 absent, 2 kept in nums_big (outside -1..LBT_DBI_NUM_MAX), else
 *     v + 4, with the surrogates D800..DFFF and FFFE FFFF skipped
 *     (SQLite reads them as U+FFFD)
 *
 * so -1 (a timer HAProxy logs as -1) to 123 take one byte.  Absent numbers
 * at the end are left out (substr then gives '', unicode NULL).  One
 * column instead of 17 makes a row both smaller (one header byte instead
 * of 17) and cheaper to insert and to read (SQLite's cost is per column:
 * about 180 instructions each way, callgrind).
 */
#include <string.h>

#include "db_int.h"
#include "lbt/vec.h"

/* The code point of number v (-1 <= v <= LBT_DBI_NUM_MAX). */
static uint32_t num_char(int64_t v)
{
	uint32_t u = (uint32_t)(v + 4);

	if (u >= 0xD800)
		u += 0x800;
	if (u >= 0xFFFE)
		u += 2;
	return u;
}

/* The number of code point c >= 3. */
static int64_t char_num(uint32_t c)
{
	return (int64_t)c - 4 - (c >= 0xE000 ? 0x800 : 0) - (c >= 0x10000 ? 2 : 0);
}

/* UTF-8 of code point u at out.  @return bytes written (1 to 4). */
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
	if (u < 0x10000) {
		out[0] = (uint8_t)(0xE0 | u >> 12);
		out[1] = (uint8_t)(0x80 | (u >> 6 & 0x3F));
		out[2] = (uint8_t)(0x80 | (u & 0x3F));
		return 3;
	}
	out[0] = (uint8_t)(0xF0 | u >> 18);
	out[1] = (uint8_t)(0x80 | (u >> 12 & 0x3F));
	out[2] = (uint8_t)(0x80 | (u >> 6 & 0x3F));
	out[3] = (uint8_t)(0x80 | (u & 0x3F));
	return 4;
}

/* Encode the numbers of r; see db_int.h.  @return bytes written. */
size_t lbt_dbi_nums_encode(const struct lbt_dbi_row *r, uint8_t *out, uint32_t *big)
{
	size_t n = 0, end = 0;

	*big = 0;
	for (int k = 0; k < LBT_DBI_NNUM; k++) {
		int64_t v = r->num[k];

		if (!(r->num_have >> k & 1)) {
			out[n++] = LBT_DBI_NUM_NULL;
			continue;
		}
		if (v < -1 || v > LBT_DBI_NUM_MAX) {
			*big |= (uint32_t)1 << k;
			out[n++] = LBT_DBI_NUM_BIG;
		} else {
			n += put_utf8(out + n, num_char(v));
		}
		end = n;
	}
	return end;
}

/*
 * The code point at s[*i] (UTF-8 as SQLite reads it), *i moved past it.
 * @return it, or 0 for a broken sequence.
 */
static uint32_t get_utf8(const uint8_t *s, size_t n, size_t *i)
{
	uint32_t c = s[(*i)++];
	int more = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : 0;

	if (c >= 0x80 && more == 0)
		return 0;
	c &= more == 3 ? 0x07 : more == 2 ? 0x0F : more == 1 ? 0x1F : 0x7F;
	for (; more > 0; more--) {
		if (*i >= n || (s[*i] & 0xC0) != 0x80)
			return 0;
		c = c << 6 | (s[(*i)++] & 0x3F);
	}
	return c;
}

/* Decode a nums text; see db_int.h.  @return 0 or -1 */
int lbt_dbi_nums_decode(const uint8_t *s, size_t n, int32_t *v, uint32_t *have,
    uint32_t *big)
{
	size_t i = 0;

	*have = *big = 0;
	for (int k = 0; i < n; k++) {
		uint32_t c = get_utf8(s, n, &i);

		if (k >= LBT_DBI_NNUM || c == 0)
			return -1;
		if (c == LBT_DBI_NUM_NULL)
			continue;
		*have |= (uint32_t)1 << k;
		if (c == LBT_DBI_NUM_BIG)
			*big |= (uint32_t)1 << k;
		else
			v[k] = (int32_t)char_num(c);
	}
	return 0;
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
