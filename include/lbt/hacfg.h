/*
 * hacfg.h - a haproxy.cfg read the way HAProxy 2.6 reads it: lines split
 * into words, grouped into sections, each proxy tied to the defaults
 * section it starts from.  What a directive means is its reader's business
 * (lib/read/format_cfg.c: log formats; lib/config/maxconn.c: maxconn).
 *
 * Words (HAProxy's parse_line()): leading blanks are skipped; blanks
 * separate words; '#' outside quotes ends the line (also inside a word:
 * "a#b" is "a"); "double quotes" and 'single quotes' keep blanks and are
 * removed ("a"b'c' is one word abc); outside single quotes a backslash
 * escapes: "\ " space, "\\" "\#" "\'" "\"" themselves, \t \n \r, \xHH a
 * byte (an incomplete \x is an error), "\$" a dollar inside double quotes;
 * any other backslash is kept ("\q" stays \q).  Inside double quotes only,
 * $NAME and ${NAME} expand ("${NAME-dflt}": dflt when unset; "${NAME[*]}":
 * one word per blank-separated part of the value); .LINE, .FILE and
 * .SECTION are HAProxy's own.  A value comes from opts.var, else the
 * environment; an unset one expands to "" as in HAProxy and its name is
 * kept on the line (lbt_hacfg_dir.unset), so that a reader can refuse what
 * this machine cannot know.  A line ends at NUL, LF or CR; at most 64
 * words; an empty first word makes the line empty.
 *
 * Sections: global, defaults [NAME] [from X] (also "defaults from X"),
 * frontend / listen / backend NAME [from X], and the other section
 * keywords (peers, resolvers, userlist, cache, program, ring, ...).
 * A defaults section starts from nothing, or from X; a proxy starts from
 * X, else from the last defaults section above it (named or not).  X must
 * name exactly one defaults section above.
 *
 * Conditional blocks (.if / .elif / .else / .endif) are evaluated when
 * their condition can be: numbers, defined(VAR), streq(a,b), strneq(a,b),
 * with !, &&, || and parentheses; feature() and version_*() cannot be
 * known here and are errors.  .notice, .warning and .diag are skipped;
 * .alert and unknown '.' directives are errors (HAProxy refuses them).
 *
 * Includes: err.h.  Leaf module otherwise.
 */
#ifndef LBT_HACFG_H
#define LBT_HACFG_H

#include <stddef.h>
#include <stdint.h>

#include "lbt/err.h"

#define LBT_HACFG_MAX_WORDS 64    /* HAProxy's MAX_LINE_ARGS */

typedef struct lbt_hacfg lbt_hacfg;

typedef enum lbt_hacfg_kind {
	LBT_HACFG_GLOBAL,
	LBT_HACFG_DEFAULTS,
	LBT_HACFG_FRONTEND,
	LBT_HACFG_LISTEN,
	LBT_HACFG_BACKEND,
	LBT_HACFG_OTHER             /* peers, resolvers, userlist, ...: see keyword */
} lbt_hacfg_kind;

/* One directive line of a section, split into words. */
typedef struct lbt_hacfg_dir {
	uint64_t line;              /* 1-based line number in the file */
	int nword;                  /* 1..LBT_HACFG_MAX_WORDS */
	char **word;                /* nword words; word[0] is never "" */
	const char *unset;          /* first ${NAME} without a value, or NULL */
} lbt_hacfg_dir;

/* One section and its directives, in file order. */
typedef struct lbt_hacfg_sect {
	lbt_hacfg_kind kind;
	const char *keyword;        /* as written: "frontend", "peers", ... */
	const char *name;           /* "" when none (global, unnamed defaults) */
	const char *from;           /* X of "from X", "" when none */
	uint64_t line;              /* line of the section keyword */
	const struct lbt_hacfg_sect *defaults;   /* section it starts from, or NULL */
	size_t ndir;
	const lbt_hacfg_dir *dir;
} lbt_hacfg_sect;

typedef struct lbt_hacfg_opts {
	/*
	 * Value of ${name}, asked before the environment (may be NULL).
	 * Return NULL to fall back to getenv().  The string must stay valid
	 * until lbt_hacfg_read() returns.
	 */
	const char *(*var)(void *arg, const char *name);
	void *arg;
} lbt_hacfg_opts;

#define LBT_HACFG_OPTS_INIT { NULL, NULL }

/*
 * Read the haproxy.cfg at path (opts may be NULL: the environment only).
 * @return the sections, or NULL with err naming file and line: file
 * unreadable, unterminated quote, bad \x escape or ${...}, more than 64
 * words, a directive outside any section, a proxy without a name, "from"
 * naming no (or two) defaults sections above, a bad conditional block.
 */
lbt_hacfg *lbt_hacfg_read(const char *path, const lbt_hacfg_opts *opts, lbt_err *err);

/* Number of sections. */
size_t lbt_hacfg_count(const lbt_hacfg *c);

/* Section i (0-based, file order), or NULL when i >= count. */
const lbt_hacfg_sect *lbt_hacfg_at(const lbt_hacfg *c, size_t i);

/*
 * The frontend or listen section named name[0..len), or NULL.
 */
const lbt_hacfg_sect *lbt_hacfg_frontend(const lbt_hacfg *c, const char *name, size_t len);

/* Free everything read (NULL accepted); sections and words die with it. */
void lbt_hacfg_free(lbt_hacfg *c);

#endif
