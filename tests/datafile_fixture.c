// SPDX-License-Identifier: GPL-2.0-or-later
/* datafile_fixture.c — what the memsz.data codec tests share
 * (datafile_fixture.h): a file with a record of every type, patched
 * copies, raw little-endian fields. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "data/datafile.h"
#include "data/dfcodec.h"
#include "tests/datafile_fixture.h"
#include "tests/testutil.h"
#include "util/util.h"

char tmpdir[] = "/tmp/memsz-test-datafile-XXXXXX";

char *tpath(const char *name)
{
	return xasprintf("%s/%s", tmpdir, name);
}

const struct md_run runs[3] = {
    {0x400000, 3, MD_PG_PRESENT | MD_PG_FILE, 2, 0},
    {0x403000, 1, MD_PG_SWAPPED, 0, 0},
    {0x404000, 100000, MD_PG_PRESENT | MD_PG_EXCLUSIVE | MD_PG_PRIVATE_DIRTY, 1,
     0},
};
int write_all_types(struct md_writer *w)
{
	struct md_image im = {
	    .id = 7,
	    .dev_major = 0x103,
	    .dev_minor = 0x10001,
	    .ino = 1234567890123ull,
	    .size = 4096 * 5 + 3,
	    .mtime_ns = -5,
	    .build_id = {0xde, 0xad, 0xbe, 0xef, 1, 2},
	    .build_id_len = 20,
	    .path = "/usr/lib/lib with space.so",
	    .open_path = "/proc/42/root/usr/lib/lib with space.so",
	};
	struct md_mmap2 mm = {
	    .time = 123456789,
	    .pid = 42,
	    .tid = 43,
	    .start = 0x7f0000001000,
	    .len = 0x3000,
	    .pgoff = 0x2000,
	    .dev_major = 8,
	    .dev_minor = 1,
	    .ino = 99,
	    .ino_generation = 5,
	    .prot = 5,
	    .flags = 2,
	    .build_id = {1, 2, 3},
	    .build_id_len = 3,
	    .synthesized = true,
	    .filename = "/bin/true (deleted)",
	};
	struct md_task comm = {
	    .time = 1, .pid = 42, .tid = 43, .comm = "worker"};
	struct md_task fork = {.time = 2,
			       .pid = 44,
			       .tid = 44,
			       .ppid = 42,
			       .ptid = 43,
			       .comm = "ignored"};
	struct md_task ex = {
	    .time = 3, .pid = 44, .tid = 44, .ppid = 42, .ptid = 43};
	struct md_lost lost = {4, 17};
	struct md_snap_begin sb = {5, 42, 0, MD_SNAP_F_PFN, 2};
	struct md_snap_mapping map = {
	    .start = 0x400000,
	    .end = RUNS_END,
	    .pgoff = 0,
	    .dev_major = 8,
	    .dev_minor = 1,
	    .ino = 99,
	    .prot = 5,
	    .flags = 2,
	    .image_id = 7,
	    .name = "/bin/true",
	    .runs = runs,
	    .nruns = ARRAY_SIZE(runs),
	};
	struct md_snap_mapping anon = {
	    .start = 0x20000000,
	    .end = 0x20001000,
	    .flags = 2,
	    .image_id = UINT32_MAX,
	    .name = "",
	    .runs = NULL,
	    .nruns = 0,
	};
	struct md_snap_end se = {6, 42, 0, 12, 1 << 20};

	assert_int_equal(md_write_image(w, &im), 0);
	assert_int_equal(md_write_mmap2(w, &mm), 0);
	assert_int_equal(md_write_task(w, MD_REC_COMM, &comm), 0);
	assert_int_equal(md_write_task(w, MD_REC_FORK, &fork), 0);
	assert_int_equal(md_write_task(w, MD_REC_EXIT, &ex), 0);
	assert_int_equal(md_write_lost(w, &lost), 0);
	assert_int_equal(md_write_snap_begin(w, &sb), 0);
	assert_int_equal(md_write_mapping(w, &map), 0);
	assert_int_equal(md_write_mapping(w, &anon), 0);
	assert_int_equal(md_write_snap_end(w, &se), 0);
	assert_int_equal(
	    md_write_note_kind(w, MD_NOTE_NO_PFN, NULL, "PSS unavailable"), 0);
	mm.time = 9;
	mm.synthesized = false;
	mm.build_id_len = 0;
	assert_int_equal(md_write_munmap(w, &mm), 0);
	return 12;
}

unsigned wr_flags;

char *make_full_file(void)
{
	char *path = tpath("all.data");
	struct md_writer *w;

	assert_int_equal(md_writer_open_flags(path, wr_flags, &w), 0);
	write_all_types(w);
	assert_int_equal(md_writer_commit(w), 0);
	assert_int_equal(md_writer_close(w), 0);
	return path;
}

size_t boundaries(const uint8_t *raw, size_t len, uint64_t *b)
{
	size_t n = 0;
	uint64_t off = 64;

	b[n++] = off;
	while (off < len) {
		uint64_t sz = 0;
		for (int i = 7; i >= 0; i--)
			sz = sz << 8 | raw[off + 8 + i];
		off += sz;
		b[n++] = off;
	}
	assert_int_equal(off, len);
	return n;
}

int open_patched(const char *src, size_t at, const void *bytes, size_t n,
		 struct md_reader **r)
{
	char *dst = tpath("patched.data");
	size_t len;
	uint8_t *raw = read_file(src, &len);
	int ret;

	memcpy(raw + at, bytes, n);
	/* past the checksums, to reach the checks behind them */
	md_checksum_fix(raw, len);
	write_file(dst, raw, len);
	ret = md_reader_open(dst, r);
	free(raw);
	free(dst);
	return ret;
}

int read_until_error(struct md_reader *r, uint64_t *off)
{
	struct md_record rec;
	int ret;

	while ((ret = md_read_next(r, &rec)) == 1)
		;
	*off = md_reader_offset(r);
	md_reader_close(r);
	return ret;
}

void put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = v >> (8 * i);
}

void put_le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = v >> (8 * i);
}

void strip_checksums(uint8_t *raw, const uint64_t *bnd, size_t nb)
{
	put_le64(raw + 16, 0);
	put_le32(raw + 44, 0);
	for (size_t i = 0; i < nb; i++)
		put_le32(raw + bnd[i] + 4, 0);
}

int datafile_setup(void **state)
{
	(void)state;
	return tmpdir_make(tmpdir);
}

int datafile_teardown(void **state)
{
	(void)state;
	return tmpdir_remove();
}

const char *print_record(const struct md_record *rec, bool verbose)
{
	static char *buf;
	size_t len;
	FILE *f;

	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	md_record_print(f, rec, verbose, 4096);
	assert_int_equal(fclose(f), 0);
	return buf;
}
