// SPDX-License-Identifier: GPL-2.0-or-later
/* test_datafile_corrupt.c — the memsz.data codec on damaged input: a file
 * cut at every byte, corrupt headers and records, records that break the
 * invariants between them, CRC-32C, version 1 files' runs, files that are
 * no recording. */
#include "config.h"

#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "data/datafile.h"
#include "data/dfcodec.h"
#include "tests/datafile_fixture.h"
#include "tests/testutil.h"
#include "util/util.h"

/* make_full_file() in version 5, for the tests that patch its fields */
static char *make_full_file_v5(void)
{
	char *path;

	wr_flags = MD_WRITER_V5;
	path = make_full_file();
	wr_flags = 0;
	return path;
}

static void test_truncated_everywhere(void **state)
{
	char *path = make_full_file(), *cut = tpath("cut.data");
	uint64_t b[64];
	size_t len, nb, i, k;
	uint8_t *raw = read_file(path, &len);

	nb = boundaries(raw, len, b);
	assert_int_equal(nb, 14);
	for (i = 0; i <= len; i++) {
		struct md_reader *r;
		struct md_record rec;
		size_t complete = 0, expect = 0;
		int ret;

		write_file(cut, raw, i);
		ret = md_reader_open(cut, &r);
		if (i < 64) {
			assert_int_equal(ret, -MEMSZ_ETRUNC);
			continue;
		}
		assert_int_equal(ret, 0);
		while ((ret = md_read_next(r, &rec)) == 1)
			complete++;
		for (k = 1; k < nb; k++)
			if (b[k] <= i)
				expect++;
		assert_int_equal(complete, expect);
		if (b[expect] == i) {
			/* cut on a record boundary: a clean end, but before
			 * the END record the file says it was cut short */
			assert_int_equal(ret, 0);
			assert_int_equal(md_reader_cut_short(r), i < len);
		} else {
			assert_int_equal(ret, -MEMSZ_ETRUNC);
			assert_int_equal(md_reader_offset(r), b[expect]);
		}
		md_reader_close(r);
	}
	free(raw);
	free(path);
	free(cut);
	(void)state;
}

static uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static void test_corrupt(void **state)
{
	char *path = make_full_file_v5();
	struct md_reader *r;
	uint8_t b[8];
	uint64_t off, bnd[64];
	size_t len;
	uint8_t *raw = read_file(path, &len);

	boundaries(raw, len, bnd);
	/* bad magic */
	assert_int_equal(open_patched(path, 0, "MEMSZDAX", 8, &r),
			 -MEMSZ_EBADMAGIC);
	/* newer version */
	put_le32(b, MD_VERSION + 1);
	assert_int_equal(open_patched(path, 8, b, 4, &r), -MEMSZ_EVERSION);
	/* header_size not a multiple of 8 */
	put_le32(b, 65);
	assert_int_equal(open_patched(path, 12, b, 4, &r), -MEMSZ_EBADDATA);
	/* page_size not a power of two from 4 KiB to 1 GiB */
	for (size_t i = 0; i < 4; i++) {
		static const uint32_t bad[] = {0, 1, 12288, 0x80000000u};

		put_le32(b, bad[i]);
		assert_int_equal(open_patched(path, 40, b, 4, &r),
				 -MEMSZ_EBADDATA);
	}
	put_le32(b, 65536);
	assert_int_equal(open_patched(path, 40, b, 4, &r), 0);
	md_reader_close(r);
	/* record size overrunning the file: third record */
	put_le64(b, len);
	assert_int_equal(open_patched(path, bnd[2] + 8, b, 8, &r), 0);
	assert_int_equal(read_until_error(r, &off), -MEMSZ_ETRUNC);
	assert_int_equal(off, bnd[2]);
	/* record size below the header, or not a multiple of 8 */
	put_le64(b, 8);
	assert_int_equal(open_patched(path, bnd[1] + 8, b, 8, &r), 0);
	assert_int_equal(read_until_error(r, &off), -MEMSZ_EBADDATA);
	assert_int_equal(off, bnd[1]);
	put_le64(b, bnd[2] - bnd[1] + 4);
	assert_int_equal(open_patched(path, bnd[1] + 8, b, 8, &r), 0);
	assert_int_equal(read_until_error(r, &off), -MEMSZ_EBADDATA);
	/* string length overrunning its record: the COMM record's comm */
	put_le32(b, 1000);
	assert_int_equal(open_patched(path, bnd[2] + 16 + 24, b, 4, &r), 0);
	assert_int_equal(read_until_error(r, &off), -MEMSZ_EBADDATA);
	assert_int_equal(off, bnd[2]);
	/* string without its NUL: length one too long for "worker" */
	put_le32(b, 7);
	assert_int_equal(open_patched(path, bnd[2] + 16 + 24, b, 4, &r), 0);
	assert_int_equal(read_until_error(r, &off), -MEMSZ_EBADDATA);
	/* nruns overrunning the mapping record (record 8 = index 7) */
	put_le64(b, 1000);
	assert_int_equal(open_patched(path, bnd[7] + 16 + 56, b, 8, &r), 0);
	assert_int_equal(read_until_error(r, &off), -MEMSZ_EBADDATA);
	assert_int_equal(off, bnd[7]);
	/* an unknown type is skipped by its size */
	put_le32(b, 1000);
	assert_int_equal(open_patched(path, bnd[5], b, 4, &r), 0);
	{
		struct md_record rec;
		int n = 0, ret;

		while ((ret = md_read_next(r, &rec)) == 1) {
			assert_int_not_equal(rec.type, MD_REC_LOST);
			n++;
		}
		assert_int_equal(ret, 0);
		assert_int_equal(n, 12);
		md_reader_close(r);
	}
	free(raw);
	free(path);
	(void)state;
}

/* A file with one snapshot of two mappings; patch(raw, len, rec offsets)
 * damages it behind its checksums. */
struct damage {
	const char *what; /* md_reader_why() expected */
	size_t rec;	  /* index of the record that must be refused */
	void (*patch)(uint8_t *raw, const uint64_t *b);
};

static void dm_end_beyond(uint8_t *raw, const uint64_t *b)
{
	put_le64(raw + b[8] + 16 + 8, 0x80007febb63a7000ull);
}

static void dm_overlap(uint8_t *raw, const uint64_t *b)
{
	put_le64(raw + b[8] + 16, 0x1000); /* anon starts before map ends */
}

/* pgoff (payload + 16) so near 2^64 that the mapping's file offsets wrap */
static void dm_pgoff_wrap(uint8_t *raw, const uint64_t *b)
{
	put_le64(raw + b[7] + 16 + 16, 0xfffffffffffff000ull);
}

static void dm_no_image(uint8_t *raw, const uint64_t *b)
{
	put_le32(raw + b[7] + 16 + 48, 8);
}

static void dm_nested(uint8_t *raw, const uint64_t *b)
{
	put_le32(raw + b[9], MD_REC_SNAP_BEGIN);
}

static void dm_end_pairing(uint8_t *raw, const uint64_t *b)
{
	put_le32(raw + b[9] + 16 + 12, 5); /* SNAP_END of seq 5 */
}

/* The palette entry of the mapping at b[7] ("/bin/true") with flags f. */
static uint8_t *pal_entry(uint8_t *raw, const uint64_t *b, uint32_t f)
{
	/* payload: 64 bytes of fields, the name (16), npalette, crc,
	 * nbytes (16), then the palette */
	uint8_t *q = raw + b[7] + 16 + 64 + 16;
	uint32_t npal = get_le32(q);

	for (uint32_t i = 0; i < npal; i++)
		if (get_le32(q + 16 + 8 * i) == f)
			return q + 16 + 8 * i;
	fail();
	return NULL;
}

/* The decoded runs of a version 2 mapping go through the same checks as
 * version 1 runs: a palette entry that is not a page state, an exclusive
 * page mapped twice, kpageflags bits in a snapshot without them. */
static void dm_pal_not_present(uint8_t *raw, const uint64_t *b)
{
	put_le32(pal_entry(raw, b, MD_PG_SWAPPED), MD_PG_FILE);
}

static void dm_pal_mapcount(uint8_t *raw, const uint64_t *b)
{
	put_le32(
	    pal_entry(raw, b,
		      MD_PG_PRESENT | MD_PG_EXCLUSIVE | MD_PG_PRIVATE_DIRTY) +
		4,
	    2);
}

static void dm_pal_kpageflags(uint8_t *raw, const uint64_t *b)
{
	put_le32(pal_entry(raw, b, MD_PG_PRESENT | MD_PG_FILE),
		 MD_PG_PRESENT | MD_PG_FILE | MD_PG_DIRTY);
}

static void dm_end_count(uint8_t *raw, const uint64_t *b)
{
	put_le64(raw + b[12] + 16 + 8, 11);
}

static void test_invariants(void **state)
{
	static const struct damage dm[] = {
	    {"mapping beyond the user address space", 8, dm_end_beyond},
	    {"mapping out of order or overlapping the previous one", 8,
	     dm_overlap},
	    {"mapping of an image id with no IMAGE record", 7, dm_no_image},
	    {"mapping file offsets past 2^64", 7, dm_pgoff_wrap},
	    {"snapshot begins inside another one", 9, dm_nested},
	    {"snapshot end without its begin", 9, dm_end_pairing},
	    {"page states that do not decode", 7, dm_pal_not_present},
	    {"page run with an impossible mapcount", 7, dm_pal_mapcount},
	    {"page run with kpageflags in a snapshot without them", 7,
	     dm_pal_kpageflags},
	    {"the END record counts other records than the file holds", 12,
	     dm_end_count},
	};
	char *path = make_full_file_v5(), *dst = tpath("damaged.data");
	uint64_t b[64], off;
	size_t len;
	uint8_t *raw = read_file(path, &len), *cp = xmalloc(len);
	struct md_reader *r;

	boundaries(raw, len, b);
	for (size_t i = 0; i < ARRAY_SIZE(dm); i++) {
		struct md_record rec;
		size_t n = 0;
		int ret;

		memcpy(cp, raw, len);
		dm[i].patch(cp, b);
		/* without its checksum fixed, the record is refused first */
		write_file(dst, cp, len);
		assert_int_equal(md_reader_open(dst, &r), 0);
		while ((ret = md_read_next(r, &rec)) == 1)
			n++;
		assert_int_equal(ret, -MEMSZ_EBADDATA);
		assert_string_equal(md_reader_why(r), "checksum mismatch");
		md_reader_close(r);
		/* with it fixed, the invariant check refuses it */
		assert_true(md_checksum_fix(cp, len) > 0);
		write_file(dst, cp, len);
		assert_int_equal(md_reader_open(dst, &r), 0);
		n = 0;
		while ((ret = md_read_next(r, &rec)) == 1)
			n++;
		print_message("%s\n", dm[i].what);
		assert_int_equal(ret, -MEMSZ_EBADDATA);
		assert_string_equal(md_reader_why(r), dm[i].what);
		assert_int_equal(n, dm[i].rec);
		off = md_reader_offset(r);
		assert_int_equal(off, b[dm[i].rec]);
		/* the error sticks */
		assert_int_equal(md_read_next(r, &rec), -MEMSZ_EBADDATA);
		md_reader_close(r);
	}
	/* a damaged header checksum, and a header that drops MD_F_CRC but
	 * keeps a checksum, are refused at open */
	memcpy(cp, raw, len);
	cp[24] ^= 1;
	write_file(dst, cp, len);
	assert_int_equal(md_reader_open(dst, &r), -MEMSZ_EBADDATA);
	memcpy(cp, raw, len);
	cp[16] &= (uint8_t)~MD_F_CRC;
	write_file(dst, cp, len);
	assert_int_equal(md_reader_open(dst, &r), -MEMSZ_EBADDATA);
	free(cp);
	free(raw);
	free(dst);
	free(path);
	(void)state;
}

/* Build a version 1 file by hand (man/memsz-data.5): a snapshot with one
 * mapping holding the runs of runs[] as 24-byte runs. */
static size_t v1_file(uint8_t *b)
{
	size_t off = 0, rec;

	memset(b, 0, 4096);
	memcpy(b, "MEMSZDAT", 8);
	put_le32(b + 8, 1);
	put_le32(b + 12, 64);
	put_le32(b + 40, 4096);
	off = 64;
	/* SNAP_BEGIN: time, pid, seq, flags, nmappings */
	put_le32(b + off, MD_REC_SNAP_BEGIN);
	put_le64(b + off + 8, 16 + 24);
	put_le64(b + off + 16, 5);
	put_le32(b + off + 24, 42);
	put_le32(b + off + 32, MD_SNAP_F_PFN);
	put_le32(b + off + 36, 1);
	off += 40;
	/* SNAP_MAPPING with nruns runs of 24 bytes after the name */
	rec = off;
	put_le32(b + off, MD_REC_SNAP_MAPPING);
	off += 16;
	put_le64(b + off, 0x400000);
	put_le64(b + off + 8, RUNS_END);
	put_le32(b + off + 40, 5);
	put_le32(b + off + 44, 2);
	put_le32(b + off + 48, UINT32_MAX);
	put_le64(b + off + 56, ARRAY_SIZE(runs));
	put_le32(b + off + 64, 4);
	memcpy(b + off + 68, "[v1]", 4);
	off += 64 + 16;
	for (size_t i = 0; i < ARRAY_SIZE(runs); i++, off += 24) {
		put_le64(b + off, runs[i].vaddr);
		put_le32(b + off + 8, runs[i].npages);
		put_le32(b + off + 12, runs[i].flags);
		put_le32(b + off + 16, runs[i].mapcount);
	}
	put_le64(b + rec + 8, off - rec);
	/* SNAP_END: time, pid, seq, unreadable */
	put_le32(b + off, MD_REC_SNAP_END);
	put_le64(b + off + 8, 16 + 24);
	put_le32(b + off + 24, 42);
	off += 40;
	return off;
}

static void test_v1_file(void **state)
{
	char *path = tpath("v1.data");
	uint8_t b[4096];
	size_t len = v1_file(b);
	struct md_reader *r;
	struct md_record rec;
	uint64_t off;

	write_file(path, b, len);
	assert_int_equal(md_reader_open(path, &r), 0);
	assert_int_equal(md_reader_header(r)->version, 1);
	assert_int_equal(md_read_next(r, &rec), 1);
	assert_int_equal(rec.type, MD_REC_SNAP_BEGIN);
	assert_int_equal(rec.u.snap_begin.pid, 42);
	assert_int_equal(md_read_next(r, &rec), 1);
	assert_int_equal(rec.type, MD_REC_SNAP_MAPPING);
	assert_string_equal(rec.u.mapping.name, "[v1]");
	assert_int_equal(rec.u.mapping.end, RUNS_END);
	assert_int_equal(rec.u.mapping.nruns, ARRAY_SIZE(runs));
	assert_memory_equal(rec.u.mapping.runs, runs, sizeof(runs));
	assert_int_equal(md_read_next(r, &rec), 1);
	assert_int_equal(rec.type, MD_REC_SNAP_END);
	assert_int_equal(md_read_next(r, &rec), 0);
	md_reader_close(r);

	/* a version 1 nruns overrunning its record is refused there */
	put_le64(b + 64 + 40 + 16 + 56, 1000);
	write_file(path, b, len);
	assert_int_equal(md_reader_open(path, &r), 0);
	assert_int_equal(read_until_error(r, &off), -MEMSZ_EBADDATA);
	assert_int_equal(off, 64 + 40);
	free(path);
	(void)state;
}

/* Version 1 runs as stored: each rule on runs refuses the mapping record
 * at its offset (the file has no checksums). */
static void test_v1_run_invariants(void **state)
{
	static const struct {
		size_t at; /* offset of the field in its run */
		int run;
		uint64_t v;
		int width;
		const char *what;
	} dm[] = {
	    /* the third run of 100000 pages grows past the mapping */
	    {8, 2, 200000, 4,
	     "page run outside its mapping or "
	     "overlapping the previous run"},
	    /* the second run starts inside the first */
	    {0, 1, 0x401000, 8,
	     "page run outside its mapping or "
	     "overlapping the previous run"},
	    {12, 2, MD_PG_FILE, 4,
	     "page run neither present, swapped "
	     "nor zero page"},
	    {0, 1, 0x403001, 8, "page run empty or not page aligned"},
	    {16, 1, 3, 4, "page run with an impossible mapcount"},
	};
	char *path = tpath("v1-damaged.data");
	uint8_t b[4096], cp[4096];
	size_t len = v1_file(b);
	/* SNAP_BEGIN at 64 (40 bytes), the mapping at 104: its runs after
	 * 64 bytes of fields and the name "[v1]" (16) */
	size_t runs0 = 104 + 16 + 64 + 16;

	for (size_t i = 0; i < ARRAY_SIZE(dm); i++) {
		struct md_reader *r;
		struct md_record rec;
		uint8_t *q = cp + runs0 + 24 * dm[i].run + dm[i].at;
		uint64_t off;

		memcpy(cp, b, len);
		if (dm[i].width == 8)
			put_le64(q, dm[i].v);
		else
			put_le32(q, (uint32_t)dm[i].v);
		write_file(path, cp, len);
		assert_int_equal(md_reader_open(path, &r), 0);
		while (md_read_next(r, &rec) == 1)
			;
		print_message("%s\n", dm[i].what);
		assert_string_equal(md_reader_why(r), dm[i].what);
		assert_int_equal(read_until_error(r, &off), -MEMSZ_EBADDATA);
		assert_int_equal(off, 104);
	}
	free(path);
	(void)state;
}

/* CRC-32C one bit at a time, straight from the definition (reflected
 * polynomial 0x82f63b78): the reference the fast paths must match. */
static uint32_t crc32c_bitwise(const uint8_t *p, size_t n)
{
	uint32_t c = 0xffffffffu;

	while (n--) {
		c ^= *p++;
		for (int k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ 0x82f63b78u : c >> 1;
	}
	return ~c;
}

/* CRC-32C: the check value of the standard, and continuation. */
static void test_crc32c(void **state)
{
	static const char s[] = "123456789";
	uint8_t big[1000], *huge;
	uint32_t x = 1;

	assert_int_equal(md_crc32c(0, s, 9), 0xe3069283u);
	assert_int_equal(md_crc32c(md_crc32c(0, s, 4), s + 4, 5), 0xe3069283u);
	assert_int_equal(md_crc32c(0, NULL, 0), 0);
	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (uint8_t)(i * 7);
	for (size_t cut = 0; cut < sizeof(big); cut += 13)
		assert_int_equal(md_crc32c(md_crc32c(0, big, cut), big + cut,
					   sizeof(big) - cut),
				 md_crc32c(0, big, sizeof(big)));
	/* long buffers (the lanes of the hardware loop and their joins),
	 * every alignment and tail */
	huge = malloc(9000);
	assert_non_null(huge);
	for (size_t i = 0; i < 9000; i++) {
		x = x * 1103515245u + 12345u;
		huge[i] = (uint8_t)(x >> 16);
	}
	assert_int_equal(crc32c_bitwise((const uint8_t *)s, 9), 0xe3069283u);
	for (size_t len = 0; len < 9000 - 8; len += len < 1600 ? 1 : 97)
		for (size_t off = 0; off < 8; off += 3)
			assert_int_equal(md_crc32c(0, huge + off, len),
					 crc32c_bitwise(huge + off, len));
	for (size_t cut = 0; cut < 9000; cut += 331)
		assert_int_equal(
		    md_crc32c(md_crc32c(0, huge, cut), huge + cut, 9000 - cut),
		    crc32c_bitwise(huge, 9000));
	free(huge);
	(void)state;
}

static void test_not_memsz(void **state)
{
	char *p = tpath("short.data");
	struct md_reader *r;

	write_file(p, "MEMSZ", 5);
	assert_int_equal(md_reader_open(p, &r), -MEMSZ_ETRUNC);
	write_file(p, "ELF\x7f", 4);
	assert_int_equal(md_reader_open(p, &r), -MEMSZ_EBADMAGIC);
	write_file(p, "hello world, this is text", 25);
	assert_int_equal(md_reader_open(p, &r), -MEMSZ_EBADMAGIC);
	assert_int_equal(md_reader_open("/nonexistent/x", &r), -ENOENT);
	free(p);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_truncated_everywhere),
	    cmocka_unit_test(test_corrupt),
	    cmocka_unit_test(test_invariants),
	    cmocka_unit_test(test_crc32c),
	    cmocka_unit_test(test_v1_file),
	    cmocka_unit_test(test_v1_run_invariants),
	    cmocka_unit_test(test_not_memsz),
	};

	return test_run_group(tests, datafile_setup, datafile_teardown);
}
