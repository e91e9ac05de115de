/*
 * tarpit_report.c - the sections of lbt-tarpit(1) written through lbt_out
 * (see tarpit_report.h), from the public accessors of tarpit.h and
 * occupancy.h only.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbt/tarpit_report.h"
#include "lbt/timeparse.h"

/* The accumulator's counters and options, shorter. */
#define ST(t) lbt_tarpit_stats_get(t)
#define OPT(t) lbt_tarpit_opts_get(t)

/* A section title (TABLE only); write errors show in done(). */
static void title(FILE *fp, const lbt_tarpit_print *p, const char *text)
{
	lbt_report_title(fp, p, text);
}

/* A writer for cols with the print options.  NULL when out of memory. */
static lbt_out *writer(FILE *fp, const lbt_tarpit_print *p, const lbt_out_col *cols, int n)
{
	return lbt_report_writer(fp, p, cols, n);
}

/* The options of a summary read in a pipe (p->text): the blocks of a
 * terminal, 80 columns, no colour, in `buf`.  @return buf. */
static const lbt_tarpit_print *as_text(const lbt_tarpit_print *p, lbt_tarpit_print *buf)
{
	*buf = *p;
	buf->mode = LBT_OUT_TABLE;
	buf->color = 0;
	buf->width = LBT_REPORT_TEXT_WIDTH;
	return buf;
}

/* Free the writer, and a blank line after a TABLE.  @return 0 or -1. */
static int done(lbt_out *o, FILE *fp, const lbt_tarpit_print *p)
{
	return lbt_report_done(o, fp, p);
}

/* Total time of a group's periods (whatif: untarpitted) and their count. */
static int64_t periods_total(const lbt_tarpit_group *g, int whatif, size_t *n)
{
	const lbt_occ_period *v = lbt_occ_periods(g->occ, whatif, n);
	int64_t sum = 0;
	size_t i;

	for (i = 0; i < *n; i++)
		sum += v[i].end_us - v[i].start_us;
	return sum;
}

/* ---- the total across LBs -------------------------------------------- */

static __attribute__((format(printf, 3, 4))) void kv(lbt_out *o, const char *k,
    const char *fmt, ...);

/* What adds up across the groups of several LBs (a peak does not: the
 * LBs' peaks fall at different times). */
struct total {
	size_t nlb;               /* distinct LB names among the groups */
	char lbs[200];            /* "lb1, lb2" */
	const char *frontend;     /* the one frontend of every group, or NULL */
	uint64_t requests, pt, ct, pt_tw, pt_ta;
	int64_t held_tw_ms, held_ta_ms, slot_us, tarpit_us;
	int64_t first_us, last_us;
	int has_time;
};

/* True when group i's LB name is not one of groups 0..i-1's. */
static int lb_first_seen(const lbt_tarpit *t, size_t i)
{
	const char *lb = lbt_tarpit_group_at(t, i)->lb;

	for (size_t k = 0; k < i; k++)
		if (strcmp(lbt_tarpit_group_at(t, k)->lb, lb) == 0)
			return 0;
	return 1;
}

/* Add group g to the total. */
static void total_add(struct total *x, const lbt_tarpit_group *g)
{
	const lbt_occ_stats *os = lbt_occ_stats_get(g->occ);

	x->requests += g->requests;
	x->pt += g->pt, x->ct += g->ct, x->pt_tw += g->pt_tw, x->pt_ta += g->pt_ta;
	x->held_tw_ms += g->held_tw_ms, x->held_ta_ms += g->held_ta_ms;
	x->slot_us += os->slot_us, x->tarpit_us += os->tarpit_us;
	if (g->has_time && (!x->has_time || g->first_us < x->first_us))
		x->first_us = g->first_us;
	if (g->has_time && (!x->has_time || g->last_us > x->last_us))
		x->last_us = g->last_us;
	x->has_time |= g->has_time;
	if (x->frontend != NULL && strcmp(x->frontend, g->frontend) != 0)
		x->frontend = NULL;
}

/* The total of every group into x.  @return 1 when the groups are of more
 * than one LB (a total to show), else 0. */
static int total_of(const lbt_tarpit *t, struct total *x)
{
	size_t n = lbt_tarpit_ngroups(t);

	memset(x, 0, sizeof *x);
	if (n > 0)
		x->frontend = lbt_tarpit_group_at(t, 0)->frontend;
	for (size_t i = 0; i < n; i++) {
		const lbt_tarpit_group *g = lbt_tarpit_group_at(t, i);
		size_t len = strlen(x->lbs);

		total_add(x, g);
		if (g->lb[0] == '\0' || !lb_first_seen(t, i))
			continue;
		snprintf(x->lbs + len, sizeof x->lbs - len, "%s%s", x->nlb ? ", " : "", g->lb);
		x->nlb++;
	}
	if (x->frontend != NULL && x->frontend[0] == '\0')
		x->frontend = NULL;
	return x->nlb > 1;
}

/* The total as a summary row: lb "(total)", which no host name can be. */
static void total_row(lbt_out *o, const lbt_tarpit *t, const struct total *x)
{
	int term = ST(t)->no_term < ST(t)->requests;

	lbt_out_cstr(o, "(total)");
	lbt_out_cstr(o, x->frontend);
	lbt_out_int(o, (int64_t)x->requests);
	term ? lbt_out_int(o, (int64_t)x->pt) : lbt_out_absent(o);
	term ? lbt_out_int(o, (int64_t)x->ct) : lbt_out_absent(o);
	term && !(x->pt > 0 && x->pt_tw == 0) ? lbt_out_double(o, (double)x->held_tw_ms / 1e3, 3)
	    : lbt_out_absent(o);
	term && !(x->pt > 0 && x->pt_ta == 0) ? lbt_out_double(o, (double)x->held_ta_ms / 1e3, 3)
	    : lbt_out_absent(o);
	x->slot_us > 0 ? lbt_out_double(o, (double)x->slot_us / 1e6, 3) : lbt_out_absent(o);
	term && x->slot_us > 0 ?
	    lbt_out_double(o, 100.0 * (double)x->tarpit_us / (double)x->slot_us, 1) :
	    lbt_out_absent(o);
	for (int i = 0; i < 14; i++)       /* peak .. whatif_periods_s: per LB only */
		lbt_out_absent(o);
	x->has_time ? lbt_report_time(o, x->first_us) : lbt_out_absent(o);
	x->has_time ? lbt_report_time(o, x->last_us) : lbt_out_absent(o);
}

/* The total as a block (TABLE).  @return 0 or -1. */
static int total_block(const lbt_tarpit *t, const struct total *x, FILE *fp,
    const lbt_tarpit_print *p)
{
	char lab[300], f[48], l[48];
	lbt_out_col cols[2] = { { lab, LBT_COL_STR }, { "", LBT_COL_STR } };
	lbt_out *o;

	snprintf(lab, sizeof lab, "%s on all %zu LBs (%s)", x->frontend ? x->frontend :
	    "every frontend", x->nlb, x->lbs);
	if ((o = writer(fp, p, cols, 2)) == NULL)
		return -1;
	lbt_time_format(x->first_us, 0, f, sizeof f);
	lbt_time_format(x->last_us, 0, l, sizeof l);
	kv(o, "requests", "%llu%s%s%s%s", (unsigned long long)x->requests,
	    x->has_time ? ", " : "", x->has_time ? f : "", x->has_time ? " .. " : "",
	    x->has_time ? l : "");
	if (ST(t)->no_term < ST(t)->requests) {
		kv(o, "tarpitted (PT)", "%llu; %llu more left during the tarpit (CT)",
		    (unsigned long long)x->pt, (unsigned long long)x->ct);
		if (x->pt_tw > 0)
			kv(o, "held, sum of Tw", "%.3f s over %llu PT lines",
			    (double)x->held_tw_ms / 1e3, (unsigned long long)x->pt_tw);
		if (x->pt_ta > 0)
			kv(o, "held, sum of Ta", "%.3f s over %llu PT lines",
			    (double)x->held_ta_ms / 1e3, (unsigned long long)x->pt_ta);
	}
	if (x->slot_us > 0)
		kv(o, "slots held by tarpit", "%.1f %% of %.3f slot-seconds",
		    100.0 * (double)x->tarpit_us / (double)x->slot_us, (double)x->slot_us / 1e6);
	kv(o, "peak slots", "per LB above (the LBs' peaks do not add up)");
	return done(o, fp, p);
}

/* ---- summary, machine modes ------------------------------------------- */

static const lbt_out_col sum_cols[] = {
	{ "lb", LBT_COL_STR }, { "frontend", LBT_COL_STR }, { "requests", LBT_COL_NUM },
	{ "tarpitted", LBT_COL_NUM }, { "client_left", LBT_COL_NUM },
	{ "held_s", LBT_COL_NUM }, { "held_ta_s", LBT_COL_NUM }, { "slot_s", LBT_COL_NUM },
	{ "tarpit_share_pct", LBT_COL_NUM }, { "peak", LBT_COL_NUM },
	{ "peak_at", LBT_COL_STR }, { "peak_tarpitted", LBT_COL_NUM },
	{ "fc_max", LBT_COL_NUM }, { "ac_max", LBT_COL_NUM }, { "maxconn", LBT_COL_NUM },
	{ "maxconn_from", LBT_COL_STR }, { "threshold", LBT_COL_NUM },
	{ "periods", LBT_COL_NUM }, { "periods_s", LBT_COL_NUM },
	{ "full_buckets", LBT_COL_NUM }, { "whatif_peak", LBT_COL_NUM },
	{ "whatif_periods", LBT_COL_NUM }, { "whatif_periods_s", LBT_COL_NUM },
	{ "first", LBT_COL_STR }, { "last", LBT_COL_STR },
};

/* The tarpit columns of a summary row: absent without termination states. */
static void sum_row_tarpit(lbt_out *o, const lbt_tarpit *t, const lbt_tarpit_group *g)
{
	const lbt_occ_stats *os = lbt_occ_stats_get(g->occ);
	int term = ST(t)->no_term < ST(t)->requests;

	if (!term) {
		lbt_out_absent(o), lbt_out_absent(o), lbt_out_absent(o), lbt_out_absent(o);
	} else {
		lbt_out_int(o, (int64_t)g->pt);
		lbt_out_int(o, (int64_t)g->ct);
		if (g->pt > 0 && g->pt_tw == 0)
			lbt_out_absent(o);
		else
			lbt_out_double(o, (double)g->held_tw_ms / 1e3, 3);
		if (g->pt > 0 && g->pt_ta == 0)
			lbt_out_absent(o);
		else
			lbt_out_double(o, (double)g->held_ta_ms / 1e3, 3);
	}
	if (os->intervals == 0) {
		lbt_out_absent(o), lbt_out_absent(o);
		return;
	}
	lbt_out_double(o, (double)os->slot_us / 1e6, 3);
	if (term)
		lbt_out_double(o, 100.0 * (double)os->tarpit_us / (double)os->slot_us, 1);
	else
		lbt_out_absent(o);
}

/* The occupancy, maxconn and period columns of a summary row. */
static void sum_row_occ(lbt_out *o, const lbt_tarpit_group *g)
{
	const lbt_occ_stats *os = lbt_occ_stats_get(g->occ);
	int occ = os->intervals > 0, mc = g->maxconn > 0;
	size_t n, nw;
	int64_t s = periods_total(g, 0, &n), sw = periods_total(g, 1, &nw);

	if (occ) {
		lbt_out_int(o, os->peak);
		lbt_report_time(o, os->peak_at_us);
		lbt_out_int(o, os->peak_tarpit);
	} else {
		lbt_out_absent(o), lbt_out_absent(o), lbt_out_absent(o);
	}
	g->fc_n ? lbt_out_int(o, g->fc_max) : lbt_out_absent(o);
	g->ac_n ? lbt_out_int(o, g->ac_max) : lbt_out_absent(o);
	mc ? lbt_out_int(o, g->maxconn) : lbt_out_absent(o);
	lbt_out_cstr(o, mc ? g->maxconn_from : NULL);
	mc ? lbt_out_int(o, g->threshold) : lbt_out_absent(o);
	mc && occ ? lbt_out_int(o, (int64_t)n) : lbt_out_absent(o);
	mc && occ ? lbt_out_double(o, (double)s / 1e6, 3) : lbt_out_absent(o);
	mc && g->fc_n ? lbt_out_int(o, (int64_t)g->full_buckets) : lbt_out_absent(o);
	occ ? lbt_out_int(o, os->peak_nt) : lbt_out_absent(o);
	mc && occ ? lbt_out_int(o, (int64_t)nw) : lbt_out_absent(o);
	mc && occ ? lbt_out_double(o, (double)sw / 1e6, 3) : lbt_out_absent(o);
}

/* The summary as one flat row per group.  @return 0 or -1. */
static int summary_rows(const lbt_tarpit *t, FILE *fp, const lbt_tarpit_print *p)
{
	lbt_out *o = writer(fp, p, sum_cols, (int)(sizeof sum_cols / sizeof sum_cols[0]));
	struct total x;
	size_t i;

	if (o == NULL)
		return -1;
	for (i = 0; i < lbt_tarpit_ngroups(t); i++) {
		const lbt_tarpit_group *g = lbt_tarpit_group_at(t, i);

		lbt_out_cstr(o, g->lb[0] ? g->lb : NULL);
		lbt_out_cstr(o, g->frontend[0] ? g->frontend : NULL);
		lbt_out_int(o, (int64_t)g->requests);
		sum_row_tarpit(o, t, g);
		sum_row_occ(o, g);
		g->has_time ? lbt_report_time(o, g->first_us) : lbt_out_absent(o);
		g->has_time ? lbt_report_time(o, g->last_us) : lbt_out_absent(o);
	}
	if (total_of(t, &x))
		total_row(o, t, &x);
	return done(o, fp, p);
}

/* ---- summary, TABLE: one block per group ------------------------------ */

/* One "measure  value" line of a block (value printf-style). */
static __attribute__((format(printf, 3, 4))) void kv(lbt_out *o, const char *k,
    const char *fmt, ...)
{
	char b[700];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b, sizeof b, fmt, ap);
	va_end(ap);
	lbt_out_cstr(o, k);
	lbt_out_cstr(o, b);
}

/* The tarpit lines of a block. */
static void block_tarpit(lbt_out *o, const lbt_tarpit *t, const lbt_tarpit_group *g)
{
	const lbt_occ_stats *os = lbt_occ_stats_get(g->occ);

	if (ST(t)->no_term == ST(t)->requests) {
		kv(o, "tarpitted", "unknown: no termination state in this format");
		return;
	}
	kv(o, "tarpitted (PT)", "%llu; %llu more left during the tarpit (CT)",
	    (unsigned long long)g->pt, (unsigned long long)g->ct);
	if (g->pt == 0)
		return;
	if (g->pt_tw > 0)
		kv(o, "held, sum of Tw", "%.3f s over %llu PT lines", (double)g->held_tw_ms / 1e3,
		    (unsigned long long)g->pt_tw);
	else
		kv(o, "held, sum of Tw", "unknown: no Tw on the PT lines");
	if (g->pt_ta > 0)
		kv(o, "held, sum of Ta", "%.3f s over %llu PT lines", (double)g->held_ta_ms / 1e3,
		    (unsigned long long)g->pt_ta);
	if (os->slot_us > 0)
		kv(o, "slots held by tarpit", "%.1f %% of %.3f slot-seconds",
		    100.0 * (double)os->tarpit_us / (double)os->slot_us, (double)os->slot_us / 1e6);
}

/* The occupancy lines of a block. */
static void block_occ(lbt_out *o, const lbt_tarpit *t, const lbt_tarpit_group *g)
{
	const lbt_occ_stats *os = lbt_occ_stats_get(g->occ);
	char at[48];
	size_t n;
	int64_t s;

	if (os->intervals == 0) {
		kv(o, "slots", "unknown: no time or no timers to rebuild them");
		return;
	}
	lbt_time_format(os->peak_at_us, 0, at, sizeof at);
	kv(o, "peak slots", "%s%d at %s, %d of them tarpitted",
	    os->peak_flags ? "~" : "", os->peak, at, os->peak_tarpit);
	if (ST(t)->no_term == ST(t)->requests)
		kv(o, "slot-seconds", "%.3f", (double)os->slot_us / 1e6);
	if (g->maxconn <= 0)
		return;
	s = periods_total(g, 0, &n);
	if (n == 0)
		kv(o, "at >= threshold", "never (>= %d slots, %d %% of %d)", g->threshold,
		    OPT(t)->threshold_pct, g->maxconn);
	else
		kv(o, "at >= threshold", "%zu period%s, %.1f s in all (>= %d slots, %d %% of %d)",
		    n, n == 1 ? "" : "s", (double)s / 1e6, g->threshold, OPT(t)->threshold_pct,
		    g->maxconn);
	s = periods_total(g, 1, &n);
	if (ST(t)->pt + ST(t)->ct > 0 && n == 0)
		kv(o, "if denied at once", "peak %d slot%s, never at >= %d", os->peak_nt,
		    os->peak_nt == 1 ? "" : "s", g->threshold);
	else if (ST(t)->pt + ST(t)->ct > 0)
		kv(o, "if denied at once", "peak %d slots; %zu period%s at >= %d, %.1f s in all",
		    os->peak_nt, n, n == 1 ? "" : "s", g->threshold, (double)s / 1e6);
}

/* The logged-counter and maxconn lines of a block. */
static void block_conns(lbt_out *o, const lbt_tarpit *t, const lbt_tarpit_group *g)
{
	if (g->fc_n > 0 && g->ac_n > 0)
		kv(o, "logged fc / ac max", "%d / %d", g->fc_max, g->ac_max);
	else if (g->fc_n > 0)
		kv(o, "logged fc max", "%d", g->fc_max);
	else
		kv(o, "logged fc max", "unknown: no fc in this format");
	if (g->maxconn > 0)
		kv(o, "maxconn", "%d, from %s", g->maxconn, g->maxconn_from);
	else
		kv(o, "maxconn", "unknown (--maxconn, --haproxy-cfg)");
	if (g->maxconn > 0 && g->fc_n > 0)
		kv(o, "fc at maxconn", "in %llu bucket%s of %gs%s",
		    (unsigned long long)g->full_buckets, g->full_buckets == 1 ? "" : "s",
		    (double)OPT(t)->step_us / 1e6, g->full_buckets ? ": FULL, see the notes" : "");
}

/* The summary as one block per group (TABLE).  @return 0 or -1. */
static int summary_blocks(const lbt_tarpit *t, FILE *fp, const lbt_tarpit_print *p)
{
	struct total x;
	size_t i;

	for (i = 0; i < lbt_tarpit_ngroups(t); i++) {
		const lbt_tarpit_group *g = lbt_tarpit_group_at(t, i);
		char lab[300], f[48], l[48];
		lbt_out_col cols[2] = { { lab, LBT_COL_STR }, { "", LBT_COL_STR } };
		lbt_out *o;

		snprintf(lab, sizeof lab, "%s%s%s", g->frontend[0] ? g->frontend : "(no frontend)",
		    g->lb[0] ? " on " : "", g->lb);
		if ((o = writer(fp, p, cols, 2)) == NULL)
			return -1;
		lbt_time_format(g->first_us, 0, f, sizeof f);
		lbt_time_format(g->last_us, 0, l, sizeof l);
		if (g->has_time)
			kv(o, "requests", "%llu, %s .. %s", (unsigned long long)g->requests, f, l);
		else
			kv(o, "requests", "%llu", (unsigned long long)g->requests);
		block_tarpit(o, t, g);
		block_occ(o, t, g);
		block_conns(o, t, g);
		if (done(o, fp, p) < 0)
			return -1;
	}
	return total_of(t, &x) ? total_block(t, &x, fp, p) : 0;
}

/* ---- periods ------------------------------------------------------------ */

/* What a narrow terminal leaves out of each table first (out.h,
 * lbt_out_set_drop): the second readings (Ta), the evidence and the
 * times of the details; which frontend, how long, how many stay. */
#define PERIODS_DROP "bound,peak_at,above_s,lb,end,peak_tarpitted"
#define SOURCES_DROP "evidence,held_ta_s,first,last,client_left"
#define FULL_DROP    "evidence,lb,ac_max"

static const lbt_out_col per_cols[] = {
	{ "lb", LBT_COL_STR }, { "frontend", LBT_COL_STR }, { "case", LBT_COL_STR },
	{ "start", LBT_COL_STR }, { "end", LBT_COL_STR }, { "seconds", LBT_COL_NUM },
	{ "above_s", LBT_COL_NUM }, { "peak", LBT_COL_NUM }, { "peak_at", LBT_COL_STR },
	{ "peak_tarpitted", LBT_COL_NUM }, { "maxconn", LBT_COL_NUM }, { "bound", LBT_COL_STR },
};

/* The periods of one group and case as rows. */
static void period_rows(lbt_out *o, const lbt_tarpit_group *g, int whatif)
{
	size_t i, n;
	const lbt_occ_period *v = lbt_occ_periods(g->occ, whatif, &n);

	for (i = 0; i < n; i++) {
		lbt_out_cstr(o, g->lb[0] ? g->lb : NULL);
		lbt_out_cstr(o, g->frontend[0] ? g->frontend : NULL);
		lbt_out_cstr(o, whatif ? "what-if" : "logged");
		lbt_report_time(o, v[i].start_us);
		lbt_report_time(o, v[i].end_us);
		lbt_out_double(o, (double)(v[i].end_us - v[i].start_us) / 1e6, 3);
		lbt_out_double(o, (double)v[i].above_us / 1e6, 3);
		lbt_out_int(o, v[i].peak);
		lbt_report_time(o, v[i].peak_at_us);
		whatif ? lbt_out_absent(o) : lbt_out_int(o, v[i].peak_tarpit);
		lbt_out_int(o, g->maxconn);
		lbt_out_cstr(o, v[i].flags ? "~" : NULL);
	}
}

/* Periods at >= threshold, logged then what-if, per group.  @return 0 or -1. */
static int periods(const lbt_tarpit *t, FILE *fp, const lbt_tarpit_print *p)
{
	lbt_out *o;
	char ttl[160];
	size_t i;

	snprintf(ttl, sizeof ttl, "periods at >= %d %% of maxconn (what-if: tarpitted "
	    "requests denied at once)", OPT(t)->threshold_pct);
	title(fp, p, ttl);
	if ((o = writer(fp, p, per_cols, (int)(sizeof per_cols / sizeof per_cols[0]))) == NULL)
		return -1;
	lbt_out_set_drop(o, PERIODS_DROP);
	lbt_out_set_narrow(o, "frontend,lb");
	for (i = 0; i < lbt_tarpit_ngroups(t); i++) {
		const lbt_tarpit_group *g = lbt_tarpit_group_at(t, i);

		if (g->maxconn <= 0)
			continue;
		period_rows(o, g, 0);
		period_rows(o, g, 1);
	}
	return done(o, fp, p);
}

/* ---- sources ------------------------------------------------------------ */

static const lbt_out_col src_cols[] = {
	{ "source", LBT_COL_STR }, { "requests", LBT_COL_NUM }, { "tarpitted", LBT_COL_NUM },
	{ "client_left", LBT_COL_NUM }, { "held_s", LBT_COL_NUM }, { "held_ta_s", LBT_COL_NUM },
	{ "held_share_pct", LBT_COL_NUM }, { "first", LBT_COL_STR }, { "last", LBT_COL_STR },
	{ "evidence", LBT_COL_STR },
};

/* Sum of Tw held over every group (for shares). */
static int64_t held_total(const lbt_tarpit *t)
{
	int64_t sum = 0;
	size_t i;

	for (i = 0; i < lbt_tarpit_ngroups(t); i++)
		sum += lbt_tarpit_group_at(t, i)->held_tw_ms;
	return sum;
}

/* One source row. */
static void source_row(lbt_out *o, const lbt_tarpit *t, const lbt_tarpit_source *s,
    int64_t total)
{
	char net[LBT_ADDR_STRLEN + 8];
	int term = ST(t)->no_term < ST(t)->requests;

	lbt_netgroup_format(&OPT(t)->net, &s->net, net, sizeof net);
	lbt_out_cstr(o, net);
	lbt_out_int(o, (int64_t)s->requests);
	term ? lbt_out_int(o, (int64_t)s->pt) : lbt_out_absent(o);
	term ? lbt_out_int(o, (int64_t)s->ct) : lbt_out_absent(o);
	term ? lbt_out_double(o, (double)s->held_tw_ms / 1e3, 3) : lbt_out_absent(o);
	term ? lbt_out_double(o, (double)s->held_ta_ms / 1e3, 3) : lbt_out_absent(o);
	if (term && total > 0)
		lbt_out_double(o, 100.0 * (double)s->held_tw_ms / (double)total, 1);
	else
		lbt_out_absent(o);
	s->has_time ? lbt_report_time(o, s->first_us) : lbt_out_absent(o);
	s->has_time ? lbt_report_time(o, s->last_us) : lbt_out_absent(o);
	lbt_report_evidence(o, s->file, s->line);
}

/* Sources ranked by held time.  @return 0 or -1. */
static int sources(const lbt_tarpit *t, FILE *fp, const lbt_tarpit_print *p)
{
	size_t i, n = lbt_tarpit_nsources(t), show = p->top && p->top < n ? p->top : n;
	int64_t total = held_total(t);
	char ttl[160];
	lbt_out *o;

	snprintf(ttl, sizeof ttl, "sources by time held in the tarpit (%zu of %zu)", show, n);
	title(fp, p, ttl);
	if ((o = writer(fp, p, src_cols, (int)(sizeof src_cols / sizeof src_cols[0]))) == NULL)
		return -1;
	lbt_out_set_drop(o, SOURCES_DROP);
	lbt_out_set_narrow(o, "source,evidence");
	for (i = 0; i < show; i++)
		source_row(o, t, lbt_tarpit_source_at(t, i), total);
	return done(o, fp, p);
}

/* ---- series --------------------------------------------------------------- */

static const lbt_out_col ser_cols[] = {
	{ "lb", LBT_COL_STR }, { "frontend", LBT_COL_STR }, { "time", LBT_COL_STR },
	{ "requests", LBT_COL_NUM }, { "tarpitted", LBT_COL_NUM },
	{ "client_left", LBT_COL_NUM }, { "held_s", LBT_COL_NUM },
	{ "slots_avg", LBT_COL_NUM }, { "tarpit_slots_avg", LBT_COL_NUM },
	{ "slots_max", LBT_COL_NUM }, { "whatif_max", LBT_COL_NUM }, { "bound", LBT_COL_STR },
	{ "fc_max", LBT_COL_NUM }, { "ac_max", LBT_COL_NUM },
};

/* One series row from a tarpit bucket (may be NULL) and an occupancy
 * bucket (may be NULL) of the same number. */
static void series_row(lbt_out *o, const lbt_tarpit *t, const lbt_tarpit_group *g,
    const lbt_tarpit_bucket *b, const lbt_occ_bucket *ob)
{
	static const lbt_tarpit_bucket none = { 0, 0, 0, 0, 0, 0, -1, -1, NULL, 0 };
	double step = (double)OPT(t)->step_us;
	int term = ST(t)->no_term < ST(t)->requests;

	if (b == NULL)
		b = &none;
	lbt_out_cstr(o, g->lb[0] ? g->lb : NULL);
	lbt_out_cstr(o, g->frontend[0] ? g->frontend : NULL);
	lbt_report_bucket(o, ob != NULL ? ob->bucket : b->bucket, OPT(t)->step_us);
	lbt_out_int(o, (int64_t)b->requests);
	term ? lbt_out_int(o, (int64_t)b->pt) : lbt_out_absent(o);
	term ? lbt_out_int(o, (int64_t)b->ct) : lbt_out_absent(o);
	term ? lbt_out_double(o, (double)b->held_tw_ms / 1e3, 3) : lbt_out_absent(o);
	lbt_out_double(o, ob ? (double)ob->slot_us / step : 0.0, 2);
	term ? lbt_out_double(o, ob ? (double)ob->tarpit_us / step : 0.0, 2) : lbt_out_absent(o);
	lbt_out_int(o, ob ? ob->max : 0);
	lbt_out_int(o, ob ? ob->max_nt : 0);
	lbt_out_cstr(o, ob && ob->flags ? "~" : NULL);
	b->fc_n ? lbt_out_int(o, b->fc_max) : lbt_out_absent(o);
	b->ac_max >= 0 ? lbt_out_int(o, b->ac_max) : lbt_out_absent(o);
}

/* The rows of group i: its two bucket lists merged by number. */
static void series_group(lbt_out *o, const lbt_tarpit *t, size_t gi)
{
	const lbt_tarpit_group *g = lbt_tarpit_group_at(t, gi);
	size_t nb, no, i = 0, j = 0;
	const lbt_tarpit_bucket *b = lbt_tarpit_buckets(t, gi, &nb);
	const lbt_occ_bucket *ob = lbt_occ_buckets(g->occ, &no);

	while (i < nb || j < no) {
		if (j >= no || (i < nb && b[i].bucket < ob[j].bucket))
			series_row(o, t, g, &b[i++], NULL);
		else if (i >= nb || ob[j].bucket < b[i].bucket)
			series_row(o, t, g, NULL, &ob[j++]);
		else
			series_row(o, t, g, &b[i++], &ob[j++]);
	}
}

/* Every bucket of every group.  @return 0 or -1. */
static int series(const lbt_tarpit *t, FILE *fp, const lbt_tarpit_print *p)
{
	char ttl[100];
	lbt_out *o;
	size_t i;

	snprintf(ttl, sizeof ttl, "series in buckets of %g s", (double)OPT(t)->step_us / 1e6);
	title(fp, p, ttl);
	if ((o = writer(fp, p, ser_cols, (int)(sizeof ser_cols / sizeof ser_cols[0]))) == NULL)
		return -1;
	for (i = 0; i < lbt_tarpit_ngroups(t); i++)
		series_group(o, t, i);
	return done(o, fp, p);
}

/* ---- full buckets ----------------------------------------------------- */

static const lbt_out_col full_cols[] = {
	{ "lb", LBT_COL_STR }, { "frontend", LBT_COL_STR }, { "time", LBT_COL_STR },
	{ "fc_max", LBT_COL_NUM }, { "maxconn", LBT_COL_NUM }, { "ac_max", LBT_COL_NUM },
	{ "requests_logged", LBT_COL_NUM }, { "evidence", LBT_COL_STR },
};

/* Buckets where fc reached maxconn - near, with a line as evidence.
 * @return 0 or -1. */
static int full(const lbt_tarpit *t, FILE *fp, const lbt_tarpit_print *p)
{
	size_t gi, i, n, shown = 0;
	lbt_out *o;

	title(fp, p, "buckets where the logged fc reached maxconn (the frontend was full)");
	if ((o = writer(fp, p, full_cols, (int)(sizeof full_cols / sizeof full_cols[0]))) == NULL)
		return -1;
	lbt_out_set_drop(o, FULL_DROP);
	lbt_out_set_narrow(o, "frontend,lb,evidence");
	for (gi = 0; gi < lbt_tarpit_ngroups(t); gi++) {
		const lbt_tarpit_group *g = lbt_tarpit_group_at(t, gi);
		const lbt_tarpit_bucket *b = lbt_tarpit_buckets(t, gi, &n);

		for (i = 0; i < n && g->maxconn > 0 && (!p->top || shown < p->top); i++) {
			if (b[i].fc_n == 0 || b[i].fc_max < g->maxconn - OPT(t)->near)
				continue;
			lbt_out_cstr(o, g->lb[0] ? g->lb : NULL);
			lbt_out_cstr(o, g->frontend[0] ? g->frontend : NULL);
			lbt_report_bucket(o, b[i].bucket, OPT(t)->step_us);
			lbt_out_int(o, b[i].fc_max);
			lbt_out_int(o, g->maxconn);
			b[i].ac_max >= 0 ? lbt_out_int(o, b[i].ac_max) : lbt_out_absent(o);
			lbt_out_int(o, (int64_t)b[i].fc_n);
			lbt_report_evidence(o, b[i].fc_file, b[i].fc_line);
			shown++;
		}
	}
	return done(o, fp, p);
}

/* ---- notes ------------------------------------------------------------- */

static const lbt_out_col note_cols[] = {
	{ "kind", LBT_COL_STR }, { "lb", LBT_COL_STR }, { "frontend", LBT_COL_STR },
	{ "text", LBT_COL_STR },
};

/* The notes: wrapped paragraphs (TABLE) or rows.  @return 0 or -1. */
static int notes(const lbt_tarpit *t, FILE *fp, const lbt_tarpit_print *p)
{
	static const char *const kinds[] = { "missing", "method", "full", "bound", "caveat" };
	size_t i, n = lbt_tarpit_nnotes(t);
	lbt_out *o;

	if (p->mode == LBT_OUT_TABLE) {
		title(fp, p, "notes");
		for (i = 0; i < n; i++)
			if (lbt_out_paragraph(fp, lbt_tarpit_note_at(t, i)->text, 78, "- ", "  ") < 0)
				return -1;
		return ferror(fp) ? -1 : 0;
	}
	if ((o = writer(fp, p, note_cols, 4)) == NULL)
		return -1;
	for (i = 0; i < n; i++) {
		const lbt_tarpit_note *nt = lbt_tarpit_note_at(t, i);

		lbt_out_cstr(o, kinds[nt->kind]);
		lbt_out_cstr(o, nt->lb != NULL && nt->lb[0] ? nt->lb : NULL);
		lbt_out_cstr(o, nt->frontend != NULL && nt->frontend[0] ? nt->frontend : NULL);
		lbt_out_cstr(o, nt->text);
	}
	return done(o, fp, p);
}

/* 1 when section s has rows to show (see tarpit.h). */
int lbt_tarpit_has(const lbt_tarpit *t, lbt_tarpit_section s)
{
	size_t i, n, nw;

	for (i = 0; i < lbt_tarpit_ngroups(t); i++) {
		const lbt_tarpit_group *g = lbt_tarpit_group_at(t, i);

		if (s == LBT_TARPIT_SUMMARY || s == LBT_TARPIT_SERIES)
			return 1;
		if (s == LBT_TARPIT_SOURCES && g->pt + g->ct > 0)
			return lbt_tarpit_nsources(t) > 0;
		if (s == LBT_TARPIT_FULL && g->full_buckets > 0)
			return 1;
		if (s == LBT_TARPIT_PERIODS && g->maxconn > 0) {
			lbt_occ_periods(g->occ, 0, &n);
			lbt_occ_periods(g->occ, 1, &nw);
			if (n + nw > 0)
				return 1;
		}
	}
	return s == LBT_TARPIT_NOTES && lbt_tarpit_nnotes(t) > 0;
}

/* Write section s of t to fp as p says.  @return 0, or -1 (write error, no memory). */
int lbt_tarpit_write(const lbt_tarpit *t, lbt_tarpit_section s, FILE *fp,
    const lbt_tarpit_print *p)
{
	lbt_tarpit_print text;

	switch (s) {
	case LBT_TARPIT_SUMMARY:
		return p->mode == LBT_OUT_TABLE ? summary_blocks(t, fp, p) :
		    p->text ? summary_blocks(t, fp, as_text(p, &text)) : summary_rows(t, fp, p);
	case LBT_TARPIT_PERIODS:
		return periods(t, fp, p);
	case LBT_TARPIT_SOURCES:
		return sources(t, fp, p);
	case LBT_TARPIT_SERIES:
		return series(t, fp, p);
	case LBT_TARPIT_FULL:
		return full(t, fp, p);
	case LBT_TARPIT_NOTES:
		return notes(t, fp, p->text ? as_text(p, &text) : p);
	}
	return -1;
}
