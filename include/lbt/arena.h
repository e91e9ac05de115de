/*
 * arena.h - a bump allocator of zeroed memory, freed all at once.
 *
 * Per-source state of the analyses is small, fixed-size and lives as long
 * as the accumulator: one malloc each would cost a header of 16 bytes and
 * a call per source.  An arena hands out pieces of large calloc'ed chunks
 * (whose pages the kernel maps only when touched, so zeroing is free) and
 * frees them together.
 *
 *     lbt_arena a = LBT_ARENA_INIT;
 *     struct x *p = lbt_arena_alloc(&a, sizeof(*p));   // zeroed, or NULL
 *     ...
 *     lbt_arena_free(&a);
 *
 * Leaf module: includes nothing of lbt.
 */
#ifndef LBT_ARENA_H
#define LBT_ARENA_H

#include <stddef.h>

struct lbt_arena_chunk;

typedef struct lbt_arena {
	struct lbt_arena_chunk *head;   /* the chunk allocated from, newest first */
	size_t bytes;                   /* every chunk's size, for memory budgets */
} lbt_arena;

#define LBT_ARENA_INIT { NULL, 0 }

/* @return n zeroed bytes aligned for any type, valid until lbt_arena_free,
 * or NULL when out of memory (n 0 is given 1 byte). */
void *lbt_arena_alloc(lbt_arena *a, size_t n);

/* Free every piece and reset *a to empty; NULL accepted. */
void lbt_arena_free(lbt_arena *a);

#endif
