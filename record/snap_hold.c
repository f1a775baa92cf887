// SPDX-License-Identifier: GPL-2.0-or-later
/* snap_hold.c — chunks held for their page-frame look-ups (see
 * snap_hold.h).
 *
 * PSS needs the mapcount of every page mapped more than once, one
 * /proc/kpagecount entry each, and the dirtiness of a file page whose
 * file may hold dirty pages (shared memory always) its /proc/kpageflags
 * entry. The kernel spends 65-95 ns an entry and ~250 ns a pread, so
 * look-ups are sorted by frame and read in one pread per run of nearby
 * frames. But on a machine that has been up a while the frames of one
 * 64 MiB chunk lie scattered over all of RAM: 4 GiB shared copy-on-write
 * after a fork (1 Mi pages, a 24 GiB machine up for a day) took 284 k
 * preads sorted chunk by chunk, 55 k sorted at once. So a chunk with many
 * look-ups, their frames scattered, waits in its slot, a copy of its
 * pagemap entries kept (9 bytes a page, 17 for a packed chunk), until the
 * tasks of the window after it are done; then the keys of all the chunks
 * held in the window are sorted together and read (in parts, on the
 * snapshot's threads), and each chunk is classified from what was read,
 * in task order, before it is written.
 *
 * The price: a page's frame is looked up to a window of chunks after its
 * pagemap entry, not within its own chunk, so in a running target more
 * frames are freed in between: such a page reads as mapcount 0 (not
 * counted, as a page no longer mapped) or as the frame's new page.
 * --freeze holds the target still. */
#include "config.h"

#include "record/snap_hold.h"

#include "record/snap_kpage.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

/* A hold key: the page's PFN, above its chunk's slot (below WINDOW),
 * above its index in the chunk; s->holdkey has a region of CHUNK_PAGES
 * keys a slot, written by the thread that held the chunk. */
#define HOLD_SLOT_BITS 6
#define HOLD_IDX_BITS (LOOK_IDX_BITS + HOLD_SLOT_BITS)
#define HOLD_PFN_MAX (UINT64_MAX >> HOLD_IDX_BITS)
#define HOLD_KEYS ((size_t)WINDOW << LOOK_IDX_BITS)
_Static_assert(WINDOW <= 1u << HOLD_SLOT_BITS, "a slot fits a key");

/* The bytes of s->holdpm a slot's copy takes a page: its pagemap entry
 * and its scan bits. */
#define HOLD_COPY_BYTES (sizeof(uint64_t) + 1)

/* A chunk is held only when its look-ups, sorted, would take a pread per
 * fewer than this many keys on average: frames that scattered gain from
 * a sort with other chunks' (~250 ns a pread saved) more than holding
 * costs (a copy, a share of a sort over more memory than the caches
 * hold, fresh pages: ~20 ns a page when this bound was set). Measured
 * on two processes with 4 GiB shared after a fork: frames at 1-16 look-ups
 * a pread per chunk, 208 ms CPU held against 248 not; frames at 4-512,
 * 173 held against 152 not, 149 with this bound (most not held). */
#define HOLD_BLOCK_KEYS 16

/* Whether chunk c of job j (nlook look-ups in c->look, largest key maxkey)
 * is held (see snap_hold). Its look-ups that want a kpage file read
 * (kpage_wants), sorted by PFN, are listed: those that want kpagecount in
 * c->look2 (h->nkeys), those that want kpageflags in c->kflags (h->nfkeys;
 * its scratch until kpage_fill fills it); h->blocks: the preads the
 * kpagecount ones would take sorted alone. Not once the job found holding
 * did not pay (j->hold_off, held_read). */
static bool hold_pays(const struct snap_job *j, struct snap_ctx *c,
		      size_t nlook, uint64_t maxkey, struct snap_held *h)
{
	const struct snapper *s = j->s;
	uint64_t *fk = c->kflags;
	size_t i, m, mc = 0, mf = 0, blocks;

	if (nlook < HOLD_MIN_LOOKUPS || c->weighted || c->nent > CHUNK_PAGES ||
	    LOOK_PFN(maxkey) > HOLD_PFN_MAX ||
	    __atomic_load_n(&j->hold_off, __ATOMIC_RELAXED))
		return false;
	/* enough that want a file read (counted no further) */
	for (i = m = 0; i < nlook && m < HOLD_MIN_LOOKUPS; i++)
		m += kpage_wants(s, c, c->pm[LOOK_IDX(c->look[i])]) != 0;
	if (m < HOLD_MIN_LOOKUPS)
		return false;
	/* branch-free: each key written to both lists, kept where wanted;
	 * each list then sorted alone, not all the chunk's keys (a file's
	 * dirty pieces want the flags of a quarter of its pages: the sort of
	 * every key of an 8 GiB file half cached, 1 Mi in all, took ~5% of
	 * its snapshot), through c->kcount, which kpage_fill fills later */
	for (i = 0; i < nlook; i++) {
		uint64_t look = c->look[i];
		uint8_t w = kpage_wants(s, c, c->pm[LOOK_IDX(look)]);

		c->look2[mc] = look;
		mc += w & KF_COUNT;
		fk[mf] = look;
		mf += (w & KF_FLAGS) != 0;
	}
	kpage_keys_sort_rising(c->look2, c->kcount, mc, maxkey, LOOK_IDX_BITS);
	kpage_keys_sort_rising(fk, c->kcount, mf, maxkey, LOOK_IDX_BITS);
	h->nkeys = mc;
	h->nfkeys = mf;
	h->blocks = kpage_keys_blocks(c->look2, mc, LOOK_IDX_BITS, c->nkbuf);
	blocks = h->blocks +
		 (mf ? kpage_keys_blocks(fk, mf, LOOK_IDX_BITS, c->nkbuf) : 0);
	return blocks * HOLD_BLOCK_KEYS > mc + mf;
}

/* A look-up key of slot as a hold key. */
static inline uint64_t hold_key(uint64_t look, size_t slot)
{
	return LOOK_PFN(look) << HOLD_IDX_BITS | slot << LOOK_IDX_BITS |
	       LOOK_IDX(look);
}

/* Allocate what holding chunk c of the job takes, where not yet: the
 * regions of keys (s->holdkey, and s->holdflags with kpageflags) and of
 * copies (s->holdpm, and s->holdoff for a packed chunk),
 * each in huge pages: a window's copies are ~9 MiB, faulted in on every
 * snapshot, and as 4 KiB pages their faults took ~3 ms of the ~190 ms
 * of a 4 GiB process shared after a fork. */
static void hold_alloc(struct snap_job *j, const struct snap_ctx *c)
{
	struct snapper *s = j->s;
	const size_t n = (size_t)WINDOW * CHUNK_PAGES;

	pthread_mutex_lock(&j->mu);
	if (!s->holdkey)
		s->holdkey = xmalloc_huge(HOLD_KEYS * sizeof(*s->holdkey));
	if (!s->holdflags && s->has_kpageflags)
		s->holdflags = xmalloc_huge(HOLD_KEYS * sizeof(*s->holdflags));
	if (!s->holdpm)
		s->holdpm = xmalloc_huge(n * HOLD_COPY_BYTES);
	if (!s->holdoff && c->packed)
		s->holdoff = xmalloc_huge(n * sizeof(*s->holdoff));
	pthread_mutex_unlock(&j->mu);
}

/* Write the keys hold_pays listed of chunk c in slot as hold keys into
 * the slot's regions: those that want kpagecount (c->look2) into
 * s->holdkey's, those that want kpageflags (c->kflags) into
 * s->holdflags'. */
static void hold_keys(struct snapper *s, const struct snap_ctx *c, size_t slot,
		      const struct snap_held *h)
{
	uint64_t *ck = s->holdkey + (slot << LOOK_IDX_BITS);

	for (size_t i = 0; i < h->nkeys; i++)
		ck[i] = hold_key(c->look2[i], slot);
	for (size_t i = 0; i < h->nfkeys; i++)
		s->holdflags[(slot << LOOK_IDX_BITS) + i] =
		    hold_key(c->kflags[i], slot);
}

bool snap_hold(struct snap_job *j, struct snap_ctx *c, size_t k, uint64_t va,
	       size_t nlook, uint64_t maxkey)
{
	struct snapper *s = j->s;
	size_t slot = k % WINDOW, n = c->nent;
	struct snap_held *h = &s->slots[slot].held;

	h->on = false;
	if (!hold_pays(j, c, nlook, maxkey, h))
		return false;
	hold_alloc(j, c);
	hold_keys(s, c, slot, h);
	/* its entries, scan bits and (packed) offsets */
	/* a slot's entries, then its scan bits: a chunk held alone touches
	 * one huge page of them, not two */
	h->pm = (uint64_t *)(s->holdpm + slot * CHUNK_PAGES * HOLD_COPY_BYTES);
	h->extra = (uint8_t *)(h->pm + CHUNK_PAGES);
	h->off = c->packed ? s->holdoff + slot * CHUNK_PAGES : NULL;
	memcpy(h->pm, c->pm, n * sizeof(*h->pm));
	memcpy(h->extra, c->extra, n);
	if (c->packed)
		memcpy(h->off, c->off, n * sizeof(*h->off));
	h->n = n;
	h->nlook = nlook;
	h->va = va;
	h->packed = c->packed;
	h->file_clean = c->file_clean;
	h->on = true;
	return true;
}

size_t snap_hold_flush_end(const struct snap_job *j, size_t from, size_t to)
{
	size_t h = from;

	while (h < to && !j->s->slots[h % WINDOW].held.on)
		h++;
	if (h > from || h == to)
		return h;
	return to >= MIN(from + WINDOW, j->ntasks) ? to : from;
}

/* Held chunk h seen through the scratch of c: its entries, scan bits and
 * offsets where kpage_classify_filled reads a chunk's, no list of its
 * entries present (kpage_classify_filled looks at every entry), c's
 * arrays for the rest. */
static struct snap_ctx held_view(const struct snap_ctx *c,
				 const struct snap_held *h)
{
	struct snap_ctx v = *c;

	v.pm = h->pm;
	v.extra = h->extra;
	v.off = h->off;
	v.w = NULL;
	v.packed = h->packed;
	v.weighted = false;
	v.file_clean = h->file_clean;
	v.nent = h->n;
	return v;
}

/* Gather into s->holdtmp the keys the chunks held among tasks [from,
 * to) wrote into their slots' regions of keys (s->holdkey, or with flags
 * s->holdflags); their number, the largest into *mx. */
static size_t held_gather(struct snapper *s, size_t from, size_t to, bool flags,
			  uint64_t *mx)
{
	size_t nk = 0;

	*mx = 0;
	for (size_t k = from; k < to; k++) {
		const struct snap_held *h = &s->slots[k % WINDOW].held;
		size_t n = flags ? h->nfkeys : h->nkeys;
		const uint64_t *key = (flags ? s->holdflags : s->holdkey) +
				      ((k % WINDOW) << LOOK_IDX_BITS);

		if (!h->on || !n)
			continue;
		for (size_t i = 0; i < n; i++)
			*mx = MAX(*mx, key[i]);
		memcpy(s->holdtmp + nk, key, n * sizeof(*key));
		nk += n;
	}
	return nk;
}

/* Holding pays when the window's keys sorted together take at most this
 * share of the preads they take sorted chunk by chunk. */
#define HOLD_GAIN_NUM 3
#define HOLD_GAIN_DEN 4

/* After the kpagecount keys of the chunks held among tasks [from, to)
 * were read sorted together in merged preads: if those are not fewer
 * enough than the same chunks' sorted one by one (snap_held.blocks),
 * their frames lie too far apart for one window to bring them close
 * (a 256 MiB process's 4 chunks spread over all of RAM: 20.8 k preads
 * held against 21.4 k, 8% more CPU), and the job holds no more chunks
 * (j->hold_off): one window's cost is the most holding loses. */
static void hold_judge(struct snap_job *j, size_t from, size_t to,
		       size_t merged)
{
	struct snapper *s = j->s;
	size_t alone = 0;

	for (size_t k = from; k < to; k++)
		if (s->slots[k % WINDOW].held.on)
			alone += s->slots[k % WINDOW].held.blocks;
	if (merged * HOLD_GAIN_DEN > alone * HOLD_GAIN_NUM)
		__atomic_store_n(&j->hold_off, true, __ATOMIC_RELAXED);
}

/* Read what the chunks held among tasks [from, to) look up: for each kpage
 * file, their keys gathered into s->holdtmp, sorted there (through the
 * regions they were gathered from) and read into those regions' array at
 * each key's index (slot and page): kpagecount into s->holdkey,
 * kpageflags into s->holdflags. Returns 0 or -errno. */
static int held_read(struct snap_job *j, size_t from, size_t to)
{
	struct snapper *s = j->s;
	const struct {
		uint64_t **keys;
		int fd;
		bool flags;
	} files[] = {
	    {&s->holdkey, s->kpagecount_fd, false},
	    {&s->holdflags, s->kpageflags_fd, true},
	};
	uint64_t mx;
	size_t nk, preads;
	int ret = 0;

	if (!s->holdtmp)
		s->holdtmp = xmalloc_huge(HOLD_KEYS * sizeof(*s->holdtmp));
	for (size_t f = 0; f < ARRAY_SIZE(files) && ret >= 0; f++) {
		if (!*files[f].keys)
			continue;
		nk = held_gather(s, from, to, files[f].flags, &mx);
		if (!nk)
			continue;
		kpage_keys_sort(s->holdtmp, *files[f].keys, nk, mx,
				HOLD_IDX_BITS);
		ret = kpage_keys_read_all(s, s->holdtmp, nk, HOLD_IDX_BITS,
					  files[f].fd, *files[f].keys, &preads);
		if (ret >= 0 && !files[f].flags)
			hold_judge(j, from, to, preads);
	}
	return ret;
}

void snap_hold_resolve(struct snap_job *j, struct snap_ctx *c, size_t from,
		       size_t to)
{
	struct snapper *s = j->s;
	size_t k;
	int ret;

	for (k = from; k < to && !s->slots[k % WINDOW].held.on; k++)
		;
	if (k == to)
		return;
	ret = held_read(j, from, to);
	for (k = from; k < to; k++) {
		struct snap_slot *sl = &s->slots[k % WINDOW];
		struct snap_held *h = &sl->held;
		size_t base = (k % WINDOW) << LOOK_IDX_BITS;
		struct snap_ctx v;

		if (!h->on)
			continue;
		h->on = false;
		sl->ret = ret;
		if (ret < 0)
			continue;
		v = held_view(c, h);
		kpage_classify_filled(s, &v, sl, h->va, h->n, s->holdkey + base,
				      h->nfkeys ? s->holdflags + base : NULL);
		c->kpage_lookups += h->nlook;
	}
}

void snap_hold_free(struct snapper *s)
{
	const size_t n = (size_t)WINDOW * CHUNK_PAGES;

	for (size_t k = 0; k < WINDOW; k++)
		memset(&s->slots[k].held, 0, sizeof(s->slots[k].held));
	xfree_huge(s->holdkey, HOLD_KEYS * sizeof(*s->holdkey));
	xfree_huge(s->holdtmp, HOLD_KEYS * sizeof(*s->holdtmp));
	xfree_huge(s->holdflags, HOLD_KEYS * sizeof(*s->holdflags));
	xfree_huge(s->holdpm, n * HOLD_COPY_BYTES);
	xfree_huge(s->holdoff, n * sizeof(*s->holdoff));
	s->holdkey = s->holdtmp = s->holdflags = s->holdoff = NULL;
	s->holdpm = NULL;
}
