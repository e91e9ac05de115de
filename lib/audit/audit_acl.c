/*
 * audit_acl.c - the rules of a proxy and their conditions as HAProxy 2.6
 * reads them (configuration.txt §7): `acl NAME CRITERION [flags]
 * [operator] VALUE...` lines, anonymous `{ CRITERION ... }` blocks, terms
 * ANDed, "or" / "||" between branches, '!' negating a term, and the rules
 * `http-request ACTION ... [if|unless COND]` and `tcp-request connection|
 * content|session ACTION ...`.
 *
 * Of a criterion only two kinds matter to the audit: stick counters (the
 * rate limit: sc_http_req_rate(0), sc0_conn_cur, src_http_req_rate(t), a
 * table_http_req_rate(t) converter) with their operator and value, and the
 * Host header (hdr(host), req.hdr(host), hdr_beg(host), base, base_beg...,
 * with -i, -m and the lower converter), which this file can evaluate on a
 * logged Host.  Everything is a view of the words of lbt_hacfg: nothing is
 * copied but the counter name.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "audit_int.h"
#include "lbt/num.h"
#include "lbt/vec.h"

/* A criterion cut into its fetch, the fetch's first two arguments and
 * whether converters follow (lower alone, or others). */
struct crit {
	char name[64];
	char arg[2][64];
	int lower;                  /* a ",lower" converter */
	int other_conv;             /* any other converter */
	char table_conv[64];        /* "table_<counter>" converter's counter, "" none */
	char table_arg[64];         /* its table */
};

/* Stick counters HAProxy 2.6 names (sc_*, scN_*, src_*, table_*). */
static int is_counter(const char *c)
{
	static const char *const known[] = {
		"http_req_rate", "http_req_cnt", "http_err_rate", "http_err_cnt",
		"http_fail_rate", "http_fail_cnt", "conn_rate", "conn_cnt", "conn_cur",
		"sess_rate", "sess_cnt", "bytes_in_rate", "bytes_out_rate", "kbytes_in",
		"kbytes_out", "gpc0", "gpc1", "gpc0_rate", "gpc1_rate", "gpc", "gpc_rate",
		"gpt0", "gpt", "glitch_rate", "glitch_cnt", "get_gpc0", "get_gpc1",
		"get_gpt0", "get_gpc", "get_gpt", "inc_gpc0", "inc_gpc1", "inc_gpc",
		"trackers", "tracked", "expire", "idle",
	};

	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
		if (strcmp(c, known[i]) == 0)
			return 1;
	return 0;
}

/* Copy s[0..n) into a buffer of `size` bytes, truncated. */
static void put(char *dst, size_t size, const char *s, size_t n)
{
	if (n >= size)
		n = size - 1;
	memcpy(dst, s, n);
	dst[n] = '\0';
}

/* Parse "(a,b)" at *p into arg[0..2) (more arguments are ignored); *p is
 * moved past the ')'. */
static void args(const char **p, char (*arg)[64])
{
	const char *s = *p + 1, *close = strchr(s, ')');
	lbt_str item;
	int k = 0;

	if (close == NULL)
		close = s + strlen(s);
	while (k < 2 && s < close) {
		const char *comma = memchr(s, ',', (size_t)(close - s));
		const char *e = comma ? comma : close;

		item = lbt_str_make(s, (size_t)(e - s));
		put(arg[k++], 64, item.p, item.n);
		s = comma ? comma + 1 : close;
	}
	*p = *close ? close + 1 : close;
}

/* Cut criterion s ("sc_http_req_rate(0)", "hdr(host),lower") into c. */
static void crit_parse(const char *s, struct crit *c)
{
	const char *p = s + strcspn(s, "(,");

	memset(c, 0, sizeof *c);
	put(c->name, sizeof c->name, s, (size_t)(p - s));
	if (*p == '(')
		args(&p, c->arg);
	while (*p == ',') {
		const char *n = ++p;
		char a[2][64] = { "", "" };

		p += strcspn(p, "(,");
		if ((size_t)(p - n) == 5 && memcmp(n, "lower", 5) == 0)
			c->lower = 1;
		else if ((size_t)(p - n) > 6 && memcmp(n, "table_", 6) == 0 &&
		    c->table_conv[0] == '\0') {
			put(c->table_conv, sizeof c->table_conv, n + 6, (size_t)(p - n - 6));
			if (*p == '(') {
				args(&p, a);
				put(c->table_arg, sizeof c->table_arg, a[0], strlen(a[0]));
			}
			continue;
		} else
			c->other_conv = 1;
		if (*p == '(')
			args(&p, a);
	}
}

/* Fill counter fields of p from criterion c.  @return 1 when it is a stick
 * counter, else 0. */
static int counter_of(struct au_pat *p, const struct crit *c)
{
	const char *n = c->name, *ctr = NULL, *table = "";
	int sc = -1;

	if (strncmp(n, "sc_", 3) == 0) {
		ctr = n + 3;
		sc = c->arg[0][0] ? atoi(c->arg[0]) : 0;
		table = c->arg[1];
	} else if (n[0] == 's' && n[1] == 'c' && n[2] >= '0' && n[2] <= '9' && n[3] == '_') {
		ctr = n + 4;
		sc = n[2] - '0';
		table = c->arg[0];
	} else if (strncmp(n, "src_", 4) == 0) {
		ctr = n + 4;
		table = c->arg[0];
	}
	if (ctr == NULL || !is_counter(ctr)) {
		if (c->table_conv[0] == '\0' || !is_counter(c->table_conv))
			return 0;
		ctr = c->table_conv;
		table = c->table_arg;
		sc = -1;
	}
	put(p->counter, sizeof p->counter, ctr, strlen(ctr));
	p->sc = sc;
	put(p->table, sizeof p->table, table, strlen(table));
	return 1;
}

/* The Host match of criterion c (fetch and suffix): 1 and p filled, or 0. */
static int host_of(struct au_pat *p, const struct crit *c)
{
	static const struct { const char *suffix; int match; } sfx[] = {
		{ "", AU_M_STR }, { "_str", AU_M_STR }, { "_beg", AU_M_BEG }, { "_end", AU_M_END },
		{ "_sub", AU_M_SUB }, { "_dom", AU_M_DOM }, { "_reg", AU_M_REG },
	};
	const char *n = c->name, *rest = NULL;

	if (strncmp(n, "base", 4) == 0) {
		rest = n + 4;
		p->base = 1;
	} else if (strcasecmp(c->arg[0], "host") == 0) {
		if (strncmp(n, "req.fhdr", 8) == 0 || strncmp(n, "req.hdr", 7) == 0)
			rest = n + (n[4] == 'f' ? 8 : 7);
		else if (strncmp(n, "hdr", 3) == 0)
			rest = n + 3;
	}
	if (rest == NULL)
		return 0;
	for (size_t i = 0; i < sizeof sfx / sizeof sfx[0]; i++)
		if (strcmp(rest, sfx[i].suffix) == 0) {
			p->match = sfx[i].match;
			p->icase = c->lower;
			if (c->other_conv)
				p->match = AU_M_UNKNOWN;
			return 1;
		}
	return 0;
}

/* The -m METHOD of a Host pattern. */
static int match_named(const char *m)
{
	static const struct { const char *name; int match; } map[] = {
		{ "str", AU_M_STR }, { "beg", AU_M_BEG }, { "end", AU_M_END }, { "sub", AU_M_SUB },
		{ "dom", AU_M_DOM }, { "reg", AU_M_REG }, { "found", AU_M_FOUND },
	};

	for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
		if (strcmp(m, map[i].name) == 0)
			return map[i].match;
	return AU_M_UNKNOWN;
}

/* The operator named w, or AU_OP_NONE. */
static int op_named(const char *w)
{
	static const char *const ops[] = { "eq", "ge", "gt", "le", "lt" };

	for (int i = 0; i < 5; i++)
		if (strcmp(w, ops[i]) == 0)
			return AU_OP_EQ + i;
	return AU_OP_NONE;
}

/* Flags at word i of p's words: -i, -m M, -f F, -M, -n, -u ID, --.
 * @return the index of the first word after them. */
static int flags(struct au_pat *p, int i, int *unknown)
{
	char **w = p->dir->word;

	while (i < p->end && w[i][0] == '-' && w[i][1] != '\0') {
		if (strcmp(w[i], "--") == 0)
			return i + 1;
		if (strcmp(w[i], "-i") == 0)
			p->icase = 1;
		else if (strcmp(w[i], "-m") == 0 && i + 1 < p->end)
			p->match = match_named(w[++i]);
		else if ((strcmp(w[i], "-f") == 0 || strcmp(w[i], "-u") == 0) && i + 1 < p->end)
			*unknown |= w[i++][1] == 'f';
		else if (strcmp(w[i], "-M") != 0 && strcmp(w[i], "-n") != 0)
			break;                  /* a negative number: a value */
		i++;
	}
	return i;
}

/* Parse the definition in words [first, end) of d into p. */
static void pat_parse(struct au_pat *p, const lbt_hacfg_dir *d, int first, int end)
{
	struct crit c;
	int i, unknown = 0;
	int64_t v;

	*p = (struct au_pat){ .dir = d, .first = first, .end = end, .sc = -1 };
	if (first >= end)
		return;
	crit_parse(d->word[first], &c);
	if (counter_of(p, &c))
		p->kind = AU_COUNTER;
	else if (host_of(p, &c))
		p->kind = AU_HOST;
	i = flags(p, first + 1, &unknown);
	if (p->kind == AU_HOST) {
		if (unknown)
			p->match = AU_M_UNKNOWN;
		p->values = d->word + i;
		p->nvalues = end - i;
	} else if (p->kind == AU_COUNTER && i < end && !c.other_conv) {
		p->op = op_named(d->word[i]);
		if (p->op != AU_OP_NONE)
			i++;
		else
			p->op = AU_OP_EQ;
		if (i >= end || lbt_num_i64(d->word[i], strlen(d->word[i]), &v) < 0)
			p->op = AU_OP_NONE;
		else
			p->value = v;
	}
}

/* ---- reading a section --------------------------------------------------- */

/* True for an action that stops a request (the rate limit's). */
static int limit_action(const char *a)
{
	return strcmp(a, "tarpit") == 0 || strcmp(a, "deny") == 0 || strcmp(a, "reject") == 0 ||
	    strcmp(a, "silent-drop") == 0 || strcmp(a, "return") == 0;
}

/* Count the definitions section s can hold (acl lines and { blocks). */
static size_t count_pats(const lbt_hacfg_sect *s)
{
	size_t n = 0;

	for (size_t i = 0; i < s->ndir; i++) {
		const lbt_hacfg_dir *d = &s->dir[i];

		if (strcmp(d->word[0], "acl") == 0)
			n++;
		else
			for (int k = 1; k < d->nword; k++)
				n += strcmp(d->word[k], "{") == 0 || strcmp(d->word[k], "!{") == 0;
	}
	return n;
}

/* The acl lines of s into r->pat (room was made by count_pats). */
static void read_acls(struct au_rules *r, const lbt_hacfg_sect *s)
{
	for (size_t i = 0; i < s->ndir; i++)
		if (strcmp(s->dir[i].word[0], "acl") == 0 && s->dir[i].nword >= 3)
			pat_parse(&r->pat[r->npat++], &s->dir[i], 2, s->dir[i].nword);
}

/* Term t names ACL `name`: point it at every acl line of that name.
 * @return 0 or -1 (out of memory). */
static int named_term(struct au_rules *r, struct au_term *t, const char *name, size_t nacl)
{
	t->name = name;
	for (size_t i = 0; i < nacl; i++)
		if (strcmp(r->pat[i].dir->word[1], name) == 0)
			t->npat++;
	if (t->npat == 0)
		return 0;             /* a predefined ACL (TRUE, HTTP, ...): no pattern here */
	if ((t->pat = malloc(t->npat * sizeof *t->pat)) == NULL)
		return -1;
	t->npat = 0;
	for (size_t i = 0; i < nacl; i++)
		if (strcmp(r->pat[i].dir->word[1], name) == 0)
			t->pat[t->npat++] = &r->pat[i];
	return 0;
}

/* A { } block at word i of d as term t.  @return the word after its '}', or -1. */
static int block_term(struct au_rules *r, struct au_term *t, const lbt_hacfg_dir *d, int i)
{
	int j = i + 1;

	while (j < d->nword && strcmp(d->word[j], "}") != 0)
		j++;
	pat_parse(&r->pat[r->npat], d, i + 1, j);
	if ((t->pat = malloc(sizeof *t->pat)) == NULL)
		return -1;
	t->pat[0] = &r->pat[r->npat++];
	t->npat = 1;
	return j < d->nword ? j + 1 : j;
}

/* A new branch of condition c with room for n terms.  @return it, or NULL. */
static struct au_branch *new_branch(struct au_cond *c, int n)
{
	struct au_branch *b = &c->br[c->nbr++];

	return (b->t = calloc((size_t)n, sizeof *b->t)) != NULL ? b : NULL;
}

/* The term at word i of d into t (a '!' prefix, a { } block or an ACL
 * name).  @return the word after it, or -1 when out of memory. */
static int term_parse(struct au_rules *r, struct au_term *t, const lbt_hacfg_dir *d, int i,
    size_t nacl)
{
	const char *w = d->word[i];
	int start = i;

	for (; *w == '!'; w++)
		t->neg = !t->neg;
	if (*w == '\0' && ++i < d->nword)     /* "! name" */
		w = d->word[i];
	if (strcmp(w, "{") == 0)
		i = block_term(r, t, d, i);
	else if (named_term(r, t, w, nacl) < 0)
		return -1;
	else
		i++;
	t->word = start;
	t->nwords = i - start;
	return i;
}

/* Parse the condition of rule u from word i of its line.  @return 0 or -1. */
static int cond_parse(struct au_rules *r, struct au_rule *u, int i, size_t nacl)
{
	const lbt_hacfg_dir *d = u->dir;
	struct au_cond *c = &u->cond;
	struct au_branch *b;

	c->cond_word = i;
	c->unless = strcmp(d->word[i], "unless") == 0;
	if ((c->br = calloc((size_t)d->nword, sizeof *c->br)) == NULL ||
	    (b = new_branch(c, d->nword)) == NULL)
		return -1;
	for (i++; i < d->nword && i >= 0;) {
		if (strcmp(d->word[i], "or") == 0 || strcmp(d->word[i], "||") == 0) {
			if ((b = new_branch(c, d->nword)) == NULL)
				return -1;
			i++;
		} else
			i = term_parse(r, &b->t[b->n++], d, i, nacl);
	}
	return i < 0 ? -1 : 0;
}

/* Parse rule line d into a new rule of r.  @return 0 or -1. */
static int rule_parse(struct au_rules *r, const lbt_hacfg_dir *d, size_t nacl)
{
	int a = strcmp(d->word[0], "tcp-request") == 0 ? 2 : 1;
	struct au_rule *u;

	if (d->nword <= a)
		return 0;
	if (LBT_GROW(r->rule, r->rulecap, r->nrule + 1, 16) < 0)
		return -1;
	u = &r->rule[r->nrule++];
	*u = (struct au_rule){ .dir = d, .action = d->word[a], .track = -1,
	    .cond = { .cond_word = -1 } };
	u->limit = limit_action(u->action);
	if (strncmp(u->action, "track-sc", 8) == 0 && u->action[8] >= '0' && u->action[8] <= '9')
		u->track = u->action[8] - '0';
	for (int i = a + 1; i < d->nword; i++) {
		if (u->track >= 0 && strcmp(d->word[i], "table") == 0 && i + 1 < d->nword)
			u->track_table = d->word[i + 1];
		if (strcmp(d->word[i], "if") == 0 || strcmp(d->word[i], "unless") == 0)
			return cond_parse(r, u, i, nacl);
	}
	return 0;
}

/* Read the ACLs and rules of s into r.  @return 0 or -1 (out of memory). */
int lbt_auditi_rules_read(struct au_rules *r, const lbt_hacfg_sect *s)
{
	size_t np = count_pats(s), nacl;

	memset(r, 0, sizeof *r);
	if ((r->pat = calloc(np ? np : 1, sizeof *r->pat)) == NULL)
		return -1;
	read_acls(r, s);
	nacl = r->npat;
	for (size_t i = 0; i < s->ndir; i++) {
		const char *w0 = s->dir[i].word[0];

		if ((strcmp(w0, "http-request") == 0 || strcmp(w0, "tcp-request") == 0) &&
		    rule_parse(r, &s->dir[i], nacl) < 0)
			return -1;
	}
	return 0;
}

/* Free r's memory. */
void lbt_auditi_rules_free(struct au_rules *r)
{
	for (size_t i = 0; i < r->nrule; i++) {
		struct au_cond *c = &r->rule[i].cond;

		for (size_t b = 0; b < c->nbr; b++) {
			for (size_t t = 0; t < c->br[b].n; t++)
				free(c->br[b].t[t].pat);
			free(c->br[b].t);
		}
		free(c->br);
	}
	free(r->rule);
	free(r->pat);
	memset(r, 0, sizeof *r);
}

/* ---- questions about a branch -------------------------------------------- */

/* The first counter pattern of a positive term of b, or NULL. */
const struct au_pat *lbt_auditi_counter(const struct au_branch *b)
{
	for (size_t i = 0; i < b->n; i++)
		for (size_t k = 0; !b->t[i].neg && k < b->t[i].npat; k++)
			if (b->t[i].pat[k]->kind == AU_COUNTER)
				return b->t[i].pat[k];
	return NULL;
}

/* The counter that makes rule u a rate limit (in a positive branch of an
 * `if`), or NULL. */
const struct au_pat *lbt_auditi_rate_counter(const struct au_rule *u)
{
	const struct au_pat *c = NULL;

	for (size_t b = 0; !u->cond.unless && b < u->cond.nbr && c == NULL; b++)
		c = lbt_auditi_counter(&u->cond.br[b]);
	return c;
}

/* True when term t tests the Host. */
static int host_term(const struct au_term *t)
{
	return t->npat > 0 && t->pat[0]->kind == AU_HOST;
}

/* True when b has a Host term. */
int lbt_auditi_has_host(const struct au_branch *b)
{
	for (size_t i = 0; i < b->n; i++)
		if (host_term(&b->t[i]))
			return 1;
	return 0;
}

/* True when c is a delimiter of a "dom" match. */
static int dom_delim(char c)
{
	return c == '\0' || c == '/' || c == '?' || c == '.' || c == ':';
}

/* HAProxy's dom match: pattern found in v between delimiters. */
static int match_dom(const char *v, const char *pat, int icase)
{
	size_t n = strlen(pat);

	for (const char *s = v; *s; s++)
		if ((s == v || dom_delim(s[-1])) &&
		    (icase ? strncasecmp(s, pat, n) : strncmp(s, pat, n)) == 0 && dom_delim(s[n]))
			return 1;
	return 0;
}

/* Regex pat on v (PCRE2, caseless with -i).  @return 1, 0, or -1 (bad regex). */
static int match_reg(const char *v, const char *pat, int icase)
{
	int ec, rc;
	PCRE2_SIZE eo;
	pcre2_code *re = pcre2_compile((PCRE2_SPTR)pat, PCRE2_ZERO_TERMINATED,
	    icase ? PCRE2_CASELESS : 0, &ec, &eo, NULL);
	pcre2_match_data *md;

	if (re == NULL)
		return -1;
	md = pcre2_match_data_create_from_pattern(re, NULL);
	rc = md == NULL ? -1 : pcre2_match(re, (PCRE2_SPTR)v, strlen(v), 0, 0, md, NULL);
	pcre2_match_data_free(md);
	pcre2_code_free(re);
	return rc >= 0 ? 1 : rc == PCRE2_ERROR_NOMATCH ? 0 : -1;
}

/* One value of pattern p on v.  @return 1, 0 or -1 (cannot tell). */
static int match_one(const struct au_pat *p, const char *v, const char *pat)
{
	size_t lv = strlen(v), lp = strlen(pat);
	int (*cmp)(const char *, const char *, size_t) = p->icase ? strncasecmp : strncmp;

	switch (p->match) {
	case AU_M_STR:
		return lv == lp && cmp(v, pat, lp) == 0;
	case AU_M_BEG:
		return lv >= lp && cmp(v, pat, lp) == 0;
	case AU_M_END:
		return lv >= lp && cmp(v + lv - lp, pat, lp) == 0;
	case AU_M_SUB:
		for (size_t i = 0; i + lp <= lv; i++)
			if (cmp(v + i, pat, lp) == 0)
				return 1;
		return 0;
	case AU_M_DOM:
		return match_dom(v, pat, p->icase);
	case AU_M_REG:
		return match_reg(v, pat, p->icase);
	case AU_M_FOUND:
		return 1;
	default:
		return -1;
	}
}

/* Pattern p on a request with this host and path.  @return 1, 0 or -1. */
static int pat_match(const struct au_pat *p, const char *host, const char *path)
{
	char buf[2048];
	const char *v = host;
	int r;

	if (p->match == AU_M_UNKNOWN)
		return -1;
	if (p->match == AU_M_FOUND)
		return 1;
	if (p->base) {
		snprintf(buf, sizeof buf, "%s%s", host, path);
		v = buf;
	}
	for (int i = 0; i < p->nvalues; i++)
		if ((r = match_one(p, v, p->values[i])) != 0)
			return r;
	return 0;
}

/* Whether branch b lets (host, path) through its Host terms: 1, 0 or -1. */
int lbt_auditi_host_ok(const struct au_branch *b, const char *host, const char *path)
{
	int ok = 1;

	for (size_t i = 0; i < b->n; i++) {
		const struct au_term *t = &b->t[i];
		int m = 0;

		if (!host_term(t))
			continue;
		for (size_t k = 0; k < t->npat && m == 0; k++)
			m = t->pat[k]->kind == AU_HOST ? pat_match(t->pat[k], host, path) : -1;
		if (m < 0)
			return -1;
		if (m == t->neg)
			ok = 0;
	}
	return ok;
}

/* The track-scN rule of r feeding counter c, when its key is the bare
 * `src`, or NULL.  The last track-scN before a rule wins in HAProxy only
 * when the counter is not tracked yet; the first one is the one that
 * counts, as here. */
const struct au_rule *lbt_auditi_src_tracker(const struct au_rules *r, const struct au_pat *c)
{
	for (size_t i = 0; c->sc >= 0 && i < r->nrule; i++) {
		const struct au_rule *u = &r->rule[i];
		int k = 0;

		while (k < u->dir->nword && u->dir->word[k] != u->action)
			k++;
		if (u->track == c->sc)
			return k + 1 < u->dir->nword && strcmp(u->dir->word[k + 1], "src") == 0 ?
			    u : NULL;
	}
	return NULL;
}
