/*
 * keyhosts.c - the Host headers each key arrived with (see keyhosts.h).
 *
 * One map from (frontend, key, host) to its counts and evidence; the key
 * of the map is the frontend's length (4 bytes), the frontend, the key's
 * length, the key, then the host, so that no byte needs escaping.
 * Frontends, key texts, paths and file names are interned in one set of
 * strings, copied once.  finish() sorts the entries by (frontend, key),
 * cuts them into one row each and ranks the rows.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_int.h"
#include "lbt/evidence.h"
#include "lbt/hmap.h"
#include "lbt/keyhosts.h"
#include "lbt/vec.h"

/* A (frontend, key, host) entry while counting. */
struct pair {
	uint64_t requests, limited;
	lbt_evidence ev;            /* the smallest request by (time, file, line) */
	const char *path;           /* its path, interned ("" none) */
};

struct lbt_keyhosts {
	lbt_hmap *pairs;            /* len32 frontend len32 key host -> struct pair */
	lbt_hmap *strs;             /* interned strings (keys, paths, file names) */
	char *kbuf;                 /* scratch for map keys */
	size_t kcap;
	lbt_keyhosts_stats st;
	int failed;                 /* out of memory during add() */
	int finished;
	lbt_keyhosts_host *hosts;   /* after finish: every pair, grouped by key */
	lbt_keyhosts_row *rows;     /* after finish: ranked */
	size_t nrows;
};

/* The fields read. */
uint64_t lbt_keyhosts_fields(const lbt_keyhosts *k)
{
	(void)k;
	return LBT_BIT(LBT_F_TIME) | LBT_BIT(LBT_F_FRONTEND) | LBT_BIT(LBT_F_KEY) |
	    LBT_BIT(LBT_F_HOST) | LBT_BIT(LBT_F_PATH) | LBT_BIT(LBT_F_TERM) |
	    LBT_BIT(LBT_F_STATUS) | LBT_BIT(LBT_F_FILE) | LBT_BIT(LBT_F_LINE);
}

/* An empty accumulator.  @return it, or NULL with err. */
lbt_keyhosts *lbt_keyhosts_new(lbt_err *err)
{
	lbt_keyhosts *k = calloc(1, sizeof *k);

	if (k != NULL) {
		k->pairs = lbt_hmap_new(sizeof(struct pair));
		k->strs = lbt_hmap_new(sizeof(const char *));
	}
	if (k == NULL || k->pairs == NULL || k->strs == NULL) {
		lbt_keyhosts_free(k);
		lbt_err_set(err, "out of memory");
		return NULL;
	}
	return k;
}

/* The interned copy of s[0..n) (NUL-terminated, stable for the life of k),
 * or NULL when out of memory.  The set's value is the pointer to its own key. */
static const char *intern(lbt_keyhosts *k, const char *s, size_t n)
{
	const char **v;
	int created = 0;

	if ((v = lbt_hmap_put(k->strs, s, n, &created)) == NULL)
		return NULL;
	if (created) {
		lbt_hmap_entry e;

		lbt_hmap_at(k->strs, lbt_hmap_count(k->strs) - 1, &e);
		*v = e.key;
	}
	return *v;
}

/* The parts of a map key: frontend, key, host. */
struct parts {
	const char *fe, *key, *host;
	uint32_t nfe, nkey;
	size_t nhost;
};

/* Cut map key m[0..n) into its parts. */
static struct parts parts_of(const void *m, size_t n)
{
	const char *p = m;
	struct parts x;

	memcpy(&x.nfe, p, 4);
	x.fe = p + 4;
	memcpy(&x.nkey, x.fe + x.nfe, 4);
	x.key = x.fe + x.nfe + 4;
	x.host = x.key + x.nkey;
	x.nhost = n - 8 - x.nfe - x.nkey;
	return x;
}

/* The map key of (frontend, key, host) in k->kbuf.  @return its length, 0
 * when out of memory. */
static size_t pair_key(lbt_keyhosts *k, lbt_str fe, lbt_str key, lbt_str host)
{
	uint32_t lf = (uint32_t)fe.n, lk = (uint32_t)key.n;
	size_t n = 8 + fe.n + key.n + host.n;
	char *p;

	if (fe.n > UINT32_MAX || key.n > UINT32_MAX || LBT_GROW(k->kbuf, k->kcap, n, 128) < 0)
		return 0;
	p = k->kbuf;
	memcpy(p, &lf, 4);
	memcpy(p + 4, fe.p, fe.n);
	memcpy(p + 4 + fe.n, &lk, 4);
	memcpy(p + 8 + fe.n, key.p, key.n);
	memcpy(p + 8 + fe.n + key.n, host.p, host.n);
	return n;
}

/* True when the proxy limited r: termination state P..., or status 429. */
static int limited(const lbt_rec *r)
{
	if ((r->have & LBT_BIT(LBT_F_TERM)) && r->term.n >= 1 && r->term.p[0] == 'P')
		return 1;
	return (r->have & LBT_BIT(LBT_F_STATUS)) && r->status == 429;
}

/* Make r the evidence of p (its file and path interned).  @return 0 or -1. */
static int set_evidence(lbt_keyhosts *k, struct pair *p, const lbt_rec *r)
{
	const char *file = NULL, *path = "";

	if (r->file != NULL && (file = intern(k, r->file, strlen(r->file))) == NULL)
		return -1;
	if ((r->have & LBT_BIT(LBT_F_PATH)) && (path = intern(k, r->path.p, r->path.n)) == NULL)
		return -1;
	lbt_evidence_set(&p->ev, r, file);
	p->path = path;
	return 0;
}

/* Count one record.  @return 0, or -1 when out of memory (sticky). */
int lbt_keyhosts_add(lbt_keyhosts *k, const lbt_rec *r)
{
	struct pair *p;
	lbt_str fe;
	size_t n;

	k->st.records++;
	if (k->finished || k->failed)
		return -1;
	if (r->kind != LBT_KIND_REQUEST)
		return 0;
	if (!(r->have & LBT_BIT(LBT_F_KEY)) || r->key.n == 0) {
		k->st.no_key++;
		return 0;
	}
	if (!(r->have & LBT_BIT(LBT_F_HOST))) {
		k->st.no_host++;
		return 0;
	}
	k->st.counted++;
	fe = (r->have & LBT_BIT(LBT_F_FRONTEND)) ? r->frontend : lbt_str_make("", 0);
	if (fe.n > 0 && fe.p[fe.n - 1] == '~')       /* %ft of an SSL listener */
		fe.n--;
	if ((n = pair_key(k, fe, r->key, r->host)) == 0 ||
	    (p = lbt_hmap_put(k->pairs, k->kbuf, n, NULL)) == NULL)
		goto oom;
	p->requests++;
	p->limited += limited(r);
	if (lbt_evidence_better(&p->ev, r) && set_evidence(k, p, r) < 0)
		goto oom;
	return 0;
oom:
	k->failed = 1;
	return -1;
}

/* An empty twin.  @return it, or NULL with err. */
lbt_keyhosts *lbt_keyhosts_spawn(const lbt_keyhosts *k, lbt_err *err)
{
	(void)k;
	return lbt_keyhosts_new(err);
}

/* Merge one pair of src (entry e) into k.  @return 0 or -1 (out of memory). */
static int merge_pair(lbt_keyhosts *k, const lbt_hmap_entry *e)
{
	const struct pair *s = e->val;
	struct pair *d = lbt_hmap_put(k->pairs, e->key, e->klen, NULL);

	if (d == NULL)
		return -1;
	d->requests += s->requests;
	d->limited += s->limited;
	if (lbt_evidence_cmp(&s->ev, &d->ev) < 0) {
		d->ev = s->ev;
		d->ev.file = s->ev.file ? intern(k, s->ev.file, strlen(s->ev.file)) : NULL;
		d->path = intern(k, s->path, strlen(s->path));
		if ((s->ev.file && d->ev.file == NULL) || d->path == NULL)
			return -1;
	}
	return 0;
}

/* Merge src into k (src consumed).  @return 0 or -1 with err. */
int lbt_keyhosts_merge(lbt_keyhosts *k, lbt_keyhosts *src, lbt_err *err)
{
	lbt_hmap_entry e;

	/* The precondition (analysis.h): a bug of the caller, refused with an
	 * error too when NDEBUG drops the asserts. */
	assert(k != src && !k->finished && !src->finished);
	if (k->finished || src->finished)
		return lbt_err_set(err, "keyhosts: merge after finish");
	if (src->failed)
		k->failed = 1;
	k->st.records += src->st.records;
	k->st.counted += src->st.counted;
	k->st.no_key += src->st.no_key;
	k->st.no_host += src->st.no_host;
	for (size_t i = 0; i < lbt_hmap_count(src->pairs) && !k->failed; i++) {
		lbt_hmap_at(src->pairs, i, &e);
		if (merge_pair(k, &e) < 0)
			k->failed = 1;
	}
	return k->failed ? lbt_err_set(err, "out of memory") : 0;
}

/* Order of two byte strings: bytes, then the shorter first. */
static int bytes_cmp(const char *a, size_t an, const char *b, size_t bn)
{
	int c = memcmp(a, b, an < bn ? an : bn);

	return c != 0 ? c : (an > bn) - (an < bn);
}

/* lbt_hmap_sorted order of pairs: frontend, key, then requests (more
 * first), then host. */
static int pair_cmp(const lbt_hmap_entry *a, const lbt_hmap_entry *b, void *ctx)
{
	const struct pair *x = a->val, *y = b->val;
	struct parts pa = parts_of(a->key, a->klen), pb = parts_of(b->key, b->klen);
	int c;

	(void)ctx;
	if ((c = bytes_cmp(pa.fe, pa.nfe, pb.fe, pb.nfe)) != 0 ||
	    (c = bytes_cmp(pa.key, pa.nkey, pb.key, pb.nkey)) != 0)
		return c;
	if (x->requests != y->requests)
		return x->requests > y->requests ? -1 : 1;
	return bytes_cmp(pa.host, pa.nhost, pb.host, pb.nhost);
}

/* qsort order of rows: limited, requests (more first), frontend, key. */
static int row_cmp(const void *a, const void *b)
{
	const lbt_keyhosts_row *x = a, *y = b;
	int c;

	if (x->limited != y->limited)
		return x->limited > y->limited ? -1 : 1;
	if (x->requests != y->requests)
		return x->requests > y->requests ? -1 : 1;
	if ((c = strcmp(x->frontend, y->frontend)) != 0)
		return c;
	return strcmp(x->key, y->key);
}

/* True when entries a and b are of the same frontend and key. */
static int same_key(const lbt_hmap_entry *a, const lbt_hmap_entry *b)
{
	struct parts pa = parts_of(a->key, a->klen), pb = parts_of(b->key, b->klen);

	return pa.nfe == pb.nfe && pa.nkey == pb.nkey && memcmp(pa.fe, pb.fe, pa.nfe) == 0 &&
	    memcmp(pa.key, pb.key, pa.nkey) == 0;
}

/* Start a row for the entry e (frontend and key interned).  @return 0 or -1. */
static int new_row(lbt_keyhosts *k, const lbt_hmap_entry *e, size_t *cap)
{
	struct parts x = parts_of(e->key, e->klen);
	lbt_keyhosts_row *r;

	if (LBT_GROW(k->rows, *cap, k->nrows + 1, 16) < 0)
		return -1;
	r = &k->rows[k->nrows];
	*r = (lbt_keyhosts_row){ .hosts = k->hosts };
	if ((r->frontend = intern(k, x.fe, x.nfe)) == NULL ||
	    (r->key = intern(k, x.key, x.nkey)) == NULL)
		return -1;
	k->nrows++;
	return 0;
}

/* Cut the sorted pairs v[0..n) into hosts and rows.  @return 0 or -1. */
static int build_rows(lbt_keyhosts *k, const lbt_hmap_entry *v, size_t n)
{
	size_t cap = 0;

	if ((k->hosts = malloc((n ? n : 1) * sizeof *k->hosts)) == NULL)
		return -1;
	for (size_t i = 0; i < n; i++) {
		const struct pair *p = v[i].val;
		lbt_keyhosts_row *r;

		if ((i == 0 || !same_key(&v[i - 1], &v[i])) && new_row(k, &v[i], &cap) < 0)
			return -1;
		r = &k->rows[k->nrows - 1];
		if (r->nhosts == 0)
			r->hosts = &k->hosts[i];
		k->hosts[i] = (lbt_keyhosts_host){ parts_of(v[i].key, v[i].klen).host, p->requests,
		    p->limited, p->path ? p->path : "", p->ev.file, p->ev.line };
		r->nhosts++;
		r->requests += p->requests;
		r->limited += p->limited;
	}
	if (k->nrows > 1)
		qsort(k->rows, k->nrows, sizeof *k->rows, row_cmp);
	return 0;
}

/* Rank.  @return 0, or -1 with err. */
int lbt_keyhosts_finish(lbt_keyhosts *k, lbt_err *err)
{
	lbt_hmap_entry *v;
	size_t n;
	int rc;

	if (k->finished)
		return lbt_err_set(err, "keyhosts: finished twice");
	k->finished = 1;
	k->st.pairs = lbt_hmap_count(k->pairs);
	if (k->failed || (v = lbt_hmap_sorted(k->pairs, pair_cmp, NULL, &n)) == NULL)
		return lbt_err_set(err, "keyhosts: out of memory");
	rc = build_rows(k, v, n);
	free(v);
	return rc < 0 ? lbt_err_set(err, "keyhosts: out of memory") : 0;
}

/* Rows after finish. */
size_t lbt_keyhosts_nrows(const lbt_keyhosts *k)
{
	return k->nrows;
}

/* Row i, or NULL past the end. */
const lbt_keyhosts_row *lbt_keyhosts_row_at(const lbt_keyhosts *k, size_t i)
{
	return i < k->nrows ? &k->rows[i] : NULL;
}

/* Counters. */
const lbt_keyhosts_stats *lbt_keyhosts_stats_get(const lbt_keyhosts *k)
{
	return &k->st;
}

/* Free k; NULL accepted. */
void lbt_keyhosts_free(lbt_keyhosts *k)
{
	if (k == NULL)
		return;
	lbt_hmap_free(k->pairs);
	lbt_hmap_free(k->strs);
	free(k->kbuf);
	free(k->hosts);
	free(k->rows);
	free(k);
}

/* The analysis.h vtable and lbt_keyhosts_analysis() (analysis_int.h). */
LBT_ANALYSIS_DEFINE(keyhosts, 0)
