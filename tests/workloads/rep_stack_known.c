// SPDX-License-Identifier: GPL-2.0-or-later
/* rep_stack_known.c — workload of t2440: main and 4 threads each touch
 * a known number of pages (100 + 37 * i, but the last page of each buffer,
 * left read-only to keep the buffers apart as VMAs) of its own fresh
 * mapping through main|thr -> f -> g -> alloc_a, print each buffer and its
 * page count, and stop. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#define NT 4
static volatile long sink;
static char *bufs[NT + 1];
static int npages[NT + 1];
__attribute__((noinline)) void alloc_a(char *p, int n)
{
	for (int i = 0; i < n - 1; i++)
		p[(long)i * 4096] = 1;
	sink += p[0];
}
__attribute__((noinline)) void g(char *p, int n)
{
	alloc_a(p, n);
	sink++;
}
__attribute__((noinline)) void f(char *p, int n)
{
	g(p, n);
	sink++;
}
static char *fresh(int n)
{
	char *p = mmap(NULL, (size_t)(n + 1) * 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	mprotect(p, 4096, PROT_NONE);
	p += 4096;
	madvise(p, (size_t)n * 4096, MADV_NOHUGEPAGE);
	mprotect(p + (size_t)(n - 1) * 4096, 4096, PROT_READ);
	return p;
}
__attribute__((noinline)) void *thr(void *arg)
{
	long i = (long)arg;
	f(bufs[i], npages[i]);
	sink++;
	return NULL;
}
int main(void)
{
	pthread_t t[NT];
	for (int i = 0; i <= NT; i++) {
		npages[i] = 100 + 37 * i;
		bufs[i] = fresh(npages[i]);
	}
	for (long i = 1; i <= NT; i++)
		pthread_create(&t[i - 1], NULL, thr, (void *)i);
	f(bufs[0], npages[0]);
	for (int i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i <= NT; i++)
		printf("%p %d\n", bufs[i], npages[i]);
	fflush(stdout);
	raise(SIGSTOP);
	return 0;
}
