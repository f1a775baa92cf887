// SPDX-License-Identifier: GPL-2.0-or-later
/* secrefs.c — table entries charged to what points to them
 * (secrefs.h). */
#include "config.h"

#include "elf/elfpriv.h"
#include "elf/metasink.h"
#include "elf/secaddr.h"
#include "elf/secrefs.h"
#include "util/util.h"

#include <stdlib.h>

void elf_ref_add(struct elf_refs *r, uint64_t addr, uint32_t id)
{
	if (r->n == r->cap)
		xgrow(&r->v, &r->cap, r->n + 1, sizeof(*r->v));
	r->v[r->n] = (struct elf_ref){addr, id, r->n};
	r->n++;
}

static int ref_cmp(const void *a, const void *b)
{
	const struct elf_ref *x = a, *y = b;

	return x->addr != y->addr ? u64_cmp(x->addr, y->addr)
				  : u64_cmp(x->seq, y->seq);
}

/* The section of x and bytes addr lies in into *sec, *b (kept if they
 * hold it, else the old ones' table pushed, they freed, and the new ones
 * found and read, ops->enter() told); false if none */
static bool ref_section(struct elfimg *img, const struct elf_secaddr *x,
			uint64_t addr, size_t *sec, unsigned char **b,
			struct vartab *t, struct metasink *ms,
			const struct elf_refs_ops *ops, void *arg)
{
	const struct elf_section *s = &img->secs[*sec];

	if (*sec && addr >= s->addr && addr - s->addr < s->size)
		return true;
	if (*sec) {
		vartab_push(t, ms, s->offset, s->flags & SHF_ALLOC);
		xfree_huge(*b, (size_t)s->size);
	}
	*sec = elf_secaddr_find(x, img, addr);
	*b = *sec ? elfimg_section_read(img, *sec) : NULL;
	if (!*b)
		*sec = 0;
	if (*sec && ops->enter)
		ops->enter(arg, *sec);
	return *sec != 0;
}

void elf_refs_charge(struct elfimg *img, struct metasink *ms,
		     const struct elf_secaddr *x, struct elf_refs *r,
		     const struct elf_refs_ops *ops, void *arg)
{
	struct vartab t = {0};
	unsigned char *b = NULL;
	size_t sec = 0;
	uint64_t last = 0;
	bool done = false;

	/* the FDEs mostly follow the code, and the LSDAs the code too: a
	 * sort of libstdc++'s 1 056 in order took a fifth of the work */
	for (size_t j = 1; j < r->n; j++)
		if (r->v[j].addr < r->v[j - 1].addr) {
			qsort(r->v, r->n, sizeof(*r->v), ref_cmp);
			break;
		}
	for (size_t j = 0; j < r->n && x->n; j++) {
		uint64_t addr = r->v[j].addr, off, room, len;
		const struct elf_section *s;

		/* an entry of no label's code is only where the one before
		 * it ends: neither read nor charged (the first labelled
		 * reference to it owns it) */
		if (r->v[j].id == LABEL_NONE || (done && addr == last))
			continue;
		done = true;
		last = addr;
		if (!ref_section(img, x, addr, &sec, &b, &t, ms, ops, arg))
			continue;
		s = &img->secs[sec];
		off = addr - s->addr;
		room = s->size - off;
		for (size_t k = j + 1; k < r->n; k++)
			if (r->v[k].addr != addr) {
				room = MIN(room, r->v[k].addr - addr);
				break;
			}
		len = ops->len(arg, b, off, room);
		if (len)
			vartab_add(&t, off, off + len, r->v[j].id);
	}
	if (sec) {
		vartab_push(&t, ms, img->secs[sec].offset,
			    img->secs[sec].flags & SHF_ALLOC);
		xfree_huge(b, (size_t)img->secs[sec].size);
	}
	vartab_free(&t);
	free(r->v);
	*r = (struct elf_refs){0};
}
