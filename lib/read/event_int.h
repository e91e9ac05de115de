/*
 * event_int.h - what lib/read/event*.c share; never installed.
 *
 *   event.c         the public face: HAProxy's own lines, the dispatch
 *   event_nginx.c   NGINX error-log lines
 *
 * event.c calls event_nginx.c for a line that starts like an NGINX error
 * log ("2026/11/30 07:49:57 [error] ..."); event_nginx.c calls nothing
 * back.  Both fill only the fields a line carries, through the two
 * one-line helpers below (inline here, so that neither file calls the
 * other for them).
 */
#ifndef LBT_EVENT_INT_H
#define LBT_EVENT_INT_H

#include <stddef.h>
#include <string.h>

#include "lbt/rec.h"
#include "lbt/timeparse.h"

/* Set string field `fld` of rec to s when s is not empty. */
static inline void lbt_eventi_put(lbt_rec *rec, lbt_field fld, lbt_str s)
{
	if (s.n == 0)
		return;
	*lbt_rec_str(rec, fld) = s;
	rec->have |= LBT_BIT(fld);
}

/* A static name (the event kind, the level) as a string view (NULL: empty,
 * which lbt_eventi_put skips). */
static inline lbt_str lbt_eventi_name(const char *name)
{
	return name ? lbt_str_make(name, strlen(name)) : lbt_str_make("", 0);
}

/*
 * True when msg[0..len) starts like an NGINX error-log line:
 * "YYYY/MM/DD HH:MM:SS [".
 */
int lbt_eventi_nginx_like(const char *msg, size_t len);

/*
 * Fill rec from an NGINX error-log line (its stamp read in tz, NULL: UTC).
 * @return 0, or -1 when the line is not of that shape (rec untouched).
 */
int lbt_eventi_nginx_parse(const char *msg, size_t len, lbt_tz *tz, lbt_rec *rec);

#endif
