// SPDX-License-Identifier: GPL-2.0-or-later
/* minidebug.c — an image's MiniDebugInfo (see minidebug.h): the
 * .gnu_debugdata section inflated with liblzma into a memory file and
 * opened as a debug image.
 *
 * Why not libdwfl, which reads it too (dwfl_module_getsymtab(), its "aux
 * symtab"): libdwfl 0.188 inflates it with no bound on the output (its
 * buffer doubles until the stream ends: dwfl_module_getsymtab() of a file
 * whose .gnu_debugdata is 49 KB of xz holding 320 MiB of zeros peaks at
 * 330 MiB of RSS), and an image is untrusted input here. Its
 * symbols would also need their section indexes mapped back to the
 * file's, as below, and a Dwfl set up per image. liblzma is the library
 * libdw itself links for this (Debian's liblzma5, pulled in by libdw1):
 * memsz reads the stream's index first, refuses a declared size past the
 * bound, and inflates into a buffer of exactly that size, so a stream
 * that lies stops where the buffer ends. */
#include "config.h"

#include "elf/minidebug.h"
#include "elf/symtab.h"
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <lzma.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MDI_SECTION ".gnu_debugdata"
/* Memory liblzma may take to decode (the LZMA2 dictionary): xz -9's
 * stream needs 65 MiB, the default -6's 9 MiB. */
#define MDI_DECODER_MEM (128ull << 20)
/* Memory for the stream's index: one record a block (xz -T0 cuts a block
 * every 24 MiB of input; a payload has a few). */
#define MDI_INDEX_MEM (4ull << 20)

static const char *const why_str[ELF_MDI_WHY__COUNT] = {
    [ELF_MDI_READ] = "read",
    [ELF_MDI_XZ_BAD] = "its xz stream is corrupt or truncated",
    [ELF_MDI_TOO_BIG] = "its xz index declares more inflated bytes than "
			"memsz reads",
    [ELF_MDI_OVERSIZE] = "its xz stream inflates past the size its index "
			 "declares",
    [ELF_MDI_MEMLIMIT] = "decoding its xz stream needs more memory than "
			 "memsz gives it",
    [ELF_MDI_NO_MEMFD] = "no memory file to inflate it into",
    [ELF_MDI_NOT_ELF] = "it inflates to no ELF file memsz can read",
    [ELF_MDI_FOREIGN] = "it is an ELF file of another class, byte order "
			"or machine",
    [ELF_MDI_NO_SYMTAB] = "it has no .symtab",
    [ELF_MDI_BAD_SYMTAB] = "its .symtab cannot be read",
};

const char *elf_minidebug_why_str(int why)
{
	if (why < 0 || why >= ELF_MDI_WHY__COUNT)
		return "unknown";
	return why_str[why];
}

/* The inflated size that the xz stream in[0, n) declares in its index,
 * into *size: the stream must be the whole of in (one stream, no
 * padding), with a valid header, footer and index (CRC-32 checked).
 * Returns ELF_MDI_READ, ELF_MDI_XZ_BAD or ELF_MDI_MEMLIMIT. */
static int xz_declared(const uint8_t *in, size_t n, uint64_t *size)
{
	lzma_stream_flags head, foot;
	lzma_index *idx = NULL;
	uint64_t mem = MDI_INDEX_MEM;
	size_t end, pos;
	lzma_ret r;
	int why = ELF_MDI_READ;

	if (n < 2 * LZMA_STREAM_HEADER_SIZE ||
	    lzma_stream_header_decode(&head, in) != LZMA_OK ||
	    lzma_stream_footer_decode(
		&foot, in + n - LZMA_STREAM_HEADER_SIZE) != LZMA_OK ||
	    lzma_stream_flags_compare(&head, &foot) != LZMA_OK)
		return ELF_MDI_XZ_BAD;
	end = n - LZMA_STREAM_HEADER_SIZE;
	if (foot.backward_size > end - LZMA_STREAM_HEADER_SIZE)
		return ELF_MDI_XZ_BAD;
	pos = end - foot.backward_size;
	r = lzma_index_buffer_decode(&idx, &mem, NULL, in, &pos, end);
	if (r == LZMA_MEMLIMIT_ERROR)
		return ELF_MDI_MEMLIMIT;
	if (r != LZMA_OK)
		return ELF_MDI_XZ_BAD;
	if (pos != end || lzma_index_stream_size(idx) != n)
		why = ELF_MDI_XZ_BAD;
	*size = lzma_index_uncompressed_size(idx);
	lzma_index_end(idx, NULL);
	return why;
}

/* Decode from s into out[0, len) until it is full or the stream ends or
 * fails: what lzma_code() last returned. */
static lzma_ret xz_run(lzma_stream *s, uint8_t *out, size_t len)
{
	lzma_ret r = LZMA_OK;

	s->next_out = out;
	s->avail_out = len;
	while (r == LZMA_OK && s->avail_out)
		r = lzma_code(s, LZMA_FINISH);
	return r;
}

static int xz_why(lzma_ret r)
{
	if (r == LZMA_MEMLIMIT_ERROR)
		return ELF_MDI_MEMLIMIT;
	return ELF_MDI_XZ_BAD;
}

/* Is head[0, nh), a payload's first bytes, the ELF header of a file of
 * img's class, byte order and machine? ELF_MDI_READ or why not. */
static int elf_head_check(const uint8_t *head, size_t nh,
			  const struct elfimg *img, int *err)
{
	uint16_t machine;

	if (nh < EI_NIDENT + 4 || memcmp(head, ELFMAG, SELFMAG)) {
		*err = -MEMSZ_ENOTELF;
		return ELF_MDI_NOT_ELF;
	}
	machine = img->big_endian ? (uint16_t)(head[18] << 8 | head[19])
				  : (uint16_t)(head[19] << 8 | head[18]);
	if (head[EI_CLASS] != img->elfclass ||
	    head[EI_DATA] != (img->big_endian ? ELFDATA2MSB : ELFDATA2LSB) ||
	    machine != img->machine)
		return ELF_MDI_FOREIGN;
	return ELF_MDI_READ;
}

/* Inflate the rest of s (its first nh bytes, head, decoded) into a new
 * memory file of size bytes, into *fd: exactly size bytes from exactly
 * the n of the stream. Its pages are allocated before they are written:
 * a full memory cgroup gives an error, not a SIGBUS. */
static int xz_rest_to_memfd(lzma_stream *s, size_t n, const uint8_t *head,
			    size_t nh, uint64_t size, int *fd, int *err)
{
	lzma_ret r;
	uint8_t *p;

	*fd = memfd_create("memsz-minidebuginfo", MFD_CLOEXEC);
	if (*fd < 0) {
		*err = -errno;
		return ELF_MDI_NO_MEMFD;
	}
	errno = posix_fallocate(*fd, 0, (off_t)size);
	p = errno
		? MAP_FAILED
		: mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
	if (p == MAP_FAILED) {
		*err = -errno;
		return ELF_MDI_NO_MEMFD;
	}
	memcpy(p, head, nh);
	r = xz_run(s, p + nh, size - nh);
	/* full: the stream must end here, not hold more */
	while (r == LZMA_OK)
		r = lzma_code(s, LZMA_FINISH);
	munmap(p, size);
	if (r == LZMA_BUF_ERROR)
		return ELF_MDI_OVERSIZE; /* the output buffer ran out */
	if (r != LZMA_STREAM_END)
		return xz_why(r);
	if (s->avail_out || s->total_in != n)
		return ELF_MDI_XZ_BAD;
	return ELF_MDI_READ;
}

/* A memory file holding the payload that the stream in[0, n) inflates
 * to (size bytes, as its index declared), into *fd. Its ELF header is
 * inflated and checked against img first: a payload of another kind is
 * refused before the rest is inflated (240 MiB of zeros in 36 KB of xz
 * took 5.2 s). Returns ELF_MDI_READ or why not (*err: -errno). */
static int inflate_to_memfd(const uint8_t *in, size_t n, uint64_t size,
			    const struct elfimg *img, int *fd, int *err)
{
	lzma_stream s = LZMA_STREAM_INIT;
	uint8_t head[sizeof(Elf64_Ehdr)];
	size_t nh = MIN(size, sizeof(head));
	lzma_ret r;
	int why;

	*fd = -1;
	r = lzma_stream_decoder(&s, MDI_DECODER_MEM, 0);
	if (r != LZMA_OK)
		return r == LZMA_MEM_ERROR ? ELF_MDI_MEMLIMIT : ELF_MDI_XZ_BAD;
	s.next_in = in;
	s.avail_in = n;
	r = xz_run(&s, head, nh);
	if (r != LZMA_OK && r != LZMA_STREAM_END)
		why = xz_why(r);
	else if (s.avail_out)
		why = ELF_MDI_XZ_BAD; /* shorter than its index says */
	else
		why = elf_head_check(head, nh, img, err);
	if (!why)
		why = xz_rest_to_memfd(&s, n, head, nh, size, fd, err);
	lzma_end(&s);
	if (why && *fd >= 0) {
		close(*fd);
		*fd = -1;
	}
	return why;
}

static ssize_t find_named(const struct elfimg *img, const char *name)
{
	for (size_t i = 1; i < img->nsecs; i++)
		if (img->secs[i].type != SHT_NOBITS && img->secs[i].size &&
		    !strcmp(img->secs[i].name, name))
			return i;
	return -1;
}

/* Inflate and open the .gnu_debugdata section sec of img into m. */
static void mdi_open(struct elfimg *img, size_t sec, struct elf_mdi *m)
{
	unsigned char *z = elfimg_section_read(img, sec);
	uint64_t zn = img->secs[sec].size, bound;
	struct elfimg *aux = NULL;
	char *name;
	int fd = -1, ret;

	m->zsize = zn;
	if (!z) {
		m->why = ELF_MDI_XZ_BAD; /* cut meanwhile (or no memory) */
		return;
	}
	m->why = xz_declared(z, zn, &m->size);
	bound = zn > UINT64_MAX / MDI_INFLATE_RATIO_MAX
		    ? UINT64_MAX
		    : MAX(MDI_INFLATE_BYTES_MAX, zn * MDI_INFLATE_RATIO_MAX);
	if (!m->why && (m->size > bound || m->size > SIZE_MAX))
		m->why = ELF_MDI_TOO_BIG;
	if (!m->why && !m->size)
		m->why = ELF_MDI_NOT_ELF;
	if (!m->why)
		m->why = inflate_to_memfd(z, zn, m->size, img, &fd, &m->err);
	xfree_huge(z, zn);
	if (m->why)
		return;
	name = xasprintf("%s[%s]", img->path, MDI_SECTION);
	ret = elfimg_open_fd(fd, name, true, &aux);
	free(name);
	if (ret) {
		m->why = ELF_MDI_NOT_ELF;
		m->err = ret;
		return;
	}
	if (aux->elfclass != img->elfclass ||
	    aux->big_endian != img->big_endian || aux->machine != img->machine)
		m->why = ELF_MDI_FOREIGN;
	else if (elf_symtab_find(aux, SHT_SYMTAB) < 0)
		m->why = ELF_MDI_NO_SYMTAB;
	m->nested = find_named(aux, MDI_SECTION) >= 0;
	if (m->why)
		elfimg_close(aux);
	else
		m->img = aux;
}

const struct elf_mdi *elf_minidebug_get(struct elfimg *img)
{
	struct elfimg_priv *priv = img->priv;
	ssize_t sec;

	if (!priv->mdi)
		priv->mdi = xcalloc(1, sizeof(*priv->mdi));
	if (priv->mdi->searched)
		return priv->mdi;
	priv->mdi->searched = true;
	sec = find_named(img, MDI_SECTION);
	if (sec >= 0)
		mdi_open(img, sec, priv->mdi);
	return priv->mdi;
}

/* A section of the file, as the payload's are matched to it. */
struct sec_key {
	const char *name;
	uint64_t addr, size;
	bool alloc;
	size_t index;
};

static int sec_key_cmp(const void *a, const void *b)
{
	const struct sec_key *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	if (x->addr != y->addr)
		return u64_cmp(x->addr, y->addr);
	if (x->size != y->size)
		return u64_cmp(x->size, y->size);
	return (int)x->alloc - (int)y->alloc;
}

static struct sec_key sec_key_of(const struct elf_section *s)
{
	return (struct sec_key){s->name, s->addr, s->size,
				(s->flags & SHF_ALLOC) != 0, s->index};
}

size_t *elf_minidebug_secmap(const struct elfimg *img, const struct elfimg *mdi)
{
	size_t *map = xcalloc(mdi->nsecs ? mdi->nsecs : 1, sizeof(*map));
	struct sec_key *keys;
	size_t n = 0;

	/* sorted, looked up: a payload of many sections costs n log n,
	 * not n times the file's */
	keys = xcalloc(img->nsecs ? img->nsecs : 1, sizeof(*keys));
	for (size_t i = 1; i < img->nsecs; i++)
		if (img->secs[i].name[0])
			keys[n++] = sec_key_of(&img->secs[i]);
	qsort(keys, n, sizeof(*keys), sec_key_cmp);
	for (size_t j = 1; j < mdi->nsecs; j++) {
		struct sec_key k = sec_key_of(&mdi->secs[j]);
		const struct sec_key *hit;

		if (!k.name[0])
			continue;
		hit = bsearch(&k, keys, n, sizeof(*keys), sec_key_cmp);
		if (hit)
			map[j] = hit->index;
	}
	free(keys);
	return map;
}

void elf_minidebug_free(struct elfimg_priv *priv)
{
	if (!priv->mdi)
		return;
	elfimg_close(priv->mdi->img);
	free(priv->mdi);
	priv->mdi = NULL;
}
