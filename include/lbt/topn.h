/*
 * topn.h - the first k entries of a hash map in a ranking, by selection:
 * a bounded heap of k entries, O(n log k) and k entries of memory, where a
 * full sort of the map costs O(n log n) and n entries.  lbt-offenders and
 * lbt-rate print 20 rows of millions of sources or keys.
 *
 *     size_t n, passing;
 *     lbt_hmap_entry *top = lbt_hmap_top(m, 20, cmp, keep, ctx, &n, &passing);
 *     for (size_t i = 0; i < n; i++) ... top[i] ...   // best first
 *     free(top);
 *
 * Includes: hmap.h.
 */
#ifndef LBT_TOPN_H
#define LBT_TOPN_H

#include <stddef.h>

#include "lbt/hmap.h"

/* A filter for lbt_hmap_top(): non-zero keeps the entry. */
typedef int (*lbt_hmap_pred)(const lbt_hmap_entry *e, void *ctx);

/*
 * The k entries of m that come first under cmp among those keep accepts
 * (keep NULL: every entry; k 0: every entry, a full sort), best first, in
 * a malloc'ed array owned by the caller; *n gets its length, *passing
 * (may be NULL) the number of entries keep accepted.  cmp must be a total
 * order (break ties on the key) so that the result is the first k of a
 * full sort exactly.  @return the array (non-NULL even when empty), or
 * NULL when out of memory.
 */
lbt_hmap_entry *lbt_hmap_top(const lbt_hmap *m, size_t k, lbt_hmap_cmp cmp, lbt_hmap_pred keep,
    void *ctx, size_t *n, size_t *passing);

#endif
