/*
 * fuzz_line.c - libFuzzer target: one input line through everything a line
 * meets (syslog wrapper, every built-in format, event recognition, key).
 *
 *     make fuzz            # builds build/fuzz/fuzz_line, runs it 60 s
 *
 * Whatever the bytes, no crash, no sanitizer report, and a parse either
 * fills a record, skips the line, or says why it could not: a rejected
 * line with an empty lbt_err message aborts (format.h, LBT_PARSE_BAD).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lbt/event.h"
#include "lbt/format.h"
#include "lbt/key.h"
#include "lbt/syslog.h"

static lbt_format **formats;    /* compiled once: the fuzzer runs in one process */
static lbt_key *key;

/* Compile every built-in descriptor; abort when one does not compile. */
static void setup(void)
{
	const char *const *names = lbt_format_builtin_names();
	size_t n = 0;
	lbt_err err;

	while (names[n] != NULL)
		n++;
	formats = calloc(n + 1, sizeof *formats);
	for (size_t i = 0; i < n; i++)
		if ((formats[i] = lbt_format_open(names[i], &err)) == NULL)
			abort();
	if ((key = lbt_key_new(NULL, &err)) == NULL)
		abort();
}

/*
 * Parse msg[0..len) with f; abort on a status format.h does not name or a
 * rejection without a reason.  @return the status
 */
static int parse(lbt_format *f, const char *msg, size_t len, lbt_rec *rec)
{
	lbt_err err;
	int r;

	lbt_err_clear(&err);
	r = lbt_format_parse(f, msg, len, rec, &err);
	if (r != LBT_PARSE_OK && r != LBT_PARSE_SKIP && r != LBT_PARSE_BAD)
		abort();
	if (r == LBT_PARSE_BAD && err.msg[0] == '\0')
		abort();
	return r;
}

/* One line: syslog wrapper off, then every format, the key, the event parser. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *line = (const char *)data;
	lbt_syslog hdr;
	lbt_rec rec;
	lbt_str k;

	if (formats == NULL)
		setup();
	lbt_syslog_strip(line, size, NULL, 1764460800, &hdr);
	line += hdr.msg_off;
	size -= hdr.msg_off;
	for (lbt_format **f = formats; *f != NULL; f++) {
		if (parse(*f, line, size, &rec) == LBT_PARSE_OK &&
		    (rec.have & LBT_BIT(LBT_F_PATH)))
			lbt_key_extract(key, rec.path.p, rec.path.n, &k);
	}
	lbt_rec_clear(&rec);
	lbt_event_parse(line, size, NULL, &rec);
	return 0;
}
