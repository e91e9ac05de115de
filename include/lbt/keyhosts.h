/*
 * keyhosts.h - the Host headers each key arrived with: a streaming
 * accumulator (analysis.h) behind lbt-audit's rate-limit coverage check.
 *
 * A rate limit written for one Host ("http-request deny if { hdr(host) -i
 * api.example.com } { sc_http_req_rate(0) gt 10 }") stops nothing the same
 * client sends with another Host header.  The logs tell: per key (the ping
 * UUID by default, key.h), how many requests came with each Host, and how
 * many of them the proxy limited.  Limited means the termination state
 * starts with 'P' (the proxy denied, tarpitted or rejected it: PR, PT, ...)
 * or the status is 429.
 *
 *     lbt_keyhosts *k = lbt_keyhosts_new(&err);
 *     ... lbt_keyhosts_add(k, rec) ...      (or through the driver)
 *     lbt_keyhosts_finish(k, &err);
 *     const lbt_keyhosts_row *r = lbt_keyhosts_row_at(k, 0);   // the key most limited
 *                                                             // (and its frontend)
 *
 * Only requests with a key and a Host field count (the others are in the
 * stats): a format without a Host capture gives no rows.  Rows are ranked
 * by limited requests, then requests, then frontend and key (bytes); a
 * row's hosts by requests, then host.  Each host keeps its evidence, the smallest request
 * by (time, file, line) (evidence.h), and that request's path (a rule on
 * `base` matches host and path).  Everything is a count, a sum or such a
 * minimum, so merge is exact and no result depends on the record order.
 * Memory grows with the distinct (frontend, key, host).
 * Includes: analysis.h, err.h, rec.h.
 */
#ifndef LBT_KEYHOSTS_H
#define LBT_KEYHOSTS_H

#include <stddef.h>
#include <stdint.h>

#include "lbt/analysis.h"
#include "lbt/err.h"
#include "lbt/rec.h"

/* One Host a key arrived with, after finish. */
typedef struct lbt_keyhosts_host {
	const char *host;         /* as logged (a port included); owned by the accumulator */
	uint64_t requests;
	uint64_t limited;         /* termination state P..., or status 429 */
	const char *path;         /* path of the evidence request ("" when not logged) */
	const char *ev_file;      /* evidence: the smallest request by (time, file, line) */
	uint64_t ev_line;
} lbt_keyhosts_host;

/* One (frontend, key), after finish. */
typedef struct lbt_keyhosts_row {
	const char *frontend;     /* as logged, a trailing '~' removed; "" when not logged */
	const char *key;
	uint64_t requests, limited;
	size_t nhosts;
	const lbt_keyhosts_host *hosts;   /* nhosts, by requests then host */
} lbt_keyhosts_row;

typedef struct lbt_keyhosts_stats {
	uint64_t records;         /* given to add() */
	uint64_t counted;         /* requests with a key and a Host */
	uint64_t no_key, no_host; /* requests without them */
	size_t pairs;             /* distinct (frontend, key, host) */
} lbt_keyhosts_stats;

typedef struct lbt_keyhosts lbt_keyhosts;

/* Fields the accumulator reads (LBT_BIT mask). */
uint64_t lbt_keyhosts_fields(const lbt_keyhosts *k);

/* @return an empty accumulator, or NULL with err (out of memory). */
lbt_keyhosts *lbt_keyhosts_new(lbt_err *err);

/* Count one record (event records are skipped).  @return 0, or -1 when out
 * of memory (kept: finish() reports it). */
int lbt_keyhosts_add(lbt_keyhosts *k, const lbt_rec *rec);

/* @return an empty twin, or NULL with err. */
lbt_keyhosts *lbt_keyhosts_spawn(const lbt_keyhosts *k, lbt_err *err);

/* Merge src (unfinished) into k, as if k had also been given src's records;
 * src is consumed (free it after).  @return 0, or -1 with err. */
int lbt_keyhosts_merge(lbt_keyhosts *k, lbt_keyhosts *src, lbt_err *err);

/* k with the analysis.h vtable. */
lbt_analysis lbt_keyhosts_analysis(lbt_keyhosts *k);

/* Rank keys and hosts, once, after the last add.  @return 0, or -1 with err. */
int lbt_keyhosts_finish(lbt_keyhosts *k, lbt_err *err);

size_t lbt_keyhosts_nrows(const lbt_keyhosts *k);
const lbt_keyhosts_row *lbt_keyhosts_row_at(const lbt_keyhosts *k, size_t i);
const lbt_keyhosts_stats *lbt_keyhosts_stats_get(const lbt_keyhosts *k);

/* NULL accepted. */
void lbt_keyhosts_free(lbt_keyhosts *k);

#endif
