/*
 * cli_cfg.c - the haproxy.cfg files a program's inputs name, read once for
 * the maxconn values of every (load balancer, frontend): lbt-tarpit,
 * lbt-timeline and lbt-triage ask the same question of the same options.
 */
#include "lbt/cli.h"

/* --haproxy-cfg and every input's haproxy-cfg=, read; exits on an error
 * (file:line).  @return the set, maybe empty; free with lbt_tarpit_cfgs_free */
lbt_tarpit_cfgs *lbt_cli_tarpit_cfgs(const lbt_cli *cli)
{
	lbt_tarpit_cfgs *c;
	lbt_err err;

	if ((c = lbt_tarpit_cfgs_from_inputs(&cli->in, &err)) == NULL)
		lbt_cli_die(cli, &err);
	return c;
}

/* The bind addresses of --haproxy-cfg and of every input's haproxy-cfg=,
 * each given to fn; exits on an error (file:line). */
void lbt_cli_lb_addrs(const lbt_cli *cli, lbt_binds_fn fn, void *ctx)
{
	const lbt_input_opts *in = &cli->in;
	lbt_err err;

	if (in->haproxy_cfg != NULL && lbt_binds_read(in->haproxy_cfg, fn, ctx, &err) < 0)
		lbt_cli_die(cli, &err);
	for (size_t i = 0; i < in->nspecs; i++) {
		lbt_input_opts o = lbt_input_spec_opts(&in->specs[i], in);

		if (o.haproxy_cfg != NULL && o.haproxy_cfg != in->haproxy_cfg &&
		    lbt_binds_read(o.haproxy_cfg, fn, ctx, &err) < 0)
			lbt_cli_die(cli, &err);
	}
}
