// SPDX-License-Identifier: GPL-2.0-or-later
/* stall_churn.c — workload of t2474: runs until killed, making records
 * for memsz all the time: two threads map, touch and unmap 1 MiB in a
 * loop (page faults, mmap and munmap), and the main thread forks
 * children that touch 1 MiB and exit (fork and exit stops of a tracer).
 * Prints "ready" once the threads run.
 *
 *   stall_churn
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHUNK (1u << 20)

/* Map CHUNK bytes, write a byte per page (a fault each), unmap them. */
static void touch_chunk(void)
{
	volatile char *p = mmap(NULL, CHUNK, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return;
	for (size_t i = 0; i < CHUNK; i += 4096)
		p[i] = 1;
	munmap((void *)p, CHUNK);
}

static void *churn(void *arg)
{
	for (;;)
		touch_chunk();
	return arg;
}

int main(void)
{
	pthread_t t[2];

	for (int i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, churn, NULL))
			return 1;
	printf("ready\n");
	fflush(stdout);
	for (;;) {
		pid_t c = fork();

		if (c == 0) {
			touch_chunk();
			_exit(0);
		}
		if (c > 0)
			waitpid(c, NULL, 0);
	}
}
