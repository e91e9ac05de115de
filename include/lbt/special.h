/*
 * special.h - the addresses a deny rule must never name: IANA's
 * special-purpose address registries (RFC 6890 and the RFCs listed in
 * them, iana-ipv4-special-registry and iana-ipv6-special-registry), the
 * IPv4 multicast and reserved space, and for IPv6 everything outside the
 * global unicast 2000::/3 (RFC 4291).  Loopback, private (RFC 1918),
 * unique local (RFC 4193 fc00::/7), link-local, multicast, unspecified,
 * broadcast, shared (RFC 6598), benchmarking, 6to4, Teredo, NAT64, AS112
 * and the other IETF assignments are all here.
 *
 * The documentation ranges are NOT: 192.0.2.0/24, 198.51.100.0/24,
 * 203.0.113.0/24 (RFC 5737), 2001:db8::/32 (RFC 3849) and 3fff::/20
 * (RFC 9637).  No real client comes from them, every test and example of
 * lbtriage uses them, so a rule may name them (lbt_special_docs lists them
 * and check_special proves no entry of the table overlaps them).
 *
 * IPv4-mapped IPv6 addresses (::ffff:0:0/96) cannot be looked up here:
 * lbt_addr reads them as IPv4 (addr.h); a reader that meets one in text
 * says so itself.  Includes: addr.h.
 */
#ifndef LBT_SPECIAL_H
#define LBT_SPECIAL_H

#include <stddef.h>

#include "lbt/addr.h"

typedef struct lbt_special {
	const char *prefix;  /* "10.0.0.0/8" */
	const char *why;     /* "private address (RFC 1918)" */
} lbt_special;

/* The table: *n entries, IPv4 first, in address order within a family. */
const lbt_special *lbt_special_table(size_t *n);

/* The documentation ranges that are allowed: *n entries. */
const lbt_special *lbt_special_docs(size_t *n);

/*
 * The entry that says best why net/bits may not be named: of the entries
 * that contain it, the narrowest; else the first that lies inside it.
 * @return the entry, or NULL when net/bits overlaps none.
 */
const lbt_special *lbt_special_find(const lbt_addr *net, int bits);

/* Parse an entry's prefix (never fails on the built-in table). */
void lbt_special_net(const lbt_special *e, lbt_addr *net, int *bits);

#endif
