// SPDX-License-Identifier: GPL-2.0-or-later
/* attrib_int.h — what attrib.c and attrib_class.c share: an attribution
 * context's images and kinds. Private to report/attrib*.c. */
#ifndef MEMSZ_REPORT_ATTRIB_INT_H
#define MEMSZ_REPORT_ATTRIB_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "elf/imagemaps.h"
#include "report/attrib.h"
#include "report/relocmap.h"
#include "report/tmpl.h"
#include "util/strlist.h"

enum img_state {
	IMG_UNTRIED,
	IMG_ELF,     /* opened and verified */
	IMG_NOTELF,  /* a regular file that is not ELF: labelled by path */
	IMG_BROKEN,  /* could not be opened: [LOAD #?] */
	IMG_DELETED, /* no longer on disk: "[deleted] PATH" */
	IMG_CHANGED, /* the file on disk is not the one mapped: "[changed
			since recording] PATH" */
	IMG__COUNT
};

struct attrib_img {
	uint32_t id;
	size_t seq;		 /* registration order */
	struct attrib_img *same; /* the image of the lowest id with its
				    identity (attrib.c img_same()), or
				    NULL: itself */
	struct md_image rec;	 /* path and open_path owned */
	enum img_state state;
	char *why;	      /* IMG_BROKEN, _DELETED, _CHANGED: the
				 reason, for the footer */
	uint32_t whole_label; /* ..._DELETED, _CHANGED: "PREFIX PATH",
				 the label of all of its bytes */
	struct imgmaps si;
	struct dualmap kinds; /* VM + file map of the "kinds" source */
	bool kinds_built;
	struct relocmap relocs; /* the relocs source */
	bool relocs_built;
	int src_err[KEY__COUNT]; /* a source map that failed: its code */
	uint32_t *seg_label;	 /* per program header: "LOAD #n [RW]" */
	uint32_t *seg_kind;	 /* per program header: kind label */
	uint32_t path_label;
	uint64_t fallback_vm, fallback_rss; /* bytes charged to fallbacks */
	uint64_t noseg_vm, noseg_rss;	    /* mappings no segment matched */
	uint64_t last_bias; /* load bias of the last mapping tied */
	bool have_bias;
	/* IMG_NOTELF worth a note: mapped executable, or a file other
	 * users may not read (a recording may name any file) */
	bool notelf_odd;
	struct tmpl tm[2]; /* of the VM walks and of the file walks */
};

enum kind {
	KIND_CODE,
	KIND_RODATA,
	KIND_RELRO,
	KIND_DATA,
	KIND_BSS,
	KIND_HEAP,
	KIND_STACK,
	KIND_ANON,
	KIND_SHMEM,
	KIND_FILE,
	KIND__COUNT
};

struct attrib {
	struct labels *lb;
	struct elf_map_opts maps; /* how image maps are built */
	uint64_t page_size;
	struct attrib_img **imgs; /* sorted by id once lookups begin */
	size_t nimgs, cap;
	bool sorted;
	uint32_t kind[KIND__COUNT];
	uint32_t load_unknown;	  /* "[LOAD #?]" */
	uint32_t no_segment;	  /* "[no segment]" */
	uint32_t unmapped;	  /* "[Unmapped]" */
	uint32_t clean;		  /* "[clean]": relocs key, not dirty */
	struct strlist src_notes; /* notes from building source maps */
	struct attrib_piece cur;  /* the piece handed out (attrib_piece) */
	attrib_vm_hook vm_hook;
	uint64_t owner; /* attrib_set_owner() */
	attrib_run_hook run_hook;
};

/* How the bytes of an image that cannot be read are labelled and noted,
 * per state (see img_states in attrib.c). */
struct img_state_row {
	const char *prefix;
	enum note_kind note;
};
extern const struct img_state_row img_states[IMG__COUNT];

/* Image id's entry, opened on first use; NULL for none (UINT32_MAX) or an
 * id no IMAGE record gave. */
struct attrib_img *attrib_img_get(struct attrib *a, uint32_t id);
/* The program header of ELF image im that mapping m maps, or -1. */
int attrib_img_segment(const struct attrib *a, const struct attrib_img *im,
		       const struct attrib_map *m);
/* The kinds source of im: sections by flags (RELRO from PT_GNU_RELRO),
 * then the segments by their flags, then "[Unmapped]" for the rest of
 * the file. */
void attrib_build_kinds(struct attrib *a, struct attrib_img *im);

#endif
