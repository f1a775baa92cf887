// SPDX-License-Identifier: GPL-2.0-or-later
/* test_pagecache.c — a file's cached pages and their memory cgroups
 * (pagecache_scan) on a file made here, half of it read; the FILE_CACHE
 * record written and read back. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "data/datafile.h"
#include "record/memcg.h"
#include "record/pagecache.h"
#include "tests/testutil.h"
#include "util/util.h"

#define NPAGES 256

/* The inode of this process's memory cgroup, or 0. */
static uint64_t own_cgroup(void)
{
	struct memcg_mounts mm;
	struct stat st;
	char *dir = NULL;
	uint64_t ino = 0;

	if (memcg_mounts_read(&mm) == 0 &&
	    memcg_dir_of_pid(getpid(), &mm, &dir) == 0 && stat(dir, &st) == 0)
		ino = st.st_ino;
	free(dir);
	return ino;
}

/* A file of NPAGES pages out of the page cache, then pages [0, 64) and
 * [128, 192) read (without readahead). Returns it open. */
static int half_cached(const char *path, long ps)
{
	char *buf = xcalloc(1, (size_t)ps);
	int fd;

	write_file(path, "", 0);
	fd = open(path, O_RDWR);
	assert_true(fd >= 0);
	for (int i = 0; i < NPAGES; i++) {
		memset(buf, i, (size_t)ps);
		assert_int_equal(write(fd, buf, (size_t)ps), ps);
	}
	assert_int_equal(fsync(fd), 0);
	assert_int_equal(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
	assert_int_equal(posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM), 0);
	for (int i = 0; i < NPAGES; i++)
		if (i < 64 || (i >= 128 && i < 192))
			assert_int_equal(
			    pread(fd, buf, (size_t)ps, (off_t)i * ps), ps);
	free(buf);
	return fd;
}

static void test_scan(void **state)
{
	char templ[] = "/tmp/memsz-test-pagecache-XXXXXX";
	long ps = sysconf(_SC_PAGESIZE);
	struct pagecache_file pf = {0};
	int kpc = open("/proc/kpagecgroup", O_RDONLY);
	uint64_t own = own_cgroup();
	struct stat st;
	int fd;

	assert_int_equal(tmpdir_make(templ), 0);
	fd = half_cached(fx("f"), ps);
	assert_int_equal(pagecache_scan(fd, -1, &pf), 0);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(pf.ino, st.st_ino);
	assert_int_equal(pf.size, NPAGES * ps);
	/* what was read, and nothing else (a page or two of slack where
	 * the kernel read around anyway) */
	assert_true(pf.cached >= 128 && pf.cached <= 132);
	assert_int_equal(pf.runs[0].page, 0);
	assert_true(pf.runs[0].npages >= 64);
	assert_int_equal(pf.runs[0].cgroup, 0);
	if (kpc < 0 || !own) {
		test_skip_part("no /proc/kpagecgroup or memory cgroup: "
			       "cgroups of cached pages not checked");
	} else {
		assert_int_equal(pagecache_scan(fd, kpc, &pf), 0);
		assert_true(pf.cached >= 128);
		/* read by this process: charged to its cgroup */
		for (size_t i = 0; i < pf.nruns; i++)
			assert_int_equal(pf.runs[i].cgroup, own);
	}
	/* the scan read nothing from disk: still half cached */
	assert_int_equal(pagecache_scan(fd, -1, &pf), 0);
	assert_true(pf.cached <= 132);
	close(fd);
	fd = open(fx("."), O_RDONLY | O_DIRECTORY);
	assert_int_equal(pagecache_scan(fd, -1, &pf), -EINVAL);
	close(fd);
	if (kpc >= 0)
		close(kpc);
	pagecache_release(&pf);
	tmpdir_remove();
	(void)state;
}

/* FILE_CACHE written and read back; a run past the file refused by the
 * reader. */
static void test_record(void **state)
{
	char templ[] = "/tmp/memsz-test-pagecache-XXXXXX";
	long ps = sysconf(_SC_PAGESIZE);
	struct md_cache_run u[] = {{.page = 0, .cgroup = 35, .npages = 2},
				   {.page = 5, .cgroup = 0, .npages = 1}};
	struct md_file_cache f = {.time = 9,
				  .dev_major = 254,
				  .ino = 77,
				  .size = 6 * ps,
				  .nruns = 2,
				  .path = "/x",
				  .runs = u};
	struct md_writer *w;
	struct md_reader *r;
	struct md_record rec;
	int n = 0;

	assert_int_equal(tmpdir_make(templ), 0);
	assert_int_equal(md_writer_open(fx("c.data"), &w), 0);
	assert_int_equal(md_write_file_cache(w, &f), 0);
	f.size = 5 * ps; /* page 5 is past it now */
	assert_int_equal(md_write_file_cache(w, &f), 0);
	assert_int_equal(md_writer_commit(w), 0);
	assert_int_equal(md_writer_close(w), 0);
	assert_int_equal(md_reader_open(fx("c.data"), &r), 0);
	while (md_read_next(r, &rec) == 1) {
		assert_int_equal(rec.type, MD_REC_FILE_CACHE);
		assert_int_equal(rec.u.cache.ino, 77);
		assert_string_equal(rec.u.cache.path, "/x");
		assert_int_equal(rec.u.cache.nruns, 2);
		assert_int_equal(rec.u.cache.runs[1].page, 5);
		assert_int_equal(rec.u.cache.runs[0].cgroup, 35);
		n++;
	}
	assert_int_equal(n, 1);
	assert_string_equal(md_reader_why(r),
			    "cache run outside its file or out of order");
	md_reader_close(r);
	tmpdir_remove();
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_scan),
	    cmocka_unit_test(test_record),
	};

	return test_run_group(tests, NULL, NULL);
}
