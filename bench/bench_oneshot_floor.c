// SPDX-License-Identifier: GPL-2.0-or-later
/* bench_oneshot_floor.c — the floor of a one-shot recording, for
 * bench_oneshot.py: the least a program started to do what
 * `memsz record -p PID --duration 0 -o OUT` does (OUT a new name) must
 * do with the interfaces memsz must use. Started as a program (as memsz
 * is: the start is part of what is measured), it looks the pages of PID
 * up as bench_floor() does (PAGEMAP_SCAN, pagemap, kpagecount for pages
 * not mapped exclusively, kpagecgroup for file pages, kpageflags where
 * cachestat(2) finds dirty pages, each file's frames sorted once for the
 * whole process), then writes what it read to an unnamed file in OUT's
 * directory and links it as OUT, as memsz writes a one-shot to a new
 * name (no fsync: memsz leaves a new name to writeback too). It leaves
 * out what a recording holds besides (the process's status, cgroup and
 * command line, the mapped files' build-ids, the encoding of runs), so
 * memsz's ratio to it includes those.
 * usage: bench_oneshot_floor PID OUT */
#include "config.h"

#include "bench/benchfloor.h"

#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char *dir, fdpath[64];
	uint64_t sum;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: bench_oneshot_floor PID OUT\n");
		return 2;
	}
	sum = bench_floor((pid_t)atoi(argv[1]));
	dir = strdup(argv[2]);
	fd = dir ? open(dirname(dir), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600)
		 : -1;
	if (fd < 0 || write(fd, &sum, sizeof(sum)) != (ssize_t)sizeof(sum))
		return 1;
	snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fd);
	if (linkat(AT_FDCWD, fdpath, AT_FDCWD, argv[2], AT_SYMLINK_FOLLOW))
		return 1;
	close(fd);
	free(dir);
	return 0;
}
