/*
 * budget.h - a memory budget (--max-memory) for a map whose keys the log
 * chooses (sources, keys, hosts, paths): the one machinery every
 * accumulator uses (docs/memory.md, "Budgets").
 *
 * Past the budget, the entries whose weight (their count, an upper bound)
 * is at most T are dropped, T the smallest that drops at least half of
 * them; the floor becomes max(floor, T).  An entry counted afterwards may
 * have been dropped with up to `floor` counts before: its true count is in
 * [count, count + floor].  This is space-saving (Metwally et al. 2005)
 * pruned in batches, so the hash map needs no deletion.  The accumulator
 * keeps an lbt_budget, asks lbt_budget_due() now and then, prunes its map
 * with lbt_budget_prune() (or, with state beyond the map, picks T with
 * lbt_budget_threshold() and prunes itself), and its program says what was
 * dropped with lbt_budget_note().
 * Includes: err.h, hmap.h.
 */
#ifndef LBT_BUDGET_H
#define LBT_BUDGET_H

#include <stddef.h>
#include <stdint.h>

#include "lbt/err.h"
#include "lbt/hmap.h"

/* The default of every --max-memory. */
#define LBT_BUDGET_DEFAULT ((size_t)1 << 30)

typedef struct lbt_budget {
	size_t max;               /* bytes; 0 = no budget */
	uint64_t pruned;          /* times entries were dropped */
	uint64_t dropped;         /* entries dropped, in all */
	uint64_t floor;           /* an entry may miss this many counts; 0 = exact */
} lbt_budget;

/* The weight (count) of one entry: what it may have sent at most. */
typedef uint64_t (*lbt_budget_weight_fn)(const lbt_hmap_entry *e, void *ctx);

/* Free what a dropped entry owns beyond its value (NULL: nothing). */
typedef void (*lbt_budget_drop_fn)(const lbt_hmap_entry *e, void *ctx);

/*
 * Parse a --max-memory SIZE ("512M", "1G", "1GiB", "2048K"; at least 1M)
 * into *bytes.  @return 0, or -1 with err.
 */
int lbt_budget_parse(const char *arg, size_t *bytes, lbt_err *err);

/* lbt_cli_fn for --max-memory, ctx a size_t.  @return 0 or -1 with err. */
int lbt_budget_opt(void *bytes, const char *arg, lbt_err *err);

/* True every `every` calls (count a running counter) when bytes pass b's max. */
int lbt_budget_due(const lbt_budget *b, uint64_t count, uint64_t every, size_t bytes);

/* The threshold T for the n entries of m (see above): at most half of them
 * weigh more.  @return T, or -1 (out of memory). */
int64_t lbt_budget_threshold(const lbt_hmap *m, lbt_budget_weight_fn w, void *ctx);

/* Record a prune at threshold t that dropped n entries. */
void lbt_budget_record(lbt_budget *b, uint64_t t, uint64_t n);

/*
 * Drop the entries of *m weighing at most T (lbt_budget_threshold): the
 * others are copied into a new map of `klen` fixed-size keys (0: keys of
 * any length) and values of val_size bytes, `drop` is called on each
 * dropped one, the old map freed.  @return 0, or -1 when out of memory
 * (*m unchanged).
 */
int lbt_budget_prune(lbt_budget *b, lbt_hmap **m, size_t klen, size_t val_size,
    lbt_budget_weight_fn w, lbt_budget_drop_fn drop, void *ctx);

/*
 * The sentence of a pruned budget, "over --max-memory (64 MiB): 1200
 * sources of at most 3 requests were dropped; ..." with `what` the
 * entries ("sources") and `unit` what they count ("requests").
 * @return 1 with buf, or 0 (nothing dropped: exact).
 */
int lbt_budget_note(const lbt_budget *b, const char *what, const char *unit, char *buf,
    size_t size);

/* Merge src's counters into dst: floors add (an entry only in one part may
 * have sent the other part's floor there). */
void lbt_budget_merge(lbt_budget *dst, const lbt_budget *src);

#endif
