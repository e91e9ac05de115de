/*
 * source.h - lines from a file, stdin, or a compressed stream.
 *
 * Compression is recognised by magic bytes, never by name: zstd (every frame
 * of a multi-frame file) through libzstd's streaming API, gzip (every member
 * of a concatenated file) through zlib; anything else is read as it is.
 * Lines are returned as views into one large buffer (no copy, no per-line
 * malloc), without the newline and without a trailing CR.  A last line
 * without a final newline is still a line.  A line longer than the limit
 * (LBT_SOURCE_MAX_LINE) is returned cut, flagged, and reading goes on: it is
 * never a silent end of input.
 *
 * Errors that stop a file (unreadable, truncated or corrupt compressed data)
 * are returned after every complete line before the damage has been
 * returned; the error names the file and the byte offset in the compressed
 * input where decoding broke.  A regular file is checked when its read
 * ends: one that shrank (truncated in place while read: logrotate
 * copytruncate) or was replaced (its path names another inode now) ends
 * with such an error too, naming the sizes or the inodes: the answer
 * would otherwise be partial and look whole.
 * Includes: err.h.
 */
#ifndef LBT_SOURCE_H
#define LBT_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "lbt/err.h"

#define LBT_SOURCE_MAX_LINE (1u << 20)   /* 1 MiB */

typedef enum lbt_compression {
	LBT_COMP_NONE,
	LBT_COMP_ZSTD,
	LBT_COMP_GZIP
} lbt_compression;

typedef struct lbt_source lbt_source;

/*
 * Open `path` ("-" is stdin).  `name`, when not NULL, replaces the path in
 * provenance and messages (lbt-index --name).
 * @return a source, or NULL with err filled (file named in it).
 */
lbt_source *lbt_source_open(const char *path, const char *name, lbt_err *err);

/*
 * Next line.  On 1, *line and *len view the line (valid until the next call);
 * the line number is lbt_source_lineno().
 * @return 1 a line, 0 end of input, -1 error (err filled with file and
 * byte offset; further calls return 0).
 */
int lbt_source_next(lbt_source *src, const char **line, size_t *len, lbt_err *err);

/* True when the last line returned was cut at LBT_SOURCE_MAX_LINE. */
int lbt_source_truncated_line(const lbt_source *src);

/* 1-based number of the last line returned. */
uint64_t lbt_source_lineno(const lbt_source *src);

/* Offset in the decompressed stream of the start of the next line. */
uint64_t lbt_source_offset(const lbt_source *src);

/* Bytes consumed from the underlying (possibly compressed) file so far. */
uint64_t lbt_source_raw_offset(const lbt_source *src);

/* Name used in messages (path, "-" shown as "(stdin)", or the --name). */
const char *lbt_source_name(const lbt_source *src);

lbt_compression lbt_source_compression(const lbt_source *src);

/* Modification time (seconds since epoch) when the input is a regular file,
 * stdin redirected from a file included; 0 for pipes and terminals. */
int64_t lbt_source_mtime(const lbt_source *src);

/* Size in bytes of a regular file (stdin redirected from one included); 0 for
 * pipes and terminals. */
uint64_t lbt_source_size(const lbt_source *src);

/*
 * True when the input is not a regular file: standard input from a pipe or
 * a terminal, a FIFO, a process substitution (/dev/fd/N), a socket.  Such
 * an input is read once, from its start, as its bytes come: it is never
 * opened again (detection replays its sample), cut into parts or waited
 * on for more than the next line.
 */
int lbt_source_stream(const lbt_source *src);

/*
 * 1 when path names a regular file, which can be opened again (the
 * tiers known ahead, lbt-index's head, the unread note) and read in
 * parts; 0 for "-", a FIFO, /dev/fd/N, a socket, a missing path.  A
 * stat(2), no open(2): a FIFO's writer is not consumed.
 */
int lbt_source_is_file(const char *path);

/*
 * For a stream: wait up to ms milliseconds for its next line (or its end)
 * to be readable without blocking.  @return 1 it is (always for a regular
 * file), 0 nothing came in time (the writer is slow or live: tail -f).
 */
int lbt_source_wait(lbt_source *src, int ms);

/* Bytes read from the file so far (read ahead of the lines returned). */
uint64_t lbt_source_bytes_read(const lbt_source *src);

/*
 * Bytes [off, end) of the plain regular file `path` (never decompressed):
 * off is 0 or the byte after a newline, and the first line is numbered
 * lineno0 + 1 (a caller that reads a file in parts, one per thread,
 * counts the lines before off).  Offsets are the file's.
 * @return a source, or NULL with err filled.
 */
lbt_source *lbt_source_open_range(const char *path, const char *name, uint64_t off,
    uint64_t end, uint64_t lineno0, lbt_err *err);

/*
 * Read a plain file only up to byte `end` (a line boundary): its lines
 * after it are another part's.  @return 0, or -1 when the source is
 * compressed or has already read past end (then it reads on to the end).
 */
int lbt_source_set_limit(lbt_source *src, uint64_t end);

/*
 * Decode (or read) ahead on a thread of its own, a few CHUNK slots in
 * advance, so that decompression and parsing use two cores; lines, their
 * numbers and errors are the same, returned in the same order.  For
 * compressed input and pipes (a plain regular file gains nothing: it is
 * read in parts instead).  Call before the first lbt_source_next.
 * @return 0, or -1 (no thread: reading goes on in the caller's).
 */
int lbt_source_read_ahead(lbt_source *src);

/*
 * For a file read in parts (source_part.c): the newlines of bytes
 * [off, end) of path into *n; the first line start at or after off of a
 * file of `size` bytes into *at (size when no line starts there).
 * Both @return 0, or -1 with err.
 */
int lbt_source_count_lines(const char *path, uint64_t off, uint64_t end, uint64_t *n,
    lbt_err *err);
int lbt_source_line_start(const char *path, uint64_t off, uint64_t size, uint64_t *at,
    lbt_err *err);

/* Close; NULL is accepted. */
void lbt_source_close(lbt_source *src);

#endif
