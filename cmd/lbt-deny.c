/*
 * lbt-deny - the rule that stops a flood, with safety checks: lbt-offenders
 * output (or addresses) in, an HAProxy ACL file and the lines that use it
 * (or NGINX, nftables, JSON) out.  The decision and the writers are in
 * lib/rule/ (deny.h); this file is options, messages and files.
 *
 * With --into it places the rule into a haproxy.cfg and has HAProxy check
 * it; with --runtime it adds the networks to a running HAProxy's ACL file
 * (cli_apply.h, docs/placement.md).
 *
 * Exit status: 0 a rule was written, 1 bad usage or input (or --into's
 * check refused the configuration, --runtime failed), 2 nothing was left
 * to deny (no file written).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lbt/binds.h"
#include "lbt/cli.h"
#include "lbt/cli_apply.h"
#include "lbt/deny.h"
#include "lbt/esc.h"
#include "lbt/num.h"
#include "lbt/timeparse.h"

#define MAX_LIST 64

/* A repeatable option's values. */
struct list {
	const char *v[MAX_LIST];
	size_t n;
};

/* Options that are not plain values. */
struct opts {
	lbt_deny_opts d;
	lbt_deny_gen g;
	struct list allow, host, input, forced, cfg;
	const char *rate, *action, *out, *acl_path;
	const char *into, *frontend, *backup, *runtime, *server;
	int nginx, nft, json, tarpit_ok, in_place, undo;
	int64_t sc, v4, v6, top, min_req;
};

/* Append arg to the list ctx.  @return 0, or -1 with err when full. */
static int opt_list(void *ctx, const char *arg, lbt_err *err)
{
	struct list *l = ctx;

	if (l->n == MAX_LIST)
		return lbt_err_set(err, "at most %d of '%s' and its kind", MAX_LIST, arg);
	l->v[l->n++] = arg;
	return 0;
}

/* --min-share PCT.  @return 0 or -1 with err */
static int opt_share(void *ctx, const char *arg, lbt_err *err)
{
	return lbt_num_parse_double(arg, 0, 0, 100, "--min-share", ctx, err);
}

/* --peak-rate RATE.  @return 0 or -1 with err */
static int opt_peak(void *ctx, const char *arg, lbt_err *err)
{
	return lbt_num_parse_double(arg, 0, 1, 1e12, "--peak-rate", ctx, err);
}

/* Usage error: say why, print the usage, exit. */
static _Noreturn void refuse(lbt_cli *cli, const char *why)
{
	lbt_cli_errorf(cli, "%s", why);
	lbt_cli_usage(cli);
}

/* The combinations of --into, --in-place, --backup, --runtime, --undo. */
static void resolve_apply(lbt_cli *cli, const struct opts *o)
{
	if ((o->in_place || o->backup) && !o->into)
		refuse(cli, "--in-place and --backup go with --into FILE");
	if (o->backup && !o->in_place)
		refuse(cli, "--backup names the copy --in-place keeps: give --in-place");
	if (o->into && !o->out == !o->in_place)
		refuse(cli, "--into FILE: write the new configuration to -o NEWFILE, or over "
		    "FILE with --in-place (a backup kept)");
	if (o->into && o->out && strcmp(o->into, o->out) == 0)
		refuse(cli, "-o is --into's file itself: use --in-place (it keeps a backup, and "
		    "never replaces the file with one haproxy -c refuses)");
	if (o->into && o->g.dialect != LBT_DENY_HAPROXY && o->g.dialect != LBT_DENY_NGINX)
		refuse(cli, "--into places HAProxy and NGINX rules (for nftables, load the "
		    "printed table after nft -c -f)");
	if (o->into && o->g.dialect == LBT_DENY_NGINX && o->rate)
		refuse(cli, "--nginx --into places deny lines; --rate-limit's geo and zone go "
		    "into the http block: paste the printed lines");
	if (o->into && o->g.dialect == LBT_DENY_NGINX && o->frontend)
		refuse(cli, "--nginx --into: name the server block with --server NAME");
	if (o->server && !(o->into && o->g.dialect == LBT_DENY_NGINX))
		refuse(cli, "--server names the server block of --nginx --into FILE");
	if (o->runtime && (o->into || o->g.dialect != LBT_DENY_HAPROXY))
		refuse(cli, "--runtime changes a running HAProxy's ACL file: not with --into, "
		    "--nginx, --nftables or --json");
	if (o->runtime && o->out)
		refuse(cli, "--runtime changes the running HAProxy only: write the list file "
		    "with a run of its own (-o FILE)");
	if (o->runtime && !o->acl_path)
		refuse(cli, "--runtime needs --acl-path FILE, the ACL file the running HAProxy "
		    "loaded with src -f FILE");
	if (o->undo && !o->runtime)
		refuse(cli, "--undo takes back what --runtime added: give --runtime SOCKET");
	if (o->undo && o->input.n > 0)
		refuse(cli, "--undo removes the networks given as operands (as the --runtime run "
		    "printed them), not --input");
	if (o->frontend && !o->into && o->cfg.n != 1)
		refuse(cli, "--frontend names the frontend of --into FILE or of one --haproxy-cfg "
		    "FILE");
}

/* Check option combinations and fill o->g and o->d; exits on a bad one. */
static void resolve(lbt_cli *cli, struct opts *o)
{
	lbt_err err;

	if (o->nginx + o->nft + o->json > 1) {
		lbt_cli_errorf(cli, "choose one of --nginx, --nftables and --json");
		lbt_cli_usage(cli);
	}
	o->g.dialect = o->nginx ? LBT_DENY_NGINX : o->nft ? LBT_DENY_NFTABLES
	    : o->json ? LBT_DENY_JSON : LBT_DENY_HAPROXY;
	if (o->action && lbt_deny_parse_action(o->action, &o->g.action, &err) < 0)
		lbt_cli_die(cli, &err);
	if (o->rate && o->action) {
		lbt_cli_errorf(cli, "--rate-limit is an action of its own: drop --action");
		lbt_cli_usage(cli);
	}
	if (o->rate && lbt_deny_parse_rate(o->rate, &o->g.rate_n, &o->g.rate_period_us, &err) < 0)
		lbt_cli_die(cli, &err);
	if (o->rate)
		o->g.action = LBT_DENY_ACT_RATE_LIMIT;
	if (o->g.action == LBT_DENY_ACT_TARPIT && !o->tarpit_ok) {
		lbt_cli_errorf(cli, "--action tarpit holds a connection slot for every request "
		    "it delays (the incident's lesson): give --i-know-tarpit-holds-slots");
		exit(1);
	}
	if (o->host.n > LBT_DENY_MAX_HOSTS) {
		lbt_cli_errorf(cli, "--host: at most %d names", LBT_DENY_MAX_HOSTS);
		lbt_cli_usage(cli);
	}
	resolve_apply(cli, o);
	if (o->acl_path && !o->out && !o->into && !o->runtime) {
		lbt_cli_errorf(cli, "--acl-path names the file of -o: give -o FILE");
		lbt_cli_usage(cli);
	}
	if (cli->nargs > 0 && (o->d.min_share >= 0 || o->min_req >= 0 || o->top > 0)) {
		lbt_cli_errorf(cli, "--min-share, --min-requests and --top select from --input "
		    "or stdin, not from operands");
		lbt_cli_usage(cli);
	}
	if (cli->nargs > 0 && o->input.n > 0) {
		lbt_cli_errorf(cli, "networks as operands or --input files, not both");
		lbt_cli_usage(cli);
	}
	o->g.sc = (int)o->sc;
	o->d.v4_bits = (int)o->v4;
	o->d.v6_bits = (int)o->v6;
	o->d.top = o->top;
	o->d.min_requests = o->min_req;
}

/* The time of the header: $SOURCE_DATE_EPOCH (reproducible output), else now. */
static int64_t now(lbt_cli *cli)
{
	const char *e = getenv("SOURCE_DATE_EPOCH");
	int64_t s;
	lbt_err err;

	if (e == NULL || *e == '\0')
		return lbt_time_now_us();
	if (lbt_num_parse(e, 0, INT64_MAX / 1000000, "SOURCE_DATE_EPOCH", &s, &err) < 0)
		lbt_cli_die(cli, &err);
	return s * 1000000;
}

/* Open path for reading ("-" is stdin); exits when it cannot. */
static FILE *open_in(lbt_cli *cli, const char *path)
{
	FILE *fp = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");

	if (fp == NULL) {
		lbt_cli_errorf(cli, "%s: %s", path, strerror(errno));
		exit(1);
	}
	return fp;
}

/* One bind address of a --haproxy-cfg: never covered. */
static int own_addr(void *ctx, const lbt_addr *a, const char *file, uint64_t line,
    lbt_err *err)
{
	lbt_ipnet net = { *a, a->family == 4 ? 32 : 128 };

	return lbt_deny_own(ctx, &net, file, line, err);
}

/* Load --allow values (a network, else a file), the LB's own addresses,
 * the --force-network networks, then the sources. */
static void load(lbt_cli *cli, struct opts *o, lbt_deny *d)
{
	lbt_err err;

	for (size_t i = 0; i < o->allow.n; i++)
		if (lbt_deny_allow_arg(d, o->allow.v[i], &err) < 0)
			lbt_cli_die(cli, &err);
	for (size_t i = 0; i < o->cfg.n; i++)
		if (lbt_binds_read(o->cfg.v[i], own_addr, d, &err) < 0)
			lbt_cli_die(cli, &err);
	for (size_t i = 0; i < o->forced.n; i++)
		if (lbt_deny_force_network(d, o->forced.v[i], &err) < 0)
			lbt_cli_die(cli, &err);
	for (int i = 0; i < cli->nargs; i++)
		if (lbt_deny_add_text(d, cli->args[i], &err) < 0)
			lbt_cli_die(cli, &err);
	if (cli->nargs == 0 && o->input.n == 0)
		o->input.v[o->input.n++] = "-";
	for (size_t i = 0; i < o->input.n; i++) {
		FILE *fp = open_in(cli, o->input.v[i]);

		if (lbt_deny_read(d, fp, strcmp(o->input.v[i], "-") ? o->input.v[i] : "(stdin)",
		    &err) < 0)
			lbt_cli_die(cli, &err);
		if (fp != stdin)
			fclose(fp);
	}
}

/* Print one message of lbt_deny_messages to stderr. */
static void say(void *ctx, const char *line)
{
	(void)ctx;
	fputs("lbt-deny: ", stderr);
	lbt_esc_fput(stderr, line, strlen(line), LBT_ESC_TERM);     /* may quote its input */
	fputc('\n', stderr);
}

/* Write one part to path through a temporary file renamed over it. */
static void write_file(lbt_cli *cli, const lbt_deny *d, const lbt_deny_gen *g,
    lbt_deny_part part, const char *path)
{
	char tmp[4096];
	lbt_err err;
	FILE *fp;

	snprintf(tmp, sizeof tmp, "%s.tmp%ld", path, (long)getpid());
	if ((fp = fopen(tmp, "w")) == NULL) {
		lbt_cli_errorf(cli, "%s: %s", tmp, strerror(errno));
		exit(1);
	}
	if (lbt_deny_write(d, g, part, fp, &err) < 0 || fclose(fp) != 0 ||
	    rename(tmp, path) != 0) {
		unlink(tmp);
		lbt_cli_errorf(cli, "%s: %s", path, err.msg[0] ? err.msg : strerror(errno));
		exit(1);
	}
}

/* Write the outputs: -o's file, then stdout. */
static void write_all(lbt_cli *cli, struct opts *o, const lbt_deny *d)
{
	static char abs[4096];
	int whole = o->g.dialect == LBT_DENY_NFTABLES || o->g.dialect == LBT_DENY_JSON;
	lbt_err err;

	if (o->out && !whole) {
		char cwd[2048];

		if (o->out[0] != '/' && getcwd(cwd, sizeof cwd) != NULL)
			snprintf(abs, sizeof abs, "%s/%s", cwd, o->out);
		else
			snprintf(abs, sizeof abs, "%s", o->out);
		o->g.list_path = o->acl_path ? o->acl_path : abs;
	}
	if (lbt_deny_gen_check(d, &o->g, &err) < 0)
		lbt_cli_die(cli, &err);
	lbt_deny_messages(d, &o->g, say, NULL);
	if (o->out)
		write_file(cli, d, &o->g, whole ? LBT_DENY_PART_CONFIG : LBT_DENY_PART_LIST, o->out);
	if ((!o->out || !whole) && lbt_deny_write(d, &o->g, LBT_DENY_PART_CONFIG, stdout, &err) < 0)
		lbt_cli_die(cli, &err);
}

/* The kind of rule the action writes, for its place. */
static lbt_place_kind place_kind(const struct opts *o)
{
	return o->g.action == LBT_DENY_ACT_REJECT ? LBT_PLACE_TCP_CONN : LBT_PLACE_HTTP;
}

/* The place of the rule in in->cfg, described; exits on a bad file or frontend. */
static void find_place(lbt_cli *cli, const lbt_cli_into *in, lbt_place *p, char *desc,
    size_t size)
{
	lbt_err err;

	if (lbt_cli_place(in, p, desc, size, &err) < 0)
		lbt_cli_die(cli, &err);
	if (p->late_src)
		lbt_cli_errorf(cli, "warning: %s:%llu rewrites the source address below the "
		    "place of the rule: the rule matches the address before it", in->cfg,
		    (unsigned long long)p->late_src);
	if (p->shadow)
		lbt_cli_errorf(cli, "warning: %s:%llu: %s", in->cfg,
		    (unsigned long long)p->shadow, p->shadow_why);
}

/* --into: the rule placed into the configuration, checked.  @return the exit status */
static int write_into(lbt_cli *cli, struct opts *o, const lbt_deny *d)
{
	int nginx = o->g.dialect == LBT_DENY_NGINX;
	lbt_cli_into in = { o->into, nginx ? o->server : o->frontend, o->out, o->backup,
		place_kind(o), nginx };
	static char desc[512];
	lbt_place p;
	lbt_err err;

	find_place(cli, &in, &p, desc, sizeof desc);
	o->g.list_path = o->acl_path;
	if (lbt_deny_gen_check(d, &o->g, &err) < 0)
		lbt_cli_die(cli, &err);
	lbt_deny_messages(d, &o->g, say, NULL);
	if (o->acl_path)
		write_file(cli, d, &o->g, LBT_DENY_PART_LIST, o->acl_path);
	return lbt_cli_deny_into(cli->prog->name, &in, &p, d, &o->g);
}

/* The snippet's place: where the rule goes in the one --haproxy-cfg. */
static void snippet_place(lbt_cli *cli, struct opts *o)
{
	static char desc[512];
	lbt_cli_into in = { NULL, o->frontend, NULL, NULL, place_kind(o), 0 };
	lbt_place p;

	if (o->cfg.n != 1 || o->g.dialect != LBT_DENY_HAPROXY)
		return;
	o->g.cfg_path = o->cfg.v[0];
	if (o->frontend == NULL)
		return;
	in.cfg = o->cfg.v[0];
	find_place(cli, &in, &p, desc, sizeof desc);
	o->g.place = desc;
}

/* --undo: the operands, exactly as given (normalised), out of the ACL file. */
static int undo_runtime(lbt_cli *cli, struct opts *o)
{
	if (cli->nargs == 0)
		refuse(cli, "--undo: give the networks to remove (the undo line of the --runtime "
		    "run names them)");
	return lbt_cli_runtime_undo(cli->prog->name, o->runtime, o->acl_path,
	    (const char *const *)cli->args, (size_t)cli->nargs);
}

/* Options, the sources, the decision, the messages, the rule. */
int main(int argc, char **argv)
{
	static const lbt_cli_prog prog = {
		"lbt-deny", "[options] [network ...]",
		"The rule that stops a flood: lbt-offenders output (or networks) in, an HAProxy "
		"ACL file\nand its lines (or NGINX, nftables, JSON) out, never naming a special, "
		"allowed or\ntoo wide network.", 0, 0, -1
	};
	struct opts o = { LBT_DENY_OPTS_INIT, LBT_DENY_GEN_INIT, { { 0 }, 0 }, { { 0 }, 0 },
		{ { 0 }, 0 }, { { 0 }, 0 }, { { 0 }, 0 }, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
		NULL, NULL, 0, 0, 0, 0, 0, 0, 2, -1, -1, 0, -1 };
	lbt_cli_opt opts[] = {
		LBT_OPT_STR("output", 'o', &o.out, "FILE", "write the list (ACL) file here"),
		LBT_OPT_STR("acl-path", 0, &o.acl_path, "PATH",
		    "the list file's path in the rule (default: -o's, absolute)"),
		LBT_OPT_STR("action", 'a', &o.action, "ACTION",
		    "deny (default: 429 at once), reject, silent-drop, tarpit"),
		LBT_OPT_STR("rate-limit", 0, &o.rate, "N/PERIOD",
		    "instead: 429 above N requests per PERIOD and source"),
		LBT_OPT_INT("sc", 0, &o.sc, 0, 2, "N", "sticky counter of --rate-limit (default 2)"),
		LBT_OPT_FN("host", 0, opt_list, &o.host, "NAME",
		    "only requests for this Host (repeatable)"),
		LBT_OPT_FLAG("i-know-tarpit-holds-slots", 0, &o.tarpit_ok,
		    "allow --action tarpit"),
		LBT_OPT_DURATION("tarpit-timeout", 0, &o.g.tarpit_us, 1000, 86400000000LL,
		    "DURATION", "the frontend's timeout tarpit (needed by tarpit)"),
		LBT_OPT_FN("peak-rate", 0, opt_peak, &o.g.peak_rate, "RATE",
		    "the offenders' peak, requests/s (default: from peak_rps)"),
		LBT_OPT_INT("maxconn", 0, &o.g.maxconn, 1, 100000000, "N",
		    "the frontend's maxconn, to compare tarpit's slots with"),
		LBT_OPT_FLAG("nginx", 0, &o.nginx, "write NGINX deny lines (or geo + limit_req)"),
		LBT_OPT_FLAG("nftables", 0, &o.nft, "write an nftables table with two sets"),
		LBT_OPT_FLAG("json", 0, &o.json, "write the decision with reasons, NDJSON"),
		LBT_OPT_FN("allow", 0, opt_list, &o.allow, "FILE|NETWORK",
		    "never cover these (repeatable)"),
		LBT_OPT_FLAG("force", 0, &o.d.force,
		    "allow networks up to /16 and /32 (not wider)"),
		LBT_OPT_FLAG("trust-header", 0, &o.d.trust_header,
		    "deny sources whose address came from X-Forwarded-For"),
		LBT_OPT_FN("force-network", 0, opt_list, &o.forced, "NETWORK",
		    "allow this exact network, however wide (repeatable)"),
		LBT_OPT_FN("haproxy-cfg", 0, opt_list, &o.cfg, "FILE",
		    "never cover the LB's own bind addresses (repeatable)"),
		LBT_OPT_FN("min-share", 0, opt_share, &o.d.min_share, "PCT",
		    "select sources with at least PCT % of the requests"),
		LBT_OPT_INT("min-requests", 0, &o.min_req, 0, INT64_MAX / 2, "N",
		    "select sources with at least N requests"),
		LBT_OPT_INT("top", 'n', &o.top, 0, 10000000, "N",
		    "select the N sources with most requests (0: all)"),
		LBT_OPT_INT("deny-v4-prefix", 0, &o.v4, 0, 32, "BITS",
		    "deny each IPv4 source's /BITS"),
		LBT_OPT_INT("deny-v6-prefix", 0, &o.v6, 0, 128, "BITS",
		    "deny each IPv6 source's /BITS"),
		LBT_OPT_FN("input", 'i', opt_list, &o.input, "FILE",
		    "read lbt-offenders output from FILE (repeatable; default stdin)"),
		LBT_OPT_STR("into", 0, &o.into, "FILE",
		    "place the rule into this haproxy.cfg (with -o NEWFILE or --in-place)"),
		LBT_OPT_STR("frontend", 0, &o.frontend, "NAME",
		    "the frontend of --into (or of one --haproxy-cfg) the rule goes into"),
		LBT_OPT_FLAG("in-place", 0, &o.in_place,
		    "--into: write over FILE, the old one kept as FILE.bak"),
		LBT_OPT_STR("backup", 0, &o.backup, "SUFFIX",
		    "--in-place: the backup's suffix (default .bak)"),
		LBT_OPT_STR("server", 0, &o.server, "NAME",
		    "--nginx --into: the server block (a server_name) the rule goes into"),
		LBT_OPT_STR("runtime", 0, &o.runtime, "SOCKET",
		    "add the networks to --acl-path's list in a running HAProxy, no reload"),
		LBT_OPT_FLAG("undo", 0, &o.undo,
		    "--runtime: remove the networks given (as its run printed them)"),
		LBT_OPT_ALIAS("v4-prefix", "deny-v4-prefix"),    /* old names (NEWS) */
		LBT_OPT_ALIAS("v6-prefix", "deny-v6-prefix"),
		LBT_OPT_END
	};
	char cmd[2048];
	lbt_cli cli;
	lbt_err err;
	lbt_deny *d;

	lbt_cli_parse(&cli, &prog, opts, argc, argv);
	resolve(&cli, &o);
	for (size_t i = 0; i < o.host.n; i++)
		o.g.hosts[o.g.nhosts++] = o.host.v[i];
	o.g.command = lbt_deny_command(argc, argv, cmd, sizeof cmd);
	o.g.now_us = now(&cli);
	if (o.undo)
		return undo_runtime(&cli, &o);
	if ((d = lbt_deny_new(&o.d, &err)) == NULL)
		lbt_cli_die(&cli, &err);
	load(&cli, &o, d);
	if (lbt_deny_finish(d, &err) < 0)
		lbt_cli_die(&cli, &err);
	if (lbt_deny_nrules(d) == 0) {
		lbt_deny_messages(d, &o.g, say, NULL);
		fprintf(stderr, "lbt-deny: nothing to deny: %zu of %zu sources selected, none left "
		    "(no file written)\n", lbt_deny_totals_get(d)->selected,
		    lbt_deny_totals_get(d)->sources);
		lbt_deny_free(d);
		return LBT_EXIT_EMPTY;
	}
	if (o.into || o.runtime) {
		int rc;

		if (o.runtime)
			lbt_deny_messages(d, &o.g, say, NULL);
		rc = o.into ? write_into(&cli, &o, d) : lbt_cli_deny_runtime(cli.prog->name,
		    o.runtime, o.acl_path, d);

		lbt_deny_free(d);
		return rc;
	}
	snippet_place(&cli, &o);
	write_all(&cli, &o, d);
	lbt_deny_free(d);
	if (o.nft && o.out && lbt_cli_nft_check(cli.prog->name, o.out) != 0)
		return LBT_EXIT_ERROR;
	return lbt_cli_finish(&cli, NULL, NULL);
}
