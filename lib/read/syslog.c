/*
 * syslog.c - recognise and strip the wrapper in front of a log message.
 * See include/lbt/syslog.h and docs/formats.md, "Syslog wrappers".
 *
 * The first byte decides almost everything, so a line without a wrapper
 * costs one or two tests: '<' starts a PRI, an upper-case month letter may
 * start an RFC 3164 / journald short stamp, a digit may start an ISO stamp
 * (exactly \d{4}-\d\d-\d\dT) or a short-unix epoch (10 digits '.' 6 digits).
 * A plain HAProxy or NGINX line starts with an address ("203.0.113.7:",
 * "2001:db8::1:51234"), '{' (JSON) or "BF" (CBOR hex) and fails those tests.
 *
 * After a stamp come an optional host and a tag: a word ending in ':' (with
 * an optional "[pid]") is the tag; "host tag:" gives both; otherwise the
 * message starts right after the stamp (HAProxy "timed" and "iso").
 * Measured: about 60 ns per line for an RFC 3164 wrapper (stamp, year
 * inference and host/tag included), a few ns for a line without one.
 */
#include <string.h>

#include "lbt/syslog.h"

/* True for an ASCII digit. */
static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Length of the word at p[0..n) (up to a space). */
static size_t word_len(const char *p, size_t n)
{
	const char *sp = memchr(p, ' ', n);

	return sp ? (size_t)(sp - p) : n;
}

/*
 * True when p[0..n) is a syslog tag: NAME ":", NAME "[" DIGITS "]" ":", or
 * NAME "[" DIGITS "]" without the colon, as rsyslog writes the tag of an
 * RFC 5424 message (APP-NAME[PROCID]) in its file formats:
 * "2026-12-01T18:30:58.661502+00:00 lb2 haproxy[20440] Server ...".
 * NAME without spaces, colons or brackets.
 */
static int is_tag(const char *p, size_t n, size_t *name_len)
{
	size_t i = 0, name, end;

	if (n < 2 || (p[n - 1] != ':' && p[n - 1] != ']'))
		return 0;
	end = p[n - 1] == ':' ? n - 1 : n;    /* without the colon */
	while (i < end && p[i] != '[' && p[i] != ']' && p[i] != ':')
		i++;
	name = i;
	if (name == 0 || (i == end && end == n))
		return 0;                     /* no name, or "]" alone ended it */
	if (i < end) {
		if (p[i] != '[' || p[end - 1] != ']' || end - 2 <= i)
			return 0;
		for (i++; i < end - 1; i++)
			if (!is_digit(p[i]))
				return 0;
	}
	*name_len = name;
	return 1;
}

/* Offset just past the word of w bytes at pos and the one space after it. */
static size_t after_word(size_t len, size_t pos, size_t w)
{
	return pos + w < len ? pos + w + 1 : len;
}

/*
 * Read "[host] tag[pid]: " at line[pos..len) into out->host/tag; extra
 * spaces before it (NGINX writes an empty host with `nohostname`) are
 * skipped when a tag follows.
 * @return the message offset (pos itself when there is no tag)
 */
static size_t host_tag(const char *line, size_t len, size_t pos, lbt_syslog *out)
{
	size_t start = pos, w1, w2, p2, name;

	while (pos < len && line[pos] == ' ')      /* NGINX nohostname: "01  nginx:" */
		pos++;
	w1 = word_len(line + pos, len - pos);

	if (is_tag(line + pos, w1, &name)) {
		out->tag = lbt_str_make(line + pos, name);
		return after_word(len, pos, w1);
	}
	if (w1 == 0 || pos + w1 >= len)
		return start;
	p2 = pos + w1 + 1;
	w2 = word_len(line + p2, len - p2);
	if (!is_tag(line + p2, w2, &name))
		return start;
	out->host = lbt_str_make(line + pos, w1);
	out->tag = lbt_str_make(line + p2, name);
	return after_word(len, p2, w2);
}

/* "<PRI>" at the start of line, PRI 0..191 in 1 to 3 digits. @return offset after '>' or 0 */
static size_t parse_pri(const char *line, size_t len, int *pri)
{
	size_t i = 1;
	int v = 0;

	while (i < len && i <= 3 && is_digit(line[i]))
		v = v * 10 + (line[i++] - '0');
	if (i == 1 || i >= len || line[i] != '>' || v > 191)
		return 0;
	*pri = v;
	return i + 1;
}

/* RFC 3164 / journald short stamp at pos, then host and tag.  @return 1 when found */
static int try_bsd(const char *line, size_t len, size_t pos, lbt_tz *tz, int64_t ref_s,
    lbt_syslog *out)
{
	size_t n = 15;
	int64_t us;

	if (len - pos < 14 || line[pos + 3] != ' ' || lbt_month_from_abbr(line + pos) == 0)
		return 0;
	if (len - pos == 14 || (len - pos > 15 && line[pos + 15] != ' '))
		n = 14;
	if (len - pos > n && line[pos + n] != ' ')
		return 0;
	if (lbt_time_parse_bsd(line + pos, n, tz, ref_s, &us) < 0)
		return 0;
	out->kind = LBT_SYSLOG_RFC3164;
	out->time_us = us;
	out->has_time = 1;
	out->msg_off = host_tag(line, len, after_word(len, pos, n), out);
	return 1;
}

/* True when line[pos..] starts with \d{4}-\d\d-\d\dT. */
static int looks_iso(const char *line, size_t len, size_t pos)
{
	const char *p = line + pos;

	return len - pos >= 20 && is_digit(p[0]) && is_digit(p[1]) && is_digit(p[2]) &&
	    is_digit(p[3]) && p[4] == '-' && is_digit(p[5]) && is_digit(p[6]) &&
	    p[7] == '-' && is_digit(p[8]) && is_digit(p[9]) && p[10] == 'T';
}

/* ISO stamp at pos (timed, iso, rsyslog RFC 3339, short-iso), then host and tag. @return 1 */
static int try_iso(const char *line, size_t len, size_t pos, lbt_tz *tz, lbt_syslog *out)
{
	size_t w;
	int64_t us;

	if (!looks_iso(line, len, pos))
		return 0;
	w = word_len(line + pos, len - pos);
	if (lbt_time_parse_iso(line + pos, w, tz, &us) < 0)
		return 0;
	out->kind = LBT_SYSLOG_ISO;
	out->time_us = us;
	out->has_time = 1;
	out->msg_off = host_tag(line, len, after_word(len, pos, w), out);
	return 1;
}

/*
 * journalctl short-unix "1762035841.123456 host tag[pid]: ": exactly 10
 * digits, '.', 6 digits, as journalctl prints them (years 2001 to 2286).
 * @return 1 when found
 */
static int try_unix(const char *line, size_t len, lbt_syslog *out)
{
	size_t i = 0, w;
	int64_t us;

	while (i < len && i < 11 && is_digit(line[i]))
		i++;
	if (i != 10 || i >= len || line[i] != '.')
		return 0;
	w = word_len(line, len);
	if (w != 17 || w == len || lbt_time_parse_epoch(line, w, &us) < 0)
		return 0;
	out->kind = LBT_SYSLOG_UNIX;
	out->time_us = us;
	out->has_time = 1;
	out->msg_off = host_tag(line, len, w + 1, out);
	return 1;
}

/* The next space-terminated field at *pos, "-" read as empty. @return 0, or -1 at end of line */
static int field_5424(const char *line, size_t len, size_t *pos, lbt_str *f)
{
	size_t w;

	if (*pos >= len)
		return -1;
	w = word_len(line + *pos, len - *pos);
	if (*pos + w >= len || w == 0)
		return -1;
	*f = (w == 1 && line[*pos] == '-') ? lbt_str_make("", 0) : lbt_str_make(line + *pos, w);
	*pos += w + 1;
	return 0;
}

/*
 * RFC 5424 STRUCTURED-DATA at pos: "-" or "[id k=\"v\" ...]..." (quoted
 * values may escape '"', ']' and '\').  @return the offset after it, or 0
 */
static size_t skip_sd(const char *line, size_t len, size_t pos)
{
	if (pos < len && line[pos] == '-')
		return pos + 1;
	if (pos >= len || line[pos] != '[')
		return 0;
	while (pos < len && line[pos] == '[') {
		int quoted = 0;

		for (pos++; pos < len; pos++) {
			if (quoted && line[pos] == '\\')
				pos++;
			else if (line[pos] == '"')
				quoted = !quoted;
			else if (!quoted && line[pos] == ']')
				break;
		}
		if (pos >= len)
			return 0;
		pos++;
	}
	return pos;
}

/*
 * RFC 5424 after "<PRI>1 ": TIMESTAMP HOSTNAME APP-NAME PROCID MSGID SD [MSG]
 * (a UTF-8 BOM before MSG is skipped).  @return 1 when the header is well formed
 */
static int try_5424(const char *line, size_t len, size_t pos, lbt_tz *tz, lbt_syslog *out)
{
	lbt_str ts, host, app, procid, msgid;
	int64_t us = 0;

	if (field_5424(line, len, &pos, &ts) < 0 || field_5424(line, len, &pos, &host) < 0 ||
	    field_5424(line, len, &pos, &app) < 0 || field_5424(line, len, &pos, &procid) < 0 ||
	    field_5424(line, len, &pos, &msgid) < 0)
		return 0;
	if (ts.n > 0 && lbt_time_parse_iso(ts.p, ts.n, tz, &us) < 0)
		return 0;
	pos = skip_sd(line, len, pos);
	if (pos == 0 || (pos < len && line[pos] != ' '))
		return 0;
	pos = pos < len ? pos + 1 : len;
	if (len - pos >= 3 && memcmp(line + pos, "\xef\xbb\xbf", 3) == 0)
		pos += 3;
	out->kind = LBT_SYSLOG_RFC5424;
	out->has_time = ts.n > 0;
	out->time_us = us;
	out->host = host;
	out->tag = app;
	out->msg_off = pos;
	return 1;
}

/* After "<PRI>": RFC 5424, RFC 3164, an ISO stamp (timed), or nothing more (priority, short). */
static lbt_syslog_kind after_pri(const char *line, size_t len, size_t pos, lbt_tz *tz,
    int64_t ref_s, lbt_syslog *out)
{
	if (len - pos >= 2 && line[pos] == '1' && line[pos + 1] == ' ' &&
	    try_5424(line, len, pos + 2, tz, out))
		return out->kind;
	if (try_bsd(line, len, pos, tz, ref_s, out) || try_iso(line, len, pos, tz, out))
		return out->kind;
	out->kind = LBT_SYSLOG_PRI;
	out->msg_off = pos;
	return out->kind;
}

/* Recognise and strip the wrapper of line[0..len); see the header. @return its kind */
lbt_syslog_kind lbt_syslog_strip(const char *line, size_t len, lbt_tz *tz,
    int64_t ref_s, lbt_syslog *out)
{
	char c = len > 0 ? line[0] : '\0';
	size_t pos;
	int pri;

	out->kind = LBT_SYSLOG_NONE;
	out->pri = -1;
	out->time_us = 0;
	out->has_time = 0;
	out->host = out->tag = lbt_str_make("", 0);
	out->msg_off = 0;
	if (c == '<') {
		pos = parse_pri(line, len, &pri);
		if (pos == 0)
			return LBT_SYSLOG_NONE;
		out->pri = pri;
		return after_pri(line, len, pos, tz, ref_s, out);
	}
	if (c >= 'A' && c <= 'S' && try_bsd(line, len, 0, tz, ref_s, out))
		return out->kind;
	/* An ISO stamp has '-' at [4], a short-unix one '.' at [10]: a line
	 * starting with an address has neither, and skips both (~50
	 * instructions a line less, callgrind). */
	if (is_digit(c) && ((len > 4 && line[4] == '-') || (len > 10 && line[10] == '.')) &&
	    (try_iso(line, len, 0, tz, out) || try_unix(line, len, out)))
		return out->kind;
	return LBT_SYSLOG_NONE;
}

/*
 * The memo's answer re-pointed at line (host and tag are in the same
 * place: the bytes before msg_off are the memo's).
 */
static lbt_syslog_kind memo_answer(const lbt_syslog_memo *m, const char *line, lbt_syslog *out)
{
	*out = m->last;
	if (m->last.host.n > 0)
		out->host.p = line + (m->last.host.p - m->head);
	out->tag.p = line + (m->last.tag.p - m->head);
	return out->kind;
}

/*
 * True when line repeats the memo's wrapper but for the two digits of the
 * seconds (00 to 59: the minute, and so the zone's offset, is the same);
 * the memo then takes the new seconds and time.
 */
static int memo_seconds(lbt_syslog_memo *m, const char *line)
{
	size_t at = m->sec_at, n = m->last.msg_off;
	const char *d = line + at;
	int was, now;

	if (at == 0 || memcmp(line, m->head, at) != 0 ||
	    memcmp(line + at + 2, m->head + at + 2, n - at - 2) != 0 ||
	    d[0] < '0' || d[0] > '5' || !is_digit(d[1]))
		return 0;
	was = (m->head[at] - '0') * 10 + (m->head[at + 1] - '0');
	now = (d[0] - '0') * 10 + (d[1] - '0');
	m->last.time_us += (int64_t)(now - was) * 1000000;
	memcpy(m->head + at, d, 2);
	return 1;
}

/*
 * Keep the wrapper just read as the memo when its bytes alone decided it:
 * a tag was found and a space ends it (so every word test stayed inside
 * them), not RFC 5424 (its BOM test looks past them).
 */
static void memo_keep(lbt_syslog_memo *m, const char *line, lbt_tz *tz, int64_t ref_s,
    const lbt_syslog *sy)
{
	size_t n = sy->msg_off, stamp;

	m->valid = sy->tag.n > 0 && sy->kind != LBT_SYSLOG_RFC5424 && n > 0 &&
	    n <= sizeof m->head && line[n - 1] == ' ';
	if (!m->valid)
		return;
	memcpy(m->head, line, n);
	m->last = *sy;
	if (sy->host.n > 0)
		m->last.host.p = m->head + (sy->host.p - line);
	m->last.tag.p = m->head + (sy->tag.p - line);
	m->tz = tz;
	m->ref_s = ref_s;
	stamp = line[0] == '<' ? (size_t)((const char *)memchr(line, '>', n) - line) + 1 : 0;
	m->sec_at = sy->kind == LBT_SYSLOG_RFC3164 && stamp + 16 <= n &&
	    line[stamp + 15] == ' ' ? stamp + 13 : 0;
}

/* Strip with a memo; see syslog.h. */
lbt_syslog_kind lbt_syslog_strip_memo(const char *line, size_t len, lbt_tz *tz,
    int64_t ref_s, lbt_syslog_memo *m, lbt_syslog *out)
{
	lbt_syslog_kind k;

	if (m->valid && m->tz == tz && m->ref_s == ref_s && len > m->last.msg_off) {
		if (memcmp(line, m->head, m->last.msg_off) == 0 || memo_seconds(m, line))
			return memo_answer(m, line, out);
	}
	k = lbt_syslog_strip(line, len, tz, ref_s, out);
	memo_keep(m, line, tz, ref_s, out);
	return k;
}

/* Name of a wrapper kind, "?" for a value out of range (syslog.h). */
const char *lbt_syslog_kind_name(lbt_syslog_kind k)
{
	static const char *const names[] = { "none", "rfc3164", "rfc5424", "priority", "iso",
	    "unix" };

	return (unsigned)k < sizeof names / sizeof names[0] ? names[k] : "?";
}
