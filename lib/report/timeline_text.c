/*
 * timeline_text.c - the sentences of the timeline: what each event says
 * and its numbers (lbt_tl_phrase), its time as the tables show it, and
 * the summary paragraph.  Every output form (Markdown, TSV, NDJSON, the
 * HTML page) takes its words from here.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbt/timeline_report.h"
#include "lbt/timeparse.h"

/* A growing sentence in a fixed buffer (truncated, never overflowed). */
struct text {
	char *b;
	size_t size, len;
};

/* Append a printf-style piece to t. */
__attribute__((format(printf, 2, 3)))
static void put(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (t->len + 1 >= t->size)
		return;
	va_start(ap, fmt);
	n = vsnprintf(t->b + t->len, t->size - t->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		t->len = t->len + (size_t)n < t->size ? t->len + (size_t)n : t->size - 1;
}

/* "07:45:30" or "07:45:30.541" (UTC) of us into b. @return b. */
static const char *tod(int64_t us, char *b, size_t size)
{
	char iso[48];
	size_t n = lbt_time_format_s(us, iso, sizeof iso);

	snprintf(b, size, "%.*s", n > 12 ? (int)(n - 12) : 0, iso + 11);
	return b;
}

/* "2026-11-30" of us into b.  @return b. */
static const char *day(int64_t us, char *b, size_t size)
{
	char iso[48];

	lbt_time_format_s(us, iso, sizeof iso);
	snprintf(b, size, "%.10s", iso);
	return b;
}

/* The time of e as tables show it (timeline_report.h).  @return buf. */
const char *lbt_tl_time_text(const lbt_tl_event *e, int date, char *buf, size_t size)
{
	char d[16], t[32];

	snprintf(buf, size, "%s%s%s%s", e->approx ? "\u2248" : "", date ? day(e->time_us, d,
	    sizeof d) : "", date ? " " : "", tod(e->time_us, t, sizeof t));
	return buf;
}

/* A rate: no decimals from 100 on, one below. */
static void rate(struct text *t, double r)
{
	put(t, r >= 100 ? "%.0f" : "%.1f", r);
}

/* A duration of us: "9 ms", "3.5 s", "31 s", "4 min 5 s", "2 h 3 min". */
static void duration(struct text *t, int64_t us)
{
	int64_t s = (us + 500000) / 1000000;

	if (us < 1000000)
		put(t, "%lld ms", (long long)(us / 1000));
	else if (us < 10000000 && us % 1000000 != 0)
		put(t, "%.1f s", (double)us / 1e6);
	else if (s < 120)
		put(t, "%lld s", (long long)s);
	else if (s < 7200)
		put(t, "%lld min %lld s", (long long)(s / 60), (long long)(s % 60));
	else
		put(t, "%lld h %lld min", (long long)(s / 3600), (long long)(s / 60 % 60));
}

/* " until HH:MM:SS (duration)" for an end, or ", still going on at the end
 * of the logs". */
static void until(struct text *t, const lbt_tl_event *e)
{
	char b[32];

	if (e->ongoing) {
		put(t, ", still going on at the end of the logs");
		return;
	}
	if (e->end_us == LBT_TL_NONE)
		return;
	put(t, " until %s (", tod(e->end_us, b, sizeof b));
	duration(t, e->end_us - e->time_us);
	put(t, ")");
}

/* What a class of errors is, in words. */
static const char *class_words(const char *c)
{
	static const struct {
		const char *name, *words;
	} w[] = {
		{ "429", "429 answers" }, { "503", "503 answers" },
		{ "5xx", "5xx answers (tarpit answers left out)" },
		{ "-1", "requests answered with nothing (status -1: reject, silent-drop)" },
		{ "tarpit", "tarpitted requests (PT)" },
		{ "deny", "requests denied by the proxy (PR)" },
		{ "client", "client aborts (C)" }, { "server", "server aborts and refusals (S)" },
		{ "timeout", "client- and server-side timeouts (c, s)" },
		{ "resource", "proxy resource shortages (R)" },
	};

	for (size_t i = 0; i < sizeof w / sizeof w[0]; i++)
		if (strcmp(c, w[i].name) == 0)
			return w[i].words;
	return c;
}

/* The subject of e with what it is: "key X", "all traffic", "source S". */
static void subject(struct text *t, const lbt_tl_event *e)
{
	switch (e->what) {
	case LBT_TL_W_ALL:
		put(t, "all traffic");
		break;
	case LBT_TL_W_HOST:
		put(t, "Host %s", e->subject);
		break;
	case LBT_TL_W_LB:
		put(t, "load balancer %s", e->subject);
		break;
	case LBT_TL_W_CLASS:
		put(t, "%s", class_words(e->subject));
		break;
	default:
		put(t, "%s %s", lbt_tl_what_name(e->what), e->subject);
	}
}

/* The numbers of an episode start: from -> to, peak, requests, share, end. */
static void episode_numbers(struct text *t, const lbt_tl_event *e)
{
	char b[32];

	rate(t, isnan(e->from) ? 0 : e->from);
	put(t, " \u2192 ");
	rate(t, e->to);
	put(t, " %s", e->unit ? e->unit : "");
	if (!isnan(e->ratio))
		put(t, " (\u00d7%.0f its baseline)", e->ratio);
	if (!isnan(e->peak))
		put(t, ", peak "), rate(t, e->peak), put(t, " at %s", tod(e->peak_us, b, sizeof b));
	if (e->count >= 0)
		put(t, "; %lld requests", (long long)e->count);
	if (!isnan(e->share_pct))
		put(t, " (%.1f %% of all)", e->share_pct);
	until(t, e);
}

/* The phrases of the episode kinds (rises, drops, their ends). */
static void phrase_episode(const lbt_tl_event *e, struct text *ev, struct text *nu)
{
	int isnew = isnan(e->ratio) && (isnan(e->from) || e->from == 0);

	switch (e->kind) {
	case LBT_TL_RISE:
		if (isnew && e->what != LBT_TL_W_ALL)
			put(ev, "new "), subject(ev, e), put(ev, " appears");
		else
			subject(ev, e), put(ev, " rises");
		episode_numbers(nu, e);
		break;
	case LBT_TL_NEW_SOURCE:
		put(ev, "new heavy source %s", e->subject);
		episode_numbers(nu, e);
		break;
	case LBT_TL_SOURCE_RISE:
		put(ev, "source %s", e->subject);
		if (!isnan(e->ratio))
			put(ev, " at %.0f\u00d7 its own baseline", e->ratio);
		else
			put(ev, " rises again");
		episode_numbers(nu, e);
		break;
	case LBT_TL_DROP:
		subject(ev, e), put(ev, " drops");
		episode_numbers(nu, e);
		break;
	default:                 /* RISE_END, DROP_END */
		subject(ev, e), put(ev, e->kind == LBT_TL_RISE_END ? " back to its baseline" :
		    " back to its level");
		rate(nu, e->from), put(nu, " \u2192 "), rate(nu, e->to), put(nu, " %s",
		    e->unit ? e->unit : "");
	}
}

/* The reload logged nearest to t, from `before` µs before it to 2 s after,
 * among tl's events; NULL when none. */
static const lbt_tl_event *reload_near(const lbt_timeline *tl, int64_t t, int64_t before)
{
	const lbt_tl_event *best = NULL;

	for (size_t i = 0; i < lbt_timeline_nevents(tl); i++) {
		const lbt_tl_event *r = lbt_timeline_event_at(tl, i);

		if (r->kind == LBT_TL_RELOAD && r->time_us <= t + 2000000 &&
		    r->time_us >= t - before && (best == NULL ||
		    llabs(r->time_us - t) < llabs(best->time_us - t)))
			best = r;
	}
	return best;
}

/* ", HAProxy reloaded at T (file:line)" when a reload was logged just before t. */
static void reload_words(const lbt_timeline *tl, struct text *t, int64_t at)
{
	const lbt_tl_event *r = reload_near(tl, at, 10000000);
	char b[32];

	if (r == NULL)
		return;
	put(t, "; HAProxy was reloaded at %s%s", r->approx ? "\u2248" : "",
	    tod(r->time_us, b, sizeof b));
	if (r->ev_file)
		put(t, " (%s:%llu)", r->ev_file, (unsigned long long)r->ev_line);
}

/* The phrases of classes, switches and vanishing sources. */
static void phrase_shift(const lbt_timeline *tl, const lbt_tl_event *e, struct text *ev,
    struct text *nu)
{
	char b[32];

	switch (e->kind) {
	case LBT_TL_ERRORS:
		if (e->lb != NULL || e->what == LBT_TL_W_SOURCE) {   /* runs of one LB's, one source's */
			put(ev, e->lb != NULL ? "%s from %s" : "%s to %s", class_words(e->lb != NULL ?
			    e->subject : e->other), e->lb != NULL ? e->lb : e->subject);
			put(nu, "%lld (%.1f %% of %s requests), ", (long long)e->count, e->share_pct,
			    e->lb != NULL ? "its" : "the source's");
			rate(nu, e->to);
			put(nu, " req/s, peak ");
			rate(nu, e->peak);
			put(nu, " req/s at %s%s", tod(e->peak_us, b, sizeof b), e->ongoing ? "" : ";");
			until(nu, e);
			break;
		}
		put(ev, "%s rise", class_words(e->subject));
		put(nu, "%.1f %% \u2192 %.1f %% of requests, peak %.0f %% at %s; %lld requests",
		    e->from, e->to, e->peak, tod(e->peak_us, b, sizeof b), (long long)e->count);
		until(nu, e);
		break;
	case LBT_TL_ERRORS_END:
		put(ev, "%s end", class_words(e->subject));
		put(nu, "%.1f %% \u2192 %.1f %% of requests", e->from, e->to);
		break;
	case LBT_TL_SWITCH:
		put(ev, "%s gives way to %s", strstr(e->subject, "tarpit") == e->subject ?
		    "the tarpit" : strncmp(e->subject, "deny", 4) == 0 ? "deny" : "reject",
		    e->other);
		put(nu, "%.1f %% of requests before, %.1f %% after; a configuration change, "
		    "which no log line records", e->from, e->to);
		reload_words(tl, nu, e->time_us);
		break;
	default:                 /* VANISH */
		if (e->other != NULL && strcmp(e->other, "ended") == 0) {
			put(ev, "source %s ends", e->subject);
			put(nu, "last request at %s after ", tod(e->time_us, b, sizeof b));
			rate(nu, e->from);
			put(nu, " req/s (%lld in all); no reload near it, and its rate was falling or "
			    "no other source went on with its requests: what it was doing ended",
			    (long long)e->count);
			break;
		}
		put(ev, "source %s stops at once while the others go on", e->subject);
		put(nu, "last request at %s after ", tod(e->time_us, b, sizeof b));
		rate(nu, e->from);
		put(nu, " req/s (%lld in all); nothing in the logs says why: a tcp-request "
		    "connection reject, a firewall rule or a DNS change looks like this",
		    (long long)e->count);
		reload_words(tl, nu, e->time_us);
	}
}

/* The phrases of saturation and alerts. */
static void phrase_slots(const lbt_timeline *tl, const lbt_tl_event *e, struct text *ev,
    struct text *nu)
{
	const char *fe = e->subject;

	(void)tl;
	switch (e->kind) {
	case LBT_TL_ALERT:
		put(ev, "an alert on %s sessions at %.0f %% of maxconn would have fired", fe,
		    e->share_pct);
		put(nu, "fc reached %d of %d", e->value, e->limit);
		if (e->peak_us != LBT_TL_NONE && e->peak_us - e->time_us < 1000) {
			put(nu, "; in the same millisecond fc reached maxconn: no warning at all");
		} else if (e->peak_us != LBT_TL_NONE && e->peak_us >= e->time_us) {
			put(nu, "; ");
			duration(nu, e->peak_us - e->time_us);
			put(nu, " before fc reached maxconn");
		} else if (e->peak_us == LBT_TL_NONE) {
			put(nu, "; fc never reached maxconn");
		}
		break;
	case LBT_TL_SATURATION:
		put(ev, "%s at maxconn %d: new connections wait unlogged", fe, e->limit);
		if (e->value >= 0)
			put(nu, "logged fc %d of %d; ", e->value, e->limit);
		else
			put(nu, "rebuilt slots at maxconn %d (fc not logged); ", e->limit);
		put(nu, "rebuilt peak %.0f slots", e->peak);
		if (!isnan(e->share_pct))
			put(nu, ", the tarpit held %.0f %% of slot time", e->share_pct);
		until(nu, e);
		break;
	default:                 /* SATURATION_END */
		put(ev, "%s below maxconn again", fe);
		put(nu, "maxconn %d", e->limit);
	}
}

/* The phrases of load balancers. */
static void phrase_lb(const lbt_tl_event *e, struct text *ev, struct text *nu)
{
	char b[32];

	switch (e->kind) {
	case LBT_TL_LB_STOP:
		put(ev, "load balancer %s stops logging", e->subject);
		put(nu, "last request at %s after ", tod(e->time_us, b, sizeof b));
		rate(nu, e->from);
		put(nu, " req/s (%lld in all)", (long long)e->count);
		if (e->other)
			put(nu, "; its load goes to %s", e->other);
		else
			put(nu, "; the others go on");
		break;
	case LBT_TL_LB_GAP:
		put(ev, "hole in the log of %s", e->subject);
		put(nu, "no line for ");
		duration(nu, (int64_t)(e->period_s * 1e6));
		put(nu, " while the others logged, at ");
		rate(nu, e->from);
		put(nu, " req/s before");
		break;
	default:                 /* LB_SHIFT */
		put(ev, "load balancer %s loses its load to %s", e->subject, e->other);
		episode_numbers(nu, e);
	}
}

/* The phrases of HAProxy's lines. */
static void phrase_line(const lbt_tl_event *e, struct text *ev, struct text *nu)
{
	char b[32], c[32];

	switch (e->kind) {
	case LBT_TL_SERVER_DOWN:
	case LBT_TL_SERVER_UP:
		put(ev, "server %s %s", e->subject, e->kind == LBT_TL_SERVER_DOWN ? "down" : "up");
		put(nu, "%.160s", e->text ? e->text : "");
		break;
	case LBT_TL_CRASH_LOOP:
		put(ev, "server %s crash-looping", e->subject);
		put(nu, "down %lld times from %s to %s, every ", (long long)e->count,
		    tod(e->time_us, b, sizeof b), tod(e->end_us, c, sizeof c));
		duration(nu, (int64_t)(e->period_s * 1e6));
		put(nu, " on average");
		break;
	case LBT_TL_NO_SERVER:
		put(ev, "backend %s has no server available", e->subject);
		put(nu, "%lld line%s", (long long)e->count, e->count == 1 ? "" : "s");
		if (e->end_us != LBT_TL_NONE)
			put(nu, " until %s", tod(e->end_us, b, sizeof b));
		break;
	case LBT_TL_RELOAD:
	case LBT_TL_STOP:
		put(ev, e->kind == LBT_TL_RELOAD ? "HAProxy reloaded: the old process stopped" :
		    "HAProxy stopped");
		put(nu, "%lld prox%s stopped (%s)%s", (long long)e->count, e->count == 1 ? "y" :
		    "ies", e->subject, e->kind == LBT_TL_RELOAD ? "; requests go on" :
		    "; no request logged after");
		break;
	default:                 /* HAPROXY */
		put(ev, "HAProxy: %.160s", e->text ? e->text : "");
		if (e->count > 1)
			put(nu, "%lld times", (long long)e->count);
	}
	if (e->approx == 1 && e->time_hi_us != LBT_TL_NONE)
		put(nu, "%sno time in the line: between %s and %s", nu->len ? "; " : "",
		    tod(e->time_us, b, sizeof b), tod(e->time_hi_us, c, sizeof c));
	else if (e->approx == 1)
		put(nu, "%sno time in the line: after %s", nu->len ? "; " : "",
		    tod(e->time_us, b, sizeof b));
	else if (e->approx == 2)
		put(nu, "%sno time in the line: before %s", nu->len ? "; " : "",
		    tod(e->time_us, b, sizeof b));
}

/* The two sentences of event e (see timeline_report.h). */
void lbt_tl_phrase(const lbt_timeline *tl, const lbt_tl_event *e, char *event, size_t esize,
    char *numbers, size_t nsize)
{
	struct text ev = { event, esize, 0 }, nu = { numbers, nsize, 0 };
	char b[32], b2[32];

	event[0] = numbers[0] = '\0';
	switch (e->kind) {
	case LBT_TL_RISE: case LBT_TL_NEW_SOURCE: case LBT_TL_SOURCE_RISE:
	case LBT_TL_RISE_END: case LBT_TL_DROP: case LBT_TL_DROP_END:
		phrase_episode(e, &ev, &nu);
		break;
	case LBT_TL_ERRORS: case LBT_TL_ERRORS_END: case LBT_TL_SWITCH: case LBT_TL_VANISH:
		phrase_shift(tl, e, &ev, &nu);
		break;
	case LBT_TL_ALERT: case LBT_TL_SATURATION: case LBT_TL_SATURATION_END:
		phrase_slots(tl, e, &ev, &nu);
		break;
	case LBT_TL_LB_STOP: case LBT_TL_LB_GAP: case LBT_TL_LB_SHIFT:
		phrase_lb(e, &ev, &nu);
		break;
	case LBT_TL_RETRY:
		put(&ev, "source %s re-sends refused requests", e->subject);
		put(&nu, "%lld sent again within the retry window of a 429/503/-1/tarpit answer, "
		    "of %lld distinct requests refused (most: %.80s), amplification \u00d7%.1f, "
		    "until %s", (long long)e->count,
		    (long long)e->distinct, e->text ? e->text : "", e->ratio,
		    tod(e->end_us, b, sizeof b));
		break;
	case LBT_TL_RETRY_STORM:
		put(&ev, "retry storm of source %s", e->subject);
		put(&nu, "%lld requests until %s: ", (long long)e->count, e->ongoing ? "the end" :
		    tod(e->end_us, b, sizeof b));
		rate(&nu, e->to);
		put(&nu, " req/s, \u00d7%.1f its baseline of ", e->ratio);
		rate(&nu, e->from);
		put(&nu, " req/s (re-sending %lld distinct requests, most: %.80s)",
		    (long long)e->distinct, e->text ? e->text : "");
		break;
	case LBT_TL_END:
		put(&ev, e->other != NULL ? "end of the incident: all traffic back within its "
		    "baseline band for good" : "end of the incident: every series back within "
		    "its baseline");
		rate(&nu, e->from);
		put(&nu, " req/s from then on");
		break;
	case LBT_TL_CONFIG_CHANGE:
		put(&ev, "the reload changed %.300s", e->text ? e->text : "");
		put(&nu, "--haproxy-cfg to --haproxy-cfg-after%s%s%s", e->other ? "; placed at the "
		    "last of " : "", e->other ? e->other : "", e->other ? ", which the logs cannot "
		    "tell apart" : "");
		break;
	case LBT_TL_BACKEND_SAT:
		put(&ev, "backend %s at its limit: requests queued, HAProxy sheds", e->subject);
		put(&nu, "%lld answered 503 by HAProxy itself (queue or connect timeout, "
		    "refusal; %.1f %% of all requests), %lld waited in a queue, longest queue %.0f, "
		    "srv_conn up to %d", (long long)e->count, isnan(e->share_pct) ? 0.0 :
		    e->share_pct, (long long)e->distinct, e->peak, (int)e->value);
		if (e->ongoing)
			put(&nu, ", still at the end of the logs");
		else
			put(&nu, ", until %s", tod(e->end_us, b, sizeof b));
		break;
	case LBT_TL_BACKOFF:
		put(&ev, "source %s backs off after its 429s", e->subject);
		rate(&nu, e->from);
		put(&nu, " \u2192 ");
		rate(&nu, e->to);
		put(&nu, " req/s after %lld answers 429", (long long)e->count);
		break;
	case LBT_TL_SOURCE_BURST:
		put(&ev, "a burst of %d new sources", (int)e->value);
		put(&nu, "appearing from %s to %s; %lld requests, ", tod(e->time_us, b, sizeof b),
		    tod(e->end_us, b2, sizeof b2), (long long)e->count);
		rate(&nu, e->to);
		put(&nu, " req/s, %.1f %% of all until %s", e->share_pct,
		    tod(e->peak_us, b, sizeof b));
		break;
	default:
		phrase_line(e, &ev, &nu);
	}
}

/* ---- the summary paragraph ------------------------------------------------ */

/* The i-th event of kind k (what w, or any when w < 0) by count, or NULL. */
static const lbt_tl_event *largest(const lbt_timeline *tl, lbt_tl_kind k, int w)
{
	const lbt_tl_event *best = NULL;

	for (size_t i = 0; i < lbt_timeline_nevents(tl); i++) {
		const lbt_tl_event *e = lbt_timeline_event_at(tl, i);

		if (e->kind == k && (w < 0 || (int)e->what == w) &&
		    (best == NULL || e->count > best->count))
			best = e;
	}
	return best;
}

/* The first event of kind k, or NULL. */
static const lbt_tl_event *first_of(const lbt_timeline *tl, lbt_tl_kind k)
{
	for (size_t i = 0; i < lbt_timeline_nevents(tl); i++)
		if (lbt_timeline_event_at(tl, i)->kind == k)
			return lbt_timeline_event_at(tl, i);
	return NULL;
}

/* "Between T1 and T2 (d), ..." : the span of the logs and of the incident. */
static void sum_span(const lbt_timeline *tl, struct text *t)
{
	const lbt_timeline_stats *st = lbt_timeline_stats_get(tl);
	char a[32], b[32], d[16];

	put(t, "All times UTC, %s. %llu requests from %s to %s", day(st->first_us, d, sizeof d),
	    (unsigned long long)st->requests, tod(st->first_us, a, sizeof a),
	    tod(st->last_us, b, sizeof b));
	if (st->events > 0)
		put(t, ", %llu lines of HAProxy's own", (unsigned long long)st->events);
	put(t, ". ");
	if (st->incident_from == LBT_TL_NONE) {
		put(t, "No series left its baseline: no incident in these logs. ");
		return;
	}
	put(t, "The incident ran from %s", tod(st->incident_from, a, sizeof a));
	if (st->incident_to != LBT_TL_NONE && first_of(tl, LBT_TL_END) != NULL) {
		put(t, " to %s (", tod(st->incident_to, b, sizeof b));
		duration(t, st->incident_to - st->incident_from);
		put(t, "). ");
	} else {
		put(t, " and is still going on at the end of the logs. ");
	}
}

/* The first rise event of k's series (k itself when it is the first):
 * the engine reports a flood that stepped as several rises. */
static const lbt_tl_event *first_rise_of(const lbt_timeline *tl, const lbt_tl_event *k)
{
	for (size_t i = 0; i < lbt_timeline_nevents(tl); i++) {
		const lbt_tl_event *e = lbt_timeline_event_at(tl, i);

		if (e->kind == k->kind && e->what == k->what && strcmp(e->subject, k->subject) == 0)
			return e->time_us < k->time_us ? e : k;
	}
	return k;
}

/* True when a source event before event i already named e's subject. */
static int listed_before(const lbt_timeline *tl, size_t i, const lbt_tl_event *e)
{
	for (size_t j = 0; j < i; j++) {
		const lbt_tl_event *p = lbt_timeline_event_at(tl, j);

		if ((p->kind == LBT_TL_NEW_SOURCE || p->kind == LBT_TL_SOURCE_RISE) &&
		    strcmp(p->subject, e->subject) == 0)
			return 1;
	}
	return 0;
}

/* The hot key and the sources that sent it. */
static void sum_flood(const lbt_timeline *tl, struct text *t)
{
	const lbt_tl_event *k = largest(tl, LBT_TL_RISE, LBT_TL_W_KEY);
	int n = 0;
	char b[32];

	if (k != NULL) {
		const lbt_tl_event *f = first_rise_of(tl, k);

		put(t, "Key %s went from ", k->subject);
		rate(t, isnan(f->from) ? 0 : f->from);
		put(t, " to ");
		rate(t, k->to);
		put(t, " req/s (peak ");
		rate(t, k->peak);
		put(t, " at %s)", tod(k->peak_us, b, sizeof b));
		if (f != k)
			put(t, " from %s, in steps", tod(f->time_us, b, sizeof b));
		put(t, ": %lld requests, %.1f %% of all in its largest step. ", (long long)k->count,
		    k->share_pct);
	}
	for (size_t i = 0; i < lbt_timeline_nevents(tl) && n < 5; i++) {
		const lbt_tl_event *e = lbt_timeline_event_at(tl, i);

		if ((e->kind != LBT_TL_NEW_SOURCE && e->kind != LBT_TL_SOURCE_RISE) ||
		    listed_before(tl, i, e))
			continue;
		put(t, "%s%s (%lld requests, ", n ? ", " : "Heavy sources: ", e->subject,
		    (long long)e->count);
		if (e->kind == LBT_TL_NEW_SOURCE || isnan(e->ratio))
			put(t, "new)");
		else
			put(t, "\u00d7%.0f its baseline)", e->ratio);
		n++;
	}
	if (n > 0)
		put(t, ". ");
}

/* The time of the reload logged nearest to at (see reload_near), if any. */
static void reload_time(const lbt_timeline *tl, struct text *t, int64_t at)
{
	const lbt_tl_event *r = reload_near(tl, at, 10000000);
	char b[32];

	if (r != NULL)
		put(t, "%s%s", r->approx ? "\u2248" : "", tod(r->time_us, b, sizeof b));
}

/* " (HAProxy was reloaded at T)" when a reload was logged near at. */
static void reload_just(const lbt_timeline *tl, struct text *t, int64_t at)
{
	if (reload_near(tl, at, 10000000) == NULL)
		return;
	put(t, " (HAProxy was reloaded at ");
	reload_time(tl, t, at);
	put(t, ")");
}

/* Saturation, the alert that would have fired, refusals. */
static void sum_slots(const lbt_timeline *tl, struct text *t)
{
	const lbt_tl_event *s = first_of(tl, LBT_TL_SATURATION), *a = first_of(tl, LBT_TL_ALERT);
	const lbt_tl_event *w = first_of(tl, LBT_TL_SWITCH);
	char b[32], c[32];

	if (s != NULL) {
		put(t, "%s ran at maxconn %d from %s to %s", s->subject, s->limit,
		    tod(s->time_us, b, sizeof b), tod(s->end_us, c, sizeof c));
		if (!isnan(s->share_pct))
			put(t, "; the tarpit held %.0f %% of its slot time", s->share_pct);
		put(t, ". ");
	}
	if (a != NULL && a->peak_us != LBT_TL_NONE && a->peak_us - a->time_us < 1000) {
		put(t, "An alert at %.0f %% of maxconn would have given no warning: fc went "
		    "from below it to maxconn at once, at %s. ", a->share_pct,
		    tod(a->time_us, b, sizeof b));
	} else if (a != NULL && a->peak_us != LBT_TL_NONE) {
		put(t, "An alert at %.0f %% of maxconn would have fired at %s, %s", a->share_pct,
		    tod(a->time_us, b, sizeof b), a->peak_us - a->time_us < 60000000 ? "only " : "");
		duration(t, a->peak_us - a->time_us);
		put(t, " before the frontend was full. ");
	}
	if (w != NULL) {
		put(t, "At %s %s gave way to %s", tod(w->time_us, b, sizeof b),
		    strncmp(w->subject, "tarpit", 6) == 0 ? "the tarpit" : "deny", w->other);
		reload_just(tl, t, w->time_us);
		put(t, ". ");
	}
}

/* Load shedding and errors: the statuses' shares. */
static void sum_errors(const lbt_timeline *tl, struct text *t)
{
	int n = 0;
	char b[32], c[32];

	for (size_t i = 0; i < lbt_timeline_nevents(tl) && n < 4; i++) {
		const lbt_tl_event *e = lbt_timeline_event_at(tl, i);

		if (e->kind != LBT_TL_ERRORS || e->lb != NULL || e->what != LBT_TL_W_CLASS ||
		    strcmp(e->subject, "tarpit") == 0 || strcmp(e->subject, "deny") == 0)
			continue;
		put(t, "%s made up %.1f %% of requests from %s", class_words(e->subject),
		    e->share_pct, tod(e->time_us, b, sizeof b));
		if (e->end_us != LBT_TL_NONE)
			put(t, " to %s", tod(e->end_us, c, sizeof c));
		put(t, ". ");
		n++;
	}
}

/* Sources that vanished, retries, crash loops, load balancers. */
static void sum_others(const lbt_timeline *tl, struct text *t)
{
	const lbt_tl_event *v = first_of(tl, LBT_TL_VANISH), *r = largest(tl, LBT_TL_RETRY, -1);
	/* v: the first that stopped (other NULL), not one whose activity ended */
	const lbt_tl_event *c = largest(tl, LBT_TL_CRASH_LOOP, -1), *l = first_of(tl, LBT_TL_LB_STOP);
	char b[32];
	int n = 0;

	for (size_t i = 0; v != NULL && i < lbt_timeline_nevents(tl); i++) {
		const lbt_tl_event *e = lbt_timeline_event_at(tl, i);

		if (e->kind != LBT_TL_VANISH || e->other != NULL)
			continue;
		if (n == 0)
			v = e;
		if (n++ == 0)
			put(t, "At %s %s", tod(e->time_us, b, sizeof b), e->subject);
		else
			put(t, " and %s", e->subject);
	}
	if (n > 0 && reload_near(tl, v->time_us, 10000000) != NULL) {
		put(t, " stopped at once while the others went on. Nothing in the logs says why; "
		    "HAProxy was reloaded at ");
		reload_time(tl, t, v->time_us);
		put(t, ", just then, and a rule that refuses connections before they are logged "
		    "(tcp-request connection reject) looks exactly like this. ");
	} else if (n > 0) {
		put(t, " stopped at once while the others went on. Nothing in the logs says why: "
		    "a rule that refuses connections before they are logged, a firewall or a DNS "
		    "change looks like this. ");
	}
	if (r != NULL)
		put(t, "%s kept sending what was refused: %lld times again, of %lld distinct "
		    "request%s refused (amplification \u00d7%.1f). ", r->subject, (long long)r->count,
		    (long long)r->distinct, r->distinct == 1 ? "" : "s", r->ratio);
	for (size_t i = 0, k = 0; i < lbt_timeline_nevents(tl); i++) {
		const lbt_tl_event *e = lbt_timeline_event_at(tl, i);

		if (e->kind == LBT_TL_RELOAD)
			put(t, "%s%s%s%s%s", k++ ? ", " : "HAProxy was reloaded at ", e->approx ?
			    "\u2248" : "", tod(e->time_us, b, sizeof b), e->lb ? " on " : "",
			    e->lb ? e->lb : "");
		if (k > 0 && i + 1 == lbt_timeline_nevents(tl))
			put(t, ". ");
	}
	for (size_t i = 0, k = 0; i < lbt_timeline_nevents(tl); i++) {
		const lbt_tl_event *e = lbt_timeline_event_at(tl, i);

		if (e->kind == LBT_TL_CONFIG_CHANGE && k++ == 0)
			put(t, "The configuration it installed differs from --haproxy-cfg in the "
			    "lines below (first: %.200s). ", e->text ? e->text : "");
	}
	for (size_t i = 0; i < lbt_timeline_nevents(tl); i++) {
		const lbt_tl_event *e = lbt_timeline_event_at(tl, i);

		if (e->kind == LBT_TL_BACKEND_SAT)
			put(t, "Backend %s was at its limit from %s: %lld requests queued, %lld "
			    "answered 503 by HAProxy itself. ", e->subject, tod(e->time_us, b,
			    sizeof b), (long long)e->distinct, (long long)e->count);
	}
	for (size_t i = 0, k = 0; i < lbt_timeline_nevents(tl); i++) {
		const lbt_tl_event *e = lbt_timeline_event_at(tl, i);

		if (e->kind == LBT_TL_BACKOFF)
			put(t, "%s%s", k++ ? ", " : "Backed off after their 429s: ", e->subject);
		if (k > 0 && i + 1 == lbt_timeline_nevents(tl))
			put(t, ". ");
	}
	if (c != NULL)
		put(t, "Server %s went down %lld times (a crash loop). ", c->subject,
		    (long long)c->count);
	if (l != NULL)
		put(t, "Load balancer %s stopped logging at %s. ", l->subject,
		    tod(l->time_us, b, sizeof b));
}

/* The summary paragraph (see timeline_report.h).  @return buf. */
const char *lbt_tl_summary(const lbt_timeline *tl, char *buf, size_t size)
{
	struct text t = { buf, size, 0 };
	const lbt_tl_event *e = first_of(tl, LBT_TL_END);
	char b[32];

	buf[0] = '\0';
	if (lbt_timeline_stats_get(tl)->requests == 0) {
		put(&t, "No request with a time in the input");
		if (lbt_timeline_nevents(tl) > 0)
			put(&t, "; %zu events from HAProxy's own lines", lbt_timeline_nevents(tl));
		put(&t, ".");
		return buf;
	}
	sum_span(tl, &t);
	sum_flood(tl, &t);
	sum_slots(tl, &t);
	sum_errors(tl, &t);
	sum_others(tl, &t);
	if (e != NULL)
		put(&t, "%s at %s. ", e->other != NULL ? "All traffic was back within its "
		    "baseline band for good" : "Every series was back within its baseline",
		    tod(e->time_us, b, sizeof b));
	put(&t, "%zu events below; the evidence of each is the file:line of the first record "
	    "that shows it.", lbt_timeline_nevents(tl));
	return buf;
}
