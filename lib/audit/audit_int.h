/*
 * audit_int.h - what the files of the audit module share; never installed.
 *
 *   audit.c       the public verbs: reading the configuration into proxies,
 *                 the analyses, the run (findings sorted), severities
 *   audit_acl.c   rules and their conditions as HAProxy reads them: ACLs,
 *                 anonymous { } blocks, or / ||, !, stick counters, Host
 *                 matches and their evaluation on a logged Host
 *   audit_cfg.c   the findings of the configuration alone (tarpit, timeout
 *                 http-request, 429 without Retry-After, log format), and
 *                 the numbers they read (hold time, trigger rate,
 *                 stick-table periods)
 *   audit_logs.c  the findings that need the logs' analyses (maxconn
 *                 reached, alert threshold and its rules, rate limits a
 *                 Host escapes, rate limits per address that a /64
 *                 spreads over, or that an IPv6 frontend invites)
 *   audit_proxy.c what every check reads of a proxy and writes of it: the
 *                 proxy by name, its settings, its maxconn, HAProxy times,
 *                 a line with words replaced
 *   audit_finding.c  the findings list: a finding added, its evidence
 *   audit_diff.c  what changed between two configurations (lbt-timeline's
 *                 --haproxy-cfg-after), on its own: it reads both files
 *                 through config/ and calls none of the others
 *
 * Direction, top down: audit.c calls audit_cfg.c and audit_logs.c;
 * audit_cfg.c calls audit_logs.c (what the logs say of a tarpit); all
 * three call audit_proxy.c, audit_finding.c and audit_acl.c, which call
 * nothing of the others.
 */
#ifndef LBT_AUDIT_INT_H
#define LBT_AUDIT_INT_H

#include <stddef.h>
#include <stdint.h>

#include "lbt/audit.h"
#include "lbt/hacfg.h"
#include "lbt/keyhosts.h"
#include "lbt/maxconn.h"
#include "lbt/offenders.h"
#include "lbt/tarpit.h"

/* ---- conditions (audit_acl.c) --------------------------------------- */

/* What a pattern tests. */
enum au_kind {
	AU_OTHER,                /* anything else (path_beg, src, ...) */
	AU_COUNTER,              /* a stick counter: sc_*, scN_*, src_*, table_* */
	AU_HOST                  /* the Host header, or base (host + path) */
};

/* How a Host pattern matches (-m, or the fetch's suffix). */
enum au_match { AU_M_STR, AU_M_BEG, AU_M_END, AU_M_SUB, AU_M_DOM, AU_M_REG, AU_M_FOUND,
	AU_M_UNKNOWN };

/* Integer operators of a counter pattern. */
enum au_op { AU_OP_NONE, AU_OP_EQ, AU_OP_GE, AU_OP_GT, AU_OP_LE, AU_OP_LT };

/* One ACL definition: an `acl` line, or an anonymous { } block. */
struct au_pat {
	const lbt_hacfg_dir *dir;     /* where it is written */
	int first, end;               /* its words: dir->word[first..end) */
	int kind;                     /* enum au_kind */
	/* AU_COUNTER */
	int sc;                       /* tracked counter number, -1: a direct lookup */
	char counter[32];             /* "http_req_rate" */
	char table[64];               /* table named in the fetch, "" none */
	int op;                       /* enum au_op */
	int64_t value;
	/* AU_HOST */
	int match;                    /* enum au_match */
	int icase;                    /* -i, or the lower converter */
	int base;                     /* the value is host + path */
	int nvalues;
	char **values;                /* into dir->word */
};

/* One term of a condition: a named ACL (OR of its lines) or a block. */
struct au_term {
	int neg;                      /* '!' */
	const char *name;             /* the ACL's name, NULL for a block */
	size_t npat;
	const struct au_pat **pat;
	int word;                     /* its first word in the rule line */
	int nwords;                   /* words it takes */
};

/* Terms ANDed. */
struct au_branch {
	size_t n;
	struct au_term *t;
};

/* A condition: branches ORed (HAProxy: "or", "||"). */
struct au_cond {
	int unless;
	int cond_word;                /* index of "if" / "unless", -1 none */
	size_t nbr;
	struct au_branch *br;
};

/* One http-request / tcp-request rule of a proxy. */
struct au_rule {
	const lbt_hacfg_dir *dir;
	const char *action;           /* "tarpit", "deny", "track-sc0", ... */
	int limit;                    /* tarpit deny reject silent-drop return */
	int track;                    /* N of track-scN, else -1 */
	const char *track_table;      /* its "table X", or NULL */
	struct au_cond cond;          /* nbr 0: no condition */
};

/* The ACLs and rules of one proxy section. */
struct au_rules {
	size_t npat, nrule;
	struct au_pat *pat;           /* acl lines, then blocks (room counted first:
	                                 terms point into it) */
	struct au_rule *rule;         /* in file order */
	size_t rulecap;
};

/*
 * Read the ACLs and rules of section s into r (zeroed first).
 * @return 0, or -1 when out of memory.
 */
int lbt_auditi_rules_read(struct au_rules *r, const lbt_hacfg_sect *s);

/* Free what r holds. */
void lbt_auditi_rules_free(struct au_rules *r);

/* The first counter pattern of a positive term of branch b, or NULL. */
const struct au_pat *lbt_auditi_counter(const struct au_branch *b);

/*
 * Whether branch b lets a request with Host `host` and path `path` through
 * its Host terms: 1 yes (or it has none), 0 no, -1 it cannot be told (a
 * pattern from a file, an unknown converter or match).
 */
int lbt_auditi_host_ok(const struct au_branch *b, const char *host, const char *path);

/* True when branch b has a Host term. */
int lbt_auditi_has_host(const struct au_branch *b);

/* The counter that makes rule u a rate limit (a positive term of an `if`
 * branch), or NULL. */
const struct au_pat *lbt_auditi_rate_counter(const struct au_rule *u);

/* The track-scN rule of rules r feeding counter c when its key is the bare
 * `src` (one counter an address), or NULL. */
const struct au_rule *lbt_auditi_src_tracker(const struct au_rules *r, const struct au_pat *c);

/* ---- the audit (audit.c) -------------------------------------------- */

/* A proxy section and what the checks read of it. */
struct au_proxy {
	const lbt_hacfg_sect *s;
	int fe, be;                   /* frontend capability (frontend, listen), backend */
	int http;                     /* mode http */
	int logs;                     /* has log targets */
	struct au_rules rules;
};

struct au_finding {
	lbt_audit_finding pub;
	char *what, *why, *change;    /* owned */
};

struct lbt_audit {
	lbt_audit_opts o;
	char *path;
	lbt_hacfg *cfg;
	lbt_maxconn_cfg *mc;
	struct au_proxy *px;
	size_t npx;
	lbt_tarpit *tarpit;           /* the analyses (lbt_audit_analyses) */
	lbt_offenders *off;
	lbt_keyhosts *kh;
	struct au_finding *f;
	size_t nf, fcap;
	int ran;
	int failed;                   /* out of memory while building findings */
};

/* ---- findings (audit_finding.c) ------------------------------------ */

/*
 * Add a finding: check, severity, the config line, proxy p (NULL: none),
 * what/why/change as printf formats are given already formatted (owned
 * copies are made).  Out of memory sets a->failed.
 */
void lbt_auditi_add(lbt_audit *a, lbt_audit_sev sev, const char *check, uint64_t line,
    const struct au_proxy *p, const char *what, const char *why, const char *change);

/* Set the evidence of the last finding added. */
void lbt_auditi_evidence(lbt_audit *a, const char *file, uint64_t line);

/* A malloc'ed printf, or NULL when out of memory (then a->failed is set). */
char *lbt_auditi_fmt(lbt_audit *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- a proxy, its settings and its lines (audit_proxy.c) ------------- */

/*
 * The directive HAProxy applies for w0 [w1] in proxy p (its own last line,
 * else its defaults chain's), or NULL.
 */
const lbt_hacfg_dir *lbt_auditi_setting(const struct au_proxy *p, const char *w0,
    const char *w1);

/* The proxy section named name (any of frontend, listen, backend), or NULL. */
const struct au_proxy *lbt_auditi_proxy(const lbt_audit *a, const char *name, size_t len);

/* The last directive of section s (else of its defaults chain) for w0
 * [w1], or NULL: lbt_auditi_setting before the proxy is filled. */
const lbt_hacfg_dir *lbt_auditi_setting_in(const lbt_hacfg_sect *s, const char *w0,
    const char *w1);

/*
 * The words of line d with words [from, to) replaced by `text` (as is; ""
 * removes them; from == to inserts), quoted as haproxy.cfg reads them,
 * into buf.  @return buf
 */
const char *lbt_auditi_line(const lbt_hacfg_dir *d, int from, int to, const char *text,
    char *buf, size_t size);

/* The maxconn slots of proxy p count against (frontend: its own, backend:
 * the global one), *line where it is set (0 unknown).  @return 0 unknown. */
int32_t lbt_auditi_maxconn(const lbt_audit *a, const struct au_proxy *p, uint64_t *line);

/* A HAProxy time ("1s", "500", "2m": ms by default).  @return ms, or -1. */
int64_t lbt_auditi_time_ms(const char *s);

/* The first `bind` line of p that listens on IPv6, or NULL. */
const lbt_hacfg_dir *lbt_auditi_v6_bind(const struct au_proxy *p);

/* "1.5 s", "300 ms", "2 min": a duration for people, into buf. @return buf */
const char *lbt_auditi_ms_str(int64_t ms, char *buf, size_t size);

/* ---- findings of the configuration (audit_cfg.c) -------------------- */

/*
 * How long `http-request tarpit` in proxy p holds a request (HAProxy 2.6):
 * its `timeout tarpit`, else (listen, backend) its `timeout connect`, else
 * 0.  *from gets the directive used (NULL when none).  @return ms.
 */
int64_t lbt_auditi_tarpit_hold(const struct au_proxy *p, const lbt_hacfg_dir **from);

/*
 * The period of counter pattern c as the stick table it reads stores it
 * ("http_req_rate(1s)"), found through the track-scN rule of p, the table
 * named in the fetch, or p's own table.  @return ms, or -1 unknown.
 */
int64_t lbt_auditi_period(const lbt_audit *a, const struct au_proxy *p,
    const struct au_pat *c);

/* The configuration findings of proxy p (tarpit, timeouts, log format). */
void lbt_auditi_check_proxy(lbt_audit *a, const struct au_proxy *p, int logs);

/* ---- findings of the logs (audit_logs.c) ----------------------------- */

/* maxconn reached and the alert threshold, for every group of the tarpit analysis. */
void lbt_auditi_check_groups(lbt_audit *a);

/* The rate limits of an IPv6 frontend p counted per address (`track-scN
 * src`): rate-limit-key, from the logs when o (an IPv6 network seen from
 * several addresses) is given, else from the IPv6 bind alone. */
void lbt_auditi_rate_keys(lbt_audit *a, const struct au_proxy *p, const lbt_offender *o);

/* Rate limits the flood key escaped by its Host header. */
void lbt_auditi_check_hosts(lbt_audit *a);

/* Rate limits counted per address that a limited IPv6 /64 spread over. */
void lbt_auditi_check_keys(lbt_audit *a);

/*
 * What the logs say of the sources proxy p tarpitted: one sentence into
 * buf ("" when the logs show none), *slots the most slots the busiest of
 * them would hold at its peak rate for hold_ms, *ev_file / *ev_line its
 * first tarpitted request.  @return buf.
 */
const char *lbt_auditi_tarpit_seen(const lbt_audit *a, const struct au_proxy *p,
    int64_t hold_ms, char *buf, size_t size, int64_t *slots, const char **ev_file,
    uint64_t *ev_line);

#endif
