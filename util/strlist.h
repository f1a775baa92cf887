/* SPDX-License-Identifier: GPL-2.0-or-later */
/* strlist.h — the footer's notes: a growable list of owned lines, each
 * with a kind and the subject it is about.
 *
 * A zeroed struct strlist is an empty list. The list owns every line (and
 * subject) added to it; strlist_free() frees them all. A note's kind says
 * what sort of news it is (one row of the kind table in strlist.c), so
 * that notes of one kind can be counted and shown as one line; its subject
 * (an image path, a mapping name, or NULL) lets a report leave out notes
 * about things none of its rows show.
 */
#ifndef MEMSZ_UTIL_STRLIST_H
#define MEMSZ_UTIL_STRLIST_H

#include <stdbool.h>
#include <stddef.h>

/* Kinds of notes. Add rows at the end (before NOTE__COUNT) and a row in
 * the kind table in strlist.c. */
enum note_kind {
	NOTE_OTHER,		 /* shown as it is, never grouped */
	NOTE_DYNSYM,		 /* no .symtab: only .dynsym names */
	NOTE_ALIASES,		 /* symbols sharing address and size */
	NOTE_DEBUG_USED,	 /* symbols or DWARF from a debug file */
	NOTE_DEBUG_REJECTED,	 /* a debug file found and refused */
	NOTE_DEBUG_LOOKUP,	 /* looking for a debug file failed */
	NOTE_RELR,		 /* RELR would be smaller */
	NOTE_RELR_STATS,	 /* RELR and REL/RELA sizes as they are */
	NOTE_RELOC_ERRORS,	 /* relocation entries that cannot be read */
	NOTE_CLIPPED,		 /* symbols cut at their section's end */
	NOTE_BBS_ERROR,		 /* basic block map read up to a bad record */
	NOTE_NO_DWARF,		 /* no DWARF, or libdw cannot read it */
	NOTE_DWARF_ERRORS,	 /* DWARF units that cannot be read */
	NOTE_SPLIT_MISSING,	 /* .dwo files not found */
	NOTE_SOURCE_ERROR,	 /* a key's map cannot be built: segments */
	NOTE_IMAGE_BROKEN,	 /* an image cannot be opened: [LOAD #?] */
	NOTE_NO_SEGMENT,	 /* mapped bytes that match no PT_LOAD */
	NOTE_FALLBACK,		 /* bytes under fallback labels */
	NOTE_UNREADABLE,	 /* pages that cannot be read from pagemap */
	NOTE_NO_PSS,		 /* recorded without page frame numbers */
	NOTE_SAMPLING,		 /* how fault samples were taken */
	NOTE_JIT,		 /* JIT code named from perf-PID.map */
	NOTE_DISASM,		 /* data charged to code by --disasm */
	NOTE_NO_DISASM,		 /* code not decoded: not x86-64, no Zydis */
	NOTE_PEAK_RSS,		 /* a process's kernel peak RSS (VmHWM) */
	NOTE_PAGES_CHANGED,	 /* a snapshot's pages changed while read */
	NOTE_MAPS_CHANGED,	 /* a snapshot's mappings changed while read */
	NOTE_SNAP_UNREADABLE,	 /* a snapshot's pages pagemap cannot read */
	NOTE_COUNT_ONCE,	 /* FILE SIZE and VM SIZE count a shared file
				    once: rows above less than their sum */
	NOTE_IMAGE_DELETED,	 /* an image no longer on disk: [deleted] */
	NOTE_IMAGE_CHANGED,	 /* an image replaced since the recording:
				    [changed since recording] */
	NOTE_MOMENT,		 /* a TOTAL of processes not alive together */
	NOTE_IMAGE_CHANGED_READ, /* an image changed while it was read */
	NOTE_NOT_ELF,		 /* an odd non-ELF file mapped as an image */
	NOTE_DWARF_REFUSED,	 /* DWARF past the inflate bound, or unsafe */
	NOTE_MINIDEBUG,		 /* symbols from .gnu_debugdata */
	NOTE_MINIDEBUG_DROPPED,	 /* .gnu_debugdata or its symbols dropped */
	NOTE_NAMES_DROPPED,	 /* symbols whose names overlap dropped */
	NOTE_LSDA_SKIPPED,	 /* LSDAs that cannot be decoded */
	NOTE_DIRTY_BY_MAPPING,	 /* anonymous pages counted clean by
				    smaps' totals of their mappings */
	NOTE__COUNT
};

/* What a note is beside its kind (bit mask, strlist.flags). */
#define NOTEF_SUMMARY                                                          \
	1u /* stands for every note of its kind: shown                         \
	      instead of them unless verbose, left out when                    \
	      verbose */

struct strlist {
	char **lines; /* the notes' full text */
	size_t n, cap;
	unsigned char *kinds; /* parallel to lines: enum note_kind */
	char **subjects;      /* parallel to lines: subject or NULL */
	unsigned *about;      /* parallel to lines: what parts of the output
				 the note is about (the report: columns, a
				 bit per col_id); 0: the whole output */
	unsigned char *flags; /* parallel to lines: NOTEF_* */
};

/* Append line (malloc'd; the list takes it) as a NOTE_OTHER note. */
void strlist_add(struct strlist *l, char *line);
/* Append the line printf would print for fmt and its arguments, as a
 * NOTE_OTHER note. */
void strlist_addf(struct strlist *l, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Append line (malloc'd; the list takes it) of kind about subject (copied;
 * NULL: about the whole report). */
void strlist_add_note(struct strlist *l, enum note_kind kind,
		      const char *subject, char *line);
/* Append the line printf would print for fmt and its arguments as a note
 * of kind about subject (copied; NULL: about the whole report). */
void strlist_add_notef(struct strlist *l, enum note_kind kind,
		       const char *subject, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Append line (malloc'd; the list takes it) of kind as a note about the
 * parts of the output in about (bit mask, see strlist.about; 0: all) and
 * with flags (NOTEF_*). */
void strlist_add_about(struct strlist *l, enum note_kind kind, unsigned about,
		       unsigned flags, char *line);
/* Which notes of l concern an output that shows the parts in shown: a
 * malloc'd array of l->n (+1) flags, true for a note about nothing in
 * particular or about something shown. Caller frees. */
bool *strlist_keep_about(const struct strlist *l, unsigned shown);
/* Append a copy of note i of src to l. */
void strlist_add_copy(struct strlist *l, const struct strlist *src, size_t i);
/* Append a copy of note i of src to l, its text after prefix (copied;
 * "OLD: "), its kind, subject and flags kept. */
void strlist_add_copy_prefixed(struct strlist *l, const struct strlist *src,
			       size_t i, const char *prefix);
/* True if l has a note whose text is line. */
bool strlist_has(const struct strlist *l, const char *line);
/* Free every line and the arrays; l is empty afterwards. l may be
 * empty. */
void strlist_free(struct strlist *l);

/* The lines to print for notes l into out (an empty list; caller frees
 * it): notes whose keep[i] is false are left out (keep may be NULL: all
 * kept). With verbose, every note as it is but the NOTEF_SUMMARY ones.
 * Else a kind with NOTEF_SUMMARY notes is those lines (one, or one per
 * side of a diff); a kind with
 * notes about two or more subjects becomes one line, "N images have only
 * .dynsym symbols: a, b, c, … — install ...", naming up to three subjects
 * by their last path component; a kind counted per note (a snapshot's
 * news) with two or more notes without a subject becomes "N snapshots
 * ... — -v lists each"; and identical lines are printed once. */
void strlist_summarize(const struct strlist *l, const bool *keep, bool verbose,
		       struct strlist *out);

#endif
