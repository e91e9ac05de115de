/*
 * tarpit.h - what `http-request tarpit` costs, and whether the frontends
 * ran out of connection slots: the streaming accumulator behind
 * lbt-tarpit(1).
 *
 *     lbt_tarpit *t = lbt_tarpit_new(&opts, &err);
 *     while (...) lbt_tarpit_add(t, rec);
 *     lbt_tarpit_finish(t, &err);
 *     ...lbt_tarpit_group_at(), lbt_tarpit_source_at(), lbt_tarpit_note_at()
 *     lbt_tarpit_free(t);
 *
 * Tarpitted requests are those whose termination state starts with "PT"
 * (held, then answered); "CT" (the client left during the tarpit) is
 * counted apart.  Socket time held is summed two ways over PT lines: Tw
 * (HAProxy reports the hold in Tw; TR is -1 on these lines, which makes Tw
 * 1 ms larger than the hold, and Tw can include idle time before the
 * request bytes arrived) and Ta.
 *
 * Slot occupancy is rebuilt per group = (load balancer, frontend) with
 * occupancy.h from each request's interval:
 *   duration  Tt when logged (accept to close); else Th+Ti+Ta with the
 *             parts that are logged (Ta alone misses the handshake and the
 *             idle time before the request); else the sum of the logged
 *             Tq (or TR), Tw, Tc and Tr (up to the response headers: a lower
 *             bound); otherwise the request has no interval.
 *   start     clock ACCEPT (%t, %T, %Ts): the record's time; clock REQUEST
 *             (%tr...): the time minus the logged Th and Ti; clock END
 *             (NGINX) or SYSLOG (the wrapper's stamp): time - duration.
 * Which rules were used is counted (lbt_tarpit_group.dur_rules) and said in
 * the notes.  Tarpitted means PT or CT for occupancy and the what-if (had
 * they been refused at once, they would have held no slot).
 *
 * Alongside, the largest logged fc (feconn) and ac (actconn) per bucket, in
 * the bucket of the request's end (when HAProxy wrote the line and read the
 * counters).  With a maxconn (opts, or lbt_maxconn_cfg from haproxy.cfg),
 * periods at >= threshold_pct % of it, and the buckets where fc reached
 * maxconn - near (the frontend was full: the logs understate waiting and
 * lost connections, and a note says so with the evidence).
 *
 * Every evidence line ("file:line") is chosen among the requests that
 * qualify as the smallest by (logged time, file name, line), evidence.h:
 * the raw logs in any order and the index (--db) name the same line.
 *
 * Memory grows with groups, sources (netgroup.h) and time buckets, plus the
 * requests of one reorder window (occupancy.h), never with the input.
 * The sections printed by lbt-tarpit(1) are written by lib/report/tarpit_report.c
 * (tarpit_report.h) through lbt_out, from the accessors below.  The
 * maxconn values come from the caller (opts.maxconn_of: lib/run/tarpit_cfg.c
 * reads them from haproxy.cfg), so no analysis reads a configuration.
 * Includes: analysis.h, err.h, rec.h, netgroup.h, occupancy.h.
 */
#ifndef LBT_TARPIT_H
#define LBT_TARPIT_H

#include <stddef.h>
#include <stdint.h>

#include "lbt/analysis.h"
#include "lbt/budget.h"
#include "lbt/err.h"
#include "lbt/netgroup.h"
#include "lbt/occupancy.h"
#include "lbt/rec.h"

/* ---- the accumulator --------------------------------------------------- */

/*
 * Where maxconn values come from when --maxconn is not given: the maxconn
 * of frontend name[0..len) (a trailing '~', as %ft logs SSL listeners,
 * ignored) of load balancer lb[0..lb_len) (lb_len 0: the records name
 * none), or the global one (the limit of ac) when name is NULL; `from`
 * (may be NULL) gets where it was read ("haproxy.cfg:17 (frontend fe)").
 * @return the value, or 0 when unknown.  lbt_tarpit_cfg_use() and
 * lbt_tarpit_cfgs_use() (tarpit_cfg.h) fill it from haproxy.cfg files.
 */
typedef int32_t (*lbt_tarpit_maxconn_fn)(const void *ctx, const char *lb, size_t lb_len,
    const char *name, size_t len, char *from, size_t size);

typedef struct lbt_tarpit_opts {
	int64_t step_us;          /* --step, > 0; default 10 s */
	int64_t window_us;        /* --window, reorder tolerance; default 60 s */
	int32_t maxconn;          /* --maxconn for every frontend; 0: maxconn_of, else unknown */
	int32_t global_maxconn;   /* limit of ac; 0: maxconn_of, else unknown */
	int threshold_pct;        /* periods at >= this % of maxconn; default 90 */
	int32_t near;             /* fc >= maxconn - near is "full"; default 1 */
	lbt_tarpit_maxconn_fn maxconn_of;   /* NULL: none (a haproxy.cfg's, say) */
	const void *maxconn_ctx;  /* its context; not owned */
	lbt_netgroup net;         /* sources; default /32 and /64 */
	size_t max_memory;        /* --max-memory: bytes of the sources (budget.h);
	                             0 = none, default 1G */
	int name_inputs;          /* several inputs: a request of no LB counts under its
	                             input's name (lbt_rec_lb_or_input), so each is a row
	                             and their total is shown */
} lbt_tarpit_opts;

#define LBT_TARPIT_OPTS_INIT { 10000000, 60000000, 0, 0, 90, 1, NULL, NULL, LBT_NETGROUP_INIT, \
	LBT_BUDGET_DEFAULT, 0 }

/* Timers a duration was made of (lbt_tarpit_group.dur_rules index bits). */
#define LBT_DUR_TT   0x01u
#define LBT_DUR_TA   0x02u
#define LBT_DUR_TH   0x04u
#define LBT_DUR_TI   0x08u
#define LBT_DUR_TQ   0x10u   /* Tq, or TR */
#define LBT_DUR_TW   0x20u
#define LBT_DUR_TC   0x40u
#define LBT_DUR_TRS  0x80u   /* Tr */
#define LBT_DUR_NRULES 256

/*
 * Text of a rule mask: "Tt", "Th+Ti+Ta", "Ta", "TR+Tw+Tc+Tr" (only the
 * timers in the mask).  @return buf.
 */
const char *lbt_tarpit_rule_name(unsigned mask, char *buf, size_t size);

/* One (load balancer, frontend) after lbt_tarpit_finish(). */
typedef struct lbt_tarpit_group {
	const char *lb;           /* "" when the records name none */
	const char *frontend;     /* "" when none */
	uint64_t requests;
	uint64_t pt, ct;          /* tarpitted, client left during the tarpit */
	uint64_t pt_tw, pt_ta;    /* PT lines carrying Tw >= 0, Ta >= 0 */
	int64_t held_tw_ms;       /* sum of Tw over PT lines */
	int64_t held_ta_ms;       /* sum of Ta over PT lines */
	int64_t first_us, last_us;  /* earliest start and latest end seen */
	int has_time;             /* first/last valid */
	uint64_t dur_rules[LBT_DUR_NRULES];  /* requests per duration rule */
	uint64_t no_interval;     /* requests without time or duration */
	uint64_t clocks[5];       /* requests per lbt_clock */
	uint64_t fc_n, ac_n;      /* requests with fc, ac */
	int32_t fc_max, ac_max;   /* largest logged (when fc_n, ac_n) */
	int32_t maxconn;          /* 0 unknown */
	char maxconn_from[320];   /* "--maxconn", "haproxy.cfg:17 (frontend fe)", "" */
	int32_t threshold;        /* slots at >= threshold_pct % of maxconn; 0 none */
	uint64_t full_buckets;    /* buckets with fc >= maxconn - near */
	int64_t full_first, full_last;   /* first and last of them (bucket numbers) */
	int32_t full_fc_lo;       /* smallest fc max among them */
	const char *full_file;    /* the evidence of the first of them (its fc_file) */
	uint64_t full_line;
	const lbt_occ *occ;       /* occupancy: buckets, periods, stats */
} lbt_tarpit_group;

/* Per-bucket figures of a group that are not occupancy. */
typedef struct lbt_tarpit_bucket {
	int64_t bucket;           /* floor(time / step) */
	uint64_t requests;        /* requests starting in it */
	uint64_t pt, ct;
	int64_t held_tw_ms;       /* Tw of the PT requests starting in it */
	uint64_t fc_n;            /* requests ending in it with fc */
	int32_t fc_max, ac_max;   /* when fc_n (ac_max -1 when no ac) */
	const char *fc_file;      /* evidence: of the requests logging fc_max, the */
	uint64_t fc_line;         /* smallest by (time, file, line) (evidence.h) */
} lbt_tarpit_bucket;

/* One source (netgroup) after finish, ranked by held Tw, then PT, requests. */
typedef struct lbt_tarpit_source {
	lbt_addr net;             /* lbt_netgroup_of() form */
	int bits;                 /* its prefix length */
	uint64_t requests, pt, ct;
	int64_t held_tw_ms, held_ta_ms;
	int64_t first_us, last_us;
	int has_time;
	const char *file;         /* evidence: the smallest tarpitted (PT or CT) request */
	uint64_t line;            /* by (time, file, line), else the smallest request */
} lbt_tarpit_source;

/* A finding or caveat for the reader, built by finish(). */
typedef enum lbt_tarpit_note_kind {
	LBT_NOTE_MISSING,         /* a field the analysis needs is not logged */
	LBT_NOTE_METHOD,          /* how a number was obtained */
	LBT_NOTE_FULL,            /* fc at maxconn: the logs understate waiting */
	LBT_NOTE_BOUND,           /* some maxima are upper bounds */
	LBT_NOTE_CAVEAT           /* how to read a number */
} lbt_tarpit_note_kind;

typedef struct lbt_tarpit_note {
	lbt_tarpit_note_kind kind;
	const char *lb, *frontend;   /* NULL when about the whole input */
	const char *text;            /* one paragraph, no trailing newline */
} lbt_tarpit_note;

/* Overall counts. */
typedef struct lbt_tarpit_stats {
	uint64_t records;         /* given to add() */
	uint64_t requests;        /* request records (events skipped) */
	uint64_t no_time, no_client, no_term, no_frontend;
	uint64_t pt, ct;
	uint64_t pt_no_tw, pt_no_ta;   /* PT lines without a usable Tw, Ta */
	uint64_t fc_n;
	size_t groups, sources;
	uint64_t over_requests;   /* requests of frontends past max_groups: not
	                             analysed (a note says so) */
	size_t max_groups;        /* the frontends --max-memory leaves room for */
	lbt_budget budget;        /* --max-memory: the sources dropped, the floor */
} lbt_tarpit_stats;

typedef struct lbt_tarpit lbt_tarpit;

/* The record fields the accumulator reads (for lbt_input_opts.wanted). */
uint64_t lbt_tarpit_fields(const lbt_tarpit *t);

/* @return an accumulator, or NULL with err (bad option value, no memory). */
lbt_tarpit *lbt_tarpit_new(const lbt_tarpit_opts *o, lbt_err *err);

/*
 * Count one record (event records are skipped).  @return 0, or -1 when out
 * of memory (kept, and reported again by finish()).
 */
int lbt_tarpit_add(lbt_tarpit *t, const lbt_rec *rec);

/* @return an empty accumulator with t's options, or NULL with err. */
lbt_tarpit *lbt_tarpit_spawn(const lbt_tarpit *t, lbt_err *err);

/*
 * Merge src (from lbt_tarpit_spawn, unfinished) into t, as if t had also
 * been given src's records (analysis.h): groups, buckets, sources, their
 * evidence, and each group's occupancy (lbt_occ_merge: exact for input
 * files that are whole in one part or cut at a line boundary, src holding
 * the later lines).  src is consumed (free it after).
 * @return 0, or -1 with err (no memory, different options).
 */
int lbt_tarpit_merge(lbt_tarpit *t, lbt_tarpit *src, lbt_err *err);

/* t with the analysis.h vtable (driver.h runs it). */
lbt_analysis lbt_tarpit_analysis(lbt_tarpit *t);

/* Build the results and notes, once, after the last add().  @return 0, or
 * -1 with err. */
int lbt_tarpit_finish(lbt_tarpit *t, lbt_err *err);

/* Groups in (lb, frontend) order. */
size_t lbt_tarpit_ngroups(const lbt_tarpit *t);
const lbt_tarpit_group *lbt_tarpit_group_at(const lbt_tarpit *t, size_t i);

/* Buckets of group i in time order (*n gets their count). */
const lbt_tarpit_bucket *lbt_tarpit_buckets(const lbt_tarpit *t, size_t i, size_t *n);

/* Sources, ranked. */
size_t lbt_tarpit_nsources(const lbt_tarpit *t);
const lbt_tarpit_source *lbt_tarpit_source_at(const lbt_tarpit *t, size_t i);

/* Notes, in the order they should be read. */
size_t lbt_tarpit_nnotes(const lbt_tarpit *t);
const lbt_tarpit_note *lbt_tarpit_note_at(const lbt_tarpit *t, size_t i);

const lbt_tarpit_stats *lbt_tarpit_stats_get(const lbt_tarpit *t);
const lbt_tarpit_opts *lbt_tarpit_opts_get(const lbt_tarpit *t);

/* NULL accepted. */
void lbt_tarpit_free(lbt_tarpit *t);

#endif
