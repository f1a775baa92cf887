/* fault_loop.c — workload of t2085: faults without end. Keeps MIB MiB
 * (argv[1], default 0) resident, so that a snapshot of it takes a while;
 * then maps 1 MiB, touches every page, unmaps it, again and again; after
 * every 16 rounds writes "tick N" to stdout, so that a reader sees it make
 * progress. Ends by itself after 120 s (alarm) if nobody kills it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define ROUND_BYTES (1u << 20)

int main(int argc, char **argv)
{
	size_t keep = argc > 1 ? (size_t)atol(argv[1]) << 20 : 0;
	unsigned long n = 0;
	char *k = keep ? malloc(keep) : NULL;

	if (k)
		memset(k, 1, keep);
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
