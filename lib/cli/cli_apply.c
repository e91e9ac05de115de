/*
 * cli_apply.c - a rule put to work (see cli_apply.h): placed into a copy
 * of haproxy.cfg, checked by HAProxy itself, shown as a diff; or added
 * to a running HAProxy's ACL file and taken out again.
 *
 * The file is written beside its target and renamed over it, so a reader
 * never sees half of it; with --in-place the old one is copied to the
 * backup first, and a configuration that HAProxy refuses never replaces
 * the one that works.
 */
#include <errno.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lbt/addr.h"
#include "lbt/cli_apply.h"
#include "lbt/esc.h"
#include "lbt/hacfg.h"
#include "lbt/runtime.h"

extern char **environ;

#define PATH_MAX_LEN 4096

/* "prog: message" on stderr, the message made safe for a terminal. */
static void say(const char *prog, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(const char *prog, const char *fmt, ...)
{
	char buf[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s: ", prog);
	lbt_esc_fput(stderr, buf, strlen(buf), LBT_ESC_TERM);
	fputc('\n', stderr);
}

/* The place of the rule, described.  @return 0, or -1 with err */
int lbt_cli_place(const lbt_cli_into *o, lbt_place *p, char *desc, size_t size, lbt_err *err)
{
	lbt_hacfg *c;

	if (o->nginx) {
		if (lbt_place_nginx(o->cfg, o->frontend, p, err) < 0)
			return -1;
		snprintf(desc, size, "above %s:%llu, %s", o->cfg, (unsigned long long)p->line,
		    p->what);
		return 0;
	}
	if ((c = lbt_hacfg_read(o->cfg, NULL, err)) == NULL)
		return -1;
	if (lbt_place_find(c, o->frontend, o->kind, p, err) < 0) {
		char why[sizeof err->msg];

		memcpy(why, err->msg, sizeof why);
		lbt_hacfg_free(c);
		return lbt_err_at(err, o->cfg, 0, "%s", why);
	}
	snprintf(desc, size, "%s %s:%llu, %s", p->after ? "below" : "above", o->cfg,
	    (unsigned long long)p->line, p->what);
	p->sect = NULL;             /* it dies with c */
	lbt_hacfg_free(c);
	return 0;
}

/* Run argv and wait; its stdout goes to stderr when to_err.  @return its exit
 * status, 127 when it could not be started (errno set), 128+N killed by N */
static int run(char *const argv[], int to_err)
{
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int st, rc;

	fflush(stdout);
	fflush(stderr);
	posix_spawn_file_actions_init(&fa);
	if (to_err)
		posix_spawn_file_actions_adddup2(&fa, 2, 1);
	rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc != 0) {
		errno = rc;
		return 127;
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return 127;
	errno = 0;                  /* a 127 of the program itself is not "not found" */
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Copy file from to a new file to (through to.tmpPID).  @return 0 or -1 */
static int copy_file(const char *from, const char *to, mode_t mode)
{
	char tmp[PATH_MAX_LEN + 128], buf[65536];
	FILE *in = fopen(from, "rb"), *out;
	size_t n;
	int ok;

	snprintf(tmp, sizeof tmp, "%s.tmp%ld", to, (long)getpid());
	if (in == NULL || (out = fopen(tmp, "wb")) == NULL) {
		if (in)
			fclose(in);
		return -1;
	}
	while ((n = fread(buf, 1, sizeof buf, in)) > 0)
		fwrite(buf, 1, n, out);
	ok = !ferror(in) && fchmod(fileno(out), mode) == 0;
	fclose(in);
	ok = fclose(out) == 0 && ok && rename(tmp, to) == 0;
	if (!ok)
		unlink(tmp);
	return ok ? 0 : -1;
}

/* Write the placed configuration to tmp.  @return 0, or -1 said */
static int write_new(const char *prog, const lbt_cli_into *o, const lbt_place *p,
    const char *tmp, mode_t mode, const char *rule, size_t len, const char *tail,
    size_t tlen)
{
	FILE *fp = fopen(tmp, "w");
	lbt_err err;
	int rc;

	if (fp == NULL) {
		say(prog, "%s: %s", tmp, strerror(errno));
		return -1;
	}
	rc = lbt_place_splice(o->cfg, p, rule, len, tail, tlen, fp, &err);
	if (fchmod(fileno(fp), mode) != 0 && rc == 0)
		rc = lbt_err_set(&err, "%s: chmod: %s", tmp, strerror(errno));
	if (fclose(fp) != 0 && rc == 0)
		rc = lbt_err_set(&err, "%s: %s", tmp, strerror(errno));
	if (rc < 0) {
		char buf[1024];

		say(prog, "%s", lbt_err_str(&err, buf, sizeof buf));
		unlink(tmp);
	}
	return rc;
}

/* The server's own check of path: haproxy -c -f, or nginx -t -c (which
 * wants an absolute path: a relative one is taken from its prefix). */
static int run_check(int nginx, const char *path, int quiet)
{
	char abs[PATH_MAX_LEN + 16], cwd[PATH_MAX_LEN];
	char *hap[] = { "haproxy", "-c", "-f", (char *)path, NULL };
	char *hapq[] = { "haproxy", "-c", "-q", "-f", (char *)path, NULL };
	char *ngx[] = { "nginx", "-t", "-q", "-c", abs, NULL };

	if (path[0] != '/' && getcwd(cwd, sizeof cwd) != NULL)
		snprintf(abs, sizeof abs, "%s/%s", cwd, path);
	else
		snprintf(abs, sizeof abs, "%s", path);
	return run(nginx ? ngx : quiet ? hapq : hap, 1);
}

/* The check's name, for the messages. */
static const char *check_name(int nginx)
{
	return nginx ? "nginx -t -c" : "haproxy -c -f";
}

/* Check path.  @return 1 valid, 0 refused, -1 not checked (no such program) */
static int check(const char *prog, int nginx, const char *path, const char *shown)
{
	int st = run_check(nginx, path, 0);

	if (st == 127 && errno == ENOENT) {
		say(prog, "not checked: %s is not on PATH; run %s %s before reloading",
		    nginx ? "nginx" : "haproxy", check_name(nginx), shown);
		return -1;
	}
	if (st == 0) {
		say(prog, "%s %s: the configuration is valid", check_name(nginx), shown);
		return 1;
	}
	say(prog, "%s %s: refused (exit %d): see the messages above (they name the new "
	    "file as %s)", check_name(nginx), shown, st, path);
	return 0;
}

/* After a refusal: is it the rule's, or did the old file fail too? */
static void check_old(const char *prog, int nginx, const char *cfg)
{
	int st = run_check(nginx, cfg, 1);

	if (st != 0 && st != 127)
		say(prog, "%s %s refuses the old configuration too (exit %d): the cause is "
		    "not the new rule, or not only", check_name(nginx), cfg, st);
}

/* nft -c -f path.  @return the exit status */
int lbt_cli_nft_check(const char *prog, const char *path)
{
	char *argv[] = { "nft", "-c", "-f", (char *)path, NULL };
	int st = run(argv, 1);

	if (st == 127 && errno == ENOENT) {
		say(prog, "not checked: nft is not on PATH; run nft -c -f %s before loading it",
		    path);
		return 0;
	}
	if (st != 0) {
		say(prog, "nft -c -f %s: refused (exit %d): see nft's messages above", path, st);
		return 1;
	}
	say(prog, "nft -c -f %s: the table is valid; load it with nft -f %s", path, path);
	return 0;
}

/* diff -u old new on stdout, labelled with the names the operator knows. */
static void show_diff(const char *prog, const char *old, const char *new,
    const char *new_label)
{
	char *argv[] = { "diff", "-u", "--label", (char *)old, "--label", (char *)new_label,
		(char *)old, (char *)new, NULL };
	int st = run(argv, 0);

	if (st == 127 && errno == ENOENT)
		say(prog, "diff is not on PATH: no diff shown (compare %s with %s)", old, new_label);
	else if (st > 1)
		say(prog, "diff -u failed (exit %d)", st);
}

/* Write, check, diff, and put in place.  @return the exit status */
int lbt_cli_into_write(const char *prog, const lbt_cli_into *o, const lbt_place *p,
    const char *rule, size_t len, const char *tail, size_t tlen)
{
	const char *target = o->out ? o->out : o->cfg;
	char tmp[PATH_MAX_LEN + 32], bak[PATH_MAX_LEN + 64];
	struct stat sb;
	int ok;

	if (stat(o->cfg, &sb) != 0) {
		say(prog, "%s: %s", o->cfg, strerror(errno));
		return 1;
	}
	if (strlen(target) > PATH_MAX_LEN) {
		say(prog, "%s: path too long", target);
		return 1;
	}
	snprintf(tmp, sizeof tmp, "%s.tmp%ld", target, (long)getpid());
	if (write_new(prog, o, p, tmp, sb.st_mode & 07777, rule, len, tail, tlen) < 0)
		return 1;
	show_diff(prog, o->cfg, tmp, target);
	ok = check(prog, o->nginx, tmp, target);
	if (ok == 0)
		check_old(prog, o->nginx, o->cfg);
	if (ok == 0 && o->out == NULL) {
		snprintf(bak, sizeof bak, "%s.rejected", o->cfg);
		if (rename(tmp, bak) == 0)
			say(prog, "%s left as it was; the refused configuration is in %s", o->cfg,
			    bak);
		else {
			say(prog, "%s left as it was (%s: %s)", o->cfg, bak, strerror(errno));
			unlink(tmp);
		}
		return 1;
	}
	if (o->out == NULL) {
		snprintf(bak, sizeof bak, "%s%s", o->cfg, o->backup ? o->backup : ".bak");
		if (copy_file(o->cfg, bak, sb.st_mode & 07777) < 0) {
			say(prog, "%s: cannot write the backup (%s): %s left as it was", bak,
			    strerror(errno), o->cfg);
			unlink(tmp);
			return 1;
		}
		say(prog, "the old configuration is in %s", bak);
	}
	if (rename(tmp, target) != 0) {
		say(prog, "%s: %s", target, strerror(errno));
		unlink(tmp);
		return 1;
	}
	say(prog, "wrote %s: the rule is %s", target, p->what);
	if (ok != 0)
		say(prog, "next: reload %s on %s, then watch: lbt-triage --follow LOG",
		    o->nginx ? "NGINX (nginx -s reload)" : "HAProxy (systemctl reload haproxy)",
		    target);
	return ok == 0 ? 1 : 0;
}

/* `show acl FILE` of the running HAProxy.  @return it (caller frees) or NULL said */
static char *entries(const char *prog, const char *sock, const char *acl)
{
	char cmd[PATH_MAX_LEN + 16], *a;
	lbt_err err;

	snprintf(cmd, sizeof cmd, "show acl %s", acl);
	if ((a = lbt_runtime_ask(sock, cmd, &err)) == NULL)
		say(prog, "%s", err.msg);
	return a;
}

/* Is acl loaded by the running configuration?  Says what to do when not.
 * @return 1 yes, 0 no (said), -1 the socket failed (said) */
static int loaded(const char *prog, const char *sock, const char *acl)
{
	char files[1024];
	lbt_err err;
	char *a = lbt_runtime_ask(sock, "show acl", &err);
	int yes;

	if (a == NULL) {
		say(prog, "%s", err.msg);
		return -1;
	}
	yes = lbt_runtime_loaded(a, acl, files, sizeof files);
	free(a);
	if (!yes) {
		say(prog, "%s is not an ACL file the running HAProxy loads (it loads: %s): "
		    "an entry added there would match nothing; nothing changed", acl, files);
		say(prog, "for next time, add to the frontend, above its first http-request "
		    "rule that answers (lbt-deny --into haproxy.cfg --frontend NAME puts it "
		    "there), and reload:");
		say(prog, "    http-request deny deny_status 429 if { src -f %s }", acl);
	}
	return yes;
}

/* Add or delete each network; those it changed into done[].  @return failures */
static int change(const char *prog, const char *sock, const char *acl, const char *before,
    const char *const *nets, size_t n, int undo, const char **done, size_t *ndone)
{
	int bad = 0;
	lbt_err err;

	for (size_t i = 0; i < n; i++) {
		int has = lbt_runtime_has(before, nets[i]);

		if (!undo && has)
			say(prog, "%s is in %s already: not added (and an --undo of this run "
			    "leaves it)", nets[i], acl);
		else if (undo && !has)
			say(prog, "%s is not in %s: nothing to remove", nets[i], acl);
		else if (lbt_runtime_acl(sock, acl, nets[i], !undo, &err) < 0) {
			say(prog, "%s", err.msg);
			bad++;
		} else
			done[(*ndone)++] = nets[i];
	}
	return bad;
}

/* Check with show acl that every change holds.  @return failures */
static int verify(const char *prog, const char *sock, const char *acl,
    const char *const *done, size_t ndone, int undo)
{
	char *after = entries(prog, sock, acl);
	int bad = after == NULL;

	for (size_t i = 0; after && i < ndone; i++)
		if (lbt_runtime_has(after, done[i]) == undo) {
			say(prog, "show acl %s: %s is %s", acl, done[i], undo ? "still there" :
			    "not there");
			bad++;
		}
	free(after);
	return bad;
}

/* Print what changed and the command that undoes it. */
static void report(const char *prog, const char *sock, const char *acl,
    const char *const *done, size_t ndone, int undo)
{
	char line[8192];
	size_t used = 0;

	say(prog, "%s %zu network%s %s %s in the running HAProxy, without a reload "
	    "(checked with show acl)", undo ? "removed" : "added", ndone, ndone == 1 ? "" : "s",
	    undo ? "from" : "to", acl);
	if (undo || ndone == 0)
		return;
	used = (size_t)snprintf(line, sizeof line, "undo: lbt-deny --runtime %s --acl-path %s "
	    "--undo", sock, acl);
	for (size_t i = 0; i < ndone && used < sizeof line; i++)
		used += (size_t)snprintf(line + used, sizeof line - used, " %s", done[i]);
	say(prog, "%s", line);
	say(prog, "in memory only: the next reload reads %s again; add the networks to "
	    "that file too (one a line) to keep them", acl);
	say(prog, "watch: lbt-triage --follow LOG (their answers turn 429)");
}

/* --runtime: add (or --undo: delete) the networks.  @return the exit status */
int lbt_cli_runtime(const char *prog, const char *sock, const char *acl,
    const char *const *nets, size_t n, int undo)
{
	const char **done = calloc(n ? n : 1, sizeof *done);
	size_t ndone = 0;
	char *before;
	int bad;

	if (done == NULL) {
		say(prog, "out of memory");
		return 1;
	}
	if (strpbrk(acl, " \t\n\r;\\") != NULL) {
		say(prog, "--acl-path '%s': the runtime API splits it (blanks, ';', "
		    "backslashes): nothing changed", acl);
		free(done);
		return 1;
	}
	if (loaded(prog, sock, acl) != 1 || (before = entries(prog, sock, acl)) == NULL) {
		free(done);
		return 1;
	}
	bad = change(prog, sock, acl, before, nets, n, undo, done, &ndone);
	free(before);
	bad += verify(prog, sock, acl, done, ndone, undo);
	report(prog, sock, acl, done, ndone, undo);
	free(done);
	return bad ? 1 : 0;
}

/* One part of the rule into a new string (*len its length).  @return it, or NULL */
static char *render(const lbt_deny *d, const lbt_deny_gen *g, lbt_deny_part part,
    size_t *len)
{
	char *buf = NULL;
	FILE *fp = open_memstream(&buf, len);
	lbt_err err;
	int rc;

	if (fp == NULL)
		return NULL;
	rc = lbt_deny_write(d, g, part, fp, &err);
	if (fclose(fp) != 0 || rc < 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* --into with d's rule.  @return the exit status */
int lbt_cli_deny_into(const char *prog, const lbt_cli_into *o, const lbt_place *p,
    const lbt_deny *d, const lbt_deny_gen *g)
{
	size_t len = 0, tlen = 0;
	char *rule = render(d, g, LBT_DENY_PART_RULE, &len);
	char *tail = render(d, g, LBT_DENY_PART_SECTIONS, &tlen);
	int rc = 1;

	if (rule == NULL || tail == NULL)
		say(prog, "out of memory");
	else
		rc = lbt_cli_into_write(prog, o, p, rule, len, tail, tlen);
	free(rule);
	free(tail);
	return rc;
}

/* The networks nets[0..n) as text into a new array (and its storage *text).
 * @return it, or NULL */
static const char **net_texts(const lbt_ipnet *nets, size_t n, char (**text)[LBT_ADDR_STRLEN])
{
	const char **v = calloc(n ? n : 1, sizeof *v);

	*text = calloc(n ? n : 1, sizeof **text);
	if (v == NULL || *text == NULL) {
		free(v);
		free(*text);
		*text = NULL;
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		v[i] = lbt_addr_format_net(&nets[i].net, nets[i].bits, (*text)[i],
		    sizeof (*text)[i]);
	return v;
}

/* --runtime with d's rule.  @return the exit status */
int lbt_cli_deny_runtime(const char *prog, const char *sock, const char *acl,
    const lbt_deny *d)
{
	size_t n = lbt_deny_nrules(d);
	lbt_ipnet *nets = calloc(n ? n : 1, sizeof *nets);
	char (*text)[LBT_ADDR_STRLEN] = NULL;
	const char **v = NULL;
	int rc = 1;

	for (size_t i = 0; nets != NULL && i < n; i++)
		nets[i] = lbt_deny_rule_at(d, i)->net;
	if (nets == NULL || (v = net_texts(nets, n, &text)) == NULL)
		say(prog, "out of memory");
	else
		rc = lbt_cli_runtime(prog, sock, acl, v, n, 0);
	free(v);
	free(text);
	free(nets);
	return rc;
}

/* --runtime --undo of the networks args name.  @return the exit status */
int lbt_cli_runtime_undo(const char *prog, const char *sock, const char *acl,
    const char *const *args, size_t n)
{
	lbt_ipnet *nets = calloc(n ? n : 1, sizeof *nets);
	char (*text)[LBT_ADDR_STRLEN] = NULL;
	const char **v = NULL;
	lbt_err err;
	int rc = 1;

	for (size_t i = 0; nets != NULL && i < n; i++)
		if (lbt_deny_parse_net(args[i], strlen(args[i]), &nets[i], &err) < 0) {
			say(prog, "%s", err.msg);
			free(nets);
			return 1;
		}
	if (nets == NULL || (v = net_texts(nets, n, &text)) == NULL)
		say(prog, "out of memory");
	else
		rc = lbt_cli_runtime(prog, sock, acl, v, n, 1);
	free(v);
	free(text);
	free(nets);
	return rc;
}
