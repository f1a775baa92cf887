// SPDX-License-Identifier: GPL-2.0-or-later
/* fault_loop.c — workload of t2085, t2107 and t2475: faults without end.
 *
 *   fault_loop [MIB [NT [block] [late] [churn] [spawn]]]
 *   (build with -pthread)
 *
 * Keeps MIB MiB (default 0) resident, so that a snapshot of it takes a
 * while; then NT threads (default 1: the main thread alone) each map
 * 1 MiB, touch every page, unmap it, again and again. After every 16 rounds
 * of its own the main thread writes "tick N urg M" to stdout, so that a
 * reader sees it make progress, M being the SIGURGs the process caught
 * (memsz's leash signal must never reach it). Ends by itself after 120 s
 * (alarm) if nobody kills it. Words after NT, in any order:
 *  - block: every thread blocks SIGURG, which the process does not
 *    catch (a leash sending it would stop nothing);
 *  - late: the NT - 1 other threads start only once the process gets
 *    SIGUSR1 (so that a tracer that attached meanwhile sees them made);
 *  - churn: each of the other threads, after each of its rounds, starts
 *    the thread that takes its place and ends, so that threads are made
 *    all the time (there are NT or NT + 1 threads at any moment);
 *  - spawn: with churn, each line of threads that take each other's
 *    place ends after SPAWN_ROUNDS rounds (t2475), and the main thread, the
 *    first in /proc/PID/task, starts a new line after each of its own
 *    rounds while fewer than NT - 1 run: threads are made all the time
 *    by the main thread too;
 *  - short: the other threads' rounds touch 1 page, not 1 MiB (with
 *    churn: a thread made every page by each of them; t2476).
 */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define ROUND_BYTES (1u << 20)

static volatile sig_atomic_t urg, go;
static bool churn;
static bool spawn;
static size_t other_bytes = ROUND_BYTES; /* a round of the other threads */
static atomic_int lines; /* lines of churning threads running (spawn) */

#define SPAWN_ROUNDS 16
#define SHORT_ROUND_BYTES 4096u

static void on_urg(int sig)
{
	(void)sig;
	urg++;
}

static void on_usr1(int sig)
{
	(void)sig;
	go = 1;
}

static void fault_round(size_t bytes)
{
	volatile char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		exit(1);
	for (size_t i = 0; i < bytes; i += 4096)
		p[i] = 1;
	munmap((void *)p, bytes);
}

static void *other(void *arg)
{
	uintptr_t gen = (uintptr_t)arg;
	pthread_t t;

	for (;;) {
		fault_round(other_bytes);
		if (spawn && gen + 1 >= SPAWN_ROUNDS) {
			atomic_fetch_sub(&lines, 1);
			pthread_detach(pthread_self());
			return NULL;
		}
		/* the new thread gets this one's signal mask */
		if (churn &&
		    !pthread_create(&t, NULL, other, (void *)(gen + 1))) {
			pthread_detach(pthread_self());
			return NULL;
		}
	}
	return NULL;
}

static void start_others(int n)
{
	pthread_t t;

	for (int i = 0; i < n; i++) {
		atomic_fetch_add(&lines, 1);
		if (pthread_create(&t, NULL, other, NULL))
			exit(1);
	}
}

int main(int argc, char **argv)
{
	size_t keep = argc > 1 ? (size_t)atol(argv[1]) << 20 : 0;
	int nt = argc > 2 ? atoi(argv[2]) : 1;
	char *k = keep ? malloc(keep) : NULL;
	bool late = false, blocked = false;
	unsigned long n = 0;

	if (k)
		memset(k, 1, keep);
	signal(SIGUSR1, on_usr1);
	for (int i = 3; i < argc; i++) {
		if (!strcmp(argv[i], "block")) {
			sigset_t urg_set;

			sigemptyset(&urg_set);
			sigaddset(&urg_set, SIGURG);
			sigprocmask(SIG_BLOCK, &urg_set, NULL);
			blocked = true;
		}
		late |= !strcmp(argv[i], "late");
		churn |= !strcmp(argv[i], "churn");
		spawn |= !strcmp(argv[i], "spawn");
		if (!strcmp(argv[i], "short"))
			other_bytes = SHORT_ROUND_BYTES;
	}
	if (!blocked)
		signal(SIGURG, on_urg);
	alarm(120);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!late)
		start_others(nt - 1);
	for (;;) {
		fault_round(ROUND_BYTES);
		if (spawn && churn && !late && atomic_load(&lines) < nt - 1)
			start_others(1);
		if (late && go) {
			late = false;
			start_others(nt - 1);
		}
		if (++n % 16 == 0)
			printf("tick %lu urg %d\n", n / 16, (int)urg);
	}
	return 0;
}
