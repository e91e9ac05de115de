/*
 * report.h - what the reports of lib/report/ share: how a program wants
 * its results written (mode, colour, header, rows shown), and the cells
 * and lines every report writes the same way (times, buckets, evidence,
 * section titles).  Each analysis has its report (rate_report.h,
 * offenders_report.h, tarpit_report.h; records as rows: rec_report.h); a
 * report reads an analysis through its public accessors only and writes
 * through lbt_out only.
 * Includes: out.h.
 */
#ifndef LBT_REPORT_H
#define LBT_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lbt/out.h"

/* How to write a report (lib/cli fills it from the command line). */
typedef struct lbt_report_opts {
	lbt_out_mode mode;
	int color;            /* ANSI bold titles and headers (TABLE) */
	int header;           /* header lines (TSV, TABLE) */
	size_t top;           /* rows of a ranked table; 0 = all */
	int width;            /* TABLE lines fit this many columns; 0 = any */
	int text;             /* TSV only because stdout is no terminal (no mode
	                         asked): a summary block and its notes are still
	                         written as text lines for a person (80 columns) */
	const char *fields;   /* --fields: the columns of each table shown; NULL = all */
} lbt_report_opts;

/* The width of text written for a person when no terminal tells it. */
#define LBT_REPORT_TEXT_WIDTH 80

/* @return a writer on fp for cols[0..n) with p's mode, colour and header,
 * or NULL when out of memory. */
lbt_out *lbt_report_writer(FILE *fp, const lbt_report_opts *p, const lbt_out_col *cols,
    int n);

/* Free the writer o, then a blank line after a TABLE (a section ends).
 * @return 0, or -1 when writing failed. */
int lbt_report_done(lbt_out *o, FILE *fp, const lbt_report_opts *p);

/* A section title line, bold on colour (TABLE only; nothing otherwise).
 * @return 0, or -1 when writing failed. */
int lbt_report_title(FILE *fp, const lbt_report_opts *p, const char *text);

/* A time cell, ISO 8601 UTC with milliseconds. */
void lbt_report_time(lbt_out *o, int64_t us);

/* A bucket start time cell (lbt_bucket_format). */
void lbt_report_bucket(lbt_out *o, int64_t bucket, int64_t step_us);

/* A "file:line" evidence cell, absent when file is NULL. */
void lbt_report_evidence(lbt_out *o, const char *file, uint64_t line);

#endif
