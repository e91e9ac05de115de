/*
 * input_spec.h - inputs that carry their own format options: one --input
 * word or one line of a sources file (--sources FILE) names a path or a
 * glob and, in key=value words, how its lines are written and by whom:
 *
 *     # incident 2026-11-30
 *     lb1/haproxy.log*      haproxy-cfg=lb1/haproxy.cfg lb=lb1 tier=lb
 *     lb2/haproxy.log.zst   log-format='%ci:%cp [%tr] %b/%s %ST' lb=lb2
 *     web1/access.json.log  nginx-conf=web1/nginx.conf log-name=json lb=web1 tier=app
 *
 * Keys: format=NAME|FILE (NAME,NAME...: those built-ins, line by line),
 * log-format=TEMPLATE, escape=MODE, haproxy-cfg=FILE, frontend=NAME,
 * nginx-conf=FILE, log-name=NAME, lb=NAME, tier=lb|backend|app,
 * log-tz=ZONE, captures=LIST, trusted-proxies=LIST|@FILE: the global
 * options of the same names (--lb-name for lb=), for this input only.
 * Words are separated by blanks or ';' (so
 * `--input 'lb2.log;format=haproxy-tcplog;lb=lb2'` needs no inner quotes);
 * '...' keeps everything literally, "..." too except \" and \\; outside
 * quotes a backslash keeps the next byte; '#' starting a word starts a
 * comment.  In a sources file, relative paths (the input, and
 * the files of format=, haproxy-cfg=, nginx-conf=) are relative to the
 * file's directory; on the command line, to the current one.  A glob
 * (* ? [) is expanded when read, sorted; one that matches nothing is an
 * error.  docs/inputs.md says why this shape.
 *
 * The library never prints: errors name "sources.txt:3" (or "--input")
 * and what is wrong.  lbt_input (input.h) reads the files of a list with
 * each spec's options over the global ones; lbt-index does the same file
 * by file (lbt_input_spec_opts).
 * Includes: err.h, input.h.
 */
#ifndef LBT_INPUT_SPEC_H
#define LBT_INPUT_SPEC_H

#include <stddef.h>
#include <stdint.h>

#include "lbt/err.h"
#include "lbt/input.h"

/* One input and its own options (NULL: not given). */
struct lbt_input_spec {
	char *where_file;         /* the sources file, or "--input" */
	uint64_t where_line;      /* its line, 0 for --input */
	char *pattern;            /* the path or glob, resolved */
	char **files;             /* what it names: the glob's matches, or the path */
	size_t nfiles;
	char *format, *log_format, *escape, *haproxy_cfg, *frontend, *nginx_conf, *log_name;
	char *lb, *log_tz, *captures, *trusted_proxies;
	lbt_tier tier;            /* tier=, LBT_TIER_NONE when not given */
};

/* A list of inputs, in the order given. */
typedef struct lbt_input_specs {
	lbt_input_spec *v;
	size_t n, cap;
} lbt_input_specs;

#define LBT_INPUT_SPECS_INIT { NULL, 0, 0 }

/*
 * Add the input of one --input word `text` (a sources line; relative
 * paths from the current directory).
 * @return 0, or -1 with err ("--input: ..."): no path, unknown or repeated
 * key, empty value, bad tier, options that exclude each other, an
 * unterminated quote, a glob that matches nothing.
 */
int lbt_input_specs_add(lbt_input_specs *l, const char *text, lbt_err *err);

/*
 * Add the inputs of the sources file at path, one a non-blank,
 * non-comment line.  @return the number added (at least 1), or -1 with err
 * naming file and line (as lbt_input_specs_add; also an unreadable file,
 * a file with no input).
 */
int lbt_input_specs_read(lbt_input_specs *l, const char *path, lbt_err *err);

/*
 * The input options of spec s's files: base with s's keys over it.  A
 * spec that says how its lines are written (format=, log-format=,
 * haproxy-cfg=, nginx-conf=) replaces all four of base (and escape,
 * frontend, log-name); lb=, log-tz=, captures= and tier= replace theirs;
 * filters, key, strict and the rest stay.  The result names no specs.
 * Its strings are s's and base's (borrowed).
 */
lbt_input_opts lbt_input_spec_opts(const lbt_input_spec *s, const lbt_input_opts *base);

/* Free the list's contents (the struct itself is the caller's); NULL accepted. */
void lbt_input_specs_free(lbt_input_specs *l);

#endif
