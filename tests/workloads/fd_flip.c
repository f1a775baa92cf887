// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fd_flip PATH DIR N: holds N regular files DIR/f0 ... (each one byte,
 * written: cached), and makes each of its descriptors 100 ... 100 + N - 1
 * name, in turn and without end, its own regular file and PATH, which it
 * holds as an O_PATH descriptor (a device node, say, that it could not
 * open: O_PATH opens nothing). Whoever looks at /proc/PID/fd/FD and then
 * opens it finds the two apart now and then. Prints "ready" once set up.
 * For t2460.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define FIRST 100
#define KEEP 500 /* where the regular files are kept */

int main(int argc, char **argv)
{
	int dev, n;

	if (argc != 4 || (n = atoi(argv[3])) < 1 || n > 64) {
		fprintf(stderr, "usage: fd_flip PATH DIR N (1-64)\n");
		return 2;
	}
	dev = open(argv[1], O_PATH | O_CLOEXEC);
	if (dev < 0) {
		perror(argv[1]);
		return 1;
	}
	for (int i = 0; i < n; i++) {
		char name[4096];
		int fd;

		snprintf(name, sizeof(name), "%s/f%d", argv[2], i);
		fd = open(name, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
		if (fd < 0 || write(fd, "x", 1) != 1 ||
		    dup2(fd, KEEP + i) < 0) {
			perror(name);
			return 1;
		}
		close(fd);
	}
	printf("ready\n");
	fflush(stdout);
	for (;;)
		for (int i = 0; i < n; i++) {
			dup2(KEEP + i, FIRST + i);
			dup2(dev, FIRST + i);
		}
}
