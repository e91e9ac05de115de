/*
 * netgroup.c - client address -> source network (see netgroup.h).
 * Built on addr.c's masking and network formatting.
 */
#include <stdio.h>
#include <string.h>

#include "lbt/netgroup.h"
#include "lbt/num.h"

/* Parse one prefix option ("24" or "/24") into *bits within 0..max.
 * @return 0, or -1 with err. */
static int parse_bits(const char *s, int max, const char *what, int *bits, lbt_err *err)
{
	int64_t v;

	if (s == NULL)
		return 0;
	if (*s == '/')
		s++;
	if (lbt_num_parse(s, 0, max, what, &v, err) < 0)
		return -1;
	*bits = (int)v;
	return 0;
}

/* Parse --v4-prefix / --v6-prefix text (NULL: unchanged) into g.
 * @return 0, or -1 with err (g unchanged for the bad one). */
int lbt_netgroup_set(lbt_netgroup *g, const char *v4, const char *v6, lbt_err *err)
{
	if (parse_bits(v4, 32, "--v4-prefix", &g->v4_bits, err) < 0)
		return -1;
	return parse_bits(v6, 128, "--v6-prefix", &g->v6_bits, err);
}

/* lbt_cli_fn for --v4-prefix.  @return 0 or -1 with err. */
int lbt_netgroup_opt_v4(void *g, const char *arg, lbt_err *err)
{
	return lbt_netgroup_set(g, arg, NULL, err);
}

/* lbt_cli_fn for --v6-prefix.  @return 0 or -1 with err. */
int lbt_netgroup_opt_v6(void *g, const char *arg, lbt_err *err)
{
	return lbt_netgroup_set(g, NULL, arg, err);
}

/* @return the prefix length for an address family (4, else 6). */
int lbt_netgroup_bits(const lbt_netgroup *g, int family)
{
	return family == 4 ? g->v4_bits : g->v6_bits;
}

/* The network of a: masked copy in *net, length in *bits.
 * @return 0, or -1 when a has no family. */
int lbt_netgroup_of(const lbt_netgroup *g, const lbt_addr *a, lbt_addr *net, int *bits)
{
	int b;

	if (a->family != 4 && a->family != 6) {
		memset(net, 0, sizeof(*net));
		if (bits != NULL)
			*bits = 0;
		return -1;
	}
	b = lbt_netgroup_bits(g, a->family);
	*net = *a;
	lbt_addr_mask(net, b);
	if (bits != NULL)
		*bits = b;
	return 0;
}

/* Text of a group ("-" when it has no family).  @return buf */
const char *lbt_netgroup_format(const lbt_netgroup *g, const lbt_addr *net, char *buf,
    size_t size)
{
	if (net->family != 4 && net->family != 6) {
		snprintf(buf, size, "-");
		return buf;
	}
	return lbt_addr_format_net(net, lbt_netgroup_bits(g, net->family), buf, size);
}
