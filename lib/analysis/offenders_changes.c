/*
 * offenders_changes.c - the change points of lbt-offenders' sources (see
 * offenders.h, "Baseline, ratio and episodes"): the engine's options for
 * the input's span, the ranking by ratio, and the change points of a row.
 *
 * Each source's 1 s series is read as a dense array over the whole span
 * of the input, one source at a time, exactly as lbt-rate --by net reads
 * its keys: the same engine on the same counts gives the same answer.
 */
#include <stdlib.h>
#include <string.h>

#include "lbt/timeparse.h"
#include "offenders_int.h"

/*
 * The --baseline window in µs: times of day on the UTC day of the input's
 * first second, a window of times of day that ends before it starts ending
 * on the next day.
 */
static void window_us(const lbt_offenders *o, int64_t gfirst, int64_t *from, int64_t *to)
{
	int64_t day = lbt_bucket_of(gfirst, 86400) * 86400 * SEC;

	*from = o->base_tod & 1 ? day + o->base_from * SEC : o->base_from;
	*to = o->base_tod & 2 ? day + o->base_to * SEC : o->base_to;
	if (o->base_tod && *to <= *from)
		*to += 86400 * SEC;                /* 23:50..00:10 crosses midnight */
}

/*
 * Set o->cp for the span [gfirst, glast] (seconds): min_buckets from
 * --jump-min, and the --baseline window as bucket indices, rounded out to
 * whole seconds.  @return 0, or -1 with err when the window and the input
 * do not overlap.
 */
int lbt_offendersi_changes_setup(lbt_offenders *o, int64_t gfirst, int64_t glast, lbt_err *err)
{
	int64_t from, to, bf, bt;
	char a[48], b[48];

	o->cp = o->o.cp;
	o->cp.min_buckets = lbt_cp_buckets(o->o.jump_min_us, SEC);
	o->cp_origin = gfirst;
	o->cp_last = glast;
	if (o->st.baseline != 2)
		return 0;
	window_us(o, gfirst, &from, &to);
	bf = lbt_bucket_of(from, SEC);
	bt = lbt_bucket_of(to - 1, SEC) + 1;
	o->st.base_from_us = bf * SEC;
	o->st.base_to_us = bt * SEC;
	if (bt <= gfirst || bf > glast) {
		lbt_time_format(gfirst * SEC, 0, a, sizeof a);
		lbt_time_format((glast + 1) * SEC, 0, b, sizeof b);
		lbt_err_set(err, "--baseline: the window is outside the input (%s .. %s)", a, b);
		if (err != NULL)
			err->kind = LBT_ERR_EMPTY;     /* no failure: nothing to compare with (exit "empty") */
		return -1;
	}
	o->cp.base_from = (size_t)(bf > gfirst ? bf - gfirst : 0);
	o->cp.base_to = (size_t)((bt <= glast ? bt : glast + 1) - gfirst);
	return 0;
}

/* The change points of source s over the span into *res.
 * @return 0, or -1 when out of memory. */
static int source_changes(const lbt_offenders *o, const struct src *s, lbt_cp_result *res)
{
	int64_t *v = lbt_tally_dense(&s->sec, o->cp_origin, o->cp_last);
	int rc;

	if (v == NULL)
		return -1;
	rc = lbt_cp_find(v, (size_t)(o->cp_last - o->cp_origin + 1), 1.0, &o->cp, res);
	free(v);
	return rc;
}

/*
 * The ranking key of --by ratio of source s: class 2 for a new source
 * with a rise (ranked by the rise's mean), 1 for a rise over a baseline
 * (by its ratio), 0 for the rest; the engine runs only on a source that
 * may rise.  @return 0, or -1 when out of memory.
 */
static int rank_key(lbt_offenders *o, const lbt_hmap_entry *he)
{
	struct src_entry *e = he->val;
	lbt_series_point one = { e->full ? 0 : lbt_bucket_of(e->time_us, SEC), 1 }, *p = &one;
	size_t n = 1;
	lbt_cp_result res;
	lbt_cp_summary sum;
	struct src *s;
	int may;

	if (e->full != NULL && (p = lbt_tally_points(&e->full->sec, &n)) == NULL)
		return -1;
	may = lbt_cp_may_rise(p, n, 1.0, &o->cp);
	if (p != &one)
		free(p);
	if (!may)
		return 0;
	if ((s = lbt_offendersi_full(o, he)) == NULL)   /* a rise of one request: rare */
		return -1;
	o->st.changes++;
	if (source_changes(o, s, &res) < 0)
		return -1;
	sum = lbt_cp_summarize(&res, o->cp_origin);
	lbt_cp_result_free(&res);
	if (!sum.has_main || sum.kind != LBT_CP_RISE)
		return 0;
	e->rank_class = sum.is_new ? 2 : sum.has_ratio;
	e->rank_rate = sum.is_new ? sum.mean_rate : sum.ratio;
	return 0;
}

/* Rank keys of --by ratio for every source.  @return 0 or -1 (no memory). */
int lbt_offendersi_rank_ratio(lbt_offenders *o)
{
	lbt_hmap_entry e;

	for (size_t i = 0; i < lbt_hmap_count(o->srcs); i++) {
		lbt_hmap_at(o->srcs, i, &e);
		if (rank_key(o, &e) < 0)
			return -1;
	}
	return 0;
}

/* Whether source s may have a rise (lbt_cp_may_rise on its seconds).
 * @return 1, 0, or -1 when out of memory. */
static int src_may_rise(const lbt_offenders *o, const struct src *s)
{
	size_t n = 0;
	/* it sorts the offsets, as fill_row's lbt_tally_peak did: no count changes */
	lbt_series_point *p = lbt_tally_points((lbt_tally *)&s->sec, &n);
	int may;

	if (p == NULL)
		return -1;
	may = lbt_cp_may_rise(p, n, 1.0, &o->cp);
	free(p);
	return may;
}

/* The change points of row `row` of source s, and their summary in the
 * public row; with opts.rising_only none for a source that cannot rise
 * (an empty result: no segment, no baseline).  @return 0 or -1 (no memory). */
int lbt_offendersi_row_changes(lbt_offenders *o, const struct src *s, struct row *row)
{
	if (o->o.rising_only) {
		int may = src_may_rise(o, s);

		if (may < 0)
			return -1;
		if (may == 0) {
			memset(&row->cp, 0, sizeof row->cp);
			row->pub.cp = lbt_cp_summarize(&row->cp, o->cp_origin);
			return 0;
		}
	}
	o->st.changes++;
	if (source_changes(o, s, &row->cp) < 0)
		return -1;
	row->pub.cp = lbt_cp_summarize(&row->cp, o->cp_origin);
	return 0;
}
