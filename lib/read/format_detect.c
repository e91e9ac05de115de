/*
 * format_detect.c - which built-in format reads a log: try them all on a
 * few sample messages and rank them.
 *
 * Ranking: most lines parsed, then the most specific template (more fixed
 * text: haproxy-tcpclf lines also parse as haproxy-clf, but only one has
 * "TCP " and 000 literally), then most distinct fields filled on them,
 * then the descriptor's priority (haproxy-httplog over haproxy-legacy:
 * their lines look the same, docs/formats.md, "HAProxy 1.5 and 1.6"), then name.  Every score
 * is returned so that the caller can see a tie on parsed lines and say so.
 * Cost: one compile per built-in and one parse per line and built-in; it
 * runs on ~50 lines.
 */
#include <stdlib.h>
#include <string.h>

#include "format_int.h"
#include "lbt/format_builtin.h"

/* Rank of x against y on the detection criteria only: < 0 when x is better, 0 when equal. */
static int score_rank(const lbt_format_score *x, const lbt_format_score *y)
{
	if (x->parsed != y->parsed)
		return y->parsed - x->parsed;
	if (x->parsed == 0)
		return 0;
	if (x->literal != y->literal)
		return y->literal - x->literal;
	if (x->fields != y->fields)
		return y->fields - x->fields;
	return y->priority - x->priority;
}

/* Order of scores: best first, then by name so that the order is total. */
static int score_cmp(const void *a, const void *b)
{
	const lbt_format_score *x = a, *y = b;
	int r = score_rank(x, y);

	return r != 0 ? r : strcmp(x->name, y->name);
}

/* True when a parsed something and b ranks exactly like it (format.h). */
int lbt_format_scores_tied(const lbt_format_score *a, const lbt_format_score *b)
{
	return a->parsed > 0 && score_rank(a, b) == 0;
}

/* True when msg[0..len) is blank (only spaces, tabs, CR, LF). */
static int blank(const char *msg, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (msg[i] != ' ' && msg[i] != '\t' && msg[i] != '\r' && msg[i] != '\n')
			return 0;
	return 1;
}

/* Fixed text format f requires: literal bytes, separators, JSON/CBOR keys. */
static int literal_bytes(const lbt_format *f)
{
	int n = (int)f->nkeys;

	for (size_t i = 0; i < f->prog.n; i++)
		n += f->prog.v[i].op == OP_LIT ? (int)f->prog.v[i].litlen :
		    f->prog.v[i].op == OP_SEP;
	return n;
}

/* True for the JSON encodings, whose lines may lack keys: literal is per line. */
static int keyed_json(const lbt_format *f)
{
	return f->enc == ENC_HJSON || f->enc == ENC_NJSON || f->enc == ENC_KJSON;
}

/*
 * Specificity of formats: more fixed text first, then more fields the
 * format can fill, then the descriptor's priority, then the name (a total
 * order).  The same keys in the same order as the per-line choice of
 * detection (lbt_format_line_best) and of a set of formats (lib/read/
 * input_fmtset.c), so that a line gets the same format alone or in its file.
 */
static int spec_cmp(int lit_a, int nf_a, int pri_a, const char *na, int lit_b, int nf_b,
    int pri_b, const char *nb)
{
	if (lit_a != lit_b)
		return lit_b - lit_a;
	if (nf_a != nf_b)
		return nf_b - nf_a;
	if (pri_a != pri_b)
		return pri_b - pri_a;
	return strcmp(na ? na : "", nb ? nb : "");
}

/*
 * The fields a format's template binds, for its specificity: where the
 * client came from and the connecting address are said of the client
 * field, not read from words of their own, so they make no format more
 * specific (else nginx-xff, which marks its client, would read every
 * plain combined line before nginx-combined and call its address a
 * header's).
 */
#define SAID_OF_CLIENT (LBT_BIT(LBT_F_CLIENT_FROM) | LBT_BIT(LBT_F_CONN))

static int bound_fields(const lbt_format *f)
{
	return __builtin_popcountll(f->fields & ~SAID_OF_CLIENT);
}

/* Specificity order of two formats; see format.h.  @return < 0 when a comes first */
int lbt_format_specificity_cmp(const lbt_format *a, const lbt_format *b)
{
	return spec_cmp(literal_bytes(a), bound_fields(a), a->priority, a->name,
	    literal_bytes(b), bound_fields(b), b->priority, b->name);
}

/* The most specific of the scores that read sample line i (< 64); see format.h. */
int lbt_format_line_best(const lbt_format_score *sc, int n, int i)
{
	int best = -1;

	for (int k = 0; k < n; k++) {
		const lbt_format_score *x = &sc[k], *y = best >= 0 ? &sc[best] : NULL;

		if (!(x->lines & ((uint64_t)1 << i)))
			continue;
		if (y == NULL || spec_cmp(x->literal, x->nfields, x->priority, x->name,
		    y->literal, y->nfields, y->priority, y->name) < 0)
			best = k;
	}
	return best;
}

/*
 * Score format f on the messages into *s.  For JSON formats the fixed text
 * is the keys the lines had (on average over the lines parsed), not the
 * template's: a format that may lack keys, or has none (json), is as
 * specific as the keys it found.
 */
static void score_one(lbt_format *f, const char *const *msgs, const size_t *lens, int n,
    lbt_format_score *s)
{
	uint64_t have = 0;
	long keys = 0;
	lbt_rec rec;
	lbt_err err;

	s->parsed = s->tried = 0;
	s->lines = 0;
	for (int i = 0; i < n; i++) {
		int r;

		if (blank(msgs[i], lens[i]))
			continue;
		s->tried++;
		r = lbt_format_parse(f, msgs[i], lens[i], &rec, &err);
		if (r == LBT_PARSE_OK)
			have |= rec.have, keys += f->keys_found;
		if (r != LBT_PARSE_BAD) {
			s->parsed++;
			s->lines |= i < 64 ? (uint64_t)1 << i : 0;
		}
	}
	s->fields = __builtin_popcountll(have & ~SAID_OF_CLIENT);
	s->literal = keyed_json(f) ? (s->parsed > 0 ? (int)(keys / s->parsed) : 0) :
	    literal_bytes(f);
	s->priority = f->priority;
	s->nfields = bound_fields(f);
}

/* Score every built-in on the messages, best first.  @return entries written */
int lbt_format_detect(const char *const *msgs, const size_t *lens, int n,
    lbt_format_score *scores, int max)
{
	int k = 0;

	for (size_t i = 0; lbt_format_builtins[i].name != NULL && k < max; i++) {
		lbt_format *f = lbt_format_open(lbt_format_builtins[i].name, NULL);

		if (f == NULL)
			continue;
		scores[k].name = lbt_format_builtins[i].name;
		score_one(f, msgs, lens, n, &scores[k]);
		lbt_format_free(f);
		k++;
	}
	qsort(scores, (size_t)k, sizeof scores[0], score_cmp);
	return k;
}
