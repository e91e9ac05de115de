/*
 * vec.h - growing an array, the one way liblbt does it: geometric growth
 * (doubling from a first capacity), every size computation checked for
 * overflow, the array untouched when the memory cannot be had.
 *
 *     struct path *v = NULL; size_t n = 0, cap = 0;
 *     if (LBT_GROW(v, cap, n + 1, 8) < 0)
 *             return lbt_err_set(err, "out of memory");
 *     v[n++] = ...;
 *
 * Includes: nothing.
 */
#ifndef LBT_VEC_H
#define LBT_VEC_H

#include <stddef.h>

/*
 * Make room for `need` elements of `size` bytes in *v, whose capacity is
 * *cap elements: when need > *cap, the capacity becomes `first` (when it
 * was 0) doubled until it holds need, and *v is reallocated.  *v may be
 * NULL with *cap 0.
 * @return 0, or -1 when the size overflows or memory is short (*v and *cap
 * unchanged).
 */
int lbt_grow(void **v, size_t *cap, size_t need, size_t size, size_t first);

/* LBT_GROW(ptr, cap, need, first): lbt_grow for a typed pointer lvalue. */
#define LBT_GROW(p, cap, need, first) \
	lbt_grow((void **)&(p), &(cap), (need), sizeof *(p), (first))

#endif
