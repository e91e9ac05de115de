/*
 * check_deny.c - unit tests for lib/rule/deny*.c (the decision).
 *
 * Property tests over random source sets and allow lists (seeded PRNG,
 * 3000 cases, sources drawn so that they nest, touch, repeat and straddle
 * special-purpose and documentation ranges; random thresholds, widening
 * and --force).  For every case:
 *   - no rule network overlaps a special-purpose range or an allow entry;
 *   - none is wider than /24 or /48, except inside a forced wide source,
 *     and none wider than the source it comes from;
 *   - an address is covered exactly when a second, simple method says it
 *     should be: inside a selected, kept source (selection, widening and
 *     width worked out again here, duplicates summed by a quadratic scan)
 *     and in no special range (a linear scan of the table) and in no allow
 *     entry; probed at every boundary of every network involved and at
 *     random points;
 *   - merging is minimal (no two siblings under a parent the limit allows);
 *   - a source not selected is reported as collateral when the rule
 *     matches any probed address of it, and as wholly matched only when
 *     it matches every probed one.
 * Then hand cases: the reasons and the left-out parts of a carved /24.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lbt/deny.h"
#include "lbt/special.h"

__extension__ typedef unsigned __int128 u128;

#define NSRC 20
#define NALLOW 6

/* xorshift64*. */
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
	if (family == 4)
		a.b[10] = a.b[11] = 0xff;
	for (int i = 15; i >= (family == 4 ? 12 : 0); i--, v >>= 8)
		a.b[i] = (uint8_t)v;
	return a;
}

/* The number of a. */
static u128 num_of(const lbt_addr *a)
{
	u128 v = 0;

	for (int i = a->family == 4 ? 12 : 0; i < 16; i++)
		v = v << 8 | a->b[i];
	return v;
}

/*
 * A random network: IPv4 in 192.0.0.0/22 (special 192.0.0.0/24, plain
 * 192.0.1.0/24, documentation 192.0.2.0/24, plain 192.0.3.0/24) or
 * 203.0.112.0/22; IPv6 in four /48 around the end of 2001::/23 (two
 * special, two plain) or in 2001:db8:bad::/48.  `narrow` skews to longer
 * prefixes (allow lists).
 */
static lbt_ipnet rand_net(uint64_t *s, int narrow)
{
	lbt_ipnet n;

	if (rnd(s) % 2 == 0) {
		static const int lens[] = { 20, 22, 23, 24, 25, 25, 26, 28, 30, 31, 32, 32, 32 };
		u128 base = rnd(s) % 2 ? 0xc0000000u : 0xcb007000u;

		n.bits = narrow ? 28 + (int)(rnd(s) % 5) : lens[rnd(s) % 13];
		n.net = addr_of(4, base + rnd(s) % 1024);
	} else {
		static const int lens[] = { 44, 46, 47, 48, 49, 63, 64, 64, 65, 126, 127, 128 };
		u128 base = rnd(s) % 3 ? (u128)0x200101fffffe0000ULL << 64
		    : (u128)0x20010db80bad0000ULL << 64;

		n.bits = narrow ? 64 + (int)(rnd(s) % 65) : lens[rnd(s) % 12];
		n.net = addr_of(6, base + ((u128)(rnd(s) % 4) << 80) +
		    ((u128)(rnd(s) % 4) << 64) + rnd(s) % 4);
	}
	lbt_addr_mask(&n.net, n.bits);
	return n;
}

/* One random case: its inputs and what the simple method expects. */
struct kase {
	uint64_t seed;
	lbt_deny_opts o;
	lbt_ipnet src[NSRC];
	int64_t req[NSRC];
	size_t nsrc;
	lbt_ipnet allow[NALLOW];
	size_t nallow;
	int selected[NSRC];      /* after summing duplicates */
	int kept[NSRC];          /* selected and not too wide */
	lbt_ipnet wide[NSRC];    /* widened */
};

/* True when a contains b. */
static int contains(const lbt_ipnet *a, const lbt_ipnet *b)
{
	return a->net.family == b->net.family && a->bits <= b->bits &&
	    lbt_addr_in(&b->net, &a->net, a->bits);
}

/* True when a and b share an address. */
static int overlaps(const lbt_ipnet *a, const lbt_ipnet *b)
{
	return contains(a, b) || contains(b, a);
}

/* True when x is in a special range (linear scan of the table). */
static int special(const lbt_addr *x)
{
	size_t n;
	const lbt_special *t = lbt_special_table(&n);

	for (size_t i = 0; i < n; i++) {
		lbt_ipnet e;

		lbt_special_net(&t[i], &e.net, &e.bits);
		if (lbt_addr_in(x, &e.net, e.bits))
			return 1;
	}
	return 0;
}

/* The widest prefix of a family. */
static int widest(int family)
{
	return family == 4 ? LBT_DENY_V4_WIDEST : LBT_DENY_V6_WIDEST;
}

/* Work out selection, widening and width for k by the simple method. */
static void expect(struct kase *k)
{
	for (size_t i = 0; i < k->nsrc; i++) {
		int64_t sum = 0;
		int to = k->src[i].net.family == 4 ? k->o.v4_bits : k->o.v6_bits;

		for (size_t j = 0; j < k->nsrc; j++)
			if (k->src[j].bits == k->src[i].bits &&
			    lbt_addr_cmp(&k->src[j].net, &k->src[i].net) == 0)
				sum += k->req[j];
		k->selected[i] = k->o.min_requests < 0 || sum >= k->o.min_requests;
		k->wide[i] = k->src[i];
		if (to >= 0 && to < k->wide[i].bits) {
			k->wide[i].bits = to;
			lbt_addr_mask(&k->wide[i].net, to);
		}
		k->kept[i] = k->selected[i] && k->wide[i].bits >= (k->o.force ?
		    (k->wide[i].net.family == 4 ? 16 : 32) : widest(k->wide[i].net.family));
	}
}

/* True when the simple method wants x covered. */
static int want(const struct kase *k, const lbt_addr *x)
{
	int in = 0;

	for (size_t i = 0; i < k->nsrc && !in; i++)
		in = k->kept[i] && lbt_addr_in(x, &k->wide[i].net, k->wide[i].bits);
	if (!in || special(x))
		return 0;
	for (size_t i = 0; i < k->nallow; i++)
		if (lbt_addr_in(x, &k->allow[i].net, k->allow[i].bits))
			return 0;
	return 1;
}

/* True when a rule network of d holds x. */
static int covered(const lbt_deny *d, const lbt_addr *x)
{
	for (size_t i = 0; i < lbt_deny_nrules(d); i++) {
		const lbt_deny_rule *r = lbt_deny_rule_at(d, i);

		if (lbt_addr_in(x, &r->net.net, r->net.bits))
			return 1;
	}
	return 0;
}

/* Probe x. */
static void probe(const struct kase *k, const lbt_deny *d, const lbt_addr *x)
{
	char a[LBT_ADDR_STRLEN];

	ck_assert_msg(covered(d, x) == want(k, x), "seed %llu: %s covered %d, want %d",
	    (unsigned long long)k->seed, lbt_addr_format(x, a, sizeof a), covered(d, x),
	    want(k, x));
}

/* The four boundary points of n: first, last and their outer neighbours. */
static void edges(const lbt_ipnet *n, lbt_addr pts[4])
{
	int w = n->net.family == 4 ? 32 : 128;
	u128 host = w - n->bits >= 128 ? ~(u128)0 : ((u128)1 << (w - n->bits)) - 1;
	u128 lo = num_of(&n->net) & ~host, hi = lo | host;
	u128 max = w == 32 ? 0xffffffffu : ~(u128)0;

	pts[0] = addr_of(n->net.family, lo);
	pts[1] = addr_of(n->net.family, hi);
	pts[2] = addr_of(n->net.family, lo > 0 ? lo - 1 : lo);
	pts[3] = addr_of(n->net.family, hi < max ? hi + 1 : hi);
}

/* Probe the boundaries of n. */
static void probe_net(const struct kase *k, const lbt_deny *d, const lbt_ipnet *n)
{
	lbt_addr pts[4];

	edges(n, pts);
	for (int i = 0; i < 4; i++)
		probe(k, d, &pts[i]);
}

/* Rule networks avoid exclusions, respect the width, and are minimal. */
static void check_rules(const struct kase *k, const lbt_deny *d)
{
	size_t n;
	const lbt_special *t = lbt_special_table(&n);

	for (size_t i = 0; i < lbt_deny_nrules(d); i++) {
		const lbt_ipnet *r = &lbt_deny_rule_at(d, i)->net;
		int forced = 0;

		for (size_t j = 0; j < n; j++) {
			lbt_ipnet e;

			lbt_special_net(&t[j], &e.net, &e.bits);
			ck_assert_msg(!overlaps(r, &e), "seed %llu: rule on %s",
			    (unsigned long long)k->seed, t[j].prefix);
		}
		for (size_t j = 0; j < k->nallow; j++)
			ck_assert_msg(!overlaps(r, &k->allow[j]), "seed %llu: rule on an allowed one",
			    (unsigned long long)k->seed);
		for (size_t j = 0; j < k->nsrc; j++)
			forced |= k->kept[j] && k->wide[j].bits < widest(r->net.family) &&
			    contains(&k->wide[j], r);
		ck_assert_msg(forced || r->bits >= widest(r->net.family), "seed %llu: /%d too wide",
		    (unsigned long long)k->seed, r->bits);
		ck_assert_msg(r->bits >= (r->net.family == 4 ? 16 : 32),
		    "seed %llu: /%d wider than --force reaches", (unsigned long long)k->seed, r->bits);
		if (i > 0) {
			const lbt_ipnet *p = &lbt_deny_rule_at(d, i - 1)->net;
			lbt_ipnet parent = *r;

			ck_assert(lbt_addr_cmp(&p->net, &r->net) < 0 && !overlaps(p, r));
			int in_wide = 0;

			parent.bits--;
			lbt_addr_mask(&parent.net, parent.bits);
			for (size_t j = 0; j < k->nsrc && r->bits > 0; j++)
				in_wide |= k->kept[j] && contains(&k->wide[j], &parent);
			ck_assert_msg(!(p->bits == r->bits && r->bits > 0 && contains(&parent, p) &&
			    (parent.bits >= widest(r->net.family) || in_wide)),
			    "seed %llu: siblings not merged", (unsigned long long)k->seed);
		}
	}
}

/* Collateral: listed when a probe of an unselected source is covered. */
static void check_collateral(const struct kase *k, const lbt_deny *d)
{
	for (size_t i = 0; i < k->nsrc; i++) {
		lbt_addr pts[4];
		int any = 0, all = 1, listed = 0, whole = 0;

		if (k->selected[i])
			continue;
		edges(&k->src[i], pts);
		for (int j = 0; j < 2; j++) {
			any |= covered(d, &pts[j]);
			all &= covered(d, &pts[j]);
		}
		for (size_t c = 0; c < lbt_deny_ncollateral(d); c++) {
			const lbt_deny_collateral *co = lbt_deny_collateral_at(d, c);

			if (co->net.bits == k->src[i].bits &&
			    lbt_addr_cmp(&co->net.net, &k->src[i].net) == 0) {
				listed = 1;
				whole = co->whole;
			}
		}
		ck_assert_msg(!any || listed, "seed %llu: collateral not listed",
		    (unsigned long long)k->seed);
		ck_assert_msg(!whole || all, "seed %llu: collateral said whole",
		    (unsigned long long)k->seed);
	}
}

/* Draw case k from its seed and run it. */
static void one_case(uint64_t seed)
{
	struct kase k;
	uint64_t s = seed;
	lbt_err err;
	lbt_deny *d;
	lbt_deny_opts o = LBT_DENY_OPTS_INIT;

	memset(&k, 0, sizeof k);
	k.seed = seed;
	o.force = rnd(&s) % 2;
	o.min_requests = rnd(&s) % 3 == 0 ? (int64_t)(rnd(&s) % 100) : -1;
	o.v4_bits = rnd(&s) % 4 == 0 ? 24 + (int)(rnd(&s) % 9) : -1;
	o.v6_bits = rnd(&s) % 4 == 0 ? (int[]){ 48, 56, 64 }[rnd(&s) % 3] : -1;
	k.o = o;
	k.nsrc = 1 + rnd(&s) % NSRC;
	k.nallow = rnd(&s) % (NALLOW + 1);
	ck_assert_ptr_nonnull(d = lbt_deny_new(&o, &err));
	for (size_t i = 0; i < k.nsrc; i++) {
		lbt_deny_src src = LBT_DENY_SRC_INIT;

		src.net = k.src[i] = rand_net(&s, 0);
		src.requests = k.req[i] = (int64_t)(rnd(&s) % 60);
		ck_assert_int_eq(lbt_deny_add(d, &src, &err), 0);
	}
	for (size_t i = 0; i < k.nallow; i++) {
		k.allow[i] = rand_net(&s, 1);
		ck_assert_int_eq(lbt_deny_allow(d, &k.allow[i], NULL, 0, &err), 0);
	}
	ck_assert_int_eq(lbt_deny_finish(d, &err), 0);
	expect(&k);
	check_rules(&k, d);
	for (size_t i = 0; i < k.nsrc; i++) {
		probe_net(&k, d, &k.src[i]);
		probe_net(&k, d, &k.wide[i]);
	}
	for (size_t i = 0; i < k.nallow; i++)
		probe_net(&k, d, &k.allow[i]);
	for (size_t i = 0; i < lbt_deny_nrules(d); i++)
		probe_net(&k, d, &lbt_deny_rule_at(d, i)->net);
	for (int i = 0; i < 24; i++) {
		lbt_ipnet r = rand_net(&s, 1);

		probe(&k, d, &r.net);
	}
	check_collateral(&k, d);
	lbt_deny_free(d);
}

/* 3000 random cases. */
START_TEST(random_decisions)
{
	for (uint64_t i = 1; i <= 3000; i++)
		one_case(i * 0x9e3779b97f4a7c15ULL);
}
END_TEST

/* A decision over sources given as text, with an allow list as text. */
static lbt_deny *decide(const char *const *src, const char *const *allow, int force)
{
	lbt_deny_opts o = LBT_DENY_OPTS_INIT;
	lbt_err err;
	lbt_deny *d;

	o.force = force;
	ck_assert_ptr_nonnull(d = lbt_deny_new(&o, &err));
	for (; *src; src++)
		ck_assert_msg(lbt_deny_add_text(d, *src, &err) == 0, "%s: %s", *src, err.msg);
	for (; allow && *allow; allow++) {
		lbt_ipnet n;

		ck_assert_int_eq(lbt_deny_parse_net(*allow, strlen(*allow), &n, &err), 0);
		ck_assert_int_eq(lbt_deny_allow(d, &n, "allow.lst", 3, &err), 0);
	}
	ck_assert_int_eq(lbt_deny_finish(d, &err), 0);
	return d;
}

/* The left-out items as "net|of|why;..." text. */
static const char *lefts(const lbt_deny *d)
{
	static char buf[2048];
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < lbt_deny_nleft(d); i++) {
		const lbt_deny_left *l = lbt_deny_left_at(d, i);
		char a[LBT_ADDR_STRLEN];

		used += (size_t)snprintf(buf + used, sizeof buf - used, "%s|%s|%s;",
		    lbt_addr_format_net(&l->net.net, l->net.bits, a, sizeof a), l->of, l->why);
	}
	return buf;
}

/* Reasons by hand: private, loopback, allowed part, too wide, mapped. */
START_TEST(reasons)
{
	static const char *const src[] = { "10.1.2.3", "127.0.0.1", "203.0.113.0/24",
		"198.51.0.0/16", "fe80::1", "2001:db8:bad:1::/64", NULL };
	static const char *const allow[] = { "203.0.113.8", NULL };
	lbt_deny *d = decide(src, allow, 0);
	lbt_ipnet n;
	lbt_err err;

	ck_assert_str_eq(lefts(d), "198.51.0.0/16||wider than /24 (--force to deny it);"
	    "10.1.2.3||private address (RFC 1918);127.0.0.1||loopback address (RFC 1122);"
	    "203.0.113.8|203.0.113.0/24|in the allow list (allow.lst:3);"
	    "fe80::1||link-local address (RFC 4291);");
	ck_assert_uint_eq(lbt_deny_nrules(d), 9);     /* eight around .8, one /64 */
	lbt_deny_free(d);
	ck_assert_int_eq(lbt_deny_parse_net("::ffff:203.0.113.7", 18, &n, &err), -1);
	ck_assert_str_eq(err.msg, "'::ffff:203.0.113.7' is an IPv4-mapped IPv6 address "
	    "(RFC 4291): write it as IPv4");
	ck_assert_int_eq(lbt_deny_parse_net("203.0.113.7/33", 14, &n, &err), -1);
}
END_TEST

/* --force: a /16 is kept and written as one; a /11 is one step too far. */
START_TEST(forced)
{
	static const char *const src[] = { "198.51.0.0/16", "172.16.0.0/11", NULL };
	lbt_deny *d = decide(src, NULL, 1);
	char a[LBT_ADDR_STRLEN];

	ck_assert_uint_eq(lbt_deny_nrules(d), 1);
	ck_assert_str_eq(lbt_addr_format_net(&lbt_deny_rule_at(d, 0)->net.net,
	    lbt_deny_rule_at(d, 0)->net.bits, a, sizeof a), "198.51.0.0/16");
	ck_assert_str_eq(lefts(d), "172.0.0.0/11||wider than /16, too wide even for --force "
	    "(--force-network 172.0.0.0/11 to deny this one);");
	lbt_deny_free(d);
}
END_TEST

/* --force-network: the /11 named is kept, its private part cut out, and
 * written as one; ::/0, not named, is refused even with --force. */
START_TEST(force_network)
{
	lbt_deny_opts o = LBT_DENY_OPTS_INIT;
	char a[LBT_ADDR_STRLEN];
	lbt_err err;
	lbt_deny *d;

	o.force = 1;
	ck_assert_ptr_nonnull(d = lbt_deny_new(&o, &err));
	ck_assert_int_eq(lbt_deny_force_network(d, "172.16.0.0/11", &err), 0);
	ck_assert_int_eq(lbt_deny_force_network(d, "nope", &err), -1);
	ck_assert_str_eq(err.msg, "--force-network: 'nope' is not an address or network");
	ck_assert_int_eq(lbt_deny_add_text(d, "172.16.0.0/11", &err), 0);
	ck_assert_int_eq(lbt_deny_add_text(d, "::/0", &err), 0);
	ck_assert_int_eq(lbt_deny_finish(d, &err), 0);
	ck_assert_uint_eq(lbt_deny_nrules(d), 1);
	ck_assert_str_eq(lbt_addr_format_net(&lbt_deny_rule_at(d, 0)->net.net,
	    lbt_deny_rule_at(d, 0)->net.bits, a, sizeof a), "172.0.0.0/12");
	ck_assert_str_eq(lefts(d), "::/0||wider than /32, too wide even for --force "
	    "(--force-network ::/0 to deny this one);"
	    "172.16.0.0/12|172.0.0.0/11|private address (RFC 1918);");
	lbt_deny_free(d);
}
END_TEST

/* The LB's own address: left out with its reason, and cut out of a /24. */
START_TEST(own_address)
{
	static const char *const src[] = { "192.0.2.1", "203.0.113.0/24", NULL };
	lbt_deny_opts o = LBT_DENY_OPTS_INIT;
	lbt_ipnet lb1 = { { 0 }, 32 }, lb2 = { { 0 }, 32 };
	lbt_err err;
	lbt_deny *d;

	ck_assert_ptr_nonnull(d = lbt_deny_new(&o, &err));
	ck_assert_int_eq(lbt_addr_parse("192.0.2.1", 9, &lb1.net), 0);
	ck_assert_int_eq(lbt_addr_parse("203.0.113.9", 11, &lb2.net), 0);
	ck_assert_int_eq(lbt_deny_own(d, &lb1, "haproxy.cfg", 12, &err), 0);
	ck_assert_int_eq(lbt_deny_own(d, &lb2, "haproxy.cfg", 13, &err), 0);
	for (size_t i = 0; src[i]; i++)
		ck_assert_int_eq(lbt_deny_add_text(d, src[i], &err), 0);
	ck_assert_int_eq(lbt_deny_finish(d, &err), 0);
	ck_assert_str_eq(lefts(d), "192.0.2.1||the load balancer's own address "
	    "(bind at haproxy.cfg:12);203.0.113.9|203.0.113.0/24|the load balancer's own "
	    "address (bind at haproxy.cfg:13);");
	ck_assert_uint_eq(lbt_deny_nrules(d), 8);     /* the /24 cut around .9 */
	ck_assert_int_eq(lbt_ipset_covers(lbt_deny_covered(d), &lb2.net, 32), LBT_IPSET_NONE);
	lbt_deny_free(d);
}
END_TEST

/* A data source of n requests (what lbt-triage hands over). */
static lbt_deny_src data_src(const char *net, int64_t n, lbt_deny_origin origin)
{
	lbt_deny_src s = LBT_DENY_SRC_INIT;
	lbt_err err;

	ck_assert_int_eq(lbt_deny_parse_net(net, strlen(net), &s.net, &err), 0);
	s.requests = n;
	s.origin = origin;
	return s;
}

/* picked_only: the picked sources alone are selected, widened as asked;
 * the data sources stay for the collateral.  An --allow value is a
 * network, else a file read line by line. */
START_TEST(picked_only)
{
	lbt_deny_opts o = LBT_DENY_OPTS_INIT;
	lbt_deny_src v[] = { data_src("203.0.113.7", 600, LBT_DENY_FROM_ARG),
		data_src("203.0.113.8", 60, LBT_DENY_FROM_DATA),
		data_src("198.51.100.20", 60, LBT_DENY_FROM_DATA),
		data_src("2001:db8:bad:1::/64", 300, LBT_DENY_FROM_ARG) };
	const lbt_deny_totals *t;
	char a[LBT_ADDR_STRLEN], path[] = "/tmp/check_deny.XXXXXX", want[200];
	lbt_deny *d;
	lbt_err err;
	FILE *fp;
	int fd;

	o.picked_only = 1;
	o.v4_bits = 24;
	ck_assert_ptr_nonnull(d = lbt_deny_new(&o, &err));
	for (size_t i = 0; i < 4; i++)
		ck_assert_int_eq(lbt_deny_add(d, &v[i], &err), 0);
	ck_assert_int_ge(fd = mkstemp(path), 0);
	ck_assert_ptr_nonnull(fp = fdopen(fd, "w"));
	fputs("# partners\n2001:db8:bad:1::8000/113\n", fp);
	fclose(fp);
	ck_assert_int_eq(lbt_deny_allow_arg(d, path, &err), 0);
	ck_assert_int_eq(lbt_deny_allow_arg(d, "198.51.100.20", &err), 0);
	ck_assert_int_eq(lbt_deny_allow_arg(d, "no-such.allow", &err), -1);
	ck_assert_str_eq(err.msg, "no-such.allow: No such file or directory");
	remove(path);
	ck_assert_int_eq(lbt_deny_finish(d, &err), 0);
	t = lbt_deny_totals_get(d);
	ck_assert_uint_eq(t->selected, 2);
	ck_assert_str_eq(lbt_addr_format_net(&lbt_deny_rule_at(d, 0)->net.net,
	    lbt_deny_rule_at(d, 0)->net.bits, a, sizeof a), "203.0.113.0/24");
	ck_assert_uint_eq(lbt_deny_ncollateral(d), 1);        /* .8, inside the /24 */
	ck_assert_int_eq(t->collateral, 60);
	snprintf(want, sizeof want, "2001:db8:bad:1::8000/113|2001:db8:bad:1::/64|"
	    "in the allow list (%s:2);", path);
	ck_assert_str_eq(lefts(d), want);
	lbt_deny_free(d);
}
END_TEST

/* The deny suite. */
static Suite *deny_suite(void)
{
	Suite *s = suite_create("deny");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, random_decisions);
	tcase_add_test(tc, reasons);
	tcase_add_test(tc, forced);
	tcase_add_test(tc, force_network);
	tcase_add_test(tc, own_address);
	tcase_add_test(tc, picked_only);
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(deny_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
