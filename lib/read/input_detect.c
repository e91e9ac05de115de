/*
 * lbt_inputi_detect.c - which format a file is in, from its first lines.
 * See lib/read/input_int.h and include/lbt/input.h.
 *
 * Detection reads up to SAMPLE_LINES non-blank lines that are not HAProxy
 * event lines (no format parses those; at most SAMPLE_STORED lines and
 * SAMPLE_BYTES in all) into a private copy and scores every built-in
 * format on them; input.c then replays the copy through the normal path,
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
 * end, or a source error (held back in pend_err).
 */
static void sample_read(lbt_input *in)
{
	const char *line;
	size_t len;
	int r, cand = 0;

	while (cand < SAMPLE_LINES && in->ns < SAMPLE_STORED && in->slen < SAMPLE_BYTES) {
		int trunc, skip;

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
 * Report a doubtful detection through the diag callback (file, no line):
 * a true tie, or a best format that reads under 80 % of the sample lines.
 */
static void detect_note(lbt_input *in, const lbt_format_score *sc, int nsc)
{
	const lbt_format_score *b = &sc[0];
	int tie = detect_tie(sc, nsc);
	int poor = (int64_t)b->parsed * 5 < (int64_t)b->tried * 4;
	char what[160], also[160] = "";
	lbt_err note;

	if (in->o.diag == NULL || (!tie && !poor))
		return;
	if (poor)
		snprintf(what, sizeof what, "format detected as %s, but only %d of %d sample "
		    "lines match", b->name, b->parsed, b->tried);
	else
		snprintf(what, sizeof what, "format detected as %s (%d/%d lines)", b->name,
		    b->parsed, b->tried);
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

/*
 * Use the built-in format `name` for this file, reusing the last one.
 * @return 0 the same format as before, 1 a new one (in->det, for the caller
 * to set up), -1 with err
 */
static int detect_use(lbt_input *in, const char *name, lbt_err *err)
{
	if (in->det != NULL && strcmp(lbt_format_name(in->det), name) == 0) {
		in->cur = in->det;
		return 0;
	}
	lbt_format_free(in->det);
	in->cur = NULL;
	if ((in->det = lbt_format_open(name, err)) == NULL) {
		lbt_err_at(err, in->name, 0, "%s", err->msg);
		return -1;
	}
	in->cur = in->det;
	return 1;
}

/* Sample the new file and choose its format; see input_int.h. */
int lbt_inputi_detect(lbt_input *in, lbt_err *err)
{
	lbt_format_score *sc = NULL;
	int tried = 0, nsc, rc = 0;

	sample_read(in);
	nsc = sample_score(in, &sc, &tried);
	if (nsc < 0)
		rc = lbt_err_at(err, in->name, 0, "out of memory while detecting the format");
	else if (tried > 0 && (nsc == 0 || sc[0].parsed == 0))
		detect_fail(in, sc, nsc, tried, err), rc = -1;
	else if (tried > 0 && (rc = detect_use(in, sc[0].name, err)) >= 0)
		detect_note(in, sc, nsc);
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
