// SPDX-License-Identifier: GPL-2.0-or-later
/* lsdatab.c — .gcc_except_table's LSDAs charged to their functions.
 *
 * An FDE whose CIE has the 'L' augmentation points to the LSDA of its
 * function (language-specific data: where its call sites land and what
 * they catch) in .gcc_except_table. The LSDA's length is stored nowhere:
 * elf_lsda_len() reads it through, as the personality routine does. The
 * format is GCC's (gcc/except.c, LLVM's EHStreamer), which every
 * personality routine of ELF toolchains reads (C++'s, C's, Objective-C's,
 * Ada's, Go's, D's, Rust's): the routine is not looked at, only the
 * section the pointer lands in. Bytes no LSDA covers (the alignment
 * padding between LSDAs, an LSDA no FDE points to) stay "[section
 * .gcc_except_table]". */
#include "config.h"

#include "elf/ehframe.h"
#include "elf/elfpriv.h"
#include "elf/lsdatab.h"
#include "elf/metasink.h"
#include "elf/secaddr.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

void lsda_ref_add(struct lsda_refs *r, uint64_t addr, uint32_t id)
{
	if (r->n == r->cap)
		xgrow(&r->v, &r->cap, r->n + 1, sizeof(*r->v));
	r->v[r->n] = (struct lsda_ref){addr, id, r->n};
	r->n++;
}

static int ref_cmp(const void *a, const void *b)
{
	const struct lsda_ref *x = a, *y = b;

	return x->addr != y->addr ? u64_cmp(x->addr, y->addr)
				  : u64_cmp(x->seq, y->seq);
}

/* Is s a loaded .gcc_except_table (GCC names a function section's
 * .gcc_except_table.NAME) with bytes? */
static bool is_except(const struct elfimg *img, const struct elf_section *s)
{
	(void)img;
	return (s->flags & SHF_ALLOC) && s->type == SHT_PROGBITS &&
	       !strncmp(s->name, ".gcc_except_table", 17) &&
	       (!s->name[17] || s->name[17] == '.');
}

/* The section and bytes addr lies in into *sec, *b (kept if they hold
 * it, else the old ones' table pushed, they freed, and the new ones
 * found and read); false if none */
static bool lsda_section(struct elfimg *img, const struct elf_secaddr *x,
			 uint64_t addr, size_t *sec, unsigned char **b,
			 struct vartab *t, struct metasink *ms)
{
	const struct elf_section *s = &img->secs[*sec];

	if (*sec && addr >= s->addr && addr - s->addr < s->size)
		return true;
	if (*sec) {
		vartab_push(t, ms, s->offset, true);
		xfree_huge(*b, (size_t)s->size);
	}
	*sec = elf_secaddr_find(x, img, addr);
	*b = *sec ? elfimg_section_read(img, *sec) : NULL;
	if (!*b)
		*sec = 0;
	return *sec != 0;
}

uint64_t elf_lsda_add(struct elfimg *img, struct metasink *ms,
		      struct lsda_refs *r)
{
	struct elf_lsda_scratch sc = {0};
	struct elf_secaddr x;
	struct vartab t = {0};
	unsigned char *b = NULL;
	size_t sec = 0;
	uint64_t bad = 0, last = 0;
	bool done = false;

	if (!r->n)
		return 0;
	elf_secaddr_build(&x, img, is_except);
	/* the FDEs mostly follow the code, and the LSDAs the code too: a
	 * sort of libstdc++'s 1 056 in order took a fifth of the work */
	for (size_t j = 1; j < r->n; j++)
		if (r->v[j].addr < r->v[j - 1].addr) {
			qsort(r->v, r->n, sizeof(*r->v), ref_cmp);
			break;
		}
	for (size_t j = 0; j < r->n && x.n; j++) {
		uint64_t addr = r->v[j].addr, off, room, len;
		const struct elf_section *s;

		/* an LSDA of no label's code is only where the one before
		 * it ends: neither read nor charged (the first labelled
		 * FDE pointing there owns it) */
		if (r->v[j].id == LABEL_NONE || (done && addr == last))
			continue;
		done = true;
		last = addr;
		if (!lsda_section(img, &x, addr, &sec, &b, &t, ms))
			continue;
		s = &img->secs[sec];
		off = addr - s->addr;
		room = s->size - off;
		for (size_t k = j + 1; k < r->n; k++)
			if (r->v[k].addr != addr) {
				room = MIN(room, r->v[k].addr - addr);
				break;
			}
		len = elf_lsda_len(b, (size_t)off, (size_t)room, img->elfclass,
				   img->big_endian, false, &sc);
		if (len)
			vartab_add(&t, off, off + len, r->v[j].id);
		else
			bad++;
	}
	if (sec) {
		vartab_push(&t, ms, img->secs[sec].offset, true);
		xfree_huge(b, (size_t)img->secs[sec].size);
	}
	vartab_free(&t);
	elf_secaddr_free(&x);
	elf_lsda_scratch_free(&sc);
	free(r->v);
	*r = (struct lsda_refs){0};
	return bad;
}
