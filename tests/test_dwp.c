// SPDX-License-Identifier: GPL-2.0-or-later
/* test_dwp.c — elf/dwp.c's reading of a DWARF package's unit index
 * (.debug_cu_index), against the layout DWARF 5 §7.3.5.3 gives it: a
 * header (version 5, columns, units, slots), the slots' ids and rows, the
 * columns' DW_SECT ids, then each row's offsets and sizes. Each case
 * writes a small package (an ELF file of its own making: the sections a
 * package holds, the index patched as the case says) and checks what
 * dwp_open(), dwp_unit() and dwp_bad() say of it. */
#include "config.h"

#include <elf.h>
#include <errno.h>
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
#include <gelf.h>

#include "elf/dwp.h"
#include "testutil.h"
#include "util/util.h"

#define DW_SECT_INFO 1
#define DW_SECT_ABBREV 3

static char dir[] = "/tmp/memsz-test-dwp-XXXXXX";

/* The package a case writes: two units (ids 0x11, 0x22) with an info and
 * an abbrev contribution each, in 4 slots, then what the case changes. */
struct pkg {
	uint16_t version;
	uint32_t ncols, nunits, nslots;
	uint32_t cols[10];
	uint64_t ids[4];
	uint32_t rows[4];
	uint32_t offs[2][10], sizes[2][10];
	bool no_info, info_compressed, str_whole_file;
	/* n: .debug_str_offsets.dwo a header and entries 0, 1, ..., n - 1
	 * (each a string inside the one before it) */
	uint32_t str_run;
	size_t index_cut; /* bytes cut off the index's end */
};

static struct pkg good(void)
{
	struct pkg p = {.version = 5, .ncols = 2, .nunits = 2, .nslots = 4};

	p.cols[0] = DW_SECT_INFO;
	p.cols[1] = DW_SECT_ABBREV;
	p.ids[1] = 0x11;
	p.rows[1] = 1;
	p.ids[2] = 0x22;
	p.rows[2] = 2;
	p.offs[1][0] = 32;
	p.sizes[0][0] = p.sizes[1][0] = 32;
	p.offs[1][1] = 8;
	p.sizes[0][1] = p.sizes[1][1] = 8;
	return p;
}

static void put(uint8_t *b, size_t *at, uint64_t v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		b[(*at)++] = (uint8_t)(v >> (8 * i));
}

/* The index's bytes into b (room for 512); their count. */
static size_t index_bytes(const struct pkg *p, uint8_t *b)
{
	size_t at = 0;

	put(b, &at, p->version, 2);
	put(b, &at, 0, 2);
	put(b, &at, p->ncols, 4);
	put(b, &at, p->nunits, 4);
	put(b, &at, p->nslots, 4);
	for (uint32_t s = 0; s < 4; s++)
		put(b, &at, p->ids[s], 8);
	for (uint32_t s = 0; s < 4; s++)
		put(b, &at, p->rows[s], 4);
	for (uint32_t c = 0; c < p->ncols && c < 10; c++)
		put(b, &at, p->cols[c], 4);
	for (int t = 0; t < 2; t++)
		for (uint32_t u = 0; u < 2; u++)
			for (uint32_t c = 0; c < p->ncols && c < 10; c++)
				put(b, &at, t ? p->sizes[u][c] : p->offs[u][c],
				    4);
	return at - p->index_cut;
}

/* The strings of .debug_str.dwo ("alpha" at 0, "beta" at 6, "gamma" at
 * 11) and the units' .debug_str_offsets.dwo slices (a DWARF 5 header,
 * then offsets): unit 0x11's at 0 names alpha, beta, alpha again; unit
 * 0x22's at 20 names gamma and an offset past the section. */
static const char strs[32] = "alpha\0beta\0gamma";
static const uint32_t stroffs[9] = {12, 5, 0, 6, 0, 8, 5, 11, 1000};
#define STROFF_U0 0
#define STROFF_U1 20

/* An ELF64 little-endian ET_REL file at path: .debug_info.dwo (64 bytes),
 * .debug_abbrev.dwo (16), .debug_str.dwo (32: strs), .debug_cu_index,
 * the section name table and .debug_str_offsets.dwo (36: stroffs, its
 * version words 5 and padding 0 in one u32 each, little-endian). */
static void write_pkg(const char *path, const struct pkg *p)
{
	static const char names[] = "\0.debug_info.dwo\0.debug_abbrev.dwo\0"
				    ".debug_str.dwo\0.debug_cu_index\0"
				    ".shstrtab\0.debug_str_offsets.dwo";
	static const uint32_t name_at[] = {0, 1, 17, 35, 50, 66, 76};
	uint8_t f[4096] = {0}, idx[512];
	size_t ilen = index_bytes(p, idx), at = 64, shoff;
	uint64_t off[7] = {0},
		 size[7] = {0, 64, 16, 32, ilen, sizeof(names), 36};

	if (p->str_run)
		size[6] = 8 + 4 * (uint64_t)p->str_run;

	for (int s = 1; s < 7; s++) {
		off[s] = at;
		if (s == 3)
			memcpy(f + at, strs, sizeof(strs));
		else if (s == 4)
			memcpy(f + at, idx, ilen);
		else if (s == 5)
			memcpy(f + at, names, sizeof(names));
		else if (s == 6 && p->str_run) {
			size_t h = at;

			put(f, &h, 4 + 4 * (uint64_t)p->str_run, 4);
			put(f, &h, 5, 4); /* version, padding */
			for (uint32_t i = 0; i < p->str_run; i++)
				put(f, &h, i, 4);
		} else if (s == 6)
			for (size_t i = 0; i < 9; i++) {
				size_t h = at + 4 * i;

				/* the version (2 bytes) and padding (2) */
				if (i == 1 || i == 6)
					put(f, &h, 5, 2);
				else
					put(f, &h, stroffs[i], 4);
			}
		else
			memset(f + at, s, size[s]);
		at += (size[s] + 7) & ~(size_t)7;
	}
	shoff = at;
	at = shoff + 7 * 64;
	if (p->str_whole_file) {
		off[3] = 0;
		size[3] = at;
	}
	memcpy(f, ELFMAG, SELFMAG);
	f[EI_CLASS] = ELFCLASS64;
	f[EI_DATA] = ELFDATA2LSB;
	f[EI_VERSION] = EV_CURRENT;
	{
		size_t h = 16;

		put(f, &h, ET_REL, 2);
		put(f, &h, EM_X86_64, 2);
		put(f, &h, EV_CURRENT, 4);
		h = 40;
		put(f, &h, shoff, 8);
		h = 52;
		put(f, &h, 64, 2);
		h = 58;
		put(f, &h, 64, 2);
		put(f, &h, 7, 2);
		put(f, &h, 5, 2);
	}
	for (int s = 1; s < 7; s++) {
		size_t h = shoff + 64 * (size_t)s;
		uint32_t name = name_at[s];

		if (s == 1 && p->no_info)
			name = 66 + 3; /* "strtab": not a section memsz reads */
		put(f, &h, name, 4);
		put(f, &h, s == 5 ? SHT_STRTAB : SHT_PROGBITS, 4);
		put(f, &h, s == 1 && p->info_compressed ? SHF_COMPRESSED : 0,
		    8);
		h += 8; /* sh_addr */
		put(f, &h, off[s], 8);
		put(f, &h, size[s], 8);
		h += 8; /* link, info */
		put(f, &h, 1, 8);
	}
	write_file(path, f, at);
}

/* The bytes of section name of dbg's ELF image. */
static Elf_Data *image_section(Dwarf *dbg, const char *name)
{
	Elf *elf = dwarf_getelf(dbg);
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	assert_int_equal(elf_getshdrstrndx(elf, &shstrndx), 0);
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *n;

		if (!gelf_getshdr(scn, &sh))
			continue;
		n = elf_strptr(elf, shstrndx, sh.sh_name);
		if (n && !strcmp(n, name))
			return elf_rawdata(scn, NULL);
	}
	return NULL;
}

/* Each entry of the unit's .debug_str_offsets.dwo (after its header)
 * names, in its .debug_str.dwo, the string want[i] names in the
 * package's; that table holds no more than those strings. */
static void check_strings(Dwarf *dbg, const char *const *want, size_t n,
			  size_t table)
{
	Elf_Data *so = image_section(dbg, ".debug_str_offsets.dwo");
	Elf_Data *st = image_section(dbg, ".debug_str.dwo");

	assert_non_null(so);
	assert_non_null(st);
	assert_int_equal(so->d_size, 8 + 4 * n);
	assert_int_equal(st->d_size, table);
	for (size_t i = 0; i < n; i++) {
		uint32_t o;

		memcpy(&o, (const char *)so->d_buf + 8 + 4 * i, 4);
		assert_true(o < st->d_size);
		assert_string_equal((const char *)st->d_buf + o, want[i]);
	}
}

/* dwp_open() of the package p, its code; *out the package (0) or NULL. */
static int open_pkg(const struct pkg *p, struct dwp **out)
{
	char *path = fx("p.dwp");

	unlink(path);
	write_pkg(path, p);
	return dwp_open(path, out);
}

static void test_good(void **state)
{
	struct pkg p = good();
	struct dwp *d;
	Dwarf *dbg;

	(void)state;
	assert_int_equal(open_pkg(&p, &d), 0);
	assert_int_equal(dwp_bad(d), 0);
	assert_int_equal(dwp_unit(d, 0x11, &dbg), 0);
	assert_non_null(dbg);
	assert_int_equal(dwp_unit(d, 0x22, &dbg), 0);
	assert_int_equal(dwp_unit(d, 0x33, &dbg), -ENOENT);
	assert_int_equal(dwp_bad(d), 0);
	assert_int_equal(dwp_err(d), 0);
	dwp_close(d);
}

/* Each unit's strings are those its .debug_str_offsets.dwo slice names,
 * in a table of its own: alpha and beta (named twice: once in the table)
 * for 0x11, gamma for 0x22, never the package's whole .debug_str.dwo; a
 * unit naming an offset past the section is refused. */
static void test_strings(void **state)
{
	static const char *const u0[] = {"alpha", "beta", "alpha"};
	static const char *const u1[] = {"gamma"};
	struct pkg p = good();
	struct dwp *d;
	Dwarf *dbg;

	(void)state;
	p.ncols = 3;
	p.cols[2] = 6; /* DW_SECT_STR_OFFSETS */
	p.offs[0][2] = STROFF_U0;
	p.sizes[0][2] = 20;
	p.offs[1][2] = STROFF_U1;
	p.sizes[1][2] = 12;
	assert_int_equal(open_pkg(&p, &d), 0);
	assert_int_equal(dwp_unit(d, 0x11, &dbg), 0);
	check_strings(dbg, u0, 3, sizeof("alpha") + sizeof("beta"));
	assert_int_equal(dwp_unit(d, 0x22, &dbg), 0);
	check_strings(dbg, u1, 1, sizeof("gamma"));
	assert_int_equal(dwp_bad(d), 0);
	dwp_close(d);

	p.sizes[1][2] = 16; /* its second entry 1000, past the 32 bytes */
	assert_int_equal(open_pkg(&p, &d), 0);
	assert_int_equal(dwp_unit(d, 0x22, &dbg), -MEMSZ_EBADDWP);
	assert_int_equal(dwp_bad(d), 1);
	assert_int_equal(dwp_unit(d, 0x11, &dbg), 0);
	dwp_close(d);

	p.sizes[1][2] = 14; /* not whole entries after the header */
	assert_int_equal(open_pkg(&p, &d), 0);
	assert_int_equal(dwp_unit(d, 0x22, &dbg), -MEMSZ_EBADDWP);
	assert_int_equal(dwp_bad(d), 1);
	dwp_close(d);
}

/* Offsets 0, 1, 2, ... into "alpha\0beta\0gamma": the strings they name
 * add up past .debug_str.dwo's 32 bytes and a NUL per entry (max in
 * unit_strings()): 12 entries (42 bytes, at most 45) are read, 13 (47,
 * at most 46) refused, counted. */
static void test_strings_max(void **state)
{
	static const struct {
		uint32_t n;
		int want;
		uint64_t bad;
	} run[] = {{12, 0, 0}, {13, -MEMSZ_EBADDWP, 1}};

	(void)state;
	for (size_t i = 0; i < sizeof(run) / sizeof(run[0]); i++) {
		struct pkg p = good();
		struct dwp *d;
		Dwarf *dbg;

		p.ncols = 3;
		p.cols[2] = 6; /* DW_SECT_STR_OFFSETS */
		p.sizes[0][2] = 8 + 4 * run[i].n;
		p.str_run = run[i].n;
		assert_int_equal(open_pkg(&p, &d), 0);
		assert_int_equal(dwp_unit(d, 0x11, &dbg), run[i].want);
		assert_int_equal(dwp_bad(d), run[i].bad);
		dwp_close(d);
	}
}

/* Indexes refused whole: dwp_open()'s code. */
static void test_refused(void **state)
{
	static const struct {
		const char *what;
		int err;
	} want[] = {
	    {"version 3", -MEMSZ_EBADDWP},
	    {"more units than slots", -MEMSZ_EBADDWP},
	    {"9 columns", -MEMSZ_EBADDWP},
	    {"column 2 (reserved in version 5)", -MEMSZ_EBADDWP},
	    {"a column twice", -MEMSZ_EBADDWP},
	    {"rows past the index", -MEMSZ_EBADDWP},
	    {"no info column", -MEMSZ_EDWPNOINFO},
	    {"no .debug_info.dwo", -MEMSZ_EDWPNOINFO},
	    {"compressed", -MEMSZ_EDWPZ},
	};
	struct dwp *d;

	(void)state;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct pkg p = good();
		int r;

		switch (i) {
		case 0:
			p.version = 3;
			break;
		case 1:
			p.nunits = 5;
			break;
		case 2:
			p.ncols = 9;
			break;
		case 3:
			p.cols[1] = 2;
			break;
		case 4:
			p.cols[1] = DW_SECT_INFO;
			break;
		case 5:
			p.index_cut = 4;
			break;
		case 6:
			p.cols[0] = 4;
			break;
		case 7:
			p.no_info = true;
			break;
		case 8:
			p.info_compressed = true;
			break;
		}
		r = open_pkg(&p, &d);
		if (r != want[i].err)
			fail_msg("%s: dwp_open() %d, not %d", want[i].what, r,
				 want[i].err);
		assert_null(d);
	}
}

/* Rows and ids refused one by one: the others still read. */
static void test_rows(void **state)
{
	struct pkg p = good();
	struct dwp *d;
	Dwarf *dbg;

	(void)state;
	p.rows[3] = 3; /* a slot past the units */
	p.ids[3] = 0x33;
	assert_int_equal(open_pkg(&p, &d), 0);
	assert_int_equal(dwp_bad(d), 1);
	assert_int_equal(dwp_unit(d, 0x33, &dbg), -ENOENT);
	assert_int_equal(dwp_unit(d, 0x11, &dbg), 0);
	dwp_close(d);

	p = good();
	p.ids[2] = 0x11; /* an id in two slots: neither read */
	assert_int_equal(open_pkg(&p, &d), 0);
	assert_int_equal(dwp_bad(d), 2);
	assert_int_equal(dwp_unit(d, 0x11, &dbg), -ENOENT);
	dwp_close(d);

	p = good();
	p.offs[1][0] = 40; /* 40 + 32 past .debug_info.dwo's 64 bytes */
	assert_int_equal(open_pkg(&p, &d), 0);
	assert_int_equal(dwp_unit(d, 0x22, &dbg), -MEMSZ_EBADDWP);
	assert_int_equal(dwp_bad(d), 1);
	assert_int_equal(dwp_unit(d, 0x11, &dbg), 0);
	dwp_close(d);

	p = good();
	p.sizes[0][1] = 0xfffffff0; /* an abbrev size past its section */
	assert_int_equal(open_pkg(&p, &d), 0);
	assert_int_equal(dwp_unit(d, 0x11, &dbg), -MEMSZ_EBADDWP);
	dwp_close(d);
}

/* .debug_str.dwo over the whole file: sections that share bytes (a
 * hostile package would have them read as strings and units at once) are
 * refused. */
static void test_overlap(void **state)
{
	struct pkg p = good();
	struct dwp *d;

	(void)state;
	p.str_whole_file = true;
	assert_int_equal(open_pkg(&p, &d), -MEMSZ_EDWPOVERLAP);
	assert_null(d);
}

/* The package changed after it was opened: no unit is read from it. */
static void test_changed(void **state)
{
	struct pkg p = good();
	struct dwp *d;
	Dwarf *dbg;
	FILE *f;

	(void)state;
	assert_int_equal(open_pkg(&p, &d), 0);
	f = fopen(fx("p.dwp"), "a");
	assert_non_null(f);
	fputs("more", f);
	fclose(f);
	assert_int_equal(dwp_unit(d, 0x11, &dbg), -MEMSZ_ETRUNC);
	assert_int_equal(dwp_err(d), -MEMSZ_ETRUNC);
	dwp_close(d);
}

/* A FIFO at FILE.dwp is not opened (it would block). */
static void test_fifo(void **state)
{
	struct dwp *d;

	(void)state;
	unlink(fx("f.dwp"));
	assert_int_equal(mkfifo(fx("f.dwp"), 0600), 0);
	assert_int_equal(dwp_open(fx("f.dwp"), &d), -MEMSZ_ENOTREG);
	assert_null(d);
	assert_int_equal(dwp_open(fx("none.dwp"), &d), -ENOENT);
}

static int setup(void **state)
{
	(void)state;
	return tmpdir_make(dir);
}

static int teardown(void **state)
{
	(void)state;
	return tmpdir_remove();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_good),	cmocka_unit_test(test_strings),
	    cmocka_unit_test(test_strings_max), cmocka_unit_test(test_refused),
	    cmocka_unit_test(test_rows),	cmocka_unit_test(test_overlap),
	    cmocka_unit_test(test_changed),	cmocka_unit_test(test_fifo),
	};

	return test_run_group(tests, setup, teardown);
}
