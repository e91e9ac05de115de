/*
 * descriptor.c - a compiled format as descriptor text (see descriptor.h).
 */
#include <stdio.h>

#include "lbt/descriptor.h"

/* The descriptor text of f, derived from `source`.  @return it (malloc'ed),
 * or NULL when out of memory. */
char *lbt_descriptor_text(const lbt_format *f, const char *source)
{
	lbt_dialect d = lbt_format_dialect(f);
	char *text = NULL;

	if (asprintf(&text, "# derived by lbt-formats from %s\nname %s\ndescribe %s\n"
	    "dialect %s\ntemplate %s\n", source, lbt_format_name(f), lbt_format_describe(f),
	    d == LBT_DIALECT_NGINX ? "nginx" : d == LBT_DIALECT_TSV ? "tsv" : "haproxy",
	    lbt_format_template(f)) < 0)
		return NULL;
	return text;
}
