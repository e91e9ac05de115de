/*
 * netgroup.h - which "source" a client address belongs to.
 *
 * A source is a network: by default an IPv4 address on its own (/32) and an
 * IPv6 /64 (a client rotating addresses inside its /64 is one source).  The
 * prefixes come from --v4-prefix and --v6-prefix.  The group of an address
 * is the address with the host bits cleared; its 17 bytes (lbt_addr) are a
 * ready hash key, and its text form is what lbt-offenders prints and
 * lbt-deny reads back: "203.0.113.7" for a full-length prefix,
 * "2001:db8:bad:1::/64" otherwise.
 * Includes: addr.h, err.h.
 */
#ifndef LBT_NETGROUP_H
#define LBT_NETGROUP_H

#include <stddef.h>

#include "lbt/addr.h"
#include "lbt/err.h"

typedef struct lbt_netgroup {
	int v4_bits;     /* 0..32, default 32 */
	int v6_bits;     /* 0..128, default 64 */
} lbt_netgroup;

#define LBT_NETGROUP_INIT { 32, 64 }

/*
 * Set the prefixes from option text (either may be NULL: unchanged).
 * Accepts "24" or "/24".  @return 0, or -1 with err naming the option and
 * the allowed range ("--v4-prefix: 'x' is not a number in 0..32").
 */
int lbt_netgroup_set(lbt_netgroup *g, const char *v4, const char *v6, lbt_err *err);

/* lbt_cli_fn-shaped handlers of --v4-prefix and --v6-prefix; ctx is the
 * lbt_netgroup.  @return 0, or -1 with err. */
int lbt_netgroup_opt_v4(void *g, const char *arg, lbt_err *err);
int lbt_netgroup_opt_v6(void *g, const char *arg, lbt_err *err);

/* Prefix length used for an address of family `family` (4 or 6). */
int lbt_netgroup_bits(const lbt_netgroup *g, int family);

/*
 * The group of address a: *net = a with the host bits cleared, *bits (may be
 * NULL) = the prefix length.  @return 0, or -1 when a has no family (no
 * client address): *net is then left zeroed.
 */
int lbt_netgroup_of(const lbt_netgroup *g, const lbt_addr *a, lbt_addr *net, int *bits);

/*
 * Text form of a group returned by lbt_netgroup_of() ("203.0.113.7",
 * "198.51.100.0/24", "2001:db8:bad:1::/64"; "-" for no family).
 * @return buf
 */
const char *lbt_netgroup_format(const lbt_netgroup *g, const lbt_addr *net, char *buf,
    size_t size);

#endif
