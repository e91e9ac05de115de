/*
 * event_int.h - what lib/read/event*.c share; never installed.
 *
 *   event.c         the public face: HAProxy's own lines, the dispatch
 *   event_nginx.c   NGINX error-log lines
 *
 * event.c calls event_nginx.c for a line that starts like an NGINX error
 * log ("2026/11/30 07:49:57 [error] ..."); event_nginx.c calls nothing
 * back.  Both fill only the fields a line carries.
 */
#ifndef LBT_EVENT_INT_H
#define LBT_EVENT_INT_H

#include <stddef.h>

#include "lbt/rec.h"
#include "lbt/timeparse.h"

/* Set string field `fld` of rec to s when s is not empty. */
void lbt_eventi_put(lbt_rec *rec, lbt_field fld, lbt_str s);

/* The event kind / level name as a static string. */
lbt_str lbt_eventi_name(const char *name);

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
