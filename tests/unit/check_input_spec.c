/*
 * check_input_spec.c - inputs with their own options (lib/read/input_spec.c:
 * --input words and sources files) and what lbt_input does with them: the
 * formats of a file chosen line by line (input_fmtset.c), the proxy a line
 * names, the tier of a record, the tiers known before reading.
 *
 * Inputs are written to a temporary directory by each test; expected values
 * are read off those lines by hand.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lbt/input.h"
#include "lbt/input_spec.h"
#include "tmpdir.h"


/* A fresh temporary directory for the test (tmpdir.h). */
static void setup(void)
{
	tmpdir_make("check_input_spec", 1);
}

/* Remove it. */
static void teardown(void)
{
	tmpdir_remove();
}

/* Write text to name. */
static void put(const char *name, const char *text)
{
	FILE *fp = fopen(name, "w");

	ck_assert_ptr_nonnull(fp);
	fputs(text, fp);
	fclose(fp);
}

/* Text of field f of rec. */
static const char *field(lbt_rec *rec, lbt_field f)
{
	static char buf[256];

	lbt_rec_format_field(rec, f, buf, sizeof buf);
	return buf;
}

/* ---- the words of a line ---------------------------------------------- */

START_TEST(words_blanks_semicolons)
{
	lbt_input_specs l = LBT_INPUT_SPECS_INIT;
	lbt_err err;

	ck_assert_int_eq(lbt_input_specs_add(&l, "a.log format=haproxy-httplog;lb=lb1\ttier=app",
	    &err), 0);
	ck_assert_uint_eq(l.n, 1);
	ck_assert_str_eq(l.v[0].pattern, "a.log");
	ck_assert_str_eq(l.v[0].format, "haproxy-httplog");
	ck_assert_str_eq(l.v[0].lb, "lb1");
	ck_assert_int_eq(l.v[0].tier, LBT_TIER_BACKEND);
	ck_assert_ptr_null(l.v[0].haproxy_cfg);
	ck_assert_uint_eq(l.v[0].nfiles, 1);
	ck_assert_str_eq(l.v[0].files[0], "a.log");
	ck_assert_str_eq(l.v[0].where_file, "--input");
	lbt_input_specs_free(&l);
}
END_TEST

START_TEST(words_quotes_backslashes_comments)
{
	lbt_input_specs l = LBT_INPUT_SPECS_INIT;
	lbt_err err;

	ck_assert_int_eq(lbt_input_specs_add(&l, "'my log.log' log-format='%ci \"x\" %ST' "
	    "lb=\"l\\\"b\\\\\" # lb=ignored", &err), 0);
	ck_assert_str_eq(l.v[0].pattern, "my log.log");
	ck_assert_str_eq(l.v[0].log_format, "%ci \"x\" %ST");
	ck_assert_str_eq(l.v[0].lb, "l\"b\\");
	ck_assert_int_eq(lbt_input_specs_add(&l, "a\\ b\\;c.log log-tz=Europe/Paris", &err), 0);
	ck_assert_str_eq(l.v[1].pattern, "a b;c.log");
	ck_assert_str_eq(l.v[1].log_tz, "Europe/Paris");
	ck_assert_int_eq(lbt_input_specs_add(&l, "# only a comment", &err), -1);
	ck_assert_str_eq(err.msg, "'# only a comment' names no input");
	ck_assert_int_eq(lbt_input_specs_add(&l, "a.log log-format=\"%ci", &err), -1);
	ck_assert_str_eq(err.msg, "\" at column 18 is not closed");
	ck_assert_str_eq(err.file, "--input");
	lbt_input_specs_free(&l);
}
END_TEST

START_TEST(sources_file_relative_paths)
{
	lbt_input_specs l = LBT_INPUT_SPECS_INIT;
	lbt_err err;

	ck_assert_int_eq(system("mkdir -p inc/lb1 && touch inc/lb1/b.log inc/lb1/a.log"), 0);
	put("inc/s.txt", "# two inputs\n\n"
	    "lb1/*.log haproxy-cfg=conf/h.cfg frontend=fe\n"
	    "/abs/x.log format=formats/my.fmt lb=lb2 # absolute\n"
	    "lb1/a.log format=haproxy-httplog,haproxy-tcplog\n");
	ck_assert_int_eq(lbt_input_specs_read(&l, "inc/s.txt", &err), 3);
	ck_assert_str_eq(l.v[0].pattern, "inc/lb1/*.log");
	ck_assert_uint_eq(l.v[0].nfiles, 2);                /* sorted */
	ck_assert_str_eq(l.v[0].files[0], "inc/lb1/a.log");
	ck_assert_str_eq(l.v[0].files[1], "inc/lb1/b.log");
	ck_assert_str_eq(l.v[0].haproxy_cfg, "inc/conf/h.cfg");
	ck_assert_str_eq(l.v[0].frontend, "fe");
	ck_assert_str_eq(l.v[0].where_file, "inc/s.txt");
	ck_assert_uint_eq(l.v[0].where_line, 3);
	ck_assert_str_eq(l.v[1].pattern, "/abs/x.log");
	ck_assert_str_eq(l.v[1].format, "inc/formats/my.fmt");
	ck_assert_str_eq(l.v[2].format, "haproxy-httplog,haproxy-tcplog");   /* names */
	ck_assert_uint_eq(l.v[2].where_line, 5);
	lbt_input_specs_free(&l);
}
END_TEST

START_TEST(sources_file_errors)
{
	lbt_input_specs l = LBT_INPUT_SPECS_INIT;
	lbt_err err;

	put("s.txt", "a.log lb=x\nb.log lb=y\nc.log fromat=json\n");
	ck_assert_int_eq(lbt_input_specs_read(&l, "s.txt", &err), -1);
	ck_assert_str_eq(err.file, "s.txt");
	ck_assert_uint_eq(err.line, 3);
	ck_assert_str_eq(err.msg, "unknown key 'fromat' (keys: format= log-format= escape= "
	    "haproxy-cfg= frontend= nginx-conf= log-name= lb= log-tz= captures= "
	    "trusted-proxies= tier=)");
	lbt_input_specs_free(&l);
	put("s.txt", "a.log lb=x\n*.nothing\n");
	ck_assert_int_eq(lbt_input_specs_read(&l, "s.txt", &err), -1);
	ck_assert_uint_eq(err.line, 2);
	ck_assert_str_eq(err.msg, "no file matches '*.nothing'");
	lbt_input_specs_free(&l);
	{
		FILE *fp = fopen("z.txt", "w");

		ck_assert_ptr_nonnull(fp);
		fwrite("a.log lb=x\nb.log\0lb=y\n", 1, 23, fp);
		fclose(fp);
	}
	ck_assert_int_eq(lbt_input_specs_read(&l, "z.txt", &err), -1);
	ck_assert_uint_eq(err.line, 2);
	ck_assert_str_eq(err.msg, "NUL byte in the line");
	lbt_input_specs_free(&l);
	put("n.txt", "a.log lb=x");
	ck_assert_int_eq(lbt_input_specs_read(&l, "n.txt", &err), 1);   /* no final newline */
	lbt_input_specs_free(&l);
}
END_TEST

START_TEST(spec_options_over_the_global_ones)
{
	lbt_input_specs l = LBT_INPUT_SPECS_INIT;
	lbt_input_opts base, o;
	lbt_err err;

	memset(&base, 0, sizeof base);
	base.format = "haproxy-httplog";
	base.lb = "lbg";
	base.log_tz = "UTC";
	base.key_regex = "/(x)";
	ck_assert_int_eq(lbt_input_specs_add(&l, "a.log haproxy-cfg=h.cfg tier=lb", &err), 0);
	ck_assert_int_eq(lbt_input_specs_add(&l, "b.log lb=lb2", &err), 0);
	base.specs = l.v;
	base.nspecs = l.n;
	o = lbt_input_spec_opts(&l.v[0], &base);
	ck_assert_ptr_null(o.format);                       /* replaced as a whole */
	ck_assert_str_eq(o.haproxy_cfg, "h.cfg");
	ck_assert_str_eq(o.lb, "lbg");
	ck_assert_str_eq(o.key_regex, "/(x)");
	ck_assert_int_eq(o.tier, LBT_TIER_LB);
	ck_assert_ptr_null(o.specs);
	o = lbt_input_spec_opts(&l.v[1], &base);
	ck_assert_str_eq(o.format, "haproxy-httplog");       /* kept */
	ck_assert_str_eq(o.lb, "lb2");
	ck_assert_int_eq(o.tier, LBT_TIER_NONE);
	lbt_input_specs_free(&l);
}
END_TEST

/* ---- what lbt_input does with them ------------------------------------- */

/* Two proxies logging the same httplog shape with their captures in
 * opposite orders, and a custom format without %ft. */
static const char cfg[] =
	"defaults\n    mode http\n    option httplog\n    log 127.0.0.1:514 local0\n"
	"frontend fe_a\n    bind :80\n"
	"    capture request header Host len 32\n"
	"    capture request header User-Agent len 32\n"
	"frontend fe_b\n    bind :81\n"
	"    capture request header User-Agent len 32\n"
	"    capture request header Host len 32\n"
	"frontend fe_c\n    bind :82\n    log-format \"%ci:%cp [%tr] %ST %{+Q}r\"\n";

#define HL(fe, caps) "192.0.2.1:1000 [01/Nov/2025:23:24:01.123] " fe " be/s 0/0/1/2/3 200 10 " \
	"- - ---- 1/1/0/0/0 0/0 {" caps "} \"GET /x HTTP/1.1\"\n"

START_TEST(lines_go_to_the_proxy_they_name)
{
	lbt_input_opts o;
	lbt_input *in;
	lbt_rec *rec;
	lbt_err err;
	const char *want[][3] = {
		{ "fe_a", "h.example", "curl" }, { "fe_b", "h.example", "curl" },
		{ "fe_b", "h.example", "curl" }, { "fe_c", "", "" }, { "fe_a", "h.example", "curl" },
	};

	put("h.cfg", cfg);
	put("mixed.log", HL("fe_a", "h.example|curl") HL("fe_b", "curl|h.example")
	    HL("fe_b", "curl|h.example") "192.0.2.2:1001 [01/Nov/2025:23:24:02.000] 404 \"GET /y HTTP/1.1\"\n"
	    HL("fe_a", "h.example|curl"));
	memset(&o, 0, sizeof o);
	o.haproxy_cfg = "h.cfg";
	o.wanted = LBT_BIT(LBT_F_HOST) | LBT_BIT(LBT_F_UA);   /* not the frontend: still read */
	ck_assert_ptr_nonnull(in = lbt_input_new(&o, &err));
	lbt_input_add(in, "mixed.log");
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		ck_assert_int_eq(lbt_input_next(in, &rec, &err), 1);
		ck_assert_str_eq(field(rec, LBT_F_FRONTEND), want[i][0]);
		ck_assert_str_eq(field(rec, LBT_F_HOST), want[i][1]);
		ck_assert_str_eq(field(rec, LBT_F_UA), want[i][2]);
		ck_assert_str_eq(field(rec, LBT_F_TIER), "lb");
	}
	ck_assert_int_eq(lbt_input_next(in, &rec, &err), 0);
	ck_assert_uint_eq(lbt_input_stats_get(in)->malformed, 0);
	ck_assert_ptr_null(lbt_input_format_names(in, (char[64]){ 0 }, 64));  /* not built-ins */
	lbt_input_free(in);
}
END_TEST

START_TEST(detected_set_reads_a_mixed_file)
{
	lbt_input_opts o;
	lbt_input *in;
	lbt_rec *rec;
	lbt_err err;
	char names[128];
	int n = 0;

	put("m.log", HL("fe_a", "h|u")
	    "192.0.2.3:1002 [01/Nov/2025:23:24:03.000] fe_t be/s 1/0/5 145 -- 1/1/0/0/0 0/0\n"
	    HL("fe_a", "h|u")
	    "192.0.2.3:1003 [01/Nov/2025:23:24:04.000] fe_t be/s 1/0/5 145 -- 1/1/0/0/0 0/0\n");
	memset(&o, 0, sizeof o);
	ck_assert_ptr_nonnull(in = lbt_input_new(&o, &err));
	lbt_input_add(in, "m.log");
	while (lbt_input_next(in, &rec, &err) == 1)
		n++;
	ck_assert_int_eq(n, 4);
	ck_assert_uint_eq(lbt_input_stats_get(in)->malformed, 0);
	ck_assert_str_eq(lbt_input_format_names(in, names, sizeof names),
	    "haproxy-httplog,haproxy-tcplog");
	lbt_input_free(in);
}
END_TEST

START_TEST(tier_of_records_and_inputs)
{
	lbt_input_specs l = LBT_INPUT_SPECS_INIT;
	lbt_input_opts o;
	lbt_input *in;
	lbt_rec *rec;
	lbt_err err;

	put("h.log", HL("fe_a", "h|u") "Server be/s is DOWN, reason: Layer4 timeout\n");
	put("n.log", "203.0.113.7 - - [01/Nov/2025:23:24:01 +0000] \"GET /x HTTP/1.1\" 200 2 "
	    "\"-\" \"curl/8.5.0\"\n");
	memset(&o, 0, sizeof o);
	o.events = 1;
	ck_assert_ptr_nonnull(in = lbt_input_new(&o, &err));
	lbt_input_add(in, "n.log");
	ck_assert_uint_eq(lbt_input_tiers(in), LBT_BIT(LBT_TIER_BACKEND));
	lbt_input_add(in, "h.log");
	ck_assert_uint_eq(lbt_input_tiers(in), LBT_BIT(LBT_TIER_BACKEND) | LBT_BIT(LBT_TIER_LB));
	lbt_input_add(in, "-");
	ck_assert_uint_eq(lbt_input_tiers(in), LBT_BIT(LBT_TIER_BACKEND) | LBT_BIT(LBT_TIER_LB) |
	    LBT_BIT(LBT_TIER_NONE));
	ck_assert_int_eq(lbt_input_next(in, &rec, &err), 1);
	ck_assert_str_eq(field(rec, LBT_F_TIER), "backend");
	ck_assert_int_eq(lbt_input_next(in, &rec, &err), 1);
	ck_assert_str_eq(field(rec, LBT_F_TIER), "lb");
	ck_assert_int_eq(lbt_input_next(in, &rec, &err), 1);
	ck_assert_int_eq(rec->kind, LBT_KIND_EVENT);
	ck_assert(!(rec->have & LBT_BIT(LBT_F_TIER)));      /* events have none */
	lbt_input_free(in);
	ck_assert_int_eq(lbt_input_specs_add(&l, "n.log tier=lb lb=web1", &err), 0);
	o.specs = l.v;
	o.nspecs = l.n;
	ck_assert_ptr_nonnull(in = lbt_input_new(&o, &err));
	ck_assert_uint_eq(lbt_input_tiers(in), LBT_BIT(LBT_TIER_LB));   /* no look needed */
	ck_assert_int_eq(lbt_input_next(in, &rec, &err), 1);
	ck_assert_str_eq(field(rec, LBT_F_TIER), "lb");
	ck_assert_str_eq(field(rec, LBT_F_LB), "web1");
	lbt_input_free(in);
	lbt_input_specs_free(&l);
}
END_TEST

START_TEST(spec_errors_name_their_line)
{
	lbt_input_specs l = LBT_INPUT_SPECS_INIT;
	lbt_input_opts o;
	lbt_err err;

	put("s.txt", "a.log lb=x\nb.log log-tz=Mars/Olympus\n");
	put("a.log", "");
	put("b.log", "");
	ck_assert_int_eq(lbt_input_specs_read(&l, "s.txt", &err), 2);
	memset(&o, 0, sizeof o);
	o.specs = l.v;
	o.nspecs = l.n;
	ck_assert_ptr_null(lbt_input_new(&o, &err));
	ck_assert_str_eq(err.file, "s.txt");
	ck_assert_uint_eq(err.line, 2);
	ck_assert_ptr_nonnull(strstr(err.msg, "Mars/Olympus"));
	lbt_input_specs_free(&l);
}
END_TEST

/* The suite. */
static Suite *input_spec_suite(void)
{
	Suite *s = suite_create("input_spec");
	TCase *tc = tcase_create("spec");
	TCase *ts = tcase_create("sets");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, words_blanks_semicolons);
	tcase_add_test(tc, words_quotes_backslashes_comments);
	tcase_add_test(tc, sources_file_relative_paths);
	tcase_add_test(tc, sources_file_errors);
	tcase_add_test(tc, spec_options_over_the_global_ones);
	suite_add_tcase(s, tc);
	tcase_add_checked_fixture(ts, setup, teardown);
	tcase_add_test(ts, lines_go_to_the_proxy_they_name);
	tcase_add_test(ts, detected_set_reads_a_mixed_file);
	tcase_add_test(ts, tier_of_records_and_inputs);
	tcase_add_test(ts, spec_errors_name_their_line);
	suite_add_tcase(s, ts);
	return s;
}

/* Run the suite.  @return 0 when every test passed. */
int main(void)
{
	SRunner *sr = srunner_create(input_spec_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
