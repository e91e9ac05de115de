/*
 * driver.c - the one record loop of every analysis program (see driver.h);
 * on several threads: par.c.
 */
#include "run_int.h"

/* Hand rec to every analysis.  @return 0, or -1 when one failed (no memory). */
int lbt_runi_feed(lbt_analysis *v, size_t n, const lbt_rec *rec)
{
	int rc = 0;

	for (size_t i = 0; i < n; i++)
		if (v[i].ops->add(v[i].acc, rec) < 0)
			rc = -1;
	return rc;
}

/* Finish every analysis (err: the first failure, unless `failed`).  @return 0 or -1 */
int lbt_runi_finish(lbt_analysis *v, size_t n, int failed, lbt_err *err)
{
	lbt_err ferr;
	int rc = 0;

	for (size_t i = 0; i < n; i++)
		if (v[i].ops->finish(v[i].acc, failed || rc < 0 ? &ferr : err) < 0)
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
	int r;

	while ((r = lbt_stream_next(s, &rec, &ferr)) != 0) {
		if (r < 0) {
			if (on_error != NULL)
				on_error(ctx, &ferr);
			continue;
		}
		if (lbt_runi_feed(v, n, rec) < 0)
			break;
		fed++;
	}
	return lbt_runi_finish(v, n, 0, err) < 0 ? -1 : fed;
}
