/*
 * tarpit_cfg.h - lbt-tarpit's maxconn values from haproxy.cfg files: the
 * glue between the config layer (maxconn.h) and the tarpit analysis, which
 * takes them through a callback (lbt_tarpit_opts.maxconn_of) and reads no
 * configuration itself.
 *
 * One run may read the logs of several load balancers, each with its own
 * haproxy.cfg (--input / --sources haproxy-cfg=, input_spec.h): a set of
 * configurations answers for a (load balancer, frontend) pair with the
 * file of that load balancer that has the frontend, else a file given for
 * no load balancer in particular that has it, else any file that has it.
 * Every file gives the maxconn of each of its frontends as HAProxy does
 * (its own, its defaults section's, else the global one: maxconn.c).
 * Includes: err.h, input.h, maxconn.h, tarpit.h.
 */
#ifndef LBT_TARPIT_CFG_H
#define LBT_TARPIT_CFG_H

#include "lbt/err.h"
#include "lbt/input.h"
#include "lbt/maxconn.h"
#include "lbt/tarpit.h"

/*
 * Make o take the frontend and global maxconn values of cfg (borrowed: it
 * must outlive every accumulator made from o); cfg NULL clears them.
 */
void lbt_tarpit_cfg_use(lbt_tarpit_opts *o, const lbt_maxconn_cfg *cfg);

/* haproxy.cfg files, each for the records of one load balancer or of any. */
typedef struct lbt_tarpit_cfgs lbt_tarpit_cfgs;

/*
 * The configurations the input options name: opts->haproxy_cfg (for
 * opts->lb, NULL: any) and the haproxy-cfg= of every spec (for its lb=,
 * else opts->lb), each file read once.
 * @return the set (maybe empty), or NULL with err (file:line: a file that
 * cannot be read or a maxconn that is not a number).
 */
lbt_tarpit_cfgs *lbt_tarpit_cfgs_from_inputs(const lbt_input_opts *opts, lbt_err *err);

/* The number of files in the set. */
size_t lbt_tarpit_cfgs_count(const lbt_tarpit_cfgs *c);

/*
 * Make o take its maxconn values from the set (borrowed: it must outlive
 * every accumulator made from o); an empty set or NULL clears them.
 */
void lbt_tarpit_cfgs_use(lbt_tarpit_opts *o, const lbt_tarpit_cfgs *c);

/* NULL accepted. */
void lbt_tarpit_cfgs_free(lbt_tarpit_cfgs *c);

#endif
