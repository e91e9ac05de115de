/*
 * format_haproxy.c - compile an HAProxy `log-format` string.
 *
 * Grammar (HAProxy src/log.c, lf_expr_compile): text, spaces (separators,
 * merged), "%%", and items "%[(name[:type])][{flags}]alias" or
 * "...[sample,converter...]".  An alias is a maximal run of letters and
 * digits ("%cp%ms" is the unknown alias "cpms", as in HAProxy).  Flags are
 * "+F" / "-F" separated by commas: Q X E M bin json cbor.  "%{...}o" sets
 * the flags of every later item; with +json or +cbor the line is JSON or
 * CBOR and only named items count (their names are the keys).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "format_int.h"

/* Global and per-item options. */
#define O_QUOTE 0x01
#define O_HEX   0x02
#define O_ESC   0x04
#define O_BIN   0x08
#define O_JSON  0x10
#define O_CBOR  0x20

/* An alias: what its value is and how it looks. */
struct alias {
	const char *name;
	uint8_t kind, scan, field, clock, tfmt, rank, esc, quotable;
	uint16_t flags;
	const char *what;
	uint8_t width;        /* SC_FIXED */
};

#define I32(n, f, w) { n, K_I32, SC_NUM, f, 0, 0, 2, ESC_NONE, 0, 0, w, 0 }
#define NUM(n, w) { n, K_OPAQUE, SC_NUM, 0, 0, 0, 0, ESC_NONE, 0, 0, w, 0 }
#define STR(n, f, w) { n, K_STR, SC_PLAIN, f, 0, 0, 2, ESC_NONE, 1, 0, w, 0 }
#define OPQ(n, w) { n, K_OPAQUE, SC_PLAIN, 0, 0, 0, 0, ESC_NONE, 1, 0, w, 0 }
#define HTTP(n, k, f, fl, w) { n, k, SC_PLAIN, f, 0, 0, 2, ESC_HASH, 1, fl, w, 0 }
#define DATE(n, sc, tf, ck, rk, fl, w) { n, K_TIME, sc, 0, ck, tf, rk, ESC_NONE, 0, fl, w, 0 }

/* Every alias of HAProxy 3.x (docs/formats.md, "Log-format items"), sorted as in log.c. */
static const struct alias aliases[] = {
	{ "B", K_BYTES, SC_NUM, 0, 0, 0, 2, ESC_NONE, 0, 0, "bytes", 0 },
	OPQ("CC", "request cookie"), OPQ("CS", "response cookie"),
	STR("H", LBT_F_LB, "host name"),
	HTTP("HM", K_STR, LBT_F_METHOD, 0, "method"),
	HTTP("HP", K_PATH, 0, 0, "path"),
	HTTP("HPO", K_PATH, 0, 0, "path"),
	HTTP("HQ", K_QUERY, 0, FL_QMARK, "query"),
	HTTP("HU", K_URI, 0, 0, "URI"),
	HTTP("HV", K_STR, LBT_F_VERSION, 0, "HTTP version"),
	OPQ("ID", "unique id"), OPQ("OG", "log origin"),
	I32("ST", LBT_F_STATUS, "status"),
	DATE("T", SC_ZDATE, TM_CLF_ZONED, LBT_CLOCK_ACCEPT, 1, FL_ACCEPT_S, "accept date"),
	I32("Ta", LBT_F_TA, "Ta"), I32("Tc", LBT_F_TC, "Tc"), NUM("Td", "Td"),
	I32("Th", LBT_F_TH, "Th"), I32("Ti", LBT_F_TI, "Ti"),
	DATE("Tl", SC_ZDATE, TM_CLF_ZONED, LBT_CLOCK_ACCEPT, 1, FL_ACCEPT_S, "accept date"),
	I32("Tq", LBT_F_TQ, "Tq"), I32("TR", LBT_F_TR, "TR"), I32("Tr", LBT_F_TRESP, "Tr"),
	DATE("Ts", SC_NUM, TM_EPOCH, LBT_CLOCK_ACCEPT, 1, FL_ACCEPT_S, "accept timestamp"),
	I32("Tt", LBT_F_TT, "Tt"), NUM("Tu", "Tu"), I32("Tw", LBT_F_TW, "Tw"),
	NUM("U", "request bytes"),
	I32("ac", LBT_F_AC, "actconn"), STR("b", LBT_F_BACKEND, "backend"),
	I32("bc", LBT_F_BC, "beconn"),
	{ "bi", K_OPAQUE, SC_IP, 0, 0, 0, 0, ESC_NONE, 1, 0, "backend source address", 0 },
	NUM("bp", "backend source port"), I32("bq", LBT_F_BQ, "backend queue"),
	{ "ci", K_CLIENT, SC_IP, 0, 0, 0, 2, ESC_NONE, 1, 0, "client address", 0 },
	I32("cp", LBT_F_PORT, "client port"),
	STR("f", LBT_F_FRONTEND, "frontend"), I32("fc", LBT_F_FC, "feconn"),
	{ "fi", K_OPAQUE, SC_IP, 0, 0, 0, 0, ESC_NONE, 1, 0, "frontend address", 0 },
	NUM("fp", "frontend port"),
	{ "ft", K_STR, SC_PLAIN, LBT_F_FRONTEND, 0, 0, 2, ESC_NONE, 1, FL_TILDE, "frontend", 0 },
	{ "hr", K_CAPBLOCK, SC_BLOCK, 0, 0, 0, 2, ESC_HASH, 1, 0, "request capture block", 0 },
	{ "hrl", K_CAPLIST, SC_LIST, 0, 0, 0, 2, ESC_HASH, 1, 0, "request captures", 0 },
	{ "hs", K_CAPBLOCK, SC_BLOCK, 0, 0, 0, 2, ESC_HASH, 1, FL_RESP, "response capture block", 0 },
	{ "hsl", K_CAPLIST, SC_LIST, 0, 0, 0, 2, ESC_HASH, 1, FL_RESP, "response captures", 0 },
	NUM("lc", "log counter"),
	{ "ms", K_MS, SC_NUM, 0, 0, 0, 0, ESC_NONE, 0, 0, "accept milliseconds", 0 },
	NUM("pid", "pid"),
	{ "r", K_REQUEST, SC_REQ, 0, 0, 0, 3, ESC_HASH, 1, 0, "request", 0 },
	I32("rc", LBT_F_RC, "retries"), NUM("rt", "request counter"),
	STR("s", LBT_F_SERVER, "server"), I32("sc", LBT_F_SC, "srv_conn"),
	{ "si", K_OPAQUE, SC_IP, 0, 0, 0, 0, ESC_NONE, 1, 0, "server address", 0 },
	NUM("sp", "server port"), I32("sq", LBT_F_SQ, "server queue"),
	OPQ("sslc", "TLS cipher"), OPQ("sslv", "TLS version"),
	DATE("t", SC_PLAIN, TM_CLF_LOCAL, LBT_CLOCK_ACCEPT, 2, 0, "accept date"),
	DATE("tr", SC_PLAIN, TM_CLF_LOCAL, LBT_CLOCK_REQUEST, 2, 0, "request date"),
	DATE("trg", SC_ZDATE, TM_CLF_ZONED, LBT_CLOCK_REQUEST, 1, 0, "request date"),
	DATE("trl", SC_ZDATE, TM_CLF_ZONED, LBT_CLOCK_REQUEST, 1, 0, "request date"),
	{ "ts", K_STR, SC_FIXED, LBT_F_TERM, 0, 0, 2, ESC_NONE, 0, 0, "termination state", 2 },
	{ "tsc", K_STR, SC_FIXED, LBT_F_TERM, 0, 0, 2, ESC_NONE, 0, 0, "termination state", 4 },
};

/* Sample fetches whose meaning is evident (no converter, or only "lower"). */
static const struct alias samples[] = {
	{ "src", K_CLIENT, SC_IP, 0, 0, 0, 2, ESC_NONE, 1, 0, "client address", 0 },
	I32("src_port", LBT_F_PORT, "client port"),
	STR("fe_name", LBT_F_FRONTEND, "frontend"), STR("be_name", LBT_F_BACKEND, "backend"),
	STR("srv_name", LBT_F_SERVER, "server"), I32("txn.status", LBT_F_STATUS, "status"),
	I32("status", LBT_F_STATUS, "status"),
	STR("req.hdr(host)", LBT_F_HOST, "Host header"),
	STR("req.fhdr(host)", LBT_F_HOST, "Host header"),
	STR("hdr(host)", LBT_F_HOST, "Host header"),
	STR("req.hdr(user-agent)", LBT_F_UA, "User-Agent header"),
	STR("req.fhdr(user-agent)", LBT_F_UA, "User-Agent header"),
	STR("hdr(user-agent)", LBT_F_UA, "User-Agent header"),
	{ "ssl_fc_sni", K_STR, SC_PLAIN, LBT_F_HOST, 0, 0, 1, ESC_NONE, 1, 0, "TLS SNI", 0 },
	STR("hostname", LBT_F_LB, "host name"), STR("method", LBT_F_METHOD, "method"),
	{ "path", K_PATH, SC_PLAIN, 0, 0, 0, 2, ESC_NONE, 1, 0, "path", 0 },
	{ "query", K_QUERY, SC_PLAIN, 0, 0, 0, 2, ESC_NONE, 1, 0, "query", 0 },
	{ "url", K_URI, SC_PLAIN, 0, 0, 0, 2, ESC_NONE, 1, 0, "URI", 0 },
};

/* Compiler state. */
struct hc {
	lbt_format *f;
	lbt_err *err;
	const char *t;        /* template */
	size_t i;             /* cursor */
	int gopts;            /* options of %o so far */
	int encoding;         /* O_JSON or O_CBOR when a %o set it */
	int bin;              /* +bin in a global %o */
	char text[1024];      /* pending literal */
	size_t ntext;
	uint32_t textcol;
};

/* Column (1-based) of template offset i. */
static uint32_t colof(size_t i)
{
	return (uint32_t)(i + 1);
}

/* Turn the pending literal into a step. @return 0 or -1 */
static int flush_text(struct hc *h)
{
	struct fmt_step *st;

	if (h->ntext == 0)
		return 0;
	st = lbt_fmti_prog_add(&h->f->prog, OP_LIT, h->textcol);
	if (st == NULL || (st->lit = lbt_fmti_strndup(h->text, h->ntext)) == NULL)
		return lbt_err_set(h->err, "out of memory");
	st->litlen = h->ntext;
	h->ntext = 0;
	return 0;
}

/* Add one literal byte at template offset i. @return 0 or -1 */
static int add_text(struct hc *h, char ch, size_t i)
{
	if (h->ntext == 0)
		h->textcol = colof(i);
	if (h->ntext == sizeof h->text)
		return lbt_err_set(h->err, "literal text longer than %zu bytes at column %u",
		    sizeof h->text, (unsigned)h->textcol);
	h->text[h->ntext++] = ch;
	return 0;
}

/* Add a separator (merged with a previous one). @return 0 or -1 */
static int add_sep(struct hc *h, size_t i)
{
	struct fmt_prog *pg = &h->f->prog;

	if (flush_text(h) < 0)
		return -1;
	if (pg->n > 0 && pg->v[pg->n - 1].op == OP_SEP)
		return 0;
	if (lbt_fmti_prog_add(pg, OP_SEP, colof(i)) == NULL)
		return lbt_err_set(h->err, "out of memory");
	return 0;
}

/* Option bit of a flag name, 0 for M and unknown flags (HAProxy ignores those). */
static int flag_bit(const char *s, size_t n)
{
	static const struct { const char *name; int bit; } names[] = {
		{ "Q", O_QUOTE }, { "X", O_HEX }, { "E", O_ESC }, { "bin", O_BIN },
		{ "json", O_JSON }, { "cbor", O_CBOR }, { "M", 0 }
	};

	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strlen(names[i].name) == n && memcmp(names[i].name, s, n) == 0)
			return names[i].bit;
	return 0;
}

/* Apply flags "+Q,-X" (or "+Q+X") from s[0..n) to *opts. */
static void apply_flags(const char *s, size_t n, int *opts)
{
	size_t i = 0;

	while (i < n) {
		int add = s[i] == '+', del = s[i] == '-';
		size_t j;

		if (!add && !del) {
			i++;
			continue;
		}
		for (j = ++i; j < n && s[j] != ',' && s[j] != '+' && s[j] != '-'; j++)
			;
		if (add)
			*opts |= flag_bit(s + i, j - i);
		else
			*opts &= ~flag_bit(s + i, j - i);
		i = j;
	}
}

/* Item fields from an alias table entry and the options in effect. */
static void item_from(struct fmt_item *it, const struct alias *a, int opts, uint32_t col)
{
	it->kind = a->kind;
	it->scan = a->scan;
	it->field = a->field;
	it->clock = a->clock;
	it->tfmt = a->tfmt;
	it->rank = a->rank;
	it->esc = a->esc;
	it->flags = a->flags;
	it->width = a->width;
	it->col = col;
	if (a->quotable && (opts & O_QUOTE))
		it->flags |= FL_QUOTE;
	if (opts & O_HEX)
		it->flags |= FL_HEX;
	if ((opts & O_ESC) && a->quotable)
		it->flags |= FL_BSLASH;
	if (it->kind == K_MS && !(opts & O_HEX)) {
		it->scan = SC_FIXED;    /* always 3 digits: "%Ts%ms" is 13 digits */
		it->width = 3;
	}
	snprintf(it->what, sizeof it->what, "%s", a->what);
	lbt_fmti_item_finish(it);
}

/* The alias named s[0..n), or NULL. */
static const struct alias *find_alias(const char *s, size_t n)
{
	for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
		if (strlen(aliases[i].name) == n && memcmp(aliases[i].name, s, n) == 0)
			return &aliases[i];
	return NULL;
}

/* A sample whose meaning is evident, or NULL: fetch s[0..n) without converters but "lower". */
static const struct alias *find_sample(const char *s, size_t n)
{
	const char *comma = memchr(s, ',', n);
	size_t fn = comma ? (size_t)(comma - s) : n;

	if (comma != NULL && !(n - fn == 6 && memcmp(comma, ",lower", 6) == 0))
		return NULL;
	for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++)
		if (strlen(samples[i].name) == fn && strncasecmp(samples[i].name, s, fn) == 0)
			return &samples[i];
	return NULL;
}

/* capture.req.hdr(N): slot N, or -1. */
static int capture_slot(const char *s, size_t n)
{
	static const char pre[] = "capture.req.hdr(";
	size_t pl = sizeof pre - 1, i;
	int v = 0;

	if (n < pl + 2 || memcmp(s, pre, pl) != 0 || s[n - 1] != ')')
		return -1;
	for (i = pl; i < n - 1; i++) {
		if (s[i] < '0' || s[i] > '9' || v > 1000)
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return i > pl ? v : -1;
}

/* Item for a sample expression s[0..n). */
static void item_sample(struct fmt_item *it, const char *s, size_t n, int opts, uint32_t col)
{
	static const struct alias opaque = OPQ("", "");
	const struct alias *a = find_sample(s, n);
	int slot = capture_slot(s, n);

	item_from(it, a ? a : &opaque, opts, col);
	it->flags |= FL_RAWQ;
	if (slot >= 0) {
		it->kind = K_SLOT;
		it->slot = (int16_t)(slot < FMT_MAX_CAPS ? slot : FMT_MAX_CAPS);
	}
	snprintf(it->what, sizeof it->what, "%%[%.*s]", (int)(n > 30 ? 30 : n), s);
}

/* End of a sample expression starting after "%[" at i: the ']' outside parentheses. */
static size_t sample_end(const char *t, size_t i)
{
	int depth = 0;

	for (; t[i] != '\0'; i++) {
		if (t[i] == '\\' && t[i + 1] != '\0')
			i++;
		else if (t[i] == '(')
			depth++;
		else if (t[i] == ')' && depth > 0)
			depth--;
		else if (t[i] == ']' && depth == 0)
			return i;
	}
	return (size_t)-1;
}

/* Parse "(name[:type])" at h->i (after '%'). @return 0 or -1 */
static int parse_name(struct hc *h, size_t *ns, size_t *nl)
{
	static const char *const types[] = { "str", "sint", "bool", "raw" };
	size_t i = h->i + 1, j;

	*ns = i;
	while (isalnum((unsigned char)h->t[i]) || h->t[i] == '_' || h->t[i] == '-')
		i++;
	*nl = i - *ns;
	if (h->t[i] == ':') {
		for (j = ++i; isalpha((unsigned char)h->t[i]); i++)
			;
		size_t k;

		for (k = 0; k < 4; k++)
			if (strlen(types[k]) == i - j && memcmp(types[k], h->t + j, i - j) == 0)
				break;
		if (k == 4 && i > j)
			return lbt_err_set(h->err, "unknown type '%.*s' at column %u (str, sint, bool "
			    "or raw)", (int)(i - j), h->t + j, (unsigned)colof(j));
	}
	if (h->t[i] == '\0')
		return lbt_err_set(h->err, "unterminated '%%(' at column %u", (unsigned)colof(h->i));
	if (h->t[i] != ')')
		return lbt_err_set(h->err, "invalid character '%c' in name at column %u", h->t[i],
		    (unsigned)colof(i));
	h->i = i + 1;
	return 0;
}

/* Parse "{flags}" at h->i into *opts. @return 0 or -1 */
static int parse_flags(struct hc *h, int *opts)
{
	const char *close = strchr(h->t + h->i, '}');

	if (close == NULL)
		return lbt_err_set(h->err, "unterminated '%%{' at column %u", (unsigned)colof(h->i));
	apply_flags(h->t + h->i + 1, (size_t)(close - h->t) - h->i - 1, opts);
	h->i = (size_t)(close - h->t) + 1;
	return 0;
}

/* Attach the name (JSON/CBOR key) of a named item. @return 0 or -1 */
static int set_key(struct hc *h, struct fmt_item *it, size_t ns, size_t nl)
{
	if (nl == 0)
		return 0;
	it->key = lbt_fmti_strndup(h->t + ns, nl);
	it->keylen = nl;
	return it->key ? 0 : lbt_err_set(h->err, "out of memory");
}

/* Store a compiled item: a text step, or a key (encoded formats, named only). @return 0 or -1 */
static int store_item(struct hc *h, const struct fmt_item *it)
{
	struct fmt_step *st;

	if (flush_text(h) < 0)
		return -1;
	st = lbt_fmti_prog_add(&h->f->prog, OP_ITEM, it->col);
	if (st == NULL)
		return lbt_err_set(h->err, "out of memory");
	st->it = *it;
	return 0;
}

/* Parse the alias or sample after the optional name and flags. @return 0 or -1 */
static int parse_target(struct hc *h, struct fmt_item *it, int opts, size_t pct)
{
	size_t i = h->i, e;
	const struct alias *a;

	if (h->t[i] == '[') {
		e = sample_end(h->t, i + 1);
		if (e == (size_t)-1)
			return lbt_err_set(h->err, "unterminated '%%[' at column %u",
			    (unsigned)colof(pct));
		item_sample(it, h->t + i + 1, e - i - 1, opts, colof(pct));
		h->i = e + 1;
		return 0;
	}
	for (e = i; isalnum((unsigned char)h->t[e]); e++)
		;
	if (e == i && h->t[i] == '\0')
		return lbt_err_set(h->err, "'%%' at end of template (column %u)", (unsigned)colof(pct));
	if (e == i)
		return lbt_err_set(h->err, "unexpected '%c' after '%%' at column %u (write %%%% for "
		    "a literal %%)", h->t[i], (unsigned)colof(i));
	a = find_alias(h->t + i, e - i);
	if (a == NULL)
		return lbt_err_set(h->err, "unknown alias '%%%.*s' at column %u", (int)(e - i),
		    h->t + i, (unsigned)colof(pct));
	item_from(it, a, opts, colof(pct));
	h->i = e;
	return 0;
}

/* Parse one '%' construct at h->i. @return 0 or -1 */
static int parse_percent(struct hc *h)
{
	size_t pct = h->i, ns = 0, nl = 0;
	int opts = h->gopts;
	struct fmt_item it;

	memset(&it, 0, sizeof it);
	h->i++;
	if (h->t[h->i] == '%')
		return add_text(h, '%', h->i++);
	if (h->t[h->i] == '(' && parse_name(h, &ns, &nl) < 0)
		return -1;
	if (h->t[h->i] == '{' && parse_flags(h, &opts) < 0)
		return -1;
	if (h->t[h->i] == 'o' && !isalnum((unsigned char)h->t[h->i + 1])) {
		h->i++;
		h->gopts = opts;
		if (opts & (O_JSON | O_CBOR))
			h->encoding = h->encoding ? h->encoding : (opts & (O_JSON | O_CBOR));
		h->bin |= (opts & O_BIN) != 0;
		return 0;
	}
	if (parse_target(h, &it, opts, pct) < 0 || set_key(h, &it, ns, nl) < 0) {
		lbt_fmti_item_free(&it);
		return -1;
	}
	if (store_item(h, &it) < 0) {
		lbt_fmti_item_free(&it);
		return -1;
	}
	return 0;
}

/* Move the named items of the program into keys (JSON/CBOR); drop the rest. @return 0 or -1 */
static int to_keys(struct hc *h)
{
	lbt_format *f = h->f;
	struct fmt_prog *pg = &f->prog;

	for (size_t i = 0; i < pg->n; i++) {
		struct fmt_item *k;

		if (pg->v[i].op != OP_ITEM || pg->v[i].it.key == NULL)
			continue;
		k = lbt_fmti_key_add(f);
		if (k == NULL)
			return lbt_err_set(h->err, "out of memory");
		*k = pg->v[i].it;
		k->flags &= (uint16_t)~(FL_QUOTE | FL_BSLASH | FL_RAWQ);
		memset(&pg->v[i].it, 0, sizeof pg->v[i].it);
	}
	lbt_fmti_prog_free(pg);
	if (f->nkeys == 0)
		return lbt_err_set(h->err, "%s template without named items (%%(name)alias)",
		    h->encoding == O_JSON ? "JSON" : "CBOR");
	f->enc = h->encoding == O_JSON ? ENC_HJSON : (h->bin ? ENC_CBOR_BIN : ENC_CBOR);
	return 0;
}

/*
 * Compile HAProxy template `tmpl` into f (steps, or keys for JSON/CBOR).
 * @return 0, or -1 with err naming the template column at fault.
 */
int lbt_fmti_haproxy_compile(lbt_format *f, const char *tmpl, lbt_err *err)
{
	struct hc h;

	memset(&h, 0, sizeof h);
	h.f = f;
	h.err = err;
	h.t = tmpl;
	while (tmpl[h.i] != '\0') {
		int r;

		if (tmpl[h.i] == '%')
			r = parse_percent(&h);
		else if (tmpl[h.i] == ' ')
			r = add_sep(&h, h.i++);
		else {
			r = add_text(&h, tmpl[h.i], h.i);
			h.i++;
		}
		if (r < 0)
			return -1;
	}
	if (flush_text(&h) < 0)
		return -1;
	if (h.encoding)
		return to_keys(&h);
	if (f->prog.n == 0 || (f->prog.n == 1 && f->prog.v[0].op == OP_SEP))
		return lbt_err_set(err, "empty template");
	f->enc = ENC_TEXT;
	return lbt_fmti_check_adjacent(&f->prog, err);
}
