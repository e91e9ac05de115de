/*
 * audit.h - what in a haproxy.cfg let the incident happen: the findings
 * of a post-mortem about the configuration, each with its severity, what,
 * why, the line to add or change, and file:line; behind lbt-audit(1).
 *
 *     lbt_audit *a = lbt_audit_new("haproxy.cfg", &opts, &err);
 *     if (logs) {                                  // optional
 *         lbt_analysis v[LBT_AUDIT_NANALYSES];
 *         size_t n = lbt_audit_analyses(a, v);     // owned by a
 *         ... feed the records to v[0..n) and finish them (driver.h) ...
 *     }
 *     lbt_audit_run(a, logs, &err);
 *     for (i = 0; i < lbt_audit_nfindings(a); i++) lbt_audit_finding_at(a, i) ...
 *     lbt_audit_free(a);
 *
 * The configuration is read as HAProxy 2.6 reads it (hacfg.h: words,
 * sections, defaults inheritance with named `from`, .if blocks; maxconn.h).
 * Findings from the configuration alone:
 *   tarpit-rate-limit   `http-request tarpit` conditioned on a stick counter:
 *                       a client over the limit has every request held for
 *                       the tarpit time, rate x hold slots against maxconn
 *   tarpit-no-hold      the same where HAProxy holds nothing: a frontend
 *                       without `timeout tarpit` (frontends take no `timeout
 *                       connect`, so 2.6 answers 500 at once; a listen or
 *                       backend falls back to its `timeout connect`)
 *   http-request-timeout an HTTP frontend without `timeout http-request`
 *                       (Slowloris: only `timeout client` applies, between
 *                       chunks)
 *   log-format          a logging frontend whose format lacks fields the
 *                       analyses read (accept time with ms, Tw, Tt or Ta,
 *                       termination state, fc, ac, Host and User-Agent)
 * and, when logs were given (through the analyses: tarpit.h, offenders.h,
 * keyhosts.h):
 *   tarpit-rate-limit   with the peak rate of the tarpitted sources and the
 *                       slots that rate holds
 *   maxconn-reached     the logged fc reached maxconn, or the rebuilt
 *                       occupancy went above it
 *   alert-threshold     when an alert at alert_pct % of maxconn would have
 *                       fired: the first bucket with fc >= the threshold
 *   rate-limit-host     a rate limit (or the track-sc rule feeding it) that
 *                       requires a Host the flood key also arrived without
 *   rate-limit-key      a rate limit counted per address (`track-sc0 src`)
 *                       while a limited IPv6 /64 came from several addresses
 * The layers it stands on: lib/README.md (audit/ is above config, read and
 * analysis); how and why: docs/audit-design.md.
 * Includes: analysis.h, err.h.
 */
#ifndef LBT_AUDIT_H
#define LBT_AUDIT_H

#include <stddef.h>
#include <stdint.h>

#include "lbt/analysis.h"
#include "lbt/err.h"

typedef enum lbt_audit_sev {
	LBT_AUDIT_INFO,           /* advice: an alert to add, a field worth logging */
	LBT_AUDIT_WARN,           /* a setting that lets an incident happen */
	LBT_AUDIT_CRIT            /* it happened in the logs, or one client can do it */
} lbt_audit_sev;

/* One finding; strings owned by the audit. */
typedef struct lbt_audit_finding {
	lbt_audit_sev sev;
	const char *check;        /* "tarpit-rate-limit", ... (above) */
	const char *file;         /* the configuration */
	uint64_t line;            /* the line to change, or of the section to add to */
	const char *proxy;        /* its proxy section, "" for global */
	const char *what;         /* one sentence: what is set, with the numbers */
	const char *why;          /* why it matters: HAProxy's behaviour, the logs */
	const char *change;       /* the line to add or change */
	const char *ev_file;      /* log evidence (NULL: none) */
	uint64_t ev_line;
} lbt_audit_finding;

typedef struct lbt_audit_opts {
	const char *proxy;        /* only this frontend / listen (NULL: every one) */
	int alert_pct;            /* alert threshold, % of maxconn; default 80 */
	int64_t step_us;          /* buckets of the log analyses; default 1 s */
	int32_t near;             /* fc >= maxconn - near is full; default 1 */
} lbt_audit_opts;

#define LBT_AUDIT_OPTS_INIT { NULL, 80, 1000000, 1 }

/* Most analyses lbt_audit_analyses() hands out. */
#define LBT_AUDIT_NANALYSES 3

typedef struct lbt_audit lbt_audit;

/*
 * Read the haproxy.cfg at path.  @return the audit, or NULL with err
 * (file:line): unreadable file, a line HAProxy would not read (hacfg.h,
 * maxconn.h), opts.proxy naming no frontend or listen section, a bad
 * option value.
 */
lbt_audit *lbt_audit_new(const char *path, const lbt_audit_opts *opts, lbt_err *err);

/*
 * The analyses whose results the log findings read (tarpit with the
 * configuration's maxconn values, offenders, keyhosts), into
 * v[0..LBT_AUDIT_NANALYSES).  They stay owned by the audit: feed and
 * finish them, never free them.  @return their number.
 */
size_t lbt_audit_analyses(lbt_audit *a, lbt_analysis *v);

/*
 * Build the findings, sorted by severity (critical first), then line:
 * those of the configuration, and with `logs` those that need the
 * analyses' results (they must have been finished).  Once.
 * @return 0, or -1 with err (out of memory).
 */
int lbt_audit_run(lbt_audit *a, int logs, lbt_err *err);

size_t lbt_audit_nfindings(const lbt_audit *a);
const lbt_audit_finding *lbt_audit_finding_at(const lbt_audit *a, size_t i);

/* The most severe finding's severity, or -1 when there is none. */
int lbt_audit_worst(const lbt_audit *a);

/* "info", "warn", "crit". */
const char *lbt_audit_sev_name(lbt_audit_sev s);

/* Parse a severity name (as above).  @return 0, or -1 with err. */
int lbt_audit_sev_parse(const char *s, lbt_audit_sev *out, lbt_err *err);

/* NULL accepted. */
void lbt_audit_free(lbt_audit *a);

/* What changed between two configurations: one line a change,
 * "frontend fe_http: + http-request deny ... (line 48)", the old file's
 * removals first ('-', its line numbers), then the new file's additions
 * ('+'), each in file order.  Strings owned by the list. */
typedef struct lbt_audit_changes {
	char **v;
	size_t n;
} lbt_audit_changes;

/*
 * The directives of each section of haproxy.cfg `old` that `new` has not
 * (same section keyword and name, equal words), and the other way (what
 * a reload from one to the other installed).  @return 0, or -1 with err
 * (a file that cannot be read as HAProxy would, naming file and line; no
 * memory).
 */
int lbt_audit_cfg_diff(const char *old, const char *new, lbt_audit_changes *out, lbt_err *err);

/* Free the list (zeroed accepted). */
void lbt_audit_changes_free(lbt_audit_changes *c);

#endif
