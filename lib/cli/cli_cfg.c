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
