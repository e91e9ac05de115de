/*
 * rec.h - lbt_rec, one request (or one HAProxy event line), normalised.
 *
 * Every input (raw log in any format, lbt-cat TSV, the SQLite index) becomes
 * a stream of lbt_rec, and every analysis reads only lbt_rec.  A record is a
 * view: its strings point into the line being parsed or into the parser's
 * scratch memory, and stay valid until the next record is read from the same
 * input.  Copy what you keep.
 *
 * Absent is not zero.  `have` has one bit per field (LBT_BIT(LBT_F_...)); a
 * field whose bit is clear was not in the log and must not be printed as a
 * value.  A timer that the log wrote as -1 is present with the value -1.
 *
 * The clock says what the time measures; lbt_input sets the "clock" field
 * (LBT_F_CLOCK) on every record it completes whose time has a known clock,
 * so that lbt-cat can print it.  LBT_CLOCK_INFERRED marks an event whose
 * line had no stamp at all: its time is borrowed from the nearest request
 * line, an approximation that analyses may want to weigh less.
 *
 * This module owns the field vocabulary: the names used by --fields, the TSV
 * header, the NDJSON keys, and lbt-cat TSV read back as input.
 * Includes: addr.h, str.h.
 */
#ifndef LBT_REC_H
#define LBT_REC_H

#include <stdint.h>
#include <stddef.h>

#include "lbt/addr.h"
#include "lbt/str.h"

/* The fields of a record, in the default column order of lbt-cat. */
typedef enum lbt_field {
	LBT_F_TIME,      /* time of the request, UTC µs (see lbt_clock) */
	LBT_F_LB,        /* load balancer: syslog host name or --lb */
	LBT_F_CLIENT,    /* client address */
	LBT_F_PORT,      /* client port */
	LBT_F_FRONTEND,
	LBT_F_BACKEND,
	LBT_F_SERVER,    /* server name, "<NOSRV>", "<STATS>" ... */
	LBT_F_METHOD,
	LBT_F_PATH,      /* path without query; absolute-form URIs keep scheme+host */
	LBT_F_QUERY,     /* query without '?' */
	LBT_F_HOST,      /* Host header (or $host) */
	LBT_F_VERSION,   /* "HTTP/1.1" */
	LBT_F_STATUS,    /* HTTP status; -1 when HAProxy sent none, 0 for TCP / nginx 000 */
	LBT_F_BYTES,     /* bytes sent to the client */
	LBT_F_TH,        /* HAProxy timers, ms, -1 as logged */
	LBT_F_TI,
	LBT_F_TQ,        /* Tq: Th+Ti+TR (1.5/1.6 logs) */
	LBT_F_TR,
	LBT_F_TW,
	LBT_F_TC,
	LBT_F_TRESP,     /* Tr: server response headers */
	LBT_F_TA,
	LBT_F_TT,
	LBT_F_TERM,      /* termination state, 2 or 4 chars as logged */
	LBT_F_AC,        /* actconn */
	LBT_F_FC,        /* feconn */
	LBT_F_BC,        /* beconn */
	LBT_F_SC,        /* srv_conn */
	LBT_F_RC,        /* retries */
	LBT_F_SQ,        /* server queue */
	LBT_F_BQ,        /* backend queue */
	LBT_F_UA,        /* User-Agent */
	LBT_F_KEY,       /* extracted key (ping UUID by default) */
	LBT_F_MSG,       /* text of an event record */
	LBT_F_EVENT,     /* what an event record is about: "reload", "server", "limit_req" ...
	                    (event.h lists them) */
	LBT_F_LEVEL,     /* an event's severity: "error", "warn", "notice" ... */
	LBT_F_REQUEST,   /* a request line that is no "METHOD URI [VERSION]" (HELP, TLS
	                    bytes, <BADREQ>): kept whole here; method, path, query and
	                    version are then absent */
	LBT_F_CLOCK,     /* what the time measures (lbt_clock_name), when it is known */
	LBT_F_TIER,      /* which tier wrote the line (lbt_tier_name): the load balancer
	                    or the backend behind it, when known (not a default column) */
	LBT_F_CLIENT_FROM, /* where the client address came from (lbt_client_from_name),
	                    present when the line carried an X-Forwarded-For style
	                    header address: "conn", "header" or "trusted-header" */
	LBT_F_CONN,      /* the connecting address, when the client came from a header
	                    and the format logs both (HAProxy %ci, NGINX $remote_addr) */
	LBT_F_FILE,      /* provenance: input file name */
	LBT_F_LINE,      /* provenance: line number in it */
	LBT_F_COUNT
} lbt_field;

#define LBT_BIT(f) ((uint64_t)1 << (f))

/* What the record's time measures; formats differ (docs/formats.md,
 * "Dates and the clock of a record"). */
typedef enum lbt_clock {
	LBT_CLOCK_NONE,      /* no time in the line */
	LBT_CLOCK_ACCEPT,    /* HAProxy %t %T %Ts %Tl: connection accepted */
	LBT_CLOCK_REQUEST,   /* HAProxy %tr %trg %trl: first byte of request */
	LBT_CLOCK_END,       /* NGINX $time_local $msec: log written, request done */
	LBT_CLOCK_SYSLOG,    /* only the syslog wrapper's stamp was available */
	LBT_CLOCK_INFERRED   /* an event line without any stamp (HAProxy's own lines in a
	                        raw or custom log): the time of the nearest request line
	                        of the same file, not the event's own (lbt_input) */
} lbt_clock;

/*
 * Which tier of a deployment wrote the line.  The load balancers and the
 * servers behind them log the same requests: an analysis counts one tier
 * (lib/run/stream.c), or it would count a request twice.  lbt_input gives
 * HAProxy formats LBT_TIER_LB and NGINX formats LBT_TIER_BACKEND unless
 * the input says otherwise (tier=); JSON by key names and lbt-tsv without
 * a tier column give none (the field is then absent).  Events have none:
 * the tiers do not log the same events, and every tier choice keeps them.
 */
typedef enum lbt_tier {
	LBT_TIER_NONE,       /* not known */
	LBT_TIER_LB,         /* a load balancer (HAProxy) */
	LBT_TIER_BACKEND     /* a server behind it (NGINX as application server) */
} lbt_tier;

#define LBT_TIER_COUNT 3

/*
 * Where the client address of a line came from, when the line carried a
 * header that names clients (X-Forwarded-For, captured by HAProxy or
 * logged by NGINX).  Any client can write such a header: without a
 * trusted-proxies list (lbt_format_set_trusted) its first address is
 * taken as the client the format means (HAProxy's capture named client,
 * an NGINX list in place of $remote_addr) and marked HEADER, an address
 * nobody vouches for.  With a list, the rightmost address that is not a
 * trusted proxy counts, as NGINX's real_ip_recursive finds it, and is
 * marked TRUSTED (vouched for by the proxy that appended it), or CONN
 * when that is the connecting address itself.
 */
typedef enum lbt_client_from {
	LBT_FROM_CONN,       /* the connecting address (the header set aside) */
	LBT_FROM_HEADER,     /* the header's first address, unverified */
	LBT_FROM_TRUSTED     /* the header's address a trusted proxy appended */
} lbt_client_from;

#define LBT_FROM_COUNT 3

typedef enum lbt_kind {
	LBT_KIND_REQUEST,    /* an access-log line */
	LBT_KIND_EVENT       /* an HAProxy non-request line: server DOWN, proxy stopped ... */
} lbt_kind;

typedef struct lbt_rec {
	uint64_t have;           /* LBT_BIT(field) set when present */
	lbt_kind kind;
	lbt_clock clock;
	int64_t time_us;         /* UTC microseconds since the epoch */
	lbt_str lb;
	lbt_addr client;
	lbt_addr conn;           /* the connecting address beside a header's client */
	uint8_t client_from;     /* lbt_client_from, when LBT_F_CLIENT_FROM is present */
	int32_t port;
	lbt_str frontend, backend, server;
	lbt_str method, path, query, host, version;
	int32_t status;
	lbt_tier tier;           /* here, in the padding before bytes: the record stays
	                            424 bytes, and lbt_rec_clear's copy as cheap */
	int64_t bytes;
	int32_t th, ti, tq, tr, tw, tc, tresp, ta, tt;
	lbt_str term;
	int32_t ac, fc, bc, sc, rc, sq, bq;
	lbt_str ua;
	lbt_str key;
	lbt_str msg;
	lbt_str event, level;    /* static names (event.h), or views into the line */
	lbt_str request;
	const char *file;        /* provenance; owned by the input, NUL-terminated */
	uint64_t line;
} lbt_rec;

/* Set every field absent (have = 0) and the numbers to -1. */
void lbt_rec_clear(lbt_rec *rec);

/*
 * Name of a clock as the "clock" field prints it: "none", "accept",
 * "request", "end", "syslog", "inferred"; "?" out of range.
 */
const char *lbt_clock_name(lbt_clock c);

/* Clock named name[0..len), or -1. */
int lbt_clock_lookup(const char *name, size_t len);

/* Name of a tier as the "tier" field prints it: "none", "lb", "backend". */
const char *lbt_tier_name(lbt_tier t);

/* Tier named name[0..len): "lb", "backend", or "app" (the same as backend,
 * the word of tests/lab's sources files); "none" and others are -1. */
int lbt_tier_lookup(const char *name, size_t len);

/* Name of a client_from value: "conn", "header", "trusted-header"; "?" out of range. */
const char *lbt_client_from_name(lbt_client_from f);

/* The client_from value named name[0..len), or -1. */
int lbt_client_from_lookup(const char *name, size_t len);

/* Name of a field as used in --fields, TSV headers and JSON ("time", "Tw" ...). */
const char *lbt_field_name(lbt_field f);

/* Field with that name, or -1.  Exact match. */
int lbt_field_lookup(const char *name, size_t len);

/* True when the field holds a number (printed bare in JSON). */
int lbt_field_is_numeric(lbt_field f);

/* Pointer to the int32 member of a numeric int32 field (status, timers,
 * counters, port), NULL for other fields. */
int32_t *lbt_rec_i32(lbt_rec *rec, lbt_field f);

/* Pointer to the lbt_str member of a string field, NULL for other fields. */
lbt_str *lbt_rec_str(lbt_rec *rec, lbt_field f);

/*
 * The record's LB, else the name of its input (its file as given, "stdin"
 * for standard input): what an input that names no LB (no host in its
 * lines, no syslog host, no lb=) is called among several.  LBT_STR_NULL
 * when it has neither.
 */
lbt_str lbt_rec_lb_or_input(const lbt_rec *rec);

/*
 * Write field `f` of `rec` as text into buf (NUL-terminated, truncated to
 * size).  Times print as ISO 8601 UTC with milliseconds
 * ("2025-11-01T23:24:01.123Z"), or microseconds when the time is not a
 * whole millisecond ("...01.123456Z", lossless through lbt-cat TSV),
 * addresses in their text form, "file" and
 * "line" as provenance.  An absent field writes "".  No escaping is done:
 * the output layer escapes for TSV or JSON.
 * @return the length written.
 */
size_t lbt_rec_format_field(const lbt_rec *rec, lbt_field f, char *buf, size_t size);

#endif
