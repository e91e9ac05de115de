/*
 * audit_proxy.c - what every check reads of a proxy section and how it
 * writes a line of it back: the proxy by name, a setting as HAProxy
 * applies it (its own last line, else its defaults chain's), the maxconn
 * its slots count against, HAProxy times read and told to people, and a
 * line with some of its words replaced, quoted as haproxy.cfg reads it.
 *
 * Direction: audit.c, audit_cfg.c and audit_logs.c call these; they call
 * no other audit*.c file.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "audit_int.h"

/* The proxy named name[0..len), or NULL. */
const struct au_proxy *lbt_auditi_proxy(const lbt_audit *a, const char *name, size_t len)
{
	for (size_t i = 0; i < a->npx; i++)
		if (strlen(a->px[i].s->name) == len && memcmp(a->px[i].s->name, name, len) == 0)
			return &a->px[i];
	return NULL;
}

/* The last directive of s (else of its defaults chain) for w0 [w1], or NULL. */
const lbt_hacfg_dir *lbt_auditi_setting_in(const lbt_hacfg_sect *s, const char *w0,
    const char *w1)
{
	for (; s != NULL; s = s->defaults)
		for (size_t i = s->ndir; i-- > 0;) {
			const lbt_hacfg_dir *d = &s->dir[i];

			if (strcmp(d->word[0], w0) == 0 &&
			    (w1 == NULL || (d->nword > 1 && strcmp(d->word[1], w1) == 0)))
				return d;
		}
	return NULL;
}

/* The directive HAProxy applies for w0 [w1] in p, or NULL. */
const lbt_hacfg_dir *lbt_auditi_setting(const struct au_proxy *p, const char *w0,
    const char *w1)
{
	return lbt_auditi_setting_in(p->s, w0, w1);
}

/* The maxconn slots of proxy p count against, and its line. */
int32_t lbt_auditi_maxconn(const lbt_audit *a, const struct au_proxy *p, uint64_t *line)
{
	*line = 0;
	if (p->fe)
		return lbt_maxconn_cfg_line(a->mc, p->s->name, strlen(p->s->name), line);
	return lbt_maxconn_cfg_global(a->mc, NULL, 0);
}

/* Is one element of a bind word ("[::]:80", ":::443", "ipv6@:80",
 * "192.0.2.1:80") an IPv6 address?  Two colons or more, or the ipv6@
 * prefix: an IPv4 address and port have one. */
static int v6_element(const char *s, size_t n)
{
	size_t colons = 0;

	if (n >= 5 && strncmp(s, "ipv6@", 5) == 0)
		return 1;
	for (size_t i = 0; i < n; i++)
		colons += s[i] == ':';
	return colons >= 2;
}

/* The first `bind` line of p that listens on IPv6 (an IPv6 address, or
 * `v4v6` on a wildcard), or NULL. */
const lbt_hacfg_dir *lbt_auditi_v6_bind(const struct au_proxy *p)
{
	for (size_t i = 0; i < p->s->ndir; i++) {
		const lbt_hacfg_dir *d = &p->s->dir[i];
		const char *w, *c;

		if (strcmp(d->word[0], "bind") != 0 || d->nword < 2)
			continue;
		for (w = d->word[1]; *w; w = *c ? c + 1 : c) {
			c = strchr(w, ',');
			if (c == NULL)
				c = w + strlen(w);
			if (v6_element(w, (size_t)(c - w)))
				return d;
		}
		for (int k = 2; k < d->nword; k++)
			if (strcmp(d->word[k], "v4v6") == 0)
				return d;
	}
	return NULL;
}

/* A HAProxy time ("1s", "500", "2m": ms by default).  @return ms, or -1. */
int64_t lbt_auditi_time_ms(const char *s)
{
	static const struct { const char *unit; int64_t num, den; } units[] = {
		{ "", 1, 1 }, { "us", 1, 1000 }, { "ms", 1, 1 }, { "s", 1000, 1 },
		{ "m", 60000, 1 }, { "h", 3600000, 1 }, { "d", 86400000, 1 },
	};
	int64_t v = 0;
	const char *p = s;

	if (!isdigit((unsigned char)*p))
		return -1;
	for (; isdigit((unsigned char)*p); p++)
		if ((v = v * 10 + (*p - '0')) > INT64_MAX / 86400000 / 10)
			return -1;
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
		if (strcmp(p, units[i].unit) == 0)
			return v * units[i].num / units[i].den;
	return -1;
}

/* A duration for people: "300 ms", "1.5 s".  @return buf */
const char *lbt_auditi_ms_str(int64_t ms, char *buf, size_t size)
{
	if (ms < 1000)
		snprintf(buf, size, "%lld ms", (long long)ms);
	else
		snprintf(buf, size, "%g s", (double)ms / 1000.0);
	return buf;
}

/* Append word w to buf (at *n), quoted as haproxy.cfg needs. */
static void put_word(char *buf, size_t size, size_t *n, const char *w)
{
	int quote = w[0] == '\0' || strpbrk(w, " \t\"'#\\$") != NULL;

	if (*n >= size)
		return;
	*n += (size_t)snprintf(buf + *n, size - *n, "%s%s", *n ? " " : "", quote ? "\"" : "");
	for (; quote && *w && *n + 3 < size; w++) {
		if (*w == '"' || *w == '\\' || *w == '$')
			buf[(*n)++] = '\\';
		buf[(*n)++] = *w;
	}
	if (*n < size)
		*n += (size_t)snprintf(buf + *n, size - *n, "%s", quote ? "\"" : w);
}

/* The line d with its words [from, to) replaced by `text` (written as is;
 * "" removes them), into buf.  @return buf */
const char *lbt_auditi_line(const lbt_hacfg_dir *d, int from, int to, const char *text,
    char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int i = 0; i < d->nword; i++) {
		if (i == from && text[0] && n < size)
			n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? " " : "", text);
		if (i < from || i >= to)
			put_word(buf, size, &n, d->word[i]);
	}
	if (from >= d->nword && text[0] && n < size)
		snprintf(buf + n, size - n, "%s%s", n ? " " : "", text);
	return buf;
}
