/*
 * place.c - the line a new rule must precede in a frontend (see place.h;
 * why: docs/placement.md), and the file copied with the rule put there.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lbt/place.h"

/* What a directive is to the placement of a rule of one kind. */
enum role {
	ROLE_NONE,                /* another kind, or an option: no bearing */
	ROLE_SAME,                /* a rule of the same kind that does not answer */
	ROLE_ACTS,                /* a rule of the same kind that answers or feeds one */
	ROLE_SRC,                 /* a rule of the same kind that rewrites src */
	ROLE_LATER,               /* a rule of a kind HAProxy runs after this one */
	ROLE_BACKEND              /* use_backend / default_backend */
};

/* True when action a answers the request (or the connection), ends the
 * evaluation, or feeds a counter that a later rule answers on. */
static int answers(const char *a)
{
	static const char *const acts[] = { "deny", "tarpit", "return", "redirect", "reject",
		"silent-drop", "auth", "use-service", "allow", "accept" };

	for (size_t i = 0; i < sizeof acts / sizeof acts[0]; i++)
		if (strcmp(a, acts[i]) == 0)
			return 1;
	return strncmp(a, "track-sc", 8) == 0 || strncmp(a, "sc-", 3) == 0;
}

/* True when action a changes the source address the rule matches. */
static int rewrites_src(const char *a)
{
	return strcmp(a, "set-src") == 0 || strcmp(a, "expect-proxy") == 0 ||
	    strcmp(a, "expect-netscaler-cip") == 0;
}

/* The role of directive d for a rule of kind k; *action its action word. */
static enum role role_of(const lbt_hacfg_dir *d, lbt_place_kind k, const char **action)
{
	const char *w0 = d->word[0];
	int tcp = strcmp(w0, "tcp-request") == 0, http = strcmp(w0, "http-request") == 0;
	int conn = tcp && d->nword > 2 && strcmp(d->word[1], "connection") == 0;
	int same = k == LBT_PLACE_HTTP ? http : conn;

	*action = "";
	if (strcmp(w0, "use_backend") == 0 || strcmp(w0, "default_backend") == 0)
		return ROLE_BACKEND;
	if (!same)
		return k == LBT_PLACE_TCP_CONN && (tcp || http) ? ROLE_LATER : ROLE_NONE;
	if (d->nword < (conn ? 3 : 2))
		return ROLE_SAME;
	*action = d->word[conn ? 2 : 1];
	if (rewrites_src(*action))
		return ROLE_SRC;
	return answers(*action) ? ROLE_ACTS : ROLE_SAME;
}

/* The frontend asked, or the only one.  @return it, or NULL with err */
static const lbt_hacfg_sect *pick(const lbt_hacfg *c, const char *name, lbt_err *err)
{
	const lbt_hacfg_sect *found = NULL;
	char names[512] = "";
	size_t n = 0, used = 0;

	if (name != NULL && (found = lbt_hacfg_frontend(c, name, strlen(name))) != NULL)
		return found;
	for (size_t i = 0; i < lbt_hacfg_count(c); i++) {
		const lbt_hacfg_sect *s = lbt_hacfg_at(c, i);

		if (s->kind != LBT_HACFG_FRONTEND && s->kind != LBT_HACFG_LISTEN)
			continue;
		found = s;
		n++;
		if (used + strlen(s->name) + 3 < sizeof names)
			used += (size_t)snprintf(names + used, sizeof names - used, "%s%s",
			    used ? ", " : "", s->name);
	}
	if (name == NULL && n == 1)
		return found;
	if (n == 0)
		lbt_err_set(err, "no frontend or listen section in it");
	else if (name == NULL)
		lbt_err_set(err, "%zu frontends (%s): name one with --frontend", n, names);
	else
		lbt_err_set(err, "no frontend or listen section '%s' (there are: %s)", name, names);
	return NULL;
}

/* The name of the kind of rule, for the messages. */
static const char *kind_name(lbt_place_kind k)
{
	return k == LBT_PLACE_HTTP ? "http-request" : "tcp-request connection";
}

/* Find the place in section s (see place.h). */
static void place_in(const lbt_hacfg_sect *s, lbt_place_kind k, lbt_place *p)
{
	const lbt_hacfg_dir *last_same = NULL, *first_later = NULL, *first_be = NULL;
	const char *a;

	p->sect = s;
	p->late_src = 0;
	p->after = 0;
	for (size_t i = 0; i < s->ndir; i++) {
		const lbt_hacfg_dir *d = &s->dir[i];
		enum role r = role_of(d, k, &a);

		if (r == ROLE_ACTS) {
			p->line = d->line;
			snprintf(p->what, sizeof p->what, "%s's first %s %s", s->name, kind_name(k),
			    a);
			for (size_t j = i + 1; j < s->ndir && p->late_src == 0; j++)
				if (role_of(&s->dir[j], k, &a) == ROLE_SRC)
					p->late_src = s->dir[j].line;
			return;
		}
		if (r == ROLE_SAME || r == ROLE_SRC)
			last_same = d;
		if (r == ROLE_LATER && first_later == NULL)
			first_later = d;
		if (r == ROLE_BACKEND && first_be == NULL)
			first_be = d;
	}
	if (last_same != NULL) {
		p->line = last_same->line;
		p->after = 1;
		snprintf(p->what, sizeof p->what, "%s's last %s rule", s->name, kind_name(k));
	} else if (first_later != NULL || first_be != NULL) {
		const lbt_hacfg_dir *d = first_later ? first_later : first_be;

		p->line = d->line;
		snprintf(p->what, sizeof p->what, "%s's first %s", s->name, d->word[0]);
	} else {
		p->line = s->ndir > 0 ? s->dir[s->ndir - 1].line : s->line;
		p->after = 1;
		snprintf(p->what, sizeof p->what, "the end of %s", s->name);
	}
}

/* Find where a rule of kind k goes.  @return 0 or -1 with err */
int lbt_place_find(const lbt_hacfg *c, const char *frontend, lbt_place_kind k,
    lbt_place *p, lbt_err *err)
{
	const lbt_hacfg_sect *s = pick(c, frontend, err);

	if (s == NULL)
		return -1;
	place_in(s, k, p);
	return 0;
}

/* Write len bytes of text as whole lines (a newline added when missing). */
static void put_lines(FILE *out, const char *text, size_t len)
{
	fwrite(text, 1, len, out);
	if (len > 0 && text[len - 1] != '\n')
		fputc('\n', out);
}

/* Copy path to out with the rule put in.  @return 0 or -1 with err */
int lbt_place_splice(const char *path, const lbt_place *p, const char *text, size_t len,
    const char *tail, size_t tail_len, FILE *out, lbt_err *err)
{
	FILE *fp = fopen(path, "r");
	char *buf = NULL;
	size_t cap = 0;
	ssize_t n;
	uint64_t lineno = 0;
	int done = 0, last_nl = 1;

	if (fp == NULL)
		return lbt_err_at(err, path, 0, "%s", strerror(errno));
	while ((n = getline(&buf, &cap, fp)) >= 0) {
		lineno++;
		if (lineno == p->line && !p->after) {
			put_lines(out, text, len);
			done = 1;
		}
		fwrite(buf, 1, (size_t)n, out);
		last_nl = n > 0 && buf[n - 1] == '\n';
		if (lineno == p->line && p->after) {
			if (!last_nl)
				fputc('\n', out);
			last_nl = 1;
			put_lines(out, text, len);
			done = 1;
		}
	}
	free(buf);
	if (ferror(fp)) {
		fclose(fp);
		return lbt_err_at(err, path, 0, "%s", strerror(errno));
	}
	fclose(fp);
	if (!done)
		return lbt_err_at(err, path, p->line, "the file changed: it has no line %llu",
		    (unsigned long long)p->line);
	if (tail_len > 0) {
		fputs(last_nl ? "\n" : "\n\n", out);
		put_lines(out, tail, tail_len);
	}
	return ferror(out) ? lbt_err_set(err, "write error") : 0;
}
