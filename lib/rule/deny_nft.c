/*
 * deny_nft.c - the rule as nftables reads it (`nft -f FILE`).
 *
 * One table of its own, inet family, replaced as a whole on each load
 * (create it if missing, delete it, define it: one transaction), with two
 * named interval sets, ipv4_addr and ipv6_addr, and an input-hook chain.
 * deny and reject answer TCP with a reset (refused at once) and drop the
 * rest; silent-drop drops.  Both sets are always defined, empty or not,
 * so that `nft add element inet lbt_deny deny4 { ... }` works later.
 */
#include "deny_int.h"

/* The elements of one family's set, each under its comment. */
static void put_set(const lbt_deny *d, FILE *fp, int family)
{
	char net[LBT_ADDR_STRLEN];
	size_t n = 0;

	fprintf(fp, "\tset deny%d {\n\t\ttype %s\n\t\tflags interval\n", family,
	    family == 4 ? "ipv4_addr" : "ipv6_addr");
	for (size_t i = 0; i < d->nrules; i++)
		n += d->rules[i].net.net.family == family;
	if (n > 0) {
		fputs("\t\telements = {\n", fp);
		for (size_t i = 0; i < d->nrules; i++) {
			if (d->rules[i].net.net.family != family)
				continue;
			lbt_denyi_rule_comment(&d->rules[i], fp, "\t\t\t# ");
			fprintf(fp, "\t\t\t%s,\n", lbt_denyi_net(&d->rules[i].net, net, sizeof net));
		}
		fputs("\t\t}\n", fp);
	}
	fputs("\t}\n", fp);
}

/* The rules of one family. */
static void put_rules(const lbt_deny_gen *g, FILE *fp, const char *match, int family)
{
	if (g->action != LBT_DENY_ACT_SILENT_DROP)
		fprintf(fp, "\t\t%s saddr @deny%d meta l4proto tcp reject with tcp reset\n", match,
		    family);
	fprintf(fp, "\t\t%s saddr @deny%d drop\n", match, family);
}

/* Write the nftables file.  @return 0 */
int lbt_denyi_nft(const lbt_deny *d, const lbt_deny_gen *g, FILE *fp)
{
	lbt_denyi_header(d, g, LBT_DENY_PART_CONFIG, fp, "# ");
	fputs("# check: nft -c -f FILE (lbt-deny -o FILE runs it); apply: nft -f FILE;\n"
	    "# watch: lbt-triage --follow LOG (the sources' requests stop)\n", fp);
	fputs("\ntable inet lbt_deny\ndelete table inet lbt_deny\ntable inet lbt_deny {\n", fp);
	put_set(d, fp, 4);
	put_set(d, fp, 6);
	fputs("\tchain input {\n\t\ttype filter hook input priority filter; policy accept;\n",
	    fp);
	put_rules(g, fp, "ip", 4);
	put_rules(g, fp, "ip6", 6);
	fputs("\t}\n}\n", fp);
	return 0;
}
