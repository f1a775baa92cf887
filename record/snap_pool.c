// SPDX-License-Identifier: GPL-2.0-or-later
/* snap_pool.c — the worker pool of a snapshot (see snap_pool.h): tasks,
 * threads, the window of slots, the writing of mapping records in order,
 * and the split job that lets a held process go once its page tables are
 * scanned.
 */
#include "config.h"

#include "record/snap_pool.h"

#include "record/snap_hold.h"
#include "record/snap_kpage.h"
#include "record/snap_dirty.h"
#include "record/snap_share.h"
#include "record/snap_observer.h"
#include "record/snap_pagemap.h"
#include "record/snap_shmswap.h"
#include "util/util.h"

#include <pthread.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The scratch of a thread is sized for the largest task of the jobs it
 * ran so far, in pages, rounded up to a power of two from CTX_MIN_PAGES:
 * a small process's snapshot takes a few KiB, not the ~1 MiB a chunk of
 * CHUNK_PAGES needs (which malloc maps and unmaps: a TLB flush, and a
 * page fault per page touched, on every one-shot). */
#define CTX_MIN_PAGES 256u

/* The bytes of the scratch of cap pages: six arrays of a u64 per page,
 * the kpage read buffer (ctx_kbuf_entries), then a u32 and a byte per
 * page (in that order, so that each stays aligned). */
static size_t ctx_bytes(size_t cap)
{
	return cap * (6 * sizeof(uint64_t) + sizeof(uint32_t) + 1) +
	       ctx_kbuf_entries(cap) * sizeof(uint64_t);
}

/* The next n bytes of the block at *p. */
static void *carve(uint8_t **p, size_t n)
{
	void *r = *p;

	*p += n;
	return r;
}

/* Lay the arrays of c for cap pages out in one new block that starts
 * with c->pm (snapper_free frees it through c->pm): one allocation
 * instead of nine. */
static void ctx_carve(struct snap_ctx *c, size_t cap)
{
	uint8_t *p = xmalloc(ctx_bytes(cap));

	c->cap = cap;
	c->nkbuf = ctx_kbuf_entries(cap);
	c->pm = carve(&p, cap * sizeof(*c->pm));
	c->off = carve(&p, cap * sizeof(*c->off));
	c->kcount = carve(&p, cap * sizeof(*c->kcount));
	c->kflags = carve(&p, cap * sizeof(*c->kflags));
	c->look = carve(&p, cap * sizeof(*c->look));
	c->look2 = carve(&p, cap * sizeof(*c->look2));
	c->kbuf = carve(&p, c->nkbuf * sizeof(*c->kbuf));
	c->w = carve(&p, cap * sizeof(*c->w));
	c->extra = carve(&p, cap);
}

/* The scratch of thread t, for tasks of up to pages pages: allocated the
 * first time, grown when a job has larger tasks, and kept in the snapper
 * for the next snapshots of the recording (at most the CHUNK_PAGES one).
 * The PAGEMAP_SCAN regions (c->vec) are a fixed block of their own. */
static struct snap_ctx *ctx_get(struct snapper *s, unsigned t, size_t pages)
{
	struct snap_ctx *c = s->ctx[t];
	size_t cap = CTX_MIN_PAGES;

	if (!c) {
		c = xcalloc(1, sizeof(*c));
		c->vec = xmalloc(SCAN_VEC * sizeof(*c->vec));
		s->ctx[t] = c;
	}
	if (c->cap >= pages && c->pm)
		return c;
	while (cap < pages && cap < CHUNK_PAGES)
		cap *= 2;
	free(c->pm);
	ctx_carve(c, cap);
	return c;
}

/* The pages of the largest task of j. */
static size_t tasks_max_pages(const struct snap_job *j)
{
	size_t n = 0;

	for (size_t k = 0; k < j->ntasks; k++)
		n = MAX(n, (size_t)j->tasks[k].n);
	return n;
}

/* The page at which task k starts. */
static uint64_t task_va(const struct snap_job *j, size_t k)
{
	const struct snap_task *t = &j->tasks[k];

	return j->maps->maps[t->vma].start + (t->first << j->s->page_shift);
}

/* The answer c has for the file of mapping m, asked whole in this job,
 * or NULL. */
static struct clean_file *clean_find(struct snap_ctx *c,
				     const struct procmap *m)
{
	for (size_t i = 0; i < c->ncf; i++)
		if (c->cf[i].ino == m->ino &&
		    c->cf[i].dev_major == m->dev_major &&
		    c->cf[i].dev_minor == m->dev_minor &&
		    !strcmp(c->cf[i].name, m->name ? m->name : ""))
			return &c->cf[i];
	return NULL;
}

/* Set c->file_clean for task k with nlook pages to look up: the part of
 * its mapping's file the task covers known to have no dirty page cached
 * (kpage_file_clean), asked only where enough pages are to be looked up
 * to pay for it. A small file is asked whole once per job and thread,
 * and a clean answer serves its other mappings' tasks without asking. */
static void task_clean(const struct snap_job *j, struct snap_ctx *c, size_t k,
		       size_t nlook)
{
	const struct procmap *m = &j->maps->maps[j->tasks[k].vma];
	struct clean_file *f;
	enum kpage_clean r;

	c->file_clean = false;
	if (!nlook || !j->s->has_kpageflags || !m->ino)
		return;
	f = clean_find(c, m);
	if (f && f->clean) {
		c->file_clean = true;
		return;
	}
	if (nlook < CLEAN_FILE_MIN_LOOKUPS)
		return;
	r = kpage_file_clean(j, c, k, nlook, !f);
	c->file_clean = r == KPAGE_CLEAN_RANGE || r == KPAGE_CLEAN_FILE;
	if (f || r == KPAGE_CLEAN_UNASKED)
		return;
	/* not asked whole again: clean, or its tasks ask their range */
	xgrow(&c->cf, &c->cfcap, c->ncf + 1, sizeof(*c->cf));
	c->cf[c->ncf++] =
	    (struct clean_file){m->dev_major, m->dev_minor, m->ino,
				m->name ? m->name : "", r == KPAGE_CLEAN_FILE};
}

/* Classify task k, read into c (its nlook look-ups in c->look, the
 * largest maxkey), into its slot's runs: its file's cleanness asked,
 * memsz's own pages marked, then classified, or with hold the chunk held
 * for its look-ups when that pays (snap_hold). Returns 0 or -errno. */
static int task_classify(struct snap_job *j, struct snap_ctx *c, size_t k,
			 size_t nlook, uint64_t maxkey, bool hold)
{
	struct snap_slot *sl = &j->s->slots[k % WINDOW];
	uint64_t va = task_va(j, k);

	task_clean(j, c, k, nlook);
	/* memsz's own pages, before their mapcounts are read (it reads
	 * c->look in page order, as kpage_prepass lists it: kpage_fill may
	 * sort it later) */
	observer_task(j->s, c, &j->maps->maps[j->tasks[k].vma], va, nlook);
	if (hold && snap_hold(j, c, k, va, nlook, maxkey))
		return 0;
	return kpage_classify(j->s, c, sl, va, c->nent, nlook, maxkey);
}

/* Read task k into its slot: its pagemap entries, then its runs, or the
 * chunk held for its look-ups. */
static void task_run(struct snap_job *j, struct snap_ctx *c, size_t k)
{
	struct snap_slot *sl = &j->s->slots[k % WINDOW];
	size_t nlook;
	uint64_t maxkey;
	int ret;

	sl->held.on = false;
	ret = pagemap_read_task(j, c, k, &nlook, &maxkey);
	if (ret > 0)
		ret = task_classify(j, c, k, nlook, maxkey, true);
	sl->ret = ret < 0 ? ret : 0;
}

/* Give the run and charge arrays of slot sl, written, to the spares, for
 * the next task claimed (slot_bufs_take). Called with j->mu held (or on
 * the job's only thread). */
static void slot_bufs_put(struct snapper *s, struct snap_slot *sl)
{
	if (!sl->runs && !sl->cg)
		return;
	s->spare[s->nspare++] =
	    (struct slot_bufs){sl->runs, sl->cap, sl->cg, sl->cgcap};
	sl->runs = NULL;
	sl->cg = NULL;
	sl->cap = sl->cgcap = sl->nruns = sl->ncg = 0;
}

/* Give slot sl, about to be claimed for a task of n pages, spare arrays
 * if it has none of its own: the smallest whose runs hold n, else the
 * largest (it grows). Taking the last put instead made every array grow to
 * the largest chunk's runs over a recording's snapshots (a slot's own
 * grows only to its own chunks'): a recording of a 512 MiB mapping a
 * quarter touched and 400 small ones held 64 arrays of 4 096 runs where
 * the slots' held 34 656 runs in all, 5.5 MiB more of peak RSS. Called as
 * slot_bufs_put. */
static void slot_bufs_take(struct snapper *s, struct snap_slot *sl, uint32_t n)
{
	size_t best = SIZE_MAX;
	struct slot_bufs *b;

	if (sl->runs || sl->cg || !s->nspare)
		return;
	for (size_t i = 0; i < s->nspare; i++) {
		size_t c = s->spare[i].cap, bc;

		if (best == SIZE_MAX) {
			best = i;
			continue;
		}
		bc = s->spare[best].cap;
		/* one that holds n beats one that does not; of two that do,
		 * the smaller; of two that do not, the larger */
		if (c >= n ? bc < n || c < bc : bc < n && c > bc)
			best = i;
	}
	b = &s->spare[best];
	sl->runs = b->runs;
	sl->cap = b->cap;
	sl->cg = b->cg;
	sl->cgcap = b->cgcap;
	*b = s->spare[--s->nspare];
}

/* Claim the next task, waiting while the window is full. Returns its index
 * or SIZE_MAX when there is nothing left to claim. Called with j->mu held;
 * the caller's thread (flusher) must not wait on itself. */
static size_t task_claim(struct snap_job *j, bool flusher)
{
	while (!j->stop && j->next < j->ntasks &&
	       j->next >= j->flushed + WINDOW) {
		if (flusher)
			return SIZE_MAX;
		pthread_cond_wait(&j->cv, &j->mu);
	}
	if (j->stop || j->next >= j->ntasks)
		return SIZE_MAX;
	j->s->slots[j->next % WINDOW].done = false;
	slot_bufs_take(j->s, &j->s->slots[j->next % WINDOW],
		       j->tasks[j->next].n);
	return j->next++;
}

static void task_done(struct snap_job *j, size_t k)
{
	pthread_mutex_lock(&j->mu);
	j->s->slots[k % WINDOW].done = true;
	pthread_cond_broadcast(&j->cv);
	pthread_mutex_unlock(&j->mu);
}

struct snap_thread {
	struct snap_job *j;
	struct snap_ctx *c;
	pthread_t tid;
};

static void *worker_main(void *arg)
{
	struct snap_thread *th = arg;
	struct snap_job *j = th->j;
	size_t k;

	for (;;) {
		pthread_mutex_lock(&j->mu);
		k = task_claim(j, false);
		pthread_mutex_unlock(&j->mu);
		if (k == SIZE_MAX)
			break;
		task_run(j, th->c, k);
		task_done(j, k);
	}
	return NULL;
}

const char *snap_map_label(const char *name)
{
	return name[0] ? name : "[anon]";
}

char *snap_unreadable_note(const char *name, unsigned long n)
{
	return xasprintf("%lu pages of '%s' cannot be read from pagemap", n,
			 snap_map_label(name));
}

static bool noted(struct snapper *s, const char *name)
{
	for (size_t i = 0; i < s->nnoted; i++)
		if (!strcmp(s->noted[i], name))
			return true;
	xgrow(&s->noted, &s->noted_cap, s->nnoted + 1, sizeof(*s->noted));
	s->noted[s->nnoted++] = xstrdup(name);
	return false;
}

/* The mapping being written from its tasks' runs. */
struct vma_acc {
	uint64_t present, swapped, unreadable;
};

/* Call the tick callback, if any (snapper_set_tick). */
static void snap_tick(const struct snapper *s)
{
	if (s->tick)
		s->tick(s->tick_arg);
}

/* The present pages of a hugetlb mapping m are hugetlb pages: their runs
 * in sl get MD_PG_HUGE, which kpageflags' KPF_HUGE gives only the pages
 * it looks up (shared ones), where the snapshot has kpageflags. A report
 * of the machine tells them from the rest of meminfo's Hugetlb by it. */
static void hugetlb_runs(const struct snapper *s, const struct procmap *m,
			 struct snap_slot *sl)
{
	if (!s->has_kpageflags || !(m->vmflags & PROCMAP_VM_HUGETLB))
		return;
	if (sl->nbits && (sl->bits_fl & MD_PG_PRESENT))
		sl->bits_fl |= MD_PG_HUGE;
	for (size_t i = 0; i < sl->nruns; i++)
		if (sl->runs[i].flags & MD_PG_PRESENT)
			sl->runs[i].flags |= MD_PG_HUGE;
}

/* The bitmap of slot sl (snap_slot.nbits) as its runs, pages of 1 << shift
 * bytes, with the runs it had besides (classify_mostly) in their places,
 * for shmswap_fill (a shared mapping whose pages may be swapped out
 * between them). */
static void slot_bits_runs(struct snap_slot *sl, unsigned shift)
{
	struct md_run *other = NULL;
	size_t nr = 0, r = 0, nother = sl->nruns;
	bool prev = false;

	if (nother) {
		other = xmalloc(nother * sizeof(*other));
		memcpy(other, sl->runs, nother * sizeof(*other));
	}
	/* a run a page at most, those besides included */
	xgrow(&sl->runs, &sl->cap, sl->nbits, sizeof(*sl->runs));
	for (size_t i = 0; i < sl->nbits; i++) {
		bool set = sl->bits[i >> 6] >> (i & 63) & 1;

		if (r < nother &&
		    i == (other[r].vaddr - sl->bits_va) >> shift) {
			/* its pages' bits are clear */
			sl->runs[nr++] = other[r];
			i += other[r++].npages - 1;
			prev = false;
			continue;
		}
		if (set && prev)
			sl->runs[nr - 1].npages++;
		else if (set)
			sl->runs[nr++] = (struct md_run){
			    .vaddr = sl->bits_va + (i << shift),
			    .npages = 1,
			    .flags = sl->bits_fl,
			    .mapcount = sl->bits_mc,
			};
		prev = set;
	}
	free(other);
	sl->nruns = nr;
	sl->nbits = 0;
}

/* Slot sl's bitmap into the mapping's record in pieces, the runs it has
 * besides (classify_mostly) between them, in address order. Returns 0 or
 * the first error. */
static int slot_add_bits(const struct snapper *s, const struct snap_slot *sl)
{
	uint64_t from = 0;
	int ret = 0;

	for (size_t r = 0; r < sl->nruns && !ret; r++) {
		uint64_t at =
		    (sl->runs[r].vaddr - sl->bits_va) >> s->page_shift;

		ret = md_mapping_add_bits(s->w, sl->bits_va, sl->bits, from, at,
					  sl->bits_fl, sl->bits_mc);
		if (!ret)
			ret = md_mapping_add(s->w, &sl->runs[r], 1);
		from = at + sl->runs[r].npages;
	}
	if (!ret)
		ret = md_mapping_add_bits(s->w, sl->bits_va, sl->bits, from,
					  sl->nbits, sl->bits_fl, sl->bits_mc);
	return ret;
}

/* Add slot sl's pages to the mapping's record: its bitmap as it is, else
 * its runs with the shmem pages swapped out in the gaps between them
 * (shmswap_fill; last: the mapping's last task). */
static int slot_add(struct snap_job *j, struct snap_slot *sl, bool last)
{
	if (sl->nbits && !j->shm.on && !snap_dirty_on(j)) {
		j->shm.added = 0;
		return slot_add_bits(j->s, sl);
	}
	if (sl->nbits)
		slot_bits_runs(sl, j->s->page_shift);
	/* anonymous pages dirty by smaps' totals (snap_dirty.h) */
	snap_dirty_apply(j, sl);
	shmswap_fill(j, sl->runs, sl->nruns, last);
	return md_mapping_add(j->s->w, j->shm.out, j->shm.nout);
}

/* Write the finished tasks [from, to) in order, the chunks held among them
 * classified first (snap_hold_resolve, through the scratch of the
 * caller's thread, s->ctx[0]): each task's runs go to the encoder of its
 * mapping's record as they come (the encoder joins the run that crosses a
 * chunk boundary), with the shmem pages swapped out in the gaps between
 * them (shmswap_fill), the record is written after its last task.
 * Returns 0 or the first task's error. */
static int flush_tasks(struct snap_job *j, size_t from, size_t to,
		       const uint32_t *ids, struct vma_acc *a,
		       struct md_snap_end *e, struct snap_stats *st)
{
	struct snapper *s = j->s;
	size_t k;
	int ret;

	/* on the calling thread, which is the only one to flush; the
	 * process may be running (it is not held, or no longer) */
	snap_tick(s);
	snap_hold_resolve(j, s->ctx[0], from, to);
	for (k = from; k < to; k++) {
		const struct snap_task *t = &j->tasks[k];
		const struct procmap *m = &j->maps->maps[t->vma];
		struct snap_slot *sl = &s->slots[k % WINDOW];
		uint64_t nruns;

		if (sl->ret < 0)
			return sl->ret;
		if (t->flags & TASK_BEGIN) {
			memset(a, 0, sizeof(*a));
			snap_dirty_begin(j, t->vma);
			ret = md_mapping_begin(s->w, m->start, m->end);
			/* shmem swapped out: pagemap shows holes there */
			if (!ret)
				ret = shmswap_begin(j, t->vma);
			if (ret < 0)
				return ret;
		}
		hugetlb_runs(s, m, sl);
		ret = slot_add(j, sl, t->flags & TASK_END);
		a->present += sl->present;
		a->swapped += sl->swapped + j->shm.added;
		a->unreadable += sl->unreadable;
		if (ret < 0)
			return ret;
		ret = kpage_charges_add(s, sl);
		if (ret < 0)
			return ret;
		if (!(t->flags & TASK_END))
			continue;
		snap_dirty_end(j, t->vma);
		struct md_snap_mapping mr = {
		    .start = m->start,
		    .end = m->end,
		    .pgoff = m->pgoff,
		    .dev_major = m->dev_major,
		    .dev_minor = m->dev_minor,
		    .ino = m->ino,
		    .prot = m->prot,
		    .flags =
			m->flags |
			(m->vmflags & PROCMAP_VM_LOCKED ? MD_MAP_LOCKED : 0),
		    .image_id = ids[t->vma],
		    .name = m->name,
		};

		/* [vsyscall] lies above the task size, where pagemap has no
		 * entries; it is the kernel's page (smaps: Rss 0), so nothing
		 * the process owns goes unread. */
		if (!strcmp(m->name, "[vsyscall]"))
			a->unreadable = 0;
		e->unreadable_pages += a->unreadable;
		if (a->unreadable && !noted(s, snap_map_label(m->name))) {
			char *txt = snap_unreadable_note(
			    m->name, (unsigned long)a->unreadable);

			ret = snap_note(s, MD_NOTE_UNREADABLE_PAGES,
					snap_map_label(m->name), txt);
			free(txt);
			if (ret < 0)
				return ret;
		}
		ret = md_mapping_end(s->w, &mr, &nruns);
		if (ret < 0)
			return ret;
		st->mappings++;
		st->pages_present += a->present;
		st->pages_swapped += a->swapped;
		st->runs += nruns;
	}
	return 0;
}

/* Plan when smaps is read for the huge pages' sharing (snap_share.h): now,
 * when the huge pages PAGEMAP_SCAN found PMD-mapped (SCAN_PMD regions)
 * are enough to pay for it. Each mapping's share of them is counted, to
 * be checked against its AnonHugePages (SHARE_THP_ALL). */
static void share_plan(struct snap_job *j)
{
	const struct snapper *s = j->s;
	uint64_t pages = 0;

	if (!s->pmd_pages)
		return;
	for (size_t k = 0; k < j->ntasks; k++) {
		const struct snap_task *t = &j->tasks[k];

		for (size_t r = t->reg; r < t->reg + t->nreg; r++) {
			const struct snap_page_region *g = &j->regions[r];

			if (!(g->categories & SCAN_PMD))
				continue;
			pages += (g->end - g->start) >> s->page_shift;
			snap_share_pmd(j->share, t->vma, g->end - g->start);
		}
	}
	snap_share_plan(j->share, pages / s->pmd_pages, pages,
			j->rss_known ? j->rss_pages : 0);
}

/* Split the mappings into tasks of at most CHUNK_PAGES pages (one even
 * for an empty mapping, so that every mapping gets its record): a large
 * one, where PAGEMAP_SCAN works, into packed tasks of the pages it finds
 * (pagemap_prescan), the others into tasks of contiguous pages. *total
 * is the pages of the tasks. */
static void tasks_make(struct snap_job *j, uint64_t *total_pages)
{
	const struct snapper *s = j->s;
	/* the prescan needs c->vec alone */
	struct snap_ctx *c = ctx_get(j->s, 0, 0);
	size_t i, k;

	*total_pages = 0;
	j->ntasks = 0;
	/* no entry read ahead in an earlier job is taken for this one's */
	for (unsigned t = 0; t < SNAP_THREADS_MAX; t++)
		if (s->ctx[t])
			s->ctx[t]->ra_n = 0;
	j->sparse = xcalloc(j->maps->n + 1, 1);
	j->share = snap_share_new(j->pid, j->maps);
	for (i = 0; i < j->maps->n; i++) {
		const struct procmap *m = &j->maps->maps[i];
		uint64_t npages = m->start < m->end
				      ? (m->end - m->start) >> s->page_shift
				      : 0;
		uint64_t first = 0;
		int pre = 1;

		k = j->ntasks;
		if (s->has_scan && npages > PRESCAN_MIN_PAGES)
			pre = pagemap_prescan(j, c, (uint32_t)i);
		if (pre == 0)
			continue;
		/* a mapping the prescan found dense (-EAGAIN) is read whole,
		 * not scanned again chunk by chunk */
		j->sparse[i] =
		    s->has_scan && npages > CHUNK_PAGES && pre != -EAGAIN;
		do {
			struct snap_task *t;

			xgrow(&j->tasks, &j->tasks_cap, j->ntasks + 1,
			      sizeof(*j->tasks));
			t = &j->tasks[j->ntasks++];
			memset(t, 0, sizeof(*t));
			t->vma = (uint32_t)i;
			t->first = first;
			t->n = (uint32_t)MIN(npages - first,
					     (uint64_t)CHUNK_PAGES);
			first += t->n;
		} while (first < npages);
		j->tasks[k].flags |= TASK_BEGIN;
		j->tasks[j->ntasks - 1].flags |= TASK_END;
	}
	for (k = 0; k < j->ntasks; k++)
		*total_pages += j->tasks[k].n;
	share_plan(j);
}

/* Pages of charge queue kept from one snapshot to the next, and of a
 * slot's pages queued (16 KiB a slot, 1 MiB over the window). */
#define CGQ_KEEP (1u << 15)
#define CGQ_SLOT_KEEP (1u << 10)

/* Add what the threads' contexts counted to st, and start them over; free
 * a large charge queue. */
static void ctx_collect(struct snapper *s, struct snap_stats *st)
{
	for (unsigned t = 0; t < SNAP_THREADS_MAX; t++) {
		if (!s->ctx[t])
			continue;
		st->kpage_lookups += s->ctx[t]->kpage_lookups;
		st->used_pagemap_scan |= s->ctx[t]->scanned;
		st->pages_changed += s->ctx[t]->changed;
		s->ctx[t]->kpage_lookups = 0;
		s->ctx[t]->changed = 0;
		s->ctx[t]->scanned = false;
		s->ctx[t]->ncf = 0;
		s->ctx[t]->ra_n = 0;
	}
	/* the charge queue of a large snapshot (up to 24 bytes a page of
	 * CGQ_MAX) is not kept for the next one; a small one is */
	if (s->cgkey_cap > CGQ_KEEP) {
		free(s->cgkey);
		free(s->cgva);
		free(s->cgtmp);
		s->cgkey = s->cgva = s->cgtmp = NULL;
		s->cgkey_cap = s->cgva_cap = s->cgtmp_cap = 0;
	}
	snap_hold_free(s);
	/* so are the slots' pages queued from a chunk (16 bytes a page, up
	 * to 256 KiB a slot, 16 MiB over the window: kept, they stayed
	 * for the whole recording) */
	for (size_t k = 0; k < WINDOW; k++) {
		struct snap_slot *sl = &s->slots[k];

		if (sl->cgcap > CGQ_SLOT_KEEP) {
			free(sl->cg);
			sl->cg = NULL;
			sl->ncg = sl->cgcap = 0;
		}
	}
	for (size_t k = 0; k < s->nspare; k++)
		if (s->spare[k].cgcap > CGQ_SLOT_KEEP) {
			free(s->spare[k].cg);
			s->spare[k].cg = NULL;
			s->spare[k].cgcap = 0;
		}
}
/* At most this many bytes of page table entries are kept for a split job
 * (9 per page of its tasks); a larger one runs whole before the release. */
#define SPLIT_MAX_BYTES (128ull << 20)
/* A stash up to this size is kept for the next split job (one of a
 * process with 14 GiB of address space mapped); a larger one is freed. */
#define STASH_KEEP_BYTES (32ull << 20)

/* What pagemap_read_task found of one task of a split job, kept while the
 * process runs again: its result, whether its pagemap entries are still
 * to be read (deferred), and where in s->stash its n entries are,
 * followed by n bytes of scan bits. */
struct stash {
	int ret;
	bool deferred;
	uint64_t unreadable;
	size_t off;
};

/* Bytes of s->stash task of n pages takes: its entries and scan bits,
 * rounded up so that the next task's entries are aligned. */
static size_t stash_bytes(size_t n)
{
	return (n * 9 + 7) & ~(size_t)7;
}

/* Run the job in two passes on this thread: scan every task's page
 * tables, release (the process may run again), then read the pagemap
 * entries, look the pages up and write the mapping records. Returns 0 or
 * the first error. */
static int snap_job_run_split(struct snap_job *j, const uint32_t *ids,
			      struct md_snap_end *e, struct snap_stats *st)
{
	struct snapper *s = j->s;
	struct snap_ctx *c = ctx_get(s, 0, tasks_max_pages(j));
	struct stash *sh = xcalloc(j->ntasks + 1, sizeof(*sh));
	uint64_t *pm = c->pm, maxkey;
	uint8_t *extra = c->extra;
	struct vma_acc acc = {0};
	size_t k, n, nlook, need = 0;
	int ret = 0;

	j->split = true;
	for (k = 0; k < j->ntasks; k++) {
		sh[k].off = need;
		need += stash_bytes(j->tasks[k].n);
	}
	if (need > s->stash_size) {
		free(s->stash);
		s->stash = xmalloc(need);
		s->stash_size = need;
	}
	/* pagemap_read_task writes straight into each task's part of the
	 * stash */
	for (k = 0; k < j->ntasks && ret >= 0; k++) {
		n = j->tasks[k].n;
		c->pm = (uint64_t *)(s->stash + sh[k].off);
		c->extra = (uint8_t *)(c->pm + n);
		ret = sh[k].ret = pagemap_read_task(j, c, k, &nlook, &maxkey);
		sh[k].deferred = c->deferred;
		sh[k].unreadable = s->slots[k % WINDOW].unreadable;
	}
	c->pm = pm;
	c->extra = extra;
	snap_release(s);
	for (k = 0; k < j->ntasks && ret >= 0; k++) {
		struct snap_slot *sl = &s->slots[k % WINDOW];

		n = j->tasks[k].n;
		sl->nruns = 0;
		sl->nbits = 0;
		sl->ncg = 0;
		sl->present = sl->swapped = 0;
		sl->unreadable = sh[k].unreadable;
		sl->ret = 0;
		slot_bufs_take(s, sl, n);
		if (sh[k].ret > 0) {
			/* kpage_classify reads the entries where
			 * pagemap_read_task left them */
			c->pm = (uint64_t *)(s->stash + sh[k].off);
			c->extra = (uint8_t *)(c->pm + n);
			/* a process gone since is snapshot as it was
			 * when held, without the PFNs */
			c->packed = false;
			c->weighted = false;
			c->nent = n;
			if (sh[k].deferred) {
				bool read = pagemap_read_deferred(j, c, k) == 0;

				pagemap_reconcile(
				    c, &j->maps->maps[j->tasks[k].vma], c->nent,
				    read);
			}
			kpage_prepass(s, c, c->nent, &nlook, &maxkey);
			sl->ret = task_classify(j, c, k, nlook, maxkey, false);
			c->pm = pm;
			c->extra = extra;
		}
		ret = flush_tasks(j, k, k + 1, ids, &acc, e, st);
		if (ret >= 0)
			slot_bufs_put(s, sl);
	}
	if (ret >= 0)
		ret = kpage_charges_flush(s);
	free(sh);
	if (s->stash_size > STASH_KEEP_BYTES) {
		free(s->stash);
		s->stash = NULL;
		s->stash_size = 0;
	}
	ctx_collect(s, st);
	return ret;
}

int snap_job_run(struct snap_job *j, const uint32_t *ids, struct md_snap_end *e,
		 struct snap_stats *st)
{
	struct snapper *s = j->s;
	struct snap_thread th[SNAP_THREADS_MAX];
	struct snap_ctx *c0;
	struct vma_acc acc = {0};
	uint64_t total;
	size_t maxn;
	unsigned nth = 0, t;
	int ret = 0;

	snap_tick(s); /* after what snapper_take read first */
	tasks_make(j, &total);
	if (s->release && total * 9 <= SPLIT_MAX_BYTES)
		return snap_job_run_split(j, ids, e, st);
	maxn = tasks_max_pages(j);
	c0 = ctx_get(s, 0, maxn);
	pthread_mutex_init(&j->mu, NULL);
	pthread_cond_init(&j->cv, NULL);
	if (j->ntasks > 1 && total >= THREAD_MIN_PAGES &&
	    (!j->rss_known || j->rss_pages >= THREAD_MIN_PAGES)) {
		if (!s->nthreads) {
			long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

			s->nthreads =
			    (unsigned)MAX(1, MIN(ncpu, SNAP_THREADS_MAX));
		}
		for (t = 1; t < s->nthreads; t++) {
			th[nth].j = j;
			th[nth].c = ctx_get(s, t, maxn);
			if (pthread_create(&th[nth].tid, NULL, worker_main,
					   &th[nth]))
				break;
			nth++;
		}
	}
	for (;;) {
		size_t from, to, k;

		pthread_mutex_lock(&j->mu);
		from = to = j->flushed;
		while (to < j->next && s->slots[to % WINDOW].done)
			to++;
		to = snap_hold_flush_end(j, from, to);
		k = to == from ? task_claim(j, true) : SIZE_MAX;
		if (to == from && k == SIZE_MAX) {
			if (from == j->ntasks) {
				pthread_mutex_unlock(&j->mu);
				break;
			}
			/* wait for a task another thread is running */
			pthread_cond_wait(&j->cv, &j->mu);
		}
		pthread_mutex_unlock(&j->mu);
		if (k != SIZE_MAX) {
			task_run(j, c0, k);
			task_done(j, k);
			snap_tick(s);
			continue;
		}
		if (to == from)
			continue;
		ret = flush_tasks(j, from, to, ids, &acc, e, st);
		pthread_mutex_lock(&j->mu);
		for (k = from; k < to && ret >= 0; k++)
			slot_bufs_put(s, &s->slots[k % WINDOW]);
		j->flushed = to;
		if (ret < 0)
			j->stop = true;
		pthread_cond_broadcast(&j->cv);
		pthread_mutex_unlock(&j->mu);
		if (ret < 0)
			break;
	}
	for (t = 0; t < nth; t++)
		pthread_join(th[t].tid, NULL);
	if (!ret)
		ret = kpage_charges_flush(s);
	ctx_collect(s, st);
	pthread_cond_destroy(&j->cv);
	pthread_mutex_destroy(&j->mu);
	return ret;
}
