/*
 * deny_emit.c - lbt_deny_write: the writer of the dialect asked (HAProxy,
 * NGINX, nftables or JSON).  The writers build on deny_write.c's shared
 * pieces; this file, the one that calls them, sits above them all.
 */
#include <stdio.h>

#include "deny_int.h"

/* Write one part.  @return 0, or -1 with err when writing failed */
int lbt_deny_write(const lbt_deny *d, const lbt_deny_gen *g, lbt_deny_part part, FILE *fp,
    lbt_err *err)
{
	int rc;

	switch (g->dialect) {
	case LBT_DENY_HAPROXY: rc = lbt_denyi_haproxy(d, g, part, fp); break;
	case LBT_DENY_NGINX: rc = lbt_denyi_nginx(d, g, part, fp); break;
	case LBT_DENY_NFTABLES: rc = lbt_denyi_nft(d, g, fp); break;
	default: rc = lbt_denyi_json(d, g, fp); break;
	}
	if (rc < 0 || fflush(fp) != 0 || ferror(fp))
		return lbt_err_set(err, "write error");
	return 0;
}
