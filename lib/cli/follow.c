/*
 * follow.c - --follow (see follow.h; the design is docs/follow.md).
 *
 * One tail (lib/read/tail.c) and one record stream a followed input: the
 * tail's thread writes the file's whole lines into a pipe and the stream
 * reads it as a live input ("/dev/fd/N"), so detection, syslog wrappers,
 * formats and filters are those of every other run.  This thread takes
 * the records that are ready from each stream in turn (never waiting on
 * one while another has lines), copies them into the ring, counts the
 * watched networks, and every interval feeds the window to fresh
 * analyses and writes their answer.
 */
#include <errno.h>
#include <jansson.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "lbt/esc.h"
#include "lbt/follow.h"
#include "lbt/ring.h"
#include "lbt/source.h"
#include "lbt/tail.h"
#include "lbt/timeparse.h"

#define MAX_INPUTS 64
#define MAX_ANALYSES 8
#define BATCH 4096                 /* records taken from one input before the next */
#define TICK_MS 50
#define NOTES 4                    /* notes shown on the screen, newest last */

struct input {
	lbt_tail *tail;
	lbt_stream *s;
	lbt_input_spec spec;           /* a --input/--sources line, its file the pipe */
	char *files[1];
	char fdpath[32];
	int done;
};

struct follow {
	lbt_cli *cli;
	const lbt_follow_opts *fo;
	const lbt_follow_prog *p;
	struct input in[MAX_INPUTS];
	size_t n;
	lbt_ring *ring;
	lbt_watch *watch;
	int watch_given, tty;
	uint64_t lines, records, malformed;
	char note[NOTES][320];
	unsigned nnotes;
};

static int64_t mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* A note for the screen (and stderr without a terminal). */
static void keep_note(struct follow *f, const char *msg)
{
	if (!f->tty)
		lbt_cli_note(f->cli, "%s", msg);
	snprintf(f->note[f->nnotes++ % NOTES], sizeof f->note[0], "%s", msg);
}

/* Start following path (spec: its --input line, or NULL).  Exits on failure. */
static void add_input(struct follow *f, const char *path, const lbt_input_spec *spec)
{
	struct input *in = &f->in[f->n];
	lbt_input_opts o = f->cli->in;
	lbt_err err;

	if (f->n == MAX_INPUTS) {
		lbt_err_set(&err, "--follow: at most %d inputs", MAX_INPUTS);
		lbt_cli_die(f->cli, &err);
	}
	if ((in->tail = lbt_tail_start(path, &err)) == NULL)
		lbt_cli_die(f->cli, &err);
	snprintf(in->fdpath, sizeof in->fdpath, "/dev/fd/%d", lbt_tail_fd(in->tail));
	o.threads = 1;
	o.specs = NULL;
	o.nspecs = 0;
	if (spec != NULL) {
		in->spec = *spec;
		in->files[0] = in->fdpath;
		in->spec.files = in->files;
		in->spec.nfiles = 1;
		o.specs = &in->spec;
		o.nspecs = 1;
	}
	if ((in->s = lbt_stream_open(&o, NULL, 0, &err)) == NULL)
		lbt_cli_die(f->cli, &err);
	if (spec == NULL)
		lbt_input_add_at(lbt_stream_input(in->s), in->fdpath, path, 0);
	f->n++;
}

/* Every input of the command line, each followed. */
static void add_inputs(struct follow *f)
{
	lbt_cli *cli = f->cli;

	for (size_t i = 0; i < cli->specs.n; i++)
		for (size_t k = 0; k < cli->specs.v[i].nfiles; k++)
			add_input(f, cli->specs.v[i].files[k], &cli->specs.v[i]);
	for (int i = 0; i < cli->nargs; i++)
		add_input(f, cli->args[i], NULL);
	if (f->n == 0)
		add_input(f, "-", NULL);
}

/* Has input `in` a line (or its end) to give without waiting? */
static int ready(struct input *in)
{
	const struct lbt_source *src = lbt_input_source(lbt_stream_input(in->s));
	struct pollfd pfd = { lbt_tail_fd(in->tail), POLLIN, 0 };

	if (src != NULL)
		return lbt_source_wait((struct lbt_source *)src, 0);
	return poll(&pfd, 1, 0) > 0;
}

/* Take the records ready on one input.  @return records taken */
static uint64_t take(struct follow *f, struct input *in)
{
	uint64_t got = 0;
	lbt_err err;
	lbt_rec *rec;
	int r;

	while (got < BATCH && !in->done && ready(in)) {
		if ((r = lbt_stream_next(in->s, &rec, &err)) < 0) {
			lbt_cli_error(f->cli, &err);
			continue;
		}
		if (r == 0) {
			in->done = 1;
			break;
		}
		got++;
		if (rec->kind == LBT_KIND_REQUEST)
			f->records++;
		if (lbt_ring_add(f->ring, rec) < 0) {
			lbt_err_set(&err, "--follow: out of memory for the window");
			lbt_cli_die(f->cli, &err);
		}
		lbt_watch_count(f->watch, rec);
	}
	return got;
}

/* Lines and malformed lines of every input so far, and the tails' notes. */
static void gather(struct follow *f)
{
	char buf[320];

	f->lines = f->malformed = 0;
	for (size_t i = 0; i < f->n; i++) {
		const lbt_input_stats *st = lbt_stream_stats(f->in[i].s);

		f->lines += st->lines;
		f->malformed += st->malformed;
		while (lbt_tail_note(f->in[i].tail, buf, sizeof buf))
			keep_note(f, buf);
	}
}

static int count_watch(void *ctx, const lbt_rec *rec)
{
	lbt_watch_count(ctx, rec);
	return 0;
}

/* The program proposed networks (its rule) and none were given: watch
 * them from now on, counting the window's records already held. */
static void adopt_watch(struct follow *f, const char *list)
{
	lbt_err err;

	if (f->watch_given || lbt_watch_count_nets(f->watch) > 0 || list[0] == '\0')
		return;
	if (lbt_watch_add(f->watch, list, &err) < 0)
		return;                    /* a rule's own network always parses */
	lbt_ring_each(f->ring, count_watch, f->watch);
}

/* A duration as "4m59s", "59s". */
static const char *dur(int64_t us, char *buf, size_t size)
{
	int64_t s = us / 1000000;

	if (s >= 3600)
		snprintf(buf, size, "%lldh%02lldm", (long long)(s / 3600), (long long)(s / 60 % 60));
	else if (s >= 60)
		snprintf(buf, size, "%lldm%02llds", (long long)(s / 60), (long long)(s % 60));
	else
		snprintf(buf, size, "%llds", (long long)s);
	return buf;
}

static double share(uint64_t part, uint64_t whole)
{
	return whole == 0 ? 0.0 : 100.0 * (double)part / (double)whole;
}

/* The watched networks' answers, before and after: at most 80 columns. */
static void write_watch(struct follow *f, FILE *fp)
{
	lbt_watch_net n;
	char t[40];

	if (lbt_watch_count_nets(f->watch) == 0)
		return;
	fprintf(fp, "\n%-20s %-7s %9s %7s %10s\n", "watched network", "answers", "requests",
	    "429 %", "to backend");
	for (size_t i = 0; lbt_watch_at(f->watch, i, &n); i++) {
		fprintf(fp, "%-20.20s %-7s %9llu %6.1f%% %10llu\n", n.name, "before",
		    (unsigned long long)n.before.requests, share(n.before.s429, n.before.requests),
		    (unsigned long long)n.before.backend);
		if (n.mark_us == 0) {
			fprintf(fp, "%-20s %-7s %s\n", "", "after", "(no rule has taken effect yet)");
			continue;
		}
		lbt_time_format_s(n.mark_us, t, sizeof t);
		fprintf(fp, "%-20s %-7s %9llu %6.1f%% %10llu  since %s\n", "", "after",
		    (unsigned long long)n.after.requests, share(n.after.s429, n.after.requests),
		    (unsigned long long)n.after.backend, t + 11);
	}
	fprintf(fp, "rule took effect: the first second more than half 429 after one with fewer\n");
}

/* The terminal's rows, 40 when it does not say. */
static int term_rows(void)
{
	struct winsize ws;

	return ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 2 ? ws.ws_row : 40;
}

/* Write the first rows - 1 lines of frame[0..len) after a clear: a frame
 * taller than the terminal would scroll its header away. */
static int put_frame(const char *frame, size_t len)
{
	int rows = term_rows() - 1;
	size_t n = 0;

	while (n < len && rows > 0) {
		const char *nl = memchr(frame + n, '\n', len - n);

		n = nl != NULL ? (size_t)(nl - frame) + 1 : len;
		rows--;
	}
	fputs("\033[H\033[2J", stdout);
	fwrite(frame, 1, n, stdout);
	return fflush(stdout);
}

/* "note: " and the note, escaped, wrapped at blanks to 80 columns. */
static void put_note(FILE *out, const char *note)
{
	char buf[LBT_ESC_MAX(320) + 8];
	size_t col = 5;
	char *w;

	lbt_esc(buf, sizeof buf, note, strlen(note), LBT_ESC_TERM);
	fputs("note:", out);
	for (char *p = strtok_r(buf, " ", &w); p != NULL; p = strtok_r(NULL, " ", &w)) {
		size_t len = strlen(p);

		if (col > 6 && col + 1 + len > 80) {
			fputs("\n     ", out);
			col = 5;
		}
		fprintf(out, " %s", p);
		col += 1 + len;
	}
	fputc('\n', out);
}

/* The screen: a header, the watched networks, the notes, the answer. */
static int write_screen(struct follow *f, const lbt_ring_stats *rs, const char *answer,
    size_t len)
{
	char a[24], b[24], t[40];
	char *frame = NULL;
	size_t flen = 0;
	FILE *out = open_memstream(&frame, &flen);
	int rc;

	if (out == NULL)
		return -1;
	lbt_time_format_s(rs->last_us, t, sizeof t);
	fprintf(out, "%s --follow: %zu input%s, window %s (%s held) to %s\n",
	    f->cli->prog->name, f->n, f->n == 1 ? "" : "s", dur(f->fo->window_us, a, sizeof a),
	    dur(rs->held_us, b, sizeof b), rs->records > 0 ? t + 11 : "-");
	fprintf(out, "%llu lines, %llu malformed, %llu requests (%llu in the window)\n",
	    (unsigned long long)f->lines, (unsigned long long)f->malformed,
	    (unsigned long long)f->records, (unsigned long long)rs->records);
	if (rs->dropped > 0)
		fprintf(out, "memory budget reached: the window held is %s\n", dur(rs->held_us, a, sizeof a));
	write_watch(f, out);
	for (unsigned i = f->nnotes > NOTES ? f->nnotes - NOTES : 0; i < f->nnotes; i++) {
		fputs(i == (f->nnotes > NOTES ? f->nnotes - NOTES : 0) ? "\n" : "", out);
		put_note(out, f->note[i % NOTES]);
	}
	fputc('\n', out);
	fwrite(answer, 1, len, out);
	if (fclose(out) != 0) {
		free(frame);
		return -1;
	}
	rc = put_frame(frame, flen);
	free(frame);
	return rc;
}

/* One side of a watched network as JSON. */
static json_t *side_json(const lbt_watch_side *s)
{
	return json_pack("{sIsIsI}", "requests", (json_int_t)s->requests, "429",
	    (json_int_t)s->s429, "backend", (json_int_t)s->backend);
}

/* A program's NDJSON rows (out.h) as one array; a line that is not JSON
 * is left out (none is: the writer is ours). */
static json_t *rows_json(const char *text, size_t len)
{
	json_t *a = json_array(), *row;
	json_error_t je;

	for (size_t at = 0; at < len; ) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t n = nl != NULL ? (size_t)(nl - text) - at : len - at;

		if (n > 0 && (row = json_loadb(text + at, n, 0, &je)) != NULL)
			json_array_append_new(a, row);
		at += n + 1;
	}
	return a;
}

/* One NDJSON snapshot: the counters, the watch, the notes, the answer. */
static int write_snapshot(struct follow *f, const lbt_ring_stats *rs, const char *answer,
    size_t len)
{
	json_t *o = json_object(), *w = json_array(), *notes = json_array(), *ans;
	lbt_watch_net n;
	json_error_t je;
	char t[40];
	int rc;

	for (size_t i = 0; lbt_watch_at(f->watch, i, &n); i++) {
		lbt_time_format_s(n.mark_us, t, sizeof t);
		json_array_append_new(w, json_pack("{ssso so so}", "net", n.name, "mark",
		    n.mark_us != 0 ? json_string(t) : json_null(), "before", side_json(&n.before),
		    "after", side_json(&n.after)));
	}
	for (unsigned i = f->nnotes > NOTES ? f->nnotes - NOTES : 0; i < f->nnotes; i++)
		json_array_append_new(notes, json_string(f->note[i % NOTES]));
	f->nnotes = 0;                 /* a snapshot's notes are the new ones */
	lbt_time_format_s(rs->last_us, t, sizeof t);
	json_object_set_new(o, "newest", rs->records > 0 ? json_string(t) : json_null());
	json_object_set_new(o, "window_s", json_integer(f->fo->window_us / 1000000));
	json_object_set_new(o, "held_s", json_integer(rs->held_us / 1000000));
	json_object_set_new(o, "lines", json_integer((json_int_t)f->lines));
	json_object_set_new(o, "malformed", json_integer((json_int_t)f->malformed));
	json_object_set_new(o, "requests", json_integer((json_int_t)f->records));
	json_object_set_new(o, "window_records", json_integer((json_int_t)rs->records));
	json_object_set_new(o, "memory", json_integer((json_int_t)rs->bytes));
	json_object_set_new(o, "dropped", json_integer((json_int_t)rs->dropped));
	json_object_set_new(o, "watch", w);
	json_object_set_new(o, "notes", notes);
	ans = f->p->rows ? rows_json(answer, len) : json_loadb(answer, len, 0, &je);
	if (ans == NULL)
		ans = json_null();
	json_object_set_new(o, "answer", ans);
	rc = json_dumpf(o, stdout, JSON_COMPACT | JSON_ENSURE_ASCII);
	json_decref(o);
	fputc('\n', stdout);
	return rc < 0 ? -1 : fflush(stdout);
}

/* Fresh analyses over the window, their answer written.  @return 0, or -1
 * with err */
static int refresh(struct follow *f, lbt_err *err)
{
	lbt_analysis v[MAX_ANALYSES] = { { 0 } };
	lbt_follow_view view;
	lbt_ring_stats rs;
	char *buf = NULL;
	size_t len = 0;
	FILE *mem;
	int n, rc = -1;

	gather(f);
	if ((n = f->p->make(f->p->ctx, v, err)) < 0)
		return -1;
	memset(&view, 0, sizeof view);
	view.v = v;
	view.n = (size_t)n;
	view.records = lbt_ring_feed(f->ring, v, (size_t)n);
	rs = lbt_ring_stats_get(f->ring);
	view.now_us = rs.last_us;
	view.json = !f->tty;
	view.color = f->cli->color;
	view.width = 80;
	for (int i = 0; i < n; i++)
		if (v[i].ops->finish(v[i].acc, err) < 0)
			goto out;
	if ((mem = open_memstream(&buf, &len)) == NULL) {
		lbt_err_set(err, "out of memory");
		goto out;
	}
	rc = f->p->write(f->p->ctx, &view, mem, err);
	if (fclose(mem) != 0 && rc == 0)
		rc = lbt_err_set(err, "out of memory");
	if (rc == 0) {
		adopt_watch(f, view.watch);
		rc = f->tty ? write_screen(f, &rs, buf, len) : write_snapshot(f, &rs, buf, len);
		if (rc != 0)
			lbt_err_set(err, "standard output: %s", strerror(errno));
	}
out:
	free(buf);
	for (int i = 0; i < n; i++)
		lbt_analysis_free(&v[i]);
	return rc;
}

/* Wait for a line on any input, at most ms. */
static void wait_any(struct follow *f, int ms)
{
	struct pollfd pfd[MAX_INPUTS];
	nfds_t k = 0;

	for (size_t i = 0; i < f->n; i++)
		if (!f->in[i].done)
			pfd[k++] = (struct pollfd){ lbt_tail_fd(f->in[i].tail), POLLIN, 0 };
	poll(pfd, k, ms);
}

static int all_done(const struct follow *f)
{
	for (size_t i = 0; i < f->n; i++)
		if (!f->in[i].done)
			return 0;
	return 1;
}

/* The loop: take what is ready, refresh each interval, wait for more. */
static int run(struct follow *f, volatile sig_atomic_t *stop)
{
	int64_t next = mono_us() + f->fo->interval_us;
	lbt_err err;

	while (!*stop) {
		uint64_t got = 0;
		int64_t now;

		for (size_t i = 0; i < f->n; i++)
			got += take(f, &f->in[i]);
		now = mono_us();
		if (now >= next || all_done(f)) {
			if (refresh(f, &err) < 0) {
				lbt_cli_error(f->cli, &err);
				return LBT_EXIT_ERROR;
			}
			next += f->fo->interval_us;     /* the cadence kept, */
			if (next <= mono_us())          /* unless a refresh overran it */
				next = mono_us() + f->fo->interval_us;
			if (all_done(f))
				break;
		}
		if (got == 0)
			wait_any(f, (int)((next - now) / 1000 < TICK_MS ? (next - now) / 1000 + 1 : TICK_MS));
	}
	return f->cli->status;
}

void lbt_follow_check(lbt_cli *cli, const lbt_follow_opts *fo)
{
	const lbt_follow_opts d = LBT_FOLLOW_OPTS_INIT;

	if (fo->on || (fo->watch == NULL && fo->window_us == d.window_us &&
	    fo->interval_us == d.interval_us))
		return;
	lbt_cli_errorf(cli, "--window, --interval and --watch need --follow");
	lbt_cli_usage(cli);
}

/* The fields the program's analyses read: of a first set, made and freed. */
static uint64_t wanted(struct follow *f)
{
	lbt_analysis v[MAX_ANALYSES] = { { 0 } };
	uint64_t w;
	lbt_err err;
	int n;

	if ((n = f->p->make(f->p->ctx, v, &err)) < 0)
		lbt_cli_die(f->cli, &err);
	w = lbt_analysis_fields(v, (size_t)n);
	for (int i = 0; i < n; i++)
		lbt_analysis_free(&v[i]);
	return w;
}

int lbt_cli_follow(lbt_cli *cli, const lbt_follow_opts *fo, const lbt_follow_prog *p,
    volatile sig_atomic_t *stop)
{
	struct follow *f = calloc(1, sizeof *f);
	lbt_err err;
	int rc;

	if (f == NULL || (f->ring = lbt_ring_new(fo->window_us, fo->max_memory)) == NULL ||
	    (f->watch = lbt_watch_new()) == NULL) {
		lbt_err_set(&err, "out of memory");
		lbt_cli_die(cli, &err);
	}
	if (cli->in.db != NULL) {
		lbt_err_set(&err, "--follow reads growing logs, not an index (--db)");
		lbt_cli_die(cli, &err);
	}
	f->cli = cli;
	f->fo = fo;
	f->p = p;
	f->tty = isatty(STDOUT_FILENO);
	if (fo->watch != NULL && lbt_watch_add(f->watch, fo->watch, &err) < 0)
		lbt_cli_die(cli, &err);
	f->watch_given = fo->watch != NULL;
	cli->in.wanted = wanted(f) | LBT_BIT(LBT_F_TIME) | LBT_BIT(LBT_F_CLIENT) |
	    LBT_BIT(LBT_F_STATUS) | LBT_BIT(LBT_F_SERVER) | LBT_BIT(LBT_F_TERM);
	add_inputs(f);
	rc = run(f, stop);
	for (size_t i = 0; i < f->n; i++) {
		lbt_tail_stop(f->in[i].tail);
		lbt_stream_free(f->in[i].s);
	}
	lbt_ring_free(f->ring);
	lbt_watch_free(f->watch);
	free(f);
	lbt_input_specs_free(&cli->specs);
	return rc;
}

/* lbt_cli_follow_signals: SIGINT and SIGTERM end the loop. */
static volatile sig_atomic_t follow_stop;

static void follow_on_signal(int sig)
{
	(void)sig;
	follow_stop = 1;
}

/* lbt_cli_follow with the program's SIGINT and SIGTERM handlers set here
 * (lib/cli is the program's layer; see follow.h).  @return its status */
int lbt_cli_follow_signals(lbt_cli *cli, const lbt_follow_opts *fo, const lbt_follow_prog *p)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = follow_on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	return lbt_cli_follow(cli, fo, p, &follow_stop);
}
