// SPDX-License-Identifier: GPL-2.0-or-later
/* fault_paths.c — touches known numbers of fresh anonymous pages from three
 * known call paths, one thread each, for the page-fault sampling tests:
 *   main thread   alloc_a → touch_a   A_PAGES pages, a write per page
 *   thread 2      alloc_b → touch_b   B_PAGES pages, a write per page
 *   thread 3      alloc_c → memset    C_PAGES pages
 * Every buffer is a private anonymous mapping without MAP_POPULATE and with
 * MADV_NOHUGEPAGE, so each page faults exactly once, on its first write.
 * When all threads are done it writes to argv[1], one line per path:
 *   NAME TID BUF_START BUF_END FUNC_ADDR
 * (FUNC_ADDR: the runtime address of the function whose code touches the
 * pages; 0 for memset). Build: gcc -O2 -fomit-frame-pointer -pthread. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fresh_anon.h"

#define A_PAGES 300
#define B_PAGES 500
#define C_PAGES 700

struct path {
	const char *name;
	size_t pages;
	char *buf;
	long tid;
	void *func;
};

static struct path paths[3] = {
    {"a", A_PAGES, NULL, 0, NULL},
    {"b", B_PAGES, NULL, 0, NULL},
    {"c", C_PAGES, NULL, 0, NULL},
};

static char *fresh(size_t pages)
{
	return fresh_anon(pages * (size_t)sysconf(_SC_PAGESIZE));
}

__attribute__((noinline)) static void touch_a(volatile char *p, size_t n)
{
	long psz = sysconf(_SC_PAGESIZE);

	for (size_t i = 0; i < n; i++)
		p[i * psz] = 1;
}

__attribute__((noinline)) static void touch_b(volatile char *p, size_t n)
{
	long psz = sysconf(_SC_PAGESIZE);

	for (size_t i = 0; i < n; i++)
		p[i * psz + 7] = 2;
}

__attribute__((noinline)) static void alloc_a(struct path *t)
{
	t->buf = fresh(t->pages);
	touch_a(t->buf, t->pages);
}

__attribute__((noinline)) static void alloc_b(struct path *t)
{
	t->buf = fresh(t->pages);
	touch_b(t->buf, t->pages);
}

__attribute__((noinline)) static void alloc_c(struct path *t)
{
	t->buf = fresh(t->pages);
	memset(t->buf, 3, t->pages * (size_t)sysconf(_SC_PAGESIZE));
	__asm__ volatile("" : : "r"(t->buf) : "memory");
}

static void *run(void *arg)
{
	struct path *t = arg;

	t->tid = syscall(SYS_gettid);
	if (t == &paths[1])
		alloc_b(t);
	else
		alloc_c(t);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[2];
	FILE *out;

	if (argc != 2) {
		fprintf(stderr, "usage: fault_paths OUT\n");
		return 2;
	}
	paths[0].func = (void *)touch_a;
	paths[1].func = (void *)touch_b;
	paths[0].tid = syscall(SYS_gettid);
	alloc_a(&paths[0]);
	for (int i = 0; i < 2; i++)
		if (pthread_create(&th[i], NULL, run, &paths[i + 1]))
			return 1;
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	out = fopen(argv[1], "w");
	if (!out)
		return 1;
	for (int i = 0; i < 3; i++) {
		size_t len = paths[i].pages * (size_t)sysconf(_SC_PAGESIZE);

		fprintf(out, "%s %ld %p %p %p\n", paths[i].name, paths[i].tid,
			(void *)paths[i].buf, (void *)(paths[i].buf + len),
			paths[i].func);
	}
	return fclose(out) ? 1 : 0;
}
