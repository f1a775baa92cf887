// SPDX-License-Identifier: GPL-2.0-or-later
/* rec_thp.c — memory that smaps counts as THP (AnonHugePages,
 * ShmemPmdMapped, FilePmdMapped) and as Locked, then a stop.
 * usage: rec_thp DIR SHMDIR [hugetlb]
 * DIR is a directory on a disk file system (files are made there), SHMDIR
 * one on a tmpfs mounted with huge=always, or "-" for none. Prints one
 * line "NAME START END" (hex) per region, then "ready", then stops itself
 * (SIGSTOP). Regions:
 *   thp        8 MiB anonymous, PMD aligned, MADV_HUGEPAGE, written
 *              (MADV_COLLAPSE after, where the kernel has it)
 *   thp-locked 4 MiB likewise, then mlock()ed
 *   thp-sparse 4 MiB written in the middle of a 96 MiB mapping made
 *              MADV_HUGEPAGE, across its 64 MiB mark (memsz reads a large
 *              sparse mapping in 64 MiB chunks, with PAGEMAP_SCAN)
 *   thp-offset 196 MiB anonymous starting a page past a PMD boundary,
 *              MADV_HUGEPAGE, written: dense, so read by plain pagemap
 *              reads in 64 MiB chunks that start off PMD boundaries (and
 *              cut PMD-mapped pages in two)
 *   locked     3 MiB anonymous MAP_LOCKED, written
 *   locked-mid the middle 1 MiB of a 3 MiB anonymous mapping, mlock()ed
 *              (the kernel splits the mapping in three)
 *   file-lock  a 1 MiB file mapped private read-only and mlock()ed
 *   shmem      4 MiB of a file in SHMDIR, PMD aligned, shared, written
 *   file-thp   8 MiB of a file in DIR written, dropped from the page cache
 *              and mapped shared read-only, PMD aligned, read (read-ahead
 *              may bring it back in PMD-sized folios: FilePmdMapped)
 *   hugetlb    with "hugetlb": one PMD-sized MAP_HUGETLB page, written
 *              (huge to PAGEMAP_SCAN, but not THP)
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif

#define MIB (1ul << 20)
#define PMD_SIZE (2 * MIB)

static void die(const char *what)
{
	perror(what);
	exit(1);
}

/* len bytes of address space, PMD aligned, reserved (PROT_NONE). */
static char *reserve(size_t len)
{
	char *p = mmap(NULL, len + PMD_SIZE, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED)
		die("mmap");
	return (char *)(((uintptr_t)p + PMD_SIZE - 1) & ~(PMD_SIZE - 1));
}

static void show(const char *name, const char *p, size_t len)
{
	printf("%s %lx %lx\n", name, (unsigned long)(uintptr_t)p,
	       (unsigned long)((uintptr_t)p + len));
}

static void touch(char *p, size_t len)
{
	for (size_t i = 0; i < len; i += 4096)
		p[i] = (char)(i >> 12 | 1);
}

static char *anon_thp(size_t len, int lock)
{
	char *p = mmap(reserve(len), len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);

	if (p == MAP_FAILED)
		die("mmap");
	madvise(p, len, MADV_HUGEPAGE);
	touch(p, len);
	/* where the first touch got small pages: collapse them */
	madvise(p, len, MADV_COLLAPSE);
	if (lock && mlock(p, len))
		die("mlock");
	return p;
}

/* A file of len bytes at path, written. Returns its descriptor. */
static int file_make(const char *path, size_t len)
{
	char *buf = malloc(MIB);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);

	if (fd < 0 || !buf)
		die(path);
	memset(buf, 0x5a, MIB);
	for (size_t off = 0; off < len; off += MIB)
		if (write(fd, buf, MIB) != (ssize_t)MIB)
			die("write");
	free(buf);
	return fd;
}

int main(int argc, char **argv)
{
	char path[4096], *p;
	int fd;

	if (argc != 3 && !(argc == 4 && !strcmp(argv[3], "hugetlb"))) {
		fprintf(stderr, "usage: rec_thp DIR SHMDIR [hugetlb]\n");
		return 2;
	}
	p = anon_thp(8 * MIB, 0);
	show("thp", p, 8 * MIB);
	p = anon_thp(4 * MIB, 1);
	show("thp-locked", p, 4 * MIB);
	p = mmap(reserve(96 * MIB), 96 * MIB, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	if (p == MAP_FAILED)
		die("mmap");
	madvise(p, 96 * MIB, MADV_HUGEPAGE);
	touch(p + 62 * MIB, 4 * MIB);
	madvise(p + 62 * MIB, 4 * MIB, MADV_COLLAPSE);
	show("thp-sparse", p + 62 * MIB, 4 * MIB);
	p = mmap(reserve(198 * MIB) + 4096, 196 * MIB, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	if (p == MAP_FAILED)
		die("mmap");
	madvise(p, 196 * MIB, MADV_HUGEPAGE);
	touch(p, 196 * MIB);
	madvise(p, 196 * MIB, MADV_COLLAPSE);
	show("thp-offset", p, 196 * MIB);

	p = mmap(NULL, 3 * MIB, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_LOCKED, -1, 0);
	if (p == MAP_FAILED)
		die("mmap");
	touch(p, 3 * MIB);
	show("locked", p, 3 * MIB);

	p = mmap(NULL, 3 * MIB, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		die("mmap");
	touch(p, 3 * MIB);
	if (mlock(p + MIB, MIB))
		die("mlock");
	show("locked-mid", p + MIB, MIB);

	snprintf(path, sizeof(path), "%s/lock.bin", argv[1]);
	fd = file_make(path, MIB);
	p = mmap(NULL, MIB, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED || mlock(p, MIB))
		die("mmap/mlock file");
	close(fd);
	show("file-lock", p, MIB);

	if (strcmp(argv[2], "-")) {
		snprintf(path, sizeof(path), "%s/shm.bin", argv[2]);
		fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
		if (fd < 0 || ftruncate(fd, 4 * MIB))
			die(path);
		p = mmap(reserve(4 * MIB), 4 * MIB, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_FIXED, fd, 0);
		if (p == MAP_FAILED)
			die("mmap shmem");
		close(fd);
		touch(p, 4 * MIB);
		show("shmem", p, 4 * MIB);
	}

	snprintf(path, sizeof(path), "%s/thp.bin", argv[1]);
	fd = file_make(path, 8 * MIB);
	fsync(fd);
	posix_fadvise(fd, 0, 8 * MIB, POSIX_FADV_DONTNEED);
	p = mmap(reserve(8 * MIB), 8 * MIB, PROT_READ, MAP_SHARED | MAP_FIXED,
		 fd, 0);
	if (p == MAP_FAILED)
		die("mmap file");
	close(fd);
	madvise(p, 8 * MIB, MADV_HUGEPAGE);
	{
		volatile char sum = 0;

		for (size_t i = 0; i < 8 * MIB; i += 4096)
			sum += p[i];
	}
	show("file-thp", p, 8 * MIB);

	if (argc == 4) {
		p = mmap(NULL, PMD_SIZE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
		if (p == MAP_FAILED)
			die("mmap MAP_HUGETLB");
		touch(p, PMD_SIZE);
		show("hugetlb", p, PMD_SIZE);
	}

	printf("ready\n");
	fflush(stdout);
	raise(SIGSTOP);
	return 0;
}
