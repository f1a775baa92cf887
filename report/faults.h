/* SPDX-License-Identifier: GPL-2.0-or-later */
/* faults.h — page-fault samples -> the call stack that made each page
 * resident (the `callers` and `faultsite` keys of `memsz report`).
 *
 * Fed in two rounds. First the address-space history: every MMAP2, MUNMAP
 * and FORK record (faults_add_mmap2/faults_add_fork), the mappings of the
 * snapshots that stand for MMAP2 records (faults_add_snap) and, per pid, the
 * time of the snapshot reported (faults_set_limit). Then the samples
 * (faults_add_sample): each one's user stack is unwound (unwind.h)
 * against the mappings of its pid at its time, its frames symbolized
 * through the attribution engine's images (attrib.h), and the page of its
 * faulting address remembered with the stack, the last fault before the
 * snapshot winning (a page faulted, freed and faulted again belongs to the
 * last fault).
 *
 * faults_page() then names the stack of a resident page: its own last
 * fault; for a page of a file mapping with no fault of its own, the first
 * fault in the same 64 KiB-aligned window (the kernel maps file pages
 * around a fault, "fault-around"); else "[no fault seen]".
 */
#ifndef MEMSZ_REPORT_FAULTS_H
#define MEMSZ_REPORT_FAULTS_H

#include <stdbool.h>
#include <stdint.h>

#include "data/datafile.h"
#include "maps/labels.h"
#include "report/attrib.h"
#include "util/strlist.h"

struct faults;

/* New matcher interning stack labels into lb and resolving images through
 * a (both borrowed). Debug files (.debug_frame) are looked for under
 * debug_root (NULL: /usr/lib/debug). Free with faults_free(). */
struct faults *faults_new(struct attrib *a, struct labels *lb,
			  const char *debug_root, uint64_t page_size);
void faults_free(struct faults *f);

/* A mapping appeared (unmap false) or went away (unmap true). */
void faults_add_mmap2(struct faults *f, const struct md_mmap2 *m, bool unmap);
/* A snapshot record (SNAP_BEGIN, SNAP_MAPPING or SNAP_END; any other
 * record is ignored): the mappings of a snapshot flagged MD_SNAP_F_MAPS
 * are taken as MMAP2 records of its pid (the recorder wrote none for
 * them) from before the recording: any MMAP2 record of the pid, made
 * while the snapshot was taken included, replaces them from its time. */
void faults_add_snap(struct faults *f, const struct md_record *rec);
/* A fork: the child sees the parent's mappings of before t->time. */
void faults_add_fork(struct faults *f, const struct md_task *t);
/* Samples of pid after time are ignored (the snapshot reported). Pids
 * never given a limit have all their samples ignored. */
void faults_set_limit(struct faults *f, uint32_t pid, uint64_t time);

/* The frames faultsite looks past by default (POSIX extended regex over
 * frame names): the C library's memory and string routines (memset, memcpy
 * and their __memset_avx2_... variants, strdup, ...), malloc and its
 * internals (_int_malloc, sysmalloc, tcache_*, ...), operator new, and
 * libc frames without a symbol; with GCC's .constprop.N-like suffixes and
 * symbol versions (memcpy@@GLIBC_2.14). */
#define FAULTS_SKIP_DEFAULT                                                    \
	"^(__GI_|__libc_)?_?_?(w?mem(set|cpy|move|cmp|chr|rchr|pcpy)|"         \
	"st[rp]n?(cpy|dup|cat|len|cmp|chr|rchr|chrnul|casecmp)|"               \
	"_int_[a-z_]+|malloc|calloc|realloc|reallocarray|free|memalign|"       \
	"posix_memalign|aligned_alloc|valloc|pvalloc|sysmalloc[a-z_]*|"        \
	"_mid_memalign|alloc_perturb|tcache_[a-z_]+|malloc_[a-z_]+)"           \
	"(_[a-z0-9_]+)?(\\.[a-z]+\\.[0-9]+)*(@@?[A-Za-z0-9_.]+)?$|"            \
	"^operator (new|delete)|^\\[libc\\.so[.0-9]*\\]$"

struct jitsyms;

/* Name frames in anonymous memory by the JIT symbols of j (borrowed; NULL:
 * none). Call before the first sample. */
void faults_set_jit(struct faults *f, struct jitsyms *j);

/* The site of a stack (faultsite) is its innermost frame whose name does
 * not match regex (NULL or "": the innermost frame; all frames matching:
 * the innermost too). Call before the first sample. Returns 0, or
 * -MEMSZ_EUSAGE if regex does not compile. */
int faults_set_skip(struct faults *f, const char *regex);

/* Unwind, symbolize and remember sample s. Returns 0 (a sample that
 * cannot be unwound is counted and kept with what could be had). */
int faults_add_sample(struct faults *f, const struct md_sample *s);

/* Labels for the page at va of pid: the stack of the fault that made it
 * resident, outermost first joined by ';' ("main;alloc_a;touch"), and its
 * site: the innermost frame not skipped (faults_set_skip), "touch".
 * file: the page belongs to a file mapping (fault-around applies). Returns true
 * if a fault was found; else both are the "[no fault seen]" label. */
bool faults_page(struct faults *f, uint32_t pid, uint64_t va, bool file,
		 uint32_t *callers, uint32_t *site);
/* The lowest page address in [va, end) that faults_page() may find a
 * fault for (pid's or a parent's page, or with file its window), or end:
 * every page before it is "[no fault seen]". va is page aligned. */
uint64_t faults_next(struct faults *f, uint32_t pid, uint64_t va, uint64_t end,
		     bool file);
/* The "[no fault seen]" label. */
uint32_t faults_none(const struct faults *f);

/* Footer lines: samples used, ignored, not unwound. */
void faults_notes(const struct faults *f, struct strlist *notes);

#endif
