/*
 * db.h - the SQLite index: lbt-index writes it, every program can read
 * records back from it (--db FILE) and gets the same lbt_rec stream as from
 * the raw logs.
 *
 * How lib/run/stream.c uses it: when opts->db is set, lbt_stream_open() calls
 *
 *     lbt_db_reader *r = lbt_db_reader_open(opts->db, opts, err);
 *
 * (NULL with err on failure: missing file, not an lbt index, bad filter),
 * lbt_stream_next() returns lbt_db_reader_next(r, rec, err) (1 record, 0 end,
 * -1 error), and lbt_stream_free() calls lbt_db_reader_close(r).  Records come
 * out in time order (time, file, line; no time first), requests and (when
 * opts->events) events interleaved; they ALREADY pass opts->filter (what of
 * it the index can test first: runs and blocks skipped, bound parameters in
 * SQL; then lbt_filter_match on the reader's own filter), so the caller
 * need not filter them again (doing so is harmless).  rec->file and
 * rec->line are the provenance stored at index time.  When
 * opts->key_regex is set the key is extracted again from the stored path
 * with that pattern, as the raw-log path would.  Raw lines stored with
 * lbt-index --keep-raw: lbt_db_reader_raw() (lbt-cat --db --raw).
 *
 * Only the fields in opts->wanted (plus those the filter reads) are filled;
 * wanted 0 means all.
 *
 * The files, by concern (private header lib/db/db_int.h): db_schema.c (the
 * dictionaries, versions and migrations 1 to 4), db_views.c (version 5's
 * tables and the views that turn blocks into rows), db_migrate.c (4 -> 5),
 * db_codec.c (a block's columns as code points, the runs' id lists, the
 * sort), db_vtab.c (lbt_batch: a batch of rows in one INSERT), db_write.c
 * (connection, transactions, new dictionary entries, events), db_run.c
 * (requests stored as runs of blocks), db_dict.c (id caches and row
 * building), db_raw.c (zstd raw lines), db_index.c (lbt-index's per-file
 * driver: recognising files, resuming, committing), db_pipe.c (its parsing
 * thread), db_query.c (what reads ask of SQLite, bound parameters only),
 * db_merge.c (the runs merged in time order), db_load.c (small tables in
 * memory), db_read.c (the record reader).  man/lbt-index.1 documents the
 * schema and the views; docs/index-design.md what a request costs and why
 * the layout is what it is.
 * Includes: err.h, rec.h, input.h (options only).
 */
#ifndef LBT_DB_H
#define LBT_DB_H

#include <stdint.h>

#include "lbt/err.h"
#include "lbt/input.h"
#include "lbt/rec.h"

/* Schema version written in PRAGMA user_version. */
#define LBT_DB_VERSION 5

/* ---- reading (every program's --db) ---------------------------------- */

typedef struct lbt_db_reader lbt_db_reader;

/*
 * Open the index at `path` read-only and start the query for the records
 * selected by opts: opts->filter (time range, key, src, status, term, lb,
 * bound as SQL parameters), opts->events (also event records),
 * opts->wanted (fields to fill; 0 = all), opts->now_us (anchor of relative
 * times; 0 = now), opts->key_regex.  Other input options are ignored.
 * @return a reader, or NULL with err (file named) when the file is missing,
 * not an lbt index, of a newer schema, or a filter value is bad.
 */
lbt_db_reader *lbt_db_reader_open(const char *path, const lbt_input_opts *opts,
    lbt_err *err);

/*
 * Next record.  *rec points into the reader and stays valid until the next
 * call (strings too).  @return 1 a record, 0 end, -1 error (err filled).
 */
int lbt_db_reader_next(lbt_db_reader *r, lbt_rec **rec, lbt_err *err);

/*
 * The original line of the record last returned, when the index was built
 * with --keep-raw (decompressed into memory owned by the reader, valid until
 * the next call, not NUL-terminated).
 * @return 1 with *line and *len set, 0 when the index holds no raw line for it,
 * -1 on a decompression error (err filled).
 */
int lbt_db_reader_raw(lbt_db_reader *r, const char **line, size_t *len, lbt_err *err);

/*
 * The tiers of the index's requests (shapes.tier, version 4), as a mask of
 * LBT_BIT(tier); LBT_BIT(LBT_TIER_NONE) for requests of no tier (those of
 * an index built before version 4 among them).  For lbt_stream's --tier.
 */
unsigned lbt_db_reader_tiers(lbt_db_reader *r);

/* Close; NULL accepted. */
void lbt_db_reader_close(lbt_db_reader *r);

/* ---- writing (lbt-index) --------------------------------------------- */

typedef struct lbt_db lbt_db;

/* Options of lbt-index. */
typedef struct lbt_db_opts {
	int keep_raw;          /* store each line zstd-compressed (dictionary in the DB) */
	uint64_t batch;        /* rows per transaction; 0 = default (200000) */
} lbt_db_opts;

#define LBT_DB_OPTS_INIT { 0, 0 }

/*
 * Open (creating or migrating) the index at `path` for writing.
 * @return a handle, or NULL with err (file named).
 */
lbt_db *lbt_db_open(const char *path, const lbt_db_opts *opts, lbt_err *err);

/*
 * Create the query indices if missing and close.  @return 0, or -1 with
 * err (the data stays committed either way).  NULL accepted (returns 0).
 */
int lbt_db_close(lbt_db *db, lbt_err *err);

/* What one file (or a whole run) added. */
typedef struct lbt_db_stats {
	uint64_t files;        /* files looked at */
	uint64_t skipped;      /* files already indexed to their end */
	uint64_t lines;        /* lines read (after the resume point) */
	uint64_t records;      /* request rows added */
	uint64_t events;       /* event rows added */
	uint64_t malformed;
	uint64_t duplicates;   /* files left out: the requests of an indexed file */
} lbt_db_stats;

/*
 * Progress report, called at most 4 times a second while a file is read
 * (from lbt-index's reading thread): bytes of the file read so far (as
 * stored: compressed bytes for a compressed file), its size (0 for stdin),
 * lines read in this run.
 */
typedef void (*lbt_db_progress_fn)(void *ctx, const char *file, uint64_t bytes_done,
    uint64_t bytes_total, uint64_t lines);

/*
 * Index one file ("-" = stdin; `name`, when not NULL, replaces the path in
 * provenance) with the input options `in` (format, syslog, --lb-name,
 * diagnostics...; filters and db are ignored).  A file whose first bytes
 * match an indexed file (a rotated or compressed copy, or the same file
 * grown) resumes after the lines already indexed; rows and the new resume
 * point are committed together, batch by batch.  A new file whose first
 * requests are those of an indexed file (the same log under another syslog
 * wrapper or compression) is not stored again.  A stream (stdin, a FIFO)
 * is read once: its fingerprint is taken from its first batch as it is
 * loaded, and when it is an indexed input's, the stream's first lines (as
 * many as that input has) are not stored again: the same lines piped in
 * twice are stored once, and a stream that grew stores its new lines.
 * `st` is added to (its rows once committed).
 * @return 0; 1 when the file was left out as such a duplicate (err names
 * the file it duplicates); 2 when a stream's first lines were left out so
 * (err says which, and what was stored); or -1 with err (the rows
 * committed so far stay, and a rerun resumes from them).
 */
int lbt_db_index_file(lbt_db *db, const char *path, const char *name,
    const lbt_input_opts *in, lbt_db_progress_fn progress, void *progress_ctx,
    lbt_db_stats *st, lbt_err *err);

#endif
