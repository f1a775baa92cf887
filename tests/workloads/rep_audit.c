// SPDX-License-Identifier: GPL-2.0-or-later
/* rep_audit: a process with the layouts t3340 checks `memsz report`
 * against smaps on: a 64 MiB .bss of which 24 MiB is written, an 8 MiB
 * anonymous region asking for transparent huge pages, a file mapped
 * shared (2 MiB written and synced, so writeback cannot change its pages
 * between two reads) and privately (read whole, 1 MiB copied on write),
 * a shared mapping of a file then deleted, 40 threads with stacks
 * touched, and a forked child that writes 1 MiB of the .bss.
 * Usage: rep_audit FILE DELETED. Prints "child PID" and "ready PID". */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

static char bss[64 << 20];

static void *thread_main(void *arg)
{
	char buf[40000];

	memset(buf, 1, sizeof(buf));
	__asm__ volatile("" : : "r"(buf) : "memory");
	for (;;)
		pause();
	return arg;
}

static char *map_file(const char *path, size_t size, int flags)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);

	if (fd < 0 || ftruncate(fd, (off_t)size) != 0)
		return NULL;
	char *p = mmap(NULL, size, PROT_READ | PROT_WRITE, flags, fd, 0);
	close(fd);
	return p == MAP_FAILED ? NULL : p;
}

int main(int argc, char **argv)
{
	size_t thp = 8 << 20;
	pthread_t th[40];

	if (argc != 3)
		return 2;
	memset(bss, 1, 24 << 20);
	char *t = mmap(NULL, 2 * thp, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	t = (char *)(((unsigned long)t + (2 << 20) - 1) & ~((2UL << 20) - 1));
	madvise(t, thp, MADV_HUGEPAGE);
	memset(t, 2, thp);
	char *f = map_file(argv[1], 4 << 20, MAP_SHARED);
	if (!f)
		return 1;
	memset(f, 3, 2 << 20);
	msync(f, 4 << 20, MS_SYNC);
	int fd = open(argv[1], O_RDONLY);
	char *fp =
	    mmap(NULL, 4 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	close(fd);
	if (fp == MAP_FAILED)
		return 1;
	for (size_t i = 0; i < (4 << 20); i += 4096)
		*(volatile char *)(fp + i);
	memset(fp, 4, 1 << 20);
	char *d = map_file(argv[2], 1 << 20, MAP_SHARED);
	if (!d)
		return 1;
	memset(d, 5, 1 << 20);
	msync(d, 1 << 20, MS_SYNC);
	unlink(argv[2]);
	for (int i = 0; i < 40; i++)
		pthread_create(&th[i], NULL, thread_main, NULL);
	if (fork() == 0) {
		memset(bss, 7, 1 << 20);
		printf("child %d\n", getpid());
		fflush(stdout);
		for (;;)
			pause();
	}
	printf("ready %d\n", getpid());
	fflush(stdout);
	for (;;)
		pause();
}
