/*
 * check_format.c - unit tests for lib/format*.c.
 *
 * Most cases are data: tests/data/formats/NAME.cases, read by cases_file
 * (so that a new case is a text edit).  Syntax, jq.test style:
 *
 *   # comment (between cases)
 *   @format NAME            built-in or descriptor path (default: NAME of the file)
 *   @haproxy TEMPLATE       compile an HAProxy template instead
 *   @nginx ESCAPE TEMPLATE  compile an NGINX template (ESCAPE: default, json, none)
 *   @captures host,ua       lbt_format_set_captures for the cases below
 *   @tz Europe/Paris        zone of %t/%tr stamps for the cases below
 *   @wanted status,path     lbt_format_set_wanted for the cases below
 *   @trusted NET,NET        lbt_format_set_trusted for the cases below ("empty":
 *                           an empty list; "-": none, the default)
 *   @event                  read the lines below with lbt_event_parse (an
 *                           event line, no format; @tz applies)
 *
 *   <the raw message>
 *   field=value<TAB>field=value ...   (on one or more lines)
 *   <blank line>
 *
 * The expectation lists every field present (file and line aside) with its
 * text as lbt_rec_format_field() writes it, plus the pseudo-fields clock=
 * (none, accept, request, end, syslog, inferred) and kind=event; any other
 * present field fails the case.  In a value, \xHH is the byte HH (control
 * bytes of junk requests).  "! message" expects LBT_PARSE_BAD with exactly
 * that message, "SKIP" expects LBT_PARSE_SKIP.  Expected values are written
 * by hand from the raw line.
 *
 * The rest are targeted tests: compile errors with their column, the
 * wanted mask, captures, descriptors, detection, haproxy.cfg and nginx.conf
 * reading, CBOR +bin, and the real HAProxy 2.6 / NGINX 1.22 fixtures of
 * tests/data/real (every request line parses).
 */
#include <check.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lbt/addr.h"
#include "lbt/event.h"
#include "lbt/format.h"
#include "lbt/syslog.h"

#define DATA LBT_TEST_DATA "/formats"
#define REAL LBT_TEST_DATA "/real"

/* State of one .cases file run. */
struct run {
	const char *file;
	char spec[4096];          /* @format / @haproxy / @nginx argument */
	int kind;                 /* 0 format, 1 haproxy, 2 nginx, 3 events */
	char captures[256];
	char tz[64];
	uint64_t wanted;
	lbt_ipset *trusted;       /* @trusted, NULL: none */
	lbt_format *f;
	lbt_tz *z;
	char fails[16384];
	size_t nf;
	int failures, cases;
};

/* Record a failure "file:line: ...". */
static void note_fail(struct run *r, unsigned line, const char *fmt, const char *a, const char *b)
{
	char msg[1024];
	int n = snprintf(msg, sizeof msg, "%s:%u: ", r->file, line);

	snprintf(msg + n, sizeof msg - (size_t)n, fmt, a, b);
	if (r->nf < sizeof r->fails - 2)
		r->nf += (size_t)snprintf(r->fails + r->nf, sizeof r->fails - r->nf, "%s\n", msg);
	r->failures++;
}

/* Compile the format the directives describe (once per change). @return 0 or -1 */
static int ensure_format(struct run *r, unsigned line)
{
	lbt_err err;
	char *sp;

	if (r->f != NULL || (r->kind == 3 && r->z != NULL) || (r->kind == 3 && !r->tz[0]))
		return 0;
	if (r->kind == 3) {
		r->z = lbt_tz_new(r->tz, &err);
		return 0;
	}
	if (r->kind == 1)
		r->f = lbt_format_compile(LBT_DIALECT_HAPROXY, r->spec, NULL, &err);
	else if (r->kind == 2 && (sp = strchr(r->spec, ' ')) != NULL) {
		*sp = '\0';
		r->f = lbt_format_compile(LBT_DIALECT_NGINX, sp + 1, r->spec, &err);
		*sp = ' ';
	} else
		r->f = lbt_format_open(r->spec, &err);
	if (r->f == NULL) {
		note_fail(r, line, "format '%s': %s", r->spec, err.msg);
		return -1;
	}
	if (r->captures[0] && lbt_format_set_captures(r->f, r->captures, &err) < 0)
		note_fail(r, line, "captures '%s': %s", r->captures, err.msg);
	lbt_tz_free(r->z);
	r->z = r->tz[0] ? lbt_tz_new(r->tz, &err) : NULL;
	lbt_format_set_tz(r->f, r->z);
	lbt_format_set_wanted(r->f, r->wanted);
	lbt_format_set_trusted(r->f, r->trusted);
	return 0;
}

/* The @trusted set of a comma list ("empty": none in it, "-": no set). */
static lbt_ipset *trusted_set(const char *list)
{
	char buf[512], *save = NULL;
	lbt_ipset *t;

	if (strcmp(list, "-") == 0)
		return NULL;
	ck_assert_ptr_nonnull(t = lbt_ipset_new());
	snprintf(buf, sizeof buf, "%s", strcmp(list, "empty") == 0 ? "" : list);
	for (char *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		lbt_addr a;
		int bits;

		ck_assert_int_eq(lbt_addr_parse_prefix(w, &a, &bits), 0);
		ck_assert_int_eq(lbt_ipset_add(t, &a, bits), 0);
	}
	return t;
}

/* Field mask of a comma list of field names. */
static uint64_t field_mask(const char *list)
{
	uint64_t m = 0;
	char buf[512], *save = NULL;

	snprintf(buf, sizeof buf, "%s", list);
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save))
		if (lbt_field_lookup(t, strlen(t)) >= 0)
			m |= LBT_BIT(lbt_field_lookup(t, strlen(t)));
	return m;
}

/* Apply a directive line. */
static void directive(struct run *r, const char *s)
{
	const char *arg = strchr(s, ' ') ? strchr(s, ' ') + 1 : "";

	if (strncmp(s, "@captures ", 10) == 0)
		snprintf(r->captures, sizeof r->captures, "%s", arg);
	else if (strncmp(s, "@tz ", 4) == 0)
		snprintf(r->tz, sizeof r->tz, "%s", arg);
	else if (strncmp(s, "@wanted ", 8) == 0)
		r->wanted = field_mask(arg);
	else if (strncmp(s, "@trusted ", 9) == 0) {
		lbt_ipset_free(r->trusted);
		r->trusted = trusted_set(arg);
	}
	else if (strcmp(s, "@event") == 0)
		r->kind = 3;
	else {
		r->kind = strncmp(s, "@haproxy ", 9) == 0 ? 1 : strncmp(s, "@nginx ", 7) == 0 ? 2 : 0;
		snprintf(r->spec, sizeof r->spec, "%s", arg);
		r->captures[0] = '\0';
	}
	lbt_format_free(r->f);
	r->f = NULL;
	lbt_tz_free(r->z);
	r->z = NULL;
}

/* Value v with each \xHH turned into its byte, into buf. */
static void unescape_value(const char *v, char *buf, size_t size)
{
	size_t w = 0;

	for (; *v != '\0' && w + 1 < size; v++) {
		unsigned hi, lo;

		if (v[0] == '\\' && v[1] == 'x' && sscanf(v + 2, "%1x%1x", &hi, &lo) == 2) {
			buf[w++] = (char)(hi << 4 | lo);
			v += 3;
		} else
			buf[w++] = *v;
	}
	buf[w] = '\0';
}

/* Check one "name=value" expectation against rec; adds the field to *seen. */
static void check_pair(struct run *r, unsigned line, const lbt_rec *rec, const char *pair,
    uint64_t *seen)
{
	const char *eq = strchr(pair, '=');
	char name[64], got[8192], want[8192];
	int f;

	if (eq == NULL || (size_t)(eq - pair) >= sizeof name) {
		note_fail(r, line, "bad expectation '%s'%s", pair, "");
		return;
	}
	snprintf(name, sizeof name, "%.*s", (int)(eq - pair), pair);
	if (strcmp(name, "clock") == 0 || strcmp(name, "kind") == 0) {
		const char *v = name[0] == 'c' ? lbt_clock_name(rec->clock) :
		    rec->kind == LBT_KIND_EVENT ? "event" : "request";

		if (name[0] == 'c')
			*seen |= LBT_BIT(LBT_F_CLOCK);
		if (strcmp(v, eq + 1) != 0)
			note_fail(r, line, "got %s, want %s", v, pair);
		return;
	}
	f = lbt_field_lookup(name, strlen(name));
	if (f < 0) {
		note_fail(r, line, "unknown field '%s'%s", name, "");
		return;
	}
	*seen |= LBT_BIT(f);
	if (!(rec->have & LBT_BIT(f))) {
		note_fail(r, line, "field %s absent, want '%s'", name, eq + 1);
		return;
	}
	lbt_rec_format_field(rec, (lbt_field)f, got, sizeof got);
	unescape_value(eq + 1, want, sizeof want);
	if (strcmp(got, want) != 0)
		note_fail(r, line, "got '%s', want '%s'", got, pair);
}

/* Check the record against the expectation text (pairs separated by tabs or newlines). */
static void check_fields(struct run *r, unsigned line, const lbt_rec *rec, char *exp)
{
	uint64_t seen = 0, extra;
	char *save = NULL, got[256];

	for (char *t = strtok_r(exp, "\t\n", &save); t; t = strtok_r(NULL, "\t\n", &save))
		check_pair(r, line, rec, t, &seen);
	extra = rec->have & ~seen & ~(LBT_BIT(LBT_F_FILE) | LBT_BIT(LBT_F_LINE));
	for (int f = 0; f < LBT_F_COUNT; f++)
		if (extra & LBT_BIT(f)) {
			lbt_rec_format_field(rec, (lbt_field)f, got, sizeof got);
			note_fail(r, line, "unexpected field %s='%s'", lbt_field_name((lbt_field)f), got);
		}
}

/* Run one case: raw message at line `line`, expectation text exp. */
static void run_case(struct run *r, unsigned line, const char *raw, char *exp)
{
	lbt_rec rec;
	lbt_err err;
	int res;

	r->cases++;
	if (ensure_format(r, line) < 0)
		return;
	memset(&err, 0, sizeof err);
	if (r->kind == 3) {
		lbt_rec_clear(&rec);
		res = lbt_event_parse(raw, strlen(raw), r->z, &rec) == 0 ? LBT_PARSE_OK : LBT_PARSE_BAD;
		snprintf(err.msg, sizeof err.msg, "not an event line");
	} else
		res = lbt_format_parse(r->f, raw, strlen(raw), &rec, &err);
	if (strncmp(exp, "! ", 2) == 0) {
		exp[strcspn(exp, "\n")] = '\0';
		if (res != LBT_PARSE_BAD)
			note_fail(r, line, "parsed, want error '%s'%s", exp + 2, "");
		else if (strcmp(err.msg, exp + 2) != 0)
			note_fail(r, line, "error '%s', want '%s'", err.msg, exp + 2);
	} else if (strncmp(exp, "SKIP", 4) == 0) {
		if (res != LBT_PARSE_SKIP)
			note_fail(r, line, "got %s%s, want SKIP", res == LBT_PARSE_OK ? "a record" : "error: ",
			    res == LBT_PARSE_OK ? "" : err.msg);
	} else if (res != LBT_PARSE_OK)
		note_fail(r, line, "error '%s'%s", err.msg, res == LBT_PARSE_SKIP ? " (skip)" : "");
	else
		check_fields(r, line, &rec, exp);
}

/* Default format of a .cases file: its base name. */
static void default_spec(struct run *r, const char *path)
{
	const char *b = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;

	snprintf(r->spec, sizeof r->spec, "%.*s", (int)(strlen(b) - 6), b);
}

/* Read and run every case of one file. @return failures */
static int run_file(struct run *r, const char *path)
{
	FILE *fp = fopen(path, "r");
	char *line = NULL, *raw = NULL, exp[16384];
	size_t cap = 0, ne = 0;
	unsigned lineno = 0, rawline = 0;

	ck_assert_msg(fp != NULL, "cannot open %s", path);
	default_spec(r, path);
	while (getline(&line, &cap, fp) >= 0) {
		line[strcspn(line, "\n")] = '\0';
		lineno++;
		if (raw != NULL && line[0] == '\0') {
			exp[ne] = '\0';
			run_case(r, rawline, raw, exp);
			free(raw);
			raw = NULL;
		} else if (raw != NULL) {
			if (line[0] != '#')
				ne += (size_t)snprintf(exp + ne, sizeof exp - ne, "%s\n", line);
		} else if (line[0] == '@')
			directive(r, line);
		else if (line[0] != '\0' && line[0] != '#') {
			raw = strdup(line);
			rawline = lineno;
			ne = 0;
		}
	}
	if (raw != NULL) {
		exp[ne] = '\0';
		run_case(r, rawline, raw, exp);
	}
	free(raw);
	free(line);
	fclose(fp);
	lbt_format_free(r->f);
	lbt_tz_free(r->z);
	return r->failures;
}

/* Every .cases file, so a failing file does not hide the others. */
static glob_t cases;

START_TEST(cases_file)
{
	static struct run r;

	memset(&r, 0, sizeof r);
	r.file = cases.gl_pathv[_i];
	run_file(&r, cases.gl_pathv[_i]);
	lbt_ipset_free(r.trusted);
	ck_assert_msg(r.cases >= 3, "%s: only %d cases", r.file, r.cases);
	ck_assert_msg(r.failures == 0, "%d failures:\n%s", r.failures, r.fails);
}
END_TEST

/* Compile a template and expect NULL with exactly `msg`. */
static void compile_fails(lbt_dialect d, const char *tmpl, const char *esc, const char *msg)
{
	lbt_err err;
	lbt_format *f = lbt_format_compile(d, tmpl, esc, &err);

	ck_assert_msg(f == NULL, "'%s' compiled", tmpl);
	ck_assert_str_eq(err.msg, msg);
}

/* HAProxy compile errors name what is wrong and the template column. */
START_TEST(haproxy_compile_errors)
{
	lbt_dialect h = LBT_DIALECT_HAPROXY;

	compile_fails(h, "%ci %zz", NULL, "unknown alias '%zz' at column 5");
	compile_fails(h, "%ci:%cpms", NULL, "unknown alias '%cpms' at column 5");
	compile_fails(h, "%ci %[src", NULL, "unterminated '%[' at column 5");
	compile_fails(h, "%ci %", NULL, "'%' at end of template (column 5)");
	compile_fails(h, "% ci", NULL,
	    "unexpected ' ' after '%' at column 2 (write %% for a literal %)");
	compile_fails(h, "%{+Q ci", NULL, "unterminated '%{' at column 2");
	compile_fails(h, "%(na me)ci", NULL, "invalid character ' ' in name at column 5");
	compile_fails(h, "%(x:int)ci", NULL,
	    "unknown type 'int' at column 5 (str, sint, bool or raw)");
	compile_fails(h, "%ci%b", NULL, "client address at column 1 must be followed by text "
	    "or a space, not directly by backend");
	compile_fails(h, "", NULL, "empty template");
	compile_fails(h, "   ", NULL, "empty template");
	compile_fails(h, "%{+json}o %ci %ST", NULL,
	    "JSON template without named items (%(name)alias)");
	compile_fails(h, NULL, NULL, "no template");
}
END_TEST

/* NGINX compile errors. */
START_TEST(nginx_compile_errors)
{
	lbt_dialect n = LBT_DIALECT_NGINX;

	compile_fails(n, "$remote_addr $", NULL, "invalid variable name at column 14");
	compile_fails(n, "$remote_addr ${status", NULL, "unterminated '${' at column 15");
	compile_fails(n, "$remote_addr$status", NULL, "$remote_addr at column 1 must be "
	    "followed by text or a space, not directly by $status");
	compile_fails(n, "$status", "xml", "unknown escape 'xml' (default, json or none)");
	compile_fails(n, "", NULL, "empty template");
	compile_fails(n, "{\"a\" \"$status\"}", "json", "expected ':' at column 6");
	compile_fails(n, "{\"a\":$status}{\"b\":1}", "json", "text after the JSON object at column 14");
	compile_fails(n, "{\"a\":1}", "json", "JSON template without variables");
	compile_fails(n, "{\"a\":\"$status}", "json", "unterminated string at column 6");
}
END_TEST

/* A JSON-looking template with escape=default is a text template. */
START_TEST(nginx_json_shape_default_escape)
{
	lbt_err err;
	lbt_rec rec;
	const char *line = "{\"st\":200,\"ua\":\"a\\x22b\"}";
	lbt_format *f = lbt_format_compile(LBT_DIALECT_NGINX,
	    "{\"st\":$status,\"ua\":\"$http_user_agent\"}", NULL, &err);

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(lbt_format_parse(f, line, strlen(line), &rec, &err), LBT_PARSE_OK);
	ck_assert_int_eq(rec.status, 200);
	ck_assert(lbt_str_eq(rec.ua, "a\"b"));
	lbt_format_free(f);
}
END_TEST

static const char httplog_line[] = "203.0.113.7:51234 [01/Nov/2025:23:24:01.123] fe_http "
    "be_app/app1 0/0/1/12/13 200 135 - - ---- 12/8/3/2/0 0/0 {hc-ping.com|curl/8.5.0} "
    "\"GET /ping/x?a=1 HTTP/1.1\"";

/* Only wanted fields are converted: a bad date is not even looked at. */
START_TEST(wanted_mask)
{
	lbt_err err;
	lbt_rec rec;
	char line[sizeof httplog_line];
	lbt_format *f = lbt_format_open("haproxy-httplog", &err);

	ck_assert_ptr_nonnull(f);
	memcpy(line, httplog_line, sizeof line);
	memcpy(line + 19, "31", 2);      /* 31/Nov does not exist */
	ck_assert_int_eq(lbt_format_parse(f, line, strlen(line), &rec, &err), LBT_PARSE_BAD);
	ck_assert_str_eq(err.msg, "bad request date '31/Nov/2025:23:24:01.123' at column 20");
	lbt_format_set_wanted(f, LBT_BIT(LBT_F_STATUS) | LBT_BIT(LBT_F_PATH));
	ck_assert_int_eq(lbt_format_parse(f, line, strlen(line), &rec, &err), LBT_PARSE_OK);
	ck_assert(rec.have == (LBT_BIT(LBT_F_STATUS) | LBT_BIT(LBT_F_PATH)));
	ck_assert_int_eq(rec.status, 200);
	ck_assert(lbt_str_eq(rec.path, "/ping/x"));
	lbt_format_set_wanted(f, 0);     /* 0: everything again */
	ck_assert_int_eq(lbt_format_parse(f, httplog_line, strlen(httplog_line), &rec, &err),
	    LBT_PARSE_OK);
	ck_assert(rec.have & LBT_BIT(LBT_F_TIME));
	ck_assert(lbt_str_eq(rec.query, "a=1"));
	lbt_format_free(f);
}
END_TEST

/* Capture names: host, ua, client (X-Forwarded-For), '-'; others refused. */
START_TEST(captures)
{
	lbt_err err;
	lbt_rec rec;
	char buf[64];
	const char *line = "192.0.2.1:1 [01/Nov/2025:23:24:01.123] fe be/s 0/0/1/12/13 200 135 - - "
	    "---- 1/1/1/1/0 0/0 {198.51.100.7, 192.0.2.1|x|h.example} \"GET / HTTP/1.1\"";
	lbt_format *f = lbt_format_open("haproxy-httplog", &err);

	ck_assert_int_eq(lbt_format_set_captures(f, "host,foo", &err), -1);
	ck_assert_str_eq(err.msg, "unknown capture 'foo' (host, ua, client or -)");
	ck_assert(!(lbt_format_fields(f) & LBT_BIT(LBT_F_UA)));
	ck_assert_int_eq(lbt_format_set_captures(f, "ua", &err), 0);
	ck_assert(lbt_format_fields(f) & LBT_BIT(LBT_F_UA));
	ck_assert_int_eq(lbt_format_set_captures(f, "X-Forwarded-For,-,Host", &err), 0);
	ck_assert(!(lbt_format_fields(f) & LBT_BIT(LBT_F_UA)));
	ck_assert_int_eq(lbt_format_parse(f, line, strlen(line), &rec, &err), LBT_PARSE_OK);
	ck_assert_str_eq(lbt_addr_format(&rec.client, buf, sizeof buf), "198.51.100.7");
	ck_assert(lbt_str_eq(rec.host, "h.example"));
	ck_assert(!(rec.have & LBT_BIT(LBT_F_UA)));
	lbt_format_free(f);
}
END_TEST

/* Fields a format can fill. */
START_TEST(fields_of_formats)
{
	lbt_err err;
	lbt_format *h = lbt_format_open("haproxy-httplog", &err);
	lbt_format *t = lbt_format_open("haproxy-tcplog", &err);
	lbt_format *n = lbt_format_open("nginx-combined", &err);
	uint64_t hf = lbt_format_fields(h), tf = lbt_format_fields(t), nf = lbt_format_fields(n);

	ck_assert(hf & LBT_BIT(LBT_F_STATUS) && hf & LBT_BIT(LBT_F_TR) && hf & LBT_BIT(LBT_F_PATH));
	ck_assert(!(hf & LBT_BIT(LBT_F_UA)) && !(hf & LBT_BIT(LBT_F_TT)) && !(hf & LBT_BIT(LBT_F_MSG)));
	ck_assert(tf & LBT_BIT(LBT_F_TT) && !(tf & LBT_BIT(LBT_F_PATH)) && !(tf & LBT_BIT(LBT_F_STATUS)));
	ck_assert(nf & LBT_BIT(LBT_F_UA) && !(nf & LBT_BIT(LBT_F_PORT)) && !(nf & LBT_BIT(LBT_F_TR)));
	ck_assert_int_eq(lbt_format_dialect(n), LBT_DIALECT_NGINX);
	ck_assert_str_eq(lbt_format_name(t), "haproxy-tcplog");
	ck_assert_str_eq(lbt_format_describe(t), "HAProxy option tcplog");
	ck_assert_str_eq(lbt_format_template(t),
	    "%ci:%cp [%t] %ft %b/%s %Tw/%Tc/%Tt %B %ts %ac/%fc/%bc/%sc/%rc %sq/%bq");
	lbt_format_free(h);
	lbt_format_free(t);
	lbt_format_free(n);
}
END_TEST

/* Every built-in compiles; the names list and the table agree. */
START_TEST(builtins)
{
	const char *const *names = lbt_format_builtin_names();
	const char *want[] = { "haproxy-httplog", "haproxy-tcplog", "haproxy-httpslog",
		"haproxy-clf", "haproxy-tcpclf", "haproxy-legacy", "haproxy-minimal",
		"haproxy-json", "haproxy-cbor", "haproxy-lbt", "nginx-combined", "nginx-main", "nginx-json",
		"lbt-tsv", "haproxy-httplog-extra", "json", "nginx-xff", "nginx-vhost",
		"nginx-vhost-port", "nginx-ingress" };
	lbt_err err;
	size_t n = 0;

	for (; names[n] != NULL; n++) {
		lbt_format *f = lbt_format_open(names[n], &err);

		ck_assert_msg(f != NULL, "%s: %s", names[n], err.msg);
		ck_assert_str_eq(lbt_format_name(f), names[n]);
		ck_assert_ptr_nonnull(lbt_format_builtin_text(names[n]));
		ck_assert_msg(lbt_format_describe(f)[0] != '\0', "%s has no describe", names[n]);
		lbt_format_free(f);
	}
	ck_assert_uint_eq(n, sizeof want / sizeof want[0]);
	for (size_t i = 0; i < n; i++) {
		size_t k = 0;

		while (k < n && strcmp(names[k], want[i]) != 0)
			k++;
		ck_assert_msg(k < n, "no built-in %s", want[i]);
	}
	ck_assert_ptr_null(lbt_format_builtin_text("nope"));
	ck_assert_ptr_null(lbt_format_open("nope", &err));
	ck_assert_msg(strncmp(err.msg, "unknown format 'nope' (built-in: haproxy-", 41) == 0,
	    "%s", err.msg);
}
END_TEST

/* Write text to a temporary file; path into buf. */
static const char *tmpfile_with(const char *text, const char *suffix, char *buf, size_t size)
{
	int fd;
	FILE *fp;

	snprintf(buf, size, "/tmp/check_format_XXXXXX%s", suffix);
	fd = mkstemps(buf, (int)strlen(suffix));
	ck_assert_int_ge(fd, 0);
	fp = fdopen(fd, "w");
	fputs(text, fp);
	fclose(fp);
	return buf;
}

/* Open a descriptor file and expect failure with message "PATH:LINE: msg" (LINE 0: none). */
static void desc_fails(const char *text, uint64_t line, const char *msg)
{
	char path[64], want[256], got[700];
	lbt_err err;

	tmpfile_with(text, ".fmt", path, sizeof path);
	ck_assert_ptr_null(lbt_format_open(path, &err));
	if (line > 0)
		snprintf(want, sizeof want, "%s:%llu: %s", path, (unsigned long long)line, msg);
	else
		snprintf(want, sizeof want, "%s: %s", path, msg);
	ck_assert_str_eq(lbt_err_str(&err, got, sizeof got), want);
	unlink(path);
}

/* Descriptor files: syntax, continuation, errors with file:line. */
START_TEST(descriptors)
{
	char path[64];
	lbt_err err;
	lbt_rec rec;
	lbt_format *f;
	const char *line = "a 203.0.113.7 - \"x\" 200";

	tmpfile_with("# a comment\n\ndialect nginx\r\ndescribe  test format  \n"
	    "template a $remote_addr -\ntemplate+  \"$http_user_agent\" $status\n"
	    "priority 3\ncaptures -\n", ".fmt", path, sizeof path);
	f = lbt_format_open(path, &err);
	ck_assert_msg(f != NULL, "%s", err.msg);
	ck_assert_str_eq(lbt_format_template(f), "a $remote_addr - \"$http_user_agent\" $status");
	ck_assert_str_eq(lbt_format_describe(f), "test format");
	ck_assert_int_eq(strncmp(lbt_format_name(f), "check_format_", 13), 0);
	ck_assert_int_eq(lbt_format_parse(f, line, strlen(line), &rec, &err), LBT_PARSE_OK);
	ck_assert(lbt_str_eq(rec.ua, "x"));
	line = "a 203.0.113.7 -  \"x\" 200";
	ck_assert_int_eq(lbt_format_parse(f, line, strlen(line), &rec, &err), LBT_PARSE_BAD);
	lbt_format_free(f);
	unlink(path);

	desc_fails("dialect haproxy\nfoo bar\n", 2, "unknown key 'foo' (name, describe, dialect, "
	    "escape, captures, priority, trailing, keys, template, template+)");
	desc_fails("dialect haproxy\ntemplate+ %ci\n", 2, "template+ before template");
	desc_fails("dialect haproxy\ntemplate %ci\ntemplate %ST\n", 3,
	    "second template (use template+ to continue)");
	desc_fails("template %ci\n", 0, "no dialect key");
	desc_fails("dialect apache\ntemplate %h\n", 0,
	    "unknown dialect 'apache' (haproxy, nginx, json or tsv)");
	desc_fails("dialect haproxy\ntemplate %ci\ntrailing skip\n", 0,
	    "trailing 'skip': ignore or error");
	desc_fails("dialect haproxy\ntemplate %{+json}o %(a)ci\ntrailing ignore\n", 0,
	    "trailing ignore is for text templates");
	desc_fails("dialect haproxy\ntemplate %ci\nkeys some\n", 0, "keys 'some': any or all");
	desc_fails("dialect haproxy\ntemplate %ci\nkeys any\n", 0, "keys any is for JSON templates");
	desc_fails("dialect json\nkeys any\n", 0, "keys any is for JSON templates");
	desc_fails("dialect haproxy\ntemplate %{+cbor}o %(a)ci\nkeys any\n", 0,
	    "keys any is for JSON templates");
	desc_fails("dialect haproxy\n", 0, "no template key");
	desc_fails("dialect haproxy\n\n\ntemplate %ci %zz\n", 4, "unknown alias '%zz' at column 5");
	desc_fails("dialect haproxy\ntemplate %ci\npriority high\n", 0,
	    "priority: 'high' is not a number in -1000..1000");
	desc_fails("dialect haproxy\ntemplate %ci\ncaptures host,x\n", 0,
	    "unknown capture 'x' (host, ua, client or -)");
	ck_assert_ptr_null(lbt_format_open("/nonexistent/x.fmt", &err));
	ck_assert_str_eq(err.file, "/nonexistent/x.fmt");
	ck_assert_str_eq(err.msg, "No such file or directory");
}
END_TEST

/* Detection scores of n lines; returns the number of scores. */
static int detect(const char *const *lines, int n, lbt_format_score *sc, int max)
{
	size_t lens[16];

	for (int i = 0; i < n; i++)
		lens[i] = strlen(lines[i]);
	return lbt_format_detect(lines, lens, n, sc, max);
}

/* Score of format `name` in sc[0..n). */
static const lbt_format_score *score_of(const lbt_format_score *sc, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (strcmp(sc[i].name, name) == 0)
			return &sc[i];
	return NULL;
}

/* Detection: best first, ties visible, the more specific template wins. */
START_TEST(detection)
{
	static const char *const http[] = {
		"203.0.113.7:51234 [01/Nov/2025:23:24:01.123] fe_http be_app/app1 0/0/1/12/13 200 135 - - ---- 12/8/3/2/0 0/0 {hc-ping.com|curl/8.5.0} \"GET /x HTTP/1.1\"",
		"",
		"2001:db8::1:51234 [01/Nov/2025:23:24:02.123] fe_http fe_http/<NOSRV> -1/-1/-1/-1/0 400 0 - - PR-- 1/1/0/0/0 0/0 \"<BADREQ>\"",
		"Server be_app/app1 is DOWN, reason: Layer4 timeout",
	};
	static const char *const tcpclf[] = {
		"203.0.113.7 - - [01/Nov/2025:22:24:01 +0000] \"TCP \" 000 136 \"\" \"\" 51236 744 \"fe\" \"be\" \"db1\" 0 1 0 2 24 CD-- 1 1 0 0 0 0 0 \"\" \"\" ",
	};
	static const char *const nginx[] = {
		"203.0.113.7 - - [01/Nov/2025:23:24:01 +0000] \"GET /x HTTP/1.1\" 200 2 \"-\" \"curl/8.5.0\"",
		"203.0.113.8 - - [01/Nov/2025:23:24:02 +0000] \"GET /y HTTP/1.1\" 404 2 \"-\" \"curl/8.5.0\"",
	};
	static const char *const tsv[] = { "time\tclient\tstatus", "2025-11-01T23:24:01.123Z\t192.0.2.1\t200" };
	lbt_format_score sc[32];
	int n = detect(http, 4, sc, 32);

	ck_assert_int_eq(n, 20);
	ck_assert_str_eq(sc[0].name, "haproxy-httplog");
	ck_assert_str_eq(sc[1].name, "haproxy-httplog-extra");   /* priority 8 */
	ck_assert_str_eq(sc[2].name, "haproxy-legacy");
	ck_assert_int_eq(sc[0].parsed, 2);
	ck_assert_int_eq(sc[1].parsed, 2);
	ck_assert_int_eq(sc[0].tried, 3);
	ck_assert_int_eq(sc[0].fields, sc[1].fields);
	ck_assert_int_gt(sc[0].priority, sc[1].priority);
	ck_assert_int_eq(sc[3].parsed, 0);
	ck_assert_int_eq(detect(tcpclf, 1, sc, 32), 20);
	ck_assert_str_eq(sc[0].name, "haproxy-tcpclf");
	ck_assert_int_eq(score_of(sc, 20, "haproxy-clf")->parsed, 1);
	ck_assert_int_gt(sc[0].literal, score_of(sc, 20, "haproxy-clf")->literal);
	detect(nginx, 2, sc, 32);
	ck_assert_str_eq(sc[0].name, "nginx-combined");
	ck_assert_int_eq(sc[0].parsed, 2);
	ck_assert_str_eq(sc[1].name, "nginx-xff");   /* a list of one address, priority 2 */
	ck_assert_int_eq(sc[1].parsed, 2);
	ck_assert_int_eq(sc[2].parsed, 0);
	detect(tsv, 2, sc, 32);
	ck_assert_str_eq(sc[0].name, "lbt-tsv");
	ck_assert_int_eq(sc[0].parsed, 2);
	ck_assert_int_eq(detect(tsv, 2, sc, 3), 3);
}
END_TEST

/* ${HAPROXY_*_LOG_FMT} expands to the built-in strings (the descriptors
 * of formats/ hold them); text around them stays; others are errors. */
START_TEST(expand_log_vars)
{
	lbt_err err;
	char *t = lbt_format_expand_log_vars("${HAPROXY_TCP_LOG_FMT} %ID", &err);

	ck_assert_ptr_nonnull(t);
	ck_assert_str_eq(t, "%ci:%cp [%t] %ft %b/%s %Tw/%Tc/%Tt %B %ts %ac/%fc/%bc/%sc/%rc %sq/%bq %ID");
	free(t);
	t = lbt_format_expand_log_vars("no reference", &err);
	ck_assert_str_eq(t, "no reference");
	free(t);
	ck_assert_ptr_null(lbt_format_expand_log_vars("%ci ${HOME}", &err));
	ck_assert_str_eq(err.msg, "unknown variable '${HOME}' in the template: only "
	    "${HAPROXY_HTTP_LOG_FMT}, _HTTPS_, _TCP_, _HTTP_CLF_ and _TCP_CLF_ are known");
	ck_assert_ptr_null(lbt_format_expand_log_vars("${HAPROXY_TCP_LOG_FMT", &err));
}
END_TEST

/* A tie is equality on every criterion; priority ranks on purpose. */
START_TEST(detection_ties)
{
	lbt_format_score a = { "a", 40, 50, 12, 20, 10, 0, 0 }, b = a;

	ck_assert(lbt_format_scores_tied(&a, &b));
	b.priority = 0;
	ck_assert(!lbt_format_scores_tied(&a, &b));
	b = a, b.fields = 19;
	ck_assert(!lbt_format_scores_tied(&a, &b));
	b = a, b.literal = 13;
	ck_assert(!lbt_format_scores_tied(&a, &b));
	b = a, b.parsed = 39;
	ck_assert(!lbt_format_scores_tied(&a, &b));
	a.parsed = b.parsed = 0;
	ck_assert(!lbt_format_scores_tied(&a, &b));
}
END_TEST

/*
 * A long word of no spaces (1,000 bytes or more: long enough to have been
 * cut by the logger) is no record for any built-in, all fields wanted or
 * the few lbt-rate wants: nginx-xff read it as a request of nulls.  And a
 * real line cut inside its request still is one.
 */
START_TEST(long_word_no_record)
{
	const char *const *names = lbt_format_builtin_names();
	const uint64_t few = LBT_BIT(LBT_F_TIME) | LBT_BIT(LBT_F_KEY) | LBT_BIT(LBT_F_PATH);
	static const size_t sizes[] = { 900, 1000, 1200, 5000 };
	char *word = malloc(5001);
	lbt_rec rec;
	lbt_err err;

	ck_assert_ptr_nonnull(word);
	for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
		memset(word, 'A', sizes[k]);
		word[sizes[k]] = '\0';
		for (int i = 0; names[i] != NULL; i++) {
			for (int w = 0; w < 2; w++) {
				lbt_format *f = lbt_format_open(names[i], &err);

				ck_assert_ptr_nonnull(f);
				if (w)
					lbt_format_set_wanted(f, few);
				ck_assert_msg(lbt_format_parse(f, word, sizes[k], &rec, &err) ==
				    LBT_PARSE_BAD, "%s read a %zu-byte word", names[i], sizes[k]);
				lbt_format_free(f);
			}
		}
	}
	{       /* a combined line cut at 1,024 bytes inside its URI */
		lbt_format *f = lbt_format_open("nginx-combined", &err);
		const char *head = "203.0.113.7 - - [30/Nov/2026:07:49:57 +0000] \"GET /";
		size_t hn = strlen(head);

		ck_assert_ptr_nonnull(f);
		memcpy(word, head, hn);
		memset(word + hn, 'a', 1024 - hn);
		ck_assert_int_eq(lbt_format_parse(f, word, 1024, &rec, &err), LBT_PARSE_OK);
		ck_assert(rec.have & LBT_BIT(LBT_F_TIME));
		ck_assert(rec.have & LBT_BIT(LBT_F_CLIENT));
		lbt_format_free(f);
	}
	free(word);
}
END_TEST

/* Parse `line` with f; expect OK. */
static void parses(lbt_format *f, const char *line, lbt_rec *rec)
{
	lbt_err err;

	ck_assert_msg(lbt_format_parse(f, line, strlen(line), rec, &err) == LBT_PARSE_OK,
	    "%s: %s", line, err.msg);
}

/* haproxy.cfg of the lab: choose a proxy, captures from its declarations. */
START_TEST(haproxy_cfg_real)
{
	lbt_err err;
	lbt_rec rec;
	lbt_format *f = lbt_format_from_haproxy_cfg(REAL "/haproxy.cfg", NULL, &err);

	ck_assert_ptr_null(f);
	ck_assert_str_eq(err.msg, "several proxies log with different formats (fe_http, fe_nocap, "
	    "fe_tcp, fe_https, fe_clf, fe_legacy, fe_compact): choose one with --frontend");
	f = lbt_format_from_haproxy_cfg(REAL "/haproxy.cfg", "fe_http", &err);
	ck_assert_msg(f != NULL, "%s", err.msg);
	ck_assert_str_eq(lbt_format_name(f), "haproxy-httplog");
	parses(f, httplog_line, &rec);
	ck_assert(lbt_str_eq(rec.host, "hc-ping.com") && lbt_str_eq(rec.ua, "curl/8.5.0"));
	lbt_format_free(f);
	f = lbt_format_from_haproxy_cfg(REAL "/haproxy.cfg", "fe_compact", &err);
	ck_assert_str_eq(lbt_format_name(f), "custom");
	ck_assert_str_eq(lbt_format_template(f), "%Ts%ms %ci %cp %ft %b %s %TR %Tw %Tc %Tr %Ta "
	    "%Tt %ST %B %tsc %ac %fc %bc %sc %rc %sq %bq %HM %{+Q}HU %HV %{+Q}[capture.req.hdr(0)] "
	    "%{+Q}[capture.req.hdr(1)]");
	lbt_format_free(f);
	f = lbt_format_from_haproxy_cfg(REAL "/haproxy.cfg", "fe_tcp", &err);
	ck_assert_str_eq(lbt_format_name(f), "haproxy-tcplog");
	lbt_format_free(f);
	f = lbt_format_from_haproxy_cfg(REAL "/haproxy.cfg", "fe_monitor", &err);
	ck_assert_str_eq(lbt_format_name(f), "haproxy-minimal");
	lbt_format_free(f);
	ck_assert_ptr_null(lbt_format_from_haproxy_cfg(REAL "/haproxy.cfg", "be_app", &err));
	ck_assert_str_eq(err.msg, "no frontend or listen section 'be_app' (there are: fe_monitor, "
	    "fe_http, fe_nocap, fe_tcp, fe_https, fe_clf, fe_legacy, fe_compact)");
}
END_TEST

/* Template and name a proxy of cfg file `file` logs with. */
static void cfg_is(const char *file, const char *fe, const char *name, const char *tmpl)
{
	lbt_err err;
	lbt_format *f = lbt_format_from_haproxy_cfg(file, fe, &err);

	ck_assert_msg(f != NULL, "%s %s: %s", file, fe ? fe : "(any)", err.msg);
	ck_assert_str_eq(lbt_format_name(f), name);
	if (tmpl != NULL)
		ck_assert_str_eq(lbt_format_template(f), tmpl);
	lbt_format_free(f);
}

/* Small haproxy.cfg files: inheritance, quoting, variables, errors. */
START_TEST(haproxy_cfg_small)
{
	lbt_err err;
	lbt_rec rec;
	char got[600];
	lbt_format *f = lbt_format_from_haproxy_cfg(DATA "/cfg/single.cfg", NULL, &err);
	const char *line = "192.0.2.1:1 [01/Nov/2025:23:24:01.123] fe be/s 0/0/1/12/13 200 135 - - "
	    "---- 1/1/1/1/0 0/0 {curl/8|203.0.113.9|h.example} {text/plain} \"GET / HTTP/1.1\"";

	ck_assert_msg(f != NULL, "%s", err.msg);
	ck_assert_str_eq(lbt_format_name(f), "haproxy-httplog");
	parses(f, line, &rec);
	ck_assert(lbt_str_eq(rec.ua, "curl/8") && lbt_str_eq(rec.host, "h.example"));
	ck_assert_str_eq(lbt_addr_format(&rec.client, got, sizeof got), "203.0.113.9");
	lbt_format_free(f);
	cfg_is(DATA "/cfg/named.cfg", "fe_base", "custom", "%ci:%cp [%tr] %ft %ST \"%r\"");
	cfg_is(DATA "/cfg/named.cfg", "fe_other", "haproxy-tcplog", NULL);
	cfg_is(DATA "/cfg/named.cfg", "fe_escaped", "custom", "%ci %ST %{+Q}r # not a comment");
	cfg_is(DATA "/cfg/named.cfg", "fe_env", "custom", "%ci:%cp [%tr] %ft %b/%s "
	    "%TR/%Tw/%Tc/%Tr/%Ta %ST %B %CC %CS %tsc %ac/%fc/%bc/%sc/%rc %sq/%bq %hr %hs %{+Q}r");
	cfg_is(DATA "/cfg/named.cfg", "fe_single", "custom", "%ci %ST ${NOT_EXPANDED}");
	cfg_is(DATA "/cfg/named.cfg", "fe_hex", "custom", "%ci %ST");
	cfg_is(DATA "/cfg/named.cfg", "li_tcp", "haproxy-tcplog", NULL);
	cfg_is(DATA "/cfg/named.cfg", "fe_none", "haproxy-minimal", NULL);
	cfg_is(DATA "/cfg/named.cfg", "fe_https", "haproxy-httpslog", NULL);
	ck_assert_ptr_null(lbt_format_from_haproxy_cfg(DATA "/cfg/badenv.cfg", NULL, &err));
	ck_assert_str_eq(lbt_err_str(&err, got, sizeof got), DATA "/cfg/badenv.cfg:5: unknown "
	    "environment variable 'LBT_TEST_SURELY_UNSET_VAR'");
	ck_assert_ptr_null(lbt_format_from_haproxy_cfg(DATA "/cfg/badquote.cfg", NULL, &err));
	ck_assert_str_eq(lbt_err_str(&err, got, sizeof got), DATA "/cfg/badquote.cfg:3: "
	    "unterminated double quote");
	ck_assert_ptr_null(lbt_format_from_haproxy_cfg(DATA "/cfg/badfrom.cfg", NULL, &err));
	ck_assert_str_eq(lbt_err_str(&err, got, sizeof got), DATA "/cfg/badfrom.cfg:1: 'from "
	    "nowhere': no defaults section of that name above");
	ck_assert_ptr_null(lbt_format_from_haproxy_cfg(DATA "/cfg/nope.cfg", NULL, &err));
	ck_assert_str_eq(lbt_err_str(&err, got, sizeof got), DATA "/cfg/nope.cfg: No such file "
	    "or directory");
}
END_TEST

/* nginx.conf: the first access_log's format, includes, named formats. */
START_TEST(nginx_conf)
{
	lbt_err err;
	lbt_rec rec;
	char got[600];
	lbt_format *f = lbt_format_from_nginx_conf(REAL "/nginx.conf", NULL, &err);

	ck_assert_msg(f != NULL, "%s", err.msg);
	ck_assert_str_eq(lbt_format_name(f), "nginx-combined");
	lbt_format_free(f);
	f = lbt_format_from_nginx_conf(REAL "/nginx.conf", "main", &err);
	ck_assert_str_eq(lbt_format_name(f), "main");
	ck_assert_str_eq(lbt_format_template(f), "$remote_addr - $remote_user [$time_local] "
	    "\"$request\" $status $body_bytes_sent \"$http_referer\" \"$http_user_agent\" "
	    "\"$http_x_forwarded_for\"");
	lbt_format_free(f);
	f = lbt_format_from_nginx_conf(DATA "/cfg/nginx.conf", NULL, &err);
	ck_assert_msg(f != NULL, "%s", err.msg);
	ck_assert_str_eq(lbt_format_name(f), "jsonish");
	parses(f, "{\"req\":\"GET /a HTTP/1.1\",\"st\":200,\"ra\":\"192.0.2.5\"}", &rec);
	ck_assert_int_eq(rec.status, 200);
	lbt_format_free(f);
	f = lbt_format_from_nginx_conf(DATA "/cfg/nginx.conf", "spaced", &err);
	ck_assert_str_eq(lbt_format_template(f), "$remote_addr [$time_local] \"$request\" $status");
	lbt_format_free(f);
	f = lbt_format_from_nginx_conf(DATA "/cfg/nginx-noaccess.conf", NULL, &err);
	ck_assert_str_eq(lbt_format_name(f), "nginx-combined");
	lbt_format_free(f);
	ck_assert_ptr_null(lbt_format_from_nginx_conf(DATA "/cfg/nginx.conf", "nope", &err));
	ck_assert_str_eq(lbt_err_str(&err, got, sizeof got), DATA "/cfg/nginx.conf: no log_format "
	    "'nope' (there are: combined, jsonish, short, spaced)");
	ck_assert_ptr_null(lbt_format_from_nginx_conf(DATA "/cfg/nope.conf", NULL, &err));
	/* a NUL byte in the file is a word character, not an endless loop */
	{
		char path[64];
		FILE *fp;

		tmpfile_with("", ".conf", path, sizeof path);
		fp = fopen(path, "w");
		fwrite("http {\0 log_format a '$status'; access_log x a; }\n", 1, 50, fp);
		fclose(fp);
		ck_assert_ptr_null(lbt_format_from_nginx_conf(path, NULL, &err));
		unlink(path);
	}
}
END_TEST

/* CBOR with +bin: raw bytes, a 0x0A inside a string is no line end here. */
START_TEST(cbor_binary)
{
	static const unsigned char line[] = { 0xBF, 0x62, 'c', 'i', 0x69, '1', '9', '2', '.', '0',
		'.', '2', '.', '1', 0x62, 's', 't', 0x18, 0xC8, 0x61, 'r', 0x7F, 0x68, 'G', 'E', 'T',
		' ', '/', 'a', '\n', 'b', 0xFF, 0xFF };
	lbt_err err;
	lbt_rec rec;
	char buf[64];
	lbt_format *f = lbt_format_compile(LBT_DIALECT_HAPROXY,
	    "%{+cbor,+bin}o %(ci)ci %(st)ST %(r)r", NULL, &err);

	ck_assert_msg(f != NULL, "%s", err.msg);
	ck_assert_int_eq(lbt_format_parse(f, (const char *)line, sizeof line, &rec, &err),
	    LBT_PARSE_OK);
	ck_assert_str_eq(lbt_addr_format(&rec.client, buf, sizeof buf), "192.0.2.1");
	ck_assert_int_eq(rec.status, 200);
	ck_assert(lbt_str_eq(rec.method, "GET") && lbt_str_eq(rec.path, "/a\nb"));
	ck_assert_int_eq(lbt_format_parse(f, (const char *)line, 10, &rec, &err), LBT_PARSE_BAD);
	ck_assert_str_eq(err.msg, "CBOR map cut short (10 bytes)");
	lbt_format_free(f);
}
END_TEST

/* Format and name for a real fixture: BASE.template, else the longest built-in prefix. */
static lbt_format *fixture_format(const char *path, lbt_err *err)
{
	char tpath[512], tmpl[4096], best[64] = "";
	const char *base = strrchr(path, '/') + 1;
	const char *const *names = lbt_format_builtin_names();
	FILE *fp;

	snprintf(tpath, sizeof tpath, "%.*s.template", (int)(strlen(path) - 4), path);
	if ((fp = fopen(tpath, "r")) != NULL) {
		size_t n = fread(tmpl, 1, sizeof tmpl - 1, fp);

		fclose(fp);
		tmpl[n] = '\0';
		tmpl[strcspn(tmpl, "\n")] = '\0';
		if (tmpl[0] == '%')
			return lbt_format_compile(LBT_DIALECT_HAPROXY, tmpl, NULL, err);
		return lbt_format_compile(LBT_DIALECT_NGINX, tmpl, tmpl[0] == '{' ? "json" : NULL, err);
	}
	for (size_t i = 0; names[i] != NULL; i++)
		if (strncmp(base, names[i], strlen(names[i])) == 0 && strlen(names[i]) > strlen(best))
			snprintf(best, sizeof best, "%s", names[i]);
	if (strncmp(base, "nginx-syslog", 12) == 0)
		snprintf(best, sizeof best, "nginx-combined");
	return best[0] ? lbt_format_open(best, err) : NULL;
}

static glob_t fixtures;

/* Every request line of each real HAProxy 2.6 / NGINX 1.22 log parses. */
START_TEST(real_fixture)
{
	const char *path = fixtures.gl_pathv[_i];
	lbt_err err;
	lbt_format *f = fixture_format(path, &err);
	FILE *fp;
	char *line = NULL, bad[4096] = "";
	size_t cap = 0, nb = 0;
	int ok = 0, lineno = 0, nbad = 0;

	if (strstr(path, "-error") != NULL || strstr(path, "-mixed") != NULL)
		return;   /* NGINX error logs; several formats in one file */
	ck_assert_msg(f != NULL, "%s: no format", path);
	fp = fopen(path, "r");
	while (getline(&line, &cap, fp) >= 0) {
		size_t n = strcspn(line, "\n");
		lbt_syslog sl;
		lbt_rec rec;
		const char *m;

		lineno++;
		lbt_syslog_strip(line, n, NULL, 1796024400, &sl);
		m = line + sl.msg_off;
		n -= sl.msg_off;
		if (lbt_format_parse(f, m, n, &rec, &err) == LBT_PARSE_OK) {
			ok++;
			continue;
		}
		lbt_rec_clear(&rec);
		if (lbt_event_parse(m, n, NULL, &rec) == 0)
			continue;
		nbad++;
		if (nb < sizeof bad - 200)
			nb += (size_t)snprintf(bad + nb, sizeof bad - nb, "%d: %s\n", lineno, err.msg);
	}
	free(line);
	fclose(fp);
	ck_assert_msg(nbad == 0, "%s with %s: %d malformed:\n%s", path, lbt_format_name(f), nbad, bad);
	ck_assert_msg(ok >= 10, "%s: only %d records", path, ok);
	lbt_format_free(f);
}
END_TEST

/* haproxy-mixed.log: every request line parses with one of the built-ins or templates. */
START_TEST(real_mixed)
{
	const char *const *names = lbt_format_builtin_names();
	lbt_format *fs[40];
	int nf = 0, ok = 0, nbad = 0, lineno = 0;
	lbt_err err;
	char *line = NULL, bad[2048] = "";
	size_t cap = 0, nb = 0;
	FILE *fp = fopen(REAL "/haproxy-mixed.log", "r");

	if (fp == NULL)
		return;
	for (; names[nf] != NULL; nf++)
		fs[nf] = lbt_format_open(names[nf], &err);
	fs[nf++] = fixture_format(REAL "/haproxy-compact.log", &err);
	while (getline(&line, &cap, fp) >= 0) {
		size_t n = strcspn(line, "\n");
		lbt_syslog sl;
		lbt_rec rec;
		int k = 0;

		lineno++;
		lbt_syslog_strip(line, n, NULL, 1796024400, &sl);
		while (k < nf && lbt_format_parse(fs[k], line + sl.msg_off, n - sl.msg_off, &rec,
		    &err) != LBT_PARSE_OK)
			k++;
		lbt_rec_clear(&rec);
		if (k < nf)
			ok++;
		else if (lbt_event_parse(line + sl.msg_off, n - sl.msg_off, NULL, &rec) != 0) {
			nbad++;
			if (nb < sizeof bad - 100)
				nb += (size_t)snprintf(bad + nb, sizeof bad - nb, "line %d\n", lineno);
		}
	}
	free(line);
	fclose(fp);
	while (nf > 0)
		lbt_format_free(fs[--nf]);
	ck_assert_msg(nbad == 0, "%d malformed:\n%s", nbad, bad);
	ck_assert_int_ge(ok, 10);
}
END_TEST

/*
 * NGINX JSON fast path (lib/read/format_json.c): every line read through the
 * template's literal layout must give what jansson alone gives.  The
 * internal header exposes the switch (njslow) and the count of lines the
 * layout took (njfast).
 */
#include "../../lib/read/format_int.h"

/* One parse, kept as bytes: result, error, every field (raw strings). */
struct njsnap {
	int r;
	char b[16384];
	size_t n;
};

/* Append s[0..n) to snapshot z (truncating). */
static void njsnap_put(struct njsnap *z, const char *s, size_t n)
{
	if (n > sizeof z->b - z->n)
		n = sizeof z->b - z->n;
	memcpy(z->b + z->n, s, n);
	z->n += n;
}

/* Parse line[0..len) with f (njslow as given) into snapshot z. */
static void njsnap_parse(lbt_format *f, int slow, const char *line, size_t len,
    struct njsnap *z)
{
	lbt_rec rec;
	lbt_err err;
	char buf[4096];

	f->njslow = slow;
	z->n = 0;
	z->r = lbt_format_parse(f, line, len, &rec, &err);
	if (z->r == LBT_PARSE_BAD) {
		njsnap_put(z, err.msg, strlen(err.msg));
		return;
	}
	snprintf(buf, sizeof buf, "have=%llx clock=%d|", (unsigned long long)rec.have,
	    (int)rec.clock);
	njsnap_put(z, buf, strlen(buf));
	for (int fl = 0; fl < LBT_F_COUNT; fl++) {
		lbt_str *sv = lbt_rec_str(&rec, (lbt_field)fl);
		size_t n = lbt_rec_format_field(&rec, (lbt_field)fl, buf, sizeof buf);

		njsnap_put(z, buf, n);
		if (sv != NULL && (rec.have & LBT_BIT(fl))) {
			snprintf(buf, sizeof buf, "[%zu]", sv->n);
			njsnap_put(z, buf, strlen(buf));
			njsnap_put(z, sv->p, sv->n);
		}
		njsnap_put(z, "|", 1);
	}
}

/*
 * Parse line both ways with f and compare, with every field wanted and
 * with lbt-rate's few (values nobody wants are only checked, not
 * converted).  @return 1 when the layout took it with every field wanted
 */
static int nj_same(lbt_format *f, const char *line, size_t len)
{
	static const uint64_t masks[] = { 0, LBT_BIT(LBT_F_TIME) | LBT_BIT(LBT_F_PATH) |
	    LBT_BIT(LBT_F_LINE) };
	static struct njsnap a, b;
	unsigned long before = 0;
	int took = 0;

	for (size_t m = 0; m < sizeof masks / sizeof masks[0]; m++) {
		lbt_format_set_wanted(f, masks[m]);
		njsnap_parse(f, 1, line, len, &a);
		before = f->njfast;
		njsnap_parse(f, 0, line, len, &b);
		ck_assert_msg(a.r == b.r && a.n == b.n && memcmp(a.b, b.b, a.n) == 0,
		    "paths differ (wanted %llx) on '%.*s':\njansson %d %.*s\nlayout  %d %.*s",
		    (unsigned long long)masks[m], (int)len, line, a.r, (int)a.n, a.b, b.r,
		    (int)b.n, b.b);
		if (m == 0)
			took = f->njfast > before;
	}
	lbt_format_set_wanted(f, 0);
	return took;
}

/* Next pseudo-random number of state *x (LCG, fixed seed: a repeatable corpus). */
static unsigned nj_rand(unsigned long long *x)
{
	*x = *x * 6364136223846793005ull + 1442695040888963407ull;
	return (unsigned)(*x >> 33);
}

/* A value for variable `name`: usually a plausible one, else an odd one. */
static const char *nj_value(const char *name, size_t nl, int bare, unsigned long long *x)
{
	static const char *odd_str[] = {
		"", "-", "\\\"q\\\"", "a\\\\b", "\\n\\r\\t\\b\\f\\/", "\\u0000x", "\\u00e9t\\u00C9",
		"\\ud83d\\ude00", "\\ud83d", "\\udc00", "\\ud83dx", "\\ud83d\\u0041", "\\u12",
		"\\uZZZZ", "\\x41", "\\", "caf\xc3\xa9", "\xff\xfe", "\xe2\x82", "\x01raw", "a\"b",
		"\tTab", "GET /x\\\"y HTTP/1.1", "1e3", "200", " 404", "\\u0032\\u0030\\u0030",
		"\xf0\x9f\x98\x80", "\xed\xa0\x80", "\xc0\xaf", "::ffff:1.2.3.4", "0.013",
		"\\u0016\\u0003\\u0001\\u0000\xc3\\u0001", "GET http://h.example/p?q HTTP/1.0",
		"\xe9t\xe9", "x\\\\\\\"y", "abc\\\\"
	};
	static const char *odd_bare[] = {
		"", "200", "0", "-0", "01", "1e3", "1.5", "0.000", "0.013", "-1",
		"99999999999999999999", "-99999999999999999999", "9223372036854775807", "1e999",
		"1e-999", "true", "false", "null", "abc", " 200", "2.", ".5", "1E+2", "\"200\"",
		"2147483648", "0.0005", "12345678901234.567", "-", "1e", "0x10", "2e-3"
	};
	static const struct { const char *name, *v; } good[] = {
		{ "time_iso8601", "2026-11-30T07:49:44+00:00" }, { "msec", "1796024984.526" },
		{ "remote_addr", "192.0.2.10" }, { "remote_port", "51234" },
		{ "request", "GET /ping/abc?x=1 HTTP/1.1" }, { "request_method", "GET" },
		{ "request_uri", "/ping/abc?x=1" }, { "server_protocol", "HTTP/1.1" },
		{ "status", "200" }, { "body_bytes_sent", "3" }, { "bytes_sent", "150" },
		{ "request_time", "0.013" }, { "host", "hc-ping.com" },
		{ "http_user_agent", "curl/7.88.1" }, { "remote_user", "" },
		{ "upstream_response_time", "0.004" }
	};

	if (nj_rand(x) % 16 == 0 && !bare)
		return nj_rand(x) % 2 ? "caf\xe9 \xff" : "ok\xc3\xa9\xe2\x82";  /* not UTF-8 */
	if (nj_rand(x) % 24 != 0) {
		for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
			if (strlen(good[i].name) == nl && memcmp(good[i].name, name, nl) == 0)
				return good[i].v;
		return bare ? "1" : "v";
	}
	if (bare)
		return odd_bare[nj_rand(x) % (sizeof odd_bare / sizeof odd_bare[0])];
	return odd_str[nj_rand(x) % (sizeof odd_str / sizeof odd_str[0])];
}

/* Write a line of template t into out (size cap): values from nj_value. @return length */
static size_t nj_line(const char *t, char *out, size_t cap, unsigned long long *x)
{
	size_t w = 0;
	int in = 0;

	for (size_t i = 0; t[i] != '\0' && w + 1200 < cap;) {
		if (t[i] == '$') {
			size_t s = i + 1, e = s;
			const char *v;

			while (t[e] == '_' || (t[e] >= 'a' && t[e] <= 'z') || (t[e] >= '0' && t[e] <= '9'))
				e++;
			v = nj_value(t + s, e - s, !in, x);
			memcpy(out + w, v, strlen(v));
			w += strlen(v);
			if (in && nj_rand(x) % 30 == 0) {           /* a long value: lines >= 900 */
				memset(out + w, 'a', 900);
				w += 900;
			}
			i = e;
			continue;
		}
		if (t[i] == '"' && (i == 0 || t[i - 1] != '\\'))
			in = !in;
		out[w++] = t[i++];
	}
	return w;
}

/* Change a generated line the way a shipper or a cut would. @return new length */
static size_t nj_mutate(char *l, size_t n, size_t cap, unsigned long long *x)
{
	char *c;

	switch (nj_rand(x) % 10) {
	case 0:
		return n > 0 ? nj_rand(x) % n : n;                  /* cut */
	case 1:
		l[n++] = nj_rand(x) % 2 ? ' ' : '\t';               /* trailing blank */
		return n;
	case 2:
		if ((c = memchr(l, ',', n)) != NULL && n + 1 < cap) {  /* respaced */
			memmove(c + 2, c + 1, n - (size_t)(c - l) - 1);
			c[1] = ' ';
			n++;
		}
		return n;
	case 4:
	case 5:
		for (size_t i = nj_rand(x) % (n + 1); i < n; i++)    /* cut after a ':' or ',' */
			if (l[i] == ':' || l[i] == ',')
				return i + 1 + (i + 1 < n && l[i + 1] == '"');
		return n;
	case 3:
		if (n + 1 < cap) {                                   /* leading blank */
			memmove(l + 1, l, n);
			l[0] = ' ';
			n++;
		}
		return n;
	default:
		return n;
	}
}

/*
 * Skipped words (format_match.c): a line read with the words nobody wants
 * skipped must give what taking every step gives: the same answer, error
 * and fields, for the wanted fields of each program.  Lines: every line of
 * the real fixtures, each also with one to three bytes changed where the
 * shape of a word is decided (a '/', ':', space, digit or letter).
 */
static void skip_same(lbt_format *f, uint64_t wanted, const char *line, size_t len)
{
	static struct njsnap a, b;

	lbt_format_set_wanted(f, wanted);
	f->noskip = 1;
	njsnap_parse(f, 0, line, len, &a);
	lbt_format_set_wanted(f, wanted);
	f->noskip = 0;
	njsnap_parse(f, 0, line, len, &b);
	ck_assert_msg(a.r == b.r && a.n == b.n && memcmp(a.b, b.b, a.n) == 0,
	    "%s, wanted %llx, paths differ on '%.*s':\nsteps %d %.*s\nskips %d %.*s",
	    lbt_format_name(f), (unsigned long long)wanted, (int)len, line, a.r, (int)a.n, a.b,
	    b.r, (int)b.n, b.b);
	{       /* the count of quotes never rules out a line the format reads */
		unsigned q = 0;

		for (size_t i = 0; i < len; i++)
			q += line[i] == '"';
		ck_assert_msg(!lbt_format_cannot_read(f, len, q) || b.r == LBT_PARSE_BAD,
		    "%s read '%.*s' that its quotes ruled out", lbt_format_name(f), (int)len, line);
	}
}

START_TEST(skipped_words_same)
{
	static const uint64_t masks[] = {
		LBT_BIT(LBT_F_TIME) | LBT_BIT(LBT_F_PATH) | LBT_BIT(LBT_F_KEY),          /* rate */
		LBT_BIT(LBT_F_TIME) | LBT_BIT(LBT_F_CLIENT) | LBT_BIT(LBT_F_STATUS) |     /* offenders */
		    LBT_BIT(LBT_F_TERM) | LBT_BIT(LBT_F_TW) | LBT_BIT(LBT_F_PATH),
		LBT_BIT(LBT_F_TIME) | LBT_BIT(LBT_F_FRONTEND) | LBT_BIT(LBT_F_TERM) |     /* tarpit */
		    LBT_BIT(LBT_F_TW) | LBT_BIT(LBT_F_TA) | LBT_BIT(LBT_F_TT),
		LBT_BIT(LBT_F_SERVER), LBT_BIT(LBT_F_PORT), LBT_BIT(LBT_F_BQ), LBT_BIT(LBT_F_STATUS),
	};
	const char *const *names = lbt_format_builtin_names();
	unsigned long long x = 7;
	glob_t g;
	lbt_err err;
	char *line = NULL, mut[4096];
	size_t cap = 0, lines = 0;

	ck_assert_int_eq(glob(REAL "/*.log", 0, NULL, &g), 0);
	for (size_t k = 0; names[k] != NULL; k++) {
		lbt_format *f = lbt_format_open(names[k], &err);

		ck_assert_msg(f != NULL, "%s: %s", names[k], err.msg);
		for (size_t gi = 0; gi < g.gl_pathc; gi++) {
			FILE *fp = fopen(g.gl_pathv[gi], "r");

			ck_assert_ptr_nonnull(fp);
			while (getline(&line, &cap, fp) >= 0) {
				size_t n = strcspn(line, "\n");
				lbt_syslog sl;
				const char *m;

				lbt_syslog_strip(line, n, NULL, 1796024400, &sl);
				m = line + sl.msg_off;
				n -= sl.msg_off;
				if (n >= sizeof mut)
					continue;
				for (size_t mi = 0; mi < sizeof masks / sizeof masks[0]; mi++) {
					skip_same(f, masks[mi], m, n);
					memcpy(mut, m, n);
					for (int c = (int)(nj_rand(&x) % 3); c >= 0 && n > 0; c--)
						mut[nj_rand(&x) % n] = "/: 0a-"[nj_rand(&x) % 6];
					skip_same(f, masks[mi], mut, n);
				}
				lines++;
			}
			fclose(fp);
		}
		lbt_format_free(f);
	}
	free(line);
	globfree(&g);
	ck_assert_uint_ge(lines, 1000);
}
END_TEST

/* Both paths give the same records on fixtures, cases and a generated corpus. */
START_TEST(nginx_json_layout_same)
{
	static const char *tmpls[] = {
		NULL,   /* the built-in nginx-json */
		"{\"src\":{\"ip\":\"$remote_addr\",\"port\":$remote_port},\"req\":\"$request_method "
		"$request_uri\",\"st\":$status,\"t\":$request_time}",
		"{\"ra\":\"$remote_addr\",\"req\":\"$request\",\"st\":$status,\"ua\":\"$http_user_agent\","
		"\"urt\":\"$upstream_response_time\",\"ref\":\"$http_referer\"}",
		"{ \"a\": \"$remote_addr\", \"s\": ${status}, \"k\": [1, \"x\"], \"u\": \"[$uri]\", "
		"\"t\": \"$msec\" }",
		"{\"a\":\"$status\",\"a\":\"x\"}",         /* duplicate member: no layout */
		"{\"a\\\"b\":\"$status\",\"t\":\"$msec\"}", /* escaped key: no layout */
	};
	static char line[8192];
	unsigned long long x = 42;
	lbt_err err;
	int fast = 0, slow = 0;

	for (size_t k = 0; k < sizeof tmpls / sizeof tmpls[0]; k++) {
		lbt_format *f = k == 0 ? lbt_format_open("nginx-json", &err) :
		    lbt_format_compile(LBT_DIALECT_NGINX, tmpls[k], k == 3 ? "none" : "json", &err);
		const char *t = k == 0 ? "" : tmpls[k];
		char tb[2048];

		ck_assert_msg(f != NULL, "%zu: %s", k, err.msg);
		ck_assert_int_eq(f->prog.n > 0, k < 4);
		if (k == 0) {
			FILE *fp = fopen(REAL "/nginx-json.template", "r");

			ck_assert_ptr_nonnull(fp);
			tb[fread(tb, 1, sizeof tb - 1, fp)] = '\0';
			fclose(fp);
			tb[strcspn(tb, "\n")] = '\0';
			t = tb;
		}
		for (const char *src = REAL "/nginx-json.log"; k == 0 && src != NULL;
		    src = strcmp(src, REAL "/nginx-json.log") == 0 ? DATA "/nginx-json.cases" : NULL) {
			FILE *fp = fopen(src, "r");
			int n = 0, took = 0;

			ck_assert_ptr_nonnull(fp);
			while (fgets(line, sizeof line, fp) != NULL)
				if (line[0] == '{' || line[0] == ' ') {
					n++;
					took += nj_same(f, line, strlen(line));
				}
			fclose(fp);
			if (strstr(src, ".log") != NULL)
				ck_assert_int_eq(took, n);   /* every real line takes the layout */
		}
		for (int i = 0; i < 6000; i++) {
			size_t n = nj_line(t, line, sizeof line - 8, &x);

			n = nj_mutate(line, n, sizeof line - 8, &x);
			if (nj_same(f, line, n))
				fast++;
			else
				slow++;
		}
		lbt_format_free(f);
	}
	ck_assert_msg(fast > 5000 && slow > 5000, "fast %d, jansson %d", fast, slow);
}
END_TEST

Suite *format_suite(void);

/* The suite; targeted tests are added by the functions below. */
Suite *format_suite(void)
{
	Suite *s = suite_create("format");
	TCase *tc = tcase_create("cases");

	glob(DATA "/*.cases", 0, NULL, &cases);
	tcase_add_loop_test(tc, cases_file, 0, (int)cases.gl_pathc);
	suite_add_tcase(s, tc);
	tc = tcase_create("targeted");
	tcase_add_test(tc, haproxy_compile_errors);
	tcase_add_test(tc, nginx_compile_errors);
	tcase_add_test(tc, nginx_json_shape_default_escape);
	tcase_add_test(tc, wanted_mask);
	tcase_add_test(tc, captures);
	tcase_add_test(tc, fields_of_formats);
	tcase_add_test(tc, builtins);
	tcase_add_test(tc, descriptors);
	tcase_add_test(tc, detection);
	tcase_add_test(tc, detection_ties);
	tcase_add_test(tc, long_word_no_record);
	tcase_add_test(tc, expand_log_vars);
	tcase_add_test(tc, haproxy_cfg_real);
	tcase_add_test(tc, haproxy_cfg_small);
	tcase_add_test(tc, nginx_conf);
	tcase_add_test(tc, cbor_binary);
	suite_add_tcase(s, tc);
	tc = tcase_create("real");
	tcase_set_timeout(tc, 60);     /* corpora of every fixture line, under ASan */
	glob(REAL "/*.log", 0, NULL, &fixtures);
	tcase_add_loop_test(tc, real_fixture, 0, (int)fixtures.gl_pathc);
	tcase_add_test(tc, real_mixed);
	tcase_add_test(tc, nginx_json_layout_same);
	tcase_add_test(tc, skipped_words_same);
	suite_add_tcase(s, tc);
	return s;
}

/* Run the suite; exit 1 when a test failed. */
int main(void)
{
	SRunner *sr = srunner_create(format_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	globfree(&cases);
	globfree(&fixtures);
	return failed == 0 ? 0 : 1;
}
