/*
 * fuzz_ngxconf.c - libFuzzer target: the nginx.conf reader
 * (lbt_format_from_nginx_conf, lib/read/format_ngxconf.c).
 *
 *     make fuzz            # builds every target, runs each FUZZ_SECONDS
 *
 * The input is an nginx.conf, optionally followed by a line "%%" and a
 * second file: the first is written to DIR/nginx.conf, the second to
 * DIR/conf.d/inc.conf, where an include of conf.d/inc.conf or a glob
 * finds it (DIR is a temporary directory made once).  An include that
 * could leave DIR (an absolute pattern, "..", a backslash) is not run: the
 * input is dropped, so that the fuzzer never reads the machine's files.
 * The reader is asked for the format of the first access_log and for the
 * first log_format named in the input (each read of a file costs a 16 MiB
 * buffer, slow under ASan).  Whatever the bytes: no crash, no sanitizer
 * report; a failure says why and names a file; a compiled format reads
 * sample lines with OK, SKIP or a reason.
 */
#include <ctype.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lbt/format.h"

#define SEP "\n%%\n"

static char dir[4096];           /* the temporary directory */

/* Lines given to every format compiled from the file. */
#define COMBINED "192.0.2.10 - - [30/Nov/2026:07:49:44 +0000] " \
	"\"GET /ping/f768064f HTTP/1.1\" 200 3 \"-\" \"curl/7.88.1\""
static const char *const samples[] = {
	COMBINED,
	"{\"time\":\"2026-11-30T07:49:44+00:00\",\"remote_addr\":\"192.0.2.10\",\"status\":200}",
	"192.0.2.10 200 0.003",
	"",
};

/* DIR/rel into buf. */
static const char *in_dir(char *buf, size_t size, const char *rel)
{
	snprintf(buf, size, "%s/%s", dir, rel);
	return buf;
}

/* Remove the files and directories at exit. */
static void cleanup(void)
{
	char p[sizeof dir + 32];

	unlink(in_dir(p, sizeof p, "conf.d/inc.conf"));
	rmdir(in_dir(p, sizeof p, "conf.d"));
	unlink(in_dir(p, sizeof p, "nginx.conf"));
	rmdir(dir);
}

/* Make DIR and DIR/conf.d (in /dev/shm when there is one); abort on failure. */
static void setup(void)
{
	char d1[] = "/dev/shm/lbt-fuzz-ngxconf.XXXXXX";
	char d2[] = "/tmp/lbt-fuzz-ngxconf.XXXXXX";
	char p[sizeof dir + 32];
	const char *d = mkdtemp(d1);

	if (d == NULL && (d = mkdtemp(d2)) == NULL)
		abort();
	snprintf(dir, sizeof dir, "%s", d);
	if (mkdir(in_dir(p, sizeof p, "conf.d"), 0700) != 0)
		abort();
	atexit(cleanup);
}

/* Write p[0..n) to DIR/rel; abort on failure. */
static void write_file(const char *rel, const uint8_t *p, size_t n)
{
	char path[sizeof dir + 32];
	int fd = open(in_dir(path, sizeof path, rel), O_WRONLY | O_CREAT | O_TRUNC, 0600);

	if (fd < 0 || (n > 0 && write(fd, p, n) != (ssize_t)n) || close(fd) != 0)
		abort();
}

/* Skip blanks and '#' comments from p; @return where the next word starts. */
static const uint8_t *skip_space(const uint8_t *p, const uint8_t *e)
{
	while (p < e && (strchr(" \t\r\n", *p) != NULL || *p == '#'))
		if (*p == '#')
			while (p < e && *p != '\n')
				p++;
		else
			p++;
	return p;
}

/*
 * True when the word after some "include" in p[0..n) could reach outside
 * DIR: it starts with '/', or holds ".." or a backslash (a glob escape).
 * The word is found as format_ngxconf.c reads it (blanks and comments
 * between, a quoted string or a bare word); a quote right after "include"
 * closes a quoted directive name.  Conservative: "include" inside a longer
 * word counts too, so a harmless input may be dropped, never a harmful one.
 */
static int escapes(const uint8_t *p, size_t n)
{
	const uint8_t *e = p + n;

	for (const uint8_t *s = p; (s = memmem(s, (size_t)(e - s), "include", 7)) != NULL;
	    s += 7) {
		const uint8_t *w = s + 7, *end;
		uint8_t q = 0;

		if (w < e && (*w == '"' || *w == '\''))
			w++;
		w = skip_space(w, e);
		if (w < e && (*w == '"' || *w == '\''))
			q = *w++;
		for (end = w; end < e && (q ? *end != q : strchr(" \t\r\n;{}\"'", *end) == NULL);
		    end++)
			if (*end == '\\' || (*end == '.' && end + 1 < e && end[1] == '.'))
				return 1;
		if (w < e && *w == '/')
			return 1;
	}
	return 0;
}

/* A compiled format reads each sample line: OK, SKIP, or BAD with a reason. */
static void check_format(lbt_format *f)
{
	lbt_rec rec;
	lbt_err err;

	if (lbt_format_name(f) == NULL || lbt_format_describe(f) == NULL ||
	    lbt_format_template(f) == NULL)
		abort();
	for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++) {
		int r;

		memset(&err, 0, sizeof err);
		r = lbt_format_parse(f, samples[i], strlen(samples[i]), &rec, &err);
		if (r != LBT_PARSE_OK && r != LBT_PARSE_SKIP && r != LBT_PARSE_BAD)
			abort();
		if (r == LBT_PARSE_BAD && err.msg[0] == '\0')
			abort();
	}
}

/* Ask for log format `name` (NULL: the first access_log's); check what comes back. */
static void try_name(const char *name)
{
	char path[sizeof dir + 32];
	lbt_err err;
	lbt_format *f;

	memset(&err, 0, sizeof err);
	f = lbt_format_from_nginx_conf(in_dir(path, sizeof path, "nginx.conf"), name, &err);
	if (f == NULL) {
		if (err.msg[0] == '\0' || err.file[0] == '\0')
			abort();
		return;
	}
	check_format(f);
	lbt_format_free(f);
}

/*
 * The name of the first "log_format NAME" in p[0..n) into buf (letters,
 * digits, '_', '-'), or "combined" when there is none.
 */
static const char *first_name(const uint8_t *p, size_t n, char *buf, size_t size)
{
	const uint8_t *e = p + n, *s = memmem(p, n, "log_format", 10);
	size_t k = 0;

	if (s != NULL)
		for (s += 10; s < e && (*s == ' ' || *s == '\t'); s++)
			;
	while (s != NULL && s < e && k + 1 < size && (isalnum(*s) || *s == '_' || *s == '-'))
		buf[k++] = (char)*s++;
	buf[k] = '\0';
	return k > 0 ? buf : "combined";
}

/* One nginx.conf (and its included file) through the reader. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *sep = memmem(data, size, SEP, strlen(SEP));
	size_t n1 = sep ? (size_t)(sep - data) : size;
	const uint8_t *inc = sep ? sep + strlen(SEP) : data + size;
	char name[64];

	if (dir[0] == '\0')
		setup();
	if (escapes(data, size))
		return -1;
	write_file("nginx.conf", data, n1);
	write_file("conf.d/inc.conf", inc, (size_t)(data + size - inc));
	try_name(NULL);
	try_name(first_name(data, size, name, sizeof name));
	return 0;
}
