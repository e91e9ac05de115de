/*
 * utf8.c - UTF-8 sequence lengths and encoding.  See include/lbt/utf8.h.
 */
#include "lbt/utf8.h"

/*
 * The well-formed table of Unicode 3.9 (D92): the second byte's range
 * depends on the first, which rules out overlong forms, surrogates and
 * code points above U+10FFFF without computing the code point.  Out of line
 * on purpose: inlined into lib/out/out.c's put_json_str it cost lbt-cat --json
 * 40 instructions a line more (callgrind, 100k lines of bench/genlog.sh).
 */
size_t lbt_utf8_len(const unsigned char *p, size_t n)
{
	unsigned c = p[0];
	size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
	unsigned lo = 0x80, hi = 0xBF;

	if (c < 0x80)
		return 1;
	if (c < 0xC2 || c > 0xF4 || n < len)
		return 0;
	if (c == 0xE0)
		lo = 0xA0;
	else if (c == 0xED)
		hi = 0x9F;
	else if (c == 0xF0)
		lo = 0x90;
	else if (c == 0xF4)
		hi = 0x8F;
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (p[i] < 0x80 || p[i] > 0xBF)
			return 0;
	return len;
}

/* Code point to 1..4 bytes by its range. */
size_t lbt_utf8_put(char *w, unsigned long cp)
{
	if (cp < 0x80) {
		w[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		w[0] = (char)(0xC0 | cp >> 6);
		w[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		w[0] = (char)(0xE0 | cp >> 12);
		w[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		w[2] = (char)(0x80 | (cp & 0x3F));
		return 3;
	}
	w[0] = (char)(0xF0 | cp >> 18);
	w[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
	w[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
	w[3] = (char)(0x80 | (cp & 0x3F));
	return 4;
}
