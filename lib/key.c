/*
 * key.c - the key of a request.  See include/lbt/key.h.
 *
 * Every pattern is compiled once by PCRE2 and JIT-compiled when the platform
 * allows it (the interpreter is the silent fallback); the match data, the
 * match context and the JIT stack are made once per lbt_key, so extracting a
 * key allocates nothing.
 *
 * Default key (log-formats.md §7), tried in this order:
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
#include <stdlib.h>
#include <string.h>

#include "lbt/key.h"

#define UUID_LEN 36

/* Lookarounds keep a UUID from being the tail or head of a longer word. */
static const char uuid_re[] =
    "(?<![0-9A-Za-z])"
    "([0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12})"
    "(?![0-9A-Za-z])";

static const char slug_re[] =
    "^(?:[A-Za-z][A-Za-z0-9+.-]*://[^/]*)?(?:/ping)?"
    "/([A-Za-z0-9_-]{22}/[a-z0-9_-]+)(?=[/?#]|\\z)";

struct lbt_key {
	pcre2_code *re[2];            /* user pattern alone, or uuid then slug */
	int nre;
	int lower_first;              /* default key: lower-case what re[0] finds */
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
		k->lower_first = 1;
		if (key_compile(k, uuid_re, "key", err) < 0 ||
		    key_compile(k, slug_re, "key", err) < 0)
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

/* Copy a UUID into k->buf in lower case and point *out at the copy. */
static void key_lower(lbt_key *k, lbt_str *out)
{
	for (size_t i = 0; i < out->n && i < UUID_LEN; i++) {
		char c = out->p[i];

		k->buf[i] = (c >= 'A' && c <= 'F') ? (char)(c + ('a' - 'A')) : c;
	}
	k->buf[UUID_LEN] = '\0';
	*out = lbt_str_make(k->buf, out->n < UUID_LEN ? out->n : UUID_LEN);
}

/*
 * Extract the key from s[0..len).  *out views k's buffer (lower-cased UUID)
 * or s; valid until the next call or until s changes.
 * @return 1 found, 0 not (then *out is left alone).
 */
int lbt_key_extract(lbt_key *k, const char *s, size_t len, lbt_str *out)
{
	for (int i = 0; i < k->nre; i++) {
		if (key_match(k, k->re[i], s, len, out)) {
			if (i == 0 && k->lower_first)
				key_lower(k, out);
			return 1;
		}
	}
	return 0;
}
