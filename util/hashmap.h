/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hashmap.h — the one hash table of memsz: open addressing, linear
 * probing, at most half full, doubling.
 *
 * It maps a key to a uint32_t index into an array its owner keeps (the
 * interned strings, a palette, the children of a row, the threads...): it
 * never sees a key, only the key's 32-bit hash, which it stores beside the
 * index. A probe compares hashes before the owner compares keys, and the
 * table grows without asking for them. The owner's array is dense and in
 * insertion order, which also gives a stable order to walk. Entries are
 * not removed one by one; hashmap_clear() empties the table.
 *
 * A lookup is a loop over the candidates whose hash matches, the owner
 * comparing keys; when it ends, the probe has found the slot for a put:
 *
 *	struct hashmap_probe p;
 *	uint32_t i;
 *
 *	for (i = hashmap_first(&m, h, &p); i != HASHMAP_NONE;
 *	     i = hashmap_next(&m, &p))
 *		if (entry_equal(&entries[i], key))
 *			return i;
 *	i = append_entry(key);
 *	hashmap_put(&m, &p, i);
 *
 * The probe functions are inline, so the owner's comparison is too.
 * A zeroed struct hashmap is an empty table; free with hashmap_free().
 */
#ifndef MEMSZ_UTIL_HASHMAP_H
#define MEMSZ_UTIL_HASHMAP_H

#include <stddef.h>
#include <stdint.h>

/* No index: the end of a probe. Also the one index that cannot be put. */
#define HASHMAP_NONE UINT32_MAX

struct hashmap_slot {
	uint32_t hash;
	uint32_t idx1; /* index + 1; 0: empty */
};

struct hashmap {
	struct hashmap_slot *slots; /* NULL until the first put */
	size_t mask;		    /* slots - 1; a power of two less one */
	size_t n;		    /* entries */
};

/* A lookup in progress: where it is, and the hash it looks for. */
struct hashmap_probe {
	size_t i;
	uint32_t hash;
};

/* The next index whose hash is the probe's, or HASHMAP_NONE at the end,
 * where p is left on the empty slot that hashmap_put() fills. Only after
 * hashmap_first() or hashmap_next() gave an index. */
static inline uint32_t hashmap_next(const struct hashmap *m,
				    struct hashmap_probe *p)
{
	for (;;) {
		const struct hashmap_slot *s = &m->slots[p->i];

		if (!s->idx1)
			return HASHMAP_NONE;
		p->i = (p->i + 1) & m->mask;
		if (s->hash == p->hash)
			return s->idx1 - 1;
	}
}

/* Start a lookup of hash: the first index stored with it, or
 * HASHMAP_NONE. */
static inline uint32_t hashmap_first(const struct hashmap *m, uint32_t hash,
				     struct hashmap_probe *p)
{
	p->hash = hash;
	p->i = hash & m->mask;
	if (!m->slots)
		return HASHMAP_NONE;
	return hashmap_next(m, p);
}

/* Ask for the cache line of hash's first slot, for a hashmap_first()
 * of it some work later (its slot is fetched meanwhile). */
static inline void hashmap_prefetch(const struct hashmap *m, uint32_t hash)
{
	if (m->slots)
		__builtin_prefetch(&m->slots[hash & m->mask]);
}

/* Store idx (below HASHMAP_NONE) under the hash of p, a lookup that just
 * ended with HASHMAP_NONE on m and no put since. May grow the table. */
void hashmap_put(struct hashmap *m, const struct hashmap_probe *p,
		 uint32_t idx);

/* Store idx (below HASHMAP_NONE) under hash without a lookup, for an
 * entry the owner knows is not in m yet (indexing entries it already
 * has). May grow the table. */
void hashmap_add(struct hashmap *m, uint32_t hash, uint32_t idx);

/* Grow the table now to hold n entries without growing again: for an
 * owner about to add many (each doubling rehashes every entry and
 * touches fresh memory). Never shrinks it. */
void hashmap_reserve(struct hashmap *m, size_t n);

/* Forget every entry. Keeps the slots unless they are far more than the
 * entries had, so that emptying costs what filling did. */
void hashmap_clear(struct hashmap *m);

/* Free the slots; m is an empty table again. NULL is fine. */
void hashmap_free(struct hashmap *m);

/* A 32-bit hash of n bytes at p, every bit of the input reaching every bit
 * of the result. */
uint32_t hashmap_hash_bytes(const void *p, size_t n);

/* A 32-bit hash of a 64-bit key (MurmurHash3's finalizer). */
static inline uint32_t hashmap_hash_u64(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	k *= 0xc4ceb9fe1a85ec53ULL;
	k ^= k >> 33;
	return (uint32_t)k;
}

#endif
