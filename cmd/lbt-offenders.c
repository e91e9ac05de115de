/*
 * lbt-offenders - who sends the traffic: sources grouped as IPv4 /32 and
 * IPv6 /64 networks (configurable), ranked, with their baseline (or new),
 * ratio and episodes, tarpit cost, GeoIP/ASN and an evidence line.  The work is in
 * lib/analysis/offenders.c and geoip.c, the table in
 * lib/report/offenders_report.c; this file is options.
 */
#include <stdio.h>

#include "lbt/cli.h"
#include "lbt/follow.h"
#include "lbt/offenders_report.h"

#define MAX_GEOIP 16

struct geoip_files {
	const char *path[MAX_GEOIP];
	size_t n;
};

/* --geoip FILE, repeatable.  @return 0, or -1 with err when too many. */
static int opt_geoip(void *ctx, const char *arg, lbt_err *err)
{
	struct geoip_files *g = ctx;

	if (g->n == MAX_GEOIP)
		return lbt_err_set(err, "--geoip: at most %d databases", MAX_GEOIP);
	g->path[g->n++] = arg;
	return 0;
}

/* --follow: the options of each refresh's analysis. */
struct follow_ctx {
	lbt_cli *cli;
	lbt_offenders_opts *o;
	int episodes;
};

/* --follow: a fresh analysis.  @return 1, or -1 with err */
static int follow_make(void *ctx, lbt_analysis *v, lbt_err *err)
{
	struct follow_ctx *f = ctx;

	v[0] = lbt_offenders_analysis(lbt_offenders_new(f->o, err));
	return v[0].acc != NULL ? 1 : -1;
}

/* --follow: the table of the window (NDJSON rows without a terminal). */
static int follow_write(void *ctx, lbt_follow_view *view, FILE *fp, lbt_err *err)
{
	struct follow_ctx *f = ctx;
	lbt_report_opts p = lbt_cli_report_opts(f->cli, 0);
	int rc;

	p.mode = view->json ? LBT_OUT_JSON : LBT_OUT_TABLE;
	rc = f->episodes ? lbt_offenders_report_episodes(view->v[0].acc, fp, &p)
	    : lbt_offenders_report(view->v[0].acc, fp, &p);
	return rc < 0 ? lbt_err_set(err, "out of memory") : 0;
}

/* lbt-offenders --follow: lib/cli/follow.c's loop until a signal. */
static int follow(lbt_cli *cli, const lbt_follow_opts *fo, struct follow_ctx *f)
{
	lbt_follow_prog p = { f, follow_make, follow_write, 1 };
	int rc;

	rc = lbt_cli_follow_signals(cli, fo, &p);
	lbt_geoip_free(f->o->geoip);
	return rc;
}

/* Options, the analysis over the input, its table. */
int main(int argc, char **argv)
{
	static const lbt_cli_prog prog = {
		"lbt-offenders", "[options] [file ...]",
		"Sources of the traffic (IPv4 addresses, IPv6 /64 networks), ranked, with "
		"baseline ratio,\ntarpit cost, GeoIP/ASN and evidence.",
		LBT_CLI_INPUT | LBT_CLI_FILTER | LBT_CLI_OUTPUT, 0, -1
	};
	lbt_offenders_opts o = LBT_OFFENDERS_OPTS_INIT;
	struct geoip_files gf = { { NULL }, 0 };
	int64_t top = 20;
	int no_geoip = 0, episodes = 0;
	lbt_follow_opts fo = LBT_FOLLOW_OPTS_INIT;
	lbt_cli_opt opts[] = {
		LBT_OPT_FN("by", 'b', lbt_offenders_opt_by, &o, "WHAT",
		    "rank by requests (default), rate, held or ratio"),
		LBT_OPT_INT("top", 'n', &top, 0, 10000000, "N", "sources to show (default 20; 0: all)"),
		LBT_OPT_FN("min-rate", 0, lbt_offenders_opt_min_rate, &o, "RATE",
		    "only sources with a peak of at least RATE req/s"),
		LBT_OPT_FN("min-share", 0, lbt_offenders_opt_min_share, &o, "PCT",
		    "only sources with at least PCT % of the requests"),
		LBT_OPT_STR("baseline", 0, &o.baseline, "FROM..TO",
		    "one baseline window for every source (default: each its own)"),
		LBT_OPT_FN("jump-factor", 0, lbt_cp_opt_factor, &o.cp, "K",
		    "a rise is K times the baseline (default 5)"),
		LBT_OPT_DURATION("jump-min", 0, &o.jump_min_us, 1000000, 86400000000LL, "TIME",
		    "an episode lasts at least this long (default 10s)"),
		LBT_OPT_FN("jump-floor", 0, lbt_cp_opt_floor, &o.cp, "RATE",
		    "and a rise at least RATE req/s (default 2)"),
		LBT_OPT_FN("drop-fraction", 0, lbt_cp_opt_drop, &o.cp, "F",
		    "a drop is at most F times the baseline (default 0.2)"),
		LBT_OPT_FLAG("episodes", 0, &episodes, "print every episode of the sources shown"),
		LBT_OPT_FN("v4-prefix", 0, lbt_netgroup_opt_v4, &o.net, "BITS",
		    "IPv4 source prefix (default 32)"),
		LBT_OPT_FN("v6-prefix", 0, lbt_netgroup_opt_v6, &o.net, "BITS",
		    "IPv6 source prefix (default 64)"),
		LBT_OPT_FN("geoip", 0, opt_geoip, &gf, "FILE",
		    "MaxMind DB (City, Country or ASN); repeatable"),
		LBT_OPT_FLAG("no-geoip", 0, &no_geoip, "do not look for GeoIP databases"),
		LBT_OPT_FN("max-memory", 0, lbt_offenders_opt_max_memory, &o, "SIZE",
		    "memory for sources (default 1G); past it counts get a bound"),
		LBT_OPT_FOLLOW(&fo),
		LBT_OPT_END
	};
	lbt_cli cli;
	lbt_err err;
	lbt_analysis a;
	lbt_stream *in;
	lbt_report_opts p;
	char note[400];
	int rc;

	lbt_cli_parse(&cli, &prog, opts, argc, argv);
	lbt_follow_check(&cli, &fo);
	o.top = (size_t)top;
	if (no_geoip && gf.n > 0) {
		lbt_cli_errorf(&cli, "--no-geoip and --geoip exclude each other");
		lbt_cli_usage(&cli);
	}
	if (!no_geoip && (o.geoip = lbt_geoip_open(gf.path, gf.n, NULL, &err)) == NULL)
		lbt_cli_die(&cli, &err);
	if (fo.on) {
		struct follow_ctx f = { &cli, &o, episodes };

		return follow(&cli, &fo, &f);
	}
	if ((a = lbt_offenders_analysis(lbt_offenders_new(&o, &err))).acc == NULL)
		lbt_cli_die(&cli, &err);
	in = lbt_cli_run(&cli, &a, 1, 0);
	if (lbt_offenders_report_empty(a.acc, note, sizeof note))
		lbt_cli_empty(&cli, "%s", note);
	if (lbt_offenders_report_approx(a.acc, note, sizeof note))
		lbt_cli_note(&cli, "%s", note);
	if (lbt_offenders_report_header(a.acc, note, sizeof note))
		lbt_cli_note(&cli, "warning: %s", note);
	p = lbt_cli_report_opts(&cli, 0);
	rc = episodes ? lbt_offenders_report_episodes(a.acc, stdout, &p)
	    : lbt_offenders_report(a.acc, stdout, &p);
	lbt_analysis_free(&a);
	lbt_geoip_free(o.geoip);
	if (rc < 0)
		cli.status = 1;
	return lbt_cli_finish(&cli, in, NULL);
}
