/*
 * timeline_report.h - lbt-timeline(1)'s output: a finished lbt_timeline
 * (timeline.h) as a post-mortem, from its public accessors.
 *
 *   Markdown (--md, and the default on a terminal): a title, a summary
 *   paragraph with the headline numbers, then the event table (time,
 *   event, numbers, evidence), ready to paste; TABLE: the same, aligned.
 *   TSV and NDJSON (--tsv, --json): one row per event with every column of
 *   the schema (lbt-timeline(1) documents it; LBT_TL_COLUMNS names them).
 *   HTML (lbt_timeline_report_html): one self-contained page with inline
 *   SVG charts, written by the html writer (html.h).
 *
 * The sentences of an event (lbt_tl_phrase) are shared by every form, so
 * the table, the NDJSON and the page say the same thing.
 * Includes: report.h, timeline.h.
 */
#ifndef LBT_TIMELINE_REPORT_H
#define LBT_TIMELINE_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "lbt/report.h"
#include "lbt/timeline.h"

/* The columns of the TSV and NDJSON rows, in order (lbt-timeline(1)). */
#define LBT_TL_COLUMNS "time time_us kind what subject lb end end_us from to unit peak " \
	"peak_at ratio count distinct share_pct value limit period_s approx other text " \
	"evidence event numbers"

/*
 * The two sentences of event e of tl: what happened (`event`: "new heavy
 * source 203.0.113.7") and its numbers ("0 -> 37.2 req/s, peak 80 req/s
 * at 07:45:52 ..."), NUL-terminated, truncated to their sizes.
 */
void lbt_tl_phrase(const lbt_timeline *tl, const lbt_tl_event *e, char *event, size_t esize,
    char *numbers, size_t nsize);

/*
 * The time of an event as the tables show it: "07:45:30" (milliseconds
 * when it has them), "≈" before a time placed between two lines, the
 * date first when `date` is set ("2026-11-30 07:45:30").  @return buf.
 */
const char *lbt_tl_time_text(const lbt_tl_event *e, int date, char *buf, size_t size);

/* The summary paragraph (Markdown: the numbers in plain text), into buf.
 * @return buf. */
const char *lbt_tl_summary(const lbt_timeline *tl, char *buf, size_t size);

/*
 * Write the report in p's mode to fp (see above).
 * @return 0, or -1 when writing failed or memory ran out.
 */
int lbt_timeline_report(const lbt_timeline *tl, FILE *fp, const lbt_report_opts *p);

/*
 * Write the HTML page to fp: title, summary, the charts (hot keys against
 * the rest, per-LB volume, occupancy against maxconn, status mix, top
 * sources) with a marker at each event's time, and the event list, each
 * row linked to its markers and back.  No script, no network; printable.
 * @return 0, or -1 when writing failed or memory ran out.
 */
int lbt_timeline_report_html(const lbt_timeline *tl, FILE *fp, const char *title);

/*
 * Approximation i of the timeline (a sketch past --track, HAProxy lines or
 * load balancers past their caps, sources over --max-memory) as one
 * sentence into buf.  @return 1 with buf, 0 past the last.
 */
int lbt_timeline_report_approx(const lbt_timeline *tl, size_t i, char *buf, size_t size);

#endif
