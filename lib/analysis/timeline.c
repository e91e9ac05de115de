/*
 * timeline.c - the lbt-timeline accumulator: every record counted in the
 * series it belongs to (see timeline.h for what is kept).
 *
 * Per request: the bucket of its time in the series of every request, of
 * its classes, of its key, source and Host (each through its sketch) and
 * of its load balancer; its frontend's alert and full moments; its file's
 * block of end times; and the tarpit accumulator.  Each series caches its
 * last bucket, so a run of records in one second costs one compare per
 * series.  Nothing is allocated unless something is new.
 *
 * Nothing kept depends on the order of the records: counts are sums,
 * evidence lines the smallest (or, for a last request, the largest) by
 * (time, file, line), the automatic step a function of the first and last
 * time, end times per block maxima and minima; the sketches are exact
 * while they hold every value (timeline_sketch.c says what happens past).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lbt/num.h"
#include "lbt/series.h"
#include "timeline_int.h"

static const char *const kind_names[LBT_TL_NKINDS] = {
	"rise", "new_source", "source_rise", "rise_end", "drop", "drop_end", "vanish",
	"errors", "errors_end", "switch", "alert", "saturation", "saturation_end",
	"lb_stop", "lb_gap", "lb_shift", "server_down", "server_up", "crash_loop",
	"no_server", "reload", "stop", "haproxy", "retry", "end", "retry_storm", "source_burst",
	"backoff", "backend_saturation", "config_change"
};

static const char *const what_names[LBT_TL_W_NWHAT] = {
	"all", "key", "source", "host", "lb", "class", "frontend", "process", "server",
	"backend", "proxy", "action"
};

static const char *const class_names[LBT_TL_NCLASS] = {
	"429", "503", "5xx", "-1", "tarpit", "deny", "client", "server", "timeout",
	"resource"
};

/* @return the NDJSON name of kind k ("?" when out of range). */
const char *lbt_tl_kind_name(lbt_tl_kind k)
{
	return (unsigned)k < LBT_TL_NKINDS ? kind_names[k] : "?";
}

/* @return the name of what w ("?" when out of range). */
const char *lbt_tl_what_name(lbt_tl_what w)
{
	return (unsigned)w < LBT_TL_W_NWHAT ? what_names[w] : "?";
}

/* @return the name of class c ("?" when out of range). */
const char *lbt_tl_class_name(lbt_tl_class c)
{
	return (unsigned)c < LBT_TL_NCLASS ? class_names[c] : "?";
}

/* lbt_cli_fn for --ratio (> 1).  @return 0 or -1 with err. */
int lbt_timeline_opt_ratio(void *opts, const char *arg, lbt_err *err)
{
	return lbt_num_parse_double(arg, 1, 1, HUGE_VAL, "--ratio",
	    &((lbt_timeline_opts *)opts)->ratio, err);
}

/* @return the fields read: its own and the tarpit's. */
uint64_t lbt_timeline_fields(const lbt_timeline *tl)
{
	static const lbt_field f[] = {
		LBT_F_TIME, LBT_F_LB, LBT_F_CLIENT, LBT_F_FRONTEND, LBT_F_BACKEND,
		LBT_F_SERVER, LBT_F_METHOD, LBT_F_PATH, LBT_F_HOST, LBT_F_STATUS, LBT_F_TERM,
		LBT_F_KEY, LBT_F_MSG, LBT_F_FILE, LBT_F_LINE, LBT_F_TA, LBT_F_TT, LBT_F_FC,
		LBT_F_TW, LBT_F_SC, LBT_F_SQ, LBT_F_BQ
	};
	uint64_t m = lbt_tarpit_fields(tl->tp);

	for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
		m |= LBT_BIT(f[i]);
	return m;
}

/* Check the options.  @return 0, or -1 with err. */
static int check_opts(const lbt_timeline_opts *o, lbt_err *err)
{
	if (o->step_us < 0 || (o->step_us > 0 && o->step_us < 1000))
		return lbt_err_set(err, "--step: must be at least 1ms");
	if (o->track < 1 || o->track > 100000)
		return lbt_err_set(err, "--track: must be in 1..100000");
	if (!(o->ratio > 1))
		return lbt_err_set(err, "--ratio: must be greater than 1");
	if (o->alert_pct < 1 || o->alert_pct > 100)
		return lbt_err_set(err, "--alert-pct: must be in 1..100");
	if (o->retry_window_us <= 0 || o->flaps < 2)
		return lbt_err_set(err, "timeline: bad retry window or flap count");
	return 0;
}

/* An empty accumulator.  @return it, or NULL with err. */
lbt_timeline *lbt_timeline_new(const lbt_timeline_opts *o, lbt_err *err)
{
	lbt_timeline *tl;
	lbt_tarpit_opts to = o->tarpit;

	if (check_opts(o, err) < 0)
		return NULL;
	if ((tl = calloc(1, sizeof *tl)) == NULL) {
		lbt_err_set(err, "out of memory");
		return NULL;
	}
	tl->o = *o;
	tl->step = o->step_us > 0 ? o->step_us : 1000000;
	to.step_us = o->step_us > 0 ? o->step_us : 1000000;
	to.net = o->net;
	tl->st.first_us = tl->st.last_us = LBT_TL_NONE;
	tl->lbs = lbt_hmap_new(sizeof(struct tl_lb));
	tl->fes = lbt_hmap_new(sizeof(struct tl_fe));
	tl->bes = lbt_hmap_new(sizeof(struct tl_be));
	tl->names = lbt_hmap_new(sizeof(struct tl_name));
	if (tl->lbs == NULL || tl->fes == NULL || tl->bes == NULL || tl->names == NULL ||
	    lbt_tli_sketch_init(&tl->keys, o->track, 0) < 0 ||
	    lbt_tli_sketch_init(&tl->srcs, o->track, 1) < 0 ||
	    lbt_tli_sketch_init(&tl->hosts, o->track, 0) < 0) {
		lbt_timeline_free(tl);
		lbt_err_set(err, "out of memory");
		return NULL;
	}
	if ((tl->tp = lbt_tarpit_new(&to, err)) == NULL) {
		lbt_timeline_free(tl);
		return NULL;
	}
	return tl;
}

/* The interned name of r's file (the last one is cached), and its blocks. */
static const char *file_of(lbt_timeline *tl, const lbt_rec *r)
{
	const char *f;

	if (r->file == NULL)
		return NULL;
	if (tl->last_file != NULL && strcmp(tl->last_file, r->file) == 0)
		return tl->last_file;
	if ((f = lbt_tli_intern(tl, r->file, strlen(r->file), 1)) == NULL) {
		tl->failed = 1;
		return NULL;
	}
	tl->last_f = ((struct tl_name *)lbt_hmap_get(tl->names, f, strlen(f)))->f;
	return tl->last_file = f;
}

/* The classes of r (a mask of 1 << lbt_tl_class). */
static unsigned classes_of(const lbt_rec *r)
{
	int hs = (r->have & LBT_BIT(LBT_F_STATUS)) != 0, st = hs ? r->status : 0;
	int ht = (r->have & LBT_BIT(LBT_F_TERM)) && r->term.n >= 2;
	char t0 = ht ? r->term.p[0] : '-', t1 = ht ? r->term.p[1] : '-';
	int tarpit = (t0 == 'P' || t0 == 'C') && t1 == 'T';
	unsigned m = 0;

	m |= (unsigned)(st == 429) << LBT_TL_C429;
	m |= (unsigned)(st == 503) << LBT_TL_C503;
	m |= (unsigned)(st >= 500 && st <= 599 && st != 503 && !tarpit) << LBT_TL_C5XX;
	m |= (unsigned)(hs && st == -1) << LBT_TL_CNONE;
	m |= (unsigned)tarpit << LBT_TL_CTARPIT;
	m |= (unsigned)(t0 == 'P' && !tarpit && !(hs && st == -1)) << LBT_TL_CDENY;
	m |= (unsigned)(t0 == 'C' && t1 != 'T') << LBT_TL_CCLIENT;
	m |= (unsigned)(t0 == 'S') << LBT_TL_CSERVER;
	m |= (unsigned)(t0 == 'c' || t0 == 's') << LBT_TL_CTIMEOUT;
	m |= (unsigned)(t0 == 'R') << LBT_TL_CRESOURCE;
	return m;
}

/* The status mix class of r (TL_S*). */
static int status_of(const lbt_rec *r)
{
	int st = r->status;

	if (!(r->have & LBT_BIT(LBT_F_STATUS)))
		return TL_SOTHER;
	return st == 429 ? TL_S429 : st == -1 ? TL_SNONE : st >= 200 && st < 300 ? TL_S2XX :
	    st >= 300 && st < 400 ? TL_S3XX : st >= 400 && st < 500 ? TL_S4XX :
	    st >= 500 && st < 600 ? TL_S5XX : TL_SOTHER;
}

/* Refused, for the retries: 429, 503, -1 or tarpitted. */
static int is_refused(unsigned cls)
{
	return (cls & (1u << LBT_TL_C429 | 1u << LBT_TL_C503 | 1u << LBT_TL_CNONE |
	    1u << LBT_TL_CTARPIT)) != 0;
}

/* Rebucket every series to `step` (a multiple of the current one).
 * @return 0 or -1 (no memory). */
int lbt_tli_rebucket(lbt_timeline *tl, int64_t step)
{
	int64_t f = step / tl->step;

	if (f <= 1)
		return 0;
	if (lbt_tli_cells_rebucket(&tl->all, f) < 0)
		return -1;
	for (int c = 0; c < LBT_TL_NCLASS; c++)
		if (lbt_tli_cells_rebucket(&tl->cls[c], f) < 0)
			return -1;
	for (int c = 0; c < TL_NSTAT; c++)
		if (lbt_tli_cells_rebucket(&tl->stat[c], f) < 0)
			return -1;
	if (lbt_tli_sketch_rebucket(&tl->keys, f) < 0 ||
	    lbt_tli_sketch_rebucket(&tl->srcs, f) < 0 ||
	    lbt_tli_sketch_rebucket(&tl->hosts, f) < 0)
		return -1;
	for (size_t i = 0; i < lbt_hmap_count(tl->lbs); i++) {
		lbt_hmap_entry e;
		struct tl_lb *l;

		lbt_hmap_at(tl->lbs, i, &e);
		l = e.val;
		if (lbt_tli_cells_rebucket(&l->cells, f) < 0 ||
		    lbt_tli_cells_rebucket(&l->cls[0], f) < 0 ||
		    lbt_tli_cells_rebucket(&l->cls[1], f) < 0)
			return -1;
	}
	for (size_t i = 0; i < lbt_hmap_count(tl->bes); i++) {
		lbt_hmap_entry e;
		struct tl_be *k;

		lbt_hmap_at(tl->bes, i, &e);
		k = e.val;
		if (lbt_tli_cells_rebucket(&k->queued, f) < 0 ||
		    lbt_tli_cells_rebucket(&k->shed, f) < 0)
			return -1;
	}
	tl->step = step;
	return 0;
}

/* With the automatic step, widen it while the input spans more than
 * LBT_TL_MAXBUCKETS buckets.  @return 0 or -1. */
static int span_check(lbt_timeline *tl)
{
	int64_t step = tl->step;

	if (tl->o.step_us > 0)
		return 0;
	while (lbt_tli_floor_div(tl->st.last_us, step) - lbt_tli_floor_div(tl->st.first_us,
	    step) + 1 > LBT_TL_MAXBUCKETS)
		step = lbt_tli_step_next(step);
	return lbt_tli_rebucket(tl, step);
}

/* Count r in the value of sketch s keyed key[0..n), bucket b; *fresh is
 * set when the value has just pushed another out (its series starts with
 * its next record, timeline_sketch.c).  @return the value, or NULL when
 * out of memory. */
static struct tl_subj *subj_add(tl_sketch *s, const void *key, size_t n, int64_t b,
    const lbt_rec *r, const char *file, int *fresh)
{
	struct tl_subj *w = lbt_tli_sketch_hit(s, key, n, fresh);
	lbt_evidence e;

	if (w == NULL || (!*fresh && lbt_tli_cells_add(&w->cells, b, r, file) < 0))
		return NULL;
	lbt_evidence_set(&e, r, file);
	if (!w->last.set || lbt_evidence_cmp(&e, &w->last) > 0)
		w->last = e;
	return w;
}

/* Did HAProxy answer r with its own 503 (a queue or connect timeout, sQ
 * sC; a refusal, SC; no server, <NOSRV>)? */
static int own_503(const lbt_rec *r)
{
	const char *t = r->term.p;

	return (r->have & LBT_BIT(LBT_F_STATUS)) && r->status == 503 &&
	    (r->have & LBT_BIT(LBT_F_TERM)) && r->term.n >= 2 &&
	    (t[0] == 's' || t[0] == 'S') && (t[1] == 'Q' || t[1] == 'C');
}

/* The logged value of field f of r, 0 when not logged or negative. */
static int32_t logged(const lbt_rec *r, lbt_field f, int32_t v)
{
	return (r->have & LBT_BIT(f)) && v > 0 ? v : 0;
}

/* Count r in its backend's queue and shedding (see struct tl_be).
 * @return 0 or -1. */
static int be_add(lbt_timeline *tl, const lbt_rec *r, int64_t b, const char *file)
{
	int32_t sq = logged(r, LBT_F_SQ, r->sq), bq = logged(r, LBT_F_BQ, r->bq);
	int waited = sq > 0 || bq > 0 || logged(r, LBT_F_TW, r->tw) > 0, shed = own_503(r);
	struct tl_be *k;

	if (!(r->have & LBT_BIT(LBT_F_BACKEND)) || r->backend.n == 0)
		return 0;
	k = lbt_hmap_get(tl->bes, r->backend.p, r->backend.n);
	if (k == NULL && (!waited && !shed && logged(r, LBT_F_SC, r->sc) == 0))
		return 0;
	if (k == NULL && lbt_hmap_count(tl->bes) >= LBT_TL_MAXLB)
		return 0;
	if (k == NULL && (k = lbt_hmap_put(tl->bes, r->backend.p, r->backend.n, NULL)) == NULL)
		return -1;
	if ((waited && lbt_tli_cells_add(&k->queued, b, r, file) < 0) ||
	    (shed && lbt_tli_cells_add(&k->shed, b, r, file) < 0))
		return -1;
	k->sc_max = logged(r, LBT_F_SC, r->sc) > k->sc_max ? r->sc : k->sc_max;
	k->sq_max = sq > k->sq_max ? sq : k->sq_max;
	k->bq_max = bq > k->bq_max ? bq : k->bq_max;
	return 0;
}

/* Count r (of classes cls) in its load balancer.  @return 0 or -1. */
static int lb_add(lbt_timeline *tl, const lbt_rec *r, int64_t b, unsigned cls,
    const char *file)
{
	lbt_str lb = (r->have & LBT_BIT(LBT_F_LB)) ? r->lb : lbt_str_make("", 0);
	struct tl_lb *l = lbt_hmap_get(tl->lbs, lb.n ? lb.p : "", lb.n);
	lbt_evidence e;

	if (l == NULL && lbt_hmap_count(tl->lbs) >= LBT_TL_MAXLB) {
		tl->st.lbs_other++;
		return 0;
	}
	if (l == NULL && (l = lbt_hmap_put(tl->lbs, lb.n ? lb.p : "", lb.n, NULL)) == NULL)
		return -1;
	if (lbt_tli_cells_add(&l->cells, b, r, file) < 0 ||
	    ((cls & (1u << LBT_TL_C429)) && lbt_tli_cells_add(&l->cls[0], b, r, file) < 0) ||
	    ((cls & (1u << LBT_TL_C503)) && lbt_tli_cells_add(&l->cls[1], b, r, file) < 0))
		return -1;
	lbt_evidence_set(&e, r, file);
	if (!l->last.set || lbt_evidence_cmp(&e, &l->last) > 0)
		l->last = e;
	return 0;
}

/* The maxconn, alert and full thresholds of a new frontend fe[0..len) of
 * load balancer lb (lb.n 0: the records name none). */
void lbt_tli_fe_init(const lbt_timeline *tl, struct tl_fe *f, lbt_str lb, const char *fe,
    size_t len)
{
	const lbt_tarpit_opts *t = &tl->o.tarpit;

	f->maxconn = t->maxconn > 0 ? t->maxconn : t->maxconn_of != NULL ?
	    t->maxconn_of(t->maxconn_ctx, lb.p, lb.n, fe, len, NULL, 0) : 0;
	if (f->maxconn > 0) {
		f->alert = (int32_t)(((int64_t)f->maxconn * tl->o.alert_pct + 99) / 100);
		f->full = f->maxconn - t->near > 0 ? f->maxconn - t->near : 1;
	}
	f->fc_max = -1;
	f->alert_m.at = f->full_m.at = LBT_TL_NONE;
}

/*
 * Keep (at, ev) in *d when it is earlier: by at, then by evidence.
 * @return 1 when kept, 0 otherwise.
 */
int lbt_tli_moment_join(struct tl_moment *d, int64_t at, const lbt_evidence *ev)
{
	if (d->at != LBT_TL_NONE && (at > d->at || (at == d->at &&
	    lbt_evidence_cmp(ev, &d->ev) >= 0)))
		return 0;
	d->at = at;
	d->ev = *ev;
	return 1;
}

/* The first moments r's frontend reached the alert and full levels.
 * @return 0 or -1. */
static int fe_add(lbt_timeline *tl, const lbt_rec *r, const char *file)
{
	lbt_str lb = (r->have & LBT_BIT(LBT_F_LB)) ? r->lb : lbt_str_make("", 0);
	size_t n = lb.n + 1 + r->frontend.n;
	struct tl_fe *f;
	int created = 0;

	if (!(r->have & LBT_BIT(LBT_F_FRONTEND)) || !(r->have & LBT_BIT(LBT_F_FC)))
		return 0;
	if (n > tl->kcap) {
		char *p = realloc(tl->kbuf, 2 * n);

		if (p == NULL)
			return -1;
		tl->kbuf = p;
		tl->kcap = 2 * n;
	}
	memcpy(tl->kbuf, lb.p ? lb.p : "", lb.n);
	tl->kbuf[lb.n] = '\0';
	memcpy(tl->kbuf + lb.n + 1, r->frontend.p, r->frontend.n);
	if ((f = lbt_hmap_put(tl->fes, tl->kbuf, n, &created)) == NULL)
		return -1;
	if (created)
		lbt_tli_fe_init(tl, f, lb, r->frontend.p, r->frontend.n);
	f->fc_max = r->fc > f->fc_max ? r->fc : f->fc_max;
	if ((f->alert > 0 && r->fc >= f->alert) || (f->full > 0 && r->fc >= f->full)) {
		lbt_evidence ev;
		int64_t at = lbt_tli_end_of(r);

		lbt_evidence_set(&ev, r, file);
		if (f->alert > 0 && r->fc >= f->alert)
			lbt_tli_moment_join(&f->alert_m, at, &ev);
		if (f->full > 0 && r->fc >= f->full)
			lbt_tli_moment_join(&f->full_m, at, &ev);
	}
	return 0;
}

/* The dimensions of a timed request r in bucket b.  @return 0 or -1. */
static int dims_add(lbt_timeline *tl, const lbt_rec *r, int64_t b, unsigned cls,
    const char *file)
{
	struct tl_subj *w;
	lbt_addr net;
	int fresh;

	if ((r->have & LBT_BIT(LBT_F_KEY)) && r->key.n > 0 &&
	    subj_add(&tl->keys, r->key.p, r->key.n, b, r, file, &fresh) == NULL)
		return -1;
	if ((r->have & LBT_BIT(LBT_F_HOST)) && r->host.n > 0 &&
	    subj_add(&tl->hosts, r->host.p, r->host.n, b, r, file, &fresh) == NULL)
		return -1;
	if ((r->have & LBT_BIT(LBT_F_CLIENT)) &&
	    lbt_netgroup_of(&tl->o.net, &r->client, &net, NULL) == 0) {
		if ((w = subj_add(&tl->srcs, &net, sizeof net, b, r, file, &fresh)) == NULL ||
		    (!fresh && lbt_tli_req_add(w, r, is_refused(cls), file) < 0) ||
		    (!fresh && (cls & (1u << LBT_TL_C429)) &&
		    lbt_tli_cells_add(&w->c429, b, r, file) < 0) ||
		    (!fresh && is_refused(cls) && lbt_tli_cells_add(&w->cref, b, r, file) < 0))
			return -1;
	}
	return lb_add(tl, r, b, cls, file) < 0 || fe_add(tl, r, file) < 0 ||
	    be_add(tl, r, b, file) < 0 ? -1 : 0;
}

/* Count a request with a time.  @return 0 or -1 (no memory). */
static int request_add(lbt_timeline *tl, const lbt_rec *r)
{
	const char *file = file_of(tl, r);
	unsigned cls = classes_of(r);
	int64_t b;

	if (tl->failed)
		return -1;
	tl->st.requests++;
	if (tl->st.first_us == LBT_TL_NONE || r->time_us < tl->st.first_us)
		tl->st.first_us = r->time_us;
	if (tl->st.last_us == LBT_TL_NONE || r->time_us > tl->st.last_us)
		tl->st.last_us = r->time_us;
	if (span_check(tl) < 0)
		return -1;
	b = lbt_tli_floor_div(r->time_us, tl->step);
	if (lbt_tli_cells_add(&tl->all, b, r, file) < 0)
		return -1;
	for (int c = 0; c < LBT_TL_NCLASS; c++)
		if ((cls & (1u << c)) && lbt_tli_cells_add(&tl->cls[c], b, r, file) < 0)
			return -1;
	if (lbt_tli_cells_add(&tl->stat[status_of(r)], b, r, file) < 0)
		return -1;
	if (dims_add(tl, r, b, cls, file) < 0)
		return -1;
	if (tl->last_f != NULL && file != NULL && lbt_tli_file_note(tl->last_f, r) < 0)
		return -1;
	return 0;
}

/* Count one record (see timeline.h).  @return 0, or -1 (sticky) when out of memory. */
int lbt_timeline_add(lbt_timeline *tl, const lbt_rec *r)
{
	tl->st.records++;
	if (tl->finished || tl->failed)
		return -1;
	if (r->kind == LBT_KIND_EVENT) {
		tl->st.events++;
		if (lbt_tli_line_add(tl, r, file_of(tl, r)) < 0)
			tl->failed = 1;
		return tl->failed ? -1 : 0;
	}
	if (lbt_tarpit_add(tl->tp, r) < 0)
		tl->failed = 1;
	else if (!(r->have & LBT_BIT(LBT_F_TIME)))
		tl->st.no_time++;
	else if (request_add(tl, r) < 0)
		tl->failed = 1;
	return tl->failed ? -1 : 0;
}

/* Free everything; NULL accepted. */
void lbt_timeline_free(lbt_timeline *tl)
{
	if (tl == NULL)
		return;
	lbt_tli_cells_free(&tl->all);
	for (int c = 0; c < LBT_TL_NCLASS; c++)
		lbt_tli_cells_free(&tl->cls[c]);
	for (int c = 0; c < TL_NSTAT; c++)
		lbt_tli_cells_free(&tl->stat[c]);
	lbt_tli_sketch_free(&tl->keys);
	lbt_tli_sketch_free(&tl->srcs);
	lbt_tli_sketch_free(&tl->hosts);
	for (size_t i = 0; tl->lbs != NULL && i < lbt_hmap_count(tl->lbs); i++) {
		lbt_hmap_entry e;

		lbt_hmap_at(tl->lbs, i, &e);
		lbt_tli_cells_free(&((struct tl_lb *)e.val)->cells);
		lbt_tli_cells_free(&((struct tl_lb *)e.val)->cls[0]);
		lbt_tli_cells_free(&((struct tl_lb *)e.val)->cls[1]);
	}
	for (size_t i = 0; tl->bes != NULL && i < lbt_hmap_count(tl->bes); i++) {
		lbt_hmap_entry e;

		lbt_hmap_at(tl->bes, i, &e);
		lbt_tli_cells_free(&((struct tl_be *)e.val)->queued);
		lbt_tli_cells_free(&((struct tl_be *)e.val)->shed);
	}
	for (size_t i = 0; tl->names != NULL && i < lbt_hmap_count(tl->names); i++) {
		lbt_hmap_entry e;

		lbt_hmap_at(tl->names, i, &e);
		lbt_tli_file_free(((struct tl_name *)e.val)->f);
	}
	lbt_hmap_free(tl->lbs);
	lbt_hmap_free(tl->fes);
	lbt_hmap_free(tl->bes);
	lbt_hmap_free(tl->names);
	lbt_tarpit_free(tl->tp);
	lbt_tli_result_free(tl->res);
	free(tl->res);
	free(tl->lines);
	free(tl->kbuf);
	free(tl);
}
