/*
 * tarpit_report.h - the sections of lbt-tarpit(1): a finished lbt_tarpit
 * (tarpit.h) written through lbt_out, from its public accessors.
 *
 * Machine modes (TSV, JSON) get one flat row per item with a unit in each
 * column name (held_s, share_pct); absent values stay absent (empty /
 * null), never 0.  TABLE mode gets a title line per section and, for the
 * summary, one two-column block per group that reads as sentences.
 * Includes: report.h, tarpit.h.
 */
#ifndef LBT_TARPIT_REPORT_H
#define LBT_TARPIT_REPORT_H

#include <stdio.h>

#include "lbt/report.h"
#include "lbt/tarpit.h"

typedef enum lbt_tarpit_section {
	LBT_TARPIT_SUMMARY,   /* one row per group (TABLE: one block per group) */
	LBT_TARPIT_PERIODS,   /* periods at >= threshold, logged and what-if */
	LBT_TARPIT_SOURCES,   /* sources ranked by held time */
	LBT_TARPIT_SERIES,    /* every bucket of every group */
	LBT_TARPIT_FULL,      /* the buckets where fc reached maxconn - near, with evidence */
	LBT_TARPIT_NOTES      /* the notes (TABLE: wrapped paragraphs) */
} lbt_tarpit_section;

#define LBT_TARPIT_NSECTIONS 6

/* The print options of lbt-tarpit: top is the rows of SOURCES and FULL. */
typedef lbt_report_opts lbt_tarpit_print;

/*
 * Write one section of a finished accumulator to fp.  In TABLE mode a title
 * line precedes the table and a blank line follows it.
 * @return 0, or -1 when writing failed or memory ran out.
 */
int lbt_tarpit_write(const lbt_tarpit *t, lbt_tarpit_section s, FILE *fp,
    const lbt_tarpit_print *p);

/*
 * 1 when section s has something to show (a period, a tarpitted source, a
 * full bucket, a note...), so that a default report can leave out what
 * would be an empty table.  SUMMARY and SERIES: any group.
 */
int lbt_tarpit_has(const lbt_tarpit *t, lbt_tarpit_section s);

#endif
