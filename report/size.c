/* size.c — see size.h */
#include "config.h"

#include "report/size.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf/elfimg.h"
#include "maps/rangemap.h"
#include "util/util.h"

static const char *const size_key_names[SIZEKEY__COUNT] = {
	[SIZEKEY_FILES] = "files",
	[SIZEKEY_SEGMENTS] = "segments",
	[SIZEKEY_SECTIONS] = "sections",
	[SIZEKEY_SYMBOLS] = "symbols",
	[SIZEKEY_BBS] = "bbs",
	[SIZEKEY_RELOCS] = "relocs",
	[SIZEKEY_COMPILEUNITS] = "compileunits",
	[SIZEKEY_INLINES] = "inlines",
};

/* The ELF data source behind each key; -1 for keys that are not one. */
static const int size_key_source[SIZEKEY__COUNT] = {
	[SIZEKEY_FILES] = -1,
	[SIZEKEY_SEGMENTS] = ELFSRC_SEGMENTS,
	[SIZEKEY_SECTIONS] = ELFSRC_SECTIONS,
	[SIZEKEY_SYMBOLS] = ELFSRC_SYMBOLS,
	[SIZEKEY_BBS] = ELFSRC_BBS,
	[SIZEKEY_RELOCS] = ELFSRC_RELOCS,
	[SIZEKEY_COMPILEUNITS] = ELFSRC_COMPILEUNITS,
	[SIZEKEY_INLINES] = ELFSRC_INLINES,
};

const char *size_key_name(enum size_key k)
{
	return size_key_names[k];
}

const char *size_key_list(void)
{
	return "files, segments, sections, symbols, bbs, relocs, "
	       "compileunits, inlines";
}

static const char *size_key_name_at(int k)
{
	return size_key_name((enum size_key)k);
}

int size_keys_parse(const char *spec, enum size_key *keys, char **bad)
{
	int idx[SIZE_MAX_KEYS];
	int n = keylist_parse(spec, size_key_name_at, SIZEKEY__COUNT, idx, SIZE_MAX_KEYS, bad);

	for (int i = 0; i < n; i++)
		keys[i] = (enum size_key)idx[i];
	return n;
}

void size_note_add(struct size_notes *notes, char *line)
{
	xgrow(&notes->lines, &notes->cap, notes->n + 1, sizeof(*notes->lines));
	notes->lines[notes->n++] = line;
}

void size_notes_free(struct size_notes *notes)
{
	for (size_t i = 0; i < notes->n; i++)
		free(notes->lines[i]);
	free(notes->lines);
	memset(notes, 0, sizeof(*notes));
}

/* State of one rollup walk: which rollup column is which key. */
struct size_walk {
	struct rowtree *t;
	const enum size_key *keys;
	size_t nkeys;
	uint32_t file_label;     /* label of the "files" key */
	size_t map_of_key[SIZE_MAX_KEYS]; /* index into labels[] per key */
	int base_index;          /* labels[] index of base map, or -1 */
	enum col_id col;
	struct labels *lb;
	uint64_t fallback[SIZE_MAX_KEYS][2]; /* bytes: [key][file, vm] */
	uint64_t total[2];
};

static int size_piece(void *arg, const uint32_t *labels, uint64_t start,
		      uint64_t end)
{
	struct size_walk *w = arg;
	uint32_t path[SIZE_MAX_KEYS];
	uint64_t vals[COL__COUNT] = { 0 };

	if (w->base_index >= 0 && labels[w->base_index] == LABEL_NONE)
		return 0; /* VM hole between segments: not mapped */
	for (size_t i = 0; i < w->nkeys; i++) {
		if (w->keys[i] == SIZEKEY_FILES) {
			path[i] = w->file_label;
			continue;
		}
		path[i] = labels[w->map_of_key[i]];
		/* Every source map covers the base map completely; a hole
		 * here is a bug in elf/, not something to hide. */
		if (path[i] == LABEL_NONE)
			return -MEMSZ_EBADELF;
		if (size_label_is_fallback(size_key_source[w->keys[i]],
					   labels_str(w->lb, path[i])))
			w->fallback[i][w->col == COL_VM] += end - start;
	}
	w->total[w->col == COL_VM] += end - start;
	vals[w->col] = end - start;
	rowtree_add(w->t, path, vals);
	return 0;
}

/* What the bbs source found (nothing is news: no map in the image). */
static void bbs_notes(struct size_notes *notes, const char *path,
		      const struct elfsrc_stats *st)
{
	if (st->bb_error)
		size_note_add(notes,
			      xasprintf("%s: basic block address map read "
					"up to a record it cannot use (%s): "
					"%llu functions, %llu blocks", path,
					memsz_strerror(st->bb_error),
					(unsigned long long)st->bb_functions,
					(unsigned long long)st->bb_blocks));
}

/* The RELR estimate of the relocs source: what the RELATIVE relocations
 * take now and what the jump+bitmap encoding of .relr.dyn would take. */
static void relr_note(struct size_notes *notes, const char *path,
		      const struct elfsrc_stats *st)
{
	unsigned long long k = st->rel_relative, m = st->rel_relative_bytes;
	unsigned long long r = st->relr_bytes, e = st->relr_estimate;

	if (st->rel_skipped)
		size_note_add(notes,
			      xasprintf("%s: %llu relocation entries or "
					"tables could not be read", path,
					(unsigned long long)st->rel_skipped));
	if (!k)
		return;
	if (!r)
		size_note_add(notes,
			      xasprintf("%s: RELR would take %llu bytes "
					"instead of %llu for the %llu relative "
					"relocations (ld -z "
					"pack-relative-relocs)", path, e, m,
					k));
	else
		size_note_add(notes,
			      xasprintf("%s: %llu relative relocations take "
					"%llu bytes of RELR and %llu of "
					"REL/RELA (%llu relocations); all as "
					"RELR: %llu bytes", path, k, r, m,
					(unsigned long long)
						st->rel_relative_rela, e));
}

static void source_notes(struct size_notes *notes, const char *path,
			 const struct elfimg *img,
			 const struct elfsrc_stats *st)
{
	if (st->used_debug_file && img->debug)
		size_note_add(notes,
			      xasprintf("%s: symbols from debug file '%s'",
					path, img->debug->path));
	if (st->used_dynsym)
		size_note_add(notes,
			      xasprintf("%s: no .symtab, only the dynamic "
					"symbols (.dynsym) are named", path));
	if (st->aliases)
		size_note_add(notes,
			      xasprintf("%s: %llu symbols share an address "
					"and size with another and are "
					"counted as its aliases", path,
					(unsigned long long)st->aliases));
	bbs_notes(notes, path, st);
	relr_note(notes, path, st);
	if (st->clipped)
		size_note_add(notes,
			      xasprintf("%s: %llu symbols run past the end "
					"of their section and were cut "
					"there", path,
					(unsigned long long)st->clipped));
}

static void dwarf_notes(struct size_notes *notes, const char *path,
			const struct elfimg *img, enum elf_source src,
			const struct elfsrc_stats *st)
{
	const char *key = elfsrc_name(src);

	if (st->no_dwarf && !st->dwarf_errors)
		size_note_add(notes, xasprintf("%s: %s: no DWARF in the file "
					       "nor in a debug file", path,
					       key));
	else if (st->no_dwarf)
		size_note_add(notes, xasprintf("%s: %s: libdw cannot read its "
					       "DWARF", path, key));
	else if (st->dwarf_errors)
		size_note_add(notes, xasprintf("%s: %s: %llu DWARF units or "
					       "tables could not be read",
					       path, key,
					       (unsigned long long)
						       st->dwarf_errors));
	if (st->dwarf_from_debug && img->debug)
		size_note_add(notes, xasprintf("%s: %s from debug file '%s'",
					       path, key, img->debug->path));
	if (st->split_missing)
		size_note_add(notes, xasprintf("%s: %s: %llu split DWARF units "
					       "(.dwo) not found", path, key,
					       (unsigned long long)
						       st->split_missing));
}

bool size_label_is_fallback(enum elf_source src, const char *label)
{
	if (label[0] != '[' && label[0] != 'L')
		return false; /* every symbol, file and line: the hot path */
	if (!strncmp(label, "[section ", 9))
		return true;
	if (!strncmp(label, "LOAD #", 6))
		return src != ELFSRC_SEGMENTS;
	return !strcmp(label, "[ELF Header]") ||
	       !strcmp(label, "[ELF Program Headers]") ||
	       !strcmp(label, "[ELF Section Headers]") ||
	       !strcmp(label, "[Unmapped]");
}

/* A debug file that was found but refused: say why symbols lack names. */
static void debug_note(struct size_notes *notes, const char *path,
		       const struct elfimg *img)
{
	const char *why;

	if (img->debug || !img->debug_rejected)
		return;
	if (img->debug_rejected_err)
		why = memsz_strerror(img->debug_rejected_err);
	else if (img->build_id_len)
		why = "build-id does not match";
	else
		why = "CRC does not match";
	size_note_add(notes, xasprintf("%s: debug file '%s' rejected: %s", path,
				  img->debug_rejected, why));
}

int size_image_open(struct size_image *si, const char *path,
		    struct labels *lb)
{
	int ret;

	ret = elfimg_open(path, &si->img);
	if (ret < 0) {
		si->img = NULL;
		return ret;
	}
	dualmap_init(&si->base);
	ret = elfimg_base_map(si->img, lb, &si->base);
	if (ret < 0)
		size_image_close(si);
	return ret;
}

/* Sources that look for a separate debug file first. */
static bool uses_debug(enum elf_source src)
{
	return src == ELFSRC_SYMBOLS || src == ELFSRC_BBS ||
	       src == ELFSRC_COMPILEUNITS || src == ELFSRC_INLINES;
}

int size_image_source(struct size_image *si, enum elf_source src,
		      struct labels *lb, const char *debug_root,
		      struct size_notes *notes, struct dualmap **out)
{
	const char *path = si->img->path;
	struct elfsrc_stats st = { 0 };
	int ret;

	if (si->built[src]) {
		*out = &si->src[src];
		return 0;
	}
	if (uses_debug(src)) {
		/* The first such key searches and notes; the search is
		 * cached in the image, so the others would repeat it. */
		bool first = true;

		for (size_t i = 0; i < ELFSRC__COUNT; i++)
			if (si->built[i] && uses_debug(i))
				first = false;
		ret = elfimg_find_debug(si->img, debug_root);
		if (ret < 0 && first)
			size_note_add(notes, xasprintf(
				"%s: looking for a debug file: %s",
				path, memsz_strerror(ret)));
		if (first)
			debug_note(notes, path, si->img);
	}
	dualmap_init(&si->src[src]);
	si->built[src] = true;
	ret = elfimg_source_map(si->img, src, lb, &si->base, &si->src[src],
				&st);
	if (ret < 0)
		return ret;
	source_notes(notes, path, si->img, &st);
	if (src == ELFSRC_COMPILEUNITS || src == ELFSRC_INLINES)
		dwarf_notes(notes, path, si->img, src, &st);
	*out = &si->src[src];
	return 0;
}

void size_image_close(struct size_image *si)
{
	if (!si->img)
		return;
	for (size_t i = 0; i < ELFSRC__COUNT; i++)
		if (si->built[i])
			dualmap_free(&si->src[i]);
	dualmap_free(&si->base);
	elfimg_close(si->img);
	memset(si, 0, sizeof(*si));
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* One footer line per key: how much of the file is under fallbacks. */
static void fallback_notes(struct size_notes *notes, const char *path,
			   const struct size_walk *w)
{
	for (size_t i = 0; i < w->nkeys; i++) {
		const uint64_t *fb = w->fallback[i];

		if (w->keys[i] == SIZEKEY_FILES)
			continue;
		size_note_add(notes, xasprintf(
			"%s: %s: %llu bytes (%.1f%%) of FILE SIZE, %llu "
			"(%.1f%%) of VM SIZE under fallback labels", path,
			size_key_name(w->keys[i]), (unsigned long long)fb[0],
			pct(fb[0], w->total[0]), (unsigned long long)fb[1],
			pct(fb[1], w->total[1])));
	}
}

int size_add_file(struct rowtree *t, struct labels *lb, const char *path,
		  const enum size_key *keys, size_t nkeys,
		  const char *debug_root, struct size_notes *notes)
{
	struct size_image si = { 0 };
	struct rmap *fmaps[RMAP_ROLLUP_MAX], *vmaps[RMAP_ROLLUP_MAX];
	struct size_walk w = { .t = t, .keys = keys, .nkeys = nkeys,
			       .lb = lb };
	size_t nmaps = 0;
	const struct rmap_entry *vme;
	size_t nvme;
	int ret;

	ret = size_image_open(&si, path, lb);
	if (ret < 0)
		return ret;
	w.file_label = labels_intern(lb, path);
	for (size_t i = 0; i < nkeys; i++) {
		struct dualmap *dm;
		int src = size_key_source[keys[i]];

		if (src < 0)
			continue;
		ret = size_image_source(&si, src, lb, debug_root, notes, &dm);
		if (ret < 0)
			goto out;
		w.map_of_key[i] = nmaps;
		fmaps[nmaps] = dm->file;
		vmaps[nmaps] = dm->vm;
		nmaps++;
	}

	/* File space: the base file map covers [0, file size) exactly. */
	w.col = COL_FILE;
	w.base_index = -1;
	ret = rmap_rollup(fmaps, nmaps, 0, si.img->file_size, size_piece, &w);
	if (ret < 0)
		goto out;

	/* VM space: only what the base map maps (the PT_LOAD ranges). */
	w.col = COL_VM;
	w.base_index = (int)nmaps;
	vmaps[nmaps] = si.base.vm;
	vme = rmap_entries(si.base.vm, &nvme);
	if (nvme)
		ret = rmap_rollup(vmaps, nmaps + 1, vme[0].start,
				  vme[nvme - 1].end, size_piece, &w);
	if (ret >= 0)
		fallback_notes(notes, path, &w);
out:
	size_image_close(&si);
	return ret;
}
