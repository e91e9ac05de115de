/*
 * format_cfg.c - the log format of a proxy, read from a real haproxy.cfg
 * (lbt_format_from_haproxy_cfg, format.h).
 *
 * lib/config/hacfg.c reads the file (words, sections, which defaults section a
 * proxy starts from); this file knows only what decides a log format.  A
 * proxy has the settings of its defaults section (itself started from its
 * own, and so on), then applies its own lines in order: the last of
 * log-format, option httplog [clf], option httpslog, option tcplog [clf]
 * wins ("no option httplog" is refused by HAProxy 2.6; it is taken as
 * cancelling); httplog in mode tcp falls back to tcplog as HAProxy does.
 * A proxy logs when it has "log" lines (or "log global") of its own or
 * from its defaults.  Captures ("capture request header", "declare
 * capture", "http-request capture ... len") give the slot order of %hr and
 * %hrl: Host -> host, User-Agent -> ua, X-Forwarded-For -> client, others
 * "-"; HAProxy refuses them in defaults sections, so they are not
 * inherited.  "${HAPROXY_HTTP_LOG_FMT}" and its siblings (newer HAProxy
 * versions) are the built-in strings; a log-format that uses a variable
 * this machine does not know is an error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "format_int.h"
#include "lbt/hacfg.h"
#include "lbt/vec.h"

enum logopt { LO_NONE, LO_FORMAT, LO_HTTP, LO_HTTP_CLF, LO_HTTPS, LO_TCP, LO_TCP_CLF };

/* What decides the log format of a proxy (or defaults) section. */
struct logset {
	int logopt;                      /* enum logopt */
	const lbt_hacfg_dir *fmt;        /* the log-format line of LO_FORMAT */
	int http;                        /* mode http */
	int logs;                        /* has log targets */
	char caps[256];                  /* request capture meanings "host,ua,-" */
	int nreq, nresp;
};

/* HAProxy's own variables naming its built-in formats, and our descriptors. */
static const struct { const char *var, *fmt; } fmt_vars[] = {
	{ "HAPROXY_HTTP_LOG_FMT", "haproxy-httplog" },
	{ "HAPROXY_HTTPS_LOG_FMT", "haproxy-httpslog" },
	{ "HAPROXY_TCP_LOG_FMT", "haproxy-tcplog" },
	{ "HAPROXY_HTTP_CLF_LOG_FMT", "haproxy-clf" },
	{ "HAPROXY_TCP_CLF_LOG_FMT", "haproxy-tcpclf" },
};

#define NVARS (sizeof fmt_vars / sizeof fmt_vars[0])

/* Built-in template named `name` (a descriptor's template). @return owned or NULL */
static char *builtin_tmpl(const char *name)
{
	lbt_format *f = lbt_format_open(name, NULL);
	char *t = f ? lbt_fmti_strndup(lbt_format_template(f), strlen(lbt_format_template(f))) : NULL;

	lbt_format_free(f);
	return t;
}

/*
 * lbt_hacfg_opts.var: ${HAPROXY_*_LOG_FMT}, cached in arg (char *[NVARS],
 * freed by the caller); NULL for others (the environment is asked next).
 */
static const char *fmt_var(void *arg, const char *name)
{
	char **cache = arg;

	for (size_t i = 0; i < NVARS; i++)
		if (strcmp(fmt_vars[i].var, name) == 0) {
			if (cache[i] == NULL)
				cache[i] = builtin_tmpl(fmt_vars[i].fmt);
			return cache[i];
		}
	return NULL;
}

/* Append s[0..n) to the growing string *buf (size *cap, used *len). @return 0 or -1 */
static int append(char **buf, size_t *len, size_t *cap, const char *s, size_t n)
{
	if (n > SIZE_MAX - *len - 1 || LBT_GROW(*buf, *cap, *len + n + 1, 256) < 0)
		return -1;
	memcpy(*buf + *len, s, n);
	*len += n;
	(*buf)[*len] = '\0';
	return 0;
}

/* The built-in template a ${NAME} stands for, cached in cache[]; NULL if unknown. */
static const char *known_var(char **cache, const char *name, size_t n)
{
	char v[64];

	if (n >= sizeof v)
		return NULL;
	memcpy(v, name, n);
	v[n] = '\0';
	return fmt_var(cache, v);
}

char *lbt_format_expand_log_vars(const char *tmpl, lbt_err *err)
{
	char *cache[NVARS] = { NULL }, *out = NULL;
	size_t len = 0, cap = 0;
	const char *p = tmpl, *ref;
	int ok = 1;

	while (ok && (ref = strstr(p, "${")) != NULL) {
		const char *end = strchr(ref, '}');
		const char *val = end ? known_var(cache, ref + 2, (size_t)(end - ref - 2)) : NULL;

		if (val == NULL) {
			lbt_err_set(err, "unknown variable '%.*s' in the template: only "
			    "${HAPROXY_HTTP_LOG_FMT}, _HTTPS_, _TCP_, _HTTP_CLF_ and _TCP_CLF_ "
			    "are known", (int)(end ? (size_t)(end - ref + 1) : strlen(ref)), ref);
			ok = 0;
		} else if (append(&out, &len, &cap, p, (size_t)(ref - p)) < 0 ||
		    append(&out, &len, &cap, val, strlen(val)) < 0) {
			ok = !lbt_err_set(err, "out of memory");
		} else
			p = end + 1;
	}
	if (ok && append(&out, &len, &cap, p, strlen(p)) < 0)
		ok = !lbt_err_set(err, "out of memory");
	for (size_t i = 0; i < NVARS; i++)
		free(cache[i]);
	if (!ok) {
		free(out);
		return NULL;
	}
	return out;
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
static void add_cap(struct logset *p, const char *m)
{
	size_t n = strlen(p->caps);

	snprintf(p->caps + n, sizeof p->caps - n, "%s%s", n ? "," : "", m);
	p->nreq++;
}

/* True when words w[0..nw) contain `word`. */
static int has_word(char **w, int nw, const char *word)
{
	for (int i = 0; i < nw; i++)
		if (strcmp(w[i], word) == 0)
			return 1;
	return 0;
}

/* Capture directives. */
static void capture_line(struct logset *p, char **w, int nw)
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

/* Apply directive d to p (captures only outside defaults sections). */
static void apply_dir(struct logset *p, const lbt_hacfg_dir *d, int in_defaults)
{
	char **w = d->word;
	int nw = d->nword, neg, o = log_option(w, nw, &neg);

	if (o >= 0) {
		if (!neg)
			p->logopt = o;
		else if (p->logopt == o || (o == LO_HTTP && p->logopt == LO_HTTP_CLF) ||
		    (o == LO_TCP && p->logopt == LO_TCP_CLF))
			p->logopt = LO_NONE;
	} else if (strcmp(w[0], "log-format") == 0 && nw >= 2) {
		p->fmt = d;
		p->logopt = LO_FORMAT;
	} else if (strcmp(w[0], "mode") == 0 && nw >= 2)
		p->http = strcmp(w[1], "http") == 0;
	else if (strcmp(w[0], "log") == 0)
		p->logs = 1;
	else if (strcmp(w[0], "no") == 0 && nw >= 2 && strcmp(w[1], "log") == 0)
		p->logs = 0;
	else if (!in_defaults)
		capture_line(p, w, nw);
}

/* The settings of section s: those of its defaults chain, then its own lines. */
static void settings(const lbt_hacfg_sect *s, struct logset *p)
{
	if (s->defaults != NULL)
		settings(s->defaults, p);
	else
		memset(p, 0, sizeof *p);
	for (size_t i = 0; i < s->ndir; i++)
		apply_dir(p, &s->dir[i], s->kind == LBT_HACFG_DEFAULTS);
}

/* Words 1.. of the log-format line, joined by spaces. @return owned or NULL */
static char *fmt_text(const lbt_hacfg_dir *d)
{
	size_t n = 0, len = 1;
	char *t;

	for (int i = 1; i < d->nword; i++)
		len += strlen(d->word[i]) + 1;
	if ((t = malloc(len)) == NULL)
		return NULL;
	for (int i = 1; i < d->nword; i++)
		n += (size_t)snprintf(t + n, len - n, "%s%s", i > 1 ? " " : "", d->word[i]);
	t[n] = '\0';
	return t;
}

/* Descriptor name and template for settings p. @return owned template or NULL */
static char *proxy_template(const struct logset *p, const char **name)
{
	static const char *const byopt[] = { "haproxy-minimal", NULL, "haproxy-httplog",
		"haproxy-clf", "haproxy-httpslog", "haproxy-tcplog", "haproxy-tcpclf" };

	*name = byopt[p->logopt];
	if (p->logopt == LO_FORMAT) {
		*name = "custom";
		return fmt_text(p->fmt);
	}
	if (!p->http && (p->logopt == LO_HTTP || p->logopt == LO_HTTPS))
		*name = "haproxy-tcplog";
	else if (!p->http && p->logopt == LO_HTTP_CLF)
		*name = "haproxy-tcpclf";
	return builtin_tmpl(*name);
}

/* Name the format f of proxy s and give it the capture slots.  @return 0 or -1 */
static int label(lbt_format *f, const char *path, const lbt_hacfg_sect *s,
    const struct logset *p, const char *name, lbt_err *err)
{
	char desc[512];

	snprintf(desc, sizeof desc, "%s %s (%s:%llu)", s->kind == LBT_HACFG_LISTEN ? "listen" :
	    "frontend", s->name, path, (unsigned long long)s->line);
	free(f->name);
	f->name = lbt_fmti_strndup(name, strlen(name));
	f->describe = lbt_fmti_strndup(desc, strlen(desc));
	f->req_caps = p->nreq;
	f->resp_caps = p->nresp;
	if (f->name == NULL || f->describe == NULL)
		return lbt_err_set(err, "out of memory");
	return lbt_fmti_set_captures(f, p->caps, err);
}

/* Compile the format proxy s logs with. @return it or NULL with err */
static lbt_format *proxy_format(const char *path, const lbt_hacfg_sect *s, lbt_err *err)
{
	struct logset p;
	const char *name;
	char *t;
	lbt_format *f;

	settings(s, &p);
	if (p.logopt == LO_FORMAT && p.fmt->unset != NULL) {
		lbt_err_at(err, path, p.fmt->line, "unknown environment variable '%s'", p.fmt->unset);
		return NULL;
	}
	if ((t = proxy_template(&p, &name)) == NULL) {
		lbt_err_set(err, "out of memory");
		return NULL;
	}
	f = lbt_format_compile(LBT_DIALECT_HAPROXY, t, NULL, err);
	free(t);
	if (f == NULL) {
		char msg[sizeof err->msg];

		snprintf(msg, sizeof msg, "%s", err ? err->msg : "");
		lbt_err_at(err, path, s->line, "proxy '%s': %s", s->name, msg);
		return NULL;
	}
	if (label(f, path, s, &p, name, err) < 0) {
		lbt_format_free(f);
		return NULL;
	}
	return f;
}

/* True when the words of log-format lines a and b are the same. */
static int same_words(const lbt_hacfg_dir *a, const lbt_hacfg_dir *b)
{
	if (a->nword != b->nword)
		return 0;
	for (int i = 1; i < a->nword; i++)
		if (strcmp(a->word[i], b->word[i]) != 0)
			return 0;
	return 1;
}

/* True when settings a and b log identically (same template and captures). */
static int same_format(const struct logset *a, const struct logset *b)
{
	return a->logopt == b->logopt && a->http == b->http && a->nresp == b->nresp &&
	    strcmp(a->caps, b->caps) == 0 && (a->logopt != LO_FORMAT || same_words(a->fmt, b->fmt));
}

/* True for a frontend or listen section. */
static int is_frontend(const lbt_hacfg_sect *s)
{
	return s->kind == LBT_HACFG_FRONTEND || s->kind == LBT_HACFG_LISTEN;
}

/* Comma list of the frontends (only_logging: those that log) into buf. */
static const char *names(const lbt_hacfg *c, int only_logging, char *buf, size_t size)
{
	size_t n = 0;
	struct logset p;

	buf[0] = '\0';
	for (size_t i = 0; i < lbt_hacfg_count(c) && n < size; i++) {
		const lbt_hacfg_sect *s = lbt_hacfg_at(c, i);

		if (!is_frontend(s))
			continue;
		if (only_logging) {
			settings(s, &p);
			if (!p.logs)
				continue;
		}
		n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? ", " : "", s->name);
	}
	return buf[0] ? buf : "none";
}

/* Without --frontend: the only proxy that logs (or the only one). @return it or NULL with err */
static const lbt_hacfg_sect *choose(const lbt_hacfg *c, const char *path, lbt_err *err)
{
	const lbt_hacfg_sect *pick = NULL, *fe = NULL;
	struct logset first, p;
	char list[400];
	int nlog = 0, nfe = 0;

	for (size_t i = 0; i < lbt_hacfg_count(c); i++) {
		const lbt_hacfg_sect *s = lbt_hacfg_at(c, i);

		if (!is_frontend(s))
			continue;
		nfe++;
		fe = s;
		settings(s, &p);
		if (p.logs && (pick == NULL || !same_format(&first, &p)))
			nlog++;
		if (p.logs && pick == NULL) {
			pick = s;
			first = p;
		}
	}
	if (nlog == 1)
		return pick;
	if (nlog == 0 && nfe == 1)
		return fe;
	lbt_err_at(err, path, 0, nlog ? "several proxies log with different formats (%s): "
	    "choose one with --frontend" : "no frontend logs (frontends: %s)",
	    names(c, nlog > 0, list, sizeof list));
	return NULL;
}

/* Read path with the ${HAPROXY_*_LOG_FMT} variables known.  @return it or NULL with err */
static lbt_hacfg *cfg_read(const char *path, lbt_err *err)
{
	char *cache[NVARS] = { NULL };
	lbt_hacfg_opts o = { fmt_var, cache };
	lbt_hacfg *c = lbt_hacfg_read(path, &o, err);

	for (size_t i = 0; i < NVARS; i++)
		free(cache[i]);
	return c;
}

/* The section named `frontend`, or NULL with err listing those there are. */
static const lbt_hacfg_sect *named(const lbt_hacfg *c, const char *path, const char *frontend,
    lbt_err *err)
{
	const lbt_hacfg_sect *s = lbt_hacfg_frontend(c, frontend, strlen(frontend));
	char list[400];

	if (s == NULL)
		lbt_err_at(err, path, 0, "no frontend or listen section '%s' (there are: %s)",
		    frontend, names(c, 0, list, sizeof list));
	return s;
}

/*
 * Read haproxy.cfg at path and compile the format of proxy `frontend` (NULL:
 * the one that logs).  @return the format, or NULL with err (file:line).
 */
lbt_format *lbt_format_from_haproxy_cfg(const char *path, const char *frontend, lbt_err *err)
{
	lbt_hacfg *c = cfg_read(path, err);
	const lbt_hacfg_sect *s;
	lbt_format *f = NULL;

	if (c == NULL)
		return NULL;
	s = frontend == NULL ? choose(c, path, err) : named(c, path, frontend, err);
	if (s != NULL)
		f = proxy_format(path, s, err);
	lbt_hacfg_free(c);
	return f;
}

/* Free n entries of v and v; NULL accepted. */
void lbt_proxy_formats_free(lbt_proxy_format *v, int n)
{
	for (int i = 0; v != NULL && i < n; i++) {
		lbt_format_free(v[i].format);
		free(v[i].proxy);
	}
	free(v);
}

/*
 * Append the format of section s (settings p, already read) to v[0..*n),
 * noting the first earlier entry of the same settings (sets[]).  @return 0
 * or -1 with err.
 */
static int proxy_add(const char *path, const lbt_hacfg_sect *s, const struct logset *p,
    lbt_proxy_format **v, struct logset **sets, int *n, size_t *cap, lbt_err *err)
{
	size_t cap2 = *cap;
	lbt_proxy_format *e;

	if (LBT_GROW(*v, *cap, (size_t)*n + 1, 8) < 0 || LBT_GROW(*sets, cap2, (size_t)*n + 1, 8) < 0)
		return lbt_err_set(err, "out of memory");
	e = &(*v)[*n];
	e->same_as = -1;
	for (int k = 0; k < *n && e->same_as < 0; k++)
		if (same_format(&(*sets)[k], p))
			e->same_as = k;
	if ((e->format = proxy_format(path, s, err)) == NULL)
		return -1;
	if ((e->proxy = lbt_fmti_strndup(s->name, strlen(s->name))) == NULL) {
		lbt_format_free(e->format);
		return lbt_err_set(err, "out of memory");
	}
	(*sets)[(*n)++] = *p;
	return 0;
}

/*
 * The proxies of c to read logs with: `frontend` alone, else every
 * frontend and listen section that logs, else the only frontend.  @return
 * the count in *out, or -1 with err.
 */
static int proxies(const lbt_hacfg *c, const char *path, const char *frontend,
    lbt_proxy_format **out, lbt_err *err)
{
	const lbt_hacfg_sect *only = frontend ? named(c, path, frontend, err) : NULL;
	struct logset *sets = NULL, p;
	size_t cap = 0;
	int n = 0, rc = 0;

	*out = NULL;
	if (frontend != NULL && only == NULL)
		return -1;
	for (size_t i = 0; rc == 0 && i < lbt_hacfg_count(c); i++) {
		const lbt_hacfg_sect *s = lbt_hacfg_at(c, i);

		if (!is_frontend(s) || (only != NULL && s != only))
			continue;
		settings(s, &p);
		if (p.logs || only != NULL)
			rc = proxy_add(path, s, &p, out, &sets, &n, &cap, err);
	}
	if (rc == 0 && n == 0 && (only = choose(c, path, err)) != NULL) {
		settings(only, &p);
		rc = proxy_add(path, only, &p, out, &sets, &n, &cap, err);
	}
	free(sets);
	if (rc < 0 || n == 0) {
		lbt_proxy_formats_free(*out, n);
		*out = NULL;
		return -1;
	}
	return n;
}

/*
 * Every proxy of haproxy.cfg at path that logs (or `frontend` alone) with
 * its format; see format.h.  @return the count, or -1 with err (file:line).
 */
int lbt_format_proxies_from_haproxy_cfg(const char *path, const char *frontend,
    lbt_proxy_format **out, lbt_err *err)
{
	lbt_hacfg *c = cfg_read(path, err);
	int n;

	*out = NULL;
	if (c == NULL)
		return -1;
	n = proxies(c, path, frontend, out, err);
	lbt_hacfg_free(c);
	return n;
}
