// SPDX-License-Identifier: GPL-2.0-or-later
/* elfimg.c — open and validate an ELF image; build-id (read by
 * buildid.c), debuglink, base map.
 *
 * Validation happens in two steps. First the ELF header is read with pread
 * and decoded by hand (either byte order), and the two header tables are
 * checked against the file size: libelf is never handed a file whose
 * tables run past its end. Then libelf gives the program and section
 * headers, each checked before use. libelf reads (ELF_C_READ: pread of
 * what is asked for), never maps, the file: a file mapped and then
 * truncated by someone else (a package upgrade, a build) would kill memsz
 * with SIGBUS at the next touch; read, it only gives short reads, libelf
 * errors, and elfimg_changed() says so.
 *
 * Codes: anything that runs past the end of the file is -MEMSZ_ETRUNC (a
 * truncated file and a corrupt offset look the same); an impossible value
 * (wrong entry size, wrapping range, bad index) is -MEMSZ_EBADPHDR or
 * -MEMSZ_EBADSHDR; a name offset outside its string table is
 * -MEMSZ_EBADSTRTAB; an impossible ELF header is -MEMSZ_EBADELF.
 */
#include "config.h"

#include "elf/elfpriv.h"
#include "elf/minidebug.h"
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The ELF header fields we need, decoded from the raw bytes. */
struct rawhdr {
	int cls;
	bool be;
	uint16_t type, machine, ehsize, phentsize, shentsize;
	uint64_t phoff, shoff;
	uint64_t phnum, shnum, shstrndx;
};

/* end = off + n * entsize, checked: -1 on overflow. */
int elf_table_end(uint64_t off, uint64_t n, uint64_t entsize, uint64_t *end)
{
	if (entsize && n > UINT64_MAX / entsize)
		return -1;
	if (off > UINT64_MAX - n * entsize)
		return -1;
	*end = off + n * entsize;
	return 0;
}

/* Decode the ELF header of a file of fsize bytes from its first bytes b
 * (MIN(fsize, 64) of them, read by the caller) into h: identification,
 * type and machine, the two header tables' offsets, entry sizes and
 * counts as written (extended numbering not resolved yet). Returns 0 or a
 * negative code (see elfimg_open()). */
static int decode_ehdr(const unsigned char *b, uint64_t fsize, struct rawhdr *h)
{
	size_t need;
	bool is64;

	if (fsize == 0)
		return -MEMSZ_ENOTELF;
	if (memcmp(b, ELFMAG, MIN(fsize, (uint64_t)SELFMAG)))
		return -MEMSZ_ENOTELF;
	if (fsize < EI_NIDENT)
		return -MEMSZ_ETRUNC;
	if (b[EI_CLASS] != ELFCLASS32 && b[EI_CLASS] != ELFCLASS64)
		return -MEMSZ_EBADELF;
	if (b[EI_DATA] != ELFDATA2LSB && b[EI_DATA] != ELFDATA2MSB)
		return -MEMSZ_EBADELF;
	if (b[EI_VERSION] != EV_CURRENT)
		return -MEMSZ_EBADELF;
	h->cls = b[EI_CLASS];
	h->be = b[EI_DATA] == ELFDATA2MSB;
	is64 = h->cls == ELFCLASS64;
	need = ELF_SIZEOF(is64, Ehdr);
	if (fsize < need)
		return -MEMSZ_ETRUNC;

	h->type = ELF_FIELD(b, is64, Ehdr, e_type, h->be);
	h->machine = ELF_FIELD(b, is64, Ehdr, e_machine, h->be);
	h->phoff = ELF_FIELD(b, is64, Ehdr, e_phoff, h->be);
	h->shoff = ELF_FIELD(b, is64, Ehdr, e_shoff, h->be);
	h->ehsize = ELF_FIELD(b, is64, Ehdr, e_ehsize, h->be);
	h->phentsize = ELF_FIELD(b, is64, Ehdr, e_phentsize, h->be);
	h->phnum = ELF_FIELD(b, is64, Ehdr, e_phnum, h->be);
	h->shentsize = ELF_FIELD(b, is64, Ehdr, e_shentsize, h->be);
	h->shnum = ELF_FIELD(b, is64, Ehdr, e_shnum, h->be);
	h->shstrndx = ELF_FIELD(b, is64, Ehdr, e_shstrndx, h->be);
	if (h->ehsize < need)
		return -MEMSZ_EBADELF;
	if (h->ehsize > fsize)
		return -MEMSZ_ETRUNC;
	return 0;
}

/* Check the section header table of h against the file (fd, fsize bytes)
 * and resolve extended numbering: a section count, string table index or
 * program header count too large for the ELF header is in sh_size,
 * sh_link or sh_info of section 0. Returns 0 or a negative code. */
static int check_shdr_table(int fd, uint64_t fsize, struct rawhdr *h)
{
	bool is64 = h->cls == ELFCLASS64;
	size_t shsz = ELF_SIZEOF(is64, Shdr);
	unsigned char s0[sizeof(Elf64_Shdr)];
	uint64_t end;
	ssize_t n;

	if (h->shoff == 0) {
		if (h->shnum)
			return -MEMSZ_EBADSHDR;
		if (h->phnum == PN_XNUM)
			return -MEMSZ_EBADPHDR;
		h->shstrndx = 0;
		return 0;
	}
	if (h->shentsize != shsz)
		return -MEMSZ_EBADSHDR;
	if (elf_table_end(h->shoff, MAX(h->shnum, 1), shsz, &end))
		return -MEMSZ_EBADSHDR;
	if (end > fsize)
		return -MEMSZ_ETRUNC;
	n = pread(fd, s0, shsz, h->shoff);
	if (n < 0)
		return -errno;
	if ((size_t)n < shsz)
		return -MEMSZ_ETRUNC;
	if (h->shnum == 0)
		h->shnum = ELF_FIELD(s0, is64, Shdr, sh_size, h->be);
	if (h->shstrndx == SHN_XINDEX)
		h->shstrndx = ELF_FIELD(s0, is64, Shdr, sh_link, h->be);
	if (h->phnum == PN_XNUM)
		h->phnum = ELF_FIELD(s0, is64, Shdr, sh_info, h->be);
	if (elf_table_end(h->shoff, h->shnum, shsz, &end))
		return -MEMSZ_EBADSHDR;
	if (end > fsize)
		return -MEMSZ_ETRUNC;
	if (h->shnum == 0 || h->shstrndx >= h->shnum)
		return -MEMSZ_EBADSHDR;
	return 0;
}

/* Read and check the ELF header of the file open on fd (fsize bytes) and
 * its two header tables' bounds into h. Returns 0 or a negative code. */
static int read_rawhdr(int fd, uint64_t fsize, struct rawhdr *h)
{
	unsigned char b[sizeof(Elf64_Ehdr)];
	size_t phsz;
	uint64_t end;
	ssize_t n;
	int ret;

	memset(h, 0, sizeof(*h));
	n = pread(fd, b, MIN(fsize, sizeof(b)), 0);
	if (n < 0)
		return -errno;
	if ((size_t)n < MIN(fsize, sizeof(b)))
		return -MEMSZ_ETRUNC;
	ret = decode_ehdr(b, fsize, h);
	if (!ret)
		ret = check_shdr_table(fd, fsize, h);
	if (ret)
		return ret;

	phsz = ELF_SIZEOF(h->cls == ELFCLASS64, Phdr);
	if (h->phnum) {
		if (h->phentsize != phsz)
			return -MEMSZ_EBADPHDR;
		if (elf_table_end(h->phoff, h->phnum, phsz, &end))
			return -MEMSZ_EBADPHDR;
		if (end > fsize)
			return -MEMSZ_ETRUNC;
	}
	return 0;
}

/* [off, off+size) inside a file of fsize bytes? 0, -ETRUNC or bad. */
static int range_in_file(uint64_t off, uint64_t size, uint64_t fsize, int bad)
{
	if (off > UINT64_MAX - size)
		return bad;
	if (off + size > fsize)
		return -MEMSZ_ETRUNC;
	return 0;
}

/* PT_LOADs must not overlap in VM: the VM size is their sum (invariant I1)
 * and the loader never maps two segments over each other. */
static int check_load_overlap(struct elfimg *img)
{
	uint64_t *r = xcalloc(2 * (img->nsegs ? img->nsegs : 1), sizeof(*r));
	size_t n = 0;
	int ret = 0;

	for (size_t i = 0; i < img->nsegs; i++) {
		struct elf_segment *s = &img->segs[i];

		if (s->type != PT_LOAD || !s->memsz)
			continue;
		r[2 * n] = s->vaddr;
		r[2 * n + 1] = s->vaddr + s->memsz;
		n++;
	}
	if (n)
		qsort(r, n, 2 * sizeof(*r), u64_sort_cmp); /* by start */
	for (size_t i = 1; i < n; i++)
		if (r[2 * i] < r[2 * i - 1]) {
			ret = -MEMSZ_EBADPHDR;
			break;
		}
	free(r);
	return ret;
}

/* Read every program header. In debug mode (a separate debug file, of
 * which only sections, symbols and notes are used) the segments are kept
 * but not checked: `eu-strip -f` leaves the original program headers in
 * the smaller .debug file, so their file ranges run past its end. */
static int load_segments(struct elfimg *img, Elf *elf, size_t phnum, bool debug)
{
	img->segs = xcalloc(phnum ? phnum : 1, sizeof(*img->segs));
	for (size_t i = 0; i < phnum; i++) {
		struct elf_segment *s = &img->segs[i];
		GElf_Phdr ph;
		int ret;

		if (!gelf_getphdr(elf, i, &ph))
			return -MEMSZ_EBADPHDR;
		s->index = i;
		s->type = ph.p_type;
		s->flags = ph.p_flags;
		s->offset = ph.p_offset;
		s->vaddr = ph.p_vaddr;
		s->filesz = ph.p_filesz;
		s->memsz = ph.p_memsz;
		s->align = ph.p_align;
		img->nsegs++;
		if (s->type == PT_NULL || debug)
			continue;
		ret = range_in_file(s->offset, s->filesz, img->file_size,
				    -MEMSZ_EBADPHDR);
		if (ret)
			return ret;
		if (s->type != PT_LOAD)
			continue;
		if (s->filesz > s->memsz)
			return -MEMSZ_EBADPHDR;
		if (s->vaddr > UINT64_MAX - s->memsz)
			return -MEMSZ_EBADPHDR;
		if (img->vm_size > UINT64_MAX - s->memsz)
			return -MEMSZ_EBADPHDR;
		img->vm_size += s->memsz;
	}
	return debug ? 0 : check_load_overlap(img);
}

/* layout_relocatable() from base, the sections' addresses set if set:
 * where the layout ends. */
static uint64_t layout_from(struct elfimg *img, uint64_t base, bool set)
{
	uint64_t at = base;

	img->vm_size = 0;
	for (size_t i = 1; i < img->nsecs; i++) {
		struct elf_section *s = &img->secs[i];
		uint64_t align = s->addralign > 1 ? s->addralign : 1;

		if (!(s->flags & SHF_ALLOC) || !s->size ||
		    ((s->flags & SHF_TLS) && s->type == SHT_NOBITS) ||
		    s->addr || (align & (align - 1)) || s->size > 1ull << 40)
			continue;
		at = (at + align - 1) & ~(align - 1);
		if (set)
			s->addr = at;
		at += s->size;
		img->vm_size += s->size;
	}
	return at;
}

/* A relocatable file's loaded (SHF_ALLOC) sections all sit at address 0
 * until a linker places them. Give each an address as ld -r would lay
 * them out, in index order, each at its sh_addralign, from
 * ELF_REL_VM_BASE: a .o then has a VM SIZE (the sum of the sections' sizes,
 * as Bloaty and size -A count it) and its symbols (section-relative
 * values) a place in it. The base is far from 0 so that the unrelocated
 * addresses of DWARF and .eh_frame (0, or offsets into a section) never
 * fall into the layout. A 32-bit file's from ELF_REL_VM_BASE32, where its
 * relocations' 4-byte fields reach (unless its sections do not fit below
 * 4 GiB from there, or one has an sh_addr already, which no toolchain
 * writes in a .o: it is left where it says, out of the layout, as a
 * 32-bit sh_addr always is below ELF_REL_VM_BASE, not counted over the
 * laid-out sections). .tbss gets no address, as in a linked file. */
static void layout_relocatable(struct elfimg *img)
{
	bool placed = false;

	for (size_t i = 1; i < img->nsecs; i++)
		placed |= (img->secs[i].flags & SHF_ALLOC) && img->secs[i].addr;
	img->rel_base = ELF_REL_VM_BASE;
	if (img->elfclass == ELFCLASS32 && !placed &&
	    layout_from(img, ELF_REL_VM_BASE32, false) <= 1ull << 32)
		img->rel_base = ELF_REL_VM_BASE32;
	layout_from(img, img->rel_base, true);
}

static int load_sections(struct elfimg *img, Elf *elf, size_t shnum,
			 size_t shstrndx)
{
	const char *names = NULL;
	size_t names_size = 0;

	img->secs = xcalloc(shnum ? shnum : 1, sizeof(*img->secs));
	for (size_t i = 0; i < shnum; i++) {
		struct elf_section *s = &img->secs[i];
		Elf_Scn *scn = elf_getscn(elf, i);
		GElf_Shdr sh;

		if (!scn || !gelf_getshdr(scn, &sh))
			return -MEMSZ_EBADSHDR;
		s->index = i;
		s->name = "";
		s->type = sh.sh_type;
		s->link = sh.sh_link;
		s->info = sh.sh_info;
		s->flags = sh.sh_flags;
		s->addr = sh.sh_addr;
		s->offset = sh.sh_offset;
		s->size = sh.sh_size;
		s->entsize = sh.sh_entsize;
		s->addralign = sh.sh_addralign;
		img->nsecs++;
		if (i == 0 || s->type == SHT_NULL || s->type == SHT_NOBITS)
			continue;
		int ret = range_in_file(s->offset, s->size, img->file_size,
					-MEMSZ_EBADSHDR);
		if (ret)
			return ret;
	}

	if (shstrndx) {
		struct elf_section *st = &img->secs[shstrndx];
		Elf_Data *d;

		if (st->type != SHT_STRTAB)
			return -MEMSZ_EBADSHDR;
		d = elf_rawdata(elf_getscn(elf, shstrndx), NULL);
		if (st->size && (!d || d->d_size != st->size))
			return -MEMSZ_EBADSTRTAB;
		if (d && d->d_buf) {
			/* a copy: elfimg_drop_data() ends libelf's handle */
			struct elfimg_priv *priv = img->priv;

			priv->shstr = xmalloc(d->d_size ? d->d_size : 1);
			memcpy(priv->shstr, d->d_buf, d->d_size);
			names = priv->shstr;
			names_size = d->d_size;
		}
	}

	for (size_t i = 1; i < shnum; i++) {
		struct elf_section *s = &img->secs[i];
		GElf_Shdr sh;

		if (!gelf_getshdr(elf_getscn(elf, i), &sh))
			return -MEMSZ_EBADSHDR;
		if (shstrndx) {
			if (sh.sh_name >= names_size ||
			    !memchr(names + sh.sh_name, 0,
				    names_size - sh.sh_name))
				return -MEMSZ_EBADSTRTAB;
			s->name = names + sh.sh_name;
		}
		/* A symbol table must name a string table. */
		if ((s->type == SHT_SYMTAB || s->type == SHT_DYNSYM) &&
		    (s->link == 0 || s->link >= shnum ||
		     img->secs[s->link].type != SHT_STRTAB))
			return -MEMSZ_EBADSHDR;
	}
	return 0;
}

static void read_debuglink(struct elfimg *img, Elf *elf)
{
	for (size_t i = 1; i < img->nsecs; i++) {
		struct elf_section *s = &img->secs[i];
		const unsigned char *p;
		Elf_Data *d;
		size_t len;

		if (s->type == SHT_NOBITS || strcmp(s->name, ".gnu_debuglink"))
			continue;
		d = elf_rawdata(elf_getscn(elf, i), NULL);
		if (!d || !d->d_buf)
			return;
		p = d->d_buf;
		len = strnlen((const char *)p, d->d_size);
		/* a file name: one longer than NAME_MAX names no file (and
		 * one of gigabytes would overflow the paths made of it) */
		if (len == 0 || len == d->d_size || len > NAME_MAX)
			return;
		/* name, NUL, padding to 4, CRC in the file's byte order */
		size_t crc_off = (len + 1 + 3) & ~(size_t)3;
		if (crc_off + 4 > d->d_size)
			return;
		img->debuglink = xstrndup((const char *)p, len);
		img->debuglink_crc =
		    elf_get_uint(p + crc_off, 4, img->big_endian);
		return;
	}
}

int elf_file_open(const char *path, struct stat *st)
{
	/* looked at through O_PATH first: a device node or FIFO a recording
	 * or a .gnu_debuglink names is never opened (a watchdog's open arms
	 * it, a FIFO's wakes its writer) */
	int fd = open_regular_at(AT_FDCWD, path, st);

	if (fd == -EINVAL)
		return S_ISDIR(st->st_mode) ? -EISDIR : -MEMSZ_ENOTELF;
	return fd;
}

/* Check that libelf's view of img (priv->elf) has exactly the header
 * tables h describes, and set priv->shstrndx and the header fields of
 * img from h. Returns 0, -MEMSZ_EBADELF, -MEMSZ_EBADSHDR or
 * -MEMSZ_EBADPHDR. */
static int check_libelf(struct elfimg *img, const struct rawhdr *h,
			size_t *shnum, size_t *phnum)
{
	struct elfimg_priv *priv = img->priv;
	size_t shstrndx = 0;
	GElf_Ehdr eh;

	if (!priv->elf || elf_kind(priv->elf) != ELF_K_ELF ||
	    !gelf_getehdr(priv->elf, &eh))
		return -MEMSZ_EBADELF;
	if (elf_getshdrnum(priv->elf, shnum) ||
	    elf_getshdrstrndx(priv->elf, &shstrndx))
		return -MEMSZ_EBADSHDR;
	if (elf_getphdrnum(priv->elf, phnum))
		return -MEMSZ_EBADPHDR;
	/* libelf must see exactly the tables we checked. */
	if (*shnum != h->shnum || (*shnum && shstrndx != h->shstrndx))
		return -MEMSZ_EBADSHDR;
	if (*phnum != h->phnum)
		return -MEMSZ_EBADPHDR;
	priv->shstrndx = *shnum ? shstrndx : 0;

	img->elfclass = h->cls;
	img->big_endian = h->be;
	img->type = h->type;
	img->machine = h->machine;
	img->ehdr_size = h->ehsize;
	img->phoff = h->phoff;
	img->phdr_size = *phnum * h->phentsize;
	img->shoff = h->shoff;
	img->shdr_size = *shnum * h->shentsize;
	return 0;
}

unsigned char *elfimg_section_read(struct elfimg *img, size_t i)
{
	const struct elf_section *s = &img->secs[i];
	struct elfimg_priv *priv = img->priv;
	unsigned char *buf;
	size_t got = 0;

	if (s->type == SHT_NOBITS || !s->size || s->size > SIZE_MAX ||
	    s->offset > img->file_size || s->size > img->file_size - s->offset)
		return NULL;
	buf = try_malloc_huge((size_t)s->size);
	if (!buf)
		return NULL;
	/* written whole: resident in one call, not a fault per 4 KiB of
	 * its small pages inside the copy (libLLVM-14's .eh_frame_hdr and
	 * the tail of its .eh_frame: 450) */
	prefault_write(buf, (size_t)s->size);
	while (got < s->size) {
		ssize_t n = pread(priv->fd, buf + got, (size_t)s->size - got,
				  (off_t)(s->offset + got));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			xfree_huge(buf, (size_t)s->size);
			return NULL; /* truncated meanwhile */
		}
		got += (size_t)n;
	}
	return buf;
}

int elfimg_open_mode(const char *path, bool debug, struct elfimg **out)
{
	struct stat st;
	int fd = elf_file_open(path, &st);

	if (fd < 0)
		return fd;
	return elfimg_open_fd(fd, path, debug, out);
}

int elfimg_open_fd(int fd, const char *path, bool debug, struct elfimg **out)
{
	struct elfimg_priv *priv = NULL;
	struct elfimg *img = NULL;
	size_t shnum = 0, phnum = 0;
	struct rawhdr h;
	struct stat st;
	int ret;

	if (fstat(fd, &st) < 0) {
		ret = -errno;
		goto out_close;
	}
	ret = read_rawhdr(fd, st.st_size, &h);
	if (ret)
		goto out_close;

	if (elf_version(EV_CURRENT) == EV_NONE) {
		ret = -MEMSZ_ENOTSUP;
		goto out_close;
	}
	img = xcalloc(1, sizeof(*img));
	priv = xcalloc(1, sizeof(*priv));
	img->priv = priv;
	img->path = xstrdup(path);
	priv->fd = fd;
	priv->elf = elf_begin(fd, ELF_C_READ, NULL);
	priv->mtime = st.st_mtim;
	img->file_size = st.st_size;
	ret = check_libelf(img, &h, &shnum, &phnum);
	if (ret)
		goto out_free;

	ret = load_segments(img, priv->elf, phnum, debug);
	if (ret)
		goto out_free;
	ret = load_sections(img, priv->elf, shnum, priv->shstrndx);
	if (ret)
		goto out_free;
	if (img->type == ET_REL)
		layout_relocatable(img);
	ret =
	    elf_build_id_scan(fd, img->build_id, sizeof(img->build_id), false);
	img->build_id_len = ret > 0 ? ret : 0;
	read_debuglink(img, priv->elf);
	*out = img;
	return 0;

out_free:
	elfimg_close(img);
	return ret;
out_close:
	close(fd);
	return ret;
}

bool elfimg_changed(const struct elfimg *img)
{
	const struct elfimg_priv *priv = img->priv;
	struct stat st;

	if (fstat(priv->fd, &st) < 0)
		return true;
	return (uint64_t)st.st_size != img->file_size ||
	       st.st_mtim.tv_sec != priv->mtime.tv_sec ||
	       st.st_mtim.tv_nsec != priv->mtime.tv_nsec;
}

int elfimg_open(const char *path, struct elfimg **out)
{
	return elfimg_open_mode(path, false, out);
}

void elfimg_reopen_elf(struct elfimg *img)
{
	struct elfimg_priv *priv = img->priv;
	size_t shnum = 0;
	Elf *e;

	/* libelf frees section data only with its handle: a new handle on
	 * the same file, kept only if it sees the same section table */
	e = priv->elf ? elf_begin(priv->fd, ELF_C_READ, NULL) : NULL;
	if (e && !elf_getshdrnum(e, &shnum) && shnum == img->nsecs) {
		elf_end(priv->elf);
		priv->elf = e;
		elf_dwarf_inflated_free(priv);
	} else if (e) {
		elf_end(e);
	}
}

void elfimg_drop_data(struct elfimg *img)
{
	struct elfimg_priv *priv;

	if (!img || !img->priv)
		return;
	priv = img->priv;
	elfimg_reopen_elf(img);
	free(priv->relocs);
	priv->relocs = NULL;
	priv->nrelocs = 0;
	priv->relocs_bad = 0;
	priv->relocs_read = false;
	elfimg_drop_data(img->debug);
	/* the MiniDebugInfo payload's memory file too (up to
	 * MDI_INFLATE_BYTES_MAX each: report keeps every image open); the
	 * map holds copies of its names, and a later elf_minidebug_get()
	 * inflates it again */
	elf_minidebug_free(priv);
}

void elfimg_close(struct elfimg *img)
{
	struct elfimg_priv *priv;

	if (!img)
		return;
	priv = img->priv;
	if (priv) {
		if (priv->elf)
			elf_end(priv->elf);
		elf_dwarf_inflated_free(priv);
		elf_minidebug_free(priv);
		close(priv->fd);
		free(priv->raw);
		free(priv->shstr);
		free(priv->debug_root);
		free(priv->relocs);
		free(priv->xref_raw);
		free(priv);
	}
	elfimg_close(img->debug);
	free(img->segs);
	free(img->secs);
	free(img->debuglink);
	free(img->debug_rejected);
	free(img->path);
	free(img);
}

char *elfimg_build_id_hex(const struct elfimg *img, char *buf, size_t len)
{
	size_t i;

	if (!len)
		return buf;
	buf[0] = 0;
	for (i = 0; i < img->build_id_len && 2 * i + 2 < len; i++)
		snprintf(buf + 2 * i, 3, "%02x", img->build_id[i]);
	return buf;
}

char *elfimg_section_label(const char *name)
{
	static const char pre[] = "[section ";
	size_t n = strlen(name), k = sizeof(pre) - 1;
	char *s = xmalloc(k + n + 2);

	memcpy(s, pre, k);
	memcpy(s + k, name, n);
	memcpy(s + k + n, "]", 2);
	return s;
}

void elfimg_load_label(const struct elf_segment *seg, char *buf, size_t len)
{
	snprintf(buf, len, "LOAD #%u [%s%s%s]", seg->index,
		 seg->flags & PF_R ? "R" : "", seg->flags & PF_W ? "W" : "",
		 seg->flags & PF_X ? "X" : "");
}

/* Label a header table in the file; when a PT_LOAD holds all of it (the
 * first two usually are, at the start of LOAD #0) translated to VM, and
 * with vm set labelled in VM too. */
static void add_header(struct elfimg *img, struct dualmap *out, uint64_t off,
		       uint64_t size, uint32_t label, bool vm)
{
	for (size_t i = 0; i < img->nsegs; i++) {
		struct elf_segment *s = &img->segs[i];
		uint64_t va;

		if (s->type != PT_LOAD || off < s->offset ||
		    off + size > s->offset + s->filesz)
			continue;
		va = s->vaddr + (off - s->offset);
		if (vm)
			dualmap_add_both(out, va, size, off, size, label);
		else
			rmap_add_translated(out->file, off, size, va, label);
		return;
	}
	rmap_add(out->file, off, size, label);
}

/* The VM of a relocatable file: its laid-out sections (see
 * layout_relocatable), each "[section NAME]", file bytes translated. */
static void add_rel_sections(struct elfimg *img, struct labels *lb,
			     struct dualmap *out)
{
	for (size_t i = 1; i < img->nsecs; i++) {
		const struct elf_section *s = &img->secs[i];
		char *name;

		if (s->addr < img->rel_base)
			continue;
		name = elfimg_section_label(s->name);
		dualmap_add_both(out, s->addr, s->size, s->offset,
				 s->type == SHT_NOBITS ? 0 : s->size,
				 labels_intern(lb, name));
		free(name);
	}
}

/* The VM of segment seg that a NOBITS section holds although seg's file
 * bytes run past it (sections a linker script puts after it, or .ldata
 * after .lbss: ld writes zeros for it then), labelled label with no file
 * translation: such a section has VM size only, readelf giving it no
 * file bytes, and those bytes stay the segment's, as Bloaty has them.
 * .tbss is no part of the segment's VM. */
static void add_nobits_vm(const struct elfimg *img,
			  const struct elf_segment *seg, struct dualmap *out,
			  uint32_t label)
{
	uint64_t end = seg->vaddr + seg->filesz;

	for (size_t i = 1; i < img->nsecs; i++) {
		const struct elf_section *s = &img->secs[i];
		uint64_t a = MAX(s->addr, seg->vaddr), b;

		if (s->type != SHT_NOBITS || !(s->flags & SHF_ALLOC) ||
		    (s->flags & SHF_TLS))
			continue;
		b = s->size > UINT64_MAX - s->addr ? UINT64_MAX
						   : s->addr + s->size;
		b = MIN(b, end);
		if (a < b)
			rmap_add_translated(out->vm, a, b - a,
					    RMAP_NO_TRANSLATION, label);
	}
}

static void add_loads(struct elfimg *img, struct labels *lb,
		      struct dualmap *out)
{
	char buf[48];

	if (img->type == ET_REL) {
		add_rel_sections(img, lb, out);
		return;
	}

	for (size_t i = 0; i < img->nsegs; i++) {
		struct elf_segment *s = &img->segs[i];

		if (s->type != PT_LOAD)
			continue;
		elfimg_load_label(s, buf, sizeof(buf));
		add_nobits_vm(img, s, out, labels_intern(lb, buf));
		dualmap_add_both(out, s->vaddr, s->memsz, s->offset, s->filesz,
				 labels_intern(lb, buf));
	}
}

static void add_headers(struct elfimg *img, struct labels *lb,
			struct dualmap *out, bool vm)
{
	add_header(img, out, 0, img->ehdr_size,
		   labels_intern(lb, "[ELF Header]"), vm);
	if (img->phdr_size)
		add_header(img, out, img->phoff, img->phdr_size,
			   labels_intern(lb, "[ELF Program Headers]"), vm);
	if (img->shdr_size)
		add_header(img, out, img->shoff, img->shdr_size,
			   labels_intern(lb, "[ELF Section Headers]"), vm);
}

void elfimg_add_fallbacks(struct elfimg *img, struct labels *lb,
			  struct dualmap *out, bool no_loads)
{
	/* The headers before the LOADs: a header table a PT_LOAD maps is
	 * its own row in both spaces, not part of "LOAD #0 [R]". */
	add_headers(img, lb, out, !no_loads);
	if (!no_loads)
		add_loads(img, lb, out);
	rmap_add(out->file, 0, img->file_size, labels_intern(lb, "[Unmapped]"));
}

int elfimg_base_map(struct elfimg *img, struct labels *lb, struct dualmap *out)
{
	add_headers(img, lb, out, false);
	add_loads(img, lb, out);
	rmap_add(out->file, 0, img->file_size, labels_intern(lb, "[Unmapped]"));
	return 0;
}
