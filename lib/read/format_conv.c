/*
 * format_conv.c - from a value found in a line to lbt_rec fields.
 *
 * Every dialect ends here: the text matcher with a view into the line, the
 * JSON and CBOR readers with decoded strings or integers.  Values are
 * unescaped only when their escape character is present (memchr), into the
 * format's scratch memory; otherwise the record views the line itself.
 * When two items can fill one field (the Host capture and an absolute URI,
 * $body_bytes_sent and $bytes_sent, %tr and %T) the higher rank wins and the
 * earlier one wins a tie.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lbt/utf8.h"
#include "format_int.h"
#include "lbt/addr.h"
#include "lbt/num.h"
#include "lbt/reqline.h"
#include "lbt/timeparse.h"

/* Start a line: nothing set yet, no %ms. */
void lbt_fmti_ctx_init(struct fmt_ctx *c, lbt_format *f, lbt_rec *rec, lbt_err *err,
    const char *base)
{
	c->f = f;
	c->rec = rec;
	c->err = err;
	c->base = base;
	memset(c->rank, 0, sizeof c->rank);
	c->ms = -1;
	c->time_accept_s = 0;
	c->noskip = 0;
	c->skipped = 0;
	c->conn.family = 0;
	c->conn_rank = c->hdr_rank = c->hdr_tail = 0;
	c->hdr = NULL;
	c->hdrn = 0;
}

static void resolve_client(struct fmt_ctx *c);

/* End a line: a second-precision accept date gets the %ms milliseconds. */
void lbt_fmti_ctx_finish(struct fmt_ctx *c)
{
	if (c->ms >= 0 && c->time_accept_s && (c->rec->have & LBT_BIT(LBT_F_TIME)))
		c->rec->time_us += (int64_t)c->ms * 1000;
	if (c->hdr != NULL)
		resolve_client(c);
}

/*
 * May a value of rank `rank` set field `fld`?  Yes when the caller wants it
 * and no item of the same or a higher rank set it before; the rank is then
 * recorded.  @return 1 or 0.
 */
static inline int take(struct fmt_ctx *c, int fld, int rank)
{
	uint64_t bit = LBT_BIT(fld);

	if (!(c->f->wanted & bit))
		return 0;
	if ((c->rec->have & bit) && c->rank[fld] >= rank)
		return 0;
	c->rank[fld] = (uint8_t)rank;
	return 1;
}

/* The lbt_rec member of an item's field (K_STR / K_I32 / K_SEC_MS). */
#define ITEM_STR(c, it) ((lbt_str *)(void *)((char *)(c)->rec + (it)->off))
#define ITEM_I32(c, it) ((int32_t *)(void *)((char *)(c)->rec + (it)->off))

/* Set string field fld (member *dst) to s[0..n); empty is left absent. */
static inline void set_str(struct fmt_ctx *c, int fld, lbt_str *dst, int rank, const char *s,
    size_t n)
{
	if (n == 0 || !take(c, fld, rank))
		return;
	*dst = lbt_str_make(s, n);
	c->rec->have |= LBT_BIT(fld);
}

/* Set int32 field fld (member *dst). */
static inline void set_i32(struct fmt_ctx *c, int fld, int32_t *dst, int rank, int32_t v)
{
	if (!take(c, fld, rank))
		return;
	*dst = v;
	c->rec->have |= LBT_BIT(fld);
}

/*
 * Fast decimal int32 with an optional sign or logasap '+' (the timers and
 * counters of every HAProxy line).  @return 0 with *v, or -1
 */
static inline int parse_dec32(const char *s, size_t n, int32_t *v)
{
	size_t i = n > 0 && (s[0] == '+' || s[0] == '-');
	int64_t x = 0;

	if (i == n || n - i > 10)
		return -1;
	for (; i < n; i++) {
		unsigned d = (unsigned char)s[i] - '0';

		if (d > 9)
			return -1;
		x = x * 10 + d;
	}
	x = s[0] == '-' ? -x : x;
	if (x < INT32_MIN || x > INT32_MAX)
		return -1;
	*v = (int32_t)x;
	return 0;
}

/*
 * Report a value that does not convert: "bad status 'abc' at column 80"
 * (text) or "bad status 'abc' in key 'st'" (JSON, CBOR: col 0).  @return -1
 */
static int bad(struct fmt_ctx *c, const struct fmt_item *it, const char *s, size_t n,
    size_t col)
{
	int shown = n > 40 ? 40 : (int)n;

	if (col == 0)
		return lbt_err_set(c->err, "bad %s '%.*s%s' in key '%s'", it->what, shown, s,
		    n > 40 ? "..." : "", it->key ? it->key : "?");
	return lbt_err_set(c->err, "bad %s '%.*s%s' at column %zu", it->what, shown, s,
	    n > 40 ? "..." : "", col);
}

/* Value of a hex digit, or -1. */
static int hexval(int ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

/* Parse s[0..n) as hex digits (1..16). @return 0 with *v or -1 */
static int parse_hex(const char *s, size_t n, uint64_t *v)
{
	uint64_t x = 0;

	if (n == 0 || n > 16)
		return -1;
	for (size_t i = 0; i < n; i++) {
		int d = hexval((unsigned char)s[i]);

		if (d < 0)
			return -1;
		x = x << 4 | (uint64_t)d;
	}
	*v = x;
	return 0;
}

/* A number as logged: decimal with an optional sign or logasap '+', or hex under +X. */
static int parse_num(const struct fmt_item *it, const char *s, size_t n, int64_t *v)
{
	uint64_t u;

	if (it->flags & FL_HEX) {
		if (n > 0 && s[0] == '+') {
			s++;
			n--;
		}
		if (parse_hex(s, n, &u) < 0 || u > INT64_MAX)
			return -1;
		*v = (int64_t)u;
		return 0;
	}
	return lbt_num_i64(s, n, v);
}

/* Remove the backslash of every "\x" pair (HAProxy +E) into scratch. @return 0 or -1 */
static int unbackslash(struct fmt_ctx *c, const char **s, size_t *n)
{
	char *o = lbt_fmti_scratch(c->f, *n), *w = o;
	const char *p = *s, *e = *s + *n;

	if (o == NULL)
		return lbt_err_set(c->err, "out of scratch memory");
	while (p < e) {
		if (*p == '\\' && p + 1 < e)
			p++;
		*w++ = *p++;
	}
	*s = o;
	*n = (size_t)(w - o);
	return 0;
}

/* Decode "#XX" (HAProxy) or "\xHH" (NGINX) sequences into scratch. @return 0 or -1 */
static int unhex(struct fmt_ctx *c, int esc, const char **s, size_t *n)
{
	char *o = lbt_fmti_scratch(c->f, *n), *w = o;
	const char *p = *s, *e = *s + *n;
	size_t lead = esc == ESC_HASH ? 1 : 2;

	if (o == NULL)
		return lbt_err_set(c->err, "out of scratch memory");
	while (p < e) {
		int ok = esc == ESC_HASH ? *p == '#' : (*p == '\\' && p + 1 < e && p[1] == 'x');

		if (ok && e - p >= (ptrdiff_t)(lead + 2) && hexval((unsigned char)p[lead]) >= 0 &&
		    hexval((unsigned char)p[lead + 1]) >= 0) {
			*w++ = (char)(hexval((unsigned char)p[lead]) << 4 |
			    hexval((unsigned char)p[lead + 1]));
			p += lead + 2;
		} else
			*w++ = *p++;
	}
	*s = o;
	*n = (size_t)(w - o);
	return 0;
}

/* One JSON escape at p (after the backslash); writes to *w. @return bytes consumed */
static size_t json_escape(const char *p, const char *e, char **w)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *k = p < e ? memchr(from, *p, sizeof from - 1) : NULL;
	unsigned cp = 0;

	if (k != NULL) {
		*(*w)++ = to[k - from];
		return 1;
	}
	if (e - p < 5 || *p != 'u') {
		*(*w)++ = '\\';
		return 0;
	}
	for (int i = 1; i <= 4; i++) {
		int d = hexval((unsigned char)p[i]);

		if (d < 0) {
			*(*w)++ = '\\';
			return 0;
		}
		cp = cp << 4 | (unsigned)d;
	}
	*w += lbt_utf8_put(*w, cp);
	return 5;
}

/* Decode JSON string escapes (NGINX escape=json) into scratch. @return 0 or -1 */
static int unjson(struct fmt_ctx *c, const char **s, size_t *n)
{
	char *o = lbt_fmti_scratch(c->f, *n), *w = o;
	const char *p = *s, *e = *s + *n;

	if (o == NULL)
		return lbt_err_set(c->err, "out of scratch memory");
	while (p < e) {
		if (*p != '\\') {
			*w++ = *p++;
			continue;
		}
		p++;
		p += json_escape(p, e, &w);
	}
	*s = o;
	*n = (size_t)(w - o);
	return 0;
}

/*
 * Unescape s[0..n) as `esc` says (after removing +E backslashes when
 * bslash).  *out views the line when nothing needed decoding, else scratch.
 * @return 0, or -1 with err (scratch exhausted, which a bug would cause).
 */
int lbt_fmti_decode(struct fmt_ctx *c, int esc, int bslash, const char *s, size_t n,
    const char **out, size_t *outlen)
{
	*out = s;
	*outlen = n;
	if (bslash && memchr(s, '\\', n) != NULL && unbackslash(c, out, outlen) < 0)
		return -1;
	switch (esc) {
	case ESC_HASH:
		if (memchr(*out, '#', *outlen) != NULL)
			return unhex(c, esc, out, outlen);
		break;
	case ESC_NGX_HEX:
		if (memchr(*out, '\\', *outlen) != NULL)
			return unhex(c, esc, out, outlen);
		break;
	case ESC_NGX_JSON:
		if (memchr(*out, '\\', *outlen) != NULL)
			return unjson(c, out, outlen);
		break;
	}
	return 0;
}

/* Parse a client address; IPv4 from 8 and IPv6 from 32 hex digits under +X. @return 0 or -1 */
static int parse_client(const struct fmt_item *it, const char *s, size_t n, lbt_addr *a)
{
	static const uint8_t mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	size_t nb = n / 2, off;

	if (!(it->flags & FL_HEX) || (n != 8 && n != 32))
		return lbt_addr_parse(s, n, a);
	off = nb == 4 ? 12 : 0;
	memcpy(a->b, mapped, sizeof mapped);
	for (size_t i = 0; i < nb; i++) {
		int hi = hexval((unsigned char)s[2 * i]), lo = hexval((unsigned char)s[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return -1;
		a->b[off + i] = (uint8_t)(hi << 4 | lo);
	}
	a->family = memcmp(a->b, mapped, sizeof mapped) == 0 ? 4 : 6;
	return 0;
}

/* The most addresses of a header's list looked at (the rightmost kept). */
#define HDR_MAX 32

/* A header's address list split: each element parsed, or not. */
struct hdr_list {
	lbt_addr a[HDR_MAX];
	uint8_t ok[HDR_MAX];
	int n;
	lbt_addr first;            /* the first address of the whole list, family 0:
	                              none */
	int first_at;              /* its index in a[], -1 when dropped or none */
};

/*
 * Split s[0..n) at its commas, blanks around each element dropped: the
 * rightmost HDR_MAX elements, and the first that is an address ("unknown"
 * and garbage are passed over; a client-supplied header is never an
 * error).  The first is found before anything is dropped on the left.
 */
static void hdr_split(const char *s, size_t n, struct hdr_list *l)
{
	const char *e = s + n;

	l->n = 0;
	l->first.family = 0;
	l->first_at = -1;
	for (;;) {
		const char *comma = memchr(s, ',', (size_t)(e - s)), *end = comma ? comma : e;
		const char *b = s;
		lbt_addr a = { 0, { 0 } };
		int ok;

		while (b < end && *b == ' ')
			b++;
		while (end > b && end[-1] == ' ')
			end--;
		ok = lbt_addr_parse(b, (size_t)(end - b), &a) == 0;
		if (l->n == HDR_MAX) {
			memmove(l->a, l->a + 1, (HDR_MAX - 1) * sizeof l->a[0]);
			memmove(l->ok, l->ok + 1, HDR_MAX - 1);
			l->n--;
			l->first_at--;
		}
		if (ok && l->first.family == 0) {
			l->first = a;
			l->first_at = l->n;
		}
		l->a[l->n] = a;
		l->ok[l->n++] = (uint8_t)ok;
		if (comma == NULL)
			break;
		s = comma + 1;
	}
}

/* True when a is one of the trusted proxies. */
static int trusted(const struct fmt_ctx *c, const lbt_addr *a)
{
	return lbt_ipset_has(c->f->trusted, a);
}

/*
 * With a trusted-proxies list: the connecting address unless it is
 * trusted, then from the right the first element that is not, as NGINX's
 * realip module finds it (real_ip_recursive on); an element that is no
 * address ends the walk at the one before.  A line without the connecting
 * address starts the walk at the rightmost element, but nobody is known
 * to have written that one: what it finds is marked "header", as
 * unverified as without a list.  @return 1 with *out and *from, 0 when
 * there is nothing to take (no connecting address and the last element
 * no address)
 */
static int pick_trusted(const struct fmt_ctx *c, const struct hdr_list *l, lbt_addr *out,
    lbt_client_from *from)
{
	int have = c->conn.family != 0;

	*out = c->conn;
	*from = LBT_FROM_CONN;
	if (have && !trusted(c, &c->conn))
		return 1;
	for (int i = l->n - 1; i >= 0 && l->ok[i]; i--) {
		*out = l->a[i];
		*from = c->conn.family != 0 ? LBT_FROM_TRUSTED : LBT_FROM_HEADER;
		have = 1;
		if (!trusted(c, &l->a[i]))
			break;
	}
	return have;
}

/* Set the record's client (when wanted), where it came from, and the
 * connecting address beside a header's. */
static void set_client(struct fmt_ctx *c, const lbt_addr *a, lbt_client_from from)
{
	lbt_rec *r = c->rec;
	uint64_t w = c->f->wanted;

	if (w & LBT_BIT(LBT_F_CLIENT)) {
		r->client = *a;
		r->have |= LBT_BIT(LBT_F_CLIENT);
	}
	if (w & LBT_BIT(LBT_F_CLIENT_FROM)) {
		r->client_from = (uint8_t)from;
		r->have |= LBT_BIT(LBT_F_CLIENT_FROM);
	}
	if ((w & LBT_BIT(LBT_F_CONN)) && from != LBT_FROM_CONN && c->conn.family != 0) {
		r->conn = c->conn;
		r->have |= LBT_BIT(LBT_F_CONN);
	}
}

/*
 * The end of a line that carried a header's address list (X-Forwarded-For:
 * NGINX $http_x_forwarded_for, $proxy_add_x_forwarded_for, an HAProxy
 * capture named client): which address is the client, and from where.
 * Without a trusted-proxies list the header's first address is the
 * client when the format ranks the header above the connecting address
 * (as before any list existed), marked "header": nobody vouches for it.
 * With a list, pick_trusted.  A header without any address is as if the
 * line had none.
 */
static void resolve_client(struct fmt_ctx *c)
{
	struct hdr_list l;
	lbt_client_from from;
	lbt_addr a;

	hdr_split(c->hdr, c->hdrn, &l);
	if (c->hdr_tail && l.n > 0) {      /* $proxy_add_x_forwarded_for: "header, conn" */
		if (c->conn.family == 0 && l.ok[l.n - 1])
			c->conn = l.a[l.n - 1];
		if (l.first_at == l.n - 1)
			l.first.family = 0;       /* the connecting address alone: no header */
		l.n--;
	}
	if (l.first.family == 0) {
		if (c->hdr_tail && c->conn.family != 0 && (c->f->wanted & LBT_BIT(LBT_F_CLIENT)) &&
		    !(c->rec->have & LBT_BIT(LBT_F_CLIENT))) {
			c->rec->client = c->conn;
			c->rec->have |= LBT_BIT(LBT_F_CLIENT);
		}
		return;
	}
	if (c->f->trusted != NULL) {
		if (pick_trusted(c, &l, &a, &from))
			set_client(c, &a, from);
		return;
	}
	if (c->conn.family != 0 && c->conn_rank >= c->hdr_rank)
		set_client(c, &c->conn, LBT_FROM_CONN);
	else
		set_client(c, &l.first, LBT_FROM_HEADER);
}

/* Keep a header's address list s[0..n) (its item's rank) for the end of
 * the line: the first of the highest rank counts. */
static void keep_header(struct fmt_ctx *c, int rank, int tail, const char *s, size_t n)
{
	if (n == 0 || (c->hdr != NULL && c->hdr_rank >= rank))
		return;
	c->hdr = s;
	c->hdrn = n;
	c->hdr_rank = (uint8_t)rank;
	c->hdr_tail = (uint8_t)tail;
}

/* Set the client address; "unix" sockets are left absent. @return 0 or -1 */
static int conv_client(struct fmt_ctx *c, const struct fmt_item *it, const char *s,
    size_t n, size_t col)
{
	lbt_addr a;

	if (it->flags & FL_XFF) {
		keep_header(c, it->rank, (it->flags & FL_XFF_CONN) != 0, s, n);
		return 0;
	}
	if (n >= 4 && memcmp(s, "unix", 4) == 0)
		return 0;
	if (parse_client(it, s, n, &a) < 0)
		return bad(c, it, s, n, col);
	if (it->rank > c->conn_rank) {
		c->conn = a;
		c->conn_rank = it->rank;
	}
	if (take(c, LBT_F_CLIENT, it->rank)) {
		c->rec->client = a;
		c->rec->have |= LBT_BIT(LBT_F_CLIENT);
	}
	return 0;
}

/*
 * An epoch number v in the unit its size suggests (TM_ANY): seconds below
 * 1e11 (until the year 5138), then milliseconds, microseconds,
 * nanoseconds.  @return the time in µs
 */
static int64_t epoch_any(double v)
{
	if (v < 1e11)
		return llround(v * 1e6);
	if (v < 1e14)
		return llround(v * 1e3);
	if (v < 1e17)
		return llround(v);
	return llround(v / 1e3);
}

/*
 * A date of any shape (TM_ANY, the json dialect): ISO 8601 (also with a
 * space for the 'T'), CLF with or without a zone ("01/Nov/2025:23:24:01
 * +0100", HAProxy's "01/Nov/2025:23:24:01.123" in tz), or an epoch number
 * (see epoch_any).  @return 0 with *us, or -1
 */
static int parse_time_any(struct fmt_ctx *c, const char *s, size_t n, int64_t *us)
{
	char buf[64], *end;
	double v;

	if (n >= 19 && n < sizeof buf && s[4] == '-' && s[7] == '-' && (s[10] == 'T' ||
	    s[10] == ' ')) {
		memcpy(buf, s, n);
		buf[10] = 'T';
		return lbt_time_parse_iso(buf, n, c->f->tz, us);
	}
	if (n >= 20 && s[2] == '/' && s[6] == '/')
		return memchr(s, ' ', n) != NULL ? lbt_time_parse_clf_zoned(s, n, us) :
		    lbt_time_parse_clf_local(s, n, c->f->tz, us);
	if (n == 0 || n >= sizeof buf || s[0] < '0' || s[0] > '9')
		return -1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	v = strtod(buf, &end);
	if (end != buf + n || !isfinite(v) || v > 9e18)
		return -1;
	*us = epoch_any(v);
	return 0;
}

/* Parse a date of shape it->tfmt.  @return 0 with *us or -1 */
static int parse_time(struct fmt_ctx *c, const struct fmt_item *it, const char *s, size_t n,
    int64_t *us)
{
	uint64_t u;

	switch (it->tfmt) {
	case TM_CLF_LOCAL:
		return lbt_time_parse_clf_cached(&c->f->tcache, s, n, c->f->tz, 0, us);
	case TM_CLF_ZONED:
		return lbt_time_parse_clf_cached(&c->f->tcache, s, n, c->f->tz, 1, us);
	case TM_ISO:
		return lbt_time_parse_iso(s, n, c->f->tz, us);
	case TM_ANY:
		return parse_time_any(c, s, n, us);
	default:
		if (!(it->flags & FL_HEX))
			return lbt_time_parse_epoch(s, n, us);
		if (parse_hex(s, n, &u) < 0 || u > INT64_MAX / 1000000)
			return -1;
		*us = (int64_t)u * 1000000;
		return 0;
	}
}

/* Set the time from a date item. @return 0 or -1 */
static int conv_time(struct fmt_ctx *c, const struct fmt_item *it, const char *s, size_t n,
    size_t col)
{
	int64_t us;

	if (!take(c, LBT_F_TIME, it->rank))
		return 0;
	if (parse_time(c, it, s, n, &us) < 0)
		return bad(c, it, s, n, col);
	c->rec->time_us = us;
	c->rec->clock = (lbt_clock)it->clock;
	c->rec->have |= LBT_BIT(LBT_F_TIME);
	c->time_accept_s = (it->flags & FL_ACCEPT_S) != 0;
	return 0;
}

/* Seconds with a fraction ("0.013") to milliseconds. @return 0 or -1 */
static int parse_sec_ms(const char *s, size_t n, int64_t *ms)
{
	const char *dot = memchr(s, '.', n);
	size_t ni = dot ? (size_t)(dot - s) : n;
	int64_t whole, frac = 0;
	int digits = 0;

	if (lbt_num_i64(s, ni, &whole) < 0 || whole < 0 || whole > INT32_MAX / 1000)
		return -1;
	for (size_t i = ni + 1; dot != NULL && i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		if (digits < 3) {
			frac = frac * 10 + (s[i] - '0');
			digits++;
		}
	}
	if (dot != NULL && ni + 1 == n)
		return -1;
	for (; digits < 3; digits++)
		frac *= 10;
	*ms = whole * 1000 + frac;
	return 0;
}

/*
 * Split a URI into host (absolute form only, rank 1: a Host capture or
 * $host wins), path and query.  An absolute URI without a path gets "/".
 * With FL_NOQUERY a '?' stays in the path (NGINX $uri is decoded).
 */
static void conv_uri(struct fmt_ctx *c, const struct fmt_item *it, const char *s, size_t n)
{
	lbt_uri u;

	lbt_uri_split(s, n, (it->flags & FL_NOQUERY) != 0, &u);
	set_str(c, LBT_F_HOST, &c->rec->host, 1, u.host.p, u.host.n);
	set_str(c, LBT_F_QUERY, &c->rec->query, it->rank, u.query.p, u.query.n);
	set_str(c, LBT_F_PATH, &c->rec->path, it->rank, u.path.p, u.path.n);
}

/* True for HAProxy's "<BADREQ>" placeholder. */
static int is_badreq(const char *s, size_t n)
{
	return n == 8 && memcmp(s, "<BADREQ>", 8) == 0;
}

/*
 * "<BADREQ>" in an HAProxy item: the request field for %r and %HU, nothing
 * for the other HTTP items (%HM %HV ... print it too).  @return 0
 */
static int badreq(struct fmt_ctx *c, const struct fmt_item *it, const char *s, size_t n)
{
	if (it->kind == K_REQUEST || it->kind == K_URI)
		set_str(c, LBT_F_REQUEST, &c->rec->request, it->rank, s, n);
	return 0;
}

/*
 * Split a request line "METHOD URI VERSION" (already unescaped) into
 * method, version and the URI's parts (a CONNECT's authority is the host,
 * of rank 1 as an absolute URI's: a Host capture or $host wins).  A line that is no request
 * (lbt_reqline_split: HELP, TLS bytes, several words without a version)
 * is kept whole in the request field, and method, path, query and version
 * stay absent.
 */
static void conv_request(struct fmt_ctx *c, const struct fmt_item *it, const char *s,
    size_t n)
{
	lbt_reqline r;

	if (lbt_reqline_split(s, n, &r) < 0) {
		set_str(c, LBT_F_REQUEST, &c->rec->request, it->rank, s, n);
		return;
	}
	set_str(c, LBT_F_METHOD, &c->rec->method, it->rank, r.method.p, r.method.n);
	set_str(c, LBT_F_VERSION, &c->rec->version, it->rank, r.version.p, r.version.n);
	if (lbt_reqline_authority(&r))     /* CONNECT host:port: the host, no path */
		set_str(c, LBT_F_HOST, &c->rec->host, 1, r.uri.p, r.uri.n);
	else
		conv_uri(c, it, r.uri.p, r.uri.n);
}

/*
 * One capture slot's value (unescaped here) into the field its meaning
 * names.  Slots beyond the mapping, "-" slots and empty values are ignored.
 */
void lbt_fmti_conv_slot(struct fmt_ctx *c, const struct fmt_item *it, int slot, const char *s,
    size_t n)
{
	const char *v;
	size_t vn;

	if (slot < 0 || slot >= c->f->ncaps || c->f->caps[slot] == CAP_NONE || n == 0)
		return;
	if (lbt_fmti_decode(c, it->esc, (it->flags & FL_BSLASH) != 0, s, n, &v, &vn) < 0)
		return;
	switch (c->f->caps[slot]) {
	case CAP_HOST:
		set_str(c, LBT_F_HOST, &c->rec->host, 2, v, vn);
		break;
	case CAP_UA:
		set_str(c, LBT_F_UA, &c->rec->ua, 2, v, vn);
		break;
	default:
		keep_header(c, 3, 0, v, vn);    /* above %ci: a capture named client says so */
	}
}

/* The inside of a "{a|b}" block: one slot per '|'-separated part. @return 0 */
int lbt_fmti_conv_block(struct fmt_ctx *c, const struct fmt_item *it, const char *s, size_t n)
{
	const char *e = s + n;
	int slot = 0;

	if (it->flags & FL_RESP)
		return 0;
	while (slot < c->f->ncaps) {
		const char *bar = memchr(s, '|', (size_t)(e - s));
		const char *end = bar ? bar : e;

		lbt_fmti_conv_slot(c, it, slot++, s, (size_t)(end - s));
		if (bar == NULL)
			break;
		s = bar + 1;
	}
	return 0;
}

/*
 * The last element of an NGINX list "a, b : c" in *s[0..*n) (FL_LAST: the
 * upstream that answered, docs/formats.md, "NGINX").
 */
static void last_element(const char **s, size_t *n)
{
	const char *p = *s, *e = *s + *n, *last = p;

	for (const char *q = p; q + 1 < e; q++) {
		if (q[0] == ',' && q[1] == ' ')
			last = q + 2;
		else if (q[0] == ' ' && q[1] == ':' && q + 2 < e && q[2] == ' ')
			last = q + 3;
	}
	*s = last;
	*n = (size_t)(e - last);
}

/* Convert an unescaped string value of a string-like kind. @return 0 or -1 */
static int conv_strlike(struct fmt_ctx *c, const struct fmt_item *it, const char *s,
    size_t n, size_t col)
{
	switch (it->kind) {
	case K_STR:
		if ((it->flags & FL_HOSTNAME) && memchr(s, ',', n) != NULL)
			return bad(c, it, s, n, col);
		if ((it->flags & FL_TILDE) && n > 0 && s[n - 1] == '~')
			n--;
		set_str(c, it->field, ITEM_STR(c, it), it->rank, s, n);
		break;
	case K_REQUEST:
		conv_request(c, it, s, n);
		break;
	case K_URI:
	case K_PATH:
		conv_uri(c, it, s, n);
		break;
	case K_QUERY:
		if ((it->flags & FL_QMARK) && n > 0 && s[0] == '?') {
			s++;
			n--;
		}
		set_str(c, LBT_F_QUERY, &c->rec->query, it->rank, s, n);
		break;
	default:
		break;
	}
	return 0;
}

/* Convert a numeric kind from text. @return 0 or -1 */
static int conv_number(struct fmt_ctx *c, const struct fmt_item *it, const char *s,
    size_t n, size_t col)
{
	int64_t v;

	if (it->kind == K_SEC_MS) {
		if (parse_sec_ms(s, n, &v) < 0)
			return bad(c, it, s, n, col);
		set_i32(c, it->field, ITEM_I32(c, it), it->rank, (int32_t)v);
		return 0;
	}
	if (parse_num(it, s, n, &v) < 0)
		return bad(c, it, s, n, col);
	return lbt_fmti_conv_int(c, it, v);
}

/*
 * Convert the text value s[0..n) of item `it` (quotes already removed) into
 * the record.  "-" is an absent value; col (1-based, 0 for JSON/CBOR) is
 * where the value starts, for messages.  @return 0, or -1 with err.
 */
int lbt_fmti_conv_text(struct fmt_ctx *c, const struct fmt_item *it, const char *s, size_t n,
    size_t col)
{
	const char *v;
	size_t vn;

	int32_t v32;

	if ((n == 1 && s[0] == '-') || it->kind == K_OPAQUE)
		return 0;
	if (!(it->fills & c->f->wanted) && it->kind != K_MS)
		return 0;
	if ((it->flags & FL_LAST) && (last_element(&s, &n), n == 1 && s[0] == '-'))
		return 0;
	if (it->kind == K_I32 && !(it->flags & FL_HEX) && parse_dec32(s, n, &v32) == 0) {
		set_i32(c, it->field, ITEM_I32(c, it), it->rank, v32);
		return 0;   /* the common case, without the general path below */
	}
	switch (it->kind) {
	case K_I32:
	case K_BYTES:
	case K_SEC_MS:
	case K_MS:
		return conv_number(c, it, s, n, col);
	case K_CLIENT:
		return conv_client(c, it, s, n, col);
	case K_TIME:
		return conv_time(c, it, s, n, col);
	case K_SLOT:
		lbt_fmti_conv_slot(c, it, it->slot, s, n);
		return 0;
	case K_CAPBLOCK:
		if (n >= 2 && s[0] == '{' && s[n - 1] == '}')
			return lbt_fmti_conv_block(c, it, s + 1, n - 2);
		return 0;
	default:
		break;
	}
	if (it->esc == ESC_HASH && is_badreq(s, n))
		return badreq(c, it, s, n);
	if (lbt_fmti_decode(c, it->esc, (it->flags & FL_BSLASH) != 0, s, n, &v, &vn) < 0)
		return -1;
	return conv_strlike(c, it, v, vn, col);
}

/* An integer value (JSON/CBOR number, or parsed text) into a numeric kind. @return 0 or -1 */
int lbt_fmti_conv_int(struct fmt_ctx *c, const struct fmt_item *it, int64_t v)
{
	char buf[24];

	switch (it->kind) {
	case K_I32:
		if (v < INT32_MIN || v > INT32_MAX)
			break;
		set_i32(c, it->field, ITEM_I32(c, it), it->rank, (int32_t)v);
		return 0;
	case K_BYTES:
		if (take(c, LBT_F_BYTES, it->rank)) {
			c->rec->bytes = v;
			c->rec->have |= LBT_BIT(LBT_F_BYTES);
		}
		return 0;
	case K_MS:
		if (v < 0 || v > 999)
			break;
		c->ms = (int32_t)v;
		return 0;
	case K_SEC_MS:
		if (v < 0 || v > INT32_MAX / 1000)
			break;
		set_i32(c, it->field, ITEM_I32(c, it), it->rank, (int32_t)(v * 1000));
		return 0;
	case K_TIME:
		if ((it->tfmt != TM_EPOCH && it->tfmt != TM_ANY) || v < 0 ||
		    (it->tfmt == TM_EPOCH && v > INT64_MAX / 1000000))
			break;
		if (take(c, LBT_F_TIME, it->rank)) {
			c->rec->time_us = it->tfmt == TM_ANY ? epoch_any((double)v) : v * 1000000;
			c->rec->clock = (lbt_clock)it->clock;
			c->rec->have |= LBT_BIT(LBT_F_TIME);
			c->time_accept_s = (it->flags & FL_ACCEPT_S) != 0;
		}
		return 0;
	default:
		return 0;
	}
	snprintf(buf, sizeof buf, "%lld", (long long)v);
	return bad(c, it, buf, strlen(buf), 0);
}

/* A JSON real (NGINX $request_time, $msec unquoted) into a numeric kind. @return 0 or -1 */
int lbt_fmti_conv_real(struct fmt_ctx *c, const struct fmt_item *it, double v)
{
	if (!isfinite(v) || v < 0 || v > 1e15)
		return 0;
	if (it->kind == K_SEC_MS && v * 1000 <= INT32_MAX) {
		set_i32(c, it->field, ITEM_I32(c, it), it->rank, (int32_t)llround(v * 1000));
		return 0;
	}
	if (it->kind == K_TIME && (it->tfmt == TM_EPOCH || it->tfmt == TM_ANY)) {
		if (take(c, LBT_F_TIME, it->rank)) {
			c->rec->time_us = it->tfmt == TM_ANY ? epoch_any(v) : llround(v * 1000) * 1000;
			c->rec->clock = (lbt_clock)it->clock;
			c->rec->have |= LBT_BIT(LBT_F_TIME);
		}
		return 0;
	}
	if (v == floor(v))
		return lbt_fmti_conv_int(c, it, (int64_t)v);
	return 0;
}
