/*
 * tarpit_cfg.c - the frontend maxconn values of a haproxy.cfg, for
 * lbt-tarpit --haproxy-cfg (see tarpit.h).
 *
 * Only what decides a frontend's connection limit is read: `maxconn` in
 * `global`, in `defaults` sections (named or not; `defaults B from A`
 * inherits A's value) and in `frontend` / `listen` sections, plus which
 * defaults section each proxy uses (`from NAME`, else the last defaults
 * section above it).  Every other line is skipped.  Words are split on
 * blanks, "..." and '...' quotes are removed, and a word starting with '#'
 * ends the line, as HAProxy's own parser does.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbt/num.h"
#include "tarpit_int.h"

enum sect { S_NONE, S_GLOBAL, S_DEFAULTS, S_PROXY, S_OTHER };

struct mc_sect {
	char *name;                 /* "" for an unnamed defaults section */
	const char *kind;           /* "defaults", "frontend", "listen" */
	int32_t maxconn;            /* -1 when the section sets none */
	uint64_t line;              /* of its maxconn */
	long defaults;              /* proxies: index of their defaults, -1 none */
};

struct lbt_maxconn_cfg {
	char *path;
	int32_t global;             /* -1 when unset */
	uint64_t global_line;
	struct mc_sect *v;          /* defaults and proxies, in file order */
	size_t n, cap;
};

#define MAXWORDS 8

/*
 * Split line s (modified in place) into at most MAXWORDS words, removing
 * quotes and stopping at a word that starts with '#'.  @return the count.
 */
static int split(char *s, char **w)
{
	int n = 0;

	while (n < MAXWORDS) {
		char *out, q = 0;

		while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
			s++;
		if (*s == '\0' || *s == '#')
			break;
		w[n++] = out = s;
		for (; *s != '\0'; s++) {
			if (q == 0 && (*s == '"' || *s == '\''))
				q = *s;
			else if (q != 0 && *s == q)
				q = 0;
			else if (q == 0 && (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n'))
				break;
			else
				*out++ = *s;
		}
		if (*s != '\0')
			s++;
		*out = '\0';
	}
	return n;
}

/* Index of the defaults section named `name`, or -1. */
static long find_defaults(const lbt_maxconn_cfg *c, const char *name)
{
	size_t i;

	for (i = c->n; i-- > 0;)
		if (strcmp(c->v[i].kind, "defaults") == 0 && strcmp(c->v[i].name, name) == 0)
			return (long)i;
	return -1;
}

/*
 * Open a defaults / frontend / listen section from its words.
 * `*cur_def` is the defaults section in force (updated by a defaults line).
 * @return 0, or -1 when out of memory or `from` names no defaults section
 * (err filled with file:line).
 */
static int sect_open(lbt_maxconn_cfg *c, char **w, int nw, long *cur_def, uint64_t line,
    lbt_err *err)
{
	struct mc_sect *s;
	int isdef = strcmp(w[0], "defaults") == 0;
	const char *name = nw > 1 && strcmp(w[1], "from") != 0 ? w[1] : "";
	long from = *cur_def;

	if (nw > 2 && strcmp(w[nw - 2], "from") == 0) {
		from = find_defaults(c, w[nw - 1]);
		if (from < 0)
			return lbt_err_at(err, c->path, line, "'from %s': no defaults section of "
			    "that name above", w[nw - 1]);
	}
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 16;
		struct mc_sect *v = realloc(c->v, cap * sizeof *v);

		if (v == NULL)
			return lbt_err_set(err, "out of memory");
		c->v = v;
		c->cap = cap;
	}
	s = &c->v[c->n];
	if ((s->name = strdup(name)) == NULL)
		return lbt_err_set(err, "out of memory");
	s->kind = isdef ? "defaults" : strcmp(w[0], "listen") == 0 ? "listen" : "frontend";
	s->maxconn = isdef && from >= 0 ? c->v[from].maxconn : -1;
	s->line = isdef && from >= 0 ? c->v[from].line : 0;
	s->defaults = isdef ? -1 : from;
	c->n++;
	if (isdef)
		*cur_def = (long)c->n - 1;
	return 0;
}

/* The section a line's first word opens, or S_NONE when it opens none. */
static enum sect sect_kind(const char *w)
{
	static const char *const other[] = {
		"backend", "peers", "resolvers", "userlist", "mailers", "program",
		"http-errors", "ring", "cache", "log-forward", "crt-store", "traces",
		"fcgi-app", "log-profile", "acme", "dynamic-update", NULL
	};
	int i;

	if (strcmp(w, "global") == 0)
		return S_GLOBAL;
	if (strcmp(w, "defaults") == 0)
		return S_DEFAULTS;
	if (strcmp(w, "frontend") == 0 || strcmp(w, "listen") == 0)
		return S_PROXY;
	for (i = 0; other[i] != NULL; i++)
		if (strcmp(w, other[i]) == 0)
			return S_OTHER;
	return S_NONE;
}

/* A `maxconn N` line in section `cur`.  @return 0, or -1 with err. */
static int set_maxconn(lbt_maxconn_cfg *c, enum sect cur, char **w, int nw, uint64_t line,
    lbt_err *err)
{
	int64_t v;
	lbt_err e;

	if (nw < 2 || lbt_num_parse(w[1], 0, INT32_MAX, "maxconn", &v, &e) < 0)
		return lbt_err_at(err, c->path, line, "maxconn: '%s' is not a number in "
		    "0..2147483647", nw < 2 ? "" : w[1]);
	if (cur == S_GLOBAL) {
		c->global = (int32_t)v;
		c->global_line = line;
	} else if (cur == S_DEFAULTS || cur == S_PROXY) {
		c->v[c->n - 1].maxconn = (int32_t)v;
		c->v[c->n - 1].line = line;
	}
	return 0;
}

/* Read every line of fp into c.  @return 0, or -1 with err. */
static int parse(lbt_maxconn_cfg *c, FILE *fp, lbt_err *err)
{
	char *buf = NULL, *w[MAXWORDS];
	size_t cap = 0;
	uint64_t line = 0;
	enum sect cur = S_NONE;
	long cur_def = -1;
	int rc = 0;

	while (rc == 0 && getline(&buf, &cap, fp) >= 0) {
		int nw = split(buf, w);
		enum sect k;

		line++;
		if (nw == 0)
			continue;
		k = sect_kind(w[0]);
		if (k != S_NONE) {
			cur = k;
			if ((k == S_DEFAULTS || k == S_PROXY) &&
			    sect_open(c, w, nw, &cur_def, line, err) < 0)
				rc = -1;
		} else if (strcmp(w[0], "maxconn") == 0) {
			rc = set_maxconn(c, cur, w, nw, line, err);
		}
	}
	if (rc == 0 && ferror(fp))
		rc = lbt_err_at(err, c->path, 0, "%s", strerror(errno));
	free(buf);
	return rc;
}

/* Read path into a new table.  @return it, or NULL with err (file:line). */
lbt_maxconn_cfg *lbt_maxconn_cfg_read(const char *path, lbt_err *err)
{
	lbt_maxconn_cfg *c = calloc(1, sizeof *c);
	FILE *fp;

	if (c == NULL || (c->path = strdup(path)) == NULL) {
		free(c);
		lbt_err_set(err, "out of memory");
		return NULL;
	}
	c->global = -1;
	fp = fopen(path, "r");
	if (fp == NULL) {
		lbt_err_at(err, path, 0, "%s", strerror(errno));
		lbt_maxconn_cfg_free(c);
		return NULL;
	}
	if (parse(c, fp, err) < 0) {
		fclose(fp);
		lbt_maxconn_cfg_free(c);
		return NULL;
	}
	fclose(fp);
	return c;
}

/* The global maxconn and where it is set, 0 when unset. */
int32_t lbt_maxconn_cfg_global(const lbt_maxconn_cfg *c, char *where, size_t size)
{
	if (c->global <= 0)
		return 0;
	if (where != NULL)
		snprintf(where, size, "%s:%llu (global)", c->path,
		    (unsigned long long)c->global_line);
	return c->global;
}

/* The frontend maxconn of a proxy by HAProxy's rule (see tarpit.h), 0 unknown. */
int32_t lbt_maxconn_cfg_get(const lbt_maxconn_cfg *c, const char *name, size_t len,
    char *where, size_t size)
{
	const struct mc_sect *s = NULL, *d;
	size_t i;

	if (len > 0 && name[len - 1] == '~')
		len--;
	for (i = c->n; i-- > 0;)
		if (strcmp(c->v[i].kind, "defaults") != 0 && strlen(c->v[i].name) == len &&
		    memcmp(c->v[i].name, name, len) == 0) {
			s = &c->v[i];
			break;
		}
	if (s == NULL)
		return 0;
	d = s->defaults >= 0 ? &c->v[s->defaults] : NULL;
	if (s->maxconn <= 0 && d != NULL && d->maxconn > 0)
		s = d;
	if (s->maxconn <= 0)
		return lbt_maxconn_cfg_global(c, where, size);
	if (where != NULL)
		snprintf(where, size, "%s:%llu (%s%s%s)", c->path, (unsigned long long)s->line,
		    s->kind, s->name[0] ? " " : "", s->name);
	return s->maxconn;
}

/* Free the table; NULL accepted. */
void lbt_maxconn_cfg_free(lbt_maxconn_cfg *c)
{
	size_t i;

	if (c == NULL)
		return;
	for (i = 0; i < c->n; i++)
		free(c->v[i].name);
	free(c->v);
	free(c->path);
	free(c);
}
