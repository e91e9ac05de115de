/*
 * report.c - the cells and lines every report writes alike (see report.h).
 */
#include <stdio.h>

#include "lbt/report.h"
#include "lbt/series.h"
#include "lbt/timeparse.h"

/* A writer for cols with p's options.  @return it, or NULL when out of memory. */
lbt_out *lbt_report_writer(FILE *fp, const lbt_report_opts *p, const lbt_out_col *cols,
    int n)
{
	lbt_out *o = lbt_out_new(fp, p->mode, cols, n, p->color);

	if (o != NULL) {
		lbt_out_set_header(o, p->header);
		lbt_out_set_width(o, p->width);
		if (lbt_out_set_fields(o, p->fields) < 0) {
			lbt_out_free(o);
			return NULL;
		}
	}
	return o;
}

/* Free o, and a blank line after a TABLE.  @return 0 or -1 (write error). */
int lbt_report_done(lbt_out *o, FILE *fp, const lbt_report_opts *p)
{
	int rc = lbt_out_free(o);

	if (p->mode == LBT_OUT_TABLE && lbt_out_line(fp, "", 0) < 0)
		rc = -1;
	return rc == 0 && !ferror(fp) ? 0 : -1;
}

/* A title line in TABLE mode.  @return 0 or -1 (write error). */
int lbt_report_title(FILE *fp, const lbt_report_opts *p, const char *text)
{
	if (p->mode != LBT_OUT_TABLE)
		return 0;
	return lbt_out_line(fp, text, p->color);
}

/* An ISO time cell. */
void lbt_report_time(lbt_out *o, int64_t us)
{
	char b[48];

	lbt_time_format(us, 0, b, sizeof b);
	lbt_out_cstr(o, b);
}

/* A bucket start time cell. */
void lbt_report_bucket(lbt_out *o, int64_t bucket, int64_t step_us)
{
	char b[48];

	lbt_bucket_format(bucket, step_us, b, sizeof b);
	lbt_out_cstr(o, b);
}

/* "file:line", or an absent cell without a file. */
void lbt_report_evidence(lbt_out *o, const char *file, uint64_t line)
{
	char b[1024];

	if (file == NULL) {
		lbt_out_absent(o);
		return;
	}
	snprintf(b, sizeof b, "%s:%llu", file, (unsigned long long)line);
	lbt_out_cstr(o, b);
}
