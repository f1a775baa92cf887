// SPDX-License-Identifier: GPL-2.0-or-later
/* pprof.c — see pprof.h */
#include "config.h"

#include "rows/pprof.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "rows/profile.pb-c.h"
#include "util/escape.h"
#include "util/hashmap.h"
#include "util/util.h"

/* A u64 -> id map whose ids are 1, 2, 3... in order of first put (the
 * ids of pprof's functions, locations and mappings): key i has id i + 1. */
struct idmap {
	uint64_t *keys;
	size_t n, cap;
	struct hashmap index; /* of keys */
};

static void idmap_free(struct idmap *m)
{
	free(m->keys);
	hashmap_free(&m->index);
}

/* Id of key, or 0 if it has none; p is left ready for idmap_put(). */
static uint64_t idmap_find(const struct idmap *m, uint64_t key,
			   struct hashmap_probe *p)
{
	uint32_t i;

	for (i = hashmap_first(&m->index, hashmap_hash_u64(key), p);
	     i != HASHMAP_NONE; i = hashmap_next(&m->index, p))
		if (m->keys[i] == key)
			return (uint64_t)i + 1;
	return 0;
}

static uint64_t idmap_get(const struct idmap *m, uint64_t key)
{
	struct hashmap_probe p;

	return idmap_find(m, key, &p);
}

/* Give key, which has no id yet, the next one (m->n + 1 == id). */
static void idmap_put(struct idmap *m, uint64_t key, uint64_t id)
{
	struct hashmap_probe p;

	if (idmap_find(m, key, &p) || id != m->n + 1)
		abort(); /* ids are handed out in order, once */
	xgrow(&m->keys, &m->cap, m->n + 1, sizeof(*m->keys));
	m->keys[m->n] = key;
	hashmap_put(&m->index, &p, (uint32_t)m->n++);
}

/* What a level of the key path is, by the key's name. */
enum level_kind {
	LVL_PLAIN,   /* one location, and a string label */
	LVL_FILES,   /* also the mapping of the locations below */
	LVL_PIDS,    /* also "pid" and "comm" labels */
	LVL_CALLERS, /* a call stack, outermost first joined by ';' */
};

struct ppf_sample {
	size_t loc0, nloc; /* in pw.locids */
	size_t val0;	   /* in pw.vals, ncols of them */
	size_t lab0, nlab; /* in pw.labels */
};

struct pw {
	const struct rowtree *t;
	const struct out_opts *o;
	enum level_kind *kinds; /* per level */
	int64_t *lvl_file;	/* per level: file it is in (string) */
	uint64_t *lvl_map;	/* per level: its mapping, or 0 */
	struct labels *strs;	/* the string table; "" is 0 */
	struct idmap fn_ids, loc_ids, map_ids;
	Perftools__Profiles__Function *fns;
	size_t nfns, fncap;
	Perftools__Profiles__Location *locs;
	Perftools__Profiles__Line *lines; /* one per location */
	size_t nlocs, loccap, linecap;
	Perftools__Profiles__Mapping *maps;
	size_t nmaps, mapcap;
	Perftools__Profiles__Label *labels;
	size_t nlabels, labcap;
	uint64_t *locids;
	size_t nlocids, locidcap;
	int64_t *vals;
	size_t nvals, valcap;
	uint64_t acc[COL__COUNT]; /* per column: the leaves' sum so far
				     (out_whole_next) */
	struct ppf_sample *samples;
	size_t nsamples, samplecap;
	bool again; /* a sample left out what another one counts */
};

/* The profile's comment when a sample left out what another counts. */
static const char again_comment[] =
    "FILE SIZE and VM SIZE count a file (a range of it) several processes "
    "map once, as the TOTAL does: in the sample of the first process "
    "memsz charged that maps it; the other processes' samples carry 0 of "
    "it, so that pprof's sums are memsz's (a file's FILE SIZE its size on "
    "disk; with the mappings key, the ranges of it that are mapped, each "
    "once); the other columns are every process's own";

/* s with each backslash doubled, malloc'd, or NULL if s has none. */
static char *double_backslashes(const char *s)
{
	size_t n = 0;
	char *out, *q;

	for (const char *p = s; *p; p++)
		n += *p == '\\';
	if (!n)
		return NULL;
	q = out = xmalloc(strlen(s) + n + 1);
	for (const char *p = s; *p; p++)
		if ((*q++ = *p) == '\\')
			*q++ = '\\';
	*q = 0;
	return out;
}

/* The id of string s in the profile's string table, s escaped as the
 * text formats show it (util/escape.h): names are others' choice, pprof
 * prints them as stored, and profile.proto's strings must be UTF-8.
 * A backslash of s is doubled first, so that two names stay two
 * strings: a file named x<ESC>y is x\x1by, one named that text x\\x1by
 * (the table shows both as the first, but as two rows; pprof's
 * functions, locations and mappings are found by their strings and
 * would add up the two). Names without a backslash read as in the
 * table. */
static int64_t str_id(struct pw *w, const char *s)
{
	char *dbl = double_backslashes(s);
	char *esc = str_escape(dbl ? dbl : s, NULL);
	int64_t id = (int64_t)labels_intern(w->strs, esc);

	free(esc);
	free(dbl);
	return id;
}

static int64_t str_id_n(struct pw *w, const char *s, size_t n)
{
	char *part = xstrndup(s, n);
	int64_t id = str_id(w, part);

	free(part);
	return id;
}

/* The build-id of the image at path, "" if not known. */
static const char *build_id_of(const struct out_opts *o, const char *path)
{
	for (size_t i = 0; i < o->nimages; i++)
		if (o->images[i].path && !strcmp(o->images[i].path, path))
			return o->images[i].build_id ? o->images[i].build_id
						     : "";
	return "";
}

/* Mapping id of the image at path (made on first sight). */
static uint64_t mapping_of(struct pw *w, const char *path)
{
	int64_t file = str_id(w, path);
	uint64_t id = idmap_get(&w->map_ids, (uint64_t)file);
	Perftools__Profiles__Mapping *m;

	if (id)
		return id;
	xgrow(&w->maps, &w->mapcap, w->nmaps + 1, sizeof(*w->maps));
	m = &w->maps[w->nmaps++];
	perftools__profiles__mapping__init(m);
	m->id = w->nmaps;
	m->filename = file;
	m->build_id = str_id(w, build_id_of(w->o, path));
	/* names are memsz's: pprof must not look for the file's symbols */
	m->has_functions = true;
	idmap_put(&w->map_ids, (uint64_t)file, m->id);
	return m->id;
}

/* Whether path names a shared library: pprof's own test ("x.so",
 * "x.so.6", "x.so_1") for which mapping is not the main binary. */
static bool is_library(const char *path)
{
	const char *p = path;

	while ((p = strstr(p, ".so"))) {
		p += 3;
		if (!*p ||
		    ((*p == '.' || *p == '_') && p[1] >= '0' && p[1] <= '9'))
			return true;
	}
	return false;
}

/* Make the main binary mapping 1, as pprof wants it: the first image
 * recorded that is no library (the kernel maps a process's executable
 * before its libraries; size's first file). None without images. */
static void main_mapping(struct pw *w)
{
	const struct out_opts *o = w->o;

	for (size_t i = 0; i < o->nimages; i++) {
		const char *path = o->images[i].path;

		if (path && path[0] && path[0] != '[' && !is_library(path)) {
			mapping_of(w, path);
			return;
		}
	}
}

static uint64_t function_of(struct pw *w, int64_t name, int64_t file)
{
	uint64_t key = (uint64_t)name << 32 | (uint64_t)file;
	uint64_t id = idmap_get(&w->fn_ids, key);
	Perftools__Profiles__Function *fn;

	if (id)
		return id;
	xgrow(&w->fns, &w->fncap, w->nfns + 1, sizeof(*w->fns));
	fn = &w->fns[w->nfns++];
	perftools__profiles__function__init(fn);
	fn->id = w->nfns;
	fn->name = name;
	fn->system_name = name;
	fn->filename = file;
	idmap_put(&w->fn_ids, key, fn->id);
	return fn->id;
}

/* Append to the current sample the location of function name (a string
 * id) in file (string id, 0: none) and mapping (0: none). */
static void push_location(struct pw *w, int64_t name, int64_t file,
			  uint64_t mapping)
{
	uint64_t fn = function_of(w, name, file);
	uint64_t key = fn << 32 | mapping;
	uint64_t id = idmap_get(&w->loc_ids, key);

	if (!id) {
		Perftools__Profiles__Location *l;

		xgrow(&w->locs, &w->loccap, w->nlocs + 1, sizeof(*w->locs));
		xgrow(&w->lines, &w->linecap, w->nlocs + 1, sizeof(*w->lines));
		l = &w->locs[w->nlocs];
		perftools__profiles__location__init(l);
		perftools__profiles__line__init(&w->lines[w->nlocs]);
		w->lines[w->nlocs].function_id = fn;
		w->nlocs++;
		l->id = id = w->nlocs;
		l->mapping_id = mapping;
		idmap_put(&w->loc_ids, key, id);
	}
	xgrow(&w->locids, &w->locidcap, w->nlocids + 1, sizeof(*w->locids));
	w->locids[w->nlocids++] = id;
}

static void push_label(struct pw *w, const char *key, int64_t str, int64_t num)
{
	Perftools__Profiles__Label *l;

	xgrow(&w->labels, &w->labcap, w->nlabels + 1, sizeof(*w->labels));
	l = &w->labels[w->nlabels++];
	perftools__profiles__label__init(l);
	l->key = str_id(w, key);
	l->str = str;
	l->num = num;
}

/* The labels of a "pids" level label "PID NAME": "pid" (a number),
 * "comm" (its command name) and "cmdline" (its whole command line), the
 * two from the recording's snapshots of that process, else NAME. */
static void push_pid_labels(struct pw *w, const char *s)
{
	const struct out_opts *o = w->o;
	const char *comm = NULL, *cmd = NULL;
	char *end;
	unsigned long pid = strtoul(s, &end, 10);

	if (end == s)
		return;
	push_label(w, "pid", 0, (int64_t)pid);
	for (size_t i = 0; i < o->nsnaps && !comm; i++)
		if (o->snaps[i].pid == pid) {
			comm = o->snaps[i].comm;
			cmd = o->snaps[i].cmdline;
		}
	if (!comm || !comm[0])
		comm = *end == ' ' ? end + 1 : NULL;
	if (comm)
		push_label(w, "comm", str_id(w, comm), 0);
	if (cmd && cmd[0])
		push_label(w, "cmdline", str_id(w, cmd), 0);
}

/* The labels of a "callers" level label, frames outermost first joined
 * by ';': "callers" (the whole stack, for -tagfocus=callers=REGEX) and
 * "frame" (the innermost frame, where the page was touched). */
static void push_callers_labels(struct pw *w, const char *lab)
{
	const char *leaf = strrchr(lab, ';');

	push_label(w, "callers", str_id(w, lab), 0);
	push_label(w, "frame", str_id(w, leaf ? leaf + 1 : lab), 0);
}

/* One sample for leaf, whose path (outermost first) is rows[0..n-1]. */
static void add_sample(struct pw *w, const struct row *const *rows, size_t n,
		       const struct row *leaf)
{
	const struct out_opts *o = w->o;
	struct ppf_sample *s;
	int64_t file = 0, *files = w->lvl_file;
	uint64_t mapping = 0, *maps = w->lvl_map;
	size_t lv;

	xgrow(&w->samples, &w->samplecap, w->nsamples + 1, sizeof(*w->samples));
	s = &w->samples[w->nsamples++];
	s->loc0 = w->nlocids;
	s->lab0 = w->nlabels;
	/* a level below a "files" level is inside that file */
	for (lv = 0; lv < n; lv++) {
		files[lv] = file;
		maps[lv] = mapping;
		if (w->kinds[lv] == LVL_FILES) {
			file = str_id(w, labels_str(w->t->lb, rows[lv]->label));
			mapping = mapping_of(
			    w, labels_str(w->t->lb, rows[lv]->label));
		}
	}
	/* leaf first: the innermost level, then its parents */
	for (lv = n; lv-- > 0;) {
		const char *lab = labels_str(w->t->lb, rows[lv]->label);
		const char *end;

		if (w->kinds[lv] != LVL_CALLERS) {
			push_location(w, str_id(w, lab), files[lv], maps[lv]);
			push_label(w, o->keys[lv], str_id(w, lab), 0);
			if (w->kinds[lv] == LVL_PIDS)
				push_pid_labels(w, lab);
			continue;
		}
		push_callers_labels(w, lab);
		/* frames outermost first: push them from the end */
		end = lab + strlen(lab);
		while (end > lab) {
			const char *p = end;

			while (p > lab && p[-1] != ';')
				p--;
			if (end > p)
				push_location(w, str_id_n(w, p, end - p), 0, 0);
			end = p > lab ? p - 1 : p;
		}
	}
	s->nloc = w->nlocids - s->loc0;
	s->nlab = w->nlabels - s->lab0;
	s->val0 = w->nvals;
	xgrow(&w->vals, &w->valcap, w->nvals + o->ncols, sizeof(*w->vals));
	/* whole bytes whose sum is the TOTAL's (PSS is fixed point), a
	 * file (a range of it) that an earlier process maps too left out
	 * of FILE SIZE and VM SIZE, as the TOTAL leaves it out */
	for (size_t c = 0; c < o->ncols; c++) {
		enum col_id col = o->cols[c];
		uint64_t once = row_once(leaf, col);
		uint64_t v =
		    out_whole_next(&w->acc[col], once, coldefs[col].shift);

		w->again |= once != leaf->vals[col];
		w->vals[w->nvals++] = (int64_t)v;
	}
}

static void walk(struct pw *w, const struct row *r, const struct row **rows,
		 size_t level)
{
	for (size_t i = 0; i < r->nchildren; i++) {
		rows[level] = &r->children[i];
		if (r->children[i].nchildren)
			walk(w, &r->children[i], rows, level + 1);
		else
			add_sample(w, rows, level + 1, rows[level]);
	}
}

/* Deflate buf[0..len) in gzip format to f. */
static int gzip_write(FILE *f, const uint8_t *buf, size_t len)
{
	uint8_t out[65536];
	z_stream z;
	int zr, ret = 0;

	memset(&z, 0, sizeof(z));
	/* windowBits 15 + 16: a gzip header and trailer (mtime 0) */
	if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
	    Z_OK)
		return -ENOMEM;
	z.next_in = (uint8_t *)buf;
	z.avail_in = (uInt)len;
	do {
		z.next_out = out;
		z.avail_out = sizeof(out);
		zr = deflate(&z, Z_FINISH);
		if (zr == Z_STREAM_ERROR) {
			ret = -EIO;
			break;
		}
		if (fwrite(out, 1, sizeof(out) - z.avail_out, f) !=
		    sizeof(out) - z.avail_out) {
			ret = errno ? -errno : -EIO;
			break;
		}
	} while (zr != Z_STREAM_END);
	deflateEnd(&z);
	return ret;
}

static void pw_free(struct pw *w)
{
	idmap_free(&w->fn_ids);
	idmap_free(&w->loc_ids);
	idmap_free(&w->map_ids);
	free(w->fns);
	free(w->locs);
	free(w->lines);
	free(w->maps);
	free(w->labels);
	free(w->locids);
	free(w->vals);
	free(w->samples);
	free(w->kinds);
	free(w->lvl_file);
	free(w->lvl_map);
	labels_free(w->strs);
}

/* Pointer arrays of n elements of size elem at base (caller frees). */
static void **ptrs(void *base, size_t n, size_t elem)
{
	void **p = xcalloc(n + 1, sizeof(*p));

	for (size_t i = 0; i < n; i++)
		p[i] = (char *)base + i * elem;
	return p;
}

/* p's sample types, one per column in vt[0..ncols-1], and its default:
 * the --sort column, else (--fields left it out) the first, as folded
 * prints it; none named, pprof would show the last. */
static void sample_types(struct pw *w, Perftools__Profiles__Profile *p,
			 Perftools__Profiles__ValueType *vt)
{
	const struct out_opts *o = w->o;

	p->n_sample_type = o->ncols;
	p->sample_type =
	    (Perftools__Profiles__ValueType **)ptrs(vt, o->ncols, sizeof(*vt));
	for (size_t i = 0; i < o->ncols; i++) {
		perftools__profiles__value_type__init(&vt[i]);
		vt[i].type = str_id(w, coldefs[o->cols[i]].key);
		vt[i].unit =
		    str_id(w, coldefs[o->cols[i]].count ? "count" : "bytes");
		if (o->cols[i] == o->sort)
			p->default_sample_type = vt[i].type;
	}
	if (!p->default_sample_type && o->ncols)
		p->default_sample_type = vt[0].type;
}

/* Pack what w collected into a Profile and write it gzipped to f. */
static int pw_emit(FILE *f, struct pw *w)
{
	const struct out_opts *o = w->o;
	Perftools__Profiles__Profile p = PERFTOOLS__PROFILES__PROFILE__INIT;
	Perftools__Profiles__ValueType *vt = xcalloc(o->ncols + 1, sizeof(*vt));
	Perftools__Profiles__Sample *sm = xcalloc(w->nsamples + 1, sizeof(*sm));
	Perftools__Profiles__Line **linep =
	    xcalloc(w->nlocs + 1, sizeof(*linep));
	size_t i, len;
	uint8_t *buf;
	int ret;

	sample_types(w, &p, vt);
	p.comment = xcalloc(o->nnotes + 2, sizeof(*p.comment));
	for (i = 0; i < o->nnotes; i++)
		p.comment[p.n_comment++] = str_id(w, o->notes[i]);
	if (w->again)
		p.comment[p.n_comment++] = str_id(w, again_comment);

	p.n_sample = w->nsamples;
	p.sample =
	    (Perftools__Profiles__Sample **)ptrs(sm, w->nsamples, sizeof(*sm));
	for (i = 0; i < w->nsamples; i++) {
		const struct ppf_sample *s = &w->samples[i];

		perftools__profiles__sample__init(&sm[i]);
		sm[i].n_location_id = s->nloc;
		sm[i].location_id = w->locids + s->loc0;
		sm[i].n_value = o->ncols;
		sm[i].value = w->vals + s->val0;
		sm[i].n_label = s->nlab;
		sm[i].label = (Perftools__Profiles__Label **)ptrs(
		    w->labels + s->lab0, s->nlab, sizeof(*w->labels));
	}
	p.n_mapping = w->nmaps;
	p.mapping = (Perftools__Profiles__Mapping **)ptrs(w->maps, w->nmaps,
							  sizeof(*w->maps));
	p.n_location = w->nlocs;
	p.location = (Perftools__Profiles__Location **)ptrs(w->locs, w->nlocs,
							    sizeof(*w->locs));
	for (i = 0; i < w->nlocs; i++) {
		linep[i] = &w->lines[i];
		w->locs[i].n_line = 1;
		w->locs[i].line = &linep[i];
	}
	p.n_function = w->nfns;
	p.function = (Perftools__Profiles__Function **)ptrs(w->fns, w->nfns,
							    sizeof(*w->fns));
	/* the string table last: everything above interned into it */
	p.n_string_table = labels_count(w->strs);
	p.string_table = xcalloc(p.n_string_table + 1, sizeof(char *));
	for (i = 0; i < p.n_string_table; i++)
		p.string_table[i] = (char *)labels_str(w->strs, (uint32_t)i);

	len = perftools__profiles__profile__get_packed_size(&p);
	buf = xmalloc(len ? len : 1);
	perftools__profiles__profile__pack(&p, buf);
	ret = gzip_write(f, buf, len);

	free(buf);
	free(p.string_table);
	free(p.function);
	free(p.location);
	free(p.mapping);
	for (i = 0; i < w->nsamples; i++)
		free(sm[i].label);
	free(p.sample);
	free(p.comment);
	free(p.sample_type);
	free(linep);
	free(sm);
	free(vt);
	return ret;
}

int pprof_write(FILE *f, const struct rowtree *t, const struct out_opts *o)
{
	struct pw w = {.t = t, .o = o};
	const struct row **rows;
	int ret;

	w.strs = labels_new();
	/* its strings are labels (LABEL_STR_MAX at most): none cut again,
	 * which would cut a block's #N off */
	labels_set_len_max(w.strs, LABEL_STR_MAX);
	labels_intern(w.strs, ""); /* string_table[0] must be "" */
	w.kinds = xcalloc(t->depth + 1, sizeof(*w.kinds));
	w.lvl_file = xcalloc(t->depth + 1, sizeof(*w.lvl_file));
	w.lvl_map = xcalloc(t->depth + 1, sizeof(*w.lvl_map));
	for (size_t i = 0; i < t->depth; i++) {
		const char *k = o->keys && o->keys[i] ? o->keys[i] : "";

		w.kinds[i] = !strcmp(k, "callers") ? LVL_CALLERS
			     : !strcmp(k, "files") ? LVL_FILES
			     : !strcmp(k, "pids")  ? LVL_PIDS
						   : LVL_PLAIN;
	}
	main_mapping(&w);
	rows = xcalloc(t->depth + 1, sizeof(*rows));
	if (t->depth)
		walk(&w, &t->total, rows, 0);
	else
		add_sample(&w, rows, 0, &t->total);
	ret = pw_emit(f, &w);
	free(rows);
	pw_free(&w);
	return ret;
}
