// SPDX-License-Identifier: GPL-2.0-or-later
/* fault_threads.c — workload of t2105: NT threads, started together, each
 * touching its own fresh MIB-MiB anonymous mapping (one write per page,
 * MADV_NOHUGEPAGE: one fault each) from its own function touch_N. Prints
 * the mappings' addresses, one per line in thread order, then stops itself
 * so that the recorder's last snapshot sees them all resident.
 *
 *   fault_threads NT MIB      (NT <= 8)
 *
 * Built with -O2 -fomit-frame-pointer -fasynchronous-unwind-tables: only
 * DWARF CFI unwinds it. Each touch_N writes its own value, so no two are
 * folded into one function.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define MAX_THREADS 8

static pthread_barrier_t start;
static char *bufs[MAX_THREADS];
static size_t len;

/* one function per thread, made by a macro clang-format cannot lay out */
/* clang-format off */
#define TOUCH(n)                                                        \
	__attribute__((noinline)) static void touch_##n(volatile char *p, \
							size_t l)        \
	{                                                               \
		for (size_t i = 0; i < l; i += 4096)                    \
			p[i] = (char)(n + 1);                           \
	}
TOUCH(0) TOUCH(1) TOUCH(2) TOUCH(3) TOUCH(4) TOUCH(5) TOUCH(6) TOUCH(7)

static void (*const touch[MAX_THREADS])(volatile char *, size_t) = {
	touch_0, touch_1, touch_2, touch_3,
	touch_4, touch_5, touch_6, touch_7,
};
/* clang-format on */

static void *run(void *arg)
{
	long i = (long)arg;

	pthread_barrier_wait(&start);
	touch[i](bufs[i], len);
	return NULL;
}

int main(int argc, char **argv)
{
	long nt = argc > 2 ? atol(argv[1]) : 4;
	pthread_t t[MAX_THREADS];

	if (argc < 3 || nt < 1 || nt > MAX_THREADS)
		return 2;
	len = (size_t)atol(argv[2]) << 20;
	for (long i = 0; i < nt; i++) {
		/* a PROT_NONE page on each side keeps the mapping apart
		 * from its neighbours (thread stacks, the other buffers) */
		char *p = mmap(NULL, len + 2 * 4096, PROT_NONE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED ||
		    mprotect(p + 4096, len, PROT_READ | PROT_WRITE))
			return 1;
		bufs[i] = p + 4096;
		madvise(bufs[i], len, MADV_NOHUGEPAGE);
	}
	pthread_barrier_init(&start, NULL, (unsigned)nt);
	for (long i = 0; i < nt; i++)
		if (pthread_create(&t[i], NULL, run, (void *)i))
			return 1;
	for (long i = 0; i < nt; i++)
		pthread_join(t[i], NULL);
	for (long i = 0; i < nt; i++)
		printf("%p\n", (void *)bufs[i]);
	fflush(stdout);
	raise(SIGSTOP);
	return 0;
}
