/*
 * offenders_int.h - what lib/analysis/offenders*.c share; never installed.
 *
 *   offenders.c          the accumulator: records -> sources, finish, rows
 *   offenders_changes.c  the change points: engine options, --by ratio, rows
 *   offenders_merge.c    spawn, merge (analysis.h) and the vtable
 *
 * Direction: offenders_merge.c and offenders.c call offenders_changes.c;
 * offenders_merge.c calls offenders.c; never the other way.
 */
#ifndef LBT_OFFENDERS_INT_H
#define LBT_OFFENDERS_INT_H

#include <stdint.h>

#include "lbt/evidence.h"
#include "lbt/hmap.h"
#include "lbt/offenders.h"

#define SEC 1000000LL

/* Distinct addresses of a source, exact up to a cap. */
struct addrset {
	uint64_t first[2];           /* the first address, inline */
	uint64_t (*slot)[2];         /* NULL until a second address; {0,0} = empty */
	uint32_t mask;
	uint32_t n;                  /* distinct addresses counted */
	uint8_t capped;              /* an address was not counted: the cap was hit */
	uint8_t has_zero;            /* "::" is in the set (it cannot be stored) */
};

/* Space-saving counters over key numbers. */
struct topk {
	uint32_t id[LBT_OFF_TOPK];
	uint32_t cnt[LBT_OFF_TOPK];
	uint32_t err[LBT_OFF_TOPK];
	uint32_t n;
};

struct src {
	lbt_series *sec;             /* requests per second */
	uint64_t requests;
	int64_t first_us, last_us;
	int64_t peak_count, peak_bucket;
	lbt_evidence ev;             /* the first request (evidence.h) */
	uint64_t status[LBT_OFF_NSTATUS];
	uint64_t tarpitted;
	int64_t held_ms;
	struct addrset addrs;
	struct topk top;
	/* set by finish() */
	double share;
	double rank_rate;            /* --by ratio: the main rise's mean (new) or ratio */
	int rank_class;              /* --by ratio: 2 new with a rise, 1 a rise, 0 */
};

/* A ranked row, its change points and the text it points to. */
struct row {
	lbt_offender pub;
	lbt_cp_result cp;            /* bucket index k = second cp_origin + k */
	char text[LBT_ADDR_STRLEN];
};

struct lbt_offenders {
	lbt_offenders_opts o;
	int64_t base_from, base_to;  /* --baseline as given: µs, or a time of day */
	int base_tod;                /* bit 0: from is a time of day, bit 1: to */
	lbt_hmap *srcs;              /* lbt_addr -> struct src */
	lbt_hmap *keys;              /* key text -> uint32 number */
	lbt_hmap *files;             /* file name -> uint32 number */
	lbt_series *all;             /* every source, 1 s */
	int64_t cp_origin, cp_last;  /* the input's span, seconds (after finish) */
	lbt_cp_opts cp;              /* o.cp with min_buckets and the window set */
	struct row *rows;
	size_t nrows;
	lbt_offenders_stats st;
	int failed, finished;
};

/* offenders.c (each function's comment is above its definition) */
int lbt_offendersi_set_add(struct addrset *s, uint64_t hi, uint64_t lo, size_t cap);
int lbt_offendersi_key_intern(lbt_offenders *o, const char *p, size_t n, uint32_t *id);
int lbt_offendersi_file_copy(lbt_offenders *o, const char *file, const char **copy);

/* offenders_changes.c */
int lbt_offendersi_changes_setup(lbt_offenders *o, int64_t gfirst, int64_t glast, lbt_err *err);
int lbt_offendersi_rank_ratio(lbt_offenders *o);
int lbt_offendersi_row_changes(lbt_offenders *o, const struct src *s, struct row *row);

#endif
