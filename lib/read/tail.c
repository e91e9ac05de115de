/*
 * tail.c - a growing log followed as `tail -F` does (see tail.h).
 *
 * The thread owns the followed file's descriptor, its offset and the
 * unfinished last line; the program's thread owns the pipe's read end.
 * They share the notes (under the mutex), the byte counter and the stop
 * flag (atomics).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lbt/source.h"
#include "lbt/tail.h"

#define TICK_MS 100
#define NOTES 8                        /* notes kept for the program; older ones dropped */
#define CHUNK (256u << 10)
#define MAX_PENDING (2 * LBT_SOURCE_MAX_LINE)   /* an unfinished line longer is passed on
                                                   as it is (the source cuts it) */

struct lbt_tail {
	char *path;
	int stdin_;                        /* following standard input */
	int fd;                            /* the followed file, -1 while missing */
	dev_t dev;
	ino_t ino;
	uint64_t off;                      /* bytes of the current file read */
	int missing_said;
	char *pend;                        /* bytes after the last newline */
	size_t npend;
	int rd, wr;                        /* the pipe */
	pthread_t thread;
	atomic_int stop;
	atomic_uint_fast64_t bytes;
	pthread_mutex_t mu;
	char note[NOTES][320];
	unsigned nhead, ntail;             /* notes taken, notes written */
};

/* Keep a note for the program (the oldest is dropped when NOTES wait). */
static void note(lbt_tail *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(lbt_tail *t, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&t->mu);
	if (t->ntail - t->nhead == NOTES)
		t->nhead++;
	va_start(ap, fmt);
	vsnprintf(t->note[t->ntail % NOTES], sizeof t->note[0], fmt, ap);
	va_end(ap);
	t->ntail++;
	pthread_mutex_unlock(&t->mu);
}

/* Write n bytes into the pipe, waiting (TICK_MS at a time) while it is
 * full.  @return 0, or -1 when stopped or the pipe broke. */
static int put(lbt_tail *t, const char *p, size_t n)
{
	while (n > 0) {
		struct pollfd pfd = { t->wr, POLLOUT, 0 };
		ssize_t w;

		if (atomic_load(&t->stop))
			return -1;
		if (poll(&pfd, 1, TICK_MS) <= 0)
			continue;
		if ((w = write(t->wr, p, n)) < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Pass on the complete lines of pend+buf[0..n), keep the rest.  @return 0 or -1 */
static int pass_lines(lbt_tail *t, const char *buf, size_t n)
{
	const char *nl = memrchr(buf, '\n', n);
	size_t whole = nl == NULL ? 0 : (size_t)(nl - buf) + 1;
	char *p;

	if (whole > 0) {
		if (t->npend > 0 && put(t, t->pend, t->npend) < 0)
			return -1;
		t->npend = 0;
		if (put(t, buf, whole) < 0)
			return -1;
	}
	if (t->npend + (n - whole) > MAX_PENDING) {      /* no newline for 2 MiB */
		if (put(t, t->pend, t->npend) < 0 || put(t, buf + whole, n - whole) < 0)
			return -1;
		t->npend = 0;
		return 0;
	}
	if ((p = realloc(t->pend, t->npend + (n - whole) + 1)) == NULL)
		return -1;
	t->pend = p;
	memcpy(t->pend + t->npend, buf + whole, n - whole);
	t->npend += n - whole;
	return 0;
}

/* The last line of a file left behind (rotated) ends there: pass it on. */
static int flush_line(lbt_tail *t)
{
	size_t n = t->npend;

	if (n == 0)
		return 0;
	t->pend[n] = '\n';                 /* pass_lines keeps a byte spare */
	t->npend = 0;
	return put(t, t->pend, n + 1);
}

/* Open the path: the first time from its last LBT_TAIL_START bytes (at a
 * line start), later (rotation, a file that appeared) from its start. */
static void open_file(lbt_tail *t, int first)
{
	struct stat st;
	int fd = open(t->path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st) < 0) {
		if (fd >= 0)
			close(fd);
		if (!t->missing_said)
			note(t, "%s: %s: waiting for it", t->path, strerror(errno));
		t->missing_said = 1;
		return;
	}
	if (t->missing_said)
		note(t, "%s: appeared: read from its start", t->path);
	t->missing_said = 0;
	t->fd = fd;
	t->dev = st.st_dev;
	t->ino = st.st_ino;
	t->off = 0;
	if (first && S_ISREG(st.st_mode) && (uint64_t)st.st_size > LBT_TAIL_START) {
		uint64_t at = 0;
		lbt_err err;

		if (lbt_source_line_start(t->path, (uint64_t)st.st_size - LBT_TAIL_START,
		    (uint64_t)st.st_size, &at, &err) == 0 && lseek(fd, (off_t)at, SEEK_SET) >= 0) {
			t->off = at;
			note(t, "%s: %llu bytes: read from byte %llu (its last %u MiB)", t->path,
			    (unsigned long long)st.st_size, (unsigned long long)at,
			    LBT_TAIL_START >> 20);
		}
	}
}

/* Read what the file holds past the offset.  @return bytes read, -1 stopped */
static ssize_t drain(lbt_tail *t, char *buf)
{
	ssize_t got = 0, r;

	while ((r = read(t->fd, buf, CHUNK)) > 0) {
		t->off += (uint64_t)r;
		got += r;
		atomic_fetch_add(&t->bytes, (uint64_t)r);
		if (pass_lines(t, buf, (size_t)r) < 0)
			return -1;
		if (atomic_load(&t->stop))
			return -1;
	}
	return got;
}

/* After the end of the file: truncated (read again from 0) or rotated
 * (the path names another file: read it from its start)? */
static int check_path(lbt_tail *t)
{
	struct stat now, st;

	if (fstat(t->fd, &now) == 0 && S_ISREG(now.st_mode) && (uint64_t)now.st_size < t->off) {
		note(t, "%s: truncated to %llu bytes (was %llu): read again from its start",
		    t->path, (unsigned long long)now.st_size, (unsigned long long)t->off);
		t->npend = 0;                 /* a half line of the old content */
		t->off = 0;
		return lseek(t->fd, 0, SEEK_SET) < 0 ? -1 : 0;
	}
	if (stat(t->path, &st) < 0 || (st.st_dev == t->dev && st.st_ino == t->ino))
		return 0;                     /* moved away and not yet replaced, or the same */
	note(t, "%s: rotated (a new file under its name): read from its start", t->path);
	if (flush_line(t) < 0)
		return -1;
	close(t->fd);
	t->fd = -1;
	open_file(t, 0);
	return 0;
}

/* Standard input: wait up to a tick, pass on what came.  @return 0, 1 at
 * its end, -1 stopped */
static int follow_stdin(lbt_tail *t, char *buf)
{
	struct pollfd pfd = { STDIN_FILENO, POLLIN, 0 };
	ssize_t r;

	if (poll(&pfd, 1, TICK_MS) <= 0)
		return 0;
	if ((r = read(STDIN_FILENO, buf, CHUNK)) < 0)
		return errno == EINTR || errno == EAGAIN ? 0 : 1;
	if (r == 0)
		return flush_line(t) < 0 ? -1 : 1;
	atomic_fetch_add(&t->bytes, (uint64_t)r);
	return pass_lines(t, buf, (size_t)r);
}

/* The thread: one tick after another until stopped. */
static void *run(void *arg)
{
	lbt_tail *t = arg;
	char *buf = malloc(CHUNK);

	if (buf != NULL && !t->stdin_)
		open_file(t, 1);
	while (buf != NULL && !atomic_load(&t->stop)) {
		if (t->stdin_) {
			if (follow_stdin(t, buf) != 0)
				break;
			continue;
		}
		if (t->fd < 0)
			open_file(t, 0);
		if (t->fd >= 0 && (drain(t, buf) < 0 || check_path(t) < 0))
			break;
		poll(NULL, 0, TICK_MS);
	}
	free(buf);
	close(t->wr);                      /* the reader sees its end */
	t->wr = -1;
	return NULL;
}

/* Follow path on a thread.  @return the tail, or NULL with err */
lbt_tail *lbt_tail_start(const char *path, lbt_err *err)
{
	lbt_tail *t = calloc(1, sizeof *t);
	int p[2];

	if (t == NULL || (t->path = strdup(path)) == NULL) {
		free(t);
		lbt_err_set(err, "out of memory");
		return NULL;
	}
	if (pipe2(p, O_CLOEXEC) < 0) {
		lbt_err_set(err, "%s: no pipe to follow it: %s", path, strerror(errno));
		free(t->path);
		free(t);
		return NULL;
	}
	t->rd = p[0];
	t->wr = p[1];
	fcntl(t->wr, F_SETFL, O_NONBLOCK);
	t->stdin_ = strcmp(path, "-") == 0;
	t->fd = -1;
	atomic_init(&t->stop, 0);
	atomic_init(&t->bytes, 0);
	pthread_mutex_init(&t->mu, NULL);
	if (pthread_create(&t->thread, NULL, run, t) != 0) {
		lbt_err_set(err, "%s: no thread to follow it", path);
		close(p[0]);
		close(p[1]);
		pthread_mutex_destroy(&t->mu);
		free(t->path);
		free(t);
		return NULL;
	}
	return t;
}

int lbt_tail_fd(const lbt_tail *t)
{
	return t->rd;
}

const char *lbt_tail_path(const lbt_tail *t)
{
	return t->path;
}

uint64_t lbt_tail_bytes(const lbt_tail *t)
{
	return atomic_load(&((lbt_tail *)t)->bytes);
}

/* The oldest note not taken.  @return 1 with it in buf, 0 none */
int lbt_tail_note(lbt_tail *t, char *buf, size_t size)
{
	int got = 0;

	pthread_mutex_lock(&t->mu);
	if (t->nhead != t->ntail) {
		snprintf(buf, size, "%s", t->note[t->nhead++ % NOTES]);
		got = 1;
	}
	pthread_mutex_unlock(&t->mu);
	return got;
}

/* Stop, close, free. */
void lbt_tail_stop(lbt_tail *t)
{
	if (t == NULL)
		return;
	atomic_store(&t->stop, 1);
	pthread_join(t->thread, NULL);
	if (t->fd >= 0)
		close(t->fd);
	close(t->rd);
	pthread_mutex_destroy(&t->mu);
	free(t->pend);
	free(t->path);
	free(t);
}
