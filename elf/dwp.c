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
};

/* A unit's image handed to libdw, a buffer of its own: its ELF header
 * and section headers, the name table (NAMES_AT), its contributions read
 * with pread, and a string table of its own made of the strings its
 * .debug_str_offsets.dwo slice names (not the shared .debug_str.dwo: in
 * Chromium-sized packages that is most of the file), that slice rewritten
 * to point into it. */
struct dwp_image {
	unsigned char *buf;
	size_t len, cap;
	uint64_t id; /* of the unit there (dbg set) */
	Elf *elf;
	Dwarf *dbg;
};

/* A compile unit's image and a type unit's it refers to (each valid
 * while the other is used). Nothing else of the .dwp is read: libelf
 * holds its section headers only. */
struct dwp {
	struct elfimg *img;	/* the .dwp, open until dwp_close() */
	struct elf_window strw; /* over .debug_str.dwo */
	bool be;
	uint16_t machine;
	struct {
		uint64_t foff, size; /* in the file */
		bool there;
	} sec[DS__COUNT];
	struct dwp_index ix[IX__COUNT];
	struct dwp_image im[IX__COUNT];
	uint64_t bad;
	int err; /* the .dwp changed while read: -MEMSZ_ETRUNC */
};

/* The name table of every image: the section names, then ".shstrtab". */
#define NAMES_AT IMG_HEAD
#define STRW_CAP (64 * 1024)

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

/* The offset of section d's name in the name table (DS__COUNT:
 * ".shstrtab"), and the table's size: a NUL, then the names one after
 * another. */
static uint32_t name_at(int d)
{
	uint32_t at = 1; /* 0: the empty name */

	for (int i = 0; i < d; i++)
		at += (uint32_t)strlen(dsec_name[i]) + 1;
	return at;
}

static size_t names_len(void)
{
	return name_at(DS__COUNT) + sizeof(".shstrtab");
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

/* Whether two of the sections memsz reads share bytes (no packer makes
 * such a file; a hostile one would have memsz read the same bytes as
 * strings, abbreviations and units at once). */
static bool overlap(const struct dwp *p)
{
	for (int a = 0; a < DS__COUNT; a++)
		for (int b = a + 1; b < DS__COUNT; b++)
			if (p->sec[a].there && p->sec[b].there &&
			    p->sec[a].size && p->sec[b].size &&
			    p->sec[a].foff < p->sec[b].foff + p->sec[b].size &&
			    p->sec[b].foff < p->sec[a].foff + p->sec[a].size)
				return true;
	return false;
}

/* Which of the .dwp's sections memsz reads (the first of each name);
 * -MEMSZ_EDWPZ if one is compressed, -MEMSZ_EDWPNOINFO if it has no
 * .debug_info.dwo. */
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
	return overlap(p) ? -MEMSZ_EDWPOVERLAP : 0;
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

/* Column c of row (0-based) of ix: its section (DS_*, negative if not
 * read), offset and size in it. */
static int cell(const struct dwp *p, const struct dwp_index *ix, uint32_t row,
		uint32_t c, uint64_t *off, uint64_t *size)
{
	uint64_t at = 4ull * ((uint64_t)row * ix->ncols + c);

	*off = get(p, ix->offs + at, 4);
	*size = get(p, ix->sizes + at, 4);
	return ix->cols[c];
}

/* The bytes of row's (0-based) contributions together, or UINT64_MAX if
 * one lies outside its section or they would be more than the file
 * (sections that overlap: a hostile .dwp would have memsz read its bytes
 * many times over). */
static uint64_t row_size(const struct dwp *p, const struct dwp_index *ix,
			 uint32_t row)
{
	uint64_t sum = 0;

	for (uint32_t c = 0; c < ix->ncols; c++) {
		uint64_t off, size;
		int d = cell(p, ix, row, c, &off, &size);

		if (d < 0 || !size)
			continue;
		if (!p->sec[d].there || off > p->sec[d].size ||
		    size > p->sec[d].size - off)
			return UINT64_MAX;
		sum += align8(size);
	}
	return sum > p->img->file_size ? UINT64_MAX : sum;
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
 * checked). */
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
	elf_window_init(&p->strw, p->img, STRW_CAP);
	if (ret < 0) {
		dwp_close(p);
		return ret;
	}
	*out = p;
	return 0;
}

/* Section header n of image im: a section named name (an offset in the
 * name table) of [off, off + size) in it. */
static void put_shdr(struct dwp *p, struct dwp_image *im, size_t n,
		     uint32_t name, uint32_t type, uint64_t off, uint64_t size)
{
	unsigned char *h = im->buf + EHDR_SIZE + n * SHDR_SIZE;

	memset(h, 0, SHDR_SIZE);
	put(h, name, 4, p->be);
	put(h + 4, type, 4, p->be);
	put(h + 24, off, 8, p->be);
	put(h + 32, size, 8, p->be);
	put(h + 48, 1, 8, p->be); /* sh_addralign */
}

/* The ELF header of image im: nsh section headers, the last the name
 * table. */
static void put_ehdr(struct dwp *p, struct dwp_image *im, size_t nsh)
{
	unsigned char *e = im->buf;

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

/* Room for need bytes in im (its contents kept). */
static void image_room(struct dwp_image *im, size_t need)
{
	if (need > im->cap)
		xgrow(&im->buf, &im->cap, need, 1);
}

/* Append the string at offset off of .debug_str.dwo to im (its NUL
 * added if the section ends first): false if off is past the section
 * (a unit naming no string there is unsound, not given ""), the file
 * ends or changed (p->err), or im's strings would pass max bytes. */
static bool add_string(struct dwp *p, struct dwp_image *im, uint64_t off,
		       size_t max, size_t start)
{
	uint64_t size = p->sec[DS_STR].size;

	if (off >= size)
		return false;

	while (off < size) {
		size_t most = (size_t)MIN(size - off, (uint64_t)STRW_CAP);
		size_t n = MIN(most, (size_t)256);
		const unsigned char *b, *z;

		/* a window hit for the short strings most are, wider only
		 * while no NUL is seen */
		for (;;) {
			b = elf_window_get_ahead(
			    &p->strw, p->sec[DS_STR].foff + off, n, STRW_CAP);
			if (!b) {
				p->err = -MEMSZ_ETRUNC;
				return false;
			}
			z = memchr(b, 0, n);
			if (z || n == most)
				break;
			n = MIN(most, n * 4);
		}
		n = z ? (size_t)(z - b) : n;
		if (n > max - (im->len - start))
			return false;
		image_room(im, im->len + n);
		memcpy(im->buf + im->len, b, n);
		im->len += n;
		if (z)
			break;
		off += n;
	}
	if (im->len - start >= max)
		return false;
	image_room(im, im->len + 1);
	im->buf[im->len++] = 0;
	return true;
}

struct stroff_ent {
	uint64_t off;
	size_t at; /* of the entry in the image */
};

static int stroff_cmp(const void *a, const void *b)
{
	const struct stroff_ent *x = a, *y = b;

	return x->off != y->off ? u64_cmp(x->off, y->off)
				: u64_cmp(x->at, y->at);
}

/* The unit's own string table, appended to im: each entry of its
 * .debug_str_offsets.dwo slice (at so, size bytes in im; a DWARF 5
 * header first with index version 5) read from .debug_str.dwo in offset
 * order and rewritten to its string's place in the table. Its size, or
 * SIZE_MAX if the slice is unsound (an offset past .debug_str.dwo),
 * the file changed, or the strings would be more than .debug_str.dwo and
 * a NUL per entry (offsets that overlap). */
static size_t unit_strings(struct dwp *p, int version, struct dwp_image *im,
			   size_t so, uint64_t size)
{
	size_t hdr = 0, esz = 4, n, start = im->len, max;
	struct stroff_ent *e;
	bool ok = true;

	if (version == 5 && size >= 8)
		hdr = get(p, im->buf + so, 4) == 0xffffffffu ? 16 : 8;
	if (hdr == 16)
		esz = 8;
	if ((version == 5 && (!hdr || size < hdr)) || (size - hdr) % esz)
		return SIZE_MAX;
	n = (size_t)((size - hdr) / esz);
	max = (size_t)MIN(p->sec[DS_STR].size + n + 1, (uint64_t)SIZE_MAX / 2);
	e = xmalloc((n ? n : 1) * sizeof(*e));
	for (size_t i = 0; i < n; i++) {
		e[i].at = so + hdr + i * esz;
		e[i].off = get(p, im->buf + e[i].at, esz);
	}
	if (n > 1)
		qsort(e, n, sizeof(*e), stroff_cmp);
	for (size_t i = 0; ok && i < n; i++) {
		uint64_t here = im->len - start;

		if (i && e[i].off == e[i - 1].off)
			here = get(p, im->buf + e[i - 1].at, esz);
		else
			ok = add_string(p, im, e[i].off, max, start);
		put(im->buf + e[i].at, here, esz, p->be);
	}
	free(e);
	return ok && !elfimg_changed(p->img) ? im->len - start : SIZE_MAX;
}

/* Build row's (0-based) image of index which in im: the ELF and section
 * headers, the name table, the row's contributions read with pread and
 * the unit's strings: the section header count, or 0 if the row is
 * refused (row_size(), unit_strings()) or the file changed (p->err). */
static size_t put_row(struct dwp *p, int which, uint32_t row)
{
	const struct dwp_index *ix = &p->ix[which];
	struct dwp_image *im = &p->im[which];
	size_t n = 1, so = 0, at = NAMES_AT, strs;
	uint64_t total = row_size(p, ix, row), sosize = 0;

	if (total == UINT64_MAX)
		return 0;
	im->len = 0;
	image_room(im, align8(NAMES_AT + names_len()) + (size_t)total);
	memset(im->buf, 0, NAMES_AT + 1);
	at++;
	for (int d = 0; d < DS__COUNT; d++) {
		memcpy(im->buf + at, dsec_name[d], strlen(dsec_name[d]) + 1);
		at += strlen(dsec_name[d]) + 1;
	}
	memcpy(im->buf + at, ".shstrtab", sizeof(".shstrtab"));
	at = align8(NAMES_AT + names_len());
	for (uint32_t c = 0; c < ix->ncols; c++) {
		uint64_t off, size;
		int d = cell(p, ix, row, c, &off, &size);

		if (d < 0 || !size)
			continue;
		if (!read_at(p, im->buf + at, p->sec[d].foff + off, size)) {
			p->err = -MEMSZ_ETRUNC;
			return 0;
		}
		put_shdr(p, im, n++, name_at(d), SHT_PROGBITS, at, size);
		if (d == DS_STROFF) {
			so = at;
			sosize = size;
		}
		at += align8(size);
	}
	im->len = at;
	if (sosize && p->sec[DS_STR].there) {
		strs = unit_strings(p, ix->version, im, so, sosize);
		if (strs == SIZE_MAX)
			return 0;
		put_shdr(p, im, n++, name_at(DS_STR), SHT_PROGBITS, at, strs);
	}
	put_shdr(p, im, n++, name_at(DS__COUNT), SHT_STRTAB, NAMES_AT,
		 names_len());
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

bool dwp_has_unit(const struct dwp *p, uint64_t id)
{
	return p->ix[IX_CU].version && find_row(&p->ix[IX_CU], id);
}

int dwp_version(const struct dwp *p)
{
	return p->ix[IX_CU].version;
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
	im->elf = elf_memory((char *)im->buf, im->len);
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
		free(p->im[i].buf);
		if (ix->raw)
			xfree_huge(ix->raw, ix->raw_len ? ix->raw_len : 1);
		free(ix->ids);
	}
	elf_window_free(&p->strw);
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

/* A skeleton unit of DWARF version skver that the package has no unit
 * for: counted, with why if the package tells (binutils' dwp packs no
 * DWARF 5 unit, and where it cannot read a unit's id writes 0). */
static void absent(struct dwp_ctx *dc, Dwarf_Half skver)
{
	dc->absent++;
	if (dwp_has_unit(dc->p, 0))
		dc->absent_why = DWP_ABSENT_ID0;
	else if (skver >= 5 && dwp_version(dc->p) == 2 &&
		 dc->absent_why != DWP_ABSENT_ID0)
		dc->absent_why = DWP_ABSENT_V5;
}

bool dwp_split_die(struct dwp_ctx *dc, Dwarf_CU *cu, Dwarf_Die *cudie,
		   Dwarf_Die *sub)
{
	Dwarf_CU *scu = NULL;
	Dwarf *dbg;
	uint64_t id, sid;
	uint8_t type, asize;
	Dwarf_Half version, skver;
	int r;

	dc->in_unit = false;
	dc->in_dwo = false;
	if (dwarf_cu_info(cu, NULL, NULL, NULL, NULL, &id, &asize, NULL) == 0 &&
	    dwp_own_dwo(dc, cudie, id, sub)) {
		dc->addr_base = addr_base(cudie);
		dc->addr_size = asize;
		dc->in_unit = dc->in_dwo = true;
		return true;
	}
	if (!dc->tried) {
		dc->tried = true;
		if (!ctx_open(dc, dc->img->path) && dc->dimg != dc->img)
			ctx_open(dc, dc->dimg->path);
	}
	if (!dc->p ||
	    dwarf_cu_info(cu, &skver, NULL, NULL, NULL, &id, &asize, NULL) != 0)
		return false;
	r = dwp_unit(dc->p, id, &dbg);
	if (r == -ENOENT)
		absent(dc, skver);
	if (r != 0)
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

	if ((!dc->in_unit || !dc->p) && !dc->in_dwo)
		return false;
	if (dwarf_whatform(a) != DW_FORM_ref_sig8 || !a->valp)
		return false;
	/* read before the image a lies in may be replaced */
	sig = elf_get_uint(a->valp, 8,
			   dc->in_dwo ? dc->dimg->big_endian : dc->p->be);
	if (dc->in_dwo) {
		/* libdw 0.188 does not find a .dwo's own type units */
		char *path = NULL;
		bool ok;

		dbg = dwarf_cu_getdwarf(a->cu);
		/* a .dwo libdw read (not one memsz joined): its file */
		if (dbg && !dwo_sigs_listed(&dc->dwo_sigs, dbg) &&
		    dbg != dc->own.dbg && dc->skel.addr)
			path = dwp_libdw_dwo(dc);
		ok = dbg && dwo_type_die(&dc->dwo_sigs, dbg, path, sig, out);
		free(path);
		if (ok)
			return true;
		dc->sig8_missing++;
		return false;
	}
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
		stats->dwp_absent = dc->absent;
		stats->dwp_absent_why = dc->absent_why;
		stats->dwp_bad = dc->mismatched + (dc->p ? dwp_bad(dc->p) : 0);
		stats->dwp_err = dc->err ? dc->err : dc->p ? dwp_err(dc->p) : 0;
		memcpy(stats->dwp_path, dc->path, sizeof(dc->path));
	}
	if (stats) {
		stats->dwo_joined = dc->dwo_sigs.joined_n;
		stats->dwo_unjoined = dc->dwo_sigs.unjoined;
		stats->dwo_unjoined_why = dc->dwo_sigs.why;
		stats->dwo_unjoined_sec = dc->dwo_sigs.why_sec;
	}
	dwp_close(dc->p);
	dc->p = NULL;
	dwo_sigs_free(&dc->dwo_sigs);
	dwo_image_end(&dc->own);
	free(dc->debugdir);
	dc->debugdir = NULL;
	dc->debugdir_done = false;
}
