/*
 * rate_report.h - lbt-rate(1)'s output: a finished lbt_rate (rate.h) as
 * rows through lbt_out, from its public accessors.
 * Includes: rate.h, report.h.
 */
#ifndef LBT_RATE_REPORT_H
#define LBT_RATE_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "lbt/rate.h"
#include "lbt/report.h"

/*
 * The ranked keys, one row each: key (named after --by), total, peak_rps,
 * peak_at, baseline_rps ("new"), the main episode's jump_start, jump_end
 * ("ongoing") and sustained_rps (its mean), first_seen, episodes, ratio
 * ("new"); with `spark` a sparkline of the key over the input's span.
 * @return 0, or -1 when writing failed or memory ran out.
 */
int lbt_rate_report_rows(const lbt_rate *r, FILE *fp, const lbt_report_opts *p, int spark);

/*
 * --episodes: one row per episode of every ranked key (episode_report.h),
 * in rank order, each key's in time order.
 * @return 0, or -1 when writing failed or memory ran out.
 */
int lbt_rate_report_episodes(const lbt_rate *r, FILE *fp, const lbt_report_opts *p);

/*
 * --series: time, key, count for every bucket of the input's span and
 * every ranked key, zeros included, in time order then rank order.
 * @return 0, or -1 when writing failed or memory ran out.
 */
int lbt_rate_report_series(const lbt_rate *r, FILE *fp, const lbt_report_opts *p);

/*
 * When no record counted because none had the --by field, the sentence
 * that says so ("none of 12 records has a key (see --by, --key-regex)")
 * into buf.  @return 1 with buf filled, 0 when there is nothing to say.
 */
int lbt_rate_report_empty(const lbt_rate *r, char *buf, size_t size);

/*
 * Over --max-memory, the sentence saying how many keys of at most how many
 * requests were dropped (the rows then carry total_err) into buf.
 * @return 1 with buf filled, 0 when every count is exact.
 */
int lbt_rate_report_approx(const lbt_rate *r, char *buf, size_t size);

#endif
