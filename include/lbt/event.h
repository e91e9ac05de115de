/*
 * event.h - HAProxy's own non-request lines, as event records.
 *
 * "Server be_app/app1 is DOWN, reason: ...", "Proxy fe_http stopped (...)",
 * "Proxy fe started.", "backend be_app has no server available!", alerts and
 * warnings: the timeline needs them, so they are records of kind
 * LBT_KIND_EVENT with the text in `msg` (and frontend/backend/server when the
 * line names them), not malformed lines.
 * Includes: rec.h.
 */
#ifndef LBT_EVENT_H
#define LBT_EVENT_H

#include <stddef.h>

#include "lbt/rec.h"

/*
 * Recognise an event message (wrapper removed).  Fills kind, msg and the
 * proxy/server names it carries; leaves time and lb to the caller.
 * @return 0 when it is an event line, -1 otherwise (rec untouched).
 */
int lbt_event_parse(const char *msg, size_t len, lbt_rec *rec);

#endif
