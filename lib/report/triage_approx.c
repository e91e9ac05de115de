/*
 * triage_approx.c - the approximations of lbt-triage's answer
 * (triage.h: lbt_triage_approx_at): what each analysis of the judge
 * dropped or bounded over --max-memory, in the sentences of their reports.
 */
#include <stdio.h>
#include <string.h>

#include "lbt/budget.h"
#include "lbt/offenders_report.h"
#include "lbt/triage.h"

/* A budget's approximation into a: "what" dropped, note from lbt_budget_note.
 * @return 1 when it dropped some, else 0. */
static int budget_approx(const lbt_budget *b, const char *what, lbt_triage_approx *a)
{
	if (!lbt_budget_note(b, what, "requests", a->note, sizeof a->note))
		return 0;
	a->what = what;
	a->dropped = b->dropped;
	a->at_most = b->floor;
	return 1;
}

/* The approximation of the sources: dropped over budget, or not every one
 * ranked.  @return 1 with a, or 0. */
static int sources_approx(const lbt_triage *t, int ranked, lbt_triage_approx *a)
{
	const lbt_offenders *o = lbt_triage_input_get(t)->offenders;
	const lbt_offenders_stats *st = lbt_offenders_stats_get(o);
	size_t n = lbt_offenders_nrows(o);

	if (!ranked) {
		if (!lbt_offenders_report_approx(o, a->note, sizeof a->note))
			return 0;
		a->what = "sources";
		a->dropped = st->dropped;
		a->at_most = st->floor;
		return 1;
	}
	if (n >= st->kept)
		return 0;
	a->what = "ranked sources";
	a->dropped = st->kept - n;
	a->at_most = n > 0 ? lbt_offenders_row_at(o, n - 1)->requests : 0;
	snprintf(a->note, sizeof a->note, "over --max-memory: the %zu sources of most requests "
	    "of %zu were ranked; the %llu others (at most %llu requests each) are in "
	    "the totals, not in the shares since the jump", n, st->kept,
	    (unsigned long long)a->dropped, (unsigned long long)a->at_most);
	return 1;
}

/* The frontends past the tarpit's room (tarpit.h max_groups): their
 * requests are in no figure of slots.  @return 1 with a, or 0. */
static int frontends_approx(const lbt_triage *t, lbt_triage_approx *a)
{
	const lbt_tarpit_stats *st = lbt_tarpit_stats_get(lbt_triage_input_get(t)->tarpit);

	if (st->over_requests == 0)
		return 0;
	a->what = "frontends";
	a->dropped = st->over_requests;
	snprintf(a->note, sizeof a->note, "over --max-memory: %llu requests of frontends past "
	    "the first %zu are in no figure of slots or tarpit (a frontend name of its own on "
	    "many lines: a damaged log, or not HAProxy's)",
	    (unsigned long long)st->over_requests, st->max_groups);
	return 1;
}

/* Approximation i (see triage.h).  @return 1 with a, or 0 past the last. */
int lbt_triage_approx_at(const lbt_triage *t, size_t i, lbt_triage_approx *a)
{
	size_t k = 0;

	for (int j = 0; j < 6; j++) {
		int has;

		memset(a, 0, sizeof *a);
		switch (j) {
		case 0: has = sources_approx(t, 0, a); break;
		case 1: has = sources_approx(t, 1, a); break;
		case 2: has = budget_approx(&lbt_rate_stats_get(lbt_triage_input_get(t)->keys)->budget, "keys", a);
			break;
		case 3: has = budget_approx(&lbt_rate_stats_get(lbt_triage_input_get(t)->statuses)->budget,
			    "statuses", a);
			break;
		case 4: has = budget_approx(&lbt_tarpit_stats_get(lbt_triage_input_get(t)->tarpit)->budget,
			    "tarpit sources", a);
			break;
		default: has = frontends_approx(t, a); break;
		}
		if (has && k++ == i)
			return 1;
	}
	return 0;
}

