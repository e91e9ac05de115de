/*
 * deny_write.c - what every dialect's writer shares (deny_emit.c calls the
 * writers): the check that the options go together, the header comment
 * (what, when, from which data, with which options, what each network
 * stands for), the option parsers of --action and --rate-limit, and the
 * tarpit estimate.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "lbt/num.h"
#include "lbt/timeparse.h"
#include "lbt/version.h"
#include "deny_int.h"

/* Header lines listing networks, left-outs or collateral stop after this many. */
#define HEADER_LIST_MAX 10

/* Text of a network: "203.0.113.7", "2001:db8:bad:1::/64".  @return buf */
const char *lbt_denyi_net(const lbt_ipnet *n, char *buf, size_t size)
{
	return lbt_addr_format_net(&n->net, n->bits, buf, size);
}

/* The option value naming action a. */
const char *lbt_denyi_action_name(lbt_deny_action a)
{
	static const char *const names[] = { "deny", "reject", "silent-drop", "tarpit",
		"rate-limit" };

	return names[a];
}

/* The name of a dialect. */
const char *lbt_denyi_dialect_name(lbt_deny_dialect dl)
{
	static const char *const names[] = { "HAProxy", "NGINX", "nftables", "JSON" };

	return names[dl];
}

/* A duration in HAProxy's units, the largest that is exact ("10s", "1m", "500ms"). */
void lbt_denyi_period(int64_t us, char *buf, size_t size)
{
	static const struct { int64_t us; const char *unit; } u[] = {
		{ 86400000000, "d" }, { 3600000000, "h" }, { 60000000, "m" }, { 1000000, "s" },
		{ 1000, "ms" }, { 1, "us" },
	};

	for (size_t i = 0; i < sizeof u / sizeof u[0]; i++)
		if (us % u[i].us == 0) {
			snprintf(buf, size, "%lld%s", (long long)(us / u[i].us), u[i].unit);
			return;
		}
}

/* Parse --action.  @return 0, or -1 with err */
int lbt_deny_parse_action(const char *s, lbt_deny_action *a, lbt_err *err)
{
	for (int i = LBT_DENY_ACT_DENY; i <= LBT_DENY_ACT_TARPIT; i++)
		if (strcmp(s, lbt_denyi_action_name((lbt_deny_action)i)) == 0) {
			*a = (lbt_deny_action)i;
			return 0;
		}
	return lbt_err_set(err, "--action: '%s' is not deny, reject, silent-drop or tarpit", s);
}

/* Parse --rate-limit "N/PERIOD".  @return 0, or -1 with err */
int lbt_deny_parse_rate(const char *s, int64_t *n, int64_t *period_us, lbt_err *err)
{
	const char *slash = strchr(s, '/');
	char num[32];

	if (slash == NULL || slash == s || (size_t)(slash - s) >= sizeof num)
		return lbt_err_set(err, "--rate-limit: '%s' is not N/PERIOD (100/10s, 5/s, 60/1m)",
		    s);
	memcpy(num, s, (size_t)(slash - s));
	num[slash - s] = '\0';
	if (lbt_num_parse(num, 1, 1000000000, "--rate-limit", n, err) < 0)
		return -1;
	if (strcmp(slash + 1, "s") == 0 || strcmp(slash + 1, "m") == 0) {
		*period_us = slash[1] == 's' ? 1000000 : 60000000;
		return 0;
	}
	return lbt_duration_parse(slash + 1, 1000, 86400000000LL, "--rate-limit period",
	    period_us, err);
}

/* True when host name h has only letters, digits, '.', '-', '_' (it is
 * written into a configuration line: nothing there may end the rule). */
static int host_ok(const char *h)
{
	if (*h == '\0' || strlen(h) > 253)
		return 0;
	for (; *h; h++)
		if (!isalnum((unsigned char)*h) && *h != '.' && *h != '-' && *h != '_')
			return 0;
	return 1;
}

/* True when path p can stand in a configuration line as one word. */
static int path_ok(const char *p)
{
	if (*p == '\0')
		return 0;
	for (; *p; p++)
		if ((unsigned char)*p <= ' ' || strchr("\"'#;{}\\", *p) != NULL)
			return 0;
	return 1;
}

/* --host goes only with HAProxy's HTTP actions.  @return 0 or -1 with err */
static int check_hosts(const lbt_deny_gen *g, lbt_err *err)
{
	for (size_t i = 0; i < g->nhosts; i++)
		if (!host_ok(g->hosts[i]))
			return lbt_err_set(err, "--host: '%s' is not a host name (letters, digits, "
			    "'.', '-', '_')", g->hosts[i]);
	if (g->nhosts == 0 || g->dialect == LBT_DENY_HAPROXY || g->dialect == LBT_DENY_JSON) {
		if (g->nhosts > 0 && g->action == LBT_DENY_ACT_REJECT)
			return lbt_err_set(err, "--host needs an HTTP action: reject closes the "
			    "connection before any Host header is read (use deny or silent-drop)");
		return 0;
	}
	if (g->dialect == LBT_DENY_NGINX)
		return lbt_err_set(err, "--host is for HAProxy: with --nginx, put the lines in "
		    "the server block of that host");
	return lbt_err_set(err, "--host is for HAProxy: nftables sees no Host header");
}

/* The actions each dialect can write.  @return 0 or -1 with err */
static int check_action(const lbt_deny_gen *g, lbt_err *err)
{
	const char *a = lbt_denyi_action_name(g->action);

	if (g->dialect == LBT_DENY_NGINX && g->action != LBT_DENY_ACT_DENY &&
	    g->action != LBT_DENY_ACT_RATE_LIMIT)
		return lbt_err_set(err, "--action %s: --nginx writes deny lines or --rate-limit",
		    a);
	if (g->dialect == LBT_DENY_NFTABLES && (g->action == LBT_DENY_ACT_TARPIT ||
	    g->action == LBT_DENY_ACT_RATE_LIMIT))
		return lbt_err_set(err, "%s%s: --nftables writes deny, reject or silent-drop",
		    g->action == LBT_DENY_ACT_TARPIT ? "--action " : "--",
		    a);
	if (g->action == LBT_DENY_ACT_TARPIT && g->tarpit_us <= 0)
		return lbt_err_set(err, "--action tarpit needs --tarpit-timeout (the frontend's "
		    "timeout tarpit, else its timeout connect)");
	if (g->action == LBT_DENY_ACT_RATE_LIMIT && (g->rate_n <= 0 || g->rate_period_us <= 0))
		return lbt_err_set(err, "--rate-limit needs N/PERIOD");
	return 0;
}

/* Check that g goes with itself and with d.  @return 0 or -1 with err */
int lbt_deny_gen_check(const lbt_deny *d, const lbt_deny_gen *g, lbt_err *err)
{
	if (check_hosts(g, err) < 0 || check_action(g, err) < 0)
		return -1;
	if (g->sc < 0 || g->sc > 2)
		return lbt_err_set(err, "--sc: %d is not in 0..2", g->sc);
	if (g->list_path && !path_ok(g->list_path))
		return lbt_err_set(err, "'%s': the list file's path goes into the configuration: "
		    "no spaces, quotes, '#', ';', braces or backslashes", g->list_path);
	if (g->dialect == LBT_DENY_HAPROXY && g->list_path == NULL &&
	    d->nrules > LBT_DENY_INLINE_MAX)
		return lbt_err_set(err, "%zu networks: more than %d need an ACL file (-o FILE)",
		    d->nrules, LBT_DENY_INLINE_MAX);
	if (g->dialect == LBT_DENY_NGINX && g->action == LBT_DENY_ACT_RATE_LIMIT &&
	    (g->rate_n * 60000000LL) % g->rate_period_us != 0)
		return lbt_err_set(err, "--rate-limit: NGINX counts whole requests a second or "
		    "a minute; %lld per %lld ms is neither", (long long)g->rate_n,
		    (long long)(g->rate_period_us / 1000));
	return 0;
}

/* Write s with control characters as '?' (a comment stays one line). */
static void put_clean(FILE *fp, const char *s)
{
	for (; *s; s++)
		fputc((unsigned char)*s < ' ' || *s == 0x7f ? '?' : *s, fp);
}

/* put_clean for the writers of each dialect. */
void lbt_denyi_put_clean(FILE *fp, const char *s)
{
	put_clean(fp, s);
}

/* Write "N requests (P %)" or "requests not known". */
static void put_requests(FILE *fp, int64_t req, double share)
{
	if (req < 0) {
		fputs("requests not known", fp);
		return;
	}
	fprintf(fp, "%lld request%s", (long long)req, req == 1 ? "" : "s");
	if (share >= 0)
		fprintf(fp, " (%.2f %%)", share);
}

/* The comment line of one rule network: what it stands for. */
void lbt_denyi_rule_comment(const lbt_deny_rule *r, FILE *fp, const char *lead)
{
	char net[LBT_ADDR_STRLEN], t1[48], t2[48];

	fprintf(fp, "%s%s: ", lead, lbt_denyi_net(&r->net, net, sizeof net));
	if (r->nsources == 0) {
		fprintf(fp, "part of %s (cut around what is left out)\n", r->part_of ? r->part_of : "?");
		return;
	}
	if (r->merged[0])
		fprintf(fp, "%zu sources merged (%s), ", r->nsources, r->merged);
	put_requests(fp, r->requests, r->share);
	if (r->first_us != LBT_DENY_NO_TIME && r->last_us != LBT_DENY_NO_TIME) {
		lbt_time_format(r->first_us, 0, t1, sizeof t1);
		lbt_time_format(r->last_us, 0, t2, sizeof t2);
		fprintf(fp, ", first %s, last %s", t1, t2);
	}
	if (r->part_of)
		fprintf(fp, ", part of %s", r->part_of);
	fputc('\n', fp);
}

/* The action in words, for the header. */
static void put_action(const lbt_deny_gen *g, FILE *fp)
{
	char per[32];
	static const char *const how[] = { " (http-request deny deny_status 429)",
		" (tcp-request connection reject)", " (http-request silent-drop)",
		" (http-request tarpit deny_status 429)", "" };

	lbt_denyi_period(g->rate_period_us, per, sizeof per);
	fprintf(fp, "action %s%s", lbt_denyi_action_name(g->action),
	    g->dialect == LBT_DENY_HAPROXY ? how[g->action] : "");
	if (g->action == LBT_DENY_ACT_RATE_LIMIT)
		fprintf(fp, " (429 above %lld requests per %s and source)", (long long)g->rate_n,
		    per);
	for (size_t i = 0; i < g->nhosts; i++)
		fprintf(fp, "%s%s", i ? " " : ", Host ", g->hosts[i]);
}

/* The totals line: networks, sources, requests. */
static void put_totals(const lbt_deny *d, FILE *fp, const char *lead)
{
	const lbt_deny_totals *t = &d->tot;

	fprintf(fp, "%s%zu network%s for %zu selected of %zu source%s", lead, d->nrules,
	    d->nrules == 1 ? "" : "s", t->selected, t->sources, t->sources == 1 ? "" : "s");
	if (t->counts && t->input_requests > 0)
		fprintf(fp, ": %lld requests (%.2f %% of %.0f)", (long long)t->denied,
		    100.0 * (double)t->denied / t->input_requests, t->input_requests);
	if (t->counts && t->denied_part > 0)
		fprintf(fp, ", and part of the %lld of sources cut around what is left out",
		    (long long)t->denied_part);
	fputc('\n', fp);
}

/* The left-out and collateral lines of the header. */
static void put_cuts(const lbt_deny *d, FILE *fp, const char *lead)
{
	char net[LBT_ADDR_STRLEN];
	const lbt_deny_totals *t = &d->tot;

	for (size_t i = 0; i < d->nleft && i < HEADER_LIST_MAX; i++)
		fprintf(fp, "%sleft out %s%s%s: %s\n", lead, lbt_denyi_net(&d->left[i].net, net,
		    sizeof net), d->left[i].of[0] ? " of " : "", d->left[i].of, d->left[i].why);
	if (d->nleft > HEADER_LIST_MAX)
		fprintf(fp, "%sleft out: %zu more\n", lead, d->nleft - HEADER_LIST_MAX);
	if (t->others == 0) {
		fprintf(fp, "%scollateral: not known (the input has no other sources)\n", lead);
		return;
	}
	if (t->collateral_n == 0)
		fprintf(fp, "%scollateral: 0 requests: the rule matches none of the %zu sources "
		    "not selected", lead, t->others);
	else
		fprintf(fp, "%scollateral: %lld requests from %zu of the %zu sources not selected",
		    lead, (long long)t->collateral, t->collateral_n, t->others);
	if (t->collateral_part > 0)
		fprintf(fp, ", and up to %lld from sources matched in part",
		    (long long)t->collateral_part);
	fputc('\n', fp);
	for (size_t i = 0; i < d->ncoll && i < HEADER_LIST_MAX; i++) {
		fprintf(fp, "%s  %s %s %s: ", lead, d->coll[i].by, d->coll[i].whole ?
		    "matches" : "matches part of", lbt_denyi_net(&d->coll[i].net, net, sizeof net));
		put_requests(fp, d->coll[i].requests, -1);
		fputc('\n', fp);
	}
}

/* The header comment of every output; lead starts each line ("# "). */
void lbt_denyi_header(const lbt_deny *d, const lbt_deny_gen *g, lbt_deny_part p, FILE *fp,
    const char *lead)
{
	char when[48], in[1024];

	lbt_time_format_s(g->now_us - g->now_us % 1000000, when, sizeof when);
	fprintf(fp, "%sgenerated by lbt-deny %s (lbtriage) at %s: %s %s, ", lead, LBT_VERSION,
	    when, lbt_denyi_dialect_name(g->dialect), p == LBT_DENY_PART_LIST ?
	    "list file" : "rule");
	put_action(g, fp);
	fprintf(fp, "\n%sfrom ", lead);
	put_clean(fp, lbt_deny_inputs(d, in, sizeof in));
	if (g->command) {
		fprintf(fp, "\n%scommand: ", lead);
		put_clean(fp, g->command);
	}
	fputc('\n', fp);
	put_totals(d, fp, lead);
	if (p == LBT_DENY_PART_LIST)
		return;
	put_cuts(d, fp, lead);
}

/* The tarpit estimate. */
void lbt_deny_tarpit_estimate(const lbt_deny *d, const lbt_deny_gen *g, lbt_deny_tarpit *t)
{
	t->seconds = (double)g->tarpit_us / 1e6;
	if (g->peak_rate >= 0) {
		t->rate = g->peak_rate;
		t->rate_from = "--peak-rate";
	} else if (d->tot.peak_rps >= 0) {
		t->rate = (double)d->tot.peak_rps;
		t->rate_from = "the sum of the sources' peak_rps";
	} else {
		t->rate = -1;
		t->rate_from = "not known: no peak_rps column, give --peak-rate";
	}
	t->slots = t->rate < 0 ? -1 : t->rate * t->seconds;
}

/* True when arg needs no quotes in a shell. */
static int plain_word(const char *a)
{
	if (*a == '\0')
		return 0;
	for (; *a; a++)
		if (!isalnum((unsigned char)*a) && strchr("-_./:=,+%@", *a) == NULL)
			return 0;
	return 1;
}

/* argv as one shell-quoted line ('...' with ' as '\''), cut to size.  @return buf */
const char *lbt_deny_command(int argc, char **argv, char *buf, size_t size)
{
	size_t used = 0;

	if (size == 0)
		return buf;
	buf[0] = '\0';
	for (int i = 0; i < argc && used + 1 < size; i++) {
		const char *base = i == 0 && strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1
		    : argv[i];
		int q = !plain_word(base);

		if (i > 0)
			buf[used++] = ' ';
		if (q && used + 1 < size)
			buf[used++] = '\'';
		for (const char *p = base; *p && used + 5 < size; p++) {
			if (*p == '\'') {
				memcpy(buf + used, "'\\''", 4);
				used += 4;
			} else {
				buf[used++] = *p;
			}
		}
		if (q && used + 1 < size)
			buf[used++] = '\'';
		buf[used] = '\0';
	}
	return buf;
}
