/*
 * stream.h - the record stream of a run: log files read through lbt_input
 * (lib/read/, input.h), or, when opts->db is set, an lbt-index database
 * read through lbt_db_reader (lib/db/, db.h).  Either way the same lbt_rec
 * come out, filtered, so no analysis knows where its records came from.
 * lbt-index reads logs through lbt_input directly.
 *
 *     lbt_stream *s = lbt_stream_open(&opts, paths, npaths, &err);
 *     while ((r = lbt_stream_next(s, &rec, &err)) != 0) {
 *             if (r < 0) { report err; continue; }   // a file failed; others go on
 *             ...use rec...
 *     }
 *     lbt_stream_free(s);
 *
 * Includes: err.h, input.h, rec.h.
 */
#ifndef LBT_STREAM_H
#define LBT_STREAM_H

#include <stddef.h>

#include "lbt/err.h"
#include "lbt/input.h"
#include "lbt/rec.h"

typedef struct lbt_stream lbt_stream;

/*
 * Open the stream of opts (copied; its strings must outlive the stream):
 * the index opts->db (then paths must be empty), or the log files
 * paths[0..npaths) in order ("-" = stdin).
 * @return the stream, or NULL with err (bad option value, an index that
 * cannot be opened, log file operands with --db).
 */
lbt_stream *lbt_stream_open(const lbt_input_opts *opts, char *const *paths, int npaths,
    lbt_err *err);

/*
 * The next record that passes the filters (valid until the next call).
 * @return 1 a record, 0 the end, -1 an error that ended one file (or the
 * index) with err filled: call again to go on with the next file.
 */
int lbt_stream_next(lbt_stream *s, lbt_rec **rec, lbt_err *err);

/* Counters so far (files, lines, records, malformed, failed files...). */
const lbt_input_stats *lbt_stream_stats(const lbt_stream *s);

/*
 * The whole line of the record last returned (syslog wrapper included);
 * from an index, the raw line kept by lbt-index --keep-raw.  Valid until
 * the next call, not NUL-terminated.  @return it, or NULL (*len 0) when
 * there is none.
 */
const char *lbt_stream_line(lbt_stream *s, size_t *len);

/* NULL accepted. */
void lbt_stream_free(lbt_stream *s);

#endif
