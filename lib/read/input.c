/*
 * input.c - the record stream every program reads.  See include/lbt/input.h.
 *
 * Per file: open the source, choose the format (the one the options name,
 * or detection on a sample of the file's first lines), then per line: strip
 * the syslog wrapper, parse, fall back to event lines, complete the record
 * (LB host, syslog time, provenance, key) and filter it.
 *
 * A detected file's first lines are read once, into a sample
 * (input_detect.c), and replayed here before the rest of the file.
 *
 * Per-line work allocates nothing: the record, the key buffer and the
 * format's scratch are reused.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "input_int.h"
#include "lbt/event.h"
#include "lbt/syslog.h"
#include "lbt/vec.h"

/*
 * Compile --log-format in dialect d; an HAProxy template may name the
 * built-in strings as HAProxy 2.8+ does ("${HAPROXY_HTTP_LOG_FMT} ...").
 * @return the format, or NULL with err
 */
static lbt_format *log_format_compile(lbt_dialect d, const lbt_input_opts *o, lbt_err *err)
{
	lbt_format *f;
	char *t;

	if (d != LBT_DIALECT_HAPROXY || strstr(o->log_format, "${") == NULL)
		return lbt_format_compile(d, o->log_format, o->escape, err);
	if ((t = lbt_format_expand_log_vars(o->log_format, err)) == NULL) {
		char why[sizeof err->msg];

		snprintf(why, sizeof why, "%s", err->msg);
		lbt_err_set(err, "--log-format: %.400s", why);
		return NULL;
	}
	f = lbt_format_compile(d, t, o->escape, err);
	free(t);
	return f;
}

/*
 * Dialect of a --log-format template: the first HAProxy item ('%' then a
 * letter, '{', '[' or '(') or NGINX variable ('$' then a letter, '_' or
 * '{') decides, except that "${HAPROXY_..." is HAProxy's own environment
 * syntax.  "%%" is a literal percent sign.  @return 0 with *d, or -1 when
 * the template has neither.
 */
static int template_dialect(const char *t, lbt_dialect *d)
{
	for (const char *p = t; *p; p++) {
		char c = p[1];

		if (*p == '%' && c == '%') {
			p++;
		} else if (*p == '%' && (c == '{' || c == '[' || c == '(' ||
		    (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) {
			*d = LBT_DIALECT_HAPROXY;
			return 0;
		} else if (*p == '$' && (c == '{' || c == '_' || (c >= 'a' && c <= 'z') ||
		    (c >= 'A' && c <= 'Z'))) {
			*d = strncmp(p, "${HAPROXY_", 10) == 0 ? LBT_DIALECT_HAPROXY :
			    LBT_DIALECT_NGINX;
			return 0;
		}
	}
	return -1;
}

/* Check that the format options fit together.  @return 0 or -1 with err. */
static int format_opts_check(const lbt_input_opts *o, lbt_err *err)
{
	int n = !!o->format + !!o->log_format + !!o->haproxy_cfg + !!o->nginx_conf;

	if (n > 1)
		return lbt_err_set(err, "--format, --log-format, --haproxy-cfg and "
		    "--nginx-conf exclude each other");
	if (o->frontend && !o->haproxy_cfg)
		return lbt_err_set(err, "--frontend needs --haproxy-cfg");
	if (o->log_name && !o->nginx_conf)
		return lbt_err_set(err, "--log-name needs --nginx-conf");
	if (o->escape && !o->log_format)
		return lbt_err_set(err, "--escape needs --log-format");
	return 0;
}

/*
 * The format the options name, or NULL with err cleared when none does
 * (detect per file).  @return NULL with err->msg set on failure.
 */
static lbt_format *format_from_opts(const lbt_input_opts *o, lbt_err *err)
{
	lbt_dialect d;

	lbt_err_clear(err);
	if (o->format)
		return lbt_format_open(o->format, err);
	if (o->haproxy_cfg)
		return lbt_format_from_haproxy_cfg(o->haproxy_cfg, o->frontend, err);
	if (o->nginx_conf)
		return lbt_format_from_nginx_conf(o->nginx_conf, o->log_name, err);
	if (o->log_format == NULL)
		return NULL;
	if (template_dialect(o->log_format, &d) < 0) {
		lbt_err_set(err, "--log-format: '%s' has neither HAProxy %%-items nor "
		    "NGINX $variables", o->log_format);
		return NULL;
	}
	return log_format_compile(d, o, err);
}

/* Give a format the zone, captures and wanted fields.  @return 0 or -1 with err. */
static int format_setup(lbt_input *in, lbt_format *f, lbt_err *err)
{
	lbt_format_set_tz(f, in->tz);
	lbt_format_set_wanted(f, in->wanted);
	if (in->o.captures && lbt_format_set_captures(f, in->o.captures, err) < 0)
		return -1;
	return 0;
}

/* Work out which fields to ask formats for, and whether keys are needed. */
static void wanted_setup(lbt_input *in)
{
	uint64_t w = in->o.wanted, fw = lbt_filter_fields(in->filter);

	if (w == 0) {
		in->want_key = 1;
		in->wanted = ~(uint64_t)0;
		return;
	}
	w |= fw;
	if (in->o.events)
		w |= LBT_BIT(LBT_F_TIME);   /* request times time the events (input_evtime.c) */
	in->want_key = (w & LBT_BIT(LBT_F_KEY)) != 0;
	if (in->want_key)
		w |= LBT_BIT(LBT_F_PATH);
	in->wanted = w;
}

/* Compile zone, key, filter and fixed format.  @return 0 or -1 with err. */
static int input_setup(lbt_input *in, lbt_err *err)
{
	const lbt_input_opts *o = &in->o;

	if (format_opts_check(o, err) < 0)
		return -1;
	if ((in->tz = lbt_tz_new(o->log_tz, err)) == NULL && o->log_tz != NULL)
		return -1;
	if ((in->filter = lbt_filter_new(&o->filter, in->now_us, err)) == NULL)
		return -1;
	wanted_setup(in);
	if ((in->want_key || o->key_regex) && (in->key = lbt_key_new(o->key_regex, err)) == NULL)
		return -1;
	in->fixed = format_from_opts(o, err);
	if (in->fixed == NULL && err->msg[0] != '\0')
		return -1;
	if (in->fixed && format_setup(in, in->fixed, err) < 0)
		return -1;
	return 0;
}

/*
 * Make an input from opts (copied; the strings must outlive the input).
 * @return the input, or NULL with err naming the bad option.
 */
lbt_input *lbt_input_new(const lbt_input_opts *opts, lbt_err *err)
{
	lbt_input *in = calloc(1, sizeof *in);

	if (in == NULL) {
		lbt_err_set(err, "input: out of memory");
		return NULL;
	}
	in->o = *opts;
	in->now_us = opts->now_us ? opts->now_us : lbt_time_now_us();
	in->o.max_reported = opts->max_reported == 0 ? DEFAULT_REPORTED : opts->max_reported;
	if (input_setup(in, err) < 0) {
		lbt_input_free(in);
		return NULL;
	}
	return in;
}

/* Queue `path` with a provenance name and leading lines to skip. */
void lbt_input_add_at(lbt_input *in, const char *path, const char *name, uint64_t skip_lines)
{
	struct path *p;

	if (LBT_GROW(in->paths, in->cap, in->npaths + 1, 8) < 0)
		return;      /* reported as a failed file would need memory too */
	p = &in->paths[in->npaths];
	p->path = strdup(path);
	p->name = name ? strdup(name) : NULL;
	p->skip = skip_lines;
	if (p->path != NULL)
		in->npaths++;
}

/* Queue a path ("-" = stdin). */
void lbt_input_add(lbt_input *in, const char *path)
{
	lbt_input_add_at(in, path, NULL, 0);
}

/* Close the current file and forget its sample. */
static void file_close(lbt_input *in)
{
	lbt_source_close(in->src);
	in->src = NULL;
	in->ns = in->si = 0;
	in->slen = 0;
	in->pending = 0;
}


/* Read and drop the first `skip` lines of the new file (lbt-index resume). @return 0 or -1 */
static int skip_lines(lbt_input *in, uint64_t skip, lbt_err *err)
{
	const char *line;
	size_t len;

	for (uint64_t i = 0; i < skip; i++) {
		int r = lbt_source_next(in->src, &line, &len, err);

		if (r <= 0)
			return r;
	}
	return 0;
}

/*
 * Detect the format of the file just opened and set a new one up.
 * @return 1, or -1 with err (file named)
 */
static int detect_format(lbt_input *in, lbt_err *err)
{
	int r = lbt_inputi_detect(in, err);

	if (r == 1 && format_setup(in, in->det, err) < 0) {
		lbt_err_at(err, in->name, 0, "%s", err->msg);
		in->cur = NULL;
		return -1;
	}
	return r < 0 ? -1 : 1;
}

/*
 * Open the next queued file and choose its format.
 * @return 1 opened, 0 no more files, -1 this file failed (err filled).
 */
static int file_open(lbt_input *in, lbt_err *err)
{
	struct path *p;

	if (in->next >= in->npaths)
		return 0;
	p = &in->paths[in->next++];
	in->st.files++;
	free(in->name);
	in->name = NULL;
	if ((in->src = lbt_source_open(p->path, p->name, err)) == NULL)
		return -1;
	in->name = strdup(lbt_source_name(in->src));
	in->ref_s = lbt_source_mtime(in->src);
	if (in->ref_s == 0)
		in->ref_s = in->now_us / 1000000;
	if (in->name == NULL)
		return lbt_err_set(err, "input: out of memory");
	if (p->skip > 0 && skip_lines(in, p->skip, err) < 0)
		return -1;
	in->cur = in->fixed;
	if (in->fixed == NULL)
		return detect_format(in, err);
	return 1;
}

/*
 * Next raw line of the current file: the replayed sample first, then a
 * held-back source error, then the source.  @return 1, 0 end, -1 error.
 */
static int line_next(lbt_input *in, struct sline *out, const char **line, lbt_err *err)
{
	int r;

	if (in->si < in->ns) {
		*out = in->sl[in->si++];
		*line = in->sbuf + out->off;
		return 1;
	}
	if (in->pending) {
		in->pending = 0;
		*err = in->pend_err;
		return -1;
	}
	r = lbt_source_next(in->src, line, &out->len, err);
	if (r == 1) {
		in->st.lines++;
		out->lineno = lbt_source_lineno(in->src);
		out->trunc = lbt_source_truncated_line(in->src);
	}
	return r;
}

/*
 * Count a malformed line and report it (the first max_reported of the run)
 * through diag; under strict, fill err instead and stop.
 * @return 0 (go on), or -1 (strict).
 */
static int malformed(lbt_input *in, uint64_t lineno, const char *why, lbt_err *err)
{
	lbt_err e;

	in->st.malformed++;
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

/* Complete a parsed record: LB host, syslog time, its clock, provenance, key. */
static void rec_complete(lbt_input *in, lbt_rec *r, const lbt_syslog *sy, uint64_t lineno)
{
	const uint64_t prov = LBT_BIT(LBT_F_FILE) | LBT_BIT(LBT_F_LINE);

	if (!(r->have & LBT_BIT(LBT_F_LB)) && (sy->host.n > 0 || in->o.lb != NULL)) {
		r->lb = sy->host.n > 0 ? sy->host : lbt_str_make(in->o.lb, strlen(in->o.lb));
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
 * Parse the message of line[0..len) with format f (NULL: event lines only)
 * into rec and complete it.  @return 1 a request, 2 an event, 0 no record
 * (a header the format skips), -1 malformed with `why` filled.
 */
int lbt_inputi_msg_parse(lbt_input *in, lbt_format *f, const char *line, size_t len,
    uint64_t lineno, lbt_err *why, lbt_rec *rec)
{
	lbt_syslog sy;
	const char *msg;
	size_t mlen;
	int r;

	lbt_syslog_strip(line, len, in->tz, in->ref_s, &sy);
	msg = line + sy.msg_off;
	mlen = len - sy.msg_off;
	why->msg[0] = '\0';    /* not lbt_err_clear: 800 bytes a line (~110 instructions) */
	r = f ? lbt_format_parse(f, msg, mlen, rec, why) : LBT_PARSE_BAD;
	if (r == LBT_PARSE_SKIP)
		return 0;
	if (r == LBT_PARSE_BAD) {
		lbt_rec_clear(rec);
		if (lbt_event_parse(msg, mlen, in->tz, rec) < 0) {
			if (why->msg[0] == '\0')
				lbt_err_set(why, "no format");
			return -1;
		}
	}
	rec_complete(in, rec, &sy, lineno);
	return r == LBT_PARSE_BAD ? 2 : 1;
}

/*
 * Parse one line into in->rec, counting it.  @return 1 a record that
 * passes the filters, 0 nothing to return (blank, skipped, event not asked
 * for, filtered out, malformed, an event held until a request line gives
 * it a time, or held events to give out first: input_evtime.c), -1
 * malformed under strict (err filled).
 */
static int line_parse(lbt_input *in, const char *line, const struct sline *l, lbt_err *err)
{
	lbt_err why;
	int r, hold, pass;

	if (l->len == 0)
		return in->st.skipped++, 0;
	if (l->trunc)
		return malformed(in, l->lineno, "line longer than 1 MiB", err);
	r = lbt_inputi_msg_parse(in, in->cur, line, l->len, l->lineno, &why, &in->rec);
	if (r == 0)
		return in->st.skipped++, 0;
	if (r < 0)
		return malformed(in, l->lineno, why.msg, err);
	if (r == 2 && (in->st.events++, !in->o.events))
		return 0;
	in->st.records += r == 1;
	hold = in->o.events ? lbt_inputi_evtime_note(in, line, l) : 1;   /* events only */
	if (hold == 0)
		return 0;      /* an event without a stamp waits for the next request line */
	pass = lbt_filter_match(in->filter, &in->rec);
	in->st.filtered += !pass;
	if (hold == 2)
		return lbt_inputi_evtime_release(in, pass, line, l->len), 0;
	if (!pass)
		return 0;
	in->line = line;
	in->line_len = l->len;
	return 1;
}

/*
 * Parse one line as lbt_input_next would, with format f, without filters
 * or counters; see input.h.  @return 1 with *rec, 0 no record, -1 with err.
 */
int lbt_input_parse_line(lbt_input *in, lbt_format *f, const char *line, size_t len,
    lbt_rec **rec, lbt_err *err)
{
	int r;

	if (in->ref_s == 0)
		in->ref_s = in->now_us / 1000000;
	lbt_err_clear(err);
	r = lbt_inputi_msg_parse(in, f, line, len, 1, err, &in->rec);
	*rec = &in->rec;
	return r > 0 ? 1 : r;
}

/*
 * Score every built-in format on one line as detection scores a file's
 * sample: the syslog wrapper stripped (its kind in *wrapper), then
 * lbt_format_detect on the message.  @return the number of scores.
 */
int lbt_input_score_line(lbt_input *in, const char *line, size_t len,
    lbt_format_score *scores, int max, lbt_syslog_kind *wrapper)
{
	lbt_syslog sy;
	const char *msg;

	if (in->ref_s == 0)
		in->ref_s = in->now_us / 1000000;
	*wrapper = lbt_syslog_strip(line, len, in->tz, in->ref_s, &sy);
	msg = line + sy.msg_off;
	len -= sy.msg_off;
	return lbt_format_detect(&msg, &len, 1, scores, max);
}

/*
 * Next record that passes the filters; see input.h.
 * @return 1 a record, 0 the end, -1 an error ending one file.
 */
int lbt_input_next(lbt_input *in, lbt_rec **rec, lbt_err *err)
{
	struct sline l;
	const char *line;
	int r;

	while (!in->stopped) {
		if (lbt_inputi_evtime_next(in, rec))
			return 1;      /* held events, then the request line that timed them */
		if (in->src == NULL && (r = file_open(in, err)) <= 0) {
			if (r < 0) {
				file_close(in);
				in->st.failed_files++;
				in->stopped = in->o.strict;
			}
			return r;
		}
		if ((r = line_next(in, &l, &line, err)) <= 0) {
			lbt_inputi_evtime_eof(in);
			file_close(in);
			if (r == 0)
				continue;
			in->st.failed_files++;
			in->stopped = in->o.strict;
			return -1;
		}
		if ((r = line_parse(in, line, &l, err)) != 0) {
			*rec = &in->rec;
			return r;
		}
	}
	return 0;
}

/* Counters so far. */
const lbt_input_stats *lbt_input_stats_get(const lbt_input *in)
{
	return &in->st;
}

/* Format of the current (or last) file; before the first, the one the options name, or NULL. */
const lbt_format *lbt_input_format(const lbt_input *in)
{
	return in->cur ? in->cur : in->fixed;
}

/* The whole line of the last record (wrapper included), or NULL with *len 0. */
const char *lbt_input_line(const lbt_input *in, size_t *len)
{
	*len = in->line ? in->line_len : 0;
	return in->line;
}

/* The source being read, or NULL. */
const struct lbt_source *lbt_input_source(const lbt_input *in)
{
	return in->src;
}


/* Free everything; NULL accepted. */
void lbt_input_free(lbt_input *in)
{
	if (in == NULL)
		return;
	lbt_source_close(in->src);
	for (size_t i = 0; i < in->npaths; i++) {
		free(in->paths[i].path);
		free(in->paths[i].name);
	}
	free(in->paths);
	free(in->name);
	if (in->det != in->fixed)
		lbt_format_free(in->det);
	lbt_format_free(in->fixed);
	lbt_tz_free(in->tz);
	lbt_key_free(in->key);
	lbt_filter_free(in->filter);
	free(in->sbuf);
	free(in->sl);
	lbt_inputi_evtime_free(in);
	free(in);
}

/*
 * Score the built-ins on the first lines of path, as detection does; see
 * input.h.  @return the number of scores copied to scores[], or -1 with err.
 */
int lbt_input_score_file(const char *path, const char *log_tz, lbt_format_score *scores,
    int max, int *tried, lbt_err *err)
{
	lbt_input *in = calloc(1, sizeof *in);
	lbt_format_score *sc = NULL;
	int n = -1;

	*tried = 0;
	if (in == NULL)
		return lbt_err_set(err, "input: out of memory");
	if ((in->tz = lbt_tz_new(log_tz, err)) == NULL && log_tz != NULL)
		goto out;
	if ((in->src = lbt_source_open(path, NULL, err)) == NULL)
		goto out;
	in->name = strdup(lbt_source_name(in->src));
	in->ref_s = lbt_source_mtime(in->src) ? lbt_source_mtime(in->src) : lbt_time_now_us() / 1000000;
	n = lbt_inputi_score(in, &sc, tried);
	if (n == -2)
		*err = in->pend_err, n = -1;
	else if (n < 0)
		lbt_err_set(err, "input: out of memory");
	for (int i = 0; i < n && i < max; i++)
		scores[i] = sc[i];
	n = n < max ? n : max;
out:
	free(sc);
	lbt_input_free(in);
	return n;
}
