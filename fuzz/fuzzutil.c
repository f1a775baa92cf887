/* fuzzutil.c — see fuzzutil.h */
#include "config.h"

#include "fuzz/fuzzutil.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static int memfd = -1, devnull = -1, saved_err = -1;

const char *fuzz_file(const void *p, size_t n)
{
	static char path[64];

	if (memfd < 0) {
		memfd = memfd_create("memsz-fuzz", MFD_CLOEXEC);
		if (memfd < 0)
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", memfd);
	}
	if (ftruncate(memfd, 0) || pwrite(memfd, p, n, 0) != (ssize_t)n)
		abort();
	return path;
}

void fuzz_quiet_begin(void)
{
	if (devnull < 0) {
		devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
		saved_err = fcntl(2, F_DUPFD_CLOEXEC, 10);
		if (devnull < 0 || saved_err < 0 ||
		    !freopen("/dev/null", "w", stdout))
			abort();
	}
	fflush(stderr);
	dup2(devnull, 2);
}

void fuzz_quiet_end(void)
{
	fflush(stdout);
	fflush(stderr);
	dup2(saved_err, 2);
}
