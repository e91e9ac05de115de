/*
 * addrset.h - the distinct client addresses of one source network: exact
 * up to LBT_ADDRSET_EXACT, then a HyperLogLog sketch (hll.h).
 *
 * An address is given as the two halves of lbt_addr.b read as 64-bit
 * words, (hi, lo), with the upper half of the source's network, `net_hi`,
 * the same at every call for one set.  Within an IPv4 source or an IPv6
 * network of /64 or longer every address has that upper half, so the set
 * stores the lower halves only, 8 bytes an address, in a sorted array (no
 * empty slots, no load factor): 256 addresses take 2 KiB, where a hash
 * table of pairs took 8.  The first address sits in the struct itself (a
 * lone IPv4 source never allocates).  An address of another upper half
 * (a network shorter than /64) turns the array into one of pairs, once.
 *
 *     lbt_addrset s = LBT_ADDRSET_INIT;
 *     lbt_addrset_add(&s, net_hi, hi, lo, SIZE_MAX);
 *     int approx;
 *     uint64_t n = lbt_addrset_count(&s, &approx);   // approx: a sketch's
 *     lbt_addrset_free(&s);
 *
 * The sketch hashes each whole address (hi, lo), whatever the form, so
 * its estimate depends only on the set of addresses.  Includes nothing of
 * lbt (addrset.c counts in hll.h's sketch).
 */
#ifndef LBT_ADDRSET_H
#define LBT_ADDRSET_H

#include <stddef.h>
#include <stdint.h>

/* Addresses counted exactly; one more makes the sketch. */
#define LBT_ADDRSET_EXACT 256

typedef struct lbt_addrset {
	union {
		uint64_t one;           /* n == 1, lower halves: the address */
		uint64_t *v;            /* n >= 2: sorted lower halves, or pairs */
		uint8_t *hll;           /* the sketch */
	} u;
	uint16_t n;                     /* distinct addresses held (exact forms) */
	uint16_t cap;                   /* room in v, in addresses */
	uint8_t form;                   /* LBT_ADDRSET_LO, _PAIRS or _SKETCH */
	uint8_t capped;                 /* an address was not counted: the cap */
} lbt_addrset;

enum { LBT_ADDRSET_LO, LBT_ADDRSET_PAIRS, LBT_ADDRSET_SKETCH };

/* An empty set; all zero bytes are one too. */
#define LBT_ADDRSET_INIT { { 0 }, 0, 0, LBT_ADDRSET_LO, 0 }

/*
 * Add address (hi, lo) to set s of a network whose upper half is net_hi,
 * counting at most cap addresses (past it: s->capped, the address not
 * counted).  @return 0, or -1 when out of memory (s unchanged).
 */
int lbt_addrset_add(lbt_addrset *s, uint64_t net_hi, uint64_t hi, uint64_t lo, size_t cap);

/* Add every address of src (same net_hi) to dst, then its cap flag: the
 * union is exact up to cap, a sketch when either is.  @return 0 or -1. */
int lbt_addrset_merge(lbt_addrset *dst, const lbt_addrset *src, uint64_t net_hi, size_t cap);

/* @return the distinct addresses: exact, or the sketch's estimate rounded
 * (*approx = 1). */
uint64_t lbt_addrset_count(const lbt_addrset *s, int *approx);

/* @return the bytes s holds outside its own struct. */
size_t lbt_addrset_bytes(const lbt_addrset *s);

/* Free what s holds and make it empty; NULL accepted. */
void lbt_addrset_free(lbt_addrset *s);

#endif
