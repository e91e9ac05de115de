/*
 * descriptor.h - a compiled format written back as a format descriptor
 * (lbt-formats(5): "key value" lines), the inverse of reading one
 * (lib/read/format_desc.c): what lbt-formats --from-haproxy-cfg and
 * --from-nginx-conf print, so that a derived format can be saved and
 * given to --format FILE.
 * Includes: format.h.
 */
#ifndef LBT_DESCRIPTOR_H
#define LBT_DESCRIPTOR_H

#include "lbt/format.h"

/*
 * The descriptor of f: a comment naming `source`, then name, describe,
 * dialect and template lines.  The NGINX escape= and HAProxy capture
 * names are not readable from an lbt_format yet: pass them with --escape
 * and --captures.  @return a malloc'ed NUL-terminated text (the caller
 * frees it), or NULL when out of memory.
 */
char *lbt_descriptor_text(const lbt_format *f, const char *source);

#endif
