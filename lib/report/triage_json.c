/*
 * triage_json.c - lbt_triage_write_json (triage.h): the same results as
 * the screen, as one JSON document for machines (an alerting hook, a
 * chat bot), built with jansson so every string is escaped as JSON wants.
 * The keys are stable and listed in man lbt-triage (JSON); times are ISO
 * 8601 UTC strings with milliseconds, rates numbers a second, shares per
 * cent; what is unknown or does not apply is null.  Unlike the screen,
 * nothing is cut: keys and names are given whole.
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lbt/esc.h"
#include "lbt/offenders_report.h"
#include "lbt/timeparse.h"
#include "lbt/utf8.h"
#include "lbt/version.h"
#include "lbt/triage.h"

/* A time, ISO 8601 UTC with milliseconds. */
static json_t *when(int64_t us)
{
	char b[48];

	lbt_time_format(us, 0, b, sizeof b);
	return json_string(b);
}

/* A number with at most 3 decimals. */
static json_t *num(double v)
{
	return json_real(round(v * 1000.0) / 1000.0);
}

/*
 * Text from the logs (a key, a frontend name) as a JSON string: valid
 * UTF-8 as it is, any other byte as the code point of its value (read as
 * Latin-1), as lib/out writes NDJSON, so no byte is lost and jansson,
 * which refuses invalid UTF-8, gets valid text.  @return it, or NULL
 */
static json_t *text(const char *s)
{
	size_t n = strlen(s), k = 0;
	char *b = malloc(2 * n + 1);
	json_t *j;

	if (b == NULL)
		return NULL;
	for (size_t i = 0; i < n; ) {
		size_t len = lbt_utf8_len((const unsigned char *)s + i, n - i);

		if (len == 0) {
			k += lbt_utf8_put(b + k, (unsigned char)s[i++]);
			continue;
		}
		memcpy(b + k, s + i, len);
		k += len;
		i += len;
	}
	j = json_stringn(b, k);
	free(b);
	return j;
}

/* A string, or null for NULL or "". */
static json_t *str(const char *s)
{
	return s && *s ? text(s) : json_null();
}

/* A rise, or null when none was found. */
static json_t *rise(const lbt_triage_rise *r)
{
	if (!r->found)
		return json_null();
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:b, s:b}",
	    "from_rps", num(r->from_rate), "to_rps", num(r->to_rate), "now_rps",
	    num(r->now_rate), "peak_rps", num(r->peak_rate), "peak_at", when(r->peak_us),
	    "start", when(r->start_us), "end", when(r->end_us), "ongoing", r->ongoing,
	    "new", r->is_new);
}

/* The span of the data and the anomaly's. */
static json_t *data(const lbt_triage *t)
{
	const lbt_triage_summary *m = lbt_triage_summary_get(t);

	return json_pack("{s:I, s:I, s:I, s:I, s:o, s:o, s:o, s:I, s:{s:b, s:I, s:I, s:I}}",
	    "lines", (json_int_t)m->lines, "unread", (json_int_t)m->unread,
	    "records", (json_int_t)m->records, "requests", (json_int_t)m->requests,
	    "first", m->requests ? when(m->first_us) : json_null(),
	    "last", m->requests ? when(m->last_us) : json_null(),
	    "now", m->requests ? when(m->now_us) : json_null(), "sources",
	    (json_int_t)m->sources, "x_forwarded_for", "trusted_proxies", !lbt_triage_opts_get(t)->conn_only,
	    "set_aside", (json_int_t)m->header_aside, "unverified", (json_int_t)m->from_header,
	    "trusted", (json_int_t)m->from_trusted);
}

/* Keys (or statuses) v[0..n) with their rises, under the name `what`. */
static json_t *keys(const lbt_triage_key *v, size_t n, const char *what)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < n; i++)
		json_array_append_new(a, json_pack("{s:o, s:I, s:o}", what, text(v[i].key),
		    "requests", (json_int_t)v[i].total, "rise", rise(&v[i].rise)));
	return a;
}

/* The status mix of a source, by class. */
static json_t *classes(const lbt_offender *r)
{
	static const char *const name[LBT_OFF_NSTATUS] = { "2xx", "3xx", "4xx", "429", "5xx",
		"-1", "other" };
	json_t *o = json_object();

	for (int c = 0; o && c < LBT_OFF_NSTATUS; c++)
		json_object_set_new(o, name[c], json_integer((json_int_t)r->status[c]));
	return o;
}

/* One source. */
static json_t *source(const lbt_triage_source *s)
{
	static const char *const cover[] = { "none", "part", "all" };
	const lbt_offender *r = s->row;

	static const char *const why[] = { NULL, "new", "ratio", "refused", "slow" };
	char via[LBT_ADDR_STRLEN + 2];

	return json_pack("{s:s, s:i, s:I, s:o, s:o, s:o, s:b, s:o, s:o, s:s, s:o, s:o, s:I, s:I, "
	    "s:I, s:o, s:o, s:b, s:o, s:s, s:o, s:I, s:o}",
	    "source", r->source, "family", r->net.family, "requests", (json_int_t)r->requests,
	    "share", num(s->share), "share_all", num(r->share),
	    "ratio", s->prior && s->ratio > 0 ? num(s->ratio) : json_null(),
	    "new", !s->prior, "baseline_rate", s->prior ? num(s->base_rate) : json_null(),
	    "resent_pct", num(s->resent_pct), "cause", lbt_triage_cause_name(s->cause),
	    "limit", s->cause == LBT_TRIAGE_CAUSE_CUSTOMER ? json_integer(s->limit) : json_null(),
	    "stopped", s->cause == LBT_TRIAGE_CAUSE_CUSTOMER ? json_integer((json_int_t)s->stopped) :
	    json_null(), "slow", (json_int_t)r->slow, "peak_rps", (json_int_t)r->peak_count,
	    "addresses", (json_int_t)r->addrs, "first", when(r->first_us), "last", when(r->last_us),
	    "offender", s->offender, "why", s->offender ? json_string(why[s->why]) : json_null(),
	    "in_rule", cover[s->in_rule], "status", classes(r),
	    "from_header", (json_int_t)r->from_header,
	    "via", r->via.family ? json_string(lbt_offender_via_str(r, via, sizeof via)) :
	    json_null());
}

/* The sources shown on the screen (the offenders and the next ones). */
static json_t *sources(const lbt_triage *t)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < lbt_triage_nsources(t); i++)
		json_array_append_new(a, source(lbt_triage_source_at(t, i)));
	return a;
}

/* One frontend's pressure. */
static json_t *front(const lbt_triage_front *f)
{
	const lbt_tarpit_group *g = f->g;
	const lbt_occ_stats *os = lbt_occ_stats_get(g->occ);
	int occ = os->intervals > 0, full = g->full_buckets > 0;

	return json_pack("{s:o, s:o, s:I, s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, "
	    "s:I, s:o, s:o, s:b}", "lb", str(g->lb), "frontend", str(g->frontend),
	    "requests", (json_int_t)g->requests, "tarpitted", (json_int_t)g->pt,
	    "held_s", num(f->held_s), "tarpit_slot_pct", num(f->tarpit_slot_pct),
	    "maxconn", g->maxconn > 0 ? json_integer(g->maxconn) : json_null(),
	    "maxconn_from", g->maxconn > 0 ? str(g->maxconn_from) : json_null(),
	    "peak_slots", occ ? json_integer(os->peak) : json_null(),
	    "peak_at", occ ? when(os->peak_at_us) : json_null(),
	    "peak_tarpitted", occ ? json_integer(os->peak_tarpit) : json_null(),
	    "peak_if_denied", occ ? json_integer(os->peak_nt) : json_null(),
	    "fc_max", g->fc_n > 0 ? json_integer(g->fc_max) : json_null(),
	    "full_buckets", (json_int_t)g->full_buckets,
	    "full_from", full ? when(f->full_from_us) : json_null(),
	    "full_to", full ? when(f->full_to_us) : json_null(), "full_now", f->full_now);
}

/* Every frontend. */
static json_t *fronts(const lbt_triage *t)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < lbt_triage_nfronts(t); i++)
		json_array_append_new(a, front(lbt_triage_front_at(t, i)));
	return a;
}

/* The answers by class. */
static json_t *damage(const lbt_triage *t)
{
	const lbt_triage_damage *d = lbt_triage_damage_get(t);

	return json_pack("{s:I, s:I, s:I, s:I, s:I, s:{s:I, s:I, s:I, s:I, s:I}, s:o}",
	    "requests", (json_int_t)d->requests, "429", (json_int_t)d->s429,
	    "503", (json_int_t)d->s503, "5xx", (json_int_t)d->s5xx, "-1", (json_int_t)d->snone,
	    "legitimate", "sources", (json_int_t)d->legit_sources, "requests",
	    (json_int_t)d->legit_requests, "429", (json_int_t)d->legit_429,
	    "5xx", (json_int_t)d->legit_5xx, "-1", (json_int_t)d->legit_none,
	    "rises", keys(lbt_triage_error_at(t, 0), lbt_triage_nerrors(t), "status"));
}

/* The lines of text s (one a line) as an array of strings. */
static json_t *lines(const char *s)
{
	json_t *a = json_array();

	while (a && *s) {
		size_t n = strcspn(s, "\n");

		json_array_append_new(a, json_stringn(s, n));
		s += n + (s[n] == '\n');
	}
	return a;
}

/* What the rule also matches, and what was left out of it. */
static int rule_parts(const lbt_deny *d, json_t *r)
{
	const lbt_deny_totals *tt = lbt_deny_totals_get(d);
	json_t *coll = json_array(), *left = json_array();
	char net[LBT_ADDR_STRLEN];

	for (size_t i = 0; coll && i < lbt_deny_ncollateral(d); i++) {
		const lbt_deny_collateral *c = lbt_deny_collateral_at(d, i);

		json_array_append_new(coll, json_pack("{s:s, s:o, s:b, s:s}", "source",
		    lbt_addr_format_net(&c->net.net, c->net.bits, net, sizeof net), "requests",
		    c->requests < 0 ? json_null() : json_integer(c->requests), "whole", c->whole,
		    "by", c->by));
	}
	for (size_t i = 0; left && i < lbt_deny_nleft(d); i++) {
		const lbt_deny_left *l = lbt_deny_left_at(d, i);

		json_array_append_new(left, json_pack("{s:s, s:o, s:s}", "network",
		    lbt_addr_format_net(&l->net.net, l->net.bits, net, sizeof net), "of", str(l->of),
		    "why", l->why));
	}
	return json_object_set_new(r, "collateral", json_pack("{s:I, s:I, s:o}", "requests",
	    (json_int_t)tt->collateral, "partial_requests", (json_int_t)tt->collateral_part,
	    "sources", coll)) | json_object_set_new(r, "left_out", left);
}

/*
 * The rule when there is no source to deny but customers to rate-limit:
 * the same keys, action "rate-limit", the customers as its networks, the
 * rate limit's lines, the requests it would have stopped.
 */
static json_t *limit_rule(const lbt_triage *t)
{
	json_t *nets = json_array();
	uint64_t stopped = 0, all = lbt_triage_summary_get(t)->requests;

	for (size_t i = 0; nets && i < lbt_triage_nsources(t); i++) {
		const lbt_triage_source *s = lbt_triage_source_at(t, i);

		if (s->cause != LBT_TRIAGE_CAUSE_CUSTOMER)
			continue;
		json_array_append_new(nets, json_string(s->row->source));
		stopped += s->stopped;
	}
	return json_pack("{s:s, s:s, s:o, s:o, s:n, s:s, s:I, s:o, s:{s:i, s:i, s:[]}, s:[]}",
	    "dialect", "haproxy", "action", "rate-limit", "networks", nets, "lines",
	    lines(lbt_triage_limit_lines(t)), "list_file", "command", "", "requests",
	    (json_int_t)stopped, "share", num(all > 0 ? 100.0 * (double)stopped / (double)all : 0),
	    "collateral", "requests", 0, "partial_requests", 0, "sources", "left_out");
}

/* The rule: the deny rule; without one, the customers' rate limit; else
 * null. */
static json_t *rule(const lbt_triage *t)
{
	const lbt_deny *d = lbt_triage_rule(t);
	const lbt_deny_totals *tt;
	json_t *r;

	if (d == NULL && lbt_triage_summary_get(t)->to_limit > 0 &&
	    lbt_triage_opts_get(t)->dialect == LBT_DENY_HAPROXY)
		return limit_rule(t);
	if (d == NULL)
		return json_null();
	tt = lbt_deny_totals_get(d);
	r = json_pack("{s:s, s:s, s:o, s:o, s:o, s:o, s:I, s:o}", "dialect",
	    lbt_triage_opts_get(t)->dialect == LBT_DENY_NGINX ? "nginx" : "haproxy", "action", "deny",
	    "networks", lines(lbt_triage_rule_list(t)), "lines", lines(lbt_triage_rule_lines(t)),
	    "list_file", str(lbt_triage_rule_file(t)), "command", str(lbt_triage_command(t)),
	    "requests", (json_int_t)tt->denied, "share", num(tt->input_requests > 0 ?
	    100.0 * (double)tt->denied / tt->input_requests : 0));
	if (r != NULL && lbt_triage_place(t) != NULL &&
	    json_object_set_new(r, "place", str(lbt_triage_place(t))) < 0) {
		json_decref(r);
		return NULL;
	}
	if (r != NULL && rule_parts(d, r) < 0) {
		json_decref(r);
		return NULL;
	}
	return r;
}

/* The aggregate prefixes, an array. */
static json_t *prefixes(const lbt_triage *t)
{
	json_t *a = json_array();
	char net[LBT_ADDR_STRLEN];

	for (size_t i = 0; a && i < lbt_triage_nprefixes(t); i++) {
		const lbt_triage_prefix *p = lbt_triage_prefix_at(t, i);

		json_array_append_new(a, json_pack("{s:s, s:o, s:I, s:o, s:I, s:I}", "network",
		    lbt_addr_format_net(&p->net.net, p->net.bits, net, sizeof net), "key",
		    text(p->key), "sources", (json_int_t)p->sources, "share", num(p->share),
		    "legit_sources", (json_int_t)p->legit_sources, "legit_requests",
		    (json_int_t)p->legit_requests));
	}
	return a;
}

/* The remedies besides the deny rule: the customers' rate limit, or none
 * in a surge, and the aggregate prefixes of the deny rule. */
static json_t *remedy(const lbt_triage *t)
{
	const lbt_triage_summary *m = lbt_triage_summary_get(t);

	return json_pack("{s:b, s:o, s:o, s:I, s:o, s:i, s:o, s:o}", "surge", m->surge,
	    "total_ratio", m->total_ratio > 0 ? num(m->total_ratio) : json_null(),
	    "capacity", m->surge ? json_string("every source rose with the total: capacity "
	    "(maxconn, backends) is the question") : json_null(),
	    "rate_limited", (json_int_t)m->to_limit,
	    "rate_limit_lines", lines(lbt_triage_limit_lines(t)),
	    "retry_after", LBT_TRIAGE_RETRY_AFTER, "prefixes", prefixes(t),
	    "timeout_lines", lines(lbt_triage_timeout_line(t)));
}

/* The anomaly's span, or null when calm. */
static json_t *anomaly(const lbt_triage *t)
{
	if (lbt_triage_summary_get(t)->verdict != LBT_TRIAGE_OVER && lbt_triage_summary_get(t)->verdict != LBT_TRIAGE_ONGOING)
		return json_null();
	return json_pack("{s:o, s:o}", "since", when(lbt_triage_summary_get(t)->since_us), "until",
	    when(lbt_triage_summary_get(t)->until_us));
}

/* The baseline window of the sources, or null. */
static json_t *baseline(const lbt_triage *t)
{
	if (!lbt_triage_summary_get(t)->baseline)
		return json_null();
	return json_pack("{s:o, s:o}", "from", when(lbt_triage_summary_get(t)->base_from_us), "to",
	    when(lbt_triage_summary_get(t)->base_to_us));
}

/* What was dropped or bounded (triage.h, lbt_triage_approx_at): [] when
 * the answer is exact. */
static json_t *approximations(const lbt_triage *t)
{
	json_t *a = json_array();
	lbt_triage_approx x;

	for (size_t i = 0; a != NULL && lbt_triage_approx_at(t, i, &x); i++)
		json_array_append_new(a, json_pack("{s:s, s:I, s:I, s:s}", "what", x.what,
		    "dropped", (json_int_t)x.dropped, "at_most", (json_int_t)x.at_most,
		    "note", x.note));
	return a;
}

/* The document.  @return 0, or -1 with err */
int lbt_triage_write_json(const lbt_triage *t, FILE *fp, lbt_err *err)
{
	json_t *doc;
	int rc;

	if (!lbt_triage_built(t))
		return lbt_err_set(err, "lbt_triage_write_json before lbt_triage_build");
	doc = json_pack("{s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
	    "lbt_triage", LBT_VERSION, "verdict", lbt_triage_verdict_name(lbt_triage_summary_get(t)->verdict),
	    "data", data(t), "anomaly", anomaly(t), "total", rise(&lbt_triage_summary_get(t)->total),
	    "hot_keys", keys(lbt_triage_key_at(t, 0), lbt_triage_nkeys(t), "key"), "baseline", baseline(t), "sources", sources(t),
	    "pressure", fronts(t), "damage", damage(t), "rule", rule(t), "remedy", remedy(t),
	    "approximations", approximations(t));
	if (doc == NULL)
		return lbt_err_set(err, "out of memory");
	rc = json_dump_callback(doc, lbt_esc_json_write, fp, JSON_INDENT(2) | JSON_ENSURE_ASCII |
	    JSON_REAL_PRECISION(12));
	json_decref(doc);
	if (rc < 0 || fputc('\n', fp) == EOF || fflush(fp) != 0)
		return lbt_err_set(err, "error writing the JSON document");
	return 0;
}
