/*
 * deny_nginx.c - the rule as NGINX 1.22 reads it.
 *
 * deny: one `deny NET;` line a network (ngx_http_access_module; 403), in
 * the list file (-o, included with `include FILE;`) or on stdout.
 * --rate-limit: a geo map from the client address to the rule network it
 * falls in (an empty key for everyone else: limit_req does not count
 * requests with an empty key), a limit_req_zone keyed by it, and the
 * limit_req lines.  Both act after the rewrite phase: a location that
 * answers with `return` answers before them, which the output says.
 */
#include "lbt/timeparse.h"
#include "lbt/version.h"
#include "deny_int.h"

/* The zone's name. */
#define ZONE "lbt_deny"

/* The list lines: `deny NET;` or, for the geo map, `NET NET;`. */
static void put_lines(const lbt_deny *d, const lbt_deny_gen *g, FILE *fp, const char *ind)
{
	char net[LBT_ADDR_STRLEN];

	for (size_t i = 0; i < d->nrules; i++) {
		lbt_denyi_net(&d->rules[i].net, net, sizeof net);
		fputs(ind, fp);
		lbt_denyi_rule_comment(&d->rules[i], fp, "# ");
		if (g->action == LBT_DENY_ACT_RATE_LIMIT)
			fprintf(fp, "%s%s %s;\n", ind, net, net);
		else
			fprintf(fp, "%sdeny %s;\n", ind, net);
	}
}

/* The caveat every NGINX rule carries. */
static void put_caveat(FILE *fp)
{
	fputs("# (NGINX applies it after the rewrite phase: a location that answers with\n"
	    "# 'return' answers first; use it in locations that proxy or serve files)\n", fp);
}

/* deny: the lines, or the include of the list file. */
static void write_deny(const lbt_deny *d, const lbt_deny_gen *g, FILE *fp)
{
	fputs("\n# in the http, server or location block that receives the flood (403),\n"
	    "# above its first allow or deny: the first that matches wins, and a location\n"
	    "# with allow/deny of its own ignores the server's (lbt-deny --nginx --into\n"
	    "# nginx.conf --server NAME places them; check: nginx -t; apply: nginx -s reload):\n", fp);
	put_caveat(fp);
	if (g->list_path)
		fprintf(fp, "include %s;\n", g->list_path);
	else
		put_lines(d, g, fp, "");
}

/* --rate-limit: geo map, zone, limit_req. */
static void write_rate(const lbt_deny *d, const lbt_deny_gen *g, FILE *fp)
{
	int64_t per_min = g->rate_n * 60000000LL / g->rate_period_us;
	size_t mb = (d->nrules * 256 + (1u << 20) - 1) >> 20;

	fputs("\n# in the http block:\n", fp);
	fputs("geo $lbt_deny_key {\n    default \"\";\n", fp);
	if (g->list_path)
		fprintf(fp, "    include %s;\n", g->list_path);
	else
		put_lines(d, g, fp, "    ");
	fputs("}\n", fp);
	if (per_min % 60 == 0)
		fprintf(fp, "limit_req_zone $lbt_deny_key zone=" ZONE ":%zum rate=%lldr/s;\n",
		    mb ? mb : 1, (long long)(per_min / 60));
	else
		fprintf(fp, "limit_req_zone $lbt_deny_key zone=" ZONE ":%zum rate=%lldr/m;\n",
		    mb ? mb : 1, (long long)per_min);
	fputs("\n# in the server or location block that receives the flood:\n", fp);
	put_caveat(fp);
	if (g->rate_n > 1)
		fprintf(fp, "limit_req zone=" ZONE " burst=%lld nodelay;\n", (long long)(g->rate_n - 1));
	else
		fputs("limit_req zone=" ZONE ";\n", fp);
	fputs("limit_req_status 429;\n", fp);
}

/* The lines placed into a server block (lbt-deny --nginx --into): one
 * comment saying who, then the deny lines or the include of the list. */
static void write_placed(const lbt_deny *d, const lbt_deny_gen *g, FILE *fp)
{
	char when[48];

	lbt_time_format_s(g->now_us - g->now_us % 1000000, when, sizeof when);
	fprintf(fp, "        # lbt-deny %s at %s: ", LBT_VERSION, when);
	lbt_denyi_put_clean(fp, g->command ? g->command : "lbt-deny");
	fputc('\n', fp);
	if (g->list_path)
		fprintf(fp, "        include %s;\n", g->list_path);
	else
		put_lines(d, g, fp, "        ");
}

/* Write one part of the NGINX rule.  @return 0 */
int lbt_denyi_nginx(const lbt_deny *d, const lbt_deny_gen *g, lbt_deny_part p, FILE *fp)
{
	if (p == LBT_DENY_PART_RULE) {
		write_placed(d, g, fp);
		return 0;
	}
	if (p == LBT_DENY_PART_SECTIONS)
		return 0;
	lbt_denyi_header(d, g, p, fp, "# ");
	if (p == LBT_DENY_PART_LIST)
		put_lines(d, g, fp, "");
	else if (g->action == LBT_DENY_ACT_RATE_LIMIT)
		write_rate(d, g, fp);
	else
		write_deny(d, g, fp);
	return 0;
}
