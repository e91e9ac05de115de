/*
 * format_builtin.h - the descriptors of formats/*.fmt, compiled in.
 * Generated table (mk/embed-formats.sh); read through format.h.
 */
#ifndef LBT_FORMAT_BUILTIN_H
#define LBT_FORMAT_BUILTIN_H

struct lbt_format_builtin {
	const char *name;   /* file name without .fmt */
	const char *text;   /* whole descriptor */
};

/* Terminated by { NULL, NULL }. */
extern const struct lbt_format_builtin lbt_format_builtins[];

#endif
