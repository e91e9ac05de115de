/*
 * analysis.h - the one interface every streaming accumulator of
 * lib/analysis/ implements (rate.h, offenders.h, tarpit.h, timeline.h,
 * keyhosts.h), so that one
 * driver (lib/run/, driver.h) can feed a record stream to one or several
 * of them in a single pass, and a run can be cut into parts (files, cores)
 * whose accumulators are merged.
 *
 *     lbt_analysis a = lbt_rate_analysis(r);          // the vtable and r
 *     in.wanted = lbt_analysis_fields(&a, 1);
 *     ... a.ops->add(a.acc, rec) for every record ...
 *     a.ops->finish(a.acc, &err);
 *     ... the analysis's own accessors (lbt_rate_nrows, lbt_rate_row_at) ...
 *     lbt_analysis_free(&a);
 *
 * Every analysis names its accessors alike: lbt_X_fields(const lbt_X *),
 * lbt_X_nrows() and lbt_X_row_at() for ranked rows (lbt_X_nTHINGS() and
 * lbt_X_THING_at() for other results: lbt_tarpit_ngroups/_group_at),
 * lbt_X_stats_get(), lbt_X_merge(), lbt_X_spawn().  The report layer
 * (lib/report/) reaches results through those accessors only.
 *
 * Merge.  merge(dst, src) makes dst what one accumulator would be had it
 * been given dst's records and then src's, exactly: every row field,
 * evidence line (the smallest by (time, file, line), evidence.h), peak,
 * baseline, distinct count, first and last time is equal.  Records may
 * come in any time order and the two parts may overlap in time (two load
 * balancers, or one file cut at a line boundary); a file cut in two must
 * be merged in file order (the part with its first lines is dst).  The
 * exceptions are the ones an analysis already documents as depending on
 * the order of its input (offenders' space-saving key counts past
 * LBT_OFF_TOPK keys, marked approximate; tarpit's occupancy of requests
 * out of order by more than its window, marked as upper bounds):
 * docs/analysis-interface.md says how each merge stays exact, occupancy
 * above all.  src is consumed: afterwards it may only be freed.  Both must
 * come from the same options (spawn() makes such a twin) and be
 * unfinished: a caller's bug otherwise, asserted by every merge (and
 * refused with an error when NDEBUG drops the asserts).
 * Includes: err.h, rec.h.
 */
#ifndef LBT_ANALYSIS_H
#define LBT_ANALYSIS_H

#include <stddef.h>
#include <stdint.h>

#include "lbt/err.h"
#include "lbt/rec.h"

/*
 * Properties of a kind of analysis (lbt_analysis_ops.flags), said once in
 * its vtable rather than guessed from its name.
 *
 * LBT_ANALYSIS_ORDER_BOUND: its results may depend on how its records were
 * cut into parts, beyond what merge keeps (offenders' space-saving key
 * counts past LBT_OFF_TOPK keys a source, marked approximate: one
 * accumulator over the whole input and a merge of parts approximate
 * differently).  A run on several threads does not cut its files for
 * such an analysis (par.c), so that --threads never changes an output.
 */
#define LBT_ANALYSIS_ORDER_BOUND 0x1u

/* The operations of one kind of analysis; `acc` is its accumulator. */
typedef struct lbt_analysis_ops {
	const char *name;                   /* "rate", "offenders", "tarpit"... */
	unsigned flags;                     /* LBT_ANALYSIS_* properties */
	/* The record fields it reads (LBT_BIT mask), for lbt_input_opts.wanted. */
	uint64_t (*fields)(const void *acc);
	/* Count one record.  @return 0, or -1 when out of memory (sticky:
	 * finish() reports it).  No allocation unless something is new. */
	int (*add)(void *acc, const lbt_rec *rec);
	/* An empty accumulator with the same options.  @return it (owned by
	 * the caller), or NULL with err. */
	void *(*spawn)(const void *acc, lbt_err *err);
	/* Merge src (same kind and options, both unfinished: asserted) into
	 * acc, consuming src (see above).  @return 0, or -1 with err (no
	 * memory). */
	int (*merge)(void *acc, void *src, lbt_err *err);
	/* Build the results, once, after the last add or merge.
	 * @return 0, or -1 with err. */
	int (*finish)(void *acc, lbt_err *err);
	/* Free the accumulator; NULL accepted. */
	void (*free)(void *acc);
} lbt_analysis_ops;

/* An accumulator with its operations (a value: copy it freely). */
typedef struct lbt_analysis {
	const lbt_analysis_ops *ops;
	void *acc;
} lbt_analysis;

/* @return the fields every one of v[0..n) reads (LBT_BIT mask). */
uint64_t lbt_analysis_fields(const lbt_analysis *v, size_t n);

/*
 * An empty twin of a (same kind, same options) in *twin.
 * @return 0, or -1 with err.
 */
int lbt_analysis_spawn(const lbt_analysis *a, lbt_analysis *twin, lbt_err *err);

/*
 * Merge src into dst and free src (whatever the outcome: src is consumed).
 * @return 0, or -1 with err (different kinds, or the kind's merge failed).
 */
int lbt_analysis_merge(lbt_analysis *dst, lbt_analysis *src, lbt_err *err);

/*
 * True when a's kind has LBT_ANALYSIS_ORDER_BOUND: its results may depend
 * on how its records were cut into parts (see the flag).
 */
int lbt_analysis_order_bound(const lbt_analysis *a);

/* Free the accumulator and clear *a; NULL acc accepted. */
void lbt_analysis_free(lbt_analysis *a);

#endif
