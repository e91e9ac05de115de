/*
 * deny_read.c - lbt-offenders output (TSV with its header, NDJSON) and
 * plain lists (one network a line, ACL-file or allow-list shape) into an
 * lbt_deny.  The shape is taken from the first line that is neither blank
 * nor a comment: '{' is NDJSON, a first field "source" is the TSV header,
 * anything else is a list whose first line is data.  Inputs are small
 * (one line a source), so lines are read with getline and NDJSON goes
 * through jansson.
 */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "lbt/num.h"
#include "lbt/timeparse.h"
#include "deny_int.h"

/* The columns lbt-deny reads, in the order of col[] below. */
enum { C_SOURCE, C_REQUESTS, C_SHARE, C_PEAK, C_FIRST, C_LAST, C_HEADER, C_VIA, C_N };
static const char *const colname[C_N] = {
	"source", "requests", "share", "peak_rps", "first", "last", "from_header", "via"
};

/* A reader over one input. */
struct rd {
	lbt_deny *d;
	const char *name;
	uint64_t line;
	lbt_tz *utc;
	int col[C_N];          /* TSV: field index of each column, -1 absent */
	int nfields;           /* TSV: fields of the header */
};

/* Strip the trailing newline (and CR) of a line of length *n. */
static void chomp(char *s, size_t *n)
{
	while (*n > 0 && (s[*n - 1] == '\n' || s[*n - 1] == '\r'))
		s[--*n] = '\0';
}

/* True when the line is blank or a comment. */
static int skippable(const char *s)
{
	s += strspn(s, " \t");
	return *s == '\0' || *s == '#';
}

/* Parse a whole integer field v[0..n) >= 0.  @return 0 or -1 with err */
static int int_field(struct rd *r, const char *what, const char *v, size_t n, int64_t *out,
    lbt_err *err)
{
	if (lbt_num_i64(v, n, out) < 0 || *out < 0)
		return lbt_err_at(err, r->name, r->line, "%s: '%.*s' is not a count", what,
		    (int)(n > 40 ? 40 : n), v);
	return 0;
}

/* Parse a share field (per cent).  @return 0 or -1 with err */
static int share_field(struct rd *r, const char *v, size_t n, double *out, lbt_err *err)
{
	char buf[64], *end;

	if (n == 0 || n >= sizeof buf)
		goto bad;
	memcpy(buf, v, n);
	buf[n] = '\0';
	*out = strtod(buf, &end);
	if (*end == '\0' && *out >= 0 && *out <= 100)
		return 0;
bad:
	return lbt_err_at(err, r->name, r->line, "share: '%.*s' is not a per cent",
	    (int)(n > 40 ? 40 : n), v);
}

/* Parse a time field (ISO 8601).  @return 0 or -1 with err */
static int time_field(struct rd *r, const char *what, const char *v, size_t n, int64_t *out,
    lbt_err *err)
{
	if (lbt_time_parse_iso(v, n, r->utc, out) < 0)
		return lbt_err_at(err, r->name, r->line, "%s: '%.*s' is not an ISO 8601 time",
		    what, (int)(n > 40 ? 40 : n), v);
	return 0;
}

/* Parse the source field into s->net.  @return 0 or -1 with err */
static int source_field(struct rd *r, const char *v, size_t n, lbt_deny_src *s, lbt_err *err)
{
	if (lbt_deny_parse_net(v, n, &s->net, err) < 0) {
		char msg[sizeof err->msg];

		snprintf(msg, sizeof msg, "%s", err->msg);
		return lbt_err_at(err, r->name, r->line, "%s", msg);
	}
	return 0;
}

/* Parse a via field: an address, "+" after it when there were several.
 * @return 0 or -1 with err */
static int via_field(struct rd *r, const char *v, size_t n, lbt_deny_src *s, lbt_err *err)
{
	size_t an = n > 0 && v[n - 1] == '+' ? n - 1 : n;
	lbt_addr a;

	if (an >= sizeof s->via - 1 || lbt_addr_parse(v, an, &a) < 0)
		return lbt_err_at(err, r->name, r->line, "via: '%.*s' is not an address",
		    (int)(n > 40 ? 40 : n), v);
	memcpy(s->via, v, n);
	s->via[n] = '\0';
	return 0;
}

/* Fill field c (value v[0..n), empty = absent) of s.  @return 0 or -1 */
static int set_field(struct rd *r, int c, const char *v, size_t n, lbt_deny_src *s,
    lbt_err *err)
{
	if (n == 0 && c != C_SOURCE)
		return 0;
	switch (c) {
	case C_SOURCE: return source_field(r, v, n, s, err);
	case C_REQUESTS: return int_field(r, "requests", v, n, &s->requests, err);
	case C_SHARE: return share_field(r, v, n, &s->share, err);
	case C_PEAK: return int_field(r, "peak_rps", v, n, &s->peak_rps, err);
	case C_FIRST: return time_field(r, "first", v, n, &s->first_us, err);
	case C_LAST: return time_field(r, "last", v, n, &s->last_us, err);
	case C_HEADER: return int_field(r, "from_header", v, n, &s->from_header, err);
	default: return via_field(r, v, n, s, err);
	}
}

/* Add the source s read at the current line.  @return 0 or -1 */
static int emit(struct rd *r, lbt_deny_src *s, lbt_err *err)
{
	s->file = r->name;
	s->line = r->line;
	lbt_denyi_row(r->d);
	return lbt_deny_add(r->d, s, err);
}

/* Read the TSV header line.  @return 0, or -1 with err when there is no source column */
static int tsv_header(struct rd *r, char *line)
{
	char *save = NULL;
	int i = 0;

	for (int c = 0; c < C_N; c++)
		r->col[c] = -1;
	for (char *f = strtok_r(line, "\t", &save); f; f = strtok_r(NULL, "\t", &save), i++)
		for (int c = 0; c < C_N; c++)
			if (strcmp(f, colname[c]) == 0 && r->col[c] < 0)
				r->col[c] = i;
	r->nfields = i;
	return 0;
}

/* Read one TSV data line.  @return 0 or -1 with err */
static int tsv_row(struct rd *r, const char *line, lbt_err *err)
{
	lbt_deny_src s = LBT_DENY_SRC_INIT;
	const char *p = line;
	int i = 0;

	for (;; i++) {
		const char *tab = strchr(p, '\t');
		size_t n = tab ? (size_t)(tab - p) : strlen(p);

		for (int c = 0; c < C_N; c++)
			if (r->col[c] == i && set_field(r, c, p, n, &s, err) < 0)
				return -1;
		if (tab == NULL)
			break;
		p = tab + 1;
	}
	if (i + 1 != r->nfields)
		return lbt_err_at(err, r->name, r->line, "%d fields, the header has %d", i + 1,
		    r->nfields);
	return emit(r, &s, err);
}

/* Fill field c of s from JSON value v (null = absent).  @return 0 or -1 */
static int json_field(struct rd *r, int c, json_t *v, lbt_deny_src *s, lbt_err *err)
{
	char num[64];

	if (v == NULL || json_is_null(v)) {
		if (c == C_SOURCE)
			return lbt_err_at(err, r->name, r->line, "no \"source\"");
		return 0;
	}
	if (json_is_string(v))
		return set_field(r, c, json_string_value(v), json_string_length(v), s, err);
	if (json_is_integer(v) && c != C_SOURCE && c != C_FIRST && c != C_LAST) {
		snprintf(num, sizeof num, "%lld", (long long)json_integer_value(v));
		return set_field(r, c, num, strlen(num), s, err);
	}
	if (json_is_real(v) && c == C_SHARE) {
		s->share = json_real_value(v);
		if (s->share >= 0 && s->share <= 100)
			return 0;
	}
	return lbt_err_at(err, r->name, r->line, "\"%s\" has the wrong type", colname[c]);
}

/* Read one NDJSON line.  @return 0 or -1 with err */
static int json_row(struct rd *r, const char *line, size_t len, lbt_err *err)
{
	lbt_deny_src s = LBT_DENY_SRC_INIT;
	json_error_t je;
	json_t *o = json_loadb(line, len, JSON_REJECT_DUPLICATES, &je);
	int rc = 0;

	if (o == NULL || !json_is_object(o)) {
		json_decref(o);
		return lbt_err_at(err, r->name, r->line, "not a JSON object%s%s",
		    o ? "" : ": ", o ? "" : je.text);
	}
	for (int c = 0; c < C_N && rc == 0; c++)
		rc = json_field(r, c, json_object_get(o, colname[c]), &s, err);
	json_decref(o);
	return rc < 0 ? -1 : emit(r, &s, err);
}

/* The first word of a list line, comments removed: *n its length. */
static const char *list_word(const char *line, size_t *n)
{
	const char *p = line + strspn(line, " \t");

	*n = strcspn(p, " \t#");
	return p;
}

/* Read one plain-list line as a source.  @return 0 or -1 with err */
static int list_row(struct rd *r, const char *line, lbt_err *err)
{
	lbt_deny_src s = LBT_DENY_SRC_INIT;
	size_t n;
	const char *w = list_word(line, &n);

	if (set_field(r, C_SOURCE, w, n, &s, err) < 0)
		return -1;
	return emit(r, &s, err);
}

/* Decide the shape from the first content line and note the input.
 * @return 'j', 't' or 'l', or 0 when out of memory */
static int shape_of(struct rd *r, char *line)
{
	const char *p = line + strspn(line, " \t");
	int shape = *p == '{' ? 'j' : strncmp(p, "source\t", 7) == 0 ||
	    strcmp(p, "source") == 0 ? 't' : 'l';
	const char *kind = shape == 'j' ? "NDJSON" : shape == 't' ? "lbt-offenders TSV" : "list";

	if (lbt_denyi_input(r->d, r->name, kind) < 0)
		return 0;
	if (shape == 't')
		tsv_header(r, line);
	return shape;
}

/* Read every line of fp as sources.  @return 0, or -1 with err */
int lbt_deny_read(lbt_deny *d, FILE *fp, const char *name, lbt_err *err)
{
	struct rd r = { d, name, 0, NULL, { 0 }, 0 };
	char *line = NULL;
	size_t cap = 0;
	ssize_t got;
	int shape = 0, rc = 0;

	if ((r.utc = lbt_tz_new("UTC", err)) == NULL)
		return -1;
	while (rc == 0 && (got = getline(&line, &cap, fp)) >= 0) {
		size_t n = (size_t)got;

		r.line++;
		chomp(line, &n);
		if (shape == 0 && skippable(line))
			continue;
		if (shape == 0) {
			if ((shape = shape_of(&r, line)) == 0)
				rc = lbt_err_set(err, "out of memory");
			if (shape == 't')
				continue;    /* the header line */
		}
		if (shape == 'j' && n > 0)
			rc = json_row(&r, line, n, err);
		else if (shape == 't' && n > 0)
			rc = tsv_row(&r, line, err);
		else if (shape == 'l' && !skippable(line))
			rc = list_row(&r, line, err);
	}
	if (rc == 0 && ferror(fp))
		rc = lbt_err_at(err, name, 0, "read error");
	if (rc == 0 && shape == 0 && lbt_denyi_input(d, name, "empty") < 0)
		rc = lbt_err_set(err, "out of memory");
	free(line);
	lbt_tz_free(r.utc);
	return rc;
}

/* Read an allow list: one network a line, '#' comments.  @return 0 or -1 with err */
int lbt_deny_read_allow(lbt_deny *d, FILE *fp, const char *name, lbt_err *err)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t got;
	uint64_t no = 0;
	int rc = 0;

	while (rc == 0 && (got = getline(&line, &cap, fp)) >= 0) {
		size_t n = (size_t)got, wn;
		const char *w;
		lbt_ipnet net;

		no++;
		chomp(line, &n);
		if (skippable(line))
			continue;
		w = list_word(line, &wn);
		if (lbt_deny_parse_net(w, wn, &net, err) < 0) {
			char msg[sizeof err->msg];

			snprintf(msg, sizeof msg, "%s", err->msg);
			rc = lbt_err_at(err, name, no, "%s", msg);
		} else {
			rc = lbt_deny_allow(d, &net, name, no, err);
		}
	}
	if (rc == 0 && ferror(fp))
		rc = lbt_err_at(err, name, 0, "read error");
	free(line);
	return rc;
}

/*
 * One --allow value: a network ("ADDR[/BITS]"), else the path of an
 * allow-list file ("-" is stdin) read with lbt_deny_read_allow.
 * @return 0, or -1 with err (a file that cannot be opened: "FILE: why",
 * or its bad line).
 */
int lbt_deny_allow_arg(lbt_deny *d, const char *arg, lbt_err *err)
{
	lbt_ipnet net;
	FILE *fp;
	int rc;

	if (lbt_deny_parse_net(arg, strlen(arg), &net, err) == 0)
		return lbt_deny_allow(d, &net, NULL, 0, err);
	if ((fp = strcmp(arg, "-") == 0 ? stdin : fopen(arg, "r")) == NULL)
		return lbt_err_set(err, "%s: %s", arg, strerror(errno));
	rc = lbt_deny_read_allow(d, fp, strcmp(arg, "-") == 0 ? "(stdin)" : arg, err);
	if (fp != stdin)
		fclose(fp);
	return rc;
}
