// SPDX-License-Identifier: GPL-2.0-or-later
/* test_datafile_pages.c — the page states of a snapshot mapping in
 * memsz.data against a reference: layouts round trip, mappings written in
 * slices, bits per page of the worst and of forked layouts, damaged page
 * data refused. The fields of the block stream, the THP and locked flags
 * and version 6's mapping fields: test_datafile_pgfields.c. */
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

/* Fill the bitmap of n pages at w: each page set with probability
 * d / 1024, or (d > 1024) in stretches of random lengths, some long; the
 * bits of the last word past n set at random (they are not pages). */
static void bits_make(uint64_t *w, size_t n, unsigned d)
{
	size_t i = 0;

	memset(w, 0, (n + 63) / 64 * sizeof(*w));
	while (i < n) {
		size_t len = d > 1024 ? 1 + rnd() % (rnd() % 4 ? 8 : 300) : 1;
		bool set = d > 1024 ? rnd() % 2 : rnd() % 1024 < d;

		for (; len && i < n; len--, i++)
			w[i / 64] |= (uint64_t)set << (i % 64);
	}
	if (n % 64)
		w[n / 64] |= rnd() << (n % 64);
}

/* The maximal runs of the set bits of the n pages of w at page (absent
 * pages between them), of entry k, page by page: pgstate_add_bits'
 * reference. Returns their count. */
static size_t bits_runs(const uint64_t *w, size_t n, uint64_t page, uint32_t k,
			struct md_run *out)
{
	size_t nr = 0;

	for (size_t i = 0; i < n; i++) {
		if (!(w[i / 64] >> (i % 64) & 1))
			continue;
		if (nr && i && (w[(i - 1) / 64] >> ((i - 1) % 64) & 1)) {
			out[nr - 1].npages++;
			continue;
		}
		out[nr++] = (struct md_run){
		    .vaddr = LAYOUT_START + (page + i) * 4096ull,
		    .npages = 1,
		    .flags = ref_flags[k],
		    .mapcount = ref_mc[k],
		};
	}
	return nr;
}

/* End encoders a and b and check they wrote the same: palette, run count
 * and block stream. */
static void encs_end_same(struct pgstate_enc *a, struct pgstate_enc *b)
{
	assert_int_equal(pgstate_end(a), 0);
	assert_int_equal(pgstate_end(b), 0);
	assert_int_equal(a->npal, b->npal);
	assert_memory_equal(a->pal, b->pal, a->npal * PGSTATE_PAL_SIZE);
	assert_int_equal(a->nruns, b->nruns);
	assert_int_equal(a->len, b->len);
	assert_memory_equal(a->out, b->out, a->len);
}

/* pgstate_add_bits() encodes what pgstate_add() does for the maximal runs
 * of its set bits: the same palette, block stream and run count, for
 * chunks of every density (empty, scattered, full, in stretches) and
 * length (some not a multiple of 64, with bits set past the end), of one
 * entry each, between slices of runs of other entries and of long holes,
 * the runs going on from one chunk or slice to the next. */
static void test_pgstate_bits(void **state)
{
	static const unsigned dens[] = {0, 16, 256, 512, 768, 1008, 1024, 2000};
	enum { CHUNK = 1 << 14, MAPPING = 1 << 21 };
	uint64_t *w = xcalloc(CHUNK / 64, sizeof(*w));
	struct md_run *rl = xcalloc(CHUNK, sizeof(*runs));
	struct pgstate_enc a = {0}, b = {0};

	ref_palette();
	for (int round = 0; round < 60; round++) {
		uint64_t page = 0;

		pgstate_begin(&a, LAYOUT_START, MAPPING, 12);
		pgstate_begin(&b, LAYOUT_START, MAPPING, 12);
		while (page < MAPPING - CHUNK - 1000) {
			size_t n = rnd() % 3 ? 1 + rnd() % CHUNK : 0, nr, cnt;
			uint32_t k = (uint32_t)(rnd() % 5);

			if (n) {
				bits_make(w, n, dens[rnd() % ARRAY_SIZE(dens)]);
				nr = bits_runs(w, n, page, k, rl);
				assert_int_equal(
				    pgstate_add_bits(
					&a, LAYOUT_START + page * 4096, w, 0, n,
					ref_flags[k], ref_mc[k]),
				    0);
				assert_int_equal(pgstate_add(&b, rl, nr), 0);
				page += n;
				continue;
			}
			/* runs of other entries, or a hole */
			cnt = rnd() % 40;
			for (nr = 0; nr < cnt; nr++) {
				page += rnd() % 3 ? rnd() % 4 : rnd() % 500;
				k = (uint32_t)(rnd() % 8);
				rl[nr] = (struct md_run){
				    LAYOUT_START + page * 4096ull,
				    (uint32_t)(1 +
					       rnd() % (rnd() % 2 ? 3 : 90)),
				    ref_flags[k], ref_mc[k], 0};
				page += rl[nr].npages;
			}
			assert_int_equal(pgstate_add(&a, rl, nr), 0);
			assert_int_equal(pgstate_add(&b, rl, nr), 0);
		}
		encs_end_same(&a, &b);
	}
	/* a bitmap past the mapping's end is refused, as its runs are */
	pgstate_begin(&a, LAYOUT_START, 100, 12);
	memset(w, 0xff, 2 * sizeof(*w));
	assert_int_equal(
	    pgstate_add_bits(&a, LAYOUT_START, w, 0, 101, ref_flags[0], 1),
	    -EINVAL);
	assert_int_equal(pgstate_end(&a), -EINVAL);
	pgstate_enc_free(&a);
	pgstate_enc_free(&b);
	free(rl);
	free(w);
	(void)state;
}

/* The reference runs of n pages at page, in page order: those of the
 * set bits of w (of entry k), and at each page of others[] whose bit is
 * clear, a page of entry ok[] (joined with the page before it when that
 * is of the same entry). Returns their count. */
static size_t pieces_runs(const uint64_t *w, size_t n, uint64_t page,
			  uint32_t k, const uint32_t *ok, struct md_run *out)
{
	size_t nr = 0;
	uint32_t prev = UINT32_MAX;

	for (size_t i = 0; i < n; i++) {
		uint32_t e = w[i / 64] >> (i % 64) & 1 ? k : ok[i];

		if (e == UINT32_MAX) {
			prev = e;
			continue;
		}
		if (e == prev) {
			out[nr - 1].npages++;
			continue;
		}
		out[nr++] = (struct md_run){
		    .vaddr = LAYOUT_START + (page + i) * 4096ull,
		    .npages = 1,
		    .flags = ref_flags[e],
		    .mapcount = ref_mc[e],
		};
		prev = e;
	}
	return nr;
}

/* A bitmap added in pieces, pgstate_add_bits() from a first page on, with
 * runs of other entries between them (as record's slot_add_bits adds a
 * chunk most of whose pages are of one class), encodes what pgstate_add()
 * does for all the runs in page order: pieces that start inside a word
 * or at its start, empty ones (two runs of others in a row), runs of
 * others at the bitmap's first and last pages and next to its runs. */
static void test_pgstate_bits_pieces(void **state)
{
	static const unsigned dens[] = {16, 512, 1008, 1024, 2000};
	enum { CHUNK = 1 << 12, MAPPING = 1 << 20 };
	uint64_t *w = xcalloc(CHUNK / 64, sizeof(*w));
	uint32_t *ok = xcalloc(CHUNK, sizeof(*ok));
	struct md_run *rl = xcalloc(CHUNK, sizeof(*rl));
	struct md_run *other = xcalloc(CHUNK, sizeof(*other));
	struct pgstate_enc a = {0}, b = {0};

	ref_palette();
	for (int round = 0; round < 40; round++) {
		uint64_t page = 0;

		pgstate_begin(&a, LAYOUT_START, MAPPING, 12);
		pgstate_begin(&b, LAYOUT_START, MAPPING, 12);
		while (page < MAPPING - CHUNK) {
			size_t n = 1 + rnd() % CHUNK, nr, no = 0;
			uint32_t k = (uint32_t)(rnd() % 5);
			uint64_t from = 0;

			bits_make(w, n, dens[rnd() % ARRAY_SIZE(dens)]);
			/* others at clear bits: now and then, in runs of a
			 * few, at the ends too */
			for (size_t i = 0; i < n; i++) {
				bool clear = !(w[i / 64] >> (i % 64) & 1);
				bool want =
				    i == 0 || i == n - 1 || rnd() % 64 == 0 ||
				    (i && ok[i - 1] != UINT32_MAX && rnd() % 2);

				ok[i] = clear && want
					    ? 5 + (uint32_t)(rnd() % 3)
					    : UINT32_MAX;
			}
			nr = pieces_runs(w, n, page, k, ok, rl);
			/* the others' runs alone, as classify_mostly keeps
			 * them (the bitmap's pages cleared) */
			for (size_t r = 0; r < nr; r++)
				if (rl[r].flags != ref_flags[k] ||
				    rl[r].mapcount != ref_mc[k])
					other[no++] = rl[r];
			for (size_t r = 0; r < no; r++) {
				uint64_t at =
				    (other[r].vaddr - LAYOUT_START) / 4096 -
				    page;

				assert_int_equal(
				    pgstate_add_bits(
					&a, LAYOUT_START + page * 4096, w, from,
					at, ref_flags[k], ref_mc[k]),
				    0);
				assert_int_equal(pgstate_add(&a, &other[r], 1),
						 0);
				from = at + other[r].npages;
			}
			assert_int_equal(
			    pgstate_add_bits(&a, LAYOUT_START + page * 4096, w,
					     from, n, ref_flags[k], ref_mc[k]),
			    0);
			assert_int_equal(pgstate_add(&b, rl, nr), 0);
			page += n + rnd() % 3 * (rnd() % 100);
		}
		encs_end_same(&a, &b);
	}
	pgstate_enc_free(&a);
	pgstate_enc_free(&b);
	free(other);
	free(rl);
	free(ok);
	free(w);
	(void)state;
}

/* Bitmaps of one entry back to back over far more pages than a block
 * holds (PGSTATE_MAP_MAX), each starting at an offset that is no multiple
 * of 64: every 4th page, 1 page in 4 at random, and short stretches. The
 * block of bits they make must close where the runs' block closes, never
 * grow past its room (test_pgstate_bits mixes in other entries and holes,
 * so its blocks of bits rarely reach that size). */
static void test_pgstate_bits_long(void **state)
{
	enum { CHUNK = 3000, MAPPING = 5 * PGSTATE_MAP_MAX };
	uint64_t *w = xcalloc(CHUNK / 64 + 1, sizeof(*w));
	struct md_run *rl = xcalloc(CHUNK, sizeof(*rl));
	struct pgstate_enc a = {0}, b = {0};

	ref_palette();
	for (unsigned d = 0; d < 3; d++) {
		uint64_t page = 0;

		pgstate_begin(&a, LAYOUT_START, MAPPING, 12);
		pgstate_begin(&b, LAYOUT_START, MAPPING, 12);
		while (page < MAPPING - CHUNK) {
			size_t n = CHUNK - 1 - rnd() % 100, nr;

			if (d == 0) {
				memset(w, 0, (CHUNK / 64 + 1) * sizeof(*w));
				for (size_t i = 0; i < n; i++)
					if ((page + i) % 4 == 0)
						w[i / 64] |= 1ull << (i % 64);
			} else {
				bits_make(w, n, d == 1 ? 256 : 2000);
			}
			nr = bits_runs(w, n, page, 0, rl);
			assert_int_equal(
			    pgstate_add_bits(&a, LAYOUT_START + page * 4096, w,
					     0, n, ref_flags[0], ref_mc[0]),
			    0);
			assert_int_equal(pgstate_add(&b, rl, nr), 0);
			page += n;
		}
		encs_end_same(&a, &b);
	}
	pgstate_enc_free(&a);
	pgstate_enc_free(&b);
	free(rl);
	free(w);
	(void)state;
}

/* pgstate_add_bits() into encoder a and pgstate_add() of the same runs
 * into b, both begun on a mapping of 100 pages at LAYOUT_START: every
 * 2nd page of the n at vaddr, of the first `set` of them, as pages of
 * entry 0 (single pages: the runs are the set bits). Both return the
 * same, want; pgstate_end too, and the same stream if they succeed. */
static void bits_against_runs(struct pgstate_enc *a, struct pgstate_enc *b,
			      uint64_t vaddr, size_t n, size_t set, int want)
{
	uint64_t w[4] = {0};
	struct md_run rl[128];
	size_t nr = 0;

	assert_true(n <= 64 * ARRAY_SIZE(w) && set <= n);
	for (size_t i = 0; i < set; i += 2) {
		w[i / 64] |= (uint64_t)1 << (i % 64);
		rl[nr++] = (struct md_run){vaddr + i * 4096, 1, ref_flags[0],
					   ref_mc[0], 0};
	}
	pgstate_begin(a, LAYOUT_START, 100, 12);
	pgstate_begin(b, LAYOUT_START, 100, 12);
	assert_int_equal(pgstate_add(b, rl, nr), want);
	assert_int_equal(
	    pgstate_add_bits(a, vaddr, w, 0, n, ref_flags[0], ref_mc[0]), want);
	assert_int_equal(pgstate_end(b), want);
	assert_int_equal(pgstate_end(a), want);
	if (want)
		return;
	assert_int_equal(a->nruns, b->nruns);
	assert_int_equal(a->len, b->len);
	assert_memory_equal(a->out, b->out, a->len);
}

/* pgstate_add_bits() at a mapping's bounds, scattered: its common case
 * (a short run after a short gap joining the open block) must not take a
 * page past the mapping's end (the end bound of bits_ctx.checked); a
 * bitmap at a vaddr not page-aligned is refused as its runs are; pages
 * up to the end, and a bitmap longer than the mapping whose set bits are
 * all in it, are taken as their runs are. And a
 * bitmap of an entry new to an open block that holds its 256 local
 * entries (the most) closes it as the runs do: the block's segments
 * cannot name an entry it does not hold. */
static void test_pgstate_bits_bounds(void **state)
{
	static const struct {
		uint64_t off;
		size_t n, set;
		int ret;
	} cases[] = {
	    {0, 100, 100, 0},		  /* up to the mapping's end */
	    {0, 200, 100, 0},		  /* longer, the pages past it clear */
	    {0, 200, 200, -EINVAL},	  /* past the end */
	    {60 * 4096, 64, 64, -EINVAL}, /* from inside it past the end */
	    {100, 50, 50, -EINVAL},	  /* not page-aligned */
	};
	struct pgstate_enc a = {0}, b = {0};
	struct md_run rl[257];
	uint64_t w = 0x5555555555555555ull;

	ref_palette();
	for (size_t ci = 0; ci < ARRAY_SIZE(cases); ci++)
		bits_against_runs(&a, &b, LAYOUT_START + cases[ci].off,
				  cases[ci].n, cases[ci].set, cases[ci].ret);
	/* 256 entries in a block, every 2nd page, then a bitmap of a 257th */
	for (uint32_t k = 0; k < 256; k++)
		rl[k] = (struct md_run){LAYOUT_START + 2 * k * 4096ull, 1,
					ref_flags[k + 4], ref_mc[k + 4], 0};
	pgstate_begin(&a, LAYOUT_START, 1024, 12);
	pgstate_begin(&b, LAYOUT_START, 1024, 12);
	assert_int_equal(pgstate_add(&a, rl, 256), 0);
	assert_int_equal(pgstate_add(&b, rl, 256), 0);
	for (uint32_t i = 0; i < 32; i++)
		rl[i] = (struct md_run){LAYOUT_START + (512 + 2 * i) * 4096ull,
					1, ref_flags[300], ref_mc[300], 0};
	assert_int_equal(pgstate_add_bits(&a, LAYOUT_START + 512 * 4096ull, &w,
					  0, 64, ref_flags[300], ref_mc[300]),
			 0);
	assert_int_equal(pgstate_add(&b, rl, 32), 0);
	assert_int_equal(pgstate_end(&a), 0);
	assert_int_equal(pgstate_end(&b), 0);
	assert_int_equal(a.npal, 257);
	assert_int_equal(a.nruns, b.nruns);
	assert_int_equal(a.len, b.len);
	assert_memory_equal(a.out, b.out, a.len);
	pgstate_enc_free(&a);
	pgstate_enc_free(&b);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_layouts_round_trip),
	    cmocka_unit_test(test_mapping_pieces),
	    cmocka_unit_test(test_pgstate_bits),
	    cmocka_unit_test(test_pgstate_bits_pieces),
	    cmocka_unit_test(test_pgstate_bits_bounds),
	    cmocka_unit_test(test_pgstate_bits_long),
	    cmocka_unit_test(test_worst_layout_bits),
	    cmocka_unit_test(test_corrupt_pages),
	    cmocka_unit_test(test_forked_layout_bits),
	};

	return test_run_group(tests, datafile_setup, datafile_teardown);
}
