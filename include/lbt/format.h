/*
 * format.h - log formats: compiled once from a template, then applied to
 * every line to fill an lbt_rec.
 *
 * Dialects (docs/formats.md):
 *   haproxy   `log-format` strings: "%ci:%cp [%tr] %ft %b/%s ..."; with
 *             %{+json}o or %{+cbor}o the line is JSON / CBOR and the named
 *             items (%(name)alias) map keys to fields;
 *   nginx     `log_format` strings: "$remote_addr - $remote_user ...", with
 *             escape=default|json|none; a template that is a JSON object
 *             maps its keys to fields;
 *   json      JSON lines without a template: every member is mapped by its
 *             name (remote_addr, client_ip, status, request, msec,
 *             @timestamp, upstream_addr ...; lbt-formats(5) has the table),
 *             nested objects as dotted names ("source.ip");
 *   lbt-tsv   lbt-cat's own TSV output read back (header line names columns).
 *
 * A descriptor (formats/NAME.fmt, see lbt-formats(5)) names a template and
 * says how to read it; the built-in descriptors are compiled into the
 * library and a file of the same syntax overrides them.
 *
 * The parser is a sequence of steps (literal, field); fields are found by
 * scanning for the next literal with memchr, never with a regex, and only
 * the fields in the wanted mask are converted.  Strings needing unescaping
 * are decoded into scratch memory owned by the format (reset every line);
 * text lines cost no allocation, JSON and CBOR lines one document each
 * (jansson, libcbor), kept until the next line.  The mapping of aliases and
 * variables to fields, the descriptor syntax and the limits are in
 * lbt-formats(5).  Implementation map: lib/read/format_int.h.
 * Includes: err.h, ipset.h, rec.h, timeparse.h.
 */
#ifndef LBT_FORMAT_H
#define LBT_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "lbt/err.h"
#include "lbt/ipset.h"
#include "lbt/rec.h"
#include "lbt/timeparse.h"

typedef enum lbt_dialect {
	LBT_DIALECT_HAPROXY,
	LBT_DIALECT_NGINX,
	LBT_DIALECT_TSV,
	LBT_DIALECT_JSON
} lbt_dialect;

typedef struct lbt_format lbt_format;

/* Results of lbt_format_parse(). */
#define LBT_PARSE_OK      0   /* a record */
#define LBT_PARSE_SKIP    1   /* not a record and not an error: blank line, TSV header */
#define LBT_PARSE_BAD    -1   /* malformed: err->msg says why (no file/line) */

/*
 * Compile a template.  `escape` applies to NGINX (NULL: "default").
 * @return a format, or NULL with err naming the template column at fault.
 */
lbt_format *lbt_format_compile(lbt_dialect d, const char *tmpl, const char *escape,
    lbt_err *err);

/*
 * A built-in descriptor by name ("haproxy-httplog"), or a descriptor file
 * when `spec` contains a '/' or ends in ".fmt".
 */
lbt_format *lbt_format_open(const char *spec, lbt_err *err);

/*
 * Read the format a proxy section logs with from a real haproxy.cfg:
 * `log-format`, `option httplog|tcplog|httpslog [clf]`, `defaults`
 * inheritance (named defaults too), "${HAPROXY_HTTP_LOG_FMT}"-style
 * references and `capture request header` order.  `frontend` NULL means the
 * only (or first) proxy with logging; err lists the candidates if ambiguous.
 */
lbt_format *lbt_format_from_haproxy_cfg(const char *path, const char *frontend, lbt_err *err);

/* One proxy of a haproxy.cfg and the format it logs with. */
typedef struct lbt_proxy_format {
	lbt_format *format;       /* owned */
	char *proxy;              /* the frontend or listen section's name */
	int same_as;              /* an earlier entry that logs identically (same
	                             template and captures), or -1 */
} lbt_proxy_format;

/*
 * Every frontend and listen section of the haproxy.cfg at path that logs,
 * in file order, each with its format read as lbt_format_from_haproxy_cfg
 * reads it (the only frontend when none logs); with `frontend`, that
 * section alone.  So a log that mixes the lines of several proxies (a
 * /var/log/haproxy.log) can be read line by line (lbt_input).
 * @return the number of entries in *out (free with lbt_proxy_formats_free),
 * or -1 with err (file:line): unreadable file, no such frontend, no
 * frontend that logs among several, a format that does not compile.
 */
int lbt_format_proxies_from_haproxy_cfg(const char *path, const char *frontend,
    lbt_proxy_format **out, lbt_err *err);

/* Free n entries and the array; NULL accepted. */
void lbt_proxy_formats_free(lbt_proxy_format *v, int n);

/*
 * Replace every "${HAPROXY_HTTP_LOG_FMT}"-style reference (HTTP, HTTPS, TCP,
 * HTTP_CLF, TCP_CLF) in an HAProxy template with the built-in string, as
 * HAProxy 2.8+ does, so that "${HAPROXY_HTTP_LOG_FMT} %[ssl_fc_sni]" can be
 * given to --log-format.  @return a malloc'ed template, or NULL with err for
 * any other ${NAME} (its value on the logging host is not known here).
 */
char *lbt_format_expand_log_vars(const char *tmpl, lbt_err *err);

/*
 * Read a `log_format NAME [escape=...] '...' ...;` from nginx.conf (and the
 * files it includes).  `name` NULL means the format of the first access_log,
 * "combined" when it names none.
 */
lbt_format *lbt_format_from_nginx_conf(const char *path, const char *name, lbt_err *err);

void lbt_format_free(lbt_format *f);

/* Zone of zone-less stamps (%t, %tr); NULL = UTC.  Not owned. */
void lbt_format_set_tz(lbt_format *f, lbt_tz *tz);

/* Meaning of %hr capture slots, e.g. "host,ua" (a --captures value). */
int lbt_format_set_captures(lbt_format *f, const char *list, lbt_err *err);

/*
 * Which address of a header's list is the client (--trusted-proxies; not
 * copied, must outlive f).  NULL, the default: no list, the first address
 * of the header as the format means it (marked "header", rec.h).  A set,
 * even an empty one: the connecting address counts unless it is in the
 * set, then the rightmost address of the header that is not (NGINX's
 * set_real_ip_from with real_ip_recursive on); it needs the whole header
 * in the line.  A format without the connecting address (the header
 * alone) starts the walk at the header's rightmost address, and marks
 * what it finds "header": nobody is known to have written it.  The set is
 * only read (lbt_ipset_has), so formats on several threads may share it
 * once it has been read from (normalised) once.
 */
void lbt_format_set_trusted(lbt_format *f, lbt_ipset *trusted);

/* Fields the caller needs (LBT_BIT mask); others may be left absent.  Default: all. */
void lbt_format_set_wanted(lbt_format *f, uint64_t mask);

/*
 * Parse one message (syslog wrapper already removed) into rec.  rec is
 * cleared first; strings stay valid until the next call on this format.
 * @return LBT_PARSE_OK, LBT_PARSE_SKIP or LBT_PARSE_BAD.
 */
int lbt_format_parse(lbt_format *f, const char *msg, size_t len, lbt_rec *rec, lbt_err *err);

const char *lbt_format_name(const lbt_format *f);       /* "haproxy-httplog", or "custom" */
const char *lbt_format_describe(const lbt_format *f);   /* one line */
const char *lbt_format_template(const lbt_format *f);
lbt_dialect lbt_format_dialect(const lbt_format *f);
uint64_t lbt_format_fields(const lbt_format *f);         /* fields it can fill */

/* 1 when the time of its records has milliseconds (or finer): %t, %tr,
 * %Ts with %ms, $msec, lbt-cat TSV; 0 for a time to the second (%T, %trg,
 * %Ts alone, $time_local) or none. */
int lbt_format_time_ms(const lbt_format *f);

/* The fields every line fills (lbt_format_fields without the Host an
 * absolute-form request URI may carry: a Host needs a capture or sample). */
uint64_t lbt_format_fields_always(const lbt_format *f);

/* Names of the built-in descriptors, NULL-terminated. */
const char *const *lbt_format_builtin_names(void);

/* Text of a built-in descriptor, or NULL. */
const char *lbt_format_builtin_text(const char *name);

/* One candidate's score in detection. */
typedef struct lbt_format_score {
	const char *name;     /* built-in name (static storage) */
	int parsed;           /* non-blank lines parsed as records (or skipped as a header) */
	int tried;            /* non-blank lines tried */
	int literal;          /* fixed text the template requires (bytes, JSON keys):
	                         first tie-breaker, the more specific format wins */
	int fields;           /* distinct fields filled on those lines: second tie-breaker */
	int priority;         /* the descriptor's priority: third tie-breaker */
	uint64_t lines;       /* bit i set when message i (i < 64) parsed: which lines
	                         each format reads, for choosing several (lbt_input) */
	int nfields;          /* fields the format can fill (its specificity after
	                         literal: lbt_format_line_best) */
} lbt_format_score;

/*
 * Score every built-in descriptor on `n` sample messages (wrappers already
 * removed).  scores[] gets one entry per built-in, best first: most parsed,
 * then most literal text, most fields, highest priority.  Descriptors that
 * read the same lines differently (haproxy-httplog and haproxy-legacy) are
 * ranked by their priority on purpose.  Event lines are parsed by no format.
 * @return the number of entries written.
 */
int lbt_format_detect(const char *const *msgs, const size_t *lens, int n,
    lbt_format_score *scores, int max);

/*
 * True when two scores that parsed something cannot be ranked: same parsed
 * count, literal text, fields and priority.  Such a tie is reported to the
 * user (lbt_input), never settled silently.
 */
int lbt_format_scores_tied(const lbt_format_score *a, const lbt_format_score *b);

/*
 * Specificity, the order in which a set of formats tries a line (the
 * first that reads it wins): more fixed text (literal bytes, JSON keys),
 * then more fields the format can fill, then the higher priority, then
 * the name.  A fixed order, never the format of the line before, so a
 * line's fields do not depend on its neighbours: "www.example.net:80 ..."
 * is read by nginx-vhost-port (host without the port), before or after a
 * nginx-vhost line.  @return < 0 when a comes first, > 0 when b does
 */
int lbt_format_specificity_cmp(const lbt_format *a, const lbt_format *b);

/*
 * A test that costs a count, for a set of formats that tries the most
 * specific first: true when f certainly cannot read a message of len bytes
 * that holds `quotes` '"' bytes (a text template's literal quotes are in
 * every line it reads, unless the logger cut it: lines of 900 bytes or
 * more are never rejected here).  False means "parse to know".  Exact:
 * it never rejects a line f reads, so it cannot change an answer.
 */
int lbt_format_cannot_read(lbt_format *f, size_t len, unsigned quotes);

/*
 * The index in sc[0..n) of the most specific score (the order above, on
 * the scores' literal, nfields, priority and name) whose format reads
 * sample line i (i < 64: bit i of lines), or -1 when none does.  The
 * format a line is read with when it is alone, which detection puts in
 * the set of every file that has the line.
 */
int lbt_format_line_best(const lbt_format_score *sc, int n, int i);

#endif
