// SPDX-License-Identifier: GPL-2.0-or-later
/* test_datafile_pgfields.c — the fields of the page states of a snapshot
 * mapping in memsz.data: the THP and locked flags, every field of the
 * block stream and of CODED blocks checked, a mapping that would wrap the
 * address space or whose runs are refused, and version 6's mapping
 * fields. Layouts against a reference: test_datafile_pages.c. */
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
#include "data/pgstate.h"
#include "tests/datafile_fixture.h"
#include "tests/testutil.h"
#include "util/util.h"

/* One snapshot of one mapping with mapping flags mflags and one run of
 * run flags rflags, in a snapshot with sflags: NULL if the reader takes
 * it (and hands the flags back as written), else md_reader_why(). */
static const char *one_mapping_v(uint32_t version, uint32_t sflags,
				 uint32_t mflags, uint32_t rflags)
{
	static char why[128];
	char *path = tpath("bits.data");
	struct md_run run = {0x600000, 512, rflags,
			     rflags & MD_PG_PRESENT ? 1 : 0, 0};
	struct md_snap_begin sb = {5, 42, 0, sflags, 1};
	struct md_snap_mapping m = {
	    .start = 0x600000,
	    .end = 0xa00000,
	    .prot = 3,
	    .flags = mflags,
	    .image_id = UINT32_MAX,
	    .name = "",
	    .runs = &run,
	    .nruns = 1,
	};
	struct md_snap_end se = {6, 42, 0, 0, 0};
	struct md_writer *w;
	struct md_reader *r;
	struct md_record rec;
	const char *ret = NULL;
	int got;

	assert_int_equal(md_writer_open(path, &w), 0);
	assert_int_equal(md_write_snap_begin(w, &sb), 0);
	assert_int_equal(md_write_mapping(w, &m), 0);
	assert_int_equal(md_write_snap_end(w, &se), 0);
	assert_int_equal(md_writer_commit(w), 0);
	assert_int_equal(md_writer_close(w), 0);
	if (version) {
		uint8_t v[4] = {(uint8_t)version, (uint8_t)(version >> 8),
				(uint8_t)(version >> 16),
				(uint8_t)(version >> 24)};

		assert_int_equal(open_patched(path, 8, v, 4, &r), 0);
	} else {
		assert_int_equal(md_reader_open(path, &r), 0);
	}
	while ((got = md_read_next(r, &rec)) == 1) {
		if (rec.type == MD_REC_SNAP_BEGIN)
			assert_int_equal(rec.u.snap_begin.flags, sflags);
		if (rec.type != MD_REC_SNAP_MAPPING)
			continue;
		assert_int_equal(rec.u.mapping.flags, mflags);
		assert_int_equal(rec.u.mapping.nruns, 1);
		assert_int_equal(rec.u.mapping.runs[0].flags, rflags);
	}
	if (got < 0) {
		assert_int_equal(got, -MEMSZ_EBADDATA);
		snprintf(why, sizeof(why), "%s", md_reader_why(r));
		ret = why;
	}
	md_reader_close(r);
	free(path);
	return ret;
}

/* one_mapping_v() as written (this version) */
static const char *one_mapping(uint32_t sflags, uint32_t mflags,
			       uint32_t rflags)
{
	return one_mapping_v(0, sflags, mflags, rflags);
}

/* The THP page flag (MD_PG_PMD) and the locked mapping flag
 * (MD_MAP_LOCKED) are read back where the snapshot says it recorded them,
 * and refused where it does not or where they cannot be. */
static void test_pmd_locked_bits(void **state)
{
	const uint32_t anon =
	    MD_PG_PRESENT | MD_PG_EXCLUSIVE | MD_PG_PRIVATE_DIRTY;
	const uint32_t both = MD_SNAP_F_PFN | MD_SNAP_F_PMD | MD_SNAP_F_LOCKED;

	assert_null(
	    one_mapping(both, MAP_PRIVATE | MD_MAP_LOCKED, anon | MD_PG_PMD));
	assert_null(one_mapping(both, MAP_SHARED | MD_MAP_LOCKED, anon));
	/* older files: neither bit, neither snapshot flag */
	assert_null(one_mapping(MD_SNAP_F_PFN, MAP_PRIVATE, anon));
	assert_string_equal(one_mapping(MD_SNAP_F_PFN | MD_SNAP_F_PMD,
					MAP_PRIVATE | MD_MAP_LOCKED, anon),
			    "locked mapping in a snapshot that does not "
			    "record locking");
	assert_string_equal(one_mapping(MD_SNAP_F_PFN | MD_SNAP_F_LOCKED,
					MAP_PRIVATE, anon | MD_PG_PMD),
			    "page run with a PMD flag that cannot be");
	assert_string_equal(
	    one_mapping(both, MAP_PRIVATE, MD_PG_SWAPPED | MD_PG_PMD),
	    "page run with a PMD flag that cannot be");
	assert_string_equal(one_mapping(both, MD_MAP_LOCKED, anon),
			    "mapping with unknown protection or flags");
	assert_string_equal(one_mapping(both, MAP_PRIVATE | 0x4000, anon),
			    "mapping with unknown protection or flags");
	(void)state;
}

/* MD_PG_OBJ_SWAPPED (a copy over its shmem object's page swapped out) is
 * read back on a present page without FILE, refused elsewhere. */
static void test_obj_swapped_bit(void **state)
{
	const uint32_t copy = MD_PG_PRESENT | MD_PG_EXCLUSIVE |
			      MD_PG_PRIVATE_DIRTY | MD_PG_OBJ_SWAPPED;
	const char *no = "page run with an object swapped under no copy";

	assert_null(one_mapping(MD_SNAP_F_PFN, MAP_PRIVATE, copy));
	assert_string_equal(
	    one_mapping(MD_SNAP_F_PFN, MAP_PRIVATE, copy | MD_PG_FILE), no);
	assert_string_equal(
	    one_mapping(MD_SNAP_F_PFN, MAP_PRIVATE,
			MD_PG_SWAPPED | MD_PG_FILE | MD_PG_OBJ_SWAPPED),
	    no);
	/* version 8's flag: a file of version 7 with it is damaged, and a
	 * file with it says version 8, which memsz 7 refuses as newer */
	assert_int_equal(MD_VERSION, 8);
	assert_string_equal(one_mapping_v(7, MD_SNAP_F_PFN, MAP_PRIVATE, copy),
			    "page run with unknown flags");
	assert_null(one_mapping_v(7, MD_SNAP_F_PFN, MAP_PRIVATE,
				  copy & ~(uint32_t)MD_PG_OBJ_SWAPPED));
	(void)state;
}

/* Where the hand-made mappings start. */
#define LAYOUT_START 0x7f0000000000ull

/* Decode stream s of a mapping of n pages against the npal entries at
 * pal, CODED blocks allowed when coded. */
static int decode_coded(const uint8_t *pal, uint32_t npal, const uint8_t *s,
			size_t len, uint64_t n, uint64_t nruns, bool coded)
{
	struct md_run *out = NULL;
	size_t cap = 0;
	int ret;

	ret = pgstate_decode(pal, npal, s, len, LAYOUT_START, n, 12, nruns,
			     coded, &out, &cap);
	free(out);
	return ret;
}

/* A mapping whose pages would run past the end of the address space is
 * refused (pgstate_add's range checks take a page below start to wrap to
 * one past npages: true only when start + npages pages does not wrap). */
static void test_pgstate_wrap(void **state)
{
	struct pgstate_enc e = {0};
	const uint64_t top = 0xfffffffffffff000ull;
	struct md_run wrap_runs[] = {{top, 1, MD_PG_PRESENT, 1, 0},
				     {0, 1, MD_PG_PRESENT, 1, 0}};

	(void)state;
	assert_int_equal(pgstate_encode(&e, top, 4, 12, wrap_runs, 2), -EINVAL);
	/* the last page of the address space is a mapping's last page */
	assert_int_equal(pgstate_encode(&e, top, 1, 12, wrap_runs, 1), 0);
	pgstate_enc_free(&e);
}

/* A CODED block's fields are checked; files before version 5 have none. */
static void test_coded_fields(void **state)
{
	/* CODED 64 pages (header 259 as LEB128): m = 2 (palette entry 0,
	 * absent), frequencies 2048 2048, 12 bytes: the state 0x00800000
	 * then 8 zero bytes. Each page costs a bit and is entry 0: the state
	 * ends where it began and every byte is used, but the 64 pages are
	 * one run, which no encoder puts in a CODED block (a run that long
	 * is a RUN block) */
	static const uint8_t run64[] = {
	    0x83, 0x02, 0x01, 0x01, 0x00, 0x80, 0x10, 0x80, 0x10, 12, 0x00,
	    0x80, 0x00, 0x00, 0,    0,	  0,	0,    0,    0,	  0,  0};
	struct pgstate_enc e = {0};
	struct md_run alt[80];
	uint8_t *s;
	size_t len, nr = 0;
	uint64_t x = 7;

	uint8_t pal[PGSTATE_PAL_SIZE];

	put_le32(pal, MD_PG_PRESENT);
	put_le32(pal + 4, 2);
	assert_int_equal(
	    decode_coded(pal, 1, run64, sizeof(run64), 64, 1, true),
	    -MEMSZ_EBADDATA);
	/* 80 pages, each of one of three mapcounts at random: a CODED block
	 * (1.6 bits a page; a MAP block would take 3) */
	for (size_t i = 0; i < 80; i++) {
		uint32_t mc;

		x = x * 6364136223846793005ull + 1442695040888963407ull;
		mc = 2 + (uint32_t)((x >> 32) % 3);
		if (nr && alt[nr - 1].mapcount == mc) {
			alt[nr - 1].npages++;
			continue;
		}
		alt[nr++] = (struct md_run){LAYOUT_START + i * 4096ull, 1,
					    MD_PG_PRESENT, mc, 0};
	}
	assert_int_equal(pgstate_encode(&e, LAYOUT_START, 80, 12, alt, nr), 0);
	assert_true(e.len > 0);
	assert_int_equal(e.out[0] & 3, 3);
	len = e.len;
	s = xmalloc(len + 1);
	memcpy(s, e.out, len);
	assert_int_equal(decode_coded(e.pal, e.npal, s, len, 80, nr, true), 0);
	/* version 2 to 4: kind 3 is invalid */
	assert_int_equal(decode_coded(e.pal, e.npal, s, len, 80, nr, false),
			 -MEMSZ_EBADDATA);
	/* cut anywhere */
	for (size_t k = 1; k < len; k++)
		assert_int_equal(
		    decode_coded(e.pal, e.npal, s, k, 80, nr, true),
		    -MEMSZ_EBADDATA);
	/* one byte more in the coded bytes: the state does not end at its
	 * start value, or not every byte is used */
	s[len] = 0;
	assert_int_equal(decode_coded(e.pal, e.npal, s, len + 1, 80, nr, true),
			 -MEMSZ_EBADDATA);
	pgstate_enc_free(&e);
	free(s);
	(void)state;
}

/* Decode a hand-made stream against a two-entry palette over 100 pages. */
static int decode_raw(const uint8_t *s, size_t len, uint64_t nruns,
		      uint32_t bad_flags)
{
	uint8_t pal[2 * PGSTATE_PAL_SIZE] = {0};
	struct md_run *out = NULL;
	size_t cap = 0;
	int ret;

	put_le32(pal, MD_PG_PRESENT);
	put_le32(pal + 4, 1);
	put_le32(pal + 8, bad_flags ? bad_flags : MD_PG_SWAPPED);
	ret = pgstate_decode(pal, 2, s, len, LAYOUT_START, 100, 12, nruns,
			     false, &out, &cap);
	free(out);
	return ret;
}

/* Every field of the block stream is checked. */
static void test_pages_fields(void **state)
{
	/* SKIP 2, RUN 3 of entry 1, MAP 10: m = 2, entries 0 and 1, pages
	 * 0 1 3 present (bits 0b1011), codes 0 0 1 */
	static const uint8_t ok[] = {
	    2 << 2 | 0, 3 << 2 | 1, 1, 10 << 2 | 2, 1, 0, 1, 0x0b, 0, 0x04};
	uint8_t s[sizeof(ok) + 4];
	static const struct {
		size_t at;
		uint8_t v;
	} bad[] = {
	    {0, 0 << 2 | 0},  /* SKIP of no page */
	    {0, 0 << 2 | 3},  /* kind 3 */
	    {0, 0x7f},	      /* 31 pages of kind 3 */
	    {2, 2},	      /* RUN of entry 2 (palette has 2) */
	    {4, 0},	      /* m = 1: the stream shifts by one */
	    {5, 7},	      /* local entry 7 */
	    {8, 0x04},	      /* bitmap bit 10 beyond 10 pages */
	    {9, 0xc0 | 0x04}, /* code bits past the 3 present */
	};
	int ret;

	/* the check of the page states is zlib's CRC-32 */
	assert_int_equal(pgstate_crc(0, (const uint8_t *)"123456789", 9),
			 0xcbf43926);
	assert_int_equal(
	    pgstate_crc(pgstate_crc(0, ok, 3), ok + 3, sizeof(ok) - 3),
	    pgstate_crc(0, ok, sizeof(ok)));
	/* the valid stream: runs [2,5) entry 1, 5 6 entry 0, 8 entry 1 */
	assert_int_equal(decode_raw(ok, sizeof(ok), 3, 0), 0);
	/* run count not the announced one */
	assert_int_equal(decode_raw(ok, sizeof(ok), 2, 0), -MEMSZ_EBADDATA);
	assert_int_equal(decode_raw(ok, sizeof(ok), 4, 0), -MEMSZ_EBADDATA);
	/* a palette entry neither present, swapped nor zero-page */
	assert_int_equal(decode_raw(ok, sizeof(ok), 3, MD_PG_DIRTY),
			 -MEMSZ_EBADDATA);
	/* cut anywhere */
	for (size_t k = 1; k < sizeof(ok); k++) {
		ret = decode_raw(ok, k, 3, 0);
		assert_int_equal(ret, -MEMSZ_EBADDATA);
	}
	/* a block past the mapping's 100 pages */
	memcpy(s, ok, sizeof(ok));
	s[sizeof(ok)] = 0xe8; /* SKIP 90 from page 15: 360 as LEB128 */
	s[sizeof(ok) + 1] = 0x02;
	assert_int_equal(decode_raw(s, sizeof(ok) + 2, 3, 0), -MEMSZ_EBADDATA);
	/* a varint of more than 64 bits */
	memset(s, 0xff, sizeof(s));
	assert_int_equal(decode_raw(s, sizeof(s), 0, 0), -MEMSZ_EBADDATA);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		memcpy(s, ok, sizeof(ok));
		s[bad[i].at] = bad[i].v;
		ret = decode_raw(s, sizeof(ok), 3, 0);
		assert_int_equal(ret, -MEMSZ_EBADDATA);
	}
	(void)state;
}

/* The writer refuses runs that are not pages of the mapping. */
static void test_mapping_runs_refused(void **state)
{
	char *path = tpath("refused.data");
	struct md_writer *w;
	struct md_run bad[2] = {
	    {0x401000, 2, MD_PG_PRESENT, 1, 0},
	    {0x402000, 1, MD_PG_PRESENT, 1, 0}, /* overlaps */
	};
	struct md_snap_mapping m = {
	    .start = 0x400000,
	    .end = 0x410000,
	    .name = "",
	    .runs = bad,
	    .nruns = 2,
	};
	struct stat st;

	assert_int_equal(md_writer_open(path, &w), 0);
	assert_int_equal(md_write_mapping(w, &m), -EINVAL);
	bad[1].vaddr = 0x410000; /* past the end */
	assert_int_equal(md_write_mapping(w, &m), -EINVAL);
	bad[1].vaddr = 0x40f800; /* not page-aligned */
	assert_int_equal(md_write_mapping(w, &m), -EINVAL);
	bad[1].vaddr = 0x40f000;
	bad[1].flags = MD_PG_DIRTY; /* not a stored page */
	assert_int_equal(md_write_mapping(w, &m), -EINVAL);
	bad[1].flags = MD_PG_SWAPPED;
	bad[1].npages = 0;
	assert_int_equal(md_write_mapping(w, &m), -EINVAL);
	bad[1].npages = 1;
	assert_int_equal(md_write_mapping(w, &m), 0);
	assert_int_equal(md_writer_commit(w), 0);
	assert_int_equal(md_writer_close(w), 0);
	assert_int_equal(stat(path, &st), 0);
	/* only the valid record was written */
	assert_true(st.st_size > 64 && st.st_size < 64 + 200);
	free(path);
	(void)state;
}

/* The mappings of test_v6_fields: one of each thing version 6 codes
 * against the previous mapping (a file's next piece, an unpredicted
 * pgoff, a change of protection, image, name, palette, a hole, the
 * vsyscall page far above), and one that only its place tells apart. */
static const struct md_run v6_present[] = {{0, 1, MD_PG_PRESENT, 1, 0}};
static const struct md_run v6_swapped[] = {{0, 1, MD_PG_SWAPPED, 0, 0}};

static const struct md_snap_mapping v6_maps[] = {
    {0x400000, 0x402000, 0, 8, 1, 99, 5, MAP_PRIVATE, 7, "/bin/true", NULL, 0},
    {0x402000, 0x403000, 0x2000, 8, 1, 99, 1, MAP_PRIVATE, 7, "/bin/true", NULL,
     0},
    {0x403000, 0x405000, 0x10000, 8, 1, 99, 3, MAP_PRIVATE | MD_MAP_LOCKED, 7,
     "/bin/true", NULL, 0},
    {0x405000, 0x406000, 0, 0, 0, 0, 3, MAP_PRIVATE, UINT32_MAX, "", NULL, 0},
    {0x7f0000000000, 0x7f0000003000, 0, 0, 0, 0, 3, MAP_PRIVATE, UINT32_MAX,
     "[anon:x]", NULL, 0},
    {0x7f0000003000, 0x7f0000004000, 0, 0, 5, 7, 3, MAP_SHARED, UINT32_MAX,
     "/dev/zero (deleted)", NULL, 0},
    {0x7f0000004000, 0x7f0000005000, 0, 0, 0, 0, 0, MAP_PRIVATE, UINT32_MAX, "",
     NULL, 0},
    {0x7f0000005000, 0x7f0000006000, 0, 0, 0, 0, 0, MAP_PRIVATE, UINT32_MAX, "",
     NULL, 0},
    {0xffffffffff600000ull, 0xffffffffff601000ull, 0, 0, 0, 0, 4, MAP_PRIVATE,
     UINT32_MAX, "[vsyscall]", NULL, 0},
};

/* A file of v6_maps (pages: the first of each, present, except the 5th
 * swapped and the 7th and 8th none) in one snapshot; prot, if not 0, replaces
 * the 4th mapping's. */
static char *write_v6(uint32_t prot)
{
	char *path = tpath("v6.data");
	struct md_writer *w;
	struct md_image im = {.id = 7, .path = "/bin/true"};
	struct md_snap_begin sb = {1, 42, 0, MD_SNAP_F_PFN | MD_SNAP_F_LOCKED,
				   ARRAY_SIZE(v6_maps)};
	struct md_snap_end se = {2, 42, 0, 0, 0};

	assert_int_equal(md_writer_open(path, &w), 0);
	assert_int_equal(md_write_image(w, &im), 0);
	assert_int_equal(md_write_snap_begin(w, &sb), 0);
	for (size_t i = 0; i < ARRAY_SIZE(v6_maps); i++) {
		struct md_snap_mapping m = v6_maps[i];
		struct md_run run = i == 4 ? v6_swapped[0] : v6_present[0];

		run.vaddr = m.start;
		m.runs = &run;
		m.nruns = i == 6 || i == 7 ? 0 : 1;
		if (i == 3 && prot)
			m.prot = prot;
		assert_int_equal(md_write_mapping(w, &m), 0);
	}
	assert_int_equal(md_write_snap_end(w, &se), 0);
	assert_int_equal(md_writer_commit(w), 0);
	assert_int_equal(md_writer_close(w), 0);
	return path;
}

/* Every mapping of write_v6(0) reads back as v6_maps has it. */
static void v6_read_back(void)
{
	char *path = write_v6(0);
	struct md_record rec;
	struct md_reader *r;
	size_t i = 0;
	int ret;

	assert_int_equal(md_reader_open(path, &r), 0);
	while ((ret = md_read_next(r, &rec)) == 1) {
		const struct md_snap_mapping *m = &rec.u.mapping, *e;

		if (rec.type != MD_REC_SNAP_MAPPING)
			continue;
		e = &v6_maps[i];
		assert_int_equal(m->start, e->start);
		assert_int_equal(m->end, e->end);
		assert_int_equal(m->pgoff, e->pgoff);
		assert_int_equal(m->dev_major, e->dev_major);
		assert_int_equal(m->dev_minor, e->dev_minor);
		assert_int_equal(m->ino, e->ino);
		assert_int_equal(m->prot, e->prot);
		assert_int_equal(m->flags, e->flags);
		assert_int_equal(m->image_id, e->image_id);
		assert_string_equal(m->name, e->name);
		assert_int_equal(m->nruns, i == 6 || i == 7 ? 0 : 1);
		if (m->nruns) {
			assert_int_equal(m->runs[0].vaddr, e->start);
			assert_int_equal(m->runs[0].npages, 1);
			assert_int_equal(m->runs[0].flags, i == 4
							       ? MD_PG_SWAPPED
							       : MD_PG_PRESENT);
		}
		/* the 8th repeats all of the 7th but its place: the has
		 * byte, gap, size, nruns, nbytes, padding */
		if (i == 7)
			assert_int_equal(rec.size, 24);
		i++;
	}
	assert_int_equal(ret, 0);
	assert_int_equal(i, ARRAY_SIZE(v6_maps));
	md_reader_close(r);
	free(path);
}

/* Version 6 gives back every field of every mapping as written, and a
 * small anonymous mapping next to the previous one takes 24 bytes; a prot
 * over 7 is coded too (and refused by the reader's check, as in any
 * version); without header flag CRC its mappings are refused; an unknown
 * field bit is refused; any byte damaged behind a fixed checksum is read
 * or refused, never out of bounds (the sanitizer build checks that). */
static void test_v6_fields(void **state)
{
	char *path, *dst = tpath("v6-damaged.data");
	struct md_record rec;
	struct md_reader *r;
	uint64_t b[16], off;
	size_t len;
	uint8_t *raw, *cp;
	int ret;

	v6_read_back();
	path = write_v6(9);
	assert_int_equal(md_reader_open(path, &r), 0);
	assert_int_equal(read_until_error(r, &off), -MEMSZ_EBADDATA);
	free(path);
	path = write_v6(0);
	raw = read_file(path, &len);
	cp = xmalloc(len);
	/* IMAGE, SNAP_BEGIN, 9 mappings, SNAP_END, END */
	assert_int_equal(boundaries(raw, len, b), 14);
	memcpy(cp, raw, len);
	strip_checksums(cp, b, 13);
	write_file(dst, cp, len);
	assert_int_equal(md_reader_open(dst, &r), 0);
	assert_int_equal(read_until_error(r, &off), -MEMSZ_EBADDATA);
	assert_int_equal(off, b[2]);
	memcpy(cp, raw, len);
	cp[b[3] + 16] |= 0x80;
	assert_true(md_checksum_fix(cp, len) > 0);
	write_file(dst, cp, len);
	assert_int_equal(md_reader_open(dst, &r), 0);
	while ((ret = md_read_next(r, &rec)) == 1)
		;
	assert_int_equal(ret, -MEMSZ_EBADDATA);
	assert_string_equal(md_reader_why(r),
			    "mapping with unknown field bits");
	assert_int_equal(md_reader_offset(r), b[3]);
	md_reader_close(r);
	/* every payload byte of every mapping */
	for (size_t k = 2; k < 11; k++) {
		for (size_t at = b[k] + 16; at < b[k + 1]; at++) {
			memcpy(cp, raw, len);
			cp[at] ^= (uint8_t)(0x5a + at);
			md_checksum_fix(cp, len);
			write_file(dst, cp, len);
			assert_int_equal(md_reader_open(dst, &r), 0);
			ret = read_until_error(r, &off);
			assert_true(ret == 0 || ret == -MEMSZ_EBADDATA);
		}
	}
	free(cp);
	free(raw);
	free(dst);
	free(path);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_pmd_locked_bits),
	    cmocka_unit_test(test_obj_swapped_bit),
	    cmocka_unit_test(test_pages_fields),
	    cmocka_unit_test(test_coded_fields),
	    cmocka_unit_test(test_pgstate_wrap),
	    cmocka_unit_test(test_mapping_runs_refused),
	    cmocka_unit_test(test_v6_fields),
	};

	return test_run_group(tests, datafile_setup, datafile_teardown);
}
