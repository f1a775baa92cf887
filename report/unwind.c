// SPDX-License-Identifier: GPL-2.0-or-later
/* unwind.c — see unwind.h */
#include "config.h"

#include "report/unwind.h"

#include <elf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "elf/ehframe.h"
#include "elf/elfimg.h"
#include "report/attrib.h"
#include "util/dynlib.h"
#include "util/util.h"

#if defined(__x86_64__)
#define MEMSZ_UNWIND_X86_64 1
#include <libunwind.h>

/* Not in libunwind's public headers, but exported (perf declares it the
 * same way): search a binary-search table of FDEs for ip. */
extern int UNW_OBJ(dwarf_search_unwind_table)(unw_addr_space_t as,
					      unw_word_t ip, unw_dyn_info_t *di,
					      unw_proc_info_t *pi,
					      int need_unwind_info, void *arg);

/* libunwind is opened on first use (util/dynlib.h), not linked: with
 * liblzma, which it pulls in, it cost every start of memsz three shared
 * libraries, and only a report of sampled faults unwinds. The header gives
 * the types; the soname is the one Debian's libunwind8 ships. */
#define UNWIND_SONAME "libunwind-x86_64.so.8"
#define UNW_STR_(x) #x
#define UNW_STR(x) UNW_STR_(x)

static __typeof__(&unw_create_addr_space) xunw_create_addr_space;
static __typeof__(&unw_destroy_addr_space) xunw_destroy_addr_space;
static __typeof__(&unw_set_caching_policy) xunw_set_caching_policy;
static __typeof__(&unw_init_remote) xunw_init_remote;
static __typeof__(&unw_get_reg) xunw_get_reg;
static __typeof__(&unw_step) xunw_step;
static __typeof__(&UNW_OBJ(dwarf_search_unwind_table)) xunw_search_table;

static const struct dynlib_sym unw_syms[] = {
    {UNW_STR(unw_create_addr_space), (void **)&xunw_create_addr_space},
    {UNW_STR(unw_destroy_addr_space), (void **)&xunw_destroy_addr_space},
    {UNW_STR(unw_set_caching_policy), (void **)&xunw_set_caching_policy},
    {UNW_STR(unw_init_remote), (void **)&xunw_init_remote},
    {UNW_STR(unw_get_reg), (void **)&xunw_get_reg},
    {UNW_STR(unw_step), (void **)&xunw_step},
    {UNW_STR(UNW_OBJ(dwarf_search_unwind_table)), (void **)&xunw_search_table},
};

static struct dynlib unw_lib = {
    .soname = UNWIND_SONAME,
    .syms = unw_syms,
    .nsyms = ARRAY_SIZE(unw_syms),
};
#endif

/* .eh_frame_hdr table encoding libunwind's remote table search reads:
 * DW_EH_PE_datarel | DW_EH_PE_sdata4 */
#define EH_TABLE_ENC 0x3b

/* Converted .debug_frame (see dframe_build) lives at fake addresses above
 * anything a user process can map. */
#define DFRAME_BASE 0xffff900000000000ULL
#define DFRAME_STRIDE 0x0000001000000000ULL

/* .debug_frame records as dframe_build() reads them (32-bit DWARF, 8-byte
 * addresses): u32 length, u32 CIE id (CIE) or CIE offset (FDE), then a
 * CIE's version byte and augmentation string, or an FDE's
 * initial_location and address_range. */
#define DF_DWARF64_LENGTH 0xffffffffu /* the 64-bit format: not handled */
#define DF_CIE_ID 0xffffffffu	      /* .eh_frame's CIE id is 0 instead */
#define DF_MIN_RECORD 12	   /* length, id, version, empty augmentation */
#define DF_FDE_MIN_LEN (4 + 8 + 8) /* CIE offset, location, range */

/* One ELF image: the caller's (struct unwind_map img) or one the unwinder
 * opened from a path. */
struct uw_image {
	char *path;	     /* opened by path: the path; else NULL */
	struct elfimg *e;    /* borrowed from the caller unless path */
	int err;	     /* < 0: could not be opened */
	const uint8_t *data; /* the whole file (elfimg_raw) */
	size_t size;
	uint64_t lo, hi; /* image VM range of the PT_LOADs */
	/* .eh_frame_hdr search table */
	bool have_hdr;
	uint64_t hdr_vaddr;   /* image VM address of .eh_frame_hdr */
	uint64_t table_vaddr; /* of its table */
	uint64_t fde_count;
	/* without .eh_frame_hdr (static links: ld adds one only when asked,
	 * and gcc -static does not ask): a search table of .eh_frame built
	 * here, entries relative to lo (start, FDE), served at ehtab_addr */
	int32_t *ehtab;
	size_t ehtab_count;
	uint64_t ehtab_addr;
	/* .debug_frame, converted to .eh_frame form with a search table,
	 * for a load bias (dframe_bias) */
	uint8_t *dframe; /* converted entries, then the table */
	size_t dframe_len, dframe_table_off, dframe_count;
	uint64_t dframe_bias, dframe_addr;
	bool dframe_built;
	/* .debug_frame as found (image or debug file), borrowed from its
	 * elfimg_raw() bytes */
	const uint8_t *dfsrc;
	size_t dfsrc_len;
};

struct unwinder {
	const char *debug_root;
	struct uw_image **imgs;
	size_t nimgs, cap;
#ifdef MEMSZ_UNWIND_X86_64
	unw_addr_space_t as;
#endif
};

/* Per unwind_sample(): what the accessors read. */
struct uw_ctx {
	struct unwinder *u;
	const struct unwind_regs *r;
	unwind_find_fn find;
	void *arg;
	/* last mapping found, to spare find() calls */
	uint64_t m_start, m_end, m_pgoff, m_bias;
	struct uw_image *m_img; /* NULL: anonymous */
	bool m_valid, m_have_bias;
};

int unwind_reg(const struct unwind_regs *r, unsigned reg, uint64_t *val)
{
	uint64_t below;
	unsigned idx;

	if (!r->abi || reg >= 8 * sizeof(r->mask) || !(r->mask & (1ULL << reg)))
		return -ENOENT;
	below = r->mask & ((1ULL << reg) - 1);
	idx = (unsigned)__builtin_popcountll(below);
	if (idx >= r->nregs || !r->regs)
		return -ENOENT;
	*val = r->regs[idx];
	return 0;
}

/* --- images --- */

static void uw_image_free(struct uw_image *im)
{
	if (!im)
		return;
	if (im->path)
		elfimg_close(im->e);
	free(im->path);
	free(im->dframe);
	free(im->ehtab);
	free(im);
}

static bool read_at(const struct uw_image *im, uint64_t off, void *buf,
		    size_t len)
{
	if (off > im->size || len > im->size - off)
		return false;
	memcpy(buf, im->data + off, len);
	return true;
}

/* Section name of e with file bytes in e's raw data[0, size), or NULL. */
static const struct elf_section *find_section(const struct elfimg *e,
					      const char *name, size_t size)
{
	for (size_t i = 1; i < e->nsecs; i++) {
		const struct elf_section *s = &e->secs[i];

		if (strcmp(s->name, name) || s->type == SHT_NOBITS || !s->size)
			continue;
		if (s->offset > size || s->size > size - s->offset)
			return NULL;
		return s;
	}
	return NULL;
}

/* The .eh_frame_hdr search table of im (elf/ehframe.h parses it), if
 * libunwind can search it in place. */
static void find_eh_frame_hdr(struct uw_image *im)
{
	const struct elf_section *s;
	struct elf_ehhdr_entry *ents = NULL;
	size_t n = 0;

	s = find_section(im->e, ".eh_frame_hdr", im->size);
	if (!s || !(s->flags & SHF_ALLOC) || s->size < 4 ||
	    im->data[s->offset + 3] != EH_TABLE_ENC)
		return;
	if (elf_ehframe_hdr_read(im->e, &ents, &n) == 0 && n &&
	    ents[0].size == 8 && ents[0].off >= s->offset &&
	    ents[0].off - s->offset < s->size) {
		im->hdr_vaddr = s->addr;
		im->table_vaddr = s->addr + (ents[0].off - s->offset);
		im->fde_count = n;
		im->have_hdr = true;
	}
	free(ents);
}

static int ehtab_cmp(const void *x, const void *y)
{
	const int32_t *a = x, *b = y;

	return a[0] < b[0] ? -1 : a[0] > b[0];
}

/* The .eh_frame section of im holding file offset off, or NULL. */
static const struct elf_section *eh_section_at(const struct elfimg *e,
					       uint64_t off)
{
	for (size_t i = 1; i < e->nsecs; i++) {
		const struct elf_section *s = &e->secs[i];

		if (!strcmp(s->name, ".eh_frame") && s->type != SHT_NOBITS &&
		    (s->flags & SHF_ALLOC) && off >= s->offset &&
		    off - s->offset < s->size)
			return s;
	}
	return NULL;
}

/* A search table of im's .eh_frame FDEs, for an image without
 * .eh_frame_hdr: (pc_begin - lo, FDE address - lo) pairs sorted by the
 * first, as the header's table would hold them relative to its start. */
static void build_eh_table(struct uw_image *im)
{
	struct elf_fde *fdes = NULL;
	size_t n = 0, k = 0;

	elf_ehframe_read(im->e, &fdes, &n);
	if (n)
		im->ehtab = xmalloc(n * 2 * sizeof(*im->ehtab));
	for (size_t i = 0; i < n; i++) {
		const struct elf_fde *f = &fdes[i];
		const struct elf_section *s = eh_section_at(im->e, f->off);
		uint64_t fde = s ? s->addr + (f->off - s->offset) : 0;

		/* the table's entries are signed 32-bit offsets */
		if (!s || !f->pc_range || f->pc_begin < im->lo ||
		    f->pc_begin >= im->hi || f->pc_begin - im->lo > INT32_MAX ||
		    fde < im->lo || fde - im->lo > INT32_MAX)
			continue;
		im->ehtab[2 * k] = (int32_t)(f->pc_begin - im->lo);
		im->ehtab[2 * k + 1] = (int32_t)(fde - im->lo);
		k++;
	}
	free(fdes);
	if (!k) {
		free(im->ehtab);
		im->ehtab = NULL;
		return;
	}
	qsort(im->ehtab, k, 2 * sizeof(*im->ehtab), ehtab_cmp);
	im->ehtab_count = k;
}

/* .debug_frame of im: from the image, else (debug_file) from its separate
 * debug file. */
static void find_debug_frame(struct uw_image *im, const char *debug_root,
			     bool debug_file)
{
	const struct elf_section *s;
	struct elfimg *d;
	const uint8_t *data;
	size_t size;

	s = find_section(im->e, ".debug_frame", im->size);
	if (s) {
		im->dfsrc = im->data + s->offset;
		im->dfsrc_len = s->size;
		return;
	}
	if (!debug_file || elfimg_find_debug(im->e, debug_root) <= 0 ||
	    !(d = im->e->debug))
		return;
	data = elfimg_raw(d, &size);
	if (!data || !(s = find_section(d, ".debug_frame", size)))
		return;
	im->dfsrc = data + s->offset;
	im->dfsrc_len = s->size;
}

static void uw_image_init(struct unwinder *u, struct uw_image *im)
{
	const struct elfimg *e = im->e;

	im->data = elfimg_raw(im->e, &im->size);
	if (!im->data) {
		im->err = -MEMSZ_ENOTELF;
		return;
	}
	im->lo = UINT64_MAX;
	for (size_t i = 0; i < e->nsegs; i++) {
		const struct elf_segment *s = &e->segs[i];

		if (s->type != PT_LOAD)
			continue;
		im->lo = MIN(im->lo, s->vaddr);
		im->hi = MAX(im->hi, s->vaddr + s->memsz);
	}
	if (im->lo == UINT64_MAX) {
		im->err = -MEMSZ_EBADELF;
		return;
	}
	find_eh_frame_hdr(im);
	if (!im->have_hdr)
		build_eh_table(im);
	find_debug_frame(im, u->debug_root, !im->have_hdr && !im->ehtab);
}

/* The image of mapping m (NULL: anonymous or unusable). */
static struct uw_image *uw_image_get(struct unwinder *u,
				     const struct unwind_map *m)
{
	struct uw_image *im;

	if (!m->img && (!m->path || !m->path[0]))
		return NULL;
	for (size_t i = 0; i < u->nimgs; i++) {
		im = u->imgs[i];
		if (m->img ? im->e == m->img
			   : im->path && !strcmp(im->path, m->path))
			return im->err ? NULL : im;
	}
	im = xcalloc(1, sizeof(*im));
	/* its fake addresses: the converted .debug_frame at the start of its
	 * stride, a built .eh_frame table in the stride's second half */
	im->ehtab_addr =
	    DFRAME_BASE + u->nimgs * DFRAME_STRIDE + DFRAME_STRIDE / 2;
	if (m->img) {
		im->e = m->img;
	} else {
		im->path = xstrdup(m->path);
		im->err = elfimg_open(im->path, &im->e);
	}
	if (!im->err)
		uw_image_init(u, im);
	xgrow(&u->imgs, &u->cap, u->nimgs + 1, sizeof(*u->imgs));
	u->imgs[u->nimgs++] = im;
	return im->err ? NULL : im;
}

/* --- .debug_frame, converted to the .eh_frame form libunwind reads ---
 *
 * libunwind (as Debian builds it) parses .debug_frame only in its local
 * address space. We rewrite it as .eh_frame entries: CIE id 0, CIE
 * pointers relative, FDE start addresses relocated by the load bias (the
 * CIEs have no augmentation, so FDE addresses stay absolute pointers), and
 * append a sorted table of (start - image start, FDE offset). The result
 * is served from fake addresses by access_mem. */

struct dframe_ent {
	uint64_t start;
	uint64_t fde_off;
};

static int dframe_cmp(const void *x, const void *y)
{
	const struct dframe_ent *a = x, *b = y;

	return u64_cmp(a->start, b->start);
}

static bool dframe_build(struct uw_image *im, uint64_t bias, uint64_t addr)
{
	const uint8_t *src = im->dfsrc;
	size_t len = im->dfsrc_len, pos = 0;
	struct dframe_ent *ents = NULL;
	size_t nents = 0, cap = 0;
	uint8_t *out;
	uint64_t base = im->lo + bias;

	free(im->dframe);
	im->dframe = NULL;
	im->dframe_built = false;
	out = xmalloc(len + 8);
	memcpy(out, src, len);
	while (pos + DF_MIN_RECORD <= len) {
		uint32_t l32, id;
		uint64_t start;

		memcpy(&l32, src + pos, 4);
		if (l32 == 0 || l32 == DF_DWARF64_LENGTH || l32 > len - pos - 4)
			break;
		memcpy(&id, src + pos + 4, 4);
		if (id == DF_CIE_ID) {
			/* CIE: id 0; needs an empty augmentation */
			uint32_t zero = 0;

			memcpy(out + pos + 4, &zero, 4);
			if (src[pos + 9] != 0)
				goto fail;
		} else if (l32 >= DF_FDE_MIN_LEN) {
			/* FDE: CIE pointer relative to this field */
			uint32_t rel = (uint32_t)(pos + 4 - id);

			if (id >= pos)
				goto fail;
			memcpy(out + pos + 4, &rel, 4);
			memcpy(&start, src + pos + 8, 8);
			if (start >= im->lo && start < im->hi) {
				start += bias;
				memcpy(out + pos + 8, &start, 8);
				xgrow(&ents, &cap, nents + 1, sizeof(*ents));
				ents[nents].start = start;
				ents[nents].fde_off = pos;
				nents++;
			}
		}
		pos += 4 + (size_t)l32;
	}
	if (!nents)
		goto fail;
	qsort(ents, nents, sizeof(*ents), dframe_cmp);
	im->dframe_table_off = (len + 7) & ~(size_t)7;
	im->dframe_len = im->dframe_table_off + nents * 8;
	out = xrealloc(out, im->dframe_len);
	memset(out + len, 0, im->dframe_table_off - len);
	for (size_t i = 0; i < nents; i++) {
		int32_t e[2] = {(int32_t)(ents[i].start - base),
				(int32_t)ents[i].fde_off};

		memcpy(out + im->dframe_table_off + i * 8, e, 8);
	}
	im->dframe = out;
	im->dframe_count = nents;
	im->dframe_bias = bias;
	im->dframe_addr = addr;
	im->dframe_built = true;
	free(ents);
	return true;
fail:
	free(ents);
	free(out);
	return false;
}

/* --- libunwind accessors --- */

#ifdef MEMSZ_UNWIND_X86_64

/* perf register number of a libunwind x86_64 register, or -1. */
static int perf_reg_of(int unw)
{
	static const int map[] = {
	    [UNW_X86_64_RAX] = UNWIND_PERF_AX,
	    [UNW_X86_64_RDX] = UNWIND_PERF_DX,
	    [UNW_X86_64_RCX] = UNWIND_PERF_CX,
	    [UNW_X86_64_RBX] = UNWIND_PERF_BX,
	    [UNW_X86_64_RSI] = UNWIND_PERF_SI,
	    [UNW_X86_64_RDI] = UNWIND_PERF_DI,
	    [UNW_X86_64_RBP] = UNWIND_PERF_BP,
	    [UNW_X86_64_RSP] = UNWIND_PERF_SP,
	    [UNW_X86_64_R8] = UNWIND_PERF_R8,
	    [UNW_X86_64_R9] = UNWIND_PERF_R9,
	    [UNW_X86_64_R10] = UNWIND_PERF_R10,
	    [UNW_X86_64_R11] = UNWIND_PERF_R11,
	    [UNW_X86_64_R12] = UNWIND_PERF_R12,
	    [UNW_X86_64_R13] = UNWIND_PERF_R13,
	    [UNW_X86_64_R14] = UNWIND_PERF_R14,
	    [UNW_X86_64_R15] = UNWIND_PERF_R15,
	    [UNW_X86_64_RIP] = UNWIND_PERF_IP,
	};

	if (unw < 0 || unw > UNW_X86_64_RIP)
		return -1;
	return map[unw];
}

/* The mapping holding addr: sets c->m_*; false if none. */
static bool ctx_map(struct uw_ctx *c, uint64_t addr)
{
	struct unwind_map m = {0};

	if (c->m_valid && addr >= c->m_start && addr < c->m_end)
		return true;
	if (c->find(c->arg, addr, &m) < 0 || addr < m.start || addr >= m.end)
		return false;
	c->m_start = m.start;
	c->m_end = m.end;
	c->m_pgoff = m.pgoff;
	c->m_img = uw_image_get(c->u, &m);
	c->m_have_bias = m.have_bias;
	c->m_bias = m.bias;
	if (c->m_img && !m.img && !m.have_bias) {
		/* a live process of this machine (see unwind_map): the
		 * mapping of an ip is executable */
		long ps = sysconf(_SC_PAGESIZE);

		c->m_have_bias =
		    attrib_elf_segment(
			c->m_img->e, ps > 0 ? (uint64_t)ps : 4096, m.start,
			m.pgoff, PROT_READ | PROT_EXEC, &c->m_bias) >= 0;
	}
	c->m_valid = true;
	return true;
}

static int read_word(struct uw_ctx *c, uint64_t addr, unw_word_t *val)
{
	const struct unwind_regs *r = c->r;
	uint64_t off;

	if (r->stack && addr >= r->sp && addr - r->sp <= r->stack_size &&
	    r->stack_size - (addr - r->sp) >= sizeof(*val)) {
		memcpy(val, r->stack + (addr - r->sp), sizeof(*val));
		return 0;
	}
	if (addr >= DFRAME_BASE) {
		for (size_t i = 0; i < c->u->nimgs; i++) {
			struct uw_image *im = c->u->imgs[i];
			size_t tlen = im->ehtab_count * 2 * sizeof(*im->ehtab);

			if (im->ehtab && addr >= im->ehtab_addr &&
			    addr - im->ehtab_addr <= tlen &&
			    tlen - (addr - im->ehtab_addr) >= 8) {
				memcpy(val,
				       (const uint8_t *)im->ehtab +
					   (addr - im->ehtab_addr),
				       8);
				return 0;
			}
			if (!im->dframe_built || addr < im->dframe_addr ||
			    addr - im->dframe_addr > im->dframe_len ||
			    im->dframe_len - (addr - im->dframe_addr) < 8)
				continue;
			memcpy(val, im->dframe + (addr - im->dframe_addr), 8);
			return 0;
		}
		return -UNW_EINVAL;
	}
	if (!ctx_map(c, addr) || !c->m_img)
		return -UNW_EINVAL;
	off = addr - c->m_start + c->m_pgoff;
	if (!read_at(c->m_img, off, val, sizeof(*val)))
		return -UNW_EINVAL;
	return 0;
}

static int acc_find_proc_info(unw_addr_space_t as, unw_word_t ip,
			      unw_proc_info_t *pi, int need_unwind_info,
			      void *arg)
{
	struct uw_ctx *c = arg;
	struct uw_image *im;
	unw_dyn_info_t di;
	uint64_t bias;

	if (!ctx_map(c, ip) || !(im = c->m_img) || !c->m_have_bias)
		return -UNW_ENOINFO;
	bias = c->m_bias;
	memset(&di, 0, sizeof(di));
	di.start_ip = im->lo + bias;
	di.end_ip = im->hi + bias;
	if (ip < di.start_ip || ip >= di.end_ip)
		return -UNW_ENOINFO;
	if (im->have_hdr) {
		int ret;

		di.format = UNW_INFO_FORMAT_REMOTE_TABLE;
		di.u.rti.segbase = im->hdr_vaddr + bias;
		di.u.rti.table_data = im->table_vaddr + bias;
		di.u.rti.table_len = im->fde_count * 8 / sizeof(unw_word_t);
		ret = xunw_search_table(as, ip, &di, pi, need_unwind_info, arg);
		if (ret >= 0 || !im->dfsrc)
			return ret;
		memset(&di, 0, sizeof(di));
		di.start_ip = im->lo + bias;
		di.end_ip = im->hi + bias;
	} else if (im->ehtab) {
		/* ips and FDEs both relative to the image's start */
		di.format = UNW_INFO_FORMAT_IP_OFFSET;
		di.u.rti.segbase = im->lo + bias;
		di.u.rti.table_data = im->ehtab_addr;
		di.u.rti.table_len = im->ehtab_count * 8 / sizeof(unw_word_t);
		return xunw_search_table(as, ip, &di, pi, need_unwind_info,
					 arg);
	}
	if (!im->dfsrc)
		return -UNW_ENOINFO;
	if (!im->dframe_built || im->dframe_bias != bias) {
		size_t idx = 0;

		while (idx < c->u->nimgs && c->u->imgs[idx] != im)
			idx++;
		if (!dframe_build(im, bias, DFRAME_BASE + idx * DFRAME_STRIDE))
			return -UNW_ENOINFO;
	}
	di.format = UNW_INFO_FORMAT_IP_OFFSET;
	di.u.rti.segbase = im->dframe_addr;
	di.u.rti.table_data = im->dframe_addr + im->dframe_table_off;
	di.u.rti.table_len = im->dframe_count * 8 / sizeof(unw_word_t);
	return xunw_search_table(as, ip, &di, pi, need_unwind_info, arg);
}

static void acc_put_unwind_info(unw_addr_space_t as, unw_proc_info_t *pi,
				void *arg)
{
	(void)as;
	(void)arg;
	free(pi->unwind_info);
	pi->unwind_info = NULL;
}

static int acc_get_dyn_info_list_addr(unw_addr_space_t as, unw_word_t *dilap,
				      void *arg)
{
	(void)as;
	(void)dilap;
	(void)arg;
	return -UNW_ENOINFO;
}

static int acc_access_mem(unw_addr_space_t as, unw_word_t addr,
			  unw_word_t *valp, int write, void *arg)
{
	(void)as;
	if (write)
		return -UNW_EINVAL;
	return read_word(arg, addr, valp);
}

static int acc_access_reg(unw_addr_space_t as, unw_regnum_t regnum,
			  unw_word_t *valp, int write, void *arg)
{
	struct uw_ctx *c = arg;
	int reg = perf_reg_of(regnum);
	uint64_t v;

	(void)as;
	if (write || reg < 0)
		return -UNW_EBADREG;
	if (unwind_reg(c->r, (unsigned)reg, &v) < 0)
		return -UNW_EBADREG;
	*valp = v;
	return 0;
}

static int acc_access_fpreg(unw_addr_space_t as, unw_regnum_t num,
			    unw_fpreg_t *val, int write, void *arg)
{
	(void)as;
	(void)num;
	(void)val;
	(void)write;
	(void)arg;
	return -UNW_EINVAL;
}

static int acc_resume(unw_addr_space_t as, unw_cursor_t *cu, void *arg)
{
	(void)as;
	(void)cu;
	(void)arg;
	return -UNW_EINVAL;
}

static int acc_get_proc_name(unw_addr_space_t as, unw_word_t addr, char *bufp,
			     size_t buf_len, unw_word_t *offp, void *arg)
{
	(void)as;
	(void)addr;
	(void)bufp;
	(void)buf_len;
	(void)offp;
	(void)arg;
	return -UNW_EINVAL;
}

static unw_accessors_t accessors = {
    .find_proc_info = acc_find_proc_info,
    .put_unwind_info = acc_put_unwind_info,
    .get_dyn_info_list_addr = acc_get_dyn_info_list_addr,
    .access_mem = acc_access_mem,
    .access_reg = acc_access_reg,
    .access_fpreg = acc_access_fpreg,
    .resume = acc_resume,
    .get_proc_name = acc_get_proc_name,
};

#endif /* MEMSZ_UNWIND_X86_64 */

struct unwinder *unwind_new(const char *debug_root)
{
	struct unwinder *u = xcalloc(1, sizeof(*u));

	u->debug_root = debug_root;
#ifdef MEMSZ_UNWIND_X86_64
	if (dynlib_load(&unw_lib) == 0)
		u->as = xunw_create_addr_space(&accessors, 0);
	if (u->as)
		xunw_set_caching_policy(u->as, UNW_CACHE_NONE);
#endif
	return u;
}

void unwind_free(struct unwinder *u)
{
	if (!u)
		return;
#ifdef MEMSZ_UNWIND_X86_64
	if (u->as)
		xunw_destroy_addr_space(u->as);
#endif
	for (size_t i = 0; i < u->nimgs; i++)
		uw_image_free(u->imgs[i]);
	free(u->imgs);
	free(u);
}

bool unwind_has_info(struct unwinder *u, const struct unwind_regs *r,
		     unwind_find_fn find, void *arg, uint64_t ip)
{
#ifdef MEMSZ_UNWIND_X86_64
	struct uw_ctx c = {.u = u, .r = r, .find = find, .arg = arg};
	unw_proc_info_t pi;

	memset(&pi, 0, sizeof(pi));
	/* need_unwind_info 0: nothing for put_unwind_info to free */
	return u->as && acc_find_proc_info(u->as, ip, &pi, 0, &c) >= 0 &&
	       ip >= pi.start_ip && ip < pi.end_ip;
#else
	(void)u;
	(void)r;
	(void)find;
	(void)arg;
	(void)ip;
	return false;
#endif
}

int unwind_sample(struct unwinder *u, const struct unwind_regs *r,
		  unwind_find_fn find, void *arg, uint64_t *ips, size_t max)
{
	uint64_t ip;
	size_t n = 0;

	if (!max || unwind_reg(r, UNWIND_PERF_IP, &ip) < 0 || !ip)
		return 0;
#ifdef MEMSZ_UNWIND_X86_64
	if (u->as) {
		struct uw_ctx c = {.u = u, .r = r, .find = find, .arg = arg};
		unw_cursor_t cur;
		unw_word_t w, sp, last_sp = 0;

		if (xunw_init_remote(&cur, u->as, &c) < 0)
			goto ip_only;
		do {
			if (xunw_get_reg(&cur, UNW_REG_IP, &w) < 0 || !w ||
			    xunw_get_reg(&cur, UNW_REG_SP, &sp) < 0)
				break;
			/* a frame that does not move: a broken chain */
			if (n && ips[n - 1] == w && sp == last_sp)
				break;
			last_sp = sp;
			ips[n++] = w;
		} while (n < max && xunw_step(&cur) > 0);
		if (n)
			return (int)n;
	}
ip_only:
#else
	(void)u;
	(void)find;
	(void)arg;
#endif
	ips[0] = ip;
	return 1;
}
