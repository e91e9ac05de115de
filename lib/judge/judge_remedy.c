/*
 * judge_remedy.c - the remedies of lbt_triage (judge.h), by cause
 * (docs/judge.md): a customer gets a per-source rate limit with
 * Retry-After (limit_lines), a surge nothing, and a flood the deny rule:
 * every source of the offenders analysis goes into lib/rule's decision
 * (deny.h), the floods picked, the others as data, so the same selection,
 * safety checks, merging and collateral as lbt-deny's apply.  The rule is
 * written by lbt_deny_write, as lbt-deny writes it, and shown without its
 * comments: inline when it fits on one line of the screen, else naming a
 * list file.  The command given is lbt-deny with the rule's networks as
 * operands, which writes the same lines.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge_int.h"

#define LIST_HAPROXY "/etc/haproxy/offenders.lst"
#define LIST_NGINX "/etc/nginx/offenders.conf"

/* Source s as lib/rule takes it: picked ones as chosen (FROM_ARG). */
static lbt_deny_src deny_src(const lbt_triage *t, const lbt_triage_source *s)
{
	const lbt_offender *r = s->row;
	lbt_deny_src d = LBT_DENY_SRC_INIT;

	d.net.net = r->net;
	d.net.bits = lbt_netgroup_bits(&lbt_offenders_opts_get(t->in.offenders)->net,
	    r->net.family);
	d.requests = (int64_t)r->requests;
	d.share = r->share;
	d.peak_rps = r->peak_count;
	d.first_us = r->first_us;
	d.last_us = r->last_us;
	d.from_header = (int64_t)r->from_header;   /* lib/rule leaves such a source out */
	if (r->via.family != 0) {          /* as lbt-offenders writes it: "+" when others too */
		char a[LBT_ADDR_STRLEN];

		snprintf(d.via, sizeof d.via, "%s%s", lbt_addr_format(&r->via, a, sizeof a),
		    r->via_many ? "+" : "");
	}
	/* only a flood is denied: a customer (a baseline) is limited or left */
	d.origin = s->cause == LBT_TRIAGE_CAUSE_FLOOD || s->cause == LBT_TRIAGE_CAUSE_PREFIX ?
	    LBT_DENY_FROM_ARG : LBT_DENY_FROM_DATA;
	return d;
}

/* The list file's path in the rule. */
static const char *list_path(const lbt_triage *t)
{
	if (t->o.list_path != NULL)
		return t->o.list_path;
	return t->o.dialect == LBT_DENY_NGINX ? LIST_NGINX : LIST_HAPROXY;
}

/*
 * The configuration lines of the rule written with g, comments and blank
 * lines left out, into *out (malloc'ed, '\n' after each line); *widest
 * gets the longest.  @return 0, or -1 with err
 */
static int config_lines(const lbt_triage *t, const lbt_deny_gen *g, char **out,
    size_t *widest, lbt_err *err)
{
	char *text = NULL, *line, *save = NULL, *keep;
	size_t len = 0, n = 0;
	FILE *fp;
	int rc;

	if (lbt_deny_gen_check(t->deny, g, err) < 0)
		return -1;
	if ((fp = open_memstream(&text, &len)) == NULL)
		return lbt_err_set(err, "out of memory");
	rc = lbt_deny_write(t->deny, g, LBT_DENY_PART_CONFIG, fp, err);
	if (fclose(fp) != 0 || rc < 0 || (keep = malloc(len + 1)) == NULL) {
		free(text);
		return rc < 0 ? -1 : lbt_err_set(err, "out of memory");
	}
	*widest = 0;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		size_t k = strlen(line);

		if (line[0] == '#' || line[strspn(line, " ")] == '\0')
			continue;
		memcpy(keep + n, line, k);
		keep[n + k] = '\n';
		n += k + 1;
		*widest = k > *widest ? k : *widest;
	}
	keep[n] = '\0';
	free(text);
	*out = keep;
	return 0;
}

/* The rule's networks, one a line, into t->rule_list.  @return 0 or -1 */
static int network_list(lbt_triage *t)
{
	size_t n = lbt_deny_nrules(t->deny), len = 0;
	char net[LBT_ADDR_STRLEN];

	if ((t->rule_list = malloc(n * (LBT_ADDR_STRLEN + 1) + 1)) == NULL)
		return -1;
	for (size_t i = 0; i < n; i++) {
		const lbt_deny_rule *r = lbt_deny_rule_at(t->deny, i);

		lbt_addr_format_net(&r->net.net, r->net.bits, net, sizeof net);
		len += (size_t)sprintf(t->rule_list + len, "%s\n", net);
	}
	t->rule_list[len] = '\0';
	return 0;
}

/* The lbt-deny command that writes the rule as shown, into t->command. */
static void command(lbt_triage *t, const lbt_deny_gen *g)
{
	size_t n = lbt_deny_nrules(t->deny), k = 0;
	char (*nets)[LBT_ADDR_STRLEN] = malloc((n ? n : 1) * sizeof *nets);
	char **argv = malloc((n + 12) * sizeof *argv);
	int into = t->o.place != NULL && g->dialect == LBT_DENY_HAPROXY;
	char out[1024];

	t->command[0] = '\0';
	if (nets != NULL && argv != NULL) {
		argv[k++] = "lbt-deny";
		if (g->dialect == LBT_DENY_NGINX)
			argv[k++] = "--nginx";
		if (into) {                 /* placed, checked, the old file kept */
			argv[k++] = "--into";
			argv[k++] = (char *)t->o.place_cfg;
			argv[k++] = "--frontend";
			argv[k++] = (char *)t->o.place_frontend;
			argv[k++] = "-o";       /* the operator reads the diff, then moves it */
			snprintf(out, sizeof out, "%s.new", strrchr(t->o.place_cfg, '/') ?
			    strrchr(t->o.place_cfg, '/') + 1 : t->o.place_cfg);
			argv[k++] = out;
		}
		if (into && g->list_path != NULL) {
			argv[k++] = "--acl-path";
			argv[k++] = (char *)g->list_path;
		}
		if (!into && g->list_path != NULL) {
			argv[k++] = "-o";
			argv[k++] = (char *)g->list_path;
		}
		if (!into && g->list_path != NULL && g->list_path[0] != '/') {
			argv[k++] = "--acl-path";         /* lbt-deny would make -o absolute */
			argv[k++] = (char *)g->list_path;
		}
		for (size_t i = 0; i < n; i++) {
			const lbt_deny_rule *r = lbt_deny_rule_at(t->deny, i);

			argv[k++] = (char *)lbt_addr_format_net(&r->net.net, r->net.bits, nets[i],
			    sizeof nets[i]);
		}
		lbt_deny_command((int)k, argv, t->command, sizeof t->command);
	}
	free(nets);
	free(argv);
}

/* The lines of the rule: inline when they fit the screen, else with the
 * list file.  @return 0 or -1 with err */
static int write_rule(lbt_triage *t, lbt_err *err)
{
	lbt_deny_gen g = LBT_DENY_GEN_INIT;
	size_t widest = 0;

	g.dialect = t->o.dialect;
	g.action = LBT_DENY_ACT_DENY;
	g.now_us = t->sum.now_us;
	if (lbt_deny_nrules(t->deny) <= LBT_DENY_INLINE_MAX) {
		if (config_lines(t, &g, &t->rule_lines, &widest, err) < 0)
			return -1;
		if (widest > LBT_JUDGEI_WIDTH) {
			free(t->rule_lines);
			t->rule_lines = NULL;
		}
	}
	if (t->rule_lines == NULL) {
		g.list_path = t->list_file = list_path(t);
		if (config_lines(t, &g, &t->rule_lines, &widest, err) < 0)
			return -1;
	}
	if (network_list(t) < 0)
		return lbt_err_set(err, "out of memory");
	command(t, &g);
	return 0;
}

/*
 * The rate-limit remedy of the customers (cause CUSTOMER), for HAProxy: a
 * stick-table keyed on src,ipmask(32,64), so an IPv4 client is counted by
 * its /32 and an IPv6 one by its /64 in one table, and per customer a 429
 * with Retry-After past its limit a 10 s window.  Only HAProxy: NGINX's
 * limit_req has no per-source rate of this shape (the screen says so).
 * @return 0, or -1 with err
 */
static int limit_lines(lbt_triage *t, lbt_err *err)
{
	size_t cap = 256 + t->sum.to_limit * (LBT_ADDR_STRLEN + 192), len = 0, k = 0;
	char net[LBT_ADDR_STRLEN];

	if (t->sum.to_limit == 0 || t->o.dialect != LBT_DENY_HAPROXY)
		return 0;
	if ((t->limit_lines = malloc(cap)) == NULL)
		return lbt_err_set(err, "out of memory");
	len += (size_t)snprintf(t->limit_lines + len, cap - len, "stick-table type ipv6 "
	    "size 1m expire 60s store http_req_rate(10s)\nhttp-request track-sc0 "
	    "src,ipmask(32,64)\n");
	for (size_t i = 0; i < t->nsrc; i++) {
		const lbt_triage_source *s = &t->src[i];
		const lbt_offender *r = s->row;
		int bits = lbt_netgroup_bits(&lbt_offenders_opts_get(t->in.offenders)->net,
		    r->net.family);

		if (s->cause != LBT_TRIAGE_CAUSE_CUSTOMER)
			continue;
		lbt_addr_format_net(&r->net, bits, net, sizeof net);
		k++;                  /* acls keep each line within the screen's 80 columns */
		len += (size_t)snprintf(t->limit_lines + len, cap - len, "acl lbt_c%zu src %s\n"
		    "acl lbt_c%zu_over sc0_http_req_rate gt %lld\nhttp-request return status 429 "
		    "hdr Retry-After %d if lbt_c%zu lbt_c%zu_over\n", k, net, k,
		    (long long)s->limit, LBT_TRIAGE_RETRY_AFTER, k, k);
		assert(len < cap);
	}
	return 0;
}

/* Decide the remedies of the offenders of t->src: the deny rule of the
 * floods, the rate limit of the customers.  @return 0 or -1 with err */
int lbt_judgei_remedy(lbt_triage *t, lbt_err *err)
{
	lbt_ipset *covered;

	if (limit_lines(t, err) < 0)
		return -1;
	if (t->sum.to_deny == 0)
		return 0;
	for (size_t i = 0; i < t->nsrc; i++) {
		lbt_deny_src s = deny_src(t, &t->src[i]);

		if (lbt_deny_add(t->deny, &s, err) < 0)
			return -1;
	}
	for (size_t i = 0; i < t->nprefixes; i++) {
		lbt_deny_src p = LBT_DENY_SRC_INIT;   /* its members merge into it */

		p.net = t->prefixes[i].net;
		p.requests = 0;
		p.share = 0;
		p.origin = LBT_DENY_FROM_ARG;
		if (lbt_deny_add(t->deny, &p, err) < 0)
			return -1;
	}
	if (lbt_deny_finish(t->deny, err) < 0)
		return -1;
	covered = lbt_deny_covered(t->deny);
	for (size_t i = 0; i < t->nsrc; i++) {
		lbt_deny_src s = deny_src(t, &t->src[i]);

		t->src[i].in_rule = lbt_ipset_covers(covered, &s.net.net, s.net.bits);
	}
	if (lbt_deny_nrules(t->deny) == 0)
		return 0;
	t->has_rule = 1;
	return write_rule(t, err);
}

/* The decision, or NULL when no source is to be denied. */
const lbt_deny *lbt_triage_rule(const lbt_triage *t)
{
	return t->sum.to_deny > 0 ? t->deny : NULL;
}

/* The slow-headers remedy ("" when no source sent slow headers). */
const char *lbt_triage_timeout_line(const lbt_triage *t)
{
	static const char line[] = "timeout http-request 5s\n";

	_Static_assert(LBT_TRIAGE_TIMEOUT_S == 5, "the line says 5s");
	return t->sum.to_time > 0 && t->o.dialect == LBT_DENY_HAPROXY ? line : "";
}

/* The rate-limit lines ("" when no customer needs one). */
const char *lbt_triage_limit_lines(const lbt_triage *t)
{
	return t->limit_lines ? t->limit_lines : "";
}

/* The configuration lines ("" without a rule). */
const char *lbt_triage_rule_lines(const lbt_triage *t)
{
	return t->rule_lines ? t->rule_lines : "";
}

/* The list file the lines name, NULL when they are inline. */
const char *lbt_triage_rule_file(const lbt_triage *t)
{
	return t->list_file;
}

/* The networks of the rule, one a line ("" without a rule). */
const char *lbt_triage_rule_list(const lbt_triage *t)
{
	return t->rule_list ? t->rule_list : "";
}

/* The lbt-deny command ("" without a rule). */
const char *lbt_triage_command(const lbt_triage *t)
{
	return t->has_rule ? t->command : "";
}

/* Where the rule goes, or NULL. */
const char *lbt_triage_place(const lbt_triage *t)
{
	return t->o.place;
}
