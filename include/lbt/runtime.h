/*
 * runtime.h - HAProxy's runtime API (the stats socket, `stats socket PATH
 * level admin`) for the ACL files a running HAProxy loaded with `src -f
 * FILE`: which files are loaded, their entries, and entries added and
 * deleted without a reload (`add acl`, `del acl`).  The change is in
 * memory only: the file on disk is the caller's to write, or the next
 * reload forgets it.
 *
 * One command a connection (HAProxy's non-interactive mode: it answers,
 * then closes); every wait on the socket is bounded (5 s).
 *
 * Includes: err.h.
 */
#ifndef LBT_RUNTIME_H
#define LBT_RUNTIME_H

#include <stddef.h>

#include "lbt/err.h"

/*
 * Send one command line (no newline) to the socket at sock and read the
 * whole answer.  @return it (NUL-terminated, malloc'd: the caller frees),
 * or NULL with err ("SOCK: connect: ...", a timeout, an answer over 64 MiB).
 */
char *lbt_runtime_ask(const char *sock, const char *cmd, lbt_err *err);

/*
 * True when the answer of `show acl` lists path as a loaded file; else 0,
 * with the loaded files ("a.lst, b.lst" or "none") in buf[0..size).
 */
int lbt_runtime_loaded(const char *show_acl, const char *path, char *buf, size_t size);

/* True when the answer of `show acl FILE` has an entry whose pattern is pat. */
int lbt_runtime_has(const char *show_entries, const char *pat);

/*
 * `add acl FILE PAT` (add 1) or `del acl FILE PAT` (add 0).
 * @return 0, or -1 with err holding HAProxy's answer, or refusing a FILE
 * or PAT that is not one word of the API (blanks, ';', backslashes).
 */
int lbt_runtime_acl(const char *sock, const char *file, const char *pat, int add,
    lbt_err *err);

#endif
