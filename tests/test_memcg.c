// SPDX-License-Identifier: GPL-2.0-or-later
/* test_memcg.c — a memory cgroup's counters: the memory.stat, mountinfo
 * and /proc/PID/cgroup parsers on the text of real files (copied here and,
 * where this machine has them, read live), the v2 and v1 readers on a
 * tree of such files, and the CGROUP record written and read back. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
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
#include "tests/testutil.h"
#include "util/util.h"

/* memory.stat of a v1 memory cgroup on this kind of machine (6.x kernel,
 * memory controller on v1), as the kernel printed it. */
static const char v1_stat[] =
    "cache 49152\nrss 1728512\nrss_huge 0\nshmem 0\nmapped_file 0\n"
    "dirty 20480\nwriteback 0\nworkingset_refault_anon 0\n"
    "workingset_refault_file 0\nswap 0\nswapcached 0\npgpgin 22913\n"
    "pgpgout 22483\npgfault 52924\npgmajfault 0\n"
    "inactive_anon 1642496\nactive_anon 12288\ninactive_file 40960\n"
    "active_file 8192\nunevictable 0\n"
    "hierarchical_memory_limit 9223372036854771712\n"
    "hierarchical_memsw_limit 9223372036854771712\n"
    "total_cache 49152\ntotal_rss 1728512\n";

/* memory.stat of a cgroup v2 (the keys and order of a 6.x kernel's
 * memory_stat_format(), trimmed of most event counters). */
static const char v2_stat[] =
    "anon 52887552\nfile 67444736\nkernel 2830336\n"
    "kernel_stack 49152\npagetables 278528\nsec_pagetables 0\n"
    "percpu 1440\nsock 0\nvmalloc 8192\nshmem 0\nzswap 0\n"
    "zswapped 0\nfile_mapped 2555904\nfile_dirty 0\n"
    "file_writeback 0\nswapcached 0\nanon_thp 0\nfile_thp 0\n"
    "shmem_thp 0\ninactive_anon 52862976\nactive_anon 24576\n"
    "inactive_file 67108864\nactive_file 335872\nunevictable 0\n"
    "slab_reclaimable 1867776\nslab_unreclaimable 598016\n"
    "slab 2465792\nworkingset_refault_anon 0\npgfault 29403\n"
    "pgmajfault 6\nthp_fault_alloc 0\n";

static uint64_t stat_of(const struct memcg *m, const char *key)
{
	for (size_t i = 0; i < m->nstats; i++)
		if (!strcmp(m->stats[i].key, key))
			return m->stats[i].value;
	fail_msg("no counter %s", key);
	return 0;
}

static void test_stat_parse(void **state)
{
	struct memcg m = {0};

	assert_int_equal(memcg_stat_parse(v1_stat, strlen(v1_stat), &m), 0);
	assert_int_equal(m.nstats, 24);
	assert_string_equal(m.stats[0].key, "cache");
	assert_int_equal(stat_of(&m, "rss"), 1728512);
	assert_int_equal(stat_of(&m, "hierarchical_memory_limit"),
			 9223372036854771712ull);
	memcg_release(&m);
	assert_int_equal(memcg_stat_parse(v2_stat, strlen(v2_stat), &m), 0);
	assert_int_equal(m.nstats, 31);
	assert_int_equal(stat_of(&m, "kernel_stack"), 49152);
	assert_int_equal(stat_of(&m, "slab_unreclaimable"), 598016);
	assert_string_equal(m.stats[30].key, "thp_fault_alloc");
	memcg_release(&m);
	/* a last line without its newline, and blank lines */
	assert_int_equal(memcg_stat_parse("a 1\n\nb 2", 9, &m), 0);
	assert_int_equal(m.nstats, 2);
	assert_int_equal(stat_of(&m, "b"), 2);
	memcg_release(&m);
	/* malformed: what came before is kept */
	assert_int_equal(memcg_stat_parse("a 1\nb x\n", 8, &m), -EINVAL);
	assert_int_equal(m.nstats, 1);
	memcg_release(&m);
	assert_int_equal(memcg_stat_parse("a 1 2\n", 6, &m), -EINVAL);
	assert_int_equal(memcg_stat_parse("a\n", 2, &m), -EINVAL);
	assert_int_equal(memcg_stat_parse("a -1\n", 5, &m), -EINVAL);
	memcg_release(&m);
	(void)state;
}

/* This machine's memory.stat files, read live: every line a counter. */
static void test_stat_live(void **state)
{
	static const char *const files[] = {
	    "/sys/fs/cgroup/memory/memory.stat",
	    "/sys/fs/cgroup/memory.stat",
	};
	bool any = false;

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		struct memcg m = {0};
		size_t len, lines = 0;
		char *buf;

		if (access(files[i], R_OK) < 0)
			continue;
		buf = read_file(files[i], &len);
		for (size_t k = 0; k < len; k++)
			lines += buf[k] == '\n';
		assert_int_equal(memcg_stat_parse(buf, len, &m), 0);
		assert_int_equal(m.nstats, lines);
		free(buf);
		memcg_release(&m);
		any = true;
	}
	if (!any)
		test_skip("no memory.stat readable on this machine");
	(void)state;
}

static void test_mounts(void **state)
{
	static const char hybrid[] =
	    "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs "
	    "rw,mode=755\n"
	    "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup "
	    "rw,cpu\n"
	    "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup "
	    "cgroup rw,memory\n"
	    "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 "
	    "cgroup2 rw\n";
	static const char unified[] =
	    "22 1 0:20 / /mnt/cg2 rw - cgroup2 none rw\n"
	    "30 23 0:26 / /sys/fs/cgroup rw,nosuid shared:4 - cgroup2 "
	    "cgroup2 rw,nsdelegate,memory_recursiveprot\n";
	static const char none[] =
	    "32 31 0:29 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu\n"
	    "1 0 0:1 / / rw - ext4 /dev/vda rw\n";
	struct memcg_mounts mm;

	assert_int_equal(memcg_parse_mounts(hybrid, strlen(hybrid), &mm), 0);
	assert_string_equal(mm.v1, "/sys/fs/cgroup/memory");
	assert_string_equal(mm.v2, "/sys/fs/cgroup/unified");
	assert_int_equal(memcg_parse_mounts(unified, strlen(unified), &mm), 0);
	assert_string_equal(mm.v1, "");
	assert_string_equal(mm.v2, "/sys/fs/cgroup");
	assert_int_equal(memcg_parse_mounts(none, strlen(none), &mm), -ENODEV);
	(void)state;
}

/* The v2-only test behind the fast path past mountinfo: one "0::" line,
 * nothing else (a v1 hierarchy's line means mountinfo is read). */
static void test_v2_only(void **state)
{
	static const char *const yes[] = {"0::/\n", "0::/user.slice/a\n",
					  "0::/x"};
	static const char *const no[] = {"",
					 "\n",
					 "0::\n",
					 "1:name=systemd:/\n0::/\n",
					 "0::/\n4:memory:/a\n",
					 "0::/\n\n",
					 "10::/\n"};

	for (size_t i = 0; i < ARRAY_SIZE(yes); i++)
		assert_true(memcg_v2_only(yes[i], strlen(yes[i])));
	for (size_t i = 0; i < ARRAY_SIZE(no); i++)
		assert_false(memcg_v2_only(no[i], strlen(no[i])));
	(void)state;
}

/* A fast path's answer ret and mounts fast against the mount table (the
 * ground truth it stands for): where it applies it finds the same
 * mounts. Returns whether the mount table has a v1 memory hierarchy. */
static bool fast_matches_mountinfo(int ret, const struct memcg_mounts *fast)
{
	struct memcg_mounts slow;
	char *mi = NULL;
	ssize_t n = read_small_file("/proc/self/mountinfo", 4u << 20, &mi);

	assert_true(n > 0);
	if (memcg_parse_mounts(mi, (size_t)n, &slow) < 0)
		slow.v1[0] = slow.v2[0] = 0;
	free(mi);
	if (ret == 0) {
		assert_string_equal(fast->v1, slow.v1);
		assert_string_equal(fast->v2, slow.v2);
	}
	return slow.v1[0] != 0;
}

/* The cgroup2-only fast path: where a v1 memory hierarchy is mounted (a
 * hybrid machine) it must not apply. */
static void test_v2_fast_live(void **state)
{
	struct memcg_mounts fast;
	int ret = memcg_mounts_v2_fast(&fast);

	if (ret != 0)
		print_message(
		    "not a cgroup2-only machine: mountinfo is read\n");
	if (fast_matches_mountinfo(ret, &fast))
		assert_int_equal(ret, -ENOENT);
	(void)state;
}

/* The hybrid fast path: where no v1 memory hierarchy is mounted it must
 * not apply. */
static void test_v1_fast_live(void **state)
{
	struct memcg_mounts fast;
	int ret = memcg_mounts_v1_fast(&fast);

	if (ret != 0)
		print_message("no v1 memory hierarchy at /sys/fs/cgroup/memory:"
			      " mountinfo is read\n");
	if (!fast_matches_mountinfo(ret, &fast))
		assert_int_equal(ret, -ENOENT);
	(void)state;
}

static void test_proc_cgroup(void **state)
{
	static const char hybrid[] =
	    "9:name=systemd:/\n8:pids:/\n"
	    "4:memory:/process_api/e2295dc3528884fc6b75b33b82998926\n"
	    "2:cpuacct:/\n1:cpu:/\n0::/\n";
	static const char joined[] = "3:cpu,memory,blkio:/box\n0::/a/b\n";
	char v1[64], v2[64];

	assert_int_equal(
	    memcg_parse_proc_cgroup(hybrid, strlen(hybrid), v1, v2, sizeof(v1)),
	    0);
	assert_string_equal(v1, "/process_api/"
				"e2295dc3528884fc6b75b33b82998926");
	assert_string_equal(v2, "/");
	assert_int_equal(
	    memcg_parse_proc_cgroup(joined, strlen(joined), v1, v2, sizeof(v1)),
	    0);
	assert_string_equal(v1, "/box");
	assert_string_equal(v2, "/a/b");
	assert_int_equal(memcg_parse_proc_cgroup("0::/xyzw\n", 9, v1, v2, 4),
			 -EINVAL); /* does not fit */
	assert_int_equal(
	    memcg_parse_proc_cgroup("garbage\n", 8, v1, v2, sizeof(v1)),
	    -EINVAL);
	(void)state;
}

/* This process's memory cgroup, from the live files: its directory has
 * the counters memcg_read() reads. */
static void test_self_live(void **state)
{
	struct memcg_mounts mm;
	struct memcg m = {0};
	char *dir = NULL;
	int ret;

	if (memcg_mounts_read(&mm) < 0)
		test_skip("no cgroup file system mounted");
	ret = memcg_dir_of_pid(getpid(), &mm, &dir);
	if (ret == -ENOENT)
		test_skip("this process has no readable memory cgroup");
	assert_int_equal(ret, 0);
	assert_int_equal(memcg_read(dir, &m), 0);
	assert_true(m.version == 1 || m.version == 2);
	assert_true(m.flags & MD_CG_F_USAGE);
	assert_true(m.usage > 0);
	assert_true(m.nstats > 5);
	assert_int_not_equal(m.ino, 0);
	memcg_release(&m);
	free(dir);
	(void)state;
}

/* A copied tree of v2 files and one of v1 files: memcg_read takes each
 * as its version, a directory with neither as no memory controller. */
static void test_read_tree(void **state)
{
	char templ[] = "/tmp/memsz-test-memcg-XXXXXX";
	struct memcg m = {0};
	struct stat st;

	assert_int_equal(tmpdir_make(templ), 0);
	assert_int_equal(
	    sh("mkdir -p %s %s %s", fx("v2"), fx("v1"), fx("none")), 0);
	write_text(fx("v2/memory.current"), "123456789\n");
	write_text(fx("v2/memory.stat"), v2_stat);
	write_text(fx("v1/memory.usage_in_bytes"), "2838528\n");
	write_text(fx("v1/memory.kmem.usage_in_bytes"), "753664\n");
	write_text(fx("v1/memory.stat"), v1_stat);
	assert_int_equal(memcg_read(fx("v2"), &m), 0);
	assert_int_equal(m.version, 2);
	assert_int_equal(m.flags, MD_CG_F_USAGE);
	assert_int_equal(m.usage, 123456789);
	assert_int_equal(m.nstats, 31);
	assert_int_equal(stat(fx("v2"), &st), 0);
	assert_int_equal(m.ino, st.st_ino);
	assert_int_equal(memcg_read(fx("v1"), &m), 0);
	assert_int_equal(m.version, 1);
	assert_int_equal(m.flags, MD_CG_F_USAGE | MD_CG_F_KMEM);
	assert_int_equal(m.usage, 2838528);
	assert_int_equal(m.kmem, 753664);
	assert_int_equal(stat_of(&m, "cache"), 49152);
	assert_int_equal(memcg_read(fx("none"), &m), -ENOENT);
	assert_int_equal(memcg_read(fx("gone"), &m), -ENOENT);
	/* through an open directory, a wrong version hint or none: the
	 * files there decide */
	for (uint32_t hint = 0; hint <= 2; hint++) {
		int dfd = open(fx("v1"), O_PATH | O_DIRECTORY | O_CLOEXEC);

		assert_true(dfd >= 0);
		assert_int_equal(memcg_read_at(dfd, "d", 77, hint, &m), 0);
		assert_int_equal(m.version, 1);
		assert_int_equal(m.usage, 2838528);
		assert_int_equal(m.kmem, 753664);
		assert_int_equal(m.ino, 77);
		assert_string_equal(m.dir, "d");
		assert_int_equal(stat_of(&m, "cache"), 49152);
		close(dfd);
		dfd = open(fx("v2"), O_PATH | O_DIRECTORY | O_CLOEXEC);
		assert_true(dfd >= 0);
		assert_int_equal(memcg_read_at(dfd, "d", 78, hint, &m), 0);
		assert_int_equal(m.version, 2);
		assert_int_equal(m.usage, 123456789);
		assert_int_equal(m.nstats, 31);
		close(dfd);
	}
	memcg_release(&m);
	tmpdir_remove();
	(void)state;
}

/* A memory.stat larger than memcg.c reads in one read(2) (8 KiB) is read
 * whole all the same: each of its 600 lines parsed, the last one too. */
static void test_read_large_stat(void **state)
{
	char templ[] = "/tmp/memsz-test-memcg-XXXXXX";
	struct memcg m = {0};
	char *text = NULL, *line;
	size_t len = 0;

	assert_int_equal(tmpdir_make(templ), 0);
	assert_int_equal(sh("mkdir -p %s", fx("big")), 0);
	for (int i = 0; i < 600; i++) {
		line = xasprintf("counter_number_%03d %d\n", i, i * 7);
		text = xrealloc(text, len + strlen(line) + 1);
		strcpy(text + len, line);
		len += strlen(line);
		free(line);
	}
	assert_true(len > 8192);
	write_text(fx("big/memory.usage_in_bytes"), "4096\n");
	write_text(fx("big/memory.stat"), text);
	assert_int_equal(memcg_read(fx("big"), &m), 0);
	assert_int_equal(m.version, 1);
	assert_int_equal(m.nstats, 600);
	assert_int_equal(stat_of(&m, "counter_number_599"), 599 * 7);
	memcg_release(&m);
	free(text);
	tmpdir_remove();
	(void)state;
}

/* The version of a cgroup directory is its mount's: under v1's memory
 * mount (a whole path component) 1, else 2. */
static void test_dir_version(void **state)
{
	struct memcg_mounts mm = {.v1 = "/sys/fs/cgroup/memory",
				  .v2 = "/sys/fs/cgroup/unified"};

	assert_int_equal(memcg_dir_version(&mm, "/sys/fs/cgroup/memory"), 1);
	assert_int_equal(memcg_dir_version(&mm, "/sys/fs/cgroup/memory/a/b"),
			 1);
	assert_int_equal(memcg_dir_version(&mm, "/sys/fs/cgroup/memoryx/a"), 2);
	assert_int_equal(memcg_dir_version(&mm, "/sys/fs/cgroup/unified/a"), 2);
	mm.v1[0] = 0;
	assert_int_equal(memcg_dir_version(&mm, "/sys/fs/cgroup/memory/a"), 2);
	(void)state;
}

/* The inode of path (stat), the ground truth memcg_find_inos matches. */
static uint64_t ino_of(const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	return st.st_ino;
}

/* Several cgroups named in one walk of a tree: each inode gets its
 * directory (a repeated one too), an inode the tree lacks none. */
static void test_find_inos(void **state)
{
	char templ[] = "/tmp/memsz-test-memcg-XXXXXX";
	struct memcg_mounts mm = {0};
	uint64_t inos[5];
	char *dirs[5], *one = NULL;

	assert_int_equal(tmpdir_make(templ), 0);
	assert_int_equal(sh("mkdir -p %s %s %s", fx("root/a/b"), fx("root/c"),
			    fx("root/d/e")),
			 0);
	strcpy(mm.v2, fx("root"));
	inos[0] = ino_of(fx("root/c"));
	inos[1] = ino_of(fx("root/a/b"));
	inos[2] = UINT64_MAX - 1; /* no directory has it */
	inos[3] = ino_of(fx("root/a/b"));
	inos[4] = ino_of(fx("root"));
	assert_int_equal(memcg_find_inos(&mm, NULL, inos, 5, dirs), 4);
	assert_string_equal(dirs[0], fx("root/c"));
	assert_string_equal(dirs[1], fx("root/a/b"));
	assert_null(dirs[2]);
	assert_string_equal(dirs[3], fx("root/a/b"));
	assert_string_equal(dirs[4], fx("root"));
	for (size_t i = 0; i < 5; i++)
		free(dirs[i]);
	/* the same answers looked for from a process's cgroup first: its
	 * ancestors, their subdirectories, then the rest of the tree (d/e is
	 * below none of them); a near outside the root is not used */
	inos[2] = ino_of(fx("root/d/e"));
	inos[3] = ino_of(fx("root/a"));
	assert_int_equal(memcg_find_inos(&mm, fx("root/a/b"), inos, 5, dirs),
			 5);
	assert_string_equal(dirs[0], fx("root/c"));
	assert_string_equal(dirs[1], fx("root/a/b"));
	assert_string_equal(dirs[2], fx("root/d/e"));
	assert_string_equal(dirs[3], fx("root/a"));
	assert_string_equal(dirs[4], fx("root"));
	for (size_t i = 0; i < 5; i++)
		free(dirs[i]);
	assert_int_equal(memcg_find_inos(&mm, "/nonexistent/x", inos, 5, dirs),
			 5);
	assert_string_equal(dirs[2], fx("root/d/e"));
	for (size_t i = 0; i < 5; i++)
		free(dirs[i]);
	assert_int_equal(memcg_find_ino(&mm, ino_of(fx("root/d/e")), &one), 0);
	assert_string_equal(one, fx("root/d/e"));
	free(one);
	assert_int_equal(memcg_find_ino(&mm, UINT64_MAX - 1, &one), -ENOENT);
	assert_null(one);
	tmpdir_remove();
	(void)state;
}

/* A CGROUP record written and read back, counters and all; one the
 * writer refuses. */
static void test_record(void **state)
{
	char templ[] = "/tmp/memsz-test-memcg-XXXXXX";
	struct md_cgroup_stat st[] = {{"anon", 52887552},
				      {"kernel_stack", 49152}};
	struct md_cgroup g = {.time = 42,
			      .pid = 0,
			      .version = 2,
			      .flags = MD_CG_F_USAGE | MD_CG_F_TARGET,
			      .nstats = 2,
			      .ino = 8153,
			      .usage = 123456789,
			      .path = "/sys/fs/cgroup/box",
			      .stats = st};
	struct md_writer *w;
	struct md_reader *r;
	struct md_record rec;
	int n = 0;

	assert_int_equal(tmpdir_make(templ), 0);
	assert_int_equal(md_writer_open(fx("cg.data"), &w), 0);
	assert_int_equal(md_write_cgroup(w, &g), 0);
	g.version = 3;
	assert_int_equal(md_write_cgroup(w, &g), -EINVAL);
	assert_int_equal(md_writer_commit(w), 0);
	assert_int_equal(md_writer_close(w), 0);
	assert_int_equal(md_reader_open(fx("cg.data"), &r), 0);
	while (md_read_next(r, &rec) == 1) {
		if (rec.type != MD_REC_CGROUP)
			continue;
		n++;
		assert_int_equal(rec.u.cgroup.version, 2);
		assert_int_equal(rec.u.cgroup.usage, 123456789);
		assert_int_equal(rec.u.cgroup.ino, 8153);
		assert_int_equal(rec.u.cgroup.flags,
				 MD_CG_F_USAGE | MD_CG_F_TARGET);
		assert_string_equal(rec.u.cgroup.path, "/sys/fs/cgroup/box");
		assert_int_equal(rec.u.cgroup.nstats, 2);
		assert_string_equal(rec.u.cgroup.stats[1].key, "kernel_stack");
		assert_int_equal(rec.u.cgroup.stats[1].value, 49152);
	}
	assert_string_equal(md_reader_why(r), "");
	assert_int_equal(n, 1);
	md_reader_close(r);
	tmpdir_remove();
	(void)state;
}

/* Write a snapshot of one mapping [0x10000, 0x20000) with 16 present
 * pages, then the charge runs given (none: no SNAP_CHARGE record), to
 * path; with early, the charge record comes before the mapping (before
 * the snapshot's last mapping). */
static void write_charged(const char *path, const struct md_charge_run *u,
			  uint32_t n, bool early)
{
	struct md_run run = {.vaddr = 0x10000,
			     .npages = 16,
			     .flags = MD_PG_PRESENT | MD_PG_FILE,
			     .mapcount = 0};
	struct md_snap_mapping m = {.start = 0x10000,
				    .end = 0x20000,
				    .flags = 0x02 /* MAP_PRIVATE */,
				    .prot = 1,
				    .image_id = UINT32_MAX,
				    .name = "x",
				    .runs = &run,
				    .nruns = 1};
	struct md_snap_begin b = {.time = 1, .pid = 7, .nmappings = 1};
	struct md_snap_end e = {.time = 2, .pid = 7};
	struct md_snap_charge g = {.own = 99, .nruns = n, .runs = u};
	struct md_writer *w;

	assert_int_equal(md_writer_open(path, &w), 0);
	assert_int_equal(md_write_snap_begin(w, &b), 0);
	if (early)
		assert_int_equal(md_write_snap_charge(w, &g), 0);
	assert_int_equal(md_write_mapping(w, &m), 0);
	if (n && !early)
		assert_int_equal(md_write_snap_charge(w, &g), 0);
	assert_int_equal(md_write_snap_end(w, &e), 0);
	assert_int_equal(md_writer_commit(w), 0);
	assert_int_equal(md_writer_close(w), 0);
}

/* Read path to its end: the SNAP_CHARGE runs into *got (*ngot), and the
 * reader's complaint, "" if none. */
static const char *read_charged(const char *path, struct md_charge_run *got,
				uint32_t *ngot)
{
	static char why[128];
	struct md_reader *r;
	struct md_record rec;

	*ngot = 0;
	assert_int_equal(md_reader_open(path, &r), 0);
	while (md_read_next(r, &rec) == 1)
		if (rec.type == MD_REC_SNAP_CHARGE) {
			assert_int_equal(rec.u.charge.own, 99);
			for (uint32_t i = 0; i < rec.u.charge.nruns; i++)
				got[(*ngot)++] = rec.u.charge.runs[i];
		}
	snprintf(why, sizeof(why), "%s", md_reader_why(r));
	md_reader_close(r);
	return why;
}

static void test_charge_record(void **state)
{
	char templ[] = "/tmp/memsz-test-memcg-XXXXXX";
	long ps = sysconf(_SC_PAGESIZE);
	struct md_charge_run u[] = {
	    {.vaddr = 0x10000, .cgroup = 35, .npages = 2},
	    {.vaddr = 0x10000 + 4 * ps, .cgroup = 0, .npages = 1},
	};
	struct md_charge_run bad[] = {
	    {.vaddr = 0x10000 + 4 * ps, .cgroup = 35, .npages = 1},
	    {.vaddr = 0x10000, .cgroup = 35, .npages = 1},
	};
	struct md_charge_run past[] = {
	    {.vaddr = 0x1f000, .cgroup = 35, .npages = 2},
	};
	struct md_charge_run got[4];
	uint32_t n;

	if (ps != 4096)
		test_skip("the fixture assumes 4 KiB pages");
	assert_int_equal(tmpdir_make(templ), 0);
	write_charged(fx("ok.data"), u, 2, false);
	assert_string_equal(read_charged(fx("ok.data"), got, &n), "");
	assert_int_equal(n, 2);
	assert_int_equal(got[0].cgroup, 35);
	assert_int_equal(got[0].npages, 2);
	assert_int_equal(got[1].vaddr, 0x10000 + 4 * ps);
	assert_int_equal(got[1].cgroup, 0);
	write_charged(fx("order.data"), bad, 2, false);
	assert_string_equal(read_charged(fx("order.data"), got, &n),
			    "charge run outside its snapshot's mappings or "
			    "out of order");
	write_charged(fx("past.data"), past, 1, false);
	assert_string_equal(read_charged(fx("past.data"), got, &n),
			    "charge run outside its snapshot's mappings or "
			    "out of order");
	write_charged(fx("early.data"), u, 2, true);
	assert_string_equal(read_charged(fx("early.data"), got, &n),
			    "charge record not after its snapshot's mappings");
	tmpdir_remove();
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_stat_parse),
	    cmocka_unit_test(test_stat_live),
	    cmocka_unit_test(test_mounts),
	    cmocka_unit_test(test_v2_only),
	    cmocka_unit_test(test_v2_fast_live),
	    cmocka_unit_test(test_v1_fast_live),
	    cmocka_unit_test(test_proc_cgroup),
	    cmocka_unit_test(test_self_live),
	    cmocka_unit_test(test_read_tree),
	    cmocka_unit_test(test_dir_version),
	    cmocka_unit_test(test_read_large_stat),
	    cmocka_unit_test(test_find_inos),
	    cmocka_unit_test(test_record),
	    cmocka_unit_test(test_charge_record),
	};

	return test_run_group(tests, NULL, NULL);
}
