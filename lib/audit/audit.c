/*
 * audit.c - the public verbs of the audit (see audit.h): the configuration
 * read into proxies (hacfg.h) with their maxconn values (maxconn.h), the
 * analyses handed to the caller, the run that makes the findings (sorted
 * by severity then line), severities.  The checks are audit_cfg.c's and
 * audit_logs.c's; rules and conditions audit_acl.c's; what the checks read
 * of a proxy audit_proxy.c's; the findings list audit_finding.c's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit_int.h"
#include "lbt/tarpit_cfg.h"

static const char *const sev_names[] = { "info", "warn", "crit" };

/* "info", "warn", "crit". */
const char *lbt_audit_sev_name(lbt_audit_sev s)
{
	return (unsigned)s < 3 ? sev_names[s] : "?";
}

/* Parse a severity name.  @return 0, or -1 with err. */
int lbt_audit_sev_parse(const char *s, lbt_audit_sev *out, lbt_err *err)
{
	for (int i = 0; i < 3; i++)
		if (strcmp(s, sev_names[i]) == 0) {
			*out = (lbt_audit_sev)i;
			return 0;
		}
	return lbt_err_set(err, "'%s' is not a severity (info, warn, crit)", s);
}

/* ---- proxies ------------------------------------------------------------- */

/* Whether section s (with its defaults) has log targets: `log` lines,
 * cancelled by a later `no log`. */
static int has_logs(const lbt_hacfg_sect *s)
{
	int logs = s->defaults != NULL ? has_logs(s->defaults) : 0;

	for (size_t i = 0; i < s->ndir; i++) {
		char **w = s->dir[i].word;

		if (strcmp(w[0], "log") == 0)
			logs = 1;
		else if (strcmp(w[0], "no") == 0 && s->dir[i].nword > 1 && strcmp(w[1], "log") == 0)
			logs = 0;
	}
	return logs;
}

/* Fill p for section s.  @return 0, or -1 when out of memory. */
static int proxy_init(struct au_proxy *p, const lbt_hacfg_sect *s)
{
	const lbt_hacfg_dir *mode = lbt_auditi_setting_in(s, "mode", NULL);

	p->s = s;
	p->fe = s->kind == LBT_HACFG_FRONTEND || s->kind == LBT_HACFG_LISTEN;
	p->be = s->kind == LBT_HACFG_BACKEND || s->kind == LBT_HACFG_LISTEN;
	p->http = mode != NULL && mode->nword > 1 && strcmp(mode->word[1], "http") == 0;
	p->logs = has_logs(s);
	return lbt_auditi_rules_read(&p->rules, s);
}

/* The proxies of the configuration into a->px.  @return 0 or -1 with err. */
static int read_proxies(lbt_audit *a, lbt_err *err)
{
	size_t n = lbt_hacfg_count(a->cfg);

	if ((a->px = calloc(n ? n : 1, sizeof *a->px)) == NULL)
		return lbt_err_set(err, "out of memory");
	for (size_t i = 0; i < n; i++) {
		const lbt_hacfg_sect *s = lbt_hacfg_at(a->cfg, i);

		if (s->kind != LBT_HACFG_FRONTEND && s->kind != LBT_HACFG_LISTEN &&
		    s->kind != LBT_HACFG_BACKEND)
			continue;
		if (proxy_init(&a->px[a->npx++], s) < 0)
			return lbt_err_set(err, "out of memory");
	}
	return 0;
}

/* Check opts.proxy names a frontend or listen section.  @return 0 or -1 with err. */
static int check_proxy_opt(const lbt_audit *a, lbt_err *err)
{
	const struct au_proxy *p;

	if (a->o.proxy == NULL)
		return 0;
	p = lbt_auditi_proxy(a, a->o.proxy, strlen(a->o.proxy));
	if (p == NULL || !p->fe)
		return lbt_err_at(err, a->path, 0, "no frontend or listen section '%s'",
		    a->o.proxy);
	return 0;
}

/* Read the configuration at path.  @return the audit, or NULL with err. */
lbt_audit *lbt_audit_new(const char *path, const lbt_audit_opts *opts, lbt_err *err)
{
	lbt_audit *a = calloc(1, sizeof *a);

	if (a == NULL || (a->path = strdup(path)) == NULL) {
		free(a);
		lbt_err_set(err, "out of memory");
		return NULL;
	}
	a->o = opts != NULL ? *opts : (lbt_audit_opts)LBT_AUDIT_OPTS_INIT;
	if (a->o.alert_pct < 1 || a->o.alert_pct > 100 || a->o.step_us <= 0 || a->o.near < 0) {
		lbt_err_set(err, "audit: alert percentage, step or near out of range");
	} else if ((a->cfg = lbt_hacfg_read(path, NULL, err)) != NULL &&
	    (a->mc = lbt_maxconn_cfg_read(path, err)) != NULL &&
	    read_proxies(a, err) == 0 && check_proxy_opt(a, err) == 0)
		return a;
	lbt_audit_free(a);
	return NULL;
}

/* ---- analyses ------------------------------------------------------------ */

/* Make the analyses (once).  @return 0 or -1 (out of memory). */
static int make_analyses(lbt_audit *a)
{
	lbt_tarpit_opts to = LBT_TARPIT_OPTS_INIT;
	lbt_offenders_opts oo = LBT_OFFENDERS_OPTS_INIT;
	lbt_err err;

	if (a->tarpit != NULL)
		return 0;
	to.step_us = a->o.step_us;
	to.threshold_pct = a->o.alert_pct;
	to.near = a->o.near;
	lbt_tarpit_cfg_use(&to, a->mc);
	oo.top = 0;
	a->tarpit = lbt_tarpit_new(&to, &err);
	a->off = lbt_offenders_new(&oo, &err);
	a->kh = lbt_keyhosts_new(&err);
	return a->tarpit && a->off && a->kh ? 0 : -1;
}

/* The analyses of the log findings into v.  @return their number (0 when
 * out of memory). */
size_t lbt_audit_analyses(lbt_audit *a, lbt_analysis *v)
{
	if (make_analyses(a) < 0)
		return 0;
	v[0] = lbt_tarpit_analysis(a->tarpit);
	v[1] = lbt_offenders_analysis(a->off);
	v[2] = lbt_keyhosts_analysis(a->kh);
	return LBT_AUDIT_NANALYSES;
}

/* ---- findings ------------------------------------------------------------ */

/* qsort order: severity (critical first), line, check, proxy. */
static int finding_cmp(const void *x, const void *y)
{
	const lbt_audit_finding *a = &((const struct au_finding *)x)->pub;
	const lbt_audit_finding *b = &((const struct au_finding *)y)->pub;
	int c;

	if (a->sev != b->sev)
		return a->sev > b->sev ? -1 : 1;
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	if ((c = strcmp(a->check, b->check)) != 0)
		return c;
	return strcmp(a->proxy, b->proxy);
}

/* True when proxy p is audited (opts.proxy). */
static int audited(const lbt_audit *a, const struct au_proxy *p)
{
	return a->o.proxy == NULL || strcmp(a->o.proxy, p->s->name) == 0;
}

/* Build the findings.  @return 0, or -1 with err. */
int lbt_audit_run(lbt_audit *a, int logs, lbt_err *err)
{
	if (a->ran)
		return lbt_err_set(err, "audit: run twice");
	a->ran = 1;
	logs = logs && a->tarpit != NULL;
	for (size_t i = 0; i < a->npx; i++)
		if (audited(a, &a->px[i]))
			lbt_auditi_check_proxy(a, &a->px[i], logs);
	if (logs) {
		lbt_auditi_check_groups(a);
		lbt_auditi_check_hosts(a);
		lbt_auditi_check_keys(a);
	}
	if (a->failed)
		return lbt_err_set(err, "out of memory");
	if (a->nf > 1)
		qsort(a->f, a->nf, sizeof *a->f, finding_cmp);
	return 0;
}

/* Number of findings. */
size_t lbt_audit_nfindings(const lbt_audit *a)
{
	return a->nf;
}

/* Finding i, or NULL past the end. */
const lbt_audit_finding *lbt_audit_finding_at(const lbt_audit *a, size_t i)
{
	return i < a->nf ? &a->f[i].pub : NULL;
}

/* The most severe severity, -1 none. */
int lbt_audit_worst(const lbt_audit *a)
{
	int w = -1;

	for (size_t i = 0; i < a->nf; i++)
		if ((int)a->f[i].pub.sev > w)
			w = (int)a->f[i].pub.sev;
	return w;
}

/* Free a; NULL accepted. */
void lbt_audit_free(lbt_audit *a)
{
	if (a == NULL)
		return;
	for (size_t i = 0; i < a->nf; i++) {
		free(a->f[i].what);
		free(a->f[i].why);
		free(a->f[i].change);
	}
	for (size_t i = 0; i < a->npx; i++)
		lbt_auditi_rules_free(&a->px[i].rules);
	free(a->f);
	free(a->px);
	lbt_tarpit_free(a->tarpit);
	lbt_offenders_free(a->off);
	lbt_keyhosts_free(a->kh);
	lbt_maxconn_cfg_free(a->mc);
	lbt_hacfg_free(a->cfg);
	free(a->path);
	free(a);
}
