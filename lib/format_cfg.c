/*
 * format_cfg.c - the log format of a proxy, read from a real haproxy.cfg.
 *
 * Lines are split as HAProxy does (cfgparse.c parse_line): blanks separate
 * words, '#' starts a comment, a backslash escapes the next character
 * ("\ " is a space), "double quotes" keep blanks and expand ${VAR} (the
 * HAPROXY_*_LOG_FMT variables of 2.8+ are the built-in strings, others come
 * from the environment), 'single quotes' keep everything.
 *
 * Sections: global, defaults [NAME] [from X], frontend / listen / backend
 * NAME [from X]; others are skipped.  A defaults section starts from
 * nothing (or from X); a proxy starts from the defaults section named by
 * "from", else from the last defaults section above it,
 * then applies its own lines in order: the last of log-format, option
 * httplog [clf], option httpslog, option tcplog [clf] wins ("no option
 * httplog" is refused by HAProxy 2.6; it is taken as cancelling); httplog
 * in mode tcp falls back to tcplog as HAProxy does.  A
 * proxy logs when it has "log" lines (or "log global") of its own or from
 * its defaults.  Captures ("capture request header", "declare capture",
 * "http-request capture ... len") give the slot order of %hr and %hrl:
 * Host -> host, User-Agent -> ua, X-Forwarded-For -> client, others "-".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "format_int.h"

#define MAX_WORDS 64
#define MAX_PROXIES 256
#define LINE_MAX_CFG 65536

enum logopt { LO_NONE, LO_FORMAT, LO_HTTP, LO_HTTP_CLF, LO_HTTPS, LO_TCP, LO_TCP_CLF };
enum pkind { PK_DEFAULTS, PK_FRONTEND, PK_LISTEN, PK_BACKEND, PK_OTHER };

/* A proxy or defaults section, with what it inherited. */
struct proxy {
	char name[128];
	int kind;                  /* enum pkind */
	int line;
	int logopt;                /* enum logopt */
	char *fmt;                 /* LO_FORMAT template (owned) */
	int http;                  /* mode http */
	int logs;                  /* has log targets */
	char caps[256];            /* request capture meanings "host,ua,-" */
	int nreq, nresp;
};

/* Reader state. */
struct cfg {
	const char *path;
	lbt_err *err;
	struct proxy *v;
	int n;
	int cur;                   /* index of the current section, -1 none */
	int last_def;              /* last defaults section, -1 none */
	uint64_t lineno;
};

/* Built-in template named `name` (a descriptor's template). @return it or NULL */
static char *builtin_tmpl(const char *name)
{
	lbt_format *f = lbt_format_open(name, NULL);
	char *t = f ? fmt_strndup(lbt_format_template(f), strlen(lbt_format_template(f))) : NULL;

	lbt_format_free(f);
	return t;
}

/* Value of ${name}: the HAPROXY_*_LOG_FMT strings, else the environment. @return owned or NULL */
static char *env_value(const char *name)
{
	static const struct { const char *var, *fmt; } known[] = {
		{ "HAPROXY_HTTP_LOG_FMT", "haproxy-httplog" },
		{ "HAPROXY_HTTPS_LOG_FMT", "haproxy-httpslog" },
		{ "HAPROXY_TCP_LOG_FMT", "haproxy-tcplog" },
		{ "HAPROXY_HTTP_CLF_LOG_FMT", "haproxy-clf" },
		{ "HAPROXY_TCP_CLF_LOG_FMT", "haproxy-tcpclf" },
	};
	const char *v;

	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
		if (strcmp(known[i].var, name) == 0)
			return builtin_tmpl(known[i].fmt);
	v = getenv(name);
	return v ? fmt_strndup(v, strlen(v)) : NULL;
}

/* Output buffer for one word. */
struct wbuf {
	char *p;
	size_t n, cap;
};

/* Append n bytes to w. @return 0 or -1 */
static int wput(struct wbuf *w, const char *s, size_t n)
{
	if (w->n + n + 1 > w->cap) {
		size_t cap = (w->n + n + 1) * 2;
		char *p = realloc(w->p, cap);

		if (p == NULL)
			return -1;
		w->p = p;
		w->cap = cap;
	}
	memcpy(w->p + w->n, s, n);
	w->n += n;
	w->p[w->n] = '\0';
	return 0;
}

/* Expand "${NAME}" at s[*i] (on '$') into w. @return 0, or -1 with err */
static int expand_var(struct cfg *c, const char *s, size_t *i, struct wbuf *w)
{
	const char *close = strchr(s + *i, '}');
	char name[128];
	char *v;
	int r;

	if (s[*i + 1] != '{' || close == NULL)
		return wput(w, "$", 1) < 0 ? lbt_err_set(c->err, "out of memory") : (++*i, 0);
	snprintf(name, sizeof name, "%.*s", (int)(close - s - *i - 2), s + *i + 2);
	v = env_value(name);
	if (v == NULL)
		return lbt_err_at(c->err, c->path, c->lineno, "unknown environment variable '%s'",
		    name);
	r = wput(w, v, strlen(v));
	free(v);
	*i = (size_t)(close - s) + 1;
	return r < 0 ? lbt_err_set(c->err, "out of memory") : 0;
}

/* Value of the two hex digits at s ("\xHH" escapes), or -1. */
static int hex2(const char *s)
{
	int v = 0;

	for (int k = 0; k < 2; k++) {
		char ch = s[k];
		int d = ch >= '0' && ch <= '9' ? ch - '0' : (ch | 0x20) >= 'a' && (ch | 0x20) <= 'f' ?
		    (ch | 0x20) - 'a' + 10 : -1;

		if (d < 0)
			return -1;
		v = v * 16 + d;
	}
	return v;
}

/* One character after a backslash: \n \r \t, else the character itself. */
static char unescape_char(char ch)
{
	return ch == 'n' ? '\n' : ch == 'r' ? '\r' : ch == 't' ? '\t' : ch;
}

/* One character of a word at s[*i], quote state *q, into w. @return 0 or -1 with err */
static int word_char(struct cfg *c, const char *s, size_t *i, int *q, struct wbuf *w)
{
	char ch = s[*i], e;
	int r;

	if ((ch == '"' || ch == '\'') && (*q == 0 || *q == ch)) {
		*q = *q ? 0 : ch;
		r = wput(w, "", 0);
	} else if (ch == '\\' && *q != '\'' && s[*i + 1] == 'x' && hex2(s + *i + 2) >= 0) {
		e = (char)hex2(s + *i + 2);
		*i += 3;
		r = wput(w, &e, 1);
	} else if (ch == '\\' && *q != '\'' && s[*i + 1] != '\0') {
		e = unescape_char(s[++*i]);
		r = wput(w, &e, 1);
	} else if (ch == '$' && *q == '"') {
		if (expand_var(c, s, i, w) < 0)
			return -1;
		--*i;
		return 0;
	} else
		r = wput(w, &ch, 1);
	return r < 0 ? lbt_err_set(c->err, "out of memory") : 0;
}

/*
 * Split line s into words (owned, in words[]), HAProxy quoting rules.
 * @return the number of words, or -1 with err
 */
static int split_line(struct cfg *c, const char *s, char **words)
{
	struct wbuf w = { NULL, 0, 0 };
	size_t i = 0;
	int n = 0, q = 0, inword = 0, bad = 0;

	for (;; i++) {
		char ch = s[i];

		if (ch == '\0' || (!q && (ch == ' ' || ch == '\t' || ch == '#'))) {
			if (inword && n < MAX_WORDS) {
				words[n++] = w.p ? w.p : fmt_strndup("", 0);
				w.p = NULL;
				w.n = w.cap = 0;
			}
			inword = 0;
			if (ch == '\0' || ch == '#')
				break;
			continue;
		}
		inword = 1;
		if ((bad = word_char(c, s, &i, &q, &w) < 0))
			break;
	}
	if (!bad && q)
		lbt_err_at(c->err, c->path, c->lineno, "unterminated %s quote",
		    q == '"' ? "double" : "single");
	else if (!bad)
		return n;
	free(w.p);
	while (n > 0)
		free(words[--n]);
	return -1;
}

/* Section kind of a keyword, or -1 when the word does not open a section. */
static int section_kind(const char *w)
{
	static const char *const others[] = { "global", "peers", "resolvers", "userlist",
		"cache", "program", "http-errors", "ring", "log-forward", "mailers", "crt-store",
		"traces", "log-profile", "acme", "fcgi-app", "dynamic-update" };

	if (strcmp(w, "defaults") == 0)
		return PK_DEFAULTS;
	if (strcmp(w, "frontend") == 0)
		return PK_FRONTEND;
	if (strcmp(w, "listen") == 0)
		return PK_LISTEN;
	if (strcmp(w, "backend") == 0)
		return PK_BACKEND;
	for (size_t i = 0; i < sizeof others / sizeof others[0]; i++)
		if (strcmp(w, others[i]) == 0)
			return PK_OTHER;
	return -1;
}

/* Index of the defaults section named `name`, or -1. */
static int find_defaults(const struct cfg *c, const char *name)
{
	for (int i = c->n - 1; i >= 0; i--)
		if (c->v[i].kind == PK_DEFAULTS && strcmp(c->v[i].name, name) == 0)
			return i;
	return -1;
}

/* Copy what a proxy inherits from defaults d. @return 0 or -1 */
static int inherit(struct proxy *p, const struct proxy *d)
{
	p->logopt = d->logopt;
	p->http = d->http;
	p->logs = d->logs;
	if (d->fmt != NULL && (p->fmt = fmt_strndup(d->fmt, strlen(d->fmt))) == NULL)
		return -1;
	return 0;
}

/* Open a section from its words. @return 0 or -1 */
static int open_section(struct cfg *c, int kind, char **w, int nw)
{
	struct proxy *p;
	int from = kind == PK_DEFAULTS ? -1 : c->last_def;   /* defaults reset everything */

	c->cur = -1;
	if (kind == PK_OTHER)
		return 0;
	if (c->n == MAX_PROXIES)
		return lbt_err_at(c->err, c->path, c->lineno, "more than %d proxies", MAX_PROXIES);
	p = &c->v[c->n];
	memset(p, 0, sizeof *p);
	p->kind = kind;
	p->line = (int)c->lineno;
	snprintf(p->name, sizeof p->name, "%s", nw > 1 && strcmp(w[1], "from") ? w[1] : "");
	for (int i = 1; i + 1 < nw; i++)
		if (strcmp(w[i], "from") == 0 && (from = find_defaults(c, w[i + 1])) < 0)
			return lbt_err_at(c->err, c->path, c->lineno, "no defaults section '%s'",
			    w[i + 1]);
	if (from >= 0 && inherit(p, &c->v[from]) < 0)
		return lbt_err_set(c->err, "out of memory");
	c->cur = c->n++;
	if (kind == PK_DEFAULTS)
		c->last_def = c->cur;
	return 0;
}

/* Meaning of a captured header name or sample ("host", "ua", "client", "-"). */
static const char *cap_meaning(const char *w)
{
	static const struct { const char *name, *cap; } map[] = {
		{ "host", "host" }, { "user-agent", "ua" }, { "x-forwarded-for", "client" },
		{ "req.hdr(host)", "host" }, { "req.fhdr(host)", "host" }, { "hdr(host)", "host" },
		{ "req.hdr(user-agent)", "ua" }, { "req.fhdr(user-agent)", "ua" },
		{ "hdr(user-agent)", "ua" }, { "req.hdr(x-forwarded-for)", "client" },
	};

	for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
		if (strcasecmp(map[i].name, w) == 0)
			return map[i].cap;
	return "-";
}

/* Add a request capture slot of meaning m. */
static void add_cap(struct proxy *p, const char *m)
{
	size_t n = strlen(p->caps);

	snprintf(p->caps + n, sizeof p->caps - n, "%s%s", n ? "," : "", m);
	p->nreq++;
}

/* True when words w[0..nw) contain "id". */
static int has_word(char **w, int nw, const char *word)
{
	for (int i = 0; i < nw; i++)
		if (strcmp(w[i], word) == 0)
			return 1;
	return 0;
}

/* Capture directives. */
static void capture_line(struct proxy *p, char **w, int nw)
{
	if (strcmp(w[0], "capture") == 0 && nw >= 4 && strcmp(w[2], "header") == 0) {
		if (strcmp(w[1], "request") == 0)
			add_cap(p, cap_meaning(w[3]));
		else if (strcmp(w[1], "response") == 0)
			p->nresp++;
	} else if (strcmp(w[0], "declare") == 0 && nw >= 3 && strcmp(w[1], "capture") == 0) {
		if (strcmp(w[2], "request") == 0)
			add_cap(p, "-");
		else if (strcmp(w[2], "response") == 0)
			p->nresp++;
	} else if (strcmp(w[0], "http-request") == 0 && nw >= 3 &&
	    strcmp(w[1], "capture") == 0 && !has_word(w, nw, "id"))
		add_cap(p, cap_meaning(w[2]));
}

/* "option X [clf]" or "no option X": the log option it names, or -1. */
static int log_option(char **w, int nw, int *neg)
{
	int o = 0;

	*neg = strcmp(w[0], "no") == 0;
	o = *neg;
	if (nw < o + 2 || strcmp(w[o], "option") != 0)
		return -1;
	if (strcmp(w[o + 1], "httplog") == 0)
		return nw > o + 2 && strcmp(w[o + 2], "clf") == 0 ? LO_HTTP_CLF : LO_HTTP;
	if (strcmp(w[o + 1], "httpslog") == 0)
		return LO_HTTPS;
	if (strcmp(w[o + 1], "tcplog") == 0)
		return nw > o + 2 && strcmp(w[o + 2], "clf") == 0 ? LO_TCP_CLF : LO_TCP;
	return -1;
}

/* Join w[from..nw) with spaces into a new string. */
static char *join(char **w, int from, int nw)
{
	struct wbuf b = { NULL, 0, 0 };

	for (int i = from; i < nw; i++)
		if ((i > from && wput(&b, " ", 1) < 0) || wput(&b, w[i], strlen(w[i])) < 0) {
			free(b.p);
			return NULL;
		}
	return b.p ? b.p : fmt_strndup("", 0);
}

/* A line inside a proxy or defaults section. @return 0 or -1 */
static int proxy_line(struct cfg *c, struct proxy *p, char **w, int nw)
{
	int neg, o = log_option(w, nw, &neg);

	if (o >= 0) {
		if (!neg)
			p->logopt = o;
		else if (p->logopt == o || (o == LO_HTTP && p->logopt == LO_HTTP_CLF) ||
		    (o == LO_TCP && p->logopt == LO_TCP_CLF))
			p->logopt = LO_NONE;
	} else if (strcmp(w[0], "log-format") == 0 && nw >= 2) {
		free(p->fmt);
		if ((p->fmt = join(w, 1, nw)) == NULL)
			return lbt_err_set(c->err, "out of memory");
		p->logopt = LO_FORMAT;
	} else if (strcmp(w[0], "mode") == 0 && nw >= 2)
		p->http = strcmp(w[1], "http") == 0;
	else if (strcmp(w[0], "log") == 0)
		p->logs = 1;
	else if (strcmp(w[0], "no") == 0 && nw >= 2 && strcmp(w[1], "log") == 0)
		p->logs = 0;
	else
		capture_line(p, w, nw);
	return 0;
}

/* Handle one configuration line. @return 0 or -1 */
static int cfg_line(struct cfg *c, const char *line)
{
	char *w[MAX_WORDS];
	int nw = split_line(c, line, w), r = 0, kind;

	if (nw <= 0)
		return nw;
	kind = section_kind(w[0]);
	if (kind >= 0)
		r = open_section(c, kind, w, nw);
	else if (c->cur >= 0)
		r = proxy_line(c, &c->v[c->cur], w, nw);
	while (nw > 0)
		free(w[--nw]);
	return r;
}

/* Read every line of the file. @return 0 or -1 */
static int cfg_read(struct cfg *c)
{
	FILE *fp = fopen(c->path, "r");
	char *line = malloc(LINE_MAX_CFG);
	int r = 0;

	if (fp == NULL || line == NULL) {
		free(line);
		if (fp)
			fclose(fp);
		return lbt_err_at(c->err, c->path, 0, "%s", fp ? "out of memory" : strerror(errno));
	}
	while (r == 0 && fgets(line, LINE_MAX_CFG, fp) != NULL) {
		c->lineno++;
		line[strcspn(line, "\r\n")] = '\0';
		r = cfg_line(c, line);
	}
	free(line);
	fclose(fp);
	return r;
}

/* Built-in descriptor and template for a proxy's option. @return owned template or NULL */
static char *proxy_template(const struct proxy *p, const char **name)
{
	static const char *const tcpish[] = { "haproxy-minimal", NULL, "haproxy-httplog",
		"haproxy-clf", "haproxy-httpslog", "haproxy-tcplog", "haproxy-tcpclf" };

	*name = tcpish[p->logopt];
	if (p->logopt == LO_FORMAT) {
		*name = "custom";
		return fmt_strndup(p->fmt, strlen(p->fmt));
	}
	if (!p->http && (p->logopt == LO_HTTP || p->logopt == LO_HTTPS))
		*name = "haproxy-tcplog";
	else if (!p->http && p->logopt == LO_HTTP_CLF)
		*name = "haproxy-tcpclf";
	return builtin_tmpl(*name);
}

/* Compile the format proxy p logs with. @return it or NULL with err */
static lbt_format *proxy_format(struct cfg *c, const struct proxy *p)
{
	const char *name;
	char *t = proxy_template(p, &name), desc[512];
	lbt_format *f;

	if (t == NULL) {
		lbt_err_set(c->err, "out of memory");
		return NULL;
	}
	f = lbt_format_compile(LBT_DIALECT_HAPROXY, t, NULL, c->err);
	free(t);
	if (f == NULL) {
		char msg[sizeof c->err->msg];

		snprintf(msg, sizeof msg, "%s", c->err ? c->err->msg : "");
		lbt_err_at(c->err, c->path, (uint64_t)p->line, "proxy '%s': %s", p->name, msg);
		return NULL;
	}
	snprintf(desc, sizeof desc, "%s %s (%s:%d)", p->kind == PK_LISTEN ? "listen" : "frontend",
	    p->name, c->path, p->line);
	free(f->name);
	f->name = fmt_strndup(name, strlen(name));
	f->describe = fmt_strndup(desc, strlen(desc));
	f->req_caps = p->nreq;
	f->resp_caps = p->nresp;
	if (fmt_set_captures(f, p->caps, c->err) < 0 || f->name == NULL) {
		lbt_format_free(f);
		return NULL;
	}
	return f;
}

/* True when proxies a and b log identically (same template and captures). */
static int same_format(const struct proxy *a, const struct proxy *b)
{
	return a->logopt == b->logopt && a->http == b->http && a->nresp == b->nresp &&
	    strcmp(a->caps, b->caps) == 0 &&
	    (a->logopt != LO_FORMAT || strcmp(a->fmt, b->fmt) == 0);
}

/* Comma list of the names of proxies of interest into buf. */
static const char *names(const struct cfg *c, int only_logging, char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int i = 0; i < c->n && n < size; i++) {
		const struct proxy *p = &c->v[i];

		if ((p->kind == PK_FRONTEND || p->kind == PK_LISTEN) && (!only_logging || p->logs))
			n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? ", " : "", p->name);
	}
	return buf[0] ? buf : "none";
}

/* The proxy to read: by name, else the only one that logs. @return index or -1 with err */
static int choose(struct cfg *c, const char *frontend)
{
	char list[400];
	int pick = -1, nlog = 0, nfe = 0, fe = -1;

	for (int i = 0; i < c->n; i++) {
		const struct proxy *p = &c->v[i];

		if (p->kind != PK_FRONTEND && p->kind != PK_LISTEN)
			continue;
		if (frontend != NULL && strcmp(p->name, frontend) == 0)
			return i;
		nfe++;
		fe = i;
		if (p->logs && (pick < 0 || !same_format(&c->v[pick], p)))
			nlog++;
		if (p->logs && pick < 0)
			pick = i;
	}
	if (frontend != NULL)
		return lbt_err_at(c->err, c->path, 0, "no frontend or listen section '%s' (there are: "
		    "%s)", frontend, names(c, 0, list, sizeof list));
	if (nlog == 1)
		return pick;
	if (nlog == 0 && nfe == 1)
		return fe;
	return lbt_err_at(c->err, c->path, 0, nlog ? "several proxies log with different formats "
	    "(%s): choose one with --frontend" : "no frontend logs (frontends: %s)",
	    names(c, nlog > 0, list, sizeof list));
}

/*
 * Read haproxy.cfg at path and compile the format of proxy `frontend` (NULL:
 * the one that logs).  @return the format, or NULL with err (file:line).
 */
lbt_format *lbt_format_from_haproxy_cfg(const char *path, const char *frontend, lbt_err *err)
{
	struct cfg c;
	lbt_format *f = NULL;
	int i;

	memset(&c, 0, sizeof c);
	c.path = path;
	c.err = err;
	c.cur = c.last_def = -1;
	c.v = calloc(MAX_PROXIES, sizeof *c.v);
	if (c.v == NULL) {
		lbt_err_set(err, "out of memory");
		return NULL;
	}
	if (cfg_read(&c) == 0 && (i = choose(&c, frontend)) >= 0)
		f = proxy_format(&c, &c.v[i]);
	for (int k = 0; k < c.n; k++)
		free(c.v[k].fmt);
	free(c.v);
	return f;
}
