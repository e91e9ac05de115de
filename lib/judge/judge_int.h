/*
 * judge_int.h - what the files of the judge share (judge.h): the
 * results judge_triage.c builds, the rises judge_rise.c reads and the
 * remedy judge_remedy.c decides.  Internal to lib/judge/; the report reads
 * the results through judge.h's accessors only.
 */
#ifndef LBT_JUDGE_INT_H
#define LBT_JUDGE_INT_H

#include "lbt/judge.h"

/* The screen's width, which the rule lines must fit to be shown inline. */
#define LBT_JUDGEI_WIDTH 80

struct lbt_triage {
	lbt_triage_opts o;
	lbt_triage_input in;
	lbt_triage_summary sum;
	lbt_triage_key *keys;
	size_t nkeys, capkeys;
	lbt_triage_key *errs;        /* rises of error statuses */
	size_t nerrs, caperrs;
	lbt_triage_source *src;      /* every source, offenders first */
	size_t nsrc, capsrc;
	size_t nsrc_shown;           /* the offenders and opts.nsources others */
	lbt_triage_front *fronts;
	size_t nfronts, capfronts;
	lbt_triage_damage dmg;
	lbt_deny *deny;              /* the decision, made in lbt_triage_new */
	int has_rule;                /* the decision names networks */
	char *rule_lines;            /* configuration lines, '\n' after each */
	char *rule_list;             /* the networks, one a line (list file form) */
	const char *list_file;       /* the list file the lines name, NULL: inline */
	char command[4096];
	char *limit_lines;           /* the rate-limit remedy, NULL when none */
	lbt_triage_prefix *prefixes; /* the aggregate prefixes */
	size_t nprefixes, capprefixes;
	int built;
};

/* Pick the rule for the offenders among t->src and write its lines and
 * command (triage_rule.c).  @return 0, or -1 with err. */
int lbt_judgei_remedy(lbt_triage *t, lbt_err *err);

/*
 * The latest rise of v[0..n), counts of buckets b0.. of step_us µs, into
 * *r (r->found 0 when there is none); now_us is the end of an ongoing one
 * (triage_rise.c).  @return 0, or -1 when out of memory
 */
int lbt_judgei_rise(const lbt_cp_opts *o, const int64_t *v, size_t n, int64_t b0,
    int64_t step_us, int64_t now_us, lbt_triage_rise *r);

#endif
