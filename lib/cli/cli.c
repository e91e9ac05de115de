/*
 * cli.c - the command line every lbt-* program shares.  See include/lbt/cli.h.
 *
 * The one module of liblbt that prints and exits, on behalf of main().
 * The shared option groups are tables like a program's own, pointing into
 * the lbt_cli (or into a frame-local struct for options that are resolved
 * after parsing); getopt_long and --help are both generated from the
 * concatenated tables.  Messages ("NAME: ...") are cli_message.c's, the
 * exit status and the notes of an empty answer cli_status.c's.
 */
#include <assert.h>
#include <errno.h>
#include <getopt.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cli_int.h"
#include "lbt/driver.h"
#include "lbt/num.h"
#include "lbt/version.h"

#define HELP_COL 28

/*
 * Room of each shared option group (entries, LBT_OPT_END included).  Every
 * group function checks its table against its room at compile time, so a
 * new option that does not fit fails the build instead of overflowing
 * lbt_cli_parse()'s stack.
 */
#define GROUP_INPUT_MAX  19
#define GROUP_FILTER_MAX 12
#define GROUP_OUTPUT_MAX 9
#define GROUP_STD_MAX    3

/* Copy group table g (a local array) into t, whose room is `room` entries:
 * too small a room is a compile-time error. */
#define GROUP_COPY(t, g, room) do { \
	_Static_assert(sizeof(g) / sizeof((g)[0]) <= (room), \
	    "option group larger than its room in lbt_cli_parse()"); \
	memcpy((t), (g), sizeof(g)); \
} while (0)

/* Options resolved after parsing (modes, colour, --now, --tier, help). */
struct late {
	int tsv, json, table, md, no_header, wide;
	const char *color;
	const char *fields;     /* -f/--fields */
	const char *now;
	const char *tier;
	int64_t threads;        /* --threads; 0 = the cores online */
	int help, version;
};

/* A group's title and table, for --help. */
struct group {
	const char *title;
	const lbt_cli_opt *opts;
};

/* Store an optional argument ("always" when absent) for --color. */
static int color_arg(void *ctx, const char *arg, lbt_err *err)
{
	(void)err;
	*(const char **)ctx = arg ? arg : "always";
	return 0;
}

/* --input LINE: one more input with its own options (input_spec.h). */
static int input_arg(void *ctx, const char *arg, lbt_err *err)
{
	return lbt_input_specs_add(ctx, arg, err);
}

/* --sources FILE: the inputs of a sources file. */
static int sources_arg(void *ctx, const char *arg, lbt_err *err)
{
	return lbt_input_specs_read(ctx, arg, err) < 0 ? -1 : 0;
}

/* Fill `t` (GROUP_INPUT_MAX entries) with the INPUT group pointing into cli and l. */
static void group_input(lbt_cli *cli, struct late *l, lbt_cli_opt *t)
{
	lbt_input_opts *i = &cli->in;
	const lbt_cli_opt g[] = {
		LBT_OPT_FN("input", 0, input_arg, &cli->specs, "'PATH KEY=V...'",
		    "one more input with its own format, lb, tier..."),
		LBT_OPT_FN("sources", 0, sources_arg, &cli->specs, "FILE",
		    "the inputs listed in FILE, one a line as --input"),
		LBT_OPT_STR("format", 0, &i->format, "NAME|FILE",
		    "read logs in this format (lbt-formats --list)"),
		LBT_OPT_STR("log-format", 0, &i->log_format, "TEMPLATE",
		    "HAProxy log-format or NGINX log_format string"),
		LBT_OPT_STR("escape", 0, &i->escape, "MODE",
		    "NGINX escape= of --log-format: default, json, none"),
		LBT_OPT_STR("haproxy-cfg", 0, &i->haproxy_cfg, "FILE",
		    "take the format from haproxy.cfg"),
		LBT_OPT_STR("frontend", 0, &i->frontend, "NAME", "proxy section of --haproxy-cfg"),
		LBT_OPT_STR("nginx-conf", 0, &i->nginx_conf, "FILE",
		    "take the format from nginx.conf"),
		LBT_OPT_STR("log-name", 0, &i->log_name, "NAME", "log_format name in --nginx-conf"),
		LBT_OPT_STR("captures", 0, &i->captures, "LIST",
		    "meaning of the %hr captures, e.g. host,ua"),
		LBT_OPT_STR("trusted-proxies", 0, &i->trusted_proxies, "LIST|@FILE",
		    "X-Forwarded-For: the client is the last address not in LIST"),
		LBT_OPT_STR("key-regex", 0, &i->key_regex, "RE",
		    "the key: group 1 of this PCRE2 pattern on the path"),
		LBT_OPT_STR("log-tz", 0, &i->log_tz, "ZONE", "zone of stamps without one (UTC)"),
		LBT_OPT_STR("lb-name", 0, &i->lb, "NAME", "LB name of lines without a syslog host"),
		LBT_OPT_STR("db", 0, &i->db, "FILE", "read records from an lbt-index database"),
		LBT_OPT_FLAG("strict", 0, &i->strict, "stop at the first malformed line"),
		LBT_OPT_INT("threads", 0, &l->threads, 1, 1024, "N",
		    "parse on N threads (default: the cores online)"),
		LBT_OPT_END
	};

	GROUP_COPY(t, g, GROUP_INPUT_MAX);
}

/* Fill `t` (GROUP_FILTER_MAX entries) with the FILTER group pointing into cli and l. */
static void group_filter(lbt_cli *cli, struct late *l, lbt_cli_opt *t)
{
	lbt_filter_opts *f = &cli->in.filter;
	const lbt_cli_opt g[] = {
		LBT_OPT_STR("since", 0, &f->since, "TIME", "records at or after TIME"),
		LBT_OPT_STR("until", 0, &f->until, "TIME", "records before TIME"),
		LBT_OPT_STR("key", 0, &f->key, "LIST", "records with one of these keys"),
		LBT_OPT_STR("src", 0, &f->src, "LIST", "clients in these addresses or networks"),
		LBT_OPT_STR("status", 0, &f->status, "LIST", "statuses: 429,5xx,-1"),
		LBT_OPT_STR("term", 0, &f->term, "LIST",
		    "termination states starting so: PT,sQ"),
		LBT_OPT_STR("lb", 0, &f->lb, "LIST", "records from these load balancers"),
		LBT_OPT_STR("tier", 0, &l->tier, "WHICH",
		    "lb, backend or all (analyses: lb when there are both)"),
		LBT_OPT_STR("now", 0, &l->now, "TIME", "the present for -15m style times"),
		LBT_OPT_END
	};

	GROUP_COPY(t, g, GROUP_FILTER_MAX);
}

/* Fill `t` (GROUP_OUTPUT_MAX entries) with the OUTPUT group pointing into l. */
static void group_output(struct late *l, lbt_cli_opt *t)
{
	const lbt_cli_opt g[] = {
		LBT_OPT_FLAG("tsv", 0, &l->tsv, "tab-separated values with a header"),
		LBT_OPT_FLAG("json", 0, &l->json, "one JSON object per line"),
		LBT_OPT_FLAG("table", 0, &l->table, "aligned columns (default on a terminal)"),
		LBT_OPT_FLAG("md", 0, &l->md, "Markdown table"),
		LBT_OPT_FLAG("no-header", 0, &l->no_header, "no header line (TSV, table)"),
		LBT_OPT_STR("fields", 'f', &l->fields, "LIST",
		    "only these columns, comma-separated"),
		LBT_OPT_FLAG("wide", 0, &l->wide,
		    "table: every column, whole, whatever the width"),
		{ "color", 0, LBT_CLI_FN_OPTARG, &l->color, 0, 0, color_arg, "[=WHEN]",
		    "colour: auto, always, never" },
		LBT_OPT_END
	};

	GROUP_COPY(t, g, GROUP_OUTPUT_MAX);
}

/* Fill `t` (GROUP_STD_MAX entries) with -h/--help and --version. */
static void group_std(struct late *l, lbt_cli_opt *t)
{
	const lbt_cli_opt g[] = {
		LBT_OPT_FLAG("help", 'h', &l->help, "show this help and exit"),
		LBT_OPT_FLAG("version", 0, &l->version, "show the version and exit"),
		LBT_OPT_END
	};

	GROUP_COPY(t, g, GROUP_STD_MAX);
}

/* Number of options in an LBT_OPT_END-terminated table (NULL = 0). */
static int opt_count(const lbt_cli_opt *t)
{
	int n = 0;

	while (t && t[n].name)
		n++;
	return n;
}

/* Print every form of the synopsis to fp. */
static void print_usage(const lbt_cli *cli, FILE *fp)
{
	const char *s = cli->prog->synopsis ? cli->prog->synopsis : "";
	const char *lead = "usage:";

	for (;;) {
		const char *nl = strchr(s, '\n');
		int n = nl ? (int)(nl - s) : (int)strlen(s);

		fprintf(fp, "%s %s%s%.*s\n", lead, cli->prog->name, n ? " " : "", n, s);
		if (nl == NULL)
			break;
		s = nl + 1;
		lead = "      ";
	}
}

/* Print "usage: ..." to stderr and exit 1. */
_Noreturn void lbt_cli_usage(const lbt_cli *cli)
{
	print_usage(cli, stderr);
	exit(1);
}

/* Print one option's help line. */
static void help_line(const lbt_cli_opt *o)
{
	char left[128];
	int n;

	n = snprintf(left, sizeof left, "  %c%c%c --%s%s%s", o->short_name ? '-' : ' ',
	    o->short_name ? o->short_name : ' ', o->short_name ? ',' : ' ', o->name,
	    o->arg && o->arg[0] != '[' ? " " : "", o->arg ? o->arg : "");
	if (n >= HELP_COL - 1)
		printf("%s\n%*s%s\n", left, HELP_COL, "", o->help ? o->help : "");
	else
		printf("%-*s%s\n", HELP_COL, left, o->help ? o->help : "");
}

/* Print --help to stdout: usage, summary, then each group's options. */
static void print_help(const lbt_cli *cli, const struct group *g, int ng)
{
	print_usage(cli, stdout);
	if (cli->prog->summary)
		printf("%s\n", cli->prog->summary);
	for (int i = 0; i < ng; i++) {
		if (g[i].opts == NULL || g[i].opts[0].name == NULL)
			continue;
		printf("\n%s:\n", g[i].title);
		for (const lbt_cli_opt *o = g[i].opts; o->name; o++)
			if (o->type != LBT_CLI_ALIAS)
				help_line(o);
	}
}

/* Print a usage error "NAME: msg" and the usage, exit 1. */
static _Noreturn void usage_error(const lbt_cli *cli, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static _Noreturn void usage_error(const lbt_cli *cli, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	lbt_clii_vsay(cli, fmt, ap);
	va_end(ap);
	lbt_cli_usage(cli);
}

/* The option list the parse works on: every group's table, flattened. */
struct optset {
	struct group g[5];
	int ng;
	const lbt_cli_opt **all;
	int n;
};

/* Abort on an option name or letter defined twice: a program's bug. */
static void optset_check(const struct optset *s, const lbt_cli_opt *o)
{
	for (int i = 0; i < s->n; i++) {
		if (strcmp(s->all[i]->name, o->name) == 0 ||
		    (o->short_name && s->all[i]->short_name == o->short_name)) {
			fprintf(stderr, "internal error: option --%s defined twice\n", o->name);
			abort();
		}
	}
}

/* Append table t to the set under `title` (a set holds at most 5 groups:
 * one more aborts, a program's bug).  @return 0 or -1 when out of memory. */
static int optset_add(struct optset *s, const char *title, const lbt_cli_opt *t)
{
	int k = opt_count(t);
	const lbt_cli_opt **na;

	if (s->ng == (int)(sizeof s->g / sizeof s->g[0])) {
		fprintf(stderr, "internal error: more option groups than struct optset holds\n");
		abort();
	}
	if ((na = realloc(s->all, (size_t)(s->n + k + 1) * sizeof *na)) == NULL)
		return -1;
	s->all = na;
	for (int i = 0; i < k; i++) {
		optset_check(s, &t[i]);
		s->all[s->n++] = &t[i];
	}
	s->g[s->ng].title = title;
	s->g[s->ng++].opts = t;
	return 0;
}

/* The option alias o stands for (o itself when it is none); an alias of
 * no option, or of another alias, aborts: a program's bug. */
static const lbt_cli_opt *opt_target(const struct optset *s, const lbt_cli_opt *o)
{
	if (o->type != LBT_CLI_ALIAS)
		return o;
	for (int i = 0; i < s->n; i++)
		if (s->all[i]->type != LBT_CLI_ALIAS && strcmp(s->all[i]->name, o->arg) == 0)
			return s->all[i];
	fprintf(stderr, "internal error: option --%s is an alias of no option --%s\n", o->name,
	    o->arg);
	abort();
}

/* Build getopt_long's tables from the set.  @return 0 or -1 when out of memory. */
static int getopt_tables(const struct optset *s, struct option **lo, char **so)
{
	char *p;

	*lo = calloc((size_t)s->n + 1, sizeof **lo);
	*so = p = calloc((size_t)s->n * 2 + 2, 1);
	if (*lo == NULL || *so == NULL)
		return -1;
	*p++ = ':';
	for (int i = 0; i < s->n; i++) {
		const lbt_cli_opt *self = s->all[i], *o = opt_target(s, self);
		int has = o->type == LBT_CLI_FLAG ? no_argument :
		    o->type == LBT_CLI_FN_OPTARG ? optional_argument : required_argument;

		(*lo)[i] = (struct option){ self->name, has, NULL, 256 + i };
		if (self->short_name) {           /* an alias has none */
			*p++ = (char)self->short_name;
			if (has == required_argument)
				*p++ = ':';
		}
	}
	return 0;
}

/* Apply option o with argument arg (may be NULL); bad values exit 1. */
static void opt_apply(lbt_cli *cli, const lbt_cli_opt *o, const char *arg)
{
	char what[80];
	lbt_err err;
	int rc = 0;

	snprintf(what, sizeof what, "--%s", o->name);
	lbt_err_clear(&err);
	switch (o->type) {
	case LBT_CLI_FLAG:
		*(int *)o->dest = 1;
		break;
	case LBT_CLI_STR:
		*(const char **)o->dest = arg;
		break;
	case LBT_CLI_INT:
		rc = lbt_num_parse(arg, o->min, o->max, what, (int64_t *)o->dest, &err);
		break;
	case LBT_CLI_DURATION:
		rc = lbt_duration_parse(arg, o->min, o->max, what, (int64_t *)o->dest, &err);
		break;
	case LBT_CLI_FN:
	case LBT_CLI_FN_OPTARG:
		rc = o->fn(o->dest, arg, &err);
		break;
	case LBT_CLI_ALIAS:
		assert(!"an alias is applied as its target (opt_find)");
		break;
	}
	if (rc < 0)
		lbt_cli_die(cli, &err);
}

/* The option of the set that getopt_long returned as `c`, or NULL. */
static const lbt_cli_opt *opt_find(const struct optset *s, int c)
{
	if (c >= 256 && c - 256 < s->n)
		return opt_target(s, s->all[c - 256]);
	for (int i = 0; i < s->n; i++)
		if (s->all[i]->short_name == c)
			return s->all[i];
	return NULL;
}

/* Explain a '?' or ':' from getopt_long (argument word `word`) and exit 1. */
static _Noreturn void opt_error(const lbt_cli *cli, const struct optset *s, int c,
    const char *word)
{
	const char *eq = word ? strchr(word, '=') : NULL;
	int n = eq ? (int)(eq - word) : word ? (int)strlen(word) : 0;

	if (c == ':' && optopt >= 256)
		usage_error(cli, "option '--%s' needs an argument (%s)",
		    s->all[optopt - 256]->name, opt_target(s, s->all[optopt - 256])->arg);
	if (c == ':')
		usage_error(cli, "option '-%c' needs an argument", optopt);
	if (word && strncmp(word, "--", 2) == 0 && eq) {
		for (int i = 0; i < s->n; i++)
			if ((int)strlen(s->all[i]->name) == n - 2 &&
			    strncmp(s->all[i]->name, word + 2, (size_t)n - 2) == 0)
				usage_error(cli, "option '--%s' takes no argument", s->all[i]->name);
	}
	if (optopt > 0 && optopt < 256)
		usage_error(cli, "unknown option '-%c'", optopt);
	usage_error(cli, "unknown option '%.*s'", n, word ? word : "");
}

/* Run getopt_long over argv and apply every option. */
static void parse_loop(lbt_cli *cli, const struct optset *s, int argc, char **argv)
{
	struct option *lo;
	char *so;
	int c, idx;

	if (getopt_tables(s, &lo, &so) < 0) {
		fprintf(stderr, "%s: out of memory\n", cli->prog->name);
		exit(1);
	}
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, so, lo, &idx)) != -1) {
		const lbt_cli_opt *o = opt_find(s, c);

		if (c == '?' || c == ':' || o == NULL)
			opt_error(cli, s, c, argv[optind - 1]);
		opt_apply(cli, o, optarg);
	}
	free(lo);
	free(so);
}

/*
 * The width a table must fit (docs/widths.md): the terminal's on stdout
 * (TIOCGWINSZ), else $COLUMNS, else 80, the width every terminal has.
 */
static int output_width(void)
{
	struct winsize ws;
	const char *env = getenv("COLUMNS");
	char *end;
	long n;

	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	if (env != NULL && *env != '\0') {
		n = strtol(env, &end, 10);
		if (*end == '\0' && n >= 20 && n <= 4096)
			return (int)n;
	}
	return 80;
}

/*
 * Colour by default: only on a terminal that can show it, and never when
 * NO_COLOR is set, whatever its value (no-color.org), nor for TERM=dumb
 * (Emacs shells, serial consoles) or no TERM at all.
 */
static int color_auto(void)
{
	const char *term = getenv("TERM");

	return isatty(STDOUT_FILENO) && getenv("NO_COLOR") == NULL && term != NULL &&
	    *term != '\0' && strcmp(term, "dumb") != 0;
}

/* Resolve the output mode and colour from `l`; two modes are a usage error. */
static void resolve_output(lbt_cli *cli, const struct late *l)
{
	int n = l->tsv + l->json + l->table + l->md;

	if (n > 1)
		usage_error(cli, "choose one of --tsv, --json, --table and --md");
	cli->out_asked = n == 1;
	cli->out_mode = l->tsv ? LBT_OUT_TSV : l->json ? LBT_OUT_JSON : l->table ?
	    LBT_OUT_TABLE : l->md ? LBT_OUT_MD : lbt_out_default_mode(stdout);
	cli->header = !l->no_header;
	cli->fields = l->fields;
	cli->width = l->wide || cli->out_mode != LBT_OUT_TABLE ? 0 : output_width();
	if (l->color == NULL || strcmp(l->color, "auto") == 0)
		cli->color = color_auto();
	else if (strcmp(l->color, "always") == 0 || strcmp(l->color, "never") == 0)
		cli->color = l->color[0] == 'a';
	else
		usage_error(cli, "--color: '%s' is not auto, always or never", l->color);
}

/* --tier WHICH into cli->in.use_tier (unset: DEFAULT); a bad word is a usage error. */
static void resolve_tier(lbt_cli *cli, const char *tier)
{
	static const struct { const char *name; lbt_tier_use use; } words[] = {
		{ "lb", LBT_TIER_USE_LB }, { "backend", LBT_TIER_USE_BACKEND },
		{ "app", LBT_TIER_USE_BACKEND }, { "all", LBT_TIER_USE_ALL },
		{ "auto", LBT_TIER_USE_AUTO },
	};

	if (tier == NULL)
		return;
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (strcmp(tier, words[i].name) == 0) {
			cli->in.use_tier = words[i].use;
			return;
		}
	usage_error(cli, "--tier: '%s' is not lb, backend or all", tier);
}

/*
 * Let the threads allocate from the main thread's arena (glibc would give
 * each its own): the merge frees a part's state while the program's grows,
 * and memory freed in another arena cannot serve it (lbt-rate on 5 M lines,
 * two threads: 76 MB peak, 64 MB with one arena).  Small blocks still come
 * from each thread's cache without the lock; the parse allocates nothing.
 * A process-wide setting, so the program's (this layer), never liblbt's
 * (docs/threads.md).
 */
static void one_arena(void)
{
#ifdef M_ARENA_MAX
	mallopt(M_ARENA_MAX, 1);
#endif
}

/* The operands and --input specs.  @return their number. */
size_t lbt_cli_ninputs(const lbt_cli *cli)
{
	return (size_t)cli->nargs + cli->specs.n;
}

/* @return the cores online (sysconf), at least 1: the default of --threads. */
static int cores_online(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > 1024 ? 1024 : (int)n;
}

/* Apply --now, --help, --version, the output options and the operand count. */
static void resolve(lbt_cli *cli, const struct late *l, const struct optset *s, int argc,
    char **argv)
{
	lbt_err err;

	if (l->help) {
		print_help(cli, s->g, s->ng);
		exit(fflush(stdout) == 0 ? 0 : 1);
	}
	if (l->version) {
		printf("%s (lbtriage) %s\n", cli->prog->name, LBT_VERSION);
		exit(fflush(stdout) == 0 ? 0 : 1);
	}
	if (l->now && lbt_filter_time_parse("--now", l->now, (int64_t)time(NULL) * 1000000,
	    &cli->in.now_us, &err) < 0)
		lbt_cli_die(cli, &err);
	resolve_output(cli, l);
	resolve_tier(cli, l->tier);
	cli->threads = l->threads > 0 ? (int)l->threads : cores_online();
	if (cli->threads > 1)
		one_arena();           /* before any thread starts */
	cli->in.specs = cli->specs.v;
	cli->in.nspecs = cli->specs.n;
	cli->args = argv + optind;
	cli->nargs = argc - optind;
	if (cli->nargs < cli->prog->min_args)
		usage_error(cli, "missing operand");
	if (cli->prog->max_args >= 0 && cli->nargs > cli->prog->max_args)
		usage_error(cli, "unexpected operand '%s'", cli->args[cli->prog->max_args]);
}

/* Parse argv; see cli.h.  Exits on --help, --version and usage errors. */
void lbt_cli_parse(lbt_cli *cli, const lbt_cli_prog *prog, const lbt_cli_opt *opts,
    int argc, char **argv)
{
	struct late l = { 0 };     /* resolved before returning; strings live in argv */
	lbt_cli_opt gin[GROUP_INPUT_MAX], gfi[GROUP_FILTER_MAX], gout[GROUP_OUTPUT_MAX];
	lbt_cli_opt gstd[GROUP_STD_MAX];
	struct optset s = { 0 };

	memset(cli, 0, sizeof *cli);
	cli->prog = prog;
	cli->opts = opts;
	cli->in.diag = lbt_cli_diag;
	cli->in.diag_ctx = cli;
	group_input(cli, &l, gin);
	group_filter(cli, &l, gfi);
	group_output(&l, gout);
	group_std(&l, gstd);
	if (optset_add(&s, "Options", opts) < 0 ||
	    ((prog->groups & LBT_CLI_INPUT) && optset_add(&s, "Input", gin) < 0) ||
	    ((prog->groups & LBT_CLI_FILTER) && optset_add(&s, "Filters", gfi) < 0) ||
	    ((prog->groups & LBT_CLI_OUTPUT) && optset_add(&s, "Output", gout) < 0) ||
	    optset_add(&s, "Help", gstd) < 0) {
		fprintf(stderr, "%s: out of memory\n", prog->name);
		exit(1);
	}
	parse_loop(cli, &s, argc, argv);
	resolve(cli, &l, &s, argc, argv);
	free(s.all);
}

/* A parser of single lines with cli's input options (lbt-formats --explain);
 * exits on bad options. */
lbt_input *lbt_cli_input(lbt_cli *cli)
{
	lbt_err err;
	lbt_input *in = lbt_input_new(&cli->in, &err);

	if (in == NULL)
		lbt_cli_die(cli, &err);
	return in;
}

/* True when stdin is among the --input files. */
static int specs_read_stdin(const lbt_cli *cli)
{
	for (size_t i = 0; i < cli->specs.n; i++)
		for (size_t k = 0; k < cli->specs.v[i].nfiles; k++)
			if (strcmp(cli->specs.v[i].files[k], "-") == 0)
				return 1;
	return 0;
}

/* Exit with a usage error when standard input is named twice. */
static void check_stdin(const lbt_cli *cli)
{
	int n = specs_read_stdin(cli);

	for (int i = 0; i < cli->nargs; i++)
		n += strcmp(cli->args[i], "-") == 0;
	if (n > 1)
		usage_error(cli, "standard input ('-') can be read once");
}

/* Open the record stream over the --input files and the operands (stdin
 * when there are none, the index with --db); exits on bad options. */
lbt_stream *lbt_cli_stream(lbt_cli *cli)
{
	static char *stdin_only[] = { "-", NULL };
	lbt_err err;
	lbt_stream *s;

	if (cli->in.db != NULL && (cli->nargs > 0 || cli->specs.n > 0))
		usage_error(cli, "--db reads the index: no log file operands expected");
	check_stdin(cli);
	cli->in.threads = cli->threads;     /* lbt-index reads cli->in itself: not here */
	if (cli->nargs > 0 || cli->specs.n > 0 || cli->in.db != NULL)
		s = lbt_stream_open(&cli->in, cli->args, cli->nargs, &err);
	else
		s = lbt_stream_open(&cli->in, stdin_only, 1, &err);
	if (s == NULL)
		lbt_cli_die(cli, &err);
	if (!isatty(STDOUT_FILENO))          /* records printed as read would break the line */
		lbt_clii_progress_start(cli, s);
	return s;
}

/* Next record; input errors are printed and the stream goes on. @return 1 or 0 */
int lbt_cli_next(lbt_cli *cli, lbt_stream *s, lbt_rec **rec)
{
	lbt_err err;
	int r;

	while ((r = lbt_stream_next(s, rec, &err)) < 0)
		lbt_cli_error(cli, &err);
	if (r == 0)
		lbt_clii_progress_end(cli, s);
	cli->records += r == 1;
	return r;
}

/* lbt_driver_error_fn printing a file's error (status 1, or unread). */
static void run_error(void *ctx, const lbt_err *err)
{
	lbt_cli_error(ctx, err);
}

/*
 * An index whose read broke (a block that does not decode, SQLite's
 * "database disk image is malformed") gave the analyses only the requests
 * before the damage: a table of them would look whole.  The error is
 * printed already (run_error); exit with it and print no answer.
 */
static void damaged_index(lbt_cli *cli, lbt_stream *s)
{
	const lbt_input_stats *st = lbt_stream_stats(s);

	if (lbt_stream_input(s) != NULL || st->failed_files == 0)
		return;
	fprintf(stderr, "%s: %s: the index is damaged: no answer printed (%llu requests "
	    "read before the damage); check it with sqlite3 %s 'PRAGMA integrity_check', "
	    "or index the logs again\n", cli->prog->name, cli->in.db,
	    (unsigned long long)st->records, cli->in.db);
	lbt_stream_free(s);
	exit(LBT_EXIT_ERROR);
}

/* Read the operands once through v[0..n) (fields they read, and `also`);
 * exits when an analysis fails.  @return the stream, for lbt_cli_finish. */
lbt_stream *lbt_cli_run(lbt_cli *cli, lbt_analysis *v, size_t n, uint64_t also)
{
	lbt_stream *s;
	lbt_err err;
	int64_t fed;

	cli->in.wanted = lbt_analysis_fields(v, n) | also;
	if (cli->in.use_tier == LBT_TIER_USE_DEFAULT)
		cli->in.use_tier = LBT_TIER_USE_AUTO;     /* count each request once */
	s = lbt_cli_stream(cli);
	lbt_clii_progress_start(cli, s);
	fed = lbt_driver_run_par(s, v, n, cli->threads, run_error, cli, &err);
	lbt_clii_progress_end(cli, s);          /* before the answer */
	if (fed < 0 && err.kind == LBT_ERR_EMPTY) {
		lbt_clii_say_err(cli, &err);       /* nothing to answer from, not a failure */
		lbt_stream_free(s);
		exit(cli->status != 0 ? cli->status : LBT_EXIT_EMPTY);
	}
	if (fed < 0) {
		lbt_stream_free(s);
		lbt_cli_die(cli, &err);
	}
	cli->records += (uint64_t)fed;
	damaged_index(cli, s);
	return s;
}

/* The report options of cli's output flags, `top` rows. */
lbt_report_opts lbt_cli_report_opts(const lbt_cli *cli, size_t top)
{
	lbt_report_opts p = { cli->out_mode, cli->color, cli->header, top, cli->width,
		!cli->out_asked && cli->out_mode == LBT_OUT_TSV, cli->fields };

	return p;
}

/* A writer on stdout configured by cli; exits when out of memory. */
lbt_out *lbt_cli_out(lbt_cli *cli, const lbt_out_col *cols, int ncols)
{
	lbt_out *o = lbt_out_new(stdout, cli->out_mode, cols, ncols, cli->color);

	if (o == NULL) {
		fprintf(stderr, "%s: out of memory\n", cli->prog->name);
		exit(1);
	}
	lbt_out_set_header(o, cli->header);
	lbt_out_set_width(o, cli->width);
	if (lbt_out_set_fields(o, cli->fields) < 0) {
		fprintf(stderr, "%s: out of memory\n", cli->prog->name);
		exit(1);
	}
	return o;
}

/* Records of a live input printed as read?  See cli.h. */
int lbt_cli_live(lbt_cli *cli, lbt_stream *s)
{
	lbt_input *in = lbt_stream_input(s);
	struct stat st;

	if (in == NULL || !lbt_input_live(in) || fstat(STDOUT_FILENO, &st) < 0 ||
	    !(S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode) || S_ISCHR(st.st_mode)))
		return 0;
	if (!cli->out_asked && cli->out_mode == LBT_OUT_TABLE)
		cli->out_mode = LBT_OUT_TSV;
	return 1;
}

/* The summary lines, only when lines were malformed or files failed. */
void lbt_cli_summary(lbt_cli *cli, const lbt_input_stats *st)
{
	int shown = cli->in.max_reported == 0 ? 5 : cli->in.max_reported;

	if (st->malformed > 0 && !cli->in.strict) {
		fprintf(stderr, "%s: %llu malformed line%s of %llu", cli->prog->name,
		    (unsigned long long)st->malformed, st->malformed == 1 ? "" : "s",
		    (unsigned long long)st->lines);
		if (shown >= 0 && st->malformed > (uint64_t)shown)
			fprintf(stderr, " (first %d shown above)", shown);
		fputc('\n', stderr);
	}
	if (st->failed_files > 0 && cli->in.db != NULL)
		fprintf(stderr, "%s: %s: the index is damaged: only the %llu requests before "
		    "the damage were read\n", cli->prog->name, cli->in.db,
		    (unsigned long long)st->records);
	else if (st->failed_files > 0)
		fprintf(stderr, "%s: %llu of %llu file%s failed (see above)\n", cli->prog->name,
		    (unsigned long long)st->failed_files, (unsigned long long)st->files,
		    st->files == 1 ? "" : "s");
}

/* The note of --tier auto when it left records of the other tier out. */
static void tier_note(const lbt_cli *cli, const lbt_stream_tiers *t)
{
	for (int k = LBT_TIER_LB; k < LBT_TIER_COUNT; k++) {
		if (!t->automatic || t->left[k] == 0)
			continue;
		lbt_cli_note(cli, "note: %llu request%s of the %s tier left out (first: %s): "
		    "the inputs hold both tiers, which log the same requests; counting the %s "
		    "tier (--tier %s or --tier all to choose)", (unsigned long long)t->left[k],
		    t->left[k] == 1 ? "" : "s", lbt_tier_name((lbt_tier)k),
		    t->left_file[k][0] ? t->left_file[k] : "the index", lbt_tier_name(t->kept),
		    lbt_tier_name((lbt_tier)k));
	}
}

/* End of run: flush output, summary, free.  @return the exit status. */
int lbt_cli_finish(lbt_cli *cli, lbt_stream *in, lbt_out *out)
{
	int werr = lbt_out_free(out) < 0;

	lbt_clii_progress_end(cli, in);

	if (fflush(stdout) != 0 || ferror(stdout) || werr) {
		fprintf(stderr, "%s: error writing the output: %s\n", cli->prog->name,
		    strerror(errno ? errno : EIO));
		cli->status = 1;
	}
	if (in != NULL) {
		tier_note(cli, lbt_stream_tiers_get(in));
		lbt_cli_summary(cli, lbt_stream_stats(in));
		lbt_clii_explain(cli, in);
		lbt_stream_free(in);
	}
	lbt_input_specs_free(&cli->specs);
	cli->in.specs = NULL;
	cli->in.nspecs = 0;
	return lbt_clii_status(cli);
}
