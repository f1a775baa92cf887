// SPDX-License-Identifier: GPL-2.0-or-later
/* fault_churn.c — workload of t2106: a large resident mapping, which makes
 * every snapshot long, and a thread that keeps faulting meanwhile.
 *
 *   fault_churn BIG_MIB ROUNDS CHUNK_MIB
 *
 * Writes every page of a BIG_MIB anonymous mapping (MADV_NOHUGEPAGE: a
 * pagemap entry per page for the snapshots to read), then, ROUNDS times,
 * maps CHUNK_MIB more, writes one byte per page (one fault each) from
 * churn() and unmaps it. Prints the number of pages churn() faulted in.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "fresh_anon.h"

__attribute__((noinline)) static void churn(volatile char *p, size_t len)
{
	for (size_t i = 0; i < len; i += 4096)
		p[i] = 1;
}

int main(int argc, char **argv)
{
	size_t big, chunk;
	long rounds;
	char *b;

	if (argc != 4)
		return 2;
	big = (size_t)atol(argv[1]) << 20;
	rounds = atol(argv[2]);
	chunk = (size_t)atol(argv[3]) << 20;
	b = fresh_anon(big);
	for (size_t i = 0; i < big; i += 4096)
		b[i] = 1;
	for (long r = 0; r < rounds; r++) {
		char *p = fresh_anon(chunk);

		churn(p, chunk);
		munmap(p, chunk);
	}
	printf("%zu\n", (size_t)rounds * (chunk / 4096));
	return 0;
}
