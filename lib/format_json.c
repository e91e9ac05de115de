/*
 * format_json.c - JSON lines: HAProxy %{+json}o and NGINX JSON templates.
 *
 * A line is parsed with jansson into a document that the format keeps until
 * the next line (the record's strings point into it); each compiled key is
 * then looked up by name, so member order and spacing do not matter.  Every
 * key of the template must be present (HAProxy writes null for an empty
 * named item, NGINX writes every member of its template); extra members are
 * ignored.  jansson allocates per line: JSON logs cost more than text ones.
 *
 * NGINX escape=json copies bytes >= 0x80 raw, so a garbage request can make
 * a line that is not UTF-8; jansson refuses it, and the line is then read
 * again with every invalid byte replaced by '?'.
 */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "format_int.h"

/* Drop the document of the previous line. */
void fmt_json_release(lbt_format *f)
{
	if (f->json != NULL) {
		json_decref((json_t *)f->json);
		f->json = NULL;
	}
}

/* Length of a valid UTF-8 sequence at p (end e), or 0 when invalid. */
static size_t utf8_len(const unsigned char *p, const unsigned char *e)
{
	size_t n;
	unsigned cp;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xC2 && p[0] <= 0xDF)
		n = 2, cp = p[0] & 0x1F;
	else if (p[0] >= 0xE0 && p[0] <= 0xEF)
		n = 3, cp = p[0] & 0x0F;
	else if (p[0] >= 0xF0 && p[0] <= 0xF4)
		n = 4, cp = p[0] & 0x07;
	else
		return 0;
	if ((size_t)(e - p) < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xC0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3F);
	}
	if ((n == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
	    (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
		return 0;
	return n;
}

/* Copy s[0..len) into scratch with invalid UTF-8 bytes replaced by '?'. @return it or NULL */
static const char *sanitize(lbt_format *f, const char *s, size_t len)
{
	char *o = fmt_scratch(f, len);
	const unsigned char *p = (const unsigned char *)s, *e = p + len;

	if (o == NULL)
		return NULL;
	for (size_t w = 0; p < e;) {
		size_t n = utf8_len(p, e);

		if (n == 0) {
			o[w++] = '?';
			p++;
		} else {
			memcpy(o + w, p, n);
			w += n;
			p += n;
		}
	}
	return o;
}

/* Parse the line into an object. @return it (owned by f) or NULL with err */
static json_t *load(struct fmt_ctx *c, const char *s, size_t len)
{
	json_error_t je;
	json_t *root;
	size_t i = 0;

	while (i < len && (s[i] == ' ' || s[i] == '\t'))
		i++;
	if (i == len || s[i] != '{') {
		lbt_err_set(c->err, "not a JSON object: '%c' at column %zu", i < len ? s[i] : ' ',
		    i + 1);
		return NULL;
	}
	root = json_loadb(s, len, JSON_ALLOW_NUL, &je);
	if (root == NULL && json_error_code(&je) == json_error_invalid_utf8) {
		const char *clean = sanitize(c->f, s, len);

		if (clean != NULL)
			root = json_loadb(clean, len, JSON_ALLOW_NUL, &je);
	}
	if (root == NULL) {
		lbt_err_set(c->err, "bad JSON at column %d: %s", je.column > 0 ? je.column : 1,
		    je.text);
		return NULL;
	}
	c->f->json = root;
	return root;
}

/* The value of key item `it` in root (through its NGINX path), or NULL. */
static json_t *lookup(json_t *root, const struct fmt_item *it)
{
	json_t *o = root;

	for (int d = 0; d < it->npath; d++) {
		o = json_object_get(o, it->path[d]);
		if (!json_is_object(o))
			return NULL;
	}
	return json_object_get(o, it->key);
}

/* A string value: a sub-template, or one item. @return 0 or -1 */
static int conv_string(struct fmt_ctx *c, const struct fmt_item *it, const char *s,
    size_t n)
{
	if (n == 0)
		return 0;
	if (it->sub != NULL) {
		char msg[sizeof c->err->msg];

		if (fmt_match(c, it->sub, s, n) == 0)
			return 0;
		snprintf(msg, sizeof msg, "%s", c->err ? c->err->msg : "");
		return lbt_err_set(c->err, "key '%s': %s", it->key, msg);
	}
	if (it->kind == K_CAPLIST) {
		fmt_conv_slot(c, it, 0, s, n);
		return 0;
	}
	return fmt_conv_text(c, it, s, n, 0);
}

/* An array value: the captures of %hrl. */
static void conv_array(struct fmt_ctx *c, const struct fmt_item *it, json_t *v)
{
	size_t k;
	json_t *e;

	if (it->kind != K_CAPLIST || (it->flags & FL_RESP))
		return;
	json_array_foreach(v, k, e)
		if (json_is_string(e))
			fmt_conv_slot(c, it, (int)k, json_string_value(e), json_string_length(e));
}

/* Convert one member value. @return 0 or -1 */
static int conv_value(struct fmt_ctx *c, const struct fmt_item *it, json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_STRING:
		return conv_string(c, it, json_string_value(v), json_string_length(v));
	case JSON_INTEGER:
		return fmt_conv_int(c, it, (int64_t)json_integer_value(v));
	case JSON_REAL:
		return fmt_conv_real(c, it, json_real_value(v));
	case JSON_ARRAY:
		conv_array(c, it, v);
		return 0;
	default:
		return 0;
	}
}

/*
 * Fill c->rec from a JSON line.  @return 0, or -1 with err (bad JSON,
 * missing key, value that does not convert).
 */
int fmt_json_parse(struct fmt_ctx *c, const char *s, size_t len)
{
	lbt_format *f = c->f;
	json_t *root = load(c, s, len);

	if (root == NULL)
		return -1;
	for (size_t i = 0; i < f->nkeys; i++) {
		const struct fmt_item *it = &f->keys[i];
		json_t *v = lookup(root, it);

		if (v == NULL)
			return lbt_err_set(c->err, "missing key '%s'", it->key);
		if (conv_value(c, it, v) < 0)
			return -1;
	}
	return 0;
}
