/*
 * input_profile.c - the options of each input made ready once: the global
 * options (profile 0, plain operands) and one profile per --input word or
 * sources line (its keys over the global options, input_spec.c), each with
 * its zone and the formats it names.  And what tiers the queued inputs
 * hold, known before reading (lbt_input_tiers, for lbt_stream's --tier
 * auto).  See lib/read/input_int.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input_int.h"
#include "lbt/vec.h"

/* Check that the format options fit together.  @return 0 or -1 with err. */
static int format_opts_check(const lbt_input_opts *o, lbt_err *err)
{
	int n = !!o->format + !!o->log_format + !!o->haproxy_cfg + !!o->nginx_conf;

	if (n > 1)
		return lbt_err_set(err, "--format, --log-format, --haproxy-cfg and "
		    "--nginx-conf exclude each other");
	if (o->frontend && !o->haproxy_cfg)
		return lbt_err_set(err, "--frontend needs --haproxy-cfg");
	if (o->log_name && !o->nginx_conf)
		return lbt_err_set(err, "--log-name needs --nginx-conf");
	if (o->escape && !o->log_format)
		return lbt_err_set(err, "--escape needs --log-format");
	return 0;
}

/* Add one trusted proxy, the network s[0..n) (from `where`).  @return 0 or -1 with err */
static int trusted_add(lbt_ipset *set, const char *s, size_t n, const char *file,
    uint64_t line, lbt_err *err)
{
	char buf[LBT_ADDR_STRLEN + 8];
	lbt_addr a;
	int bits;

	if (n == 0 || n >= sizeof buf)
		return lbt_err_at(err, file, line, "--trusted-proxies: '%.*s' is not an address "
		    "or network", (int)(n > 60 ? 60 : n), s);
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (lbt_addr_parse_prefix(buf, &a, &bits) < 0)
		return lbt_err_at(err, file, line, "--trusted-proxies: '%s' is not an address or "
		    "network", buf);
	if (lbt_ipset_add(set, &a, bits) < 0)
		return lbt_err_set(err, "out of memory");
	return 0;
}

/* The networks of an @FILE: one a line, '#' to the end of a line a comment.
 * @return 0 or -1 with err naming file:line */
static int trusted_file(lbt_ipset *set, const char *path, lbt_err *err)
{
	FILE *fp = fopen(path, "r");
	char line[512];
	uint64_t no = 0;
	int rc = 0;

	if (fp == NULL)
		return lbt_err_set(err, "--trusted-proxies: %s: %s", path, strerror(errno));
	while (rc == 0 && fgets(line, sizeof line, fp) != NULL) {
		char *p = line + strspn(line, " \t");
		size_t n = strcspn(p, "#\r\n");

		no++;
		while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t'))
			n--;
		if (n > 0)
			rc = trusted_add(set, p, n, path, no, err);
	}
	fclose(fp);
	return rc;
}

/*
 * --trusted-proxies LIST|@FILE into a set, read once here so that the
 * formats of every thread share it (lbt_format_set_trusted): networks
 * separated by commas, an element "@FILE" the networks of FILE.  "" is
 * an empty list: the connecting address always counts.  @return the set,
 * or NULL with err (a bad network, the file unreadable)
 */
static lbt_ipset *trusted_read(const char *arg, lbt_err *err)
{
	lbt_ipset *set = lbt_ipset_new();
	lbt_addr any = { 4, { 0 } };
	int rc = 0;

	if (set == NULL) {
		lbt_err_set(err, "out of memory");
		return NULL;
	}
	for (const char *p = arg; rc == 0 && *p != '\0';) {
		size_t n = strcspn(p, ",");
		char path[4096];

		if (p[0] == '@' && n < sizeof path) {
			memcpy(path, p + 1, n - 1);
			path[n - 1] = '\0';
			rc = trusted_file(set, path, err);
		} else {
			rc = trusted_add(set, p, n, NULL, 0, err);
		}
		p += n + (p[n] == ',');
	}
	if (rc < 0) {
		lbt_ipset_free(set);
		return NULL;
	}
	(void)lbt_ipset_has(set, &any);   /* normalised now: later reads write nothing */
	return set;
}

/* Zone and formats of p.  @return 0 or -1 with err. */
static int profile_setup(lbt_input *in, struct profile *p, lbt_err *err)
{
	const lbt_input_opts *o = &p->o;

	if (format_opts_check(o, err) < 0)
		return -1;
	if ((p->tz = lbt_tz_new(o->log_tz, err)) == NULL && o->log_tz != NULL)
		return -1;
	if (o->trusted_proxies != NULL && (p->trusted = trusted_read(o->trusted_proxies, err)) == NULL)
		return -1;
	if (lbt_inputi_set_from_opts(&p->fixed, o, err) < 0)
		return -1;
	return lbt_inputi_set_setup(&p->fixed, p, in->wanted, err);
}

/* Free a profile; NULL accepted. */
static void profile_free(struct profile *p)
{
	if (p == NULL)
		return;
	lbt_inputi_set_free(&p->fixed);
	lbt_tz_free(p->tz);
	lbt_ipset_free(p->trusted);
	free(p);
}

/* Prefix err with where_file:where_line (a spec's origin).  @return -1 */
static int at_origin(const char *where_file, uint64_t where_line, lbt_err *err)
{
	char msg[sizeof err->msg], buf[sizeof err->msg + 64];

	snprintf(msg, sizeof msg, "%s", lbt_err_str(err, buf, sizeof buf));
	return lbt_err_at(err, where_file, where_line, "%s", msg);
}

/* Make and append a profile; see input_int.h.  @return its index, or -1 with err. */
long lbt_inputi_profile_add(lbt_input *in, const lbt_input_opts *o, const char *where_file,
    uint64_t where_line, lbt_err *err)
{
	struct profile *p = calloc(1, sizeof *p);

	if (p == NULL || LBT_GROW(in->prof, in->prof_cap, in->nprof + 1, 4) < 0) {
		free(p);
		return lbt_err_set(err, "input: out of memory");
	}
	p->o = *o;
	p->where_file = where_file;
	p->where_line = where_line;
	if (profile_setup(in, p, err) < 0) {
		profile_free(p);
		return where_file ? at_origin(where_file, where_line, err) : -1;
	}
	in->prof[in->nprof] = p;
	return (long)in->nprof++;
}

/* Free every profile. */
void lbt_inputi_profiles_free(lbt_input *in)
{
	for (size_t i = 0; i < in->nprof; i++)
		profile_free(in->prof[i]);
	free(in->prof);
	in->prof = NULL;
	in->nprof = in->prof_cap = 0;
}

/*
 * Detection on the first lines of queued file q read with profile p, in a
 * throwaway input (nothing is counted in `in`; a doubtful detection is
 * noted through in's diag now rather than when the file is read).  The
 * formats chosen are kept in q->probed.  @return their tiers, or
 * LBT_BIT(LBT_TIER_NONE) when it cannot say.
 */
static unsigned probe(const lbt_input *in, struct profile *p, struct path *q)
{
	lbt_input *t = calloc(1, sizeof *t);
	unsigned m = 1u << LBT_TIER_NONE;
	lbt_err err;

	if (t == NULL)
		return m;
	t->cp = p;
	t->tz = p->tz;
	t->now_us = in->now_us;
	t->o.diag = in->o.diag;
	t->o.diag_ctx = in->o.diag_ctx;
	if ((t->src = lbt_source_open(q->path, q->name, &err)) != NULL &&
	    (t->name = strdup(lbt_source_name(t->src))) != NULL) {
		t->ref_s = lbt_source_mtime(t->src) ? lbt_source_mtime(t->src) :
		    in->now_us / 1000000;
		if (lbt_inputi_detect(t, &err) >= 0 && t->det.n > 0 &&
		    (q->probed = malloc(sizeof *q->probed)) != NULL) {
			m = lbt_inputi_set_tiers(&t->det);
			*q->probed = t->det;             /* taken over */
			memset(&t->det, 0, sizeof t->det);
		}
	}
	lbt_source_close(t->src);
	lbt_inputi_set_free(&t->det);
	free(t->name);
	free(t->sbuf);
	free(t->sl);
	free(t);
	return m;
}

/* The tiers of queued file q known ahead; see input_int.h. */
unsigned lbt_inputi_file_tiers(lbt_input *in, struct path *q)
{
	struct profile *p = in->prof[q->prof];

	if (p->o.tier != LBT_TIER_NONE)
		return 1u << p->o.tier;
	if (p->fixed.n > 0)
		return lbt_inputi_set_tiers(&p->fixed);
	if (q->probed != NULL)
		return lbt_inputi_set_tiers(q->probed);
	if (q->skip > 0 || !lbt_source_is_file(q->path))
		return 1u << LBT_TIER_NONE;       /* a stream (stdin, a FIFO) cannot be read twice */
	return probe(in, p, q);
}
