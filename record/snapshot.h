/* SPDX-License-Identifier: GPL-2.0-or-later */
/* snapshot.h — one residency snapshot of one process into memsz.data.
 *
 * Reads the VMA list (/proc/PID/maps), then per VMA the pagemap entries
 * (large preads, or PAGEMAP_SCAN where the kernel has it and it is faster),
 * and, when PFNs are readable, kpagecount/kpageflags for the pages that are
 * not exclusively mapped (sorted by PFN, read in blocks). Writes SNAP_BEGIN,
 * one SNAP_MAPPING per VMA with run-length encoded page runs, SNAP_END.
 * Never writes to the target.
 */
#ifndef MEMSZ_RECORD_SNAPSHOT_H
#define MEMSZ_RECORD_SNAPSHOT_H

#include <stdint.h>

#include "data/datafile.h"

/* Per-recording state: open kpagecount/kpageflags fds, detected kernel
 * features, image ids already written. One per `memsz record`. */
struct snapper;
struct procmaps;

struct snap_stats {
	uint64_t mappings, pages_present, pages_swapped, runs;
	uint64_t kpage_lookups;
	/* pages a snapshot that let the process go (snapper_set_release)
	 * found changed by the time it read their pagemap entries */
	uint64_t pages_changed;
	bool pfn_available; /* false: no CAP_SYS_ADMIN, no PSS */
	bool used_pagemap_scan;
};

/* New snapper; probes /proc/kpagecount, /proc/kpageflags and PAGEMAP_SCAN.
 * Returns 0 and *out or a negative code. */
int snapper_new(struct md_writer *w, struct snapper **out);
void snapper_free(struct snapper *s);
/* True if PFNs can be read (so PSS and kpageflags are available). */
bool snapper_has_pfn(const struct snapper *s);

/* What snapper_take would do first that does not need pid held: read
 * memsz's own pages of the files pid maps (for the observer-free
 * mapcounts). snapper_take uses it if pid still maps the same files, so a
 * caller about to stop pid calls this before. Optional. */
void snapper_prepare(struct snapper *s, int pid);

/* Have the next snapper_take of pid use a copy of maps, pid's mappings
 * its caller read from /proc/PID/maps just before the call (held, if it
 * holds pid), instead of reading them again. The next snapper_take drops
 * it whatever its pid. Optional. */
void snapper_give_maps(struct snapper *s, int pid, const struct procmaps *maps);

/* Have the next snapper_take call fn(arg) as soon as it has scanned pid's
 * page tables (or failed), before it reads the pagemap entries, looks the
 * pages up and writes them: a caller holding pid still for the snapshot
 * lets it run again there. Which pages are present, swapped or huge is
 * as at the release (with PAGEMAP_SCAN; without it the pagemap entries
 * are read before), the rest is read while it runs: a page found changed
 * by then is recorded in its state at the release without its page frame
 * (counted in pages_changed, and in a NOTE). */
void snapper_set_release(struct snapper *s, void (*fn)(void *arg), void *arg);

/* Have every snapper_take call fn(arg), on the thread that called it,
 * between chunks of pages once they are read while the process may run
 * (it was not held, or has been released): a snapshot of a large process
 * takes long, and a caller that must stop it meanwhile (sampling
 * backpressure) can do so there. NULL: none. */
void snapper_set_tick(struct snapper *s, void (*fn)(void *arg), void *arg);
/* Have the snapshots call fn(arg, msg) with each NOTE they write ("note:
 * " and its text) and, once a snapshot, what it decided by cost that the
 * recording does not say (whether it read smaps for the sharing of the
 * huge pages, or for the VmFlags of locked memory): record -v. NULL:
 * none (the default). The recording is the same either way. */
void snapper_set_tell(struct snapper *s, void (*fn)(void *arg, const char *msg),
		      void *arg);
/* The inode of the memory cgroup of the process the next snapshots are
 * of (0: unknown): the pages kpagecgroup charges elsewhere are recorded
 * (SNAP_CHARGE records). */
void snapper_set_cgroup(struct snapper *s, uint64_t ino);
/* With on, the snapshots look up the memory cgroup of every present
 * anonymous page too, not only of file pages (a -G recording: memory a
 * process touched before it joined its cgroup is charged elsewhere);
 * that costs a kpagecgroup read per anonymous page. Off at first. */
void snapper_set_anon_charges(struct snapper *s, bool on);
/* The memory cgroups (inodes; 0: none) other than the process's own that
 * the last snapshot found its pages charged to, each once, into *inos
 * (borrowed, valid until the next snapshot). Returns their count. */
size_t snapper_payers(const struct snapper *s, const uint64_t **inos);

/* Take one snapshot of pid, written as sequence number seq with extra
 * MD_SNAP_F_* flags (FROZEN, AT_EXIT) ORed in. Writes an IMAGE record the
 * first time each (dev, ino) file is seen. Returns 0, -ESRCH if the process
 * is gone (nothing partial is left unterminated: a begun snapshot always
 * gets its SNAP_END), or another negative code. stats may be NULL. */
int snapper_take(struct snapper *s, int pid, uint32_t seq, uint32_t flags,
		 struct snap_stats *stats);

/* Write an IMAGE record for the file mapped at [start, end) at path by pid
 * if (dev, ino) is new; *image_id receives its id. A file the path does not
 * reach is opened through /proc/PID/map_files/START-END. Used by the mmap2
 * consumer too. */
int snapper_image(struct snapper *s, int pid, const char *path, uint64_t start,
		  uint64_t end, uint32_t dev_major, uint32_t dev_minor,
		  uint64_t ino, const uint8_t *build_id, uint32_t build_id_len,
		  uint32_t *image_id);

#endif
