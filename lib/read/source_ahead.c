/*
 * source_ahead.c - a source decoded ahead on a thread of its own (see
 * lbt_source_read_ahead in include/lbt/source.h).
 *
 * The thread runs the decoder of source.c (lbt_sourcei_fill) into a ring
 * of SLOTS buffers of CHUNK bytes; the line reader takes them in order
 * (refill copies one slot behind its unfinished line, as it would have
 * decoded it there).  The thread owns the decoder's state (input buffer,
 * zstd/zlib stream, s->eof, the pending error); the reader owns the line
 * buffer.  They meet only under the mutex: a slot filled, a slot freed,
 * and `done`, set after the decoder's last write, so that the reader sees
 * the pending error (source.c's finish) only once it is complete.
 *
 * zstd decodes a 1 GB HAProxy log at about 1.4 GB/s on one core of this
 * machine and parsing takes 2 to 5 times as long: one thread ahead is
 * enough, and the ring (2 MiB) keeps memory bounded.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "source_int.h"

#define SLOTS 8

struct slot {
	char *p;
	size_t n;
	uint64_t raw;              /* compressed bytes consumed once it was decoded */
};

struct lbt_sourcei_ahead {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct slot slot[SLOTS];
	unsigned head, tail;       /* slots taken, slots filled (tail - head ready) */
	int done;                  /* the decoder reached the end (or an error) */
	int quit;                  /* the reader is closing */
	uint64_t raw;              /* raw offset of the last slot taken */
};

/* Wait for a free slot.  @return it, or NULL when the reader is closing. */
static struct slot *free_slot(struct lbt_sourcei_ahead *a)
{
	struct slot *sl = NULL;

	pthread_mutex_lock(&a->mu);
	while (a->tail - a->head == SLOTS && !a->quit)
		pthread_cond_wait(&a->cv, &a->mu);
	if (!a->quit)
		sl = &a->slot[a->tail % SLOTS];
	pthread_mutex_unlock(&a->mu);
	return sl;
}

/* The decoding thread: fill slots until the end, an error or quit. */
static void *decode_ahead(void *arg)
{
	lbt_source *s = arg;
	struct lbt_sourcei_ahead *a = s->ahead;
	struct slot *sl;

	while ((sl = free_slot(a)) != NULL) {
		sl->n = lbt_sourcei_fill(s, sl->p, CHUNK);
		sl->raw = lbt_sourcei_raw(s);
		pthread_mutex_lock(&a->mu);
		a->tail += sl->n > 0;
		a->done = s->eof;
		pthread_cond_broadcast(&a->cv);
		pthread_mutex_unlock(&a->mu);
		if (s->eof)
			break;
	}
	return NULL;
}

/* Start the thread; see source.h.  @return 0, or -1 (reading stays in the caller's thread) */
int lbt_source_read_ahead(lbt_source *s)
{
	struct lbt_sourcei_ahead *a;

	if (s->ahead != NULL || s->ceof || (a = calloc(1, sizeof *a)) == NULL)
		return -1;
	for (int i = 0; i < SLOTS; i++)
		if ((a->slot[i].p = malloc(CHUNK)) == NULL)
			goto fail;
	pthread_mutex_init(&a->mu, NULL);
	pthread_cond_init(&a->cv, NULL);
	a->raw = lbt_sourcei_raw(s);
	s->ahead = a;
	if (pthread_create(&a->thread, NULL, decode_ahead, s) == 0)
		return 0;
	s->ahead = NULL;
	pthread_mutex_destroy(&a->mu);
	pthread_cond_destroy(&a->cv);
fail:
	for (int i = 0; i < SLOTS; i++)
		free(a->slot[i].p);
	free(a);
	return -1;
}

/* The next decoded slot into dst (cap >= CHUNK); s->ceof at the end.  @return bytes */
size_t lbt_sourcei_ahead_take(lbt_source *s, char *dst, size_t cap)
{
	struct lbt_sourcei_ahead *a = s->ahead;
	struct slot *sl;
	size_t n;

	pthread_mutex_lock(&a->mu);
	while (a->tail == a->head && !a->done)
		pthread_cond_wait(&a->cv, &a->mu);
	if (a->tail == a->head) {
		s->ceof = 1;
		pthread_mutex_unlock(&a->mu);
		return 0;
	}
	sl = &a->slot[a->head % SLOTS];
	pthread_mutex_unlock(&a->mu);
	n = sl->n < cap ? sl->n : cap;      /* cap >= CHUNK >= sl->n */
	memcpy(dst, sl->p, n);
	pthread_mutex_lock(&a->mu);
	a->raw = sl->raw;
	a->head++;
	pthread_cond_broadcast(&a->cv);
	pthread_mutex_unlock(&a->mu);
	return n;
}

/* Wait up to ms for a slot decoded ahead or the end.  @return 1 one is there, else 0 */
int lbt_sourcei_ahead_wait(lbt_source *s, int ms)
{
	struct lbt_sourcei_ahead *a = s->ahead;
	struct timespec until;
	int rc = 0, ready;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += ms / 1000;
	until.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&a->mu);
	while (!(ready = a->tail != a->head || a->done) && rc != ETIMEDOUT)
		rc = pthread_cond_timedwait(&a->cv, &a->mu, &until);
	pthread_mutex_unlock(&a->mu);
	return ready;
}

/* @return the compressed bytes consumed for the slots taken so far. */
uint64_t lbt_sourcei_ahead_raw(const lbt_source *s)
{
	return s->ahead->raw;
}

/*
 * Stop the thread (cancelled if it still decodes: it may wait on a pipe
 * that never ends), join it and free the ring.  NULL ahead accepted.
 */
void lbt_sourcei_ahead_stop(lbt_source *s)
{
	struct lbt_sourcei_ahead *a = s->ahead;
	int done;

	if (a == NULL)
		return;
	pthread_mutex_lock(&a->mu);
	a->quit = 1;
	done = a->done;
	pthread_cond_broadcast(&a->cv);
	pthread_mutex_unlock(&a->mu);
	if (!done)
		pthread_cancel(a->thread);
	pthread_join(a->thread, NULL);
	if (done)
		pthread_mutex_destroy(&a->mu);   /* a cancelled wait may leave it locked */
	pthread_cond_destroy(&a->cv);
	for (int i = 0; i < SLOTS; i++)
		free(a->slot[i].p);
	free(a);
	s->ahead = NULL;
}
