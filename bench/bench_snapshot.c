/* bench_snapshot.c — one residency snapshot beside one read of the same
 * process's /proc/PID/smaps, in the same run, and their ratio.
 * usage: bench_snapshot [DENSE_GIB [SPARSE_GIB RESIDENT_GIB [RUNS]]]
 * (defaults 3, 16, 4, 5: a child with DENSE_GIB of anon memory, every third
 * page freed; then a SPARSE_GIB mapping with RESIDENT_GIB touched in 2 MiB
 * islands spread over it; a size of 0 skips that case). Each figure is the
 * best of RUNS runs; the snapshot is timed writing a fresh file (the
 * previous one is removed before the clock starts) and writing to
 * /dev/null. */
#include "config.h"

#include "data/datafile.h"
#include "record/snapshot.h"
#include "util/util.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench/benchutil.h"

static pid_t spawn(size_t len, size_t resident, int pattern)
{
	int fd[2];
	char c;
	pid_t pid;

	if (pipe(fd))
		exit(1);
	pid = fork();
	if (pid == 0) {
		size_t pg = 4096, i;
		char *a = mmap(NULL, len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
			       -1, 0);

		if (a == MAP_FAILED)
			_exit(1);
		madvise(a, len, MADV_NOHUGEPAGE);
		if (pattern == 0) {
			for (i = 0; i < len; i += pg)
				a[i] = 1;
			for (i = 0; i < len / pg; i += 3)
				madvise(a + i * pg, pg, MADV_DONTNEED);
		} else {
			/* islands of 2 MiB, evenly spread */
			size_t islands = resident >> 21;
			size_t stride = len / islands;

			for (i = 0; i < islands; i++)
				memset(a + i * stride, 1, 2 << 20);
		}
		if (write(fd[1], "r", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(fd[1]);
	if (read(fd[0], &c, 1) != 1)
		exit(1);
	close(fd[0]);
	return pid;
}

static double time_smaps(pid_t pid, long *rss)
{
	char path[64], line[512];
	double t0 = bench_now();
	FILE *f;
	long v;

	snprintf(path, sizeof(path), "/proc/%d/smaps", (int)pid);
	f = fopen(path, "r");
	*rss = 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Rss: %ld", &v) == 1)
			*rss += v;
	fclose(f);
	return bench_now() - t0;
}

static double time_snapshot(pid_t pid, const char *out, struct snap_stats *st)
{
	struct md_writer *w;
	struct snapper *s;
	char *old = xasprintf("%s.old", out);
	double t0, t;

	/* freeing the previous file's pages is not the snapshot's cost */
	if (strcmp(out, "/dev/null")) {
		unlink(out);
		unlink(old);
	}
	free(old);
	t0 = bench_now();

	if (md_writer_open(out, &w) || snapper_new(w, &s))
		exit(1);
	if (snapper_take(s, pid, 0, 0, st) < 0)
		exit(1);
	snapper_free(s);
	md_writer_close(w);
	t = bench_now() - t0;
	return t;
}

static void bench(const char *what, size_t len, size_t resident, int pattern,
		  const char *out, int runs)
{
	pid_t pid = spawn(len, resident, pattern);
	double best_snap = 1e9, best_smaps = 1e9, best_null = 1e9;
	struct snap_stats st;
	long rss = 0;

	for (int i = 0; i < runs; i++) {
		best_smaps = MIN(best_smaps, time_smaps(pid, &rss));
		best_snap = MIN(best_snap, time_snapshot(pid, out, &st));
		best_null = MIN(best_null, time_snapshot(pid, "/dev/null", &st));
	}
	printf("%s: smaps %.2f ms (Rss %ld MiB)\n"
	       "  snapshot %.2f ms (%lu pages present, %lu runs, "
	       "%lu kpage look-ups%s)  ratio %.2f\n"
	       "  snapshot to /dev/null %.2f ms  ratio %.2f\n",
	       what, best_smaps * 1e3, rss >> 10, best_snap * 1e3,
	       (unsigned long)st.pages_present, (unsigned long)st.runs,
	       (unsigned long)st.kpage_lookups,
	       st.used_pagemap_scan ? ", PAGEMAP_SCAN" : "",
	       best_snap / best_smaps, best_null * 1e3,
	       best_null / best_smaps);
	fflush(stdout);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

int main(int argc, char **argv)
{
	size_t dense = argc > 1 ? strtoul(argv[1], NULL, 10) : 3;
	size_t sparse = argc > 2 ? strtoul(argv[2], NULL, 10) : 16;
	size_t res = argc > 3 ? strtoul(argv[3], NULL, 10) : 4;
	int runs = argc > 4 ? atoi(argv[4]) : 5;
	char out[] = "/tmp/memsz-bench-XXXXXX";
	char what[128];
	char *old;
	int fd = mkstemp(out);

	if (fd < 0)
		return 1;
	close(fd);
	if (runs < 1)
		runs = 1;
	if (dense) {
		snprintf(what, sizeof(what),
			 "%zu GiB anon, every 3rd page freed", dense);
		bench(what, dense << 30, 0, 0, out, runs);
	}
	if (sparse && res) {
		snprintf(what, sizeof(what), "%zu GiB sparse, %zu GiB resident",
			 sparse, res);
		bench(what, sparse << 30, res << 30, 1, out, runs);
	}
	old = xasprintf("%s.old", out);
	unlink(out);
	unlink(old);
	free(old);
	return 0;
}
