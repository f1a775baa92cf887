/* SPDX-License-Identifier: GPL-2.0-or-later */
/* snap_pool.h — the worker pool of a snapshot: the mappings cut into
 * tasks of at most CHUNK_PAGES pages, read and classified by up to
 * SNAP_THREADS_MAX threads (the caller's included) at most WINDOW tasks
 * ahead of the oldest not yet written, and written in order by the
 * caller's thread. Internal to record/snap*.c.
 */
#ifndef MEMSZ_RECORD_SNAP_POOL_H
#define MEMSZ_RECORD_SNAP_POOL_H

#include "record/snap_int.h"

/* Run the job's tasks on up to s->nthreads threads and write the mapping
 * records in order. ids[i] is the image id of mapping i; e counts the
 * unreadable pages, st what was written. With a release callback set
 * (snapper_set_release) and a job small enough, the page tables are
 * scanned first, the callback called, and the rest done on this thread.
 * Returns 0 or the first error (-ESRCH: the process is gone); the job's
 * tasks and sparse flags are the caller's to free. */
int snap_job_run(struct snap_job *j, const uint32_t *ids, struct md_snap_end *e,
		 struct snap_stats *st);

/* The name notes give mapping name (procmaps: "" for an unnamed
 * anonymous one): "[anon]" for that, as report labels it, else name. */
const char *snap_map_label(const char *name);

/* The text of the NOTE that n pages of mapping name cannot be read from
 * pagemap ("%lu pages of '%s' ...", name as snap_map_label() gives it, the
 * form md_note_kind_from_text() knows). Caller frees. */
char *snap_unreadable_note(const char *name, unsigned long n);

#endif
