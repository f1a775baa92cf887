// SPDX-License-Identifier: GPL-2.0-or-later
/* snap_dirty.c — anonymous pages dirty by smaps' totals of their mappings
 * (see snap_dirty.h).
 */
#include "config.h"

#include "record/snap_dirty.h"

#include "util/util.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* The /proc/vmstat counters that say a page may have been read back from
 * swap clean (swapped out: it may be faulted in again from the swap
 * cache; swapped in; zswap's) or cleaned by MADV_FREE, since boot. */
static const char *const dirty_signals[] = {
    "pswpin ", "pswpout ", "zswpin ", "zswpout ", "pglazyfree ",
};

/* Whether any counter of dirty_signals is above 0 (true when /proc/vmstat
 * cannot be read: smaps then decides): one read of /proc/vmstat, ~20 us,
 * a snapshot until it is, then none (s->clean_anon). */
static bool clean_anon_possible(struct snapper *s)
{
	char line[128];
	bool any = false;
	FILE *f;

	if (s->clean_anon)
		return true;
	f = fopen("/proc/vmstat", "re");
	if (!f)
		return true;
	while (!any && fgets(line, sizeof(line), f))
		for (size_t i = 0; i < ARRAY_SIZE(dirty_signals); i++) {
			size_t len = strlen(dirty_signals[i]);

			if (!strncmp(line, dirty_signals[i], len) &&
			    strtoull(line + len, NULL, 10) > 0)
				any = true;
		}
	fclose(f);
	s->clean_anon = any;
	return any;
}

/* MEMSZ_SMAPS_DIRTY: "1" reads smaps always, "0" never; else -1 (by
 * /proc/vmstat). */
static int dirty_env(void)
{
	const char *e = getenv("MEMSZ_SMAPS_DIRTY");

	return e && !strcmp(e, "1") ? 1 : e && !strcmp(e, "0") ? 0 : -1;
}

/* Whether mapping m may hold anonymous pages smaps counts (a private
 * mapping, not hugetlb: its pages are not in Private_Dirty). */
static bool dirty_candidate(const struct procmap *m)
{
	return m->flags != MAP_SHARED && !(m->vmflags & PROCMAP_VM_HUGETLB);
}

void snap_dirty_load(struct snap_job *j)
{
	struct snap_dirty *d = &j->dirty;
	const struct procmaps *m = j->maps;
	unsigned shift = j->s->page_shift - 10;
	int env = dirty_env();
	char path[64];
	size_t i;
	FILE *f;
	int n;

	memset(d, 0, sizeof(*d));
	for (i = 0; i < m->n && !dirty_candidate(&m->maps[i]); i++)
		;
	if (i == m->n || env == 0 || (env < 0 && !clean_anon_possible(j->s)))
		return;
	snprintf(path, sizeof(path), "/proc/%d/smaps", j->pid);
	f = fopen(path, "re");
	if (!f)
		return;
	setvbuf(f, NULL, _IOFBF, 1 << 16);
	d->kb = xmalloc(m->n * sizeof(*d->kb));
	for (i = 0; i < m->n; i++)
		d->kb[i].kb[SMAPS_F_RSS] = UINT64_MAX;
	n = procmaps_parse_kb(f, m, d->kb);
	fclose(f);
	if (n <= 0) {
		free(d->kb);
		d->kb = NULL;
		return;
	}
	for (i = 0; i < m->n; i++)
		for (size_t k = 0; k < SMAPS_F__COUNT; k++)
			if (d->kb[i].kb[SMAPS_F_RSS] != UINT64_MAX)
				d->kb[i].kb[k] >>= shift;
}

/* Whether smaps' fields kb of mapping m (pages) leave room for a clean
 * anonymous page: some anonymous page and some clean one (in a mapping
 * of no file, every page counted is anonymous). Elsewhere the pages
 * are all dirty, as memsz counts them without smaps. */
static bool may_be_clean(const struct smaps_kb *kb)
{
	return kb->kb[SMAPS_F_RSS] != UINT64_MAX && kb->kb[SMAPS_F_ANONYMOUS] &&
	       kb->kb[SMAPS_F_PRIVATE_CLEAN] + kb->kb[SMAPS_F_SHARED_CLEAN];
}

void snap_dirty_begin(struct snap_job *j, uint32_t vma)
{
	struct snap_dirty *d = &j->dirty;
	const struct smaps_kb *kb;

	d->on = d->kb && vma < j->maps->n &&
		dirty_candidate(&j->maps->maps[vma]) &&
		may_be_clean(&d->kb[vma]);
	if (!d->on)
		return;
	kb = &d->kb[vma];
	d->left_p = kb->kb[SMAPS_F_PRIVATE_DIRTY];
	d->left_s = kb->kb[SMAPS_F_SHARED_DIRTY];
	d->over = 0;
	d->rss = 0;
	d->map_cleaned = false;
}

void snap_dirty_apply(struct snap_job *j, struct snap_slot *sl)
{
	struct snap_dirty *d = &j->dirty;
	unsigned shift = j->s->page_shift;
	size_t n = 0;

	if (!d->on || !sl->nruns)
		return;
	xgrow(&d->runs, &d->runs_cap, 2 * sl->nruns, sizeof(*d->runs));
	for (size_t i = 0; i < sl->nruns; i++) {
		struct md_run r = sl->runs[i];
		uint32_t bit =
		    r.flags & (MD_PG_PRIVATE_DIRTY | MD_PG_SHARED_DIRTY);
		uint64_t *left =
		    bit == MD_PG_PRIVATE_DIRTY ? &d->left_p : &d->left_s;
		uint64_t take;

		d->runs[n++] = r;
		if (r.flags & MD_PG_PRESENT)
			d->rss += r.npages;
		if (!bit)
			continue;
		take = MIN(*left, (uint64_t)r.npages);
		*left -= take;
		/* a file page's dirtiness is its own (PG_dirty) */
		if (r.flags & MD_PG_FILE) {
			d->over += r.npages - take;
			continue;
		}
		if (take == r.npages)
			continue;
		/* its first take pages dirty, the others clean */
		if (take) {
			d->runs[n - 1].npages = (uint32_t)take;
			r.vaddr += take << shift;
			r.npages -= (uint32_t)take;
			d->runs[n++] = r;
		}
		d->runs[n - 1].flags &= ~bit;
		d->cleaned += r.npages;
		d->map_cleaned = true;
	}
	xgrow(&sl->runs, &sl->cap, n, sizeof(*sl->runs));
	memcpy(sl->runs, d->runs, n * sizeof(*sl->runs));
	sl->nruns = n;
}

void snap_dirty_end(struct snap_job *j, uint32_t vma)
{
	struct snap_dirty *d = &j->dirty;
	uint64_t off;

	if (!d->on)
		return;
	/* smaps' dirty pages none of the mapping's took, and those its
	 * dirty file pages took beyond them */
	off = d->left_p + d->left_s + d->over;
	d->off += off;
	d->noff += off != 0;
	d->nchanged += d->rss != d->kb[vma].kb[SMAPS_F_RSS];
	d->ncleaned += d->map_cleaned;
	d->on = false;
}

int snap_dirty_finish(struct snap_job *j, uint32_t seq, bool note)
{
	struct snap_dirty *d = &j->dirty;
	unsigned shift = j->s->page_shift;
	int ret = 0;

	if (note && (d->cleaned || d->off || d->nchanged)) {
		/* the numbers again for a report to add up (notekind.h) */
		const uint64_t vals[MD_DIRTY_V__COUNT] = {
		    [MD_DIRTY_V_PID] = (uint64_t)j->pid,
		    [MD_DIRTY_V_CLEANED] = d->cleaned << shift,
		    [MD_DIRTY_V_NCLEANED] = d->ncleaned,
		    [MD_DIRTY_V_OFF] = d->off << shift,
		    [MD_DIRTY_V_NOFF] = d->noff,
		    [MD_DIRTY_V_NCHANGED] = d->nchanged,
		};
		char *txt = xasprintf(
		    "pid %d, snapshot %" PRIu32 ": %" PRIu64 " bytes of "
		    "anonymous memory in %" PRIu32 " mapping(s) counted clean "
		    "by the dirty totals smaps gives those mappings, not page "
		    "by page: no interface shows whether such a page (read "
		    "back from swap, or freed with MADV_FREE) was written "
		    "since, so which of a mapping's anonymous pages are the "
		    "clean ones is not known (DIRTY and SHR DIRTY of a "
		    "mapping are smaps', their split by symbol or stack "
		    "inside it is not); DIRTY and SHR DIRTY differ from smaps "
		    "by %" PRIu64 " bytes in %" PRIu32
		    " mapping(s), and %" PRIu32
		    " mapping(s) changed between the reads of smaps and of "
		    "their pages",
		    j->pid, seq, d->cleaned << shift, d->ncleaned,
		    d->off << shift, d->noff, d->nchanged);

		ret = snap_note_vals(j->s, MD_NOTE_DIRTY_BY_MAPPING, NULL, txt,
				     vals, MD_DIRTY_V__COUNT);
		free(txt);
	}
	free(d->kb);
	free(d->runs);
	memset(d, 0, sizeof(*d));
	return ret;
}
