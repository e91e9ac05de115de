/*
 * stream.c - the record stream of a run (see stream.h): lbt_input over log
 * files, or lbt_db_reader over an index, behind one next().  The index
 * keeps the counters a raw-log run keeps that make sense for it (records,
 * failed reads), so the end-of-run summary reads the same.
 */
#include <stdlib.h>

#include "lbt/db.h"
#include "lbt/stream.h"

struct lbt_stream {
	lbt_input *in;             /* log files, or */
	lbt_db_reader *db;         /* the index */
	lbt_input_stats dbst;      /* counters of the index stream */
};

/* Open the index or the files of opts.  @return the stream, or NULL with err. */
lbt_stream *lbt_stream_open(const lbt_input_opts *opts, char *const *paths, int npaths,
    lbt_err *err)
{
	lbt_stream *s = calloc(1, sizeof *s);

	if (s == NULL) {
		lbt_err_set(err, "out of memory");
		return NULL;
	}
	if (opts->db != NULL && npaths > 0) {
		free(s);
		lbt_err_set(err, "--db reads the index: no log file operands expected");
		return NULL;
	}
	if (opts->db != NULL)
		s->db = lbt_db_reader_open(opts->db, opts, err);
	else if ((s->in = lbt_input_new(opts, err)) != NULL)
		for (int i = 0; i < npaths; i++)
			lbt_input_add(s->in, paths[i]);
	if (s->db == NULL && s->in == NULL) {
		free(s);
		return NULL;
	}
	return s;
}

/* The next record.  @return 1, 0 at the end, -1 with err (go on after). */
int lbt_stream_next(lbt_stream *s, lbt_rec **rec, lbt_err *err)
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

/* @return the counters of the stream. */
const lbt_input_stats *lbt_stream_stats(const lbt_stream *s)
{
	return s->in != NULL ? lbt_input_stats_get(s->in) : &s->dbst;
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

/* Free the stream; NULL accepted. */
void lbt_stream_free(lbt_stream *s)
{
	if (s == NULL)
		return;
	lbt_input_free(s->in);
	lbt_db_reader_close(s->db);
	free(s);
}
