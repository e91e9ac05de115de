/*
 * offenders_report.c - lbt-offenders(1)'s table (see offenders_report.h).
 */
#include <stdio.h>

#include "lbt/episode_report.h"
#include "lbt/offenders_report.h"

#define SEC 1000000LL

/* Write the cells of one source. */
static void row(lbt_out *out, const lbt_offender *w, int country, int asn, int approx,
    int header, int via)
{
	char buf[1024];

	lbt_out_cstr(out, w->source);
	lbt_out_int(out, (int64_t)w->requests);
	lbt_out_double(out, w->share, 2);
	lbt_out_int(out, w->peak_count);
	snprintf(buf, sizeof buf, "%s%llu", w->addrs_capped ? ">" : w->addrs_approx ? "~" : "",
	    (unsigned long long)w->addrs);
	lbt_out_cstr(out, buf);
	lbt_out_cstr(out, lbt_offender_keys_str(w, buf, sizeof buf));
	lbt_out_cstr(out, lbt_offender_status_str(w, buf, sizeof buf));
	lbt_out_int(out, (int64_t)w->tarpitted);
	lbt_out_double(out, w->held_s, 3);
	lbt_report_time(out, w->first_us);
	lbt_report_time(out, w->last_us);
	lbt_episode_report_ratio(out, &w->cp);
	if (country)
		lbt_out_cstr(out, w->geo.has_country ? w->geo.country : NULL);
	if (asn) {
		snprintf(buf, sizeof buf, "AS%lu %s", (unsigned long)w->geo.asn, w->geo.org);
		lbt_out_cstr(out, w->geo.has_asn ? buf : NULL);
	}
	lbt_report_evidence(out, w->ev_file, w->ev_line);
	lbt_episode_report_baseline(out, &w->cp);
	lbt_out_int(out, (int64_t)w->cp.episodes);
	lbt_episode_report_main(out, &w->cp, SEC);
	if (approx)
		lbt_out_int(out, (int64_t)w->requests_err);
	if (header)
		lbt_out_int(out, (int64_t)w->from_header);
	if (via)
		lbt_out_cstr(out, w->via.family ? lbt_offender_via_str(w, buf, sizeof buf) : NULL);
}

/* The connecting address beside a source's header address, "+" after it
 * when others sent some too ("203.0.113.66+").  @return buf */
const char *lbt_offender_via_str(const lbt_offender *w, char *buf, size_t size)
{
	char a[LBT_ADDR_STRLEN];

	snprintf(buf, size, "%s%s", w->via.family ? lbt_addr_format(&w->via, a, sizeof a) : "",
	    w->via_many ? "+" : "");
	return buf;
}

/*
 * What a narrow terminal leaves out first (out.h, lbt_out_set_drop):
 * source, requests, share and ratio always stay (who, how much, how new);
 * the proofs and details go first (evidence, times, keys, GeoIP, the
 * change points), then the tarpit's figures, then addresses, status mix
 * and peak.  At 80 columns the incident shows source, requests, share,
 * peak_rps, status and ratio.
 */
#define OFFENDERS_DROP "evidence,last,first,top_keys,asn,country,requests_err," \
	"sustained_rps,jump_end,jump_start,episodes,baseline_rps,held_s,tarpit,addrs," \
	"status,peak_rps"

/* The table: columns (GeoIP ones only when a database can fill them, the
 * change points after the evidence, where scripts that cut the older
 * columns do not see them, requests_err only when the memory budget made
 * the counts approximate, from_header only when some client address came
 * from a header nobody vouches for (lbt-deny reads it and will not deny
 * such a source without being told), via last and only when some came
 * from a header at all: the connecting address that sent them), rows.
 * @return 0 or -1. */
int lbt_offenders_report(const lbt_offenders *o, FILE *fp, const lbt_report_opts *p)
{
	static const lbt_out_col base[] = {
		{ "source", LBT_COL_STR }, { "requests", LBT_COL_NUM }, { "share", LBT_COL_NUM },
		{ "peak_rps", LBT_COL_NUM }, { "addrs", LBT_COL_NUM }, { "top_keys", LBT_COL_STR },
		{ "status", LBT_COL_STR }, { "tarpit", LBT_COL_NUM }, { "held_s", LBT_COL_NUM },
		{ "first", LBT_COL_STR }, { "last", LBT_COL_STR }, { "ratio", LBT_COL_NUM },
	};
	static const lbt_out_col changes[] = {
		{ "baseline_rps", LBT_COL_NUM }, { "episodes", LBT_COL_NUM },
		{ "jump_start", LBT_COL_STR }, { "jump_end", LBT_COL_STR },
		{ "sustained_rps", LBT_COL_NUM },
	};
	const lbt_geoip *g = lbt_offenders_opts_get(o)->geoip;
	int country = lbt_geoip_has_country(g), asn = lbt_geoip_has_asn(g);
	int n = (int)(sizeof base / sizeof base[0]);
	int approx = lbt_offenders_stats_get(o)->floor > 0;
	int header = lbt_offenders_stats_get(o)->from_header > 0;
	int via = header || lbt_offenders_stats_get(o)->from_trusted > 0;
	lbt_out_col cols[sizeof base / sizeof base[0] + 6 + sizeof changes / sizeof changes[0]];
	lbt_out *out;

	for (int i = 0; i < n; i++)
		cols[i] = base[i];
	if (country)
		cols[n++] = (lbt_out_col){ "country", LBT_COL_STR };
	if (asn)
		cols[n++] = (lbt_out_col){ "asn", LBT_COL_STR };
	cols[n++] = (lbt_out_col){ "evidence", LBT_COL_STR };
	for (size_t i = 0; i < sizeof changes / sizeof changes[0]; i++)
		cols[n++] = changes[i];
	if (approx)
		cols[n++] = (lbt_out_col){ "requests_err", LBT_COL_NUM };
	if (header)
		cols[n++] = (lbt_out_col){ "from_header", LBT_COL_NUM };
	if (via)
		cols[n++] = (lbt_out_col){ "via", LBT_COL_STR };
	if ((out = lbt_report_writer(fp, p, cols, n)) == NULL)
		return -1;
	lbt_out_set_drop(out, OFFENDERS_DROP);
	lbt_out_set_narrow(out, "status,source,top_keys,evidence");
	for (size_t i = 0; i < lbt_offenders_nrows(o); i++)
		row(out, lbt_offenders_row_at(o, i), country, asn, approx, header, via);
	return lbt_out_free(out);
}

/* Every episode of every ranked source, in rank order.  @return 0 or -1. */
int lbt_offenders_report_episodes(const lbt_offenders *o, FILE *fp, const lbt_report_opts *p)
{
	lbt_out_col cols[LBT_EPISODE_NCOLS];
	lbt_out *out;
	int64_t origin;

	lbt_episode_report_cols(cols, "source");
	if ((out = lbt_report_writer(fp, p, cols, LBT_EPISODE_NCOLS)) == NULL)
		return -1;
	lbt_out_set_drop(out, LBT_EPISODE_DROP);
	for (size_t i = 0; i < lbt_offenders_nrows(o); i++) {
		const lbt_cp_result *cp = lbt_offenders_changes(o, i, &origin);

		lbt_episode_report_rows(out, lbt_offenders_row_at(o, i)->source, cp, origin, SEC);
	}
	return lbt_out_free(out);
}

/* The "none has a client address" sentence.  @return 1 with buf, or 0. */
int lbt_offenders_report_empty(const lbt_offenders *o, char *buf, size_t size)
{
	const lbt_offenders_stats *st = lbt_offenders_stats_get(o);

	if (st->counted != 0 || st->no_client == 0)
		return 0;
	snprintf(buf, size, "none of %llu records has a client address",
	    (unsigned long long)st->records);
	return 1;
}

/* The "addresses from a header" sentence.  @return 1 with buf, or 0 (none). */
int lbt_offenders_report_header(const lbt_offenders *o, char *buf, size_t size)
{
	const lbt_offenders_stats *st = lbt_offenders_stats_get(o);

	if (st->from_header == 0)
		return 0;
	snprintf(buf, size, "%llu of %llu requests have a client address taken from an "
	    "X-Forwarded-For header, which any client can write (column from_header): "
	    "give --trusted-proxies to say whose word counts",
	    (unsigned long long)st->from_header, (unsigned long long)st->counted);
	return 1;
}

/* The "over --max-memory" sentence.  @return 1 with buf, or 0 (exact). */
int lbt_offenders_report_approx(const lbt_offenders *o, char *buf, size_t size)
{
	const lbt_offenders_stats *st = lbt_offenders_stats_get(o);

	if (st->floor == 0)
		return 0;
	snprintf(buf, size, "over --max-memory (%zu MiB): %llu sources of at most %llu requests "
	    "were dropped; a row's requests are exact to within its requests_err (at most %llu)",
	    lbt_offenders_opts_get(o)->max_memory >> 20, (unsigned long long)st->dropped,
	    (unsigned long long)st->floor, (unsigned long long)st->floor);
	return 1;
}
