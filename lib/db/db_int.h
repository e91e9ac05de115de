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

/*
 * A column of requests after the fixed ones: a dictionary id (dict is the
 * index in lbt_dbi_dicts) or, with dict -1, an integer holding an int32
 * field (or bytes).
 */
struct lbt_dbi_col {
	lbt_field field;
	const char *column;
	int dict;
};

#define LBT_DBI_NDICT 12
#define LBT_DBI_NCOL 25
#define LBT_DBI_NSHAPE 6

extern const struct lbt_dbi_dict lbt_dbi_dicts[LBT_DBI_NDICT];
extern const struct lbt_dbi_col lbt_dbi_cols[LBT_DBI_NCOL];

/*
 * The dictionaries (indices in lbt_dbi_dicts) whose ids live in `shapes`
 * (frontend backend server method version term, then the clock), not in
 * requests: a row holds one shape_id for all of them.
 */
extern const int lbt_dbi_shape_dicts[LBT_DBI_NSHAPE];

/*
 * Column order of `requests` after id, as the writer binds and the reader
 * selects: time (relative to the index's time base) file_id line addr_id
 * net_id shape_id, then lbt_dbi_cols.
 */
#define LBT_DBI_REQ_FIXED 6
#define LBT_DBI_REQ_COLS (LBT_DBI_REQ_FIXED + LBT_DBI_NCOL)

/* Rows bound into one multi-row INSERT (one sqlite3_step for all). */
#define LBT_DBI_ROWS 32

/* The key of a shape: the ids of its dictionaries (0 absent), the clock and
 * the tier (0 absent; version 4). */
struct lbt_dbi_shape {
	int64_t id[LBT_DBI_NSHAPE];
	int64_t clock;
	int64_t tier;
};

/*
 * A row with every id resolved (lbt_dbi_build): a request's values in
 * requests column order after id, or an event's time clock file_id line
 * lb_id frontend_id backend_id server_id (its msg is kept aside); bit c of
 * `null` set when value c is NULL.
 */
struct lbt_dbi_row {
	int64_t v[LBT_DBI_REQ_COLS];
	uint64_t null;
};

/* What kind of entry the row builder created (struct lbt_dbi_new). */
enum lbt_dbi_new_kind {
	LBT_DBI_NEW_DICT,        /* a dictionary string: dict, id, text */
	LBT_DBI_NEW_ADDR,        /* an address: id, x = net_id, b, text */
	LBT_DBI_NEW_NET,         /* a grouping network: id, x = bits, b, text */
	LBT_DBI_NEW_SHAPE,       /* a shape: id, shape */
	LBT_DBI_NEW_BASE         /* the time base of the index: id = the base */
};

/* An entry the writer must insert before the row of record `at` of its batch. */
struct lbt_dbi_new {
	enum lbt_dbi_new_kind kind;
	int dict;
	int64_t id, x;
	struct lbt_dbi_shape shape;
	uint8_t b[16];
	size_t off, len;         /* text in the list's arena */
	size_t at;
};

/* The entries created while building a batch of rows, and their texts. */
struct lbt_dbi_news {
	struct lbt_dbi_new *v;
	size_t n, cap;
	char *text;
	size_t text_n, text_cap;
	size_t at;               /* set by the caller: the record being built */
};

/*
 * The time base of the index at h (meta 'time_base'): *base set and 1,
 * 0 when the index has none yet (*base 0), -1 with err.
 */
int lbt_dbi_time_base(sqlite3 *h, const char *path, int64_t *base, lbt_err *err);

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
 * events (ev 1) matching a superset of filter o, absolute time in [since,
 * until) (INT64_MIN / INT64_MAX when open; the table's times are relative
 * to `base`); request columns of fields not in `wanted` come back NULL.
 * Columns of both queries: 0 time (relative), 1 clock (events) or
 * shape_id (requests), 2 file_id, 3 line; then for events lb_id
 * frontend_id backend_id server_id msg, for requests addr_id and
 * lbt_dbi_cols from LBT_DBI_QCOL.  @return 0 or -1 with err.
 */
int lbt_dbi_query(sqlite3 *h, const char *path, int ev, const lbt_filter_opts *o,
    uint64_t wanted, int64_t since, int64_t until, int64_t base, sqlite3_stmt **st,
    lbt_err *err);

/* Position of lbt_dbi_cols[0] in the requests query. */
#define LBT_DBI_QCOL 5

/* A string→id cache over one dictionary table (ids given out by lbt_dbi_build). */
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
	/* The caches below give ids out; during a load only the reading thread
	 * (lbt_dbi_build) touches them, the writer only inserts what it made. */
	struct lbt_dbi_cache dict[LBT_DBI_NDICT];
	lbt_hmap *addrs;                 /* 16 bytes -> struct { addr_id, net_id } */
	lbt_hmap *nets;                  /* 16 bytes -> net_id */
	lbt_hmap *shapes;                /* struct lbt_dbi_shape -> shape id */
	int64_t next_addr, next_net, next_shape;
	struct lbt_dbi_shape last_shape; /* the previous row's, and its id */
	int64_t last_shape_id;
	int64_t time_base;               /* valid when have_base */
	int have_base;
	struct lbt_dbi_row rows[LBT_DBI_ROWS];   /* buffered requests rows */
	int nrows;
	sqlite3_stmt *ins_reqs;          /* INSERT of LBT_DBI_ROWS rows */
	sqlite3_stmt *ins_shape;
	lbt_netgroup group;
	sqlite3_stmt *ins_req, *ins_ev, *ins_addr, *ins_net, *ins_raw;
	lbt_dbi_raw *raw;                /* NULL without keep_raw */
	int in_txn;
	size_t str_off[LBT_DBI_NDICT];   /* offset in lbt_rec of each dictionary field */
	size_t col_off[LBT_DBI_NCOL];    /* ... of each lbt_dbi_cols member */
};

/* Prepare sql on db's handle (persistent) into *st (db_schema.c).  @return 0 or -1 with err. */
int lbt_dbi_prepare(lbt_db *db, const char *sql, sqlite3_stmt **st, lbt_err *err);

/*
 * The id caches (db_dict.c): lbt_dbi_load_caches fills db->str_off and
 * col_off, loads the dictionary, address, network and shape tables into
 * db's caches and prepares each dictionary's INSERT.  @return 0 or -1 with
 * err.  lbt_dbi_free_caches frees them (also after a failed load).
 */
int lbt_dbi_load_caches(lbt_db *db, lbt_err *err);
void lbt_dbi_free_caches(lbt_db *db);

/*
 * Begin / commit (buffered rows first) / roll back (buffered rows and
 * cached state of the batch dropped) the writer's transaction.
 * @return 0 or -1 with err; rollback returns nothing.
 */
int lbt_dbi_begin(lbt_db *db, lbt_err *err);
int lbt_dbi_commit(lbt_db *db, lbt_err *err);
void lbt_dbi_rollback(lbt_db *db);

/*
 * Rows are built in two steps, so that the id look-ups run on the reading
 * thread (db_dict.c) and only the inserts on the writer's (db_write.c):
 *
 * lbt_dbi_load_base (writer, before a load): read the time base if it is
 * not known (after a rollback).  @return 0 or -1 with err.
 *
 * lbt_dbi_build (reading thread): the row of rec (request or event) of
 * file_id, with ids from the caches; ids given out for the first time are
 * appended to `news` (at = news->at).  @return 0 or -1 (out of memory).
 *
 * lbt_dbi_store_new (writer): insert one entry of news.
 *
 * lbt_dbi_store (writer): add the row of a request (buffered, see
 * LBT_DBI_ROWS) or insert an event (with msg), and its raw line (`raw`
 * non-NULL with --keep-raw).  @return 0 or -1 with err (db broken).
 */
int lbt_dbi_load_base(lbt_db *db, lbt_err *err);
int lbt_dbi_build(lbt_db *db, int64_t file_id, const lbt_rec *rec, struct lbt_dbi_row *row,
    struct lbt_dbi_news *news);
int lbt_dbi_store_new(lbt_db *db, const struct lbt_dbi_news *news, const struct lbt_dbi_new *e,
    lbt_err *err);
int lbt_dbi_store(lbt_db *db, const struct lbt_dbi_row *row, int event, lbt_str msg,
    const char *raw, size_t raw_len, lbt_err *err);

/* Empty / free a news list (NULL accepted by free). */
void lbt_dbi_news_clear(struct lbt_dbi_news *n);
void lbt_dbi_news_free(struct lbt_dbi_news *n);

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
 * lbt_input_next on `in` and builds the rows of file_id (lbt_dbi_build)
 * into batches; the caller takes them with lbt_dbi_pipe_next.  `tick` (may
 * be NULL) is called on the reading thread after each batch, for progress.
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
lbt_dbi_pipe *lbt_dbi_pipe_start(lbt_input *in, lbt_db *db, int64_t file_id,
    void (*tick)(void *), void *tick_ctx, lbt_err *err);

/*
 * Give back the batch taken before and take the next one (blocking).
 * @return 1 a batch (records 0..n-1 through lbt_dbi_pipe_rec), 0 after the
 * last one.
 */
int lbt_dbi_pipe_next(lbt_dbi_pipe *p, lbt_dbi_batch *b, lbt_err *err);

/* Record i of the batch taken: its row, kind, line number, msg, raw line. */
struct lbt_dbi_item {
	const struct lbt_dbi_row *row;
	int event;
	uint64_t line;
	lbt_str msg;             /* events */
	const char *raw;         /* NULL when not kept */
	size_t raw_len;
};

void lbt_dbi_pipe_item(lbt_dbi_pipe *p, size_t i, struct lbt_dbi_item *it);

/* The new entries of the batch taken (insert entry k before item v[k].at). */
const struct lbt_dbi_news *lbt_dbi_pipe_news(lbt_dbi_pipe *p);

/* Stop the reading thread (at its next batch) and free everything; NULL accepted. */
void lbt_dbi_pipe_stop(lbt_dbi_pipe *p);

#endif
