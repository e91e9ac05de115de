/*
 * place.h - where in a haproxy.cfg a new rule acts: the frontend it
 * belongs to and the line it must precede (docs/placement.md).
 *
 * HAProxy runs a frontend's rules by kind, tcp-request connection, then
 * tcp-request content, then http-request, and the rules of one kind in
 * file order; the first that answers (deny, tarpit, return, redirect,
 * reject, ...) ends the evaluation.  A deny appended below the frontend's
 * tarpit passes `haproxy -c` and never runs for the requests the tarpit
 * takes.  So the rule goes above the first rule of its kind that could
 * answer first, or that feeds those (track-sc); never into a backend or
 * defaults section, where a frontend's requests do not see it.
 *
 * Includes: hacfg.h, err.h.
 */
#ifndef LBT_PLACE_H
#define LBT_PLACE_H

#include <stdint.h>
#include <stdio.h>

#include "lbt/err.h"
#include "lbt/hacfg.h"

/* The kind of rule to place. */
typedef enum lbt_place_kind {
	LBT_PLACE_HTTP,           /* an http-request rule (deny, tarpit, silent-drop, track-sc) */
	LBT_PLACE_TCP_CONN        /* a tcp-request connection rule (reject) */
} lbt_place_kind;

/* Where the rule goes. */
typedef struct lbt_place {
	const lbt_hacfg_sect *sect;  /* the frontend or listen section */
	uint64_t line;            /* the rule's lines go above this line (1-based) ... */
	int after;                /* ... or below it, when 1 (nothing to precede) */
	char what[192];           /* "fe_http's first http-request track-sc0" */
	uint64_t late_src;        /* a rule below the place that rewrites src (set-src,
	                             expect-proxy): the new rule sees the address before
	                             it; 0 when none */
	uint64_t shadow;          /* NGINX: a line where the rule does not act (a
	                             location with allow/deny of its own, a return that
	                             answers first); 0 when none */
	char shadow_why[96];      /* what that line is */
} lbt_place;

/*
 * Find where a rule of kind k goes in frontend `frontend` of c (NULL: the
 * only frontend or listen section).  @return 0, or -1 with err (no such
 * frontend, naming the ones there are; several and none named).
 */
int lbt_place_find(const lbt_hacfg *c, const char *frontend, lbt_place_kind k,
    lbt_place *p, lbt_err *err);

/*
 * NGINX: where `deny NET;` lines go in the nginx.conf at path (its includes
 * not followed): in the server block of the http block whose server_name
 * names `server` (NULL: the only server block), above its first allow or
 * deny (the first that matches wins), else above its first directive.
 * @return 0, or -1 with err (unreadable, unbalanced braces, no such
 * server, several and none named, a first directive on the `server {`
 * line).
 */
int lbt_place_nginx(const char *path, const char *server, lbt_place *p, lbt_err *err);

/*
 * Copy the file at path to out with text[0..len) (whole lines) put where
 * p says, and tail[0..tail_len) (sections of their own, may be empty)
 * appended at the end after a blank line.
 * @return 0, or -1 with err (unreadable, the place's line not in it).
 */
int lbt_place_splice(const char *path, const lbt_place *p, const char *text, size_t len,
    const char *tail, size_t tail_len, FILE *out, lbt_err *err);

#endif
