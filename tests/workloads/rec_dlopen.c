// SPDX-License-Identifier: GPL-2.0-or-later
/* rec_dlopen.c — a deterministic mapping workload for `memsz record` tests:
 * dlopen/dlclose LIB in a loop, mmap/munmap FILE at changing offsets, then
 * fork a child that maps FILE shared and exits, and wait for it.
 * usage: rec_dlopen LIB FILE ROUNDS */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int rounds, fd, st;
	pid_t pid;

	if (argc != 4)
		return 2;
	rounds = atoi(argv[3]);
	fd = open(argv[2], O_RDONLY);
	if (fd < 0)
		return 3;
	for (int i = 0; i < rounds; i++) {
		void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
		int (*f)(int);
		char *p;

		if (!h)
			return 4;
		f = (int (*)(int))dlsym(h, "rec_lib_f");
		if (!f || f(i) < 0)
			return 5;
		dlclose(h);
		p = mmap(NULL, (1 + i % 3) * 4096, PROT_READ, MAP_PRIVATE, fd,
			 (i % 2) * 4096);
		if (p == MAP_FAILED)
			return 6;
		munmap(p, (1 + i % 3) * 4096);
	}
	pid = fork();
	if (pid == 0) {
		char *p = mmap(NULL, 8192, PROT_READ, MAP_SHARED, fd, 8192);

		_exit(p == MAP_FAILED ? 7 : 0);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return 8;
	return WEXITSTATUS(st);
}
