/*
 * tarpit_int.h - what the files of the tarpit module share, never installed:
 *   tarpit.c         the accumulator: records -> groups, buckets, sources
 *   tarpit_notes.c   the notes built by finish() (missing fields, methods,
 *                    full frontends, upper bounds)
 *   tarpit_cfg.c     maxconn read from haproxy.cfg
 *   tarpit_report.c  the sections printed through lbt_out
 */
#ifndef LBT_TARPIT_INT_H
#define LBT_TARPIT_INT_H

#include <stdarg.h>

#include "lbt/hmap.h"
#include "lbt/tarpit.h"

/* Fields whose presence is counted, for the "not in this format" notes. */
enum tp_have {
	TP_TIME, TP_CLIENT, TP_FRONTEND, TP_TERM, TP_TW, TP_TA, TP_TT, TP_FC, TP_AC,
	TP_NHAVE
};

struct tp_group {
	lbt_tarpit_group pub;
	size_t lb_len, fe_len;
	lbt_occ *occ;
	lbt_hmap *bk;               /* int64 bucket -> lbt_tarpit_bucket */
	int64_t last_b;
	lbt_tarpit_bucket *last_bk;
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
	lbt_hmap *sources;          /* lbt_addr (17 bytes) -> lbt_tarpit_source */
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

/* Build every note (tarpit_notes.c).  @return 0, or -1 when out of memory. */
int tp_notes_build(lbt_tarpit *t);

/* Free the notes. */
void tp_notes_free(lbt_tarpit *t);

#endif
