// SPDX-License-Identifier: GPL-2.0-or-later
/* fork_grow.c — forks N children, four at a time, each touching MIB MiB
 * of fresh memory page by page (so that memsz takes growth snapshots of
 * it) and exiting; prints each child's pid on stdout, then waits for all.
 * usage: fork_grow N MIB */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define AT_ONCE 4

static int child(size_t bytes)
{
	char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return 3;
	for (size_t off = 0; off < bytes; off += 4096)
		p[off] = 1;
	return 0;
}

int main(int argc, char **argv)
{
	int n, running = 0, bad = 0, status;
	size_t bytes;

	if (argc != 3)
		return 2;
	n = atoi(argv[1]);
	bytes = (size_t)atoi(argv[2]) << 20;
	for (int i = 0; i < n; i++) {
		pid_t pid;

		if (running == AT_ONCE) {
			if (wait(&status) > 0 && status)
				bad = 1;
			running--;
		}
		fflush(stdout);
		pid = fork();
		if (pid == 0)
			_exit(child(bytes));
		if (pid < 0)
			return 4;
		printf("%d\n", (int)pid);
		running++;
	}
	while (running-- > 0)
		if (wait(&status) > 0 && status)
			bad = 1;
	return bad;
}
