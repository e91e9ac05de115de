/*
 * stream.c - the record stream of a run (see stream.h): lbt_input over log
 * files, or lbt_db_reader over an index, behind one next(), keeping the
 * records of one tier.  The index keeps the counters a raw-log run keeps
 * that make sense for it (records, failed reads), so the end-of-run
 * summary reads the same.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbt/db.h"
#include "lbt/stream.h"

struct lbt_stream {
	lbt_input *in;             /* log files, or */
	lbt_db_reader *db;         /* the index */
	lbt_input_stats dbst;      /* counters of the index stream */
	lbt_stream_tiers t;
	lbt_stream_tick_fn tick;   /* lbt_stream_on_tick: every TICK_RECORDS records */
	void *tick_ctx;
	unsigned ticks;
};

#define TICK_RECORDS 256u

/* The tiers the stream's inputs hold, known before reading. */
static unsigned tiers_present(lbt_stream *s)
{
	if (s->in != NULL)
		return lbt_input_tiers(s->in);
	return lbt_db_reader_tiers(s->db);
}

/* Choose the tier to keep from use (--tier). */
static void tier_choose(lbt_stream *s, lbt_tier_use use)
{
	const unsigned both = LBT_BIT(LBT_TIER_LB) | LBT_BIT(LBT_TIER_BACKEND);

	s->t.kept = use == LBT_TIER_USE_LB ? LBT_TIER_LB : use == LBT_TIER_USE_BACKEND ?
	    LBT_TIER_BACKEND : LBT_TIER_NONE;
	if (use != LBT_TIER_USE_AUTO)
		return;
	s->t.automatic = 1;
	s->t.present = tiers_present(s);
	if ((s->t.present & both) == both)
		s->t.kept = LBT_TIER_LB;
}

/* Open the index or the files of opts.  @return the stream, or NULL with err. */
lbt_stream *lbt_stream_open(const lbt_input_opts *opts, char *const *paths, int npaths,
    lbt_err *err)
{
	lbt_stream *s = calloc(1, sizeof *s);

	if (s == NULL) {
		lbt_err_set(err, "out of memory");
		return NULL;
	}
	if (opts->db != NULL && (npaths > 0 || opts->nspecs > 0)) {
		free(s);
		lbt_err_set(err, "--db reads the index: no log file operands expected");
		return NULL;
	}
	if (opts->db != NULL) {
		s->db = lbt_db_reader_open(opts->db, opts, err);
		s->dbst.files = 1;         /* the index is the one input ("1 of 1 failed") */
	} else if ((s->in = lbt_input_new(opts, err)) != NULL)
		for (int i = 0; i < npaths; i++)
			lbt_input_add(s->in, paths[i]);
	if (s->db == NULL && s->in == NULL) {
		free(s);
		return NULL;
	}
	tier_choose(s, opts->use_tier);
	return s;
}

/* The next record of the files or the index.  @return 1, 0 at the end, -1 with err */
static int next_any(lbt_stream *s, lbt_rec **rec, lbt_err *err)
{
	int r;

	if (s->in != NULL)
		return lbt_input_next(s->in, rec, err);
	r = lbt_db_reader_next(s->db, rec, err);
	if (r == 1)
		s->dbst.records += (*rec)->kind == LBT_KIND_REQUEST;
	if (r < 0)
		s->dbst.failed_files++;
	return r;
}

/* True when rec is a request of a known tier other than the one kept. */
static int left_out(const lbt_stream *s, const lbt_rec *rec)
{
	return rec->kind == LBT_KIND_REQUEST && (rec->have & LBT_BIT(LBT_F_TIER)) &&
	    rec->tier != s->t.kept && (unsigned)rec->tier < LBT_TIER_COUNT;
}

/* Count rec as left out, naming the first file of its tier. */
static void count_left(lbt_stream *s, const lbt_rec *rec)
{
	if (s->t.left[rec->tier]++ == 0)
		snprintf(s->t.left_file[rec->tier], sizeof s->t.left_file[0], "%s",
		    (rec->have & LBT_BIT(LBT_F_FILE)) && rec->file ? rec->file : "");
}

/* The next record of the tier kept, counting those left out.  Not inlined
 * into lbt_stream_next: its loop would cost every record a stack frame
 * (callgrind: 12 -> 27 instructions a record without it). */
static __attribute__((noinline)) int next_kept(lbt_stream *s, lbt_rec **rec, lbt_err *err)
{
	int r;

	while ((r = next_any(s, rec, err)) == 1 && left_out(s, *rec))
		count_left(s, *rec);
	return r;
}

/* The next record of the tier kept.  @return 1, 0 at the end, -1 with err (go on after). */
int lbt_stream_next(lbt_stream *s, lbt_rec **rec, lbt_err *err)
{
	if (s->tick != NULL && ++s->ticks % TICK_RECORDS == 0)
		s->tick(s->tick_ctx, s);
	if (s->t.kept == LBT_TIER_NONE)
		return next_any(s, rec, err);     /* every tier: nothing more a record */
	return next_kept(s, rec, err);
}

/* Call fn every TICK_RECORDS records (progress: cli_progress.c). */
void lbt_stream_on_tick(lbt_stream *s, lbt_stream_tick_fn fn, void *ctx)
{
	s->tick = fn;
	s->tick_ctx = ctx;
}

/* @return the tier choice and what it left out. */
const lbt_stream_tiers *lbt_stream_tiers_get(const lbt_stream *s)
{
	return &s->t;
}

/* @return the counters of the stream. */
const lbt_input_stats *lbt_stream_stats(const lbt_stream *s)
{
	return s->in != NULL ? lbt_input_stats_get(s->in) : &s->dbst;
}

/* The filter of the log files, or NULL (the index filters in SQL). */
const lbt_filter *lbt_stream_filter(const lbt_stream *s)
{
	return s->in != NULL ? lbt_input_filter(s->in) : NULL;
}

/* The line of the last record, or NULL with *len 0. */
const char *lbt_stream_line(lbt_stream *s, size_t *len)
{
	const char *line = NULL;
	lbt_err err;

	if (s->in != NULL)
		return lbt_input_line(s->in, len);
	if (lbt_db_reader_raw(s->db, &line, len, &err) == 1)
		return line;
	*len = 0;
	return NULL;
}

/* The input of a log-file stream, or NULL (the index). */
lbt_input *lbt_stream_input(lbt_stream *s)
{
	return s->in;
}

/* A stream over a part of s's open file, keeping s's tier.  @return it, or NULL with err */
lbt_stream *lbt_stream_part(const lbt_stream *s, uint64_t off, uint64_t end, uint64_t line0,
    lbt_input_diag_fn diag, void *ctx, lbt_err *err)
{
	lbt_stream *p = calloc(1, sizeof *p);

	if (p == NULL) {
		lbt_err_set(err, "out of memory");
		return NULL;
	}
	if ((p->in = lbt_input_part(s->in, off, end, line0, diag, ctx, err)) == NULL) {
		free(p);
		return NULL;
	}
	p->t = s->t;
	memset(p->t.left, 0, sizeof p->t.left);
	return p;
}

/* Add part's counters and the requests its tier choice left out to s's. */
void lbt_stream_join(lbt_stream *s, const lbt_stream *part)
{
	lbt_input_stats_add(s->in, lbt_input_stats_get(part->in));
	for (int k = 0; k < LBT_TIER_COUNT; k++) {
		if (part->t.left[k] > 0 && s->t.left[k] == 0)
			memcpy(s->t.left_file[k], part->t.left_file[k], sizeof s->t.left_file[k]);
		s->t.left[k] += part->t.left[k];
	}
}

/* Free the stream; NULL accepted. */
void lbt_stream_free(lbt_stream *s)
{
	if (s == NULL)
		return;
	lbt_input_free(s->in);
	lbt_db_reader_close(s->db);
	free(s);
}
