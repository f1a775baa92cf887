// SPDX-License-Identifier: GPL-2.0-or-later
/* cg_load.c — a workload for the memory cgroup tests: waits for a line on
 * stdin (time to move it into a cgroup), then reads FILE whole with
 * read() (page cache charged to its cgroup, never mapped; the file is
 * kept open), reads FILE2 whole too and closes it, and dirties ANON_KB
 * KiB of private memory; prints "ready PID" and sleeps until its stdin
 * closes or it is killed. With CG_LOAD_EARLY_KB in the environment, it
 * first dirties that many KiB of private memory more, before it waits:
 * charged to the cgroup it starts in, which v1 does not move.
 * usage: cg_load FILE ANON_KB [FILE2] */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static char buf[1 << 16];
	char line[64];
	size_t kb;
	ssize_t n;
	const char *early = getenv("CG_LOAD_EARLY_KB");
	char *p, *q = NULL;
	size_t ekb = early ? strtoul(early, NULL, 10) : 0;
	int fd;

	if (argc != 3 && argc != 4)
		return 2;
	kb = strtoul(argv[2], NULL, 10);
	if (ekb) {
		q = malloc(ekb * 1024);
		if (!q)
			return 5;
		memset(q, 0xa5, ekb * 1024);
	}
	printf("wait %d\n", (int)getpid());
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 3;
	fd = open(argv[1], O_RDONLY);
	if (fd < 0)
		return 4;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		;
	if (argc == 4) {
		int fd2 = open(argv[3], O_RDONLY);

		if (fd2 < 0)
			return 4;
		while ((n = read(fd2, buf, sizeof(buf))) > 0)
			;
		close(fd2);
	}
	p = malloc(kb * 1024);
	if (!p)
		return 5;
	memset(p, 0x5a, kb * 1024);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin))
		;
	close(fd);
	if (q && q[ekb * 512] != (char)0xa5)
		return 6;
	return p[kb * 512] == 0x5a ? 0 : 6;
}
