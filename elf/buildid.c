// SPDX-License-Identifier: GPL-2.0-or-later
/* buildid.c — the build-id of an ELF file read with pread alone (see
 * elf_build_id_read() in elfimg.h): its note sections, else its note
 * segments, each area bounded. Moved out of elfimg.c, which opens the
 * image with libelf and takes the build-id from here (elf_build_id_scan()).
 */
#include "config.h"

#include "elf/elfpriv.h"
#include "util/util.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Note areas larger than this are not read: a build-id note takes 36
 * bytes, and a bound keeps a hostile header from making us allocate
 * gigabytes. It bounds the note areas of one file together too: a
 * million section headers may all name the same MiB of notes, and read
 * each time that was a TiB for a 65 MB file. */
#define NOTES_MAX_BYTES (1u << 20)
/* Bytes of an ELF file read with its header (elf_build_id_scan): a page. */
#define HEAD_BYTES 4096u
/* Header tables larger than this (a million 64-byte section headers) are
 * not read, for the same reason. */
#define HDR_TABLE_MAX_BYTES (64u << 20)

/* The NT_GNU_BUILD_ID descriptor in the notes p[0, size) (padded to align:
 * 8 or else 4), copied to id. One longer than max is cut to max bytes if
 * cut, else skipped. Returns its length, 0 if none. */
static int notes_build_id(const unsigned char *p, uint64_t size, uint64_t align,
			  bool be, uint8_t *id, size_t max, bool cut)
{
	/* Elf32_Nhdr and Elf64_Nhdr are the same three 4-byte words. */
	uint64_t pad = align == 8 ? 7 : 3, pos = 0;

	while (size - pos >= sizeof(Elf32_Nhdr)) {
		const unsigned char *nh = p + pos;
		uint64_t nsz = ELF_FIELD(nh, false, Nhdr, n_namesz, be);
		uint64_t dsz = ELF_FIELD(nh, false, Nhdr, n_descsz, be);
		uint64_t type = ELF_FIELD(nh, false, Nhdr, n_type, be);
		uint64_t name = pos + sizeof(Elf32_Nhdr);
		uint64_t desc = (name + nsz + pad) & ~pad;
		uint64_t next = (desc + dsz + pad) & ~pad;

		if (desc + dsz > size)
			break;
		if (type == NT_GNU_BUILD_ID && nsz == sizeof(ELF_NOTE_GNU) &&
		    !memcmp(p + name, ELF_NOTE_GNU, sizeof(ELF_NOTE_GNU)) &&
		    dsz && (cut || dsz <= max)) {
			dsz = MIN(dsz, max);
			memcpy(id, p + desc, dsz);
			return dsz;
		}
		if (next >= size)
			break;
		pos = next;
	}
	return 0;
}

/* Where elf_build_id_scan() looks: the header tables of the ELF file as its
 * ELF header gives them (a count is 0 when the table is unusable). */
struct note_tables {
	bool is64, be;
	uint64_t phoff, shoff, phnum, shnum;
	/* the file's first nhead bytes, read with its ELF header: a
	 * shared object's build-id note (and its other notes, and its
	 * program headers) lie there, read without another pread each */
	unsigned char head[HEAD_BYTES];
	size_t nhead;
};

/* notes_build_id() of the file bytes [off, off+size), taken out of
 * *budget (bytes of notes the file may still have read). An area larger
 * than what is left is skipped, not charged: one crafted area of 2 MiB
 * (a section header made SHT_NOTE) must not hide the real build-id note
 * after it. */
static int pread_notes(int fd, const struct note_tables *nt, uint64_t off,
		       uint64_t size, uint64_t align, uint8_t *id, size_t max,
		       bool cut, uint64_t *budget)
{
	bool be = nt->be;
	unsigned char *buf;
	int ret = 0;

	if (size < sizeof(Elf32_Nhdr) || off > INT64_MAX - size)
		return 0;
	if (size > *budget)
		return 0;
	*budget -= size;
	if (off + size <= nt->nhead)
		return notes_build_id(nt->head + off, size, align, be, id, max,
				      cut);
	buf = xmalloc(size);
	if (pread(fd, buf, size, off) == (ssize_t)size)
		ret = notes_build_id(buf, size, align, be, id, max, cut);
	free(buf);
	return ret;
}

/* n headers of entsize bytes at off, malloc'd (copied from the file's
 * first nhead bytes, head, when they hold them); NULL if unreadable. */
static unsigned char *pread_table(int fd, const unsigned char *head,
				  size_t nhead, uint64_t off, uint64_t n,
				  uint64_t entsize)
{
	unsigned char *buf;
	uint64_t end;

	if (!n || elf_table_end(off, n, entsize, &end) || end > INT64_MAX ||
	    n * entsize > HDR_TABLE_MAX_BYTES)
		return NULL;
	buf = xmalloc(n * entsize);
	if (head && end <= nhead) {
		memcpy(buf, head + off, n * entsize);
		return buf;
	}
	if (pread(fd, buf, n * entsize, off) != (ssize_t)(n * entsize)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* Read the ELF header of the file open on fd into t: offsets and counts
 * of its header tables, extended numbering resolved, a table whose entry
 * size is wrong left out. Returns 0, -MEMSZ_ENOTELF, -MEMSZ_ETRUNC or
 * -errno. */
static int note_tables_read(int fd, struct note_tables *t)
{
	unsigned char *b = t->head, *s0;
	uint64_t phsz, shsz;
	bool is64, be;
	ssize_t n;

	n = pread(fd, b, sizeof(t->head), 0);
	if (n < 0)
		return -errno;
	t->nhead = (size_t)n;
	if (n < EI_NIDENT || memcmp(b, ELFMAG, SELFMAG) ||
	    (b[EI_CLASS] != ELFCLASS32 && b[EI_CLASS] != ELFCLASS64) ||
	    (b[EI_DATA] != ELFDATA2LSB && b[EI_DATA] != ELFDATA2MSB))
		return -MEMSZ_ENOTELF;
	is64 = b[EI_CLASS] == ELFCLASS64;
	be = b[EI_DATA] == ELFDATA2MSB;
	if ((size_t)n < ELF_SIZEOF(is64, Ehdr))
		return -MEMSZ_ETRUNC;
	phsz = ELF_SIZEOF(is64, Phdr);
	shsz = ELF_SIZEOF(is64, Shdr);
	t->is64 = is64;
	t->be = be;
	t->phoff = ELF_FIELD(b, is64, Ehdr, e_phoff, be);
	t->shoff = ELF_FIELD(b, is64, Ehdr, e_shoff, be);
	t->phnum = ELF_FIELD(b, is64, Ehdr, e_phnum, be);
	t->shnum = ELF_FIELD(b, is64, Ehdr, e_shnum, be);
	if (ELF_FIELD(b, is64, Ehdr, e_phentsize, be) != phsz)
		t->phnum = 0;
	if (ELF_FIELD(b, is64, Ehdr, e_shentsize, be) != shsz || !t->shoff)
		t->shnum = 0;
	else if (!t->shnum || t->phnum == PN_XNUM) {
		/* extended numbering: sh_size, sh_info of section 0 */
		s0 = pread_table(fd, t->head, t->nhead, t->shoff, 1, shsz);
		if (s0 && !t->shnum)
			t->shnum = ELF_FIELD(s0, is64, Shdr, sh_size, be);
		if (s0 && t->phnum == PN_XNUM)
			t->phnum = ELF_FIELD(s0, is64, Shdr, sh_info, be);
		free(s0);
	}
	if (t->phnum == PN_XNUM)
		t->phnum = 0;
	return 0;
}

/* The first build-id note (see notes_build_id()) in the note areas that
 * a header table of the file open on fd lists: SHT_NOTE sections when
 * sections, else PT_NOTE segments. Returns its length, 0 if none. */
static int table_build_id(int fd, const struct note_tables *nt, bool sections,
			  uint8_t *id, size_t max, bool cut, uint64_t *budget)
{
	bool is64 = nt->is64, be = nt->be;
	uint64_t esz =
	    sections ? ELF_SIZEOF(is64, Shdr) : ELF_SIZEOF(is64, Phdr);
	uint64_t n = sections ? nt->shnum : nt->phnum;
	unsigned char *t;
	int ret = 0;

	t = pread_table(fd, nt->head, nt->nhead,
			sections ? nt->shoff : nt->phoff, n, esz);
	/* section 0 is the reserved null entry */
	for (uint64_t i = sections ? 1 : 0; t && i < n && !ret && *budget;
	     i++) {
		const unsigned char *h = t + i * esz;
		uint64_t off, size, align;

		if (sections) {
			if (ELF_FIELD(h, is64, Shdr, sh_type, be) != SHT_NOTE)
				continue;
			off = ELF_FIELD(h, is64, Shdr, sh_offset, be);
			size = ELF_FIELD(h, is64, Shdr, sh_size, be);
			align = ELF_FIELD(h, is64, Shdr, sh_addralign, be);
		} else {
			if (ELF_FIELD(h, is64, Phdr, p_type, be) != PT_NOTE)
				continue;
			off = ELF_FIELD(h, is64, Phdr, p_offset, be);
			size = ELF_FIELD(h, is64, Phdr, p_filesz, be);
			align = ELF_FIELD(h, is64, Phdr, p_align, be);
		}
		ret =
		    pread_notes(fd, nt, off, size, align, id, max, cut, budget);
	}
	free(t);
	return ret;
}

/* The build-id of the ELF file open on fd: the first NT_GNU_BUILD_ID note
 * of its SHT_NOTE sections, else of its PT_NOTE segments (sstrip'ed
 * files). See elf_build_id_read(); cut as in notes_build_id(). */
int elf_build_id_scan(int fd, uint8_t *id, size_t max, bool cut)
{
	struct note_tables nt = {0};
	uint64_t budget = NOTES_MAX_BYTES; /* for all note areas together */
	int ret;

	ret = note_tables_read(fd, &nt);
	if (!ret)
		ret = table_build_id(fd, &nt, true, id, max, cut, &budget);
	if (!ret)
		ret = table_build_id(fd, &nt, false, id, max, cut, &budget);
	return ret;
}

int elf_build_id_read(int fd, uint8_t *id, size_t max)
{
	return elf_build_id_scan(fd, id, max, true);
}
