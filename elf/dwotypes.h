/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dwotypes.h — the type units of a .dwo file libdw read, by signature
 * (elf/dwotypes.c); private to elf/ (elf/dwp.c's dwp_type_die()).
 *
 * libdw 0.188 follows no DW_FORM_ref_sig8 reference of a split unit read
 * from its .dwo: the .dwo's own type units (DWARF 5's in .debug_info.dwo,
 * DWARF 4's in .debug_types.dwo) are listed once per .dwo, sorted by
 * signature, and looked up there.
 *
 * gcc's DWARF 4 puts each type unit in a .debug_types.dwo section of its
 * own (COMDAT groups), and its DWARF 5 each in a .debug_info.dwo of its
 * own, the compile unit in the last: libdw reads the first section of a
 * name. A .dwo with such pieces is read by memsz joined
 * (dwo_join_file()): its DWARF sections (.debug_*.dwo) read (pread) into
 * an ELF image of their own, each name's pieces one after another (units
 * are self-contained: their references are unit-relative or into other
 * sections), handed to libdw (elf_memory(), dwarf_begin_elf()). Refused:
 * a .dwo whose pieces share bytes (the image is then at most the file),
 * one with a compressed DWARF section, one more than
 * DWARF_INFLATE_BYTES_MAX joined (a sparse file's holes cost no disk),
 * one that changed while read; at most 32 section names. A joined image
 * is kept for the skeletons naming the same file (device and inode).
 */
#ifndef MEMSZ_ELF_DWOTYPES_H
#define MEMSZ_ELF_DWOTYPES_H

#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* units of .dwo files listed, all of an image's together: a hostile .dwo
 * of millions of units costs this */
#define ELF_DWARF_SIG8_UNITS (1u << 20)

struct dwo_sig;

/* why a .dwo's pieces were not joined (dwo_join_file()'s -codes) */
enum {
	DWO_JOIN_Z = 256, /* a section is compressed (past errno's) */
	DWO_JOIN_BIG,	  /* joined, past DWARF_INFLATE_BYTES_MAX */
	DWO_JOIN_CHANGED, /* the file changed while read */
	DWO_JOIN_OVERLAP, /* two DWARF sections share bytes */
	DWO_JOIN_BAD,	  /* section headers libelf cannot read */
	DWO_JOIN_LIBDW,	  /* libdw refused the joined image */
};

/* A .dwo's DWARF joined: the image and libdw's reading of it. */
struct dwo_image {
	unsigned char *buf;
	size_t len;
	Elf *elf;
	Dwarf *dbg;
	dev_t dev; /* the .dwo's */
	ino_t ino;
};

/* The DWARF sections of the .dwo file at path (a regular file, read with
 * pread, never mapped) joined into *im (dbg set): 0; 1 if neither
 * .debug_info.dwo nor .debug_types.dwo is in pieces (nothing to join);
 * else a negative DWO_JOIN_* code or -errno. *im is zeroed but for dev
 * and ino, the file's (set once it opened), when not 0. *sec: the name of the
 * section in pieces (static storage), or NULL. Another section in pieces (-g3's
 * .debug_macro.dwo) keeps its first piece, the one libdw reads. */
int dwo_join_file(const char *path, struct dwo_image *im, const char **sec);

void dwo_image_end(struct dwo_image *im);

/* A .dwo file joined and used (r 0), or not joined (r a DWO_JOIN_*
 * code; sec its section in pieces). */
struct dwo_seen {
	dev_t dev;
	ino_t ino;
	int r;
	const char *sec;
};

/* A DWO_JOIN_* code (either sign) as words. */
const char *dwo_join_why(int why);

/* The type units of the .dwo last looked in (zeroed: none yet): dbg, or
 * the image of it joined (src: joined.dbg, else dbg). */
struct dwo_sigs {
	Dwarf *dbg, *src;
	struct dwo_image joined;
	/* .dwo files in pieces read joined; not joined, why (DWO_JOIN_*)
	 * and the section in pieces of the last (static storage) */
	uint64_t joined_n, unjoined;
	struct dwo_seen *seen; /* the files those count */
	size_t seen_n;
	int why;
	const char *why_sec;
	struct dwo_sig *v;
	size_t n, cap;
	uint64_t listed; /* units listed so far (ELF_DWARF_SIG8_UNITS) */
};

/* The .dwo im is joined from used: counted in joined_n once per file. */
void dwo_sigs_used(struct dwo_sigs *t, const struct dwo_image *im);

/* dwo_join_file()'s r refused the join of the .dwo of im (its dev and
 * ino) whose sec is in pieces: counted in unjoined once per file, why
 * kept. */
void dwo_sigs_unjoined(struct dwo_sigs *t, int r, const char *sec,
		       const struct dwo_image *im);

/* The file of dev and ino as dwo_sigs_used() or dwo_sigs_unjoined() saw
 * it, or NULL. */
const struct dwo_seen *dwo_sigs_seen(const struct dwo_sigs *t, dev_t dev,
				     ino_t ino);

/* True if t's list is of dbg (dwo_type_die() needs no path). */
bool dwo_sigs_listed(const struct dwo_sigs *t, Dwarf *dbg);

/* The type DIE of the type unit of signature sig in dbg (a .dwo's
 * Dwarf, or the one *out came from; path: the .dwo libdw read it from,
 * joined from there if in pieces; NULL: unknown, not joined): true and
 * *out set, valid until dbg changes; false if dbg has none listed, or
 * two (neither taken). */
bool dwo_type_die(struct dwo_sigs *t, Dwarf *dbg, const char *path,
		  uint64_t sig, Dwarf_Die *out);

/* Forget the list (dbg is let go); the counts are kept. */
void dwo_sigs_reset(struct dwo_sigs *t);

void dwo_sigs_free(struct dwo_sigs *t);

#endif
