/*
 * binds.h - the load balancer's own addresses: the `bind` lines of the
 * frontend and listen sections of a haproxy.cfg (read through hacfg.h).
 * A rule must never name them (lib/rule, lbt_deny_own): a flood that
 * seems to come from the LB (health checks, a local relay, a spoofed
 * source) would have the LB deny itself.
 *
 * Each bind word may list several addresses ("a:80,b:443"); an address
 * is "IPv4:PORT", "[IPv6]:PORT", "IPv6:PORT" (the last colon ends it) or
 * with a family prefix (ipv4@, ipv6@, tcp@, tcp4@, tcp6@, udp@, udp4@,
 * udp6@, quic4@, quic6@).  Wildcards (":80", "*:80", "0.0.0.0:80",
 * ":::80") name no address of their own and are skipped, as are sockets
 * (unix@, abns@, fd@, sockpair@ and paths).
 * Includes: addr.h, err.h.
 */
#ifndef LBT_BINDS_H
#define LBT_BINDS_H

#include <stdint.h>

#include "lbt/addr.h"
#include "lbt/err.h"

/* Receives one bind address: the file and line of its `bind` line.
 * @return 0 to go on, -1 (with err) to stop */
typedef int (*lbt_binds_fn)(void *ctx, const lbt_addr *a, const char *file, uint64_t line,
    lbt_err *err);

/*
 * Call fn for every address the `bind` lines of path name, in file
 * order.  @return 0, or -1 with err: the file unreadable or not split
 * (hacfg.h), a bind address that is none (file:line), or fn's error.
 */
int lbt_binds_read(const char *path, lbt_binds_fn fn, void *ctx, lbt_err *err);

/* The address of one bind word's element s[0..n) ("192.0.2.1:80"): 1 with
 * *a, 0 a wildcard or socket, -1 not an address. */
int lbt_binds_parse(const char *s, size_t n, lbt_addr *a);

#endif
