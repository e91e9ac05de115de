/*
 * offenders_int.h - what lib/analysis/offenders*.c share; never installed.
 *
 *   offenders.c          the accumulator: records -> sources, finish, rows
 *   offenders_changes.c  the change points: engine options, --by ratio, rows
 *   offenders_merge.c    spawn, merge (analysis.h) and the vtable
 *   offenders_state.c    a source's state: one request inline, the rest
 *                        from the arena when a second one comes
 *   offenders_topk.c     the space-saving counters of a source's keys (its
 *                        addresses are an lbt_addrset, its seconds a tally)
 *   offenders_budget.c   --max-memory: the estimate, the prune, the floor
 *
 * Direction, top down: offenders_merge.c calls offenders.c; both call
 * offenders_changes.c and offenders_budget.c; every file calls
 * offenders_state.c, and offenders_topk.c below it; never the other way.
 */
#ifndef LBT_OFFENDERS_INT_H
#define LBT_OFFENDERS_INT_H

#include <stdint.h>

#include "lbt/addrset.h"
#include "lbt/arena.h"
#include "lbt/evidence.h"
#include "lbt/hmap.h"
#include "lbt/offenders.h"
#include "lbt/tally.h"

#define SEC 1000000LL

/* Space-saving counters over key numbers. */
struct topk {
	uint32_t id[LBT_OFF_TOPK];
	uint32_t cnt[LBT_OFF_TOPK];
	uint32_t err[LBT_OFF_TOPK];
	uint32_t n;
};

/* A source's full state, from the arena once it sent a second request
 * or one whose client came from a header (240 bytes: what finish() ranks
 * by lives in its map entry). */
struct src {
	lbt_tally sec;               /* requests per second (tally.h) */
	uint64_t requests;
	int64_t first_us, last_us;
	uint64_t ev_line;            /* the evidence (evidence.h): the smallest by
	                                (time, file, line), whose time is first_us */
	uint64_t status[LBT_OFF_NSTATUS];
	uint64_t tarpitted;
	uint64_t slow;               /* requests that never sent whole headers in
	                                time (lbt_offendersi_slow) */
	uint64_t from_header;        /* requests whose client came from a header
	                                nobody vouches for (LBT_FROM_HEADER) */
	int64_t held_ms;
	uint64_t err;                /* requests it may have sent before it was
	                                last admitted (the floor then) */
	lbt_addrset addrs;           /* distinct addresses (addrset.h): exact up
	                                to LBT_ADDRSET_EXACT or the cap, then a sketch */
	struct topk top;
	uint32_t ev_file;            /* the evidence's file number + 1, 0: none */
	lbt_addr via;                /* the connecting address of its first request
	                                whose client came from a header, family 0 none */
	uint8_t via_many;            /* ... and another one sent some too */
};

/*
 * The value of a source in the map (48 bytes: what most of ten million
 * distinct /64s ever need).  Until its second request (or a first one
 * whose address differs from the network in its upper half) it holds
 * that request inline; after, `full` holds everything but what finish()
 * ranks by, which takes the place of the one request (set by finish(),
 * or by lbt_offendersi_full_of for a source made full after it).
 */
struct src_entry {
	struct src *full;            /* NULL: the one request below */
	union {
		struct {             /* full == NULL: the one request */
			int64_t time_us;
			uint64_t ev_line;
			uint64_t addr_lo;    /* the client address's lower half (the
			                        upper one is the network's) */
			uint32_t key;        /* key number, NO_KEY: none */
			uint32_t ev_file;    /* file number + 1, 0: none */
			int32_t held_ms;     /* its Tw when tarpitted (> 0), else 0 */
			uint8_t status;      /* status class + 1, 0: none */
			uint8_t tarpitted;   /* its termination state starts with "PT" */
			uint8_t from_header; /* its client came from an unverified header */
			uint8_t slow;        /* lbt_offendersi_slow */
		};
		struct {             /* full != NULL, after finish() */
			int64_t peak_count;  /* the busiest second's requests */
			double rank_rate;    /* --by ratio: the main rise's mean (new)
			                        or ratio */
			int32_t rank_class;  /* --by ratio: 2 new with a rise, 1 a rise, 0 */
		};
	};
};

#define NO_KEY UINT32_MAX

/* What ranking and the thresholds read of a source, whichever its form. */
struct src_rank {
	uint64_t requests, tarpitted;
	int64_t peak_count, held_ms;
	int rank_class;
	double rank_rate;
};

/* A ranked row, its change points and the text it points to. */
struct row {
	lbt_offender pub;
	const struct src *src;       /* its state (owned by the map) */
	lbt_cp_result cp;            /* bucket index k = second cp_origin + k */
	char text[LBT_ADDR_STRLEN];
};

struct lbt_offenders {
	lbt_offenders_opts o;
	int64_t base_from, base_to;  /* --baseline as given: µs, or a time of day */
	int base_tod;                /* bit 0: from is a time of day, bit 1: to */
	lbt_hmap *srcs;              /* lbt_addr -> struct src_entry */
	lbt_arena arena;             /* every struct src */
	lbt_hmap *keys;              /* key text -> uint32 number */
	lbt_hmap *files;             /* file name -> uint32 number */
	lbt_series *all;             /* every source, 1 s */
	int64_t cp_origin, cp_last;  /* the input's span, seconds (after finish) */
	lbt_cp_opts cp;              /* o.cp with min_buckets and the window set */
	struct row *rows;
	size_t nrows;
	lbt_offenders_stats st;
	size_t extra;                /* estimated bytes of series and address sets */
	int failed, finished;
};

/* offenders_topk.c */
void lbt_offendersi_topk_add(struct topk *t, uint32_t id);

/* offenders.c */
int lbt_offendersi_key_intern(lbt_offenders *o, const char *p, size_t n, uint32_t *id);

/* offenders_state.c */
int lbt_offendersi_status_class(int32_t st);
int lbt_offendersi_tarpitted(const lbt_rec *rec);

/* Non-zero when rec is a request whose headers never came whole in time:
 * answered 408, or ended by the client's timeout while the proxy waited
 * for its request (termination state "cR"). */
int lbt_offendersi_slow(const lbt_rec *rec);
int lbt_offendersi_from_header(const lbt_rec *rec);
int lbt_offendersi_fits(const lbt_rec *rec, const lbt_addr *net);
void lbt_offendersi_keep_one(struct src_entry *e, const lbt_rec *rec, uint32_t key,
    uint32_t file);
struct src *lbt_offendersi_full_of(lbt_offenders *o, const lbt_hmap_entry *he, int fresh);
struct src *lbt_offendersi_full(lbt_offenders *o, const lbt_hmap_entry *he);
struct src_rank lbt_offendersi_rank(const lbt_hmap_entry *he);
lbt_evidence lbt_offendersi_evidence(const lbt_offenders *o, const struct src *s);
int lbt_offendersi_file_id(lbt_offenders *o, const char *file, uint32_t *id);
const char *lbt_offendersi_file_name(const lbt_offenders *o, uint32_t id);
void lbt_offendersi_free_state(lbt_offenders *o);
void lbt_offendersi_via(struct src *s, const lbt_addr *via, int many);

/* offenders_budget.c */
int lbt_offendersi_budget(lbt_offenders *o);
int lbt_offendersi_budget_now(lbt_offenders *o);

/* offenders_changes.c */
int lbt_offendersi_changes_setup(lbt_offenders *o, int64_t gfirst, int64_t glast, lbt_err *err);
int lbt_offendersi_rank_ratio(lbt_offenders *o);
int lbt_offendersi_row_changes(lbt_offenders *o, const struct src *s, struct row *row);

#endif
