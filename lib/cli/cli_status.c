/*
 * cli_status.c - the exit status of a run, and the notes that say why an
 * answer is empty or partial.  See include/lbt/cli.h and docs/exit-status.md.
 *
 * A run that printed a header and nothing else must never look like an
 * answer: `lbt-offenders ... | cut -f1 > acl.lst` behind a wrong --format
 * would write an empty ACL and report success.  So the status says what
 * happened (an input unread, nothing left by the filters), and stderr says
 * why, with what it takes to fix it: the format detection would choose,
 * the data's first and last time, the day a bare HH:MM was taken on.
 */
#include <stdio.h>
#include <string.h>

#include "cli_int.h"
#include "lbt/source.h"
#include "lbt/timeparse.h"

#define US_PER_DAY 86400000000LL
#define NSCORES 3
#define ULL(x) ((unsigned long long)(x))

/* The time us as ISO 8601 UTC, whole seconds unless it has a fraction, in buf. */
static const char *when(int64_t us, char *buf, size_t size)
{
	lbt_time_format_s(us, buf, size);
	return buf;
}

/*
 * The unread input: its lines, and what detection makes of its first
 * lines (the format it would choose and the lines that one reads), so
 * that a wrong --format, --frontend or --log-name names its fix.
 */
static void unread_note(const lbt_cli *cli, const lbt_input_stats *st)
{
	lbt_format_score sc[NSCORES];
	const char *path = st->unread_path;
	int tried = 0, n;
	lbt_err err;

	if (!lbt_source_is_file(path)) {
		lbt_cli_note(cli, "%s: none of its %llu lines could be read "
		    "(detection cannot read a stream twice: try lbt-formats --detect on a copy)",
		    strcmp(path, "-") == 0 ? "standard input" : path, ULL(st->unread_lines));
		if (st->unread_files > 1)
			lbt_cli_note(cli, "%llu inputs in all could not be read",
			    ULL(st->unread_files));
		return;
	}
	n = lbt_input_score_file(path, cli->in.log_tz, sc, NSCORES, &tried, &err);
	if (n > 0 && sc[0].parsed > 0)
		lbt_cli_note(cli, "%s: none of its %llu lines could be read; detection would "
		    "choose %s (%d of %d sample lines): check --format, --frontend, --log-name",
		    path, ULL(st->unread_lines), sc[0].name, sc[0].parsed, tried);
	else
		lbt_cli_note(cli, "%s: none of its %llu lines could be read, and no known "
		    "format reads them (%d sample lines): give its template (--log-format, "
		    "--haproxy-cfg, --nginx-conf)", path, ULL(st->unread_lines), tried);
	if (st->unread_files > 1)
		lbt_cli_note(cli, "%llu inputs in all could not be read", ULL(st->unread_files));
}

/*
 * An input read only in part: more than LBT_INPUT_UNREAD_PERCENT of its
 * lines malformed (input.h), so the answer leaves out what they said.
 */
static void partial_note(const lbt_cli *cli, const lbt_input_stats *st)
{
	double share = st->partial_lines ? 100.0 * (double)st->partial_malformed /
	    (double)st->partial_lines : 0;

	lbt_cli_note(cli, "%s: %llu of its %llu lines (%.1f %%) could not be read, the first "
	    "at line %llu: more than %d %% of the input is missing from the answer; check "
	    "--format, --haproxy-cfg, --nginx-conf (lbt-formats --detect shows what reads it)",
	    strcmp(st->partial_path, "-") == 0 ? "standard input" : st->partial_path,
	    ULL(st->partial_malformed), ULL(st->partial_lines), share,
	    ULL(st->partial_first), LBT_INPUT_UNREAD_PERCENT);
	if (st->partial_files > 1)
		lbt_cli_note(cli, "%llu inputs in all were read only in part",
		    ULL(st->partial_files));
}

/* True when the records read have a time span (input.h: an empty one is
 * first > last, or 0 0 from an index, which does not know it). */
static int has_span(const lbt_input_stats *st)
{
	return st->first_us <= st->last_us && (st->first_us != 0 || st->last_us != 0);
}

/* The window of the filter f as "--since A --until B" into buf (resolved times). */
static const char *window_str(const lbt_filter *f, char *buf, size_t size)
{
	int64_t since, until;
	char a[40], b[40];

	lbt_filter_bounds(f, &since, &until);
	a[0] = b[0] = '\0';
	if (since != INT64_MIN)
		when(since, a, sizeof a);
	if (until != INT64_MAX)
		when(until, b, sizeof b);
	snprintf(buf, size, "%s%s%s%s%s", a[0] ? "--since " : "", a, a[0] && b[0] ? " " : "",
	    b[0] ? "--until " : "", b);
	return buf;
}

/* True when the --since/--until window of f holds no instant of [first, last]. */
static int window_outside(const lbt_filter *f, const lbt_input_stats *st)
{
	int64_t since, until;

	lbt_filter_bounds(f, &since, &until);
	if (since == INT64_MIN && until == INT64_MAX)
		return 0;
	return since > st->last_us || until <= st->first_us;
}

/* An input of `lines` lines, `malformed` of them, `requests` read: when
 * none was read, or more than LBT_INPUT_UNREAD_PERCENT of its lines, say
 * so and mark the run unread; see cli.h. */
void lbt_cli_check_read(lbt_cli *cli, const char *path, uint64_t lines, uint64_t malformed,
    uint64_t requests)
{
	if (lines == 0 || malformed == 0)
		return;
	if (requests > 0) {
		if (malformed * 100 <= lines * LBT_INPUT_UNREAD_PERCENT)
			return;
		lbt_cli_note(cli, "%s: %llu of its %llu lines (%.1f %%) could not be read: more "
		    "than %d %% of the input is missing (lbt-formats --detect %s shows what "
		    "detection makes of it)", path, ULL(malformed), ULL(lines),
		    100.0 * (double)malformed / (double)lines, LBT_INPUT_UNREAD_PERCENT, path);
		cli->unread = 1;
		return;
	}
	lbt_cli_note(cli, "%s: none of its %llu lines could be read (lbt-formats --detect "
	    "%s shows what detection makes of it)", path, ULL(lines), path);
	cli->unread = 1;
}

/* Why no record reached the program: none read, filters, tier. */
static void empty_note(const lbt_cli *cli, const lbt_stream *s, const lbt_input_stats *st)
{
	const lbt_filter *f = lbt_stream_filter(s);
	char a[40], b[40], w[120];

	if (f == NULL && cli->in.db != NULL) {      /* the index filtered in SQL */
		lbt_cli_note(cli, "no request of the index %s passes the filters", cli->in.db);
		return;
	}
	if (st->records == 0) {
		if (!cli->unread)
			lbt_cli_note(cli, "no request in the input (%llu lines: %llu malformed, "
			    "%llu events)", ULL(st->lines), ULL(st->malformed), ULL(st->events));
		return;
	}
	if (!has_span(st) || st->filtered == 0) {
		lbt_cli_note(cli, "no record to answer from: %llu requests read, %llu left out "
		    "by the filters", ULL(st->records), ULL(st->filtered));
		return;
	}
	when(st->first_us, a, sizeof a);
	when(st->last_us, b, sizeof b);
	if (f != NULL && window_outside(f, st))
		lbt_cli_note(cli, "the window %s lies outside the data (%s .. %s): nothing to "
		    "answer from", window_str(f, w, sizeof w), a, b);
	else
		lbt_cli_note(cli, "the filters left none of the %llu records (data %s .. %s)",
		    ULL(st->records), a, b);
}

/*
 * When a bare HH:MM bound was given and the data spans more than a day,
 * say which day it was taken on: the one nearest the first record.
 */
static void day_note(const lbt_cli *cli, const lbt_stream *s, const lbt_input_stats *st)
{
	const lbt_filter *f = lbt_stream_filter(s);
	const unsigned both = LBT_FILTER_TOD_SINCE | LBT_FILTER_TOD_UNTIL;
	char a[40], b[40], w[120], r[40];
	int64_t ref;

	if (f == NULL || lbt_filter_tod(f) == 0 || !has_span(st) ||
	    st->last_us - st->first_us <= US_PER_DAY || (ref = lbt_filter_tod_ref(f)) == 0)
		return;
	lbt_cli_note(cli, "note: the data spans more than a day (%s .. %s): the bare time%s "
	    "taken as %s, nearest the first record (%s); give a full date for another day",
	    when(st->first_us, a, sizeof a), when(st->last_us, b, sizeof b),
	    lbt_filter_tod(f) == both ? "s were" : " was", window_str(f, w, sizeof w),
	    when(ref, r, sizeof r));
}

/* Say why the answer of the run over s is empty or partial; mark cli. */
void lbt_clii_explain(lbt_cli *cli, const lbt_stream *s)
{
	const lbt_input_stats *st = lbt_stream_stats(s);

	if (st->unread_files > 0) {
		cli->unread = 1;
		unread_note(cli, st);
	}
	if (st->partial_files > 0) {
		cli->unread = 1;
		partial_note(cli, st);
	}
	day_note(cli, s, st);
	if (cli->records == 0) {
		cli->empty = 1;
		if (cli->status == 0)
			empty_note(cli, s, st);
	}
}

/* The status of the run, by precedence. */
int lbt_clii_status(const lbt_cli *cli)
{
	if (cli->status != 0)
		return cli->status;
	if (cli->unread)
		return LBT_EXIT_UNREAD;
	return cli->empty ? LBT_EXIT_EMPTY : LBT_EXIT_OK;
}
