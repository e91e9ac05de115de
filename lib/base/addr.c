/*
 * addr.c - client addresses and networks.  See include/lbt/addr.h.
 *
 * IPv4 and IPv6 text are parsed by hand (it runs once per log line; the
 * IPv6 parser accepts what inet_pton() accepts).  Both are printed by
 * hand, the IPv6 text following glibc's inet_ntop6 (RFC 5952: the longest
 * run of two or more zero groups as "::", the first of equal runs,
 * lower-case hex, IPv4-compatible and -mapped forms with a dotted quad), so
 * the text is what inet_ntop() gives: lbt-cat prints an address a line,
 * and snprintf / inet_ntop cost ~2300 instructions per address on average
 * where this takes ~270 (callgrind, bench/genlog.sh).  IPv4 is stored as
 * ::ffff:a.b.c.d with family 4, so masks and comparisons are one code path.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "lbt/addr.h"

static const uint8_t v4mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

/* The decimal digit at p before end, or -1. */
static int digit_at(const char *p, const char *end)
{
	return p < end && *p >= '0' && *p <= '9' ? *p - '0' : -1;
}

/*
 * Parse dotted-quad s[0..len) into out[4]: four decimal octets 0..255,
 * no leading zeros (they would read as octal elsewhere).  Each octet's up
 * to three digits are read without a loop (~60 instructions an address,
 * callgrind, against ~190 for the loop it replaces).  @return 0 or -1
 */
static int parse_v4(const char *s, size_t len, uint8_t out[4])
{
	const char *p = s, *end = s + len;

	for (int k = 0; k < 4; k++) {
		int v, d;

		if (k > 0 && (p == end || *p++ != '.'))
			return -1;
		if ((v = digit_at(p++, end)) < 0)
			return -1;
		if ((d = digit_at(p, end)) >= 0) {
			if (v == 0)
				return -1;         /* a leading zero */
			v = v * 10 + d;
			if ((d = digit_at(++p, end)) >= 0) {
				v = v * 10 + d;
				p++;
			}
		}
		if (v > 255 || digit_at(p, end) >= 0)
			return -1;
		out[k] = (uint8_t)v;
	}
	return p == end ? 0 : -1;
}

/* Value of hex digit c, or -1. */
static int hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)(c | 0x20);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

#define NO_GAP ((size_t)-1)   /* parse_v6: no "::" seen */

/*
 * Make the "::" that stood at byte gap of b[0..n) the zero groups that
 * fill b to 16 bytes; it must stand for at least one.  @return 0 or -1
 */
static int expand_gap(uint8_t b[16], size_t n, size_t gap)
{
	if (n == 16)
		return -1;
	memmove(b + 16 - (n - gap), b + gap, n - gap);
	memset(b + gap, 0, 16 - n);
	return 0;
}

/*
 * Parse IPv6 text s[0..len) (no zone, no brackets) into out[16], accepting
 * exactly what inet_pton(AF_INET6) accepts (RFC 4291 §2.2; check_fastpath
 * compares them): groups of one to four hex digits, one "::" standing for
 * one or more zero groups, a dotted quad for the last 32 bits.  By hand:
 * inet_pton and the copy it needs cost ~400 instructions an address.
 * @return 0 or -1
 */
static int parse_v6(const char *s, size_t len, uint8_t out[16])
{
	uint8_t b[16];
	size_t i = 0, n = 0, tok, gap = NO_GAP;
	unsigned v = 0, nd = 0;

	if (len == 0 || (s[0] == ':' && (len < 2 || s[1] != ':')))
		return -1;
	i = tok = s[0] == ':';                    /* "::x": the second ':' opens the gap */
	for (; i < len; i++) {
		int h = hex_value(s[i]);

		if (h >= 0 && nd < 4) {
			v = v << 4 | (unsigned)h;
			nd++;
		} else if (s[i] == ':' && nd == 0 && gap == NO_GAP) {
			gap = n;
			tok = i + 1;
		} else if (s[i] == ':' && nd > 0 && i + 1 < len && n + 2 <= 16) {
			b[n++] = (uint8_t)(v >> 8);
			b[n++] = (uint8_t)v;
			v = nd = 0;
			tok = i + 1;
		} else if (s[i] == '.' && n + 4 <= 16 && parse_v4(s + tok, len - tok, b + n) == 0) {
			n += 4;
			nd = 0;
			break;
		} else {
			return -1;
		}
	}
	if (nd > 0 && n + 2 > 16)
		return -1;
	if (nd > 0) {
		b[n++] = (uint8_t)(v >> 8);
		b[n++] = (uint8_t)v;
	}
	if (gap != NO_GAP && expand_gap(b, n, gap) < 0)
		return -1;
	if (gap == NO_GAP && n != 16)
		return -1;
	memcpy(out, b, 16);
	return 0;
}

/* IPv4 or IPv6 address s[0..len); an IPv4-mapped IPv6 one becomes family 4. @return 0 or -1 */
int lbt_addr_parse(const char *s, size_t len, lbt_addr *a)
{
	if (parse_v4(s, len, a->b + 12) == 0) {   /* dotted-quad text has no ':' */
		memcpy(a->b, v4mapped, 12);
		a->family = 4;
		return 0;
	}
	if (memchr(s, ':', len) == NULL)
		return -1;
	if (parse_v6(s, len, a->b) < 0)
		return -1;
	a->family = memcmp(a->b, v4mapped, 12) == 0 ? 4 : 6;
	return 0;
}

/* Width in bits of the family's address (32 or 128). */
static int family_bits(int family)
{
	return family == 4 ? 32 : 128;
}

/*
 * "ADDR" or "ADDR/BITS"; bits default to the full length.  Host bits are
 * kept as written (lbt_addr_in() ignores them).  @return 0 or -1
 */
int lbt_addr_parse_prefix(const char *s, lbt_addr *a, int *bits)
{
	const char *slash = strchr(s, '/');
	size_t alen = slash ? (size_t)(slash - s) : strlen(s);
	int v = 0;

	if (lbt_addr_parse(s, alen, a) < 0)
		return -1;
	if (slash == NULL) {
		*bits = family_bits(a->family);
		return 0;
	}
	if (slash[1] == '\0' || strlen(slash + 1) > 3)
		return -1;
	for (const char *p = slash + 1; *p; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		v = v * 10 + (*p - '0');
	}
	if (v > family_bits(a->family))
		return -1;
	*bits = v;
	return 0;
}

/* Bits of the 128-bit storage that `bits` of the family cover. */
static int storage_bits(int family, int bits)
{
	if (bits < 0)
		bits = 0;
	if (bits > family_bits(family))
		bits = family_bits(family);
	return family == 4 ? 96 + bits : bits;
}

/* Clear every bit of a after the first `bits` (IPv4 bits count from the IPv4 part). */
void lbt_addr_mask(lbt_addr *a, int bits)
{
	int n = storage_bits(a->family, bits), whole = n / 8;

	if (n % 8 != 0)
		a->b[whole++] &= (uint8_t)(0xff << (8 - n % 8));
	if (whole < 16)
		memset(a->b + whole, 0, (size_t)(16 - whole));
}

/* True when a is inside net/bits: same family and equal first bits. */
int lbt_addr_in(const lbt_addr *a, const lbt_addr *net, int bits)
{
	int n = storage_bits(net->family, bits), whole = n / 8, rest = n % 8;

	if (a->family != net->family || a->family == 0)
		return 0;
	if (memcmp(a->b, net->b, (size_t)whole) != 0)
		return 0;
	if (rest == 0)
		return 1;
	return ((a->b[whole] ^ net->b[whole]) & (uint8_t)(0xff << (8 - rest))) == 0;
}

/* Write the decimal form of v (0..255) at p.  @return the end */
static char *put_octet(char *p, unsigned v)
{
	if (v >= 100)
		*p++ = (char)('0' + v / 100);
	if (v >= 10)
		*p++ = (char)('0' + v / 10 % 10);
	*p++ = (char)('0' + v % 10);
	return p;
}

/* Write the dotted quad of b[0..4) at p (16 bytes room).  @return the end */
static char *put_v4(char *p, const uint8_t *b)
{
	for (int i = 0; i < 4; i++) {
		if (i > 0)
			*p++ = '.';
		p = put_octet(p, b[i]);
	}
	return p;
}

/* Write v (0..0xffff) in lower-case hex without leading zeros at p.  @return the end */
static char *put_hex16(char *p, unsigned v)
{
	static const char hex[] = "0123456789abcdef";
	int shift = 12;

	while (shift > 0 && (v >> shift) == 0)
		shift -= 4;
	for (; shift >= 0; shift -= 4)
		*p++ = hex[(v >> shift) & 15];
	return p;
}

/* The longest run of zero groups (two or more, the first of equal ones), or *base -1. */
static void zero_run(const unsigned w[8], int *base, int *len)
{
	int cb = -1, cl = 0;

	*base = -1;
	*len = 0;
	for (int i = 0; i <= 8; i++) {
		if (i < 8 && w[i] == 0) {
			if (cb < 0)
				cb = i, cl = 0;
			cl++;
		} else if (cb >= 0) {
			if (*base < 0 || cl > *len)
				*base = cb, *len = cl;
			cb = -1;
		}
	}
	if (*len < 2)
		*base = -1;
}

/* Write RFC 5952 text of b[0..16) at p (46 bytes room), as inet_ntop6.  @return the end */
static char *put_v6(char *p, const uint8_t *b)
{
	unsigned w[8];
	int base, len;

	for (int i = 0; i < 8; i++)
		w[i] = (unsigned)b[2 * i] << 8 | b[2 * i + 1];
	zero_run(w, &base, &len);
	for (int i = 0; i < 8; i++) {
		if (base >= 0 && i >= base && i < base + len) {
			if (i == base)
				*p++ = ':';
			continue;
		}
		if (i != 0)
			*p++ = ':';
		if (i == 6 && base == 0 && (len == 6 || (len == 5 && w[5] == 0xffff)))
			return put_v4(p, b + 12);
		p = put_hex16(p, w[i]);
	}
	if (base >= 0 && base + len == 8)
		*p++ = ':';
	return p;
}

/*
 * Dotted quad or RFC 5952 IPv6 text of a into buf; "" for family 0 (and
 * for a buffer too small for the text, as inet_ntop).  @return buf
 */
const char *lbt_addr_format(const lbt_addr *a, char *buf, size_t size)
{
	char tmp[LBT_ADDR_STRLEN], *e = tmp;

	if (size == 0)
		return buf;
	buf[0] = '\0';
	if (a->family == 4)
		e = put_v4(tmp, a->b + 12);
	else if (a->family == 6)
		e = put_v6(tmp, a->b);
	if (a->family == 4 && (size_t)(e - tmp) >= size) {
		memcpy(buf, tmp, size - 1);     /* snprintf truncated IPv4 */
		buf[size - 1] = '\0';
	} else if ((size_t)(e - tmp) < size) {
		memcpy(buf, tmp, (size_t)(e - tmp));
		buf[e - tmp] = '\0';
	}
	return buf;
}

/* "ADDR" for a full-length prefix, else the masked "NET/BITS". @return buf */
const char *lbt_addr_format_net(const lbt_addr *a, int bits, char *buf, size_t size)
{
	lbt_addr m = *a;
	char tmp[LBT_ADDR_STRLEN];

	if (bits >= family_bits(a->family) || a->family == 0)
		return lbt_addr_format(a, buf, size);
	lbt_addr_mask(&m, bits);
	snprintf(buf, size, "%s/%d", lbt_addr_format(&m, tmp, sizeof tmp), bits < 0 ? 0 : bits);
	return buf;
}

/* Order by family, then bytes. @return <0, 0, >0 */
int lbt_addr_cmp(const lbt_addr *a, const lbt_addr *b)
{
	if (a->family != b->family)
		return a->family < b->family ? -1 : 1;
	return memcmp(a->b, b->b, 16);
}
