/*
 * audit_logs.c - the findings that combine the configuration with the
 * logs' analyses (see audit.h): maxconn reached and when an alert would
 * have fired (tarpit.h: fc per bucket of the requests' ends, rebuilt
 * occupancy), the rate the tarpitted sources reached (offenders.h), rate
 * limits the flood key escaped by its Host header (keyhosts.h), and rate
 * limits counted per address that a /64 spread over several (offenders.h).
 * Results are read through each analysis's public accessors only.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit_int.h"
#include "lbt/occupancy.h"
#include "lbt/series.h"
#include "lbt/timeparse.h"

/* The audited frontend a tarpit group belongs to, or NULL. */
static const struct au_proxy *group_proxy(const lbt_audit *a, const lbt_tarpit_group *g)
{
	size_t n = strlen(g->frontend);
	const struct au_proxy *p;

	if (n > 0 && g->frontend[n - 1] == '~')       /* %ft of an SSL listener */
		n--;
	p = lbt_auditi_proxy(a, g->frontend, n);
	if (p == NULL || !p->fe || (a->o.proxy != NULL && strcmp(a->o.proxy, p->s->name) != 0))
		return NULL;
	return p;
}

/* A bucket's start time for people into buf.  @return buf */
static const char *bucket_str(const lbt_audit *a, int64_t b, char *buf, size_t size)
{
	lbt_bucket_format(b, a->o.step_us, buf, size);
	return buf;
}

/* ---- tarpit: what the logs saw ------------------------------------------ */

/* qsort order of offenders: peak second's count (more first), then source. */
static int peak_cmp(const void *x, const void *y)
{
	const lbt_offender *a = *(const lbt_offender *const *)x;
	const lbt_offender *b = *(const lbt_offender *const *)y;

	if (a->peak_count != b->peak_count)
		return a->peak_count > b->peak_count ? -1 : 1;
	return strcmp(a->source, b->source);
}

/* The tarpitted requests of p's groups into *pt and *held_ms. */
static void group_pt(const lbt_audit *a, const struct au_proxy *p, uint64_t *pt,
    int64_t *held_ms)
{
	*pt = 0;
	*held_ms = 0;
	for (size_t i = 0; i < lbt_tarpit_ngroups(a->tarpit); i++) {
		const lbt_tarpit_group *g = lbt_tarpit_group_at(a->tarpit, i);

		if (group_proxy(a, g) == p) {
			*pt += g->pt;
			*held_ms += g->held_tw_ms;
		}
	}
}

/* Up to 3 tarpitted sources by peak rate into v.  @return their number. */
static size_t top_tarpitted(const lbt_audit *a, const lbt_offender **v, size_t *total)
{
	const lbt_offender **all;
	size_t n = 0, k;

	*total = 0;
	if ((all = malloc((lbt_offenders_nrows(a->off) + 1) * sizeof *all)) == NULL)
		return 0;
	for (size_t i = 0; i < lbt_offenders_nrows(a->off); i++)
		if (lbt_offenders_row_at(a->off, i)->tarpitted > 0)
			all[n++] = lbt_offenders_row_at(a->off, i);
	qsort(all, n, sizeof *all, peak_cmp);
	for (k = 0; k < n && k < 3; k++)
		v[k] = all[k];
	*total = n;
	free(all);
	return k;
}

/* What the logs say of p's tarpitted sources (see audit_int.h). @return buf */
const char *lbt_auditi_tarpit_seen(const lbt_audit *a, const struct au_proxy *p,
    int64_t hold_ms, char *buf, size_t size, int64_t *slots, const char **ev_file,
    uint64_t *ev_line)
{
	const lbt_offender *top[3];
	size_t k, total, n;
	uint64_t pt;
	int64_t held;

	buf[0] = '\0';
	*slots = -1;
	group_pt(a, p, &pt, &held);
	if (pt == 0 || (k = top_tarpitted(a, top, &total)) == 0)
		return buf;
	n = (size_t)snprintf(buf, size, "in the logs %llu requests were tarpitted (%.3f s held), "
	    "and the %zu tarpitted source%s peaked at", (unsigned long long)pt, (double)held / 1000,
	    total, total == 1 ? "" : "s");
	for (size_t i = 0; i < k && n < size; i++) {
		int64_t s = (top[i]->peak_count * hold_ms + 999) / 1000;

		if (s > *slots)
			*slots = s;
		n += (size_t)snprintf(buf + n, size - n, "%s %s %lld req/s (%lld slots at that "
		    "rate)", i ? "," : "", top[i]->source, (long long)top[i]->peak_count,
		    (long long)s);
	}
	if (lbt_tarpit_nsources(a->tarpit) > 0) {
		*ev_file = lbt_tarpit_source_at(a->tarpit, 0)->file;
		*ev_line = lbt_tarpit_source_at(a->tarpit, 0)->line;
	}
	return buf;
}

/* ---- maxconn and the alert ----------------------------------------------- */

/* The smallest maxconn whose alert threshold stays above `peak`. */
static int64_t maxconn_for(int64_t peak, int pct)
{
	return peak * 100 / pct + 1;
}

/* The threshold of an alert at pct % of mc (ceil). */
static int32_t alert_at(int32_t mc, int pct)
{
	return (int32_t)(((int64_t)mc * pct + 99) / 100);
}

/* Group g of proxy p at maxconn mc (line): maxconn-reached. */
static void maxconn_reached(lbt_audit *a, const struct au_proxy *p, const lbt_tarpit_group *g,
    int32_t mc, uint64_t line)
{
	const lbt_occ_stats *st = lbt_occ_stats_get(g->occ);
	int64_t peak = st->peak > g->fc_max ? st->peak : g->fc_max;
	char what[1024], why[1024], change[64], b1[48], b2[48], t[48];
	size_t n = 0;

	if (g->full_buckets == 0 && st->peak <= mc)
		return;
	if (g->full_buckets > 0)
		n = (size_t)snprintf(what, sizeof what, "the logged fc of %s reached maxconn %d "
		    "(peak fc %d; fc >= %d in %llu buckets of %s, the first at %s, the last at "
		    "%s); ",
		    p->s->name, mc, g->fc_max, mc - a->o.near, (unsigned long long)g->full_buckets,
		    lbt_auditi_ms_str(a->o.step_us / 1000, t, sizeof t),
		    bucket_str(a, g->full_first, b1, sizeof b1),
		    bucket_str(a, g->full_last, b2, sizeof b2));
	lbt_time_format(st->peak_at_us, 0, t, sizeof t);
	n += (size_t)snprintf(what + n, sizeof what - n, "the rebuilt occupancy peaked at %d "
	    "slot%s at %s", st->peak, st->peak == 1 ? "" : "s", t);
	if (st->peak_tarpit > 0 && n < sizeof what)
		snprintf(what + n, sizeof what - n, ", %d of them tarpitted", st->peak_tarpit);
	n = (size_t)snprintf(why, sizeof why, "at maxconn HAProxy stops accepting: new "
	    "connections wait in the kernel's accept queue, unlogged, or are dropped once it is "
	    "full, so the logs show less than the demand. ");
	if (st->tarpit > 0 && n < sizeof why)
		n += (size_t)snprintf(why + n, sizeof why - n, "Without the tarpitted requests the "
		    "rebuilt peak is %d slot%s%s. ", st->peak_nt, st->peak_nt == 1 ? "" : "s",
		    st->peak_nt < alert_at(mc, a->o.alert_pct) ? ": the tarpit, not the traffic, "
		    "filled the frontend" : "");
	if (n < sizeof why)
		snprintf(why + n, sizeof why - n, "The change is the smallest maxconn whose %d %% "
		    "alert threshold stays above the peak of %lld: a floor, the demand was higher",
		    a->o.alert_pct, (long long)peak);
	snprintf(change, sizeof change, "maxconn %lld",
	    (long long)maxconn_for(peak, a->o.alert_pct));
	lbt_auditi_add(a, LBT_AUDIT_CRIT, "maxconn-reached", line ? line : p->s->line, p, what,
	    why, change);
	lbt_auditi_evidence(a, g->full_file, g->full_line);
}

/* The first bucket of group i with fc >= level, or NULL. */
static const lbt_tarpit_bucket *first_at(const lbt_audit *a, size_t i, int32_t level)
{
	size_t n;
	const lbt_tarpit_bucket *b = lbt_tarpit_buckets(a->tarpit, i, &n);

	for (size_t k = 0; k < n; k++)
		if (b[k].fc_n > 0 && b[k].fc_max >= level)
			return &b[k];
	return NULL;
}

/*
 * The alert written out for frontend fe at pct % of maxconn mc (th
 * sessions), appended to a finding's why: a Prometheus rule on HAProxy's
 * own exporter (haproxy_frontend_current_sessions against
 * haproxy_frontend_limit_sessions, the same scur and slim as `show stat`)
 * and a Netdata health entry on the python.d haproxy module's frontend
 * sessions chart (haproxy_f.scur, a dimension per frontend; the go.d
 * module reads backends only).  A threshold well below maxconn because the
 * sessions climb last: by the time a frontend is at 95 % its accept queue
 * is already filling, and a person needs minutes.
 */
static void alert_rules(const char *fe, int pct, int32_t th, int32_t mc, char *buf,
    size_t size)
{
	snprintf(buf, size, ". Prometheus: `- alert: HAProxyFrontendSessionsHigh; expr: "
	    "haproxy_frontend_current_sessions{proxy=\"%s\"} >= %.2f * "
	    "haproxy_frontend_limit_sessions{proxy=\"%s\"}`. Netdata (health.d, "
	    "python.d haproxy): `alarm: haproxy_%s_sessions; on: haproxy_f.scur; lookup: max "
	    "-10s unaligned of %s; every: 10s; warn: $this >= %d; crit: $this >= %d`. %d %% of "
	    "maxconn because the sessions climb last: near maxconn the accept queue is already "
	    "filling, and a person needs minutes to act", fe, (double)pct / 100.0, fe, fe, fe,
	    th, mc > 1 ? mc - 1 : mc, pct);
}

/* Group i (g) of proxy p at maxconn mc (line): alert-threshold. */
static void alert_threshold(lbt_audit *a, const struct au_proxy *p, size_t i,
    const lbt_tarpit_group *g, int32_t mc, uint64_t line)
{
	int32_t th = alert_at(mc, a->o.alert_pct);
	const lbt_tarpit_bucket *fire = first_at(a, i, th), *full = first_at(a, i, mc - a->o.near);
	char what[1024], why[2048], change[256], b1[48], b2[48], t[48];
	int64_t lead;
	size_t n;

	if (fire == NULL)
		return;
	snprintf(what, sizeof what, "an alert on the sessions of %s at %d %% of maxconn %d "
	    "(fc >= %d) would have fired at %s, the first bucket of %s with fc >= %d (fc %d)%s%s",
	    p->s->name, a->o.alert_pct, mc, th, bucket_str(a, fire->bucket, b1, sizeof b1),
	    lbt_auditi_ms_str(a->o.step_us / 1000, t, sizeof t), th, fire->fc_max,
	    full ? ", before fc reached maxconn at " : "",
	    full ? bucket_str(a, full->bucket, b2, sizeof b2) : "");
	lead = full ? (full->bucket - fire->bucket) * a->o.step_us / 1000 : -1;
	if (lead >= 0 && lead < 60000)
		snprintf(why, sizeof why, "%s: too late for a person to act on. The sessions "
		    "climb last; alert also on the rate of tarpitted or denied requests "
		    "(termination state PT, PR), which rises first", lead == 0 ?
		    "the frontend filled within the same bucket" :
		    "the frontend filled within a minute");
	else if (lead >= 0)
		snprintf(why, sizeof why, "it would have given %s to act before the frontend "
		    "was full", lbt_auditi_ms_str(lead, t, sizeof t));
	else
		snprintf(why, sizeof why, "fc peaked at %d and never reached maxconn: the alert "
		    "would have warned of the pressure", g->fc_max);
	n = strlen(why);
	alert_rules(p->s->name, a->o.alert_pct, th, mc, why + n, sizeof why - n);
	snprintf(change, sizeof change, "alert when scur of %s >= %d (show stat; slim %d)",
	    p->s->name, th, mc);
	lbt_auditi_add(a, LBT_AUDIT_INFO, "alert-threshold", line ? line : p->s->line, p, what,
	    why, change);
	lbt_auditi_evidence(a, fire->fc_file, fire->fc_line);
}

/* maxconn reached and the alert threshold, per tarpit group. */
void lbt_auditi_check_groups(lbt_audit *a)
{
	for (size_t i = 0; i < lbt_tarpit_ngroups(a->tarpit); i++) {
		const lbt_tarpit_group *g = lbt_tarpit_group_at(a->tarpit, i);
		const struct au_proxy *p = group_proxy(a, g);
		uint64_t line;
		int32_t mc = p != NULL ? lbt_auditi_maxconn(a, p, &line) : 0;

		if (mc <= 0 || g->fc_n == 0)
			continue;
		maxconn_reached(a, p, g, mc, line);
		alert_threshold(a, p, i, g, mc, line);
	}
}

/* ---- rate limits a Host escapes ------------------------------------------ */

/* Whether a request (host, path) gets through the Host terms of the
 * track-scN rules of p feeding counter c: 1, 0, -1 (cannot tell). */
static int track_ok(const struct au_proxy *p, const struct au_pat *c, const char *host,
    const char *path)
{
	int found = 0, ok = 0;

	for (size_t i = 0; c->sc >= 0 && i < p->rules.nrule; i++) {
		const struct au_rule *u = &p->rules.rule[i];

		if (u->track != c->sc)
			continue;
		found = 1;
		if (u->cond.nbr == 0 || u->cond.unless)
			return 1;
		for (size_t b = 0; b < u->cond.nbr; b++) {
			int r = lbt_auditi_host_ok(&u->cond.br[b], host, path);

			if (r < 0)
				return -1;
			ok |= r;
		}
	}
	return found ? ok : 1;
}

/* Whether rate-limit rule u of p (counter c) limits (host, path): 1, 0, -1. */
static int covered(const struct au_proxy *p, const struct au_rule *u, const struct au_pat *c,
    const char *host, const char *path)
{
	int t = track_ok(p, c, host, path), any = 0;

	if (t <= 0)
		return t;
	for (size_t b = 0; b < u->cond.nbr; b++) {
		int r;

		if (lbt_auditi_counter(&u->cond.br[b]) == NULL)
			continue;
		if ((r = lbt_auditi_host_ok(&u->cond.br[b], host, path)) < 0)
			return -1;
		any |= r;
	}
	return any;
}

/* The Host term of rule u (or of the track rule for c) to widen, with its
 * rule: *tu gets the rule whose line holds the term.  NULL when none. */
static const struct au_term *host_term_of(const struct au_proxy *p, const struct au_rule *u,
    const struct au_pat *c, const struct au_rule **tu)
{
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < p->rules.nrule; i++) {
			const struct au_rule *r = &p->rules.rule[i];

			if (pass == 0 ? r != u : (r->track != c->sc || c->sc < 0))
				continue;
			for (size_t b = 0; b < r->cond.nbr; b++)
				for (size_t k = 0; k < r->cond.br[b].n; k++) {
					const struct au_term *t = &r->cond.br[b].t[k];

					if (t->npat > 0 && t->pat[0]->kind == AU_HOST) {
						*tu = r;
						return t;
					}
				}
		}
	return NULL;
}

/* A pattern value matching exactly `host` for pattern p, into buf. */
static const char *value_for(const struct au_pat *p, const char *host, char *buf, size_t size)
{
	size_t n = 0;

	if (p->match == AU_M_REG) {
		buf[n++] = '^';
		for (; *host && n + 3 < size; host++) {
			if (!isalnum((unsigned char)*host))
				buf[n++] = '\\';
			buf[n++] = *host;
		}
		buf[n++] = '$';
		buf[n] = '\0';
		return buf;
	}
	for (; *host && n + 1 < size; host++)
		buf[n++] = p->icase ? (char)tolower((unsigned char)*host) : *host;
	buf[n] = '\0';
	return buf;
}

/* The change that lets rule u of p cover `hosts` (comma list), into buf. */
static const char *widen(const struct au_proxy *p, const struct au_rule *u,
    const struct au_pat *c, char (*hosts)[256], size_t nh, char *buf, size_t size)
{
	const struct au_rule *tu = u;
	const struct au_term *t = host_term_of(p, u, c, &tu);
	const struct au_pat *pat;
	char add[1024] = "", v[300];
	size_t n = 0;

	if (t == NULL)
		return lbt_auditi_line(u->dir, 0, 0, "", buf, size);
	pat = t->pat[0];
	if (t->neg)            /* the host is excluded: drop the exclusion */
		return lbt_auditi_line(tu->dir, t->word, t->word + t->nwords, "", buf, size);
	for (size_t i = 0; i < nh && n < sizeof add; i++)
		n += (size_t)snprintf(add + n, sizeof add - n, "%s%s", n ? " " : "",
		    value_for(pat, hosts[i], v, sizeof v));
	return lbt_auditi_line(pat->dir, pat->end, pat->end, add, buf, size);
}

/* Rule u of p against the flood key's hosts (row r): rate-limit-host. */
static void host_rule(lbt_audit *a, const struct au_proxy *p, const struct au_rule *u,
    const lbt_keyhosts_row *r)
{
	const struct au_pat *c = lbt_auditi_rate_counter(u);
	char hosts[3][256], list[1024] = "", what[2048], change[2048];
	const lbt_keyhosts_host *first = NULL;
	uint64_t min = r->requests / 100 > 0 ? r->requests / 100 : 1;
	size_t nh = 0, n = 0;

	for (size_t i = 0; i < r->nhosts; i++) {
		const lbt_keyhosts_host *h = &r->hosts[i];
		int cov = covered(p, u, c, h->host, h->path);

		if (cov < 0)
			return;                 /* a pattern this audit cannot evaluate */
		if (cov || h->requests < min || nh == 3)
			continue;
		snprintf(hosts[nh++], sizeof hosts[0], "%s", h->host);
		n += (size_t)snprintf(list + n, sizeof list - n, "%sHost %s (%llu requests, %llu "
		    "limited)", n ? ", " : "", h->host[0] ? h->host : "\"\"",
		    (unsigned long long)h->requests, (unsigned long long)h->limited);
		first = first ? first : h;
	}
	if (nh == 0)
		return;
	snprintf(what, sizeof what, "the %s rate limit of %s at line %llu requires a Host that "
	    "the flood key %s (%llu requests, %llu limited) did not always send: it also arrived "
	    "with %s", u->action, p->s->name, (unsigned long long)u->dir->line, r->key,
	    (unsigned long long)r->requests, (unsigned long long)r->limited, list);
	lbt_auditi_add(a, LBT_AUDIT_WARN, "rate-limit-host", u->dir->line, p, what,
	    "a rate limit conditioned on the Host header (or whose track-sc rule is) stops "
	    "nothing the same client sends with another Host: it got around the limit by the "
	    "Host it sent. Cover every Host the frontend serves, or drop the Host condition",
	    widen(p, u, c, hosts, nh, change, sizeof change));
	lbt_auditi_evidence(a, first->ev_file, first->ev_line);
}

/* The flood key of frontend p: its row most limited (then with the most
 * requests), or NULL when the logs show none. */
static const lbt_keyhosts_row *flood_key(const lbt_audit *a, const struct au_proxy *p)
{
	for (size_t i = 0; i < lbt_keyhosts_nrows(a->kh); i++) {
		const lbt_keyhosts_row *r = lbt_keyhosts_row_at(a->kh, i);

		if (strcmp(r->frontend, p->s->name) == 0)
			return r;
	}
	return NULL;
}

/* Rate limits the flood key escaped by its Host header. */
void lbt_auditi_check_hosts(lbt_audit *a)
{
	for (size_t i = 0; i < a->npx; i++) {
		const struct au_proxy *p = &a->px[i];
		const lbt_keyhosts_row *r;

		if (!p->fe || (a->o.proxy != NULL && strcmp(a->o.proxy, p->s->name) != 0) ||
		    (r = flood_key(a, p)) == NULL)
			continue;
		for (size_t k = 0; k < p->rules.nrule; k++)
			if (p->rules.rule[k].limit && lbt_auditi_rate_counter(&p->rules.rule[k]))
				host_rule(a, p, &p->rules.rule[k], r);
	}
}

/* ---- rate limits counted per address ------------------------------------- */

/* True when some source of the logs was limited (tarpitted, or answered
 * 429): the keys' Hosts cannot say which frontend did when the log has no
 * Host capture, and a limit that fired on one source is one the rotating
 * /64 stayed under. */
static int any_limited(const lbt_audit *a)
{
	for (size_t i = 0; i < lbt_offenders_nrows(a->off); i++) {
		const lbt_offender *o = lbt_offenders_row_at(a->off, i);

		if (o->tarpitted > 0 || o->status[LBT_OFF_S429] > 0)
			return 1;
	}
	return 0;
}

/* True when frontend p limited requests in the logs (tarpit or 429/P...). */
static int limited_in_logs(const lbt_audit *a, const struct au_proxy *p)
{
	uint64_t pt;
	int64_t held;

	group_pt(a, p, &pt, &held);
	if (pt > 0)
		return 1;
	for (size_t i = 0; i < lbt_keyhosts_nrows(a->kh); i++) {
		const lbt_keyhosts_row *r = lbt_keyhosts_row_at(a->kh, i);

		if (r->limited > 0 && strcmp(r->frontend, p->s->name) == 0)
			return 1;
	}
	return any_limited(a);
}

/* Addresses of one IPv6 /64 that make it a client rotating them: a host
 * with privacy extensions uses one or two temporary addresses a day, a
 * household a few; four or more during one incident is rotation. */
#define AU_SPREAD_MIN 4

/* The IPv6 network that used the most addresses (at least AU_SPREAD_MIN),
 * or NULL.  Limited or not: a client that rotates enough addresses is
 * never limited at all, which is the point. */
static const lbt_offender *spread_source(const lbt_audit *a)
{
	const lbt_offender *best = NULL;

	for (size_t i = 0; i < lbt_offenders_nrows(a->off); i++) {
		const lbt_offender *o = lbt_offenders_row_at(a->off, i);

		if (o->net.family != 6 || o->addrs < AU_SPREAD_MIN)
			continue;
		if (best == NULL || o->addrs > best->addrs)
			best = o;
	}
	return best;
}

/* Rate-limit rule u of p (counter c), tracked per address by t, on a
 * frontend that listens on IPv6 (bind line v6): with source o spread over
 * o->addrs addresses (the logs), or o NULL (the configuration alone):
 * rate-limit-key. */
static void per_address(lbt_audit *a, const struct au_proxy *p, const struct au_rule *u,
    const struct au_rule *t, const lbt_offender *o, const lbt_hacfg_dir *v6)
{
	char what[1024], change[1024];
	int k = 0;
	size_t n;

	while (t->dir->word[k] != t->action)
		k++;
	n = (size_t)snprintf(what, sizeof what, "the %s rate limit of %s at line %llu counts "
	    "each client address apart (`%s src`, line %llu)", u->action, p->s->name,
	    (unsigned long long)u->dir->line, t->action, (unsigned long long)t->dir->line);
	if (o != NULL && (o->tarpitted > 0 || o->status[LBT_OFF_S429] > 0))
		snprintf(what + n, sizeof what - n, ": in the logs %s was limited from %llu "
		    "addresses, each with a limit of its own", o->source,
		    (unsigned long long)o->addrs);
	else if (o != NULL)
		snprintf(what + n, sizeof what - n, ": in the logs %s sent %llu requests from "
		    "%llu addresses and was never limited, each address under a limit of its own",
		    o->source, (unsigned long long)o->requests, (unsigned long long)o->addrs);
	else
		snprintf(what + n, sizeof what - n, ", and it listens on IPv6 (`bind` line %llu)",
		    (unsigned long long)v6->line);
	lbt_auditi_add(a, o != NULL ? LBT_AUDIT_WARN : LBT_AUDIT_INFO, "rate-limit-key",
	    t->dir->line, p, what,
	    "a client that rotates addresses inside its IPv6 /64 multiplies the limit by the "
	    "addresses it uses: an ISP gives a customer a whole /64 (or more), and lbt-offenders "
	    "counts such a network as one source. Track the /64 (ipmask keeps IPv4 whole; a "
	    "stick-table of type ipv6 holds both)",
	    lbt_auditi_line(t->dir, k + 1, k + 2, "src,ipmask(32,64)", change, sizeof change));
	if (o != NULL)
		lbt_auditi_evidence(a, o->ev_file, o->ev_line);
}

/* The rate limits of frontend p counted per address (see audit_int.h). */
void lbt_auditi_rate_keys(lbt_audit *a, const struct au_proxy *p, const lbt_offender *o)
{
	const lbt_hacfg_dir *v6 = lbt_auditi_v6_bind(p);

	/* a frontend that listens on IPv4 alone never saw the /64 (unless the
	 * client is read from X-Forwarded-For, which `src` is not either) */
	if (!p->fe || v6 == NULL)
		return;
	for (size_t k = 0; k < p->rules.nrule; k++) {
		const struct au_rule *u = &p->rules.rule[k];
		const struct au_pat *c = u->limit ? lbt_auditi_rate_counter(u) : NULL;
		const struct au_rule *t = c != NULL ? lbt_auditi_src_tracker(&p->rules, c) : NULL;

		if (t != NULL)
			per_address(a, p, u, t, o, v6);
	}
}

/* Rate limits counted per address: from the logs when an IPv6 /64 spread
 * over several addresses where the frontend limited requests, else (an
 * IPv6 frontend) from the configuration. */
void lbt_auditi_check_keys(lbt_audit *a)
{
	const lbt_offender *o = spread_source(a);

	for (size_t i = 0; i < a->npx; i++) {
		const struct au_proxy *p = &a->px[i];

		if (!p->fe || (a->o.proxy != NULL && strcmp(a->o.proxy, p->s->name) != 0))
			continue;
		lbt_auditi_rate_keys(a, p, o != NULL && limited_in_logs(a, p) ? o : NULL);
	}
}
