/*
 * event.h - the servers' own non-request lines, as event records.
 *
 * "Server be_app/app1 is DOWN, reason: ...", "Proxy fe_http stopped (...)",
 * "Proxy fe started.", "backend be_app has no server available!", alerts and
 * warnings: the timeline needs them, so they are records of kind
 * LBT_KIND_EVENT with the text in `msg` (and frontend/backend/server when the
 * line names them), not malformed lines.
 *
 * So is the connection error line (docs/formats.md, "Connection errors"), logged for a
 * connection that failed before any request (TLS handshake, PROXY header):
 * "203.0.113.99:60642 [30/Nov/2026:07:49:57.594] fe_https/1: SSL handshake
 * failure" gives client, port, accept time, frontend and msg (the text after
 * "bind: ").
 *
 * And so is every NGINX error-log line (docs/formats.md, "NGINX error log"):
 * "2026/11/30 07:49:57 [error] 29852#29852: *276 limiting requests, excess:
 * 3.916 by zone "lim", client: 198.51.100.66, server: hc-ping.com, request:
 * "GET /limited/x HTTP/1.1", host: "hc-ping.com"" gives its time (local,
 * read in `tz`, clock END: the line was written then), level, client,
 * frontend (server:), method, path, query, version (request:, or the
 * request field when it is junk), server (the authority of upstream:),
 * host, and msg (the whole message).
 *
 * Every event record has an `event` field, its kind:
 *   server      a server's state or health check (HAProxy)
 *   nosrv       a backend has no server available (HAProxy)
 *   reload      a start, stop or reload: HAProxy "Proxy X stopped",
 *               "Stopping frontend", soft-stop, pause/resume, the master's
 *               "Reloading HAProxy", "Loading success.", "New worker ...
 *               forked", "Reexecuting Master process"; NGINX signals,
 *               "reconfiguring", "gracefully shutting down", worker starts
 *               and exits, startup notices
 *   conn_error  a connection that failed before any request (HAProxy)
 *   limit_req   NGINX limit_req: "limiting requests", "delaying request"
 *   limit_conn  NGINX limit_conn: "limiting connections"
 *   upstream    NGINX about an upstream: timed out, connect() failed, no
 *               live upstreams, prematurely closed ...
 *   client      NGINX about a client: sent invalid request, timed out,
 *               closed connection ...
 *   other       anything else
 * and a `level` when the line says one: NGINX's word (debug info notice
 * warn error crit alert emerg), or HAProxy's "[WARNING]" (warn), "[ALERT]"
 * (alert), "[NOTICE]" (notice), "[DIAG]" (diag).  Both are static strings.
 * Includes: rec.h, timeparse.h.
 */
#ifndef LBT_EVENT_H
#define LBT_EVENT_H

#include <stddef.h>

#include "lbt/rec.h"
#include "lbt/timeparse.h"

/*
 * Recognise an event message (wrapper removed).  Fills kind, msg, event,
 * level and the proxy/server names it carries; a connection error line
 * also gives the client and its accept time, an NGINX error line its time
 * and context (above), both read in `tz` (NULL: UTC).  Other events leave
 * time and lb to the caller.
 * @return 0 when it is an event line, -1 otherwise (rec untouched).
 */
int lbt_event_parse(const char *msg, size_t len, lbt_tz *tz, lbt_rec *rec);

#endif
