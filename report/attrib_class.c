// SPDX-License-Identifier: GPL-2.0-or-later
/* attrib_class.c — what a mapping is (attrib_classify) and the kinds
 * source of an image: the part of attrib.c that sorts mappings and
 * sections into classes and kinds. See attrib.h and attrib_int.h. */
#include "config.h"

#include "report/attrib.h"
#include "report/attrib_int.h"

#include <elf.h>
#include <string.h>
#include <sys/mman.h>

#include "elf/elfimg.h"
#include "maps/rangemap.h"
#include "report/segment.h"
#include "util/util.h"

static bool has_prefix(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

const char *attrib_anon_name(const char *name, enum attrib_class *cls)
{
	*cls = ACLS_ANON;
	if (!name || !name[0])
		return "[anon]";
	if (name[0] == '[')
		return name;
	if (has_prefix(name, "/dev/shm/") || has_prefix(name, "/SYSV") ||
	    has_prefix(name, "/memfd:") || has_prefix(name, "/dev/zero") ||
	    has_prefix(name, "/anon_hugepage")) {
		*cls = ACLS_SHMEM;
		return name;
	}
	return NULL;
}

static uint32_t anon_kind(struct attrib *a, const char *name,
			  enum attrib_class cls)
{
	if (cls == ACLS_SHMEM)
		return a->kind[KIND_SHMEM];
	if (!strcmp(name, "[heap]"))
		return a->kind[KIND_HEAP];
	if (has_prefix(name, "[stack"))
		return a->kind[KIND_STACK];
	if (!strcmp(name, "[vdso]") || !strcmp(name, "[vsyscall]"))
		return a->kind[KIND_CODE];
	if (has_prefix(name, "[vvar"))
		return a->kind[KIND_RODATA];
	return a->kind[KIND_ANON];
}

static uint32_t prot_kind(struct attrib *a, uint32_t prot)
{
	return a->kind[prot & PROT_EXEC	   ? KIND_CODE
		       : prot & PROT_WRITE ? KIND_DATA
					   : KIND_RODATA];
}

/* Part p of anonymous mapping m, named anon (class cls), and when it is
 * the .bss tail of the image part prev maps just before it, that tail
 * (ACLS_BSS) and the rest in parts[1]. Returns the number of parts. */
static int classify_anon(struct attrib *a, const struct attrib_map *m,
			 const struct attrib_part *prev,
			 struct attrib_part *parts, const char *anon,
			 enum attrib_class cls)
{
	struct attrib_part *p = &parts[0], rest;
	const struct elf_segment *s;
	uint64_t mask = a->page_size - 1, vm, vend;

	p->cls = cls;
	p->file_label = labels_intern(a->lb, anon);
	p->inner_label = p->file_label;
	p->kind_label = anon_kind(a, anon, cls);
	if (cls != ACLS_ANON || strcmp(anon, "[anon]") || !prev ||
	    prev->cls != ACLS_IMAGE || prev->seg < 0 || prev->end != m->start)
		return 1;
	s = &prev->img->si.img->segs[prev->seg];
	vm = m->start - prev->bias;
	vend = (s->vaddr + s->memsz + mask) & ~mask;
	if (s->memsz <= s->filesz || vm < s->vaddr || vm >= vend)
		return 1;
	rest = *p;
	p->cls = ACLS_BSS;
	p->img = prev->img;
	p->seg = prev->seg;
	p->bias = prev->bias;
	p->end = MIN(m->end, vend + prev->bias);
	p->file_label = prev->file_label;
	p->inner_label = prev->img->seg_label[p->seg];
	p->kind_label = a->kind[KIND_BSS];
	if (p->end >= m->end)
		return 1;
	rest.start = p->end;
	parts[1] = rest;
	return 2;
}

/* Part p of a mapping m of the ELF image im: its segment, load bias and
 * labels. */
static void classify_elf(struct attrib *a, const struct attrib_map *m,
			 struct attrib_img *im, struct attrib_part *p)
{
	const struct elf_segment *s;

	p->cls = ACLS_IMAGE;
	p->seg = attrib_img_segment(a, im, m);
	if (p->seg < 0) {
		p->inner_label = a->no_segment;
		p->kind_label = prot_kind(a, m->prot);
		return;
	}
	s = &im->si.img->segs[p->seg];
	p->bias = seg_bias(s, m->start, m->pgoff);
	im->last_bias = p->bias;
	im->have_bias = true;
	p->inner_label = im->seg_label[p->seg];
	p->kind_label = im->seg_kind[p->seg];
}

int attrib_classify(struct attrib *a, const struct attrib_map *m,
		    const struct attrib_part *prev, struct attrib_part *parts)
{
	struct attrib_part *p = &parts[0];
	enum attrib_class cls;
	struct attrib_img *im;
	const char *anon;

	memset(p, 0, sizeof(*p));
	p->start = m->start;
	p->end = m->end;
	p->seg = -1;

	anon = attrib_anon_name(m->name, &cls);
	if (anon)
		return classify_anon(a, m, prev, parts, anon, cls);

	im = attrib_img_get(a, m->image_id);
	if (!im) {
		/* A file with no IMAGE record: labelled by its path. */
		p->cls = ACLS_FILE;
		p->file_label = labels_intern(a->lb, m->name);
		p->inner_label = p->file_label;
		p->kind_label = a->kind[KIND_FILE];
		return 1;
	}
	p->img = im;
	p->file_label = im->path_label;
	switch (im->state) {
	case IMG_ELF:
		classify_elf(a, m, im, p);
		break;
	case IMG_NOTELF:
		im->notelf_odd |= !!(m->prot & PROT_EXEC);
		p->cls = ACLS_FILE;
		p->inner_label = im->path_label;
		p->kind_label = a->kind[KIND_FILE];
		break;
	default:
		p->cls = ACLS_BROKEN;
		p->inner_label = a->load_unknown;
		if (img_states[im->state].prefix)
			p->file_label = p->inner_label = im->whole_label;
		p->kind_label = prot_kind(a, m->prot);
		break;
	}
	return 1;
}

/* The kinds source: sections by flags (RELRO from PT_GNU_RELRO), then the
 * segments by their flags, then "[Unmapped]" for the rest of the file. */
void attrib_build_kinds(struct attrib *a, struct attrib_img *im)
{
	const struct elfimg *img = im->si.img;
	uint64_t relro_start = 0, relro_end = 0;

	dualmap_init(&im->kinds);
	im->kinds_built = true;
	for (size_t i = 0; i < img->nsegs; i++)
		if (img->segs[i].type == PT_GNU_RELRO) {
			relro_start = img->segs[i].vaddr;
			relro_end = relro_start + img->segs[i].memsz;
		}
	for (size_t i = 1; i < img->nsecs; i++) {
		const struct elf_section *s = &img->secs[i];
		enum kind k;

		if (!(s->flags & SHF_ALLOC) || !s->size || s->type == SHT_NULL)
			continue;
		if (s->type == SHT_NOBITS) {
			if (s->flags & SHF_TLS)
				continue;
			k = KIND_BSS;
		} else if (s->flags & SHF_EXECINSTR) {
			k = KIND_CODE;
		} else if (s->flags & SHF_WRITE) {
			k = s->addr >= relro_start &&
				    s->addr + s->size <= relro_end &&
				    relro_end > relro_start
				? KIND_RELRO
				: KIND_DATA;
		} else {
			k = KIND_RODATA;
		}
		dualmap_add_vm(&im->kinds, &im->si.base, s->addr, s->size,
			       a->kind[k]);
	}
	for (size_t i = 0; i < img->nsegs; i++) {
		const struct elf_segment *s = &img->segs[i];

		if (s->type == PT_LOAD)
			dualmap_add_vm(&im->kinds, &im->si.base, s->vaddr,
				       s->memsz, im->seg_kind[i]);
	}
	rmap_add(im->kinds.file, 0, img->file_size, a->unmapped);
}
