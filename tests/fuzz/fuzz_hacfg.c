/*
 * fuzz_hacfg.c - libFuzzer target: the haproxy.cfg readers.  The input is
 * a haproxy.cfg, written to a file in a temporary directory (the readers
 * take paths), then read by:
 *   lbt_hacfg_read        words and sections (lib/config/hacfg.c)
 *   lbt_maxconn_cfg_read  maxconn values (lib/config/maxconn.c)
 *   lbt_format_from_haproxy_cfg  the log format of a proxy, for the one
 *                         that logs and for each proxy by name
 *                         (lib/read/format_cfg.c)
 *
 *     make fuzz            # builds every target, runs each FUZZ_SECONDS
 *
 * Whatever the bytes: no crash, no sanitizer report; a failure says why
 * and names the file.  What hacfg.h promises is checked on what it
 * returns: 1..64 words, word[0] never empty, line numbers within the file
 * and rising through it, each proxy tied to the right defaults section
 * (its `from`, else the last defaults above it), lbt_hacfg_frontend()
 * finding each frontend and listen section by name.  maxconn fails when
 * hacfg does, with the same message; a value it gives is set by a maxconn
 * line of the file that it names, and a trailing '~' on the proxy name
 * changes nothing (maxconn.h).  A compiled format reads sample lines with
 * OK, SKIP or a reason.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lbt/format.h"
#include "lbt/hacfg.h"
#include "lbt/maxconn.h"

static char path[4096];          /* haproxy.cfg, in a directory made once */

/* Lines given to every format compiled from the file. */
#define HTTPLOG "192.0.2.10:36349 [30/Nov/2026:07:49:44.526] fe_http be_app/app1 " \
	"0/0/0/0/0 200 125 - - ---- 1/1/0/0/0 0/0 {hc-ping.com|curl/7.88.1} " \
	"\"GET /ping/f768064f HTTP/1.1\""
static const char *const samples[] = {
	HTTPLOG,
	"192.0.2.12:36293 [30/Nov/2026:07:49:45.239] fe_tcp be_tcp/app1 1/0/0 145 -- 1/1/0/0/0 0/0",
	"{\"ci\":\"192.0.2.10\",\"st\":200,\"r\":\"GET / HTTP/1.1\"}",
	"",
};

/* Remove the file and its directory at exit. */
static void cleanup(void)
{
	char *slash = strrchr(path, '/');

	unlink(path);
	if (slash != NULL) {
		*slash = '\0';
		rmdir(path);
	}
}

/* Make the temporary directory (in /dev/shm when there is one); abort on failure. */
static void setup(void)
{
	char dir[] = "/dev/shm/lbt-fuzz-hacfg.XXXXXX";
	char alt[] = "/tmp/lbt-fuzz-hacfg.XXXXXX";
	const char *d = mkdtemp(dir);

	if (d == NULL && (d = mkdtemp(alt)) == NULL)
		abort();
	snprintf(path, sizeof path, "%s/haproxy.cfg", d);
	atexit(cleanup);
}

/* Write data[0..n) to the file; abort on failure. */
static void write_file(const uint8_t *data, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	if (fd < 0 || (n > 0 && write(fd, data, n) != (ssize_t)n) || close(fd) != 0)
		abort();
}

/* A failure: a message, and the file named in it. */
static void check_failure(const lbt_err *err)
{
	if (err->msg[0] == '\0' || strcmp(err->file, path) != 0)
		abort();
}

/* Index of section s in c, or abort when it is not one of c's. */
static size_t index_of(const lbt_hacfg *c, const lbt_hacfg_sect *s)
{
	for (size_t i = 0; i < lbt_hacfg_count(c); i++)
		if (lbt_hacfg_at(c, i) == s)
			return i;
	abort();
}

/* The last defaults section before section i, or NULL. */
static const lbt_hacfg_sect *last_defaults(const lbt_hacfg *c, size_t i)
{
	while (i-- > 0)
		if (lbt_hacfg_at(c, i)->kind == LBT_HACFG_DEFAULTS)
			return lbt_hacfg_at(c, i);
	return NULL;
}

/*
 * Section i starts from the right defaults (hacfg.h): its `from` X, a
 * defaults section above it; else, for a proxy, the last defaults above
 * it; a defaults section without `from` starts from nothing.
 */
static void check_defaults(const lbt_hacfg *c, size_t i)
{
	const lbt_hacfg_sect *s = lbt_hacfg_at(c, i), *d = s->defaults;
	int proxy = s->kind == LBT_HACFG_FRONTEND || s->kind == LBT_HACFG_LISTEN ||
	    s->kind == LBT_HACFG_BACKEND;

	if (d != NULL && (d->kind != LBT_HACFG_DEFAULTS || index_of(c, d) >= i))
		abort();
	if (s->from[0] != '\0' && (d == NULL || strcmp(d->name, s->from) != 0))
		abort();
	if (s->from[0] == '\0' && proxy && d != last_defaults(c, i))
		abort();
	if (s->from[0] == '\0' && s->kind == LBT_HACFG_DEFAULTS && d != NULL)
		abort();
}

/* The directives of section s: words as promised, lines rising after *line. */
static void check_dirs(const lbt_hacfg_sect *s, uint64_t nlines, uint64_t *line)
{
	for (size_t k = 0; k < s->ndir; k++) {
		const lbt_hacfg_dir *d = &s->dir[k];

		if (d->nword < 1 || d->nword > LBT_HACFG_MAX_WORDS || d->word[0][0] == '\0')
			abort();
		for (int w = 0; w < d->nword; w++)
			if (d->word[w] == NULL)
				abort();
		if (d->line <= *line || d->line > nlines)
			abort();
		*line = d->line;
	}
}

/* Everything hacfg.h promises about a file read without error. */
static void check_sections(const lbt_hacfg *c, uint64_t nlines)
{
	uint64_t line = 0;

	if (lbt_hacfg_at(c, lbt_hacfg_count(c)) != NULL)
		abort();
	for (size_t i = 0; i < lbt_hacfg_count(c); i++) {
		const lbt_hacfg_sect *s = lbt_hacfg_at(c, i), *f;

		if (s->kind > LBT_HACFG_OTHER || s->keyword == NULL || s->name == NULL ||
		    s->from == NULL || s->line <= line || s->line > nlines)
			abort();
		line = s->line;
		check_dirs(s, nlines, &line);
		check_defaults(c, i);
		if (s->kind != LBT_HACFG_FRONTEND && s->kind != LBT_HACFG_LISTEN)
			continue;
		f = lbt_hacfg_frontend(c, s->name, strlen(s->name));
		if (f == NULL || strcmp(f->name, s->name) != 0 || index_of(c, f) > i)
			abort();
	}
}

/* The directive on line `line` of c, or NULL. */
static const lbt_hacfg_dir *dir_at(const lbt_hacfg *c, uint64_t line)
{
	for (size_t i = 0; i < lbt_hacfg_count(c); i++) {
		const lbt_hacfg_sect *s = lbt_hacfg_at(c, i);

		for (size_t k = 0; k < s->ndir; k++)
			if (s->dir[k].line == line)
				return &s->dir[k];
	}
	return NULL;
}

/*
 * A maxconn value v > 0 and its `where` ("PATH:LINE (...)"): the line is a
 * maxconn directive whose number is v.  0 means unknown.
 */
static void check_where(const lbt_hacfg *c, int32_t v, const char *where)
{
	size_t np = strlen(path);
	const lbt_hacfg_dir *d;
	char *end;
	unsigned long long line;

	if (v < 0)
		abort();
	if (v == 0)
		return;
	if (strncmp(where, path, np) != 0 || where[np] != ':')
		abort();
	line = strtoull(where + np + 1, &end, 10);
	if (strncmp(end, " (", 2) != 0 || (d = dir_at(c, line)) == NULL ||
	    strcmp(d->word[0], "maxconn") != 0 || d->nword < 2 ||
	    strtoll(d->word[1], NULL, 10) != v)
		abort();
}

/* maxconn against the sections read by hacfg (c, NULL when hacfg failed). */
static void check_maxconn(const lbt_hacfg *c, const lbt_err *herr)
{
	char where[8192], where2[8192], name[1024];
	lbt_err err;
	lbt_maxconn_cfg *m;

	memset(&err, 0, sizeof err);
	m = lbt_maxconn_cfg_read(path, &err);
	if (m == NULL) {
		check_failure(&err);
		if (c == NULL && strcmp(err.msg, herr->msg) != 0)
			abort();
		return;
	}
	if (c == NULL)
		abort();
	where[0] = '\0';
	check_where(c, lbt_maxconn_cfg_global(m, where, sizeof where), where);
	for (size_t i = 0; i < lbt_hacfg_count(c); i++) {
		const lbt_hacfg_sect *s = lbt_hacfg_at(c, i);
		size_t n = strlen(s->name);
		int32_t v, v2;

		if ((s->kind != LBT_HACFG_FRONTEND && s->kind != LBT_HACFG_LISTEN) ||
		    n + 1 >= sizeof name)
			continue;
		where[0] = where2[0] = '\0';
		v = lbt_maxconn_cfg_get(m, s->name, n, where, sizeof where);
		check_where(c, v, where);
		/* HAProxy refuses '~' in a proxy name: only %ft adds one */
		if (n > 0 && s->name[n - 1] == '~')
			continue;
		snprintf(name, sizeof name, "%s~", s->name);
		v2 = lbt_maxconn_cfg_get(m, name, n + 1, where2, sizeof where2);
		if (v2 != v || strcmp(where, where2) != 0)
			abort();
	}
	lbt_maxconn_cfg_free(m);
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

/* The format of proxy `fe` (NULL: the one that logs): compiled, or a failure that says why. */
static void try_format(const char *fe)
{
	lbt_err err;
	lbt_format *f;

	memset(&err, 0, sizeof err);
	f = lbt_format_from_haproxy_cfg(path, fe, &err);
	if (f == NULL) {
		check_failure(&err);
		return;
	}
	check_format(f);
	lbt_format_free(f);
}

/* Number of lines of data[0..n) as getline counts them. */
static uint64_t count_lines(const uint8_t *data, size_t n)
{
	uint64_t k = 1;

	for (size_t i = 0; i < n; i++)
		k += data[i] == '\n';
	return k;
}

/* One haproxy.cfg through every reader. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	lbt_hacfg *c;
	lbt_err err;

	if (path[0] == '\0')
		setup();
	write_file(data, size);
	memset(&err, 0, sizeof err);
	c = lbt_hacfg_read(path, NULL, &err);
	if (c == NULL)
		check_failure(&err);
	else
		check_sections(c, count_lines(data, size));
	check_maxconn(c, &err);
	try_format(NULL);
	for (size_t i = 0; c != NULL && i < lbt_hacfg_count(c) && i < 16; i++) {
		const lbt_hacfg_sect *s = lbt_hacfg_at(c, i);

		if (s->kind == LBT_HACFG_FRONTEND || s->kind == LBT_HACFG_LISTEN)
			try_format(s->name);
	}
	lbt_hacfg_free(c);
	return 0;
}
