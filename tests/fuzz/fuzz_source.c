/*
 * fuzz_source.c - libFuzzer target: lib/read/source.c on plain, zstd and
 * gzip files, whole, truncated or with a byte changed.
 *
 *     make fuzz            # builds every target, runs each FUZZ_SECONDS
 *
 * An input is a 6-byte header, then a payload:
 *   byte 0   bits 0-1  0 or 3: the payload is the file, as it is;
 *                      1: the payload is text, written as zstd frames;
 *                      2: the payload is text, written as gzip members
 *            bits 2-3  damage to a compressed file: 0 none, 1 cut at P,
 *                      2 byte P xor X, 3 both (the byte changed, then cut)
 *            bits 4-5  number of frames or members, less one
 *   bytes 1-4          P, little-endian (taken modulo the file size)
 *   byte 5             X (0 means 0xff)
 * The file goes to a temporary directory and is read back through
 * lbt_source.  Whatever the bytes: no crash, no sanitizer report, lines of
 * at most LBT_SOURCE_MAX_LINE, one end (0 or a single -1), and an error
 * naming the file and a byte offset within it.  The lines are then checked
 * against a second decoding of the whole file in one buffer (zlib or
 * libzstd fed everything at once, framing rules from source.h): every
 * complete line before the damage is returned, none is invented, and
 * lbt_err.offset is where the dropped part begins.  The one exception is a
 * corrupt zstd frame, which libzstd may decode in one pass or block by
 * block, depending on the room it is given: there the two line lists must
 * agree as far as the shorter goes, and the intact frames before the
 * damage must all come out.  A text written by this target is compared
 * with the text itself: undamaged, its lines come back exactly.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "lbt/source.h"

#define HDR 6
#define MAXPART 4
#define LIMIT (16u << 20)        /* decoded bytes followed, beyond: invariants only */
#define MAXLINE LBT_SOURCE_MAX_LINE

/* A growable byte buffer. */
struct buf {
	unsigned char *p;
	size_t n, cap;
};

/* Lines as read: their bytes end to end, each line's end offset and flag. */
struct lines {
	struct buf text;
	size_t *end;
	unsigned char *cut;
	size_t n, cap;
};

/* How a file ends, as source.h says it must. */
enum verdict {
	V_OK,          /* end of input */
	V_TRUNC,       /* a compressed stream ends inside a frame or member */
	V_CORRUPT,     /* the decoder refused the data */
	V_GARBAGE,     /* bytes after a gzip member that start none */
	V_UNKNOWN      /* decoded past LIMIT: not compared */
};

/* A decoding: the bytes before the damage and how the file ends. */
struct decoded {
	struct buf out;
	enum verdict v;
	size_t at;     /* V_GARBAGE: offset of the garbage */
};

static char path[4096];          /* the file, in a directory made once */

/* Remove the file and its directory at exit. */
static void cleanup(void)
{
	char dir[sizeof path];
	char *slash;

	unlink(path);
	snprintf(dir, sizeof dir, "%s", path);
	if ((slash = strrchr(dir, '/')) != NULL) {
		*slash = '\0';
		rmdir(dir);
	}
}

/* Make the temporary directory (in /dev/shm when there is one); abort on failure. */
static void setup(void)
{
	char dir[] = "/dev/shm/lbt-fuzz-source.XXXXXX";
	char alt[] = "/tmp/lbt-fuzz-source.XXXXXX";
	const char *d = mkdtemp(dir);

	if (d == NULL && (d = mkdtemp(alt)) == NULL)
		abort();
	snprintf(path, sizeof path, "%s/in.log", d);
	atexit(cleanup);
}

/* Append n bytes at p to b; abort when memory runs out. */
static void put(struct buf *b, const void *p, size_t n)
{
	if (b->n + n > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;

		while (cap < b->n + n)
			cap *= 2;
		if ((b->p = realloc(b->p, cap)) == NULL)
			abort();
		b->cap = cap;
	}
	if (p != NULL && n > 0)
		memcpy(b->p + b->n, p, n);
	b->n += n;
}

/* Make room for at least `room` more bytes at b->p + b->n. */
static void reserve(struct buf *b, size_t room)
{
	size_t n = b->n;

	put(b, NULL, room);
	b->n = n;
}

/* Compress text[0..n) as one zstd frame onto f. */
static void zstd_frame(struct buf *f, const uint8_t *text, size_t n)
{
	size_t bound = ZSTD_compressBound(n), r;

	reserve(f, bound);
	r = ZSTD_compress(f->p + f->n, bound, text, n, 1);
	if (ZSTD_isError(r))
		abort();
	f->n += r;
}

/* Compress text[0..n) as one gzip member onto f. */
static void gzip_member(struct buf *f, const uint8_t *text, size_t n)
{
	z_stream z;

	memset(&z, 0, sizeof z);
	if (deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		abort();
	reserve(f, deflateBound(&z, (uLong)n));
	z.next_in = (Bytef *)text;
	z.avail_in = (uInt)n;
	z.next_out = f->p + f->n;
	z.avail_out = (uInt)(f->cap - f->n);
	if (deflate(&z, Z_FINISH) != Z_STREAM_END)
		abort();
	f->n += z.total_out;
	deflateEnd(&z);
}

/*
 * Write text[0..n) as k frames (comp 1, zstd) or members (comp 2, gzip),
 * split at i*n/k; bounds[i] gets the file offset where part i ends.
 */
static void compress_parts(struct buf *f, int comp, int k, const uint8_t *text, size_t n,
    size_t *bounds)
{
	for (int i = 0; i < k; i++) {
		size_t a = n * (size_t)i / (size_t)k, b = n * (size_t)(i + 1) / (size_t)k;

		if (comp == 1)
			zstd_frame(f, text + a, b - a);
		else
			gzip_member(f, text + a, b - a);
		bounds[i] = f->n;
	}
}

/* Compression named by the magic bytes (source.h): 0 none, 1 zstd, 2 gzip. */
static int magic(const unsigned char *p, size_t n)
{
	if (n >= 4 && memcmp(p, "\x28\xb5\x2f\xfd", 4) == 0)
		return 1;
	if (n >= 4 && (p[0] & 0xf0) == 0x50 && memcmp(p + 1, "\x2a\x4d\x18", 3) == 0)
		return 1;
	if (n >= 2 && p[0] == 0x1f && p[1] == 0x8b)
		return 2;
	return 0;
}

/*
 * The second zstd decoding: everything at once into a growing buffer.  A
 * stream ends inside a frame when the last call that moved anything did not
 * return 0 (source.h: truncated).
 */
static void zstd_ref(const unsigned char *f, size_t n, struct decoded *d)
{
	ZSTD_DStream *z = ZSTD_createDStream();
	ZSTD_inBuffer in = { f, n, 0 };
	size_t last = 0;

	if (z == NULL || ZSTD_isError(ZSTD_initDStream(z)))
		abort();
	d->v = V_OK;
	for (;;) {
		ZSTD_outBuffer out;
		size_t before = in.pos, r;

		if (d->out.n > LIMIT) {
			d->v = V_UNKNOWN;
			break;
		}
		reserve(&d->out, 1u << 17);
		out = (ZSTD_outBuffer){ d->out.p + d->out.n, d->out.cap - d->out.n, 0 };
		r = ZSTD_decompressStream(z, &out, &in);
		d->out.n += out.pos;
		if (ZSTD_isError(r)) {
			d->v = V_CORRUPT;
			break;
		}
		if (in.pos > before || out.pos > 0)
			last = r;
		else if (in.pos == n) {
			d->v = last != 0 ? V_TRUNC : V_OK;
			break;
		}
	}
	ZSTD_freeDStream(z);
}

/*
 * Inflate one gzip member of f from *pos.  @return 1 at its end, or 0 with
 * d->v set (truncated, corrupt or past LIMIT).
 */
static int gzip_member_ref(z_stream *z, const unsigned char *f, size_t n, size_t *pos,
    struct decoded *d)
{
	for (;;) {
		int r;

		if (d->out.n > LIMIT) {
			d->v = V_UNKNOWN;
			return 0;
		}
		reserve(&d->out, 1u << 17);
		z->next_in = (Bytef *)f + *pos;
		z->avail_in = (uInt)(n - *pos);
		z->next_out = d->out.p + d->out.n;
		z->avail_out = (uInt)(d->out.cap - d->out.n);
		r = inflate(z, Z_NO_FLUSH);
		*pos = n - z->avail_in;
		d->out.n = d->out.cap - z->avail_out;
		if (r == Z_STREAM_END)
			return 1;
		if (r == Z_BUF_ERROR && z->avail_in == 0) {
			d->v = V_TRUNC;
			return 0;
		}
		if (r != Z_OK && r != Z_BUF_ERROR) {
			d->v = V_CORRUPT;
			return 0;
		}
	}
}

/*
 * The second gzip decoding: member after member; between members zero
 * bytes are padding, anything but 0x1f is trailing garbage (source.h).
 */
static void gzip_ref(const unsigned char *f, size_t n, struct decoded *d)
{
	size_t pos = 0;
	z_stream z;

	memset(&z, 0, sizeof z);
	if (inflateInit2(&z, 15 + 16) != Z_OK)
		abort();
	d->v = V_OK;
	while (gzip_member_ref(&z, f, n, &pos, d)) {
		while (pos < n && f[pos] == 0)
			pos++;
		if (pos == n)
			break;
		if (f[pos] != 0x1f) {
			d->v = V_GARBAGE;
			d->at = pos;
			break;
		}
		inflateReset(&z);
	}
	inflateEnd(&z);
}

/* Append one line as lbt_source returned it. */
static void add_line(struct lines *l, const char *p, size_t n, int cut)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 256;
		l->end = realloc(l->end, l->cap * sizeof *l->end);
		l->cut = realloc(l->cut, l->cap);
		if (l->end == NULL || l->cut == NULL)
			abort();
	}
	put(&l->text, p, n);
	l->end[l->n] = l->text.n;
	l->cut[l->n++] = (unsigned char)cut;
}

/* Line i of l: its bytes and length. */
static const unsigned char *line_at(const struct lines *l, size_t i, size_t *n)
{
	size_t a = i ? l->end[i - 1] : 0;

	*n = l->end[i] - a;
	return l->text.p != NULL ? l->text.p + a : (const unsigned char *)"";
}

/*
 * Read the file through lbt_source into l, until its end or LIMIT bytes.
 * Checks the invariants that hold whatever the bytes.  @return the last
 * status (0 or -1), or 1 when reading stopped at LIMIT; err gets the error.
 */
static int read_all(struct lines *l, int comp, lbt_err *err)
{
	lbt_source *s = lbt_source_open(path, NULL, err);
	const char *p;
	size_t n;
	int r;

	if (s == NULL || (int)lbt_source_compression(s) != comp)
		abort();
	while ((r = lbt_source_next(s, &p, &n, err)) == 1) {
		if (n > MAXLINE || lbt_source_lineno(s) != l->n + 1)
			abort();
		add_line(l, p, n, lbt_source_truncated_line(s));
		if (l->text.n > LIMIT)
			break;
	}
	if (r == -1 && lbt_source_next(s, &p, &n, NULL) != 0)
		abort();
	if (r == 0 && lbt_source_next(s, &p, &n, NULL) != 0)
		abort();
	lbt_source_close(s);
	return r;
}

/*
 * An error names the file and "at byte N", N within the file; the message
 * of a truncation gives the file size, that of trailing garbage its offset.
 */
static void check_error(const lbt_err *err, size_t fsize, const struct decoded *d, int comp)
{
	const char *at = strstr(err->msg, " at byte ");
	const char *what = comp == 1 ? "zstd" : "gzip";
	char want[128];

	if (err->msg[0] == '\0' || strcmp(err->file, path) != 0 || at == NULL ||
	    strtoull(at + 9, NULL, 10) > fsize)
		abort();
	if (d == NULL)
		return;
	if (d->v == V_TRUNC)
		snprintf(want, sizeof want, "truncated %s stream at byte %zu", what, fsize);
	else if (d->v == V_GARBAGE)
		snprintf(want, sizeof want, "trailing garbage after gzip data at byte %zu", d->at);
	else
		snprintf(want, sizeof want, "corrupt %s data at byte ", what);
	if (strncmp(err->msg, want, strlen(want)) != 0)
		abort();
}

/*
 * The lines a reader must return from decoded text t[0..n): each complete
 * line without its newline and one CR, cut to MAXLINE; the last one without
 * a newline when the file ended well (ok), or, ended badly, only when it is
 * already longer than MAXLINE (lbt_source hands it out before it can know).
 * *tail gets the length of the unfinished part that is dropped.
 */
static void expected_lines(const unsigned char *t, size_t n, int ok, struct lines *e,
    size_t *tail)
{
	size_t a = 0;

	*tail = 0;
	while (a < n) {
		const unsigned char *nl = memchr(t + a, '\n', n - a);
		size_t len = nl ? (size_t)(nl - (t + a)) : n - a, k = len;

		if (nl == NULL && !ok && len <= MAXLINE) {
			*tail = len;
			break;
		}
		if (nl != NULL && k > 0 && t[a + k - 1] == '\r')
			k--;
		else if (nl == NULL && len <= MAXLINE && k > 0 && t[a + k - 1] == '\r')
			k--;
		add_line(e, (const char *)t + a, k > MAXLINE ? MAXLINE : k, k > MAXLINE);
		a += len + (nl != NULL);
	}
}

/*
 * Compare the lines read (got) with those expected (want): all of them
 * (exact), or as far as the shorter list goes (prefix).  A cut flag must
 * be set on a line that is over-long after its CR is removed, and only on
 * a line that is over-long with it.
 */
static void compare(const struct lines *got, const struct lines *want, int prefix)
{
	size_t m = got->n < want->n ? got->n : want->n;

	if (!prefix && got->n != want->n)
		abort();
	for (size_t i = 0; i < m; i++) {
		size_t gn, wn;
		const unsigned char *g = line_at(got, i, &gn), *w = line_at(want, i, &wn);

		if (gn != wn || memcmp(g, w, gn) != 0)
			abort();
		if (want->cut[i] && !got->cut[i])
			abort();
	}
}

/* Free what a struct lines holds, and empty it. */
static void lines_free(struct lines *l)
{
	free(l->text.p);
	free(l->end);
	free(l->cut);
	memset(l, 0, sizeof *l);
}

/* Write f[0..n) to the file; abort on failure. */
static void write_file(const unsigned char *f, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	if (fd < 0 || (n > 0 && write(fd, f, n) != (ssize_t)n) || close(fd) != 0)
		abort();
}

/*
 * The lines of the intact parts before the damage at file offset `pos`:
 * every complete line of text[0..end of the last part that ends at or
 * before pos) must come out, in order, first.
 */
static void check_intact(const struct lines *got, const uint8_t *text, size_t n, int k,
    const size_t *bounds, size_t pos)
{
	struct lines want = { 0 };
	size_t upto = 0, tail;

	for (int i = 0; i < k && bounds[i] <= pos; i++)
		upto = n * (size_t)(i + 1) / (size_t)k;
	expected_lines(text, upto, 0, &want, &tail);
	if (got->n < want.n)
		abort();
	compare(got, &want, 1);
	lines_free(&want);
}

/* A test case, as decoded from the fuzzer's bytes. */
struct tcase {
	int comp;                /* 0 the payload is the file, 1 zstd, 2 gzip */
	int cut, flip, parts;
	size_t pos;
	unsigned char xor;
	const uint8_t *text;     /* the payload */
	size_t n;
};

/* Build the file of a case into f; bounds[] as compress_parts. */
static void build(struct tcase *c, struct buf *f, size_t *bounds)
{
	size_t lo = c->comp == 1 ? 4 : 2;

	if (c->comp == 0) {
		put(f, c->text, c->n);
		return;
	}
	compress_parts(f, c->comp, c->parts, c->text, c->n, bounds);
	/* damage after the magic, so that the file stays compressed */
	c->pos = lo + c->pos % (f->n - lo);
	if (c->flip)
		f->p[c->pos] ^= c->xor;
	if (c->cut)
		f->n = c->pos;
}

/* Decode the fuzzer's bytes into a case. @return 0, or -1 when too short */
static int parse_case(const uint8_t *data, size_t size, struct tcase *c)
{
	if (size < HDR)
		return -1;
	c->comp = data[0] & 3;
	if (c->comp == 3)
		c->comp = 0;
	c->cut = (data[0] >> 2) & 1;
	c->flip = (data[0] >> 3) & 1;
	c->parts = ((data[0] >> 4) & 3) + 1;
	c->pos = (size_t)data[1] | (size_t)data[2] << 8 | (size_t)data[3] << 16 |
	    (size_t)data[4] << 24;
	c->xor = data[5] ? data[5] : 0xff;
	c->text = data + HDR;
	c->n = size - HDR;
	return 0;
}

/* Everything checked on one file once it is read. */
static void check_case(const struct tcase *c, const struct buf *f, const size_t *bounds,
    const struct lines *got, int r, const lbt_err *err)
{
	int comp = magic(f->p, f->n);
	struct decoded d = { { 0 }, V_OK, 0 };
	struct lines want = { 0 };
	size_t tail;
	int loose;

	if (comp == 0)
		put(&d.out, f->p, f->n);
	else if (comp == 1)
		zstd_ref(f->p, f->n, &d);
	else
		gzip_ref(f->p, f->n, &d);
	if (r == 1 || d.v == V_UNKNOWN) {
		free(d.out.p);
		return;
	}
	if ((r == 0) != (d.v == V_OK))
		abort();
	if (r == -1)
		check_error(err, f->n, &d, comp);
	/* a corrupt zstd frame: one pass or block by block (see the top) */
	loose = comp == 1 && d.v == V_CORRUPT;
	expected_lines(d.out.p, d.out.n, d.v == V_OK, &want, &tail);
	compare(got, &want, loose);
	if (r == -1 && !loose && err->offset != d.out.n - tail)
		abort();
	if (r == -1 && !loose && (tail > 0) != (strstr(err->msg, "incomplete last line") != NULL))
		abort();
	if (c->comp != 0 && !c->cut && !c->flip && (d.v != V_OK || d.out.n != c->n ||
	    memcmp(d.out.p, c->text, c->n) != 0))
		abort();
	if (c->comp != 0 && (c->cut || c->flip))
		check_intact(got, c->text, c->n, c->parts, bounds, c->pos);
	lines_free(&want);
	free(d.out.p);
}

/* One input: build the file, read it, check it. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct buf f = { 0 };
	struct lines got = { 0 };
	size_t bounds[MAXPART];
	struct tcase c;
	lbt_err err;
	int r;

	if (path[0] == '\0')
		setup();
	if (parse_case(data, size, &c) < 0)
		return 0;
	build(&c, &f, bounds);
	write_file(f.p, f.n);
	memset(&err, 0, sizeof err);
	r = read_all(&got, magic(f.p, f.n), &err);
	check_case(&c, &f, bounds, &got, r, &err);
	lines_free(&got);
	free(f.p);
	return 0;
}
