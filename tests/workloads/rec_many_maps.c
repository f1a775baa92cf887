// SPDX-License-Identifier: GPL-2.0-or-later
/* rec_many_maps.c — a target whose snapshot takes a while, for t2486:
 * maps MIB anonymous regions of 1 MiB each and writes every page; the first
 * page of each is then made read-only, so that no two regions merge and a
 * snapshot walks 2 * MIB mappings. Prints "ready", then waits until
 * killed, running no code after "ready" that it did not run before: its
 * Rss then stays what it was (a first call of pause() would map 16 more
 * pages of libc by fault-around). Link it with -Wl,-z,now (no lazy
 * binding at that first call either).
 *
 *   rec_many_maps MIB
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define REGION (1u << 20)

/* Sleep until killed, through syscall(), whose code a call before "ready"
 * made resident (ppoll of no descriptor and no timeout: every arch has
 * it). */
static void wait_killed(void)
{
	for (;;)
		syscall(SYS_ppoll, NULL, 0, NULL, NULL, 0);
}

int main(int argc, char **argv)
{
	unsigned long mib;

	if (argc != 2)
		return 2;
	mib = strtoul(argv[1], NULL, 0);
	for (unsigned long i = 0; i < mib; i++) {
		char *p = mmap(NULL, REGION, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return 1;
		memset(p, (int)(1 + i % 255), REGION);
		if (mprotect(p, (size_t)sysconf(_SC_PAGESIZE), PROT_READ))
			return 1;
	}
	(void)syscall(SYS_getpid); /* wait_killed()'s code in */
	printf("ready\n");
	fflush(stdout);
	wait_killed();
}
