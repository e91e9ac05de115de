/*
 * syslog.h - recognise and strip the wrapper in front of a log message.
 *
 * Handles (docs/formats.md, "Syslog wrappers"): RFC 3164 with or without <PRI> (space-padded
 * day), RFC 5424, HAProxy's `log ... format` local|rfc3164|rfc5424|priority|
 * short|timed|iso|raw, rsyslog's traditional and RFC 3339 file formats,
 * journalctl short, short-iso (+0000 and +00:00), short-iso-precise and
 * short-unix.  The host name is kept (it says which load balancer).
 * Includes: err.h, str.h, timeparse.h.
 */
#ifndef LBT_SYSLOG_H
#define LBT_SYSLOG_H

#include <stddef.h>
#include <stdint.h>

#include "lbt/str.h"
#include "lbt/timeparse.h"

typedef enum lbt_syslog_kind {
	LBT_SYSLOG_NONE,       /* no wrapper: the line is the message */
	LBT_SYSLOG_RFC3164,    /* [<PRI>]Mmm dd hh:mm:ss [host] tag[pid]: */
	LBT_SYSLOG_RFC5424,    /* <PRI>1 ISO host app procid msgid sd */
	LBT_SYSLOG_PRI,        /* <PRI> only (HAProxy priority / short) */
	LBT_SYSLOG_ISO,        /* [<PRI>]ISO [host tag[pid]:] (timed, iso, rsyslog, short-iso) */
	LBT_SYSLOG_UNIX        /* journalctl short-unix: epoch.frac host tag[pid]: */
} lbt_syslog_kind;

typedef struct lbt_syslog {
	lbt_syslog_kind kind;
	int pri;               /* -1 when absent */
	int64_t time_us;       /* valid when has_time */
	int has_time;
	lbt_str host;          /* empty when the wrapper has none */
	lbt_str tag;           /* "haproxy", "nginx" ... empty when none */
	size_t msg_off;        /* offset of the message in the line */
} lbt_syslog;

/*
 * Recognise the wrapper at the start of line[0..len).  Cheap when there is
 * none (one or two byte tests).  `ref_s` is the reference time for RFC 3164
 * year inference (lbt_time_parse_bsd); tz the zone of zone-less stamps.
 * @return the wrapper kind (LBT_SYSLOG_NONE leaves msg_off 0).
 */
lbt_syslog_kind lbt_syslog_strip(const char *line, size_t len, lbt_tz *tz,
    int64_t ref_s, lbt_syslog *out);

/*
 * The wrapper of the previous line of one input, kept to recognise the next
 * by its bytes: logs of one sender repeat "Nov  1 22:24:01 lb1 haproxy[1234]: "
 * with at most the seconds changed.  Zero it to start (or after the zone or
 * year reference changes: the memo also checks them).
 */
typedef struct lbt_syslog_memo {
	lbt_syslog last;       /* host and tag point into `head` */
	char head[96];         /* line[0..last.msg_off) of the line it was made from */
	size_t sec_at;         /* RFC 3164: offset of the seconds' two digits, 0 none */
	lbt_tz *tz;
	int64_t ref_s;
	int valid;
} lbt_syslog_memo;

/*
 * lbt_syslog_strip with a memo: when line starts with the wrapper bytes of
 * the previous line, or with the same bytes but for the seconds of an RFC
 * 3164 stamp, the answer comes from the memo (about 30 instructions against
 * 900: callgrind, bench/genlog.sh --syslog); otherwise the line is parsed
 * and becomes the memo.  The answer is always lbt_syslog_strip's.
 * @return the wrapper kind
 */
lbt_syslog_kind lbt_syslog_strip_memo(const char *line, size_t len, lbt_tz *tz,
    int64_t ref_s, lbt_syslog_memo *m, lbt_syslog *out);

/* Name of a wrapper kind: "none", "rfc3164", "rfc5424", "priority", "iso", "unix". */
const char *lbt_syslog_kind_name(lbt_syslog_kind k);

#endif
