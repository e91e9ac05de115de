/*
 * check_input.c - lib/read/input.c: the record stream over files, formats,
 * wrappers, detection, malformed lines, strict mode, failed files, filters,
 * keys, provenance and lbt-index's resume hooks.
 *
 * Inputs are written to a temporary directory by each test; expected values
 * are read off those lines by hand.
 */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lbt/input.h"
#include "tmpdir.h"

#define L1 "203.0.113.7:51234 [01/Nov/2025:23:24:01.123] fe_http be_app/app1 " \
	"0/0/1/12/13 200 135 - - ---- 12/8/3/2/0 0/0 " \
	"\"GET /ping/5BF66975-D4C7-4BF5-BCC8-B8D8A82EA278/start HTTP/1.1\""
#define L2 "198.51.100.66:46208 [01/Nov/2025:23:24:04.994] fe_http fe_http/<NOSRV> " \
	"-1/5002/-1/-1/5001 500 0 - - PT-- 3/2/0/0/0 0/0 \"GET /wp-login.php HTTP/1.1\""
#define NG "203.0.113.7 - - [01/Nov/2025:23:24:01 +0000] \"GET /x HTTP/1.1\" 200 2 " \
	"\"-\" \"curl/8.5.0\""
#define EV "Server be_app/app2 is DOWN, reason: Layer4 timeout"


/* Diagnostics collected by the callback. */
struct diag {
	char msg[16][600];
	int n;
};

/* The diag callback: keep "file:line: msg". */
static void collect(void *ctx, const lbt_err *err)
{
	struct diag *d = ctx;
	char buf[1024];

	if (d->n < 16)
		snprintf(d->msg[d->n++], sizeof d->msg[0], "%s", lbt_err_str(err, buf, sizeof buf));
}

/* A fresh temporary directory for the test (tmpdir.h). */
static void setup(void)
{
	tmpdir_make("check_input", 1);
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

/* Options with the diag callback on d. */
static lbt_input_opts opts_with(struct diag *d)
{
	lbt_input_opts o;

	memset(&o, 0, sizeof o);
	o.diag = collect;
	o.diag_ctx = d;
	memset(d, 0, sizeof *d);
	return o;
}

/* Text of field f of rec. */
static const char *field(lbt_rec *rec, lbt_field f)
{
	static char buf[256];

	lbt_rec_format_field(rec, f, buf, sizeof buf);
	return buf;
}

START_TEST(fixed_format_records)
{
	struct diag d;
	lbt_input_opts o = opts_with(&d);
	lbt_err err;
	lbt_input *in;
	lbt_rec *rec;
	const lbt_input_stats *st;

	put("a.log", L1 "\n\n" L2 "\n");
	o.format = "haproxy-httplog";
	in = lbt_input_new(&o, &err);
	ck_assert_msg(in != NULL, "%s", err.msg);
	lbt_input_add(in, "a.log");
	ck_assert_int_eq(lbt_input_next(in, &rec, &err), 1);
	ck_assert_str_eq(field(rec, LBT_F_CLIENT), "203.0.113.7");
	ck_assert_str_eq(field(rec, LBT_F_TIME), "2025-11-01T23:24:01.123Z");
	ck_assert_str_eq(field(rec, LBT_F_KEY), "5bf66975-d4c7-4bf5-bcc8-b8d8a82ea278");
	ck_assert_str_eq(rec->file, "a.log");
	ck_assert_uint_eq(rec->line, 1);
	ck_assert_str_eq(lbt_format_name(lbt_input_format(in)), "haproxy-httplog");
	ck_assert_int_eq(lbt_input_next(in, &rec, &err), 1);
	ck_assert_uint_eq(rec->line, 3);                  /* the blank line 2 is skipped */
	ck_assert_int_eq(rec->status, 500);
	ck_assert(!(rec->have & LBT_BIT(LBT_F_KEY)));
	ck_assert_int_eq(lbt_input_next(in, &rec, &err), 0);
	st = lbt_input_stats_get(in);
	ck_assert_uint_eq(st->files, 1);
	ck_assert_uint_eq(st->lines, 3);
	ck_assert_uint_eq(st->records, 2);
	ck_assert_uint_eq(st->skipped, 1);
	ck_assert_uint_eq(st->malformed, 0);
	ck_assert_int_eq(d.n, 0);
	lbt_input_free(in);
}
END_TEST

START_TEST(malformed_reported_and_counted)
{
	struct diag d;
	lbt_input_opts o = opts_with(&d);
	lbt_err err;
	lbt_input *in;
	lbt_rec *rec;
	int n = 0;

	put("m.log", "x1\n" L1 "\nx2\nx3\nx4\n" L2 "\nx5\nx6\n");
	o.format = "haproxy-httplog";
	o.max_reported = 3;
	in = lbt_input_new(&o, &err);
	ck_assert_ptr_nonnull(in);
	lbt_input_add(in, "m.log");
	while (lbt_input_next(in, &rec, &err) == 1)
		n++;
	ck_assert_int_eq(n, 2);
	ck_assert_uint_eq(lbt_input_stats_get(in)->malformed, 6);
	ck_assert_int_eq(d.n, 3);
	ck_assert(strncmp(d.msg[0], "m.log:1: ", 9) == 0);
	ck_assert(strncmp(d.msg[1], "m.log:3: ", 9) == 0);
	ck_assert(strncmp(d.msg[2], "m.log:4: ", 9) == 0);
	lbt_input_free(in);
}
END_TEST

START_TEST(strict_stops)
{
	struct diag d;
	lbt_input_opts o = opts_with(&d);
	lbt_err err;
	lbt_input *in;
	lbt_rec *rec;

	put("s.log", L1 "\nbad line\n" L2 "\n");
	put("t.log", L2 "\n");
	o.format = "haproxy-httplog";
	o.strict = 1;
	in = lbt_input_new(&o, &err);
	lbt_input_add(in, "s.log");
	lbt_input_add(in, "t.log");
	ck_assert_int_eq(lbt_input_next(in, &rec, &err), 1);
	ck_assert_int_eq(lbt_input_next(in, &rec, &err), -1);
	ck_assert_str_eq(err.file, "s.log");
	ck_assert_uint_eq(err.line, 2);
	ck_assert_int_eq(lbt_input_next(in, &rec, &err), 0);    /* nothing after that */
	ck_assert_int_eq(d.n, 0);                               /* the error, not a diag */
	lbt_input_free(in);
}
END_TEST

START_TEST(failed_file_then_next)
{
	struct diag d;
	lbt_input_opts o = opts_with(&d);
	lbt_err err;
	lbt_input *in;
	lbt_rec *rec;

	put("ok.log", NG "\n");
	in = lbt_input_new(&o, &err);
	lbt_input_add(in, "missing.log");
	lbt_input_add(in, "ok.log");
	ck_assert_int_eq(lbt_input_next(in, &rec, &err), -1);
	ck_assert_str_eq(err.file, "missing.log");
	ck_assert_int_eq(lbt_input_next(in, &rec, &err), 1);
	ck_assert_str_eq(rec->file, "ok.log");
	ck_assert_int_eq(lbt_input_next(in, &rec, &err), 0);
	ck_assert_uint_eq(lbt_input_stats_get(in)->failed_files, 1);
	ck_assert_uint_eq(lbt_input_stats_get(in)->files, 2);
	lbt_input_free(in);
}
END_TEST

START_TEST(detection_notes)
{
	struct diag d;
	lbt_input_opts o = opts_with(&d);
	lbt_err err;
	lbt_input *in;
	lbt_rec *rec;
	int n = 0;

	put("h.log", L1 "\n" L2 "\n");
	put("n.log", NG "\n");
	in = lbt_input_new(&o, &err);
	lbt_input_add(in, "h.log");
	lbt_input_add(in, "n.log");
	while (lbt_input_next(in, &rec, &err) == 1) {
		n++;
		ck_assert_str_eq(lbt_format_name(lbt_input_format(in)),
		    n <= 2 ? "haproxy-httplog" : "nginx-combined");
	}
	ck_assert_int_eq(n, 3);
	ck_assert_int_eq(d.n, 0);
	lbt_input_free(in);
}
END_TEST

START_TEST(detection_fails)
{
	struct diag d;
	lbt_input_opts o = opts_with(&d);
	lbt_err err;
	lbt_input *in;
	lbt_rec *rec;

	put("j.log", "hello\nworld\n");
	put("n.log", NG "\n");
	in = lbt_input_new(&o, &err);
	lbt_input_add(in, "j.log");
	lbt_input_add(in, "n.log");
	ck_assert_int_eq(lbt_input_next(in, &rec, &err), -1);
	ck_assert_str_eq(err.file, "j.log");
#define NOFMT "no known format matches the first 2 lines (best: "
	ck_assert_msg(strncmp(err.msg, NOFMT, sizeof NOFMT - 1) == 0, "%s", err.msg);
	ck_assert_int_eq(lbt_input_next(in, &rec, &err), 1);
	ck_assert_int_eq(lbt_input_next(in, &rec, &err), 0);
	lbt_input_free(in);
}
END_TEST

/*
 * The stats of an empty answer: the span of the records read before the
 * filters (L1 at 23:24:01.123, L2 at 23:24:04.994), and the inputs none of
 * whose lines was read (a wrong format: every line malformed; no format
 * detected: the error is of kind unread) with the first one's path and
 * lines, an events-only file and an empty one not counted.
 */
START_TEST(span_and_unread)
{
	struct diag d;
	lbt_input_opts o = opts_with(&d);
	const lbt_input_stats *st;
	lbt_err err;
	lbt_input *in;
	lbt_rec *rec;
	int r, n = 0;

	put("a.log", L2 "\n" L1 "\n");
	put("nginx.log", NG "\n" NG "\n" NG "\n");
	put("ev.log", EV "\n");
	put("empty.log", "");
	put("j.log", "hello\n");
	o.format = "haproxy-httplog";
	o.filter.since = "2030-01-01";
	in = lbt_input_new(&o, &err);
	ck_assert_ptr_nonnull(in);
	lbt_input_add(in, "a.log");
	lbt_input_add(in, "nginx.log");
	lbt_input_add(in, "ev.log");
	lbt_input_add(in, "empty.log");
	while ((r = lbt_input_next(in, &rec, &err)) != 0)
		n += r == 1;
	ck_assert_int_eq(n, 0);                  /* the window held nothing */
	st = lbt_input_stats_get(in);
	ck_assert_int_eq(st->records, 2);
	ck_assert_int_eq(st->filtered, 2);
	ck_assert_int_eq(st->first_us, 1762039441123000LL);   /* 2025-11-01T23:24:01.123Z */
	ck_assert_int_eq(st->last_us, 1762039444994000LL);    /* 23:24:04.994 */
	ck_assert_int_eq(st->unread_files, 1);
	ck_assert_str_eq(st->unread_path, "nginx.log");
	ck_assert_int_eq(st->unread_lines, 3);
	lbt_input_free(in);

	o = opts_with(&d);                        /* detection: no format at all */
	in = lbt_input_new(&o, &err);
	lbt_input_add(in, "j.log");
	ck_assert_int_eq(lbt_input_next(in, &rec, &err), -1);
	ck_assert_int_eq(err.kind, LBT_ERR_UNREAD);
	ck_assert_int_eq(lbt_input_next(in, &rec, &err), 0);
	ck_assert_int_eq(lbt_input_stats_get(in)->unread_files, 1);
	ck_assert_str_eq(lbt_input_stats_get(in)->unread_path, "j.log");
	lbt_input_free(in);
}
END_TEST

START_TEST(events_and_wrappers)
{
	struct diag d;
	lbt_input_opts o = opts_with(&d);
	lbt_err err;
	lbt_input *in;
	lbt_rec *rec;
	size_t len;
	const char *line;

	put("w.log", "<134>Nov  1 23:24:01 lb1 haproxy[1]: " L1 "\n"
	    "<129>Nov  1 23:24:02 lb1 haproxy[1]: " EV "\n"
	    "<134>Nov  1 23:24:05 lb2 haproxy[1]: " L2 "\n");
	o.format = "haproxy-httplog";
	o.events = 1;
	in = lbt_input_new(&o, &err);
	lbt_input_add(in, "w.log");
	ck_assert_int_eq(lbt_input_next(in, &rec, &err), 1);
	ck_assert_str_eq(field(rec, LBT_F_LB), "lb1");
	line = lbt_input_line(in, &len);
	ck_assert_uint_eq(len, strlen("<134>Nov  1 23:24:01 lb1 haproxy[1]: " L1));
	ck_assert(strncmp(line, "<134>Nov  1", 11) == 0);
	ck_assert_int_eq(lbt_input_next(in, &rec, &err), 1);
	ck_assert_int_eq(rec->kind, LBT_KIND_EVENT);
	ck_assert_str_eq(field(rec, LBT_F_SERVER), "app2");
	ck_assert_int_eq(rec->clock, LBT_CLOCK_SYSLOG);
	ck_assert_int_eq(lbt_input_next(in, &rec, &err), 1);
	ck_assert_str_eq(field(rec, LBT_F_LB), "lb2");
	ck_assert_int_eq(lbt_input_next(in, &rec, &err), 0);
	ck_assert_uint_eq(lbt_input_stats_get(in)->events, 1);
	ck_assert_uint_eq(lbt_input_stats_get(in)->records, 2);
	lbt_input_free(in);

	o.events = 0;                                    /* counted, not returned */
	o.lb = "edge";
	in = lbt_input_new(&o, &err);
	lbt_input_add(in, "w.log");
	ck_assert_int_eq(lbt_input_next(in, &rec, &err), 1);
	ck_assert_str_eq(field(rec, LBT_F_LB), "lb1");   /* the syslog host wins */
	ck_assert_int_eq(lbt_input_next(in, &rec, &err), 1);
	ck_assert_uint_eq(rec->line, 3);
	ck_assert_uint_eq(lbt_input_stats_get(in)->events, 1);
	lbt_input_free(in);
}
END_TEST

/* Read every record of `path` (events asked) into "line:clock:time" items, one per line. */
static void timeline_of(const char *path, const lbt_input_opts *base, char *out, size_t size)
{
	lbt_input_opts o = *base;
	lbt_err err;
	lbt_input *in;
	lbt_rec *rec;
	size_t n = 0;

	o.events = 1;
	in = lbt_input_new(&o, &err);
	ck_assert_msg(in != NULL, "%s", err.msg);
	lbt_input_add(in, path);
	out[0] = '\0';
	while (lbt_input_next(in, &rec, &err) == 1) {
		char clock[256];

		snprintf(clock, sizeof clock, "%s", field(rec, LBT_F_CLOCK));
		n += (size_t)snprintf(out + n, size - n, "%llu:%s:%s\n",
		    (unsigned long long)rec->line, clock, field(rec, LBT_F_TIME));
	}
	lbt_input_free(in);
}

/*
 * Events without a stamp take the time of the request line before them,
 * or, before the first one, after them (clock inferred); file order is
 * kept, per file; filters see the borrowed time; the raw line follows.
 * L1 is at 23:24:01.123, L2 at 23:24:04.994 (read off the lines).
 */
START_TEST(event_times_inferred)
{
	struct diag d;
	lbt_input_opts o = opts_with(&d);
	lbt_input *in;
	lbt_rec *rec;
	lbt_err err;
	size_t len;
	char got[2048], *big;

	put("e.log", EV "\n" EV "\n" L1 "\n" EV "\n" L2 "\n" EV "\n");
	put("f.log", EV "\n");
	o.format = "haproxy-httplog";
	timeline_of("e.log", &o, got, sizeof got);
	ck_assert_str_eq(got, "1:inferred:2025-11-01T23:24:01.123Z\n2:inferred:2025-11-01T23:24:01.123Z\n"
	    "3:request:2025-11-01T23:24:01.123Z\n4:inferred:2025-11-01T23:24:01.123Z\n"
	    "5:request:2025-11-01T23:24:04.994Z\n6:inferred:2025-11-01T23:24:04.994Z\n");
	timeline_of("f.log", &o, got, sizeof got);          /* no request line: no time */
	ck_assert_str_eq(got, "1::\n");
	o.filter.since = "2025-11-01T23:24:02Z";
	timeline_of("e.log", &o, got, sizeof got);
	ck_assert_str_eq(got, "5:request:2025-11-01T23:24:04.994Z\n6:inferred:2025-11-01T23:24:04.994Z\n");
	o.filter.since = NULL;

	o.events = 1;                                       /* a second file starts afresh */
	in = lbt_input_new(&o, &err);
	lbt_input_add(in, "e.log");
	lbt_input_add(in, "f.log");
	for (int i = 0; i < 6; i++)
		ck_assert_int_eq(lbt_input_next(in, &rec, &err), 1);
	ck_assert_int_eq(lbt_input_next(in, &rec, &err), 1);
	ck_assert_str_eq(rec->file, "f.log");
	ck_assert(!(rec->have & LBT_BIT(LBT_F_TIME)));
	ck_assert(memcmp(lbt_input_line(in, &len), EV, strlen(EV)) == 0 && len == strlen(EV));
	ck_assert_int_eq(lbt_input_next(in, &rec, &err), 0);
	ck_assert_uint_eq(lbt_input_stats_get(in)->events, 5);
	lbt_input_free(in);

	/* More than 1024 waiting events: the first 1025 go out untimed, in
	 * order; the next ones wait again, for L1. */
	big = malloc(1100 * (sizeof EV) + sizeof L1 + 2);
	big[0] = '\0';
	for (int i = 0; i < 1100; i++)
		strcat(big, EV "\n");
	strcat(big, L1 "\n");
	put("g.log", big);
	free(big);
	big = malloc(1 << 16);
	timeline_of("g.log", &o, big, 1 << 16);
	ck_assert(strncmp(big, "1::\n2::\n", 8) == 0);
	ck_assert_ptr_nonnull(strstr(big, "\n1025::\n1026:inferred:2025-11-01T23:24:01.123Z\n"));
	ck_assert_ptr_nonnull(strstr(big, "\n1100:inferred:2025-11-01T23:24:01.123Z\n"
	    "1101:request:2025-11-01T23:24:01.123Z\n"));
	free(big);
}
END_TEST

START_TEST(filters_keys_wanted)
{
	struct diag d;
	lbt_input_opts o = opts_with(&d);
	lbt_err err;
	lbt_input *in;
	lbt_rec *rec;

	put("f.log", L1 "\n" L2 "\n");
	o.format = "haproxy-httplog";
	o.filter.status = "5xx";
	o.key_regex = "^/([a-z-]+)\\.php";
	o.wanted = LBT_BIT(LBT_F_KEY);
	in = lbt_input_new(&o, &err);
	ck_assert_msg(in != NULL, "%s", err.msg);
	lbt_input_add(in, "f.log");
	ck_assert_int_eq(lbt_input_next(in, &rec, &err), 1);
	ck_assert_uint_eq(rec->line, 2);
	ck_assert_str_eq(field(rec, LBT_F_KEY), "wp-login");
	ck_assert_int_eq(lbt_input_next(in, &rec, &err), 0);
	ck_assert_uint_eq(lbt_input_stats_get(in)->filtered, 1);
	lbt_input_free(in);

	o.filter.status = NULL;                          /* lb absent: --lb never passes */
	o.filter.lb = "lb1";
	in = lbt_input_new(&o, &err);
	lbt_input_add(in, "f.log");
	ck_assert_int_eq(lbt_input_next(in, &rec, &err), 0);
	ck_assert_uint_eq(lbt_input_stats_get(in)->filtered, 2);
	lbt_input_free(in);
}
END_TEST

START_TEST(option_errors)
{
	lbt_input_opts o;
	lbt_err err;

	memset(&o, 0, sizeof o);
	o.format = "haproxy-httplog";
	o.nginx_conf = "nginx.conf";
	ck_assert_ptr_null(lbt_input_new(&o, &err));
	ck_assert_str_eq(err.msg, "--format, --log-format, --haproxy-cfg and --nginx-conf "
	    "exclude each other");
	memset(&o, 0, sizeof o);
	o.log_name = "main";
	ck_assert_ptr_null(lbt_input_new(&o, &err));
	ck_assert_str_eq(err.msg, "--log-name needs --nginx-conf");
	memset(&o, 0, sizeof o);
	o.log_format = "no variables here";
	ck_assert_ptr_null(lbt_input_new(&o, &err));
	ck_assert_str_eq(err.msg, "--log-format: 'no variables here' has neither HAProxy "
	    "%-items nor NGINX $variables");
	memset(&o, 0, sizeof o);
	o.key_regex = "(a)(b)";
	ck_assert_ptr_null(lbt_input_new(&o, &err));
	ck_assert_str_eq(err.msg, "--key-regex: pattern must have exactly one capture group (has 2)");
	memset(&o, 0, sizeof o);
	o.filter.since = "never";
	ck_assert_ptr_null(lbt_input_new(&o, &err));
	ck_assert(strncmp(err.msg, "--since: 'never' is not a time", 30) == 0);
	lbt_input_free(NULL);
}
END_TEST

START_TEST(log_format_dialects)
{
	struct diag d;
	lbt_input_opts o = opts_with(&d);
	lbt_err err;
	lbt_input *in;
	lbt_rec *rec;

	put("p.log", "100% 203.0.113.7:51234 429\n");
	o.log_format = "100%% %ci:%cp %ST";
	in = lbt_input_new(&o, &err);
	ck_assert_msg(in != NULL, "%s", err.msg);
	ck_assert_int_eq(lbt_format_dialect(lbt_input_format(in)), LBT_DIALECT_HAPROXY);
	lbt_input_add(in, "p.log");
	ck_assert_int_eq(lbt_input_next(in, &rec, &err), 1);
	ck_assert_int_eq(rec->status, 429);
	lbt_input_free(in);

	put("q.log", "203.0.113.7 404\n");
	o.log_format = "$remote_addr $status";
	in = lbt_input_new(&o, &err);
	ck_assert_msg(in != NULL, "%s", err.msg);
	ck_assert_int_eq(lbt_format_dialect(lbt_input_format(in)), LBT_DIALECT_NGINX);
	lbt_input_add(in, "q.log");
	ck_assert_int_eq(lbt_input_next(in, &rec, &err), 1);
	ck_assert_int_eq(rec->status, 404);
	lbt_input_free(in);
}
END_TEST

START_TEST(long_line_and_resume)
{
	struct diag d;
	lbt_input_opts o = opts_with(&d);
	lbt_err err;
	lbt_input *in;
	lbt_rec *rec;
	FILE *fp = fopen("long.log", "w");

	ck_assert_ptr_nonnull(fp);
	fputs(L1 "\n", fp);
	for (int i = 0; i < (1 << 20) + 10; i++)
		fputc('x', fp);
	fputs("\n" L2 "\n", fp);
	fclose(fp);
	o.format = "haproxy-httplog";
	in = lbt_input_new(&o, &err);
	lbt_input_add(in, "long.log");
	ck_assert_int_eq(lbt_input_next(in, &rec, &err), 1);
	ck_assert_int_eq(lbt_input_next(in, &rec, &err), 1);
	ck_assert_uint_eq(rec->line, 3);
	ck_assert_int_eq(d.n, 1);
	ck_assert_str_eq(d.msg[0], "long.log:2: line longer than 1 MiB");
	lbt_input_free(in);

	/* lbt-index's resume: skip two lines, a provenance name. */
	in = lbt_input_new(&o, &err);
	lbt_input_add_at(in, "long.log", "rotated.log", 2);
	ck_assert_int_eq(lbt_input_next(in, &rec, &err), 1);
	ck_assert_uint_eq(rec->line, 3);
	ck_assert_str_eq(rec->file, "rotated.log");
	ck_assert_ptr_nonnull(lbt_input_source(in));
	ck_assert_uint_eq(lbt_input_stats_get(in)->lines, 1);
	ck_assert_int_eq(lbt_input_next(in, &rec, &err), 0);
	ck_assert_ptr_null(lbt_input_source(in));
	lbt_input_free(in);
}
END_TEST

START_TEST(score_file)
{
	lbt_format_score sc[64];
	lbt_err err;
	int tried, n;

	put("h.log", L1 "\n" EV "\n" L2 "\n\n");
	n = lbt_input_score_file("h.log", NULL, sc, 64, &tried, &err);
	ck_assert_int_gt(n, 2);
	ck_assert_int_eq(tried, 2);                      /* the event and blank left out */
	ck_assert_str_eq(sc[0].name, "haproxy-httplog");
	ck_assert_int_eq(sc[0].parsed, 2);
	ck_assert_int_eq(lbt_input_score_file("none.log", NULL, sc, 64, &tried, &err), -1);
	ck_assert_str_eq(err.file, "none.log");
}
END_TEST

START_TEST(parse_one_line)
{
	struct diag d;
	lbt_input_opts o = opts_with(&d);
	lbt_err err;
	lbt_input *in = lbt_input_new(&o, &err);
	lbt_format *f = lbt_format_open("haproxy-httplog", &err);
	const char *w = "<134>Nov  1 23:24:01 lb1 haproxy[1]: " L1;
	lbt_rec *rec;

	ck_assert_ptr_nonnull(in);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(lbt_input_parse_line(in, f, w, strlen(w), &rec, &err), 1);
	ck_assert_str_eq(field(rec, LBT_F_LB), "lb1");
	ck_assert_str_eq(field(rec, LBT_F_KEY), "5bf66975-d4c7-4bf5-bcc8-b8d8a82ea278");
	ck_assert_int_eq(lbt_input_parse_line(in, f, EV, strlen(EV), &rec, &err), 1);
	ck_assert_int_eq(rec->kind, LBT_KIND_EVENT);
	ck_assert_int_eq(lbt_input_parse_line(in, NULL, EV, strlen(EV), &rec, &err), 1);
	ck_assert_int_eq(lbt_input_parse_line(in, NULL, L1, strlen(L1), &rec, &err), -1);
	ck_assert_str_eq(err.msg, "no format");
	ck_assert_int_eq(lbt_input_parse_line(in, f, "junk", 4, &rec, &err), -1);
	ck_assert(err.msg[0] != '\0');
	ck_assert_uint_eq(lbt_input_stats_get(in)->records, 0);     /* not counted */
	lbt_format_free(f);
	lbt_input_free(in);
}
END_TEST

/* Fork a writer of `first` then (after a byte on go, when go >= 0) `rest`
 * to fd; the parent keeps neither end.  @return its pid */
static pid_t writer(int fd, const char *first, int go, const char *rest)
{
	pid_t pid = fork();
	char c;

	ck_assert_int_ge(pid, 0);
	if (pid > 0)
		return pid;
	if (write(fd, first, strlen(first)) < 0 || (go >= 0 && read(go, &c, 1) != 1) ||
	    write(fd, rest, strlen(rest)) < 0)
		_exit(1);
	_exit(0);
}

/* A FIFO is read once: the tiers known ahead do not open it (that read its
 * first lines and lost them, then the second open waited for a writer that
 * was gone), and every line comes out. */
START_TEST(fifo_read_once)
{
	struct diag d;
	lbt_input_opts o = opts_with(&d);
	lbt_err err;
	lbt_input *in;
	lbt_rec *rec;
	pid_t pid;
	int fd;

	ck_assert_int_eq(mkfifo("f", 0600), 0);
	in = lbt_input_new(&o, &err);
	ck_assert_ptr_nonnull(in);
	lbt_input_add(in, "f");
	ck_assert(lbt_input_live(in));
	ck_assert_uint_eq(lbt_input_tiers(in), LBT_BIT(LBT_TIER_NONE));   /* no open: no block */
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		fd = open("f", O_WRONLY);
		_exit(fd < 0 || write(fd, L1 "\n" L2 "\n", strlen(L1 L2) + 2) < 0);
	}
	ck_assert_int_eq(lbt_input_next(in, &rec, &err), 1);
	ck_assert_uint_eq(rec->line, 1);
	ck_assert_int_eq(lbt_input_next(in, &rec, &err), 1);
	ck_assert_uint_eq(rec->line, 2);
	ck_assert_int_eq(lbt_input_next(in, &rec, &err), 0);
	ck_assert_uint_eq(lbt_input_stats_get(in)->records, 2);
	lbt_input_free(in);
	waitpid(pid, NULL, 0);
}
END_TEST

/* A live stream (tail -f): detection samples the lines written before the
 * writer pauses, and the first record comes out before the second line is
 * written (the writer waits for it). */
START_TEST(live_stream_first_record)
{
	struct diag d;
	lbt_input_opts o = opts_with(&d);
	int data[2], go[2];
	lbt_err err;
	lbt_input *in;
	lbt_rec *rec;
	pid_t pid;

	ck_assert_int_eq(pipe(data), 0);
	ck_assert_int_eq(pipe(go), 0);
	pid = writer(data[1], L1 "\n", go[0], L2 "\n");
	close(data[1]);
	close(go[0]);
	ck_assert_int_eq(dup2(data[0], 0), 0);
	close(data[0]);
	in = lbt_input_new(&o, &err);
	ck_assert_ptr_nonnull(in);
	lbt_input_add(in, "-");
	ck_assert(lbt_input_live(in));
	ck_assert_int_eq(lbt_input_next(in, &rec, &err), 1);
	ck_assert_str_eq(field(rec, LBT_F_CLIENT), "203.0.113.7");
	ck_assert_int_eq(write(go[1], "g", 1), 1);
	close(go[1]);
	ck_assert_int_eq(lbt_input_next(in, &rec, &err), 1);
	ck_assert_int_eq(rec->status, 500);
	ck_assert_int_eq(lbt_input_next(in, &rec, &err), 0);
	lbt_input_free(in);
	waitpid(pid, NULL, 0);
}
END_TEST

/* Build the suite. */
static Suite *input_suite(void)
{
	Suite *s = suite_create("input");
	TCase *tc = tcase_create("input");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, fixed_format_records);
	tcase_add_test(tc, malformed_reported_and_counted);
	tcase_add_test(tc, strict_stops);
	tcase_add_test(tc, failed_file_then_next);
	tcase_add_test(tc, detection_notes);
	tcase_add_test(tc, detection_fails);
	tcase_add_test(tc, span_and_unread);
	tcase_add_test(tc, events_and_wrappers);
	tcase_add_test(tc, event_times_inferred);
	tcase_add_test(tc, filters_keys_wanted);
	tcase_add_test(tc, option_errors);
	tcase_add_test(tc, log_format_dialects);
	tcase_add_test(tc, long_line_and_resume);
	tcase_add_test(tc, score_file);
	tcase_add_test(tc, parse_one_line);
	tcase_add_test(tc, fifo_read_once);
	tcase_add_test(tc, live_stream_first_record);
	suite_add_tcase(s, tc);
	return s;
}

/* Run the suite; exit status 0 when every test passed. */
int main(void)
{
	SRunner *sr = srunner_create(input_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
