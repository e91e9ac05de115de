/*
 * deny_msg.c - what lbt-deny says on the standard error, as lines handed
 * to a callback (the library never prints): each part left out and why,
 * each collateral source, the collateral total, and for tarpit the slots
 * it would hold (Little's law: rate x delay) against maxconn.
 */
#include <stdarg.h>
#include <stdio.h>

#include "deny_int.h"

/* Format one message and hand it to say(ctx, line). */
static void sayf(lbt_deny_say_fn say, void *ctx, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void sayf(lbt_deny_say_fn say, void *ctx, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	say(ctx, line);
}

/* The left-out and collateral messages. */
static void cuts(const lbt_deny *d, lbt_deny_say_fn say, void *ctx)
{
	char a[LBT_ADDR_STRLEN];
	const lbt_deny_totals *t = &d->tot;

	for (size_t i = 0; i < d->nleft; i++)
		sayf(say, ctx, "left out %s%s%s: %s", lbt_denyi_net(&d->left[i].net, a, sizeof a),
		    d->left[i].of[0] ? " of " : "", d->left[i].of, d->left[i].why);
	for (size_t i = 0; i < d->ncoll; i++)
		sayf(say, ctx, "collateral: %s %s %s (%lld requests), not selected", d->coll[i].by,
		    d->coll[i].whole ? "matches" : "matches part of",
		    lbt_denyi_net(&d->coll[i].net, a, sizeof a), (long long)d->coll[i].requests);
	if (t->others > 0 && t->counts && t->collateral_n == 0)
		sayf(say, ctx, "collateral: 0 requests: the rule matches none of the %zu sources "
		    "not selected", t->others);
	else if (t->others > 0 && t->counts)
		sayf(say, ctx, "collateral: %lld requests from %zu of the %zu sources not selected",
		    (long long)(t->collateral + t->collateral_part), t->collateral_n, t->others);
}

/* The tarpit warnings. */
static void tarpit(const lbt_deny *d, const lbt_deny_gen *g, lbt_deny_say_fn say, void *ctx)
{
	lbt_deny_tarpit tp;

	lbt_deny_tarpit_estimate(d, g, &tp);
	sayf(say, ctx, "warning: tarpit holds a connection slot for every request it delays, "
	    "%.3g s each (timeout tarpit)", tp.seconds);
	if (tp.slots < 0)
		sayf(say, ctx, "warning: peak rate %s", tp.rate_from);
	else
		sayf(say, ctx, "warning: at %.0f requests/s (%s) that is %.0f slots held at once "
		    "(rate x delay, Little's law)%s", tp.rate, tp.rate_from, tp.slots,
		    g->maxconn > 0 ? "" : "; give --maxconn to compare");
	if (tp.slots >= 0 && g->maxconn > 0)
		sayf(say, ctx, "warning: against maxconn %lld: %.1f times the limit%s",
		    (long long)g->maxconn, tp.slots / (double)g->maxconn,
		    tp.slots >= (double)g->maxconn ? ", the flood would take every slot" : "");
}

/* Every message of the decision d written with g, in order. */
void lbt_deny_messages(const lbt_deny *d, const lbt_deny_gen *g, lbt_deny_say_fn say,
    void *ctx)
{
	cuts(d, say, ctx);
	if (g->action == LBT_DENY_ACT_TARPIT && d->nrules > 0)
		tarpit(d, g, say, ctx);
}
