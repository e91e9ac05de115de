/*
 * format.c - the lbt_format object: compile, free, setters, accessors and
 * the per-line dispatch to the text matcher, JSON, CBOR or TSV.
 * See include/lbt/format.h; the file map is in lib/read/format_int.h.
 */
#include <stdlib.h>
#include <string.h>

#include "format_int.h"
#include "lbt/format.h"
#include "lbt/vec.h"

/* Reset the scratch for a line of `len` bytes, growing it if needed. @return 0 or -1 */
static int scratch_reset(lbt_format *f, size_t len)
{
	size_t need = 3 * len + 256;

	f->sused = 0;
	return LBT_GROW(f->scratch, f->scap, need, 256);
}

/*
 * Compile template tmpl of dialect d (escape for NGINX) into a format named
 * "custom".  TSV and json need no template.  @return the format, or NULL
 * with err.
 */
lbt_format *lbt_format_compile(lbt_dialect d, const char *tmpl, const char *escape,
    lbt_err *err)
{
	lbt_format *f;
	int r;

	if (tmpl == NULL && d != LBT_DIALECT_TSV && d != LBT_DIALECT_JSON) {
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
	else if (d == LBT_DIALECT_JSON)
		r = lbt_fmti_jkeys_compile(f, err);
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
	free(f->jspan);
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

/*
 * Convert only the fields of mask from now on; 0 means every field.  A
 * JSON format that may lack keys always converts the time and the request
 * fields: they decide whether a line is a record (format_json.c).
 */
void lbt_format_set_wanted(lbt_format *f, uint64_t mask)
{
	f->wanted = mask ? mask : ~(uint64_t)0;
	if (f->wanted & (LBT_BIT(LBT_F_CLIENT_FROM) | LBT_BIT(LBT_F_CONN)))
		f->wanted |= LBT_BIT(LBT_F_CLIENT);      /* both are told by reading it */
	if (f->keys_any || f->enc == ENC_KJSON)
		f->wanted |= FMT_USABLE;
	f->planned = 0;      /* skipped words depend on it */
}

/* The trusted proxies of a header's address list (NULL: no list). */
void lbt_format_set_trusted(lbt_format *f, lbt_ipset *trusted)
{
	f->trusted = trusted;
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
 * Match msg again taking every step: a line that fails after words were
 * skipped gets the error the steps give, at the place they find it (and
 * the skips are only ever an agreement with them: format_match.c).
 * @return as lbt_fmti_match
 */
static int match_every_step(struct fmt_ctx *c, const char *msg, size_t len)
{
	lbt_rec_clear(c->rec);
	c->f->sused = 0;
	lbt_fmti_ctx_init(c, c->f, c->rec, c->err, msg);
	c->noskip = 1;
	return lbt_fmti_match(c, &c->f->prog, msg, len);
}

/*
 * True when f, which can fill a time, a client or a request and was asked
 * for one, filled none of them on this line: a record of nulls is no
 * record (a JSON object of none of the known keys, a line all "-").
 * lbt-cat TSV is exempt: its columns are what was asked of it.
 */
static int bound_nothing(const lbt_format *f, const lbt_rec *rec)
{
	const uint64_t core = LBT_BIT(LBT_F_TIME) | LBT_BIT(LBT_F_CLIENT) | LBT_BIT(LBT_F_METHOD) |
	    LBT_BIT(LBT_F_PATH) | LBT_BIT(LBT_F_REQUEST);

	return (f->fields & f->wanted & core) != 0 && (rec->have & core) == 0;
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
	if (!f->planned)
		lbt_fmti_plan(f);  /* once, and again after the captures change */
	lbt_fmti_ctx_init(&c, f, rec, err, msg);
	switch (f->enc) {
	case ENC_TEXT:
		r = lbt_fmti_match(&c, &f->prog, msg, len);
		if (r < 0 && c.skipped)
			r = match_every_step(&c, msg, len);
		break;
	case ENC_HJSON:
	case ENC_NJSON:
	case ENC_KJSON:
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
	if (f->enc != ENC_TSV && bound_nothing(f, rec)) {
		lbt_err_set(err, "no time, client or request in the line");
		return LBT_PARSE_BAD;
	}
	return LBT_PARSE_OK;
}

/*
 * True when f cannot read a message of len bytes holding `quotes` '"'
 * bytes; see format.h.  Every literal byte of a text template is in every
 * line it reads, at a place of its own, unless the logger cut the line.
 */
int lbt_format_cannot_read(lbt_format *f, size_t len, unsigned quotes)
{
	if (f->enc != ENC_TEXT || len >= CUT_MIN)
		return 0;
	if (!f->planned)
		lbt_fmti_plan(f);
	return quotes < f->lit_quotes;
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

/* Fields item `it` fills on every line: an absolute-form request URI's
 * host is not the Host header of every request. */
static uint64_t item_always(const struct fmt_item *it)
{
	if (it->kind == K_REQUEST || it->kind == K_URI || it->kind == K_PATH)
		return it->fills & ~LBT_BIT(LBT_F_HOST);
	return it->fills;
}

/*
 * The time bits of item it: 1 a sub-second date (rank 2: %t, %tr,
 * $msec), 2 a date of the accept to the second (%T, %Ts), 4 %ms.
 */
static unsigned time_bits(const struct fmt_item *it)
{
	if (it->kind == K_MS)
		return 4;
	if (it->kind != K_TIME)
		return 0;
	return it->rank >= 2 ? 1 : (it->flags & FL_ACCEPT_S) ? 2 : 0;
}

/* What the items of pg (may be NULL) and it (may be NULL) say: their time
 * bits OR'ed into *bits, their always-filled fields into *fields. */
static void items_scan(const struct fmt_prog *pg, const struct fmt_item *it, unsigned *bits,
    uint64_t *fields)
{
	for (size_t i = 0; pg != NULL && i < pg->n; i++)
		if (pg->v[i].op == OP_ITEM) {
			*bits |= time_bits(&pg->v[i].it);
			*fields |= item_always(&pg->v[i].it);
		}
	if (it != NULL) {
		*bits |= time_bits(it);
		*fields |= item_always(it);
	}
}

/* The time bits and always-filled fields of every item of f. */
static void format_scan(const lbt_format *f, unsigned *bits, uint64_t *fields)
{
	*bits = 0;
	*fields = 0;
	items_scan(&f->prog, NULL, bits, fields);
	for (size_t i = 0; i < f->nkeys; i++)
		items_scan(f->keys[i].sub, &f->keys[i], bits, fields);
}

/* 1 when a record's time has milliseconds (see format.h), else 0. */
int lbt_format_time_ms(const lbt_format *f)
{
	unsigned b;
	uint64_t m;

	if (f->enc == ENC_TSV)
		return 1;
	format_scan(f, &b, &m);
	return (b & 1) || (b & 6) == 6;
}

/* The fields filled on every line (see format.h). */
uint64_t lbt_format_fields_always(const lbt_format *f)
{
	unsigned b;
	uint64_t m;

	if (f->enc == ENC_TSV)
		return f->fields;
	format_scan(f, &b, &m);
	return m & f->fields;
}
