/*
 * str.h - lbt_str, a length-delimited view of bytes it does not own.
 *
 * Records point into input lines instead of copying them; a view is not
 * NUL-terminated.  Also the one way liblbt walks a separated list
 * ("host,ua,-"): lbt_str_next_item.  Leaf module.
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

/*
 * The next item of a list of items separated by `sep` in the NUL-terminated
 * text at *cursor, as a view into it (empty items included: "a,,b" has
 * three, "" one).  *cursor moves past the item and its separator, and is
 * NULL after the last item.
 *
 *     const char *cur = list;
 *     lbt_str it;
 *     while (lbt_str_next_item(&cur, ',', &it)) ...
 *
 * @return 1 with *item, 0 when the list is done (*cursor NULL).
 */
static inline int lbt_str_next_item(const char **cursor, char sep, lbt_str *item)
{
	const char *p = *cursor, *e;

	if (p == NULL)
		return 0;
	e = strchr(p, sep);
	*item = lbt_str_make(p, e ? (size_t)(e - p) : strlen(p));
	*cursor = e ? e + 1 : NULL;
	return 1;
}

#endif
