/*
 * check_out.c - lib/out/out.c: TSV, NDJSON, aligned tables, Markdown, escaping
 * and write errors.  Expected texts are written out by hand.
 */
#include <check.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lbt/out.h"

static const lbt_out_col cols2[] = { { "name", LBT_COL_STR }, { "n", LBT_COL_NUM } };

/* Memory stream the writer prints into. */
struct cap {
	FILE *fp;
	char *text;
	size_t len;
};

/* Open a capture. */
static void cap_open(struct cap *c)
{
	c->text = NULL;
	c->len = 0;
	c->fp = open_memstream(&c->text, &c->len);
	ck_assert_ptr_nonnull(c->fp);
}

/* Close the capture; the caller frees c->text. */
static void cap_close(struct cap *c)
{
	fclose(c->fp);
}

/* Free the writer (must succeed) and compare the text with `want`. */
static void finish(struct cap *c, lbt_out *o, const char *want)
{
	ck_assert_int_eq(lbt_out_free(o), 0);
	cap_close(c);
	ck_assert_str_eq(c->text, want);
	free(c->text);
}

START_TEST(tsv_rows_and_escapes)
{
	struct cap c;
	lbt_out *o;

	cap_open(&c);
	o = lbt_out_new(c.fp, LBT_OUT_TSV, cols2, 2, 0);
	lbt_out_cstr(o, "a\tb");
	lbt_out_int(o, 1);
	lbt_out_str(o, "x\\y\nz\rq", 7);
	lbt_out_absent(o);
	lbt_out_cstr(o, NULL);
	lbt_out_double(o, 2.5, 2);
	lbt_out_str(o, "caf\xc3\xa9 \"q\"", 9);
	lbt_out_int(o, -1);
	finish(&c, o, "name\tn\n"
	    "a\\tb\t1\n"
	    "x\\\\y\\nz\\rq\t\n"
	    "\t2.50\n"
	    "caf\xc3\xa9 \"q\"\t-1\n");
}
END_TEST

START_TEST(tsv_header_only_and_no_header)
{
	struct cap c;
	lbt_out *o;

	cap_open(&c);
	o = lbt_out_new(c.fp, LBT_OUT_TSV, cols2, 2, 0);
	finish(&c, o, "name\tn\n");          /* no rows: the header still */

	cap_open(&c);
	o = lbt_out_new(c.fp, LBT_OUT_TSV, cols2, 2, 0);
	lbt_out_set_header(o, 0);
	lbt_out_cstr(o, "a");
	lbt_out_int(o, 7);
	finish(&c, o, "a\t7\n");

	cap_open(&c);                        /* a half row is completed */
	o = lbt_out_new(c.fp, LBT_OUT_TSV, cols2, 2, 0);
	lbt_out_cstr(o, "a");
	finish(&c, o, "name\tn\na\t\n");
}
END_TEST

START_TEST(json_escapes)
{
	static const lbt_out_col cols[] = { { "s", LBT_COL_STR } };
	struct cap c;
	lbt_out *o;

	cap_open(&c);
	o = lbt_out_new(c.fp, LBT_OUT_JSON, cols, 1, 0);
	lbt_out_cstr(o, "q\"b\\s/");
	lbt_out_cstr(o, "\b\f\n\r\t\x01\x1f\x7f");
	lbt_out_cstr(o, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");   /* é € 😀: valid */
	lbt_out_cstr(o, "caf\xe9!");                             /* Latin-1 é */
	lbt_out_cstr(o, "x\xc3");                                /* cut sequence */
	lbt_out_cstr(o, "\xc0\x80");                             /* overlong NUL */
	lbt_out_cstr(o, "\xed\xa0\x80");                         /* surrogate */
	lbt_out_cstr(o, "\xf4\x90\x80\x80");                     /* > U+10FFFF */
	lbt_out_cstr(o, "\x80\xbf");                             /* lone continuations */
	lbt_out_str(o, "a\0b", 3);                               /* NUL inside */
	lbt_out_cstr(o, NULL);
	finish(&c, o,
	    "{\"s\":\"q\\\"b\\\\s/\"}\n"
	    "{\"s\":\"\\b\\f\\n\\r\\t\\u0001\\u001f\\u007f\"}\n"
	    "{\"s\":\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"}\n"
	    "{\"s\":\"caf\\u00e9!\"}\n"
	    "{\"s\":\"x\\u00c3\"}\n"
	    "{\"s\":\"\\u00c0\\u0080\"}\n"
	    "{\"s\":\"\\u00ed\\u00a0\\u0080\"}\n"
	    "{\"s\":\"\\u00f4\\u0090\\u0080\\u0080\"}\n"
	    "{\"s\":\"\\u0080\\u00bf\"}\n"
	    "{\"s\":\"a\\u0000b\"}\n"
	    "{\"s\":null}\n");
}
END_TEST

START_TEST(json_numbers)
{
	static const lbt_out_col cols[] = {
		{ "n", LBT_COL_NUM }, { "m", LBT_COL_NUM }, { "t\"x", LBT_COL_STR },
	};
	struct cap c;
	lbt_out *o;

	cap_open(&c);
	o = lbt_out_new(c.fp, LBT_OUT_JSON, cols, 3, 0);
	lbt_out_int(o, -12);
	lbt_out_double(o, 0.125, 3);
	lbt_out_int(o, 5);                   /* a number in a string column: bare */
	lbt_out_cstr(o, "12");               /* text that is a number: bare */
	lbt_out_cstr(o, "012");              /* not JSON: quoted */
	lbt_out_cstr(o, "1e5");
	lbt_out_cstr(o, "-1.5E-3");
	lbt_out_cstr(o, "1.");
	lbt_out_double(o, 1.0 / 0.0, 1);     /* infinity: absent */
	finish(&c, o,
	    "{\"n\":-12,\"m\":0.125,\"t\\\"x\":5}\n"
	    "{\"n\":12,\"m\":\"012\",\"t\\\"x\":\"1e5\"}\n"
	    "{\"n\":-1.5E-3,\"m\":\"1.\",\"t\\\"x\":null}\n");
}
END_TEST

static const lbt_out_col cols3[] = {
	{ "source", LBT_COL_STR }, { "count", LBT_COL_NUM }, { "note", LBT_COL_STR },
};

START_TEST(table_aligned)
{
	struct cap c;
	lbt_out *o;

	cap_open(&c);
	o = lbt_out_new(c.fp, LBT_OUT_TABLE, cols3, 3, 0);
	lbt_out_cstr(o, "203.0.113.7");
	lbt_out_int(o, 1234);
	lbt_out_cstr(o, "tarpit");
	lbt_out_cstr(o, "2001:db8::/64");
	lbt_out_int(o, 5);
	lbt_out_absent(o);
	lbt_out_cstr(o, "caf\xc3\xa9");      /* 4 code points, 5 bytes */
	lbt_out_absent(o);
	lbt_out_cstr(o, "a\tb\x1b[31m");     /* tab and ESC escaped */
	/*
	 * Widths: source 13 (2001:db8::/64), count 5 (header), note 11
	 * (a\tb\x1b[31m escaped); the last column is not padded.
	 */
	finish(&c, o,
	    "source         count  note\n"
	    "203.0.113.7     1234  tarpit\n"
	    "2001:db8::/64      5  -\n"
	    "caf\xc3\xa9               -  a\\tb\\x1b[31m\n");
}
END_TEST

START_TEST(table_color_and_no_header)
{
	static const lbt_out_col cols[] = { { "k", LBT_COL_STR }, { "n", LBT_COL_NUM } };
	struct cap c;
	lbt_out *o;

	cap_open(&c);
	o = lbt_out_new(c.fp, LBT_OUT_TABLE, cols, 2, 1);
	lbt_out_cstr(o, "ab");
	lbt_out_absent(o);
	finish(&c, o,
	    "\033[1mk\033[0m   \033[1mn\033[0m\n"
	    "ab  \033[2m-\033[0m\n");

	cap_open(&c);
	o = lbt_out_new(c.fp, LBT_OUT_TABLE, cols, 2, 0);
	lbt_out_set_header(o, 0);
	lbt_out_cstr(o, "a");
	lbt_out_int(o, 10);
	lbt_out_cstr(o, "abc");
	lbt_out_int(o, 2);
	finish(&c, o, "a    10\nabc   2\n");
}
END_TEST

/* The second block is sized on its own rows, but never narrower than the first. */
START_TEST(table_blocks)
{
	static const lbt_out_col cols[] = { { "k", LBT_COL_STR }, { "n", LBT_COL_NUM } };
	struct cap c;
	lbt_out *o;
	char *second;

	cap_open(&c);
	o = lbt_out_new(c.fp, LBT_OUT_TABLE, cols, 2, 0);
	for (int i = 0; i < 1000; i++) {
		lbt_out_cstr(o, "abc");
		lbt_out_int(o, 1);
	}
	lbt_out_cstr(o, "abcdef");
	lbt_out_int(o, 22);
	lbt_out_cstr(o, "a");
	lbt_out_int(o, 3);
	ck_assert_int_eq(lbt_out_free(o), 0);
	cap_close(&c);
	/* First block: k width 3, n width 1.  Then k 6, n 2. */
	ck_assert(strncmp(c.text, "k    n\nabc  1\n", 14) == 0);
	second = c.text + strlen("k    n\n") + 1000 * strlen("abc  1\n");
	ck_assert_str_eq(second, "abcdef  22\na        3\n");
	free(c.text);
}
END_TEST

START_TEST(markdown)
{
	struct cap c;
	lbt_out *o;

	cap_open(&c);
	o = lbt_out_new(c.fp, LBT_OUT_MD, cols3, 3, 0);
	lbt_out_cstr(o, "a|b");
	lbt_out_int(o, 3);
	lbt_out_absent(o);
	lbt_out_cstr(o, "x\ny");
	lbt_out_double(o, 1.5, 1);
	lbt_out_cstr(o, "");
	finish(&c, o,
	    "| source | count | note |\n"
	    "| --- | ---: | --- |\n"
	    "| a\\|b | 3 | - |\n"
	    "| x\\ny | 1.5 |  |\n");
}
END_TEST

START_TEST(write_error)
{
	FILE *fp = fopen("/dev/full", "w");
	lbt_out *o;

	ck_assert_ptr_nonnull(fp);
	o = lbt_out_new(fp, LBT_OUT_TSV, cols2, 2, 0);
	lbt_out_cstr(o, "a");
	lbt_out_int(o, 1);
	ck_assert_int_eq(lbt_out_flush(o), -1);
	ck_assert_int_eq(lbt_out_free(o), -1);
	fclose(fp);
	ck_assert_int_eq(lbt_out_free(NULL), 0);
	ck_assert_ptr_null(lbt_out_new(stdout, LBT_OUT_TSV, cols2, 0, 0));
}
END_TEST

/* One special piece of input and its escaped form, written out by hand. */
struct piece {
	const char *in, *tsv, *json;
};

static const struct piece pieces[] = {
	{ "\t", "\\t", "\\t" },
	{ "\n", "\\n", "\\n" },
	{ "\r", "\\r", "\\r" },
	{ "\\", "\\\\", "\\\\" },
	{ "\"", "\"", "\\\"" },
	{ "\x01", "\\x01", "\\u0001" },
	{ "\x0f", "\\x0f", "\\u000f" },
	{ "\x1b", "\\x1b", "\\u001b" },                       /* ESC */
	{ "\x1f", "\\x1f", "\\u001f" },
	{ "\x7f", "\\x7f", "\\u007f" },                       /* DEL */
	{ "\xc2\x85", "\\xc2\\x85", "\\u0085" },               /* NEL, C1 */
	{ "\xc2\x9b", "\\xc2\\x9b", "\\u009b" },               /* CSI, C1 */
	{ "\xc2\xa0", "\xc2\xa0", "\xc2\xa0" },                 /* NBSP: no control */
	{ "\xe2\x80\xae", "\\xe2\\x80\\xae", "\\u202e" },      /* RLO, bidi */
	{ "\xe2\x81\xa6", "\\xe2\\x81\\xa6", "\\u2066" },      /* LRI, bidi */
	{ "\xe2\x80\x8f", "\\xe2\\x80\\x8f", "\\u200f" },      /* RLM, bidi */
	{ "\xd8\x9c", "\\xd8\\x9c", "\\u061c" },               /* ALM, bidi */
	{ "\xe2\x80\x94", "\xe2\x80\x94", "\xe2\x80\x94" },     /* em dash */
	{ "\xd8\xa7", "\xd8\xa7", "\xd8\xa7" },                 /* Arabic alef */
	{ "|", "|", "|" },
	{ "\xc3\xa9", "\xc3\xa9", "\xc3\xa9" },                   /* é */
	{ "\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80" },
	{ "\xe9", "\xe9", "\\u00e9" },                            /* Latin-1 é */
	{ "\xed\xa0\x80", "\xed\xa0\x80", "\\u00ed\\u00a0\\u0080" }, /* surrogate */
};

/*
 * Every piece at every offset 0..19 of a cell of 0..19 more 'b's: the
 * eight-byte scan and its byte tail must find it wherever it falls.  The
 * expected text is the filler around the hand-written escape.
 */
static void pieces_everywhere(lbt_out_mode mode)
{
	static const lbt_out_col col[] = { { "s", LBT_COL_STR } };
	char in[64], want[128];

	for (size_t p = 0; p < sizeof pieces / sizeof pieces[0]; p++) {
		const char *esc = mode == LBT_OUT_TSV ? pieces[p].tsv : pieces[p].json;

		for (int a = 0; a < 20; a++) {
			for (int b = 0; b < 20; b++) {
				struct cap c;
				lbt_out *o;

				snprintf(in, sizeof in, "%.*s%s%.*s", a, "aaaaaaaaaaaaaaaaaaaa",
				    pieces[p].in, b, "bbbbbbbbbbbbbbbbbbbb");
				snprintf(want, sizeof want, mode == LBT_OUT_TSV ? "%.*s%s%.*s\n" :
				    "{\"s\":\"%.*s%s%.*s\"}\n", a, "aaaaaaaaaaaaaaaaaaaa", esc,
				    b, "bbbbbbbbbbbbbbbbbbbb");
				cap_open(&c);
				o = lbt_out_new(c.fp, mode, col, 1, 0);
				lbt_out_set_header(o, 0);
				lbt_out_cstr(o, in);
				finish(&c, o, want);
			}
		}
	}
}

START_TEST(tsv_escape_at_every_offset)
{
	pieces_everywhere(LBT_OUT_TSV);
}
END_TEST

START_TEST(json_escape_at_every_offset)
{
	pieces_everywhere(LBT_OUT_JSON);
}
END_TEST

/*
 * Cells longer than the writer's row buffer (64 KiB), and rows that
 * overflow it across cells: a 200000-byte cell "x..x\t" repeated, in TSV
 * and JSON; the expected text is built piece by piece here.
 */
static void long_cells(lbt_out_mode mode)
{
	static const lbt_out_col col[] = { { "a", LBT_COL_STR }, { "b", LBT_COL_NUM } };
	const size_t n = 200000, rows = 3;
	char *in = malloc(n), *want = malloc(rows * (3 * n + 64) + 64), *w = want;
	struct cap c;
	lbt_out *o;

	ck_assert_ptr_nonnull(in);
	ck_assert_ptr_nonnull(want);
	for (size_t i = 0; i < n; i++)
		in[i] = i % 97 == 96 ? '\t' : 'x';
	if (mode == LBT_OUT_TSV)
		w += sprintf(w, "a\tb\n");
	cap_open(&c);
	o = lbt_out_new(c.fp, mode, col, 2, 0);
	for (size_t r = 0; r < rows; r++) {
		lbt_out_str(o, in, n - r);
		lbt_out_int(o, (int64_t)r);
		w += sprintf(w, mode == LBT_OUT_TSV ? "" : "{\"a\":\"");
		for (size_t i = 0; i < n - r; i++)
			w += in[i] == '\t' ? sprintf(w, "\\t") : sprintf(w, "x");
		w += sprintf(w, mode == LBT_OUT_TSV ? "\t%zu\n" : "\",\"b\":%zu}\n", r);
	}
	finish(&c, o, want);
	free(in);
	free(want);
}

START_TEST(tsv_longer_than_buffer)
{
	long_cells(LBT_OUT_TSV);
}
END_TEST

START_TEST(json_longer_than_buffer)
{
	long_cells(LBT_OUT_JSON);
}
END_TEST

/* Integers at the edges of the digit conversion, in every mode. */
START_TEST(int_edges)
{
	static const lbt_out_col col[] = { { "n", LBT_COL_NUM } };
	static const int64_t v[] = { 0, 9, 10, 99, 100, 999, 1000, 9999, 10000, 99999,
	    -1, -10, INT64_MAX, INT64_MIN };
	static const char *txt[] = { "0", "9", "10", "99", "100", "999", "1000", "9999",
	    "10000", "99999", "-1", "-10", "9223372036854775807", "-9223372036854775808" };

	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		static const lbt_out_mode modes[] = { LBT_OUT_TSV, LBT_OUT_JSON, LBT_OUT_MD };
		static const char *fmt[] = { "%s\n", "{\"n\":%s}\n", "| n |\n| ---: |\n| %s |\n" };

		for (int m = 0; m < 3; m++) {
			char want[128];
			struct cap c;
			lbt_out *o;

			snprintf(want, sizeof want, fmt[m], txt[i]);
			cap_open(&c);
			o = lbt_out_new(c.fp, modes[m], col, 1, 0);
			lbt_out_set_header(o, 0);
			lbt_out_int(o, v[i]);
			finish(&c, o, want);
		}
	}
}
END_TEST

/*
 * Writes the caller makes to the same FILE between rows land between
 * them; a half row is completed with absent cells by lbt_out_flush.
 */
START_TEST(interleave_and_half_row)
{
	struct cap c;
	lbt_out *o;

	cap_open(&c);
	o = lbt_out_new(c.fp, LBT_OUT_TSV, cols2, 2, 0);
	lbt_out_cstr(o, "a");
	lbt_out_int(o, 1);
	fputs("# between\n", c.fp);
	lbt_out_cstr(o, "b");
	ck_assert_int_eq(lbt_out_flush(o), 0);
	fputs("# after\n", c.fp);
	finish(&c, o, "name\tn\na\t1\n# between\nb\t\n# after\n");

	cap_open(&c);
	o = lbt_out_new(c.fp, LBT_OUT_JSON, cols2, 2, 0);
	lbt_out_cstr(o, "a");
	lbt_out_int(o, 1);
	fputs("x\n", c.fp);
	lbt_out_cstr(o, "b");
	finish(&c, o, "{\"name\":\"a\",\"n\":1}\nx\n{\"name\":\"b\",\"n\":null}\n");
}
END_TEST

/* Column names that need escaping, in the TSV header and the JSON keys. */
START_TEST(escaped_names)
{
	static const lbt_out_col cols[] = { { "a\tb", LBT_COL_STR }, { "q\"\\\xe9", LBT_COL_NUM } };
	struct cap c;
	lbt_out *o;

	cap_open(&c);
	o = lbt_out_new(c.fp, LBT_OUT_TSV, cols, 2, 0);
	lbt_out_cstr(o, "v");
	lbt_out_int(o, 2);
	finish(&c, o, "a\\tb\tq\"\\\\\xe9\nv\t2\n");

	cap_open(&c);
	o = lbt_out_new(c.fp, LBT_OUT_JSON, cols, 2, 0);
	lbt_out_cstr(o, "v");
	lbt_out_int(o, 2);
	finish(&c, o, "{\"a\\tb\":\"v\",\"q\\\"\\\\\\u00e9\":2}\n");
}
END_TEST

/* A reader that went away: the flush reports the failed write (EPIPE). */
START_TEST(write_error_epipe)
{
	int fd[2];
	FILE *fp;
	lbt_out *o;

	signal(SIGPIPE, SIG_IGN);
	ck_assert_int_eq(pipe(fd), 0);
	close(fd[0]);
	fp = fdopen(fd[1], "w");
	ck_assert_ptr_nonnull(fp);
	o = lbt_out_new(fp, LBT_OUT_JSON, cols2, 2, 0);
	lbt_out_cstr(o, "a");
	lbt_out_int(o, 1);
	errno = 0;
	ck_assert_int_eq(lbt_out_free(o), -1);
	ck_assert_int_eq(errno, EPIPE);
	fclose(fp);
}
END_TEST

/* Build the suite. */
/* Three columns of 10, 6 and 8 characters: 28 with the separators. */
static const lbt_out_col cols_fit[] = {
	{ "source", LBT_COL_STR }, { "count", LBT_COL_NUM }, { "evidence", LBT_COL_STR },
};

START_TEST(table_fit_drops_in_order)
{
	struct cap c;
	lbt_out *o;

	cap_open(&c);
	o = lbt_out_new(c.fp, LBT_OUT_TABLE, cols_fit, 3, 0);
	lbt_out_set_width(o, 20);
	lbt_out_set_drop(o, "evidence,nosuch");
	lbt_out_cstr(o, "203.0.113.7");
	lbt_out_int(o, 1106);
	lbt_out_cstr(o, "a.log:268");
	/* 11 + 2 + 5 + 2 + 9 = 29 > 20: evidence goes; 18 fits */
	finish(&c, o, "source       count\n203.0.113.7   1106\n");
}
END_TEST

START_TEST(table_fit_shortens_in_the_middle)
{
	struct cap c;
	lbt_out *o;

	cap_open(&c);
	o = lbt_out_new(c.fp, LBT_OUT_TABLE, cols2, 2, 0);
	lbt_out_set_width(o, 15);
	lbt_out_cstr(o, "abcdefghijklmnop");        /* 16 characters */
	lbt_out_int(o, 7);
	lbt_out_cstr(o, "\xc3\xa9t\xc3\xa9");   /* "été": 3 characters, 5 bytes */
	lbt_out_int(o, 8);
	/* name narrows to 15 - 2 - 1 = 12: 6 head, the ellipsis, 5 tail; "été"
	 * is 3 columns, padded with 9 */
	finish(&c, o, "name          n\n"
	    "abcdef\xe2\x80\xa6" "lmnop  7\n"
	    "\xc3\xa9t\xc3\xa9" "           8\n");
}
END_TEST

START_TEST(table_fit_after_escaping)
{
	struct cap c;
	lbt_out *o;

	cap_open(&c);
	o = lbt_out_new(c.fp, LBT_OUT_TABLE, cols2, 2, 0);
	lbt_out_set_width(o, 11);
	lbt_out_cstr(o, "ab\x1b[31mcdefgh");  /* escaped: ab\x1b[31mcdefgh, 17 */
	lbt_out_int(o, 1);
	/* 11 - 2 - 1 = 8: "ab\x" ... "efgh": no raw ESC byte reaches the terminal */
	finish(&c, o, "name      n\nab\\x\xe2\x80\xa6" "fgh  1\n");
}
END_TEST

START_TEST(table_fit_keeps_numbers_and_marked_columns)
{
	struct cap c;
	lbt_out *o;

	cap_open(&c);
	o = lbt_out_new(c.fp, LBT_OUT_TABLE, cols_fit, 3, 0);
	lbt_out_set_width(o, 24);
	lbt_out_set_narrow(o, "evidence");
	lbt_out_cstr(o, "2001:db8:bad:1::/64");
	lbt_out_int(o, 2057);
	lbt_out_cstr(o, "haproxy.log:330");
	/* source (19) may not narrow, count is a number: evidence narrows to
	 * its floor, 8, and the line stays longer than 24 */
	finish(&c, o, "source               count  evidence\n"
	    "2001:db8:bad:1::/64   2057  hapr\xe2\x80\xa6" "330\n");
}
END_TEST

START_TEST(table_no_width_is_whole)
{
	struct cap c;
	lbt_out *o;

	cap_open(&c);
	o = lbt_out_new(c.fp, LBT_OUT_TABLE, cols_fit, 3, 0);
	lbt_out_set_width(o, 0);
	lbt_out_set_drop(o, "evidence");
	lbt_out_cstr(o, "203.0.113.7");
	lbt_out_int(o, 1106);
	lbt_out_cstr(o, "a.log:268");
	finish(&c, o, "source       count  evidence\n203.0.113.7   1106  a.log:268\n");
}
END_TEST

START_TEST(fields_in_every_mode)
{
	static const lbt_out_mode modes[] = { LBT_OUT_TSV, LBT_OUT_JSON, LBT_OUT_TABLE, LBT_OUT_MD };
	static const char *const want[] = {
		"count\tevidence\n1106\ta.log:268\n",
		"{\"count\":1106,\"evidence\":\"a.log:268\"}\n",
		"count  evidence\n 1106  a.log:268\n",
		"| count | evidence |\n| ---: | --- |\n| 1106 | a.log:268 |\n",
	};

	for (int m = 0; m < 4; m++) {
		struct cap c;
		lbt_out *o;

		cap_open(&c);
		o = lbt_out_new(c.fp, modes[m], cols_fit, 3, 0);
		/* the table's order, not the list's; an unknown name ignored */
		ck_assert_int_eq(lbt_out_set_fields(o, "evidence,nosuch,count"), 2);
		lbt_out_cstr(o, "203.0.113.7");
		lbt_out_int(o, 1106);
		lbt_out_cstr(o, "a.log:268");
		finish(&c, o, want[m]);
	}
}
END_TEST

START_TEST(fields_none_named_keeps_all)
{
	struct cap c;
	lbt_out *o;

	cap_open(&c);
	o = lbt_out_new(c.fp, LBT_OUT_TSV, cols2, 2, 0);
	ck_assert_int_eq(lbt_out_set_fields(o, "source"), 0);
	lbt_out_cstr(o, "x");
	lbt_out_int(o, 1);
	finish(&c, o, "name\tn\nx\t1\n");
}
END_TEST

START_TEST(marked_words)
{
	struct cap c;

	cap_open(&c);
	ck_assert_int_eq(lbt_out_line_marked(c.fp, "ANOMALY since 07:45, ONGOING: x", "ANOMALY ONGOING", 1), 0);
	ck_assert_int_eq(lbt_out_line_marked(c.fp, "ANOMALY plain", "ANOMALY", 0), 0);
	cap_close(&c);
	ck_assert_str_eq(c.text, "\033[1;31mANOMALY\033[0m since 07:45, \033[1;31mONGOING:\033[0m x\n"
	    "ANOMALY plain\n");
	free(c.text);
}
END_TEST

static Suite *out_suite(void)
{
	Suite *s = suite_create("out");
	TCase *tc = tcase_create("out");

	tcase_add_test(tc, tsv_rows_and_escapes);
	tcase_add_test(tc, tsv_header_only_and_no_header);
	tcase_add_test(tc, json_escapes);
	tcase_add_test(tc, json_numbers);
	tcase_add_test(tc, table_aligned);
	tcase_add_test(tc, table_color_and_no_header);
	tcase_add_test(tc, table_blocks);
	tcase_add_test(tc, markdown);
	tcase_add_test(tc, write_error);
	tcase_add_test(tc, tsv_escape_at_every_offset);
	tcase_add_test(tc, json_escape_at_every_offset);
	tcase_add_test(tc, tsv_longer_than_buffer);
	tcase_add_test(tc, json_longer_than_buffer);
	tcase_add_test(tc, int_edges);
	tcase_add_test(tc, interleave_and_half_row);
	tcase_add_test(tc, escaped_names);
	tcase_add_test(tc, write_error_epipe);
	tcase_add_test(tc, table_fit_drops_in_order);
	tcase_add_test(tc, table_fit_shortens_in_the_middle);
	tcase_add_test(tc, table_fit_after_escaping);
	tcase_add_test(tc, table_fit_keeps_numbers_and_marked_columns);
	tcase_add_test(tc, table_no_width_is_whole);
	tcase_add_test(tc, fields_in_every_mode);
	tcase_add_test(tc, fields_none_named_keeps_all);
	tcase_add_test(tc, marked_words);
	suite_add_tcase(s, tc);
	return s;
}

/* Run the suite; exit status 0 when every test passed. */
int main(void)
{
	SRunner *sr = srunner_create(out_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
