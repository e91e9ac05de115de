/*
 * changepoint.c - segmentation, baseline and episodes of a series of
 * counts (see changepoint.h for the method and its limits).
 *
 * PELT keeps the candidate starts of the last segment in `cand`; a start
 * s is dropped once F(s) + cost(s, t) > F(t), which for a cost that is a
 * sum over buckets (the Poisson negative log-likelihood is) never drops
 * the optimum (Killick et al., theorem 3.1 with K = 0).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lbt/changepoint.h"
#include "lbt/vec.h"

#define NEW_EXPECTED 7.0        /* events its first rate predicts in the absence */

/* Prefix sums: S[i] = v[0] + ... + v[i - 1]. */
struct sums {
	const int64_t *v;
	double *S;
	size_t n;
	double step;
};

/* Twice the Poisson negative log-likelihood of [s, t), constants left out. */
static double seg_cost(const struct sums *x, size_t s, size_t t)
{
	double c = x->S[t] - x->S[s], l = (double)(t - s);

	return c > 0 ? 2.0 * (c - c * log(c / l)) : 0.0;
}

/* Events a second over [s, t). */
static double seg_rate(const struct sums *x, size_t s, size_t t)
{
	return t > s ? (x->S[t] - x->S[s]) / ((double)(t - s) * x->step) : 0.0;
}

/* Append segment [s, t) to res.  @return 0 or -1 (no memory). */
static int seg_push(lbt_cp_result *res, size_t *cap, const struct sums *x, size_t s, size_t t)
{
	if (LBT_GROW(res->seg, *cap, res->nseg + 1, 16) < 0)
		return -1;
	res->seg[res->nseg++] = (lbt_cp_segment){ s, t, seg_rate(x, s, t) };
	return 0;
}

/*
 * PELT over the whole series; the optimal segments into res->seg in time
 * order.  @return 0 or -1 (no memory).
 */
static int pelt(const struct sums *x, double beta, lbt_cp_result *res)
{
	size_t n = x->n, ncand = 1, cap = 0, *last = malloc((n + 1) * sizeof *last);
	size_t *cand = malloc((n + 1) * sizeof *cand), *cut = NULL, ncut = 0;
	double *F = malloc((n + 1) * sizeof *F);
	int rc = -1;

	if (last == NULL || cand == NULL || F == NULL)
		goto out;
	F[0] = -beta;
	cand[0] = 0;
	for (size_t t = 1; t <= n; t++) {
		size_t keep = 0;

		F[t] = INFINITY;
		for (size_t i = 0; i < ncand; i++) {
			double f = F[cand[i]] + seg_cost(x, cand[i], t) + beta;

			if (f < F[t]) {
				F[t] = f;
				last[t] = cand[i];
			}
		}
		for (size_t i = 0; i < ncand; i++)
			if (F[cand[i]] + seg_cost(x, cand[i], t) <= F[t])
				cand[keep++] = cand[i];
		cand[keep++] = t;
		ncand = keep;
	}
	/* Walk back from n; the cuts come out last first. */
	if ((cut = malloc((n + 1) * sizeof *cut)) == NULL)
		goto out;
	for (size_t t = n; t > 0; t = last[t])
		cut[ncut++] = t;
	rc = 0;
	for (size_t i = ncut, s = 0; i > 0 && rc == 0; i--) {
		rc = seg_push(res, &cap, x, s, cut[i - 1]);
		s = cut[i - 1];
	}
out:
	free(cut);
	free(F);
	free(cand);
	free(last);
	return rc;
}

/* max/min of two rates; 1 for two zeros, infinity for a zero and a rate. */
static double rate_ratio(double a, double b)
{
	double hi = a > b ? a : b, lo = a > b ? b : a;

	if (hi == 0)
		return 1.0;
	return lo == 0 ? INFINITY : hi / lo;
}

/* Merge adjacent segments closer than `ratio`, the closest pair first. */
static void seg_merge(lbt_cp_result *res, const struct sums *x, double ratio)
{
	while (res->nseg > 1) {
		size_t best = 0;
		double br = INFINITY;

		for (size_t i = 0; i + 1 < res->nseg; i++) {
			double r = rate_ratio(res->seg[i].rate, res->seg[i + 1].rate);

			if (r < br) {
				br = r;
				best = i;
			}
		}
		if (br >= ratio)
			return;
		res->seg[best].end = res->seg[best + 1].end;
		res->seg[best].rate = seg_rate(x, res->seg[best].start, res->seg[best].end);
		memmove(&res->seg[best + 1], &res->seg[best + 2],
		    (res->nseg - best - 2) * sizeof res->seg[0]);
		res->nseg--;
	}
}

/* The median of the per-bucket segment rates (each bucket its segment's rate). */
static double median_rate(const lbt_cp_result *res, size_t n)
{
	size_t half = n / 2, seen = 0;
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

/* The level of a segment of rate r against baseline b (new: b < 0). */
static enum level level_of(const lbt_cp_opts *o, double r, double b)
{
	double thr = b < 0 ? o->floor : fmax(o->factor * b, o->floor);

	if (r >= thr && r > 0)
		return HIGH;
	if (b >= o->floor && r <= o->drop_fraction * b)
		return LOW;
	return NORMAL;
}

/*
 * The baseline against reference `ref`: the mean rate over the NORMAL
 * buckets before the first run of min_buckets HIGH or LOW buckets (all
 * NORMAL buckets when that run starts the series; `ref` when there are
 * none).  *nb gets the buckets it was measured over.
 */
static double baseline_of(const lbt_cp_result *res, const struct sums *x,
    const lbt_cp_opts *o, double ref, size_t *nb)
{
	double sum = 0, len = 0, all = 0, alllen = 0;
	size_t i, first_abn = res->nseg;

	for (i = 0; i < res->nseg; i++)
		if (level_of(o, res->seg[i].rate, ref) != NORMAL &&
		    res->seg[i].end - res->seg[i].start >= o->min_buckets) {
			first_abn = i;
			break;
		}
	for (i = 0; i < res->nseg; i++) {
		const lbt_cp_segment *s = &res->seg[i];
		double c = x->S[s->end] - x->S[s->start], l = (double)(s->end - s->start);

		if (level_of(o, s->rate, ref) != NORMAL)
			continue;
		all += c;
		alllen += l;
		if (i < first_abn) {
			sum += c;
			len += l;
		}
	}
	if (len == 0) {
		sum = all;
		len = alllen;
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
static int is_new_series(const lbt_cp_result *res, const struct sums *x, size_t first)
{
	if (first == 0 || first >= x->n)
		return 0;
	for (size_t i = 0; i < res->nseg; i++)
		if (res->seg[i].end > first)
			return (double)first * x->step * seg_rate(x, first, res->seg[i].end) >
			    NEW_EXPECTED;
	return 0;
}

/* Fill an episode over [s, t) of kind k. */
static lbt_cp_episode episode_make(const struct sums *x, lbt_cp_kind k, size_t s, size_t t,
    double from, double baseline)
{
	lbt_cp_episode e = { k, s, t, t == x->n, s, 0, 0, from, 0 };

	for (size_t i = s; i < t; i++)
		if (k == LBT_CP_RISE ? x->v[i] > x->v[e.peak] : x->v[i] < x->v[e.peak])
			e.peak = i;
	e.peak_rate = (double)x->v[e.peak] / x->step;
	e.mean_rate = seg_rate(x, s, t);
	e.ratio = baseline > 0 ? e.mean_rate / baseline : 0;
	return e;
}

/* Append an episode when it lasts min_buckets.  @return 0 or -1 (no memory). */
static int episode_push(lbt_cp_result *res, size_t *cap, const lbt_cp_episode *e,
    const lbt_cp_opts *o)
{
	if (e->end - e->start < o->min_buckets)
		return 0;
	if (LBT_GROW(res->ep, *cap, res->nep + 1, 4) < 0)
		return -1;
	res->ep[res->nep++] = *e;
	return 0;
}

/*
 * Is segment i (HIGH, inside a run) a lull: at least min_buckets long, and
 * below lull_fraction of the HIGH segments on both sides of it in the run?
 */
static int is_lull(const lbt_cp_result *res, const lbt_cp_opts *o, size_t i, size_t a,
    size_t b)
{
	const lbt_cp_segment *s = &res->seg[i];
	double left = 0, right = 0;

	if (s->end - s->start < o->min_buckets || i == a || i + 1 >= b)
		return 0;
	for (size_t j = a; j < i; j++)
		left = fmax(left, res->seg[j].rate);
	for (size_t j = i + 1; j < b; j++)
		right = fmax(right, res->seg[j].rate);
	return s->rate < o->lull_fraction * fmin(left, right);
}

/* The rate of the segment before bucket `at`, or the baseline at the start. */
static double rate_before(const lbt_cp_result *res, size_t at)
{
	for (size_t i = res->nseg; i > 0; i--)
		if (res->seg[i - 1].end <= at)
			return res->seg[i - 1].rate;
	return res->baseline;
}

/*
 * The episodes of kind `lv` in segments [a, b) of one run: split at lulls
 * (rises only).  @return 0 or -1 (no memory).
 */
static int run_episodes(lbt_cp_result *res, size_t *cap, const struct sums *x,
    const lbt_cp_opts *o, enum level lv, size_t a, size_t b)
{
	size_t from = a;
	lbt_cp_episode e;

	for (size_t i = a; i < b; i++) {
		if (lv != HIGH || !is_lull(res, o, i, from, b))
			continue;
		e = episode_make(x, LBT_CP_RISE, res->seg[from].start, res->seg[i].start,
		    rate_before(res, res->seg[from].start), res->baseline);
		if (episode_push(res, cap, &e, o) < 0)
			return -1;
		from = i + 1;
	}
	e = episode_make(x, lv == HIGH ? LBT_CP_RISE : LBT_CP_DROP, res->seg[from].start,
	    res->seg[b - 1].end, rate_before(res, res->seg[from].start), res->baseline);
	return episode_push(res, cap, &e, o);
}

/*
 * Runs of segments of level lv, joined across gaps of other levels shorter
 * than min_buckets, each turned into episodes.  @return 0 or -1.
 */
static int find_runs(lbt_cp_result *res, size_t *cap, const struct sums *x,
    const lbt_cp_opts *o, enum level lv, double b)
{
	size_t i = 0;

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
		if (run_episodes(res, cap, x, o, lv, a, last + 1) < 0)
			return -1;
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

/* Baseline, new, then the episodes of the segmented series. */
static int classify(lbt_cp_result *res, const struct sums *x, const lbt_cp_opts *o)
{
	size_t cap = 0, nb = 0;
	double b;

	res->first_seen = x->n;
	for (size_t i = 0; i < x->n; i++)
		if (x->v[i] > 0) {
			res->first_seen = i;
			break;
		}
	res->is_new = is_new_series(res, x, res->first_seen);
	if (res->is_new) {
		b = -1;
		res->baseline = 0;
	} else {
		double ref = median_rate(res, x->n);

		res->baseline = baseline_of(res, x, o, ref, &nb);
		res->baseline = baseline_of(res, x, o, res->baseline, &nb);
		res->short_baseline = nb < o->min_buckets;
		b = res->baseline;
	}
	if (find_runs(res, &cap, x, o, HIGH, b) < 0 || find_runs(res, &cap, x, o, LOW, b) < 0)
		return -1;
	if (res->nep > 1)
		qsort(res->ep, res->nep, sizeof *res->ep, ep_cmp);
	return 0;
}

/* Find the episodes of v[0..n); see changepoint.h.  @return 0 or -1. */
int lbt_cp_find(const int64_t *v, size_t n, double step_s, const lbt_cp_opts *opts,
    lbt_cp_result *res)
{
	static const lbt_cp_opts dflt = LBT_CP_OPTS_INIT;
	const lbt_cp_opts *o = opts ? opts : &dflt;
	struct sums x = { v, NULL, n, step_s > 0 ? step_s : 1.0 };
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
	if (pelt(&x, beta, res) == 0) {
		seg_merge(res, &x, o->merge_ratio);
		rc = classify(res, &x, o);
	}
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
