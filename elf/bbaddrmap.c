// SPDX-License-Identifier: GPL-2.0-or-later
/* bbaddrmap.c — see bbaddrmap.h */
#include "config.h"

#include "elf/bbaddrmap.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf/elfpriv.h"
#include "util/util.h"

struct cursor {
	const uint8_t *p, *end;
};

/* A ULEB128 that must fit 64 bits as written. */
static int read_uleb(struct cursor *c, uint64_t *out)
{
	const uint8_t *q;
	uint64_t v;
	bool wide;

	q = elf_get_leb(c->p, c->end, false, &v, &wide);
	if (!q || wide)
		return -MEMSZ_ETRUNC;
	c->p = q;
	*out = v;
	return 0;
}

static int read_addr(struct cursor *c, unsigned size, bool big_endian,
		     uint64_t *out)
{
	if ((size_t)(c->end - c->p) < size)
		return -MEMSZ_ETRUNC;
	*out = elf_get_uint(c->p, size, big_endian);
	c->p += size;
	return 0;
}

/* One function record at c; appends to m. */
static int parse_func(struct bbaddrmap *m, struct cursor *c, uint32_t sh_type,
		      unsigned addr_size, bool big_endian)
{
	struct bb_func f = {0};
	uint64_t nblocks, prev_end = 0;
	int ret;

	if (sh_type == BBADDRMAP_SHT) {
		if (c->end - c->p < 2)
			return -MEMSZ_ETRUNC;
		f.version = c->p[0];
		if (f.version > 2 || c->p[1] != 0)
			return -MEMSZ_ENOTSUP;
		c->p += 2;
	}
	ret = read_addr(c, addr_size, big_endian, &f.addr);
	if (!ret)
		ret = read_uleb(c, &nblocks);
	if (ret)
		return ret;
	/* Each block takes at least 3 bytes: bound the count by the data. */
	if (nblocks > (uint64_t)(c->end - c->p) / 3)
		return -MEMSZ_ETRUNC;
	f.first = m->nblocks;
	for (uint64_t i = 0; i < nblocks; i++) {
		struct bb_block b = {.func = (uint32_t)m->nfuncs,
				     .id = (uint32_t)i};
		uint64_t id = i, off, size, md;

		if (f.version >= 2 && (ret = read_uleb(c, &id)))
			return ret;
		if ((ret = read_uleb(c, &off)) || (ret = read_uleb(c, &size)) ||
		    (ret = read_uleb(c, &md)))
			return ret;
		if (f.version >= 1)
			off += prev_end;
		prev_end = off + size;
		b.id = (uint32_t)id;
		b.offset = off;
		b.size = size;
		b.metadata = (uint32_t)md;
		xgrow(&m->blocks, &m->bcap, m->nblocks + 1, sizeof(*m->blocks));
		m->blocks[m->nblocks++] = b;
		f.n++;
	}
	xgrow(&m->funcs, &m->fcap, m->nfuncs + 1, sizeof(*m->funcs));
	m->funcs[m->nfuncs++] = f;
	return 0;
}

int bbaddrmap_parse(struct bbaddrmap *m, const uint8_t *buf, size_t len,
		    uint32_t sh_type, unsigned addr_size, bool big_endian)
{
	struct cursor c;

	if (sh_type != BBADDRMAP_SHT && sh_type != BBADDRMAP_SHT_V0)
		return -EINVAL;
	if (addr_size != 4 && addr_size != 8)
		return -EINVAL;
	if (!len)
		return 0; /* an empty section has no buffer (d_buf NULL) */
	c.p = buf;
	c.end = buf + len;
	while (c.p < c.end) {
		size_t nb = m->nblocks;
		int ret = parse_func(m, &c, sh_type, addr_size, big_endian);

		if (ret) {
			m->nblocks = nb; /* drop the partial function */
			return ret;
		}
	}
	return 0;
}

int bbaddrmap_read(struct elfimg *img, struct bbaddrmap *m)
{
	Elf *elf = elfimg_elf(img);
	unsigned asize = img->elfclass == ELFCLASS32 ? 4 : 8;
	int n = 0;

	for (size_t i = 1; i < img->nsecs; i++) {
		const struct elf_section *s = &img->secs[i];
		Elf_Data *d;
		int ret;

		if (s->type != BBADDRMAP_SHT && s->type != BBADDRMAP_SHT_V0)
			continue;
		if (s->flags & SHF_COMPRESSED)
			return -MEMSZ_ENOTSUP;
		d = elf_rawdata(elf_getscn(elf, i), NULL);
		if (!d || d->d_size != s->size)
			return -MEMSZ_ETRUNC;
		ret = bbaddrmap_parse(m, d->d_buf, d->d_size, s->type, asize,
				      img->big_endian);
		if (ret)
			return ret;
		n++;
	}
	return n;
}

void bbaddrmap_free(struct bbaddrmap *m)
{
	if (!m)
		return;
	free(m->funcs);
	free(m->blocks);
	memset(m, 0, sizeof(*m));
}

/* The label of the function at addr: the symbols source's label there,
 * LABEL_NONE when there is none (or a fallback label, "[...]"). */
static uint32_t func_label(struct labels *lb, struct dualmap *syms,
			   uint64_t addr)
{
	uint32_t id = rmap_lookup(syms->vm, addr, NULL);

	if (id != LABEL_NONE && labels_str(lb, id)[0] == '[')
		return LABEL_NONE;
	return id;
}

/* The label of block id of the function at addr whose label is fn:
 * "NAME#ID", the function's label (a name cut after LABEL_LEN_MAX stays
 * as it was, "#ID" after its mark: labels_intern_id_suffix()), or
 * "0xADDR#ID" without one. */
static uint32_t block_label(struct labels *lb, uint32_t fn, uint64_t addr,
			    uint32_t id)
{
	char buf[48];

	if (fn != LABEL_NONE) {
		snprintf(buf, sizeof(buf), "#%" PRIu32, id);
		return labels_intern_id_suffix(lb, fn, buf);
	}
	snprintf(buf, sizeof(buf), "0x%" PRIx64 "#%" PRIu32, addr, id);
	return labels_intern(lb, buf);
}

void bbaddrmap_label(const struct bbaddrmap *m, struct labels *lb,
		     struct dualmap *syms, struct dualmap *base,
		     struct dualmap *out)
{
	for (size_t f = 0; f < m->nfuncs; f++) {
		const struct bb_func *fn = &m->funcs[f];
		uint32_t name = func_label(lb, syms, fn->addr);

		for (size_t i = fn->first; i < fn->first + fn->n; i++) {
			const struct bb_block *b = &m->blocks[i];

			if (!b->size || b->offset > UINT64_MAX - fn->addr)
				continue;
			dualmap_add_vm(out, base, fn->addr + b->offset, b->size,
				       block_label(lb, name, fn->addr, b->id));
		}
	}
}
