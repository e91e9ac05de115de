/*
 * str.h - lbt_str, a length-delimited view of bytes it does not own.
 *
 * Records point into input lines instead of copying them; a view is not
 * NUL-terminated.  Leaf module.
 */
#ifndef LBT_STR_H
#define LBT_STR_H

#include <stddef.h>
#include <string.h>

typedef struct lbt_str {
	const char *p;
	size_t n;
} lbt_str;

#define LBT_STR_NULL ((lbt_str){ NULL, 0 })

static inline lbt_str lbt_str_make(const char *p, size_t n)
{
	return (lbt_str){ p, n };
}

/* True when the view equals the NUL-terminated string `s`. */
static inline int lbt_str_eq(lbt_str a, const char *s)
{
	size_t n = strlen(s);

	return a.n == n && (n == 0 || memcmp(a.p, s, n) == 0);
}

#endif
