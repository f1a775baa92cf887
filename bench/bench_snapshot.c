// SPDX-License-Identifier: GPL-2.0-or-later
/* bench_snapshot.c — one residency snapshot beside one read of the same
 * process's /proc/PID/smaps (what `cat /proc/PID/smaps` costs: read(2)
 * until the end, nothing parsed), in the same run, for page layouts of
 * one large mapping, and the size of memsz.data per mapped page.
 * usage: bench_snapshot [MAPPED_GIB [RESIDENT_GIB [RUNS [LAYOUT [DIR]]]]]
 * (defaults 16, 4, 5, all, /tmp; LAYOUT 0-10 runs one of the layouts
 * below; DIR is where the snapshot's file is written: its create costs
 * what that file system charges, on ext4 24-43 us a create and rename,
 * more in a directory where this bench has just deleted thousands, on
 * tmpfs ~14 us).
 * A child maps MAPPED_GIB of anonymous memory (no THP) and touches about
 * RESIDENT_GIB of it in one layout:
 *   contiguous   the first RESIDENT_GIB
 *   every 2nd    every other page of the first 2 * RESIDENT_GIB (the
 *                worst layout: no two resident pages adjacent)
 *   every 4th    every fourth page
 *   random 25%   each page with probability 1/4, over the whole mapping
 *   1 page/2 MiB one page in each 2 MiB of the whole mapping (sparse)
 *   20 TiB reserve a 20 TiB MAP_NORESERVE mapping, untouched (the
 *                mapping's size is not MAPPED_GIB)
 *   THP contig.  the first RESIDENT_GIB, with MADV_HUGEPAGE
 *   file, half   a shared read-only mapping of a 2 * RESIDENT_GIB file
 *                (sparse, its cache dropped first, MADV_RANDOM) of which
 *                every other page is read: half of it cached and mapped,
 *                file pages whose dirtiness a snapshot must know
 *   file, dirty  the same, then one cached page in 512 written with
 *                pwrite(2) (PG_dirty: a few dirty pages among clean ones;
 *                written back ~30 s later, dirty_expire_centisecs)
 *   fork, 3 ch.  the first RESIDENT_GIB, then 3 children forked that
 *                share every page copy-on-write (mapcount 4: PSS needs a
 *                kpagecount look-up per page)
 *   fork, scattered  the same, its pages touched in an order that
 *                jumps, so that neighbouring pages get frames far apart,
 *                as on a machine up for a while (its frames then lie
 *                scattered: 4 GiB touched in order after 22 hours up
 *                here took ~3.7 look-ups a pread sorted chunk by chunk)
 * (a span larger than the mapping is cut to it). Every layout also times
 * its floor: the fastest look-up of the same columns this bench can write
 * with the interfaces memsz must use (time_kpc: PAGEMAP_SCAN, the pagemap
 * entries of what it finds, one pread per two huge pages a PMD maps and
 * a kpageflags read per anonymous one (PG_anon_exclusive; memsz reads
 * smaps once instead where the huge pages pay for it, see snap_share.h),
 * kpagecount for pages not mapped exclusively, kpagecgroup for file
 * pages, kpageflags only where cachestat(2) finds dirty pages (in
 * pieces, as memsz asks), each kpage
 * file sorted once for the whole process and read in one pread per run
 * of nearby frames; nothing classified, encoded or written) and prints
 * memsz / floor and floor / smaps; the sparse layout also its floor's
 * page-table parts (bench_floor_parts: the scan, the pagemap preads) and
 * what the scan and a read of smaps, instead of the preads, would take.
 * Each time is the
 * best of RUNS runs, as wall time and as CPU time of every thread (the snapshot
 * reads pagemap on several threads; CPU time is what a loaded machine
 * shows best); the snapshot is timed writing a fresh file (the previous one
 * is removed before the clock starts), opened as a one-shot of record
 * opens it (unnamed, linked in at its end: MD_WRITER_UNNAMED). Bits per mapped
 * page count the whole file over every mapping of the process; "v1" is what the
 * same runs took in format version 1 (24 bytes a run). The snapshot knows the
 * process's memory cgroup, as record does. */
#include "config.h"

#include "data/datafile.h"
#include "record/memcg.h"
#include "record/snapshot.h"
#include "util/util.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench/benchfloor.h"
#include "bench/benchutil.h"

enum layout {
	CONTIGUOUS,
	EVERY2,
	EVERY4,
	RANDOM25,
	SPARSE2M,
	RESERVE,
	THP,
	FILEHALF,
	FORK,
	FORK_SCATTERED,
	FILEDIRTY,
	LAYOUT_COUNT
};

static const char *const layout_names[] = {
    "contiguous",     "every 2nd page",	 "every 4th page", "random 25%",
    "1 page / 2 MiB", "20 TiB reserve",	 "THP contig.",	   "file, half",
    "fork, 3 ch.",    "fork, scattered", "file, dirty",
};

/* Children the fork layout forks. */
#define FORK_CHILDREN 3

/* The size of the mapping of the reservation layout: what sanitizers,
 * JVMs and Go reserve, untouched. */
#define RESERVE_BYTES (20ull << 40)

/* CPU time (user + system) of this process, every thread. */
static double cpu(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

/* Wall and CPU time of one measured call. */
struct cost {
	double wall, cpu;
};

/* Touch the pages of layout l in a[0, len); resident is the target. */
static void touch(char *a, size_t len, size_t resident, enum layout l)
{
	size_t pg = 4096, npages = len / pg, i;
	uint64_t x = 88172645463325252ull;

	switch (l) {
	case CONTIGUOUS:
		for (i = 0; i < MIN(resident, len); i += pg)
			a[i] = 1;
		break;
	case EVERY2:
	case EVERY4: {
		size_t step = l == EVERY2 ? 2 : 4;
		size_t span = MIN(npages, resident / pg * step);

		for (i = 0; i < span; i += step)
			a[i * pg] = 1;
		break;
	}
	case SPARSE2M:
		for (i = 0; i < npages; i += 512)
			a[i * pg] = 1;
		break;
	case RESERVE:
	case FILEHALF:
	case FILEDIRTY:
		break;
	case THP:
	case FORK:
		for (i = 0; i < MIN(resident, len); i += pg)
			a[i] = 1;
		break;
	case FORK_SCATTERED: {
		/* the same pages in an order that jumps (an odd stride
		 * modulo a power of two visits each page once): pages
		 * next to each other get frames far apart */
		size_t n =
		    (size_t)1
		    << (63 - __builtin_clzll(MAX(MIN(resident, len) / pg, 1)));

		for (i = 0; i < n; i++)
			a[(i * 0x9e3779b1ull & (n - 1)) * pg] = 1;
		break;
	}
	default:
		for (i = 0; i < npages; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			if (x % 4 == 0)
				a[i * pg] = 1;
		}
		break;
	}
}

/* The file layouts: map a sparse file of 2 * resident bytes (its cache
 * dropped, so that only what is read is cached) and read every other
 * page of it; with dirty, write a byte to every 512th page read. The file
 * is unlinked at once; the mapping keeps it. */
static char *map_file_half(size_t resident, bool dirty)
{
	char path[] = "/var/tmp/memsz-bench-file-XXXXXX";
	size_t len = 2 * resident, pg = 4096;
	int fd = mkstemp(path);
	char *a;

	if (fd < 0 || ftruncate(fd, (off_t)len))
		_exit(1);
	unlink(path);
	posix_fadvise(fd, 0, (off_t)len, POSIX_FADV_DONTNEED);
	a = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	if (a == MAP_FAILED)
		_exit(1);
	/* no read-ahead: a fault reads and maps its own page only */
	madvise(a, len, MADV_RANDOM);
	for (size_t i = 0; i < len; i += 2 * pg)
		(void)*(volatile char *)&a[i]; /* fault the page in */
	for (size_t i = 0; dirty && i < len; i += 1024 * pg)
		if (pwrite(fd, "d", 1, (off_t)i) != 1)
			_exit(1);
	close(fd);
	return a;
}

static pid_t spawn(size_t len, size_t resident, enum layout l)
{
	int fd[2];
	char c;
	pid_t pid;

	if (pipe(fd))
		exit(1);
	pid = fork();
	if (pid == 0) {
		char *a;

		/* its own group, which the fork layout's children join:
		 * killed together */
		setpgid(0, 0);
		if (l == FILEHALF || l == FILEDIRTY) {
			a = map_file_half(resident, l == FILEDIRTY);
		} else {
			a = mmap(NULL, len, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
				 -1, 0);
			if (a == MAP_FAILED)
				_exit(1);
			madvise(a, len,
				l == THP ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
			touch(a, len, resident, l);
		}
		for (int k = 0;
		     (l == FORK || l == FORK_SCATTERED) && k < FORK_CHILDREN;
		     k++)
			if (fork() == 0) {
				pause();
				_exit(0);
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

/* Read /proc/PID/smaps to its end, as cat does. */
static struct cost time_smaps(pid_t pid, size_t *bytes)
{
	static char buf[1 << 16];
	char path[64];
	double c0 = cpu(), t0 = bench_now();
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/smaps", (int)pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		exit(1);
	*bytes = 0;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		*bytes += (size_t)n;
	close(fd);
	return (struct cost){bench_now() - t0, cpu() - c0};
}

/* The inode of pid's memory cgroup, as record finds it (pages charged
 * to it are the process's own: no charge runs), or 0. */
static uint64_t cgroup_ino(pid_t pid)
{
	struct memcg_mounts mm;
	struct stat st;
	char *dir = NULL;
	uint64_t ino = 0;

	if (memcg_mounts_read(&mm) == 0 &&
	    memcg_dir_of_pid((int)pid, &mm, &dir) == 0 && stat(dir, &st) == 0)
		ino = st.st_ino;
	free(dir);
	return ino;
}

static struct cost time_snapshot(pid_t pid, const char *out,
				 struct snap_stats *st)
{
	struct md_writer *w;
	struct snapper *s;
	char *old = xasprintf("%s.old", out);
	double t0, c0;
	int ret;

	/* freeing the previous file's pages is not the snapshot's cost */
	unlink(out);
	unlink(old);
	free(old);
	c0 = cpu();
	t0 = bench_now();
	/* opened as record --duration 0 opens its file */
	if (md_writer_open_flags(out, MD_WRITER_BATCH | MD_WRITER_UNNAMED,
				 &w) ||
	    snapper_new(w, &s))
		exit(1);
	snapper_set_cgroup(s, cgroup_ino(pid));
	ret = snapper_take(s, pid, 0, 0, st);
	if (ret < 0) {
		fprintf(stderr, "bench_snapshot: %s\n", strerror(-ret));
		exit(1);
	}
	snapper_free(s);
	md_writer_commit(w);
	md_writer_close(w);
	return (struct cost){bench_now() - t0, cpu() - c0};
}

/* The floor (bench_floor), timed: its cost, and in *sum the sum of what
 * it read. */
static struct cost time_kpc(pid_t pid, uint64_t *sum)
{
	double c0 = cpu(), t0 = bench_now();

	*sum = bench_floor(pid);
	return (struct cost){bench_now() - t0, cpu() - c0};
}

/* Mapped pages and the version 1 size of the snapshot in file out. */
static void file_pages(const char *out, uint64_t *mapped, uint64_t *v1)
{
	struct md_reader *r;
	struct md_record rec;
	uint64_t ps;

	*mapped = 0;
	*v1 = 0;
	if (md_reader_open(out, &r))
		exit(1);
	ps = md_reader_header(r)->page_size;
	*v1 = md_reader_offset(r);
	while (md_read_next(r, &rec) == 1) {
		if (rec.type != MD_REC_SNAP_MAPPING) {
			*v1 += rec.size;
			continue;
		}
		*mapped += (rec.u.mapping.end - rec.u.mapping.start) / ps;
		*v1 += 16 + 64 +
		       ((4 + strlen(rec.u.mapping.name) + 1 + 7) & ~7ul) +
		       24 * rec.u.mapping.nruns;
	}
	md_reader_close(r);
}

/* The sparse layout's page-table parts (bench_floor_parts) beside smaps
 * (smaps_cpu, CPU seconds): where its floor goes, and what reading smaps
 * for the exclusive bit (Shared_Clean and Shared_Dirty 0: every page
 * mapped once) instead of a pagemap pread per lone page would cost. */
static void print_parts(pid_t pid, int runs, double smaps_cpu)
{
	double scan, pr;

	bench_floor_parts(pid, runs, &scan, &pr);
	printf("%-15s parts: scan %.2f ms cpu (%.2fx smaps), pagemap preads "
	       "%.2f ms (%.2fx): %.2fx; scan and smaps instead of the "
	       "preads %.2fx\n",
	       "", scan * 1e3, scan / smaps_cpu, pr * 1e3, pr / smaps_cpu,
	       (scan + pr) / smaps_cpu, (scan + smaps_cpu) / smaps_cpu);
}

static void bench(enum layout l, size_t len, size_t resident, const char *out,
		  int runs)
{
	pid_t pid;
	struct cost snap = {1e9, 1e9}, smaps = {1e9, 1e9}, kpc = {1e9, 1e9}, c;
	uint64_t kpc_sum = 0;
	struct snap_stats st;
	uint64_t mapped, v1;
	size_t smaps_bytes = 0;
	struct stat sb;

	if (l == RESERVE)
		len = RESERVE_BYTES;
	pid = spawn(len, resident, l);

	for (int i = 0; i < runs; i++) {
		c = time_smaps(pid, &smaps_bytes);
		smaps.wall = MIN(smaps.wall, c.wall);
		smaps.cpu = MIN(smaps.cpu, c.cpu);
		c = time_snapshot(pid, out, &st);
		snap.wall = MIN(snap.wall, c.wall);
		snap.cpu = MIN(snap.cpu, c.cpu);
		c = time_kpc(pid, &kpc_sum);
		kpc.wall = MIN(kpc.wall, c.wall);
		kpc.cpu = MIN(kpc.cpu, c.cpu);
	}
	if (stat(out, &sb))
		exit(1);
	file_pages(out, &mapped, &v1);
	printf("%-15s %7.0f MiB %9lu %8.2f %6.3f %6.3f %7.2f %7.2f %5.2f "
	       "%7.2f %7.2f %5.2f\n",
	       layout_names[l], (double)st.pages_present * 4096 / (1 << 20),
	       (unsigned long)st.runs, (double)sb.st_size / 1024,
	       (double)sb.st_size / (double)mapped,
	       (double)sb.st_size * 8 / (double)mapped, snap.wall * 1e3,
	       smaps.wall * 1e3, snap.wall / smaps.wall, snap.cpu * 1e3,
	       smaps.cpu * 1e3, snap.cpu / smaps.cpu);
	printf("%-15s %-11s %9s %8.0f %6.3f %6.3f   (version 1)\n", "", "", "",
	       (double)v1 / 1024, (double)v1 / (double)mapped,
	       (double)v1 * 8 / (double)mapped);
	printf("%-15s floor (scan, pagemap, sorted kpage look-ups): %.2f ms "
	       "wall, %.2f ms cpu; snap / floor %.2f cpu, floor / smaps %.2f "
	       "cpu\n",
	       "", kpc.wall * 1e3, kpc.cpu * 1e3, snap.cpu / kpc.cpu,
	       kpc.cpu / smaps.cpu);
	if (l == SPARSE2M)
		print_parts(pid, runs, smaps.cpu);
	fflush(stdout);
	kill(-pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

int main(int argc, char **argv)
{
	size_t mapped = argc > 1 ? strtoul(argv[1], NULL, 10) : 16;
	size_t res = argc > 2 ? strtoul(argv[2], NULL, 10) : 4;
	int runs = argc > 3 ? atoi(argv[3]) : 5;
	int only = argc > 4 ? atoi(argv[4]) : -1;
	char *out =
	    xasprintf("%s/memsz-bench-XXXXXX", argc > 5 ? argv[5] : "/tmp");
	char *old;
	int fd = mkstemp(out);

	if (fd < 0 || !mapped || !res)
		return 1;
	close(fd);
	if (runs < 1)
		runs = 1;
	printf("one %zu GiB anonymous mapping, about %zu GiB resident; "
	       "best of %d\n",
	       mapped, res, runs);
	printf("%-15s %11s %9s %8s %6s %6s %-21s %-21s\n", "", "", "", "", "",
	       "", "wall ms", "cpu ms");
	printf("%-15s %11s %9s %8s %6s %6s %7s %7s %5s %7s %7s %5s\n", "layout",
	       "resident", "runs", "file KiB", "B/page", "bit/pg", "snap",
	       "smaps", "ratio", "snap", "smaps", "ratio");
	for (int l = 0; l < LAYOUT_COUNT; l++)
		if (only < 0 || only == l)
			bench(l, mapped << 30, res << 30, out, runs);
	old = xasprintf("%s.old", out);
	unlink(out);
	unlink(old);
	free(old);
	free(out);
	return 0;
}
