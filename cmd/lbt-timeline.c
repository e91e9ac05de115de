/*
 * lbt-timeline - the incident's story, minute by minute, with evidence:
 * episodes of the hot keys, sources and Hosts, saturation, load shedding
 * and errors, per-LB volume, HAProxy's own lines, retries, configuration
 * changes and the end of the incident, as Markdown to paste into a
 * post-mortem, TSV or NDJSON, and an HTML page with charts.  The work is
 * in lib/analysis/timeline*.c, the output in lib/report/timeline*.c and
 * html*.c; this file is options.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lbt/audit.h"
#include "lbt/cli.h"
#include "lbt/tarpit_cfg.h"
#include "lbt/timeline_report.h"

/* Write the HTML page to path.  @return 0, or -1 with the error printed. */
static int write_html(lbt_cli *cli, const lbt_timeline *tl, const char *path)
{
	FILE *fp = fopen(path, "w");
	int rc;

	if (fp == NULL) {
		lbt_cli_errorf(cli, "%s: %s", path, strerror(errno));
		return -1;
	}
	rc = lbt_timeline_report_html(tl, fp, "Incident timeline");
	if (fclose(fp) != 0 || rc < 0) {
		lbt_cli_errorf(cli, "%s: could not write the page", path);
		return -1;
	}
	return 0;
}

/* Did the timeline place the configuration's changes (at a reload)? */
static int has_change(const lbt_timeline *tl)
{
	for (size_t i = 0; i < lbt_timeline_nevents(tl); i++)
		if (lbt_timeline_event_at(tl, i)->kind == LBT_TL_CONFIG_CHANGE)
			return 1;
	return 0;
}

/* Options, the analysis over the input, the report. */
int main(int argc, char **argv)
{
	static const lbt_cli_prog prog = {
		"lbt-timeline", "[options] [file ...]",
		"The incident minute by minute, with evidence: episodes, saturation, errors,\n"
		"load balancers, HAProxy's lines, retries and the end, for a post-mortem.",
		LBT_CLI_INPUT | LBT_CLI_FILTER | LBT_CLI_OUTPUT, 0, -1
	};
	lbt_timeline_opts o = LBT_TIMELINE_OPTS_INIT;
	int64_t track = 64, top = 5, pct = 80, maxconn = 0, rmin = 20, flaps = 3;
	const char *html = NULL, *after = NULL;
	lbt_audit_changes changes = { NULL, 0 };
	lbt_cli_opt opts[] = {
		LBT_OPT_DURATION("step", 's', &o.step_us, 1000, 86400000000LL, "TIME",
		    "bucket width (default: 1s, wider for a long input)"),
		LBT_OPT_INT("top", 'n', &top, 1, 1000, "N",
		    "keys, sources and Hosts with events, each (default 5)"),
		LBT_OPT_INT("track", 0, &track, 1, 100000, "N",
		    "values with a series per dimension (default 64)"),
		LBT_OPT_FN("ratio", 0, lbt_timeline_opt_ratio, &o, "K",
		    "a source above K times its own baseline (default 20)"),
		LBT_OPT_INT("maxconn", 'm', &maxconn, 1, INT32_MAX, "N",
		    "maxconn of every frontend (default: --haproxy-cfg)"),
		LBT_OPT_INT("alert-pct", 0, &pct, 1, 100, "PCT",
		    "the alert on fc at PCT % of maxconn (default 80)"),
		LBT_OPT_DURATION("retry-window", 0, &o.retry_window_us, 1000, 86400000000LL,
		    "TIME", "re-sent within this on average (default 30s)"),
		LBT_OPT_INT("retry-min", 0, &rmin, 1, INT32_MAX, "N",
		    "re-sent requests that make a retry storm (default 20)"),
		LBT_OPT_INT("flaps", 0, &flaps, 2, 1000000, "N",
		    "DOWNs of one server that make a crash loop (default 3)"),
		LBT_OPT_FN("v4-prefix", 0, lbt_netgroup_opt_v4, &o.net, "BITS",
		    "IPv4 source prefix (default 32)"),
		LBT_OPT_FN("v6-prefix", 0, lbt_netgroup_opt_v6, &o.net, "BITS",
		    "IPv6 source prefix (default 64)"),
		LBT_OPT_STR("html", 0, &html, "FILE", "also write an HTML page with charts"),
		LBT_OPT_STR("haproxy-cfg-after", 0, &after, "FILE",
		    "the haproxy.cfg after the reload: its changes from --haproxy-cfg"),
		LBT_OPT_FN("max-memory", 0, lbt_budget_opt, &o.tarpit.max_memory, "SIZE",
		    "memory for sources (default 1G); past it counts get a bound"),
		LBT_OPT_END
	};
	lbt_report_opts p;
	lbt_tarpit_cfgs *cfg;
	lbt_analysis a;
	lbt_stream *in;
	lbt_cli cli;
	lbt_err err;
	char note[400];

	lbt_cli_parse(&cli, &prog, opts, argc, argv);
	o.track = (size_t)track;
	o.top = (size_t)top;
	o.alert_pct = (int)pct;
	o.retry_min = (uint64_t)rmin;
	o.flaps = (int)flaps;
	o.tarpit.maxconn = (int32_t)maxconn;
	cfg = lbt_cli_tarpit_cfgs(&cli);
	lbt_tarpit_cfgs_use(&o.tarpit, cfg);
	cli.in.events = 1;
	if (after != NULL && cli.in.haproxy_cfg == NULL) {
		lbt_cli_errorf(&cli, "--haproxy-cfg-after needs --haproxy-cfg (the one before)");
		lbt_cli_usage(&cli);
	}
	if (after != NULL && lbt_audit_cfg_diff(cli.in.haproxy_cfg, after, &changes, &err) < 0)
		lbt_cli_die(&cli, &err);
	o.changes = (const char *const *)changes.v;
	o.nchanges = changes.n;
	if ((a = lbt_timeline_analysis(lbt_timeline_new(&o, &err))).acc == NULL)
		lbt_cli_die(&cli, &err);
	in = lbt_cli_run(&cli, &a, 1, 0);
	if (lbt_timeline_stats_get(a.acc)->requests == 0)
		lbt_cli_note(&cli, "no request with a time in the input");
	if (changes.n > 0 && !has_change(a.acc))
		lbt_cli_note(&cli, "--haproxy-cfg-after: %zu changes, but no reload in the logs to "
		    "place them at", changes.n);
	for (size_t i = 0; lbt_timeline_report_approx(a.acc, i, note, sizeof note); i++)
		lbt_cli_note(&cli, "%s", note);
	p = lbt_cli_report_opts(&cli, 0);
	if (lbt_timeline_report(a.acc, stdout, &p) < 0)
		cli.status = 1;
	if (html != NULL && write_html(&cli, a.acc, html) < 0)
		cli.status = 1;
	lbt_analysis_free(&a);
	lbt_audit_changes_free(&changes);
	lbt_tarpit_cfgs_free(cfg);
	return lbt_cli_finish(&cli, in, NULL);
}
