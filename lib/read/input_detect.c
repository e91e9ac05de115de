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
		int trunc, skip;

		if (cand > 0 && lbt_source_stream(in->src) &&
		    !lbt_source_wait(in->src, SAMPLE_WAIT_MS))
			return;
		r = lbt_source_next(in->src, &line, &len, &in->pend_err);
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
		trunc = lbt_source_truncated_line(in->src);
		skip = trunc || is_event(in, line, len);
		cand += !skip;
		if (sample_add(in, line, len, lbt_source_lineno(in->src), trunc, skip) < 0) {
			in->pending = 1;
			lbt_err_at(&in->pend_err, in->name, lbt_source_lineno(in->src),
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
 * log-formats.md §1.7) are ranked by their priority on purpose, which the
 * descriptors and lbt-formats(5) document; that is a choice, not a tie.
 */
static int detect_tie(const lbt_format_score *sc, int nsc)
{
	return nsc > 1 && lbt_format_scores_tied(&sc[0], &sc[1]);
}

/*
 * The formats to read the sample with: the best, then, while sample lines
 * are left that it does not read, the format that reads most of those
 * (the better ranked on a tie), until none reads any.  A file of one
 * format gets one; a /var/log/haproxy.log of httplog and tcplog proxies
 * gets both.  @return the number chosen (indices into sc in pick[]) with
 * *covered the sample lines they read.
 */
static int cover(const lbt_format_score *sc, int nsc, int tried, int *pick, int *covered)
{
	uint64_t all = tried >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << tried) - 1, left = all;
	int n = 0;

	while (left != 0 && n < nsc) {
		int best = -1, most = 0;

		for (int i = 0; i < nsc; i++) {
			int k = __builtin_popcountll(sc[i].lines & left);

			if (k > most) {
				best = i;
				most = k;
			}
		}
		if (best < 0)
			break;
		pick[n++] = best;
		left &= ~sc[best].lines;
	}
	*covered = __builtin_popcountll(all & ~left);
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
		if ((rc = detect_use(in, sc, pick, npick, err)) >= 0)
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
