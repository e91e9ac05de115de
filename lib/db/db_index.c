/*
 * db_index.c - lbt-index's per-file driver: recognise a file already seen,
 * resume after the lines already indexed, read records through lbt_input,
 * and commit rows together with the new resume point.
 *
 * A file is recognised by content, not name: files.head keeps the first
 * bytes (up to LBT_DBI_HEAD) of its decompressed text.  A file whose text
 * starts with a stored head is that file, grown, renamed or compressed
 * (rotation); it resumes after the stored line count.  Rows of each batch
 * and the file's new line count are committed in one transaction, so a run
 * killed at any point and run again ends with exactly the rows of one clean
 * run.  A stream (standard input, a FIFO, /dev/fd/N) cannot be read
 * twice, so it is recognised by its --name alone, and read once.
 *
 * The same requests can also come under another wrapper or compression
 * (the raw file of an LB and its syslog copy): their bytes differ, their
 * records do not.  files.content keeps a fingerprint of a file's first
 * LBT_DBI_CONTENT_RECORDS requests (time, client, port, method, path,
 * status); a new file with the fingerprint of an indexed one is not stored
 * again.  A stream's fingerprint is taken as it is loaded, from its first
 * batch, before any row of it is stored (stream_duplicate): the same lines
 * piped in twice are stored once.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "db_int.h"
#include "lbt/source.h"


/* What the files table says about one file. */
struct file_row {
	int64_t id;             /* 0: none */
	int same_path;
	uint64_t lines;
	char format[256];       /* format(s) it was read with, "" when unknown */
};

/* One file being indexed. */
struct job {
	const char *path;       /* to open */
	const char *name;       /* provenance (path when no --name) */
	int stream;             /* stdin, a FIFO, /dev/fd/N: read once, never opened again */
	int named;              /* --name given */
	struct stat st;
	unsigned char head[LBT_DBI_HEAD];
	size_t head_n;
	int64_t file_id;
	uint64_t skip;
	uint64_t last_line;     /* line of the last record added */
	uint64_t pending;       /* rows in the open transaction */
	uint64_t pend_records;  /* ... requests and events among them, counted in */
	uint64_t pend_events;   /* *done once committed (a rollback stores none) */
	lbt_db_stats *done;
	char format[256];       /* format(s) of the part already indexed, "" unknown */
	unsigned char content[LBT_DBI_CONTENT_BYTES]; /* fingerprint of the first requests */
	int has_content;        /* 0: no request read (or a stream, until its first batch) */
	int check_stream;       /* a new stream: check its first batch's fingerprint */
	uint64_t dup_lines;     /* a stream's first lines held already: not stored */
	char dup_of[1024];      /* ... those of this input */
	uint64_t stored;        /* rows of this job stored (dropped ones not counted) */
	double last_tick;
};

/* Monotonic seconds. */
static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * Read the first LBT_DBI_HEAD decompressed bytes of j->path into j->head
 * (lines joined by '\n'; a last line without newline has none).
 * @return 0 or -1 with err (unreadable file).
 */
static int read_head(struct job *j, lbt_err *err)
{
	lbt_source *src = lbt_source_open(j->path, j->name, err);
	const char *line;
	size_t len;
	int rc;

	if (src == NULL)
		return -1;
	j->head_n = 0;
	while (j->head_n < LBT_DBI_HEAD && (rc = lbt_source_next(src, &line, &len, err)) == 1) {
		uint64_t end = lbt_source_offset(src);
		size_t room = LBT_DBI_HEAD - j->head_n, n = len < room ? len : room;

		memcpy(j->head + j->head_n, line, n);
		j->head_n += n;
		if (j->head_n < LBT_DBI_HEAD && end > j->head_n)
			j->head[j->head_n++] = '\n';
	}
	lbt_source_close(src);
	return 0;
}

/*
 * Does the stored head h[0..hn) belong to this job's file?  The file's text
 * must start with it; an empty stored head (an empty file, or stdin) and
 * standard input match by name only, and standard input without --name
 * never matches (two pipes into "-" are different inputs).
 */
static int head_matches(const struct job *j, const void *h, size_t hn, const char *path)
{
	if (j->stream)
		return j->named && strcmp(path, j->name) == 0;
	if (hn == 0)
		return strcmp(path, j->name) == 0;
	return hn <= j->head_n && memcmp(h, j->head, hn) == 0;
}

/*
 * Find the files row this job continues: same name first, then the one
 * indexed furthest.  @return 0 (m->id 0 when none) or -1 with err.
 */
static int find_file(lbt_db *db, const struct job *j, struct file_row *m, lbt_err *err)
{
	sqlite3_stmt *st = NULL;
	int rc;

	memset(m, 0, sizeof *m);
	if (sqlite3_prepare_v2(db->h, "SELECT id, path, head, lines, format FROM files"
	    " ORDER BY id", -1, &st, NULL) != SQLITE_OK)
		return lbt_dbi_fail(db->h, db->path, "files", err);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *path = (const char *)sqlite3_column_text(st, 1);
		uint64_t lines = (uint64_t)sqlite3_column_int64(st, 3);
		int same = strcmp(path, j->name) == 0;

		if (!head_matches(j, sqlite3_column_blob(st, 2),
		    (size_t)sqlite3_column_bytes(st, 2), path))
			continue;
		if (m->id == 0 || (same && !m->same_path) ||
		    (same == m->same_path && lines > m->lines)) {
			const unsigned char *fmt = sqlite3_column_text(st, 4);

			m->id = sqlite3_column_int64(st, 0);
			m->same_path = same;
			m->lines = lines;
			snprintf(m->format, sizeof m->format, "%s", fmt ? (const char *)fmt : "");
		}
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : lbt_dbi_fail(db->h, db->path, "files", err);
}

/* Insert the files row of a file seen for the first time (copy_of m). @return 0/-1 */
static int insert_file(lbt_db *db, struct job *j, const struct file_row *m,
    const char *lb, lbt_err *err)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if (sqlite3_prepare_v2(db->h, "INSERT INTO files (path, dev, ino, size, mtime, head,"
	    " copy_of, lines, lb, indexed, format, content)"
	    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
	    -1, &st, NULL) != SQLITE_OK)
		return lbt_dbi_fail(db->h, db->path, "files", err);
	sqlite3_bind_text(st, 1, j->name, -1, SQLITE_STATIC);
	if (!j->stream) {
		sqlite3_bind_int64(st, 2, (int64_t)j->st.st_dev);
		sqlite3_bind_int64(st, 3, (int64_t)j->st.st_ino);
		sqlite3_bind_int64(st, 4, (int64_t)j->st.st_size);
		sqlite3_bind_int64(st, 5, (int64_t)j->st.st_mtime);
	}
	sqlite3_bind_blob(st, 6, j->head, (int)j->head_n, SQLITE_STATIC);
	if (m->id > 0)
		sqlite3_bind_int64(st, 7, m->id);
	sqlite3_bind_int64(st, 8, (int64_t)m->lines);
	if (lb != NULL)
		sqlite3_bind_text(st, 9, lb, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 10, (int64_t)time(NULL));
	if (m->format[0] != '\0')
		sqlite3_bind_text(st, 11, m->format, -1, SQLITE_STATIC);
	if (j->has_content)
		sqlite3_bind_blob(st, 12, j->content, LBT_DBI_CONTENT_BYTES, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return lbt_dbi_fail(db->h, db->path, "files", err);
	j->file_id = sqlite3_last_insert_rowid(db->h);
	return 0;
}

/*
 * Record that the file is indexed to `lines` (and, at the end of a pass,
 * `offset` decompressed bytes), then commit and, unless `last`, begin the
 * next batch.  @return 0 or -1 with err.
 */
static int checkpoint(lbt_db *db, struct job *j, uint64_t lines, int64_t offset, int last,
    lbt_err *err)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if (sqlite3_prepare_v2(db->h, "UPDATE files SET lines = max(lines, ?), head = ?,"
	    " size = coalesce(?, size), mtime = coalesce(?, mtime), indexed = ?,"
	    " offset = CASE WHEN ? >= 0 THEN ? ELSE offset END,"
	    " format = coalesce(?, format) WHERE id = ?", -1, &st, NULL) != SQLITE_OK)
		return lbt_dbi_fail(db->h, db->path, "files", err);
	sqlite3_bind_int64(st, 1, (int64_t)lines);
	sqlite3_bind_blob(st, 2, j->head, (int)j->head_n, SQLITE_STATIC);
	if (!j->stream) {
		sqlite3_bind_int64(st, 3, (int64_t)j->st.st_size);
		sqlite3_bind_int64(st, 4, (int64_t)j->st.st_mtime);
	}
	sqlite3_bind_int64(st, 5, (int64_t)time(NULL));
	sqlite3_bind_int64(st, 6, offset);
	sqlite3_bind_int64(st, 7, offset);
	if (j->format[0] != '\0')
		sqlite3_bind_text(st, 8, j->format, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 9, j->file_id);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return lbt_dbi_fail(db->h, db->path, "files", err);
	if (lbt_dbi_commit(db, err) < 0)
		return -1;
	j->done->records += j->pend_records;
	j->done->events += j->pend_events;
	j->pending = j->pend_records = j->pend_events = 0;
	return last ? 0 : lbt_dbi_begin(db, err);
}

/* Progress context, used on the reading thread only. */
struct ticker {
	struct job *j;
	lbt_input *in;
	lbt_db_progress_fn fn;
	void *ctx;
};

/* Report progress at most 4 times a second (called on the reading thread). */
static void tick(void *arg)
{
	struct ticker *t = arg;
	const lbt_source *src;
	double now = now_s();

	if (now - t->j->last_tick < 0.25)
		return;
	t->j->last_tick = now;
	src = lbt_input_source(t->in);
	t->fn(t->ctx, t->j->name, src ? lbt_source_raw_offset(src) : 0,
	    t->j->stream ? 0 : (uint64_t)t->j->st.st_size, lbt_input_stats_get(t->in)->lines);
}

/* Add one built row (and its raw line); commit when the batch is full. @return 0/-1 */
static int add_one(lbt_db *db, struct job *j, const struct lbt_dbi_item *it, lbt_err *err)
{
	if (it->line <= j->dup_lines)
		return 0;               /* a line of the indexed input this stream repeats */
	j->stored++;
	if (it->ev != NULL) {
		if (lbt_dbi_store_event(db, j->file_id, it->ev, it->msg, it->raw, it->raw_len,
		    err) < 0)
			return -1;
		j->pend_events++;
	} else {
		if (lbt_dbi_store(db, j->file_id, it->row, it->raw, it->raw_len, err) < 0)
			return -1;
		j->pend_records++;
	}
	j->last_line = it->line;
	if (++j->pending >= db->opts.batch)
		return checkpoint(db, j, j->last_line, -1, 0, err);
	return 0;
}

/*
 * Build the rows of the batch taken, store the entries they gave out
 * (before any of its rows: a commit in the middle of the batch must not
 * leave a row pointing to a missing id), then its rows.  @return 0 or -1
 * with err.
 */
static int add_batch(lbt_db *db, struct job *j, lbt_dbi_pipe *p, size_t n, lbt_err *err)
{
	if (lbt_dbi_pipe_build(p, &db->news) < 0) {
		db->broken = 1;         /* the caches hold ids that may never be stored */
		return lbt_err_set(err, "out of memory");
	}
	if (lbt_dbi_store_news(db, &db->news, err) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		struct lbt_dbi_item it;

		lbt_dbi_pipe_item(p, i, &it);
		if (add_one(db, j, &it, err) < 0)
			return -1;
	}
	return 0;
}

static int find_duplicate(lbt_db *db, const struct job *j, char *dup, size_t size,
    uint64_t *lines, lbt_err *err);

/* Keep the stream's fingerprint in its files row.  @return 0 or -1 with err */
static int store_content(lbt_db *db, const struct job *j, lbt_err *err)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if (sqlite3_prepare_v2(db->h, "UPDATE files SET content = ? WHERE id = ?", -1, &st,
	    NULL) != SQLITE_OK)
		return lbt_dbi_fail(db->h, db->path, "files", err);
	sqlite3_bind_blob(st, 1, j->content, LBT_DBI_CONTENT_BYTES, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, j->file_id);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : lbt_dbi_fail(db->h, db->path, "files", err);
}

/*
 * A new stream (stdin, a FIFO) cannot be read twice, so its fingerprint is
 * the one its first batch was read with (the pipe folds the requests as it
 * reads: 64 of a batch of 4096 records), checked before any of its rows is
 * stored.  The same lines piped in again begin like an indexed input: its
 * first lines (as many as that input's) are taken to be that input's and
 * are not stored again (add_one), as a file that begins like an indexed
 * one resumes after its lines; a stream that grew stores its new lines
 * only.  @return 0 or -1 with err.
 */
static int stream_duplicate(lbt_db *db, struct job *j, const struct lbt_dbi_content *c,
    lbt_err *err)
{
	int r;

	j->check_stream = 0;
	if (c->n == 0)
		return 0;
	lbt_dbi_content_end(c, j->content);
	j->has_content = 1;
	if ((r = find_duplicate(db, j, j->dup_of, sizeof j->dup_of, &j->dup_lines, err)) < 0)
		return -1;
	return store_content(db, j, err);
}

/*
 * After a stream whose first lines were an indexed input's: none stored is
 * a duplicate left out (1), else the lines after them were (2); err says
 * which.  @return 0 when it held no such lines.
 */
static int stream_verdict(const struct job *j, uint64_t lines, lbt_err *err)
{
	if (j->dup_lines == 0)
		return 0;
	if (j->stored == 0) {
		lbt_err_at(err, j->name, 0, "holds the requests of '%s', indexed already (its "
		    "%llu lines): not stored again", j->dup_of, (unsigned long long)j->dup_lines);
		return 1;
	}
	lbt_err_at(err, j->name, 0, "its first %llu lines are those of '%s', indexed already: "
	    "only the %llu lines after them were stored", (unsigned long long)j->dup_lines,
	    j->dup_of, (unsigned long long)(lines - j->dup_lines));
	return 2;
}

/*
 * Read every record of the job's file after j->skip (parsed and turned
 * into rows on a second thread, db_pipe.c) and add it.  @return 0, or -1
 * with err (rows so far are committed by the caller); *input_failed tells
 * an input error (the file) from a database one.
 */
static int load(lbt_db *db, struct job *j, lbt_input *in, lbt_db_progress_fn fn,
    void *ctx, int *input_failed, lbt_err *err)
{
	struct ticker t = { j, in, fn, ctx };
	lbt_dbi_batch b = { 0 };
	lbt_dbi_pipe *p;
	int rc = 0;

	if (lbt_dbi_load_base(db, err) < 0)
		return -1;
	if ((p = lbt_dbi_pipe_start(in, db, j->file_id, fn ? tick : NULL, &t, err)) == NULL)
		return -1;
	while (rc == 0 && lbt_dbi_pipe_next(p, &b, err) == 1) {
		if (j->check_stream && (rc = stream_duplicate(db, j, &b.content, err)) < 0)
			break;
		rc = add_batch(db, j, p, b.n, err);
		if (rc == 0 && b.failed) {
			*input_failed = 1;
			rc = -1;
		}
	}
	lbt_dbi_pipe_stop(p);
	return rc;
}

/*
 * Input options for indexing: everything, events too, no filter, no db,
 * and the input's own line numbers (they are the resume offsets).
 */
static lbt_input_opts index_opts(const lbt_input_opts *in)
{
	lbt_input_opts o = *in;

	o.db = NULL;
	o.own_provenance = 1;
	o.filter = (lbt_filter_opts)LBT_FILTER_OPTS_INIT;
	o.wanted = 0;
	o.events = 1;
	return o;
}

/*
 * The fingerprint of the file's first LBT_DBI_CONTENT_RECORDS requests,
 * read with its own input (the cost of 64 lines).  A file that cannot be
 * read or has no request gets none (the load reports its errors); a
 * stream gets its own while it is loaded (stream_duplicate).
 */
static void content_print(struct job *j, const lbt_input_opts *opts)
{
	lbt_input_opts o = *opts;
	struct lbt_dbi_content c;
	lbt_input *in;
	lbt_rec *rec;
	lbt_err err;

	o.events = 0;
	o.diag = NULL;
	o.wanted = LBT_BIT(LBT_F_TIME) | LBT_BIT(LBT_F_CLIENT) | LBT_BIT(LBT_F_PORT) |
	    LBT_BIT(LBT_F_METHOD) | LBT_BIT(LBT_F_PATH) | LBT_BIT(LBT_F_STATUS);
	j->has_content = 0;
	if (j->stream || (in = lbt_input_new(&o, &err)) == NULL)
		return;
	lbt_input_add(in, j->path);
	lbt_dbi_content_init(&c);
	while (c.n < LBT_DBI_CONTENT_RECORDS && lbt_input_next(in, &rec, &err) == 1)
		lbt_dbi_content_add(&c, rec);
	lbt_input_free(in);
	if (c.n == 0)
		return;
	lbt_dbi_content_end(&c, j->content);
	j->has_content = 1;
}

/*
 * An indexed file other than the job's own with the same content
 * fingerprint: its path into `dup`.  @return 1 found, 0 none, -1 with err.
 */
static int find_duplicate(lbt_db *db, const struct job *j, char *dup, size_t size,
    uint64_t *lines, lbt_err *err)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if (!j->has_content)
		return 0;
	if (sqlite3_prepare_v2(db->h, "SELECT path, lines FROM files WHERE content = ? AND "
	    "id != ? ORDER BY lines DESC, id", -1, &st, NULL) != SQLITE_OK)
		return lbt_dbi_fail(db->h, db->path, "files", err);
	sqlite3_bind_blob(st, 1, j->content, LBT_DBI_CONTENT_BYTES, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, j->file_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		snprintf(dup, size, "%s", (const char *)sqlite3_column_text(st, 0));
		if (lines != NULL)
			*lines = (uint64_t)sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return lbt_dbi_fail(db->h, db->path, "files", err);
	return rc == SQLITE_ROW;
}

/*
 * Recognise the file, create its row if new.  A new file holding the
 * requests of an indexed one is left out.  @return 0, 1 left out (err says
 * why), or -1 with err.
 */
static int prepare_job(lbt_db *db, struct job *j, const lbt_input_opts *o, const char *lb,
    lbt_err *err)
{
	struct file_row m;
	char dup[1024];
	int r;

	if (!j->stream && stat(j->path, &j->st) < 0)
		return lbt_err_at(err, j->name, 0, "%s", strerror(errno));
	if (!j->stream && !S_ISREG(j->st.st_mode) && !S_ISDIR(j->st.st_mode))
		j->stream = 1;          /* a FIFO read as standard input is: once */
	if (!j->stream && read_head(j, err) < 0)
		return -1;
	if (find_file(db, j, &m, err) < 0)
		return -1;
	if (m.id == 0) {
		j->check_stream = j->stream;
		content_print(j, o);
		if ((r = find_duplicate(db, j, dup, sizeof dup, NULL, err)) < 0)
			return -1;
		if (r == 1) {
			lbt_err_at(err, j->name, 0, "holds the requests of '%s', indexed already "
			    "(another wrapper or compression): not stored again", dup);
			return 1;
		}
	}
	if (lbt_dbi_begin(db, err) < 0)
		return -1;
	j->skip = m.lines;
	j->last_line = m.lines;
	memcpy(j->format, m.format, sizeof j->format);
	if (m.id > 0 && m.same_path) {
		j->file_id = m.id;
		return 0;
	}
	return insert_file(db, j, &m, lb, err);
}

/*
 * A resumed file keeps the built-in format it was first read with, unless
 * the user names one: detection on the few new lines of a grown file could
 * otherwise fail (one malformed line) or choose differently.
 */
static lbt_input *job_input(struct job *j, const lbt_input_opts *opts, lbt_err *err)
{
	lbt_input_opts o = *opts;
	lbt_input *in;

	if (j->skip > 0 && j->format[0] != '\0' && !o.format && !o.log_format &&
	    !o.haproxy_cfg && !o.nginx_conf)
		o.format = j->format;
	if ((in = lbt_input_new(&o, err)) != NULL)
		lbt_input_add_at(in, j->path, j->stream ? j->name : NULL, j->skip);
	return in;
}

/* Remember the built-in formats detection chose (after the reading thread
 * ended), as a --format list for a resume. */
static void job_format(struct job *j, const lbt_input *in)
{
	char names[sizeof j->format];

	if (lbt_input_format_names(in, names, sizeof names) != NULL)
		snprintf(j->format, sizeof j->format, "%s", names);
}

/*
 * Forget the files row of a stream that stored no row, and commit: the
 * dictionary entries its batches gave out are in the transaction and in
 * the caches, so they are kept (a rollback would leave the caches with ids
 * that are not stored).  @return 0 or -1 with err.
 */
static int drop_file(lbt_db *db, const struct job *j, lbt_err *err)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if (sqlite3_prepare_v2(db->h, "DELETE FROM files WHERE id = ?", -1, &st, NULL) !=
	    SQLITE_OK)
		return lbt_dbi_fail(db->h, db->path, "files", err);
	sqlite3_bind_int64(st, 1, j->file_id);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return lbt_dbi_fail(db->h, db->path, "files", err);
	return lbt_dbi_commit(db, err);
}

/* Run the job's input to its end and commit.  @return 0, 1 a stream left out
 * as a duplicate, 2 one stored in part (err says why), or -1 with err. */
static int run_job(lbt_db *db, struct job *j, const lbt_input_opts *o,
    lbt_db_progress_fn fn, void *ctx, lbt_db_stats *st, lbt_err *err)
{
	lbt_input *in = job_input(j, o, err);
	const lbt_input_stats *is;
	int failed = 0, rc, verdict = 0;
	lbt_err note;

	if (in == NULL) {
		/* Bad input options: only the files row is undone, caches are intact. */
		lbt_dbi_rollback(db);
		return -1;
	}
	rc = load(db, j, in, fn, ctx, &failed, err);
	is = lbt_input_stats_get(in);
	if (rc == 0 && (verdict = stream_verdict(j, j->skip + is->lines, &note)) == 1) {
		rc = drop_file(db, j, err);
		lbt_input_free(in);
		if (rc == 0)
			*err = note;
		return rc < 0 ? -1 : 1;
	}
	job_format(j, in);
	st->lines += is->lines;
	st->malformed += is->malformed;
	if (is->lines == 0 && j->skip > 0)
		st->skipped++;
	if (rc == 0) {
		/* Read to the end: every line so far is done, malformed ones too. */
		const lbt_source *src = lbt_input_source(in);

		rc = checkpoint(db, j, j->skip + is->lines,
		    src ? (int64_t)lbt_source_offset(src) : -1, 1, err);
		if (rc == 0 && verdict == 2) {
			*err = note;
			rc = 2;
		}
	} else if (failed && !db->broken) {
		lbt_err keep = *err;

		if (checkpoint(db, j, j->last_line, -1, 1, err) == 0)
			*err = keep;
	}
	lbt_input_free(in);
	return rc;
}

/* Index one file; see db.h.  @return 0, 1 left out as a duplicate (err says
 * of what), 2 a stream stored in part (err says what was left out), or -1
 * with err (committed rows stay). */
int lbt_db_index_file(lbt_db *db, const char *path, const char *name,
    const lbt_input_opts *in, lbt_db_progress_fn progress, void *progress_ctx,
    lbt_db_stats *st, lbt_err *err)
{
	struct job *j = calloc(1, sizeof *j);
	lbt_input_opts o = index_opts(in);
	int rc;

	if (j == NULL)
		return lbt_err_set(err, "out of memory");
	lbt_err_clear(err);
	j->path = path;
	j->stream = strcmp(path, "-") == 0;
	j->named = name != NULL;
	j->name = name ? name : j->stream ? "(stdin)" : path;
	j->done = st;
	st->files++;
	rc = prepare_job(db, j, &o, in->lb, err);
	if (rc == 0)
		rc = run_job(db, j, &o, progress, progress_ctx, st, err);
	if (rc == 1)
		st->duplicates++;
	if (rc < 0 && db->in_txn) {
		/* A database error: drop the batch; the caches may hold its ids. */
		lbt_dbi_rollback(db);
		db->broken = 1;
	}
	free(j);
	return rc;
}
