/*
 * format_prog.c - the toolbox the format compilers and decoders build
 * with: a new empty format, items, text programs and their steps, JSON/CBOR
 * key items, the fields a format can fill, capture slots, and the per-line
 * scratch memory.  Nothing here compiles or parses a line; format.c (the
 * public face) and the dialect files call this file, never the reverse.
 */
#include <stdlib.h>
#include <string.h>

#include "format_int.h"
#include "lbt/vec.h"

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
		return LBT_BIT(LBT_F_CLIENT) | (it->flags & FL_XFF ? LBT_BIT(LBT_F_CLIENT_FROM) |
		    LBT_BIT(LBT_F_CONN) : 0);
	case K_TIME:
	case K_MS:
		return LBT_BIT(LBT_F_TIME);
	case K_REQUEST:
		return LBT_BIT(LBT_F_METHOD) | LBT_BIT(LBT_F_PATH) | LBT_BIT(LBT_F_QUERY) |
		    LBT_BIT(LBT_F_VERSION) | LBT_BIT(LBT_F_HOST) | LBT_BIT(LBT_F_REQUEST);
	case K_URI:
		return LBT_BIT(LBT_F_PATH) | LBT_BIT(LBT_F_QUERY) | LBT_BIT(LBT_F_HOST) |
		    LBT_BIT(LBT_F_REQUEST);
	case K_PATH:
		return LBT_BIT(LBT_F_PATH) | LBT_BIT(LBT_F_QUERY) | LBT_BIT(LBT_F_HOST);
	case K_QUERY:
		return LBT_BIT(LBT_F_QUERY);
	default:
		return 0;
	}
}

/* Fields a capture slot of meaning `cap` fills. */
static uint64_t cap_fields(int cap)
{
	static const uint64_t m[] = {
		[CAP_NONE] = 0, [CAP_HOST] = LBT_BIT(LBT_F_HOST),
		[CAP_UA] = LBT_BIT(LBT_F_UA), [CAP_CLIENT] = LBT_BIT(LBT_F_CLIENT) |
		LBT_BIT(LBT_F_CLIENT_FROM) | LBT_BIT(LBT_F_CONN)
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

/* Union of the fields a program's items can fill, capture masks refreshed. */
static uint64_t prog_fields(const lbt_format *f, struct fmt_prog *pg)
{
	uint64_t m = 0;

	for (size_t i = 0; i < pg->n; i++) {
		if (pg->v[i].op != OP_ITEM)
			continue;
		item_cap_fills(f, &pg->v[i].it);
		m |= pg->v[i].it.fills;
	}
	return m;
}

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

	if (LBT_GROW(pg->v, pg->cap, pg->n + 1, 16) < 0)
		return NULL;
	st = &pg->v[pg->n++];
	memset(st, 0, sizeof *st);
	st->op = (uint8_t)op;
	st->col = col;
	return st;
}

/* Append a zeroed keyed item (JSON/CBOR).  @return it, or NULL (no memory). */
struct fmt_item *lbt_fmti_key_add(lbt_format *f)
{
	if (LBT_GROW(f->keys, f->keycap, f->nkeys + 1, 16) < 0)
		return NULL;
	memset(&f->keys[f->nkeys], 0, sizeof f->keys[0]);
	return &f->keys[f->nkeys++];
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

/*
 * Compute f->fields from the steps or keys, and the fills of capture items;
 * the matcher's plan, which depends on them, is then made anew before the
 * next line (format.c).
 */
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
	f->planned = 0;
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

/* Capture slot meaning of a name (case-insensitive). @return enum fmt_cap or -1 */
int lbt_fmti_cap_lookup(const char *s, size_t n)
{
	static const struct { const char *name; int cap; } names[] = {
		{ "-", CAP_NONE }, { "", CAP_NONE }, { "host", CAP_HOST },
		{ "ua", CAP_UA }, { "user-agent", CAP_UA }, { "client", CAP_CLIENT },
		{ "x-forwarded-for", CAP_CLIENT }, { "xff", CAP_CLIENT }
	};

	while (n > 0 && (*s == ' ' || *s == '\t')) {
		s++;
		n--;
	}
	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strlen(names[i].name) == n && strncasecmp(names[i].name, s, n) == 0)
			return names[i].cap;
	return -1;
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
	const char *cur = list;
	lbt_str it;

	if (list == NULL || *list == '\0') {
		f->ncaps = 0;
		return 0;
	}
	while (lbt_str_next_item(&cur, ',', &it)) {
		int cap = lbt_fmti_cap_lookup(it.p, it.n);

		if (cap < 0)
			return lbt_err_set(err, "unknown capture '%.*s' (host, ua, client or -)",
			    (int)it.n, it.p);
		if (n == FMT_MAX_CAPS)
			return lbt_err_set(err, "more than %d captures", FMT_MAX_CAPS);
		caps[n++] = (uint8_t)cap;
	}
	memcpy(f->caps, caps, (size_t)n);
	f->ncaps = n;
	lbt_fmti_compute_fields(f);
	return 0;
}
