/*
 * hacfg_int.h - what the files of the hacfg module share; never installed.
 *
 *   hacfg.c        the reader: lines, sections and their defaults, the
 *                  public verbs
 *   hacfg_cond.c   conditional blocks (.if / .elif / .else / .endif) and
 *                  the other '.' directives
 *   hacfg_words.c  the words of a line (HAProxy's parse_line()), variables,
 *                  errors with file:line
 *
 * Direction: hacfg.c calls hacfg_cond.c for lines starting with '.' and
 * for lines inside a skipped block; both call hacfg_words.c, which calls
 * neither.
 */
#ifndef LBT_HACFG_INT_H
#define LBT_HACFG_INT_H

#include <stddef.h>
#include <stdint.h>

#include "lbt/hacfg.h"

#define HACFG_MAX_NEST 128          /* HAProxy's MAXNESTEDCONDS */

/* A section while and after reading: the public part, then its storage. */
struct sect {
	lbt_hacfg_sect pub;
	lbt_hacfg_dir *dir;             /* pub.dir, growable */
	size_t cap;
	char *text;                     /* keyword, name, from: one block */
};

/* One level of .if nesting. */
struct cond {
	int active;                     /* lines of the current branch are read */
	int done;                       /* a branch was taken (or the parent is masked) */
	int seen_else;
	uint64_t line;                  /* of the .if */
};

/* Reader state for one file. */
struct rd {
	const char *path;
	const lbt_hacfg_opts *opts;
	lbt_err *err;
	lbt_hacfg *c;
	uint64_t lineno;
	struct sect *cur;               /* section of the next directive, NULL before the first */
	struct sect *last_def;          /* last defaults section above, NULL none */
	char *out;                      /* words of the line, NUL-separated */
	size_t n, cap;
	size_t start[LBT_HACFG_MAX_WORDS];   /* offset of each word in out */
	int nw;                         /* index of the word being built */
	int toomany;
	char *unset;                    /* first ${NAME} without a value (owned) */
	struct cond cond[HACFG_MAX_NEST];
	int lvl;                        /* open .if blocks */
};

/* hacfg_words.c */

/*
 * Split one line into r->out / r->start (HAProxy's parse_line()).
 * @return the number of words (0 for a blank or comment line), or -1 with err
 */
int lbt_hacfgi_split(struct rd *r, const char *in);

/* Fill r->err with path:line and the message.  @return -1 */
int lbt_hacfgi_err(struct rd *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Value of variable name: .LINE (into buf), .FILE, .SECTION, else
 * opts.var, else the environment.  @return it, or NULL when unset
 */
const char *lbt_hacfgi_var(struct rd *r, const char *name, char *buf, size_t size);

/* hacfg_cond.c */

/*
 * Line w[0..nw) seen by the conditional blocks.  @return 1 when it is
 * consumed (a '.' directive, or a line of a skipped branch), 0 when it is
 * to be read as usual, -1 with err
 */
int lbt_hacfgi_dot_line(struct rd *r, char **w, int nw);

#endif
