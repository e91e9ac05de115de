/*
 * offenders_merge.c - two lbt_offenders accumulators made one (see
 * analysis.h), and the vtable.
 *
 * Every figure of a source is a sum (requests, statuses, tarpitted, held
 * time, its 1 s series and so its peak), a minimum or maximum (first and
 * last time), a smallest evidence by (time, file, line), or a set (the
 * client addresses, exact up to the cap): each merges exactly.  The
 * window sums, ratios and ranking happen in finish(), from the merged
 * series.  Keys and file names are numbered per accumulator, so src's are
 * interned again in dst.  The space-saving key counters merge exactly
 * while the source hit at most LBT_OFF_TOPK keys in all; past that, as in
 * one accumulator, the counts are upper bounds marked approximate: a full
 * summary's smallest count stands for the keys it does not hold
 * (Agarwal et al., "Mergeable summaries", 2012).
 *
 * Over budget (offenders.h, "Memory budget"), a part's floor bounds what
 * a source it does not hold sent in it: a source only in dst may have
 * sent src's floor there, one only in src dst's floor, and the merged
 * floor is the sum.  Both floors 0 (both under budget): exact.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_int.h"
#include "offenders_int.h"

/* An empty accumulator with o's options (and parsed --baseline).
 * @return it, or NULL with err. */
lbt_offenders *lbt_offenders_spawn(const lbt_offenders *o, lbt_err *err)
{
	lbt_offenders *t = lbt_offenders_new(&o->o, err);

	if (t == NULL)
		return NULL;
	t->base_from = o->base_from;
	t->base_to = o->base_to;
	t->base_tod = o->base_tod;
	t->st.baseline = o->st.baseline;
	return t;
}

/* The smallest count of a full summary, else 0 (a key it does not hold
 * was seen at most that often). */
static uint32_t topk_floor(const struct topk *t)
{
	uint32_t m = UINT32_MAX;

	if (t->n < LBT_OFF_TOPK)
		return 0;
	for (uint32_t i = 0; i < t->n; i++)
		if (t->cnt[i] < m)
			m = t->cnt[i];
	return m;
}

/* A candidate counter while merging two summaries. */
struct cand {
	uint32_t id;
	uint64_t cnt, err;
};

/* Keep the LBT_OFF_TOPK largest of v[0..n) in t, larger counts first, equal
 * ones by key text. */
static void topk_keep(const lbt_offenders *o, struct topk *t, struct cand *v, size_t n)
{
	t->n = 0;
	while (t->n < LBT_OFF_TOPK && n > 0) {
		size_t best = 0;
		lbt_hmap_entry a, b;

		for (size_t i = 1; i < n; i++) {
			lbt_hmap_at(o->keys, v[i].id, &a);
			lbt_hmap_at(o->keys, v[best].id, &b);
			if (v[i].cnt > v[best].cnt || (v[i].cnt == v[best].cnt &&
			    strcmp(a.key, b.key) < 0))
				best = i;
		}
		t->id[t->n] = v[best].id;
		t->cnt[t->n] = v[best].cnt > UINT32_MAX ? UINT32_MAX : (uint32_t)v[best].cnt;
		t->err[t->n] = v[best].err > UINT32_MAX ? UINT32_MAX : (uint32_t)v[best].err;
		t->n++;
		v[best] = v[--n];
	}
}

/* Merge summary `from` (key numbers of src, interned again in o) into `to`.
 * @return 0 or -1 (out of memory). */
static int merge_topk(lbt_offenders *o, const lbt_offenders *src, struct topk *to,
    const struct topk *from)
{
	struct cand v[2 * LBT_OFF_TOPK];
	uint32_t fto = topk_floor(to), ffrom = topk_floor(from);
	size_t n = 0;

	for (uint32_t i = 0; i < to->n; i++)
		v[n++] = (struct cand){ to->id[i], (uint64_t)to->cnt[i] + ffrom,
		    (uint64_t)to->err[i] + ffrom };
	for (uint32_t i = 0; i < from->n; i++) {
		lbt_hmap_entry e;
		uint32_t id;
		size_t k;

		lbt_hmap_at(src->keys, from->id[i], &e);
		if (lbt_offendersi_key_intern(o, e.key, e.klen, &id) < 0)
			return -1;
		for (k = 0; k < to->n && v[k].id != id; k++)
			;
		if (k < to->n) {                 /* held by both: the floor was a guess */
			v[k].cnt += (uint64_t)from->cnt[i] - ffrom;
			v[k].err += (uint64_t)from->err[i] - ffrom;
		} else {
			v[n++] = (struct cand){ id, (uint64_t)from->cnt[i] + fto,
			    (uint64_t)from->err[i] + fto };
		}
	}
	topk_keep(o, to, v, n);
	return 0;
}

/* Keep the smaller evidence of o's source `to` and src's `from` (its file
 * numbered again in o); before merge_counts, as it reads both first times.
 * @return 0 or -1. */
static int merge_evidence(lbt_offenders *o, const lbt_offenders *src, struct src *to,
    const struct src *from)
{
	lbt_evidence a = lbt_offendersi_evidence(o, to), b = lbt_offendersi_evidence(src, from);

	if (lbt_evidence_cmp(&b, &a) >= 0)
		return 0;
	to->ev_line = from->ev_line;
	return lbt_offendersi_file_id(o, b.file, &to->ev_file);
}

/* Counters, time span and peak of source s after `from` was added to it. */
static void merge_counts(struct src *s, const struct src *from)
{
	if (from->first_us < s->first_us)
		s->first_us = from->first_us;
	if (from->last_us > s->last_us)
		s->last_us = from->last_us;
	s->requests += from->requests;
	for (int i = 0; i < LBT_OFF_NSTATUS; i++)
		s->status[i] += from->status[i];
	s->tarpitted += from->tarpitted;
	s->slow += from->slow;
	s->from_header += from->from_header;
	lbt_offendersi_via(s, &from->via, from->via_many);
	s->held_ms += from->held_ms;
	s->err += from->err;
}

/* Copy the inline request of src's entry `from` into o's new entry `to`,
 * key and file numbered again in o.  @return 0 or -1 (out of memory). */
static int merge_one(lbt_offenders *o, const lbt_offenders *src, struct src_entry *to,
    const struct src_entry *from)
{
	lbt_hmap_entry k;

	*to = *from;
	if (from->key != NO_KEY) {
		lbt_hmap_at(src->keys, from->key, &k);
		if (lbt_offendersi_key_intern(o, k.key, k.klen, &to->key) < 0)
			return -1;
	}
	return lbt_offendersi_file_id(o, lbt_offendersi_file_name(src, from->ev_file),
	    &to->ev_file);
}

/* Move src's full state `from` into o's new source `to`, all but the
 * numbered parts (keys, evidence file) taken over.  @return 0 or -1. */
static int merge_new(lbt_offenders *o, const lbt_offenders *src, const lbt_hmap_entry *to,
    struct src *from)
{
	struct src *s = lbt_offendersi_full_of(o, to, 1);

	if (s == NULL)
		return -1;
	*s = *from;
	from->sec = (lbt_tally)LBT_TALLY_INIT;
	from->addrs = (lbt_addrset)LBT_ADDRSET_INIT;
	s->top.n = 0;
	return merge_topk(o, src, &s->top, &from->top) < 0 ||
	    lbt_offendersi_file_id(o, lbt_offendersi_file_name(src, from->ev_file),
	    &s->ev_file) < 0 ? -1 : 0;
}

/* Fold src's source entry e into o: a source new to o keeps its form, one
 * in both is merged in full form.  @return 0 or -1 (out of memory). */
static int merge_source(lbt_offenders *o, lbt_offenders *src, const lbt_hmap_entry *e)
{
	struct src_entry *fe = e->val;
	struct src *from, *s;
	lbt_hmap_entry to;
	uint64_t net_hi;
	int created;

	if ((to.val = lbt_hmap_put(o->srcs, e->key, e->klen, &created)) == NULL)
		return -1;
	to.key = e->key;
	if (created && fe->full == NULL && o->st.floor == 0)
		return merge_one(o, src, to.val, fe);
	if ((from = lbt_offendersi_full(src, e)) == NULL)
		return -1;
	if (created) {
		from->err += o->st.floor;          /* it may have sent that in dst's part */
		return merge_new(o, src, &to, from);
	}
	memcpy(&net_hi, ((const lbt_addr *)e->key)->b, 8);
	if ((s = lbt_offendersi_full(o, &to)) == NULL ||
	    lbt_tally_merge(&s->sec, &from->sec) < 0 ||
	    lbt_addrset_merge(&s->addrs, &from->addrs, net_hi, o->o.addr_cap) < 0 ||
	    merge_topk(o, src, &s->top, &from->top) < 0 ||
	    merge_evidence(o, src, s, from) < 0)
		return -1;
	merge_counts(s, from);
	return 0;
}

/* Every source of o that src does not hold may have sent src's floor in
 * src's part: its error grows by it.  @return 0 or -1 (out of memory). */
static int widen_missing(lbt_offenders *o, const lbt_offenders *src)
{
	lbt_hmap_entry he;
	struct src *s;

	for (size_t i = 0; i < lbt_hmap_count(o->srcs); i++) {
		lbt_hmap_at(o->srcs, i, &he);
		if (lbt_hmap_get(src->srcs, he.key, he.klen) != NULL)
			continue;
		if ((s = lbt_offendersi_full(o, &he)) == NULL)
			return -1;
		s->err += src->st.floor;
	}
	return 0;
}

/*
 * Merge src into o (see analysis.h and the file comment); src is
 * consumed.  @return 0, or -1 with err.
 */
int lbt_offenders_merge(lbt_offenders *o, lbt_offenders *src, lbt_err *err)
{
	lbt_hmap_entry e;
	int same = o->o.net.v4_bits == src->o.net.v4_bits &&
	    o->o.net.v6_bits == src->o.net.v6_bits && o->o.addr_cap == src->o.addr_cap;

	/* The precondition (analysis.h): a bug of the caller, refused with an
	 * error too when NDEBUG drops the asserts. */
	assert(o != src && !o->finished && !src->finished);
	assert(same);
	if (o->finished || src->finished)
		return lbt_err_set(err, "offenders: merge after finish");
	if (!same)
		return lbt_err_set(err, "offenders: merge of accumulators with different options");
	o->st.records += src->st.records;
	o->st.counted += src->st.counted;
	o->st.no_client += src->st.no_client;
	o->st.from_header += src->st.from_header;
	o->st.header_aside += src->st.header_aside;
	o->st.from_trusted += src->st.from_trusted;
	o->st.no_time += src->st.no_time;
	if (src->failed || (src->st.floor > 0 && widen_missing(o, src) < 0))
		o->failed = -1;
	for (size_t i = 0; i < lbt_hmap_count(src->srcs) && !o->failed; i++) {
		lbt_hmap_at(src->srcs, i, &e);
		if (merge_source(o, src, &e) < 0)
			o->failed = -1;
	}
	if (!o->failed && lbt_series_merge(o->all, src->all) < 0)
		o->failed = -1;
	o->st.floor += src->st.floor;
	o->st.pruned += src->st.pruned;
	o->st.dropped += src->st.dropped;
	o->extra += src->extra;
	if (!o->failed && lbt_offendersi_budget_now(o) < 0)
		o->failed = -1;
	return o->failed ? lbt_err_set(err, "out of memory") : 0;
}

/* The analysis.h vtable and lbt_offenders_analysis() (analysis_int.h): its key counts depend on the cut. */
LBT_ANALYSIS_DEFINE(offenders, LBT_ANALYSIS_ORDER_BOUND)
