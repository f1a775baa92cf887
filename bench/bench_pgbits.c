// SPDX-License-Identifier: GPL-2.0-or-later
/* bench_pgbits.c — the size of a recording per mapped page, for the
 * layouts where page states cost most: forked memory and many mappings.
 * usage: bench_pgbits [MEMSZ [MIB]]   (defaults ./memsz, 1024)
 * Each case starts processes, runs `MEMSZ record -p PID[,PID...]
 * --duration 0`, and reads the file back: "state bits/pg" are the
 * SNAP_MAPPING records' bytes (header, fields, page states) times 8 over
 * the mapped pages of every mapping of every process recorded; "file
 * bits/pg" the whole file's bytes the same way (images, mmap records,
 * notes included). Each case's line is followed by the bytes of the other
 * record types, largest first ("rest"): the per-file overhead.
 *   fork K      a parent writes every page of a MIB MiB anonymous mapping
 *               (no THP), forks K children (1, 3, 7), and each child writes
 *               a pseudo-random eighth of the pages (breaking copy on
 *               write there), so each page's mapcount is anything from 1
 *               to K + 1: the parent and the children are recorded
 *   maps N      one process maps MIB MiB as N anonymous mappings (1 k,
 *               10 k, 60 k; every other one read-only so that none merge)
 *               and writes every page
 * Asserts nothing; prints figures. */
#include "config.h"

#include "data/datafile.h"
#include "util/util.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define PG 4096ul
#define MAX_PROCS 8

/* xorshift64: the pages a child writes */
static uint64_t next_rand(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* Tell the parent through fd that we are ready, then wait to be killed. */
static void ready_wait(int fd)
{
	if (write(fd, "r", 1) != 1)
		_exit(1);
	for (;;)
		pause();
}

/* A child of the forking parent: write an eighth of the pages. */
static void child_write(char *a, size_t npages, int idx, int fd)
{
	uint64_t x = 0x9e3779b97f4a7c15ull * (uint64_t)(idx + 1);

	for (size_t i = 0; i < npages; i++)
		if (next_rand(&x) % 8 == 0)
			a[i * PG] = (char)idx;
	ready_wait(fd);
}

/* The forking parent (itself a child of the bench): K children sharing
 * its pages; it writes their pids and its own to fd once all are ready. */
static void fork_parent(size_t len, int k, int fd)
{
	pid_t pids[MAX_PROCS];
	int p[2];
	char c;
	char *a = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (a == MAP_FAILED || pipe(p))
		_exit(1);
	madvise(a, len, MADV_NOHUGEPAGE);
	for (size_t i = 0; i < len; i += PG)
		a[i] = 1;
	for (int i = 0; i < k; i++) {
		pids[i] = fork();
		if (pids[i] == 0) {
			close(p[0]);
			child_write(a, len / PG, i, p[1]);
		}
	}
	close(p[1]);
	for (int i = 0; i < k; i++)
		if (read(p[0], &c, 1) != 1)
			_exit(1);
	pids[k] = getpid();
	if (write(fd, pids, sizeof(pid_t) * (k + 1)) !=
	    (ssize_t)(sizeof(pid_t) * (k + 1)))
		_exit(1);
	for (;;)
		pause();
}

/* A process of n mappings over len bytes, every page written. */
static void many_maps(size_t len, size_t n, int fd)
{
	size_t each = (len / n + PG - 1) / PG * PG;
	pid_t self = getpid();

	for (size_t i = 0; i < n; i++) {
		char *a = mmap(NULL, each, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (a == MAP_FAILED)
			_exit(1);
		for (size_t j = 0; j < each; j += PG)
			a[j] = 1;
		if (i & 1)
			mprotect(a, each, PROT_READ);
	}
	if (write(fd, &self, sizeof(self)) != sizeof(self))
		_exit(1);
	for (;;)
		pause();
}

struct sizes {
	uint64_t mapped, state, file;
	uint64_t by_type[MD_REC__COUNT]; /* bytes of each record type */
	uint64_t file_header;
};

static struct sizes file_sizes(const char *out)
{
	struct sizes s = {0};
	struct md_reader *r;
	struct md_record rec;
	struct stat sb;
	uint64_t ps;

	if (md_reader_open(out, &r) || stat(out, &sb))
		exit(1);
	ps = md_reader_header(r)->page_size;
	s.file_header = md_reader_header(r)->header_size;
	while (md_read_next(r, &rec) == 1) {
		if (rec.type < MD_REC__COUNT)
			s.by_type[rec.type] += rec.size;
		if (rec.type != MD_REC_SNAP_MAPPING)
			continue;
		s.mapped += (rec.u.mapping.end - rec.u.mapping.start) / ps;
		s.state += rec.size;
	}
	md_reader_close(r);
	s.file = (uint64_t)sb.st_size;
	return s;
}

/* The bytes of the record types other than SNAP_MAPPING, largest first,
 * and the file header: what the file holds besides the page states. */
static void print_rest(const struct sizes *s)
{
	bool done[MD_REC__COUNT] = {false};

	printf("  rest: header %lu", (unsigned long)s->file_header);
	for (;;) {
		size_t best = 0;

		for (size_t t = 1; t < MD_REC__COUNT; t++)
			if (!done[t] && t != MD_REC_SNAP_MAPPING &&
			    s->by_type[t] > s->by_type[best])
				best = t;
		if (!best)
			break;
		done[best] = true;
		printf(", %s %lu", md_rec_name((uint32_t)best),
		       (unsigned long)s->by_type[best]);
	}
	putchar('\n');
}

/* Record the processes that the child started by start() reports on its
 * pipe, print a line, kill them all. */
static void run_case(const char *memsz, const char *out, const char *name,
		     int nprocs, void (*start)(size_t, size_t, int), size_t len,
		     size_t arg)
{
	pid_t pids[MAX_PROCS], top;
	char cmd[512], list[256] = "";
	struct sizes s;
	int p[2];

	if (pipe(p))
		exit(1);
	top = fork();
	if (top == 0) {
		close(p[0]);
		start(len, arg, p[1]);
	}
	close(p[1]);
	if (read(p[0], pids, sizeof(pid_t) * nprocs) !=
	    (ssize_t)(sizeof(pid_t) * nprocs))
		exit(1);
	close(p[0]);
	for (int i = 0; i < nprocs; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list),
			 "%s%d", i ? "," : "", (int)pids[i]);
	snprintf(cmd, sizeof(cmd),
		 "%s record -p %s --duration 0 -o %s >/dev/null 2>&1", memsz,
		 list, out);
	if (system(cmd))
		fprintf(stderr, "bench_pgbits: '%s' failed\n", cmd);
	s = file_sizes(out);
	printf("%-10s %9lu %10lu %9.1f %9lu %8.2f\n", name,
	       (unsigned long)s.mapped, (unsigned long)s.state,
	       (double)s.state * 8 / (double)s.mapped, (unsigned long)s.file,
	       (double)s.file * 8 / (double)s.mapped);
	print_rest(&s);
	fflush(stdout);
	for (int i = 0; i < nprocs; i++)
		kill(pids[i], SIGKILL);
	kill(top, SIGKILL);
	while (waitpid(-1, NULL, 0) > 0)
		;
}

static void start_fork(size_t len, size_t k, int fd)
{
	fork_parent(len, (int)k, fd);
}

int main(int argc, char **argv)
{
	const char *memsz = argc > 1 ? argv[1] : "./memsz";
	size_t mib = argc > 2 ? strtoul(argv[2], NULL, 10) : 1024;
	static const size_t forks[] = {1, 3, 7};
	static const size_t maps[] = {1000, 10000, 60000};
	char out[] = "/tmp/memsz-pgbits-XXXXXX";
	char name[32];
	int fd = mkstemp(out);

	if (fd < 0 || !mib)
		return 1;
	close(fd);
	printf("%-10s %9s %10s %9s %9s %8s\n", "case", "mapped pg", "state B",
	       "bits/pg", "file B", "bits/pg");
	for (size_t i = 0; i < ARRAY_SIZE(forks); i++) {
		snprintf(name, sizeof(name), "fork %zu", forks[i]);
		run_case(memsz, out, name, (int)forks[i] + 1, start_fork,
			 mib << 20, forks[i]);
	}
	for (size_t i = 0; i < ARRAY_SIZE(maps); i++) {
		snprintf(name, sizeof(name), "maps %zuk", maps[i] / 1000);
		run_case(memsz, out, name, 1, many_maps, mib << 20, maps[i]);
	}
	unlink(out);
	return 0;
}
