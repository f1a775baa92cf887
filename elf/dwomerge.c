/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dwomerge.c — a .dwo's DWARF sections of one name joined; see
 * dwotypes.h. */
#include "config.h"

#include "elf/dwarf.h"
#include "elf/dwotypes.h"
#include "elf/elfpriv.h"
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* the section names of a joined image (each once) */
#define NAMES_MAX 32
#define EHDR_SIZE 64
#define SHDR_SIZE 64

/* A DWARF section of the .dwo: which name (an index in the names), where
 * in the file, and its bytes. */
struct piece {
	size_t name;
	uint64_t off, size;
};

struct names {
	const char *v[NAMES_MAX];
	size_t n, count[NAMES_MAX];
	bool z; /* a section compressed */
};

static void put(unsigned char *p, uint64_t v, size_t n, bool be)
{
	for (size_t i = 0; i < n; i++)
		p[be ? n - 1 - i : i] = (unsigned char)(v >> (8 * i));
}

/* The two sections the compilers write in pieces (COMDAT groups): name
 * as a string of static storage, or NULL if it is neither. */
static const char *joinable(const char *name)
{
	static const char *const names[] = {".debug_info.dwo",
					    ".debug_types.dwo"};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i]))
			return names[i];
	return NULL;
}

static int by_off(const void *a, const void *b)
{
	const struct piece *x = a, *y = b;

	return u64_cmp(x->off, y->off);
}

/* The .dwo's DWARF sections (.debug_*.dwo) into v (room for n), their
 * names in nm: their count, or -DWO_JOIN_BAD. */
static long pieces(Elf *elf, size_t shstrndx, struct piece *v, size_t n,
		   struct names *nm)
{
	Elf_Scn *scn = NULL;
	long k = 0;

	while ((scn = elf_nextscn(elf, scn)) && (size_t)k < n) {
		GElf_Shdr sh;
		const char *name;
		size_t i, len;

		if (!gelf_getshdr(scn, &sh) ||
		    !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			return -DWO_JOIN_BAD;
		len = strlen(name);
		/* GNU's compressed (.zdebug_*.dwo): not joined, said */
		if (!strncmp(name, ".zdebug_", 8) && len > 12 &&
		    !strcmp(name + len - 4, ".dwo"))
			nm->z = true;
		if (strncmp(name, ".debug_", 7) || len < 11 ||
		    strcmp(name + len - 4, ".dwo") || sh.sh_type == SHT_NOBITS)
			continue;
		for (i = 0; i < nm->n && strcmp(nm->v[i], name); i++)
			;
		if (i == nm->n) {
			if (nm->n == NAMES_MAX)
				return -DWO_JOIN_BAD;
			nm->v[nm->n++] = name;
		}
		/* another name in pieces (-g3's .debug_macro.dwo): its
		 * first, the one libdw reads unjoined (memsz reads none) */
		if (nm->count[i]++ && !joinable(name))
			continue;
		nm->z |= (sh.sh_flags & SHF_COMPRESSED) != 0;
		v[k].name = i;
		v[k].off = sh.sh_offset;
		v[k++].size = sh.sh_size;
	}
	return k;
}

/* The pieces lie in the file of fsize bytes: false if one runs past
 * its end, checked before memory is taken. */
static bool in_file(const struct piece *v, size_t n, uint64_t fsize)
{
	for (size_t k = 0; k < n; k++)
		if (v[k].off > fsize || v[k].size > fsize - v[k].off)
			return false;
	return true;
}

/* No two pieces share bytes (a hostile .dwo naming the same bytes many
 * times would have the image many times the file). */
static bool disjoint(struct piece *v, size_t n)
{
	struct piece *s = xmalloc((n ? n : 1) * sizeof(*s));
	bool ok = true;

	size_t m = 0;

	/* an empty piece shares no byte, wherever it is */
	for (size_t i = 0; i < n; i++)
		if (v[i].size)
			s[m++] = v[i];
	qsort(s, m, sizeof(*s), by_off);
	for (size_t i = 1; ok && i < m; i++)
		ok = s[i - 1].off + s[i - 1].size >= s[i - 1].off &&
		     s[i - 1].off + s[i - 1].size <= s[i].off;
	free(s);
	return ok;
}

/* The ELF header of im: nsh section headers, the last the name table. */
static void put_ehdr(struct dwo_image *im, uint16_t machine, size_t nsh,
		     bool be)
{
	unsigned char *e = im->buf;

	memcpy(e, ELFMAG, SELFMAG);
	e[EI_CLASS] = ELFCLASS64;
	e[EI_DATA] = be ? ELFDATA2MSB : ELFDATA2LSB;
	e[EI_VERSION] = EV_CURRENT;
	put(e + 16, ET_REL, 2, be);
	put(e + 18, machine, 2, be);
	put(e + 20, EV_CURRENT, 4, be);
	put(e + 40, EHDR_SIZE, 8, be);
	put(e + 52, EHDR_SIZE, 2, be);
	put(e + 58, SHDR_SIZE, 2, be);
	put(e + 60, nsh, 2, be);
	put(e + 62, nsh - 1, 2, be);
}

/* Section header i (1-based) of im. */
static void put_shdr(struct dwo_image *im, size_t i, uint32_t name,
		     uint32_t type, uint64_t off, uint64_t size, bool be)
{
	unsigned char *h = im->buf + EHDR_SIZE + i * SHDR_SIZE;

	put(h, name, 4, be);
	put(h + 4, type, 4, be);
	put(h + 24, off, 8, be);
	put(h + 32, size, 8, be);
	put(h + 48, 1, 8, be); /* sh_addralign */
}

/* Name i's pieces one after another at *data in im, read from fd
 * (pread: a file mapped and truncated meanwhile would kill memsz with
 * SIGBUS; read, it gives a short read): false on a short read. */
static bool put_pieces(struct dwo_image *im, size_t *data, size_t i,
		       const struct piece *v, size_t n, int fd)
{
	for (size_t k = 0; k < n; k++) {
		size_t got = 0;

		if (v[k].name != i)
			continue;
		while (got < v[k].size) {
			ssize_t r = pread(fd, im->buf + *data + got,
					  (size_t)v[k].size - got,
					  (off_t)(v[k].off + got));

			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				return false; /* truncated meanwhile */
			got += (size_t)r;
		}
		*data += v[k].size;
	}
	return true;
}

/* The image: ELF header, section headers (null, one per name, the name
 * table), the name table, each name's pieces one after another in
 * section order. */
static int build(struct dwo_image *im, Elf *elf, const struct piece *v,
		 size_t n, const struct names *nm, int fd)
{
	GElf_Ehdr eh;
	const char *id = elf_getident(elf, NULL);
	bool be = id && id[EI_DATA] == ELFDATA2MSB;
	size_t nsh = nm->n + 2, names = 1 + sizeof(".shstrtab"), at, data;
	size_t nameat = 1;
	uint64_t total = 0;

	if (!gelf_getehdr(elf, &eh))
		return -DWO_JOIN_BAD;
	for (size_t i = 0; i < nm->n; i++)
		names += strlen(nm->v[i]) + 1;
	for (size_t i = 0; i < n; i++)
		total += v[i].size; /* disjoint, in the file: at most it */
	/* a sparse file's holes cost nothing on disk: bounded as DWARF
	 * inflated is */
	if (total > DWARF_INFLATE_BYTES_MAX)
		return -DWO_JOIN_BIG;
	at = EHDR_SIZE + nsh * SHDR_SIZE;
	im->len = at + names + (size_t)total;
	im->buf = xcalloc(im->len, 1);
	put_ehdr(im, eh.e_machine, nsh, be);
	data = at + names;
	for (size_t i = 0; i < nm->n; i++) {
		size_t start = data;

		memcpy(im->buf + at + nameat, nm->v[i], strlen(nm->v[i]) + 1);
		if (!put_pieces(im, &data, i, v, n, fd))
			return -DWO_JOIN_CHANGED;
		put_shdr(im, i + 1, (uint32_t)nameat, SHT_PROGBITS, start,
			 data - start, be);
		nameat += strlen(nm->v[i]) + 1;
	}
	memcpy(im->buf + at + nameat, ".shstrtab", sizeof(".shstrtab"));
	put_shdr(im, nsh - 1, (uint32_t)nameat, SHT_STRTAB, at, names, be);
	return 0;
}

/* The .dwo elf (libelf reading fd, fsize bytes) joined: dwo_join_file()
 * but for the file's opening. */
static int join(Elf *elf, int fd, uint64_t fsize, struct dwo_image *im,
		const char **sec)
{
	struct names nm = {0};
	struct piece *v;
	size_t shnum, shstrndx;
	long n;
	int r;

	if (!elf || elf_getshdrnum(elf, &shnum) != 0 ||
	    elf_getshdrstrndx(elf, &shstrndx) != 0)
		return -DWO_JOIN_BAD;
	v = xmalloc((shnum ? shnum : 1) * sizeof(*v));
	n = pieces(elf, shstrndx, v, shnum, &nm);
	for (size_t i = 0; i < nm.n; i++)
		if (nm.count[i] > 1 && joinable(nm.v[i]) && !*sec)
			*sec = joinable(nm.v[i]);
	r = n < 0 ? (int)n : !*sec ? 1 : nm.z ? -DWO_JOIN_Z : 0;
	if (r == 0 && !disjoint(v, (size_t)n))
		r = -DWO_JOIN_OVERLAP;
	if (r == 0)
		r = in_file(v, (size_t)n, fsize)
			? build(im, elf, v, (size_t)n, &nm, fd)
			: -DWO_JOIN_BAD;
	free(v);
	if (r == 0) {
		im->elf = elf_memory((char *)im->buf, im->len);
		im->dbg = im->elf ? dwarf_begin_elf(im->elf, DWARF_C_READ, NULL)
				  : NULL;
		if (!im->dbg)
			r = -DWO_JOIN_LIBDW;
	}
	if (r != 0)
		dwo_image_end(im);
	return r;
}

int dwo_join_file(const char *path, struct dwo_image *im, const char **sec)
{
	struct stat st, now;
	Elf *elf;
	int fd = open_regular_at(AT_FDCWD, path, &st), r;

	*im = (struct dwo_image){0};
	*sec = NULL;
	if (fd < 0)
		return fd;
	/* read (pread), never mapped: see put_pieces() */
	elf = elf_begin(fd, ELF_C_READ, NULL);
	r = elf && elf_kind(elf) == ELF_K_ELF
		? join(elf, fd, (uint64_t)st.st_size, im, sec)
		: -DWO_JOIN_BAD;
	elf_end(elf);
	/* truncated or rewritten meanwhile: the image may mix two files */
	if (r == 0 && (fstat(fd, &now) < 0 || now.st_size != st.st_size ||
		       now.st_mtim.tv_sec != st.st_mtim.tv_sec ||
		       now.st_mtim.tv_nsec != st.st_mtim.tv_nsec)) {
		dwo_image_end(im);
		r = -DWO_JOIN_CHANGED;
	}
	im->dev = st.st_dev;
	im->ino = st.st_ino;
	close(fd);
	return r;
}

void dwo_image_end(struct dwo_image *im)
{
	if (im->dbg)
		dwarf_end(im->dbg);
	if (im->elf)
		elf_end(im->elf);
	free(im->buf);
	*im = (struct dwo_image){0};
}

const char *dwo_join_why(int why)
{
	switch (why < 0 ? -why : why) {
	case DWO_JOIN_Z:
		return "one of its DWARF sections is compressed";
	case DWO_JOIN_BIG:
		return "they are more than 256 MiB joined";
	case DWO_JOIN_CHANGED:
		return "it changed (truncated or rewritten) while it was read";
	case DWO_JOIN_OVERLAP:
		return "two of its DWARF sections share bytes";
	case DWO_JOIN_LIBDW:
		return "libdw could not read them joined";
	default:
		return "its section headers are unsound";
	}
}
