/*
 * addr.c - client addresses and networks.  See include/lbt/addr.h.
 *
 * IPv4 text is parsed by hand (it runs once per log line); IPv6 goes
 * through inet_pton() on a NUL-terminated stack copy.  IPv4 is stored as
 * ::ffff:a.b.c.d with family 4, so masks and comparisons are one code path.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "lbt/addr.h"

static const uint8_t v4mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

/*
 * Parse dotted-quad s[0..len) into out[4]: four decimal octets 0..255,
 * no leading zeros (they would read as octal elsewhere).  @return 0 or -1
 */
static int parse_v4(const char *s, size_t len, uint8_t out[4])
{
	size_t i = 0;

	for (int k = 0; k < 4; k++) {
		unsigned v = 0, nd = 0;

		if (k > 0 && (i >= len || s[i++] != '.'))
			return -1;
		while (i < len && s[i] >= '0' && s[i] <= '9' && nd < 4) {
			v = v * 10 + (unsigned)(s[i++] - '0');
			nd++;
		}
		if (nd == 0 || nd > 3 || v > 255 || (nd > 1 && s[i - nd] == '0'))
			return -1;
		out[k] = (uint8_t)v;
	}
	return i == len ? 0 : -1;
}

/* Parse IPv6 text s[0..len) (no zone, no brackets) into out[16]. @return 0 or -1 */
static int parse_v6(const char *s, size_t len, uint8_t out[16])
{
	char tmp[INET6_ADDRSTRLEN + 1];

	if (len == 0 || len >= sizeof tmp)
		return -1;
	memcpy(tmp, s, len);
	tmp[len] = '\0';
	return inet_pton(AF_INET6, tmp, out) == 1 ? 0 : -1;
}

/* IPv4 or IPv6 address s[0..len); an IPv4-mapped IPv6 one becomes family 4. @return 0 or -1 */
int lbt_addr_parse(const char *s, size_t len, lbt_addr *a)
{
	if (len > 0 && memchr(s, ':', len) == NULL) {
		memcpy(a->b, v4mapped, 12);
		if (parse_v4(s, len, a->b + 12) < 0)
			return -1;
		a->family = 4;
		return 0;
	}
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
	int n = storage_bits(a->family, bits);

	for (int i = 0; i < 16; i++) {
		int keep = n - i * 8;

		if (keep <= 0)
			a->b[i] = 0;
		else if (keep < 8)
			a->b[i] &= (uint8_t)(0xff << (8 - keep));
	}
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

/* Dotted quad or RFC 5952 IPv6 text of a into buf; "" for family 0. @return buf */
const char *lbt_addr_format(const lbt_addr *a, char *buf, size_t size)
{
	if (size == 0)
		return buf;
	buf[0] = '\0';
	if (a->family == 4)
		snprintf(buf, size, "%u.%u.%u.%u", a->b[12], a->b[13], a->b[14], a->b[15]);
	else if (a->family == 6 && inet_ntop(AF_INET6, a->b, buf, (socklen_t)size) == NULL)
		buf[0] = '\0';
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
