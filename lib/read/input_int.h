/*
 * input_int.h - what lib/read/input.c and lib/read/input_detect.c share; never installed.
 *
 *   input.c         the stream of log files: options, files, lines, records, filters
 *   input_detect.c  per-file format detection on a sample of first lines
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

#endif
