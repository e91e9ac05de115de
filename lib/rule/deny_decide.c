/*
 * deny_decide.c - lbt_deny_finish: selection, widening, width, exclusions,
 * merging and collateral, in the order deny.h gives.
 *
 * Exactness comes from lib/base/ipset: the rule is computed as a set
 * (union of the kept sources minus the special-purpose ranges and the
 * allow list) and only then written out as networks, so no merge can
 * cover an address nobody asked for.  The reasons (what was left out and
 * why) are found separately, source by source, and never feed the set.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbt/special.h"
#include "lbt/vec.h"
#include "deny_int.h"

/* qsort order of items: network, then arrival. */
static int by_net(const void *pa, const void *pb)
{
	const struct lbt_denyi_item *a = pa, *b = pb;
	int c = lbt_addr_cmp(&a->s.net.net, &b->s.net.net);

	if (c == 0)
		c = (a->s.net.bits > b->s.net.bits) - (a->s.net.bits < b->s.net.bits);
	if (c == 0)
		c = (a->order > b->order) - (a->order < b->order);
	return c;
}

/* qsort order of items: arrival. */
static int by_order(const void *pa, const void *pb)
{
	const struct lbt_denyi_item *a = pa, *b = pb;

	return (a->order > b->order) - (a->order < b->order);
}

/* Fold item b into a (the same network listed twice). */
static void fold(lbt_deny_src *a, const lbt_deny_src *b)
{
	a->requests = a->requests < 0 || b->requests < 0 ? LBT_DENY_UNKNOWN
	    : a->requests + b->requests;
	a->share = a->share < 0 || b->share < 0 ? -1.0 : a->share + b->share;
	a->peak_rps = a->peak_rps < 0 || b->peak_rps < 0 ? LBT_DENY_UNKNOWN
	    : a->peak_rps + b->peak_rps;
	if (b->first_us != LBT_DENY_NO_TIME &&
	    (a->first_us == LBT_DENY_NO_TIME || b->first_us < a->first_us))
		a->first_us = b->first_us;
	if (b->last_us != LBT_DENY_NO_TIME && b->last_us > a->last_us)
		a->last_us = b->last_us;
	if (b->origin == LBT_DENY_FROM_ARG)
		a->origin = LBT_DENY_FROM_ARG;
	if (b->from_header >= 0)
		a->from_header = (a->from_header < 0 ? 0 : a->from_header) + b->from_header;
	if (a->via[0] == '\0')
		memcpy(a->via, b->via, sizeof a->via);
}

/* Merge items of equal network; keep arrival order. */
static void dedup(lbt_deny *d)
{
	size_t k = 0;

	if (d->nit == 0)
		return;
	qsort(d->it, d->nit, sizeof d->it[0], by_net);
	for (size_t i = 0; i < d->nit; i++) {
		if (k > 0 && d->it[k - 1].s.net.bits == d->it[i].s.net.bits &&
		    lbt_addr_cmp(&d->it[k - 1].s.net.net, &d->it[i].s.net.net) == 0) {
			fold(&d->it[k - 1].s, &d->it[i].s);
			continue;
		}
		d->it[k++] = d->it[i];
	}
	d->nit = k;
	qsort(d->it, d->nit, sizeof d->it[0], by_order);
}

/*
 * Requests of all data, and the total the shares refer to: from the row
 * with most requests that has a share (lbt-offenders counts the share over
 * every request, also those of rows it did not print), else the sum.
 */
static void count_totals(lbt_deny *d)
{
	lbt_deny_totals *t = &d->tot;
	int64_t best = -1;

	t->counts = d->nit > 0;
	for (size_t i = 0; i < d->nit; i++) {
		const lbt_deny_src *s = &d->it[i].s;

		if (s->requests < 0)
			t->counts = 0;
		else
			t->requests += s->requests;
		if (s->requests > best && s->share > 0) {
			best = s->requests;
			t->input_requests = (double)s->requests * 100.0 / s->share;
		}
	}
	if (best < 0)
		t->input_requests = (double)t->requests;
}

/* The share of source s: its own, else from the total.  < 0 unknown. */
static double share_of(const lbt_deny *d, const lbt_deny_src *s)
{
	if (s->share >= 0)
		return s->share;
	if (s->requests >= 0 && d->tot.input_requests > 0)
		return (double)s->requests * 100.0 / d->tot.input_requests;
	return -1.0;
}

/* Check that every data source can answer the thresholds.  @return 0 or -1 */
static int check_thresholds(lbt_deny *d, lbt_err *err)
{
	const lbt_deny_opts *o = &d->o;

	for (size_t i = 0; i < d->nit; i++) {
		const lbt_deny_src *s = &d->it[i].s;

		if (s->origin == LBT_DENY_FROM_ARG)
			continue;
		if ((o->min_requests >= 0 || o->top > 0) && s->requests < 0)
			return lbt_err_at(err, s->file ? s->file : "", s->line,
			    "%s needs a request count: the input has no requests column",
			    o->top > 0 ? "--top" : "--min-requests");
		if (o->min_share >= 0 && share_of(d, s) < 0)
			return lbt_err_at(err, s->file ? s->file : "", s->line,
			    "--min-share needs a share or requests column");
	}
	return 0;
}

/* qsort order for --top: requests, most first, then arrival. */
static int by_requests(const void *pa, const void *pb)
{
	const struct lbt_denyi_item *a = pa, *b = pb;

	if (a->s.requests != b->s.requests)
		return a->s.requests > b->s.requests ? -1 : 1;
	return (a->order > b->order) - (a->order < b->order);
}

/* Step 1: mark the selected sources.  @return 0 or -1 with err */
static int select_sources(lbt_deny *d, lbt_err *err)
{
	const lbt_deny_opts *o = &d->o;
	int64_t kept = 0;

	if (check_thresholds(d, err) < 0)
		return -1;
	if (d->nit == 0)
		return 0;
	if (o->top > 0)
		qsort(d->it, d->nit, sizeof d->it[0], by_requests);
	for (size_t i = 0; i < d->nit; i++) {
		struct lbt_denyi_item *it = &d->it[i];

		if (it->s.origin == LBT_DENY_FROM_ARG) {
			it->selected = 1;
			continue;
		}
		it->selected = !o->picked_only &&
		    (o->min_share < 0 || share_of(d, &it->s) >= o->min_share) &&
		    (o->min_requests < 0 || it->s.requests >= o->min_requests) &&
		    (o->top <= 0 || kept < o->top);
		kept += it->selected;
	}
	qsort(d->it, d->nit, sizeof d->it[0], by_order);
	return 0;
}

/* Append a left-out item.  @return 0 or -1 */
static int leave(lbt_deny *d, const lbt_ipnet *net, const char *of, const char *fmt,
    const char *a, const char *b)
{
	lbt_deny_left *l;

	if (LBT_GROW(d->left, d->capleft, d->nleft + 1, 16) < 0)
		return -1;
	l = &d->left[d->nleft++];
	memset(l, 0, sizeof *l);
	l->net = *net;
	snprintf(l->of, sizeof l->of, "%s", of ? of : "");
	snprintf(l->why, sizeof l->why, fmt, a, b);
	return 0;
}

/* True when net is one of the --force-network networks, exactly. */
static int forced(const lbt_deny *d, const lbt_ipnet *net)
{
	for (size_t k = 0; k < d->nforced; k++)
		if (d->forced[k].bits == net->bits && lbt_addr_cmp(&d->forced[k].net, &net->net) == 0)
			return 1;
	return 0;
}

/*
 * Step 3 for one selected source: its reason when it is too wide, else
 * NULL.  --force reaches one step (/16, /32); wider needs the network
 * named by --force-network, so that a 0.0.0.0/0 in the data never
 * becomes a rule on every network by one flag.
 */
static const char *too_wide(const lbt_deny *d, const lbt_ipnet *net, char *buf, size_t size)
{
	int v4 = net->net.family == 4;
	int widest = v4 ? LBT_DENY_V4_WIDEST : LBT_DENY_V6_WIDEST;
	int ceiling = v4 ? LBT_DENY_V4_FORCED : LBT_DENY_V6_FORCED;
	char text[LBT_ADDR_STRLEN];

	if (net->bits >= widest || (d->o.force && net->bits >= ceiling) || forced(d, net))
		return NULL;
	lbt_addr_format_net(&net->net, net->bits, text, sizeof text);
	if (net->bits >= ceiling)
		snprintf(buf, size, "wider than /%d (--force to deny it)", widest);
	else
		snprintf(buf, size, "wider than /%d, too wide even for --force "
		    "(--force-network %s to deny this one)", ceiling, text);
	return buf;
}

/*
 * Step 3 for one selected source: its reason when its address came from
 * a header nobody vouches for, else NULL.  The flood of issue 19 sent
 * "X-Forwarded-For: 198.51.100.7" from 203.0.113.66: a rule on the
 * header's address blocks whom the attacker chose, never the sender.
 */
static const char *forged(const lbt_deny *d, const lbt_deny_src *s, char *buf, size_t size)
{
	if (d->o.trust_header || s->from_header <= 0)
		return NULL;
	snprintf(buf, size, "an X-Forwarded-For address in %lld requests, which any client "
	    "can write%s%s (--trust-header to deny it)", (long long)s->from_header,
	    s->via[0] ? "; sent by " : "", s->via);
	return buf;
}

/* Steps 2 and 3: widen, and leave out what is forged or too wide.  @return 0 or -1 */
static int widen(lbt_deny *d)
{
	for (size_t i = 0; i < d->nit; i++) {
		struct lbt_denyi_item *it = &d->it[i];
		int to = it->s.net.net.family == 4 ? d->o.v4_bits : d->o.v6_bits;
		char why[200];

		it->req = it->s.net;
		if (to >= 0 && to < it->req.bits) {
			it->req.bits = to;
			lbt_addr_mask(&it->req.net, to);
		}
		lbt_addr_format_net(&it->req.net, it->req.bits, it->text, sizeof it->text);
		if (!it->selected || (forged(d, &it->s, why, sizeof why) == NULL &&
		    too_wide(d, &it->req, why, sizeof why) == NULL))
			continue;
		it->dropped = 1;
		if (leave(d, &it->req, NULL, "%s%s", why, "") < 0)
			return -1;
	}
	return 0;
}

/* True when a contains b. */
static int contains(const lbt_ipnet *a, const lbt_ipnet *b)
{
	return a->net.family == b->net.family && a->bits <= b->bits &&
	    lbt_addr_in(&b->net, &a->net, a->bits);
}

/* True when a part already reported for this source (left[from..]) holds p. */
static int reported(const lbt_deny *d, size_t from, const lbt_ipnet *p)
{
	for (size_t k = from; k < d->nleft; k++)
		if (contains(&d->left[k].net, p))
			return 1;
	return 0;
}

/*
 * Report the overlap of source `it` with exclusion x (why: fmt with a, b).
 * @return 1 when x holds all of it (stop), 0 go on, -1 out of memory
 */
static int overlap(lbt_deny *d, struct lbt_denyi_item *it, size_t from, const lbt_ipnet *x,
    const char *fmt, const char *a, const char *b)
{
	if (contains(x, &it->req)) {
		it->dropped = 1;
		return leave(d, &it->req, NULL, fmt, a, b) < 0 ? -1 : 1;
	}
	if (!contains(&it->req, x) || reported(d, from, x))
		return 0;
	return leave(d, x, it->text, fmt, a, b) < 0 ? -1 : 0;
}

/* The reason text of allow-list entry a into buf. */
static const char *allow_where(const struct lbt_denyi_allow *a, char *buf, size_t size)
{
	char net[LBT_ADDR_STRLEN];

	if (a->own)
		snprintf(buf, size, "the load balancer's own address (bind at %s:%llu)",
		    a->file ? a->file : "?", (unsigned long long)a->line);
	else if (a->file)
		snprintf(buf, size, "%s:%llu", a->file, (unsigned long long)a->line);
	else
		snprintf(buf, size, "--allow %s", lbt_addr_format_net(&a->net.net, a->net.bits,
		    net, sizeof net));
	return buf;
}

/* Step 4, the reasons: each exclusion met by one kept source.  @return 0 or -1 */
static int reasons_of(lbt_deny *d, struct lbt_denyi_item *it, lbt_ipset *allowset)
{
	size_t n, from = d->nleft;
	const lbt_special *sp = lbt_special_table(&n);
	char where[400];
	int r = 0;

	for (size_t k = 0; k < n && r == 0; k++) {
		lbt_ipnet x;

		lbt_special_net(&sp[k], &x.net, &x.bits);
		if (contains(&x, &it->req) && lbt_special_find(&it->req.net, it->req.bits) != &sp[k])
			continue;    /* a narrower entry holding it says it better */
		r = overlap(d, it, from, &x, "%s%s", sp[k].why, "");
	}
	if (r != 0 || lbt_ipset_covers(allowset, &it->req.net, it->req.bits) == LBT_IPSET_NONE)
		return r < 0 ? -1 : 0;
	for (size_t k = 0; k < d->nal && r == 0; k++)
		r = overlap(d, it, from, &d->al[k].net, d->al[k].own ? "%s%s" :
		    "in the allow list (%s)%s", allow_where(&d->al[k], where, sizeof where), "");
	return r < 0 ? -1 : 0;
}

/* The exclusion set: special ranges and allow list.  @return it or NULL */
static lbt_ipset *exclusions(const lbt_deny *d)
{
	lbt_ipset *x = lbt_ipset_new();
	size_t n;
	const lbt_special *sp = lbt_special_table(&n);

	for (size_t k = 0; x && k < n; k++) {
		lbt_addr a;
		int bits;

		lbt_special_net(&sp[k], &a, &bits);
		if (lbt_ipset_add(x, &a, bits) < 0)
			goto fail;
	}
	for (size_t k = 0; x && k < d->nal; k++)
		if (lbt_ipset_add(x, &d->al[k].net.net, d->al[k].net.bits) < 0)
			goto fail;
	return x;
fail:
	lbt_ipset_free(x);
	return NULL;
}

/* True when the kept source it may be wider than the limit (forced). */
static int is_wide(const struct lbt_denyi_item *it)
{
	return it->req.bits < (it->req.net.family == 4 ? LBT_DENY_V4_WIDEST : LBT_DENY_V6_WIDEST);
}

/* Append networks v[0..n) to the rule.  @return 0 or -1 */
static int add_rules(lbt_deny *d, const lbt_ipnet *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		lbt_deny_rule *r;

		if (LBT_GROW(d->rules, d->caprules, d->nrules + 1, 16) < 0)
			return -1;
		r = &d->rules[d->nrules++];
		memset(r, 0, sizeof *r);
		r->net = v[i];
		r->requests = LBT_DENY_UNKNOWN;
		r->share = -1.0;
		r->first_us = r->last_us = LBT_DENY_NO_TIME;
	}
	return 0;
}

/* True when kept source it lies inside another forced wide kept source
 * (an earlier one when both are equal: duplicates are gone). */
static int inside_wide(const lbt_deny *d, const struct lbt_denyi_item *it)
{
	for (size_t j = 0; j < d->nit; j++) {
		const struct lbt_denyi_item *o = &d->it[j];

		if (o != it && o->selected && !o->dropped && is_wide(o) &&
		    contains(&o->req, &it->req) && o->req.bits < it->req.bits)
			return 1;
	}
	return 0;
}

/* A forced wide source: its own addresses minus x, never merged with a
 * neighbour (no network wider than what was asked).  @return 0 or -1 */
static int wide_rules(lbt_deny *d, const struct lbt_denyi_item *it, lbt_ipset *x,
    lbt_ipset *all)
{
	lbt_ipset *w = lbt_ipset_new();
	lbt_ipnet *v = NULL;
	size_t n = 0;
	int rc = -1;

	if (w && lbt_ipset_add(w, &it->req.net, it->req.bits) == 0 &&
	    lbt_ipset_union(all, w) == 0 && lbt_ipset_subtract(w, x) == 0 &&
	    lbt_ipset_union(d->covered, w) == 0 &&
	    lbt_ipset_networks(w, it->req.bits, it->req.bits, &v, &n) == 0)
		rc = add_rules(d, v, n);
	free(v);
	lbt_ipset_free(w);
	return rc;
}

/* qsort order of rules: by network. */
static int rule_cmp(const void *pa, const void *pb)
{
	const lbt_deny_rule *a = pa, *b = pb;

	return lbt_addr_cmp(&a->net.net, &b->net.net);
}

/*
 * Step 5: the rule's networks.  A forced wide source is written on its
 * own, never wider than itself; the others are merged, never wider than
 * /24 and /48; a narrow source inside a wide one is part of it.
 * @return 0 or -1
 */
static int merge(lbt_deny *d, lbt_ipset *x)
{
	lbt_ipset *wide = lbt_ipset_new(), *nw = lbt_ipset_new();
	lbt_ipnet *v = NULL;
	size_t n = 0;
	int rc = -1;

	if (wide == NULL || nw == NULL)
		goto out;
	for (size_t i = 0; i < d->nit; i++) {
		const struct lbt_denyi_item *it = &d->it[i];

		if (!it->selected || it->dropped)
			continue;
		if (!is_wide(it) && lbt_ipset_add(nw, &it->req.net, it->req.bits) < 0)
			goto out;
		if (is_wide(it) && !inside_wide(d, it) && wide_rules(d, it, x, wide) < 0)
			goto out;
	}
	if (lbt_ipset_subtract(nw, wide) < 0 || lbt_ipset_subtract(nw, x) < 0 ||
	    lbt_ipset_union(d->covered, nw) < 0 ||
	    lbt_ipset_networks(nw, LBT_DENY_V4_WIDEST, LBT_DENY_V6_WIDEST, &v, &n) < 0 ||
	    add_rules(d, v, n) < 0)
		goto out;
	if (d->nrules > 1)
		qsort(d->rules, d->nrules, sizeof d->rules[0], rule_cmp);
	rc = 0;
out:
	free(v);
	lbt_ipset_free(wide);
	lbt_ipset_free(nw);
	return rc;
}

/* Add the names of merged sources to r->merged ("a, b, c and N more"). */
static void name_merged(lbt_deny_rule *r, const char *text)
{
	size_t len = strlen(r->merged);
	char *more;

	if (r->nsources <= 3) {
		snprintf(r->merged + len, sizeof r->merged - len, "%s%s", len ? ", " : "", text);
		return;
	}
	if ((more = strstr(r->merged, " and ")) != NULL)
		*more = '\0';
	len = strlen(r->merged);
	snprintf(r->merged + len, sizeof r->merged - len, " and %zu more", r->nsources - 3);
}

/* Credit source it to the rule network r wholly holding it. */
static void credit(lbt_deny *d, lbt_deny_rule *r, struct lbt_denyi_item *it)
{
	double sh = share_of(d, &it->s);
	char orig[LBT_ADDR_STRLEN];

	it->in_rule = 1;
	r->nsources++;
	name_merged(r, lbt_addr_format_net(&it->s.net.net, it->s.net.bits, orig, sizeof orig));
	if (it->s.requests >= 0)
		r->requests = (r->requests < 0 ? 0 : r->requests) + it->s.requests;
	if (sh >= 0)
		r->share = (r->share < 0 ? 0 : r->share) + sh;
	if (it->s.first_us != LBT_DENY_NO_TIME &&
	    (r->first_us == LBT_DENY_NO_TIME || it->s.first_us < r->first_us))
		r->first_us = it->s.first_us;
	if (it->s.last_us != LBT_DENY_NO_TIME && it->s.last_us > r->last_us)
		r->last_us = it->s.last_us;
}

/* What each rule network stands for: the kept sources inside it, or the
 * source it was carved from. */
static void attribute(lbt_deny *d)
{
	for (size_t i = 0; i < d->nit; i++) {
		struct lbt_denyi_item *it = &d->it[i];
		size_t k;

		if (!it->selected || it->dropped)
			continue;
		k = lbt_denyi_rule_of(d, &it->req);
		if (k == (size_t)-1)
			continue;
		if (contains(&d->rules[k].net, &it->req)) {
			credit(d, &d->rules[k], it);
			continue;
		}
		for (; k < d->nrules && contains(&it->req, &d->rules[k].net); k++)
			if (d->rules[k].part_of == NULL)
				d->rules[k].part_of = it->text;
	}
	for (size_t k = 0; k < d->nrules; k++)
		if (d->rules[k].nsources < 2)
			d->rules[k].merged[0] = '\0';
}

/* Step 6: the sources not selected that the rule matches.  @return 0 or -1 */
static int collateral(lbt_deny *d)
{
	lbt_deny_totals *t = &d->tot;

	for (size_t i = 0; i < d->nit; i++) {
		const struct lbt_denyi_item *it = &d->it[i];
		lbt_ipset_cover c;
		lbt_deny_collateral *co;
		size_t k;

		if (it->selected)
			continue;
		c = lbt_ipset_covers(d->covered, &it->s.net.net, it->s.net.bits);
		if (c == LBT_IPSET_NONE)
			continue;
		if (LBT_GROW(d->coll, d->capcoll, d->ncoll + 1, 8) < 0)
			return -1;
		co = &d->coll[d->ncoll++];
		memset(co, 0, sizeof *co);
		co->net = it->s.net;
		co->requests = it->s.requests;
		co->whole = c == LBT_IPSET_ALL;
		if ((k = lbt_denyi_rule_of(d, &it->s.net)) != (size_t)-1)
			lbt_denyi_net(&d->rules[k].net, co->by, sizeof co->by);
		if (it->s.requests >= 0)
			*(co->whole ? &t->collateral : &t->collateral_part) += it->s.requests;
	}
	t->collateral_n = d->ncoll;
	return 0;
}

/* The totals of the selected sources and the rule. */
static void sum_selected(lbt_deny *d)
{
	lbt_deny_totals *t = &d->tot;
	int peaks = 0, unknown = 0;

	t->sources = d->nit;
	t->peak_rps = 0;
	for (size_t i = 0; i < d->nit; i++) {
		const struct lbt_denyi_item *it = &d->it[i];

		t->selected += it->selected;
		if (it->selected && !it->in_rule && it->s.requests >= 0 &&
		    lbt_ipset_covers(d->covered, &it->req.net, it->req.bits) == LBT_IPSET_PART)
			t->denied_part += it->s.requests;
		if (!it->in_rule)
			continue;
		if (it->s.requests >= 0)
			t->denied += it->s.requests;
		if (it->s.peak_rps >= 0) {
			t->peak_rps += it->s.peak_rps;
			peaks++;
		} else {
			unknown++;
		}
	}
	t->others = t->sources - t->selected;
	if (peaks == 0 || unknown > 0)
		t->peak_rps = LBT_DENY_UNKNOWN;
}

/* Decide.  @return 0, or -1 with err */
int lbt_deny_finish(lbt_deny *d, lbt_err *err)
{
	lbt_ipset *x = NULL;
	lbt_ipset *allowset = lbt_ipset_new();
	int rc = -1;

	if (d->finished)
		return lbt_err_set(err, "lbt_deny_finish called twice");
	d->finished = 1;
	dedup(d);
	count_totals(d);
	if (select_sources(d, err) < 0)
		goto out;
	if (allowset == NULL || widen(d) < 0 || (x = exclusions(d)) == NULL)
		goto oom;
	for (size_t k = 0; k < d->nal; k++)
		if (lbt_ipset_add(allowset, &d->al[k].net.net, d->al[k].net.bits) < 0)
			goto oom;
	for (size_t i = 0; i < d->nit; i++)
		if (d->it[i].selected && !d->it[i].dropped &&
		    reasons_of(d, &d->it[i], allowset) < 0)
			goto oom;
	if (merge(d, x) < 0)
		goto oom;
	attribute(d);
	if (collateral(d) < 0)
		goto oom;
	sum_selected(d);
	rc = 0;
	goto out;
oom:
	lbt_err_set(err, "out of memory");
out:
	lbt_ipset_free(x);
	lbt_ipset_free(allowset);
	return rc;
}
