// SPDX-License-Identifier: GPL-2.0-or-later
/* dwp.c — split units from a DWARF package file (.dwp); see dwp.h. */
#include "config.h"

#include "elf/dwp.h"
#include "elf/elfpriv.h"
#include "util/util.h"

#include <dwarf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The sections of a .dwp memsz reads, by what they hold. */
enum dsec {
	DS_INFO,
	DS_TYPES,
	DS_ABBREV,
	DS_LINE,
	DS_LOC,
	DS_LOCLISTS,
	DS_STROFF,
	DS_MACINFO,
	DS_MACRO,
	DS_RNGLISTS,
	DS_STR, /* shared by every unit: not in the index */
	DS_INDEX,
	DS_TUINDEX,
	DS__COUNT
};

static const char *const dsec_name[DS__COUNT] = {
    [DS_INFO] = ".debug_info.dwo",
    [DS_TYPES] = ".debug_types.dwo",
    [DS_ABBREV] = ".debug_abbrev.dwo",
    [DS_LINE] = ".debug_line.dwo",
    [DS_LOC] = ".debug_loc.dwo",
    [DS_LOCLISTS] = ".debug_loclists.dwo",
    [DS_STROFF] = ".debug_str_offsets.dwo",
    [DS_MACINFO] = ".debug_macinfo.dwo",
    [DS_MACRO] = ".debug_macro.dwo",
    [DS_RNGLISTS] = ".debug_rnglists.dwo",
    [DS_STR] = ".debug_str.dwo",
    [DS_INDEX] = ".debug_cu_index",
    [DS_TUINDEX] = ".debug_tu_index",
};

/* The index's column ids (DW_SECT_*) and the section each names: DWARF 5
 * (version 5; 2 is reserved) and GNU's version 2 (DWARF 4). -1: none. */
#define SECT_MAX 8
static const int sect_v5[SECT_MAX + 1] = {-1,	     DS_INFO,  -1,
					  DS_ABBREV, DS_LINE,  DS_LOCLISTS,
					  DS_STROFF, DS_MACRO, DS_RNGLISTS};
static const int sect_v2[SECT_MAX + 1] = {-1,	     DS_INFO,	 DS_TYPES,
					  DS_ABBREV, DS_LINE,	 DS_LOC,
					  DS_STROFF, DS_MACINFO, DS_MACRO};

/* The ELF header and section headers of a unit's image (ELFCLASS64, the
 * .dwp's byte order): one section header for the null section, each
 * column, .debug_str.dwo and the name table. */
#define EHDR_SIZE 64
#define SHDR_SIZE 64
#define SHDR_MAX (1 + SECT_MAX + 2)
#define IMG_HEAD (EHDR_SIZE + SHDR_MAX * SHDR_SIZE)

struct dwp_id {
	uint64_t id;
	uint32_t row; /* 1-based */
};

/* The two indexes: the compile units' and the type units'. */
enum { IX_CU, IX_TU, IX__COUNT };

/* An index (.debug_cu_index or .debug_tu_index), read and checked. */
struct dwp_index {
	unsigned char *raw;
	uint64_t raw_len;
	int version;			   /* 2 or 5; 0: not there or refused */
	const unsigned char *offs, *sizes; /* its rows */
	uint32_t ncols, nunits;
	int cols[SECT_MAX]; /* column -> enum dsec (-1: skipped) */
	struct dwp_id *ids; /* sorted, each id once */
	size_t nids;
	size_t umax; /* the largest row's bytes */
};

/* A unit's image in buf: its ELF header and section headers at base, its
 * contributions from uoff on; what libdw made of it. */
struct dwp_image {
	size_t base, uoff;
	uint64_t id; /* of the unit there (dbg set) */
	Elf *elf;
	Dwarf *dbg;
};

/* buf, two images handed to libdw (a compile unit's and a type unit's it
 * refers to, each valid while the other is used): the compile unit's ELF
 * and section headers at 0, the type unit's after them, the name table
 * (at stroff), .debug_str.dwo (at sec[DS_STR].off, read once: shared by
 * every unit), and the compile unit's then the type unit's
 * contributions, read with pread for each unit (room for the largest
 * row of each index). Nothing else of the .dwp is read: libelf holds its
 * section headers only. */
struct dwp {
	struct elfimg *img; /* the .dwp, open until dwp_close() */
	unsigned char *buf;
	size_t len, stroff;
	uint32_t name_off[DS__COUNT]; /* of each name in the name table */
	uint32_t shstr_name;
	bool be;
	uint16_t machine;
	struct {
		uint64_t foff, size; /* in the file */
		uint64_t off;	     /* in buf (DS_STR) */
		bool there;
	} sec[DS__COUNT];
	struct dwp_index ix[IX__COUNT];
	struct dwp_image im[IX__COUNT];
	uint64_t bad;
	int err; /* the .dwp changed while read: -MEMSZ_ETRUNC */
};

static void put(unsigned char *p, uint64_t v, size_t n, bool be)
{
	for (size_t i = 0; i < n; i++)
		p[be ? n - 1 - i : i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get(const struct dwp *p, const unsigned char *at, size_t n)
{
	return elf_get_uint(at, n, p->be);
}

static uint64_t align8(uint64_t v)
{
	return (v + 7) & ~(uint64_t)7;
}

/* len bytes of the .dwp at file offset off into dst: false if the file
 * ends before or changed since it was opened. */
static bool read_at(struct dwp *p, unsigned char *dst, uint64_t off,
		    uint64_t len)
{
	const struct elfimg_priv *priv = p->img->priv;
	uint64_t got = 0;

	while (got < len) {
		ssize_t n = pread(priv->fd, dst + got, (size_t)(len - got),
				  (off_t)(off + got));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		got += (uint64_t)n;
	}
	return !elfimg_changed(p->img);
}

/* Which of the .dwp's sections memsz reads (the first of each name), and
 * where the name table and .debug_str.dwo go in buf; -MEMSZ_EDWPZ if one
 * is compressed, -MEMSZ_EDWPNOINFO if it has no .debug_info.dwo. */
static int layout(struct dwp *p, const struct elfimg *img)
{
	for (size_t i = 1; i < img->nsecs; i++) {
		const struct elf_section *s = &img->secs[i];

		if (!strncmp(s->name, ".zdebug_", 8))
			return -MEMSZ_EDWPZ;
		for (int d = 0; d < DS__COUNT; d++) {
			if (strcmp(s->name, dsec_name[d]) || p->sec[d].there ||
			    s->type == SHT_NOBITS)
				continue;
			if (s->flags & SHF_COMPRESSED)
				return -MEMSZ_EDWPZ;
			/* each within the file (elfimg_open() checked) */
			p->sec[d].there = true;
			p->sec[d].foff = s->offset;
			p->sec[d].size = s->size;
		}
	}
	if (!p->sec[DS_INDEX].there)
		return -MEMSZ_EBADDWP;
	if (!p->sec[DS_INFO].there)
		return -MEMSZ_EDWPNOINFO;
	p->im[IX_TU].base = IMG_HEAD;
	p->stroff = 2 * IMG_HEAD;
	p->sec[DS_STR].off = p->stroff + 1 + sizeof(".shstrtab");
	for (int d = 0; d < DS__COUNT; d++)
		p->sec[DS_STR].off += strlen(dsec_name[d]) + 1;
	p->sec[DS_STR].off = align8(p->sec[DS_STR].off);
	return 0;
}

/* The name table and .debug_str.dwo read into buf, with room after for
 * each index's largest row (read_index() found them). */
static int fill(struct dwp *p)
{
	size_t at = p->stroff + 1;

	p->im[IX_CU].uoff = align8(p->sec[DS_STR].off + p->sec[DS_STR].size);
	p->im[IX_TU].uoff = p->im[IX_CU].uoff + p->ix[IX_CU].umax;
	p->len = p->im[IX_TU].uoff + p->ix[IX_TU].umax;
	p->buf = try_malloc_huge(p->len);
	if (!p->buf)
		return -ENOMEM;
	memset(p->buf, 0, p->im[IX_CU].uoff);
	for (int d = 0; d < DS__COUNT; d++) {
		p->name_off[d] = (uint32_t)(at - p->stroff);
		memcpy(p->buf + at, dsec_name[d], strlen(dsec_name[d]) + 1);
		at += strlen(dsec_name[d]) + 1;
	}
	p->shstr_name = (uint32_t)(at - p->stroff);
	memcpy(p->buf + at, ".shstrtab", sizeof(".shstrtab"));
	if (p->sec[DS_STR].there &&
	    !read_at(p, p->buf + p->sec[DS_STR].off, p->sec[DS_STR].foff,
		     p->sec[DS_STR].size))
		return -MEMSZ_ETRUNC;
	return 0;
}

static int id_cmp(const void *a, const void *b)
{
	const struct dwp_id *x = a, *y = b;

	if (x->id != y->id)
		return u64_cmp(x->id, y->id);
	return u64_cmp(x->row, y->row);
}

/* The ids of the index's slots (its hash table, then its parallel table,
 * at t), sorted; a slot naming a row past the units, and an id in two
 * slots, refused (p->bad). */
static void read_ids(struct dwp *p, struct dwp_index *ix,
		     const unsigned char *t, uint32_t nslots)
{
	size_t n = 0, o = 0;

	ix->ids = xmalloc((nslots ? nslots : 1) * sizeof(*ix->ids));
	for (uint32_t s = 0; s < nslots; s++) {
		uint32_t row =
		    (uint32_t)get(p, t + 8ull * nslots + 4ull * s, 4);

		if (!row)
			continue;
		if (row > ix->nunits) {
			p->bad++;
			continue;
		}
		ix->ids[n].id = get(p, t + 8ull * s, 8);
		ix->ids[n++].row = row;
	}
	if (n > 1)
		qsort(ix->ids, n, sizeof(*ix->ids), id_cmp);
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;

		while (j < n && ix->ids[j].id == ix->ids[i].id)
			j++;
		if (j - i == 1)
			ix->ids[o++] = ix->ids[i];
		else
			p->bad += j - i;
		i = j;
	}
	ix->nids = o;
}

/* The bytes of row's (0-based) contributions together, or UINT64_MAX if
 * one lies outside its section or they and .debug_str.dwo would be more
 * than the file (sections that overlap: a hostile .dwp would have memsz
 * read its bytes many times over). */
static uint64_t row_size(const struct dwp *p, const struct dwp_index *ix,
			 uint32_t row)
{
	uint64_t sum = p->sec[DS_STR].size;

	for (uint32_t c = 0; c < ix->ncols; c++) {
		uint64_t cell = 4ull * ((uint64_t)row * ix->ncols + c);
		uint64_t off = get(p, ix->offs + cell, 4);
		uint64_t size = get(p, ix->sizes + cell, 4);
		int d = ix->cols[c];

		if (d < 0 || !size)
			continue;
		if (!p->sec[d].there || off > p->sec[d].size ||
		    size > p->sec[d].size - off)
			return UINT64_MAX;
		sum += align8(size);
	}
	return sum > p->img->file_size ? UINT64_MAX : sum - p->sec[DS_STR].size;
}

/* The index's header and columns (see dwp.h's bounds): its version, or
 * a negative code. The compile units' needs DW_SECT_INFO; the type
 * units' DW_SECT_INFO (version 5) or DW_SECT_TYPES (2). */
static int parse_head(struct dwp *p, struct dwp_index *ix, int which,
		      uint32_t *nslots)
{
	const unsigned char *t = ix->raw;
	const int *map;
	bool seen[SECT_MAX + 1] = {false};
	int v, need;

	if (ix->raw_len < 16)
		return -MEMSZ_EBADDWP;
	if (get(p, t, 4) == 2)
		v = 2;
	else if (get(p, t, 2) == 5 && get(p, t + 2, 2) == 0)
		v = 5;
	else
		return -MEMSZ_EBADDWP;
	map = v == 5 ? sect_v5 : sect_v2;
	ix->ncols = (uint32_t)get(p, t + 4, 4);
	ix->nunits = (uint32_t)get(p, t + 8, 4);
	*nslots = (uint32_t)get(p, t + 12, 4);
	if (!ix->ncols || ix->ncols > SECT_MAX || ix->nunits > *nslots)
		return -MEMSZ_EBADDWP;
	/* no overflow: each count is below 2^32 */
	if (16 + 12ull * *nslots + 4ull * ix->ncols * (2ull * ix->nunits + 1) >
	    ix->raw_len)
		return -MEMSZ_EBADDWP;
	for (uint32_t c = 0; c < ix->ncols; c++) {
		uint64_t id = get(p, t + 16 + 12ull * *nslots + 4 * c, 4);

		if (!id || id > SECT_MAX || map[id] < 0 || seen[id])
			return -MEMSZ_EBADDWP;
		seen[id] = true;
		/* type units are read through the type units' index */
		ix->cols[c] =
		    map[id] == DS_TYPES && which == IX_CU ? -1 : map[id];
	}
	need = which == IX_TU && v == 2 ? 2 : 1;
	if (!seen[need])
		return which == IX_CU ? -MEMSZ_EDWPNOINFO : -MEMSZ_EBADDWP;
	return v;
}

/* Read and parse index which (at most the file's size: elfimg_open()
 * checked); ix->umax, the largest row's bytes. */
static int read_index(struct dwp *p, int which)
{
	struct dwp_index *ix = &p->ix[which];
	int d = which == IX_CU ? DS_INDEX : DS_TUINDEX;
	uint32_t nslots;
	int v;

	ix->raw_len = p->sec[d].size;
	ix->raw = try_malloc_huge(ix->raw_len ? ix->raw_len : 1);
	if (!ix->raw)
		return -ENOMEM;
	if (!read_at(p, ix->raw, p->sec[d].foff, ix->raw_len))
		return -MEMSZ_ETRUNC;
	v = parse_head(p, ix, which, &nslots);
	if (v < 0)
		return v;
	ix->offs = ix->raw + 16 + 12ull * nslots + 4ull * ix->ncols;
	ix->sizes = ix->offs + 4ull * ix->ncols * ix->nunits;
	read_ids(p, ix, ix->raw + 16, nslots);
	for (uint32_t r = 0; r < ix->nunits; r++) {
		uint64_t n = row_size(p, ix, r);

		if (n != UINT64_MAX && n > ix->umax)
			ix->umax = (size_t)n;
	}
	ix->version = v;
	return 0;
}

int dwp_open(const char *path, struct dwp **out)
{
	struct dwp *p;
	struct stat st;
	int ret;

	*out = NULL;
	/* a FIFO or device there is never opened (elf_file_open()) */
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return -MEMSZ_ENOTREG;
	p = xcalloc(1, sizeof(*p));
	ret = elfimg_open(path, &p->img);
	if (ret < 0) {
		free(p);
		return ret;
	}
	p->be = p->img->big_endian;
	p->machine = p->img->machine;
	ret = layout(p, p->img);
	if (!ret)
		ret = read_index(p, IX_CU);
	/* type units (DW_FORM_ref_sig8) are optional: a refused index of
	 * them leaves their types unsized, counted by the caller */
	if (!ret && p->sec[DS_TUINDEX].there && read_index(p, IX_TU) < 0)
		p->ix[IX_TU].version = 0;
	if (!ret)
		ret = fill(p);
	if (ret < 0) {
		dwp_close(p);
		return ret;
	}
	*out = p;
	return 0;
}

/* Section header n of image im: a section named name_off of [off, off +
 * size) in buf. */
static void put_shdr(struct dwp *p, const struct dwp_image *im, size_t n,
		     uint32_t name_off, uint32_t type, uint64_t off,
		     uint64_t size)
{
	unsigned char *h = p->buf + im->base + EHDR_SIZE + n * SHDR_SIZE;

	memset(h, 0, SHDR_SIZE);
	put(h, name_off, 4, p->be);
	put(h + 4, type, 4, p->be);
	put(h + 24, off - im->base, 8, p->be);
	put(h + 32, size, 8, p->be);
	put(h + 48, 1, 8, p->be); /* sh_addralign */
}

/* The ELF header of image im: nsh section headers, the last the name
 * table. */
static void put_ehdr(struct dwp *p, const struct dwp_image *im, size_t nsh)
{
	unsigned char *e = p->buf + im->base;

	memset(e, 0, EHDR_SIZE);
	memcpy(e, ELFMAG, SELFMAG);
	e[EI_CLASS] = ELFCLASS64;
	e[EI_DATA] = p->be ? ELFDATA2MSB : ELFDATA2LSB;
	e[EI_VERSION] = EV_CURRENT;
	put(e + 16, ET_REL, 2, p->be);
	put(e + 18, p->machine, 2, p->be);
	put(e + 20, EV_CURRENT, 4, p->be);
	put(e + 40, EHDR_SIZE, 8, p->be);
	put(e + 52, EHDR_SIZE, 2, p->be);
	put(e + 58, SHDR_SIZE, 2, p->be);
	put(e + 60, nsh, 2, p->be);
	put(e + 62, nsh - 1, 2, p->be);
}

/* Read row's (0-based) contributions of index which into its image, with
 * section headers for them, .debug_str.dwo and the name table: their
 * count, or 0 if the row is refused (row_size()) or the file changed
 * (p->err). */
static size_t put_row(struct dwp *p, int which, uint32_t row)
{
	const struct dwp_index *ix = &p->ix[which];
	const struct dwp_image *im = &p->im[which];
	size_t n = 1;
	uint64_t at = im->uoff;

	if (row_size(p, ix, row) > ix->umax)
		return 0;
	memset(p->buf + im->base + EHDR_SIZE, 0, SHDR_SIZE);
	for (uint32_t c = 0; c < ix->ncols; c++) {
		uint64_t cell = 4ull * ((uint64_t)row * ix->ncols + c);
		uint64_t off = get(p, ix->offs + cell, 4);
		uint64_t size = get(p, ix->sizes + cell, 4);
		int d = ix->cols[c];

		if (d < 0 || !size)
			continue;
		if (!read_at(p, p->buf + at, p->sec[d].foff + off, size)) {
			p->err = -MEMSZ_ETRUNC;
			return 0;
		}
		put_shdr(p, im, n++, p->name_off[d], SHT_PROGBITS, at, size);
		at += align8(size);
	}
	if (p->sec[DS_STR].there)
		put_shdr(p, im, n++, p->name_off[DS_STR], SHT_PROGBITS,
			 p->sec[DS_STR].off, p->sec[DS_STR].size);
	put_shdr(p, im, n++, p->shstr_name, SHT_STRTAB, p->stroff,
		 p->sec[DS_STR].off - p->stroff);
	return n;
}

static void image_end(struct dwp_image *im)
{
	if (im->dbg)
		dwarf_end(im->dbg);
	if (im->elf)
		elf_end(im->elf);
	im->dbg = NULL;
	im->elf = NULL;
}

/* The row of id in ix (1-based), or 0 if it has none. */
static uint32_t find_row(const struct dwp_index *ix, uint64_t id)
{
	size_t lo = 0, hi = ix->nids;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ix->ids[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < ix->nids && ix->ids[lo].id == id ? ix->ids[lo].row : 0;
}

/* The unit of id in index which as a Dwarf of its own (dwp_unit()). */
static int open_unit(struct dwp *p, int which, uint64_t id, Dwarf **dbg)
{
	struct dwp_image *im = &p->im[which];
	uint32_t row;
	size_t nsh;

	*dbg = NULL;
	if (im->dbg && im->id == id) {
		*dbg = im->dbg;
		return 0;
	}
	image_end(im);
	if (p->err)
		return p->err;
	row = p->ix[which].version ? find_row(&p->ix[which], id) : 0;
	if (!row)
		return -ENOENT;
	nsh = put_row(p, which, row - 1);
	if (p->err)
		return p->err;
	if (!nsh) {
		p->bad++;
		return -MEMSZ_EBADDWP;
	}
	put_ehdr(p, im, nsh);
	im->elf = elf_memory((char *)p->buf + im->base, p->len - im->base);
	im->dbg = im->elf ? dwarf_begin_elf(im->elf, DWARF_C_READ, NULL) : NULL;
	if (!im->dbg) {
		p->bad++;
		image_end(im);
		return -MEMSZ_EBADDWP;
	}
	im->id = id;
	*dbg = im->dbg;
	return 0;
}

int dwp_unit(struct dwp *p, uint64_t id, Dwarf **dbg)
{
	/* the type unit image read for the last compile unit is let go */
	image_end(&p->im[IX_TU]);
	return open_unit(p, IX_CU, id, dbg);
}

int dwp_type_unit(struct dwp *p, uint64_t sig, Dwarf **dbg, int *version)
{
	*version = p->ix[IX_TU].version;
	return open_unit(p, IX_TU, sig, dbg);
}

bool dwp_id(const struct dwp *p, bool types, size_t i, uint64_t *id)
{
	const struct dwp_index *ix = &p->ix[types ? IX_TU : IX_CU];

	if (!ix->version || i >= ix->nids)
		return false;
	*id = ix->ids[i].id;
	return true;
}

int dwp_err(const struct dwp *p)
{
	return p->err;
}

uint64_t dwp_bad(const struct dwp *p)
{
	return p->bad;
}

void dwp_close(struct dwp *p)
{
	if (!p)
		return;
	for (int i = 0; i < IX__COUNT; i++) {
		struct dwp_index *ix = &p->ix[i];

		image_end(&p->im[i]);
		if (ix->raw)
			xfree_huge(ix->raw, ix->raw_len ? ix->raw_len : 1);
		free(ix->ids);
	}
	xfree_huge(p->buf, p->len);
	elfimg_close(p->img);
	free(p);
}

/* Open the .dwp at base + ".dwp": true if there is one (dc->err says if
 * it was refused). */
static bool ctx_open(struct dwp_ctx *dc, const char *base)
{
	int r;

	if (snprintf(dc->path, sizeof(dc->path), "%s.dwp", base) >=
	    (int)sizeof(dc->path)) {
		dc->path[0] = 0;
		return false;
	}
	r = dwp_open(dc->path, &dc->p);
	if (r == -ENOENT || r == -ENOTDIR) {
		dc->path[0] = 0;
		return false;
	}
	dc->err = r;
	return true;
}

/* The skeleton's DW_AT_addr_base (DW_AT_GNU_addr_base in DWARF 4), or 0. */
static uint64_t addr_base(Dwarf_Die *cudie)
{
	Dwarf_Attribute a;
	Dwarf_Word v;

	if ((dwarf_attr(cudie, DW_AT_addr_base, &a) ||
	     dwarf_attr(cudie, DW_AT_GNU_addr_base, &a)) &&
	    dwarf_formudata(&a, &v) == 0)
		return v;
	return 0;
}

bool dwp_split_die(struct dwp_ctx *dc, Dwarf_CU *cu, Dwarf_Die *cudie,
		   Dwarf_Die *sub)
{
	Dwarf_CU *scu = NULL;
	Dwarf *dbg;
	uint64_t id, sid;
	uint8_t type, asize;
	Dwarf_Half version;

	dc->in_unit = false;
	if (!dc->tried) {
		dc->tried = true;
		if (!ctx_open(dc, dc->img->path) && dc->dimg != dc->img)
			ctx_open(dc, dc->dimg->path);
	}
	if (!dc->p ||
	    dwarf_cu_info(cu, NULL, NULL, NULL, NULL, &id, &asize, NULL) != 0 ||
	    dwp_unit(dc->p, id, &dbg) != 0)
		return false;
	/* the unit the row names must be a split compile unit of that id */
	if (dwarf_get_units(dbg, NULL, &scu, &version, &type, sub, NULL) != 0 ||
	    (type != DW_UT_split_compile && type != DW_UT_compile) ||
	    dwarf_tag(sub) != DW_TAG_compile_unit ||
	    dwarf_cu_info(scu, NULL, NULL, NULL, NULL, &sid, NULL, NULL) != 0 ||
	    sid != id) {
		dc->mismatched++;
		return false;
	}
	dc->addr_base = addr_base(cudie);
	dc->addr_size = asize;
	dc->in_unit = true;
	dc->units++;
	return true;
}

/* The type DIE of the type unit of signature sig in dbg (a type unit's
 * image): version 5's in .debug_info.dwo, GNU's (2) in .debug_types.dwo. */
static bool type_die(Dwarf *dbg, int version, uint64_t sig, Dwarf_Die *out)
{
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie;
	Dwarf_Half v;
	uint8_t type;
	uint64_t s, toff;
	Dwarf_Off next;
	size_t hsize;

	if (version == 2)
		return dwarf_next_unit(dbg, 0, &next, &hsize, NULL, NULL, NULL,
				       NULL, &s, &toff) == 0 &&
		       s == sig && dwarf_offdie_types(dbg, toff, out) != NULL;
	if (dwarf_get_units(dbg, NULL, &cu, &v, &type, &cudie, out) != 0 ||
	    (type != DW_UT_split_type && type != DW_UT_type) ||
	    dwarf_cu_info(cu, NULL, NULL, NULL, NULL, &s, NULL, NULL) != 0)
		return false;
	return s == sig && out->addr != NULL;
}

bool dwp_type_die(struct dwp_ctx *dc, Dwarf_Attribute *a, Dwarf_Die *out)
{
	Dwarf *dbg;
	uint64_t sig;
	int version;

	if (!dc->in_unit || !dc->p || dwarf_whatform(a) != DW_FORM_ref_sig8 ||
	    !a->valp)
		return false;
	/* read before the image a lies in may be replaced */
	sig = elf_get_uint(a->valp, 8, dc->p->be);
	if (dwp_type_unit(dc->p, sig, &dbg, &version) != 0 ||
	    !type_die(dbg, version, sig, out)) {
		dc->sig8_missing++;
		return false;
	}
	return true;
}

bool dwp_addrx(const struct dwp_ctx *dc, uint64_t idx, Dwarf_Addr *addr)
{
	uint64_t n = dc->addr_size, off;

	if (!dc->addr || (n != 4 && n != 8) || idx > dc->addr_len / n ||
	    dc->addr_base > dc->addr_len)
		return false;
	off = dc->addr_base + idx * n;
	if (off > dc->addr_len || dc->addr_len - off < n)
		return false;
	*addr = elf_get_uint(dc->addr + off, n, dc->dimg->big_endian);
	return true;
}

void dwp_ctx_end(struct dwp_ctx *dc, struct elfsrc_stats *stats)
{
	if (stats) {
		stats->split_dwp = dc->units;
		stats->dwp_bad = dc->mismatched + (dc->p ? dwp_bad(dc->p) : 0);
		stats->dwp_err = dc->err ? dc->err : dc->p ? dwp_err(dc->p) : 0;
		memcpy(stats->dwp_path, dc->path, sizeof(dc->path));
	}
	dwp_close(dc->p);
	dc->p = NULL;
}
