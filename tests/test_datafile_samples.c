// SPDX-License-Identifier: GPL-2.0-or-later
/* test_datafile_samples.c — samples in memsz.data: PACKED (zstd) batches,
 * and the stack bytes a sample shares with its thread's previous one. */
#include "config.h"

#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "data/datafile.h"
#include "data/dfcodec.h"
#include "data/stackref.h"
#include "tests/datafile_fixture.h"
#include "tests/testutil.h"
#include "util/util.h"

/* Write n samples with stacks that repeat (as real ones do) to path,
 * compressed or not. */
static void write_samples(const char *path, int n, bool compress)
{
	static uint64_t regs[3] = {1, 2, 0x7ffc00001000};
	uint8_t stack[3000];
	struct md_writer *w;

	for (size_t i = 0; i < sizeof(stack); i++)
		stack[i] = (uint8_t)(i * 7);
	assert_int_equal(md_writer_open(path, &w), 0);
	md_writer_set_compress(w, compress);
	for (int i = 0; i < n; i++) {
		struct md_sample sm = {
		    .time = 1000 + i,
		    .pid = 9,
		    .tid = 10 + i % 3,
		    .addr = 0x10000000 + 4096ull * i,
		    .ip = 0x401000 + i,
		    .abi = 2,
		    .regs_mask = 0x181,
		    .regs = regs,
		    .nregs = 3,
		    .stack_sp = 0x7ffc00001000,
		    .stack = stack,
		    .stack_size = 1000 + i % 2000,
		};

		stack[0] = (uint8_t)i;
		assert_int_equal(md_write_sample(w, &sm), 0);
	}
	assert_int_equal(md_write_note_kind(w, MD_NOTE_OTHER, NULL, "after"),
			 0);
	assert_int_equal(md_writer_commit(w), 0);
	assert_int_equal(md_writer_close(w), 0);
}

/* Read back what write_samples wrote; returns the flags seen. */
static uint32_t check_samples(const char *path, int n)
{
	struct md_reader *r;
	struct md_record rec;
	uint32_t flags = 0;

	assert_int_equal(md_reader_open(path, &r), 0);
	for (int i = 0; i < n; i++) {
		const struct md_sample *sm = &rec.u.sample;

		assert_int_equal(md_read_next(r, &rec), 1);
		assert_int_equal(rec.type, MD_REC_SAMPLE);
		flags |= rec.rec_flags;
		assert_int_equal(sm->time, 1000 + i);
		assert_int_equal(sm->tid, 10 + i % 3);
		assert_int_equal(sm->addr, 0x10000000 + 4096ull * i);
		assert_int_equal(sm->nregs, 3);
		assert_int_equal(sm->regs[2], 0x7ffc00001000);
		assert_int_equal(sm->stack_size, 1000 + i % 2000);
		assert_int_equal(sm->stack[0], (uint8_t)i);
		assert_int_equal(sm->stack[999], (uint8_t)(999 * 7));
	}
	assert_int_equal(md_read_next(r, &rec), 1);
	assert_int_equal(rec.type, MD_REC_NOTE);
	assert_int_equal(md_read_next(r, &rec), 1);
	assert_int_equal(rec.type, MD_REC_END);
	assert_int_equal(rec.u.end.nsamples, (uint64_t)n);
	assert_int_equal(md_read_next(r, &rec), 0);
	md_reader_close(r);
	return flags;
}

/* Sample batches are PACKED (zstd) when that is smaller, and read back
 * record by record; plain SAMPLE records (older files) read the same; a
 * damaged PACKED record is refused at its offset. */
static void test_packed(void **state)
{
	char *plain = tpath("plain.data"), *packed = tpath("packed.data");
	const int n = 5000; /* about 8 MiB of samples: more than a batch */
	struct md_reader *r;
	size_t lp, lz;
	uint8_t *raw, b[8];
	uint64_t off;

	write_samples(plain, n, false);
	write_samples(packed, n, true);
	raw = read_file(plain, &lp);
	assert_int_equal(raw[64], MD_REC_SAMPLE);
	free(raw);
	raw = read_file(packed, &lz);
	assert_int_equal(raw[64], MD_REC_PACKED);
	free(raw);
	assert_true(lz * 10 < lp);
	assert_int_equal(check_samples(plain, n), 0);
	assert_int_equal(check_samples(packed, n), MD_RECF_PACKED);

	/* a byte of the zstd frame flipped */
	raw = read_file(packed, &lz);
	b[0] = raw[64 + 16 + 24 + 40] ^ 0x55;
	free(raw);
	assert_int_equal(open_patched(packed, 64 + 16 + 24 + 40, b, 1, &r), 0);
	assert_int_equal(read_until_error(r, &off), -MEMSZ_EBADDATA);
	assert_int_equal(off, 64);
	/* a record count that does not match the records inside */
	put_le32(b, 7);
	assert_int_equal(open_patched(packed, 64 + 16 + 4, b, 4, &r), 0);
	assert_int_equal(read_until_error(r, &off), -MEMSZ_EBADDATA);
	assert_int_equal(off, 64);
	/* an unknown codec; a raw size that is not a multiple of 8 */
	put_le32(b, 2);
	assert_int_equal(open_patched(packed, 64 + 16, b, 4, &r), 0);
	assert_int_equal(read_until_error(r, &off), -MEMSZ_EBADDATA);
	put_le64(b, 12);
	assert_int_equal(open_patched(packed, 64 + 16 + 8, b, 8, &r), 0);
	assert_int_equal(read_until_error(r, &off), -MEMSZ_EBADDATA);
	free(plain);
	free(packed);
	(void)state;
}

/* The stacks written by write_reuse: thread k's sample i has its stack
 * pointer moving up and down by up to 512 bytes, its low 700 bytes
 * changed and now and then a byte anywhere. */
#define REUSE_N 12000
#define REUSE_STACK 8192
#define REUSE_BASE (0x7ffc00010000ull - 512) /* the lowest sp */

static uint64_t reuse_sp(int i)
{
	return 0x7ffc00010000 - 8 * (uint64_t)((i * 37) % 64);
}

/* the stack's top stays, or ends a little lower (as dyn_size does) */
static uint32_t reuse_size(int i)
{
	return (uint32_t)(REUSE_BASE + REUSE_STACK + 512 - reuse_sp(i)) -
	       8 * (i % 16 == 0) - (i % 7 == 0);
}

/* The stack of sample i of a thread as write_reuse made it: img is the
 * thread's memory image from REUSE_BASE up (REUSE_STACK + 512 bytes),
 * changed by step i. */
static void reuse_step(uint8_t *img, uint64_t *seed, int i)
{
	const size_t len = REUSE_STACK + 512;

	/* the part near the lowest sp changes at every sample */
	for (int k = 0; k < 64; k++) {
		*seed = *seed * 6364136223846793005ull + 1;
		img[(size_t)(*seed >> 33) % 700] ^= (uint8_t)(*seed >> 40);
	}
	if (i % 97 == 0) /* and now and then an outer frame */
		img[(size_t)(*seed >> 33) % len] ^= 0x5a;
}

static void write_reuse(const char *path, uint8_t img[3][REUSE_STACK + 512])
{
	static uint64_t regs[1] = {7};
	uint64_t seed[3] = {1, 2, 3};
	struct md_writer *w;

	for (int k = 0; k < 3; k++)
		for (size_t b = 0; b < REUSE_STACK + 512; b++)
			img[k][b] = (uint8_t)(b * 13 + k);
	assert_int_equal(md_writer_open(path, &w), 0);
	for (int i = 0; i < REUSE_N; i++) {
		int k = i % 3;
		uint64_t sp = reuse_sp(i / 3);
		struct md_sample sm = {
		    .time = 1000 + i,
		    .pid = 9,
		    .tid = 10 + k,
		    .abi = 2,
		    .regs_mask = 1,
		    .regs = regs,
		    .nregs = 1,
		    .stack_sp = sp,
		    .stack_size = reuse_size(i / 3),
		};

		reuse_step(img[k], &seed[k], i / 3);
		sm.stack = img[k] + (sp - REUSE_BASE);
		assert_int_equal(md_write_sample(w, &sm), 0);
		if (i == REUSE_N / 2) /* a batch ends before its time */
			assert_int_equal(md_write_note_kind(w, MD_NOTE_OTHER,
							    NULL, "middle"),
					 0);
	}
	assert_int_equal(md_writer_commit(w), 0);
	assert_int_equal(md_writer_close(w), 0);
}

/* A thread with no sample in a PACKED record loses its stack copies at
 * the next reset (data/stackref.h); one that sampled keeps them, and the
 * idle one's slot still counts for when the table is full. */
static void test_stackref_idle_freed(void **state)
{
	static const uint8_t stack[256] = {1, 2, 3};
	struct stackref t = {0};
	struct stackref_slot *a, *b;

	(void)state;
	a = stackref_slot(&t, 1, 1);
	assert_non_null(stackref_set(&t, a, 0x1000, stack, 256, 0));
	b = stackref_slot(&t, 1, 2);
	assert_non_null(stackref_set(&t, b, 0x1000, stack, 256, 0));
	stackref_reset(&t);
	a = stackref_slot(&t, 1, 1); /* only thread 1 samples */
	assert_non_null(stackref_set(&t, a, 0x1000, stack, 256, 0));
	stackref_reset(&t);
	assert_int_equal(t.n, 2);
	a = stackref_slot(&t, 1, 1);
	b = stackref_slot(&t, 1, 2);
	assert_non_null(a->buf);
	assert_null(b->buf);
	assert_null(b->spare);
	assert_int_equal(stackref_common_top(&t, b, 0x1000, stack, 256), 0);
	assert_null(stackref_set(&t, b, 0x1000, stack, 256, 8));
	assert_non_null(stackref_set(&t, b, 0x1000, stack, 256, 0));
	assert_int_equal(stackref_common_top(&t, b, 0x1000, stack, 256), 256);
	stackref_free(&t);
}

/* In a PACKED record, a sample leaves out the top of its stack that its
 * thread's previous sample held: every stack reads back whole, byte for
 * byte, across batches; one that refers to bytes no previous sample of
 * its thread held (or outside a PACKED record) is refused at its
 * offset. */
static void test_stack_reuse(void **state)
{
	static uint8_t img[3][REUSE_STACK + 512], want[3][REUSE_STACK + 512];
	char *path = tpath("reuse.data");
	uint64_t seed[3] = {1, 2, 3}, stored = 0, total = 0, off;
	struct md_reader *r;
	struct md_record rec;
	size_t len;
	uint8_t *raw, b[8];
	int notes = 0;

	write_reuse(path, img);
	for (int k = 0; k < 3; k++)
		for (size_t x = 0; x < REUSE_STACK + 512; x++)
			want[k][x] = (uint8_t)(x * 13 + k);
	assert_int_equal(md_reader_open(path, &r), 0);
	for (int i = 0; i < REUSE_N; i++) {
		const struct md_sample *sm = &rec.u.sample;
		int k = i % 3;

		assert_int_equal(md_read_next(r, &rec), 1);
		if (rec.type == MD_REC_NOTE) {
			notes++;
			assert_int_equal(md_read_next(r, &rec), 1);
		}
		assert_int_equal(rec.type, MD_REC_SAMPLE);
		assert_int_equal(rec.rec_flags, MD_RECF_PACKED);
		reuse_step(want[k], &seed[k], i / 3);
		assert_int_equal(sm->tid, 10 + k);
		assert_int_equal(sm->stack_sp, reuse_sp(i / 3));
		assert_int_equal(sm->stack_size, reuse_size(i / 3));
		assert_memory_equal(sm->stack,
				    want[k] + (sm->stack_sp - REUSE_BASE),
				    sm->stack_size);
		total += sm->stack_size;
		stored += sm->stack_size - sm->stack_reused;
	}
	assert_int_equal(notes, 1);
	assert_int_equal(md_read_next(r, &rec), 1);
	assert_int_equal(rec.type, MD_REC_END);
	md_reader_close(r);
	/* about 1/4 of the samples have a top above the previous one's
	 * and are stored whole; of the others, up to 700 bytes */
	assert_true(stored > 0 && stored * 3 < total);

	/* a PACKED record stored as is (random stacks do not compress),
	 * whose first sample claims reused bytes: it has no previous one */
	{
		struct md_writer *w;
		static uint8_t noise[4 * 4096];
		static uint64_t regs[1] = {7};
		uint64_t x = 42;

		for (size_t i = 0; i < sizeof(noise); i++)
			noise[i] =
			    (uint8_t)((x = x * 6364136223846793005ull + 1) >>
				      56);
		assert_int_equal(md_writer_open(path, &w), 0);
		for (int i = 0; i < 4; i++) {
			struct md_sample sm = {
			    .time = 1 + i,
			    .pid = 9,
			    .tid = 10 + i,
			    .abi = 2,
			    .regs_mask = 1,
			    .regs = regs,
			    .nregs = 1,
			    .stack_sp = 0x7ffc00010000,
			    .stack = noise + 4096 * i,
			    .stack_size = 4096,
			};

			assert_int_equal(md_write_sample(w, &sm), 0);
		}
		assert_int_equal(md_writer_commit(w), 0);
		assert_int_equal(md_writer_close(w), 0);
	}
	raw = read_file(path, &len);
	assert_int_equal(raw[64], MD_REC_PACKED);
	assert_int_equal(raw[64 + 16], 0); /* codec none */
	free(raw);
	/* the reader's view of it is sound */
	assert_int_equal(md_reader_open(path, &r), 0);
	assert_int_equal(read_until_error(r, &off), 0);
	/* the first sample (at 64 + 16 + 24) claims 8 reused bytes on top
	 * of its 4096 stored ones */
	put_le32(b, 4104);
	put_le32(b + 4, 8);
	assert_int_equal(open_patched(path, 64 + 16 + 24 + 16 + 64, b, 8, &r),
			 0);
	assert_int_equal(read_until_error(r, &off), -MEMSZ_EBADDATA);
	assert_int_equal(off, 64);
	/* more reused bytes than the stack has */
	put_le32(b, 5000);
	assert_int_equal(open_patched(path, 64 + 16 + 24 + 16 + 68, b, 4, &r),
			 0);
	assert_int_equal(read_until_error(r, &off), -MEMSZ_EBADDATA);
	assert_int_equal(off, 64);

	/* more threads than the tables keep: those past the limit store
	 * their stacks whole, alike on both sides, until a batch ends and
	 * the tables start over */
	{
		struct md_writer *w;
		static uint8_t stk[2][512];
		static uint64_t regs[1] = {7};
		const int nt = STACKREF_MAX_THREADS + 500;

		for (size_t i = 0; i < sizeof(stk[0]); i++)
			stk[0][i] = stk[1][i] = (uint8_t)(i * 5);
		stk[1][0] = 1; /* the second sample differs below its top */
		assert_int_equal(md_writer_open(path, &w), 0);
		for (int i = 0; i < 4 * nt; i++) {
			struct md_sample sm = {
			    .time = 1 + i,
			    .pid = 9,
			    .tid = 100 + i % nt,
			    .abi = 2,
			    .regs_mask = 1,
			    .regs = regs,
			    .nregs = 1,
			    .stack_sp = 0x7ffc00010000,
			    .stack = stk[i / nt % 2],
			    .stack_size = 512,
			};

			assert_int_equal(md_write_sample(w, &sm), 0);
			if (i == 2 * nt) /* a batch ends */
				assert_int_equal(
				    md_write_note_kind(w, MD_NOTE_OTHER, NULL,
						       "m"),
				    0);
		}
		assert_int_equal(md_writer_commit(w), 0);
		assert_int_equal(md_writer_close(w), 0);
		assert_int_equal(md_reader_open(path, &r), 0);
		stored = 0;
		for (int i = 0; i < 4 * nt; i++) {
			const struct md_sample *sm = &rec.u.sample;

			assert_int_equal(md_read_next(r, &rec), 1);
			if (rec.type == MD_REC_NOTE)
				assert_int_equal(md_read_next(r, &rec), 1);
			assert_int_equal(sm->tid, 100 + i % nt);
			assert_memory_equal(sm->stack, stk[i / nt % 2], 512);
			stored += sm->stack_size - sm->stack_reused;
		}
		md_reader_close(r);
		/* reused: the second sample of each kept thread (the
		 * first batch) and of each thread in the second */
		assert_true(stored < (uint64_t)4 * nt * 512 -
					 (uint64_t)STACKREF_MAX_THREADS * 500);
	}
	free(path);

	/* outside a PACKED record no sample may reuse: 8 bytes on top of
	 * the 1000 the first one stores */
	path = tpath("plain.data");
	write_samples(path, 10, false);
	put_le32(b, 1008);
	put_le32(b + 4, 8);
	assert_int_equal(open_patched(path, 64 + 16 + 64, b, 8, &r), 0);
	assert_int_equal(read_until_error(r, &off), -MEMSZ_EBADDATA);
	assert_int_equal(off, 64);
	free(path);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_packed),
	    cmocka_unit_test(test_stack_reuse),
	    cmocka_unit_test(test_stackref_idle_freed),
	};

	return test_run_group(tests, datafile_setup, datafile_teardown);
}
