/*
 * ipset.h - sets of addresses, for rules that must cover exactly what was
 * asked: the union of some prefixes minus others, written back out as the
 * fewest aligned prefixes, none wider than a limit.
 *
 * A set holds IPv4 and IPv6 addresses apart (an IPv4 address is never in
 * an IPv6 range, whatever its bytes: lbt_addr stores IPv4 as ::ffff:a.b.c.d
 * with family 4, see addr.h).  Inside, each family is a sorted list of
 * disjoint, non-adjacent ranges of numbers (an address read as a 32- or
 * 128-bit number), so union, difference and membership are merges of
 * sorted lists, and a set has one representation: two sets are equal when
 * their ranges are.
 *
 * Adding appends; the list is sorted and merged on the next operation that
 * reads it, so filling a set with n prefixes costs O(n log n) once.
 * Includes: addr.h.
 */
#ifndef LBT_IPSET_H
#define LBT_IPSET_H

#include <stddef.h>
#include <stdint.h>

#include "lbt/addr.h"

/* A network: an address with its host bits cleared, and its prefix length. */
typedef struct lbt_ipnet {
	lbt_addr net;
	int bits;            /* 0..32 for family 4, 0..128 for family 6 */
} lbt_ipnet;

typedef struct lbt_ipset lbt_ipset;

/* How much of a network a set holds. */
typedef enum lbt_ipset_cover {
	LBT_IPSET_NONE,      /* no address of it */
	LBT_IPSET_PART,      /* some, not all */
	LBT_IPSET_ALL        /* every address of it */
} lbt_ipset_cover;

/* A new empty set.  @return it, or NULL when out of memory. */
lbt_ipset *lbt_ipset_new(void);

/* Free a set; NULL accepted. */
void lbt_ipset_free(lbt_ipset *s);

/*
 * Add the network net/bits (host bits of net are ignored; bits is clamped
 * to the family's width).  A family other than 4 or 6 is ignored.
 * @return 0, or -1 when out of memory (the set unchanged).
 */
int lbt_ipset_add(lbt_ipset *s, const lbt_addr *net, int bits);

/* Add every address of x to s.  @return 0, or -1 when out of memory. */
int lbt_ipset_union(lbt_ipset *s, lbt_ipset *x);

/* Remove every address of x from s.  @return 0, or -1 when out of memory. */
int lbt_ipset_subtract(lbt_ipset *s, lbt_ipset *x);

/* True when the set holds no address. */
int lbt_ipset_empty(lbt_ipset *s);

/* True when the set holds address a. */
int lbt_ipset_has(lbt_ipset *s, const lbt_addr *a);

/* How much of net/bits the set holds. */
lbt_ipset_cover lbt_ipset_covers(lbt_ipset *s, const lbt_addr *net, int bits);

/* True when both sets hold the same addresses. */
int lbt_ipset_equal(lbt_ipset *a, lbt_ipset *b);

/*
 * The set as the fewest aligned networks, in address order (IPv4 first),
 * none wider than /v4_min (IPv4) or /v6_min (IPv6): two adjacent /25 are
 * one /24, two adjacent /24 stay two when v4_min is 24.  *out is a new
 * array the caller frees (NULL when the set is empty), *n its length.
 * @return 0, or -1 when out of memory.
 */
int lbt_ipset_networks(lbt_ipset *s, int v4_min, int v6_min, lbt_ipnet **out, size_t *n);

#endif
