/*
 * special.c - the special-purpose address table.  See special.h.
 *
 * Sources: IANA IPv4 Special-Purpose Address Registry, IPv4 Multicast
 * Address Space Registry (224.0.0.0/4), IANA IPv6 Special-Purpose Address
 * Registry and IPv6 Address Space (only 2000::/3 is global unicast;
 * RFC 4291 section 2.4).  Entries that other entries contain stay listed
 * for the reason they give (255.255.255.255 in 240.0.0.0/4, 2001::/32 in
 * 2001::/23, fc00::/7 in 8000::/1).  The table is small and looked up once
 * per source, so it is parsed on each look-up, not cached (no globals).
 */
#include <string.h>

#include "lbt/special.h"

static const lbt_special table[] = {
	{ "0.0.0.0/8", "\"this network\" address (RFC 791)" },
	{ "0.0.0.0/32", "unspecified address (RFC 1122)" },
	{ "10.0.0.0/8", "private address (RFC 1918)" },
	{ "100.64.0.0/10", "shared address space (RFC 6598)" },
	{ "127.0.0.0/8", "loopback address (RFC 1122)" },
	{ "169.254.0.0/16", "link-local address (RFC 3927)" },
	{ "172.16.0.0/12", "private address (RFC 1918)" },
	{ "192.0.0.0/24", "IETF protocol assignment (RFC 6890)" },
	{ "192.31.196.0/24", "AS112-v4 address (RFC 7535)" },
	{ "192.52.193.0/24", "AMT address (RFC 7450)" },
	{ "192.88.99.0/24", "6to4 relay anycast address (RFC 7526)" },
	{ "192.168.0.0/16", "private address (RFC 1918)" },
	{ "192.175.48.0/24", "AS112 direct delegation address (RFC 7534)" },
	{ "198.18.0.0/15", "benchmarking address (RFC 2544)" },
	{ "224.0.0.0/4", "multicast address (RFC 5771)" },
	{ "240.0.0.0/4", "reserved address (RFC 1112)" },
	{ "255.255.255.255/32", "limited broadcast address (RFC 919)" },
	{ "::/3", "not a global unicast address (outside 2000::/3, RFC 4291)" },
	{ "::/128", "unspecified address (RFC 4291)" },
	{ "::1/128", "loopback address (RFC 4291)" },
	{ "64:ff9b::/96", "IPv4/IPv6 translation address (RFC 6052)" },
	{ "64:ff9b:1::/48", "local-use IPv4/IPv6 translation address (RFC 8215)" },
	{ "100::/64", "discard-only address (RFC 6666)" },
	{ "100:0:0:1::/64", "dummy IPv6 prefix (RFC 9780)" },
	{ "2001::/23", "IETF protocol assignment (RFC 2928)" },
	{ "2001::/32", "Teredo address (RFC 4380)" },
	{ "2001:2::/48", "benchmarking address (RFC 5180)" },
	{ "2002::/16", "6to4 address (RFC 3056)" },
	{ "2620:4f:8000::/48", "AS112 direct delegation address (RFC 7534)" },
	{ "4000::/2", "not a global unicast address (outside 2000::/3, RFC 4291)" },
	{ "5f00::/16", "segment routing SID (RFC 9602)" },
	{ "8000::/1", "not a global unicast address (outside 2000::/3, RFC 4291)" },
	{ "fc00::/7", "unique local address (RFC 4193)" },
	{ "fe80::/10", "link-local address (RFC 4291)" },
	{ "fec0::/10", "site-local address, deprecated (RFC 3879)" },
	{ "ff00::/8", "multicast address (RFC 4291)" },
};

static const lbt_special docs[] = {
	{ "192.0.2.0/24", "documentation, TEST-NET-1 (RFC 5737)" },
	{ "198.51.100.0/24", "documentation, TEST-NET-2 (RFC 5737)" },
	{ "203.0.113.0/24", "documentation, TEST-NET-3 (RFC 5737)" },
	{ "2001:db8::/32", "documentation (RFC 3849)" },
	{ "3fff::/20", "documentation (RFC 9637)" },
};

/* The table and its length. */
const lbt_special *lbt_special_table(size_t *n)
{
	*n = sizeof table / sizeof table[0];
	return table;
}

/* The allowed documentation ranges and their count. */
const lbt_special *lbt_special_docs(size_t *n)
{
	*n = sizeof docs / sizeof docs[0];
	return docs;
}

/* Parse e->prefix into net/bits; the built-in texts always parse. */
void lbt_special_net(const lbt_special *e, lbt_addr *net, int *bits)
{
	if (lbt_addr_parse_prefix(e->prefix, net, bits) < 0) {
		memset(net, 0, sizeof *net);
		*bits = 0;
	}
	lbt_addr_mask(net, *bits);
}

/* True when a/abits contains b/bbits (same family). */
static int contains(const lbt_addr *a, int abits, const lbt_addr *b, int bbits)
{
	return abits <= bbits && lbt_addr_in(b, a, abits);
}

/* The narrowest entry containing net/bits, else the first inside it, else NULL. */
const lbt_special *lbt_special_find(const lbt_addr *net, int bits)
{
	const lbt_special *best = NULL, *inside = NULL;
	int best_bits = -1;

	for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
		lbt_addr e;
		int eb;

		lbt_special_net(&table[i], &e, &eb);
		if (e.family != net->family)
			continue;
		if (contains(&e, eb, net, bits) && eb > best_bits) {
			best = &table[i];
			best_bits = eb;
		} else if (inside == NULL && contains(net, bits, &e, eb)) {
			inside = &table[i];
		}
	}
	return best ? best : inside;
}
