/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stackref: the last user stack copy of each thread, as the writer and
 * the reader of a PACKED record both keep it. A SAMPLE inside a PACKED
 * record may leave out the top bytes of its stack that equal the same
 * addresses of the previous SAMPLE of its thread in that record (see
 * memsz-data(5)): successive page faults of a thread mostly share their
 * outer frames, so most of each copy need not be stored at all.
 */
#ifndef MEMSZ_DATA_STACKREF_H
#define MEMSZ_DATA_STACKREF_H

#include <stddef.h>
#include <stdint.h>

#include "util/hashmap.h"

/* The stack a thread's previous sample carried: [sp, sp + size). */
struct stackref_slot {
	uint32_t pid, tid;
	uint32_t gen; /* valid while it equals the table's gen */
	uint32_t size;
	uint64_t sp;
	uint8_t *buf, *spare; /* the bytes, and room for the next copy */
	size_t cap, spare_cap;
};

struct stackref {
	struct stackref_slot *slots; /* n threads, in order of first sight */
	size_t cap, n;
	struct hashmap index; /* of slots, by (pid, tid) */
	uint32_t gen;	      /* 0 until the first use */
};

/* The slot of (pid, tid), created if needed; NULL when the table is at
 * STACKREF_MAX_THREADS (that thread's stacks are then stored whole until
 * the next reset, which empties a full table). A slot whose gen differs
 * from the table's holds nothing usable. Borrowed: valid until the next
 * stackref_slot() or stackref_free(). */
struct stackref_slot *stackref_slot(struct stackref *t, uint32_t pid,
				    uint32_t tid);
#define STACKREF_MAX_THREADS 4096

/* Forget every stack (a new PACKED record begins), and free the copies
 * of the threads that took no sample in the record that ends: the stack
 * bytes held are those of the threads of one PACKED record, plus a few
 * bytes per slot (at most STACKREF_MAX_THREADS). */
void stackref_reset(struct stackref *t);
void stackref_free(struct stackref *t);

/* How many top bytes of stack [sp, sp + size) equal the same addresses
 * of the slot's stack: 0 unless the slot is current and covers the top
 * byte. */
uint32_t stackref_common_top(const struct stackref *t,
			     const struct stackref_slot *s, uint64_t sp,
			     const uint8_t *stack, uint32_t size);

/* Make [sp, sp + size) the slot's stack: its first size - reused bytes
 * are stored, the rest is the slot's current stack at the same addresses
 * (reused <= what stackref_common_top allows). Returns the slot's copy,
 * or NULL if reused bytes are not covered by it. */
const uint8_t *stackref_set(struct stackref *t, struct stackref_slot *s,
			    uint64_t sp, const uint8_t *stored, uint32_t size,
			    uint32_t reused);

#endif
