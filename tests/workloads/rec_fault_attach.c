// SPDX-License-Identifier: GPL-2.0-or-later
/* rec_fault_attach.c — workload of t2102: every mapping is made before a
 * recorder attaches, every page fault after.
 *
 * usage: rec_fault_attach FILE
 * Maps FILE (private, read-only) and two anonymous buffers (3 and 5 MiB,
 * each followed by a PROT_NONE page so that no two merge), prints the
 * three addresses and stops itself. Once continued it faults them in:
 *
 *   main -> read_file            every page of FILE's mapping
 *   main -> touch_anon           every page of the 3 MiB buffer
 *   main -> fill_anon -> memset  the 5 MiB buffer
 *
 * prints "done", stops again, and exits when continued. Built with -O2
 * -fomit-frame-pointer -fasynchronous-unwind-tables: the stacks unwind
 * only through .eh_frame, found through the mappings the recording gives
 * the report. MADV_NOHUGEPAGE keeps one fault per anonymous page.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define MiB (1024 * 1024)
#define PAGE 4096

static volatile long sink;

/* An anonymous buffer of n bytes with a PROT_NONE page after it. */
static char *buffer(size_t n)
{
	char *p = mmap(NULL, n + PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	mprotect(p + n, PAGE, PROT_NONE);
	madvise(p, n, MADV_NOHUGEPAGE);
	return p;
}

__attribute__((noinline)) static void read_file(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i += PAGE)
		sink += p[i];
}

__attribute__((noinline)) static void touch_anon(char *p, size_t n)
{
	for (size_t i = 0; i < n; i += PAGE)
		p[i] = (char)(i | 1);
	sink += p[n - 1];
}

__attribute__((noinline)) static void fill_anon(char *p, size_t n)
{
	memset(p, 0x5a, n);
	sink += p[n - 1];
}

int main(int argc, char **argv)
{
	struct stat st;
	char *f, *a = buffer(3 * MiB), *b = buffer(5 * MiB);
	int fd = argc == 2 ? open(argv[1], O_RDONLY) : -1;

	if (fd < 0 || fstat(fd, &st) < 0 || !a || !b)
		return 1;
	f = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (f == MAP_FAILED)
		return 1;
	printf("%p %p %p\n", (void *)f, (void *)a, (void *)b);
	fflush(stdout);
	raise(SIGSTOP);
	read_file(f, (size_t)st.st_size);
	touch_anon(a, 3 * MiB);
	fill_anon(b, 5 * MiB);
	printf("done\n");
	fflush(stdout);
	raise(SIGSTOP);
	return 0;
}
