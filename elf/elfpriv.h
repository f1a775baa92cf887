/* SPDX-License-Identifier: GPL-2.0-or-later */
/* elfpriv.h — what the elf/ files share about an open image; not public. */
#ifndef MEMSZ_ELF_ELFPRIV_H
#define MEMSZ_ELF_ELFPRIV_H

#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "elf/elfimg.h"

struct elf_reloc;

struct elfimg_priv {
	int fd;
	Elf *elf;
	struct timespec mtime; /* at open: elfimg_changed() compares */
	unsigned char *raw;    /* elfimg_raw(): the file, read once */
	size_t raw_len;
	size_t shstrndx; /* 0: no section names */
	char *shstr;	 /* a copy of .shstrtab: elf_section.name points here */
	char *debug_root; /* root of the cached debug search; NULL: default */
	/* elf_relocs_get()'s cache: elf_relocs_read() once, owned here. */
	struct elf_reloc *relocs;
	size_t nrelocs;
	int relocs_bad;
	bool relocs_read;
	/* elf/xrefs.c's cache: [instruction - code_base, target -
	 * data_base] of the references its sweep of the code found (bit 31
	 * of the first: the target is a MOV's immediate), so that a second
	 * source (compileunits then symbols) decodes nothing; swept:
	 * filled. */
	uint32_t (*xref_raw)[2];
	uint64_t xref_code_base, xref_data_base;
	size_t nxref_raw, xref_cap;
	bool xref_swept;
	/* elf_dwarf_inflate()'s inflated sections, libelf's data of them
	 * until the handle elf is ended */
	struct elf_zbuf {
		void *p;
		size_t n;
	} * zbufs;
	size_t nzbufs, zcap;
	/* elf_minidebug_get()'s answer, once asked (elf/minidebug.c) */
	struct elf_mdi *mdi;
	/* what the last elf_dwarf_claim() counted, by section index */
	struct elf_zsec *zsecs;
	size_t nzsecs, zseccap;
};

static inline Elf *elfimg_elf(const struct elfimg *img)
{
	return ((struct elfimg_priv *)img->priv)->elf;
}

/* The first section of img named name, or NULL. */
static inline const struct elf_section *
elf_section_named(const struct elfimg *img, const char *name)
{
	for (size_t i = 1; i < img->nsecs; i++)
		if (!strcmp(img->secs[i].name, name))
			return &img->secs[i];
	return NULL;
}

/* The n-byte (n <= 8) unsigned integer at p, big-endian if be; the caller
 * checks that the n bytes are there. */
static inline uint64_t elf_get_uint(const unsigned char *p, size_t n, bool be)
{
	uint64_t v = 0;

	for (size_t i = 0; i < n; i++)
		v |= (uint64_t)p[be ? n - 1 - i : i] << (8 * i);
	return v;
}

/* A 4-byte initial length of this value in DWARF data (.debug_*,
 * .eh_frame) says that the 64-bit format follows: an 8-byte length. */
#define DWARF64_LENGTH 0xffffffffu
/* Initial lengths from this one up to DWARF64_LENGTH are reserved. */
#define DWARF_LENGTH_RESERVED 0xfffffff0u

/* Size of the ELF structure Elf64_T or Elf32_T (is64 says which class). */
#define ELF_SIZEOF(is64, T) ((is64) ? sizeof(Elf64_##T) : sizeof(Elf32_##T))

/* Field f of the ELF structure T (Ehdr, Shdr, Phdr, Nhdr, Rela...) held in
 * raw file bytes at p, of class is64 and byte order be: read at its
 * offsetof in Elf64_T or Elf32_T, with that field's size. The caller
 * checks that the structure's bytes are there. */
#define ELF_FIELD(p, is64, T, f, be)                                           \
	((is64) ? elf_get_uint((const unsigned char *)(p) +                    \
				   offsetof(Elf64_##T, f),                     \
			       sizeof(((Elf64_##T *)0)->f), (be))              \
		: elf_get_uint((const unsigned char *)(p) +                    \
				   offsetof(Elf32_##T, f),                     \
			       sizeof(((Elf32_##T *)0)->f), (be)))

/* The LEB128 number at p (bytes up to end) into *out, sign-extended if
 * sign; bits past the 64th are dropped. *wide (if not NULL) tells whether
 * it did not fit 64 bits as written (an 11th byte, or a 10th with more
 * than bit 63). Returns the byte after it, or NULL (*out untouched) if it
 * runs past end. */
static inline const unsigned char *elf_get_leb(const unsigned char *p,
					       const unsigned char *end,
					       bool sign, uint64_t *out,
					       bool *wide)
{
	uint64_t v = 0;
	unsigned shift = 0;
	bool w = false;

	for (;;) {
		unsigned char b;

		if (p >= end)
			return NULL;
		b = *p++;
		if (shift >= 64 || (shift == 63 && (b & 0x7e)))
			w = true;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80)) {
			if (sign && shift < 64 && (b & 0x40))
				v |= ~(uint64_t)0 << shift;
			break;
		}
	}
	*out = v;
	if (wide)
		*wide = w;
	return p;
}

/* elfimg_open(), or with debug set for a separate debug file: program
 * headers are read but not validated (segs of such an image are not to be
 * used; vm_size stays 0). */
int elfimg_open_mode(const char *path, bool debug, struct elfimg **out);
/* elfimg_open_mode() of the regular file open on fd (taken: closed on
 * failure, else by elfimg_close()), named path (img->path, messages). */
int elfimg_open_fd(int fd, const char *path, bool debug, struct elfimg **out);

/* Add the fallback labels shared by every source: PT_LOAD segments (unless
 * no_loads), the three header tables (file only) and "[Unmapped]". */
void elfimg_add_fallbacks(struct elfimg *img, struct labels *lb,
			  struct dualmap *out, bool no_loads);

/* *acc += v, saturating at UINT64_MAX (sizes from a hostile file). */
static inline void elf_add_sat(uint64_t *acc, uint64_t v)
{
	*acc = v > UINT64_MAX - *acc ? UINT64_MAX : *acc + v;
}

/* A compressed section elf_dwarf_claim() counted, as it read it: its
 * libelf header's sh_offset and sh_size then, its compression header's
 * bytes (an Elf32/64_Chdr, or GNU's "ZLIB" and 8-byte size: gnu) and the
 * inflated size they claim. elf_dwarf_inflate() gives the section these
 * bytes or none. */
struct elf_zsec {
	size_t index;
	uint64_t offset, size, out;
	unsigned char hdr[sizeof(Elf64_Chdr)];
	unsigned hsize;
	bool gnu;
};
/* A section hidden from libdw (SHT_NOBITS in libelf's copy of its
 * header: dwarf_begin_elf() skips it) and its real type. */
struct elf_hidden {
	size_t index;
	uint32_t type;
};
/* Hide section i of img from libdw, its real type into h[*n] (*n
 * incremented) unless h is NULL (hidden for good). False if libelf
 * refused. The file is never written: only libelf's copy changes. */
bool elf_section_hide(struct elfimg *img, size_t i, struct elf_hidden *h,
		      size_t *n);
/* Make what dwarf_begin_elf() will read of img inflate no more than the
 * last elf_dwarf_claim(img) counted: every DWARF section libdw 0.188
 * would have libelf inflate (by libdw's own choice of names, by
 * elf_strptr() as libdw names them) is given bytes memsz read and
 * checked, or hidden (elf_section_hide(), into h, room for img->nsecs).
 * An SHF_COMPRESSED one memsz inflates itself, to exactly the size the
 * claim read, from bytes whose header is the one the claim read, and
 * hands to libelf as the section's data, as elf_compress() would leave
 * it, without libelf's copy of the compressed bytes; a GNU ".zdebug_"
 * one is handed to libelf as memsz read it, its "ZLIB" header the
 * claimed one or none (libelf inflates it from there, as before). What
 * is hidden is what libelf would refuse to inflate (libdw then skips
 * it too), what changed since the claim (the file was rewritten), or
 * what memsz cannot hand over as libelf would. False (dwarf_begin_elf()
 * must not be called) if a section could be neither (elf/dwinflate.c). */
bool elf_dwarf_inflate(struct elfimg *img, struct elf_hidden *h, size_t *nh);
/* What dwarf_begin_elf() (and elf_dwarf_inflate() for it) would inflate
 * of img now, as the headers claim, read before anything is inflated:
 * *out the sum of the inflated sizes, *in that of the compressed
 * sections' sizes, at most the file's size (headers may share
 * bytes; each sum saturating). Counted: the SHF_COMPRESSED
 * sections libdw reads and its GNU ".zdebug_" ones with a "ZLIB"
 * header, not SHT_NOBITS in libelf's headers (what dwopen.c hides), not
 * in a group, every one of a name; each kept in img (struct elf_zsec)
 * for elf_dwarf_inflate(). Returns ELF_DWARF_READ, or why the
 * DWARF must not be read whatever it claims (*in, *out 0):
 * ELF_DWARF_ZNAMES, a compressed section-name table (SHF_COMPRESSED, or
 * GNU: a ".z" name or "ZLIB" bytes), which libdw's elf_strptr() reads
 * inflated and whose raw bytes (memsz's names) are not the names libdw
 * reads; no toolchain makes one. */
int elf_dwarf_claim(struct elfimg *img, uint64_t *in, uint64_t *out);
/* Why a dwz or .dwo file libdw would open makes the DWARF naming it
 * unread whatever the sizes: ref.why (enum elf_dwarf_refusal; 0: no
 * such reason), path (malloc'd) the file, err the error opening it (0 or
 * -errno). The first reason found is kept. */
struct elf_dwref {
	int why, err;
	char *path;
};
/* What the compressed DWARF of an image claims (dwopen.c's
 * elf_dwarf_open()). */
struct elf_zclaim {
	uint64_t in, out;     /* compressed bytes, inflated bytes claimed */
	bool linked;	      /* with its dwz and .dwo files' */
	struct elf_dwref ref; /* refused whatever the sizes: why */
};
/* True if the DWARF z is about must not be read: z->ref says why, or
 * z's sizes are past the bound of dwarf.h: more than
 * DWARF_INFLATE_BYTES_MAX and more than DWARF_INFLATE_RATIO_MAX times
 * the compressed bytes. */
bool elf_dwarf_refused(const struct elf_zclaim *z);
/* The stats of DWARF not read: refused as z says (z->out or z->ref.why
 * set), else libdw cannot read it (counted in st->dwarf_errors). */
void elf_dwarf_refused_stats(struct elfsrc_stats *st,
			     const struct elf_zclaim *z);
/* libdw's __libdw_filepath(): file if absolute, else under dir if that
 * is absolute, else under debugdir/dir (dir may be NULL). NULL if no
 * path can be made or it would be too long to open (names from a
 * hostile file can be gigabytes). Returns a malloc'd string
 * (elf/dwlinked.c). */
char *libdw_path(const char *debugdir, const char *dir, const char *file);
/* libdw's debugdir of img (__libdw_debugdir()): the directory of the
 * file its descriptor names (its real path), with a trailing slash; NULL
 * if unknown. malloc'd. */
char *libdw_debugdir(const struct elfimg *img);
/* The dwz file (.gnu_debugaltlink) of a libdw handle, which memsz opens
 * and checks itself, where libdw would, and hands to libdw
 * (dwarf_setalt()), so that libdw opens no other (elf/dwlinked.c, as
 * the .dwo files' claims). */
struct Dwarf;
struct elf_dwalt {
	struct elfimg *img; /* NULL: none found */
	struct Dwarf *dbg;  /* libdw's handle of it, once used */
};
/* Open the dwz file of dbg (the libdw handle of img) into alt, and
 * elf_dwarf_claim() it into *in, *out (0 if none); a reason to refuse
 * the DWARF whatever it claims into ref (see struct elf_dwref). */
void elf_dwarf_alt_claim(struct elfimg *img, struct Dwarf *dbg,
			 struct elf_dwalt *alt, uint64_t *in, uint64_t *out,
			 struct elf_dwref *ref);
/* Inflate alt's DWARF as elf_dwarf_inflate() does and hand it to dbg as
 * its dwz file; with none (none found, or none libdw reads), tell libdw
 * dbg has none, so that it never opens one by itself. */
void elf_dwarf_alt_use(struct elf_dwalt *alt, struct Dwarf *dbg);
/* Apply the relocations (SHT_RELA, SHT_REL) of the DWARF sections of
 * img, a relocatable file (else nothing to do), to the bytes libdw reads
 * of them (inflated, not hidden): S + A, S a symbol's address as
 * elfimg_open() laid its section out (RISC-V's ADD/SUB pairs: the
 * difference of two). Call after dwarf_begin_elf() (which
 * inflates), before libdw reads units. False if one is of a type memsz
 * does not apply or out of its section: then the DWARF must not be read,
 * and img's libelf handle be reopened (elfimg_reopen_elf()). */
bool elf_dwarf_relocate(struct elfimg *img);
/* Apply the relocations of section tgt of img, a relocatable file (else
 * nothing to do), to buf, a copy of its bytes (elfimg_section_read()),
 * as a linker would were the sections where elfimg_open() laid them out
 * (PC-relative ones too: .eh_frame's pointers). False if one is of a
 * type memsz does not apply or out of the section: buf is then not to be
 * read. */
bool elf_reloc_section(struct elfimg *img, size_t tgt, void *buf);
/* elf_reloc_section() of one relocation section, rel, to buf, a copy of
 * the bytes of its target (sh_info), xs the elf_reloc_xindex() of its
 * symbol table: for a caller that found each target's relocation section
 * once (a .o of 20 000 function sections: elf_reloc_section() of each
 * searched all 60 000, twice). */
bool elf_reloc_apply(struct elfimg *img, size_t rel, Elf_Data *xs, void *buf);
/* The SHT_SYMTAB_SHNDX data of symbol table symtab of img (its extended
 * section indexes), or NULL. */
Elf_Data *elf_reloc_xindex(struct elfimg *img, size_t symtab);
/* End and close alt (none is fine): after dwarf_end() of the handle it
 * was given to. */
void elf_dwarf_alt_end(struct elf_dwalt *alt);
/* elf_dwarf_claim() of the .dwo files libdw opens on its own for the
 * skeleton units of dbg (the libdw handle of img) and inflates whole,
 * each where libdw looks for it, each time a unit names one, summed into
 * *in, *out. Their names may be in the dwz file, which libdw opens to
 * read them: ask once it is handed over (elf_dwarf_alt_use()). A reason
 * to refuse the DWARF whatever it claims into ref. */
void elf_dwarf_claim_dwos(struct elfimg *img, struct Dwarf *dbg, uint64_t *in,
			  uint64_t *out, struct elf_dwref *ref);
/* dwarf_begin_elf() on dimg without the DWARF sections compileunits
 * (cus) or inlines never read, within dwarf.h's bound, z and alt as
 * elf/dwopen.c says; NULL if not read. Used by dwarf.c. */
struct Dwarf *elf_dwarf_open(struct elfimg *dimg, bool cus, bool line_raw,
			     struct elf_zclaim *z, struct elf_dwalt *alt);
/* Whether img holds DWARF units (.debug_info or .zdebug_info with
 * bytes; elf/dwopen.c). */
bool elf_has_dwarf(const struct elfimg *img);
/* Free what elf_dwarf_inflate() handed to libelf, and what
 * elf_dwarf_claim() kept: once priv->elf is ended. */
void elf_dwarf_inflated_free(struct elfimg_priv *priv);
/* End img's libelf handle for a new one on the same file (kept only if it
 * sees the same section table; else the old one stays): what libelf read
 * of its sections, and what elf_dwarf_inflate() handed it, is freed.
 * Pointers into section data read before are then invalid. Not its debug
 * image's; its other caches stay (elfimg_drop_data() frees those). */
void elfimg_reopen_elf(struct elfimg *img);

/* The file bytes of section i of img (not SHT_NOBITS, not empty), read
 * with pread into a buffer of memsz's own (xmalloc_huge(): a big one is
 * asked for transparent huge pages, a fault per 2 MiB rather than per
 * page), not libelf's copy that lives until the handle ends. NULL if
 * the file ends (is truncated) before the section does. Free with
 * xfree_huge(p, img->secs[i].size). */
unsigned char *elfimg_section_read(struct elfimg *img, size_t i);

/* CRC-32 (the .gnu_debuglink one: zlib's crc32()) of a file's first max
 * bytes (all of them when it is no longer). */
int elf_file_crc32(int fd, uint64_t max, uint32_t *out);

/* end = off + n * entsize, checked: -1 on overflow (elf/elfimg.c). */
int elf_table_end(uint64_t off, uint64_t n, uint64_t entsize, uint64_t *end);
/* The build-id of the ELF file open on fd into id, as
 * elf_build_id_read() reads it; one longer than max is cut to max bytes
 * if cut, else skipped (elf/buildid.c). */
int elf_build_id_scan(int fd, uint8_t *id, size_t max, bool cut);

/* A window of an image's file bytes read with pread (elf/elfraw.c): the
 * parts of a large section read in order, without libelf's copy of the
 * whole section (which lives until the image is closed). */
struct elf_window {
	int fd;
	unsigned char *buf; /* cap bytes once used; file bytes [off, +len) */
	size_t cap, len;
	uint64_t off;
};

/* Set w up over img's file with a buffer of cap bytes (allocated on first
 * use). */
void elf_window_init(struct elf_window *w, struct elfimg *img, size_t cap);
/* The len file bytes at off, or NULL if len > cap or the file ends (is
 * truncated) before off+len. A miss reads cap bytes from off on. The
 * pointer is valid until the next call or elf_window_free(). */
const unsigned char *elf_window_get(struct elf_window *w, uint64_t off,
				    size_t len);
/* elf_window_get(), a miss reading want bytes from off (len at least,
 * cap at most): a caller that knows how far ahead it will look reads no
 * more. */
const unsigned char *elf_window_get_ahead(struct elf_window *w, uint64_t off,
					  size_t len, size_t want);
/* The len file bytes at off if w holds them already (no read), else
 * NULL: a caller that works out how far to read ahead does so on a miss
 * only. */
const unsigned char *elf_window_held(const struct elf_window *w, uint64_t off,
				     size_t len);
void elf_window_free(struct elf_window *w);

/* Are img's loaded sections (SHF_ALLOC), but the empty ones and those
 * with one of skip_flags (SHF_TLS, SHF_EXECINSTR...), apart: none wraps
 * and, in address order, each [addr, addr + size) ends at or before the
 * next starts? Then an address or a range lies in one of them at most. */
bool elf_sections_apart(const struct elfimg *img, uint64_t skip_flags);

/* gelf_getsym() of entry i of d, the data of a symbol table of img (of
 * ELF_T_SYM, as elf_getdata() gives it): an ELFCLASS64 entry copied as it
 * is there (libelf's memory form of it is GElf_Sym), without a call into
 * libelf for each (a big table is walked three times), others through
 * libelf. Returns false where gelf_getsym() fails. */
static inline bool elf_sym_get(const struct elfimg *img, Elf_Data *d, size_t i,
			       GElf_Sym *sym)
{
	if (img->elfclass == ELFCLASS64 && d && d->d_type == ELF_T_SYM &&
	    i < d->d_size / sizeof(Elf64_Sym)) {
		memcpy(sym, (const char *)d->d_buf + i * sizeof(Elf64_Sym),
		       sizeof(*sym));
		return true;
	}
	return gelf_getsym(d, i, sym) != NULL;
}

#endif
