/*
 * hll.c - HyperLogLog (see hll.h).  The top LBT_HLL_P bits of the hash
 * pick a register, which keeps the largest rank (leading zeros + 1) of the
 * other bits seen.
 */
#include <math.h>
#include <stdlib.h>

#include "lbt/hll.h"

/* @return zeroed registers, or NULL when out of memory. */
uint8_t *lbt_hll_new(void)
{
	return calloc(LBT_HLL_M, 1);
}

/* Raise the register of hash to its rank. */
void lbt_hll_add(uint8_t *h, uint64_t hash)
{
	uint32_t idx = (uint32_t)(hash >> (64 - LBT_HLL_P));
	uint64_t rest = hash << LBT_HLL_P;
	uint8_t rank = rest ? (uint8_t)(__builtin_clzll(rest) + 1) : (uint8_t)(64 - LBT_HLL_P + 1);

	if (rank > h[idx])
		h[idx] = rank;
}

/* Register-wise maximum. */
void lbt_hll_merge(uint8_t *dst, const uint8_t *src)
{
	for (uint32_t i = 0; i < LBT_HLL_M; i++)
		if (src[i] > dst[i])
			dst[i] = src[i];
}

/* The raw estimate alpha m^2 / sum 2^-M[j], or linear counting m ln(m/V)
 * while it is at most 2.5 m and V registers are still zero.
 * @return the estimate. */
double lbt_hll_estimate(const uint8_t *h)
{
	double m = LBT_HLL_M, sum = 0, e;
	uint32_t zeros = 0;

	for (uint32_t i = 0; i < LBT_HLL_M; i++) {
		sum += ldexp(1.0, -h[i]);
		zeros += h[i] == 0;
	}
	e = 0.7213 / (1 + 1.079 / m) * m * m / sum;
	if (e <= 2.5 * m && zeros > 0)
		e = m * log(m / zeros);
	return e;
}
