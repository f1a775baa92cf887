// SPDX-License-Identifier: GPL-2.0-or-later
/* Workload of t2175: anonymous THP in one private MADV_HUGEPAGE mapping
 * aligned to 2 MiB. With the argument "zero": 8 MiB, every page read
 * (read faults: the huge zero page, PMD-mapped, where THP's
 * use_zero_page allows it), then the first 4 MiB written (write faults:
 * huge pages of its own, or 4 KiB pages where the kernel splits the
 * huge zero PMD), so that one mapping holds both. With "many N": N MiB,
 * every page written. Prints "z START END" (or "big START END") and
 * "ready", and stops itself. */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MIB (1ul << 20)
#define HUGE (2 * MIB)

int main(int argc, char **argv)
{
	int zero = argc > 1 && !strcmp(argv[1], "zero");
	size_t size = zero ? 8 * MIB : (argc > 2 ? atol(argv[2]) : 512) * MIB;
	volatile char sink = 0;

	char *res = mmap(NULL, size + HUGE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (res == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	char *at = (char *)(((uintptr_t)res + HUGE - 1) & ~(HUGE - 1));
	/* the rest unmapped: the mapping is [at, at + size) alone */
	if ((at > res && munmap(res, (size_t)(at - res))) ||
	    (at + size < res + size + HUGE &&
	     munmap(at + size, (size_t)(res + size + HUGE - (at + size)))) ||
	    madvise(at, size, MADV_HUGEPAGE)) {
		perror("munmap/madvise");
		return 1;
	}
	if (zero) {
		for (size_t o = 0; o < size; o += 4096)
			sink += at[o];
		memset(at, 1, size / 2);
	} else {
		memset(at, 1, size);
	}
	printf("%s %lx %lx\nready\n", zero ? "z" : "big", (unsigned long)at,
	       (unsigned long)(at + size));
	fflush(stdout);
	raise(SIGSTOP);
	return sink == 42;
}
