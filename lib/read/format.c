/*
 * format.c - the lbt_format object: compile, free, setters, accessors and
 * the per-line dispatch to the text matcher, JSON, CBOR or TSV.
 * See include/lbt/format.h; the file map is in lib/read/format_int.h.
 */
#include <stdlib.h>
#include <string.h>

#include "format_int.h"
#include "lbt/format.h"

/* Copy s[0..n) into a new NUL-terminated string.  @return it, or NULL (no memory). */
char *lbt_fmti_strndup(const char *s, size_t n)
{
	char *p = malloc(n + 1);

	if (p != NULL) {
		memcpy(p, s, n);
		p[n] = '\0';
	}
	return p;
}

/* A new empty format of dialect d, wanting every field.  @return it or NULL. */
lbt_format *lbt_fmti_new(lbt_dialect d)
{
	lbt_format *f = calloc(1, sizeof *f);

	if (f == NULL)
		return NULL;
	f->dialect = d;
	f->wanted = ~(uint64_t)0;
	f->req_caps = -1;
	f->resp_caps = -1;
	return f;
}

/* Release what an item owns (key, path, sub-program); the item itself is not freed. */
void lbt_fmti_item_free(struct fmt_item *it)
{
	free(it->key);
	for (int i = 0; i < it->npath; i++)
		free(it->path[i]);
	if (it->sub != NULL) {
		lbt_fmti_prog_free(it->sub);
		free(it->sub);
	}
}

/* Release the steps of a program (the program struct itself is not freed). */
void lbt_fmti_prog_free(struct fmt_prog *pg)
{
	for (size_t i = 0; i < pg->n; i++) {
		free(pg->v[i].lit);
		lbt_fmti_item_free(&pg->v[i].it);
	}
	free(pg->v);
	pg->v = NULL;
	pg->n = pg->cap = 0;
}

/*
 * Append a zeroed step of kind `op` at template column `col`.
 * @return the step (valid until the next append), or NULL (no memory).
 */
struct fmt_step *lbt_fmti_prog_add(struct fmt_prog *pg, int op, uint32_t col)
{
	struct fmt_step *st;

	if (pg->n == pg->cap) {
		size_t cap = pg->cap ? pg->cap * 2 : 16;
		struct fmt_step *v = realloc(pg->v, cap * sizeof *v);

		if (v == NULL)
			return NULL;
		pg->v = v;
		pg->cap = cap;
	}
	st = &pg->v[pg->n++];
	memset(st, 0, sizeof *st);
	st->op = (uint8_t)op;
	st->col = col;
	return st;
}

/* Append a zeroed keyed item (JSON/CBOR).  @return it, or NULL (no memory). */
struct fmt_item *lbt_fmti_key_add(lbt_format *f)
{
	if (f->nkeys == f->keycap) {
		size_t cap = f->keycap ? f->keycap * 2 : 16;
		struct fmt_item *v = realloc(f->keys, cap * sizeof *v);

		if (v == NULL)
			return NULL;
		f->keys = v;
		f->keycap = cap;
	}
	memset(&f->keys[f->nkeys], 0, sizeof f->keys[0]);
	return &f->keys[f->nkeys++];
}

/* Fields an item of its kind can fill (captures: see item_cap_fills). */
static uint64_t kind_fills(const struct fmt_item *it)
{
	switch (it->kind) {
	case K_STR:
	case K_I32:
	case K_SEC_MS:
		return LBT_BIT(it->field);
	case K_BYTES:
		return LBT_BIT(LBT_F_BYTES);
	case K_CLIENT:
		return LBT_BIT(LBT_F_CLIENT);
	case K_TIME:
	case K_MS:
		return LBT_BIT(LBT_F_TIME);
	case K_REQUEST:
		return LBT_BIT(LBT_F_METHOD) | LBT_BIT(LBT_F_PATH) | LBT_BIT(LBT_F_QUERY) |
		    LBT_BIT(LBT_F_VERSION) | LBT_BIT(LBT_F_HOST);
	case K_URI:
	case K_PATH:
		return LBT_BIT(LBT_F_PATH) | LBT_BIT(LBT_F_QUERY) | LBT_BIT(LBT_F_HOST);
	case K_QUERY:
		return LBT_BIT(LBT_F_QUERY);
	default:
		return 0;
	}
}

/*
 * Complete a compiled item: the fields it can fill, and the offset of its
 * lbt_rec member for string and int32 kinds (so that a value is stored
 * without looking the field up on every line).
 */
void lbt_fmti_item_finish(struct fmt_item *it)
{
	lbt_rec r;
	void *m = NULL;

	it->fills = kind_fills(it);
	if (it->kind == K_STR)
		m = lbt_rec_str(&r, (lbt_field)it->field);
	else if (it->kind == K_I32 || it->kind == K_SEC_MS)
		m = lbt_rec_i32(&r, (lbt_field)it->field);
	it->off = m ? (uint16_t)((char *)m - (char *)&r) : 0;
}

/*
 * Two items with nothing between them can only be told apart when the
 * first is a number (its digits end it), has a fixed width, or is a path
 * followed by its query ("%HP%HQ": the '?' ends the path).
 * @return 0, or -1 with err naming the item and its template column.
 */
int lbt_fmti_check_adjacent(const struct fmt_prog *pg, lbt_err *err)
{
	for (size_t i = 0; i + 1 < pg->n; i++) {
		const struct fmt_step *a = &pg->v[i], *b = &pg->v[i + 1];

		if (a->op == OP_ITEM && b->op == OP_ITEM && a->it.scan != SC_NUM &&
		    a->it.scan != SC_FIXED && !(a->it.kind == K_PATH && b->it.kind == K_QUERY))
			return lbt_err_set(err, "%s at column %u must be followed by text or a space, "
			    "not directly by %s", a->it.what, (unsigned)a->col, b->it.what);
	}
	return 0;
}

/* Fields a capture slot of meaning `cap` fills. */
static uint64_t cap_fields(int cap)
{
	static const uint64_t m[] = {
		[CAP_NONE] = 0, [CAP_HOST] = LBT_BIT(LBT_F_HOST),
		[CAP_UA] = LBT_BIT(LBT_F_UA), [CAP_CLIENT] = LBT_BIT(LBT_F_CLIENT)
	};

	return m[cap];
}

/* Set the fill mask of a capture item from f->caps (they change with the mapping). */
static void item_cap_fills(const lbt_format *f, struct fmt_item *it)
{
	if (it->kind == K_SLOT)
		it->fills = it->slot < f->ncaps ? cap_fields(f->caps[it->slot]) : 0;
	if ((it->kind == K_CAPBLOCK || it->kind == K_CAPLIST) && !(it->flags & FL_RESP)) {
		it->fills = 0;
		for (int i = 0; i < f->ncaps; i++)
			it->fills |= cap_fields(f->caps[i]);
	}
}

/*
 * Union of the fields a program's items can fill, capture masks refreshed;
 * the matcher's per-step plan is made here too (every compiled program
 * passes through this function).
 */
static uint64_t prog_fields(const lbt_format *f, struct fmt_prog *pg)
{
	uint64_t m = 0;

	for (size_t i = 0; i < pg->n; i++) {
		if (pg->v[i].op != OP_ITEM)
			continue;
		item_cap_fills(f, &pg->v[i].it);
		m |= pg->v[i].it.fills;
	}
	lbt_fmti_prog_plan(pg);
	return m;
}

/* Compute f->fields from the steps or keys, and the fills of capture items. */
void lbt_fmti_compute_fields(lbt_format *f)
{
	uint64_t m = prog_fields(f, &f->prog);

	for (size_t i = 0; i < f->nkeys; i++) {
		item_cap_fills(f, &f->keys[i]);
		m |= f->keys[i].fills;
		if (f->keys[i].sub != NULL)
			m |= prog_fields(f, f->keys[i].sub);
	}
	if (f->enc == ENC_TSV)
		m = (LBT_BIT(LBT_F_COUNT) - 1) & ~(LBT_BIT(LBT_F_FILE) | LBT_BIT(LBT_F_LINE));
	f->fields = m;
}

/*
 * Scratch memory for one line's decoded strings: n bytes, valid until the
 * next lbt_format_parse() on f.  Capacity is reserved at the start of each
 * line (3 x its length), so this never reallocates mid-line.
 * @return the memory, or NULL when the reservation is exhausted.
 */
char *lbt_fmti_scratch(lbt_format *f, size_t n)
{
	char *p;

	if (n > f->scap - f->sused)
		return NULL;
	p = f->scratch + f->sused;
	f->sused += n;
	return p;
}

/* Reset the scratch for a line of `len` bytes, growing it if needed. @return 0 or -1 */
static int scratch_reset(lbt_format *f, size_t len)
{
	size_t need = 3 * len + 256;

	f->sused = 0;
	if (need > f->scap) {
		char *p = realloc(f->scratch, need);

		if (p == NULL)
			return -1;
		f->scratch = p;
		f->scap = need;
	}
	return 0;
}

/*
 * Compile template tmpl of dialect d (escape for NGINX) into a format named
 * "custom".  TSV needs no template.  @return the format, or NULL with err.
 */
lbt_format *lbt_format_compile(lbt_dialect d, const char *tmpl, const char *escape,
    lbt_err *err)
{
	lbt_format *f;
	int r;

	if (tmpl == NULL && d != LBT_DIALECT_TSV) {
		lbt_err_set(err, "no template");
		return NULL;
	}
	f = lbt_fmti_new(d);
	if (f == NULL) {
		lbt_err_set(err, "out of memory");
		return NULL;
	}
	f->name = lbt_fmti_strndup("custom", 6);
	f->tmpl = lbt_fmti_strndup(tmpl ? tmpl : "", tmpl ? strlen(tmpl) : 0);
	if (d == LBT_DIALECT_HAPROXY)
		r = lbt_fmti_haproxy_compile(f, tmpl, err);
	else if (d == LBT_DIALECT_NGINX)
		r = lbt_fmti_nginx_compile(f, tmpl, escape, err);
	else {
		f->enc = ENC_TSV;
		r = 0;
	}
	if (r < 0 || f->name == NULL || f->tmpl == NULL) {
		if (r == 0)
			lbt_err_set(err, "out of memory");
		lbt_format_free(f);
		return NULL;
	}
	lbt_fmti_compute_fields(f);
	return f;
}

/* Free f and what it owns (NULL is fine). */
void lbt_format_free(lbt_format *f)
{
	if (f == NULL)
		return;
	lbt_fmti_json_release(f);
	lbt_fmti_cbor_release(f);
	lbt_fmti_prog_free(&f->prog);
	for (size_t i = 0; i < f->nkeys; i++)
		lbt_fmti_item_free(&f->keys[i]);
	free(f->keys);
	free(f->name);
	free(f->describe);
	free(f->tmpl);
	free(f->escape);
	free(f->scratch);
	free(f);
}

/* Zone of %t/%tr stamps for the next lines (not owned; NULL is UTC). */
void lbt_format_set_tz(lbt_format *f, lbt_tz *tz)
{
	f->tz = tz;
	memset(&f->tcache, 0, sizeof f->tcache);
}

/* Convert only the fields of mask from now on; 0 means every field. */
void lbt_format_set_wanted(lbt_format *f, uint64_t mask)
{
	f->wanted = mask ? mask : ~(uint64_t)0;
}

/*
 * Parse a capture list "host,ua,-" into f->caps.  Names: host, ua (or
 * user-agent), client (or x-forwarded-for), '-' or empty for a slot to
 * ignore.  @return 0, or -1 with err naming the bad entry.
 */
int lbt_fmti_set_captures(lbt_format *f, const char *list, lbt_err *err)
{
	uint8_t caps[FMT_MAX_CAPS];
	int n = 0;
	const char *p = list;

	if (list == NULL || *list == '\0') {
		f->ncaps = 0;
		return 0;
	}
	for (;;) {
		const char *e = strchr(p, ',');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		int cap = lbt_fmti_cap_lookup(p, len);

		if (cap < 0)
			return lbt_err_set(err, "unknown capture '%.*s' (host, ua, client or -)",
			    (int)len, p);
		if (n == FMT_MAX_CAPS)
			return lbt_err_set(err, "more than %d captures", FMT_MAX_CAPS);
		caps[n++] = (uint8_t)cap;
		if (e == NULL)
			break;
		p = e + 1;
	}
	memcpy(f->caps, caps, (size_t)n);
	f->ncaps = n;
	lbt_fmti_compute_fields(f);
	return 0;
}

/* Capture slot meanings from a --captures list.  @return 0 or -1 with err */
int lbt_format_set_captures(lbt_format *f, const char *list, lbt_err *err)
{
	return lbt_fmti_set_captures(f, list, err);
}

/* Length of msg without trailing CR/LF. */
static size_t trim_eol(const char *msg, size_t len)
{
	while (len > 0 && (msg[len - 1] == '\n' || msg[len - 1] == '\r'))
		len--;
	return len;
}

/* True when msg[0..len) holds only blanks. */
static int is_blank(const char *msg, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (msg[i] != ' ' && msg[i] != '\t')
			return 0;
	return 1;
}

/*
 * Fill rec from one message: clear it, drop the previous line's JSON or
 * CBOR document, reserve scratch, then run the matcher of the encoding.
 * @return LBT_PARSE_OK, LBT_PARSE_SKIP (blank, TSV header) or LBT_PARSE_BAD.
 */
int lbt_format_parse(lbt_format *f, const char *msg, size_t len, lbt_rec *rec, lbt_err *err)
{
	struct fmt_ctx c;
	int r;

	lbt_rec_clear(rec);
	lbt_fmti_json_release(f);
	lbt_fmti_cbor_release(f);
	if (f->enc != ENC_CBOR_BIN)
		len = trim_eol(msg, len);
	if (f->enc != ENC_CBOR_BIN && is_blank(msg, len))
		return LBT_PARSE_SKIP;
	if (scratch_reset(f, len) < 0) {
		lbt_err_set(err, "out of memory");
		return LBT_PARSE_BAD;
	}
	lbt_fmti_ctx_init(&c, f, rec, err, msg);
	switch (f->enc) {
	case ENC_TEXT:
		r = lbt_fmti_match(&c, &f->prog, msg, len);
		break;
	case ENC_HJSON:
	case ENC_NJSON:
		r = lbt_fmti_json_parse(&c, msg, len);
		break;
	case ENC_CBOR:
	case ENC_CBOR_BIN:
		r = lbt_fmti_cbor_parse(&c, msg, len);
		break;
	default:
		r = lbt_fmti_tsv_parse(&c, msg, len);
		if (r > 0)
			return LBT_PARSE_SKIP;
		break;
	}
	if (r < 0)
		return LBT_PARSE_BAD;
	lbt_fmti_ctx_finish(&c);
	return LBT_PARSE_OK;
}

/* Accessors: see format.h.  Never NULL. */
const char *lbt_format_name(const lbt_format *f)
{
	return f->name ? f->name : "custom";
}

/* One-line description, "" when none. */
const char *lbt_format_describe(const lbt_format *f)
{
	return f->describe ? f->describe : "";
}

/* The template as compiled (continuations joined). */
const char *lbt_format_template(const lbt_format *f)
{
	return f->tmpl ? f->tmpl : "";
}

/* Dialect of the template. */
lbt_dialect lbt_format_dialect(const lbt_format *f)
{
	return f->dialect;
}

/* LBT_BIT mask of the fields a line can fill (captures included). */
uint64_t lbt_format_fields(const lbt_format *f)
{
	return f->fields;
}
