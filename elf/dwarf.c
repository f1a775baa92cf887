// SPDX-License-Identifier: GPL-2.0-or-later
/* dwarf.c — compileunits and inlines from DWARF (libdw); see dwarf.h. */
#include "config.h"

#include "elf/dwarf.h"
#include "elf/dwtype.h"
#include "elf/dwaranges.h"
#include "elf/dwarfscan.h"
#include "elf/dwp.h"
#include "elf/dwstrings.h"
#include "elf/elfpriv.h"
#include "util/util.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An allocated section of the image: [start, end) in VM. */
struct asec {
	uint64_t start, end;
};

struct dctx {
	struct elfimg *img;  /* the image being labelled */
	struct elfimg *dimg; /* where the DWARF is: img or img->debug */
	Dwarf *dbg;
	struct labels *lb;
	struct dualmap *base, *out;
	struct elfsrc_stats *st;
	struct asec *secs; /* SHF_ALLOC sections of img, by address */
	size_t nsecs;
	/* CU DIE offset -> label, in .debug_info order (for aranges) */
	struct dwcuent *cus;
	size_t ncus, cucap;
	const char *comp_dir; /* of the current CU (inlines), or NULL */
	struct asec *cur;     /* ranges of the current CU (inlines) */
	size_t ncur, curcap;
	/* compileunits: the scan of units' DIEs (scan.info NULL: none,
	 * libdw walks them) and the offsets of the variables it found */
	struct dwscan scan;
	struct elf_dwalt alt; /* the dwz file handed to libdw, if any */
	uint64_t *vars;
	size_t nvars, varcap;
	/* compileunits: dwarf_srclang() of the current unit's DIE, if
	 * lang_known (read by dwarfscan: libdw would read the unit's whole
	 * abbreviation table for it, GCC numbering the unit DIE's last) */
	int lang;
	bool lang_known;
	struct dwp_ctx dwp; /* split units from FILE.dwp */
};

static int asec_cmp(const void *a, const void *b)
{
	const struct asec *x = a, *y = b;

	if (x->start != y->start)
		return u64_cmp(x->start, y->start);
	return u64_cmp(x->end, y->end);
}

/* The allocated sections of img that hold bytes at run time (not .tbss). */
static void collect_secs(struct dctx *c)
{
	struct elfimg *img = c->img;
	size_t cap = 0;

	for (size_t i = 1; i < img->nsecs; i++) {
		struct elf_section *s = &img->secs[i];

		if (!(s->flags & SHF_ALLOC) || !s->size ||
		    s->addr + s->size < s->addr)
			continue;
		if (s->type == SHT_NOBITS && (s->flags & SHF_TLS))
			continue;
		xgrow(&c->secs, &cap, c->nsecs + 1, sizeof(*c->secs));
		c->secs[c->nsecs].start = s->addr;
		c->secs[c->nsecs].end = s->addr + s->size;
		c->nsecs++;
	}
	if (c->nsecs)
		qsort(c->secs, c->nsecs, sizeof(*c->secs), asec_cmp);
}

/* Index of the first section whose end is > addr (nsecs if none). */
static size_t sec_find(const struct dctx *c, uint64_t addr)
{
	size_t lo = 0, hi = c->nsecs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->secs[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Label VM [start, end) with label where allocated sections are; the file
 * bytes follow through the base map. */
static void add_range(struct dctx *c, uint64_t start, uint64_t end,
		      uint32_t label)
{
	size_t i;

	/* 0 and 1 are what linkers leave for code they discarded */
	if (start < 2)
		return;
	i = sec_find(c, start);

	for (; i < c->nsecs && start < end; i++) {
		uint64_t s = c->secs[i].start, e = c->secs[i].end;

		if (e <= start)
			continue;
		if (s >= end)
			break;
		if (s > start)
			start = s;
		dualmap_add_vm(c->out, c->base, start,
			       (e < end ? e : end) - start, label);
		start = e;
	}
}

/* The label of a unit named name (NULL: none) whose DW_AT_comp_dir is
 * dir (NULL: none), its DIE at dieoff. */
static uint32_t name_label(struct dctx *c, const char *name, const char *dir,
			   uint64_t dieoff)
{
	char buf[64];

	if (name && name[0]) {
		/* the name as the unit stores it (Bloaty's label): joined to
		 * a build directory it names a path that often exists only
		 * on the build machine. The joined path is the label's
		 * alias (json's aliases, csv's aliases column). */
		uint32_t id = labels_intern(c->lb, name);

		/* not for a name (or directory) over LABEL_LEN_MAX, from a
		 * hostile file: the label is cut, and the path would be
		 * gigabytes copied to be cut too */
		if (dir && dir[0] && name[0] != '/' &&
		    strnlen(name, LABEL_LEN_MAX + 1) <= LABEL_LEN_MAX &&
		    strnlen(dir, LABEL_LEN_MAX + 1) <= LABEL_LEN_MAX) {
			char *path = path_norm(dir, name);

			if (strcmp(path, name))
				labels_add_alias(c->lb, id, path);
			free(path);
		}
		return id;
	}
	snprintf(buf, sizeof(buf), "<unnamed unit at .debug_info+0x%llx>",
		 (unsigned long long)dieoff);
	return labels_intern(c->lb, buf);
}

static uint32_t cu_label(struct dctx *c, Dwarf_Die *cudie, Dwarf_Die *sub)
{
	const char *name = dwarf_diename(cudie), *dir = NULL;
	Dwarf_Attribute a;

	if (!name && sub)
		name = dwarf_diename(sub);
	if (!name)
		name = dwarf_formstring(dwarf_attr(cudie, DW_AT_dwo_name, &a));
	if (!name)
		name =
		    dwarf_formstring(dwarf_attr(cudie, DW_AT_GNU_dwo_name, &a));
	if (name && name[0])
		dir = dwarf_formstring(
		    dwarf_attr_integrate(cudie, DW_AT_comp_dir, &a));
	return name_label(c, name, dir, dwarf_dieoffset(cudie));
}

/* --- file bytes of .debug_info and .debug_line (DWARF in img only) --- */

struct rawsec {
	const struct elf_section *sec;
	const uint8_t *buf; /* raw bytes; NULL: not charged per unit */
	uint64_t size;
};

static void rawsec_open(struct dctx *c, const char *name, struct rawsec *r)
{
	Elf_Data *d;
	Elf_Scn *scn;

	memset(r, 0, sizeof(*r));
	if (c->dimg != c->img)
		return;
	r->sec = elf_section_named(c->img, name);
	if (!r->sec || r->sec->type == SHT_NOBITS ||
	    (r->sec->flags & SHF_COMPRESSED))
		return;
	scn = elf_getscn(elfimg_elf(c->img), r->sec - c->img->secs);
	/* elf_rawdata: the bytes as in the file, even if libdw has
	 * decompressed a copy for itself */
	d = scn ? elf_rawdata(scn, NULL) : NULL;
	if (!d || !d->d_buf || d->d_size != r->sec->size)
		return;
	r->buf = d->d_buf;
	r->size = d->d_size;
}

/* Charge the unit starting at off in r (initial length + contents) to
 * label, in the image's file space. */
static void charge_unit(struct dctx *c, const struct rawsec *r, uint64_t off,
			uint32_t label)
{
	/* initial length: 4 bytes, or DWARF64_LENGTH and 8 bytes */
	const uint64_t len32 = 4, len64 = 4 + 8;
	uint64_t len, hdr = len32;

	if (!r->buf || off >= r->size || r->size - off < len32)
		return;
	len = elf_get_uint(r->buf + off, 4, c->img->big_endian);
	if (len == DWARF64_LENGTH) {
		if (r->size - off < len64)
			return;
		len = elf_get_uint(r->buf + off + 4, 8, c->img->big_endian);
		hdr = len64;
	} else if (len >= DWARF_LENGTH_RESERVED) {
		return;
	}
	if (len > r->size - off - hdr)
		len = r->size - off - hdr;
	rmap_add(c->out->file, r->sec->offset + off, hdr + len, label);
}

/* --- compileunits --- */

static bool var_addr(struct dctx *c, Dwarf_Die *die, Dwarf_Addr *addr)
{
	Dwarf_Attribute a, res;
	Dwarf_Op *ops;
	size_t nops;

	if (!dwarf_attr(die, DW_AT_location, &a))
		return false;
	if (dwarf_getlocation(&a, &ops, &nops) != 0 || nops != 1)
		return false;
	if (ops[0].atom == DW_OP_addr) {
		*addr = ops[0].number;
		return true;
	}
	/* a unit from a .dwp is not linked to its skeleton in libdw: its
	 * .debug_addr is read by dwp_addrx() */
	if (ops[0].atom == DW_OP_addrx || ops[0].atom == DW_OP_GNU_addr_index)
		return c->dwp.in_unit
			   ? dwp_addrx(&c->dwp, ops[0].number, addr)
			   : dwarf_getlocation_attr(&a, ops, &res) == 0 &&
				 dwarf_formaddr(&res, addr) == 0;
	return false;
}

/* The variable die's [address, + its type's size) to label: its type may
 * be in the dwz file (elf_dwarf_type_size()). */
static void add_variable(struct dctx *c, Dwarf_Die *die, uint32_t label)
{
	Dwarf_Attribute ta;
	Dwarf_Die type, cu;
	Dwarf_Word size;
	Dwarf_Addr addr;
	/* a split unit: its types may be in its type units */
	struct dwp_ctx *dc = c->dwp.in_unit || c->dwp.in_dwo ? &c->dwp : NULL;
	uint64_t missing = c->dwp.sig8_missing;

	int lang;

	if (!var_addr(c, die, &addr) ||
	    !dwarf_attr_integrate(die, DW_AT_type, &ta) ||
	    (!c->lang_known && !dwarf_diecu(die, &cu, NULL, NULL)))
		return;
	lang = c->lang_known ? c->lang : dwarf_srclang(&cu);
	if (!elf_dwarf_ref_die(&ta, &type, dc) ||
	    elf_dwarf_type_size(&type, lang, &size, 0, dc) != 0 || !size) {
		if (c->dwp.sig8_missing != missing && c->st) {
			if (c->dwp.in_unit && !c->dwp.in_dwo)
				c->st->dwp_types_missing++;
			else
				c->st->dwo_types_missing++;
		}
		return;
	}
	if (addr + size < addr)
		return;
	add_range(c, addr, addr + size, label);
}

/* Variables with a static address anywhere below die (functions, blocks,
 * namespaces; not inside types). depth bounds hostile nesting. */
static void walk_vars(struct dctx *c, Dwarf_Die *parent, uint32_t label,
		      int depth)
{
	Dwarf_Die die;
	int r;

	if (depth > DWARF_MAX_DIE_DEPTH || dwarf_child(parent, &die) != 0)
		return;
	do {
		switch (dwarf_tag(&die)) {
		case DW_TAG_variable:
			add_variable(c, &die, label);
			break;
		case DW_TAG_subprogram:
		case DW_TAG_lexical_block:
		case DW_TAG_inlined_subroutine:
		case DW_TAG_namespace:
		case DW_TAG_module:
			if (dwarf_haschildren(&die))
				walk_vars(c, &die, label, depth + 1);
			break;
		default:
			break;
		}
	} while ((r = dwarf_siblingof(&die, &die)) == 0);
	if (r < 0 && c->st)
		c->st->dwarf_errors++;
}

/* The unit of cudie (cu) as dwarfscan reads it, if its DIE is in the
 * bytes the scan was given (those libdw reads) and its header is sound. */
static bool scan_unit(struct dctx *c, Dwarf_CU *cu, Dwarf_Die *cudie,
		      struct dwunit *u)
{
	uint64_t hdr = dwarf_dieoffset(cudie) - dwarf_cuoffset(cudie);
	const uint8_t *info = c->scan.info;
	uint64_t len, lensize = 4;
	Dwarf_Half version;
	Dwarf_Off abbrev;
	uint8_t asize, osize;
	Dwarf_Die d;

	u->die_off = dwarf_dieoffset(cudie);
	if (!dwarf_cu_die(cu, &d, &version, &abbrev, &asize, &osize, NULL,
			  NULL) ||
	    (const uint8_t *)cudie->addr != info + u->die_off ||
	    hdr > u->die_off || hdr >= c->scan.info_len ||
	    c->scan.info_len - hdr < 4)
		return false;
	len = elf_get_uint(info + hdr, 4, c->dimg->big_endian);
	if (len == DWARF64_LENGTH) {
		if (c->scan.info_len - hdr < 12)
			return false;
		len = elf_get_uint(info + hdr + 4, 8, c->dimg->big_endian);
		lensize = 12;
	}
	if (len > c->scan.info_len - hdr - lensize)
		return false;
	u->start = hdr;
	u->end = hdr + lensize + len;
	u->abbrev_off = abbrev;
	u->version = version;
	u->addr_size = asize;
	u->offset_size = osize;
	return true;
}

/* add_variable() of the variable DIE at off in unit u where dwarfscan
 * reads its address and type (die: its Dwarf_Die, in cudie's unit): libdw
 * then reads its type only, not the variable (whose abbreviation it would
 * look up, reading the unit's table up to it). False if libdw is to read
 * it all. */
static bool plain_variable(struct dctx *c, const struct dwunit *u, uint64_t off,
			   Dwarf_Die *die, uint32_t label)
{
	uint64_t addr, toff;
	Dwarf_Word size;
	Dwarf_Die type;

	if (dwscan_var(&c->scan, u, off, &addr, &toff) < 0)
		return false;
	/* dwarf_formref_die()'s DIE of a reference into the unit */
	type =
	    (Dwarf_Die){.addr = (void *)(c->scan.info + toff), .cu = die->cu};
	if (elf_dwarf_type_size(&type, c->lang, &size, 0, NULL) == 0 && size &&
	    addr + size >= addr)
		add_range(c, addr, addr + size, label);
	return true;
}

/* The variables below the unit DIE cudie (sub: its split unit's, or
 * NULL) to label: found by dwarfscan where it can read the unit (u: as
 * scan_unit() gave it; NULL: it cannot), else by walk_vars(). The same
 * variables, in the same order, either way. */
static void cu_vars(struct dctx *c, Dwarf_Die *cudie, Dwarf_Die *sub,
		    const struct dwunit *u, uint32_t label)
{
	c->nvars = 0;
	if (sub || !u ||
	    dwscan_vars(&c->scan, u, &c->vars, &c->nvars, &c->varcap) < 0) {
		walk_vars(c, sub ? sub : cudie, label, 0);
		return;
	}
	/* each DIE in the unit of cudie, as dwarf_offdie() would make it
	 * (which looks the unit up again for every one) */
	for (size_t i = 0; i < c->nvars; i++) {
		Dwarf_Die die = {.addr = (void *)(c->scan.info + c->vars[i]),
				 .cu = cudie->cu};

		if (!c->lang_known ||
		    !plain_variable(c, u, c->vars[i], &die, label))
			add_variable(c, &die, label);
	}
}

/* The inflated bytes libdw reads of the section .debug_NAME (or
 * .zdebug_NAME) of c->dimg, or NULL: none; one libdw ignores (in a
 * section group, or empty: its check_section() rules, the first of a name
 * kept); or one still compressed, which libdw could not inflate (an
 * SHF_COMPRESSED one it then skips, a .zdebug_ one it keeps raw): the scan
 * reads neither, and leaves what needs it to libdw. */
static const uint8_t *dwarf_bytes(struct dctx *c, const char *name, size_t *len)
{
	for (size_t i = 1; i < c->dimg->nsecs; i++) {
		const char *n = c->dimg->secs[i].name;
		Elf_Scn *scn;
		GElf_Shdr sh;
		Elf_Data *d;

		if (strncmp(n, ".debug_", 7) && strncmp(n, ".zdebug_", 8))
			continue;
		if (strcmp(n + (n[1] == 'z' ? 8 : 7), name) ||
		    c->dimg->secs[i].type == SHT_NOBITS)
			continue;
		scn = elf_getscn(elfimg_elf(c->dimg), i);
		if (!gelf_getshdr(scn, &sh) || (sh.sh_flags & SHF_GROUP))
			continue;
		d = elf_getdata(scn, NULL);
		if (d && !d->d_size)
			continue;
		if (!d || !d->d_buf || (sh.sh_flags & SHF_COMPRESSED) ||
		    (n[1] == 'z' && d->d_size >= 4 &&
		     !memcmp(d->d_buf, "ZLIB", 4)))
			return NULL;
		*len = d->d_size;
		return d->d_buf;
	}
	return NULL;
}

/* Set c->scan up over the unit and abbreviation bytes libdw reads. */
static void scan_open(struct dctx *c)
{
	size_t ilen = 0, alen = 0;
	const uint8_t *info = dwarf_bytes(c, "info", &ilen);
	const uint8_t *abbrev = dwarf_bytes(c, "abbrev", &alen);

	if (info && abbrev) {
		size_t slen = 0, llen = 0;
		const uint8_t *str = dwarf_bytes(c, "str", &slen);
		const uint8_t *lstr = dwarf_bytes(c, "line_str", &llen);

		dwscan_init(&c->scan, info, ilen, abbrev, alen,
			    c->dimg->big_endian);
		dwscan_strings(&c->scan, str, slen, lstr, llen);
	}
}

static int cuent_cmp(const void *a, const void *b)
{
	const struct dwcuent *x = a, *y = b;

	return u64_cmp(x->dieoff, y->dieoff);
}

/* dwaranges_read() of .debug_aranges into *v (*n), every unit libdw
 * knows having been read into c->cus; false where dwarf_getaranges() is
 * asked instead: no scan, a unit it reads that is not one of c->cus
 * (another kind), or no section (libdw's answer: none, or its error). */
static bool scan_aranges(struct dctx *c, struct dwarange **v, size_t *n)
{
	size_t len = 0;
	const uint8_t *ar =
	    c->scan.info ? dwarf_bytes(c, "aranges", &len) : NULL;

	/* the units were read in .debug_info's order: by hdroff */
	return ar &&
	       dwaranges_read(ar, len, c->scan.info_len, c->dimg->big_endian,
			      c->cus, c->ncus, v, n) == 0;
}

/* all: every unit libdw knows was read (no error) */
static void add_aranges(struct dctx *c, bool all)
{
	Dwarf_Aranges *ar;
	struct dwarange *v;
	size_t n;

	if (!c->ncus)
		return;
	/* read here only against the elfutils it follows (dwaranges.h) */
	if (DWARANGES_OWN && all && scan_aranges(c, &v, &n)) {
		for (size_t i = 0; i < n; i++)
			if (v[i].len && v[i].addr + v[i].len >= v[i].addr)
				add_range(c, v[i].addr, v[i].addr + v[i].len,
					  (uint32_t)v[i].cu);
		free(v);
		return;
	}
	if (dwarf_getaranges(c->dbg, &ar, &n) != 0)
		return;
	qsort(c->cus, c->ncus, sizeof(*c->cus), cuent_cmp);
	for (size_t i = 0; i < n; i++) {
		Dwarf_Arange *a = dwarf_onearange(ar, i);
		Dwarf_Addr addr;
		Dwarf_Word len;
		Dwarf_Off off;
		struct dwcuent key, *hit;

		if (!a || dwarf_getarangeinfo(a, &addr, &len, &off) != 0 ||
		    !len || addr + len < addr)
			continue;
		key.dieoff = off;
		hit =
		    bsearch(&key, c->cus, c->ncus, sizeof(*c->cus), cuent_cmp);
		if (hit)
			add_range(c, addr, addr + len, hit->label);
	}
}

/* One labelled range of line rows: "FILE:LINE", FILE normalised like CU
 * names (with the CU's comp_dir in c->comp_dir). */
static void add_line_run(struct dctx *c, const char *file, int line,
			 uint64_t start, uint64_t end)
{
	size_t dl = c->comp_dir ? strlen(c->comp_dir) : 0;
	/* libdw joins names of directory 0 (DWARF 5: the comp_dir) with
	 * it already, not those of other relative directories */
	bool joined = dl && !strncmp(file, c->comp_dir, dl) && file[dl] == '/';
	char *path, num[16];

	/* ":LINE" after the name, cut or not (labels_intern_suffix()):
	 * comp_dir and file of up to LABEL_LEN_MAX each make a path past
	 * it, whose lines would otherwise be cut off and be one label */
	snprintf(num, sizeof(num), ":%d", line);
	/* a name over LABEL_LEN_MAX, from a hostile file: the name itself,
	 * cut, not gigabytes copied to be joined */
	if (dl > LABEL_LEN_MAX ||
	    strnlen(file, LABEL_LEN_MAX + 1) > LABEL_LEN_MAX) {
		add_range(c, start, end,
			  labels_intern_suffix(c->lb, file, strlen(file), num));
		return;
	}
	path = path_norm(joined ? NULL : c->comp_dir, file);
	add_range(c, start, end,
		  labels_intern_suffix(c->lb, path, strlen(path), num));
	free(path);
}

/* The ranges of cudie (not those at 0 or 1: discarded code), sorted,
 * into c->cur (c->ncur). */
static void cu_ranges(struct dctx *c, Dwarf_Die *cudie)
{
	Dwarf_Addr base, start, end;
	ptrdiff_t off = 0;

	c->ncur = 0;
	while ((off = dwarf_ranges(cudie, off, &base, &start, &end)) > 0) {
		if (end <= start || start < 2)
			continue;
		xgrow(&c->cur, &c->curcap, c->ncur + 1, sizeof(*c->cur));
		c->cur[c->ncur].start = start;
		c->cur[c->ncur++].end = end;
	}
	if (off < 0 && c->st)
		c->st->dwarf_errors++;
	if (c->ncur > 1)
		qsort(c->cur, c->ncur, sizeof(*c->cur), asec_cmp);
}

/* The end of the CU range holding addr (ranges sorted, *hint advanced
 * monotonically), or 0 if none does. */
static uint64_t cu_range_end(struct dctx *c, uint64_t addr, size_t *hint)
{
	size_t i = *hint;

	while (i < c->ncur && c->cur[i].end <= addr)
		i++;
	*hint = i;
	for (size_t j = i; j < c->ncur && c->cur[j].start <= addr; j++)
		if (addr < c->cur[j].end)
			return c->cur[j].end;
	return 0;
}

/* inlines: the rows of cudie's line table. False if it has none.
 * libdw sorts the rows of all sequences by address, putting an end of
 * sequence before a row at the same address: a last row of zero length
 * then seems to reach the next sequence. So each row's range is also cut
 * at the end of the CU range holding its address (rows outside every CU
 * range are dropped), when the CU has ranges. */
static bool add_lines(struct dctx *c, Dwarf_Die *cudie)
{
	Dwarf_Lines *lines;
	size_t n, hint = 0;
	const char *rfile = NULL;
	int rline = 0;
	uint64_t rstart = 0, rend = 0;

	if (dwarf_getsrclines(cudie, &lines, &n) != 0) {
		if (c->st && dwarf_hasattr(cudie, DW_AT_stmt_list))
			c->st->dwarf_errors++;
		return false;
	}
	for (size_t i = 0; i + 1 < n; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Line *nl = dwarf_onesrcline(lines, i + 1);
		Dwarf_Addr a, na;
		bool endseq = true;
		const char *file;
		int lineno = 0;

		if (!l || !nl || dwarf_lineaddr(l, &a) != 0 ||
		    dwarf_lineendsequence(l, &endseq) != 0 || endseq ||
		    dwarf_lineaddr(nl, &na) != 0 || na <= a || a < 2)
			continue;
		if (c->ncur) {
			uint64_t e = cu_range_end(c, a, &hint);

			if (!e)
				continue;
			if (na > e)
				na = e;
		}
		file = dwarf_linesrc(l, NULL, NULL);
		if (!file)
			file = "?";
		dwarf_lineno(l, &lineno);
		if (rfile && (file != rfile || lineno != rline || a != rend)) {
			add_line_run(c, rfile, rline, rstart, rend);
			rfile = NULL;
		}
		if (!rfile) {
			rfile = file;
			rline = lineno;
			rstart = a;
		}
		rend = na;
	}
	if (rfile)
		add_line_run(c, rfile, rline, rstart, rend);
	return true;
}

static void one_cu(struct dctx *c, Dwarf_CU *cu, Dwarf_Die *cudie,
		   Dwarf_Die *sub, const struct rawsec *info,
		   const struct rawsec *line, bool cus)
{
	uint32_t label = 0;
	Dwarf_Addr base, start, end;
	ptrdiff_t off = 0;

	if (cus) {
		Dwarf_Attribute a;
		Dwarf_Word stmt;
		struct dwunit u;
		struct dwcu du;
		bool scanned =
		    !sub && c->scan.info && scan_unit(c, cu, cudie, &u);
		/* the unit DIE read by the scan, not by libdw (which reads the
		 * unit's whole abbreviation table for it), where it can */
		bool fast = scanned && dwscan_unit_die(&c->scan, &u, &du) == 0;

		c->lang_known = fast && du.has_lang;
		c->lang = fast ? du.lang : -1;

		label = fast ? name_label(c, du.name, du.comp_dir,
					  dwarf_dieoffset(cudie))
			     : cu_label(c, cudie, sub);
		xgrow(&c->cus, &c->cucap, c->ncus + 1, sizeof(*c->cus));
		c->cus[c->ncus].dieoff = dwarf_dieoffset(cudie);
		c->cus[c->ncus].hdroff =
		    dwarf_dieoffset(cudie) - dwarf_cuoffset(cudie);
		c->cus[c->ncus++].label = label;
		if (fast && du.has_low && du.has_high) {
			/* dwarf_ranges()'s one range, from low and high pc */
			end = du.high_off ? du.low + du.high : du.high;
			if (end > du.low)
				add_range(c, du.low, end, label);
		} else if (!fast || du.ranges) {
			/* the list from its start, with libdw's base address:
			 * from offset 0 dwarf_ranges() tries dwarf_highpc()
			 * first, which has libdw read the unit's whole
			 * abbreviation table (the unit DIE's is GCC's last);
			 * it takes 1 for the end of a single range */
			if (fast && dwscan_unit_ranges(&du) &&
			    du.ranges_off >= 2 &&
			    du.ranges_off <= PTRDIFF_MAX) {
				off = (ptrdiff_t)du.ranges_off;
				base = du.base;
			}
			while ((off = dwarf_ranges(cudie, off, &base, &start,
						   &end)) > 0)
				if (end > start)
					add_range(c, start, end, label);
			if (off < 0 && c->st)
				c->st->dwarf_errors++;
		}
		cu_vars(c, cudie, sub, scanned ? &u : NULL, label);
		charge_unit(c, info,
			    dwarf_dieoffset(cudie) - dwarf_cuoffset(cudie),
			    label);
		if (fast && du.has_stmt)
			charge_unit(c, line, du.stmt, label);
		else if (!fast && line->buf &&
			 dwarf_attr(cudie, DW_AT_stmt_list, &a) &&
			 dwarf_formudata(&a, &stmt) == 0)
			charge_unit(c, line, stmt, label);
	} else {
		Dwarf_Attribute a;

		c->comp_dir = dwarf_formstring(
		    dwarf_attr_integrate(cudie, DW_AT_comp_dir, &a));
		cu_ranges(c, cudie);
		if (!add_lines(c, cudie))
			return;
	}
	if (c->st)
		c->st->units++;
}

/* Where the DWARF of img is: img, or its debug file; NULL if neither has
 * any. In stats (may be NULL): which, or that there is none. */
static struct elfimg *dwarf_image(struct elfimg *img,
				  struct elfsrc_stats *stats)
{
	struct elfimg *d = NULL;

	if (elf_has_dwarf(img))
		d = img;
	else if (img->debug && elf_has_dwarf(img->debug))
		d = img->debug;

	if (stats) {
		stats->no_dwarf = !d;
		stats->dwarf_from_debug = d && d != img;
	}
	return d;
}

int elf_dwarf_source(struct elfimg *img, enum elf_source src, struct labels *lb,
		     struct dualmap *base, struct dualmap *out,
		     struct elfsrc_stats *stats)
{
	struct dctx c = {
	    .img = img, .lb = lb, .base = base, .out = out, .st = stats};
	struct rawsec info, line;
	Dwarf_CU *cu = NULL, *next;
	bool cus = src == ELFSRC_COMPILEUNITS;
	struct elf_zclaim z;
	int r;

	if (src != ELFSRC_COMPILEUNITS && src != ELFSRC_INLINES)
		return -EINVAL;
	c.dimg = dwarf_image(img, stats);
	if (!c.dimg)
		return 0;
	c.dbg = elf_dwarf_open(c.dimg, cus, c.dimg == img, &z, &c.alt);
	if (!c.dbg) {
		if (stats)
			elf_dwarf_refused_stats(stats, &z);
		free(z.ref.path);
		/* what was inflated before a linked file was refused */
		if (z.out || z.ref.why)
			elfimg_reopen_elf(c.dimg);
		elf_dwarf_alt_end(&c.alt);
		return 0;
	}
	collect_secs(&c);
	if (cus)
		scan_open(&c);
	rawsec_open(&c, ".debug_info", &info);
	rawsec_open(&c, ".debug_line", &line);
	c.dwp.img = img;
	c.dwp.dimg = c.dimg;
	c.dwp.addr = dwarf_bytes(&c, "addr", &c.dwp.addr_len);

	for (;;) {
		Dwarf_Half version;
		uint8_t type;
		Dwarf_Die cudie, subdie;
		bool split;

		r = dwarf_get_units(c.dbg, cu, &next, &version, &type, &cudie,
				    &subdie);
		if (r != 0)
			break;
		cu = next;
		if (type != DW_UT_compile && type != DW_UT_skeleton)
			continue;
		split = type == DW_UT_skeleton && subdie.addr != NULL &&
			dwarf_tag(&subdie) == DW_TAG_compile_unit;
		c.dwp.in_unit = false;
		c.dwp.in_dwo = split;
		c.dwp.skel = cudie;
		/* libdw found no .dwo: the unit from FILE.dwp, if any. Only
		 * compileunits reads a split unit: for inlines (the skeleton's
		 * lines) none is opened, and none is missing. */
		if (cus && type == DW_UT_skeleton && !split &&
		    !(split = dwp_split_die(&c.dwp, cu, &cudie, &subdie)) &&
		    stats)
			stats->split_missing++;
		one_cu(&c, cu, &cudie, split ? &subdie : NULL, &info, &line,
		       cus);
	}
	if (r < 0 && stats)
		stats->dwarf_errors++;
	if (cus)
		add_aranges(&c, r > 0);

	dwp_ctx_end(&c.dwp, stats);
	dwarf_end(c.dbg);
	elf_dwarf_alt_end(&c.alt);
	dwscan_free(&c.scan);
	free(c.vars);
	free(c.secs);
	free(c.cus);
	free(c.cur);
	/* the DWARF read (libc's debug file: 7 MiB inflated) is done with:
	 * freed before the source charges metadata and padding, which
	 * would otherwise peak on top of it */
	elfimg_reopen_elf(c.dimg);
	return 0;
}
