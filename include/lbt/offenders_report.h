/*
 * offenders_report.h - lbt-offenders(1)'s table: a finished lbt_offenders
 * (offenders.h) as rows through lbt_out, from its public accessors.  The
 * first column is the source, so `cut -f 1` of the TSV is an HAProxy ACL
 * file.
 * Includes: offenders.h, report.h.
 */
#ifndef LBT_OFFENDERS_REPORT_H
#define LBT_OFFENDERS_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "lbt/offenders.h"
#include "lbt/report.h"

/*
 * One row per ranked source: source, requests, share, peak_rps, addrs
 * (">N" when capped), top_keys, status, tarpit, held_s, first, last,
 * ratio ("new"), country and asn when the accumulator's GeoIP databases
 * can fill them, evidence, then baseline_rps ("new"), episodes and the main
 * episode's jump_start, jump_end ("ongoing") and sustained_rps (as
 * lbt-rate's).  @return 0, or -1 when writing failed or memory ran out.
 */
int lbt_offenders_report(const lbt_offenders *o, FILE *fp, const lbt_report_opts *p);

/*
 * --episodes: one row per episode of every ranked source (episode_report.h),
 * in rank order.  @return 0, or -1 when writing failed or memory ran out.
 */
int lbt_offenders_report_episodes(const lbt_offenders *o, FILE *fp, const lbt_report_opts *p);

/*
 * When no record counted because none had a client address, the sentence
 * that says so into buf.  @return 1 with buf filled, 0 otherwise.
 */
int lbt_offenders_report_empty(const lbt_offenders *o, char *buf, size_t size);

/*
 * When the memory budget (--max-memory) made sources be dropped, the
 * sentence that says what is approximate, and by how much, into buf (the
 * rows then carry requests_err).  @return 1 with buf filled, 0 when exact.
 */
int lbt_offenders_report_approx(const lbt_offenders *o, char *buf, size_t size);

/*
 * When some client addresses came from an X-Forwarded-For header nobody
 * vouches for (no --trusted-proxies), the warning that says so into buf
 * (the rows then carry from_header).  @return 1 with buf filled, 0 none.
 */
int lbt_offenders_report_header(const lbt_offenders *o, char *buf, size_t size);

/* A source's via as text: the connecting address, "+" after it when
 * others sent some too; "" when none.  @return buf */
const char *lbt_offender_via_str(const lbt_offender *w, char *buf, size_t size);

#endif
