// SPDX-License-Identifier: GPL-2.0-or-later
/* ondisk.c — see ondisk.h */
#include "config.h"

#include "report/ondisk.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf/imagemaps.h"
#include "maps/rangemap.h"
#include "report/keys.h"
#include "util/util.h"

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
};

/* Count the piece [start, end) of path (already kept by the filter) in
 * the fallback, padding and total figures and the row tree. */
static void size_count(struct size_walk *w, const uint32_t *path,
		       enum col_id col, uint64_t len)
{
	uint64_t vals[COL__COUNT] = {0};

	for (size_t i = 0; i < w->nkeys; i++) {
		if (w->fixed[i] != LABEL_NONE)
			continue;
		if (path[i] == w->padding)
			w->padded[i][col == COL_VM] += len;
		else if (keys_label_is_fallback(w->keys[i],
						labels_str(w->lb, path[i])))
			w->fallback[i][col == COL_VM] += len;
	}
	w->kept = true;
	w->total[col == COL_VM] += len;
	vals[col] = len;
	rowtree_add(w->t, path, vals);
}

/* The rows of the sums of a one-key walk, both columns; then freed. */
static void size_flush(struct size_walk *w)
{
	for (size_t l = 0; l < w->nsums; l++) {
		uint32_t path[1] = {(uint32_t)l};

		if (!w->sums[l][0] && !w->sums[l][1])
			continue;
		if (!filter_keep(w->filter, w->lb, path, 1))
			continue;
		if (w->sums[l][0])
			size_count(w, path, COL_FILE, w->sums[l][0]);
		if (w->sums[l][1])
			size_count(w, path, COL_VM, w->sums[l][1]);
	}
	free(w->sums);
	w->sums = NULL;
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
	if (!filter_keep(w->filter, w->lb, path, w->nkeys))
		return 0;
	size_count(w, path, w->col, end - start);
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

int ondisk_add_file(struct rowtree *t, struct labels *lb, const char *path,
		    const enum key_id *keys, size_t nkeys,
		    const struct elf_map_opts *maps, struct filter *filter,
		    struct strlist *notes)
{
	struct imgmaps im = {0};
	struct rmap *fmaps[RMAP_ROLLUP_MAX], *vmaps[RMAP_ROLLUP_MAX];
	struct size_walk w = {
	    .t = t, .keys = keys, .nkeys = nkeys, .lb = lb, .filter = filter};
	struct key_at at = {.lb = lb};
	struct strlist mine = {0};
	size_t nmaps = 0;
	const struct rmap_entry *vme;
	size_t nvme;
	int ret;

	ret = imgmaps_open(&im, path, lb);
	if (ret < 0)
		return ret;
	at.file_label = labels_intern(lb, path);
	for (size_t i = 0; i < nkeys; i++) {
		struct dualmap *dm;
		int src = keydefs[keys[i]].elfsrc;

		w.fixed[i] = keydefs[keys[i]].label
				 ? keydefs[keys[i]].label(&at)
				 : LABEL_NONE;
		if (src < 0)
			continue;
		ret = imgmaps_source(&im, src, lb, maps, &mine, &dm);
		if (ret < 0)
			goto out;
		w.map_of_key[i] = nmaps;
		fmaps[nmaps] = dm->file;
		vmaps[nmaps] = dm->vm;
		nmaps++;
	}

	w.padding = labels_find(lb, "[padding]");
	if (nkeys == 1 && w.fixed[0] == LABEL_NONE) {
		w.nsums = labels_count(lb);
		w.sums = xcalloc(w.nsums ? w.nsums : 1, sizeof(*w.sums));
	}
	/* File space: the base file map covers [0, file size) exactly. */
	w.col = COL_FILE;
	w.base_index = -1;
	ret = rmap_rollup(fmaps, nmaps, 0, im.img->file_size, size_piece, &w);
	if (ret < 0)
		goto out;

	/* VM space: only what the base map maps (the PT_LOAD ranges). */
	w.col = COL_VM;
	w.base_index = (int)nmaps;
	vmaps[nmaps] = im.base.vm;
	vme = rmap_entries(im.base.vm, &nvme);
	if (nvme)
		ret = rmap_rollup(vmaps, nmaps + 1, vme[0].start,
				  vme[nvme - 1].end, size_piece, &w);
	if (ret >= 0 && w.sums)
		size_flush(&w);
	if (ret >= 0)
		fallback_notes(&mine, path, &w);
out:
	free(w.sums);
	/* notes about a file the filter left nothing of are not news */
	for (size_t i = 0; i < mine.n && (w.kept || filter_empty(filter)); i++)
		strlist_add_copy(notes, &mine, i);
	strlist_free(&mine);
	imgmaps_close(&im);
	return ret;
}
