// SPDX-License-Identifier: GPL-2.0-or-later
/* rep_bbs.c — a function whose basic blocks lie on known pages, for the
 * `memsz report --by symbols,bbs` test (built at test time with clang
 * -fbasic-block-sections=labels, as a PIE).
 *
 * bb_fn starts a 64 KiB-aligned section of its own: its hot blocks (the
 * entry and the return) fill the first bytes of its first page, and its
 * cold block (never run) holds 12 KiB of nops that run onto the next three
 * pages. bb_fn(1) runs the hot path only. Fault-around maps neighbouring
 * page-cache pages on the read fault, so every page of the section but the
 * first is unmapped again (MADV_DONTNEED on a private file mapping drops
 * only our page table entries).
 *
 * Prints "ready PID bb_fn=ADDR" and waits (pause) until killed.
 */
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#define PAGE 4096

__attribute__((section("memsz_bb"), aligned(65536), noinline)) int bb_fn(int x)
{
	int r = x * 3;

	if (__builtin_expect(x == 777, 0)) {
		__asm__ volatile(".skip 12288, 0x90");
		r += 5;
	}
	return r + 1;
}

/* Keeps whatever the linker puts after the section 64 KiB away. */
__attribute__((section("memsz_bb"), aligned(65536), noinline)) int bb_end(int x)
{
	return x - 1;
}

int main(void)
{
	int (*volatile fn)(int) = bb_fn;
	uintptr_t start = (uintptr_t)bb_fn;
	volatile int sum;

	prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
	madvise((void *)start, 65536, MADV_RANDOM);
	sum = fn(1);
	for (uintptr_t p = start + PAGE; p < start + 65536; p += PAGE)
		madvise((void *)p, PAGE, MADV_DONTNEED);
	printf("ready %d bb_fn=%lx\n", (int)getpid(), (unsigned long)start);
	fflush(stdout);
	for (;;)
		pause();
	return sum;
}
