/*
 * source_int.h - what lib/read/source*.c share; never installed.
 *
 *   source.c         lines from a file, stdin, or a zstd/gzip stream
 *   source_ahead.c   the decoding done ahead on a thread of its own
 *   source_decode.c  the decoder: plain, zstd or gzip into a buffer
 *   source_part.c    the line boundaries of a part of a file
 *
 * Direction, top down: source.c calls source_ahead.c and
 * source_decode.c; source_ahead.c calls source_decode.c; never the other
 * way.
 */
#ifndef LBT_SOURCE_INT_H
#define LBT_SOURCE_INT_H

#include <stdint.h>
#include <sys/types.h>
#include <zlib.h>
#include <zstd.h>

#include "lbt/source.h"

#define CHUNK (256u * 1024)                 /* one read(2), one read-ahead slot */

struct lbt_sourcei_ahead;

struct lbt_source {
	int fd;
	int own_fd;                 /* close fd on lbt_source_close() */
	char *name;                 /* for messages and provenance */
	lbt_compression comp;
	int64_t mtime;
	uint64_t size;              /* of a regular file, else 0 */
	int stream;                 /* not a regular file: read once, as it comes */
	char *path;                 /* a regular file's path (to see it replaced), or NULL */
	uint64_t dev, ino;          /* ... and its identity at open */

	char *buf;                  /* decoded text, BUF_CAP bytes */
	size_t start, end, scan;    /* next line, end of data, memchr resume point */
	uint64_t base_off;          /* decoded offset of buf[0] */
	uint64_t lineno;
	int truncated;              /* last line returned was cut */
	int skipping;               /* dropping the rest of a cut line */
	int eof;                    /* no more decoded data will come (the decoder's) */
	int ceof;                   /* ... as the line reader knows it (eof, or the end
	                               of the read-ahead queue: source_ahead.c) */
	uint64_t limit;             /* plain range: stop reading at this offset; 0 none */
	struct lbt_sourcei_ahead *ahead;   /* decoding on a thread of its own, or NULL */
	int done;                   /* end or error already returned */

	unsigned char *in;          /* compressed input, CHUNK bytes */
	size_t in_pos, in_len;
	int in_eof;                 /* read(2) returned 0 or failed */
	uint64_t raw_read;          /* bytes read from fd */

	ZSTD_DStream *zs;
	int frame_open;             /* inside a zstd frame (the last call that moved said so) */
	z_stream gz;
	int gz_init;
	int gz_member_end;          /* a gzip member just ended */

	int has_perr;               /* pending error to return after the lines */
	lbt_err perr;
};

/*
 * source_decode.c: lbt_sourcei_fill decodes (or reads) at most cap bytes
 * into dst, setting s->eof at the end or on an error (then pending).
 * @return bytes added (0: the end).  lbt_sourcei_raw: compressed bytes
 * consumed so far.  lbt_sourcei_read_full: read(2) retrying on EINTR.
 *
 * source_ahead.c: lbt_sourcei_ahead_take hands the reader the next slot
 * decoded ahead (cap >= CHUNK), setting s->ceof at the end.  @return bytes
 * copied.  lbt_sourcei_ahead_raw: the raw offset of the last slot taken.
 * lbt_sourcei_ahead_wait: wait up to ms for a slot or the end (1), else 0.
 * lbt_sourcei_ahead_stop: stop and join the thread, free the queue.
 */
size_t lbt_sourcei_fill(lbt_source *s, char *dst, size_t cap);
uint64_t lbt_sourcei_raw(const lbt_source *s);
ssize_t lbt_sourcei_read_full(int fd, void *p, size_t n);
size_t lbt_sourcei_ahead_take(lbt_source *s, char *dst, size_t cap);
int lbt_sourcei_ahead_wait(lbt_source *s, int ms);
uint64_t lbt_sourcei_ahead_raw(const lbt_source *s);
void lbt_sourcei_ahead_stop(lbt_source *s);

#endif
