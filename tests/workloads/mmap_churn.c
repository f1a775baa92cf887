// SPDX-License-Identifier: GPL-2.0-or-later
/* mmap_churn.c — once the file argv[1] exists, maps, touches and unmaps
 * 8 KiB argv[2] times (a stream of MMAP2 records), then exits. Used by
 * t2101-record-lost-count.sh. */
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n;

	if (argc != 3)
		return 2;
	n = atol(argv[2]);
	while (access(argv[1], F_OK))
		usleep(1000);
	for (long i = 0; i < n; i++) {
		char *p = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return 1;
		p[0] = 1;
		munmap(p, 8192);
	}
	return 0;
}
