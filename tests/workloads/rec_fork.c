// SPDX-License-Identifier: GPL-2.0-or-later
/* rec_fork.c — forks N children; child i maps FILE (i+1 pages), touches
 * them, starts a thread in child 0, and exits; the parent waits for all.
 * usage: rec_fork FILE N */
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static void *thread_main(void *arg)
{
	return arg;
}

int main(int argc, char **argv)
{
	int n, fd, bad = 0;

	if (argc != 3)
		return 2;
	n = atoi(argv[2]);
	fd = open(argv[1], O_RDONLY);
	if (fd < 0)
		return 3;
	for (int i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid == 0) {
			volatile char *p = mmap(NULL, (i + 1) * 4096, PROT_READ,
						MAP_PRIVATE, fd, 0);
			pthread_t t;
			int sum = 0;

			if (p == MAP_FAILED)
				_exit(4);
			for (int k = 0; k <= i; k++)
				sum += p[k * 4096];
			if (i == 0 &&
			    (pthread_create(&t, NULL, thread_main, NULL) ||
			     pthread_join(t, NULL)))
				_exit(5);
			_exit(sum & 0);
		}
		if (pid < 0)
			return 6;
	}
	for (int i = 0; i < n; i++) {
		int st;

		if (wait(&st) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
			bad++;
	}
	return bad ? 9 : 0;
}
