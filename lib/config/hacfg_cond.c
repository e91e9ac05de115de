/*
 * hacfg_cond.c - conditional blocks of a haproxy.cfg (.if / .elif / .else
 * / .endif) and the other '.' directives, for hacfg.c (see hacfg.h).
 *
 * The states follow HAProxy 2.6 cfgparse.c readcfgfile(); a condition is
 * the words after ".if" joined by spaces, in the language of cfgcond.c:
 * numbers, predicates, '!', "&&", "||" and parentheses.  Only what this
 * machine can know is evaluated: defined(), streq(), strneq().  The right
 * side of "&&" / "||" is parsed but not evaluated when the left side
 * decides, so "1 || feature(X)" is true here as in HAProxy.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hacfg_int.h"

/* A condition being evaluated; `skip` parses without evaluating (short-circuit). */
struct cexpr {
	struct rd *r;
	const char *text, *p;
	int skip;
};

static int c_or(struct cexpr *e);

/* Skip blanks in the expression. */
static void c_blank(struct cexpr *e)
{
	while (isspace((unsigned char)*e->p))
		e->p++;
}

/*
 * Predicate `pred` on its arguments a[0..len): defined(a), streq(a,b),
 * strneq(a,b); feature() and version_*() cannot be known here.
 * @return 0 or 1, or -1 with err
 */
static int c_pred(struct cexpr *e, const char *pred, const char *a, size_t len)
{
	const char *comma = memchr(a, ',', len);
	char name[256], lbuf[24];

	if (strcmp(pred, "defined") == 0) {
		snprintf(name, sizeof name, "%.*s", (int)len, a);
		return lbt_hacfgi_var(e->r, name, lbuf, sizeof lbuf) != NULL;
	}
	if (strcmp(pred, "streq") == 0 || strcmp(pred, "strneq") == 0) {
		size_t l1 = comma ? (size_t)(comma - a) : 0;
		int eq;

		if (comma == NULL || memchr(comma + 1, ',', len - l1 - 1) != NULL)
			return lbt_hacfgi_err(e->r, "%s() expects two arguments in '%s'", pred, e->text);
		eq = l1 == len - l1 - 1 && memcmp(a, comma + 1, l1) == 0;
		return pred[3] == 'e' ? eq : !eq;
	}
	if (strcmp(pred, "feature") == 0 || strncmp(pred, "version_", 8) == 0 ||
	    strncmp(pred, "osslversion_", 12) == 0)
		return e->skip ? 0 : lbt_hacfgi_err(e->r, "cannot evaluate %s() here: it depends on the "
		    "HAProxy that reads the file", pred);
	return lbt_hacfgi_err(e->r, "unparsable conditional expression '%s'", e->text);
}

/* A number or a predicate call.  @return 0 or 1, or -1 with err */
static int c_term(struct cexpr *e)
{
	const char *p = e->p, *open, *close;
	char pred[32];
	int v;

	if (isdigit((unsigned char)*p) || *p == '-') {
		char *end;
		long n = strtol(p, &end, 0);

		e->p = end;
		return n != 0;
	}
	while (isalnum((unsigned char)*p) || *p == '_')
		p++;
	open = p;
	if (*open != '(' || open == e->p || (size_t)(open - e->p) >= sizeof pred ||
	    (close = strchr(open, ')')) == NULL)
		return lbt_hacfgi_err(e->r, "unparsable conditional expression '%s'", e->text);
	snprintf(pred, sizeof pred, "%.*s", (int)(open - e->p), e->p);
	v = c_pred(e, pred, open + 1, (size_t)(close - open - 1));
	e->p = close + 1;
	return v < 0 ? -1 : e->skip ? 0 : v;
}

/* '!' unary | '(' or ')' | term.  @return 0 or 1, or -1 with err */
static int c_unary(struct cexpr *e)
{
	int v;

	c_blank(e);
	if (*e->p == '!') {
		e->p++;
		v = c_unary(e);
		return v < 0 ? -1 : !v;
	}
	if (*e->p != '(')
		return c_term(e);
	e->p++;
	if ((v = c_or(e)) < 0)
		return -1;
	c_blank(e);
	if (*e->p != ')')
		return lbt_hacfgi_err(e->r, "expected ')' in conditional expression '%s'", e->text);
	e->p++;
	return v;
}

/* unary ('&&' unary)*.  @return 0 or 1, or -1 with err */
static int c_and(struct cexpr *e)
{
	int v = c_unary(e), w, skip = e->skip;

	for (c_blank(e); v >= 0 && e->p[0] == '&' && e->p[1] == '&'; c_blank(e)) {
		e->p += 2;
		e->skip = skip || !v;
		w = c_unary(e);
		e->skip = skip;
		v = w < 0 ? -1 : v && w;
	}
	return v;
}

/* and ('||' and)*.  @return 0 or 1, or -1 with err */
static int c_or(struct cexpr *e)
{
	int v = c_and(e), w, skip = e->skip;

	for (c_blank(e); v >= 0 && e->p[0] == '|' && e->p[1] == '|'; c_blank(e)) {
		e->p += 2;
		e->skip = skip || v;
		w = c_and(e);
		e->skip = skip;
		v = w < 0 ? -1 : v || w;
	}
	return v;
}

/* The condition made of words w[1..nw) joined by spaces.  @return 0, 1, or -1 with err */
static int cond_eval(struct rd *r, char **w, int nw)
{
	char text[4096];
	struct cexpr e = { r, text, text, 0 };
	size_t n = 0;
	int v;

	text[0] = '\0';
	for (int i = 1; i < nw && n < sizeof text; i++)
		n += (size_t)snprintf(text + n, sizeof text - n, "%s%s", i > 1 ? " " : "", w[i]);
	if (n >= sizeof text)
		return lbt_hacfgi_err(r, "conditional expression too long");
	c_blank(&e);
	if (*e.p == '\0')
		return 0;
	if ((v = c_or(&e)) < 0)
		return -1;
	c_blank(&e);
	if (*e.p != '\0')
		return lbt_hacfgi_err(r, "unexpected character '%c' at the end of conditional expression "
		    "'%s'", *e.p, text);
	return v;
}

/* True when the lines of the current conditional branch are skipped. */
static int masked(const struct rd *r)
{
	return r->lvl > 0 && !r->cond[r->lvl - 1].active;
}

/* ".if COND".  @return 0 or -1 with err */
static int cond_if(struct rd *r, char **w, int nw)
{
	struct cond *c;
	int skip = masked(r), v = 0;

	if (r->lvl == HACFG_MAX_NEST)
		return lbt_hacfgi_err(r, "too many nested '.if', max is %d", HACFG_MAX_NEST);
	if (!skip && (v = cond_eval(r, w, nw)) < 0)
		return -1;
	c = &r->cond[r->lvl++];
	c->active = v;
	c->done = skip || v;
	c->seen_else = 0;
	c->line = r->lineno;
	return 0;
}

/* ".elif COND", ".else" or ".endif" (w[0]).  @return 0 or -1 with err */
static int cond_next(struct rd *r, char **w, int nw)
{
	struct cond *c = r->lvl > 0 ? &r->cond[r->lvl - 1] : NULL;
	int v;

	if (c == NULL)
		return lbt_hacfgi_err(r, "lone '%s' with no matching '.if'", w[0]);
	if (strcmp(w[0], ".endif") == 0) {
		r->lvl--;
		return 0;
	}
	if (c->seen_else)
		return lbt_hacfgi_err(r, "'%s' after '.else' is not permitted", w[0]);
	if (strcmp(w[0], ".else") == 0) {
		c->seen_else = 1;
		c->active = !c->done;
		c->done = 1;
		return 0;
	}
	if (c->done) {
		c->active = 0;
		return 0;
	}
	if ((v = cond_eval(r, w, nw)) < 0)
		return -1;
	c->active = c->done = v;
	return 0;
}

/*
 * Every non-empty line w[0..nw), seen here first (hacfg_int.h): the
 * conditional blocks, the lines of a skipped branch, the other '.'
 * directives.  @return 1 when the line is consumed, 0 when it is to be
 * read as usual, -1 with err
 */
int lbt_hacfgi_dot_line(struct rd *r, char **w, int nw)
{
	static const char *const quiet[] = { ".notice", ".warning", ".diag" };

	if (strcmp(w[0], ".if") == 0)
		return cond_if(r, w, nw) < 0 ? -1 : 1;
	if (strcmp(w[0], ".elif") == 0 || strcmp(w[0], ".else") == 0 ||
	    strcmp(w[0], ".endif") == 0)
		return cond_next(r, w, nw) < 0 ? -1 : 1;
	if (masked(r))
		return 1;
	if (w[0][0] != '.')
		return 0;
	for (size_t i = 0; i < sizeof quiet / sizeof quiet[0]; i++)
		if (strcmp(w[0], quiet[i]) == 0)
			return 1;
	if (strcmp(w[0], ".alert") == 0)
		return lbt_hacfgi_err(r, "'.alert' directive: '%s'", nw > 1 ? w[1] : "");
	return lbt_hacfgi_err(r, "unknown directive '%s'", w[0]);
}
