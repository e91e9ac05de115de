/*
 * hll.h - a HyperLogLog cardinality sketch of 2^LBT_HLL_P one-byte
 * registers (Flajolet et al. 2007, with the small-range correction of
 * linear counting): distinct items of any number in 1 KiB, a standard
 * error of 1.04 / sqrt(1024) = 3.25 %.  Merging two sketches (the
 * register maxima) gives the sketch of the union, exactly.
 *
 *     uint8_t *h = lbt_hll_new();        // NULL: out of memory
 *     lbt_hll_add(h, hash64_of_item);
 *     double n = lbt_hll_estimate(h);
 *     free(h);
 *
 * The caller hashes its items with a 64-bit hash whose bits are all
 * mixed.  Leaf module: includes nothing of lbt.
 */
#ifndef LBT_HLL_H
#define LBT_HLL_H

#include <stdint.h>

#define LBT_HLL_P 10
#define LBT_HLL_M (1u << LBT_HLL_P)

/* @return LBT_HLL_M zeroed registers (free() them), or NULL. */
uint8_t *lbt_hll_new(void);

/* Count an item by its 64-bit hash. */
void lbt_hll_add(uint8_t *h, uint64_t hash);

/* Make dst the sketch of dst's items and src's. */
void lbt_hll_merge(uint8_t *dst, const uint8_t *src);

/* @return the estimated number of distinct items. */
double lbt_hll_estimate(const uint8_t *h);

#endif
