/*
 * check_event.c - unit tests for lib/read/event*.c: HAProxy event lines, with the
 * names each one carries, request lines that are not events, and every line
 * of real HAProxy 2.6 output in tests/data/syslog/haproxy-2.6-events.txt and
 * tests/data/real/haproxy-master.stderr, and of real NGINX 1.22 error logs
 * (tests/data/real/nginx-*error*.log), their kinds counted a second way.
 * Field by field expectations are in tests/data/formats/haproxy-events.cases and
 * nginx-error.cases (check_format).
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "lbt/event.h"

struct ecase {
	const char *msg;
	const char *frontend, *backend, *server;   /* NULL: not set */
};

static const struct ecase cases[] = {
	{ "Server be_app/app1 is DOWN, reason: Layer4 connection problem, info: \"Connection refused\", check duration: 0ms. 1 active and 0 backup servers left. 0 sessions active, 0 requeued, 0 remaining in queue.", NULL, "be_app", "app1" },
	{ "Server be_app/app1 is UP, reason: Layer7 check passed, code: 200, check duration: 1ms. 1 active and 0 backup servers online. 0 sessions requeued, 0 total in queue.", NULL, "be_app", "app1" },
	{ "Server be/s is going DOWN for maintenance. 0 active and 0 backup servers left.", NULL, "be", "s" },
	{ "Server be_app/app1 was DOWN and now enters maintenance.", NULL, "be_app", "app1" },
	{ "Backup Server be_app/bk1 is DOWN.", NULL, "be_app", "bk1" },
	{ "backend be_app has no server available!", NULL, "be_app", NULL },
	{ "Proxy fe_http started.", "fe_http", "fe_http", NULL },
	{ "Proxy fe_http stopped (cumulated conns: FE: 12, BE: 0).", "fe_http", "fe_http", NULL },
	{ "Stopping frontend fe_http in 0 ms.", "fe_http", NULL, NULL },
	{ "Stopping backend be in 0 ms.", NULL, "be", NULL },
	{ "Stopping proxy px in 0 ms.", "px", "px", NULL },
	{ "Pausing proxy px.", "px", "px", NULL },
	{ "Paused frontend fe.http.", "fe.http", NULL, NULL },
	{ "Resumed frontend fe_http.", "fe_http", NULL, NULL },
	{ "Health check for server be/s failed, reason: Layer4 timeout, check duration: 2001ms, status: 0/2 DOWN.", NULL, "be", "s" },
	{ "Health check for server be/s succeeded, reason: Layer7 check passed, code: 200, check duration: 1ms, status: 3/3 UP.", NULL, "be", "s" },
	{ "Health check for backup server be/bk failed, reason: x", NULL, "be", "bk" },
	{ "Scheduling a soft-stop in 300 ms.", NULL, NULL, NULL },
	{ "Grace period expired, proceeding with soft-stop now.", NULL, NULL, NULL },
	{ "[WARNING]  (14481) : Server be_app/app2 is DOWN. 0 active and 0 backup servers left.", NULL, "be_app", "app2" },
	{ "[ALERT]    (13969) : backend 'be_app' has no server available!", NULL, "be_app", NULL },
	{ "[NOTICE]   (14481) : Scheduling a soft-stop in 300 ms.", NULL, NULL, NULL },
	{ "[WARNING] 304/232401 (1234) : Proxy fe stopped (cumulated conns: FE: 1, BE: 0).", "fe", "fe", NULL },
	{ "[ALERT] something HAProxy said", NULL, NULL, NULL },
	{ "[NOTICE]", NULL, NULL, NULL },
};

/* Compare an optional name with the record's field. */
static void expect_name(const lbt_rec *r, lbt_str s, lbt_field f, const char *want)
{
	if (want == NULL) {
		ck_assert_msg(!(r->have & LBT_BIT(f)), "%s set to '%.*s'", lbt_field_name(f), (int)s.n, s.p);
		return;
	}
	ck_assert_msg(r->have & LBT_BIT(f), "%s not set", lbt_field_name(f));
	ck_assert_msg(lbt_str_eq(s, want), "%s '%.*s', want '%s'", lbt_field_name(f), (int)s.n, s.p, want);
}

/* Each event gives kind EVENT, the whole message and exactly its names. */
START_TEST(events)
{
	const struct ecase *c = &cases[_i];
	lbt_rec r;

	lbt_rec_clear(&r);
	r.have = LBT_BIT(LBT_F_TIME);
	ck_assert_msg(lbt_event_parse(c->msg, strlen(c->msg), NULL, &r) == 0, "'%s'", c->msg);
	ck_assert_int_eq(r.kind, LBT_KIND_EVENT);
	ck_assert(r.have & LBT_BIT(LBT_F_MSG));
	ck_assert(r.have & LBT_BIT(LBT_F_TIME));
	ck_assert(r.msg.p == c->msg && r.msg.n == strlen(c->msg));
	expect_name(&r, r.frontend, LBT_F_FRONTEND, c->frontend);
	expect_name(&r, r.backend, LBT_F_BACKEND, c->backend);
	expect_name(&r, r.server, LBT_F_SERVER, c->server);
}
END_TEST

static const char *const not_events[] = {
	"203.0.113.7:51234 [01/Nov/2025:23:24:01.123] fe_http be_app/app1 0/0/1/12/13 200 135 - - ---- 12/8/3/2/0 0/0 \"GET / HTTP/1.1\"",
	"203.0.113.7 - - [01/Nov/2025:23:24:01 +0000] \"GET /ping/x HTTP/1.1\" 200 2 \"-\" \"curl/8.5.0\"",
	"Connect from 198.51.100.23:40512 to 192.0.2.10:80 (fe_http/HTTP)",
	"Server nobackend is DOWN",
	"Server /s is DOWN",
	"Server be/ is DOWN",
	"backend be_app is fine",
	"backend ",
	"Proxy ",
	"Stopping frontend ",
	"Servers be/s",
	"server be/s is DOWN",
	"{\"status\": 200}",
	"",
	"203.0.113.99:60642 [30/Nov/2026:07:49:57.594] fe_https 1: no slash",
	"203.0.113.99:60642 [30/Nov/2026:07:49:57.594] fe https/1: space in name",
	"203.0.113.99 [30/Nov/2026:07:49:57.594] fe_https/1: no port",
	"203.0.113.99:60642 [30/Nov/2026:07:49:57] fe/1 no colon-space",
	"203.0.113.99:60642 [31/Nov/2026:07:49:57.594] fe_https/1: bad date",
};

/* Request lines and near misses are not events; rec stays untouched. */
START_TEST(not_event)
{
	const char *m = not_events[_i];
	lbt_rec r, before;

	lbt_rec_clear(&r);
	before = r;
	ck_assert_msg(lbt_event_parse(m, strlen(m), NULL, &r) == -1, "'%s'", m);
	ck_assert(memcmp(&r, &before, sizeof r) == 0);
}
END_TEST

/* Every line HAProxy 2.6 wrote about itself is an event. */
START_TEST(real_haproxy)
{
	FILE *f = fopen(LBT_TEST_DATA "/syslog/haproxy-2.6-events.txt", "r");
	char line[1024];
	int n = 0, servers = 0;

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof line, f) != NULL) {
		size_t len = strcspn(line, "\n");
		lbt_rec r;

		lbt_rec_clear(&r);
		ck_assert_msg(lbt_event_parse(line, len, NULL, &r) == 0, "'%.*s'", (int)len, line);
		if (strstr(line, "erver be_app/app1") != NULL) {
			ck_assert(lbt_str_eq(r.backend, "be_app") && lbt_str_eq(r.server, "app1"));
			servers++;
		}
		n++;
	}
	fclose(f);
	ck_assert_int_ge(n, 40);
	ck_assert_int_ge(servers, 10);
}
END_TEST

/* Kind of an NGINX error line by a second method: its phrase anywhere in the line. */
static const char *nginx_kind_of(const char *line)
{
	if (strstr(line, "limiting requests") != NULL || strstr(line, "delaying request") != NULL)
		return "limit_req";
	if (strstr(line, "limiting connections") != NULL)
		return "limit_conn";
	if (strstr(line, "upstream: \"") != NULL || strstr(line, " upstream") != NULL)
		return "upstream";
	if (strstr(line, " client sent ") != NULL || strstr(line, " client timed out") != NULL ||
	    strstr(line, " client closed ") != NULL || strstr(line, " client prematurely") != NULL ||
	    strstr(line, "closed keepalive connection") != NULL)
		return "client";
	return NULL;
}

/*
 * Every line of a real NGINX error log is an event with a time, a level,
 * and the kind its phrase says; returns the count per kind in n[4]
 * (limit_req, limit_conn, upstream, client).
 */
static void nginx_file(const char *path, int n[4])
{
	static const char *const kinds[] = { "limit_req", "limit_conn", "upstream", "client" };
	FILE *f = fopen(path, "r");
	char line[8192];

	ck_assert_ptr_nonnull(f);
	memset(n, 0, 4 * sizeof n[0]);
	while (fgets(line, sizeof line, f) != NULL) {
		size_t len = strcspn(line, "\n");
		const char *want;
		lbt_rec r;

		line[len] = '\0';
		lbt_rec_clear(&r);
		ck_assert_msg(lbt_event_parse(line, len, NULL, &r) == 0, "'%s'", line);
		ck_assert(r.have & LBT_BIT(LBT_F_TIME) && r.have & LBT_BIT(LBT_F_LEVEL));
		ck_assert_int_eq(r.clock, LBT_CLOCK_END);
		if ((want = nginx_kind_of(line)) == NULL)
			continue;
		ck_assert_msg(lbt_str_eq(r.event, want), "'%s': %.*s, want %s", line, (int)r.event.n,
		    r.event.p, want);
		for (int k = 0; k < 4; k++)
			n[k] += strcmp(kinds[k], want) == 0;
	}
	fclose(f);
}

/* NGINX 1.22's own error logs: the lab's and the limits one of tests/lab/shapes.sh. */
START_TEST(real_nginx)
{
	int n[4];

	nginx_file(LBT_TEST_DATA "/real/nginx-limits-error.log", n);
	ck_assert_int_ge(n[0], 3);      /* limiting requests */
	ck_assert_int_ge(n[1], 2);      /* limiting connections */
	ck_assert_int_ge(n[2], 5);      /* timed out, refused, no live upstreams */
	nginx_file(LBT_TEST_DATA "/real/nginx-error.log", n);
	ck_assert_int_ge(n[0], 1);
	ck_assert_int_ge(n[3], 3);
}
END_TEST

/* HAProxy 2.6's master and workers on stderr around a reload: events, each with a level. */
START_TEST(real_master)
{
	FILE *f = fopen(LBT_TEST_DATA "/real/haproxy-master.stderr", "r");
	char line[1024];
	int reload = 0, n = 0;

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof line, f) != NULL) {
		size_t len = strcspn(line, "\n");
		lbt_rec r;

		lbt_rec_clear(&r);
		ck_assert_msg(lbt_event_parse(line, len, NULL, &r) == 0, "'%.*s'", (int)len, line);
		ck_assert(r.have & LBT_BIT(LBT_F_LEVEL));
		ck_assert(lbt_str_eq(r.level, strncmp(line, "[NOTICE]", 8) == 0 ? "notice" : "warn"));
		if (strstr(line, " : Server ") == NULL && strstr(line, "version is") == NULL &&
		    strstr(line, "path to executable") == NULL)
			reload += lbt_str_eq(r.event, "reload");
		n++;
	}
	fclose(f);
	ck_assert_int_ge(n, 20);
	ck_assert_int_ge(reload, 15);
}
END_TEST

/* A connection error line (docs/formats.md, "Connection errors") gives
 * client, accept time, frontend and the text; the expected epoch of 2026-11-30 07:49:57 UTC
 * is from `date -u -d '2026-11-30 07:49:57' +%s`: 1796024997. */
START_TEST(connection_error)
{
	const char *m = "198.51.100.99:45549 [30/Nov/2026:07:49:57.594] fe_https/1: SSL handshake failure";
	const char *m6 = "2001:db8::7:51290 [30/Nov/2026:07:49:57.000] fe_https/tls: Connection error during SSL handshake";
	char buf[LBT_ADDR_STRLEN];
	lbt_rec r;

	lbt_rec_clear(&r);
	ck_assert_int_eq(lbt_event_parse(m, strlen(m), NULL, &r), 0);
	ck_assert_int_eq(r.kind, LBT_KIND_EVENT);
	ck_assert(r.time_us == 1796024997594000LL);
	ck_assert_int_eq(r.clock, LBT_CLOCK_ACCEPT);
	ck_assert_str_eq(lbt_addr_format(&r.client, buf, sizeof buf), "198.51.100.99");
	ck_assert_int_eq(r.port, 45549);
	ck_assert(lbt_str_eq(r.frontend, "fe_https"));
	ck_assert(lbt_str_eq(r.msg, "SSL handshake failure"));
	ck_assert(!(r.have & LBT_BIT(LBT_F_BACKEND)));

	lbt_rec_clear(&r);
	ck_assert_int_eq(lbt_event_parse(m6, strlen(m6), NULL, &r), 0);
	ck_assert_str_eq(lbt_addr_format(&r.client, buf, sizeof buf), "2001:db8::7");
	ck_assert_int_eq(r.port, 51290);
	ck_assert(lbt_str_eq(r.msg, "Connection error during SSL handshake"));
}
END_TEST

/* The event suite. */
static Suite *event_suite(void)
{
	Suite *s = suite_create("event");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, events, 0, (int)(sizeof cases / sizeof cases[0]));
	tcase_add_loop_test(tc, not_event, 0, (int)(sizeof not_events / sizeof not_events[0]));
	tcase_add_test(tc, real_haproxy);
	tcase_add_test(tc, connection_error);
	tcase_add_test(tc, real_nginx);
	tcase_add_test(tc, real_master);
	suite_add_tcase(s, tc);
	return s;
}

/* Run the suite; exit status 1 when a check failed. */
int main(void)
{
	SRunner *sr = srunner_create(event_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
