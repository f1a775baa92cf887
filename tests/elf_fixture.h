/* SPDX-License-Identifier: GPL-2.0-or-later */
/* elf_fixture.h — what the elf/ tests share (test_elf_images.c,
 * test_elf_demangle.c, test_elf_debug.c, test_elf_hostile.c): the fixture
 * programs every one of them compiles at group set-up, readelf -W's view of
 * an image (ground truth from binutils, never from memsz's own code), and
 * an image opened with its base and source maps.
 *
 * Include after <cmocka.h>; a failure inside a helper fails the running
 * test through cmocka's assertions.
 */
#ifndef MEMSZ_ELF_FIXTURE_H
#define MEMSZ_ELF_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "elf/elfimg.h"
#include "maps/labels.h"
#include "maps/rangemap.h"

/* The directory of the fixtures (tmpdir_make()), made by
 * elf_fixture_setup(): fx, fx2, fxnb (no build-id), fxx (C++), fs64 and
 * its byte-swapped fs64be, and, if have_m32, fs32 and fs32be. */
extern char tmpdir[];
extern bool have_m32;

/* Compiles the fixtures into tmpdir (cmocka group set-up: 0, or -1 if
 * one does not build); elf_fixture_teardown() removes them. */
int elf_fixture_setup(void **state);
int elf_fixture_teardown(void **state);

/* ---------- readelf ground truth ---------- */

struct rsec {
	char name[128];
	char type[32];
	char flags[16];
	uint64_t addr, off, size;
};

struct rseg {
	char type[32];
	char flags[8]; /* as memsz prints them: "RX" */
	uint64_t off, vaddr, filesz, memsz;
};

struct rsym {
	char name[512];
	char type[16], bind[16], ndx[16];
	uint64_t num, value, size;
};

struct truth {
	struct rsec *secs;
	size_t nsecs;
	struct rseg *segs;
	size_t nsegs;
	struct rsym *syms; /* .symtab only */
	size_t nsyms;
	uint64_t shoff, shnum, shentsize, phoff, phnum, phentsize, ehsize;
};

/* readelf -W -h -S -l -s of path into t; truth_free() frees it. */
void truth_read(const char *path, struct truth *t);
void truth_free(struct truth *t);

/* I1: file map covers exactly [0, size); VM map exactly the PT_LOADs. */
void check_i1(struct dualmap *dm, const struct truth *t, uint64_t fsz);

/* ---------- an image and its maps ---------- */

struct mapped {
	struct elfimg *img;
	struct labels *lb;
	struct dualmap base, src;
	struct elfsrc_stats st;
};

/* Opens path (with its debug file under debug_root if not NULL) into m,
 * makes its base map and its map by src: 0 or elfimg_open()'s or
 * elfimg_source_map()'s error. unmap_image() frees m. */
int map_image(const char *path, enum elf_source src, struct mapped *m,
	      const char *debug_root);
void unmap_image(struct mapped *m);

/* VM bytes of label name in m's source map outside the sections that hold
 * metadata the symbols source charges to symbols (unwind tables, dynamic
 * relocations and symbols, version entries): a symbol's own bytes. */
uint64_t sym_vm_bytes(struct mapped *m, const char *name);

/* elfimg_open()'s result for path (the image closed again). */
int open_code(const char *path);

#endif
