/*
 * lbt - the dispatcher: `lbt rate ...` runs `lbt-rate ...`, found next to
 * this program first (so a build tree works without installing), then on
 * PATH.  `lbt help` lists the programs, `lbt help NAME` opens the manual.
 *
 * A new program adds one line to the table below (see the Makefile's top
 * comment for the other three places).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lbt/version.h"

/* The programs, in the order `lbt help` lists them. */
static const struct {
	const char *name;
	const char *what;
} progs[] = {
	{ "triage", "the one command for 00:11: hot keys, sources, pressure, damage, the rule" },
	{ "cat", "parse, filter and print records, or the matching raw lines" },
	{ "index", "load logs into a SQLite index, idempotent and resumable" },
	{ "rate", "request rates per key, source or status over time; peaks, baselines, episodes" },
	{ "offenders", "sources grouped as IPv4 /32 and IPv6 /64, ranked, with evidence" },
	{ "tarpit", "socket time held by tarpit and connection slots against maxconn" },
	{ "timeline", "the incident minute by minute, with evidence, for a post-mortem" },
	{ "deny", "the rule that stops a flood (HAProxy, NGINX, nftables), with safety checks" },
	{ "audit", "what in haproxy.cfg let it happen: findings with file:line and the fix" },
	{ "formats", "list, explain and detect log formats; recommend one" },
};

/* Print the synopsis to fp. */
static void usage_to(FILE *fp)
{
	fprintf(fp, "usage: lbt program [argument ...]\n"
	    "       lbt help [program]\n"
	    "       lbt --version\n");
}

/* Print the program list to stdout and exit 0. */
static _Noreturn void list_programs(void)
{
	usage_to(stdout);
	printf("\nPrograms (lbt help program opens its manual):\n");
	for (size_t i = 0; i < sizeof progs / sizeof progs[0]; i++)
		printf("  %-11s %s\n", progs[i].name, progs[i].what);
	exit(fflush(stdout) == 0 ? 0 : 1);
}

/* True when name is a plausible program name: [a-z0-9-], not starting with '-'. */
static int name_ok(const char *name)
{
	if (name[0] == '\0' || name[0] == '-' || strlen(name) > 64)
		return 0;
	for (const char *p = name; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-'))
			return 0;
	return 1;
}

/*
 * Execute `prog` (e.g. "lbt-cat") with argv: from the directory of
 * /proc/self/exe when it is there, else through PATH.  Returns only on
 * failure, with errno set.
 */
static void exec_prog(const char *prog, char **argv)
{
	char self[PATH_MAX], path[PATH_MAX + 80];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	char *slash;

	if (n > 0) {
		self[n] = '\0';
		if ((slash = strrchr(self, '/')) != NULL) {
			*slash = '\0';
			snprintf(path, sizeof path, "%s/%s", self, prog);
			if (access(path, X_OK) == 0)
				execv(path, argv);
		}
	}
	execvp(prog, argv);
}

/*
 * The page file of `page` ("lbt-rate") when lbt runs uninstalled, in
 * `path`: $LBT_MANDIR/page.1, else man/page.1 in a directory above the
 * binary's (build/bin/lbt finds the source tree's man/, up to 3 levels).
 * @return 1 when found, 0 (installed: man finds it in MANPATH).
 */
static int page_file(const char *page, char *path, size_t size)
{
	char self[PATH_MAX];
	const char *env = getenv("LBT_MANDIR");
	ssize_t n;
	char *slash;

	if (env != NULL && *env != '\0') {
		snprintf(path, size, "%s/%s.1", env, page);
		return access(path, R_OK) == 0;
	}
	if ((n = readlink("/proc/self/exe", self, sizeof self - 1)) <= 0)
		return 0;
	self[n] = '\0';
	for (int up = 0; up < 4 && (slash = strrchr(self, '/')) != NULL; up++) {
		*slash = '\0';
		if (up > 0 && snprintf(path, size, "%s/man/%s.1", self, page) < (int)size &&
		    access(path, R_OK) == 0)
			return 1;
	}
	return 0;
}

/* `lbt help NAME`: the manual page of lbt-NAME, the build tree's when lbt
 * runs from it. */
static _Noreturn void help_program(const char *name)
{
	char page[96], path[PATH_MAX + 128];

	if (!name_ok(name)) {
		fprintf(stderr, "lbt: '%s' is not an lbt program; see 'lbt help'\n", name);
		exit(1);
	}
	snprintf(page, sizeof page, "lbt-%s", name);
	if (page_file(page, path, sizeof path))
		execlp("man", "man", "-l", path, (char *)NULL);
	else
		execlp("man", "man", page, (char *)NULL);
	fprintf(stderr, "lbt: cannot run man: %s\n", strerror(errno));
	exit(1);
}

/* Run `lbt-NAME args...` in place of this process. */
static _Noreturn void run_program(const char *name, char **argv)
{
	char prog[96];

	if (!name_ok(name)) {
		fprintf(stderr, "lbt: unknown option '%s'\n", name);
		usage_to(stderr);
		exit(1);
	}
	snprintf(prog, sizeof prog, "lbt-%s", name);
	argv[0] = prog;
	exec_prog(prog, argv);
	if (errno == ENOENT)
		fprintf(stderr, "lbt: '%s' is not an lbt program; see 'lbt help'\n", name);
	else
		fprintf(stderr, "lbt: %s: %s\n", prog, strerror(errno));
	exit(1);
}

/* Dispatch on the first argument. */
int main(int argc, char **argv)
{
	if (argc < 2) {
		usage_to(stderr);
		return 1;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("lbt (lbtriage) %s\n", LBT_VERSION);
		return fflush(stdout) == 0 ? 0 : 1;
	}
	if (strcmp(argv[1], "help") == 0 || strcmp(argv[1], "--help") == 0 ||
	    strcmp(argv[1], "-h") == 0) {
		if (argc > 3) {
			usage_to(stderr);
			return 1;
		}
		if (argc == 3 && strcmp(argv[1], "help") == 0)
			help_program(argv[2]);
		list_programs();
	}
	run_program(argv[1], argv + 1);
}
