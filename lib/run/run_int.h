/*
 * run_int.h - what lib/run/driver.c and par.c share; never installed.
 */
#ifndef LBT_RUN_INT_H
#define LBT_RUN_INT_H

#include "lbt/driver.h"

/* Hand rec to each of v[0..n).  @return 0, or -1 when one failed (no memory). */
int lbt_runi_feed(lbt_analysis *v, size_t n, const lbt_rec *rec);

/* Finish each of v[0..n); err gets the first failure unless `failed`.
 * @return 0, or -1 when one failed. */
int lbt_runi_finish(lbt_analysis *v, size_t n, int failed, lbt_err *err);

#endif
