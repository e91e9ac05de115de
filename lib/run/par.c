/*
 * par.c - one run on several threads (lbt_driver_run_par, driver.h).
 *
 * A plain file is cut at line starts into one part per thread.  The main
 * thread opens the file as always (detection, its notes, the first
 * lines) and reads the first part into the program's own accumulators;
 * each other part gets a thread, a stream of its own over its bytes
 * (lbt_stream_part: same options and formats, true line numbers) and
 * empty twins of the accumulators (spawn).  When every part is read, the
 * twins are merged into the program's in file order (merge is exact for
 * a file cut into consecutive runs: docs/analysis-interface.md), the
 * parts' malformed lines are reported and their counters added, in file
 * order, so that the output is the one-thread run's, evidence file:line
 * included.  An error that ends a part ends the file there, as it would
 * have on one thread: the parts after it are dropped.
 *
 * Part k's first line number is the number of lines before it: thread k
 * counts the lines of part k - 1 (memchr over the page cache, a tenth of
 * parsing them) and adds the count of the parts before, published by
 * thread k - 1.
 *
 * Compressed files and pipes are not cut: their source decodes ahead on a
 * thread of its own (lbt_source_read_ahead) while this one parses.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "lbt/source.h"
#include "lbt/vec.h"
#include "run_int.h"

#define MIN_PART (64u * 1024)      /* smaller parts are not worth a thread */
#define MAX_PARTS 64

struct plan;

/* A part read by a thread of its own. */
struct part {
	struct plan *pl;
	size_t k;                  /* its index: bytes cut[k] .. cut[k + 1] */
	lbt_stream *s;
	lbt_analysis *v;           /* the twins of the program's analyses */
	lbt_err *diag;             /* its malformed lines, to report in order */
	size_t ndiag, dcap;
	lbt_err err;               /* what ended it early */
	int failed;                /* 1 a file error (err), 2 set-up failed (err) */
	int64_t fed;               /* records given to the twins */
	pthread_t thread;
	int started;
};

/* A file cut into parts. */
struct plan {
	lbt_stream *s;             /* the main stream, reading part 0 */
	const char *path;
	size_t n;                  /* analyses */
	size_t nparts;
	uint64_t cut[MAX_PARTS + 1];
	uint64_t base[MAX_PARTS];  /* lines before part k, once known[k] */
	int known[MAX_PARTS];
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct part part[MAX_PARTS];
};

/* lbt_input_diag_fn of a part: keep the malformed line to report later. */
static void keep_diag(void *ctx, const lbt_err *e)
{
	struct part *p = ctx;

	if (LBT_GROW(p->diag, p->dcap, p->ndiag + 1, 8) == 0)
		p->diag[p->ndiag++] = *e;
}

/* Publish the lines before part k. */
static void base_publish(struct plan *pl, size_t k, uint64_t base)
{
	pthread_mutex_lock(&pl->mu);
	pl->base[k] = base;
	pl->known[k] = 1;
	pthread_cond_broadcast(&pl->cv);
	pthread_mutex_unlock(&pl->mu);
}

/* @return the lines before part k, once thread k - 1 knows them. */
static uint64_t base_wait(struct plan *pl, size_t k)
{
	uint64_t b;

	pthread_mutex_lock(&pl->mu);
	while (!pl->known[k])
		pthread_cond_wait(&pl->cv, &pl->mu);
	b = pl->base[k];
	pthread_mutex_unlock(&pl->mu);
	return b;
}

/* Number part k's lines: the lines before it.  @return 0, or -1 (p->failed 2) */
static int part_number(struct part *p)
{
	struct plan *pl = p->pl;
	uint64_t n = 0;
	int rc = lbt_source_count_lines(pl->path, pl->cut[p->k - 1], pl->cut[p->k], &n, &p->err);
	uint64_t base = base_wait(pl, p->k - 1) + n;

	base_publish(pl, p->k, base);
	lbt_input_part_lines(lbt_stream_input(p->s), base);
	if (rc < 0)
		p->failed = 2;
	return rc;
}

/* A part's thread: its records through its twins. */
static void *part_main(void *arg)
{
	struct part *p = arg;
	lbt_rec *rec;
	int r;

	if (part_number(p) < 0)
		return NULL;
	while ((r = lbt_stream_next(p->s, &rec, &p->err)) != 0) {
		if (r < 0) {
			p->failed = 1;      /* the file ends here */
			break;
		}
		if (lbt_runi_feed(p->v, p->pl->n, rec) < 0)
			break;          /* sticky: finish reports it after the merge */
		p->fed++;
	}
	return NULL;
}

/* The cuts of a file of `size` bytes read up to `from` already, into pl
 * (line starts, parts of MIN_PART at least).  @return 0 or -1 with err */
static int plan_cuts(struct plan *pl, size_t threads, uint64_t size, uint64_t from,
    lbt_err *err)
{
	uint64_t first = size / threads > from ? size / threads : from, at;

	pl->nparts = 1;
	for (size_t k = 1; k < threads && threads > 1; k++) {
		uint64_t want = first + (k - 1) * ((size - first) / (threads - 1));

		if (lbt_source_line_start(pl->path, want, size, &at, err) < 0)
			return -1;
		if (at - pl->cut[pl->nparts - 1] >= MIN_PART && size - at >= MIN_PART)
			pl->cut[pl->nparts++] = at;
	}
	pl->cut[pl->nparts] = size;
	return 0;
}

/* Spawn part k's twins and start its thread.  @return 0, or -1 with err */
static int part_start(struct plan *pl, size_t k, const lbt_analysis *v, lbt_err *err)
{
	struct part *p = &pl->part[k];

	p->pl = pl;
	p->k = k;
	p->s = lbt_stream_part(pl->s, pl->cut[k], pl->cut[k + 1], 0, keep_diag, p, err);
	if (p->s == NULL)
		return -1;
	if ((p->v = calloc(pl->n, sizeof *p->v)) == NULL)
		return lbt_err_set(err, "out of memory");
	for (size_t i = 0; i < pl->n; i++)
		if (lbt_analysis_spawn(&v[i], &p->v[i], err) < 0)
			return -1;
	if (pthread_create(&p->thread, NULL, part_main, p) != 0)
		return lbt_err_set(err, "cannot start a thread");
	p->started = 1;
	return 0;
}

/* Wait for part p, then (when `use`) report its lines, merge its twins into
 * v, add its counters and its records to *fed.  @return 0, or -1 with err
 * (a merge failed) */
static int part_join(struct plan *pl, struct part *p, lbt_analysis *v, int use,
    lbt_driver_error_fn on_error, void *ctx, int64_t *fed, lbt_err *err)
{
	lbt_input *in = lbt_stream_input(pl->s);
	int rc = 0;

	if (p->started)
		pthread_join(p->thread, NULL);
	for (size_t d = 0; use && d < p->ndiag; d++)
		lbt_input_report(in, &p->diag[d]);
	for (size_t i = 0; i < pl->n && p->v != NULL; i++) {
		if (!use || p->v[i].acc == NULL)
			lbt_analysis_free(&p->v[i]);
		else if (lbt_analysis_merge(&v[i], &p->v[i], err) < 0)
			use = 0, rc = -1;
	}
	if (use && p->s != NULL) {
		lbt_stream_join(pl->s, p->s);
		*fed += p->fed;
	}
	if (use && p->failed && on_error != NULL)
		on_error(ctx, &p->err);
	lbt_stream_free(p->s);
	free(p->v);
	free(p->diag);
	return rc;
}

/* Read the rest of part 0 on this thread, its records counted in *fed.
 * @return 1 when a file error ended it */
static int main_part(lbt_stream *s, lbt_analysis *v, size_t n, lbt_driver_error_fn on_error,
    void *ctx, int *oom, int64_t *fed)
{
	lbt_rec *rec;
	lbt_err ferr;
	int r, failed = 0;

	while ((r = lbt_stream_next(s, &rec, &ferr)) != 0) {
		if (r < 0) {
			failed = 1;
			if (on_error != NULL)
				on_error(ctx, &ferr);
		} else if (!*oom && lbt_runi_feed(v, n, rec) < 0) {
			*oom = 1;
		} else {
			(*fed)++;
		}
	}
	return failed;
}

/* Start the parts of pl after the first, read the first, join them in
 * order, their records counted in *fed.
 * @return 0, or -1 with err (no memory, no thread, a merge failed) */
static int parts_run(struct plan *pl, lbt_analysis *v, lbt_driver_error_fn on_error,
    void *ctx, int *oom, int64_t *fed, lbt_err *err)
{
	int rc = 0, use;
	size_t k;

	for (k = 1; k < pl->nparts && rc == 0; k++)
		rc = part_start(pl, k, v, err);
	if (rc < 0)
		base_publish(pl, k - 1, 0);     /* no thread waits in vain */
	use = rc == 0 && !main_part(pl->s, v, pl->n, on_error, ctx, oom, fed);
	for (k = 1; k < pl->nparts; k++) {
		if (part_join(pl, &pl->part[k], v, use, on_error, ctx, fed, err) < 0)
			rc = -1;
		use = use && rc == 0 && !pl->part[k].failed;
	}
	return rc;
}

/*
 * Read the file s has just opened in parts, when it can be cut and is
 * large enough, its records counted in *fed.  @return 0 (read in parts, or
 * left to the caller to read on), or -1 with err
 */
static int file_in_parts(lbt_stream *s, lbt_analysis *v, size_t n, size_t threads,
    lbt_driver_error_fn on_error, void *ctx, int *oom, int64_t *fed, lbt_err *err)
{
	lbt_input *in = lbt_stream_input(s);
	const char *path;
	uint64_t from, size = lbt_input_cuttable(in, &from, &path);
	struct plan *pl;
	int rc;

	if (size < 2 * MIN_PART)
		return 0;
	if ((pl = calloc(1, sizeof *pl)) == NULL)
		return lbt_err_set(err, "out of memory");
	pl->s = s;
	pl->path = path;
	pl->n = n;
	pl->known[0] = 1;
	pthread_mutex_init(&pl->mu, NULL);
	pthread_cond_init(&pl->cv, NULL);
	rc = plan_cuts(pl, threads < MAX_PARTS ? threads : MAX_PARTS, size, from, err);
	if (rc == 0 && pl->nparts > 1 && lbt_input_cut(in, pl->cut[1]) == 0)
		rc = parts_run(pl, v, on_error, ctx, oom, fed, err);
	pthread_mutex_destroy(&pl->mu);
	pthread_cond_destroy(&pl->cv);
	free(pl);
	return rc;
}

/* Read s through v[0..n) on `threads` threads, then finish each; see
 * driver.h.  @return the records fed, or -1 with err */
int64_t lbt_driver_run_par(lbt_stream *s, lbt_analysis *v, size_t n, int threads,
    lbt_driver_error_fn on_error, void *ctx, lbt_err *err)
{
	lbt_input *in = lbt_stream_input(s);
	int r, oom = 0, rc = 0;
	int64_t fed = 0;
	lbt_rec *rec;
	lbt_err ferr;

	for (size_t i = 0; i < n; i++)
		if (lbt_analysis_order_bound(&v[i]))
			in = NULL;      /* read whole: the decoding thread still helps */
	if (threads <= 1 || in == NULL)
		return lbt_driver_run(s, v, n, on_error, ctx, err);
	lbt_input_pause(in);
	while (rc == 0 && !oom && lbt_input_more(in)) {
		if ((r = lbt_stream_next(s, &rec, &ferr)) == 0)   /* a file opened, or ended */
			rc = file_in_parts(s, v, n, (size_t)threads, on_error, ctx, &oom, &fed, err);
		else if (r < 0 && on_error != NULL)
			on_error(ctx, &ferr);
		else if (r > 0 && !(oom = lbt_runi_feed(v, n, rec) < 0))
			fed++;
	}
	if (rc < 0) {
		lbt_runi_finish(v, n, 1, err);
		return -1;
	}
	return lbt_runi_finish(v, n, 0, err) < 0 ? -1 : fed;
}
