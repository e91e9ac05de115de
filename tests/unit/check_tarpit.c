/*
 * check_tarpit.c - unit tests for lib/tarpit*.c: held seconds, sources,
 * the duration rules, full frontends, the notes on missing fields, the
 * haproxy.cfg maxconn reader and the report sections.  Records are built by
 * hand (what a parsed httplog line gives); every expected number is worked
 * out in the comment above its test.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lbt/tarpit.h"
#include "lbt/tarpit_cfg.h"
#include "lbt/tarpit_report.h"

#define T0 1762000000LL                 /* 2025-11-01T12:26:40Z, a 10 s boundary */
#define US(s) ((int64_t)((s) * 1e6 + ((s) >= 0 ? 0.5 : -0.5)))

/*
 * An httplog record (clock REQUEST, %tr): time T0 + at seconds, client,
 * TR/Tw/Tc/Tr/Ta (TR -1 and Tc/Tr -1 on tarpit lines, as HAProxy logs
 * them), termination state, ac = fc.  Frontend fe_http, no lb, file
 * "h.log" at line `line`.
 */
static void http(lbt_rec *r, double at, const char *client, int tw, int ta,
    const char *term, int fc, uint64_t line)
{
	int tarpit = term[1] == 'T';

	lbt_rec_clear(r);
	r->clock = LBT_CLOCK_REQUEST;
	r->time_us = US(T0 + at);
	ck_assert_int_eq(lbt_addr_parse(client, strlen(client), &r->client), 0);
	r->frontend = lbt_str_make("fe_http", 7);
	r->tr = tarpit ? -1 : 0;
	r->tw = tw;
	r->tc = tarpit ? -1 : 0;
	r->tresp = tarpit ? -1 : 1;
	r->ta = ta;
	r->term = lbt_str_make(term, strlen(term));
	r->ac = r->fc = fc;
	r->file = "h.log";
	r->line = line;
	r->have = LBT_BIT(LBT_F_TIME) | LBT_BIT(LBT_F_CLIENT) | LBT_BIT(LBT_F_FRONTEND) |
	    LBT_BIT(LBT_F_TR) | LBT_BIT(LBT_F_TW) | LBT_BIT(LBT_F_TC) | LBT_BIT(LBT_F_TRESP) |
	    LBT_BIT(LBT_F_TA) | LBT_BIT(LBT_F_TERM) | LBT_BIT(LBT_F_AC) | LBT_BIT(LBT_F_FC) |
	    LBT_BIT(LBT_F_FILE) | LBT_BIT(LBT_F_LINE);
}

/* An accumulator with the given maxconn (0: none). */
static lbt_tarpit *tp(int32_t maxconn)
{
	lbt_tarpit_opts o = LBT_TARPIT_OPTS_INIT;
	lbt_tarpit *t;
	lbt_err err;

	o.maxconn = maxconn;
	t = lbt_tarpit_new(&o, &err);
	ck_assert_ptr_nonnull(t);
	return t;
}

/* Add r, failing on error. */
static void add(lbt_tarpit *t, const lbt_rec *r)
{
	ck_assert_int_eq(lbt_tarpit_add(t, r), 0);
}

/* Finish, failing on error. */
static void finish(lbt_tarpit *t)
{
	lbt_err err;

	ck_assert_int_eq(lbt_tarpit_finish(t, &err), 0);
}

/* 1 when some note contains `s`. */
static int has_note(const lbt_tarpit *t, const char *s)
{
	size_t i;

	for (i = 0; i < lbt_tarpit_nnotes(t); i++)
		if (strstr(lbt_tarpit_note_at(t, i)->text, s) != NULL)
			return 1;
	return 0;
}

/*
 * 203.0.113.7: PT with Tw 1502, 1502, 5002 (Ta 1501, 1501, 5001): held
 * 8006 ms by Tw, 8003 by Ta.  2001:db8:bad:1::10 and ::20 (one /64): PT
 * with Tw 1000 and 2000 (Ta 999, 1999): 3000 / 2998.  198.51.100.9: one
 * normal request and one CT (Tw 700, not counted as held).  Group: 5 PT,
 * 1 CT, 11006 ms by Tw, 11001 by Ta.  Ranking by held Tw: the IPv4, the
 * /64 (2 requests), then 198.51.100.9.
 */
START_TEST(held_and_sources)
{
	lbt_tarpit *t = tp(0);
	const lbt_tarpit_group *g;
	const lbt_tarpit_source *s;
	char b[64];
	lbt_rec r;

	http(&r, 0, "203.0.113.7", 1502, 1501, "PT--", 3, 1), add(t, &r);
	http(&r, 1, "203.0.113.7", 1502, 1501, "PT--", 3, 2), add(t, &r);
	http(&r, 2, "2001:db8:bad:1::10", 1000, 999, "PT--", 3, 3), add(t, &r);
	http(&r, 3, "2001:db8:bad:1::20", 2000, 1999, "PT--", 3, 4), add(t, &r);
	http(&r, 4, "203.0.113.7", 5002, 5001, "PT--", 3, 5), add(t, &r);
	http(&r, 5, "198.51.100.9", 0, 3, "----", 1, 6), add(t, &r);
	http(&r, 6, "198.51.100.9", 700, 699, "CT--", 1, 7), add(t, &r);
	finish(t);
	ck_assert_uint_eq(lbt_tarpit_ngroups(t), 1);
	g = lbt_tarpit_group_at(t, 0);
	ck_assert_str_eq(g->frontend, "fe_http");
	ck_assert_str_eq(g->lb, "");
	ck_assert_uint_eq(g->requests, 7);
	ck_assert_uint_eq(g->pt, 5);
	ck_assert_uint_eq(g->ct, 1);
	ck_assert_int_eq(g->held_tw_ms, 11006);
	ck_assert_int_eq(g->held_ta_ms, 11001);
	ck_assert_uint_eq(lbt_tarpit_nsources(t), 3);
	s = lbt_tarpit_source_at(t, 0);
	ck_assert_str_eq(lbt_addr_format(&s->net, b, sizeof b), "203.0.113.7");
	ck_assert_int_eq(s->held_tw_ms, 8006);
	ck_assert_int_eq(s->held_ta_ms, 8003);
	ck_assert_uint_eq(s->requests, 3);
	ck_assert_uint_eq(s->line, 1);
	ck_assert_int_eq(s->first_us, US(T0));
	ck_assert_int_eq(s->last_us, US(T0 + 4));
	s = lbt_tarpit_source_at(t, 1);
	ck_assert_int_eq(s->bits, 64);
	ck_assert_str_eq(lbt_addr_format(&s->net, b, sizeof b), "2001:db8:bad:1::");
	ck_assert_uint_eq(s->requests, 2);
	ck_assert_int_eq(s->held_tw_ms, 3000);
	s = lbt_tarpit_source_at(t, 2);
	ck_assert_uint_eq(s->pt, 0);
	ck_assert_uint_eq(s->ct, 1);
	ck_assert_int_eq(s->held_tw_ms, 0);
	ck_assert_uint_eq(s->line, 7);            /* evidence: its tarpit line */
	ck_assert(has_note(t, "TR is -1"));
	ck_assert(has_note(t, "1 request left during the tarpit (CT)"));
	ck_assert(has_note(t, "no maxconn known"));
	lbt_tarpit_free(t);
}
END_TEST

/*
 * The brief's example through the accumulator, clock ACCEPT with Tt:
 * A [0,2] (PT), B [1,3], C [1.5,1.6].  Max 3 at 1.5, 4.1 slot-seconds, 2 of
 * them tarpit (48.8 %).  maxconn 3, 90 %: threshold ceil(2.7) = 3: one
 * period [1.5, 1.6).  Denied at once, A holds nothing: peak 2, no period.
 */
START_TEST(occupancy_whatif)
{
	lbt_tarpit *t = tp(3);
	const lbt_tarpit_group *g;
	const lbt_occ_stats *os;
	const lbt_occ_period *p;
	static const struct { double at, tt; const char *term; } req[] = {
		{ 1.5, 0.1, "----" }, { 0, 2, "PT--" }, { 1, 2, "----" },
	};
	size_t i, n;
	lbt_rec r;

	for (i = 0; i < 3; i++) {
		http(&r, req[i].at, "192.0.2.1", -1, -1, req[i].term, 1, i + 1);
		r.clock = LBT_CLOCK_ACCEPT;
		r.tt = (int32_t)(req[i].tt * 1000);
		r.have |= LBT_BIT(LBT_F_TT);
		add(t, &r);
	}
	finish(t);
	g = lbt_tarpit_group_at(t, 0);
	ck_assert_int_eq(g->threshold, 3);
	ck_assert_uint_eq(g->dur_rules[LBT_DUR_TT], 3);
	os = lbt_occ_stats_get(g->occ);
	ck_assert_int_eq(os->peak, 3);
	ck_assert_int_eq(os->peak_at_us, US(T0 + 1.5));
	ck_assert_int_eq(os->peak_tarpit, 1);
	ck_assert_int_eq(os->slot_us, US(4.1));
	ck_assert_int_eq(os->tarpit_us, US(2));
	ck_assert_int_eq(os->peak_nt, 2);
	p = lbt_occ_periods(g->occ, 0, &n);
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(p[0].start_us, US(T0 + 1.5));
	ck_assert_int_eq(p[0].end_us, US(T0 + 1.6));
	lbt_occ_periods(g->occ, 1, &n);
	ck_assert_uint_eq(n, 0);
	ck_assert(has_note(t, "Tt for 3 (accept to close)"));
	lbt_tarpit_free(t);
}
END_TEST

/* Interval of one record in a fresh accumulator: [first_us, last_us]. */
static void interval(lbt_rec *r, int64_t *s, int64_t *e, unsigned *rule)
{
	lbt_tarpit *t = tp(0);
	const lbt_tarpit_group *g;
	unsigned m;

	add(t, r);
	finish(t);
	g = lbt_tarpit_group_at(t, 0);
	*s = g->first_us;
	*e = g->last_us;
	*rule = 0;
	for (m = 1; m < LBT_DUR_NRULES; m++)
		if (g->dur_rules[m])
			*rule = m;
	lbt_tarpit_free(t);
}

/*
 * Duration rules at time T0 + 10:
 * - %tr with Ta 1500, no Th/Ti: [10, 11.5], rule Ta.
 * - with Th 100 and Ti 400: the accept was 0.5 s earlier: [9.5, 11.5],
 *   rule Th+Ti+Ta.
 * - NGINX (clock END) with Ta 1500: [8.5, 10].
 * - no Tt/Ta: TR 5 + Tw 10 + Tc 1 + Tr 20 = 36 ms: [10, 10.036].
 * - no timer at all: no interval.
 */
START_TEST(duration_rules)
{
	int64_t s, e;
	unsigned m;
	char b[64];
	lbt_rec r;

	http(&r, 10, "192.0.2.1", 0, 1500, "----", 1, 1);
	interval(&r, &s, &e, &m);
	ck_assert_int_eq(s, US(T0 + 10));
	ck_assert_int_eq(e, US(T0 + 11.5));
	ck_assert_uint_eq(m, LBT_DUR_TA);
	r.th = 100, r.ti = 400, r.have |= LBT_BIT(LBT_F_TH) | LBT_BIT(LBT_F_TI);
	interval(&r, &s, &e, &m);
	ck_assert_int_eq(s, US(T0 + 9.5));
	ck_assert_int_eq(e, US(T0 + 11.5));
	ck_assert_str_eq(lbt_tarpit_rule_name(m, b, sizeof b), "Th+Ti+Ta");
	http(&r, 10, "192.0.2.1", 0, 1500, "----", 1, 1);
	r.clock = LBT_CLOCK_END;
	interval(&r, &s, &e, &m);
	ck_assert_int_eq(s, US(T0 + 8.5));
	ck_assert_int_eq(e, US(T0 + 10));
	http(&r, 10, "192.0.2.1", 10, 0, "----", 1, 1);
	r.tr = 5, r.tc = 1, r.tresp = 20, r.have &= ~LBT_BIT(LBT_F_TA);
	interval(&r, &s, &e, &m);
	ck_assert_int_eq(e - s, 36000);
	ck_assert_str_eq(lbt_tarpit_rule_name(m, b, sizeof b), "TR+Tw+Tc+Tr");
	r.have &= ~(LBT_BIT(LBT_F_TR) | LBT_BIT(LBT_F_TW) | LBT_BIT(LBT_F_TC) |
	    LBT_BIT(LBT_F_TRESP));
	interval(&r, &s, &e, &m);
	ck_assert_uint_eq(m, 0);
}
END_TEST

/*
 * maxconn 20, fc full at >= 19.  Bucket [T0, T0+10): fc 12 (ends 0.5 s),
 * fc 20 (line 2), fc 19; bucket [T0+10, +20): fc 5; bucket [T0+20, +30):
 * fc 19 (line 5).  Full buckets: 2 (the first and the third), fc 19..20,
 * evidence h.log:2 (the largest fc of the first one).  Lines end at
 * at + Ta: the bucket is that of the end.
 */
START_TEST(full_frontend)
{
	lbt_tarpit *t = tp(20);
	const lbt_tarpit_group *g;
	lbt_rec r;

	http(&r, 0, "192.0.2.1", 0, 500, "----", 12, 1), add(t, &r);
	http(&r, 1, "192.0.2.1", 0, 500, "----", 20, 2), add(t, &r);
	http(&r, 2, "192.0.2.1", 0, 500, "----", 19, 3), add(t, &r);
	http(&r, 12, "192.0.2.1", 0, 500, "----", 5, 4), add(t, &r);
	http(&r, 21, "192.0.2.1", 0, 500, "----", 19, 5), add(t, &r);
	finish(t);
	g = lbt_tarpit_group_at(t, 0);
	ck_assert_int_eq(g->fc_max, 20);
	ck_assert_uint_eq(g->full_buckets, 2);
	ck_assert_int_eq(g->full_first, T0 / 10);
	ck_assert_int_eq(g->full_last, T0 / 10 + 2);
	ck_assert_int_eq(g->full_fc_lo, 19);
	ck_assert_str_eq(g->full_file, "h.log");
	ck_assert_uint_eq(g->full_line, 2);
	ck_assert(has_note(t, "fe_http was full: the logged fc reached maxconn 20 (>= 19) in "
	    "2 buckets of 10s, the first at 2025-11-01T12:26:40Z, the last ending "
	    "2025-11-01T12:27:10Z "
	    "(fc 19..20; e.g. h.log:2)"));
	ck_assert(has_note(t, "These logs understate waiting and lost connections"));
	lbt_tarpit_free(t);
}
END_TEST

/* A tcplog-like record (no termination state kept, no fc, no timers) gives
 * the missing-field notes, not zeros. */
START_TEST(missing_fields)
{
	lbt_tarpit *t = tp(20);
	lbt_rec r;

	http(&r, 0, "192.0.2.1", 0, 500, "----", 1, 1);
	r.have &= ~(LBT_BIT(LBT_F_TERM) | LBT_BIT(LBT_F_FC) | LBT_BIT(LBT_F_AC) |
	    LBT_BIT(LBT_F_TR) | LBT_BIT(LBT_F_TW) | LBT_BIT(LBT_F_TC) | LBT_BIT(LBT_F_TRESP) |
	    LBT_BIT(LBT_F_TA));
	add(t, &r);
	finish(t);
	ck_assert(has_note(t, "no termination state in this format: cannot tell tarpitted "
	    "requests (PT) from others"));
	ck_assert(has_note(t, "no fc (feconn) in this format"));
	ck_assert(has_note(t, "no Tt, Ta or TR/Tw/Tc/Tr timers in this format: slot "
	    "occupancy cannot be rebuilt"));
	ck_assert_uint_eq(lbt_tarpit_stats_get(t)->no_term, 1);
	lbt_tarpit_free(t);

	/* PT lines without Tw, or without Ta */
	t = tp(0);
	http(&r, 0, "192.0.2.1", 1500, 1500, "PT--", 1, 1);
	r.have &= ~LBT_BIT(LBT_F_TW);
	add(t, &r);
	http(&r, 1, "192.0.2.1", 1500, 1500, "PT--", 1, 2);
	add(t, &r);
	finish(t);
	ck_assert(has_note(t, "1 of 2 tarpitted (PT) lines carry no Tw"));
	ck_assert_int_eq(lbt_tarpit_group_at(t, 0)->held_tw_ms, 1500);
	ck_assert_int_eq(lbt_tarpit_group_at(t, 0)->held_ta_ms, 3000);
	lbt_tarpit_free(t);
}
END_TEST

/* Groups are per (lb, frontend), sorted; events are skipped. */
START_TEST(groups)
{
	lbt_tarpit *t = tp(0);
	lbt_rec r;

	http(&r, 0, "192.0.2.1", 0, 5, "----", 1, 1);
	r.lb = lbt_str_make("lb2", 3), r.have |= LBT_BIT(LBT_F_LB);
	add(t, &r);
	http(&r, 0, "192.0.2.1", 0, 5, "----", 1, 2);
	r.lb = lbt_str_make("lb1", 3), r.have |= LBT_BIT(LBT_F_LB);
	add(t, &r);
	add(t, &r);
	r.kind = LBT_KIND_EVENT;
	add(t, &r);
	finish(t);
	ck_assert_uint_eq(lbt_tarpit_ngroups(t), 2);
	ck_assert_str_eq(lbt_tarpit_group_at(t, 0)->lb, "lb1");
	ck_assert_uint_eq(lbt_tarpit_group_at(t, 0)->requests, 2);
	ck_assert_str_eq(lbt_tarpit_group_at(t, 1)->lb, "lb2");
	ck_assert_uint_eq(lbt_tarpit_stats_get(t)->records, 4);
	ck_assert_uint_eq(lbt_tarpit_stats_get(t)->requests, 3);
	lbt_tarpit_free(t);
}
END_TEST

/* Write text to a new temporary file.  @return its path (static buffer). */
static const char *tmpfile_with(const char *text)
{
	static char path[64];
	int fd;

	strcpy(path, "/tmp/check_tarpit_XXXXXX");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

static const char cfg_text[] =
	"global\n"                                   /* 1 */
	"\tmaxconn 4000\n"                           /* 2 */
	"defaults\n"                                 /* 3 */
	"\tmode http\n"                              /* 4 */
	"\tmaxconn 3000\n"                           /* 5 */
	"frontend fe_a\n"                            /* 6 */
	"\tbind :80\n"                               /* 7 */
	"\tmaxconn 20   # small on purpose\n"        /* 8 */
	"frontend \"fe_b\"\n"                        /* 9 */
	"\tbind :81\n"                               /* 10 */
	"defaults named\n"                           /* 11 */
	"\tmaxconn 0\n"                              /* 12 */
	"frontend fe_c\n"                            /* 13 */
	"listen li from named\n"                     /* 14 */
	"\t# maxconn 5\n"                            /* 15 */
	"\tmaxconn 7\n"                              /* 16 */
	"backend be\n"                               /* 17 */
	"\tmaxconn 99\n";                            /* 18 */

/*
 * fe_a: its own 20 (line 8), also when logged as "fe_a~".  fe_b: the
 * unnamed defaults' 3000 (line 5).  fe_c: after "defaults named", whose 0
 * means the global 4000 (line 2).  li: its own 7 (the comment is skipped).
 * Unknown proxy: 0.  A backend's maxconn is not a frontend's.
 */
START_TEST(cfg_maxconn)
{
	const char *path = tmpfile_with(cfg_text);
	lbt_maxconn_cfg *c;
	char where[320], want[400];
	lbt_err err;

	c = lbt_maxconn_cfg_read(path, &err);
	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(lbt_maxconn_cfg_get(c, "fe_a", 4, where, sizeof where), 20);
	snprintf(want, sizeof want, "%s:8 (frontend fe_a)", path);
	ck_assert_str_eq(where, want);
	ck_assert_int_eq(lbt_maxconn_cfg_get(c, "fe_a~", 5, NULL, 0), 20);
	ck_assert_int_eq(lbt_maxconn_cfg_get(c, "fe_b", 4, where, sizeof where), 3000);
	snprintf(want, sizeof want, "%s:5 (defaults)", path);
	ck_assert_str_eq(where, want);
	ck_assert_int_eq(lbt_maxconn_cfg_get(c, "fe_c", 4, where, sizeof where), 4000);
	snprintf(want, sizeof want, "%s:2 (global)", path);
	ck_assert_str_eq(where, want);
	ck_assert_int_eq(lbt_maxconn_cfg_get(c, "li", 2, NULL, 0), 7);
	ck_assert_int_eq(lbt_maxconn_cfg_get(c, "be", 2, NULL, 0), 0);
	ck_assert_int_eq(lbt_maxconn_cfg_get(c, "nope", 4, NULL, 0), 0);
	ck_assert_int_eq(lbt_maxconn_cfg_global(c, NULL, 0), 4000);
	lbt_maxconn_cfg_free(c);
	unlink(path);
}
END_TEST

/* Bad maxconn values and unknown `from` names are errors with file:line;
 * a missing file names the file. */
START_TEST(cfg_errors)
{
	const char *path = tmpfile_with("frontend f\n\tbind :80\n\tmaxconn lots\n");
	lbt_err err;

	ck_assert_ptr_null(lbt_maxconn_cfg_read(path, &err));
	ck_assert_str_eq(err.file, path);
	ck_assert_uint_eq(err.line, 3);
	ck_assert_str_eq(err.msg, "maxconn: 'lots' is not a number in 0..2147483647");
	unlink(path);
	path = tmpfile_with("defaults a\nfrontend f from b\n");
	ck_assert_ptr_null(lbt_maxconn_cfg_read(path, &err));
	ck_assert_uint_eq(err.line, 2);
	ck_assert_str_eq(err.msg, "'from b': no defaults section of that name above");
	unlink(path);
	ck_assert_ptr_null(lbt_maxconn_cfg_read("/nonexistent/haproxy.cfg", &err));
	ck_assert_str_eq(err.file, "/nonexistent/haproxy.cfg");
	ck_assert_str_eq(err.msg, "No such file or directory");
}
END_TEST

#define INHERIT LBT_TEST_DATA "/tarpit/inherit.cfg"

/*
 * maxconn inheritance as HAProxy 2.6.12 applies it: the values in the
 * comment of tests/data/tarpit/inherit.cfg come from HAProxy's own "show
 * stat".  fe_d: its own "maxconn 0" means the global 4000 (line 8), not
 * its defaults' 3000; fe_e: d3k's 3000 through "defaults child from d3k"
 * (line 42); fe_h: d5's 500 through an unnamed "defaults from d5" (line
 * 55); fe_b: the unnamed defaults' 3000 (line 15).
 */
START_TEST(cfg_inherit)
{
	static const struct { const char *fe; int32_t want; } v[] = {
		{ "fe_a", 20 }, { "fe_b", 3000 }, { "fe_c", 4000 }, { "li", 7 },
		{ "fe_d", 4000 }, { "fe_e", 3000 }, { "fe_f", 500 }, { "fe_g", 4000 },
		{ "fe_h", 500 },
	};
	lbt_err err;
	lbt_maxconn_cfg *c = lbt_maxconn_cfg_read(INHERIT, &err);
	char where[320];

	ck_assert_msg(c != NULL, "%s", err.msg);
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
		ck_assert_msg(lbt_maxconn_cfg_get(c, v[i].fe, strlen(v[i].fe), NULL, 0) == v[i].want,
		    "%s", v[i].fe);
	lbt_maxconn_cfg_get(c, "fe_d", 4, where, sizeof where);
	ck_assert_str_eq(where, INHERIT ":8 (global)");
	lbt_maxconn_cfg_get(c, "fe_e", 4, where, sizeof where);
	ck_assert_str_eq(where, INHERIT ":42 (defaults d3k)");
	lbt_maxconn_cfg_get(c, "fe_h", 4, where, sizeof where);
	ck_assert_str_eq(where, INHERIT ":55 (defaults d5)");
	lbt_maxconn_cfg_get(c, "fe_b", 4, where, sizeof where);
	ck_assert_str_eq(where, INHERIT ":15 (defaults)");
	lbt_maxconn_cfg_free(c);
}
END_TEST

/* maxconn from the cfg reaches the groups, with where it came from. */
START_TEST(cfg_in_groups)
{
	const char *path = tmpfile_with(cfg_text);
	lbt_tarpit_opts o = LBT_TARPIT_OPTS_INIT;
	lbt_maxconn_cfg *c;
	lbt_tarpit *t;
	lbt_err err;
	char want[400];
	lbt_rec r;

	c = lbt_maxconn_cfg_read(path, &err);
	ck_assert_ptr_nonnull(c);
	lbt_tarpit_cfg_use(&o, c);
	t = lbt_tarpit_new(&o, &err);
	http(&r, 0, "192.0.2.1", 0, 5, "----", 1, 1);
	r.frontend = lbt_str_make("fe_a~", 5);
	add(t, &r);
	finish(t);
	ck_assert_int_eq(lbt_tarpit_group_at(t, 0)->maxconn, 20);
	ck_assert_int_eq(lbt_tarpit_group_at(t, 0)->threshold, 18);
	snprintf(want, sizeof want, "%s:8 (frontend fe_a)", path);
	ck_assert_str_eq(lbt_tarpit_group_at(t, 0)->maxconn_from, want);
	lbt_tarpit_free(t);
	lbt_maxconn_cfg_free(c);
	unlink(path);
}
END_TEST

/* The text a section writes in TSV. */
static char *section(const lbt_tarpit *t, lbt_tarpit_section s)
{
	lbt_tarpit_print p = { .mode = LBT_OUT_TSV, .header = 1 };
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(fp);
	ck_assert_int_eq(lbt_tarpit_write(t, s, fp, &p), 0);
	fclose(fp);
	return buf;
}

/*
 * The sources and summary of held_and_sources in TSV: 203.0.113.7 holds
 * 8006 of 11006 ms = 72.74 %; the summary's slot-seconds add up every
 * request's Ta (interval rule Ta): 1.501 + 1.501 + 0.999 + 1.999 + 5.001 +
 * 0.003 + 0.699 = 11.703 s, of which tarpitted (PT, CT) 11.7 s = 99.97 %.
 */
START_TEST(report_tsv)
{
	lbt_tarpit *t = tp(0);
	char *out, *nl;
	lbt_rec r;

	http(&r, 0, "203.0.113.7", 1502, 1501, "PT--", 3, 1), add(t, &r);
	http(&r, 1, "203.0.113.7", 1502, 1501, "PT--", 3, 2), add(t, &r);
	http(&r, 2, "2001:db8:bad:1::10", 1000, 999, "PT--", 3, 3), add(t, &r);
	http(&r, 3, "2001:db8:bad:1::20", 2000, 1999, "PT--", 3, 4), add(t, &r);
	http(&r, 4, "203.0.113.7", 5002, 5001, "PT--", 3, 5), add(t, &r);
	http(&r, 5, "198.51.100.9", 0, 3, "----", 1, 6), add(t, &r);
	http(&r, 6, "198.51.100.9", 700, 699, "CT--", 1, 7), add(t, &r);
	finish(t);
	out = section(t, LBT_TARPIT_SOURCES);
	nl = strchr(out, '\n');
	ck_assert_ptr_nonnull(nl);
	ck_assert(strncmp(nl + 1, "203.0.113.7\t3\t3\t0\t8.006\t8.003\t72.7\t"
	    "2025-11-01T12:26:40.000Z\t2025-11-01T12:26:44.000Z\th.log:1\n", 88) == 0);
	ck_assert_ptr_nonnull(strstr(out, "\n2001:db8:bad:1::/64\t2\t2\t0\t3.000\t2.998\t27.3\t"));
	free(out);
	out = section(t, LBT_TARPIT_SUMMARY);
	ck_assert_ptr_nonnull(strstr(out, "\n\tfe_http\t7\t5\t1\t11.006\t11.001\t11.703\t100.0\t"));
	free(out);
	lbt_tarpit_free(t);
}
END_TEST

/* Every section of a finished accumulator, one after the other.
 * @return a malloc'd string. */
static char *all_sections(const lbt_tarpit *t)
{
	static const lbt_tarpit_section secs[] = { LBT_TARPIT_SUMMARY, LBT_TARPIT_PERIODS,
		LBT_TARPIT_SOURCES, LBT_TARPIT_SERIES, LBT_TARPIT_FULL, LBT_TARPIT_NOTES };
	char *buf = NULL, *one;
	size_t len = 0, i;
	FILE *fp = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(fp);
	for (i = 0; i < sizeof secs / sizeof secs[0]; i++) {
		one = section(t, secs[i]);
		fputs(one, fp);
		free(one);
	}
	ck_assert_int_eq(fclose(fp), 0);
	return buf;
}

/*
 * The records of order_evidence: (file, line, at, client, Tw, Ta, term, fc).
 * Each ends at `at` + Ta (clock REQUEST, no Th/Ti), all in the bucket
 * [T0, T0+10).
 */
static const struct ord_rec {
	const char *file;
	uint64_t line;
	double at;
	const char *client;
	int tw, ta;
	const char *term;
	int fc;
} ord_recs[] = {
	{ "b.log", 1, 2.0, "192.0.2.1", 1000, 999, "PT--", 20 },
	{ "b.log", 2, 0.0, "192.0.2.1", 0, 500, "----", 12 },
	{ "a.log", 9, 2.0, "192.0.2.1", 1000, 999, "PT--", 20 },
	{ "a.log", 7, 2.0, "192.0.2.1", 700, 699, "CT--", 20 },
	{ "a.log", 3, 0.5, "192.0.2.1", 0, 500, "----", 19 },
	{ "b.log", 4, 3.0, "192.0.2.2", 0, 500, "----", 5 },
	{ "a.log", 5, 3.0, "192.0.2.2", 0, 500, "----", 5 },
	{ "a.log", 6, 4.0, "192.0.2.2", 0, 500, "----", 5 },
};
#define NORD (sizeof ord_recs / sizeof ord_recs[0])

/* ord_recs in the order perm through a new accumulator (maxconn 20), the
 * file name handed over in one reused buffer as an input may do.
 * @return the finished accumulator. */
static lbt_tarpit *run_order(const size_t *perm)
{
	lbt_tarpit *t = tp(20);
	char fbuf[16];
	size_t i;

	for (i = 0; i < NORD; i++) {
		const struct ord_rec *o = &ord_recs[perm[i]];
		lbt_rec r;

		http(&r, o->at, o->client, o->tw, o->ta, o->term, o->fc, o->line);
		snprintf(fbuf, sizeof fbuf, "%s", o->file);
		r.file = fbuf;
		add(t, &r);
	}
	snprintf(fbuf, sizeof fbuf, "x");
	finish(t);
	return t;
}

/*
 * Evidence independent of the reading order, records in two files with
 * ties in time.  By hand: 192.0.2.1's tarpitted (PT or CT) requests are
 * b.log:1, a.log:9 and a.log:7, all at T0+2: the smallest file name, then
 * line, is a.log:7 (its untarpitted a.log:3 and b.log:2 come earlier but
 * do not count).  192.0.2.2, no tarpitted request: b.log:4 and a.log:5 at
 * T0+3, a.log:6 later: a.log:5.  The bucket [T0, T0+10) reached fc 20 by
 * b.log:1, a.log:9, a.log:7, all at T0+2: a.log:7, in --full and in the
 * note.  Time order, the reverse, b.log before a.log and 100 shuffles all
 * print the same sections.
 */
START_TEST(order_evidence)
{
	size_t perm[NORD], i, j, k;
	uint64_t seed = 42;
	char *ref, *got;
	lbt_tarpit *t;

	for (i = 0; i < NORD; i++)                 /* b.log first, then a.log */
		perm[i] = i;
	for (i = 0, k = 0; i < NORD; i++)
		if (ord_recs[i].file[0] == 'b')
			perm[k++] = i;
	for (i = 0; i < NORD; i++)
		if (ord_recs[i].file[0] == 'a')
			perm[k++] = i;
	t = run_order(perm);
	ck_assert_str_eq(lbt_tarpit_source_at(t, 0)->file, "a.log");
	ck_assert_uint_eq(lbt_tarpit_source_at(t, 0)->line, 7);
	ck_assert_str_eq(lbt_tarpit_source_at(t, 1)->file, "a.log");
	ck_assert_uint_eq(lbt_tarpit_source_at(t, 1)->line, 5);
	ck_assert_str_eq(lbt_tarpit_group_at(t, 0)->full_file, "a.log");
	ck_assert_uint_eq(lbt_tarpit_group_at(t, 0)->full_line, 7);
	ck_assert(has_note(t, "(fc 20; e.g. a.log:7)"));
	ref = all_sections(t);
	ck_assert_ptr_nonnull(strstr(ref,
	    "\tfe_http\t2025-11-01T12:26:40Z\t20\t20\t20\t8\ta.log:7\n"));
	ck_assert_ptr_nonnull(strstr(ref, "Z\ta.log:5\n"));
	lbt_tarpit_free(t);
	for (k = 0; k < 102; k++) {
		for (i = 0; i < NORD; i++)
			perm[i] = k == 1 ? NORD - 1 - i : i;
		for (i = NORD; k > 1 && i > 1; i--) {
			size_t x;

			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			j = (size_t)((seed >> 33) % i);
			x = perm[i - 1], perm[i - 1] = perm[j], perm[j] = x;
		}
		t = run_order(perm);
		got = all_sections(t);
		ck_assert_str_eq(got, ref);
		free(got);
		lbt_tarpit_free(t);
	}
	free(ref);
}
END_TEST

/* Bad options are refused with a message. */
START_TEST(bad_opts)
{
	lbt_tarpit_opts o = LBT_TARPIT_OPTS_INIT;
	lbt_err err;

	o.threshold_pct = 0;
	ck_assert_ptr_null(lbt_tarpit_new(&o, &err));
	ck_assert_ptr_nonnull(strstr(err.msg, "bad options"));
	lbt_tarpit_free(NULL);
	lbt_maxconn_cfg_free(NULL);
}
END_TEST

/* The tarpit suite. */
static Suite *tarpit_suite(void)
{
	Suite *s = suite_create("tarpit");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, held_and_sources);
	tcase_add_test(tc, occupancy_whatif);
	tcase_add_test(tc, duration_rules);
	tcase_add_test(tc, full_frontend);
	tcase_add_test(tc, missing_fields);
	tcase_add_test(tc, groups);
	tcase_add_test(tc, cfg_maxconn);
	tcase_add_test(tc, cfg_errors);
	tcase_add_test(tc, cfg_inherit);
	tcase_add_test(tc, cfg_in_groups);
	tcase_add_test(tc, report_tsv);
	tcase_add_test(tc, bad_opts);
	tcase_add_test(tc, order_evidence);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(tarpit_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
