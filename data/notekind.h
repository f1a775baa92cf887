/* SPDX-License-Identifier: GPL-2.0-or-later */
/* notekind.h — the kinds of NOTE records: what sort of news a note is, as
 * a code stored in the record (format version 4 on), so that a report
 * groups and filters notes by kind, never by their words.
 *
 * The values are stored in files: add kinds at the end (before
 * MD_NOTE__COUNT) with a row in notekind.c; never renumber.
 */
#ifndef MEMSZ_DATA_NOTEKIND_H
#define MEMSZ_DATA_NOTEKIND_H

#include <stddef.h>
#include <stdint.h>

enum md_note_kind {
	MD_NOTE_OTHER = 0,	   /* none below (a free message) */
	MD_NOTE_NO_PFN,		   /* PSS unavailable: PFNs not readable */
	MD_NOTE_UNREADABLE_PAGES,  /* pages of a mapping pagemap cannot
				      report; subject: the mapping's name */
	MD_NOTE_EVENT,		   /* "event N: NAME": a sampling event */
	MD_NOTE_USER_FAULTS_ONLY,  /* kernel-mode faults not permitted */
	MD_NOTE_RING_SMALL,	   /* sample or side-band rings smaller
				      than asked */
	MD_NOTE_HELD,		   /* targets held while memsz drained the
				      sample or side-band rings
				      (backpressure) */
	MD_NOTE_LEASH_FAILED,	   /* a thread could not be leashed */
	MD_NOTE_LEASH_STOPS,	   /* threads stopped at their leash */
	MD_NOTE_LEASH_SHORT,	   /* sample or side-band rings too small
				      for a leash */
	MD_NOTE_LOST,		   /* perf records lost */
	MD_NOTE_POLLING,	   /* no perf events: maps polled instead */
	MD_NOTE_NO_PTRACE,	   /* a target could not be ptraced */
	MD_NOTE_TARGET_UNREADABLE, /* a target's memory cannot be read */
	MD_NOTE_TARGET_EXITED,	   /* targets exited before a snapshot or
				      before the final one */
	MD_NOTE_SCAN_FAILED,	   /* a scan's processes cannot be listed */
	MD_NOTE_SCAN_DENIED,	   /* processes of a scan left out: they
				      could not be read */
	MD_NOTE_KTHREADS,	   /* kernel threads skipped */
	MD_NOTE_MAPS_CHANGED,	   /* mappings overlapping others in maps
				      (it changed while read) left out */
	MD_NOTE_PAGES_CHANGED,	   /* pages changed between the stop and
				      the reading of their pagemap entries */
	MD_NOTE_NO_MEMCG,	   /* the -G cgroup has no memory
				      controller: its counters are not
				      recorded */
	MD_NOTE_SHMEM_SWAP,	   /* shmem pages swapped out cannot be
				      counted (no cachestat, map_files
				      refused) */
	MD_NOTE_SAMPLED,	   /* events sampled 1 in N (--count N > 1) */
	MD_NOTE_DIRTY_BY_MAPPING,  /* anonymous pages counted clean by
				      smaps' dirty totals of their
				      mappings, not page by page; one a
				      snapshot, its values: pid, bytes
				      counted clean, their mappings,
				      bytes DIRTY and SHR DIRTY differ
				      from smaps, their mappings,
				      mappings changed between the reads
				      (MD_DIRTY_V_*) */
	MD_NOTE__COUNT
};

/* The values of an MD_NOTE_DIRTY_BY_MAPPING note, by index. */
enum md_dirty_val {
	MD_DIRTY_V_PID,
	MD_DIRTY_V_CLEANED,  /* bytes */
	MD_DIRTY_V_NCLEANED, /* mappings */
	MD_DIRTY_V_OFF,	     /* bytes */
	MD_DIRTY_V_NOFF,     /* mappings */
	MD_DIRTY_V_NCHANGED, /* mappings */
	MD_DIRTY_V__COUNT
};

/* The name of kind ("no-pfn", "unreadable-pages", ...), as dump -v and
 * memsz-data(5) say it; "other" for MD_NOTE_OTHER and for a value this
 * memsz does not know. Static storage. */
const char *md_note_kind_name(uint32_t kind);

/* The kind of a note from its text, for notes that carry none: NOTE
 * records of files of version 3 or older (mapped once, by the reader).
 * Matches the messages memsz record wrote by their fixed words (the
 * legacy table in notekind.c); MD_NOTE_OTHER if none matches. *subject and
 * *subject_len receive what the note is about, a part of text (for
 * MD_NOTE_UNREADABLE_PAGES the quoted mapping name), or NULL and 0. */
enum md_note_kind md_note_kind_from_text(const char *text, const char **subject,
					 size_t *subject_len);

#endif
