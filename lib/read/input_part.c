/*
 * input_part.c - a file read in parts, one input a part, so that each
 * core parses its own range of the file (lib/run/par.c drives it; see
 * include/lbt/input.h).
 *
 * The input that opened the file reads its first part (it detected the
 * formats on the file's first lines, reported what detection had to say,
 * and counts the file); every other part is an input of its own over the
 * same options, the file's formats named (the detected ones as a --format
 * list), its own bytes and its true line numbers.  Its malformed lines
 * and counters are handed back to the first input (lbt_input_report,
 * lbt_input_stats_add) in file order, so that the run says what one
 * input would have said.
 */
#include <stdlib.h>
#include <string.h>

#include "input_int.h"

/* Make lbt_input_next return 0 at the end of each file. */
void lbt_input_pause(lbt_input *in)
{
	in->pausing = 1;
}

/* @return 1 while a file is open or queued, else 0. */
int lbt_input_more(const lbt_input *in)
{
	return !in->stopped && (in->src != NULL || in->pause_pending || in->ev.emitting ||
	    in->next < in->npaths);
}

/* The queue entry of the open file, or NULL. */
static const struct path *open_path(const lbt_input *in)
{
	return in->src != NULL && in->next > 0 ? &in->paths[in->next - 1] : NULL;
}

/* The size of the open file when it can be read in parts (see input.h), else 0;
 * *from: the bytes already read (no cut before them); *path: its path. */
uint64_t lbt_input_cuttable(const lbt_input *in, uint64_t *from, const char **path)
{
	const struct path *p = open_path(in);

	*from = 0;
	*path = p != NULL ? p->path : NULL;
	if (p == NULL || p->part || p->skip > 0 || in->o.strict || in->cur == NULL ||
	    strcmp(p->path, "-") == 0 || lbt_source_compression(in->src) != LBT_COMP_NONE)
		return 0;
	if (in->cur == &in->det && !in->det.builtin)
		return 0;
	/* only now: stdin and compressed files are decoded ahead, on a thread
	 * that counts their bytes as it reads */
	*from = lbt_source_bytes_read(in->src);
	return lbt_source_size(in->src);
}

/* Read the open file up to byte end only.  @return 0, or -1 (it reads on) */
int lbt_input_cut(lbt_input *in, uint64_t end)
{
	return in->src != NULL ? lbt_source_set_limit(in->src, end) : -1;
}

/* The options of a part of in's open file: its input's, its formats named. */
static int part_opts(const lbt_input *in, lbt_input_opts *o, char **format, lbt_err *err)
{
	char names[1024];

	*o = in->cp->o;
	o->specs = NULL;
	o->nspecs = 0;
	o->now_us = in->now_us;
	o->wanted = in->o.wanted;
	o->events = in->o.events;
	o->threads = 1;
	*format = NULL;
	if (in->cur != &in->det)
		return 0;
	if (lbt_inputi_set_names(&in->det, names, sizeof names) == NULL ||
	    (*format = strdup(names)) == NULL)
		return lbt_err_set(err, "input: out of memory");
	o->format = *format;
	return 0;
}

/* A part of in's open file; see input.h.  @return it, or NULL with err */
lbt_input *lbt_input_part(const lbt_input *in, uint64_t off, uint64_t end, uint64_t line0,
    lbt_input_diag_fn diag, void *ctx, lbt_err *err)
{
	const struct path *p = open_path(in);
	lbt_input_opts o;
	lbt_input *part;
	char *format;

	if (p == NULL) {
		lbt_err_set(err, "input: no file open to read in parts");
		return NULL;
	}
	if (part_opts(in, &o, &format, err) < 0)
		return NULL;
	o.diag = diag;
	o.diag_ctx = ctx;
	if ((part = lbt_input_new(&o, err)) == NULL) {
		free(format);
		return NULL;
	}
	part->part_format = format;
	lbt_input_add_at(part, p->path, in->name, 0);
	if (part->npaths == 1) {
		struct path *q = &part->paths[0];

		q->part = 1;
		q->off = off;
		q->end = end;
		q->line0 = line0;
	}
	return part;
}

/* Number the part's lines from line0 + 1 (before its first record). */
void lbt_input_part_lines(lbt_input *part, uint64_t line0)
{
	if (part->npaths == 1 && part->paths[0].part)
		part->paths[0].line0 = line0;
}

/* Report a part's malformed line as in's own (within in's limit). */
void lbt_input_report(lbt_input *in, const lbt_err *e)
{
	if (in->o.diag != NULL && in->reported < in->o.max_reported) {
		in->reported++;
		in->o.diag(in->o.diag_ctx, e);
	}
}

/* Add a part's counters to in's (its file is counted once, by in). */
void lbt_input_stats_add(lbt_input *in, const lbt_input_stats *st)
{
	in->st.lines += st->lines;
	in->st.records += st->records;
	in->st.events += st->events;
	in->st.skipped += st->skipped;
	in->st.malformed += st->malformed;
	in->st.filtered += st->filtered;
	in->st.failed_files += st->failed_files;
	in->st.first_us = st->first_us < in->st.first_us ? st->first_us : in->st.first_us;
	in->st.last_us = st->last_us > in->st.last_us ? st->last_us : in->st.last_us;
	in->st.parts++;
	if (in->file_first_bad == 0)
		in->file_first_bad = st->partial_first;   /* parts join in file order */
	if (in->next > 0)
		lbt_inputi_partial_check(in);       /* the file with this part */
}
