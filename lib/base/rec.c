/*
 * rec.c - the field vocabulary of lbt_rec.  See include/lbt/rec.h.
 *
 * One const table maps each lbt_field to its name (the --fields word, TSV
 * header, NDJSON key), its kind and the offset of its member in lbt_rec, so
 * that naming, lookup, accessors and formatting cannot drift apart.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "lbt/rec.h"
#include "lbt/timeparse.h"

/* How a field is stored in lbt_rec. */
enum field_type {
	FT_TIME,     /* int64 µs, printed ISO 8601 */
	FT_ADDR,     /* lbt_addr */
	FT_I32,      /* int32 */
	FT_I64,      /* int64 */
	FT_STR,      /* lbt_str */
	FT_FILE,     /* const char * */
	FT_CLOCK,    /* lbt_clock, printed by name */
	FT_TIER,     /* lbt_tier, printed by name */
	FT_FROM,     /* lbt_client_from in a uint8_t, printed by name */
	FT_LINE      /* uint64 */
};

struct field_def {
	const char *name;
	enum field_type type;
	size_t off;              /* offsetof the member in lbt_rec */
};

#define F(name, type, member) { name, type, offsetof(lbt_rec, member) }

/* Indexed by lbt_field; the order is the enum order. */
static const struct field_def fields[LBT_F_COUNT] = {
	F("time", FT_TIME, time_us),     F("lb", FT_STR, lb),
	F("client", FT_ADDR, client),    F("port", FT_I32, port),
	F("frontend", FT_STR, frontend), F("backend", FT_STR, backend),
	F("server", FT_STR, server),     F("method", FT_STR, method),
	F("path", FT_STR, path),         F("query", FT_STR, query),
	F("host", FT_STR, host),         F("version", FT_STR, version),
	F("status", FT_I32, status),     F("bytes", FT_I64, bytes),
	F("Th", FT_I32, th),             F("Ti", FT_I32, ti),
	F("Tq", FT_I32, tq),             F("TR", FT_I32, tr),
	F("Tw", FT_I32, tw),             F("Tc", FT_I32, tc),
	F("Tr", FT_I32, tresp),          F("Ta", FT_I32, ta),
	F("Tt", FT_I32, tt),             F("term", FT_STR, term),
	F("ac", FT_I32, ac),             F("fc", FT_I32, fc),
	F("bc", FT_I32, bc),             F("sc", FT_I32, sc),
	F("rc", FT_I32, rc),             F("sq", FT_I32, sq),
	F("bq", FT_I32, bq),             F("ua", FT_STR, ua),
	F("key", FT_STR, key),           F("msg", FT_STR, msg),
	F("event", FT_STR, event),       F("level", FT_STR, level),
	F("request", FT_STR, request),   F("clock", FT_CLOCK, clock),
	F("tier", FT_TIER, tier),        F("client_from", FT_FROM, client_from),
	F("conn", FT_ADDR, conn),        F("file", FT_FILE, file),
	F("line", FT_LINE, line),
};

#undef F

/* True when f is a valid field index. */
static int field_ok(lbt_field f)
{
	return (unsigned)f < LBT_F_COUNT;
}

/* The cleared record: nothing present, every number -1, strings "".  A new
 * int32 or string member of lbt_rec must be listed here too. */
#define EMPTY_STR { "", 0 }
static const lbt_rec cleared = {
	.have = 0, .kind = LBT_KIND_REQUEST, .clock = LBT_CLOCK_NONE, .tier = LBT_TIER_NONE,
	.time_us = -1,
	.lb = EMPTY_STR, .port = -1, .frontend = EMPTY_STR, .backend = EMPTY_STR,
	.server = EMPTY_STR, .method = EMPTY_STR, .path = EMPTY_STR, .query = EMPTY_STR,
	.host = EMPTY_STR, .version = EMPTY_STR, .status = -1, .bytes = -1,
	.th = -1, .ti = -1, .tq = -1, .tr = -1, .tw = -1, .tc = -1, .tresp = -1, .ta = -1,
	.tt = -1, .term = EMPTY_STR, .ac = -1, .fc = -1, .bc = -1, .sc = -1, .rc = -1,
	.sq = -1, .bq = -1, .ua = EMPTY_STR, .key = EMPTY_STR, .msg = EMPTY_STR,
	.event = EMPTY_STR, .level = EMPTY_STR, .request = EMPTY_STR, .file = NULL, .line = 0
};
#undef EMPTY_STR

/*
 * Reset rec: nothing present, kind REQUEST, clock NONE, every number -1,
 * strings empty (pointing at "" so memcpy of 0 bytes is defined), no file.
 * A copy of a const cleared record: it runs once per line, and the loop over
 * the field table it replaces cost ~400 instructions a line (callgrind,
 * haproxy-httplog), the copy ~75.
 */
void lbt_rec_clear(lbt_rec *rec)
{
	*rec = cleared;
}

/* Clock names, indexed by lbt_clock. */
static const char *const clock_names[] = { "none", "accept", "request", "end", "syslog",
	"inferred" };

/* @return the clock's name (rec.h), "?" out of range. */
const char *lbt_clock_name(lbt_clock c)
{
	return (unsigned)c < sizeof clock_names / sizeof clock_names[0] ? clock_names[c] : "?";
}

/* Exact lookup of a clock name.  @return the clock, or -1 */
int lbt_clock_lookup(const char *name, size_t len)
{
	for (size_t i = 0; i < sizeof clock_names / sizeof clock_names[0]; i++)
		if (strlen(clock_names[i]) == len && memcmp(clock_names[i], name, len) == 0)
			return (int)i;
	return -1;
}

/* Tier names, indexed by lbt_tier. */
static const char *const tier_names[LBT_TIER_COUNT] = { "none", "lb", "backend" };

/* @return the tier's name (rec.h), "?" out of range. */
const char *lbt_tier_name(lbt_tier t)
{
	return (unsigned)t < LBT_TIER_COUNT ? tier_names[t] : "?";
}

/* Exact lookup of "lb", "backend" or its synonym "app".  @return the tier, or -1 */
int lbt_tier_lookup(const char *name, size_t len)
{
	if (len == 3 && memcmp(name, "app", 3) == 0)
		return LBT_TIER_BACKEND;
	for (int i = LBT_TIER_LB; i < LBT_TIER_COUNT; i++)
		if (strlen(tier_names[i]) == len && memcmp(tier_names[i], name, len) == 0)
			return i;
	return -1;
}

/* client_from names, indexed by lbt_client_from. */
static const char *const from_names[LBT_FROM_COUNT] = { "conn", "header", "trusted-header" };

/* @return the name of a client_from value (rec.h), "?" out of range. */
const char *lbt_client_from_name(lbt_client_from f)
{
	return (unsigned)f < LBT_FROM_COUNT ? from_names[f] : "?";
}

/* Exact lookup of a client_from name.  @return the value, or -1 */
int lbt_client_from_lookup(const char *name, size_t len)
{
	for (int i = 0; i < LBT_FROM_COUNT; i++)
		if (strlen(from_names[i]) == len && memcmp(from_names[i], name, len) == 0)
			return i;
	return -1;
}

/* @return the field's name, or "?" for an out-of-range value. */
const char *lbt_field_name(lbt_field f)
{
	return field_ok(f) ? fields[f].name : "?";
}

/* Exact, case-sensitive lookup of name[0..len) ("TR" and "Tr" differ). @return field or -1 */
int lbt_field_lookup(const char *name, size_t len)
{
	for (int f = 0; f < LBT_F_COUNT; f++)
		if (strlen(fields[f].name) == len && memcmp(fields[f].name, name, len) == 0)
			return f;
	return -1;
}

/* True for fields printed as bare numbers in JSON: port, status, bytes, timers, counters, line. */
int lbt_field_is_numeric(lbt_field f)
{
	if (!field_ok(f))
		return 0;
	return fields[f].type == FT_I32 || fields[f].type == FT_I64 || fields[f].type == FT_LINE;
}

/* @return pointer to the int32 member for an FT_I32 field, else NULL. */
int32_t *lbt_rec_i32(lbt_rec *rec, lbt_field f)
{
	if (!field_ok(f) || fields[f].type != FT_I32)
		return NULL;
	return (int32_t *)((char *)rec + fields[f].off);
}

/* @return pointer to the lbt_str member for an FT_STR field, else NULL. */
lbt_str lbt_rec_lb_or_input(const lbt_rec *rec)
{
	const char *n = rec->file;

	if ((rec->have & LBT_BIT(LBT_F_LB)) && rec->lb.n > 0)
		return rec->lb;
	if (!(rec->have & LBT_BIT(LBT_F_FILE)) || n == NULL || n[0] == '\0')
		return LBT_STR_NULL;
	if (strcmp(n, "(stdin)") == 0 || strcmp(n, "-") == 0)
		n = "stdin";
	return lbt_str_make(n, strlen(n));
}

/* Pointer to the lbt_str member of a string field, NULL for other fields. */
lbt_str *lbt_rec_str(lbt_rec *rec, lbt_field f)
{
	if (!field_ok(f) || fields[f].type != FT_STR)
		return NULL;
	return (lbt_str *)((char *)rec + fields[f].off);
}

/* Copy p[0..n) into buf (size > 0), truncated, NUL-terminated. @return length copied */
static size_t put_bytes(char *buf, size_t size, const char *p, size_t n)
{
	if (n >= size)
		n = size - 1;
	if (n > 0)
		memcpy(buf, p, n);
	buf[n] = '\0';
	return n;
}

/* Copy the NUL-terminated s into buf like put_bytes(). */
static size_t put_cstr(char *buf, size_t size, const char *s)
{
	return put_bytes(buf, size, s, strlen(s));
}

/* Write a present field of type t at member address m. @return length */
static size_t format_member(enum field_type t, const void *m, char *buf, size_t size)
{
	char tmp[LBT_ADDR_STRLEN + 8];

	switch (t) {
	case FT_TIME:
		return lbt_time_format(*(const int64_t *)m, 0, buf, size);
	case FT_ADDR:
		return put_cstr(buf, size, lbt_addr_format(m, tmp, sizeof tmp));
	case FT_I32:
		snprintf(tmp, sizeof tmp, "%" PRId32, *(const int32_t *)m);
		return put_cstr(buf, size, tmp);
	case FT_I64:
		snprintf(tmp, sizeof tmp, "%" PRId64, *(const int64_t *)m);
		return put_cstr(buf, size, tmp);
	case FT_LINE:
		snprintf(tmp, sizeof tmp, "%" PRIu64, *(const uint64_t *)m);
		return put_cstr(buf, size, tmp);
	case FT_FILE:
		return put_cstr(buf, size, *(const char *const *)m ? *(const char *const *)m : "");
	case FT_STR:
		return put_bytes(buf, size, ((const lbt_str *)m)->p, ((const lbt_str *)m)->n);
	case FT_CLOCK:
		return put_cstr(buf, size, lbt_clock_name(*(const lbt_clock *)m));
	case FT_TIER:
		return put_cstr(buf, size, lbt_tier_name(*(const lbt_tier *)m));
	case FT_FROM:
		return put_cstr(buf, size, lbt_client_from_name(*(const uint8_t *)m));
	}
	return put_cstr(buf, size, "");
}

/*
 * Write field f of rec into buf (NUL-terminated, truncated to size).  Absent
 * fields and size 0 write nothing.  Time: ISO 8601 UTC, 3 decimals, or 6
 * when the µs part is not a whole millisecond.  @return the length written.
 */
size_t lbt_rec_format_field(const lbt_rec *rec, lbt_field f, char *buf, size_t size)
{
	if (size == 0)
		return 0;
	if (!field_ok(f) || !(rec->have & LBT_BIT(f))) {
		buf[0] = '\0';
		return 0;
	}
	return format_member(fields[f].type, (const char *)rec + fields[f].off, buf, size);
}
