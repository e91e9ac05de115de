/*
 * driver.h - one pass of a record stream (stream.h) through one or
 * several analyses (analysis.h): every record is read once and handed to
 * each analysis in turn, then each is finished.  lbt-rate, lbt-offenders,
 * lbt-tarpit and lbt-timeline run one analysis through it, lbt-audit and
 * lbt-triage several at once; lbt_driver_run_par runs twins of them on
 * several threads and merges them in file order (lbt_analysis_merge,
 * par.c).
 *
 *     lbt_analysis v[] = { lbt_rate_analysis(r), lbt_offenders_analysis(o) };
 *     opts.wanted = lbt_analysis_fields(v, 2);
 *     lbt_stream *s = lbt_stream_open(&opts, paths, n, &err);
 *     if (lbt_driver_run(s, v, 2, report_file_error, ctx, &err) < 0) ...
 *
 * Per record the cost is one indirect call per analysis; nothing is
 * allocated by the driver.
 * Includes: analysis.h, err.h, stream.h.
 */
#ifndef LBT_DRIVER_H
#define LBT_DRIVER_H

#include <stddef.h>
#include <stdint.h>

#include "lbt/analysis.h"
#include "lbt/err.h"
#include "lbt/stream.h"

/* Told of an error that ended one input file (the run goes on with the next). */
typedef void (*lbt_driver_error_fn)(void *ctx, const lbt_err *err);

/*
 * Feed every record of s to each of v[0..n), then finish each.  An
 * analysis out of memory stops the feeding (its add() failure is sticky);
 * finish() then reports it.  `on_error` (may be NULL) hears every file
 * error of the stream.
 * @return the number of records fed (0: the analyses saw nothing, which
 * the program says: cli.h's LBT_EXIT_EMPTY), or -1 with err: the first
 * finish() that failed (err->kind LBT_ERR_EMPTY when it failed for want of data, such
 * as a --baseline window outside it).
 */
int64_t lbt_driver_run(lbt_stream *s, lbt_analysis *v, size_t n, lbt_driver_error_fn on_error,
    void *ctx, lbt_err *err);

/*
 * lbt_driver_run on `threads` threads (--threads): each plain log file
 * large enough is cut at line starts into one part per thread, each part
 * read into its own twins of v (spawn), merged into v in file order, so
 * that the results are those of one thread, evidence lines included;
 * malformed lines are reported in file order and the counters are the
 * same.  Compressed files and pipes are decoded on a thread of their own
 * instead (the input's threads option).  threads <= 1, the index, or an
 * analysis whose results depend on the cut (lbt_analysis_order_bound):
 * files are read whole (lbt_driver_run; the decoding thread still helps).
 * @return the records fed (every part's), or -1 with err.
 */
int64_t lbt_driver_run_par(lbt_stream *s, lbt_analysis *v, size_t n, int threads,
    lbt_driver_error_fn on_error, void *ctx, lbt_err *err);

#endif
