// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_perf.c — libFuzzer target: the perf ring and record parsers.
 *
 * Input: byte 0 chooses the sampling event's sample_type (bit i of it
 * enables the i-th of IP, TID, TIME, ADDR, CALLCHAIN, REGS_USER,
 * STACK_USER, IDENTIFIER), byte 1 the user register mask (popcount
 * 0..24 of the x86-64 set), byte 2 where in the ring the records start
 * (so that records wrap its end); the rest is the ring's content from
 * there. Every record perf_ring_consume hands out goes through
 * perf_decode and perf_decode_sample. */
#include "config.h"

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "record/perf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void one(const void *raw, size_t len, void *arg)
{
	const struct perf_event_attr *a = arg;
	struct perf_rec rec;
	struct md_sample s;

	perf_decode(raw, len, &rec);
	perf_decode_sample(a, raw, len, &s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint64_t types[] = {
	    PERF_SAMPLE_IP,	    PERF_SAMPLE_TID,
	    PERF_SAMPLE_TIME,	    PERF_SAMPLE_ADDR,
	    PERF_SAMPLE_CALLCHAIN,  PERF_SAMPLE_REGS_USER,
	    PERF_SAMPLE_STACK_USER, PERF_SAMPLE_IDENTIFIER,
	};
	struct perf_event_attr a = {.size = sizeof(a)};
	uint64_t ring_size = 64, tail, n;
	uint8_t *ring;

	if (size < 3)
		return 0;
	for (int i = 0; i < 8; i++)
		if (data[0] & (1u << i))
			a.sample_type |= types[i];
	/* AX..FLAGS, CS, SS, R8..R15 (DS, ES, FS, GS are not sampled) */
	a.sample_regs_user = 0xff0fffull & ((1ull << (data[1] % 25)) - 1);
	a.sample_stack_user = 512;
	n = size - 3;
	while (ring_size < n)
		ring_size *= 2;
	ring = calloc(1, ring_size);
	if (!ring)
		return 0;
	tail = (uint64_t)data[2] * 8 % ring_size;
	for (uint64_t i = 0; i < n; i++)
		ring[(tail + i) % ring_size] = data[3 + i];
	perf_ring_consume(ring, ring_size, tail, tail + n, one, &a);
	free(ring);
	return 0;
}
