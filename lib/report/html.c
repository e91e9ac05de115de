/*
 * html.c - self-contained HTML pages with inline SVG charts (see html.h).
 *
 * A chart is drawn in a fixed coordinate system (viewBox 960 x 310; CSS
 * scales it to the page): the plot area, its grid and tick labels, the
 * axis titles, the series, the limit line, the markers, and the legend
 * under the axis.  Values are scaled to "nice" ticks (1, 2, 5 x 10^k) and
 * time ticks to round steps of the clock, so the axes read like a hand
 * drawn chart.  Nothing depends on a font being present beyond a generic
 * sans-serif.
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "lbt/esc.h"
#include "lbt/html.h"
#include "lbt/timeparse.h"

struct lbt_html {
	FILE *fp;
	int failed;
};

/* The geometry of every chart. */
enum { W = 960, H = 320, X0 = 72, X1 = 940, Y0 = 16, Y1 = 218 };

static const char *const palette[] = {
	"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"
};

static const char base_css[] =
	"body{font-family:sans-serif;color:#222;margin:2em auto;max-width:1000px;"
	"padding:0 1em;line-height:1.4}\n"
	"h1{font-size:1.6em;margin-bottom:.2em}h2{font-size:1.25em;margin-top:1.6em}\n"
	"figure{margin:1.2em 0;break-inside:avoid;page-break-inside:avoid}\n"
	"figcaption{font-weight:bold;margin-bottom:.3em}\n"
	"svg{width:100%;height:auto;background:#fff;border:1px solid #ddd}\n"
	"svg text{font-size:12px;fill:#333;font-family:sans-serif}\n"
	"svg .axis-label{font-size:13px;font-weight:bold}\n"
	"svg .grid{stroke:#e6e6e6}svg .axis{stroke:#444}\n"
	"svg .mark{stroke:#999;stroke-dasharray:3 3;stroke-width:1}\n"
	"svg g:target .mark{stroke:#d62728;stroke-width:2.5;stroke-dasharray:none}\n"
	"svg .limit{stroke:#000;stroke-dasharray:8 4;stroke-width:1.5}\n"
	"table{border-collapse:collapse;width:100%;font-size:.9em}\n"
	"th,td{border:1px solid #ccc;padding:.25em .5em;vertical-align:top;text-align:left}\n"
	"th{background:#f2f2f2}tr:target{background:#fff3c4}\n"
	".empty{color:#777;font-style:italic}\n"
	"@media print{body{max-width:none;margin:0;font-size:10pt}a{color:inherit;"
	"text-decoration:none}tr{break-inside:avoid;page-break-inside:avoid}"
	"svg{border:none}thead{display:table-header-group}}\n";

/* @return a writer on fp, or NULL when out of memory. */
lbt_html *lbt_html_new(FILE *fp)
{
	lbt_html *h = calloc(1, sizeof *h);

	if (h != NULL)
		h->fp = fp;
	return h;
}

/* Free h.  @return 0, or -1 when a write failed. */
int lbt_html_free(lbt_html *h)
{
	int rc;

	if (h == NULL)
		return 0;
	rc = h->failed || ferror(h->fp) ? -1 : 0;
	free(h);
	return rc;
}

/* Markup as is. */
void lbt_html_printf(lbt_html *h, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (vfprintf(h->fp, fmt, ap) < 0)
		h->failed = 1;
	va_end(ap);
}

/* Text, escaped by the output-safety rule for HTML (esc.h): & < > " ' as
 * entities, controls, bidi controls and bytes that are not UTF-8 shown as
 * \xHH or \uXXXX. */
void lbt_html_text(lbt_html *h, const char *s)
{
	if (s != NULL && lbt_esc_fput(h->fp, s, strlen(s), LBT_ESC_HTML) < 0)
		h->failed = 1;
}

/* The document's start. */
void lbt_html_begin(lbt_html *h, const char *title, const char *css)
{
	lbt_html_printf(h, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>");
	lbt_html_text(h, title);
	lbt_html_printf(h, "</title>\n<style>\n%s%s</style>\n</head>\n<body>\n", base_css,
	    css ? css : "");
}

/* The document's end. */
void lbt_html_end(lbt_html *h)
{
	lbt_html_printf(h, "</body>\n</html>\n");
}

/* ---- charts ---------------------------------------------------------------- */

/* A nice step (1, 2 or 5 x 10^k) for about 5 ticks up to vmax. */
static double nice_step(double vmax)
{
	double raw = vmax / 5, p = pow(10, floor(log10(raw))), f = raw / p;

	return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
}

/* A round clock step (seconds) for at most 8 ticks over span_s. */
static int64_t time_step(double span_s)
{
	static const int64_t steps[] = {
		1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600,
		43200, 86400
	};

	for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++)
		if (span_s / (double)steps[i] <= 8)
			return steps[i];
	return 86400 * (int64_t)ceil(span_s / 8 / 86400);
}

/* The largest plotted value (the stacked sum when stacked), at least the limit. */
static double vmax_of(const lbt_svg_chart *c)
{
	double m = c->limit > 0 ? c->limit : 0;

	for (size_t i = 0; i < c->n; i++) {
		double s = 0;

		for (size_t k = 0; k < c->ns; k++) {
			double v = (double)c->s[k].v[i] * c->scale;

			s = c->stacked ? s + v : v;
			m = s > m ? s : m;
		}
	}
	return m;
}

/* The plot's frame of reference. */
struct frame {
	double t0, t1;           /* seconds */
	double ymax;
};

/* x of time t (seconds). */
static double fx(const struct frame *f, double t)
{
	return X0 + (X1 - X0) * (f->t1 > f->t0 ? (t - f->t0) / (f->t1 - f->t0) : 0);
}

/* y of value v. */
static double fy(const struct frame *f, double v)
{
	return Y1 - (Y1 - Y0) * (f->ymax > 0 ? v / f->ymax : 0);
}

/* The value axis: grid lines, tick labels, its title. */
static void y_axis(lbt_html *h, const struct frame *f, double step, const char *label)
{
	for (double v = 0; v <= f->ymax + step / 1e6; v += step) {
		double y = fy(f, v);

		lbt_html_printf(h, "<line class=\"grid\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>"
		    "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%.*f</text>\n", X0, X1, y, y,
		    X0 - 6, y + 4, step < 1 ? 2 : 0, v);
	}
	lbt_html_printf(h, "<text class=\"axis-label\" transform=\"translate(16,%d) rotate(-90)\" "
	    "text-anchor=\"middle\">", (Y0 + Y1) / 2);
	lbt_html_text(h, label);
	lbt_html_printf(h, "</text>\n");
}

/* The time axis: ticks at round times, labels HH:MM:SS, its title. */
static void x_axis(lbt_html *h, const struct frame *f)
{
	int64_t st = time_step(f->t1 - f->t0), t = (int64_t)ceil(f->t0 / (double)st) * st;

	lbt_html_printf(h, "<line class=\"axis\" x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\"/>\n",
	    X0, X1, Y1, Y1);
	for (; (double)t <= f->t1; t += st) {
		char iso[48];
		double x = fx(f, (double)t);

		lbt_time_format_s(t * 1000000, iso, sizeof iso);
		lbt_html_printf(h, "<line class=\"axis\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\"/>"
		    "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%.*s</text>\n", x, x, Y1,
		    Y1 + 5, x, Y1 + 18, st >= 60 ? 5 : 8, iso + 11);
	}
	lbt_html_printf(h, "<text class=\"axis-label\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">"
	    "time (UTC)</text>\n", (X0 + X1) / 2, Y1 + 38);
}

/* The colour of series k. */
static const char *color_of(const lbt_svg_chart *c, size_t k)
{
	if (c->s[k].name != NULL && strcmp(c->s[k].name, "other") == 0)
		return "#9a9a9a";
	return palette[k % (sizeof palette / sizeof palette[0])];
}

/* One series as a line through the bucket centres. */
static void line_of(lbt_html *h, const lbt_svg_chart *c, const struct frame *f, size_t k)
{
	lbt_html_printf(h, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.8\"%s points=\"",
	    color_of(c, k), c->s[k].dashed ? " stroke-dasharray=\"5 3\"" : "");
	for (size_t i = 0; i < c->n; i++)
		lbt_html_printf(h, "%.1f,%.1f ", fx(f, ((double)c->t0_us + ((double)i + .5) *
		    (double)c->step_us) / 1e6), fy(f, (double)c->s[k].v[i] * c->scale));
	lbt_html_printf(h, "\"><title>");
	lbt_html_text(h, c->s[k].name);
	lbt_html_printf(h, "</title></polyline>\n");
}

/* Series k stacked on the ones before it, as a filled area. */
static void area_of(lbt_html *h, const lbt_svg_chart *c, const struct frame *f, size_t k)
{
	lbt_html_printf(h, "<polygon stroke=\"none\" fill=\"%s\" fill-opacity=\"0.85\" points=\"",
	    color_of(c, k));
	for (int pass = 0; pass < 2; pass++)
		for (size_t j = 0; j < c->n; j++) {
			size_t i = pass == 0 ? j : c->n - 1 - j;
			double base = 0;

			for (size_t m = 0; m < k; m++)
				base += (double)c->s[m].v[i] * c->scale;
			lbt_html_printf(h, "%.1f,%.1f ", fx(f, ((double)c->t0_us + ((double)i + .5) *
			    (double)c->step_us) / 1e6), fy(f, pass == 0 ? base + (double)c->s[k].v[i] *
			    c->scale : base));
		}
	lbt_html_printf(h, "\"><title>");
	lbt_html_text(h, c->s[k].name);
	lbt_html_printf(h, "</title></polygon>\n");
}

/* The markers, each a target (id) and a link (href). */
static void marks_of(lbt_html *h, const lbt_svg_chart *c, const struct frame *f)
{
	for (size_t i = 0; i < c->nmarks; i++) {
		const lbt_svg_mark *m = &c->marks[i];
		double x = fx(f, (double)m->time_us / 1e6);

		lbt_html_printf(h, "<g");
		if (m->id) {
			lbt_html_printf(h, " id=\"");
			lbt_html_text(h, m->id);
			lbt_html_printf(h, "\"");
		}
		lbt_html_printf(h, ">");
		if (m->href) {
			lbt_html_printf(h, "<a href=\"");
			lbt_html_text(h, m->href);
			lbt_html_printf(h, "\">");
		}
		lbt_html_printf(h, "<line class=\"mark\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\"/>"
		    "<rect x=\"%.1f\" y=\"%d\" width=\"6\" height=\"%d\" fill=\"transparent\"/><title>",
		    x, x, Y0, Y1, x - 3, Y0, Y1 - Y0);
		lbt_html_text(h, m->label);
		lbt_html_printf(h, "</title>%s</g>\n", m->href ? "</a>" : "");
	}
}

/* Write name into the legend: at most LEGEND_MAX characters (UTF-8 kept
 * whole), an ellipsis after.  @return the characters shown. */
#define LEGEND_MAX 22
static size_t legend_name(lbt_html *h, const char *name)
{
	char b[4 * LEGEND_MAX + 4];
	size_t n = 0, chars = 0;

	for (const char *p = name ? name : ""; *p && n + 4 < sizeof b; p++) {
		if (((unsigned char)*p & 0xC0) != 0x80 && chars++ == LEGEND_MAX - 1 && p[1] != '\0') {
			memcpy(b + n, "\u2026", 3);     /* … */
			n += 3;
			break;
		}
		b[n++] = *p;
	}
	b[n] = '\0';
	lbt_html_text(h, b);
	return chars;
}

/* The legend under the time axis, in rows; the limit line's label last. */
static void legend_of(lbt_html *h, const lbt_svg_chart *c)
{
	double x = X0;
	int y = Y1 + 58;

	for (size_t k = 0; k < c->ns; k++) {
		size_t len = c->s[k].name ? strlen(c->s[k].name) : 1;
		double w = 30 + 6.8 * (double)(len > LEGEND_MAX ? LEGEND_MAX : len);

		if (x + w > X1 && x > X0) {
			x = X0;
			y += 18;
		}
		lbt_html_printf(h, "<rect x=\"%.0f\" y=\"%d\" width=\"14\" height=\"10\" fill=\"%s\"/>"
		    "<text x=\"%.0f\" y=\"%d\">", x, y, color_of(c, k), x + 18, y + 9);
		legend_name(h, c->s[k].name);
		lbt_html_printf(h, "<title>");
		lbt_html_text(h, c->s[k].name);
		lbt_html_printf(h, "</title></text>\n");
		x += w;
	}
	if (c->limit > 0 && c->limit_label) {
		if (x + 120 > X1 && x > X0) {
			x = X0;
			y += 18;
		}
		lbt_html_printf(h, "<line class=\"limit\" x1=\"%.0f\" x2=\"%.0f\" y1=\"%d\" y2=\"%d\"/>"
		    "<text x=\"%.0f\" y=\"%d\">", x, x + 22, y + 5, y + 5, x + 26, y + 9);
		lbt_html_text(h, c->limit_label);
		lbt_html_printf(h, "</text>\n");
	}
}

/* Does any series of c hold a value? */
static int has_values(const lbt_svg_chart *c)
{
	for (size_t k = 0; k < c->ns; k++)
		for (size_t i = 0; i < c->n; i++)
			if (c->s[k].v[i] != 0)
				return 1;
	return 0;
}

/* A chart (see html.h). */
void lbt_html_chart(lbt_html *h, const lbt_svg_chart *c)
{
	struct frame f = { (double)c->t0_us / 1e6, ((double)c->t0_us + (double)c->n *
		(double)c->step_us) / 1e6, 0 };
	double vmax, step;

	lbt_html_printf(h, "<figure id=\"");
	lbt_html_text(h, c->id);
	lbt_html_printf(h, "\">\n<figcaption>");
	lbt_html_text(h, c->title);
	lbt_html_printf(h, "</figcaption>\n");
	if (c->n == 0 || !has_values(c)) {
		lbt_html_printf(h, "<p class=\"empty\">");
		lbt_html_text(h, c->empty ? c->empty : "nothing to plot");
		lbt_html_printf(h, "</p>\n</figure>\n");
		return;
	}
	vmax = vmax_of(c);
	step = nice_step(vmax > 0 ? vmax : 1);
	f.ymax = ceil((vmax > 0 ? vmax : 1) / step) * step;
	lbt_html_printf(h, "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" "
	    "role=\"img\" aria-label=\"", W, H);
	lbt_html_text(h, c->title);
	lbt_html_printf(h, "\">\n");
	y_axis(h, &f, step, c->ylabel);
	x_axis(h, &f);
	marks_of(h, c, &f);
	for (size_t k = 0; k < c->ns; k++)
		(c->stacked ? area_of : line_of)(h, c, &f, k);
	if (c->limit > 0)
		lbt_html_printf(h, "<line class=\"limit\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>\n",
		    X0, X1, fy(&f, c->limit), fy(&f, c->limit));
	legend_of(h, c);
	lbt_html_printf(h, "</svg>\n</figure>\n");
}
