/* fault_loop.c — workload of t2085: faults without end. Maps 1 MiB,
 * touches every page, unmaps it, again and again; after every 16 rounds
 * writes "tick N" to stdout, so that a reader sees it make progress. Ends
 * by itself after 120 s (alarm) if nobody kills it.
 */
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#define ROUND_BYTES (1u << 20)

int main(void)
{
	unsigned long n = 0;

	alarm(120);
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (;;) {
		volatile char *p = mmap(NULL, ROUND_BYTES,
					PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return 1;
		for (size_t i = 0; i < ROUND_BYTES; i += 4096)
			p[i] = 1;
		munmap((void *)p, ROUND_BYTES);
		if (++n % 16 == 0)
			printf("tick %lu\n", n / 16);
	}
}
