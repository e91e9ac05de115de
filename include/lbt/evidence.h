/*
 * evidence.h - which line to name as evidence ("file:line"), chosen so
 * that the answer depends on the set of records read, never on the order
 * they were read in.
 *
 * A raw HAProxy log is in the order requests ended (a request held 1 s by
 * the tarpit is written after those accepted later), several files on the
 * command line are read one after the other, and the index (--db) gives
 * records in time order.  An analysis that kept "the first record that
 * qualified" would name a different line for each.  Instead, among the
 * records that qualify, the evidence is the smallest by the key
 *
 *     (time, file name compared with strcmp, line number)
 *
 * where a record without a time sorts after every record with one, and a
 * record without a file name sorts as the empty name.  The minimum of a set
 * is the same whatever the order of its elements, and it can be kept while
 * streaming: one compare per record, usually on the time alone.
 *
 *     lbt_evidence ev = LBT_EVIDENCE_INIT;
 *     while (...)
 *         if (qualifies(rec) && lbt_evidence_better(&ev, rec))
 *             lbt_evidence_set(&ev, rec, interned_copy_of(rec->file));
 *
 * The module stores no file name: the caller gives a copy that lives as
 * long as the evidence (analyses intern file names once per file).
 * Includes: rec.h.
 */
#ifndef LBT_EVIDENCE_H
#define LBT_EVIDENCE_H

#include <stdint.h>

#include "lbt/rec.h"

/* The time key of a record without a time: after every real time. */
#define LBT_EVIDENCE_NO_TIME INT64_MAX

typedef struct lbt_evidence {
	const char *file;         /* the caller's copy of the name; NULL: none */
	uint64_t line;
	int64_t time_us;          /* LBT_EVIDENCE_NO_TIME when the record had none */
	int set;                  /* 0 until a record was kept */
} lbt_evidence;

#define LBT_EVIDENCE_INIT { NULL, 0, 0, 0 }

/*
 * Order of two evidence keys (see above); an unset evidence sorts after
 * every set one.  @return <0, 0 or >0 as a is before, equal to, after b.
 */
int lbt_evidence_cmp(const lbt_evidence *a, const lbt_evidence *b);

/*
 * True (1) when rec's key (its time when LBT_F_TIME is present, rec->file,
 * rec->line) is smaller than that of e, or e is unset: rec should then
 * replace e.  0 otherwise (an equal key included).
 */
int lbt_evidence_better(const lbt_evidence *e, const lbt_rec *rec);

/*
 * Make rec the evidence: its time (or LBT_EVIDENCE_NO_TIME) and line, and
 * `file`, the caller's stable copy of rec->file (NULL when rec has none or
 * the copy could not be made).
 */
void lbt_evidence_set(lbt_evidence *e, const lbt_rec *rec, const char *file);

#endif
