/*
 * hmap.h - a hash map from byte strings to fixed-size values.
 *
 * The analyses count things per key (a UUID, a path, a /64 network): the
 * key bytes are hashed and looked up without any allocation; only when a
 * key is new is it copied, into an arena owned by the map.  Values are
 * caller-defined structs of a size fixed at creation; a new value starts
 * zeroed.
 *
 *     lbt_hmap *m = lbt_hmap_new(sizeof(struct counts));
 *     struct counts *c = lbt_hmap_put(m, key, len, NULL);   // find or add
 *     if (c == NULL) ...out of memory...
 *     c->n++;
 *
 * Stability: value and key pointers stay valid for the life of the map
 * (values live in fixed blocks that never move; only the index is rehashed
 * when it grows).  Entries are numbered 0..count-1 in insertion order, which
 * is also the iteration order.  There is no removal.
 *
 * The table is open addressing with linear probing over 32-bit entry
 * numbers plus the hash's upper bits (so most mismatches are rejected
 * without touching the key), kept at most 70 % full.
 * Leaf module: includes nothing of lbt.
 */
#ifndef LBT_HMAP_H
#define LBT_HMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct lbt_hmap lbt_hmap;

/* One entry as seen by iteration and sorting. */
typedef struct lbt_hmap_entry {
	const void *key;     /* the map's copy of the key (NUL-terminated for convenience) */
	size_t klen;         /* its length, without that NUL */
	void *val;           /* the value, val_size bytes */
} lbt_hmap_entry;

/*
 * A 64-bit hash of p[0..n) (wyhash-style multiply-mix; not for adversaries
 * who can see the output, which nobody does here).  Exposed so that callers
 * can build their own small tables with the same function.
 */
uint64_t lbt_hash_bytes(const void *p, size_t n);

/* @return an empty map of values of val_size bytes (0 allowed: a set), or
 * NULL when out of memory. */
lbt_hmap *lbt_hmap_new(size_t val_size);

/*
 * @return an empty map whose keys are all exactly klen bytes (1..255),
 * stored beside their values with no metadata nor copy elsewhere (a key
 * of another length is refused by put), or NULL when out of memory.
 * Such a map's keys (lbt_hmap_entry.key) are not NUL-terminated.
 */
lbt_hmap *lbt_hmap_new_fixed(size_t klen, size_t val_size);

/* Free the map, its keys and values; NULL accepted. */
void lbt_hmap_free(lbt_hmap *m);

/* @return the value of key[0..klen), or NULL when absent.  Never allocates. */
void *lbt_hmap_get(const lbt_hmap *m, const void *key, size_t klen);

/*
 * Find key[0..klen), adding it (zeroed value) when absent.  *created (may be
 * NULL) is set to 1 when the key was added, 0 when found.  A key longer than
 * UINT32_MAX bytes is refused.
 * @return the value, or NULL when out of memory (the map is unchanged).
 */
void *lbt_hmap_put(lbt_hmap *m, const void *key, size_t klen, int *created);

/* @return the number of entries. */
size_t lbt_hmap_count(const lbt_hmap *m);

/* Fill *e with entry number i (0 <= i < count, insertion order). */
void lbt_hmap_at(const lbt_hmap *m, size_t i, lbt_hmap_entry *e);

/* Comparison for lbt_hmap_sorted(): <0, 0, >0 like qsort. */
typedef int (*lbt_hmap_cmp)(const lbt_hmap_entry *a, const lbt_hmap_entry *b, void *ctx);

/*
 * Every entry in an array sorted by cmp (ties keep insertion order: the
 * sort is stable).  *n gets the count.  The array is malloc'ed and owned by
 * the caller (free()); its pointers point into the map.
 * @return the array (non-NULL even when empty), or NULL when out of memory.
 */
lbt_hmap_entry *lbt_hmap_sorted(const lbt_hmap *m, lbt_hmap_cmp cmp, void *ctx, size_t *n);

/* @return an estimate of the bytes the map holds (index, keys, the values
 * stored): what it adds to the resident set. */
size_t lbt_hmap_bytes(const lbt_hmap *m);

#endif
