/*
 * check_esc.c - lib/base/esc.c: the output-safety rule.  Every expected
 * text is written out by hand from the rule of docs/output-safety.md.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbt/esc.h"

/* s[0..n) escaped by rule, in a static buffer (checked through lbt_esc_fput too). */
static const char *esc(const char *s, size_t n, lbt_esc_rule rule)
{
	static char b[1024];
	char *text = NULL;
	size_t len = 0, got = lbt_esc(b, sizeof b, s, n, rule);
	FILE *fp = open_memstream(&text, &len);

	ck_assert_uint_lt(got, sizeof b);
	ck_assert_uint_eq(strlen(b), got);
	ck_assert_uint_le(got, LBT_ESC_MAX(n));
	ck_assert_ptr_nonnull(fp);
	ck_assert_int_eq(lbt_esc_fput(fp, s, n, rule), 0);
	fclose(fp);
	ck_assert_str_eq(text, b);     /* both ways write the same */
	free(text);
	return b;
}

#define ESC(lit, rule) esc(lit, sizeof lit - 1, rule)

START_TEST(classify)
{
	size_t len;
	unsigned long cp;

	ck_assert_int_eq(lbt_esc_next((const unsigned char *)"a", 1, &len, &cp), LBT_ESC_SAFE);
	ck_assert_uint_eq(len, 1);
	ck_assert_int_eq(lbt_esc_next((const unsigned char *)"\x1b[", 2, &len, &cp), LBT_ESC_CTRL);
	ck_assert_uint_eq(cp, 0x1b);
	ck_assert_int_eq(lbt_esc_next((const unsigned char *)"\x7f", 1, &len, &cp), LBT_ESC_CTRL);
	ck_assert_int_eq(lbt_esc_next((const unsigned char *)"\xc2\x9b", 2, &len, &cp), LBT_ESC_CTRL);
	ck_assert_uint_eq(len, 2);
	ck_assert_uint_eq(cp, 0x9b);
	ck_assert_int_eq(lbt_esc_next((const unsigned char *)"\xc2\xa0", 2, &len, &cp), LBT_ESC_SAFE);
	ck_assert_int_eq(lbt_esc_next((const unsigned char *)"\xe2\x80\xae", 3, &len, &cp),
	    LBT_ESC_CTRL);
	ck_assert_uint_eq(len, 3);
	ck_assert_uint_eq(cp, 0x202e);
	ck_assert_int_eq(lbt_esc_next((const unsigned char *)"\xe2\x80\xaf", 3, &len, &cp),
	    LBT_ESC_SAFE);                                       /* U+202F: a space */
	ck_assert_int_eq(lbt_esc_next((const unsigned char *)"\xe2\x81\xa9", 3, &len, &cp),
	    LBT_ESC_CTRL);                                       /* U+2069 PDI */
	ck_assert_int_eq(lbt_esc_next((const unsigned char *)"\xe2\x81\xaa", 3, &len, &cp),
	    LBT_ESC_SAFE);                                       /* U+206A: not bidi */
	ck_assert_int_eq(lbt_esc_next((const unsigned char *)"\xd8\x9c", 2, &len, &cp), LBT_ESC_CTRL);
	ck_assert_int_eq(lbt_esc_next((const unsigned char *)"\xe2\x80\x8e", 3, &len, &cp),
	    LBT_ESC_CTRL);                                       /* U+200E LRM */
	ck_assert_int_eq(lbt_esc_next((const unsigned char *)"\xe2\x80", 2, &len, &cp), LBT_ESC_BAD);
	ck_assert_uint_eq(len, 1);
	ck_assert_uint_eq(cp, 0xe2);
	ck_assert_int_eq(lbt_esc_next((const unsigned char *)"\xff", 1, &len, &cp), LBT_ESC_BAD);
	ck_assert_int_eq(lbt_esc_next((const unsigned char *)"\xf0\x9f\x98\x80", 4, &len, &cp),
	    LBT_ESC_SAFE);
	ck_assert_uint_eq(len, 4);
	ck_assert_uint_eq(cp, 0x1f600);
}
END_TEST

START_TEST(terminal)
{
	ck_assert_str_eq(ESC("plain /path?q=1 caf\xc3\xa9", LBT_ESC_TERM), "plain /path?q=1 caf\xc3\xa9");
	ck_assert_str_eq(ESC("\x1b[2J\x1b[3J", LBT_ESC_TERM), "\\x1b[2J\\x1b[3J");
	ck_assert_str_eq(ESC("a\tb\nc\rd", LBT_ESC_TERM), "a\\tb\\nc\\rd");
	ck_assert_str_eq(ESC("\x01\x7f", LBT_ESC_TERM), "\\x01\\x7f");
	ck_assert_str_eq(ESC("a\0b", LBT_ESC_TERM), "a\\x00b");
	ck_assert_str_eq(ESC("\xc2\x85\xc2\x9b", LBT_ESC_TERM), "\\u0085\\u009b");
	ck_assert_str_eq(ESC("abc\xe2\x80\xae" "fed", LBT_ESC_TERM), "abc\\u202efed");
	ck_assert_str_eq(ESC("\xe2\x80\xaa\xe2\x80\xab\xe2\x80\xac\xe2\x80\xad", LBT_ESC_TERM),
	    "\\u202a\\u202b\\u202c\\u202d");
	ck_assert_str_eq(ESC("\xe2\x81\xa6\xe2\x81\xa7\xe2\x81\xa8\xe2\x81\xa9", LBT_ESC_TERM),
	    "\\u2066\\u2067\\u2068\\u2069");
	ck_assert_str_eq(ESC("\xe2\x80\x8e\xe2\x80\x8f\xd8\x9c", LBT_ESC_TERM),
	    "\\u200e\\u200f\\u061c");
	ck_assert_str_eq(ESC("\xff\xc3x\xed\xa0\x80", LBT_ESC_TERM), "\\xff\\xc3x\\xed\\xa0\\x80");
	/* what Markdown and HTML escape passes on a terminal */
	ck_assert_str_eq(ESC("<b>&|*_`\\#", LBT_ESC_TERM), "<b>&|*_`\\#");
	ck_assert_str_eq(ESC("", LBT_ESC_TERM), "");
}
END_TEST

START_TEST(markdown)
{
	ck_assert_str_eq(ESC("<img/src=x/onerror=alert(1)>", LBT_ESC_MD),
	    "&lt;img/src=x/onerror=alert(1)&gt;");
	ck_assert_str_eq(ESC("a&amp;b", LBT_ESC_MD), "a&amp;amp;b");
	ck_assert_str_eq(ESC("|*_`[x](y)~\\", LBT_ESC_MD), "\\|\\*\\_\\`\\[x\\](y)\\~\\\\");
	ck_assert_str_eq(ESC("\x1b[2J", LBT_ESC_MD), "\\x1b\\[2J");
	ck_assert_str_eq(ESC("a\xe2\x80\xae" "b\xff", LBT_ESC_MD), "a\\u202eb\\xff");
	ck_assert_str_eq(ESC("\"it's\"", LBT_ESC_MD), "\"it's\"");
	/* a cell never starts a line: # and - as they are */
	ck_assert_str_eq(ESC("# -1 2025-11-01", LBT_ESC_MD), "# -1 2025-11-01");
	ck_assert_str_eq(ESC("192.0.2.1", LBT_ESC_MD), "192.0.2.1");
}
END_TEST

START_TEST(markdown_line_start)
{
	ck_assert_str_eq(ESC("#", LBT_ESC_MD_LINE), "\\#");
	ck_assert_str_eq(ESC("###x", LBT_ESC_MD_LINE), "\\###x");
	ck_assert_str_eq(ESC("-", LBT_ESC_MD_LINE), "\\-");
	ck_assert_str_eq(ESC("+", LBT_ESC_MD_LINE), "\\+");
	ck_assert_str_eq(ESC("===", LBT_ESC_MD_LINE), "\\===");
	ck_assert_str_eq(ESC("*", LBT_ESC_MD_LINE), "\\*");
	ck_assert_str_eq(ESC(">", LBT_ESC_MD_LINE), "&gt;");
	ck_assert_str_eq(ESC("12.", LBT_ESC_MD_LINE), "12\\.");
	ck_assert_str_eq(ESC("3)", LBT_ESC_MD_LINE), "3\\)");
	ck_assert_str_eq(ESC("3.5", LBT_ESC_MD_LINE), "3.5");          /* no list number */
	ck_assert_str_eq(ESC("12.x", LBT_ESC_MD_LINE), "12.x");
	ck_assert_str_eq(ESC("1234567890.", LBT_ESC_MD_LINE), "1234567890.");  /* no list: 10 digits */
	ck_assert_str_eq(ESC("word", LBT_ESC_MD_LINE), "word");
	ck_assert_str_eq(ESC("a#b-c", LBT_ESC_MD_LINE), "a#b-c");
}
END_TEST

START_TEST(html)
{
	ck_assert_str_eq(ESC("<script>alert('x')</script>", LBT_ESC_HTML),
	    "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;");
	ck_assert_str_eq(ESC("a=\"b\" & c", LBT_ESC_HTML), "a=&quot;b&quot; &amp; c");
	ck_assert_str_eq(ESC("\x1b[2J\x01\n", LBT_ESC_HTML), "\\x1b[2J\\x01\\n");
	ck_assert_str_eq(ESC("\xe2\x80\xae\xc2\x9b\xfe", LBT_ESC_HTML), "\\u202e\\u009b\\xfe");
	ck_assert_str_eq(ESC("*_`|\\ caf\xc3\xa9", LBT_ESC_HTML), "*_`|\\ caf\xc3\xa9");
}
END_TEST

/* A buffer too small: cut at a whole escape, NUL-terminated, the whole length returned. */
START_TEST(cut)
{
	char b[6];

	ck_assert_uint_eq(lbt_esc(b, sizeof b, "ab\x1b" "cd", 5, LBT_ESC_TERM), 8);
	ck_assert_str_eq(b, "ab");             /* "ab\x1b" would need 7 bytes with its NUL */
	ck_assert_uint_eq(lbt_esc(b, sizeof b, "abcde", 5, LBT_ESC_TERM), 5);
	ck_assert_str_eq(b, "abcde");
	ck_assert_uint_eq(lbt_esc(b, sizeof b, "abcdef", 6, LBT_ESC_TERM), 6);
	ck_assert_str_eq(b, "abcde");
	ck_assert_uint_eq(lbt_esc(b, sizeof b, "\x01" "abcd", 5, LBT_ESC_TERM), 8);
	ck_assert_str_eq(b, "\\x01a");        /* plain bytes up to the end */
	ck_assert_uint_eq(lbt_esc(b, 1, "ab", 2, LBT_ESC_TERM), 2);
	ck_assert_str_eq(b, "");
	ck_assert_uint_eq(lbt_esc(NULL, 0, "<", 1, LBT_ESC_HTML), 4);
}
END_TEST

/* Every byte value alone: nothing below 0x20, no DEL and no byte >= 0x80 on
 * its own comes out of the terminal rule (one byte is never valid UTF-8
 * above 0x7f). */
START_TEST(every_byte)
{
	for (int c = 0; c < 256; c++) {
		char in = (char)c;
		const char *out = esc(&in, 1, LBT_ESC_TERM);

		for (const unsigned char *p = (const unsigned char *)out; *p; p++)
			ck_assert_msg(*p >= 0x20 && *p < 0x7f, "byte 0x%02x gave 0x%02x", c, *p);
		if (c >= 0x20 && c < 0x7f)
			ck_assert_int_eq(out[0], c);
		else
			ck_assert_int_eq(out[0], '\\');
	}
}
END_TEST

/* A JSON text with DEL in a string: written \u007f, the rest as it is. */
START_TEST(json_del)
{
	char *text = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);

	ck_assert_ptr_nonnull(fp);
	ck_assert_int_eq(lbt_esc_json_write("{\"k\":\"a\x7f" "b\x7f\"}", 12, fp), 0);
	ck_assert_int_eq(lbt_esc_json_write("", 0, fp), 0);
	fclose(fp);
	ck_assert_str_eq(text, "{\"k\":\"a\\u007fb\\u007f\"}");
	free(text);
}
END_TEST

/* Build the suite. */
static Suite *esc_suite(void)
{
	Suite *s = suite_create("esc");
	TCase *tc = tcase_create("esc");

	tcase_add_test(tc, classify);
	tcase_add_test(tc, terminal);
	tcase_add_test(tc, markdown);
	tcase_add_test(tc, markdown_line_start);
	tcase_add_test(tc, html);
	tcase_add_test(tc, cut);
	tcase_add_test(tc, every_byte);
	tcase_add_test(tc, json_del);
	suite_add_tcase(s, tc);
	return s;
}

/* Run the suite; exit status 0 when every test passed. */
int main(void)
{
	SRunner *sr = srunner_create(esc_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
