/*
 * audit_report.c - lbt-audit(1)'s findings (see audit_report.h).
 */
#include <stdio.h>

#include "lbt/audit_report.h"

/* "file:line" of the configuration into buf.  @return buf */
static const char *where(const lbt_audit_finding *f, char *buf, size_t size)
{
	snprintf(buf, size, "%s:%llu", f->file, (unsigned long long)f->line);
	return buf;
}

/* One row of every column (machine modes). */
static void full_row(lbt_out *o, const lbt_audit_finding *f)
{
	char b[1200];

	lbt_out_cstr(o, lbt_audit_sev_name(f->sev));
	lbt_out_cstr(o, where(f, b, sizeof b));
	lbt_out_cstr(o, f->proxy[0] ? f->proxy : NULL);
	lbt_out_cstr(o, f->check);
	lbt_out_cstr(o, f->what);
	lbt_out_cstr(o, f->why);
	lbt_out_cstr(o, f->change);
	lbt_report_evidence(o, f->ev_file, f->ev_line);
}

/* Every finding, one row each.  @return 0 or -1. */
static int write_rows(const lbt_audit *a, FILE *fp, const lbt_report_opts *p)
{
	static const lbt_out_col cols[] = {
		{ "severity", LBT_COL_STR }, { "where", LBT_COL_STR }, { "proxy", LBT_COL_STR },
		{ "check", LBT_COL_STR }, { "what", LBT_COL_STR }, { "why", LBT_COL_STR },
		{ "change", LBT_COL_STR }, { "evidence", LBT_COL_STR },
	};
	lbt_out *o = lbt_report_writer(fp, p, cols, 8);

	if (o == NULL)
		return -1;
	for (size_t i = 0; i < lbt_audit_nfindings(a); i++)
		full_row(o, lbt_audit_finding_at(a, i));
	return lbt_out_free(o);
}

/* The summary table of a terminal.  @return 0 or -1. */
static int write_table(const lbt_audit *a, FILE *fp, const lbt_report_opts *p)
{
	static const lbt_out_col cols[] = {
		{ "#", LBT_COL_NUM }, { "severity", LBT_COL_STR }, { "where", LBT_COL_STR },
		{ "proxy", LBT_COL_STR }, { "check", LBT_COL_STR }, { "evidence", LBT_COL_STR },
	};
	lbt_out *o = lbt_report_writer(fp, p, cols, 6);
	char b[1200];

	if (o == NULL)
		return -1;
	/* A narrow terminal: where says the proxy too; file:line is shortened
	 * last, the evidence's before the configuration's. */
	lbt_out_set_drop(o, "proxy");
	lbt_out_set_narrow(o, "evidence");
	for (size_t i = 0; i < lbt_audit_nfindings(a); i++) {
		const lbt_audit_finding *f = lbt_audit_finding_at(a, i);

		lbt_out_int(o, (int64_t)i + 1);
		lbt_out_cstr(o, lbt_audit_sev_name(f->sev));
		lbt_out_cstr(o, where(f, b, sizeof b));
		lbt_out_cstr(o, f->proxy[0] ? f->proxy : NULL);
		lbt_out_cstr(o, f->check);
		lbt_report_evidence(o, f->ev_file, f->ev_line);
	}
	return lbt_report_done(o, fp, p);
}

/* The paragraphs of finding number i (1-based).  @return 0 or -1. */
static int write_details(const lbt_audit_finding *f, size_t i, FILE *fp,
    const lbt_report_opts *p)
{
	char title[1400], b[1200];
	int rc;

	snprintf(title, sizeof title, "%zu. %s %s %s%s%s", i, lbt_audit_sev_name(f->sev),
	    where(f, b, sizeof b), f->proxy, f->proxy[0] ? " " : "", f->check);
	rc = lbt_out_line(fp, title, p->color);
	rc |= lbt_out_paragraph(fp, f->what, 78, "   what    ", "           ");
	rc |= lbt_out_paragraph(fp, f->why, 78, "   why     ", "           ");
	rc |= lbt_out_paragraph(fp, f->change, 78, "   change  ", "           ");
	rc |= lbt_out_line(fp, "", 0);
	return rc < 0 ? -1 : 0;
}

/* Write the findings of a.  @return 0 or -1. */
int lbt_audit_write(const lbt_audit *a, FILE *fp, const lbt_report_opts *p)
{
	size_t n = lbt_audit_nfindings(a);

	if (p->mode != LBT_OUT_TABLE)
		return write_rows(a, fp, p);
	if (n == 0)
		return lbt_out_line(fp, "no finding", 0);
	if (write_table(a, fp, p) < 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (write_details(lbt_audit_finding_at(a, i), i + 1, fp, p) < 0)
			return -1;
	return 0;
}
