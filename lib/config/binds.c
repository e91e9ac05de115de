/*
 * binds.c - the `bind` addresses of a haproxy.cfg: see binds.h.
 */
#include <string.h>

#include "lbt/binds.h"
#include "lbt/hacfg.h"

/* Family prefixes HAProxy accepts in front of an IP address. */
static const char *const ip_prefixes[] = { "ipv4@", "ipv6@", "tcp@", "tcp4@", "tcp6@",
	"udp@", "udp4@", "udp6@", "quic4@", "quic6@" };

/* s[0..*n) without a known family prefix.  @return the rest, or NULL for
 * another prefix (a socket: unix@, abns@, fd@ ...) */
static const char *strip_prefix(const char *s, size_t *n)
{
	const char *at = memchr(s, '@', *n);

	if (at == NULL)
		return s;
	for (size_t i = 0; i < sizeof ip_prefixes / sizeof ip_prefixes[0]; i++) {
		size_t k = strlen(ip_prefixes[i]);

		if (*n >= k && memcmp(s, ip_prefixes[i], k) == 0) {
			*n -= k;
			return s + k;
		}
	}
	return NULL;
}

/* True when a is the unspecified address (0.0.0.0 or ::): every address. */
static int unspecified(const lbt_addr *a)
{
	size_t from = a->family == 4 ? 12 : 0;

	for (size_t i = from; i < 16; i++)
		if (a->b[i] != 0)
			return 0;
	return 1;
}

/* @return 1 with *a, 0 a wildcard or socket, -1 not an address */
int lbt_binds_parse(const char *s, size_t n, lbt_addr *a)
{
	const char *host, *colon;
	size_t hn;

	if (n == 0 || s[0] == '/' || (s = strip_prefix(s, &n)) == NULL)
		return 0;
	if (s[0] == '[') {
		const char *close = memchr(s, ']', n);

		if (close == NULL)
			return -1;
		host = s + 1;
		hn = (size_t)(close - host);
	} else {
		for (colon = s + n; colon > s && colon[-1] != ':'; colon--)
			;
		host = s;
		hn = colon > s ? (size_t)(colon - 1 - s) : n;
	}
	if (hn == 0 || (hn == 1 && host[0] == '*') || (hn == 2 && memcmp(host, "::", 2) == 0 &&
	    s[0] != '['))
		return 0;
	if (lbt_addr_parse(host, hn, a) < 0 && (s[0] == '[' || lbt_addr_parse(s, n, a) < 0))
		return -1;        /* the second try: an IPv6 address without a port */
	return unspecified(a) ? 0 : 1;
}

/* Every address of one bind line.  @return 0 or -1 with err */
static int bind_line(const char *path, const lbt_hacfg_dir *d, lbt_binds_fn fn, void *ctx,
    lbt_err *err)
{
	const char *w = d->word[1];

	if (d->unset != NULL)
		return lbt_err_at(err, path, d->line, "unknown environment variable '%s'", d->unset);
	for (;;) {
		size_t n = strcspn(w, ",");
		lbt_addr a;
		int r = lbt_binds_parse(w, n, &a);

		if (r < 0)
			return lbt_err_at(err, path, d->line, "bind '%.*s': not an address and port",
			    (int)(n > 80 ? 80 : n), w);
		if (r > 0 && fn(ctx, &a, path, d->line, err) < 0)
			return -1;
		if (w[n] == '\0')
			return 0;
		w += n + 1;
	}
}

/* Walk the frontend and listen sections of path.  @return 0 or -1 with err */
int lbt_binds_read(const char *path, lbt_binds_fn fn, void *ctx, lbt_err *err)
{
	lbt_hacfg *c = lbt_hacfg_read(path, NULL, err);
	int rc = 0;

	if (c == NULL)
		return -1;
	for (size_t i = 0; rc == 0 && i < lbt_hacfg_count(c); i++) {
		const lbt_hacfg_sect *s = lbt_hacfg_at(c, i);

		if (s->kind != LBT_HACFG_FRONTEND && s->kind != LBT_HACFG_LISTEN)
			continue;
		for (size_t k = 0; rc == 0 && k < s->ndir; k++)
			if (s->dir[k].nword >= 2 && strcmp(s->dir[k].word[0], "bind") == 0)
				rc = bind_line(path, &s->dir[k], fn, ctx, err);
	}
	lbt_hacfg_free(c);
	return rc;
}
