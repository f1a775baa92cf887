// SPDX-License-Identifier: GPL-2.0-or-later
/* stackref: the last stack copy of each thread (see stackref.h). */
#include "config.h"

#include "data/stackref.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

/* Compared from the top down in blocks of CMP_BIG bytes, then the block
 * that differs in blocks of CMP_SMALL, then byte by byte: most of a stack
 * usually repeats, and one memcmp() a KiB costs far less than sixteen. */
#define CMP_BIG 1024
#define CMP_SMALL 64

struct stackref_slot *stackref_slot(struct stackref *t, uint32_t pid,
				    uint32_t tid)
{
	struct hashmap_probe p;
	struct stackref_slot *s;
	uint32_t i;

	if (!t->gen)
		t->gen = 1;
	for (i = hashmap_first(&t->index,
			       hashmap_hash_u64((uint64_t)pid << 32 | tid), &p);
	     i != HASHMAP_NONE; i = hashmap_next(&t->index, &p))
		if (t->slots[i].pid == pid && t->slots[i].tid == tid)
			return &t->slots[i];
	if (t->n >= STACKREF_MAX_THREADS)
		return NULL;
	xgrow(&t->slots, &t->cap, t->n + 1, sizeof(*t->slots));
	s = &t->slots[t->n];
	memset(s, 0, sizeof(*s));
	s->pid = pid;
	s->tid = tid;
	hashmap_put(&t->index, &p, (uint32_t)t->n++);
	return s;
}

/* Free the copies of the threads that took no sample since the last
 * reset: a PACKED record refers only to its own samples, so they can
 * never be used again. Their slots stay (a few bytes each): which
 * threads have one decides, in the writer as in every reader, when the
 * table is full, and must not change. The threads of the record that
 * ends keep their buffers for the next one. */
static void drop_unused(struct stackref *t)
{
	for (size_t i = 0; i < t->n; i++) {
		struct stackref_slot *s = &t->slots[i];

		if (s->gen == t->gen || (!s->buf && !s->spare))
			continue;
		free(s->buf);
		free(s->spare);
		s->buf = s->spare = NULL;
		s->cap = s->spare_cap = 0;
		s->size = 0;
	}
}

void stackref_reset(struct stackref *t)
{
	/* A table filled by threads come and gone starts over; writer and
	 * reader reset at the same records, so they do it alike. */
	if (t->n >= STACKREF_MAX_THREADS) {
		stackref_free(t);
		return;
	}
	drop_unused(t);
	/* gen 0 is never current; wrapping to it skips to 1 and clears
	 * every slot's gen so that none comes back to life */
	if (++t->gen == 0) {
		for (size_t i = 0; i < t->n; i++)
			t->slots[i].gen = 0;
		t->gen = 1;
	}
}

void stackref_free(struct stackref *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->slots[i].buf);
		free(t->slots[i].spare);
	}
	free(t->slots);
	hashmap_free(&t->index);
	memset(t, 0, sizeof(*t));
}

/* Extend same, the equal bytes at the ends of a and b (n bytes each), by
 * whole blocks of block bytes while they are equal. */
static uint32_t same_top(const uint8_t *a, const uint8_t *b, uint32_t n,
			 uint32_t same, uint32_t block)
{
	while (n - same >= block &&
	       !memcmp(a + n - same - block, b + n - same - block, block))
		same += block;
	return same;
}

uint32_t stackref_common_top(const struct stackref *t,
			     const struct stackref_slot *s, uint64_t sp,
			     const uint8_t *stack, uint32_t size)
{
	uint64_t top = sp + size, lo;
	const uint8_t *a, *b;
	uint32_t n, same = 0;

	if (!s || s->gen != t->gen || !size || top > s->sp + s->size ||
	    top <= s->sp)
		return 0;
	lo = MAX(sp, s->sp);
	n = (uint32_t)(top - lo);
	a = stack + (lo - sp);	   /* this stack from lo */
	b = s->buf + (lo - s->sp); /* the slot's from lo */
	same = same_top(a, b, n, same, CMP_BIG);
	same = same_top(a, b, n, same, CMP_SMALL);
	while (same < n && a[n - same - 1] == b[n - same - 1])
		same++;
	return same;
}

const uint8_t *stackref_set(struct stackref *t, struct stackref_slot *s,
			    uint64_t sp, const uint8_t *stored, uint32_t size,
			    uint32_t reused)
{
	uint32_t nstored = size - reused;
	uint8_t *tmp;
	size_t tcap;

	if (reused > size)
		return NULL;
	if (reused) {
		uint64_t from = sp + nstored;

		if (s->gen != t->gen || from < s->sp || reused > s->size ||
		    from - s->sp > s->size - reused)
			return NULL;
		/* same place, same size: only the stored part changes */
		if (sp == s->sp && size == s->size) {
			memcpy(s->buf, stored, nstored);
			return s->buf;
		}
		xgrow(&s->spare, &s->spare_cap, size, 1);
		memcpy(s->spare + nstored, s->buf + (from - s->sp), reused);
	} else {
		xgrow(&s->spare, &s->spare_cap, MAX(size, 1u), 1);
	}
	memcpy(s->spare, stored, nstored);
	tmp = s->buf;
	tcap = s->cap;
	s->buf = s->spare;
	s->cap = s->spare_cap;
	s->spare = tmp;
	s->spare_cap = tcap;
	s->sp = sp;
	s->size = size;
	s->gen = t->gen;
	return s->buf;
}
