// SPDX-License-Identifier: GPL-2.0-or-later
/* Workload of t2127: anonymous THP shared after a fork, some of its 4 KiB
 * pages written again by the child (copied: the parent's copy of them then
 * mapped once inside a huge page the parent maps whole). Four mappings,
 * of 2, 4, 5 and 10 MiB, MADV_HUGEPAGE, separated by PROT_NONE gaps; the
 * 5 MiB one starts 4 KiB past a 2 MiB boundary. The parent writes every
 * page, forks; the child writes the byte at 24576 + k * 151552 (every 37th
 * page from page 6) of each mapping and stops itself; the parent waits for
 * that, prints "NAME START END" per mapping, "child PID" and "ready", and
 * stops itself. */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define MIB (1ul << 20)
#define HUGE (2 * MIB)

static const struct {
	const char *name;
	size_t size, skew; /* length, start past a 2 MiB boundary */
} regions[] = {
    {"r2", 2 * MIB, 0},
    {"r4", 4 * MIB, 0},
    {"r5", 5 * MIB, 4096},
    {"r10", 10 * MIB, 0},
};
#define NREG (sizeof(regions) / sizeof(regions[0]))

int main(void)
{
	size_t span = HUGE;
	char *at[NREG];

	for (size_t i = 0; i < NREG; i++)
		span += regions[i].size + 2 * HUGE;
	char *res = mmap(NULL, span, PROT_NONE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (res == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	uintptr_t p = ((uintptr_t)res + HUGE - 1) & ~(HUGE - 1);
	for (size_t i = 0; i < NREG; i++) {
		p += HUGE; /* a PROT_NONE gap: the mappings stay apart */
		at[i] = mmap((char *)p + regions[i].skew, regions[i].size,
			     PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		if (at[i] == MAP_FAILED ||
		    madvise(at[i], regions[i].size, MADV_HUGEPAGE)) {
			perror("mmap/madvise");
			return 1;
		}
		memset(at[i], 1, regions[i].size);
		p += (regions[i].size + regions[i].skew + HUGE - 1) &
		     ~(HUGE - 1);
	}
	pid_t kid = fork();
	if (kid < 0)
		return 1;
	if (kid == 0) {
		for (size_t i = 0; i < NREG; i++)
			for (size_t o = 24576; o < regions[i].size; o += 151552)
				at[i][o] = 2;
		raise(SIGSTOP);
		_exit(0);
	}
	int st;
	if (waitpid(kid, &st, WUNTRACED) != kid || !WIFSTOPPED(st))
		return 1;
	for (size_t i = 0; i < NREG; i++)
		printf("%s %lx %lx\n", regions[i].name, (unsigned long)at[i],
		       (unsigned long)(at[i] + regions[i].size));
	printf("child %d\nready\n", (int)kid);
	fflush(stdout);
	raise(SIGSTOP);
	return 0;
}
