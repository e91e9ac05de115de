/*
 * out_int.h - what lib/out*.c share; never installed.
 *
 *   out.c        the writer: lifecycle, cells, TSV and NDJSON rows
 *   out_table.c  the TABLE (aligned, in blocks) and Markdown writers
 *
 * Direction: out.c calls out_table.c; out_table.c uses nothing of out.c
 * (it escapes with esc.h).
 */
#ifndef LBT_OUT_INT_H
#define LBT_OUT_INT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lbt/out.h"

/*
 * One writer owns its FILE: the unlocked stdio calls save a lock per cell
 * (measured: fwrite's locking was the largest single cost of lbt-cat TSV).
 */
#define fwrite fwrite_unlocked
#define fputs  fputs_unlocked
#undef putc
#define putc   putc_unlocked

#define BLOCK_ROWS  1000
#define ROW_CAP     (64u << 10)     /* TSV/JSON row buffer; longer rows go in pieces */
#define BLOCK_BYTES (8u << 20)

/* One buffered TABLE cell: text in o->buf, or absent. */
struct cell {
	size_t off;
	size_t len;
	int absent;
};

struct lbt_out {
	FILE *fp;
	lbt_out_mode mode;
	lbt_out_col *cols;       /* copy of the caller's array (names not copied,
	                            but TABLE's escaped into `names`) */
	char *names;             /* TABLE: the column names escaped for a terminal */
	int ncols;
	int color;
	int header;              /* print a header line (TSV, TABLE) */
	int header_done;
	int line_flush;          /* fflush after each streamed row (lbt_out_set_line_flush) */
	int col;                 /* next column of the current row */
	char *buf;               /* TABLE: text of the buffered cells; MD: scratch */
	size_t len, cap;
	struct cell *cells;      /* TABLE: nrows * ncols */
	size_t nrows, rows_cap;
	size_t *width;           /* TABLE: column widths so far */
	char **jkey;             /* JSON: each column's {"name": or ,"name": made once */
	size_t *jkey_len;
	char *row;               /* TSV, JSON: the row being built (ROW_CAP bytes) */
	size_t rlen;
};

/* out.c (its comment is above its definition) */

/* out_table.c (each function's comment is above its definition) */
int lbt_outi_table_names(lbt_out *o);
void lbt_outi_md_header(lbt_out *o);
void lbt_outi_md_cell(lbt_out *o, const char *s, size_t n);
void lbt_outi_table_cell(lbt_out *o, const char *s, size_t n);
void lbt_outi_table_flush(lbt_out *o);

#endif
