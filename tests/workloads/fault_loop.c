// SPDX-License-Identifier: GPL-2.0-or-later
/* fault_loop.c — workload of t2085 and t2107: faults without end.
 *
 *   fault_loop [MIB [NT [block]]]      (build with -pthread)
 *
 * Keeps MIB MiB (default 0) resident, so that a snapshot of it takes a
 * while; then NT threads (default 1: the main thread alone) each map
 * 1 MiB, touch every page, unmap it, again and again. After every 16 rounds
 * of its own the main thread writes "tick N urg M" to stdout, so that a
 * reader sees it make progress, M being the SIGURGs the process caught
 * (memsz's leash signal must never reach it). With "block", every thread
 * blocks SIGURG (a leash sending it would stop nothing). Ends by itself
 * after 120 s (alarm) if nobody kills it.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define ROUND_BYTES (1u << 20)

static volatile sig_atomic_t urg;

static void on_urg(int sig)
{
	(void)sig;
	urg++;
}

static void *loop(void *main_thread)
{
	unsigned long n = 0;

	for (;;) {
		volatile char *p =
		    mmap(NULL, ROUND_BYTES, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			exit(1);
		for (size_t i = 0; i < ROUND_BYTES; i += 4096)
			p[i] = 1;
		munmap((void *)p, ROUND_BYTES);
		if (main_thread && ++n % 16 == 0)
			printf("tick %lu urg %d\n", n / 16, (int)urg);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	size_t keep = argc > 1 ? (size_t)atol(argv[1]) << 20 : 0;
	int nt = argc > 2 ? atoi(argv[2]) : 1;
	char *k = keep ? malloc(keep) : NULL;
	pthread_t t;

	if (k)
		memset(k, 1, keep);
	signal(SIGURG, on_urg);
	if (argc > 3 && !strcmp(argv[3], "block")) {
		sigset_t urg_set;

		sigemptyset(&urg_set);
		sigaddset(&urg_set, SIGURG);
		sigprocmask(SIG_BLOCK, &urg_set, NULL);
	}
	alarm(120);
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 1; i < nt; i++)
		if (pthread_create(&t, NULL, loop, NULL))
			return 1;
	loop(&nt);
	return 0;
}
