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

static size_t slot_hash(uint32_t pid, uint32_t tid, size_t cap)
{
	uint64_t k = ((uint64_t)pid << 32 | tid) * 0x9e3779b97f4a7c15ull;

	return (size_t)(k >> 32) & (cap - 1);
}

static struct stackref_slot *slot_find(struct stackref_slot *slots,
				       size_t cap, uint32_t pid,
				       uint32_t tid)
{
	size_t i = slot_hash(pid, tid, cap);

	while (slots[i].buf) {
		if (slots[i].pid == pid && slots[i].tid == tid)
			return &slots[i];
		i = (i + 1) & (cap - 1);
	}
	return &slots[i];
}

/* Double the table (kept at most half full). */
static void table_grow(struct stackref *t)
{
	size_t cap = t->cap ? t->cap * 2 : 64;
	struct stackref_slot *slots = xcalloc(cap, sizeof(*slots));

	for (size_t i = 0; i < t->cap; i++) {
		struct stackref_slot *s = &t->slots[i];

		if (s->buf)
			*slot_find(slots, cap, s->pid, s->tid) = *s;
	}
	free(t->slots);
	t->slots = slots;
	t->cap = cap;
}

struct stackref_slot *stackref_slot(struct stackref *t, uint32_t pid,
				    uint32_t tid)
{
	struct stackref_slot *s;

	if (!t->gen)
		t->gen = 1;
	if (t->cap) {
		s = slot_find(t->slots, t->cap, pid, tid);
		if (s->buf)
			return s;
	}
	if (t->n >= STACKREF_MAX_THREADS)
		return NULL;
	if (2 * (t->n + 1) > t->cap)
		table_grow(t);
	s = slot_find(t->slots, t->cap, pid, tid);
	memset(s, 0, sizeof(*s));
	s->pid = pid;
	s->tid = tid;
	/* a slot is in use once it has a buffer */
	s->cap = 64;
	s->buf = xmalloc(s->cap);
	t->n++;
	return s;
}

void stackref_reset(struct stackref *t)
{
	/* A table filled by threads come and gone starts over; writer and
	 * reader reset at the same records, so they do it alike. */
	if (t->n >= STACKREF_MAX_THREADS) {
		stackref_free(t);
		return;
	}
	/* gen 0 is never current; wrapping to it skips to 1 and clears
	 * every slot's gen so that none comes back to life */
	if (++t->gen == 0) {
		for (size_t i = 0; i < t->cap; i++)
			t->slots[i].gen = 0;
		t->gen = 1;
	}
}

void stackref_free(struct stackref *t)
{
	for (size_t i = 0; i < t->cap; i++) {
		free(t->slots[i].buf);
		free(t->slots[i].spare);
	}
	free(t->slots);
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
	a = stack + (lo - sp);      /* this stack from lo */
	b = s->buf + (lo - s->sp);  /* the slot's from lo */
	same = same_top(a, b, n, same, CMP_BIG);
	same = same_top(a, b, n, same, CMP_SMALL);
	while (same < n && a[n - same - 1] == b[n - same - 1])
		same++;
	return same;
}

const uint8_t *stackref_set(struct stackref *t, struct stackref_slot *s,
			    uint64_t sp, const uint8_t *stored,
			    uint32_t size, uint32_t reused)
{
	uint32_t nstored = size - reused;
	uint8_t *tmp;
	size_t tcap;

	if (reused > size)
		return NULL;
	if (reused) {
		uint64_t from = sp + nstored;

		if (s->gen != t->gen || from < s->sp ||
		    reused > s->size || from - s->sp > s->size - reused)
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
