/*
 * filter.h - the record filters every program shares:
 * --since/--until, --key, --src, --status, --term, --lb.
 * Includes: err.h, rec.h, addr.h.
 */
#ifndef LBT_FILTER_H
#define LBT_FILTER_H

#include <stdint.h>

#include "lbt/err.h"
#include "lbt/rec.h"

/* The option values as given on the command line; NULL = no filter. */
typedef struct lbt_filter_opts {
	const char *since;    /* ISO date-time, "HH:MM[:SS]" (its occurrence nearest the first
	                         record), or "-15m" (before now) */
	const char *until;    /* same shapes; exclusive */
	const char *key;      /* exact key; comma-separated list */
	const char *src;      /* ADDR or ADDR/BITS, v4 or v6; comma-separated list */
	const char *status;   /* "429", "5xx", "-1", comma-separated */
	const char *term;     /* termination-state prefix: "PT", "PR--", "sQ"; comma-separated */
	const char *lb;       /* LB host; comma-separated */
} lbt_filter_opts;

#define LBT_FILTER_OPTS_INIT { NULL, NULL, NULL, NULL, NULL, NULL, NULL }

typedef struct lbt_filter lbt_filter;

/*
 * Check and compile the options.  `now_us` anchors relative times (-15m).
 * @return a filter (one that matches everything when no option is set), or
 * NULL with err naming the option and the value at fault.
 */
lbt_filter *lbt_filter_new(const lbt_filter_opts *o, int64_t now_us, lbt_err *err);
void lbt_filter_free(lbt_filter *f);

/* True when no option was given (callers can skip the call). */
int lbt_filter_is_empty(const lbt_filter *f);

/* Fields the filter reads (LBT_BIT mask), so formats parse them. */
uint64_t lbt_filter_fields(const lbt_filter *f);

/*
 * @return 1 when rec passes every option.  A record lacking a field that an
 * option tests does not pass.  HH:MM bounds are fixed on the first record
 * that has a time: --since (or a lone --until) at the occurrence nearest to
 * it, --until at its first occurrence after --since (the filter keeps that
 * state).
 */
int lbt_filter_match(lbt_filter *f, const lbt_rec *rec);

/* The time bounds after resolution (INT64_MIN / INT64_MAX when open). */
void lbt_filter_bounds(const lbt_filter *f, int64_t *since_us, int64_t *until_us);

/* Which bounds were given as a bare time of day: LBT_FILTER_TOD_SINCE | _UNTIL. */
#define LBT_FILTER_TOD_SINCE 0x1u
#define LBT_FILTER_TOD_UNTIL 0x2u
unsigned lbt_filter_tod(const lbt_filter *f);

/* The first record's time the time-of-day bounds were fixed on, or 0 when not yet. */
int64_t lbt_filter_tod_ref(const lbt_filter *f);

/*
 * Parse one absolute time as --since accepts it (ISO with or without zone,
 * "@EPOCH", "-15m" before now_us; not "HH:MM"), for options such as --now.
 * `what` names the option in the message.  @return 0 with *us, or -1.
 */
int lbt_filter_time_parse(const char *what, const char *s, int64_t now_us, int64_t *us,
    lbt_err *err);

#endif
