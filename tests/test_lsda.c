// SPDX-License-Identifier: GPL-2.0-or-later
/* test_lsda.c — elf_lsda_len() (elf/lsdatab.c) over hand-made LSDAs laid
 * out as GCC and LLVM write them (gcc/except.c, EHStreamer.cpp), hostile
 * ones (loops of action links, links leaving the LSDA, unknown encodings,
 * tables past the room) and the LSDA pointer an FDE of a "zPLR" CIE
 * holds, read by the walk's fast path (little-endian) and its general
 * one (big-endian) alike, and in its other encodings (absolute,
 * backwards, wrapping in 32 bits; none without a base); and
 * elf_armdesc_len() (elf/armexidx.c) over ARM EHABI descriptor lists of
 * each kind, with 16-bit and 32-bit scopes, and hostile ones. */
#include "config.h"

#include "elf/armexidx.h"
#include "elf/ehframe.h"
#include "elf/lsdatab.h"

#include <elf.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

struct buf {
	unsigned char b[256];
	size_t n;
};

static void put(struct buf *b, uint64_t v, size_t n, bool be)
{
	for (size_t i = 0; i < n; i++)
		b->b[b->n++] = v >> (8 * (be ? n - 1 - i : i));
}

static void bytes(struct buf *b, const char *s, size_t n)
{
	memcpy(b->b + b->n, s, n);
	b->n += n;
}

/* A C++ LSDA: two call sites, a catch of type 1 chained to a
 * specification list (filter -1), the alignment, two type entries of 4
 * bytes, the TType base at 27, then the list (type 2, 0). 29 bytes, then
 * padding. Returns the TType base. */
static size_t cxx_lsda(struct buf *b)
{
	static const char l[] =
	    "\xff\x9b\x18"     /* LPStart omit, TType pcrel|sdata4, TT off 24 */
	    "\x01\x08"	       /* call sites uleb128, 8 bytes */
	    "\x00\x10\x20\x03" /* start, len, pad, action 3 */
	    "\x10\x08\x00\x00" /* no pad, no action */
	    "\x7f\x00"	       /* action 1: filter -1, end */
	    "\x01\x7d"	       /* action 3: type 1, next: action 1 */
	    "\x00\x00"	       /* alignment */
	    "\x11\x11\x11\x11\x22\x22\x22\x22" /* types 2, 1 */
	    "\x02\x00"			       /* spec list: 2, end */
	    "\x00\x00";			       /* padding after */

	bytes(b, l, sizeof(l) - 1);
	return 27;
}

static void test_cxx(void **state)
{
	struct elf_lsda_scratch sc = {0};
	struct buf b = {0};
	size_t want = cxx_lsda(&b);

	(void)state;
	/* the TType base at 3 + 24 = 27; the list's two bytes after */
	assert_int_equal(want, 27);
	assert_int_equal(
	    elf_lsda_len(b.b, 0, b.n, ELFCLASS64, false, false, &sc), 29);
	/* no room for the list: not decodable */
	assert_int_equal(
	    elf_lsda_len(b.b, 0, 28, ELFCLASS64, false, false, &sc), 0);
	/* no call site reaches the records (a .cold part's LSDA): they are
	 * read all the same, up to the type table the list's index 2 and
	 * the filter 1 size */
	b.b[8] = 0;
	assert_int_equal(
	    elf_lsda_len(b.b, 0, b.n, ELFCLASS64, false, false, &sc), 29);
	b.b[8] = 3;
	/* at an offset in a larger buffer */
	memmove(b.b + 5, b.b, b.n);
	assert_int_equal(
	    elf_lsda_len(b.b, 5, b.n + 5, ELFCLASS64, false, false, &sc), 29);
	elf_lsda_scratch_free(&sc);
}

static void test_cleanups(void **state)
{
	struct elf_lsda_scratch sc = {0};
	struct buf b = {0};

	(void)state;
	/* no type table: it ends with the call-site table */
	bytes(&b, "\xff\xff\x01\x04\x00\x10\x20\x00\x00\x00", 10);
	assert_int_equal(
	    elf_lsda_len(b.b, 0, b.n, ELFCLASS64, false, false, &sc), 8);
	/* a call site with an action but no type table: filter 1 names
	 * nothing */
	b.n = 0;
	bytes(&b, "\xff\xff\x01\x04\x00\x10\x20\x01\x01\x00", 10);
	assert_int_equal(
	    elf_lsda_len(b.b, 0, b.n, ELFCLASS64, false, false, &sc), 0);
	/* filter 0 (a cleanup record) is fine: 10 bytes */
	b.b[8] = 0;
	assert_int_equal(
	    elf_lsda_len(b.b, 0, b.n, ELFCLASS64, false, false, &sc), 10);
	/* udata4 call sites, C's personality's usual older form */
	b.n = 0;
	bytes(&b, "\xff\xff\x03\x0d", 4);
	put(&b, 0, 4, false);
	put(&b, 0x10, 4, false);
	put(&b, 0x20, 4, false);
	put(&b, 0, 1, false);
	assert_int_equal(
	    elf_lsda_len(b.b, 0, b.n, ELFCLASS64, false, false, &sc), 17);
	elf_lsda_scratch_free(&sc);
}

static void test_hostile(void **state)
{
	struct elf_lsda_scratch sc = {0};
	struct buf b = {0};

	(void)state;
	cxx_lsda(&b);
	/* action 1 linked to itself (-1: back to its filter): read once */
	b.b[14] = 0x7f;
	assert_int_equal(
	    elf_lsda_len(b.b, 0, b.n, ELFCLASS64, false, false, &sc), 29);
	/* and linked before the action table: refused */
	b.b[14] = 0x70;
	assert_int_equal(
	    elf_lsda_len(b.b, 0, b.n, ELFCLASS64, false, false, &sc), 0);
	b.b[14] = 0;
	/* a call site's action past the room */
	b.b[8] = 0x7f;
	assert_int_equal(
	    elf_lsda_len(b.b, 0, b.n, ELFCLASS64, false, false, &sc), 0);
	b.b[8] = 3;
	/* unknown LPStart, TType and call-site encodings */
	b.b[0] = 0x0d;
	assert_int_equal(
	    elf_lsda_len(b.b, 0, b.n, ELFCLASS64, false, false, &sc), 0);
	b.b[0] = 0xff;
	b.b[1] = 0x71;
	assert_int_equal(
	    elf_lsda_len(b.b, 0, b.n, ELFCLASS64, false, false, &sc), 0);
	/* DW_EH_PE_aligned (libgcc aligns before reading it; no compiler
	 * writes it): refused, alone or with a format */
	b.b[1] = 0x50;
	assert_int_equal(
	    elf_lsda_len(b.b, 0, b.n, ELFCLASS64, false, false, &sc), 0);
	b.b[1] = 0x5b;
	assert_int_equal(
	    elf_lsda_len(b.b, 0, b.n, ELFCLASS64, false, false, &sc), 0);
	b.b[1] = 0x91; /* uleb128 type entries: no fixed size */
	assert_int_equal(
	    elf_lsda_len(b.b, 0, b.n, ELFCLASS64, false, false, &sc), 0);
	b.b[1] = 0x9b;
	b.b[3] = 0x0e;
	assert_int_equal(
	    elf_lsda_len(b.b, 0, b.n, ELFCLASS64, false, false, &sc), 0);
	b.b[3] = 0x01;
	/* a call-site table past the room */
	b.b[4] = 0x7f;
	assert_int_equal(
	    elf_lsda_len(b.b, 0, b.n, ELFCLASS64, false, false, &sc), 0);
	b.b[4] = 0x08;
	/* a type filter beyond the type table (3 entries of 4 bytes do
	 * not fit between the actions and the TType base) */
	b.b[15] = 0x04;
	assert_int_equal(
	    elf_lsda_len(b.b, 0, b.n, ELFCLASS64, false, false, &sc), 0);
	b.b[15] = 0x01;
	/* a specification list without its end */
	b.b[28] = 0x05;
	assert_int_equal(
	    elf_lsda_len(b.b, 0, 29, ELFCLASS64, false, false, &sc), 0);
	/* empty and one-byte rooms */
	assert_int_equal(elf_lsda_len(b.b, 0, 0, ELFCLASS64, false, false, &sc),
			 0);
	assert_int_equal(elf_lsda_len(b.b, 0, 1, ELFCLASS64, false, false, &sc),
			 0);
	elf_lsda_scratch_free(&sc);
}

/* ARM EHABI: the specification list is words; in a .o the type words
 * are relocations, 0 in the file */
static void test_ehabi(void **state)
{
	struct elf_lsda_scratch sc = {0};
	struct buf b = {0};
	uint64_t reloc = 0;

	(void)state;
	/* LPStart omit, TType absptr, TT offset 14, cs uleb 4 bytes */
	bytes(&b, "\xff\x00\x0e\x01\x04", 5);
	bytes(&b, "\x00\x10\x20\x01", 4); /* action 1 */
	bytes(&b, "\x7f\x00", 2);	  /* filter -1 */
	bytes(&b, "\x00\x00", 2);	  /* alignment */
	put(&b, 0, 4, false);		  /* type 1 (relocated) */
	/* TType base at 17: the list, a relocated type word and 0 */
	reloc = b.n;
	put(&b, 0, 4, false);
	put(&b, 0, 4, false);
	assert_int_equal(b.n, 25);
	/* without the relocation the first word ends the list */
	assert_int_equal(
	    elf_lsda_len(b.b, 0, b.n, ELFCLASS32, false, true, &sc), 21);
	sc.reloc = &reloc;
	sc.nreloc = 1;
	assert_int_equal(
	    elf_lsda_len(b.b, 0, b.n, ELFCLASS32, false, true, &sc), 25);
	/* read as ULEB128 the list is its first byte */
	assert_int_equal(
	    elf_lsda_len(b.b, 0, b.n, ELFCLASS32, false, false, &sc), 18);
	elf_lsda_scratch_free(&sc);
}

/* A scope: two halfwords (pr0, pr1) or two words (pr2) */
static void scope(struct buf *b, unsigned idx, uint32_t len, uint32_t at,
		  bool be)
{
	put(b, len, idx == 2 ? 4 : 2, be);
	put(b, at, idx == 2 ? 4 : 2, be);
}

/* An ARM EHABI descriptor list of model idx: a cleanup, a catch, an
 * exception specification with a landing pad and 2 types, one without
 * (throw()), the zero word; 4 bytes of the next entry after it.
 * Returns the list's length. */
static size_t desc_list(struct buf *b, unsigned idx, bool be)
{
	size_t s = idx == 2 ? 8 : 4;

	b->n = 0;
	scope(b, idx, 0x10, 0x8, be); /* cleanup */
	put(b, 0x7ffffff0, 4, be);    /* its landing pad */
	scope(b, idx, 0x11, 0x8, be); /* catch */
	put(b, 0x20, 4, be);	      /* landing pad */
	put(b, 0xffffffff, 4, be);    /* catch (...) */
	scope(b, idx, 0x10, 0x9, be); /* specification */
	put(b, 0x80000002, 4, be);    /* 2 types and a landing pad */
	put(b, 0, 4, be);	      /* a type (relocated in a .o) */
	put(b, 0, 4, be);
	put(b, 0x30, 4, be);
	scope(b, idx, 0x4, 0x1, be); /* throw() */
	put(b, 0, 4, be);	     /* no types, no landing pad */
	put(b, 0, 4, be);	     /* the end */
	put(b, 0xb0b0b080, 4, be);   /* the next entry */
	assert_int_equal(b->n, 4 * s + 10 * 4);
	return b->n - 4;
}

static void test_armdesc(void **state)
{
	struct buf b = {0};
	unsigned char z[4] = {0};

	(void)state;
	/* the assemblers' list of a function without handler data */
	assert_int_equal(elf_armdesc_len(z, 0, 4, 1, false, NULL, 0), 4);
	for (unsigned idx = 0; idx <= 2; idx++)
		for (int be = 0; be <= 1; be++) {
			size_t n = desc_list(&b, idx, be);

			assert_int_equal(
			    elf_armdesc_len(b.b, 0, b.n, idx, be, NULL, 0), n);
			/* the next entry is no part of it; the room must
			 * hold the end */
			assert_int_equal(
			    elf_armdesc_len(b.b, 0, n, idx, be, NULL, 0), n);
			assert_int_equal(
			    elf_armdesc_len(b.b, 0, n - 1, idx, be, NULL, 0),
			    0);
			/* the same list after a word (its offset) */
			memmove(b.b + 4, b.b, b.n);
			assert_int_equal(
			    elf_armdesc_len(b.b, 4, n, idx, be, NULL, 0), n);
		}
}

/* A relocation patching part of a scope, count or end word (an
 * R_ARM_ABS16 at a pr0/pr1 scope's offset halfword): the list cannot be
 * read; among the relocated landing pads and types it reads as before. */
static void test_armdesc_part_reloc(void)
{
	/* pr1's list: the landing pads and types desc_list() relocates */
	static const uint64_t lp[] = {4, 12, 16, 28, 32, 36};
	static const uint64_t at[] = {1, 2, 3, 22, 26, 50};
	struct buf b = {0};
	uint64_t r[8];
	size_t n;

	for (int be = 0; be <= 1; be++) {
		n = desc_list(&b, 1, be);
		assert_int_equal(elf_armdesc_len(b.b, 0, b.n, 1, be, lp, 6), n);
		for (size_t k = 0; k < sizeof(at) / sizeof(*at); k++) {
			size_t m = 0;

			/* alone, then among the others, sorted */
			assert_int_equal(
			    elf_armdesc_len(b.b, 0, b.n, 1, be, &at[k], 1), 0);
			for (size_t j = 0; j < 6; j++) {
				if (m == j && lp[j] > at[k])
					r[m++] = at[k];
				r[m++] = lp[j];
			}
			if (m == 6)
				r[m++] = at[k];
			assert_int_equal(
			    elf_armdesc_len(b.b, 0, b.n, 1, be, r, 7), 0);
		}
		/* pr2: its scope's length and offset words, any byte */
		n = desc_list(&b, 2, be);
		for (uint64_t k = 28; k < 36; k++)
			assert_int_equal(
			    elf_armdesc_len(b.b, 0, b.n, 2, be, &k, 1), 0);
		r[0] = 42; /* inside a type word: skipped as the word is */
		assert_int_equal(elf_armdesc_len(b.b, 0, b.n, 2, be, r, 1), n);
	}
}

/* Lists that cannot be read: 0, never a length past the room */
static void test_armdesc_hostile(void **state)
{
	struct buf b = {0};
	size_t n;
	uint64_t reloc;

	(void)state;
	assert_int_equal(elf_armdesc_len(b.b, 0, 3, 1, false, NULL, 0), 0);
	/* no end: the room ends inside a descriptor, or after one */
	n = desc_list(&b, 1, false);
	for (size_t room = 0; room < n; room++)
		assert_int_equal(
		    elf_armdesc_len(b.b, 0, room, 1, false, NULL, 0), 0);
	/* a count of 2^31 - 1 types, with and without a landing pad */
	desc_list(&b, 1, false);
	memset(b.b + 24, 0xff, 3); /* the specification's count word */
	b.b[27] = 0x7f;
	assert_int_equal(elf_armdesc_len(b.b, 0, b.n, 1, false, NULL, 0), 0);
	b.b[27] = 0xff;
	assert_int_equal(elf_armdesc_len(b.b, 0, b.n, 1, false, NULL, 0), 0);
	/* throw() counting a type: the end word read as it, the list runs
	 * into the next entry */
	desc_list(&b, 1, false);
	b.b[44] = 1;
	assert_int_equal(elf_armdesc_len(b.b, 0, n, 1, false, NULL, 0), 0);
	/* the reserved kind (both low bits); a scope of length 0 */
	desc_list(&b, 1, false);
	b.b[0] |= 1;
	b.b[2] |= 1;
	assert_int_equal(elf_armdesc_len(b.b, 0, b.n, 1, false, NULL, 0), 0);
	desc_list(&b, 1, false);
	b.b[0] = 0;
	assert_int_equal(elf_armdesc_len(b.b, 0, b.n, 1, false, NULL, 0), 0);
	/* a .o: a zero scope word a relocation patches is not the end, its
	 * value unknown; a relocated type word is skipped as any other */
	b.n = 0;
	put(&b, 0, 4, false);
	put(&b, 0, 4, false);
	reloc = 0;
	assert_int_equal(elf_armdesc_len(b.b, 0, 8, 1, false, NULL, 0), 4);
	assert_int_equal(elf_armdesc_len(b.b, 0, 8, 1, false, &reloc, 1), 0);
	n = desc_list(&b, 2, false);
	reloc = 40; /* the first of the specification's types */
	assert_int_equal(elf_armdesc_len(b.b, 0, b.n, 2, false, &reloc, 1), n);
	reloc = 36; /* its count */
	assert_int_equal(elf_armdesc_len(b.b, 0, b.n, 2, false, &reloc, 1), 0);
	reloc = 32; /* its scope's offset word */
	assert_int_equal(elf_armdesc_len(b.b, 0, b.n, 2, false, &reloc, 1), 0);
	test_armdesc_part_reloc();
}

/* A "zPLR" CIE (personality absent: 'P' omitted) then an FDE whose LSDA
 * pointer is pcrel|sdata4, raw value v, in byte order be. */
static void zplr(struct buf *b, uint32_t v, bool be)
{
	b->n = 0;
	put(b, 20, 4, be); /* CIE length */
	put(b, 0, 4, be);
	bytes(b, "\x01zLR\0\x01\x78\x10\x02\x1b\x1b\0\0\0\0", 15);
	/* 4 + 4 + 1 + 4 + 3 + 2 = 18 bytes: pad to 24 */
	b->n = 24;
	put(b, 20, 4, be);     /* FDE length */
	put(b, 28, 4, be);     /* CIE pointer: 28 back */
	put(b, 0x1000, 4, be); /* pc_begin, pcrel */
	put(b, 0x10, 4, be);   /* range */
	put(b, 4, 1, be);      /* augmentation length */
	put(b, v, 4, be);      /* LSDA at 24 + 17 = 41 */
	put(b, 0, 3, be);      /* padding */
	put(b, 0, 4, be);      /* terminator */
}

static void fde_one(void *arg, const struct elf_fde *f)
{
	*(struct elf_fde *)arg = *f;
}

static void test_fde_pointer(void **state)
{
	struct buf b;

	(void)state;
	for (int be = 0; be < 2; be++) {
		struct elf_fde f = {0};

		zplr(&b, 0x100, be);
		assert_int_equal(elf_ehframe_walk(b.b, b.n, 0x5000, ELFCLASS64,
						  be, fde_one, &f, NULL),
				 0);
		assert_int_equal(f.pc_begin, 0x5000 + 32 + 0x1000);
		assert_true(f.has_lsda);
		assert_int_equal(f.lsda, 0x5000 + 41 + 0x100);
		/* 0 is no LSDA, whatever the encoding */
		zplr(&b, 0, be);
		f = (struct elf_fde){0};
		assert_int_equal(elf_ehframe_walk(b.b, b.n, 0x5000, ELFCLASS64,
						  be, fde_one, &f, NULL),
				 0);
		assert_int_equal(f.pc_range, 0x10);
		assert_false(f.has_lsda);
		/* an augmentation length too short for the pointer */
		zplr(&b, 0x100, be);
		b.b[40] = 2;
		f = (struct elf_fde){0};
		assert_int_equal(elf_ehframe_walk(b.b, b.n, 0x5000, ELFCLASS64,
						  be, fde_one, &f, NULL),
				 0);
		assert_int_equal(f.pc_range, 0x10);
		assert_false(f.has_lsda);
	}
}

/* The LSDA pointer of zplr()'s FDE of L encoding enc (at CIE byte 17),
 * walked as a class cls file loaded at addr: has_lsda and lsda of the
 * FDE, which is read (pc_range) whatever the LSDA pointer is. */
static struct elf_fde lsda_of(uint8_t enc, uint32_t v, uint64_t addr, int cls,
			      bool be)
{
	struct buf b;
	struct elf_fde f = {0};

	zplr(&b, v, be);
	b.b[17] = enc;
	assert_int_equal(
	    elf_ehframe_walk(b.b, b.n, addr, cls, be, fde_one, &f, NULL), 0);
	assert_int_equal(f.pc_range, 0x10);
	return f;
}

/* The other encodings of the LSDA pointer (the general path, whatever
 * the byte order): absolute, pc-relative backwards, wrapping in a
 * 32-bit file; those with no base here (indirect, data-, text-,
 * func-relative) are no LSDA. */
static void test_fde_lsda_enc(void **state)
{
	static const uint8_t none[] = {0x3b, 0x2b, 0x4b, 0x9b, 0x93};

	(void)state;
	for (int be = 0; be < 2; be++) {
		struct elf_fde f;

		f = lsda_of(0x03, 0x100, 0x5000, ELFCLASS64, be);
		assert_true(f.has_lsda);
		assert_int_equal(f.lsda, 0x100);
		f = lsda_of(0x00, 0x100, 0x5000, ELFCLASS32, be);
		assert_true(f.has_lsda);
		assert_int_equal(f.lsda, 0x100);
		f = lsda_of(0x1b, (uint32_t)-0x100, 0x5000, ELFCLASS64, be);
		assert_true(f.has_lsda);
		assert_int_equal(f.lsda, 0x5000 + 41 - 0x100);
		f = lsda_of(0x13, 0x100, 0xffffff00u, ELFCLASS32, be);
		assert_true(f.has_lsda);
		assert_int_equal(f.lsda, 41);
		f = lsda_of(0x13, 0x100, 0xffffff00u, ELFCLASS64, be);
		assert_int_equal(f.lsda, 0xffffff00ull + 41 + 0x100);
		for (size_t i = 0; i < sizeof(none); i++) {
			f = lsda_of(none[i], 0x100, 0x5000, ELFCLASS64, be);
			assert_false(f.has_lsda);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cxx),
	    cmocka_unit_test(test_cleanups),
	    cmocka_unit_test(test_hostile),
	    cmocka_unit_test(test_ehabi),
	    cmocka_unit_test(test_armdesc),
	    cmocka_unit_test(test_armdesc_hostile),
	    cmocka_unit_test(test_fde_pointer),
	    cmocka_unit_test(test_fde_lsda_enc),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
