/*
 * source_part.c - what a caller needs to read a plain file in parts, one
 * per thread (lib/run/par.c): where a line begins after a given byte, and
 * how many lines come before a part (so that its lines keep their true
 * numbers).  See include/lbt/source.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "source_int.h"

/* pread(2) retrying on EINTR.  @return bytes read, 0 at the end, -1 with errno */
static ssize_t pread_full(int fd, void *p, size_t n, uint64_t off)
{
	ssize_t r;

	do
		r = pread(fd, p, n, (off_t)off);
	while (r < 0 && errno == EINTR);
	return r;
}

/*
 * Walk bytes [off, end) of path in CHUNK blocks: count their newlines
 * into *count, or (count NULL) stop at the first one, its offset + 1
 * into *at (end when there is none).  @return 0, or -1 with err.
 */
static int scan(const char *path, uint64_t off, uint64_t end, uint64_t *count,
    uint64_t *at, lbt_err *err)
{
	char *buf = malloc(CHUNK);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int rc = 0;

	if (count != NULL)
		*count = 0;
	if (at != NULL)
		*at = end;
	if (buf == NULL || fd < 0) {
		rc = lbt_err_at(err, path, 0, "%s", buf ? strerror(errno) : "out of memory");
		goto out;
	}
	while (off < end) {
		size_t want = end - off < CHUNK ? (size_t)(end - off) : CHUNK;
		ssize_t r = pread_full(fd, buf, want, off);
		const char *p = buf, *e = buf + (r > 0 ? r : 0), *nl;

		if (r <= 0) {
			if (r < 0)
				rc = lbt_err_at(err, path, 0, "%s", strerror(errno));
			break;
		}
		for (; (nl = memchr(p, '\n', (size_t)(e - p))) != NULL; p = nl + 1) {
			if (count == NULL) {
				*at = off + (uint64_t)(nl - buf) + 1;
				goto out;
			}
			++*count;
		}
		off += (uint64_t)r;
	}
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	return rc;
}

/* The lines (newlines) of bytes [off, end) of path into *n.  @return 0 or -1 with err */
int lbt_source_count_lines(const char *path, uint64_t off, uint64_t end, uint64_t *n,
    lbt_err *err)
{
	return scan(path, off, end, n, NULL, err);
}

/* The first line start at or after off (after the newline at or after
 * off - 1) of a file of `size` bytes, into *at.  @return 0 or -1 with err */
int lbt_source_line_start(const char *path, uint64_t off, uint64_t size, uint64_t *at,
    lbt_err *err)
{
	if (off == 0 || off >= size) {
		*at = off < size ? off : size;
		return 0;
	}
	return scan(path, off - 1, size, NULL, at, err);
}
