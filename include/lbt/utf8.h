/*
 * utf8.h - the two UTF-8 facts several modules need: how long a valid
 * sequence is (JSON output, table widths, NGINX JSON input) and how a code
 * point is written (JSON and NGINX \u escapes decoded).  Leaf module.
 */
#ifndef LBT_UTF8_H
#define LBT_UTF8_H

#include <stddef.h>

/*
 * Length of the valid UTF-8 sequence starting at p[0..n): 1 for ASCII, 2
 * to 4 for a well-formed multibyte sequence, 0 when p[0] does not start
 * one (overlong forms, surrogates, code points above U+10FFFF, cut short).
 * n must be at least 1.
 */
size_t lbt_utf8_len(const unsigned char *p, size_t n);

/* Write code point cp (<= 0x10FFFF, not a surrogate) at w.  @return bytes (1..4) */
size_t lbt_utf8_put(char *w, unsigned long cp);

#endif
