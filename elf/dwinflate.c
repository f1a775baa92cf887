// SPDX-License-Identifier: GPL-2.0-or-later
/* dwinflate.c — inflate the compressed DWARF sections libdw will read,
 * before dwarf_begin_elf() does, without libelf's copy of the compressed
 * bytes, and no more of them than the claim (elf_dwarf_claim()) counted.
 *
 * libelf inflates an SHF_COMPRESSED section (elf_compress(), which
 * dwarf_begin_elf() calls for each DWARF section) from a malloc'd copy of
 * the whole compressed section: libc's debug file has 3 MiB of them, read
 * into fresh pages and freed at once. Here the compressed bytes stream
 * through one small buffer into the inflated section, and the result is
 * handed to libelf as the section's data, with the section header libelf
 * itself would leave (sh_size the inflated size, sh_addralign the
 * compression header's, SHF_COMPRESSED cleared): libdw then reads it as
 * if libelf had inflated it.
 *
 * The claim reads each compression header once and keeps it (struct
 * elf_zsec); the bytes inflated are read again later, and a file
 * rewritten in place in between (same inode: its owner, while root runs
 * memsz on it) would otherwise inflate past the bound, up to 4 GiB a
 * section. So a section is inflated to exactly the size the claim read,
 * from bytes whose header is still the one it read, and nothing is left
 * for libelf to inflate from a header read after the claim: what libdw
 * would have libelf inflate and memsz does not hand over is hidden from
 * libdw. zstd, which libelf 0.188 does not inflate, is inflated here too,
 * more strictly than libelf 0.189 and later: memsz requires the stream to
 * fill exactly ch_size bytes, where libelf accepts a shorter one (the
 * rest of its buffer is left unset). What libelf would refuse (another
 * compression type, a corrupt stream, an allocated section) libdw then skips,
 * as it skips it when libelf refuses. */
#include "config.h"

#include "elf/dwarf.h"
#include "elf/elfpriv.h"
#include "util/util.h"
#include "util/zinflate.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

/* glibc's elf.h has it from 2.37 (Debian 12 ships 2.36) */
#ifndef ELFCOMPRESS_ZSTD
#define ELFCOMPRESS_ZSTD 2
#endif

/* The DWARF sections libdw 0.188 reads at dwarf_begin_elf()
 * (dwarf_scnnames in its dwarf_begin_elf.c), in its order: a section's
 * index here is the slot libdw keeps its data in. */
static const char *const libdw_scnnames[] = {
    ".debug_info",	  ".debug_types",    ".debug_abbrev",
    ".debug_addr",	  ".debug_aranges",  ".debug_line",
    ".debug_line_str",	  ".debug_frame",    ".debug_loc",
    ".debug_loclists",	  ".debug_pubnames", ".debug_str",
    ".debug_str_offsets", ".debug_macinfo",  ".debug_macro",
    ".debug_ranges",	  ".debug_rnglists", ".gnu_debugaltlink",
};

/* True if name is one dwarf_begin_elf() may look at: one of
 * libdw_scnnames, or that with ".z" for "." (a GNU-compressed one: *gnu
 * set); each also with ".dwo" after it (a split DWARF file's) or, not
 * GNU-compressed, ".gnu.debuglto_" before it (GCC's LTO objects'). libdw
 * reads one of these kinds only, the plain one if the file has it: all
 * are counted (an upper bound; libdw_match() is libdw's choice). */
static bool libdw_section(const char *name, bool *gnu)
{
	const char *lto = ".gnu.debuglto_";
	size_t n, lto_len = strlen(lto);

	*gnu = false;
	if (!strncmp(name, lto, lto_len) && name[lto_len] == '.')
		name += lto_len;
	else if (!strncmp(name, ".z", 2))
		*gnu = true;
	else if (name[0] != '.')
		return false;
	name += *gnu ? 2 : 1;
	n = strlen(name);
	if (n > 4 && !strcmp(name + n - 4, ".dwo"))
		n -= 4;
	for (size_t i = 0; i < ARRAY_SIZE(libdw_scnnames); i++)
		if (n == strlen(libdw_scnnames[i]) - 1 &&
		    !strncmp(name, libdw_scnnames[i] + 1, n))
			return true;
	return false;
}

/* Read up to len bytes at off into buf; the count read (short at the end
 * of the file or on an error). */
static size_t read_at(int fd, void *buf, size_t len, uint64_t off)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n =
		    pread(fd, (char *)buf + got, len - got, (off_t)(off + got));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	return got;
}

/* The n bytes of section scn's data now libelf's, without reading the
 * file: buf (of align), sh (libelf's header of it, which becomes sh_size
 * n, sh_addralign align, SHF_COMPRESSED cleared: what libelf leaves
 * after inflating it). Returns 1 if done; 0, with nothing changed, if
 * libelf had read the section already; -1 if libelf did not take buf as
 * the section's first data (not what libelf's code does: the section is
 * then empty to libdw, and buf must live on). */
static int install(Elf_Scn *scn, GElf_Shdr *sh, void *buf, uint64_t n,
		   uint64_t align)
{
	GElf_Shdr empty = *sh;
	Elf_Data *d;

	/* with sh_size 0 libelf reads nothing and starts the section's
	 * data list empty: elf_newdata() then gives its first element,
	 * which elf_getdata() returns */
	empty.sh_size = 0;
	if (!gelf_update_shdr(scn, &empty))
		return 0;
	d = elf_rawdata(scn, NULL);
	if (!d || d->d_size || d->d_buf) {
		gelf_update_shdr(scn, sh); /* read before: libelf's then */
		return 0;
	}
	d = elf_newdata(scn);
	if (!d)
		return -1;
	d->d_buf = buf;
	d->d_size = n;
	d->d_type = ELF_T_BYTE;
	d->d_align = align;
	d->d_off = 0;
	d->d_version = EV_CURRENT;
	sh->sh_size = n;
	sh->sh_addralign = align;
	sh->sh_flags &= ~(uint64_t)SHF_COMPRESSED;
	gelf_update_shdr(scn, sh);
	return elf_getdata(scn, NULL) == d ? 1 : -1;
}

/* The size section i of img (sh: libelf's header of it) claims inflated,
 * as its header says, or 0 if nothing would inflate it: an
 * SHF_COMPRESSED one by its compression header (of any type: a newer
 * libelf also inflates zstd), a GNU one (gnu: ".zdebug_X") by its "ZLIB"
 * header. The header read into z (index, offset and size its caller's). */
static uint64_t claim_of(struct elfimg *img, const GElf_Shdr *sh, bool gnu,
			 struct elf_zsec *z)
{
	struct elfimg_priv *priv = img->priv;
	bool is64 = img->elfclass == ELFCLASS64;
	uint64_t n = ELF_SIZEOF(is64, Chdr);
	const uint64_t gnu_hsize = 4 + 8; /* "ZLIB", big-endian size */

	z->gnu = !(sh->sh_flags & SHF_COMPRESSED);
	z->hsize = z->gnu ? gnu_hsize : n;
	if (!z->gnu)
		return sh->sh_size >= n &&
			       read_at(priv->fd, z->hdr, n, sh->sh_offset) == n
			   ? ELF_FIELD(z->hdr, is64, Chdr, ch_size,
				       img->big_endian)
			   : 0;
	if (gnu && sh->sh_size >= gnu_hsize &&
	    read_at(priv->fd, z->hdr, gnu_hsize, sh->sh_offset) == gnu_hsize &&
	    !memcmp(z->hdr, "ZLIB", 4))
		return elf_get_uint(z->hdr + 4, 8, true);
	return 0;
}

/* The index of img's section-name table in libelf's handle now (which
 * libdw names sections by), or 0 if none. */
static size_t libelf_shstrndx(struct elfimg *img)
{
	size_t i;

	return elf_getshdrstrndx(elfimg_elf(img), &i) ? 0 : i;
}

/* True if img's section-name table (e_shstrndx's section) is or may be
 * compressed: SHF_COMPRESSED in libelf's header, or GNU-compressed (a
 * ".z" name, as libdw takes a ".zdebug_" one of a DWARF section's names
 * for one and has libelf inflate it, elf_compress_gnu(), or bytes that
 * begin "ZLIB"). libdw names sections by elf_strptr(), which reads an
 * inflated table from then on, while memsz's names (img->secs) are its
 * raw bytes: the sections memsz counts would not be those libdw reads (a
 * section named "x" raw becomes .debug_info midway through
 * dwarf_begin_elf(), and is inflated unclaimed). */
static bool names_compressed(struct elfimg *img)
{
	struct elfimg_priv *priv = img->priv;
	size_t ndx = libelf_shstrndx(img);
	Elf_Scn *scn = ndx ? elf_getscn(priv->elf, ndx) : NULL;
	GElf_Shdr sh;
	char magic[4];

	if (!scn || !gelf_getshdr(scn, &sh))
		return false;
	if (sh.sh_flags & SHF_COMPRESSED)
		return true;
	if (ndx < img->nsecs && !strncmp(img->secs[ndx].name, ".z", 2))
		return true;
	return sh.sh_type != SHT_NOBITS && sh.sh_size >= sizeof(magic) &&
	       read_at(priv->fd, magic, sizeof(magic), sh.sh_offset) ==
		   sizeof(magic) &&
	       !memcmp(magic, "ZLIB", sizeof(magic));
}

int elf_dwarf_claim(struct elfimg *img, uint64_t *in, uint64_t *out)
{
	struct elfimg_priv *priv = img->priv;

	*in = *out = 0;
	priv->nzsecs = 0;
	if (names_compressed(img))
		return ELF_DWARF_ZNAMES;
	for (size_t i = 1; i < img->nsecs; i++) {
		Elf_Scn *scn = elf_getscn(priv->elf, i);
		struct elf_zsec z;
		GElf_Shdr sh;
		uint64_t c;
		bool gnu = false;

		if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		/* libdw skips what is in a group or (hidden by dwopen.c)
		 * NOBITS; duplicates of a name are counted too: libdw
		 * inflates the next if one fails */
		if (!libdw_section(img->secs[i].name, &gnu) ||
		    (sh.sh_flags & SHF_GROUP))
			continue;
		c = claim_of(img, &sh, gnu, &z);
		if (!c)
			continue;
		elf_add_sat(in, sh.sh_size);
		elf_add_sat(out, c);
		z.index = i;
		z.offset = sh.sh_offset;
		z.size = sh.sh_size;
		z.out = c;
		xgrow(&priv->zsecs, &priv->zseccap, priv->nzsecs + 1,
		      sizeof(*priv->zsecs));
		priv->zsecs[priv->nzsecs++] = z;
	}
	/* headers may share compressed bytes (twenty over one stream, each
	 * claiming a byte, made the ratio of one 1 GiB claim 48): no file
	 * holds more compressed bytes than its size */
	if (*in > img->file_size)
		*in = img->file_size;
	return ELF_DWARF_READ;
}

bool elf_dwarf_refused(const struct elf_zclaim *z)
{
	/* exactly more than 64 times (out / 64 > in let 63 bytes more
	 * through); where in * 64 would pass UINT64_MAX no out is more */
	return z->ref.why || (z->out > DWARF_INFLATE_BYTES_MAX &&
			      z->in <= UINT64_MAX / DWARF_INFLATE_RATIO_MAX &&
			      z->out > z->in * DWARF_INFLATE_RATIO_MAX);
}

void elf_dwarf_refused_stats(struct elfsrc_stats *st,
			     const struct elf_zclaim *z)
{
	/* read as if there were no DWARF, and said so */
	st->no_dwarf = true;
	if (z->ref.why) {
		st->dwarf_refused = z->ref.why;
		st->dwarf_zerr = z->ref.err;
		snprintf(st->dwarf_zfile, sizeof(st->dwarf_zfile), "%s",
			 z->ref.path ? z->ref.path : "");
		return;
	}
	st->dwarf_zbytes = z->in;
	st->dwarf_zclaim = z->out;
	st->dwarf_zlinked = z->linked;
	if (!z->out)
		st->dwarf_errors++;
}

/* Keep buf until img's libelf handle is ended. */
static void keep(struct elfimg_priv *priv, void *buf, size_t n)
{
	xgrow(&priv->zbufs, &priv->zcap, priv->nzbufs + 1,
	      sizeof(*priv->zbufs));
	priv->zbufs[priv->nzbufs].p = buf;
	priv->zbufs[priv->nzbufs++].n = n;
}

bool elf_section_hide(struct elfimg *img, size_t i, struct elf_hidden *h,
		      size_t *n)
{
	Elf_Scn *scn = elf_getscn(elfimg_elf(img), i);
	GElf_Shdr sh;
	uint32_t type;

	if (!scn || !gelf_getshdr(scn, &sh))
		return false;
	type = sh.sh_type;
	sh.sh_type = SHT_NOBITS;
	if (!gelf_update_shdr(scn, &sh))
		return false;
	if (h) {
		h[*n].index = i;
		h[(*n)++].type = type;
	}
	return true;
}

/* libdw's kinds of DWARF section names (enum dwarf_type in its
 * libdwP.h), by its preference: it reads those of the highest kind a
 * section of the file is named as, only. */
enum libdw_kind {
	LIBDW_NONE = 0,
	LIBDW_LTO = 16,
	LIBDW_DWO = 32,
	LIBDW_PLAIN = 64,
};

/* libdw's scn_dwarf_type() of a section named name. */
static enum libdw_kind name_kind(const char *name)
{
	size_t n = strlen(name);

	if (!strncmp(name, ".gnu.debuglto_.debug", 20))
		return LIBDW_LTO;
	if (strncmp(name, ".debug_", 7) && strncmp(name, ".zdebug_", 8))
		return LIBDW_NONE;
	return strcmp(name + n - 4, ".dwo") ? LIBDW_PLAIN : LIBDW_DWO;
}

/* The kind dwarf_begin_elf() (global_read()) reads of img, its
 * sections named by libelf's handle now (shstrndx), as libdw names
 * them. */
static enum libdw_kind libdw_kind(struct elfimg *img, size_t shstrndx)
{
	Elf *elf = elfimg_elf(img);
	enum libdw_kind kind = LIBDW_NONE;

	for (size_t i = 1; i < img->nsecs && kind != LIBDW_PLAIN; i++) {
		Elf_Scn *scn = elf_getscn(elf, i);
		const char *name;
		GElf_Shdr sh;

		if (!scn || !gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && name_kind(name) > kind)
			kind = name_kind(name);
	}
	return kind;
}

/* libdw's check_section() choice for a section named name in a file of
 * kind: its slot in libdw_scnnames, or -1 if libdw does not read it;
 * *gnu set if libdw has libelf inflate it as GNU-compressed
 * (elf_compress_gnu()). Its tests, in its order. */
static int libdw_match(const char *name, enum libdw_kind kind, bool *gnu)
{
	size_t len = strlen(name), lto = strlen(".gnu.debuglto_");

	*gnu = false;
	for (size_t k = 0; k < ARRAY_SIZE(libdw_scnnames); k++) {
		const char *s = libdw_scnnames[k];
		size_t n = strlen(s);

		if (!strncmp(name, s, n) &&
		    (len == n ||
		     (len == n + 4 && strstr(name, ".dwo") == name + n))) {
			if (len == n ? kind == LIBDW_PLAIN : kind == LIBDW_DWO)
				return (int)k;
		} else if (name[0] == '.' && name[1] == 'z' &&
			   !strncmp(name + 2, s + 1, n - 1) &&
			   (len == n + 1 ||
			    (len == n + 5 &&
			     strstr(name, ".dwo") == name + n + 1))) {
			*gnu = len == n + 1 ? kind == LIBDW_PLAIN
					    : kind <= LIBDW_DWO;
			if (*gnu)
				return (int)k;
		} else if (len > lto && !strncmp(name, ".gnu.debuglto_", lto) &&
			   !strcmp(name + lto, s)) {
			if (kind == LIBDW_LTO)
				return (int)k;
		}
	}
	return -1;
}

/* Section types libelf 0.188 reads as structures, not bytes (shtype_map
 * in its elf_getdata.c): what memsz hands over is bytes, which in a file
 * of the other byte order are not what libelf would give. A DWARF
 * section of one of them (no toolchain makes one) that libelf would
 * inflate is hidden. */
static const uint32_t libelf_typed[] = {
    SHT_SYMTAB,	    SHT_RELA,	       SHT_HASH,       SHT_DYNAMIC,
    SHT_NOTE,	    SHT_REL,	       SHT_DYNSYM,     SHT_INIT_ARRAY,
    SHT_FINI_ARRAY, SHT_PREINIT_ARRAY, SHT_GROUP,      SHT_SYMTAB_SHNDX,
    SHT_GNU_HASH,   SHT_GNU_LIBLIST,   SHT_SUNW_move,  SHT_SUNW_syminfo,
    SHT_GNU_verdef, SHT_GNU_verneed,   SHT_GNU_versym,
};

static bool libelf_bytes(uint32_t type)
{
	for (size_t i = 0; i < ARRAY_SIZE(libelf_typed); i++)
		if (type == libelf_typed[i])
			return false;
	return true;
}

/* True if memsz inflates claim z (of an Elf_Chdr) as libelf would: zlib
 * at most 1032 times the compressed size (zlib's bound, libelf's check),
 * or zstd (libelf 0.189 and later; 0.188, Debian 12's, inflates zlib
 * only, so libdw alone reads no DWARF of gcc -gz=zstd; unlike libelf,
 * chdr_inflate() wants exactly ch_size bytes of it), alignment a power
 * of two, 1 to UINT_MAX bytes (zinflate()'s lengths; inflated to none,
 * libdw skips it). */
static bool inflatable(const struct elfimg *img, const struct elf_zsec *z)
{
	bool is64 = img->elfclass == ELFCLASS64, be = img->big_endian;
	uint64_t type = ELF_FIELD(z->hdr, is64, Chdr, ch_type, be);
	uint64_t align = ELF_FIELD(z->hdr, is64, Chdr, ch_addralign, be);

	if ((align & (align - 1)) || !z->out || z->out > UINT_MAX)
		return false;
	if (type == ELFCOMPRESS_ZLIB)
		return z->out / 1032 <= z->size - z->hsize;
	return type == ELFCOMPRESS_ZSTD;
}

/* Inflate the n bytes at in, compressed as header hdr of img says (zlib
 * or zstd), into out, which they must fill exactly (len bytes). */
static bool chdr_inflate(const struct elfimg *img, const unsigned char *hdr,
			 const unsigned char *in, size_t n, unsigned char *out,
			 size_t len)
{
	bool is64 = img->elfclass == ELFCLASS64, be = img->big_endian;
	size_t got;

	if (ELF_FIELD(hdr, is64, Chdr, ch_type, be) != ELFCOMPRESS_ZSTD)
		return zinflate(in, n, out, len) == 0;
	got = ZSTD_decompress(out, len, in, n);
	return !ZSTD_isError(got) && got == len;
}

/* True if libelf's elf_compress_gnu() would inflate from the n bytes at
 * b no more than claim z counted: they have no "ZLIB" header (it
 * inflates nothing), or z's (the size it claimed). */
static bool gnu_claimed(const unsigned char *b, uint64_t n,
			const struct elf_zsec *z)
{
	const uint64_t gnu_hsize = 4 + 8;

	if (n < gnu_hsize || memcmp(b, "ZLIB", 4))
		return true;
	return z && z->gnu && !memcmp(b, z->hdr, gnu_hsize);
}

/* True if the data libelf holds of section scn where memsz could not
 * hand it over (install() found it read before, or kept another first
 * element), from which libelf inflates it (elf_getdata(), as
 * elf_compress() and elf_compress_gnu() take it), inflates no more than
 * claim z counted: gnu as gnu_claimed(); else its compression header is
 * z's. */
static bool held_claimed(Elf_Scn *scn, const struct elf_zsec *z, bool gnu)
{
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;

	if (d && !d->d_size)
		return true; /* libdw skips it */
	if (!d || !d->d_buf)
		return false;
	if (gnu)
		return gnu_claimed(d->d_buf, d->d_size, z);
	return z && d->d_size >= z->hsize &&
	       !memcmp(d->d_buf, z->hdr, z->hsize);
}

/* An SHF_COMPRESSED section to inflate: its claim, whether libdw also
 * has libelf inflate it as GNU-compressed (gnu), and where in the arena
 * its bytes go. */
struct zjob {
	const struct elf_zsec *z;
	bool gnu;
	size_t at;
};

/* The jobs of elf_dwarf_inflate() (room for img->nsecs), their count, and
 * the arena they need. */
struct zjobs {
	struct zjob *v;
	size_t n, total;
};

/* Hand section i of img (sh: libelf's header), GNU-compressed by name and
 * not SHF_COMPRESSED, to libelf as memsz reads it now, if libelf would
 * inflate no more of it than claim z (or NULL) counted: libelf's
 * elf_compress_gnu() then inflates it from these bytes, as before from
 * its own read of them. Else hide it. Returns 1 if libdw keeps it (and
 * no later section of its name), 0 if not, -1 if it could be neither
 * handed over nor hidden. */
static int gnu_hand(struct elfimg *img, size_t i, GElf_Shdr *sh,
		    const struct elf_zsec *z, struct elf_hidden *h, size_t *nh)
{
	struct elfimg_priv *priv = img->priv;
	Elf_Scn *scn = elf_getscn(priv->elf, i);
	size_t n = sh->sh_size <= SIZE_MAX ? (size_t)sh->sh_size : 0;
	unsigned char *buf;
	int r;

	if (!sh->sh_size)
		return 0; /* nothing to read or inflate: libdw skips it */
	buf = n ? try_malloc_huge(n) : NULL;
	if (!buf || read_at(priv->fd, buf, n, sh->sh_offset) != n ||
	    !gnu_claimed(buf, n, z)) {
		xfree_huge(buf, n);
		return elf_section_hide(img, i, h, nh) ? 0 : -1;
	}
	r = install(scn, sh, buf, n, sh->sh_addralign);
	if (r) /* libelf's even if not its first data */
		keep(priv, buf, n);
	else
		xfree_huge(buf, n);
	if (r > 0 || held_claimed(scn, z, true))
		return 1;
	return elf_section_hide(img, i, h, nh) ? 0 : -1;
}

/* What libdw's check_section() would have libelf do with section i of img
 * (sh: libelf's header; gnu: GNU-compressed by name; z: its claim or
 * NULL), done or made safe: an SHF_COMPRESSED one memsz can inflate as
 * libelf would is added to jobs; a GNU one is handed over (gnu_hand());
 * what libelf would not inflate is left, and what it would but memsz
 * cannot is hidden. Returns 1 if libdw keeps the section (it then
 * ignores later ones of its name), 0 if not or not known yet, -1 if it
 * could be neither handed over nor hidden. */
static int zsec_plan(struct elfimg *img, size_t i, GElf_Shdr *sh, bool gnu,
		     const struct elf_zsec *z, struct zjobs *j,
		     struct elf_hidden *h, size_t *nh)
{
	bool compressed = sh->sh_flags & SHF_COMPRESSED;
	uint64_t step;

	if (!compressed && !gnu)
		return sh->sh_size != 0; /* read as it is */
	/* libelf inflates no allocated or SHT_NULL section: libdw skips
	 * an SHF_COMPRESSED one, reads a GNU one as it is */
	if ((sh->sh_flags & SHF_ALLOC) || sh->sh_type == SHT_NULL)
		return !compressed && sh->sh_size != 0;
	if (!libelf_bytes(sh->sh_type))
		return elf_section_hide(img, i, h, nh) ? 0 : -1;
	if (!compressed)
		return gnu_hand(img, i, sh, z && z->gnu ? z : NULL, h, nh);
	step = z ? (z->out + 15) & ~(uint64_t)15 : 0;
	/* the arena's offsets must fit size_t on 32-bit hosts too */
	if (!z || z->gnu || !inflatable(img, z) || j->total > SIZE_MAX ||
	    step > SIZE_MAX - j->total)
		return elf_section_hide(img, i, h, nh) ? 0 : -1;
	j->v[j->n++] = (struct zjob){.z = z, .gnu = gnu, .at = j->total};
	j->total += (size_t)step;
	return 0;
}

/* Plan every section of img libdw reads, in its order (zsec_plan()):
 * false if one could be neither handed over nor hidden. */
static bool zsecs_plan(struct elfimg *img, struct zjobs *j,
		       struct elf_hidden *h, size_t *nh)
{
	struct elfimg_priv *priv = img->priv;
	size_t ndx = libelf_shstrndx(img), next = 0;
	enum libdw_kind kind = libdw_kind(img, ndx);
	bool taken[ARRAY_SIZE(libdw_scnnames)] = {0};
	bool ok = true;

	for (size_t i = 1; i < img->nsecs; i++) {
		Elf_Scn *scn = elf_getscn(priv->elf, i);
		const struct elf_zsec *z = NULL;
		const char *name;
		GElf_Shdr sh;
		bool gnu;
		int k, r;

		/* skipped by libdw: NOBITS (what dwopen.c hides), in a
		 * group, not a name of the kind it reads, or one of a
		 * name it has data of */
		if (!scn || !gelf_getshdr(scn, &sh) ||
		    sh.sh_type == SHT_NOBITS || (sh.sh_flags & SHF_GROUP))
			continue;
		name = elf_strptr(priv->elf, ndx, sh.sh_name);
		k = name ? libdw_match(name, kind, &gnu) : -1;
		if (k < 0 || taken[k])
			continue;
		while (next < priv->nzsecs && priv->zsecs[next].index < i)
			next++;
		/* the claim of it, of the header libelf has now */
		if (next < priv->nzsecs && priv->zsecs[next].index == i &&
		    priv->zsecs[next].offset == sh.sh_offset &&
		    priv->zsecs[next].size == sh.sh_size)
			z = &priv->zsecs[next];
		r = zsec_plan(img, i, &sh, gnu, z, j, h, nh);
		taken[k] = r > 0;
		ok &= r >= 0;
	}
	return ok;
}

/* Larger compressed size first. */
static int zjob_cmp(const void *a, const void *b)
{
	const struct zjob *x = a, *y = b;

	return u64_cmp(y->z->size, x->z->size);
}

/* Inflate job j of img into out and hand it to libelf (*used set if out
 * is libelf's now): the section's bytes read now, their header the one
 * the claim read, inflated to exactly the size it claimed; if libdw
 * would have libelf inflate the result again as GNU-compressed (gnu and
 * a "ZLIB" header), not. What is not handed over is hidden, unless
 * libelf holds a copy with the claimed header. False if it could be
 * neither. */
static bool zjob_run(struct elfimg *img, const struct zjob *j,
		     unsigned char *out, bool *used, struct elf_hidden *h,
		     size_t *nh)
{
	struct elfimg_priv *priv = img->priv;
	const struct elf_zsec *z = j->z;
	bool is64 = img->elfclass == ELFCLASS64, be = img->big_endian;
	Elf_Scn *scn = elf_getscn(priv->elf, z->index);
	unsigned char *in =
	    z->size <= SIZE_MAX ? try_malloc_huge((size_t)z->size) : NULL;
	GElf_Shdr sh;
	bool ok;
	int r = 0;

	ok = out && in &&
	     read_at(priv->fd, in, (size_t)z->size, z->offset) == z->size &&
	     !memcmp(in, z->hdr, z->hsize) &&
	     chdr_inflate(img, z->hdr, in + z->hsize,
			  (size_t)(z->size - z->hsize), out, (size_t)z->out) &&
	     (!j->gnu || gnu_claimed(out, z->out, NULL));
	xfree_huge(in, (size_t)z->size);
	if (ok && scn && gelf_getshdr(scn, &sh))
		r = install(scn, &sh, out, z->out,
			    ELF_FIELD(z->hdr, is64, Chdr, ch_addralign, be));
	*used |= r != 0; /* libelf's even if not its first data */
	if (r > 0 || (ok && held_claimed(scn, z, false)))
		return true;
	return elf_section_hide(img, z->index, h, nh);
}

bool elf_dwarf_inflate(struct elfimg *img, struct elf_hidden *h, size_t *nh)
{
	struct elfimg_priv *priv = img->priv;
	struct zjobs j = {.v = xcalloc(img->nsecs + 1, sizeof(*j.v))};
	unsigned char *arena = NULL;
	bool ok, used = false;

	/* libdw's names (elf_strptr()) of a compressed table: inflated
	 * whole; elf_dwarf_claim() refuses such DWARF */
	ok = !names_compressed(img) && zsecs_plan(img, &j, h, nh);
	/* the largest first, each one's compressed bytes freed after it:
	 * the peak is the largest's input and output, not the sum; one
	 * buffer for all: its 2 MiB-aligned part on huge pages */
	if (ok && j.n) {
		qsort(j.v, j.n, sizeof(*j.v), zjob_cmp);
		arena = try_malloc_huge(j.total);
	}
	for (size_t i = 0; ok && i < j.n; i++)
		ok = zjob_run(img, &j.v[i], arena ? arena + j.v[i].at : NULL,
			      &used, h, nh);
	if (used)
		keep(priv, arena, j.total);
	else
		xfree_huge(arena, j.total);
	free(j.v);
	return ok;
}

void elf_dwarf_inflated_free(struct elfimg_priv *priv)
{
	for (size_t i = 0; i < priv->nzbufs; i++)
		xfree_huge(priv->zbufs[i].p, priv->zbufs[i].n);
	free(priv->zbufs);
	priv->zbufs = NULL;
	priv->nzbufs = priv->zcap = 0;
	free(priv->zsecs);
	priv->zsecs = NULL;
	priv->nzsecs = priv->zseccap = 0;
}
