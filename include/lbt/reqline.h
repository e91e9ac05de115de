/*
 * reqline.h - an HTTP request line and a URI, split into the parts a
 * record keeps.  Shared by the format converters (HAProxy %r, NGINX
 * $request) and the NGINX error-log events (request: "...").
 *
 * A request line is "METHOD URI VERSION", or "METHOD URI" (HTTP/0.9, or a
 * line cut by the logger inside the URI).  Anything else is junk that a
 * server logged as it came: "HELP", "HELLO WORLD", TLS bytes on a plain
 * port, HAProxy's "<BADREQ>", several words without "HTTP/x.y"; such a
 * line is not split (the caller keeps it whole, see LBT_F_REQUEST).
 * Views only: nothing is copied or allocated.
 * Includes: str.h.
 */
#ifndef LBT_REQLINE_H
#define LBT_REQLINE_H

#include <stddef.h>

#include "lbt/str.h"

#define LBT_REQLINE_METHOD_MAX 24   /* longer first words are no method */

typedef struct lbt_reqline {
	lbt_str method, uri, version;   /* version empty when the line has none */
} lbt_reqline;

typedef struct lbt_uri {
	lbt_str host;    /* absolute form only ("http://h:80/x" gives "h:80"), else empty */
	lbt_str path;    /* "/" for an absolute URI without a path; may be empty */
	lbt_str query;   /* after the first '?', without it; empty when none */
	int has_query;   /* a '?' was there (the query may still be empty) */
} lbt_uri;

/*
 * Split s[0..n) (already unescaped).  A request is: a method (an RFC 9110
 * token of at most LBT_REQLINE_METHOD_MAX bytes), spaces, then either a URI
 * and a last word starting with "HTTP/" (the URI may hold spaces), or a
 * single URI word that starts with '/' or '*' or is absolute
 * ("scheme://...").  @return 0 with *r, or -1 when s is junk (r untouched).
 */
int lbt_reqline_split(const char *s, size_t n, lbt_reqline *r);

/*
 * True when r is a CONNECT to an authority ("CONNECT www.example.net:443
 * HTTP/1.1", RFC 9110 9.3.6): its URI is the host and port the client
 * asked a tunnel to, the record's host, and the request has no path.
 */
int lbt_reqline_authority(const lbt_reqline *r);

/*
 * Split a URI: the host of an absolute URI (user info dropped), the path
 * and the query.  With `noquery` a '?' belongs to the path (NGINX $uri is
 * decoded and has no query).
 */
void lbt_uri_split(const char *s, size_t n, int noquery, lbt_uri *u);

#endif
