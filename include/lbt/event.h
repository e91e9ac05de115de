/*
 * event.h - HAProxy's own non-request lines, as event records.
 *
 * "Server be_app/app1 is DOWN, reason: ...", "Proxy fe_http stopped (...)",
 * "Proxy fe started.", "backend be_app has no server available!", alerts and
 * warnings: the timeline needs them, so they are records of kind
 * LBT_KIND_EVENT with the text in `msg` (and frontend/backend/server when the
 * line names them), not malformed lines.
 *
 * So is the connection error line (log-formats.md §1.8), logged for a
 * connection that failed before any request (TLS handshake, PROXY header):
 * "203.0.113.99:60642 [30/Nov/2026:07:49:57.594] fe_https/1: SSL handshake
 * failure" gives client, port, accept time, frontend and msg (the text after
 * "bind: ").
 * Includes: rec.h, timeparse.h.
 */
#ifndef LBT_EVENT_H
#define LBT_EVENT_H

#include <stddef.h>

#include "lbt/rec.h"
#include "lbt/timeparse.h"

/*
 * Recognise an event message (wrapper removed).  Fills kind, msg and the
 * proxy/server names it carries; a connection error line also gives the
 * client and its accept time, read in `tz` (NULL: UTC).  Other events leave
 * time and lb to the caller.
 * @return 0 when it is an event line, -1 otherwise (rec untouched).
 */
int lbt_event_parse(const char *msg, size_t len, lbt_tz *tz, lbt_rec *rec);

#endif
