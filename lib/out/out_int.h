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
	int max_width;           /* TABLE: fit lines into this many columns; 0 = any */
	unsigned *drop;          /* TABLE: 0 kept always, else the order of leaving out
	                            (1 first); NULL when nothing may go */
	unsigned char *shown;    /* --fields: 1 for a column shown; NULL = all */
	int first;               /* the first column shown (0 without --fields) */
	unsigned char *narrow;   /* TABLE: may be narrowed; NULL = every text column */
	unsigned char *hidden;   /* TABLE: left out to fit (decided before the header) */
	size_t *limit;           /* TABLE: 0, or the width a column was narrowed to */
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
void lbt_outi_table_free(lbt_out *o);
int lbt_outi_table_hide(lbt_out *o, const unsigned char *shown);

#endif
