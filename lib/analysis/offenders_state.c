/*
 * offenders_state.c - a source's state in two forms (see offenders_int.h,
 * struct src_entry).
 *
 * Most sources of a large input send one request: ten million distinct
 * IPv6 /64s are ten million sources of one request each.  Their full
 * state (a tally, a status mix, an address set, key counters: about 260
 * bytes and a malloc) would be 2.6 GB of which nothing is ever read but
 * one count.  So the map holds 48 bytes a source, the first request
 * inline, and the full state is made from the arena (arena.h) when a
 * second request comes, replaying the first into it: every figure is then
 * exactly what it would have been had it been full from the start.
 */
#include <stdlib.h>
#include <string.h>

#include "offenders_int.h"

/* Non-zero when rec's termination state says a tarpit held it ("PT"). */
int lbt_offendersi_tarpitted(const lbt_rec *rec)
{
	return (rec->have & LBT_BIT(LBT_F_TERM)) && rec->term.n >= 2 && rec->term.p[0] == 'P' &&
	    rec->term.p[1] == 'T';
}

/* Non-zero when rec's headers never came whole in time (408 or "cR"). */
int lbt_offendersi_slow(const lbt_rec *rec)
{
	return ((rec->have & LBT_BIT(LBT_F_STATUS)) && rec->status == 408) ||
	    ((rec->have & LBT_BIT(LBT_F_TERM)) && rec->term.n >= 2 && rec->term.p[0] == 'c' &&
	    rec->term.p[1] == 'R');
}

/* 1 when rec's client came from a header nobody vouches for (rec.h). */
int lbt_offendersi_from_header(const lbt_rec *rec)
{
	return (rec->have & LBT_BIT(LBT_F_CLIENT_FROM)) && rec->client_from == LBT_FROM_HEADER;
}

/* Note that connecting address via (and maybe others: many) sent some of
 * source s's requests whose client came from a header. */
void lbt_offendersi_via(struct src *s, const lbt_addr *via, int many)
{
	if (via->family == 0)
		return;
	if (s->via.family == 0)
		s->via = *via;
	else if (lbt_addr_cmp(&s->via, via) != 0)
		s->via_many = 1;
	s->via_many |= (uint8_t)many;
}

/* The held time of rec in ms: its Tw when tarpitted and positive, else 0. */
static int32_t held_of(const lbt_rec *rec)
{
	return lbt_offendersi_tarpitted(rec) && (rec->have & LBT_BIT(LBT_F_TW)) && rec->tw > 0 ?
	    rec->tw : 0;
}

/* Non-zero when rec can be kept inline for its source net: its address's
 * upper half is the network's (only the lower half is stored; Tw is 32
 * bits in lbt_rec, so its held time always fits). */
int lbt_offendersi_fits(const lbt_rec *rec, const lbt_addr *net)
{
	return memcmp(rec->client.b, net->b, 8) == 0;
}

/* Keep rec inline in e: key number key (NO_KEY: none), file number + 1
 * (0: none), its status class + 1 (0: none; see lbt_offendersi_status_class). */
void lbt_offendersi_keep_one(struct src_entry *e, const lbt_rec *rec, uint32_t key,
    uint32_t file)
{
	e->full = NULL;
	e->time_us = rec->time_us;
	e->ev_line = rec->line;
	memcpy(&e->addr_lo, rec->client.b + 8, 8);
	e->key = key;
	e->ev_file = file;
	e->tarpitted = (uint8_t)lbt_offendersi_tarpitted(rec);
	e->from_header = (uint8_t)lbt_offendersi_from_header(rec);
	e->slow = (uint8_t)lbt_offendersi_slow(rec);
	e->held_ms = held_of(rec);
	e->status = (rec->have & LBT_BIT(LBT_F_STATUS)) ?
	    (uint8_t)(lbt_offendersi_status_class(rec->status) + 1) : 0;
}

/* Replay the inline request of e (source net) into the empty full state s.
 * @return 0 or -1 (out of memory). */
static int replay(lbt_offenders *o, const struct src_entry *e, const lbt_addr *net,
    struct src *s)
{
	uint64_t hi;

	if (lbt_tally_add(&s->sec, lbt_bucket_of(e->time_us, SEC), 1) < 0)
		return -1;
	s->requests = 1;
	s->first_us = s->last_us = e->time_us;
	s->ev_line = e->ev_line;
	s->ev_file = e->ev_file;
	if (e->status > 0)
		s->status[e->status - 1]++;
	s->tarpitted = e->tarpitted;
	s->from_header = e->from_header;
	s->slow = e->slow;
	s->held_ms = e->held_ms;
	memcpy(&hi, net->b, 8);
	if (lbt_addrset_add(&s->addrs, hi, hi, e->addr_lo, o->o.addr_cap) < 0)
		return -1;
	if (e->key != NO_KEY)
		lbt_offendersi_topk_add(&s->top, e->key);
	return 0;
}

/* The full state of map entry he (a source), made from the arena and its
 * inline request replayed into it when it has none yet; an entry just
 * created (its value zero, time_us 0 and no request) gets an empty one
 * when `fresh`.  @return it, or NULL when out of memory. */
struct src *lbt_offendersi_full_of(lbt_offenders *o, const lbt_hmap_entry *he, int fresh)
{
	struct src_entry *e = he->val;
	struct src *s;

	if (e->full != NULL)
		return e->full;
	if ((s = lbt_arena_alloc(&o->arena, sizeof(*s))) == NULL)
		return NULL;
	o->extra += 16;                  /* the tally's malloc header */
	if (!fresh && replay(o, e, he->key, s) < 0) {
		lbt_tally_free(&s->sec);
		lbt_addrset_free(&s->addrs);
		return NULL;
	}
	e->full = s;
	if (o->finished) {               /* ranked already: as the one request was */
		e->peak_count = 1;
		e->rank_rate = 0;
		e->rank_class = 0;
	}
	return s;
}

/* The full state of an existing source (see lbt_offendersi_full_of).
 * @return it, or NULL when out of memory. */
struct src *lbt_offendersi_full(lbt_offenders *o, const lbt_hmap_entry *he)
{
	return lbt_offendersi_full_of(o, he, 0);
}

/* @return what the ranking reads of map entry he, whichever its form. */
struct src_rank lbt_offendersi_rank(const lbt_hmap_entry *he)
{
	const struct src_entry *e = he->val;
	const struct src *s = e->full;

	if (s == NULL)
		return (struct src_rank){ 1, e->tarpitted, 1, e->held_ms, 0, 0 };
	return (struct src_rank){ s->requests, s->tarpitted, e->peak_count, s->held_ms,
	    e->rank_class, e->rank_rate };
}

/* @return the evidence of full state s as evidence.h's key (file name
 * owned by o): unset before its first request. */
lbt_evidence lbt_offendersi_evidence(const lbt_offenders *o, const struct src *s)
{
	return (lbt_evidence){ lbt_offendersi_file_name(o, s->ev_file), s->ev_line, s->first_us,
	    s->requests > 0 };
}

/* The number + 1 of file name `file` in o (interned), 0 for NULL, in *id.
 * @return 0, or -1 when out of memory. */
int lbt_offendersi_file_id(lbt_offenders *o, const char *file, uint32_t *id)
{
	uint32_t *v;
	int created;

	*id = 0;
	if (file == NULL)
		return 0;
	if ((v = lbt_hmap_put(o->files, file, strlen(file), &created)) == NULL)
		return -1;
	if (created)
		*v = (uint32_t)(lbt_hmap_count(o->files) - 1);
	*id = *v + 1;
	return 0;
}

/* @return the name of file number + 1 `id` (owned by o), NULL for 0. */
const char *lbt_offendersi_file_name(const lbt_offenders *o, uint32_t id)
{
	lbt_hmap_entry e;

	if (id == 0)
		return NULL;
	lbt_hmap_at(o->files, id - 1, &e);
	return e.key;
}

/* Free what the full states hold outside the arena, then the arena. */
void lbt_offendersi_free_state(lbt_offenders *o)
{
	lbt_hmap_entry he;

	for (size_t i = 0; o->srcs != NULL && i < lbt_hmap_count(o->srcs); i++) {
		const struct src_entry *e;

		lbt_hmap_at(o->srcs, i, &he);
		e = he.val;
		if (e->full != NULL) {
			lbt_tally_free(&e->full->sec);
			lbt_addrset_free(&e->full->addrs);
		}
	}
	lbt_arena_free(&o->arena);
}

/* @return the status class (LBT_OFF_S*) of an HTTP status. */
int lbt_offendersi_status_class(int32_t st)
{
	if (st == -1)
		return LBT_OFF_SNONE;
	if (st == 429)
		return LBT_OFF_S429;
	if (st >= 200 && st < 600)
		return LBT_OFF_S2XX + (st / 100 - 2) + (st >= 500);
	return LBT_OFF_SOTHER;
}
