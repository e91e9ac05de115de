/*
 * event.c - HAProxy's own non-request lines as event records, and the
 * dispatch to NGINX error-log lines (event_nginx.c).
 * See include/lbt/event.h.
 *
 * Texts seen from HAProxy 2.6 (log stdout format raw, run on loopback):
 *   Server be_app/app1 is DOWN, reason: Layer4 connection problem, ...
 *   Server be_app/app1 is DOWN. 1 active and 0 backup servers left. ...
 *   Server be_app/app1 is UP. 1 active and 0 backup servers online. ...
 *   Server be_app/app1 was DOWN and now enters maintenance.
 *   Server be_app/app1 is UP/READY (leaving forced maintenance).
 *   Health check for server be_app/app1 failed, reason: ..., status: 0/2 DOWN.
 *   Health check for server be_app/app1 succeeded, reason: ..., status: 2/2 UP.
 *   backend be_app has no server available!
 *   Paused frontend fe_http.            Resumed frontend fe_http.
 *   Scheduling a soft-stop in 300 ms.   Grace period expired, proceeding with soft-stop now.
 *   Proxy fe_http stopped (cumulated conns: FE: 1, BE: 0).
 * and on stderr the same behind "[WARNING]  (14481) : " (the "no server"
 * alert then quotes the name: backend 'be_app' has ...), with the
 * master's own notices on a reload (haproxy -W, SIGUSR2):
 *   [NOTICE]   (2295) : Reloading HAProxy
 *   [NOTICE]   (2295) : New worker (2349) forked
 *   [NOTICE]   (2295) : Loading success.
 *   [WARNING]  (2295) : Former worker (2301) exited with code 0 (Exit)
 *   [WARNING]  (2295) : Exiting Master process...
 *   [WARNING]  (2295) : All workers exited. Exiting... (0)
 * Older versions add "Proxy fe started.", "Stopping frontend fe in 0 ms.",
 * "Pausing proxy px.", "Backup Server be/s is DOWN", "Reexecuting Master
 * process" and "New worker #1 (12) forked".
 *
 * One const table of leading phrases says which names follow and which
 * kind of event it is (event.h).  A "Proxy X" line names a proxy that may
 * be a frontend, a backend or both (listen): both fields are set so that
 * either filter finds it.
 */
#include <string.h>

#include "event_int.h"
#include "lbt/event.h"
#include "lbt/num.h"

enum names {
	NAMES_NONE,       /* no proxy or server named */
	NAMES_SERVER,     /* "backend/server" follows */
	NAMES_FRONTEND,   /* a frontend name follows */
	NAMES_BACKEND,    /* a backend name follows */
	NAMES_PROXY,      /* a proxy name follows: frontend and backend */
	NAMES_NOSRV,      /* "backend NAME has no server available" */
	NAMES_LEVEL       /* "[WARNING] (pid) : " then another message */
};

struct phrase {
	const char *text;
	enum names names;
	const char *kind;          /* event kind (event.h); NULL: the inner message's */
};

static const struct phrase phrases[] = {
	{ "Server ", NAMES_SERVER, "server" },
	{ "Backup Server ", NAMES_SERVER, "server" },
	{ "Health check for server ", NAMES_SERVER, "server" },
	{ "Health check for backup server ", NAMES_SERVER, "server" },
	{ "Agent check for server ", NAMES_SERVER, "server" },
	{ "Agent check for backup server ", NAMES_SERVER, "server" },
	{ "backend ", NAMES_NOSRV, "nosrv" },
	{ "Proxy ", NAMES_PROXY, "reload" },
	{ "Stopping frontend ", NAMES_FRONTEND, "reload" },
	{ "Stopping backend ", NAMES_BACKEND, "reload" },
	{ "Stopping proxy ", NAMES_PROXY, "reload" },
	{ "Pausing frontend ", NAMES_FRONTEND, "reload" },
	{ "Pausing backend ", NAMES_BACKEND, "reload" },
	{ "Pausing proxy ", NAMES_PROXY, "reload" },
	{ "Paused frontend ", NAMES_FRONTEND, "reload" },
	{ "Paused proxy ", NAMES_PROXY, "reload" },
	{ "Resuming frontend ", NAMES_FRONTEND, "reload" },
	{ "Resuming proxy ", NAMES_PROXY, "reload" },
	{ "Resumed frontend ", NAMES_FRONTEND, "reload" },
	{ "Resumed proxy ", NAMES_PROXY, "reload" },
	{ "Scheduling a soft-stop", NAMES_NONE, "reload" },
	{ "Grace period expired", NAMES_NONE, "reload" },
	{ "Reexecuting Master process", NAMES_NONE, "reload" },
	{ "Reloading HAProxy", NAMES_NONE, "reload" },
	{ "Loading success.", NAMES_NONE, "reload" },
	{ "Loading failure!", NAMES_NONE, "reload" },
	{ "New worker ", NAMES_NONE, "reload" },
	{ "Former worker ", NAMES_NONE, "reload" },
	{ "Current worker ", NAMES_NONE, "reload" },
	{ "Exiting Master process", NAMES_NONE, "reload" },
	{ "All workers exited", NAMES_NONE, "reload" },
	{ "Failed to reexecute the master process", NAMES_NONE, "reload" },
	{ "[WARNING]", NAMES_LEVEL, "warn" },
	{ "[ALERT]", NAMES_LEVEL, "alert" },
	{ "[NOTICE]", NAMES_LEVEL, "notice" },
	{ "[DIAG]", NAMES_LEVEL, "diag" },
};

/* The names, kind and level found in a message. */
struct found {
	lbt_str frontend, backend, server;
	const char *kind, *level;
};

/* The phrase msg[0..len) starts with, or NULL. */
static const struct phrase *find_phrase(const char *msg, size_t len)
{
	for (size_t i = 0; i < sizeof phrases / sizeof phrases[0]; i++) {
		size_t n = strlen(phrases[i].text);

		if (len >= n && memcmp(msg, phrases[i].text, n) == 0)
			return &phrases[i];
	}
	return NULL;
}

/*
 * The name at p[0..len): up to a space, without quotes around it and
 * without a sentence's final '.' or '!' at the end of the message.
 */
static lbt_str name_at(const char *p, size_t len)
{
	const char *sp = memchr(p, ' ', len);
	size_t n = sp ? (size_t)(sp - p) : len;

	if (sp == NULL && n > 0 && (p[n - 1] == '.' || p[n - 1] == '!'))
		n--;
	if (n >= 2 && p[0] == '\'' && p[n - 1] == '\'') {
		p++;
		n -= 2;
	}
	return lbt_str_make(p, n);
}

/*
 * After "[LEVEL]": skip spaces, the "304/232401" date of 1.x versions,
 * "(pid)" and " : ".  @return offset of the inner message
 */
static size_t skip_level(const char *msg, size_t len, size_t pos)
{
	while (pos < len && msg[pos] == ' ')
		pos++;
	while (pos < len && ((msg[pos] >= '0' && msg[pos] <= '9') || msg[pos] == '/'))
		pos++;
	while (pos < len && msg[pos] == ' ')
		pos++;
	if (pos < len && msg[pos] == '(') {
		const char *close = memchr(msg + pos, ')', len - pos);

		if (close != NULL)
			pos = (size_t)(close - msg) + 1;
	}
	while (pos < len && msg[pos] == ' ')
		pos++;
	if (pos < len && msg[pos] == ':')
		pos++;
	while (pos < len && msg[pos] == ' ')
		pos++;
	return pos;
}

/* Split "backend/server" into f. @return 0, or -1 when it is not such a pair */
static int server_pair(lbt_str nm, struct found *f)
{
	const char *slash = memchr(nm.p, '/', nm.n);

	if (slash == NULL || slash == nm.p || slash == nm.p + nm.n - 1)
		return -1;
	f->backend = lbt_str_make(nm.p, (size_t)(slash - nm.p));
	f->server = lbt_str_make(slash + 1, nm.n - (size_t)(slash - nm.p) - 1);
	return 0;
}

/*
 * Recognise msg[0..len) and collect the names it carries into f; a
 * "[LEVEL] (pid) : " prefix is looked through once (depth 0 only).
 * @return 0 for an event line, -1 otherwise
 */
static int take_names(const char *msg, size_t len, int depth, struct found *f)
{
	const struct phrase *ph = find_phrase(msg, len);
	size_t off, rest;
	lbt_str nm;
	static const char nosrv[] = " has no server available";

	if (ph == NULL)
		return -1;
	off = strlen(ph->text);
	rest = len - off;
	nm = name_at(msg + off, rest);
	if (ph->names != NAMES_LEVEL)
		f->kind = ph->kind;
	switch (ph->names) {
	case NAMES_NONE:
		return 0;
	case NAMES_LEVEL:
		f->level = ph->kind;
		off = skip_level(msg, len, off);
		if (depth == 0 && take_names(msg + off, len - off, 1, f) < 0)
			f->kind = NULL;
		return 0;
	case NAMES_SERVER:
		return server_pair(nm, f);
	case NAMES_NOSRV:
		off = (size_t)(nm.p - msg) + nm.n + (nm.p[-1] == '\'');
		if (nm.n == 0 || len - off < sizeof nosrv - 1 ||
		    memcmp(msg + off, nosrv, sizeof nosrv - 1) != 0)
			return -1;
		f->backend = nm;
		return 0;
	default:
		break;
	}
	if (nm.n == 0)
		return -1;
	if (ph->names == NAMES_FRONTEND || ph->names == NAMES_PROXY)
		f->frontend = nm;
	if (ph->names == NAMES_BACKEND || ph->names == NAMES_PROXY)
		f->backend = nm;
	return 0;
}

/* The parts of a connection error line. */
struct conn_error {
	lbt_addr client;
	int32_t port;
	int64_t time_us;
	lbt_str frontend, text;
};

/*
 * Split "ADDR:PORT [DATE] FRONTEND/BIND: TEXT" (docs/formats.md,
 * "Connection errors"); the address is split on the last colon (IPv6 is
 * printed without brackets).
 * @return 0 and fill *c, or -1 when msg is not of that shape.
 */
static int conn_error_split(const char *msg, size_t len, lbt_tz *tz, struct conn_error *c)
{
	const char *end = msg + len, *sp, *colon, *close, *slash, *sep;

	if ((sp = memchr(msg, ' ', len)) == NULL ||
	    (colon = memrchr(msg, ':', (size_t)(sp - msg))) == NULL ||
	    lbt_addr_parse(msg, (size_t)(colon - msg), &c->client) < 0 ||
	    lbt_num_i32(colon + 1, (size_t)(sp - colon - 1), &c->port) < 0 ||
	    end - sp < 3 || sp[1] != '[' ||
	    (close = memchr(sp + 2, ']', (size_t)(end - sp - 2))) == NULL ||
	    lbt_time_parse_clf_local(sp + 2, (size_t)(close - sp - 2), tz, &c->time_us) < 0 ||
	    end - close < 2 || close[1] != ' ')
		return -1;
	slash = memchr(close + 2, '/', (size_t)(end - close - 2));
	sep = memmem(close + 2, (size_t)(end - close - 2), ": ", 2);
	if (slash == NULL || sep == NULL || slash > sep || slash == close + 2 ||
	    memchr(close + 2, ' ', (size_t)(sep - close - 2)) != NULL)
		return -1;
	c->frontend = lbt_str_make(close + 2, (size_t)(slash - close - 2));
	c->text = lbt_str_make(sep + 2, (size_t)(end - sep - 2));
	return 0;
}

/* Fill rec from a connection error line.  @return 0, or -1 if it is not one. */
static int conn_error_parse(const char *msg, size_t len, lbt_tz *tz, lbt_rec *rec)
{
	struct conn_error c;

	if (conn_error_split(msg, len, tz, &c) < 0)
		return -1;
	rec->kind = LBT_KIND_EVENT;
	rec->clock = LBT_CLOCK_ACCEPT;
	rec->time_us = c.time_us;
	rec->client = c.client;
	rec->port = c.port;
	rec->msg = c.text;
	rec->have |= LBT_BIT(LBT_F_TIME) | LBT_BIT(LBT_F_CLIENT) | LBT_BIT(LBT_F_PORT) |
	    LBT_BIT(LBT_F_MSG);
	lbt_eventi_put(rec, LBT_F_FRONTEND, c.frontend);
	lbt_eventi_put(rec, LBT_F_EVENT, lbt_eventi_name("conn_error"));
	return 0;
}

/*
 * Recognise an event message (wrapper removed): HAProxy's own lines, or an
 * NGINX error-log line.  On success set kind EVENT, msg (the whole
 * message, or a connection error's text), the event kind, the level and
 * the names present.  @return 0 for an event line, -1 otherwise (rec
 * untouched)
 */
int lbt_event_parse(const char *msg, size_t len, lbt_tz *tz, lbt_rec *rec)
{
	struct found f = { LBT_STR_NULL, LBT_STR_NULL, LBT_STR_NULL, NULL, NULL };

	if (len == 0)
		return -1;
	if (msg[0] >= '0' && msg[0] <= '9' && lbt_eventi_nginx_like(msg, len))
		return lbt_eventi_nginx_parse(msg, len, tz, rec);
	if (take_names(msg, len, 0, &f) < 0)
		return conn_error_parse(msg, len, tz, rec);
	rec->kind = LBT_KIND_EVENT;
	rec->msg = lbt_str_make(msg, len);
	rec->have |= LBT_BIT(LBT_F_MSG);
	lbt_eventi_put(rec, LBT_F_FRONTEND, f.frontend);
	lbt_eventi_put(rec, LBT_F_BACKEND, f.backend);
	lbt_eventi_put(rec, LBT_F_SERVER, f.server);
	lbt_eventi_put(rec, LBT_F_EVENT, lbt_eventi_name(f.kind ? f.kind : "other"));
	lbt_eventi_put(rec, LBT_F_LEVEL, lbt_eventi_name(f.level));
	return 0;
}
