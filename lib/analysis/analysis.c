/*
 * analysis.c - what every analysis shares through its vtable (see
 * analysis.h): the union of the fields, spawning a twin, merging, the
 * properties of a kind, freeing.  Each analysis writes its vtable with
 * LBT_ANALYSIS_DEFINE (analysis_int.h) next to the functions it points
 * to: rate.c, offenders_merge.c, tarpit_merge.c, timeline_merge.c,
 * keyhosts.c.
 */
#include <assert.h>

#include "lbt/analysis.h"

/* @return the OR of the fields of v[0..n). */
uint64_t lbt_analysis_fields(const lbt_analysis *v, size_t n)
{
	uint64_t m = 0;

	assert(n == 0 || v != NULL);
	for (size_t i = 0; i < n; i++) {
		assert(v[i].ops != NULL && v[i].acc != NULL);
		m |= v[i].ops->fields(v[i].acc);
	}
	return m;
}

/* An empty twin of a.  @return 0, or -1 with err. */
int lbt_analysis_spawn(const lbt_analysis *a, lbt_analysis *twin, lbt_err *err)
{
	assert(a->ops != NULL && a->acc != NULL);
	twin->ops = a->ops;
	twin->acc = a->ops->spawn(a->acc, err);
	return twin->acc != NULL ? 0 : -1;
}

/* Merge src into dst; src is freed in every case.  @return 0 or -1 with err. */
int lbt_analysis_merge(lbt_analysis *dst, lbt_analysis *src, lbt_err *err)
{
	int rc;

	assert(dst->acc != NULL && src->acc != NULL && dst->acc != src->acc);
	if (dst->ops != src->ops) {
		rc = lbt_err_set(err, "merge: %s and %s accumulators do not merge", dst->ops->name,
		    src->ops->name);
	} else {
		rc = dst->ops->merge(dst->acc, src->acc, err);
	}
	lbt_analysis_free(src);
	return rc;
}

/* True for the kinds whose results a cut may change (analysis.h). */
int lbt_analysis_order_bound(const lbt_analysis *a)
{
	assert(a->ops != NULL);
	return (a->ops->flags & LBT_ANALYSIS_ORDER_BOUND) != 0;
}

/* Free a's accumulator and clear a. */
void lbt_analysis_free(lbt_analysis *a)
{
	if (a->ops != NULL && a->acc != NULL)
		a->ops->free(a->acc);
	a->acc = NULL;
}
