/*
 * check_hacfg.c - unit tests for lib/config/hacfg.c: word splitting (blanks, '#',
 * backslash escapes, quotes, ${VAR} expansion), sections and the defaults
 * each one starts from, conditional blocks, and the errors with file:line.
 *
 * Every expected value is written by hand from HAProxy 2.6's rules (see
 * hacfg.h); the splitting cases marked "haproxy" were also checked with
 * `.notice <line>` under `haproxy -c` (HAProxy 2.6.12), which prints the
 * first word, and names the second in its "Unexpected argument" alert.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lbt/binds.h"
#include "lbt/hacfg.h"

/* Write text[0..len) to a new temporary file.  @return its path (static) */
static const char *tmpcfg(const char *text, size_t len)
{
	static char path[64];
	int fd;

	strcpy(path, "/tmp/check_hacfg_XXXXXX");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, len), (ssize_t)len);
	close(fd);
	return path;
}

/* Read text[0..len) as a file with opts.  @return the config, or NULL with err */
static lbt_hacfg *read_n(const char *text, size_t len, const lbt_hacfg_opts *o, lbt_err *err)
{
	const char *path = tmpcfg(text, len);
	lbt_hacfg *c = lbt_hacfg_read(path, o, err);

	unlink(path);
	return c;
}

/* Read the string text as a file (see read_n). */
static lbt_hacfg *read_text(const char *text, const lbt_hacfg_opts *o, lbt_err *err)
{
	return read_n(text, strlen(text), o, err);
}

/*
 * Words of `line` read as line 2 of a file, in the global section:
 * "[w1][w2]...", "" for no directive.  *unset (may be NULL) gets the
 * unset variable noted on the line, "" none.
 */
static const char *words_o(const char *line, const lbt_hacfg_opts *o, const char **unset)
{
	static char out[1024], un[128];
	char text[2048];
	lbt_err err;
	lbt_hacfg *c;
	const lbt_hacfg_sect *s;
	size_t n = 0;

	snprintf(text, sizeof text, "global\n%s\n", line);
	c = read_text(text, o, &err);
	ck_assert_msg(c != NULL, "%s: %s", line, err.msg);
	s = lbt_hacfg_at(c, 0);
	ck_assert_uint_le(s->ndir, 1);
	out[0] = un[0] = '\0';
	for (int i = 0; s->ndir == 1 && i < s->dir[0].nword; i++)
		n += (size_t)snprintf(out + n, sizeof out - n, "[%s]", s->dir[0].word[i]);
	if (s->ndir == 1) {
		ck_assert_uint_eq(s->dir[0].line, 2);
		snprintf(un, sizeof un, "%s", s->dir[0].unset ? s->dir[0].unset : "");
	}
	if (unset != NULL)
		*unset = un;
	lbt_hacfg_free(c);
	return out;
}

/* Words of line, no options (see words_o). */
static const char *words(const char *line)
{
	return words_o(line, NULL, NULL);
}

/* Error of reading text: "FILE:LINE: msg" with FILE replaced by "cfg". */
static const char *error_of(const char *text)
{
	static char out[600];
	lbt_err err;

	ck_assert_ptr_null(read_text(text, NULL, &err));
	ck_assert_str_ne(err.file, "");
	snprintf(out, sizeof out, "cfg:%llu: %s", (unsigned long long)err.line, err.msg);
	return out;
}

/* Error of `line` as line 2 of a global section (see error_of). */
static const char *line_error(const char *line)
{
	char text[2048];

	snprintf(text, sizeof text, "global\n%s\n", line);
	return error_of(text);
}

/* One bind element's address as text, "-" a wildcard or socket, "!" an error. */
static const char *bind_addr(const char *w)
{
	static char buf[LBT_ADDR_STRLEN];
	lbt_addr a;
	int r = lbt_binds_parse(w, strlen(w), &a);

	return r < 0 ? "!" : r == 0 ? "-" : lbt_addr_format(&a, buf, sizeof buf);
}

/* The forms of a bind address (binds.h). */
START_TEST(bind_addresses)
{
	ck_assert_str_eq(bind_addr("192.0.2.1:80"), "192.0.2.1");
	ck_assert_str_eq(bind_addr("192.0.2.1:8000-8010"), "192.0.2.1");
	ck_assert_str_eq(bind_addr("[2001:db8::5]:443"), "2001:db8::5");
	ck_assert_str_eq(bind_addr("2001:db8::5:443"), "2001:db8::5");
	ck_assert_str_eq(bind_addr("ipv4@203.0.113.9:8443"), "203.0.113.9");
	ck_assert_str_eq(bind_addr("quic6@[2001:db8::6]:443"), "2001:db8::6");
	ck_assert_str_eq(bind_addr(":80"), "-");
	ck_assert_str_eq(bind_addr("*:80"), "-");
	ck_assert_str_eq(bind_addr("0.0.0.0:80"), "-");
	ck_assert_str_eq(bind_addr(":::80"), "-");
	ck_assert_str_eq(bind_addr("[::]:80"), "-");
	ck_assert_str_eq(bind_addr("unix@/run/h.sock"), "-");
	ck_assert_str_eq(bind_addr("/run/h.sock"), "-");
	ck_assert_str_eq(bind_addr("fd@3"), "-");
	ck_assert_str_eq(bind_addr("192.0.2.300:80"), "!");
	ck_assert_str_eq(bind_addr("[2001:db8::5:443"), "!");
}
END_TEST

/* Every address of the bind lines of frontends and listens, in order. */
static int collect(void *ctx, const lbt_addr *a, const char *file, uint64_t line,
    lbt_err *err)
{
	char *out = ctx, buf[LBT_ADDR_STRLEN];

	(void)file;
	(void)err;
	snprintf(out + strlen(out), 256 - strlen(out), "%s@%llu ", lbt_addr_format(a, buf,
	    sizeof buf), (unsigned long long)line);
	return 0;
}

START_TEST(bind_lines)
{
	char path[] = "/tmp/check_hacfg_XXXXXX", got[256] = "";
	int fd = mkstemp(path);
	FILE *fp = fdopen(fd, "w");
	lbt_err err;

	ck_assert_ptr_nonnull(fp);
	fputs("global\n    maxconn 10\nfrontend f\n    bind 192.0.2.1:80,[2001:db8::5]:443\n"
	    "    bind :8080\nbackend b\n    server s 198.51.100.1:80\n"
	    "listen l\n    bind 203.0.113.9:81 ssl crt x.pem\n", fp);
	fclose(fp);
	ck_assert_int_eq(lbt_binds_read(path, collect, got, &err), 0);
	ck_assert_str_eq(got, "192.0.2.1@4 2001:db8::5@4 203.0.113.9@9 ");
	unlink(path);
}
END_TEST

/* Blanks separate words; '#' ends the line, even inside a word. */
START_TEST(split_blanks_comments)
{
	ck_assert_str_eq(words("  a  b\tc  "), "[a][b][c]");
	ck_assert_str_eq(words("\t\tmaxconn\t20"), "[maxconn][20]");
	ck_assert_str_eq(words("a#b c"), "[a]");                   /* haproxy */
	ck_assert_str_eq(words("a # b"), "[a]");
	ck_assert_str_eq(words("# only a comment"), "");
	ck_assert_str_eq(words("   "), "");
	ck_assert_str_eq(words("a\rb c"), "[a]");                   /* haproxy: CR ends it */
	ck_assert_str_eq(words("a\vb"), "[a][b]");                  /* any isspace() */
}
END_TEST

/* Backslash escapes outside single quotes. */
START_TEST(split_backslash)
{
	ck_assert_str_eq(words("a\\ b c"), "[a b][c]");             /* haproxy */
	ck_assert_str_eq(words("\"a\\ b\""), "[a b]");              /* haproxy */
	ck_assert_str_eq(words("\\#x"), "[#x]");                    /* haproxy */
	ck_assert_str_eq(words("\\q"), "[\\q]");                    /* haproxy: kept */
	ck_assert_str_eq(words("\\\\"), "[\\]");
	ck_assert_str_eq(words("a\\tb"), "[a\tb]");
	ck_assert_str_eq(words("\\x41\\x4a"), "[AJ]");              /* haproxy */
	ck_assert_str_eq(words("\\\"x \\'y"), "[\"x]['y]");
	ck_assert_str_eq(words("\"\\$X\""), "[$X]");                /* haproxy */
	ck_assert_str_eq(words("\\$X"), "[\\$X]");                  /* haproxy: only in "" */
	ck_assert_str_eq(words("a\\"), "[a\\]");
	ck_assert_str_eq(words("'a\\ b'"), "[a\\ b]");              /* literal in '' */
}
END_TEST

/* Quotes keep blanks and '#', are removed, and glue to their neighbours. */
START_TEST(split_quotes)
{
	ck_assert_str_eq(words("\"a b\" 'c d'"), "[a b][c d]");     /* haproxy */
	ck_assert_str_eq(words("a\"b c\"d"), "[ab cd]");            /* haproxy */
	ck_assert_str_eq(words("'a\"b' \"a'b\""), "[a\"b][a'b]");
	ck_assert_str_eq(words("\"# no comment\""), "[# no comment]");
	ck_assert_str_eq(words("'$HOME' $HOME"), "[$HOME][$HOME]");
	ck_assert_str_eq(words("a \"\" b"), "[a][][b]");
	ck_assert_str_eq(words("a \"\""), "[a]");                   /* a last empty word is dropped */
	ck_assert_str_eq(words("\"\" a"), "");                      /* empty first word: empty line */
}
END_TEST

/* ${VAR} and $VAR inside double quotes. */
START_TEST(split_variables)
{
	const char *unset;

	setenv("LBT_HACFG_A", "x  y", 1);
	unsetenv("LBT_HACFG_UNSET");
	ck_assert_str_eq(words("\"${LBT_HACFG_A}\""), "[x  y]");
	ck_assert_str_eq(words("\"$LBT_HACFG_A/z\""), "[x  y/z]");
	ck_assert_str_eq(words("${LBT_HACFG_A}"), "[${LBT_HACFG_A}]");   /* haproxy: not outside "" */
	ck_assert_str_eq(words("\"${LBT_HACFG_A[*]}\""), "[x][y]");      /* haproxy */
	ck_assert_str_eq(words("\"${LBT_HACFG_UNSET-dflt x}\""), "[dflt x]");   /* haproxy */
	ck_assert_str_eq(words("\"${LBT_HACFG_A-dflt}\""), "[x  y]");
	ck_assert_str_eq(words("\"${.LINE}\""), "[2]");                  /* haproxy */
	ck_assert_str_eq(words("x \"${.SECTION}\""), "[x][global]");     /* haproxy */
	ck_assert_str_eq(words_o("\"${LBT_HACFG_UNSET}\"x", NULL, &unset), "[x]");
	ck_assert_str_eq(unset, "LBT_HACFG_UNSET");
	ck_assert_str_eq(words_o("\"${LBT_HACFG_A}\"", NULL, &unset), "[x  y]");
	ck_assert_str_eq(unset, "");
}
END_TEST

/* lbt_hacfg_opts.var: our value for ${HAPROXY_HTTP_LOG_FMT}, else the environment. */
static const char *test_var(void *arg, const char *name)
{
	return strcmp(name, "HAPROXY_HTTP_LOG_FMT") == 0 ? (const char *)arg : NULL;
}

/* ${HAPROXY_HTTP_LOG_FMT}: unknown to the environment, known through opts.var. */
START_TEST(split_opts_var)
{
	lbt_hacfg_opts o = { test_var, "%ci [%tr] %ST" };
	const char *unset;

	setenv("LBT_HACFG_A", "x", 1);
	unsetenv("HAPROXY_HTTP_LOG_FMT");
	ck_assert_str_eq(words_o("log-format \"${HAPROXY_HTTP_LOG_FMT}\"", NULL, &unset),
	    "[log-format]");
	ck_assert_str_eq(unset, "HAPROXY_HTTP_LOG_FMT");
	ck_assert_str_eq(words_o("log-format \"${HAPROXY_HTTP_LOG_FMT} %B\"", &o, &unset),
	    "[log-format][%ci [%tr] %ST %B]");
	ck_assert_str_eq(unset, "");
	ck_assert_str_eq(words_o("\"${LBT_HACFG_A}\"", &o, NULL), "[x]");
}
END_TEST

/* Splitting errors name file and line. */
START_TEST(split_errors)
{
	char line[1024];
	size_t n = 0;

	ck_assert_str_eq(line_error("log-format \"%ci %ST"), "cfg:2: unterminated double quote");
	ck_assert_str_eq(line_error("a 'b"), "cfg:2: unterminated single quote");
	ck_assert_str_eq(line_error("a \"b\\\""), "cfg:2: unterminated double quote");
	ck_assert_str_eq(line_error("\\xZZ"), "cfg:2: truncated or invalid hexadecimal sequence");
	ck_assert_str_eq(line_error("\\x4"), "cfg:2: truncated or invalid hexadecimal sequence");
	ck_assert_str_eq(line_error("\"5$\""),
	    "cfg:2: forbidden first character in environment variable name");
	ck_assert_str_eq(line_error("\"${HOME\""),
	    "cfg:2: unmatched brace in environment variable name");
	ck_assert_str_eq(line_error("\"${HOME[x]}\""),
	    "cfg:2: truncated or invalid word expansion sequence");
	ck_assert_str_eq(line_error("\"${.NOPE}\""), "cfg:2: unknown internal variable '.NOPE'");
	/* 64 words are fine; a blank after the 64th is a 65th (haproxy) */
	for (int i = 1; i <= 64; i++)
		n += (size_t)snprintf(line + n, sizeof line - n, "%sw%d", i > 1 ? " " : "", i);
	ck_assert_str_eq(words(line) + 0, "[w1][w2][w3][w4][w5][w6][w7][w8][w9][w10][w11][w12]"
	    "[w13][w14][w15][w16][w17][w18][w19][w20][w21][w22][w23][w24][w25][w26][w27][w28]"
	    "[w29][w30][w31][w32][w33][w34][w35][w36][w37][w38][w39][w40][w41][w42][w43][w44]"
	    "[w45][w46][w47][w48][w49][w50][w51][w52][w53][w54][w55][w56][w57][w58][w59][w60]"
	    "[w61][w62][w63][w64]");
	strcat(line, " ");
	ck_assert_str_eq(line_error(line), "cfg:2: too many words (more than 64)");
	strcat(line, "w65");
	ck_assert_str_eq(line_error(line), "cfg:2: too many words (more than 64)");
}
END_TEST

static const char sections_text[] =
	"# sections and their defaults\n"    /* 1 */
	"global\n"                           /* 2 */
	"    maxconn 100\n"                  /* 3 */
	"defaults\n"                         /* 4 */
	"    mode http\n"                    /* 5 */
	"defaults base\n"                    /* 6 */
	"    mode tcp\n"                     /* 7 */
	"defaults child from base\n"         /* 8 */
	"    timeout client 5s\n"            /* 9 */
	"frontend fe1\n"                     /* 10 */
	"\n"                                 /* 11 */
	"    bind :80  # web\n"              /* 12 */
	"frontend fe2 from base\n"           /* 13 */
	"listen li from child\n"             /* 14 */
	"backend be\n"                       /* 15 */
	"defaults from base\n"               /* 16 */
	"peers mypeers\n"                    /* 17 */
	"    peer a 127.0.0.1:1024\n"        /* 18 */
	"frontend fe3\n";                    /* 19 */

/* Check section i: kind, keyword, name, from, line, index of its defaults (-1 none). */
static void sect_is(const lbt_hacfg *c, size_t i, lbt_hacfg_kind kind, const char *kw,
    const char *name, const char *from, uint64_t line, long defaults)
{
	const lbt_hacfg_sect *s = lbt_hacfg_at(c, i);

	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(s->kind, kind);
	ck_assert_str_eq(s->keyword, kw);
	ck_assert_str_eq(s->name, name);
	ck_assert_str_eq(s->from, from);
	ck_assert_uint_eq(s->line, line);
	if (defaults < 0)
		ck_assert_ptr_null(s->defaults);
	else
		ck_assert_ptr_eq(s->defaults, lbt_hacfg_at(c, (size_t)defaults));
}

/*
 * Sections in file order.  A defaults section starts from nothing unless
 * "from" (child: base); a proxy from "from", else the last defaults above
 * (fe1, li's explicit child, be: child; fe3: the unnamed one of line 16,
 * itself from base); a peers section from nothing.
 */
START_TEST(sections)
{
	lbt_err err;
	lbt_hacfg *c = read_text(sections_text, NULL, &err);
	const lbt_hacfg_sect *s;

	ck_assert_msg(c != NULL, "%s", err.msg);
	ck_assert_uint_eq(lbt_hacfg_count(c), 11);
	sect_is(c, 0, LBT_HACFG_GLOBAL, "global", "", "", 2, -1);
	sect_is(c, 1, LBT_HACFG_DEFAULTS, "defaults", "", "", 4, -1);
	sect_is(c, 2, LBT_HACFG_DEFAULTS, "defaults", "base", "", 6, -1);
	sect_is(c, 3, LBT_HACFG_DEFAULTS, "defaults", "child", "base", 8, 2);
	sect_is(c, 4, LBT_HACFG_FRONTEND, "frontend", "fe1", "", 10, 3);
	sect_is(c, 5, LBT_HACFG_FRONTEND, "frontend", "fe2", "base", 13, 2);
	sect_is(c, 6, LBT_HACFG_LISTEN, "listen", "li", "child", 14, 3);
	sect_is(c, 7, LBT_HACFG_BACKEND, "backend", "be", "", 15, 3);
	sect_is(c, 8, LBT_HACFG_DEFAULTS, "defaults", "", "base", 16, 2);
	sect_is(c, 9, LBT_HACFG_OTHER, "peers", "mypeers", "", 17, -1);
	sect_is(c, 10, LBT_HACFG_FRONTEND, "frontend", "fe3", "", 19, 8);
	ck_assert_ptr_null(lbt_hacfg_at(c, 11));
	s = lbt_hacfg_at(c, 4);
	ck_assert_uint_eq(s->ndir, 1);
	ck_assert_uint_eq(s->dir[0].line, 12);
	ck_assert_int_eq(s->dir[0].nword, 2);
	ck_assert_str_eq(s->dir[0].word[0], "bind");
	ck_assert_str_eq(s->dir[0].word[1], ":80");
	ck_assert_ptr_null(s->dir[0].unset);
	s = lbt_hacfg_at(c, 9);
	ck_assert_uint_eq(s->ndir, 1);
	ck_assert_int_eq(s->dir[0].nword, 3);
	ck_assert_str_eq(s->dir[0].word[2], "127.0.0.1:1024");
	ck_assert_uint_eq(lbt_hacfg_at(c, 0)->dir[0].line, 3);
	ck_assert_uint_eq(lbt_hacfg_at(c, 5)->ndir, 0);
	ck_assert_ptr_eq(lbt_hacfg_frontend(c, "fe2", 3), lbt_hacfg_at(c, 5));
	ck_assert_ptr_eq(lbt_hacfg_frontend(c, "li", 2), lbt_hacfg_at(c, 6));
	ck_assert_ptr_eq(lbt_hacfg_frontend(c, "fe1~", 3), lbt_hacfg_at(c, 4));
	ck_assert_ptr_null(lbt_hacfg_frontend(c, "be", 2));       /* a backend */
	ck_assert_ptr_null(lbt_hacfg_frontend(c, "base", 4));     /* a defaults section */
	ck_assert_ptr_null(lbt_hacfg_frontend(c, "fe", 2));
	lbt_hacfg_free(c);
	lbt_hacfg_free(NULL);
}
END_TEST

/* Section errors: "from" naming no (or two) defaults above, no name, no section. */
START_TEST(section_errors)
{
	lbt_err err;

	ck_assert_str_eq(error_of("frontend fe from nowhere\n"),
	    "cfg:1: 'from nowhere': no defaults section of that name above");
	ck_assert_str_eq(error_of("global\nfrontend fe from later\ndefaults later\n"),
	    "cfg:2: 'from later': no defaults section of that name above");
	ck_assert_str_eq(error_of("defaults a\ndefaults b\ndefaults a\nbackend be from a\n"),
	    "cfg:4: 'from a': ambiguous, defaults sections of that name at lines 1 and 3");
	ck_assert_str_eq(error_of("defaults x from nowhere\n"),
	    "cfg:1: 'from nowhere': no defaults section of that name above");
	ck_assert_str_eq(error_of("global\nfrontend\n"), "cfg:2: 'frontend' expects a name");
	ck_assert_str_eq(error_of("# top\nmaxconn 5\n"), "cfg:2: 'maxconn' outside any section");
	ck_assert_ptr_null(read_n("global\n  a b\0c\n", 15, NULL, &err));
	ck_assert_uint_eq(err.line, 2);
	ck_assert_str_eq(err.msg, "stray NUL character at column 6");
	ck_assert_ptr_null(lbt_hacfg_read("/nonexistent/haproxy.cfg", NULL, &err));
	ck_assert_str_eq(err.file, "/nonexistent/haproxy.cfg");
	ck_assert_uint_eq(err.line, 0);
	ck_assert_str_eq(err.msg, "No such file or directory");
}
END_TEST

static const char cond_text[] =
	"global\n"                                  /* 1 */
	".if defined(LBT_HACFG_A)\n"                /* 2 */
	"    a yes\n"                               /* 3 */
	".else\n"                                   /* 4 */
	"    a no\n"                                /* 5 */
	".endif\n"                                  /* 6 */
	".if 0\n"                                   /* 7 */
	"    b 1\n"                                 /* 8 */
	".elif streq(x,x) && !0\n"                  /* 9 */
	"    b 2\n"                                 /* 10 */
	".else\n"                                   /* 11 */
	"    b 3\n"                                 /* 12 */
	".endif\n"                                  /* 13 */
	".if 1 || feature(OPENSSL)\n"               /* 14 */
	"    c 1\n"                                 /* 15 */
	"  .if 0\n"                                 /* 16 */
	"    c 2\n"                                 /* 17 */
	"  .elif 1\n"                               /* 18 */
	"    c 3\n"                                 /* 19 */
	"  .endif\n"                                /* 20 */
	".elif 1\n"                                 /* 21 */
	"    c 4\n"                                 /* 22 */
	".endif\n"                                  /* 23 */
	".if (0 || 0x10) && strneq(a,b) && !defined(LBT_HACFG_UNSET)\n"   /* 24 */
	"    d 1\n"                                 /* 25 */
	".endif\n"                                  /* 26 */
	".notice \"hello\"\n"                       /* 27 */
	".if\n"                                     /* 28 */
	"frontend hidden\n"                         /* 29 */
	".endif\n"                                  /* 30 */
	".if 0\n"                                   /* 31 */
	"  .if feature(OPENSSL)\n"                  /* 32: not evaluated */
	"  .endif\n"                                /* 33 */
	".endif\n";                                 /* 34 */

/*
 * Taken: line 3 (A is set), 10 (0 is false, the .elif true), 15 and 19
 * (the inner .elif), 25; 22 is skipped (a branch was taken), so are the
 * empty .if (false) and the nested block under .if 0.
 */
START_TEST(conditions)
{
	static const uint64_t want[] = { 3, 10, 15, 19, 25 };
	lbt_err err;
	lbt_hacfg *c;
	const lbt_hacfg_sect *s;

	setenv("LBT_HACFG_A", "1", 1);
	unsetenv("LBT_HACFG_UNSET");
	c = read_text(cond_text, NULL, &err);
	ck_assert_msg(c != NULL, "%s", err.msg);
	ck_assert_uint_eq(lbt_hacfg_count(c), 1);
	s = lbt_hacfg_at(c, 0);
	ck_assert_uint_eq(s->ndir, 5);
	for (size_t i = 0; i < 5; i++)
		ck_assert_uint_eq(s->dir[i].line, want[i]);
	ck_assert_str_eq(s->dir[0].word[1], "yes");
	ck_assert_str_eq(s->dir[1].word[1], "2");
	lbt_hacfg_free(c);
}
END_TEST

/* Bad conditional blocks and '.' directives. */
START_TEST(condition_errors)
{
	lbt_err err;
	lbt_hacfg *c;

	ck_assert_str_eq(line_error(".if feature(OPENSSL)"), "cfg:2: cannot evaluate feature() "
	    "here: it depends on the HAProxy that reads the file");
	ck_assert_str_eq(line_error(".if version_atleast(2.5)"), "cfg:2: cannot evaluate "
	    "version_atleast() here: it depends on the HAProxy that reads the file");
	ck_assert_str_eq(line_error(".if bogus"), "cfg:2: unparsable conditional expression 'bogus'");
	ck_assert_str_eq(line_error(".if defined(X) foo"), "cfg:2: unexpected character 'f' at "
	    "the end of conditional expression 'defined(X) foo'");
	ck_assert_str_eq(line_error(".if (1"), "cfg:2: expected ')' in conditional expression '(1'");
	ck_assert_str_eq(line_error(".if streq(a)"), "cfg:2: streq() expects two arguments in "
	    "'streq(a)'");
	ck_assert_str_eq(line_error(".endif"), "cfg:2: lone '.endif' with no matching '.if'");
	ck_assert_str_eq(line_error(".else"), "cfg:2: lone '.else' with no matching '.if'");
	ck_assert_str_eq(error_of("global\n.if 1\n.else\n.elif 1\n.endif\n"),
	    "cfg:4: '.elif' after '.else' is not permitted");
	ck_assert_str_eq(error_of("global\n.if 1\n  a b\n"), "cfg:2: non-terminated '.if' block");
	ck_assert_str_eq(line_error(".alert \"stop here\""), "cfg:2: '.alert' directive: 'stop here'");
	ck_assert_str_eq(line_error(".foo"), "cfg:2: unknown directive '.foo'");
	/* in a skipped block, .alert is skipped too */
	c = read_text("global\n.if 0\n.alert x\n.foo\n.endif\n", NULL, &err);
	ck_assert_msg(c != NULL, "%s", err.msg);
	lbt_hacfg_free(c);
}
END_TEST

/* The hacfg suite. */
static Suite *hacfg_suite(void)
{
	Suite *s = suite_create("hacfg");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, split_blanks_comments);
	tcase_add_test(tc, split_backslash);
	tcase_add_test(tc, split_quotes);
	tcase_add_test(tc, split_variables);
	tcase_add_test(tc, split_opts_var);
	tcase_add_test(tc, split_errors);
	tcase_add_test(tc, sections);
	tcase_add_test(tc, section_errors);
	tcase_add_test(tc, conditions);
	tcase_add_test(tc, condition_errors);
	tcase_add_test(tc, bind_addresses);
	tcase_add_test(tc, bind_lines);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(hacfg_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
