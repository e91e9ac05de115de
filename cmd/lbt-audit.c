/*
 * lbt-audit - what in a haproxy.cfg let the incident happen: tarpit as a
 * rate-limit action, no `timeout http-request`, maxconn reached, the alert
 * that would have fired, rate limits a Host escaped, a log format that
 * lacks what the post-mortem needs; each with severity, file:line and the
 * line to change.  The checks are in lib/audit/ (audit.h), the output in
 * lib/report/audit_report.c; this file is options and exit status.
 *
 * Exit status: 0 no finding at or above --fail-on (warn by default), 2
 * some, 1 bad usage, a configuration or log that could not be read (1
 * wins over 2: the audit is incomplete).
 */
#include <stdio.h>
#include <string.h>

#include "lbt/audit_report.h"
#include "lbt/cli.h"
#include "lbt/format.h"


/* --fail-on SEVERITY.  @return 0 or -1 with err */
static int opt_fail_on(void *ctx, const char *arg, lbt_err *err)
{
	if (lbt_audit_sev_parse(arg, ctx, err) < 0)
		return lbt_err_set(err, "--fail-on: '%s' is not info, warn or crit", arg);
	return 0;
}

/* True when every frontend of the configuration at path that logs has one
 * format (lbt_format_from_haproxy_cfg picks it without --frontend). */
static int one_format(const char *path)
{
	lbt_format *f = lbt_format_from_haproxy_cfg(path, NULL, NULL);

	lbt_format_free(f);
	return f != NULL;
}

/*
 * The first operand is the configuration; the rest are logs.  Unless a
 * format is given, the logs are read with the configuration's log format:
 * that of --frontend (which also restricts the audit), or the one every
 * logging frontend shares; else their format is detected, and a note says
 * why.  @return the configuration's path.
 */
static const char *take_config(lbt_cli *cli)
{
	lbt_input_opts *in = &cli->in;
	const char *path = cli->args[0];
	int given = in->format || in->log_format || in->nginx_conf || in->haproxy_cfg;

	cli->args++;
	cli->nargs--;
	if (!given && cli->nargs > 0 && (in->frontend != NULL || one_format(path)))
		in->haproxy_cfg = path;
	else if (!given && cli->nargs > 0)
		lbt_cli_note(cli, "note: the frontends of %s log in several formats: the logs' is "
		    "detected (--frontend NAME reads them with that frontend's)", path);
	if (in->haproxy_cfg == NULL)
		in->frontend = NULL;          /* for the audit only */
	return path;
}

/* The logs (operands after the configuration, or --db) through the audit's
 * analyses; exits on failure.  @return the stream, or NULL without logs. */
static lbt_stream *read_logs(lbt_cli *cli, lbt_audit *a)
{
	lbt_analysis v[LBT_AUDIT_NANALYSES];
	lbt_err err;

	if (cli->nargs == 0 && cli->in.db == NULL)
		return NULL;
	if (lbt_audit_analyses(a, v) == 0) {
		lbt_err_set(&err, "out of memory");
		lbt_cli_die(cli, &err);
	}
	return lbt_cli_run(cli, v, LBT_AUDIT_NANALYSES, 0);
}

/* Options, the configuration, the logs through the analyses, the findings. */
int main(int argc, char **argv)
{
	static const lbt_cli_prog prog = {
		"lbt-audit", "[options] haproxy.cfg [file ...]",
		"What in a haproxy.cfg let an incident happen, from the configuration and, "
		"when given,\nthe logs: each finding with its severity, file:line and the "
		"line to change.",
		LBT_CLI_INPUT | LBT_CLI_FILTER | LBT_CLI_OUTPUT, 1, -1
	};
	lbt_audit_opts o = LBT_AUDIT_OPTS_INIT;
	lbt_audit_sev fail_on = LBT_AUDIT_WARN;
	int64_t pct = 80, near = 1;
	lbt_cli_opt opts[] = {
		LBT_OPT_INT("alert-pct", 0, &pct, 1, 100, "PCT",
		    "alert threshold, % of maxconn (default 80)"),
		LBT_OPT_DURATION("step", 's', &o.step_us, 1000, 86400000000LL, "TIME",
		    "buckets of fc and occupancy in the logs (default 1s)"),
		LBT_OPT_INT("full-within", 0, &near, 0, 1000000, "N",
		    "fc >= maxconn - N means full (default 1)"),
		LBT_OPT_FN("fail-on", 0, opt_fail_on, &fail_on, "SEVERITY",
		    "exit 4 on a finding of info, warn (default) or crit"),
		LBT_OPT_END
	};
	lbt_report_opts rep;
	const char *path;
	lbt_stream *in;
	lbt_audit *a;
	lbt_cli cli;
	lbt_err err;
	int status;

	lbt_cli_parse(&cli, &prog, opts, argc, argv);
	o.alert_pct = (int)pct;
	o.near = (int32_t)near;
	o.proxy = cli.in.frontend;
	path = take_config(&cli);
	if ((a = lbt_audit_new(path, &o, &err)) == NULL)
		lbt_cli_die(&cli, &err);
	in = read_logs(&cli, a);
	if (lbt_audit_run(a, in != NULL, &err) < 0)
		lbt_cli_die(&cli, &err);
	rep = lbt_cli_report_opts(&cli, 0);
	if (lbt_audit_write(a, stdout, &rep) < 0)
		cli.status = 1;
	status = lbt_cli_finish(&cli, in, NULL);
	if (status == LBT_EXIT_OK && lbt_audit_worst(a) >= (int)fail_on)
		status = LBT_EXIT_FOUND;
	lbt_audit_free(a);
	return status;
}
