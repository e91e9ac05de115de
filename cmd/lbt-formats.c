/*
 * lbt-formats - list, show, explain and detect log formats; derive them
 * from haproxy.cfg or nginx.conf; recommend an HAProxy log-format that
 * carries everything lbt reads.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbt/cli.h"
#include "lbt/descriptor.h"
#include "lbt/rec_report.h"

#define MAX_FORMATS 128

/* The modes; exactly one is given. */
struct mode {
	int list, recommend;
	const char *show, *explain, *detect, *hcfg, *ncfg;
	const char *frontend, *log_name, *format, *log_tz;
};

/* --list: name and one-line description of every built-in format. */
static void do_list(lbt_cli *cli)
{
	static const lbt_out_col cols[] = { { "name", LBT_COL_STR }, { "description", LBT_COL_STR } };
	const char *const *names = lbt_format_builtin_names();
	lbt_out *o = lbt_cli_out(cli, cols, 2);
	lbt_err err;

	for (int i = 0; names && names[i]; i++) {
		lbt_format *f = lbt_format_open(names[i], &err);

		lbt_out_cstr(o, names[i]);
		lbt_out_cstr(o, f ? lbt_format_describe(f) : err.msg);
		lbt_format_free(f);
	}
	lbt_cli_finish(cli, NULL, o);
}

/* --show NAME: the descriptor text of a built-in format. */
static void do_show(lbt_cli *cli, const char *name)
{
	const char *text = lbt_format_builtin_text(name);

	if (text == NULL) {
		lbt_cli_errorf(cli, "--show: '%s' is not a built-in format (lbt-formats --list)",
		    name);
		return;
	}
	fputs(text, stdout);
}

/*
 * The names of the built-ins that parse the line (scores sc[0..k), best
 * first, as detection ranks them) into matches[], space-separated.
 * @return the best, or NULL when none parses it.
 */
static const char *explain_matches(const lbt_format_score *sc, int k, char *matches,
    size_t size)
{
	size_t n = 0;

	matches[0] = '\0';
	for (int i = 0; i < k && sc[i].parsed == 1; i++)
		n += (size_t)snprintf(matches + n, n < size ? size - n : 0, "%s%s", i ? " " : "",
		    sc[i].name);
	return k > 0 && sc[0].parsed == 1 ? sc[0].name : NULL;
}

/* The rows of an explained line: wrapper, matches, format, then its fields. */
static void explain_rows(lbt_out *o, const struct mode *m, lbt_syslog_kind wrapper,
    const char *matches, const lbt_format *f, lbt_rec *rec)
{
	if (wrapper != LBT_SYSLOG_NONE) {
		lbt_out_cstr(o, "wrapper");
		lbt_out_cstr(o, lbt_syslog_kind_name(wrapper));
	}
	if (f != NULL && rec->kind == LBT_KIND_REQUEST && !m->format) {
		lbt_out_cstr(o, "matches");
		lbt_out_cstr(o, matches);
	}
	lbt_out_cstr(o, "format");
	lbt_out_cstr(o, rec->kind == LBT_KIND_EVENT ? "event" : lbt_format_name(f));
	lbt_rec_explain(o, rec);
}

/*
 * --explain LINE: which built-ins (or only --format) parse the line, the
 * library's detection on this one line, and the fields of the best,
 * completed as lbt-cat completes them.
 */
static void do_explain(lbt_cli *cli, const struct mode *m)
{
	static const lbt_out_col cols[] = { { "field", LBT_COL_STR }, { "value", LBT_COL_STR } };
	lbt_format_score sc[MAX_FORMATS];
	char matches[2048];
	const char *best;
	lbt_syslog_kind wrapper;
	lbt_input *in = lbt_cli_input(cli);
	lbt_format *f = NULL;
	lbt_out *o = lbt_cli_out(cli, cols, 2);
	lbt_rec *rec;
	lbt_err err;
	int k;

	lbt_out_set_header(o, 0);
	k = lbt_input_score_line(in, m->explain, strlen(m->explain), sc, MAX_FORMATS, &wrapper);
	best = explain_matches(sc, k, matches, sizeof matches);
	if ((m->format || best) && (f = lbt_format_open(m->format ? m->format : best, &err)) == NULL)
		lbt_cli_die(cli, &err);
	if (lbt_input_parse_line(in, f, m->explain, strlen(m->explain), &rec, &err) < 1) {
		if (m->format)
			lbt_cli_errorf(cli, "%s: %s", m->format, err.msg);
		else
			lbt_cli_errorf(cli, "no built-in format matches this line "
			    "(try lbt-formats --explain LINE --format NAME to see why)");
	} else {
		explain_rows(o, m, wrapper, matches, f, rec);
	}
	lbt_format_free(f);
	lbt_input_free(in);
	lbt_cli_finish(cli, NULL, o);
}

/*
 * --detect FILE: every built-in's score on the file's first lines, best
 * first.  When none reads a single one of them the file is unread, as
 * every program would find it (exit 3, a note), not an answer.
 */
static void do_detect(lbt_cli *cli, const char *path, const char *log_tz)
{
	static const lbt_out_col cols[] = {
		{ "format", LBT_COL_STR }, { "parsed", LBT_COL_NUM }, { "tried", LBT_COL_NUM },
		{ "fields", LBT_COL_NUM },
	};
	lbt_format_score sc[MAX_FORMATS];
	lbt_err err;
	lbt_out *o;
	int tried, n = lbt_input_score_file(path, log_tz, sc, MAX_FORMATS, &tried, &err);

	if (n < 0) {
		lbt_cli_error(cli, &err);
		return;
	}
	o = lbt_cli_out(cli, cols, 4);
	for (int i = 0; i < n; i++) {
		lbt_out_cstr(o, sc[i].name);
		lbt_out_int(o, sc[i].parsed);
		lbt_out_int(o, sc[i].tried);
		lbt_out_int(o, sc[i].fields);
	}
	if (tried > 0 && (n == 0 || sc[0].parsed == 0)) {
		lbt_cli_note(cli, "%s: no known format reads any of its first %d lines: give its "
		    "template (--log-format, --haproxy-cfg, --nginx-conf)", path, tried);
		cli->unread = 1;
	}
	lbt_cli_finish(cli, NULL, o);
}

/* --from-haproxy-cfg / --from-nginx-conf: the derived format as a descriptor. */
static void do_from(lbt_cli *cli, const struct mode *m)
{
	lbt_err err;
	lbt_format *f = m->hcfg ? lbt_format_from_haproxy_cfg(m->hcfg, m->frontend, &err) :
	    lbt_format_from_nginx_conf(m->ncfg, m->log_name, &err);

	char *text;

	if (f == NULL) {
		lbt_cli_error(cli, &err);
		return;
	}
	if ((text = lbt_descriptor_text(f, m->hcfg ? m->hcfg : m->ncfg)) == NULL)
		lbt_cli_errorf(cli, "out of memory");
	else
		fputs(text, stdout);
	free(text);
	lbt_format_free(f);
}

/*
 * --recommend: the built-in haproxy-lbt descriptor (formats/haproxy-lbt.fmt
 * says why each field is there) as haproxy.cfg lines, then the descriptor.
 */
static void do_recommend(lbt_cli *cli)
{
	lbt_err err;
	lbt_format *f = lbt_format_open("haproxy-lbt", &err);

	if (f == NULL)
		lbt_cli_die(cli, &err);
	printf("# A compact HAProxy log-format carrying every field lbt reads.  The accept\n"
	    "# time as epoch seconds.milliseconds needs no zone and no year; all timers\n"
	    "# (Th Ti TR Tw Tc Tr Ta Tt) let lbt-tarpit measure held sockets and queue\n"
	    "# time; the connection counters show maxconn pressure; Host and User-Agent\n"
	    "# come from header captures, escaped by HAProxy inside the {...} block.\n"
	    "#\n"
	    "# In the frontend section of haproxy.cfg:\n"
	    "    capture request header Host len 64\n"
	    "    capture request header User-Agent len 128\n"
	    "    log-format \"%s\"\n"
	    "#\n"
	    "# lbt reads these logs with --format haproxy-lbt (or --haproxy-cfg); the\n"
	    "# descriptor, to adapt into a file of your own:\n", lbt_format_template(f));
	fputs(lbt_format_builtin_text("haproxy-lbt"), stdout);
	lbt_format_free(f);
}

/* Run the one mode asked; two modes or none are a usage error. */
static void dispatch(lbt_cli *cli, const struct mode *m)
{
	int n = m->list + m->recommend + !!m->show + !!m->explain + !!m->detect + !!m->hcfg +
	    !!m->ncfg;

	if (n != 1)
		lbt_cli_errorf(cli, "choose one of --list, --show, --explain, --detect, "
		    "--from-haproxy-cfg, --from-nginx-conf and --recommend");
	else if ((m->frontend && !m->hcfg) || (m->log_name && !m->ncfg) ||
	    (m->format && !m->explain))
		lbt_cli_errorf(cli, "%s", m->frontend && !m->hcfg ? "--frontend needs "
		    "--from-haproxy-cfg" : m->log_name && !m->ncfg ? "--log-name needs "
		    "--from-nginx-conf" : "--format needs --explain");
	if (cli->status != 0)
		lbt_cli_usage(cli);
	if (m->list)
		do_list(cli);
	else if (m->recommend)
		do_recommend(cli);
	else if (m->show)
		do_show(cli, m->show);
	else if (m->detect)
		do_detect(cli, m->detect, m->log_tz);
	else if (m->explain)
		do_explain(cli, m);
	else
		do_from(cli, m);
}

/* Options, then the one mode. */
int main(int argc, char **argv)
{
	static const lbt_cli_prog prog = {
		"lbt-formats",
		"--list\n--show name\n--explain line [--format name] [--log-tz zone]\n"
		"--detect file [--log-tz zone]\n--from-haproxy-cfg file [--frontend name]\n"
		"--from-nginx-conf file [--log-name name]\n--recommend",
		"List, show, explain and detect log formats; derive them from haproxy.cfg or\n"
		"nginx.conf; recommend an HAProxy log-format.",
		LBT_CLI_OUTPUT, 0, 0
	};
	struct mode m = { 0 };
	lbt_cli_opt opts[] = {
		LBT_OPT_FLAG("list", 'l', &m.list, "the built-in formats"),
		LBT_OPT_STR("show", 0, &m.show, "NAME", "print a built-in descriptor"),
		LBT_OPT_STR("explain", 0, &m.explain, "LINE", "which formats parse LINE, its fields"),
		LBT_OPT_STR("format", 0, &m.format, "NAME", "--explain with this format only"),
		LBT_OPT_STR("detect", 0, &m.detect, "FILE", "score every format on FILE"),
		LBT_OPT_STR("from-haproxy-cfg", 0, &m.hcfg, "FILE", "the format a haproxy.cfg logs"),
		LBT_OPT_STR("frontend", 0, &m.frontend, "NAME", "proxy section to read"),
		LBT_OPT_STR("from-nginx-conf", 0, &m.ncfg, "FILE", "the format an nginx.conf logs"),
		LBT_OPT_STR("log-name", 0, &m.log_name, "NAME", "log_format to read"),
		LBT_OPT_STR("log-tz", 0, &m.log_tz, "ZONE", "zone of stamps without one (UTC)"),
		LBT_OPT_FLAG("recommend", 0, &m.recommend, "an HAProxy log-format for lbt"),
		LBT_OPT_END
	};
	lbt_cli cli;

	lbt_cli_parse(&cli, &prog, opts, argc, argv);
	cli.in.log_tz = m.log_tz;
	dispatch(&cli, &m);
	return lbt_cli_finish(&cli, NULL, NULL);
}
