/*
 * format_cbor.c - CBOR lines: HAProxy 3.x %{+cbor}o.
 *
 * The line is an RFC 8949 indefinite-length map (BF ... FF) written as
 * uppercase hex text by default, or raw bytes with %{+cbor,+bin}o.  Hex is
 * decoded into the format's scratch memory, then libcbor (0.8 API:
 * cbor_load, cbor_map_handle) builds the item, kept until the next line
 * because the record's strings may point into it.  Keys are the names of
 * the template's named items; all of them must be present (HAProxy writes
 * F6, null, for an empty item), others are ignored.  Integers (major types
 * 0 and 1), text strings (definite, or chunked 7F...FF, joined in scratch),
 * arrays of strings (%hrl), booleans and null are understood.
 *
 * Binary CBOR may contain 0x0A: a +bin record cut by the line reader is
 * reported as malformed ("bad CBOR"); one record per line is assumed.
 */
#include <cbor.h>
#include <string.h>

#include "format_int.h"

#define MAX_SEEN 256

/* Drop the item of the previous line. */
void lbt_fmti_cbor_release(lbt_format *f)
{
	if (f->cbor != NULL) {
		cbor_item_t *it = f->cbor;

		cbor_decref(&it);
		f->cbor = NULL;
	}
}

/* Value of a hex digit, or -1. */
static int hexval(int ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if ((ch | 0x20) >= 'a' && (ch | 0x20) <= 'f')
		return (ch | 0x20) - 'a' + 10;
	return -1;
}

/* Hex text to bytes in scratch. @return the bytes (count in *n) or NULL with err */
static const unsigned char *unhex(struct fmt_ctx *c, const char *s, size_t len, size_t *n)
{
	unsigned char *o;

	if (len % 2 != 0) {
		lbt_err_set(c->err, "odd number of hex digits in CBOR line (%zu)", len);
		return NULL;
	}
	o = (unsigned char *)lbt_fmti_scratch(c->f, len / 2);
	if (o == NULL) {
		lbt_err_set(c->err, "out of scratch memory");
		return NULL;
	}
	for (size_t i = 0; i < len; i += 2) {
		int hi = hexval((unsigned char)s[i]), lo = hexval((unsigned char)s[i + 1]);

		if (hi < 0 || lo < 0) {
			lbt_err_set(c->err, "bad hex digit '%c' in CBOR line at column %zu",
			    hi < 0 ? s[i] : s[i + 1], hi < 0 ? i + 1 : i + 2);
			return NULL;
		}
		o[i / 2] = (unsigned char)(hi << 4 | lo);
	}
	*n = len / 2;
	return o;
}

/* View of a text or byte string item, chunks joined in scratch. @return 0 or -1 */
static int str_view(struct fmt_ctx *c, cbor_item_t *item, const char **s, size_t *n)
{
	cbor_item_t **ch;
	size_t nch, total = 0;
	char *o;

	if (cbor_string_is_definite(item)) {
		*s = (const char *)cbor_string_handle(item);
		*n = cbor_string_length(item);
		return 0;
	}
	ch = cbor_string_chunks_handle(item);
	nch = cbor_string_chunk_count(item);
	for (size_t i = 0; i < nch; i++)
		total += cbor_string_length(ch[i]);
	o = lbt_fmti_scratch(c->f, total);
	if (o == NULL)
		return lbt_err_set(c->err, "out of scratch memory");
	*s = o;
	*n = total;
	for (size_t i = 0; i < nch; i++) {
		memcpy(o, cbor_string_handle(ch[i]), cbor_string_length(ch[i]));
		o += cbor_string_length(ch[i]);
	}
	return 0;
}

/* An array value: the captures of %hrl. */
static void conv_array(struct fmt_ctx *c, const struct fmt_item *it, cbor_item_t *v)
{
	cbor_item_t **e = cbor_array_handle(v);
	const char *s;
	size_t n;

	if (it->kind != K_CAPLIST || (it->flags & FL_RESP))
		return;
	for (size_t k = 0; k < cbor_array_size(v); k++)
		if (cbor_isa_string(e[k]) && str_view(c, e[k], &s, &n) == 0)
			lbt_fmti_conv_slot(c, it, (int)k, s, n);
}

/* Convert one map value. @return 0 or -1 */
static int conv_value(struct fmt_ctx *c, const struct fmt_item *it, cbor_item_t *v)
{
	const char *s;
	size_t n;

	switch (cbor_typeof(v)) {
	case CBOR_TYPE_UINT:
		return cbor_get_int(v) > INT64_MAX ? 0 : lbt_fmti_conv_int(c, it, (int64_t)cbor_get_int(v));
	case CBOR_TYPE_NEGINT:
		return cbor_get_int(v) > INT64_MAX ? 0 :
		    lbt_fmti_conv_int(c, it, -1 - (int64_t)cbor_get_int(v));
	case CBOR_TYPE_STRING:
		if (str_view(c, v, &s, &n) < 0)
			return -1;
		if (n == 0)
			return 0;
		if (it->kind == K_CAPLIST) {
			lbt_fmti_conv_slot(c, it, 0, s, n);
			return 0;
		}
		return lbt_fmti_conv_text(c, it, s, n, 0);
	case CBOR_TYPE_ARRAY:
		conv_array(c, it, v);
		return 0;
	case CBOR_TYPE_FLOAT_CTRL:
		if (cbor_float_ctrl_is_ctrl(v))
			return 0;
		return lbt_fmti_conv_real(c, it, cbor_float_get_float(v));
	default:
		return 0;
	}
}

/* Index of the key item named by string item k, or -1. */
static int find_key(struct fmt_ctx *c, cbor_item_t *k)
{
	const char *s;
	size_t n;

	if (!cbor_isa_string(k) || str_view(c, k, &s, &n) < 0)
		return -1;
	for (size_t i = 0; i < c->f->nkeys; i++)
		if (c->f->keys[i].keylen == n && memcmp(c->f->keys[i].key, s, n) == 0)
			return (int)i;
	return -1;
}

/*
 * Walk the CBOR headers of b[0..n) in order, without building anything,
 * and check that no definite array or map claims more items than there are
 * bytes left (an item takes at least one byte, a pair two).  libcbor
 * allocates a definite array or map for its declared size before reading
 * it, so "BA E7E8E7E8" (a map of 3.9e9 pairs) in a 5-byte line would ask
 * for tens of GiB (found by tests/fuzz).  A string running past the end is
 * a line cut short, which libcbor reports without allocating: the walk
 * stops there.
 * @return 0, or -1 with *at the offset of the first implausible header.
 */
static int lengths_plausible(const unsigned char *b, size_t n, size_t *at)
{
	size_t i = 0;

	while (i < n) {
		unsigned major = b[i] >> 5, info = b[i] & 31, k;
		uint64_t v = info;

		*at = i++;
		if (info >= 24 && info <= 27) {
			k = 1u << (info - 24);
			if (n - i < k)
				return 0;            /* cut short: libcbor says so */
			for (v = 0; k-- > 0; i++)
				v = v << 8 | b[i];
		}
		if (info == 31 || major == 0 || major == 1 || major == 6 || major == 7)
			continue;            /* no length, or a fixed-size payload skipped below */
		if (major == 2 || major == 3) {
			if (v > n - i)
				return 0;
			i += (size_t)v;
		} else if ((major == 5 && v > (n - i) / 2) || v > n - i)
			return -1;
	}
	return 0;
}

/* Decode the line into a map item owned by f. @return it or NULL with err */
static cbor_item_t *load(struct fmt_ctx *c, const char *s, size_t len)
{
	struct cbor_load_result res;
	const unsigned char *b = (const unsigned char *)s;
	size_t n = len, at;
	cbor_item_t *root;

	if (c->f->enc == ENC_CBOR && (b = unhex(c, s, len, &n)) == NULL)
		return NULL;
	if (lengths_plausible(b, n, &at) < 0) {
		lbt_err_set(c->err, "bad CBOR at byte %zu: a length beyond the end of the line", at);
		return NULL;
	}
	root = cbor_load(b, n, &res);
	if (root == NULL || res.error.code != CBOR_ERR_NONE) {
		if (root != NULL)
			cbor_decref(&root);
		if (res.error.code == CBOR_ERR_NOTENOUGHDATA)
			lbt_err_set(c->err, "CBOR map cut short (%zu bytes)", n);
		else
			lbt_err_set(c->err, "bad CBOR at byte %zu", res.error.position);
		return NULL;
	}
	c->f->cbor = root;
	if (res.read != n) {
		lbt_err_set(c->err, "data after the CBOR map at byte %zu", res.read);
		return NULL;
	}
	if (!cbor_isa_map(root)) {
		lbt_err_set(c->err, "CBOR line is not a map");
		return NULL;
	}
	return root;
}

/*
 * Fill c->rec from a CBOR line (hex text or raw bytes).
 * @return 0, or -1 with err.
 */
int lbt_fmti_cbor_parse(struct fmt_ctx *c, const char *s, size_t len)
{
	uint8_t seen[MAX_SEEN] = { 0 };
	cbor_item_t *root = load(c, s, len);
	struct cbor_pair *pairs;

	if (root == NULL)
		return -1;
	pairs = cbor_map_handle(root);
	for (size_t i = 0; i < cbor_map_size(root); i++) {
		int k = find_key(c, pairs[i].key);

		if (k < 0)
			continue;
		if (k < MAX_SEEN)
			seen[k] = 1;
		if (conv_value(c, &c->f->keys[k], pairs[i].value) < 0)
			return -1;
	}
	for (size_t i = 0; i < c->f->nkeys && i < MAX_SEEN; i++)
		if (!seen[i])
			return lbt_err_set(c->err, "missing key '%s'", c->f->keys[i].key);
	return 0;
}
