/*
 * stream.h - the record stream of a run: log files read through lbt_input
 * (lib/read/, input.h), or, when opts->db is set, an lbt-index database
 * read through lbt_db_reader (lib/db/, db.h).  Either way the same lbt_rec
 * come out, filtered, so no analysis knows where its records came from.
 * lbt-index reads logs through lbt_input directly.
 *
 * The stream is also where a run keeps one tier (opts->use_tier, --tier):
 * the load balancers and the servers behind them log the same requests,
 * so an analysis that counted both would count each request twice.  With
 * LBT_TIER_USE_AUTO the LB tier is kept when the inputs hold both (known
 * before the first record: lbt_input_tiers, or the index's records), and
 * what was left out is counted for a note (lbt_stream_tiers).  Requests of
 * no known tier, and events, are always kept.
 *
 *     lbt_stream *s = lbt_stream_open(&opts, paths, npaths, &err);
 *     while ((r = lbt_stream_next(s, &rec, &err)) != 0) {
 *             if (r < 0) { report err; continue; }   // a file failed; others go on
 *             ...use rec...
 *     }
 *     lbt_stream_free(s);
 *
 * Includes: err.h, input.h, rec.h.
 */
#ifndef LBT_STREAM_H
#define LBT_STREAM_H

#include <stddef.h>

#include "lbt/err.h"
#include "lbt/input.h"
#include "lbt/rec.h"

typedef struct lbt_stream lbt_stream;

/*
 * Open the stream of opts (copied; its strings must outlive the stream):
 * the index opts->db (then paths and opts->specs must be empty), or the
 * log files of opts->specs and then paths[0..npaths) in order ("-" =
 * stdin), keeping the records of opts->use_tier.
 * @return the stream, or NULL with err (bad option value, an index that
 * cannot be opened, log file operands with --db).
 */
lbt_stream *lbt_stream_open(const lbt_input_opts *opts, char *const *paths, int npaths,
    lbt_err *err);

/*
 * The next record that passes the filters (valid until the next call).
 * @return 1 a record, 0 the end, -1 an error that ended one file (or the
 * index) with err filled: call again to go on with the next file.
 */
int lbt_stream_next(lbt_stream *s, lbt_rec **rec, lbt_err *err);

/*
 * Call fn(ctx, s) on the reading thread every 256 records returned by
 * lbt_stream_next (NULL: never): a program's progress line reads the
 * stream's counters there, without a thread of its own.
 */
typedef void (*lbt_stream_tick_fn)(void *ctx, const lbt_stream *s);
void lbt_stream_on_tick(lbt_stream *s, lbt_stream_tick_fn fn, void *ctx);

/* What the tier choice kept and left out. */
typedef struct lbt_stream_tiers {
	lbt_tier kept;             /* the tier kept; LBT_TIER_NONE: every record */
	int automatic;             /* chosen by --tier auto (not asked for) */
	unsigned present;          /* tiers the inputs hold (mask of LBT_BIT(tier)),
	                              when auto had to know */
	uint64_t left[LBT_TIER_COUNT];          /* requests left out, by tier */
	char left_file[LBT_TIER_COUNT][256];    /* the first file of each */
} lbt_stream_tiers;

/* @return the tier choice of the stream and its counters so far. */
const lbt_stream_tiers *lbt_stream_tiers_get(const lbt_stream *s);

/* Counters so far (files, lines, records, malformed, failed files...). */
const lbt_input_stats *lbt_stream_stats(const lbt_stream *s);

/* The filter of the log files (its bounds: filter.h), or NULL with --db. */
const lbt_filter *lbt_stream_filter(const lbt_stream *s);

/*
 * The whole line of the record last returned (syslog wrapper included);
 * from an index, the raw line kept by lbt-index --keep-raw.  Valid until
 * the next call, not NUL-terminated.  @return it, or NULL (*len 0) when
 * there is none.
 */
const char *lbt_stream_line(lbt_stream *s, size_t *len);

/*
 * Reading a file in parts (par.h): lbt_stream_input is the input of a
 * log-file stream (NULL for the index), for lbt_input_pause/_more/
 * _cuttable/_cut/_report.  lbt_stream_part: a stream over bytes
 * [off, end) of the file s has open (lbt_input_part), keeping s's tier.
 * @return it, or NULL with err.  lbt_stream_join: add a part's counters
 * and what its tier choice left out to s's.
 */
lbt_input *lbt_stream_input(lbt_stream *s);
lbt_stream *lbt_stream_part(const lbt_stream *s, uint64_t off, uint64_t end, uint64_t line0,
    lbt_input_diag_fn diag, void *ctx, lbt_err *err);
void lbt_stream_join(lbt_stream *s, const lbt_stream *part);

/* NULL accepted. */
void lbt_stream_free(lbt_stream *s);

#endif
