/*
 * maxconn.c - the frontend maxconn values of a haproxy.cfg, for
 * lbt-tarpit --haproxy-cfg (see maxconn.h).
 *
 * hacfg.c reads the file (words, sections, which defaults section each
 * proxy starts from); this file knows only `maxconn`.  HAProxy's rule, as
 * the "slim" column of its "show stat" shows it (HAProxy 2.6.12 on
 * tests/data/tarpit/inherit.cfg): a proxy starts with the maxconn of its
 * defaults section (which started with that of its own `from`), its last
 * own `maxconn` line overrides it, and a result of 0 or none means the
 * global maxconn.  So "maxconn 0" in a frontend means the global value,
 * not the defaults' one.  Every `maxconn` of global, defaults and proxy
 * sections must be a number in 0..2^31-1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbt/hacfg.h"
#include "lbt/num.h"
#include "lbt/maxconn.h"

struct lbt_maxconn_cfg {
	char *path;
	lbt_hacfg *cfg;
	int32_t global;             /* 0 when unset */
	uint64_t global_line;
};

/* The value of `maxconn` line d of file path.  @return 0, or -1 with err (file:line) */
static int maxconn_value(const char *path, const lbt_hacfg_dir *d, int32_t *out, lbt_err *err)
{
	int64_t v;
	lbt_err e;

	if (d->unset != NULL)
		return lbt_err_at(err, path, d->line, "unknown environment variable '%s'", d->unset);
	if (d->nword < 2 || lbt_num_parse(d->word[1], 0, INT32_MAX, "maxconn", &v, &e) < 0)
		return lbt_err_at(err, path, d->line, "maxconn: '%s' is not a number in "
		    "0..2147483647", d->nword < 2 ? "" : d->word[1]);
	*out = (int32_t)v;
	return 0;
}

/* The last `maxconn` line of section s, or NULL. */
static const lbt_hacfg_dir *last_maxconn(const lbt_hacfg_sect *s)
{
	for (size_t i = s->ndir; i-- > 0;)
		if (strcmp(s->dir[i].word[0], "maxconn") == 0)
			return &s->dir[i];
	return NULL;
}

/* Check every maxconn line and note the global one.  @return 0, or -1 with err */
static int check_all(lbt_maxconn_cfg *c, lbt_err *err)
{
	for (size_t i = 0; i < lbt_hacfg_count(c->cfg); i++) {
		const lbt_hacfg_sect *s = lbt_hacfg_at(c->cfg, i);
		int32_t v;

		if (s->kind == LBT_HACFG_OTHER)
			continue;
		for (size_t k = 0; k < s->ndir; k++) {
			if (strcmp(s->dir[k].word[0], "maxconn") != 0)
				continue;
			if (maxconn_value(c->path, &s->dir[k], &v, err) < 0)
				return -1;
			if (s->kind == LBT_HACFG_GLOBAL) {
				c->global = v;
				c->global_line = s->dir[k].line;
			}
		}
	}
	return 0;
}

/* Read path into a new table.  @return it, or NULL with err (file:line). */
lbt_maxconn_cfg *lbt_maxconn_cfg_read(const char *path, lbt_err *err)
{
	lbt_maxconn_cfg *c = calloc(1, sizeof *c);

	if (c == NULL || (c->path = strdup(path)) == NULL) {
		free(c);
		lbt_err_set(err, "out of memory");
		return NULL;
	}
	if ((c->cfg = lbt_hacfg_read(path, NULL, err)) == NULL || check_all(c, err) < 0) {
		lbt_maxconn_cfg_free(c);
		return NULL;
	}
	return c;
}

/* The global maxconn and where it is set, 0 when unset. */
int32_t lbt_maxconn_cfg_global(const lbt_maxconn_cfg *c, char *where, size_t size)
{
	if (c->global <= 0)
		return 0;
	if (where != NULL)
		snprintf(where, size, "%s:%llu (global)", c->path,
		    (unsigned long long)c->global_line);
	return c->global;
}

/*
 * The frontend maxconn of a proxy by HAProxy's rule (see above): *d and *s
 * get the directive that sets it and its section (*d NULL when it is the
 * global one, or unknown).  @return the value, 0 unknown.
 */
static int32_t resolve(const lbt_maxconn_cfg *c, const char *name, size_t len,
    const lbt_hacfg_dir **d, const lbt_hacfg_sect **s)
{
	int32_t v = 0;

	*d = NULL;
	if (len > 0 && name[len - 1] == '~')
		len--;
	if ((*s = lbt_hacfg_frontend(c->cfg, name, len)) == NULL)
		return 0;
	for (; *s != NULL && (*d = last_maxconn(*s)) == NULL; *s = (*s)->defaults)
		;
	if (*d == NULL || maxconn_value(c->path, *d, &v, NULL) < 0 || v <= 0) {
		*d = NULL;
		return c->global > 0 ? c->global : 0;
	}
	return v;
}

/* The frontend maxconn of a proxy and where it is set, 0 unknown. */
int32_t lbt_maxconn_cfg_get(const lbt_maxconn_cfg *c, const char *name, size_t len,
    char *where, size_t size)
{
	const lbt_hacfg_dir *d;
	const lbt_hacfg_sect *s;
	int32_t v = resolve(c, name, len, &d, &s);

	if (d == NULL)
		return v > 0 ? lbt_maxconn_cfg_global(c, where, size) : 0;
	if (where != NULL)
		snprintf(where, size, "%s:%llu (%s%s%s)", c->path, (unsigned long long)d->line,
		    s->keyword, s->name[0] ? " " : "", s->name);
	return v;
}

/* The frontend maxconn of a proxy and the line of the directive, 0 unknown. */
int32_t lbt_maxconn_cfg_line(const lbt_maxconn_cfg *c, const char *name, size_t len,
    uint64_t *line)
{
	const lbt_hacfg_dir *d;
	const lbt_hacfg_sect *s;
	int32_t v = resolve(c, name, len, &d, &s);

	*line = d != NULL ? d->line : v > 0 ? c->global_line : 0;
	return v;
}

/* True when the file has frontend or listen section name[0..len) (a '~' ignored). */
int lbt_maxconn_cfg_has(const lbt_maxconn_cfg *c, const char *name, size_t len)
{
	if (len > 0 && name[len - 1] == '~')
		len--;
	return lbt_hacfg_frontend(c->cfg, name, len) != NULL;
}

/* The path the table was read from. */
const char *lbt_maxconn_cfg_path(const lbt_maxconn_cfg *c)
{
	return c->path;
}

/* Free the table; NULL accepted. */
void lbt_maxconn_cfg_free(lbt_maxconn_cfg *c)
{
	if (c == NULL)
		return;
	lbt_hacfg_free(c->cfg);
	free(c->path);
	free(c);
}
