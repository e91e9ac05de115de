/*
 * timeline_int.h - what the files of the timeline module share, never
 * installed:
 *   timeline.c          the accumulator: records -> series, sketches, the
 *                       frontends' first moments
 *   timeline_names.c    the interned strings, and each file's request end
 *                       times by blocks of lines
 *   timeline_cells.c    a sparse series of buckets, each a count and its
 *                       evidence (tl_cells), and the bucket ladder
 *   timeline_sketch.c   the space-saving sketch of tracked keys, sources
 *                       and Hosts, each with its cells, and the requests
 *                       of the tracked sources (tl_sketch, tl_req)
 *   timeline_merge.c    spawn, merge, finish and the vtable
 *   timeline_dense.c    a series made dense and what every detector reads
 *                       off it: sums, rates, an episode's events, the
 *                       incident's bounds, a baseline of its own
 *   timeline_detect.c   the episodes of traffic, keys, Hosts, sources and
 *                       classes, the end
 *   timeline_more.c     saturation and alert, per-LB volume and shedding,
 *                       runs of answers cut at reloads
 *   timeline_retry.c    retry storms and their episodes, 429 per source
 *   timeline_lines.c    HAProxy's own lines: kept, placed when they have no
 *                       time, grouped (crash loops, reloads, bursts)
 *   timeline_out.c      the events array, sorting, charts, accessors
 *
 * Direction, top down: timeline_merge.c calls timeline.c and
 * timeline_detect.c; timeline_detect.c calls timeline_retry.c,
 * timeline_more.c and timeline_lines.c; timeline_retry.c calls
 * timeline_more.c; the detectors call timeline_dense.c; timeline.c calls
 * timeline_lines.c and timeline_sketch.c; at the bottom, called by the
 * others and calling none of them but timeline_cells.c, are
 * timeline_names.c, timeline_out.c and timeline_cells.c.
 */
#ifndef LBT_TIMELINE_INT_H
#define LBT_TIMELINE_INT_H

#include "lbt/evidence.h"
#include "lbt/hmap.h"
#include "lbt/timeline.h"
#include "lbt/vec.h"

/* ---- cells: counts and evidence per bucket ------------------------------ */

/* One bucket of a series: requests counted in it and the smallest of them. */
struct tl_cell {
	int64_t n;
	lbt_evidence ev;
};

/* A sparse series of cells keyed by bucket number (int64). */
typedef struct tl_cells {
	lbt_hmap *m;              /* int64 bucket -> struct tl_cell; NULL: empty */
	int64_t last_b;
	struct tl_cell *last;     /* cell of last_b, NULL when none */
} tl_cells;

/* Rename an evidence's file name into the destination's interned copy. */
typedef const char *(*tl_intern_fn)(void *ctx, const char *file);

int lbt_tli_cells_add(tl_cells *c, int64_t b, const lbt_rec *r, const char *file);
int lbt_tli_cells_merge(tl_cells *dst, const tl_cells *src, tl_intern_fn fn, void *ctx);
int lbt_tli_cells_rebucket(tl_cells *c, int64_t factor);
void lbt_tli_cells_dense(const tl_cells *c, int64_t first, size_t n, int64_t *v);
int lbt_tli_cells_first(const tl_cells *c, int64_t from, int64_t to, lbt_evidence *ev);
void lbt_tli_cells_free(tl_cells *c);
int64_t lbt_tli_step_next(int64_t step_us);
int64_t lbt_tli_floor_div(int64_t a, int64_t b);

/* ---- the sketch of tracked subjects -------------------------------------- */

/* A request a tracked source sent (method and path), and its refusals:
 * counts, smallest and largest times, whatever the order of the records
 * (merges and --db agree). */
struct tl_req {
	uint64_t n, nref;         /* sent, refused (429, 503, -1, tarpit) */
	int64_t first_us, last_us;
	lbt_evidence ref;         /* the smallest refused one */
	int64_t ref_first_us, ref_last_us;   /* first and last refusal (nref > 0) */
};

/* One tracked value (a key, a source, a Host). */
struct tl_subj {
	char *key;                /* malloc'ed (kcap bytes), NUL-terminated; klen bytes */
	size_t klen, kcap;
	uint64_t count, err;      /* space-saving count and its over-estimate */
	tl_cells cells;           /* since it entered the sketch */
	tl_cells c429;            /* sources: their 429 answers, as cells */
	tl_cells cref;            /* sources: every refusal (429, 503, -1, tarpit) */
	lbt_evidence last;        /* its largest (time, file, line) */
	lbt_hmap *req;            /* sources: "METHOD path" -> struct tl_req */
	uint64_t req_over;        /* requests of pairs past LBT_TL_RETRY_CAP */
	size_t hpos;              /* its index in the heap */
};

typedef struct tl_sketch {
	size_t cap;               /* values kept (track) */
	struct tl_subj *v;        /* cap slots, n used */
	size_t n;
	uint32_t *idx;            /* open addressing: slot + 1, 0 empty */
	size_t icap;              /* a power of two >= 2 cap */
	size_t *heap;             /* slots, smallest count first */
	uint64_t evicted;         /* values pushed out: counts are upper bounds */
	int with_req;             /* keep the requests (sources) */
} tl_sketch;

int lbt_tli_sketch_init(tl_sketch *s, size_t cap, int with_req);
struct tl_subj *lbt_tli_sketch_hit(tl_sketch *s, const void *key, size_t klen, int *evicted);
int lbt_tli_sketch_merge(tl_sketch *dst, tl_sketch *src, tl_intern_fn fn, void *ctx);
int lbt_tli_sketch_rebucket(tl_sketch *s, int64_t factor);
void lbt_tli_sketch_free(tl_sketch *s);
int lbt_tli_req_add(struct tl_subj *w, const lbt_rec *r, int refused, const char *file);
int lbt_tli_req_merge(struct tl_subj *dst, const struct tl_subj *src, tl_intern_fn fn,
    void *ctx);

/* ---- per load balancer, per frontend, per file, HAProxy's lines --------- */

/* The classes with a series per load balancer: the load shedding a
 * post-mortem counts per LB (429, 503). */
#define TL_LB_NCLASS 2

struct tl_lb {
	tl_cells cells;
	tl_cells cls[TL_LB_NCLASS];   /* its LBT_TL_C429 and LBT_TL_C503 answers */
	lbt_evidence last;        /* its last request */
};

/* A backend's queue and HAProxy's own shedding (key: its name): requests
 * that waited in a queue (logged srv_queue or backend_queue above 0, or
 * Tw above 0) and the 503 HAProxy answered itself after a queue or
 * connect timeout (termination state sQ, sC) or a refusal (SC), per
 * bucket; the largest logged srv_conn and queues.  At most LBT_TL_MAXLB. */
struct tl_be {
	tl_cells queued, shed;
	int32_t sc_max, sq_max, bq_max;
};

/* The first moment something was logged: the smallest end time (when
 * HAProxy wrote the line and read its counters), then the smallest
 * evidence among the records that ended then. */
struct tl_moment {
	int64_t at;               /* LBT_TL_NONE: never */
	lbt_evidence ev;
};

/* A frontend of a load balancer: the first moments fc reached the alert
 * threshold and maxconn - near (key "lb\0frontend"). */
struct tl_fe {
	int32_t maxconn, alert, full;   /* 0: unknown */
	struct tl_moment alert_m, full_m;
	int32_t fc_max;
};

/* A file's request end times by blocks of TL_BLOCK lines. */
#define TL_BLOCK 16
struct tl_blk {
	int64_t maxend, minend;         /* LBT_TL_NONE where no request */
};
struct tl_file {
	struct tl_blk *b;
	size_t nblk, cap;
	uint64_t last_line;       /* line of its last request, 0 none */
};

/* An interned string; files get their blocks. */
struct tl_name {
	const char *s;
	struct tl_file *f;
};

/* One of HAProxy's own lines. */
struct tl_line {
	const char *subject;      /* interned: "be_app/app1", "be_app", "fe_http" ... */
	const char *lb;           /* interned, NULL when none */
	const char *msg;          /* interned copy (at most TL_MSGMAX bytes) */
	int64_t time_us;          /* LBT_TL_NONE when the line had none */
	const char *file;         /* interned */
	uint64_t line;
	int kind;                 /* enum tl_line_kind (timeline_lines.c) */
	int approx;               /* placed between its neighbours: time_us..hi_us */
	int64_t hi_us;
};

#define TL_MSGMAX 300

/* The status mix of the chart: 2xx 3xx 4xx (not 429) 429 5xx -1 other. */
enum { TL_S2XX, TL_S3XX, TL_S4XX, TL_S429, TL_S5XX, TL_SNONE, TL_SOTHER, TL_NSTAT };

struct lbt_timeline {
	lbt_timeline_opts o;
	int64_t step;             /* the bucket width now */
	tl_cells all;             /* every request */
	tl_cells cls[LBT_TL_NCLASS];
	tl_cells stat[TL_NSTAT];  /* the status mix, for the chart */
	tl_sketch keys, srcs, hosts;
	lbt_hmap *lbs;            /* lb name -> struct tl_lb ("" none) */
	lbt_hmap *fes;            /* "lb\0frontend" -> struct tl_fe */
	lbt_hmap *bes;            /* backend -> struct tl_be */
	lbt_hmap *names;          /* interned strings -> struct tl_name */
	const char *last_file;    /* interned name of the last record's file */
	struct tl_file *last_f;
	struct tl_line *lines;
	size_t nlines, caplines;
	lbt_tarpit *tp;
	lbt_timeline_stats st;
	int failed, finished;
	char *kbuf;               /* scratch for keys */
	size_t kcap;
	/* after finish (timeline_out.c, timeline_detect.c) */
	struct lbt_tli_result *res;
};

/* timeline_names.c (each function's comment is above its definition) */
const char *lbt_tli_intern(lbt_timeline *tl, const char *s, size_t n, int file);
const char *lbt_tli_intern_file(void *tl, const char *file);
int64_t lbt_tli_end_of(const lbt_rec *r);
int lbt_tli_file_note(struct tl_file *f, const lbt_rec *r);
int lbt_tli_file_merge(struct tl_file *dst, const struct tl_file *src);
void lbt_tli_file_free(struct tl_file *f);

/* timeline.c */
int lbt_tli_rebucket(lbt_timeline *tl, int64_t step);
void lbt_tli_fe_init(const lbt_timeline *tl, struct tl_fe *f, lbt_str lb, const char *fe,
    size_t len);
int lbt_tli_moment_join(struct tl_moment *d, int64_t at, const lbt_evidence *ev);

/* ---- finish --------------------------------------------------------------- */

/* A dense series while detecting. */
struct tl_dense {
	int64_t *v;
	size_t n;
	lbt_cp_result cp;
	int has_cp;
};

/* What finish builds (timeline_out.c owns it). */
struct lbt_tli_result {
	lbt_tl_event *ev;
	size_t nev, capev;
	int64_t first_b;          /* bucket of index 0 */
	size_t n;                 /* buckets */
	int64_t *total;           /* every request, dense */
	int ongoing;              /* an episode lasts to the end of the input */
	lbt_tl_series *charts[LBT_TL_NCHARTS];
	size_t ncharts[LBT_TL_NCHARTS];
	int32_t *slots_limit;     /* maxconn of each LBT_TL_CH_SLOTS series */
	int64_t **owned;          /* dense arrays the charts point to */
	size_t nowned, capowned;
};

/* timeline_out.c */
lbt_tl_event *lbt_tli_event_new(lbt_timeline *tl, lbt_tl_kind k, lbt_tl_what w,
    const char *subject, int64_t t_us);
void lbt_tli_event_ev(lbt_tl_event *e, const lbt_evidence *ev);
int64_t lbt_tli_bucket_us(const lbt_timeline *tl, size_t i);
int lbt_tli_own(lbt_timeline *tl, int64_t *v);
int lbt_tli_chart_add(lbt_timeline *tl, lbt_tl_chart c, lbt_tl_what w, const char *name,
    const int64_t *v);
void lbt_tli_events_sort(lbt_timeline *tl);
void lbt_tli_result_free(struct lbt_tli_result *r);

/* timeline_dense.c */
int lbt_tli_dense(const lbt_timeline *tl, const tl_cells *c, struct tl_dense *d, int cp);
void lbt_tli_dense_free(struct tl_dense *d);
int64_t lbt_tli_sum_of(const int64_t *v, size_t a, size_t b);
size_t lbt_tli_first_busy(const int64_t *v, size_t a, size_t b);
double lbt_tli_rate(const lbt_timeline *tl, const int64_t *v, size_t from, size_t to);
int lbt_tli_episode_events(lbt_timeline *tl, const struct tl_dense *d, const tl_cells *c,
    const lbt_cp_episode *ep, lbt_tl_kind k, lbt_tl_kind kend, lbt_tl_what w,
    const char *subject);
void lbt_tli_incident_note(lbt_timeline *tl, int64_t start, int64_t end, int ongoing);
int lbt_tli_began_with_data(const lbt_timeline *tl, const struct tl_dense *d);
int lbt_tli_rebase(const lbt_timeline *tl, struct tl_dense *d);

/* timeline_detect.c */
int lbt_tli_detect(lbt_timeline *tl);

/* timeline_more.c: runs of answers (a class of an LB, a source's 429s) */
#define TL_SHED_MIN 10              /* answers of a class that make a shedding episode */

/* Whose answers a run counts: the event's what, subject, lb and other,
 * the answers' cells and dense counts, the requests they are a share of,
 * and the LB whose reloads cut the runs (NULL: any LB's). */
struct tl_answers {
	lbt_tl_what what;
	const char *subject, *lb, *other, *cut_lb;
	const tl_cells *cells;
	const int64_t *v, *all;
};

size_t lbt_tli_reload_in(const lbt_timeline *tl, const char *lb, size_t a, size_t b);
void lbt_tli_trim(const int64_t *v, size_t *a, size_t *b);
int lbt_tli_answer_runs(lbt_timeline *tl, const struct tl_answers *x);

/* timeline_more.c */
int lbt_tli_detect_saturation(lbt_timeline *tl);
int lbt_tli_detect_backends(lbt_timeline *tl);
int lbt_tli_detect_lbs(lbt_timeline *tl);

/* timeline_retry.c */
int lbt_tli_detect_retries(lbt_timeline *tl);
int lbt_tli_detect_source_429(lbt_timeline *tl);

/* timeline_lines.c */
int lbt_tli_line_add(lbt_timeline *tl, const lbt_rec *r, const char *file);
int lbt_tli_detect_lines(lbt_timeline *tl);

#endif
