/*
 * esc.h - the output-safety rule: what of a log's bytes may reach a person
 * as it is, and how the rest is shown (docs/output-safety.md).
 *
 * Every byte of a log is hostile: an ESC can clear a terminal, a U+202E
 * can show a key reversed, a '<' can open an element in a rendered
 * Markdown or HTML page.  One classifier (lbt_esc_next) says which
 * characters must not pass as they are, the same for every writer; the
 * writers for people escape text with one of the rules below, the writers
 * for programs (TSV and NDJSON in lib/out/out.c) use the classifier with
 * their own lossless escapes.
 *
 * Unsafe characters, for every writer:
 *   C0 controls (0x00-0x1f), DEL (0x7f), C1 controls (U+0080-U+009F),
 *   the bidi controls (U+061C, U+200E, U+200F, U+202A-U+202E,
 *   U+2066-U+2069), and every byte that is not part of valid UTF-8.
 * Leaf module: includes nothing of lbt.
 */
#ifndef LBT_ESC_H
#define LBT_ESC_H

#include <stddef.h>
#include <stdio.h>

/* What lbt_esc_next found at the start of the text. */
enum {
	LBT_ESC_SAFE = 0,    /* a character that may pass as it is */
	LBT_ESC_CTRL,        /* a control or bidi code point (*cp) */
	LBT_ESC_BAD          /* a byte that is not valid UTF-8 (*cp its value) */
};

/*
 * Classify the first character of p[0..n) (n >= 1): *len gets its bytes
 * (1 for a bad byte), *cp its code point (the byte's value when bad).
 * @return LBT_ESC_SAFE, LBT_ESC_CTRL or LBT_ESC_BAD
 */
int lbt_esc_next(const unsigned char *p, size_t n, size_t *len, unsigned long *cp);

/* The rules of the writers for people. */
typedef enum lbt_esc_rule {
	LBT_ESC_TERM,   /* a terminal: unsafe characters as \t \n \r, \xHH (a byte,
	                   a C0 control, DEL) or \uXXXX (C1, bidi); the rest as is */
	LBT_ESC_MD,     /* Markdown: TERM, and & < > as entities, the punctuation
	                   Markdown reads (\ ` * _ [ ] | ~) after a backslash */
	LBT_ESC_MD_LINE,/* MD, and what would start a block at the start of a line
	                   (# - + = a list number's . or )) after a backslash */
	LBT_ESC_HTML    /* HTML text and attribute values: TERM, and & < > " ' as
	                   entities */
} lbt_esc_rule;

/* The most bytes lbt_esc writes for n bytes of input (without the NUL). */
#define LBT_ESC_MAX(n) ((n) * 6)

/*
 * Escape s[0..n) by `rule` into dst[0..size), NUL-terminated when size > 0
 * (cut at a whole escape when it does not fit).  @return the length of the
 * whole escaped text, as snprintf does (>= size: cut).
 */
size_t lbt_esc(char *dst, size_t size, const char *s, size_t n, lbt_esc_rule rule);

/* Write s[0..n) escaped by `rule` to fp.  @return 0, or -1 when writing failed. */
int lbt_esc_fput(FILE *fp, const char *s, size_t n, lbt_esc_rule rule);

/*
 * Write the JSON text buf[0..size) to the FILE `fp` with each DEL written
 * \u007f: jansson's JSON_ENSURE_ASCII escapes every other unsafe character
 * but leaves DEL, which only a string can hold.  The shape of jansson's
 * json_dump_callback_t.  @return 0, or -1 when writing failed.
 */
int lbt_esc_json_write(const char *buf, size_t size, void *fp);

#endif
