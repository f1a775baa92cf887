// SPDX-License-Identifier: GPL-2.0-or-later
/* test_machine.c — the whole machine's memory: /proc/meminfo parsed from
 * its text (copied here, and read live), page frames sorted by their
 * kpageflags, and machine_read() beside this machine's /proc/meminfo;
 * the MACHINE record written and read back. */
#include "config.h"

#include <errno.h>
#include <linux/kernel-page-flags.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "data/datafile.h"
#include "record/machine.h"
#include "tests/testutil.h"

/* The head of this machine's /proc/meminfo, as the kernel printed it. */
static const char meminfo[] = "MemTotal:       24684092 kB\n"
			      "MemFree:        17516956 kB\n"
			      "MemAvailable:   19193344 kB\n"
			      "Buffers:          103268 kB\n"
			      "Cached:          1865756 kB\n"
			      "HugePages_Total:       0\n"
			      "HugePages_Free:        0\n"
			      "Hugepagesize:       2048 kB\n"
			      "Hugetlb:               0 kB\n";

static void test_meminfo(void **state)
{
	struct machine m = {0};
	bool found;

	assert_int_equal(machine_meminfo_parse(meminfo, strlen(meminfo), &m),
			 0);
	assert_int_equal(m.n, 9);
	assert_int_equal(machine_get(&m, "MemTotal", &found),
			 24684092ull << 10);
	assert_true(found);
	/* a count has no unit: taken as it is */
	assert_int_equal(machine_get(&m, "HugePages_Total", &found), 0);
	assert_true(found);
	assert_int_equal(machine_get(&m, "Hugepagesize", NULL), 2048 << 10);
	machine_get(&m, "Nope", &found);
	assert_false(found);
	machine_release(&m);
	assert_int_equal(machine_meminfo_parse("A: 1 MB\n", 8, &m), -EINVAL);
	assert_int_equal(machine_meminfo_parse("garbage\n", 8, &m), -EINVAL);
	machine_release(&m);
	(void)state;
}

#define F(bit) (1ull << (bit))

static void test_walk(void **state)
{
	/* one frame of each kind, a second free one, a page cache frame
	 * known by its mapping only, and frames with other or no flags */
	static const uint64_t flags[] = {
	    F(KPF_NOPAGE),
	    F(KPF_BUDDY),
	    F(KPF_BUDDY),
	    F(KPF_SLAB),
	    F(KPF_HUGE) | F(KPF_COMPOUND_HEAD),
	    F(26) /* PGTABLE */,
	    F(KPF_ANON) | F(KPF_SWAPBACKED) | F(KPF_LRU),
	    F(KPF_SWAPBACKED) | F(KPF_LRU),
	    F(KPF_LRU) | F(KPF_REFERENCED),
	    F(KPF_MMAP),
	    F(KPF_REFERENCED),
	    0,
	    0,
	    F(32) /* RESERVED */,
	};
	struct machine m = {0};

	machine_walk_count(flags, sizeof(flags) / sizeof(flags[0]), 4096, &m);
	assert_int_equal(machine_get(&m, "walk_hole", NULL), 4096);
	assert_int_equal(machine_get(&m, "walk_free", NULL), 2 * 4096);
	assert_int_equal(machine_get(&m, "walk_slab", NULL), 4096);
	assert_int_equal(machine_get(&m, "walk_hugetlb", NULL), 4096);
	assert_int_equal(machine_get(&m, "walk_pgtable", NULL), 4096);
	assert_int_equal(machine_get(&m, "walk_anon", NULL), 4096);
	assert_int_equal(machine_get(&m, "walk_shmem", NULL), 4096);
	assert_int_equal(machine_get(&m, "walk_file", NULL), 2 * 4096);
	assert_int_equal(machine_get(&m, "walk_other", NULL), 4096);
	assert_int_equal(machine_get(&m, "walk_unflagged", NULL), 2 * 4096);
	assert_int_equal(machine_get(&m, "walk_reserved", NULL), 4096);
	/* counted again: added */
	machine_walk_count(flags, 2, 4096, &m);
	assert_int_equal(machine_get(&m, "walk_free", NULL), 3 * 4096);
	machine_release(&m);
	(void)state;
}

static void test_slabinfo(void **state)
{
	/* the head and three caches of this machine's /proc/slabinfo */
	static const char slabinfo[] =
	    "slabinfo - version: 2.1\n"
	    "# name            <active_objs> <num_objs> <objsize> "
	    "<objperslab> <pagesperslab> : tunables <limit> <batchcount> "
	    "<sharedfactor> : slabdata <active_slabs> <num_slabs> "
	    "<sharedavail>\n"
	    "btrfs_delayed_node      0      0    312   13    1 : tunables    "
	    "0    0    0 : slabdata      0      0      0\n"
	    "ext4_inode_cache  177800 177912   1128   14    4 : tunables    "
	    "0    0    0 : slabdata  12708  12708      0\n"
	    "dentry            384392 384489    192   21    1 : tunables    "
	    "0    0    0 : slabdata  18309  18309      0\n";
	struct machine m = {0};

	assert_int_equal(
	    machine_slabinfo_parse(slabinfo, strlen(slabinfo), 4096, &m), 0);
	/* a cache without slabs is left out */
	assert_int_equal(m.n, 2);
	assert_int_equal(machine_get(&m, "slabinfo:ext4_inode_cache", NULL),
			 12708ull * 4 * 4096);
	assert_int_equal(machine_get(&m, "slabinfo:dentry", NULL),
			 18309ull * 4096);
	machine_release(&m);
	assert_int_equal(machine_slabinfo_parse("dentry 1 2 3\n", 13, 4096, &m),
			 -EINVAL);
	machine_release(&m);
	(void)state;
}

static void test_iomem(void **state)
{
	/* the head of this machine's /proc/iomem, as root sees it */
	static const char iomem[] = "00000000-00000fff : Reserved\n"
				    "00001000-0009fbff : System RAM\n"
				    "000f0000-000fffff : System ROM\n"
				    "00100000-bfffffff : System RAM\n"
				    "  01000000-0220ffff : Kernel code\n"
				    "c0000000-febfffff : PCI Bus 0000:00\n"
				    "100000000-63fffffff : System RAM\n";
	struct pfn_range *r;
	size_t n;

	assert_int_equal(
	    machine_iomem_parse(iomem, strlen(iomem), 4096, &r, &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(r[0].lo, 1);
	assert_int_equal(r[0].hi, 0x9f); /* the partial last page is out */
	assert_int_equal(r[1].lo, 0x100);
	assert_int_equal(r[1].hi, 0xc0000);
	assert_int_equal(r[2].lo, 0x100000);
	assert_int_equal(r[2].hi, 0x640000);
	free(r);
	/* not root: every address reads as 0, no range */
	assert_int_equal(machine_iomem_parse("00000000-00000000 : System RAM\n",
					     31, 4096, &r, &n),
			 0);
	assert_int_equal(n, 0);
	assert_null(r);
	(void)state;
}

static void test_split(void **state)
{
	struct machine m = {0};
	static const char mi[] = "MemFree: 40 kB\n";
	static const uint64_t flags[] = {
	    F(KPF_BUDDY), F(KPF_BUDDY), 0, 0, 0, 0};

	/* 8 KiB in buddy frames, 32 more KiB of MemFree: 16 KiB of frames
	 * with no flag cannot hold it all, so all four are free */
	assert_int_equal(machine_meminfo_parse(mi, strlen(mi), &m), 0);
	machine_walk_count(flags, 6, 4096, &m);
	machine_walk_split(&m);
	assert_int_equal(machine_get(&m, "walk_free_unlisted", NULL), 16384);
	assert_int_equal(machine_get(&m, "walk_unflagged", NULL), 0);
	machine_release(&m);
	/* MemFree 16 KiB: 8 of them unlisted, 8 KiB of kernel frames */
	assert_int_equal(machine_meminfo_parse("MemFree: 16 kB\n", 15, &m), 0);
	machine_walk_count(flags, 6, 4096, &m);
	machine_walk_split(&m);
	assert_int_equal(machine_get(&m, "walk_free_unlisted", NULL), 8192);
	assert_int_equal(machine_get(&m, "walk_unflagged", NULL), 8192);
	machine_release(&m);
	/* MemFree below the buddy frames (it moved): nothing unlisted */
	assert_int_equal(machine_meminfo_parse("MemFree: 4 kB\n", 14, &m), 0);
	machine_walk_count(flags, 6, 4096, &m);
	machine_walk_split(&m);
	assert_int_equal(machine_get(&m, "walk_free_unlisted", NULL), 0);
	assert_int_equal(machine_get(&m, "walk_unflagged", NULL), 16384);
	machine_release(&m);
	(void)state;
}

/* This machine: every line of /proc/meminfo; the walk covers every frame
 * /proc/kpageflags has, and its free frames are not more than the
 * kernel's free memory and its slab near the kernel's (both move). */
static void test_live(void **state)
{
	struct machine m = {0};
	uint64_t frames = 0, total;
	size_t lines = 0, caches = 0;
	char line[256];
	FILE *f = fopen("/proc/meminfo", "r");
	bool walked;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		lines++;
	fclose(f);
	assert_int_equal(machine_read(&m, true), 0);
	total = machine_get(&m, "MemTotal", NULL);
	assert_true(total > 0);
	machine_get(&m, "walk_free", &walked);
	if (!walked) {
		assert_int_equal(m.n, lines);
		machine_release(&m);
		test_skip("/proc/kpageflags is not readable (needs root)");
	}
	for (size_t i = 0; i < m.n; i++) {
		if (!strncmp(m.stats[i].key, "walk_", 5))
			frames += m.stats[i].value;
		if (!strncmp(m.stats[i].key, "slabinfo:", 9))
			caches++;
	}
	/* root reads kpageflags, so slabinfo too */
	assert_true(caches > 0);
	assert_int_equal(m.n - 13 - caches, lines);
	/* every frame is of one kind; RAM is at least MemTotal */
	assert_true(frames >= total);
	assert_true(machine_get(&m, "walk_slab", NULL) > 0);
	machine_release(&m);
	(void)state;
}

static void test_record(void **state)
{
	char templ[] = "/tmp/memsz-test-machine-XXXXXX";
	struct md_cgroup_stat st[] = {{"MemTotal", 1ull << 34},
				      {"walk_free", 1ull << 33}};
	struct md_machine mr = {.time = 5, .nstats = 2, .stats = st};
	struct md_writer *w;
	struct md_reader *r;
	struct md_record rec;
	int n = 0;

	assert_int_equal(tmpdir_make(templ), 0);
	assert_int_equal(md_writer_open(fx("m.data"), &w), 0);
	assert_int_equal(md_write_machine(w, &mr), 0);
	st[1].key = NULL;
	assert_int_equal(md_write_machine(w, &mr), -EINVAL);
	assert_int_equal(md_writer_commit(w), 0);
	assert_int_equal(md_writer_close(w), 0);
	assert_int_equal(md_reader_open(fx("m.data"), &r), 0);
	while (md_read_next(r, &rec) == 1) {
		if (rec.type != MD_REC_MACHINE)
			continue;
		n++;
		assert_int_equal(rec.u.machine.nstats, 2);
		assert_string_equal(rec.u.machine.stats[1].key, "walk_free");
		assert_int_equal(rec.u.machine.stats[0].value, 1ull << 34);
	}
	assert_int_equal(n, 1);
	assert_string_equal(md_reader_why(r), "");
	md_reader_close(r);
	tmpdir_remove();
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_meminfo),  cmocka_unit_test(test_walk),
	    cmocka_unit_test(test_slabinfo), cmocka_unit_test(test_iomem),
	    cmocka_unit_test(test_split),    cmocka_unit_test(test_live),
	    cmocka_unit_test(test_record),
	};

	return test_run_group(tests, NULL, NULL);
}
