// SPDX-License-Identifier: GPL-2.0-or-later
/* rec_hugetlb_shared.c — a process that maps another's hugetlb page
 * through a shared PMD page table, next to THP of its own, stopped.
 * usage: rec_hugetlb_shared [FILE]
 * The parent maps a hugetlb memfd (2 MiB pages) MAP_SHARED over a whole
 * 1 GiB aligned range, so that the kernel can share its PMD page table,
 * writes its first page, then forks. The child reads that page (it is
 * mapped through the parent's page table: the child's status shows
 * HugetlbPages: 0, its smaps Shared_Hugetlb: 2048 kB), writes a PMD
 * aligned 2 MiB of an anonymous MADV_HUGEPAGE mapping (THP where the
 * kernel gives one; MADV_COLLAPSE after, where it has it), and stops
 * itself (SIGSTOP). With FILE (on a mounted hugetlbfs), the parent also
 * maps 2 MiB of it shared and writes them before the fork (the child
 * leaves them alone: its HugetlbPages stays 0). The parent prints "child PID",
 * "hugetlb START END", "thp START END" and "mounted START END" (hex; the last
 * with FILE), then "ready", and waits to be killed.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif
#ifndef MFD_HUGE_2MB
#define MFD_HUGE_2MB (21u << 26)
#endif

#define MIB (1ul << 20)
#define GIB (1ul << 30)

/* An address aligned to align inside a fresh PROT_NONE reservation of
 * len + align bytes, or NULL. */
static char *aligned_hole(size_t len, size_t align)
{
	char *r = mmap(NULL, len + align, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (r == MAP_FAILED)
		return NULL;
	return (char *)(((uintptr_t)r + align - 1) & ~(align - 1));
}

int main(int argc, char **argv)
{
	int fd = memfd_create("memsz-t2172", MFD_HUGETLB | MFD_HUGE_2MB);
	char *h = aligned_hole(GIB, GIB), *t = aligned_hole(2 * MIB, 2 * MIB);
	char *f = NULL;
	pid_t c;

	if (argc > 1) {
		int ffd = open(argv[1], O_RDWR | O_CREAT, 0600);

		if (ffd < 0 || ftruncate(ffd, 2 * MIB) ||
		    (f = mmap(NULL, 2 * MIB, PROT_READ | PROT_WRITE, MAP_SHARED,
			      ffd, 0)) == MAP_FAILED) {
			perror("rec_hugetlb_shared: FILE");
			return 1;
		}
		f[0] = 1;
	}
	if (fd < 0 || ftruncate(fd, GIB) || !h || !t) {
		perror("rec_hugetlb_shared: memfd");
		return 1;
	}
	if (mmap(h, GIB, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_FIXED | MAP_NORESERVE, fd, 0) == MAP_FAILED ||
	    mmap(t, 2 * MIB, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1,
		 0) == MAP_FAILED) {
		perror("rec_hugetlb_shared: mmap");
		return 1;
	}
	madvise(t, 2 * MIB, MADV_HUGEPAGE);
	h[0] = 1;
	c = fork();
	if (c < 0) {
		perror("rec_hugetlb_shared: fork");
		return 1;
	}
	if (c == 0) {
		volatile char x = h[0];

		(void)x;
		memset(t, 1, 2 * MIB);
		madvise(t, 2 * MIB, MADV_COLLAPSE);
		raise(SIGSTOP);
		for (;;)
			pause();
	}
	printf("child %d\nhugetlb %lx %lx\nthp %lx %lx\n", (int)c,
	       (unsigned long)h, (unsigned long)(h + GIB), (unsigned long)t,
	       (unsigned long)(t + 2 * MIB));
	if (f)
		printf("mounted %lx %lx\n", (unsigned long)f,
		       (unsigned long)(f + 2 * MIB));
	printf("ready\n");
	fflush(stdout);
	for (;;)
		pause();
}
