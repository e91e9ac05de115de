/*
 * tarpit_notes.c - the notes of lbt_tarpit_finish(): what the numbers
 * cannot say because a field is not logged, how they were obtained, where a
 * frontend was full (and that the logs then understate waiting and lost
 * connections), which maxima are upper bounds, and how to read held time.
 * Notes are built in reading order: missing fields, full frontends,
 * methods, bounds, caveats.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbt/series.h"
#include "lbt/timeparse.h"
#include "tarpit_int.h"

/* Append a note (g NULL: about the whole input), printf-style.
 * @return 0, or -1 when out of memory. */
static __attribute__((format(printf, 4, 5))) int note(lbt_tarpit *t,
    lbt_tarpit_note_kind kind, const lbt_tarpit_group *g, const char *fmt, ...)
{
	struct tp_note *n;
	va_list ap;
	int len;

	if (t->nnotes == t->capnotes) {
		size_t cap = t->capnotes ? 2 * t->capnotes : 16;
		struct tp_note *v = realloc(t->notes, cap * sizeof *v);

		if (v == NULL)
			return -1;
		t->notes = v;
		t->capnotes = cap;
	}
	n = &t->notes[t->nnotes];
	va_start(ap, fmt);
	len = vasprintf(&n->owned, fmt, ap);
	va_end(ap);
	if (len < 0)
		return -1;
	n->pub.kind = kind;
	n->pub.lb = g != NULL ? g->lb : NULL;
	n->pub.frontend = g != NULL ? g->frontend : NULL;
	n->pub.text = n->owned;
	t->nnotes++;
	return 0;
}

/* Free every note and the array. */
void lbt_tarpiti_notes_free(lbt_tarpit *t)
{
	size_t i;

	for (i = 0; i < t->nnotes; i++)
		free(t->notes[i].owned);
	free(t->notes);
	t->notes = NULL;
	t->nnotes = t->capnotes = 0;
}

/* "s" unless n is 1, for plurals. */
static const char *pl(uint64_t n)
{
	return n == 1 ? "" : "s";
}

/* "fe_http on lb1", "fe_http", "(no frontend) on lb1" into buf.  @return buf. */
static const char *group_label(const lbt_tarpit_group *g, char *buf, size_t size)
{
	const char *fe = g->frontend[0] ? g->frontend : "(no frontend)";

	if (g->lb[0])
		snprintf(buf, size, "%s on %s", fe, g->lb);
	else
		snprintf(buf, size, "%s", fe);
	return buf;
}

/* "U" for u a count that may be all (`of`) or part of `of`: "all 12" / "3 of 12". */
static const char *part(uint64_t u, uint64_t of, char *buf, size_t size)
{
	if (u == of)
		snprintf(buf, size, "all %llu", (unsigned long long)of);
	else
		snprintf(buf, size, "%llu of %llu", (unsigned long long)u, (unsigned long long)of);
	return buf;
}

/* Notes on one field counted in t->have: absent from every request, or
 * from some.  @return 0 or -1. */
static int missing_field(lbt_tarpit *t, int h, const char *none, const char *some)
{
	uint64_t n = t->have[h], all = t->st.requests;
	char b[64];

	if (all == 0 || n == all)
		return 0;
	if (n == 0)
		return note(t, LBT_NOTE_MISSING, NULL, "%s", none);
	return note(t, LBT_NOTE_MISSING, NULL, "%s %s", part(all - n, all, b, sizeof b), some);
}

/* Notes on Tw / Ta missing from the tarpitted lines.  @return 0 or -1. */
static int missing_held(lbt_tarpit *t)
{
	char b[64];

	if (t->st.pt == 0)
		return 0;
	if (t->st.pt_no_tw == t->st.pt && note(t, LBT_NOTE_MISSING, NULL,
	    "no Tw on the tarpitted (PT) lines%s: the Tw-based held seconds are not available",
	    t->have[TP_TW] == 0 ? " (not in this format)" : "") < 0)
		return -1;
	if (t->st.pt_no_tw > 0 && t->st.pt_no_tw < t->st.pt && note(t, LBT_NOTE_MISSING,
	    NULL, "%s tarpitted (PT) lines carry no Tw: the Tw-based sum leaves them out",
	    part(t->st.pt_no_tw, t->st.pt, b, sizeof b)) < 0)
		return -1;
	if (t->st.pt_no_ta == t->st.pt && note(t, LBT_NOTE_MISSING, NULL,
	    "no Ta on the tarpitted (PT) lines%s: the Ta-based held seconds are not available",
	    t->have[TP_TA] == 0 ? " (not in this format)" : "") < 0)
		return -1;
	if (t->st.pt_no_ta > 0 && t->st.pt_no_ta < t->st.pt && note(t, LBT_NOTE_MISSING,
	    NULL, "%s tarpitted (PT) lines carry no Ta: the Ta-based sum leaves them out",
	    part(t->st.pt_no_ta, t->st.pt, b, sizeof b)) < 0)
		return -1;
	return 0;
}

/* Requests with a time but no usable timer, over every group. */
static void count_intervals(const lbt_tarpit *t, uint64_t *with, uint64_t *without)
{
	size_t i, k;

	*with = *without = 0;
	for (i = 0; i < t->st.groups; i++) {
		const lbt_tarpit_group *g = &t->gv[i]->pub;

		for (k = 0; k < LBT_DUR_NRULES; k++)
			*with += g->dur_rules[k];
		*without += g->no_interval;
	}
}

/* The notes on fields missing from the format.  @return 0 or -1. */
static int notes_missing(lbt_tarpit *t)
{
	uint64_t with, without;

	if (t->st.requests == 0)
		return note(t, LBT_NOTE_MISSING, NULL, "no request records in the input");
	if (missing_field(t, TP_TERM,
	    "no termination state in this format: cannot tell tarpitted requests (PT) from "
	    "others, so every tarpit figure is unavailable",
	    "requests carry no termination state: they count as not tarpitted") < 0 ||
	    missing_held(t) < 0 ||
	    missing_field(t, TP_TIME,
	    "no time in this format: requests cannot be placed in time (no occupancy, "
	    "no series, no periods)",
	    "requests carry no time: they are left out of occupancy and series") < 0 ||
	    missing_field(t, TP_FC,
	    "no fc (feconn) in this format: the concurrency HAProxy saw cannot be checked, "
	    "and a full frontend cannot be seen in the logs",
	    "requests carry no fc (feconn)") < 0 ||
	    missing_field(t, TP_CLIENT, "no client address in this format: no per-source figures",
	    "requests carry no client address: they are in no source") < 0 ||
	    missing_field(t, TP_FRONTEND,
	    "no frontend name in this format: all requests of a load balancer form one group",
	    "requests carry no frontend name: they form a group of their own") < 0)
		return -1;
	count_intervals(t, &with, &without);
	if (with == 0 && t->have[TP_TIME] > 0)
		return note(t, LBT_NOTE_MISSING, NULL, "no Tt, Ta or TR/Tw/Tc/Tr timers in this "
		    "format: slot occupancy cannot be rebuilt");
	if (with > 0 && without > t->st.requests - t->have[TP_TIME])
		return note(t, LBT_NOTE_MISSING, NULL, "%llu request%s no usable timer: left "
		    "out of the occupancy", (unsigned long long)(without - (t->st.requests -
		    t->have[TP_TIME])), without - (t->st.requests - t->have[TP_TIME]) == 1 ?
		    " has" : "s have");
	return 0;
}

/* A group without a known maxconn.  @return 0 or -1. */
static int note_no_maxconn(lbt_tarpit *t, const lbt_tarpit_group *g)
{
	char lab[300], fc[64] = "";

	if (g->maxconn > 0 || t->have[TP_TIME] == 0 || (g->fc_n == 0 && t->have[TP_TERM] == 0))
		return 0;          /* known, or nothing to compare (not HAProxy?) */
	if (g->fc_n > 0)
		snprintf(fc, sizeof fc, " (the logged fc peaked at %d)", g->fc_max);
	return note(t, LBT_NOTE_MISSING, g, "%s: no maxconn known%s%s: give --maxconn N or "
	    "--haproxy-cfg FILE for the periods near it and the full-frontend check",
	    group_label(g, lab, sizeof lab), t->o.maxconn_of != NULL ? " in the haproxy.cfg" : "", fc);
}

/* The full-frontend note: fc at maxconn - near, with the evidence.
 * @return 0 or -1. */
static int note_full(lbt_tarpit *t, const lbt_tarpit_group *g)
{
	char lab[300], b1[40], b2[40], fc[40];
	int64_t step = t->o.step_us;

	if (g->full_buckets == 0)
		return 0;
	lbt_bucket_format(g->full_first, step, b1, sizeof b1);
	lbt_bucket_format(g->full_last + 1, step, b2, sizeof b2);
	if (g->full_fc_lo == g->fc_max)
		snprintf(fc, sizeof fc, "fc %d", g->fc_max);
	else
		snprintf(fc, sizeof fc, "fc %d..%d", g->full_fc_lo, g->fc_max);
	return note(t, LBT_NOTE_FULL, g, "%s was full: the logged fc reached maxconn %d "
	    "(>= %d) in %llu bucket%s of %gs, the first at %s, the last ending %s (%s; e.g. "
	    "%s:%llu). While a "
	    "frontend is full HAProxy stops accepting: new connections wait in the kernel's "
	    "accept queue and nothing is logged for the wait, and connections dropped from a "
	    "full backlog are never logged. These logs understate waiting and lost "
	    "connections; requests logged after such a wait show small timers.",
	    group_label(g, lab, sizeof lab), g->maxconn, g->maxconn - t->o.near,
	    (unsigned long long)g->full_buckets, pl(g->full_buckets), (double)step / 1e6, b1,
	    b2, fc,
	    g->full_file ? g->full_file : "(stdin)", (unsigned long long)g->full_line);
}

/* The process-wide limit: ac at the global maxconn.  @return 0 or -1. */
static int note_global(lbt_tarpit *t, const lbt_tarpit_group *g)
{
	char lab[300], where[320] = "";
	int32_t gm = t->o.global_maxconn;

	if (gm <= 0 && t->o.maxconn_of != NULL)
		gm = t->o.maxconn_of(t->o.maxconn_ctx, g->lb, strlen(g->lb), NULL, 0, where,
		    sizeof where);
	if (gm <= 0 || g->ac_n == 0 || g->ac_max < gm - t->o.near)
		return 0;
	return note(t, LBT_NOTE_FULL, g, "%s: the logged ac (connections of the whole "
	    "process) reached %d, at the global maxconn %d%s%s: the process stopped accepting "
	    "on every frontend; the logs understate waiting and lost connections.",
	    group_label(g, lab, sizeof lab), g->ac_max, gm, where[0] ? " " : "", where);
}

/* What one duration rule means, for the method note. */
static const char *rule_meaning(unsigned m)
{
	if (m & LBT_DUR_TT)
		return "accept to close";
	if ((m & LBT_DUR_TA) && (m & LBT_DUR_TH) && (m & LBT_DUR_TI))
		return "no Tt in this format";
	if (m & LBT_DUR_TA)
		return "no Tt in this format, Th or Ti missing: handshake and idle time before "
		    "the request are not counted, so a keep-alive connection waiting for its "
		    "next request holds no slot here: compare with the logged fc";
	return "no Tt or Ta: time up to the response headers only, a lower bound";
}

/* Where intervals start, by the clocks seen in a group. */
static const char *clock_meaning(const lbt_tarpit_group *g)
{
	if (g->clocks[LBT_CLOCK_REQUEST] >= g->clocks[LBT_CLOCK_ACCEPT] &&
	    g->clocks[LBT_CLOCK_REQUEST] >= g->clocks[LBT_CLOCK_END] + g->clocks[LBT_CLOCK_SYSLOG])
		return "from the request time (%tr) minus Th and Ti where logged";
	if (g->clocks[LBT_CLOCK_ACCEPT] >= g->clocks[LBT_CLOCK_END] + g->clocks[LBT_CLOCK_SYSLOG])
		return "from the accept time";
	return "ending at the logged time (written when the request ended)";
}

/* The method note of a group: which durations and starts.  @return 0 or -1. */
static int note_method(lbt_tarpit *t, const lbt_tarpit_group *g)
{
	char lab[300], text[1024], name[64];
	size_t n = 0;
	unsigned m;

	for (m = 1; m < LBT_DUR_NRULES; m++) {
		if (g->dur_rules[m] == 0 || n >= sizeof text - 200)
			continue;
		n += (size_t)snprintf(text + n, sizeof text - n, "%s%s for %llu (%s)",
		    n ? "; " : "", lbt_tarpit_rule_name(m, name, sizeof name),
		    (unsigned long long)g->dur_rules[m], rule_meaning(m));
	}
	if (n == 0)
		return 0;
	return note(t, LBT_NOTE_METHOD, g, "%s: slot intervals %s, duration from %s",
	    group_label(g, lab, sizeof lab), clock_meaning(g), text);
}

/* The upper-bound notes of a group (late requests, files added).
 * @return 0 or -1. */
static int note_bounds(lbt_tarpit *t, const lbt_tarpit_group *g)
{
	const lbt_occ_stats *st = lbt_occ_stats_get(g->occ);
	const lbt_occ_bucket *b;
	size_t i, n;
	uint64_t merged = 0;
	char lab[300];

	b = lbt_occ_buckets(g->occ, &n);
	for (i = 0; i < n; i++)
		merged += (b[i].flags & LBT_OCC_MERGED) != 0;
	if (st->late > 0 && note(t, LBT_NOTE_BOUND, g, "%s: %llu request%s came more than "
	    "%gs (--window) out of time order: the slot maxima of the buckets they touch "
	    "are upper bounds (marked ~)", group_label(g, lab, sizeof lab),
	    (unsigned long long)st->late, pl(st->late), (double)t->o.window_us / 1e6) < 0)
		return -1;
	if (merged > 0 && note(t, LBT_NOTE_BOUND, g, "%s: %llu bucket%s hold slots from "
	    "several input files (files overlapping in time, or load balancers logged without "
	    "a host name): their maxima were added, an upper bound (marked ~); --lb-name "
	    "separates load balancers", group_label(g, lab, sizeof lab),
	    (unsigned long long)merged, pl(merged)) < 0)
		return -1;
	return 0;
}

/* A rebuilt peak above maxconn: say why it can happen.  @return 0 or -1. */
static int note_over(lbt_tarpit *t, const lbt_tarpit_group *g)
{
	const lbt_occ_stats *st = lbt_occ_stats_get(g->occ);
	char lab[300], fc[80] = "";

	if (g->maxconn <= 0 || st->peak <= g->maxconn)
		return 0;
	if (g->fc_n > 0)
		snprintf(fc, sizeof fc, "; the logged fc, what HAProxy counted, peaked at %d",
		    g->fc_max);
	return note(t, LBT_NOTE_CAVEAT, g, "%s: the rebuilt peak of %d slots is above maxconn "
	    "%d, which one HAProxy process does not allow: after a reload the old process "
	    "finishes its connections (tarpits too) while the new one accepts up to maxconn, "
	    "and timers in whole milliseconds put requests of one millisecond side by side%s",
	    group_label(g, lab, sizeof lab), st->peak, g->maxconn, fc);
}

/* Caveats on held time, CT and the what-if.  @return 0 or -1. */
static int notes_caveats(lbt_tarpit *t)
{
	if (t->st.pt > 0 && note(t, LBT_NOTE_CAVEAT, NULL, "held time: HAProxy reports the "
	    "tarpit hold in Tw; TR is -1 on those lines, which makes Tw 1 ms larger than the "
	    "hold, and Tw can include idle time before the request bytes arrived; Ta is the "
	    "other reading") < 0)
		return -1;
	if (t->st.ct > 0 && note(t, LBT_NOTE_CAVEAT, NULL, "%llu request%s left during the "
	    "tarpit (CT): counted apart and not in the held sums; their slot time counts as "
	    "tarpitted in the occupancy and the what-if", (unsigned long long)t->st.ct,
	    pl(t->st.ct)) < 0)
		return -1;
	if (t->st.pt + t->st.ct > 0 && note(t, LBT_NOTE_CAVEAT, NULL, "what-if: the tarpitted "
	    "requests (PT, CT) hold no slot at all, as if denied at once; every other request "
	    "stays where it was logged (those that waited in the accept queue would have "
	    "been accepted sooner, which the logs cannot show)") < 0)
		return -1;
	return 0;
}

/* Over --max-memory: which sources were dropped (budget.h).  @return 0 or -1. */
static int note_budget(lbt_tarpit *t)
{
	char buf[300];

	if (!lbt_budget_note(&t->st.budget, "sources", "requests", buf, sizeof buf))
		return 0;
	return note(t, LBT_NOTE_BOUND, NULL, "%s (their held time and tarpitted requests are "
	    "in the frontends' figures, not in --by-source)", buf);
}

/* Frontends past the groups' room (tarpit.c): their requests are not in
 * any figure.  @return 0 or -1. */
static int note_frontends_past(lbt_tarpit *t)
{
	if (t->st.over_requests == 0)
		return 0;
	return note(t, LBT_NOTE_BOUND, NULL, "%llu request%s of frontends past the first %zu "
	    "were not analysed: each frontend's occupancy takes %zu KiB, and --max-memory "
	    "leaves the frontends a quarter of itself (a log with a frontend name of its own "
	    "on many lines is damaged, or not HAProxy's)", (unsigned long long)t->st.over_requests,
	    pl(t->st.over_requests), t->st.max_groups, lbt_occ_stream_bytes() / 1024);
}

/* Every note, in reading order (see the file comment).  @return 0 or -1. */
int lbt_tarpiti_notes_build(lbt_tarpit *t)
{
	size_t i;

	if (notes_missing(t) < 0 || note_budget(t) < 0 || note_frontends_past(t) < 0)
		return -1;
	for (i = 0; i < t->st.groups; i++)
		if (note_no_maxconn(t, &t->gv[i]->pub) < 0)
			return -1;
	for (i = 0; i < t->st.groups; i++)
		if (note_full(t, &t->gv[i]->pub) < 0 || note_global(t, &t->gv[i]->pub) < 0)
			return -1;
	for (i = 0; i < t->st.groups; i++)
		if (note_method(t, &t->gv[i]->pub) < 0 || note_bounds(t, &t->gv[i]->pub) < 0 ||
		    note_over(t, &t->gv[i]->pub) < 0)
			return -1;
	return notes_caveats(t);
}

/* "Th+Ti+Ta"-style name of a duration rule mask into buf.  @return buf. */
const char *lbt_tarpit_rule_name(unsigned mask, char *buf, size_t size)
{
	static const struct { unsigned bit; const char *name; } tab[] = {
		{ LBT_DUR_TT, "Tt" }, { LBT_DUR_TH, "Th" }, { LBT_DUR_TI, "Ti" },
		{ LBT_DUR_TA, "Ta" }, { LBT_DUR_TQ, "TR" }, { LBT_DUR_TW, "Tw" },
		{ LBT_DUR_TC, "Tc" }, { LBT_DUR_TRS, "Tr" },
	};
	size_t i, n = 0;

	if (size == 0)
		return buf;
	buf[0] = '\0';
	for (i = 0; i < sizeof tab / sizeof tab[0]; i++) {
		if (!(mask & tab[i].bit))
			continue;
		n += (size_t)snprintf(buf + (n < size ? n : size - 1), n < size ? size - n : 1,
		    "%s%s", n ? "+" : "", tab[i].name);
	}
	return buf;
}
