/*
 * timeline_html.c - lbt-timeline --html: the post-mortem as one page (see
 * timeline_report.h), drawn with the html writer (html.h).
 *
 * The page: title, summary, five kinds of chart (the hot keys against the
 * rest, requests per load balancer, connection slots of each frontend
 * against its maxconn, the status mix, the top sources), each with a
 * marker at every event's time, then the event table.  A table row links
 * to its marker in the first chart and every marker links back to its row
 * (#ev-N), so both ways are plain anchors: no script.  Each row's <time
 * datetime> is the event's time exactly as the NDJSON "time" writes it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbt/html.h"
#include "lbt/timeline_report.h"
#include "lbt/timeparse.h"
#include "lbt/version.h"

#define LABEL_MAX 600

/* Everything the page is drawn from. */
struct page {
	const lbt_timeline *tl;
	lbt_html *h;
	lbt_svg_mark *marks;     /* one per event, ids rewritten per chart */
	char (*ids)[64];
	char (*hrefs)[32];
	char (*labels)[LABEL_MAX];
	size_t nev;
	const char *first;       /* id prefix of the first chart drawn, NULL none */
};

/* The markers of every event for chart `id` (ids "m-ID-N", links "#ev-N"). */
static void marks_for(struct page *pg, const char *id)
{
	for (size_t i = 0; i < pg->nev; i++) {
		snprintf(pg->ids[i], sizeof pg->ids[i], "m-%s-%zu", id, i);
		pg->marks[i].id = pg->ids[i];
	}
}

/* A chart of rates (requests per second) from the analysis's series. */
static void rate_chart(struct page *pg, lbt_tl_chart which, const char *id, const char *title,
    int stacked, const char *empty)
{
	const lbt_timeline_stats *st = lbt_timeline_stats_get(pg->tl);
	size_t n, k;
	const lbt_tl_series *s = lbt_timeline_chart(pg->tl, which, &n);
	lbt_svg_series *v = calloc(n ? n : 1, sizeof *v);
	lbt_svg_chart c = { id, title, "requests per second", st->first_bucket * st->step_us,
		st->step_us, st->nbuckets, 1e6 / (double)st->step_us, stacked, v, n, 0, NULL,
		pg->marks, pg->nev, empty };

	if (v == NULL)
		return;
	for (k = 0; k < n; k++)
		v[k] = (lbt_svg_series){ s[k].name, s[k].v, 0 };
	marks_for(pg, id);
	lbt_html_chart(pg->h, &c);
	if (pg->first == NULL && n > 0 && st->nbuckets > 0)
		pg->first = id;
	free(v);
}

/* One chart per frontend: rebuilt slots and logged fc against maxconn. */
static void slots_charts(struct page *pg)
{
	const lbt_timeline_stats *st = lbt_timeline_stats_get(pg->tl);
	size_t n;
	const lbt_tl_series *s = lbt_timeline_chart(pg->tl, LBT_TL_CH_SLOTS, &n);

	for (size_t i = 0, g = 0; i < n; g++) {
		size_t k = i + 1 < n && strcmp(s[i + 1].name, s[i].name) == 0 ? 2 : 1;
		lbt_svg_series v[2] = { { "rebuilt slots held (peak)", s[i].v, 0 },
			{ "logged fc (largest)", k == 2 ? s[i + 1].v : NULL, 1 } };
		int32_t lim = lbt_timeline_slots_limit(pg->tl, i);
		char id[40], title[300], lab[64];
		lbt_svg_chart c = { id, title, "connections", st->first_bucket * st->step_us,
			st->step_us, st->nbuckets, 1, 0, v, k, lim, lab, pg->marks, pg->nev, NULL };

		snprintf(id, sizeof id, "chart-slots-%zu", g);
		snprintf(title, sizeof title, "Connection slots of %s against maxconn%s", s[i].name,
		    lim > 0 ? "" : " (unknown: give --maxconn or --haproxy-cfg)");
		snprintf(lab, sizeof lab, "maxconn %d", lim);
		marks_for(pg, id);
		lbt_html_chart(pg->h, &c);
		i += k;
	}
	if (n == 0)
		lbt_html_printf(pg->h, "<figure id=\"chart-slots-0\"><figcaption>Connection slots "
		    "against maxconn</figcaption><p class=\"empty\">no request with a frontend and a "
		    "duration</p></figure>\n");
}

/* The summary section. */
static void summary(struct page *pg)
{
	char *s = malloc(16384);

	lbt_html_printf(pg->h, "<section id=\"summary\">\n<h2>Summary</h2>\n<p>");
	if (s != NULL) {
		lbt_tl_summary(pg->tl, s, 16384);
		lbt_html_text(pg->h, s);
	}
	lbt_html_printf(pg->h, "</p>\n</section>\n");
	free(s);
}

/* One row of the event table. */
static void event_row(struct page *pg, size_t i, char *ev, char *nu, size_t size)
{
	const lbt_tl_event *e = lbt_timeline_event_at(pg->tl, i);
	char iso[48], t[64];

	lbt_tl_phrase(pg->tl, e, ev, size, nu, size);
	lbt_time_format(e->time_us, 0, iso, sizeof iso);
	lbt_html_printf(pg->h, "<tr id=\"ev-%zu\" class=\"kind-%s\"><td>", i,
	    lbt_tl_kind_name(e->kind));
	if (pg->first)
		lbt_html_printf(pg->h, "<a href=\"#m-%s-%zu\">", pg->first, i);
	lbt_html_printf(pg->h, "<time datetime=\"%s\">", iso);
	lbt_html_text(pg->h, lbt_tl_time_text(e, i == 0, t, sizeof t));
	lbt_html_printf(pg->h, "</time>%s</td><td>", pg->first ? "</a>" : "");
	lbt_html_text(pg->h, ev);
	lbt_html_printf(pg->h, "</td><td>");
	lbt_html_text(pg->h, nu);
	lbt_html_printf(pg->h, "</td><td>");
	if (e->ev_file != NULL) {
		snprintf(iso, sizeof iso, ":%llu", (unsigned long long)e->ev_line);
		lbt_html_text(pg->h, e->ev_file);
		lbt_html_text(pg->h, iso);
	}
	lbt_html_printf(pg->h, "</td></tr>\n");
}

/* The event table. */
static void events(struct page *pg)
{
	char *ev = malloc(2048), *nu = malloc(2048);

	lbt_html_printf(pg->h, "<section id=\"events\">\n<h2>Events</h2>\n<table>\n<thead><tr>"
	    "<th>time (UTC)</th><th>event</th><th>numbers</th><th>evidence</th></tr></thead>\n"
	    "<tbody>\n");
	for (size_t i = 0; ev != NULL && nu != NULL && i < pg->nev; i++)
		event_row(pg, i, ev, nu, 2048);
	lbt_html_printf(pg->h, "</tbody>\n</table>\n</section>\n");
	free(ev);
	free(nu);
}

/* The markers' links and tooltips.  @return 0 or -1 (no memory). */
static int page_init(struct page *pg)
{
	size_t n = pg->nev ? pg->nev : 1;
	char ev[LABEL_MAX - 80], nu[8];

	pg->marks = calloc(n, sizeof *pg->marks);
	pg->ids = calloc(n, sizeof *pg->ids);
	pg->hrefs = calloc(n, sizeof *pg->hrefs);
	pg->labels = calloc(n, sizeof *pg->labels);
	if (!pg->marks || !pg->ids || !pg->hrefs || !pg->labels)
		return -1;
	for (size_t i = 0; i < pg->nev; i++) {
		const lbt_tl_event *e = lbt_timeline_event_at(pg->tl, i);
		char t[64];

		lbt_tl_phrase(pg->tl, e, ev, sizeof ev, nu, sizeof nu);
		snprintf(pg->hrefs[i], sizeof pg->hrefs[i], "#ev-%zu", i);
		snprintf(pg->labels[i], sizeof pg->labels[i], "%s %s", lbt_tl_time_text(e, 0, t,
		    sizeof t), ev);
		pg->marks[i] = (lbt_svg_mark){ e->time_us, NULL, pg->hrefs[i], pg->labels[i] };
	}
	return 0;
}

/* Free what page_init made. */
static void page_free(struct page *pg)
{
	free(pg->marks);
	free(pg->ids);
	free(pg->hrefs);
	free(pg->labels);
}

/* The page (see timeline_report.h).  @return 0, or -1. */
int lbt_timeline_report_html(const lbt_timeline *tl, FILE *fp, const char *title)
{
	struct page pg = { tl, lbt_html_new(fp), NULL, NULL, NULL, NULL,
		lbt_timeline_nevents(tl), NULL };
	int rc = pg.h != NULL && page_init(&pg) == 0 ? 0 : -1;

	if (rc == 0) {
		lbt_html_begin(pg.h, title, NULL);
		lbt_html_printf(pg.h, "<h1>");
		lbt_html_text(pg.h, title);
		lbt_html_printf(pg.h, "</h1>\n<p>Written by lbt-timeline (lbtriage %s) from the "
		    "logs; times in UTC.</p>\n", LBT_VERSION);
		summary(&pg);
		lbt_html_printf(pg.h, "<section id=\"charts\">\n<h2>Charts</h2>\n");
		rate_chart(&pg, LBT_TL_CH_KEYS, "chart-keys", "Hot keys against the rest", 0,
		    "no request carries a key");
		rate_chart(&pg, LBT_TL_CH_LBS, "chart-lbs", "Requests per load balancer", 0,
		    "these logs name no load balancer");
		slots_charts(&pg);
		rate_chart(&pg, LBT_TL_CH_STATUS, "chart-status", "Status mix (stacked)", 1,
		    "no request with a status");
		rate_chart(&pg, LBT_TL_CH_SOURCES, "chart-sources", "Top sources against the rest", 0,
		    "no request with a client address");
		lbt_html_printf(pg.h, "</section>\n");
		events(&pg);
		lbt_html_end(pg.h);
	}
	page_free(&pg);
	if (lbt_html_free(pg.h) < 0)
		rc = -1;
	return rc;
}
