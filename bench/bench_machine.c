// SPDX-License-Identifier: GPL-2.0-or-later
/* bench_machine.c — what `record -a` and `record -G` add to account for
 * memory no process maps, beside what the kernel's own summaries cost in
 * the same run:
 *   walk        machine_read(): /proc/meminfo and every page frame of
 *               /proc/kpageflags sorted by kind (1 MiB preads)
 *   kpageflags  reading /proc/kpageflags alone, the same preads
 *   rollups     /proc/meminfo and every /proc/PID/smaps_rollup, read
 *   cache scan  pagecache_scan() of the regular files under DIR (their
 *               cached pages and the cgroups of their frames)
 *   fincore     util-linux fincore(1) on the same files (how many pages
 *               are cached, no cgroups), as one command
 * Each the best wall time of RUNS runs. Run as root (kpageflags,
 * kpagecgroup). usage: bench_machine [DIR [RUNS]] (defaults
 * /usr/lib/x86_64-linux-gnu, 5); at most 400 files of DIR. */
#include "config.h"

#include "record/machine.h"
#include "record/pagecache.h"
#include "util/util.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/benchutil.h"

#define MAX_FILES 400

static double walk(void)
{
	struct machine m = {0};
	double t = bench_now();

	machine_read(&m, true);
	t = bench_now() - t;
	machine_release(&m);
	return t;
}

static double kpageflags(void)
{
	uint64_t *blk = xmalloc(1u << 20);
	double t = bench_now();
	int fd = open("/proc/kpageflags", O_RDONLY);
	off_t off = 0;
	ssize_t r;

	while (fd >= 0 && (r = pread(fd, blk, 1u << 20, off)) > 0)
		off += r;
	if (fd >= 0)
		close(fd);
	free(blk);
	return bench_now() - t;
}

/* Read path to its end (nothing parsed). */
static void slurp(const char *path)
{
	char buf[8192];
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return;
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	close(fd);
}

static double rollups(void)
{
	double t = bench_now();
	struct dirent *de;
	DIR *d = opendir("/proc");
	char path[300];

	slurp("/proc/meminfo");
	while (d && (de = readdir(d))) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/smaps_rollup",
			 de->d_name);
		slurp(path);
	}
	if (d)
		closedir(d);
	return bench_now() - t;
}

static double scan(char **files, size_t n, int kpc, uint64_t *cached)
{
	struct pagecache_file pf = {0};
	double t = bench_now();

	*cached = 0;
	for (size_t i = 0; i < n; i++) {
		int fd = open(files[i], O_RDONLY | O_NOATIME);

		if (fd < 0)
			continue;
		if (pagecache_scan(fd, kpc, &pf) == 0)
			*cached += pf.cached;
		close(fd);
	}
	pagecache_release(&pf);
	return bench_now() - t;
}

static double fincore(const char *list)
{
	char *cmd = xasprintf("xargs -0 -a '%s' fincore >/dev/null 2>&1", list);
	double t = bench_now();

	if (system(cmd) < 0)
		t = -1;
	free(cmd);
	return bench_now() - t;
}

/* The regular files of dir (one level), at most MAX_FILES, into files[]
 * and NUL-separated into the file list. */
static size_t list_files(const char *dir, char **files, const char *list)
{
	FILE *f = fopen(list, "w");
	struct dirent *de;
	DIR *d = opendir(dir);
	size_t n = 0;

	while (d && f && n < MAX_FILES && (de = readdir(d))) {
		char *p = xasprintf("%s/%s", dir, de->d_name);
		struct stat st;

		if (lstat(p, &st) == 0 && S_ISREG(st.st_mode)) {
			files[n++] = p;
			fwrite(p, 1, strlen(p) + 1, f);
		} else {
			free(p);
		}
	}
	if (d)
		closedir(d);
	if (f)
		fclose(f);
	return n;
}

#define BEST(var, expr)                                                        \
	do {                                                                   \
		double _t = (expr);                                            \
		if (_t < (var))                                                \
			(var) = _t;                                            \
	} while (0)

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "/usr/lib/x86_64-linux-gnu";
	int runs = argc > 2 ? atoi(argv[2]) : 5;
	char list[] = "/tmp/bench_machine.XXXXXX";
	char *files[MAX_FILES];
	double tw = 1e9, tk = 1e9, tr = 1e9, ts = 1e9, tf = 1e9;
	int kpc = open("/proc/kpagecgroup", O_RDONLY), lfd = mkstemp(list);
	uint64_t cached = 0;
	size_t n;

	if (lfd >= 0)
		close(lfd);
	n = list_files(dir, files, list);
	for (int r = 0; r < runs; r++) {
		BEST(tw, walk());
		BEST(tk, kpageflags());
		BEST(tr, rollups());
		BEST(ts, scan(files, n, kpc, &cached));
		BEST(tf, fincore(list));
	}
	printf("page frame walk (meminfo + kpageflags sorted) %8.3f s  "
	       "%.2fx kpageflags read alone (%.3f s), %.2fx meminfo + every "
	       "smaps_rollup (%.3f s)\n",
	       tw, tw / tk, tk, tw / tr, tr);
	printf("page cache scan of %zu files in %s (%llu pages cached, "
	       "with cgroups) %8.3f s  %.2fx fincore (%.3f s)\n",
	       n, dir, (unsigned long long)cached, ts, ts / tf, tf);
	for (size_t i = 0; i < n; i++)
		free(files[i]);
	unlink(list);
	if (kpc >= 0)
		close(kpc);
	return 0;
}
