// SPDX-License-Identifier: GPL-2.0-or-later
/* dfmapping.c — the SNAP_MAPPING record: a mapping of a snapshot and its
 * pages, written piecewise (md_mapping_begin/add/end) in the compact
 * encoding of pgstate.h, read back as maximal runs and checked against
 * its snapshot (see datafile.h, man/memsz-data.5). */
#include "config.h"

#include "data/dfcodec.h"
#include "util/escape.h"
#include "util/util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

int md_mapping_begin(struct md_writer *w, uint64_t start, uint64_t end)
{
	uint64_t pgmask;

	if (!w)
		return -EINVAL;
	pgmask = ((uint64_t)1 << w->page_shift) - 1;
	if (end < start || ((start | end) & pgmask)) {
		w->enc.err = -EINVAL;
		return -EINVAL;
	}
	pgstate_begin(&w->enc, start, (end - start) >> w->page_shift,
		      w->page_shift);
	return 0;
}

int md_mapping_add(struct md_writer *w, const struct md_run *runs, size_t nruns)
{
	if (!w || (nruns && !runs))
		return -EINVAL;
	return pgstate_add(&w->enc, runs, nruns);
}

int md_mapping_add_bits(struct md_writer *w, uint64_t vaddr,
			const uint64_t *words, uint64_t first, uint64_t npages,
			uint32_t fl, uint32_t mc)
{
	if (!w || (npages && !words))
		return -EINVAL;
	return pgstate_add_bits(&w->enc, vaddr, words, first, npages, fl, mc);
}

int md_write_mapping(struct md_writer *w, const struct md_snap_mapping *r)
{
	int ret;

	if (!w || !r || (r->nruns && !r->runs))
		return -EINVAL;
	ret = md_mapping_begin(w, r->start, r->end);
	if (!ret)
		ret = md_mapping_add(w, r->runs, r->nruns);
	return ret < 0 ? ret : md_mapping_end(w, r, NULL);
}

/* The has-byte of a version 6 SNAP_MAPPING: which fields differ from
 * what the snapshot's previous mapping predicts (see man/memsz-data.5). */
enum {
	MAP6_FILE = 1u << 0,  /* dev_major, dev_minor, ino follow */
	MAP6_PROT = 1u << 1,  /* flags << 3 | (prot & 7) follows */
	MAP6_IMAGE = 1u << 2, /* image_id + 1 follows */
	MAP6_NAME = 1u << 3,  /* the name's length and bytes follow */
	MAP6_PGOFF = 1u << 4, /* pgoff follows */
	MAP6_PAL = 1u << 5,   /* the palette follows */
	MAP6_PROTX = 1u << 6, /* prot (over 7) follows, after MAP6_PROT's */
	MAP6_KNOWN = 0x7f,
};

void md_map_prev_reset(struct md_map_prev *p)
{
	p->start = p->end = p->pgoff = p->ino = 0;
	p->dev_major = p->dev_minor = p->prot = p->flags = p->image1 = 0;
	if (p->name)
		p->name[0] = 0;
	p->npal = 0;
}

void md_map_prev_free(struct md_map_prev *p)
{
	free(p->name);
	free(p->pal);
	memset(p, 0, sizeof(*p));
}

/* The pgoff predicted for a mapping of ino after p: the page after the
 * previous one's of the same file, else 0 (/proc/PID/maps gives an
 * anonymous mapping pgoff 0). */
static uint64_t map6_pgoff(const struct md_map_prev *p, uint64_t ino,
			   bool same_file)
{
	return ino && same_file ? p->pgoff + (p->end - p->start) : 0;
}

static void map6_name_set(struct md_map_prev *p, const char *s, size_t n)
{
	xgrow(&p->name, &p->name_cap, n + 1, 1);
	memcpy(p->name, s, n);
	p->name[n] = 0;
}

/* The identity fields of m as the previous mapping the next one of the
 * snapshot is coded against (version 6), by writer and reader alike. */
static void map_prev_take(struct md_map_prev *p,
			  const struct md_snap_mapping *m)
{
	p->start = m->start;
	p->end = m->end;
	p->pgoff = m->pgoff;
	p->ino = m->ino;
	p->dev_major = m->dev_major;
	p->dev_minor = m->dev_minor;
	p->prot = m->prot;
	p->flags = m->flags;
	p->image1 = m->image_id + 1;
}

/* The fields of r in the version 6 layout, coded against w->mprev, which
 * becomes r, up to the length of e's page states (which md_mapping_end
 * writes after them from e). */
static void map6_put(struct md_writer *w, const struct md_snap_mapping *r,
		     const struct pgstate_enc *e)
{
	struct md_map_prev *p = &w->mprev;
	const char *name = r->name ? r->name : "";
	size_t pal_bytes = (size_t)e->npal * PGSTATE_PAL_SIZE;
	bool same_file = r->dev_major == p->dev_major &&
			 r->dev_minor == p->dev_minor && r->ino == p->ino;
	uint64_t gap = (r->start >> w->page_shift) - (p->end >> w->page_shift);
	unsigned has = 0;

	has |= same_file ? 0 : MAP6_FILE;
	has |= r->prot == p->prot && r->flags == p->flags ? 0 : MAP6_PROT;
	has |= r->prot > 7 ? MAP6_PROT | MAP6_PROTX : 0;
	has |= r->image_id + 1 == p->image1 ? 0 : MAP6_IMAGE;
	has |= !strcmp(name, p->name ? p->name : "") ? 0 : MAP6_NAME;
	has |= r->pgoff == map6_pgoff(p, r->ino, same_file) ? 0 : MAP6_PGOFF;
	has |= e->npal == p->npal &&
		       (!pal_bytes || !memcmp(e->pal, p->pal, pal_bytes))
		   ? 0
		   : MAP6_PAL;
	md_buf_grow(&w->b, 1)[0] = (uint8_t)has;
	/* signed page delta, zigzag coded: small both ways */
	md_buf_var(&w->b, gap << 1 ^ (uint64_t)((int64_t)gap >> 63));
	md_buf_var(&w->b, (r->end - r->start) >> w->page_shift);
	if (has & MAP6_FILE) {
		md_buf_var(&w->b, r->dev_major);
		md_buf_var(&w->b, r->dev_minor);
		md_buf_var(&w->b, r->ino);
	}
	if (has & MAP6_PROT)
		md_buf_var(&w->b, (uint64_t)r->flags << 3 | (r->prot & 7));
	if (has & MAP6_PROTX)
		md_buf_var(&w->b, r->prot);
	if (has & MAP6_IMAGE)
		md_buf_var(&w->b, (uint32_t)(r->image_id + 1));
	if (has & MAP6_NAME) {
		md_buf_var(&w->b, strlen(name));
		memcpy(md_buf_grow(&w->b, strlen(name)), name, strlen(name));
		map6_name_set(p, name, strlen(name));
	}
	if (has & MAP6_PGOFF)
		md_buf_var(&w->b, r->pgoff);
	if (has & MAP6_PAL) {
		md_buf_var(&w->b, e->npal);
		for (size_t i = 0; i < pal_bytes; i += PGSTATE_PAL_SIZE) {
			md_buf_var(&w->b, get_u32(e->pal + i));
			md_buf_var(&w->b, get_u32(e->pal + i + 4));
		}
		xgrow(&p->pal, &p->pal_cap, pal_bytes + 1, 1);
		if (pal_bytes)
			memcpy(p->pal, e->pal, pal_bytes);
		p->npal = e->npal;
	}
	md_buf_var(&w->b, e->nruns);
	md_buf_var(&w->b, e->len);
	map_prev_take(p, r);
}

/* The fields of r and e's palette in the version 2 to 5 layout:
 * everything in full, a CRC-32 of the page states (which md_mapping_end
 * writes after them from e). */
static void map5_put(struct md_writer *w, const struct md_snap_mapping *r,
		     const struct pgstate_enc *e)
{
	uint8_t le_nruns[8];
	uint32_t crc;

	md_buf_u64(&w->b, r->start);
	md_buf_u64(&w->b, r->end);
	md_buf_u64(&w->b, r->pgoff);
	md_buf_u32(&w->b, r->dev_major);
	md_buf_u32(&w->b, r->dev_minor);
	md_buf_u64(&w->b, r->ino);
	md_buf_u32(&w->b, r->prot);
	md_buf_u32(&w->b, r->flags);
	md_buf_u32(&w->b, r->image_id);
	md_buf_u32(&w->b, 0);
	md_buf_u64(&w->b, e->nruns);
	md_buf_str(&w->b, r->name);
	put_u64(le_nruns, e->nruns);
	crc = pgstate_crc(pgstate_crc(pgstate_crc(0, le_nruns, 8), e->pal,
				      (size_t)e->npal * PGSTATE_PAL_SIZE),
			  e->out, e->len);
	md_buf_u32(&w->b, e->npal);
	md_buf_u32(&w->b, crc);
	md_buf_u64(&w->b, e->len);
	if (e->npal)
		memcpy(md_buf_grow(&w->b, (size_t)e->npal * PGSTATE_PAL_SIZE),
		       e->pal, (size_t)e->npal * PGSTATE_PAL_SIZE);
}

int md_mapping_end(struct md_writer *w, const struct md_snap_mapping *r,
		   uint64_t *nruns)
{
	struct pgstate_enc *e;
	int ret;

	if (!w || !r)
		return -EINVAL;
	e = &w->enc;
	ret = pgstate_end(e);
	if (ret < 0)
		return ret;
	if (r->start != e->start || r->end - r->start != e->npages
							     << w->page_shift)
		return -EINVAL;
	if (nruns)
		*nruns = e->nruns;
	ret = md_rec_begin(w);
	if (ret < 0)
		return ret;
	if (w->version >= 6)
		map6_put(w, r, e);
	else
		map5_put(w, r, e);
	/* the page states follow from where the encoder has them */
	return md_rec_commit_tail(w, MD_REC_SNAP_MAPPING, e->out, e->len);
}

/* the page flags a run may have */
#define MD_PG_KNOWN                                                            \
	(MD_PG_PRESENT | MD_PG_SWAPPED | MD_PG_FILE | MD_PG_EXCLUSIVE |        \
	 MD_PG_SOFTDIRTY | MD_PG_DIRTY | MD_PG_ANON | MD_PG_SWAPBACKED |       \
	 MD_PG_KSM | MD_PG_THP | MD_PG_HUGE | MD_PG_ZERO | MD_PG_IDLE |        \
	 MD_PG_PRIVATE_DIRTY | MD_PG_SHARED_DIRTY | MD_PG_PMD |                \
	 MD_PG_OBJ_SWAPPED)
/* flags only /proc/kpageflags gives (MD_SNAP_F_KPAGEFLAGS) */
#define MD_PG_FROM_KPAGEFLAGS                                                  \
	(MD_PG_DIRTY | MD_PG_ANON | MD_PG_SWAPBACKED | MD_PG_KSM |             \
	 MD_PG_HUGE | MD_PG_IDLE)

/* The checks of one page run of mapping m (see man/memsz-data.5): NULL if
 * it keeps them, else what it breaks. */
static const char *run_check(const struct md_reader *r,
			     const struct md_snap_mapping *m,
			     const struct md_run *run, uint64_t prev_end)
{
	uint64_t ps = r->hdr.page_size;
	uint32_t kind =
	    run->flags & (MD_PG_PRESENT | MD_PG_SWAPPED | MD_PG_ZERO);

	if (!run->npages || run->vaddr % ps)
		return "page run empty or not page aligned";
	if (run->vaddr < prev_end || run->vaddr >= m->end ||
	    run->npages > (m->end - run->vaddr) / ps)
		return "page run outside its mapping or overlapping the "
		       "previous run";
	/* OBJ_SWAPPED is of version 8: unknown to a file before it */
	if (run->reserved || (run->flags & ~(uint32_t)MD_PG_KNOWN) ||
	    (r->hdr.version < 8 && (run->flags & MD_PG_OBJ_SWAPPED)))
		return "page run with unknown flags";
	if (kind != MD_PG_PRESENT && kind != MD_PG_SWAPPED &&
	    kind != MD_PG_ZERO)
		return "page run neither present, swapped nor zero page";
	if ((run->flags & (MD_PG_PRIVATE_DIRTY | MD_PG_SHARED_DIRTY)) &&
	    (kind != MD_PG_PRESENT || (run->flags & MD_PG_PRIVATE_DIRTY &&
				       run->flags & MD_PG_SHARED_DIRTY)))
		return "page run with inconsistent dirty flags";
	if (!(r->snap_flags & MD_SNAP_F_KPAGEFLAGS) &&
	    (run->flags & MD_PG_FROM_KPAGEFLAGS))
		return "page run with kpageflags in a snapshot without them";
	if ((run->flags & MD_PG_PMD) &&
	    (kind != MD_PG_PRESENT || !(r->snap_flags & MD_SNAP_F_PMD)))
		return "page run with a PMD flag that cannot be";
	if ((run->flags & MD_PG_OBJ_SWAPPED) &&
	    (kind != MD_PG_PRESENT || (run->flags & MD_PG_FILE)))
		return "page run with an object swapped under no copy";
	if (kind != MD_PG_PRESENT ? run->mapcount != 0
	    : (run->flags & MD_PG_EXCLUSIVE)
		? run->mapcount != 1
		: !(r->snap_flags & MD_SNAP_F_PFN) && run->mapcount > 1)
		return "page run with an impossible mapcount";
	return NULL;
}

/* The checks of a mapping of the open snapshot: NULL or what it breaks. */
static const char *mapping_check(struct md_reader *r,
				 const struct md_snap_mapping *m)
{
	uint64_t ps = r->hdr.page_size, prev = m->start;
	size_t at;

	if (!r->in_snap)
		return "mapping outside a snapshot";
	if (r->snap_seen >= r->snap_nmappings)
		return "more mappings than the snapshot announced";
	if (m->start % ps || m->end % ps || m->pgoff % ps || m->start >= m->end)
		return "mapping range empty or not page aligned";
	/* the file offsets [pgoff, pgoff + length) hold in 64 bits: a
	 * wrapped end would make the mapping's file pages an empty range */
	if (m->pgoff > UINT64_MAX - (m->end - m->start))
		return "mapping file offsets past 2^64";
	if (m->end > MD_VA_LIMIT &&
	    !(m->start == MD_VSYSCALL_START && m->end == MD_VSYSCALL_END))
		return "mapping beyond the user address space";
	if (m->start < r->snap_prev_end)
		return "mapping out of order or overlapping the previous one";
	if ((m->prot & ~7u) || ((m->flags & ~MD_MAP_LOCKED) != MAP_SHARED &&
				(m->flags & ~MD_MAP_LOCKED) != MAP_PRIVATE))
		return "mapping with unknown protection or flags";
	if ((m->flags & MD_MAP_LOCKED) && !(r->snap_flags & MD_SNAP_F_LOCKED))
		return "locked mapping in a snapshot that does not record "
		       "locking";
	if (m->image_id != UINT32_MAX &&
	    !md_reader_img_known(r, m->image_id, &at))
		return "mapping of an image id with no IMAGE record";
	for (size_t i = 0; i < m->nruns; i++) {
		const char *why = run_check(r, m, &m->runs[i], prev);

		if (why)
			return why;
		prev = m->runs[i].vaddr + (uint64_t)m->runs[i].npages * ps;
	}
	return NULL;
}

/* Version 1: nruns runs of MD_RUN_SIZE bytes, filling the record. Returns
 * 0 or c->err. */
static int decode_runs_v1(struct md_reader *r, struct md_cur *c,
			  struct md_snap_mapping *m, uint64_t nruns)
{
	const uint8_t *q;
	size_t i;

	if (nruns != (c->len - c->pos) / MD_RUN_SIZE ||
	    (c->len - c->pos) % MD_RUN_SIZE)
		md_cur_fail(c, "mapping size does not match its run count");
	q = md_cur_take(c, nruns * MD_RUN_SIZE);
	if (!q)
		return c->err;
	xgrow(&r->runs, &r->runs_cap, nruns, sizeof(*r->runs));
	for (i = 0; i < nruns; i++, q += MD_RUN_SIZE) {
		r->runs[i].vaddr = get_u64(q + RUN_VADDR);
		r->runs[i].npages = get_u32(q + RUN_NPAGES);
		r->runs[i].flags = get_u32(q + RUN_FLAGS);
		r->runs[i].mapcount = get_u32(q + RUN_MAPCOUNT);
		r->runs[i].reserved = get_u32(q + RUN_RESERVED);
	}
	m->runs = nruns ? r->runs : NULL;
	m->nruns = nruns;
	return 0;
}

/* Version 2: a palette and a block stream (pgstate.h) that decode to
 * nruns runs. The page-data CRC-32 is checked only in a file without
 * record checksums (MD_F_CRC): the record's CRC-32C covers the same bytes.
 * Returns 0 or c->err. */
static int decode_runs_v2(struct md_reader *r, struct md_cur *c,
			  struct md_snap_mapping *m, uint64_t nruns)
{
	unsigned shift = (unsigned)__builtin_ctz(r->hdr.page_size);
	const uint8_t *pal, *s, *pad;
	uint8_t le_nruns[8];
	size_t padn;
	uint32_t npal, crc;
	uint64_t nbytes;

	npal = md_cur_u32(c);
	crc = md_cur_u32(c);
	nbytes = md_cur_u64(c);
	if (c->err)
		return c->err;
	/* the pages are counted from start: a range that is not whole
	 * pages cannot be decoded */
	if (m->end <= m->start ||
	    ((m->start | m->end) & (r->hdr.page_size - 1))) {
		md_cur_fail(c, "mapping range empty or not page aligned");
		return c->err;
	}
	if (npal > (c->len - c->pos) / PGSTATE_PAL_SIZE ||
	    nbytes > c->len - c->pos - (size_t)npal * PGSTATE_PAL_SIZE) {
		md_cur_fail(c, "page states run past the end of the mapping");
		return c->err;
	}
	pal = md_cur_take(c, (size_t)npal * PGSTATE_PAL_SIZE);
	s = md_cur_take(c, nbytes);
	padn = align8(c->pos) - c->pos;
	pad = md_cur_take(c, padn);
	if (!pal || !s || !pad)
		return c->err;
	if (!all_zero(pad, padn))
		md_cur_fail(c, "page states not zero padded");
	put_u64(le_nruns, nruns);
	if (!(r->hdr.flags & MD_F_CRC) &&
	    pgstate_crc(pgstate_crc(pgstate_crc(0, le_nruns, 8), pal,
				    (size_t)npal * PGSTATE_PAL_SIZE),
			s, nbytes) != crc)
		md_cur_fail(c, "page states checksum mismatch");
	if (c->err)
		return c->err;
	if (pgstate_decode(pal, npal, s, nbytes, m->start,
			   (m->end - m->start) >> shift, shift, nruns,
			   r->hdr.version >= 5, &r->runs, &r->runs_cap) < 0) {
		md_cur_fail(c, "page states that do not decode");
		return c->err;
	}
	m->runs = nruns ? r->runs : NULL;
	m->nruns = nruns;
	return 0;
}

/* A version 6 palette into p: a count, then each entry's flags and
 * mapcount. Returns 0 or c->err. */
static int decode_pal6(struct md_map_prev *p, struct md_cur *c)
{
	uint64_t n = md_cur_var(c), fl, mc;

	/* each entry takes at least two bytes */
	if (!c->err && n > (c->len - c->pos) / 2)
		md_cur_fail(c, "palette runs past the end of the mapping");
	if (c->err)
		return c->err;
	xgrow(&p->pal, &p->pal_cap, n * PGSTATE_PAL_SIZE + 1, 1);
	for (uint64_t i = 0; i < n; i++) {
		fl = md_cur_var(c);
		mc = md_cur_var(c);
		if (fl > UINT32_MAX || mc > UINT32_MAX)
			md_cur_fail(c, "palette entry over 32 bits");
		if (c->err)
			return c->err;
		put_u32(p->pal + i * PGSTATE_PAL_SIZE, (uint32_t)fl);
		put_u32(p->pal + i * PGSTATE_PAL_SIZE + 4, (uint32_t)mc);
	}
	p->npal = (uint32_t)n;
	return 0;
}

/* The fields of a version 6 mapping after its size, up to the palette:
 * each read if has says so, else the previous mapping's (or predicted). */
static void decode_ids6(struct md_map_prev *p, struct md_cur *c,
			struct md_snap_mapping *m, unsigned has)
{
	const uint8_t *q;
	uint64_t v, zz;

	m->dev_major = p->dev_major;
	m->dev_minor = p->dev_minor;
	m->ino = p->ino;
	if (has & MAP6_FILE) {
		m->dev_major = (uint32_t)(v = md_cur_var(c));
		m->dev_minor = (uint32_t)(zz = md_cur_var(c));
		m->ino = md_cur_var(c);
		if (v > UINT32_MAX || zz > UINT32_MAX)
			md_cur_fail(c, "mapping device number over 32 bits");
	}
	m->prot = p->prot;
	m->flags = p->flags;
	if (has & MAP6_PROT) {
		v = md_cur_var(c);
		if (v >> 35)
			md_cur_fail(c, "mapping flags over 32 bits");
		m->prot = v & 7;
		m->flags = (uint32_t)(v >> 3);
	}
	if (has & MAP6_PROTX) {
		v = md_cur_var(c);
		m->prot = (uint32_t)v;
		if (v > UINT32_MAX || !(has & MAP6_PROT))
			md_cur_fail(c, "mapping protection badly coded");
	}
	v = has & MAP6_IMAGE ? md_cur_var(c) : p->image1;
	if (v > UINT32_MAX)
		md_cur_fail(c, "mapping image id over 32 bits");
	m->image_id = (uint32_t)v - 1;
	if (has & MAP6_NAME) {
		v = md_cur_var(c);
		q = v <= c->len - c->pos ? md_cur_take(c, v) : NULL;
		if (!q || memchr(q, 0, v))
			md_cur_fail(c, "mapping name cut or holding a NUL");
		else
			map6_name_set(p, (const char *)q, v);
	}
	v = (has & MAP6_PGOFF) ? md_cur_var(c)
			       : map6_pgoff(p, m->ino, !(has & MAP6_FILE));
	m->pgoff = v;
}

/* Version 6: the fields coded against the snapshot's previous mapping
 * (r->mprev, then set to this one), the page-state stream and padding.
 * Returns 0 or c->err. */
static int decode_v6(struct md_reader *r, struct md_cur *c,
		     struct md_snap_mapping *m)
{
	unsigned shift = (unsigned)__builtin_ctz(r->hdr.page_size);
	struct md_map_prev *p = &r->mprev;
	const uint8_t *q, *s;
	uint64_t zz, sp, np, nruns, nbytes;
	unsigned has;

	/* no CRC-32 of its own: the record's CRC-32C is its only check */
	if (!(r->hdr.flags & MD_F_CRC))
		md_cur_fail(c, "version 6 mapping without record checksums");
	q = md_cur_take(c, 1);
	has = q ? *q : 0;
	zz = md_cur_var(c);
	np = md_cur_var(c);
	if (has & ~(unsigned)MAP6_KNOWN)
		md_cur_fail(c, "mapping with unknown field bits");
	sp = (p->end >> shift) + (zz >> 1 ^ (uint64_t) - (int64_t)(zz & 1));
	if (sp > UINT64_MAX >> shift || np > (UINT64_MAX >> shift) - sp)
		md_cur_fail(c, "mapping range beyond 64 bits");
	m->start = sp << shift;
	m->end = (sp + np) << shift;
	decode_ids6(p, c, m, has);
	if ((has & MAP6_PAL) && decode_pal6(p, c) < 0)
		return c->err;
	nruns = md_cur_var(c);
	nbytes = md_cur_var(c);
	if (c->err)
		return c->err;
	s = nbytes <= c->len - c->pos ? md_cur_take(c, nbytes) : NULL;
	if (!s || c->len - c->pos >= 8 ||
	    !all_zero(c->p + c->pos, c->len - c->pos))
		md_cur_fail(c, "page states cut, or not followed by padding");
	if (c->err)
		return c->err;
	c->pos = c->len;
	m->name = p->name ? p->name : "";
	if (m->end <= m->start) {
		md_cur_fail(c, "mapping range empty or not page aligned");
		return c->err;
	}
	if (pgstate_decode(p->pal, p->npal, s, nbytes, m->start, np, shift,
			   nruns, true, &r->runs, &r->runs_cap) < 0) {
		md_cur_fail(c, "page states that do not decode");
		return c->err;
	}
	m->runs = nruns ? r->runs : NULL;
	m->nruns = nruns;
	map_prev_take(p, m);
	return 0;
}

/* The fields and pages of a mapping of a file of version 1 to 5. */
static int decode_v1(struct md_reader *r, struct md_cur *c,
		     struct md_snap_mapping *m)
{
	uint64_t nruns;
	uint32_t reserved;

	m->start = md_cur_u64(c);
	m->end = md_cur_u64(c);
	m->pgoff = md_cur_u64(c);
	m->dev_major = md_cur_u32(c);
	m->dev_minor = md_cur_u32(c);
	m->ino = md_cur_u64(c);
	m->prot = md_cur_u32(c);
	m->flags = md_cur_u32(c);
	m->image_id = md_cur_u32(c);
	reserved = md_cur_u32(c);
	nruns = md_cur_u64(c);
	m->name = md_cur_str(c);
	if (reserved)
		md_cur_fail(c, "mapping with a non-zero reserved field");
	if (c->err)
		return c->err;
	if (r->hdr.version == 1)
		return decode_runs_v1(r, c, m, nruns);
	return decode_runs_v2(r, c, m, nruns);
}

/* The mapping's fields, its pages (in the layout of the file's version)
 * and the checks against its snapshot. */
int md_mapping_decode(struct md_reader *r, struct md_cur *c,
		      struct md_record *rec)
{
	struct md_snap_mapping *m = &rec->u.mapping;
	const char *why;

	if (r->hdr.version >= 6)
		decode_v6(r, c, m);
	else
		decode_v1(r, c, m);
	if (c->err)
		return c->err;
	why = mapping_check(r, m);
	if (why)
		md_cur_fail(c, why);
	r->snap_seen++;
	r->snap_prev_end = m->end;
	return c->err;
}

/* A mapping's page counts; with o->verbose each page run on a line. */
void md_print_mapping(FILE *out, const struct md_record *rec, const char *name,
		      const struct md_print_opts *o)
{
	const struct md_snap_mapping *m = &rec->u.mapping;
	uint64_t present = 0, swapped = 0, zero = 0, pd = 0, sd = 0;
	size_t i;

	for (i = 0; i < m->nruns; i++) {
		const struct md_run *r = &m->runs[i];

		present += r->flags & MD_PG_PRESENT ? r->npages : 0;
		swapped += r->flags & (MD_PG_SWAPPED | MD_PG_OBJ_SWAPPED)
			       ? r->npages
			       : 0;
		zero += r->flags & MD_PG_ZERO ? r->npages : 0;
		pd += r->flags & MD_PG_PRIVATE_DIRTY ? r->npages : 0;
		sd += r->flags & MD_PG_SHARED_DIRTY ? r->npages : 0;
	}
	fprintf(out, "%s [0x%" PRIx64 "-0x%" PRIx64 ") ", name, m->start,
		m->end);
	md_print_perms(out, m->prot, m->flags);
	if (m->flags & MD_MAP_LOCKED)
		fputs(" locked", out);
	fprintf(out, " @ 0x%" PRIx64 " %02x:%02x %" PRIu64 " image ", m->pgoff,
		m->dev_major, m->dev_minor, m->ino);
	if (m->image_id == UINT32_MAX)
		fputc('-', out);
	else
		fprintf(out, "#%u", m->image_id);
	fprintf(out,
		" present %" PRIu64 " swapped %" PRIu64 " zero %" PRIu64
		" private_dirty %" PRIu64 " shared_dirty %" PRIu64 " runs %zu ",
		present, swapped, zero, pd, sd, m->nruns);
	fputs_escaped(m->name, out);
	fputc('\n', out);
	for (i = 0; o->verbose && i < m->nruns; i++) {
		const struct md_run *r = &m->runs[i];

		fprintf(out, "    run 0x%" PRIx64 "-0x%" PRIx64 " pages %u ",
			r->vaddr, r->vaddr + (uint64_t)r->npages * o->page_size,
			r->npages);
		md_print_page_flags(out, r->flags);
		fprintf(out, " mapcount %u\n", r->mapcount);
	}
}
