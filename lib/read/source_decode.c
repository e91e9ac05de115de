/*
 * source_decode.c - the decoder of a source: plain bytes read as they
 * are (up to a range's limit), zstd across every frame, gzip across every
 * member, into the buffer the caller gives.  A decoding or read error is
 * recorded as pending (source.c returns it after the lines before it).
 *
 * Direction: source.c (the line reader) calls it directly, or through
 * source_ahead.c when it runs on a thread of its own; it calls neither.
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "source_int.h"

/* read(2) retrying on EINTR. @return bytes read, 0 at end, -1 with errno */
ssize_t lbt_sourcei_read_full(int fd, void *p, size_t n)
{
	ssize_t r;

	do
		r = read(fd, p, n);
	while (r < 0 && errno == EINTR);
	return r;
}

/* Record an error to return once the lines before it are out; stop decoding. */
static void set_pending(lbt_source *s, const char *what, uint64_t at, const char *detail)
{
	s->eof = 1;
	s->in_eof = 1;
	if (s->has_perr)
		return;
	s->has_perr = 1;
	if (detail != NULL)
		lbt_err_at(&s->perr, s->name, 0, "%s at byte %llu: %s", what,
		    (unsigned long long)at, detail);
	else
		lbt_err_at(&s->perr, s->name, 0, "%s at byte %llu", what, (unsigned long long)at);
}

/*
 * At the end of a regular file (read(2) returned 0): did it shrink or was
 * it replaced while it was read?  A file truncated in place (logrotate
 * copytruncate) ends early and a file renamed away and created again holds
 * lines this read never sees; either way the answer is partial, so it is
 * an error (pending, after the lines read), with the sizes and inodes.
 */
static void end_check(lbt_source *s)
{
	struct stat now, named;

	if (s->stream || s->has_perr || s->size == 0 || fstat(s->fd, &now) < 0)
		return;
	if (s->limit > 0 && s->raw_read < s->limit)
		lbt_err_at(&s->perr, s->name, 0, "shrank while read: %llu bytes at open, "
		    "%llu now; this part ended at byte %llu of %llu (truncated in place, "
		    "e.g. logrotate copytruncate)", (unsigned long long)s->size,
		    (unsigned long long)now.st_size, (unsigned long long)s->raw_read,
		    (unsigned long long)s->limit);
	else if (s->limit == 0 && ((uint64_t)now.st_size < s->size || s->raw_read < s->size ||
	    (uint64_t)now.st_size < s->raw_read))
		lbt_err_at(&s->perr, s->name, 0, "shrank while read: %llu bytes at open, "
		    "%llu now; read to byte %llu (truncated in place, e.g. logrotate "
		    "copytruncate): the lines after it are not in the answer",
		    (unsigned long long)s->size, (unsigned long long)now.st_size,
		    (unsigned long long)s->raw_read);
	else if (s->limit == 0 && s->path != NULL && stat(s->path, &named) == 0 &&
	    ((uint64_t)named.st_ino != s->ino || (uint64_t)named.st_dev != s->dev))
		lbt_err_at(&s->perr, s->name, 0, "replaced while read: inode %llu at open, "
		    "%llu now (%llu bytes read of the old file; the new one's lines are not "
		    "in the answer)", (unsigned long long)s->ino,
		    (unsigned long long)named.st_ino, (unsigned long long)s->raw_read);
	else
		return;
	s->has_perr = 1;      /* returned after the lines read; the caller ends there */
}

/* Compressed bytes consumed so far (read minus still buffered). */
static uint64_t raw_consumed(const lbt_source *s)
{
	return s->raw_read - (s->in_len - s->in_pos);
}

/* Refill the compressed input buffer when it is empty. @return 0, or -1 on a read error */
static int read_in(lbt_source *s)
{
	ssize_t r;

	if (s->in_pos < s->in_len || s->in_eof)
		return 0;
	r = lbt_sourcei_read_full(s->fd, s->in, CHUNK);
	if (r < 0) {
		set_pending(s, "read error", s->raw_read, strerror(errno));
		return -1;
	}
	s->in_pos = 0;
	s->in_len = (size_t)r;
	s->raw_read += (uint64_t)r;
	s->in_eof = r == 0;
	if (r == 0)
		end_check(s);
	return 0;
}

/* Append plain bytes at dst[0..cap), up to the range's limit if any.
 * @return bytes added (0: end or error) */
static size_t fill_plain(lbt_source *s, char *dst, size_t cap)
{
	ssize_t r;

	if (cap > CHUNK)
		cap = CHUNK;     /* one read(2): a file read in parts can be cut soon */
	if (s->limit > 0 && s->raw_read + cap > s->limit)
		cap = (size_t)(s->limit - s->raw_read);
	r = cap > 0 ? lbt_sourcei_read_full(s->fd, dst, cap) : 0;

	if (r < 0) {
		set_pending(s, "read error", s->raw_read, strerror(errno));
		return 0;
	}
	s->raw_read += (uint64_t)r;
	if (r == 0 && cap > 0)
		end_check(s);
	if (r == 0)
		s->eof = 1;
	return (size_t)r;
}

/*
 * Decode zstd into dst[0..cap), across every frame (skippable frames are
 * skipped by libzstd).  Input that ends inside a frame is "truncated".  Only
 * a call that consumed or produced bytes updates frame_open: a call on
 * empty input after a finished frame returns a non-zero size hint.
 * @return bytes added (0: end or error)
 */
static size_t fill_zstd(lbt_source *s, char *dst, size_t cap)
{
	for (;;) {
		ZSTD_outBuffer out = { dst, cap, 0 };
		ZSTD_inBuffer in;
		size_t ret;

		if (read_in(s) < 0)
			return 0;
		in = (ZSTD_inBuffer){ s->in, s->in_len, s->in_pos };
		ret = ZSTD_decompressStream(s->zs, &out, &in);
		if (ZSTD_isError(ret)) {
			s->in_pos = in.pos;
			set_pending(s, "corrupt zstd data", raw_consumed(s), ZSTD_getErrorName(ret));
			return out.pos;
		}
		if (in.pos > s->in_pos || out.pos > 0)
			s->frame_open = ret != 0;
		s->in_pos = in.pos;
		if (out.pos > 0)
			return out.pos;
		if (s->in_pos == s->in_len && s->in_eof) {
			if (s->frame_open)
				set_pending(s, "truncated zstd stream", s->raw_read, NULL);
			s->eof = 1;
			return 0;
		}
	}
}

/*
 * Between gzip members: skip zero padding, start the next member on the
 * 1F 8B magic, or report trailing garbage.
 * @return 1 when a member starts, 0 at the end of input, -1 on garbage
 */
static int gz_next_member(lbt_source *s)
{
	for (;;) {
		if (read_in(s) < 0)
			return -1;
		while (s->in_pos < s->in_len && s->in[s->in_pos] == 0)
			s->in_pos++;
		if (s->in_pos < s->in_len)
			break;
		if (s->in_eof)
			return 0;
	}
	if (s->in[s->in_pos] != 0x1f) {
		set_pending(s, "trailing garbage after gzip data", raw_consumed(s), NULL);
		return -1;
	}
	inflateReset(&s->gz);
	s->gz_member_end = 0;
	return 1;
}

/* Run inflate once on the buffered input into dst[0..cap). @return zlib status */
static int gz_step(lbt_source *s, char *dst, size_t cap, size_t *produced)
{
	int ret;

	s->gz.next_in = s->in + s->in_pos;
	s->gz.avail_in = (uInt)(s->in_len - s->in_pos);
	s->gz.next_out = (Bytef *)dst;
	s->gz.avail_out = (uInt)cap;
	ret = inflate(&s->gz, Z_NO_FLUSH);
	s->in_pos = s->in_len - s->gz.avail_in;
	*produced = cap - s->gz.avail_out;
	return ret;
}

/*
 * Decode gzip into dst[0..cap), every member of a concatenated file
 * (inflateReset at each member end).  @return bytes added (0: end or error)
 */
static size_t fill_gzip(lbt_source *s, char *dst, size_t cap)
{
	for (;;) {
		size_t n;
		int ret;

		if (s->gz_member_end && gz_next_member(s) <= 0) {
			s->eof = 1;
			return 0;
		}
		if (read_in(s) < 0)
			return 0;
		ret = gz_step(s, dst, cap, &n);
		if (ret == Z_STREAM_END)
			s->gz_member_end = 1;
		else if (ret != Z_OK && ret != Z_BUF_ERROR) {
			set_pending(s, "corrupt gzip data", raw_consumed(s),
			    s->gz.msg ? s->gz.msg : zError(ret));
			return n;
		} else if (n == 0 && s->in_pos == s->in_len && s->in_eof) {
			set_pending(s, "truncated gzip stream", s->raw_read, NULL);
			return 0;
		}
		if (n > 0)
			return n;
	}
}

/* Decode or read at most cap bytes into dst (s->eof at the end).  @return bytes added */
size_t lbt_sourcei_fill(lbt_source *s, char *dst, size_t cap)
{
	if (s->comp == LBT_COMP_ZSTD)
		return fill_zstd(s, dst, cap);
	if (s->comp == LBT_COMP_GZIP)
		return fill_gzip(s, dst, cap);
	return fill_plain(s, dst, cap);
}

/* Compressed bytes consumed so far. */
uint64_t lbt_sourcei_raw(const lbt_source *s)
{
	return raw_consumed(s);
}
