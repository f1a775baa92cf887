/* size.h — the on-disk report: ELF files -> rows of FILE SIZE and VM SIZE.
 *
 * For each file: open it, build its base DualMap and one DualMap per
 * requested key, then walk file space [0, file size) and the mapped VM
 * space cutting at every label boundary of every key (rmap_rollup), adding
 * each piece to the row tree. Every byte lands in exactly one row per key,
 * so FILE SIZE sums to the file size and VM SIZE to the mapped VM size (I1).
 */
#ifndef MEMSZ_SIZE_H
#define MEMSZ_SIZE_H

#include <stddef.h>
#include <stdint.h>

#include "elf/elfimg.h"
#include "maps/labels.h"
#include "maps/rangemap.h"
#include "report/rows.h"

/* Keys of `memsz size --by`. */
enum size_key {
	SIZEKEY_FILES,
	SIZEKEY_SEGMENTS,
	SIZEKEY_SECTIONS,
	SIZEKEY_SYMBOLS,
	SIZEKEY_BBS,
	SIZEKEY_RELOCS,
	SIZEKEY_COMPILEUNITS,
	SIZEKEY_INLINES,
	SIZEKEY__COUNT
};

#define SIZE_MAX_KEYS 8

/* Parse a comma-separated key list ("sections,symbols") into keys[] (at
 * most SIZE_MAX_KEYS). Returns the count, or -1 if a key is unknown or
 * repeated, with *bad pointing at a malloc'd copy of it (caller frees). */
int size_keys_parse(const char *spec, enum size_key *keys, char **bad);
/* Name of a key ("files", ...). */
const char *size_key_name(enum size_key k);
/* Comma-separated names of every key, for messages; static storage. */
const char *size_key_list(void);

/* True if label is a fallback of elf source src: a label given to bytes
 * the source itself does not explain. Those are "[section X]", the PT_LOAD
 * labels "LOAD #n [..]" (except for segments, whose own labels they are),
 * "[ELF Header]", "[ELF Program Headers]", "[ELF Section Headers]" and
 * "[Unmapped]". Kind labels of anonymous memory ("[heap]") are not. */
bool size_label_is_fallback(enum elf_source src, const char *label);

/* What could not be attributed exactly, for the footer. */
struct size_notes {
	char **lines;
	size_t n, cap;
};
void size_notes_free(struct size_notes *notes);
/* Append line (malloc'd; the notes take it). */
void size_note_add(struct size_notes *notes, char *line);

/* One opened ELF image and the DualMaps built from it on demand: shared by
 * `memsz size` and `memsz report`, so both label bytes the same way. */
struct size_image {
	struct elfimg *img;
	struct dualmap base;
	struct dualmap src[ELFSRC__COUNT];
	bool built[ELFSRC__COUNT];
};

/* Open path into si (zeroed by the caller) and build its base map.
 * Returns 0 or a negative code (si is then left closed). */
int size_image_open(struct size_image *si, const char *path,
		    struct labels *lb);
/* The DualMap of source src, built on the first call (symbols look for a
 * debug file under debug_root first); notes about it are appended then.
 * Returns 0 and *out (borrowed, valid until size_image_close), or a
 * negative code. */
int size_image_source(struct size_image *si, enum elf_source src,
		      struct labels *lb, const char *debug_root,
		      struct size_notes *notes, struct dualmap **out);
/* Free the maps and close the image; si may be closed already. */
void size_image_close(struct size_image *si);

/* Add the bytes of the ELF file at path to tree t (depth nkeys, over
 * label table lb) along keys. Debug files are looked for under debug_root
 * (NULL: /usr/lib/debug). Notes about this file are appended to
 * notes. Returns 0, or a negative code: then t may hold part of the
 * file and the caller must not print it. */
int size_add_file(struct rowtree *t, struct labels *lb, const char *path,
		  const enum size_key *keys, size_t nkeys,
		  const char *debug_root, struct size_notes *notes);

#endif
