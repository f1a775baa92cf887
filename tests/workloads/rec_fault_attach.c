// SPDX-License-Identifier: GPL-2.0-or-later
/* rec_fault_attach.c — workload of t2102: every mapping is made before a
 * recorder attaches, every page fault after.
 *
 * usage: rec_fault_attach FILE
 * Maps FILE (private, read-only) and two anonymous buffers (3 and 5 MiB,
 * each followed by a PROT_NONE page so that no two merge), prints the
 * three addresses and stops itself. Once continued it faults them in:
 *
 *   main -> read_file            every page of FILE's mapping
 *   main -> touch_anon           every page of the 3 MiB buffer
 *   main -> fill_anon -> memset  the 5 MiB buffer
 *
 * prints "done", stops again, and exits when continued. Built with -O2
 * -fomit-frame-pointer -fasynchronous-unwind-tables: the stacks unwind
 * only through .eh_frame, found through the mappings the recording gives
 * the report. MADV_NOHUGEPAGE keeps one fault per anonymous page.
 *
 * usage: rec_fault_attach FILE quick
 * The same with buffers of 1/8 the size, waiting for a line on stdin
 * instead of stopping itself, and exiting right after "done".
 *
 * usage: rec_fault_attach hold
 * A process that a --freeze snapshot can stop only when told: a second
 * thread vforks a child that prints "held" and waits for a line on stdin
 * (the vfork holds the thread where no ptrace stop reaches it) before it
 * exits; the main thread waits for that thread (a ptrace stop reaches it
 * at once), then for the end of stdin, and exits.
 */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define MiB (1024 * 1024)
#define PAGE 4096

static volatile long sink;

/* An anonymous buffer of n bytes with a PROT_NONE page after it. */
static char *buffer(size_t n)
{
	char *p = mmap(NULL, n + PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	mprotect(p + n, PAGE, PROT_NONE);
	madvise(p, n, MADV_NOHUGEPAGE);
	return p;
}

__attribute__((noinline)) static void read_file(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i += PAGE)
		sink += p[i];
}

__attribute__((noinline)) static void touch_anon(char *p, size_t n)
{
	for (size_t i = 0; i < n; i += PAGE)
		p[i] = (char)(i | 1);
	sink += p[n - 1];
}

__attribute__((noinline)) static void fill_anon(char *p, size_t n)
{
	memset(p, 0x5a, n);
	sink += p[n - 1];
}

/* Wait for a line (or the end) of stdin. */
static void wait_line(void)
{
	char c;

	while (read(0, &c, 1) == 1 && c != '\n')
		;
}

/* The thread held in a vfork (hold). */
static void *vfork_held(void *arg)
{
	(void)arg;
	if (vfork() == 0) {
		/* only write, read and _exit: the parent's memory */
		if (write(1, "held\n", 5) != 5)
			_exit(1);
		wait_line();
		_exit(0);
	}
	return NULL;
}

static int hold(void)
{
	pthread_t th;

	if (pthread_create(&th, NULL, vfork_held, NULL))
		return 1;
	pthread_join(th, NULL);
	wait_line();
	return 0;
}

int main(int argc, char **argv)
{
	struct stat st;
	int quick = argc == 3 && !strcmp(argv[2], "quick");
	size_t scale = quick ? 8 : 1;
	char *f, *a, *b;
	int fd;

	if (argc == 2 && !strcmp(argv[1], "hold"))
		return hold();
	a = buffer(3 * MiB / scale);
	b = buffer(5 * MiB / scale);
	fd = argc >= 2 ? open(argv[1], O_RDONLY) : -1;
	if (fd < 0 || fstat(fd, &st) < 0 || !a || !b)
		return 1;
	f = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (f == MAP_FAILED)
		return 1;
	printf("%p %p %p\n", (void *)f, (void *)a, (void *)b);
	fflush(stdout);
	if (quick)
		wait_line();
	else
		raise(SIGSTOP);
	read_file(f, (size_t)st.st_size);
	touch_anon(a, 3 * MiB / scale);
	fill_anon(b, 5 * MiB / scale);
	printf("done\n");
	fflush(stdout);
	if (!quick)
		raise(SIGSTOP);
	return 0;
}
