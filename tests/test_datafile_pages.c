// SPDX-License-Identifier: GPL-2.0-or-later
/* test_datafile_pages.c — the page states of a snapshot mapping in
 * memsz.data: layouts round trip against a reference, mappings written in
 * slices, bits per page of the worst and of forked layouts, every field of
 * the block stream and of CODED blocks checked, damaged page data refused,
 * the THP and locked flags, and version 6's mapping fields. */
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

/* --- the pages of a snapshot mapping: layouts against a reference --- */

#define LAYOUT_START 0x7f0000000000ull
#define NPAL_REF 600

static uint32_t ref_flags[NPAL_REF], ref_mc[NPAL_REF];
static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545f4914f6cdd1dull;
}

/* Reference palette: entry 0 is a private dirty anon page, then file
 * pages of growing mapcount, a swapped and a zero-page entry. */
static void ref_palette(void)
{
	for (uint32_t i = 0; i < NPAL_REF; i++) {
		ref_flags[i] = MD_PG_PRESENT | MD_PG_FILE;
		ref_mc[i] = i + 1;
	}
	ref_flags[0] = MD_PG_PRESENT | MD_PG_EXCLUSIVE | MD_PG_ANON |
		       MD_PG_SWAPBACKED | MD_PG_DIRTY | MD_PG_PRIVATE_DIRTY;
	ref_mc[0] = 1;
	ref_flags[2] = MD_PG_SWAPPED;
	ref_mc[2] = 0;
	ref_flags[3] = MD_PG_ZERO;
	ref_mc[3] = 0;
}

/* The runs of layout pg (0: absent, else 1 + reference entry), maximal
 * but for random cuts when split. Returns their count. */
static size_t layout_runs(const uint16_t *pg, size_t n, bool split,
			  struct md_run *out)
{
	size_t nr = 0;

	for (size_t i = 0; i < n; i++) {
		struct md_run *last = nr ? &out[nr - 1] : NULL;

		if (!pg[i])
			continue;
		if (last && i && pg[i - 1] == pg[i] &&
		    !(split && rnd() % 8 == 0)) {
			last->npages++;
			continue;
		}
		out[nr++] = (struct md_run){
		    .vaddr = LAYOUT_START + i * 4096ull,
		    .npages = 1,
		    .flags = ref_flags[pg[i] - 1],
		    .mapcount = ref_mc[pg[i] - 1],
		};
	}
	return nr;
}

/* Runs of layout pg when every run is as long as it can be. */
static size_t maximal_runs(const uint16_t *pg, size_t n)
{
	size_t nr = 0;

	for (size_t i = 0; i < n; i++)
		nr += pg[i] && (!i || pg[i - 1] != pg[i]);
	return nr;
}

/* Write layout pg as one snapshot of one mapping (its runs split at
 * random when split); returns the path. With piecewise, the mapping goes
 * through md_mapping_begin/add/end in slices of random lengths, some
 * empty, and *nruns receives the run count md_mapping_end gives. */
static char *write_layout_how(const char *name, const uint16_t *pg, size_t n,
			      bool split, bool piecewise, uint64_t *nruns)
{
	char *path = tpath(name);
	struct md_run *runs_l = xcalloc(n + 1, sizeof(*runs_l));
	/* the reference palette has kpageflags bits */
	struct md_snap_begin sb = {1, 42, 0,
				   MD_SNAP_F_PFN | MD_SNAP_F_KPAGEFLAGS, 1};
	struct md_snap_end se = {2, 42, 0, 0, 0};
	struct md_snap_mapping m = {
	    .start = LAYOUT_START,
	    .end = LAYOUT_START + n * 4096ull,
	    .flags = 2,
	    .image_id = UINT32_MAX,
	    .name = "[anon:layout]",
	};
	struct md_writer *w;
	size_t nr = layout_runs(pg, n, split, runs_l), i = 0;

	assert_int_equal(md_writer_open_flags(path, wr_flags, &w), 0);
	assert_int_equal(md_write_snap_begin(w, &sb), 0);
	if (piecewise) {
		assert_int_equal(md_mapping_begin(w, m.start, m.end), 0);
		while (i < nr) {
			size_t k = rnd() % 50;

			k = MIN(nr - i, k);
			assert_int_equal(md_mapping_add(w, runs_l + i, k), 0);
			i += k;
		}
		assert_int_equal(md_mapping_end(w, &m, nruns), 0);
	} else {
		m.runs = runs_l;
		m.nruns = nr;
		assert_int_equal(md_write_mapping(w, &m), 0);
	}
	assert_int_equal(md_write_snap_end(w, &se), 0);
	assert_int_equal(md_writer_commit(w), 0);
	assert_int_equal(md_writer_close(w), 0);
	free(runs_l);
	return path;
}

static char *write_layout(const char *name, const uint16_t *pg, size_t n,
			  bool split)
{
	return write_layout_how(name, pg, n, split, false, NULL);
}

/* Read the file back: the mapping's runs must give exactly layout pg, in
 * sorted maximal runs. */
static void check_layout(const char *path, const uint16_t *pg, size_t n)
{
	struct md_reader *r;
	struct md_record rec;
	uint16_t *got = xcalloc(n + 1, sizeof(*got));
	const struct md_snap_mapping *m = &rec.u.mapping;

	assert_int_equal(md_reader_open(path, &r), 0);
	assert_int_equal(md_read_next(r, &rec), 1);
	assert_int_equal(rec.type, MD_REC_SNAP_BEGIN);
	assert_int_equal(md_read_next(r, &rec), 1);
	assert_int_equal(rec.type, MD_REC_SNAP_MAPPING);
	assert_int_equal(m->end - m->start, n * 4096ull);
	assert_int_equal(m->nruns, maximal_runs(pg, n));
	for (size_t i = 0; i < m->nruns; i++) {
		const struct md_run *u = &m->runs[i];
		uint64_t first = (u->vaddr - LAYOUT_START) / 4096;
		uint16_t e = 0;

		assert_true(u->vaddr >= LAYOUT_START);
		assert_int_equal(u->vaddr % 4096, 0);
		assert_true(u->npages >= 1);
		assert_true(first + u->npages <= n);
		assert_int_equal(u->reserved, 0);
		for (uint16_t k = 0; k < NPAL_REF; k++)
			if (ref_flags[k] == u->flags &&
			    ref_mc[k] == u->mapcount)
				e = k + 1;
		assert_int_not_equal(e, 0);
		if (i) {
			const struct md_run *p = &m->runs[i - 1];
			bool joined =
			    p->vaddr + p->npages * 4096ull == u->vaddr;

			assert_true(p->vaddr + p->npages * 4096ull <= u->vaddr);
			assert_false(joined && p->flags == u->flags &&
				     p->mapcount == u->mapcount);
		}
		for (uint64_t k = first; k < first + u->npages; k++)
			got[k] = e;
	}
	assert_memory_equal(got, pg, n * sizeof(*pg));
	assert_int_equal(md_read_next(r, &rec), 1);
	assert_int_equal(rec.type, MD_REC_SNAP_END);
	assert_int_equal(md_read_next(r, &rec), 1);
	assert_int_equal(rec.type, MD_REC_END);
	assert_int_equal(md_read_next(r, &rec), 0);
	assert_false(md_reader_cut_short(r));
	md_reader_close(r);
	free(got);
}

enum layout_kind {
	LAYOUT_CONTIGUOUS,
	LAYOUT_EVERY2,
	LAYOUT_EVERY4,
	LAYOUT_RANDOM25,
	LAYOUT_RANDOM_RUNS,
	LAYOUT__COUNT
};

/* Fill pg with a layout of n pages using the first npal entries. */
static void layout_make(uint16_t *pg, size_t n, enum layout_kind kind,
			uint32_t npal)
{
	size_t i = 0;

	memset(pg, 0, n * sizeof(*pg));
	switch (kind) {
	case LAYOUT_CONTIGUOUS:
		for (i = n / 8; i < n - n / 8; i++)
			pg[i] = 1 + (uint16_t)(i * npal / n);
		break;
	case LAYOUT_EVERY2:
	case LAYOUT_EVERY4:
		for (i = 0; i < n; i += kind == LAYOUT_EVERY2 ? 2 : 4)
			pg[i] = 1 + (uint16_t)(rnd() % npal);
		break;
	case LAYOUT_RANDOM25:
		for (i = 0; i < n; i++)
			if (rnd() % 4 == 0)
				pg[i] = 1 + (uint16_t)(rnd() % npal);
		break;
	default:
		/* runs and holes of random lengths, some long */
		while (i < n) {
			size_t len = 1 + rnd() % (rnd() % 4 ? 8 : 300);
			uint16_t e =
			    rnd() % 2 ? 0 : 1 + (uint16_t)(rnd() % npal);

			for (; len && i < n; len--, i++)
				pg[i] = e;
		}
		break;
	}
}

static void test_layouts_round_trip(void **state)
{
	static const size_t sizes[] = {1, 3, 64, 1000, 70001, 200000};
	static const uint32_t npals[] = {1, 2, 3, 5, 300, NPAL_REF};
	uint16_t *pg = xcalloc(200000, sizeof(*pg));

	ref_palette();
	for (size_t si = 0; si < ARRAY_SIZE(sizes); si++) {
		for (int kind = 0; kind < LAYOUT__COUNT; kind++) {
			for (size_t pi = 0; pi < ARRAY_SIZE(npals); pi++) {
				size_t n = sizes[si];
				char *path;

				layout_make(pg, n, kind, npals[pi]);
				path =
				    write_layout("layout.data", pg, n, pi % 2);
				check_layout(path, pg, n);
				free(path);
			}
		}
	}
	free(pg);
	(void)state;
}

/* A mapping written in slices is the same bytes as written whole, and
 * md_mapping_end counts the runs the reader gives back. A slice that goes
 * back fails the record, which is then not written; an ended record is not
 * ended again. */
static void test_mapping_pieces(void **state)
{
	static const size_t sizes[] = {1, 1000, 70001};
	uint16_t *pg = xcalloc(70001, sizeof(*pg));
	struct md_run back[2] = {
	    {LAYOUT_START + 4096, 1, MD_PG_PRESENT, 1, 0},
	    {LAYOUT_START, 1, MD_PG_PRESENT, 1, 0},
	};
	struct md_snap_mapping m = {
	    .start = LAYOUT_START,
	    .end = LAYOUT_START + 8 * 4096ull,
	    .flags = 2,
	    .image_id = UINT32_MAX,
	    .name = "x",
	};
	struct md_writer *w;
	char *path;

	ref_palette();
	for (size_t si = 0; si < ARRAY_SIZE(sizes); si++) {
		for (int kind = 0; kind < LAYOUT__COUNT; kind++) {
			size_t n = sizes[si], la, lb;
			uint64_t nruns = 0;
			char *a, *b;
			uint8_t *da, *db;

			layout_make(pg, n, kind, 5);
			a = write_layout_how("whole.data", pg, n, true, false,
					     NULL);
			b = write_layout_how("pieces.data", pg, n, true, true,
					     &nruns);
			assert_int_equal(nruns, maximal_runs(pg, n));
			da = read_file(a, &la);
			db = read_file(b, &lb);
			/* the same records between the header and the END
			 * record (40 bytes), which hold the times of the
			 * recording */
			assert_int_equal(la, lb);
			assert_true(la > 64 + 40);
			assert_memory_equal(da + 64, db + 64, la - 64 - 40);
			check_layout(b, pg, n);
			free(da);
			free(db);
			free(a);
			free(b);
		}
	}
	free(pg);
	path = tpath("back.data");
	assert_int_equal(md_writer_open(path, &w), 0);
	assert_int_equal(md_mapping_begin(w, m.start, m.end), 0);
	assert_int_equal(md_mapping_add(w, back, 1), 0);
	assert_int_equal(md_mapping_add(w, back + 1, 1), -EINVAL);
	assert_int_equal(md_mapping_end(w, &m, NULL), -EINVAL);
	/* misaligned bounds */
	assert_int_equal(md_mapping_begin(w, m.start + 1, m.end), -EINVAL);
	assert_int_equal(md_mapping_end(w, &m, NULL), -EINVAL);
	/* a record is ended once: a second end, or a slice after the end,
	 * is refused (it would write the record again) */
	assert_int_equal(md_mapping_begin(w, m.start, m.end), 0);
	assert_int_equal(md_mapping_add(w, back, 1), 0);
	assert_int_equal(md_mapping_end(w, &m, NULL), 0);
	assert_int_equal(md_mapping_end(w, &m, NULL), -EINVAL);
	assert_int_equal(md_mapping_add(w, back, 1), -EINVAL);
	md_writer_close(w);
	free(path);
	(void)state;
}

/* The worst layout, every other page present: at most 2 bits per mapped
 * page for the whole file with one or two distinct page states (a
 * presence bit per page, a code bit per present page); four states take
 * two code bits per present page, 2 bits per page and a few hundred bytes
 * of headers. */
static void test_worst_layout_bits(void **state)
{
	size_t n = 1u << 20;
	uint16_t *pg = xcalloc(n, sizeof(*pg));
	static const uint32_t npals[] = {1, 2, 4};

	ref_palette();
	for (size_t pi = 0; pi < ARRAY_SIZE(npals); pi++) {
		struct stat st;
		char *path;
		double bits;

		for (size_t i = 0; i < n; i += 2)
			pg[i] = 1 + (uint16_t)(i / 2 % npals[pi]);
		path = write_layout("worst.data", pg, n, false);
		check_layout(path, pg, n);
		assert_int_equal(stat(path, &st), 0);
		bits = st.st_size * 8.0 / n;
		print_message("every other page, %u page states: %.3f bits "
			      "per mapped page\n",
			      npals[pi], bits);
		assert_true(bits <= (npals[pi] <= 2 ? 2.0 : 2.01));
		/* one state: the presence bitmap alone */
		if (npals[pi] == 1)
			assert_true(bits <= 1.01);
		free(path);
	}
	free(pg);
	(void)state;
}

/* Forked memory: every page present, each with one of four mapcounts
 * (probabilities 0.4 0.4 0.15 0.05, entropy 1.68 bits). A presence bit and
 * a 2-bit code a page would be 3 bits; CODED blocks take the entropy and
 * a few hundred bytes of headers, under 2 bits. */
static void test_forked_layout_bits(void **state)
{
	size_t n = 1u << 20;
	uint16_t *pg = xcalloc(n, sizeof(*pg));
	static const uint16_t entry[] = {1, 2, 5, 6};
	/* -(2 * 0.4 log2 0.4 + 0.15 log2 0.15 + 0.05 log2 0.05) */
	const double h = 1.684;
	double bits;
	struct stat st;
	char *path;

	ref_palette();
	for (size_t i = 0; i < n; i++) {
		unsigned r = rnd() % 20;

		pg[i] = entry[r < 8 ? 0 : r < 16 ? 1 : r < 19 ? 2 : 3];
	}
	path = write_layout("forked.data", pg, n, true);
	check_layout(path, pg, n);
	assert_int_equal(stat(path, &st), 0);
	bits = st.st_size * 8.0 / n;
	print_message("forked, 4 mapcounts: %.3f bits per mapped page "
		      "(entropy %.3f)\n",
		      bits, h);
	assert_true(bits <= h + 0.02);
	assert_true(bits < 2.0);
	free(path);
	free(pg);
	(void)state;
}

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

/* Make raw (records at the nb offsets of bnd) a file as written before the
 * header flags existed: no flags, no checksums. */
static void strip_checksums(uint8_t *raw, const uint64_t *bnd, size_t nb)
{
	put_le64(raw + 16, 0);
	put_le32(raw + 44, 0);
	for (size_t i = 0; i < nb; i++)
		put_le32(raw + bnd[i] + 4, 0);
}

/* Any byte of a mapping's page states damaged: the record is refused at
 * its offset, never read as other pages. With header flag CRC the
 * record's CRC-32C refuses it; in a version 2 file without the flag
 * (written before it existed) the page-data CRC-32 does. */
static void test_corrupt_pages(void **state)
{
	size_t n = 5000, len, at, from;
	uint16_t *pg = xcalloc(n, sizeof(*pg));
	uint64_t bnd[8], off;
	uint8_t *raw, *cp;
	char *path, *dst = tpath("pages-damaged.data");
	struct md_reader *r;

	wr_flags = MD_WRITER_V5;

	ref_palette();
	layout_make(pg, n, LAYOUT_RANDOM_RUNS, 3);
	path = write_layout("pages.data", pg, n, false);
	raw = read_file(path, &len);
	cp = xmalloc(len);
	/* 4 records (END the last), and the end of the file */
	assert_int_equal(boundaries(raw, len, bnd), 5);
	/* nruns (payload offset 56), then from npalette (after the name
	 * "[anon:layout]", 24 bytes) to the end of the record */
	from = bnd[1] + 16 + 56;
	for (int stripped = 0; stripped < 2; stripped++) {
		if (stripped) {
			strip_checksums(raw, bnd, 4);
			/* still read whole, without checksums */
			write_file(dst, raw, len);
			check_layout(dst, pg, n);
		}
		for (at = from; at < bnd[2];
		     at = at == from + 7 ? from + 32 : at + 1) {
			static const uint8_t flips[] = {0x01, 0x10, 0x80, 0xff};

			for (size_t k = 0; k < ARRAY_SIZE(flips); k++) {
				memcpy(cp, raw, len);
				cp[at] ^= flips[k];
				write_file(dst, cp, len);
				assert_int_equal(md_reader_open(dst, &r), 0);
				assert_int_equal(read_until_error(r, &off),
						 -MEMSZ_EBADDATA);
				assert_int_equal(off, bnd[1]);
			}
		}
	}
	free(cp);
	free(dst);
	free(raw);
	free(path);
	free(pg);
	(void)state;
	wr_flags = 0;
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

/* Version 6 gives back every field of every mapping as written, and a
 * small anonymous mapping next to the previous one takes 24 bytes; a prot
 * over 7 is coded too (and refused by the reader's check, as in any
 * version); without header flag CRC its mappings are refused; an unknown
 * field bit is refused; any byte damaged behind a fixed checksum is read
 * or refused, never out of bounds (the sanitizer build checks that). */
static void test_v6_fields(void **state)
{
	char *path = write_v6(0), *dst = tpath("v6-damaged.data");
	struct md_record rec;
	struct md_reader *r;
	uint64_t b[16], off;
	size_t i = 0, len;
	uint8_t *raw, *cp;
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
	    cmocka_unit_test(test_layouts_round_trip),
	    cmocka_unit_test(test_mapping_pieces),
	    cmocka_unit_test(test_worst_layout_bits),
	    cmocka_unit_test(test_corrupt_pages),
	    cmocka_unit_test(test_pages_fields),
	    cmocka_unit_test(test_forked_layout_bits),
	    cmocka_unit_test(test_coded_fields),
	    cmocka_unit_test(test_pgstate_wrap),
	    cmocka_unit_test(test_mapping_runs_refused),
	    cmocka_unit_test(test_v6_fields),
	};

	return test_run_group(tests, datafile_setup, datafile_teardown);
}
