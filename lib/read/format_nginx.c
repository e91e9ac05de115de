/*
 * format_nginx.c - compile an NGINX `log_format` string.
 *
 * Text templates: "$name" and "${name}" are variables, everything else is
 * literal (the upstream variables and the X-Forwarded-For lists hold
 * "a, b : c" lists, spaces inside: SC_ULIST finds their end; the
 * upstream ones keep their last element, the server that answered) (NGINX concatenates the quoted parts with nothing in between, so
 * spaces are literal too).  escape=default values carry "\xHH", escape=json
 * JSON escapes (a literal is then not matched after an odd number of
 * backslashes), escape=none raw bytes; with json and none the last literal
 * is found from the end of the line, so raw quotes inside the last value
 * do not cut it.
 *
 * A template that is a JSON object and escapes as json (or none) is compiled
 * into keys instead: each member whose value is "$var", $var or a string
 * mixing text and variables; lines are then read with jansson, so member
 * order and spacing do not matter.  NGINX writes the template literally,
 * so the same walk also compiles its literal layout into f->prog: the text
 * between values as literals, each value as a K_JSONVAL item naming its
 * key; format_json.c matches lines against it first (no allocation) and
 * gives those that do not match to jansson.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format_int.h"

/* A variable whose meaning is known; every other one is opaque. */
struct nvar {
	const char *name;
	uint8_t kind, scan, field, clock, tfmt, rank;
	uint16_t flags;
};

static const struct nvar nvars[] = {
	{ "remote_addr", K_CLIENT, SC_IP, 0, 0, 0, 2, 0 },
	{ "remote_port", K_I32, SC_NUM, LBT_F_PORT, 0, 0, 2, 0 },
	{ "time_local", K_TIME, SC_ZDATE, 0, LBT_CLOCK_END, TM_CLF_ZONED, 1, 0 },
	{ "time_iso8601", K_TIME, SC_PLAIN, 0, LBT_CLOCK_END, TM_ISO, 1, 0 },
	{ "msec", K_TIME, SC_PLAIN, 0, LBT_CLOCK_END, TM_EPOCH, 2, 0 },
	{ "request", K_REQUEST, SC_REQ, 0, 0, 0, 3, 0 },
	{ "request_method", K_STR, SC_PLAIN, LBT_F_METHOD, 0, 0, 2, 0 },
	{ "request_uri", K_URI, SC_PLAIN, 0, 0, 0, 2, 0 },
	{ "uri", K_PATH, SC_PLAIN, 0, 0, 0, 1, FL_NOQUERY },
	{ "document_uri", K_PATH, SC_PLAIN, 0, 0, 0, 1, FL_NOQUERY },
	{ "args", K_QUERY, SC_PLAIN, 0, 0, 0, 1, 0 },
	{ "query_string", K_QUERY, SC_PLAIN, 0, 0, 0, 1, 0 },
	{ "server_protocol", K_STR, SC_PLAIN, LBT_F_VERSION, 0, 0, 2, 0 },
	{ "status", K_I32, SC_NUM, LBT_F_STATUS, 0, 0, 2, 0 },
	{ "body_bytes_sent", K_BYTES, SC_NUM, 0, 0, 0, 2, 0 },
	{ "bytes_sent", K_BYTES, SC_NUM, 0, 0, 0, 1, 0 },
	{ "request_time", K_SEC_MS, SC_PLAIN, LBT_F_TA, 0, 0, 2, 0 },
	{ "http_user_agent", K_STR, SC_PLAIN, LBT_F_UA, 0, 0, 2, 0 },
	{ "host", K_STR, SC_IP, LBT_F_HOST, 0, 0, 3, 0 },
	{ "http_host", K_STR, SC_PLAIN, LBT_F_HOST, 0, 0, 2, 0 },
	{ "server_name", K_STR, SC_PLAIN, LBT_F_FRONTEND, 0, 0, 2, 0 },
	{ "hostname", K_STR, SC_PLAIN, LBT_F_LB, 0, 0, 2, 0 },
	{ "http_x_forwarded_for", K_CLIENT, SC_ULIST, 0, 0, 0, 1, FL_XFF },
	{ "proxy_add_x_forwarded_for", K_CLIENT, SC_ULIST, 0, 0, 0, 2, FL_XFF | FL_XFF_CONN },
	{ "upstream_addr", K_STR, SC_ULIST, LBT_F_SERVER, 0, 0, 2, FL_LAST },
	{ "upstream_connect_time", K_SEC_MS, SC_ULIST, LBT_F_TC, 0, 0, 2, FL_LAST },
	{ "upstream_header_time", K_SEC_MS, SC_ULIST, LBT_F_TRESP, 0, 0, 2, FL_LAST },
	{ "upstream_response_time", K_SEC_MS, SC_ULIST, LBT_F_TRESP, 0, 0, 1, FL_LAST },
	{ "upstream_status", K_OPAQUE, SC_ULIST, 0, 0, 0, 0, 0 },
	{ "upstream_response_length", K_OPAQUE, SC_ULIST, 0, 0, 0, 0, 0 },
	{ "upstream_bytes_received", K_OPAQUE, SC_ULIST, 0, 0, 0, 0, 0 },
	{ "upstream_bytes_sent", K_OPAQUE, SC_ULIST, 0, 0, 0, 0, 0 },
	{ "upstream_cache_status", K_OPAQUE, SC_ULIST, 0, 0, 0, 0, 0 },
	{ "proxy_upstream_name", K_STR, SC_PLAIN, LBT_F_BACKEND, 0, 0, 2, 0 },
};

/* Escape mode of an escape= value (NULL: default). @return enum fmt_esc or -1 */
static int escape_mode(const char *e)
{
	if (e == NULL || strcmp(e, "default") == 0)
		return ESC_NGX_HEX;
	if (strcmp(e, "json") == 0)
		return ESC_NGX_JSON;
	if (strcmp(e, "none") == 0)
		return ESC_NONE;
	return -1;
}

/* Fill it (zeroed by its allocator) for variable s[0..n) decoded as esc. */
static void item_var(struct fmt_item *it, const char *s, size_t n, int esc, uint32_t col)
{
	const struct nvar *v = NULL;

	for (size_t i = 0; i < sizeof nvars / sizeof nvars[0]; i++)
		if (strlen(nvars[i].name) == n && memcmp(nvars[i].name, s, n) == 0)
			v = &nvars[i];
	if (v != NULL) {
		it->kind = v->kind;
		it->scan = v->scan;
		it->field = v->field;
		it->clock = v->clock;
		it->tfmt = v->tfmt;
		it->rank = v->rank;
		it->flags = v->flags;
	}
	it->esc = (uint8_t)esc;
	it->col = col;
	snprintf(it->what, sizeof it->what, "$%.*s", (int)(n > 36 ? 36 : n), s);
	lbt_fmti_item_finish(it);
}

/*
 * Parse the variable name at s[i] (just after '$').  Sets *ns and *nl to the
 * name and returns the offset after it, or (size_t)-1 with err.
 */
static size_t var_name(const char *s, size_t n, size_t i, uint32_t col0, size_t *ns,
    size_t *nl, lbt_err *err)
{
	size_t j;

	if (i < n && s[i] == '{') {
		for (j = i + 1; j < n && s[j] != '}'; j++)
			;
		if (j == n) {
			lbt_err_set(err, "unterminated '${' at column %zu", col0 + i);
			return (size_t)-1;
		}
		*ns = i + 1;
		*nl = j - i - 1;
		j++;
	} else {
		for (j = i; j < n && (isalnum((unsigned char)s[j]) || s[j] == '_'); j++)
			;
		*ns = i;
		*nl = j - i;
	}
	if (*nl == 0) {
		lbt_err_set(err, "invalid variable name at column %zu", col0 + i - 1);
		return (size_t)-1;
	}
	return j;
}

/* Append literal s[0..n) at column col. @return 0 or -1 */
static int add_lit(struct fmt_prog *pg, const char *s, size_t n, uint32_t col, lbt_err *err)
{
	struct fmt_step *st;

	if (n == 0)
		return 0;
	st = lbt_fmti_prog_add(pg, OP_LIT, col);
	if (st == NULL || (st->lit = lbt_fmti_strndup(s, n)) == NULL)
		return lbt_err_set(err, "out of memory");
	st->litlen = n;
	return 0;
}

/*
 * Compile text s[0..n) (template columns start at col0) into pg, values
 * unescaped as esc.  @return 0 or -1 with err.
 */
int lbt_fmti_nginx_prog(struct fmt_prog *pg, const char *s, size_t n, uint32_t col0, int esc,
    lbt_err *err)
{
	size_t i = 0, lit = 0, ns, nl;

	while (i < n) {
		struct fmt_step *st;

		if (s[i] != '$') {
			i++;
			continue;
		}
		if (add_lit(pg, s + lit, i - lit, (uint32_t)(col0 + lit), err) < 0)
			return -1;
		lit = var_name(s, n, i + 1, col0, &ns, &nl, err);
		if (lit == (size_t)-1)
			return -1;
		st = lbt_fmti_prog_add(pg, OP_ITEM, (uint32_t)(col0 + i));
		if (st == NULL)
			return lbt_err_set(err, "out of memory");
		item_var(&st->it, s + ns, nl, esc, (uint32_t)(col0 + i));
		i = lit;
	}
	if (add_lit(pg, s + lit, n - lit, (uint32_t)(col0 + lit), err) < 0)
		return -1;
	pg->bslash = esc == ESC_NGX_JSON;
	pg->anchor = esc != ESC_NGX_HEX;
	return lbt_fmti_check_adjacent(pg, err);
}

/* State of the JSON template parser. */
struct jt {
	lbt_format *f;
	lbt_err *err;
	const char *t;
	size_t i;
	char *path[FMT_MAX_PATH];
	int depth;
	size_t lit;                /* layout: start of the literal text not yet added */
};

/*
 * Layout: the literal text from j->lit to `from`, then a K_JSONVAL item
 * for the key item just added (bare: a $var outside quotes); the next
 * literal starts at `next`.  @return 0 or -1 with err
 */
static int jt_layout(struct jt *j, size_t from, size_t next, int bare)
{
	struct fmt_prog *pg = &j->f->prog;
	const struct fmt_item *key = &j->f->keys[j->f->nkeys - 1];
	struct fmt_step *st;

	if (add_lit(pg, j->t + j->lit, from - j->lit, (uint32_t)(j->lit + 1), j->err) < 0)
		return -1;
	st = lbt_fmti_prog_add(pg, OP_ITEM, (uint32_t)(from + 1));
	if (st == NULL)
		return lbt_err_set(j->err, "out of memory");
	st->it.kind = K_JSONVAL;
	st->it.scan = SC_PLAIN;
	st->it.esc = ESC_NONE;
	st->it.slot = (int16_t)(j->f->nkeys - 1);
	st->it.flags = bare ? FL_JBARE : 0;
	st->it.col = (uint32_t)(from + 1);
	memcpy(st->it.what, key->what, sizeof st->it.what);
	j->lit = next;
	return 0;
}

/* Skip JSON white space. */
static void jt_ws(struct jt *j)
{
	while (j->t[j->i] == ' ' || j->t[j->i] == '\t' || j->t[j->i] == '\n' ||
	    j->t[j->i] == '\r')
		j->i++;
}

/* A template string at j->i (on '"'): its raw content [*s, *s+*n). @return 0 or -1 */
static int jt_string(struct jt *j, size_t *s, size_t *n)
{
	size_t i = j->i + 1;

	while (j->t[i] != '\0' && j->t[i] != '"')
		i += (j->t[i] == '\\' && j->t[i + 1] != '\0') ? 2 : 1;
	if (j->t[i] != '"')
		return lbt_err_set(j->err, "unterminated string at column %zu", j->i + 1);
	*s = j->i + 1;
	*n = i - j->i - 1;
	j->i = i + 1;
	return 0;
}

/* New key item for member `key` (length kn) at the current path. @return it or NULL */
static struct fmt_item *jt_key(struct jt *j, size_t ks, size_t kn)
{
	struct fmt_item *it = lbt_fmti_key_add(j->f);

	if (it == NULL)
		return NULL;
	it->key = lbt_fmti_strndup(j->t + ks, kn);
	it->keylen = kn;
	for (int d = 0; d < j->depth; d++) {
		it->path[d] = lbt_fmti_strndup(j->path[d], strlen(j->path[d]));
		it->npath = d + 1;
		if (it->path[d] == NULL)
			return NULL;
	}
	return it->key ? it : NULL;
}

/* True when t[s..s+n) is exactly one variable "$x" or "${x}". */
static int single_var(const char *t, size_t s, size_t n)
{
	size_t i = 1;

	if (n < 2 || t[s] != '$')
		return 0;
	if (t[s + 1] == '{')
		return t[s + n - 1] == '}' && memchr(t + s + 2, '}', n - 3) == NULL;
	while (i < n && (isalnum((unsigned char)t[s + i]) || t[s + i] == '_'))
		i++;
	return i == n;
}

/* A string member value at t[s..s+n) for key ks/kn. @return 0 or -1 */
static int jt_value_string(struct jt *j, size_t ks, size_t kn, size_t s, size_t n)
{
	struct fmt_item *it;
	size_t ns, nl;

	if (memchr(j->t + s, '$', n) == NULL)
		return 0;
	it = jt_key(j, ks, kn);
	if (it == NULL)
		return lbt_err_set(j->err, "out of memory");
	if (single_var(j->t, s, n)) {
		if (var_name(j->t, s + n, s + 1, 1, &ns, &nl, j->err) == (size_t)-1)
			return -1;
		item_var(it, j->t + ns, nl, ESC_NONE, (uint32_t)(s + 1));
	} else {
		it->sub = calloc(1, sizeof *it->sub);
		if (it->sub == NULL)
			return lbt_err_set(j->err, "out of memory");
		if (lbt_fmti_nginx_prog(it->sub, j->t + s, n, (uint32_t)(s + 1), ESC_NONE, j->err) < 0)
			return -1;
		snprintf(it->what, sizeof it->what, "%.*s", (int)(kn > 36 ? 36 : kn), j->t + ks);
	}
	return jt_layout(j, s, s + n, 0);
}

/* A bare variable value ($status) for key ks/kn. @return 0 or -1 */
static int jt_value_var(struct jt *j, size_t ks, size_t kn)
{
	struct fmt_item *it;
	size_t ns, nl, e = var_name(j->t, strlen(j->t), j->i + 1, 1, &ns, &nl, j->err);

	if (e == (size_t)-1)
		return -1;
	it = jt_key(j, ks, kn);
	if (it == NULL)
		return lbt_err_set(j->err, "out of memory");
	item_var(it, j->t + ns, nl, ESC_NONE, (uint32_t)(j->i + 1));
	if (jt_layout(j, j->i, e, 1) < 0)
		return -1;
	j->i = e;
	return 0;
}

/* Skip a constant or an array value up to the next ',' or '}' at depth 0. */
static void jt_skip(struct jt *j)
{
	int depth = 0;

	for (; j->t[j->i] != '\0'; j->i++) {
		char ch = j->t[j->i];

		if (ch == '"') {
			size_t s, n;

			if (jt_string(j, &s, &n) < 0)
				return;
			j->i--;
		} else if (ch == '[' || ch == '{')
			depth++;
		else if ((ch == ']' || ch == '}') && depth > 0)
			depth--;
		else if ((ch == ',' || ch == '}') && depth == 0)
			return;
	}
}

static int jt_object(struct jt *j);

/* One member value after "key": (key ks/kn). @return 0 or -1 */
static int jt_value(struct jt *j, size_t ks, size_t kn)
{
	size_t s, n;
	int r;

	jt_ws(j);
	switch (j->t[j->i]) {
	case '"':
		return jt_string(j, &s, &n) < 0 ? -1 : jt_value_string(j, ks, kn, s, n);
	case '$':
		return jt_value_var(j, ks, kn);
	case '{':
		if (j->depth == FMT_MAX_PATH)
			return lbt_err_set(j->err, "objects nested deeper than %d at column %zu",
			    FMT_MAX_PATH, j->i + 1);
		j->path[j->depth] = lbt_fmti_strndup(j->t + ks, kn);
		if (j->path[j->depth] == NULL)
			return lbt_err_set(j->err, "out of memory");
		j->depth++;
		r = jt_object(j);
		free(j->path[--j->depth]);
		return r;
	default:
		jt_skip(j);
		return 0;
	}
}

/* An object at j->i ('{'). @return 0 or -1 */
static int jt_object(struct jt *j)
{
	size_t ks, kn;

	j->i++;
	for (;;) {
		jt_ws(j);
		if (j->t[j->i] == '}') {
			j->i++;
			return 0;
		}
		if (j->t[j->i] != '"')
			return lbt_err_set(j->err, "expected a member name at column %zu", j->i + 1);
		if (jt_string(j, &ks, &kn) < 0)
			return -1;
		jt_ws(j);
		if (j->t[j->i] != ':')
			return lbt_err_set(j->err, "expected ':' at column %zu", j->i + 1);
		j->i++;
		if (jt_value(j, ks, kn) < 0)
			return -1;
		jt_ws(j);
		if (j->t[j->i] == ',')
			j->i++;
		else if (j->t[j->i] != '}')
			return lbt_err_set(j->err, "expected ',' or '}' at column %zu", j->i + 1);
	}
}

/* True when tmpl, blanks aside, is "{...}". */
static int looks_object(const char *t)
{
	size_t n = strlen(t), s = 0;

	while (s < n && isspace((unsigned char)t[s]))
		s++;
	while (n > s && isspace((unsigned char)t[n - 1]))
		n--;
	return n > s + 1 && t[s] == '{' && t[n - 1] == '}';
}

/* Compile a JSON-object template into keys. @return 0 or -1 */
static int json_template(lbt_format *f, const char *tmpl, lbt_err *err)
{
	struct jt j;

	memset(&j, 0, sizeof j);
	j.f = f;
	j.err = err;
	j.t = tmpl;
	jt_ws(&j);
	j.lit = j.i;
	if (jt_object(&j) < 0)
		return -1;
	if (add_lit(&f->prog, tmpl + j.lit, j.i - j.lit, (uint32_t)(j.lit + 1), err) < 0)
		return -1;
	jt_ws(&j);
	if (tmpl[j.i] != '\0')
		return lbt_err_set(err, "text after the JSON object at column %zu", j.i + 1);
	if (f->nkeys == 0)
		return lbt_err_set(err, "JSON template without variables");
	f->enc = ENC_NJSON;
	f->prog.bslash = 1;        /* a quote after an odd run of backslashes is escaped */
	f->prog.nocut = 1;
	lbt_fmti_json_layout_check(f);
	return 0;
}

/*
 * Compile NGINX template tmpl with escape mode `escape` (NULL: default).
 * @return 0, or -1 with err naming the template column at fault.
 */
int lbt_fmti_nginx_compile(lbt_format *f, const char *tmpl, const char *escape, lbt_err *err)
{
	int esc = escape_mode(escape);

	if (esc < 0)
		return lbt_err_set(err, "unknown escape '%s' (default, json or none)", escape);
	if (escape != NULL && (f->escape = lbt_fmti_strndup(escape, strlen(escape))) == NULL)
		return lbt_err_set(err, "out of memory");
	if (esc != ESC_NGX_HEX && looks_object(tmpl))
		return json_template(f, tmpl, err);
	if (*tmpl == '\0')
		return lbt_err_set(err, "empty template");
	f->enc = ENC_TEXT;
	if (lbt_fmti_nginx_prog(&f->prog, tmpl, strlen(tmpl), 1, esc, err) < 0)
		return -1;
	for (size_t i = 0; i < f->prog.n; i++)
		if (f->prog.v[i].op == OP_ITEM && strcmp(f->prog.v[i].it.what, "$host") == 0)
			f->prog.v[i].it.flags |= FL_HOSTNAME;   /* never a ',': format_conv.c */
	return 0;
}
