/*
 * audit_finding.c - the findings list of an audit (struct au_finding): a
 * finding added with owned copies of its strings, its evidence, and the
 * printf the checks write them with.  Out of memory sets a->failed, which
 * lbt_audit_run reports once.
 *
 * Direction: audit.c, audit_cfg.c and audit_logs.c call these; they call
 * no other audit*.c file.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit_int.h"
#include "lbt/vec.h"

/* A malloc'ed printf, or NULL (then a->failed). */
char *lbt_auditi_fmt(lbt_audit *a, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0) {
		a->failed = 1;
		return NULL;
	}
	return s;
}

/* Add a finding (copies of the strings).  Out of memory sets a->failed. */
void lbt_auditi_add(lbt_audit *a, lbt_audit_sev sev, const char *check, uint64_t line,
    const struct au_proxy *p, const char *what, const char *why, const char *change)
{
	struct au_finding *f;

	if (a->failed || LBT_GROW(a->f, a->fcap, a->nf + 1, 16) < 0) {
		a->failed = 1;
		return;
	}
	f = &a->f[a->nf];
	*f = (struct au_finding){ .what = strdup(what), .why = strdup(why),
	    .change = strdup(change) };
	if (f->what == NULL || f->why == NULL || f->change == NULL) {
		free(f->what);
		free(f->why);
		free(f->change);
		a->failed = 1;
		return;
	}
	f->pub = (lbt_audit_finding){ sev, check, a->path, line, p ? p->s->name : "",
	    f->what, f->why, f->change, NULL, 0 };
	a->nf++;
}

/* Set the evidence of the last finding. */
void lbt_auditi_evidence(lbt_audit *a, const char *file, uint64_t line)
{
	if (a->nf > 0 && file != NULL) {
		a->f[a->nf - 1].pub.ev_file = file;
		a->f[a->nf - 1].pub.ev_line = line;
	}
}
