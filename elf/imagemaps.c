// SPDX-License-Identifier: GPL-2.0-or-later
/* imagemaps.c — see imagemaps.h */
#include "config.h"

#include "elf/imagemaps.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf/dwarf.h"
#include "elf/dwp.h"
#include "elf/minidebug.h"
#include "util/strbuf.h"
#include "util/util.h"

/* What the bbs source found (nothing is news: no map in the image). */
static void bbs_notes(struct strlist *notes, const char *path,
		      const struct elfsrc_stats *st)
{
	if (st->bb_error)
		strlist_add_notef(notes, NOTE_BBS_ERROR, path,
				  "%s: basic block address map read "
				  "up to a record it cannot use (%s): "
				  "%llu functions, %llu blocks",
				  path, memsz_strerror(st->bb_error),
				  (unsigned long long)st->bb_functions,
				  (unsigned long long)st->bb_blocks);
}

/* The RELR estimate of the relocs source: what the RELATIVE relocations
 * take now and what the jump+bitmap encoding of .relr.dyn would take. */
static void relr_note(struct strlist *notes, const char *path,
		      const struct elfsrc_stats *st)
{
	unsigned long long k = st->rel_relative, m = st->rel_relative_bytes;
	unsigned long long r = st->relr_bytes, e = st->relr_estimate;

	if (st->rel_skipped)
		strlist_add_notef(notes, NOTE_RELOC_ERRORS, path,
				  "%s: %llu relocation entries or "
				  "tables could not be read",
				  path, (unsigned long long)st->rel_skipped);
	if (!k)
		return;
	if (!r)
		strlist_add_notef(notes, NOTE_RELR, path,
				  "%s: RELR would take %llu bytes "
				  "instead of %llu for the %llu relative "
				  "relocations (ld -z "
				  "pack-relative-relocs)",
				  path, e, m, k);
	else
		strlist_add_notef(notes, NOTE_RELR_STATS, path,
				  "%s: %llu relative relocations take "
				  "%llu bytes of RELR and %llu of "
				  "REL/RELA (%llu relocations); all as "
				  "RELR: %llu bytes",
				  path, k, r, m,
				  (unsigned long long)st->rel_relative_rela, e);
}

/* What of the MiniDebugInfo (.gnu_debugdata) was not read, in one note:
 * the whole of it and why, or the symbols left out, and a nested one. */
static void minidebug_note(struct strlist *notes, const char *path,
			   const struct elfsrc_stats *st)
{
	struct strbuf sb = STRBUF_INIT;

	if (st->mdi_why) {
		strbuf_addf(&sb, "not read: %s",
			    elf_minidebug_why_str(st->mdi_why));
		if (st->mdi_err)
			strbuf_addf(&sb, " (%s)", memsz_strerror(st->mdi_err));
		if (st->mdi_why == ELF_MDI_TOO_BIG)
			strbuf_addf(&sb,
				    ": %llu bytes inflated from %llu, over "
				    "%llu MiB and %llu times as many",
				    (unsigned long long)st->mdi_size,
				    (unsigned long long)st->mdi_zsize,
				    MDI_INFLATE_BYTES_MAX >> 20,
				    MDI_INFLATE_RATIO_MAX);
	} else if (st->mdi_dropped) {
		strbuf_addf(&sb,
			    "%llu symbols left out: their section is none of "
			    "the file's, or they lie outside it",
			    (unsigned long long)st->mdi_dropped);
	}
	if (st->mdi_nested)
		strbuf_addf(&sb, "%sits own .gnu_debugdata not read",
			    sb.len ? "; " : "");
	if (sb.len)
		strlist_add_notef(notes, NOTE_MINIDEBUG_DROPPED, path,
				  "%s: MiniDebugInfo (.gnu_debugdata): %s",
				  path, sb.buf);
	strbuf_free(&sb);
}

static void source_notes(struct strlist *notes, const char *path,
			 const struct elfimg *img,
			 const struct elfsrc_stats *st)
{
	if (st->used_debug_file && img->debug)
		strlist_add_notef(notes, NOTE_DEBUG_USED, path,
				  "%s: symbols from debug file '%s'", path,
				  img->debug->path);
	if (st->mdi_symbols)
		strlist_add_notef(notes, NOTE_MINIDEBUG, path,
				  "%s: no .symtab: %llu symbols of its "
				  "MiniDebugInfo (.gnu_debugdata) are "
				  "named%s",
				  path, (unsigned long long)st->mdi_symbols,
				  st->used_dynsym
				      ? ", with the dynamic symbols "
					"(.dynsym)"
				      : "");
	else if (st->used_dynsym)
		strlist_add_notef(notes, NOTE_DYNSYM, path,
				  "%s: no .symtab, only the dynamic "
				  "symbols (.dynsym) are named",
				  path);
	minidebug_note(notes, path, st);
	if (st->aliases)
		strlist_add_notef(notes, NOTE_ALIASES, path,
				  "%s: %llu symbols share an address "
				  "and size with another and are "
				  "counted as its aliases",
				  path, (unsigned long long)st->aliases);
	bbs_notes(notes, path, st);
	relr_note(notes, path, st);
	if (st->clipped)
		strlist_add_notef(notes, NOTE_CLIPPED, path,
				  "%s: %llu symbols run past the end "
				  "of their section and were cut "
				  "there",
				  path, (unsigned long long)st->clipped);
	if (st->names_dropped)
		strlist_add_notef(notes, NOTE_NAMES_DROPPED, path,
				  "%s: %llu symbols left out: the names of "
				  "their symbol table add up past 4 times "
				  "its string table (names overlap, as no "
				  "linker writes them)",
				  path, (unsigned long long)st->names_dropped);
}

/* The code-to-data references of a symbols, compileunits or inlines map:
 * the data ranges given to the code that refers to them and their bytes,
 * or why none were looked for (another machine than x86-64, no Zydis). */
static void disasm_note(struct strlist *notes, const char *path,
			enum elf_source src, const struct elfsrc_stats *st,
			const struct elf_map_opts *opts)
{
	if (!opts || !opts->disasm ||
	    (src != ELFSRC_SYMBOLS && src != ELFSRC_COMPILEUNITS &&
	     src != ELFSRC_INLINES))
		return;
	if (st->xref_unsupported)
		strlist_add_notef(notes, NOTE_NO_DISASM, path,
				  "%s: %s: code-to-data references are "
				  "read in x86-64 code only; data no label "
				  "covers stays [section ...]",
				  path, elfsrc_name(src));
	else if (st->xref_error)
		strlist_add_notef(notes, NOTE_NO_DISASM, path,
				  "%s: %s: code-to-data references not "
				  "read: %s (install libzydis4.0)",
				  path, elfsrc_name(src),
				  memsz_strerror(st->xref_error));
	else if (opts->disasm == ELF_DISASM_COUNTED)
		strlist_add_notef(notes, NOTE_DISASM, path,
				  "%s: %s: code-to-data references "
				  "charged %llu data ranges (%llu bytes) "
				  "to the code that refers to them",
				  path, elfsrc_name(src),
				  (unsigned long long)st->xref_targets,
				  (unsigned long long)st->xref_bytes);
}

/* DWARF left unread: its compressed sections claim more inflated bytes
 * than memsz inflates for one image (elf/dwarf.h). */
static void dwarf_refused_note(struct strlist *notes, const char *path,
			       const struct elfimg *img, enum elf_source src,
			       const struct elfsrc_stats *st)
{
	const char *dbg =
	    st->dwarf_from_debug && img->debug ? img->debug->path : NULL;

	strlist_add_notef(notes, NOTE_DWARF_REFUSED, path,
			  "%s: %s: DWARF%s%s%s not read: its compressed "
			  "sections%s claim %llu bytes inflated from %llu, "
			  "over %llu MiB and %llu times as many",
			  path, elfsrc_name(src), dbg ? " of debug file '" : "",
			  dbg ? dbg : "", dbg ? "'" : "",
			  st->dwarf_zlinked ? " and those of the dwz and .dwo "
					      "files it names"
					    : "",
			  (unsigned long long)st->dwarf_zclaim,
			  (unsigned long long)st->dwarf_zbytes,
			  (unsigned long long)(DWARF_INFLATE_BYTES_MAX >> 20),
			  (unsigned long long)DWARF_INFLATE_RATIO_MAX);
}

/* Why DWARF is refused whatever it claims (elfsrc_stats.dwarf_refused),
 * said of the image or of the linked file it names. */
static const char *const refusal_text[ELF_DWARF_REFUSAL__COUNT] = {
    [ELF_DWARF_ZNAMES] = "its section-name table (.shstrtab) is compressed, "
			 "which no toolchain makes: libdw would inflate it "
			 "whole and read other sections than those checked",
    [ELF_DWARF_LINK_ODD] = "libdw would open it unchecked, and it is not a "
			   "regular ELF file memsz can read",
    [ELF_DWARF_DWO_ALT] = "it names a dwz file of its own "
			  "(.gnu_debugaltlink), which no tool makes and "
			  "libdw would open unchecked",
    [ELF_DWARF_RELOC] = "a relocation of its DWARF (.rel[a].debug_*) is of "
			"a type memsz does not apply, or out of its section",
};

/* DWARF left unread whatever it claims: why (elfsrc_stats.dwarf_refused),
 * naming the dwz or .dwo file it is about, if any, and the error. */
static void dwarf_refusal_note(struct strlist *notes, const char *path,
			       const struct elfimg *img, enum elf_source src,
			       const struct elfsrc_stats *st)
{
	const char *dbg =
	    st->dwarf_from_debug && img->debug ? img->debug->path : NULL;
	const char *file = st->dwarf_zfile;

	strlist_add_notef(
	    notes, NOTE_DWARF_REFUSED, path,
	    "%s: %s: DWARF%s%s%s not read: %s%s%s%s%s%s", path,
	    elfsrc_name(src), dbg ? " of debug file '" : "", dbg ? dbg : "",
	    dbg ? "'" : "", file[0] ? "it names '" : "", file,
	    file[0] ? "', a dwz or .dwo file: " : "",
	    refusal_text[st->dwarf_refused], st->dwarf_zerr ? ": " : "",
	    st->dwarf_zerr ? memsz_strerror(st->dwarf_zerr) : "");
}

/* Why a DWARF package had no unit for skeleton units (dwp_notes()). */
static const char *dwp_absent_why(int why)
{
	switch (why) {
	case DWP_ABSENT_ID0:
		return ": it has a unit of DWO id 0 (binutils' dwp writes 0 "
		       "for an id it cannot read)";
	case DWP_ABSENT_V5:
		return ": they are DWARF 5 and its index GNU's version 2 "
		       "(binutils' dwp drops DWARF 5 units)";
	default:
		return "";
	}
}

/* The DWARF package (FILE.dwp) split units came from, or why it, or some
 * of its index, was not read. */
static void dwp_notes(struct strlist *notes, const char *path,
		      enum elf_source src, const struct elfsrc_stats *st)
{
	const char *key = elfsrc_name(src);

	if (st->dwp_err)
		strlist_add_notef(notes, NOTE_SPLIT_MISSING, path,
				  "%s: %s: DWARF package '%s' not read: %s",
				  path, key, st->dwp_path,
				  memsz_strerror(st->dwp_err));
	if (st->dwp_bad)
		strlist_add_notef(notes, NOTE_SPLIT_MISSING, path,
				  "%s: %s: DWARF package '%s': %llu units of "
				  "its index not read (a row out of its "
				  "sections or past its units, an id in two "
				  "slots, or a unit not of the id it is "
				  "filed under)",
				  path, key, st->dwp_path,
				  (unsigned long long)st->dwp_bad);
	if (st->dwp_absent)
		strlist_add_notef(notes, NOTE_SPLIT_MISSING, path,
				  "%s: %s: DWARF package '%s': %llu skeleton "
				  "units have no unit of their DWO id in it%s",
				  path, key, st->dwp_path,
				  (unsigned long long)st->dwp_absent,
				  dwp_absent_why(st->dwp_absent_why));
	if (st->dwp_types_missing)
		strlist_add_notef(notes, NOTE_SPLIT_MISSING, path,
				  "%s: %s: DWARF package '%s': %llu variables "
				  "not sized, their type in a type unit "
				  "(DW_FORM_ref_sig8) it does not give: their "
				  "bytes are under fallback labels",
				  path, key, st->dwp_path,
				  (unsigned long long)st->dwp_types_missing);
	if (st->dwo_types_missing)
		strlist_add_notef(notes, NOTE_SPLIT_MISSING, path,
				  "%s: %s: %llu variables of .dwo files not "
				  "sized, their type in a type unit "
				  "(DW_FORM_ref_sig8) not in their .dwo, or "
				  "in two of its units: their bytes are under "
				  "fallback labels",
				  path, key,
				  (unsigned long long)st->dwo_types_missing);
	if (st->dwo_unjoined)
		strlist_add_notef(notes, NOTE_SPLIT_MISSING, path,
				  "%s: %s: %llu .dwo files have their %s in "
				  "pieces (-fdebug-types-section), of which "
				  "libdw reads the first, not read joined: %s: "
				  "the units in the other pieces are not found",
				  path, key,
				  (unsigned long long)st->dwo_unjoined,
				  st->dwo_unjoined_sec ? st->dwo_unjoined_sec
						       : "DWARF section",
				  dwo_join_why(st->dwo_unjoined_why));
	if (st->dwo_joined)
		strlist_add_notef(notes, NOTE_DEBUG_USED, path,
				  "%s: %s: %llu .dwo files read with their "
				  "DWARF sections joined: a section of theirs "
				  "is in pieces (-fdebug-types-section), of "
				  "which libdw reads the first",
				  path, key,
				  (unsigned long long)st->dwo_joined);
	if (st->split_dwp)
		strlist_add_notef(notes, NOTE_DEBUG_USED, path,
				  "%s: %s: %llu split DWARF units from DWARF "
				  "package '%s'",
				  path, key, (unsigned long long)st->split_dwp,
				  st->dwp_path);
}

static void dwarf_notes(struct strlist *notes, const char *path,
			const struct elfimg *img, enum elf_source src,
			const struct elfsrc_stats *st)
{
	const char *key = elfsrc_name(src);

	if (st->dwarf_refused > ELF_DWARF_READ &&
	    st->dwarf_refused < ELF_DWARF_REFUSAL__COUNT) {
		dwarf_refusal_note(notes, path, img, src, st);
		return;
	}
	if (st->dwarf_zclaim) {
		dwarf_refused_note(notes, path, img, src, st);
		return;
	}
	if (st->no_dwarf && !st->dwarf_errors)
		strlist_add_notef(notes, NOTE_NO_DWARF, path,
				  "%s: %s: no DWARF in the file nor "
				  "in a debug file",
				  path, key);
	else if (st->no_dwarf)
		strlist_add_notef(notes, NOTE_NO_DWARF, path,
				  "%s: %s: libdw cannot read its "
				  "DWARF",
				  path, key);
	else if (st->dwarf_errors)
		strlist_add_notef(notes, NOTE_DWARF_ERRORS, path,
				  "%s: %s: %llu DWARF units or "
				  "tables could not be read",
				  path, key,
				  (unsigned long long)st->dwarf_errors);
	if (st->dwarf_from_debug && img->debug)
		strlist_add_notef(notes, NOTE_DEBUG_USED, path,
				  "%s: %s from debug file '%s'", path, key,
				  img->debug->path);
	dwp_notes(notes, path, src, st);
	if (st->split_missing)
		strlist_add_notef(notes, NOTE_SPLIT_MISSING, path,
				  "%s: %s: %llu split DWARF units "
				  "(.dwo) not found",
				  path, key,
				  (unsigned long long)st->split_missing);
}

bool elf_label_is_fallback(enum elf_source src, const char *label)
{
	if (label[0] != '[' && label[0] != 'L')
		return false; /* every symbol, file and line: the hot path */
	if (!strncmp(label, "[section ", 9))
		return true;
	if (!strncmp(label, "LOAD #", 6))
		return src != ELFSRC_SEGMENTS;
	if (!strcmp(label, "[ELF Header]") ||
	    !strcmp(label, "[ELF Program Headers]") ||
	    !strcmp(label, "[ELF Section Headers]"))
		return src != ELFSRC_SEGMENTS && src != ELFSRC_SECTIONS;
	return !strcmp(label, "[Unmapped]");
}

/* A debug file that was found but refused: say why symbols lack names. */
static void debug_note(struct strlist *notes, const char *path,
		       const struct elfimg *img)
{
	const char *why;

	if (img->debug || !img->debug_rejected)
		return;
	if (img->debug_rejected_why)
		why = img->debug_rejected_why;
	else if (img->debug_rejected_err)
		why = memsz_strerror(img->debug_rejected_err);
	else if (img->build_id_len)
		why = "build-id does not match";
	else
		why = "CRC does not match";
	strlist_add_notef(notes, NOTE_DEBUG_REJECTED, path,
			  "%s: debug file '%s' rejected: %s", path,
			  img->debug_rejected, why);
}

int imgmaps_open(struct imgmaps *im, const char *path, struct labels *lb)
{
	int ret;

	ret = elfimg_open(path, &im->img);
	if (ret < 0) {
		im->img = NULL;
		return ret;
	}
	dualmap_init(&im->base);
	ret = elfimg_base_map(im->img, lb, &im->base);
	if (ret < 0)
		imgmaps_close(im);
	return ret;
}

/* Sources that look for a separate debug file first. */
static bool uses_debug(enum elf_source src)
{
	return src == ELFSRC_SYMBOLS || src == ELFSRC_BBS ||
	       src == ELFSRC_COMPILEUNITS || src == ELFSRC_INLINES;
}

/* For a source that uses a separate debug file: look for it (once per
 * image: the search is cached) and say what the look-up found, with the
 * first such source only. */
static void debug_lookup(struct imgmaps *im, const struct elf_map_opts *opts,
			 struct strlist *notes)
{
	const char *path = im->img->path;
	/* The first such key searches and notes; the search is
	 * cached in the image, so the others would repeat it. */
	bool first = true;
	int ret;

	for (size_t i = 0; i < ELFSRC__COUNT; i++)
		if (im->built[i] && uses_debug(i))
			first = false;
	if (opts && opts->ndebug_files) {
		int k = elfimg_use_debug_files(im->img, opts->debug_files,
					       opts->ndebug_files);

		if (k && opts->debug_used)
			opts->debug_used[k - 1] = true;
		if (opts->debug_looked)
			*opts->debug_looked = true;
	}
	ret = elfimg_find_debug(im->img, opts ? opts->debug_root : NULL);
	/* libdebuginfod missing, or its servers failed */
	if (ret == -MEMSZ_EDIFDOWN && first)
		strlist_add_notef(notes, NOTE_DEBUG_LOOKUP, path,
				  "%s: looking for a debug file: %s "
				  "(%s)",
				  path, memsz_strerror(ret),
				  memsz_strerror(elfimg_debuginfod_error()));
	else if (ret < 0 && first)
		strlist_add_notef(
		    notes, NOTE_DEBUG_LOOKUP, path,
		    "%s: looking for a debug "
		    "file%s: %s",
		    path,
		    ret == -MEMSZ_ENOLIB ? "" : " on the debuginfod servers",
		    memsz_strerror(ret));
	if (first)
		debug_note(notes, path, im->img);
}

int imgmaps_source(struct imgmaps *im, enum elf_source src, struct labels *lb,
		   const struct elf_map_opts *opts, struct strlist *notes,
		   struct dualmap **out)
{
	const char *path = im->img->path;
	struct elfsrc_stats st = {0};
	int ret;

	if (im->built[src]) {
		*out = &im->src[src];
		return 0;
	}
	if (uses_debug(src))
		debug_lookup(im, opts, notes);
	dualmap_init(&im->src[src]);
	im->built[src] = true;
	ret = elfimg_source_map(im->img, src, opts, lb, &im->base,
				&im->src[src], &st);
	/* the map holds copies of all it needs: the section data read to
	 * build it would otherwise live as long as the image */
	elfimg_drop_data(im->img);
	if (!im->changed_noted && elfimg_changed(im->img)) {
		im->changed_noted = true;
		strlist_add_notef(notes, NOTE_IMAGE_CHANGED_READ, path,
				  "%s: changed (truncated or rewritten) while "
				  "it was read: its rows may be incomplete",
				  path);
	}
	/* so may its debug file, whose symbols and DWARF the rows hold */
	if (!im->debug_changed_noted && im->img->debug &&
	    elfimg_changed(im->img->debug)) {
		im->debug_changed_noted = true;
		/* about the image (its rows, what --filter keeps, the
		 * summary's count of images): the text names the file */
		strlist_add_notef(notes, NOTE_IMAGE_CHANGED_READ, path,
				  "%s: its debug file '%s' changed (truncated "
				  "or rewritten) while it was read: its rows "
				  "may be incomplete",
				  path, im->img->debug->path);
	}
	if (ret < 0)
		return ret;
	source_notes(notes, path, im->img, &st);
	disasm_note(notes, path, src, &st, opts);
	if (st.eh_unrelocated)
		strlist_add_notef(notes, NOTE_RELOC_ERRORS, path,
				  "%s: %s: %llu bytes of .eh_frame left to "
				  "[section .eh_frame]: a relocation of it is "
				  "of a type memsz does not apply, or out of "
				  "its section",
				  path, elfsrc_name(src),
				  (unsigned long long)st.eh_unrelocated);
	if (st.lsda_skipped)
		strlist_add_notef(notes, NOTE_LSDA_SKIPPED, path,
				  "%s: %s: %llu LSDAs (exception tables an FDE "
				  "or .ARM.extab entry points to, ARM's "
				  "compact-model descriptor lists too) could "
				  "not be decoded: their bytes stay under "
				  "their section's label",
				  path, elfsrc_name(src),
				  (unsigned long long)st.lsda_skipped);
	if (src == ELFSRC_COMPILEUNITS || src == ELFSRC_INLINES)
		dwarf_notes(notes, path, im->img, src, &st);
	*out = &im->src[src];
	return 0;
}

void imgmaps_close(struct imgmaps *im)
{
	if (!im->img)
		return;
	for (size_t i = 0; i < ELFSRC__COUNT; i++)
		if (im->built[i])
			dualmap_free(&im->src[i]);
	dualmap_free(&im->base);
	elfimg_close(im->img);
	memset(im, 0, sizeof(*im));
}
