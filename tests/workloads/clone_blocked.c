// SPDX-License-Identifier: GPL-2.0-or-later
/* clone_blocked.c — workload of t2488: one of its threads is inside
 * clone() while memsz attaches, and the thread that clone() makes comes
 * only after memsz has read the thread list for the last time.
 *
 *   clone_blocked   (build with -pthread)
 *
 * Its thread "maker" calls clone(CLONE_THREAD | CLONE_PIDFD) with the
 * pidfd to be written to a page registered with userfaultfd (missing
 * pages): clone() has decided whether the new thread is traced (its maker
 * was not traced then) and blocks in that write until the page is filled.
 * A helper process owns the userfaultfd (memsz, attached to this process,
 * does not trace it). Once the fault came it prints "blocked", then
 * waits until the main thread is in a ptrace stop ('t':
 * memsz holds the threads it seized, which comes after its last reading
 * of the thread list while attaching), fills the page and prints
 * "resolved". The clone then completes; the new thread, not traced by the
 * kernel, pauses for ever, as the others do. The helper ends with this
 * process. Prints "skip: REASON" and exits 2 where userfaultfd may not be
 * used for kernel faults or clone() refuses CLONE_PIDFD with CLONE_THREAD
 * (before Linux 6.9).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef CLONE_PIDFD
#define CLONE_PIDFD 0x1000
#endif

#define STACK_BYTES (64u << 10)

static char *page;
static long page_size;
static pid_t helper;

/* The thread clone() makes: it runs on its maker's TLS (no
 * CLONE_SETTLS), so it makes plain system calls only. */
static int child_fn(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return 0;
}

static void *maker(void *arg)
{
	char *stack = malloc(STACK_BYTES);
	int r;

	(void)arg;
	if (!stack)
		exit(1);
	r = clone(child_fn, stack + STACK_BYTES,
		  CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND |
		      CLONE_THREAD | CLONE_SYSVSEM | CLONE_PIDFD,
		  NULL, (int *)page);
	if (r < 0) {
		printf("skip: clone(CLONE_THREAD | CLONE_PIDFD): %s\n",
		       strerror(errno));
		kill(helper, SIGKILL);
		exit(2);
	}
	for (;;)
		pause();
	return NULL;
}

/* The state letter of thread tid of pid, 0 if unreadable. */
static char state(pid_t pid, pid_t tid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pid, tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

/* The helper: told of the maker's fault, it waits for the main thread's
 * ptrace stop (looking every millisecond: nothing signals it), then fills
 * the page. */
static void help(int uffd, pid_t pid)
{
	struct timespec ms = {0, 1000000};
	struct uffd_msg m;
	struct uffdio_copy c;
	char *src;

	/* ends with the workload, even one that died before this */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != pid)
		_exit(1);
	if (read(uffd, &m, sizeof(m)) != sizeof(m) ||
	    m.event != UFFD_EVENT_PAGEFAULT)
		_exit(1);
	printf("blocked\n");
	while (state(pid, pid) != 't')
		nanosleep(&ms, NULL);
	src = aligned_alloc(page_size, page_size);
	if (!src)
		_exit(1);
	memset(src, 0, page_size);
	c = (struct uffdio_copy){.dst = (unsigned long)page,
				 .src = (unsigned long)src,
				 .len = page_size};
	if (ioctl(uffd, UFFDIO_COPY, &c) < 0)
		_exit(1);
	printf("resolved\n");
	_exit(0);
}

int main(void)
{
	struct uffdio_api api = {.api = UFFD_API};
	struct uffdio_register reg;
	pthread_t t;
	pid_t me;
	int uffd;

	setvbuf(stdout, NULL, _IOLBF, 0);
	page_size = sysconf(_SC_PAGESIZE);
	uffd = syscall(SYS_userfaultfd, O_CLOEXEC);
	if (uffd < 0 || ioctl(uffd, UFFDIO_API, &api) < 0) {
		printf("skip: userfaultfd: %s\n", strerror(errno));
		return 2;
	}
	page = mmap(NULL, page_size, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED)
		return 1;
	reg = (struct uffdio_register){
	    .range = {.start = (unsigned long)page, .len = page_size},
	    .mode = UFFDIO_REGISTER_MODE_MISSING};
	if (ioctl(uffd, UFFDIO_REGISTER, &reg) < 0) {
		printf("skip: UFFDIO_REGISTER: %s\n", strerror(errno));
		return 2;
	}
	me = getpid();
	helper = fork();
	if (helper < 0)
		return 1;
	if (!helper)
		help(uffd, me);
	if (pthread_create(&t, NULL, maker, NULL))
		return 1;
	for (;;)
		pause();
}
