/* keys.h — the one table of `--by` keys, for `memsz size` and `report`.
 *
 * Every key is one row: its name, what it labels, the ELF source its map
 * is built from (for keys that label bytes inside an image), the commands
 * that offer it and one line of help. `--by` parsing, the key lists in
 * --help and messages, `--list-keys` and the choice of map builder all
 * read this table; adding a key is adding a row (and, for a key that is
 * not an ELF source, the code that labels it).
 */
#ifndef MEMSZ_REPORT_KEYS_H
#define MEMSZ_REPORT_KEYS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Keys in table order: the order of every key list printed. */
enum key_id {
	KEY_PIDS,
	KEY_FILES,
	KEY_MAPPINGS,
	KEY_SEGMENTS,
	KEY_SECTIONS,
	KEY_SYMBOLS,
	KEY_KINDS,
	KEY_BBS,
	KEY_RELOCS,
	KEY_COMPILEUNITS,
	KEY_INLINES,
	KEY_CALLERS,   /* stack of the fault that made a page resident */
	KEY_FAULTSITE, /* its innermost frame */
	KEY__COUNT
};

/* What a key labels. */
enum key_space {
	KEYSP_PROCESS, /* a process or one of its mappings (report only) */
	KEYSP_FILE,    /* a whole file: one label per image */
	KEYSP_IMAGE,   /* bytes inside an image, by a map in file/VM space */
	KEYSP_FAULT,   /* the fault sample that made a page resident */
};

/* How the map of a KEYSP_IMAGE key is built. */
enum key_map {
	KEYMAP_NONE,   /* not an image key */
	KEYMAP_ELF,    /* the image's ELF source map (elfsrc) */
	KEYMAP_KINDS,  /* the image's segments as kinds, anon memory by kind */
	KEYMAP_RELOCS, /* on disk the ELF relocs source; resident, the
			  dirty-by-relocation map (report/relocmap.h) */
};

/* Commands that offer a key (bit mask). */
#define KEY_IN_SIZE 1u
#define KEY_IN_REPORT 2u

#define KEYS_MAX 8 /* keys one --by list may name */

struct keydef {
	const char *name;   /* "sections" */
	enum key_space space;
	enum key_map map;
	int elfsrc;         /* enum elf_source behind the map, or -1 */
	unsigned cmds;      /* KEY_IN_* */
	const char *help;   /* one line for --list-keys */
};

/* The table, indexed by enum key_id. */
extern const struct keydef keydefs[KEY__COUNT];

/* Parse a comma-separated key list ("sections,symbols") of keys offered
 * by cmd (KEY_IN_*) into keys[] (at most KEYS_MAX). Returns the count, or
 * -1 if a key is unknown, not offered, repeated or one too many, with *bad
 * a malloc'd copy of it (caller frees). */
int keys_parse(const char *spec, unsigned cmd, enum key_id *keys,
	       char **bad);

/* Comma-separated names of the keys cmd offers ("files, segments, ...");
 * static storage, valid for the life of the process. */
const char *keys_list(unsigned cmd);

/* Print every key cmd offers with its help line, one per line. */
void keys_print(FILE *out, unsigned cmd);

/* True if a label of key k is a fallback: bytes the key's source does not
 * explain (elf_label_is_fallback). Keys that are not ELF sources have
 * none. */
bool keys_label_is_fallback(enum key_id k, const char *label);

/* The footer line saying how much of a measure is under fallback labels
 * for key k: "[PREFIX: ]KEY: B bytes (P%) of NAME[, B (P%) of NAME]
 * under fallback labels" for n (1 or 2) measures, each bytes[i] of
 * total[i] called names[i]. prefix may be NULL. Caller frees. */
char *keys_fallback_note(const char *prefix, enum key_id k, size_t n,
			 const uint64_t *bytes, const uint64_t *total,
			 const char *const *names);

#endif
