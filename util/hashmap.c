// SPDX-License-Identifier: GPL-2.0-or-later
/* hashmap.c — see hashmap.h. */
#include "util/hashmap.h"

#include <stdlib.h>
#include <string.h>

#include "util/util.h"

#define HASHMAP_MIN_SLOTS 16

/* Store (hash, idx + 1) in the first empty slot of its probe sequence. */
static void place(struct hashmap *m, uint32_t hash, uint32_t idx1)
{
	size_t i = hash & m->mask;

	while (m->slots[i].idx1)
		i = (i + 1) & m->mask;
	m->slots[i].hash = hash;
	m->slots[i].idx1 = idx1;
}

/* Move every entry to a table of nslots slots (a power of two). */
static void resize(struct hashmap *m, size_t nslots)
{
	struct hashmap_slot *old = m->slots;
	size_t nold = old ? m->mask + 1 : 0;

	if (nslots > SIZE_MAX / sizeof(*old))
		abort();
	m->slots = xcalloc(nslots, sizeof(*old));
	m->mask = nslots - 1;
	for (size_t i = 0; i < nold; i++)
		if (old[i].idx1)
			place(m, old[i].hash, old[i].idx1);
	free(old);
}

void hashmap_put(struct hashmap *m, const struct hashmap_probe *p, uint32_t idx)
{
	if (idx == HASHMAP_NONE)
		abort(); /* the owner's array passed 4G entries */
	if (!m->slots) {
		resize(m, HASHMAP_MIN_SLOTS);
		place(m, p->hash, idx + 1);
	} else {
		m->slots[p->i].hash = p->hash;
		m->slots[p->i].idx1 = idx + 1;
	}
	if (++m->n * 2 > m->mask + 1)
		resize(m, (m->mask + 1) * 2);
}

void hashmap_add(struct hashmap *m, uint32_t hash, uint32_t idx)
{
	struct hashmap_probe p = {.i = hash & m->mask, .hash = hash};

	while (m->slots && m->slots[p.i].idx1)
		p.i = (p.i + 1) & m->mask;
	hashmap_put(m, &p, idx);
}

void hashmap_reserve(struct hashmap *m, size_t n)
{
	size_t nslots = m->slots ? m->mask + 1 : HASHMAP_MIN_SLOTS;

	/* hashmap_put() grows once entries pass half the slots */
	while (n * 2 > nslots) {
		if (nslots > SIZE_MAX / 2)
			abort();
		nslots *= 2;
	}
	if (!m->slots || nslots > m->mask + 1) {
		resize(m, nslots);
		/* the puts to come write all over the slots: resident now,
		 * in one call (libLLVM-14's labels: 260 faults, half of them
		 * a read of the zero page first) */
		prefault_write(m->slots, nslots * sizeof(*m->slots));
	}
}

void hashmap_clear(struct hashmap *m)
{
	size_t nslots = m->slots ? m->mask + 1 : 0;

	if (nslots > 4 * MAX(m->n, (size_t)HASHMAP_MIN_SLOTS)) {
		hashmap_free(m);
		return;
	}
	if (m->slots)
		memset(m->slots, 0, nslots * sizeof(*m->slots));
	m->n = 0;
}

void hashmap_free(struct hashmap *m)
{
	if (!m)
		return;
	free(m->slots);
	memset(m, 0, sizeof(*m));
}

/* 8 bytes at a time, each step and the end mixed with the multipliers of
 * MurmurHash3's and SplitMix64's finalizers. */
uint32_t hashmap_hash_bytes(const void *p, size_t n)
{
	const unsigned char *s = p;
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
	return (uint32_t)h;
}
