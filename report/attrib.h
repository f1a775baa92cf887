/* SPDX-License-Identifier: GPL-2.0-or-later */
/* attrib.h — the attribution engine: resident pages of a mapping -> labels.
 *
 * Implements the attribution rule of DESIGN.md. A mapping of a snapshot is
 * first classified (attrib_classify): a file mapping of an ELF image is tied
 * to the PT_LOAD segment it maps, which gives the load bias b (image VM
 * address = va - b); the anonymous mapping right after an image's last RW
 * segment is that image's .bss tail (same image, same bias); everything else
 * is labelled by its kind ([heap], [stack], [anon:NAME], shared memory by
 * path, [vdso], ...) or, for other files, by path.
 *
 * attrib_charge() then walks the mapping in image VM space over the source
 * maps of the image-internal keys (segments, sections, symbols, kinds),
 * cutting at every label boundary and at every page run, and hands each
 * piece with its values (VM, RSS, PSS, USS, DIRTY, SWAP) to a callback.
 * With the relocs source, resident pieces that are not private dirty are
 * "[clean]" under it, and private dirty pieces carry RELOCS: the number
 * of the image's relocation targets in them.
 * Every byte of the mapping is handed out exactly once per call.
 *
 * Images are opened once per attrib (cached by image id) and checked
 * against the recorded build-id (or dev/inode/size/mtime); their source
 * maps are built lazily, only for the sources asked for. An image no
 * longer on disk is "[deleted] PATH" under every key, one that is not the
 * file mapped any more "[changed since recording] PATH", one that cannot
 * be opened its path under files and "[LOAD #?]" inside; attrib_notes()
 * says why, once per image.
 */
#ifndef MEMSZ_REPORT_ATTRIB_H
#define MEMSZ_REPORT_ATTRIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "data/datafile.h"
#include "maps/labels.h"
#include "rows/rows.h"
#include "report/keys.h"
#include "elf/imagemaps.h"

/* What a part of a mapping is. */
enum attrib_class {
	ACLS_IMAGE,  /* file mapping of an ELF image, tied to a segment */
	ACLS_BSS,    /* anonymous .bss tail of an ELF image */
	ACLS_FILE,   /* another file (not ELF, or no segment matches) */
	ACLS_BROKEN, /* an ELF image that could not be opened or verified */
	ACLS_ANON,   /* anonymous: heap, stack, anon, vdso, ... */
	ACLS_SHMEM,  /* shared memory: /dev/shm, SysV, memfd, /dev/zero */
};

struct attrib;
struct attrib_img;
struct elfimg;

/* One mapping of a snapshot (borrowed from the reader by the caller). */
struct attrib_map {
	uint64_t start, end, pgoff;
	uint32_t prot, flags, image_id;
	const char *name;
	const struct md_run *runs;
	size_t nruns;
};

/* A part of a mapping with one class (a mapping has one or two parts: an
 * anonymous mapping may be a .bss tail followed by plain anonymous bytes). */
/* Page-run flags a report adds to the runs it hands attrib_charge (above
 * the MD_PG_* bits; never in a file): how the pages count in CHARGE. */
enum attrib_run_flags {
	ATTRIB_PG_ELSEWHERE = 1u << 31, /* charged to a cgroup outside the
					   one reported (run.reserved: which,
					   see cgcharge.h): CHARGE 0 */
	ATTRIB_PG_COUNTED = 1u << 30,	/* a page cache page an earlier
					   mapping charged already: CHARGE 0 */
	ATTRIB_PG_ONCE = 1u << 29,	/* a page cache page charged here
					   whole, whatever its mapcount */
};

struct attrib_part {
	uint64_t start, end; /* process VA, within the mapping */
	enum attrib_class cls;
	struct attrib_img *img; /* IMAGE/BSS/BROKEN/FILE with an image
				   record; else NULL */
	int seg;		/* index in img's segments, or -1 */
	uint64_t bias;		/* image VM = va - bias (IMAGE/BSS) */
	uint32_t file_label;	/* the "files" key label */
	uint32_t inner_label;	/* image-internal keys, when constant */
	uint32_t kind_label;	/* the "kinds" key, when constant */
};

/* New engine interning into lb (borrowed), building image maps as maps
 * says (copied; its debug_root borrowed; NULL: defaults). Free with
 * attrib_free(). */
struct attrib *attrib_new(struct labels *lb, const struct elf_map_opts *maps);
void attrib_free(struct attrib *a);
/* Page size of the recording (default: this machine's). */
void attrib_set_page_size(struct attrib *a, uint64_t page_size);

/* Register an IMAGE record (copied). A later record with the same id
 * replaces nothing: the first wins. */
void attrib_add_image(struct attrib *a, const struct md_image *im);
/* Join an IMAGE_KIND record to its image (added before): whether the file
 * was ELF when recorded. */
void attrib_set_image_kind(struct attrib *a, const struct md_image_kind_rec *k);

/* Cut mapping m into parts (at most 2, written to parts[]); prev is the last
 * part of the mapping just before m in the same snapshot, or NULL. Opens
 * the image on first use. Returns the number of parts. */
int attrib_classify(struct attrib *a, const struct attrib_map *m,
		    const struct attrib_part *prev, struct attrib_part *parts);

/* Callback for each piece: labels[i] is the label of srcs[i]; vals is
 * indexed by enum col_id (PSS fixed point, COL_FILE 0). Non-zero stops. */
typedef int (*attrib_fn)(void *arg, const uint32_t *labels,
			 const uint64_t *vals);

/* Charge the bytes of part p of mapping m to the labels of srcs[0..n-1]
 * (n <= KEYS_MAX keys labelled by an image map, keydefs[].map): VM SIZE
 * over the whole part, RSS/PSS/USS/DIRTY/SWAP from the page runs.
 * with_pss: mapcounts are valid. Returns 0, the callback's non-zero value,
 * or a negative code. */
int attrib_charge(struct attrib *a, const struct attrib_part *p,
		  const struct attrib_map *m, const enum key_id *srcs, size_t n,
		  bool with_pss, attrib_fn fn, void *arg);

/* Which piece the callback of attrib_charge() or attrib_file() is handed,
 * for a caller that keeps what it derives from a piece's labels: pieces
 * with the same tmpl (not NULL), none[0..n-1] (the labels where tmpl's
 * maps have none, one per source) and ix have the same labels. tmpl is
 * NULL where the labels are not a template's (constant labels, or the
 * relocs source, whose labels depend on the pages). ix < npieces: a piece
 * of the template; UINT32_MAX: outside what its maps cover. Valid during
 * the callback; the same template for every piece of one call. */
struct attrib_piece {
	const void *tmpl;
	const uint32_t *none;
	uint32_t ix, npieces;
	uint64_t start, bytes; /* the piece's (image VM), with an ix */
};
const struct attrib_piece *attrib_piece(const struct attrib *a);

/* A hook attrib_charge() calls (with its arg) before it walks the image
 * VM range [start, end) of a template's pieces for their VM SIZE (an image
 * part with a template: attrib_piece() is set): if it returns > 0, the
 * caller has charged that walk itself and the walk is skipped; else the
 * pieces go to the callback and the hook is called again after them with
 * done. NULL: none. */
typedef int (*attrib_vm_hook)(void *arg, uint64_t start, uint64_t end,
			      bool done);
void attrib_set_vm_hook(struct attrib *a, attrib_vm_hook hook);
/* A page run walked by attrib_charge() over a template (the image VM
 * range [start, end) and all that its pieces' values depend on): two
 * walks with equal keys over one template hand out the same pieces with
 * the same values. origin is the run's first byte (image VM, at or
 * before start): a piece's share of the run's pages (PSS, LOCKED,
 * CHARGE) is the share of the run up to its end less the share up to its
 * start, each rounded down, so that the pieces of a run add up to the
 * same whatever cuts it (every --by key gives one TOTAL). Hashed and
 * compared as bytes: no padding. */
struct attrib_run_key {
	uint64_t start, end, origin;
	uint32_t flags, mapcount; /* the run's */
	uint32_t with_pss, locked;
};
/* Called with done false before each such walk (attrib_piece() is the
 * walk's): a return > 0 skips the walk (the caller counts its pieces
 * itself); called with done true after a walk made. NULL: none. */
typedef int (*attrib_run_hook)(void *arg, const struct attrib_run_key *k,
			       bool done);
void attrib_set_run_hook(struct attrib *a, attrib_run_hook hook);
/* The values (COL__COUNT) attrib_charge() gives the piece [start, start +
 * bytes) (image VM) of a run with key k. */
void attrib_run_vals(const struct attrib_run_key *k, uint64_t start,
		     uint64_t bytes, uint64_t *vals);
/* Who the walks from now on are for (a process, say its snapshot's
 * number; 0: none): an image walked in many parts by one owner only gets
 * no template (report/tmpl.h), it would cost memory for nothing. */
void attrib_set_owner(struct attrib *a, uint64_t owner);

/* Charge the on-disk bytes [off, end) of p's file (clipped to its size) to
 * the labels of srcs as COL_FILE. Nothing for anonymous parts. */
int attrib_file(struct attrib *a, const struct attrib_part *p, uint64_t off,
		uint64_t end, const enum key_id *srcs, size_t n, attrib_fn fn,
		void *arg);

/* Size of p's file (0 for anonymous parts). */
uint64_t attrib_file_size(const struct attrib_part *p);
/* Id of the IMAGE record behind p, or UINT32_MAX. */
uint32_t attrib_image_id(const struct attrib_part *p);

/* Append footer lines: images not opened or mismatched, with the bytes
 * charged to fallback labels, and notes from the source maps. */
void attrib_notes(struct attrib *a, struct strlist *notes);

/* Name of a kind of anonymous mapping of name (NULL or "": "[anon]";
 * "[heap]", "[stack]", "[anon:x]", ... as given) or the path for shared
 * memory; sets *cls (ANON or SHMEM). Returns NULL for a regular file
 * mapping. The result is name itself or a string constant. */
const char *attrib_anon_name(const char *name, enum attrib_class *cls);

/* --- images by address, for fault samples --- */

/* Id of the IMAGE record of a file mapped from path with device dev and
 * inode ino (ino 0: match by path only), or UINT32_MAX if none. */
uint32_t attrib_image_lookup(struct attrib *a, const char *path,
			     uint32_t dev_major, uint32_t dev_minor,
			     uint64_t ino);
/* Image id's ELF file, open and verified against the recording, or NULL
 * if it is not a usable ELF image. Borrowed, open until attrib_free(). */
struct elfimg *attrib_image_elf(struct attrib *a, uint32_t id);
/* Load bias (image VM = va - bias) of a mapping [start, end) of image id
 * at file offset pgoff with prot. Returns 0, or -ENOENT if the image is
 * not a usable ELF image or no PT_LOAD matches. */
int attrib_image_bias(struct attrib *a, uint32_t id, uint64_t start,
		      uint64_t end, uint64_t pgoff, uint32_t prot,
		      uint64_t *bias);
/* The rule behind attrib_image_bias() for an image img outside any attrib:
 * the PT_LOAD of img that a mapping at start of file offset pgoff with
 * prot maps, for pages of page_size (a power of two). Sets *bias (image
 * VM = va - bias) and returns the segment's index in img->segs, or
 * -ENOENT if none matches (-EINVAL for a bad page_size). */
int attrib_elf_segment(const struct elfimg *img, uint64_t page_size,
		       uint64_t start, uint64_t pgoff, uint32_t prot,
		       uint64_t *bias);
/* Label of the symbol (function or object) at image VM address vm of image
 * id, from the symbols source; LABEL_NONE where only a fallback label
 * ("[section .text]", "LOAD #2 [RX]") covers it. */
uint32_t attrib_image_symbol(struct attrib *a, uint32_t id, uint64_t vm);

#endif
