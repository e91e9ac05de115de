/*
 * check_place.c - unit tests for lib/config/place.c: the line a new rule
 * must precede in a frontend (HAProxy 2.6's order: tcp-request connection,
 * then tcp-request content, then http-request, each in file order; the
 * first that answers wins), and the file copied with the rule put there.
 *
 * Every expected line number is counted by hand in the configuration
 * text of the test (line 1 is its first line).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lbt/hacfg.h"
#include "lbt/place.h"

/* Write text to a new temporary file.  @return its path (static) */
static const char *tmpcfg(const char *text)
{
	static char path[64];
	size_t len = strlen(text);
	int fd;

	strcpy(path, "/tmp/check_place_XXXXXX");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, len), (ssize_t)len);
	close(fd);
	return path;
}

/* The place of a rule of kind k in frontend fe of text.  @return 0 or -1 with err */
static int place(const char *text, const char *fe, lbt_place_kind k, lbt_place *p,
    lbt_err *err)
{
	const char *path = tmpcfg(text);
	lbt_hacfg *c = lbt_hacfg_read(path, NULL, err);
	int rc;

	unlink(path);
	ck_assert_msg(c != NULL, "%s", err->msg);
	rc = lbt_place_find(c, fe, k, p, err);
	lbt_hacfg_free(c);
	return rc;
}

#define HEAD "global\n    maxconn 100\ndefaults\n    mode http\n"   /* lines 1-4 */

/* The incident's shape: above the first track-sc, not below the tarpit. */
START_TEST(above_first_counting_rule)
{
	static const char cfg[] = HEAD
	    "frontend fe_http\n"                                          /* 5 */
	    "    bind :80\n"                                              /* 6 */
	    "    http-request set-header X-A 1\n"                         /* 7 */
	    "    http-request track-sc0 src table st\n"                   /* 8 */
	    "    http-request tarpit if { sc_http_req_rate(0) gt 10 }\n"  /* 9 */
	    "    default_backend be\n"                                    /* 10 */
	    "backend be\n"
	    "    http-request deny\n";
	lbt_place p;
	lbt_err err;

	ck_assert_int_eq(place(cfg, "fe_http", LBT_PLACE_HTTP, &p, &err), 0);
	ck_assert_int_eq(p.line, 8);
	ck_assert_int_eq(p.after, 0);
	ck_assert_str_eq(p.what, "fe_http's first http-request track-sc0");
	ck_assert_int_eq(p.late_src, 0);
}
END_TEST

/* Each action that answers or ends the evaluation is a place. */
START_TEST(every_answering_action)
{
	static const char *const acts[] = { "deny", "tarpit", "return status 200",
		"redirect location /", "reject", "silent-drop", "auth", "allow",
		"use-service prometheus-exporter", "sc-inc-gpc0(0)", "track-sc2 src" };
	char cfg[512];
	lbt_place p;
	lbt_err err;

	for (size_t i = 0; i < sizeof acts / sizeof acts[0]; i++) {
		snprintf(cfg, sizeof cfg, HEAD "frontend f\n    bind :80\n"
		    "    http-request set-var(txn.x) str(1)\n    http-request %s\n", acts[i]);
		ck_assert_int_eq(place(cfg, "f", LBT_PLACE_HTTP, &p, &err), 0);
		ck_assert_msg(p.line == 8 && !p.after, "%s: line %llu after %d", acts[i],
		    (unsigned long long)p.line, p.after);
	}
}
END_TEST

/* Nothing answers: below the last rule of the kind, else above the backend
 * choice, else at the end of the section. */
START_TEST(nothing_answers)
{
	lbt_place p;
	lbt_err err;

	ck_assert_int_eq(place(HEAD "frontend f\n    bind :80\n"
	    "    http-request set-header X 1\n"                 /* 7 */
	    "    option forwardfor\n    default_backend be\n", "f", LBT_PLACE_HTTP, &p, &err), 0);
	ck_assert_int_eq(p.line, 7);
	ck_assert_int_eq(p.after, 1);
	ck_assert_str_eq(p.what, "f's last http-request rule");
	ck_assert_int_eq(place(HEAD "frontend f\n    bind :80\n    use_backend b if TRUE\n"
	    "    default_backend be\n", "f", LBT_PLACE_HTTP, &p, &err), 0);
	ck_assert_int_eq(p.line, 7);
	ck_assert_int_eq(p.after, 0);
	ck_assert_str_eq(p.what, "f's first use_backend");
	ck_assert_int_eq(place(HEAD "frontend f\n    bind :80\n    maxconn 5\n", "f",
	    LBT_PLACE_HTTP, &p, &err), 0);
	ck_assert_int_eq(p.line, 7);
	ck_assert_int_eq(p.after, 1);
	ck_assert_int_eq(place(HEAD "frontend f\n", "f", LBT_PLACE_HTTP, &p, &err), 0);
	ck_assert_int_eq(p.line, 5);
	ck_assert_int_eq(p.after, 1);
}
END_TEST

/* tcp-request connection: its own kind, run before every other. */
START_TEST(tcp_connection)
{
	static const char cfg[] = HEAD
	    "frontend f\n"                                      /* 5 */
	    "    bind :80\n"                                    /* 6 */
	    "    http-request deny if { path /x }\n"            /* 7 */
	    "    tcp-request content reject if { src 10.0.0.1 }\n"  /* 8 */
	    "    tcp-request connection expect-proxy layer4\n"  /* 9 */
	    "    tcp-request connection track-sc1 src\n";       /* 10 */
	lbt_place p;
	lbt_err err;

	ck_assert_int_eq(place(cfg, "f", LBT_PLACE_TCP_CONN, &p, &err), 0);
	ck_assert_int_eq(p.line, 10);
	ck_assert_str_eq(p.what, "f's first tcp-request connection track-sc1");
	/* only later kinds: above the first of them, whatever its kind */
	ck_assert_int_eq(place(HEAD "frontend f\n    bind :80\n    http-request deny\n"
	    "    tcp-request content accept\n", "f", LBT_PLACE_TCP_CONN, &p, &err), 0);
	ck_assert_int_eq(p.line, 7);
	ck_assert_int_eq(p.after, 0);
	/* for an http-request rule, tcp-request lines have no bearing */
	ck_assert_int_eq(place(cfg, "f", LBT_PLACE_HTTP, &p, &err), 0);
	ck_assert_int_eq(p.line, 7);
}
END_TEST

/* A rewrite of the address below the place is noted, not crossed. */
START_TEST(late_set_src)
{
	lbt_place p;
	lbt_err err;

	ck_assert_int_eq(place(HEAD "frontend f\n    bind :80\n"
	    "    http-request deny if { path /x }\n"                  /* 7 */
	    "    http-request set-src hdr(x-forwarded-for)\n", "f",   /* 8 */
	    LBT_PLACE_HTTP, &p, &err), 0);
	ck_assert_int_eq(p.line, 7);
	ck_assert_int_eq(p.late_src, 8);
	ck_assert_int_eq(place(HEAD "frontend f\n    bind :80\n"
	    "    http-request set-src hdr(x-forwarded-for)\n"         /* 7 */
	    "    http-request deny if { path /x }\n", "f",            /* 8 */
	    LBT_PLACE_HTTP, &p, &err), 0);
	ck_assert_int_eq(p.line, 8);
	ck_assert_int_eq(p.late_src, 0);
}
END_TEST

/* The frontend: named (frontend or listen), or the only one; never a backend. */
START_TEST(which_frontend)
{
	static const char two[] = HEAD "listen l1\n    bind :81\n    http-request deny\n"
	    "backend fe\n    http-request deny\nfrontend fe2\n    bind :80\n";
	lbt_place p;
	lbt_err err;

	ck_assert_int_eq(place(two, "l1", LBT_PLACE_HTTP, &p, &err), 0);
	ck_assert_int_eq(p.line, 7);
	ck_assert_int_eq(place(two, NULL, LBT_PLACE_HTTP, &p, &err), -1);
	ck_assert_str_eq(err.msg, "2 frontends (l1, fe2): name one with --frontend");
	ck_assert_int_eq(place(two, "fe", LBT_PLACE_HTTP, &p, &err), -1);
	ck_assert_str_eq(err.msg, "no frontend or listen section 'fe' (there are: l1, fe2)");
	ck_assert_int_eq(place(HEAD "backend b\n", NULL, LBT_PLACE_HTTP, &p, &err), -1);
	ck_assert_str_eq(err.msg, "no frontend or listen section in it");
	ck_assert_int_eq(place(HEAD "frontend only\n    bind :80\n", NULL, LBT_PLACE_HTTP,
	    &p, &err), 0);
	ck_assert_int_eq(p.line, 6);
}
END_TEST

/* A branch of .if not taken is not the place. */
START_TEST(conditional_block)
{
	lbt_place p;
	lbt_err err;

	ck_assert_int_eq(place(HEAD "frontend f\n    bind :80\n"
	    ".if 0\n    http-request tarpit\n.endif\n"            /* 7-9 */
	    "    http-request deny if { path /x }\n", "f",        /* 10 */
	    LBT_PLACE_HTTP, &p, &err), 0);
	ck_assert_int_eq(p.line, 10);
}
END_TEST

/* The splice: the rule above (or below) the line, the tail at the end. */
START_TEST(splice)
{
	static const char cfg[] = "a\nb\nc";        /* no newline at the end */
	const char *path = tmpcfg(cfg);
	lbt_place p = { NULL, 2, 0, "", 0, 0, "" };
	char *out = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&out, &len);
	lbt_err err;

	ck_assert_int_eq(lbt_place_splice(path, &p, "R\n", 2, "T\n", 2, fp, &err), 0);
	fclose(fp);
	ck_assert_str_eq(out, "a\nR\nb\nc\n\nT\n");
	free(out);
	p.line = 3;
	p.after = 1;
	fp = open_memstream(&out, &len);
	ck_assert_int_eq(lbt_place_splice(path, &p, "R", 1, "", 0, fp, &err), 0);
	fclose(fp);
	ck_assert_str_eq(out, "a\nb\nc\nR\n");
	free(out);
	p.line = 9;
	fp = open_memstream(&out, &len);
	ck_assert_int_eq(lbt_place_splice(path, &p, "R\n", 2, "", 0, fp, &err), -1);
	fclose(fp);
	free(out);
	ck_assert_str_eq(err.file, path);
	ck_assert_int_eq(err.line, 9);
	ck_assert_str_eq(err.msg, "the file changed: it has no line 9");
	unlink(path);
}
END_TEST

/* The place of deny lines in server `name` of nginx.conf text.  @return 0 or -1 */
static int place_ngx(const char *text, const char *name, lbt_place *p, lbt_err *err)
{
	const char *path = tmpcfg(text);
	int rc = lbt_place_nginx(path, name, p, err);

	unlink(path);
	return rc;
}

/* NGINX: above the first allow/deny, else above the first directive; braces
 * and ';' inside quotes and comments are words, not blocks. */
START_TEST(nginx_server)
{
	static const char cfg[] =
	    "events {}\n"                                             /* 1 */
	    "http {\n"                                                /* 2 */
	    "    log_format x '{ \"a\": \"$remote_addr\" };';\n"     /* 3 */
	    "    server {   # a comment with { and ;\n"               /* 4 */
	    "        listen 80;\n"                                     /* 5 */
	    "        server_name a.example \"b.example\";\n"          /* 6 */
	    "        location / { root /srv; }\n"                      /* 7 */
	    "        deny 198.51.100.0/24;\n"                          /* 8 */
	    "    }\n"                                                  /* 9 */
	    "    server {\n"                                           /* 10 */
	    "        server_name c.example;\n"                         /* 11 */
	    "        return 200;\n"                                    /* 12 */
	    "    }\n"
	    "}\n";
	lbt_place p;
	lbt_err err;

	ck_assert_int_eq(place_ngx(cfg, "b.example", &p, &err), 0);
	ck_assert_int_eq(p.line, 8);
	ck_assert_int_eq(p.after, 0);
	ck_assert_str_eq(p.what, "a.example b.example's first allow/deny");
	ck_assert_int_eq(p.shadow, 0);
	ck_assert_int_eq(place_ngx(cfg, "c.example", &p, &err), 0);
	ck_assert_int_eq(p.line, 11);
	ck_assert_str_eq(p.what, "c.example's first directive");
	ck_assert_int_eq(p.shadow, 12);
	ck_assert_int_eq(place_ngx(cfg, NULL, &p, &err), -1);
	ck_assert_str_eq(err.msg, "2 server blocks (a.example b.example, c.example): name one "
	    "with --server");
	ck_assert_int_eq(place_ngx(cfg, "d.example", &p, &err), -1);
	ck_assert_str_eq(err.msg, "no server block named 'd.example' (there are: a.example "
	    "b.example, c.example)");
}
END_TEST

/* NGINX: what cannot be placed is said, with the line. */
START_TEST(nginx_errors)
{
	lbt_place p;
	lbt_err err;

	ck_assert_int_eq(place_ngx("http {\n    server { listen 80; }\n}\n", NULL, &p, &err),
	    -1);
	ck_assert_int_eq(err.line, 2);
	ck_assert_str_eq(err.msg, "a server block without server_name: its first directive is "
	    "on the 'server {' line: put it on a line of its own");
	ck_assert_int_eq(place_ngx("http {\n    server {\n        listen 80;\n", NULL, &p,
	    &err), -1);
	ck_assert_str_eq(err.msg, "unexpected end of file (a 'block' not ended)");
	ck_assert_int_eq(place_ngx("http {\n}\n}\n", NULL, &p, &err), -1);
	ck_assert_int_eq(err.line, 3);
	ck_assert_str_eq(err.msg, "unexpected '}'");
	ck_assert_int_eq(place_ngx("server {\n    listen 80;\n}\n", NULL, &p, &err), -1);
	ck_assert_str_eq(err.msg, "no server block in an http block");
}
END_TEST

/* The place suite. */
static Suite *place_suite(void)
{
	Suite *s = suite_create("place");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, above_first_counting_rule);
	tcase_add_test(tc, every_answering_action);
	tcase_add_test(tc, nothing_answers);
	tcase_add_test(tc, tcp_connection);
	tcase_add_test(tc, late_set_src);
	tcase_add_test(tc, which_frontend);
	tcase_add_test(tc, conditional_block);
	tcase_add_test(tc, splice);
	tcase_add_test(tc, nginx_server);
	tcase_add_test(tc, nginx_errors);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(place_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
