/*
 * analysis.c - what every analysis shares through its vtable (see
 * analysis.h): the union of the fields, spawning a twin, merging, freeing.
 * The vtables themselves live with each analysis (rate.c, offenders.c,
 * tarpit.c), next to the functions they point to.
 */
#include <string.h>

#include "lbt/analysis.h"

/* @return the OR of the fields of v[0..n). */
uint64_t lbt_analysis_fields(const lbt_analysis *v, size_t n)
{
	uint64_t m = 0;

	for (size_t i = 0; i < n; i++)
		m |= v[i].ops->fields(v[i].acc);
	return m;
}

/* An empty twin of a.  @return 0, or -1 with err. */
int lbt_analysis_spawn(const lbt_analysis *a, lbt_analysis *twin, lbt_err *err)
{
	twin->ops = a->ops;
	twin->acc = a->ops->spawn(a->acc, err);
	return twin->acc != NULL ? 0 : -1;
}

/* Merge src into dst; src is freed in every case.  @return 0 or -1 with err. */
int lbt_analysis_merge(lbt_analysis *dst, lbt_analysis *src, lbt_err *err)
{
	int rc;

	if (dst->ops != src->ops) {
		rc = lbt_err_set(err, "merge: %s and %s accumulators do not merge", dst->ops->name,
		    src->ops->name);
	} else {
		rc = dst->ops->merge(dst->acc, src->acc, err);
	}
	lbt_analysis_free(src);
	return rc;
}

/* True for the analyses whose results a cut may change (see analysis.h). */
int lbt_analysis_order_bound(const lbt_analysis *a)
{
	return strcmp(a->ops->name, "offenders") == 0;
}

/* Free a's accumulator and clear a. */
void lbt_analysis_free(lbt_analysis *a)
{
	if (a->ops != NULL && a->acc != NULL)
		a->ops->free(a->acc);
	a->acc = NULL;
}
