/*
 * reqline.c - request lines and URIs split into record parts.
 * See include/lbt/reqline.h.
 *
 * The shape test is what tells a request from junk, so it is strict where
 * junk is common (the method: a short token; without a version only
 * "GET /x"-like lines) and lenient where servers log real requests oddly
 * (spaces inside the URI of a line that ends in "HTTP/1.1", which NGINX
 * answers with 400 but logs whole).
 */
#include <string.h>

#include "lbt/reqline.h"

/* True when s[0..n) is an HTTP token (RFC 9110 tchar), as a method must be. */
static int is_token(const char *s, size_t n)
{
	static const char extra[] = "!#$%&'*+-.^_`|~";

	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];

		if (!((ch | 0x20) >= 'a' && (ch | 0x20) <= 'z') && !(ch >= '0' && ch <= '9') &&
		    (ch == '\0' || strchr(extra, ch) == NULL))
			return 0;
	}
	return n > 0;
}

/* Length of "scheme://" at the start of s[0..n), or 0. */
static size_t scheme_len(const char *s, size_t n)
{
	size_t i = 0;

	if (n == 0 || !((s[0] | 0x20) >= 'a' && (s[0] | 0x20) <= 'z'))
		return 0;
	while (i < n && (((s[i] | 0x20) >= 'a' && (s[i] | 0x20) <= 'z') ||
	    (s[i] >= '0' && s[i] <= '9') || s[i] == '+' || s[i] == '-' || s[i] == '.'))
		i++;
	if (n - i >= 3 && memcmp(s + i, "://", 3) == 0)
		return i + 3;
	return 0;
}

/* True when a version-less URI word u[0..n) looks like one ("/x", "*", "http://h/x"). */
static int bare_uri(const char *u, size_t n)
{
	return n > 0 && (u[0] == '/' || (u[0] == '*' && n == 1) || scheme_len(u, n) > 0);
}

/* Split a request line; see reqline.h.  @return 0, or -1 for junk */
int lbt_reqline_split(const char *s, size_t n, lbt_reqline *r)
{
	const char *sp = memchr(s, ' ', n), *e = s + n, *u, *last;
	size_t ml = sp ? (size_t)(sp - s) : 0;

	if (sp == NULL || ml > LBT_REQLINE_METHOD_MAX || !is_token(s, ml))
		return -1;
	for (u = sp; u < e && *u == ' '; u++)
		;
	/* "HTTP/1.1" and "HTTP/2.0" end most lines: no search through the URI */
	last = n >= 9 && s[n - 9] == ' ' && s + n - 9 >= u ? s + n - 9 :
	    memrchr(u, ' ', (size_t)(e - u));
	if (last != NULL && e - last > 5 && memcmp(last + 1, "HTTP/", 5) == 0) {
		r->version = lbt_str_make(last + 1, (size_t)(e - last - 1));
		while (last > u && last[-1] == ' ')
			last--;
		e = last;
	} else if (last != NULL || !bare_uri(u, (size_t)(e - u))) {
		return -1;
	} else {
		r->version = lbt_str_make("", 0);
	}
	r->method = lbt_str_make(s, ml);
	r->uri = lbt_str_make(u, (size_t)(e - u));
	return 0;
}

/* True for a CONNECT whose URI is an authority (no '/', no scheme); see reqline.h. */
int lbt_reqline_authority(const lbt_reqline *r)
{
	const lbt_str *u = &r->uri;

	return r->method.n == 7 && memcmp(r->method.p, "CONNECT", 7) == 0 && u->n > 0 &&
	    u->p[0] != '/' && memchr(u->p, '/', u->n) == NULL;
}

/* Split a URI into host, path and query; see reqline.h. */
void lbt_uri_split(const char *s, size_t n, int noquery, lbt_uri *u)
{
	size_t sl = scheme_len(s, n), i;
	const char *q;

	u->host = lbt_str_make("", 0);
	u->query = lbt_str_make("", 0);
	u->has_query = 0;
	if (sl > 0) {
		const char *a = s + sl, *e = s + n, *at;

		for (i = 0; a + i < e && a[i] != '/' && a[i] != '?'; i++)
			;
		at = memchr(a, '@', i);
		u->host = at ? lbt_str_make(at + 1, (size_t)(a + i - at - 1)) : lbt_str_make(a, i);
		n = (size_t)(e - (a + i));
		s = a + i;
	}
	q = noquery ? NULL : memchr(s, '?', n);
	if (q != NULL) {
		u->query = lbt_str_make(q + 1, (size_t)(s + n - q - 1));
		u->has_query = 1;
		n = (size_t)(q - s);
	}
	u->path = (n == 0 && sl > 0) ? lbt_str_make("/", 1) : lbt_str_make(s, n);
}
