/*
 * key.h - the key of a request: a ping UUID by default, or what a PCRE2
 * pattern captures.
 *
 * Default (Healthchecks-style, docs/formats.md, "The key"): the first UUID in the
 * path, any case, reported lower-case; otherwise `<ping-key>/<slug>` at the
 * start of the path (after an optional /ping/).  A user pattern must have
 * exactly one capture group; it is JIT-compiled once.
 * Includes: err.h, str.h.
 */
#ifndef LBT_KEY_H
#define LBT_KEY_H

#include <stddef.h>

#include "lbt/err.h"
#include "lbt/str.h"

typedef struct lbt_key lbt_key;

/* NULL pattern: the default ping key.  Bad pattern: NULL, err has PCRE2's
 * message and the offset. */
lbt_key *lbt_key_new(const char *pattern, lbt_err *err);
void lbt_key_free(lbt_key *k);

/*
 * Extract the key from a path (or any text).  *out views memory owned by k
 * or by the input; valid until the next call.  @return 1 found, 0 not.
 */
int lbt_key_extract(lbt_key *k, const char *s, size_t len, lbt_str *out);

#endif
