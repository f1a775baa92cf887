// SPDX-License-Identifier: GPL-2.0-or-later
/* rec_threads.c — N threads, each blocked in read() on a pipe; each writes
 * "TID ADDR" (its thread id and the address of a variable on its stack) to
 * READY, which is complete (renamed into place) once all have. The process
 * exits when stdin closes. usage: rec_threads N READY */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static char lines[64][64];
static int nready;
static int pipefd[2];

static void *thread_main(void *arg)
{
	volatile char local[64] = {1};
	char c;
	int i = (int)(long)arg;

	snprintf(lines[i], sizeof(lines[i]), "%d %p\n", gettid(),
		 (void *)local);
	pthread_mutex_lock(&lock);
	nready++;
	pthread_cond_signal(&cond);
	pthread_mutex_unlock(&lock);
	if (read(pipefd[0], &c, 1) < 0)
		return NULL;
	return (void *)(long)local[0];
}

int main(int argc, char **argv)
{
	char tmp[4096], c;
	pthread_t t[64];
	FILE *f;
	int n;

	if (argc != 3 || (n = atoi(argv[1])) < 1 || n > 64 || pipe(pipefd))
		return 2;
	for (long i = 0; i < n; i++)
		pthread_create(&t[i], NULL, thread_main, (void *)i);
	pthread_mutex_lock(&lock);
	while (nready < n)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	snprintf(tmp, sizeof(tmp), "%s.tmp", argv[2]);
	f = fopen(tmp, "w");
	if (!f)
		return 3;
	for (int i = 0; i < n; i++)
		fputs(lines[i], f);
	fclose(f);
	rename(tmp, argv[2]);
	while (read(0, &c, 1) > 0)
		;
	close(pipefd[1]);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return 0;
}
