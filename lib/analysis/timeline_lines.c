/*
 * timeline_lines.c - HAProxy's own lines (event records, lib/read/event.c)
 * in the timeline: what each line says, where a line without a time goes,
 * and what a run of lines means (a crash loop, a reload, a stop).
 *
 * What a line says comes from one table of leading phrases (kind_of), so
 * a new kind of line is a row there and, when its lines group, a handler
 * in detect_lines().  When the reader gives event records a sub-kind of
 * their own, kind_of() is where it is mapped first.
 *
 * A line logged without a time (HAProxy's `log stdout format raw`, a file
 * written by `haproxy -db`) was written after the requests logged above it
 * had ended and before those below it ended: its time lies between the
 * largest end time of the lines before and the smallest of the lines after
 * (timeline.c keeps both per block of TL_BLOCK lines of each file, so the
 * bounds leave out the lines of its own block: what can be kept in memory
 * bounded by the blocks, and the same whatever the order of the records).
 * The event then carries approx 1, time_us the lower bound and time_hi_us
 * the upper one (LBT_TL_NONE: none, the line is after every request), or
 * approx 2 and only the upper bound in both (the line is before every
 * request).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timeline_int.h"

enum tl_line_kind {
	TLL_DOWN,        /* Server be/s is DOWN, enters maintenance */
	TLL_UP,          /* Server be/s is UP */
	TLL_NOSRV,       /* backend be has no server available */
	TLL_STOPPED,     /* Proxy px stopped */
	TLL_CHECK,       /* health and agent checks: the DOWN/UP lines say it */
	TLL_CONNERR,     /* a connection that failed before any request */
	TLL_OTHER
};

/* The kinds by leading phrase and a phrase inside; checks come first
 * because their text also says DOWN and UP. */
static const struct {
	const char *lead, *inside;
	enum tl_line_kind kind;
} kinds[] = {
	{ "Health check ", NULL, TLL_CHECK },
	{ "Agent check ", NULL, TLL_CHECK },
	{ "Server ", " is DOWN", TLL_DOWN },
	{ "Backup Server ", " is DOWN", TLL_DOWN },
	{ "Server ", " enters maintenance", TLL_DOWN },
	{ "Server ", " is UP", TLL_UP },
	{ "Backup Server ", " is UP", TLL_UP },
	{ "backend ", " has no server available", TLL_NOSRV },
	{ "Proxy ", " stopped", TLL_STOPPED },
};

/* The message after a "[WARNING]  (pid) : " prefix of HAProxy's stderr. */
static lbt_str inner(lbt_str m)
{
	const char *c;

	if (m.n == 0 || m.p[0] != '[' || (c = memmem(m.p, m.n, " : ", 3)) == NULL)
		return m;
	return lbt_str_make(c + 3, m.n - (size_t)(c + 3 - m.p));
}

/* What record r says. */
static enum tl_line_kind kind_of(const lbt_rec *r)
{
	lbt_str m = inner(r->msg);

	if (r->have & LBT_BIT(LBT_F_CLIENT))
		return TLL_CONNERR;
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
		size_t n = strlen(kinds[i].lead);

		if (m.n >= n && memcmp(m.p, kinds[i].lead, n) == 0 && (kinds[i].inside == NULL ||
		    memmem(m.p, m.n, kinds[i].inside, strlen(kinds[i].inside)) != NULL))
			return kinds[i].kind;
	}
	return TLL_OTHER;
}

/* "backend/server", the backend, or the proxy the line names, into b. */
static size_t subject_of(const lbt_rec *r, enum tl_line_kind k, char *b, size_t size)
{
	int hb = (r->have & LBT_BIT(LBT_F_BACKEND)) != 0, hs = (r->have & LBT_BIT(LBT_F_SERVER)) != 0;
	int hf = (r->have & LBT_BIT(LBT_F_FRONTEND)) != 0;
	int n;

	if ((k == TLL_DOWN || k == TLL_UP) && hb && hs)
		n = snprintf(b, size, "%.*s/%.*s", (int)r->backend.n, r->backend.p,
		    (int)r->server.n, r->server.p);
	else if (hb)
		n = snprintf(b, size, "%.*s", (int)r->backend.n, r->backend.p);
	else if (hf)
		n = snprintf(b, size, "%.*s", (int)r->frontend.n, r->frontend.p);
	else
		n = snprintf(b, size, "-");
	return n < 0 ? 0 : (size_t)n < size ? (size_t)n : size - 1;
}

/* Keep one of HAProxy's lines (file: its interned name).  @return 0 or -1. */
int lbt_tli_line_add(lbt_timeline *tl, const lbt_rec *r, const char *file)
{
	enum tl_line_kind k = kind_of(r);
	struct tl_line *l;
	char b[256];
	lbt_str m = (r->have & LBT_BIT(LBT_F_MSG)) ? r->msg : lbt_str_make("", 0);
	size_t n = subject_of(r, k, b, sizeof b);

	if (k == TLL_CHECK || k == TLL_CONNERR)
		return 0;
	if (tl->nlines >= LBT_TL_MAXEV) {
		tl->st.events_dropped++;
		return 0;
	}
	if (LBT_GROW(tl->lines, tl->caplines, tl->nlines + 1, 64) < 0)
		return -1;
	l = &tl->lines[tl->nlines];
	l->kind = k;
	/* An inferred time (lbt_input: the nearest request line's) is one
	 * point where the neighbours give both bounds: placed below instead. */
	l->time_us = (r->have & LBT_BIT(LBT_F_TIME)) && r->clock != LBT_CLOCK_INFERRED ?
	    r->time_us : LBT_TL_NONE;
	l->hi_us = l->time_us;
	l->approx = 0;
	l->file = file;
	l->line = (r->have & LBT_BIT(LBT_F_LINE)) ? r->line : 0;
	l->subject = lbt_tli_intern(tl, b, n, 0);
	l->msg = lbt_tli_intern(tl, m.p ? m.p : "", m.n > TL_MSGMAX ? TL_MSGMAX : m.n, 0);
	l->lb = (r->have & LBT_BIT(LBT_F_LB)) && r->lb.n ? lbt_tli_intern(tl, r->lb.p,
	    r->lb.n, 0) : NULL;
	if (l->subject == NULL || l->msg == NULL || ((r->have & LBT_BIT(LBT_F_LB)) &&
	    r->lb.n && l->lb == NULL))
		return -1;
	tl->nlines++;
	return 0;
}

/* ---- placing lines without a time ---------------------------------------- */

/*
 * Prefix maxima (pre[k] = the largest end of blocks < k) and suffix minima
 * (suf[k] = the smallest end of blocks > k) of file f.  @return 0 or -1.
 */
static int bounds_of(const struct tl_file *f, int64_t **pre, int64_t **suf)
{
	size_t n = f->nblk;

	*pre = malloc((n + 1) * sizeof **pre);
	*suf = malloc((n + 1) * sizeof **suf);
	if (*pre == NULL || *suf == NULL)
		return -1;
	(*pre)[0] = LBT_TL_NONE;
	for (size_t k = 1; k <= n; k++) {
		int64_t a = (*pre)[k - 1], b = f->b[k - 1].maxend;

		(*pre)[k] = b != LBT_TL_NONE && (a == LBT_TL_NONE || b > a) ? b : a;
	}
	(*suf)[n] = LBT_TL_NONE;
	for (size_t k = n; k-- > 0;) {
		int64_t a = (*suf)[k + 1], b = k + 1 < n ? f->b[k + 1].minend : LBT_TL_NONE;

		(*suf)[k] = b != LBT_TL_NONE && (a == LBT_TL_NONE || b < a) ? b : a;
	}
	return 0;
}

/* Bounds of line `line` of f into *lo, *hi (LBT_TL_NONE when unknown). */
static void place(const struct tl_file *f, const int64_t *pre, const int64_t *suf,
    uint64_t line, int64_t *lo, int64_t *hi)
{
	size_t k = (size_t)(line / TL_BLOCK);

	*lo = pre[k < f->nblk ? k : f->nblk];
	*hi = k < f->nblk ? suf[k] : LBT_TL_NONE;
}

/* Place the untimed lines of file `file` (first at line i): bounds from
 * its blocks, or unplaced (file NULL) without a neighbour.  @return 0 or -1. */
static int place_file(lbt_timeline *tl, size_t i, const char *file)
{
	const struct tl_name *nm = lbt_hmap_get(tl->names, file, strlen(file));
	int64_t *pre = NULL, *suf = NULL;
	int rc = nm != NULL && nm->f != NULL ? bounds_of(nm->f, &pre, &suf) : 0;

	for (size_t j = i; rc == 0 && j < tl->nlines; j++) {
		struct tl_line *l = &tl->lines[j];

		if (l->time_us != LBT_TL_NONE || l->file != file)
			continue;
		if (pre != NULL)
			place(nm->f, pre, suf, l->line, &l->time_us, &l->hi_us);
		/* 1: time_us is the earliest (hi_us the latest, or none); 2: only the latest */
		l->approx = l->time_us != LBT_TL_NONE ? 1 : l->hi_us != LBT_TL_NONE ? 2 : 0;
		if (l->approx == 2)
			l->time_us = l->hi_us;
		if (!l->approx)
			l->file = NULL;     /* no neighbour: it cannot be placed */
	}
	free(pre);
	free(suf);
	return rc;
}

/* Give every line without a time the bounds of its neighbours.
 * @return 0 or -1 (no memory). */
static int place_lines(lbt_timeline *tl)
{
	for (size_t i = 0; i < tl->nlines; i++) {
		struct tl_line *l = &tl->lines[i];

		if (l->approx)
			continue;               /* placed with an earlier line of its file */
		if (l->time_us != LBT_TL_NONE)
			l->hi_us = l->time_us;
		else if (l->file != NULL && place_file(tl, i, l->file) < 0)
			return -1;
	}
	return 0;
}

/* ---- from lines to events ------------------------------------------------ */

/* The kind lines group by: a server's UP lines go with its DOWN lines. */
static int group_kind(const struct tl_line *l)
{
	return l->kind == TLL_UP ? TLL_DOWN : l->kind;
}

/* Order of lines: group kind, lb, subject (not for stops), then (time,
 * file, line). */
static int line_cmp(const void *a, const void *b)
{
	const struct tl_line *x = *(const struct tl_line *const *)a;
	const struct tl_line *y = *(const struct tl_line *const *)b;
	int c = group_kind(x) - group_kind(y);

	if (c == 0)
		c = strcmp(x->lb ? x->lb : "", y->lb ? y->lb : "");
	if (c == 0 && x->kind != TLL_STOPPED)
		c = strcmp(x->subject, y->subject);
	if (c == 0)
		c = (x->time_us > y->time_us) - (x->time_us < y->time_us);
	if (c == 0)
		c = strcmp(x->file ? x->file : "", y->file ? y->file : "");
	return c != 0 ? c : (x->line > y->line) - (x->line < y->line);
}

/* Same group: same group kind, lb and (but for stops) subject. */
static int same_group(const struct tl_line *a, const struct tl_line *b)
{
	return group_kind(a) == group_kind(b) &&
	    strcmp(a->lb ? a->lb : "", b->lb ? b->lb : "") == 0 &&
	    (a->kind == TLL_STOPPED || strcmp(a->subject, b->subject) == 0);
}

/* An event of kind k from line l. @return it, or NULL (no memory). */
static lbt_tl_event *line_event(lbt_timeline *tl, lbt_tl_kind k, lbt_tl_what w,
    const struct tl_line *l)
{
	lbt_tl_event *e = lbt_tli_event_new(tl, k, w, l->subject, l->time_us);

	if (e == NULL)
		return NULL;
	e->lb = l->lb;
	e->approx = l->approx;
	e->time_hi_us = l->hi_us;
	e->text = l->msg;
	e->count = 1;
	e->ev_file = l->file;
	e->ev_line = l->line;
	return e;
}

/*
 * The DOWN and UP lines of one server, v[a..b) in time order: one event a
 * line (a post-mortem needs each transition's time), and a crash loop
 * summing them up when it went down `flaps` times or more.
 * @return 0 or -1.
 */
static int server_events(lbt_timeline *tl, struct tl_line *const *v, size_t a, size_t b)
{
	size_t downs = 0, first = b, lastdown = a;
	lbt_tl_event *e;

	for (size_t i = a; i < b; i++)
		if (v[i]->kind == TLL_DOWN) {
			downs++;
			first = first == b ? i : first;
			lastdown = i;
		}
	for (size_t i = a; i < b; i++)
		if (line_event(tl, v[i]->kind == TLL_DOWN ? LBT_TL_SERVER_DOWN :
		    LBT_TL_SERVER_UP, LBT_TL_W_SERVER, v[i]) == NULL)
			return -1;
	if (downs < (size_t)tl->o.flaps)
		return 0;
	if ((e = line_event(tl, LBT_TL_CRASH_LOOP, LBT_TL_W_SERVER, v[first])) == NULL)
		return -1;
	e->count = (int64_t)downs;
	e->end_us = v[b - 1]->time_us;
	e->period_s = (double)(v[lastdown]->time_us - v[first]->time_us) / 1e6 /
	    (double)(downs - 1);
	return 0;
}

/* The largest time load balancer lb (NULL: any) logged at: its requests,
 * and with `lines` its own lines.  LBT_TL_NONE when none. */
static int64_t last_logged(const lbt_timeline *tl, const char *lb, int lines)
{
	int64_t t = LBT_TL_NONE;

	for (size_t i = 0; lines && i < tl->nlines; i++) {
		const struct tl_line *l = &tl->lines[i];

		if (l->time_us != LBT_TL_NONE && (lb == NULL || (l->lb != NULL &&
		    strcmp(l->lb, lb) == 0)) && (t == LBT_TL_NONE || l->time_us > t))
			t = l->time_us;
	}
	for (size_t i = 0; i < lbt_hmap_count(tl->lbs); i++) {
		lbt_hmap_entry e;
		const struct tl_lb *l;

		lbt_hmap_at(tl->lbs, i, &e);
		l = e.val;
		if (lb != NULL && strcmp(e.key, lb) != 0)
			continue;
		if (l->last.set && (t == LBT_TL_NONE || l->last.time_us > t))
			t = l->last.time_us;
	}
	return t;
}

/*
 * For a burst ending with untimed line l: 1 when its file has a request
 * after it (in file order), 0 when none, -1 when it cannot say (timed, or
 * a file without blocks).  Bounds from blocks of TL_BLOCK lines blur the
 * last block: requests logged before the stop lines in that block read as
 * "after" them by time, so file order decides.
 */
static int requests_follow(const lbt_timeline *tl, const struct tl_line *l)
{
	const struct tl_name *nm;

	if (!l->approx || l->file == NULL || l->line == 0)
		return -1;
	nm = lbt_hmap_get(tl->names, l->file, strlen(l->file));
	if (nm == NULL || nm->f == NULL)
		return -1;
	return nm->f->last_line > l->line;
}

/*
 * A burst of "Proxy X stopped" lines of one LB, v[a..b) within 2 s: a
 * reload when the LB logged anything (a request, a line of its own such as
 * a health check's UP) more than 1 s after it, else a stop: an LB out of
 * the DNS rotation gets no request after its reload, but its checks go on.
 * Untimed lines with no request after them in their file are a stop.
 * subject lists the proxies.  @return 0 or -1.
 */
static int stop_event(lbt_timeline *tl, struct tl_line *const *v, size_t a, size_t b)
{
	char list[256];
	size_t n = 0;
	/* a burst placed after every request with no later bound may come
	 * after any line: only its requests can show the LB went on */
	int64_t last = last_logged(tl, v[a]->lb, !(v[b - 1]->approx && v[b - 1]->hi_us == LBT_TL_NONE));
	int follow = requests_follow(tl, v[b - 1]);
	lbt_tl_event *e;

	for (size_t i = a; i < b && n + 2 < sizeof list; i++) {
		int k = snprintf(list + n, sizeof list - n, "%s%s", i > a ? "," : "",
		    v[i]->subject);

		n += k > 0 ? (size_t)k : 0;
		n = n < sizeof list ? n : sizeof list - 1;
	}
	e = line_event(tl, follow != 0 && last != LBT_TL_NONE && last > v[b - 1]->time_us + 1000000 ?
	    LBT_TL_RELOAD : LBT_TL_STOP, LBT_TL_W_PROXY, v[a]);
	if (e == NULL || (e->subject = lbt_tli_intern(tl, list, n, 0)) == NULL)
		return -1;
	e->count = (int64_t)(b - a);
	return 0;
}

/* Lines of one group that repeat (no server, other lines): one event a
 * burst, the lines of a burst less than 60 s apart.  @return 0 or -1. */
static int burst_events(lbt_timeline *tl, struct tl_line *const *v, size_t a, size_t b,
    lbt_tl_kind k, lbt_tl_what w)
{
	for (size_t i = a; i < b;) {
		size_t j = i + 1;
		lbt_tl_event *e;

		while (j < b && v[j]->time_us - v[j - 1]->time_us < 60000000 &&
		    (k == LBT_TL_NO_SERVER || strcmp(v[j]->msg, v[i]->msg) == 0))
			j++;
		if ((e = line_event(tl, k, w, v[i])) == NULL)
			return -1;
		e->count = (int64_t)(j - i);
		e->end_us = j - i > 1 ? v[j - 1]->time_us : LBT_TL_NONE;
		i = j;
	}
	return 0;
}

/* True when untimed line l follows untimed line k in the same file: one
 * burst whatever the bounds each was placed within (blocks of TL_BLOCK
 * lines can put the two ends of one burst seconds apart). */
static int next_line(const struct tl_line *k, const struct tl_line *l)
{
	return k->approx && l->approx && k->file != NULL && k->file == l->file &&
	    l->line == k->line + 1;
}

/* The events of one group v[a..b) (one kind, lb and subject). @return 0 or -1. */
static int group_events(lbt_timeline *tl, struct tl_line *const *v, size_t a, size_t b)
{
	switch (group_kind(v[a])) {
	case TLL_DOWN:
		return server_events(tl, v, a, b);
	case TLL_NOSRV:
		return burst_events(tl, v, a, b, LBT_TL_NO_SERVER, LBT_TL_W_BACKEND);
	case TLL_STOPPED:
		for (size_t i = a; i < b;) {
			size_t j = i + 1;

			while (j < b && (v[j]->time_us - v[i]->time_us <= 2000000 ||
			    next_line(v[j - 1], v[j])))
				j++;
			if (stop_event(tl, v, i, j) < 0)
				return -1;
			i = j;
		}
		return 0;
	default:
		return burst_events(tl, v, a, b, LBT_TL_HAPROXY, LBT_TL_W_PROXY);
	}
}

/*
 * The events of HAProxy's lines: place the untimed ones, sort them by
 * group (kind, LB, subject) and time, and make each group's events.
 * @return 0 or -1 (no memory).
 */
int lbt_tli_detect_lines(lbt_timeline *tl)
{
	struct tl_line **v = malloc((tl->nlines ? tl->nlines : 1) * sizeof *v);
	size_t n = 0;
	int rc = 0;

	if (v == NULL || place_lines(tl) < 0) {
		free(v);
		return -1;
	}
	for (size_t i = 0; i < tl->nlines; i++)
		if (tl->lines[i].time_us != LBT_TL_NONE)
			v[n++] = &tl->lines[i];
	qsort(v, n, sizeof *v, line_cmp);
	for (size_t a = 0, b; a < n && rc == 0; a = b) {
		for (b = a + 1; b < n && same_group(v[a], v[b]); b++)
			;
		rc = group_events(tl, v, a, b);
	}
	free(v);
	return rc;
}
