/*
 * judge.h - the judge of lbt-triage: what the analyses of one pass say
 * together, and the remedy that stops it (the screen: triage.h).  It
 * names its four analyses (lbt_triage_analyses), which the program runs
 * over one record stream (driver.h): rates per key and per status (rate.h,
 * 1 s buckets), sources (offenders.h) and the tarpit (tarpit.h); it reads
 * their results through their accessors and decides (the rules and why:
 * docs/judge.md):
 *
 *   hot keys   each key's series, and the series of every request, from
 *              the first second of the input to "now", through the
 *              change-point engine (changepoint.h); a key is hot when it
 *              has a rise, and its latest rise is the one shown: from
 *              which rate to which, its peak, since when, until when or
 *              ongoing;
 *   who        the sources, ranked by their share of the requests since
 *              the total rate jumped (of all requests when it did not
 *              jump), with the ratio to their own rate in the baseline
 *              window (from where every input is read to the jump); an
 *              offender is a source with at least min_share % of them
 *              that is new (nothing in that window), or at least
 *              min_ratio times its baseline, or whose requests the
 *              proxy's own limits refused for half or more (429 or
 *              tarpitted: this needs no baseline); or, whatever its
 *              share, one whose headers never came whole (408, cR), or
 *              one of many new sources of one /24 or /48 on one key;
 *   cause      of each offender, its remedy: a flood is denied, a prior
 *              customer rate-limited with Retry-After, a proportional
 *              surge left alone (capacity), slow headers timed out, a
 *              distributed flood denied by its prefix;
 *   pressure   per (load balancer, frontend): the tarpit's held seconds
 *              (sum of Tw over PT lines), the slot peak against maxconn,
 *              the peak had the tarpitted requests been denied at once,
 *              and the buckets where the logged fc reached maxconn (full
 *              now when the last of them reaches the last bucket before
 *              now);
 *   damage     the share of 429, 503, 5xx and -1 answers, of all requests
 *              (rates per status) and of the legitimate sources (every
 *              source but the offenders: offenders' status classes, where
 *              503 is one of the 5xx), and the rises of those answers
 *              (each error status's series through the engine);
 *   rule       the offenders through lib/rule (deny.h): picked, widened
 *              as asked, never special, allowed or wider than /24 and /48,
 *              merged, and the collateral: the requests of the other
 *              sources that the rule also matches.  Written as lbt-deny
 *              writes it (HAProxy deny 429 at once, or NGINX), with the
 *              lbt-deny command that writes the same rule.
 *
 * "Now" is opts.now_us, else the end of the data (the latest request).
 * The verdict: no records; calm; an anomaly (a rise of the total, of a
 * key or of an error status, a full frontend, a tarpit holding half the
 * slot time or more, an offender) that is over by now; or one that is
 * ongoing (a rise that lasts to now, a frontend full now, or an offender
 * that sent in the last cp.min_buckets seconds before now).
 *
 *     lbt_triage *t = lbt_triage_new(&opts, &err);
 *     lbt_triage_allow(t, "partners.lst", &err);         // --allow, optional
 *     lbt_triage_own(t, &bind_addr, "haproxy.cfg", 12, &err);  // the LB's own
 *     lbt_triage_build(t, &in, &err);                     // after the pass
 *     lbt_triage_write(t, stdout, &print, &err);          // the screen
 *     lbt_triage_write_json(t, stdout, &err);             // or one document
 *     lbt_triage_free(t);
 *
 * The results borrow strings from the analyses: they must outlive t.
 * lib/judge/judge_triage.c builds, judge_rise.c reads rises, judge_remedy.c
 * decides the remedy by cause; lib/report/triage_screen.c and triage_json.c
 * write (triage.h).  The rules and why: docs/judge.md.
 * Includes: analysis.h, changepoint.h, deny.h, err.h, ipset.h, offenders.h, rate.h,
 * tarpit.h, tarpit_cfg.h.
 */
#ifndef LBT_JUDGE_H
#define LBT_JUDGE_H

#include <stddef.h>
#include <stdint.h>

#include "lbt/analysis.h"
#include "lbt/changepoint.h"
#include "lbt/deny.h"
#include "lbt/err.h"
#include "lbt/ipset.h"
#include "lbt/offenders.h"
#include "lbt/rate.h"
#include "lbt/tarpit.h"
#include "lbt/tarpit_cfg.h"

typedef struct lbt_triage_opts {
	lbt_cp_opts cp;           /* rises of the total and of keys (factor, floor...) */
	double min_share;         /* an offender's share since the jump, %; default 5 */
	double min_ratio;         /* ... and new, or this times its baseline; default 5 */
	size_t nkeys;             /* hot keys kept; default 3 */
	size_t nsources;          /* sources kept (offenders always); default 5 */
	int64_t now_us;           /* the present; 0: the end of the data */
	int v4_bits, v6_bits;     /* the rule denies each offender's /BITS; -1 as is */
	lbt_deny_dialect dialect; /* LBT_DENY_HAPROXY (default) or LBT_DENY_NGINX */
	const char *list_path;    /* the list file when the rule does not fit on
	                             one line; default /etc/haproxy/offenders.lst */
	int conn_only;            /* no --trusted-proxies: the records were read with
	                             the connecting address as the client (an empty
	                             list), so a forged X-Forwarded-For names nobody;
	                             the screen warns when a header was set aside */
	const char *place;        /* where the rule goes in place_cfg ("above
	                             haproxy.cfg:46, fe_http's first http-request
	                             track-sc0"), NULL: not known */
	const char *place_cfg;    /* the haproxy.cfg and frontend of that place, for */
	const char *place_frontend;  /* the command (lbt-deny --into) */
} lbt_triage_opts;

#define LBT_TRIAGE_OPTS_INIT { LBT_CP_OPTS_INIT, 5.0, 5.0, 3, 5, 0, -1, -1, \
	LBT_DENY_HAPROXY, NULL, 0, NULL, NULL, NULL }

/* The analyses of the pass, finished.  keys: rate by key; statuses: rate
 * by status (both 1 s buckets); tarpit may be NULL. */
typedef struct lbt_triage_input {
	const lbt_rate *keys;
	const lbt_rate *statuses;
	const lbt_offenders *offenders;
	const lbt_tarpit *tarpit;
	uint64_t lines;           /* lines read (lbt_input_stats), for the header */
	uint64_t unread;          /* lines that could not be read when an input was read
	                             only in part or not at all (the run exits
	                             LBT_EXIT_UNREAD), else 0: then no verdict is calm */
} lbt_triage_input;

typedef enum lbt_triage_verdict {
	LBT_TRIAGE_NO_RECORDS,    /* nothing was counted */
	LBT_TRIAGE_CALM,
	LBT_TRIAGE_OVER,          /* an anomaly, over by now */
	LBT_TRIAGE_ONGOING,       /* an anomaly lasting to now */
	LBT_TRIAGE_UNREAD         /* nothing found in the lines read, but part of the
	                             input could not be read: not calm */
} lbt_triage_verdict;

/* A rise of a rate: the latest one of a series. */
typedef struct lbt_triage_rise {
	int found;                /* 0: no rise; the rest is unset */
	int ongoing;              /* lasts to now */
	int is_new;               /* the series was absent before: no baseline */
	double from_rate;         /* req/s before it (its baseline) */
	double to_rate;           /* mean req/s during it */
	double now_rate;          /* req/s of the last segment before now */
	double peak_rate;         /* busiest second */
	int64_t start_us, end_us; /* [start, end); end = now when ongoing */
	int64_t peak_us;
} lbt_triage_rise;

typedef struct lbt_triage_key {
	const char *key;          /* owned by the rate analysis */
	int64_t total;            /* requests with it */
	lbt_triage_rise rise;
} lbt_triage_key;

/* Why a source is an offender. */
typedef enum lbt_triage_why {
	LBT_TRIAGE_NOT,           /* it is not */
	LBT_TRIAGE_NEW,           /* absent from the baseline window */
	LBT_TRIAGE_RATIO,         /* min_ratio times its own baseline rate or more */
	LBT_TRIAGE_REFUSED,       /* the proxy's own limits refused half of it or more
	                             (429 or tarpitted): no baseline is needed */
	LBT_TRIAGE_SLOW           /* half of its requests or more never sent whole
	                             headers in time (408, "cR"): it holds slots */
} lbt_triage_why;

/* What the judge does about an offender: its cause decides (docs/judge.md). */
typedef enum lbt_triage_cause {
	LBT_TRIAGE_CAUSE_NONE,    /* not an offender */
	LBT_TRIAGE_CAUSE_FLOOD,   /* sent nothing before the jump and floods, or the
	                             proxy refused most of it: deny 429 at once */
	LBT_TRIAGE_CAUSE_CUSTOMER,/* a prior customer far above its own baseline:
	                             a per-source rate limit with Retry-After */
	LBT_TRIAGE_CAUSE_SURGE,   /* it rose with every other source: no rule */
	LBT_TRIAGE_CAUSE_PREFIX,  /* one of many new small sources in one /24 or /48
	                             on one key: the prefix is denied */
	LBT_TRIAGE_CAUSE_SLOW     /* slow headers: timeout http-request, no deny */
} lbt_triage_cause;

/* A distributed flood: many new sources inside one /24 (IPv4) or /48
 * (IPv6) on one key, none with min_share alone (docs/judge.md). */
typedef struct lbt_triage_prefix {
	lbt_ipnet net;            /* the aggregate prefix */
	const char *key;          /* their key (owned by the offenders analysis) */
	size_t sources;           /* new sources inside it on that key */
	double since;             /* their requests since the jump */
	double share;             /* ... of every request since the jump, % */
	size_t legit_sources;     /* prior sources inside it: the legitimate traffic
	                             the prefix would also deny */
	uint64_t legit_requests;  /* ... their requests (all of them) */
} lbt_triage_prefix;

typedef struct lbt_triage_source {
	const lbt_offender *row;  /* owned by the offenders analysis */
	size_t index;             /* its row's index there (lbt_offenders_changes) */
	double share;             /* % of the requests since the jump (or of all) */
	int offender;             /* an offender (any cause) */
	lbt_triage_why why;
	lbt_triage_cause cause;
	lbt_ipset_cover in_rule;  /* how much of it the deny rule matches */
	int prior;                /* it sent in the baseline window: a customer */
	double before, since;     /* its requests in the baseline window, since the jump */
	double base_rate;         /* before / the window's seconds, req/s */
	double ratio;             /* its rate since the jump (its rise's mean when it
	                             has one) over base_rate; 0 without a baseline */
	double resent_pct;        /* % of its requests answered 429 or 5xx: the share
	                             a client that re-sends after them repeats */
	int64_t limit;            /* rate-limit remedy: requests a 10 s window */
	uint64_t stopped;         /* requests the remedy would have stopped */
} lbt_triage_source;

typedef struct lbt_triage_front {
	const lbt_tarpit_group *g;   /* owned by the tarpit analysis */
	double held_s;            /* sum of Tw over PT lines, s */
	double tarpit_slot_pct;   /* % of the slot time held by tarpitted requests */
	int full_now;             /* fc at maxconn in the last bucket before now */
	int tarpit_heavy;         /* the tarpit held half the slot time or more */
	int64_t full_from_us, full_to_us;   /* first full bucket's start, last one's end */
} lbt_triage_front;

/* Answers by class: all requests, and those of the legitimate sources. */
typedef struct lbt_triage_damage {
	uint64_t requests, s429, s503, s5xx, snone;   /* s5xx includes s503 */
	uint64_t legit_sources;   /* sources that are not offenders */
	uint64_t legit_requests, legit_429, legit_5xx, legit_none;
} lbt_triage_damage;

typedef struct lbt_triage_summary {
	lbt_triage_verdict verdict;
	uint64_t lines, records, requests;   /* read, given to the analyses, counted */
	uint64_t unread;                     /* lines that could not be read (input) */
	int64_t first_us, last_us;           /* first and latest record read (the
	                                        input's span, whatever was dropped) */
	int64_t now_us;                      /* the present (opts, else last_us) */
	int64_t aligned_us;                  /* every input is read from here: the
	                                        latest first record of the load
	                                        balancers that began within a minute
	                                        of the first; rises and the baseline
	                                        window start here */
	lbt_triage_rise total;               /* every request together */
	int baseline;                        /* offenders found a baseline window */
	int64_t base_from_us, base_to_us;    /* it; the jump is at base_to_us */
	size_t sources;                      /* distinct sources */
	size_t offenders;                    /* of them picked for the rule */
	int64_t since_us, until_us;          /* the anomaly: first start, last end */
	uint64_t since_requests;             /* every request since the jump: the
	                                        denominator of every share */
	int surge;                           /* every source rose with the total:
	                                        capacity is the question, no rule */
	double total_ratio;                  /* the total's rise over its baseline */
	size_t to_deny, to_limit, to_time;   /* offenders by remedy */
	uint64_t header_aside;               /* requests that carried an X-Forwarded-For
	                                        address, the connecting one counted */
	uint64_t from_header;                /* ... whose client is the header's word,
	                                        nobody vouching for it */
	uint64_t from_trusted;               /* ... whose client --trusted-proxies vouched
	                                        for: a src rule needs the LB to take its
	                                        source from the header too */
} lbt_triage_summary;

typedef struct lbt_triage lbt_triage;

/* The analyses the judge reads, in the order of lbt_triage_input. */
#define LBT_TRIAGE_NANALYSES 4

/*
 * The analyses the judge needs, configured for it, into v[0..4): rate by
 * key (the RATE_KEYS busiest), rate by status, sources (the change points
 * only on the sources that may rise: --by ratio), the tarpit (maxconn
 * from cfg, may be NULL, else maxconn when above 0).  max_memory is shared
 * among them (docs/memory.md).  The caller feeds them through the driver,
 * finishes and frees them.  @return 0, or -1 with err (v freed).
 */
int lbt_triage_analyses(size_t max_memory, const lbt_tarpit_cfgs *cfg, int32_t maxconn,
    lbt_analysis *v, lbt_err *err);

/* The input of lbt_triage_build from the analyses of lbt_triage_analyses,
 * finished, and the lines read (unread 0: the caller sets it). */
lbt_triage_input lbt_triage_input_of(const lbt_analysis *v, uint64_t lines);

/* A new triage with options o (copied).  @return it, or NULL with err. */
lbt_triage *lbt_triage_new(const lbt_triage_opts *o, lbt_err *err);

/* NULL accepted. */
void lbt_triage_free(lbt_triage *t);

/* Never cover `arg` in the rule: a network, or an allow-list file ("-"
 * stdin), as lbt-deny --allow.  Before lbt_triage_build.
 * @return 0, or -1 with err. */
int lbt_triage_allow(lbt_triage *t, const char *arg, lbt_err *err);

/* Never cover address a, the load balancer's own (a `bind` of its
 * haproxy.cfg at file:line), nor a network holding it: the rule leaves it
 * out and says why.  Before lbt_triage_build.  @return 0, or -1 with err. */
int lbt_triage_own(lbt_triage *t, const lbt_addr *a, const char *file, uint64_t line,
    lbt_err *err);

/* Read the finished analyses of `in` and decide everything above.  Once.
 * @return 0, or -1 with err (out of memory). */
int lbt_triage_build(lbt_triage *t, const lbt_triage_input *in, lbt_err *err);

/* Results, after lbt_triage_build, until lbt_triage_free. */
const lbt_triage_summary *lbt_triage_summary_get(const lbt_triage *t);
size_t lbt_triage_nkeys(const lbt_triage *t);
const lbt_triage_key *lbt_triage_key_at(const lbt_triage *t, size_t i);
/* The rises of error answers (429, 5xx, -1), the key being the status;
 * ongoing first, then by size. */
size_t lbt_triage_nerrors(const lbt_triage *t);
const lbt_triage_key *lbt_triage_error_at(const lbt_triage *t, size_t i);
/* Offenders first (by share), then the others, at most opts.nsources of
 * those. */
size_t lbt_triage_nsources(const lbt_triage *t);
const lbt_triage_source *lbt_triage_source_at(const lbt_triage *t, size_t i);
/* Groups by held time, then requests. */
size_t lbt_triage_nfronts(const lbt_triage *t);
const lbt_triage_front *lbt_triage_front_at(const lbt_triage *t, size_t i);
const lbt_triage_damage *lbt_triage_damage_get(const lbt_triage *t);
const lbt_triage_opts *lbt_triage_opts_get(const lbt_triage *t);
/* The analyses t was built from (zeroed before lbt_triage_build), and
 * whether it was built. */
const lbt_triage_input *lbt_triage_input_get(const lbt_triage *t);
int lbt_triage_built(const lbt_triage *t);

/* The rule: the decision (NULL when no source was picked), the lines of
 * configuration lbt-deny writes for it (comments left out; "" when none),
 * the list file they name when they do not fit on one line (NULL when
 * inline), the rule's networks one a line, and the lbt-deny command that
 * writes the same lines ("" when none). */
const lbt_deny *lbt_triage_rule(const lbt_triage *t);
const char *lbt_triage_rule_lines(const lbt_triage *t);
const char *lbt_triage_rule_file(const lbt_triage *t);
const char *lbt_triage_rule_list(const lbt_triage *t);
const char *lbt_triage_command(const lbt_triage *t);

/* Where the rule goes (lbt_triage_opts.place), or NULL. */
const char *lbt_triage_place(const lbt_triage *t);

/* The aggregate prefixes found, i < lbt_triage_nprefixes. */
size_t lbt_triage_nprefixes(const lbt_triage *t);
const lbt_triage_prefix *lbt_triage_prefix_at(const lbt_triage *t, size_t i);

/* An aggregate needs this many new sources in its prefix. */
#define LBT_TRIAGE_PREFIX_MIN 10

/* The rate-limit remedy (sources of cause CUSTOMER): HAProxy lines, a
 * stick-table keyed on src,ipmask(32,64) and a 429 with Retry-After, '\n'
 * after each line; "" when no source needs it. */
const char *lbt_triage_limit_lines(const lbt_triage *t);

/* The remedy of slow headers: HAProxy's line, for the frontend (or its
 * defaults); "" when no source sent slow headers. */
const char *lbt_triage_timeout_line(const lbt_triage *t);
#define LBT_TRIAGE_TIMEOUT_S 5

/* Retry-After of the rate-limit remedy, s: the stick-table's period. */
#define LBT_TRIAGE_RETRY_AFTER 10

/* The rate limit is this many times the customer's baseline rate. */
#define LBT_TRIAGE_LIMIT_K 3

/* The name of a cause in --json ("none", "flood", "customer", "surge",
 * "prefix", "slow"). */
const char *lbt_triage_cause_name(lbt_triage_cause c);

/* The name of a verdict in --json ("no-records", "calm", "over", "ongoing"). */
const char *lbt_triage_verdict_name(lbt_triage_verdict v);

#endif
