/* SPDX-License-Identifier: GPL-2.0-or-later */
/* snap_hold.h — chunks held for their page-frame look-ups: a chunk with
 * many pages whose mapcount PSS needs (pages shared copy-on-write after a
 * fork, shared memory) or whose kpageflags dirtiness needs, their frames
 * scattered, is kept in its slot, and the look-ups of all the chunks held
 * in the window are read together, their frames sorted at once. Internal to
 * record/snap*.c.
 */
#ifndef MEMSZ_RECORD_SNAP_HOLD_H
#define MEMSZ_RECORD_SNAP_HOLD_H

#include "record/snap_int.h"

/* A chunk is held when at least this many of its pages want a kpage
 * file read. */
#define HOLD_MIN_LOOKUPS (CHUNK_PAGES / 8)

/* Hold chunk k of the job, read into c (c->nent entries, its nlook pages
 * to look up in c->look, the largest key maxkey, as kpage_prepass listed
 * them; memsz's own pages marked, observer_task) at va, instead of
 * classifying it now, when that pays: at least HOLD_MIN_LOOKUPS look-ups
 * that want a kpage file read (kpage_wants), single pages (not
 * weighted), PFNs a hold key holds, and frames so
 * scattered that their sorted look-ups would take a pread per fewer than
 * HOLD_BLOCK_KEYS (c->look is sorted by PFN either way). Returns whether
 * it was held: then its slot has no runs until snap_hold_resolve. Called
 * on any of the job's threads. */
bool snap_hold(struct snap_job *j, struct snap_ctx *c, size_t k, uint64_t va,
	       size_t nlook, uint64_t maxkey);

/* The end of the finished tasks [from, to) of the job to write now: up to
 * the first held one; a held one first waits (from is returned) until the
 * tasks of the window after it are done too (to reaches from + WINDOW, or
 * the last task), so that its look-ups are read with as many others as
 * the window holds. */
size_t snap_hold_flush_end(const struct snap_job *j, size_t from, size_t to);

/* Read the look-ups of the chunks held among tasks [from, to), all of
 * them sorted by frame at once (kpage_keys_read_all), and classify each
 * into its slot's runs (sl->ret: 0 or -errno), through the scratch c of
 * the caller's thread (s->ctx[0], which is not running a task). */
void snap_hold_resolve(struct snap_job *j, struct snap_ctx *c, size_t from,
		       size_t to);

/* Free what the held chunks of the snapshot just taken kept: the copies
 * in the slots, and the keys. */
void snap_hold_free(struct snapper *s);

#endif
