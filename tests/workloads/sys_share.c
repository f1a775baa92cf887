// SPDX-License-Identifier: GPL-2.0-or-later
/* sys_share.c — a small service for the system-wide and cgroup tests: maps
 * FILE shared and reads every page of it, dirties ANON_KB KiB of private
 * memory, then forks one child (at once, or after a line on stdin with
 * "wait"), which dirties memory of its own. Each prints one line when it
 * is ready and then sleeps until killed.
 *   parent: "ready PID"   child: "child PID"
 * usage: sys_share FILE ANON_KB [wait] */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static void dirty(size_t kb, int byte)
{
	char *p = malloc(kb * 1024);

	if (!p)
		exit(4);
	memset(p, byte, kb * 1024);
}

int main(int argc, char **argv)
{
	volatile const char *map;
	struct stat st;
	char line[64];
	long sum = 0;
	pid_t pid;
	int fd;

	if (argc < 3)
		return 2;
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || fstat(fd, &st) < 0)
		return 3;
	map = mmap(NULL, st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		return 3;
	for (off_t o = 0; o < st.st_size; o += 4096)
		sum += map[o];
	dirty(strtoul(argv[2], NULL, 10), 1);
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("ready %d\n", (int)getpid());
	if (argc > 3 && !strcmp(argv[3], "wait") &&
	    !fgets(line, sizeof(line), stdin))
		return 5;
	pid = fork();
	if (pid < 0)
		return 6;
	if (pid == 0) {
		dirty(1024, 2);
		printf("child %d\n", (int)getpid());
	}
	for (;;)
		pause();
	return (int)(sum & 0);
}
