/*
 * lbt-cat - parse access logs in any supported format, filter them, and
 * print normalised records (TSV, NDJSON, an aligned table, Markdown) or
 * the matching raw lines (--raw: a format-aware grep).
 *
 * The default columns are the same for every format, so that the output of
 * two formats can be concatenated and read back; a field the format does
 * not carry is printed absent (empty in TSV, null in JSON), never invented.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbt/cli.h"

#define MAX_COLS (LBT_F_COUNT * 2)

static const lbt_field default_fields[] = {
	LBT_F_TIME, LBT_F_LB, LBT_F_CLIENT, LBT_F_PORT, LBT_F_FRONTEND, LBT_F_BACKEND,
	LBT_F_SERVER, LBT_F_METHOD, LBT_F_PATH, LBT_F_QUERY, LBT_F_HOST, LBT_F_STATUS,
	LBT_F_BYTES, LBT_F_TR, LBT_F_TW, LBT_F_TC, LBT_F_TRESP, LBT_F_TA, LBT_F_TT,
	LBT_F_TERM, LBT_F_AC, LBT_F_FC, LBT_F_BC, LBT_F_SC, LBT_F_RC, LBT_F_SQ, LBT_F_BQ,
	LBT_F_UA, LBT_F_KEY, LBT_F_FILE, LBT_F_LINE,
};

/* Fill err with "--fields: 'x' is not a field" and the list of valid names. */
static int bad_field(const char *name, size_t n, lbt_err *err)
{
	char names[LBT_F_COUNT * 12] = "";

	for (int f = 0; f < LBT_F_COUNT; f++) {
		strcat(names, f ? " " : "");
		strcat(names, lbt_field_name((lbt_field)f));
	}
	return lbt_err_set(err, "--fields: '%.*s' is not a field (fields: %s)", (int)n, name,
	    names);
}

/*
 * Parse a --fields list ("time,client,status") into f[].
 * @return the number of fields, or -1 with err.
 */
static int fields_parse(const char *list, lbt_field *f, lbt_err *err)
{
	int n = 0;

	for (const char *p = list;; p++) {
		const char *e = p + strcspn(p, ",");
		int k = lbt_field_lookup(p, (size_t)(e - p));

		if (k < 0)
			return bad_field(p, (size_t)(e - p), err);
		if (n == MAX_COLS)
			return lbt_err_set(err, "--fields: more than %d columns", MAX_COLS);
		f[n++] = (lbt_field)k;
		if (*e == '\0')
			return n;
		p = e;
	}
}

/*
 * The columns: --fields, or the defaults (plus msg with --events).
 * @return their number, or -1 with err for a bad --fields.
 */
static int columns(const char *fields, int events, lbt_field *f, lbt_out_col *cols,
    lbt_err *err)
{
	int n = 0;

	if (fields && (n = fields_parse(fields, f, err)) < 0)
		return -1;
	if (fields == NULL) {
		for (n = 0; n < (int)(sizeof default_fields / sizeof default_fields[0]); n++)
			f[n] = default_fields[n];
		if (events)
			f[n++] = LBT_F_MSG;
	}
	for (int i = 0; i < n; i++)
		cols[i] = (lbt_out_col){ lbt_field_name(f[i]),
		    lbt_field_is_numeric(f[i]) ? LBT_COL_NUM : LBT_COL_STR };
	return n;
}

/* Write the chosen fields of rec as one row; numbers without printf. */
static void print_rec(lbt_out *o, lbt_rec *rec, const lbt_field *f, int n)
{
	char buf[4096];       /* times, addresses, file names */

	for (int i = 0; i < n; i++) {
		const lbt_str *s = lbt_rec_str(rec, f[i]);
		const int32_t *v = lbt_rec_i32(rec, f[i]);

		if (!(rec->have & LBT_BIT(f[i])))
			lbt_out_absent(o);
		else if (s != NULL)
			lbt_out_str(o, s->p, s->n);
		else if (v != NULL)
			lbt_out_int(o, *v);
		else if (f[i] == LBT_F_BYTES || f[i] == LBT_F_LINE)
			lbt_out_int(o, f[i] == LBT_F_BYTES ? rec->bytes : (int64_t)rec->line);
		else
			lbt_out_str(o, buf, lbt_rec_format_field(rec, f[i], buf, sizeof buf));
	}
}

/* Print the original line of rec (--raw).  @return 0, or -1 when there is none. */
static int print_raw(lbt_input *in)
{
	size_t len;
	const char *line = lbt_input_line(in, &len);

	if (line == NULL)
		return -1;
	fwrite(line, 1, len, stdout);
	putchar('\n');
	return 0;
}

/* Read every record and print it as a row or as its raw line. */
static void run(lbt_cli *cli, lbt_input *in, lbt_out *out, const lbt_field *f, int n)
{
	lbt_rec *rec;
	int raw_missing = 0;

	while (lbt_cli_next(cli, in, &rec)) {
		if (out != NULL)
			print_rec(out, rec, f, n);
		else if (print_raw(in) < 0 && !raw_missing++)
			lbt_cli_errorf(cli, "--raw: the index holds no raw lines "
			    "(build it with lbt-index --keep-raw)");
	}
}

/* Options, columns, the record loop, the summary. */
int main(int argc, char **argv)
{
	static const lbt_cli_prog prog = {
		"lbt-cat", "[options] [file ...]",
		"Print access-log records of any supported format, filtered, as TSV,\n"
		"NDJSON or a table, or the matching raw lines.",
		LBT_CLI_INPUT | LBT_CLI_FILTER | LBT_CLI_OUTPUT, 0, -1
	};
	const char *fields = NULL;
	int raw = 0, events = 0, n = 0;
	lbt_cli_opt opts[] = {
		LBT_OPT_STR("fields", 'f', &fields, "LIST", "columns to print, comma-separated"),
		LBT_OPT_FLAG("raw", 0, &raw, "print the matching lines as they are"),
		LBT_OPT_FLAG("events", 0, &events, "include HAProxy event lines (server DOWN ...)"),
		LBT_OPT_END
	};
	lbt_field f[MAX_COLS];
	lbt_out_col cols[MAX_COLS];
	lbt_cli cli;
	lbt_input *in;
	lbt_out *out = NULL;
	lbt_err err;

	lbt_cli_parse(&cli, &prog, opts, argc, argv);
	if (raw && (fields || cli.out_asked)) {
		lbt_cli_errorf(&cli, "--raw prints the lines as they are: no --fields or "
		    "output format");
		lbt_cli_usage(&cli);
	}
	if ((n = columns(fields, events, f, cols, &err)) < 0)
		lbt_cli_die(&cli, &err);
	cli.in.events = events;
	cli.in.wanted = LBT_BIT(LBT_F_LINE);
	for (int i = 0; i < n && !raw; i++)
		cli.in.wanted |= LBT_BIT(f[i]);
	in = lbt_cli_input(&cli);
	if (!raw)
		out = lbt_cli_out(&cli, cols, n);
	run(&cli, in, out, f, n);
	return lbt_cli_finish(&cli, in, out);
}
