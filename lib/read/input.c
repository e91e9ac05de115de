/*
 * input.c - the record stream every program reads.  See include/lbt/input.h.
 *
 * Per file: open the source, take the options of its input (its profile:
 * the global options, or those of its --input / sources line), choose its
 * formats (those the options name, or detection on a sample of the file's
 * first lines), then per line: strip the syslog wrapper, parse with the
 * format that fits (input_fmtset.c), fall back to event lines, complete
 * the record (frontend and tier of its format, LB host, syslog time,
 * provenance, key: input_msg.c) and filter it.
 *
 * A detected file's first lines are read once, into a sample
 * (input_detect.c), and replayed here before the rest of the file.
 *
 * Per-line work allocates nothing: the record, the key buffer and the
 * format's scratch are reused.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "input_int.h"
#include "lbt/event.h"
#include "lbt/input_spec.h"
#include "lbt/syslog.h"
#include "lbt/vec.h"

/* Work out which fields to ask formats for, and whether keys are needed. */
static void wanted_setup(lbt_input *in)
{
	uint64_t w = in->o.wanted, fw = lbt_filter_fields(in->filter);

	if (w == 0) {
		in->want_key = 1;
		in->wanted = ~(uint64_t)0;
		return;
	}
	w |= fw;
	if (in->o.events)
		w |= LBT_BIT(LBT_F_TIME);   /* request times time the events (input_evtime.c) */
	in->want_key = (w & LBT_BIT(LBT_F_KEY)) != 0;
	if (in->want_key)
		w |= LBT_BIT(LBT_F_PATH);
	in->wanted = w;
}

/* Queue path with profile prof, a provenance name and leading lines to skip. */
static void queue(lbt_input *in, const char *path, const char *name, uint64_t skip,
    size_t prof)
{
	struct path *p;

	if (LBT_GROW(in->paths, in->cap, in->npaths + 1, 8) < 0)
		return;      /* reported as a failed file would need memory too */
	p = &in->paths[in->npaths];
	p->path = strdup(path);
	p->name = name ? strdup(name) : NULL;
	p->skip = skip;
	p->prof = prof;
	p->probed = NULL;
	p->part = 0;
	if (p->path != NULL)
		in->npaths++;
}

/* A profile for each spec of the options, and its files queued.  @return 0 or -1 with err */
static int specs_queue(lbt_input *in, lbt_err *err)
{
	for (size_t i = 0; i < in->o.nspecs; i++) {
		const lbt_input_spec *s = &in->o.specs[i];
		lbt_input_opts o = lbt_input_spec_opts(s, &in->o);
		long k = lbt_inputi_profile_add(in, &o, s->where_file, s->where_line, err);

		if (k < 0)
			return -1;
		for (size_t f = 0; f < s->nfiles; f++)
			queue(in, s->files[f], NULL, 0, (size_t)k);
	}
	return 0;
}

/* Compile key, filter, the global options' profile and the specs'.  @return 0 or -1 with err. */
static int input_setup(lbt_input *in, lbt_err *err)
{
	const lbt_input_opts *o = &in->o;

	if ((in->filter = lbt_filter_new(&o->filter, in->now_us, err)) == NULL)
		return -1;
	in->span = !lbt_filter_is_empty(in->filter);
	wanted_setup(in);
	if ((in->want_key || o->key_regex) && (in->key = lbt_key_new(o->key_regex, err)) == NULL)
		return -1;
	if (lbt_inputi_profile_add(in, o, NULL, 0, err) < 0)
		return -1;
	in->cp = in->prof[0];
	in->tz = in->cp->tz;
	return specs_queue(in, err);
}

/*
 * Make an input from opts (copied; the strings must outlive the input).
 * @return the input, or NULL with err naming the bad option.
 */
lbt_input *lbt_input_new(const lbt_input_opts *opts, lbt_err *err)
{
	lbt_input *in = calloc(1, sizeof *in);

	if (in == NULL) {
		lbt_err_set(err, "input: out of memory");
		return NULL;
	}
	in->o = *opts;
	in->st.first_us = INT64_MAX;      /* no record yet: an empty span (input.h) */
	in->st.last_us = INT64_MIN;
	in->now_us = opts->now_us ? opts->now_us : lbt_time_now_us();
	in->o.max_reported = opts->max_reported == 0 ? DEFAULT_REPORTED : opts->max_reported;
	if (input_setup(in, err) < 0) {
		lbt_input_free(in);
		return NULL;
	}
	return in;
}

/* Queue `path` with a provenance name and leading lines to skip (global options). */
void lbt_input_add_at(lbt_input *in, const char *path, const char *name, uint64_t skip_lines)
{
	queue(in, path, name, skip_lines, 0);
}

/* Queue a path ("-" = stdin). */
void lbt_input_add(lbt_input *in, const char *path)
{
	lbt_input_add_at(in, path, NULL, 0);
}

/* Close the current file and forget its sample. */
static void file_close(lbt_input *in)
{
	lbt_inputi_hold_flush(in);       /* none held but on an error */
	in->widen_seen = in->widen_wait = 0;
	in->src_eof = 0;
	in->peeked = 0;
	lbt_source_close(in->src);
	in->src = NULL;
	in->ns = in->si = 0;
	in->slen = 0;
	in->pending = 0;
	in->pause_pending = in->pausing;
	in->began = 0;
}

/* Open p's file, or its part; decoded ahead when threads allow.  @return 0 or -1 */
static int source_open(lbt_input *in, const struct path *p, lbt_err *err)
{
	if (p->part)
		in->src = lbt_source_open_range(p->path, p->name, p->off, p->end, p->line0, err);
	else
		in->src = lbt_source_open(p->path, p->name, err);
	if (in->src == NULL)
		return -1;
	if (in->o.threads > 1 && (lbt_source_compression(in->src) != LBT_COMP_NONE ||
	    lbt_source_size(in->src) == 0))
		lbt_source_read_ahead(in->src);    /* else read in this thread */
	return 0;
}


/* Read and drop the first `skip` lines of the new file (lbt-index resume). @return 0 or -1 */
static int skip_lines(lbt_input *in, uint64_t skip, lbt_err *err)
{
	const char *line;
	size_t len;

	for (uint64_t i = 0; i < skip; i++) {
		int r = lbt_source_next(in->src, &line, &len, err);

		if (r <= 0)
			return r;
	}
	return 0;
}

/*
 * Take the formats lbt_input_tiers chose for queued file p as the
 * detected set.  @return 1 (a new set for the caller to set up)
 */
static int use_probed(lbt_input *in, struct path *p)
{
	lbt_inputi_set_free(&in->det);
	in->det = *p->probed;
	free(p->probed);
	p->probed = NULL;
	in->det.last = 0;
	in->det_prof = in->cp;
	in->cur = &in->det;
	return 1;
}

/*
 * Detect the formats of the file just opened (or take those chosen ahead)
 * and set a new set up.  @return 1, or -1 with err (file named)
 */
static int detect_format(lbt_input *in, struct path *p, lbt_err *err)
{
	int r = p->probed != NULL ? use_probed(in, p) : lbt_inputi_detect(in, err);

	if (r == 1 && lbt_inputi_set_setup(&in->det, in->cp, in->wanted, err) < 0) {
		lbt_err_at(err, in->name, 0, "%s", err->msg);
		in->cur = NULL;
		return -1;
	}
	return r < 0 ? -1 : 1;
}

/*
 * Open the next queued file and choose its format.
 * @return 1 opened, 0 no more files, -1 this file failed (err filled).
 */
static int file_open(lbt_input *in, lbt_err *err)
{
	struct path *p;

	if (in->next >= in->npaths)
		return 0;
	p = &in->paths[in->next++];
	in->st.files++;
	in->file_read = in->st.records;
	in->file_lines = in->st.lines;
	in->file_bad = in->st.malformed;
	in->undetected = 0;
	in->file_partial = in->file_partial_named = 0;
	in->file_first_bad = 0;
	in->cp = in->prof[p->prof];
	in->tz = in->cp->tz;
	free(in->name);
	in->name = NULL;
	if (source_open(in, p, err) < 0)
		return -1;
	in->name = strdup(lbt_source_name(in->src));
	in->ref_s = lbt_source_mtime(in->src);
	if (in->ref_s == 0)
		in->ref_s = in->now_us / 1000000;
	if (in->name == NULL)
		return lbt_err_set(err, "input: out of memory");
	if (p->skip > 0 && skip_lines(in, p->skip, err) < 0)
		return -1;
	in->cur = &in->cp->fixed;
	if (in->cp->fixed.n == 0)
		return detect_format(in, p, err);
	if (p->part && (in->o.events || in->cur->n > 1))
		lbt_inputi_part_prime(in, p);
	return 1;
}

/*
 * Next raw line of the current file: the replayed sample first, then a
 * held-back source error, then the source.  @return 1, 0 end, -1 error.
 */
static int line_next(lbt_input *in, struct sline *out, const char **line, lbt_err *err)
{
	int r;

	in->replayed = in->si < in->ns;
	if (in->replayed) {
		*out = in->sl[in->si++];
		*line = in->sbuf + out->off;
		return 1;
	}
	if (in->pending) {
		in->pending = 0;
		*err = in->pend_err;
		return -1;
	}
	if (in->src_eof)
		return 0;       /* lines read again after the end (input_detect.c) */
	r = lbt_inputi_line_read(in, line, &out->len, &out->lineno, &out->trunc, err);
	in->src_eof = r == 0;
	if (r == 1)
		in->st.lines++;
	return r;
}

/* Widen the span of the records read (before the filters) to t: two
 * compares a record, no branch on "the first one" (it starts empty). */
static inline void span_add(lbt_input_stats *st, int64_t t)
{
	st->first_us = t < st->first_us ? t : st->first_us;
	st->last_us = t > st->last_us ? t : st->last_us;
}

/*
 * The file just ended (or a part of it joined) gave requests: count it as
 * read only in part when more than LBT_INPUT_UNREAD_PERCENT of its lines
 * were malformed (input.h); see input_int.h.  The first such file is named
 * in the stats, with its counts.
 */
void lbt_inputi_partial_check(lbt_input *in)
{
	const struct path *p = &in->paths[in->next - 1];
	uint64_t lines = in->st.lines - in->file_lines, bad = in->st.malformed - in->file_bad;
	int over = in->st.records > in->file_read &&
	    bad * 100 > lines * LBT_INPUT_UNREAD_PERCENT;

	if (p->part) {            /* the file's input decides, with every part joined */
		in->st.partial_first = in->file_first_bad;
		return;
	}
	if (over && !in->file_partial) {
		in->file_partial = 1;
		in->file_partial_named = in->st.partial_files++ == 0;
	} else if (!over && in->file_partial) {
		in->file_partial = 0;
		in->st.partial_files--;
		if (in->file_partial_named)
			in->st.partial_path[0] = '\0';
		in->file_partial_named = 0;
	}
	if (in->file_partial && in->file_partial_named) {
		in->st.partial_lines = lines;
		in->st.partial_malformed = bad;
		in->st.partial_first = in->file_first_bad;
		snprintf(in->st.partial_path, sizeof in->st.partial_path, "%s", p->path);
	}
}

/*
 * Count the file just ended as unread when it had malformed lines and gave
 * no request (its event lines, which any format reads, do not count), or
 * when no format was detected (then the lines are the sample's).  The
 * first such file is named in the stats.
 */
static void unread_check(lbt_input *in)
{
	uint64_t lines = in->undetected ? (uint64_t)in->ns : in->st.lines - in->file_lines;

	if (lines == 0)
		return;
	if (in->st.records != in->file_read) {
		lbt_inputi_partial_check(in);
		return;
	}
	if (!in->undetected && in->st.malformed == in->file_bad)
		return;
	if (in->st.unread_files++ == 0) {
		in->st.unread_lines = lines;
		snprintf(in->st.unread_path, sizeof in->st.unread_path, "%s",
		    in->paths[in->next - 1].path);
	}
}

/*
 * Parse one line into in->rec, counting it.  @return 1 a record that
 * passes the filters, 0 nothing to return (blank, skipped, event not asked
 * for, filtered out, malformed, an event held until a request line gives
 * it a time, or held events to give out first: input_evtime.c), -1
 * malformed under strict (err filled).
 */
static int line_parse(lbt_input *in, const char *line, const struct sline *l, lbt_err *err)
{
	lbt_err why;
	int r, hold, pass;

	if (l->len == 0)
		return in->st.skipped++, 0;
	if (l->trunc)
		return lbt_inputi_malformed_err(in, l->lineno, "line longer than 1 MiB", err);
	r = lbt_inputi_msg_parse(in, in->cur, line, l->len, l->lineno, &why, &in->rec);
	if (r < 0)
		return lbt_inputi_hold(in, line, l, why.msg) ? 0 :
		    lbt_inputi_malformed_err(in, l->lineno, why.msg, err);
	if (in->nh > 0 && lbt_inputi_stretch_end(in, line, l))
		return 0;      /* the lines before it, and it, are read again */
	if (r == 0)
		return in->st.skipped++, 0;
	if (r == 2 && (in->st.events++, !in->o.events))
		return 0;
	in->st.records += r == 1;
	if (in->span && r == 1 && (in->rec.have & LBT_BIT(LBT_F_TIME)))
		span_add(&in->st, in->rec.time_us);
	hold = in->o.events ? lbt_inputi_evtime_note(in, line, l) : 1;   /* events only */
	if (hold == 0)
		return 0;      /* an event without a stamp waits for the next request line */
	pass = lbt_filter_match(in->filter, &in->rec);
	in->st.filtered += !pass;
	if (hold == 2)
		return lbt_inputi_evtime_release(in, pass, line, l->len), 0;
	if (!pass)
		return 0;
	in->line = line;
	in->line_len = l->len;
	return 1;
}

/*
 * Parse one line as lbt_input_next would, with format f, without filters
 * or counters; see input.h.  @return 1 with *rec, 0 no record, -1 with err.
 */
int lbt_input_parse_line(lbt_input *in, lbt_format *f, const char *line, size_t len,
    lbt_rec **rec, lbt_err *err)
{
	struct fmt_entry e = { f, NULL, 0, 0, 0, 0, LBT_TIER_NONE };
	struct fmtset one = { .v = &e, .n = 1, .cap = 1 };
	int r;

	if (f != NULL) {
		e.has_ft = (lbt_format_fields(f) & LBT_BIT(LBT_F_FRONTEND)) != 0;
		e.tier = in->cp->o.tier != LBT_TIER_NONE ? in->cp->o.tier :
		    lbt_format_dialect(f) == LBT_DIALECT_HAPROXY ? LBT_TIER_LB :
		    lbt_format_dialect(f) == LBT_DIALECT_NGINX ? LBT_TIER_BACKEND : LBT_TIER_NONE;
	}
	if (in->ref_s == 0)
		in->ref_s = in->now_us / 1000000;
	lbt_err_clear(err);
	r = lbt_inputi_msg_parse(in, f ? &one : NULL, line, len, 1, err, &in->rec);
	*rec = &in->rec;
	return r > 0 ? 1 : r;
}

/*
 * Score every built-in format on one line as detection scores a file's
 * sample: the syslog wrapper stripped (its kind in *wrapper), then
 * lbt_format_detect on the message.  @return the number of scores.
 */
int lbt_input_score_line(lbt_input *in, const char *line, size_t len,
    lbt_format_score *scores, int max, lbt_syslog_kind *wrapper)
{
	lbt_syslog sy;
	const char *msg;

	if (in->ref_s == 0)
		in->ref_s = in->now_us / 1000000;
	*wrapper = lbt_syslog_strip(line, len, in->tz, in->ref_s, &sy);
	msg = line + sy.msg_off;
	len -= sy.msg_off;
	return lbt_format_detect(&msg, &len, 1, scores, max);
}

/*
 * Next record that passes the filters; see input.h.
 * @return 1 a record, 0 the end, -1 an error ending one file.
 */
int lbt_input_next(lbt_input *in, lbt_rec **rec, lbt_err *err)
{
	struct sline l;
	const char *line;
	int r;

	while (!in->stopped) {
		if (lbt_inputi_evtime_next(in, rec))
			return 1;      /* held events, then the request line that timed them */
		if (in->pause_pending) {
			in->pause_pending = 0;
			return 0;      /* the end of a file (lbt_input_pause) */
		}
		if (in->src == NULL && (r = file_open(in, err)) <= 0) {
			if (r < 0) {
				if (in->undetected)
					unread_check(in);
				file_close(in);
				in->st.failed_files++;
				in->stopped = in->o.strict;
			}
			return r;
		}
		if (in->pausing && !in->began++)
			return 0;      /* a file just opened: the caller may cut it */
		if ((r = line_next(in, &l, &line, err)) <= 0) {
			if (r == 0 && lbt_inputi_stretch_end(in, NULL, NULL))
				continue;      /* malformed lines read again (input_detect.c) */
			lbt_inputi_hold_flush(in);
			lbt_inputi_evtime_eof(in);
			if (r == 0)
				unread_check(in);
			file_close(in);
			if (r == 0)
				continue;
			in->st.failed_files++;
			in->stopped = in->o.strict;
			return -1;
		}
		if ((r = line_parse(in, line, &l, err)) != 0) {
			*rec = &in->rec;
			return r;
		}
	}
	return 0;
}

/* Counters so far. */
const lbt_input_stats *lbt_input_stats_get(const lbt_input *in)
{
	return &in->st;
}

/* The input's filter. */
const lbt_filter *lbt_input_filter(const lbt_input *in)
{
	return in->filter;
}

/* Format of the current (or last) file; before the first, the one the options name, or NULL. */
const lbt_format *lbt_input_format(const lbt_input *in)
{
	const struct fmtset *s = in->cur ? in->cur : in->nprof > 0 ? &in->prof[0]->fixed : NULL;

	return s != NULL && s->n > 0 ? s->v[s->last].f : NULL;
}

/* The built-ins of the current (or last) file as a --format list, or NULL. */
const char *lbt_input_format_names(const lbt_input *in, char *buf, size_t size)
{
	return in->cur != NULL ? lbt_inputi_set_names(in->cur, buf, size) : NULL;
}

/* The tiers of every queued input known ahead, as a mask; see input.h. */
unsigned lbt_input_tiers(lbt_input *in)
{
	unsigned m = 0;

	for (size_t i = 0; i < in->npaths; i++)
		m |= lbt_inputi_file_tiers(in, &in->paths[i]);
	return m;
}

/* True when path is read as a stream: stdin unless redirected from a file, or
 * a path that exists and is no regular file (a directory fails at open). */
static int path_live(const char *path)
{
	struct stat st;

	if (strcmp(path, "-") == 0)
		return fstat(0, &st) == 0 && !S_ISREG(st.st_mode);
	return stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

/* Is a queued input a stream?  See input.h. */
int lbt_input_live(const lbt_input *in)
{
	for (size_t i = 0; i < in->npaths; i++)
		if (path_live(in->paths[i].path))
			return 1;
	return 0;
}

/* The whole line of the last record (wrapper included), or NULL with *len 0. */
const char *lbt_input_line(const lbt_input *in, size_t *len)
{
	*len = in->line ? in->line_len : 0;
	return in->line;
}

/* The source being read, or NULL. */
const struct lbt_source *lbt_input_source(const lbt_input *in)
{
	return in->src;
}


/* Free everything; NULL accepted. */
void lbt_input_free(lbt_input *in)
{
	if (in == NULL)
		return;
	lbt_source_close(in->src);
	for (size_t i = 0; i < in->npaths; i++) {
		free(in->paths[i].path);
		free(in->paths[i].name);
		if (in->paths[i].probed != NULL)
			lbt_inputi_set_free(in->paths[i].probed);
		free(in->paths[i].probed);
	}
	free(in->paths);
	free(in->name);
	lbt_inputi_set_free(&in->det);
	lbt_inputi_profiles_free(in);
	lbt_key_free(in->key);
	lbt_filter_free(in->filter);
	free(in->sbuf);
	free(in->sl);
	free(in->hbuf);
	free(in->hl);
	free(in->jbuf);
	lbt_inputi_evtime_free(in);
	free(in->part_format);
	free(in);
}

/*
 * Score the built-ins on the first lines of path, as detection does; see
 * input.h.  @return the number of scores copied to scores[], or -1 with err.
 */
int lbt_input_score_file(const char *path, const char *log_tz, lbt_format_score *scores,
    int max, int *tried, lbt_err *err)
{
	lbt_input *in = calloc(1, sizeof *in);
	lbt_format_score *sc = NULL;
	int n = -1;

	*tried = 0;
	if (in == NULL)
		return lbt_err_set(err, "input: out of memory");
	if ((in->tz = lbt_tz_new(log_tz, err)) == NULL && log_tz != NULL)
		goto out;
	if ((in->src = lbt_source_open(path, NULL, err)) == NULL)
		goto out;
	in->name = strdup(lbt_source_name(in->src));
	in->ref_s = lbt_source_mtime(in->src) ? lbt_source_mtime(in->src) : lbt_time_now_us() / 1000000;
	n = lbt_inputi_score(in, &sc, tried);
	if (n == -2)
		*err = in->pend_err, n = -1;
	else if (n < 0)
		lbt_err_set(err, "input: out of memory");
	for (int i = 0; i < n && i < max; i++)
		scores[i] = sc[i];
	n = n < max ? n : max;
out:
	free(sc);
	lbt_tz_free(in->tz);     /* this input's own: it has no profile */
	lbt_input_free(in);
	return n;
}
