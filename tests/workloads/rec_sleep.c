// SPDX-License-Identifier: GPL-2.0-or-later
/* rec_sleep.c — a long-running target for attach tests: maps FILE, touches
 * 64 anonymous pages, writes its pid to READY (atomically, when set up), then
 * maps FILE again and unmaps it HOLD ms later, HOLD ms apart (with no HOLD:
 * at once, every 20 ms), until killed. A second thread sleeps. usage: rec_sleep
 * FILE READY [HOLD] */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static void *sleeper(void *arg)
{
	for (;;)
		pause();
	return arg;
}

int main(int argc, char **argv)
{
	char tmp[4096], buf[32];
	pthread_t t;
	char *anon;
	int fd, rfd, hold;

	if (argc != 3 && argc != 4)
		return 2;
	hold = argc == 4 ? atoi(argv[3]) : 0;
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 ||
	    mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0) == MAP_FAILED)
		return 3;
	anon = mmap(NULL, 64 * 4096, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (anon == MAP_FAILED)
		return 4;
	memset(anon, 1, 64 * 4096);
	if (pthread_create(&t, NULL, sleeper, NULL))
		return 5;
	snprintf(tmp, sizeof(tmp), "%s.tmp", argv[2]);
	rfd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
	if (rfd < 0 || write(rfd, buf, strlen(buf)) < 0 || close(rfd) ||
	    rename(tmp, argv[2]))
		return 6;
	for (;;) {
		void *p = mmap(NULL, 8192, PROT_READ, MAP_PRIVATE, fd, 0);

		if (hold)
			usleep(hold * 1000);
		if (p != MAP_FAILED)
			munmap(p, 8192);
		usleep(hold ? hold * 1000 : 20000);
	}
}
