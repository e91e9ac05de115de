/*
 * rate.h - request rates per key over time: the streaming accumulator
 * behind lbt-rate(1).
 *
 * Every record adds 1 to the bucket floor(time / step) of its key (the ping
 * UUID, or the path, host, client address, network, status... chosen by
 * `by`).  Each key has its own sparse series (series.h), so memory grows
 * with distinct keys times active buckets, never with records, and records
 * may arrive in any time order (several files or load balancers).
 *
 *     lbt_rate *r = lbt_rate_new(&opts, &err);
 *     while (...) lbt_rate_add(r, rec);
 *     lbt_rate_finish(r, &err);
 *     for (size_t i = 0; i < lbt_rate_nrows(r); i++) {
 *             const lbt_rate_row *row = lbt_rate_row_at(r, i);
 *             ...
 *     }
 *     lbt_rate_free(r);
 *
 * finish() ranks the keys (by peak bucket, or by total) and, for the top
 * ones only, runs the change-point engine (changepoint.h) on the key's
 * buckets over the whole input's span (first to last bucket of any key):
 * the key's baseline (or `new`, with its first bucket), its episodes (rises
 * and drops), and the main one (the first rise, else the first drop) in
 * the row.  The same engine, options and span give lbt-offenders its ratio,
 * so `--by net` here and lbt-offenders agree.  Ranking reads only each
 * key's peak and total: the engine never runs on the keys not shown.
 * Rates are per second: a bucket's count divided by the step in seconds.
 * Includes: analysis.h, changepoint.h, err.h, rec.h, netgroup.h, series.h.
 */
#ifndef LBT_RATE_H
#define LBT_RATE_H

#include <stddef.h>
#include <stdint.h>

#include "lbt/analysis.h"
#include "lbt/budget.h"
#include "lbt/changepoint.h"
#include "lbt/err.h"
#include "lbt/netgroup.h"
#include "lbt/rec.h"
#include "lbt/series.h"

/* What a key is (--by). */
typedef enum lbt_rate_by {
	LBT_RATE_BY_KEY,        /* the extracted key (ping UUID) */
	LBT_RATE_BY_PATH,
	LBT_RATE_BY_HOST,
	LBT_RATE_BY_SRC,        /* client address */
	LBT_RATE_BY_NET,        /* client network (netgroup: /32, /64) */
	LBT_RATE_BY_STATUS,
	LBT_RATE_BY_TERM,       /* termination state as logged */
	LBT_RATE_BY_FRONTEND,
	LBT_RATE_BY_BACKEND,
	LBT_RATE_BY_SERVER,
	LBT_RATE_BY_LB
} lbt_rate_by;

typedef enum lbt_rate_rank {
	LBT_RATE_RANK_PEAK,     /* peak bucket, then total, then key */
	LBT_RATE_RANK_TOTAL     /* total, then peak, then key */
} lbt_rate_rank;

typedef struct lbt_rate_opts {
	lbt_rate_by by;
	lbt_rate_rank rank;
	int64_t step_us;        /* bucket width (--step), > 0; default 1 s */
	size_t top;             /* rows kept (--top); 0 = every key */
	lbt_cp_opts cp;         /* --jump-factor, --jump-floor, --drop-fraction (its
	                           min_buckets is set from jump_min_us and the step) */
	int64_t jump_min_us;    /* --jump-min; default 10 s; at least one bucket */
	lbt_netgroup net;       /* grouping for LBT_RATE_BY_NET */
	size_t max_memory;      /* --max-memory: bytes of keys and their series
	                           (budget.h); 0 = none, default 1G */
	int name_inputs;        /* --by lb, several inputs: a request of no LB counts
	                           under its input's name (lbt_rec_lb_or_input) */
} lbt_rate_opts;

#define LBT_RATE_OPTS_INIT { LBT_RATE_BY_KEY, LBT_RATE_RANK_PEAK, 1000000, 10, \
	LBT_CP_OPTS_INIT, 10000000, LBT_NETGROUP_INIT, LBT_BUDGET_DEFAULT, 0 }

/* One ranked key after lbt_rate_finish().  Buckets are bucket numbers
 * (floor(time / step)); lbt_bucket_format() prints them. */
typedef struct lbt_rate_row {
	const char *key;          /* text form, NUL-terminated, owned by the accumulator */
	int64_t total;            /* records */
	int64_t total_err;        /* over budget: it had total..total + total_err
	                             records; 0 = exact */
	int64_t first, last;      /* first and last bucket with a record */
	int64_t peak_bucket;      /* busiest bucket (earliest on ties) */
	int64_t peak_count;
	double peak_rate;         /* peak_count / step, req/s */
	lbt_cp_summary cp;        /* baseline or new, episodes, the main one
	                             (changepoint.h); buckets as above */
} lbt_rate_row;

typedef struct lbt_rate_stats {
	uint64_t records;         /* records given to add() */
	uint64_t counted;         /* of which had a time and a key */
	uint64_t no_key;          /* lacked the --by field (no UUID in the path...) */
	uint64_t no_time;         /* lacked a time */
	size_t keys;              /* distinct keys (held after finish) */
	size_t buckets;           /* (key, bucket) pairs held */
	int64_t first_us, last_us;   /* the input's span: first and last time of
	                                every record with one (kept or not);
	                                INT64_MAX, INT64_MIN when none */
	lbt_budget budget;        /* --max-memory: the keys dropped, the floor */
} lbt_rate_stats;

typedef struct lbt_rate lbt_rate;

/*
 * Parse a --by value ("key", "path", "host", "src", "net", "status",
 * "term", "frontend", "backend", "server", "lb").
 * @return 0, or -1 with err listing the allowed values.
 */
int lbt_rate_by_parse(const char *s, lbt_rate_by *by, lbt_err *err);

/* Name of a --by value ("key" ...), also the first column's name. */
const char *lbt_rate_by_name(lbt_rate_by by);

/* Parse --rank ("peak" or "total").  @return 0, or -1 with err. */
int lbt_rate_rank_parse(const char *s, lbt_rate_rank *rank, lbt_err *err);

/*
 * Option handlers in the shape of lbt_cli_fn (cli.h, LBT_CLI_FN), ctx being
 * the lbt_rate_opts: --by and --rank.  The change-point options take
 * &opts.cp and changepoint.h's handlers.  @return 0, or -1 with err.
 */
int lbt_rate_opt_by(void *opts, const char *arg, lbt_err *err);
int lbt_rate_opt_rank(void *opts, const char *arg, lbt_err *err);

/* The record fields the accumulator reads (the time and the --by field;
 * LBT_BIT mask), for lbt_input_opts.wanted. */
uint64_t lbt_rate_fields(const lbt_rate *r);

/* @return an accumulator, or NULL with err (bad option value, no memory). */
lbt_rate *lbt_rate_new(const lbt_rate_opts *o, lbt_err *err);

/*
 * Count one record.  Records without a time or without the --by field are
 * counted in the stats only.  @return 0, or -1 when out of memory (the
 * error is kept and reported again by lbt_rate_finish()).
 */
int lbt_rate_add(lbt_rate *r, const lbt_rec *rec);

/* @return an empty accumulator with r's options, or NULL with err. */
lbt_rate *lbt_rate_spawn(const lbt_rate *r, lbt_err *err);

/*
 * Merge src (from lbt_rate_spawn of the same options, unfinished) into r,
 * as if r had also been given src's records (analysis.h): every key's
 * buckets and total, the span, the counters.  src is consumed (free it
 * after).  @return 0, or -1 with err (no memory; different options or a
 * finished accumulator are asserted against, analysis.h).
 */
int lbt_rate_merge(lbt_rate *r, lbt_rate *src, lbt_err *err);

/* r with the analysis.h vtable (driver.h runs it). */
lbt_analysis lbt_rate_analysis(lbt_rate *r);

/*
 * Rank the keys and compute the rows (peak, baseline, episodes).  Call
 * once, after the last add().  @return 0, or -1 with err (out of memory
 * now or during add()).
 */
int lbt_rate_finish(lbt_rate *r, lbt_err *err);

/* Rows after finish(), best first: min(top, keys) of them. */
size_t lbt_rate_nrows(const lbt_rate *r);
const lbt_rate_row *lbt_rate_row_at(const lbt_rate *r, size_t i);

/* First and last bucket of the whole input.  @return 0, or -1 when nothing
 * was counted. */
int lbt_rate_span(const lbt_rate *r, int64_t *first, int64_t *last);

/*
 * The change points of row i (changepoint.h): baseline, new, segments and
 * every episode, in bucket indices of the input's span; bucket index k is
 * bucket *origin + k (lbt_bucket_format prints it).  Owned by r.
 * @return them, or NULL for a bad row.
 */
const lbt_cp_result *lbt_rate_changes(const lbt_rate *r, size_t i, int64_t *origin);

/* Count of row i in bucket b (0 when none). */
int64_t lbt_rate_count(const lbt_rate *r, size_t i, int64_t b);

/* Count of every key together in bucket b. */
int64_t lbt_rate_total_count(const lbt_rate *r, int64_t b);

/*
 * Sparkline of row i over the whole input's span, `width` cells
 * (lbt_sparkline()).  @return bytes written, 0 when out of memory or empty.
 */
size_t lbt_rate_sparkline(const lbt_rate *r, size_t i, size_t width, char *buf, size_t size);

/* The bucket width in µs, the options given, and how many records went where. */
int64_t lbt_rate_step(const lbt_rate *r);
const lbt_rate_opts *lbt_rate_opts_get(const lbt_rate *r);
const lbt_rate_stats *lbt_rate_stats_get(const lbt_rate *r);

/* NULL accepted. */
/* @return an estimate of the bytes the key series hold (docs/memory.md). */
size_t lbt_rate_bytes(const lbt_rate *r);

void lbt_rate_free(lbt_rate *r);

#endif
