/* SPDX-License-Identifier: GPL-2.0-or-later */
/* snap_images.h — the image registry of a recording (one IMAGE record per
 * mapped file, by device and inode; snapper_image in snapshot.h) and the
 * names a snapshot gives mappings /proc/PID/maps leaves unnamed. Internal
 * to record/snap*.c.
 */
#ifndef MEMSZ_RECORD_SNAP_IMAGES_H
#define MEMSZ_RECORD_SNAP_IMAGES_H

#include "record/snap_int.h"

/* The image id of each mapping of maps into (*ids)[i] (UINT32_MAX for
 * one that maps no file), writing an IMAGE record for each file seen the
 * first time. *ids is allocated even on an error: caller frees. Returns
 * 0 or a negative code. */
int snap_images_map(struct snapper *s, int pid, const struct procmaps *maps,
		    uint32_t **ids);

/* A descriptor, open for reading, of the regular file mapping m maps,
 * which snap_images_map opened in this snapshot (*size its st_size), or
 * -1. Borrowed: valid until snap_images_close_fds. */
int snap_images_fd(const struct snapper *s, const struct procmap *m,
		   uint64_t *size);

/* The directory /proc/self/fd (opened at the first call, kept until
 * snap_images_free), or -1: a descriptor of it opens one of memsz's own
 * again with one short walk. */
int snap_images_self_fd_dir(struct snapper *s);

/* Close the descriptors snap_images_map kept (snapper_take's end). */
void snap_images_close_fds(struct snapper *s);

/* Count pid's snapshot in the registry's rounds: a pid already counted
 * ends the round, and the images no snapshot of the round before it
 * mapped are forgotten but named files (SNAP_IMAGES_DORMANT_MAX): one that
 * comes back, or a kept one whose size, mtime or build-id changed, gets a
 * new IMAGE record under a new id, so the reader still sees each id's
 * IMAGE record first, once.
 * snap_images_map() calls it. */
void snap_images_round(struct snapper *s, int pid);

/* The images the registry holds now. */
size_t snap_images_count(const struct snapper *s);

/* Free the registry (snapper_free). */
void snap_images_free(struct snapper *s);

/* Name "[stack:TID]" each anonymous mapping that holds the stack pointer
 * of thread TID (not the main thread's, which the kernel names [stack]),
 * as kernels before 4.5 did in /proc/PID/maps. A thread running right now
 * has no stack pointer to read: its stack stays unnamed. */
void snap_name_thread_stacks(int pid, struct procmaps *maps);

#endif
