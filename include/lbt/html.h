/*
 * html.h - a small writer of self-contained HTML pages with inline SVG
 * charts, for reports read by people (lbt-timeline --html): no script, no
 * external resource, readable when printed.
 *
 *     lbt_html *h = lbt_html_new(fp);
 *     lbt_html_begin(h, "Incident timeline", extra_css);
 *     lbt_html_printf(h, "<h2>%s</h2>\n", "Summary");      // markup as is
 *     lbt_html_text(h, untrusted);                          // escaped
 *     lbt_html_chart(h, &chart);                            // an <svg> figure
 *     lbt_html_end(h);
 *     if (lbt_html_free(h) < 0) ...write error...
 *
 * A chart plots series of values per time bucket as lines (or stacked
 * areas), with labelled axes (time in UTC, a value), tick labels, a
 * legend, an optional horizontal limit (maxconn) and vertical markers at
 * given times, each marker an anchor (id) that links to an element of the
 * page (href), so that a list of events and the charts point at each
 * other.  Writing is buffered by stdio; the first write error is kept and
 * returned by lbt_html_free.
 * Includes: nothing of lbt (html.c uses esc.h).
 */
#ifndef LBT_HTML_H
#define LBT_HTML_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct lbt_html lbt_html;

/* One series of a chart: v[0..n) (the chart's n), scaled by the chart. */
typedef struct lbt_svg_series {
	const char *name;
	const int64_t *v;
	int dashed;              /* a dashed line (a second reading of the same thing) */
} lbt_svg_series;

/* A vertical marker at a time, an anchor both ways. */
typedef struct lbt_svg_mark {
	int64_t time_us;
	const char *id;          /* its id ("m-keys-3"), NULL for none */
	const char *href;        /* where it links ("#ev-3"), NULL for none */
	const char *label;       /* its tooltip */
} lbt_svg_mark;

typedef struct lbt_svg_chart {
	const char *id;          /* of the figure */
	const char *title;       /* its caption */
	const char *ylabel;      /* "requests per second" */
	int64_t t0_us, step_us;  /* value i is the bucket at t0 + i * step */
	size_t n;
	double scale;            /* values are multiplied by it (1 / step for rates) */
	int stacked;             /* stacked areas instead of lines */
	const lbt_svg_series *s;
	size_t ns;
	double limit;            /* a horizontal line at this value; <= 0: none */
	const char *limit_label;
	const lbt_svg_mark *marks;
	size_t nmarks;
	const char *empty;       /* said instead of a plot when there is nothing */
} lbt_svg_chart;

/* @return a writer on fp (not owned), or NULL when out of memory. */
lbt_html *lbt_html_new(FILE *fp);

/* Free the writer.  @return 0, or -1 when a write failed. */
int lbt_html_free(lbt_html *h);

/* The document start: doctype, head with the title, the base style (screen
 * and @media print) and `css` (may be NULL), the body's start. */
void lbt_html_begin(lbt_html *h, const char *title, const char *css);

/* The body's and document's end. */
void lbt_html_end(lbt_html *h);

/* Markup, as is (the caller escapes what it puts in). */
void lbt_html_printf(lbt_html *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Text, escaped for element content and attribute values (& < > " ', and
 * the controls of esc.h's rule). */
void lbt_html_text(lbt_html *h, const char *s);

/* A chart as a <figure> with an inline <svg>.  Nothing plotted when n is 0
 * or no series has a value: then the `empty` sentence. */
void lbt_html_chart(lbt_html *h, const lbt_svg_chart *c);

#endif
