// SPDX-License-Identifier: GPL-2.0-or-later
/* snap_classify.c — the classes of a chunk of single pages, once their
 * look-ups are read (kpage_classify, see snap_kpage.h): as runs
 * (classify_single), as a bitmap of pages all of one class
 * (classify_bits) or of most of them with the few others as runs
 * (classify_mostly). Moved out of snap_kpage.c, which reads the
 * look-ups and classes each page (page_class); all but kpage_classify
 * are inlined into it, with their plain and read constant.
 */
#include "config.h"

#include "record/snap_class.h"

#include "util/util.h"

#include <linux/kernel-page-flags.h>
#include <string.h>

/* In a key of classify_single: the page is looked up (needs_lookup),
 * above KEY_HAS_PFN, below PM_KEY_MASK's bits. */
#define KEY_LOOKED 0x200u

/* The kpageflags bits page_class reads (those of kpf_kept, the zero page
 * and no-page ones) and KF_UNREAD: two pages whose flags differ only
 * elsewhere (referenced, LRU, active...) are of one class. */
#define KF_CLASS_BITS                                                          \
	(KF_UNREAD | 1ull << KPF_DIRTY | 1ull << KPF_ANON |                    \
	 1ull << KPF_SWAPBACKED | 1ull << KPF_KSM | 1ull << KPF_THP |          \
	 1ull << KPF_HUGE | 1ull << KPF_IDLE | 1ull << KPF_ZERO_PAGE |         \
	 1ull << KPF_NOPAGE)

/* The key of entry e, scan bits x, that classify_single and
 * classify_bits class a page by (with KEY_LOOKED for a page looked up
 * when lk, a read of no file). */
static inline uint64_t bits_key(const struct snapper *s, uint64_t e, uint8_t x,
				bool lk)
{
	bool looked = lk && s->has_pfn && needs_lookup(e);

	return (e & PM_KEY_MASK) | x | ((e & PM_PFN_MASK) ? KEY_HAS_PFN : 0) |
	       (looked ? KEY_LOOKED : 0);
}

/* kpage_classify_filled of a chunk of single pages (its entries present
 * or swapped listed by kpage_prepass), each page looked up taking its
 * values from count and flags where it wanted them read (looked_values;
 * read false: no file was read, kpage_fill found no page wanting one, as
 * for the exclusive file pages of a file known clean where they lie, and
 * every page takes what the files would say, a mapcount of 1 and no
 * flags). A page is classified only when its key (its entry's bits,
 * whether it is looked up, the flags page_class reads and its mapcount)
 * changes, and pages are counted by class then. Its run is built
 * without a branch on whether it continues the last (on scattered pages
 * that branch is mispredicted often): the run being built is kept in
 * registers and stored at its slot on every page, the slot moving on
 * when a page does not continue it. Its cgroup look-up is queued the
 * same way (written always, kept when wanted); room for a run and a
 * look-up a page is made first. On an 8 GiB file half cached,
 * kpage_classify_filled's memo, branches and checks of room cost ~15 ns
 * a page. plain: none of the chunk's pages is looked up (nlook 0, no
 * anonymous cgroups: exclusive anonymous memory, or no PFNs), a page's
 * class is its entry's key alone and no look-up is queued. Inline: read
 * and plain are constants where it is called. */
static inline __attribute__((always_inline)) void
classify_single(const struct snapper *s, struct snap_ctx *c,
		struct snap_slot *sl, uint64_t va, const uint64_t *count,
		const uint64_t *flags, bool read, bool plain)
{
	const uint64_t *pm = c->pm, *off = c->packed ? c->off : NULL;
	const uint32_t *list = c->w;
	const uint8_t *extra = c->extra;
	const unsigned shift = s->page_shift;
	uint64_t cnt[4] = {0}, key = UINT64_MAX, next = UINT64_MAX, rva = 0;
	uint64_t mkf = 0, mkc = 0, same = 0;
	uint32_t fl = 0, mc = 0, rn = 0;
	enum page_kind kind = PAGE_NONE;
	size_t nr = sl->nruns, ncg = sl->ncg;
	struct md_run *runs;
	struct cg_ref *cg = NULL;

	xgrow(&sl->runs, &sl->cap, nr + c->npresent, sizeof(*sl->runs));
	if (!plain) {
		xgrow(&sl->cg, &sl->cgcap, ncg + c->npresent, sizeof(*sl->cg));
		cg = sl->cg;
	}
	runs = sl->runs;
	for (size_t k = 0; k < c->npresent; k++) {
		size_t i = list[k];
		uint64_t e = pm[i], o = off ? off[i] : i, a = va + (o << shift);
		uint64_t kk = bits_key(s, e, extra[i], !plain);
		bool looked = kk & KEY_LOOKED;
		uint64_t kf = looked ? KF_UNREAD : 0, kc = looked, join;

		if (read && looked) {
			looked_values(s, c, i, e, count, flags, &kf, &kc);
			kf &= KF_CLASS_BITS;
		}
		if (kk != key || kf != mkf || kc != mkc) {
			uint32_t nfl, nmc;

			cnt[kind] += same;
			same = 0;
			kind = page_class(s, e, extra[i], looked, kf, kc, &nfl,
					  &nmc);
			/* a page mapped more than once may be memsz's own
			 * (observer_maps): classified each time */
			key = kc > 1 && s->self_set ? UINT64_MAX : kk;
			mkf = kf;
			mkc = kc;
			/* another class ends the run */
			if (nfl != fl || nmc != mc)
				next = UINT64_MAX;
			fl = nfl;
			mc = nmc;
		}
		same++;
		/* all ones if the page continues the run, else zero (a mask,
		 * which the compiler does not turn back into a branch) */
		join = -(uint64_t)(o == next);
		nr += 1 + join;
		rva = (rva & join) | (a & ~join);
		rn = (rn & (uint32_t)join) + 1;
		runs[nr - 1] = (struct md_run){
		    .vaddr = rva, .npages = rn, .flags = fl, .mapcount = mc};
		next = o + 1;
		if (!plain) {
			cg[ncg] = (struct cg_ref){e & PM_PFN_MASK, a};
			ncg += (kind == PAGE_PRESENT) & charge_wanted(s, e);
		}
	}
	cnt[kind] += same;
	sl->nruns = nr;
	sl->ncg = ncg;
	sl->present += cnt[PAGE_PRESENT];
	sl->swapped += cnt[PAGE_SWAPPED];
}

/* classify_single's case with no file read (read false) for a chunk
 * whose listed pages (present or swapped) all have one key, so all one
 * class: the chunk's pages as a bitmap in the slot (snap_slot.nbits), not
 * as runs. The run list costs 24 bytes a page written here and read back
 * by the encoder (a quarter of memsz's own CPU on every 4th page of
 * 16 GiB, ~20% on an 8 GiB file half cached); a bit a page fits in the
 * first level cache. One pass over the listed pages sets their bits and
 * compares their keys; false (nothing kept) if the keys differ, the chunk
 * is packed (its pages are not its entries) or runs precede. plain as
 * classify_single's (no page looked up, no cgroup queued: exclusive
 * anonymous pages but under anon_charged, pages without a PFN (not root:
 * file pages too), swap entries or zero pages, hugetlb pages with
 * MD_PG_HUGE). Else (file pages known clean, whose cgroups are looked
 * up, or exclusive anonymous pages under -G, anon_charged: every page's
 * charge queued) each page looked up is taken as classify_single takes
 * it (no flags, a mapcount of 1) and each page's cgroup look-up is
 * queued in a second pass, in the same order. Inline: plain is a
 * constant where it is called. */
static inline __attribute__((always_inline)) bool
classify_bits(const struct snapper *s, struct snap_ctx *c, struct snap_slot *sl,
	      uint64_t va, bool plain)
{
	const uint64_t *pm = c->pm;
	const uint32_t *list = c->w;
	const uint8_t *extra = c->extra;
	uint64_t *bits = sl->bits, key0, diff = 0;
	enum page_kind kind;
	size_t i0, ncg;
	bool looked;

	if (c->packed || !c->npresent || c->nent > CHUNK_PAGES || sl->nruns)
		return false;
	memset(bits, 0, (c->nent + 63) / 64 * sizeof(*bits));
	i0 = list[0];
	key0 = bits_key(s, pm[i0], extra[i0], !plain);
	for (size_t k = 0; k < c->npresent; k++) {
		size_t i = list[k];

		diff |= bits_key(s, pm[i], extra[i], !plain) ^ key0;
		bits[i >> 6] |= (uint64_t)1 << (i & 63);
	}
	if (diff)
		return false;
	looked = key0 & KEY_LOOKED;
	kind = page_class(s, pm[i0], extra[i0], looked, looked ? KF_UNREAD : 0,
			  looked, &sl->bits_fl, &sl->bits_mc);
	sl->nbits = c->nent;
	sl->bits_va = va;
	if (kind == PAGE_PRESENT)
		sl->present += c->npresent;
	else if (kind == PAGE_SWAPPED)
		sl->swapped += c->npresent;
	if (plain || kind != PAGE_PRESENT)
		return true;
	ncg = sl->ncg;
	xgrow(&sl->cg, &sl->cgcap, ncg + c->npresent, sizeof(*sl->cg));
	for (size_t k = 0; k < c->npresent; k++) {
		size_t i = list[k];
		uint64_t e = pm[i];

		sl->cg[ncg] = (struct cg_ref){
		    e & PM_PFN_MASK, va + ((uint64_t)i << s->page_shift)};
		ncg += charge_wanted(s, e);
	}
	sl->ncg = ncg;
	return true;
}

/* classify_mostly gives up on a chunk with more runs of pages not of its
 * bitmap's class than one per this many pages listed, and is not tried
 * on the MOSTLY_SKIP chunks its thread classifies next. */
#define MOSTLY_EXC_RATIO 32
#define MOSTLY_SKIP 4
/* After this many pages listed, a bitmap of the first page's class that
 * holds fewer than half of them is started again with the class of the
 * last page not of it (a chunk whose first page is the one dirty page
 * of its piece of the file, as bench_snapshot's file layout has). */
#define MOSTLY_PROBE 64

/* What a pass of classify_mostly came to. */
enum mostly_end { MOSTLY_DONE, MOSTLY_TOO_MANY, MOSTLY_AGAIN };

/* One pass of classify_mostly over the chunk's listed pages, the pages
 * of class (*fl0, *mc0) into the slot's bitmap (fixed false: the first
 * page's class, into *fl0 and *mc0), the others into its runs. On
 * MOSTLY_AGAIN *fl0 and *mc0 are the class to pass again with. */
static inline __attribute__((always_inline)) enum mostly_end
mostly_pass(const struct snapper *s, struct snap_ctx *c, struct snap_slot *sl,
	    uint64_t va, const uint64_t *count, const uint64_t *flags,
	    bool read, bool fixed, uint32_t *fl0, uint32_t *mc0)
{
	const uint64_t *pm = c->pm;
	const uint32_t *list = c->w;
	const uint8_t *extra = c->extra;
	const unsigned shift = s->page_shift;
	size_t limit = c->npresent / MOSTLY_EXC_RATIO, nr = 0, ncg = sl->ncg;
	uint64_t cnt[4] = {0}, key = UINT64_MAX, mkf = 0, mkc = 0, next = 0;
	uint64_t *bits = sl->bits, in = 0;
	uint32_t fl = 0, mc = 0, bfl = *fl0, bmc = *mc0;
	enum page_kind kind = PAGE_NONE;
	struct md_run *runs = sl->runs;
	struct cg_ref *cg = sl->cg;

	memset(bits, 0, (c->nent + 63) / 64 * sizeof(*bits));
	for (size_t k = 0; k < c->npresent; k++) {
		size_t i = list[k];
		uint64_t e = pm[i], a = va + ((uint64_t)i << shift);
		uint64_t kk = bits_key(s, e, extra[i], true);
		bool looked = kk & KEY_LOOKED;
		uint64_t kf = looked ? KF_UNREAD : 0, kc = looked;

		if (read && looked) {
			looked_values(s, c, i, e, count, flags, &kf, &kc);
			kf &= KF_CLASS_BITS;
		}
		if (kk != key || kf != mkf || kc != mkc) {
			kind = page_class(s, e, extra[i], looked, kf, kc, &fl,
					  &mc);
			key = kc > 1 && s->self_set ? UINT64_MAX : kk;
			mkf = kf;
			mkc = kc;
			bfl = k || fixed ? bfl : fl;
			bmc = k || fixed ? bmc : mc;
		}
		if (!fixed && k == MOSTLY_PROBE && in < MOSTLY_PROBE / 2) {
			*fl0 = runs[nr - 1].flags;
			*mc0 = runs[nr - 1].mapcount;
			return MOSTLY_AGAIN;
		}
		cnt[kind]++;
		cg[ncg] = (struct cg_ref){e & PM_PFN_MASK, a};
		ncg += (kind == PAGE_PRESENT) & charge_wanted(s, e);
		if (fl == bfl && mc == bmc) {
			bits[i >> 6] |= (uint64_t)1 << (i & 63);
			in++;
			continue;
		}
		/* a page of another class: it continues the last such run,
		 * or starts one */
		if (nr && i == next && runs[nr - 1].flags == fl &&
		    runs[nr - 1].mapcount == mc) {
			runs[nr - 1].npages++;
			next++;
			continue;
		}
		if (nr > limit)
			return MOSTLY_TOO_MANY;
		runs[nr++] = (struct md_run){
		    .vaddr = a, .npages = 1, .flags = fl, .mapcount = mc};
		next = i + 1;
	}
	*fl0 = bfl;
	*mc0 = bmc;
	sl->nruns = nr;
	sl->ncg = ncg;
	sl->present += cnt[PAGE_PRESENT];
	sl->swapped += cnt[PAGE_SWAPPED];
	return MOSTLY_DONE;
}

/* classify_single (not plain) into the slot's bitmap where most pages
 * are of one class but a few are not, as on a file with a dirty page
 * here and there (kpageflags read: pages in pieces of the file with
 * dirty pages among those known clean), where classify_bits finds keys
 * that differ: the pages of one class as bits (snap_slot.nbits; the
 * first listed page's class, or see MOSTLY_PROBE), the others as runs
 * in sl->runs, which slot_add puts between the bitmap's pieces. Each
 * page's class is found as classify_single finds it (a memo of its key,
 * kpageflags and kpagecount) and its cgroup look-up queued the same way.
 * False (nothing kept) where classify_bits would not take the chunk
 * either (packed, runs before it) or there are more than one such run
 * per MOSTLY_EXC_RATIO pages listed: classify_single's runs then cost
 * less than the bitmap's pieces. Inline: read is a constant where it is
 * called. */
static inline __attribute__((always_inline)) bool
classify_mostly(const struct snapper *s, struct snap_ctx *c,
		struct snap_slot *sl, uint64_t va, const uint64_t *count,
		const uint64_t *flags, bool read)
{
	uint32_t fl0 = 0, mc0 = 0;
	enum mostly_end r;

	if (c->mostly_skip) {
		c->mostly_skip--;
		return false;
	}
	if (c->packed || !c->npresent || c->nent > CHUNK_PAGES || sl->nruns)
		return false;
	xgrow(&sl->runs, &sl->cap, c->npresent / MOSTLY_EXC_RATIO + 1,
	      sizeof(*sl->runs));
	xgrow(&sl->cg, &sl->cgcap, sl->ncg + c->npresent, sizeof(*sl->cg));
	r = mostly_pass(s, c, sl, va, count, flags, read, false, &fl0, &mc0);
	if (r == MOSTLY_AGAIN)
		r = mostly_pass(s, c, sl, va, count, flags, read, true, &fl0,
				&mc0);
	if (r != MOSTLY_DONE) {
		c->mostly_skip = MOSTLY_SKIP;
		return false;
	}
	sl->nbits = c->nent;
	sl->bits_va = va;
	sl->bits_fl = fl0;
	sl->bits_mc = mc0;
	return true;
}

int kpage_classify(const struct snapper *s, struct snap_ctx *c,
		   struct snap_slot *sl, uint64_t va, size_t n, size_t nlook,
		   uint64_t maxkey)
{
	int ret = 0;

	if (!nlook && !c->weighted && !anon_charged(s)) {
		if (!classify_bits(s, c, sl, va, true))
			classify_single(s, c, sl, va, NULL, NULL, false, true);
		return 0;
	}
	if (nlook) {
		ret = kpage_fill(s, c, nlook, maxkey);
		if (ret < 0)
			return ret;
		c->kpage_lookups += nlook;
	}
	if (!ret && !c->weighted) {
		if (!classify_bits(s, c, sl, va, false) &&
		    !classify_mostly(s, c, sl, va, NULL, NULL, false))
			classify_single(s, c, sl, va, NULL, NULL, false, false);
		return 0;
	}
	if (!c->weighted) {
		const uint64_t *flags = ret & KF_FLAGS ? c->kflags : NULL;

		if (!classify_mostly(s, c, sl, va, c->kcount, flags, true))
			classify_single(s, c, sl, va, c->kcount, flags, true,
					false);
		return 0;
	}
	kpage_classify_filled(s, c, sl, va, n, c->kcount,
			      nlook && (ret & KF_FLAGS) ? c->kflags : NULL);
	return 0;
}
