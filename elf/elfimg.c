/* elfimg.c — open and validate an ELF image; build-id, debuglink, base map.
 *
 * Validation happens in two steps. First the ELF header is read with pread
 * and decoded by hand (either byte order), and the two header tables are
 * checked against the file size: libelf is never handed a file whose
 * tables run past its end. Then libelf (ELF_C_READ_MMAP: nothing is copied
 * into malloc'd memory for native-endian files) gives the program and
 * section headers, each checked before use.
 *
 * Codes: anything that runs past the end of the file is -MEMSZ_ETRUNC (a
 * truncated file and a corrupt offset look the same); an impossible value
 * (wrong entry size, wrapping range, bad index) is -MEMSZ_EBADPHDR or
 * -MEMSZ_EBADSHDR; a name offset outside its string table is
 * -MEMSZ_EBADSTRTAB; an impossible ELF header is -MEMSZ_EBADELF.
 */
#include "config.h"

#include "elf/elfpriv.h"
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
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
static int table_end(uint64_t off, uint64_t n, uint64_t entsize,
		     uint64_t *end)
{
	if (entsize && n > UINT64_MAX / entsize)
		return -1;
	if (off > UINT64_MAX - n * entsize)
		return -1;
	*end = off + n * entsize;
	return 0;
}

static int read_rawhdr(int fd, uint64_t fsize, struct rawhdr *h)
{
	unsigned char b[64], s0[64];
	const unsigned char *e;
	size_t need, shsz, phsz;
	uint64_t end;
	ssize_t n;

	memset(h, 0, sizeof(*h));
	n = pread(fd, b, MIN(fsize, sizeof(b)), 0);
	if (n < 0)
		return -errno;
	if ((size_t)n < MIN(fsize, sizeof(b)))
		return -MEMSZ_ETRUNC;
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
	need = h->cls == ELFCLASS64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr);
	shsz = h->cls == ELFCLASS64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr);
	phsz = h->cls == ELFCLASS64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr);
	if (fsize < need)
		return -MEMSZ_ETRUNC;

	h->type = elf_get_uint(b + 16, 2, h->be);
	h->machine = elf_get_uint(b + 18, 2, h->be);
	if (h->cls == ELFCLASS64) {
		h->phoff = elf_get_uint(b + 32, 8, h->be);
		h->shoff = elf_get_uint(b + 40, 8, h->be);
		e = b + 52;
	} else {
		h->phoff = elf_get_uint(b + 28, 4, h->be);
		h->shoff = elf_get_uint(b + 32, 4, h->be);
		e = b + 40;
	}
	h->ehsize = elf_get_uint(e, 2, h->be);
	h->phentsize = elf_get_uint(e + 2, 2, h->be);
	h->phnum = elf_get_uint(e + 4, 2, h->be);
	h->shentsize = elf_get_uint(e + 6, 2, h->be);
	h->shnum = elf_get_uint(e + 8, 2, h->be);
	h->shstrndx = elf_get_uint(e + 10, 2, h->be);
	if (h->ehsize < need)
		return -MEMSZ_EBADELF;
	if (h->ehsize > fsize)
		return -MEMSZ_ETRUNC;

	/* Section header table, with extended numbering from section 0. */
	if (h->shoff == 0) {
		if (h->shnum)
			return -MEMSZ_EBADSHDR;
		if (h->phnum == PN_XNUM)
			return -MEMSZ_EBADPHDR;
		h->shstrndx = 0;
	} else {
		if (h->shentsize != shsz)
			return -MEMSZ_EBADSHDR;
		if (table_end(h->shoff, MAX(h->shnum, 1), shsz, &end))
			return -MEMSZ_EBADSHDR;
		if (end > fsize)
			return -MEMSZ_ETRUNC;
		n = pread(fd, s0, shsz, h->shoff);
		if (n < 0)
			return -errno;
		if ((size_t)n < shsz)
			return -MEMSZ_ETRUNC;
		/* sh_size, sh_link, sh_info of section 0 */
		if (h->shnum == 0)
			h->shnum = h->cls == ELFCLASS64 ?
					   elf_get_uint(s0 + 32, 8, h->be) :
					   elf_get_uint(s0 + 20, 4, h->be);
		if (h->shstrndx == SHN_XINDEX)
			h->shstrndx = h->cls == ELFCLASS64 ?
					      elf_get_uint(s0 + 40, 4, h->be) :
					      elf_get_uint(s0 + 24, 4, h->be);
		if (h->phnum == PN_XNUM)
			h->phnum = h->cls == ELFCLASS64 ?
					   elf_get_uint(s0 + 44, 4, h->be) :
					   elf_get_uint(s0 + 28, 4, h->be);
		if (table_end(h->shoff, h->shnum, shsz, &end))
			return -MEMSZ_EBADSHDR;
		if (end > fsize)
			return -MEMSZ_ETRUNC;
		if (h->shnum == 0 || h->shstrndx >= h->shnum)
			return -MEMSZ_EBADSHDR;
	}

	if (h->phnum) {
		if (h->phentsize != phsz)
			return -MEMSZ_EBADPHDR;
		if (table_end(h->phoff, h->phnum, phsz, &end))
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

static int cmp_u64pair(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return 0;
}

/* PT_LOADs must not overlap in VM: the VM size is their sum (invariant I1)
 * and the loader never maps two segments over each other. */
static int check_load_overlap(struct elfimg *img)
{
	uint64_t *r = xcalloc(2 * (img->nsegs ? img->nsegs : 1),
			      sizeof(*r));
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
		qsort(r, n, 2 * sizeof(*r), cmp_u64pair);
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
static int load_segments(struct elfimg *img, Elf *elf, size_t phnum,
			 bool debug)
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
		if (d) {
			names = d->d_buf;
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

/* --- build-id: pread only, shared with record/ (elf_build_id_read) --- */

/* The NT_GNU_BUILD_ID descriptor in the notes p[0, size) (padded to align:
 * 8 or else 4), copied to id. One longer than max is cut to max bytes if
 * cut, else skipped. Returns its length, 0 if none. */
static int notes_build_id(const unsigned char *p, uint64_t size,
			  uint64_t align, bool be, uint8_t *id, size_t max,
			  bool cut)
{
	uint64_t pad = align == 8 ? 7 : 3, pos = 0;

	while (size - pos >= 12) {
		uint64_t nsz = elf_get_uint(p + pos, 4, be);
		uint64_t dsz = elf_get_uint(p + pos + 4, 4, be);
		uint64_t type = elf_get_uint(p + pos + 8, 4, be);
		uint64_t name = pos + 12;
		uint64_t desc = (name + nsz + pad) & ~pad;
		uint64_t next = (desc + dsz + pad) & ~pad;

		if (desc + dsz > size)
			break;
		if (type == NT_GNU_BUILD_ID && nsz == 4 &&
		    !memcmp(p + name, "GNU", 4) && dsz &&
		    (cut || dsz <= max)) {
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

/* notes_build_id() of the file bytes [off, off+size). */
static int pread_notes(int fd, uint64_t off, uint64_t size, uint64_t align,
		       bool be, uint8_t *id, size_t max, bool cut)
{
	unsigned char *buf;
	int ret = 0;

	if (size < 12 || size > (1 << 20) || off > INT64_MAX - size)
		return 0;
	buf = xmalloc(size);
	if (pread(fd, buf, size, off) == (ssize_t)size)
		ret = notes_build_id(buf, size, align, be, id, max, cut);
	free(buf);
	return ret;
}

/* n headers of entsize bytes at off, malloc'd; NULL if unreadable. */
static unsigned char *pread_table(int fd, uint64_t off, uint64_t n,
				  uint64_t entsize)
{
	unsigned char *buf;
	uint64_t end;

	if (!n || table_end(off, n, entsize, &end) || end > INT64_MAX ||
	    n * entsize > (64 << 20))
		return NULL;
	buf = xmalloc(n * entsize);
	if (pread(fd, buf, n * entsize, off) != (ssize_t)(n * entsize)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* The build-id of the ELF file open on fd: the first NT_GNU_BUILD_ID note
 * of its SHT_NOTE sections, else of its PT_NOTE segments (sstrip'ed
 * files). See elf_build_id_read(); cut as in notes_build_id(). */
static int build_id_scan(int fd, uint8_t *id, size_t max, bool cut)
{
	unsigned char b[64], *t;
	uint64_t phoff, shoff, phnum, shnum, phsz, shsz;
	bool is64, be;
	ssize_t n;
	int ret = 0;

	n = pread(fd, b, sizeof(b), 0);
	if (n < 0)
		return -errno;
	if (n < EI_NIDENT || memcmp(b, ELFMAG, SELFMAG) ||
	    (b[EI_CLASS] != ELFCLASS32 && b[EI_CLASS] != ELFCLASS64) ||
	    (b[EI_DATA] != ELFDATA2LSB && b[EI_DATA] != ELFDATA2MSB))
		return -MEMSZ_ENOTELF;
	is64 = b[EI_CLASS] == ELFCLASS64;
	be = b[EI_DATA] == ELFDATA2MSB;
	if ((size_t)n < (is64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr)))
		return -MEMSZ_ETRUNC;
	phsz = is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr);
	shsz = is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr);
	phoff = elf_get_uint(b + (is64 ? 32 : 28), is64 ? 8 : 4, be);
	shoff = elf_get_uint(b + (is64 ? 40 : 32), is64 ? 8 : 4, be);
	phnum = elf_get_uint(b + (is64 ? 56 : 44), 2, be);
	shnum = elf_get_uint(b + (is64 ? 60 : 48), 2, be);
	if (elf_get_uint(b + (is64 ? 54 : 42), 2, be) != phsz)
		phnum = 0;
	if (elf_get_uint(b + (is64 ? 58 : 46), 2, be) != shsz || !shoff)
		shnum = 0;
	else if (!shnum || phnum == PN_XNUM) {
		/* extended numbering: sh_size, sh_info of section 0 */
		t = pread_table(fd, shoff, 1, shsz);
		if (t && !shnum)
			shnum = elf_get_uint(t + (is64 ? 32 : 20),
					     is64 ? 8 : 4, be);
		if (t && phnum == PN_XNUM)
			phnum = elf_get_uint(t + (is64 ? 44 : 28), 4, be);
		free(t);
	}
	if (phnum == PN_XNUM)
		phnum = 0;

	t = pread_table(fd, shoff, shnum, shsz);
	for (uint64_t i = 1; t && i < shnum && !ret; i++) {
		const unsigned char *h = t + i * shsz;

		if (elf_get_uint(h + 4, 4, be) != SHT_NOTE)
			continue;
		ret = pread_notes(fd,
				  elf_get_uint(h + (is64 ? 24 : 16),
					       is64 ? 8 : 4, be),
				  elf_get_uint(h + (is64 ? 32 : 20),
					       is64 ? 8 : 4, be),
				  elf_get_uint(h + (is64 ? 48 : 32),
					       is64 ? 8 : 4, be),
				  be, id, max, cut);
	}
	free(t);
	t = pread_table(fd, phoff, phnum, phsz);
	for (uint64_t i = 0; t && i < phnum && !ret; i++) {
		const unsigned char *h = t + i * phsz;

		if (elf_get_uint(h, 4, be) != PT_NOTE)
			continue;
		ret = pread_notes(fd,
				  elf_get_uint(h + (is64 ? 8 : 4),
					       is64 ? 8 : 4, be),
				  elf_get_uint(h + (is64 ? 32 : 16),
					       is64 ? 8 : 4, be),
				  elf_get_uint(h + (is64 ? 48 : 28),
					       is64 ? 8 : 4, be),
				  be, id, max, cut);
	}
	free(t);
	return ret;
}

int elf_build_id_read(int fd, uint8_t *id, size_t max)
{
	return build_id_scan(fd, id, max, true);
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
		if (len == 0 || len == d->d_size)
			return;
		/* name, NUL, padding to 4, CRC in the file's byte order */
		size_t crc_off = (len + 1 + 3) & ~(size_t)3;
		if (crc_off + 4 > d->d_size)
			return;
		img->debuglink = xstrndup((const char *)p, len);
		img->debuglink_crc = elf_get_uint(p + crc_off, 4,
						  img->big_endian);
		return;
	}
}

int elfimg_open_mode(const char *path, bool debug, struct elfimg **out)
{
	struct elfimg_priv *priv = NULL;
	struct elfimg *img = NULL;
	size_t shnum = 0, phnum = 0, shstrndx = 0;
	struct rawhdr h;
	struct stat st;
	GElf_Ehdr eh;
	int fd, ret, fl;

	/* O_NONBLOCK: opening a FIFO must not wait for a writer (a hostile
	 * .gnu_debuglink may name one). Cleared once we know it is a file. */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		ret = -errno;
		goto out_close;
	}
	if (S_ISDIR(st.st_mode)) {
		ret = -EISDIR;
		goto out_close;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = -MEMSZ_ENOTELF;
		goto out_close;
	}
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
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
	priv->elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!priv->elf || elf_kind(priv->elf) != ELF_K_ELF ||
	    !gelf_getehdr(priv->elf, &eh)) {
		ret = -MEMSZ_EBADELF;
		goto out_free;
	}
	if (elf_getshdrnum(priv->elf, &shnum) ||
	    elf_getshdrstrndx(priv->elf, &shstrndx)) {
		ret = -MEMSZ_EBADSHDR;
		goto out_free;
	}
	if (elf_getphdrnum(priv->elf, &phnum)) {
		ret = -MEMSZ_EBADPHDR;
		goto out_free;
	}
	/* libelf must see exactly the tables we checked. */
	if (shnum != h.shnum || (shnum && shstrndx != h.shstrndx)) {
		ret = -MEMSZ_EBADSHDR;
		goto out_free;
	}
	if (phnum != h.phnum) {
		ret = -MEMSZ_EBADPHDR;
		goto out_free;
	}
	priv->shstrndx = shnum ? shstrndx : 0;

	img->file_size = st.st_size;
	img->elfclass = h.cls;
	img->big_endian = h.be;
	img->type = h.type;
	img->machine = h.machine;
	img->ehdr_size = h.ehsize;
	img->phoff = h.phoff;
	img->phdr_size = phnum * h.phentsize;
	img->shoff = h.shoff;
	img->shdr_size = shnum * h.shentsize;

	ret = load_segments(img, priv->elf, phnum, debug);
	if (ret)
		goto out_free;
	ret = load_sections(img, priv->elf, shnum, priv->shstrndx);
	if (ret)
		goto out_free;
	ret = build_id_scan(fd, img->build_id, sizeof(img->build_id), false);
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

int elfimg_open(const char *path, struct elfimg **out)
{
	return elfimg_open_mode(path, false, out);
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
		close(priv->fd);
		free(priv->debug_root);
		free(priv->relocs);
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

void elfimg_load_label(const struct elf_segment *seg, char *buf, size_t len)
{
	snprintf(buf, len, "LOAD #%u [%s%s%s]", seg->index,
		 seg->flags & PF_R ? "R" : "", seg->flags & PF_W ? "W" : "",
		 seg->flags & PF_X ? "X" : "");
}

/* Label a header table in the file; when a PT_LOAD holds all of it (the
 * first two usually are, at the start of LOAD #0) translated to VM, and
 * with vm set labelled in VM too. */
static void add_header(struct elfimg *img, struct dualmap *out,
		       uint64_t off, uint64_t size, uint32_t label, bool vm)
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

static void add_loads(struct elfimg *img, struct labels *lb,
		      struct dualmap *out)
{
	char buf[48];

	for (size_t i = 0; i < img->nsegs; i++) {
		struct elf_segment *s = &img->segs[i];

		if (s->type != PT_LOAD)
			continue;
		elfimg_load_label(s, buf, sizeof(buf));
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

int elfimg_base_map(struct elfimg *img, struct labels *lb,
		    struct dualmap *out)
{
	add_headers(img, lb, out, false);
	add_loads(img, lb, out);
	rmap_add(out->file, 0, img->file_size, labels_intern(lb, "[Unmapped]"));
	return 0;
}
