/*
 * input_int.h - what lib/read/input*.c share; never installed.
 *
 *   input.c         the stream of log files: options, files, lines, records, filters
 *   input_detect.c  per-file format detection on a sample of first lines
 *   input_evtime.c  times for event lines without a stamp (the nearest
 *                   request line's), holding those that come first
 */
#ifndef LBT_INPUT_INT_H
#define LBT_INPUT_INT_H

#include <stddef.h>
#include <stdint.h>

#include "lbt/input.h"
#include "lbt/key.h"
#include "lbt/source.h"
#include "lbt/timeparse.h"

#define SAMPLE_LINES 50            /* candidate lines scored */
#define SAMPLE_STORED 1000         /* lines kept for the replay, events included */
#define SAMPLE_BYTES (4u << 20)
#define DEFAULT_REPORTED 5

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

/* A queued input. */
struct path {
	char *path;
	char *name;              /* provenance name, NULL = the source's */
	uint64_t skip;           /* leading lines to drop unparsed */
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
	lbt_format *fixed;       /* from the options; NULL = detect per file */
	lbt_format *det;         /* detected for the current file */
	lbt_format *cur;
	lbt_tz *tz;
	lbt_key *key;
	int want_key;
	uint64_t wanted;         /* mask given to formats */
	lbt_filter *filter;
	lbt_rec rec;
	lbt_input_stats st;
	int64_t ref_s;           /* year reference of RFC 3164 stamps */
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
};

/*
 * input_detect.c, called by input.c only.
 *
 * lbt_inputi_detect: sample the file just opened and choose its format
 * (in->cur); the sample is replayed by the caller before reading on.  A
 * file with no candidate line needs none.  @return 1 a new format (in->det)
 * that the caller must set up, 0 the format of the previous file or none
 * needed, -1 with err (file named) when no format matches.
 *
 * lbt_inputi_score: sample the file just opened and score every built-in
 * on it (*sc, to free; *tried: lines scored).  @return the number of
 * scores, -1 out of memory, -2 the source failed before any line
 * (in->pend_err).
 */
int lbt_inputi_detect(lbt_input *in, lbt_err *err);
int lbt_inputi_score(lbt_input *in, lbt_format_score **sc, int *tried);

/* input.c: parse line[0..len) into rec and complete it (see input.c). */
int lbt_inputi_msg_parse(lbt_input *in, lbt_format *f, const char *line, size_t len,
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
