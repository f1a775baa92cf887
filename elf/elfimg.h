/* SPDX-License-Identifier: GPL-2.0-or-later */
/* elfimg.h — an ELF image on disk: its headers, its base DualMap and the data
 * sources (segments, sections, symbols) that label its bytes.
 *
 * Knows nothing of processes. Opens 32- and 64-bit, little- and big-endian
 * files through libelf, validates every header it uses against the file size
 * before use, and fails with a MEMSZ_E* code on anything inconsistent.
 */
#ifndef MEMSZ_ELF_ELFIMG_H
#define MEMSZ_ELF_ELFIMG_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "maps/labels.h"
#include "maps/rangemap.h"

struct elf_segment {
	uint32_t index; /* program header index: "LOAD #<index>" */
	uint32_t type;	/* PT_* */
	uint32_t flags; /* PF_R | PF_W | PF_X */
	uint64_t offset, vaddr, filesz, memsz, align;
};

struct elf_section {
	const char *name; /* borrowed from the image; "" if unnamed */
	uint32_t index, type, link, info;
	/* addr: sh_addr; in a relocatable file (ET_REL) the address
	 * elfimg_open() laid a loaded section out at, from rel_base */
	uint64_t flags, addr, offset, size, entsize, addralign;
};

/* Where elfimg_open() lays out the loaded sections of a relocatable file
 * (ET_REL), as a linker would: far from 0, where its unrelocated
 * addresses (DWARF, .eh_frame) are. */
#define ELF_REL_VM_BASE 0x100000000ull
/* and a 32-bit one's (i386, x32, ARM), whose DWARF and .eh_frame hold
 * 4-byte addresses: in their reach, still far from 0 */
#define ELF_REL_VM_BASE32 0x80000000ull

struct elfimg {
	char *path;	    /* as given to elfimg_open */
	uint64_t file_size; /* st_size of the file */
	int elfclass;	    /* ELFCLASS32 or ELFCLASS64 */
	bool big_endian;
	uint16_t type;		   /* ET_EXEC, ET_DYN, ... */
	uint16_t machine;	   /* EM_* */
	uint64_t ehdr_size;	   /* e_ehsize */
	uint64_t phoff, phdr_size; /* program header table [phoff, +size) */
	uint64_t shoff, shdr_size; /* section header table [shoff, +size) */

	struct elf_segment *segs; /* every program header, in order */
	size_t nsegs;
	struct elf_section *secs; /* every section header, index order */
	size_t nsecs;

	uint64_t vm_size;  /* sum of PT_LOAD p_memsz: the mapped VM size;
			      ET_REL: of its loaded sections' sizes */
	uint64_t rel_base; /* ET_REL: where its sections were laid out from
			      (ELF_REL_VM_BASE or ELF_REL_VM_BASE32) */

	uint8_t build_id[64]; /* NT_GNU_BUILD_ID descriptor, if any */
	size_t build_id_len;  /* 0: none */
	char *debuglink;      /* .gnu_debuglink file name, or NULL */
	uint32_t debuglink_crc;

	/* Separate debug file whose build-id matches (or debuglink CRC when
	 * the image has no build-id); NULL until elfimg_find_debug() found
	 * one. Owned by this image. */
	struct elfimg *debug;
	/* The first candidate elfimg_find_debug() found under a name it looks
	 * for but refused, or NULL; owned. debug_rejected_err says why: a
	 * negative code from opening it, or 0 when its build-id (or the
	 * debuglink CRC) does not match. */
	char *debug_rejected;
	int debug_rejected_err;
	/* or, when set, why its debuglink CRC was not read (a static
	 * string) */
	const char *debug_rejected_why;
	/* elfimg_find_debug() has run: later calls with the same
	 * debug_root return its answer without probing again (a miss is
	 * cached too). */
	bool debug_searched;

	void *priv; /* libelf handle and fd; private to elf/ */
};

/* Open and validate path. On success *out is a new image (close with
 * elfimg_close) and 0 is returned; else a negative code (-errno or
 * -MEMSZ_E*) and *out is untouched. Directories give -EISDIR, other
 * non-regular files and files without the ELF magic (empty ones too)
 * -MEMSZ_ENOTELF. Anything running past the end of the file (a header,
 * a header table, a non-NOBITS section, a segment's file bytes) gives
 * -MEMSZ_ETRUNC; impossible values -MEMSZ_EBADELF (ELF header),
 * -MEMSZ_EBADPHDR (entry size, wrapping range, PT_LOAD filesz > memsz,
 * two PT_LOADs overlapping in VM),
 * -MEMSZ_EBADSHDR (entry size, wrapping range, e_shstrndx out of range or
 * not a string table, a symbol table not linked to a string table);
 * a section name outside .shstrtab -MEMSZ_EBADSTRTAB. Symbol entries are
 * checked when the symbols source is built (elfimg_source_map). A FIFO
 * is never waited on: it is refused like any non-regular file. */
int elfimg_open(const char *path, struct elfimg **out);

/* True if img's file is no longer what was opened (its size or mtime
 * changed: truncated or rewritten while memsz read it), so that what was
 * read from it may be incomplete. The file is read, never mapped: such a
 * change gives short reads, never a SIGBUS. */
bool elfimg_changed(const struct elfimg *img);
/* Free what reading img's sections left in memory (libelf's copies of the
 * section data, the relocation cache), here and in its debug image: call
 * it when a map built from img is complete. Later reads read again.
 * NULL is fine. */
void elfimg_drop_data(struct elfimg *img);

/* Close img and its debug image. NULL is fine. */
void elfimg_close(struct elfimg *img);

/* Look for a separate debug file: /usr/lib/debug/.build-id/xx/rest.debug
 * by build-id, then .gnu_debuglink next to the image, in .debug/ beside it
 * and under /usr/lib/debug/<dir>/. A candidate is accepted only if its
 * build-id equals the image's (or, without build-ids, its CRC32 matches the
 * debuglink CRC). Candidates are opened in debug mode: their program
 * headers are not checked (`eu-strip -f` keeps the original ones in the
 * smaller .debug file); only sections, symbols and notes are used. A
 * candidate that exists but is refused is recorded in img->debug_rejected.
 * When none is found and $DEBUGINFOD_URLS is set, the file of the image's
 * build-id is fetched through libdebuginfod (its cache first) and checked
 * the same way; libdebuginfod is loaded then, on first use (a missing one
 * makes that first search return -MEMSZ_ENOLIB). Servers that fail make
 * this search return how (-ETIME: no answer in time; -EFBIG: over
 * $DEBUGINFOD_MAXSIZE). When $DEBUGINFOD_URLS names one server and it
 * cannot answer at all (no answer in time, refused, unreachable, reset),
 * it is not asked again in this process: later searches look only in
 * libdebuginfod's cache and, if it lacks the file, return -MEMSZ_EDIFDOWN
 * (elfimg_debuginfod_error() says how the server failed).
 * debug_root replaces "/usr/lib/debug" when not NULL (tests).
 * Searches once per image and debug_root: a later call with the same
 * debug_root returns the first answer without probing again. Returns 1 if found
 * (img->debug set), 0 if none, negative on error. */
int elfimg_find_debug(struct elfimg *img, const char *debug_root);

/* How the debuginfod server failed when elfimg_find_debug() stopped
 * asking it (-errno), or 0 while it is still asked. */
int elfimg_debuginfod_error(void);

/* Take the first of the n files paths (named by the user: --debug-file)
 * whose build-id equals img's (or, without build-ids, whose CRC32 matches
 * the debuglink CRC) as img's debug file, opened as elfimg_find_debug()
 * opens candidates. A file that does not match is not recorded in
 * img->debug_rejected: it may be another input's (the caller notes one
 * that is no input's). Returns 1 + the index of the one taken now, or 0
 * (none, or img->debug already set); elfimg_find_debug() searches as
 * usual then. */
int elfimg_use_debug_files(struct elfimg *img, const char *const *paths,
			   size_t n);

/* Open path for reading (a descriptor the caller closes) if it is a
 * regular file, *st its stat: anything else is looked at, never opened.
 * Returns the descriptor, -EISDIR, -MEMSZ_ENOTELF (a FIFO, a device...)
 * or -errno. */
struct stat;
int elf_file_open(const char *path, struct stat *st);

/* The NT_GNU_BUILD_ID descriptor of the ELF file open on fd, into id (at
 * most max bytes: a longer one is cut, as perf does): the first such note
 * of its SHT_NOTE sections, else of its PT_NOTE segments. Reads only the
 * ELF header, the section and program header tables and the note data
 * (at most 1 MiB of notes, all areas together), with pread (the file
 * offset is unchanged; nothing is mapped or kept).
 * Returns the id's length, 0 if none, -MEMSZ_ENOTELF if fd is not an ELF
 * file, or -errno if reading fails. */
int elf_build_id_read(int fd, uint8_t *id, size_t max);

/* The label of segment seg, "LOAD #<index> [RWX]" (letters present only:
 * "LOAD #3 [RX]"), into buf of len bytes (40 always suffice). */
void elfimg_load_label(const struct elf_segment *seg, char *buf, size_t len);
/* The fallback label of a section named name, "[section NAME]"; caller
 * frees. Made without printf, whose int length a name from a hostile
 * string table (gigabytes long) would overflow: the label interned is cut
 * (LABEL_LEN_MAX). */
char *elfimg_section_label(const char *name);

/* Hex string of the build-id into buf (2*len+1 bytes); "" if none. */
char *elfimg_build_id_hex(const struct elfimg *img, char *buf, size_t len);

/* The base map: VM and file space of the whole image with translation.
 * File: [0, file_size) fully covered, first writer wins in this order:
 * "[ELF Header]", "[ELF Program Headers]", "[ELF Section Headers]" (each
 * translated to VM when a PT_LOAD holds it), PT_LOAD segments
 * ("LOAD #<phdr index> [RWX]", letters present only: "LOAD #3 [RX]"), and
 * "[Unmapped]" for bytes no segment holds. VM: every PT_LOAD's
 * [vaddr, vaddr+memsz), translated to file for its first filesz bytes.
 * Returns 0. */
int elfimg_base_map(struct elfimg *img, struct labels *lb, struct dualmap *out);

enum elf_source {
	ELFSRC_SEGMENTS,
	ELFSRC_SECTIONS,
	ELFSRC_SYMBOLS,
	ELFSRC_BBS,
	ELFSRC_RELOCS,
	ELFSRC_COMPILEUNITS,
	ELFSRC_INLINES,
	ELFSRC__COUNT
};

/* Source by key name ("segments", "sections", "symbols", "compileunits",
 * "inlines"); -1 if none. */
int elfsrc_from_name(const char *name);
const char *elfsrc_name(enum elf_source src);

/* Why DWARF that is there is not read though its sizes are within
 * elf/dwarf.h's bound (elfsrc_stats.dwarf_refused). */
enum elf_dwarf_refusal {
	ELF_DWARF_READ,	    /* not refused so */
	ELF_DWARF_ZNAMES,   /* a compressed section-name table */
	ELF_DWARF_LINK_ODD, /* a dwz or .dwo file that is not a regular
			       file or not ELF memsz can read */
	ELF_DWARF_DWO_ALT,  /* a .dwo file naming a dwz file of its own */
	ELF_DWARF_RELOC,    /* a relocatable file's DWARF relocation that
			       memsz does not apply */
	ELF_DWARF_REFUSAL__COUNT
};

/* Why the MiniDebugInfo of an image (the xz-compressed ELF file of its
 * .gnu_debugdata section) was not read (elfsrc_stats.mdi_why;
 * elf/minidebug.h). */
enum elf_mdi_why {
	ELF_MDI_READ,	    /* read, or there is none */
	ELF_MDI_XZ_BAD,	    /* not one whole xz stream: corrupt, truncated */
	ELF_MDI_TOO_BIG,    /* its index declares more than the bound */
	ELF_MDI_OVERSIZE,   /* it inflates past what its index declares */
	ELF_MDI_MEMLIMIT,   /* decoding it needs more memory than allowed */
	ELF_MDI_NO_MEMFD,   /* no memory file to inflate it into */
	ELF_MDI_NOT_ELF,    /* the payload is no ELF file memsz can read */
	ELF_MDI_FOREIGN,    /* another class, byte order or machine */
	ELF_MDI_NO_SYMTAB,  /* the payload has no .symtab */
	ELF_MDI_BAD_SYMTAB, /* its .symtab cannot be read */
	ELF_MDI_WHY__COUNT
};

/* Counts of what a source could not use exactly (shown in footers). */
struct elfsrc_stats {
	uint64_t symbols; /* symbols labelled */
	uint64_t aliases; /* symbols folded into another (same range) */
	uint64_t clipped; /* symbols cut to their section's end */
	/* symbols left out: their table's names add up past 4 times its
	 * string table (overlapping names; symtab.c) */
	uint64_t names_dropped;
	bool used_debug_file; /* symbols came from img->debug */
	bool used_dynsym;     /* no .symtab anywhere: .dynsym used */
	/* no .symtab anywhere: the MiniDebugInfo's symbols labelled (less
	 * those .dynsym has too), those dropped (their section is none of
	 * the file's, or they lie outside it); why it was not read (enum
	 * elf_mdi_why; 0: read, or none) and the error opening it; its
	 * compressed and declared inflated sizes; whether it holds a
	 * .gnu_debugdata of its own (never read) */
	uint64_t mdi_symbols, mdi_dropped, mdi_zsize, mdi_size;
	int mdi_why, mdi_err;
	bool mdi_found, mdi_nested;
	uint64_t bb_functions, bb_blocks; /* bbs: what the map held */
	int bb_error; /* bbs: why reading the map stopped, or 0 */
	/* relocs: RELATIVE relocations (all tables), those in REL/RELA
	 * tables and the bytes of their entries; bytes of SHT_RELR tables;
	 * bytes every RELATIVE one would take as RELR words; entries or
	 * sections elf_relocs_read() skipped. */
	uint64_t rel_relative, rel_relative_rela, rel_relative_bytes;
	uint64_t relr_bytes, relr_estimate, rel_skipped;
	/* compileunits, inlines (DWARF; see elf/dwarf.h) */
	/* symbols, compileunits, inlines: bytes of a .o's .eh_frame whose
	 * relocations memsz does not apply (its FDEs not charged) */
	uint64_t eh_unrelocated;
	/* symbols, compileunits, inlines: LSDAs (.gcc_except_table, or
	 * after an .ARM.extab entry's unwind data: a generic routine's, or
	 * a compact model's descriptor list) pointed to that could not be
	 * decoded, left under their section's label */
	uint64_t lsda_skipped;
	uint64_t units;		/* compile units that labelled bytes */
	uint64_t split_missing; /* skeleton units whose .dwo was not found */
	/* split units read from the DWARF package (FILE.dwp, elf/dwp.h),
	 * index rows or ids of it refused, why it was not read (-errno or
	 * -MEMSZ_E*; 0: read, or none there), and its path ("": none) */
	uint64_t split_dwp, dwp_bad;
	/* skeleton units it has no unit for, and why if it tells (elf/dwp.h's
	 * enum dwp_absent) */
	uint64_t dwp_absent;
	int dwp_absent_why;
	/* variables of those units left unsized: their type is in a type
	 * unit (DW_FORM_ref_sig8) the package does not give */
	uint64_t dwp_types_missing;
	/* the same from .dwo files: their type unit not in the .dwo, or
	 * past elf/dwotypes.h's ELF_DWARF_SIG8_UNITS */
	uint64_t dwo_types_missing;
	/* .dwo files whose DWARF sections are in pieces (gcc's
	 * -fdebug-types-section), of which libdw reads the first: read
	 * joined (elf/dwotypes.h's dwo_join_file()), or not, and why (its
	 * DWO_JOIN_*) */
	uint64_t dwo_joined, dwo_unjoined;
	int dwo_unjoined_why;
	const char *dwo_unjoined_sec; /* the last's section in pieces */
	int dwp_err;
	char dwp_path[PATH_MAX];
	uint64_t dwarf_errors; /* units or tables libdw could not read */
	bool dwarf_from_debug; /* the DWARF came from img->debug */
	bool no_dwarf;	       /* no DWARF anywhere: all is fallback */
	/* DWARF not read (no_dwarf): its compressed sections, dwarf_zbytes
	 * bytes, claim dwarf_zclaim inflated, past elf/dwarf.h's bound; in
	 * img->debug if dwarf_from_debug; with those of the dwz and .dwo
	 * files it names if dwarf_zlinked */
	uint64_t dwarf_zbytes, dwarf_zclaim;
	bool dwarf_zlinked;
	/* DWARF not read (no_dwarf) whatever it claims: why (enum
	 * elf_dwarf_refusal; 0: not so), in dwarf_zfile (a dwz or .dwo
	 * file it names; "": the image's) and the error opening it
	 * (dwarf_zerr, -errno or 0) */
	int dwarf_refused, dwarf_zerr;
	char dwarf_zfile[PATH_MAX];
	/* symbols, compileunits, inlines with elf_map_opts.disasm: data
	 * ranges given to the code that refers to them, and their bytes;
	 * or why code was not decoded: not x86-64 (xref_unsupported), or
	 * the decoder could not be loaded (xref_error, -MEMSZ_ENOLIB) */
	uint64_t xref_targets, xref_bytes;
	bool xref_unsupported;
	int xref_error;
};

/* elf_map_opts.disasm: code-to-data references off, on, or on with a
 * footer note per image and key counting the data ranges and bytes given
 * to code (the commands: when --disasm is given; on by default it would
 * be one more line in every footer). */
enum elf_disasm { ELF_DISASM_OFF, ELF_DISASM_ON, ELF_DISASM_COUNTED };

/* How the maps of an image are built; zeroed (or a NULL pointer to it):
 * the defaults. */
struct elf_map_opts {
	/* debug files named by the user, tried before the search
	 * (elfimg_use_debug_files); borrowed */
	const char *const *debug_files;
	size_t ndebug_files;
	/* set by the sources that look for a debug file: debug_used[i]
	 * when debug_files[i] was taken for an image, *debug_looked when
	 * they were tried for one; NULL: not told */
	bool *debug_used, *debug_looked;
	/* where separate debug files are looked for (elfimg_find_debug);
	 * NULL: /usr/lib/debug */
	const char *debug_root;
	/* the symbols, compileunits and inlines sources of x86-64 images
	 * also charge the unlabelled data that code addresses (RIP-relative;
	 * absolutely in ET_EXEC) to the referring code (Zydis;
	 * elf/xrefs.c): ELF_DISASM_ON or _COUNTED. The commands turn it on
	 * unless --no-disasm; zeroed options leave it off. */
	unsigned disasm;
	/* how symbol labels are spelled: enum elf_demangle_style (zero:
	 * ELF_DEMANGLE_FULL) */
	unsigned demangle;
};

/* Label every byte of img for source src into out (initialised with
 * dualmap_init by the caller): the source's own labels first, then
 * fallbacks ("[section .x]" for symbols, then "LOAD #n [RX]",
 * "[ELF Header]", "[ELF Program Headers]", "[ELF Section Headers]",
 * "[Unmapped]") so that out->file covers [0, file_size) and out->vm covers
 * exactly the base map's VM. base is elfimg_base_map()'s result. opts
 * (NULL: defaults) says whether to disassemble (its debug_root is not
 * read: look for a debug file first). stats may be NULL. Returns 0 or a
 * negative code.
 *
 * segments: "TLS" (PT_TLS: its file bytes and [vaddr, vaddr+filesz) in VM;
 *   the .tbss tail has no address in the image), then the PT_LOADs.
 * sections: section names; SHF_ALLOC ones in VM (clipped to the base VM)
 *   and file, others file only, NOBITS VM only. .tbss (SHF_TLS NOBITS) gets
 *   nothing: it is the template of per-thread blocks the TLS runtime
 *   allocates, and its sh_addr overlaps the sections after it.
 * symbols: .symtab, else img->debug's .symtab, else .dynsym. STT_FUNC,
 *   STT_OBJECT, STT_GNU_IFUNC and STT_TLS with st_size > 0 in a real
 *   section (not UNDEF/ABS/COMMON), VM [value, value+size) through base
 *   (bit 0 cleared for EM_ARM functions). An STT_TLS value is an offset
 *   into PT_TLS: a .tdata symbol labels its initialiser there, a .tbss one
 *   only its symbol table entries (by name). A symbol of a non-loaded
 *   section (.gnu.warning.*) labels its file bytes only.
 *   C++ and Rust names are demangled. Symbols of the same address and
 *   size are one entry labelled by the first (GLOBAL before WEAK before LOCAL,
 * then lexical); the other names are labels_add_alias()ed. Symbols of the same
 * name but different ranges (two static foo()) share the one label, as in
 * Bloaty. A used symbol starting outside its section gives -MEMSZ_EBADSYM (so
 * do a wrong sh_entsize and st_shndx >= shnum); one running past its section's
 * end is clipped (stats->clipped); a name outside the string table gives
 * -MEMSZ_EBADSTRTAB. Then, before the fallbacks, metadata goes to the symbol it
 * serves (file, and VM for loaded sections): each .eh_frame FDE and
 *   .eh_frame_hdr table entry to the symbol of its function, each dynamic
 *   relocation entry (RELR: word, to its first address in a symbol) to
 *   the symbol it patches, each .symtab/.dynsym entry of a labelled
 *   symbol with its name and .gnu.version entry to that symbol (see
 *   ehframe.h, relocs.h); gaps between symbols that the next symbol's
 *   alignment explains and filler bytes fill are "[padding]". Metadata
 *   that cannot be decoded is left to the fallbacks, never an error.
 * bbs: basic blocks of SHT_LLVM_BB_ADDR_MAP sections (elf/bbaddrmap.h),
 *   "FUNCTION#ID" over each block's VM and file bytes, then the fallbacks
 *   of symbols ("[section .text]", ...). A map that cannot be read to its
 *   end is used up to there (stats->bb_error says why).
 * relocs: the entries of the dynamic relocation tables by type
 *   ("R_X86_64_RELATIVE", "R_X86_64_RELATIVE (RELR)"; elf/relocsrc.h),
 *   then the fallbacks of symbols.
 * compileunits, inlines: from DWARF (libdw), in img or else img->debug;
 *   then the symbols' fallbacks ("[section .x]", ...). See elf/dwarf.h. */
int elfimg_source_map(struct elfimg *img, enum elf_source src,
		      const struct elf_map_opts *opts, struct labels *lb,
		      struct dualmap *base, struct dualmap *out,
		      struct elfsrc_stats *stats);

/* Demangle a symbol name: C++ (Itanium ABI) exactly as c++filt prints it
 * (a trailing "@VERSION" or other non-name text kept as it is), Rust
 * legacy and v0 names as rustfilt prints them (libiberty both). Returns
 * a malloc'd string, or NULL if name is not mangled, not valid, longer
 * than 16 KiB, or its demangled form would pass 256 KiB (see demangle.c). */
char *elf_demangle(const char *name);

/* How symbol names are shown: demangled as c++filt prints them (the
 * default), without C++ parameter lists (c++filt -p; Rust names as
 * above), or as stored. */
enum elf_demangle_style {
	ELF_DEMANGLE_FULL,
	ELF_DEMANGLE_SHORT,
	ELF_DEMANGLE_NONE,
};

/* elf_demangle() in style style; NONE: always NULL. */
char *elf_demangle_as(const char *name, enum elf_demangle_style style);
struct strbuf;
/* elf_demangle_as() into sb (emptied first; its memory reused, for a
 * caller demangling many names): true if name was demangled, else sb is
 * left empty. */
bool elf_demangle_to(const char *name, enum elf_demangle_style style,
		     struct strbuf *sb);

/* The whole file of img, read into memory on the first call (a copy: a
 * change to the file later cannot fault), its size in *len (shorter than
 * file_size if it was truncated meanwhile); NULL (*len 0) for an empty
 * file. Borrowed: valid until elfimg_close(img). (elf/elfraw.c) */
const void *elfimg_raw(struct elfimg *img, size_t *len);

#endif
