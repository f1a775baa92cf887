// SPDX-License-Identifier: GPL-2.0-or-later
/* Workload of t2127: anonymous THP shared after a fork, some of its 4 KiB
 * pages written again by the child (copied: the parent's copy of them then
 * mapped once inside a huge page the parent maps whole). Four mappings,
 * of 2, 4, 5 and 10 MiB, MADV_HUGEPAGE, separated by PROT_NONE gaps; the
 * 5 MiB one starts 4 KiB past a 2 MiB boundary. The parent writes every
 * page, forks; the child writes the byte at 24576 + k * 151552 (every 37th
 * page from page 6) of each mapping and stops itself; the parent waits for
 * that, prints "NAME START END" per mapping, "child PID" and "ready", and
 * stops itself.
 * With the argument "child-first" the child writes instead the first 4 KiB
 * page of every huge page (each 2 MiB boundary in a mapping, and its first
 * page): the huge page's head is then the page mapped once, and pagemap
 * gives the parent's whole PMD mapping of it its exclusive bit. With
 * "parent-first" the parent does so after the child has stopped (its
 * output comes after), and the child keeps the PMD mappings. With
 * "child-first-exit" the child does as with "child-first" and exits
 * instead of stopping ("child 0" is printed): every page of the parent's
 * huge pages is then mapped once, but their head pages keep
 * PG_anon_exclusive clear (the parent has not written them since the
 * fork). */
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

/* The first page of every huge page of mapping i: its first page and
 * each 2 MiB boundary in it. */
static void write_firsts(char *at, size_t size)
{
	at[0] = 3;
	for (uintptr_t b = ((uintptr_t)at + HUGE - 1) & ~(HUGE - 1);
	     b < (uintptr_t)at + size; b += HUGE)
		*(char *)b = 3;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	int child_exit = !strcmp(mode, "child-first-exit");
	int child_first = child_exit || !strcmp(mode, "child-first");
	int parent_first = !strcmp(mode, "parent-first");
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
		for (size_t i = 0; i < NREG; i++) {
			if (child_first)
				write_firsts(at[i], regions[i].size);
			else if (!parent_first)
				for (size_t o = 24576; o < regions[i].size;
				     o += 151552)
					at[i][o] = 2;
		}
		if (!child_exit)
			raise(SIGSTOP);
		_exit(0);
	}
	int st;
	if (waitpid(kid, &st, WUNTRACED) != kid ||
	    (child_exit ? !WIFEXITED(st) : !WIFSTOPPED(st)))
		return 1;
	if (child_exit)
		kid = 0;
	for (size_t i = 0; parent_first && i < NREG; i++)
		write_firsts(at[i], regions[i].size);
	for (size_t i = 0; i < NREG; i++)
		printf("%s %lx %lx\n", regions[i].name, (unsigned long)at[i],
		       (unsigned long)(at[i] + regions[i].size));
	printf("child %d\nready\n", (int)kid);
	fflush(stdout);
	raise(SIGSTOP);
	return 0;
}
