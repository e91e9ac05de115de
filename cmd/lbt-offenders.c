/*
 * lbt-offenders - who sends the traffic: sources grouped as IPv4 /32 and
 * IPv6 /64 networks (configurable), ranked, with their baseline ratio,
 * tarpit cost, GeoIP/ASN and an evidence line.  The work is in
 * lib/analysis/offenders.c and lib/analysis/geoip.c; this file is options and output.  The
 * first column is the source, so `cut -f 1` of the TSV is an HAProxy ACL file.
 */
#include <stdio.h>

#include "lbt/cli.h"
#include "lbt/offenders.h"
#include "lbt/timeparse.h"

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

/* Write a time (ISO 8601 UTC, milliseconds). */
static void out_time(lbt_out *out, int64_t us)
{
	char buf[40];

	lbt_time_format(us, 0, buf, sizeof buf);
	lbt_out_cstr(out, buf);
}

/* Write the cells of one source. */
static void print_row(lbt_out *out, const lbt_offender *w, int country, int asn)
{
	char buf[1024];

	lbt_out_cstr(out, w->source);
	lbt_out_int(out, (int64_t)w->requests);
	lbt_out_double(out, w->share, 2);
	lbt_out_int(out, w->peak_count);
	snprintf(buf, sizeof buf, "%s%llu", w->addrs_capped ? ">" : "",
	    (unsigned long long)w->addrs);
	lbt_out_cstr(out, buf);
	lbt_out_cstr(out, lbt_offender_keys_str(w, buf, sizeof buf));
	lbt_out_cstr(out, lbt_offender_status_str(w, buf, sizeof buf));
	lbt_out_int(out, (int64_t)w->tarpitted);
	lbt_out_double(out, w->held_s, 3);
	out_time(out, w->first_us);
	out_time(out, w->last_us);
	if (!w->has_ratio)
		lbt_out_absent(out);
	else if (w->is_new)
		lbt_out_cstr(out, "new");
	else
		lbt_out_double(out, w->ratio, 2);
	if (country)
		lbt_out_cstr(out, w->geo.has_country ? w->geo.country : NULL);
	if (asn) {
		snprintf(buf, sizeof buf, "AS%lu %s", (unsigned long)w->geo.asn, w->geo.org);
		lbt_out_cstr(out, w->geo.has_asn ? buf : NULL);
	}
	snprintf(buf, sizeof buf, "%s:%llu", w->ev_file ? w->ev_file : "",
	    (unsigned long long)w->ev_line);
	lbt_out_cstr(out, w->ev_file ? buf : NULL);
}

/* The table: columns (GeoIP ones only when a database can fill them), rows. */
static lbt_out *print_rows(lbt_cli *cli, const lbt_offenders *o, const lbt_geoip *g)
{
	static const lbt_out_col base[] = {
		{ "source", LBT_COL_STR }, { "requests", LBT_COL_NUM }, { "share", LBT_COL_NUM },
		{ "peak_rps", LBT_COL_NUM }, { "addrs", LBT_COL_NUM }, { "top_keys", LBT_COL_STR },
		{ "status", LBT_COL_STR }, { "tarpit", LBT_COL_NUM }, { "held_s", LBT_COL_NUM },
		{ "first", LBT_COL_STR }, { "last", LBT_COL_STR }, { "ratio", LBT_COL_NUM },
	};
	int country = lbt_geoip_has_country(g), asn = lbt_geoip_has_asn(g), n = 12;
	lbt_out_col cols[15];
	lbt_out *out;

	for (int i = 0; i < n; i++)
		cols[i] = base[i];
	if (country)
		cols[n++] = (lbt_out_col){ "country", LBT_COL_STR };
	if (asn)
		cols[n++] = (lbt_out_col){ "asn", LBT_COL_STR };
	cols[n++] = (lbt_out_col){ "evidence", LBT_COL_STR };
	out = lbt_cli_out(cli, cols, n);
	for (size_t i = 0; i < lbt_offenders_nrows(o); i++)
		print_row(out, lbt_offenders_row_at(o, i), country, asn);
	return out;
}

/* Options, the record loop, the table. */
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
	int no_geoip = 0;
	lbt_cli_opt opts[] = {
		LBT_OPT_FN("by", 'b', lbt_offenders_opt_by, &o, "WHAT",
		    "rank by requests (default), rate, held or ratio"),
		LBT_OPT_INT("top", 'n', &top, 0, 10000000, "N", "sources to show (default 20; 0: all)"),
		LBT_OPT_FN("min-rate", 0, lbt_offenders_opt_min_rate, &o, "RATE",
		    "only sources with a peak of at least RATE req/s"),
		LBT_OPT_FN("min-share", 0, lbt_offenders_opt_min_share, &o, "PCT",
		    "only sources with at least PCT % of the requests"),
		LBT_OPT_STR("baseline", 0, &o.baseline, "FROM..TO",
		    "baseline window (default: before the first jump)"),
		LBT_OPT_FN("v4-prefix", 0, lbt_netgroup_opt_v4, &o.net, "BITS",
		    "IPv4 source prefix (default 32)"),
		LBT_OPT_FN("v6-prefix", 0, lbt_netgroup_opt_v6, &o.net, "BITS",
		    "IPv6 source prefix (default 64)"),
		LBT_OPT_FN("geoip", 0, opt_geoip, &gf, "FILE",
		    "MaxMind DB (City, Country or ASN); repeatable"),
		LBT_OPT_FLAG("no-geoip", 0, &no_geoip, "do not look for GeoIP databases"),
		LBT_OPT_END
	};
	lbt_cli cli;
	lbt_err err;
	lbt_offenders *off;
	lbt_input *in;
	lbt_out *out;
	lbt_rec *rec;

	lbt_cli_parse(&cli, &prog, opts, argc, argv);
	o.top = (size_t)top;
	if (no_geoip && gf.n > 0) {
		lbt_cli_errorf(&cli, "--no-geoip and --geoip exclude each other");
		lbt_cli_usage(&cli);
	}
	if (!no_geoip && (o.geoip = lbt_geoip_open(gf.path, gf.n, NULL, &err)) == NULL)
		lbt_cli_die(&cli, &err);
	if ((off = lbt_offenders_new(&o, &err)) == NULL)
		lbt_cli_die(&cli, &err);
	cli.in.wanted = lbt_offenders_fields(off);
	in = lbt_cli_input(&cli);
	while (lbt_cli_next(&cli, in, &rec))
		if (lbt_offenders_add(off, rec) < 0)
			break;
	if (lbt_offenders_finish(off, &err) < 0)
		lbt_cli_die(&cli, &err);
	if (lbt_offenders_stats_get(off)->counted == 0 && lbt_offenders_stats_get(off)->no_client)
		fprintf(stderr, "lbt-offenders: none of %llu records has a client address\n",
		    (unsigned long long)lbt_offenders_stats_get(off)->records);
	out = print_rows(&cli, off, o.geoip);
	lbt_offenders_free(off);
	lbt_geoip_free(o.geoip);
	return lbt_cli_finish(&cli, in, out);
}
