/*
 * audit_report.h - lbt-audit(1)'s output: the findings of a finished
 * lbt_audit (audit.h) written through lbt_out.
 *
 * TSV, NDJSON and Markdown get one row per finding, in the audit's order
 * (severity, then line): severity, where (file:line), proxy, check, what,
 * why, change, evidence (file:line of the logs, absent when none).  A
 * terminal (TABLE) gets the short columns as a table, then each finding's
 * what, why and change as wrapped paragraphs, numbered as the table's rows.
 * Includes: audit.h, report.h.
 */
#ifndef LBT_AUDIT_REPORT_H
#define LBT_AUDIT_REPORT_H

#include <stdio.h>

#include "lbt/audit.h"
#include "lbt/report.h"

/*
 * Write the findings of a to fp (TABLE without any finding: one line that
 * says so).  @return 0, or -1 when writing failed or memory ran out.
 */
int lbt_audit_write(const lbt_audit *a, FILE *fp, const lbt_report_opts *p);

#endif
