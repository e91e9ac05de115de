/*
 * timeline.h - the incident's story, minute by minute: the streaming
 * accumulator behind lbt-timeline(1).  It reads every record once (the
 * analysis interface of analysis.h, so raw logs and --db alike, merged
 * exactly when cut in parts) and, at finish, detects and orders events,
 * each with its UTC time, its numbers and its evidence (file:line, the
 * smallest (time, file, line) of the records that qualify, evidence.h;
 * for an event about a last request, the largest).
 *
 *     lbt_timeline *tl = lbt_timeline_new(&opts, &err);
 *     ... lbt_timeline_add(tl, rec) for every record (events too) ...
 *     lbt_timeline_finish(tl, &err);
 *     for (size_t i = 0; i < lbt_timeline_nevents(tl); i++)
 *             ... lbt_timeline_event_at(tl, i) ...
 *     lbt_timeline_free(tl);
 *
 * What it keeps, in memory bounded by the number of series, never by
 * records or distinct keys:
 *   - one series of counts per time bucket, each bucket with its evidence,
 *     for every request, for each status/termination class (tl_class
 *     below), for each load balancer (at most LBT_TL_MAXLB), and for the
 *     `track` heaviest keys, sources (netgroup.h: IPv4 /32, IPv6 /64) and
 *     Host headers, chosen by a space-saving sketch: exact while a
 *     dimension has at most `track` distinct values, else the counts of
 *     the ones kept are upper bounds and a tracked series starts when its
 *     value entered the sketch (lbt_timeline_stats.approx says which);
 *   - per tracked source, the requests it sent and got refused (429, 503,
 *     -1, tarpit), per (method, key or path), at most LBT_TL_RETRY_CAP;
 *   - HAProxy's own lines (LBT_KIND_EVENT records, at most LBT_TL_MAXEV),
 *     and per input file the end times of its requests by blocks of lines,
 *     to place a line without a time between its neighbours;
 *   - a tarpit accumulator (tarpit.h) at 1 s for the slot occupancy and the
 *     logged fc / ac against maxconn.
 * The bucket width is `step_us`, or with 0 the first of 1 s, 5 s, 10 s,
 * 30 s, 1 min, 5 min, 10 min, 30 min, 1 h at which the input has at most
 * LBT_TL_MAXBUCKETS buckets (the choice depends on the set of records,
 * never their order, so merges stay exact).
 *
 * Episodes come from the change-point engine (changepoint.h), one for
 * every series.  Event kinds (lbt_tl_kind; lbt-timeline(1) documents the
 * columns each one fills): rises of all traffic, a key or a Host and their
 * ends (where the series settled back into its baseline band); new heavy
 * sources (never inside the first min_buckets, the baseline window), a
 * burst of ten or more new sources as one event, and sources at more than
 * `ratio` x their own baseline or the rate they rose from; drops of all traffic or a Host; sources that stop at once
 * while the others go on (nothing logged says why); error and
 * load-shedding classes as shares over time, start and end (with two or
 * more LBs also each LB's 429 and 503 runs, cut at its reloads; and the
 * sources answered 429 most); the tarpit
 * giving way to deny; frontends at maxconn (logged fc, rebuilt
 * occupancy, the tarpit's share of held slots) and the moment an alert at
 * alert_pct % would have fired; a load balancer that stops logging, goes
 * quiet for a while, or loses its load to the others; HAProxy's lines
 * (server down and up, crash loops, no server available, reloads and
 * stops); retry storms (summed up, and each episode at `ratio` x the
 * source's baseline, cut at reloads); the end of the incident (every
 * episode over, or all traffic back in its baseline band for good).
 * Includes: analysis.h, err.h, netgroup.h, rec.h, tarpit.h, changepoint.h.
 */
#ifndef LBT_TIMELINE_H
#define LBT_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#include "lbt/analysis.h"
#include "lbt/changepoint.h"
#include "lbt/err.h"
#include "lbt/netgroup.h"
#include "lbt/rec.h"
#include "lbt/tarpit.h"

#define LBT_TL_MAXBUCKETS 4096   /* buckets of the automatic step */
#define LBT_TL_MAXLB 64          /* load balancers with a series of their own */
#define LBT_TL_MAXEV 100000      /* HAProxy lines kept */
#define LBT_TL_RETRY_CAP 4096    /* (method, path) pairs kept per tracked source */
#define LBT_TL_NONE INT64_MIN    /* a time that is not there */

typedef struct lbt_timeline_opts {
	int64_t step_us;          /* --step; 0: automatic (see above) */
	size_t track;             /* series kept per dimension (--track); default 64 */
	double ratio;             /* a source above ratio x its baseline (--ratio); 20 */
	int alert_pct;            /* the alert on fc at this % of maxconn (--alert-pct); 80 */
	int64_t retry_window_us;  /* re-sent within this (--retry-window); default 30 s */
	uint64_t retry_min;       /* re-sent requests that make a storm; default 20 */
	int flaps;                /* DOWNs of one server that make a crash loop; default 3 */
	size_t top;               /* subjects per dimension with events (--top); default 5 */
	lbt_cp_opts cp;           /* the change-point engine's options */
	lbt_netgroup net;         /* what a source is */
	lbt_tarpit_opts tarpit;   /* maxconn (--maxconn, --haproxy-cfg) and the sweep */
	const char *const *changes;   /* what the reload installed (--haproxy-cfg-after:
	                                 lbt_audit_cfg_diff lines), borrowed; or NULL */
	size_t nchanges;
} lbt_timeline_opts;

/* Defaults; tarpit.step_us is 1 s and tarpit.threshold_pct 100. */
#define LBT_TIMELINE_OPTS_INIT { 0, 64, 20.0, 80, 30000000, 20, 3, 5, LBT_CP_OPTS_INIT, \
	LBT_NETGROUP_INIT, { 1000000, 60000000, 0, 0, 100, 1, NULL, NULL, LBT_NETGROUP_INIT, \
	LBT_BUDGET_DEFAULT, 0 }, NULL, 0 }

/* What happened (the NDJSON "kind"; lbt_tl_kind_name). */
typedef enum lbt_tl_kind {
	LBT_TL_RISE,              /* all traffic, a key or a Host rises */
	LBT_TL_NEW_SOURCE,        /* a heavy source that was not there before */
	LBT_TL_SOURCE_RISE,       /* a source above ratio x its own baseline */
	LBT_TL_RISE_END,          /* one of the three above is back to its baseline */
	LBT_TL_DROP,              /* all traffic or a Host falls to a fraction */
	LBT_TL_DROP_END,
	LBT_TL_VANISH,            /* a heavy source stops at once, the others go on */
	LBT_TL_ERRORS,            /* a class of errors or refusals rises */
	LBT_TL_ERRORS_END,
	LBT_TL_SWITCH,            /* tarpit lines give way to deny lines */
	LBT_TL_ALERT,             /* fc reached alert_pct % of maxconn */
	LBT_TL_SATURATION,        /* fc at maxconn (frontend) or ac (process) */
	LBT_TL_SATURATION_END,
	LBT_TL_LB_STOP,           /* a load balancer stops logging */
	LBT_TL_LB_GAP,            /* a load balancer's log has a hole */
	LBT_TL_LB_SHIFT,          /* a load balancer falls while others rise */
	LBT_TL_SERVER_DOWN,
	LBT_TL_SERVER_UP,
	LBT_TL_CRASH_LOOP,        /* a server going down `flaps` times or more */
	LBT_TL_NO_SERVER,         /* backend has no server available */
	LBT_TL_RELOAD,            /* HAProxy's old process stopped, requests go on */
	LBT_TL_STOP,              /* proxies stopped, no request after */
	LBT_TL_HAPROXY,           /* another line of HAProxy's own */
	LBT_TL_RETRY,             /* a source re-sends what was refused */
	LBT_TL_END,               /* every series back within its baseline */
	LBT_TL_RETRY_STORM,       /* an episode of a RETRY source at ratio x its baseline */
	LBT_TL_SOURCE_BURST,      /* many new sources appearing together (value: how many) */
	LBT_TL_BACKOFF,           /* a source answered 429 slows to half or less after */
	LBT_TL_BACKEND_SAT,       /* a backend's queue and HAProxy's own 503 (sQ, sC, SC) */
	LBT_TL_CONFIG_CHANGE,     /* a line the last reload installed or removed (text) */
	LBT_TL_NKINDS
} lbt_tl_kind;

/* What the subject is (the NDJSON "what"; lbt_tl_what_name). */
typedef enum lbt_tl_what {
	LBT_TL_W_ALL, LBT_TL_W_KEY, LBT_TL_W_SOURCE, LBT_TL_W_HOST, LBT_TL_W_LB,
	LBT_TL_W_CLASS, LBT_TL_W_FRONTEND, LBT_TL_W_PROCESS, LBT_TL_W_SERVER,
	LBT_TL_W_BACKEND, LBT_TL_W_PROXY, LBT_TL_W_ACTION, LBT_TL_W_NWHAT
} lbt_tl_what;

/* The error and refusal classes (subjects of ERRORS, in this order). */
typedef enum lbt_tl_class {
	LBT_TL_C429,              /* status 429 */
	LBT_TL_C503,              /* status 503 */
	LBT_TL_C5XX,              /* other 5xx, tarpit answers left out */
	LBT_TL_CNONE,             /* status -1: nothing sent (reject, silent-drop) */
	LBT_TL_CTARPIT,           /* termination state PT or CT */
	LBT_TL_CDENY,             /* P other than PT: deny, reject, bad request */
	LBT_TL_CCLIENT,           /* C other than CT: the client aborted */
	LBT_TL_CSERVER,           /* S: the server aborted or refused */
	LBT_TL_CTIMEOUT,          /* c or s: a client- or server-side timeout */
	LBT_TL_CRESOURCE,         /* R: a resource of the proxy ran out */
	LBT_TL_NCLASS
} lbt_tl_class;

/*
 * One event.  Numbers that do not apply are NaN (doubles), LBT_TL_NONE
 * (times) or -1 (counts); strings are owned by the accumulator.
 */
typedef struct lbt_tl_event {
	lbt_tl_kind kind;
	lbt_tl_what what;
	const char *subject;      /* key, source, "fe_http", "be_app/app1", "429" ... */
	const char *lb;           /* its load balancer, NULL when none or all */
	int64_t time_us;          /* when (UTC µs) */
	int approx;               /* the line had no time: 1, time_us is the earliest it
	                             can be and time_hi_us the latest (NONE: no limit);
	                             2, only the latest is known, in both */
	int64_t time_hi_us;
	int64_t end_us;           /* the end of what started; LBT_TL_NONE: n/a or ongoing */
	int ongoing;              /* still going on at the end of the input */
	double from, to;          /* the level before and during (unit) */
	double peak;              /* the highest level (a drop: the lowest) */
	int64_t peak_us;          /* and when */
	const char *unit;         /* "req/s", "slots", "%" ... NULL when none */
	double ratio;             /* to / baseline; retries: amplification */
	int64_t count;            /* requests, lines, re-sent requests ... */
	int64_t distinct;         /* retries: distinct requests re-sent */
	double share_pct;         /* of every request over the same time, or the
	                             tarpit's share of held slot time */
	int32_t value, limit;     /* fc / ac reached and maxconn, alert threshold */
	double period_s;          /* crash loop: mean seconds between two DOWNs */
	const char *other;        /* related subjects ("lb2,lb3"; "deny") or NULL */
	const char *text;         /* HAProxy's message, or NULL */
	const char *ev_file;      /* evidence; NULL when none */
	uint64_t ev_line;
} lbt_tl_event;

/* One series for charts, dense over the input's buckets. */
typedef struct lbt_tl_series {
	lbt_tl_what what;
	const char *name;         /* the subject; "other" for the rest */
	const int64_t *v;         /* v[0..nbuckets): counts, or maxima for slots */
} lbt_tl_series;

/* Which chart a series belongs to (lbt_timeline_chart). */
typedef enum lbt_tl_chart {
	LBT_TL_CH_KEYS,           /* the hot keys and "other" */
	LBT_TL_CH_LBS,            /* requests per load balancer */
	LBT_TL_CH_SLOTS,          /* per frontend: rebuilt slots, logged fc (maxima) */
	LBT_TL_CH_STATUS,         /* 2xx 3xx 4xx 429 5xx -1 other */
	LBT_TL_CH_SOURCES,        /* the top sources and "other" */
	LBT_TL_NCHARTS
} lbt_tl_chart;

typedef struct lbt_timeline_stats {
	uint64_t records;         /* given to add() */
	uint64_t requests;        /* request records counted (with a time) */
	uint64_t events;          /* HAProxy lines counted */
	uint64_t no_time;         /* requests without a time */
	uint64_t events_dropped;  /* HAProxy lines past LBT_TL_MAXEV */
	uint64_t lbs_other;       /* requests of LBs past LBT_TL_MAXLB */
	int approx[3];            /* keys, sources, hosts: more than `track` values */
	lbt_budget tarpit_budget; /* --max-memory: the tarpit's sources dropped */
	size_t distinct[3];       /* values held per dimension */
	int64_t first_us, last_us;  /* the first and last request time */
	int64_t step_us;          /* the bucket width used */
	size_t nbuckets;          /* buckets from the first to the last */
	int64_t first_bucket;     /* bucket number of index 0 */
	int64_t incident_from, incident_to;  /* first episode start, last end (NONE) */
} lbt_timeline_stats;

typedef struct lbt_timeline lbt_timeline;

/* Names of a kind ("rise", "new_source" ...), a what ("key" ...), a class
 * ("429", "tarpit" ...). */
const char *lbt_tl_kind_name(lbt_tl_kind k);
const char *lbt_tl_what_name(lbt_tl_what w);
const char *lbt_tl_class_name(lbt_tl_class c);

/* lbt_cli_fn-shaped handler of --ratio (a number > 1; ctx: the opts). */
int lbt_timeline_opt_ratio(void *opts, const char *arg, lbt_err *err);

/* The record fields it reads (LBT_BIT mask), for lbt_input_opts.wanted. */
uint64_t lbt_timeline_fields(const lbt_timeline *tl);

/* @return an accumulator, or NULL with err (bad option value, no memory). */
lbt_timeline *lbt_timeline_new(const lbt_timeline_opts *o, lbt_err *err);

/* Count one record (requests and HAProxy lines).  @return 0, or -1 when
 * out of memory (sticky: finish() reports it). */
int lbt_timeline_add(lbt_timeline *tl, const lbt_rec *rec);

/* @return an empty accumulator with tl's options, or NULL with err. */
lbt_timeline *lbt_timeline_spawn(const lbt_timeline *tl, lbt_err *err);

/*
 * Merge src (from lbt_timeline_spawn, unfinished) into tl, as if tl had
 * also been given src's records (analysis.h; a file cut in two: tl holds
 * its first lines).  src is consumed.  Exact except where a dimension has
 * more than `track` values (marked approx, as one accumulator's would be).
 * @return 0, or -1 with err.
 */
int lbt_timeline_merge(lbt_timeline *tl, lbt_timeline *src, lbt_err *err);

/* tl with the analysis.h vtable. */
lbt_analysis lbt_timeline_analysis(lbt_timeline *tl);

/* Detect and order the events, once.  @return 0, or -1 with err. */
int lbt_timeline_finish(lbt_timeline *tl, lbt_err *err);

/* Events after finish, by (time, kind, subject). */
size_t lbt_timeline_nevents(const lbt_timeline *tl);
const lbt_tl_event *lbt_timeline_event_at(const lbt_timeline *tl, size_t i);

/* The series of a chart after finish (*n their count; the array is owned). */
const lbt_tl_series *lbt_timeline_chart(const lbt_timeline *tl, lbt_tl_chart c, size_t *n);

/* The maxconn of the i-th series of LBT_TL_CH_SLOTS (0 unknown). */
int32_t lbt_timeline_slots_limit(const lbt_timeline *tl, size_t i);

const lbt_timeline_stats *lbt_timeline_stats_get(const lbt_timeline *tl);
const lbt_timeline_opts *lbt_timeline_opts_get(const lbt_timeline *tl);

/* NULL accepted. */
void lbt_timeline_free(lbt_timeline *tl);

#endif
