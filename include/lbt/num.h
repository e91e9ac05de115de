/*
 * num.h - bounded number parsing for options and fields (never atoi).
 * Leaf module except err.h.
 */
#ifndef LBT_NUM_H
#define LBT_NUM_H

#include <stddef.h>
#include <stdint.h>

#include "lbt/err.h"

/*
 * Parse a whole decimal integer in [min, max] (strtonum-like).  `what` names
 * it in the message: "--top: 'abc' is not a number in 1..1000".
 * @return 0, or -1 with err filled.
 */
int lbt_num_parse(const char *s, int64_t min, int64_t max, const char *what,
    int64_t *out, lbt_err *err);

/*
 * Parse a whole decimal number (strtod: "0.5", "1e3"; not inf or nan) that
 * must be >= min, or > min when `above`, and <= max (HUGE_VAL: no upper
 * bound).  `what` names it in the message: "--min-rate: 'x' is not a
 * number"; out of range with a finite max "--min-share: '101' is not in
 * 0..100" (or "must be greater than 0 and at most 100" when `above`),
 * without one "--jump-factor: '1' must be greater than 1" or "--jump-floor:
 * '-1' must be at least 0".  @return 0, or -1 with err filled (*out kept).
 */
int lbt_num_parse_double(const char *s, double min, int above, double max,
    const char *what, double *out, lbt_err *err);

/*
 * Parse a duration "500ms", "1s", "10s", "1m", "2h", "1d" (a bare number is
 * seconds) into microseconds, in [min_us, max_us].  @return 0 or -1.
 */
int lbt_duration_parse(const char *s, int64_t min_us, int64_t max_us, const char *what,
    int64_t *out_us, lbt_err *err);

/*
 * Fast field conversions used by parsers on s[0..len), no NUL needed.
 * @return 0, or -1 when not entirely a (possibly signed) decimal integer.
 */
int lbt_num_i64(const char *s, size_t len, int64_t *out);
int lbt_num_i32(const char *s, size_t len, int32_t *out);

#endif
