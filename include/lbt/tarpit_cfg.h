/*
 * tarpit_cfg.h - lbt-tarpit's maxconn values from a haproxy.cfg: the glue
 * between the config layer (maxconn.h) and the tarpit analysis, which
 * takes them through a callback (lbt_tarpit_opts.maxconn_of) and reads no
 * configuration itself.
 * Includes: maxconn.h, tarpit.h.
 */
#ifndef LBT_TARPIT_CFG_H
#define LBT_TARPIT_CFG_H

#include "lbt/maxconn.h"
#include "lbt/tarpit.h"

/*
 * Make o take the frontend and global maxconn values of cfg (borrowed: it
 * must outlive every accumulator made from o); cfg NULL clears them.
 */
void lbt_tarpit_cfg_use(lbt_tarpit_opts *o, const lbt_maxconn_cfg *cfg);

#endif
