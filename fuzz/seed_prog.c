// SPDX-License-Identifier: GPL-2.0-or-later
/* seed_prog.c — the program the fuzz seed recordings are made of: static,
 * without libc (a few KiB, a handful of mappings), with debug info and a
 * build-id. It touches pages of .bss and .data from a call two frames deep
 * (fault samples with stacks to unwind), then exits. x86-64. */
#define NPAGES 24

static char pages[NPAGES * 4096];
char data_page[4096] = {1};
const char message[] = "memsz fuzz seed";

__attribute__((noinline)) static void touch(char *p, int n, int step)
{
	for (int i = 0; i < n; i++)
		p[i * step] = message[i % (sizeof(message) - 1)];
}

__attribute__((noinline)) static void work(void)
{
	touch(pages, NPAGES, 4096);
	touch(data_page, 64, 64);
}

__attribute__((force_align_arg_pointer, noreturn)) void _start(void)
{
	work();
	__asm__ volatile("mov $60, %%eax\n\txor %%edi, %%edi\n\tsyscall" ::
			     : "rax", "rdi", "rcx", "r11", "memory");
	__builtin_unreachable();
}
