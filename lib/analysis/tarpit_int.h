/*
 * tarpit_int.h - what the files of the tarpit module share, never installed:
 *   tarpit.c         the accumulator: records -> groups, buckets, sources
 *   tarpit_notes.c   the notes built by finish() (missing fields, methods,
 *                    full frontends, upper bounds)
 *   tarpit_merge.c   spawn, merge (analysis.h) and the vtable
 *   (maxconn from haproxy.cfg: lib/run/tarpit_cfg.c fills opts.maxconn_of;
 *   the sections printed: lib/report/tarpit_report.c, public accessors only)
 */
#ifndef LBT_TARPIT_INT_H
#define LBT_TARPIT_INT_H

#include <stdarg.h>

#include "lbt/evidence.h"
#include "lbt/hmap.h"
#include "lbt/tarpit.h"

/* Fields whose presence is counted, for the "not in this format" notes. */
enum tp_have {
	TP_TIME, TP_CLIENT, TP_FRONTEND, TP_TERM, TP_TW, TP_TA, TP_TT, TP_FC, TP_AC,
	TP_NHAVE
};

/* A bucket while counting: the public part, and the key of its evidence
 * (the smallest by time, file, line of the requests that logged fc_max). */
struct tp_bucket {
	lbt_tarpit_bucket pub;      /* fc_file, fc_line set by finish */
	lbt_evidence fc_ev;
};

/* A source while counting: the public part, and the key of its evidence
 * (the smallest tarpitted request, PT or CT, else the smallest request). */
struct tp_source {
	lbt_tarpit_source pub;      /* file, line set by finish */
	lbt_evidence ev;
	uint64_t err;               /* the budget's floor when it was created */
};

struct tp_group {
	lbt_tarpit_group pub;
	size_t lb_len, fe_len;
	lbt_occ *occ;
	lbt_hmap *bk;               /* int64 bucket -> struct tp_bucket */
	int64_t last_b;
	struct tp_bucket *last_bk;
	lbt_tarpit_bucket *sorted;  /* after finish */
	size_t nsorted;
};

struct tp_note {
	lbt_tarpit_note pub;
	char *owned;                /* pub.text */
};

struct lbt_tarpit {
	lbt_tarpit_opts o;
	lbt_hmap *groups;           /* "lb\0frontend" -> struct tp_group */
	lbt_hmap *sources;          /* lbt_addr (17 bytes) -> struct tp_source */
	lbt_hmap *files;            /* set of file names (stable copies) */
	const char *last_file;      /* interned name of the last record's file */
	struct tp_group *last_g;
	char *kbuf;                 /* scratch for group keys */
	size_t kcap;
	uint64_t have[TP_NHAVE];    /* requests carrying each field */
	lbt_tarpit_stats st;
	int failed;                 /* out of memory during add() */
	int finished;
	struct tp_group **gv;       /* after finish: groups in (lb, frontend) order */
	lbt_tarpit_source *sv;      /* after finish: sources ranked */
	struct tp_note *notes;
	size_t nnotes, capnotes;
};

/* tarpit.c (each function's comment is above its definition) */
const char *lbt_tarpiti_intern(lbt_tarpit *t, const char *file);
int lbt_tarpiti_group_init(lbt_tarpit *t, struct tp_group *g, size_t lb_len, size_t fe_len);
struct tp_bucket *lbt_tarpiti_group_bucket(struct tp_group *g, int64_t b);
int lbt_tarpiti_group_room(lbt_tarpit *t, const void *key, size_t klen);

int lbt_tarpiti_budget(lbt_tarpit *t, int now);

/* Build every note (tarpit_notes.c).  @return 0, or -1 when out of memory. */
int lbt_tarpiti_notes_build(lbt_tarpit *t);

/* Free the notes. */
void lbt_tarpiti_notes_free(lbt_tarpit *t);

#endif
