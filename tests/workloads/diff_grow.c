// SPDX-License-Identifier: GPL-2.0-or-later
/* diff_grow: a workload whose resident memory grows by a known amount
 * between two points the test chooses.
 *
 * usage: diff_grow N M
 * Maps N + M anonymous pages, writes the first N, prints "ready PID ADDR"
 * (ADDR: the mapping's start, hex) and
 * waits for a line on stdin; then writes M more pages, prints "grown" and
 * waits for a line (or end of input) before it exits. Between the two
 * points its RSS grows by exactly M pages of that mapping.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t n, m;
	char line[64];
	char *buf;

	if (argc != 3)
		return 2;
	n = strtoul(argv[1], NULL, 0);
	m = strtoul(argv[2], NULL, 0);
	buf = mmap(NULL, (n + m) * page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		return 1;
	for (size_t i = 0; i < n; i++)
		memset(buf + i * page, 1 + (int)(i & 0x7f), page);
	printf("ready %d %lx\n", (int)getpid(), (unsigned long)buf);
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 0;
	for (size_t i = n; i < n + m; i++)
		memset(buf + i * page, 1 + (int)(i & 0x7f), page);
	printf("grown\n");
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 0;
	return 0;
}
