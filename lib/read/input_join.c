/*
 * input_join.c - the lines of a file as its events wrote them: an NGINX
 * error-log line whose message runs over several lines is one line here.
 *
 * NGINX writes what a FastCGI server sent on stderr as it came, newlines
 * included:
 *
 *   2026/12/01 18:30:58 [error] 2153#2153: *1 FastCGI sent in stderr: "PHP message: one
 *   PHP message: two" while reading response header from upstream, client: ...
 *
 * The lines after the first have no stamp; read one by one they were
 * malformed, and in a file of such events detection found no format and
 * the whole file was rejected (every event lost).  So a line that starts
 * with an NGINX error-log stamp and leaves a quote open takes the lines
 * after it, up to the one that closes the quote, with their newlines:
 * the event parser then finds the context (client, request, upstream)
 * that NGINX writes after the message.  A line that starts with a stamp,
 * a blank or cut line, or the end ends the event first (it is read next);
 * so do JOIN_LINES lines or JOIN_BYTES, past which the event is taken as
 * it is.  Only unwrapped lines are joined: syslog carries one message a
 * line (rsyslog writes an embedded newline as "#012").
 *
 * Every physical line counts in st.lines; the joined line has the number
 * of its first.  Called for the sample (input_detect.c) and the lines
 * after it (input.c).
 */
#include <string.h>

#include "input_int.h"
#include "lbt/vec.h"

#define JOIN_LINES 256            /* continuation lines of one event at most */
#define JOIN_BYTES (256u << 10)

/* True when s[0..n) starts as an NGINX error-log line: "YYYY/MM/DD HH:MM:SS [". */
static int stamped(const char *s, size_t n)
{
	static const char shape[] = "dddd/dd/dd dd:dd:dd [";

	if (n < sizeof shape - 1 || s[0] < '0' || s[0] > '9' || s[4] != '/')
		return 0;              /* two compares for most lines */
	for (size_t i = 0; i < sizeof shape - 1; i++)
		if (shape[i] == 'd' ? s[i] < '0' || s[i] > '9' : s[i] != shape[i])
			return 0;
	return 1;
}

/* True when s[0..n) holds an odd number of '"': a quoted value still open. */
static int quote_open(const char *s, size_t n)
{
	int open = 0;

	for (const char *q = s; (q = memchr(q, '"', n - (size_t)(q - s))) != NULL; q++)
		open = !open;
	return open;
}

/* Read a physical line of the source into *pl.  @return as lbt_source_next */
static int physical(lbt_input *in, struct pline *pl, lbt_err *err)
{
	pl->r = lbt_source_next(in->src, &pl->p, &pl->len, err);
	if (pl->r == 1) {
		pl->lineno = lbt_source_lineno(in->src);
		pl->trunc = lbt_source_truncated_line(in->src);
	}
	return pl->r;
}

/*
 * Append the lines after in->jbuf[0..*n) that continue it, while its quote
 * is open; the first line that does not is kept in in->peek.
 */
static void continue_event(lbt_input *in, size_t *n)
{
	int k = 0;

	while (k < JOIN_LINES && *n < JOIN_BYTES && quote_open(in->jbuf, *n)) {
		struct pline *pl = &in->peek;

		if (physical(in, pl, &in->peek_err) != 1 || pl->trunc || pl->len == 0 ||
		    stamped(pl->p, pl->len)) {
			in->peeked = 1;
			return;
		}
		if (LBT_GROW(in->jbuf, in->jcap, *n + 1 + pl->len, 4096) < 0)
			return;        /* no memory: the event as it is, the line lost */
		in->jbuf[(*n)++] = '\n';
		memcpy(in->jbuf + *n, pl->p, pl->len);
		*n += pl->len;
		in->st.lines++;
		k++;
	}
}

/* The line after a joined event, read ahead, as the next line.  @return as lbt_source_next */
static int peeked_line(lbt_input *in, const char **line, size_t *len, uint64_t *lineno,
    int *trunc, lbt_err *err)
{
	in->peeked = 0;
	if (in->peek.r != 1) {
		if (in->peek.r < 0)
			*err = in->peek_err;
		return in->peek.r;
	}
	*line = in->peek.p;
	*len = in->peek.len;
	*lineno = in->peek.lineno;
	*trunc = in->peek.trunc;
	return 1;
}

/* The next line of the current file; see input_int.h. */
int lbt_inputi_line_read(lbt_input *in, const char **line, size_t *len, uint64_t *lineno,
    int *trunc, lbt_err *err)
{
	size_t n;
	int r;

	if (in->peeked) {
		r = peeked_line(in, line, len, lineno, trunc, err);
	} else if ((r = lbt_source_next(in->src, line, len, err)) == 1) {
		*lineno = lbt_source_lineno(in->src);
		*trunc = lbt_source_truncated_line(in->src);
	}
	if (r != 1 || *trunc || !stamped(*line, *len) || !quote_open(*line, *len))
		return r;        /* most lines: two compares more than the source's */
	if (LBT_GROW(in->jbuf, in->jcap, *len, 4096) < 0)
		return 1;
	memcpy(in->jbuf, *line, *len);    /* the source's view ends at the next read */
	n = *len;
	continue_event(in, &n);
	*line = in->jbuf;
	*len = n;
	return 1;
}
