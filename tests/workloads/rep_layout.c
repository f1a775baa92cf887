// SPDX-License-Identifier: GPL-2.0-or-later
/* rep_layout.c — a workload with a known memory layout for `memsz report`
 * tests (built at test time as a PIE).
 *
 *  - big: a 16 MiB const array (.rodata) of which exactly the pages of
 *    [4 MiB, 9 MiB) are read;
 *  - hot_a .. hot_d: functions on pages of their own (section "memsz_hot",
 *    4 KiB aligned, 64 KiB away from other code); hot_a and hot_c are
 *    called, hot_b and hot_d are not;
 *  - ptrs: 64 Ki pointers in .data.rel.ro, relocated by ld.so at start,
 *    so their pages are private dirty;
 *  - bss_buf: 8 MiB of .bss of which the first 3 MiB are written;
 *  - with "fork": a 4 MiB anonymous region written before fork(); the child
 *    shares it with the parent (PSS halves).
 *
 * Fault-around maps neighbouring page-cache pages on each read fault, so
 * after touching, the pages of big and of the hot section that were not
 * touched on purpose are unmapped again (MADV_DONTNEED).
 *
 * Prints "ready PID [CHILD_PID] anon=ADDR" and waits (pause) until killed.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define MiB (1024 * 1024)
#define PAGE 4096

__attribute__((aligned(65536))) const char big[16 * MiB] = {1};

#define HOT(name, v)                                                           \
	__attribute__((section("memsz_hot"), aligned(PAGE), noinline)) int     \
	name(int x)                                                            \
	{                                                                      \
		return x * (v) + 1;                                            \
	}
__attribute__((section("memsz_hot"), aligned(65536), noinline)) int hot_a(int x)
{
	return x * 3 + 1;
}
HOT(hot_b, 5)
HOT(hot_c, 7)
HOT(hot_d, 11)
/* Keeps whatever the linker puts after the hot section 64 KiB away. */
__attribute__((section("memsz_hot"), aligned(65536), noinline)) int
hot_end(int x)
{
	return x - 1;
}

static int target;
#define P1 &target,
#define P8 P1 P1 P1 P1 P1 P1 P1 P1
#define P64 P8 P8 P8 P8 P8 P8 P8 P8
#define P512 P64 P64 P64 P64 P64 P64 P64 P64
#define P4K P512 P512 P512 P512 P512 P512 P512 P512
#define P64K P4K P4K P4K P4K P4K P4K P4K P4K P4K P4K P4K P4K P4K P4K P4K P4K
__attribute__((aligned(PAGE))) int *const ptrs[65536] = {P64K};

char bss_buf[8 * MiB] __attribute__((aligned(PAGE)));

/* Unmap from this process every page of [start, end) except those in
 * [keep_a, keep_a + PAGE) and [keep_b, keep_b + PAGE): MADV_DONTNEED on a
 * private file mapping only drops our page table entries. */
static void zap_except(const char *start, const char *end, uintptr_t keep_a,
		       uintptr_t keep_b)
{
	for (const char *p = start; p < end; p += PAGE) {
		uintptr_t u = (uintptr_t)p;

		if (u == keep_a || u == keep_b)
			continue;
		madvise((void *)p, PAGE, MADV_DONTNEED);
	}
}

#define PAGE_OF(p) ((uintptr_t)(p) & ~(uintptr_t)(PAGE - 1))

int main(int argc, char **argv)
{
	volatile int sum = 0;
	int (*volatile fa)(int) = hot_a, (*volatile fc)(int) = hot_c;
	char *anon = NULL;
	pid_t child = 0;

	/* No PMD mappings of large page-cache folios: a 2 MiB mapping would
	 * bring in (and a partial unmap take away) 2 MiB at a time. */
	prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
	madvise((void *)big, sizeof(big), MADV_RANDOM);
	madvise((void *)PAGE_OF(hot_a), 65536, MADV_RANDOM);
	for (size_t off = 4 * MiB; off < 9 * MiB; off += PAGE)
		sum += ((const volatile char *)big)[off];
	sum += fa(1) + fc(2);
	/* Fault-around maps up to 16 neighbouring page-cache pages on a read
	 * fault (and the cache may hold the file in large folios): drop
	 * whatever came in beyond the pages touched on purpose. */
	zap_except(big, big + 4 * MiB, 0, 0);
	zap_except(big + 9 * MiB, big + sizeof(big), 0, 0);
	zap_except((const char *)PAGE_OF(hot_a),
		   (const char *)PAGE_OF(hot_a) + 65536, PAGE_OF(hot_a),
		   PAGE_OF(hot_c));
	memset(bss_buf, 1, 3 * MiB);
	sum += *ptrs[1];

	if (argc > 1 && !strcmp(argv[1], "fork")) {
		anon = mmap(NULL, 4 * MiB, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (anon == MAP_FAILED)
			return 1;
		memset(anon, 7, 4 * MiB);
		child = fork();
		if (child < 0)
			return 1;
		if (child == 0) {
			for (;;)
				pause();
		}
	}
	printf("ready %d %d anon=%lx\n", (int)getpid(), (int)child,
	       (unsigned long)(uintptr_t)anon);
	fflush(stdout);
	for (;;)
		pause();
	return sum;
}
