/*
 * runtime.c - HAProxy's runtime API for ACL files (see runtime.h): one
 * command a connection over the stats socket, answers read to the end.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "lbt/runtime.h"

#define ANSWER_MAX (64u << 20)      /* show acl of a huge file: refuse, do not grow forever */
#define WAIT_S 5

/* A connected stream socket to path.  @return it, or -1 with err */
static int connect_to(const char *path, lbt_err *err)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct timeval tv = { WAIT_S, 0 };
	int fd;

	if (strlen(path) >= sizeof sa.sun_path)
		return lbt_err_set(err, "%s: socket path too long", path);
	memcpy(sa.sun_path, path, strlen(path) + 1);
	if ((fd = socket(AF_UNIX, SOCK_STREAM, 0)) < 0)
		return lbt_err_set(err, "socket: %s", strerror(errno));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
	if (connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
		lbt_err_set(err, "%s: connect: %s (is it HAProxy's stats socket?)", path,
		    strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* Write all of buf.  @return 0 or -1 */
static int send_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Read fd to its end into a new string.  @return it, or NULL with err */
static char *read_all(int fd, const char *sock, lbt_err *err)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap);

	while (buf != NULL) {
		ssize_t n;

		if (len + 1 == cap) {
			char *b = cap >= ANSWER_MAX ? NULL : realloc(buf, cap * 2);

			if (b == NULL) {
				free(buf);
				lbt_err_set(err, "%s: answer too long", sock);
				return NULL;
			}
			buf = b;
			cap *= 2;
		}
		n = recv(fd, buf + len, cap - len - 1, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			free(buf);
			lbt_err_set(err, "%s: %s", sock, errno == EAGAIN || errno == EWOULDBLOCK ?
			    "no answer within 5 s" : strerror(errno));
			return NULL;
		}
		if (n == 0) {
			buf[len] = '\0';
			return buf;
		}
		len += (size_t)n;
	}
	lbt_err_set(err, "out of memory");
	return NULL;
}

/* Send cmd, read the answer.  @return it (caller frees) or NULL with err */
char *lbt_runtime_ask(const char *sock, const char *cmd, lbt_err *err)
{
	size_t len = strlen(cmd);
	char *line = malloc(len + 2), *answer = NULL;
	int fd;

	if (line == NULL) {
		lbt_err_set(err, "out of memory");
		return NULL;
	}
	memcpy(line, cmd, len);
	memcpy(line + len, "\n", 2);
	if ((fd = connect_to(sock, err)) >= 0) {
		if (send_all(fd, line, len + 1) < 0)
			lbt_err_set(err, "%s: send: %s", sock, strerror(errno));
		else
			answer = read_all(fd, sock, err);
		close(fd);
	}
	free(line);
	return answer;
}

/* The next line of *s (up to '\n', without it) into [*b, *e); @return 0 at the end */
static int next_line(const char **s, const char **b, const char **e)
{
	if (**s == '\0')
		return 0;
	*b = *s;
	*e = strchr(*s, '\n');
	if (*e == NULL)
		*e = *s + strlen(*s);
	*s = **e ? *e + 1 : *e;
	return 1;
}

/* "ID (FILE) description": the file of one line of `show acl`, in [*fb, *fe). */
static int line_file(const char *b, const char *e, const char **fb, const char **fe)
{
	const char *open = memchr(b, '(', (size_t)(e - b)), *close;

	if (*b == '#' || open == NULL)
		return 0;
	close = memchr(open, ')', (size_t)(e - open));
	if (close == NULL || close == open + 1)
		return 0;
	*fb = open + 1;
	*fe = close;
	return 1;
}

/* Is path among the files of `show acl`?  The loaded ones into buf. */
int lbt_runtime_loaded(const char *show_acl, const char *path, char *buf, size_t size)
{
	const char *s = show_acl, *b, *e, *fb, *fe;
	size_t used = 0, plen = strlen(path);

	if (size > 0)
		buf[0] = '\0';
	while (next_line(&s, &b, &e)) {
		if (!line_file(b, e, &fb, &fe))
			continue;
		if ((size_t)(fe - fb) == plen && memcmp(fb, path, plen) == 0)
			return 1;
		if (used + (size_t)(fe - fb) + 3 < size)
			used += (size_t)snprintf(buf + used, size - used, "%s%.*s", used ? ", " : "",
			    (int)(fe - fb), fb);
	}
	if (used == 0 && size > 0)
		snprintf(buf, size, "none");
	return 0;
}

/* Is pat an entry of `show acl FILE` ("0xADDR PATTERN" lines)? */
int lbt_runtime_has(const char *show_entries, const char *pat)
{
	const char *s = show_entries, *b, *e;
	size_t plen = strlen(pat);

	while (next_line(&s, &b, &e)) {
		const char *sp = memchr(b, ' ', (size_t)(e - b));

		if (sp != NULL && (size_t)(e - sp - 1) == plen && memcmp(sp + 1, pat, plen) == 0)
			return 1;
	}
	return 0;
}

/* True when s can stand as one word of a command line of the runtime API,
 * which splits at blanks and runs each ';'-separated part as a command. */
static int cli_word(const char *s)
{
	if (*s == '\0')
		return 0;
	for (; *s; s++)
		if ((unsigned char)*s <= ' ' || *s == ';' || *s == '\\' || *s == 0x7f)
			return 0;
	return 1;
}

/* add acl / del acl.  @return 0, or -1 with HAProxy's answer in err */
int lbt_runtime_acl(const char *sock, const char *file, const char *pat, int add,
    lbt_err *err)
{
	char cmd[4200], *answer;
	size_t n;

	if (!cli_word(file) || !cli_word(pat))
		return lbt_err_set(err, "'%s %s': not one word each for the runtime API (no "
		    "blanks, ';' or backslashes)", file, pat);
	if ((size_t)snprintf(cmd, sizeof cmd, "%s acl %s %s", add ? "add" : "del", file, pat) >=
	    sizeof cmd)
		return lbt_err_set(err, "%s: path too long", file);
	if ((answer = lbt_runtime_ask(sock, cmd, err)) == NULL)
		return -1;
	n = strlen(answer);
	while (n > 0 && (answer[n - 1] == '\n' || answer[n - 1] == '\r'))
		answer[--n] = '\0';
	if (n > 0) {
		lbt_err_set(err, "%s: '%s': HAProxy answered: %.300s", sock, cmd, answer);
		free(answer);
		return -1;
	}
	free(answer);
	return 0;
}
