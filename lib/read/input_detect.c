/*
 * lbt_inputi_detect.c - which format a file is in, from its first lines.
 * See lib/read/input_int.h and include/lbt/input.h.
 *
 * Detection reads up to SAMPLE_LINES non-blank lines that are not HAProxy
 * event lines (no format parses those; at most SAMPLE_STORED lines and
 * SAMPLE_BYTES in all) into a private copy, scores every built-in format
 * on them and keeps the few that together read the most lines (a file may
 * mix proxies or log_formats: input_fmtset.c reads each line with the one
 * that fits); input.c then replays the copy through the normal path,
 * so a detected file is read once and its first lines are not lost.  A
 * source error met while sampling (truncated .zst) is held back until the
 * sample has been replayed: every record before the damage still comes out.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input_int.h"
#include "lbt/event.h"
#include "lbt/syslog.h"
#include "lbt/vec.h"

_Static_assert(SAMPLE_LINES <= 64, "lbt_format_score.lines holds 64 sample lines");

/*
 * Append a non-blank line to the detection sample; `skip` keeps it out of
 * the scoring.  @return 0, or -1 when out of memory.
 */
static int sample_add(lbt_input *in, const char *line, size_t len, uint64_t lineno, int trunc,
    int skip)
{
	if (LBT_GROW(in->sbuf, in->scap, in->slen + len, 65536) < 0)
		return -1;
	if (in->sl == NULL && (in->sl = calloc(SAMPLE_STORED, sizeof *in->sl)) == NULL)
		return -1;
	memcpy(in->sbuf + in->slen, line, len);
	in->sl[in->ns] = (struct sline){ in->slen, len, lineno, trunc, skip || trunc };
	in->slen += len;
	in->ns++;
	return 0;
}

/* True when the line's message (wrapper stripped) is an HAProxy event line. */
static int is_event(lbt_input *in, const char *line, size_t len)
{
	lbt_syslog sy;
	lbt_rec scratch;

	lbt_syslog_strip(line, len, in->tz, in->ref_s, &sy);
	return lbt_event_parse(line + sy.msg_off, len - sy.msg_off, NULL, &scratch) == 0;
}

/*
 * Read the sample: up to SAMPLE_LINES candidate lines (blank ones are
 * counted as skipped and not kept), SAMPLE_STORED lines, SAMPLE_BYTES, the
 * end, or a source error (held back in pend_err).  A stream (a pipe, tail
 * -f) whose writer pauses for SAMPLE_WAIT_MS once a candidate is in ends
 * its sample there: its first records come out now, not when 50 lines
 * have been written, which may be never.
 */
static void sample_read(lbt_input *in)
{
	const char *line;
	size_t len;
	int r, cand = 0;

	while (cand < SAMPLE_LINES && in->ns < SAMPLE_STORED && in->slen < SAMPLE_BYTES) {
		uint64_t lineno;
		int trunc, skip;

		if (cand > 0 && lbt_source_stream(in->src) &&
		    !lbt_source_wait(in->src, SAMPLE_WAIT_MS))
			return;
		r = lbt_inputi_line_read(in, &line, &len, &lineno, &trunc, &in->pend_err);
		if (r == 0)
			return;
		if (r < 0) {
			in->pending = 1;
			return;
		}
		in->st.lines++;
		if (len == 0) {
			in->st.skipped++;
			continue;
		}
		skip = trunc || is_event(in, line, len);
		cand += !skip;
		if (sample_add(in, line, len, lineno, trunc, skip) < 0) {
			in->pending = 1;
			lbt_err_at(&in->pend_err, in->name, lineno,
			    "out of memory while detecting the format");
			return;
		}
	}
}

/* Count the built-in formats. */
static int builtin_count(void)
{
	const char *const *names = lbt_format_builtin_names();
	int n = 0;

	while (names && names[n])
		n++;
	return n;
}

/*
 * Score the built-in formats on the sample (wrappers stripped; blank and
 * cut lines left out).  @return the number of scores in *out (malloc'd,
 * best first), or -1 when out of memory.  *tried gets the lines scored.
 */
static int sample_score(lbt_input *in, lbt_format_score **out, int *tried)
{
	int nb = builtin_count(), n = 0, ns;
	const char **msgs = calloc((size_t)in->ns + 1, sizeof *msgs);
	size_t *lens = calloc((size_t)in->ns + 1, sizeof *lens);
	lbt_format_score *sc = calloc((size_t)nb + 1, sizeof *sc);

	ns = -1;
	if (msgs && lens && sc) {
		for (int i = 0; i < in->ns; i++) {
			const char *l = in->sbuf + in->sl[i].off;
			lbt_syslog sy;

			if (in->sl[i].skip)
				continue;
			lbt_syslog_strip(l, in->sl[i].len, in->tz, in->ref_s, &sy);
			msgs[n] = l + sy.msg_off;
			lens[n++] = in->sl[i].len - sy.msg_off;
		}
		ns = n > 0 ? lbt_format_detect(msgs, lens, n, sc, nb) : 0;
	}
	free(msgs);
	free(lens);
	*out = sc;
	*tried = n;
	return ns;
}

/*
 * True when the first two scores cannot be ranked at all.  Descriptors that
 * read the same lines differently (haproxy-httplog and haproxy-legacy,
 * docs/formats.md, "HAProxy 1.5 and 1.6") are ranked by their priority on purpose, which the
 * descriptors and lbt-formats(5) document; that is a choice, not a tie.
 */
static int detect_tie(const lbt_format_score *sc, int nsc)
{
	return nsc > 1 && lbt_format_scores_tied(&sc[0], &sc[1]);
}

/*
 * The formats to read the sample with: for every sample line, the most
 * specific built-in that reads it (lbt_format_line_best), each once, in
 * the order of the scores (best first).  Not a greedy cover by count: a
 * "www.example.net:80 ..." line among nginx-vhost lines is read by
 * nginx-vhost-port alone, so the set must hold it too, or the line's host
 * would depend on the lines around it.  A file of one format gets one; a
 * /var/log/haproxy.log of httplog and tcplog proxies gets both.  @return
 * the number chosen (indices into sc in pick[]) with *covered the sample
 * lines they read.
 */
static int cover(const lbt_format_score *sc, int nsc, int tried, int *pick, int *covered)
{
	char *chosen = calloc((size_t)nsc + 1, 1);
	int n = 0, lines = tried < 64 ? tried : 64;

	*covered = 0;
	if (chosen == NULL)
		return 0;
	for (int i = 0; i < lines; i++) {
		int b = lbt_format_line_best(sc, nsc, i);

		if (b < 0)
			continue;
		chosen[b] = 1;
		++*covered;
	}
	for (int k = 0; k < nsc; k++)
		if (chosen[k])
			pick[n++] = k;
	free(chosen);
	return n;
}

/*
 * Report a doubtful detection through the diag callback (file, no line):
 * a true tie for the first format, or formats that read under 80 % of the
 * sample lines together.
 */
static void detect_note(lbt_input *in, const lbt_format_score *sc, int nsc, const int *pick,
    int npick, int covered, int tried)
{
	int tie = detect_tie(sc, nsc);
	int poor = (int64_t)covered * 5 < (int64_t)tried * 4;
	char names[160] = "", what[256], also[160] = "";
	lbt_err note;

	if (in->o.diag == NULL || (!tie && !poor))
		return;
	for (int i = 0; i < npick; i++)
		snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
		    i ? ", " : "", sc[pick[i]].name);
	if (poor)
		snprintf(what, sizeof what, "format%s detected as %s, but only %d of %d sample "
		    "lines match", npick > 1 ? "s" : "", names, covered, tried);
	else
		snprintf(what, sizeof what, "format detected as %s (%d/%d lines)", sc[0].name,
		    sc[0].parsed, tried);
	if (tie)
		snprintf(also, sizeof also, "; %s matches equally", sc[1].name);
	lbt_err_at(&note, in->name, 0, "%s%s, use --format to choose", what, also);
	in->o.diag(in->o.diag_ctx, &note);
}

/* Fill err with "no known format matches" and the best three candidates. */
static void detect_fail(lbt_input *in, const lbt_format_score *sc, int nsc, int tried,
    lbt_err *err)
{
	char best[256] = "";
	size_t n = 0;

	for (int i = 0; i < nsc && i < 3; i++)
		n += (size_t)snprintf(best + n, n < sizeof best ? sizeof best - n : 0, "%s%s %d/%d",
		    i ? ", " : "", sc[i].name, sc[i].parsed, sc[i].tried);
	lbt_err_at(err, in->name, 0, "no known format matches the first %d lines (best: %s); "
	    "use --format, --log-format, --haproxy-cfg or --nginx-conf", tried,
	    nsc > 0 ? best : "none");
}

/* True when the detected set holds exactly the built-ins pick[0..n) of sc, in order. */
static int same_set(const struct fmtset *s, const lbt_format_score *sc, const int *pick, int n)
{
	if (s->n != (size_t)n)
		return 0;
	for (int i = 0; i < n; i++)
		if (strcmp(lbt_format_name(s->v[i].f), sc[pick[i]].name) != 0)
			return 0;
	return 1;
}

/*
 * Use the built-ins pick[0..n) of sc for this file, reusing the set of the
 * previous file when it is the same, for the same input options.
 * @return 0 the same set as before, 1 a new one (in->det, for the caller
 * to set up), -1 with err
 */
static int detect_use(lbt_input *in, const lbt_format_score *sc, const int *pick, int n,
    lbt_err *err)
{
	in->cur = &in->det;
	if (in->det_prof == in->cp && same_set(&in->det, sc, pick, n)) {
		in->det.last = 0;
		return 0;
	}
	lbt_inputi_set_free(&in->det);
	in->det.builtin = 1;
	in->det_prof = in->cp;
	for (int i = 0; i < n; i++) {
		lbt_format *f = lbt_format_open(sc[pick[i]].name, err);

		if (f == NULL || lbt_inputi_set_add(&in->det, f, NULL, -1, err) < 0) {
			lbt_err_at(err, in->name, 0, "%s", err->msg);
			lbt_inputi_set_free(&in->det);
			in->det_prof = NULL;
			in->cur = NULL;
			return -1;
		}
	}
	return 1;
}

/* Sample the new file and choose its formats; see input_int.h. */
int lbt_inputi_detect(lbt_input *in, lbt_err *err)
{
	lbt_format_score *sc = NULL;
	int tried = 0, nsc, rc = 0, npick = 0, covered = 0;
	int *pick = NULL;

	sample_read(in);
	nsc = sample_score(in, &sc, &tried);
	if (nsc > 0 && (pick = calloc((size_t)nsc, sizeof *pick)) == NULL)
		nsc = -1;
	if (nsc < 0)
		rc = lbt_err_at(err, in->name, 0, "out of memory while detecting the format");
	else if (tried > 0 && (nsc == 0 || sc[0].parsed == 0))
		detect_fail(in, sc, nsc, tried, err), in->undetected = 1, rc = -1,
		    err->kind = LBT_ERR_UNREAD;
	else if (tried > 0) {
		npick = cover(sc, nsc, tried, pick, &covered);
		if (npick == 0)
			rc = lbt_err_at(err, in->name, 0, "out of memory while detecting the format");
		else if ((rc = detect_use(in, sc, pick, npick, err)) >= 0)
			detect_note(in, sc, nsc, pick, npick, covered, tried);
	}
	free(pick);
	free(sc);
	return rc;
}

/* The sample and the scores of every built-in on it; see input_int.h. */
int lbt_inputi_score(lbt_input *in, lbt_format_score **sc, int *tried)
{
	sample_read(in);
	if (in->pending && in->ns == 0)
		return -2;
	return sample_score(in, sc, tried);
}

/*
 * Detection past the sample.  The first lines do not always show every
 * format of a file: a flood of another proxy's lines may begin at line
 * 1,201, and with the set of the first 50 lines its 6,000 lines were
 * malformed and the answer "calm".  So malformed lines are held (copies)
 * while they come in a row, and the built-ins are scored on them as on
 * the sample: the most specific that reads each line joins the set, and
 * the held lines are read again, in their place.
 */

/* True when the current set may grow: built-ins that detection chose for
 * this file (or for the file of this part), and no --strict. */
static int widenable(const lbt_input *in)
{
	return !in->o.strict && in->cur != NULL && in->cur->builtin && in->cur->n > 0 &&
	    (in->cur == &in->det || in->part_format != NULL);
}

/* Copy line (and its error, NUL-ended) to the held lines.  @return 0 or -1 */
static int held_add(lbt_input *in, const char *line, const struct sline *l, const char *why)
{
	size_t wn = strlen(why) + 1;

	/* SAMPLE_STORED: the arrays trade places with the sample's (held_swap) */
	if (in->hl == NULL && (in->hl = calloc(SAMPLE_STORED, sizeof *in->hl)) == NULL)
		return -1;
	if (LBT_GROW(in->hbuf, in->hcap, in->hlen + l->len + wn, 65536) < 0)
		return -1;
	assert(in->nh <= WIDEN_LINES);
	memcpy(in->hbuf + in->hlen, line, l->len);
	memcpy(in->hbuf + in->hlen + l->len, why, wn);
	in->hl[in->nh] = (struct sline){ in->hlen, l->len, l->lineno, 0, 0 };
	in->hlen += l->len + wn;
	in->nh++;
	return 0;
}

/* Count the held lines malformed, with their errors; see input_int.h. */
void lbt_inputi_hold_flush(lbt_input *in)
{
	for (int i = 0; i < in->nh; i++) {
		const struct sline *h = &in->hl[i];

		lbt_inputi_malformed(in, h->lineno, in->hbuf + h->off + h->len);
	}
	in->nh = 0;
	in->hlen = 0;
}

/* Swap the held lines with the (replayed) sample: scoring and replay read those. */
static void held_swap(lbt_input *in)
{
	char *b = in->sbuf;
	size_t cap = in->scap, len = in->slen;
	struct sline *l = in->sl;
	int n = in->ns;

	assert(in->si == in->ns);
	in->sbuf = in->hbuf, in->scap = in->hcap, in->slen = in->hlen, in->sl = in->hl;
	in->ns = in->si = in->nh;
	in->hbuf = b, in->hcap = cap, in->hlen = len, in->hl = l, in->nh = n;
}

/* True when set s holds the built-in `name`. */
static int set_has(const struct fmtset *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(lbt_format_name(s->v[i].f), name) == 0)
			return 1;
	return 0;
}

/* Say through diag which formats the lines from `from` on added to the set. */
static void widen_note(lbt_input *in, uint64_t from, const char *added, int read, int held)
{
	lbt_err note;

	if (in->o.diag == NULL)
		return;
	lbt_err_at(&note, in->name, from, "%d of %d lines in a row from here fit none of the "
	    "formats detected on the first lines: read with %s as well", read, held, added);
	in->o.diag(in->o.diag_ctx, &note);
}

/*
 * Score the built-ins on the held lines (swapped in as the sample) and
 * add to the current set those that the lines' most specific readers are
 * and it lacks.  @return the number added (0: none reads them, or no
 * memory: the lines stay malformed)
 */
static int widen(lbt_input *in)
{
	struct fmtset *s = in->cur;
	lbt_format_score *sc = NULL;
	int tried = 0, nsc, covered = 0, npick = 0, added = 0, *pick = NULL;
	char names[160] = "";
	lbt_err err;

	nsc = sample_score(in, &sc, &tried);
	if (nsc > 0 && tried > 0 && (pick = calloc((size_t)nsc, sizeof *pick)) != NULL)
		npick = cover(sc, nsc, tried, pick, &covered);
	for (int i = 0; i < npick; i++) {
		lbt_format *f;

		if (set_has(s, sc[pick[i]].name) || (f = lbt_format_open(sc[pick[i]].name, &err)) == NULL)
			continue;
		if (lbt_inputi_set_add(s, f, NULL, -1, &err) < 0)
			break;
		snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
		    added ? ", " : "", sc[pick[i]].name);
		added++;
	}
	if (added > 0 && lbt_inputi_set_setup(s, in->cp, in->wanted, &err) < 0)
		added = 0;      /* captures that compiled for the set compile for these */
	if (added > 0) {
		s->widened += added;
		widen_note(in, in->sl[0].lineno, names, covered, tried);
	}
	free(pick);
	free(sc);
	return added;
}

/*
 * Score the held lines now (they end here, before `line` unless NULL, or
 * fill a stretch), then queue them, and `line` after them, to be read
 * again with the wider set (1), or count them malformed (0).
 */
static int widen_try(lbt_input *in, const char *line, const struct sline *l)
{
	in->widen_seen = 0;
	held_swap(in);
	if (widen(in) > 0 && (line == NULL ||
	    sample_add(in, line, l->len, l->lineno, l->trunc, 0) == 0)) {
		in->si = 0;             /* read them again, with the wider set */
		in->nh = 0;             /* the held side has the old sample: spent */
		in->hlen = 0;
		in->widen_wait = 1;
		return 1;
	}
	held_swap(in);
	in->widen_wait = in->widen_wait == 0 ? 2 : in->widen_wait * 2 > WIDEN_LINES ?
	    WIDEN_LINES : in->widen_wait * 2;
	lbt_inputi_hold_flush(in);
	return 0;
}

/* Hold a malformed line past the sample; see input_int.h.  @return 1 held, 0 not */
int lbt_inputi_hold(lbt_input *in, const char *line, const struct sline *l, const char *why)
{
	if (in->replayed || !widenable(in))
		return 0;           /* a line read again, or a set that stays */
	if (held_add(in, line, l, why) < 0) {
		lbt_inputi_hold_flush(in);
		return 0;
	}
	in->widen_seen++;
	if (in->nh == WIDEN_LINES)
		widen_try(in, NULL, NULL);      /* a full stretch: score it now */
	return 1;
}

/* The held lines end at line (NULL: the file's end); see input_int.h. */
int lbt_inputi_stretch_end(lbt_input *in, const char *line, const struct sline *l)
{
	if (in->nh == 0)
		return 0;
	if (in->widen_seen < (in->widen_wait ? in->widen_wait : 1)) {
		lbt_inputi_hold_flush(in);
		return 0;
	}
	return widen_try(in, line, l);
}
