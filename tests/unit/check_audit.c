/*
 * check_audit.c - unit tests for lib/audit/: HAProxy times, the rules and
 * conditions of a proxy (ACL lines, { } blocks, '!', or / ||, stick
 * counters with their table, operator and value), the evaluation of Host
 * patterns on a logged Host (str, -i, beg, end, sub, dom, reg, found, base,
 * lower, and what cannot be told), configuration lines written back, and
 * the configuration findings through the public API.
 *
 * The expected values are written by hand from HAProxy 2.6's
 * configuration.txt (§7.1 matching methods, §2.5 time units); the
 * configurations of the API tests are accepted by `haproxy -c` 2.6.12.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lbt/audit.h"
#include "lbt/hacfg.h"
#include "../../lib/audit/audit_int.h"

/* Write text to a new temporary file.  @return its path (static). */
static const char *tmpcfg(const char *text)
{
	static char path[64];
	int fd;

	strcpy(path, "/tmp/check_audit_XXXXXX");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

/* The configuration `text` and the rules of its last section. */
struct fixture {
	lbt_hacfg *c;
	struct au_rules r;
};

/* Read text, then the rules of its last section into f. */
static void load(struct fixture *f, const char *text)
{
	const char *path = tmpcfg(text);
	lbt_err err;

	f->c = lbt_hacfg_read(path, NULL, &err);
	unlink(path);
	ck_assert_msg(f->c != NULL, "%s", err.msg);
	ck_assert_int_eq(lbt_auditi_rules_read(&f->r,
	    lbt_hacfg_at(f->c, lbt_hacfg_count(f->c) - 1)), 0);
}

/* Free f. */
static void unload(struct fixture *f)
{
	lbt_auditi_rules_free(&f->r);
	lbt_hacfg_free(f->c);
}

START_TEST(times)
{
	ck_assert_int_eq(lbt_auditi_time_ms("1s"), 1000);
	ck_assert_int_eq(lbt_auditi_time_ms("500"), 500);      /* ms by default */
	ck_assert_int_eq(lbt_auditi_time_ms("1500ms"), 1500);
	ck_assert_int_eq(lbt_auditi_time_ms("2m"), 120000);
	ck_assert_int_eq(lbt_auditi_time_ms("3h"), 10800000);
	ck_assert_int_eq(lbt_auditi_time_ms("1d"), 86400000);
	ck_assert_int_eq(lbt_auditi_time_ms("2500us"), 2);
	ck_assert_int_eq(lbt_auditi_time_ms("5q"), -1);
	ck_assert_int_eq(lbt_auditi_time_ms("s"), -1);
	ck_assert_int_eq(lbt_auditi_time_ms(""), -1);
}
END_TEST

START_TEST(counters)
{
	struct fixture f;
	const struct au_rule *u;
	const struct au_pat *c;

	load(&f, "frontend fe\n"
	    "  acl fast sc_http_req_rate(1,st) gt 20\n"
	    "  http-request track-sc1 src table st\n"
	    "  http-request tarpit if fast\n"
	    "  http-request deny if { sc0_conn_cur ge 5 } || { src,table_http_req_rate(t2) 7 }\n"
	    "  tcp-request connection reject if { src_conn_rate(t3) gt 100 }\n"
	    "  http-request deny if { path_beg /x }\n");
	ck_assert_uint_eq(f.r.nrule, 5);
	u = &f.r.rule[0];
	ck_assert_str_eq(u->action, "track-sc1");
	ck_assert_int_eq(u->track, 1);
	ck_assert_str_eq(u->track_table, "st");
	ck_assert_int_eq(u->limit, 0);
	u = &f.r.rule[1];
	ck_assert_int_eq(u->limit, 1);
	c = lbt_auditi_rate_counter(u);
	ck_assert_ptr_nonnull(c);
	ck_assert_str_eq(c->counter, "http_req_rate");
	ck_assert_int_eq(c->sc, 1);
	ck_assert_str_eq(c->table, "st");
	ck_assert_int_eq(c->op, AU_OP_GT);
	ck_assert_int_eq(c->value, 20);
	u = &f.r.rule[2];                          /* two branches */
	ck_assert_uint_eq(u->cond.nbr, 2);
	c = lbt_auditi_counter(&u->cond.br[0]);
	ck_assert_str_eq(c->counter, "conn_cur");
	ck_assert_int_eq(c->sc, 0);
	ck_assert_int_eq(c->op, AU_OP_GE);
	c = lbt_auditi_counter(&u->cond.br[1]);
	ck_assert_str_eq(c->counter, "http_req_rate");   /* the table_ converter */
	ck_assert_int_eq(c->sc, -1);
	ck_assert_str_eq(c->table, "t2");
	ck_assert_int_eq(c->op, AU_OP_EQ);               /* a bare value */
	ck_assert_int_eq(c->value, 7);
	c = lbt_auditi_rate_counter(&f.r.rule[3]);       /* tcp-request connection */
	ck_assert_str_eq(f.r.rule[3].action, "reject");
	ck_assert_str_eq(c->counter, "conn_rate");
	ck_assert_str_eq(c->table, "t3");
	ck_assert_ptr_null(lbt_auditi_rate_counter(&f.r.rule[4]));
	unload(&f);
}
END_TEST

START_TEST(not_rate_limits)
{
	struct fixture f;

	load(&f, "frontend fe\n"
	    "  acl fast sc_http_req_rate(0) gt 20\n"
	    "  http-request tarpit unless fast\n"          /* unless: not a rate limit */
	    "  http-request tarpit if !fast\n"             /* negated */
	    "  http-request tarpit if { src_port lt 1024 }\n"   /* not a counter */
	    "  http-request tarpit\n");
	ck_assert_uint_eq(f.r.nrule, 4);
	for (size_t i = 0; i < 4; i++)
		ck_assert_ptr_null(lbt_auditi_rate_counter(&f.r.rule[i]));
	ck_assert_int_eq(f.r.rule[1].cond.br[0].t[0].neg, 1);
	unload(&f);
}
END_TEST

/* Whether branch 0 of rule 0 of frontend lines `acls` + rule lets host
 * and path through. */
static int host_ok(const char *lines, const char *host, const char *path)
{
	char text[2048];
	struct fixture f;
	int r;

	snprintf(text, sizeof text, "frontend fe\n%s", lines);
	load(&f, text);
	ck_assert_uint_ge(f.r.nrule, 1);
	r = lbt_auditi_host_ok(&f.r.rule[0].cond.br[0], host, path);
	unload(&f);
	return r;
}

#define RULE(c) "  http-request deny if " c " { sc0_http_req_rate gt 10 }\n"

START_TEST(host_methods)
{
	/* str: exact, case-sensitive without -i */
	ck_assert_int_eq(host_ok(RULE("{ hdr(host) api.example.com }"), "api.example.com", "/"), 1);
	ck_assert_int_eq(host_ok(RULE("{ hdr(host) api.example.com }"), "API.example.com", "/"), 0);
	ck_assert_int_eq(host_ok(RULE("{ hdr(host) -i api.example.com }"), "API.example.com", "/"),
	    1);
	ck_assert_int_eq(host_ok(RULE("{ req.hdr(Host),lower api.example.com }"), "API.Example.com",
	    "/"), 1);
	ck_assert_int_eq(host_ok(RULE("{ hdr(host) -i a.example b.example }"), "b.example", "/"),
	    1);
	/* the port is part of the Host header */
	ck_assert_int_eq(host_ok(RULE("{ hdr(host) api.example.com }"), "api.example.com:80", "/"),
	    0);
	ck_assert_int_eq(host_ok(RULE("{ hdr_beg(host) api. }"), "api.example.com", "/"), 1);
	ck_assert_int_eq(host_ok(RULE("{ hdr(host) -m beg www. }"), "api.example.com", "/"), 0);
	ck_assert_int_eq(host_ok(RULE("{ hdr_end(host) .com }"), "api.example.com", "/"), 1);
	ck_assert_int_eq(host_ok(RULE("{ hdr_sub(host) ample }"), "api.example.com", "/"), 1);
	/* dom: between '.', '/', '?', ':' or the ends */
	ck_assert_int_eq(host_ok(RULE("{ hdr_dom(host) example.com }"), "api.example.com", "/"), 1);
	ck_assert_int_eq(host_ok(RULE("{ hdr_dom(host) ample.com }"), "api.example.com", "/"), 0);
	ck_assert_int_eq(host_ok(RULE("{ hdr_dom(host) api }"), "api.example.com:8080", "/"), 1);
	ck_assert_int_eq(host_ok(RULE("{ hdr_reg(host) ^(api|www)\\.example\\.com$ }"),
	    "www.example.com", "/"), 1);
	ck_assert_int_eq(host_ok(RULE("{ hdr(host) -m reg -i ^API\\. }"), "api.example.com", "/"),
	    1);
	ck_assert_int_eq(host_ok(RULE("{ hdr(host) -m found }"), "x", "/"), 1);
	/* base: host and path */
	ck_assert_int_eq(host_ok(RULE("{ base_beg api.example.com/ping/ }"), "api.example.com",
	    "/ping/x"), 1);
	ck_assert_int_eq(host_ok(RULE("{ base_beg api.example.com/ping/ }"), "api.example.com",
	    "/x"), 0);
	ck_assert_int_eq(host_ok(RULE("{ base api.example.com/x }"), "api.example.com", "/x"), 1);
}
END_TEST

START_TEST(host_terms)
{
	/* a named ACL on two lines is their OR */
	ck_assert_int_eq(host_ok("  acl h hdr(host) a.example\n  acl h hdr(host) b.example\n"
	    RULE("h"), "b.example", "/"), 1);
	ck_assert_int_eq(host_ok("  acl h hdr(host) a.example\n" RULE("!h"), "a.example", "/"), 0);
	ck_assert_int_eq(host_ok("  acl h hdr(host) a.example\n" RULE("!h"), "b.example", "/"), 1);
	ck_assert_int_eq(host_ok("  acl h hdr(host) a.example\n" RULE("! h"), "b.example", "/"), 1);
	/* two Host terms: both */
	ck_assert_int_eq(host_ok(RULE("{ hdr_end(host) .example } { hdr_beg(host) a. }"),
	    "b.example", "/"), 0);
	/* no Host term: every Host */
	ck_assert_int_eq(host_ok(RULE("{ path_beg /ping }"), "anything", "/"), 1);
	/* what cannot be told */
	ck_assert_int_eq(host_ok(RULE("{ hdr(host) -f /etc/hosts.lst }"), "a", "/"), -1);
	ck_assert_int_eq(host_ok(RULE("{ hdr(host),field(1,:) a }"), "a", "/"), -1);
	ck_assert_int_eq(host_ok(RULE("{ hdr(host) -m len 5 }"), "a", "/"), -1);
}
END_TEST

START_TEST(lines_written_back)
{
	struct fixture f;
	char buf[512];
	const lbt_hacfg_dir *d;

	load(&f, "frontend fe\n  http-request return status 429 string \"slow down\" "
	    "if { sc0_http_req_rate gt 9 }\n");
	d = f.r.rule[0].dir;
	ck_assert_str_eq(lbt_auditi_line(d, 0, 0, "", buf, sizeof buf),
	    "http-request return status 429 string \"slow down\" if { sc0_http_req_rate gt 9 }");
	ck_assert_str_eq(lbt_auditi_line(d, 1, 6, "deny", buf, sizeof buf),
	    "http-request deny if { sc0_http_req_rate gt 9 }");
	ck_assert_str_eq(lbt_auditi_line(d, 11, 11, "x y", buf, sizeof buf),
	    "http-request return status 429 string \"slow down\" if "
	    "{ sc0_http_req_rate gt 9 x y }");
	ck_assert_str_eq(lbt_auditi_line(d, 13, 13, "end", buf, sizeof buf),
	    "http-request return status 429 string \"slow down\" if "
	    "{ sc0_http_req_rate gt 9 } end");
	unload(&f);
}
END_TEST

/* ---- the public API ------------------------------------------------------ */

/* The findings of configuration text without logs, one line each:
 * "sev check line proxy | change". */
static const char *findings(const char *text, const char *proxy)
{
	static char out[4096];
	lbt_audit_opts o = LBT_AUDIT_OPTS_INIT;
	const char *path = tmpcfg(text);
	lbt_err err;
	lbt_audit *a;
	size_t n = 0;

	o.proxy = proxy;
	a = lbt_audit_new(path, &o, &err);
	unlink(path);
	ck_assert_msg(a != NULL, "%s", err.msg);
	ck_assert_int_eq(lbt_audit_run(a, 0, &err), 0);
	out[0] = '\0';
	for (size_t i = 0; i < lbt_audit_nfindings(a); i++) {
		const lbt_audit_finding *f = lbt_audit_finding_at(a, i);

		n += (size_t)snprintf(out + n, sizeof out - n, "%s %s %llu %s | %s\n",
		    lbt_audit_sev_name(f->sev), f->check, (unsigned long long)f->line, f->proxy,
		    f->change);
	}
	lbt_audit_free(a);
	return out;
}

#define DEFAULTS "defaults\n  mode http\n  timeout connect 1s\n  timeout client 10s\n" \
	"  timeout server 10s\n  timeout http-request 5s\n"

START_TEST(api_findings)
{
	/* lines 1-6 defaults; 7 frontend; 8 bind; 9 table; 10 track; 11 the rule */
	ck_assert_str_eq(findings(DEFAULTS "frontend fe\n  bind :1\n"
	    "  stick-table type ip size 1k store http_req_rate(1s)\n"
	    "  http-request track-sc0 src\n"
	    "  http-request tarpit if { sc0_http_req_rate gt 4 }\n", NULL),
	    "warn tarpit-no-hold 11 fe | http-request deny deny_status 429 hdr Retry-After 1 "
	    "if { sc0_http_req_rate gt 4 }\n");
	/* with timeout tarpit 2s and maxconn 10: 5 x 2 = 10 slots = maxconn: crit */
	ck_assert_str_eq(findings(DEFAULTS "frontend fe\n  bind :1\n"
	    "  stick-table type ip size 1k store http_req_rate(1s)\n"
	    "  http-request track-sc0 src\n"
	    "  http-request tarpit if { sc0_http_req_rate gt 4 }\n"
	    "  timeout tarpit 2s\n  maxconn 10\n", NULL),
	    "crit tarpit-rate-limit 11 fe | http-request deny deny_status 429 hdr Retry-After 1 "
	    "if { sc0_http_req_rate gt 4 }\n");
	/* a 429 without Retry-After; the counter's period (1 s) is the wait */
	ck_assert_str_eq(findings(DEFAULTS "frontend fe\n  bind :1\n"
	    "  stick-table type ip size 1k store http_req_rate(1s)\n"
	    "  http-request track-sc0 src\n"
	    "  http-request deny deny_status 429 if { sc0_http_req_rate gt 4 }\n", NULL),
	    "warn retry-after 11 fe | http-request deny deny_status 429 hdr Retry-After 1 "
	    "if { sc0_http_req_rate gt 4 }\n");
	/* with one, on IPv6 (any of the bind's addresses): the key per address */
	ck_assert_str_eq(findings(DEFAULTS "frontend fe\n  bind 192.0.2.1:1,[2001:db8::1]:1\n"
	    "  stick-table type ipv6 size 1k store http_req_rate(1s)\n"
	    "  http-request track-sc0 src\n"
	    "  http-request deny deny_status 429 hdr retry-after 1 if { sc0_http_req_rate gt 4 }\n",
	    NULL), "info rate-limit-key 10 fe | http-request track-sc0 src,ipmask(32,64)\n");
	/* sorted by severity, then line; --frontend keeps one */
	ck_assert_str_eq(findings("defaults\n  mode http\n  timeout client 10s\n"
	    "frontend a\n  bind :1\nfrontend b\n  timeout client 0\n", NULL),
	    "crit http-request-timeout 6 b | timeout http-request 5s; timeout client 30s\n"
	    "warn http-request-timeout 4 a | timeout http-request 5s\n");
	ck_assert_str_eq(findings("defaults\n  mode http\n  timeout client 10s\n"
	    "frontend a\n  bind :1\nfrontend b\n  timeout client 0\n", "a"),
	    "warn http-request-timeout 4 a | timeout http-request 5s\n");
	/* mode tcp: no http-request timeout to want */
	ck_assert_str_eq(findings("defaults\n  timeout client 10s\nfrontend t\n  bind :1\n", NULL),
	    "");
}
END_TEST

START_TEST(api_errors)
{
	lbt_audit_opts o = LBT_AUDIT_OPTS_INIT;
	const char *path;
	lbt_audit_sev s;
	lbt_err err;

	ck_assert_ptr_null(lbt_audit_new("/nonexistent/haproxy.cfg", NULL, &err));
	ck_assert_str_eq(err.msg, "No such file or directory");
	path = tmpcfg("frontend fe\n  bind :1\n  maxconn lots\n");
	ck_assert_ptr_null(lbt_audit_new(path, NULL, &err));
	ck_assert_uint_eq(err.line, 3);
	unlink(path);
	path = tmpcfg("frontend fe\n  bind :1\nbackend be\n");
	o.proxy = "be";                            /* a backend is no frontend */
	ck_assert_ptr_null(lbt_audit_new(path, &o, &err));
	ck_assert_str_eq(err.msg, "no frontend or listen section 'be'");
	o.proxy = NULL;
	o.alert_pct = 0;
	ck_assert_ptr_null(lbt_audit_new(path, &o, &err));
	unlink(path);
	ck_assert_int_eq(lbt_audit_sev_parse("crit", &s, &err), 0);
	ck_assert_int_eq(s, LBT_AUDIT_CRIT);
	ck_assert_int_eq(lbt_audit_sev_parse("fatal", &s, &err), -1);
	ck_assert_str_eq(err.msg, "'fatal' is not a severity (info, warn, crit)");
	lbt_audit_free(NULL);
}
END_TEST

/* The audit suite. */
static Suite *audit_suite(void)
{
	Suite *s = suite_create("audit");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, times);
	tcase_add_test(tc, counters);
	tcase_add_test(tc, not_rate_limits);
	tcase_add_test(tc, host_methods);
	tcase_add_test(tc, host_terms);
	tcase_add_test(tc, lines_written_back);
	tcase_add_test(tc, api_findings);
	tcase_add_test(tc, api_errors);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(audit_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
