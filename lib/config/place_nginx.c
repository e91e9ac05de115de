/*
 * place_nginx.c - where NGINX deny lines go (see place.h; why:
 * docs/placement.md).
 *
 * The file is read as NGINX tokenises it: words separated by blanks,
 * 'single' or "double" quoted strings (a backslash escapes the next
 * character), '#' comments to the end of the line, directives ended by ';'
 * or opening a '{' block closed by '}'.  Only the blocks and the first word
 * of each directive matter here, with the line it starts on.
 *
 * ngx_http_access_module checks allow and deny in order, the first that
 * matches wins, and a block that has any of its own does not inherit its
 * parent's: so the deny goes above the server's first allow/deny, and a
 * location with rules of its own is named (the server's deny does not act
 * there).  A `return` at server level answers in the rewrite phase,
 * before any access rule: named too.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbt/place.h"

#define MAX_FILE (16u << 20)
#define MAX_DEPTH 64
#define MAX_WORDS 64

/* One server block of the http block, as it is read. */
struct server {
	uint64_t open_line;       /* the line of its '{' */
	uint64_t first_dir;       /* the line of its first directive, 0 none */
	uint64_t first_access;    /* of its first allow / deny, 0 none */
	uint64_t shadow;          /* see lbt_place.shadow */
	char shadow_why[96];
	char names[256];          /* its server_name words, blank-separated */
	int named;                /* one of them is the name asked */
};

/* Reader state. */
struct rd {
	const char *path, *want;
	lbt_err *err;
	uint64_t line;
	char *words[MAX_WORDS];   /* the directive being read */
	uint64_t wline;           /* the line of its first word */
	int nw;
	const char *block[MAX_DEPTH];   /* first word of each open block */
	int depth;
	int server_depth;         /* depth inside the server block being read, 0 none */
	struct server cur, found;
	int nfound, nservers;
	char all[512];            /* every server's names, for the message */
};

/* Drop the words of the directive just handled. */
static void drop(struct rd *r)
{
	for (int i = 0; i < r->nw; i++)
		free(r->words[i]);
	r->nw = 0;
}

/* Append one word.  @return 0 or -1 with err */
static int push(struct rd *r, const char *s, size_t n, uint64_t line)
{
	if (r->nw == MAX_WORDS)
		return lbt_err_at(r->err, r->path, line, "more than %d words in a directive",
		    MAX_WORDS);
	if ((r->words[r->nw] = strndup(s, n)) == NULL)
		return lbt_err_set(r->err, "out of memory");
	if (r->nw++ == 0)
		r->wline = line;
	return 0;
}

/* Note a server_name directive's names. */
static void names(struct rd *r)
{
	struct server *s = &r->cur;

	for (int i = 1; i < r->nw; i++) {
		size_t used = strlen(s->names);

		if (r->want != NULL && strcmp(r->words[i], r->want) == 0)
			s->named = 1;
		if (used + strlen(r->words[i]) + 2 < sizeof s->names)
			snprintf(s->names + used, sizeof s->names - used, "%s%s", used ? " " : "",
			    r->words[i]);
	}
}

/* A directive (or a block's opening words) inside the server being read,
 * at server depth d (1: the server block itself). */
static void in_server(struct rd *r, int d)
{
	struct server *s = &r->cur;
	const char *w = r->words[0];
	int access = strcmp(w, "allow") == 0 || strcmp(w, "deny") == 0;

	if (d == 1 && s->first_dir == 0)
		s->first_dir = r->wline;
	if (d == 1 && access && s->first_access == 0)
		s->first_access = r->wline;
	if (d == 1 && strcmp(w, "server_name") == 0)
		names(r);
	if (s->shadow == 0 && d == 1 && strcmp(w, "return") == 0) {
		s->shadow = r->wline;
		snprintf(s->shadow_why, sizeof s->shadow_why, "a return answers before any "
		    "access rule");
	}
	if (s->shadow == 0 && d > 1 && access) {
		s->shadow = r->wline;
		snprintf(s->shadow_why, sizeof s->shadow_why, "a %s block with allow/deny of "
		    "its own, where the server's do not apply", r->block[r->depth - 1]);
	}
}

/* A server block closed: keep it when it is the one asked. */
static void close_server(struct rd *r)
{
	size_t used = strlen(r->all);
	const char *n = r->cur.names[0] ? r->cur.names : "(no server_name)";

	r->nservers++;
	if (used + strlen(n) + 3 < sizeof r->all)
		snprintf(r->all + used, sizeof r->all - used, "%s%s", used ? ", " : "", n);
	if (r->want == NULL || r->cur.named) {
		r->found = r->cur;
		r->nfound++;
	}
	r->server_depth = 0;
}

/* The directive in r->words ended by c (';' or '{').  @return 0 or -1 */
static int directive(struct rd *r, char c)
{
	if (r->nw == 0)
		return lbt_err_at(r->err, r->path, r->line, "unexpected '%c'", c);
	if (r->server_depth > 0)
		in_server(r, r->server_depth);
	if (c == '{') {
		if (r->depth == MAX_DEPTH)
			return lbt_err_at(r->err, r->path, r->line, "blocks nested too deep");
		r->block[r->depth++] = strcmp(r->words[0], "location") == 0 ? "location" :
		    strcmp(r->words[0], "if") == 0 ? "if" : strcmp(r->words[0], "server") == 0 ?
		    "server" : strcmp(r->words[0], "http") == 0 ? "http" : "other";
		if (r->server_depth > 0)
			r->server_depth++;
		else if (strcmp(r->words[0], "server") == 0 && r->depth == 2 &&
		    strcmp(r->block[0], "http") == 0) {
			memset(&r->cur, 0, sizeof r->cur);
			r->cur.open_line = r->line;
			r->server_depth = 1;
		}
	}
	drop(r);
	return 0;
}

/* A '}'.  @return 0 or -1 */
static int close_block(struct rd *r)
{
	if (r->nw > 0)
		return lbt_err_at(r->err, r->path, r->line, "'%s' is not ended by ';'",
		    r->words[0]);
	if (r->depth == 0)
		return lbt_err_at(r->err, r->path, r->line, "unexpected '}'");
	r->depth--;
	if (r->server_depth == 1)
		close_server(r);
	else if (r->server_depth > 1)
		r->server_depth--;
	return 0;
}

/* A quoted string from s[*i] (the quote).  @return 0 or -1 */
static int quoted(struct rd *r, const char *s, size_t n, size_t *i)
{
	char q = s[*i];
	size_t start = ++*i;
	uint64_t line = r->line;

	for (; *i < n && s[*i] != q; (*i)++) {
		if (s[*i] == '\\' && *i + 1 < n)
			(*i)++;
		if (s[*i] == '\n')
			r->line++;
	}
	if (*i >= n)
		return lbt_err_at(r->err, r->path, line, "unterminated quoted string");
	return push(r, s + start, *i - start, line);
}

/* Tokenise s[0..n).  @return 0 or -1 */
static int parse(struct rd *r, const char *s, size_t n)
{
	r->line = 1;
	for (size_t i = 0; i < n; i++) {
		size_t start = i;
		int rc = 0;

		if (s[i] == '\n')
			r->line++;
		else if (isspace((unsigned char)s[i]))
			continue;
		else if (s[i] == '#')
			while (i + 1 < n && s[i + 1] != '\n')
				i++;
		else if (s[i] == ';' || s[i] == '{')
			rc = directive(r, s[i]);
		else if (s[i] == '}')
			rc = close_block(r);
		else if (s[i] == '"' || s[i] == '\'')
			rc = quoted(r, s, n, &i);
		else {
			while (i + 1 < n && !isspace((unsigned char)s[i + 1]) &&
			    strchr(";{}\"'", s[i + 1]) == NULL)
				i++;
			rc = push(r, s + start, i + 1 - start, r->line);
		}
		if (rc < 0)
			return -1;
	}
	if (r->nw > 0 || r->depth > 0)
		return lbt_err_at(r->err, r->path, r->line, "unexpected end of file (a '%s' "
		    "not ended)", r->nw > 0 ? "directive" : "block");
	return 0;
}

/* The whole file.  @return it (caller frees), or NULL with err */
static char *slurp(const char *path, size_t *n, lbt_err *err)
{
	FILE *fp = fopen(path, "rb");
	char *buf;

	if (fp == NULL) {
		lbt_err_at(err, path, 0, "%s", strerror(errno));
		return NULL;
	}
	if ((buf = malloc(MAX_FILE + 1)) == NULL) {
		fclose(fp);
		lbt_err_set(err, "out of memory");
		return NULL;
	}
	*n = fread(buf, 1, MAX_FILE + 1, fp);
	if (ferror(fp) || *n > MAX_FILE) {
		lbt_err_at(err, path, 0, "%s", ferror(fp) ? strerror(errno) : "larger than 16 MiB");
		free(buf);
		buf = NULL;
	}
	fclose(fp);
	return buf;
}

/* The place in the server block found.  @return 0 or -1 with err */
static int place_in(struct rd *r, lbt_place *p)
{
	const struct server *s = &r->found;
	const char *n = s->names[0] ? s->names : "a server block without server_name";

	memset(p, 0, sizeof *p);
	p->shadow = s->shadow;
	snprintf(p->shadow_why, sizeof p->shadow_why, "%s", s->shadow_why);
	if (s->first_access) {
		p->line = s->first_access;
		snprintf(p->what, sizeof p->what, "%.120s's first allow/deny", n);
		return 0;
	}
	if (s->first_dir == 0 || s->first_dir == s->open_line)
		return lbt_err_at(r->err, r->path, s->open_line, "%s: %s", n,
		    s->first_dir ? "its first directive is on the 'server {' line: put it on a "
		    "line of its own" : "an empty server block");
	p->line = s->first_dir;
	snprintf(p->what, sizeof p->what, "%.120s's first directive", n);
	return 0;
}

/* Find where NGINX deny lines go.  @return 0 or -1 with err */
int lbt_place_nginx(const char *path, const char *server, lbt_place *p, lbt_err *err)
{
	struct rd r = { .path = path, .want = server, .err = err };
	size_t n;
	char *text = slurp(path, &n, err);
	int rc;

	if (text == NULL)
		return -1;
	rc = parse(&r, text, n);
	drop(&r);
	free(text);
	if (rc < 0)
		return -1;
	if (r.nfound == 1)
		return place_in(&r, p);
	if (r.nservers == 0)
		return lbt_err_at(err, path, 0, "no server block in an http block");
	if (r.nfound == 0)
		return lbt_err_at(err, path, 0, "no server block named '%s' (there are: %s)",
		    server, r.all);
	return lbt_err_at(err, path, 0, "%d server blocks%s (%s): name one with --server",
	    r.nfound, server ? " of that name" : "", r.all);
}
