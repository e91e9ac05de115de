/*
 * input_msg.c - one line's message made a record: strip the syslog
 * wrapper (with the memo of the line before), parse with the input's
 * format set, fall back to event lines, complete the record; and the lines
 * before a part of a file, parsed uncounted for the times they give.
 *
 * The bottom of the input files: input.c (the stream), input_evtime.c
 * (events held for a time), input_part.c (parts of a file) and
 * input_detect.c (a widening's held lines) call it, and it calls none of
 * them; so is the count of a malformed line.
 */
#include <assert.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "input_int.h"
#include "lbt/event.h"
#include "lbt/syslog.h"

/*
 * What the format entry e that read r gives it: the proxy a format
 * without %ft was read for, as its frontend, and its tier (unless the
 * record has its own: lbt-tsv).  Inline: it runs once a line.
 */
static inline void rec_origin(lbt_rec *r, const struct fmt_entry *e)
{
	if (e->fill_fe && !(r->have & LBT_BIT(LBT_F_FRONTEND))) {
		r->frontend = lbt_str_make(e->proxy, e->proxy_len);
		r->have |= LBT_BIT(LBT_F_FRONTEND);
	}
	if (e->tier != LBT_TIER_NONE && !(r->have & LBT_BIT(LBT_F_TIER))) {
		r->tier = e->tier;
		r->have |= LBT_BIT(LBT_F_TIER);
	}
}

/*
 * Complete a parsed record: what its format entry e (NULL: none) gives, LB
 * host, syslog time, its clock, provenance, key.
 */
static void rec_complete(lbt_input *in, lbt_rec *r, const struct fmt_entry *e,
    const lbt_syslog *sy, uint64_t lineno)
{
	const uint64_t prov = LBT_BIT(LBT_F_FILE) | LBT_BIT(LBT_F_LINE);
	const char *lb = in->cp->o.lb;

	if (e != NULL)
		rec_origin(r, e);
	if (!(r->have & LBT_BIT(LBT_F_LB)) && (sy->host.n > 0 || lb != NULL)) {
		r->lb = sy->host.n > 0 ? sy->host : lbt_str_make(lb, strlen(lb));
		r->have |= LBT_BIT(LBT_F_LB);
	}
	if (!(r->have & LBT_BIT(LBT_F_TIME)) && sy->has_time) {
		r->time_us = sy->time_us;
		r->clock = LBT_CLOCK_SYSLOG;
		r->have |= LBT_BIT(LBT_F_TIME);
	}
	if ((r->have & LBT_BIT(LBT_F_TIME)) && r->clock != LBT_CLOCK_NONE)
		r->have |= LBT_BIT(LBT_F_CLOCK);
	if (in->o.own_provenance || (r->have & prov) != prov) {
		r->file = in->name;
		r->line = lineno;
		r->have |= LBT_BIT(LBT_F_FILE) | LBT_BIT(LBT_F_LINE);
	}
	if (in->want_key && (r->have & LBT_BIT(LBT_F_PATH)) &&
	    (in->o.key_regex != NULL || !(r->have & LBT_BIT(LBT_F_KEY)))) {
		r->have &= ~LBT_BIT(LBT_F_KEY);
		if (lbt_key_extract(in->key, r->path.p, r->path.n, &r->key))
			r->have |= LBT_BIT(LBT_F_KEY);
	}
}

/*
 * Parse the message of line[0..len) with set s (NULL or empty: event lines
 * only) into rec and complete it.  @return 1 a request, 2 an event, 0 no
 * record (a header the format skips), -1 malformed with `why` filled.
 */
int lbt_inputi_msg_parse(lbt_input *in, struct fmtset *s, const char *line, size_t len,
    uint64_t lineno, lbt_err *why, lbt_rec *rec)
{
	const struct fmt_entry *e = NULL;
	lbt_syslog sy;
	const char *msg;
	size_t mlen;
	int r = LBT_PARSE_BAD;

	lbt_syslog_strip_memo(line, len, in->tz, in->ref_s, &in->symemo, &sy);
	msg = line + sy.msg_off;
	mlen = len - sy.msg_off;
	why->msg[0] = '\0';    /* not lbt_err_clear: 800 bytes a line (~110 instructions) */
	if (s != NULL && s->n == 1)      /* one format: no call through the set */
		r = lbt_format_parse(s->v[0].f, msg, mlen, rec, why);
	else if (s != NULL && s->n > 1)
		r = lbt_inputi_set_parse(s, msg, mlen, rec, why);
	if (r == LBT_PARSE_SKIP)
		return 0;
	if (r != LBT_PARSE_BAD) {
		e = &s->v[s->last];
	} else {     /* an event: no frontend of a format, no tier (requests only) */
		lbt_rec_clear(rec);
		if (lbt_event_parse(msg, mlen, in->tz, rec) < 0) {
			if (why->msg[0] == '\0')
				lbt_err_set(why, "no format");
			return -1;
		}
	}
	rec_complete(in, rec, e, &sy, lineno);
	return r == LBT_PARSE_BAD ? 2 : 1;
}

/* Parse line[0..len) as the lines before the part: remember a request's time. */
static void prime_line(lbt_input *in, const char *line, size_t len)
{
	lbt_err why;

	if (len == 0 || lbt_inputi_msg_parse(in, in->cur, line, len, 0, &why, &in->rec) != 1)
		return;
	if (in->rec.have & LBT_BIT(LBT_F_TIME)) {
		in->ev.last_us = in->rec.time_us;
		in->ev.last_file = in->st.files;
	}
}

/* Read the bytes before the part into a buffer.  @return it (to free) with *n, or NULL */
static char *prime_read(const struct path *p, size_t *n)
{
	uint64_t lo = p->off > PRIME_BYTES ? p->off - PRIME_BYTES : 0;
	char *buf = malloc(p->off - lo + 1);
	int fd = open(p->path, O_RDONLY | O_CLOEXEC);
	ssize_t r = -1;

	if (buf != NULL && fd >= 0)
		r = pread(fd, buf, (size_t)(p->off - lo), (off_t)lo);
	if (fd >= 0)
		close(fd);
	if (r < 0) {
		free(buf);
		return NULL;
	}
	*n = (size_t)r;
	return buf;
}

/* Parse the lines before part p, uncounted; see input_int.h. */
void lbt_inputi_part_prime(lbt_input *in, const struct path *p)
{
	size_t n = 0;
	char *buf = p->off > 0 ? prime_read(p, &n) : NULL;
	char *s = buf, *e = buf + n, *nl;

	if (buf == NULL)
		return;
	if (p->off > PRIME_BYTES && (s = memchr(buf, '\n', n)) != NULL)
		s++;                  /* the window began inside a line */
	for (; s != NULL && s < e && (nl = memchr(s, '\n', (size_t)(e - s))) != NULL; s = nl + 1)
		prime_line(in, s, (size_t)(nl - s) - (nl > s && nl[-1] == '\r'));
	free(buf);
}

/*
 * Count a malformed line and report it (the first max_reported of the run)
 * through diag; under strict, fill err instead and stop.
 * @return 0 (go on), or -1 (strict).
 */
int lbt_inputi_malformed_err(lbt_input *in, uint64_t lineno, const char *why, lbt_err *err)
{
	lbt_err e;

	if (in->st.malformed++ == in->file_bad)
		in->file_first_bad = lineno;
	if (in->o.strict) {
		in->stopped = 1;
		return lbt_err_at(err, in->name, lineno, "%s", why);
	}
	if (in->o.diag != NULL && in->reported < in->o.max_reported) {
		in->reported++;
		lbt_err_at(&e, in->name, lineno, "%s", why);
		in->o.diag(in->o.diag_ctx, &e);
	}
	return 0;
}

/* Count and report a malformed line, never stopping; see input_int.h. */
void lbt_inputi_malformed(lbt_input *in, uint64_t lineno, const char *why)
{
	assert(!in->o.strict);
	lbt_inputi_malformed_err(in, lineno, why, NULL);
}
