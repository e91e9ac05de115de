/*
 * addr.h - client addresses and the networks they are grouped into.
 *
 * An address is 16 bytes in network order; IPv4 is stored IPv4-mapped
 * (::ffff:a.b.c.d) with family 4, so one comparison and one prefix mask serve
 * both families and the SQLite index stores one blob shape.  An IPv4-mapped
 * IPv6 address in a log (HAProxy on a v4v6 bind) is reported as IPv4.
 * Leaf module.
 */
#ifndef LBT_ADDR_H
#define LBT_ADDR_H

#include <stddef.h>
#include <stdint.h>

typedef struct lbt_addr {
	uint8_t family;     /* 0 none, 4, 6 */
	uint8_t b[16];      /* network order; IPv4 as ::ffff:a.b.c.d */
} lbt_addr;

/* Longest text form, with "/128". */
#define LBT_ADDR_STRLEN 48

/*
 * Parse an IPv4 or IPv6 address (no brackets, no port, no zone) from
 * s[0..len).  @return 0 and fill *a, or -1 when it is not an address.
 */
int lbt_addr_parse(const char *s, size_t len, lbt_addr *a);

/*
 * Parse "ADDR" or "ADDR/BITS" (a --src argument).  A bare address gets the
 * full length (32 or 128).  @return 0, or -1 when malformed or BITS is out of
 * range for the family.
 */
int lbt_addr_parse_prefix(const char *s, lbt_addr *a, int *bits);

/* Keep the first `bits` bits of a (IPv4 bits count from the IPv4 part). */
void lbt_addr_mask(lbt_addr *a, int bits);

/* True when a lies inside net/bits (same family). */
int lbt_addr_in(const lbt_addr *a, const lbt_addr *net, int bits);

/* Text form: dotted quad, or RFC 5952 IPv6 (inet_ntop). @return buf */
const char *lbt_addr_format(const lbt_addr *a, char *buf, size_t size);

/* Text form of a network, "203.0.113.7" for a /32 and "2001:db8::/64" otherwise. */
const char *lbt_addr_format_net(const lbt_addr *a, int bits, char *buf, size_t size);

/* Compare for sorting: family, then bytes. */
int lbt_addr_cmp(const lbt_addr *a, const lbt_addr *b);

#endif
