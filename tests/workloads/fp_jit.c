// SPDX-License-Identifier: GPL-2.0-or-later
/* fp_jit.c — workload of t2197: two functions of JIT code (bytes written
 * into an anonymous read-write-execute mapping: no image, no .eh_frame)
 * each touch 100 pages of a fresh mapping, with marker_fn + 1 (a return
 * address into marker_fn, which nothing calls) pushed on the stack:
 *  - "framed" sets up its frame (push rbp; mov rbp, rsp) then pushes it,
 *    called main -> outer -> call_framed -> framed;
 *  - "pushed" sets up none and pushes it, main -> outer -> call_pushed ->
 *    pushed (the kernel's chain from rbp loses call_pushed).
 * Then it prints each buffer and its page count (one more: the last page,
 * read-only, keeps the buffers apart as VMAs) and stops. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#define NPAGES 101
typedef void (*jit_fn)(char *p, long n, unsigned long marker);
/* mov byte [rdi], 1; add rdi, 4096; dec rsi; jnz back to the mov */
#define TOUCH_LOOP                                                             \
	0xc6, 0x07, 0x01, 0x48, 0x81, 0xc7, 0x00, 0x10, 0x00, 0x00, 0x48,      \
	    0xff, 0xce, 0x75, 0xf1
/* push rbp; mov rbp, rsp; push rdx; loop; pop rdx; pop rbp; ret */
static const unsigned char framed[] = {0x55,	   0x48, 0x89, 0xe5, 0x52,
				       TOUCH_LOOP, 0x5a, 0x5d, 0xc3};
/* push rdx; loop; pop rdx; ret */
static const unsigned char pushed[] = {0x52, TOUCH_LOOP, 0x5a, 0xc3};
static volatile long sink;
__attribute__((noinline)) void marker_fn(void)
{
	sink++;
}
__attribute__((noinline)) void call_framed(jit_fn fn, char *p)
{
	fn(p, NPAGES - 1, (unsigned long)marker_fn + 1);
	sink++;
}
__attribute__((noinline)) void call_pushed(jit_fn fn, char *p)
{
	fn(p, NPAGES - 1, (unsigned long)marker_fn + 1);
	sink++;
}
__attribute__((noinline)) void outer(jit_fn a, jit_fn b, char *pa, char *pb)
{
	call_framed(a, pa);
	call_pushed(b, pb);
	sink++;
}
static char *fresh(int n)
{
	char *p = mmap(NULL, (size_t)(n + 1) * 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	mprotect(p, 4096, PROT_NONE);
	p += 4096;
	madvise(p, (size_t)n * 4096, MADV_NOHUGEPAGE);
	mprotect(p + (size_t)(n - 1) * 4096, 4096, PROT_READ);
	return p;
}
int main(void)
{
	unsigned char *code =
	    mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *a = fresh(NPAGES), *b = fresh(NPAGES);
	if (code == MAP_FAILED)
		return 1;
	memcpy(code, framed, sizeof(framed));
	memcpy(code + 64, pushed, sizeof(pushed));
	outer((jit_fn)(void *)code, (jit_fn)(void *)(code + 64), a, b);
	printf("%p %d\n%p %d\n", (void *)a, NPAGES, (void *)b, NPAGES);
	fflush(stdout);
	raise(SIGSTOP);
	return 0;
}
