/*
 * audit_diff.c - what changed between two haproxy.cfg files, section by
 * section: the directives (as HAProxy splits them into words) of each
 * frontend, listen, backend, defaults and global section that one file
 * has and the other has not, in file order.  What a reload installed,
 * for lbt-timeline's reloads (--haproxy-cfg-after).
 *
 * A directive is its words joined by one space, so re-indenting or
 * re-quoting a line is no change; each line of one section is matched
 * with an equal line of the same section of the other file, once, so a
 * line written twice and kept once is one removal.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit_int.h"
#include "lbt/hacfg.h"

/* The words of d joined by single spaces into buf.  @return buf */
static const char *joined(const lbt_hacfg_dir *d, char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int i = 0; i < d->nword && n < size; i++)
		n += (size_t)snprintf(buf + n, size - n, "%s%s", i ? " " : "", d->word[i]);
	return buf;
}

/* The section of c with s's keyword and name, or NULL. */
static const lbt_hacfg_sect *same_sect(const lbt_hacfg *c, const lbt_hacfg_sect *s)
{
	for (size_t i = 0; i < lbt_hacfg_count(c); i++) {
		const lbt_hacfg_sect *t = lbt_hacfg_at(c, i);

		if (strcmp(t->keyword, s->keyword) == 0 && strcmp(t->name, s->name) == 0)
			return t;
	}
	return NULL;
}

/* Append "<section>: <sign> <line> (file line N)" to *out.  @return 0 or -1. */
static int add(lbt_audit_changes *out, const lbt_hacfg_sect *s, char sign, const char *text,
    uint64_t line)
{
	char **v;
	size_t len;

	if ((v = realloc(out->v, (out->n + 1) * sizeof *v)) == NULL)
		return -1;
	out->v = v;
	len = strlen(s->keyword) + strlen(s->name) + strlen(text) + 64;
	if ((v[out->n] = malloc(len)) == NULL)
		return -1;
	snprintf(v[out->n], len, "%s%s%s: %c %s (line %llu)", s->keyword, s->name[0] ? " " : "",
	    s->name, sign, text, (unsigned long long)line);
	out->n++;
	return 0;
}

/* The lines of a (from file `sign` '-') not matched in b, once each.
 * @return 0 or -1. */
static int one_way(lbt_audit_changes *out, const lbt_hacfg_sect *a, const lbt_hacfg_sect *b,
    char sign)
{
	char *used = b != NULL ? calloc(b->ndir ? b->ndir : 1, 1) : NULL;
	char x[2048], y[2048];
	int rc = 0;

	if (b != NULL && used == NULL)
		return -1;
	for (size_t i = 0; rc == 0 && i < a->ndir; i++) {
		size_t k = 0;

		joined(&a->dir[i], x, sizeof x);
		for (; b != NULL && k < b->ndir; k++)
			if (!used[k] && strcmp(x, joined(&b->dir[k], y, sizeof y)) == 0)
				break;
		if (b != NULL && k < b->ndir)
			used[k] = 1;
		else
			rc = add(out, a, sign, x, a->dir[i].line);
	}
	free(used);
	return rc;
}

/* What changed from old to new (see audit.h). */
int lbt_audit_cfg_diff(const char *old, const char *new, lbt_audit_changes *out, lbt_err *err)
{
	lbt_hacfg *a = lbt_hacfg_read(old, NULL, err), *b;
	int rc = 0;

	memset(out, 0, sizeof *out);
	if (a == NULL)
		return -1;
	if ((b = lbt_hacfg_read(new, NULL, err)) == NULL) {
		lbt_hacfg_free(a);
		return -1;
	}
	for (size_t i = 0; rc == 0 && i < lbt_hacfg_count(a); i++)
		rc = one_way(out, lbt_hacfg_at(a, i), same_sect(b, lbt_hacfg_at(a, i)), '-');
	for (size_t i = 0; rc == 0 && i < lbt_hacfg_count(b); i++)
		rc = one_way(out, lbt_hacfg_at(b, i), same_sect(a, lbt_hacfg_at(b, i)), '+');
	lbt_hacfg_free(a);
	lbt_hacfg_free(b);
	if (rc < 0) {
		lbt_audit_changes_free(out);
		return lbt_err_set(err, "out of memory");
	}
	return 0;
}

/* Free what lbt_audit_cfg_diff made (zeroed accepted). */
void lbt_audit_changes_free(lbt_audit_changes *c)
{
	for (size_t i = 0; c->v != NULL && i < c->n; i++)
		free(c->v[i]);
	free(c->v);
	memset(c, 0, sizeof *c);
}
