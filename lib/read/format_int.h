/*
 * format_int.h - what the lib/format*.c files share; never installed.
 *
 * A template compiles into items (one per variable: HAProxy alias, sample
 * or NGINX variable), each saying what its value means for an lbt_rec
 * (kind), how its end is found in a line (scan) and how it is unescaped
 * (esc).  Text lines are matched by a program of steps (literal text,
 * HAProxy separator, item); JSON and CBOR lines by a list of keyed items.
 *
 *   format.c          the public face: compile, free, setters, accessors, parse dispatch
 *   format_prog.c     the toolbox: a new format, items, programs, keys, fields, scratch
 *   format_desc.c     descriptors (formats/NAME.fmt), built-ins, lbt_format_open
 *   format_detect.c   scoring the built-ins on sample lines
 *   format_haproxy.c  HAProxy log-format compiler (aliases, flags, samples)
 *   format_nginx.c    NGINX log_format compiler (text and JSON templates)
 *   format_match.c    the text matcher (steps, memchr scanning)
 *   format_conv.c     values to lbt_rec fields, decoders, request splitting
 *   format_json.c     JSON lines (HAProxy %{+json}o, NGINX escape=json objects, and
 *                     the json dialect: members mapped by their names)
 *   format_jkeys.c    the json dialect: its table of key names, compiled into keys
 *   format_cbor.c     CBOR lines (HAProxy %{+cbor}o, hex text or +bin)
 *   format_tsv.c      lbt-cat TSV read back
 *   format_cfg.c      haproxy.cfg reader
 *   format_ngxconf.c  nginx.conf reader
 *
 * Direction, top down: the format sources (format_desc, format_detect,
 * format_cfg, format_ngxconf) use the public face (format.c); the face calls
 * the compilers (format_haproxy, format_nginx) and the readers (format_json,
 * format_cbor, format_tsv, format_match) and the json dialect's table
 * (format_jkeys); the JSON reader uses the text matcher (sub-templates, the
 * NGINX layout) and looks names up in that table, the matcher and the readers
 * use format_conv, and everyone builds with format_prog.  No file calls a
 * file above it, and nothing here calls upward (input, event, filter).
 */
#ifndef LBT_FORMAT_INT_H
#define LBT_FORMAT_INT_H

#include <stddef.h>
#include <stdint.h>

#include "lbt/err.h"
#include "lbt/format.h"
#include "lbt/rec.h"
#include "lbt/timeparse.h"

#define FMT_MAX_CAPS 32          /* capture slots with a meaning */
#define FMT_MAX_PATH 4           /* nesting of NGINX JSON templates */

/* Fields one of which a JSON line that may lack keys must give to be a record. */
#define FMT_USABLE (LBT_BIT(LBT_F_TIME) | LBT_BIT(LBT_F_METHOD) | LBT_BIT(LBT_F_PATH) | \
	LBT_BIT(LBT_F_REQUEST))

/* What a value means for the record. */
enum fmt_kind {
	K_OPAQUE,        /* carried by the line, no record field */
	K_STR,           /* string into `field` */
	K_I32,           /* int32 into `field` (status, timers, counters, port) */
	K_BYTES,         /* int64 bytes */
	K_SEC_MS,        /* seconds with a fraction into `field` as ms (NGINX $request_time) */
	K_CLIENT,        /* client address */
	K_TIME,          /* a date: `tfmt`, `clock`, precision in `rank` */
	K_MS,            /* HAProxy %ms: milliseconds of the accept date */
	K_REQUEST,       /* "METHOD URI VERSION" */
	K_URI,           /* URI with query (may be absolute-form) */
	K_PATH,          /* URI without query (may be absolute-form) */
	K_QUERY,         /* query, with a leading '?' when FL_QMARK */
	K_CAPBLOCK,      /* HAProxy %hr/%hs "{a|b}" */
	K_CAPLIST,       /* HAProxy %hrl/%hsl, one token per capture */
	K_SLOT,          /* one capture slot, capture.req.hdr(N) */
	K_JSONVAL        /* NGINX JSON fast path: the raw value of key item `slot`
	                    (format_json.c validates, decodes and converts it) */
};

/* How the end of an unquoted value is found in a text line. */
enum fmt_scan {
	SC_PLAIN,        /* up to the next literal or separator */
	SC_NUM,          /* digits (may be followed directly by another item) */
	SC_IP,           /* an address: before ':' splits on the last colon */
	SC_ZDATE,        /* "dd/Mon/yyyy:hh:mm:ss +zzzz": one inner space */
	SC_REQ,          /* a request line: two inner spaces */
	SC_FIXED,        /* exactly `width` bytes (%ts, %tsc) */
	SC_BLOCK,        /* optional "{...}" */
	SC_LIST,         /* optional list of tokens */
	SC_ULIST         /* NGINX upstream list "a, b : c": a space ends it unless it
	                    follows a ',' or belongs to " : " */
};

/* How a value is unescaped. */
enum fmt_esc {
	ESC_NONE,
	ESC_HASH,        /* HAProxy "#XX" (%r, %H*, captures) */
	ESC_NGX_HEX,     /* NGINX escape=default "\xHH" */
	ESC_NGX_JSON     /* NGINX escape=json "\"", "\\", "\n", "\u00XX" */
};

/* Date shapes. */
enum fmt_tfmt {
	TM_CLF_LOCAL,    /* 01/Nov/2025:23:24:01.123, zone from lbt_format_set_tz */
	TM_CLF_ZONED,    /* 01/Nov/2025:23:24:01 +0100 */
	TM_ISO,          /* 2025-11-01T23:24:01+01:00 */
	TM_EPOCH,        /* 1762035841[.123], or hex with FL_HEX */
	TM_ANY           /* json dialect: ISO, CLF (zoned or not) or epoch (s, ms, µs, ns)
	                    told by its shape */
};

/* Meaning of a capture slot (lbt_format_set_captures). */
enum fmt_cap {
	CAP_NONE,        /* "-": ignored */
	CAP_HOST,
	CAP_UA,
	CAP_CLIENT       /* X-Forwarded-For style: first address of the list */
};

/* Item flags. */
#define FL_QUOTE   0x0001   /* HAProxy +Q: the value may be in double quotes */
#define FL_BSLASH  0x0002   /* HAProxy +E: '"', '\' and ']' carry a backslash */
#define FL_HEX     0x0004   /* HAProxy +X: numbers and addresses in hex */
#define FL_TILDE   0x0008   /* %ft: drop a trailing '~' */
#define FL_RESP    0x0010   /* response captures: skipped, not mapped */
#define FL_QMARK   0x0020   /* %HQ: query printed with its '?' */
#define FL_RAWQ    0x0040   /* sample: may contain raw '"' even when quoted */
#define FL_NOQUERY 0x0080   /* NGINX $uri: a '?' is part of the path */
#define FL_ACCEPT_S 0x0100  /* date of the accept with second precision (+%ms) */
#define FL_JBARE   0x0200   /* K_JSONVAL: a bare value ($status), else a string's inside */
#define FL_LAST    0x0400   /* NGINX $upstream_*: of a list "a, b : c" the last element
                               (the server that answered) */
#define FL_XFF     0x0800   /* K_CLIENT: an X-Forwarded-For list, its first address */
#define FL_HOSTNAME 0x1000  /* NGINX $host in text: a ',' makes the line another format's */
#define FL_XFF_CONN 0x2000  /* FL_XFF whose last element is the connecting address
                               (NGINX $proxy_add_x_forwarded_for) */

/* json dialect key flavours: a name whose meaning depends on who wrote it. */
#define JF_NGINX   0x01     /* this entry is the name's NGINX meaning */
#define JF_HAPROXY 0x02     /* this entry is the name's HAProxy meaning */
#define JF_MARK    0x04     /* a name only HAProxy logs: the line is HAProxy's */

/* One variable of a template. */
struct fmt_item {
	uint8_t kind;              /* enum fmt_kind */
	uint8_t scan;              /* enum fmt_scan */
	uint8_t esc;               /* enum fmt_esc */
	uint8_t field;             /* lbt_field for K_STR, K_I32, K_SEC_MS */
	uint8_t clock;             /* lbt_clock for K_TIME */
	uint8_t tfmt;              /* enum fmt_tfmt for K_TIME */
	uint8_t rank;              /* priority against other items filling the same field */
	uint8_t width;             /* SC_FIXED */
	uint16_t off;              /* offset in lbt_rec of `field` (K_STR, K_I32, K_SEC_MS) */
	uint16_t flags;            /* FL_* */
	int16_t slot;              /* capture slot for K_SLOT */
	uint8_t jflav;             /* json dialect: JF_* (format_jkeys.c) */
	uint32_t col;              /* 1-based column in the template */
	uint64_t fills;            /* LBT_BIT mask of the fields it can fill */
	char what[40];             /* name in messages: "status", "$status" */
	char *key;                 /* JSON/CBOR key (owned), NULL in text mode */
	size_t keylen;
	char *path[FMT_MAX_PATH];  /* NGINX JSON: enclosing object keys (owned) */
	int npath;
	struct fmt_prog *sub;      /* NGINX JSON: string value mixing text and variables */
};

/* Fast ways of a step (fmt_step.fast). */
#define FAST_SKIP  0x01     /* a skipped word starts here */
#define FAST_FUSE  0x02     /* a fused item */
#define FAST_QUOTE 0x04     /* ... that takes the general path when the value is quoted */
#define FAST_ALL   0x07

/* Steps of a text program. */
enum fmt_op { OP_LIT, OP_SEP, OP_ITEM };

struct fmt_step {
	uint8_t op;                /* enum fmt_op */
	uint8_t end;               /* OP_ITEM: how its value ends (format_match.c, set by
	                              lbt_fmti_prog_plan; 0 = not planned, worked out per line) */
	uint8_t reqskip;           /* OP_ITEM: skip "METHOD URI " before applying `end` */
	uint8_t bsl;               /* OP_ITEM: literal search skips backslash-escaped matches */
	uint8_t fuse;              /* OP_ITEM: ends at the next separator or literal, which
	                              the matcher then takes in the same stride; 2 when
	                              the value may be quoted instead */
	char delim;                /* fused: the byte that ends it (' ', or the first of
	                              the literal's, whose whole is checked there) */
	uint64_t delim8;           /* delim in every byte of a word */
	uint64_t convmask;         /* fused: fields that make it converted (fills, or
	                              every field for %ms) */
	uint8_t skip;              /* first step of a skipped word: the steps it covers
	                              (format_match.c, planned with the wanted fields),
	                              0 none */
	uint8_t skipn;             /* ... the literals among them, each the byte skipc */
	uint8_t skipge;            /* ... at least skipn of them (an address before ':') */
	uint8_t skipw;             /* ... its exact width when its one item is fixed, 0 any */
	char skipc;
	uint8_t fast;              /* FAST_*: the ways it may be taken on a line that
	                              cannot have been cut (format_match.c) */
	uint32_t col;              /* 1-based column in the template */
	char *lit;                 /* OP_LIT text (owned) */
	size_t litlen;
	struct fmt_item it;        /* OP_ITEM */
};

/* A text program: the compiled form of a text template. */
#define CUT_MIN 900        /* shorter lines are never taken as cut by the logger */

struct fmt_prog {
	struct fmt_step *v;
	size_t n, cap;
	int bslash;                /* literal search skips backslash-escaped matches */
	int anchor;                /* a last literal is searched from the end of the line */
	int nocut;                 /* never take a line as cut by the logger (NGINX JSON) */
	int tail;                  /* text after the last step (after a space) is ignored
	                              (descriptor key "trailing ignore") */
	size_t cut_from;           /* a line cut by the logger must reach this step: its
	                              time and its client or request (format_match.c) */
};

/* A value's place in the line (NGINX JSON layout, format_match.c -> format_json.c). */
struct fmt_span {
	const char *s;
	size_t n;
	const struct fmt_item *it;   /* the K_JSONVAL item that found it */
};

/* Line encodings. */
enum fmt_enc {
	ENC_TEXT,                  /* steps */
	ENC_HJSON,                 /* HAProxy %{+json}o */
	ENC_CBOR,                  /* HAProxy %{+cbor}o, hex text */
	ENC_CBOR_BIN,              /* HAProxy %{+cbor,+bin}o, raw bytes */
	ENC_NJSON,                 /* NGINX template that is a JSON object */
	ENC_TSV,                   /* lbt-cat TSV */
	ENC_KJSON                  /* JSON by key names, no template (format_jkeys.c) */
};

struct lbt_format {
	char *name, *describe, *tmpl, *escape;
	lbt_dialect dialect;
	int enc;                   /* enum fmt_enc */
	int priority;              /* detection tie-breaker */
	int keys_any;              /* JSON/CBOR: a missing key is an absent field (keys any) */
	int keys_found;            /* JSON/CBOR: keys of the last line that were there */
	struct fmt_prog prog;      /* ENC_TEXT; ENC_NJSON: the template's literal layout
	                              (K_JSONVAL items), empty when it has none */
	struct fmt_item *keys;     /* JSON and CBOR: one item per key */
	size_t nkeys, keycap;
	uint8_t caps[FMT_MAX_CAPS];/* enum fmt_cap per request capture slot */
	int ncaps;                 /* slots with a meaning */
	int req_caps, resp_caps;   /* capture counts known from a config, -1 unknown */
	uint64_t wanted;           /* fields to convert */
	uint64_t fields;           /* fields the format can fill */
	int planned;               /* the matcher's plan of every program is made */
	unsigned lit_quotes;       /* '"' bytes in the literal text of prog (planned):
	                              an uncut line with fewer is not of this format */
	int noskip;                /* plan no skipped word: every step taken (tests) */
	lbt_tz *tz;                /* zone of %t/%tr, NULL = UTC; not owned */
	lbt_ipset *trusted;        /* --trusted-proxies, NULL = none given; not owned */
	lbt_time_cache tcache;     /* last minute of a CLF date (zeroed with the zone) */
	char *scratch;             /* per-line decoded strings */
	size_t scap, sused;
	void *json;                /* last JSON document (json_t *), kept for its strings */
	struct fmt_span *jspan;    /* ENC_NJSON layout: the value of each key item in the
	                              line being matched (nkeys entries, owned) */
	int njslow;                /* ENC_NJSON: always read with jansson (tests) */
	unsigned long njfast;      /* ENC_NJSON: lines read by the literal layout (tests) */
	void *cbor;                /* last CBOR item (cbor_item_t *) */
	int8_t tsv_col[64];        /* TSV: lbt_field per column, -1 ignored */
	int tsv_n;                 /* columns, 0 before the header */
};

/* Per-line state while filling a record. */
struct fmt_ctx {
	lbt_format *f;
	lbt_rec *rec;
	lbt_err *err;
	const char *base;          /* start of the message: columns count from here */
	uint8_t rank[LBT_F_COUNT]; /* rank of the item that set each field */
	int32_t ms;                /* %ms, -1 when absent */
	int time_accept_s;         /* the time came from a second-precision accept date */
	int noskip;                /* take every step, skip no planned word */
	int skipped;               /* a planned word was skipped (format_match.c) */
	lbt_addr conn;             /* the connecting address (%ci, $remote_addr), family 0
	                              none: the header's list is resolved against it */
	uint8_t conn_rank;
	uint8_t hdr_rank;          /* rank of the header's item, 0: no header list */
	uint8_t hdr_tail;          /* its last element is the connecting address */
	const char *hdr;           /* the header's address list (X-Forwarded-For) */
	size_t hdrn;
};

/* format_prog.c */
lbt_format *lbt_fmti_new(lbt_dialect d);
int lbt_fmti_cap_lookup(const char *s, size_t n);
char *lbt_fmti_scratch(lbt_format *f, size_t n);
int lbt_fmti_set_captures(lbt_format *f, const char *list, lbt_err *err);
void lbt_fmti_item_free(struct fmt_item *it);
void lbt_fmti_prog_free(struct fmt_prog *pg);
struct fmt_step *lbt_fmti_prog_add(struct fmt_prog *pg, int op, uint32_t col);
struct fmt_item *lbt_fmti_key_add(lbt_format *f);
void lbt_fmti_compute_fields(lbt_format *f);
void lbt_fmti_item_finish(struct fmt_item *it);
int lbt_fmti_check_adjacent(const struct fmt_prog *pg, lbt_err *err);
char *lbt_fmti_strndup(const char *s, size_t n);

/* format_haproxy.c */
int lbt_fmti_haproxy_compile(lbt_format *f, const char *tmpl, lbt_err *err);

/* format_nginx.c */
int lbt_fmti_nginx_compile(lbt_format *f, const char *tmpl, const char *escape, lbt_err *err);
int lbt_fmti_nginx_prog(struct fmt_prog *pg, const char *s, size_t n, uint32_t col0, int esc,
    lbt_err *err);

/* format_match.c */
void lbt_fmti_plan(lbt_format *f);
int lbt_fmti_match(struct fmt_ctx *c, const struct fmt_prog *pg, const char *s, size_t len);

/* format_conv.c */
void lbt_fmti_ctx_init(struct fmt_ctx *c, lbt_format *f, lbt_rec *rec, lbt_err *err,
    const char *base);
void lbt_fmti_ctx_finish(struct fmt_ctx *c);
int lbt_fmti_conv_text(struct fmt_ctx *c, const struct fmt_item *it, const char *s, size_t n,
    size_t col);
int lbt_fmti_conv_int(struct fmt_ctx *c, const struct fmt_item *it, int64_t v);
int lbt_fmti_conv_real(struct fmt_ctx *c, const struct fmt_item *it, double v);
int lbt_fmti_conv_block(struct fmt_ctx *c, const struct fmt_item *it, const char *s, size_t n);
void lbt_fmti_conv_slot(struct fmt_ctx *c, const struct fmt_item *it, int slot, const char *s,
    size_t n);
int lbt_fmti_decode(struct fmt_ctx *c, int esc, int bslash, const char *s, size_t n,
    const char **out, size_t *outlen);

/* format_jkeys.c */
int lbt_fmti_jkeys_compile(lbt_format *f, lbt_err *err);
int lbt_fmti_jkeys_find(const lbt_format *f, const char *name, size_t len);

/* format_json.c, format_cbor.c, format_tsv.c */
int lbt_fmti_json_parse(struct fmt_ctx *c, const char *s, size_t len);
void lbt_fmti_json_layout_check(lbt_format *f);
void lbt_fmti_json_release(lbt_format *f);
int lbt_fmti_cbor_parse(struct fmt_ctx *c, const char *s, size_t len);
void lbt_fmti_cbor_release(lbt_format *f);
int lbt_fmti_tsv_parse(struct fmt_ctx *c, const char *s, size_t len);

/* format_desc.c */
lbt_format *lbt_fmti_from_desc(const char *text, const char *name, const char *file, lbt_err *err);

#endif
