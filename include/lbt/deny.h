/*
 * deny.h - from findings to the fix: the sources to stop, the safety
 * checks, and the rule that stops them (HAProxy, NGINX, nftables, JSON).
 *
 * The model is a plain in-memory list of sources (lbt_deny_src): a network
 * with what the data says of it (requests, share, peak rate, first and
 * last seen), filled by any producer: the reader of lbt-offenders TSV or
 * NDJSON (lbt_deny_read), addresses from the command line
 * (lbt_deny_add_text), or an analysis run in the same process.  Then:
 *
 *     lbt_deny *d = lbt_deny_new(&opts, &err);
 *     lbt_deny_add(d, &src, &err) ...          // every source of the data
 *     lbt_deny_allow(d, &net, bits, file, line, &err) ...  // --allow
 *     lbt_deny_finish(d, &err);                // decide
 *     lbt_deny_write(d, &gen, LBT_DENY_PART_CONFIG, stdout, &err);
 *
 * lbt_deny_finish decides, in this order:
 *   1. selection: the sources passing --min-share, --min-requests and
 *      --top are "selected" (all of them when no threshold is set, none
 *      with opts.picked_only), and those added as LBT_DENY_FROM_ARG; the
 *      others stay as data, for the collateral count;
 *   2. widening: a selected source narrower than --deny-v4-prefix/--deny-v6-prefix
 *      is replaced by its network of that length;
 *   3. trust and width: a source whose address came from an X-Forwarded-For
 *      header nobody vouches for (from_header > 0: any client can write
 *      one, and name whom it likes) is left out unless opts.trust_header;
 *      a source wider than /24 (IPv4) or /48 (IPv6) is left out;
 *      opts.force widens the limit one step, to /16 and /32, never
 *      further: a network wider than that is denied only when it is
 *      named exactly by lbt_deny_force_network (--force-network);
 *   4. exclusions: the special-purpose ranges (special.h), the allow
 *      list and the load balancer's own addresses (lbt_deny_own: a rule
 *      that names them blocks the LB itself) are cut out of what is left
 *      (a /24 around one allowed address becomes the eight networks that
 *      cover the rest);
 *   5. merging: the union of what is left is written as the fewest aligned
 *      networks, never wider than /24 or /48 except inside a source that
 *      was wider and forced (two adjacent /25 are one /24, two /24 stay);
 *   6. collateral: each source that was not selected and that the rule
 *      matches, wholly or in part, with its requests.
 * Every cut in steps 3 and 4 is kept as a "left out" item with its reason.
 * Includes: addr.h, err.h, ipset.h.
 */
#ifndef LBT_DENY_H
#define LBT_DENY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lbt/addr.h"
#include "lbt/err.h"
#include "lbt/ipset.h"

/* Unknown values of a source. */
#define LBT_DENY_UNKNOWN  (-1)
#define LBT_DENY_NO_TIME  INT64_MIN

/* Where a source came from, for messages and the header comment. */
typedef enum lbt_deny_origin {
	LBT_DENY_FROM_DATA,  /* a row of lbt-offenders output (or another producer) */
	LBT_DENY_FROM_ARG    /* an address on the command line: always selected */
} lbt_deny_origin;

/* One source as a producer hands it over. */
typedef struct lbt_deny_src {
	lbt_ipnet net;       /* host bits cleared by lbt_deny_add */
	int64_t requests;    /* LBT_DENY_UNKNOWN when the data does not say */
	double share;        /* per cent of all requests; < 0 unknown */
	int64_t peak_rps;    /* busiest second; LBT_DENY_UNKNOWN */
	int64_t first_us;    /* first and last request, µs UTC; LBT_DENY_NO_TIME */
	int64_t last_us;
	lbt_deny_origin origin;
	const char *file;    /* input it was read from (copied), NULL for none */
	uint64_t line;
	int64_t from_header; /* requests whose address came from a header nobody
	                        vouches for (lbt-offenders' from_header); UNKNOWN */
	char via[LBT_ADDR_STRLEN + 2];   /* the connecting address that sent them
	                        (lbt-offenders' via: "203.0.113.66", "+" after it
	                        when others did too), "" unknown */
} lbt_deny_src;

#define LBT_DENY_SRC_INIT { { { 0, { 0 } }, 0 }, LBT_DENY_UNKNOWN, -1.0, \
	LBT_DENY_UNKNOWN, LBT_DENY_NO_TIME, LBT_DENY_NO_TIME, LBT_DENY_FROM_DATA, NULL, 0, \
	LBT_DENY_UNKNOWN, "" }

/* The widest prefixes a rule may name without opts.force. */
#define LBT_DENY_V4_WIDEST 24
#define LBT_DENY_V6_WIDEST 48

/* ... and with opts.force: one step wider, no more (lbt_deny_force_network
 * names each network wider than this, exactly). */
#define LBT_DENY_V4_FORCED 16
#define LBT_DENY_V6_FORCED 32

typedef struct lbt_deny_opts {
	double min_share;        /* select sources with share >= this; < 0 off */
	int64_t min_requests;    /* select sources with requests >= this; < 0 off */
	int64_t top;             /* then keep the first `top` by requests; 0 all */
	int v4_bits, v6_bits;    /* widen selected sources to this; -1 off */
	int force;               /* allow sources up to /16 and /32 (not wider) */
	int picked_only;         /* select only the sources added as LBT_DENY_FROM_ARG
	                            (a caller that chose them itself: lbt-triage);
	                            the data sources stay, for the collateral */
	int trust_header;        /* deny sources whose address came from a header
	                            nobody vouches for (from_header > 0) all the same */
} lbt_deny_opts;

#define LBT_DENY_OPTS_INIT { -1.0, -1, 0, -1, -1, 0, 0, 0 }

typedef struct lbt_deny lbt_deny;

/* A network the rule names, with what it stands for. */
typedef struct lbt_deny_rule {
	lbt_ipnet net;
	int64_t requests;        /* of the selected sources wholly inside it;
	                            LBT_DENY_UNKNOWN when none of them says */
	double share;            /* the same as a share; < 0 unknown */
	int64_t first_us, last_us;   /* LBT_DENY_NO_TIME when unknown */
	size_t nsources;         /* selected sources wholly inside it */
	const char *part_of;     /* text of the selected source it is a part of
	                            (carved around exclusions), else NULL */
	char merged[160];        /* the sources merged into it when several
	                            ("a, b, c and 4 more"), else "" */
} lbt_deny_rule;

/* Something that was asked for and is not in the rule. */
typedef struct lbt_deny_left {
	lbt_ipnet net;           /* what is left out */
	char of[LBT_ADDR_STRLEN];   /* the source it was part of, "" when all of it */
	char why[200];           /* "private address (RFC 1918)" */
} lbt_deny_left;

/* A source that was not selected and that the rule matches. */
typedef struct lbt_deny_collateral {
	lbt_ipnet net;
	int64_t requests;        /* LBT_DENY_UNKNOWN when the data does not say */
	int whole;               /* 1 every address of it is matched, 0 some */
	char by[LBT_ADDR_STRLEN];   /* a rule network that matches it */
} lbt_deny_collateral;

/* Totals of a decision. */
typedef struct lbt_deny_totals {
	size_t sources;          /* sources given (after removing duplicates) */
	size_t selected;         /* of them selected */
	size_t others;           /* not selected */
	int counts;              /* 1 when every source carries a request count */
	int64_t requests;        /* requests of every source, when counts */
	double input_requests;   /* all requests of the run the data came from
	                            (from a share column), else = requests */
	int64_t denied;          /* requests of the selected sources wholly in the rule */
	int64_t denied_part;     /* of those cut around exclusions (partly in it) */
	int64_t collateral;      /* of other sources wholly matched */
	int64_t collateral_part; /* of other sources partly matched (an upper bound) */
	size_t collateral_n;
	int64_t peak_rps;        /* sum of the selected sources' peaks; UNKNOWN */
} lbt_deny_totals;

/* A new decision with options o (copied).  @return it, or NULL with err. */
lbt_deny *lbt_deny_new(const lbt_deny_opts *o, lbt_err *err);

/* Free d; NULL accepted. */
void lbt_deny_free(lbt_deny *d);

/*
 * Add one source.  The same network twice is one source: requests, shares
 * and peaks are added, first and last widened.  Not after lbt_deny_finish.
 * @return 0, or -1 with err (out of memory, no family).
 */
int lbt_deny_add(lbt_deny *d, const lbt_deny_src *s, lbt_err *err);

/*
 * Parse "ADDR" or "ADDR/BITS" (host bits are cleared) for a source or an
 * allow-list entry.  IPv4-mapped text (::ffff:a.b.c.d) is refused with a
 * message that names it.  @return 0, or -1 with err (no file or line).
 */
int lbt_deny_parse_net(const char *s, size_t len, lbt_ipnet *out, lbt_err *err);

/* Add the source that text `arg` names (a command-line operand).
 * @return 0, or -1 with err. */
int lbt_deny_add_text(lbt_deny *d, const char *arg, lbt_err *err);

/* Add one allow-list entry, never to be covered; file/line (may be NULL/0)
 * say where it was written.  @return 0, or -1 with err. */
int lbt_deny_allow(lbt_deny *d, const lbt_ipnet *net, const char *file, uint64_t line,
    lbt_err *err);

/*
 * Read lbt-offenders output from fp ("name" in messages): TSV with its
 * header line (columns found by name: source, requests, share, peak_rps,
 * first, last, from_header, via; the others ignored), NDJSON (the same keys), or a plain list
 * (one source a line, its first word; '#' starts a comment).  The shape is
 * decided by the first line that is not blank or a comment.
 * @return 0, or -1 with err naming file:line of the first bad line.
 */
int lbt_deny_read(lbt_deny *d, FILE *fp, const char *name, lbt_err *err);

/* Read an allow-list file (the plain list shape).  @return 0 or -1 with err. */
int lbt_deny_read_allow(lbt_deny *d, FILE *fp, const char *name, lbt_err *err);

/*
 * Add one of the load balancer's own addresses (a `bind` address of its
 * haproxy.cfg; file/line say where): never covered, as an allow-list
 * entry, with its own reason ("the load balancer's own address").
 * @return 0, or -1 with err.
 */
int lbt_deny_own(lbt_deny *d, const lbt_ipnet *net, const char *file, uint64_t line,
    lbt_err *err);

/*
 * --force-network NET: the network `text` names may be denied whatever
 * its width, that exact network only (a source wider than /16 or /32
 * needs it; opts.force does not reach so far).  @return 0, or -1 with err.
 */
int lbt_deny_force_network(lbt_deny *d, const char *text, lbt_err *err);

/* One --allow value: a network, else an allow-list file ("-" stdin).
 * @return 0, or -1 with err ("FILE: why", or file:line of a bad line). */
int lbt_deny_allow_arg(lbt_deny *d, const char *arg, lbt_err *err);

/* Decide (see the top of this file).  @return 0, or -1 with err (a
 * threshold the data cannot answer, out of memory). */
int lbt_deny_finish(lbt_deny *d, lbt_err *err);

/* Results, valid after lbt_deny_finish until lbt_deny_free. */
size_t lbt_deny_nrules(const lbt_deny *d);
const lbt_deny_rule *lbt_deny_rule_at(const lbt_deny *d, size_t i);
size_t lbt_deny_nleft(const lbt_deny *d);
const lbt_deny_left *lbt_deny_left_at(const lbt_deny *d, size_t i);
size_t lbt_deny_ncollateral(const lbt_deny *d);
const lbt_deny_collateral *lbt_deny_collateral_at(const lbt_deny *d, size_t i);
const lbt_deny_totals *lbt_deny_totals_get(const lbt_deny *d);

/* The inputs read, for the header comment: "stdin (lbt-offenders TSV, 10
 * rows)", "arguments (2)", joined by ", ".  @return buf */
const char *lbt_deny_inputs(const lbt_deny *d, char *buf, size_t size);

/* The covered set of the rule (for checks); owned by d. */
lbt_ipset *lbt_deny_covered(lbt_deny *d);

/* ---- writing the rule (deny_write.c and one file per dialect) ---- */

typedef enum lbt_deny_dialect {
	LBT_DENY_HAPROXY,
	LBT_DENY_NGINX,
	LBT_DENY_NFTABLES,
	LBT_DENY_JSON
} lbt_deny_dialect;

typedef enum lbt_deny_action {
	LBT_DENY_ACT_DENY,        /* http-request deny deny_status 429 */
	LBT_DENY_ACT_REJECT,      /* tcp-request connection reject */
	LBT_DENY_ACT_SILENT_DROP, /* http-request silent-drop */
	LBT_DENY_ACT_TARPIT,      /* http-request tarpit deny_status 429 */
	LBT_DENY_ACT_RATE_LIMIT   /* a stick-table, 429 above N per PERIOD */
} lbt_deny_action;

/* HAProxy's inline ACL holds at most this many networks; more need a file. */
#define LBT_DENY_INLINE_MAX 8

#define LBT_DENY_MAX_HOSTS 16

/* How to write the rule. */
typedef struct lbt_deny_gen {
	lbt_deny_dialect dialect;
	lbt_deny_action action;
	const char *list_path;    /* the list file as the server reads it (-o);
	                             NULL: networks inline / on stdout */
	const char *hosts[LBT_DENY_MAX_HOSTS];   /* --host, checked by lbt_deny_gen_check */
	size_t nhosts;
	int64_t rate_n;           /* --rate-limit N/PERIOD */
	int64_t rate_period_us;
	int sc;                   /* sticky counter of --rate-limit, 0..2 */
	int64_t tarpit_us;        /* --tarpit-timeout, 0 unknown */
	double peak_rate;         /* --peak-rate, < 0: from the data */
	int64_t maxconn;          /* --maxconn, 0 unknown */
	int64_t now_us;           /* when, for the header */
	const char *command;      /* the command line, for the header */
	const char *place;        /* HAProxy: where the lines go ("above haproxy.cfg:46,
	                             fe_http's first http-request track-sc0"); NULL: the
	                             rule of thumb */
	const char *cfg_path;     /* the haproxy.cfg to check (haproxy -c -f), NULL: a
	                             placeholder */
} lbt_deny_gen;

#define LBT_DENY_GEN_INIT { LBT_DENY_HAPROXY, LBT_DENY_ACT_DENY, NULL, { NULL }, 0, \
	0, 0, 2, 0, -1.0, 0, 0, NULL, NULL, NULL }

/* What to write. */
typedef enum lbt_deny_part {
	LBT_DENY_PART_LIST,       /* the list file (-o): ACL file, NGINX include */
	LBT_DENY_PART_CONFIG,     /* what stdout gets: configuration lines, or the
	                             whole nftables / JSON output */
	LBT_DENY_PART_RULE,       /* HAProxy: the frontend's lines only, to be placed
	                             into a haproxy.cfg (lbt-deny --into) */
	LBT_DENY_PART_SECTIONS    /* HAProxy: the sections the rule needs besides
	                             (--rate-limit's table), to be appended; may be empty */
} lbt_deny_part;

/*
 * Check that the dialect, action and options of g go together (--host
 * only with HTTP actions of HAProxy, --rate-limit not with nftables, host
 * names that cannot break out of the configuration, ...) and that d's rule
 * fits (more than LBT_DENY_INLINE_MAX networks need a list file).
 * @return 0, or -1 with err saying what to change.
 */
int lbt_deny_gen_check(const lbt_deny *d, const lbt_deny_gen *g, lbt_err *err);

/* Write one part of the rule to fp, after lbt_deny_finish and
 * lbt_deny_gen_check.  @return 0, or -1 with err when writing failed. */
int lbt_deny_write(const lbt_deny *d, const lbt_deny_gen *g, lbt_deny_part part, FILE *fp,
    lbt_err *err);

/* The tarpit estimate (Little's law) of g over d's data. */
typedef struct lbt_deny_tarpit {
	double rate;              /* requests a second, < 0 unknown */
	const char *rate_from;    /* "--peak-rate", "the sum of the sources' peak_rps" */
	double seconds;           /* the delay */
	double slots;             /* rate x seconds, < 0 unknown */
} lbt_deny_tarpit;

/* Fill *t for g (tarpit_us must be set). */
void lbt_deny_tarpit_estimate(const lbt_deny *d, const lbt_deny_gen *g, lbt_deny_tarpit *t);

/* Receives one message line (no program name, no newline). */
typedef void (*lbt_deny_say_fn)(void *ctx, const char *line);

/*
 * The messages of the decision, one call of say a line, in order: each
 * part left out ("left out 10.1.2.3: private address (RFC 1918)"), each
 * collateral source and their total, and for tarpit the warnings with the
 * slots it would hold ("warning: at 211 requests/s (...) that is 1055
 * slots held at once (rate x delay, Little's law)").
 */
void lbt_deny_messages(const lbt_deny *d, const lbt_deny_gen *g, lbt_deny_say_fn say,
    void *ctx);

/* Parse --rate-limit "N/PERIOD" (PERIOD a duration: 10s, 1m; "N/s" = N/1s).
 * @return 0, or -1 with err. */
int lbt_deny_parse_rate(const char *s, int64_t *n, int64_t *period_us, lbt_err *err);

/* The command line argv[0..argc) as one line for the header, each
 * argument that is not a plain word in single quotes.  @return buf */
const char *lbt_deny_command(int argc, char **argv, char *buf, size_t size);

/* Parse --action text.  @return 0, or -1 with err naming the choices. */
int lbt_deny_parse_action(const char *s, lbt_deny_action *a, lbt_err *err);

#endif
