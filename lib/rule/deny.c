/*
 * deny.c - the lbt_deny object: its sources, allow list and inputs, and
 * the accessors of its results.  The decision itself is deny_decide.c,
 * the readers deny_read.c, the writers deny_write.c and deny_<dialect>.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbt/vec.h"
#include "deny_int.h"

/* A new decision with options o.  @return it, or NULL with err */
lbt_deny *lbt_deny_new(const lbt_deny_opts *o, lbt_err *err)
{
	lbt_deny *d = calloc(1, sizeof *d);

	if (d == NULL || (d->covered = lbt_ipset_new()) == NULL) {
		free(d);
		lbt_err_set(err, "out of memory");
		return NULL;
	}
	d->o = *o;
	return d;
}

/* Free d and everything it owns; NULL accepted. */
void lbt_deny_free(lbt_deny *d)
{
	if (d == NULL)
		return;
	for (size_t i = 0; i < d->nnames; i++)
		free(d->names[i]);
	free(d->names);
	free(d->it);
	free(d->al);
	free(d->forced);
	free(d->in);
	free(d->rules);
	free(d->left);
	free(d->coll);
	lbt_ipset_free(d->covered);
	free(d);
}

/* An owned copy of name (the latest copy reused when equal).  @return it or NULL */
const char *lbt_denyi_name(lbt_deny *d, const char *name)
{
	char *c;

	if (name == NULL)
		return NULL;
	for (size_t i = d->nnames; i > 0; i--)
		if (strcmp(d->names[i - 1], name) == 0)
			return d->names[i - 1];
	if (LBT_GROW(d->names, d->capnames, d->nnames + 1, 4) < 0 ||
	    (c = strdup(name)) == NULL)
		return NULL;
	d->names[d->nnames++] = c;
	return c;
}

/* Note an input being read.  @return 0 or -1 when out of memory */
int lbt_denyi_input(lbt_deny *d, const char *name, const char *kind)
{
	const char *n = lbt_denyi_name(d, name);

	if (n == NULL || LBT_GROW(d->in, d->capin, d->nin + 1, 4) < 0)
		return -1;
	d->in[d->nin++] = (struct lbt_denyi_input){ n, kind, 0 };
	return 0;
}

/* Count a row of the input being read. */
void lbt_denyi_row(lbt_deny *d)
{
	if (d->nin > 0)
		d->in[d->nin - 1].rows++;
}

/* Add one source (duplicates are merged by lbt_deny_finish).  @return 0 or -1 */
int lbt_deny_add(lbt_deny *d, const lbt_deny_src *s, lbt_err *err)
{
	struct lbt_denyi_item *it;

	if (d->finished)
		return lbt_err_set(err, "lbt_deny_add after lbt_deny_finish");
	if (s->net.net.family != 4 && s->net.net.family != 6)
		return lbt_err_at(err, s->file ? s->file : "", s->line, "a source without an address");
	if (LBT_GROW(d->it, d->capit, d->nit + 1, 64) < 0)
		return lbt_err_set(err, "out of memory");
	it = &d->it[d->nit];
	memset(it, 0, sizeof *it);
	it->s = *s;
	it->s.file = NULL;
	if (s->file && (it->s.file = lbt_denyi_name(d, s->file)) == NULL)
		return lbt_err_set(err, "out of memory");
	lbt_addr_mask(&it->s.net.net, it->s.net.bits);
	it->order = d->nit++;
	return 0;
}

/* True when s[0..len) holds a ':' (IPv6 text). */
static int has_colon(const char *s, size_t len)
{
	return memchr(s, ':', len) != NULL;
}

/* Parse "ADDR[/BITS]" into *out, host bits cleared.  @return 0, or -1 with err */
int lbt_deny_parse_net(const char *s, size_t len, lbt_ipnet *out, lbt_err *err)
{
	char buf[LBT_ADDR_STRLEN + 8];

	if (len == 0 || len >= sizeof buf)
		return lbt_err_set(err, "'%.*s' is not an address or network", (int)(len > 60 ? 60 : len), s);
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (lbt_addr_parse_prefix(buf, &out->net, &out->bits) < 0) {
		lbt_addr a;
		const char *slash = memchr(buf, '/', len);

		if (lbt_addr_parse(buf, slash ? (size_t)(slash - buf) : len, &a) == 0 &&
		    a.family == 4 && has_colon(buf, len))
			return lbt_err_set(err, "'%s' is an IPv4-mapped IPv6 network (RFC 4291): "
			    "write the IPv4 network", buf);
		return lbt_err_set(err, "'%s' is not an address or network", buf);
	}
	if (out->net.family == 4 && has_colon(buf, len))
		return lbt_err_set(err, "'%s' is an IPv4-mapped IPv6 address (RFC 4291): "
		    "write it as IPv4", buf);
	lbt_addr_mask(&out->net, out->bits);
	return 0;
}

/* Add the operand arg as a selected source.  @return 0, or -1 with err */
int lbt_deny_add_text(lbt_deny *d, const char *arg, lbt_err *err)
{
	lbt_deny_src s = LBT_DENY_SRC_INIT;

	if (lbt_deny_parse_net(arg, strlen(arg), &s.net, err) < 0)
		return -1;
	if (d->nargs++ == 0 && lbt_denyi_input(d, "arguments", NULL) < 0)
		return lbt_err_set(err, "out of memory");
	lbt_denyi_row(d);
	s.origin = LBT_DENY_FROM_ARG;
	return lbt_deny_add(d, &s, err);
}

/* Add an exclusion: an allow-list entry, or the LB's own address.
 * @return 0, or -1 with err */
static int exclude(lbt_deny *d, const lbt_ipnet *net, const char *file, uint64_t line,
    int own, lbt_err *err)
{
	const char *f = NULL;

	if (file && (f = lbt_denyi_name(d, file)) == NULL)
		return lbt_err_set(err, "out of memory");
	if (LBT_GROW(d->al, d->capal, d->nal + 1, 16) < 0)
		return lbt_err_set(err, "out of memory");
	d->al[d->nal] = (struct lbt_denyi_allow){ *net, f, line, own };
	lbt_addr_mask(&d->al[d->nal].net.net, net->bits);
	d->nal++;
	return 0;
}

/* Add an allow-list entry.  @return 0, or -1 with err */
int lbt_deny_allow(lbt_deny *d, const lbt_ipnet *net, const char *file, uint64_t line,
    lbt_err *err)
{
	return exclude(d, net, file, line, 0, err);
}

/* Add one of the load balancer's own addresses.  @return 0, or -1 with err */
int lbt_deny_own(lbt_deny *d, const lbt_ipnet *net, const char *file, uint64_t line,
    lbt_err *err)
{
	return exclude(d, net, file, line, 1, err);
}

/* Allow the exact network `text` names whatever its width (--force-network).
 * @return 0, or -1 with err */
int lbt_deny_force_network(lbt_deny *d, const char *text, lbt_err *err)
{
	lbt_ipnet net;
	char why[sizeof err->msg];

	if (lbt_deny_parse_net(text, strlen(text), &net, err) < 0) {
		snprintf(why, sizeof why, "%s", err->msg);
		return lbt_err_set(err, "--force-network: %s", why);
	}
	if (LBT_GROW(d->forced, d->capforced, d->nforced + 1, 4) < 0)
		return lbt_err_set(err, "out of memory");
	d->forced[d->nforced++] = net;
	return 0;
}

/* The inputs as one line of text.  @return buf */
const char *lbt_deny_inputs(const lbt_deny *d, char *buf, size_t size)
{
	size_t used = 0;

	if (size == 0)
		return buf;
	buf[0] = '\0';
	for (size_t i = 0; i < d->nin && used < size; i++) {
		const struct lbt_denyi_input *in = &d->in[i];
		int w;

		if (in->kind == NULL)
			w = snprintf(buf + used, size - used, "%sarguments (%zu)", i ? ", " : "",
			    in->rows);
		else
			w = snprintf(buf + used, size - used, "%s%s (%s, %zu row%s)", i ? ", " : "",
			    strcmp(in->name, "(stdin)") == 0 ? "stdin" : in->name, in->kind, in->rows,
			    in->rows == 1 ? "" : "s");
		if (w < 0)
			break;
		used += (size_t)w;
	}
	if (d->nin == 0)
		snprintf(buf, size, "no input");
	return buf;
}

/* The number of networks of the rule. */
size_t lbt_deny_nrules(const lbt_deny *d)
{
	return d->nrules;
}

/* The i-th network of the rule, in address order (IPv4 first). */
const lbt_deny_rule *lbt_deny_rule_at(const lbt_deny *d, size_t i)
{
	return &d->rules[i];
}

/* The number of parts left out. */
size_t lbt_deny_nleft(const lbt_deny *d)
{
	return d->nleft;
}

/* The i-th part left out, in the order the sources came. */
const lbt_deny_left *lbt_deny_left_at(const lbt_deny *d, size_t i)
{
	return &d->left[i];
}

/* The number of collateral sources. */
size_t lbt_deny_ncollateral(const lbt_deny *d)
{
	return d->ncoll;
}

/* The i-th collateral source. */
const lbt_deny_collateral *lbt_deny_collateral_at(const lbt_deny *d, size_t i)
{
	return &d->coll[i];
}

/* The totals of the decision. */
const lbt_deny_totals *lbt_deny_totals_get(const lbt_deny *d)
{
	return &d->tot;
}

/* The covered set (owned by d). */
lbt_ipset *lbt_deny_covered(lbt_deny *d)
{
	return d->covered;
}

/* True when a/abits contains b/bbits. */
static int net_contains(const lbt_ipnet *a, const lbt_ipnet *b)
{
	return a->net.family == b->net.family && a->bits <= b->bits &&
	    lbt_addr_in(&b->net, &a->net, a->bits);
}

/* Index of the rule containing net, else the first inside it, else (size_t)-1.
 * Rules are sorted and disjoint: binary search for the last one that
 * starts at or before net. */
size_t lbt_denyi_rule_of(const lbt_deny *d, const lbt_ipnet *net)
{
	size_t lo = 0, hi = d->nrules;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (lbt_addr_cmp(&d->rules[mid].net.net, &net->net) <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo > 0 && net_contains(&d->rules[lo - 1].net, net))
		return lo - 1;
	if (lo > 0 && net_contains(net, &d->rules[lo - 1].net))
		return lo - 1;
	if (lo < d->nrules && net_contains(net, &d->rules[lo].net))
		return lo;
	return (size_t)-1;
}
