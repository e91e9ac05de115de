/*
 * input_spec.c - inputs with their own options: --input words and sources
 * files (see include/lbt/input_spec.h for the syntax, docs/inputs.md for
 * why it is this one).
 *
 * A line is split into words first (quotes, backslashes, ';', comments),
 * then read: the first word is the input, the others key=value.  Every
 * error names the sources file and line (or "--input") and the word at
 * fault, and is found before the first record is read.
 */
#include <errno.h>
#include <glob.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbt/input_spec.h"
#include "lbt/vec.h"

#define MAX_WORDS 32

/* The words of one line (each malloc'ed). */
struct words {
	char *v[MAX_WORDS];
	int n;
};

/* Where a line comes from, for errors and relative paths. */
struct origin {
	const char *file;        /* the sources file, or "--input" */
	uint64_t line;           /* 0 for --input */
	const char *dir;         /* directory of relative paths; NULL: as they are */
};

/* Keys of a line and where their values go in lbt_input_spec. */
static const struct key {
	const char *name;
	size_t off;
	int path;                /* a file name: relative to the sources file */
} keys[] = {
	{ "format", offsetof(lbt_input_spec, format), 1 },
	{ "log-format", offsetof(lbt_input_spec, log_format), 0 },
	{ "escape", offsetof(lbt_input_spec, escape), 0 },
	{ "haproxy-cfg", offsetof(lbt_input_spec, haproxy_cfg), 1 },
	{ "frontend", offsetof(lbt_input_spec, frontend), 0 },
	{ "nginx-conf", offsetof(lbt_input_spec, nginx_conf), 1 },
	{ "log-name", offsetof(lbt_input_spec, log_name), 0 },
	{ "lb", offsetof(lbt_input_spec, lb), 0 },
	{ "log-tz", offsetof(lbt_input_spec, log_tz), 0 },
	{ "captures", offsetof(lbt_input_spec, captures), 0 },
	{ "trusted-proxies", offsetof(lbt_input_spec, trusted_proxies), 0 },
	{ "tier", 0, 0 },
};

#define NKEYS (sizeof keys / sizeof keys[0])

/* Fill err with a message at origin o.  @return -1 */
static int fail(const struct origin *o, lbt_err *err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(const struct origin *o, lbt_err *err, const char *fmt, ...)
{
	char msg[sizeof err->msg];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return lbt_err_at(err, o->file, o->line, "%s", msg);
}

/* Free the words. */
static void words_free(struct words *w)
{
	for (int i = 0; i < w->n; i++)
		free(w->v[i]);
	w->n = 0;
}

/*
 * Read one quoted part starting at *p (on the opening quote) into out:
 * '...' as it is, "..." with \" and \\ as one byte.  @return 0 with *p past
 * the closing quote, or -1 when it is missing.
 */
static int quoted(const char **p, char *out, size_t *n)
{
	char q = **p;
	const char *s = *p + 1;

	for (; *s && *s != q; s++) {
		if (q == '"' && *s == '\\' && (s[1] == '"' || s[1] == '\\'))
			s++;
		out[(*n)++] = *s;
	}
	if (*s != q)
		return -1;
	*p = s + 1;
	return 0;
}

/* True for the bytes that end a word outside quotes. */
static int is_sep(char c)
{
	return c == ' ' || c == '\t' || c == ';' || c == '\r' || c == '\n';
}

/*
 * Read the word at *p (not a separator) into a new string.  @return it with
 * *p past it, or NULL with err (a quote not closed; out of memory).
 */
static char *word(const char **p, const char *line, const struct origin *o, lbt_err *err)
{
	char *out = malloc(strlen(*p) + 1);
	const char *s = *p;
	size_t n = 0;

	if (out == NULL)
		return fail(o, err, "out of memory"), NULL;
	while (*s && !is_sep(*s)) {
		if (*s == '\'' || *s == '"') {
			const char *at = s;

			if (quoted(&s, out, &n) < 0) {
				free(out);
				fail(o, err, "%c at column %zu is not closed", *at, (size_t)(at - line) + 1);
				return NULL;
			}
		} else {
			if (*s == '\\' && s[1] != '\0')
				s++;
			out[n++] = *s++;
		}
	}
	out[n] = '\0';
	*p = s;
	return out;
}

/* Split line into w.  @return 0, or -1 with err. */
static int split(const char *line, struct words *w, const struct origin *o, lbt_err *err)
{
	const char *p = line;

	w->n = 0;
	for (;;) {
		while (is_sep(*p))
			p++;
		if (*p == '\0' || *p == '#')
			return 0;
		if (w->n == MAX_WORDS) {
			words_free(w);
			return fail(o, err, "more than %d words", MAX_WORDS);
		}
		if ((w->v[w->n] = word(&p, line, o, err)) == NULL) {
			words_free(w);
			return -1;
		}
		w->n++;
	}
}

/* The key named name[0..n), or NULL. */
static const struct key *key_find(const char *name, size_t n)
{
	for (size_t i = 0; i < NKEYS; i++)
		if (strlen(keys[i].name) == n && memcmp(keys[i].name, name, n) == 0)
			return &keys[i];
	return NULL;
}

/* True when a format= value names a file rather than built-ins. */
static int format_is_file(const char *v)
{
	size_t n = strlen(v);

	return strchr(v, '/') != NULL || (n > 4 && strcmp(v + n - 4, ".fmt") == 0);
}

/* path, or dir/path when dir is set and path is relative (not "-").  @return owned or NULL */
static char *resolve(const char *dir, const char *path)
{
	char *r;

	if (dir == NULL || path[0] == '/' || strcmp(path, "-") == 0)
		return strdup(path);
	if ((r = malloc(strlen(dir) + strlen(path) + 2)) != NULL)
		sprintf(r, "%s/%s", dir, path);
	return r;
}

/* Store the value of key k (word w, its value at v) in s.  @return 0 or -1 with err */
static int key_set(lbt_input_spec *s, const struct key *k, const char *w, const char *v,
    const struct origin *o, lbt_err *err)
{
	char **dst = (char **)((char *)s + k->off);
	int t;

	if (*v == '\0')
		return fail(o, err, "%s: empty value", w);
	if (k->off == 0) {
		if (s->tier != LBT_TIER_NONE)
			return fail(o, err, "tier= given twice");
		if ((t = lbt_tier_lookup(v, strlen(v))) < 0)
			return fail(o, err, "tier: '%s' is not lb, backend or app", v);
		s->tier = (lbt_tier)t;
		return 0;
	}
	if (*dst != NULL)
		return fail(o, err, "%s= given twice", k->name);
	*dst = k->path && (strcmp(k->name, "format") != 0 || format_is_file(v)) ?
	    resolve(o->dir, v) : strdup(v);
	return *dst ? 0 : fail(o, err, "out of memory");
}

/* Read the key=value word w into s.  @return 0 or -1 with err */
static int key_word(lbt_input_spec *s, const char *w, const struct origin *o, lbt_err *err)
{
	const char *eq = strchr(w, '=');
	const struct key *k = eq ? key_find(w, (size_t)(eq - w)) : NULL;
	char names[200] = "";

	if (k != NULL)
		return key_set(s, k, w, eq + 1, o, err);
	for (size_t i = 0; i < NKEYS; i++)
		snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s=", i ? " " : "",
		    keys[i].name);
	if (eq == NULL)
		return fail(o, err, "'%s' is not key=value (one input a line: PATH, then "
		    "key=value words)", w);
	return fail(o, err, "unknown key '%.*s' (keys: %s)", (int)(eq - w), w, names);
}

/* Check that the keys of s fit together.  @return 0 or -1 with err */
static int spec_check(const lbt_input_spec *s, const struct origin *o, lbt_err *err)
{
	int n = !!s->format + !!s->log_format + !!s->haproxy_cfg + !!s->nginx_conf;

	if (n > 1)
		return fail(o, err, "format=, log-format=, haproxy-cfg= and nginx-conf= exclude "
		    "each other");
	if (s->frontend && !s->haproxy_cfg)
		return fail(o, err, "frontend= needs haproxy-cfg=");
	if (s->log_name && !s->nginx_conf)
		return fail(o, err, "log-name= needs nginx-conf=");
	if (s->escape && !s->log_format)
		return fail(o, err, "escape= needs log-format=");
	return 0;
}

/* The files of s->pattern: a glob's matches, sorted, or the path.  @return 0 or -1 */
static int expand(lbt_input_spec *s, const struct origin *o, lbt_err *err)
{
	glob_t g;
	int rc;

	if (strcmp(s->pattern, "-") == 0 || strpbrk(s->pattern, "*?[") == NULL) {
		if ((s->files = calloc(1, sizeof *s->files)) == NULL ||
		    (s->files[0] = strdup(s->pattern)) == NULL)
			return fail(o, err, "out of memory");
		s->nfiles = 1;
		return 0;
	}
	if ((rc = glob(s->pattern, 0, NULL, &g)) != 0) {
		globfree(&g);
		return fail(o, err, rc == GLOB_NOMATCH ? "no file matches '%s'" :
		    "cannot expand '%s'", s->pattern);
	}
	s->files = calloc(g.gl_pathc, sizeof *s->files);
	for (size_t i = 0; s->files != NULL && i < g.gl_pathc; i++)
		if ((s->files[s->nfiles] = strdup(g.gl_pathv[i])) != NULL)
			s->nfiles++;
	rc = s->files != NULL && s->nfiles == g.gl_pathc ? 0 : fail(o, err, "out of memory");
	globfree(&g);
	return rc;
}

/* Free what spec s holds. */
static void spec_free(lbt_input_spec *s)
{
	for (size_t i = 0; i < NKEYS; i++)
		if (keys[i].off != 0)
			free(*(char **)((char *)s + keys[i].off));
	for (size_t i = 0; i < s->nfiles; i++)
		free(s->files[i]);
	free(s->files);
	free(s->pattern);
	free(s->where_file);
}

/* Read words w (w->n > 0) into s.  @return 0 or -1 with err */
static int spec_fill(lbt_input_spec *s, const struct words *w, const struct origin *o,
    lbt_err *err)
{
	const char *eq = strchr(w->v[0], '=');

	if (eq != NULL && key_find(w->v[0], (size_t)(eq - w->v[0])) != NULL)
		return fail(o, err, "'%s': the path comes first, then key=value words", w->v[0]);
	s->where_file = strdup(o->file);
	s->where_line = o->line;
	s->pattern = resolve(o->dir, w->v[0]);
	if (s->where_file == NULL || s->pattern == NULL)
		return fail(o, err, "out of memory");
	for (int i = 1; i < w->n; i++)
		if (key_word(s, w->v[i], o, err) < 0)
			return -1;
	if (spec_check(s, o, err) < 0)
		return -1;
	return expand(s, o, err);
}

/*
 * Add the input of one line (its text, from origin o) to l; a blank or
 * comment line adds none.  @return 1 added, 0 none, -1 with err.
 */
static int add_line(lbt_input_specs *l, const char *text, const struct origin *o, lbt_err *err)
{
	struct words w;
	lbt_input_spec *s;
	int rc;

	if (split(text, &w, o, err) < 0)
		return -1;
	if (w.n == 0)
		return 0;
	if (LBT_GROW(l->v, l->cap, l->n + 1, 8) < 0) {
		words_free(&w);
		return fail(o, err, "out of memory");
	}
	s = &l->v[l->n];
	memset(s, 0, sizeof *s);
	rc = spec_fill(s, &w, o, err);
	words_free(&w);
	if (rc < 0) {
		spec_free(s);
		return -1;
	}
	l->n++;
	return 1;
}

/* Add one --input word's input.  @return 0 or -1 with err. */
int lbt_input_specs_add(lbt_input_specs *l, const char *text, lbt_err *err)
{
	const struct origin o = { "--input", 0, NULL };
	int rc = add_line(l, text, &o, err);

	if (rc == 0)
		return fail(&o, err, "'%s' names no input", text);
	return rc < 0 ? -1 : 0;
}

/*
 * The directory part of path into *dir (NULL when it has none: relative
 * paths are then as they are).  @return 0, or -1 when out of memory.
 */
static int dir_of(const char *path, char **dir)
{
	const char *slash = strrchr(path, '/');

	*dir = slash == NULL ? NULL : slash == path ? strdup("/") :
	    strndup(path, (size_t)(slash - path));
	return slash != NULL && *dir == NULL ? -1 : 0;
}

/* Add every line of the open file fp (origin o, line counted).  @return added or -1 */
static int read_lines(lbt_input_specs *l, FILE *fp, struct origin *o, lbt_err *err)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int added = 0, r = 0;

	while (r >= 0 && (len = getline(&line, &cap, fp)) >= 0) {
		o->line++;
		if ((size_t)len != strlen(line))
			r = fail(o, err, "NUL byte in the line");
		else if ((r = add_line(l, line, o, err)) > 0)
			added++;
	}
	if (r >= 0 && ferror(fp))
		r = lbt_err_at(err, o->file, o->line + 1, "read error: %s", strerror(errno));
	free(line);
	return r < 0 ? -1 : added;
}

/* Add the inputs of a sources file.  @return the number added, or -1 with err. */
int lbt_input_specs_read(lbt_input_specs *l, const char *path, lbt_err *err)
{
	struct origin o = { path, 0, NULL };
	char *dir;
	FILE *fp;
	int n;

	if (dir_of(path, &dir) < 0)
		return lbt_err_at(err, path, 0, "out of memory");
	if ((fp = fopen(path, "r")) == NULL) {
		int e = errno;

		free(dir);
		return lbt_err_at(err, path, 0, "cannot read the sources file: %s", strerror(e));
	}
	o.dir = dir;
	n = read_lines(l, fp, &o, err);
	fclose(fp);
	free(dir);
	if (n == 0)
		return lbt_err_at(err, path, 0, "no input in the sources file (one a line: "
		    "PATH, then key=value words)");
	return n;
}

/* The options of s's files over base; see input_spec.h. */
lbt_input_opts lbt_input_spec_opts(const lbt_input_spec *s, const lbt_input_opts *base)
{
	lbt_input_opts o = *base;

	if (s->format || s->log_format || s->haproxy_cfg || s->nginx_conf) {
		o.format = s->format;
		o.log_format = s->log_format;
		o.escape = s->escape;
		o.haproxy_cfg = s->haproxy_cfg;
		o.frontend = s->frontend;
		o.nginx_conf = s->nginx_conf;
		o.log_name = s->log_name;
	}
	o.lb = s->lb ? s->lb : o.lb;
	o.log_tz = s->log_tz ? s->log_tz : o.log_tz;
	o.captures = s->captures ? s->captures : o.captures;
	o.trusted_proxies = s->trusted_proxies ? s->trusted_proxies : o.trusted_proxies;
	o.tier = s->tier != LBT_TIER_NONE ? s->tier : o.tier;
	o.specs = NULL;
	o.nspecs = 0;
	return o;
}

/* Free every spec of l and its array. */
void lbt_input_specs_free(lbt_input_specs *l)
{
	if (l == NULL)
		return;
	for (size_t i = 0; i < l->n; i++)
		spec_free(&l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}
