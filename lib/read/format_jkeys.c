/*
 * format_jkeys.c - the json dialect: JSON lines without a template, each
 * member mapped by its name.
 *
 * The names are those that NGINX log_format authors (escape=json, the
 * variable names, often as they are), HAProxy %{+json}o and hand-written
 * JSON log-formats (client_ip, frontend_name, status_code ...) and log
 * shippers (ECS-like nested objects, read as dotted names: "source.ip",
 * "http.request.method") use for the fields lbt keeps.  Names without a
 * field (remote_user, http_referer, request_length ...) are known too: they
 * count as found keys when detection ranks the formats (a line with more
 * known names is more surely of this shape).
 *
 * A few names mean different things to different writers: "server_name"
 * is NGINX's server block (the frontend) but the HAProxy server in most
 * hand-made HAProxy formats, "upstream_connect_time" seconds for NGINX but
 * %Tc milliseconds in HAProxy ones.  Such a name has two entries (JF_NGINX,
 * JF_HAPROXY); the reader takes the HAProxy one when the line also has a
 * name only HAProxy logs (JF_MARK: termination_state, frontend_name, the
 * timers ...).  Times take any shape (TM_ANY), since shippers rewrite them.
 *
 * The table compiles into f->keys sorted by name (lbt_fmti_jkeys_find is a
 * binary search); format_json.c walks each line's members and looks them up.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format_int.h"

/* One name: what its value is. */
struct jkey {
	const char *name;
	uint8_t kind, field, clock, tfmt, rank;
	uint16_t flags;
	uint8_t jflav;
};

#define T(n, ck, tf, rk) { n, K_TIME, 0, ck, tf, rk, 0, 0 }
#define CLIENT(n, rk, fl) { n, K_CLIENT, 0, 0, 0, rk, fl, 0 }
#define S(n, f, rk, jf) { n, K_STR, f, 0, 0, rk, 0, jf }
#define I(n, f, jf) { n, K_I32, f, 0, 0, 2, 0, jf }
#define SEC(n, f, rk, fl, jf) { n, K_SEC_MS, f, 0, 0, rk, fl, jf }
#define KIND(n, k, rk, fl) { n, k, 0, 0, 0, rk, fl, 0 }
#define OPQ(n) { n, K_OPAQUE, 0, 0, 0, 0, 0, 0 }
#define HAP JF_MARK

static const struct jkey jkeys[] = {
	T("@timestamp", LBT_CLOCK_END, TM_ANY, 1),
	T("accept_date", LBT_CLOCK_ACCEPT, TM_ANY, 2),
	I("actconn", LBT_F_AC, HAP), I("ac", LBT_F_AC, HAP),
	KIND("args", K_QUERY, 1, 0),
	S("backend", LBT_F_BACKEND, 2, 0), S("backend_name", LBT_F_BACKEND, 2, HAP),
	I("backend_queue", LBT_F_BQ, HAP), I("beconn", LBT_F_BC, HAP), I("bq", LBT_F_BQ, HAP),
	I("bc", LBT_F_BC, HAP),
	KIND("body_bytes_sent", K_BYTES, 2, 0), KIND("bytes", K_BYTES, 1, 0),
	KIND("bytes_read", K_BYTES, 2, HAP), KIND("bytes_sent", K_BYTES, 1, 0),
	KIND("captured_request_headers", K_CAPLIST, 2, HAP),
	CLIENT("client", 2, 0), CLIENT("client.address", 2, 0), CLIENT("client.ip", 2, 0),
	I("client.port", LBT_F_PORT, 0), CLIENT("client_addr", 2, 0), CLIENT("client_ip", 2, 0),
	I("client_port", LBT_F_PORT, 0), CLIENT("clientip", 2, 0),
	OPQ("connection"), OPQ("connection_requests"),
	T("date", LBT_CLOCK_END, TM_ANY, 1), T("datetime", LBT_CLOCK_END, TM_ANY, 1),
	I("fc", LBT_F_FC, HAP), I("feconn", LBT_F_FC, HAP),
	S("frontend", LBT_F_FRONTEND, 2, 0), S("frontend_name", LBT_F_FRONTEND, 2, HAP),
	S("host", LBT_F_HOST, 3, 0), S("host.name", LBT_F_LB, 2, 0),
	S("hostname", LBT_F_LB, 2, 0),
	S("http.request.method", LBT_F_METHOD, 2, 0),
	I("http.response.status_code", LBT_F_STATUS, 0),
	KIND("http.response.body.bytes", K_BYTES, 2, 0),
	S("http.version", LBT_F_VERSION, 2, 0),
	S("http_host", LBT_F_HOST, 2, 0), S("http_method", LBT_F_METHOD, 2, 0),
	OPQ("http_referer"), OPQ("http_referrer"),
	KIND("http_request", K_REQUEST, 3, 0),
	I("http_status", LBT_F_STATUS, 0), I("http_status_code", LBT_F_STATUS, 0),
	S("http_user_agent", LBT_F_UA, 2, 0), S("http_version", LBT_F_VERSION, 2, 0),
	CLIENT("http_x_forwarded_for", 1, FL_XFF),
	S("lb", LBT_F_LB, 2, 0),
	S("method", LBT_F_METHOD, 2, 0),
	T("msec", LBT_CLOCK_END, TM_EPOCH, 3),
	KIND("path", K_PATH, 2, 0),
	S("protocol", LBT_F_VERSION, 1, 0),
	S("proxy_upstream_name", LBT_F_BACKEND, 2, 0),
	KIND("query", K_QUERY, 1, 0), KIND("query_string", K_QUERY, 1, 0),
	I("rc", LBT_F_RC, HAP),
	OPQ("realip_remote_addr"),
	OPQ("referer"), OPQ("referrer"),
	CLIENT("remote_addr", 2, 0), CLIENT("remote_ip", 2, 0),
	I("remote_port", LBT_F_PORT, 0), OPQ("remote_user"),
	OPQ("req_id"),
	KIND("request", K_REQUEST, 3, 0),
	T("request_date", LBT_CLOCK_REQUEST, TM_ANY, 2),
	OPQ("request_id"), OPQ("request_length"),
	S("request_method", LBT_F_METHOD, 2, 0),
	KIND("request_path", K_PATH, 2, 0),
	SEC("request_time", LBT_F_TA, 2, 0, 0),
	KIND("request_uri", K_URI, 2, 0),
	KIND("response_bytes", K_BYTES, 1, 0),
	I("response_code", LBT_F_STATUS, 0),
	I("retries", LBT_F_RC, HAP),
	I("sc", LBT_F_SC, HAP),
	OPQ("scheme"),
	S("server", LBT_F_SERVER, 2, 0),
	S("server_name", LBT_F_FRONTEND, 2, JF_NGINX), S("server_name", LBT_F_SERVER, 2, JF_HAPROXY),
	S("server_protocol", LBT_F_VERSION, 2, 0),
	CLIENT("source.address", 2, 0), CLIENT("source.ip", 2, 0), I("source.port", LBT_F_PORT, 0),
	I("sq", LBT_F_SQ, HAP), CLIENT("src", 2, 0), I("src_port", LBT_F_PORT, 0),
	I("srv_conn", LBT_F_SC, HAP), I("srv_queue", LBT_F_SQ, HAP), I("srvconn", LBT_F_SC, HAP),
	OPQ("ssl_cipher"), OPQ("ssl_protocol"),
	I("status", LBT_F_STATUS, 0), I("status_code", LBT_F_STATUS, 0),
	I("Ta", LBT_F_TA, HAP), I("Tc", LBT_F_TC, HAP), I("Th", LBT_F_TH, HAP),
	I("Ti", LBT_F_TI, HAP), I("Tq", LBT_F_TQ, HAP), I("TR", LBT_F_TR, HAP),
	I("Tr", LBT_F_TRESP, HAP), I("Tt", LBT_F_TT, HAP), I("Tw", LBT_F_TW, HAP),
	S("term", LBT_F_TERM, 2, 0), S("termination_state", LBT_F_TERM, 2, HAP),
	T("time", LBT_CLOCK_END, TM_ANY, 1),
	T("time_iso8601", LBT_CLOCK_END, TM_ISO, 2),
	T("time_local", LBT_CLOCK_END, TM_CLF_ZONED, 2),
	T("timestamp", LBT_CLOCK_END, TM_ANY, 1),
	S("tsc", LBT_F_TERM, 2, HAP), OPQ("unique_id"),
	{ "upstream_addr", K_STR, LBT_F_SERVER, 0, 0, 1, FL_LAST, 0 },
	OPQ("upstream_cache_status"),
	SEC("upstream_connect_time", LBT_F_TC, 2, FL_LAST, JF_NGINX),
	I("upstream_connect_time", LBT_F_TC, JF_HAPROXY),
	SEC("upstream_header_time", LBT_F_TRESP, 2, FL_LAST, 0),
	OPQ("upstream_response_length"),
	SEC("upstream_response_time", LBT_F_TRESP, 1, FL_LAST, 0),
	OPQ("upstream_status"),
	KIND("uri", K_URI, 1, 0),
	KIND("url", K_URI, 2, 0), KIND("url.original", K_URI, 2, 0), KIND("url.path", K_PATH, 2, 0),
	KIND("url.query", K_QUERY, 1, 0),
	S("user_agent", LBT_F_UA, 2, 0), S("user_agent.original", LBT_F_UA, 2, 0),
	S("useragent", LBT_F_UA, 2, 0),
	CLIENT("x_forwarded_for", 1, FL_XFF),
};

#undef T
#undef CLIENT
#undef S
#undef I
#undef SEC
#undef KIND
#undef OPQ
#undef HAP

/* Order of key items: by name (bytes), then flavour. */
static int item_cmp(const void *a, const void *b)
{
	const struct fmt_item *x = a, *y = b;
	int r = strcmp(x->key, y->key);

	return r != 0 ? r : (int)x->jflav - (int)y->jflav;
}

/* Fill key item it from table entry k.  @return 0, or -1 (no memory) */
static int item_of(struct fmt_item *it, const struct jkey *k)
{
	it->kind = k->kind;
	it->field = k->field;
	it->clock = k->clock;
	it->tfmt = k->tfmt;
	it->rank = k->rank;
	it->flags = k->flags;
	it->jflav = k->jflav;
	it->esc = ESC_NONE;
	it->key = lbt_fmti_strndup(k->name, strlen(k->name));
	it->keylen = strlen(k->name);
	snprintf(it->what, sizeof it->what, "%s", k->name);
	lbt_fmti_item_finish(it);
	if (k->kind == K_STR && k->field == LBT_F_FRONTEND)
		it->flags |= FL_TILDE;          /* HAProxy %ft: "fe_https~" */
	return it->key ? 0 : -1;
}

/*
 * Compile the json dialect: one key item per name, sorted.
 * @return 0, or -1 with err (no memory).
 */
int lbt_fmti_jkeys_compile(lbt_format *f, lbt_err *err)
{
	for (size_t i = 0; i < sizeof jkeys / sizeof jkeys[0]; i++) {
		struct fmt_item *it = lbt_fmti_key_add(f);

		if (it == NULL || item_of(it, &jkeys[i]) < 0)
			return lbt_err_set(err, "out of memory");
	}
	qsort(f->keys, f->nkeys, sizeof f->keys[0], item_cmp);
	f->enc = ENC_KJSON;
	return 0;
}

/*
 * Index of the first key item named name[0..len) (its other flavour, if
 * any, follows), or -1.
 */
int lbt_fmti_jkeys_find(const lbt_format *f, const char *name, size_t len)
{
	size_t lo = 0, hi = f->nkeys;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct fmt_item *it = &f->keys[mid];
		int r = memcmp(it->key, name, it->keylen < len ? it->keylen : len);

		if (r == 0)
			r = it->keylen < len ? -1 : it->keylen > len;
		if (r < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < f->nkeys && f->keys[lo].keylen == len && memcmp(f->keys[lo].key, name, len) == 0)
		return (int)lo;
	return -1;
}
