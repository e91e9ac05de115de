/*
 * vec.c - growing an array (see vec.h).
 */
#include <stdint.h>
#include <stdlib.h>

#include "lbt/vec.h"

/* Grow *v to hold need elements of size bytes; see vec.h.  @return 0 or -1 */
int lbt_grow(void **v, size_t *cap, size_t need, size_t size, size_t first)
{
	size_t ncap = *cap ? *cap : (first ? first : 1);
	void *p;

	if (need <= *cap)
		return 0;
	if (size == 0 || need > SIZE_MAX / size)
		return -1;
	while (ncap < need)
		ncap = ncap > SIZE_MAX / 2 ? need : ncap * 2;
	if (ncap > SIZE_MAX / size)
		ncap = need;
	if ((p = realloc(*v, ncap * size)) == NULL)
		return -1;
	*v = p;
	*cap = ncap;
	return 0;
}
