/*
 * check_par.c - a run on several threads (lib/run/par.c, lbt_driver_run_par):
 * a plain file is cut at line starts into one part per thread, each part's
 * twins are merged in file order, the counters are those of one thread.
 *
 * The analysis here is the test's own: it counts records and sums their
 * line numbers (n lines, every one a request: n (n + 1) / 2, by formula),
 * and its merge checks that the part merged in comes after the one it
 * joins (dst's last line + 1 is src's first).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lbt/driver.h"
#include "tmpdir.h"


/* The test's accumulator: what it saw of the line numbers. */
struct lines {
	uint64_t n, sum, first, last;
	int out_of_order;          /* a record or a merged part came before the last */
	int finished;
};

/* Every record carries file and line. */
static uint64_t lines_fields(const void *acc)
{
	(void)acc;
	return LBT_BIT(LBT_F_LINE) | LBT_BIT(LBT_F_TIME);
}

/* Count rec; its line must follow the last.  @return 0 */
static int lines_add(void *acc, const lbt_rec *rec)
{
	struct lines *l = acc;

	if (l->n > 0 && rec->line <= l->last)
		l->out_of_order = 1;
	if (l->n++ == 0)
		l->first = rec->line;
	l->last = rec->line;
	l->sum += rec->line;
	return 0;
}

/* An empty twin.  @return it */
static void *lines_spawn(const void *acc, lbt_err *err)
{
	(void)acc;
	(void)err;
	return calloc(1, sizeof(struct lines));
}

/* Add src (the lines after acc's) to acc.  @return 0 */
static int lines_merge(void *acc, void *src, lbt_err *err)
{
	struct lines *l = acc, *s = src;

	(void)err;
	if (s->n > 0) {
		if (l->n > 0 && s->first != l->last + 1)
			l->out_of_order = 1;
		if (l->n == 0)
			l->first = s->first;
		l->last = s->last;
		l->n += s->n;
		l->sum += s->sum;
		l->out_of_order |= s->out_of_order;
	}
	return 0;                   /* lbt_analysis_merge frees src */
}

/* Mark it finished.  @return 0 */
static int lines_finish(void *acc, lbt_err *err)
{
	(void)err;
	((struct lines *)acc)->finished = 1;
	return 0;
}

static const lbt_analysis_ops lines_ops = {
	.name = "lines", .fields = lines_fields, .add = lines_add, .spawn = lines_spawn,
	.merge = lines_merge, .finish = lines_finish, .free = free
};

/* A fresh temporary directory for the test (tmpdir.h). */
static void setup(void)
{
	tmpdir_make("check_par", 1);
}

/* Remove it. */
static void teardown(void)
{
	tmpdir_remove();
}

/* Write n HAProxy httplog lines (about 150 bytes each) to path. */
static void write_log(const char *path, unsigned n)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	for (unsigned i = 0; i < n; i++)
		fprintf(f, "192.0.2.%u:%u [01/Nov/2025:23:%02u:%02u.%03u] fe_http be_app/app1 "
		    "0/0/1/2/3 200 135 - - ---- 1/1/0/0/0 0/0 \"GET /ping/k%u HTTP/1.1\"\n",
		    1 + i % 250, 1024 + i % 60000, i / 60000 % 60, i / 1000 % 60, i % 1000, i % 7);
	ck_assert_int_eq(fclose(f), 0);
}

/* Run path on `threads` threads into *l, records at or after `since`
 * (NULL: all); @return the parts joined. */
static uint64_t run_since(const char *path, int threads, const char *since, struct lines *l)
{
	lbt_input_opts o = { 0 };
	char *paths[] = { (char *)path };
	lbt_analysis a = { &lines_ops, l };
	lbt_stream *s;
	lbt_err err;
	uint64_t parts;
	int64_t fed;

	memset(l, 0, sizeof *l);
	o.wanted = lbt_analysis_fields(&a, 1);
	o.threads = threads;
	o.max_reported = -1;
	o.filter.since = since;
	s = lbt_stream_open(&o, paths, 1, &err);
	ck_assert_ptr_nonnull(s);
	fed = lbt_driver_run_par(s, &a, 1, threads, NULL, NULL, &err);
	ck_assert_int_ge(fed, 0);
	ck_assert_uint_eq((uint64_t)fed, l->n);      /* every part's records counted once */
	ck_assert_uint_eq(lbt_stream_stats(s)->records - lbt_stream_stats(s)->filtered, l->n);
	ck_assert_uint_eq(lbt_stream_stats(s)->files, 1);
	parts = lbt_stream_stats(s)->parts;
	lbt_stream_free(s);
	return parts;
}

/* run_since every record. */
static uint64_t run(const char *path, int threads, struct lines *l)
{
	return run_since(path, threads, NULL, l);
}

/* Check that l saw lines 1..n in order, and was finished once. */
static void saw_every_line(const struct lines *l, uint64_t n)
{
	ck_assert_uint_eq(l->n, n);
	ck_assert_uint_eq(l->sum, n * (n + 1) / 2);
	ck_assert_uint_eq(l->first, 1);
	ck_assert_uint_eq(l->last, n);
	ck_assert_int_eq(l->out_of_order, 0);
	ck_assert_int_eq(l->finished, 1);
}

START_TEST(file_cut_into_one_part_a_thread)
{
	struct lines l;

	write_log("a.log", 30000);           /* ~4.5 MB */
	ck_assert_uint_eq(run("a.log", 1, &l), 0);
	saw_every_line(&l, 30000);
	ck_assert_uint_eq(run("a.log", 2, &l), 1);
	saw_every_line(&l, 30000);
	ck_assert_uint_eq(run("a.log", 4, &l), 3);
	saw_every_line(&l, 30000);
}
END_TEST

/* A filter that drops the first two thirds (records 20001..30000 pass:
 * 23:00:20 and after): the file is cut when it opens, before any record,
 * and the parts give the records one thread gives. */
START_TEST(file_cut_before_its_first_record)
{
	struct lines l;

	write_log("f.log", 30000);
	ck_assert_uint_eq(run_since("f.log", 2, "2025-11-01T23:00:20Z", &l), 1);
	ck_assert_uint_eq(l.n, 10000);
	ck_assert_uint_eq(l.first, 20001);
	ck_assert_uint_eq(l.last, 30000);
	ck_assert_uint_eq(l.sum, (20001 + 30000) * 10000 / 2);
	ck_assert_int_eq(l.out_of_order, 0);
}
END_TEST

START_TEST(small_file_read_whole)
{
	struct lines l;

	write_log("s.log", 300);             /* 45 KB: less than two parts */
	ck_assert_uint_eq(run("s.log", 2, &l), 0);
	saw_every_line(&l, 300);
}
END_TEST

START_TEST(compressed_file_decoded_ahead)
{
	struct lines l;

	write_log("c.log", 20000);
	ck_assert_int_eq(system("zstd -q c.log -o c.log.zst"), 0);
	ck_assert_uint_eq(run("c.log.zst", 2, &l), 0);   /* not cut: decoded ahead */
	saw_every_line(&l, 20000);
}
END_TEST

/* The suite. */
static Suite *par_suite(void)
{
	Suite *s = suite_create("par");
	TCase *tc = tcase_create("par");

	tcase_set_timeout(tc, 120);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, file_cut_into_one_part_a_thread);
	tcase_add_test(tc, file_cut_before_its_first_record);
	tcase_add_test(tc, small_file_read_whole);
	tcase_add_test(tc, compressed_file_decoded_ahead);
	suite_add_tcase(s, tc);
	return s;
}

/* Run the suite.  @return 0 when every test passed */
int main(void)
{
	SRunner *sr = srunner_create(par_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
