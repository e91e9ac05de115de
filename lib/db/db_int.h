/*
 * db_int.h - what the db_*.c files share and nobody else sees: the table
 * layout (defined once, in db_layout.c), the row and run types, the writer
 * handle, the batch virtual table and the codecs.  Public API:
 * include/lbt/db.h; docs/index-design.md explains the layout.
 *
 * Direction, top down: db_index.c, db_write.c and db_read.c call
 * db_schema.c to open an index; db_schema.c calls db_migrate.c for version
 * 5, which stores through db_run.c like the writer; db_run.c calls
 * db_vtab.c; at the bottom, calling none of the files above them, are
 * db_sql.c (SQLite calls), db_views.c (version 5's SQL), db_codec.c and
 * db_layout.c (the columns, read by all).
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
};

#define LBT_DBI_NDICT 12
extern const struct lbt_dbi_dict lbt_dbi_dicts[LBT_DBI_NDICT];

/* Indices in lbt_dbi_dicts (the order of the caches). */
enum {
	LBT_DBI_D_LB, LBT_DBI_D_FRONTEND, LBT_DBI_D_BACKEND, LBT_DBI_D_SERVER,
	LBT_DBI_D_METHOD, LBT_DBI_D_PATH, LBT_DBI_D_QUERY, LBT_DBI_D_HOST,
	LBT_DBI_D_VERSION, LBT_DBI_D_TERM, LBT_DBI_D_UA, LBT_DBI_D_KEY
};

/*
 * A shape: the values that repeat together, stored once in `shapes` and
 * referenced by each request's shape_id: the file, then the dictionary ids
 * of lbt_dbi_shape_dicts (0 when absent), the clock of the time (0 when
 * the row has none), the status (LBT_DBI_NO_STATUS when absent) and the
 * tier (lbt_tier, 0 when unknown: rows indexed before version 4).
 */
#define LBT_DBI_NSHAPE 7
#define LBT_DBI_NO_STATUS INT64_MIN
extern const int lbt_dbi_shape_dicts[LBT_DBI_NSHAPE];

struct lbt_dbi_shape {
	int64_t file_id;
	int64_t id[LBT_DBI_NSHAPE];
	int64_t clock;
	int64_t status;
	int64_t tier;
};

/*
 * The id columns of a request after shape_id, in table order: the client
 * address, then dictionaries (lbt_dbi_id_dicts: -1 for the address).
 */
enum { LBT_DBI_I_ADDR, LBT_DBI_I_PATH, LBT_DBI_I_KEY, LBT_DBI_I_HOST, LBT_DBI_I_UA,
	LBT_DBI_I_QUERY, LBT_DBI_NID };
extern const int lbt_dbi_id_dicts[LBT_DBI_NID];

/*
 * The numbers of a request, a column of blocks each: port, the timers and
 * the counters (lbt_dbi_nums).
 */
#define LBT_DBI_NNUM 17
struct lbt_dbi_num {
	lbt_field field;
	const char *name;       /* its column in blocks, requests_v and version 3 */
};
extern const struct lbt_dbi_num lbt_dbi_nums[LBT_DBI_NNUM];

/*
 * Requests are stored in blocks of up to LBT_DBI_BLOCK (db_run.c), a text
 * column per field (db_codec.c), in this order: time, line, shape, the
 * LBT_DBI_NID ids, bytes, then the numbers of lbt_dbi_nums.
 */
#define LBT_DBI_BLOCK 64
enum { LBT_DBI_C_TIME, LBT_DBI_C_LINE, LBT_DBI_C_SHAPE, LBT_DBI_C_IDS,
	LBT_DBI_C_BYTES = LBT_DBI_C_IDS + LBT_DBI_NID, LBT_DBI_C_NUMS,
	LBT_DBI_NCOL = LBT_DBI_C_NUMS + LBT_DBI_NNUM };

/* The name of block column c (and of the view's column, except the ids). */
extern const char *const lbt_dbi_col_names[LBT_DBI_NCOL];

/* Columns of `blocks` before the texts: id first n t0 t1 tunit line0 widths. */
#define LBT_DBI_BLOCK_HEAD 8

/*
 * A request with every id resolved (lbt_dbi_build, on the reading
 * thread): what a row of `requests` holds, before encoding, plus the
 * network of its address (for the run's list, not stored in the row).
 */
struct lbt_dbi_row {
	int64_t time;                 /* relative to the time base; valid when timed */
	uint64_t line;
	int64_t shape;
	int64_t id[LBT_DBI_NID];      /* 0: NULL */
	int64_t net;                  /* 0: no address */
	int64_t bytes;                /* valid when has_bytes */
	int32_t num[LBT_DBI_NNUM];
	uint32_t num_have;            /* bit k: num[k] present */
	uint8_t timed, has_bytes;
	uint8_t clock;                /* of the time (the shape's), for the run's */
};

/* An event line (HAProxy's own: server DOWN...): time clock line and ids. */
struct lbt_dbi_event {
	int64_t time;                 /* relative; valid when timed */
	int clock, timed;
	uint64_t line;
	int64_t id[4];                /* lb frontend backend server; 0 NULL */
};

/* What kind of entry the row builder created (struct lbt_dbi_new). */
enum lbt_dbi_new_kind {
	LBT_DBI_NEW_DICT,        /* a dictionary string: dict, id, text */
	LBT_DBI_NEW_ADDR,        /* an address: id, x = net_id, text */
	LBT_DBI_NEW_NET,         /* a grouping network: id, x = bits, b, text */
	LBT_DBI_NEW_SHAPE,       /* a shape: id, shape */
	LBT_DBI_NEW_BASE         /* the time base of the index: id = the base */
};

/* An entry the writer inserts in the transaction of the rows that use it. */
struct lbt_dbi_new {
	enum lbt_dbi_new_kind kind;
	int dict;
	int64_t id, x;
	struct lbt_dbi_shape shape;
	uint8_t b[16];
	size_t off, len;         /* text in the list's arena */
};

/* The entries created while building a batch of rows, and their texts. */
struct lbt_dbi_news {
	struct lbt_dbi_new *v;
	size_t n, cap;
	char *text;
	size_t text_n, text_cap;
};

/* ---- SQLite calls (db_sql.c; lbt_dbi_prepare below the writer handle) ---- */

/* Run statements without results.  @return 0 or -1 with err (file named). */
int lbt_dbi_exec(sqlite3 *h, const char *path, const char *sql, lbt_err *err);

/* Fill err with sqlite's message for h, prefixed by `what`.  @return -1 */
int lbt_dbi_fail(sqlite3 *h, const char *path, const char *what, lbt_err *err);

/* ---- the schema (db_schema.c) ------------------------------------------ */

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

/* CREATE INDEX IF NOT EXISTS for the query indices.  @return 0 or -1 */
int lbt_dbi_create_indices(sqlite3 *h, const char *path, lbt_err *err);

/* ---- version 5's SQL (db_views.c) --------------------------------------- */

/* The SQL of version 5's views (db_views.c), malloc'ed, or NULL when out of memory. */
char *lbt_dbi_views_sql(void);

/*
 * The SQL of the tables of version 5 (db_views.c), malloc'ed, or NULL when
 * out of memory.
 */
char *lbt_dbi_tables5_sql(void);

/* ---- codecs (db_codec.c) ----------------------------------------------- */

/* Characters a value may take in a column of a block (db_codec.c). */
#define LBT_DBI_MAX_WIDTH 4

/* Largest value of one character (its code point 3 more, below the surrogates). */
#define LBT_DBI_CHAR_MAX 55292

/* Bytes a column of a block may take: 3 per character. */
#define LBT_DBI_COL_BYTES (3 * LBT_DBI_MAX_WIDTH * LBT_DBI_BLOCK)

/*
 * Encode v[0..n) (present[i] false: absent) as a column of a block into
 * out (LBT_DBI_COL_BYTES at least); *width gets the characters a value
 * takes.  @return the bytes written (0: every value absent), or -1 when a
 * value is beyond +-2^59.
 */
long lbt_dbi_col_encode(const int64_t *v, const uint8_t *present, size_t n, int *width,
    uint8_t *out);

/*
 * Decode the column s[0..len) of n values of `width` characters into v
 * and present (an empty or NULL s: every value absent).  @return 0, or -1
 * when s is not such a column.
 */
int lbt_dbi_col_decode(const uint8_t *s, size_t len, int width, size_t n, int64_t *v,
    uint8_t *present);

/* A growing byte buffer (id lists). */
struct lbt_dbi_buf {
	uint8_t *p;
	size_t n, cap;
};

/*
 * Sort v[0..n) and encode its distinct values as a list: ascending
 * LEB128 deltas (the first from 0) into b (emptied first).  v is
 * scratch, `tmp` must hold n values.  @return 0 or -1 (out of memory).
 */
int lbt_dbi_list_encode(uint64_t *v, uint64_t *tmp, size_t n, struct lbt_dbi_buf *b);

/*
 * Whether the list p[0..n) shares a value with the ascending array
 * want[0..nw).  @return 1 yes, 0 no, -1 when p is not a list.
 */
int lbt_dbi_list_meets(const uint8_t *p, size_t n, const int64_t *want, size_t nw);

/*
 * Sort the pairs (key[i], i) for i < n by key, stably, into order[0..n):
 * an LSD radix sort (the rows of a run are nearly in time order, but a
 * request held for minutes is logged minutes late).  tmp and tkey are
 * scratch of n entries; order and tmp may be NULL (keys alone).
 */
void lbt_dbi_sort_keys(uint64_t *key, uint32_t *order, uint64_t *tkey, uint32_t *tmp,
    size_t n);

/* ---- the batch virtual table (db_vtab.c) --------------------------------- */

/*
 * Rows handed to one INSERT ... SELECT FROM lbt_batch(?1): SQLite's fixed
 * cost per statement execution is paid once per batch, not per row.
 * `column` puts value col of row i into out (sqlite3_result_*), or leaves
 * it NULL.
 */
struct lbt_dbi_vbatch {
	size_t n;
	void *ctx;
	void (*column)(void *ctx, size_t i, int col, sqlite3_context *out);
};

/* Columns c0..c39 of lbt_batch. */
#define LBT_DBI_VCOLS 40

/* Register the lbt_batch module on h.  @return 0 or -1 with err. */
int lbt_dbi_vtab_register(sqlite3 *h, const char *path, lbt_err *err);

/* Bind b as ?1 of st (an INSERT ... FROM lbt_batch(?1)), step, reset.
 * @return 0 or -1 with err. */
int lbt_dbi_vtab_insert(sqlite3 *h, const char *path, sqlite3_stmt *st,
    struct lbt_dbi_vbatch *b, lbt_err *err);

/* ---- the writer --------------------------------------------------------- */

/* A string→id cache over one dictionary table (ids given out by lbt_dbi_build). */
struct lbt_dbi_cache {
	lbt_hmap *map;           /* bytes -> struct { id, key } */
	int64_t next_id;
	sqlite3_stmt *ins;       /* INSERT INTO table ... FROM lbt_batch */
	const char *last;        /* the map's copy of the last key looked up */
	size_t last_n;
	int64_t last_id;
};

/* The raw-line codec (db_raw.c): a zstd dictionary trained on first lines. */
typedef struct lbt_dbi_raw lbt_dbi_raw;

/* A block of a run being stored (db_run.c): its head and its column texts. */
struct lbt_dbi_blk {
	int64_t first, n;             /* id of its first request, requests */
	int64_t t0, t1, tunit;        /* time range (relative), unit of the time column */
	int timed;                    /* t0, t1 valid */
	int64_t line0;
	uint64_t widths;              /* 2 bits a column: characters a value - 1 */
	size_t off[LBT_DBI_NCOL];     /* column texts in the run's arena */
	uint32_t len[LBT_DBI_NCOL];
};

/*
 * The run being assembled (db_run.c): requests of one file in the order
 * read, stored sorted by (time, line) in blocks with consecutive ids when
 * full or at a commit, with a row of `runs` that says what it holds.
 */
struct lbt_dbi_run {
	int64_t file_id;
	struct lbt_dbi_row *rows;
	size_t n;
	uint32_t *order, *otmp;       /* sort order and scratch */
	uint64_t *key, *ktmp;
	struct lbt_dbi_buf lists[3];  /* shapes keys nets */
	struct lbt_dbi_blk *blk;      /* its blocks */
	size_t nblk;
	struct lbt_dbi_buf text;      /* their column texts */
};

/* Rows of a run at most (the writer's sort buffer). */
#define LBT_DBI_RUN_ROWS 16384

/*
 * Where runs go (db_run.c): a connection with lbt_batch registered, its
 * INSERTs, and the ids of the next request and block (0: read them from
 * the index).  The writer has one; so has the migration to version 5.
 */
struct lbt_dbi_store {
	sqlite3 *h;
	const char *path;
	sqlite3_stmt *ins_blocks, *ins_run;
	int64_t next_req, next_block;
	struct lbt_dbi_run run;
};

/*
 * lbt_dbi_store_init prepares the INSERTs and allocates the run (0, or -1
 * with err); lbt_dbi_store_free frees them (a zeroed store accepted).
 * lbt_dbi_run_add appends a row of file_id, storing the run first when it
 * is full or of another file; lbt_dbi_run_flush stores the run (nothing
 * when empty); both @return 0 or -1 with err.  lbt_dbi_run_drop forgets
 * the run and the next ids (the transaction was rolled back).
 */
int lbt_dbi_store_init(struct lbt_dbi_store *st, sqlite3 *h, const char *path, lbt_err *err);
void lbt_dbi_store_free(struct lbt_dbi_store *st);
int lbt_dbi_run_add(struct lbt_dbi_store *st, int64_t file_id, const struct lbt_dbi_row *row,
    lbt_err *err);
int lbt_dbi_run_flush(struct lbt_dbi_store *st, lbt_err *err);
void lbt_dbi_run_drop(struct lbt_dbi_store *st);

/* The migration of a version-4 index to version 5 (db_migrate.c).  @return 0 or -1 */
int lbt_dbi_migrate5(sqlite3 *h, const char *path, lbt_err *err);

/* The writer handle (lbt_db). */
struct lbt_db {
	sqlite3 *h;
	char *path;
	lbt_db_opts opts;
	int broken;                      /* a statement failed: refuse more work */
	int lock_fd;                     /* flock'ed for the run: one writer at a time */
	/* The caches below give ids out (lbt_dbi_build, on the writer's thread). */
	struct lbt_dbi_cache dict[LBT_DBI_NDICT];
	lbt_hmap *addrs;                 /* 16 bytes -> struct { addr_id, net_id } */
	lbt_hmap *nets;                  /* 16 bytes -> net_id */
	lbt_hmap *shapes;                /* struct lbt_dbi_shape -> shape id */
	int64_t next_addr, next_net, next_shape;
	struct lbt_dbi_shape last_shape; /* the previous row's, and its id */
	int64_t last_shape_id;
	int64_t time_base;               /* valid when have_base */
	int have_base;
	struct lbt_dbi_store store;      /* the runs of requests */
	lbt_netgroup group;
	sqlite3_stmt *ins_shape, *ins_addr, *ins_net, *ins_ev, *ins_raw;
	lbt_dbi_raw *raw;                /* NULL without keep_raw */
	struct lbt_dbi_news news;        /* entries given out for a batch */
	int in_txn;
	size_t str_off[LBT_DBI_NDICT];   /* offset in lbt_rec of each dictionary field */
	size_t num_off[LBT_DBI_NNUM];    /* ... of each lbt_dbi_nums member */
};

/* Prepare sql on db's handle (persistent) into *st (db_sql.c).  @return 0 or
 * -1 with err. */
int lbt_dbi_prepare(lbt_db *db, const char *sql, sqlite3_stmt **st, lbt_err *err);

/*
 * The id caches (db_dict.c): lbt_dbi_load_caches fills db->str_off and
 * num_off, loads the dictionary, address, network and shape tables into
 * db's caches and prepares the dictionary INSERTs.  @return 0 or -1 with
 * err.  lbt_dbi_free_caches frees them (also after a failed load).
 */
int lbt_dbi_load_caches(lbt_db *db, lbt_err *err);
void lbt_dbi_free_caches(lbt_db *db);

/*
 * Begin / commit (the run being assembled first) / roll back (the run and
 * cached state of the batch dropped) the writer's transaction.
 * @return 0 or -1 with err; rollback returns nothing.
 */
int lbt_dbi_begin(lbt_db *db, lbt_err *err);
int lbt_dbi_commit(lbt_db *db, lbt_err *err);
void lbt_dbi_rollback(lbt_db *db);

/*
 * Rows are built (db_dict.c) and stored (db_write.c, db_run.c) on the
 * writer's thread, a batch of records at a time:
 *
 * lbt_dbi_load_base (writer, before a load): read the time base if it is
 * not known (after a rollback).  @return 0 or -1 with err.
 *
 * lbt_dbi_build / lbt_dbi_build_event: the row of request
 * (or event) rec of file_id, with ids from the caches; ids given out for
 * the first time are appended to `news`.  @return 0 or -1 (out of memory).
 *
 * lbt_dbi_store_news (writer): insert the entries of news, a statement per
 * table.  @return 0 or -1 with err (db broken).
 *
 * lbt_dbi_store / lbt_dbi_store_event (writer): add a request to the run
 * (stored when the run is full), or insert an event (with msg), and the
 * raw line (`raw` non-NULL with --keep-raw).  @return 0 or -1 with err
 * (db broken).
 */
int lbt_dbi_load_base(lbt_db *db, lbt_err *err);
int lbt_dbi_build(lbt_db *db, int64_t file_id, const lbt_rec *rec, struct lbt_dbi_row *row,
    struct lbt_dbi_news *news);
int lbt_dbi_build_event(lbt_db *db, const lbt_rec *rec, struct lbt_dbi_event *ev,
    struct lbt_dbi_news *news);
int lbt_dbi_store_news(lbt_db *db, const struct lbt_dbi_news *news, lbt_err *err);
int lbt_dbi_store(lbt_db *db, int64_t file_id, const struct lbt_dbi_row *row,
    const char *raw, size_t raw_len, lbt_err *err);
int lbt_dbi_store_event(lbt_db *db, int64_t file_id, const struct lbt_dbi_event *ev,
    lbt_str msg, const char *raw, size_t raw_len, lbt_err *err);

/* Empty / free a news list (NULL accepted by free). */
void lbt_dbi_news_clear(struct lbt_dbi_news *n);
void lbt_dbi_news_free(struct lbt_dbi_news *n);

/* ---- raw lines (db_raw.c) ------------------------------------------------ */

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

/* ---- lbt-index's reading thread (db_pipe.c) ------------------------------ */

/*
 * The two-thread reader of lbt-index: a thread runs lbt_input_next on
 * `in` and copies the records into batches; the caller takes them with
 * lbt_dbi_pipe_next and builds their rows (ids of file_id) with
 * lbt_dbi_pipe_build.  `tick` (may be NULL) is called on the reading
 * thread after each batch, for progress.
 */
typedef struct lbt_dbi_pipe lbt_dbi_pipe;

/*
 * The content fingerprint of a file (files.content, db_index.c): its
 * first LBT_DBI_CONTENT_RECORDS requests (time, client, port, method,
 * path, status) folded into two FNV-1a lanes, then their count.  The
 * same whether a file is read for it alone or streamed (the pipe folds
 * the requests it reads: standard input cannot be read twice).
 */
#define LBT_DBI_CONTENT_RECORDS 64
#define LBT_DBI_CONTENT_BYTES 16
struct lbt_dbi_content {
	uint64_t h[2];
	int n;                  /* requests folded */
};
void lbt_dbi_content_init(struct lbt_dbi_content *c);
void lbt_dbi_content_add(struct lbt_dbi_content *c, const lbt_rec *r);   /* up to the 64th */
void lbt_dbi_content_end(const struct lbt_dbi_content *c, unsigned char out[LBT_DBI_CONTENT_BYTES]);

/* What lbt_dbi_pipe_next says about the batch it took; zero it before the first call. */
typedef struct lbt_dbi_batch {
	size_t n;               /* records in it */
	int ended;              /* the input ended after them */
	int failed;             /* ... with an error (err filled) */
	int taken;              /* internal: a batch is held */
	struct lbt_dbi_content content;   /* of the requests read up to its end */
} lbt_dbi_batch;

/* Start the reading thread.  @return the pipe, or NULL with err. */
lbt_dbi_pipe *lbt_dbi_pipe_start(lbt_input *in, lbt_db *db, int64_t file_id,
    void (*tick)(void *), void *tick_ctx, lbt_err *err);

/*
 * Give back the batch taken before and take the next one (blocking).
 * @return 1 a batch (records 0..n-1 through lbt_dbi_pipe_build, then
 * lbt_dbi_pipe_item), 0 after the last one.
 */
int lbt_dbi_pipe_next(lbt_dbi_pipe *p, lbt_dbi_batch *b, lbt_err *err);

/*
 * Build the rows of every record of the batch taken (lbt_dbi_build, with
 * db's caches), the entries they give out for the first time into news
 * (emptied first).  @return 0 or -1 (out of memory).
 */
int lbt_dbi_pipe_build(lbt_dbi_pipe *p, struct lbt_dbi_news *news);

/* Record i of the batch taken, built: its row (or event), line number, msg, raw line. */
struct lbt_dbi_item {
	const struct lbt_dbi_row *row;     /* a request, or NULL */
	const struct lbt_dbi_event *ev;    /* an event, or NULL */
	uint64_t line;
	lbt_str msg;             /* events */
	const char *raw;         /* NULL when not kept */
	size_t raw_len;
};

void lbt_dbi_pipe_item(lbt_dbi_pipe *p, size_t i, struct lbt_dbi_item *it);

/* Stop the reading thread (at its next batch) and free everything; NULL accepted. */
void lbt_dbi_pipe_stop(lbt_dbi_pipe *p);

/* ---- reading (db_query.c, db_merge.c, db_read.c) ------------------------- */

/* A dictionary table in memory: id -> bytes (db_load.c). */
struct lbt_dbi_strs {
	char *text;
	size_t *off, *len;     /* indexed by id; len SIZE_MAX for no such id */
	int64_t n;             /* ids 0..n-1 */
	size_t text_n, text_cap;
};

/*
 * What the reader pushes into SQL and uses to skip runs, resolved once from
 * the filter options: the ids of the keys, networks and shapes that can
 * match (has_* 0: no such option), time bounds relative to the base.
 */
struct lbt_dbi_sel {
	int64_t since, until;          /* relative; INT64_MIN / INT64_MAX when open */
	int has_keys, has_nets, has_shapes;
	int64_t *keys, *nets, *shapes; /* ascending */
	size_t nkeys, nnets, nshapes;
};

/*
 * Resolve the filter options o (absolute bounds since/until, the table's
 * times relative to base) into sel, with the shapes the reader loaded
 * (shapes[0..nshapes), by id; lbs/terms name the dictionary texts, see
 * db_query.c).  @return 0 or -1 with err.
 */
int lbt_dbi_select(sqlite3 *h, const char *path, const lbt_filter_opts *o, int64_t since,
    int64_t until, int64_t base, const struct lbt_dbi_shape *shapes, int64_t nshapes,
    const struct lbt_dbi_strs *dicts, struct lbt_dbi_sel *sel, lbt_err *err);
void lbt_dbi_sel_free(struct lbt_dbi_sel *sel);

/* ---- the tables in memory (db_load.c) ------------------------------------ */

/* Load column col of table into s by id.  @return 0 or -1 with err. */
int lbt_dbi_strs_load(sqlite3 *h, const char *path, struct lbt_dbi_strs *s,
    const char *table, const char *col, lbt_err *err);
void lbt_dbi_strs_free(struct lbt_dbi_strs *s);

/* The addresses by id (*n entries, family 0 for no such id).  @return 0 or -1 */
int lbt_dbi_addrs_load(sqlite3 *h, const char *path, lbt_addr **addrs, int64_t *n,
    lbt_err *err);

/* SELECT of shapes: id, then the columns lbt_dbi_shape_row reads. */
#define LBT_DBI_SHAPE_SELECT "SELECT id, file_id, lb_id, frontend_id, backend_id," \
	" server_id, method_id, version_id, term_id, clock, status, tier FROM shapes"

/* The shape of the current row of a LBT_DBI_SHAPE_SELECT (NULL ids as 0). */
void lbt_dbi_shape_row(sqlite3_stmt *st, struct lbt_dbi_shape *k);

/* The shapes by id (*n entries, file_id 0 for no such id).  @return 0 or -1 */
int lbt_dbi_shapes_load(sqlite3 *h, const char *path, struct lbt_dbi_shape **shapes,
    int64_t *n, lbt_err *err);

/*
 * The query of a run's blocks: "SELECT n t0 tunit line0 widths, then the
 * texts of the columns c with want[c] set, in column order FROM blocks
 * WHERE id BETWEEN ?1 AND ?2" and the selection's time bounds, ordered by
 * id.  @return 0 or -1 with err.
 */
#define LBT_DBI_Q_TEXTS 5
int lbt_dbi_run_query(sqlite3 *h, const char *path, const int want[LBT_DBI_NCOL],
    const struct lbt_dbi_sel *sel, sqlite3_stmt **st, lbt_err *err);

/*
 * The ordered events query (time clock file_id line lb_id frontend_id
 * backend_id server_id msg) for the selection's time bounds and --lb.
 * @return 0 or -1 with err.
 */
int lbt_dbi_events_query(sqlite3 *h, const char *path, const lbt_filter_opts *o,
    const struct lbt_dbi_sel *sel, sqlite3_stmt **st, lbt_err *err);

/* A block read back: the values of its decoded columns (time and line absolute). */
struct lbt_dbi_dblock {
	size_t n;
	int64_t v[LBT_DBI_NCOL][LBT_DBI_BLOCK];
	uint8_t present[LBT_DBI_NCOL][LBT_DBI_BLOCK];
};

/*
 * The requests of the index in (time, file, line) order, merged from the
 * runs that the selection cannot rule out (db_merge.c).
 */
typedef struct lbt_dbi_merge lbt_dbi_merge;

/* A run as the merge sees it. */
struct lbt_dbi_runrow {
	int64_t file_id, first, last;  /* its blocks */
	int untimed;                   /* some rows have no time */
	int has_time;                  /* some rows have one: min_time valid */
	int64_t min_time;              /* relative */
	int clock;                     /* of all its timed rows; -1 mixed or unknown */
};

/* The request the merge is on: row i of a decoded block, its run's file and clock. */
struct lbt_dbi_pos {
	sqlite3_stmt *st;              /* the run's query, on that block */
	struct lbt_dbi_dblock *b;
	size_t i;
	int64_t file_id;
	int64_t first;                 /* first block of the run (orders ties) */
	int clock;                     /* the run's, -1 when its rows differ */
	int has_time;
	int64_t time;                  /* relative, when has_time */
};

/*
 * Load the runs of the index that sel does not rule out.  @return the merge
 * or NULL with err.
 */
lbt_dbi_merge *lbt_dbi_merge_open(sqlite3 *h, const char *path, const struct lbt_dbi_sel *sel,
    lbt_err *err);

/* Whether every run to be read has one clock for all its rows. */
int lbt_dbi_merge_clocks_known(const lbt_dbi_merge *m);

/* The columns to decode (time is always): call before the first next. */
void lbt_dbi_merge_columns(lbt_dbi_merge *m, const int want[LBT_DBI_NCOL]);

/*
 * The next request in order: *pos points into the merge, valid until the
 * next call.  @return 1, 0 at the end, -1 with err.
 */
int lbt_dbi_merge_next(lbt_dbi_merge *m, const struct lbt_dbi_pos **pos, lbt_err *err);

/* Close; NULL accepted. */
void lbt_dbi_merge_close(lbt_dbi_merge *m);

#endif
