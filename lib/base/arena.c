/*
 * arena.c - zeroed pieces of large chunks (see arena.h).
 *
 * Chunks grow from 64 KiB to 1 MiB, so a small accumulator stays small and
 * a large one makes few calls; a piece larger than a chunk gets a chunk of
 * its own.
 */
#include <stdint.h>
#include <stdlib.h>

#include "lbt/arena.h"

#define ALIGN 16
#define FIRST_CHUNK (64 * 1024)
#define MAX_CHUNK (1024 * 1024)

struct lbt_arena_chunk {
	struct lbt_arena_chunk *next;
	size_t used, size;
	_Alignas(ALIGN) unsigned char data[];
};

/* A new chunk for at least n bytes, pushed in front.  @return it or NULL. */
static struct lbt_arena_chunk *new_chunk(lbt_arena *a, size_t n)
{
	size_t size = a->head ? a->head->size * 2 : FIRST_CHUNK;
	struct lbt_arena_chunk *c;

	if (size > MAX_CHUNK)
		size = MAX_CHUNK;
	if (size < n)
		size = n;
	if ((c = calloc(1, sizeof(*c) + size)) == NULL)
		return NULL;
	c->size = size;
	c->next = a->head;
	a->head = c;
	a->bytes += size;
	return c;
}

/* n zeroed, aligned bytes.  @return them, or NULL when out of memory. */
void *lbt_arena_alloc(lbt_arena *a, size_t n)
{
	struct lbt_arena_chunk *c = a->head;
	void *p;

	if (n == 0)
		n = 1;
	if (n > SIZE_MAX - ALIGN)
		return NULL;
	n = (n + ALIGN - 1) & ~(size_t)(ALIGN - 1);
	if ((c == NULL || c->size - c->used < n) && (c = new_chunk(a, n)) == NULL)
		return NULL;
	p = c->data + c->used;
	c->used += n;
	return p;
}

/* Free every chunk; NULL accepted. */
void lbt_arena_free(lbt_arena *a)
{
	if (a == NULL)
		return;
	while (a->head != NULL) {
		struct lbt_arena_chunk *c = a->head;

		a->head = c->next;
		free(c);
	}
	a->bytes = 0;
}
