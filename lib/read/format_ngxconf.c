/*
 * format_ngxconf.c - a log_format read from a real nginx.conf.
 *
 * The configuration is read as NGINX tokenises it: words separated by
 * blanks, 'single' or "double" quoted strings (\" \' \\ \n \t \r escapes),
 * '#' comments, directives ended by ';' or opening a '{' block.  Only three
 * directives matter, wherever they are: log_format NAME [escape=X] 'a' 'b'
 * ...; (the strings are concatenated), access_log PATH [FORMAT ...]; (the
 * first one that is not "off" names the default) and include PATTERN; (a
 * glob, relative to the directory of the main file, read in place).  The
 * predefined "combined" is the nginx-combined built-in.
 */
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format_int.h"

#define MAX_TOK 512
#define MAX_FMT 128
#define MAX_DEPTH 8
#define MAX_FILE (16u << 20)

/* A log_format directive. */
struct lfmt {
	char *name, *escape, *tmpl, *file;
	uint64_t line;
};

/* Reader state. */
struct nc {
	lbt_err *err;
	char dir[4096];            /* directory of the main file */
	struct lfmt v[MAX_FMT];
	int n;
	char *first_access;        /* format of the first access_log (owned) */
	int have_access;
	char *tok[MAX_TOK];        /* words of the directive being read */
	int ntok;
	uint64_t tokline;
};

/* Free the words of the current directive. */
static void drop_tokens(struct nc *c)
{
	while (c->ntok > 0)
		free(c->tok[--c->ntok]);
}

/* Add a word. @return 0 or -1 */
static int push_token(struct nc *c, const char *s, size_t n, uint64_t line)
{
	if (c->ntok == 0)
		c->tokline = line;
	if (c->ntok == MAX_TOK)
		return 0;
	c->tok[c->ntok] = lbt_fmti_strndup(s, n);
	if (c->tok[c->ntok] == NULL)
		return lbt_err_set(c->err, "out of memory");
	c->ntok++;
	return 0;
}

static int read_file(struct nc *c, const char *path, int depth);

/* include PATTERN: every file the glob matches, relative to the main directory. @return 0 or -1 */
static int do_include(struct nc *c, const char *pat, int depth)
{
	char full[8192];
	glob_t g;
	int r = 0;

	if (pat[0] == '/')
		snprintf(full, sizeof full, "%s", pat);
	else
		snprintf(full, sizeof full, "%s/%s", c->dir, pat);
	if (glob(full, 0, NULL, &g) != 0)
		return 0;
	for (size_t i = 0; i < g.gl_pathc && r == 0; i++)
		r = read_file(c, g.gl_pathv[i], depth + 1);
	globfree(&g);
	return r;
}

/* Record a log_format directive. @return 0 or -1 */
static int do_log_format(struct nc *c, const char *file)
{
	struct lfmt *l;
	size_t len = 0;
	int first = 2;

	if (c->ntok < 3 || c->n == MAX_FMT)
		return c->ntok < 3 ? lbt_err_at(c->err, file, c->tokline, "log_format without a "
		    "name and a string") : 0;
	l = &c->v[c->n];
	memset(l, 0, sizeof *l);
	if (strncmp(c->tok[2], "escape=", 7) == 0) {
		l->escape = lbt_fmti_strndup(c->tok[2] + 7, strlen(c->tok[2] + 7));
		first = 3;
	}
	for (int i = first; i < c->ntok; i++)
		len += strlen(c->tok[i]);
	l->tmpl = malloc(len + 1);
	l->name = lbt_fmti_strndup(c->tok[1], strlen(c->tok[1]));
	l->file = lbt_fmti_strndup(file, strlen(file));
	l->line = c->tokline;
	c->n++;
	if (l->tmpl == NULL || l->name == NULL || l->file == NULL)
		return lbt_err_set(c->err, "out of memory");
	l->tmpl[0] = '\0';
	for (int i = first; i < c->ntok; i++)
		strcat(l->tmpl, c->tok[i]);
	return 0;
}

/* A complete directive (at ';' or '{'). @return 0 or -1 */
static int directive(struct nc *c, const char *file, int depth)
{
	int r = 0;

	if (c->ntok == 0)
		return 0;
	if (strcmp(c->tok[0], "log_format") == 0)
		r = do_log_format(c, file);
	else if (strcmp(c->tok[0], "access_log") == 0 && !c->have_access && c->ntok >= 2 &&
	    strcmp(c->tok[1], "off") != 0) {
		const char *fmt = c->ntok >= 3 ? c->tok[2] : "combined";

		c->have_access = 1;
		c->first_access = lbt_fmti_strndup(fmt, strlen(fmt));
		if (c->first_access == NULL)
			r = lbt_err_set(c->err, "out of memory");
	} else if (strcmp(c->tok[0], "include") == 0 && c->ntok >= 2) {
		char *pat = c->tok[1];

		c->tok[1] = NULL;     /* the included file reads its own directives */
		drop_tokens(c);
		r = do_include(c, pat, depth);
		free(pat);
	}
	drop_tokens(c);
	return r;
}

/* A quoted string at s[*i] into a word. @return 0 or -1 */
static int quoted(struct nc *c, const char *s, size_t n, size_t *i, uint64_t *line,
    const char *file)
{
	char q = s[*i], *buf = malloc(n - *i + 1);
	size_t k = 0, j = *i + 1;
	int r;

	if (buf == NULL)
		return lbt_err_set(c->err, "out of memory");
	for (; j < n && s[j] != q; j++) {
		if (s[j] == '\n')
			(*line)++;
		if (s[j] == '\\' && j + 1 < n && strchr("\"'\\ntr", s[j + 1]) != NULL) {
			j++;
			buf[k++] = s[j] == 'n' ? '\n' : s[j] == 't' ? '\t' : s[j] == 'r' ? '\r' : s[j];
		} else
			buf[k++] = s[j];
	}
	if (j == n) {
		free(buf);
		return lbt_err_at(c->err, file, *line, "unterminated quoted string");
	}
	r = push_token(c, buf, k, *line);
	free(buf);
	*i = j + 1;
	return r;
}

/* Tokenise and interpret the text of one file. @return 0 or -1 */
static int parse_text(struct nc *c, const char *s, size_t n, const char *file, int depth)
{
	uint64_t line = 1;
	size_t i = 0;
	int r = 0;

	while (i < n && r == 0) {
		char ch = s[i];
		size_t j;

		if (ch == '\n' || ch == ' ' || ch == '\t' || ch == '\r') {
			line += ch == '\n';
			i++;
		} else if (ch == '#') {
			while (i < n && s[i] != '\n')
				i++;
		} else if (ch == ';' || ch == '{' || ch == '}') {
			r = ch == '}' ? (drop_tokens(c), 0) : directive(c, file, depth);
			i++;
		} else if (ch == '"' || ch == '\'')
			r = quoted(c, s, n, &i, &line, file);
		else {
			for (j = i; j < n && (s[j] == '\0' || !strchr(" \t\r\n;{}\"'", s[j])); j++)
				;
			r = push_token(c, s + i, j - i, line);
			i = j;
		}
	}
	drop_tokens(c);
	return r;
}

/* Read and interpret one configuration file. @return 0 or -1 */
static int read_file(struct nc *c, const char *path, int depth)
{
	FILE *fp;
	char *buf;
	size_t n;
	int r;

	if (depth > MAX_DEPTH)
		return lbt_err_at(c->err, path, 0, "includes nested deeper than %d", MAX_DEPTH);
	fp = fopen(path, "r");
	if (fp == NULL)
		return lbt_err_at(c->err, path, 0, "%s", strerror(errno));
	buf = malloc(MAX_FILE);
	n = buf ? fread(buf, 1, MAX_FILE, fp) : 0;
	fclose(fp);
	if (buf == NULL)
		return lbt_err_set(c->err, "out of memory");
	r = parse_text(c, buf, n, path, depth);
	free(buf);
	return r;
}

/* Names of the log formats found, into buf. */
static const char *format_names(const struct nc *c, char *buf, size_t size)
{
	size_t k = (size_t)snprintf(buf, size, "combined");

	for (int i = 0; i < c->n && k < size; i++)
		k += (size_t)snprintf(buf + k, size - k, ", %s", c->v[i].name);
	return buf;
}

/* Compile log_format `name` (NGINX refuses duplicates; the last is taken). @return it or NULL */
static lbt_format *build(struct nc *c, const char *name, const char *path)
{
	char list[512], desc[512];
	lbt_format *f;

	for (int i = c->n - 1; i >= 0; i--) {
		const struct lfmt *l = &c->v[i];

		if (strcmp(l->name, name) != 0)
			continue;
		f = lbt_format_compile(LBT_DIALECT_NGINX, l->tmpl, l->escape, c->err);
		if (f == NULL) {
			char msg[sizeof c->err->msg];

			snprintf(msg, sizeof msg, "%s", c->err ? c->err->msg : "");
			lbt_err_at(c->err, l->file, l->line, "log_format %s: %s", name, msg);
			return NULL;
		}
		snprintf(desc, sizeof desc, "log_format %s (%s:%llu)", name, l->file,
		    (unsigned long long)l->line);
		free(f->name);
		f->name = lbt_fmti_strndup(name, strlen(name));
		f->describe = lbt_fmti_strndup(desc, strlen(desc));
		return f;
	}
	if (strcmp(name, "combined") == 0)
		return lbt_format_open("nginx-combined", c->err);
	lbt_err_at(c->err, path, 0, "no log_format '%s' (there are: %s)", name,
	    format_names(c, list, sizeof list));
	return NULL;
}

/*
 * Read nginx.conf at path (and its includes) and compile log_format `name`
 * (NULL: the first access_log's).  @return the format, or NULL with err.
 */
lbt_format *lbt_format_from_nginx_conf(const char *path, const char *name, lbt_err *err)
{
	struct nc *c = calloc(1, sizeof *c);
	const char *slash = strrchr(path, '/');
	lbt_format *f = NULL;

	if (c == NULL) {
		lbt_err_set(err, "out of memory");
		return NULL;
	}
	c->err = err;
	if (slash != NULL)
		snprintf(c->dir, sizeof c->dir, "%.*s", (int)(slash - path), path);
	else
		snprintf(c->dir, sizeof c->dir, ".");
	if (read_file(c, path, 0) == 0)
		f = build(c, name ? name : c->first_access ? c->first_access : "combined", path);
	for (int i = 0; i < c->n; i++) {
		free(c->v[i].name);
		free(c->v[i].escape);
		free(c->v[i].tmpl);
		free(c->v[i].file);
	}
	free(c->first_access);
	free(c);
	return f;
}
