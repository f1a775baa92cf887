/* labels.c — interned label strings.
 *
 * Strings live in an arena of chunks (so a pointer handed out never moves)
 * and are indexed by dense ids. An open-addressing table with linear probing
 * maps a string to its id; a slot holds id + 1 (0 = empty) and the table is
 * kept at most half full.
 *
 * Aliases of a label are kept in insertion order; once a label has more
 * than a few, a per-label open-addressing set of their indexes (same
 * scheme: index + 1, at most half full) makes the duplicate check O(1), so
 * adding n aliases to one label costs O(n), not O(n^2).
 */
#include "maps/labels.h"

#include <stdlib.h>
#include <string.h>

#include "util/util.h"

#define ARENA_CHUNK (64 * 1024)

struct arena_chunk {
	struct arena_chunk *next;
	char data[];
};

#define ALIAS_LINEAR 8 /* up to this many aliases: no set, just compare */

struct alias_list {
	const char **v;
	uint32_t *hash;   /* hash of v[i] */
	size_t n, cap;
	uint32_t *set;    /* index + 1, 0 = empty; NULL while n <= ALIAS_LINEAR */
	size_t nset;      /* power of two */
};

struct labels {
	/* by id */
	const char **str;
	size_t *len;
	uint32_t *hash;
	size_t count, cap;

	/* hash table: id + 1, 0 = empty; nslot is a power of two */
	uint32_t *slot;
	size_t nslot;

	/* string arena */
	struct arena_chunk *chunks;
	char *cur;
	size_t left;

	/* aliases, allocated lazily; nalias entries valid */
	struct alias_list *alias;
	size_t nalias;

	/* positions by id, allocated lazily: pos + 1, 0 = none; npos valid */
	uint64_t *pos;
	size_t npos;
};

/* A 64-bit hash of s[0, n): 8 bytes at a time, each step and the end
 * mixed with the multipliers of MurmurHash3's and SplitMix64's
 * finalizers. */
static uint64_t hash_bytes(const char *s, size_t n)
{
	uint64_t h = HASH_GOLDEN_U64 ^ n;
	uint64_t w;

	while (n >= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
		s += 8;
		n -= 8;
	}
	w = 0;
	memcpy(&w, s, n);
	h = (h ^ w) * 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 29;
	h *= 0x94d049bb133111ebULL;
	h ^= h >> 32;
	return h;
}

/* Copy n bytes of s plus a NUL into the arena. */
static const char *arena_dup(struct labels *lb, const char *s, size_t n)
{
	char *p;

	if (n + 1 > lb->left) {
		size_t sz = ARENA_CHUNK;
		struct arena_chunk *c;

		if (n + 1 > ARENA_CHUNK / 4) {
			/* big string: its own chunk, keep the current one */
			c = xmalloc(sizeof(*c) + n + 1);
			if (lb->chunks) {
				c->next = lb->chunks->next;
				lb->chunks->next = c;
			} else {
				c->next = NULL;
				lb->chunks = c;
			}
			p = c->data;
			goto copy;
		}
		c = xmalloc(sizeof(*c) + sz);
		c->next = lb->chunks;
		lb->chunks = c;
		lb->cur = c->data;
		lb->left = sz;
	}
	p = lb->cur;
	lb->cur += n + 1;
	lb->left -= n + 1;
copy:
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

struct labels *labels_new(void)
{
	struct labels *lb = xcalloc(1, sizeof(*lb));

	lb->nslot = 64;
	lb->slot = xcalloc(lb->nslot, sizeof(*lb->slot));
	return lb;
}

void labels_free(struct labels *lb)
{
	struct arena_chunk *c, *next;
	size_t i;

	if (!lb)
		return;
	for (c = lb->chunks; c; c = next) {
		next = c->next;
		free(c);
	}
	for (i = 0; i < lb->nalias; i++) {
		free(lb->alias[i].v);
		free(lb->alias[i].hash);
		free(lb->alias[i].set);
	}
	free(lb->alias);
	free(lb->pos);
	free(lb->slot);
	free(lb->str);
	free(lb->len);
	free(lb->hash);
	free(lb);
}

/* Slot index where s lives, or the empty slot where it would go. */
static size_t probe(const struct labels *lb, const char *s, size_t n,
		    uint32_t h)
{
	size_t mask = lb->nslot - 1;
	size_t i = h & mask;

	for (;;) {
		uint32_t v = lb->slot[i];

		if (!v)
			return i;
		v--;
		if (lb->hash[v] == h && lb->len[v] == n &&
		    !memcmp(lb->str[v], s, n))
			return i;
		i = (i + 1) & mask;
	}
}

static void rehash(struct labels *lb)
{
	size_t nslot = lb->nslot * 2, mask = nslot - 1, id;
	uint32_t *slot = xcalloc(nslot, sizeof(*slot));

	for (id = 0; id < lb->count; id++) {
		size_t i = lb->hash[id] & mask;

		while (slot[i])
			i = (i + 1) & mask;
		slot[i] = id + 1;
	}
	free(lb->slot);
	lb->slot = slot;
	lb->nslot = nslot;
}

uint32_t labels_intern_n(struct labels *lb, const char *s, size_t n)
{
	uint32_t h = (uint32_t)hash_bytes(s, n);
	size_t i = probe(lb, s, n, h);
	uint32_t id;

	if (lb->slot[i])
		return lb->slot[i] - 1;
	if (lb->count >= LABEL_NONE - 1)
		abort(); /* 4 billion labels: cannot happen in practice */
	if (lb->count == lb->cap) {
		size_t cap = lb->cap;

		xgrow(&lb->str, &cap, lb->count + 1, sizeof(*lb->str));
		cap = lb->cap;
		xgrow(&lb->len, &cap, lb->count + 1, sizeof(*lb->len));
		cap = lb->cap;
		xgrow(&lb->hash, &cap, lb->count + 1, sizeof(*lb->hash));
		lb->cap = cap;
	}
	id = lb->count++;
	lb->str[id] = arena_dup(lb, s, n);
	lb->len[id] = n;
	lb->hash[id] = h;
	lb->slot[i] = id + 1;
	if (lb->count * 2 > lb->nslot)
		rehash(lb);
	return id;
}

uint32_t labels_intern(struct labels *lb, const char *s)
{
	return labels_intern_n(lb, s, strlen(s));
}

uint32_t labels_find(const struct labels *lb, const char *s)
{
	size_t n = strlen(s);
	size_t i = probe(lb, s, n, (uint32_t)hash_bytes(s, n));

	return lb->slot[i] ? lb->slot[i] - 1 : LABEL_NONE;
}

const char *labels_str(const struct labels *lb, uint32_t id)
{
	return id < lb->count ? lb->str[id] : NULL;
}

size_t labels_count(const struct labels *lb)
{
	return lb->count;
}

/* Slot of al's set where alias (length n, hash h) is, or the empty slot
 * where it would go. */
static size_t alias_probe(const struct alias_list *al, const char *alias,
			  uint32_t h)
{
	size_t mask = al->nset - 1, i = h & mask;

	for (;;) {
		uint32_t v = al->set[i];

		if (!v || (al->hash[v - 1] == h && !strcmp(al->v[v - 1], alias)))
			return i;
		i = (i + 1) & mask;
	}
}

/* (Re)build al's set with room for at least 2 * (n + 1) entries. */
static void alias_rehash(struct alias_list *al)
{
	size_t nset = al->nset ? al->nset : 32;

	while (nset < 2 * (al->n + 1))
		nset *= 2;
	free(al->set);
	al->set = xcalloc(nset, sizeof(*al->set));
	al->nset = nset;
	for (size_t k = 0; k < al->n; k++)
		al->set[alias_probe(al, al->v[k], al->hash[k])] = k + 1;
}

void labels_add_alias(struct labels *lb, uint32_t id, const char *alias)
{
	struct alias_list *al;
	size_t i, n = strlen(alias), cap;
	uint32_t h;

	if (id >= lb->count)
		return;
	if (lb->len[id] == n && !memcmp(lb->str[id], alias, n))
		return;
	if (id >= lb->nalias) {
		cap = lb->nalias;
		xgrow(&lb->alias, &cap, lb->count, sizeof(*lb->alias));
		memset(lb->alias + lb->nalias, 0,
		       (cap - lb->nalias) * sizeof(*lb->alias));
		lb->nalias = cap;
	}
	al = &lb->alias[id];
	h = (uint32_t)hash_bytes(alias, n);
	if (al->set) {
		i = alias_probe(al, alias, h);
		if (al->set[i])
			return;
	} else {
		for (i = 0; i < al->n; i++)
			if (al->hash[i] == h && !strcmp(al->v[i], alias))
				return;
	}
	cap = al->cap;
	xgrow(&al->v, &cap, al->n + 1, sizeof(*al->v));
	cap = al->cap;
	xgrow(&al->hash, &cap, al->n + 1, sizeof(*al->hash));
	al->cap = cap;
	al->v[al->n] = arena_dup(lb, alias, n);
	al->hash[al->n] = h;
	al->n++;
	if (al->n > ALIAS_LINEAR) {
		if (!al->set || 2 * (al->n + 1) > al->nset)
			alias_rehash(al);
		else
			al->set[alias_probe(al, al->v[al->n - 1], h)] = al->n;
	}
}

const char *const *labels_aliases(const struct labels *lb, uint32_t id,
				  size_t *n)
{
	if (id >= lb->nalias || !lb->alias[id].n) {
		*n = 0;
		return NULL;
	}
	*n = lb->alias[id].n;
	return lb->alias[id].v;
}

void labels_set_pos(struct labels *lb, uint32_t id, uint64_t pos)
{
	size_t cap;

	if (id >= lb->count || pos == UINT64_MAX)
		return;
	if (id >= lb->npos) {
		cap = lb->npos;
		xgrow(&lb->pos, &cap, lb->count, sizeof(*lb->pos));
		memset(lb->pos + lb->npos, 0,
		       (cap - lb->npos) * sizeof(*lb->pos));
		lb->npos = cap;
	}
	lb->pos[id] = pos + 1;
}

bool labels_pos(const struct labels *lb, uint32_t id, uint64_t *pos)
{
	if (id >= lb->npos || !lb->pos[id])
		return false;
	*pos = lb->pos[id] - 1;
	return true;
}
