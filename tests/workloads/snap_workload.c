// SPDX-License-Identifier: GPL-2.0-or-later
/* snap_workload.c — a process whose residency is known page by page, for
 * the snapshot tests (compiled at test time).
 * usage: snap_workload DIR ANON_MIB
 * Builds: ANON_MIB of written anon memory; 1 MiB of anon memory only read
 * (zero page); a 40 MiB region with 32 MiB MADV_HUGEPAGE (THP where
 * possible; over 16 MiB, so the snapshot scans it first); a 4 MiB
 * file mapped MAP_PRIVATE read-only, half its pages read; a 1 MiB file
 * mapped MAP_PRIVATE read-write with every 4th page written (COW copies);
 * a 1 MiB file mapped MAP_SHARED with half its pages written; a 66 MiB
 * file mapped MAP_SHARED with every 4th page written and every other page
 * read (larger than a snapshot's 64 MiB chunk: its pages are looked up
 * in one sort over the mapping); 1 MiB of
 * shared anonymous memory, half written; 32 MiB of anonymous memory with
 * one page in every 100 written (scanned first, its holes read through
 * by one pagemap read). Then forks a child that shares it all and stops
 * itself; the parent rewrites a quarter of the anon memory and every
 * other page of the sparse 32 MiB (breaking COW: its pages are then in
 * turn private and shared), maps another such THP region of its own (its
 * huge pages mapped exclusively, the other region's shared with the
 * child), prints "ready PARENT CHILD" and stops itself. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static char *map_file(const char *dir, const char *name, size_t len, int prot,
		      int flags)
{
	char path[4096], *buf;
	int fd;
	void *p;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die(path);
	buf = malloc(len);
	memset(buf, 'a', len);
	if (write(fd, buf, len) != (ssize_t)len)
		die("write");
	free(buf);
	fsync(fd);
	/* drop the page cache: only what the mapping touches is resident */
	posix_fadvise(fd, 0, len, POSIX_FADV_DONTNEED);
	p = mmap(NULL, len, prot, flags, fd, 0);
	if (p == MAP_FAILED)
		die("mmap");
	close(fd);
	return p;
}

/* 40 MiB of anonymous memory of which 32 MiB, from a 2 MiB boundary, are
 * MADV_HUGEPAGE and written (THP where possible). */
static char *map_thp(void)
{
	char *p = mmap(NULL, 40 << 20, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		die("mmap thp");
	p = (char *)(((unsigned long)p + (2 << 20) - 1) & ~((2ul << 20) - 1));
	madvise(p, 32 << 20, MADV_HUGEPAGE);
	memset(p, 2, 32 << 20);
	return p;
}

int main(int argc, char **argv)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE), i, mib;
	volatile char sink = 0;
	char *anon, *zero, *thp, *ro, *cow, *shf, *big, *sha, *sparse;
	pid_t child;

	if (argc != 3)
		return 2;
	mib = strtoul(argv[2], NULL, 10);
	anon = mmap(NULL, mib << 20, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (anon == MAP_FAILED)
		die("mmap anon");
	madvise(anon, mib << 20, MADV_NOHUGEPAGE);
	memset(anon, 1, mib << 20);

	zero = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	madvise(zero, 1 << 20, MADV_NOHUGEPAGE);
	for (i = 0; i < (1 << 20); i += pg)
		sink += zero[i];

	thp = map_thp();

	ro = map_file(argv[1], "ro.bin", 4 << 20, PROT_READ, MAP_PRIVATE);
	for (i = 0; i < (4 << 20); i += 2 * pg)
		sink += ro[i];

	cow = map_file(argv[1], "cow.bin", 1 << 20, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE);
	for (i = 0; i < (1 << 20); i += pg) {
		if ((i / pg) % 4 == 0)
			cow[i] = 'b';
		else
			sink += cow[i];
	}

	shf = map_file(argv[1], "shared.bin", 1 << 20, PROT_READ | PROT_WRITE,
		       MAP_SHARED);
	for (i = 0; i < (1 << 20); i += pg) {
		if ((i / pg) % 2 == 0)
			shf[i] = 'c';
		else if ((i / pg) % 3 == 0)
			sink += shf[i];
	}

	big = map_file(argv[1], "big.bin", 66 << 20, PROT_READ | PROT_WRITE,
		       MAP_SHARED);
	for (i = 0; i < (66 << 20); i += pg) {
		if ((i / pg) % 4 == 0)
			big[i] = 'd';
		else if ((i / pg) % 2 == 1)
			sink += big[i];
	}

	sha = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	memset(sha, 3, 1 << 19);

	sparse = mmap(NULL, 32 << 20, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (sparse == MAP_FAILED)
		die("mmap sparse");
	madvise(sparse, 32 << 20, MADV_NOHUGEPAGE);
	for (i = 0; i < (32 << 20); i += 100 * pg)
		sparse[i] = 7;

	child = fork();
	if (child < 0)
		die("fork");
	if (child == 0) {
		raise(SIGSTOP);
		_exit(0);
	}
	for (i = 0; i < (mib << 20) / 4; i += pg)
		anon[i] = 5;
	for (i = 0; i < (32 << 20); i += 200 * pg)
		sparse[i] = 8;
	map_thp();
	printf("ready %d %d\n", (int)getpid(), (int)child);
	fflush(stdout);
	raise(SIGSTOP);
	kill(child, SIGKILL);
	return sink == 42;
}
