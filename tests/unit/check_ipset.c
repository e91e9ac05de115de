/*
 * check_ipset.c - unit tests for lib/base/ipset.c.  Hand cases (adjacent
 * /25 become a /24, never beyond the limit; a hole cut out of a /24), then
 * property tests over random sets (seeded PRNG, 4000 cases): the networks
 * written for (union of A) minus (union of B) hold an address exactly when
 * a second, simple method says so (a linear scan of the prefixes of A and
 * B with lbt_addr_in), at every boundary of every prefix and at random
 * points; they are disjoint, sorted, no wider than the limit, and minimal
 * (no two siblings under a parent the limit allows).
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbt/ipset.h"

__extension__ typedef unsigned __int128 u128;

/* xorshift64*: the tests' own PRNG, seeded per test. */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

/* The address of `family` whose number is v. */
static lbt_addr addr_of(int family, u128 v)
{
	lbt_addr a;

	memset(&a, 0, sizeof a);
	a.family = (uint8_t)family;
	if (family == 4) {
		a.b[10] = a.b[11] = 0xff;
		for (int i = 15; i >= 12; i--, v >>= 8)
			a.b[i] = (uint8_t)v;
	} else {
		for (int i = 15; i >= 0; i--, v >>= 8)
			a.b[i] = (uint8_t)v;
	}
	return a;
}

/* The number of address a. */
static u128 num_of(const lbt_addr *a)
{
	u128 v = 0;

	for (int i = a->family == 4 ? 12 : 0; i < 16; i++)
		v = v << 8 | a->b[i];
	return v;
}

/* Parse "ADDR/BITS" (the tests write only good ones). */
static lbt_ipnet net(const char *s)
{
	lbt_ipnet n;

	ck_assert_int_eq(lbt_addr_parse_prefix(s, &n.net, &n.bits), 0);
	lbt_addr_mask(&n.net, n.bits);
	return n;
}

/* The networks of s as "a b c" text. */
static const char *text(lbt_ipset *s, int v4min, int v6min)
{
	static char buf[1024];
	lbt_ipnet *v;
	size_t n, used = 0;

	buf[0] = '\0';
	ck_assert_int_eq(lbt_ipset_networks(s, v4min, v6min, &v, &n), 0);
	for (size_t i = 0; i < n; i++) {
		char a[LBT_ADDR_STRLEN];

		used += (size_t)snprintf(buf + used, sizeof buf - used, "%s%s", i ? " " : "",
		    lbt_addr_format_net(&v[i].net, v[i].bits, a, sizeof a));
	}
	free(v);
	return buf;
}

/* Add "ADDR/BITS" to s. */
static void add(lbt_ipset *s, const char *p)
{
	lbt_ipnet n = net(p);

	ck_assert_int_eq(lbt_ipset_add(s, &n.net, n.bits), 0);
}

/* Hand cases: merging, the limit, holes, families apart. */
START_TEST(by_hand)
{
	lbt_ipset *s = lbt_ipset_new(), *x = lbt_ipset_new();
	lbt_ipnet q;

	add(s, "203.0.113.0/25");
	add(s, "203.0.113.128/25");
	ck_assert_str_eq(text(s, 24, 48), "203.0.113.0/24");
	add(s, "203.0.112.0/24");
	ck_assert_str_eq(text(s, 24, 48), "203.0.112.0/24 203.0.113.0/24");
	ck_assert_str_eq(text(s, 0, 0), "203.0.112.0/23");
	add(x, "203.0.113.8/32");
	ck_assert_int_eq(lbt_ipset_subtract(s, x), 0);
	ck_assert_str_eq(text(s, 24, 48), "203.0.112.0/24 203.0.113.0/29 203.0.113.9 "
	    "203.0.113.10/31 203.0.113.12/30 203.0.113.16/28 203.0.113.32/27 203.0.113.64/26 "
	    "203.0.113.128/25");
	q = net("203.0.113.8/32");
	ck_assert_int_eq(lbt_ipset_covers(s, &q.net, q.bits), LBT_IPSET_NONE);
	q = net("203.0.113.0/24");
	ck_assert_int_eq(lbt_ipset_covers(s, &q.net, q.bits), LBT_IPSET_PART);
	q = net("203.0.113.128/26");
	ck_assert_int_eq(lbt_ipset_covers(s, &q.net, q.bits), LBT_IPSET_ALL);
	lbt_ipset_free(s);
	lbt_ipset_free(x);
}
END_TEST

/* IPv6 merging, the top of the space, IPv4 never in an IPv6 range. */
START_TEST(edges)
{
	lbt_ipset *s = lbt_ipset_new();
	lbt_ipnet q;

	add(s, "2001:db8:bad:1::/64");
	add(s, "2001:db8:bad::/64");
	ck_assert_str_eq(text(s, 24, 48), "2001:db8:bad::/63");
	add(s, "ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffe/127");
	add(s, "255.255.255.255/32");
	add(s, "255.255.255.254/32");
	ck_assert_str_eq(text(s, 24, 48), "255.255.255.254/31 2001:db8:bad::/63 "
	    "ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffe/127");
	add(s, "::/0");
	ck_assert_str_eq(text(s, 0, 0), "255.255.255.254/31 ::/0");
	ck_assert_str_eq(text(s, 0, 1), "255.255.255.254/31 ::/1 8000::/1");
	q = net("0.0.0.0/0");
	ck_assert_int_eq(lbt_ipset_covers(s, &q.net, q.bits), LBT_IPSET_PART);
	q = net("1.2.3.4/32");
	ck_assert_int_eq(lbt_ipset_has(s, &q.net), 0);
	lbt_ipset_free(s);
}
END_TEST

/* A random network of the test universe: a few bases close to each other
 * (so that networks nest, touch and overlap), prefix lengths near the
 * limits.  IPv4 in 203.0.112.0/22, IPv6 around 2001:db8:bad::/46. */
static lbt_ipnet rand_net(uint64_t *seed)
{
	lbt_ipnet n;
	int v6 = rnd(seed) % 2;

	if (!v6) {
		n.bits = 20 + (int)(rnd(seed) % 13);
		n.net = addr_of(4, (u128)0xcb007000u + (rnd(seed) % 1024));
	} else {
		static const int lens[] = { 44, 45, 46, 47, 48, 49, 63, 64, 65, 126, 127, 128 };
		u128 base = (u128)0x20010db80bad0000ULL << 64;

		n.bits = lens[rnd(seed) % 12];
		n.net = addr_of(6, base + ((u128)(rnd(seed) % 8) << 78) +
		    ((u128)(rnd(seed) % 4) << 64) + (rnd(seed) % 4));
	}
	lbt_addr_mask(&n.net, n.bits);
	return n;
}

/* True when x is in some network of v[0..n) (the simple method). */
static int in_any(const lbt_addr *x, const lbt_ipnet *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (lbt_addr_in(x, &v[i].net, v[i].bits))
			return 1;
	return 0;
}

/* The first and last number of network n. */
static void span(const lbt_ipnet *n, u128 *lo, u128 *hi)
{
	int w = n->net.family == 4 ? 32 : 128;
	u128 host = w - n->bits >= 128 ? ~(u128)0 : ((u128)1 << (w - n->bits)) - 1;

	*lo = num_of(&n->net) & ~host;
	*hi = *lo | host;
}

/* Check address x: in the output exactly when in A and not in B. */
static void probe(const lbt_ipnet *a, size_t na, const lbt_ipnet *b, size_t nb,
    const lbt_ipnet *out, size_t nout, const lbt_addr *x, uint64_t seed)
{
	int want = in_any(x, a, na) && !in_any(x, b, nb);

	ck_assert_msg(in_any(x, out, nout) == want, "seed %llu: address covered %d, want %d",
	    (unsigned long long)seed, !want, want);
}

/* Probe every boundary of every network of v, and its neighbours. */
static void probe_edges(const lbt_ipnet *v, size_t n, const lbt_ipnet *a, size_t na,
    const lbt_ipnet *b, size_t nb, const lbt_ipnet *out, size_t nout, uint64_t seed)
{
	for (size_t i = 0; i < n; i++) {
		u128 lo, hi, pts[4];
		int f = v[i].net.family;
		u128 max = f == 4 ? 0xffffffffu : ~(u128)0;

		span(&v[i], &lo, &hi);
		pts[0] = lo;
		pts[1] = hi;
		pts[2] = lo > 0 ? lo - 1 : lo;
		pts[3] = hi < max ? hi + 1 : hi;
		for (int k = 0; k < 4; k++) {
			lbt_addr x = addr_of(f, pts[k]);

			probe(a, na, b, nb, out, nout, &x, seed);
		}
	}
}

/* The output is sorted, disjoint, within the limit and minimal. */
static void check_shape(const lbt_ipnet *out, size_t n, int v4min, int v6min, uint64_t seed)
{
	for (size_t i = 0; i < n; i++) {
		int min = out[i].net.family == 4 ? v4min : v6min;

		ck_assert_msg(out[i].bits >= min, "seed %llu: /%d wider than /%d",
		    (unsigned long long)seed, out[i].bits, min);
		if (i == 0)
			continue;
		ck_assert_msg(lbt_addr_cmp(&out[i - 1].net, &out[i].net) < 0, "seed %llu: order",
		    (unsigned long long)seed);
		ck_assert_msg(!lbt_addr_in(&out[i].net, &out[i - 1].net, out[i - 1].bits),
		    "seed %llu: overlap", (unsigned long long)seed);
		if (out[i].bits == out[i - 1].bits && out[i].bits - 1 >= min &&
		    out[i].net.family == out[i - 1].net.family) {
			lbt_addr p = out[i].net;

			lbt_addr_mask(&p, out[i].bits - 1);
			ck_assert_msg(memcmp(&p, &out[i - 1].net, sizeof p) != 0,
			    "seed %llu: two siblings not merged", (unsigned long long)seed);
		}
	}
}

/* One random case: A minus B against the simple method. */
static void one_case(uint64_t seed)
{
	uint64_t s = seed;
	lbt_ipnet a[24], b[12], *out;
	size_t na = 1 + rnd(&s) % 24, nb = rnd(&s) % 12, nout;
	int v4min = rnd(&s) % 2 ? 24 : 0, v6min = rnd(&s) % 2 ? 48 : 0;
	lbt_ipset *sa = lbt_ipset_new(), *sb = lbt_ipset_new();

	for (size_t i = 0; i < na; i++) {
		a[i] = rand_net(&s);
		ck_assert_int_eq(lbt_ipset_add(sa, &a[i].net, a[i].bits), 0);
	}
	for (size_t i = 0; i < nb; i++) {
		b[i] = rand_net(&s);
		ck_assert_int_eq(lbt_ipset_add(sb, &b[i].net, b[i].bits), 0);
	}
	ck_assert_int_eq(lbt_ipset_subtract(sa, sb), 0);
	ck_assert_int_eq(lbt_ipset_networks(sa, v4min, v6min, &out, &nout), 0);
	check_shape(out, nout, v4min, v6min, seed);
	probe_edges(a, na, a, na, b, nb, out, nout, seed);
	probe_edges(b, nb, a, na, b, nb, out, nout, seed);
	probe_edges(out, nout, a, na, b, nb, out, nout, seed);
	for (int k = 0; k < 32; k++) {
		lbt_ipnet r = rand_net(&s);

		probe(a, na, b, nb, out, nout, &r.net, seed);
	}
	free(out);
	lbt_ipset_free(sa);
	lbt_ipset_free(sb);
}

/* 4000 random cases. */
START_TEST(random_sets)
{
	for (uint64_t seed = 1; seed <= 4000; seed++)
		one_case(seed * 0x9e3779b97f4a7c15ULL);
}
END_TEST

/* Writing the networks back in gives the same set (one representation). */
START_TEST(round_trip)
{
	for (uint64_t seed = 1; seed <= 1000; seed++) {
		uint64_t s = seed * 0x2545f4914f6cdd1dULL;
		lbt_ipset *a = lbt_ipset_new(), *b = lbt_ipset_new();
		lbt_ipnet *out;
		size_t n;

		for (int i = 0; i < 16; i++) {
			lbt_ipnet r = rand_net(&s);

			ck_assert_int_eq(lbt_ipset_add(a, &r.net, r.bits), 0);
		}
		ck_assert_int_eq(lbt_ipset_networks(a, 24, 48, &out, &n), 0);
		for (size_t i = 0; i < n; i++)
			ck_assert_int_eq(lbt_ipset_add(b, &out[i].net, out[i].bits), 0);
		ck_assert(lbt_ipset_equal(a, b));
		free(out);
		lbt_ipset_free(a);
		lbt_ipset_free(b);
	}
}
END_TEST

/* The ipset suite. */
static Suite *ipset_suite(void)
{
	Suite *s = suite_create("ipset");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, by_hand);
	tcase_add_test(tc, edges);
	tcase_add_test(tc, random_sets);
	tcase_add_test(tc, round_trip);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(ipset_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
