/*
 * deny_haproxy.c - the rule as HAProxy 2.6 reads it.
 *
 * The list part is an ACL file for `src -f FILE`: HAProxy takes the whole
 * line as the pattern (src/pattern.c, pat_ref_read_from_file: only a '#'
 * in the first column starts a comment), so each network's comment goes
 * on the line above it, never after it.  The config part is the end of a
 * frontend section: the rule lines, indented, then for --rate-limit the
 * backend section that holds the stick-table.  Pasted after a frontend's
 * other lines (or appended to a file whose last section is that frontend)
 * it is complete; the CLI tests run `haproxy -c` on exactly that.
 */
#include <string.h>

#include "lbt/timeparse.h"
#include "lbt/version.h"
#include "deny_int.h"

/* Name of the --rate-limit table's section. */
#define RL_TABLE "lbt_deny_rl"

/* Write the source condition: { src -f PATH } or { src NET ... }. */
static void put_src(const lbt_deny *d, const lbt_deny_gen *g, FILE *fp)
{
	char net[LBT_ADDR_STRLEN];

	if (g->list_path) {
		fprintf(fp, "{ src -f %s }", g->list_path);
		return;
	}
	fputs("{ src", fp);
	for (size_t i = 0; i < d->nrules; i++)
		fprintf(fp, " %s", lbt_denyi_net(&d->rules[i].net, net, sizeof net));
	fputs(" }", fp);
}

/* Write the Host condition, when --host was given (host_only drops a
 * ":port" and lowers the case, so "Example.com:443" matches example.com). */
static void put_host(const lbt_deny_gen *g, FILE *fp)
{
	if (g->nhosts == 0)
		return;
	fputs(" { req.hdr(host),host_only -i", fp);
	for (size_t i = 0; i < g->nhosts; i++)
		fprintf(fp, " %s", g->hosts[i]);
	fputs(" }", fp);
}

/* Write "if SRC [HOST]" and the end of the line. */
static void put_cond(const lbt_deny *d, const lbt_deny_gen *g, FILE *fp)
{
	fputs(" if ", fp);
	put_src(d, g, fp);
	put_host(g, fp);
	fputc('\n', fp);
}

/* The ACL file: the header, then each network under its comment. */
static int write_list(const lbt_deny *d, const lbt_deny_gen *g, FILE *fp)
{
	char net[LBT_ADDR_STRLEN];

	lbt_denyi_header(d, g, LBT_DENY_PART_LIST, fp, "# ");
	for (size_t i = 0; i < d->nrules; i++) {
		lbt_denyi_rule_comment(&d->rules[i], fp, "# ");
		fprintf(fp, "%s\n", lbt_denyi_net(&d->rules[i].net, net, sizeof net));
	}
	return 0;
}

/* The widest rule network of a family (the key of a rate counter), or
 * `none` when the rule has no network of that family. */
static int widest(const lbt_deny *d, int family, int none)
{
	int w = -1;

	for (size_t i = 0; i < d->nrules; i++)
		if (d->rules[i].net.net.family == family && (w < 0 || d->rules[i].net.bits < w))
			w = d->rules[i].net.bits;
	return w < 0 ? none : w;
}

/* True when the rule has an IPv6 network. */
static int has_v6(const lbt_deny *d)
{
	return widest(d, 6, -1) >= 0;
}

/*
 * --rate-limit: track each source in a table of its own, keyed by the
 * address masked to the widest network of its family (so no network of
 * the rule is split over several counters), and answer 429 above N.
 */
static void write_rate(const lbt_deny *d, const lbt_deny_gen *g, FILE *fp)
{
	char per[32];

	lbt_denyi_period(g->rate_period_us, per, sizeof per);
	fprintf(fp, "    # count each source's requests over %s (sticky counter sc%d), "
	    "429 above %lld\n", per, g->sc, (long long)g->rate_n);
	fprintf(fp, "    http-request track-sc%d src,ipmask(%d,%d) table %s", g->sc,
	    widest(d, 4, 32), widest(d, 6, 64), RL_TABLE);
	put_cond(d, g, fp);
	fputs("    http-request deny deny_status 429 if ", fp);
	put_src(d, g, fp);
	put_host(g, fp);
	fprintf(fp, " { sc_http_req_rate(%d,%s) gt %lld }\n", g->sc, RL_TABLE,
	    (long long)g->rate_n);
}

/* --rate-limit's table, a section of its own (nothing for the other actions). */
static void write_sections(const lbt_deny *d, const lbt_deny_gen *g, FILE *fp)
{
	char per[32], exp[32];
	size_t size = 2 * d->nrules < 64 ? 64 : 2 * d->nrules;

	if (g->action != LBT_DENY_ACT_RATE_LIMIT)
		return;
	lbt_denyi_period(g->rate_period_us, per, sizeof per);
	lbt_denyi_period(2 * g->rate_period_us, exp, sizeof exp);
	fprintf(fp, "# the table of lbt-deny's counts, one entry a source "
	    "(a section of its own):\nbackend %s\n", RL_TABLE);
	fprintf(fp, "    stick-table type %s size %zu expire %s store http_req_rate(%s)\n",
	    has_v6(d) ? "ipv6" : "ip", size, exp, per);
}

/* The tarpit rule under its warning comment. */
static void write_tarpit(const lbt_deny *d, const lbt_deny_gen *g, FILE *fp)
{
	lbt_deny_tarpit t;
	char per[32];

	lbt_deny_tarpit_estimate(d, g, &t);
	lbt_denyi_period(g->tarpit_us, per, sizeof per);
	fprintf(fp, "    # WARNING: tarpit holds a connection slot for every request it "
	    "delays, %s each\n    # (timeout tarpit; without it, timeout connect)", per);
	if (t.slots >= 0)
		fprintf(fp, ": at %.0f requests/s (%s)\n    # that is %.0f slots held at once "
		    "(Little's law)", t.rate, t.rate_from, t.slots);
	if (t.slots >= 0 && g->maxconn > 0)
		fprintf(fp, " against maxconn %lld", (long long)g->maxconn);
	fputs("\n    http-request tarpit deny_status 429", fp);
	put_cond(d, g, fp);
}

/* The frontend's rule lines, indented. */
static void write_rule(const lbt_deny *d, const lbt_deny_gen *g, FILE *fp)
{
	switch (g->action) {
	case LBT_DENY_ACT_REJECT:
		fputs("    tcp-request connection reject", fp);
		put_cond(d, g, fp);
		break;
	case LBT_DENY_ACT_SILENT_DROP:
		fputs("    http-request silent-drop", fp);
		put_cond(d, g, fp);
		break;
	case LBT_DENY_ACT_TARPIT:
		write_tarpit(d, g, fp);
		break;
	case LBT_DENY_ACT_RATE_LIMIT:
		write_rate(d, g, fp);
		break;
	default:
		fputs("    http-request deny deny_status 429", fp);
		put_cond(d, g, fp);
		break;
	}
}

/* Where the lines go: the place found in the configuration, else the rule
 * of thumb that keeps them from landing below a tarpit (docs/placement.md). */
static void write_place(const lbt_deny_gen *g, FILE *fp)
{
	const char *kind = g->action == LBT_DENY_ACT_REJECT ? "tcp-request connection" :
	    "http-request";

	if (g->place) {
		fputs("\n# in the frontend section, ", fp);
		lbt_denyi_put_clean(fp, g->place);
		fputs(":\n", fp);
		return;
	}
	fprintf(fp, "\n# in the frontend section that receives the flood, above its first %s\n"
	    "# rule that answers or counts (tarpit, deny, return, redirect, track-sc):\n"
	    "# HAProxy runs them in order, and below a tarpit this rule never runs\n"
	    "# (lbt-deny --into haproxy.cfg --frontend NAME puts it there):\n", kind);
}

/* How to check, apply and watch the rule: the three steps after pasting
 * (comments in the first column, so that lbt-triage's screen, which shows
 * the rule without its comments, leaves them out). */
static void write_steps(const lbt_deny_gen *g, FILE *fp)
{
	fputs("# check: haproxy -c -f ", fp);
	lbt_denyi_put_clean(fp, g->cfg_path ? g->cfg_path : "/etc/haproxy/haproxy.cfg");
	fputs("\n# apply: reload HAProxy (systemctl reload haproxy)", fp);
	if (g->list_path) {
		fputs("; once this rule is loaded, more networks\n#   "
		    "go in without a reload: lbt-deny --runtime SOCKET --acl-path ", fp);
		lbt_denyi_put_clean(fp, g->list_path);
	}
	fputs("\n# watch: lbt-triage --follow LOG (the sources' requests answered at "
	    "once)\n", fp);
}

/* The configuration lines for the frontend section. */
static int write_config(const lbt_deny *d, const lbt_deny_gen *g, FILE *fp)
{
	lbt_denyi_header(d, g, LBT_DENY_PART_CONFIG, fp, "# ");
	if (g->list_path == NULL)
		fputs("# the networks:\n", fp);
	if (g->list_path == NULL)
		for (size_t i = 0; i < d->nrules; i++)
			lbt_denyi_rule_comment(&d->rules[i], fp, "#   ");
	write_place(g, fp);
	write_rule(d, g, fp);
	write_steps(g, fp);
	if (g->action == LBT_DENY_ACT_RATE_LIMIT)
		fputc('\n', fp);
	write_sections(d, g, fp);
	return 0;
}

/* The lines placed into a configuration: one comment saying who, then the rule. */
static int write_placed(const lbt_deny *d, const lbt_deny_gen *g, FILE *fp)
{
	char when[48];

	lbt_time_format_s(g->now_us - g->now_us % 1000000, when, sizeof when);
	fprintf(fp, "    # lbt-deny %s at %s: ", LBT_VERSION, when);
	lbt_denyi_put_clean(fp, g->command ? g->command : "lbt-deny");
	fputc('\n', fp);
	write_rule(d, g, fp);
	return 0;
}

/* Write one part of the HAProxy rule.  @return 0 */
int lbt_denyi_haproxy(const lbt_deny *d, const lbt_deny_gen *g, lbt_deny_part p, FILE *fp)
{
	switch (p) {
	case LBT_DENY_PART_LIST: return write_list(d, g, fp);
	case LBT_DENY_PART_RULE: return write_placed(d, g, fp);
	case LBT_DENY_PART_SECTIONS: write_sections(d, g, fp); return 0;
	default: return write_config(d, g, fp);
	}
}
