/*
 * check_triage.c - unit tests for the judge (lib/judge) and its screen on hand-built
 * records, run through the four analyses lbt-triage runs (rate by key and
 * by status, offenders, tarpit), then the triage.
 *
 * The flood (60 s from T0, records in time order, frontend "fe"):
 *   L1 192.0.2.10, L2 198.51.100.20, L3 2001:db8:1::10: 1/s each, 200, KB
 *   A  203.0.113.7: 20/s from s = 30, 429 (PR--), KA
 *   B  2001:db8:bad:1::1..10: 10/s from s = 30, 500 (PT--, Tw 1000 ms), KA
 * By hand: 180 + 600 + 300 = 1080 requests.  The total goes from 3/s to
 * 33/s at s = 30 and stays: a rise, ongoing at the end.  KA is new at
 * s = 30.  The jump puts the baseline window at s < 30; since then A sends
 * 20 of 33 a second (60.6 %), B 10 (30.3 %), each legitimate source 1
 * (3.0 %).  A and B are new: offenders; the rule is their two networks,
 * no collateral, 900 requests.  Damage: 600 429, 300 5xx, 0 503, 0 -1;
 * the three legitimate sources have 180 requests, all 200.  The tarpit
 * held 300 x 1 s = 300 s.
 */
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbt/triage.h"

#define SEC 1000000LL
#define T0 1762039441LL
#define KA "aaaaaaaa-0000-4000-8000-000000000001"
#define KB "bbbbbbbb-0000-4000-8000-000000000002"

/* The four analyses of a run, and the triage of them. */
struct run {
	lbt_rate *keys, *statuses;
	lbt_offenders *off;
	lbt_tarpit *tp;
	lbt_triage *t;
};

/* New analyses with lbt-triage's options. */
static void run_new(struct run *r)
{
	lbt_rate_opts rk = LBT_RATE_OPTS_INIT, rs = LBT_RATE_OPTS_INIT;
	lbt_offenders_opts of = LBT_OFFENDERS_OPTS_INIT;
	lbt_tarpit_opts tp = LBT_TARPIT_OPTS_INIT;
	lbt_err err;

	rk.top = 50;
	rs.by = LBT_RATE_BY_STATUS;
	rs.top = 0;
	of.top = 0;
	r->keys = lbt_rate_new(&rk, &err);
	r->statuses = lbt_rate_new(&rs, &err);
	r->off = lbt_offenders_new(&of, &err);
	r->tp = lbt_tarpit_new(&tp, &err);
	ck_assert(r->keys && r->statuses && r->off && r->tp);
	r->t = NULL;
}

/* One record of client addr at t_us into every analysis. */
static void add(struct run *r, int64_t t_us, const char *addr, int32_t status,
    const char *term, int32_t tw, const char *key)
{
	lbt_rec rec;

	lbt_rec_clear(&rec);
	rec.have = LBT_BIT(LBT_F_TIME) | LBT_BIT(LBT_F_CLIENT) | LBT_BIT(LBT_F_STATUS) |
	    LBT_BIT(LBT_F_TERM) | LBT_BIT(LBT_F_TW) | LBT_BIT(LBT_F_KEY) |
	    LBT_BIT(LBT_F_FRONTEND) | LBT_BIT(LBT_F_FILE) | LBT_BIT(LBT_F_LINE);
	rec.clock = LBT_CLOCK_REQUEST;
	rec.time_us = t_us;
	ck_assert_int_eq(lbt_addr_parse(addr, strlen(addr), &rec.client), 0);
	rec.status = status;
	rec.term = lbt_str_make(term, strlen(term));
	rec.tw = tw;
	rec.key = lbt_str_make(key, strlen(key));
	rec.frontend = lbt_str_make("fe", 2);
	rec.file = "a.log";
	rec.line = 1;
	ck_assert_int_eq(lbt_rate_add(r->keys, &rec), 0);
	ck_assert_int_eq(lbt_rate_add(r->statuses, &rec), 0);
	ck_assert_int_eq(lbt_offenders_add(r->off, &rec), 0);
	ck_assert_int_eq(lbt_tarpit_add(r->tp, &rec), 0);
}

/* One record as add() does, from load balancer lb (its own input). */
static void add_lb(struct run *r, int64_t t_us, const char *addr, const char *lb)
{
	lbt_rec rec;

	lbt_rec_clear(&rec);
	rec.have = LBT_BIT(LBT_F_TIME) | LBT_BIT(LBT_F_CLIENT) | LBT_BIT(LBT_F_STATUS) |
	    LBT_BIT(LBT_F_TERM) | LBT_BIT(LBT_F_KEY) | LBT_BIT(LBT_F_FRONTEND) |
	    LBT_BIT(LBT_F_LB) | LBT_BIT(LBT_F_FILE) | LBT_BIT(LBT_F_LINE);
	rec.clock = LBT_CLOCK_REQUEST;
	rec.time_us = t_us;
	ck_assert_int_eq(lbt_addr_parse(addr, strlen(addr), &rec.client), 0);
	rec.status = 200;
	rec.term = lbt_str_make("----", 4);
	rec.key = lbt_str_make(KB, strlen(KB));
	rec.frontend = lbt_str_make("fe", 2);
	rec.lb = lbt_str_make(lb, strlen(lb));
	rec.file = lb;
	rec.line = 1;
	ck_assert_int_eq(lbt_rate_add(r->keys, &rec), 0);
	ck_assert_int_eq(lbt_rate_add(r->statuses, &rec), 0);
	ck_assert_int_eq(lbt_offenders_add(r->off, &rec), 0);
	ck_assert_int_eq(lbt_tarpit_add(r->tp, &rec), 0);
}

/* The three legitimate sources, 1/s each, seconds [from, to). */
static void legit(struct run *r, int from, int to)
{
	for (int s = from; s < to; s++) {
		add(r, (T0 + s) * SEC + 100000, "192.0.2.10", 200, "----", 0, KB);
		add(r, (T0 + s) * SEC + 200000, "198.51.100.20", 200, "----", 0, KB);
		add(r, (T0 + s) * SEC + 300000, "2001:db8:1::10", 200, "----", 0, KB);
	}
}

/* The flood of the file comment. */
static void flood(struct run *r)
{
	char addr[64];

	for (int s = 0; s < 60; s++) {
		legit(r, s, s + 1);
		for (int i = 0; s >= 30 && i < 20; i++)
			add(r, (T0 + s) * SEC + 400000 + i * 1000, "203.0.113.7", 429, "PR--", 0, KA);
		for (int i = 0; s >= 30 && i < 10; i++) {
			snprintf(addr, sizeof addr, "2001:db8:bad:1::%d", i + 1);
			add(r, (T0 + s) * SEC + 600000 + i * 1000, addr, 500, "PT--", 1000, KA);
		}
	}
}

/* Finish the analyses and build the triage with o (NULL: defaults). */
static const lbt_triage *triage(struct run *r, const lbt_triage_opts *o)
{
	lbt_triage_opts d = LBT_TRIAGE_OPTS_INIT;
	lbt_triage_input in;
	lbt_err err;

	ck_assert_int_eq(lbt_rate_finish(r->keys, &err), 0);
	ck_assert_int_eq(lbt_rate_finish(r->statuses, &err), 0);
	ck_assert_int_eq(lbt_offenders_finish(r->off, &err), 0);
	ck_assert_int_eq(lbt_tarpit_finish(r->tp, &err), 0);
	in = (lbt_triage_input){ r->keys, r->statuses, r->off, r->tp, 1, 0 };
	r->t = lbt_triage_new(o ? o : &d, &err);
	ck_assert_msg(r->t != NULL, "%s", err.msg);
	ck_assert_msg(lbt_triage_build(r->t, &in, &err) == 0, "%s", err.msg);
	return r->t;
}

/* Free everything. */
static void run_free(struct run *r)
{
	lbt_triage_free(r->t);
	lbt_rate_free(r->keys);
	lbt_rate_free(r->statuses);
	lbt_offenders_free(r->off);
	lbt_tarpit_free(r->tp);
}

/* The screen of t as a string (free it). */
static char *screen(const lbt_triage *t)
{
	lbt_triage_print p = { 0, 80 };
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	lbt_err err;

	ck_assert_ptr_nonnull(fp);
	ck_assert_int_eq(lbt_triage_write(t, fp, &p, &err), 0);
	fclose(fp);
	return buf;
}

/* The longest line of text s. */
static size_t widest(const char *s)
{
	size_t w = 0;

	while (*s) {
		size_t n = strcspn(s, "\n");

		w = n > w ? n : w;
		s += n + (s[n] == '\n');
	}
	return w;
}

/* The flood: totals, hot key, sources, offenders and the verdict. */
START_TEST(flood_findings)
{
	struct run r;
	const lbt_triage *t;
	const lbt_triage_summary *m;
	const lbt_triage_key *k;

	run_new(&r);
	flood(&r);
	t = triage(&r, NULL);
	m = lbt_triage_summary_get(t);
	ck_assert_uint_eq(m->requests, 1080);
	ck_assert_int_eq(m->verdict, LBT_TRIAGE_ONGOING);
	ck_assert(m->total.found && m->total.ongoing);
	ck_assert_int_eq(m->total.start_us, (T0 + 30) * SEC);
	ck_assert(fabs(m->total.from_rate - 3) < 0.01 && fabs(m->total.to_rate - 33) < 0.01);
	ck_assert_int_eq(m->baseline, 1);
	ck_assert_int_eq(m->base_to_us, (T0 + 30) * SEC);
	ck_assert_uint_eq(lbt_triage_nkeys(t), 1);
	k = lbt_triage_key_at(t, 0);
	ck_assert_str_eq(k->key, KA);
	ck_assert_int_eq(k->total, 900);
	ck_assert(k->rise.ongoing && k->rise.is_new);
	ck_assert_int_eq(k->rise.start_us, (T0 + 30) * SEC);
	ck_assert(fabs(k->rise.to_rate - 30) < 0.01);
	ck_assert_uint_eq(m->offenders, 2);
	ck_assert_uint_eq(lbt_triage_nsources(t), 5);      /* 2 offenders + all 3 others */
	ck_assert_str_eq(lbt_triage_source_at(t, 0)->row->source, "203.0.113.7");
	ck_assert(fabs(lbt_triage_source_at(t, 0)->share - 2000.0 / 33) < 0.01);
	ck_assert_int_eq(lbt_triage_source_at(t, 0)->why, LBT_TRIAGE_NEW);
	ck_assert_str_eq(lbt_triage_source_at(t, 1)->row->source, "2001:db8:bad:1::/64");
	ck_assert(fabs(lbt_triage_source_at(t, 1)->share - 1000.0 / 33) < 0.01);
	for (size_t i = 2; i < 5; i++) {
		ck_assert(!lbt_triage_source_at(t, i)->offender);
		ck_assert(fabs(lbt_triage_source_at(t, i)->share - 100.0 / 33) < 0.01);
		ck_assert_int_eq(lbt_triage_source_at(t, i)->in_rule, LBT_IPSET_NONE);
	}
	run_free(&r);
}
END_TEST

/* The flood: damage, error rises, pressure. */
START_TEST(flood_damage)
{
	struct run r;
	const lbt_triage *t;
	const lbt_triage_damage *d;
	const lbt_triage_front *f;

	run_new(&r);
	flood(&r);
	t = triage(&r, NULL);
	d = lbt_triage_damage_get(t);
	ck_assert_uint_eq(d->requests, 1080);
	ck_assert_uint_eq(d->s429, 600);
	ck_assert_uint_eq(d->s5xx, 300);
	ck_assert_uint_eq(d->s503, 0);
	ck_assert_uint_eq(d->snone, 0);
	ck_assert_uint_eq(d->legit_sources, 3);
	ck_assert_uint_eq(d->legit_requests, 180);
	ck_assert_uint_eq(d->legit_429 + d->legit_5xx + d->legit_none, 0);
	ck_assert_uint_eq(lbt_triage_nerrors(t), 2);        /* 429 and 500, both from s = 30 */
	ck_assert_str_eq(lbt_triage_error_at(t, 0)->key, "429");
	ck_assert_str_eq(lbt_triage_error_at(t, 1)->key, "500");
	ck_assert_int_eq(lbt_triage_error_at(t, 1)->rise.start_us, (T0 + 30) * SEC);
	ck_assert_uint_eq(lbt_triage_nfronts(t), 1);
	f = lbt_triage_front_at(t, 0);
	ck_assert_str_eq(f->g->frontend, "fe");
	ck_assert_uint_eq(f->g->pt, 300);
	ck_assert(fabs(f->held_s - 300) < 1e-9);
	ck_assert(!f->full_now);                            /* no maxconn known */
	run_free(&r);
}
END_TEST

/* The flood: the rule, its lines, its command, and the screen's width. */
START_TEST(flood_rule)
{
	struct run r;
	const lbt_triage *t;
	const lbt_deny *d;
	char *s;

	run_new(&r);
	flood(&r);
	t = triage(&r, NULL);
	ck_assert_ptr_nonnull(d = lbt_triage_rule(t));
	ck_assert_uint_eq(lbt_deny_nrules(d), 2);
	ck_assert_int_eq(lbt_deny_totals_get(d)->denied, 900);
	ck_assert_uint_eq(lbt_deny_ncollateral(d), 0);
	ck_assert_str_eq(lbt_triage_rule_list(t), "203.0.113.7\n2001:db8:bad:1::/64\n");
	ck_assert_str_eq(lbt_triage_rule_lines(t), "    http-request deny deny_status 429 "
	    "if { src 203.0.113.7 2001:db8:bad:1::/64 }\n");
	ck_assert_ptr_null(lbt_triage_rule_file(t));
	ck_assert_str_eq(lbt_triage_command(t), "lbt-deny 203.0.113.7 2001:db8:bad:1::/64");
	s = screen(t);
	ck_assert_uint_le(widest(s), 80);
	ck_assert_ptr_nonnull(strstr(s, "\nANOMALY since "));
	ck_assert_ptr_nonnull(strstr(s, ", ONGOING: requests rose 3.00 -> 33.0 req/s at "));
	ck_assert_ptr_nonnull(strstr(s, "no collateral\n    http-request deny deny_status 429"));
	free(s);
	run_free(&r);
}
END_TEST

/* Widened to /24, the rule catches 203.0.113.0/24's other source: said. */
START_TEST(collateral)
{
	lbt_triage_opts o = LBT_TRIAGE_OPTS_INIT;
	struct run r;
	const lbt_triage *t;
	const lbt_deny *d;

	run_new(&r);
	flood(&r);
	for (int s = 0; s < 60; s++)
		add(&r, (T0 + s) * SEC + 900000, "203.0.113.8", 200, "----", 0, KB);
	o.v4_bits = 24;
	t = triage(&r, &o);
	ck_assert_ptr_nonnull(d = lbt_triage_rule(t));
	ck_assert_str_eq(lbt_triage_rule_list(t), "203.0.113.0/24\n2001:db8:bad:1::/64\n");
	ck_assert_uint_eq(lbt_deny_ncollateral(d), 1);
	ck_assert_int_eq(lbt_deny_totals_get(d)->collateral, 60);
	run_free(&r);
}
END_TEST

/* Only the legitimate sources: calm, no hot key, no rule; and a source of
 * five requests, all refused, is no offender (fewer than a rise has). */
START_TEST(calm)
{
	struct run r;
	const lbt_triage *t;
	char *s;

	run_new(&r);
	legit(&r, 0, 60);
	for (int i = 0; i < 5; i++)
		add(&r, (T0 + 10 + i) * SEC, "203.0.113.9", 429, "PR--", 0, KA);
	t = triage(&r, NULL);
	ck_assert_int_eq(lbt_triage_summary_get(t)->verdict, LBT_TRIAGE_CALM);
	ck_assert_uint_eq(lbt_triage_nkeys(t), 0);
	ck_assert_uint_eq(lbt_triage_summary_get(t)->offenders, 0);
	ck_assert_ptr_null(lbt_triage_rule(t));
	ck_assert_str_eq(lbt_triage_command(t), "");
	s = screen(t);
	ck_assert_ptr_nonnull(strstr(s, "\ncalm: "));
	ck_assert_ptr_null(strstr(s, "http-request"));
	free(s);
	run_free(&r);
}
END_TEST

/* Nothing at all: no records. */
START_TEST(no_records)
{
	struct run r;

	run_new(&r);
	ck_assert_int_eq(lbt_triage_summary_get(triage(&r, NULL))->verdict,
	    LBT_TRIAGE_NO_RECORDS);
	run_free(&r);
}
END_TEST

/* A flood that fills most of the input (1/s for 20 s, then 200/s for
 * 180 s): the rise at s = 20, ongoing, whichever way the engine reads it. */
START_TEST(flood_fills_input)
{
	struct run r;
	const lbt_triage *t;
	const lbt_triage_key *k;

	run_new(&r);
	for (int s = 0; s < 200; s++)
		for (int i = 0; i < (s < 20 ? 1 : 200); i++)
			add(&r, (T0 + s) * SEC + i * 4000, "192.0.2.77", 200, "----", 0, KA);
	t = triage(&r, NULL);
	ck_assert_uint_eq(lbt_triage_nkeys(t), 1);
	k = lbt_triage_key_at(t, 0);
	ck_assert_int_eq(k->rise.start_us, (T0 + 20) * SEC);
	ck_assert(k->rise.ongoing);
	ck_assert(fabs(k->rise.from_rate - 1) < 0.01 && fabs(k->rise.to_rate - 200) < 0.01);
	ck_assert_int_eq(lbt_triage_summary_get(t)->verdict, LBT_TRIAGE_ONGOING);
	run_free(&r);
}
END_TEST

/* Two hours (more than the engine gets in 1 s buckets): a key at one
 * request every 2 s, and a flood key at 50/s from s = 5000 to 5100.  The
 * rise is found in coarse buckets, then its start to the second. */
START_TEST(long_input)
{
	struct run r;
	const lbt_triage *t;
	const lbt_triage_key *k;

	run_new(&r);
	for (int s = 0; s < 7200; s += 2)
		add(&r, (T0 + s) * SEC, "192.0.2.10", 200, "----", 0, KB);
	for (int s = 5000; s < 5100; s++)
		for (int i = 0; i < 50; i++)
			add(&r, (T0 + s) * SEC + i * 10000, "203.0.113.7", 200, "----", 0, KA);
	t = triage(&r, NULL);
	ck_assert_uint_eq(lbt_triage_nkeys(t), 1);
	k = lbt_triage_key_at(t, 0);
	ck_assert_str_eq(k->key, KA);
	ck_assert_int_eq(k->rise.start_us, (T0 + 5000) * SEC);
	ck_assert(!k->rise.ongoing);
	ck_assert_int_ge(k->rise.end_us, (T0 + 5100) * SEC);
	ck_assert_int_le(k->rise.end_us, (T0 + 5100 + 2) * SEC);     /* coarse: 2 s buckets */
	ck_assert(fabs(k->rise.peak_rate - 50) < 1e-9);
	ck_assert_int_eq(lbt_triage_summary_get(t)->verdict, LBT_TRIAGE_OVER);
	run_free(&r);
}
END_TEST

/* No jump of the total, so no baseline: the source that the proxy's limits
 * refuse offends (REFUSED), the heavy one served does not. */
START_TEST(refused_without_baseline)
{
	struct run r;
	const lbt_triage *t;

	run_new(&r);
	for (int s = 0; s < 60; s++) {
		legit(&r, s, s + 1);
		for (int i = 0; i < 20; i++)
			add(&r, (T0 + s) * SEC + 400000 + i * 1000, "203.0.113.7", 429, "PR--", 0, KA);
		for (int i = 0; i < 10; i++)
			add(&r, (T0 + s) * SEC + 700000 + i * 1000, "198.51.100.99", 200, "----", 0, KB);
	}
	t = triage(&r, NULL);
	ck_assert_int_eq(lbt_triage_summary_get(t)->baseline, 0);
	ck_assert_uint_eq(lbt_triage_summary_get(t)->offenders, 1);
	ck_assert_str_eq(lbt_triage_source_at(t, 0)->row->source, "203.0.113.7");
	ck_assert_int_eq(lbt_triage_source_at(t, 0)->why, LBT_TRIAGE_REFUSED);
	ck_assert(fabs(lbt_triage_source_at(t, 0)->share - 1200.0 * 100 / 1980) < 0.01);
	ck_assert_str_eq(lbt_triage_source_at(t, 1)->row->source, "198.51.100.99");
	ck_assert(!lbt_triage_source_at(t, 1)->offender);
	ck_assert_str_eq(lbt_triage_rule_list(t), "203.0.113.7\n");
	/* still sending at the end: ongoing */
	ck_assert_int_eq(lbt_triage_summary_get(t)->verdict, LBT_TRIAGE_ONGOING);
	run_free(&r);
}
END_TEST

/* Two minutes after the flood's data ends, it is over; the rise ends at
 * the end of the data, and the document says so. */
START_TEST(over_by_now)
{
	lbt_triage_opts o = LBT_TRIAGE_OPTS_INIT;
	struct run r;
	const lbt_triage *t;
	char *buf = NULL;
	size_t len = 0;
	FILE *fp;
	json_t *doc;
	lbt_err err;

	run_new(&r);
	flood(&r);
	o.now_us = (T0 + 180) * SEC;
	t = triage(&r, &o);
	ck_assert_int_eq(lbt_triage_summary_get(t)->verdict, LBT_TRIAGE_OVER);
	ck_assert_int_eq(lbt_triage_key_at(t, 0)->rise.ongoing, 0);
	ck_assert_int_eq(lbt_triage_key_at(t, 0)->rise.end_us, (T0 + 60) * SEC);
	ck_assert_ptr_nonnull(fp = open_memstream(&buf, &len));
	ck_assert_int_eq(lbt_triage_write_json(t, fp, &err), 0);
	fclose(fp);
	ck_assert_ptr_nonnull(doc = json_loads(buf, 0, NULL));
	ck_assert_str_eq(json_string_value(json_object_get(doc, "verdict")), "over");
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(doc, "anomaly"),
	    "until")), "2025-11-01T23:25:01.000Z");
	ck_assert_int_eq(json_array_size(json_object_get(json_object_get(doc, "rule"),
	    "networks")), 2);
	json_decref(doc);
	free(buf);
	run_free(&r);
}
END_TEST


/* True when source `src` of t is among its sources and offends. */
static int offends(const lbt_triage *t, const char *src)
{
	for (size_t i = 0; i < lbt_triage_nsources(t); i++)
		if (strcmp(lbt_triage_source_at(t, i)->row->source, src) == 0)
			return lbt_triage_source_at(t, i)->offender;
	return 0;
}

/* The source `src` of t (it must be shown). */
static const lbt_triage_source *source_named(const lbt_triage *t, const char *src)
{
	for (size_t i = 0; i < lbt_triage_nsources(t); i++)
		if (strcmp(lbt_triage_source_at(t, i)->row->source, src) == 0)
			return lbt_triage_source_at(t, i);
	ck_abort_msg("%s is not shown", src);
	return NULL;
}

/*
 * A batch sender: 40 requests every 10 s from s = 7 (the engine reads its
 * 7 s of silence at its first segment's rate as `new`), with the three
 * legitimate sources over 120 s, and a flood of 50/s from 203.0.113.7 at
 * s = 60.  By construction the sender sent 6 batches before the jump:
 * a customer, 4/s before and after (ratio 1), share since the jump
 * 4 / (3 + 4 + 50) = 7.0 %: no offender.  The flooder is new; the rule is
 * its address alone.
 */
START_TEST(batch_sender_not_new)
{
	struct run r;
	const lbt_triage *t;

	run_new(&r);
	for (int s = 0; s < 120; s++) {
		legit(&r, s, s + 1);
		for (int i = 0; s % 10 == 7 && i < 40; i++)
			add(&r, (T0 + s) * SEC + 500000 + i * 1000, "198.51.100.50", 200, "----", 0, KB);
		for (int i = 0; s >= 60 && i < 50; i++)
			add(&r, (T0 + s) * SEC + 600000 + i * 1000, "203.0.113.7", 200, "----", 0, KA);
	}
	t = triage(&r, NULL);
	ck_assert_int_ge(lbt_triage_summary_get(t)->total.start_us, (T0 + 55) * SEC);
	ck_assert_int_le(lbt_triage_summary_get(t)->total.start_us, (T0 + 60) * SEC);
	ck_assert(!offends(t, "198.51.100.50"));
	ck_assert(offends(t, "203.0.113.7"));
	ck_assert_str_eq(lbt_triage_rule_list(t), "203.0.113.7\n");
	ck_assert(source_named(t, "198.51.100.50")->prior);
	ck_assert(fabs(source_named(t, "198.51.100.50")->share - 400.0 / 57) < 0.5);
	ck_assert(fabs(source_named(t, "198.51.100.50")->ratio - 1) < 0.2);
	ck_assert_int_eq(source_named(t, "203.0.113.7")->cause, LBT_TRIAGE_CAUSE_FLOOD);
	run_free(&r);
}
END_TEST

/*
 * Two load balancers read together whose logs begin 6 s apart: lb1's two
 * sources at 1/s from s = 0, lb2's two at 4/s from s = 6.4, for 120 s; at
 * s = 60 a flood of 60/s from 203.0.113.7 on lb1.  Nobody of lb2 is new
 * (they sent from the first second of their input): each is a customer
 * at ratio 1 with 4 / 70 = 5.7 % of the requests since the jump, no
 * offender; the flooder alone is denied.  The baseline window starts
 * where both inputs are read, s = 6.4.
 */
START_TEST(merged_inputs_nobody_new)
{
	static const char *const lb2[] = { "198.51.100.61", "198.51.100.62" };
	struct run r;
	const lbt_triage *t;

	run_new(&r);
	for (int s = 0; s < 120; s++) {
		add_lb(&r, (T0 + s) * SEC + 100000, "192.0.2.10", "lb1");
		add_lb(&r, (T0 + s) * SEC + 200000, "192.0.2.11", "lb1");
		for (int k = 0; s >= 6 && k < 2; k++)
			for (int i = 0; i < 4; i++)
				add_lb(&r, (T0 + s) * SEC + 400000 + k * 10000 + i * 1000, lb2[k], "lb2");
		for (int i = 0; s >= 60 && i < 60; i++)
			add_lb(&r, (T0 + s) * SEC + 600000 + i * 1000, "203.0.113.7", "lb1");
	}
	t = triage(&r, NULL);
	ck_assert_int_eq(lbt_triage_summary_get(t)->total.start_us, (T0 + 60) * SEC);
	for (int k = 0; k < 2; k++)
		ck_assert_msg(!offends(t, lb2[k]), "%s offends", lb2[k]);
	ck_assert_str_eq(lbt_triage_rule_list(t), "203.0.113.7\n");
	ck_assert_int_eq(lbt_triage_summary_get(t)->aligned_us, (T0 + 6) * SEC + 400000);
	for (int k = 0; k < 2; k++) {
		ck_assert(source_named(t, lb2[k])->prior);
		ck_assert(fabs(source_named(t, lb2[k])->share - 400.0 / 70) < 0.3);
	}
	run_free(&r);
}
END_TEST

/*
 * A customer at 1/s that goes to 30/s from s = 30 to 60 and back to 1/s
 * until s = 180, with the three legitimate sources all along: the rise is
 * over at s = 60, 120 s before the end of the data, so the verdict (and
 * with it the exit status and the document) is `over`, though the
 * customer still sends at the end.  With --now at the end of its rise
 * (s = 59) it is ongoing.
 */
static void customer_burst(struct run *r, int end)
{
	for (int s = 0; s < end; s++) {
		legit(r, s, s + 1);
		for (int i = 0; i < (s >= 30 && s < 60 ? 30 : 1); i++)
			add(r, (T0 + s) * SEC + 500000 + i * 1000, "198.51.100.50",
			    s >= 30 && s < 60 && i > 0 ? 429 : 200, "----", 0, KB);
	}
}

START_TEST(over_when_back_in_band)
{
	struct run r;
	const lbt_triage *t;
	char *buf = NULL;
	size_t len = 0;
	FILE *fp;
	json_t *doc;
	lbt_err err;

	run_new(&r);
	customer_burst(&r, 180);
	t = triage(&r, NULL);
	ck_assert(offends(t, "198.51.100.50"));
	ck_assert_int_eq(lbt_triage_summary_get(t)->verdict, LBT_TRIAGE_OVER);
	ck_assert_int_eq(lbt_triage_summary_get(t)->total.ongoing, 0);
	ck_assert_ptr_nonnull(fp = open_memstream(&buf, &len));
	ck_assert_int_eq(lbt_triage_write_json(t, fp, &err), 0);
	fclose(fp);
	ck_assert_ptr_nonnull(doc = json_loads(buf, 0, NULL));
	ck_assert_str_eq(json_string_value(json_object_get(doc, "verdict")), "over");
	json_decref(doc);
	free(buf);
	run_free(&r);
}
END_TEST

/* The same burst cut at s = 60: it lasts to the end of the data, ongoing. */
START_TEST(ongoing_to_the_end)
{
	const lbt_triage_summary *m;
	struct run r;

	run_new(&r);
	customer_burst(&r, 60);
	m = lbt_triage_summary_get(triage(&r, NULL));
	ck_assert_int_eq(m->verdict, LBT_TRIAGE_ONGOING);
	ck_assert_int_eq(m->until_us, m->now_us);     /* the span agrees with the verdict */
	run_free(&r);
}
END_TEST

/*
 * A proportional surge: ten sources at 1/s for 60 s, then each at 6/s for
 * 60 s.  Every source's ratio (6) is the total's: nobody stands out, so
 * no rule and no rate limit; the anomaly is still told (the total rose).
 */
START_TEST(proportional_surge_no_rule)
{
	struct run r;
	const lbt_triage *t;
	char addr[32];

	run_new(&r);
	for (int s = 0; s < 120; s++)
		for (int k = 0; k < 10; k++)
			for (int i = 0; i < (s < 60 ? 1 : 6); i++) {
				snprintf(addr, sizeof addr, "198.51.100.%d", 10 + k);
				add(&r, (T0 + s) * SEC + k * 50000 + i * 5000, addr, 200, "----", 0, KB);
			}
	t = triage(&r, NULL);
	ck_assert_ptr_null(lbt_triage_rule(t));
	ck_assert_str_eq(lbt_triage_rule_list(t), "");
	ck_assert_int_ne(lbt_triage_summary_get(t)->verdict, LBT_TRIAGE_CALM);
	ck_assert(lbt_triage_summary_get(t)->surge);
	ck_assert(fabs(lbt_triage_summary_get(t)->total_ratio - 6) < 0.1);
	ck_assert_str_eq(lbt_triage_limit_lines(t), "");
	run_free(&r);
}
END_TEST

/*
 * A prior customer at 30x its baseline whose requests are re-sends after
 * 429: 198.51.100.50 at 1/s for 60 s, then 30/s (29 of them 429) for 60 s,
 * with the three legitimate sources.  By construction its baseline is
 * 60 requests over the 60 s window, 1/s; its rise's mean 30/s, ratio 30;
 * 29 x 60 / 1860 = 93.5 % of its answers 429.  Remedy: a rate limit of
 * 3 x 1/s x 10 s = 30 requests a 10 s window with Retry-After, never a
 * deny; it would have stopped 30 x 60 - 3 x 60 = 1620 requests.
 */
START_TEST(customer_rate_limited_not_denied)
{
	struct run r;
	const lbt_triage *t;
	const lbt_triage_source *c;

	run_new(&r);
	for (int s = 0; s < 120; s++) {
		legit(&r, s, s + 1);
		for (int i = 0; i < (s < 60 ? 1 : 30); i++)
			add(&r, (T0 + s) * SEC + 500000 + i * 1000, "198.51.100.50",
			    s >= 60 && i > 0 ? 429 : 200, "PR--", 0, KB);
	}
	t = triage(&r, NULL);
	ck_assert(offends(t, "198.51.100.50"));
	ck_assert_ptr_null(lbt_triage_rule(t));
	ck_assert_str_eq(lbt_triage_rule_list(t), "");
	c = source_named(t, "198.51.100.50");
	ck_assert_int_eq(c->cause, LBT_TRIAGE_CAUSE_CUSTOMER);
	ck_assert(fabs(c->base_rate - 1) < 1e-9);
	ck_assert(fabs(c->ratio - 30) < 0.5);
	ck_assert(fabs(c->resent_pct - 100.0 * 29 * 60 / 1860) < 0.01);
	ck_assert_int_eq(c->limit, 30);
	ck_assert_uint_eq(c->stopped, 1620);
	ck_assert_str_eq(lbt_triage_limit_lines(t),
	    "stick-table type ipv6 size 1m expire 60s store http_req_rate(10s)\n"
	    "http-request track-sc0 src,ipmask(32,64)\n"
	    "acl lbt_c1 src 198.51.100.50\n"
	    "acl lbt_c1_over sc0_http_req_rate gt 30\n"
	    "http-request return status 429 hdr Retry-After 10 if lbt_c1 lbt_c1_over\n");
	run_free(&r);
}
END_TEST

/*
 * A distributed flood: 40 new sources, each in a /64 of its own inside
 * 2001:db8:77::/48, each 2/s on KA from s = 60 to 120, with the three
 * legitimate sources at 1/s and a prior customer inside the same /48,
 * 2001:db8:77:ff::1, at 1/s all along (on KB).  Since the jump every
 * request is 3 + 1 + 80 = 84 a second: each new source has 2 / 84 =
 * 2.4 % (none offends alone), the 40 together 80 / 84 = 95.2 %.  The rule
 * is the /48, and the legitimate traffic inside it, the customer's 120
 * requests, is shown and counted as the rule's collateral.
 */
START_TEST(distributed_flood_prefix)
{
	struct run r;
	const lbt_triage *t;
	const lbt_triage_prefix *p;
	char addr[64];

	run_new(&r);
	for (int s = 0; s < 120; s++) {
		legit(&r, s, s + 1);
		add(&r, (T0 + s) * SEC + 350000, "2001:db8:77:ff::1", 200, "----", 0, KB);
		for (int k = 0; s >= 60 && k < 40; k++)
			for (int i = 0; i < 2; i++) {
				snprintf(addr, sizeof addr, "2001:db8:77:%x::1", k + 1);
				add(&r, (T0 + s) * SEC + 400000 + k * 10000 + i * 1000, addr, 200, "----",
				    0, KA);
			}
	}
	t = triage(&r, NULL);
	ck_assert_str_eq(lbt_triage_rule_list(t), "2001:db8:77::/48\n");
	ck_assert_int_eq(lbt_deny_totals_get(lbt_triage_rule(t))->collateral, 120);
	ck_assert_uint_eq(lbt_triage_nprefixes(t), 1);
	p = lbt_triage_prefix_at(t, 0);
	ck_assert_uint_eq(p->sources, 40);
	ck_assert_str_eq(p->key, KA);
	ck_assert(fabs(p->share - 8000.0 / 84) < 0.5);
	ck_assert_uint_eq(p->legit_sources, 1);
	ck_assert_uint_eq(p->legit_requests, 120);
	run_free(&r);
}
END_TEST

/*
 * Slow headers: 198.51.100.77 opens 2 requests a second that never send
 * whole headers (408, termination state cR--) for 60 s, beside the three
 * legitimate sources; the total does not jump.  It offends (120 slow of
 * 120 requests), its remedy is timeout http-request, and it is not denied.
 */
START_TEST(slow_headers_timeout)
{
	struct run r;
	const lbt_triage *t;

	run_new(&r);
	for (int s = 0; s < 60; s++) {
		legit(&r, s, s + 1);
		for (int i = 0; i < 2; i++)
			add(&r, (T0 + s) * SEC + 500000 + i * 1000, "198.51.100.77", 408, "cR--", 0, KB);
	}
	t = triage(&r, NULL);
	ck_assert(offends(t, "198.51.100.77"));
	ck_assert_ptr_null(lbt_triage_rule(t));
	ck_assert_uint_eq(source_named(t, "198.51.100.77")->row->slow, 120);
	ck_assert_int_eq(source_named(t, "198.51.100.77")->cause, LBT_TRIAGE_CAUSE_SLOW);
	ck_assert_str_eq(lbt_triage_timeout_line(t), "timeout http-request 5s\n");
	run_free(&r);
}
END_TEST

/*
 * A re-send storm of a batch sender: 198.51.100.50 sends 6 requests every
 * 5 s over 45 s (1.2/s), and from s = 20 to 32 re-sends 40 a second
 * answered 503; two customers at 1/s.  After the storm its batches go on
 * at their usual count: 12 in its last 10 s, within 12 + 3 sqrt(12) + 1.
 * It is a customer to rate-limit, and the anomaly is over, though the
 * engine reads its bursts to the end as one rise.
 */
START_TEST(storm_of_batches_over)
{
	struct run r;
	const lbt_triage *t;

	run_new(&r);
	for (int s = 0; s < 45; s++) {
		add(&r, (T0 + s) * SEC + 100000, "192.0.2.10", 200, "----", 0, KB);
		add(&r, (T0 + s) * SEC + 200000, "192.0.2.11", 200, "----", 0, KB);
		for (int i = 0; s % 5 == 0 && i < 6; i++)
			add(&r, (T0 + s) * SEC + 300000 + i * 1000, "198.51.100.50", 200, "----", 0, KA);
		for (int i = 0; s >= 20 && s < 32 && i < 40; i++)
			add(&r, (T0 + s) * SEC + 400000 + i * 1000, "198.51.100.50", 503, "SC--", 0, KA);
	}
	t = triage(&r, NULL);
	ck_assert(offends(t, "198.51.100.50"));
	ck_assert_ptr_null(lbt_triage_rule(t));
	ck_assert_int_eq(source_named(t, "198.51.100.50")->cause, LBT_TRIAGE_CAUSE_CUSTOMER);
	ck_assert_int_eq(lbt_triage_summary_get(t)->verdict, LBT_TRIAGE_OVER);
	run_free(&r);
}
END_TEST

/* Bad options and misuse are errors, not crashes. */
START_TEST(misuse)
{
	lbt_triage_opts o = LBT_TRIAGE_OPTS_INIT;
	lbt_triage_input in = { NULL, NULL, NULL, NULL, 0, 0 };
	lbt_triage *t;
	lbt_err err;

	o.min_share = 101;
	ck_assert_ptr_null(lbt_triage_new(&o, &err));
	o.min_share = 5;
	o.min_ratio = 1;
	ck_assert_ptr_null(lbt_triage_new(&o, &err));
	o.min_ratio = 5;
	ck_assert_ptr_nonnull(t = lbt_triage_new(&o, &err));
	ck_assert_int_eq(lbt_triage_allow(t, "not-a-file-or-network", &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "not-a-file-or-network"));
	ck_assert_int_eq(lbt_triage_build(t, &in, &err), -1);
	ck_assert_int_eq(lbt_triage_write(t, stdout, NULL, &err), -1);
	lbt_triage_free(t);
	lbt_triage_free(NULL);
}
END_TEST

/* The suite. */
static Suite *triage_suite(void)
{
	Suite *s = suite_create("triage");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, flood_findings);
	tcase_add_test(tc, flood_damage);
	tcase_add_test(tc, flood_rule);
	tcase_add_test(tc, collateral);
	tcase_add_test(tc, calm);
	tcase_add_test(tc, no_records);
	tcase_add_test(tc, flood_fills_input);
	tcase_add_test(tc, long_input);
	tcase_add_test(tc, refused_without_baseline);
	tcase_add_test(tc, over_by_now);
	tcase_add_test(tc, misuse);
	tcase_add_test(tc, batch_sender_not_new);
	tcase_add_test(tc, merged_inputs_nobody_new);
	tcase_add_test(tc, over_when_back_in_band);
	tcase_add_test(tc, ongoing_to_the_end);
	tcase_add_test(tc, proportional_surge_no_rule);
	tcase_add_test(tc, customer_rate_limited_not_denied);
	tcase_add_test(tc, distributed_flood_prefix);
	tcase_add_test(tc, slow_headers_timeout);
	tcase_add_test(tc, storm_of_batches_over);
	suite_add_tcase(s, tc);
	return s;
}

/* Run the suite.  @return 0 when every test passed */
int main(void)
{
	SRunner *sr = srunner_create(triage_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
