// SPDX-License-Identifier: GPL-2.0-or-later
/* snap_charge.c — the snapshot's queue of pages whose memory cgroup is
 * looked up (see kpage_charges_add in snap_kpage.h): sorted by PFN, read
 * from /proc/kpagecgroup in one pass and turned into the snapshot's charge
 * runs. Moved out of snap_kpage.c, which classifies the pages and queues
 * them (charge_queue).
 */
#include "config.h"

#include "record/snap_kpage.h"

#include "util/util.h"

#include <stdlib.h>
#include <string.h>

/* Add npages pages at va charged to memory cgroup cg to the snapshot's
 * charge runs, joining the last run when they continue it. */
static void charge_add(struct snapper *s, uint64_t va, uint64_t cg,
		       uint32_t npages)
{
	struct md_charge_run *p = s->ncgacc ? &s->cgacc[s->ncgacc - 1] : NULL;

	if (p && p->cgroup == cg &&
	    (uint64_t)p->npages + npages <= UINT32_MAX &&
	    p->vaddr + ((uint64_t)p->npages << s->page_shift) == va) {
		p->npages += npages;
		return;
	}
	xgrow(&s->cgacc, &s->cgacc_cap, s->ncgacc + 1, sizeof(*s->cgacc));
	s->cgacc[s->ncgacc++] =
	    (struct md_charge_run){.vaddr = va, .cgroup = cg, .npages = npages};
}

/* The largest PFN a key of the charge queue holds: a larger one, which
 * no machine has (physical addresses have at most 52 bits), is looked up
 * as this one, beyond kpagecgroup's end, where it reads as 0 as it would
 * itself. */
#define CGQ_PFN_MAX (UINT64_MAX >> CGQ_IDX_BITS)

/* The charge queue's arrays grow as xgrow_huge grows them (doubling) up
 * to this many entries, then straight to CGQ_MAX: a large snapshot's
 * queue (an 8 GiB file half cached: 1 Mi pages) was copied at every
 * doubling, 16 MiB of copies and faults on memory touched once. The
 * 8 MiB is advised for huge pages whole (xmalloc_huge_aligned), a fault
 * per 2 MiB: the 2 MiB pages it never touches cost no memory, but the
 * one it stops in is resident whole, up to 2 MiB more than it fills for
 * each of cgkey, cgva and cgtmp, until the snapshot ends (a queue this
 * large is then freed, snap_pool.c). Advising only what is filled, as
 * xgrow_huge does, would leave cgkey and cgva next to no huge page: a
 * chunk appends its pages' look-ups, at most 128 KiB (16 Ki pages), and
 * a 2 MiB page is first touched part filled. */
#define CGQ_RESERVE (1u << 16)

/* Make room for need entries in the charge queue's array *a of *cap, its
 * first keep entries kept. */
static void charge_room(uint64_t **a, size_t *cap, size_t need, size_t keep)
{
	size_t got;
	uint64_t *q;

	if (need <= *cap)
		return;
	if (need <= CGQ_RESERVE || need > CGQ_MAX) {
		xgrow_huge(a, cap, need, sizeof(**a));
		return;
	}
	q = xmalloc_huge_aligned(CGQ_MAX * sizeof(*q), &got);
	if (keep)
		memcpy(q, *a, keep * sizeof(*q));
	free(*a);
	*a = q;
	*cap = got / sizeof(*q);
}

/* Sort the n keys of a by the bits above their low CGQ_IDX_BITS, unless
 * they rise already, through tmp (room for n). */
static void charge_sort(uint64_t *a, uint64_t *tmp, size_t n)
{
	uint64_t mx = 0;
	size_t i;

	for (i = 1; i < n && a[i] >= a[i - 1]; i++)
		;
	if (i >= n)
		return;
	for (i = 0; i < n; i++)
		mx = MAX(mx, a[i]);
	kpage_keys_sort(a, tmp, n, mx, CGQ_IDX_BITS);
}

int kpage_charges_flush(struct snapper *s)
{
	uint64_t *key = s->cgkey, *va = s->cgva, *cg, *tmp;
	uint64_t pmask = s->page_size - 1, imask = (1u << CGQ_IDX_BITS) - 1;
	size_t n = s->ncgq, i, m;
	int ret;

	if (!n)
		return 0;
	s->ncgq = 0;
	charge_room(&s->cgtmp, &s->cgtmp_cap, n, 0);
	cg = s->cgtmp;
	charge_sort(key, cg, n);
	/* the cgroups in the keys' order, not scattered to their indexes */
	ret = kpage_keys_read_sorted(s, key, n, CGQ_IDX_BITS, s->kpagecgroup_fd,
				     cg);
	if (ret < 0)
		return ret;
	/* the pages charged elsewhere, kept in place (m <= i), each key now
	 * its queue index above its position among them */
	for (i = m = 0; i < n; i++) {
		uint64_t c = cg[i];

		key[m] = (key[i] & imask) << CGQ_IDX_BITS | m;
		cg[m] = c;
		m += c != s->own_cg;
	}
	/* in queue order (by address), the free end of key as scratch */
	tmp = m <= n - m ? key + m : xmalloc(m * sizeof(*tmp));
	charge_sort(key, tmp, m);
	if (tmp != key + m)
		free(tmp);
	for (i = 0; i < m; i++) {
		uint64_t q = key[i] >> CGQ_IDX_BITS;

		charge_add(s, va[q] & ~pmask, cg[key[i] & imask],
			   (uint32_t)(va[q] & pmask) + 1);
	}
	return 0;
}

int kpage_charges_add(struct snapper *s, const struct snap_slot *sl)
{
	size_t n;
	int ret = 0;

	if (s->ncgq + sl->ncg > CGQ_MAX)
		ret = kpage_charges_flush(s);
	n = s->ncgq;
	charge_room(&s->cgkey, &s->cgkey_cap, n + sl->ncg, n);
	charge_room(&s->cgva, &s->cgva_cap, n + sl->ncg, n);
	for (size_t i = 0; i < sl->ncg; i++, n++) {
		s->cgkey[n] =
		    MIN(sl->cg[i].pfn, CGQ_PFN_MAX) << CGQ_IDX_BITS | n;
		s->cgva[n] = sl->cg[i].va_n;
	}
	s->ncgq = n;
	return ret;
}
