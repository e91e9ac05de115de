/*
 * check_occupancy.c - unit tests for lib/analysis/occupancy.c (slot occupancy from
 * request intervals).  Every expected number is worked out by hand in the
 * comment above the test.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>

#include "lbt/occupancy.h"

#define S(x) ((int64_t)((x) * 1000000.0 + ((x) >= 0 ? 0.5 : -0.5)))   /* seconds -> µs */

static const char file_a[] = "a.log", file_b[] = "b.log";

/* A new occupancy with the given step, window (seconds) and threshold. */
static lbt_occ *occ(double step, double window, int thr)
{
	lbt_occ_opts o = LBT_OCC_OPTS_INIT;
	lbt_occ *p;

	o.step_us = S(step);
	o.window_us = S(window);
	o.threshold = thr;
	p = lbt_occ_new(&o);
	ck_assert_ptr_nonnull(p);
	return p;
}

/* The bucket numbered b, failing the test when absent. */
static const lbt_occ_bucket *bucket(const lbt_occ *o, int64_t b)
{
	size_t i, n;
	const lbt_occ_bucket *v = lbt_occ_buckets(o, &n);

	for (i = 0; i < n; i++)
		if (v[i].bucket == b)
			return &v[i];
	ck_abort_msg("bucket %lld absent", (long long)b);
	return NULL;
}

/*
 * The brief's example, in log order (by end): C [1.5,1.6], A [0,2],
 * B [1,3], at t0 = 1000 s, one 10 s bucket.  Slot-seconds 2 + 2 + 0.1 =
 * 4.1; at 1.5 s all three are held: max 3.  Threshold 2: two or more
 * slots from 1.0 (B joins A) to 2.0 (A ends, B alone): one period of 1 s.
 */
START_TEST(overlap_three)
{
	lbt_occ *o = occ(10, 60, 2);
	const lbt_occ_bucket *b;
	const lbt_occ_period *p;
	const lbt_occ_stats *st;
	size_t n;

	ck_assert_int_eq(lbt_occ_add(o, file_a, S(1001.5), S(1001.6), 0), 0);
	ck_assert_int_eq(lbt_occ_add(o, file_a, S(1000), S(1002), 0), 0);
	ck_assert_int_eq(lbt_occ_add(o, file_a, S(1001), S(1003), 0), 0);
	ck_assert_int_eq(lbt_occ_finish(o), 0);
	lbt_occ_buckets(o, &n);
	ck_assert_uint_eq(n, 1);
	b = bucket(o, 100);
	ck_assert_int_eq(b->slot_us, S(4.1));
	ck_assert_int_eq(b->max, 3);
	ck_assert_int_eq(b->max_at_us, S(1001.5));
	ck_assert_int_eq(b->max_nt, 3);
	ck_assert_int_eq(b->max_tarpit, 0);
	ck_assert_uint_eq(b->flags, 0);
	st = lbt_occ_stats_get(o);
	ck_assert_int_eq(st->peak, 3);
	ck_assert_int_eq(st->slot_us, S(4.1));
	ck_assert_uint_eq(st->intervals, 3);
	ck_assert_uint_eq(st->late, 0);
	p = lbt_occ_periods(o, 0, &n);
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(p[0].start_us, S(1001));
	ck_assert_int_eq(p[0].end_us, S(1002));
	ck_assert_int_eq(p[0].above_us, S(1));
	ck_assert_int_eq(p[0].peak, 3);
	ck_assert_int_eq(p[0].peak_at_us, S(1001.5));
	lbt_occ_free(o);
}
END_TEST

/*
 * The same with A tarpitted.  Tarpit slot-seconds: A's 2 s.  At 1.5 s the
 * 3 slots held include A: 1 tarpitted.  Without A (what-if) B and C
 * overlap over [1.5, 1.6): max 2, one what-if period of 0.1 s at >= 2.
 */
START_TEST(overlap_tarpit_whatif)
{
	lbt_occ *o = occ(10, 60, 2);
	const lbt_occ_bucket *b;
	const lbt_occ_period *p;
	const lbt_occ_stats *st;
	size_t n;

	ck_assert_int_eq(lbt_occ_add(o, file_a, S(1001.5), S(1001.6), 0), 0);
	ck_assert_int_eq(lbt_occ_add(o, file_a, S(1000), S(1002), 1), 0);
	ck_assert_int_eq(lbt_occ_add(o, file_a, S(1001), S(1003), 0), 0);
	ck_assert_int_eq(lbt_occ_finish(o), 0);
	b = bucket(o, 100);
	ck_assert_int_eq(b->tarpit_us, S(2));
	ck_assert_int_eq(b->max, 3);
	ck_assert_int_eq(b->max_tarpit, 1);
	ck_assert_int_eq(b->max_nt, 2);
	st = lbt_occ_stats_get(o);
	ck_assert_int_eq(st->tarpit_us, S(2));
	ck_assert_int_eq(st->peak_nt, 2);
	ck_assert_int_eq(st->peak_tarpit, 1);
	ck_assert_uint_eq(st->tarpit, 1);
	p = lbt_occ_periods(o, 1, &n);
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(p[0].start_us, S(1001.5));
	ck_assert_int_eq(p[0].end_us, S(1001.6));
	ck_assert_int_eq(p[0].peak, 2);
	p = lbt_occ_periods(o, 0, &n);
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(p[0].peak_tarpit, 1);
	lbt_occ_free(o);
}
END_TEST

/*
 * The example in 1 s buckets: [1000,1001) only A: max 1, 1 s;
 * [1001,1002) A, B and C: max 3, 1 + 1 + 0.1 = 2.1 s; [1002,1003) only B:
 * max 1, 1 s.
 */
START_TEST(overlap_small_buckets)
{
	lbt_occ *o = occ(1, 60, 0);
	size_t n;

	ck_assert_int_eq(lbt_occ_add(o, file_a, S(1001.5), S(1001.6), 0), 0);
	ck_assert_int_eq(lbt_occ_add(o, file_a, S(1000), S(1002), 0), 0);
	ck_assert_int_eq(lbt_occ_add(o, file_a, S(1001), S(1003), 0), 0);
	ck_assert_int_eq(lbt_occ_finish(o), 0);
	lbt_occ_buckets(o, &n);
	ck_assert_uint_eq(n, 3);
	ck_assert_int_eq(bucket(o, 1000)->max, 1);
	ck_assert_int_eq(bucket(o, 1000)->slot_us, S(1));
	ck_assert_int_eq(bucket(o, 1001)->max, 3);
	ck_assert_int_eq(bucket(o, 1001)->slot_us, S(2.1));
	ck_assert_int_eq(bucket(o, 1002)->max, 1);
	ck_assert_int_eq(bucket(o, 1002)->slot_us, S(1));
	lbt_occ_periods(o, 0, &n);
	ck_assert_uint_eq(n, 0);
	lbt_occ_free(o);
}
END_TEST

/* One request held 35 s from t = 0: buckets 0..3 hold one slot each, for
 * 10, 10, 10 and 5 s (the middle ones have no endpoint of their own). */
START_TEST(long_interval)
{
	lbt_occ *o = occ(10, 60, 0);
	size_t n;

	ck_assert_int_eq(lbt_occ_add(o, NULL, 0, S(35), 0), 0);
	ck_assert_int_eq(lbt_occ_finish(o), 0);
	lbt_occ_buckets(o, &n);
	ck_assert_uint_eq(n, 4);
	ck_assert_int_eq(bucket(o, 0)->slot_us, S(10));
	ck_assert_int_eq(bucket(o, 1)->slot_us, S(10));
	ck_assert_int_eq(bucket(o, 1)->max, 1);
	ck_assert_int_eq(bucket(o, 1)->max_at_us, S(10));
	ck_assert_int_eq(bucket(o, 2)->max, 1);
	ck_assert_int_eq(bucket(o, 3)->slot_us, S(5));
	ck_assert_int_eq(bucket(o, 3)->max, 1);
	lbt_occ_free(o);
}
END_TEST

/*
 * Window 1 s.  X [100,101] then Y [120,121]: the sweep point moves to
 * 120 - 1... no: to Y's end 121 - 1 = 120.  Z [95,125] arrives late (95 <
 * 120).  Bucket 9 [90,100): Z covers part: +1, flagged LATE.  Bucket 10:
 * Z covers all of it, X is there too: max 2, exact.  Bucket 11: only Z:
 * 1.  Bucket 12: Y and Z from 120: 2.  Slot-seconds: 5, 1 + 10, 10, 1 + 5.
 */
START_TEST(late_interval)
{
	lbt_occ *o = occ(10, 1, 0);
	const lbt_occ_stats *st;

	ck_assert_int_eq(lbt_occ_add(o, file_a, S(100), S(101), 0), 0);
	ck_assert_int_eq(lbt_occ_add(o, file_a, S(120), S(121), 0), 0);
	ck_assert_int_eq(lbt_occ_add(o, file_a, S(95), S(125), 0), 0);
	ck_assert_int_eq(lbt_occ_finish(o), 0);
	ck_assert_int_eq(bucket(o, 9)->max, 1);
	ck_assert_uint_eq(bucket(o, 9)->flags, LBT_OCC_LATE);
	ck_assert_int_eq(bucket(o, 9)->slot_us, S(5));
	ck_assert_int_eq(bucket(o, 10)->max, 2);
	ck_assert_uint_eq(bucket(o, 10)->flags, 0);
	ck_assert_int_eq(bucket(o, 10)->slot_us, S(11));
	ck_assert_int_eq(bucket(o, 11)->max, 1);
	ck_assert_uint_eq(bucket(o, 11)->flags, 0);
	ck_assert_int_eq(bucket(o, 12)->max, 2);
	ck_assert_int_eq(bucket(o, 12)->slot_us, S(6));
	st = lbt_occ_stats_get(o);
	ck_assert_uint_eq(st->late, 1);
	ck_assert_uint_eq(st->upper_buckets, 1);
	ck_assert_int_eq(st->slot_us, S(1 + 1 + 30));
	lbt_occ_free(o);
}
END_TEST

/* A start out of order by less than the window is swept in order: [5,6]
 * then [0,10] overlap: max 2, nothing late. */
START_TEST(reorder_within_window)
{
	lbt_occ *o = occ(10, 60, 0);

	ck_assert_int_eq(lbt_occ_add(o, file_a, S(5), S(6), 0), 0);
	ck_assert_int_eq(lbt_occ_add(o, file_a, S(0), S(10), 0), 0);
	ck_assert_int_eq(lbt_occ_finish(o), 0);
	ck_assert_int_eq(bucket(o, 0)->max, 2);
	ck_assert_int_eq(bucket(o, 0)->max_at_us, S(5));
	ck_assert_uint_eq(lbt_occ_stats_get(o)->late, 0);
	lbt_occ_free(o);
}
END_TEST

/*
 * Two files holding slots in the same bucket: stream a [0,2], stream b
 * [5,7].  Each held 1 slot at most; their sum 2 is an upper bound (the
 * truth is 1), flagged MERGED.  At threshold 2 no sweep saw 2 slots, so the
 * bucket becomes a whole-bucket period, flagged.
 */
START_TEST(merged_streams)
{
	lbt_occ *o = occ(10, 60, 2);
	const lbt_occ_period *p;
	size_t n;

	ck_assert_int_eq(lbt_occ_add(o, file_a, S(0), S(2), 0), 0);
	ck_assert_int_eq(lbt_occ_add(o, file_b, S(5), S(7), 0), 0);
	ck_assert_int_eq(lbt_occ_finish(o), 0);
	ck_assert_int_eq(bucket(o, 0)->max, 2);
	ck_assert_uint_eq(bucket(o, 0)->flags, LBT_OCC_MERGED);
	ck_assert_int_eq(bucket(o, 0)->slot_us, S(4));
	ck_assert_uint_eq(lbt_occ_stats_get(o)->streams, 2);
	p = lbt_occ_periods(o, 0, &n);
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(p[0].start_us, 0);
	ck_assert_int_eq(p[0].end_us, S(10));
	ck_assert_uint_eq(p[0].flags, LBT_OCC_MERGED);
	lbt_occ_free(o);
}
END_TEST

/*
 * Merged maxima do not depend on the order of the streams.  One 10 s
 * bucket, three cases, each with its streams created a-first and b-first:
 *   a [5,7) tarpitted, b [2,3): equal maxima 1; the earliest moment wins:
 *     max 2, at 2 s, 0 tarpitted (b's), max_nt 0 + 1 = 1.
 *   a [2,4) tarpitted, b [2,3): equal maxima at the same moment; the most
 *     tarpitted wins: at 2 s, 1 tarpitted, max_nt 1.
 *   a [5,7) and [6,8) tarpitted, b [1,2): a's maximum 2 (at 6 s, both
 *     tarpitted) beats b's 1: max 3, at 6 s, 2 tarpitted, max_nt 1.
 * Every bucket is flagged MERGED.  Then periods at >= 1 slot: a [2,4)
 * tarpitted and b [2,4) each find the period [2,4) with peak 1 at 2 s;
 * joined, the kept peak is the most tarpitted one: 1 tarpitted slot,
 * flagged MERGED.
 */
START_TEST(merged_any_order)
{
	static const struct {
		double a[2][2];          /* a's intervals ({0,0}: none) */
		double b[2];
		int32_t max, tp, nt;
		double at;
	} c[] = {
		{ { { 5, 7 }, { 0, 0 } }, { 2, 3 }, 2, 0, 1, 2 },
		{ { { 2, 4 }, { 0, 0 } }, { 2, 3 }, 2, 1, 1, 2 },
		{ { { 5, 7 }, { 6, 8 } }, { 1, 2 }, 3, 2, 1, 6 },
	};

	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
		for (int bfirst = 0; bfirst < 2; bfirst++) {
			lbt_occ *o = occ(10, 60, 0);
			const lbt_occ_bucket *b;

			if (bfirst)
				ck_assert_int_eq(lbt_occ_add(o, file_b, S(c[i].b[0]), S(c[i].b[1]), 0), 0);
			for (int k = 0; k < 2 && c[i].a[k][1] > 0; k++)
				ck_assert_int_eq(lbt_occ_add(o, file_a, S(c[i].a[k][0]),
				    S(c[i].a[k][1]), 1), 0);
			if (!bfirst)
				ck_assert_int_eq(lbt_occ_add(o, file_b, S(c[i].b[0]), S(c[i].b[1]), 0), 0);
			ck_assert_int_eq(lbt_occ_finish(o), 0);
			b = bucket(o, 0);
			ck_assert_msg(b->max == c[i].max && b->max_tarpit == c[i].tp &&
			    b->max_nt == c[i].nt && b->max_at_us == S(c[i].at) &&
			    b->flags == LBT_OCC_MERGED, "case %zu, b first %d: max %d tp %d nt %d "
			    "at %lld flags %u", i, bfirst, b->max, b->max_tarpit, b->max_nt,
			    (long long)b->max_at_us, b->flags);
			ck_assert_int_eq(lbt_occ_stats_get(o)->peak_at_us, S(c[i].at));
			lbt_occ_free(o);
		}
	for (int bfirst = 0; bfirst < 2; bfirst++) {
		lbt_occ *o = occ(10, 60, 1);
		const lbt_occ_period *p;
		size_t n;

		ck_assert_int_eq(lbt_occ_add(o, bfirst ? file_b : file_a, S(2), S(4), !bfirst), 0);
		ck_assert_int_eq(lbt_occ_add(o, bfirst ? file_a : file_b, S(2), S(4), bfirst), 0);
		ck_assert_int_eq(lbt_occ_finish(o), 0);
		p = lbt_occ_periods(o, 0, &n);
		ck_assert_uint_eq(n, 1);
		ck_assert_int_eq(p[0].start_us, S(2));
		ck_assert_int_eq(p[0].end_us, S(4));
		ck_assert_int_eq(p[0].peak, 1);
		ck_assert_int_eq(p[0].peak_tarpit, 1);
		ck_assert_uint_eq(p[0].flags, LBT_OCC_MERGED);
		lbt_occ_free(o);
	}
}
END_TEST

/* Files given newest first (access.log before access.log.1): each file is
 * swept on its own, so nothing is late and nothing is merged. */
START_TEST(files_newest_first)
{
	lbt_occ *o = occ(10, 1, 0);
	const lbt_occ_stats *st;

	ck_assert_int_eq(lbt_occ_add(o, file_b, S(100), S(101), 0), 0);
	ck_assert_int_eq(lbt_occ_add(o, file_b, S(102), S(103), 0), 0);
	ck_assert_int_eq(lbt_occ_add(o, file_a, S(0), S(1), 0), 0);
	ck_assert_int_eq(lbt_occ_add(o, file_a, S(2), S(3), 0), 0);
	ck_assert_int_eq(lbt_occ_finish(o), 0);
	st = lbt_occ_stats_get(o);
	ck_assert_uint_eq(st->late, 0);
	ck_assert_uint_eq(st->upper_buckets, 0);
	ck_assert_int_eq(bucket(o, 0)->max, 1);
	ck_assert_int_eq(bucket(o, 10)->max, 1);
	lbt_occ_free(o);
}
END_TEST

/* [0,5) and [5,10) touch but never overlap: max 1.  A 0 µs request at 7
 * meets [0,10): max 2 at 7, no slot time of its own, counted instant.  Two
 * instants at 10 meet [10,12) starting then, not [0,10) ending then, nor
 * each other: 2 at 10, in bucket 1.  Threshold 2 is reached at the
 * moments 7 and 10 only (2 slots for no time): one period [7,10), joined
 * (less than a step apart), with no time at the threshold. */
START_TEST(touching_and_instant)
{
	lbt_occ *o = occ(10, 60, 0);
	const lbt_occ_stats *st;
	const lbt_occ_period *p;
	size_t n;

	ck_assert_int_eq(lbt_occ_add(o, NULL, S(0), S(5), 0), 0);
	ck_assert_int_eq(lbt_occ_add(o, NULL, S(5), S(10), 0), 0);
	ck_assert_int_eq(lbt_occ_finish(o), 0);
	ck_assert_int_eq(bucket(o, 0)->max, 1);
	lbt_occ_free(o);

	o = occ(10, 60, 2);
	ck_assert_int_eq(lbt_occ_add(o, NULL, S(0), S(10), 0), 0);
	ck_assert_int_eq(lbt_occ_add(o, NULL, S(7), S(7), 0), 0);
	ck_assert_int_eq(lbt_occ_add(o, NULL, S(10), S(10), 0), 0);
	ck_assert_int_eq(lbt_occ_add(o, NULL, S(10), S(10), 0), 0);
	ck_assert_int_eq(lbt_occ_add(o, NULL, S(10), S(12), 0), 0);
	ck_assert_int_eq(lbt_occ_finish(o), 0);
	ck_assert_int_eq(bucket(o, 0)->max, 2);
	ck_assert_int_eq(bucket(o, 0)->max_at_us, S(7));
	ck_assert_int_eq(bucket(o, 0)->slot_us, S(10));
	ck_assert_int_eq(bucket(o, 1)->max, 2);
	ck_assert_int_eq(bucket(o, 1)->max_at_us, S(10));
	st = lbt_occ_stats_get(o);
	ck_assert_uint_eq(st->instant, 3);
	p = lbt_occ_periods(o, 0, &n);
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(p[0].start_us, S(7));
	ck_assert_int_eq(p[0].end_us, S(10));
	ck_assert_int_eq(p[0].above_us, 0);
	lbt_occ_free(o);
}
END_TEST

/*
 * Threshold 1, step 10 s.  [0,1] and [5,6]: 4 s apart, less than a step:
 * one period [0,6] with 2 s at the threshold.  [0,1] and [20,21]: two.
 */
START_TEST(periods_join)
{
	lbt_occ *o = occ(10, 60, 1);
	const lbt_occ_period *p;
	size_t n;

	ck_assert_int_eq(lbt_occ_add(o, NULL, S(0), S(1), 0), 0);
	ck_assert_int_eq(lbt_occ_add(o, NULL, S(5), S(6), 0), 0);
	ck_assert_int_eq(lbt_occ_finish(o), 0);
	p = lbt_occ_periods(o, 0, &n);
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(p[0].start_us, 0);
	ck_assert_int_eq(p[0].end_us, S(6));
	ck_assert_int_eq(p[0].above_us, S(2));
	lbt_occ_free(o);

	o = occ(10, 60, 1);
	ck_assert_int_eq(lbt_occ_add(o, NULL, S(0), S(1), 0), 0);
	ck_assert_int_eq(lbt_occ_add(o, NULL, S(20), S(21), 0), 0);
	ck_assert_int_eq(lbt_occ_finish(o), 0);
	p = lbt_occ_periods(o, 0, &n);
	ck_assert_uint_eq(n, 2);
	ck_assert_int_eq(p[1].start_us, S(20));
	ck_assert_int_eq(p[1].end_us, S(21));
	lbt_occ_free(o);
}
END_TEST

/*
 * Many requests checked against a second, brute-force method: 200
 * pseudo-random intervals of 0..3 s in [0,60), added in end order; the max
 * per 1 s bucket equals the largest count of intervals holding a slot at
 * any start instant inside the bucket (or at the bucket's start), counted
 * one interval at a time.
 */
START_TEST(random_vs_bruteforce)
{
	enum { N = 200 };
	int64_t s[N], e[N], ord[N];
	uint32_t x = 12345;
	lbt_occ *o = occ(1, 5, 0);
	int i, j, k;

	for (i = 0; i < N; i++) {
		x = x * 1103515245u + 12345u;
		s[i] = (int64_t)(x >> 8) % S(57);
		x = x * 1103515245u + 12345u;
		e[i] = s[i] + 1 + (int64_t)(x >> 8) % S(3);
		ord[i] = i;
	}
	for (i = 1; i < N; i++)          /* insertion sort of indices by end */
		for (j = i; j > 0 && e[ord[j]] < e[ord[j - 1]]; j--) {
			int64_t t = ord[j];

			ord[j] = ord[j - 1];
			ord[j - 1] = t;
		}
	for (i = 0; i < N; i++)
		ck_assert_int_eq(lbt_occ_add(o, NULL, s[ord[i]], e[ord[i]], 0), 0);
	ck_assert_int_eq(lbt_occ_finish(o), 0);
	ck_assert_uint_eq(lbt_occ_stats_get(o)->late, 0);
	for (k = 0; k < 60; k++) {
		int32_t best = 0;
		int c;

		for (i = -1; i < N; i++) {
			int64_t t = i < 0 ? S(k) : s[i];

			if (t < S(k) || t >= S(k + 1))
				continue;
			for (c = 0, j = 0; j < N; j++)
				c += s[j] <= t && t < e[j];
			if (c > best)
				best = c;
		}
		if (best > 0)
			ck_assert_int_eq(bucket(o, k)->max, best);
	}
	lbt_occ_free(o);
}
END_TEST

/*
 * The queue of endpoints across the sign of time and with ties: 300
 * intervals starting on whole milliseconds of [-30 s, 27 s) (many share a
 * start or an end, and an end often meets another's start), added in end
 * order with a 5 s window, then one from 31 s to a day later.  Checked as
 * random_vs_bruteforce, per 1 s bucket from -30 to 29: at a moment where
 * one interval ends and another starts, the ending one no longer counts.
 */
START_TEST(queue_ties_negative)
{
	enum { N = 300 };
	int64_t s[N], e[N], ord[N];
	uint32_t x = 4242;
	lbt_occ *o = occ(1, 5, 0);
	int i, j, k;

	for (i = 0; i < N; i++) {
		x = x * 1103515245u + 12345u;
		s[i] = ((int64_t)(x >> 8) % 57000 - 30000) * 1000;
		x = x * 1103515245u + 12345u;
		e[i] = s[i] + (1 + (int64_t)(x >> 8) % 3000) * 1000;
		ord[i] = i;
	}
	for (i = 1; i < N; i++)          /* insertion sort of indices by end */
		for (j = i; j > 0 && e[ord[j]] < e[ord[j - 1]]; j--) {
			int64_t t = ord[j];

			ord[j] = ord[j - 1];
			ord[j - 1] = t;
		}
	for (i = 0; i < N; i++)
		ck_assert_int_eq(lbt_occ_add(o, NULL, s[ord[i]], e[ord[i]], 0), 0);
	ck_assert_int_eq(lbt_occ_add(o, NULL, S(31), S(31 + 86400), 0), 0);
	ck_assert_int_eq(lbt_occ_finish(o), 0);
	ck_assert_uint_eq(lbt_occ_stats_get(o)->late, 0);
	for (k = -30; k < 30; k++) {
		int32_t best = 0;
		int c;

		for (i = -1; i < N; i++) {
			int64_t t = i < 0 ? S(k) : s[i];

			if (t < S(k) || t >= S(k + 1))
				continue;
			for (c = 0, j = 0; j < N; j++)
				c += s[j] <= t && t < e[j];
			if (c > best)
				best = c;
		}
		if (best > 0)
			ck_assert_int_eq(bucket(o, k)->max, best);
	}
	ck_assert_int_eq(bucket(o, 31)->max, 1);
	ck_assert_int_eq(bucket(o, 31 + 86399)->max, 1);
	lbt_occ_free(o);
}
END_TEST

/*
 * Out of order beyond the window: the same 200 intervals added in a
 * shuffled order with a 1 s window.  Slot time stays exact; every bucket
 * maximum is at least the brute-force one, and equal where it is not
 * flagged as an upper bound.
 */
START_TEST(random_late_bounds)
{
	enum { N = 200 };
	int64_t s[N], e[N], slot = 0;
	uint32_t x = 777;
	lbt_occ *o = occ(1, 1, 0);
	size_t i, j, n;
	const lbt_occ_bucket *b;

	for (i = 0; i < N; i++) {
		x = x * 1103515245u + 12345u;
		s[i] = (int64_t)(x >> 8) % S(57);
		x = x * 1103515245u + 12345u;
		e[i] = s[i] + 1 + (int64_t)(x >> 8) % S(3);
		slot += e[i] - s[i];
	}
	for (i = 0; i < N; i++)
		ck_assert_int_eq(lbt_occ_add(o, NULL, s[(i * 37) % N], e[(i * 37) % N], 0), 0);
	ck_assert_int_eq(lbt_occ_finish(o), 0);
	ck_assert_uint_gt(lbt_occ_stats_get(o)->late, 0);
	ck_assert_int_eq(lbt_occ_stats_get(o)->slot_us, slot);
	b = lbt_occ_buckets(o, &n);
	for (i = 0; i < n; i++) {
		int64_t lo = b[i].bucket * S(1);
		int32_t best = 0;
		size_t k;

		for (k = 0; k <= N; k++) {          /* instants: each start, the bucket start */
			int64_t t = k < N ? s[k] : lo;
			int32_t c = 0;

			if (t < lo || t >= lo + S(1))
				continue;
			for (j = 0; j < N; j++)
				c += s[j] <= t && t < e[j];
			best = c > best ? c : best;
		}
		ck_assert_int_ge(b[i].max, best);
		if (b[i].flags == 0)
			ck_assert_int_eq(b[i].max, best);
	}
	lbt_occ_free(o);
}
END_TEST

/* Bad options give no occupancy; free accepts NULL. */
START_TEST(bad_opts)
{
	lbt_occ_opts o = LBT_OCC_OPTS_INIT;

	o.step_us = 0;
	ck_assert_ptr_null(lbt_occ_new(&o));
	o.step_us = 1;
	o.window_us = -1;
	ck_assert_ptr_null(lbt_occ_new(&o));
	ck_assert_ptr_null(lbt_occ_new(NULL));
	lbt_occ_free(NULL);
}
END_TEST

/* The occupancy suite. */
static Suite *occupancy_suite(void)
{
	Suite *s = suite_create("occupancy");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, overlap_three);
	tcase_add_test(tc, overlap_tarpit_whatif);
	tcase_add_test(tc, overlap_small_buckets);
	tcase_add_test(tc, long_interval);
	tcase_add_test(tc, late_interval);
	tcase_add_test(tc, reorder_within_window);
	tcase_add_test(tc, merged_streams);
	tcase_add_test(tc, merged_any_order);
	tcase_add_test(tc, files_newest_first);
	tcase_add_test(tc, touching_and_instant);
	tcase_add_test(tc, periods_join);
	tcase_add_test(tc, random_vs_bruteforce);
	tcase_add_test(tc, random_late_bounds);
	tcase_add_test(tc, queue_ties_negative);
	tcase_add_test(tc, bad_opts);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(occupancy_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
