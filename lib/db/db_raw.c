/*
 * db_raw.c - original lines kept in the index (lbt-index --keep-raw).
 *
 * Each line is one zstd frame in raw(file_id, line, dict_id, z).  Log lines
 * are short and alike, so a frame on its own compresses badly; with a
 * dictionary trained (ZDICT_trainFromBuffer) on the first lines of the run
 * it shrinks several times.  The first TRAIN_LINES lines are queued, the
 * dictionary is trained on them and stored in raw_dicts, then they and
 * every later line are compressed with it.  A run that finds a dictionary
 * already in the index uses the newest one.  When training fails (too
 * little text) lines are compressed without a dictionary (dict_id NULL).
 */
#include <stdlib.h>
#include <string.h>
#include <zdict.h>
#include <zstd.h>

#include "db_int.h"
#include "lbt/source.h"
#include "lbt/vec.h"

#define TRAIN_LINES 20000
#define DICT_SIZE (32 * 1024)
#define LEVEL 3
#define MAX_DDICTS 16

/* A queued line: where it belongs and where its text is in `text`. */
struct pending {
	int64_t file_id;
	uint64_t line;
	size_t off, len;
};

struct lbt_dbi_raw {
	ZSTD_CCtx *cctx;
	ZSTD_CDict *cdict;
	int64_t dict_id;            /* 0: none */
	int decided;                /* dictionary loaded, trained or given up */
	char *text;                 /* queued lines, back to back */
	size_t text_n, text_cap;
	struct pending *pend;
	size_t npend, pend_cap;
	void *zbuf;                 /* compressed frame */
	size_t zcap;
	ZSTD_DCtx *dctx;
	int64_t ddict_id[MAX_DDICTS];
	ZSTD_DDict *ddict[MAX_DDICTS];
	int nddict;
	char *out;                  /* decompressed line */
	size_t out_cap;
};

/* Make a CDict from dict[0..n) and set it on the compression context. @return 0/-1 */
static int use_dict(lbt_dbi_raw *r, int64_t id, const void *dict, size_t n, lbt_err *err)
{
	r->cdict = ZSTD_createCDict(dict, n, LEVEL);
	if (r->cdict == NULL)
		return lbt_err_set(err, "zstd: cannot load the raw-line dictionary");
	ZSTD_CCtx_refCDict(r->cctx, r->cdict);
	r->dict_id = id;
	r->decided = 1;
	return 0;
}

/* Load the newest dictionary of the index, if any.  @return 0 or -1. */
static int load_newest(lbt_dbi_raw *r, sqlite3 *h, lbt_err *err)
{
	sqlite3_stmt *st = NULL;
	int rc = 0;

	if (sqlite3_prepare_v2(h, "SELECT id, dict FROM raw_dicts ORDER BY id DESC LIMIT 1",
	    -1, &st, NULL) != SQLITE_OK)
		return lbt_dbi_fail(h, NULL, "raw dictionaries", err);
	if (sqlite3_step(st) == SQLITE_ROW)
		rc = use_dict(r, sqlite3_column_int64(st, 0), sqlite3_column_blob(st, 1),
		    (size_t)sqlite3_column_bytes(st, 1), err);
	sqlite3_finalize(st);
	return rc;
}

/*
 * A codec; with h, the newest dictionary of the index is loaded for
 * compression.  @return it, or NULL with err.
 */
lbt_dbi_raw *lbt_dbi_raw_new(sqlite3 *h, lbt_err *err)
{
	lbt_dbi_raw *r = calloc(1, sizeof *r);

	if (r == NULL || (r->cctx = ZSTD_createCCtx()) == NULL ||
	    (r->dctx = ZSTD_createDCtx()) == NULL) {
		lbt_dbi_raw_free(r);
		lbt_err_set(err, "out of memory");
		return NULL;
	}
	ZSTD_CCtx_setParameter(r->cctx, ZSTD_c_compressionLevel, LEVEL);
	ZSTD_CCtx_setParameter(r->cctx, ZSTD_c_dictIDFlag, 0);
	ZSTD_CCtx_setParameter(r->cctx, ZSTD_c_checksumFlag, 0);
	if (h != NULL && load_newest(r, h, err) < 0) {
		lbt_dbi_raw_free(r);
		return NULL;
	}
	return r;
}

/* Free r; NULL accepted. */
void lbt_dbi_raw_free(lbt_dbi_raw *r)
{
	if (r == NULL)
		return;
	ZSTD_freeCCtx(r->cctx);
	ZSTD_freeCDict(r->cdict);
	ZSTD_freeDCtx(r->dctx);
	for (int i = 0; i < r->nddict; i++)
		ZSTD_freeDDict(r->ddict[i]);
	free(r->text);
	free(r->pend);
	free(r->zbuf);
	free(r->out);
	free(r);
}

/* Compress text[0..len) and insert it as (file_id, line).  @return 0 or -1 */
static int store(lbt_dbi_raw *r, sqlite3 *h, sqlite3_stmt *ins, int64_t file_id,
    uint64_t line, const char *text, size_t len, lbt_err *err)
{
	size_t need = ZSTD_compressBound(len), zn;
	int rc;

	if (lbt_grow(&r->zbuf, &r->zcap, need, 1, 1024) < 0)
		return lbt_err_set(err, "out of memory");
	zn = ZSTD_compress2(r->cctx, r->zbuf, r->zcap, text, len);
	if (ZSTD_isError(zn))
		return lbt_err_set(err, "zstd: %s", ZSTD_getErrorName(zn));
	sqlite3_bind_int64(ins, 1, file_id);
	sqlite3_bind_int64(ins, 2, (int64_t)line);
	if (r->dict_id > 0)
		sqlite3_bind_int64(ins, 3, r->dict_id);
	else
		sqlite3_bind_null(ins, 3);
	sqlite3_bind_blob(ins, 4, r->zbuf, (int)zn, SQLITE_STATIC);
	rc = sqlite3_step(ins);
	sqlite3_reset(ins);
	return rc == SQLITE_DONE ? 0 : lbt_dbi_fail(h, NULL, "insert raw line", err);
}

/* Train a dictionary on the queued lines and store it.  @return 0 or -1 */
static int train(lbt_dbi_raw *r, sqlite3 *h, lbt_err *err)
{
	size_t *sizes = malloc((r->npend + 1) * sizeof *sizes);
	void *dict = malloc(DICT_SIZE);
	size_t dn = 0;
	sqlite3_stmt *st = NULL;
	int rc = -1;

	if (sizes == NULL || dict == NULL) {
		lbt_err_set(err, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < r->npend; i++)
		sizes[i] = r->pend[i].len;
	dn = ZDICT_trainFromBuffer(dict, DICT_SIZE, r->text, sizes, (unsigned)r->npend);
	r->decided = 1;
	if (ZDICT_isError(dn) || dn == 0) {
		rc = 0;                 /* too little text: no dictionary */
		goto out;
	}
	if (sqlite3_prepare_v2(h, "INSERT INTO raw_dicts (dict) VALUES (?)", -1, &st,
	    NULL) != SQLITE_OK)
		goto fail;
	sqlite3_bind_blob(st, 1, dict, (int)dn, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE)
		goto fail;
	rc = use_dict(r, sqlite3_last_insert_rowid(h), dict, dn, err);
	goto out;
fail:
	lbt_dbi_fail(h, NULL, "store raw dictionary", err);
out:
	sqlite3_finalize(st);
	free(sizes);
	free(dict);
	return rc;
}

/* Store the queued lines, training the dictionary first if none.  @return 0 or -1 */
int lbt_dbi_raw_flush(lbt_dbi_raw *r, sqlite3 *h, sqlite3_stmt *ins, lbt_err *err)
{
	if (r->npend == 0)
		return 0;
	if (!r->decided && train(r, h, err) < 0)
		return -1;
	for (size_t i = 0; i < r->npend; i++) {
		struct pending *p = &r->pend[i];

		if (store(r, h, ins, p->file_id, p->line, r->text + p->off, p->len, err) < 0)
			return -1;
	}
	r->npend = 0;
	r->text_n = 0;
	return 0;
}

/*
 * Store the raw line of (file_id, line), or queue it while the first
 * TRAIN_LINES lines are collected for training.  @return 0 or -1 with err.
 */
int lbt_dbi_raw_add(lbt_dbi_raw *r, sqlite3 *h, sqlite3_stmt *ins, int64_t file_id,
    uint64_t line, const char *text, size_t len, lbt_err *err)
{
	struct pending *p;

	if (r->decided)
		return store(r, h, ins, file_id, line, text, len, err);
	if (LBT_GROW(r->text, r->text_cap, r->text_n + len, 1024) < 0 ||
	    LBT_GROW(r->pend, r->pend_cap, r->npend + 1, 1024) < 0)
		return lbt_err_set(err, "out of memory");
	p = &r->pend[r->npend++];
	*p = (struct pending){ file_id, line, r->text_n, len };
	if (len > 0)
		memcpy(r->text + r->text_n, text, len);
	r->text_n += len;
	if (r->npend >= TRAIN_LINES)
		return lbt_dbi_raw_flush(r, h, ins, err);
	return 0;
}

/* The DDict of dictionary id (loaded from raw_dicts once). @return it or NULL */
static ZSTD_DDict *ddict_get(lbt_dbi_raw *r, sqlite3 *h, int64_t id, lbt_err *err)
{
	sqlite3_stmt *st = NULL;
	ZSTD_DDict *d = NULL;

	for (int i = 0; i < r->nddict; i++)
		if (r->ddict_id[i] == id)
			return r->ddict[i];
	if (r->nddict == MAX_DDICTS) {
		lbt_err_set(err, "too many raw-line dictionaries");
		return NULL;
	}
	if (sqlite3_prepare_v2(h, "SELECT dict FROM raw_dicts WHERE id = ?", -1, &st,
	    NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, id);
		if (sqlite3_step(st) == SQLITE_ROW)
			d = ZSTD_createDDict(sqlite3_column_blob(st, 0),
			    (size_t)sqlite3_column_bytes(st, 0));
	}
	sqlite3_finalize(st);
	if (d == NULL) {
		lbt_err_set(err, "raw-line dictionary %lld is missing", (long long)id);
		return NULL;
	}
	r->ddict_id[r->nddict] = id;
	r->ddict[r->nddict++] = d;
	return d;
}

/*
 * Decompress frame z[0..zn) (dictionary dict_id, 0 = none) into r's
 * buffer: *out, *outn.  @return 0 or -1 with err (corrupt or missing data).
 */
int lbt_dbi_raw_decode(lbt_dbi_raw *r, sqlite3 *h, int64_t dict_id, const void *z,
    size_t zn, const char **out, size_t *outn, lbt_err *err)
{
	unsigned long long size = ZSTD_getFrameContentSize(z, zn);
	ZSTD_DDict *d = NULL;
	size_t n;

	if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN ||
	    size > 2 * (unsigned long long)LBT_SOURCE_MAX_LINE)
		return lbt_err_set(err, "corrupt raw line in the index");
	if (dict_id > 0 && (d = ddict_get(r, h, dict_id, err)) == NULL)
		return -1;
	if (LBT_GROW(r->out, r->out_cap, (size_t)size + 1, 1024) < 0)
		return lbt_err_set(err, "out of memory");
	n = d ? ZSTD_decompress_usingDDict(r->dctx, r->out, r->out_cap, z, zn, d) :
	    ZSTD_decompressDCtx(r->dctx, r->out, r->out_cap, z, zn);
	if (ZSTD_isError(n))
		return lbt_err_set(err, "corrupt raw line in the index: %s",
		    ZSTD_getErrorName(n));
	*out = r->out;
	*outn = n;
	return 0;
}
