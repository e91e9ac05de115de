/*
 * cli_progress.c - the progress line of every program that reads logs:
 * on stderr, only when it is a terminal and the reading has lasted a
 * second; rewritten at most 4 times a second, erased before the answer.
 *
 *     lbt-triage: 812/2048 MB, 1200000 lines, 95000 lines/s, ETA 14 s
 *
 * Fed by the stream's tick (stream.h: every 256 records, on the reading
 * thread): lines are the stream's; bytes are what every thread of the
 * process has read (rchar of /proc/self/io: parts read on other threads
 * and decompression ahead count, and compressed files count as on disk,
 * as their sizes do); the total is the size of the inputs that are
 * regular files.  The ETA adds to the reading left the finishing phases
 * (the analyses' finish, the report), estimated at a tenth of the
 * reading: measured on lbt-triage over 2 M lines, they take 5-10 %.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli_int.h"

#define SHOW_AFTER_US 1000000
#define EVERY_US 250000

struct lbt_clii_progress {
	const char *name;
	int64_t t0, last;          /* monotonic µs: start, last line written */
	uint64_t total, read0;     /* bytes of the inputs; rchar at the start */
	int shown;
};

static int64_t mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* Bytes the process has read so far (rchar), 0 when it cannot say. */
static uint64_t bytes_read(void)
{
	char buf[256];
	unsigned long long v = 0;
	int fd = open("/proc/self/io", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	if (sscanf(buf, "rchar: %llu", &v) != 1)
		return 0;
	return v;
}

/* Size of path when it is a regular file ("-": stdin redirected from one), else 0. */
static uint64_t size_of(const char *path)
{
	struct stat st;
	int rc = strcmp(path, "-") == 0 ? fstat(STDIN_FILENO, &st) : stat(path, &st);

	return rc == 0 && S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
}

/* The inputs' total size. */
static uint64_t total_of(const lbt_cli *cli)
{
	uint64_t t = 0;

	for (size_t i = 0; i < cli->specs.n; i++)
		for (size_t k = 0; k < cli->specs.v[i].nfiles; k++)
			t += size_of(cli->specs.v[i].files[k]);
	for (int i = 0; i < cli->nargs; i++)
		t += size_of(cli->args[i]);
	if (cli->nargs == 0 && cli->specs.n == 0)
		t += size_of("-");
	return t;
}

/* The tick: rewrite the line when due. */
static void tick(void *ctx, const lbt_stream *s)
{
	struct lbt_clii_progress *p = ctx;
	int64_t now = mono_us(), el = now - p->t0;
	uint64_t lines = lbt_stream_stats(s)->lines, got = bytes_read() - p->read0;
	double secs = (double)el / 1e6;

	if (el < SHOW_AFTER_US || now - p->last < EVERY_US)
		return;
	p->last = now;
	p->shown = 1;
	fprintf(stderr, "\r%s: ", p->name);
	if (p->total > 0)
		fprintf(stderr, "%llu/%llu MB, ", (unsigned long long)(got / 1000000),
		    (unsigned long long)(p->total / 1000000));
	else
		fprintf(stderr, "%llu MB, ", (unsigned long long)(got / 1000000));
	fprintf(stderr, "%llu lines, %.0f lines/s", (unsigned long long)lines,
	    (double)lines / secs);
	if (p->total > got && got > 0) {
		double left = secs * (double)(p->total - got) / (double)got;

		fprintf(stderr, ", ETA %.0f s", left + (secs + left) / 10);
	}
	fputs("\033[K", stderr);
}

void lbt_clii_progress_start(lbt_cli *cli, lbt_stream *s)
{
	struct lbt_clii_progress *p;

	if (cli->progress != NULL || !isatty(STDERR_FILENO) || cli->in.db != NULL ||
	    (p = calloc(1, sizeof *p)) == NULL)
		return;
	p->name = cli->prog->name;
	p->t0 = mono_us();
	p->total = total_of(cli);
	p->read0 = bytes_read();
	cli->progress = p;
	lbt_stream_on_tick(s, tick, p);
}

void lbt_clii_progress_clear(const lbt_cli *cli)
{
	if (cli->progress != NULL && cli->progress->shown) {
		fputs("\r\033[K", stderr);
		cli->progress->shown = 0;
	}
}

void lbt_clii_progress_end(lbt_cli *cli, lbt_stream *s)
{
	if (cli->progress == NULL)
		return;
	if (s != NULL)
		lbt_stream_on_tick(s, NULL, NULL);
	if (cli->progress->shown)
		fputs("\r\033[K", stderr);
	free(cli->progress);
	cli->progress = NULL;
}
