/*
 * lbt-index - load logs into a SQLite index, idempotent and resumable.
 *
 * Options, then lib/db/db_index.c per file; progress on stderr when it is a
 * terminal, a summary at the end.  Every analysis reads the index back with
 * --db FILE.  See lbt-index(1).
 */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lbt/cli.h"
#include "lbt/db.h"

/* Monotonic seconds. */
static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* What the progress line needs between calls. */
struct progress {
	double t0;
	int shown;
};

/* Progress callback: one rewritten line on stderr (a terminal). */
static void show_progress(void *ctx, const char *file, uint64_t done, uint64_t total,
    uint64_t lines)
{
	struct progress *p = ctx;
	double el = now_s() - p->t0, rate = el > 0 ? (double)lines / el : 0;

	fprintf(stderr, "\r%s: %.1f/%.1f MB, %llu lines, %.0f lines/s", file, done / 1e6,
	    total / 1e6, (unsigned long long)lines, rate);
	if (total > done && done > 0)
		fprintf(stderr, ", ETA %.0f s   ", el * (double)(total - done) / (double)done);
	p->shown = 1;
}

/* The end-of-run summary on stderr. */
static void summary(const char *prog, const lbt_db_stats *st, double secs)
{
	char dup[64] = "";

	if (st->duplicates > 0)
		snprintf(dup, sizeof dup, ", %llu left out as %s",
		    (unsigned long long)st->duplicates,
		    st->duplicates == 1 ? "a duplicate" : "duplicates");
	fprintf(stderr, "%s: %llu file%s (%llu already indexed%s), %llu lines, %llu records, "
	    "%llu events, %llu malformed, %.2f s\n", prog, (unsigned long long)st->files,
	    st->files == 1 ? "" : "s", (unsigned long long)st->skipped, dup, (unsigned long long)st->lines,
	    (unsigned long long)st->records, (unsigned long long)st->events,
	    (unsigned long long)st->malformed, secs);
}

/* Index one file with input options o; a failure is printed.  @return -1 when
 * it failed, else 0. */
static int index_one(lbt_cli *cli, lbt_db *db, const char *path, const char *name,
    const lbt_input_opts *o, int quiet, lbt_db_stats *st)
{
	struct progress pr = { now_s(), 0 };
	lbt_db_stats before = *st;
	lbt_err err;
	int rc = lbt_db_index_file(db, path, strcmp(path, "-") == 0 ? name : NULL, o,
	    !quiet && isatty(2) ? show_progress : NULL, &pr, st, &err);

	if (pr.shown)
		fputs("\r\033[K", stderr);
	if (rc == 1 || rc == 2)
		lbt_cli_diag(cli, &err);   /* a duplicate left out: a note, not a failure */
	if (rc < 0)
		lbt_cli_error(cli, &err);
	if (rc >= 0)
		lbt_cli_check_read(cli, path, st->lines - before.lines,
		    st->malformed - before.malformed, st->records - before.records);
	return rc < 0 ? -1 : 0;
}

/* Index the files of every --input / --sources line (each with its own
 * options), then every operand, into db; fills st. */
static void index_all(lbt_cli *cli, lbt_db *db, char **args, const char *name, int quiet,
    lbt_db_stats *st)
{
	for (size_t i = 0; i < cli->specs.n; i++) {
		const lbt_input_spec *s = &cli->specs.v[i];
		lbt_input_opts o = lbt_input_spec_opts(s, &cli->in);

		for (size_t k = 0; k < s->nfiles; k++)
			if (index_one(cli, db, s->files[k], name, &o, quiet, st) < 0 &&
			    cli->in.strict)
				return;
	}
	for (; *args != NULL; args++)
		if (index_one(cli, db, *args, name, &cli->in, quiet, st) < 0 && cli->in.strict)
			return;
}

/* Check the options of every input (formats, configurations, zones) before
 * the first row is written; exits with the error (a sources file:line). */
static void check_inputs(lbt_cli *cli)
{
	lbt_err err;
	lbt_input *in = lbt_input_new(&cli->in, &err);

	if (in == NULL)
		lbt_cli_die(cli, &err);
	lbt_input_free(in);
}

/* Options, the database, every log indexed, the summary. */
int main(int argc, char **argv)
{
	const char *dbpath = NULL, *name = NULL;
	int keep_raw = 0, quiet = 0;
	int64_t batch = 0;
	const lbt_cli_opt opts[] = {
		LBT_OPT_STR("database", 'd', &dbpath, "FILE",
		    "index to create or update (default lbt.db; same as --db)"),
		LBT_OPT_STR("name", 0, &name, "NAME", "file name recorded for standard input"),
		LBT_OPT_FLAG("keep-raw", 0, &keep_raw, "also keep every line, zstd-compressed"),
		LBT_OPT_INT("batch", 0, &batch, 1, 100000000, "N",
		    "rows per transaction (default 200000)"),
		LBT_OPT_FLAG("quiet", 'q', &quiet, "no progress line and no summary"),
		LBT_OPT_ALIAS("lb", "lb-name"),      /* the old name (NEWS); --lb filters elsewhere */
		LBT_OPT_END
	};
	static const lbt_cli_prog prog = { "lbt-index", "[-d FILE] [options] [log ...]",
		"load logs into a SQLite index (idempotent, resumable)", LBT_CLI_INPUT, 0, -1 };
	static char *stdin_only[] = { "-", NULL };
	lbt_db_opts dbo = LBT_DB_OPTS_INIT;
	lbt_db_stats st = { 0 };
	double t0 = now_s();
	lbt_cli cli;
	lbt_err err;
	lbt_db *db;
	char **args;

	lbt_cli_parse(&cli, &prog, opts, argc, argv);
	dbpath = dbpath ? dbpath : cli.in.db ? cli.in.db : "lbt.db";
	cli.in.db = NULL;
	args = cli.nargs > 0 || cli.specs.n > 0 ? cli.args : stdin_only;
	if (name != NULL && (cli.nargs > 1 || args[0] == NULL || strcmp(args[0], "-") != 0)) {
		lbt_cli_errorf(&cli, "--name applies to standard input only");
		lbt_cli_usage(&cli);
	}
	check_inputs(&cli);
	dbo.keep_raw = keep_raw;
	dbo.batch = (uint64_t)batch;
	if ((db = lbt_db_open(dbpath, &dbo, &err)) == NULL)
		lbt_cli_die(&cli, &err);
	index_all(&cli, db, args, name, quiet, &st);
	if (lbt_db_close(db, &err) < 0)
		lbt_cli_error(&cli, &err);
	if (!quiet)
		summary(prog.name, &st, now_s() - t0);
	return lbt_cli_finish(&cli, NULL, NULL);
}
