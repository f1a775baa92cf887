// SPDX-License-Identifier: GPL-2.0-or-later
/* rep_jit_semicolon.c — workload of t2443: "JIT" code (a copied loop) in
 * anonymous memory that /tmp/perf-PID.map names with a ";" in the name,
 * as JVM perf map agents do, touches the 64 pages of a fresh mapping; the
 * process prints its pid and the buffer, then stops. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
int main(void)
{
	/* movb $1,(%rdi); add $4096,%rdi; dec %esi; jnz back; ret */
	static const unsigned char code[] = {0xc6, 0x07, 0x01, 0x48, 0x81,
					     0xc7, 0x00, 0x10, 0x00, 0x00,
					     0xff, 0xce, 0x75, 0xf2, 0xc3};
	unsigned char *x = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	memcpy(x, code, sizeof(code));
	char path[64];
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", getpid());
	FILE *f = fopen(path, "w");
	fprintf(f, "%lx %zx Ljava/lang/String;::hashCode\n", (unsigned long)x,
		sizeof(code));
	fclose(f);
	char *buf = mmap(NULL, 64 * 4096, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	madvise(buf, 64 * 4096, MADV_NOHUGEPAGE);
	((void (*)(char *, int))x)(buf, 64);
	printf("%d %p\n", getpid(), (void *)buf);
	fflush(stdout);
	raise(SIGSTOP);
	return 0;
}
