// SPDX-License-Identifier: GPL-2.0-or-later
/* ondisk.c — see ondisk.h */
#include "config.h"

#include "report/ondisk.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf/archive.h"
#include "elf/imagemaps.h"
#include "maps/rangemap.h"
#include "report/keys.h"
#include "util/hashmap.h"
#include "util/util.h"

/* The distinct paths of a walk of several keys in the order they first
 * came, each with its sums. The rows are added once per path at the
 * walk's end, in that same order (so the row tree is the one a row per
 * piece gives: same rows, same order, same sums), after the image's maps
 * are freed: two keys over a big binary make hundreds of thousands of
 * rows (each symbol under each section its bytes and metadata are in),
 * and the rows and the maps are no longer in memory together (node
 * under compileunits,symbols: 24 MB less at the peak, this index of 16
 * MB freed before the rows are made too). */
struct path_sums {
	struct hashmap ix;
	uint32_t *paths;  /* n paths of nkeys labels */
	uint64_t (*v)[2]; /* bytes of each path: [file, vm] (a path is
			     added at its first piece, even an empty one) */
	bool *keep;	  /* the filter keeps the path */
	size_t n, cap_paths, cap_v, cap_keep;
	size_t last; /* the path of the last piece, if n */
};

/* State of one rollup walk: which rollup column is which key. */
struct size_walk {
	struct rowtree *t;
	const enum key_id *keys;
	size_t nkeys;
	/* per key: the label its hook gives the file (keys not labelled by
	 * an ELF map: files), else LABEL_NONE */
	uint32_t fixed[KEYS_MAX];
	size_t map_of_key[KEYS_MAX]; /* index into labels[] per key */
	int base_index;		     /* labels[] index of base map, or -1 */
	enum col_id col;
	struct labels *lb;
	uint64_t fallback[KEYS_MAX][2]; /* bytes: [key][file, vm] */
	/* "[padding]" (not a fallback: the alignment the next symbol asks
	 * for) and its bytes per key, said beside the fallback share */
	uint32_t padding;
	uint64_t padded[KEYS_MAX][2];
	uint64_t total[2];
	struct filter *filter; /* NULL: keep all */
	bool kept;	       /* a piece was kept */
	/* One key labelled by a map: the bytes of each label id, [file,
	 * vm], summed over the walk and added as one row at its end
	 * (size_flush) instead of a row lookup per piece: a big C++
	 * library has millions of pieces (each relocation entry, FDE and
	 * symbol table entry is one) over some hundred thousand labels.
	 * NULL: a row per piece. */
	uint64_t (*sums)[2];
	size_t nsums;
	bool one;	     /* one key, labelled by a map: sums are kept */
	struct path_sums ps; /* every other walk: sums per path */
	/* per key, per label id: 0 not asked yet, 1 not a fallback, 2 a
	 * fallback (keys_label_is_fallback() compares strings: asked once
	 * per label, not once per row) */
	uint8_t *is_fb[KEYS_MAX];
	size_t nfb[KEYS_MAX];
};

/* keys_label_is_fallback() of label under key i, remembered. */
static bool label_is_fallback(struct size_walk *w, size_t i, uint32_t label)
{
	if (label >= w->nfb[i]) {
		size_t old = w->nfb[i];

		xgrow(&w->is_fb[i], &w->nfb[i], (size_t)label + 1, 1);
		memset(w->is_fb[i] + old, 0, w->nfb[i] - old);
	}
	if (!w->is_fb[i][label])
		w->is_fb[i][label] =
		    keys_label_is_fallback(w->keys[i], labels_str(w->lb, label))
			? 2
			: 1;
	return w->is_fb[i][label] == 2;
}

/* Count len[0] bytes of FILE SIZE and len[1] of VM SIZE of path in the
 * fallback, padding and total figures (the file's, for its footer,
 * whatever the filter keeps) and, if the filter keeps it (keep), in the
 * row tree: one rowtree_add(), as the sums of the pieces of one path
 * give the rows the same values as a row per piece would. */
static void size_count(struct size_walk *w, const uint32_t *path,
		       const uint64_t len[2], bool keep)
{
	uint64_t vals[COL__COUNT] = {0};

	for (size_t i = 0; i < w->nkeys; i++) {
		uint64_t(*sum)[2] = NULL;

		if (w->fixed[i] != LABEL_NONE)
			continue;
		if (path[i] == w->padding)
			sum = &w->padded[i];
		else if (label_is_fallback(w, i, path[i]))
			sum = &w->fallback[i];
		if (sum) {
			(*sum)[0] += len[0];
			(*sum)[1] += len[1];
		}
	}
	w->total[0] += len[0];
	w->total[1] += len[1];
	if (!keep)
		return;
	w->kept = true;
	vals[COL_FILE] = len[0];
	vals[COL_VM] = len[1];
	rowtree_add(w->t, path, vals);
}

/* The rows of the sums of a one-key walk, both columns; then freed. */
static void size_flush(struct size_walk *w)
{
	/* how far ahead the string of a label is asked for: size_count()
	 * reads it (is it a fallback?), a cache miss each on a big image */
	enum { AHEAD = 16 };
	size_t nl = MIN(w->nsums, labels_count(w->lb));

	for (size_t l = 0; l < w->nsums; l++) {
		uint32_t path[1] = {(uint32_t)l};

		if (l + AHEAD < nl)
			__builtin_prefetch(labels_str(w->lb, l + AHEAD));
		if (!w->sums[l][0] && !w->sums[l][1])
			continue;
		size_count(w, path, w->sums[l],
			   filter_keep(w->filter, w->lb, path, 1));
	}
}

/* Make the sums of a one-key walk cover every label of lb. */
static void size_sums_grow(struct size_walk *w)
{
	size_t n = labels_count(w->lb), cap = w->nsums;

	if (!w->one || n <= w->nsums)
		return;
	xgrow(&w->sums, &cap, n, sizeof(*w->sums));
	memset(w->sums + w->nsums, 0, (cap - w->nsums) * sizeof(*w->sums));
	w->nsums = cap;
}

/* Add len bytes of column col to path's sums, the path added (and asked
 * of the filter) the first time it comes. */
static void path_sums_add(struct size_walk *w, const uint32_t *path,
			  enum col_id col, uint64_t len)
{
	struct path_sums *ps = &w->ps;
	size_t sz = w->nkeys * sizeof(*path);
	uint32_t h, i;
	struct hashmap_probe p;

	/* the VM walk meets the paths of the loaded sections in the
	 * order the file walk made them: try the one after the last */
	if (ps->last + 1 < ps->n &&
	    !memcmp(ps->paths + (size_t)(ps->last + 1) * w->nkeys, path, sz)) {
		i = ps->last + 1;
		goto add;
	}
	h = hashmap_hash_bytes(path, sz);
	for (i = hashmap_first(&ps->ix, h, &p); i != HASHMAP_NONE;
	     i = hashmap_next(&ps->ix, &p))
		if (!memcmp(ps->paths + (size_t)i * w->nkeys, path, sz))
			break;
	if (i == HASHMAP_NONE) {
		if (ps->n >= HASHMAP_NONE - 1)
			abort(); /* as many paths as labels can be interned */
		i = (uint32_t)ps->n++;
		xgrow(&ps->paths, &ps->cap_paths, ps->n * w->nkeys,
		      sizeof(*ps->paths));
		xgrow(&ps->v, &ps->cap_v, ps->n, sizeof(*ps->v));
		xgrow(&ps->keep, &ps->cap_keep, ps->n, sizeof(*ps->keep));
		memcpy(ps->paths + (size_t)i * w->nkeys, path, sz);
		ps->v[i][0] = ps->v[i][1] = 0;
		ps->keep[i] = filter_keep(w->filter, w->lb, path, w->nkeys);
		hashmap_put(&ps->ix, &p, i);
	}
add:
	ps->last = i;
	ps->v[i][col == COL_VM] += len;
	if (ps->keep[i])
		w->kept = true;
}

/* The rows of the paths of a walk of several keys, in the order the
 * paths came; then freed. */
static void path_sums_flush(struct size_walk *w, bool add)
{
	struct path_sums *ps = &w->ps;

	/* the index is not needed any more: freed before the rows grow */
	hashmap_free(&ps->ix);
	for (size_t i = 0; add && i < ps->n; i++) {
		const uint32_t *path = ps->paths + i * w->nkeys;

		size_count(w, path, ps->v[i], ps->keep[i]);
	}
	free(ps->paths);
	free(ps->v);
	free(ps->keep);
	memset(ps, 0, sizeof(*ps));
}

static int size_piece(void *arg, const uint32_t *labels, uint64_t start,
		      uint64_t end)
{
	struct size_walk *w = arg;
	uint32_t path[KEYS_MAX];

	if (w->base_index >= 0 && labels[w->base_index] == LABEL_NONE)
		return 0; /* VM hole between segments: not mapped */
	if (w->sums) {
		uint32_t l = labels[w->map_of_key[0]];

		if (l >= w->nsums)
			return -MEMSZ_EBADELF; /* a hole: see below */
		w->sums[l][w->col == COL_VM] += end - start;
		return 0;
	}
	for (size_t i = 0; i < w->nkeys; i++) {
		if (w->fixed[i] != LABEL_NONE) {
			path[i] = w->fixed[i];
			continue;
		}
		path[i] = labels[w->map_of_key[i]];
		/* Every source map covers the base map completely; a hole
		 * here is a bug in elf/, not something to hide. */
		if (path[i] == LABEL_NONE)
			return -MEMSZ_EBADELF;
	}
	path_sums_add(w, path, w->col, end - start);
	return 0;
}

/* One footer line per key: how much of the file is under fallbacks, and
 * the "[padding]" the share leaves out, when there is some. */
static void fallback_notes(struct strlist *notes, const char *path,
			   const struct size_walk *w)
{
	static const char *const names[2] = {"FILE SIZE", "VM SIZE"};

	for (size_t i = 0; i < w->nkeys; i++) {
		/* grouped only when there are bytes to speak of */
		enum note_kind k = w->fallback[i][0] || w->fallback[i][1]
				       ? NOTE_FALLBACK
				       : NOTE_OTHER;
		char *note;

		if (keydefs[w->keys[i]].elfsrc < 0)
			continue;
		note = keys_fallback_note(path, w->keys[i], 2, w->fallback[i],
					  w->total, names);
		if (w->padded[i][0] || w->padded[i][1]) {
			char *more =
			    xasprintf("%s; [padding], not "
				      "counted: %llu bytes of FILE "
				      "SIZE, %llu of VM SIZE",
				      note, (unsigned long long)w->padded[i][0],
				      (unsigned long long)w->padded[i][1]);

			free(note);
			note = more;
		}
		strlist_add_note(notes, k, path, note);
	}
}

/* The walk of the bytes of one FILE along keys. */
static void walk_init(struct size_walk *w, struct rowtree *t, struct labels *lb,
		      const enum key_id *keys, size_t nkeys,
		      struct filter *filter)
{
	*w = (struct size_walk){.t = t,
				.keys = keys,
				.nkeys = nkeys,
				.lb = lb,
				.filter = filter,
				.one = nkeys == 1 && !keydefs[keys[0]].label};
	w->padding = labels_find(lb, "[padding]");
}

/* The label of each key that a hook labels, for bytes at at. */
static void walk_fix(struct size_walk *w, const struct key_at *at)
{
	for (size_t i = 0; i < w->nkeys; i++)
		w->fixed[i] = keydefs[w->keys[i]].label
				  ? keydefs[w->keys[i]].label(at)
				  : LABEL_NONE;
}

/* walk_image() of a one-key walk (w->sums) over its one map (file
 * space fm, VM space vm): each label's bytes summed by
 * rmap_sum_ranges(), the VM where the base map maps; what size_piece()
 * sums, without a piece each (libLLVM-14: 900 k pieces), and without
 * settling the maps, which are freed next (the adds since their last
 * query are summed as they are swept). */
static int walk_sums(struct size_walk *w, struct imgmaps *im, struct rmap *fm,
		     struct rmap *vm)
{
	const struct rmap_entry file = {0, im->img->file_size, 0, 0};
	const struct rmap_entry *vme;
	size_t nvme;

	w->col = COL_FILE;
	if (rmap_sum_ranges(fm, &file, 1, w->sums, w->nsums, 0))
		return -MEMSZ_EBADELF;
	w->col = COL_VM;
	vme = rmap_entries(im->base.vm, &nvme);
	if (rmap_sum_ranges(vm, vme, nvme, w->sums, w->nsums, 1))
		return -MEMSZ_EBADELF;
	return 0;
}

/* Walk the file and VM space of the open image im (its labels at at) into
 * w. Notes about it go to mine. */
static int walk_image(struct size_walk *w, struct imgmaps *im,
		      const struct key_at *at, const struct elf_map_opts *maps,
		      struct strlist *mine)
{
	struct rmap *fmaps[RMAP_ROLLUP_MAX], *vmaps[RMAP_ROLLUP_MAX];
	const struct rmap_entry *vme;
	size_t nmaps = 0, nvme;
	int ret;

	walk_fix(w, at);
	for (size_t i = 0; i < w->nkeys; i++) {
		struct dualmap *dm;
		int src = keydefs[w->keys[i]].elfsrc;

		if (src < 0)
			continue;
		ret = imgmaps_source(im, src, w->lb, maps, mine, &dm);
		if (ret < 0)
			return ret;
		w->map_of_key[i] = nmaps;
		fmaps[nmaps] = dm->file;
		vmaps[nmaps] = dm->vm;
		nmaps++;
	}
	if (w->padding == LABEL_NONE)
		w->padding = labels_find(w->lb, "[padding]");
	size_sums_grow(w);
	if (w->sums && nmaps == 1)
		return walk_sums(w, im, fmaps[0], vmaps[0]);

	/* File space: the base file map covers [0, file size) exactly. */
	w->col = COL_FILE;
	w->base_index = -1;
	ret = rmap_rollup(fmaps, nmaps, 0, im->img->file_size, size_piece, w);
	if (ret < 0)
		return ret;

	/* VM space: only what the base map maps (the PT_LOAD ranges). */
	w->col = COL_VM;
	w->base_index = (int)nmaps;
	vmaps[nmaps] = im->base.vm;
	vme = rmap_entries(im->base.vm, &nvme);
	if (nvme)
		ret = rmap_rollup(vmaps, nmaps + 1, vme[0].start,
				  vme[nvme - 1].end, size_piece, w);
	return ret;
}

/* len file bytes that no ELF image holds (an archive's headers): label
 * for the keys labelled by maps, the hooks' labels at at for the
 * others. */
static void walk_plain(struct size_walk *w, const struct key_at *at,
		       uint64_t len, uint32_t label)
{
	uint32_t path[KEYS_MAX];

	if (!len)
		return;
	walk_fix(w, at);
	for (size_t i = 0; i < w->nkeys; i++)
		path[i] = w->fixed[i] != LABEL_NONE ? w->fixed[i] : label;
	if (w->one) {
		size_sums_grow(w);
		w->sums[label][0] += len;
		return;
	}
	path_sums_add(w, path, COL_FILE, len);
}

/* End the walk of FILE path: its rows, its fallback notes, and the notes
 * in mine moved to notes unless the filter kept none of its bytes (then
 * they are not news). */
static void walk_end(struct size_walk *w, const char *path, int ret,
		     struct strlist *mine, struct strlist *notes)
{
	if (ret >= 0 && w->sums)
		size_flush(w);
	path_sums_flush(w, ret >= 0);
	if (ret >= 0)
		fallback_notes(mine, path, w);
	free(w->sums);
	w->sums = NULL;
	for (size_t i = 0; i < w->nkeys; i++) {
		free(w->is_fb[i]);
		w->is_fb[i] = NULL;
		w->nfb[i] = 0;
	}
	for (size_t i = 0; i < mine->n && (w->kept || filter_empty(w->filter));
	     i++)
		strlist_add_copy(notes, mine, i);
	strlist_free(mine);
}

/* The labels of an archive's own parts (armembers, and every key made
 * from an ELF map). */
static const char *const ar_part_label[] = {
    [AR_FILE] = "[AR Non-ELF Member File]",
    [AR_SYMTAB] = "[AR Symbol Table]",
    [AR_LONGNAMES] = "[AR Headers]",
};

/* Member m of archive path (buf, len) as an ELF image opened from a copy
 * in memory, walked into w with its labels at at (which it sets). A
 * member that is no ELF file is labelled as such; one that cannot be
 * read too, with a note. */
static int walk_member(struct size_walk *w, struct key_at *at, const char *path,
		       const unsigned char *buf, const struct ar_member *m,
		       const struct elf_map_opts *maps, struct strlist *mine)
{
	struct imgmaps im = {0};
	char fdpath[40];
	int fd, ret;

	at->member_label = labels_intern(w->lb, m->name);
	if (m->size < 4 || memcmp(buf + m->off, "\177ELF", 4)) {
		walk_plain(w, at, m->size + m->pad,
			   labels_intern(w->lb, ar_part_label[AR_FILE]));
		return 0;
	}
	fd = ar_member_memfd(buf, m);
	if (fd < 0)
		return fd;
	snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fd);
	ret = imgmaps_open(&im, fdpath, w->lb);
	close(fd);
	if (ret < 0) {
		strlist_addf(mine,
			     "'%s(%s)': not read (%s): its bytes are "
			     "under [AR Unreadable Member]",
			     path, m->name, memsz_strerror(ret));
		walk_plain(w, at, m->size + m->pad,
			   labels_intern(w->lb, "[AR Unreadable Member]"));
		return 0;
	}
	/* notes name the member as binutils do: lib.a(member.o) */
	free(im.img->path);
	im.img->path = xasprintf("%s(%s)", path, m->name);
	ret = walk_image(w, &im, at, maps, mine);
	imgmaps_close(&im);
	/* the pad byte after an odd member: its, as Bloaty counts it */
	walk_plain(w, at, m->pad, labels_intern(w->lb, "[Unmapped]"));
	return ret;
}

/* walk_member(), its notes appended to mine only when the filter kept
 * some of its bytes (as for a file; a one-key walk knows only at its
 * end, for the whole archive). */
static int walk_member_noted(struct size_walk *w, struct key_at *at,
			     const char *path, const unsigned char *buf,
			     const struct ar_member *m,
			     const struct elf_map_opts *maps,
			     struct strlist *mine)
{
	struct strlist notes = {0};
	bool kept = w->kept;
	int ret;

	w->kept = false;
	ret = walk_member(w, at, path, buf, m, maps, &notes);
	for (size_t i = 0;
	     i < notes.n && (w->kept || w->one || filter_empty(w->filter)); i++)
		strlist_add_copy(mine, &notes, i);
	strlist_free(&notes);
	w->kept |= kept;
	return ret;
}

/* Walk the archive path (buf, len) into w: each member, and the
 * archive's own bytes. */
static int walk_archive(struct size_walk *w, const char *path,
			const unsigned char *buf, size_t len,
			const struct elf_map_opts *maps, struct strlist *mine)
{
	struct key_at at = {.lb = w->lb};
	struct ar_member *ms = NULL;
	uint32_t hdrs = labels_intern(w->lb, "[AR Headers]");
	size_t n = 0;
	int ret = ar_members_read(buf, len, &ms, &n);

	if (ret < 0)
		return ret;
	at.file_label = labels_intern(w->lb, path);
	at.member_label = hdrs;
	walk_plain(w, &at, AR_MAGIC_LEN, hdrs);
	for (size_t i = 0; i < n && ret >= 0; i++) {
		const struct ar_member *m = &ms[i];
		uint32_t l = labels_intern(w->lb, ar_part_label[m->kind]);

		at.member_label = hdrs;
		walk_plain(w, &at, m->hdr_len, hdrs);
		if (m->kind == AR_FILE) {
			ret =
			    walk_member_noted(w, &at, path, buf, m, maps, mine);
			continue;
		}
		at.member_label = l;
		walk_plain(w, &at, m->size + m->pad, l);
	}
	ar_members_free(ms, n);
	return ret;
}

/* Walk the ELF file path into w. */
static int walk_elf(struct size_walk *w, const char *path,
		    const struct elf_map_opts *maps, struct strlist *mine)
{
	struct imgmaps im = {0};
	struct key_at at = {.lb = w->lb};
	int ret = imgmaps_open(&im, path, w->lb);

	if (ret < 0)
		return ret;
	at.file_label = at.member_label = labels_intern(w->lb, path);
	ret = walk_image(w, &im, &at, maps, mine);
	imgmaps_close(&im);
	return ret;
}

/* True if the file at path starts with an archive's magic. */
static bool is_archive(const char *path)
{
	char magic[AR_MAGIC_LEN];
	struct stat st;
	/* a FIFO or device node is not opened (nor taken for an archive) */
	int fd = open_regular_at(AT_FDCWD, path, &st);
	bool yes =
	    fd >= 0 &&
	    pread(fd, magic, sizeof(magic), 0) == (ssize_t)sizeof(magic) &&
	    ar_is_archive(magic, sizeof(magic), NULL);

	if (fd >= 0)
		close(fd);
	return yes;
}

int ondisk_add_file(struct rowtree *t, struct labels *lb, const char *path,
		    const enum key_id *keys, size_t nkeys,
		    const struct elf_map_opts *maps, struct filter *filter,
		    struct strlist *notes)
{
	struct size_walk w;
	struct strlist mine = {0};
	unsigned char *buf = NULL;
	size_t len = 0;
	int ret;

	walk_init(&w, t, lb, keys, nkeys, filter);
	if (!is_archive(path)) {
		ret = walk_elf(&w, path, maps, &mine);
	} else {
		ret = ar_file_read(path, &buf, &len);
		if (ret > 0)
			strlist_add_notef(
			    &mine, NOTE_IMAGE_CHANGED_READ, path,
			    "%s: changed (truncated or rewritten) "
			    "while it was read: its rows may be "
			    "incomplete",
			    path);
		if (ret >= 0)
			ret = walk_archive(&w, path, buf, len, maps, &mine);
		free(buf);
	}
	walk_end(&w, path, ret, &mine, notes);
	return ret;
}
