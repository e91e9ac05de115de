/*
 * input_int.h - what lib/read/input*.c share; never installed.
 *
 *   input.c         the stream of log files: options, files, lines, records, filters
 *   input_fmtset.c  the formats a file is read with, and the one each line takes
 *   input_profile.c the options of each input (--input / --sources, or the global
 *                   ones) made ready: zone, formats; the tiers known ahead
 *   input_detect.c  per-file format detection on a sample of first lines
 *   input_evtime.c  times for event lines without a stamp (the nearest
 *                   request line's), holding those that come first
 *   input_part.c    a file read in parts, one input a part (lib/run/par.c)
 *   input_join.c    the lines of a file, an NGINX error event over several
 *                   lines joined into one
 *   input_msg.c     one line's message made a record (syslog, formats, events,
 *                   completion), and the lines before a part parsed uncounted
 *
 * Direction, top down: input_part.c makes inputs (input.c's face); input.c
 * calls input_detect.c, input_evtime.c and input_msg.c; input_evtime.c
 * calls input_msg.c; everyone uses input_fmtset.c and input_profile.c.
 * input_msg.c calls none of the others' functions but input_fmtset.c's.
 */
#ifndef LBT_INPUT_INT_H
#define LBT_INPUT_INT_H

#include <stddef.h>
#include <stdint.h>

#include "lbt/input.h"
#include "lbt/ipset.h"
#include "lbt/key.h"
#include "lbt/source.h"
#include "lbt/timeparse.h"

#define SAMPLE_LINES 50            /* candidate lines scored */
#define SAMPLE_STORED 1000         /* lines kept for the replay, events included */
#define SAMPLE_BYTES (4u << 20)
#define SAMPLE_WAIT_MS 250         /* a live stream's sample ends when its writer pauses */
#define DEFAULT_REPORTED 5

/*
 * Detection past the sample (input_detect.c): up to WIDEN_LINES malformed
 * lines in a row are held (copied, not yet counted) and the built-ins are
 * scored on them, as on the first lines; the first attempt comes at the
 * first malformed line, and after each attempt that found nothing the
 * next waits for twice as many (up to WIDEN_LINES), so that a file of
 * scattered junk pays a few scorings, not one a line.
 */
#define WIDEN_LINES SAMPLE_LINES

#define HOLD_LINES 1024            /* event lines held at most until a request line */
#define HOLD_BYTES (1u << 20)

/* Event lines without a stamp (input_evtime.c). */
struct evtime {
	int64_t last_us;         /* time of the last request line of this file */
	uint64_t last_file;      /* in->st.files when last_us was taken, 0 none */
	char *buf;               /* copies of the held lines */
	size_t len, cap;
	struct held { size_t off, len; uint64_t lineno; } *v;
	size_t n, vcap, next;    /* held lines; the next one to give out */
	int emitting;            /* giving the held lines out */
	int timed;               /* ... with time_us (else without a time) */
	int64_t time_us;
	int req;                 /* then in->rec, the request that timed them */
	const char *req_line;    /* its line */
	size_t req_len;
	lbt_rec rec;             /* the held event given out */
};

/*
 * One format of a set, and what its records get that their lines do not
 * say: the proxy a haproxy.cfg format was read for (the frontend of a
 * format without %ft) and the tier of its dialect.
 */
struct fmt_entry {
	lbt_format *f;           /* owned */
	char *proxy;             /* haproxy.cfg section, or NULL */
	size_t proxy_len;
	int has_ft;              /* the format logs %ft: lines name their proxy */
	int fill_fe;             /* proxy && !has_ft: records get proxy as frontend */
	int klass;               /* entries of one class parse alike (same template and
	                            captures): the index of its first entry */
	lbt_tier tier;           /* of its records: the input's tier=, else HAProxy
	                            dialects lb, NGINX backend, others none */
};

/*
 * The formats a file is read with: one (the common case, no extra cost),
 * or several, each line parsed by the first of them, in a fixed order of
 * specificity (lbt_format_specificity_cmp), that reads it: never by the
 * format of the line before, so a line's fields do not depend on its
 * neighbours (input_fmtset.c).
 */
struct fmtset {
	struct fmt_entry *v;
	size_t n, cap;
	size_t last;             /* entry that parsed the last line */
	int byname;              /* the proxies of one haproxy.cfg: a line that names
	                            another proxy (%ft) is read with that one's format */
	int builtin;             /* every entry is a built-in by name (detected sets) */
	size_t *ord;             /* the entries, most specific first (n of them, owned) */
	int widened;             /* formats added past detection's sample (input_detect.c) */
};

/* The options of one input (a spec's over the global ones, or the global
 * ones), made ready once for all its files. */
struct profile {
	lbt_input_opts o;
	lbt_tz *tz;
	lbt_ipset *trusted;      /* o.trusted_proxies read, NULL when not given */
	struct fmtset fixed;     /* the formats the options name; n == 0: detect */
	const char *where_file;  /* the spec's sources file and line, or NULL */
	uint64_t where_line;
};

/* A queued input. */
struct path {
	char *path;
	char *name;              /* provenance name, NULL = the source's */
	uint64_t skip;           /* leading lines to drop unparsed */
	size_t prof;             /* index of its profile in lbt_input.prof */
	struct fmtset *probed;   /* the formats detection chose when lbt_input_tiers
	                            looked ahead, used when the file is read; or NULL */
	int part;                /* bytes [off, end) only, lines from line0 + 1
	                            (input_part.c: a file read in parts) */
	uint64_t off, end, line0;
};

/* A physical line read ahead (input_join.c): the source's view, valid
 * until its next read; r is what lbt_source_next returned. */
struct pline {
	const char *p;
	size_t len;
	uint64_t lineno;
	int trunc;
	int r;
};

/* One line of the detection sample, in in->sbuf. */
struct sline {
	size_t off, len;
	uint64_t lineno;
	int trunc;
	int skip;                /* not scored: cut, or an event line */
};

struct lbt_input {
	lbt_input_opts o;
	int64_t now_us;
	struct path *paths;
	size_t npaths, cap, next;
	lbt_source *src;
	char *name;              /* current file's name, for rec->file and errors */
	struct profile **prof;   /* [0] the global options, then one per spec */
	size_t nprof, prof_cap;
	struct profile *cp;      /* the current file's */
	struct fmtset det;       /* detected for the current file (kept for the next) */
	struct profile *det_prof;   /* ... with that profile's zone and captures */
	struct fmtset *cur;      /* &cp->fixed or &det; NULL: none (events only) */
	lbt_tz *tz;              /* cp->tz */
	lbt_key *key;
	int want_key;
	uint64_t wanted;         /* mask given to formats */
	lbt_filter *filter;
	lbt_rec rec;
	lbt_input_stats st;
	uint64_t file_read;      /* st.records when the file was opened */
	uint64_t file_lines;     /* st.lines ... */
	uint64_t file_bad;       /* st.malformed ... */
	uint64_t file_first_bad; /* the number of the file's first malformed line */
	int file_partial;        /* the file is counted in st.partial_files ... */
	int file_partial_named;  /* ... as the first of them */
	int undetected;          /* detection found no format for the current file */
	int span;                /* keep st.first_us/last_us: a filter may leave
	                            nothing, whose note gives the data's span */
	int64_t ref_s;           /* year reference of RFC 3164 stamps */
	lbt_syslog_memo symemo;  /* the wrapper of the last line parsed */
	int reported;
	int stopped;             /* strict: no more records after an error */
	const char *line;        /* line of the last record */
	size_t line_len;
	char *sbuf;              /* detection sample (copies), replayed first */
	size_t slen, scap;
	struct sline *sl;
	int ns, si;
	int pending;             /* a source error waits behind the sample */
	lbt_err pend_err;
	struct evtime ev;
	int pausing;             /* lbt_input_next returns 0 at the end of each file */
	int pause_pending;       /* ... and the current one has ended */
	int began;               /* ... and after it opened one (0: not yet said) */
	char *part_format;       /* a part's --format (the formats its file was
	                            detected with), owned */
	int src_eof;             /* the source of the current file has ended */
	struct pline peek;       /* the line after a joined event (input_join.c) */
	int peeked;              /* ... is waiting */
	lbt_err peek_err;        /* ... its error, when peek.r < 0 */
	char *jbuf;              /* the joined event */
	size_t jcap;
	int replayed;            /* the line being read comes from sbuf (read again) */
	char *hbuf;              /* malformed lines held past the sample, each line
	                            then its error (NUL-ended): input_detect.c */
	size_t hlen, hcap;
	struct sline *hl;        /* SAMPLE_STORED of them (they trade places with sl) */
	int nh;
	uint64_t widen_seen;     /* malformed lines since the last scoring */
	uint64_t widen_wait;     /* ... needed before the next (0: 1) */
};

/*
 * input_fmtset.c.
 *
 * lbt_inputi_set_add: append format f (taken over, freed on failure) with
 * its proxy (copied; NULL none) and class (-1: a class of its own).
 * lbt_inputi_set_from_opts: the formats o names (--format NAME[,NAME...],
 * --log-format, --haproxy-cfg [--frontend], --nginx-conf); none (n == 0)
 * when detection must choose.  lbt_inputi_set_setup: give every format the
 * profile's zone, captures and trusted proxies and the wanted fields, and
 * every entry the input's tier
 * (LBT_TIER_NONE: its dialect's).  All three @return 0 or -1 with err.
 *
 * lbt_inputi_set_parse: parse msg with the set (see struct fmtset); s->last
 * is the entry used.  @return LBT_PARSE_OK, _SKIP or _BAD (why from the
 * class of the entry that read the line before).
 *
 * lbt_inputi_set_names: the built-in names of a set as a comma list into
 * buf, or NULL.  lbt_inputi_set_tiers: LBT_BIT mask of the entries' tiers.
 * lbt_inputi_set_free: free the entries (the struct is the caller's).
 */
int lbt_inputi_set_add(struct fmtset *s, lbt_format *f, const char *proxy, int klass,
    lbt_err *err);
int lbt_inputi_set_from_opts(struct fmtset *s, const lbt_input_opts *o, lbt_err *err);
int lbt_inputi_set_setup(struct fmtset *s, const struct profile *p, uint64_t wanted,
    lbt_err *err);
int lbt_inputi_set_parse(struct fmtset *s, const char *msg, size_t len, lbt_rec *rec,
    lbt_err *why);
const char *lbt_inputi_set_names(const struct fmtset *s, char *buf, size_t size);
unsigned lbt_inputi_set_tiers(const struct fmtset *s);
void lbt_inputi_set_free(struct fmtset *s);

/*
 * input_profile.c.
 *
 * lbt_inputi_profile_add: make a profile of options o (copied; origin
 * where_file:where_line for errors, NULL none), append it to in->prof.
 * @return its index, or -1 with err.  lbt_inputi_profiles_free: free them.
 *
 * lbt_inputi_file_tiers: the tiers of queued file p known ahead (see
 * lbt_input_tiers), detection on its first lines if need be; the formats
 * it chose are kept in p->probed, so that reading the file does not detect
 * them again.
 */
long lbt_inputi_profile_add(lbt_input *in, const lbt_input_opts *o, const char *where_file,
    uint64_t where_line, lbt_err *err);
void lbt_inputi_profiles_free(lbt_input *in);
unsigned lbt_inputi_file_tiers(lbt_input *in, struct path *p);

/*
 * input_detect.c, called by input.c only.
 *
 * lbt_inputi_detect: sample the file just opened and choose its formats
 * (in->cur = &in->det): the built-ins that together read most of the
 * sample, best first; the sample is replayed by the caller before reading
 * on.  A file with no candidate line needs none.  @return 1 a new set
 * (in->det) that the caller must set up, 0 the set of the previous file or
 * none needed, -1 with err (file named) when no format matches.
 *
 * lbt_inputi_score: sample the file just opened and score every built-in
 * on it (*sc, to free; *tried: lines scored).  @return the number of
 * scores, -1 out of memory, -2 the source failed before any line
 * (in->pend_err).
 */
int lbt_inputi_detect(lbt_input *in, lbt_err *err);
int lbt_inputi_score(lbt_input *in, lbt_format_score **sc, int *tried);

/*
 * Detection past the sample, called by input.c only.
 *
 * lbt_inputi_hold: line (l, already counted in st.lines) failed every
 * format of the current set, with error `why`: hold it when the set may
 * be widened (built-ins chosen by detection, not --strict, not a replayed
 * line).  A full stretch (WIDEN_LINES) is scored at once.  @return 1 held
 * (or scored and handled), 0 not held: the caller counts it malformed.
 *
 * lbt_inputi_stretch_end: a line that is not malformed (line, l), or the
 * end of the file (NULL), follows the held lines.  Scores them when it is
 * time to; when built-ins not yet in the set read them, adds those to it,
 * reports it through diag and queues the held lines (and `line`, copied)
 * to be read again, in order.  Otherwise counts them malformed.  @return 1
 * lines queued (the caller drops its parse of `line` and reads on), else 0.
 *
 * lbt_inputi_hold_flush: count the held lines malformed (no scoring).
 */
int lbt_inputi_hold(lbt_input *in, const char *line, const struct sline *l, const char *why);
int lbt_inputi_stretch_end(lbt_input *in, const char *line, const struct sline *l);
void lbt_inputi_hold_flush(lbt_input *in);

/*
 * input.c, and input_part.c when a part is joined: count the current file
 * as read only in part, or no longer, from its counters so far (a part's
 * input only keeps its first malformed line in st.partial_first).
 */
void lbt_inputi_partial_check(lbt_input *in);

/* input.c: count a malformed line (never under --strict: held lines are
 * not) and report it through diag within the run's limit. */
void lbt_inputi_malformed(lbt_input *in, uint64_t lineno, const char *why);
/* The same, under strict filling err and stopping (input_msg.c).
 * @return 0 (go on) or -1 (strict) */
int lbt_inputi_malformed_err(lbt_input *in, uint64_t lineno, const char *why, lbt_err *err);

/*
 * input_join.c, called by input.c and input_detect.c.
 *
 * lbt_inputi_line_read: the next line of the current file, as
 * lbt_source_next with its number (*lineno) and cut flag (*trunc): an
 * NGINX error-log line that leaves a quote open comes with the lines that
 * continue it, newlines kept (counted in st.lines; the caller counts the
 * first).  The line is valid until the next call.
 */
int lbt_inputi_line_read(lbt_input *in, const char **line, size_t *len, uint64_t *lineno,
    int *trunc, lbt_err *err);

/*
 * input_msg.c, called by input.c, input_evtime.c and input_part.c.
 *
 * lbt_inputi_part_prime: the part p of a file just opened
 * parses the lines just before its first (up to PRIME_BYTES), uncounted,
 * so that it starts as the input reading the whole file would be there:
 * the time of the last request line for the events that follow
 * (input_evtime.c), the format that read the line before.
 */
#define PRIME_BYTES (1u << 20)
void lbt_inputi_part_prime(lbt_input *in, const struct path *p);

/* lbt_inputi_msg_parse: parse line[0..len) with set s (NULL: event lines
 * only) into rec and complete it.  @return 1 a request, 2 an event, 0 no
 * record (a header the format skips), -1 malformed with `why` filled. */
int lbt_inputi_msg_parse(lbt_input *in, struct fmtset *s, const char *line, size_t len,
    uint64_t lineno, lbt_err *why, lbt_rec *rec);

/*
 * input_evtime.c, called by input.c only.
 *
 * lbt_inputi_evtime_note: after in->rec was parsed from `line` (counted,
 * not yet filtered).  A request line's time is remembered; an event
 * without a time takes it (clock INFERRED) or, when no request line of
 * this file came yet, is held (copied).  @return 1 go on, 0 held (nothing
 * to return), 2 a request line that ends a wait (the caller filters it and
 * calls lbt_inputi_evtime_release).
 *
 * lbt_inputi_evtime_release: give the held events out with the time of
 * in->rec, then in->rec itself when `pass`.
 *
 * lbt_inputi_evtime_next: the next held event that passes the filters
 * (into *rec), or the request that timed them.  @return 1, or 0 none.
 *
 * lbt_inputi_evtime_eof: the file ended: give the held events out without
 * a time.  lbt_inputi_evtime_free: release the buffers.
 */
int lbt_inputi_evtime_note(lbt_input *in, const char *line, const struct sline *l);
void lbt_inputi_evtime_release(lbt_input *in, int pass, const char *line, size_t len);
int lbt_inputi_evtime_next(lbt_input *in, lbt_rec **rec);
void lbt_inputi_evtime_eof(lbt_input *in);
void lbt_inputi_evtime_free(lbt_input *in);

#endif
