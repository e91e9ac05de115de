/*
 * changepoint_seg.c - the segmentation of a series of counts into
 * segments of constant rate (see changepoint.h, step 1).
 *
 * PELT keeps the candidate starts of the last segment in `cand`; a start
 * s is dropped once F(s) + cost(s, t) > F(t), which for a cost that is a
 * sum over buckets (the Poisson negative log-likelihood is) never drops
 * the optimum (Killick et al., theorem 3.1 with K = 0).  On a steady
 * series nothing is ever dropped and the work grows as the square of the
 * candidates: 86400 one-second buckets of steady traffic took 34 s.  Two
 * things bound it: only cuts next to a non-empty block are candidates
 * (exact for those cuts), and past LBT_CP_EXACT of them a coarser grid is
 * segmented and each cut refined on the full one (a day of steady
 * seconds: 6.5 M instructions, callgrind).  Why 256: a steady hour of
 * seconds in blocks of 5 (720 candidates) costs 26 M instructions exact
 * (a limit of 1024), 3 M on the grid; a day 57 M and 6.5 M; the cuts are
 * refined to the bucket either way.
 *
 * Cuts are first placed between blocks of h = min_buckets / 2 buckets,
 * then each is moved to the best bucket within h of it.  At the bucket
 * level the Poisson cost isolates every burst of a client that sends 6
 * requests every 5 s (a 6/s second, four empty ones, again) and every dip
 * of a proxy at maxconn that logs in bursts; an episode lasts min_buckets,
 * and at that time scale they are 1.2/s and one flood.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "changepoint_int.h"
#include "lbt/vec.h"

/* Twice the Poisson negative log-likelihood of [s, t), constants left out. */
static double seg_cost(const struct lbt_cpi_sums *x, size_t s, size_t t)
{
	double c = x->S[t] - x->S[s], l = (double)(t - s);

	return c > 0 ? 2.0 * (c - c * log(c / l)) : 0.0;
}

/* Events a second over [s, t); see changepoint_int.h. */
double lbt_cpi_rate(const struct lbt_cpi_sums *x, size_t s, size_t t)
{
	return t > s ? (x->S[t] - x->S[s]) / ((double)(t - s) * x->step) : 0.0;
}

/*
 * The cuts worth trying: 0, n and every multiple i of h in (0, n) with a
 * non-empty block [i - h, i) or [i, i + h).  Moving a cut inside a run of
 * empty blocks changes only the lengths of its two segments, and 2 C ln(L)
 * is concave in L, so the best place in the run is one of its ends.
 * @return the malloc'ed positions with *m their count, or NULL when out
 * of memory.
 */
static size_t *candidates(const struct lbt_cpi_sums *x, size_t h, size_t *m)
{
	size_t *pos = malloc((x->n / h + 2) * sizeof *pos), k = 0;

	if (pos == NULL)
		return NULL;
	pos[k++] = 0;
	for (size_t i = h; i < x->n; i += h) {
		size_t e = i + h < x->n ? i + h : x->n;

		if (x->S[e] > x->S[i - h])
			pos[k++] = i;
	}
	pos[k++] = x->n;
	*m = k;
	return pos;
}

/* The cuts of the optimum ending at m - 1, from last[] (the best previous
 * cut of each), into cut[0..*nc) in time order. */
static void backtrack(const size_t *last, size_t m, size_t *cut, size_t *nc)
{
	*nc = 0;
	for (size_t t = m - 1; t > 0; t = last[t])      /* last first */
		cut[(*nc)++] = t;
	for (size_t i = 0; i < *nc / 2; i++) {
		size_t tmp = cut[i];

		cut[i] = cut[*nc - 1 - i];
		cut[*nc - 1 - i] = tmp;
	}
}

/*
 * PELT over the cuts pos[0..m) (pos[0] = 0, pos[m - 1] = n).  The chosen
 * cuts, as indices into pos, go to cut[0..*nc) in time order, the last one
 * m - 1.  cut holds m entries.  @return 0 or -1 (no memory).
 */
static int pelt(const struct lbt_cpi_sums *x, const size_t *pos, size_t m, double beta,
    size_t *cut, size_t *nc)
{
	size_t *last = malloc(m * sizeof *last), *cand = malloc(m * sizeof *cand), ncand = 1;
	double *F = malloc(m * sizeof *F), *f = malloc(m * sizeof *f);
	int rc = -1;

	if (last == NULL || cand == NULL || F == NULL || f == NULL)
		goto out;
	F[0] = -beta;
	cand[0] = 0;
	for (size_t t = 1; t < m; t++) {
		size_t keep = 0;

		F[t] = INFINITY;
		for (size_t i = 0; i < ncand; i++) {
			f[i] = F[cand[i]] + seg_cost(x, pos[cand[i]], pos[t]);
			if (f[i] + beta < F[t]) {
				F[t] = f[i] + beta;
				last[t] = cand[i];
			}
		}
		for (size_t i = 0; i < ncand; i++)
			if (f[i] <= F[t])
				cand[keep++] = cand[i];
		cand[keep++] = t;
		ncand = keep;
	}
	backtrack(last, m, cut, nc);
	rc = 0;
out:
	free(f);
	free(F);
	free(cand);
	free(last);
	return rc;
}

/* Position k of a candidate list; NULL: every bucket (position k is k). */
#define POS(pos, k) ((pos) ? (pos)[k] : (k))

/*
 * Move each inner cut (indices into pos) to the candidate within `reach`
 * of it, strictly between its neighbours, that makes its two segments
 * cheapest; left to right, each with its left neighbour already moved.
 */
static void refine(const struct lbt_cpi_sums *x, const size_t *pos, size_t *cut, size_t nc,
    size_t reach)
{
	for (size_t j = 0; j + 1 < nc; j++) {
		size_t lo = j ? cut[j - 1] + 1 : 1, hi = cut[j + 1] - 1, best = cut[j];
		size_t a = j ? POS(pos, cut[j - 1]) : 0, e = POS(pos, cut[j + 1]);
		double bc = seg_cost(x, a, POS(pos, best)) + seg_cost(x, POS(pos, best), e);

		if (cut[j] > reach && cut[j] - reach > lo)
			lo = cut[j] - reach;
		if (cut[j] + reach < hi)
			hi = cut[j] + reach;
		for (size_t k = lo; k <= hi; k++) {
			double c = seg_cost(x, a, POS(pos, k)) + seg_cost(x, POS(pos, k), e);

			if (c < bc) {
				bc = c;
				best = k;
			}
		}
		cut[j] = best;
	}
}

/*
 * The cuts of x as bucket positions into cut[0..*nc) (the last one n):
 * PELT over the candidates pos[0..m), exact up to LBT_CP_EXACT of them,
 * past that on every B-th one refined within B; then each moved within h
 * buckets.  cut holds m entries.  @return 0 or -1 (no memory).
 */
static int choose_cuts(const struct lbt_cpi_sums *x, const size_t *pos, size_t m, double beta,
    size_t h, size_t *cut, size_t *nc)
{
	size_t b = (m + LBT_CP_EXACT - 1) / LBT_CP_EXACT, mm = 0, *grid = pos != NULL && b > 1 ?
	    malloc(m * sizeof *grid) : NULL;

	if (b > 1 && grid == NULL)
		return -1;
	if (b <= 1) {
		if (pelt(x, pos, m, beta, cut, nc) < 0)
			return -1;
	} else {
		for (size_t i = 0; i < m; i += b)
			grid[mm++] = pos[i];
		if (grid[mm - 1] != pos[m - 1])
			grid[mm++] = pos[m - 1];
		if (pelt(x, grid, mm, beta, cut, nc) < 0) {
			free(grid);
			return -1;
		}
		for (size_t j = 0; j < *nc; j++)    /* grid index -> pos index */
			cut[j] = cut[j] * b < m ? cut[j] * b : m - 1;
		refine(x, pos, cut, *nc, b);
	}
	free(grid);
	for (size_t j = 0; j < *nc; j++)
		cut[j] = pos[cut[j]];
	if (h > 1)
		refine(x, NULL, cut, *nc, h - 1);
	return 0;
}

/* How far apart two rates are: |ln(a / b)|, empty segments counting as a
 * rate of 1e-9 a second. */
static double log_gap(double a, double b)
{
	return fabs(log((a + 1e-9) / (b + 1e-9)));
}

/*
 * One pass of folding: every segment of at most `len` buckets joins the
 * neighbour whose rate is closer, the left one on a tie; left to right,
 * the left neighbour as it has grown.  The last segment of the series joins
 * its one neighbour only when shorter than `edge`: the partial last second
 * of a log is part of the flood it ends, but 12 s back at the usual rate
 * after a flood are not, whatever min_buckets says.  The first one folds
 * as any: the usual level is read from it, and 5 s of a steady client
 * that happened to be slow were taken for it.
 */
static void fold_pass(lbt_cp_segment *s, size_t *n, const struct lbt_cpi_sums *x, size_t len,
    size_t edge)
{
	size_t w = 0;

	for (size_t i = 0; i < *n; i++) {
		int left = w > 0, right = i + 1 < *n;
		size_t l = s[i].end - s[i].start;

		if (l > len || (!left && !right) || (left && !right && l >= edge)) {
			s[w++] = s[i];
			continue;
		}
		if (left && (!right || log_gap(s[w - 1].rate, s[i].rate) <=
		    log_gap(s[i + 1].rate, s[i].rate))) {
			s[w - 1].end = s[i].end;
			s[w - 1].rate = lbt_cpi_rate(x, s[w - 1].start, s[w - 1].end);
		} else {
			s[i + 1].start = s[i].start;
			s[i + 1].rate = lbt_cpi_rate(x, s[i + 1].start, s[i + 1].end);
		}
	}
	*n = w;
}

/* Fold segments shorter than `min`, shortest first; see changepoint_int.h.
 * Passes at lengths 1, 2, 4 ... min - 1, each linear in segments; at the
 * end of the series, only a segment shorter than min / 2. */
void lbt_cpi_fold(lbt_cp_segment *s, size_t *n, const struct lbt_cpi_sums *x, size_t min)
{
	for (size_t len = 1; len < min; len = len * 2 < min ? len * 2 : min - 1) {
		fold_pass(s, n, x, len, (min + 1) / 2);
		if (len == min - 1)
			break;
	}
}

/* Segment x into res->seg; see changepoint_int.h.  @return 0 or -1. */
int lbt_cpi_segment(const struct lbt_cpi_sums *x, double beta, double merge_ratio,
    size_t min_buckets, lbt_cp_result *res)
{
	size_t h = min_buckets > 1 ? min_buckets / 2 : 1, m = 0, nc = 0, cap = 0;
	size_t *pos = candidates(x, h, &m), *cut = NULL;
	int rc = -1;

	if (pos == NULL || (cut = malloc(m * sizeof *cut)) == NULL)
		goto out;
	if (choose_cuts(x, pos, m, beta, h, cut, &nc) < 0 || LBT_GROW(res->seg, cap, nc, 16) < 0)
		goto out;
	for (size_t j = 0, s = 0; j < nc; j++) {
		size_t t = cut[j];

		res->seg[res->nseg++] = (lbt_cp_segment){ s, t, lbt_cpi_rate(x, s, t) };
		s = t;
	}
	lbt_cpi_fold(res->seg, &res->nseg, x, min_buckets);
	lbt_cpi_merge(res->seg, &res->nseg, x, merge_ratio);
	rc = 0;
out:
	free(cut);
	free(pos);
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

/* Merge segments closer than `ratio`, closest first; see changepoint_int.h. */
void lbt_cpi_merge(lbt_cp_segment *s, size_t *n, const struct lbt_cpi_sums *x, double ratio)
{
	while (*n > 1) {
		size_t best = 0;
		double br = INFINITY;

		for (size_t i = 0; i + 1 < *n; i++) {
			double r = rate_ratio(s[i].rate, s[i + 1].rate);

			if (r < br) {
				br = r;
				best = i;
			}
		}
		if (br >= ratio)
			return;
		s[best].end = s[best + 1].end;
		s[best].rate = lbt_cpi_rate(x, s[best].start, s[best].end);
		memmove(&s[best + 1], &s[best + 2], (*n - best - 2) * sizeof s[0]);
		(*n)--;
	}
}
