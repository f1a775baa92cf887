// SPDX-License-Identifier: GPL-2.0-or-later
/* test_faults.c — the address-space history of report/faults.c: the
 * mappings of a snapshot that stands for MMAP2 records (MD_SNAP_F_MAPS)
 * and how they meet perf's MMAP2 records.
 *
 * Each sample carries only an instruction pointer: its one frame is named
 * by the mapping holding it at its time ("[FILE]" for a file with no image
 * known, the name of a "[...]" mapping, "[anon]" for an unnamed one,
 * "[unknown]" for none), which faults_page() gives back for its page. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "data/datafile.h"
#include "maps/labels.h"
#include "report/attrib.h"
#include "report/faults.h"
#include "tests/testutil.h"

#define PID 7
#define PAGE 4096

struct fx {
	struct labels *lb;
	struct attrib *a;
	struct faults *f;
};

static void fx_init(struct fx *x)
{
	x->lb = labels_new();
	x->a = attrib_new(x->lb, NULL);
	x->f = faults_new(x->a, x->lb, NULL, PAGE);
	assert_non_null(x->f);
}

static void fx_free(struct fx *x)
{
	faults_free(x->f);
	attrib_free(x->a);
	labels_free(x->lb);
}

static void snap_begin(struct fx *x, uint64_t time, uint32_t flags)
{
	struct md_record r = {.type = MD_REC_SNAP_BEGIN};

	r.u.snap_begin =
	    (struct md_snap_begin){.time = time, .pid = PID, .flags = flags};
	faults_add_snap(x->f, &r);
}

static void snap_end(struct fx *x, uint64_t time)
{
	struct md_record r = {.type = MD_REC_SNAP_END};

	r.u.snap_end = (struct md_snap_end){.time = time, .pid = PID};
	faults_add_snap(x->f, &r);
}

/* A SNAP_MAPPING of [start, end) named name (a file when ino). */
static void snap_mapping(struct fx *x, uint64_t start, uint64_t end,
			 uint64_t ino, const char *name)
{
	struct md_record r = {.type = MD_REC_SNAP_MAPPING};

	r.u.mapping = (struct md_snap_mapping){
	    .start = start,
	    .end = end,
	    .ino = ino,
	    .prot = 5,	/* PROT_READ | PROT_EXEC */
	    .flags = 2, /* MAP_PRIVATE */
	    .image_id = UINT32_MAX,
	    .name = name,
	};
	faults_add_snap(x->f, &r);
}

/* A perf MMAP2 record of [start, end) at time, a file named name. */
static void mmap2(struct fx *x, uint64_t time, uint64_t start, uint64_t end,
		  const char *name)
{
	struct md_mmap2 m = {
	    .time = time,
	    .pid = PID,
	    .tid = PID,
	    .start = start,
	    .len = end - start,
	    .ino = 99,
	    .prot = 5,
	    .flags = 2,
	    .filename = name,
	};

	faults_add_mmap2(x->f, &m, false);
}

/* A fault at time by code at ip, on the page at addr. */
static void sample(struct fx *x, uint64_t time, uint64_t ip, uint64_t addr)
{
	struct md_sample s = {
	    .time = time, .pid = PID, .tid = PID, .addr = addr, .ip = ip};

	assert_int_equal(faults_add_sample(x->f, &s), 0);
}

/* The callers label of the page at addr. */
static const char *callers(struct fx *x, uint64_t addr)
{
	uint32_t c, s;

	assert_true(faults_page(x->f, PID, addr, false, &c, &s));
	return labels_str(x->lb, c);
}

/* A flagged snapshot's mappings name the frames; a thread's stack, which
 * the snapshot names "[stack:TID]", is unnamed as /proc/PID/maps gives
 * it (a file's name is kept even if it looks like one). */
static void test_snap_names(void **state)
{
	struct fx x;

	(void)state;
	fx_init(&x);
	snap_begin(&x, 1000, MD_SNAP_F_MAPS);
	snap_mapping(&x, 0x10000, 0x20000, 0, "[stack:8]");
	snap_mapping(&x, 0x20000, 0x30000, 0, "[heap]");
	snap_mapping(&x, 0x30000, 0x40000, 5, "/lib/liba.so");
	snap_mapping(&x, 0x40000, 0x50000, 6, "[stack:odd file]");
	snap_end(&x, 1100);
	faults_set_limit(x.f, PID, 5000);
	sample(&x, 2000, 0x10010, 0x100000);
	sample(&x, 2000, 0x20010, 0x101000);
	sample(&x, 2000, 0x30010, 0x102000);
	sample(&x, 2000, 0x40010, 0x103000);
	assert_string_equal(callers(&x, 0x100000), "[anon]");
	assert_string_equal(callers(&x, 0x101000), "[heap]");
	assert_string_equal(callers(&x, 0x102000), "[liba.so]");
	assert_string_equal(callers(&x, 0x103000), "[stack:odd file]");
	fx_free(&x);
}

/* Only the mappings between the SNAP_BEGIN of a flagged snapshot and its
 * SNAP_END count: not those of an unflagged one, nor one met after. */
static void test_snap_in_maps(void **state)
{
	struct fx x;

	(void)state;
	fx_init(&x);
	snap_begin(&x, 1000, MD_SNAP_F_MAPS);
	snap_mapping(&x, 0x10000, 0x20000, 5, "/lib/liba.so");
	snap_end(&x, 1100);
	snap_mapping(&x, 0x20000, 0x30000, 6, "/lib/libafter.so");
	snap_begin(&x, 3000, MD_SNAP_F_FROZEN);
	snap_mapping(&x, 0x30000, 0x40000, 7, "/lib/libunflagged.so");
	snap_end(&x, 3100);
	faults_set_limit(x.f, PID, 5000);
	sample(&x, 4000, 0x10010, 0x100000);
	sample(&x, 4000, 0x20010, 0x101000);
	sample(&x, 4000, 0x30010, 0x102000);
	assert_string_equal(callers(&x, 0x100000), "[liba.so]");
	assert_string_equal(callers(&x, 0x101000), "[unknown]");
	assert_string_equal(callers(&x, 0x102000), "[unknown]");
	fx_free(&x);
}

/* The recorder reads a snapshot's maps before it takes the snapshot's
 * time: a perf MMAP2 record of a mapping replacing one of them between
 * the two is older than the snapshot, yet newer than what it lists. It
 * wins from its time on; before it, the snapshot's mapping holds (and
 * not the first record after the sample). */
static void test_snap_replaced_meanwhile(void **state)
{
	struct fx x;

	(void)state;
	fx_init(&x);
	snap_begin(&x, 5000, MD_SNAP_F_MAPS);
	snap_mapping(&x, 0x10000, 0x20000, 5, "/lib/libold.so");
	snap_end(&x, 5100);
	/* drained after the snapshot, with its own (older) time */
	mmap2(&x, 4000, 0x10000, 0x20000, "/lib/libnew.so");
	faults_set_limit(x.f, PID, 9000);
	sample(&x, 3000, 0x10010, 0x100000); /* before the replacement */
	sample(&x, 4500, 0x10010, 0x101000); /* between it and SNAP_BEGIN */
	sample(&x, 6000, 0x10010, 0x102000); /* after SNAP_BEGIN */
	assert_string_equal(callers(&x, 0x102000), "[libnew.so]");
	assert_string_equal(callers(&x, 0x101000), "[libnew.so]");
	assert_string_equal(callers(&x, 0x100000), "[libold.so]");
	fx_free(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_snap_names),
	    cmocka_unit_test(test_snap_in_maps),
	    cmocka_unit_test(test_snap_replaced_meanwhile),
	};

	return test_run_group(tests, NULL, NULL);
}
