/*
 * offenders_topk.c - the space-saving counters over a source's key numbers
 * (see offenders_int.h, struct topk).  A source's distinct addresses are an
 * lbt_addrset (lib/base/addrset.c).
 *
 * Direction: offenders.c, offenders_state.c and offenders_merge.c call it;
 * it calls no other offenders*.c file.
 */
#include "offenders_int.h"

/* Count key number id in a source's space-saving counters. */
void lbt_offendersi_topk_add(struct topk *t, uint32_t id)
{
	uint32_t m = 0;

	for (uint32_t i = 0; i < t->n; i++)
		if (t->id[i] == id) {
			if (t->cnt[i] < UINT32_MAX)
				t->cnt[i]++;
			return;
		}
	if (t->n < LBT_OFF_TOPK) {
		t->id[t->n] = id, t->cnt[t->n] = 1, t->err[t->n] = 0;
		t->n++;
		return;
	}
	for (uint32_t i = 1; i < LBT_OFF_TOPK; i++)
		if (t->cnt[i] < t->cnt[m])
			m = i;
	t->id[m] = id;
	t->err[m] = t->cnt[m];
	t->cnt[m]++;
}
