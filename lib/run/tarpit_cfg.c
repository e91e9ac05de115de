/*
 * tarpit_cfg.c - haproxy.cfg maxconn values handed to the tarpit analysis
 * (see tarpit_cfg.h): the run layer may use both config and analysis.
 */
#include <stddef.h>

#include "lbt/tarpit_cfg.h"

/* lbt_tarpit_maxconn_fn over an lbt_maxconn_cfg: a frontend's, or the
 * global one for a NULL name.  @return the value, 0 when unknown. */
static int32_t cfg_maxconn(const void *ctx, const char *name, size_t len, char *from,
    size_t size)
{
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
