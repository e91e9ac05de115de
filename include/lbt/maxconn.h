/*
 * maxconn.h - the maxconn values of a haproxy.cfg: per frontend (with the
 * defaults-section inheritance HAProxy applies) and global.  Used by
 * lbt-tarpit to compare occupancy with the limit.
 * Includes: err.h.
 */
#ifndef LBT_MAXCONN_H
#define LBT_MAXCONN_H

#include <stddef.h>
#include <stdint.h>

#include "lbt/err.h"

typedef struct lbt_maxconn_cfg lbt_maxconn_cfg;

/*
 * Read the `maxconn` lines of a haproxy.cfg (through lbt_hacfg, hacfg.h):
 * in `global`, in `defaults` sections (named or not, `from` inheritance)
 * and in `frontend` / `listen` sections; other keywords are skipped.
 * @return the table, or NULL with err naming file and line: file
 * unreadable, a line HAProxy would not split (quote, escape, variable), a
 * section error, `maxconn` without a number in 0..2^31-1.
 */
lbt_maxconn_cfg *lbt_maxconn_cfg_read(const char *path, lbt_err *err);

/*
 * The frontend maxconn of proxy name[0..len) (a trailing '~', as %ft logs
 * SSL listeners, is ignored): its own `maxconn`, else that of the defaults
 * section it uses, else the global one (HAProxy's rule: 0 or unset means
 * the global maxconn).  `where` (may be NULL) gets "haproxy.cfg:17
 * (frontend fe_http)".  @return the value, or 0 when unknown (no such
 * proxy, or no maxconn anywhere: HAProxy then derives it from ulimit -n).
 */
int32_t lbt_maxconn_cfg_get(const lbt_maxconn_cfg *c, const char *name, size_t len,
    char *where, size_t size);

/*
 * The same value as lbt_maxconn_cfg_get, with the line of the `maxconn`
 * directive it comes from in *line (the proxy's, its defaults', or the
 * global one; 0 when unknown).
 */
int32_t lbt_maxconn_cfg_line(const lbt_maxconn_cfg *c, const char *name, size_t len,
    uint64_t *line);

/* The global maxconn (limit of ac), or 0 when the file sets none. */
int32_t lbt_maxconn_cfg_global(const lbt_maxconn_cfg *c, char *where, size_t size);

/* True when the file has a frontend or listen section name[0..len) (a
 * trailing '~' ignored), whatever its maxconn: which file speaks for it. */
int lbt_maxconn_cfg_has(const lbt_maxconn_cfg *c, const char *name, size_t len);

/* The path the table was read from. */
const char *lbt_maxconn_cfg_path(const lbt_maxconn_cfg *c);

/* NULL accepted. */
void lbt_maxconn_cfg_free(lbt_maxconn_cfg *c);

#endif
