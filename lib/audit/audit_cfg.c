/*
 * audit_cfg.c - the findings a haproxy.cfg gives alone (see audit.h):
 * tarpit as the rate-limit action and what it holds, no `timeout
 * http-request`, a log format that lacks what the analyses read; and the
 * numbers they read (hold time, stick-table periods).  Times, maxconn and
 * lines of a proxy are audit_proxy.c's, shared with audit_logs.c.
 *
 * HAProxy 2.6's behaviour, as documented (configuration.txt) and as
 * measured with haproxy 2.6.12 on tests/data/audit/tarpit-*.cfg
 * (tests/cli/t9003-audit-live.sh):
 *   - a tarpitted request keeps its connection, hence its maxconn slot,
 *     for `timeout tarpit`; without one, "the backend's connection timeout"
 *     is used, which a listen or backend section has (its own or its
 *     defaults'), but a frontend does not: it has no `timeout connect`, so
 *     its tarpit holds nothing and answers 500 at once;
 *   - a stick counter (sc_http_req_rate) counts the tarpitted requests too,
 *     so a client that stays above the limit is tarpitted on every request;
 *   - without `timeout http-request` the request headers wait under
 *     `timeout client` only, an inactivity timeout re-armed by each chunk.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "audit_int.h"
#include "lbt/format.h"

/* ---- numbers ------------------------------------------------------------- */

/* The value in ms of a `timeout X VALUE` directive d (NULL: -1). */
static int64_t timeout_ms(const lbt_hacfg_dir *d)
{
	return d != NULL && d->nword > 2 ? lbt_auditi_time_ms(d->word[2]) : -1;
}

/* How long a tarpit in p holds (see audit_int.h).  @return ms. */
int64_t lbt_auditi_tarpit_hold(const struct au_proxy *p, const lbt_hacfg_dir **from)
{
	const lbt_hacfg_dir *d = lbt_auditi_setting(p, "timeout", "tarpit");
	int64_t v = timeout_ms(d);

	*from = NULL;
	if (v <= 0 && p->be) {
		d = lbt_auditi_setting(p, "timeout", "connect");
		v = timeout_ms(d);
	}
	if (v <= 0)
		return 0;
	*from = d;
	return v;
}

/* The period in ms counter `ctr` is stored with in the stick-table line d
 * ("store http_req_rate(1s),conn_cur"), or -1. */
static int64_t store_period(const lbt_hacfg_dir *d, const char *ctr)
{
	size_t n = strlen(ctr);

	for (int i = 1; i + 1 < d->nword; i++) {
		const char *s;

		if (strcmp(d->word[i], "store") != 0)
			continue;
		for (s = d->word[i + 1]; (s = strstr(s, ctr)) != NULL; s += n) {
			char t[32];
			size_t k;

			if ((s != d->word[i + 1] && s[-1] != ',') || s[n] != '(')
				continue;
			k = strcspn(s + n + 1, ")");
			if (k >= sizeof t)
				return -1;
			memcpy(t, s + n + 1, k);
			t[k] = '\0';
			return lbt_auditi_time_ms(t);
		}
	}
	return -1;
}

/* The name of the table counter c of p reads ("" when p's own). */
static const char *table_of(const struct au_proxy *p, const struct au_pat *c)
{
	if (c->table[0])
		return c->table;
	for (size_t i = 0; c->sc >= 0 && i < p->rules.nrule; i++)
		if (p->rules.rule[i].track == c->sc)
			return p->rules.rule[i].track_table ? p->rules.rule[i].track_table : "";
	return "";
}

/* The period of counter c in ms (see audit_int.h), or -1. */
int64_t lbt_auditi_period(const lbt_audit *a, const struct au_proxy *p,
    const struct au_pat *c)
{
	const char *name = table_of(p, c);
	const struct au_proxy *t = name[0] ? lbt_auditi_proxy(a, name, strlen(name)) : p;

	for (size_t i = 0; t != NULL && i < t->s->ndir; i++)
		if (strcmp(t->s->dir[i].word[0], "stick-table") == 0)
			return store_period(&t->s->dir[i], c->counter);
	return -1;
}

/* ---- tarpit -------------------------------------------------------------- */

/* True for a counter that counts requests or connections (its rate is a
 * request rate for a client opening one connection per request). */
static int request_counter(const char *c)
{
	return strcmp(c, "http_req_rate") == 0 || strcmp(c, "sess_rate") == 0 ||
	    strcmp(c, "conn_rate") == 0;
}

/* Requests per period at which counter c starts limiting, or -1. */
static int64_t trigger(const struct au_pat *c)
{
	if (!request_counter(c->counter))
		return -1;
	switch (c->op) {
	case AU_OP_GT:
		return c->value + 1;
	case AU_OP_GE:
	case AU_OP_EQ:
		return c->value;
	default:
		return -1;
	}
}

/* The seconds a client refused by counter c of p should wait: the period
 * the counter is measured over (its rate has decayed by then), at least
 * 1 s; 10 s when the period is unknown. */
static int64_t retry_after_s(const lbt_audit *a, const struct au_proxy *p,
    const struct au_pat *c)
{
	int64_t ms = c != NULL ? lbt_auditi_period(a, p, c) : -1;

	return ms < 0 ? 10 : ms < 1000 ? 1 : (ms + 999) / 1000;
}

/* The `deny deny_status 429 hdr Retry-After N` rule that replaces tarpit
 * rule u (counter c), into buf. */
static const char *deny_line(const lbt_audit *a, const struct au_proxy *p,
    const struct au_rule *u, const struct au_pat *c, char *buf, size_t size)
{
	int w = 0, e = u->cond.cond_word >= 0 ? u->cond.cond_word : u->dir->nword;
	char act[64];

	while (w < u->dir->nword && u->dir->word[w] != u->action)   /* its action word */
		w++;
	snprintf(act, sizeof act, "deny deny_status 429 hdr Retry-After %lld",
	    (long long)retry_after_s(a, p, c));
	return lbt_auditi_line(u->dir, w, e, act, buf, size);
}

/* The tarpit rule u of p that holds nothing: tarpit-no-hold. */
static void tarpit_no_hold(lbt_audit *a, const struct au_proxy *p, const struct au_rule *u)
{
	char change[1024], what[512];

	snprintf(what, sizeof what, "`http-request tarpit` is the rate-limit action of %s, which "
	    "sets no `timeout tarpit` (nor do its defaults)%s", p->s->name,
	    p->be ? " and no `timeout connect`" : "");
	lbt_auditi_add(a, LBT_AUDIT_WARN, "tarpit-no-hold", u->dir->line, p, what,
	    p->be ? "HAProxy 2.6 falls back to `timeout connect`; with neither the tarpit holds "
	    "nothing and answers 500 at once" :
	    "HAProxy 2.6 documents a fallback to the backend's `timeout connect`, but a frontend "
	    "has none: its tarpit holds nothing and answers 500 at once (measured with 2.6.12). "
	    "The limit works as a deny with a server-error status, which clients retry and "
	    "5xx alerts blame on the servers",
	    deny_line(a, p, u, lbt_auditi_rate_counter(u), change, sizeof change));
}

/* The numbers sentence of a tarpit finding into buf; *one the slots of a
 * client just over the limit (-1 unknown). */
static const char *tarpit_numbers(const lbt_audit *a, const struct au_proxy *p,
    const struct au_pat *c, int64_t hold, int32_t mc, char *buf, size_t size, int64_t *one)
{
	int64_t per = lbt_auditi_period(a, p, c), trig = trigger(c);
	char h[32], pd[32];

	*one = -1;
	lbt_auditi_ms_str(hold, h, sizeof h);
	if (per <= 0 || trig < 0) {
		snprintf(buf, size, "every request of a client over the limit is held %s", h);
		return buf;
	}
	*one = (trig * hold + per - 1) / per;
	snprintf(buf, size, "every request of a client over the limit (%lld requests in %s) is "
	    "held %s: a client just over it holds %lld slots", (long long)trig,
	    lbt_auditi_ms_str(per, pd, sizeof pd), h, (long long)*one);
	if (mc > 0 && *one > 0) {
		size_t n = strlen(buf);
		int64_t k = (mc + *one - 1) / *one;

		snprintf(buf + n, size - n, ", %lld such client%s fill%s maxconn %d", (long long)k,
		    k == 1 ? "" : "s", k == 1 ? "s" : "", mc);
	}
	return buf;
}

/* The tarpit rule u of p with counter c: tarpit-rate-limit. */
static void tarpit_rate(lbt_audit *a, const struct au_proxy *p, const struct au_rule *u,
    const struct au_pat *c, int logs)
{
	const lbt_hacfg_dir *from;
	int64_t hold = lbt_auditi_tarpit_hold(p, &from), one, seen = -1;
	uint64_t mline;
	int32_t mc = lbt_auditi_maxconn(a, p, &mline);
	char nums[512], obs[1024] = "", what[2048], change[1024];
	const char *ev_file = NULL;
	uint64_t ev_line = 0;
	int crit;

	if (hold <= 0) {
		tarpit_no_hold(a, p, u);
		return;
	}
	tarpit_numbers(a, p, c, hold, mc, nums, sizeof nums, &one);
	if (logs)
		lbt_auditi_tarpit_seen(a, p, hold, obs, sizeof obs, &seen, &ev_file, &ev_line);
	snprintf(what, sizeof what, "`http-request tarpit` is the rate-limit action of %s "
	    "(`timeout %s` %s, line %llu%s); %s%s%s", p->s->name, from->word[1], from->word[2],
	    (unsigned long long)from->line, strcmp(from->word[1], "connect") == 0 ?
	    ", used as no `timeout tarpit` is set" : "", nums, obs[0] ? "; " : "", obs);
	crit = mc > 0 && ((one > 0 && one >= mc) || (seen > 0 && seen >= mc));
	lbt_auditi_add(a, crit ? LBT_AUDIT_CRIT : LBT_AUDIT_WARN, "tarpit-rate-limit",
	    u->dir->line, p, what, "a tarpitted request keeps its connection, and its maxconn "
	    "slot, for the whole hold, and the stick counter counts the held requests too, so a "
	    "client that stays above the limit is held on every request: rate x hold slots. A "
	    "client that opens a connection per request is not slowed down, it opens more; once "
	    "maxconn is reached every client waits. `deny` answers at once and holds nothing",
	    deny_line(a, p, u, c, change, sizeof change));
	lbt_auditi_evidence(a, ev_file, ev_line);
}

/* ---- 429 without Retry-After --------------------------------------------- */

/* The index of word w in d from `from` on (case-insensitive), or -1. */
static int word_at(const lbt_hacfg_dir *d, int from, const char *w)
{
	for (int i = from; i < d->nword; i++)
		if (strcasecmp(d->word[i], w) == 0)
			return i;
	return -1;
}

/* Does rule u answer 429: `deny`/`tarpit` with `deny_status 429` or
 * `status 429`, `return` with `status 429`? */
static int answers_429(const struct au_rule *u)
{
	const lbt_hacfg_dir *d = u->dir;
	int i;

	if (strcmp(u->action, "deny") != 0 && strcmp(u->action, "tarpit") != 0 &&
	    strcmp(u->action, "return") != 0)
		return 0;
	if ((i = word_at(d, 1, "deny_status")) < 0)
		i = word_at(d, 1, "status");
	return i >= 0 && i + 1 < d->nword && strcmp(d->word[i + 1], "429") == 0;
}

/*
 * Rule u of p answers 429 without a Retry-After header: retry-after.
 * HAProxy's own 429 page has none, and a client told nothing retries at
 * once: a naive SDK re-sends its whole batch in the next second, and the
 * limit then refuses more than it ever let through.  An `errorfile 429`
 * (or errorfiles, or a body of the rule's own) may carry one; it is not
 * read, so those rules are left alone.
 */
static void retry_after(lbt_audit *a, const struct au_proxy *p, const struct au_rule *u)
{
	const lbt_hacfg_dir *d = u->dir;
	int e = u->cond.cond_word >= 0 ? u->cond.cond_word : d->nword;
	char what[512], change[1024], hdr[64];
	int h;

	for (h = word_at(d, 1, "hdr"); h >= 0 && h + 1 < d->nword; h = word_at(d, h + 1, "hdr"))
		if (strcasecmp(d->word[h + 1], "Retry-After") == 0)
			return;
	if (lbt_auditi_setting(p, "errorfile", "429") != NULL ||
	    lbt_auditi_setting(p, "errorfiles", NULL) != NULL ||
	    word_at(d, 1, "errorfile") >= 0 || word_at(d, 1, "errorfiles") >= 0 ||
	    word_at(d, 1, "file") >= 0 || word_at(d, 1, "lf-file") >= 0)
		return;
	snprintf(what, sizeof what, "the `%s` rule of %s at line %llu answers 429 without a "
	    "Retry-After header", u->action, p->s->name, (unsigned long long)d->line);
	snprintf(hdr, sizeof hdr, "hdr Retry-After %lld",
	    (long long)retry_after_s(a, p, lbt_auditi_rate_counter(u)));
	lbt_auditi_add(a, LBT_AUDIT_WARN, "retry-after", d->line, p, what,
	    "HAProxy's own 429 page carries none, and a client told nothing retries at once: "
	    "an SDK that re-sends its whole batch comes back within the second, so the limit "
	    "refuses more than it ever let through. Retry-After (RFC 9110) tells well-behaved "
	    "clients when to come back: the period the counter is measured over",
	    lbt_auditi_line(d, e, e, hdr, change, sizeof change));
}

/* ---- timeout http-request ------------------------------------------------ */

/* An HTTP frontend p without `timeout http-request`: http-request-timeout. */
static void http_request_timeout(lbt_audit *a, const struct au_proxy *p)
{
	const lbt_hacfg_dir *hr = lbt_auditi_setting(p, "timeout", "http-request");
	const lbt_hacfg_dir *cl = lbt_auditi_setting(p, "timeout", "client");
	int64_t cv = timeout_ms(cl);
	uint64_t mline;
	int32_t mc = lbt_auditi_maxconn(a, p, &mline);
	char what[512], why[1024], t[32];

	if (timeout_ms(hr) > 0)
		return;
	snprintf(what, sizeof what, "%s (mode http) sets no `timeout http-request`, nor do its "
	    "defaults", p->s->name);
	if (cv > 0) {
		size_t n = (size_t)snprintf(why, sizeof why, "HAProxy 2.6 then waits for the "
		    "request headers under `timeout client` alone (%s, line %llu), an inactivity "
		    "timeout re-armed by every chunk: a client sending a byte now and then "
		    "(Slowloris) keeps its connection and maxconn slot as long as it likes",
		    lbt_auditi_ms_str(cv, t, sizeof t), (unsigned long long)cl->line);

		if (mc > 0 && n < sizeof why)
			snprintf(why + n, sizeof why - n, "; %d such connections fill maxconn", mc);
	} else
		snprintf(why, sizeof why, "and no `timeout client` either: HAProxy 2.6 never "
		    "closes a connection that sends nothing, so idle and slow clients keep their "
		    "maxconn slots for ever");
	lbt_auditi_add(a, cv > 0 ? LBT_AUDIT_WARN : LBT_AUDIT_CRIT, "http-request-timeout",
	    p->s->line, p, what, why, cv > 0 ? "timeout http-request 5s" :
	    "timeout http-request 5s; timeout client 30s");
}

/* ---- log format ---------------------------------------------------------- */

/* A field the analyses read, and its name in a finding. */
struct need {
	uint64_t bits;                /* any of them will do */
	int http;                     /* only for mode http */
	int core;                     /* missing it is a warning (else info) */
	const char *name;
};

static const struct need needs[] = {
	{ LBT_BIT(LBT_F_CLIENT), 0, 1, "client address" },
	{ LBT_BIT(LBT_F_FRONTEND), 0, 1, "frontend" },
	{ LBT_BIT(LBT_F_TW), 0, 1, "Tw" },
	{ LBT_BIT(LBT_F_TT) | LBT_BIT(LBT_F_TA), 0, 1, "Tt or Ta" },
	{ LBT_BIT(LBT_F_TERM), 0, 1, "termination state" },
	{ LBT_BIT(LBT_F_FC), 0, 1, "fc" },
	{ LBT_BIT(LBT_F_AC), 0, 1, "ac" },
	{ LBT_BIT(LBT_F_STATUS), 1, 1, "status" },
	{ LBT_BIT(LBT_F_PATH), 1, 1, "path" },
	{ LBT_BIT(LBT_F_HOST), 1, 0, "Host capture" },
	{ LBT_BIT(LBT_F_UA), 1, 0, "User-Agent capture" },
};

/* The missing fields of format f for proxy p into buf ("" none); *core
 * set when one of them is not a capture.  @return buf */
static const char *missing(const struct au_proxy *p, const lbt_format *f, char *buf,
    size_t size, int *core)
{
	uint64_t have = lbt_format_fields_always(f);
	size_t n = 0;

	buf[0] = '\0';
	*core = 0;
	if (!(have & LBT_BIT(LBT_F_TIME)) || !lbt_format_time_ms(f)) {
		n += (size_t)snprintf(buf, size, "the accept date with milliseconds");
		*core = 1;
	}
	for (size_t i = 0; i < sizeof needs / sizeof needs[0] && n < size; i++) {
		if ((needs[i].http && !p->http) || (have & needs[i].bits))
			continue;
		n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? ", " : "", needs[i].name);
		*core |= needs[i].core;
	}
	return buf;
}

/* The line that decides p's log format (log-format, option *log), else
 * the section's. */
static uint64_t format_line(const struct au_proxy *p)
{
	static const char *const opts[] = { "httplog", "httpslog", "tcplog" };
	const lbt_hacfg_dir *d = lbt_auditi_setting(p, "log-format", NULL), *o;

	for (size_t i = 0; i < 3; i++)
		if ((o = lbt_auditi_setting(p, "option", opts[i])) != NULL &&
		    (d == NULL || o->line > d->line))
			d = o;
	return d != NULL ? d->line : p->s->line;
}

/*
 * The change for a format f of p that lacks fields: the capture lines when
 * only captures are missing and the format logs them (%hr, %hrl), else the
 * recommended log-format (tcplog in mode tcp), into buf.
 */
static void log_change(const struct au_proxy *p, const lbt_format *f, const lbt_format *rec,
    int core, char *buf, size_t size)
{
	uint64_t have = lbt_format_fields_always(f);
	const char *t = lbt_format_template(f);

	if (!p->http || rec == NULL)
		snprintf(buf, size, "option tcplog");
	else if (!core && strstr(t, "%hr") != NULL)
		snprintf(buf, size, "%s%s%s", (have & LBT_BIT(LBT_F_HOST)) ? "" :
		    "capture request header Host len 64", (have & (LBT_BIT(LBT_F_HOST) |
		    LBT_BIT(LBT_F_UA))) ? "" : "; ", (have & LBT_BIT(LBT_F_UA)) ? "" :
		    "capture request header User-Agent len 128");
	else
		snprintf(buf, size, "log-format \"%s\" with `capture request header Host len 64` "
		    "and `capture request header User-Agent len 128` (lbt-formats --recommend)",
		    lbt_format_template(rec));
}

/* The log format of a logging frontend p: log-format. */
static void log_format(lbt_audit *a, const struct au_proxy *p)
{
	lbt_err err;
	lbt_format *f = lbt_format_from_haproxy_cfg(a->path, p->s->name, &err);
	lbt_format *rec = lbt_format_open("haproxy-lbt", NULL);
	char miss[512], what[1024], change[1024];
	int core;

	if (f == NULL) {
		snprintf(what, sizeof what, "lbt cannot read the log format of %s: %s", p->s->name,
		    err.msg);
		lbt_auditi_add(a, LBT_AUDIT_WARN, "log-format", err.line ? err.line : p->s->line,
		    p, what, "no lbt analysis can read these logs", "option httplog");
	} else if (missing(p, f, miss, sizeof miss, &core)[0]) {
		snprintf(what, sizeof what, "%s logs with %s, which lacks: %s", p->s->name,
		    strcmp(lbt_format_name(f), "custom") == 0 ? "a custom log-format" :
		    lbt_format_name(f), miss);
		log_change(p, f, rec, core, change, sizeof change);
		lbt_auditi_add(a, core ? LBT_AUDIT_WARN : LBT_AUDIT_INFO, "log-format",
		    format_line(p), p, what, "the post-mortem reads them: the accept date to the "
		    "millisecond orders and buckets the requests; Tw, Tt/Ta and the termination "
		    "state measure what the tarpit held and who waited; fc and ac show maxconn "
		    "pressure; the Host and User-Agent captures show which Host a flood used and "
		    "which client sent it", change);
	}
	lbt_format_free(f);
	lbt_format_free(rec);
}

/* The configuration findings of proxy p. */
void lbt_auditi_check_proxy(lbt_audit *a, const struct au_proxy *p, int logs)
{
	if (p->fe && p->http)
		http_request_timeout(a, p);
	for (size_t i = 0; i < p->rules.nrule; i++) {
		const struct au_rule *u = &p->rules.rule[i];
		const struct au_pat *c;

		if (strcmp(u->dir->word[0], "http-request") == 0 &&
		    strcmp(u->action, "tarpit") == 0 && (c = lbt_auditi_rate_counter(u)) != NULL)
			tarpit_rate(a, p, u, c, logs);   /* its change carries Retry-After */
		else if (strcmp(u->dir->word[0], "http-request") == 0 && answers_429(u))
			retry_after(a, p, u);
	}
	if (!logs)                  /* with logs, lbt_auditi_check_keys */
		lbt_auditi_rate_keys(a, p, NULL);
	if (p->fe && p->logs)
		log_format(a, p);
}
