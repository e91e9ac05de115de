/*
 * db_int.h - what the db_*.c files share and nobody else sees: the table
 * layout (defined once, in db_schema.c), the writer handle, and the raw
 * line codec.  Public API: include/lbt/db.h.
 */
#ifndef LBT_DB_INT_H
#define LBT_DB_INT_H

#include <sqlite3.h>
#include <stdint.h>

#include "lbt/db.h"
#include "lbt/err.h"
#include "lbt/filter.h"
#include "lbt/hmap.h"
#include "lbt/input.h"
#include "lbt/netgroup.h"
#include "lbt/rec.h"

/* Bytes of decompressed content kept as a file's fingerprint (files.head). */
#define LBT_DBI_HEAD 4096

/* A dictionary table: one string field of lbt_rec stored as an id. */
struct lbt_dbi_dict {
	lbt_field field;
	const char *table;      /* "paths" */
	const char *column;     /* "path_id" in requests */
};

/* A plain integer column of requests holding an int32 field (or bytes). */
struct lbt_dbi_int {
	lbt_field field;
	const char *column;
};

#define LBT_DBI_NDICT 12
#define LBT_DBI_NINT 19

extern const struct lbt_dbi_dict lbt_dbi_dicts[LBT_DBI_NDICT];
extern const struct lbt_dbi_int lbt_dbi_ints[LBT_DBI_NINT];

/*
 * Column order of `requests` after id, as the writer binds and the reader
 * selects: time clock file_id line addr_id net_id, then the dictionary ids
 * in lbt_dbi_dicts order, then the integers in lbt_dbi_ints order.
 */
#define LBT_DBI_REQ_FIXED 6
#define LBT_DBI_REQ_COLS (LBT_DBI_REQ_FIXED + LBT_DBI_NDICT + LBT_DBI_NINT)

/*
 * Open `path` (flags as sqlite3_open_v2), check that it is an lbt index of
 * a known version and, when writable, create or migrate the schema.
 * @return the handle, or NULL with err naming the file.
 */
sqlite3 *lbt_dbi_open(const char *path, int writable, lbt_err *err);

/* CREATE INDEX IF NOT EXISTS for the query indices (requests_lb only with
 * two LBs or more).  @return 0 or -1 */
int lbt_dbi_create_indices(sqlite3 *h, const char *path, lbt_err *err);

/* Run one statement without results.  @return 0 or -1 with err (file named). */
int lbt_dbi_exec(sqlite3 *h, const char *path, const char *sql, lbt_err *err);

/* Fill err with sqlite's message for h, prefixed by `what`.  @return -1 */
int lbt_dbi_fail(sqlite3 *h, const char *path, const char *what, lbt_err *err);

/*
 * Prepare the ordered query of --db reads (db_query.c): requests (ev 0) or
 * events (ev 1) matching a superset of filter o, time in [since, until)
 * (INT64_MIN / INT64_MAX when open); request columns of fields not in
 * `wanted` come back NULL.  @return 0 or -1 with err.
 */
int lbt_dbi_query(sqlite3 *h, const char *path, int ev, const lbt_filter_opts *o,
    uint64_t wanted, int64_t since, int64_t until, sqlite3_stmt **st, lbt_err *err);

/* A string→id cache over one dictionary table (writer side). */
struct lbt_dbi_cache {
	lbt_hmap *map;           /* bytes -> int64 id */
	int64_t next_id;
	sqlite3_stmt *ins;       /* INSERT INTO table(id, name) VALUES (?, ?) */
	const char *last;        /* the map's copy of the last key looked up */
	size_t last_n;
	int64_t last_id;
};

/* The raw-line codec (db_raw.c): a zstd dictionary trained on first lines. */
typedef struct lbt_dbi_raw lbt_dbi_raw;

/* The writer handle (lbt_db). */
struct lbt_db {
	sqlite3 *h;
	char *path;
	lbt_db_opts opts;
	int broken;                      /* a statement failed: refuse more work */
	int lock_fd;                     /* flock'ed for the run: one writer at a time */
	struct lbt_dbi_cache dict[LBT_DBI_NDICT];
	lbt_hmap *addrs;                 /* 16 bytes -> struct { addr_id, net_id } */
	lbt_hmap *nets;                  /* 16 bytes -> net_id */
	int64_t next_addr, next_net;
	lbt_netgroup group;
	sqlite3_stmt *ins_req, *ins_ev, *ins_addr, *ins_net, *ins_raw;
	lbt_dbi_raw *raw;                /* NULL without keep_raw */
	int in_txn;
	size_t str_off[LBT_DBI_NDICT];   /* offset in lbt_rec of each dictionary field */
	size_t int_off[LBT_DBI_NINT];    /* ... and of each int32 field (bytes: unused) */
};

/* Begin / commit the writer's transaction.  @return 0 or -1 with err. */
int lbt_dbi_begin(lbt_db *db, lbt_err *err);
int lbt_dbi_commit(lbt_db *db, lbt_err *err);

/*
 * Add one record (request or event) of file `file_id`; `line`/`len` is its
 * original text for --keep-raw (ignored otherwise).  @return 0 or -1.
 */
int lbt_dbi_add(lbt_db *db, int64_t file_id, const lbt_rec *rec, const char *line,
    size_t len, lbt_err *err);

/* Raw codec: new (loads the newest dictionary if the DB has one), free. */
lbt_dbi_raw *lbt_dbi_raw_new(sqlite3 *h, lbt_err *err);
void lbt_dbi_raw_free(lbt_dbi_raw *r);

/* Queue or store the raw line of (file_id, line).  @return 0 or -1. */
int lbt_dbi_raw_add(lbt_dbi_raw *r, sqlite3 *h, sqlite3_stmt *ins, int64_t file_id,
    uint64_t line, const char *text, size_t len, lbt_err *err);

/* Store the lines still queued (training the dictionary first).  @return 0 or -1. */
int lbt_dbi_raw_flush(lbt_dbi_raw *r, sqlite3 *h, sqlite3_stmt *ins, lbt_err *err);

/*
 * Decompress z[0..zn) with dictionary dict_id (0 = none) into the reader's
 * buffer.  `dicts` caches loaded dictionaries.  @return 0 or -1.
 */
int lbt_dbi_raw_decode(lbt_dbi_raw *r, sqlite3 *h, int64_t dict_id, const void *z,
    size_t zn, const char **out, size_t *outn, lbt_err *err);

/*
 * The two-thread reader of lbt-index (db_pipe.c): a thread runs
 * lbt_input_next on `in` and copies records into batches; the caller takes
 * them with lbt_dbi_pipe_next.  `tick` (may be NULL) is called on the
 * reading thread after each batch, for progress.
 */
typedef struct lbt_dbi_pipe lbt_dbi_pipe;

/* What lbt_dbi_pipe_next says about the batch it took; zero it before the first call. */
typedef struct lbt_dbi_batch {
	size_t n;               /* records in it */
	int ended;              /* the input ended after them */
	int failed;             /* ... with an error (err filled) */
	int taken;              /* internal: a batch is held */
} lbt_dbi_batch;

/* Start the reading thread.  @return the pipe, or NULL with err. */
lbt_dbi_pipe *lbt_dbi_pipe_start(lbt_input *in, int keep_raw, void (*tick)(void *),
    void *tick_ctx, lbt_err *err);

/*
 * Give back the batch taken before and take the next one (blocking).
 * @return 1 a batch (records 0..n-1 through lbt_dbi_pipe_rec), 0 after the
 * last one.
 */
int lbt_dbi_pipe_next(lbt_dbi_pipe *p, lbt_dbi_batch *b, lbt_err *err);

/* Record i of the batch taken, and its raw line (NULL when not kept). */
const lbt_rec *lbt_dbi_pipe_rec(lbt_dbi_pipe *p, size_t i, const char **line, size_t *len);

/* Stop the reading thread (at its next batch) and free everything; NULL accepted. */
void lbt_dbi_pipe_stop(lbt_dbi_pipe *p);

#endif
