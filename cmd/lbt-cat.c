/*
 * lbt-cat - parse access logs in any supported format, filter them, and
 * print normalised records (TSV, NDJSON, an aligned table, Markdown) or
 * the matching raw lines (--raw: a format-aware grep).
 *
 * The columns and the rows are lib/report/rec_report.c's: the default
 * columns are the same for every format, so that the output of two formats
 * can be concatenated and read back; a field the format does not carry is
 * printed absent (empty in TSV, null in JSON), never invented.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbt/cli.h"
#include "lbt/rec_report.h"

/* Print the original line of rec (--raw), flushed when live.  @return 0, or -1
 * when there is none. */
static int print_raw(lbt_stream *in, int live)
{
	size_t len;
	const char *line = lbt_stream_line(in, &len);

	if (line == NULL)
		return -1;
	fwrite(line, 1, len, stdout);
	putchar('\n');
	if (live)
		fflush(stdout);
	return 0;
}

/* Read every record and print it as a row or as its raw line. */
static void run(lbt_cli *cli, lbt_stream *in, lbt_out *out, const lbt_rec_cols *c, int live)
{
	lbt_rec *rec;
	int raw_missing = 0;

	while (lbt_cli_next(cli, in, &rec)) {
		if (out != NULL)
			lbt_rec_row(out, rec, c);
		else if (print_raw(in, live) < 0 && !raw_missing++)
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
	int raw = 0, events = 0, live;
	lbt_cli_opt opts[] = {
		LBT_OPT_STR("fields", 'f', &fields, "LIST", "columns to print, comma-separated"),
		LBT_OPT_FLAG("raw", 0, &raw, "print the matching lines as they are"),
		LBT_OPT_FLAG("events", 0, &events, "include HAProxy event lines (server DOWN ...)"),
		LBT_OPT_END
	};
	lbt_rec_cols c;
	lbt_cli cli;
	lbt_stream *in;
	lbt_out *out = NULL;
	lbt_err err;

	lbt_cli_parse(&cli, &prog, opts, argc, argv);
	if (raw && (fields || cli.out_asked)) {
		lbt_cli_errorf(&cli, "--raw prints the lines as they are: no --fields or "
		    "output format");
		lbt_cli_usage(&cli);
	}
	if (lbt_rec_cols_parse(&c, fields, events, &err) < 0)
		lbt_cli_die(&cli, &err);
	cli.in.events = events;
	cli.in.wanted = LBT_BIT(LBT_F_LINE) | (raw ? 0 : lbt_rec_cols_fields(&c));
	in = lbt_cli_stream(&cli);
	live = lbt_cli_live(&cli, in);       /* tail -f | lbt-cat: a row as a line comes */
	if (!raw) {
		out = lbt_cli_out(&cli, c.cols, c.n);
		lbt_out_set_line_flush(out, live);
	}
	run(&cli, in, out, &c, live);
	return lbt_cli_finish(&cli, in, out);
}
