/*
 * analysis_int.h - the vtable adapter of lib/analysis/, written once.
 *
 * Every analysis X has typed functions lbt_X_fields, _add, _spawn,
 * _merge, _finish and _free (X.h); analysis.h's operations take void
 * pointers.  LBT_ANALYSIS_DEFINE(X, FLAGS), placed after those functions
 * in X's own file, writes the six conversions, the const vtable named
 * "X" with the LBT_ANALYSIS_* properties FLAGS, and the public
 * `lbt_analysis lbt_X_analysis(lbt_X *acc)` that pairs an accumulator
 * with it (acc stays owned by the caller until lbt_analysis_free).  The
 * compiler checks each call against X.h, so a signature that drifts
 * fails the build instead of being cast away.
 */
#ifndef LBT_ANALYSIS_INT_H
#define LBT_ANALYSIS_INT_H

#include "lbt/analysis.h"

#define LBT_ANALYSIS_DEFINE(X, FLAGS)                                           \
	static uint64_t X##_vt_fields(const void *acc)                          \
	{                                                                       \
		return lbt_##X##_fields(acc);                                   \
	}                                                                       \
	static int X##_vt_add(void *acc, const lbt_rec *rec)                    \
	{                                                                       \
		return lbt_##X##_add(acc, rec);                                 \
	}                                                                       \
	static void *X##_vt_spawn(const void *acc, lbt_err *err)                \
	{                                                                       \
		return lbt_##X##_spawn(acc, err);                               \
	}                                                                       \
	static int X##_vt_merge(void *acc, void *src, lbt_err *err)             \
	{                                                                       \
		return lbt_##X##_merge(acc, src, err);                          \
	}                                                                       \
	static int X##_vt_finish(void *acc, lbt_err *err)                       \
	{                                                                       \
		return lbt_##X##_finish(acc, err);                              \
	}                                                                       \
	static void X##_vt_free(void *acc)                                      \
	{                                                                       \
		lbt_##X##_free(acc);                                            \
	}                                                                       \
	static const lbt_analysis_ops X##_ops = {                               \
		.name = #X, .flags = (FLAGS), .fields = X##_vt_fields,          \
		.add = X##_vt_add, .spawn = X##_vt_spawn,                       \
		.merge = X##_vt_merge, .finish = X##_vt_finish,                 \
		.free = X##_vt_free                                             \
	};                                                                      \
	lbt_analysis lbt_##X##_analysis(lbt_##X *acc)                           \
	{                                                                       \
		return (lbt_analysis){ &X##_ops, acc };                         \
	}

#endif
