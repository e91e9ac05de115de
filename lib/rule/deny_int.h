/*
 * deny_int.h - what the files of lib/rule/ share about an lbt_deny: its
 * sources, allow list and results (deny.c decides, deny_read.c fills,
 * deny_write.c and deny_<dialect>.c write).  Internal to lib/rule/.
 */
#ifndef LBT_DENY_INT_H
#define LBT_DENY_INT_H

#include "lbt/deny.h"

/* One source and what became of it. */
struct lbt_denyi_item {
	lbt_deny_src s;              /* s.file points into lbt_deny.names */
	size_t order;                /* position of arrival (stable sorts) */
	int selected;
	lbt_ipnet req;               /* after widening */
	int dropped;                 /* 1: all of it left out */
	int in_rule;                 /* 1: wholly inside one rule network */
	char text[LBT_ADDR_STRLEN];  /* req as text */
};

/* One allow-list entry, or one of the load balancer's own addresses. */
struct lbt_denyi_allow {
	lbt_ipnet net;
	const char *file;            /* into lbt_deny.names, NULL: --allow ADDR */
	uint64_t line;
	int own;                     /* 1: a `bind` address of the LB (lbt_deny_own) */
};

/* One input read, for the header. */
struct lbt_denyi_input {
	const char *name;            /* into lbt_deny.names */
	const char *kind;            /* "lbt-offenders TSV", "NDJSON", "list", NULL: args */
	size_t rows;
};

struct lbt_deny {
	lbt_deny_opts o;
	struct lbt_denyi_item *it;
	size_t nit, capit;
	struct lbt_denyi_allow *al;
	size_t nal, capal;
	lbt_ipnet *forced;           /* --force-network: each allowed at its own width */
	size_t nforced, capforced;
	struct lbt_denyi_input *in;
	size_t nin, capin;
	char **names;                /* owned copies of file names */
	size_t nnames, capnames;
	size_t nargs;                /* operands added */
	lbt_deny_rule *rules;
	size_t nrules, caprules;
	lbt_deny_left *left;
	size_t nleft, capleft;
	lbt_deny_collateral *coll;
	size_t ncoll, capcoll;
	lbt_ipset *covered;
	lbt_deny_totals tot;
	int finished;
};

/* An owned copy of `name` kept in d (the last one reused).  @return it or NULL */
const char *lbt_denyi_name(lbt_deny *d, const char *name);

/* Note one input read (rows counted by lbt_denyi_row).  @return 0 or -1 */
int lbt_denyi_input(lbt_deny *d, const char *name, const char *kind);

/* Count one row of the last input. */
void lbt_denyi_row(lbt_deny *d);

/* Index of the rule network that contains `net`, or else the first that
 * lies inside it; (size_t)-1 when none overlaps. */
size_t lbt_denyi_rule_of(const lbt_deny *d, const lbt_ipnet *net);

/* Writers of each dialect (deny_haproxy.c, deny_nginx.c, deny_nft.c,
 * deny_json.c); fp errors are checked by the caller.  @return 0 or -1 */
int lbt_denyi_haproxy(const lbt_deny *d, const lbt_deny_gen *g, lbt_deny_part p, FILE *fp);
int lbt_denyi_nginx(const lbt_deny *d, const lbt_deny_gen *g, lbt_deny_part p, FILE *fp);
int lbt_denyi_nft(const lbt_deny *d, const lbt_deny_gen *g, FILE *fp);
int lbt_denyi_json(const lbt_deny *d, const lbt_deny_gen *g, FILE *fp);

/* Shared pieces of the writers (deny_write.c). */
/* Write s with control characters as '?', so that a comment stays one line. */
void lbt_denyi_put_clean(FILE *fp, const char *s);

void lbt_denyi_header(const lbt_deny *d, const lbt_deny_gen *g, lbt_deny_part p, FILE *fp,
    const char *lead);
void lbt_denyi_rule_comment(const lbt_deny_rule *r, FILE *fp, const char *lead);
const char *lbt_denyi_net(const lbt_ipnet *n, char *buf, size_t size);
const char *lbt_denyi_action_name(lbt_deny_action a);
const char *lbt_denyi_dialect_name(lbt_deny_dialect dl);
void lbt_denyi_period(int64_t us, char *buf, size_t size);

#endif
