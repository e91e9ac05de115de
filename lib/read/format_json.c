/*
 * format_json.c - JSON lines: HAProxy %{+json}o and NGINX JSON templates.
 *
 * A line is parsed with jansson into a document that the format keeps until
 * the next line (the record's strings point into it); each compiled key is
 * then looked up by name, so member order and spacing do not matter.  Every
 * key of the template must be present (HAProxy writes null for an empty
 * named item, NGINX writes every member of its template) unless the
 * descriptor says "keys any" (lines from shippers that drop members):
 * then a missing key is an absent field; extra members are ignored.
 * jansson allocates per line: JSON logs cost more than text ones.
 *
 * The json dialect (format_jkeys.c) has no template: every member of the
 * line, nested objects as dotted names, is looked up in its table of
 * names.  A line of a format that may lack keys must give a time or a
 * request (method, path or the request line) to be a record.
 *
 * NGINX escape=json copies bytes >= 0x80 raw, so a garbage request can make
 * a line that is not UTF-8; jansson refuses it, and the line is then read
 * again with every invalid byte replaced by '?'.
 *
 * NGINX lines are first matched against the template's literal layout
 * (f->prog, compiled by format_nginx.c: NGINX writes the template as it
 * is, only the values change) with the text matcher; each value is checked
 * here as jansson would (string escapes, control bytes, UTF-8, number
 * grammar and range) and decoded into scratch, then converted by the same
 * code as jansson's values.  A line that does not match (members reordered
 * or respaced by a shipper, a value jansson would refuse or replace) is
 * read with jansson from scratch, so both paths give the same record.
 * Measured (callgrind, lbt-cat -f status on tests/data/real/nginx-json.log
 * repeated to 10k lines, lbt_format_parse inclusive): 122k instructions a
 * line with jansson alone, 8.2k through the layout.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbt/utf8.h"
#include "format_int.h"

static int json_parse_doc(struct fmt_ctx *c, const char *s, size_t len);
static int kjson_parse(struct fmt_ctx *c, const char *s, size_t len);

/* Drop the document of the previous line. */
void lbt_fmti_json_release(lbt_format *f)
{
	if (f->json != NULL) {
		json_decref((json_t *)f->json);
		f->json = NULL;
	}
}

/* Copy s[0..len) into scratch with invalid UTF-8 bytes replaced by '?'. @return it or NULL */
static const char *sanitize(lbt_format *f, const char *s, size_t len)
{
	char *o = lbt_fmti_scratch(f, len);
	const unsigned char *p = (const unsigned char *)s, *e = p + len;

	if (o == NULL)
		return NULL;
	for (size_t w = 0; p < e;) {
		size_t n = lbt_utf8_len(p, (size_t)(e - p));

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

		if (lbt_fmti_match(c, it->sub, s, n) == 0)
			return 0;
		snprintf(msg, sizeof msg, "%s", c->err ? c->err->msg : "");
		return lbt_err_set(c->err, "key '%s': %s", it->key, msg);
	}
	if (it->kind == K_CAPLIST) {
		lbt_fmti_conv_slot(c, it, 0, s, n);
		return 0;
	}
	return lbt_fmti_conv_text(c, it, s, n, 0);
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
			lbt_fmti_conv_slot(c, it, (int)k, json_string_value(e), json_string_length(e));
}

/* Convert one member value. @return 0 or -1 */
static int conv_value(struct fmt_ctx *c, const struct fmt_item *it, json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_STRING:
		return conv_string(c, it, json_string_value(v), json_string_length(v));
	case JSON_INTEGER:
		return lbt_fmti_conv_int(c, it, (int64_t)json_integer_value(v));
	case JSON_REAL:
		return lbt_fmti_conv_real(c, it, json_real_value(v));
	case JSON_ARRAY:
		conv_array(c, it, v);
		return 0;
	default:
		return 0;
	}
}

/*
 * True when one of the 8 bytes in x needs a look in a JSON string: below
 * 0x20, '"', '\\' or >= 0x80 (exact: the has-zero / has-less word tests).
 */
static inline int special8(uint64_t x)
{
	const uint64_t ones = 0x0101010101010101ull, high = ones << 7;
	uint64_t q = x ^ (ones * '"'), b = x ^ (ones * '\\');

	return ((((x - ones * 0x20) & ~x) | ((q - ones) & ~q) | ((b - ones) & ~b) | x) & high) != 0;
}

/* Length of the prefix of s[0..n) that a JSON string holds as it is. */
static size_t plain_prefix(const char *s, size_t n)
{
	size_t i = 0;

	for (; n - i >= 8; i += 8) {
		uint64_t x;

		memcpy(&x, s + i, 8);
		if (special8(x))
			break;
	}
	for (; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];

		if (ch < 0x20 || ch == '"' || ch == '\\' || ch >= 0x80)
			break;
	}
	return i;
}

/* Value of 4 hex digits at p (end e), or -1. */
static long hex4(const char *p, const char *e)
{
	long v = 0;

	if (e - p < 4)
		return -1;
	for (int i = 0; i < 4; i++) {
		int ch = (unsigned char)p[i];
		int d = ch >= '0' && ch <= '9' ? ch - '0' : (ch | 0x20) >= 'a' && (ch | 0x20) <= 'f' ?
		    (ch | 0x20) - 'a' + 10 : -1;

		if (d < 0)
			return -1;
		v = v << 4 | d;
	}
	return v;
}

/*
 * One escape at p (just after the backslash, end e) as jansson reads it:
 * \" \\ \/ \b \f \n \r \t, \uXXXX, a surrogate pair \uD8xx\uDCxx.  Writes
 * the bytes at w (count in *wn).  @return bytes consumed, 0 when jansson
 * refuses it (unknown escape, bad hex, lone surrogate)
 */
static size_t unescape(const char *p, const char *e, char *w, size_t *wn)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *k = p < e ? memchr(from, *p, sizeof from - 1) : NULL;
	long cp, lo;

	if (k != NULL) {
		*w = to[k - from];
		*wn = 1;
		return 1;
	}
	if (p >= e || *p != 'u' || (cp = hex4(p + 1, e)) < 0 || (cp >= 0xDC00 && cp <= 0xDFFF))
		return 0;
	if (cp < 0xD800 || cp > 0xDBFF) {
		*wn = lbt_utf8_put(w, (unsigned long)cp);
		return 5;
	}
	if (e - p < 11 || p[5] != '\\' || p[6] != 'u' || (lo = hex4(p + 7, e)) < 0xDC00 ||
	    lo > 0xDFFF)
		return 0;
	*wn = lbt_utf8_put(w, 0x10000 + ((unsigned long)(cp - 0xD800) << 10) +
	    (unsigned long)(lo - 0xDC00));
	return 11;
}

/*
 * The inside of a JSON string s[0..n) whose first i bytes are plain:
 * checked as jansson would (no raw quote or control byte, valid escapes)
 * and unescaped into scratch when it has a backslash or a byte that is not
 * UTF-8, which becomes '?' as in load()'s second reading (values start and
 * end next to ASCII bytes of the template, so a sequence never spans one).
 * @return 0 with *out / *outn (the line or scratch), -1 when jansson would
 * refuse the line
 */
static int json_inside(lbt_format *f, const char *s, size_t n, size_t i, const char **out,
    size_t *outn)
{
	char *o = NULL;
	size_t w = 0, from = 0, k, wn;

	while (i < n) {
		unsigned char ch = (unsigned char)s[i];

		if (ch < 0x20 || ch == '"')
			return -1;
		k = ch >= 0x80 ? lbt_utf8_len((const unsigned char *)s + i, n - i) :
		    ch != '\\';
		if (k > 0) {
			i += k;
			continue;
		}
		if (o == NULL && (o = lbt_fmti_scratch(f, n)) == NULL)
			return -1;
		memcpy(o + w, s + from, i - from);
		w += i - from;
		if (ch >= 0x80) {
			o[w++] = '?';        /* load(): the line read again, sanitized */
			k = 0;
			wn = 0;
		} else if ((k = unescape(s + i + 1, s + n, o + w, &wn)) == 0)
			return -1;
		w += wn;
		i += 1 + k;
		from = i;
	}
	if (o != NULL) {
		memcpy(o + w, s + from, n - from);
		s = o;
		n = w + n - from;
	}
	*out = s;
	*outn = n;
	return 0;
}

/* True when s[k] (k < n) is a decimal digit. */
static inline int digit_at(const char *s, size_t n, size_t k)
{
	return k < n && s[k] >= '0' && s[k] <= '9';
}

/* Shape of a JSON number s[0..n) (jansson's grammar): 0 integer, 1 real, -1 not one. */
static int number_shape(const char *s, size_t n)
{
	size_t i = n > 0 && s[0] == '-';
	int real = 0;

	if (i < n && s[i] == '0')
		i++;
	else if (digit_at(s, n, i))
		while (digit_at(s, n, i))
			i++;
	else
		return -1;
	if (i < n && s[i] == '.') {
		if (!digit_at(s, n, i + 1))
			return -1;
		for (i++, real = 1; digit_at(s, n, i); i++)
			;
	}
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		i += i + 1 < n && (s[i + 1] == '+' || s[i + 1] == '-') ? 2 : 1;
		if (!digit_at(s, n, i))
			return -1;
		for (real = 1; digit_at(s, n, i); i++)
			;
	}
	return i == n ? real : -1;
}

/*
 * True when a bare number of n bytes and shape (number_shape) for key item
 * `key` needs no conversion: nobody wants the field, and converting it could
 * neither set anything nor refuse it (an integer too long for its kind, a
 * negative or huge request time, an exponent out of range).  Such numbers are
 * most of an nginx-json line's (~450 instructions of strtoll and strtod a
 * line); check_format compares both paths with few fields wanted.
 */
static int unwanted_number(const struct fmt_ctx *c, const struct fmt_item *key, int shape,
    const char *s, size_t n)
{
	const char *dot = memchr(s, '.', n);

	if (key->fills & c->f->wanted)
		return 0;
	if (key->kind == K_SEC_MS)  /* 0 to 999999.x seconds: no refusal */
		return s[0] != '-' && memchr(s, 'e', n) == NULL && memchr(s, 'E', n) == NULL &&
		    (dot != NULL ? (size_t)(dot - s) : n) <= 6;
	if (shape != 0)            /* no exponent: jansson refuses 1e999 */
		return key->kind == K_OPAQUE && memchr(s, 'e', n) == NULL &&
		    memchr(s, 'E', n) == NULL;
	if (key->kind == K_I32)
		return n <= 9;            /* within int32 whatever the digits */
	return key->kind != K_SEC_MS && key->kind != K_TIME && key->kind != K_MS && n <= 18;
}

/*
 * A bare value s[0..n) ($status) of key item `key`, as jansson would take
 * it: true, false and null set nothing, numbers convert (strtoll / strtod,
 * out of range refused).  @return 0, or -1 (not JSON, or not converted)
 */
static int bare_value(struct fmt_ctx *c, const struct fmt_item *key, const char *s, size_t n)
{
	char buf[64], *end;
	int shape = number_shape(s, n);
	long long iv;
	double dv;

	if ((n == 4 && (memcmp(s, "true", 4) == 0 || memcmp(s, "null", 4) == 0)) ||
	    (n == 5 && memcmp(s, "false", 5) == 0))
		return 0;
	if (shape < 0 || n >= sizeof buf)
		return -1;
	if (unwanted_number(c, key, shape, s, n))
		return 0;
	memcpy(buf, s, n);
	buf[n] = '\0';
	errno = 0;
	if (shape == 0) {
		iv = strtoll(buf, &end, 10);
		if (errno == ERANGE || end != buf + n)
			return -1;
		return lbt_fmti_conv_int(c, key, (int64_t)iv);
	}
	dv = strtod(buf, &end);
	if (end != buf + n || ((dv == HUGE_VAL || dv == -HUGE_VAL) && errno == ERANGE))
		return -1;
	return lbt_fmti_conv_real(c, key, dv);
}

/*
 * A value found by the literal layout (item `it`, a K_JSONVAL step naming
 * its key item): checked as JSON and converted as the jansson path would.
 * @return 0, or -1 (with err when c->err) when the line must go to jansson
 */
static int layout_value(struct fmt_ctx *c, const struct fmt_item *it, const char *s, size_t n)
{
	const struct fmt_item *key = &c->f->keys[it->slot];
	size_t i;

	if (it->flags & FL_JBARE)
		return bare_value(c, key, s, n);
	i = plain_prefix(s, n);
	if (i < n && json_inside(c->f, s, n, i, &s, &n) < 0)
		return lbt_err_set(c->err, "not a JSON string in key '%s'", key->key);
	return conv_string(c, key, s, n);
}

/*
 * Keep f->prog (the literal layout) only when the template, each value
 * replaced by "" or 0, is a JSON object without duplicate members where
 * every key item finds its value: then a line that matches the layout is
 * the JSON document jansson would read, member for member.
 */
void lbt_fmti_json_layout_check(lbt_format *f)
{
	struct fmt_prog *pg = &f->prog;
	size_t n = 0, k = 0, items = 0;
	char *doc;
	json_t *root = NULL;
	json_error_t je;

	for (size_t i = 0; i < pg->n; i++)
		n += pg->v[i].op == OP_LIT ? pg->v[i].litlen : 1;
	if ((doc = malloc(n + 1)) != NULL) {
		for (size_t i = 0; i < pg->n; i++) {
			const struct fmt_step *st = &pg->v[i];

			if (st->op == OP_LIT) {
				memcpy(doc + k, st->lit, st->litlen);
				k += st->litlen;
			} else if (st->it.flags & FL_JBARE)
				doc[k++] = '0';
		}
		root = json_loadb(doc, k, JSON_REJECT_DUPLICATES, &je);
		free(doc);
	}
	for (size_t i = 0; root != NULL && i < pg->n; i++) {
		const struct fmt_step *st = &pg->v[i];
		json_t *v;

		if (st->op != OP_ITEM)
			continue;
		v = st->it.slot == (int16_t)items ? lookup(root, &f->keys[items]) : NULL;
		if (v == NULL || !((st->it.flags & FL_JBARE) ? json_is_integer(v) : json_is_string(v)))
			break;
		items++;
	}
	json_decref(root);
	if (items == f->nkeys && items > 0 &&
	    (f->jspan = calloc(f->nkeys, sizeof *f->jspan)) != NULL)
		return;
	lbt_fmti_prog_free(pg);
}

/*
 * The values the matcher kept for a layout that matched (f->jspan), checked
 * and converted in template order, as the steps met them.
 * @return 0, or -1 (with err when c->err) when the line must go to jansson
 */
static int layout_values(struct fmt_ctx *c)
{
	const struct fmt_span *v = c->f->jspan;

	for (size_t i = 0; i < c->f->nkeys; i++)      /* slots are in template order */
		if (layout_value(c, v[i].it, v[i].s, v[i].n) < 0)
			return -1;
	return 0;
}

/*
 * The line matched against the literal layout; on a mismatch everything it
 * set is undone (record, ranks, scratch).  @return 0, or -1 (read it with
 * jansson)
 */
static int parse_layout(struct fmt_ctx *c, const char *s, size_t len)
{
	lbt_format *f = c->f;
	lbt_err *err = c->err;
	size_t used = f->sused;
	int r;

	c->err = NULL;             /* a mismatch is no error: jansson says what is wrong */
	r = lbt_fmti_match(c, &f->prog, s, len);
	if (r == 0)
		r = layout_values(c);
	c->err = err;
	if (r == 0) {
		f->njfast++;
		return 0;
	}
	lbt_rec_clear(c->rec);
	lbt_fmti_ctx_init(c, f, c->rec, err, c->base);
	f->sused = used;
	return -1;
}

/*
 * A line of a format that may lack keys is a record when it gives a time
 * or a request (FMT_USABLE, always converted: lbt_format_set_wanted).
 * @return 0, or -1 with err
 */
static int usable(struct fmt_ctx *c)
{
	if (!c->f->keys_any && c->f->enc != ENC_KJSON)
		return 0;
	if (c->rec->have & FMT_USABLE)
		return 0;
	return lbt_err_set(c->err, c->f->keys_found == 0 ? "no known key in the JSON object" :
	    "no time and no request in the JSON object (%d known keys)", c->f->keys_found);
}

/*
 * Fill c->rec from a JSON line: NGINX lines through their template's
 * literal layout when they match it, the json dialect by its names, the
 * others with jansson.  @return 0, or -1 with err (bad JSON, missing key,
 * value that does not convert, nothing usable).
 */
int lbt_fmti_json_parse(struct fmt_ctx *c, const char *s, size_t len)
{
	int r;

	c->f->keys_found = (int)c->f->nkeys;
	if (c->f->enc == ENC_NJSON && c->f->prog.n > 0 && !c->f->njslow &&
	    parse_layout(c, s, len) == 0)
		return usable(c);
	r = c->f->enc == ENC_KJSON ? kjson_parse(c, s, len) : json_parse_doc(c, s, len);
	return r < 0 ? -1 : usable(c);
}

/*
 * Fill c->rec from a JSON line read with jansson.  @return 0, or -1 with
 * err (bad JSON, missing key, value that does not convert).
 */
static int json_parse_doc(struct fmt_ctx *c, const char *s, size_t len)
{
	lbt_format *f = c->f;
	json_t *root = load(c, s, len);

	if (root == NULL)
		return -1;
	f->keys_found = 0;
	for (size_t i = 0; i < f->nkeys; i++) {
		const struct fmt_item *it = &f->keys[i];
		json_t *v = lookup(root, it);

		if (v == NULL && f->keys_any)
			continue;
		if (v == NULL)
			return lbt_err_set(c->err, "missing key '%s'", it->key);
		f->keys_found++;
		if (conv_value(c, it, v) < 0)
			return -1;
	}
	return 0;
}

/* A member of a json dialect line that names a known key. */
struct kmember {
	int key;                   /* index in f->keys */
	json_t *v;
};

#define KJ_MEMBERS 128          /* known members of one line, at most */
#define KJ_NAME 256             /* a dotted name, at most */

/* What the walk of one line found. */
struct kwalk {
	const lbt_format *f;
	struct kmember m[KJ_MEMBERS];
	int n;
	int haproxy;               /* a name only HAProxy logs was there */
	char name[KJ_NAME];
};

/*
 * Look every member of object o up, nested objects as "outer.inner"
 * (depth up to FMT_MAX_PATH), name[0..nl) the prefix so far.
 */
static void kjson_walk(struct kwalk *w, json_t *o, size_t nl, int depth)
{
	const char *k;
	json_t *v;

	json_object_foreach(o, k, v) {
		size_t kl = strlen(k), at = nl + (nl > 0);
		int idx;

		if (at + kl >= sizeof w->name)
			continue;
		if (nl > 0)
			w->name[nl] = '.';
		memcpy(w->name + at, k, kl);
		if (json_is_object(v) && depth < FMT_MAX_PATH)
			kjson_walk(w, v, at + kl, depth + 1);
		else if ((idx = lbt_fmti_jkeys_find(w->f, w->name, at + kl)) >= 0 && w->n < KJ_MEMBERS) {
			w->m[w->n++] = (struct kmember){ idx, v };
			w->haproxy |= (w->f->keys[idx].jflav & JF_MARK) != 0;
		}
	}
}

/*
 * Fill c->rec from a json dialect line: its members by their names; of a
 * name with an NGINX and an HAProxy meaning, the HAProxy one when the line
 * has a name only HAProxy logs.  @return 0, or -1 with err
 */
static int kjson_parse(struct fmt_ctx *c, const char *s, size_t len)
{
	struct kwalk w;            /* 2.3 KiB */
	json_t *root = load(c, s, len);

	if (root == NULL)
		return -1;
	w.f = c->f;
	w.n = w.haproxy = 0;
	kjson_walk(&w, root, 0, 0);
	c->f->keys_found = w.n;
	for (int i = 0; i < w.n; i++) {
		int k = w.m[i].key;
		const struct fmt_item *it = &c->f->keys[k];

		if ((it->jflav & JF_NGINX) && w.haproxy)
			it++;                  /* the HAProxy entry sorts right after it */
		if (conv_value(c, it, w.m[i].v) < 0)
			return -1;
	}
	return 0;
}
