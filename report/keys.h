/* SPDX-License-Identifier: GPL-2.0-or-later */
/* keys.h — the one table of `--by` keys, for `memsz size`, `report` and
 * `diff`.
 *
 * Every key is one row: its name, how its labels are made (a label hook,
 * or the image map it is built from), what it needs read to make them
 * (processes, fault samples, JIT symbol maps, an ELF data source), how
 * other code treats its labels (flags), the columns only it gives, the
 * commands that offer it and one line of help. `--by` parsing, the key
 * lists in --help and messages, `--list-keys`, the choice of map builder
 * and what a report reads all come from this table: adding a key is a
 * row plus its label hook (or its ELF source). Nothing outside this
 * file's functions asks which key a key is.
 */
#ifndef MEMSZ_REPORT_KEYS_H
#define MEMSZ_REPORT_KEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Keys in table order: the order of every key list printed. */
enum key_id {
	KEY_PIDS,
	KEY_COMMS, /* processes grouped by command name */
	KEY_USERS, /* the owner of each process */
	KEY_FILES,
	KEY_INPUTFILES, /* size: each FILE given (Bloaty's name) */
	KEY_ARMEMBERS,	/* size: each member of an archive */
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

/* How the map of a key labelled piece by piece inside images is built. */
enum key_map {
	KEYMAP_NONE,   /* not an image key: labelled by its hook */
	KEYMAP_ELF,    /* the image's ELF source map (elfsrc) */
	KEYMAP_KINDS,  /* the image's segments as kinds, anon memory by kind */
	KEYMAP_RELOCS, /* on disk the ELF relocs source; resident, the
			  dirty-by-relocation map (report/relocmap.h) */
};

/* Commands that offer a key (bit mask). */
#define KEY_IN_SIZE 1u
#define KEY_IN_REPORT 2u

#define KEYS_MAX 8 /* keys one --by list may name */

/* What a key needs read to make its labels (bit mask; the ELF data
 * source of an image key is its map and elfsrc). */
#define KEY_NEEDS_PROCS 1u /* the recorded processes (report only) */
#define KEY_NEEDS_FAULTS                                                       \
	2u /* fault samples with their stacks: its label                       \
	      changes from page to page */
#define KEY_NEEDS_JIT                                                          \
	4u /* JIT symbol maps (perf-PID.map): its labels                       \
	      of anonymous JIT code are the JIT symbols */

/* How other code treats a key's labels (bit mask). */
#define KEYF_BY_RANGE                                                          \
	1u /* tells mappings apart: a file's FILE SIZE is                      \
	      charged by the range each mapping maps, not                      \
	      once for the whole file */
#define KEYF_ALIASES                                                           \
	2u /* labels may carry aliases (folded symbols, a                      \
	      unit's joined path): csv adds an aliases column */
#define KEYF_PID_LABEL                                                         \
	4u /* labels are "PID name": diff pairs a process                      \
	      of OLD with the one of NEW of that name */
#define KEYF_NAMES_CODE                                                        \
	8u /* labels name functions: fault stack frames                        \
	      are named from its map */
#define KEYF_CUT_END                                                           \
	16u /* labels read from their start ("PID                              \
	       command line"): a table too narrow for one                      \
	       cuts its end, not its middle */
#define KEYF_FILE_PATH                                                         \
	32u /* a file's label is its path (size: as given):                    \
	       a diff pairs OLD's path with NEW's (two ELF                     \
	       files), or OLD's "[changed since recording]                     \
	       PATH" with NEW's PATH, at this key's level */

struct attrib_map;
struct labels;

/* A recorded process as the keys that label processes see it (report).
 * The strings are the caller's; labels[] is the hooks' cache. */
struct key_proc {
	uint32_t pid;
	char *comm;		     /* last command name, or NULL */
	char *cmdline;		     /* last command line, or NULL */
	char *user;		     /* owner (user name or "uid N"), or NULL */
	uint32_t labels[KEY__COUNT]; /* LABEL_NONE until made */
};

/* What a label hook is given: the bytes being charged. */
struct key_at {
	struct labels *lb;
	struct key_proc *proc;	      /* report: the process; size: NULL */
	const struct attrib_map *map; /* report: the mapping; size: NULL */
	uint32_t file_label;	      /* the file (image) of the bytes, or
					 the kind of anonymous memory */
	uint32_t member_label;	      /* size: the archive member of the
					 bytes, the "[AR ...]" part of an
					 archive they are, or the file */
	uint32_t callers, site;	      /* report with fault keys: the fault
					 stack of the pages and its first
					 frame of the program's */
};

/* A key's label for the bytes at at. */
typedef uint32_t key_label_fn(const struct key_at *at);

struct keydef {
	const char *name;    /* "sections" */
	key_label_fn *label; /* NULL: labelled piece by piece by its map */
	enum key_map map;    /* KEYMAP_NONE: labelled by label */
	int elfsrc;	     /* enum elf_source behind the map, or -1 */
	unsigned needs;	     /* KEY_NEEDS_* */
	unsigned flags;	     /* KEYF_* */
	unsigned cols;	     /* columns only this key gives (bit per col_id) */
	unsigned cmds;	     /* KEY_IN_* */
	const char *help;    /* one line for --list-keys */
};

/* The table, indexed by enum key_id. */
extern const struct keydef keydefs[KEY__COUNT];

/* Parse a comma-separated key list ("sections,symbols") of keys offered
 * by cmd (KEY_IN_*) into keys[] (at most KEYS_MAX). Returns the count, or
 * -1 if a key is unknown, not offered or repeated, -E2BIG if it is one too
 * many, with *bad a malloc'd copy of it (caller frees). */
int keys_parse(const char *spec, unsigned cmd, enum key_id *keys, char **bad);

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

/* Make kp the process pid with no strings and no labels yet. */
void keys_proc_init(struct key_proc *kp, uint32_t pid);

/* What keys[0..n-1] need read, together (KEY_NEEDS_*). */
unsigned keys_needs(const enum key_id *keys, size_t n);

/* Columns (bit per col_id) that some key gives (relocs: the relocs key)
 * and none of keys[0..n-1] does: a report by these keys has none. */
unsigned keys_cols_missing(const enum key_id *keys, size_t n);

/* The key that gives column col, or KEY__COUNT if every key has it. */
enum key_id keys_of_col(unsigned col);

/* The key whose map names the functions of an image (KEYF_NAMES_CODE). */
enum key_id keys_code_key(void);

#endif
