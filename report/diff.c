// SPDX-License-Identifier: GPL-2.0-or-later
/* diff.c — see diff.h */
#include "config.h"

#include "report/diff.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "data/datafile.h"
#include "elf/archive.h"
#include "elf/elfimg.h"
#include "report/attrib.h"
#include "report/ondisk.h"
#include "util/util.h"

int diff_detect(const char *path, enum diff_kind *kind)
{
	struct stat st;
	char magic[8];
	ssize_t n;
	int fd, ret = -MEMSZ_EBADMAGIC;

	/* regular files only: a FIFO or a device node (perhaps linked from
	 * /tmp by another user) is refused unopened, neither waited on for
	 * a writer nor woken */
	fd = open_regular_at(AT_FDCWD, path, &st);
	if (fd == -EINVAL)
		return S_ISDIR(st.st_mode) ? -EISDIR : -MEMSZ_ENOTREG;
	if (fd < 0)
		return fd;
	n = pread(fd, magic, sizeof(magic), 0);
	if (n < 0)
		ret = -errno;
	else if (n == sizeof(magic) && !memcmp(magic, MD_MAGIC, 8))
		ret = 0, *kind = DIFF_KIND_DATA;
	else if ((n >= 4 && !memcmp(magic, "\177ELF", 4)) ||
		 ar_is_archive(magic, (size_t)MAX(n, 0), NULL))
		ret = 0, *kind = DIFF_KIND_ELF; /* or an archive of them */
	close(fd);
	return ret;
}

/* ---- notes ---- */

/* Footer of the two sides: a note both sides have once, the others
 * prefixed with the side they come from; their kinds kept, so that the
 * footer shows each kind as it would in a report. */
static void merge_notes(struct strlist *out, const struct strlist *old,
			const struct strlist *new)
{
	for (size_t i = 0; i < old->n; i++)
		strlist_add_copy_prefixed(
		    out, old, i,
		    strlist_has(new, old->lines[i]) ? "" : "OLD: ");
	for (size_t i = 0; i < new->n; i++)
		if (!strlist_has(old, new->lines[i]))
			strlist_add_copy_prefixed(out, new, i, "NEW: ");
}

/* Move the notes of l to out, each without a leading "PATH: " (the
 * side's file name, which the OLD:/NEW: prefix replaces). */
static void strip_path(struct strlist *out, struct strlist *l, const char *path)
{
	size_t n = strlen(path);

	for (size_t i = 0; i < l->n; i++) {
		const char *s = l->lines[i];

		if (!strncmp(s, path, n) && !strncmp(s + n, ": ", 2))
			s += n + 2;
		strlist_add(out, xstrdup(s));
	}
	strlist_free(l);
}

static char *hex(const uint8_t *id, size_t len)
{
	char *s = xmalloc(2 * len + 1);

	for (size_t i = 0; i < len; i++)
		snprintf(s + 2 * i, 3, "%02x", id[i]);
	s[2 * len] = 0;
	return s;
}

/* What an image is known by on one side. */
struct imginfo {
	char *path;
	uint8_t build_id[64];
	size_t build_id_len;
	uint64_t size;
	int64_t mtime_ns; /* INT64_MIN: unknown */
	int content;	  /* ELF diffs: 1 same as the other, 0 not */
	uint32_t id;	  /* recordings: its IMAGE record's */
	uint32_t kind;	  /* recordings: ELF or not (enum md_image_kind) */
};

/* The note on a file of size or mtime (or kind) changed that a side
 * recorded as not ELF, the other's kind known too: a data file's change
 * (a database, a cache), or a file ELF on one side only. NULL where a
 * side's kind is unknown (no IMAGE_KIND record) or both
 * were ELF. Caller frees. */
static char *not_elf_note(const char *name, const struct imginfo *o,
			  const struct imginfo *n)
{
	if (o->kind == MD_IMAGE_UNKNOWN || n->kind == MD_IMAGE_UNKNOWN ||
	    (o->kind == MD_IMAGE_ELF && n->kind == MD_IMAGE_ELF))
		return NULL;
	if (o->kind != n->kind)
		return xasprintf("'%s' was %s in OLD and is %s in NEW (size "
				 "%" PRIu64 " -> %" PRIu64 " bytes)",
				 name,
				 o->kind == MD_IMAGE_ELF ? "ELF" : "not ELF",
				 n->kind == MD_IMAGE_ELF ? "ELF" : "not ELF",
				 o->size, n->size);
	if (o->size == n->size)
		return xasprintf("'%s' (not ELF) changed: new mtime, same "
				 "size (%" PRIu64 " bytes)",
				 name, o->size);
	return xasprintf("'%s' (not ELF) changed: size %" PRIu64 " -> %" PRIu64
			 " bytes%s",
			 name, o->size, n->size,
			 o->mtime_ns == n->mtime_ns ? "" : ", new mtime");
}

/* The note comparing image o (OLD) with n (NEW) of the same name, or
 * NULL if there is nothing to say. Caller frees. */
static char *image_note(const char *name, const struct imginfo *o,
			const struct imginfo *n)
{
	bool same_size = o->size == n->size;
	bool same_time = o->mtime_ns == n->mtime_ns;
	bool changed = o->content >= 0 ? !o->content : !same_size || !same_time;
	char *a, *b, *s;

	if (o->build_id_len && n->build_id_len &&
	    (o->build_id_len != n->build_id_len ||
	     memcmp(o->build_id, n->build_id, o->build_id_len))) {
		a = hex(o->build_id, o->build_id_len);
		b = hex(n->build_id, n->build_id_len);
		s = xasprintf("'%s': new build-id %s (OLD %s)", name, b, a);
		free(a);
		free(b);
		return s;
	}
	/* kinds are known only from recordings, which compare no content */
	if (o->kind != n->kind && o->kind != MD_IMAGE_UNKNOWN &&
	    n->kind != MD_IMAGE_UNKNOWN)
		changed = true;
	if (!changed)
		return NULL;
	s = not_elf_note(name, o, n);
	if (s)
		return s;
	if (o->build_id_len && n->build_id_len)
		return xasprintf("'%s' changed (size %" PRIu64 " -> %" PRIu64
				 "%s) but kept its build-id: the build-id "
				 "does not tell these builds apart",
				 name, o->size, n->size,
				 same_time ? "" : ", new mtime");
	if (o->content >= 0)
		return xasprintf("'%s' changed (size %" PRIu64 " -> %" PRIu64
				 ") and %s no build-id",
				 name, o->size, n->size,
				 !o->build_id_len && !n->build_id_len
				     ? "has"
				     : "one side has");
	return xasprintf(
	    "'%s' has no build-id on %s side and its size or "
	    "mtime changed (%" PRIu64 " -> %" PRIu64 " bytes): "
	    "it may be another build",
	    name, !o->build_id_len && !n->build_id_len ? "either" : "one",
	    o->size, n->size);
}

static int elf_info(const char *path, struct imginfo *ii);

/* ---- two recordings ---- */

struct imglist {
	struct imginfo *v;
	size_t n, cap;
};

static void imglist_free(struct imglist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].path);
	free(l->v);
}

/* Keep IMAGE record im in l, by path (the last record of a path wins). */
static void imglist_put(struct imglist *l, const struct md_image *im)
{
	struct imginfo *ii = NULL;

	for (size_t i = 0; i < l->n && !ii; i++)
		if (!strcmp(l->v[i].path, im->path))
			ii = &l->v[i];
	if (!ii) {
		xgrow(&l->v, &l->cap, l->n + 1, sizeof(*l->v));
		ii = &l->v[l->n++];
		ii->path = xstrdup(im->path);
	}
	ii->id = im->id;
	ii->build_id_len =
	    MIN(im->build_id_len, (uint32_t)sizeof(im->build_id));
	memcpy(ii->build_id, im->build_id, ii->build_id_len);
	ii->size = im->size;
	ii->mtime_ns = im->mtime_ns;
	ii->content = -1;
	ii->kind = MD_IMAGE_UNKNOWN; /* until its IMAGE_KIND record */
}

/* The images recorded in path, by path (the last record of a path wins),
 * each with the kind of its IMAGE_KIND record. A damaged file yields what
 * could be read. */
static int read_images(const char *path, struct imglist *l)
{
	struct md_reader *r = NULL;
	struct md_record rec;
	int ret = md_reader_open(path, &r);

	if (ret < 0)
		return ret;
	while (md_read_next(r, &rec) > 0) {
		const struct md_image *im = &rec.u.image;

		if (rec.type == MD_REC_IMAGE && im->path && im->path[0])
			imglist_put(l, im);
		/* an ignored one (see md_image_kind_rec) leaves it unknown */
		if (rec.type != MD_REC_IMAGE_KIND || rec.u.image_kind.ignored)
			continue;
		/* the image of that id, if a later one did not replace it */
		for (size_t i = 0; i < l->n; i++)
			if (l->v[i].id == rec.u.image_kind.id)
				l->v[i].kind = rec.u.image_kind.kind;
	}
	md_reader_close(r);
	return 0;
}

static void data_image_notes(const struct diff_opts *o, struct strlist *n)
{
	struct imglist a = {0}, b = {0};

	if (read_images(o->old.path, &a) < 0 ||
	    read_images(o->new.path, &b) < 0)
		goto out;
	for (size_t i = 0; i < a.n; i++)
		for (size_t j = 0; j < b.n; j++) {
			char *s;

			if (strcmp(a.v[i].path, b.v[j].path))
				continue;
			s = image_note(a.v[i].path, &a.v[i], &b.v[j]);
			if (s)
				strlist_add(n, s);
		}
out:
	imglist_free(&a);
	imglist_free(&b);
}

/* Labels of level lvl of the subtree at r, into *out (grown). */
static void level_labels(const struct row *r, size_t lvl, uint32_t **out,
			 size_t *n, size_t *cap)
{
	for (size_t i = 0; i < r->nchildren; i++) {
		if (lvl) {
			level_labels(&r->children[i], lvl - 1, out, n, cap);
			continue;
		}
		xgrow(out, cap, *n + 1, sizeof(**out));
		(*out)[(*n)++] = r->children[i].label;
	}
}

static int id_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Sort ids[0..*n-1] and keep each once: a label under several parents
 * (a process under each kind of --by kinds,pids) is one. */
static void ids_unique(uint32_t *ids, size_t *n)
{
	size_t k = 0;

	if (!*n)
		return;
	qsort(ids, *n, sizeof(*ids), id_cmp);
	for (size_t i = 1; i < *n; i++)
		if (ids[i] != ids[k])
			ids[++k] = ids[i];
	*n = k + 1;
}

/* "PID comm" -> "comm" (the label with no comm: ""). */
/* The command name in a pids label "PID name", where name is a command
 * line or a command name: its first word, up to a space or a ':' (as in
 * "postgres: alice db idle"), without its directory. Into buf (size
 * bytes); "" when the label has no name. */
static const char *comm_of(const struct labels *lb, uint32_t id, char *buf,
			   size_t size)
{
	const char *s = strchr(labels_str(lb, id), ' '), *slash;
	size_t n;

	if (!s)
		return "";
	s++;
	n = strcspn(s, " :");
	while ((slash = memchr(s, '/', n))) {
		n -= (size_t)(slash + 1 - s);
		s = slash + 1;
	}
	snprintf(buf, size, "%.*s", (int)n, s);
	return buf;
}

/* How many of ids[0..n-1] have command name comm. */
static size_t count_comm(const struct labels *lb, const uint32_t *ids, size_t n,
			 const char *comm, uint32_t *which)
{
	char buf[256];
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (!strcmp(comm_of(lb, ids[i], buf, sizeof(buf)), comm)) {
			k++;
			*which = ids[i];
		}
	return k;
}

static bool has_rename(const struct diff_rename *r, size_t n, uint32_t from)
{
	for (size_t i = 0; i < n; i++)
		if (r[i].from == from)
			return true;
	return false;
}

/* Renames that pair a process of OLD with the one of NEW that has the
 * same command name, if that name is unique on both sides. */
static size_t pid_renames(const struct diff_opts *o, const struct rowtree *a,
			  const struct rowtree *b, struct diff_rename **out)
{
	uint32_t *ia = NULL, *ib = NULL;
	size_t na = 0, nb = 0, ca = 0, cb = 0, nr = 0, cap = 0;
	size_t lvl = 0;

	*out = NULL;
	while (lvl < o->nkeys &&
	       !(keydefs[o->keys[lvl]].flags & KEYF_PID_LABEL))
		lvl++;
	if (lvl == o->nkeys)
		return 0;
	level_labels(&a->total, lvl, &ia, &na, &ca);
	level_labels(&b->total, lvl, &ib, &nb, &cb);
	ids_unique(ia, &na);
	ids_unique(ib, &nb);
	for (size_t i = 0; i < na; i++) {
		char buf[256];
		const char *comm = comm_of(a->lb, ia[i], buf, sizeof(buf));
		uint32_t x = 0, y = 0;

		if (!comm[0] || count_comm(a->lb, ia, na, comm, &x) != 1 ||
		    count_comm(b->lb, ib, nb, comm, &y) != 1 || x == y)
			continue;
		/* the same label may be under several parents: once */
		if (has_rename(*out, nr, x))
			continue;
		xgrow(out, &cap, nr + 1, sizeof(**out));
		(*out)[nr++] = (struct diff_rename){x, y, 1ull << lvl, false};
	}
	free(ia);
	free(ib);
	return nr;
}

/* ---- OLD's stale labels of a file paired with NEW's ---- */

/* Whether id is among ids[0..n-1] (sorted by ids_unique()). */
static bool ids_have(const uint32_t *ids, size_t n, uint32_t id)
{
	return n && bsearch(&id, ids, n, sizeof(*ids), id_cmp);
}

/* The labels a file's bytes get (report/attrib.c, imgcheck_label()):
 * PATH while it is the file recorded, else one marking it stale. Which
 * images recorded (path, build-id) are behind each: those recorded at
 * PATH as the file on disk now has it (same build-id: disk 1; another:
 * -1; PATH gone: 2; none of them: 0), those recorded at "PATH (deleted)"
 * (del: mapped after it was replaced). rank: which of OLD's stale labels
 * of a path stands for NEW's when several could: "[changed since
 * recording] PATH" was PATH when OLD was recorded (the footer's build-id
 * note names its build), a deleted one was replaced before. */
enum file_form { FORM_PATH, FORM_CHANGED, FORM_DELETED, FORM_DELSUF, FORM__N };

static const struct {
	const char *pre, *suf;
	int disk;
	bool del;
	int rank;
} forms[FORM__N] = {
    [FORM_PATH] = {"", "", 1, false, 0},
    [FORM_CHANGED] = {"[changed since recording] ", "", -1, false, 2},
    [FORM_DELETED] = {"[deleted] ", "", 2, true, 1},
    [FORM_DELSUF] = {"", " (deleted)", 0, true, 1},
};

/* The form of a stale label and its path (malloc'd, absolute: "[deleted]
 * [heap]" is no file's), or FORM_PATH and NULL. */
static enum file_form stale_form(const char *label, char **path)
{
	size_t n = strlen(label);

	*path = NULL;
	for (int f = FORM_CHANGED; f < FORM__N; f++) {
		size_t a = strlen(forms[f].pre), z = strlen(forms[f].suf);

		if (n <= a + z || strncmp(label, forms[f].pre, a) ||
		    strcmp(label + n - z, forms[f].suf) || label[a] != '/')
			continue;
		*path = xstrndup(label + a, n - a - z);
		return (enum file_form)f;
	}
	return FORM_PATH;
}

/* Whether the image recorded at ipath (build-id id, hex) is behind the
 * label of form f of path p, the file at p now having build-id disk
 * (NULL: no such file). */
static bool form_holds(enum file_form f, const char *ipath, const char *id,
		       const char *p, const char *disk)
{
	size_t n = strlen(p);

	if (!strcmp(ipath, p))
		return forms[f].disk == (!disk ? 2 : strcmp(id, disk) ? -1 : 1);
	return forms[f].del && !strncmp(ipath, p, n) &&
	       !strcmp(ipath + n, " (deleted)");
}

/* What the pairing of a level looks at. */
struct pair_ctx {
	const struct report_result *a, *b; /* OLD, NEW */
	const uint32_t *ia, *ib;	   /* the level's labels, sorted */
	size_t na, nb;
	struct labels *lb;
};

/* 1 if an image of side r behind its label of form f of path p has
 * build-id id (hex), 0 if none has, -1 if one has no build-id (the file
 * at p now has build-id disk: form_holds()). */
static int images_have(const struct report_result *r, enum file_form f,
		       const char *p, const char *disk, const char *id)
{
	int ret = 0;

	for (size_t i = 0; i < r->nimages; i++) {
		const struct out_image *x = &r->images[i];

		if (!form_holds(f, x->path, x->build_id, p, disk))
			continue;
		if (!x->build_id[0])
			return -1;
		if (id && !strcmp(x->build_id, id))
			ret = 1;
	}
	return ret;
}

/* 1 if OLD's label of form fo and NEW's of form fn, both of path p, hold
 * one build (a build-id of both), 0 if not, -1 if unknown (an image of
 * either has no build-id). */
static int same_build(const struct pair_ctx *c, enum file_form fo,
		      enum file_form fn, const char *p, const char *disk)
{
	int ret = images_have(c->b, fn, p, disk, NULL);

	for (size_t i = 0; i < c->a->nimages && ret == 0; i++) {
		const struct out_image *x = &c->a->images[i];

		if (form_holds(fo, x->path, x->build_id, p, disk))
			ret = x->build_id[0]
				  ? images_have(c->b, fn, p, disk, x->build_id)
				  : -1;
	}
	return ret;
}

/* The build-id (hex, malloc'd; "" if none) of the file at p now, or NULL
 * if there is none. */
static char *disk_build(const char *p)
{
	struct imginfo ii = {0};

	if (elf_info(p, &ii) < 0)
		return NULL;
	return hex(ii.build_id, ii.build_id_len);
}

/* NEW's label that OLD's stale label from (form fo, path p) stands for:
 * NEW's stale label of p that still holds OLD's build (a process mapping
 * it since), else NEW's p if OLD has none (one lineage: the file at that
 * path); LABEL_NONE if none or if unsure (no build-id to tell, or two). */
static uint32_t stale_target(const struct pair_ctx *c, enum file_form fo,
			     const char *p)
{
	char *disk = disk_build(p);
	uint32_t to = LABEL_NONE, y;

	for (int f = FORM_CHANGED; f < FORM__N; f++) {
		char *l = xasprintf("%s%s%s", forms[f].pre, p, forms[f].suf);
		int same;

		y = labels_find(c->lb, l);
		free(l);
		if (y == LABEL_NONE || !ids_have(c->ib, c->nb, y))
			continue;
		same = same_build(c, fo, (enum file_form)f, p, disk);
		if (same < 0 || (same && to != LABEL_NONE)) {
			to = LABEL_NONE;
			goto out;
		}
		if (same)
			to = y;
	}
	y = labels_find(c->lb, p);
	if (to == LABEL_NONE && y != LABEL_NONE && ids_have(c->ib, c->nb, y))
		to = y;
out:
	free(disk);
	if (to != LABEL_NONE && ids_have(c->ia, c->na, to))
		return LABEL_NONE; /* OLD has it: its own row */
	return to;
}

/* A pairing of a level under consideration. */
struct pair_cand {
	uint32_t from, to;
	int rank;
};

/* Append to *out (*n renames, room *cap) the candidates cand[0..nc-1] at
 * level lvl that no other of the same target outranks or ties: one row of
 * OLD per row of NEW, whatever the order of the processes recorded. */
static void pair_pick(const struct pair_cand *cand, size_t nc, size_t lvl,
		      struct diff_rename **out, size_t *n, size_t *cap)
{
	for (size_t i = 0; i < nc; i++) {
		bool keep = true;

		for (size_t j = 0; j < nc && keep; j++)
			keep = j == i || cand[j].to != cand[i].to ||
			       cand[j].rank < cand[i].rank;
		if (!keep)
			continue;
		xgrow(out, cap, *n + 1, sizeof(**out));
		(*out)[(*n)++] = (struct diff_rename){cand[i].from, cand[i].to,
						      1ull << lvl, true};
	}
}

/* Renames (appended to *out, *n of them, room *cap) that pair, at the
 * level of each key that labels files by path, OLD's stale label of a
 * file ("[changed since recording] PATH", "[deleted] PATH", "PATH
 * (deleted)": its bytes are unknown, not its path nor its build-id) that
 * NEW has not with the label of NEW holding that build (stale_target()),
 * beside it only (under the same parent). */
static void file_renames(const struct diff_opts *o,
			 const struct report_result *a,
			 const struct report_result *b, struct labels *lb,
			 struct diff_rename **out, size_t *n, size_t *cap)
{
	for (size_t lvl = 0; lvl < o->nkeys && lvl < 64; lvl++) {
		uint32_t *ia = NULL, *ib = NULL;
		size_t na = 0, nb = 0, ca = 0, cb = 0, nc = 0, cc = 0;
		struct pair_cand *cand = NULL;
		struct pair_ctx c = {a, b, NULL, NULL, 0, 0, lb};

		if (!(keydefs[o->keys[lvl]].flags & KEYF_FILE_PATH))
			continue;
		level_labels(&a->t->total, lvl, &ia, &na, &ca);
		level_labels(&b->t->total, lvl, &ib, &nb, &cb);
		ids_unique(ia, &na);
		ids_unique(ib, &nb);
		c.ia = ia, c.na = na, c.ib = ib, c.nb = nb;
		for (size_t i = 0; i < na; i++) {
			char *p;
			enum file_form f =
			    stale_form(labels_str(lb, ia[i]), &p);
			uint32_t y = LABEL_NONE;

			if (p && !ids_have(ib, nb, ia[i]))
				y = stale_target(&c, f, p);
			free(p);
			if (y == LABEL_NONE)
				continue;
			xgrow(&cand, &cc, nc + 1, sizeof(*cand));
			cand[nc++] =
			    (struct pair_cand){ia[i], y, forms[f].rank};
		}
		pair_pick(cand, nc, lvl, out, n, cap);
		free(cand);
		free(ia);
		free(ib);
	}
}

/* "snapshot last", "snapshot #3" ... of side s; caller frees. */
static char *side_name(const struct diff_side *s)
{
	static const char *const picks[] = {
	    [PICK_LAST] = "last", [PICK_FIRST] = "first", [PICK_PEAK] = "peak",
	    [PICK_INDEX] = "#",	  [PICK_ALL] = "all",
	};

	if (s->pick == PICK_INDEX)
		return xasprintf("'%s' snapshot #%" PRIu64, s->path, s->index);
	return xasprintf("'%s' snapshot %s", s->path, picks[s->pick]);
}

/* The footer line saying which snapshots the two sides are. */
static void note_sides(const struct diff_opts *o, struct strlist *notes)
{
	char *so = side_name(&o->old), *sn = side_name(&o->new);

	strlist_addf(notes, "OLD: %s (of each process); NEW: %s", so, sn);
	free(so);
	free(sn);
}

static int data_side(const struct diff_opts *o, const struct diff_side *s,
		     struct labels *lb, struct report_result *res, char **msg)
{
	struct report_opts ro = {
	    .input = s->path,
	    .nkeys = o->nkeys,
	    .pids = o->pids,
	    .npids = o->npids,
	    .pick = s->pick,
	    .index = s->index,
	    .debug_root = o->debug_root,
	    .disasm = o->disasm,
	    .demangle = o->demangle,
	    .filter = o->filter,
	};

	memcpy(ro.keys, o->keys, sizeof(ro.keys));
	return report_build(&ro, lb, res, msg);
}

static int diff_data(const struct diff_opts *o, struct labels *lb,
		     struct diff_result *res, char **msg)
{
	struct report_result a = {0}, b = {0};
	struct diff_rename *rn = NULL;
	size_t nrn = 0, npid = 0, cap;
	char *m = NULL;
	int ret;

	ret = data_side(o, &o->old, lb, &a, &m);
	if (ret < 0) {
		*msg = xasprintf("OLD: %s", m);
		goto out;
	}
	ret = data_side(o, &o->new, lb, &b, &m);
	if (ret < 0) {
		*msg = xasprintf("NEW: %s", m);
		goto out;
	}
	res->have_pss = a.have_pss && b.have_pss;
	res->cgroup_charge = a.cgroup_charge || b.cgroup_charge;
	res->unknown_cols = a.unknown_cols | b.unknown_cols;
	if (strcmp(o->old.path, o->new.path))
		npid = nrn = pid_renames(o, a.t, b.t, &rn);
	cap = nrn;
	file_renames(o, &a, &b, lb, &rn, &nrn, &cap);
	res->d = rowtree_diff(a.t, b.t, rn, nrn);
	note_sides(o, &res->notes);
	merge_notes(&res->notes, &a.notes, &b.notes);
	if (strcmp(o->old.path, o->new.path))
		data_image_notes(o, &res->notes);
	for (size_t i = 0; i < nrn; i++)
		strlist_add(&res->notes,
			    xasprintf("%s '%s' of OLD is compared with "
				      "'%s' of NEW",
				      i < npid ? "process" : "file",
				      labels_str(lb, rn[i].from),
				      labels_str(lb, rn[i].to)));
out:
	free(m);
	free(rn);
	report_result_free(&a);
	report_result_free(&b);
	return ret;
}

/* ---- two ELF files ---- */

static int elf_info(const char *path, struct imginfo *ii)
{
	struct stat st;
	int fd, n;

	fd = open_regular_at(AT_FDCWD, path, &st);
	if (fd < 0)
		return fd;
	ii->size = (uint64_t)st.st_size;
	ii->mtime_ns =
	    (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
	n = elf_build_id_read(fd, ii->build_id, sizeof(ii->build_id));
	ii->build_id_len = n > 0 ? (size_t)n : 0;
	close(fd);
	return 0;
}

/* path opened for reading only if it is a regular file (open_regular_at:
 * elf_info() checked it, but it may be a FIFO by now), or NULL (errno). */
static FILE *fopen_regular(const char *path)
{
	struct stat st;
	int fd = open_regular_at(AT_FDCWD, path, &st);
	FILE *f;

	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	f = fdopen(fd, "rb");
	if (!f) {
		int e = errno;

		close(fd);
		errno = e;
	}
	return f;
}

/* 1 if the files at a and b hold the same bytes, 0 if not, or -errno. */
static int same_content(const char *a, const char *b)
{
	char ba[65536], bb[65536];
	FILE *fa = fopen_regular(a), *fb = fa ? fopen_regular(b) : NULL;
	int ret = 1;

	if (!fa || !fb) {
		ret = -errno;
		goto out;
	}
	for (;;) {
		size_t na = fread(ba, 1, sizeof(ba), fa);
		size_t nb = fread(bb, 1, sizeof(bb), fb);

		if (na != nb || memcmp(ba, bb, na)) {
			ret = 0;
			break;
		}
		if (!na) {
			ret = ferror(fa) || ferror(fb) ? -EIO : 1;
			break;
		}
	}
out:
	if (fa)
		fclose(fa);
	if (fb)
		fclose(fb);
	return ret;
}

static void elf_notes(const struct diff_opts *o, struct strlist *n)
{
	struct imginfo a = {0}, b = {0};
	int same;
	char *s, *name;

	if (elf_info(o->old.path, &a) < 0 || elf_info(o->new.path, &b) < 0)
		return;
	same = same_content(o->old.path, o->new.path);
	if (same < 0)
		return;
	a.content = b.content = same;
	name = strcmp(o->old.path, o->new.path)
		   ? xasprintf("%s' -> '%s", o->old.path, o->new.path)
		   : xstrdup(o->old.path);
	if (same)
		strlist_addf(n, "'%s': the files are identical", name);
	s = image_note(name, &a, &b);
	if (s)
		strlist_add(n, s);
	free(name);
}

static int elf_side(const struct diff_opts *o, const char *path,
		    struct labels *lb, struct rowtree **t,
		    struct strlist *notes, char **msg)
{
	struct elf_map_opts maps = {.debug_root = o->debug_root,
				    .disasm = o->disasm,
				    .demangle = o->demangle};
	int ret;

	*t = rowtree_new(lb, o->nkeys);
	ret = ondisk_add_file(*t, lb, path, o->keys, o->nkeys, &maps, o->filter,
			      notes);
	if (ret < 0)
		*msg = xasprintf("'%s': %s", path, memsz_strerror(ret));
	return ret;
}

static int diff_elf(const struct diff_opts *o, struct labels *lb,
		    struct diff_result *res, char **msg)
{
	struct strlist na = {0}, nb = {0}, sa = {0}, sb = {0};
	struct rowtree *a = NULL, *b = NULL;
	struct diff_rename rn = {0};
	int ret;

	ret = elf_side(o, o->old.path, lb, &a, &na, msg);
	if (ret < 0)
		goto out;
	ret = elf_side(o, o->new.path, lb, &b, &nb, msg);
	if (ret < 0)
		goto out;
	/* ondisk labels the files level with the path as given; only
	 * there is OLD's path NEW's (a symbol may be spelled as a path) */
	rn.from = labels_intern(lb, o->old.path);
	rn.to = labels_intern(lb, o->new.path);
	rn.levels = 0;
	for (size_t i = 0; i < o->nkeys; i++)
		if (keydefs[o->keys[i]].flags & KEYF_FILE_PATH)
			rn.levels |= 1ull << i;
	res->d = rowtree_diff(a, b, &rn, 1);
	strip_path(&sa, &na, o->old.path);
	strip_path(&sb, &nb, o->new.path);
	merge_notes(&res->notes, &sa, &sb);
	elf_notes(o, &res->notes);
out:
	rowtree_free(a);
	rowtree_free(b);
	strlist_free(&na);
	strlist_free(&nb);
	strlist_free(&sa);
	strlist_free(&sb);
	return ret;
}

int diff_build(const struct diff_opts *o, struct labels *lb,
	       struct diff_result *res, char **msg)
{
	int ret;

	*msg = NULL;
	if (o->kind == DIFF_KIND_DATA)
		ret = diff_data(o, lb, res, msg);
	else
		ret = diff_elf(o, lb, res, msg);
	if (!ret && !res->d) {
		*msg = xstrdup("the two sides cannot be merged");
		ret = -EINVAL;
	}
	return ret;
}

void diff_result_free(struct diff_result *res)
{
	rowtree_free(res->d);
	strlist_free(&res->notes);
	memset(res, 0, sizeof(*res));
}
