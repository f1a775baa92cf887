// SPDX-License-Identifier: GPL-2.0-or-later
/* ppcopd.c — the code of powerpc64 ELFv1 functions. In the ELFv1 ABI a
 * function symbol's value is its descriptor in .opd (entry address, TOC
 * pointer, environment: three doublewords) and its st_size the size of
 * its code, which lies at the entry address, in .text. The entry address
 * is read where each kind of file keeps it: in the section's bytes (an
 * executable), in the addend of the R_PPC64_RELATIVE relocation that sets
 * it (a shared object: ld.lld leaves the bytes 0), or as the .o's
 * R_PPC64_ADDR64 relocation of it gives it once applied. */
#include "config.h"

#include "elf/elfpriv.h"
#include "elf/ppcopd.h"
#include "elf/relocs.h"
#include "elf/secaddr.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

/* A descriptor's size: entry address, TOC pointer, environment */
#define OPD_DESC 24

/* A RELATIVE relocation of a doubleword of .opd: where, what */
struct opd_rel {
	uint64_t at, value;
};

struct elf_opd {
	const struct elfimg *img;
	const struct elf_section *sec; /* .opd */
	unsigned char *bytes;	       /* its bytes (a .o's: relocated) */
	struct opd_rel *rel;	       /* sorted by at */
	size_t nrel, relcap;
	struct elf_secaddr code; /* the executable sections, by address */
};

static void opd_rel_add(const struct elf_reloc *r, void *arg)
{
	struct elf_opd *o = arg;

	if (!r->is_relative || r->kind != ELF_RELOC_RELA ||
	    r->target < o->sec->addr ||
	    r->target - o->sec->addr >= o->sec->size)
		return;
	if (o->nrel == o->relcap) {
		o->relcap = o->relcap ? 2 * o->relcap : 64;
		o->rel = xrealloc(o->rel, o->relcap * sizeof(*o->rel));
	}
	o->rel[o->nrel++] = (struct opd_rel){r->target, (uint64_t)r->addend};
}

static int opd_rel_cmp(const void *a, const void *b)
{
	const struct opd_rel *x = a, *y = b;

	return u64_cmp(x->at, y->at);
}

/* Whether s is loaded code (a descriptor's entry must lie in one). */
static bool is_code(const struct elfimg *img, const struct elf_section *s)
{
	(void)img;
	return (s->flags & SHF_EXECINSTR) && (s->flags & SHF_ALLOC) &&
	       s->type == SHT_PROGBITS;
}

struct elf_opd *elf_opd_open(struct elfimg *img)
{
	struct elf_opd *o;
	size_t i;

	if (img->machine != EM_PPC64)
		return NULL;
	for (i = 1; i < img->nsecs; i++)
		if (!strcmp(img->secs[i].name, ".opd") &&
		    (img->secs[i].flags & SHF_ALLOC) &&
		    img->secs[i].type == SHT_PROGBITS)
			break;
	if (i >= img->nsecs)
		return NULL;
	o = xcalloc(1, sizeof(*o));
	o->img = img;
	o->sec = &img->secs[i];
	o->bytes = elfimg_section_read(img, i);
	if (o->bytes && !elf_reloc_section(img, i, o->bytes)) {
		elf_opd_close(o);
		return NULL;
	}
	if (!o->bytes) {
		free(o);
		return NULL;
	}
	if (img->type != ET_REL) {
		elf_relocs_foreach(img, opd_rel_add, o);
		if (o->nrel)
			qsort(o->rel, o->nrel, sizeof(*o->rel), opd_rel_cmp);
	}
	elf_secaddr_build(&o->code, img, is_code);
	return o;
}

/* The entry address of the descriptor at desc: a RELATIVE relocation's
 * value, else the bytes. */
static uint64_t opd_entry(const struct elf_opd *o, uint64_t desc)
{
	size_t lo = 0, hi = o->nrel;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (o->rel[mid].at < desc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < o->nrel && o->rel[lo].at == desc)
		return o->rel[lo].value;
	return elf_get_uint(o->bytes + (desc - o->sec->addr), 8,
			    o->img->big_endian);
}

bool elf_opd_code(const struct elf_opd *o, uint64_t desc, uint64_t size,
		  uint64_t *addr, uint64_t *out_size)
{
	const struct elf_section *s;
	uint64_t entry;
	size_t i;

	if (desc < o->sec->addr || desc - o->sec->addr > o->sec->size ||
	    o->sec->size - (desc - o->sec->addr) < OPD_DESC)
		return false;
	entry = opd_entry(o, desc);
	i = elf_secaddr_find(&o->code, o->img, entry);
	if (!i)
		return false;
	s = &o->img->secs[i];
	*addr = entry;
	*out_size = MIN(size, s->size - (entry - s->addr));
	return true;
}

void elf_opd_close(struct elf_opd *o)
{
	if (!o)
		return;
	xfree_huge(o->bytes, (size_t)o->sec->size);
	free(o->rel);
	elf_secaddr_free(&o->code);
	free(o);
}
