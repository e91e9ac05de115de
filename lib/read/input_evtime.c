/*
 * input_evtime.c - times for event lines that carry none.
 * See lib/read/input_int.h.
 *
 * HAProxy writes its own lines (Proxy X stopped, Server ... is DOWN, the
 * master's notices) without a date of their own: in a raw, stdout or
 * custom log with no syslog stamp such an event would have no time at
 * all, and the timeline could not place it.  It takes the time of the
 * nearest request line of the same file instead, with the clock
 * LBT_CLOCK_INFERRED so that nobody mistakes it for the event's own: the
 * request line before it, or, for events that come before the first
 * request line of the file, the first one after them.  Those are held
 * (copied, at most HOLD_LINES lines and HOLD_BYTES) and given out, in
 * file order, just before the request line that timed them (a request
 * line without a time, as in haproxy-minimal, releases them untimed: the
 * order of the lines is kept); at the end of a file without request lines
 * they come out without a time.
 *
 * A request line's time says when it started (%tr) or ended ($time_local),
 * not when HAProxy wrote the event, so the borrowed time is an
 * approximation: good to a few seconds in a busy log, not in a quiet one.
 * Cost: a compare and a store per record, nothing more unless events wait.
 */
#include <stdlib.h>
#include <string.h>

#include "input_int.h"
#include "lbt/vec.h"

/* True when rec is a request with a time (the ones that time events). */
static int timed_request(const lbt_rec *rec)
{
	return rec->kind == LBT_KIND_REQUEST && (rec->have & LBT_BIT(LBT_F_TIME));
}

/* Give rec the borrowed time t. */
static void infer(lbt_rec *rec, int64_t t)
{
	rec->time_us = t;
	rec->clock = LBT_CLOCK_INFERRED;
	rec->have |= LBT_BIT(LBT_F_TIME) | LBT_BIT(LBT_F_CLOCK);
}

/* Copy line[0..len) (line lineno) to the held lines.  @return 0, or -1 when full */
static int hold(struct evtime *ev, const char *line, size_t len, uint64_t lineno)
{
	if (ev->n >= HOLD_LINES || ev->len + len > HOLD_BYTES ||
	    LBT_GROW(ev->buf, ev->cap, ev->len + len + 1, 4096) < 0 ||
	    LBT_GROW(ev->v, ev->vcap, ev->n + 1, 64) < 0)
		return -1;
	memcpy(ev->buf + ev->len, line, len);
	ev->v[ev->n++] = (struct held){ ev->len, len, lineno };
	ev->len += len;
	return 0;
}

/* Start giving the held lines out, with time t when `timed`. */
static void release(struct evtime *ev, int timed, int64_t t)
{
	ev->emitting = ev->n > 0;
	ev->timed = timed;
	ev->time_us = t;
	ev->next = 0;
}

/* Remember, infer or hold; see input_int.h.  @return 1 go on, 0 held, 2 ends a wait */
int lbt_inputi_evtime_note(lbt_input *in, const char *line, const struct sline *l)
{
	struct evtime *ev = &in->ev;
	lbt_rec *rec = &in->rec;

	if (rec->kind == LBT_KIND_REQUEST) {
		if (timed_request(rec)) {
			ev->last_us = rec->time_us;
			ev->last_file = in->st.files;
		}
		return ev->n > 0 ? 2 : 1;     /* held events go first, timed when it is */
	}
	if (rec->have & LBT_BIT(LBT_F_TIME))
		return 1;
	if (ev->last_file == in->st.files) {
		infer(rec, ev->last_us);
		return 1;
	}
	if (hold(ev, line, l->len, l->lineno) == 0)
		return 0;
	return ev->n > 0 ? 2 : 1;  /* full: the held ones go out untimed, this one after them */
}

/*
 * Give the held events out with in->rec's time (none when in->rec is not
 * a timed request: the hold was full), then in->rec when pass.
 */
void lbt_inputi_evtime_release(lbt_input *in, int pass, const char *line, size_t len)
{
	struct evtime *ev = &in->ev;

	release(ev, timed_request(&in->rec), in->rec.time_us);
	ev->req = pass;
	ev->req_line = line;
	ev->req_len = len;
}

/*
 * Parse held line k into ev->rec with the time of the release.
 * @return 1 when it passes the filters
 */
static int held_event(lbt_input *in, size_t k)
{
	struct evtime *ev = &in->ev;
	const struct held *h = &ev->v[k];
	lbt_err why;

	if (lbt_inputi_msg_parse(in, NULL, ev->buf + h->off, h->len, h->lineno, &why,
	    &ev->rec) != 2)
		return 0;
	if (ev->timed)
		infer(&ev->rec, ev->time_us);
	if (!lbt_filter_match(in->filter, &ev->rec))
		return in->st.filtered++, 0;
	in->line = ev->buf + h->off;
	in->line_len = h->len;
	return 1;
}

/* The next held event, or the request that timed them; see input_int.h. @return 1 or 0 */
int lbt_inputi_evtime_next(lbt_input *in, lbt_rec **rec)
{
	struct evtime *ev = &in->ev;

	if (!ev->emitting)
		return 0;
	while (ev->next < ev->n)
		if (held_event(in, ev->next++)) {
			*rec = &ev->rec;
			return 1;
		}
	ev->emitting = 0;
	ev->n = ev->len = ev->next = 0;
	if (!ev->req)
		return 0;
	ev->req = 0;
	in->line = ev->req_line;
	in->line_len = ev->req_len;
	*rec = &in->rec;
	return 1;
}

/* End of a file: the held events go out without a time. */
void lbt_inputi_evtime_eof(lbt_input *in)
{
	if (!in->ev.emitting && in->ev.n > 0) {
		release(&in->ev, 0, 0);
		in->ev.req = 0;
	}
}

/* Release the held lines' buffers. */
void lbt_inputi_evtime_free(lbt_input *in)
{
	free(in->ev.buf);
	free(in->ev.v);
}
