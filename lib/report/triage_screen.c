/*
 * triage_screen.c - lbt_triage_write (triage.h): the one screen, through
 * lib/out, every line within the width (80 columns): a header, the
 * verdict, the hot keys and the sources as aligned tables, the pressure
 * per frontend, the damage, the rule with the command that writes it.
 * Text that comes from the logs (keys, frontend and load-balancer names)
 * is escaped for a terminal (esc.h) and cut first, so no escape sequence
 * reaches the terminal and no cell grows when lib/out writes it (the
 * terminal rule leaves text it escaped as it is).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lbt/esc.h"
#include "lbt/offenders_report.h"
#include "lbt/report.h"
#include "lbt/timeparse.h"
#include "lbt/triage.h"

#define LINE 512
#define NFRONTS 2          /* frontends shown */
#define NAME_MAX_SHOWN 32  /* of a frontend or load balancer name */

/* The writer's state: where, how wide, bold or not. */
struct scr {
	const lbt_triage *t;
	FILE *fp;
	int width, color;
};

/* The byte offset after the first `chars` characters of the UTF-8 e[0..n),
 * not beyond `room` bytes. */
static size_t char_end(const char *e, size_t n, size_t chars, size_t room)
{
	size_t k = 0;

	for (; k < n && chars > 0; chars--) {
		size_t c = 1;

		while (k + c < n && ((unsigned char)e[k + c] & 0xC0) == 0x80)
			c++;
		if (k + c > room)
			break;
		k += c;
	}
	return k;
}

/* s escaped for a terminal (esc.h), cut to `max` characters with "..." at
 * the end when longer.  @return buf */
static const char *safe(const char *s, size_t max, char *buf, size_t size)
{
	char e[1024];
	size_t n = lbt_esc(e, sizeof e, s, strlen(s), LBT_ESC_TERM), k;

	if (n >= sizeof e)
		n = strlen(e);            /* cut: longer than any cell anyway */
	k = char_end(e, n, max, size - 1);
	if (k < n && max > 3 && size > 4) {
		k = char_end(e, n, max - 3, size - 4);
		memcpy(buf, e, k);
		memcpy(buf + k, "...", 3);
		k += 3;
	} else {
		memcpy(buf, e, k);
	}
	buf[k] = '\0';
	return buf;
}

/* The words shown in red on colour: what the operator must see first. */
#define MARKS "ANOMALY ONGOING FULL"

/* A paragraph from a printf format, wrapped at the width, `first` and
 * `rest` before its lines.  @return 0, or -1 when writing failed */
static int para(struct scr *s, const char *first, const char *rest, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int para(struct scr *s, const char *first, const char *rest, const char *fmt, ...)
{
	char b[LINE * 2];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b, sizeof b, fmt, ap);
	va_end(ap);
	return lbt_out_paragraph_marked(s->fp, b, s->width, first, rest, MARKS, s->color);
}

/* One line, bold on colour when `bold`.  @return 0 or -1 */
static int line(struct scr *s, int bold, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int line(struct scr *s, int bold, const char *fmt, ...)
{
	char b[LINE];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b, sizeof b, fmt, ap);
	va_end(ap);
	return lbt_out_line(s->fp, b, bold && s->color);
}

/* A rate in at most 6 characters: "1.26", "103.1", "2100", "12.3k". */
static const char *rate_txt(double v, char *buf, size_t size)
{
	if (v < 10)
		snprintf(buf, size, "%.2f", v);
	else if (v < 1000)
		snprintf(buf, size, "%.1f", v);
	else if (v < 100000)
		snprintf(buf, size, "%.0f", v);
	else
		snprintf(buf, size, "%.1fk", v / 1000);
	return buf;
}

/* num as a per cent of den, "0.0" when den is 0. */
static double pct(uint64_t num, uint64_t den)
{
	return den > 0 ? 100.0 * (double)num / (double)den : 0.0;
}

/* "HH:MM:SS" on the UTC day of now (or of the latest request, when later),
 * "MM-DD HH:MM:SS" on another day: the times at 00:11 stay short. */
const char *lbt_triage_clock(const lbt_triage *t, int64_t us, char *buf, size_t size)
{
	const lbt_triage_summary *m = lbt_triage_summary_get(t);
	char iso[48], today[48];

	lbt_time_format_s(m->now_us > m->last_us ? m->now_us : m->last_us,
	    today, sizeof today);
	lbt_time_format_s(us - us % 1000000, iso, sizeof iso);
	if (strlen(iso) < 19)
		snprintf(buf, size, "%s", iso);
	else if (strncmp(iso, today, 10) == 0)
		snprintf(buf, size, "%.8s", iso + 11);
	else
		snprintf(buf, size, "%.5s %.8s", iso + 5, iso + 11);
	return buf;
}

/* A clock time of the data (lbt_triage_clock). */
static const char *clk(const struct scr *s, int64_t us, char *buf, size_t size)
{
	return lbt_triage_clock(s->t, us, buf, size);
}

/* "lb1/fe_http", "fe_http", "-": the group's name, safe and short. */
static const char *front_name(const lbt_tarpit_group *g, char *buf, size_t size)
{
	char a[NAME_MAX_SHOWN + 1], b[NAME_MAX_SHOWN + 1];

	safe(g->lb, NAME_MAX_SHOWN, a, sizeof a);
	safe(g->frontend[0] ? g->frontend : "-", NAME_MAX_SHOWN, b, sizeof b);
	snprintf(buf, size, "%s%s%s", a, a[0] ? "/" : "", b);
	return buf;
}

/* The first line: the span of the data, its size, and now when given. */
static int header(struct scr *s)
{
	const lbt_triage_summary *m = lbt_triage_summary_get(s->t);
	char a[48], b[48], n[48];

	if (m->requests == 0 && m->records > 0)
		return line(s, 0, "lbt-triage: none of the %llu records has a time",
		    (unsigned long long)m->records);
	if (m->requests == 0)
		return line(s, 0, "lbt-triage: no records in %llu lines", (unsigned long long)m->lines);
	lbt_time_format_s(m->first_us - m->first_us % 1000000, a, sizeof a);
	lbt_time_format_s(m->last_us - m->last_us % 1000000, b, sizeof b);
	if (m->lines > 0)
		snprintf(n, sizeof n, "%llu lines, ", (unsigned long long)m->lines);
	if (para(s, "", "  ", "lbt-triage: %.10s %.8s to %.*s%s%.8s UTC, %s%llu requests", a, a + 11,
	    strncmp(a, b, 10) ? 5 : 0, b + 5, strncmp(a, b, 10) ? " " : "", b + 11,
	    m->lines > 0 ? n : "",
	    (unsigned long long)m->requests) < 0)
		return -1;
	if (m->now_us == m->last_us)
		return 0;
	return line(s, 0, "now %s (--now): the data ends %.0f s %s", clk(s, m->now_us, n,
	    sizeof n), (double)(m->now_us > m->last_us ? m->now_us - m->last_us :
	    m->last_us - m->now_us) / 1e6, m->now_us > m->last_us ? "before" : "after");
}

/* Append a printf-style part to buf[0..size) at *len, never past the end. */
static void add(char *buf, size_t size, size_t *len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void add(char *buf, size_t size, size_t *len, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*len + 1 >= size)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *len, size - *len, fmt, ap);
	va_end(ap);
	*len = n < 0 ? *len : *len + (size_t)n < size ? *len + (size_t)n : size - 1;
}

/* The frontends' part of the verdict: full ones, a heavy tarpit. */
static void front_parts(const struct scr *s, char *buf, size_t size, size_t *len)
{
	const lbt_triage_front *full = NULL, *heavy = NULL;
	size_t nfull = 0, now = 0;
	char nm[80];

	for (size_t i = 0; i < lbt_triage_nfronts(s->t); i++) {
		const lbt_triage_front *f = lbt_triage_front_at(s->t, i);

		nfull += f->g->full_buckets > 0;
		now += f->full_now;
		full = full == NULL && f->g->full_buckets > 0 ? f : full;
		heavy = heavy == NULL && f->tarpit_heavy ? f : heavy;
	}
	if (full != NULL)
		add(buf, size, len, "%s%s %s %s; ", front_name(full->g, nm, sizeof nm),
		    nfull > 1 ? " and others" : "", nfull > 1 ? "were" : now ? "is" : "was",
		    now ? "FULL now" : "full");
	if (heavy != NULL)
		add(buf, size, len, "the tarpit held %.0f%% of %s's slot time; ",
		    heavy->tarpit_slot_pct, front_name(heavy->g, nm, sizeof nm));
}

/* What the anomaly is made of, into buf: "requests rose ...; 1 hot key; ...". */
static const char *anomaly_parts(const struct scr *s, char *buf, size_t size)
{
	const lbt_triage *t = s->t;
	const lbt_triage_summary *m = lbt_triage_summary_get(t);
	char r1[16], r2[16], at[24], st[8];
	size_t len = 0, ne = lbt_triage_nerrors(t);

	buf[0] = '\0';
	if (m->total.found)
		add(buf, size, &len, "requests rose %s -> %s req/s at %s; ", rate_txt(
		    m->total.from_rate, r1, sizeof r1), rate_txt(m->total.to_rate, r2, sizeof r2),
		    clk(s, m->total.start_us, at, sizeof at));
	if (lbt_triage_nkeys(t) > 0)
		add(buf, size, &len, "%zu hot key%s; ", lbt_triage_nkeys(t),
		    lbt_triage_nkeys(t) == 1 ? "" : "s");
	for (size_t i = 0; i < ne; i++)
		add(buf, size, &len, "%s%s", safe(lbt_triage_error_at(t, i)->key, 4, st, sizeof st),
		    i + 1 < ne ? ", " : " answers rose; ");
	front_parts(s, buf, size, &len);
	if (m->to_deny > 0)
		add(buf, size, &len, "%zu source%s to deny; ", m->to_deny,
		    m->to_deny == 1 ? "" : "s");
	if (m->to_limit > 0)
		add(buf, size, &len, "%zu customer%s to rate-limit; ", m->to_limit,
		    m->to_limit == 1 ? "" : "s");
	if (m->to_time > 0)
		add(buf, size, &len, "slow headers from %zu source%s; ", m->to_time,
		    m->to_time == 1 ? "" : "s");
	if (m->surge)
		add(buf, size, &len, "every source rose with the total; ");
	if (len >= 2)
		buf[len - 2] = '\0';
	return buf;
}

/* The verdict, bold. */
static int verdict(struct scr *s)
{
	const lbt_triage_summary *m = lbt_triage_summary_get(s->t);
	char parts[LINE], a[24], b[24];
	int rc;

	if (m->verdict == LBT_TRIAGE_CALM)
		rc = para(s, "", "  ", "calm: no rise of the requests or of a key, no full "
		    "frontend, no source to deny");
	else if (m->verdict == LBT_TRIAGE_UNREAD)
		rc = para(s, "", "  ", "NOT KNOWN: %llu of the %llu lines could not be read; in "
		    "the rest no rise of the requests or of a key, no full frontend, no source "
		    "to deny", (unsigned long long)m->unread, (unsigned long long)m->lines);
	else if (m->verdict == LBT_TRIAGE_ONGOING)
		rc = para(s, "", "  ", "ANOMALY since %s, ONGOING: %s", clk(s, m->since_us, a,
		    sizeof a), anomaly_parts(s, parts, sizeof parts));
	else
		rc = para(s, "", "  ", "ANOMALY %s to %s, over: %s", clk(s, m->since_us, a,
		    sizeof a), clk(s, m->until_us, b, sizeof b), anomaly_parts(s, parts,
		    sizeof parts));
	return rc < 0 || lbt_out_line(s->fp, "", 0) < 0 ? -1 : 0;
}

/* A table writer on the screen.  NULL when out of memory. */
static lbt_out *table(struct scr *s, const lbt_out_col *cols, int n)
{
	lbt_report_opts p = { LBT_OUT_TABLE, s->color, 1, 0, s->width, 0, NULL };

	return lbt_report_writer(s->fp, &p, cols, n);
}

/* The hot keys table, or a line that says there is none. */
static int hot_keys(struct scr *s)
{
	static const lbt_out_col cols[] = { { "hot key", LBT_COL_STR }, { "from/s", LBT_COL_NUM },
		{ "to/s", LBT_COL_NUM }, { "peak/s", LBT_COL_NUM }, { "since", LBT_COL_STR },
		{ "until", LBT_COL_STR } };
	const lbt_triage *t = s->t;
	char k[80], r[16], tm[24], x[24];
	size_t tw = 0, kw;
	lbt_out *o;

	if (lbt_triage_nkeys(t) == 0) {
		const lbt_rate_stats *st = lbt_rate_stats_get(lbt_triage_input_get(t)->keys);

		return para(s, "", "  ", st->counted == 0 ? "hot keys: no request had a key (a UUID "
		    "in the path by default; --key-regex)" : "hot keys: none (no key rose to "
		    "%gx its baseline and %g req/s)", lbt_triage_opts_get(t)->cp.factor, lbt_triage_opts_get(t)->cp.floor) < 0 ||
		    lbt_out_line(s->fp, "", 0) < 0 ? -1 : 0;
	}
	for (size_t i = 0; i < lbt_triage_nkeys(t); i++) {     /* the widest times */
		const lbt_triage_key *e = lbt_triage_key_at(t, i);
		size_t a = strlen(clk(s, e->rise.start_us, tm, sizeof tm));
		size_t b = e->rise.ongoing ? 5 : strlen(clk(s, e->rise.end_us, x, sizeof x));

		tw = a + b > tw ? a + b : tw;
	}
	kw = (size_t)s->width > 28 + tw + 8 ? (size_t)s->width - 28 - tw : 8;
	if ((o = table(s, cols, 6)) == NULL)
		return -1;
	for (size_t i = 0; i < lbt_triage_nkeys(t); i++) {
		const lbt_triage_key *e = lbt_triage_key_at(t, i);

		lbt_out_cstr(o, safe(e->key, kw, k, sizeof k));
		lbt_out_cstr(o, e->rise.is_new ? "new" : rate_txt(e->rise.from_rate, r, sizeof r));
		lbt_out_cstr(o, rate_txt(e->rise.to_rate, r, sizeof r));
		lbt_out_cstr(o, rate_txt(e->rise.peak_rate, r, sizeof r));
		lbt_out_cstr(o, clk(s, e->rise.start_us, tm, sizeof tm));
		lbt_out_cstr(o, e->rise.ongoing ? "now" : clk(s, e->rise.end_us, x, sizeof x));
	}
	return lbt_out_free(o) < 0 || lbt_out_line(s->fp, "", 0) < 0 ? -1 : 0;
}

/* The judge's ratio of a source in at most 6 characters, "new" (nothing
 * in the baseline window), or "-" without a baseline. */
static const char *ratio_txt(const lbt_triage *t, const lbt_triage_source *e, char *buf,
    size_t size)
{
	if (!lbt_triage_summary_get(t)->baseline)
		return "-";
	if (!e->prior)
		return "new";
	if (!(e->ratio > 0))
		return "-";
	return rate_txt(e->ratio, buf, size);
}

/* The remedy column: the deny rule's cover of a flood, "limit" for a
 * customer, "-" else. */
static const char *remedy_txt(const lbt_triage_source *e)
{
	static const char *const cover[] = { "-", "part", "deny" };

	if (e->cause == LBT_TRIAGE_CAUSE_CUSTOMER)
		return "limit";
	if (e->cause == LBT_TRIAGE_CAUSE_SLOW)
		return "slow";
	if (e->cause == LBT_TRIAGE_CAUSE_FLOOD && e->in_rule == LBT_IPSET_NONE)
		return "left";
	return cover[e->in_rule];
}

/* The sources table and what its shares are of. */
static int sources(struct scr *s)
{
	static const lbt_out_col cols[] = { { "source", LBT_COL_STR },
		{ "requests", LBT_COL_NUM }, { "share", LBT_COL_NUM }, { "ratio", LBT_COL_NUM },
		{ "peak/s", LBT_COL_NUM }, { "last", LBT_COL_STR }, { "rule", LBT_COL_STR } };
	const lbt_triage *t = s->t;
	const lbt_triage_summary *m = lbt_triage_summary_get(t);
	char r[16], tm[24], a[24], b[24];
	lbt_out *o;

	if (lbt_triage_nsources(t) == 0)
		return line(s, 0, "sources: no request had a client address") < 0 ? -1 : 0;
	if ((o = table(s, cols, 7)) == NULL)
		return -1;
	for (size_t i = 0; i < lbt_triage_nsources(t); i++) {
		const lbt_triage_source *e = lbt_triage_source_at(t, i);

		lbt_out_cstr(o, e->row->source);
		lbt_out_int(o, (int64_t)e->row->requests);
		lbt_out_double(o, e->share, 1);
		lbt_out_cstr(o, ratio_txt(t, e, r, sizeof r));
		lbt_out_int(o, e->row->peak_count);
		lbt_out_cstr(o, clk(s, e->row->last_us, tm, sizeof tm));
		lbt_out_cstr(o, remedy_txt(e));
	}
	if (lbt_out_free(o) < 0)
		return -1;
	if (m->baseline)
		return para(s, "", "  ", "%zu sources; share of the requests since the jump at %s; "
		    "ratio of a source's rise to its own rate before it (from %s)", m->sources,
		    clk(s, m->base_to_us, a, sizeof a), clk(s, m->base_from_us, b, sizeof b)) < 0 ||
		    lbt_out_line(s->fp, "", 0) < 0 ? -1 : 0;
	return para(s, "", "  ", "%zu sources; share of all requests (no jump of the total "
	    "rate: no baseline, no ratio)", m->sources) < 0 || lbt_out_line(s->fp, "", 0) < 0 ?
	    -1 : 0;
}

/* "haproxy.cfg:32" out of "dir/haproxy.cfg:32 (frontend fe)". */
static const char *cfg_where(const char *from, char *buf, size_t size)
{
	size_t n = strcspn(from, " ");
	const char *p = from, *slash;

	while ((slash = memchr(p, '/', n - (size_t)(p - from))) != NULL)
		p = slash + 1;
	snprintf(buf, size, "%.*s", (int)(n - (size_t)(p - from)), p);
	return safe(buf, 40, buf, size);
}

/* The lines of one frontend's pressure. */
static int front(struct scr *s, const lbt_triage_front *f)
{
	const lbt_tarpit_group *g = f->g;
	const lbt_occ_stats *os = lbt_occ_stats_get(g->occ);
	char nm[80], w[64], a[24], b[24];
	int rc;

	if (g->maxconn > 0)
		rc = line(s, 1, "pressure on %s: maxconn %d (%s)", front_name(g, nm, sizeof nm),
		    g->maxconn, cfg_where(g->maxconn_from, w, sizeof w));
	else
		rc = line(s, 1, "pressure on %s: maxconn unknown (--haproxy-cfg, --maxconn)",
		    front_name(g, nm, sizeof nm));
	if (rc == 0 && g->pt > 0)
		rc = para(s, "  ", "    ", "tarpit held %.3f s (sum of Tw) over %llu requests, "
		    "%.1f%% of the slot time", f->held_s, (unsigned long long)g->pt,
		    f->tarpit_slot_pct);
	else if (rc == 0)
		rc = line(s, 0, "  no request was tarpitted");
	if (rc == 0 && os->intervals > 0)
		rc = para(s, "  ", "    ", "peak %d slot%s at %s (%d tarpitted)%s%s", os->peak,
		    os->peak == 1 ? "" : "s", clk(s, os->peak_at_us, a, sizeof a), os->peak_tarpit,
		    os->peak_tarpit > 0 ? "; if denied at once: peak " : "",
		    os->peak_tarpit > 0 ? (snprintf(w, sizeof w, "%d", os->peak_nt), w) : "");
	if (rc == 0 && g->maxconn > 0 && g->full_buckets > 0)
		rc = para(s, "  ", "    ", "%s: fc at maxconn from %s to %s (%llu bucket%s of "
		    "%g s)%s", f->full_now ? "FULL NOW" : "full", clk(s, f->full_from_us, a,
		    sizeof a), clk(s, f->full_to_us, b, sizeof b), (unsigned long long)g->full_buckets,
		    g->full_buckets == 1 ? "" : "s", (double)lbt_tarpit_opts_get(lbt_triage_input_get(s->t)->tarpit)->step_us
		    / 1e6, f->full_now ? "" : ", not now");
	else if (rc == 0 && g->fc_n > 0)
		rc = para(s, "  ", "    ", "never full: logged fc at most %d", g->fc_max);
	return rc;
}

/* True when the logs of group f say something of its pressure: a
 * tarpitted request, a logged fc, a known maxconn (NGINX logs do not). */
static int has_pressure(const lbt_triage_front *f)
{
	return f->g->pt > 0 || f->g->fc_n > 0 || f->g->maxconn > 0;
}

/* The pressure of the first frontends that have any. */
static int pressure(struct scr *s)
{
	const lbt_triage *t = s->t;
	size_t n = 0, shown = 0;

	for (size_t i = 0; i < lbt_triage_nfronts(t); i++) {
		const lbt_triage_front *f = lbt_triage_front_at(t, i);

		if (!has_pressure(f))
			continue;
		if (n++ < NFRONTS && front(s, f) < 0)
			return -1;
		shown += n <= NFRONTS;
	}
	if (n == 0 && lbt_triage_nfronts(t) > 0)
		return para(s, "", "  ", "pressure: not in these logs (no tarpitted request, no "
		    "logged fc, no maxconn)") < 0 || lbt_out_line(s->fp, "", 0) < 0 ? -1 : 0;
	if (n > shown && line(s, 0, "  and %zu more frontends (lbt-tarpit)", n - shown) < 0)
		return -1;
	return n > 0 ? lbt_out_line(s->fp, "", 0) : 0;
}

/* The share of 429, 503, 5xx and -1 answers, of all and of the legitimate. */
static int damage(struct scr *s)
{
	const lbt_triage_damage *d = lbt_triage_damage_get(s->t);
	int rc;

	if (d->requests == 0)
		return para(s, "", "  ", "damage: no HTTP status in these logs") < 0 ||
		    lbt_out_line(s->fp, "", 0) < 0 ? -1 : 0;
	rc = para(s, "", "  ", "damage: of %llu answers, %.1f%% 429, %.1f%% 503, %.1f%% 5xx, "
	    "%.1f%% -1", (unsigned long long)d->requests, pct(d->s429, d->requests),
	    pct(d->s503, d->requests), pct(d->s5xx, d->requests), pct(d->snone, d->requests));
	if (rc == 0 && lbt_triage_summary_get(s->t)->offenders > 0)
		rc = para(s, "  ", "    ", "to the %llu legitimate sources (%llu answers): %.1f%% "
		    "429, %.1f%% 5xx, %.1f%% -1", (unsigned long long)d->legit_sources,
		    (unsigned long long)d->legit_requests, pct(d->legit_429, d->legit_requests),
		    pct(d->legit_5xx, d->legit_requests), pct(d->legit_none, d->legit_requests));
	for (size_t i = 0; rc == 0 && i < lbt_triage_nerrors(s->t); i++) {
		const lbt_triage_key *e = lbt_triage_error_at(s->t, i);
		char st[8], r1[16], r2[16], a[24], b[24];

		rc = para(s, "  ", "    ", "%s answers rose %s -> %s a second from %s %s %s",
		    safe(e->key, 4, st, sizeof st), rate_txt(e->rise.from_rate, r1, sizeof r1),
		    rate_txt(e->rise.to_rate, r2, sizeof r2), clk(s, e->rise.start_us, a, sizeof a),
		    e->rise.ongoing ? "to" : "to", e->rise.ongoing ? "now" : clk(s, e->rise.end_us,
		    b, sizeof b));
	}
	return rc < 0 || lbt_out_line(s->fp, "", 0) < 0 ? -1 : 0;
}

/* The command, four spaces in, wrapped at spaces outside quotes with " \". */
static int command(struct scr *s, const char *cmd)
{
	int col = 4, quoted = 0;

	fputs("    ", s->fp);
	for (const char *p = cmd; *p; p++) {
		size_t w = strcspn(p + 1, " ");

		quoted ^= *p == '\'';
		if (*p == ' ' && !quoted && col + 1 + (int)w + 2 > s->width) {
			fputs(" \\\n      ", s->fp);
			col = 6;
			continue;
		}
		putc(*p, s->fp);
		col++;
	}
	putc('\n', s->fp);
	return ferror(s->fp) ? -1 : 0;
}

/*
 * Whose address a source is, when some came from X-Forwarded-For: any
 * client can write the header, so without --trusted-proxies the sources
 * are the connecting addresses (lbt-triage reads them so); with it, the
 * header's address counts where a trusted proxy vouched for it, and a
 * src rule then needs the LB to take its source from the header.
 */
static int trust(struct scr *s)
{
	const lbt_triage_summary *m = lbt_triage_summary_get(s->t);
	int rc = 0;

	if (lbt_triage_opts_get(s->t)->conn_only && m->header_aside > 0)
		rc = para(s, "", "  ", "warning: %llu requests carried an X-Forwarded-For address, "
		    "which any client can forge: without --trusted-proxies the sources and the "
		    "rule are the connecting addresses", (unsigned long long)m->header_aside);
	if (rc == 0 && m->from_header > 0)
		rc = para(s, "", "  ", "warning: %llu requests have a client address from "
		    "X-Forwarded-For that nobody vouches for: it may be forged, and no rule names "
		    "it (--trusted-proxies)", (unsigned long long)m->from_header);
	if (rc == 0 && m->from_trusted > 0)
		rc = para(s, "", "  ", "note: %llu requests have their client from X-Forwarded-For "
		    "(--trusted-proxies): a src rule matches the connecting address, so the LB "
		    "must take its source from the header (HAProxy http-request set-src, NGINX "
		    "set_real_ip_from)", (unsigned long long)m->from_trusted);
	for (size_t i = 0; rc == 0 && i < lbt_triage_nsources(s->t); i++) {
		const lbt_triage_source *e = lbt_triage_source_at(s->t, i);
		char via[LBT_ADDR_STRLEN + 2];

		if (e->offender && e->row->via.family != 0)
			rc = para(s, "  ", "    ", "%s came through %s", e->row->source,
			    lbt_offender_via_str(e->row, via, sizeof via));
	}
	if (rc == 0 && (m->from_trusted > 0 || m->from_header > 0 ||
	    (lbt_triage_opts_get(s->t)->conn_only && m->header_aside > 0)))
		rc = lbt_out_line(s->fp, "", 0);
	return rc < 0 ? -1 : 0;
}

/* What the rule denies, and its collateral, or why there is none. */
static int rule_head(struct scr *s, const lbt_deny *d)
{
	const lbt_deny_totals *tt = lbt_deny_totals_get(d);
	const char *what = lbt_triage_opts_get(s->t)->dialect == LBT_DENY_NGINX ?
	    "deny (403)" : "deny at once (429)";
	char coll[200] = "no collateral", net[LBT_ADDR_STRLEN];

	if (tt->collateral_n > 0) {
		const lbt_deny_collateral *c = lbt_deny_collateral_at(d, 0);

		snprintf(coll, sizeof coll, "COLLATERAL: %lld requests of %zu other source%s, "
		    "e.g. %s (in %s)", (long long)(tt->collateral + tt->collateral_part),
		    tt->collateral_n, tt->collateral_n == 1 ? "" : "s",
		    lbt_addr_format_net(&c->net.net, c->net.bits, net, sizeof net), c->by);
	}
	if (lbt_deny_nrules(d) == 0 && line(s, 0, "rule: none: every source to deny was left "
	    "out") < 0)
		return -1;
	if (lbt_deny_nrules(d) > 0 && para(s, "", "  ", "rule: %s for %zu network%s, %lld "
	    "requests (%.1f%%); %s", what, lbt_deny_nrules(d), lbt_deny_nrules(d) == 1 ? "" : "s",
	    (long long)tt->denied, tt->input_requests > 0 ? 100.0 * (double)tt->denied /
	    tt->input_requests : 0, coll) < 0)
		return -1;
	for (size_t i = 0; i < lbt_deny_nleft(d); i++) {
		const lbt_deny_left *l = lbt_deny_left_at(d, i);

		if (para(s, "  ", "    ", "left out %s: %s", lbt_addr_format_net(&l->net.net,
		    l->net.bits, net, sizeof net), l->why) < 0)
			return -1;
	}
	return 0;
}

/* Configuration lines, one a line, each indented as the rule's lines. */
static int indented(struct scr *s, const char *text)
{
	while (*text) {
		size_t n = strcspn(text, "\n");

		if (fprintf(s->fp, "    %.*s\n", (int)n, text) < 0)
			return -1;
		text += n + (text[n] == '\n');
	}
	return 0;
}

/* The rate limit of the customers: each one's numbers, then its lines. */
static int limit(struct scr *s)
{
	const lbt_triage *t = s->t;

	if (lbt_triage_summary_get(t)->to_limit == 0)
		return 0;
	for (size_t i = 0; i < lbt_triage_nsources(t); i++) {
		const lbt_triage_source *e = lbt_triage_source_at(t, i);

		if (e->cause != LBT_TRIAGE_CAUSE_CUSTOMER)
			continue;
		if (para(s, "", "  ", "rule: rate limit: %s is a customer (%.2f req/s before the "
		    "jump) at %.1fx it, %.0f%% of its answers 429 "
		    "or 5xx (a client that re-sends repeats them): at most %lld requests a 10 s "
		    "window (%dx its baseline), 429 with Retry-After %d, would have stopped %llu "
		    "requests", e->row->source, e->base_rate, e->ratio, e->resent_pct,
		    (long long)e->limit, LBT_TRIAGE_LIMIT_K, LBT_TRIAGE_RETRY_AFTER,
		    (unsigned long long)e->stopped) < 0)
			return -1;
	}
	if (lbt_triage_opts_get(t)->dialect != LBT_DENY_HAPROXY)
		return para(s, "", "  ", "(the rate limit is written for HAProxy only)");
	return indented(s, lbt_triage_limit_lines(t));
}

/* The aggregate prefixes: what each holds, the legitimate traffic inside. */
static int prefixes(struct scr *s)
{
	const lbt_triage *t = s->t;
	char net[LBT_ADDR_STRLEN], k[40];

	for (size_t i = 0; i < lbt_triage_nprefixes(t); i++) {
		const lbt_triage_prefix *p = lbt_triage_prefix_at(t, i);

		if (para(s, "", "  ", "aggregate: %s holds %zu new sources on %s, %.1f%% of the "
		    "requests since the jump (none with %g%% alone); inside it %zu prior source%s "
		    "sent %llu requests, which the prefix denies too",
		    lbt_addr_format_net(&p->net.net, p->net.bits, net, sizeof net), p->sources,
		    safe(p->key, 36, k, sizeof k), p->share, lbt_triage_opts_get(t)->min_share,
		    p->legit_sources, p->legit_sources == 1 ? "" : "s",
		    (unsigned long long)p->legit_requests) < 0)
			return -1;
	}
	return 0;
}

/* The sources of slow headers, and the timeout that frees their slots. */
static int slow(struct scr *s)
{
	const lbt_triage *t = s->t;

	for (size_t i = 0; i < lbt_triage_nsources(t); i++) {
		const lbt_triage_source *e = lbt_triage_source_at(t, i);

		if (e->cause == LBT_TRIAGE_CAUSE_SLOW && para(s, "", "  ", "rule: timeout: %s sent "
		    "%llu of its %llu requests without whole headers in time (408 or cR), each "
		    "holding a slot until a timeout: timeout http-request %ds in its frontend "
		    "closes them sooner", e->row->source, (unsigned long long)e->row->slow,
		    (unsigned long long)e->row->requests, LBT_TRIAGE_TIMEOUT_S) < 0)
			return -1;
	}
	return indented(s, lbt_triage_timeout_line(t));
}

/* The rule section: none and why, or its lines and the command. */
static int rule(struct scr *s)
{
	const lbt_triage *t = s->t;
	const lbt_deny *d = lbt_triage_rule(t);
	const lbt_triage_summary *m = lbt_triage_summary_get(t);

	if (m->surge)
		return para(s, "", "  ", "rule: none: every source rose with the total (%.1fx): "
		    "this is demand, not an attack; capacity is the question (maxconn, backends)",
		    m->total_ratio);
	if (limit(s) < 0 || prefixes(s) < 0 || slow(s) < 0)
		return -1;
	if (d == NULL && (m->to_limit > 0 || m->to_time > 0))
		return 0;

	if (d == NULL && !lbt_triage_summary_get(t)->baseline)
		return para(s, "", "  ", "rule: none (the total rate did not jump: no source has a "
		    "baseline to compare with; lbt-offenders --baseline FROM..TO)");
	if (d == NULL)
		return para(s, "", "  ", "rule: none (no source has %g%% of the requests since the "
		    "jump and is new or %gx its baseline)", lbt_triage_opts_get(t)->min_share, lbt_triage_opts_get(t)->min_ratio);
	if (rule_head(s, d) < 0)
		return -1;
	if (lbt_deny_nrules(d) == 0)
		return 0;
	if (fputs(lbt_triage_rule_lines(t), s->fp) < 0)
		return -1;
	if (lbt_triage_rule_file(t) != NULL) {
		char list[LINE * 4];

		snprintf(list, sizeof list, "%s", lbt_triage_rule_list(t));
		for (char *p = list; *p; p++)
			*p = *p == '\n' ? ' ' : *p;
		if (para(s, "", "  ", "%s, one network a line: %s", lbt_triage_rule_file(t), list) < 0)
			return -1;
	}
	if (lbt_triage_place(t) != NULL && para(s, "", "  ", "insert %s",
	    lbt_triage_place(t)) < 0)
		return -1;
	return line(s, 0, "written by:") < 0 ? -1 : command(s, lbt_triage_command(t));
}

/* The screen.  @return 0, or -1 with err when writing failed */
int lbt_triage_write(const lbt_triage *t, FILE *fp, const lbt_triage_print *p, lbt_err *err)
{
	struct scr s = { t, fp, p && p->width > 0 ? p->width : 80,
		p ? p->color : 0 };
	int rc;

	if (!lbt_triage_built(t))
		return lbt_err_set(err, "lbt_triage_write before lbt_triage_build");
	rc = header(&s);
	if (rc == 0 && lbt_triage_summary_get(t)->verdict != LBT_TRIAGE_NO_RECORDS)
		rc = verdict(&s) < 0 || hot_keys(&s) < 0 || sources(&s) < 0 || trust(&s) < 0 ||
		    pressure(&s) < 0 ||
		    damage(&s) < 0 || rule(&s) < 0 ? -1 : 0;
	if (rc < 0 || fflush(fp) != 0 || ferror(fp))
		return lbt_err_set(err, "error writing the screen");
	return 0;
}
