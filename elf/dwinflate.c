// SPDX-License-Identifier: GPL-2.0-or-later
/* dwinflate.c — inflate the compressed DWARF sections libdw will read,
 * before dwarf_begin_elf() does, without libelf's copy of the compressed
 * bytes.
 *
 * libelf inflates an SHF_COMPRESSED section (elf_compress(), which
 * dwarf_begin_elf() calls for each DWARF section) from a malloc'd copy of
 * the whole compressed section: libc's debug file has 3 MiB of them, read
 * into fresh pages and freed at once. Here the compressed bytes stream
 * through one small buffer into the inflated section, and the result is
 * handed to libelf as the section's data, with the section header libelf
 * itself would leave (sh_size the inflated size, sh_addralign the
 * compression header's, SHF_COMPRESSED cleared): libdw then reads it as
 * if libelf had inflated it. What libelf would refuse (another
 * compression type, another byte order, a corrupt stream, a section
 * already read) is left to libelf, which refuses it the same way. */
#include "config.h"

#include "elf/dwarf.h"
#include "elf/elfpriv.h"
#include "util/hashmap.h"
#include "util/util.h"
#include "util/zinflate.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The DWARF sections libdw reads at dwarf_begin_elf() (dwarf_scnnames in
 * libdw), named without ".debug_". A compressed one not named here is
 * inflated by libelf if libdw wants it. */
static const char *const libdw_reads[] = {
    "info",	   "types",   "abbrev", "aranges",  "addr",	"line",
    "line_str",	   "frame",   "loc",	"loclists", "pubnames", "str",
    "str_offsets", "macinfo", "macro",	"ranges",   "rnglists",
};

static bool libdw_reads_name(const char *name)
{
	if (strncmp(name, ".debug_", 7))
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(libdw_reads); i++)
		if (!strcmp(name + 7, libdw_reads[i]))
			return true;
	return false;
}

/* True if name is one dwarf_begin_elf() may look at: ".debug_X" (X in
 * libdw_reads) or ".gnu_debugaltlink", or that with ".z" for "." (a
 * GNU-compressed one: *gnu set); each also with ".dwo" after it (a split
 * DWARF file's) or, not GNU-compressed, ".gnu.debuglto_" before it (GCC's
 * LTO objects'). libdw reads one of these kinds only, the plain one if
 * the file has it: all are counted (an upper bound). */
static bool libdw_section(const char *name, bool *gnu)
{
	const char *lto = ".gnu.debuglto_";
	size_t n, lto_len = strlen(lto);

	*gnu = false;
	if (!strncmp(name, lto, lto_len) && !strncmp(name + lto_len, ".d", 2))
		name += lto_len;
	else if (!strncmp(name, ".z", 2))
		*gnu = true;
	else if (name[0] != '.')
		return false;
	name += *gnu ? 2 : 1;
	n = strlen(name);
	if (n > 4 && !strcmp(name + n - 4, ".dwo"))
		n -= 4;
	if (n == strlen("gnu_debugaltlink") &&
	    !strncmp(name, "gnu_debugaltlink", n))
		return true;
	if (n < 6 || strncmp(name, "debug_", 6))
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(libdw_reads); i++)
		if (n - 6 == strlen(libdw_reads[i]) &&
		    !strncmp(name + 6, libdw_reads[i], n - 6))
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

/* Inflate the size_in bytes at file offset off into out (size_out
 * bytes), as libelf's __libelf_decompress() does (util/zinflate.h), from
 * a copy of them freed after. False if that fails. */
static bool inflate_file(int fd, uint64_t off, uint64_t size_in,
			 unsigned char *out, uint64_t size_out)
{
	unsigned char *in;
	bool ok;

	if (size_in > SIZE_MAX || size_out > SIZE_MAX)
		return false;
	in = try_malloc_huge((size_t)size_in);
	if (!in)
		return false;
	ok = read_at(fd, in, (size_t)size_in, off) == size_in &&
	     zinflate(in, (size_t)size_in, out, (size_t)size_out) == 0;
	xfree_huge(in, (size_t)size_in);
	return ok;
}

/* Hand buf (the inflated bytes of section scn, whose header is sh, of
 * compression header ch) to libelf as its data. Returns 1 if done; 0,
 * with nothing changed, if libelf had read the section already; -1 if
 * libelf did not take buf as the section's first data (not what libelf's
 * code does: the section is then empty to libdw, and buf must live on). */
static int install(Elf_Scn *scn, GElf_Shdr *sh, const GElf_Chdr *ch, void *buf)
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
	d->d_size = ch->ch_size;
	d->d_type = ELF_T_BYTE;
	d->d_align = ch->ch_addralign;
	d->d_off = 0;
	d->d_version = EV_CURRENT;
	sh->sh_size = ch->ch_size;
	sh->sh_addralign = ch->ch_addralign;
	sh->sh_flags &= ~(uint64_t)SHF_COMPRESSED;
	gelf_update_shdr(scn, sh);
	return elf_getdata(scn, NULL) == d ? 1 : -1;
}

/* The compression header of section s (sh: libelf's header of it) of
 * img, read from the file; false if it cannot be read or is not one this
 * file can inflate as libelf would (zlib, alignment a power of two, at
 * most 1032 times the compressed size: zlib's bound, libelf's check). */
static bool read_chdr(struct elfimg *img, const GElf_Shdr *sh, GElf_Chdr *ch,
		      uint64_t *hsize)
{
	struct elfimg_priv *priv = img->priv;
	bool is64 = img->elfclass == ELFCLASS64;
	unsigned char b[sizeof(Elf64_Chdr)];

	*hsize = ELF_SIZEOF(is64, Chdr);
	if (sh->sh_size < *hsize ||
	    read_at(priv->fd, b, *hsize, sh->sh_offset) != *hsize)
		return false;
	ch->ch_type = ELF_FIELD(b, is64, Chdr, ch_type, img->big_endian);
	ch->ch_size = ELF_FIELD(b, is64, Chdr, ch_size, img->big_endian);
	ch->ch_addralign =
	    ELF_FIELD(b, is64, Chdr, ch_addralign, img->big_endian);
	return ch->ch_type == ELFCOMPRESS_ZLIB &&
	       !(ch->ch_addralign & (ch->ch_addralign - 1)) &&
	       ch->ch_size / 1032 <= sh->sh_size - *hsize && ch->ch_size;
}

/* The size section i of img (sh: libelf's header of it) claims inflated,
 * as its header says, or 0 if nothing would inflate it: an
 * SHF_COMPRESSED one by its compression header (of any type: a newer
 * libelf also inflates zstd), a GNU one (gnu: ".zdebug_X") by its "ZLIB"
 * header. */
static uint64_t claim_of(struct elfimg *img, const GElf_Shdr *sh, bool gnu)
{
	struct elfimg_priv *priv = img->priv;
	bool is64 = img->elfclass == ELFCLASS64;
	unsigned char b[sizeof(Elf64_Chdr)];
	uint64_t n = ELF_SIZEOF(is64, Chdr);
	const uint64_t gnu_hsize = 4 + 8; /* "ZLIB", big-endian size */

	if (sh->sh_flags & SHF_COMPRESSED)
		return sh->sh_size >= n &&
			       read_at(priv->fd, b, n, sh->sh_offset) == n
			   ? ELF_FIELD(b, is64, Chdr, ch_size, img->big_endian)
			   : 0;
	if (gnu && sh->sh_size >= gnu_hsize &&
	    read_at(priv->fd, b, gnu_hsize, sh->sh_offset) == gnu_hsize &&
	    !memcmp(b, "ZLIB", 4))
		return elf_get_uint(b + 4, 8, true);
	return 0;
}

/* True if img's section-name table (e_shstrndx's section) is compressed
 * in libelf's header: libdw names sections by elf_strptr(), which
 * inflates it whole, while memsz's names (img->secs) are its raw bytes,
 * so that the sections memsz counts are not those libdw reads. */
static bool names_compressed(struct elfimg *img)
{
	struct elfimg_priv *priv = img->priv;
	Elf_Scn *scn =
	    priv->shstrndx ? elf_getscn(priv->elf, priv->shstrndx) : NULL;
	GElf_Shdr sh;

	return scn && gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_COMPRESSED);
}

int elf_dwarf_claim(struct elfimg *img, uint64_t *in, uint64_t *out)
{
	struct elfimg_priv *priv = img->priv;

	*in = *out = 0;
	if (names_compressed(img))
		return ELF_DWARF_ZNAMES;
	for (size_t i = 1; i < img->nsecs; i++) {
		Elf_Scn *scn = elf_getscn(priv->elf, i);
		GElf_Shdr sh;
		uint64_t c;
		bool gnu = false;

		if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		/* libdw skips what is in a group or (hidden by dwarf.c)
		 * NOBITS; duplicates of a name are counted too: libdw
		 * inflates the next if one fails */
		if (!libdw_section(img->secs[i].name, &gnu) ||
		    (sh.sh_flags & SHF_GROUP))
			continue;
		c = claim_of(img, &sh, gnu);
		if (!c)
			continue;
		elf_add_sat(in, sh.sh_size);
		elf_add_sat(out, c);
	}
	/* headers may share compressed bytes (twenty over one stream, each
	 * claiming a byte, made the ratio of one 1 GiB claim 48): no file
	 * holds more compressed bytes than its size */
	if (*in > img->file_size)
		*in = img->file_size;
	return ELF_DWARF_READ;
}

/* Files libdw opens on its own and inflates whole (dwarf_begin()), each
 * path opened once here: found by path (by_path), and by its device and
 * inode (by_id) when a new path names a file already claimed. libdw
 * opens and inflates a .dwo again for each skeleton unit naming it, each
 * a handle of its own kept to the end, so its inflated bytes count each
 * time; its compressed bytes are the file's, counted once. Counted again,
 * eight units naming one .dwo of 4 MiB claiming 256 MiB kept the ratio
 * under 64 while libdw inflated 2 GiB. */
struct claimed {
	char *path;
	dev_t dev;
	ino_t ino;
	uint64_t in, out; /* what elf_dwarf_claim() found in it */
};

struct claim_cache {
	struct claimed *v;
	size_t n, cap;
	struct hashmap by_path, by_id;
};

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

/* Keep why (and path, err) in ref unless it has a reason already. */
static void refuse(struct elf_dwref *ref, int why, const char *path, int err)
{
	if (ref->why || !why)
		return;
	ref->why = why;
	ref->err = err;
	ref->path = xstrdup(path);
}

/* The names under which libdw reads a file's link to its dwz file: in
 * a plain file and in a split one (".dwo"), GNU-compressed or not. Which
 * of them libdw takes depends on the kind it reads the file as (by its
 * first DWARF section's name): any of them counts. */
static const char *const altlink_names[] = {
    ".gnu_debugaltlink",
    ".gnu_debugaltlink.dwo",
    ".zgnu_debugaltlink",
    ".zgnu_debugaltlink.dwo",
};

/* True if img has a section libdw may read as its link to a dwz file. */
static bool names_alt(const struct elfimg *img)
{
	for (size_t i = 1; i < img->nsecs; i++)
		for (size_t k = 0; k < ARRAY_SIZE(altlink_names); k++)
			if (!strcmp(img->secs[i].name, altlink_names[k]))
				return true;
	return false;
}

/* Errors opening a file that libdw's open() of the path meets too (same
 * process, same path): the file is not there for libdw either. */
static const int absent_errs[] = {ENOENT, ENOTDIR, EACCES, ELOOP, ENAMETOOLONG};

/* Open the file at path, one libdw would open by itself, to check it
 * (into *f). 0 if opened; 1 if it is not there (for libdw either); else
 * -errno: libdw's open() would succeed on what memsz cannot read as a
 * regular ELF file (a FIFO or device, where libdw's open() blocks or
 * arms something; no ELF; headers out of the file) and libdw would read
 * it unchecked, so its DWARF is refused (why, path into ref). */
static int linked_open(const char *path, struct elfimg **f,
		       struct elf_dwref *ref)
{
	int r = elfimg_open_mode(path, true, f);

	if (!r)
		return 0;
	*f = NULL;
	for (size_t i = 0; i < ARRAY_SIZE(absent_errs); i++)
		if (r == -absent_errs[i])
			return 1;
	refuse(ref, ELF_DWARF_LINK_ODD, path, r);
	return r;
}

/* The entry of cc for a file of device dev and inode ino claimed under
 * another path, with h the hash of its identity, or NULL (p then where
 * to put one). */
static struct claimed *claimed_by_id(struct claim_cache *cc, dev_t dev,
				     ino_t ino, uint32_t h,
				     struct hashmap_probe *p)
{
	for (uint32_t i = hashmap_first(&cc->by_id, h, p); i != HASHMAP_NONE;
	     i = hashmap_next(&cc->by_id, p))
		if (cc->v[i].dev == dev && cc->v[i].ino == ino)
			return &cc->v[i];
	return NULL;
}

/* Open the ELF file at path, new to cc, and claim it into e (nothing if
 * it is not there); its compressed bytes into *in unless cc holds the
 * same file under another path; a reason to refuse it to ref. */
static void claimed_open(struct claim_cache *cc, struct claimed *e,
			 uint64_t *in, struct elf_dwref *ref)
{
	struct elfimg *f;
	struct stat st;
	struct hashmap_probe p;
	const struct claimed *same;
	uint32_t h;

	if (linked_open(e->path, &f, ref))
		return;
	refuse(ref, elf_dwarf_claim(f, &e->in, &e->out), e->path, 0);
	/* libdw looks for a dwz file of the .dwo itself (dwarf_getalt()
	 * of the handle it opens) */
	refuse(ref, names_alt(f) ? ELF_DWARF_DWO_ALT : 0, e->path, 0);
	if (!fstat(((struct elfimg_priv *)f->priv)->fd, &st)) {
		uint64_t id[2] = {(uint64_t)st.st_dev, (uint64_t)st.st_ino};

		e->dev = st.st_dev;
		e->ino = st.st_ino;
		h = hashmap_hash_bytes(id, sizeof(id));
		same = claimed_by_id(cc, e->dev, e->ino, h, &p);
		if (!same)
			hashmap_put(&cc->by_id, &p, (uint32_t)(e - cc->v));
	} else {
		same = NULL;
	}
	if (!same)
		elf_add_sat(in, e->in);
	elfimg_close(f);
}

/* Add what dwarf_begin() would inflate of the ELF file at path (nothing
 * if it is not there) to *out, each time; its compressed bytes to *in
 * the first time the file is claimed; a reason to refuse it to ref. */
static void claim_file(struct claim_cache *cc, const char *path, uint64_t *in,
		       uint64_t *out, struct elf_dwref *ref)
{
	uint32_t h = hashmap_hash_bytes(path, strlen(path));
	struct hashmap_probe p;
	struct claimed *e = NULL;

	for (uint32_t i = hashmap_first(&cc->by_path, h, &p);
	     i != HASHMAP_NONE && !e; i = hashmap_next(&cc->by_path, &p))
		if (!strcmp(cc->v[i].path, path))
			e = &cc->v[i];
	if (!e) {
		xgrow(&cc->v, &cc->cap, cc->n + 1, sizeof(*cc->v));
		e = &cc->v[cc->n];
		*e = (struct claimed){.path = xstrdup(path)};
		hashmap_put(&cc->by_path, &p, (uint32_t)cc->n++);
		claimed_open(cc, e, in, ref);
	}
	elf_add_sat(out, e->out);
}

static void claim_cache_free(struct claim_cache *cc)
{
	for (size_t i = 0; i < cc->n; i++)
		free(cc->v[i].path);
	free(cc->v);
	hashmap_free(&cc->by_path);
	hashmap_free(&cc->by_id);
}

/* libdw's __libdw_filepath(): file if absolute, else under dir if that
 * is absolute, else under debugdir/dir (dir may be NULL). NULL if no
 * path can be made or it would be too long to open (names from a
 * hostile file can be gigabytes). Returns a malloc'd string. */
static char *libdw_path(const char *debugdir, const char *dir, const char *file)
{
	if (!file || strnlen(file, PATH_MAX) >= PATH_MAX ||
	    (dir && strnlen(dir, PATH_MAX) >= PATH_MAX))
		return NULL;
	if (file[0] == '/')
		return xstrdup(file);
	if (dir && dir[0] == '/')
		return xasprintf("%s%s%s", dir,
				 dir[strlen(dir) - 1] == '/' ? "" : "/", file);
	if (!debugdir)
		return NULL;
	if (dir && dir[0])
		return xasprintf("%s%s%s%s", debugdir, dir,
				 dir[strlen(dir) - 1] == '/' ? "" : "/", file);
	return xasprintf("%s%s", debugdir, file);
}

/* libdw's debugdir of img (__libdw_debugdir()): the directory of the
 * file its descriptor names, with a trailing slash; NULL if unknown.
 * malloc'd. */
static char *libdw_debugdir(struct elfimg *img)
{
	struct elfimg_priv *priv = img->priv;
	char link[64], *path, *slash;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", priv->fd);
	path = realpath(link, NULL);
	if (path && path[0] == '/' && (slash = strrchr(path, '/'))) {
		slash[1] = 0;
		return path;
	}
	free(path);
	return NULL;
}

/* The dwz file of dbg (.gnu_debugaltlink) opened where libdw's
 * dwarf_getalt() looks for it, the first place that opens: by build-id
 * under /usr/lib/debug, then by its name. NULL if none: not there, or
 * there but not one memsz can read (why into ref). */
static struct elfimg *alt_open(Dwarf *dbg, const char *debugdir,
			       struct elf_dwref *ref)
{
	const char *name;
	const void *id;
	ssize_t n = dwelf_dwarf_gnu_debugaltlink(dbg, &name, &id);
	struct elfimg *alt = NULL;
	char *path;
	int r = 1;

	if (n <= 0)
		return NULL;
	if (n >= 3 && n <= 64) {
		const unsigned char *b = id;
		char hex[2 * 64 + 1];

		for (ssize_t i = 0; i < n; i++)
			snprintf(hex + 2 * i, 3, "%02x", b[i]);
		path = xasprintf("/usr/lib/debug/.build-id/%.2s/%s.debug", hex,
				 hex + 2);
		r = linked_open(path, &alt, ref);
		free(path);
	}
	/* libdw tries its name only if the first did not open */
	path = r == 1 ? libdw_path(debugdir, NULL, name) : NULL;
	if (path)
		linked_open(path, &alt, ref);
	free(path);
	return alt;
}

void elf_dwarf_alt_claim(struct elfimg *img, Dwarf *dbg, struct elf_dwalt *alt,
			 uint64_t *in, uint64_t *out, struct elf_dwref *ref)
{
	char *debugdir = libdw_debugdir(img);

	*in = *out = 0;
	alt->dbg = NULL;
	alt->img = alt_open(dbg, debugdir, ref);
	if (alt->img)
		refuse(ref, elf_dwarf_claim(alt->img, in, out), alt->img->path,
		       0);
	free(debugdir);
}

/* Tell libdw that dbg has no dwz file, so that it never looks for one
 * itself: memsz looked where libdw would and found none (a file put there
 * later would be opened and inflated unchecked), or the one found has no
 * DWARF libdw reads. libdw has no call for it; libdw 0.188's (Debian 12;
 * and later ones') dwarf_getalt() returns NULL without looking when the
 * handle's dwz file is (Dwarf *)-1, the value it stores itself after
 * looking in vain, which dwarf_setalt() stores as it is given; and
 * dwarf_end() ends a dwz file only if libdw opened it itself (its
 * alt_fd), never this one. t1106 checks libdw opens no such file. */
static void libdw_no_alt(Dwarf *dbg)
{
	dwarf_setalt(dbg, (Dwarf *)-1);
}

void elf_dwarf_alt_use(struct elf_dwalt *alt, Dwarf *dbg)
{
	if (alt->img) {
		elf_dwarf_inflate(alt->img);
		alt->dbg =
		    dwarf_begin_elf(elfimg_elf(alt->img), DWARF_C_READ, NULL);
	}
	if (alt->dbg) {
		/* the dwz file's own dwz file (no tool makes one): none */
		libdw_no_alt(alt->dbg);
		dwarf_setalt(dbg, alt->dbg);
	} else {
		libdw_no_alt(dbg);
	}
}

void elf_dwarf_alt_end(struct elf_dwalt *alt)
{
	if (alt->dbg)
		dwarf_end(alt->dbg);
	if (alt->img)
		elfimg_close(alt->img);
	alt->dbg = NULL;
	alt->img = NULL;
}

/* The split units' .dwo files libdw's __libdw_find_split_unit() opens
 * for the skeleton units of dbg: DW_AT_dwo_name under debugdir, then
 * under DW_AT_comp_dir. Each one a unit names is counted: libdw opens
 * it for each. */
static void claim_dwos(Dwarf *dbg, const char *debugdir, struct claim_cache *cc,
		       uint64_t *in, uint64_t *out, struct elf_dwref *ref)
{
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie;
	uint8_t type;

	while (dwarf_get_units(dbg, cu, &cu, NULL, &type, &cudie, NULL) == 0) {
		Dwarf_Attribute a;
		const char *dwo, *dir;
		char *path, *first;

		if (type != DW_UT_skeleton)
			continue;
		dwo = dwarf_formstring(dwarf_attr(&cudie, DW_AT_dwo_name, &a));
		if (!dwo)
			dwo = dwarf_formstring(
			    dwarf_attr(&cudie, DW_AT_GNU_dwo_name, &a));
		if (!dwo)
			continue;
		first = libdw_path(debugdir, NULL, dwo);
		if (first)
			claim_file(cc, first, in, out, ref);
		/* the second place is tried when the first did not hold the
		 * unit: counted if it is another file */
		dir = dwarf_formstring(dwarf_attr(&cudie, DW_AT_comp_dir, &a));
		path = dir ? libdw_path(debugdir, dir, dwo) : NULL;
		if (path && (!first || strcmp(path, first)))
			claim_file(cc, path, in, out, ref);
		free(path);
		free(first);
	}
}

void elf_dwarf_claim_dwos(struct elfimg *img, Dwarf *dbg, uint64_t *in,
			  uint64_t *out, struct elf_dwref *ref)
{
	char *debugdir = libdw_debugdir(img);
	struct claim_cache cc = {0};

	*in = *out = 0;
	claim_dwos(dbg, debugdir, &cc, in, out, ref);
	claim_cache_free(&cc);
	free(debugdir);
}

/* Keep buf until img's libelf handle is ended. */
static void keep(struct elfimg_priv *priv, void *buf, size_t n)
{
	xgrow(&priv->zbufs, &priv->zcap, priv->nzbufs + 1,
	      sizeof(*priv->zbufs));
	priv->zbufs[priv->nzbufs].p = buf;
	priv->zbufs[priv->nzbufs++].n = n;
}

/* A section to inflate: its index, header and compression header, and
 * where in the arena its bytes go. */
struct zsec {
	size_t index;
	GElf_Shdr sh;
	GElf_Chdr ch;
	uint64_t hsize;
	size_t at;
};

/* The sections of img elf_dwarf_inflate() inflates, into z (room for
 * ARRAY_SIZE(libdw_reads)); their count. *total: the arena's size. */
static size_t zsecs_find(struct elfimg *img, struct zsec *z, size_t *total)
{
	struct elfimg_priv *priv = img->priv;
	bool seen[ARRAY_SIZE(libdw_reads)] = {0};
	uint64_t sum = 0, step;
	size_t n = 0;

	for (size_t i = 1; i < img->nsecs; i++) {
		const char *name = img->secs[i].name;
		Elf_Scn *scn = elf_getscn(priv->elf, i);
		struct zsec *c = &z[n];
		size_t k;

		if (!libdw_reads_name(name))
			continue;
		for (k = 0; strcmp(name + 7, libdw_reads[k]); k++)
			;
		/* libdw takes the first of a name, outside groups, not
		 * NOBITS (what dwarf.c hides from it is NOBITS now) */
		if (!scn || !gelf_getshdr(scn, &c->sh) ||
		    c->sh.sh_type == SHT_NOBITS ||
		    (c->sh.sh_flags & SHF_GROUP) || seen[k])
			continue;
		seen[k] = true;
		/* libelf refuses to inflate an allocated section
		 * (elf_compress()); zlib's lengths are 32 bits (zinflate());
		 * the arena's offsets must fit size_t on 32-bit hosts too.
		 * What is left out here is libelf's, as before. */
		if (!(c->sh.sh_flags & SHF_COMPRESSED) ||
		    (c->sh.sh_flags & SHF_ALLOC) ||
		    c->sh.sh_type != SHT_PROGBITS ||
		    !read_chdr(img, &c->sh, &c->ch, &c->hsize) ||
		    c->ch.ch_size > UINT_MAX)
			continue;
		step = (c->ch.ch_size + 15) & ~(uint64_t)15;
		if (sum > SIZE_MAX || step > SIZE_MAX - sum)
			continue;
		c->index = i;
		c->at = (size_t)sum;
		sum += step;
		n++;
	}
	*total = (size_t)sum;
	return n;
}

/* Larger compressed size first. */
static int zsec_cmp(const void *a, const void *b)
{
	const struct zsec *x = a, *y = b;

	return u64_cmp(y->sh.sh_size, x->sh.sh_size);
}

void elf_dwarf_inflate(struct elfimg *img)
{
	struct elfimg_priv *priv = img->priv;
	struct zsec z[ARRAY_SIZE(libdw_reads)];
	unsigned char *arena;
	size_t total, n = zsecs_find(img, z, &total);
	bool used = false;

	if (!n)
		return;
	/* the largest first, each one's compressed bytes freed after it:
	 * the peak is the largest's input and output, not the sum */
	qsort(z, n, sizeof(*z), zsec_cmp);
	/* one buffer for all: its 2 MiB-aligned part on huge pages */
	arena = try_malloc_huge(total);
	if (!arena)
		return; /* sizes from the file: libelf tries each on its own */
	for (size_t i = 0; i < n; i++) {
		Elf_Scn *scn = elf_getscn(priv->elf, z[i].index);
		unsigned char *out = arena + z[i].at;

		if (inflate_file(priv->fd, z[i].sh.sh_offset + z[i].hsize,
				 z[i].sh.sh_size - z[i].hsize, out,
				 z[i].ch.ch_size) &&
		    install(scn, &z[i].sh, &z[i].ch, out))
			used = true;
	}
	if (used)
		keep(priv, arena, total);
	else
		xfree_huge(arena, total);
}

void elf_dwarf_inflated_free(struct elfimg_priv *priv)
{
	for (size_t i = 0; i < priv->nzbufs; i++)
		xfree_huge(priv->zbufs[i].p, priv->zbufs[i].n);
	free(priv->zbufs);
	priv->zbufs = NULL;
	priv->nzbufs = priv->zcap = 0;
}
