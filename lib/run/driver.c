/*
 * driver.c - the one record loop of every analysis program (see driver.h).
 */
#include "lbt/driver.h"

/* Hand rec to every analysis.  @return 0, or -1 when one failed (no memory). */
static int feed(lbt_analysis *v, size_t n, const lbt_rec *rec)
{
	int rc = 0;

	for (size_t i = 0; i < n; i++)
		if (v[i].ops->add(v[i].acc, rec) < 0)
			rc = -1;
	return rc;
}

/* Read s to its end through v[0..n), then finish each.  @return the records
 * fed, or -1 with err. */
int64_t lbt_driver_run(lbt_stream *s, lbt_analysis *v, size_t n, lbt_driver_error_fn on_error,
    void *ctx, lbt_err *err)
{
	lbt_rec *rec;
	lbt_err ferr;
	int64_t fed = 0;
	int r, rc = 0;

	while ((r = lbt_stream_next(s, &rec, &ferr)) != 0) {
		if (r < 0) {
			if (on_error != NULL)
				on_error(ctx, &ferr);
			continue;
		}
		if (feed(v, n, rec) < 0)
			break;
		fed++;
	}
	for (size_t i = 0; i < n; i++)
		if (v[i].ops->finish(v[i].acc, rc == 0 ? err : &ferr) < 0)
			rc = -1;
	return rc < 0 ? -1 : fed;
}
