/*
 * evidence.c - the order-independent choice of an evidence line (see
 * evidence.h): the smallest record by (time, file name, line).
 */
#include <string.h>

#include "lbt/evidence.h"

/* Compare two keys given as parts; NULL names compare as "".
 * @return <0, 0 or >0. */
static int key_cmp(int64_t t1, const char *f1, uint64_t l1, int64_t t2, const char *f2,
    uint64_t l2)
{
	int c;

	if (t1 != t2)
		return t1 < t2 ? -1 : 1;
	if ((c = strcmp(f1 ? f1 : "", f2 ? f2 : "")) != 0)
		return c;
	return (l1 > l2) - (l1 < l2);
}

/* Order of two evidence keys, unset last.  @return <0, 0 or >0. */
int lbt_evidence_cmp(const lbt_evidence *a, const lbt_evidence *b)
{
	if (!a->set || !b->set)
		return !a->set - !b->set;
	return key_cmp(a->time_us, a->file, a->line, b->time_us, b->file, b->line);
}

/* The time key of rec: its time, or LBT_EVIDENCE_NO_TIME. */
static int64_t rec_time(const lbt_rec *rec)
{
	return (rec->have & LBT_BIT(LBT_F_TIME)) ? rec->time_us : LBT_EVIDENCE_NO_TIME;
}

/* @return 1 when rec's key is smaller than e's (or e is unset), else 0. */
int lbt_evidence_better(const lbt_evidence *e, const lbt_rec *rec)
{
	int64_t t = rec_time(rec);

	if (!e->set)
		return 1;
	if (t != e->time_us)                 /* the usual case: no string compare */
		return t < e->time_us;
	return key_cmp(t, rec->file, rec->line, e->time_us, e->file, e->line) < 0;
}

/* Keep rec's key in e, with the caller's copy of its file name. */
void lbt_evidence_set(lbt_evidence *e, const lbt_rec *rec, const char *file)
{
	e->file = file;
	e->line = rec->line;
	e->time_us = rec_time(rec);
	e->set = 1;
}
