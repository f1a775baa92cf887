// SPDX-License-Identifier: GPL-2.0-or-later
/* Workload of t2481: guard regions (madvise MADV_GUARD_INSTALL, Linux
 * 6.13+ for anonymous memory, 6.15+ for file-backed and shmem) in
 * mappings of every kind, over pages written before (which the madvise
 * frees) and over pages never touched. pagemap reports a guard page as
 * swapped (bit 62) though nothing is resident or swapped there.
 *
 * Mappings, separated by PROT_NONE gaps:
 *   anon64  64 MiB private anonymous, the first 32 MiB written, guards
 *           over [16, 48) MiB (read by PAGEMAP_SCAN: over 4 MiB);
 *   anon1   1 MiB private anonymous, all written, guards over pages
 *           [64, 128) (read whole with pread);
 *   file    8 MiB shared of the file argv[1] (8 MiB, written here), all
 *           read, guards over [2, 6) MiB;
 *   filecow 4 MiB private of the same file, all read and its first
 *           2 MiB written (copied), guards over [1, 3) MiB;
 *   shmem   8 MiB shared anonymous (shmem), all written, guards over
 *           [1, 5) MiB;
 *   stack   a thread's stack (glibc's; since 2.42 its guard is a guard
 *           region), the thread parked in pthread_join's partner.
 * For each it prints "NAME START END ERRNO" in hex, ERRNO 0 or that of a
 * refused madvise (EINVAL before 6.13, or before 6.15 for file-backed and
 * shmem mappings; the thread stack's line is an address in it, then the
 * next), then "ready", and stops itself. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MADV_GUARD_INSTALL
#define MADV_GUARD_INSTALL 102
#endif

#define MIB (1ul << 20)
#define PG 4096ul

static char *reserve;
static size_t reserved, used;

/* The next mapping's place in the reservation: 1 MiB of gap before it. */
static char *place(size_t size)
{
	char *p = reserve + used + MIB;

	used += size + MIB;
	if (used + MIB > reserved) {
		fprintf(stderr, "reservation too small\n");
		exit(1);
	}
	return p;
}

static char *map_at(size_t size, int flags, int fd)
{
	char *p = mmap(place(size), size, PROT_READ | PROT_WRITE,
		       flags | MAP_FIXED, fd, 0);

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	return p;
}

static void touch(char *p, size_t n, int write)
{
	volatile char sum = 0;

	for (size_t o = 0; o < n; o += PG)
		if (write)
			p[o] = 1;
		else
			sum += p[o];
}

static void guard(const char *name, char *p, size_t size, size_t off,
		  size_t len)
{
	int r = madvise(p + off, len, MADV_GUARD_INSTALL);

	printf("%s %lx %lx %x\n", name, (unsigned long)p,
	       (unsigned long)(p + size), r ? errno : 0);
}

static pthread_mutex_t park = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t parked = PTHREAD_COND_INITIALIZER;
static volatile char *stack_at;

static void *thread(void *arg)
{
	char here[64 * 1024];

	(void)arg;
	touch(here, sizeof(here), 1);
	pthread_mutex_lock(&park);
	stack_at = here;
	pthread_cond_signal(&parked);
	pthread_mutex_unlock(&park);
	for (;;)
		pause();
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;
	char *p;
	int fd;

	if (argc < 2) {
		fprintf(stderr, "usage: rec_guard FILE\n");
		return 2;
	}
	reserved = 128 * MIB;
	reserve = mmap(NULL, reserved, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (reserve == MAP_FAILED || fd < 0) {
		perror("mmap/open");
		return 1;
	}
	char *buf = calloc(1, MIB);
	for (int i = 0; i < 8; i++) {
		memset(buf, 'a' + i, MIB);
		if (write(fd, buf, MIB) != (ssize_t)MIB) {
			perror("write");
			return 1;
		}
	}
	free(buf);

	p = map_at(64 * MIB, MAP_PRIVATE | MAP_ANONYMOUS, -1);
	touch(p, 32 * MIB, 1);
	guard("anon64", p, 64 * MIB, 16 * MIB, 32 * MIB);

	p = map_at(MIB, MAP_PRIVATE | MAP_ANONYMOUS, -1);
	touch(p, MIB, 1);
	guard("anon1", p, MIB, 64 * PG, 64 * PG);

	p = map_at(8 * MIB, MAP_SHARED, fd);
	touch(p, 8 * MIB, 0);
	guard("file", p, 8 * MIB, 2 * MIB, 4 * MIB);

	p = map_at(4 * MIB, MAP_PRIVATE, fd);
	touch(p, 4 * MIB, 0);
	touch(p, 2 * MIB, 1);
	guard("filecow", p, 4 * MIB, MIB, 2 * MIB);

	p = map_at(8 * MIB, MAP_SHARED | MAP_ANONYMOUS, -1);
	touch(p, 8 * MIB, 1);
	guard("shmem", p, 8 * MIB, MIB, 4 * MIB);

	if (pthread_create(&t, NULL, thread, NULL)) {
		fprintf(stderr, "pthread_create failed\n");
		return 1;
	}
	pthread_mutex_lock(&park);
	while (!stack_at)
		pthread_cond_wait(&parked, &park);
	pthread_mutex_unlock(&park);
	printf("stack %lx %lx 0\n", (unsigned long)stack_at,
	       (unsigned long)stack_at + 1);
	printf("ready\n");
	fflush(stdout);
	raise(SIGSTOP);
	return 0;
}
