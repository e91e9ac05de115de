/*
 * lbt-triage - the one command for 00:11: in one pass over the logs, the
 * hot keys and when they jumped, the sources sending them, the tarpit's
 * pressure against maxconn, the damage, and the rule that stops it, on
 * one screen of 80 columns (or one JSON document).  The analyses are
 * lib/analysis (rate by key and by status, offenders, tarpit), run by the
 * driver; what they say together is the judge (lib/judge/), its screen
 * lib/report/triage*.c, the rule lib/rule.  This file is options, the
 * pass, the output, the status.
 *
 * Exit status (docs/exit-status.md): 0 calm, 1 bad usage or input, 2 no
 * records, 3 an input unread (or more than 1 % of its lines: then never
 * "calm"), 4 an anomaly that is over by now, 5 an anomaly that is ongoing.
 */
#include <stdio.h>
#include <stdlib.h>

#include "lbt/cli.h"
#include "lbt/follow.h"
#include "lbt/input.h"
#include "lbt/cli_apply.h"
#include "lbt/num.h"
#include "lbt/tarpit_cfg.h"
#include "lbt/triage.h"

#define MAX_ALLOW 64

/* The options that are not plain values. */
struct opts {
	lbt_triage_opts t;
	const char *allow[MAX_ALLOW];
	size_t nallow;
	int64_t maxconn, keys, sources, v4, v6;
	int json, nginx;
	size_t max_memory;
	lbt_follow_opts fo;
	lbt_cli *cli;                 /* for --follow's callbacks */
	const lbt_tarpit_cfgs *cfg;
};

/* --allow FILE|NETWORK, repeatable.  @return 0, or -1 with err when too many */
static int opt_allow(void *ctx, const char *arg, lbt_err *err)
{
	struct opts *o = ctx;

	if (o->nallow == MAX_ALLOW)
		return lbt_err_set(err, "--allow: at most %d", MAX_ALLOW);
	o->allow[o->nallow++] = arg;
	return 0;
}

/* --factor K: a rise is K times its baseline, an offender K times its own. */
static int opt_factor(void *ctx, const char *arg, lbt_err *err)
{
	lbt_triage_opts *t = ctx;

	if (lbt_num_parse_double(arg, 1, 1, 1e9, "--jump-factor", &t->cp.factor, err) < 0)
		return -1;
	t->min_ratio = t->cp.factor;
	return 0;
}

/* --floor RATE, req/s a rise must reach.  @return 0 or -1 with err */
static int opt_floor(void *ctx, const char *arg, lbt_err *err)
{
	return lbt_num_parse_double(arg, 0, 0, 1e9, "--jump-floor", &((lbt_triage_opts *)ctx)->cp.floor,
	    err);
}

/* --min-share PCT.  @return 0 or -1 with err */
static int opt_share(void *ctx, const char *arg, lbt_err *err)
{
	return lbt_num_parse_double(arg, 0, 0, 100, "--min-share",
	    &((lbt_triage_opts *)ctx)->min_share, err);
}

/* The judge's analyses, with the options given; exits on error. */
static void make_analyses(lbt_cli *cli, const struct opts *o, const lbt_tarpit_cfgs *cfg,
    lbt_analysis *v)
{
	lbt_err err;

	if (lbt_triage_analyses(o->max_memory, cfg, (int32_t)o->maxconn, v, &err) < 0)
		lbt_cli_die(cli, &err);
}

/* One bind address of the haproxy.cfg given: never in the rule. */
static int own_addr(void *ctx, const lbt_addr *a, const char *file, uint64_t line,
    lbt_err *err)
{
	return lbt_triage_own(ctx, a, file, line, err);
}

/* The triage of the finished analyses v[0..4), its --allow entries and
 * the LB's own addresses in. */
static lbt_triage *triage(lbt_cli *cli, struct opts *o, lbt_analysis *v, lbt_stream *in)
{
	const lbt_input_stats *st = lbt_stream_stats(in);
	lbt_triage_input ti = lbt_triage_input_of(v, st->lines);
	lbt_triage *t;
	lbt_err err;

	ti.unread = st->partial_files > 0 || st->unread_files > 0 ? st->malformed : 0;
	o->t.now_us = cli->in.now_us;
	if ((t = lbt_triage_new(&o->t, &err)) == NULL)
		lbt_cli_die(cli, &err);
	for (size_t i = 0; i < o->nallow; i++)
		if (lbt_triage_allow(t, o->allow[i], &err) < 0)
			lbt_cli_die(cli, &err);
	lbt_cli_lb_addrs(cli, own_addr, t);
	if (lbt_triage_build(t, &ti, &err) < 0)
		lbt_cli_die(cli, &err);
	return t;
}

/* Every approximation of the answer, on stderr (the JSON has them too). */
static void say_approx(lbt_cli *cli, const lbt_triage *t)
{
	lbt_triage_approx a;

	for (size_t i = 0; lbt_triage_approx_at(t, i, &a); i++)
		lbt_cli_note(cli, "%s", a.note);
}

/* With --haproxy-cfg and --frontend: where in it the rule goes, for the
 * screen and the lbt-deny --into command (docs/placement.md). */
static void place(const lbt_cli *cli, lbt_triage_opts *t)
{
	static char desc[512];
	lbt_cli_into in = { cli->in.haproxy_cfg, cli->in.frontend, NULL, NULL, LBT_PLACE_HTTP,
		0 };
	lbt_place p;
	lbt_err err;

	if (in.cfg == NULL || in.frontend == NULL || t->dialect != LBT_DENY_HAPROXY)
		return;
	if (lbt_cli_place(&in, &p, desc, sizeof desc, &err) < 0) {
		lbt_cli_note(cli, "the rule's place: %s", err.msg);
		return;
	}
	t->place = desc;
	t->place_cfg = in.cfg;
	t->place_frontend = in.frontend;
}

/* The exit status of the verdict. */
static int status_of(const lbt_triage *t)
{
	static const int by_verdict[] = { LBT_EXIT_EMPTY, LBT_EXIT_OK, LBT_EXIT_FOUND,
		LBT_EXIT_ONGOING, LBT_EXIT_UNREAD };

	return by_verdict[lbt_triage_summary_get(t)->verdict];
}

/* --follow's fresh analyses of a refresh.  @return 4 */
static int follow_make(void *ctx, lbt_analysis *v, lbt_err *err)
{
	struct opts *o = ctx;

	(void)err;
	make_analyses(o->cli, o, o->cfg, v);
	return 4;
}

/* --follow's answer of a refresh: the screen or the document of the
 * window's triage; the rule's networks proposed for watching. */
static int follow_write(void *ctx, lbt_follow_view *view, FILE *fp, lbt_err *err)
{
	struct opts *o = ctx;
	lbt_analysis *v = view->v;
	lbt_triage_input ti = { v[0].acc, v[1].acc, v[2].acc, v[3].acc, view->records, 0 };
	lbt_triage_print pr = { view->color, view->width };
	const char *list;
	lbt_triage *t;
	int rc;

	o->t.now_us = view->now_us;
	if ((t = lbt_triage_new(&o->t, err)) == NULL)
		return -1;
	for (size_t i = 0; i < o->nallow; i++)
		if (lbt_triage_allow(t, o->allow[i], err) < 0)
			goto fail;
	lbt_cli_lb_addrs(o->cli, own_addr, t);
	if (lbt_triage_build(t, &ti, err) < 0)
		goto fail;
	if ((list = lbt_triage_rule_list(t)) != NULL)
		snprintf(view->watch, sizeof view->watch, "%s", list);
	rc = view->json ? lbt_triage_write_json(t, fp, err) : lbt_triage_write(t, fp, &pr, err);
	lbt_triage_free(t);
	return rc;
fail:
	lbt_triage_free(t);
	return -1;
}

/* lbt-triage --follow: the loop of lib/cli/follow.c until a signal. */
static int follow(lbt_cli *cli, struct opts *o, lbt_tarpit_cfgs *cfg)
{
	lbt_follow_prog p = { o, follow_make, follow_write, 0 };
	int rc;

	o->cli = cli;
	o->cfg = cfg;
	o->fo.max_memory = o->max_memory / 4;
	rc = lbt_cli_follow_signals(cli, &o->fo, &p);
	lbt_tarpit_cfgs_free(cfg);
	return rc;
}

/* Options, the pass, the screen or the document, the status. */
int main(int argc, char **argv)
{
	static const lbt_cli_prog prog = {
		"lbt-triage", "[options] [file ...]",
		"The one command for 00:11: hot keys and their jump, the sources, the tarpit's\n"
		"pressure on maxconn, the damage, and the rule that stops it, on one screen.",
		LBT_CLI_INPUT | LBT_CLI_FILTER, 0, -1
	};
	struct opts o = { LBT_TRIAGE_OPTS_INIT, { NULL }, 0, 0, 3, 5, -1, -1, 0, 0,
		LBT_BUDGET_DEFAULT, LBT_FOLLOW_OPTS_INIT, NULL, NULL };
	lbt_cli_opt opts[] = {
		LBT_OPT_FLAG("json", 0, &o.json, "one JSON document instead of the screen"),
		LBT_OPT_INT("keys", 0, &o.keys, 1, 100, "N", "hot keys shown (default 3)"),
		LBT_OPT_INT("more-sources", 0, &o.sources, 0, 1000, "N",
		    "other sources shown (default 5)"),
		LBT_OPT_FN("jump-factor", 0, opt_factor, &o.t, "K",
		    "a rise is K times the baseline (default 5)"),
		LBT_OPT_FN("jump-floor", 0, opt_floor, &o.t, "RATE",
		    "and a rise at least RATE req/s (default 2)"),
		LBT_OPT_FN("min-share", 0, opt_share, &o.t, "PCT",
		    "an offender sends PCT % of the requests (5)"),
		LBT_OPT_INT("maxconn", 'm', &o.maxconn, 1, INT32_MAX, "N",
		    "maxconn of every frontend (default: --haproxy-cfg)"),
		LBT_OPT_FN("allow", 0, opt_allow, &o, "FILE|NETWORK",
		    "never cover these in the rule (repeatable)"),
		LBT_OPT_INT("deny-v4-prefix", 0, &o.v4, 0, 32, "BITS",
		    "deny each IPv4 offender's /BITS"),
		LBT_OPT_INT("deny-v6-prefix", 0, &o.v6, 0, 128, "BITS",
		    "deny each IPv6 offender's /BITS"),
		LBT_OPT_FLAG("nginx", 0, &o.nginx, "write the rule for NGINX, not HAProxy"),
		LBT_OPT_STR("list-file", 0, &o.t.list_path, "PATH",
		    "list file of a rule too long for a line"),
		LBT_OPT_FN("max-memory", 0, lbt_budget_opt, &o.max_memory, "SIZE",
		    "memory for sources and keys (default 1G); past it counts get a bound"),
		LBT_OPT_FOLLOW(&o.fo),
		LBT_OPT_ALIAS("factor", "jump-factor"),       /* old names (NEWS) */
		LBT_OPT_ALIAS("floor", "jump-floor"),
		LBT_OPT_ALIAS("v4-prefix", "deny-v4-prefix"),
		LBT_OPT_ALIAS("v6-prefix", "deny-v6-prefix"),
		LBT_OPT_END
	};
	lbt_analysis v[LBT_TRIAGE_NANALYSES] = { { 0 } };
	lbt_triage_print pr = { 0, 80 };
	lbt_tarpit_cfgs *cfg;
	lbt_triage *t;
	lbt_stream *in;
	lbt_cli cli;
	lbt_err err;
	int rc;

	lbt_cli_parse(&cli, &prog, opts, argc, argv);
	lbt_follow_check(&cli, &o.fo);
	if (cli.in.trusted_proxies == NULL) {     /* a forged header must name nobody */
		cli.in.trusted_proxies = "";
		o.t.conn_only = 1;
	}
	o.t.nkeys = (size_t)o.keys;
	o.t.nsources = (size_t)o.sources;
	o.t.v4_bits = (int)o.v4;
	o.t.v6_bits = (int)o.v6;
	o.t.dialect = o.nginx ? LBT_DENY_NGINX : LBT_DENY_HAPROXY;
	place(&cli, &o.t);
	cfg = lbt_cli_tarpit_cfgs(&cli);
	if (o.fo.on)
		return follow(&cli, &o, cfg);
	make_analyses(&cli, &o, cfg, v);
	in = lbt_cli_run(&cli, v, LBT_TRIAGE_NANALYSES, 0);
	t = triage(&cli, &o, v, in);
	if (lbt_triage_summary_get(t)->verdict == LBT_TRIAGE_NO_RECORDS && cli.records > 0)
		lbt_cli_empty(&cli, "no records to triage: none of the %llu records has a time",
		    (unsigned long long)cli.records);
	say_approx(&cli, t);
	pr.color = cli.color;
	rc = o.json ? lbt_triage_write_json(t, stdout, &err) : lbt_triage_write(t, stdout, &pr, &err);
	if (rc < 0)
		lbt_cli_error(&cli, &err);
	if ((rc = lbt_cli_finish(&cli, in, NULL)) == LBT_EXIT_OK)   /* an error comes first */
		rc = status_of(t);
	lbt_triage_free(t);
	for (size_t i = 0; i < LBT_TRIAGE_NANALYSES; i++)
		lbt_analysis_free(&v[i]);
	lbt_tarpit_cfgs_free(cfg);
	return rc;
}
