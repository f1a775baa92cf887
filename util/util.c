// SPDX-License-Identifier: GPL-2.0-or-later
/* util.c — see util.h */
#include "config.h"

#include "util/util.h"
#include "util/escape.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

const char *memsz_progname = "memsz";

static const char *const memsz_errors[] = {
    [MEMSZ_ENOTELF - MEMSZ_EBASE] = "not an ELF file",
    [MEMSZ_ETRUNC - MEMSZ_EBASE] = "file is truncated",
    [MEMSZ_EBADELF - MEMSZ_EBASE] = "corrupt ELF header",
    [MEMSZ_EBADPHDR - MEMSZ_EBASE] = "corrupt program header table",
    [MEMSZ_EBADSHDR - MEMSZ_EBASE] = "corrupt section header table",
    [MEMSZ_EBADSTRTAB - MEMSZ_EBASE] = "corrupt string table",
    [MEMSZ_EBADSYM - MEMSZ_EBASE] = "corrupt symbol table",
    [MEMSZ_EBADDATA - MEMSZ_EBASE] = "malformed record",
    [MEMSZ_EBADMAGIC - MEMSZ_EBASE] = "not a memsz.data file (bad magic)",
    [MEMSZ_EVERSION - MEMSZ_EBASE] =
	"written by a newer memsz (unknown format version)",
    [MEMSZ_EUSAGE - MEMSZ_EBASE] = "invalid argument",
    [MEMSZ_ENOTSUP - MEMSZ_EBASE] = "not supported",
    [MEMSZ_ENOLIB - MEMSZ_EBASE] = "shared library cannot be loaded "
				   "(libdebuginfod1, libzydis4.0 or "
				   "libpfm4 missing)",
    [MEMSZ_ESPECIAL - MEMSZ_EBASE] = "a pipe, device or socket (written "
				     "only with --output-special)",
    [MEMSZ_EUNSAFELINK - MEMSZ_EBASE] = "a symlink another user owns in "
					"a sticky directory (not followed)",
    [MEMSZ_EBADAR - MEMSZ_EBASE] = "corrupt archive member header",
    [MEMSZ_ETHINAR - MEMSZ_EBASE] = "a thin archive: its members are "
				    "files of their own (name them)",
    [MEMSZ_EDIFDOWN - MEMSZ_EBASE] = "not asked: the debuginfod servers "
				     "failed earlier",
    [MEMSZ_ENOTREG - MEMSZ_EBASE] = "not a regular file (recordings and "
				    "ELF files are read only from regular "
				    "files)",
    [MEMSZ_EFDLINK - MEMSZ_EBASE] = "a link to a file descriptor (or "
				    "another link of /proc): never replaced, "
				    "written into only with --output-special, "
				    "and only to a descriptor memsz was "
				    "given",
    [MEMSZ_EMIXERR - MEMSZ_EBASE] = "also memsz's standard error: the "
				    "recording would mix with its messages",
    [MEMSZ_EMIXCMD - MEMSZ_EBASE] = "also the command's output: the "
				    "recording would mix with it",
    [MEMSZ_ESTDCLOSED - MEMSZ_EBASE] = "that descriptor was closed when "
				       "memsz started (memsz put /dev/null "
				       "on it): the recording would be lost",
    [MEMSZ_ENOTWRITE - MEMSZ_EBASE] = "that descriptor is not open for "
				      "writing",
    [MEMSZ_EKERNFS - MEMSZ_EBASE] = "on a file system of the kernel's "
				    "(/proc, /sys, cgroups): no recording is "
				    "written there",
    [MEMSZ_ERINGSMALL - MEMSZ_EBASE] = "a sample ring too small for two "
				       "samples with their stack copies "
				       "(give a larger -m, or a smaller "
				       "--stack-size)",
    [MEMSZ_EBADDWP - MEMSZ_EBASE] = "its unit index (.debug_cu_index) is "
				    "corrupt or out of its section",
    [MEMSZ_EDWPNOINFO - MEMSZ_EBASE] = "it has no .debug_info.dwo (its index "
				       "has no info column: binutils 2.40's "
				       "dwp drops DWARF 5 units)",
    [MEMSZ_EDWPZ - MEMSZ_EBASE] = "its DWARF sections are compressed, "
				  "which memsz does not read",
    [MEMSZ_EDWPOVERLAP - MEMSZ_EBASE] = "two of its DWARF sections share "
					"bytes",
    [MEMSZ_EENDED - MEMSZ_EBASE] = "the recording is complete (its END "
				   "record is written): no record follows it",
    [MEMSZ_EMLOCK - MEMSZ_EBASE] = "the perf ring buffers are over the "
				   "locked-memory limit (perf_event_mlock_kb, "
				   "ulimit -l)",
    [MEMSZ_ESTALLED - MEMSZ_EBASE] = "its reader stopped reading, and "
				     "memsz was told to stop meanwhile",
};

const char *memsz_strerror(int err)
{
	if (err < 0)
		err = -err;
	if (err > MEMSZ_EBASE && err < MEMSZ_ELAST &&
	    memsz_errors[err - MEMSZ_EBASE])
		return memsz_errors[err - MEMSZ_EBASE];
	return strerror(err);
}

static void oom(size_t n)
{
	fprintf(stderr, "%s: out of memory allocating %zu bytes\n",
		memsz_progname, n);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom(n);
	return p;
}

/* Transparent huge page size on x86-64 (and arm64 with 4 KiB pages). */
#define HUGE_SIZE ((size_t)2 << 20)

void *try_malloc_huge(size_t n)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), keep;
	uintptr_t a, start;
	void *p;

	if (n < HUGE_SIZE || n > SIZE_MAX - HUGE_SIZE)
		return malloc(n ? n : 1);
	/* map HUGE_SIZE more and keep n bytes from a 2 MiB boundary */
	p = mmap(NULL, n + HUGE_SIZE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	a = (uintptr_t)p;
	start = (a + HUGE_SIZE - 1) & ~(uintptr_t)(HUGE_SIZE - 1);
	keep = (n + page - 1) & ~(page - 1);
	if (start > a)
		munmap(p, start - a);
	if (a + n + HUGE_SIZE > start + keep)
		munmap((void *)(start + keep),
		       a + n + HUGE_SIZE - start - keep);
	advise_huge((void *)start, n);
	return (void *)start;
}

void advise_huge(void *p, size_t n)
{
	uintptr_t s =
	    ((uintptr_t)p + HUGE_SIZE - 1) & ~(uintptr_t)(HUGE_SIZE - 1);
	uintptr_t e = ((uintptr_t)p + n) & ~(uintptr_t)(HUGE_SIZE - 1);

	/* advice only: without THP the pages are small ones */
	if (s < e)
		madvise((void *)s, e - s, MADV_HUGEPAGE);
}

void prefault_write(void *p, size_t n)
{
#ifdef MADV_POPULATE_WRITE
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	uintptr_t s = ((uintptr_t)p + page - 1) & ~(uintptr_t)(page - 1);
	uintptr_t e = ((uintptr_t)p + n) & ~(uintptr_t)(page - 1);

	/* whole pages inside the range only: the others may be another
	 * allocation's */
	if (s < e)
		(void)madvise((void *)s, e - s, MADV_POPULATE_WRITE);
#else
	(void)p;
	(void)n;
#endif
}

void *xmalloc_huge(size_t n)
{
	void *p = try_malloc_huge(n);

	if (!p)
		oom(n);
	return p;
}

void xfree_huge(void *p, size_t n)
{
	if (!p)
		return;
	if (n < HUGE_SIZE || n > SIZE_MAX - HUGE_SIZE)
		free(p);
	else
		munmap(p, n);
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
	if (!p)
		oom(nmemb * size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		oom(n);
	return p;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);
	if (!p)
		oom(strlen(s) + 1);
	return p;
}

char *xstrndup(const char *s, size_t n)
{
	char *p = strndup(s, n);
	if (!p)
		oom(n + 1);
	return p;
}

char *xvasprintf(const char *fmt, va_list ap)
{
	char *s;

	if (vasprintf(&s, fmt, ap) < 0)
		oom(strlen(fmt));
	return s;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	return s;
}

/* The capacity xgrow() and xgrow_huge() grow cap to for need elements
 * of elem bytes: doubled from cap (16 at first) until it holds them. */
static size_t grown_cap(size_t cap, size_t need, size_t elem)
{
	size_t ncap = cap ? cap : 16;

	while (ncap < need) {
		if (ncap > SIZE_MAX / 2 / elem)
			oom(SIZE_MAX);
		ncap *= 2;
	}
	return ncap;
}

void xgrow(void *arr, size_t *cap, size_t need, size_t elem)
{
	void **p = arr;
	size_t ncap;

	if (need <= *cap)
		return;
	ncap = grown_cap(*cap, need, elem);
	*p = xrealloc(*p, ncap * elem);
	*cap = ncap;
}

/* xmalloc_huge_aligned() and xgrow_huge() round up to whole huge pages
 * from this size on: at most half of the last page is left unused. */
#define HUGE_FROM (HUGE_SIZE / 2)

void *xmalloc_huge_aligned(size_t n, size_t *got)
{
	void *p = NULL;

	*got = n;
	if (n < HUGE_FROM)
		return xmalloc(n);
	if (n > SIZE_MAX - HUGE_SIZE)
		oom(n);
	n = (n + HUGE_SIZE - 1) & ~(HUGE_SIZE - 1);
	if (posix_memalign(&p, HUGE_SIZE, n))
		oom(n);
	advise_huge(p, n);
	*got = n;
	return p;
}

void xgrow_huge(void *arr, size_t *cap, size_t need, size_t elem)
{
	void **p = arr;
	size_t ncap;
	void *q = NULL;

	if (need <= *cap)
		return;
	ncap = grown_cap(*cap, need, elem);
	if (*cap * elem < HUGE_SIZE) {
		*p = xrealloc(*p, ncap * elem);
		*cap = ncap;
		return;
	}
	/* a new aligned block (realloc() would keep neither the alignment
	 * nor the advice), its huge pages only where the copy fills them:
	 * one that the adds to come might never fill would be resident
	 * whole (up to 2 MiB an array for nothing) */
	if (posix_memalign(&q, HUGE_SIZE, ncap * elem))
		oom(ncap * elem);
	advise_huge(q, *cap * elem);
	memcpy(q, *p, *cap * elem);
	free(*p);
	*p = q;
	*cap = ncap;
}

char *fmt_human(char *buf, size_t len, double bytes)
{
	static const char *const units[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi"};
	double v = bytes < 0 ? -bytes : bytes;
	const char *sign = bytes < 0 ? "-" : "";
	size_t u = 0;

	if (v < 1024) {
		snprintf(buf, len, "%s%.0f", sign, v);
		return buf;
	}
	while (v >= 1024 && u + 1 < ARRAY_SIZE(units)) {
		v /= 1024;
		u++;
	}
	if (v < 10)
		snprintf(buf, len, "%s%.2f%s", sign, v, units[u]);
	else if (v < 100)
		snprintf(buf, len, "%s%.1f%s", sign, v, units[u]);
	else
		snprintf(buf, len, "%s%.0f%s", sign, v, units[u]);
	return buf;
}

/* One line on stderr: what the message quotes (a path, a name, an
 * argument) may hold a newline or a terminal's escape sequence, written
 * escaped (util/escape.h) so that it can neither break the line nor drive
 * the terminal. */
static void vmsg(const char *prefix, const char *fmt, va_list ap)
{
	char *msg = NULL;
	va_list again;

	/* vasprintf may have used ap up when it fails (out of memory):
	 * the fallback formats from a copy, unescaped, rather than print
	 * the bare format */
	va_copy(again, ap);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	fprintf(stderr, "%s: %s", memsz_progname, prefix);
	if (msg)
		fputs_escaped(msg, stderr);
	else
		vfprintf(stderr, fmt, again);
	va_end(again);
	fputc('\n', stderr);
	free(msg);
}

void memsz_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
}

static int die_sig;

void memsz_die_by_signal(int sig)
{
	die_sig = sig;
}

int memsz_exit(int ret)
{
	sigset_t set;

	if (!die_sig)
		return ret;
	fflush(NULL);
	signal(die_sig, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, die_sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(die_sig);
	return ret; /* not reached for SIGINT, SIGTERM, SIGHUP */
}

void memsz_warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("warning: ", fmt, ap);
	va_end(ap);
}

int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || !*s || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (*end)
		return -EINVAL;
	if (errno == ERANGE)
		return -ERANGE;
	*out = v;
	return 0;
}

uint64_t clock_ns(int clock_id)
{
	struct timespec ts;

	clock_gettime(clock_id, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

uint64_t mono_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

int keylist_parse(const char *spec, const char *(*name)(int), int nnames,
		  int *out, size_t max, char **bad)
{
	const char *p = spec;
	size_t n = 0;

	*bad = NULL;
	for (;;) {
		size_t len = strcspn(p, ",");
		int k;

		for (k = 0; k < nnames; k++)
			if (strlen(name(k)) == len && !strncmp(name(k), p, len))
				break;
		for (size_t i = 0; k < nnames && i < n; i++)
			if (out[i] == k)
				k = nnames; /* repeated */
		if (k == nnames || n == max) {
			*bad = xstrndup(p, len);
			return k == nnames ? -1 : -E2BIG;
		}
		out[n++] = k;
		if (!p[len])
			return (int)n;
		p += len + 1;
	}
}

/* LSD radix, 11 bits a pass (2 048 counts stay in the first-level cache),
 * over the bits max has. */
void u64_sort_high(uint64_t *k, size_t n, uint64_t max)
{
	uint64_t *buf = xmalloc((n ? n : 1) * sizeof(*buf));

	u64_sort_high_tmp(k, n, max, buf);
	free(buf);
}

void u64_sort_high_tmp(uint64_t *k, size_t n, uint64_t max, uint64_t *buf)
{
	uint64_t *src = k, *dst = buf, *swap;
	int bits = 64 - __builtin_clzll(max | 1);

	for (int shift = 32; shift < 32 + bits; shift += 11) {
		size_t count[2048] = {0}, sum = 0;

		for (size_t i = 0; i < n; i++)
			count[(src[i] >> shift) & 2047]++;
		for (size_t d = 0; d < 2048; d++) {
			size_t c = count[d];

			count[d] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++)
			dst[count[(src[i] >> shift) & 2047]++] = src[i];
		swap = src;
		src = dst;
		dst = swap;
	}
	if (src != k)
		memcpy(k, src, n * sizeof(*k));
}

int u64_sort_cmp(const void *a, const void *b)
{
	uint64_t x, y;

	memcpy(&x, a, sizeof(x));
	memcpy(&y, b, sizeof(y));
	return u64_cmp(x, y);
}

bool text_next_line(const char **p, const char *end, const char **ls,
		    const char **le)
{
	const char *nl;

	if (*p >= end)
		return false;
	nl = memchr(*p, '\n', (size_t)(end - *p));
	*ls = *p;
	*le = nl ? nl : end;
	*p = *le + 1;
	return true;
}

/* Open path (relative to dfd) again for open_regular_at() where /proc is
 * not there: the descriptor if it names the regular file st describes,
 * else -EINVAL (swapped meanwhile) or -errno. */
/* Whether fd is the regular file st describes. */
static bool same_file(int fd, const struct stat *st)
{
	struct stat got;

	return fstat(fd, &got) == 0 && S_ISREG(got.st_mode) &&
	       got.st_dev == st->st_dev && got.st_ino == st->st_ino;
}

/* Open path (relative to dfd) for reading without blocking, with flags
 * too, and keep it only if it is the regular file st. Returns the
 * descriptor or -errno (-EINVAL: another file). */
static int open_same(int dfd, const char *path, int flags,
		     const struct stat *st)
{
	int fd = openat(dfd, path,
			O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | flags);

	if (fd < 0)
		return -errno;
	if (!same_file(fd, st)) {
		close(fd);
		return -EINVAL;
	}
	return fd;
}

int reopen_path_fd(int pfd, int flags, const struct stat *st)
{
	char self[40];

	/* the file looked at, unless /proc/self/fd is not the kernel's (a
	 * mount over it): then another file, refused */
	snprintf(self, sizeof(self), "/proc/self/fd/%d", pfd);
	return open_same(AT_FDCWD, self, flags, st);
}

int open_regular_at(int dfd, const char *path, struct stat *st)
{
	int pfd, fd;

	memset(st, 0, sizeof(*st)); /* a caller looks at it after -EINVAL */
	pfd = openat(dfd, path, O_PATH | O_CLOEXEC);
	if (pfd < 0)
		return -errno;
	fd = fstat(pfd, st) < 0 ? -errno : 0;
	if (!fd && !S_ISREG(st->st_mode))
		fd = -EINVAL;
	if (fd < 0) {
		close(pfd);
		return fd;
	}
	fd = reopen_path_fd(pfd, 0, st);
	/* no /proc (a chroot, a build sandbox), or not the right one: the
	 * path opened again, still without blocking, and taken only if it
	 * is the file looked at */
	if (fd < 0)
		fd = open_same(dfd, path, 0, st);
	close(pfd);
	/* reads block again: a FUSE server is told each read's flags. Of
	 * the flags F_SETFL sets, the open gave only O_NONBLOCK: one call */
	if (fd >= 0)
		(void)fcntl(fd, F_SETFL, 0);
	return fd;
}

bool symlink_followable(int dfd, const struct stat *lst)
{
	struct stat dir;

	if (fstat(dfd, &dir) < 0)
		return false;
	return !(dir.st_mode & S_ISVTX) || !(dir.st_mode & S_IWOTH) ||
	       lst->st_uid == geteuid() || lst->st_uid == dir.st_uid;
}

/* Whether directory dfd is in a proc file system, whose links (the
 * magic ones of /proc/PID) are followed to what they are, not read. */
static bool proc_link(int dfd)
{
	struct statfs sfs;

	return fstatfs(dfd, &sfs) == 0 && sfs.f_type == PROC_SUPER_MAGIC;
}

/* The next directory of the walk of path_dir_open() from dfd: the
 * component comp opened O_PATH, a symlink not followed (a magic link of
 * /proc followed: the kernel goes to the object, not to the text readlink
 * gives; no link of /proc sits in a sticky directory). A directory is
 * opened with O_DIRECTORY, which mounts an automount point as a path walk
 * does (O_PATH alone stops at it); anything else, a link, without. The
 * fd, or -errno; *st its stat. */
static int dir_step(int dfd, const char *comp, struct stat *st)
{
	int fd =
	    openat(dfd, comp, O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
	int ret;

	if (fd < 0 && errno == ENOTDIR)
		fd = openat(dfd, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* one fstat a step (was two): another only for the object a magic
	 * link of /proc leads to */
	ret = fstat(fd, st) < 0 ? -errno : 0;
	if (!ret && S_ISLNK(st->st_mode) && proc_link(dfd)) {
		close(fd);
		fd = openat(dfd, comp, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		ret = fstat(fd, st) < 0 ? -errno : 0;
	}
	if (ret < 0) {
		close(fd);
		return ret;
	}
	return fd;
}

/* The target of the symlink name in directory at (name "" and at the
 * link's own fd, or at its directory), st its lstat, into target (PATH_MAX
 * + 1 bytes); dfd is the directory it sits in. 0, or -MEMSZ_EUNSAFELINK
 * when another user planted it (symlink_followable(): target read all the
 * same), or -errno (-ENOENT for an empty target, -ENAMETOOLONG). */
static int link_read(int dfd, int at, const char *name, const struct stat *st,
		     char *target)
{
	/* a target is at most PATH_MAX - 1 bytes (symlink() refuses a
	 * longer one): one of PATH_MAX read is more than the kernel makes */
	ssize_t n = readlinkat(at, name, target, PATH_MAX);

	if (n < 0)
		return -errno;
	if (n == 0 || n >= PATH_MAX)
		return n ? -ENAMETOOLONG : -ENOENT;
	target[n] = 0;
	return symlink_followable(dfd, st) ? 0 : -MEMSZ_EUNSAFELINK;
}

/* The symlink fd (st its stat) met in directory dfd on the way: its
 * target put in front of what is left to resolve (*todo, *p, both
 * moved), dfd at / for an absolute one. 0 or a negative code. */
static int dir_link(int *dfd, int fd, const struct stat *st, char **todo,
		    char **p)
{
	char target[PATH_MAX + 1];
	int ret = link_read(*dfd, fd, "", st, target);
	char *rest;

	if (ret < 0)
		return ret;
	rest = xasprintf("%s/%s", target, *p);
	free(*todo);
	*p = *todo = rest;
	if (target[0] == '/') {
		close(*dfd);
		*dfd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (*dfd < 0)
			return -errno;
	}
	return 0;
}

int path_dir_open(const char *path, const char **base)
{
	return path_dir_openat(AT_FDCWD, path, base);
}

int path_dir_openat(int at, const char *path, const char **base)
{
	/* the directory part, resolved a component at a time from / or
	 * the working directory; a link's target takes its place in what
	 * is left to resolve */
	const char *slash = strrchr(path, '/');
	char *todo = xstrndup(path, slash ? (size_t)(slash - path) : 0);
	char *p = todo;
	int dfd, links = 0, ret = 0;

	*base = slash ? slash + 1 : path;
	dfd = openat(at, path[0] == '/' ? "/" : ".",
		     O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		ret = -errno;
	while (!ret && *p) {
		size_t len = strcspn(p, "/");
		char *comp = xstrndup(p, len);
		bool here = !len || !strcmp(comp, ".");
		struct stat st;
		int fd;

		p += len + (p[len] == '/');
		/* "" (a slash repeated) or ".": where it is */
		fd = here ? -1 : dir_step(dfd, comp, &st);
		free(comp);
		if (here)
			continue;
		if (fd < 0) {
			ret = fd;
		} else if (S_ISDIR(st.st_mode)) {
			close(dfd);
			dfd = fd;
		} else if (!S_ISLNK(st.st_mode)) {
			close(fd);
			ret = -ENOTDIR;
		} else {
			ret = ++links > 40 ? -ELOOP
					   : dir_link(&dfd, fd, &st, &todo, &p);
			close(fd);
		}
	}
	free(todo);
	if (ret < 0 && dfd >= 0)
		close(dfd);
	return ret < 0 ? ret : dfd;
}

/* Whether name in directory dfd (of a proc file system) is memsz's own
 * descriptor's link, /proc/self/fd/N (or /proc/thread-self/fd/N, or
 * /proc/PID/fd/N of its own pid): dfd is that directory, told by its
 * device and inode, not by the text that led there. N, or -1. */
static int own_fd(int dfd, const char *name)
{
	static const char *const dirs[] = {"/proc/self/fd",
					   "/proc/thread-self/fd"};
	struct stat d, o;
	char *end;
	long n;

	if (fstat(dfd, &d) < 0 || !*name || *name < '0' || *name > '9')
		return -1;
	errno = 0;
	n = strtol(name, &end, 10);
	if (*end || errno || n > INT_MAX)
		return -1;
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++)
		if (!stat(dirs[i], &o) && o.st_dev == d.st_dev &&
		    o.st_ino == d.st_ino)
			return (int)n;
	return -1;
}

/* One hop of path_link_walk(): the symlink pl->name in pl->dfd (st its
 * lstat) followed to the directory and name its target leads to. 0, 1
 * when the target is under /proc/ but no proc file system is there (none
 * mounted: a descriptor's link still), or a negative code. */
static int link_next(struct path_link *pl, const struct stat *st)
{
	char target[PATH_MAX + 1];
	int ret = link_read(pl->dfd, pl->dfd, pl->name, st, target);
	const char *base;
	int next;

	if (ret == -MEMSZ_EUNSAFELINK)
		pl->unsafe = true; /* read, not opened through: go on */
	else if (ret < 0)
		return ret;
	next = path_dir_openat(pl->dfd, target, &base);
	/* a target under /proc/ that is not in a proc file system (none
	 * mounted: a chroot) is a descriptor's link all the same */
	if (!strncmp(target, "/proc/", 6) && (next < 0 || !proc_link(next))) {
		if (next >= 0)
			close(next);
		return 1;
	}
	if (next < 0)
		return next;
	close(pl->dfd);
	free(pl->name);
	pl->dfd = next;
	pl->name = xstrdup(base);
	return 0;
}

int path_link_walk(int dfd, const char *name, struct path_link *pl)
{
	struct stat st;
	int hops = 0, ret = 0;

	pl->dfd = fcntl(dfd, F_DUPFD_CLOEXEC, 0);
	pl->name = xstrdup(name);
	pl->fd = -1;
	pl->unsafe = false;
	if (pl->dfd < 0)
		ret = -errno;
	/* each link of the chain a hop at a time, as the kernel would
	 * follow them (40 at most), until a name that is no link, or one
	 * that sits in a proc file system (followed to an object there,
	 * not to its text) */
	while (!ret && !fstatat(pl->dfd, pl->name, &st, AT_SYMLINK_NOFOLLOW) &&
	       S_ISLNK(st.st_mode)) {
		if (proc_link(pl->dfd)) {
			pl->fd = own_fd(pl->dfd, pl->name);
			ret = 1;
		} else {
			ret = ++hops > 40 ? -ELOOP : link_next(pl, &st);
		}
	}
	/* a chain that ends in /proc at a name that is no link
	 * (/proc/meminfo): a link of /proc all the same */
	if (!ret && hops && proc_link(pl->dfd))
		ret = 1;
	if (ret < 0)
		path_link_free(pl);
	return ret;
}

void path_link_free(struct path_link *pl)
{
	if (pl->dfd >= 0)
		close(pl->dfd);
	pl->dfd = -1;
	free(pl->name);
	pl->name = NULL;
}

bool path_proc_link(int dfd, const char *name)
{
	struct path_link pl;
	int ret = path_link_walk(dfd, name, &pl);

	if (ret >= 0)
		path_link_free(&pl);
	return ret == 1;
}

/* The standard descriptors (0, 1, 2) memsz found closed and put /dev/null
 * on (std_fd_nulled()): a bit each. */
static unsigned std_nulled;

void std_fd_set_nulled(int fd)
{
	if (fd >= 0 && fd <= 2)
		std_nulled |= 1u << fd;
}

bool std_fd_nulled(int fd)
{
	return fd >= 0 && fd <= 2 && (std_nulled & (1u << fd));
}

ssize_t read_small_file(const char *path, size_t max, char **out)
{
	return read_small_file_at(AT_FDCWD, path, max, out);
}

/* Read fd whole, up to max bytes, into a new NUL-terminated buffer *out:
 * from where it stands by read(2), or with at_zero from offset 0 by
 * pread(2). The length, or -errno (*out NULL). */
static ssize_t read_whole(int fd, size_t max, bool at_zero, char **out)
{
	size_t cap = 4096, len = 0;
	ssize_t n = 0;
	char *buf = xmalloc(cap);

	*out = NULL;
	while (len < max) {
		size_t want;

		if (len + 1 >= cap)
			buf = xrealloc(buf, cap *= 2);
		want = MIN(cap - len - 1, max - len);
		n = at_zero ? pread(fd, buf + len, want, (off_t)len)
			    : read(fd, buf + len, want);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	if (n < 0) {
		n = -errno;
		free(buf);
		return n;
	}
	buf[len] = 0;
	*out = buf;
	return (ssize_t)len;
}

ssize_t read_small_file_at(int dfd, const char *path, size_t max, char **out)
{
	int fd = openat(dfd, path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	ssize_t len;

	*out = NULL;
	if (fd < 0)
		return -errno;
	len = read_whole(fd, max, false, out);
	close(fd);
	return len;
}

ssize_t read_small_fd(int fd, size_t max, char **out)
{
	return read_whole(fd, max, true, out);
}

/* name made absolute with dir when relative and dir is not NULL, then
 * "." and ".." components and repeated slashes removed lexically ("./csu"
 * + "../sysdeps/x.c" -> "sysdeps/x.c"; a ".." with nothing left to remove
 * stays). Returns a malloc'd string. */
char *path_norm(const char *dir, const char *name)
{
	/* joined without printf: names come from the file, and one of
	 * gigabytes (a compressed .debug_str) would overflow its int */
	size_t dl = name[0] != '/' && dir ? strlen(dir) : 0, nl = strlen(name);
	char *in = xmalloc(dl + 1 + nl + 1);
	char *out = xmalloc(dl + 1 + nl + 2);
	size_t o = 0, keep = 0; /* keep: length that ".." may not remove */
	bool abs;
	char *p = in;

	if (dl) {
		memcpy(in, dir, dl);
		in[dl++] = '/';
	}
	memcpy(in + dl, name, nl + 1);
	abs = in[0] == '/';
	if (abs)
		out[o++] = '/';
	keep = o;
	while (*p) {
		size_t n = strcspn(p, "/");

		if ((n == 1 && p[0] == '.') || n == 0) {
			/* skip */
		} else if (n == 2 && p[0] == '.' && p[1] == '.' && o > keep) {
			while (o > keep && out[o - 1] != '/')
				o--;
			if (o > keep)
				o--; /* the slash before it */
			else if (abs)
				o = keep;
		} else {
			if (o > (abs ? 1u : 0u))
				out[o++] = '/';
			memcpy(out + o, p, n);
			o += n;
			if (n == 2 && p[0] == '.' && p[1] == '.')
				keep = o;
		}
		p += n;
		if (*p == '/')
			p++;
	}
	if (!o)
		out[o++] = '.';
	out[o] = 0;
	free(in);
	return out;
}
