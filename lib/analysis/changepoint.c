/*
 * changepoint.c - baseline and episodes of a segmented series of counts
 * (see changepoint.h for the method and its limits; the segmentation is
 * in changepoint_seg.c).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "changepoint_int.h"
#include "lbt/num.h"
#include "lbt/vec.h"

#define NEW_EXPECTED 7.0        /* events its first rate predicts in the absence */

/* The median of the per-bucket segment rates (each bucket its segment's
 * rate); the lower of the two middle ones when n is even: with half the
 * input in a flood, the other half is the usual level. */
static double median_rate(const lbt_cp_result *res, size_t n)
{
	size_t half = n > 0 ? (n - 1) / 2 : 0, seen = 0;
	lbt_cp_segment *s = malloc(res->nseg * sizeof *s);
	double m = 0;

	if (s == NULL)
		return res->nseg ? res->seg[0].rate : 0;
	memcpy(s, res->seg, res->nseg * sizeof *s);
	/* a handful of segments: insertion sort by rate */
	for (size_t i = 1; i < res->nseg; i++)
		for (size_t j = i; j > 0 && s[j - 1].rate > s[j].rate; j--) {
			lbt_cp_segment t = s[j];

			s[j] = s[j - 1];
			s[j - 1] = t;
		}
	for (size_t i = 0; i < res->nseg; i++) {
		seen += s[i].end - s[i].start;
		if (seen > half) {
			m = s[i].rate;
			break;
		}
	}
	free(s);
	return m;
}

/* Level of each segment against a reference rate. */
enum level { NORMAL, HIGH, LOW };

/* The rise threshold against baseline b (new: b < 0). */
static double rise_threshold(const lbt_cp_opts *o, double b)
{
	return b < 0 ? o->floor : fmax(o->factor * b, o->floor);
}

/* The level of a segment of rate r against baseline b (new: b < 0). */
static enum level level_of(const lbt_cp_opts *o, double r, double b)
{
	if (r >= rise_threshold(o, b) && r > 0)
		return HIGH;
	if (b >= o->floor && r <= o->drop_fraction * b)
		return LOW;
	return NORMAL;
}

/*
 * Is rate r at the usual level of reference rate ref: within step_ratio of
 * it either way (below the floor when ref is 0)?  Narrower than "not
 * elevated": the 200s of a flood at 4.7 times their rate are no rise with
 * a factor of 5, but not their usual level either.
 */
static int usual(const lbt_cp_opts *o, double r, double ref)
{
	if (ref <= 0)
		return r < o->floor;
	return r >= ref / o->step_ratio && r <= ref * o->step_ratio;
}

/*
 * The end of the period of unusual segments that starts at segment i:
 * unusual segments joined across usual gaps shorter than min_buckets (as
 * find_runs joins a rise).  @return the index after its last segment.
 */
static size_t unusual_run(const lbt_cp_result *res, const lbt_cp_opts *o, double ref,
    size_t i)
{
	size_t last = i;

	for (size_t j = i + 1; j < res->nseg; j++) {
		if (!usual(o, res->seg[j].rate, ref)) {
			last = j;
			continue;
		}
		if (res->seg[j].end - res->seg[last].end >= o->min_buckets)
			break;
	}
	return last + 1;
}

/*
 * The baseline against reference `ref`: the mean rate before the first
 * abnormal period (unusual segments lasting min_buckets together), every
 * bucket of it, short bursts included, so that it is the count before the
 * change divided by its seconds.  When the series starts abnormal, the
 * mean over every bucket outside abnormal periods; `ref` when there is
 * none.  *nb gets the buckets it was measured over.
 */
static double baseline_of(const lbt_cp_result *res, const struct lbt_cpi_sums *x,
    const lbt_cp_opts *o, double ref, size_t *nb)
{
	double sum = 0, len = 0;
	size_t i = 0;

	while (i < res->nseg) {
		size_t e = usual(o, res->seg[i].rate, ref) ? i + 1 : unusual_run(res, o, ref, i);
		size_t from = res->seg[i].start, to = res->seg[e - 1].end;

		if (to - from >= o->min_buckets && !usual(o, res->seg[i].rate, ref)) {
			if (from > 0 && len == (double)from)
				break;             /* the prefix before the first change */
		} else {
			sum += x->S[to] - x->S[from];
			len += (double)(to - from);
		}
		i = e;
	}
	*nb = (size_t)len;
	return len > 0 ? sum / (len * x->step) : ref;
}

/*
 * Is the series new: absent from bucket 0 to `first` for longer than the
 * rate it then appears with allows?  That rate is the one of the segment
 * holding `first`, measured from `first` on: a flood that brings a source
 * with it is new; a key that was there all along at a low rate, missing
 * from the first bucket by chance, is not.
 */
static int is_new_series(const lbt_cp_result *res, const struct lbt_cpi_sums *x, size_t first)
{
	if (first == 0 || first >= x->n)
		return 0;
	for (size_t i = 0; i < res->nseg; i++)
		if (res->seg[i].end > first)
			return (double)first * x->step *
			    lbt_cpi_rate(x, first, res->seg[i].end) > NEW_EXPECTED;
	return 0;
}

/* Fill an episode over [s, t) of kind k. */
static lbt_cp_episode episode_make(const struct lbt_cpi_sums *x, lbt_cp_kind k, size_t s,
    size_t t, double from, double baseline)
{
	lbt_cp_episode e = { k, s, t, t == x->n, s, 0, 0, from, 0 };

	for (size_t i = s; i < t; i++)
		if (k == LBT_CP_RISE ? x->v[i] > x->v[e.peak] : x->v[i] < x->v[e.peak])
			e.peak = i;
	e.peak_rate = (double)x->v[e.peak] / x->step;
	e.mean_rate = lbt_cpi_rate(x, s, t);
	e.ratio = baseline > 0 ? e.mean_rate / baseline : 0;
	return e;
}

/*
 * Append e when it lasts min_buckets and its mean is at the level of its
 * kind against baseline b (new: b < 0): a rise at least the threshold, a
 * drop at most drop_fraction x b.  @return 0 or -1 (no memory).
 */
static int episode_push(lbt_cp_result *res, size_t *cap, const lbt_cp_episode *e,
    const lbt_cp_opts *o, double b)
{
	if (e->end - e->start < o->min_buckets)
		return 0;
	if (level_of(o, e->mean_rate, b) != (e->kind == LBT_CP_RISE ? HIGH : LOW))
		return 0;
	if (LBT_GROW(res->ep, *cap, res->nep + 1, 4) < 0)
		return -1;
	res->ep[res->nep++] = *e;
	return 0;
}

/* The rate of the segment before bucket `at`, or the baseline at the start. */
static double rate_before(const lbt_cp_result *res, size_t at)
{
	for (size_t i = res->nseg; i > 0; i--)
		if (res->seg[i - 1].end <= at)
			return res->seg[i - 1].rate;
	return res->baseline;
}

/* Is part i of g[0..n) a lull: inside, and below lull_fraction of the
 * highest part on each side of it? */
static int is_lull(const lbt_cp_segment *g, size_t n, size_t i, const lbt_cp_opts *o)
{
	double left = 0, right = 0;

	if (i == 0 || i + 1 >= n)
		return 0;
	for (size_t j = 0; j < i; j++)
		left = fmax(left, g[j].rate);
	for (size_t j = i + 1; j < n; j++)
		right = fmax(right, g[j].rate);
	return g[i].rate < o->lull_fraction * fmin(left, right);
}

/*
 * The rises of segments [a, b) of one run: the parts of a short gap inside
 * folded, parts closer than step_ratio merged, then one episode a part but
 * the lulls.
 * @return 0 or -1 (no memory).
 */
static int rise_episodes(lbt_cp_result *res, size_t *cap, const struct lbt_cpi_sums *x,
    const lbt_cp_opts *o, size_t a, size_t b, double base)
{
	size_t n = b - a;
	lbt_cp_segment *g = malloc(n * sizeof *g);
	int rc = 0;

	if (g == NULL)
		return -1;
	memcpy(g, &res->seg[a], n * sizeof *g);
	lbt_cpi_fold(g, &n, x, o->min_buckets);
	lbt_cpi_merge(g, &n, x, o->step_ratio);
	for (size_t i = 0; i < n && rc == 0; i++) {
		double from = i ? g[i - 1].rate : rate_before(res, g[i].start);
		lbt_cp_episode e;

		if (is_lull(g, n, i, o))
			continue;
		e = episode_make(x, LBT_CP_RISE, g[i].start, g[i].end, from, res->baseline);
		rc = episode_push(res, cap, &e, o, base);
	}
	free(g);
	return rc;
}

/*
 * Runs of segments of level lv, joined across gaps of other levels shorter
 * than min_buckets, each turned into episodes.  @return 0 or -1.
 */
static int find_runs(lbt_cp_result *res, size_t *cap, const struct lbt_cpi_sums *x,
    const lbt_cp_opts *o, enum level lv, double b)
{
	size_t i = 0;
	lbt_cp_episode e;

	while (i < res->nseg) {
		size_t a, last;

		if (level_of(o, res->seg[i].rate, b) != lv) {
			i++;
			continue;
		}
		a = last = i;
		for (size_t j = i + 1; j < res->nseg; j++) {
			if (level_of(o, res->seg[j].rate, b) == lv) {
				last = j;
				continue;
			}
			if (res->seg[j].end - res->seg[last].end >= o->min_buckets)
				break;     /* a gap of min_buckets ends the run */
		}
		if (lv == HIGH && rise_episodes(res, cap, x, o, a, last + 1, b) < 0)
			return -1;
		if (lv == LOW) {
			e = episode_make(x, LBT_CP_DROP, res->seg[a].start, res->seg[last].end,
			    rate_before(res, res->seg[a].start), res->baseline);
			if (episode_push(res, cap, &e, o, b) < 0)
				return -1;
		}
		i = last + 1;
	}
	return 0;
}

/* Order episodes by start (rises and drops were found apart). */
static int ep_cmp(const void *a, const void *b)
{
	const lbt_cp_episode *x = a, *y = b;

	return (x->start > y->start) - (x->start < y->start);
}

/*
 * Baseline and new from the explicit window of o: the mean rate in it,
 * new when it holds no event (and the series has one).  @return the
 * baseline for level_of (-1 when new).
 */
static double window_baseline(lbt_cp_result *res, const struct lbt_cpi_sums *x,
    const lbt_cp_opts *o)
{
	size_t from = o->base_from < x->n ? o->base_from : x->n;
	size_t to = o->base_to < x->n ? o->base_to : x->n;

	res->short_baseline = to - from < o->min_buckets;
	res->baseline = lbt_cpi_rate(x, from, to);
	res->is_new = res->baseline == 0 && res->first_seen < x->n;
	return res->is_new ? -1 : res->baseline;
}

/*
 * The first guess at the usual level: the rate of the first segment (what
 * the series did when the input began: a flood that lasts most of the
 * input is no baseline), or the median bucket rate when that first rate
 * is a rise over it (the input began inside a flood).  Not a median of 0:
 * an LB out of rotation for most of the input is silent most of the time,
 * and what it did before is its baseline.
 */
static double usual_reference(const lbt_cp_result *res, size_t n, const lbt_cp_opts *o)
{
	double first = res->nseg ? res->seg[0].rate : 0, med = median_rate(res, n);

	return med > 0 && first >= rise_threshold(o, med) ? med : first;
}

/*
 * Baseline and new from the series itself.  @return the baseline for
 * level_of (-1 when new).
 */
static double own_baseline(lbt_cp_result *res, const struct lbt_cpi_sums *x,
    const lbt_cp_opts *o)
{
	size_t nb = 0;

	res->is_new = is_new_series(res, x, res->first_seen);
	if (res->is_new) {
		res->baseline = 0;
		return -1;
	}
	res->baseline = baseline_of(res, x, o, usual_reference(res, x->n, o), &nb);
	res->baseline = baseline_of(res, x, o, res->baseline, &nb);
	res->short_baseline = nb < o->min_buckets;
	return res->baseline;
}

/* The main episode: the first rise, or the first drop; nep when none. */
static size_t main_episode(const lbt_cp_result *res)
{
	for (size_t i = 0; i < res->nep; i++)
		if (res->ep[i].kind == LBT_CP_RISE)
			return i;
	return res->nep ? 0 : res->nep;
}

/* First seen, baseline, new, then the episodes of the segmented series. */
static int classify(lbt_cp_result *res, const struct lbt_cpi_sums *x, const lbt_cp_opts *o)
{
	size_t cap = 0;
	double b;

	res->first_seen = x->n;
	for (size_t i = 0; i < x->n; i++)
		if (x->v[i] > 0) {
			res->first_seen = i;
			break;
		}
	if (o->base_to > o->base_from)
		b = window_baseline(res, x, o);
	else
		b = own_baseline(res, x, o);
	if (find_runs(res, &cap, x, o, HIGH, b) < 0 || find_runs(res, &cap, x, o, LOW, b) < 0)
		return -1;
	if (res->nep > 1)
		qsort(res->ep, res->nep, sizeof *res->ep, ep_cmp);
	res->main = main_episode(res);
	return 0;
}

/* Find the episodes of v[0..n); see changepoint.h.  @return 0 or -1. */
int lbt_cp_find(const int64_t *v, size_t n, double step_s, const lbt_cp_opts *opts,
    lbt_cp_result *res)
{
	static const lbt_cp_opts dflt = LBT_CP_OPTS_INIT;
	const lbt_cp_opts *o = opts ? opts : &dflt;
	struct lbt_cpi_sums x = { v, NULL, n, step_s > 0 ? step_s : 1.0 };
	double beta = o->penalty > 0 ? o->penalty : 2.0 * log((double)(n > 1 ? n : 2));
	int rc = -1;

	memset(res, 0, sizeof *res);
	if (n == 0)
		return 0;
	if ((x.S = malloc((n + 1) * sizeof *x.S)) == NULL)
		return -1;
	x.S[0] = 0;
	for (size_t i = 0; i < n; i++)
		x.S[i + 1] = x.S[i] + (double)(v[i] > 0 ? v[i] : 0);
	if (lbt_cpi_segment(&x, beta, o->merge_ratio, o->min_buckets, res) == 0)
		rc = classify(res, &x, o);
	free(x.S);
	if (rc < 0)
		lbt_cp_result_free(res);
	return rc;
}

/* Free the result's arrays; see changepoint.h. */
void lbt_cp_result_free(lbt_cp_result *res)
{
	if (res == NULL)
		return;
	free(res->ep);
	free(res->seg);
	memset(res, 0, sizeof *res);
}

/* @return the main episode, or NULL. */
const lbt_cp_episode *lbt_cp_main(const lbt_cp_result *res)
{
	return res->main < res->nep ? &res->ep[res->main] : NULL;
}

/* The summary of res in absolute buckets; see changepoint.h. */
lbt_cp_summary lbt_cp_summarize(const lbt_cp_result *res, int64_t origin)
{
	const lbt_cp_episode *e = lbt_cp_main(res);
	lbt_cp_summary s = { 0 };

	s.is_new = res->is_new;
	s.baseline = res->baseline;
	s.episodes = res->nep;
	if (e == NULL)
		return s;
	s.has_main = 1;
	s.kind = e->kind;
	s.ongoing = e->ongoing;
	s.start = origin + (int64_t)e->start;
	s.end = origin + (int64_t)e->end;
	s.peak_rate = e->peak_rate;
	s.mean_rate = e->mean_rate;
	s.has_ratio = !res->is_new && res->baseline > 0;
	s.ratio = s.has_ratio ? e->ratio : 0;
	return s;
}

/* Is there a window of min_buckets buckets holding floor x min_buckets x
 * step / 2 events?  Two pointers over the sorted points.  @return 1 or 0. */
int lbt_cp_may_rise(const lbt_series_point *p, size_t n, double step_s, const lbt_cp_opts *o)
{
	double need = o->floor * (double)o->min_buckets * step_s / 2, sum = 0;
	int64_t w = (int64_t)(o->min_buckets > 0 ? o->min_buckets : 1);
	size_t lo = 0;

	for (size_t hi = 0; hi < n; hi++) {
		sum += (double)p[hi].value;
		while (p[hi].bucket - p[lo].bucket >= w)
			sum -= (double)p[lo++].value;
		if (sum >= need && sum > 0)
			return 1;
	}
	return 0;
}

/* Check option values; see changepoint.h.  @return 0 or -1 with err. */
int lbt_cp_opts_check(const lbt_cp_opts *o, lbt_err *err)
{
	if (!(o->factor > 1))
		return lbt_err_set(err, "--jump-factor: must be greater than 1");
	if (!(o->floor >= 0))
		return lbt_err_set(err, "--jump-floor: must not be negative");
	if (!(o->drop_fraction >= 0 && o->drop_fraction < 1))
		return lbt_err_set(err, "--drop-fraction: must be at least 0 and less than 1");
	if (o->min_buckets < 1)
		return lbt_err_set(err, "--jump-min: must be at least one bucket");
	if (!(o->merge_ratio > 1 && o->step_ratio > 1 && o->lull_fraction > 0 &&
	    o->lull_fraction < 1 && o->penalty >= 0))
		return lbt_err_set(err, "change points: merge and step ratios must be greater "
		    "than 1, the lull fraction in (0, 1), the penalty not negative");
	return 0;
}

/* ceil(dur_us / step_us), at least 1.  step_us > 0. */
size_t lbt_cp_buckets(int64_t dur_us, int64_t step_us)
{
	int64_t b = dur_us > 0 ? (dur_us - 1) / step_us + 1 : 1;

	return (size_t)(b > 0 ? b : 1);
}

/* lbt_cli_fn for --jump-factor (> 1).  @return 0 or -1 with err. */
int lbt_cp_opt_factor(void *cp_opts, const char *arg, lbt_err *err)
{
	return lbt_num_parse_double(arg, 1, 1, HUGE_VAL, "--jump-factor",
	    &((lbt_cp_opts *)cp_opts)->factor, err);
}

/* lbt_cli_fn for --jump-floor (>= 0).  @return 0 or -1 with err. */
int lbt_cp_opt_floor(void *cp_opts, const char *arg, lbt_err *err)
{
	return lbt_num_parse_double(arg, 0, 0, HUGE_VAL, "--jump-floor",
	    &((lbt_cp_opts *)cp_opts)->floor, err);
}

/* lbt_cli_fn for --drop-fraction (0 <= f < 1).  @return 0 or -1 with err. */
int lbt_cp_opt_drop(void *cp_opts, const char *arg, lbt_err *err)
{
	double f;

	if (lbt_num_parse_double(arg, 0, 0, 1, "--drop-fraction", &f, err) < 0)
		return -1;
	if (f >= 1)
		return lbt_err_set(err, "--drop-fraction: '%s' must be less than 1", arg);
	((lbt_cp_opts *)cp_opts)->drop_fraction = f;
	return 0;
}
