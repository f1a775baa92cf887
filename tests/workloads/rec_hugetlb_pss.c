// SPDX-License-Identifier: GPL-2.0-or-later
/* rec_hugetlb_pss.c — hugetlb pages several processes map through one
 * shared PMD page table, and through page tables of their own.
 * usage: rec_hugetlb_pss N
 * The parent maps a hugetlb memfd (2 MiB pages) MAP_SHARED over a whole
 * 1 GiB aligned range (the kernel shares the PMD page table of such a
 * range between the processes that map it) and writes its first two
 * pages, and maps the memfd's first 2 MiB a second time, MAP_SHARED at a
 * place no page table is shared for, and reads it. It forks N children;
 * each reads the same three places (faulting the first two through the
 * parent's page table), writes a byte to a pipe and stops itself. When
 * all have, the parent prints "big START END", "window START END",
 * "child PID" per child (hex addresses) and "ready", then stops itself.
 * The first page is then mapped 2 (N + 1) times (kpagecount N + 2: one
 * entry of the shared page table, N + 1 of the windows), the second
 * N + 1 times (kpagecount 1).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef MFD_HUGE_2MB
#define MFD_HUGE_2MB (21u << 26)
#endif

#define MIB (1ul << 20)
#define GIB (1ul << 30)
#define MAXKIDS 16

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

/* Read the three places: the pages are mapped by then. */
static void touch(const char *h, const char *w)
{
	volatile char x = h[0];

	x = h[2 * MIB];
	x = w[0];
	(void)x;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 2, p[2];
	int fd = memfd_create("memsz-t2174", MFD_HUGETLB | MFD_HUGE_2MB);
	char *h = aligned_hole(GIB, GIB), *w = aligned_hole(4 * MIB, 2 * MIB);
	pid_t kids[MAXKIDS];

	if (n < 1 || n > MAXKIDS || fd < 0 || ftruncate(fd, GIB) || !h || !w ||
	    pipe(p)) {
		perror("rec_hugetlb_pss: setup");
		return 1;
	}
	/* the window 2 MiB past a 2 MiB boundary inside its reservation:
	 * never a whole 1 GiB range */
	w += 2 * MIB;
	if (mmap(h, GIB, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_FIXED | MAP_NORESERVE, fd, 0) == MAP_FAILED ||
	    mmap(w, 2 * MIB, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_FIXED | MAP_NORESERVE, fd, 0) == MAP_FAILED) {
		perror("rec_hugetlb_pss: mmap");
		return 1;
	}
	h[0] = 1;
	h[2 * MIB] = 2;
	touch(h, w);
	for (int i = 0; i < n; i++) {
		kids[i] = fork();
		if (kids[i] < 0) {
			perror("rec_hugetlb_pss: fork");
			return 1;
		}
		if (kids[i] == 0) {
			touch(h, w);
			if (write(p[1], "x", 1) != 1)
				_exit(1);
			raise(SIGSTOP);
			_exit(0);
		}
	}
	for (int i = 0; i < n; i++) {
		char c;
		int st;

		if (read(p[0], &c, 1) != 1 ||
		    waitpid(kids[i], &st, WUNTRACED) != kids[i] ||
		    !WIFSTOPPED(st))
			return 1;
	}
	printf("big %lx %lx\nwindow %lx %lx\n", (unsigned long)h,
	       (unsigned long)(h + GIB), (unsigned long)w,
	       (unsigned long)(w + 2 * MIB));
	for (int i = 0; i < n; i++)
		printf("child %d\n", (int)kids[i]);
	printf("ready\n");
	fflush(stdout);
	raise(SIGSTOP);
	return 0;
}
