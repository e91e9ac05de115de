/*
 * format_builtin.h - the descriptors of formats/NAME.fmt, compiled in.
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

/* The same names, in the same order, NULL-terminated. */
extern const char *const lbt_format_builtin_name_list[];

#endif
