/*
 * offenders.h - who sends the traffic: requests grouped by source network
 * (netgroup.h: IPv4 /32 and IPv6 /64 by default, both families in one
 * ranking), the streaming accumulator behind lbt-offenders(1).
 *
 *     lbt_offenders *o = lbt_offenders_new(&opts, &err);
 *     while (...) lbt_offenders_add(o, rec);
 *     lbt_offenders_finish(o, &err);
 *     for (size_t i = 0; i < lbt_offenders_nrows(o); i++) ... lbt_offenders_row_at(o, i)
 *     lbt_offenders_free(o);
 *
 * Per source, in memory bounded by sources x active seconds (never by
 * records): requests, a 1 s series (peak req/s; windows for the baseline),
 * distinct client addresses (an exact set up to 256, then a HyperLogLog
 * estimate, marked; or exact up to addr_cap when that is smaller), the top
 * keys hit (space-saving over LBT_OFF_TOPK counters: exact while a source
 * hits at most that many keys, an upper bound marked approximate after;
 * equal counts listed in key order), status mix, tarpitted requests
 * (termination state "PT..") and the socket time they held (sum of Tw,
 * ms), first and last time, and evidence: the file:line of its first
 * request, the smallest by (time, file name, line) (evidence.h), so that
 * the raw logs in any order and the index (--db) name the same line.
 * Everything reported is independent of the order of the records, except
 * the counts of a source hitting more than LBT_OFF_TOPK keys, marked
 * approximate (space-saving keeps different keys in different orders).
 *
 * Baseline, ratio and episodes: for each ranked source, the change-point
 * engine (changepoint.h) on its 1 s series over the whole input's span,
 * with the options in `cp` (--jump-factor, --jump-min, --jump-floor,
 * --drop-fraction): its baseline, or `new` when it was absent for longer
 * than its rate allows, its episodes (rises and drops) and the main one
 * (the first rise, else the first drop).  Its ratio is the main episode's
 * mean over the baseline.  lbt-rate --by net runs the same engine with the
 * same options on the same series (1 s buckets, the same span), so the two
 * agree.  --baseline FROM..TO gives every source the same window instead:
 * its baseline is its mean rate there, `new` when it sent nothing there.
 * The engine runs on the rows shown only, except for --by ratio, which
 * ranks by it: then on every source that can have a rise at all
 * (lbt_cp_may_rise), the others following by requests.
 *
 * Memory budget (max_memory, --max-memory): a source of one request costs
 * about 90 bytes, one with its full state a few hundred plus its series.
 * When the estimate passes the budget, the sources whose
 * requests (upper bound) are at most a threshold T are dropped, T the
 * smallest that drops half of them, and the floor of the accumulator
 * grows to T: a dropped source sent at most the floor; one counted again
 * afterwards starts with that as its error (space-saving, Metwally et al.
 * 2005, pruned in batches).  Every row then carries requests_err: its true
 * count is in [requests, requests + requests_err]; its other figures cover
 * the requests counted since it was last admitted.  A source with more
 * requests than the floor is never dropped, so the heavy hitters' counts
 * stay exact when they arrive before the first prune and within the
 * floor after.  stats.pruned says it happened; the floor is the bound.
 * Includes: analysis.h, changepoint.h, err.h, rec.h, netgroup.h, geoip.h,
 * series.h (lib/analysis/offenders*.c also evidence.h, hmap.h).
 */
#ifndef LBT_OFFENDERS_H
#define LBT_OFFENDERS_H

#include <stddef.h>
#include <stdint.h>

#include "lbt/analysis.h"
#include "lbt/changepoint.h"
#include "lbt/err.h"
#include "lbt/geoip.h"
#include "lbt/netgroup.h"
#include "lbt/rec.h"
#include "lbt/series.h"

#define LBT_OFF_TOPK 4             /* key counters per source */
#define LBT_OFF_SHOWKEYS 3         /* keys reported per source */

/* Ranking (--by). */
typedef enum lbt_off_by {
	LBT_OFF_BY_REQUESTS,
	LBT_OFF_BY_RATE,              /* peak req/s */
	LBT_OFF_BY_HELD,              /* socket-seconds held by tarpit */
	LBT_OFF_BY_RATIO              /* sources with a rise first: new ones, then by ratio */
} lbt_off_by;

/* Status classes of the status mix. */
enum {
	LBT_OFF_S2XX, LBT_OFF_S3XX, LBT_OFF_S4XX, LBT_OFF_S429, LBT_OFF_S5XX,
	LBT_OFF_SNONE,                /* -1: nothing sent (reject, silent-drop) */
	LBT_OFF_SOTHER,               /* 0 (TCP, nginx 000), 1xx, unknown */
	LBT_OFF_NSTATUS
};

typedef struct lbt_offenders_opts {
	lbt_netgroup net;
	lbt_off_by by;
	size_t top;                   /* rows kept; 0 = all; default 20 */
	double min_rate;              /* keep sources with peak req/s >= this */
	double min_share;             /* keep sources with >= this % of requests */
	const char *baseline;         /* "FROM..TO" or NULL (each source's own) */
	lbt_cp_opts cp;               /* change points (1 s buckets; min_buckets and the
	                                 window are set from jump_min_us, baseline) */
	int64_t jump_min_us;          /* --jump-min; default 10 s */
	size_t addr_cap;              /* distinct addresses counted per source; 65536 */
	lbt_geoip *geoip;             /* may be NULL; borrowed */
	size_t max_memory;            /* bytes of source state (see above) */
	int rising_only;              /* the engine only on the rows that may rise
	                                 (lbt_cp_may_rise): the others get an empty
	                                 lbt_cp_result (a judge that reads only
	                                 rises; lbt-triage) */
} lbt_offenders_opts;

/* The default budget: ten million sources of one request (the IPv6 /64s
 * of a rotating client) fit in it, exactly. */
#define LBT_OFF_MAX_MEMORY ((size_t)1 << 30)

#define LBT_OFFENDERS_OPTS_INIT { LBT_NETGROUP_INIT, LBT_OFF_BY_REQUESTS, 20, 0, 0, NULL, \
	LBT_CP_OPTS_INIT, 10000000, 65536, NULL, LBT_OFF_MAX_MEMORY, 0 }

typedef struct lbt_off_key {
	const char *key;              /* owned by the accumulator */
	uint64_t count;
	int approx;                   /* count is an upper bound (space-saving) */
} lbt_off_key;

/* One ranked source after lbt_offenders_finish(). */
typedef struct lbt_offender {
	lbt_addr net;                 /* network address (host bits cleared) */
	const char *source;           /* its text: "203.0.113.7", "2001:db8:bad:1::/64" */
	uint64_t requests;
	double share;                 /* % of every request counted */
	int64_t peak_count;           /* requests in its busiest second */
	int64_t peak_second;          /* that second (Unix time) */
	uint64_t addrs;               /* distinct client addresses */
	int addrs_capped;             /* more than addrs (the cap) */
	int addrs_approx;             /* addrs is a HyperLogLog estimate (more than
	                                 256 distinct, +-3.25 %) */
	uint64_t requests_err;        /* over budget: it sent requests..requests +
	                                 requests_err; 0 = exact */
	lbt_off_key keys[LBT_OFF_SHOWKEYS];
	int nkeys;
	uint64_t status[LBT_OFF_NSTATUS];
	uint64_t tarpitted;           /* termination state starting with "PT" */
	uint64_t slow;                /* requests whose headers never came whole in
	                                 time: answered 408, or termination state "cR" */
	uint64_t from_header;         /* requests whose client address came from a header
	                                 nobody vouches for (client_from "header", rec.h):
	                                 the address may be forged */
	lbt_addr via;                 /* the connecting address that sent its first
	                                 request whose client came from a header (the
	                                 sender, or the proxy), family 0 when none */
	int via_many;                 /* ... and other connecting addresses did too */
	double held_s;                /* sum of Tw over those, seconds */
	int64_t first_us, last_us;
	lbt_cp_summary cp;            /* baseline or new, episodes, the main one and
	                                 its ratio; buckets are seconds (Unix time) */
	lbt_geoip_info geo;           /* from opts.geoip when given */
	const char *ev_file;          /* evidence: the first request, by (time, */
	uint64_t ev_line;             /* file, line); name owned by the accumulator */
} lbt_offender;

typedef struct lbt_offenders_stats {
	uint64_t records;             /* given to add() */
	uint64_t counted;             /* with a time and a client address */
	uint64_t no_client, no_time;
	uint64_t from_header;         /* counted records whose client came from a header
	                                 nobody vouches for (no --trusted-proxies) */
	uint64_t header_aside;        /* ... that carried a header, the connecting
	                                 address counted instead */
	uint64_t from_trusted;        /* ... whose client a trusted proxy vouched for */
	size_t sources;
	size_t kept;                  /* sources passing --min-rate/--min-share */
	int baseline;                 /* 0 nothing counted, 1 each source's own, 2 --baseline */
	int64_t base_from_us, base_to_us;   /* the --baseline window [from, to) */
	size_t changes;               /* sources the change-point engine ran on */
	uint64_t pruned;              /* times sources were dropped (over budget) */
	uint64_t dropped;             /* sources dropped, in all */
	uint64_t floor;               /* a source not shown sent at most this many
	                                 more than its row says; 0 = exact */
} lbt_offenders_stats;

typedef struct lbt_offenders lbt_offenders;

/* Parse --by ("requests", "rate", "held", "ratio").  @return 0 or -1 with err. */
int lbt_off_by_parse(const char *s, lbt_off_by *by, lbt_err *err);

/* lbt_cli_fn-shaped handlers (ctx = the lbt_offenders_opts) of --by,
 * --min-rate (req/s >= 0) and --min-share (0..100).  @return 0 or -1. */
int lbt_offenders_opt_by(void *opts, const char *arg, lbt_err *err);
int lbt_offenders_opt_min_rate(void *opts, const char *arg, lbt_err *err);
int lbt_offenders_opt_min_share(void *opts, const char *arg, lbt_err *err);

/* lbt_cli_fn for --max-memory SIZE: a number of bytes with an optional
 * K, M, G or T (powers of 1024; "KiB", "MB" read alike), at least 1M.
 * @return 0 or -1 with err. */
int lbt_offenders_opt_max_memory(void *opts, const char *arg, lbt_err *err);

/* Fields the accumulator reads (LBT_BIT mask) for lbt_input_opts.wanted. */
uint64_t lbt_offenders_fields(const lbt_offenders *o);

/*
 * @return an accumulator, or NULL with err (a --baseline that does not
 * parse: "--baseline: 'x' is not FROM..TO", thresholds out of range).
 * --baseline takes ISO 8601 times ("2025-11-01T23:00:00Z", zone-less = UTC)
 * or HH:MM[:SS] on the day (UTC) of the first record counted.
 */
lbt_offenders *lbt_offenders_new(const lbt_offenders_opts *o, lbt_err *err);

/*
 * Count one record.  Records without a time or a client address are
 * counted in the stats only.  @return 0, or -1 when out of memory (kept and
 * reported again by finish()).
 */
int lbt_offenders_add(lbt_offenders *o, const lbt_rec *rec);

/* @return an empty accumulator with o's options, or NULL with err. */
lbt_offenders *lbt_offenders_spawn(const lbt_offenders *o, lbt_err *err);

/*
 * Merge src (from lbt_offenders_spawn, unfinished) into o, as if o had
 * also been given src's records (analysis.h; lib/analysis/offenders_merge.c
 * says how each figure merges).  src is consumed (free it after).
 * @return 0, or -1 with err (no memory; different options or a finished
 * accumulator are asserted against, analysis.h).
 */
int lbt_offenders_merge(lbt_offenders *o, lbt_offenders *src, lbt_err *err);

/* o with the analysis.h vtable (driver.h runs it). */
lbt_analysis lbt_offenders_analysis(lbt_offenders *o);

/*
 * Ranking, thresholds, change points of the rows, GeoIP.  @return 0 or -1
 * with err (out of memory; a --baseline window outside the input).
 */
int lbt_offenders_finish(lbt_offenders *o, lbt_err *err);

size_t lbt_offenders_nrows(const lbt_offenders *o);
const lbt_offender *lbt_offenders_row_at(const lbt_offenders *o, size_t i);

/*
 * The change points of row i (changepoint.h): baseline, new, segments and
 * every episode, in 1 s bucket indices of the input's span; index k is
 * second *origin + k (Unix time).  Owned by o.  @return them, or NULL for
 * a bad row.
 */
const lbt_cp_result *lbt_offenders_changes(const lbt_offenders *o, size_t i, int64_t *origin);
const lbt_offenders_stats *lbt_offenders_stats_get(const lbt_offenders *o);

/*
 * Row i's requests a second over the input's span, *n of them, index k
 * being second *origin + k (as lbt_offenders_changes).  @return them
 * (malloc'ed, the caller's), or NULL for a bad row or out of memory.
 */
int64_t *lbt_offenders_seconds(const lbt_offenders *o, size_t i, int64_t *origin, size_t *n);

/* The options o was made with (baseline NULL: it was parsed). */
const lbt_offenders_opts *lbt_offenders_opts_get(const lbt_offenders *o);

/* "429:120 2xx:5": the non-zero classes in the order 2xx 3xx 4xx 429 5xx
 * -1 other.  @return buf */
const char *lbt_offender_status_str(const lbt_offender *r, char *buf, size_t size);

/* "KEY:N KEY:~N": the top keys, "~" before an upper bound.  @return buf */
const char *lbt_offender_keys_str(const lbt_offender *r, char *buf, size_t size);

/* NULL accepted. */
void lbt_offenders_free(lbt_offenders *o);

#endif
