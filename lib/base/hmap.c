/*
 * hmap.c - open-addressing hash map from byte strings to fixed-size values
 * (see hmap.h for the contract).
 *
 * Layout: `slots` is the index, a power-of-two array of (entry number + 1,
 * upper 32 hash bits), probed linearly.  Entry metadata (key pointer,
 * length, full hash) lives in one growing array `meta`; it is only read on
 * a tag match and when rehashing.  Values live in blocks that double in
 * size (block k holds 256 << k values), so a value never moves and entry i
 * is found with one count-leading-zeros.  Keys are copied into an arena of
 * 64 KiB chunks (bigger keys get a chunk of their own).
 *
 * A map of fixed-size keys (lbt_hmap_new_fixed) keeps no metadata: each
 * key sits right after its value in the value blocks and the hash is
 * computed again when the index grows, which saves 24 bytes of metadata
 * and the arena copy's bytes an entry (ten million sources: 400 MB).
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "lbt/hmap.h"
#include "lbt/vec.h"

#define BLOCK0_SHIFT 8                 /* block 0 holds 256 values */
#define NBLOCKS 24                     /* 256 * (2^24 - 1) entries: more than UINT32_MAX */
#define CHUNK_SIZE (64 * 1024)
#define MAX_ENTRIES 0xfffffff0u

struct slot {
	uint32_t idx1;                 /* entry number + 1; 0 = empty slot */
	uint32_t tag;                  /* hash >> 32 */
};

struct meta {
	const unsigned char *key;
	size_t klen;
	uint64_t hash;
};

struct chunk {
	struct chunk *next;
	size_t used, size;
	unsigned char data[];
};

struct lbt_hmap {
	size_t val_size;
	struct slot *slots;
	size_t mask;                   /* slot count - 1 */
	struct meta *meta;
	size_t count, meta_cap;
	unsigned char *blocks[NBLOCKS];
	struct chunk *arena;           /* current chunk first */
	size_t arena_bytes;
	size_t fixed_klen;             /* 0: keys of any length, in meta and the arena */
	size_t stride;                 /* bytes an entry takes in the blocks */
};

/* Read 8 (or fewer, zero-padded) little-endian-agnostic bytes. */
static uint64_t rd64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/* @return a mixed word from the 128-bit product of a and b (wyhash's mum). */
static uint64_t mum(uint64_t a, uint64_t b)
{
	__uint128_t r = (__uint128_t)a * b;

	return (uint64_t)r ^ (uint64_t)(r >> 64);
}

/* Tail of fewer than 16 bytes read as two words without reading past n. */
static void tail_words(const unsigned char *p, size_t n, uint64_t *a, uint64_t *b)
{
	unsigned char buf[16] = { 0 };

	memcpy(buf, p, n);
	*a = rd64(buf);
	*b = rd64(buf + 8);
}

/* 64-bit hash of data[0..n): 16 bytes a round through mum(), the tail
 * zero-padded, the length mixed in last. */
uint64_t lbt_hash_bytes(const void *data, size_t n)
{
	static const uint64_t s0 = 0xa0761d6478bd642full, s1 = 0xe7037ed1a0b428dbull,
	    s2 = 0x8ebc6af09c88c6e3ull;
	const unsigned char *p = data;
	uint64_t h = s0 ^ mum(n ^ s1, s2), a, b;
	size_t left = n;

	while (left >= 16) {
		h = mum(rd64(p) ^ s1, rd64(p + 8) ^ h);
		p += 16;
		left -= 16;
	}
	tail_words(p, left, &a, &b);
	h = mum(a ^ s1 ^ left, b ^ h ^ s2);
	return mum(h ^ s0, (uint64_t)n ^ s1);
}

/* An empty map of values of val_size bytes (0 is stored as 1).
 * @return it, or NULL when out of memory. */
lbt_hmap *lbt_hmap_new(size_t val_size)
{
	lbt_hmap *m = calloc(1, sizeof(*m));

	if (m == NULL)
		return NULL;
	m->val_size = val_size ? val_size : 1;
	m->stride = m->val_size;
	m->mask = 15;
	m->slots = calloc(m->mask + 1, sizeof(*m->slots));
	if (m->slots == NULL) {
		free(m);
		return NULL;
	}
	return m;
}

/* An empty map of keys of exactly klen (> 0) bytes, each stored after its
 * value (no metadata, no arena).  @return it, or NULL when out of memory. */
lbt_hmap *lbt_hmap_new_fixed(size_t klen, size_t val_size)
{
	lbt_hmap *m = klen > 0 && klen < 256 ? lbt_hmap_new(val_size) : NULL;

	if (m == NULL)
		return NULL;
	m->val_size = (m->val_size + 7) & ~(size_t)7;   /* the key after it, values aligned */
	m->fixed_klen = klen;
	m->stride = (m->val_size + klen + 7) & ~(size_t)7;
	return m;
}

/* Free the arena chunks, value blocks, metadata and index; NULL accepted. */
void lbt_hmap_free(lbt_hmap *m)
{
	struct chunk *c, *next;

	if (m == NULL)
		return;
	for (c = m->arena; c != NULL; c = next) {
		next = c->next;
		free(c);
	}
	for (int k = 0; k < NBLOCKS; k++)
		free(m->blocks[k]);
	free(m->meta);
	free(m->slots);
	free(m);
}

/* Block number and offset of entry i: block k starts at 256 * (2^k - 1). */
static void locate(size_t i, int *k, size_t *off)
{
	uint64_t q = ((uint64_t)i >> BLOCK0_SHIFT) + 1;
	int b = 63 - __builtin_clzll(q);

	*k = b;
	*off = i - (((size_t)1 << b) - 1) * ((size_t)1 << BLOCK0_SHIFT);
}

/* @return the value storage of entry i (its block must exist). */
static void *value_at(const lbt_hmap *m, size_t i)
{
	int k;
	size_t off;

	locate(i, &k, &off);
	return m->blocks[k] + off * m->stride;
}

/* @return the key of entry i. */
static const unsigned char *key_at(const lbt_hmap *m, size_t i)
{
	return m->fixed_klen ? (const unsigned char *)value_at(m, i) + m->val_size : m->meta[i].key;
}

/* Non-zero when entry i is key[0..klen) of hash h. */
static int entry_is(const lbt_hmap *m, size_t i, const void *key, size_t klen, uint64_t h)
{
	const struct meta *e;

	if (m->fixed_klen)
		return klen == m->fixed_klen && memcmp(key_at(m, i), key, klen) == 0;
	e = &m->meta[i];
	return e->hash == h && e->klen == klen && memcmp(e->key, key, klen) == 0;
}

/* @return the hash of entry i (recomputed for fixed-size keys). */
static uint64_t hash_at(const lbt_hmap *m, size_t i)
{
	return m->fixed_klen ? lbt_hash_bytes(key_at(m, i), m->fixed_klen) : m->meta[i].hash;
}

/* Slot holding key (hash h), or the empty slot where it would go. */
static struct slot *probe(const lbt_hmap *m, const void *key, size_t klen, uint64_t h)
{
	uint32_t tag = (uint32_t)(h >> 32);
	size_t i = (size_t)h & m->mask;

	for (;; i = (i + 1) & m->mask) {
		struct slot *s = &m->slots[i];

		if (s->idx1 == 0)
			return s;
		if (s->tag == tag && entry_is(m, s->idx1 - 1, key, klen, h))
			return s;
	}
}

/* Look key up without allocating.  @return its value, or NULL. */
void *lbt_hmap_get(const lbt_hmap *m, const void *key, size_t klen)
{
	const struct slot *s;

	if (m == NULL || m->count == 0)
		return NULL;
	s = probe(m, key, klen, lbt_hash_bytes(key, klen));
	return s->idx1 ? value_at(m, s->idx1 - 1) : NULL;
}

/* Double the index and reinsert every entry.  @return 0 or -1 (no memory). */
static int grow_index(lbt_hmap *m)
{
	size_t ncap = (m->mask + 1) * 2, nmask = ncap - 1;
	struct slot *ns = calloc(ncap, sizeof(*ns));

	if (ns == NULL)
		return -1;
	for (size_t e = 0; e < m->count; e++) {
		uint64_t h = hash_at(m, e);
		size_t i = (size_t)h & nmask;

		while (ns[i].idx1 != 0)
			i = (i + 1) & nmask;
		ns[i].idx1 = (uint32_t)(e + 1);
		ns[i].tag = (uint32_t)(h >> 32);
	}
	free(m->slots);
	m->slots = ns;
	m->mask = nmask;
	return 0;
}

/* Copy key into the arena (NUL added).  @return the copy or NULL. */
static unsigned char *arena_copy(lbt_hmap *m, const void *key, size_t klen)
{
	struct chunk *c = m->arena;
	unsigned char *p;

	if (c == NULL || c->size - c->used < klen + 1) {
		size_t size = klen + 1 > CHUNK_SIZE / 4 ? klen + 1 : CHUNK_SIZE;

		c = malloc(sizeof(*c) + size);
		if (c == NULL)
			return NULL;
		c->used = 0;
		c->size = size;
		/* A one-key chunk goes behind the current one so its free space is kept. */
		if (size != CHUNK_SIZE && m->arena != NULL) {
			c->next = m->arena->next;
			m->arena->next = c;
		} else {
			c->next = m->arena;
			m->arena = c;
		}
		m->arena_bytes += sizeof(*c) + size;
	}
	p = c->data + c->used;
	memcpy(p, key, klen);
	p[klen] = '\0';
	c->used += klen + 1;
	return p;
}

/* Make room for entry number m->count: meta slot and value block.
 * @return 0 or -1 (no memory, or the map is full). */
static int reserve_entry(lbt_hmap *m)
{
	int k;
	size_t off;

	if (m->count >= MAX_ENTRIES)
		return -1;
	if (!m->fixed_klen && LBT_GROW(m->meta, m->meta_cap, m->count + 1, 16) < 0)
		return -1;
	locate(m->count, &k, &off);
	if (m->blocks[k] == NULL) {
		m->blocks[k] = malloc(((size_t)256 << k) * m->stride);
		if (m->blocks[k] == NULL)
			return -1;
	}
	return 0;
}

/* Find key or add it with a zeroed value (growing the index first when
 * it would pass 70 %).  @return the value, or NULL when out of memory. */
void *lbt_hmap_put(lbt_hmap *m, const void *key, size_t klen, int *created)
{
	uint64_t h = lbt_hash_bytes(key, klen);
	struct slot *s = probe(m, key, klen, h);
	unsigned char *copy;
	void *val;

	if (created != NULL)
		*created = 0;
	if (s->idx1 != 0)
		return value_at(m, s->idx1 - 1);
	if (klen > UINT32_MAX || (m->fixed_klen && klen != m->fixed_klen) || reserve_entry(m) < 0)
		return NULL;
	if ((m->count + 1) * 10 > (m->mask + 1) * 7) {
		if (grow_index(m) < 0)
			return NULL;
		s = probe(m, key, klen, h);
	}
	val = value_at(m, m->count);
	if (m->fixed_klen) {
		memcpy((unsigned char *)val + m->val_size, key, klen);
	} else {
		if ((copy = arena_copy(m, key, klen)) == NULL)
			return NULL;
		m->meta[m->count] = (struct meta){ copy, klen, h };
	}
	s->idx1 = (uint32_t)(m->count + 1);
	s->tag = (uint32_t)(h >> 32);
	memset(val, 0, m->val_size);
	m->count++;
	if (created != NULL)
		*created = 1;
	return val;
}

/* @return the number of entries (0 for NULL). */
size_t lbt_hmap_count(const lbt_hmap *m)
{
	return m ? m->count : 0;
}

/* Entry i (insertion order) into *e; i must be below the count. */
void lbt_hmap_at(const lbt_hmap *m, size_t i, lbt_hmap_entry *e)
{
	assert(m != NULL && i < m->count);
	e->key = key_at(m, i);
	e->klen = m->fixed_klen ? m->fixed_klen : m->meta[i].klen;
	e->val = value_at(m, i);
}

/* What qsort_r sorts: the entry and its number, for a stable order. */
struct sort_item {
	lbt_hmap_entry e;
	size_t i;
};

struct sort_ctx {
	lbt_hmap_cmp cmp;
	void *ctx;
};

/* qsort_r adapter: the caller's order, then insertion order. */
static int sort_cmp(const void *a, const void *b, void *arg)
{
	const struct sort_item *x = a, *y = b;
	const struct sort_ctx *sc = arg;
	int c = sc->cmp(&x->e, &y->e, sc->ctx);

	if (c != 0)
		return c;
	return (x->i > y->i) - (x->i < y->i);
}

/* Every entry sorted by cmp, ties in insertion order, in one malloc'ed
 * array owned by the caller.  @return it, or NULL when out of memory. */
lbt_hmap_entry *lbt_hmap_sorted(const lbt_hmap *m, lbt_hmap_cmp cmp, void *ctx, size_t *n)
{
	size_t cnt = lbt_hmap_count(m);
	struct sort_item *items = malloc((cnt ? cnt : 1) * sizeof(*items));
	lbt_hmap_entry *out;
	struct sort_ctx sc = { cmp, ctx };

	if (items == NULL)
		return NULL;
	for (size_t i = 0; i < cnt; i++) {
		lbt_hmap_at(m, i, &items[i].e);
		items[i].i = i;
	}
	if (cnt > 1)
		qsort_r(items, cnt, sizeof(*items), sort_cmp, &sc);
	/* Compact in place: an entry is smaller than an item. */
	out = (lbt_hmap_entry *)(void *)items;
	for (size_t i = 0; i < cnt; i++)
		memmove(&out[i], &items[i].e, sizeof(*out));
	*n = cnt;
	return out;
}

/* @return the bytes held: index, metadata, arena, the values stored (a
 * value block's pages past the last entry are never touched, so they take
 * no memory). */
size_t lbt_hmap_bytes(const lbt_hmap *m)
{
	size_t b;

	if (m == NULL)
		return 0;
	b = sizeof(*m) + (m->mask + 1) * sizeof(struct slot) + m->count * sizeof(struct meta);
	return b + m->arena_bytes + m->count * m->stride;
}
