// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzzutil.c — see fuzzutil.h */
#include "config.h"

#include "fuzz/fuzzutil.h"
#include "elf/elfimg.h"

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

struct elfimg *fuzz_elf_open(const void *p, size_t n)
{
	struct elfimg *img;

	if (elfimg_open(fuzz_file(p, n), &img))
		return NULL;
	return img;
}

void fuzz_maps_begin(struct elfimg *img, struct fuzz_maps *m)
{
	m->lb = labels_new();
	dualmap_init(&m->base);
	dualmap_init(&m->out);
	elfimg_base_map(img, m->lb, &m->base);
}

void fuzz_maps_end(struct fuzz_maps *m)
{
	dualmap_free(&m->base);
	dualmap_free(&m->out);
	labels_free(m->lb);
}

int fuzz_elf_map(struct elfimg *img, int src)
{
	struct elfsrc_stats st;
	struct fuzz_maps m;
	int ret;

	fuzz_maps_begin(img, &m);
	ret = elfimg_source_map(img, src, NULL, m.lb, &m.base, &m.out, &st);
	fuzz_maps_end(&m);
	return ret;
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
