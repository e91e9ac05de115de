/*
 * timeline_report.c - lbt-timeline(1)'s Markdown, table, TSV and NDJSON
 * (see timeline_report.h): the summary paragraph, then one row per event
 * through lbt_out.  The sentences come from timeline_text.c.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbt/timeline_report.h"

#define EVENT_MAX 512
#define NUMBERS_MAX 1024

/* The columns of TSV and NDJSON, as LBT_TL_COLUMNS lists them. */
static const lbt_out_col full_cols[] = {
	{ "time", LBT_COL_STR }, { "time_us", LBT_COL_NUM }, { "kind", LBT_COL_STR },
	{ "what", LBT_COL_STR }, { "subject", LBT_COL_STR }, { "lb", LBT_COL_STR },
	{ "end", LBT_COL_STR }, { "end_us", LBT_COL_NUM }, { "from", LBT_COL_NUM },
	{ "to", LBT_COL_NUM }, { "unit", LBT_COL_STR }, { "peak", LBT_COL_NUM },
	{ "peak_at", LBT_COL_STR }, { "ratio", LBT_COL_NUM }, { "count", LBT_COL_NUM },
	{ "distinct", LBT_COL_NUM }, { "share_pct", LBT_COL_NUM }, { "value", LBT_COL_NUM },
	{ "limit", LBT_COL_NUM }, { "period_s", LBT_COL_NUM }, { "approx", LBT_COL_NUM },
	{ "other", LBT_COL_STR }, { "text", LBT_COL_STR }, { "evidence", LBT_COL_STR },
	{ "event", LBT_COL_STR }, { "numbers", LBT_COL_STR },
};

/* The columns of Markdown and the table. */
static const lbt_out_col short_cols[] = {
	{ "time", LBT_COL_STR }, { "event", LBT_COL_STR }, { "numbers", LBT_COL_STR },
	{ "evidence", LBT_COL_STR },
};

/* A time cell (ISO, ms), absent for LBT_TL_NONE. */
static void time_cell(lbt_out *o, int64_t us)
{
	if (us == LBT_TL_NONE)
		lbt_out_absent(o);
	else
		lbt_report_time(o, us);
}

/* A µs cell, absent for LBT_TL_NONE. */
static void us_cell(lbt_out *o, int64_t us)
{
	if (us == LBT_TL_NONE)
		lbt_out_absent(o);
	else
		lbt_out_int(o, us);
}

/* A number cell, absent for NaN. */
static void num_cell(lbt_out *o, double v, int decimals)
{
	if (isnan(v))
		lbt_out_absent(o);
	else
		lbt_out_double(o, v, decimals);
}

/* A count cell, absent below 0. */
static void count_cell(lbt_out *o, int64_t v)
{
	if (v < 0)
		lbt_out_absent(o);
	else
		lbt_out_int(o, v);
}

/* One row of every column. */
static void full_row(lbt_out *o, const lbt_tl_event *e, const char *ev, const char *nu)
{
	time_cell(o, e->time_us);
	lbt_out_int(o, e->time_us);
	lbt_out_cstr(o, lbt_tl_kind_name(e->kind));
	lbt_out_cstr(o, lbt_tl_what_name(e->what));
	lbt_out_cstr(o, e->subject);
	lbt_out_cstr(o, e->lb);
	time_cell(o, e->end_us);
	us_cell(o, e->end_us);
	num_cell(o, e->from, 3);
	num_cell(o, e->to, 3);
	lbt_out_cstr(o, e->unit);
	num_cell(o, e->peak, 3);
	time_cell(o, e->peak_us);
	num_cell(o, e->ratio, 2);
	count_cell(o, e->count);
	count_cell(o, e->distinct);
	num_cell(o, e->share_pct, 2);
	count_cell(o, e->value);
	count_cell(o, e->limit);
	num_cell(o, e->period_s, 3);
	lbt_out_int(o, e->approx);
	lbt_out_cstr(o, e->other);
	lbt_out_cstr(o, e->text);
	lbt_report_evidence(o, e->ev_file, e->ev_line);
	lbt_out_cstr(o, ev);
	lbt_out_cstr(o, nu);
}

/* An approximation as a last NDJSON row (what stderr says): kind "approx",
 * the sentence in text, approx 1, every other column null. */
static void approx_row(lbt_out *o, const char *sentence)
{
	for (size_t c = 0; c < sizeof full_cols / sizeof full_cols[0]; c++) {
		const char *name = full_cols[c].name;

		if (strcmp(name, "kind") == 0)
			lbt_out_cstr(o, "approx");
		else if (strcmp(name, "approx") == 0)
			lbt_out_int(o, 1);
		else if (strcmp(name, "text") == 0)
			lbt_out_cstr(o, sentence);
		else
			lbt_out_absent(o);
	}
}

/* One row of the short columns; the date on the first row and when it changes. */
static void short_row(lbt_out *o, const lbt_tl_event *e, const char *ev, const char *nu,
    int64_t *day)
{
	char t[64];
	int64_t d = e->time_us / 86400000000LL;

	lbt_out_cstr(o, lbt_tl_time_text(e, d != *day, t, sizeof t));
	*day = d;
	lbt_out_cstr(o, ev);
	lbt_out_cstr(o, nu);
	lbt_report_evidence(o, e->ev_file, e->ev_line);
}

/* The title and summary paragraph before the table (Markdown, table).
 * @return 0 or -1. */
static int head(const lbt_timeline *tl, FILE *fp, const lbt_report_opts *p)
{
	char *s = malloc(16384);
	int rc;

	if (s == NULL)
		return -1;
	lbt_tl_summary(tl, s, 16384);
	/* the summary quotes keys and names of the log: escaped for the mode */
	rc = lbt_out_line(fp, p->mode == LBT_OUT_MD ? "## Incident timeline" : "Incident timeline",
	    p->mode == LBT_OUT_TABLE && p->color) < 0 || lbt_out_line(fp, "", 0) < 0 ||
	    (p->mode == LBT_OUT_MD ? lbt_out_md_paragraph(fp, s, 80) :
	    lbt_out_paragraph(fp, s, 80, "", "")) < 0 || lbt_out_line(fp, "", 0) < 0 ? -1 : 0;
	free(s);
	return rc;
}

/* Write the report (see timeline_report.h).  @return 0, or -1. */
int lbt_timeline_report(const lbt_timeline *tl, FILE *fp, const lbt_report_opts *p)
{
	int full = p->mode == LBT_OUT_TSV || p->mode == LBT_OUT_JSON;
	lbt_out *o;
	char ev[EVENT_MAX], nu[NUMBERS_MAX];
	int64_t day = INT64_MIN;

	if (!full && head(tl, fp, p) < 0)
		return -1;
	o = full ? lbt_report_writer(fp, p, full_cols, (int)(sizeof full_cols / sizeof full_cols[0])) :
	    lbt_report_writer(fp, p, short_cols, (int)(sizeof short_cols / sizeof short_cols[0]));
	if (o == NULL)
		return -1;
	lbt_out_set_drop(o, "evidence");        /* a narrow terminal: what happened first */
	lbt_out_set_narrow(o, "numbers,event");
	for (size_t i = 0; i < lbt_timeline_nevents(tl); i++) {
		const lbt_tl_event *e = lbt_timeline_event_at(tl, i);

		lbt_tl_phrase(tl, e, ev, sizeof ev, nu, sizeof nu);
		if (full)
			full_row(o, e, ev, nu);
		else
			short_row(o, e, ev, nu, &day);
	}
	for (size_t i = 0; p->mode == LBT_OUT_JSON &&
	    lbt_timeline_report_approx(tl, i, ev, sizeof ev); i++)
		approx_row(o, ev);
	return lbt_report_done(o, fp, p);
}

/* The sentence of a dimension's sketch past --track (how many were pushed
 * out depends on the parts merged, so it is not said: the output is the
 * same on every thread count).  @return 1 with buf, or 0. */
static int sketch_note(const lbt_timeline *tl, int d, char *buf, size_t size)
{
	static const char *const what[3] = { "keys", "sources", "Hosts" };
	const lbt_timeline_stats *st = lbt_timeline_stats_get(tl);

	if (!st->approx[d])
		return 0;
	snprintf(buf, size, "more %s than --track %zu: those pushed out of the tracked ones "
	    "are counted in the totals only; a tracked one's count is an upper bound and its "
	    "series starts when it was tracked", what[d], lbt_timeline_opts_get(tl)->track);
	return 1;
}

/* Approximation i of the timeline (timeline_report.h).  @return 1 with buf, or 0. */
int lbt_timeline_report_approx(const lbt_timeline *tl, size_t i, char *buf, size_t size)
{
	const lbt_timeline_stats *st = lbt_timeline_stats_get(tl);
	size_t k = 0;

	for (int j = 0; j < 6; j++) {
		int has = 0;

		if (j < 3)
			has = sketch_note(tl, j, buf, size);
		else if (j == 3 && st->events_dropped > 0)
			has = snprintf(buf, size, "%llu of HAProxy's own lines past the first %d were "
			    "left out", (unsigned long long)st->events_dropped, LBT_TL_MAXEV) > 0;
		else if (j == 4 && st->lbs_other > 0)
			has = snprintf(buf, size, "%llu requests of load balancers past the first %d "
			    "have no series of their own", (unsigned long long)st->lbs_other,
			    LBT_TL_MAXLB) > 0;
		else if (j == 5 && lbt_budget_note(&st->tarpit_budget, "sources", "requests", buf,
		    size)) {
			size_t n = strlen(buf);

			snprintf(buf + n, size - n, " (the tarpit's per-source state; the timeline's "
			    "frontends and series are whole)");
			has = 1;
		}
		if (has && k++ == i)
			return 1;
	}
	return 0;
}
