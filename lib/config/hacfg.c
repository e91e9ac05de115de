/*
 * hacfg.c - a haproxy.cfg into sections of split lines (see hacfg.h).
 *
 * In reading order: the word splitter (a restatement of HAProxy 2.6
 * src/tools.c parse_line() with the options cfgparse.c readcfgfile()
 * passes: env, double and single quotes, backslash, '#', word expansion),
 * the sections with the defaults each one starts from (cfgparse-listen.c),
 * the lines, the public verbs.  Conditional blocks are hacfg_cond.c's.
 * HAProxy's own error texts are kept where they are clear, lowercased.
 *
 * Lines come from getline(); the words of a line are built in one reused
 * buffer, then stored in one allocation (pointer array, then the text).
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hacfg_int.h"

#define MAX_WORDS LBT_HACFG_MAX_WORDS

struct lbt_hacfg {
	struct sect **v;                /* file order; pointers stay put */
	size_t n, cap;
};

/* Fill err with path:line and the message (hacfg_int.h).  @return -1 */
int lbt_hacfgi_err(struct rd *r, const char *fmt, ...)
{
	char msg[sizeof r->err->msg];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return lbt_err_at(r->err, r->path, r->lineno, "%s", msg);
}

/* ---- words --------------------------------------------------------------- */

/* Append byte ch to the line's output.  @return 0, or -1 with err */
static int emit(struct rd *r, char ch)
{
	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 256;
		char *p = realloc(r->out, cap);

		if (p == NULL)
			return lbt_err_set(r->err, "out of memory");
		r->out = p;
		r->cap = cap;
	}
	r->out[r->n++] = ch;
	return 0;
}

/* End the current word and start the next (a 65th is an error, reported
 * once the line is read, as HAProxy does).  @return 0 or -1 */
static int next_word(struct rd *r)
{
	if (emit(r, '\0') < 0)
		return -1;
	if (++r->nw < MAX_WORDS)
		r->start[r->nw] = r->n;
	else
		r->toomany = 1;
	return 0;
}

/* Value of the two hex digits at s, or -1 (s[1] is not read when s[0] is not hex). */
static int hex2(const char *s)
{
	int v = 0;

	for (int k = 0; k < 2; k++) {
		int ch = (unsigned char)s[k];

		if (!isxdigit(ch))
			return -1;
		v = v * 16 + (isdigit(ch) ? ch - '0' : (ch | 0x20) - 'a' + 10);
	}
	return v;
}

/*
 * A backslash at *pin (outside single quotes; dq: inside double quotes):
 * emit what it stands for and move *pin past it.  @return 0, or -1 with err
 */
static int escape(struct rd *r, const char **pin, int dq)
{
	const char *in = *pin;
	char ch = '\\';
	int h;

	switch (in[1]) {
	case ' ': case '\\': case '#': case '\'': case '"':
		ch = *++in;
		break;
	case 't': ch = '\t'; in++; break;
	case 'n': ch = '\n'; in++; break;
	case 'r': ch = '\r'; in++; break;
	case '$':
		if (dq)
			ch = *++in;
		break;
	case 'x':
		if ((h = hex2(in + 2)) < 0)
			return lbt_hacfgi_err(r, "truncated or invalid hexadecimal sequence");
		ch = (char)h;
		in += 3;
		break;
	default:
		break;
	}
	*pin = in + 1;
	return emit(r, ch);
}

/* Value of variable name (".LINE" etc., opts.var, environment; hacfg_int.h), NULL unset. */
const char *lbt_hacfgi_var(struct rd *r, const char *name, char *buf, size_t size)
{
	const char *v = NULL;

	if (strcmp(name, ".LINE") == 0) {
		snprintf(buf, size, "%llu", (unsigned long long)r->lineno);
		return buf;
	}
	if (strcmp(name, ".FILE") == 0)
		return r->path;
	if (strcmp(name, ".SECTION") == 0)
		return r->cur == NULL ? NULL : r->cur->pub.name[0] ? r->cur->pub.name :
		    r->cur->pub.keyword;
	if (r->opts != NULL && r->opts->var != NULL)
		v = r->opts->var(r->opts->arg, name);
	return v != NULL ? v : getenv(name);
}

/* Emit value v[0..len), one word per blank-separated part when split. @return 0 or -1 */
static int emit_value(struct rd *r, const char *v, size_t len, int split)
{
	const char *end = v + len;

	while (v < end) {
		if (split && isspace((unsigned char)*v)) {
			if (next_word(r) < 0)
				return -1;
			while (++v < end && isspace((unsigned char)*v))
				;
		} else if (emit(r, *v++) < 0)
			return -1;
	}
	return 0;
}

/*
 * The tail of ${NAME...} at *pin (just after the name): "[*]", "-dflt",
 * then '}'.  Sets *split, and *v / *len to the default when *v is NULL.
 * @return 0, or -1 with err
 */
static int brace_tail(struct rd *r, const char **pin, int *split, const char **v, size_t *len)
{
	const char *in = *pin, *close;

	if (*in == '[') {
		if (in[1] != '*' || in[2] != ']')
			return lbt_hacfgi_err(r, "truncated or invalid word expansion sequence");
		*split = 1;
		in += 3;
	}
	if (*in == '-') {
		if ((close = strchr(in, '}')) == NULL)
			return lbt_hacfgi_err(r, "unmatched brace in environment variable name");
		if (*v == NULL) {
			*v = in + 1;
			*len = (size_t)(close - in - 1);
		}
		in = close;
	} else if (*in != '}')
		return lbt_hacfgi_err(r, "unmatched brace in environment variable name");
	*pin = in + 1;
	return 0;
}

/* Note the first variable without a value.  @return 0 or -1 */
static int note_unset(struct rd *r, const char *name)
{
	if (r->unset == NULL && name[0] != '.' && (r->unset = strdup(name)) == NULL)
		return lbt_err_set(r->err, "out of memory");
	return 0;
}

/*
 * "$NAME" or "${NAME...}" at *pin (inside double quotes): emit its value
 * and move *pin past it.  @return 0, or -1 with err
 */
static int expand(struct rd *r, const char **pin)
{
	const char *in = *pin + 1, *name, *v;
	char nbuf[256], lbuf[24];
	size_t len = 0;
	int brace = 0, split = 0;

	if (*in == '{') {
		brace = 1;
		in++;
	}
	if (!isalpha((unsigned char)*in) && *in != '_' && *in != '.')
		return lbt_hacfgi_err(r, "forbidden first character in environment variable name");
	name = in;
	if (*in == '.')
		in++;
	while (isalnum((unsigned char)*in) || *in == '_')
		in++;
	if ((size_t)(in - name) >= sizeof nbuf)
		return lbt_hacfgi_err(r, "environment variable name too long");
	snprintf(nbuf, sizeof nbuf, "%.*s", (int)(in - name), name);
	if (nbuf[0] == '.' && strcmp(nbuf, ".LINE") && strcmp(nbuf, ".FILE") &&
	    strcmp(nbuf, ".SECTION"))
		return lbt_hacfgi_err(r, "unknown internal variable '%s'", nbuf);
	v = lbt_hacfgi_var(r, nbuf, lbuf, sizeof lbuf);
	if (v != NULL)
		len = strlen(v);
	if (brace && brace_tail(r, &in, &split, &v, &len) < 0)
		return -1;
	*pin = in;
	if (v == NULL)
		return note_unset(r, nbuf);
	return emit_value(r, v, len, split);
}

/*
 * Split line s into r->out / r->start as HAProxy's parse_line() does.
 * @return the number of words (0: an empty line), or -1 with err
 */
static int split(struct rd *r, const char *in)
{
	int sq = 0, dq = 0, rc = 0, count;

	r->n = 0;
	r->nw = 0;
	r->start[0] = 0;
	r->toomany = 0;
	free(r->unset);
	r->unset = NULL;
	while (rc == 0) {
		unsigned char ch = (unsigned char)*in;

		if (ch == '\0' || ch == '\n' || ch == '\r' || (ch == '#' && !sq && !dq))
			break;
		if (ch == '"' && !sq) {
			dq = !dq;
			in++;
		} else if (ch == '\'' && !dq) {
			sq = !sq;
			in++;
		} else if (ch == '\\' && !sq)
			rc = escape(r, &in, dq);
		else if (isspace(ch) && !sq && !dq) {
			while (isspace((unsigned char)*in))
				in++;
			rc = next_word(r);
		} else if (ch == '$' && dq)
			rc = expand(r, &in);
		else {
			rc = emit(r, (char)ch);
			in++;
		}
	}
	if (rc < 0 || emit(r, '\0') < 0)
		return -1;
	if (sq || dq)
		return lbt_hacfgi_err(r, "unterminated %s quote", dq ? "double" : "single");
	if (r->toomany)
		return lbt_hacfgi_err(r, "too many words (more than %d)", MAX_WORDS);
	/* a last word left empty (trailing blanks) is not a word */
	count = r->nw + (r->start[r->nw] != r->n - 1);
	return count > 0 && r->out[r->start[0]] != '\0' ? count : 0;
}

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
	if (s != NULL && r->c->n == r->c->cap) {
		size_t cap = r->c->cap ? 2 * r->c->cap : 16;
		struct sect **v = realloc(r->c->v, cap * sizeof *v);

		if (v == NULL) {
			free(s->text);
			free(s);
			s = NULL;
		} else {
			r->c->v = v;
			r->c->cap = cap;
		}
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

	if (s->pub.ndir == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 8;
		lbt_hacfg_dir *v = realloc(s->dir, cap * sizeof *v);

		if (v == NULL)
			return lbt_err_set(r->err, "out of memory");
		s->dir = v;
		s->cap = cap;
		s->pub.dir = v;
	}
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
	if ((nw = split(r, line)) <= 0)
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
