/*
 * cli_apply.h - a rule put to work on behalf of lbt-deny's main(): placed
 * into a haproxy.cfg (a new file or the file itself, with a backup),
 * checked with `haproxy -c -f`, shown as a diff; or added to a running
 * HAProxy's ACL file through its runtime API, and taken out again.  Like
 * cli.h, it prints and decides the exit status (docs/placement.md).
 *
 * Includes: deny.h, err.h, place.h.
 */
#ifndef LBT_CLI_APPLY_H
#define LBT_CLI_APPLY_H

#include <stddef.h>

#include "lbt/deny.h"
#include "lbt/err.h"
#include "lbt/place.h"

/* What --into asked. */
typedef struct lbt_cli_into {
	const char *cfg;          /* --into FILE */
	const char *frontend;     /* --frontend NAME, NULL: the only one */
	const char *out;          /* -o FILE, NULL: --in-place */
	const char *backup;       /* --backup SUFFIX (".bak" by default) */
	lbt_place_kind kind;
	int nginx;                /* an nginx.conf (frontend: the server_name), checked
	                             with nginx -t -c */
} lbt_cli_into;

/*
 * The place of the rule in o->cfg, and its description for the snippet
 * ("above haproxy.cfg:46, fe_http's first http-request track-sc0") in
 * desc (p->sect is NULL after: the configuration is freed).
 * @return 0, or -1 with err (the file unreadable, the frontend wrong).
 */
int lbt_cli_place(const lbt_cli_into *o, lbt_place *p, char *desc, size_t size, lbt_err *err);

/*
 * Write o->cfg with rule[0..len) placed at p and tail[0..tlen) appended,
 * to o->out or over o->cfg (the old one kept as o->cfg + o->backup);
 * check it with `haproxy -c -f` (say so when haproxy is not on PATH); print
 * the unified diff on stdout and the verdict on stderr.  With --in-place,
 * a configuration that fails the check does not replace the file.
 * @return the exit status: 0 checked valid (or not checked), 1 refused
 * or an error.
 */
int lbt_cli_into_write(const char *prog, const lbt_cli_into *o, const lbt_place *p,
    const char *rule, size_t len, const char *tail, size_t tlen);

/*
 * The rule of d written with g placed at p of o->cfg (the frontend's lines
 * there, its own sections appended), then lbt_cli_into_write.
 * @return the exit status
 */
int lbt_cli_deny_into(const char *prog, const lbt_cli_into *o, const lbt_place *p,
    const lbt_deny *d, const lbt_deny_gen *g);

/*
 * `nft -c -f path`: the verdict on stderr (or that nft is not on PATH).
 * @return the exit status: 0 valid (or not checked), 1 refused.
 */
int lbt_cli_nft_check(const char *prog, const char *path);

/*
 * Add the networks nets[0..n) to the ACL file acl of the HAProxy behind
 * the stats socket sock (undo 0), or delete them (undo 1); refuse when
 * the running configuration does not load acl.  Each change is checked
 * with `show acl`.  Prints what changed and the command that undoes it.
 * @return the exit status: 0 done, 1 refused or failed.
 */
int lbt_cli_runtime(const char *prog, const char *sock, const char *acl,
    const char *const *nets, size_t n, int undo);

/* lbt_cli_runtime with the networks of d's rule.  @return the exit status */
int lbt_cli_deny_runtime(const char *prog, const char *sock, const char *acl,
    const lbt_deny *d);

/*
 * lbt_cli_runtime --undo of the networks args[0..n) name (as the adding
 * run printed them: each normalised, no decision made).
 * @return the exit status (1 also for a text that is no network)
 */
int lbt_cli_runtime_undo(const char *prog, const char *sock, const char *acl,
    const char *const *args, size_t n);

#endif
