/*
 * rec_report.h - records as rows: the columns of lbt-cat(1) (--fields, or
 * the default ones every format shares, so that two formats' outputs can
 * be concatenated and read back), one record per row; and the
 * field/value rows of lbt-formats --explain.  A field the record does not
 * carry is written absent, never invented.
 * Includes: err.h, out.h, rec.h.
 */
#ifndef LBT_REC_REPORT_H
#define LBT_REC_REPORT_H

#include <stdint.h>

#include "lbt/err.h"
#include "lbt/out.h"
#include "lbt/rec.h"

#define LBT_REC_MAX_COLS (LBT_F_COUNT * 2)

/* The columns of a record table. */
typedef struct lbt_rec_cols {
	lbt_field f[LBT_REC_MAX_COLS];
	lbt_out_col cols[LBT_REC_MAX_COLS];   /* for lbt_out_new */
	int n;
} lbt_rec_cols;

/* The columns lbt-cat shows on a terminal without --fields or --wide:
 * when, who, what answer, how it ended, how long, what was asked. */
#define LBT_REC_COMPACT_FIELDS "time,client,status,term,Ta,path"

/* The columns of records a narrow terminal may shorten (in their middle,
 * the widest first): text from the request, names and addresses; never a
 * time or a number. */
#define LBT_REC_NARROW "path,query,ua,host,key,msg,file,client,frontend,backend,server"

/*
 * The columns of `fields` ("time,client,status"; NULL: the defaults, and
 * msg last when `events`).  @return 0, or -1 with err ("--fields: 'x' is
 * not a field (fields: ...)", or more than LBT_REC_MAX_COLS columns).
 */
int lbt_rec_cols_parse(lbt_rec_cols *c, const char *fields, int events, lbt_err *err);

/* @return the fields the columns print (LBT_BIT mask). */
uint64_t lbt_rec_cols_fields(const lbt_rec_cols *c);

/* Write rec as one row of c's columns: numbers as numbers, absent fields absent. */
void lbt_rec_row(lbt_out *o, lbt_rec *rec, const lbt_rec_cols *c);

/* Write one "field", "value" row (text) for every field rec carries but
 * its provenance (file, line): lbt-formats --explain. */
void lbt_rec_explain(lbt_out *o, lbt_rec *rec);

#endif
