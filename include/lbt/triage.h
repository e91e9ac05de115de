/*
 * triage.h - lbt-triage's screen and document: the judge's results
 * (judge.h) written for people (80 columns) or as one JSON document.
 * lib/report/triage_screen.c, triage_json.c and triage_approx.c (what
 * --max-memory bounded); they decide nothing.
 * Includes: judge.h.
 */
#ifndef LBT_TRIAGE_H
#define LBT_TRIAGE_H

#include <stdio.h>

#include "lbt/judge.h"

/*
 * One approximation of the answer (over --max-memory): what was dropped
 * or bounded and how much, and the sentence that says so.
 */
typedef struct lbt_triage_approx {
	const char *what;         /* "sources", "keys", "statuses", "tarpit sources",
	                             "ranked sources" */
	uint64_t dropped;         /* entries dropped (ranked sources: not ranked) */
	uint64_t at_most;         /* each had at most this many requests (0: unknown) */
	char note[400];
} lbt_triage_approx;

/* The approximations, after lbt_triage_build: i from 0 while it returns 1. */
int lbt_triage_approx_at(const lbt_triage *t, size_t i, lbt_triage_approx *a);

/* How to write the screen. */
typedef struct lbt_triage_print {
	int color;                /* bold titles and verdict */
	int width;                /* columns; default 80 */
} lbt_triage_print;

/* Write the screen (every line at most p->width columns, but for a word
 * longer than that: a list path given so).  @return 0, or -1 with err
 * when writing failed. */
int lbt_triage_write(const lbt_triage *t, FILE *fp, const lbt_triage_print *p,
    lbt_err *err);

/* Write the results as one JSON document (man lbt-triage: JSON).
 * @return 0, or -1 with err. */
int lbt_triage_write_json(const lbt_triage *t, FILE *fp, lbt_err *err);

/* "07:45:30" on the UTC day of now, else "11-30 07:45:30", into buf (16
 * bytes at least).  @return buf */
const char *lbt_triage_clock(const lbt_triage *t, int64_t us, char *buf, size_t size);

#endif
