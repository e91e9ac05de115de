/*
 * format_match.c - apply a text program (steps) to one line.
 *
 * Steps run left to right with one cursor.  A literal must be at the
 * cursor; an item's value ends where the next step can start: the next
 * literal (a search for its first byte, then memcmp), the next space for a
 * HAProxy separator, the closing quote of a quoted value, the end of the
 * line.  A few value shapes carry their own rule (an address before ':'
 * splits on the last colon, a zoned date has one inner space, an unquoted
 * request two).  No backtracking, no regex, no allocation.
 *
 * HAProxy separators follow log.c: a run of template spaces prints one
 * space, and none when nothing was printed since the previous separator
 * (an absent "{...}" capture block, a line built without a stream).
 *
 * Speed (halog's ideas; callgrind on bench/genlog.sh, haproxy-httplog,
 * lbt-rate, instructions a line in lbt_fmti_match itself: 4550 before):
 *   - each item's end rule is planned once per program (prog_plan),
 *     values nobody asked for are not converted, bytes are searched eight
 *     at a time (scan_byte): 3620;
 *   - an item followed by a separator or a literal ("fused", most items)
 *     finds its end and takes what follows in the same stride
 *     (match_fused): 2470;
 *   - the loop walks steps by pointer, the fused item's delimiter, pattern
 *     word and conversion mask are planned too: 1860;
 *   - words nobody wants are skipped whole (plan_skip, with the wanted
 *     fields): the next space ends "%TR/%Tw/%Tc/%Tr/%Ta", and counting its
 *     '/' in the same pass checks its shape as the steps would; a line that
 *     fails after a skip is matched again step by step (format.c), so the
 *     answer and the error are always the steps' (check_format proves it
 *     on every fixture line, changed and not): 1560, and lbt-rate as a
 *     whole 4,560 -> 4,245 a line.
 * Lines long enough to have been cut by the logger (CUT_MIN) and values
 * opening with a quote always take the general path (match_item), which
 * the fused one must agree with.  A program with `nocut` (the literal
 * layout of an NGINX JSON template) never takes a line as cut: a line
 * that ends early does not match, and is read by jansson instead.
 */
#include <string.h>

#include "format_int.h"

#define NPOS ((size_t)-1)
#define CUT 2              /* match_item: the line ends inside this value */

#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define SWAR 1
/*
 * Index (0..7) of the first of the 8 bytes at p equal to the byte repeated
 * in pat, or 8: halog's has_zero64 (a byte equal to it becomes zero, and
 * (x - 0x01..) & ~x & 0x80.. marks the lowest zero byte exactly).
 */
static inline unsigned word_match(const char *p, uint64_t pat)
{
	const uint64_t ones = 0x0101010101010101ull;
	uint64_t x;

	memcpy(&x, p, 8);
	x ^= pat;
	x = (x - ones) & ~x & (ones << 7);
	return x != 0 ? (unsigned)__builtin_ctzll(x) >> 3 : 8;
}
#else
#define SWAR 0
#endif

/*
 * Offset of the first byte ch in s[p..len), or len; pat is ch in every
 * byte of a word.  Values are mostly a few bytes long: the first 32 bytes
 * are tested eight at a time, the rest goes to memchr.  Measured (callgrind,
 * lbt-rate on bench/genlog.sh): ~1.5 instructions a byte, against ~5 for
 * the byte loop it replaces.
 */
static inline size_t scan_byte(const char *s, size_t p, size_t len, char ch, uint64_t pat)
{
	size_t stop = len - p > 32 ? p + 32 : len;
	const char *h;

#if SWAR
	for (; stop - p >= 8; p += 8) {
		unsigned k = word_match(s + p, pat);

		if (k < 8)
			return p + k;
	}
#else
	(void)pat;
#endif
	for (; p < stop; p++)
		if (s[p] == ch)
			return p;
	h = p < len ? memchr(s + p, ch, len - p) : NULL;
	return h ? (size_t)(h - s) : len;
}

/*
 * The next space at or after p (*e) and how many bytes ch come before it
 * (*k), in one pass eight bytes at a time while a word fits before len: a
 * byte equal to the pattern's becomes zero, and ~(((x & 0x7f..) + 0x7f..)
 * | x) marks each zero byte exactly (no borrow between bytes, unlike
 * word_match's test); a multiply adds the marks below the first space.
 * @return 1, or 0 when no space follows
 */
static inline int word_scan(const char *s, size_t p, size_t len, char ch, size_t *e,
    size_t *k)
{
	size_t n = 0;

#if SWAR
	const uint64_t low7 = 0x7f7f7f7f7f7f7f7full, ones = 0x0101010101010101ull;
	const uint64_t sp8 = ones * ' ', ch8 = ones * (unsigned char)ch;

	for (; len - p >= 8; p += 8) {
		uint64_t w, x, y;

		memcpy(&w, s + p, 8);
		x = w ^ sp8;
		y = w ^ ch8;
		x = ~(((x & low7) + low7) | x) & ~low7;     /* spaces */
		y = ~(((y & low7) + low7) | y) & ~low7;     /* ch */
		if (x != 0)
			y &= (x & -x) - 1;                      /* below the first space */
		n += (size_t)(((y >> 7) * ones) >> 56);
		if (x != 0) {
			*e = p + ((size_t)__builtin_ctzll(x) >> 3);
			*k = n;
			return 1;
		}
	}
#endif
	for (; p < len && s[p] != ' '; p++)
		n += s[p] == ch;
	*e = p;
	*k = n;
	return p < len;
}

/* First `ch` in s[p..len), or NULL. */
static inline const char *find_byte(const char *s, size_t p, size_t len, char ch)
{
	size_t o = scan_byte(s, p, len, ch, 0x0101010101010101ull * (unsigned char)ch);

	return o < len ? s + o : NULL;
}

/*
 * True when s[0..n) equals lit[0..n); inline for short template literals,
 * and two overlapping words for those of 9 to 16 bytes (the keys between
 * NGINX JSON values: `","status":`).
 */
static inline int same(const char *s, const char *lit, size_t n)
{
	if (n > 16)
		return memcmp(s, lit, n) == 0;
	if (n > 8) {
		uint64_t a, b, x, y;

		memcpy(&a, s, 8);
		memcpy(&b, lit, 8);
		memcpy(&x, s + n - 8, 8);
		memcpy(&y, lit + n - 8, 8);
		return a == b && x == y;
	}
	for (size_t i = 0; i < n; i++)
		if (s[i] != lit[i])
			return 0;
	return 1;
}

/* Name of the last item before step i, for messages ("start of line" if none). */
static const char *prev_what(const struct fmt_prog *pg, size_t i)
{
	while (i-- > 0)
		if (pg->v[i].op == OP_ITEM)
			return pg->v[i].it.what;
	return "start of line";
}

/* "expected 'X' after WHAT at column N".  @return -1 */
static int expected(struct fmt_ctx *c, const struct fmt_prog *pg, size_t i, const char *lit,
    size_t ln, size_t col)
{
	return lbt_err_set(c->err, "expected '%.*s' after %s at column %zu",
	    (int)(ln > 30 ? 30 : ln), lit, prev_what(pg, i), col);
}

/* True when s[o] is preceded by an odd number of backslashes after `start`. */
static int escaped(const char *s, size_t start, size_t o)
{
	size_t k = 0;

	while (o > start && s[o - 1] == '\\') {
		o--;
		k++;
	}
	return k & 1;
}

/*
 * First occurrence of lit[0..ln) in s[p..len), not backslash-escaped when
 * bslash (`vs` is where the value began).  @return offset or NPOS
 */
static inline size_t find_lit(int bslash, const char *s, size_t len, size_t p, size_t vs,
    const char *lit, size_t ln)
{
	while (p + ln <= len) {
		const char *h = find_byte(s, p, len - ln + 1, lit[0]);
		size_t o;

		if (h == NULL)
			return NPOS;
		o = (size_t)(h - s);
		if (same(h, lit, ln) && !(bslash && escaped(s, vs, o)))
			return o;
		p = o + 1;
	}
	return NPOS;
}

/* len without trailing spaces, not below p. */
static size_t trim_end(const char *s, size_t len, size_t p)
{
	while (len > p && s[len - 1] == ' ')
		len--;
	return len;
}

/* True when position o can be followed by step i+1 (for raw-quoted samples). */
static int follows(const struct fmt_prog *pg, size_t i, const char *s, size_t len, size_t o)
{
	const struct fmt_step *nx = i + 1 < pg->n ? &pg->v[i + 1] : NULL;

	if (nx == NULL)
		return trim_end(s, len, o) == o;
	if (nx->op == OP_SEP)
		return o == len || s[o] == ' ';
	if (nx->op == OP_LIT)
		return len - o >= nx->litlen && same(s + o, nx->lit, nx->litlen);
	return 1;
}

/* True when every step after i is a separator or a capture list. */
static int rest_is_lists(const struct fmt_prog *pg, size_t i)
{
	for (size_t j = i + 1; j < pg->n; j++)
		if (pg->v[j].op == OP_LIT ||
		    (pg->v[j].op == OP_ITEM && pg->v[j].it.scan != SC_LIST))
			return 0;
	return 1;
}

/*
 * Where to search the end of an unquoted request line at p: after
 * "METHOD URI " when the third word starts with "HTTP/", else p (a
 * "<BADREQ>", garbage without spaces, or an HTTP/0.9 "GET /x").
 */
static size_t skip_method_uri(const char *s, size_t len, size_t p)
{
	const char *a = memchr(s + p, ' ', len - p), *b;

	if (a == NULL)
		return p;
	b = memchr(a + 1, ' ', (size_t)(s + len - a - 1));
	if (b == NULL || (size_t)(s + len - b) < 6 || memcmp(b + 1, "HTTP/", 5) != 0)
		return p;
	return (size_t)(b - s) + 1;
}

/*
 * End of an address followed by ':' (ip:port): the last colon of the word,
 * unless a ']' follows it: "[2001:db8::2]" is a bracketed address without
 * a port (NGINX $host), not "[2001:db8:" and ":2]".
 */
static size_t end_address(const char *s, size_t len, size_t p)
{
	const char *sp = find_byte(s, p, len, ' '), *we = sp ? sp : s + len;
	const char *col = memrchr(s + p, ':', (size_t)(we - (s + p)));

	if (col == NULL || memchr(col, ']', (size_t)(we - col)) != NULL)
		return NPOS;
	return (size_t)(col - s);
}

/*
 * End of an NGINX upstream list at p ("192.0.2.2:8099, 192.0.2.2:8080 :
 * 192.0.2.3:8080", docs/formats.md, "NGINX"): the first space that neither
 * follows a ',' nor is part of " : ".
 */
static size_t end_ulist(const char *s, size_t len, size_t p)
{
	for (;;) {
		const char *sp = find_byte(s, p, len, ' ');
		size_t o = sp ? (size_t)(sp - s) : len;

		if (o == len)
			return len;
		if (o > p && s[o - 1] == ',')
			p = o + 1;
		else if (len - o >= 3 && s[o + 1] == ':' && s[o + 2] == ' ')
			p = o + 3;
		else
			return o;
	}
}

/*
 * End of a number followed directly by another item: its digits (hex
 * ones under +X), less the width of a fixed-width item after it ("%Ts%ms":
 * the last 3 digits are %ms).
 */
static size_t end_number(const struct fmt_item *it, const struct fmt_item *next,
    const char *s, size_t len, size_t p)
{
	size_t q = p;

	if (q < len && (s[q] == '+' || s[q] == '-'))
		q++;
	while (q < len && ((s[q] >= '0' && s[q] <= '9') ||
	    ((it->flags & FL_HEX) && ((s[q] | 0x20) >= 'a' && (s[q] | 0x20) <= 'f'))))
		q++;
	if (next->scan == SC_FIXED && q - p > next->width)
		q -= next->width;
	return q;
}

/*
 * How the end of an item's value is found, worked out once per program
 * from its scan rule and the step after it (prog_plan) instead of on
 * every line: the per-line matcher then switches once on `end` (see the
 * measurements at the top of the file).
 */
enum fmt_end {
	E_NONE,          /* not planned: end_rule() is asked on the line */
	E_BLOCK,         /* "{...}" capture block (match_block) */
	E_LIST,          /* capture list (match_list) */
	E_FIXED,         /* exactly it.width bytes */
	E_ZDATE,         /* "dd/Mon/yyyy:hh:mm:ss +zzzz": one inner space */
	E_ADDR,          /* address before ':': the last colon of the word */
	E_PATHQ,         /* path followed by its query item: up to '?' or ' ' */
	E_NUMITEM,       /* number followed by an item: its digits */
	E_TRIM,          /* last step: the line less trailing spaces */
	E_SPACE,         /* before a separator: the next space, or the end */
	E_LIT,           /* before a literal: its next occurrence */
	E_ANCHOR,        /* before the last literal of an anchored program: the line's end */
	E_LEN,           /* before an item that ends itself: the end of the line */
	E_ULIST          /* NGINX upstream list before a space: end_ulist() */
};

/* The generic rule: what the next step is. */
static int generic_rule(const struct fmt_prog *pg, size_t i)
{
	const struct fmt_step *nx = i + 1 < pg->n ? &pg->v[i + 1] : NULL;

	if (nx == NULL)
		return E_TRIM;
	if (nx->op == OP_SEP)
		return E_SPACE;
	if (nx->op == OP_LIT)
		return pg->anchor && i + 2 == pg->n ? E_ANCHOR : E_LIT;
	return E_LEN;
}

/* The end rule of item step i (enum fmt_end). */
static int end_rule(const struct fmt_prog *pg, size_t i)
{
	const struct fmt_item *it = &pg->v[i].it;
	const struct fmt_step *nx = i + 1 < pg->n ? &pg->v[i + 1] : NULL;

	switch (it->scan) {
	case SC_BLOCK:
		return E_BLOCK;
	case SC_LIST:
		return E_LIST;
	case SC_FIXED:
		return E_FIXED;
	case SC_ZDATE:
		return E_ZDATE;
	case SC_IP:
		if (nx != NULL && nx->op == OP_LIT && nx->lit[0] == ':')
			return E_ADDR;
		break;
	case SC_PLAIN:
		if (nx != NULL && nx->op == OP_ITEM && it->kind == K_PATH)
			return E_PATHQ;      /* "%HP%HQ" */
		break;
	case SC_NUM:
		if (nx != NULL && nx->op == OP_ITEM)
			return E_NUMITEM;
		break;
	case SC_ULIST:
		if (nx != NULL && (nx->op == OP_SEP || (nx->op == OP_LIT && nx->lit[0] == ' ')))
			return E_ULIST;
		break;
	}
	return generic_rule(pg, i);
}

/* True when an unquoted request line at step i is searched from after "METHOD URI ". */
static int req_skips(const struct fmt_prog *pg, size_t i)
{
	const struct fmt_step *nx = i + 1 < pg->n ? &pg->v[i + 1] : NULL;

	return pg->v[i].it.scan == SC_REQ && nx != NULL &&
	    (nx->op == OP_SEP || (nx->op == OP_LIT && nx->lit[0] == ' '));
}

/*
 * The first step a line cut by the logger may end in: after the time
 * item, and after the client or inside the request (the long part HAProxy
 * cuts), whichever of them the template has.  A cut line that ends before
 * its time and its client or request binds neither: a lone 1,000-byte word
 * was read by nginx-xff as a request with every field null.
 */
static size_t cut_from(const struct fmt_prog *pg)
{
	size_t t = 0, who = NPOS;

	for (size_t i = 0; i < pg->n; i++) {
		const struct fmt_item *it = &pg->v[i].it;

		if (pg->v[i].op != OP_ITEM)
			continue;
		if (it->kind == K_TIME)
			t = i + 1;
		else if (it->kind == K_CLIENT && who == NPOS)
			who = i + 1;
		else if ((it->kind == K_REQUEST || it->kind == K_URI || it->kind == K_PATH) &&
		    who == NPOS)
			who = i;
	}
	return who != NPOS && who > t ? who : t;
}

/*
 * Plan every item step of pg: its end rule, request skip and escape search,
 * whether it is fused with the step after it, and for a fused one the byte
 * that ends it and the fields that make it converted.
 */
static void prog_plan(struct fmt_prog *pg)
{
	pg->cut_from = cut_from(pg);
	for (size_t i = 0; i < pg->n; i++) {
		struct fmt_step *st = &pg->v[i];

		if (st->op != OP_ITEM)
			continue;
		st->end = (uint8_t)end_rule(pg, i);
		st->reqskip = (uint8_t)req_skips(pg, i);
		st->bsl = (uint8_t)(pg->bslash || (st->it.flags & FL_BSLASH));
		st->fuse = (uint8_t)((st->end == E_SPACE || st->end == E_LIT) && !st->reqskip);
		if (st->fuse && (st->it.flags & FL_QUOTE))
			st->fuse = 2;
		st->delim = st->end == E_SPACE ? ' ' : st->end == E_LIT ? st[1].lit[0] : '\0';
		st->delim8 = 0x0101010101010101ull * (unsigned char)st->delim;
		st->convmask = st->it.kind == K_MS || st->it.kind == K_JSONVAL ? ~(uint64_t)0 :
		    st->it.fills;
	}
}

/*
 * True when planned item step st may be skipped inside a word: nobody
 * wants its value, it is not quoted nor escaped, and its value never holds
 * a space: it ends at the next space, has a fixed width, is an address
 * before ':', or is a number or a proxy or server name (HAProxy's names
 * have no spaces) before a one-byte literal.
 */
static int skippable_item(const struct fmt_step *st, uint64_t wanted)
{
	const struct fmt_item *it = &st->it;

	if ((it->fills & wanted) || it->kind == K_MS || it->kind == K_JSONVAL ||
	    (it->flags & FL_QUOTE) || st->reqskip || st->bsl)
		return 0;
	if (st->end == E_SPACE || st->end == E_FIXED || st->end == E_ADDR)
		return 1;
	return st->end == E_LIT && (it->scan == SC_NUM || it->scan == SC_IP ||
	    it->kind == K_I32 || it->kind == K_BYTES || (it->kind == K_STR &&
	    (it->field == LBT_F_FRONTEND || it->field == LBT_F_BACKEND ||
	    it->field == LBT_F_SERVER)));
}

/*
 * Plan the skipped word that starts at step i, if there is one: the steps
 * up to the next separator (or literal opening with a space) are
 * skippable items and one-byte literals of one same byte, so that the
 * next space ends them all and counting that byte checks their shape as
 * the steps would ("%TR/%Tw/%Tc/%Tr/%Ta": four '/').  A fixed-width item
 * stands alone (its width is checked), an address before ':' only in
 * "%ci:%cp" (at least one ':', IPv6 has more).
 */
static void plan_skip(struct fmt_prog *pg, size_t i, uint64_t wanted)
{
	struct fmt_step *st = &pg->v[i];
	size_t j, lits = 0, items = 0, fixed = 0, addr = 0;
	char c = '\0';

	for (j = i; j < pg->n; j++) {
		const struct fmt_step *x = &pg->v[j];

		if (x->op == OP_SEP || (x->op == OP_LIT && x->lit[0] == ' '))
			break;
		if (x->op == OP_LIT && (x->litlen != 1 || (c != '\0' && x->lit[0] != c)))
			return;
		if (x->op == OP_LIT) {
			c = x->lit[0];
			lits++;
			continue;
		}
		if (!skippable_item(x, wanted))
			return;
		items++;
		fixed += x->end == E_FIXED;
		addr += x->end == E_ADDR;
	}
	if (j == pg->n || items == 0 || j - i > 255 || (fixed && (items > 1 || lits > 0)) ||
	    (addr && (j - i != 3 || st->end != E_ADDR)))
		return;
	st->skip = (uint8_t)(j - i);
	st->skipn = (uint8_t)lits;
	st->skipc = c;
	st->skipge = addr > 0;
	st->skipw = fixed ? st->it.width : 0;
}

/* The fast ways of step st, from its plan (lbt_fmti_match picks among them). */
static void plan_fast(struct fmt_step *st)
{
	st->fast = (uint8_t)((st->skip ? FAST_SKIP : 0) | (st->fuse ? FAST_FUSE : 0) |
	    (st->fuse == 2 ? FAST_QUOTE : 0));
}

/*
 * Plan every text program of f: its own and the sub-templates of its keys;
 * the skipped words depend on the wanted fields (lbt_format_set_wanted
 * plans again).
 */
void lbt_fmti_plan(lbt_format *f)
{
	struct fmt_prog *pg[1 + f->nkeys];
	size_t n = 0;

	pg[n++] = &f->prog;
	for (size_t i = 0; i < f->nkeys; i++)
		if (f->keys[i].sub != NULL)
			pg[n++] = f->keys[i].sub;
	f->lit_quotes = 0;
	for (size_t i = 0; i < f->prog.n; i++)
		for (size_t j = 0; f->prog.v[i].op == OP_LIT && j < f->prog.v[i].litlen; j++)
			f->lit_quotes += f->prog.v[i].lit[j] == '"';
	for (size_t k = 0; k < n; k++) {
		prog_plan(pg[k]);
		for (size_t i = 0; i < pg[k]->n; i++) {
			pg[k]->v[i].skip = 0;
			if (pg[k]->v[i].op != OP_SEP && !f->noskip)
				plan_skip(pg[k], i, f->wanted);
			plan_fast(&pg[k]->v[i]);
		}
	}
	f->planned = 1;
}

/*
 * End of an unquoted value starting at p, by the planned rule of step i;
 * rules that look at the next step only exist when there is one.
 * @return offset or NPOS
 */
static size_t find_end(const struct fmt_prog *pg, size_t i, const char *s, size_t len,
    size_t p)
{
	const struct fmt_step *st = &pg->v[i], *nx = st + 1;
	int end = st->end, bsl = st->bsl, reqskip = st->reqskip;
	size_t q = p;
	const char *h;

	if (end == E_NONE) {
		end = end_rule(pg, i);
		reqskip = req_skips(pg, i);
		bsl = pg->bslash || (st->it.flags & FL_BSLASH);
	}
	if (reqskip)
		q = skip_method_uri(s, len, p);
	switch (end) {
	case E_SPACE:
		h = find_byte(s, q, len, ' ');
		return h ? (size_t)(h - s) : len;
	case E_LIT:
		if (nx->litlen == 1 && !bsl) {
			h = find_byte(s, q, len, nx->lit[0]);
			return h ? (size_t)(h - s) : NPOS;
		}
		return find_lit(bsl, s, len, q, p, nx->lit, nx->litlen);
	case E_FIXED:
		return len - p >= st->it.width ? p + st->it.width : NPOS;
	case E_ZDATE:
		h = find_byte(s, p, len, ' ');
		return h == NULL || (size_t)(h - s) + 6 > len ? NPOS : (size_t)(h - s) + 6;
	case E_ADDR:
		return end_address(s, len, p);
	case E_PATHQ:
		while (q < len && s[q] != '?' && s[q] != ' ')
			q++;
		return q;
	case E_NUMITEM:
		return end_number(&st->it, &nx->it, s, len, p);
	case E_ULIST:
		return end_ulist(s, len, p);
	case E_TRIM:
		return trim_end(s, len, p);
	case E_ANCHOR:
		if (len - p < nx->litlen || memcmp(s + len - nx->litlen, nx->lit, nx->litlen))
			return NPOS;
		return len - nx->litlen;
	default:
		return len;
	}
}

/* Closing quote of a value opened before p. @return offset or NPOS */
static size_t find_close_quote(const struct fmt_prog *pg, size_t i, const char *s,
    size_t len, size_t p)
{
	const struct fmt_item *it = &pg->v[i].it;
	size_t q = p;

	for (;;) {
		const char *h = find_byte(s, q, len, '"');
		size_t o;

		if (h == NULL)
			return NPOS;
		o = (size_t)(h - s);
		if ((it->flags & FL_BSLASH) && escaped(s, p, o)) {
			q = o + 1;
			continue;
		}
		if (!(it->flags & FL_RAWQ) || follows(pg, i, s, len, o + 1))
			return o;
		q = o + 1;
	}
}

/*
 * HAProxy "{a|b}" capture block at p, optionally quoted.  Absent (no
 * captures configured, line built without a stream) when no '{' is there.
 * @return 1 printed, 0 absent, CUT the line ends inside it, -1 error
 */
static int match_block(struct fmt_ctx *c, const struct fmt_item *it, const char *s,
    size_t len, size_t *pos)
{
	int known = (it->flags & FL_RESP) ? c->f->resp_caps : c->f->req_caps;
	size_t p = *pos, q = (it->flags & FL_QUOTE) && p < len && s[p] == '"', o = p + q, e;
	const char *cl;

	if (known == 0 || o >= len || s[o] != '{')
		return 0;
	cl = memchr(s + o + 1, '}', len - o - 1);
	if (cl == NULL && len < CUT_MIN)
		return lbt_err_set(c->err, "line ends inside %s opened at column %zu", it->what,
		    o + 1);
	if (cl == NULL) {
		if (it->fills & c->f->wanted)
			lbt_fmti_conv_block(c, it, s + o + 1, len - o - 1);
		*pos = len;
		return CUT;
	}
	e = (size_t)(cl - s) + 1;
	if (q) {
		if (e >= len || s[e] != '"')
			return lbt_err_set(c->err, "expected '\"' after %s at column %zu",
			    it->what, e + 1);
		e++;
	}
	if (it->fills & c->f->wanted)
		lbt_fmti_conv_block(c, it, s + o + 1, (size_t)(cl - s) - o - 1);
	*pos = e;
	return 1;
}

/* One token of a capture list at t: [*vs, *ve) and the position after it. @return 0 or -1 */
static int list_token(struct fmt_ctx *c, const struct fmt_item *it, const char *s,
    size_t len, size_t t, size_t *vs, size_t *ve, size_t *next)
{
	const char *cl, *sp;

	if (it->flags & FL_QUOTE) {
		cl = memchr(s + t + 1, '"', len - t - 1);
		if (cl == NULL)
			return lbt_err_set(c->err, "line ends inside quoted %s at column %zu",
			    it->what, t + 1);
		*vs = t + 1;
		*ve = (size_t)(cl - s);
		*next = *ve + 1;
		return 0;
	}
	sp = memchr(s + t, ' ', len - t);
	*vs = t;
	*ve = sp ? (size_t)(sp - s) : len;
	*next = *ve;
	return 0;
}

/* True when a list token can start at t. */
static int token_starts(const struct fmt_item *it, const char *s, size_t len, size_t t)
{
	return t < len && (!(it->flags & FL_QUOTE) || s[t] == '"');
}

/*
 * HAProxy %hrl/%hsl: one token per capture, quoted under +Q.  The count
 * comes from the configuration when known; otherwise quoted tokens are
 * taken while they follow, unquoted ones only when nothing but lists and
 * separators remain.  @return 1 printed, 0 absent, -1 error
 */
static int match_list(struct fmt_ctx *c, const struct fmt_prog *pg, size_t i,
    const char *s, size_t len, size_t *pos)
{
	const struct fmt_item *it = &pg->v[i].it;
	int known = (it->flags & FL_RESP) ? c->f->resp_caps : c->f->req_caps, k = 0;
	size_t q = *pos, t, vs = 0, ve = 0;

	while (known != 0) {
		t = k == 0 ? q : q + 1;
		if ((k > 0 && (q >= len || s[q] != ' ')) || !token_starts(it, s, len, t))
			break;
		if (list_token(c, it, s, len, t, &vs, &ve, &q) < 0)
			return -1;
		if (!(it->flags & FL_RESP) && !(ve - vs == 1 && s[vs] == '-' &&
		    !(it->flags & FL_QUOTE)) && (it->fills & c->f->wanted))
			lbt_fmti_conv_slot(c, it, k, s + vs, ve - vs);
		k++;
		if (k == known || (known < 0 && !(it->flags & FL_QUOTE) && !rest_is_lists(pg, i)))
			break;
	}
	if (known > 0 && k == 0 && trim_end(s, len, q) == q)
		return 0;     /* none at the end: a line without a stream (<BADREQ>), as the
		                 missing {...} block of httplog (HAProxy 2.6, haproxy-clf.log) */
	if (known > 0 && k < known)
		return lbt_err_set(c->err, "expected %d %s, found %d at column %zu", known,
		    it->what, k, *pos + 1);
	*pos = q;
	return k > 0;
}

/* Report a value whose end was not found. @return -1 */
static int no_end(struct fmt_ctx *c, const struct fmt_prog *pg, size_t i, const char *s,
    size_t len, size_t p)
{
	const struct fmt_step *nx = i + 1 < pg->n ? &pg->v[i + 1] : NULL;
	const struct fmt_item *it = &pg->v[i].it;

	if (it->scan == SC_ZDATE || nx == NULL || nx->op != OP_LIT) {
		size_t e = trim_end(s, len, p), n = e - p > 30 ? 30 : e - p;

		return lbt_err_set(c->err, "bad %s '%.*s' at column %zu", it->what, (int)n,
		    s + p, p + 1);
	}
	return lbt_err_set(c->err, "no '%.*s' after %s (at column %zu)",
	    (int)(nx->litlen > 30 ? 30 : nx->litlen), nx->lit, it->what, p + 1);
}

/*
 * Convert value s[0..n) of item `it` (col: 1-based column, for messages).
 * An NGINX JSON layout value is only kept (f->jspan of its key item): the
 * caller, format_json.c, validates and converts the values once the whole
 * line has matched, so this file never calls back into the JSON reader.
 * @return 0 or -1 with err.
 */
static inline int conv_value(struct fmt_ctx *c, const struct fmt_item *it, const char *s,
    size_t n, size_t col)
{
	if (it->kind == K_JSONVAL) {
		c->f->jspan[it->slot] = (struct fmt_span){ s, n, it };
		return 0;
	}
	return lbt_fmti_conv_text(c, it, s, n, col);
}

/*
 * Convert the value s[vs..ve) of item `it` when the caller wants it.
 * Values nobody asked for are only skipped (lbt_fmti_conv_text would return at
 * once, after a call); %ms always converts, the time may need it.
 * @return 0 or -1 with err.
 */
static inline int conv_wanted(struct fmt_ctx *c, const struct fmt_item *it, const char *s,
    size_t vs, size_t ve)
{
	if (!(it->fills & c->f->wanted) && it->kind != K_MS && it->kind != K_JSONVAL)
		return 0;
	return conv_value(c, it, s + vs, ve - vs, vs + 1);
}

/*
 * A quoted value (opened at p - 1) without its closing quote: the line was
 * cut by the logger (HAProxy `len`, 1024 by default, and the URI is the
 * long part).  When the line is long enough to have been cut (CUT_MIN) and
 * no '"' at all follows, the value runs to the end of the line and the
 * steps after it are absent.  @return CUT, or -1 (not a cut)
 */
static int cut_value(struct fmt_ctx *c, const struct fmt_item *it, const char *s,
    size_t len, size_t p, size_t *pos)
{
	if (len < CUT_MIN || p > len || memchr(s + p, '"', len - p) != NULL ||
	    it->scan == SC_ZDATE || it->scan == SC_FIXED || it->scan == SC_NUM)
		return -1;
	if (conv_value(c, it, s + p, len - p, p + 1) < 0)
		return -1;
	*pos = len;
	return CUT;
}

/* True when step i + 1 is a literal opening with a quote (the value is quoted). */
static int quoted_next(const struct fmt_prog *pg, size_t i)
{
	return i + 1 < pg->n && pg->v[i + 1].op == OP_LIT && pg->v[i + 1].lit[0] == '"';
}

/*
 * Step i (an item) at *pos: find the value, convert it, advance.
 * @return 1 something printed, 0 nothing printed, CUT the line ends inside
 * this value, -1 error
 */
static int match_item(struct fmt_ctx *c, const struct fmt_prog *pg, size_t i,
    const char *s, size_t len, size_t *pos)
{
	const struct fmt_item *it = &pg->v[i].it;
	size_t p = *pos, vs, ve;

	if (p == len && len >= CUT_MIN && !pg->nocut)
		return CUT;     /* a long line ending before this item: cut by the logger */
	if (it->scan == SC_BLOCK)
		return match_block(c, it, s, len, pos);
	if (it->scan == SC_LIST)
		return match_list(c, pg, i, s, len, pos);
	if ((it->flags & FL_QUOTE) && p < len && s[p] == '"') {
		ve = find_close_quote(pg, i, s, len, p + 1);
		if (ve == NPOS && !pg->nocut && cut_value(c, it, s, len, p + 1, pos) == CUT)
			return CUT;
		if (ve == NPOS)
			return lbt_err_set(c->err, "line ends inside quoted %s (opened at column %zu)",
			    it->what, p + 1);
		vs = p + 1;
		*pos = ve + 1;
	} else {
		ve = find_end(pg, i, s, len, p);
		if (ve == NPOS && !pg->nocut && quoted_next(pg, i) &&
		    cut_value(c, it, s, len, p, pos) == CUT)
			return CUT;
		if (ve == NPOS)
			return no_end(c, pg, i, s, len, p);
		vs = p;
		*pos = ve;
		if (ve == vs && it->kind != K_JSONVAL)
			return 0;     /* a JSON value is checked even when empty */
	}
	return conv_wanted(c, it, s, vs, ve) < 0 ? -1 : 1;
}

/*
 * True when the literal after fused item st is at ve, the first of its
 * bytes after the value at p: whole there, and not backslash-escaped when
 * that counts (what find_lit's first candidate would be).
 */
static inline int lit_at(const struct fmt_step *st, const char *s, size_t len, size_t p,
    size_t ve)
{
	const struct fmt_step *nx = st + 1;

	if (nx->litlen == 1 && !st->bsl)
		return ve < len;      /* the scan found that one byte */
	return ve < len && len - ve >= nx->litlen && same(s + ve, nx->lit, nx->litlen) &&
	    !(st->bsl && escaped(s, p, ve));
}

/*
 * A fused item (st->fuse) at *pos on a line too short to have been cut
 * and not opening with a quote: find the separator or literal after its
 * value, convert the value when wanted, and take that separator or literal
 * in the same stride, with what match_item and the OP_LIT / OP_SEP steps
 * would do.  Most HAProxy and NGINX items are such (measurements at the
 * top of the file).
 * @return the steps taken (1: the item alone, 2: with what follows), 0
 * when the end is not found (match_item then says why), -1 on error.
 */
static inline int match_fused(struct fmt_ctx *c, const struct fmt_step *st, uint64_t wanted,
    const char *s, size_t len, size_t *pos, int *quiet)
{
	const struct fmt_step *nx = st + 1;
	size_t p = *pos, ve;

	ve = scan_byte(s, p, len, st->delim, st->delim8);
	if (st->end == E_LIT && !lit_at(st, s, len, p, ve) &&
	    (ve == len || (ve = find_lit(st->bsl, s, len, ve + 1, p, nx->lit, nx->litlen)) == NPOS))
		return 0;         /* the first candidate was not it: find_lit searches on */
	if ((st->convmask & wanted) && (ve > p || st->it.kind == K_JSONVAL) &&
	    conv_value(c, &st->it, s + p, ve - p, p + 1) < 0)
		return -1;
	if (st->end == E_LIT) {              /* the literal is at ve: OP_LIT matches */
		*pos = ve + nx->litlen;
		*quiet = 0;
		return 2;
	}
	if (ve == p)                         /* nothing printed: the OP_SEP step decides */
		return 1;
	*pos = ve < len ? ve + 1 : len;      /* OP_SEP after a printed value */
	*quiet = ve < len;
	return 2;
}

/*
 * Step st (not a fused item) at *pos.  @return 1 go on, 0 the line ends
 * here (cut by the logger), -1 error.
 */
static int match_step(struct fmt_ctx *c, const struct fmt_prog *pg, const struct fmt_step *st,
    const char *s, size_t len, size_t *pos, int *quiet)
{
	size_t p = *pos;
	int r;

	switch (st->op) {
	case OP_LIT:
		if (len >= CUT_MIN && !pg->nocut && trim_end(s, len, p) == p)
			return 0;   /* cut by the logger before this text */
		if (len - p < st->litlen || !same(s + p, st->lit, st->litlen))
			return expected(c, pg, (size_t)(st - pg->v), st->lit, st->litlen, p + 1);
		*pos = p + st->litlen;
		*quiet = 0;
		return 1;
	case OP_SEP:
		if (*quiet || p == len)
			return 1;
		if (s[p] != ' ')
			return expected(c, pg, (size_t)(st - pg->v), " ", 1, p + 1);
		*pos = p + 1;
		*quiet = 1;
		return 1;
	default:
		r = match_item(c, pg, (size_t)(st - pg->v), s, len, pos);
		if (r < 0 || r == CUT)
			return r < 0 ? -1 : 0;
		if (r > 0)
			*quiet = 0;
		return 1;
	}
}

/*
 * A planned skipped word at p (st->skip): the next space ends it, it is not
 * empty, and it holds its literals (their count, or at least it, of byte
 * skipc) or its exact width; what the steps would have accepted, less the
 * odd lines the steps then take one by one (a '/' in a server name).
 * @return the offset of that space, or 0 to take the steps one by one
 */
static inline size_t skip_word(const struct fmt_step *st, const char *s, size_t len, size_t p)
{
	size_t e, k;

	if (st->skipn == 0) {      /* one item: most words ("200", "----") */
		e = scan_byte(s, p, len, ' ', 0x2020202020202020ull);
		return e == p || e == len || (st->skipw != 0 && e - p != st->skipw) ? 0 : e;
	}
	if (!word_scan(s, p, len, st->skipc, &e, &k) || e == p)
		return 0;
	return (st->skipge ? k >= st->skipn : k == st->skipn) ? e : 0;
}

/*
 * Skip planned words from st on, one after the other while they hold their
 * shape, each with the separator after it as OP_SEP would take it (quiet:
 * nothing printed since), or the position before the literal that follows.
 * @return the step to go on with (st itself when none was skipped)
 */
static inline const struct fmt_step *skip_words(const struct fmt_step *st,
    const struct fmt_step *end, const char *s, size_t len, size_t *pos, int *quiet)
{
	size_t e, p = *pos;       /* locals: no store through a pointer per word */
	int q = *quiet;

	while (st < end && st->skip && (e = skip_word(st, s, len, p)) != 0) {
		st += st->skip;
		q = st->op == OP_SEP;
		p = e + (size_t)q;
		st += q;
	}
	*pos = p;
	*quiet = q;
	return st;
}

/*
 * The line ends at p, in step st (cut by the logger): a record only when
 * the cut comes after what every record needs (pg->cut_from).
 * @return 0, or -1 with c->err
 */
static int cut_early(struct fmt_ctx *c, const struct fmt_prog *pg, const struct fmt_step *st,
    size_t p)
{
	size_t i = (size_t)(st - pg->v);

	if (i >= pg->cut_from)
		return 0;
	return lbt_err_set(c->err, "line ends at column %zu before %s: no time, client or "
	    "request to read", p + 1, pg->v[pg->cut_from - 1].op == OP_ITEM ?
	    pg->v[pg->cut_from - 1].it.what : "the time");
}

/*
 * Match line s[0..len) against program pg, filling c->rec.
 * @return 0, or -1 with c->err saying what was expected where.
 */
int lbt_fmti_match(struct fmt_ctx *c, const struct fmt_prog *pg, const char *s, size_t len)
{
	const struct fmt_step *st = pg->v, *end = pg->v + pg->n;
	const uint64_t wanted = c->f->wanted;
	const int uncut = len < CUT_MIN || pg->nocut;
	size_t pos = 0;
	int quiet = 1, r;   /* nothing printed since the last separator */

	/* the fast ways a step may be taken, on a line too short to be cut */
	const unsigned ways = !uncut ? 0 : c->noskip ? FAST_FUSE | FAST_QUOTE : FAST_ALL;

	while (st < end) {
		unsigned fast = st->fast & ways;

		if (fast & FAST_SKIP) {
			const struct fmt_step *nx = skip_words(st, end, s, len, &pos, &quiet);

			if (nx != st) {
				c->skipped = 1;
				st = nx;
				continue;
			}
		}
		if ((fast & FAST_FUSE) && !((fast & FAST_QUOTE) && pos < len && s[pos] == '"') &&
		    (r = match_fused(c, st, wanted, s, len, &pos, &quiet)) != 0) {
			if (r < 0)
				return -1;
			st += r;
			continue;
		}
		{
			size_t p = pos;      /* copies: pos and quiet stay in registers */
			int q = quiet;

			if ((r = match_step(c, pg, st, s, len, &p, &q)) < 0)
				return -1;
			if (r == 0)
				return cut_early(c, pg, st, p);
			pos = p;
			quiet = q;
		}
		st++;
	}
	if (pg->tail && pos < len && s[pos] == ' ')
		return 0;            /* "trailing ignore": the extra fields after the template */
	if (trim_end(s, len, pos) != pos)
		return lbt_err_set(c->err, "unexpected text '%.*s' after %s at column %zu",
		    (int)(len - pos > 20 ? 20 : len - pos), s + pos, prev_what(pg, pg->n), pos + 1);
	return 0;
}
