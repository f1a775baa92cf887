// SPDX-License-Identifier: GPL-2.0-or-later
/* test_elf_zrace.c — a compressed DWARF section rewritten in place (same
 * inode, pwrite) between the claim that bounds what memsz inflates
 * (elf_dwarf_claim()) and the inflating (elf_dwarf_inflate(), then
 * libelf inside dwarf_begin_elf()) is inflated to the size the claim
 * read, or not at all: never to the size its new header says.
 *
 * Each case compiles the fixture (gcc -g), compresses its DWARF with
 * objcopy (SHF_COMPRESSED, GNU .zdebug_, renamed as a split DWARF file's
 * .dwo sections, a raw .zdebug_str that no claim counts, a dwz file),
 * claims it, then rewrites one section's header and stream in the file to
 * a valid zlib stream of other zeros (a "bomb" that inflates exactly to
 * its new header's size), and goes on as dwopen.c does. Ground truth: the
 * file's own bytes (read with pread, offsets from readelf -W) and the
 * fixture's unit name; nothing from memsz's own parsing. Unchanged, the
 * same files still give their DWARF (the unit fx.c) at the claimed size.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <elf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "elf/elfimg.h"
#include "elf/elfpriv.h"
#include "tests/elf_fixture.h"
#include "tests/testutil.h"
#include "util/util.h"

/* What the test knows of the section it rewrites, from readelf and the
 * file's bytes. */
struct target {
	size_t index;
	uint64_t off, size; /* in the file: header and stream */
	uint64_t claimed;   /* the inflated size its header says; 0: none */
	bool gnu;	    /* "ZLIB" header, not Elf64_Chdr */
};

static uint64_t be64(const unsigned char *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

/* Section name of path as readelf -W gives it (index, offset, size),
 * and its compression header as the file holds it. */
static void target_read(const char *path, const char *name, struct target *t)
{
	struct truth tr;
	unsigned char h[sizeof(Elf64_Chdr)];
	Elf64_Chdr ch;
	int fd;
	bool found = false;

	truth_read(path, &tr);
	for (size_t i = 0; i < tr.nsecs; i++) {
		if (strcmp(tr.secs[i].name, name))
			continue;
		t->index = i + 1; /* truth_read() leaves out section 0 */
		t->off = tr.secs[i].off;
		t->size = tr.secs[i].size;
		t->gnu = !strchr(tr.secs[i].flags, 'C');
		found = true;
	}
	truth_free(&tr);
	assert_true(found);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, h, sizeof(h), (off_t)t->off), sizeof(h));
	close(fd);
	memcpy(&ch, h, sizeof(ch));
	if (t->gnu)
		t->claimed = memcmp(h, "ZLIB", 4) ? 0 : be64(h + 4);
	else
		t->claimed = ch.ch_size;
}

/* The zlib streams of the bomb, exactly room bytes: a compressed one of
 * n zeros (n as large as fits, a power of two), then a stored one of the
 * zeros left to fill room (zlib's inflate, libelf's too, takes one
 * stream after another). Its inflated size into *out. */
static unsigned char *bomb(size_t room, uint64_t *out)
{
	unsigned char *b = malloc(room), *zeros;
	uLongf len = 0;
	size_t n = (size_t)64 << 20, p;
	uLong a;

	assert_non_null(b);
	zeros = calloc(n, 1);
	assert_non_null(zeros);
	for (; n >= 1024; n /= 2) {
		len = room;
		if (compress2(b, &len, zeros, n, 9) == Z_OK && len + 11 <= room)
			break;
	}
	assert_true(n >= 1024);
	p = room - len - 11;
	a = adler32(adler32(0, NULL, 0), zeros, (uInt)p);
	b[len] = 0x78;
	b[len + 1] = 0x01;
	b[len + 2] = 0x01; /* final stored block */
	b[len + 3] = p & 0xff;
	b[len + 4] = p >> 8;
	b[len + 5] = ~p & 0xff;
	b[len + 6] = (~p >> 8) & 0xff;
	memset(b + len + 7, 0, p);
	for (int i = 0; i < 4; i++)
		b[len + 7 + p + i] = (unsigned char)(a >> (24 - 8 * i));
	free(zeros);
	*out = n + p;
	return b;
}

/* Rewrite t's bytes in path in place (same inode): a header claiming the
 * bomb's size, then the bomb. Its inflated size. */
static uint64_t rewrite(const char *path, const struct target *t)
{
	size_t hsize = t->gnu ? 12 : sizeof(Elf64_Chdr);
	unsigned char *b;
	uint64_t n;
	int fd = open(path, O_WRONLY);

	assert_true(fd >= 0 && t->size > hsize + 64);
	b = bomb(t->size - hsize, &n);
	assert_true(n != t->claimed);
	if (t->gnu) {
		unsigned char h[12] = "ZLIB";

		for (int i = 0; i < 8; i++)
			h[4 + i] = (unsigned char)(n >> (56 - 8 * i));
		assert_int_equal(pwrite(fd, h, 12, (off_t)t->off), 12);
	} else {
		Elf64_Chdr ch = {.ch_type = ELFCOMPRESS_ZLIB,
				 .ch_size = n,
				 .ch_addralign = 1};

		assert_int_equal(pwrite(fd, &ch, sizeof(ch), (off_t)t->off),
				 sizeof(ch));
	}
	assert_int_equal(
	    pwrite(fd, b, t->size - hsize, (off_t)(t->off + hsize)),
	    (ssize_t)(t->size - hsize));
	close(fd);
	free(b);
	return n;
}

/* The bytes libdw was given of section t of img, or none: hidden (its
 * type SHT_NOBITS in libelf's headers), or never inflated (libelf's
 * header still SHF_COMPRESSED: libdw skipped it). */
static uint64_t given(struct elfimg *img, const struct target *t)
{
	Elf_Scn *scn = elf_getscn(elfimg_elf(img), t->index);
	GElf_Shdr sh;
	Elf_Data *d;

	assert_non_null(gelf_getshdr(scn, &sh));
	if (sh.sh_type == SHT_NOBITS || (sh.sh_flags & SHF_COMPRESSED))
		return 0;
	d = elf_getdata(scn, NULL);
	assert_non_null(d);
	return d->d_size;
}

/* True if libdw's DWARF of dbg has the fixture's unit fx.c. */
static bool has_fx_unit(Dwarf *dbg)
{
	Dwarf_CU *cu = NULL;
	Dwarf_Die die;

	while (dbg &&
	       dwarf_get_units(dbg, cu, &cu, NULL, NULL, &die, NULL) == 0) {
		const char *name = dwarf_diename(&die);

		if (name && strstr(name, "fx.c"))
			return true;
	}
	return false;
}

/* One case: path (a copy of the fixture src) with section name; read by
 * libelf first if held (its own copy, which it inflates), claimed, then,
 * if race, rewritten before inflating. What libdw is given of the
 * section must be what the claim counted (or nothing, or the raw bytes
 * of a section nothing inflates). */
static void race_case_held(const char *src, const char *name, bool race,
			   bool held)
{
	const char *path = fx("race");
	struct elf_hidden *h;
	struct elfimg *img;
	struct target t;
	uint64_t in, out, n = 0, got;
	size_t nh = 0;
	Dwarf *dbg = NULL;

	assert_int_equal(sh("cp %s %s", fx(src), path), 0);
	target_read(path, name, &t);
	assert_int_equal(elfimg_open(path, &img), 0);
	h = calloc(img->nsecs + 1, sizeof(*h));
	if (held)
		assert_non_null(
		    elf_getdata(elf_getscn(elfimg_elf(img), t.index), NULL));
	assert_int_equal(elf_dwarf_claim(img, &in, &out), ELF_DWARF_READ);
	assert_true(out >= t.claimed);
	if (race)
		n = rewrite(path, &t);
	if (elf_dwarf_inflate(img, h, &nh))
		dbg = dwarf_begin_elf(elfimg_elf(img), DWARF_C_READ, NULL);
	got = given(img, &t);
	print_message("%s %s%s: claimed %llu, rewritten to %llu, given %llu\n",
		      src, name, race ? " raced" : "",
		      (unsigned long long)t.claimed, (unsigned long long)n,
		      (unsigned long long)got);
	assert_true(got != n || !race);
	if (t.claimed)
		assert_true(got == t.claimed || got == 0);
	else
		assert_true(got == t.size || got == 0); /* raw, or hidden */
	if (!race) {
		assert_int_equal(nh, 0);
		assert_true(has_fx_unit(dbg));
		assert_int_equal(got, t.claimed ? t.claimed : t.size);
	}
	if (dbg)
		dwarf_end(dbg);
	free(h);
	elfimg_close(img);
}

static void race_case(const char *src, const char *name, bool race)
{
	race_case_held(src, name, race, false);
}

static int zrace_setup(void **state)
{
	if (elf_fixture_setup(state))
		return -1;
	/* every .debug_ section renamed .debug_X.dwo: libdw reads them as
	 * a split DWARF file's */
	return sh("cd %s && "
		  "objcopy --compress-debug-sections=zlib fx fz && "
		  "objcopy --compress-debug-sections=zlib-gnu fx fg && "
		  "objcopy --rename-section .debug_str=.zdebug_str fx fr && "
		  "objcopy $(readelf -SW fx | grep -o '[.]debug_[a-z_]*' | "
		  "sed 's/.*/--rename-section &=&.dwo/') fx fd0 && "
		  "objcopy --compress-debug-sections=zlib fd0 fd",
		  tmpdir)
		   ? -1
		   : 0;
}

/* SHF_COMPRESSED .debug_info, which memsz inflates itself. */
static void test_chdr(void **state)
{
	(void)state;
	race_case("fz", ".debug_info", false);
	race_case("fz", ".debug_info", true);
	/* libelf read it before the claim: it inflates its own copy, whose
	 * header is the claimed one (raced, the section may be hidden) */
	race_case_held("fz", ".debug_info", false, true);
	race_case_held("fz", ".debug_info", true, true);
}

/* GNU .zdebug_info ("ZLIB" header), which libelf inflates
 * (elf_compress_gnu()) from the bytes libelf is given. */
static void test_gnu(void **state)
{
	(void)state;
	race_case("fg", ".zdebug_info", false);
	race_case("fg", ".zdebug_info", true);
}

/* A .zdebug_str with no "ZLIB" header: no claim counts it, and libdw
 * reads it as it is, unless its bytes gain a header before libelf reads
 * them. */
static void test_gnu_raw(void **state)
{
	(void)state;
	race_case("fr", ".zdebug_str", false);
	race_case("fr", ".zdebug_str", true);
}

/* .debug_info.dwo, SHF_COMPRESSED in a file of split DWARF names: libdw
 * reads these, not the plain names. */
static void test_dwo_names(void **state)
{
	(void)state;
	race_case("fd", ".debug_info.dwo", false);
	race_case("fd", ".debug_info.dwo", true);
}

/* The dwz file of two programs (dwz -m), compressed: memsz opens,
 * claims and inflates it for libdw (elf_dwarf_alt_*()); as it is, and
 * rewritten between its claim and its use. */
static void dwz_case(bool race)
{
	struct elfimg *img;
	struct elf_dwalt alt;
	struct elf_dwref ref = {0};
	struct target t;
	uint64_t in, out, n = 0, got;
	Dwarf *dbg;

	assert_int_equal(sh("cd %s && cp fx p1 && cp fx2 p2 && "
			    "dwz -m common p1 p2 && "
			    "objcopy --compress-debug-sections=zlib common",
			    tmpdir),
			 0);
	target_read(fx("common"), ".debug_info", &t);
	assert_int_equal(elfimg_open(fx("p1"), &img), 0);
	dbg = dwarf_begin_elf(elfimg_elf(img), DWARF_C_READ, NULL);
	assert_non_null(dbg);
	elf_dwarf_alt_claim(img, dbg, &alt, &in, &out, &ref);
	assert_non_null(alt.img);
	assert_int_equal(ref.why, 0);
	assert_true(out >= t.claimed);
	if (race)
		n = rewrite(fx("common"), &t);
	elf_dwarf_alt_use(&alt, dbg);
	got = given(alt.img, &t);
	print_message("dwz common .debug_info%s: claimed %llu, rewritten to "
		      "%llu, given %llu\n",
		      race ? " raced" : "", (unsigned long long)t.claimed,
		      (unsigned long long)n, (unsigned long long)got);
	assert_true(got == t.claimed || (race && got == 0));
	/* the units the dwz file holds for p1 are read through it */
	if (!race)
		assert_true(has_fx_unit(dbg));
	dwarf_end(dbg);
	elf_dwarf_alt_end(&alt);
	free(ref.path);
	elfimg_close(img);
}

static void test_dwz(void **state)
{
	(void)state;
	if (sh("command -v dwz >/dev/null"))
		test_skip("no dwz (package dwz)");
	dwz_case(false);
	dwz_case(true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_chdr),    cmocka_unit_test(test_gnu),
	    cmocka_unit_test(test_gnu_raw), cmocka_unit_test(test_dwo_names),
	    cmocka_unit_test(test_dwz),
	};

	return test_run_group(tests, zrace_setup, elf_fixture_teardown);
}
