/*
 * ring_watch.c - the answers of watched networks before and after a rule
 * took effect (see ring.h's lbt_watch).  A network's second is decided
 * when a later second starts: more than half of its answers 429 after a
 * second with fewer is the mark, and that second's answers move to
 * "after".  Constant memory: two sides and the open second a network.
 */
#include <stdlib.h>
#include <string.h>

#include "lbt/ring.h"

#define MAX_NETS 64

struct lbt_watch {
	lbt_watch_net net[MAX_NETS];
	size_t n;
};

lbt_watch *lbt_watch_new(void)
{
	return calloc(1, sizeof(lbt_watch));
}

void lbt_watch_free(lbt_watch *w)
{
	free(w);
}

/* Add one network net[0..len).  @return 0, or -1 with err */
static int add_one(lbt_watch *w, const char *s, size_t len, lbt_err *err)
{
	char buf[LBT_ADDR_STRLEN + 1];
	lbt_watch_net *n;

	if (len == 0 || len >= sizeof buf)
		return lbt_err_set(err, "--watch: '%.*s' is not a network", (int)(len > 60 ? 60 : len), s);
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (w->n == MAX_NETS)
		return lbt_err_set(err, "--watch: at most %d networks", MAX_NETS);
	n = &w->net[w->n];
	memset(n, 0, sizeof *n);
	if (lbt_addr_parse_prefix(buf, &n->net, &n->bits) < 0)
		return lbt_err_set(err, "--watch: '%s' is not a network (ADDR or ADDR/BITS)", buf);
	lbt_addr_mask(&n->net, n->bits);
	lbt_addr_format_net(&n->net, n->bits, n->name, sizeof n->name);
	n->sec = INT64_MIN;
	w->n++;
	return 0;
}

int lbt_watch_add(lbt_watch *w, const char *list, lbt_err *err)
{
	for (const char *p = list; ; ) {
		const char *e = strpbrk(p, ",\n");   /* a rule's list: one a line */
		size_t len = e != NULL ? (size_t)(e - p) : strlen(p);

		while (len > 0 && p[len - 1] == ' ')
			len--;
		if (len > 0 && add_one(w, p, len, err) < 0)
			return -1;
		if (e == NULL)
			return 0;
		p = e + 1;
	}
}

size_t lbt_watch_count_nets(const lbt_watch *w)
{
	return w->n;
}

/* Did the request reach a server?  Not refused by the LB (<NOSRV> and
 * the like), not held in the tarpit (termination state PT or CT). */
static int reached_backend(const lbt_rec *r)
{
	if (!(r->have & LBT_BIT(LBT_F_SERVER)) || r->server.n == 0 || r->server.p[0] == '<')
		return 0;
	if ((r->have & LBT_BIT(LBT_F_TERM)) && r->term.n >= 2 && r->term.p[1] == 'T' &&
	    (r->term.p[0] == 'P' || r->term.p[0] == 'C'))
		return 0;
	return 1;
}

static void side_add(lbt_watch_side *s, const lbt_watch_side *d)
{
	s->requests += d->requests;
	s->s429 += d->s429;
	s->backend += d->backend;
}

/* The open second is over: decide it, count it on its side. */
static void close_second(lbt_watch_net *n)
{
	int most = n->cur.requests > 0 && 2 * n->cur.s429 > n->cur.requests;

	if (n->mark_us == 0 && most && n->seen_low)
		n->mark_us = n->sec * 1000000;
	if (!most && n->cur.requests > 0)
		n->seen_low = 1;
	side_add(n->mark_us != 0 ? &n->after : &n->before, &n->cur);
	memset(&n->cur, 0, sizeof n->cur);
}

void lbt_watch_count(lbt_watch *w, const lbt_rec *r)
{
	lbt_watch_side one = { 1, 0, 0 };
	int64_t sec;

	if (r->kind != LBT_KIND_REQUEST || !(r->have & LBT_BIT(LBT_F_CLIENT)) ||
	    !(r->have & LBT_BIT(LBT_F_TIME)))
		return;
	one.s429 = (r->have & LBT_BIT(LBT_F_STATUS)) && r->status == 429;
	one.backend = (uint64_t)reached_backend(r);
	sec = r->time_us >= 0 ? r->time_us / 1000000 : (r->time_us - 999999) / 1000000;
	for (size_t i = 0; i < w->n; i++) {
		lbt_watch_net *n = &w->net[i];

		if (!lbt_addr_in(&r->client, &n->net, n->bits))
			continue;
		if (sec > n->sec) {
			if (n->sec != INT64_MIN)
				close_second(n);
			n->sec = sec;
		}
		if (sec == n->sec)
			side_add(&n->cur, &one);
		else                           /* late: its side by the mark */
			side_add(n->mark_us != 0 && r->time_us >= n->mark_us ? &n->after : &n->before,
			    &one);
		return;
	}
}

int lbt_watch_at(const lbt_watch *w, size_t i, lbt_watch_net *out)
{
	if (i >= w->n)
		return 0;
	*out = w->net[i];
	side_add(out->mark_us != 0 ? &out->after : &out->before, &out->cur);
	return 1;
}
