/*
 * key.c - the key of a request.  See include/lbt/key.h.
 *
 * Every pattern is compiled once by PCRE2 and JIT-compiled when the platform
 * allows it (the interpreter is the silent fallback); the match data, the
 * match context and the JIT stack are made once per lbt_key, so extracting a
 * key allocates nothing.  The UUID of the default key is found by hand
 * (find_uuid), the exact equivalent of the pattern quoted there: it runs on
 * every line, and PCRE2's JIT with the lower-casing cost ~1350 instructions
 * a line (callgrind, bench/genlog.sh paths), the scan below ~250.
 *
 * Default key (docs/formats.md, "The key"), tried in this order:
 *   1. the first UUID (8-4-4-4-12 hex digits, any case) that is not glued to
 *      another letter or digit, reported lower-case (Healthchecks only routes
 *      lower-case, but a flood of upper-case variants is the same target);
 *   2. "<ping-key>/<slug>" at the start of the path, after an optional
 *      scheme://host and an optional /ping: a 22-character URL-safe base64
 *      ping key and a lower-case slug, ended by '/', '?', '#' or the end.
 * A user pattern (--key-regex) must have exactly one capture group; what it
 * captures is the key, as it appears in the input.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lbt/key.h"

#define UUID_LEN 36

static const char slug_re[] =
    "^(?:[A-Za-z][A-Za-z0-9+.-]*://[^/]*)?(?:/ping)?"
    "/([A-Za-z0-9_-]{22}/[a-z0-9_-]+)(?=[/?#]|\\z)";

struct lbt_key {
	pcre2_code *re[1];            /* user pattern, or the slug of the default key */
	int nre;
	int uuid_first;               /* default key: a UUID (find_uuid) before re[0] */
	pcre2_match_data *md;         /* sized for the largest pattern */
	pcre2_match_context *mctx;
	pcre2_jit_stack *jstack;
	char buf[UUID_LEN + 1];       /* lower-cased UUID */
};

/*
 * Compile `pattern` into k->re[k->nre++], with JIT when available.  `what`
 * prefixes messages.  @return 0, or -1 with err
 * "--key-regex: missing closing parenthesis at offset 5".
 */
static int key_compile(lbt_key *k, const char *pattern, const char *what, lbt_err *err)
{
	int code;
	PCRE2_SIZE off;
	PCRE2_UCHAR msg[256];
	pcre2_code *re;

	re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, 0, &code, &off, NULL);
	if (re == NULL) {
		pcre2_get_error_message(code, msg, sizeof msg);
		return lbt_err_set(err, "%s: %s at offset %zu", what, (char *)msg, (size_t)off);
	}
	/* A failed JIT compile (no JIT on this CPU) leaves the interpreter. */
	(void)pcre2_jit_compile(re, PCRE2_JIT_COMPLETE);
	k->re[k->nre++] = re;
	return 0;
}

/* @return the number of capture groups of re. */
static uint32_t capture_count(const pcre2_code *re)
{
	uint32_t n = 0;

	pcre2_pattern_info(re, PCRE2_INFO_CAPTURECOUNT, &n);
	return n;
}

/*
 * Make the match data (sized for every pattern of k), the match context and
 * a JIT stack large enough for user patterns with nested repeats.
 * @return 0, or -1 with err on allocation failure.
 */
static int key_prepare(lbt_key *k, lbt_err *err)
{
	k->md = pcre2_match_data_create(4, NULL);
	k->mctx = pcre2_match_context_create(NULL);
	k->jstack = pcre2_jit_stack_create(32 * 1024, 1024 * 1024, NULL);
	if (k->md == NULL || k->mctx == NULL || k->jstack == NULL)
		return lbt_err_set(err, "key: out of memory");
	pcre2_jit_stack_assign(k->mctx, NULL, k->jstack);
	return 0;
}

/*
 * NULL pattern: the default ping key.  Otherwise a PCRE2 pattern with
 * exactly one capture group.  @return a key (free with lbt_key_free), or
 * NULL with err "--key-regex: ..." naming the fault.
 */
lbt_key *lbt_key_new(const char *pattern, lbt_err *err)
{
	lbt_key *k = calloc(1, sizeof *k);

	if (k == NULL) {
		lbt_err_set(err, "key: out of memory");
		return NULL;
	}
	if (pattern == NULL) {
		k->uuid_first = 1;
		if (key_compile(k, slug_re, "key", err) < 0)
			goto fail;
	} else {
		if (key_compile(k, pattern, "--key-regex", err) < 0)
			goto fail;
		if (capture_count(k->re[0]) != 1) {
			lbt_err_set(err, "--key-regex: pattern must have exactly one capture "
			    "group (has %u)", (unsigned)capture_count(k->re[0]));
			goto fail;
		}
	}
	if (key_prepare(k, err) < 0)
		goto fail;
	return k;
fail:
	lbt_key_free(k);
	return NULL;
}

/* Free k and everything it owns; NULL is accepted. */
void lbt_key_free(lbt_key *k)
{
	if (k == NULL)
		return;
	for (int i = 0; i < k->nre; i++)
		pcre2_code_free(k->re[i]);
	pcre2_match_data_free(k->md);
	pcre2_match_context_free(k->mctx);
	pcre2_jit_stack_free(k->jstack);
	free(k);
}

/*
 * Run re on s[0..len) and view group 1 in *out.
 * @return 1 when it matched with a non-empty group 1, else 0.
 */
static int key_match(lbt_key *k, pcre2_code *re, const char *s, size_t len, lbt_str *out)
{
	PCRE2_SIZE *ov;
	int rc;

	rc = pcre2_match(re, (PCRE2_SPTR)(s ? s : ""), len, 0, 0, k->md, k->mctx);
	if (rc < 2)
		return 0;
	ov = pcre2_get_ovector_pointer(k->md);
	if (ov[2] == PCRE2_UNSET || ov[3] <= ov[2])
		return 0;
	*out = lbt_str_make(s + ov[2], ov[3] - ov[2]);
	return 1;
}

/*
 * Copy the UUID at u (shape checked) into k->buf in lower case.  Digits and
 * '-' already have bit 0x20 set, so setting it in every byte lowers A-F
 * and nothing else: eight bytes at a time, ~15 instructions instead of
 * ~320 for a byte loop with a test (callgrind).
 */
static void uuid_lower(lbt_key *k, const char *u, lbt_str *out)
{
	const uint64_t bit = 0x2020202020202020ull;

	for (int i = 0; i < 32; i += 8) {
		uint64_t w;

		memcpy(&w, u + i, 8);
		w |= bit;
		memcpy(k->buf + i, &w, 8);
	}
	for (int i = 32; i < UUID_LEN; i++)
		k->buf[i] = (char)(u[i] | 0x20);
	k->buf[UUID_LEN] = '\0';
	*out = lbt_str_make(k->buf, UUID_LEN);
}

/* True for an ASCII letter or digit (PCRE2's [0-9A-Za-z], bytes, no UTF). */
static int is_alnum(unsigned char c)
{
	return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z');
}

/* 1 for every byte that is not a hex digit, one row per 16 bytes. */
#define X16 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1
static const unsigned char not_hex[256] = {
	X16, X16, X16,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1,        /* 0x30: 0-9 */
	1, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1,        /* 0x40: A-F */
	X16,
	1, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1,        /* 0x60: a-f */
	X16, X16, X16, X16, X16, X16, X16, X16, X16
};
#undef X16

/* True when s[0..36) is 8-4-4-4-12 hex digits with dashes (no branch per byte). */
static int uuid_shape(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	unsigned bad = 0;

	if (s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-')
		return 0;
	for (int i = 0; i < 8; i++)
		bad |= not_hex[u[i]] | not_hex[u[24 + i]];
	for (int i = 0; i < 4; i++)
		bad |= not_hex[u[9 + i]] | not_hex[u[14 + i]] | not_hex[u[19 + i]] |
		    not_hex[u[32 + i]];
	return bad == 0;
}

/*
 * The first match of
 *   (?<![0-9A-Za-z])([0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-
 *   [0-9A-Fa-f]{4}-[0-9A-Fa-f]{12})(?![0-9A-Za-z])
 * in s[0..len): the leftmost start not glued to a letter or digit on either
 * side.  Candidate starts are 8 bytes before a '-' (memchr).
 * @return 1 with *at, or 0.
 */
static int find_uuid(const char *s, size_t len, size_t *at)
{
	size_t i = 0;

	while (len >= UUID_LEN && i <= len - UUID_LEN) {
		const char *d = memchr(s + i + 8, '-', len - UUID_LEN + 1 - i);

		if (d == NULL)
			return 0;
		i = (size_t)(d - s) - 8;
		if ((i == 0 || !is_alnum((unsigned char)s[i - 1])) && uuid_shape(s + i) &&
		    (i + UUID_LEN == len || !is_alnum((unsigned char)s[i + UUID_LEN]))) {
			*at = i;
			return 1;
		}
		i++;
	}
	return 0;
}

/*
 * Extract the key from s[0..len).  *out views k's buffer (lower-cased UUID)
 * or s; valid until the next call or until s changes.
 * @return 1 found, 0 not (then *out is left alone).
 */
int lbt_key_extract(lbt_key *k, const char *s, size_t len, lbt_str *out)
{
	size_t at;

	if (k->uuid_first && s != NULL && find_uuid(s, len, &at)) {
		uuid_lower(k, s + at, out);
		return 1;
	}
	for (int i = 0; i < k->nre; i++)
		if (key_match(k, k->re[i], s, len, out))
			return 1;
	return 0;
}
