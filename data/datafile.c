/* datafile.c — the memsz.data codec: explicit little-endian encoding, one
 * write() per record, and a validating reader. See datafile.h and
 * man/memsz-data.5 for the layout. */
#include "config.h"

#include "data/datafile.h"
#include "data/pgstate.h"
#include "data/stackref.h"
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif

/* The layouts below are those of man/memsz-data.5: byte offsets of each
 * field, so that the writer and the reader say the same thing by name. */

/* The file header (struct md_file_header). */
#define MD_HEADER_SIZE 64
#define MD_MAGIC_LEN (sizeof(MD_MAGIC) - 1) /* no NUL in the file */
enum {
	HDR_MAGIC = 0,
	HDR_VERSION = 8,      /* u32 */
	HDR_HEADER_SIZE = 12, /* u32 */
	HDR_FLAGS = 16,       /* u64 */
	HDR_REALTIME = 24,    /* u64 start_realtime_ns */
	HDR_MONO = 32,        /* u64 start_mono_ns */
	HDR_PAGE_SIZE = 40,   /* u32 */
	HDR_CRC = 44,         /* u32 header_crc (MD_F_CRC) */
	HDR_RESERVED = 48,    /* u64[2] */
};
/* Base page sizes a header may give: Linux uses 4 KiB to 256 KiB; every
 * page count is scaled by it, so anything outside these bounds (or not a
 * power of two) is taken as corruption. */
#define MD_PAGE_SIZE_MIN 4096u
#define MD_PAGE_SIZE_MAX (1u << 30)

/* Each record's header: u32 type, u32 crc (MD_F_CRC; else 0), u64 size. */
#define MD_REC_HDR 16
enum { REC_TYPE = 0, REC_CRC = 4, REC_SIZE = 8 };

/* A page run of a version 1 SNAP_MAPPING record (struct md_run). Version
 * 2 stores the pages in the encoding of pgstate.h instead, after the
 * name: u32 npalette, u32 crc, u64 nbytes, the palette (npalette
 * entries of PGSTATE_PAL_SIZE bytes), the block stream (nbytes), zero
 * padding to a multiple of 8. crc is the CRC-32 of nruns (8 bytes), the
 * palette and the stream: damage that would still decode is refused. */
#define MD_RUN_SIZE 24
enum {
	RUN_VADDR = 0,     /* u64 */
	RUN_NPAGES = 8,    /* u32 */
	RUN_FLAGS = 12,    /* u32 */
	RUN_MAPCOUNT = 16, /* u32 */
	RUN_RESERVED = 20, /* u32 */
};

/* A build-id field: up to 20 bytes (a SHA-1), zero-padded to 24 to keep
 * what follows 8-byte aligned. */
#define MD_BUILD_ID_MAX 20
#define MD_BUILD_ID_FIELD 24
/* COMM: flags after the comm string, then the owner's user name */
#define MD_TASK_F_OWNER 1u

/* --- little-endian helpers --- */

static void put_u32(uint8_t *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

static void put_u64(uint8_t *p, uint64_t v)
{
	put_u32(p, (uint32_t)v);
	put_u32(p + 4, (uint32_t)(v >> 32));
}

static uint32_t get_u32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint64_t get_u64(const uint8_t *p)
{
	return (uint64_t)get_u32(p) | (uint64_t)get_u32(p + 4) << 32;
}

static size_t align8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/* --- CRC-32C (Castagnoli, reflected polynomial 0x82f63b78) --- */

static uint32_t crc_table[8][256];
static int crc_mode; /* 1: tables, 2: the crc32 instruction */

static uint32_t crc_sw(uint32_t c, const uint8_t *p, size_t n);

#if defined(__x86_64__)
/* The crc32 instruction takes 3 cycles but can start one every cycle: the
 * hardware loop runs three lanes of CRC_LANE bytes side by side and joins
 * them. The CRC register after n more zero bytes is linear in the register
 * before, so "advance over CRC_LANE (k = 0) or 2 * CRC_LANE (k = 1) zero
 * bytes" is crc_shift[k] applied byte by byte:
 * crc(s, A B C) = shift2(crc(s, A)) ^ shift1(crc(0, B)) ^ crc(0, C). */
#define CRC_LANE 256
static uint32_t crc_shift[2][4][256];

/* Fill crc_shift from the register each single set bit becomes over the
 * zero bytes (table-driven crc_sw, so it needs crc_table filled). */
static void crc_shift_init(void)
{
	static const uint8_t zero[2 * CRC_LANE];

	for (int k = 0; k < 2; k++)
		for (int byte = 0; byte < 4; byte++) {
			uint32_t *t = crc_shift[k][byte];

			t[0] = 0;
			for (int bit = 0; bit < 8; bit++) {
				uint32_t v = 1u << bit;
				uint32_t one = crc_sw(1u << (8 * byte + bit),
						      zero,
						      (size_t)(k + 1) *
							      CRC_LANE);

				/* the values with this bit as their highest */
				for (uint32_t low = 0; low < v; low++)
					t[v | low] = one ^ t[low];
			}
		}
}

static uint32_t crc_shift_by(int k, uint32_t c)
{
	return crc_shift[k][0][c & 0xff] ^ crc_shift[k][1][(c >> 8) & 0xff] ^
	       crc_shift[k][2][(c >> 16) & 0xff] ^ crc_shift[k][3][c >> 24];
}
#endif

/* Fill the tables and choose the implementation once, at load time (no
 * lazy set-up that threads could race on). The crc32 instruction is
 * looked for with one cpuid: libgcc's __builtin_cpu_supports() runs a
 * dozen cpuid leaves at every start, each a trap to the hypervisor in a
 * virtual machine. */
__attribute__((constructor)) static void crc_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ 0x82f63b78u : c >> 1;
		crc_table[0][i] = c;
	}
	for (uint32_t i = 0; i < 256; i++)
		for (int t = 1; t < 8; t++)
			crc_table[t][i] = (crc_table[t - 1][i] >> 8) ^
					  crc_table[0][crc_table[t - 1][i] & 0xff];
	crc_mode = 1;
#if defined(__x86_64__)
	{
		unsigned int eax, ebx, ecx, edx;

		/* leaf 1 exists on every x86-64 processor */
		__cpuid(1, eax, ebx, ecx, edx);
		if (ecx & bit_SSE4_2) {
			crc_shift_init(); /* made with crc_table */
			crc_mode = 2;
		}
	}
#endif
}

/* Slicing-by-8 over the tables. */
static uint32_t crc_sw(uint32_t c, const uint8_t *p, size_t n)
{
	while (n >= 8) {
		uint32_t lo = c ^ get_u32(p), hi = get_u32(p + 4);

		c = crc_table[7][lo & 0xff] ^ crc_table[6][(lo >> 8) & 0xff] ^
		    crc_table[5][(lo >> 16) & 0xff] ^ crc_table[4][lo >> 24] ^
		    crc_table[3][hi & 0xff] ^ crc_table[2][(hi >> 8) & 0xff] ^
		    crc_table[1][(hi >> 16) & 0xff] ^ crc_table[0][hi >> 24];
		p += 8;
		n -= 8;
	}
	while (n--)
		c = (c >> 8) ^ crc_table[0][(c ^ *p++) & 0xff];
	return c;
}

#if defined(__x86_64__)
/* The SSE4.2 crc32 instruction computes the same polynomial. */
__attribute__((target("sse4.2"))) static uint32_t crc_hw(uint32_t c,
							  const uint8_t *p,
							  size_t n)
{
	uint64_t c64 = c;

	while (n >= 3 * CRC_LANE) {
		uint64_t c1 = 0, c2 = 0, v;

		for (size_t i = 0; i < CRC_LANE; i += 8) {
			memcpy(&v, p + i, 8);
			c64 = __builtin_ia32_crc32di(c64, v);
			memcpy(&v, p + CRC_LANE + i, 8);
			c1 = __builtin_ia32_crc32di(c1, v);
			memcpy(&v, p + 2 * CRC_LANE + i, 8);
			c2 = __builtin_ia32_crc32di(c2, v);
		}
		c64 = crc_shift_by(1, (uint32_t)c64) ^
		      crc_shift_by(0, (uint32_t)c1) ^ (uint32_t)c2;
		p += 3 * CRC_LANE;
		n -= 3 * CRC_LANE;
	}
	while (n >= 8) {
		uint64_t v;

		memcpy(&v, p, 8); /* x86 is little-endian, as the format */
		c64 = __builtin_ia32_crc32di(c64, v);
		p += 8;
		n -= 8;
	}
	c = (uint32_t)c64;
	while (n--)
		c = __builtin_ia32_crc32qi(c, *p++);
	return c;
}
#endif

uint32_t md_crc32c(uint32_t crc, const void *p, size_t n)
{
	uint32_t c = ~crc;

#if defined(__x86_64__)
	if (crc_mode == 2)
		return ~crc_hw(c, p, n);
#endif
	return ~crc_sw(c, p, n);
}

/* CRC-32C of n bytes at p with the u32 at p + at taken as zero. */
static uint32_t crc_without(const uint8_t *p, size_t n, size_t at)
{
	static const uint8_t zero[4];
	uint32_t c = md_crc32c(0, p, at);

	c = md_crc32c(c, zero, 4);
	return md_crc32c(c, p + at + 4, n - at - 4);
}

/* CRC of a record of size bytes at p (size >= MD_REC_HDR), its crc word
 * taken as zero. */
static uint32_t record_crc(const uint8_t *p, uint64_t size)
{
	return crc_without(p, size, REC_CRC);
}

/* CRC of a file header of hsize bytes, its header_crc taken as zero. */
static uint32_t header_crc(const uint8_t *p, size_t hsize)
{
	return crc_without(p, hsize, HDR_CRC);
}

/* Encoded size of a string: u32 length, the bytes, at least one NUL, zero
 * padding to a multiple of 8. */
static size_t str_size(const char *s)
{
	return align8(4 + strlen(s ? s : "") + 1);
}

/* --- record builder --- */

struct md_buf {
	uint8_t *p;
	size_t len, cap;
};

static uint8_t *buf_grow(struct md_buf *b, size_t n)
{
	uint8_t *q;

	xgrow(&b->p, &b->cap, b->len + n, 1);
	q = b->p + b->len;
	memset(q, 0, n);
	b->len += n;
	return q;
}

static void buf_u32(struct md_buf *b, uint32_t v)
{
	put_u32(buf_grow(b, 4), v);
}

static void buf_u64(struct md_buf *b, uint64_t v)
{
	put_u64(buf_grow(b, 8), v);
}

static void buf_str(struct md_buf *b, const char *s)
{
	size_t n, sz;
	uint8_t *q;

	if (!s)
		s = "";
	n = strlen(s);
	sz = str_size(s);
	q = buf_grow(b, sz); /* zeroed: NUL and padding */
	put_u32(q, (uint32_t)n);
	memcpy(q + 4, s, n);
}

static void buf_pad8(struct md_buf *b)
{
	if (b->len % 8)
		buf_grow(b, 8 - b->len % 8);
}

/* --- writer --- */

struct md_writer {
	int fd;
	char *path;     /* where the recording goes once committed */
	char *tmp;      /* the file written until then; NULL: writing path */
	bool committed;
	bool ended;     /* the END record is written */
	uint64_t off;   /* end of the last complete record */
	int err;        /* sticky: once a write failed, every call fails */
	struct md_buf b;
	struct md_buf sb; /* SAMPLE records not yet written (batched) */
	uint64_t nrecords, nsamples, samples_lost; /* see md_writer_stats */
	unsigned page_shift; /* of the page size in the header */
	struct pgstate_enc enc; /* scratch of md_write_mapping */
	uint32_t nsb;     /* records in sb */
	bool compress;    /* write batches as PACKED records */
	ZSTD_CCtx *cctx;
	struct md_buf zb; /* a PACKED record being built */
	struct stackref stk; /* each thread's last stack in the batch */
};

/* Samples are written in batches of 4 MiB: a batch is compressed as one
 * zstd frame, and the stack copies of consecutive faults repeat, so the
 * bigger the frame the better it packs (4 MiB: about 1/40 on node). */
#define MD_SAMPLE_BATCH (4u << 20)
/* A PACKED record: u32 codec, u32 nrecords, u64 raw_size, u64 zsize, then
 * zsize bytes of one zstd frame holding raw_size bytes of records (codec
 * zstd), or the raw_size bytes themselves (codec none: zstd did not make
 * the batch smaller; it is packed still, as its samples may leave out
 * stack bytes of the samples before them). */
#define MD_PACKED_HDR 24
enum {
	PK_CODEC = 0,    /* u32: MD_CODEC_ZSTD */
	PK_NRECS = 4,    /* u32 */
	PK_RAW_SIZE = 8, /* u64 */
	PK_ZSIZE = 16,   /* u64 */
};
#define MD_CODEC_NONE 0
#define MD_CODEC_ZSTD 1
/* Level 1: compresses at ~500 MB/s, nearly as small as level 3 here. */
#define MD_ZSTD_LEVEL 1
/* Largest raw_size a reader accepts (the writer's batch plus the one
 * record that crossed it, at most 64 KiB of stack and arrays). */
#define MD_PACKED_MAX_RAW (MD_SAMPLE_BATCH + (1u << 20))
#define MD_SAMPLE_HDR 72           /* fixed part of a SAMPLE payload */
/* Its fields; the registers, the callchain and the stack follow. */
enum {
	SMP_TIME = 0,        /* u64 */
	SMP_PID = 8,         /* u32 */
	SMP_TID = 12,        /* u32 */
	SMP_ADDR = 16,       /* u64 */
	SMP_IP = 24,         /* u64 */
	SMP_EVENT = 32,      /* u32 */
	SMP_ABI = 36,        /* u32 */
	SMP_REGS_MASK = 40,  /* u64 */
	SMP_NREGS = 48,      /* u32 */
	SMP_NCHAIN = 52,     /* u32 */
	SMP_STACK_SP = 56,   /* u64 */
	SMP_STACK_SIZE = 64, /* u32 */
	SMP_STACK_REUSED = 68, /* u32: top stack bytes not stored */
};

static int writer_flush_samples(struct md_writer *w);

static int write_all(int fd, const uint8_t *p, size_t n, size_t *done)
{
	ssize_t w;

	*done = 0;
	while (*done < n) {
		w = write(fd, p + *done, n - *done);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (w == 0)
			return -ENOSPC;
		*done += (size_t)w;
	}
	return 0;
}

/* writev the two buffers whole; *done counts the bytes written. */
static int writev_all(int fd, struct iovec *iov, size_t n, size_t *done)
{
	ssize_t w;

	*done = 0;
	while (n) {
		if (!iov->iov_len) {
			iov++;
			n--;
			continue;
		}
		w = writev(fd, iov, (int)n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (w == 0)
			return -ENOSPC;
		*done += (size_t)w;
		while (n && (size_t)w >= iov->iov_len) {
			w -= (ssize_t)iov->iov_len;
			iov++;
			n--;
		}
		if (n) {
			iov->iov_base = (uint8_t *)iov->iov_base + w;
			iov->iov_len -= (size_t)w;
		}
	}
	return 0;
}

/* Write the built record in w->b followed by tail_len (a multiple of 8)
 * bytes already encoded at tail; the header is filled in here. On a
 * failure the partial record is cut off again (best effort: ftruncate does
 * not apply to every file type) and the writer stays failed. */
static int writer_commit_tail(struct md_writer *w, enum md_rec_type type,
			      const void *tail, size_t tail_len)
{
	struct iovec iov[2];
	size_t done;
	int ret;

	buf_pad8(&w->b);
	put_u32(w->b.p + REC_TYPE, type);
	put_u32(w->b.p + REC_CRC, 0);
	put_u64(w->b.p + REC_SIZE, w->b.len + tail_len);
	/* the crc word is zero while the CRC is computed */
	put_u32(w->b.p + REC_CRC, md_crc32c(md_crc32c(0, w->b.p, w->b.len),
					    tail, tail_len));
	iov[0].iov_base = w->b.p;
	iov[0].iov_len = w->b.len;
	iov[1].iov_base = (void *)tail;
	iov[1].iov_len = tail_len;
	if (tail_len)
		ret = writev_all(w->fd, iov, 2, &done);
	else
		ret = write_all(w->fd, w->b.p, w->b.len, &done);
	if (ret < 0) {
		if (done && ftruncate(w->fd, (off_t)w->off) == 0)
			(void)lseek(w->fd, (off_t)w->off, SEEK_SET);
		w->err = ret;
		return ret;
	}
	w->off += w->b.len + tail_len;
	w->nrecords++;
	return 0;
}

/* Write the built record in w->b (see writer_commit_tail). */
static int writer_commit(struct md_writer *w, enum md_rec_type type)
{
	return writer_commit_tail(w, type, NULL, 0);
}

/* Start a record: the header is reserved and filled by writer_commit. */
static int writer_begin(struct md_writer *w)
{
	if (!w)
		return -EINVAL;
	if (w->err)
		return w->err;
	if (w->sb.len && writer_flush_samples(w) < 0)
		return w->err;
	w->b.len = 0;
	buf_grow(&w->b, MD_REC_HDR);
	return 0;
}

/* Create the file records are written to: a temporary file beside path
 * (mode 0666 less the umask, like open would give), or path itself when it
 * exists and is not a regular file (a device, a pipe). Returns the fd and
 * *tmp (NULL when writing path itself), or -errno. */
static int writer_create(const char *path, char **tmp)
{
	struct stat st;
	mode_t mask;
	int fd;

	*tmp = NULL;
	if (!stat(path, &st) && !S_ISREG(st.st_mode)) {
		fd = open(path, O_WRONLY | O_CLOEXEC);
		return fd < 0 ? -errno : fd;
	}
	*tmp = xasprintf("%s.tmp.XXXXXX", path);
	fd = mkostemp(*tmp, O_CLOEXEC);
	if (fd < 0) {
		fd = -errno;
		free(*tmp);
		*tmp = NULL;
		return fd;
	}
	mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0666 & ~mask) < 0) {
		fd = -errno;
		unlink(*tmp);
		free(*tmp);
		*tmp = NULL;
	}
	return fd;
}

int md_writer_open(const char *path, struct md_writer **out)
{
	struct md_writer *w;
	uint8_t hdr[MD_HEADER_SIZE] = { 0 };
	size_t done;
	char *tmp;
	int fd, ret;

	fd = writer_create(path, &tmp);
	if (fd < 0)
		return fd;
	memcpy(hdr + HDR_MAGIC, MD_MAGIC, MD_MAGIC_LEN);
	put_u32(hdr + HDR_VERSION, MD_VERSION);
	put_u32(hdr + HDR_HEADER_SIZE, MD_HEADER_SIZE);
	put_u64(hdr + HDR_FLAGS, MD_F_CRC | MD_F_END);
	put_u64(hdr + HDR_REALTIME, clock_ns(CLOCK_REALTIME));
	put_u64(hdr + HDR_MONO, clock_ns(CLOCK_MONOTONIC));
	put_u32(hdr + HDR_PAGE_SIZE, (uint32_t)sysconf(_SC_PAGESIZE));
	put_u32(hdr + HDR_CRC, header_crc(hdr, MD_HEADER_SIZE));
	ret = write_all(fd, hdr, sizeof(hdr), &done);
	if (ret < 0) {
		close(fd);
		if (tmp)
			unlink(tmp);
		free(tmp);
		return ret;
	}
	w = xcalloc(1, sizeof(*w));
	w->fd = fd;
	w->path = xstrdup(path);
	w->tmp = tmp;
	w->off = MD_HEADER_SIZE;
	w->page_shift = (unsigned)__builtin_ctzl((unsigned long)sysconf(
		_SC_PAGESIZE));
	w->compress = true;
	*out = w;
	return 0;
}

/* The batched samples, then the END record (the file is complete), once,
 * unless a write failed. */
static void writer_end(struct md_writer *w)
{
	writer_flush_samples(w);
	if (w->ended || w->err || writer_begin(w) < 0)
		return;
	buf_u64(&w->b, clock_ns(CLOCK_MONOTONIC));
	buf_u64(&w->b, w->nrecords);
	buf_u64(&w->b, w->nsamples);
	writer_commit(w, MD_REC_END);
	w->ended = true;
}

int md_writer_commit(struct md_writer *w)
{
	struct stat st;
	char *old;
	int ret;

	if (!w)
		return -EINVAL;
	if (w->committed)
		return 0;
	writer_end(w);
	if (w->err)
		return w->err;
	if (!w->tmp) {
		w->committed = true;
		return 0;
	}
	/* The data must be on disk before the name points at it, or a crash
	 * could leave an empty file where the old recording was. */
	if (fsync(w->fd) < 0)
		return w->err = -errno;
	if (!lstat(w->path, &st) && S_ISREG(st.st_mode) && st.st_size > 0) {
		old = xasprintf("%s.old", w->path);
		ret = rename(w->path, old) ? -errno : 0;
		free(old);
		if (ret < 0)
			return w->err = ret;
	}
	if (rename(w->tmp, w->path) < 0)
		return w->err = -errno;
	w->committed = true;
	return 0;
}

const char *md_writer_temp_path(const struct md_writer *w)
{
	return w->tmp && !w->committed ? w->tmp : w->path;
}

uint64_t md_writer_offset(const struct md_writer *w)
{
	return w->off + w->sb.len;
}

static void buf_build_id(struct md_buf *b, const uint8_t *id, uint32_t len)
{
	uint8_t *q = buf_grow(b, MD_BUILD_ID_FIELD);

	if (len > MD_BUILD_ID_MAX)
		len = MD_BUILD_ID_MAX;
	memcpy(q, id, len);
}

int md_write_image(struct md_writer *w, const struct md_image *r)
{
	int ret = writer_begin(w);

	if (ret < 0)
		return ret;
	buf_u32(&w->b, r->id);
	buf_u32(&w->b, r->dev_major);
	buf_u32(&w->b, r->dev_minor);
	buf_u32(&w->b, MIN(r->build_id_len, MD_BUILD_ID_MAX));
	buf_u64(&w->b, r->ino);
	buf_u64(&w->b, r->size);
	buf_u64(&w->b, (uint64_t)r->mtime_ns);
	buf_build_id(&w->b, r->build_id, r->build_id_len);
	buf_str(&w->b, r->path);
	buf_str(&w->b, r->open_path);
	return writer_commit(w, MD_REC_IMAGE);
}

static int write_mmap2_like(struct md_writer *w, enum md_rec_type type,
			    const struct md_mmap2 *r)
{
	int ret = writer_begin(w);

	if (ret < 0)
		return ret;
	buf_u64(&w->b, r->time);
	buf_u32(&w->b, r->pid);
	buf_u32(&w->b, r->tid);
	buf_u64(&w->b, r->start);
	buf_u64(&w->b, r->len);
	buf_u64(&w->b, r->pgoff);
	buf_u32(&w->b, r->dev_major);
	buf_u32(&w->b, r->dev_minor);
	buf_u64(&w->b, r->ino);
	buf_u64(&w->b, r->ino_generation);
	buf_u32(&w->b, r->prot);
	buf_u32(&w->b, r->flags);
	buf_u32(&w->b, MIN(r->build_id_len, MD_BUILD_ID_MAX));
	buf_u32(&w->b, r->synthesized ? 1 : 0);
	buf_build_id(&w->b, r->build_id, r->build_id_len);
	buf_str(&w->b, r->filename);
	return writer_commit(w, type);
}

int md_write_mmap2(struct md_writer *w, const struct md_mmap2 *r)
{
	return write_mmap2_like(w, MD_REC_MMAP2, r);
}

int md_write_munmap(struct md_writer *w, const struct md_mmap2 *r)
{
	return write_mmap2_like(w, MD_REC_MUNMAP, r);
}

int md_write_task(struct md_writer *w, enum md_rec_type type,
		  const struct md_task *r)
{
	int ret;

	if (type != MD_REC_COMM && type != MD_REC_FORK &&
	    type != MD_REC_EXIT && type != MD_REC_CMDLINE)
		return -EINVAL;
	ret = writer_begin(w);
	if (ret < 0)
		return ret;
	buf_u64(&w->b, r->time);
	buf_u32(&w->b, r->pid);
	buf_u32(&w->b, r->tid);
	buf_u32(&w->b, r->ppid);
	buf_u32(&w->b, r->ptid);
	buf_str(&w->b, type == MD_REC_COMM || type == MD_REC_CMDLINE ?
				r->comm : "");
	if (type == MD_REC_COMM && r->has_owner) {
		buf_u32(&w->b, r->uid);
		buf_u32(&w->b, MD_TASK_F_OWNER);
		buf_str(&w->b, r->user ? r->user : "");
	}
	return writer_commit(w, type);
}

int md_write_lost(struct md_writer *w, const struct md_lost *r)
{
	int ret = writer_begin(w);

	if (ret < 0)
		return ret;
	buf_u64(&w->b, r->time);
	buf_u64(&w->b, r->count);
	return writer_commit(w, MD_REC_LOST);
}

int md_write_snap_begin(struct md_writer *w, const struct md_snap_begin *r)
{
	int ret = writer_begin(w);

	if (ret < 0)
		return ret;
	buf_u64(&w->b, r->time);
	buf_u32(&w->b, r->pid);
	buf_u32(&w->b, r->seq);
	buf_u32(&w->b, r->flags);
	buf_u32(&w->b, r->nmappings);
	return writer_commit(w, MD_REC_SNAP_BEGIN);
}

int md_mapping_begin(struct md_writer *w, uint64_t start, uint64_t end)
{
	uint64_t pgmask;

	if (!w)
		return -EINVAL;
	pgmask = ((uint64_t)1 << w->page_shift) - 1;
	if (end < start || ((start | end) & pgmask)) {
		w->enc.err = -EINVAL;
		return -EINVAL;
	}
	pgstate_begin(&w->enc, start, (end - start) >> w->page_shift,
		      w->page_shift);
	return 0;
}

int md_mapping_add(struct md_writer *w, const struct md_run *runs,
		   size_t nruns)
{
	if (!w || (nruns && !runs))
		return -EINVAL;
	return pgstate_add(&w->enc, runs, nruns);
}

int md_write_mapping(struct md_writer *w, const struct md_snap_mapping *r)
{
	int ret;

	if (!w || !r || (r->nruns && !r->runs))
		return -EINVAL;
	ret = md_mapping_begin(w, r->start, r->end);
	if (!ret)
		ret = md_mapping_add(w, r->runs, r->nruns);
	return ret < 0 ? ret : md_mapping_end(w, r, NULL);
}

int md_mapping_end(struct md_writer *w, const struct md_snap_mapping *r,
		   uint64_t *nruns)
{
	struct pgstate_enc *e;
	uint8_t le_nruns[8];
	uint32_t crc;
	int ret;

	if (!w || !r)
		return -EINVAL;
	e = &w->enc;
	ret = pgstate_end(e);
	if (ret < 0)
		return ret;
	if (r->start != e->start ||
	    r->end - r->start != e->npages << w->page_shift)
		return -EINVAL;
	if (nruns)
		*nruns = e->nruns;
	ret = writer_begin(w);
	if (ret < 0)
		return ret;
	buf_u64(&w->b, r->start);
	buf_u64(&w->b, r->end);
	buf_u64(&w->b, r->pgoff);
	buf_u32(&w->b, r->dev_major);
	buf_u32(&w->b, r->dev_minor);
	buf_u64(&w->b, r->ino);
	buf_u32(&w->b, r->prot);
	buf_u32(&w->b, r->flags);
	buf_u32(&w->b, r->image_id);
	buf_u32(&w->b, 0);
	buf_u64(&w->b, e->nruns);
	buf_str(&w->b, r->name);
	put_u64(le_nruns, e->nruns);
	crc = pgstate_crc(pgstate_crc(pgstate_crc(0, le_nruns, 8), e->pal,
				      (size_t)e->npal * PGSTATE_PAL_SIZE),
			  e->out, e->len);
	buf_u32(&w->b, e->npal);
	buf_u32(&w->b, crc);
	buf_u64(&w->b, e->len);
	if (e->npal)
		memcpy(buf_grow(&w->b, (size_t)e->npal * PGSTATE_PAL_SIZE),
		       e->pal, (size_t)e->npal * PGSTATE_PAL_SIZE);
	if (e->len)
		memcpy(buf_grow(&w->b, e->len), e->out, e->len);
	buf_pad8(&w->b);
	return writer_commit(w, MD_REC_SNAP_MAPPING);
}

int md_write_snap_end(struct md_writer *w, const struct md_snap_end *r)
{
	int ret = writer_begin(w);

	if (ret < 0)
		return ret;
	buf_u64(&w->b, r->time);
	buf_u32(&w->b, r->pid);
	buf_u32(&w->b, r->seq);
	buf_u64(&w->b, r->unreadable_pages);
	buf_u64(&w->b, r->vm_hwm);
	return writer_commit(w, MD_REC_SNAP_END);
}

int md_write_note(struct md_writer *w, const char *text)
{
	int ret = writer_begin(w);

	if (ret < 0)
		return ret;
	buf_str(&w->b, text);
	return writer_commit(w, MD_REC_NOTE);
}

int md_write_jitmap(struct md_writer *w, const struct md_jitmap *r)
{
	int ret;

	if (!r->nsyms || r->nsyms > MD_JITMAP_MAX_SYMS || !r->syms)
		return -EINVAL;
	for (uint32_t i = 0; i < r->nsyms; i++)
		if (!r->syms[i].size ||
		    r->syms[i].start + r->syms[i].size < r->syms[i].start)
			return -EINVAL;
	ret = writer_begin(w);
	if (ret < 0)
		return ret;
	buf_u64(&w->b, r->time);
	buf_u32(&w->b, r->pid);
	buf_u32(&w->b, r->nsyms);
	for (uint32_t i = 0; i < r->nsyms; i++) {
		buf_u64(&w->b, r->syms[i].start);
		buf_u64(&w->b, r->syms[i].size);
		buf_str(&w->b, r->syms[i].name);
	}
	return writer_commit(w, MD_REC_JITMAP);
}

void md_writer_set_compress(struct md_writer *w, bool on)
{
	w->compress = on;
}

/* The batch in w->sb as a PACKED record in w->zb: a zstd frame, or the
 * records as they are if zstd would not make them much smaller (or
 * failed). */
static void pack_samples(struct md_writer *w)
{
	size_t bound = MAX(ZSTD_compressBound(w->sb.len), w->sb.len), z;
	uint32_t codec = MD_CODEC_ZSTD;
	uint8_t *q, *frame;

	/* Room, not zeroed: every byte up to the frame's padding is set
	 * below (zeroing 4 MiB per batch cost as much as the CRCs). */
	xgrow(&w->zb.p, &w->zb.cap, MD_REC_HDR + MD_PACKED_HDR + align8(bound),
	      1);
	q = w->zb.p;
	frame = q + MD_REC_HDR + MD_PACKED_HDR;
	if (!w->cctx)
		w->cctx = ZSTD_createCCtx();
	z = w->cctx ? ZSTD_compressCCtx(w->cctx, frame, bound, w->sb.p,
					w->sb.len, MD_ZSTD_LEVEL) : 0;
	/* a frame that saves less than 1/16 is not worth unpacking */
	if (!w->cctx || ZSTD_isError(z) ||
	    align8(z) >= w->sb.len - w->sb.len / 16) {
		codec = MD_CODEC_NONE;
		z = w->sb.len;
		memcpy(frame, w->sb.p, z);
	}
	w->zb.len = MD_REC_HDR + MD_PACKED_HDR + align8(z);
	/* zstd may have used the bytes past the frame: the padding is 0 */
	memset(frame + z, 0, align8(z) - z);
	put_u32(q + REC_TYPE, MD_REC_PACKED);
	put_u32(q + REC_CRC, 0);
	put_u64(q + REC_SIZE, w->zb.len);
	put_u32(q + MD_REC_HDR + PK_CODEC, codec);
	put_u32(q + MD_REC_HDR + PK_NRECS, w->nsb);
	put_u64(q + MD_REC_HDR + PK_RAW_SIZE, w->sb.len);
	put_u64(q + MD_REC_HDR + PK_ZSIZE, z);
	put_u32(q + REC_CRC, record_crc(q, w->zb.len));
}

/* Write the batched SAMPLE records, as one PACKED record if the writer
 * compresses (md_writer_set_compress), else as they are. On a
 * failure the whole records that made it to the file stay (the partial
 * one after them is cut off again, best effort; a PACKED record is one
 * record), the others are counted lost and the writer stays failed. */
static int writer_flush_samples(struct md_writer *w)
{
	const struct md_buf *out = &w->sb;
	size_t done, kept = 0;
	uint64_t n = 0;
	int ret;

	if (w->err || !w->sb.len)
		return w->err;
	if (w->compress) {
		pack_samples(w);
		out = &w->zb;
		/* the next batch's samples cannot refer to this one's */
		stackref_reset(&w->stk);
	}
	ret = write_all(w->fd, out->p, out->len, &done);
	if (ret < 0) {
		/* a plain batch holds whole records: keep those written */
		while (out == &w->sb && n < w->nsb &&
		       kept + get_u64(w->sb.p + kept + REC_SIZE) <= done) {
			kept += get_u64(w->sb.p + kept + REC_SIZE);
			n++;
		}
		if (done > kept &&
		    ftruncate(w->fd, (off_t)(w->off + kept)) == 0)
			(void)lseek(w->fd, (off_t)(w->off + kept), SEEK_SET);
		w->err = ret;
		w->samples_lost += w->nsb - n;
	} else {
		kept = out->len;
		n = w->nsb;
	}
	w->off += kept;
	w->nrecords += n;
	w->nsamples += n;
	w->sb.len = 0;
	w->nsb = 0;
	return ret;
}

int md_writer_flush(struct md_writer *w)
{
	if (!w)
		return -EINVAL;
	return writer_flush_samples(w);
}

void md_writer_stats(const struct md_writer *w, struct md_writer_stats *st)
{
	st->records = w->nrecords;
	st->samples = w->nsamples;
	st->samples_lost = w->samples_lost;
	st->bytes = w->off;
}

int md_write_sample(struct md_writer *w, const struct md_sample *r)
{
	size_t nregs, nchain, size;
	struct stackref_slot *slot = NULL;
	uint32_t reused = 0;
	uint8_t *q;

	if (!w || (r->nregs && !r->regs) || (r->ncallchain && !r->callchain) ||
	    (r->stack_size && !r->stack) || r->nregs > MD_SAMPLE_MAX_REGS ||
	    r->ncallchain > MD_SAMPLE_MAX_CHAIN)
		return -EINVAL;
	if (w->err) {
		w->samples_lost++;
		return w->err;
	}
	nregs = r->nregs;
	nchain = r->ncallchain;
	/* In a packed batch, the top of the stack that equals the thread's
	 * previous sample is left out (about 12/13 of it on node). */
	if (w->compress && r->stack_size &&
	    (slot = stackref_slot(&w->stk, r->pid, r->tid))) {
		reused = stackref_common_top(&w->stk, slot, r->stack_sp,
					     r->stack, r->stack_size);
		stackref_set(&w->stk, slot, r->stack_sp, r->stack,
			     r->stack_size, reused);
	}
	size = MD_REC_HDR + MD_SAMPLE_HDR + 8 * (nregs + nchain) +
	       align8(r->stack_size - reused);
	/* Encoded straight into the batch: one copy of the stack, and no
	 * zeroing but of the padding (every other byte is written below). */
	xgrow(&w->sb.p, &w->sb.cap, w->sb.len + size, 1);
	q = w->sb.p + w->sb.len;
	w->sb.len += size;
	w->nsb++;
	memset(q + size - 8, 0, 8);
	put_u32(q + REC_TYPE, MD_REC_SAMPLE);
	put_u32(q + REC_CRC, 0);
	put_u64(q + REC_SIZE, size);
	q += MD_REC_HDR;
	put_u64(q + SMP_TIME, r->time);
	put_u32(q + SMP_PID, r->pid);
	put_u32(q + SMP_TID, r->tid);
	put_u64(q + SMP_ADDR, r->addr);
	put_u64(q + SMP_IP, r->ip);
	put_u32(q + SMP_EVENT, r->event);
	put_u32(q + SMP_ABI, r->abi);
	put_u64(q + SMP_REGS_MASK, r->regs_mask);
	put_u32(q + SMP_NREGS, (uint32_t)nregs);
	put_u32(q + SMP_NCHAIN, (uint32_t)nchain);
	put_u64(q + SMP_STACK_SP, r->stack_sp);
	put_u32(q + SMP_STACK_SIZE, r->stack_size);
	put_u32(q + SMP_STACK_REUSED, reused);
	q += MD_SAMPLE_HDR;
	for (size_t i = 0; i < nregs; i++, q += 8)
		put_u64(q, r->regs[i]);
	for (size_t i = 0; i < nchain; i++, q += 8)
		put_u64(q, r->callchain[i]);
	if (r->stack_size > reused)
		memcpy(q, r->stack, r->stack_size - reused);
	q = w->sb.p + w->sb.len - size;
	put_u32(q + REC_CRC, record_crc(q, size));
	if (w->sb.len >= MD_SAMPLE_BATCH)
		return writer_flush_samples(w);
	return 0;
}

int md_writer_keep(struct md_writer *w, const char *dest)
{
	if (!w->tmp || w->committed)
		return -EINVAL;
	if (rename(w->tmp, dest) < 0)
		return -errno;
	free(w->tmp);
	w->tmp = NULL; /* close no longer removes it */
	return 0;
}

int md_writer_close(struct md_writer *w)
{
	int ret;

	if (!w)
		return 0;
	writer_end(w);
	ret = w->err;
	if (close(w->fd) && !ret)
		ret = -errno;
	if (w->tmp && !w->committed)
		unlink(w->tmp);
	free(w->tmp);
	free(w->path);
	free(w->b.p);
	free(w->sb.p);
	pgstate_enc_free(&w->enc);
	free(w->zb.p);
	ZSTD_freeCCtx(w->cctx);
	stackref_free(&w->stk);
	free(w);
	return ret;
}

/* --- reader --- */

/* Highest user address a mapping may end at (5-level paging: 2^57), and
 * the one page above it the kernel maps into every x86-64 process. */
#define MD_VA_LIMIT (1ull << 57)
#define MD_VSYSCALL_START 0xffffffffff600000ull
#define MD_VSYSCALL_END 0xffffffffff601000ull

#define MD_PG_KNOWN                                                      \
	(MD_PG_PRESENT | MD_PG_SWAPPED | MD_PG_FILE | MD_PG_EXCLUSIVE |   \
	 MD_PG_SOFTDIRTY | MD_PG_DIRTY | MD_PG_ANON | MD_PG_SWAPBACKED |  \
	 MD_PG_KSM | MD_PG_THP | MD_PG_HUGE | MD_PG_ZERO | MD_PG_IDLE |   \
	 MD_PG_PRIVATE_DIRTY | MD_PG_SHARED_DIRTY | MD_PG_PMD)
/* flags only /proc/kpageflags gives (MD_SNAP_F_KPAGEFLAGS) */
#define MD_PG_FROM_KPAGEFLAGS                                            \
	(MD_PG_DIRTY | MD_PG_ANON | MD_PG_SWAPBACKED | MD_PG_KSM |        \
	 MD_PG_HUGE | MD_PG_IDLE)

struct md_reader {
	const uint8_t *map;
	size_t size;
	uint64_t off;             /* next record */
	struct md_file_header hdr;
	struct md_run *runs;      /* decoded runs of the last mapping */
	size_t runs_cap;
	uint64_t *u64s;           /* regs + callchain of the last sample */
	size_t u64s_cap;

	/* what the checks need to know of the records before */
	int err;                  /* sticky error of md_read_next */
	const char *why;
	bool seen_end, cut_short;
	uint64_t nrecords, nsamples;
	uint32_t *img_ids;        /* ids of IMAGE records, sorted */
	size_t nimg, img_cap;
	bool in_snap, have_seq;
	uint32_t snap_pid, snap_seq, snap_flags, snap_nmappings, snap_seen;
	uint64_t snap_prev_end;   /* end of the snapshot's last mapping */
	struct md_jit_sym *jit;   /* symbols of the last JITMAP */
	size_t jit_cap;
	/* the records of the last PACKED record, handed out one by one */
	ZSTD_DCtx *dctx;
	uint8_t *z;
	size_t zcap, zlen, zpos;
	uint32_t zleft;           /* records still to come in it */
	uint64_t zoff;            /* its offset */
	bool in_packed;           /* decoding a record of it */
	struct stackref stk;      /* each thread's last stack in it */
};

/* A cursor over one record's payload; every get checks the bounds. */
struct md_cur {
	const uint8_t *p;
	size_t len, pos;
	int err;
	const char *why;
};

static void cur_fail(struct md_cur *c, const char *why)
{
	if (!c->err) {
		c->err = -MEMSZ_EBADDATA;
		c->why = why;
	}
}

static const uint8_t *cur_take(struct md_cur *c, size_t n)
{
	const uint8_t *q;

	if (c->err || n > c->len - c->pos) {
		cur_fail(c, "a field runs past the end of its record");
		return NULL;
	}
	q = c->p + c->pos;
	c->pos += n;
	return q;
}

static uint32_t cur_u32(struct md_cur *c)
{
	const uint8_t *q = cur_take(c, 4);

	return q ? get_u32(q) : 0;
}

static uint64_t cur_u64(struct md_cur *c)
{
	const uint8_t *q = cur_take(c, 8);

	return q ? get_u64(q) : 0;
}

/* True if the n bytes at p are all zero. */
static bool all_zero(const uint8_t *p, size_t n)
{
	while (n--)
		if (*p++)
			return false;
	return true;
}

/* A string: its length must fit the record, the bytes after it up to the
 * next multiple of 8 must be zero (a NUL at least) and it must hold no
 * NUL itself. Returns "" on error (c->err set). */
static const char *cur_str(struct md_cur *c)
{
	uint32_t n = cur_u32(c);
	const uint8_t *q;
	size_t end;

	if (c->err)
		return "";
	end = align8(c->pos + (size_t)n + 1);
	if ((size_t)n + 1 > c->len - c->pos || end > c->len) {
		cur_fail(c, "a string runs past the end of its record");
		return "";
	}
	q = c->p + c->pos;
	if (memchr(q, 0, n) || !all_zero(q + n, end - c->pos - n)) {
		cur_fail(c, "a string holds a NUL or is not NUL padded");
		return "";
	}
	c->pos = end;
	return (const char *)q;
}

static void cur_build_id(struct md_cur *c, uint8_t *dst, uint32_t len)
{
	const uint8_t *q = cur_take(c, MD_BUILD_ID_FIELD);

	if (q)
		memcpy(dst, q, MD_BUILD_ID_MAX);
	if (len > MD_BUILD_ID_MAX)
		cur_fail(c, "build-id longer than 20 bytes");
	else if (q && !all_zero(q + len, 24 - len))
		cur_fail(c, "build-id not zero padded");
}

/* Check the header at p (size bytes of file) into r->hdr. Returns 0 or a
 * negative code. */
static int header_check(struct md_reader *r, const uint8_t *p, size_t size)
{
	if (size >= MD_MAGIC_LEN && memcmp(p, MD_MAGIC, MD_MAGIC_LEN))
		return -MEMSZ_EBADMAGIC;
	if (size < MD_HEADER_SIZE)
		/* a prefix of a valid header: the file was cut */
		return size && memcmp(p, MD_MAGIC, MIN(MD_MAGIC_LEN, size)) ?
			       -MEMSZ_EBADMAGIC : -MEMSZ_ETRUNC;
	memcpy(r->hdr.magic, p + HDR_MAGIC, MD_MAGIC_LEN);
	r->hdr.version = get_u32(p + HDR_VERSION);
	r->hdr.header_size = get_u32(p + HDR_HEADER_SIZE);
	r->hdr.flags = get_u64(p + HDR_FLAGS);
	r->hdr.start_realtime_ns = get_u64(p + HDR_REALTIME);
	r->hdr.start_mono_ns = get_u64(p + HDR_MONO);
	r->hdr.page_size = get_u32(p + HDR_PAGE_SIZE);
	r->hdr.header_crc = get_u32(p + HDR_CRC);
	r->hdr.reserved[0] = get_u64(p + HDR_RESERVED);
	r->hdr.reserved[1] = get_u64(p + HDR_RESERVED + 8);
	if (r->hdr.version > MD_VERSION || r->hdr.version == 0)
		return r->hdr.version ? -MEMSZ_EVERSION : -MEMSZ_EBADDATA;
	/* every page count in the file is scaled by page_size: a corrupt one
	 * would make every number wrong */
	if (r->hdr.header_size < MD_HEADER_SIZE || r->hdr.header_size % 8 ||
	    r->hdr.page_size < MD_PAGE_SIZE_MIN ||
	    r->hdr.page_size > MD_PAGE_SIZE_MAX ||
	    (r->hdr.page_size & (r->hdr.page_size - 1)) ||
	    (r->hdr.flags & ~(uint64_t)(MD_F_CRC | MD_F_END)))
		return -MEMSZ_EBADDATA;
	if (r->hdr.header_size > size)
		return -MEMSZ_ETRUNC;
	if (r->hdr.flags & MD_F_CRC) {
		if (header_crc(p, r->hdr.header_size) != r->hdr.header_crc)
			return -MEMSZ_EBADDATA;
	} else if (r->hdr.header_crc) {
		return -MEMSZ_EBADDATA;
	}
	return 0;
}

/* A reader over the size bytes mapped at p (unmapped by
 * md_reader_close). */
static int reader_new(const uint8_t *p, size_t size, struct md_reader **out)
{
	struct md_reader *r = xcalloc(1, sizeof(*r));
	int ret = header_check(r, p, size);

	if (ret < 0) {
		free(r);
		return ret;
	}
	r->map = p;
	r->size = size;
	r->off = r->hdr.header_size;
	r->why = "";
	*out = r;
	return 0;
}

int md_reader_open(const char *path, struct md_reader **out)
{
	struct stat st;
	void *map = NULL;
	int fd, ret = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		ret = -errno;
		goto out_close;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = -EINVAL;
		goto out_close;
	}
	if (st.st_size > 0) {
		map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE,
			   fd, 0);
		if (map == MAP_FAILED) {
			ret = -errno;
			goto out_close;
		}
	}
	ret = reader_new(map, (size_t)st.st_size, out);
	if (ret < 0 && map)
		munmap(map, (size_t)st.st_size);
out_close:
	close(fd);
	return ret;
}

const struct md_file_header *md_reader_header(const struct md_reader *r)
{
	return &r->hdr;
}

uint64_t md_reader_offset(const struct md_reader *r)
{
	return r->off;
}

const char *md_reader_why(const struct md_reader *r)
{
	return r->why;
}

bool md_reader_cut_short(const struct md_reader *r)
{
	return r->cut_short;
}

/* Is id the id of an IMAGE record read so far? */
static bool img_known(const struct md_reader *r, uint32_t id, size_t *at)
{
	size_t lo = 0, hi = r->nimg;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->img_ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	*at = lo;
	return lo < r->nimg && r->img_ids[lo] == id;
}

/* The checks of one page run of mapping m (see man/memsz-data.5): NULL if
 * it keeps them, else what it breaks. */
static const char *run_check(const struct md_reader *r,
			     const struct md_snap_mapping *m,
			     const struct md_run *run, uint64_t prev_end)
{
	uint64_t ps = r->hdr.page_size;
	uint32_t kind = run->flags & (MD_PG_PRESENT | MD_PG_SWAPPED |
				      MD_PG_ZERO);

	if (!run->npages || run->vaddr % ps)
		return "page run empty or not page aligned";
	if (run->vaddr < prev_end || run->vaddr >= m->end ||
	    run->npages > (m->end - run->vaddr) / ps)
		return "page run outside its mapping or overlapping the "
		       "previous run";
	if (run->reserved || (run->flags & ~(uint32_t)MD_PG_KNOWN))
		return "page run with unknown flags";
	if (kind != MD_PG_PRESENT && kind != MD_PG_SWAPPED &&
	    kind != MD_PG_ZERO)
		return "page run neither present, swapped nor zero page";
	if ((run->flags & (MD_PG_PRIVATE_DIRTY | MD_PG_SHARED_DIRTY)) &&
	    (kind != MD_PG_PRESENT ||
	     (run->flags & MD_PG_PRIVATE_DIRTY &&
	      run->flags & MD_PG_SHARED_DIRTY)))
		return "page run with inconsistent dirty flags";
	if (!(r->snap_flags & MD_SNAP_F_KPAGEFLAGS) &&
	    (run->flags & MD_PG_FROM_KPAGEFLAGS))
		return "page run with kpageflags in a snapshot without them";
	if ((run->flags & MD_PG_PMD) &&
	    (kind != MD_PG_PRESENT || !(r->snap_flags & MD_SNAP_F_PMD)))
		return "page run with a PMD flag that cannot be";
	if (kind != MD_PG_PRESENT ? run->mapcount != 0 :
	    (run->flags & MD_PG_EXCLUSIVE) ? run->mapcount != 1 :
	    !(r->snap_flags & MD_SNAP_F_PFN) && run->mapcount > 1)
		return "page run with an impossible mapcount";
	return NULL;
}

/* The checks of a mapping of the open snapshot: NULL or what it breaks. */
static const char *mapping_check(struct md_reader *r,
				 const struct md_snap_mapping *m)
{
	uint64_t ps = r->hdr.page_size, prev = m->start;
	size_t at;

	if (!r->in_snap)
		return "mapping outside a snapshot";
	if (r->snap_seen >= r->snap_nmappings)
		return "more mappings than the snapshot announced";
	if (m->start % ps || m->end % ps || m->pgoff % ps ||
	    m->start >= m->end)
		return "mapping range empty or not page aligned";
	if (m->end > MD_VA_LIMIT &&
	    !(m->start == MD_VSYSCALL_START && m->end == MD_VSYSCALL_END))
		return "mapping beyond the user address space";
	if (m->start < r->snap_prev_end)
		return "mapping out of order or overlapping the previous one";
	if ((m->prot & ~7u) ||
	    ((m->flags & ~MD_MAP_LOCKED) != MAP_SHARED &&
	     (m->flags & ~MD_MAP_LOCKED) != MAP_PRIVATE))
		return "mapping with unknown protection or flags";
	if ((m->flags & MD_MAP_LOCKED) && !(r->snap_flags & MD_SNAP_F_LOCKED))
		return "locked mapping in a snapshot that does not record "
		       "locking";
	if (m->image_id != UINT32_MAX && !img_known(r, m->image_id, &at))
		return "mapping of an image id with no IMAGE record";
	for (size_t i = 0; i < m->nruns; i++) {
		const char *why = run_check(r, m, &m->runs[i], prev);

		if (why)
			return why;
		prev = m->runs[i].vaddr + (uint64_t)m->runs[i].npages * ps;
	}
	return NULL;
}

/* Version 1: nruns runs of MD_RUN_SIZE bytes, filling the record. Returns
 * 0 or c->err. */
static int decode_runs_v1(struct md_reader *r, struct md_cur *c,
			  struct md_snap_mapping *m, uint64_t nruns)
{
	const uint8_t *q;
	size_t i;

	if (nruns != (c->len - c->pos) / MD_RUN_SIZE ||
	    (c->len - c->pos) % MD_RUN_SIZE)
		cur_fail(c, "mapping size does not match its run count");
	q = cur_take(c, nruns * MD_RUN_SIZE);
	if (!q)
		return c->err;
	xgrow(&r->runs, &r->runs_cap, nruns, sizeof(*r->runs));
	for (i = 0; i < nruns; i++, q += MD_RUN_SIZE) {
		r->runs[i].vaddr = get_u64(q + RUN_VADDR);
		r->runs[i].npages = get_u32(q + RUN_NPAGES);
		r->runs[i].flags = get_u32(q + RUN_FLAGS);
		r->runs[i].mapcount = get_u32(q + RUN_MAPCOUNT);
		r->runs[i].reserved = get_u32(q + RUN_RESERVED);
	}
	m->runs = nruns ? r->runs : NULL;
	m->nruns = nruns;
	return 0;
}

/* Version 2: a palette and a block stream (pgstate.h) that decode to
 * nruns runs. The page-data CRC-32 is checked only in a file without
 * record checksums (MD_F_CRC): the record's CRC-32C covers the same bytes.
 * Returns 0 or c->err. */
static int decode_runs_v2(struct md_reader *r, struct md_cur *c,
			  struct md_snap_mapping *m, uint64_t nruns)
{
	unsigned shift = (unsigned)__builtin_ctz(r->hdr.page_size);
	const uint8_t *pal, *s, *pad;
	uint8_t le_nruns[8];
	size_t padn;
	uint32_t npal, crc;
	uint64_t nbytes;

	npal = cur_u32(c);
	crc = cur_u32(c);
	nbytes = cur_u64(c);
	if (c->err)
		return c->err;
	/* the pages are counted from start: a range that is not whole
	 * pages cannot be decoded */
	if (m->end <= m->start ||
	    ((m->start | m->end) & (r->hdr.page_size - 1))) {
		cur_fail(c, "mapping range empty or not page aligned");
		return c->err;
	}
	if (npal > (c->len - c->pos) / PGSTATE_PAL_SIZE ||
	    nbytes > c->len - c->pos - (size_t)npal * PGSTATE_PAL_SIZE) {
		cur_fail(c, "page states run past the end of the mapping");
		return c->err;
	}
	pal = cur_take(c, (size_t)npal * PGSTATE_PAL_SIZE);
	s = cur_take(c, nbytes);
	padn = align8(c->pos) - c->pos;
	pad = cur_take(c, padn);
	if (!pal || !s || !pad)
		return c->err;
	if (!all_zero(pad, padn))
		cur_fail(c, "page states not zero padded");
	put_u64(le_nruns, nruns);
	if (!(r->hdr.flags & MD_F_CRC) &&
	    pgstate_crc(pgstate_crc(pgstate_crc(0, le_nruns, 8), pal,
				    (size_t)npal * PGSTATE_PAL_SIZE),
			s, nbytes) != crc)
		cur_fail(c, "page states checksum mismatch");
	if (c->err)
		return c->err;
	if (pgstate_decode(pal, npal, s, nbytes, m->start,
			   (m->end - m->start) >> shift, shift, nruns,
			   &r->runs, &r->runs_cap) < 0) {
		cur_fail(c, "page states that do not decode");
		return c->err;
	}
	m->runs = nruns ? r->runs : NULL;
	m->nruns = nruns;
	return 0;
}

static int decode_mapping(struct md_reader *r, struct md_cur *c,
			  struct md_snap_mapping *m)
{
	uint64_t nruns;
	uint32_t reserved;

	m->start = cur_u64(c);
	m->end = cur_u64(c);
	m->pgoff = cur_u64(c);
	m->dev_major = cur_u32(c);
	m->dev_minor = cur_u32(c);
	m->ino = cur_u64(c);
	m->prot = cur_u32(c);
	m->flags = cur_u32(c);
	m->image_id = cur_u32(c);
	reserved = cur_u32(c);
	nruns = cur_u64(c);
	m->name = cur_str(c);
	if (reserved)
		cur_fail(c, "mapping with a non-zero reserved field");
	if (c->err)
		return c->err;
	if (r->hdr.version == 1)
		return decode_runs_v1(r, c, m, nruns);
	return decode_runs_v2(r, c, m, nruns);
}

static int decode_mmap2(struct md_cur *c, struct md_mmap2 *m)
{
	m->time = cur_u64(c);
	m->pid = cur_u32(c);
	m->tid = cur_u32(c);
	m->start = cur_u64(c);
	m->len = cur_u64(c);
	m->pgoff = cur_u64(c);
	m->dev_major = cur_u32(c);
	m->dev_minor = cur_u32(c);
	m->ino = cur_u64(c);
	m->ino_generation = cur_u64(c);
	m->prot = cur_u32(c);
	m->flags = cur_u32(c);
	m->build_id_len = cur_u32(c);
	m->synthesized = cur_u32(c) != 0;
	cur_build_id(c, m->build_id, m->build_id_len);
	m->filename = cur_str(c);
	if (!c->err && (!m->len || m->start + m->len < m->start))
		cur_fail(c, "mmap2 range empty or wrapping");
	return c->err;
}

static int decode_sample(struct md_reader *r, struct md_cur *c,
			 struct md_sample *s)
{
	const uint8_t *q;
	uint32_t nregs, nchain, stored;
	size_t i;

	s->time = cur_u64(c);
	s->pid = cur_u32(c);
	s->tid = cur_u32(c);
	s->addr = cur_u64(c);
	s->ip = cur_u64(c);
	s->event = cur_u32(c);
	s->abi = cur_u32(c);
	s->regs_mask = cur_u64(c);
	nregs = cur_u32(c);
	nchain = cur_u32(c);
	s->stack_sp = cur_u64(c);
	s->stack_size = cur_u32(c);
	s->stack_reused = cur_u32(c);
	if (c->err)
		return c->err;
	if (s->stack_reused > s->stack_size ||
	    (s->stack_reused && (!r->in_packed || r->hdr.version < 3))) {
		cur_fail(c, "sample reusing stack bytes it cannot");
		return c->err;
	}
	stored = s->stack_size - s->stack_reused;
	/* Registers are one per bit of the mask (or none at all). */
	if (nregs > MD_SAMPLE_MAX_REGS || nchain > MD_SAMPLE_MAX_CHAIN ||
	    (nregs && nregs != (uint32_t)__builtin_popcountll(s->regs_mask))) {
		cur_fail(c, "sample with impossible register or frame counts");
		return c->err;
	}
	/* the record is exactly its arrays and its padded stack */
	if (c->len - c->pos !=
	    8 * ((size_t)nregs + nchain) + align8(stored)) {
		cur_fail(c, "sample size does not match its contents");
		return c->err;
	}
	q = cur_take(c, 8 * ((size_t)nregs + nchain));
	if (!q)
		return c->err;
	xgrow(&r->u64s, &r->u64s_cap, (size_t)nregs + nchain + 1,
	      sizeof(*r->u64s));
	for (i = 0; i < (size_t)nregs + nchain; i++)
		r->u64s[i] = get_u64(q + 8 * i);
	s->nregs = nregs;
	s->regs = nregs ? r->u64s : NULL;
	s->ncallchain = nchain;
	s->callchain = nchain ? r->u64s + nregs : NULL;
	if (s->stack_size) {
		s->stack = cur_take(c, align8(stored));
		if (!s->stack)
			return c->err;
		if (!all_zero(s->stack + stored, align8(stored) - stored)) {
			cur_fail(c, "sample stack not zero padded");
			return c->err;
		}
	}
	/* in a PACKED record, the whole stack of each thread's last sample
	 * is kept: the next one may leave out its top */
	if (r->in_packed && s->stack_size) {
		struct stackref_slot *slot = stackref_slot(&r->stk, s->pid,
							   s->tid);
		const uint8_t *full = slot ?
			stackref_set(&r->stk, slot, s->stack_sp, s->stack,
				     s->stack_size, s->stack_reused) : NULL;

		if (full)
			s->stack = full;
		else if (s->stack_reused)
			cur_fail(c, "sample reusing stack bytes its thread's "
				    "previous sample does not hold");
	}
	return c->err;
}

static int decode_image(struct md_reader *r, struct md_cur *c,
			struct md_image *im)
{
	size_t at;

	im->id = cur_u32(c);
	im->dev_major = cur_u32(c);
	im->dev_minor = cur_u32(c);
	im->build_id_len = cur_u32(c);
	im->ino = cur_u64(c);
	im->size = cur_u64(c);
	im->mtime_ns = (int64_t)cur_u64(c);
	cur_build_id(c, im->build_id, im->build_id_len);
	im->path = cur_str(c);
	im->open_path = cur_str(c);
	if (c->err)
		return c->err;
	if (img_known(r, im->id, &at)) {
		cur_fail(c, "a second IMAGE record with the same id");
		return c->err;
	}
	xgrow(&r->img_ids, &r->img_cap, r->nimg + 1, sizeof(*r->img_ids));
	memmove(r->img_ids + at + 1, r->img_ids + at,
		(r->nimg - at) * sizeof(*r->img_ids));
	r->img_ids[at] = im->id;
	r->nimg++;
	return 0;
}

/* SNAP_BEGIN and SNAP_END: one snapshot at a time, seq increasing, the end
 * naming its begin. */
static int decode_snap(struct md_reader *r, struct md_cur *c,
		       struct md_record *rec)
{
	struct md_snap_begin *b = &rec->u.snap_begin;
	struct md_snap_end *e = &rec->u.snap_end;

	if (rec->type == MD_REC_SNAP_BEGIN) {
		b->time = cur_u64(c);
		b->pid = cur_u32(c);
		b->seq = cur_u32(c);
		b->flags = cur_u32(c);
		b->nmappings = cur_u32(c);
		if (c->err)
			return c->err;
		if (r->in_snap)
			cur_fail(c, "snapshot begins inside another one");
		else if (r->have_seq && b->seq <= r->snap_seq)
			cur_fail(c, "snapshot sequence number not increasing");
		r->in_snap = true;
		r->have_seq = true;
		r->snap_pid = b->pid;
		r->snap_seq = b->seq;
		r->snap_flags = b->flags;
		r->snap_nmappings = b->nmappings;
		r->snap_seen = 0;
		r->snap_prev_end = 0;
		return c->err;
	}
	e->time = cur_u64(c);
	e->pid = cur_u32(c);
	e->seq = cur_u32(c);
	e->unreadable_pages = cur_u64(c);
	/* appended field: absent in older files */
	e->vm_hwm = c->len - c->pos >= 8 ? cur_u64(c) : 0;
	if (c->err)
		return c->err;
	if (!r->in_snap || e->pid != r->snap_pid || e->seq != r->snap_seq)
		cur_fail(c, "snapshot end without its begin");
	r->in_snap = false;
	return c->err;
}

/* The smallest encoded JIT symbol: start, size and an empty string. */
#define MD_JIT_SYM_MIN 24

static int decode_jitmap(struct md_reader *r, struct md_cur *c,
			 struct md_jitmap *j)
{
	j->time = cur_u64(c);
	j->pid = cur_u32(c);
	j->nsyms = cur_u32(c);
	if (c->err)
		return c->err;
	if (!j->nsyms || j->nsyms > MD_JITMAP_MAX_SYMS ||
	    j->nsyms > (c->len - c->pos) / MD_JIT_SYM_MIN) {
		cur_fail(c, "JIT symbol count empty or past the record");
		return c->err;
	}
	xgrow(&r->jit, &r->jit_cap, j->nsyms, sizeof(*r->jit));
	for (uint32_t i = 0; i < j->nsyms; i++) {
		struct md_jit_sym *s = &r->jit[i];

		s->start = cur_u64(c);
		s->size = cur_u64(c);
		s->name = cur_str(c);
		if (c->err)
			return c->err;
		if (!s->size || s->start + s->size < s->start) {
			cur_fail(c, "JIT symbol empty or wrapping");
			return c->err;
		}
	}
	j->syms = r->jit;
	return 0;
}

/* Decode the payload of a known record type and check it against the
 * records before; unknown types return 1. */
static int decode(struct md_reader *r, struct md_cur *c, struct md_record *rec)
{
	struct md_task *t = &rec->u.task;
	const char *why;

	switch (rec->type) {
	case MD_REC_IMAGE:
		return decode_image(r, c, &rec->u.image);
	case MD_REC_MMAP2:
	case MD_REC_MUNMAP:
		return decode_mmap2(c, &rec->u.mmap2);
	case MD_REC_COMM:
	case MD_REC_FORK:
	case MD_REC_EXIT:
	case MD_REC_CMDLINE:
		t->time = cur_u64(c);
		t->pid = cur_u32(c);
		t->tid = cur_u32(c);
		t->ppid = cur_u32(c);
		t->ptid = cur_u32(c);
		t->comm = cur_str(c);
		t->has_owner = false;
		/* appended fields: the owner, in COMM records memsz wrote */
		if (rec->type == MD_REC_COMM && !c->err &&
		    c->len - c->pos >= 8) {
			t->uid = cur_u32(c);
			t->has_owner = cur_u32(c) & MD_TASK_F_OWNER;
			t->user = t->has_owner ? cur_str(c) : NULL;
		}
		return c->err;
	case MD_REC_LOST:
		rec->u.lost.time = cur_u64(c);
		rec->u.lost.count = cur_u64(c);
		return c->err;
	case MD_REC_SNAP_BEGIN:
	case MD_REC_SNAP_END:
		return decode_snap(r, c, rec);
	case MD_REC_SNAP_MAPPING:
		if (decode_mapping(r, c, &rec->u.mapping) < 0)
			return c->err;
		why = mapping_check(r, &rec->u.mapping);
		if (why)
			cur_fail(c, why);
		r->snap_seen++;
		r->snap_prev_end = rec->u.mapping.end;
		return c->err;
	case MD_REC_NOTE:
		rec->u.note.text = cur_str(c);
		return c->err;
	case MD_REC_SAMPLE:
		return decode_sample(r, c, &rec->u.sample);
	case MD_REC_END:
		rec->u.end.time = cur_u64(c);
		rec->u.end.nrecords = cur_u64(c);
		rec->u.end.nsamples = cur_u64(c);
		if (!c->err && (rec->u.end.nrecords != r->nrecords ||
				rec->u.end.nsamples != r->nsamples))
			cur_fail(c, "the END record counts other records "
				    "than the file holds");
		return c->err;
	case MD_REC_JITMAP:
		return decode_jitmap(r, c, &rec->u.jitmap);
	default:
		return 1;
	}
}

static int reader_fail(struct md_reader *r, int err, const char *why)
{
	r->err = err;
	r->why = why;
	return err;
}

/* Does the crc word of the record of size bytes at p hold its CRC-32C
 * (header flag CRC), or 0 in a file without checksums? */
static bool crc_ok(const struct md_reader *r, const uint8_t *p, uint64_t size)
{
	uint32_t crc = get_u32(p + REC_CRC);

	return (r->hdr.flags & MD_F_CRC) ? crc == record_crc(p, size) : !crc;
}

/* Decompress the PACKED record at p (payload of len bytes) into r->z.
 * Returns NULL, or what is wrong with it. */
static const char *unpack(struct md_reader *r, const uint8_t *p, size_t len)
{
	uint64_t raw, zsize;
	size_t got;

	uint32_t codec = len >= MD_PACKED_HDR ? get_u32(p + PK_CODEC) : ~0u;

	if (codec != MD_CODEC_ZSTD && codec != MD_CODEC_NONE)
		return "packed records of an unknown codec";
	raw = get_u64(p + PK_RAW_SIZE);
	zsize = get_u64(p + PK_ZSIZE);
	r->zleft = get_u32(p + PK_NRECS);
	if (!raw || raw % 8 || raw > MD_PACKED_MAX_RAW || !r->zleft ||
	    r->zleft > raw / MD_REC_HDR || zsize > len - MD_PACKED_HDR ||
	    align8(zsize) != len - MD_PACKED_HDR ||
	    (codec == MD_CODEC_NONE && zsize != raw))
		return "packed record sizes that do not fit";
	if (!all_zero(p + MD_PACKED_HDR + zsize,
		      len - MD_PACKED_HDR - zsize))
		return "packed record not zero padded";
	xgrow(&r->z, &r->zcap, raw, 1);
	if (codec == MD_CODEC_NONE) {
		memcpy(r->z, p + MD_PACKED_HDR, raw);
	} else {
		if (!r->dctx && !(r->dctx = ZSTD_createDCtx()))
			return "no memory to decompress packed records";
		got = ZSTD_decompressDCtx(r->dctx, r->z, raw,
					  p + MD_PACKED_HDR, zsize);
		if (ZSTD_isError(got) || got != raw)
			return "packed records that do not decompress";
	}
	/* its samples refer only to the samples before them in it */
	stackref_reset(&r->stk);
	r->zlen = raw;
	r->zpos = 0;
	return NULL;
}

/* The next record inside the current PACKED record: only SAMPLE records
 * are packed, each with its own crc (MD_F_CRC). Returns 1, or
 * -MEMSZ_EBADDATA (then the reader's offset is the PACKED record's). */
static int read_packed(struct md_reader *r, struct md_record *rec)
{
	const uint8_t *p = r->z + r->zpos;
	uint64_t size, left = r->zlen - r->zpos;
	const char *why = "packed record cut inside a record";
	struct md_cur c;
	uint32_t crc;

	if (left < MD_REC_HDR || !r->zleft)
		goto bad;
	size = get_u64(p + REC_SIZE);
	why = "packed record other than whole SAMPLE records";
	if (size < MD_REC_HDR || size % 8 || size > left ||
	    get_u32(p + REC_TYPE) != MD_REC_SAMPLE)
		goto bad;
	crc = get_u32(p + REC_CRC);
	why = "checksum mismatch";
	if (!crc_ok(r, p, size))
		goto bad;
	memset(rec, 0, sizeof(*rec));
	rec->type = MD_REC_SAMPLE;
	rec->crc = crc;
	rec->rec_flags = MD_RECF_PACKED;
	rec->offset = r->zoff;
	rec->size = size;
	c = (struct md_cur){ .p = p + MD_REC_HDR, .len = size - MD_REC_HDR };
	r->in_packed = true;
	if (decode(r, &c, rec) == 0 && c.pos != c.len)
		cur_fail(&c, "bytes after the fields of the record");
	r->in_packed = false;
	why = c.why;
	if (c.err)
		goto bad;
	r->zpos += size;
	r->zleft--;
	r->nrecords++;
	r->nsamples++;
	/* the count and the bytes must end together */
	why = "packed record count and size disagree";
	if ((r->zpos == r->zlen) != (r->zleft == 0))
		goto bad;
	return 1;
bad:
	r->zlen = r->zpos = 0;
	r->zleft = 0;
	r->off = r->zoff;
	return reader_fail(r, -MEMSZ_EBADDATA, why);
}

int md_read_next(struct md_reader *r, struct md_record *rec)
{
	const uint8_t *p;
	uint64_t size, left;
	uint32_t crc;
	struct md_cur c;
	int ret;

	if (r->err)
		return r->err;
	for (;;) {
		if (r->zpos < r->zlen)
			return read_packed(r, rec);
		left = r->size - r->off;
		if (left == 0) {
			r->cut_short = (r->hdr.flags & MD_F_END) &&
				       !r->seen_end;
			return 0;
		}
		if (r->seen_end)
			return reader_fail(r, -MEMSZ_EBADDATA,
					   "bytes after the END record");
		if (left < MD_REC_HDR)
			return reader_fail(r, -MEMSZ_ETRUNC,
					   "the file ends inside a record");
		p = r->map + r->off;
		size = get_u64(p + REC_SIZE);
		if (size < MD_REC_HDR || size % 8)
			return reader_fail(r, -MEMSZ_EBADDATA,
					   "record size not a multiple of 8");
		if (size > left)
			return reader_fail(r, -MEMSZ_ETRUNC,
					   "the file ends inside a record");
		crc = get_u32(p + REC_CRC);
		if (!crc_ok(r, p, size))
			return reader_fail(r, -MEMSZ_EBADDATA,
					   "checksum mismatch");
		memset(rec, 0, sizeof(*rec));
		rec->type = get_u32(p + REC_TYPE);
		rec->crc = crc;
		rec->offset = r->off;
		rec->size = size;
		c = (struct md_cur){ .p = p + MD_REC_HDR,
				     .len = size - MD_REC_HDR };
		if (rec->type == MD_REC_PACKED) {
			const char *why = unpack(r, c.p, c.len);

			if (why)
				return reader_fail(r, -MEMSZ_EBADDATA, why);
			/* its records are counted one by one */
			r->zoff = r->off;
			r->off += size;
			continue;
		}
		ret = decode(r, &c, rec);
		if (ret == 0 && c.pos != c.len)
			cur_fail(&c, "bytes after the fields of the record");
		if (c.err)
			return reader_fail(r, c.err, c.why);
		r->off += size;
		if (rec->type == MD_REC_END)
			r->seen_end = true;
		r->nrecords++;
		if (rec->type == MD_REC_SAMPLE)
			r->nsamples++;
		if (ret == 0)
			return 1;
		/* unknown type of this major version: skip by size */
	}
}

void md_reader_close(struct md_reader *r)
{
	if (!r)
		return;
	if (r->map)
		munmap((void *)r->map, r->size);
	free(r->runs);
	free(r->u64s);
	free(r->img_ids);
	free(r->jit);
	free(r->z);
	ZSTD_freeDCtx(r->dctx);
	stackref_free(&r->stk);
	free(r);
}

/* The records inside a PACKED record of codec none (p, size bytes with
 * its header): their checksums set as md_checksum_fix does; returns how
 * many. */
static long packed_checksum_fix(uint8_t *p, uint64_t size)
{
	uint64_t off = MD_REC_HDR + MD_PACKED_HDR, end, rsize;
	long n = 0;

	if (size < off || get_u32(p + MD_REC_HDR + PK_CODEC) != MD_CODEC_NONE)
		return 0;
	end = off + MIN(get_u64(p + MD_REC_HDR + PK_ZSIZE), size - off);
	for (; end - off >= MD_REC_HDR; off += rsize, n++) {
		rsize = get_u64(p + off + REC_SIZE);
		if (rsize < MD_REC_HDR || rsize > end - off)
			break;
		put_u32(p + off + REC_CRC, record_crc(p + off, rsize));
	}
	return n;
}

long md_checksum_fix(uint8_t *buf, size_t len)
{
	uint64_t off, size;
	uint32_t hsize;
	long n = 0;

	if (len < MD_HEADER_SIZE || memcmp(buf, MD_MAGIC, MD_MAGIC_LEN) ||
	    !(get_u64(buf + HDR_FLAGS) & MD_F_CRC))
		return -1;
	hsize = get_u32(buf + HDR_HEADER_SIZE);
	if (hsize < MD_HEADER_SIZE || hsize > len)
		hsize = MD_HEADER_SIZE;
	put_u32(buf + HDR_CRC, header_crc(buf, hsize));
	for (off = hsize; len - off >= MD_REC_HDR; off += size, n++) {
		size = get_u64(buf + off + REC_SIZE);
		if (size < MD_REC_HDR || size > len - off)
			break;
		if (get_u32(buf + off + REC_TYPE) == MD_REC_PACKED)
			n += packed_checksum_fix(buf + off, size);
		put_u32(buf + off + REC_CRC, record_crc(buf + off, size));
	}
	return n;
}
