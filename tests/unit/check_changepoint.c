/*
 * check_changepoint.c - episodes on series whose truth is known because
 * they are built here: exact rates in exact buckets, the cases of the
 * issue "change points that tell the truth"; and the segmentation against
 * a second, obvious method (optimal partitioning without pruning).
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lbt/changepoint.h"

#define SEED0 0x9e3779b97f4a7c15ull

/* Fill v[a..b) so that every `every` buckets hold `k` events (a rate of
 * k / every a bucket), deterministic. */
static void fill(int64_t *v, size_t a, size_t b, int64_t k, size_t every)
{
	for (size_t i = a; i < b; i++)
		v[i] = (i - a) % every == 0 ? k : 0;
}

/* Baseline 29 events a minute (0.483/s), a tarpit flood at 300/s for 60 s,
 * a 35 s lull at 7.5/s (15 every 2 s), a deny flood at 400/s for 60 s,
 * calm again: two rises with their own means, and the baseline's decimals. */
START_TEST(two_floods_and_a_lull)
{
	size_t n = 900;
	int64_t *v = calloc(n, sizeof *v);
	lbt_cp_result r;

	for (size_t m = 0; m < n / 60; m++)         /* 29 in each minute */
		for (size_t k = 0; k < 29; k++)
			v[m * 60 + k * 2] = 1;
	fill(v, 300, 360, 300, 1);
	fill(v, 360, 395, 15, 2);
	fill(v, 395, 455, 400, 1);
	ck_assert_int_eq(lbt_cp_find(v, n, 1.0, NULL, &r), 0);
	ck_assert(!r.is_new);
	ck_assert_msg(fabs(r.baseline - 29.0 / 60) < 0.01, "baseline %g", r.baseline);
	ck_assert_uint_eq(r.nep, 2);
	ck_assert(r.ep[0].kind == LBT_CP_RISE && r.ep[1].kind == LBT_CP_RISE);
	ck_assert_uint_eq(r.ep[0].start, 300);
	ck_assert_uint_eq(r.ep[0].end, 360);
	ck_assert_msg(fabs(r.ep[0].mean_rate - 300) < 1e-9, "%g", r.ep[0].mean_rate);
	ck_assert_uint_eq(r.ep[1].start, 395);
	ck_assert_uint_eq(r.ep[1].end, 455);
	ck_assert_msg(fabs(r.ep[1].mean_rate - 400) < 1e-9, "%g", r.ep[1].mean_rate);
	ck_assert(!r.ep[1].ongoing);
	ck_assert_msg(fabs(r.ep[0].ratio - 300 / r.baseline) < 1e-6, "%g", r.ep[0].ratio);
	lbt_cp_result_free(&r);
	free(v);
}
END_TEST

/* Absent for 5 minutes, then 300/s: new, first seen at 300, no baseline;
 * one rise from 300, ongoing at the end. */
START_TEST(new_source)
{
	size_t n = 400;
	int64_t *v = calloc(n, sizeof *v);
	lbt_cp_result r;

	fill(v, 300, 400, 300, 1);
	ck_assert_int_eq(lbt_cp_find(v, n, 1.0, NULL, &r), 0);
	ck_assert(r.is_new);
	ck_assert_uint_eq(r.first_seen, 300);
	ck_assert(r.baseline == 0);
	ck_assert_uint_eq(r.nep, 1);
	ck_assert_uint_eq(r.ep[0].start, 300);
	ck_assert(r.ep[0].ongoing && r.ep[0].end == n);
	ck_assert(r.ep[0].ratio == 0);
	lbt_cp_result_free(&r);
	free(v);
}
END_TEST

/* One event a minute, first at 30 s: its absence is what its rate predicts
 * (0.5 events expected), so it is not new, and nothing happens. */
START_TEST(rare_key_not_new)
{
	size_t n = 600;
	int64_t *v = calloc(n, sizeof *v);
	lbt_cp_result r;

	fill(v, 30, n, 1, 60);
	ck_assert_int_eq(lbt_cp_find(v, n, 1.0, NULL, &r), 0);
	ck_assert(!r.is_new);
	ck_assert_uint_eq(r.first_seen, 30);
	ck_assert_uint_eq(r.nep, 0);
	ck_assert_msg(fabs(r.baseline - 10.0 / 600) < 1e-9, "baseline %g", r.baseline);
	lbt_cp_result_free(&r);
	free(v);
}
END_TEST

/* An LB at 50/s leaves rotation at 600 s: a drop from 600, ongoing, from
 * 50/s, to 0.  Also when it is out for most of the input (the median
 * bucket is empty): the same drop from 300. */
START_TEST(lb_leaves_rotation)
{
	size_t n = 900;
	int64_t *v = calloc(n, sizeof *v);
	lbt_cp_result r;

	fill(v, 0, 600, 50, 1);
	ck_assert_int_eq(lbt_cp_find(v, n, 1.0, NULL, &r), 0);
	ck_assert_msg(fabs(r.baseline - 50) < 1e-9, "baseline %g", r.baseline);
	ck_assert_uint_eq(r.nep, 1);
	ck_assert(r.ep[0].kind == LBT_CP_DROP);
	ck_assert_uint_eq(r.ep[0].start, 600);
	ck_assert(r.ep[0].ongoing);
	ck_assert(r.ep[0].mean_rate == 0 && r.ep[0].peak_rate == 0);
	ck_assert_msg(fabs(r.ep[0].from_rate - 50) < 1e-9, "from %g", r.ep[0].from_rate);
	lbt_cp_result_free(&r);
	fill(v, 300, 600, 0, 1);
	ck_assert_int_eq(lbt_cp_find(v, n, 1.0, NULL, &r), 0);
	ck_assert_msg(fabs(r.baseline - 50) < 1e-9, "baseline %g", r.baseline);
	ck_assert_uint_eq(r.nep, 1);
	ck_assert(r.ep[0].kind == LBT_CP_DROP && r.ep[0].start == 300 && r.ep[0].ongoing);
	lbt_cp_result_free(&r);
	free(v);
}
END_TEST

/* Steady traffic with Poisson-like jitter (a fixed pattern 3..7 around 5)
 * has no episode, and a 2-bucket spike is shorter than min_buckets.  The
 * spike's requests are part of the baseline, a mean of counts outside
 * episodes: (5000 - 5 - 3 + 400) / 1000. */
START_TEST(steady_no_episode)
{
	static const int64_t jitter[] = { 5, 3, 7, 4, 6, 5, 4, 6, 3, 7 };
	size_t n = 1000;
	int64_t *v = calloc(n, sizeof *v);
	lbt_cp_result r;

	for (size_t i = 0; i < n; i++)
		v[i] = jitter[i % 10];
	v[500] = v[501] = 200;
	ck_assert_int_eq(lbt_cp_find(v, n, 1.0, NULL, &r), 0);
	ck_assert_uint_eq(r.nep, 0);
	ck_assert_msg(fabs(r.baseline - 5.392) < 1e-9, "baseline %g", r.baseline);
	lbt_cp_result_free(&r);
	free(v);
}
END_TEST

/* A client that sends 6 requests every 5 s has a baseline of 1.2/s (the
 * Poisson cost alone cuts it into 6/s seconds and silences), and a burst
 * key, 30 requests every 20 s for 581 s (30 bursts), one of 900 / 581:
 * counts over seconds, not the 0 of its usual (empty) second. */
START_TEST(bursty_baseline)
{
	size_t n = 600;
	int64_t *v = calloc(n, sizeof *v);
	lbt_cp_result r;

	fill(v, 0, n, 6, 5);
	ck_assert_int_eq(lbt_cp_find(v, n, 1.0, NULL, &r), 0);
	ck_assert_uint_eq(r.nep, 0);
	ck_assert_msg(fabs(r.baseline - 1.2) < 1e-9, "baseline %g", r.baseline);
	lbt_cp_result_free(&r);
	fill(v, 0, 581, 30, 20);
	ck_assert_int_eq(lbt_cp_find(v, 581, 1.0, NULL, &r), 0);
	ck_assert_uint_eq(r.nep, 0);
	ck_assert_msg(fabs(r.baseline - 900.0 / 581) < 1e-9, "baseline %g", r.baseline);
	lbt_cp_result_free(&r);
	free(v);
}
END_TEST

/* Buckets of 10 s: rates are per second (40 in a bucket = 4/s). */
START_TEST(bucket_width)
{
	size_t n = 100;
	int64_t *v = calloc(n, sizeof *v);
	lbt_cp_result r;

	fill(v, 0, n, 4, 1);
	fill(v, 50, 70, 400, 1);
	ck_assert_int_eq(lbt_cp_find(v, n, 10.0, NULL, &r), 0);
	ck_assert_msg(fabs(r.baseline - 0.4) < 1e-9, "baseline %g", r.baseline);
	ck_assert_uint_eq(r.nep, 1);
	ck_assert_uint_eq(r.ep[0].start, 50);
	ck_assert_uint_eq(r.ep[0].end, 70);
	ck_assert_msg(fabs(r.ep[0].peak_rate - 40) < 1e-9, "%g", r.ep[0].peak_rate);
	lbt_cp_result_free(&r);
	free(v);
}
END_TEST

/* Nothing at all, and an empty series. */
START_TEST(empty)
{
	int64_t v[20] = { 0 };
	lbt_cp_result r;

	ck_assert_int_eq(lbt_cp_find(v, 20, 1.0, NULL, &r), 0);
	ck_assert_uint_eq(r.nep, 0);
	ck_assert_uint_eq(r.first_seen, 20);
	ck_assert(!r.is_new);
	lbt_cp_result_free(&r);
	ck_assert_int_eq(lbt_cp_find(v, 0, 1.0, NULL, &r), 0);
	ck_assert_uint_eq(r.nseg, 0);
	lbt_cp_result_free(&r);
}
END_TEST

/* The incident's flood key, as logged (tests/data/incident): 1.2/s for
 * 20 s, 57/s while tarpitted (21 s), 200/s once deny answers at once
 * (10 s), 1.2/s again: two rises, each with its own mean, the second
 * from the first's rate; the first is the main one.  A 4 s part at 62/s
 * and a 1 s dip at 21/s inside the first are folded into it. */
START_TEST(tarpit_then_deny)
{
	size_t n = 71;
	int64_t *v = calloc(n, sizeof *v);
	lbt_cp_result r;

	fill(v, 0, 20, 6, 5);              /* 6 every 5 s: 1.2/s */
	fill(v, 20, 24, 62, 1);
	v[24] = 21;
	fill(v, 25, 41, 57, 1);
	fill(v, 41, 51, 200, 1);
	fill(v, 51, 71, 6, 5);
	ck_assert_int_eq(lbt_cp_find(v, n, 1.0, NULL, &r), 0);
	ck_assert_msg(fabs(r.baseline - 1.2) < 1e-9, "baseline %g", r.baseline);
	ck_assert_uint_eq(r.nep, 2);
	ck_assert_uint_eq(r.ep[0].start, 20);
	ck_assert_uint_eq(r.ep[0].end, 41);
	ck_assert_msg(fabs(r.ep[0].mean_rate - (4 * 62 + 21 + 16 * 57) / 21.0) < 1e-9, "%g",
	    r.ep[0].mean_rate);
	ck_assert_uint_eq(r.ep[1].start, 41);
	ck_assert_uint_eq(r.ep[1].end, 51);
	ck_assert_msg(fabs(r.ep[1].mean_rate - 200) < 1e-9, "%g", r.ep[1].mean_rate);
	ck_assert_msg(fabs(r.ep[1].from_rate - r.ep[0].mean_rate) < 1e-9, "%g",
	    r.ep[1].from_rate);
	ck_assert_uint_eq(r.main, 0);
	ck_assert_ptr_eq(lbt_cp_main(&r), &r.ep[0]);
	lbt_cp_result_free(&r);
	free(v);
}
END_TEST

/* A level change below step_ratio stays one episode: 100/s then 250/s
 * (2.5 < 3) over a baseline of 2/s is one rise at the mean of both. */
START_TEST(small_step_one_episode)
{
	size_t n = 200;
	int64_t *v = calloc(n, sizeof *v);
	lbt_cp_result r;

	fill(v, 0, n, 2, 1);
	fill(v, 60, 90, 100, 1);
	fill(v, 90, 120, 250, 1);
	ck_assert_int_eq(lbt_cp_find(v, n, 1.0, NULL, &r), 0);
	ck_assert_uint_eq(r.nep, 1);
	ck_assert_uint_eq(r.ep[0].start, 60);
	ck_assert_uint_eq(r.ep[0].end, 120);
	ck_assert_msg(fabs(r.ep[0].mean_rate - 175) < 1e-9, "%g", r.ep[0].mean_rate);
	lbt_cp_result_free(&r);
	free(v);
}
END_TEST

/* The main episode is the first rise, even when a later one is larger;
 * with drops only, the first drop. */
START_TEST(main_episode)
{
	size_t n = 300;
	int64_t *v = calloc(n, sizeof *v);
	lbt_cp_result r;

	fill(v, 0, n, 5, 1);
	fill(v, 50, 70, 40, 1);
	fill(v, 150, 200, 400, 1);
	ck_assert_int_eq(lbt_cp_find(v, n, 1.0, NULL, &r), 0);
	ck_assert_uint_eq(r.nep, 2);
	ck_assert_uint_eq(r.main, 0);
	ck_assert_uint_eq(lbt_cp_main(&r)->start, 50);
	lbt_cp_result_free(&r);
	fill(v, 0, n, 5, 1);
	fill(v, 100, 130, 0, 1);
	fill(v, 200, 240, 0, 1);
	ck_assert_int_eq(lbt_cp_find(v, n, 1.0, NULL, &r), 0);
	ck_assert_uint_eq(r.nep, 2);
	ck_assert(r.ep[0].kind == LBT_CP_DROP && r.ep[1].kind == LBT_CP_DROP);
	ck_assert_uint_eq(lbt_cp_main(&r)->start, 100);
	ck_assert_uint_eq(r.ep[0].end, 130);
	ck_assert(!r.ep[0].ongoing);
	lbt_cp_result_free(&r);
	fill(v, 0, n, 5, 1);
	ck_assert_int_eq(lbt_cp_find(v, n, 1.0, NULL, &r), 0);
	ck_assert_ptr_null(lbt_cp_main(&r));
	ck_assert_uint_eq(r.main, r.nep);
	lbt_cp_result_free(&r);
	free(v);
}
END_TEST

/* A pseudo-random count around `mean` (a sum of 8 coin flips of mean/4
 * weight... simply: mean - 2 .. mean + 2, uniform), from a 64-bit LCG. */
static int64_t jittered(uint64_t *seed, int64_t mean)
{
	*seed = *seed * 6364136223846793005ull + 1442695040888963407ull;
	return mean - 2 + (int64_t)((*seed >> 33) % 5);
}

/* A day of steady seconds (3/s, jittered) with a 60 s flood at 300/s:
 * past LBT_CP_EXACT candidates, the coarse segmentation refined puts the
 * flood at its exact buckets, and finds nothing else. */
START_TEST(long_series_refined)
{
	size_t n = 86400;
	int64_t *v = malloc(n * sizeof *v);
	uint64_t seed = SEED0;
	lbt_cp_result r;

	for (size_t i = 0; i < n; i++)
		v[i] = jittered(&seed, 3);
	for (size_t i = 50001; i < 50061; i++)
		v[i] = jittered(&seed, 300);
	ck_assert_int_eq(lbt_cp_find(v, n, 1.0, NULL, &r), 0);
	ck_assert_msg(fabs(r.baseline - 3) < 0.02, "baseline %g", r.baseline);
	ck_assert_uint_eq(r.nep, 1);
	ck_assert_uint_eq(r.ep[0].start, 50001);
	ck_assert_uint_eq(r.ep[0].end, 50061);
	ck_assert_msg(fabs(r.ep[0].mean_rate - 300) < 1, "%g", r.ep[0].mean_rate);
	lbt_cp_result_free(&r);
	free(v);
}
END_TEST

/* Twice the Poisson negative log-likelihood of v[s..t), as the engine
 * defines it, summed from scratch. */
static double cost(const int64_t *v, size_t s, size_t t)
{
	double c = 0;

	for (size_t i = s; i < t; i++)
		c += (double)v[i];
	return c > 0 ? 2.0 * (c - c * log(c / (double)(t - s))) : 0.0;
}

/* The optimal penalised cost of v[0..n) over every partition: optimal
 * partitioning (Jackson et al., 2005), no pruning, every cut allowed. */
static double brute_optimum(const int64_t *v, size_t n, double beta)
{
	double *F = malloc((n + 1) * sizeof *F), best;

	F[0] = -beta;
	for (size_t t = 1; t <= n; t++) {
		F[t] = INFINITY;
		for (size_t s = 0; s < t; s++)
			F[t] = fmin(F[t], F[s] + cost(v, s, t) + beta);
	}
	best = F[n];
	free(F);
	return best;
}

/* Sparse random series (mostly empty buckets, bursts): the engine, which
 * tries cuts next to a non-empty bucket only, reaches the optimum of every
 * partition.  merge_ratio 1 merges nothing and min_buckets 1 folds
 * nothing, so its segments are PELT's. */
START_TEST(candidates_exact)
{
	lbt_cp_opts o = LBT_CP_OPTS_INIT;
	uint64_t seed = SEED0;
	size_t n = 300;
	int64_t *v = malloc(n * sizeof *v);

	o.merge_ratio = 1;
	o.min_buckets = 1;                   /* and folds nothing */
	for (int round = 0; round < 20; round++) {
		lbt_cp_result r;
		double beta = 2 * log((double)n), got = 0;

		for (size_t i = 0; i < n; i++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			v[i] = (seed >> 33) % 7 == 0 ? (int64_t)((seed >> 40) % (round + 3)) : 0;
		}
		for (size_t i = 100 + (size_t)round; i < 130; i += 2)
			v[i] += 9;
		ck_assert_int_eq(lbt_cp_find(v, n, 1.0, &o, &r), 0);
		for (size_t i = 0; i < r.nseg; i++)
			got += cost(v, r.seg[i].start, r.seg[i].end) + beta;
		got -= beta;
		ck_assert_msg(fabs(got - brute_optimum(v, n, beta)) < 1e-6, "round %d: %.9f vs %.9f",
		    round, got, brute_optimum(v, n, beta));
		lbt_cp_result_free(&r);
	}
	free(v);
}
END_TEST

/* An explicit baseline window: the mean rate in it, whatever follows; a
 * series empty in it is new (and its first bucket is first_seen). */
START_TEST(explicit_window)
{
	lbt_cp_opts o = LBT_CP_OPTS_INIT;
	size_t n = 120;
	int64_t *v = calloc(n, sizeof *v);
	lbt_cp_result r;

	fill(v, 0, 40, 3, 1);
	fill(v, 40, 80, 60, 1);
	fill(v, 80, 120, 3, 1);
	o.base_from = 50;
	o.base_to = 60;                      /* inside the flood */
	ck_assert_int_eq(lbt_cp_find(v, n, 1.0, &o, &r), 0);
	ck_assert(!r.is_new);
	ck_assert(r.baseline == 60);
	ck_assert_uint_eq(r.nep, 2);         /* 3/s is a drop against 60/s */
	ck_assert(r.ep[0].kind == LBT_CP_DROP && r.ep[0].start == 0 && r.ep[0].end == 40);
	ck_assert(r.ep[1].kind == LBT_CP_DROP && r.ep[1].start == 80 && r.ep[1].ongoing);
	lbt_cp_result_free(&r);
	fill(v, 0, 40, 0, 1);
	fill(v, 80, 120, 1, 2);              /* 0.5/s: below the floor of a new series */
	o.base_from = 0;
	o.base_to = 20;
	ck_assert_int_eq(lbt_cp_find(v, n, 1.0, &o, &r), 0);
	ck_assert(r.is_new);
	ck_assert_uint_eq(r.first_seen, 40);
	ck_assert_uint_eq(r.nep, 1);
	ck_assert(r.ep[0].start == 40 && r.ep[0].end == 80);
	lbt_cp_result_free(&r);
	free(v);
}
END_TEST

/* A rise needs floor x min_buckets / 2 events in some min_buckets
 * buckets: 10 in 10 s may rise, 9 may not; a spread-out 10 may not. */
START_TEST(may_rise)
{
	lbt_cp_opts o = LBT_CP_OPTS_INIT;
	lbt_series_point p[] = { { 100, 4 }, { 105, 3 }, { 109, 3 }, { 110, 50 } };

	ck_assert(lbt_cp_may_rise(p, 3, 1.0, &o));         /* 10 in 100..109 */
	p[0].value = 3;
	ck_assert(!lbt_cp_may_rise(p, 3, 1.0, &o));        /* 9 */
	ck_assert(lbt_cp_may_rise(p, 4, 1.0, &o));         /* 56 in 105..110 */
	p[2].bucket = 120;
	p[3].bucket = 130;
	p[3].value = 3;
	ck_assert(!lbt_cp_may_rise(p, 4, 1.0, &o));
	ck_assert(!lbt_cp_may_rise(p, 0, 1.0, &o));
	ck_assert(lbt_cp_may_rise(p, 4, 0.1, &o));         /* 10 s buckets of 0.1 s: 1 */
}
END_TEST

/* Option checks and parsers name the option; buckets round up. */
START_TEST(opts)
{
	lbt_cp_opts o = LBT_CP_OPTS_INIT;
	lbt_err err;

	ck_assert_int_eq(lbt_cp_opts_check(&o, &err), 0);
	ck_assert_int_eq(lbt_cp_opt_factor(&o, "1", &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "--jump-factor"));
	ck_assert_int_eq(lbt_cp_opt_factor(&o, "7.5", &err), 0);
	ck_assert(o.factor == 7.5);
	ck_assert_int_eq(lbt_cp_opt_floor(&o, "-1", &err), -1);
	ck_assert_int_eq(lbt_cp_opt_floor(&o, "0", &err), 0);
	ck_assert_int_eq(lbt_cp_opt_drop(&o, "1", &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "--drop-fraction"));
	ck_assert_int_eq(lbt_cp_opt_drop(&o, "0.5", &err), 0);
	ck_assert(o.drop_fraction == 0.5);
	o.min_buckets = 0;
	ck_assert_int_eq(lbt_cp_opts_check(&o, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "--jump-min"));
	ck_assert_uint_eq(lbt_cp_buckets(10000000, 1000000), 10);
	ck_assert_uint_eq(lbt_cp_buckets(10000001, 1000000), 11);
	ck_assert_uint_eq(lbt_cp_buckets(0, 1000000), 1);
	ck_assert_uint_eq(lbt_cp_buckets(10000000, 60000000), 1);
}
END_TEST

/* A flood lasting most of the input is not the baseline (the median
 * bucket is in it); an input that begins inside a flood shorter than the
 * rest takes the rest's level, and the flood is a rise from bucket 0. */
START_TEST(long_flood_and_early_flood)
{
	size_t n = 400;
	int64_t *v = calloc(n, sizeof *v);
	lbt_cp_result r;

	fill(v, 0, 100, 4, 1);
	fill(v, 100, n, 250, 1);
	ck_assert_int_eq(lbt_cp_find(v, n, 1.0, NULL, &r), 0);
	ck_assert_msg(fabs(r.baseline - 4) < 1e-9, "baseline %g", r.baseline);
	ck_assert_uint_eq(r.nep, 1);
	ck_assert(r.ep[0].kind == LBT_CP_RISE && r.ep[0].start == 100 && r.ep[0].ongoing);
	lbt_cp_result_free(&r);
	fill(v, 0, 100, 300, 1);
	fill(v, 100, n, 5, 1);
	ck_assert_int_eq(lbt_cp_find(v, n, 1.0, NULL, &r), 0);
	ck_assert_msg(fabs(r.baseline - 5) < 1e-9, "baseline %g", r.baseline);
	ck_assert_uint_eq(r.nep, 1);
	ck_assert(r.ep[0].kind == LBT_CP_RISE && r.ep[0].start == 0 && r.ep[0].end == 100);
	ck_assert(r.short_baseline == 0);
	lbt_cp_result_free(&r);
	free(v);
}
END_TEST

/* The incident at one-minute buckets (lbt-rate --step 1m): 3063 requests
 * in the minute of the flood, 182 in the calm one.  Half the input is the
 * flood: the lower middle bucket is the usual level, so the calm minute is
 * the baseline and the flood a rise, not a baseline of 51/s and a drop. */
START_TEST(two_coarse_buckets)
{
	lbt_cp_opts o = LBT_CP_OPTS_INIT;
	int64_t v[] = { 3063, 182 };
	lbt_cp_result r;

	o.min_buckets = 1;
	ck_assert_int_eq(lbt_cp_find(v, 2, 60.0, &o, &r), 0);
	ck_assert_msg(fabs(r.baseline - 182.0 / 60) < 1e-9, "baseline %g", r.baseline);
	ck_assert_uint_eq(r.nep, 1);
	ck_assert(r.ep[0].kind == LBT_CP_RISE && r.ep[0].start == 0 && r.ep[0].end == 1);
	lbt_cp_result_free(&r);
}
END_TEST

/* A steady client of bench/genlog.sh (203.0.113.200 over the log's 197 s,
 * lbt-offenders' series), slow in its first 5 s by chance, then at its
 * usual 2/s, then at 1.1/s once the flood took half of the log's lines: no
 * episode.  A short first segment was kept and read as the usual level
 * (0.4/s), and the client's usual rate reported as a rise of 5.5. */
START_TEST(slow_start_no_episode)
{
	static const int64_t v[] = {
		0, 0, 1, 1, 0, 2, 1, 3, 0, 2, 4, 1, 4, 3, 2, 0, 2, 3, 3, 2, 2, 1, 1, 2, 0, 3,
		2, 2, 3, 2, 6, 2, 2, 2, 1, 3, 0, 2, 1, 2, 3, 5, 3, 6, 2, 2, 0, 1, 5, 1,
		1, 3, 3, 2, 2, 3, 0, 4, 1, 1, 3, 3, 2, 1, 1, 2, 3, 4, 3, 1, 3, 1, 2, 1,
		2, 1, 1, 1, 4, 2, 0, 5, 0, 3, 0, 2, 1, 2, 3, 3, 3, 1, 4, 1, 5, 3, 0, 3,
		3, 5, 3, 0, 0, 0, 1, 1, 2, 2, 0, 1, 2, 3, 2, 2, 1, 0, 1, 3, 2, 1, 0, 0,
		2, 1, 2, 1, 1, 1, 2, 1, 1, 2, 1, 2, 3, 2, 0, 1, 1, 0, 0, 1, 0, 0, 1, 1,
		2, 0, 0, 0, 0, 1, 1, 1, 1, 1, 0, 2, 1, 0, 1, 1, 1, 1, 1, 1, 2, 0, 2, 2,
		0, 0, 0, 0, 4, 2, 2, 1, 0, 1, 1, 0, 3, 1, 2, 0, 3, 3, 2, 1, 1, 0, 1, 4,
		0, 0, 2
	};
	size_t n = sizeof v / sizeof v[0];
	lbt_cp_result r;

	ck_assert_uint_eq(n, 197);
	ck_assert_int_eq(lbt_cp_find(v, n, 1.0, NULL, &r), 0);
	ck_assert_uint_eq(r.nep, 0);
	ck_assert_msg(r.baseline > 1 && r.baseline < 2.5, "baseline %g", r.baseline);
	lbt_cp_result_free(&r);
}
END_TEST

/* The suite. */
int main(void)
{
	Suite *s = suite_create("changepoint");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, two_floods_and_a_lull);
	tcase_add_test(tc, new_source);
	tcase_add_test(tc, rare_key_not_new);
	tcase_add_test(tc, lb_leaves_rotation);
	tcase_add_test(tc, steady_no_episode);
	tcase_add_test(tc, bursty_baseline);
	tcase_add_test(tc, bucket_width);
	tcase_add_test(tc, empty);
	tcase_add_test(tc, tarpit_then_deny);
	tcase_add_test(tc, small_step_one_episode);
	tcase_add_test(tc, main_episode);
	tcase_add_test(tc, long_series_refined);
	tcase_add_test(tc, candidates_exact);
	tcase_add_test(tc, explicit_window);
	tcase_add_test(tc, may_rise);
	tcase_add_test(tc, opts);
	tcase_add_test(tc, long_flood_and_early_flood);
	tcase_add_test(tc, two_coarse_buckets);
	tcase_add_test(tc, slow_start_no_episode);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
