// SPDX-License-Identifier: GPL-2.0-or-later
/* rep_fault_paths.c — workload of t3100: memory made resident from three
 * known call paths of known sizes, then a stop so that the recorder's last
 * snapshot sees a still process.
 *
 *   main -> alloc_a -> touch    3 MiB (malloc'd, one write per page)
 *   main -> alloc_b -> touch    5 MiB
 *   main -> alloc_c -> memset   7 MiB
 *
 * Built with -O2 -fomit-frame-pointer -fasynchronous-unwind-tables: the
 * stacks can only be unwound through .eh_frame. MADV_NOHUGEPAGE keeps one
 * fault per page. Prints the three buffers' addresses.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define MiB (1024 * 1024)

static volatile long sink;

__attribute__((noinline)) static void touch(char *p, size_t n)
{
	for (size_t i = 0; i < n; i += 4096)
		p[i] = (char)i | 1;
	sink += p[n - 1];
}

static void no_thp(char *p, size_t n)
{
	unsigned long a = (unsigned long)p & ~4095UL;

	madvise((void *)a, n + ((unsigned long)p - a), MADV_NOHUGEPAGE);
}

__attribute__((noinline)) static char *alloc_a(void)
{
	char *p = malloc(3 * MiB);

	no_thp(p, 3 * MiB);
	touch(p, 3 * MiB);
	sink += p[0];
	return p;
}

__attribute__((noinline)) static char *alloc_b(void)
{
	char *p = malloc(5 * MiB);

	no_thp(p, 5 * MiB);
	touch(p, 5 * MiB);
	sink += p[0];
	return p;
}

__attribute__((noinline)) static char *alloc_c(void)
{
	char *p = malloc(7 * MiB);

	no_thp(p, 7 * MiB);
	memset(p, 0x5a, 7 * MiB);
	sink += p[0];
	return p;
}

int main(void)
{
	char *a = alloc_a(), *b = alloc_b(), *c = alloc_c();

	printf("%p %p %p\n", (void *)a, (void *)b, (void *)c);
	fflush(stdout);
	raise(SIGSTOP);
	sink += a[1] + b[1] + c[1];
	return 0;
}
