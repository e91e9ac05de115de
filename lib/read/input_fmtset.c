/*
 * input_fmtset.c - the formats a file is read with, and the one each line
 * takes.  See lib/read/input_int.h (struct fmtset).
 *
 * A real /var/log/haproxy.log holds the lines of every proxy (httplog,
 * tcplog, a custom format...), an NGINX access log may mix `combined` and
 * `main`: one format per file would make every line of the other kinds
 * malformed.  So a file is read with a set of formats:
 *
 *   - the options name one (the common case): one parse a line, as before;
 *   - --format A,B or detection: a line is parsed with the formats of the
 *     set in a fixed order, most specific first (more literal text, then
 *     more fields: lbt_format_specificity_cmp), and the first that reads it
 *     wins (one try per class of identical formats).  Never "the format of
 *     the line before first": then "www.example.net:80 ..." got the host
 *     "www.example.net:80" after an nginx-vhost line and "www.example.net"
 *     alone.  A set of one costs nothing more; a mixed file pays the failed
 *     parses of the more specific formats, less those that a count of the
 *     line's quotes rules out (lbt_format_cannot_read: nginx-main needs 8,
 *     a combined line has 6).  Callgrind, lbt-rate, instructions a line:
 *     combined with 5 % main lines 4442 before (the previous line's format
 *     first), 10724 ordered, 4163 with the count; half and half 10815,
 *     7316, 3921; one format (a set of one) 4135 and 4217;
 *   - --haproxy-cfg without --frontend: every proxy of the file that logs;
 *     lines are read as above, and a line whose %ft names another proxy of
 *     the set is read again with that proxy's format when it differs (same
 *     shape, other captures), so that each field means what its proxy logs.
 *     A custom format without %ft is chosen by shape alone.
 *
 * A field that is not wanted is not converted, hence not checked: the
 * formats of a set that give their records a frontend of their own check
 * more (checked_fields).
 * The options' formats are compiled here too (--format, --log-format with
 * its dialect, --haproxy-cfg, --nginx-conf).
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input_int.h"
#include "lbt/vec.h"

/* The tier of a dialect's records: HAProxy writes LB logs, NGINX backend ones. */
static lbt_tier dialect_tier(lbt_dialect d)
{
	return d == LBT_DIALECT_HAPROXY ? LBT_TIER_LB : d == LBT_DIALECT_NGINX ?
	    LBT_TIER_BACKEND : LBT_TIER_NONE;
}

/*
 * Put the entry just appended (s->n - 1) into s->ord, after every entry
 * at least as specific (equals keep the order they came in: a haproxy.cfg's
 * sections).  @return 0 or -1 (out of memory)
 */
static int order_insert(struct fmtset *s)
{
	size_t *o = realloc(s->ord, s->n * sizeof *o), k;
	const lbt_format *f = s->v[s->n - 1].f;

	if (o == NULL)
		return -1;
	s->ord = o;
	for (k = s->n - 1; k > 0 && lbt_format_specificity_cmp(f, s->v[o[k - 1]].f) < 0; k--)
		o[k] = o[k - 1];
	o[k] = s->n - 1;
	return 0;
}

/* Append f to s; see input_int.h.  @return 0 or -1 with err (f freed). */
int lbt_inputi_set_add(struct fmtset *s, lbt_format *f, const char *proxy, int klass,
    lbt_err *err)
{
	struct fmt_entry *e;

	if (LBT_GROW(s->v, s->cap, s->n + 1, 4) < 0) {
		lbt_format_free(f);
		return lbt_err_set(err, "input: out of memory");
	}
	e = &s->v[s->n];
	memset(e, 0, sizeof *e);
	e->f = f;
	if (proxy != NULL && (e->proxy = strdup(proxy)) == NULL) {
		lbt_format_free(f);
		return lbt_err_set(err, "input: out of memory");
	}
	e->proxy_len = proxy ? strlen(proxy) : 0;
	e->has_ft = (lbt_format_fields(f) & LBT_BIT(LBT_F_FRONTEND)) != 0;
	e->fill_fe = proxy != NULL && !e->has_ft;
	e->klass = klass >= 0 ? klass : (int)s->n;
	e->tier = dialect_tier(lbt_format_dialect(f));
	s->n++;
	if (order_insert(s) < 0)
		return lbt_err_set(err, "input: out of memory");   /* f is the set's now */
	return 0;
}

/*
 * Compile --log-format in dialect d; an HAProxy template may name the
 * built-in strings as HAProxy 2.8+ does ("${HAPROXY_HTTP_LOG_FMT} ...").
 * @return the format, or NULL with err
 */
static lbt_format *log_format_compile(lbt_dialect d, const lbt_input_opts *o, lbt_err *err)
{
	lbt_format *f;
	char *t;

	if (d != LBT_DIALECT_HAPROXY || strstr(o->log_format, "${") == NULL)
		return lbt_format_compile(d, o->log_format, o->escape, err);
	if ((t = lbt_format_expand_log_vars(o->log_format, err)) == NULL) {
		char why[sizeof err->msg];

		snprintf(why, sizeof why, "%s", err->msg);
		lbt_err_set(err, "--log-format: %.400s", why);
		return NULL;
	}
	f = lbt_format_compile(d, t, o->escape, err);
	free(t);
	return f;
}

/*
 * Dialect of a --log-format template: the first HAProxy item ('%' then a
 * letter, '{', '[' or '(') or NGINX variable ('$' then a letter, '_' or
 * '{') decides, except that "${HAPROXY_..." is HAProxy's own environment
 * syntax.  "%%" is a literal percent sign.  @return 0 with *d, or -1 when
 * the template has neither.
 */
static int template_dialect(const char *t, lbt_dialect *d)
{
	for (const char *p = t; *p; p++) {
		char c = p[1];

		if (*p == '%' && c == '%') {
			p++;
		} else if (*p == '%' && (c == '{' || c == '[' || c == '(' ||
		    (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) {
			*d = LBT_DIALECT_HAPROXY;
			return 0;
		} else if (*p == '$' && (c == '{' || c == '_' || (c >= 'a' && c <= 'z') ||
		    (c >= 'A' && c <= 'Z'))) {
			*d = strncmp(p, "${HAPROXY_", 10) == 0 ? LBT_DIALECT_HAPROXY :
			    LBT_DIALECT_NGINX;
			return 0;
		}
	}
	return -1;
}

/* --format NAME or NAME,NAME...: each opened into s.  @return 0 or -1 with err */
static int set_named(struct fmtset *s, const char *list, lbt_err *err)
{
	const char *cur = list;
	char name[256];
	lbt_str it;
	lbt_format *f;

	s->builtin = 1;
	while (lbt_str_next_item(&cur, ',', &it)) {
		if (it.n == 0 || it.n >= sizeof name)
			return lbt_err_set(err, "--format: '%s': empty or too long a name", list);
		memcpy(name, it.p, it.n);
		name[it.n] = '\0';
		if ((f = lbt_format_open(name, err)) == NULL)
			return -1;
		s->builtin &= lbt_format_builtin_text(name) != NULL;
		if (lbt_inputi_set_add(s, f, NULL, -1, err) < 0)
			return -1;
	}
	return 0;
}

/* The proxies of a haproxy.cfg (--frontend: one) into s.  @return 0 or -1 with err */
static int set_proxies(struct fmtset *s, const char *cfg, const char *frontend, lbt_err *err)
{
	lbt_proxy_format *v;
	int n = lbt_format_proxies_from_haproxy_cfg(cfg, frontend, &v, err), rc = 0;

	for (int i = 0; i < n; i++) {
		if (rc == 0)
			rc = lbt_inputi_set_add(s, v[i].format, v[i].proxy, v[i].same_as >= 0 ?
			    s->v[v[i].same_as].klass : -1, err);
		else
			lbt_format_free(v[i].format);
		v[i].format = NULL;
	}
	lbt_proxy_formats_free(v, n);
	s->byname = s->n > 1;
	return n < 0 ? -1 : rc;
}

/* The formats o names into s (none: detect).  @return 0 or -1 with err */
int lbt_inputi_set_from_opts(struct fmtset *s, const lbt_input_opts *o, lbt_err *err)
{
	lbt_dialect d;
	lbt_format *f;

	lbt_err_clear(err);
	if (o->format)
		return set_named(s, o->format, err);
	if (o->haproxy_cfg)
		return set_proxies(s, o->haproxy_cfg, o->frontend, err);
	if (o->nginx_conf)
		f = lbt_format_from_nginx_conf(o->nginx_conf, o->log_name, err);
	else if (o->log_format == NULL)
		return 0;
	else if (template_dialect(o->log_format, &d) < 0)
		return lbt_err_set(err, "--log-format: '%s' has neither HAProxy %%-items nor "
		    "NGINX $variables", o->log_format);
	else
		f = log_format_compile(d, o, err);
	return f == NULL ? -1 : lbt_inputi_set_add(s, f, NULL, -1, err);
}

/*
 * What a format of a set of several converts even when it is not wanted.
 * A value that is not converted is not checked either, so a format may
 * take a line of another by its spaces and quotes alone: a custom
 * "%ci:%cp [%tr] %ST %{+Q}r" reads an httplog line when %ST is not wanted.
 * The fields wanted come out right all the same (they are checked); what
 * would be wrong is what the format itself gives the record.  So the
 * proxies of a haproxy.cfg that log %ft convert their name, which picks
 * the proxy (by_name), and those without %ft, whose records get the
 * section's name, convert the numbers, the client and the frontend as
 * well; the built-ins of a detected set need nothing more.  Cost
 * (callgrind, lbt-rate on 200 000 httplog lines, instructions a line): one
 * format 3970; every proxy of a haproxy.cfg of httplog and tcplog 4220; a
 * set whose formats convert these fields 6295.
 */
static uint64_t checked_fields(void)
{
	uint64_t m = LBT_BIT(LBT_F_CLIENT) | LBT_BIT(LBT_F_PORT) | LBT_BIT(LBT_F_FRONTEND) |
	    LBT_BIT(LBT_F_STATUS) | LBT_BIT(LBT_F_BYTES);

	for (int f = LBT_F_TH; f <= LBT_F_TT; f++)
		m |= LBT_BIT(f);
	for (int f = LBT_F_AC; f <= LBT_F_BQ; f++)
		m |= LBT_BIT(f);
	return m;
}

/* Give every format of s profile p's zone, captures and trusted proxies and
 * the fields, every entry its tier.  @return 0 or -1 with err */
int lbt_inputi_set_setup(struct fmtset *s, const struct profile *p, uint64_t wanted,
    lbt_err *err)
{
	const char *captures = p->o.captures;
	lbt_tier tier = p->o.tier;

	for (size_t i = 0; i < s->n; i++) {
		uint64_t extra = s->n == 1 ? 0 : s->v[i].fill_fe ? checked_fields() :
		    s->byname ? LBT_BIT(LBT_F_FRONTEND) : 0;

		s->v[i].tier = tier != LBT_TIER_NONE ? tier :
		    dialect_tier(lbt_format_dialect(s->v[i].f));
		lbt_format_set_tz(s->v[i].f, p->tz);
		lbt_format_set_trusted(s->v[i].f, p->trusted);
		lbt_format_set_wanted(s->v[i].f, wanted | extra);
		if (captures && lbt_format_set_captures(s->v[i].f, captures, err) < 0)
			return -1;
	}
	return 0;
}

/* Bit of class k in a mask of classes tried (0 past 63: then never skipped). */
static uint64_t class_bit(int k)
{
	return k < 64 ? (uint64_t)1 << k : 0;
}

/* The '"' bytes of msg[0..len). */
static unsigned count_quotes(const char *msg, size_t len)
{
	unsigned n = 0;

	for (const char *p = msg, *e = msg + len; (p = memchr(p, '"', (size_t)(e - p))) != NULL; p++)
		n++;
	return n;
}

/*
 * Parse msg with the entries of s, most specific first, one per class: the
 * first that reads it wins (s->last set).  The error kept in `why` is that
 * of the class of the entry that read the line before (the file's format,
 * most likely), the others' go to a scratch.  @return LBT_PARSE_*
 */
static int parse_ordered(struct fmtset *s, const char *msg, size_t len, lbt_rec *rec,
    lbt_err *why)
{
	int last_class = s->v[s->last].klass, r = LBT_PARSE_BAD;
	unsigned quotes = count_quotes(msg, len);
	uint64_t tried = 0;
	lbt_err scratch;

	assert(s->ord != NULL);
	for (size_t k = 0; k < s->n; k++) {
		size_t i = s->ord[k];
		const struct fmt_entry *e = &s->v[i];

		if (class_bit(e->klass) & tried)
			continue;
		tried |= class_bit(e->klass);
		if (lbt_format_cannot_read(e->f, len, quotes))
			continue;      /* too few quotes: no parse needed to know */
		scratch.msg[0] = '\0';
		r = lbt_format_parse(e->f, msg, len, rec, e->klass == last_class ? why : &scratch);
		if (r != LBT_PARSE_BAD) {
			s->last = i;
			return r;
		}
	}
	if (why->msg[0] == '\0')    /* the file's format was ruled out: its own reason */
		lbt_format_parse(s->v[s->last].f, msg, len, rec, why);
	return LBT_PARSE_BAD;
}

/* The entry of proxy name[0..n), or -1. */
static long proxy_find(const struct fmtset *s, const char *name, size_t n)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].proxy_len == n && memcmp(s->v[i].proxy, name, n) == 0)
			return (long)i;
	return -1;
}

/*
 * rec was read by s->v[s->last], a format with %ft: when its frontend is
 * another proxy of the set that logs differently, read the line again with
 * that one's format (and with the first again if that fails).  A proxy the
 * set does not know keeps the record as read.  @return the parse result.
 */
static int by_name(struct fmtset *s, const char *msg, size_t len, lbt_rec *rec)
{
	const struct fmt_entry *e = &s->v[s->last];
	lbt_str fe = rec->frontend;
	lbt_err scratch;
	long k;

	if (!(rec->have & LBT_BIT(LBT_F_FRONTEND)))
		return LBT_PARSE_OK;
	if (fe.n > 0 && fe.p[fe.n - 1] == '~')
		fe.n--;                  /* an SSL listener, as %ft logs it */
	if (fe.n == e->proxy_len && memcmp(fe.p, e->proxy, fe.n) == 0)
		return LBT_PARSE_OK;
	if ((k = proxy_find(s, fe.p, fe.n)) < 0)
		return LBT_PARSE_OK;
	if (s->v[k].klass == e->klass) {
		s->last = (size_t)k;
		return LBT_PARSE_OK;
	}
	scratch.msg[0] = '\0';
	if (lbt_format_parse(s->v[k].f, msg, len, rec, &scratch) == LBT_PARSE_OK) {
		s->last = (size_t)k;
		return LBT_PARSE_OK;
	}
	return lbt_format_parse(e->f, msg, len, rec, &scratch);
}

/* Parse msg with the set; see input_int.h.  @return LBT_PARSE_* */
int lbt_inputi_set_parse(struct fmtset *s, const char *msg, size_t len, lbt_rec *rec,
    lbt_err *why)
{
	int r = s->n > 1 ? parse_ordered(s, msg, len, rec, why) :
	    lbt_format_parse(s->v[0].f, msg, len, rec, why);

	if (r == LBT_PARSE_OK && s->byname && s->v[s->last].has_ft)
		r = by_name(s, msg, len, rec);
	return r;
}

/* The built-in names of s as "a,b" into buf.  @return buf, or NULL (not built-ins) */
const char *lbt_inputi_set_names(const struct fmtset *s, char *buf, size_t size)
{
	size_t n = 0;

	if (!s->builtin || s->n == 0 || size == 0)
		return NULL;
	buf[0] = '\0';
	for (size_t i = 0; i < s->n; i++) {
		n += (size_t)snprintf(buf + n, n < size ? size - n : 0, "%s%s", i ? "," : "",
		    lbt_format_name(s->v[i].f));
		if (n >= size)
			return NULL;
	}
	return buf;
}

/* The tiers of s's entries as a mask of LBT_BIT(tier). */
unsigned lbt_inputi_set_tiers(const struct fmtset *s)
{
	unsigned m = 0;

	for (size_t i = 0; i < s->n; i++)
		m |= 1u << s->v[i].tier;
	return m;
}

/* Free the entries of s. */
void lbt_inputi_set_free(struct fmtset *s)
{
	for (size_t i = 0; i < s->n; i++) {
		lbt_format_free(s->v[i].f);
		free(s->v[i].proxy);
	}
	free(s->v);
	free(s->ord);
	memset(s, 0, sizeof *s);
}
