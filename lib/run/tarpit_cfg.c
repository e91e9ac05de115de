/*
 * tarpit_cfg.c - haproxy.cfg maxconn values handed to the tarpit analysis
 * (see tarpit_cfg.h): the run layer may use both config and analysis.
 *
 * A set holds each file once (two inputs of one load balancer, or of two
 * load balancers sharing a configuration, read it once) and the load
 * balancers each file is for.  A lookup walks the few bindings three
 * times at most, once per new (load balancer, frontend) group.
 */
#include <stdlib.h>
#include <string.h>

#include "lbt/input_spec.h"
#include "lbt/tarpit_cfg.h"
#include "lbt/vec.h"

/* lbt_tarpit_maxconn_fn over one lbt_maxconn_cfg: a frontend's, or the
 * global one for a NULL name.  @return the value, 0 when unknown. */
static int32_t cfg_maxconn(const void *ctx, const char *lb, size_t lb_len, const char *name,
    size_t len, char *from, size_t size)
{
	(void)lb;
	(void)lb_len;
	if (name == NULL)
		return lbt_maxconn_cfg_global(ctx, from, size);
	return lbt_maxconn_cfg_get(ctx, name, len, from, size);
}

/* Point o's maxconn callback at cfg (NULL: none). */
void lbt_tarpit_cfg_use(lbt_tarpit_opts *o, const lbt_maxconn_cfg *cfg)
{
	o->maxconn_of = cfg != NULL ? cfg_maxconn : NULL;
	o->maxconn_ctx = cfg;
}

/* A file for the records of one load balancer (lb NULL: any). */
struct binding {
	char *lb;
	size_t cfg;              /* index in files */
};

struct lbt_tarpit_cfgs {
	lbt_maxconn_cfg **files;
	size_t nfiles, fcap;
	struct binding *b;
	size_t nb, bcap;
};

/* The index of the file at path in c, read when new.  @return it, or -1 with err */
static long file_index(lbt_tarpit_cfgs *c, const char *path, lbt_err *err)
{
	for (size_t i = 0; i < c->nfiles; i++)
		if (strcmp(lbt_maxconn_cfg_path(c->files[i]), path) == 0)
			return (long)i;
	if (LBT_GROW(c->files, c->fcap, c->nfiles + 1, 4) < 0)
		return lbt_err_set(err, "out of memory");
	if ((c->files[c->nfiles] = lbt_maxconn_cfg_read(path, err)) == NULL)
		return -1;
	return (long)c->nfiles++;
}

/* Bind the file at path to load balancer lb (NULL: any).  @return 0 or -1 with err */
static int bind(lbt_tarpit_cfgs *c, const char *path, const char *lb, lbt_err *err)
{
	long k = file_index(c, path, err);

	if (k < 0)
		return -1;
	for (size_t i = 0; i < c->nb; i++)
		if (c->b[i].cfg == (size_t)k && (c->b[i].lb == NULL ? lb == NULL :
		    lb != NULL && strcmp(c->b[i].lb, lb) == 0))
			return 0;
	if (LBT_GROW(c->b, c->bcap, c->nb + 1, 4) < 0)
		return lbt_err_set(err, "out of memory");
	c->b[c->nb].cfg = (size_t)k;
	if ((c->b[c->nb].lb = lb ? strdup(lb) : NULL) == NULL && lb != NULL)
		return lbt_err_set(err, "out of memory");
	c->nb++;
	return 0;
}

/* The configurations of the input options; see tarpit_cfg.h.  @return the set or NULL */
lbt_tarpit_cfgs *lbt_tarpit_cfgs_from_inputs(const lbt_input_opts *opts, lbt_err *err)
{
	lbt_tarpit_cfgs *c = calloc(1, sizeof *c);
	int rc = 0;

	if (c == NULL) {
		lbt_err_set(err, "out of memory");
		return NULL;
	}
	if (opts->haproxy_cfg != NULL)
		rc = bind(c, opts->haproxy_cfg, opts->lb, err);
	for (size_t i = 0; rc == 0 && i < opts->nspecs; i++) {
		lbt_input_opts o = lbt_input_spec_opts(&opts->specs[i], opts);

		if (o.haproxy_cfg != NULL)
			rc = bind(c, o.haproxy_cfg, o.lb, err);
	}
	if (rc < 0) {
		lbt_tarpit_cfgs_free(c);
		return NULL;
	}
	return c;
}

/* @return the number of files. */
size_t lbt_tarpit_cfgs_count(const lbt_tarpit_cfgs *c)
{
	return c != NULL ? c->nfiles : 0;
}

/* True when binding b is for load balancer lb[0..n) (pass 0), for any (pass
 * 1), or for whichever (pass 2). */
static int bound_for(const struct binding *b, const char *lb, size_t n, int pass)
{
	if (pass == 2)
		return 1;
	if (pass == 1)
		return b->lb == NULL;
	return b->lb != NULL && strlen(b->lb) == n && memcmp(b->lb, lb, n) == 0;
}

/*
 * The file that speaks for frontend name[0..len) (NULL: the first file
 * with a global maxconn) of load balancer lb[0..lb_len), by the order of
 * tarpit_cfg.h.  @return it, or NULL.
 */
static const lbt_maxconn_cfg *which(const lbt_tarpit_cfgs *c, const char *lb, size_t lb_len,
    const char *name, size_t len)
{
	for (int pass = 0; pass < 3; pass++)
		for (size_t i = 0; i < c->nb; i++) {
			const lbt_maxconn_cfg *f = c->files[c->b[i].cfg];

			if (bound_for(&c->b[i], lb, lb_len, pass) && (name != NULL ?
			    lbt_maxconn_cfg_has(f, name, len) : lbt_maxconn_cfg_global(f, NULL, 0) > 0))
				return f;
		}
	return NULL;
}

/* lbt_tarpit_maxconn_fn over a set.  @return the value, 0 when unknown. */
static int32_t set_maxconn(const void *ctx, const char *lb, size_t lb_len, const char *name,
    size_t len, char *from, size_t size)
{
	const lbt_maxconn_cfg *f = which(ctx, lb, lb_len, name, len);

	return f != NULL ? cfg_maxconn(f, lb, lb_len, name, len, from, size) : 0;
}

/* Point o's maxconn callback at the set (NULL or empty: none). */
void lbt_tarpit_cfgs_use(lbt_tarpit_opts *o, const lbt_tarpit_cfgs *c)
{
	o->maxconn_of = lbt_tarpit_cfgs_count(c) > 0 ? set_maxconn : NULL;
	o->maxconn_ctx = lbt_tarpit_cfgs_count(c) > 0 ? c : NULL;
}

/* Free the set; NULL accepted. */
void lbt_tarpit_cfgs_free(lbt_tarpit_cfgs *c)
{
	if (c == NULL)
		return;
	for (size_t i = 0; i < c->nfiles; i++)
		lbt_maxconn_cfg_free(c->files[i]);
	for (size_t i = 0; i < c->nb; i++)
		free(c->b[i].lb);
	free(c->files);
	free(c->b);
	free(c);
}
