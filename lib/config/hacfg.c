/*
 * hacfg.c - a haproxy.cfg into sections of split lines (see hacfg.h).
 *
 * In reading order: the sections with the defaults each one starts from
 * (cfgparse-listen.c), the lines, the public verbs.  The words of a line
 * are hacfg_words.c's, conditional blocks hacfg_cond.c's.  HAProxy's own
 * error texts are kept where they are clear, lowercased.
 *
 * Lines come from getline(); the words of a line are built in one reused
 * buffer, then stored in one allocation (pointer array, then the text).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hacfg_int.h"
#include "lbt/vec.h"

#define MAX_WORDS LBT_HACFG_MAX_WORDS

struct lbt_hacfg {
	struct sect **v;                /* file order; pointers stay put */
	size_t n, cap;
};

/* ---- words --------------------------------------------------------------- */

/* ---- sections ------------------------------------------------------------- */

/* Kind of section keyword w, or -1 when w opens no section. */
static int section_kind(const char *w)
{
	static const struct { const char *kw; lbt_hacfg_kind kind; } map[] = {
		{ "global", LBT_HACFG_GLOBAL }, { "defaults", LBT_HACFG_DEFAULTS },
		{ "frontend", LBT_HACFG_FRONTEND }, { "listen", LBT_HACFG_LISTEN },
		{ "backend", LBT_HACFG_BACKEND }, { "userlist", LBT_HACFG_OTHER },
		{ "peers", LBT_HACFG_OTHER }, { "mailers", LBT_HACFG_OTHER },
		{ "resolvers", LBT_HACFG_OTHER }, { "program", LBT_HACFG_OTHER },
		{ "http-errors", LBT_HACFG_OTHER }, { "ring", LBT_HACFG_OTHER },
		{ "cache", LBT_HACFG_OTHER }, { "log-forward", LBT_HACFG_OTHER },
		{ "fcgi-app", LBT_HACFG_OTHER }, { "namespace_list", LBT_HACFG_OTHER },
		{ "crt-store", LBT_HACFG_OTHER }, { "traces", LBT_HACFG_OTHER },
		{ "log-profile", LBT_HACFG_OTHER }, { "acme", LBT_HACFG_OTHER },
		{ "dynamic-update", LBT_HACFG_OTHER },
	};

	for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
		if (strcmp(w, map[i].kw) == 0)
			return (int)map[i].kind;
	return -1;
}

/*
 * The defaults section named `from` above the current line: exactly one.
 * @return it, or NULL with err
 */
static struct sect *find_defaults(struct rd *r, const char *from)
{
	struct sect *found = NULL;

	for (size_t i = 0; i < r->c->n; i++) {
		struct sect *s = r->c->v[i];

		if (s->pub.kind != LBT_HACFG_DEFAULTS || strcmp(s->pub.name, from) != 0)
			continue;
		if (found != NULL) {
			lbt_hacfgi_err(r, "'from %s': ambiguous, defaults sections of that name at lines "
			    "%llu and %llu", from, (unsigned long long)found->pub.line,
			    (unsigned long long)s->pub.line);
			return NULL;
		}
		found = s;
	}
	if (found == NULL)
		lbt_hacfgi_err(r, "'from %s': no defaults section of that name above", from);
	return found;
}

/* Append a new section (keyword, name, from copied).  @return it, or NULL with err */
static struct sect *add_section(struct rd *r, int kind, const char *kw, const char *name,
    const char *from)
{
	size_t lk = strlen(kw) + 1, ln = strlen(name) + 1, lf = strlen(from) + 1;
	struct sect *s = calloc(1, sizeof *s);

	if (s != NULL && (s->text = malloc(lk + ln + lf)) == NULL) {
		free(s);
		s = NULL;
	}
	if (s != NULL && LBT_GROW(r->c->v, r->c->cap, r->c->n + 1, 16) < 0) {
		free(s->text);
		free(s);
		s = NULL;
	}
	if (s == NULL) {
		lbt_err_set(r->err, "out of memory");
		return NULL;
	}
	s->pub.kind = (lbt_hacfg_kind)kind;
	s->pub.keyword = memcpy(s->text, kw, lk);
	s->pub.name = memcpy(s->text + lk, name, ln);
	s->pub.from = memcpy(s->text + lk + ln, from, lf);
	s->pub.line = r->lineno;
	r->c->v[r->c->n++] = s;
	return s;
}

/*
 * A section line w[0..nw): its name, "from", and the defaults it starts
 * from (HAProxy's rules, see hacfg.h).  @return 0 or -1 with err
 */
static int open_section(struct rd *r, int kind, char **w, int nw)
{
	const char *name = nw > 1 ? w[1] : "", *from = NULL;
	int proxy = kind == LBT_HACFG_FRONTEND || kind == LBT_HACFG_LISTEN ||
	    kind == LBT_HACFG_BACKEND;
	struct sect *d = proxy ? r->last_def : NULL, *s;

	if (proxy && nw < 2)
		return lbt_hacfgi_err(r, "'%s' expects a name", w[0]);
	if (kind == LBT_HACFG_DEFAULTS && nw == 3 && strcmp(w[1], "from") == 0) {
		name = "";
		from = w[2];
	} else if ((proxy || kind == LBT_HACFG_DEFAULTS) && nw > 2 && strcmp(w[2], "from") == 0)
		from = nw > 3 ? w[3] : "";
	if (from != NULL && from[0] == '\0')    /* HAProxy refuses it too */
		return lbt_hacfgi_err(r, "'%s %s from': 'from' needs the name of a defaults section",
		    w[0], name);
	if (from != NULL && (d = find_defaults(r, from)) == NULL)
		return -1;
	if ((s = add_section(r, kind, w[0], name, from ? from : "")) == NULL)
		return -1;
	s->pub.defaults = d ? &d->pub : NULL;
	if (kind == LBT_HACFG_DEFAULTS)
		r->last_def = s;
	r->cur = s;
	return 0;
}

/* Store words w[0..nw) as a directive of the current section.  @return 0 or -1 */
static int add_dir(struct rd *r, int nw)
{
	struct sect *s = r->cur;
	size_t lu = r->unset ? strlen(r->unset) + 1 : 0, np = (size_t)nw * sizeof(char *);
	lbt_hacfg_dir *d;
	char *block;

	if (LBT_GROW(s->dir, s->cap, s->pub.ndir + 1, 8) < 0)
		return lbt_err_set(r->err, "out of memory");
	s->pub.dir = s->dir;
	if ((block = malloc(np + r->n + lu)) == NULL)
		return lbt_err_set(r->err, "out of memory");
	d = &s->dir[s->pub.ndir++];
	d->line = r->lineno;
	d->nword = nw;
	d->word = (char **)(void *)block;
	memcpy(block + np, r->out, r->n);
	for (int i = 0; i < nw; i++)
		d->word[i] = block + np + r->start[i];
	d->unset = r->unset ? memcpy(block + np + r->n, r->unset, lu) : NULL;
	return 0;
}

/* ---- lines ---------------------------------------------------------------- */

/* One line of the file (no newline).  @return 0 or -1 with err */
static int read_line(struct rd *r, const char *line)
{
	char *w[MAX_WORDS];
	int nw, kind, rc;

	while (isspace((unsigned char)*line))
		line++;
	if (*line == '[')           /* a "[scope]" line (cfgparse.c), nothing to read */
		return 0;
	if ((nw = lbt_hacfgi_split(r, line)) <= 0)
		return nw;
	for (int i = 0; i < nw; i++)
		w[i] = r->out + r->start[i];
	if ((rc = lbt_hacfgi_dot_line(r, w, nw)) != 0)
		return rc < 0 ? -1 : 0;
	if ((kind = section_kind(w[0])) >= 0)
		return open_section(r, kind, w, nw);
	if (r->cur == NULL)
		return lbt_hacfgi_err(r, "'%s' outside any section", w[0]);
	return add_dir(r, nw);
}

/* Read every line of fp.  @return 0 or -1 with err */
static int read_all(struct rd *r, FILE *fp)
{
	char *buf = NULL;
	size_t cap = 0;
	ssize_t len;
	int rc = 0;

	while (rc == 0 && (len = getline(&buf, &cap, fp)) >= 0) {
		size_t n = (size_t)len, nul;

		r->lineno++;
		if (n > 0 && buf[n - 1] == '\n')
			buf[--n] = '\0';
		if ((nul = strlen(buf)) != n)
			rc = lbt_hacfgi_err(r, "stray NUL character at column %zu", nul + 1);
		else
			rc = read_line(r, buf);
	}
	if (rc == 0 && ferror(fp))
		rc = lbt_err_at(r->err, r->path, 0, "%s", strerror(errno));
	if (rc == 0 && r->lvl > 0)
		rc = lbt_err_at(r->err, r->path, r->cond[r->lvl - 1].line,
		    "non-terminated '.if' block");
	free(buf);
	return rc;
}

/* ---- public --------------------------------------------------------------- */

/* Read the file at path into sections (see hacfg.h).  @return them, or NULL with err */
lbt_hacfg *lbt_hacfg_read(const char *path, const lbt_hacfg_opts *opts, lbt_err *err)
{
	struct rd *r = calloc(1, sizeof *r);
	lbt_hacfg *c = calloc(1, sizeof *c);
	FILE *fp = NULL;
	int rc = -1;

	if (r == NULL || c == NULL)
		lbt_err_set(err, "out of memory");
	else if ((fp = fopen(path, "r")) == NULL)
		lbt_err_at(err, path, 0, "%s", strerror(errno));
	else {
		*r = (struct rd){ .path = path, .opts = opts, .err = err, .c = c };
		rc = read_all(r, fp);
		fclose(fp);
	}
	if (r != NULL) {
		free(r->out);
		free(r->unset);
		free(r);
	}
	if (rc < 0) {
		lbt_hacfg_free(c);
		return NULL;
	}
	return c;
}

/* Number of sections. */
size_t lbt_hacfg_count(const lbt_hacfg *c)
{
	return c->n;
}

/* Section i, or NULL past the end. */
const lbt_hacfg_sect *lbt_hacfg_at(const lbt_hacfg *c, size_t i)
{
	return i < c->n ? &c->v[i]->pub : NULL;
}

/* The frontend or listen section named name[0..len), or NULL. */
const lbt_hacfg_sect *lbt_hacfg_frontend(const lbt_hacfg *c, const char *name, size_t len)
{
	for (size_t i = 0; i < c->n; i++) {
		const lbt_hacfg_sect *s = &c->v[i]->pub;

		if ((s->kind == LBT_HACFG_FRONTEND || s->kind == LBT_HACFG_LISTEN) &&
		    strlen(s->name) == len && memcmp(s->name, name, len) == 0)
			return s;
	}
	return NULL;
}

/* Free c and everything in it; NULL accepted. */
void lbt_hacfg_free(lbt_hacfg *c)
{
	if (c == NULL)
		return;
	for (size_t i = 0; i < c->n; i++) {
		struct sect *s = c->v[i];

		for (size_t k = 0; k < s->pub.ndir; k++)
			free(s->dir[k].word);
		free(s->dir);
		free(s->text);
		free(s);
	}
	free(c->v);
	free(c);
}
