/*
 * deny_json.c - the decision as NDJSON (--json): one object a line, each
 * with "record": a "header" first (what, when, from which data, with which
 * options, totals), then one "source" per source given (selected or not,
 * and why), one "rule" per network of the rule, one "left_out" per cut,
 * one "collateral" per other source the rule matches.  Built with jansson,
 * so every string is escaped as JSON wants.
 */
#include <jansson.h>
#include <string.h>

#include "lbt/esc.h"
#include "lbt/timeparse.h"
#include "lbt/version.h"
#include "deny_int.h"

/* Write o as one line and free it.  @return 0 or -1 */
static int put(json_t *o, FILE *fp)
{
	int rc = o == NULL || json_dump_callback(o, lbt_esc_json_write, fp, JSON_COMPACT |
	    JSON_ENSURE_ASCII | JSON_REAL_PRECISION(10)) < 0 ? -1 : 0;

	json_decref(o);
	if (rc == 0)
		fputc('\n', fp);
	return rc;
}

/* A count, or null when unknown. */
static json_t *count(int64_t v)
{
	return v < 0 ? json_null() : json_integer(v);
}

/* A time, or null. */
static json_t *when(int64_t us)
{
	char b[48];

	if (us == LBT_DENY_NO_TIME)
		return json_null();
	lbt_time_format(us, 0, b, sizeof b);
	return json_string(b);
}

/* A string, or null for NULL or "". */
static json_t *str(const char *s)
{
	return s && *s ? json_string(s) : json_null();
}

/* The header record. */
static json_t *header(const lbt_deny *d, const lbt_deny_gen *g)
{
	const lbt_deny_totals *t = &d->tot;
	char at[48], in[1024];

	lbt_time_format_s(g->now_us, at, sizeof at);
	return json_pack("{s:s, s:s, s:s, s:s, s:o, s:s, s:I, s:I, s:I, s:o, s:o, s:o, s:o, "
	    "s:I}", "record", "header", "lbt_deny", LBT_VERSION, "generated", at,
	    "input", lbt_deny_inputs(d, in, sizeof in), "command", str(g->command),
	    "action", lbt_denyi_action_name(g->action), "networks", (json_int_t)d->nrules,
	    "sources", (json_int_t)t->sources, "selected", (json_int_t)t->selected,
	    "requests", t->counts ? json_integer(t->requests) : json_null(),
	    "denied", t->counts ? json_integer(t->denied) : json_null(),
	    "collateral", t->others && t->counts ? json_integer(t->collateral) : json_null(),
	    "collateral_partial", t->others && t->counts ? json_integer(t->collateral_part)
	    : json_null(), "left_out", (json_int_t)d->nleft);
}

/* Why source it was selected or not, into buf. */
static const char *why(const lbt_deny *d, const struct lbt_denyi_item *it, char *buf,
    size_t size)
{
	const lbt_deny_opts *o = &d->o;

	if (it->s.origin == LBT_DENY_FROM_ARG)
		return "given as an argument";
	if (o->min_share < 0 && o->min_requests < 0 && o->top <= 0)
		return "listed in the input (no --min-share, --min-requests or --top)";
	snprintf(buf, size, "%s:%s%s%s", it->selected ? "passes" : "fails",
	    o->min_share >= 0 ? " --min-share" : "", o->min_requests >= 0 ? " --min-requests" : "",
	    o->top > 0 ? " --top" : "");
	return buf;
}

/* One "source" record. */
static json_t *source(const lbt_deny *d, const struct lbt_denyi_item *it)
{
	char net[LBT_ADDR_STRLEN], b[128];

	return json_pack("{s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:b, s:s}", "record",
	    "source", "source", lbt_denyi_net(&it->s.net, net, sizeof net),
	    "requests", count(it->s.requests),
	    "share", it->s.share < 0 ? json_null() : json_real(it->s.share),
	    "peak_rps", count(it->s.peak_rps), "first", when(it->s.first_us),
	    "last", when(it->s.last_us), "at", it->s.file ? json_sprintf("%s:%llu",
	    it->s.file, (unsigned long long)it->s.line) : json_null(),
	    "selected", it->selected, "why", why(d, it, b, sizeof b));
}

/* One "rule" record. */
static json_t *rule(const lbt_deny_rule *r)
{
	char net[LBT_ADDR_STRLEN];

	return json_pack("{s:s, s:s, s:o, s:o, s:o, s:o, s:I, s:o, s:o}", "record", "rule",
	    "network", lbt_denyi_net(&r->net, net, sizeof net), "requests", count(r->requests),
	    "share", r->share < 0 ? json_null() : json_real(r->share), "first", when(r->first_us),
	    "last", when(r->last_us), "sources", (json_int_t)r->nsources,
	    "merged", str(r->merged), "part_of", str(r->part_of));
}

/* One "left_out" record. */
static json_t *left(const lbt_deny_left *l)
{
	char net[LBT_ADDR_STRLEN];

	return json_pack("{s:s, s:s, s:o, s:s}", "record", "left_out", "network",
	    lbt_denyi_net(&l->net, net, sizeof net), "part_of", str(l->of), "why", l->why);
}

/* One "collateral" record. */
static json_t *coll(const lbt_deny_collateral *c)
{
	char net[LBT_ADDR_STRLEN];

	return json_pack("{s:s, s:s, s:o, s:b, s:s}", "record", "collateral", "source",
	    lbt_denyi_net(&c->net, net, sizeof net), "requests", count(c->requests),
	    "whole", c->whole, "matched_by", c->by);
}

/* Write the NDJSON decision.  @return 0 or -1 */
int lbt_denyi_json(const lbt_deny *d, const lbt_deny_gen *g, FILE *fp)
{
	int rc = put(header(d, g), fp);

	for (size_t i = 0; rc == 0 && i < d->nit; i++)
		rc = put(source(d, &d->it[i]), fp);
	for (size_t i = 0; rc == 0 && i < d->nrules; i++)
		rc = put(rule(&d->rules[i]), fp);
	for (size_t i = 0; rc == 0 && i < d->nleft; i++)
		rc = put(left(&d->left[i]), fp);
	for (size_t i = 0; rc == 0 && i < d->ncoll; i++)
		rc = put(coll(&d->coll[i]), fp);
	return rc;
}
