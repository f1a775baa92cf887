// SPDX-License-Identifier: GPL-2.0-or-later
/* test_util.c — util's memory helpers for big arrays: xgrow_huge() keeps
 * the contents and aligns big blocks, xmalloc_huge_aligned() rounds to
 * whole huge pages, prefault_write() makes exactly the whole pages inside
 * its range resident (the kernel's mincore() says which are). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "util/util.h"
#include "tests/testutil.h"

#define MIB ((size_t)1 << 20)

/* Grown one element at a time from empty to 6 MiB of uint64_t: every
 * element keeps its value through each new block; once 2 MiB or more,
 * the block is 2 MiB-aligned. */
static void test_grow_huge(void **state)
{
	size_t cap = 0, n = 6 * MIB / sizeof(uint64_t);
	uint64_t *v = NULL;

	(void)state;
	for (size_t i = 0; i < n; i++) {
		xgrow_huge(&v, &cap, i + 1, sizeof(*v));
		assert_true(cap >= i + 1);
		v[i] = i * 0x9e3779b97f4a7c15ull;
		if (cap * sizeof(*v) > 2 * MIB)
			assert_int_equal((uintptr_t)v % (2 * MIB), 0);
	}
	for (size_t i = 0; i < n; i++)
		if (v[i] != i * 0x9e3779b97f4a7c15ull)
			fail_msg("element %zu lost", i);
	xgrow_huge(&v, &cap, 10, sizeof(*v)); /* room enough: no change */
	assert_true(cap >= n);
	free(v); /* a plain free(): ASan checks it is malloc's */
}

static void test_malloc_huge_aligned(void **state)
{
	size_t got;
	char *p;

	(void)state;
	p = xmalloc_huge_aligned(1000, &got);
	assert_int_equal(got, 1000);
	memset(p, 1, got);
	free(p);
	p = xmalloc_huge_aligned(3 * MIB + 1, &got);
	assert_int_equal(got, 4 * MIB);
	assert_int_equal((uintptr_t)p % (2 * MIB), 0);
	memset(p, 1, got); /* all of it is usable */
	free(p);
}

/* Which of the npages pages from p are resident. */
static void resident(void *p, size_t npages, unsigned char *vec)
{
	assert_int_equal(
	    mincore(p, npages * (size_t)sysconf(_SC_PAGESIZE), vec), 0);
}

static void test_prefault(void **state)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), npages = 64;
	unsigned char vec[64];
	char *p;

	(void)state;
	p = mmap(NULL, npages * page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(p != MAP_FAILED);
	madvise(p, npages * page, MADV_NOHUGEPAGE);
	/* an older kernel has no MADV_POPULATE_WRITE (EINVAL), a memory
	 * cgroup at its limit or a seccomp filter refuses it: prefault_write
	 * is advice only there, and nothing here can be checked */
	if (madvise(p + 60 * page, page, MADV_POPULATE_WRITE)) {
		int e = errno;

		munmap(p, npages * page);
		test_skip(
		    e == EINVAL
			? "the kernel has no MADV_POPULATE_WRITE (Linux 5.14)"
			: "MADV_POPULATE_WRITE is refused here");
	}
	/* from the middle of page 1 to the middle of page 40: pages 2 to
	 * 39 only (the others may be another allocation's); inside page
	 * 50, or empty: none */
	prefault_write(p + page + page / 2, 39 * page);
	prefault_write(p + 50 * page + 3, page - 4);
	prefault_write(p + 52 * page, 0);
	resident(p, npages, vec);
	for (size_t i = 0; i < 60; i++)
		if (!!(vec[i] & 1) != (i >= 2 && i < 40))
			fail_msg("page %zu resident: %d", i, vec[i] & 1);
	/* and nothing written (read after mincore: a read maps pages) */
	for (size_t i = 0; i < npages * page; i++)
		if (p[i])
			fail_msg("byte %zu written", i);
	munmap(p, npages * page);
}

/* Descriptors open in this process (the entries of /proc/self/fd, less
 * the one listing them). */
static int fd_count(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	assert_non_null(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n - 3; /* ".", "..", the listing's own */
}

/* path_dir_open(path) opens the directory dir (stat compared) with
 * *base equal to base, and leaves no descriptor but the one it gives. */
static void dir_is(const char *path, const char *dir, const char *base)
{
	int before = fd_count(), dfd;
	struct stat a, b;
	const char *got;

	dfd = path_dir_open(path, &got);
	if (dfd < 0)
		fail_msg("%.60s: %s", path, strerror(-dfd));
	assert_string_equal(got, base);
	assert_ptr_equal(got, path + strlen(path) - strlen(base));
	assert_int_equal(fstat(dfd, &a), 0);
	assert_int_equal(stat(dir, &b), 0);
	if (a.st_dev != b.st_dev || a.st_ino != b.st_ino)
		fail_msg("%.60s: not the directory %s", path, dir);
	assert_int_equal(fd_count(), before + 1);
	close(dfd);
}

/* path_dir_open(path) fails with -err and leaves no descriptor open. */
static void dir_fails(const char *path, int err)
{
	int before = fd_count();
	const char *got;
	int ret = path_dir_open(path, &got);

	if (ret != -err)
		fail_msg("%.60s: %d, not -%d", path, ret, err);
	assert_int_equal(fd_count(), before);
}

/* A symlink target of n bytes naming name in the directory of the link:
 * "./" repeated, one more "/" when the count is odd, then name. */
static char *long_target(size_t n, const char *name)
{
	size_t k = strlen(name), i = 0;
	char *t = malloc(n + 1);

	assert_non_null(t);
	assert_true(n > k + 2);
	for (; i + 1 < n - k; i += 2)
		memcpy(t + i, "./", 2);
	if (i < n - k)
		t[i++] = '/';
	memcpy(t + i, name, k + 1);
	return t;
}

/* The directory of a path opened as a path walk would find it, from /
 * or the working directory, and failing as it would. */
static void test_path_dir_open(void **state)
{
	char tmpl[] = "/tmp/test_util.XXXXXX", cwd[PATH_MAX], *t;
	char *p;

	(void)state;
	assert_int_equal(tmpdir_make(tmpl), 0);
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(sh("cd %s && mkdir -p d/e && touch f d/g && "
			    "ln -s d ld && ln -s missing dangling && "
			    "ln -s loop loop && ln -s %s/d abs",
			    tmpl, tmpl),
			 0);
	/* absolute, relative, bare, and /, // and "" */
	dir_is(fx("d/g"), fx("d"), "g");
	dir_is("/", "/", "");
	dir_is("//", "/", "");
	dir_is("/etc", "/", "etc");
	assert_int_equal(chdir(tmpl), 0);
	dir_is("d/g", fx("d"), "g");
	dir_is("g", ".", "g");
	dir_is("", ".", "");
	/* slashes repeated, ".", "..", a trailing slash (the directory
	 * itself, base "": the writer says EISDIR) */
	dir_is("d//e///x", fx("d/e"), "x");
	dir_is("./d/./e/../x", fx("d"), "x");
	dir_is("d/e/../../f", tmpl, "f");
	dir_is("d/", fx("d"), "");
	dir_fails("nodir/", ENOENT);
	dir_fails("nodir/x", ENOENT);
	/* a file on the way, links: to a directory (relative, absolute),
	 * dangling, a loop, a link of /proc to where it leads */
	dir_fails("f/x", ENOTDIR);
	dir_fails("f/", ENOTDIR);
	dir_is("ld/e/x", fx("d/e"), "x");
	dir_is("abs/x", fx("d"), "x");
	dir_fails("dangling/x", ENOENT);
	dir_fails("loop/x", ELOOP);
	dir_is("/proc/self/cwd/x", tmpl, "x");
	/* a link target of PATH_MAX - 1 bytes, the longest symlink()
	 * makes: followed, not refused as too long */
	t = long_target(PATH_MAX - 1, "d");
	assert_int_equal(strlen(t), PATH_MAX - 1);
	assert_int_equal(symlink(t, "long"), 0);
	dir_is("long/x", fx("d"), "x");
	p = long_target(PATH_MAX, "d");
	assert_int_equal(symlink(p, "longer"), -1); /* the kernel's limit */
	assert_int_equal(errno, ENAMETOOLONG);
	free(p);
	free(t);
	assert_int_equal(chdir(cwd), 0);
	assert_int_equal(tmpdir_remove(), 0);
}

/* path_proc_link(): a link that leads, itself or through others, to a
 * link of /proc (a descriptor's), and nothing else; no fd left open. */
static void test_path_proc_link(void **state)
{
	char tmpl[] = "/tmp/test_util.XXXXXX";
	static const struct {
		const char *name;
		bool proc;
	} cases[] = {
	    {"fd1", true},   {"fdd/1", true},	  {"chain", true},
	    {"self", true},  {"file", false},	  {"tofile", false},
	    {"dir", false},  {"dangling", false}, {"loop", false},
	    {"none", false}, {"todir", false},
	};
	int dfd, before;

	(void)state;
	assert_int_equal(tmpdir_make(tmpl), 0);
	assert_int_equal(
	    sh("cd %s && mkdir dir && touch file && "
	       "ln -s /proc/self/fd/1 fd1 && ln -s /proc/self/fd fdd && "
	       "ln -s fdd/1 chain && ln -s /proc/self self && "
	       "ln -s file tofile && ln -s missing dangling && "
	       "ln -s loop loop && ln -s dir todir",
	       tmpl),
	    0);
	dfd = open(tmpl, O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(dfd >= 0);
	before = fd_count();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *base, *name = cases[i].name;
		char path[PATH_MAX]; /* base points in it */
		int d = dfd;

		if (strchr(name, '/')) { /* fdd/1: in /proc already */
			snprintf(path, sizeof(path), "%s/%s", tmpl, name);
			d = path_dir_open(path, &base);
			assert_true(d >= 0);
			name = base;
		}
		if (path_proc_link(d, name) != cases[i].proc)
			fail_msg("%s: %d", cases[i].name, !cases[i].proc);
		if (d != dfd)
			close(d);
		assert_int_equal(fd_count(), before);
	}
	close(dfd);
	assert_int_equal(tmpdir_remove(), 0);
}

/* path_link_walk(): memsz's own descriptor told by the directory the
 * chain reaches, whatever the text that led there (self, thread-self, its
 * pid); another process's, another name of /proc, a target under /proc/
 * that leads nowhere: a link of /proc, no descriptor; elsewhere, the name
 * the chain ends at. */
static void test_path_link_walk(void **state)
{
	char tmpl[] = "/tmp/test_util.XXXXXX";
	static const struct {
		const char *name;
		int ret, fd;
		const char *end;
	} cases[] = {
	    {"self1", 1, 1, NULL},	    {"thread1", 1, 1, NULL},
	    {"pid1", 1, 1, NULL},	    {"init1", 1, -1, NULL},
	    {"meminfo", 1, -1, NULL},	    {"gone", 1, -1, NULL},
	    {"nofd", 1, -1, NULL},	    {"tofile", 0, -1, "file"},
	    {"dangling", 0, -1, "missing"},
	};
	int dfd, before;

	(void)state;
	assert_int_equal(tmpdir_make(tmpl), 0);
	assert_int_equal(
	    sh("cd %s && touch file && ln -s /proc/self/fd/1 self1 && "
	       "ln -s /proc/thread-self/fd/1 thread1 && "
	       "ln -s /proc/%d/fd/1 pid1 && ln -s /proc/1/fd/1 init1 && "
	       "ln -s /proc/meminfo meminfo && "
	       "ln -s /proc/no-such-pid/fd/1 gone && "
	       "ln -s /proc/self/fd/999999 nofd && ln -s file tofile && "
	       "ln -s missing dangling",
	       tmpl, (int)getpid()),
	    0);
	dfd = open(tmpl, O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(dfd >= 0);
	before = fd_count();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct path_link pl;
		int ret = path_link_walk(dfd, cases[i].name, &pl);

		if (ret != cases[i].ret || pl.fd != cases[i].fd)
			fail_msg("%s: %d fd %d", cases[i].name, ret, pl.fd);
		if (cases[i].end)
			assert_string_equal(pl.name, cases[i].end);
		path_link_free(&pl);
		assert_int_equal(fd_count(), before);
	}
	close(dfd);
	assert_int_equal(tmpdir_remove(), 0);
}

/* path_norm(): ".", ".." and repeated slashes removed lexically, a ".."
 * with nothing before it kept (the cases: DW_AT_name / DW_AT_comp_dir
 * pairs as glibc's and node's units have them). */
static void test_path_norm(void **state)
{
	static const char *const cases[][3] = {
	    {"/build/glibc", "./csu/../sysdeps/x.c",
	     "/build/glibc/sysdeps/x.c"},
	    {NULL, "./csu/../sysdeps/x.c", "sysdeps/x.c"},
	    {"/b", "/abs//dir/./f.c", "/abs/dir/f.c"},
	    {NULL, "../deps/a.c", "../deps/a.c"},
	    {NULL, "a/../../b.c", "../b.c"},
	    {"/", "../x", "/../x"}, /* nothing to remove: stays */
	    {NULL, ".", "."},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = path_norm(cases[i][0], cases[i][1]);

		assert_string_equal(got, cases[i][2]);
		free(got);
	}
}

/* A key as test_u64_sort_high() sorts it: the high bits, then where
 * the key stood (a stable sort keeps that order among equal highs). */
struct high_pos {
	uint64_t high, pos, key;
};

static int high_pos_cmp(const void *a, const void *b)
{
	const struct high_pos *x = a, *y = b;

	return x->high != y->high ? u64_cmp(x->high, y->high)
				  : u64_cmp(x->pos, y->pos);
}

/* u64_sort_high(): keys ordered by their bits from 32 on, keys of equal
 * high bits in the order they came (their low bits deliberately not in
 * order), against qsort by (high bits, position); empty and single
 * inputs, highs of one value, of a few (many ties) and up to 2^32 - 1
 * (three passes of 11 bits). */
static void test_u64_sort_high(void **state)
{
	static const struct {
		size_t n;
		uint64_t max;
	} cases[] = {{0, 0},	   {1, 5},	 {1000, 0},	     {5000, 3},
		     {4999, 2047}, {3000, 2048}, {6000, 0xffffffffu}};
	uint64_t seed = 0x9e3779b97f4a7c15u;

	(void)state;
	for (size_t c = 0; c < ARRAY_SIZE(cases); c++) {
		size_t n = cases[c].n;
		uint64_t *k = xmalloc((n ? n : 1) * sizeof(*k));
		struct high_pos *ref = xmalloc((n ? n : 1) * sizeof(*ref));

		for (size_t i = 0; i < n; i++) {
			seed =
			    seed * 6364136223846793005u + 1442695040888963407u;
			uint64_t high = (seed >> 20) % (cases[c].max + 1);

			k[i] = high << 32 | (seed >> 40 & 0xffffffffu);
			ref[i] = (struct high_pos){high, i, k[i]};
		}
		u64_sort_high(k, n, cases[c].max);
		qsort(ref, n, sizeof(*ref), high_pos_cmp);
		for (size_t i = 0; i < n; i++)
			assert_true(k[i] == ref[i].key);
		free(k);
		free(ref);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_grow_huge),
	    cmocka_unit_test(test_malloc_huge_aligned),
	    cmocka_unit_test(test_prefault),
	    cmocka_unit_test(test_path_dir_open),
	    cmocka_unit_test(test_path_proc_link),
	    cmocka_unit_test(test_path_link_walk),
	    cmocka_unit_test(test_path_norm),
	    cmocka_unit_test(test_u64_sort_high),
	};

	return test_run_group(tests, NULL, NULL);
}
