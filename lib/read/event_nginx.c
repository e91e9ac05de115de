/*
 * event_nginx.c - NGINX error-log lines as event records.
 * See include/lbt/event.h and lib/read/event_int.h.
 *
 * Shape (docs/formats.md, "NGINX error log"; NGINX 1.22, tests/data/real):
 *   YYYY/MM/DD HH:MM:SS [level] PID#TID: [*CONN ]text[, client: A]
 *   [, server: S][, request: "R"][, subrequest: "U"][, upstream: "U"]
 *   [, host: "H"][, referrer: "F"]
 * The stamp is local time without a zone (read in --log-tz).  The context
 * list comes in that order; its quoted values are not escaped (a raw '"'
 * may sit inside a request), so a quoted value ends at the quote that is
 * followed by the next known key or by the end of the line.
 *
 * The kind comes from the text before the context: "limiting requests" and
 * "delaying request" are limit_req, "limiting connections" limit_conn, any
 * mention of an upstream is upstream, "client ..." is client, the master's
 * and workers' life (signals, reconfiguring, exiting, start worker
 * process, startup notices) is reload, the rest other.
 */
#include <string.h>

#include "event_int.h"
#include "lbt/addr.h"
#include "lbt/reqline.h"

/* True for an ASCII digit. */
static int dig(char c)
{
	return c >= '0' && c <= '9';
}

/* Value of the n digits at p (all checked by the caller). */
static int num(const char *p, int n)
{
	int v = 0;

	for (int i = 0; i < n; i++)
		v = v * 10 + (p[i] - '0');
	return v;
}

/* True when msg starts with "YYYY/MM/DD HH:MM:SS [". */
int lbt_eventi_nginx_like(const char *m, size_t len)
{
	static const char shape[] = "dddd/dd/dd dd:dd:dd [";

	if (len < sizeof shape - 1 + 2)
		return 0;
	for (size_t i = 0; i < sizeof shape - 1; i++)
		if (shape[i] == 'd' ? !dig(m[i]) : m[i] != shape[i])
			return 0;
	return 1;
}

/* Days in month mo of year y. */
static int month_days(int y, int mo)
{
	static const int d[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;

	return d[mo - 1] + (mo == 2 && leap);
}

/* The stamp at m (shape checked) in tz.  @return 0 with *us, or -1 (no such date) */
static int stamp(const char *m, lbt_tz *tz, int64_t *us)
{
	int y = num(m, 4), mo = num(m + 5, 2), d = num(m + 8, 2);
	int h = num(m + 11, 2), mi = num(m + 14, 2), s = num(m + 17, 2);

	if (mo < 1 || mo > 12 || d < 1 || d > month_days(y, mo) || h > 23 || mi > 59 || s > 60)
		return -1;
	*us = lbt_tz_to_utc(tz, y, mo, d, h, mi, s) * 1000000;
	return 0;
}

/* The level word p[0..n) as a static name, or NULL when NGINX has no such level. */
static const char *level_name(const char *p, size_t n)
{
	static const char *const levels[] = { "debug", "info", "notice", "warn", "error",
		"crit", "alert", "emerg" };

	for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++)
		if (strlen(levels[i]) == n && memcmp(levels[i], p, n) == 0)
			return levels[i];
	return NULL;
}

/*
 * Offset of the text after "[level] PID#TID: [*CONN ]" (at pos, just after
 * '['), with *level set.  @return the offset, or 0 when the line is not
 * of that shape
 */
static size_t after_prefix(const char *m, size_t len, size_t pos, const char **level)
{
	const char *close = memchr(m + pos, ']', len - pos);
	size_t i;

	if (close == NULL || (*level = level_name(m + pos, (size_t)(close - m) - pos)) == NULL)
		return 0;
	i = (size_t)(close - m) + 1;
	if (i >= len || m[i++] != ' ' || i >= len || !dig(m[i]))
		return 0;
	while (i < len && dig(m[i]))
		i++;
	if (i >= len || m[i++] != '#')
		return 0;
	while (i < len && dig(m[i]))
		i++;
	if (len - i < 2 || m[i] != ':' || m[i + 1] != ' ')
		return 0;
	i += 2;
	if (i < len && m[i] == '*' && i + 1 < len && dig(m[i + 1])) {
		for (i++; i < len && dig(m[i]); i++)
			;
		i += i < len && m[i] == ' ';
	}
	return i;
}

/* The context keys, in NGINX's order (ngx_http_log_error). */
static const char *const ctx_keys[] = { "client", "server", "request", "subrequest",
	"upstream", "host", "referrer" };
#define NKEYS (sizeof ctx_keys / sizeof ctx_keys[0])

/* Index of the context key "KEY: " at p[0..n) (after ", "), or -1. */
static int key_at(const char *p, size_t n)
{
	for (size_t k = 0; k < NKEYS; k++) {
		size_t kl = strlen(ctx_keys[k]);

		if (n >= kl + 2 && memcmp(p, ctx_keys[k], kl) == 0 && p[kl] == ':' && p[kl + 1] == ' ')
			return (int)k;
	}
	return -1;
}

/*
 * End of a quoted value opened before v: the quote followed by the end of
 * the line or by ", KEY: " of a known key; failing that (the stream
 * module's ", bytes from/to ..." follows its upstream) the first quote
 * followed by ", "; failing that len.
 */
static size_t quoted_end(const char *m, size_t len, size_t v)
{
	for (size_t q = v; q < len; q++) {
		if (m[q] != '"')
			continue;
		if (q + 1 == len || (len - q > 3 && m[q + 1] == ',' && m[q + 2] == ' ' &&
		    key_at(m + q + 3, len - q - 3) >= 0))
			return q;
	}
	for (size_t q = v; q + 2 < len; q++)
		if (m[q] == '"' && m[q + 1] == ',' && m[q + 2] == ' ')
			return q;
	return len;
}

/*
 * Server field from an upstream value: the authority of "http://a:p/x", a
 * unix socket whole ("fastcgi://unix:/run/php-fpm.sock:" and
 * "http://unix:/run/app.sock:/x" give "unix:/run/php-fpm.sock", as
 * $upstream_addr logs it, not "unix:"), or the value.
 */
static lbt_str upstream_server(const char *s, size_t n)
{
	const char *sep = n > 3 ? memmem(s, n, "://", 3) : NULL;
	lbt_uri u;

	if (sep != NULL && (size_t)(s + n - (sep + 3)) > 5 && memcmp(sep + 3, "unix:", 5) == 0) {
		const char *a = sep + 3, *e = memchr(a + 5, ':', (size_t)(s + n - (a + 5)));

		return lbt_str_make(a, (size_t)((e ? e : s + n) - a));
	}
	lbt_uri_split(s, n, 0, &u);
	return u.host.n > 0 ? u.host : lbt_str_make(s, n);
}

/* The request "R" of the context into method, path, query, version (or request). */
static void put_request(lbt_rec *rec, const char *s, size_t n)
{
	lbt_reqline r;
	lbt_uri u;

	if (lbt_reqline_split(s, n, &r) < 0) {
		lbt_eventi_put(rec, LBT_F_REQUEST, lbt_str_make(s, n));
		return;
	}
	lbt_eventi_put(rec, LBT_F_METHOD, r.method);
	lbt_eventi_put(rec, LBT_F_VERSION, r.version);
	if (lbt_reqline_authority(&r)) {       /* CONNECT host:port */
		lbt_eventi_put(rec, LBT_F_HOST, r.uri);
		return;
	}
	lbt_uri_split(r.uri.p, r.uri.n, 0, &u);
	lbt_eventi_put(rec, LBT_F_PATH, u.path);
	lbt_eventi_put(rec, LBT_F_QUERY, u.query);
	lbt_eventi_put(rec, LBT_F_HOST, u.host);
}

/* One context value of key k into rec. */
static void put_context(lbt_rec *rec, int k, const char *s, size_t n)
{
	switch (k) {
	case 0:
		if (lbt_addr_parse(s, n, &rec->client) == 0)
			rec->have |= LBT_BIT(LBT_F_CLIENT);
		break;
	case 1:
		lbt_eventi_put(rec, LBT_F_FRONTEND, lbt_str_make(s, n));
		break;
	case 2:
		put_request(rec, s, n);
		break;
	case 4:
		lbt_eventi_put(rec, LBT_F_SERVER, upstream_server(s, n));
		break;
	case 5:
		lbt_eventi_put(rec, LBT_F_HOST, lbt_str_make(s, n));
		break;
	default:
		break;
	}
}

/*
 * The context list at m[pos..len) (pos on its ", client: "), value by
 * value into rec, up to the end or an unknown key.  @return 1 when an
 * upstream was named
 */
static int context(const char *m, size_t len, size_t pos, lbt_rec *rec)
{
	int upstream = 0;

	while (len - pos > 2 && m[pos] == ',' && m[pos + 1] == ' ') {
		int k = key_at(m + pos + 2, len - pos - 2);
		size_t v, e;

		if (k < 0)
			break;
		v = pos + 2 + strlen(ctx_keys[k]) + 2;
		if (v < len && m[v] == '"') {
			e = quoted_end(m, len, ++v);
			pos = e < len ? e + 1 : len;
		} else {
			const char *c = memmem(m + v, len - v, ", ", 2);

			e = c ? (size_t)(c - m) : len;
			pos = e;
		}
		upstream |= k == 4;
		put_context(rec, k, m + v, e - v);
	}
	return upstream;
}

/* True when t[0..n) starts with the NUL-terminated p. */
static int starts(const char *t, size_t n, const char *p)
{
	size_t pl = strlen(p);

	return n >= pl && memcmp(t, p, pl) == 0;
}

/* The kind of the text t[0..n) before the context (see the top of the file). */
static const char *kind_of(const char *t, size_t n, int upstream)
{
	static const char *const life[] = { "signal ", "reconfiguring", "gracefully shutting down",
		"exiting", "start worker process", "worker process ", "start cache ",
		"cache manager process", "cache loader process", "reopening logs", "using the ",
		"nginx/", "OS: ", "getrlimit(", "changing binary", "start binary", "shutting down" };

	if (starts(t, n, "limiting requests") || starts(t, n, "delaying request"))
		return "limit_req";
	if (starts(t, n, "limiting connections"))
		return "limit_conn";
	if (upstream || starts(t, n, "upstream") || memmem(t, n, " upstream", 9) != NULL)
		return "upstream";      /* not "proxy_upstream_name" in a variable warning */
	if (starts(t, n, "client "))
		return "client";
	if (n == 4 && memcmp(t, "exit", 4) == 0)
		return "reload";
	for (size_t i = 0; i < sizeof life / sizeof life[0]; i++)
		if (starts(t, n, life[i]))
			return "reload";
	return "other";
}

/* Fill rec from an NGINX error-log line; see event_int.h.  @return 0 or -1 */
int lbt_eventi_nginx_parse(const char *m, size_t len, lbt_tz *tz, lbt_rec *rec)
{
	const char *level, *cl;
	size_t text, tend;
	int64_t us;
	int up;

	if (!lbt_eventi_nginx_like(m, len) || stamp(m, tz, &us) < 0 ||
	    (text = after_prefix(m, len, 21, &level)) == 0)
		return -1;
	cl = memmem(m + text, len - text, ", client: ", 10);
	tend = cl ? (size_t)(cl - m) : len;
	rec->kind = LBT_KIND_EVENT;
	rec->time_us = us;
	rec->clock = LBT_CLOCK_END;
	rec->msg = lbt_str_make(m, len);
	rec->have |= LBT_BIT(LBT_F_TIME) | LBT_BIT(LBT_F_MSG);
	up = cl ? context(m, len, tend, rec) : 0;
	lbt_eventi_put(rec, LBT_F_LEVEL, lbt_eventi_name(level));
	lbt_eventi_put(rec, LBT_F_EVENT, lbt_eventi_name(kind_of(m + text, tend - text, up)));
	return 0;
}
