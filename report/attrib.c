// SPDX-License-Identifier: GPL-2.0-or-later
/* attrib.c — see attrib.h */
#include "config.h"

#include "report/attrib.h"
#include "report/attrib_int.h"

#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf/elfimg.h"
#include "maps/rangemap.h"
#include "report/imgcheck.h"
#include "report/relocmap.h"
#include "report/segment.h"
#include "report/tmpl.h"
#include "util/hashmap.h"
#include "util/util.h"

/* How the bytes of an image that cannot be read are labelled and noted,
 * per state: under every key, a label for the whole file ("PREFIX PATH",
 * so that keys inside it add no level), or with no prefix the path under
 * files and "[LOAD #?]" inside; the footer note's kind and what it says
 * after the image's path and why. */
const struct img_state_row img_states[IMG__COUNT] = {
    [IMG_BROKEN] = {NULL, NOTE_IMAGE_BROKEN},
    [IMG_DELETED] = {"[deleted]", NOTE_IMAGE_DELETED},
    [IMG_CHANGED] = {"[changed since recording]", NOTE_IMAGE_CHANGED},
};

static const char *const kind_names[KIND__COUNT] = {
    [KIND_CODE] = "code",   [KIND_RODATA] = "read-only data",
    [KIND_RELRO] = "relro", [KIND_DATA] = "data",
    [KIND_BSS] = "bss",	    [KIND_HEAP] = "heap",
    [KIND_STACK] = "stack", [KIND_ANON] = "anon",
    [KIND_SHMEM] = "shmem", [KIND_FILE] = "file",
};

struct attrib *attrib_new(struct labels *lb, const struct elf_map_opts *maps)
{
	struct attrib *a = xcalloc(1, sizeof(*a));
	long ps = sysconf(_SC_PAGESIZE);

	a->lb = lb;
	if (maps)
		a->maps = *maps;
	a->page_size = ps > 0 ? (uint64_t)ps : 4096;
	for (int i = 0; i < KIND__COUNT; i++)
		a->kind[i] = labels_intern(lb, kind_names[i]);
	a->load_unknown = labels_intern(lb, "[LOAD #?]");
	a->no_segment = labels_intern(lb, "[no segment]");
	a->unmapped = labels_intern(lb, "[Unmapped]");
	a->clean = labels_intern(lb, "[clean]");
	return a;
}

void attrib_set_page_size(struct attrib *a, uint64_t page_size)
{
	if (page_size && !(page_size & (page_size - 1)))
		a->page_size = page_size;
}

static void img_free(struct attrib_img *im)
{
	if (!im)
		return;
	if (im->kinds_built)
		dualmap_free(&im->kinds);
	if (im->relocs_built)
		relocmap_free(&im->relocs);
	imgmaps_close(&im->si);
	free((char *)im->rec.path);
	free((char *)im->rec.open_path);
	free(im->why);
	free(im->seg_label);
	free(im->seg_kind);
	tmpl_free(&im->tm[0]);
	tmpl_free(&im->tm[1]);
	free(im);
}

void attrib_free(struct attrib *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->nimgs; i++)
		img_free(a->imgs[i]);
	free(a->imgs);
	strlist_free(&a->src_notes);
	free(a);
}

void attrib_add_image(struct attrib *a, const struct md_image *rec)
{
	struct attrib_img *im = xcalloc(1, sizeof(*im));

	im->id = rec->id;
	im->seq = a->nimgs;
	im->rec = *rec;
	im->rec.path = xstrdup(rec->path ? rec->path : "");
	im->rec.open_path = xstrdup(rec->open_path ? rec->open_path : "");
	im->path_label = labels_intern(a->lb, im->rec.path);
	xgrow(&a->imgs, &a->cap, a->nimgs + 1, sizeof(*a->imgs));
	a->imgs[a->nimgs++] = im;
	a->sorted = false;
}

void attrib_set_image_kind(struct attrib *a, const struct md_image_kind_rec *k)
{
	/* searched from the last: the record follows its IMAGE record */
	for (size_t i = a->nimgs; i-- > 0;)
		if (a->imgs[i]->id == k->id) {
			a->imgs[i]->rec.kind = k->kind;
			return;
		}
}

static int img_cmp(const void *x, const void *y)
{
	const struct attrib_img *const *p = x, *const *q = y;

	if ((*p)->id != (*q)->id)
		return (*p)->id < (*q)->id ? -1 : 1;
	return (*p)->seq < (*q)->seq ? -1 : (*p)->seq > (*q)->seq;
}

/* Whether IMAGE records x and y are of one file: the same dev, inode,
 * size, mtime, build-id and path. A recorder that reached the file by
 * several /proc/PID/root (a pyenv shim running readlink again and again)
 * wrote one IMAGE record each time; as several images its FILE SIZE and
 * VM SIZE would count once per record (DESIGN I1). No inode: never. */
static bool img_same(const struct md_image *x, const struct md_image *y)
{
	return x->ino && x->ino == y->ino && x->dev_major == y->dev_major &&
	       x->dev_minor == y->dev_minor && x->size == y->size &&
	       x->mtime_ns == y->mtime_ns &&
	       x->build_id_len == y->build_id_len &&
	       !memcmp(x->build_id, y->build_id, sizeof(x->build_id)) &&
	       !strcmp(x->path, y->path);
}

/* Point each image of a->imgs (sorted by id, deduped) at the first one of
 * its identity (img_same()), which stands for it from then on. */
static void img_link_same(struct attrib *a)
{
	struct hashmap index = {0};

	for (size_t i = 0; i < a->nimgs; i++) {
		struct attrib_img *im = a->imgs[i];
		const struct md_image *r = &im->rec;
		uint64_t key[3] = {r->ino, r->size, (uint64_t)r->mtime_ns};
		struct hashmap_probe p;
		uint32_t j;

		im->same = NULL;
		if (!r->ino)
			continue;
		for (j = hashmap_first(
			 &index, hashmap_hash_bytes(key, sizeof(key)), &p);
		     j != HASHMAP_NONE; j = hashmap_next(&index, &p))
			if (img_same(&a->imgs[j]->rec, r))
				break;
		if (j != HASHMAP_NONE)
			im->same = a->imgs[j];
		else
			hashmap_put(&index, &p, (uint32_t)i);
	}
	hashmap_free(&index);
}

static struct attrib_img *img_find(struct attrib *a, uint32_t id)
{
	size_t lo = 0, hi;
	struct attrib_img *im;

	if (!a->sorted) {
		/* Sort by id, then registration order; keep the first of
		 * each id. */
		size_t k = 0;

		if (a->nimgs) /* imgs is NULL while no IMAGE was read */
			qsort(a->imgs, a->nimgs, sizeof(*a->imgs), img_cmp);
		for (size_t i = 0; i < a->nimgs; i++) {
			if (k && a->imgs[k - 1]->id == a->imgs[i]->id) {
				img_free(a->imgs[i]);
				continue;
			}
			a->imgs[k++] = a->imgs[i];
		}
		a->nimgs = k;
		a->sorted = true;
		img_link_same(a);
	}
	hi = a->nimgs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (a->imgs[mid]->id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == a->nimgs || a->imgs[lo]->id != id)
		return NULL;
	im = a->imgs[lo];
	return im->same ? im->same : im;
}

static const char *img_path(const struct attrib_img *im)
{
	if (im->rec.open_path[0] && access(im->rec.open_path, F_OK) == 0)
		return im->rec.open_path;
	return im->rec.path;
}

/* im cannot be read (state, why: malloc'd): its bytes go to the label
 * its state gives. */
static void img_unusable(struct attrib *a, struct attrib_img *im,
			 enum img_state state, char *why)
{
	char *s;

	im->state = state;
	im->why = why;
	if (!img_states[state].prefix)
		return;
	s = imgcheck_label(img_states[state].prefix, im->rec.path);
	im->whole_label = labels_intern(a->lb, s);
	free(s);
}

/* im is open and checked: its segments' labels and kinds. */
static void img_ready(struct attrib *a, struct attrib_img *im)
{
	const struct elfimg *img = im->si.img;
	char buf[48];

	im->seg_label = xcalloc(img->nsegs + 1, sizeof(*im->seg_label));
	im->seg_kind = xcalloc(img->nsegs + 1, sizeof(*im->seg_kind));
	for (size_t i = 0; i < img->nsegs; i++) {
		const struct elf_segment *s = &img->segs[i];

		/* the same text as elf/'s base map labels */
		elfimg_load_label(s, buf, sizeof(buf));
		im->seg_label[i] = labels_intern(a->lb, buf);
		im->seg_kind[i] = a->kind[s->flags & PF_X   ? KIND_CODE
					  : s->flags & PF_W ? KIND_DATA
							    : KIND_RODATA];
	}
	im->state = IMG_ELF;
}

/* Whether im opens at path as the file the recording names (its
 * size, mtime and build-id checked); left closed if not. */
static bool img_try(struct attrib *a, struct attrib_img *im, const char *path)
{
	char *why;

	if (imgmaps_open(&im->si, path, a->lb) < 0)
		return false;
	why = imgcheck_verify(&im->rec, im->si.img, path);
	if (!why)
		return true;
	free(why);
	imgmaps_close(&im->si);
	return false;
}

static void img_open(struct attrib *a, struct attrib_img *im)
{
	const char *path = img_path(im);
	char *why;
	int ret;

	/* the path the recording names first, when it holds the file
	 * recorded: the one record opened it by (under /proc/PID/root, a
	 * container's file) names a process's root only while that
	 * process lives; its PID reused since, it is another process's
	 * root, whose path also named the image and its notes (a report
	 * filtered to libc lost libc's notes while PID 7814 was a kernel
	 * thread) */
	if (path != im->rec.path && img_try(a, im, im->rec.path)) {
		img_ready(a, im);
		return;
	}
	ret = imgmaps_open(&im->si, path, a->lb);
	if (ret == -MEMSZ_ENOTELF) {
		struct stat st;

		/* truncated or replaced since the recording, not a data
		 * file mapped as such */
		why = imgcheck_not_elf(&im->rec, path);
		if (why) {
			img_unusable(a, im, IMG_CHANGED, why);
			return;
		}
		im->state = IMG_NOTELF;
		im->notelf_odd = !stat(path, &st) && !(st.st_mode & S_IROTH);
		return;
	}
	if (ret == -ENOENT) {
		img_unusable(a, im, IMG_DELETED,
			     xstrdup("deleted since it was mapped"));
		return;
	}
	if (ret < 0) {
		img_unusable(a, im, IMG_BROKEN,
			     xasprintf("cannot open '%s': %s", path,
				       memsz_strerror(ret)));
		return;
	}
	why = imgcheck_verify(&im->rec, im->si.img, path);
	if (why) {
		imgmaps_close(&im->si);
		img_unusable(a, im, IMG_CHANGED, why);
		return;
	}
	img_ready(a, im);
}

struct attrib_img *attrib_img_get(struct attrib *a, uint32_t id)
{
	struct attrib_img *im;

	if (id == UINT32_MAX)
		return NULL;
	im = img_find(a, id);
	if (im && im->state == IMG_UNTRIED)
		img_open(a, im);
	return im;
}

int attrib_img_segment(const struct attrib *a, const struct attrib_img *im,
		       const struct attrib_map *m)
{
	return seg_find(im->si.img, a->page_size, m->start, m->pgoff, m->prot,
			im->have_bias ? &im->last_bias : NULL);
}

/* The DualMap of src for image im, or NULL if it could not be built (the
 * reason goes to the footer once). */
static struct dualmap *img_source(struct attrib *a, struct attrib_img *im,
				  enum key_id src)
{
	enum elf_source elfsrc = keydefs[src].elfsrc;
	struct dualmap *dm = NULL;
	int ret;

	if (im->src_err[src])
		return NULL;
	if (keydefs[src].map == KEYMAP_KINDS) {
		if (!im->kinds_built)
			attrib_build_kinds(a, im);
		return &im->kinds;
	}
	if (keydefs[src].map == KEYMAP_RELOCS) {
		if (!im->relocs_built) {
			im->relocs_built = true;
			ret = relocmap_build(&im->relocs, &im->si, a->lb,
					     &a->maps, &a->src_notes,
					     a->page_size);
			if (ret < 0) {
				im->src_err[src] = ret;
				strlist_add_notef(
				    &a->src_notes, NOTE_SOURCE_ERROR,
				    im->rec.path,
				    "%s: cannot read its relocations "
				    "(%s): its bytes are charged to its "
				    "segments",
				    im->rec.path, memsz_strerror(ret));
				return NULL;
			}
		}
		return &im->relocs.map;
	}
	ret = imgmaps_source(&im->si, elfsrc, a->lb, &a->maps, &a->src_notes,
			     &dm);
	if (ret < 0) {
		im->src_err[src] = ret;
		strlist_add_notef(
		    &a->src_notes, NOTE_SOURCE_ERROR, im->rec.path,
		    "%s: cannot read its %s (%s): its "
		    "bytes are charged to its segments",
		    im->rec.path, elfsrc_name(elfsrc), memsz_strerror(ret));
		return NULL;
	}
	return dm;
}

/* One walk of attrib_charge/attrib_file. */
struct walk {
	attrib_fn fn;
	void *arg;
	size_t n;
	int map_of[KEYS_MAX];	 /* index into rollup labels, or -1 */
	uint32_t none[KEYS_MAX]; /* label where the map has none */
	/* values per byte of the current run */
	enum col_id col; /* COL_VM or COL_FILE: walk mode */
	bool run;	 /* a page run (not VM/FILE) */
	bool present, swapped, dirty, uss;
	bool shared_dirty;   /* dirty and mapped by others too */
	bool pmd;	     /* mapped by a PMD (THP) */
	bool locked;	     /* the mapping is locked */
	uint32_t mapcount;   /* 0: no PSS */
	uint32_t charge_div; /* CHARGE = bytes / this; 0: none */
	uint64_t origin;     /* the run's first byte, as pieces count
				(attrib_run_key) */
	/* the relocs source: its index in srcs (-1: none), its map's
	 * targets (NULL: none for this part), the "[clean]" label */
	int relocs_src;
	const struct relocmap *rm;
	uint32_t clean;
	struct attrib_piece *cur; /* the piece's identity, for the caller */
	struct rmap *const *maps; /* the maps walked, k of them */
	size_t k;
};

/* The share of the first x bytes of a run of pages div processes share,
 * in fixed point (COL_PSS_SHIFT), rounded down. */
static uint64_t share_upto(uint64_t x, uint32_t div)
{
	if (x < UINT64_C(1) << (64 - COL_PSS_SHIFT))
		return (x << COL_PSS_SHIFT) / div;
	return (x / div << COL_PSS_SHIFT) + ((x % div) << COL_PSS_SHIFT) / div;
}

/* The values of bytes [from, to) of the run w is set up for (offsets from
 * its first byte): a share is the run's up to to less up to from, so the
 * pieces of a run add up to its share however they cut it. */
static void run_vals(const struct walk *w, uint64_t from, uint64_t to,
		     uint64_t *vals)
{
	uint64_t bytes = to - from;

	memset(vals, 0, sizeof(*vals) * COL__COUNT);
	if (w->swapped)
		vals[COL_SWAP] = bytes;
	if (!w->present)
		return;
	vals[COL_RSS] = bytes;
	if (w->mapcount)
		vals[COL_PSS] =
		    share_upto(to, w->mapcount) - share_upto(from, w->mapcount);
	if (w->locked)
		vals[COL_LOCKED] = vals[COL_PSS];
	if (w->pmd)
		vals[COL_THP] = bytes;
	if (w->charge_div)
		vals[COL_CHARGE] = share_upto(to, w->charge_div) -
				   share_upto(from, w->charge_div);
	if (w->uss)
		vals[COL_USS] = bytes;
	else if (w->shared_dirty)
		vals[COL_SH_DIRTY] = bytes;
	else
		vals[COL_SH_CLEAN] = bytes;
	if (w->dirty)
		vals[COL_DIRTY] = bytes;
}

static int walk_piece(void *arg, const uint32_t *labels, uint64_t start,
		      uint64_t end)
{
	struct walk *w = arg;
	uint32_t out[KEYS_MAX];
	uint64_t vals[COL__COUNT] = {0};

	for (size_t i = 0; i < w->n; i++) {
		uint32_t l =
		    w->map_of[i] >= 0 ? labels[w->map_of[i]] : LABEL_NONE;

		out[i] = l == LABEL_NONE ? w->none[i] : l;
	}
	if (w->run)
		run_vals(w, start - w->origin, end - w->origin, vals);
	else
		vals[w->col] = end - start;
	if (w->rm && w->run && w->present) {
		if (w->dirty)
			vals[COL_RELOCS] = relocmap_count(w->rm, start, end);
		else
			out[w->relocs_src] = w->clean;
	}
	return w->fn(w->arg, out, vals);
}

/* Set w up for part p: the VM (or file) maps of the image-internal
 * sources, and the constant labels where there is no map. Returns the
 * number of maps put in maps[]. */
static size_t walk_setup(struct attrib *a, struct walk *w,
			 const struct attrib_part *p, const enum key_id *srcs,
			 size_t n, bool file, struct rmap **maps)
{
	bool image =
	    (p->cls == ACLS_IMAGE || p->cls == ACLS_BSS) && p->seg >= 0;
	size_t k = 0;

	w->n = n;
	w->relocs_src = -1;
	w->rm = NULL;
	w->clean = a->clean;
	for (size_t i = 0; i < n; i++) {
		enum key_map how = keydefs[srcs[i]].map;
		struct dualmap *dm = NULL;

		w->map_of[i] = -1;
		w->none[i] =
		    how == KEYMAP_KINDS ? p->kind_label : p->inner_label;
		if (image) {
			dm = img_source(a, p->img, srcs[i]);
			if (file)
				w->none[i] = a->unmapped;
			else if (how == KEYMAP_KINDS)
				w->none[i] = p->img->seg_kind[p->seg];
			else
				w->none[i] = p->img->seg_label[p->seg];
		}
		if (dm) {
			w->map_of[i] = (int)k;
			maps[k++] = file ? dm->file : dm->vm;
			if (how == KEYMAP_RELOCS) {
				w->relocs_src = (int)i;
				w->rm = &p->img->relocs;
			}
		}
	}
	return k;
}

static void run_setup(struct walk *w, const struct md_run *r, bool with_pss)
{
	w->present = r->flags & MD_PG_PRESENT;
	/* a copy over its object's page swapped out counts in both, as
	 * smaps counts it */
	w->swapped = w->present ? r->flags & MD_PG_OBJ_SWAPPED
				: r->flags & MD_PG_SWAPPED;
	w->dirty = r->flags & MD_PG_PRIVATE_DIRTY;
	w->shared_dirty = r->flags & MD_PG_SHARED_DIRTY;
	w->pmd = r->flags & MD_PG_PMD;
	w->mapcount = 0;
	if (with_pss)
		w->mapcount = r->mapcount		     ? r->mapcount
			      : (r->flags & MD_PG_EXCLUSIVE) ? 1
							     : 0;
	w->uss =
	    r->mapcount == 1 || (!r->mapcount && (r->flags & MD_PG_EXCLUSIVE));
	/* CHARGE: a page once, whoever maps it. A page cache page is
	 * charged whole where it is first seen (ATTRIB_PG_ONCE), other
	 * shared pages (anonymous after fork) a share per mapper. */
	w->charge_div = r->mapcount > 1 ? r->mapcount : 1;
	if (r->flags & ATTRIB_PG_ONCE)
		w->charge_div = 1;
	if (!w->present ||
	    (r->flags & (ATTRIB_PG_ELSEWHERE | ATTRIB_PG_COUNTED)))
		w->charge_div = 0;
}

static int tmpl_piece(void *arg, const uint32_t *labels, uint64_t start,
		      uint64_t end, uint32_t ix)
{
	struct walk *w = arg;

	w->cur->ix = ix;
	w->cur->start = start;
	w->cur->bytes = end - start;
	return walk_piece(w, labels, start, end);
}

/* rmap_rollup() of w's maps over [start, end), from template tm when not
 * NULL, w's piece identity set for each piece. */
static int tmpl_walk(const struct tmpl *tm, struct walk *w, uint64_t start,
		     uint64_t end)
{
	int ret;

	if (!tm)
		return rmap_rollup(w->maps, w->k, start, end, walk_piece, w);
	ret = tmpl_rollup(tm, start, end, tmpl_piece, w);
	w->cur->ix = UINT32_MAX;
	return ret;
}

/* Make w hand out pieces of image part p's template over maps[0..k-1]
 * (mode 0: VM, 1: file) for a walk of [s, e), or NULL and pieces
 * without an identity while it has none. */
static const struct tmpl *walk_tmpl(struct attrib *a, struct walk *w,
				    const struct attrib_part *p, int mode,
				    struct rmap *const *maps, size_t k,
				    uint64_t s, uint64_t e)
{
	const struct tmpl *tm =
	    tmpl_get(&p->img->tm[mode], maps, k, s, e, a->owner);

	w->maps = maps;
	w->k = k;
	a->cur.tmpl = NULL;
	if (!tm)
		return NULL;
	w->cur = &a->cur;
	a->cur.tmpl = w->rm ? NULL : tm; /* relocs: labels depend on runs */
	a->cur.none = w->none;
	a->cur.npieces = (uint32_t)tm->n;
	a->cur.ix = UINT32_MAX;
	return tm;
}

void attrib_set_vm_hook(struct attrib *a, attrib_vm_hook hook)
{
	a->vm_hook = hook;
}

void attrib_set_run_hook(struct attrib *a, attrib_run_hook hook)
{
	a->run_hook = hook;
}

void attrib_run_vals(const struct attrib_run_key *k, uint64_t start,
		     uint64_t bytes, uint64_t *vals)
{
	struct md_run r = {.flags = k->flags, .mapcount = k->mapcount};
	struct walk w = {.locked = k->locked};

	run_setup(&w, &r, k->with_pss);
	run_vals(&w, start - k->origin, start + bytes - k->origin, vals);
}

/* The walk of page run r over [s, e) of the image VM (w set up for it
 * by run_setup()): the hook's, or piece by piece. */
static int run_walk(struct attrib *a, const struct tmpl *tm, struct walk *w,
		    const struct md_run *r, uint64_t s, uint64_t e,
		    bool with_pss)
{
	struct attrib_run_key k = {.start = s,
				   .end = e,
				   .origin = w->origin,
				   .flags = r->flags,
				   .mapcount = r->mapcount,
				   .with_pss = with_pss,
				   .locked = w->locked};
	bool hook = a->run_hook && a->cur.tmpl;
	int ret;

	if (hook && a->run_hook(w->arg, &k, false) > 0)
		return 0;
	ret = tmpl_walk(tm, w, s, e);
	if (hook)
		a->run_hook(w->arg, &k, true);
	return ret;
}

void attrib_set_owner(struct attrib *a, uint64_t owner)
{
	a->owner = owner;
}

/* The VM walk of part p over tm: the hook's, or piece by piece. */
static int vm_walk(struct attrib *a, const struct tmpl *tm, struct walk *w,
		   const struct attrib_part *p)
{
	uint64_t s = p->start - p->bias, e = p->end - p->bias;
	bool hook = a->vm_hook && a->cur.tmpl;
	int ret;

	if (hook && a->vm_hook(w->arg, s, e, false) > 0)
		return 0;
	ret = tmpl_walk(tm, w, s, e);
	if (hook)
		a->vm_hook(w->arg, s, e, true);
	return ret;
}

const struct attrib_piece *attrib_piece(const struct attrib *a)
{
	return &a->cur;
}

int attrib_charge(struct attrib *a, const struct attrib_part *p,
		  const struct attrib_map *m, const enum key_id *srcs, size_t n,
		  bool with_pss, attrib_fn fn, void *arg)
{
	struct rmap *maps[RMAP_ROLLUP_MAX];
	struct walk w = {
	    .fn = fn, .arg = arg, .locked = m->flags & MD_MAP_LOCKED};
	uint64_t ps = a->page_size, rss = 0;
	const struct tmpl *tm;
	size_t k;
	int ret;

	if (n > KEYS_MAX)
		return -EINVAL;
	a->cur.tmpl = NULL;
	k = walk_setup(a, &w, p, srcs, n, false, maps);
	if (!k) {
		/* Constant labels: one piece with every run summed. */
		uint32_t labels[KEYS_MAX];
		uint64_t vals[COL__COUNT] = {0}, rv[COL__COUNT];

		for (size_t i = 0; i < n; i++)
			labels[i] = w.none[i];
		vals[COL_VM] = p->end - p->start;
		w.run = true;
		for (size_t i = 0; i < m->nruns; i++) {
			const struct md_run *r = &m->runs[i];
			uint64_t s = MAX(r->vaddr, p->start);
			uint64_t e =
			    MIN(r->vaddr + (uint64_t)r->npages * ps, p->end);

			if (s >= e)
				continue;
			run_setup(&w, r, with_pss);
			run_vals(&w, s - r->vaddr, e - r->vaddr, rv);
			for (int c = 0; c < COL__COUNT; c++)
				vals[c] += rv[c];
		}
		rss = vals[COL_RSS];
		ret = fn(arg, labels, vals);
		goto out;
	}

	w.col = COL_VM;
	tm = walk_tmpl(a, &w, p, 0, maps, k, p->start - p->bias,
		       p->end - p->bias);
	ret = vm_walk(a, tm, &w, p);
	if (ret)
		return ret;
	w.run = true;
	for (size_t i = 0; i < m->nruns; i++) {
		const struct md_run *r = &m->runs[i];
		uint64_t s = MAX(r->vaddr, p->start);
		uint64_t e = MIN(r->vaddr + (uint64_t)r->npages * ps, p->end);

		if (s >= e || !(r->flags & (MD_PG_PRESENT | MD_PG_SWAPPED)))
			continue;
		run_setup(&w, r, with_pss);
		w.origin = r->vaddr - p->bias;
		if (w.present)
			rss += e - s;
		ret =
		    run_walk(a, tm, &w, r, s - p->bias, e - p->bias, with_pss);
		if (ret)
			return ret;
	}
out:
	if (p->img && p->cls == ACLS_BROKEN) {
		p->img->fallback_vm += p->end - p->start;
		p->img->fallback_rss += rss;
	} else if (p->img && p->cls == ACLS_IMAGE && p->seg < 0) {
		p->img->noseg_vm += p->end - p->start;
		p->img->noseg_rss += rss;
	}
	return ret;
}

uint64_t attrib_file_size(const struct attrib_part *p)
{
	if (p->cls == ACLS_ANON || p->cls == ACLS_SHMEM || !p->img)
		return 0;
	if (p->img->state == IMG_ELF)
		return p->img->si.img->file_size;
	return p->img->rec.size;
}

uint32_t attrib_image_id(const struct attrib_part *p)
{
	return p->img ? p->img->id : UINT32_MAX;
}

int attrib_file(struct attrib *a, const struct attrib_part *p, uint64_t off,
		uint64_t end, const enum key_id *srcs, size_t n, attrib_fn fn,
		void *arg)
{
	struct rmap *maps[RMAP_ROLLUP_MAX];
	struct walk w = {.fn = fn, .arg = arg, .col = COL_FILE};
	uint64_t size = attrib_file_size(p);
	size_t k;

	if (n > KEYS_MAX)
		return -EINVAL;
	a->cur.tmpl = NULL;
	end = MIN(end, size);
	if (off >= end)
		return 0;
	if (p->cls == ACLS_IMAGE || p->cls == ACLS_BSS) {
		/* The whole file is the image's, whatever segment this
		 * part maps. */
		struct attrib_part whole = *p;

		if (whole.seg < 0)
			whole.seg = 0;
		k = walk_setup(a, &w, &whole, srcs, n, true, maps);
	} else {
		k = walk_setup(a, &w, p, srcs, n, true, maps);
	}
	if (!k) {
		uint32_t labels[KEYS_MAX];
		uint64_t vals[COL__COUNT] = {0};

		for (size_t i = 0; i < n; i++)
			labels[i] = w.none[i];
		vals[COL_FILE] = end - off;
		return fn(arg, labels, vals);
	}
	return tmpl_walk(walk_tmpl(a, &w, p, 1, maps, k, off, end), &w, off,
			 end);
}

static void human(char *buf, size_t len, uint64_t bytes)
{
	fmt_human(buf, len, (double)bytes);
}

/* The note on an image that is not ELF and was mapped executable or is
 * not readable by all. A recording that says the file was not ELF either
 * (IMAGE_KIND) says so; one without leaves it unknown: then the note
 * says how the file changed since the recording if it did (it may have
 * been an ELF file without a build-id, rewritten in place). */
static void note_not_elf(const struct attrib_img *im, struct strlist *notes)
{
	bool data = im->rec.kind == MD_IMAGE_NOT_ELF;
	char *moved = data ? NULL : imgcheck_moved(&im->rec, img_path(im));
	const char *why = data ? "not ELF when recorded either" : moved;

	strlist_add_notef(notes, NOTE_NOT_ELF, im->rec.path,
			  "%s: not an ELF file (mapped executable or not "
			  "readable by all): labelled by its path%s%s",
			  im->rec.path, why ? "; " : "", why ? why : "");
	free(moved);
}

void attrib_notes(struct attrib *a, struct strlist *notes)
{
	char vm[16], rss[16];

	for (size_t i = 0; i < a->nimgs; i++) {
		struct attrib_img *im = a->imgs[i];

		if (im->why && im->fallback_vm) {
			human(vm, sizeof(vm), im->fallback_vm);
			human(rss, sizeof(rss), im->fallback_rss);
			if (img_states[im->state].prefix)
				strlist_add_notef(
				    notes, img_states[im->state].note,
				    im->rec.path,
				    "%s: %s, so what it holds is unknown; "
				    "%s mapped (%s resident)",
				    labels_str(a->lb, im->whole_label), im->why,
				    vm, rss);
			else
				strlist_add_notef(
				    notes, NOTE_IMAGE_BROKEN, im->rec.path,
				    "%s: %s; its %s mapped (%s resident) are "
				    "charged to [LOAD #?]",
				    im->rec.path, im->why, vm, rss);
		}
		if (im->state == IMG_NOTELF && im->notelf_odd)
			note_not_elf(im, notes);
		if (im->noseg_vm && im->noseg_rss) {
			human(vm, sizeof(vm), im->noseg_vm);
			human(rss, sizeof(rss), im->noseg_rss);
			strlist_add_notef(
			    notes, NOTE_NO_SEGMENT, im->rec.path,
			    "%s: %s mapped (%s resident) match no "
			    "PT_LOAD segment and are charged to "
			    "[no segment]",
			    im->rec.path, vm, rss);
		}
	}
	for (size_t i = 0; i < a->src_notes.n; i++)
		strlist_add_copy(notes, &a->src_notes, i);
}

/* --- images by address, for fault samples (report/faults.c) --- */

uint32_t attrib_image_lookup(struct attrib *a, const char *path,
			     uint32_t dev_major, uint32_t dev_minor,
			     uint64_t ino)
{
	uint32_t by_path = UINT32_MAX;

	img_find(a, 0); /* sorts and dedupes */
	for (size_t i = 0; i < a->nimgs; i++) {
		const struct md_image *r = &a->imgs[i]->rec;

		if (ino && r->ino == ino && r->dev_major == dev_major &&
		    r->dev_minor == dev_minor)
			return r->id;
		if (by_path == UINT32_MAX && path && !strcmp(r->path, path))
			by_path = r->id;
	}
	return by_path;
}

struct elfimg *attrib_image_elf(struct attrib *a, uint32_t id)
{
	struct attrib_img *im = attrib_img_get(a, id);

	return im && im->state == IMG_ELF ? im->si.img : NULL;
}

int attrib_image_bias(struct attrib *a, uint32_t id, uint64_t start,
		      uint64_t end, uint64_t pgoff, uint32_t prot,
		      uint64_t *bias)
{
	struct attrib_img *im = attrib_img_get(a, id);
	struct attrib_map m = {.start = start,
			       .end = end,
			       .pgoff = pgoff,
			       .prot = prot,
			       .image_id = id};
	int seg;

	if (!im || im->state != IMG_ELF)
		return -ENOENT;
	seg = attrib_img_segment(a, im, &m);
	if (seg < 0)
		return -ENOENT;
	*bias = seg_bias(&im->si.img->segs[seg], start, pgoff);
	return 0;
}

uint32_t attrib_image_symbol(struct attrib *a, uint32_t id, uint64_t vm)
{
	struct attrib_img *im = attrib_img_get(a, id);
	struct dualmap *dm;
	const char *s;
	uint32_t l;

	if (!im || im->state != IMG_ELF)
		return LABEL_NONE;
	dm = img_source(a, im, keys_code_key());
	if (!dm)
		return LABEL_NONE;
	l = rmap_lookup(dm->vm, vm, NULL);
	if (l == LABEL_NONE)
		return l;
	s = labels_str(a->lb, l);
	if (s[0] == '[' || !strncmp(s, "LOAD #", 6))
		return LABEL_NONE; /* a fallback, not a function */
	return l;
}
