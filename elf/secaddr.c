// SPDX-License-Identifier: GPL-2.0-or-later
/* secaddr.c — an image's sections of one kind by address (secaddr.h). */
#include "config.h"

#include "elf/secaddr.h"

#include "util/util.h"

#include <stdlib.h>

static int ent_cmp(const void *a, const void *b)
{
	const struct elf_secaddr_ent *x = a, *y = b;

	return x->addr != y->addr ? u64_cmp(x->addr, y->addr)
				  : u64_cmp(x->i, y->i);
}

void elf_secaddr_build(struct elf_secaddr *x, const struct elfimg *img,
		       bool (*want)(const struct elfimg *img,
				    const struct elf_section *s))
{
	x->v = xcalloc(img->nsecs ? img->nsecs : 1, sizeof(*x->v));
	x->n = 0;
	for (size_t i = 1; i < img->nsecs; i++) {
		const struct elf_section *s = &img->secs[i];

		if (s->size && want(img, s))
			x->v[x->n++] = (struct elf_secaddr_ent){s->addr, i};
	}
	if (x->n)
		qsort(x->v, x->n, sizeof(*x->v), ent_cmp);
}

size_t elf_secaddr_find(const struct elf_secaddr *x, const struct elfimg *img,
			uint64_t addr)
{
	size_t lo = 0, hi = x->n;

	while (lo < hi) { /* the first starting after addr */
		size_t mid = lo + (hi - lo) / 2;

		if (x->v[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo) {
		const struct elf_section *s = &img->secs[x->v[lo - 1].i];

		if (addr - s->addr < s->size)
			return x->v[lo - 1].i;
	}
	return 0;
}

void elf_secaddr_free(struct elf_secaddr *x)
{
	free(x->v);
	x->v = NULL;
	x->n = 0;
}
