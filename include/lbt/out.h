/*
 * out.h - tables for people and programs.
 *
 * One writer for every program: the caller declares columns, then writes
 * rows cell by cell; the mode decides the shape:
 *   LBT_OUT_TSV    header line, tab-separated, tabs/newlines/CRs/backslashes
 *                  in values escaped as \t \n \r \\, other controls as
 *                  \xHH; absent cells empty
 *   LBT_OUT_JSON   one JSON object per row (NDJSON); absent cells null
 *   LBT_OUT_TABLE  aligned columns (rows buffered in blocks to size them),
 *                  bold header when colour is on; absent cells "-"
 *   LBT_OUT_MD     Markdown table; cells escaped so that they render as the
 *                  text they hold (HTML and Markdown syntax, controls)
 * and, for reports read by people, the lines around tables: a title (bold
 * on colour), a blank line, a paragraph wrapped to a width.  Everything a
 * program prints on stdout goes through this module (the ANSI codes live
 * here only).  What reaches a person is escaped by the output-safety rule
 * (esc.h, docs/output-safety.md); TSV and NDJSON escape controls too.
 * Includes: str.h.
 */
#ifndef LBT_OUT_H
#define LBT_OUT_H

#include <stdint.h>
#include <stdio.h>

#include "lbt/str.h"

typedef enum lbt_out_mode {
	LBT_OUT_TSV,
	LBT_OUT_JSON,
	LBT_OUT_TABLE,
	LBT_OUT_MD
} lbt_out_mode;

typedef enum lbt_col_type {
	LBT_COL_STR,
	LBT_COL_NUM      /* bare in JSON, right-aligned in tables */
} lbt_col_type;

typedef struct lbt_out_col {
	const char *name;
	lbt_col_type type;
} lbt_out_col;

typedef struct lbt_out lbt_out;

/* Mode to use when none was asked: TABLE on a terminal, TSV otherwise. */
lbt_out_mode lbt_out_default_mode(FILE *fp);

/* `color`: use ANSI bold/dim in TABLE mode (callers pass isatty && !NO_COLOR). */
lbt_out *lbt_out_new(FILE *fp, lbt_out_mode mode, const lbt_out_col *cols, int ncols,
    int color);

/* Header line on (default) or off (--no-header): TSV and TABLE; Markdown
 * always has one. */
void lbt_out_set_header(lbt_out *o, int on);

/* Flush the FILE after every row of a streamed mode (TSV, JSON) when on:
 * for a live input (tail -f | lbt-cat | grep), where a row must not wait
 * in a buffer for the next 4 KiB of output. */
void lbt_out_set_line_flush(lbt_out *o, int on);

/* Cells of the current row, left to right; a row ends after the last column. */
void lbt_out_str(lbt_out *o, const char *s, size_t n);
void lbt_out_cstr(lbt_out *o, const char *s);          /* NULL = absent */
void lbt_out_int(lbt_out *o, int64_t v);
void lbt_out_double(lbt_out *o, double v, int decimals);
void lbt_out_absent(lbt_out *o);

/* A time cell, ISO 8601 UTC: lbt_out_time with milliseconds (lbt_time_format),
 * lbt_out_time_s with whole seconds unless it has a fraction (bucket starts). */
void lbt_out_time(lbt_out *o, int64_t us);
void lbt_out_time_s(lbt_out *o, int64_t us);

/*
 * Write `text` and a newline to fp, in ANSI bold when `bold` ("" writes a
 * blank line), escaped for a terminal (esc.h).  @return 0, or -1 when
 * writing failed.
 */
int lbt_out_line(FILE *fp, const char *text, int bold);

/*
 * Write `text` as a paragraph wrapped at `width` columns (words are cut
 * at spaces; a longer word stays whole), `first` before its first line and
 * `rest` before the others, e.g. "- " and "  "; escaped for a terminal
 * (esc.h).  @return 0, or -1 when writing failed.
 */
int lbt_out_paragraph(FILE *fp, const char *text, int width, const char *first,
    const char *rest);

/*
 * The same paragraph for Markdown: text escaped so that it renders as the
 * same plain text (esc.h, LBT_ESC_MD_LINE: any word may start a line).
 * @return 0, or -1 when writing failed.
 */
int lbt_out_md_paragraph(FILE *fp, const char *text, int width);

/* Flush buffered rows (TABLE).  @return 0, or -1 when writing failed (EPIPE...). */
int lbt_out_flush(lbt_out *o);

/* Flush and free; NULL accepted.  @return as lbt_out_flush. */
int lbt_out_free(lbt_out *o);

#endif
