/*
 * filter.c - the record filters every program shares.  See include/lbt/filter.h.
 *
 * lbt_filter_new() checks every option once and turns it into a shape that
 * is cheap per record: a 601-entry table for --status, parsed networks for
 * --src, split lists for --key/--term/--lb, and time bounds in UTC µs.
 * Lists are kept in one private copy of the option text, cut at the commas,
 * so matching allocates nothing.
 *
 * Time shapes (--since, --until, and lbt_filter_time_parse for --now):
 *   2025-11-01T23:24:01[.123][Z|+01:00|+0100]  ISO; a space may replace T;
 *                                              no zone means UTC
 *   2025-11-01T23:24, 2025-11-01               seconds, time of day default to 0
 *   @1762035841[.123]                          Unix time
 *   -15m, -2h, -1d, -90s                       before now_us
 *   23:24[:01]                                 the occurrence of that UTC time
 *                                              nearest to the first record
 *                                              that has a time (within 12 h)
 * When both bounds are times of day, --until is its first occurrence after
 * --since: an --until earlier in clock terms is on the next day.  This is
 * decided on the first timed record, so it works on a stream too.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lbt/addr.h"
#include "lbt/filter.h"
#include "lbt/num.h"
#include "lbt/timeparse.h"

#define US_PER_S   INT64_C(1000000)
#define US_PER_DAY (INT64_C(86400) * US_PER_S)
#define MAX_STATUS 599

/* A list option cut at its commas: items point into `text`. */
struct list {
	char *text;
	char **item;
	size_t *len;
	int n;
};

struct net {
	lbt_addr addr;
	int bits;
};

/* One --since or --until bound. */
struct bound {
	int set;        /* option given */
	int tod;        /* time of day, resolved on the first timed record */
	int64_t us;     /* absolute value, or seconds-of-day in µs when tod */
};

struct lbt_filter {
	uint64_t fields;
	struct bound since, until;
	int resolved;              /* time-of-day bounds fixed */
	int64_t ref_us;            /* the time they were fixed on (first timed record) */
	int64_t since_us, until_us;
	struct list keys, terms, lbs;
	unsigned char *uuid_key;   /* per key: compare without case */
	struct net *nets;
	int nnets;
	unsigned char *status;     /* [status + 1] for -1..599, NULL = no filter */
};

/* Free the lists of l. */
static void list_free(struct list *l)
{
	free(l->text);
	free(l->item);
	free(l->len);
}

/*
 * Split the comma-separated `s` into l.  `what` names the option in errors.
 * @return 0, or -1 with err "--key: empty item in 'a,,b'".
 */
static int list_split(struct list *l, const char *s, const char *what, lbt_err *err)
{
	size_t n = 1;
	const char *cur;
	lbt_str it;

	for (const char *q = s; *q; q++)
		n += *q == ',';
	l->text = strdup(s);
	l->item = calloc(n, sizeof *l->item);
	l->len = calloc(n, sizeof *l->len);
	if (l->text == NULL || l->item == NULL || l->len == NULL)
		return lbt_err_set(err, "%s: out of memory", what);
	cur = l->text;
	for (l->n = 0; lbt_str_next_item(&cur, ',', &it); l->n++) {
		if (it.n == 0)
			return lbt_err_set(err, "%s: empty item in '%s'", what, s);
		l->item[l->n] = (char *)it.p;
		l->len[l->n] = it.n;
		l->item[l->n][it.n] = '\0';  /* the comma, or the end already */
	}
	return 0;
}

/* True when s[0..n) is one of the items of l (exact bytes). */
static int list_has(const struct list *l, const char *s, size_t n)
{
	for (int i = 0; i < l->n; i++)
		if (l->len[i] == n && memcmp(l->item[i], s, n) == 0)
			return 1;
	return 0;
}

/* True when s[0..n) has the shape of a UUID (8-4-4-4-12 hex digits). */
static int is_uuid(const char *s, size_t n)
{
	if (n != 36)
		return 0;
	for (size_t i = 0; i < n; i++) {
		int dash = i == 8 || i == 13 || i == 18 || i == 23;
		char c = s[i];

		if (dash ? c != '-' : !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
		    (c >= 'A' && c <= 'F')))
			return 0;
	}
	return 1;
}

/*
 * Parse "HH:MM" or "HH:MM:SS" (hours 0..23).  @return 0 with *us the time
 * of day in µs, or -1 when s has another shape.
 */
static int parse_tod(const char *s, int64_t *us)
{
	size_t n = strlen(s);
	int h, m, sec = 0;

	if ((n != 5 && n != 8) || s[2] != ':' || (n == 8 && s[5] != ':'))
		return -1;
	for (size_t i = 0; i < n; i++)
		if (i != 2 && i != 5 && (s[i] < '0' || s[i] > '9'))
			return -1;
	h = (s[0] - '0') * 10 + (s[1] - '0');
	m = (s[3] - '0') * 10 + (s[4] - '0');
	if (n == 8)
		sec = (s[6] - '0') * 10 + (s[7] - '0');
	if (h > 23 || m > 59 || sec > 59)
		return -1;
	*us = ((int64_t)h * 3600 + m * 60 + sec) * US_PER_S;
	return 0;
}

/*
 * Parse an ISO date or date-time, completing "YYYY-MM-DD" and
 * "YYYY-MM-DDTHH:MM[zone]" to full seconds before lbt_time_parse_iso().
 * @return 0 with *us, or -1.
 */
static int parse_iso_loose(const char *s, int64_t *us)
{
	char buf[64];
	size_t n = strlen(s);

	if (n < 10 || n > 40)
		return -1;
	if (n == 10) {
		snprintf(buf, sizeof buf, "%sT00:00:00", s);
	} else if (n >= 16 && s[13] == ':' && (n == 16 || s[16] != ':')) {
		/* "YYYY-MM-DDTHH:MM" then nothing or a zone: add ":00". */
		snprintf(buf, sizeof buf, "%.16s:00%s", s, s + 16);
	} else {
		snprintf(buf, sizeof buf, "%s", s);
	}
	return lbt_time_parse_iso(buf, strlen(buf), NULL, us);
}

/*
 * Parse an absolute time: ISO (loose, see parse_iso_loose), "@EPOCH", or
 * relative "-DURATION" before now_us.  @return 0 with *us, or -1 with err.
 */
static int parse_abs(const char *what, const char *s, int64_t now_us, int64_t *us,
    lbt_err *err)
{
	int64_t d;

	if (s[0] == '-' && lbt_duration_parse(s + 1, 0, 100 * 366 * US_PER_DAY, what, &d,
	    NULL) == 0) {
		*us = now_us - d;
		return 0;
	}
	if (s[0] == '@' && lbt_time_parse_epoch(s + 1, strlen(s + 1), us) == 0)
		return 0;
	if (parse_iso_loose(s, us) == 0)
		return 0;
	return lbt_err_set(err, "%s: '%s' is not a time (2025-11-01T23:24:01[Z|+01:00], "
	    "2025-11-01, 23:24[:01], -15m, @1762035841)", what, s);
}

/* Parse an absolute time as --since accepts it, without "HH:MM"; see filter.h. */
int lbt_filter_time_parse(const char *what, const char *s, int64_t now_us, int64_t *us,
    lbt_err *err)
{
	return parse_abs(what, s, now_us, us, err);
}

/* Parse one --since/--until value into b.  @return 0 or -1 with err. */
static int bound_parse(struct bound *b, const char *what, const char *s, int64_t now_us,
    lbt_err *err)
{
	if (s == NULL)
		return 0;
	b->set = 1;
	if (parse_tod(s, &b->us) == 0) {
		b->tod = 1;
		return 0;
	}
	return parse_abs(what, s, now_us, &b->us, err);
}

/*
 * Fix the bounds: absolute ones now, time-of-day ones on the first record's
 * time `ref_us` (only called with a record's time): --since at its
 * occurrence nearest to ref, --until likewise, or, when --since is a time of
 * day too, at its first occurrence after --since (an --until earlier than
 * --since in clock terms is on the next day).  Open bounds are INT64_MIN /
 * INT64_MAX.
 */
static void bounds_resolve(lbt_filter *f, int64_t ref_us)
{
	f->since_us = !f->since.set ? INT64_MIN : f->since.tod ? lbt_time_nearest_tod(f->since.us, ref_us) :
	    f->since.us;
	if (!f->until.set)
		f->until_us = INT64_MAX;
	else if (!f->until.tod)
		f->until_us = f->until.us;
	else if (f->since.tod) {
		int64_t d = ((f->until.us - f->since.us) % US_PER_DAY + US_PER_DAY) % US_PER_DAY;

		f->until_us = f->since_us + (d ? d : US_PER_DAY);
	} else
		f->until_us = lbt_time_nearest_tod(f->until.us, ref_us);
	f->ref_us = ref_us;
	f->resolved = 1;
}

/*
 * Compile a --status list into a table indexed by status + 1.  Items:
 * "-1", "100".."599", "1xx".."5xx".  @return 0 or -1 with err.
 */
static int status_parse(lbt_filter *f, const char *s, lbt_err *err)
{
	struct list l = { 0 };
	int rc = -1;

	f->status = calloc(MAX_STATUS + 2, 1);
	if (f->status == NULL || list_split(&l, s, "--status", err) < 0)
		goto out;
	for (int i = 0; i < l.n; i++) {
		const char *it = l.item[i];
		int32_t v;

		if (l.len[i] == 3 && it[0] >= '1' && it[0] <= '5' &&
		    (it[1] == 'x' || it[1] == 'X') && (it[2] == 'x' || it[2] == 'X')) {
			memset(f->status + 1 + (it[0] - '0') * 100, 1, 100);
		} else if (lbt_num_i32(it, l.len[i], &v) == 0 &&
		    (v == -1 || (v >= 100 && v <= MAX_STATUS)) && it[0] != '+') {
			f->status[v + 1] = 1;
		} else {
			lbt_err_set(err, "--status: '%s' is not a status or class "
			    "(100..599, 1xx..5xx, -1)", it);
			goto out;
		}
	}
	rc = 0;
out:
	list_free(&l);
	return rc;
}

/* Compile a --src list into f->nets.  @return 0 or -1 with err. */
static int src_parse(lbt_filter *f, const char *s, lbt_err *err)
{
	struct list l = { 0 };
	int rc = -1;

	if (list_split(&l, s, "--src", err) < 0)
		goto out;
	f->nets = calloc((size_t)l.n, sizeof *f->nets);
	if (f->nets == NULL)
		goto out;
	for (int i = 0; i < l.n; i++) {
		struct net *nt = &f->nets[f->nnets];

		if (lbt_addr_parse_prefix(l.item[i], &nt->addr, &nt->bits) < 0) {
			lbt_err_set(err, "--src: '%s' is not an address or network "
			    "(203.0.113.7, 198.51.100.0/24, 2001:db8::/64)", l.item[i]);
			goto out;
		}
		f->nnets++;
	}
	rc = 0;
out:
	list_free(&l);
	return rc;
}

/*
 * Check --term items: 1 to 4 characters, letters or '-' (the alphabet of
 * termination states).  @return 0 or -1 with err.
 */
static int term_check(const struct list *l, lbt_err *err)
{
	for (int i = 0; i < l->n; i++) {
		int ok = l->len[i] <= 4;

		for (size_t j = 0; ok && j < l->len[i]; j++) {
			char c = l->item[i][j];

			ok = c == '-' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
		}
		if (!ok)
			return lbt_err_set(err, "--term: '%s' is not a termination-state "
			    "prefix (1 to 4 characters such as PT, sQ, PR--)", l->item[i]);
	}
	return 0;
}

/* Split --key and mark the UUID-shaped items (matched without case). @return 0 or -1 */
static int key_parse(lbt_filter *f, const char *s, lbt_err *err)
{
	if (list_split(&f->keys, s, "--key", err) < 0)
		return -1;
	f->uuid_key = calloc((size_t)f->keys.n, 1);
	if (f->uuid_key == NULL)
		return lbt_err_set(err, "--key: out of memory");
	for (int i = 0; i < f->keys.n; i++)
		f->uuid_key[i] = (unsigned char)is_uuid(f->keys.item[i], f->keys.len[i]);
	return 0;
}

/* Compile every option of o into f.  @return 0 or -1 with err. */
static int filter_compile(lbt_filter *f, const lbt_filter_opts *o, int64_t now_us,
    lbt_err *err)
{
	if (bound_parse(&f->since, "--since", o->since, now_us, err) < 0 ||
	    bound_parse(&f->until, "--until", o->until, now_us, err) < 0)
		return -1;
	if (o->key && key_parse(f, o->key, err) < 0)
		return -1;
	if (o->src && src_parse(f, o->src, err) < 0)
		return -1;
	if (o->status && status_parse(f, o->status, err) < 0)
		return -1;
	if (o->term && (list_split(&f->terms, o->term, "--term", err) < 0 ||
	    term_check(&f->terms, err) < 0))
		return -1;
	if (o->lb && list_split(&f->lbs, o->lb, "--lb", err) < 0)
		return -1;
	f->fields = (o->since || o->until ? LBT_BIT(LBT_F_TIME) : 0) |
	    (o->key ? LBT_BIT(LBT_F_KEY) : 0) | (o->src ? LBT_BIT(LBT_F_CLIENT) : 0) |
	    (o->status ? LBT_BIT(LBT_F_STATUS) : 0) | (o->term ? LBT_BIT(LBT_F_TERM) : 0) |
	    (o->lb ? LBT_BIT(LBT_F_LB) : 0);
	return 0;
}

/*
 * Check and compile the options; see filter.h.  @return a filter (free with
 * lbt_filter_free), or NULL with err naming the option and value.
 */
lbt_filter *lbt_filter_new(const lbt_filter_opts *o, int64_t now_us, lbt_err *err)
{
	lbt_filter *f = calloc(1, sizeof *f);

	if (f == NULL) {
		lbt_err_set(err, "filter: out of memory");
		return NULL;
	}
	if (filter_compile(f, o, now_us, err) < 0) {
		lbt_filter_free(f);
		return NULL;
	}
	f->since_us = INT64_MIN;
	f->until_us = INT64_MAX;
	if (!f->since.tod && !f->until.tod)
		bounds_resolve(f, 0);
	return f;
}

/* Free f; NULL is accepted. */
void lbt_filter_free(lbt_filter *f)
{
	if (f == NULL)
		return;
	list_free(&f->keys);
	list_free(&f->terms);
	list_free(&f->lbs);
	free(f->uuid_key);
	free(f->nets);
	free(f->status);
	free(f);
}

/* @return true when no option was given. */
int lbt_filter_is_empty(const lbt_filter *f)
{
	return f->fields == 0;
}

/* @return the LBT_BIT mask of the fields the filter reads. */
uint64_t lbt_filter_fields(const lbt_filter *f)
{
	return f->fields;
}

/* True when rec's time lies in [since, until); fixes time-of-day bounds first. */
static int match_time(lbt_filter *f, const lbt_rec *rec)
{
	if (!(rec->have & LBT_BIT(LBT_F_TIME)))
		return 0;
	if (!f->resolved)
		bounds_resolve(f, rec->time_us);
	return rec->time_us >= f->since_us && rec->time_us < f->until_us;
}

/* True when rec's key is one of --key (UUID-shaped items without case). */
static int match_key(const lbt_filter *f, const lbt_rec *rec)
{
	if (!(rec->have & LBT_BIT(LBT_F_KEY)))
		return 0;
	for (int i = 0; i < f->keys.n; i++) {
		if (f->keys.len[i] != rec->key.n)
			continue;
		if (f->uuid_key[i] ? strncasecmp(f->keys.item[i], rec->key.p, rec->key.n) == 0 :
		    memcmp(f->keys.item[i], rec->key.p, rec->key.n) == 0)
			return 1;
	}
	return 0;
}

/* True when rec's client lies in one of the --src networks. */
static int match_src(const lbt_filter *f, const lbt_rec *rec)
{
	if (!(rec->have & LBT_BIT(LBT_F_CLIENT)))
		return 0;
	for (int i = 0; i < f->nnets; i++)
		if (lbt_addr_in(&rec->client, &f->nets[i].addr, f->nets[i].bits))
			return 1;
	return 0;
}

/* True when rec's termination state starts with one of the --term items. */
static int match_term(const lbt_filter *f, const lbt_rec *rec)
{
	if (!(rec->have & LBT_BIT(LBT_F_TERM)))
		return 0;
	for (int i = 0; i < f->terms.n; i++)
		if (f->terms.len[i] <= rec->term.n &&
		    memcmp(f->terms.item[i], rec->term.p, f->terms.len[i]) == 0)
			return 1;
	return 0;
}

/* True when rec's status is in the --status table. */
static int match_status(const lbt_filter *f, const lbt_rec *rec)
{
	if (!(rec->have & LBT_BIT(LBT_F_STATUS)))
		return 0;
	return rec->status >= -1 && rec->status <= MAX_STATUS && f->status[rec->status + 1];
}

/*
 * @return 1 when rec passes every option given, else 0.  Cheap tests
 * first; a record lacking a tested field does not pass.
 */
int lbt_filter_match(lbt_filter *f, const lbt_rec *rec)
{
	if (f->fields == 0)
		return 1;
	if ((f->since.set || f->until.set) && !match_time(f, rec))
		return 0;
	if (f->status && !match_status(f, rec))
		return 0;
	if (f->terms.n > 0 && !match_term(f, rec))
		return 0;
	if (f->lbs.n > 0 && (!(rec->have & LBT_BIT(LBT_F_LB)) ||
	    !list_has(&f->lbs, rec->lb.p, rec->lb.n)))
		return 0;
	if (f->nnets > 0 && !match_src(f, rec))
		return 0;
	if (f->keys.n > 0 && !match_key(f, rec))
		return 0;
	return 1;
}

/*
 * The time bounds: open ones, and time-of-day ones not yet fixed by a
 * record, as INT64_MIN / INT64_MAX.
 */
void lbt_filter_bounds(const lbt_filter *f, int64_t *since_us, int64_t *until_us)
{
	if (f->resolved) {
		*since_us = f->since_us;
		*until_us = f->until_us;
		return;
	}
	*since_us = f->since.set && !f->since.tod ? f->since.us : INT64_MIN;
	*until_us = f->until.set && !f->until.tod ? f->until.us : INT64_MAX;
}

/* The bounds given as a bare time of day. */
unsigned lbt_filter_tod(const lbt_filter *f)
{
	return (f->since.set && f->since.tod ? LBT_FILTER_TOD_SINCE : 0) |
	    (f->until.set && f->until.tod ? LBT_FILTER_TOD_UNTIL : 0);
}

/* The record time the time-of-day bounds were fixed on, or 0. */
int64_t lbt_filter_tod_ref(const lbt_filter *f)
{
	return f->resolved ? f->ref_us : 0;
}
