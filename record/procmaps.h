/* SPDX-License-Identifier: GPL-2.0-or-later */
/* procmaps.h — parse /proc/PID/maps text.
 *
 * Parsers take a FILE * so tests feed fixtures without a live process.
 */
#ifndef MEMSZ_RECORD_PROCMAPS_H
#define MEMSZ_RECORD_PROCMAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct procmap {
	uint64_t start, end, pgoff;
	uint32_t dev_major, dev_minor;
	uint64_t ino;
	uint32_t prot;	  /* PROT_READ | PROT_WRITE | PROT_EXEC */
	uint32_t flags;	  /* MAP_SHARED or MAP_PRIVATE */
	char *name;	  /* path, "[heap]", "[anon:x]", "" for anonymous;
			     " (deleted)" kept as the kernel prints it */
	uint32_t vmflags; /* PROCMAP_VM_*, from procmaps_parse_vmflags();
			     0 until then */
};

/* What smaps' VmFlags say of a mapping ("lo", "ht"). */
enum procmap_vmflags {
	PROCMAP_VM_LOCKED = 1u << 0,  /* VM_LOCKED: mlock, MAP_LOCKED */
	PROCMAP_VM_HUGETLB = 1u << 1, /* a hugetlbfs mapping */
};

struct procmaps {
	struct procmap *maps;
	size_t n, cap;
};

/* Parse every line of f into out (appended; out zeroed by the caller).
 * Returns the number of mappings parsed or -MEMSZ_EBADDATA on a malformed
 * line (out then holds the lines before it). */
int procmaps_parse(FILE *f, struct procmaps *out);
/* Parse /proc/PID/smaps text from f and set the vmflags of each mapping
 * of m (ordered, see procmaps_order) that has an entry with the same start
 * and end; other mappings keep theirs. Returns the number of mappings set
 * or -MEMSZ_EBADDATA on a malformed header line. */
int procmaps_parse_vmflags(FILE *f, struct procmaps *m);
/* Parse /proc/PID/smaps text from f and set unshared[i] (one per
 * mapping of m, ordered; zeroed by the caller) for each mapping i whose
 * entry has the same start and end: bit 0 when it counts no page as
 * shared (Shared_Clean and Shared_Dirty 0 kB: every page of it mapped
 * once, as smaps_account counts each page of a huge page), bit 1 when its
 * VmFlags have "sd" (VM_SOFTDIRTY: pagemap calls all its pages
 * soft-dirty). Unless anon_huge_kb is NULL, anon_huge_kb[i] is set too:
 * the entry's AnonHugePages in kB (UINT64_MAX without the field). Returns
 * the number of mappings with bit 0 set or -MEMSZ_EBADDATA on a
 * malformed header line. */
int procmaps_parse_unshared(FILE *f, const struct procmaps *m,
			    uint8_t *unshared, uint64_t *anon_huge_kb);
/* The fields of a mapping's smaps entry procmaps_parse_kb reads. */
enum smaps_field {
	SMAPS_F_RSS,
	SMAPS_F_SHARED_CLEAN,
	SMAPS_F_SHARED_DIRTY,
	SMAPS_F_PRIVATE_CLEAN,
	SMAPS_F_PRIVATE_DIRTY,
	SMAPS_F_ANONYMOUS,
	SMAPS_F__COUNT
};

/* A mapping's smaps fields, kB, by enum smaps_field. */
struct smaps_kb {
	uint64_t kb[SMAPS_F__COUNT];
};

/* Parse /proc/PID/smaps text from f and set out[i] (one per mapping of
 * m, ordered) to the fields of each mapping i whose entry has the same
 * start and end and every field; the others' are left as they are.
 * Returns the number of mappings set or -MEMSZ_EBADDATA on a malformed
 * header line. */
int procmaps_parse_kb(FILE *f, const struct procmaps *m, struct smaps_kb *out);
/* Read /proc/<pid>/maps (or /proc/<pid>/task/<tid>/maps when tid > 0).
 * Returns count or -errno (-ESRCH if the process is gone). */
int procmaps_read(int pid, int tid, struct procmaps *out);
/* Read pid's file mappings (those /proc/PID/maps shows with an inode)
 * into out, in address order, names NULL: with the PROCMAP_QUERY ioctl
 * (Linux 6.11+), a query per mapping and no text, ~6 us for a small
 * process's 15 against ~20 us for reading and parsing its maps; where
 * the ioctl is missing or fails, or query is false, procmaps_read's
 * mappings with an inode, names kept. Returns the count or -errno
 * (-ESRCH if the process is gone). */
int procmaps_read_files(int pid, bool query, struct procmaps *out);
/* /proc/PID/maps opened for procmaps_query_page_size(): a descriptor
 * (caller closes) or -errno (-ESRCH if the process is gone). */
int procmaps_query_open(int pid);
/* The page size of the mapping covering addr in fd's process, by
 * PROCMAP_QUERY (Linux 6.11+): its huge page size for a hugetlb mapping
 * (and a device-DAX one's alignment: smaps counts neither as THP), else
 * the base page size (THP is not a mapping's page size). 0, or
 * -ENOENT (no mapping there), -ESRCH (gone), -ENOTTY/-EINVAL (no
 * PROCMAP_QUERY) or another -errno. */
int procmaps_query_page_size(int fd, uint64_t addr, uint64_t *page_size);
/* Put m in address order and drop the mappings that are empty or overlap
 * the one before (a /proc/PID/maps read in several pieces while the
 * address space changed), so that a snapshot's mappings are ordered
 * without overlap as memsz.data requires. Returns how many were dropped. */
size_t procmaps_order(struct procmaps *m);
/* Free the arrays and names; *m is left empty. */
void procmaps_free(struct procmaps *m);

#endif
