// SPDX-License-Identifier: GPL-2.0-or-later
/* dfreader.c — the memsz.data reader: the file read in chunks, each record's
 * size and checksum checked, its payload decoded by its row's decoder
 * (dfrecords.c), PACKED records opened and their samples handed out one
 * by one. See datafile.h. */
#include "config.h"

#include "data/dfcodec.h"
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

/* Check the header at p (size bytes of file) into r->hdr. Returns 0 or a
 * negative code. */
static int header_check(struct md_reader *r, const uint8_t *p, size_t size)
{
	if (size >= MD_MAGIC_LEN && memcmp(p, MD_MAGIC, MD_MAGIC_LEN))
		return -MEMSZ_EBADMAGIC;
	if (size < MD_HEADER_SIZE)
		/* a prefix of a valid header: the file was cut */
		return size && memcmp(p, MD_MAGIC, MIN(MD_MAGIC_LEN, size))
			   ? -MEMSZ_EBADMAGIC
			   : -MEMSZ_ETRUNC;
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
		if (md_header_crc(p, r->hdr.header_size) != r->hdr.header_crc)
			return -MEMSZ_EBADDATA;
	} else if (r->hdr.header_crc) {
		return -MEMSZ_EBADDATA;
	}
	return 0;
}

/* The n bytes of the file at off (off + n <= r->size), read into the
 * window if they are not there: MD_READ_CHUNK bytes from off, or n if
 * more. NULL if they cannot be read; r->io_err then says why
 * (-MEMSZ_ETRUNC: the file is shorter than it was when opened). */
static const uint8_t *reader_at(struct md_reader *r, uint64_t off, size_t n)
{
	size_t want, got = 0;

	if (off >= r->win_off && off + n <= r->win_off + r->win_len)
		return r->win + (off - r->win_off);
	if (r->fd < 0) {
		r->io_err = -MEMSZ_ETRUNC;
		return NULL;
	}
	want = MIN(MAX(n, (size_t)MD_READ_CHUNK), r->size - off);
	/* a long record read once: back to a chunk's room after it */
	if (r->buf_cap > 4 * (size_t)MD_READ_CHUNK && want <= MD_READ_CHUNK) {
		free(r->buf);
		r->buf = NULL;
		r->buf_cap = 0;
	}
	xgrow(&r->buf, &r->buf_cap, MAX(want, 1u), 1);
	r->win = r->buf;
	r->win_off = off;
	r->win_len = 0;
	while (got < want) {
		ssize_t k =
		    pread(r->fd, r->buf + got, want - got, (off_t)(off + got));

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			r->io_err = k < 0 ? -errno : -MEMSZ_ETRUNC;
			break;
		}
		got += (size_t)k;
	}
	r->win_len = got;
	return got >= n ? r->buf : NULL;
}

/* Read and check the file header: its first MD_HEADER_SIZE bytes, then
 * all of header_size if it says more. */
static int header_read(struct md_reader *r)
{
	size_t n = MIN(r->size, (size_t)MD_HEADER_SIZE);
	const uint8_t *p;
	uint32_t hsize;

	if (!n)
		return header_check(r, (const uint8_t *)"", 0);
	p = reader_at(r, 0, n);
	if (!p)
		return r->io_err;
	if (n == MD_HEADER_SIZE) {
		hsize = get_u32(p + HDR_HEADER_SIZE);
		if (hsize > n && hsize <= r->size &&
		    !(p = reader_at(r, 0, hsize)))
			return r->io_err;
	}
	return header_check(r, p, r->size);
}

/* A reader of the size bytes of fd (closed by md_reader_close), or of
 * those at buf (fd -1: borrowed, the whole file). */
static int reader_new(int fd, const uint8_t *buf, size_t size,
		      struct md_reader **out)
{
	struct md_reader *r = xcalloc(1, sizeof(*r));
	int ret;

	r->fd = fd;
	r->size = size;
	r->win = buf;
	r->win_len = buf ? size : 0;
	ret = header_read(r);
	if (ret < 0) {
		free(r->buf);
		free(r);
		return ret;
	}
	r->off = r->hdr.header_size;
	r->why = "";
	*out = r;
	return 0;
}

int md_reader_open(const char *path, struct md_reader **out)
{
	struct stat st;
	int fd, ret = 0;

	/* a regular file only: a FIFO or a device node named as the
	 * recording (a link planted in /tmp, a shell's <(...)) is never
	 * opened, so neither waited on nor woken (a watchdog's open arms
	 * it) */
	fd = open_regular_at(AT_FDCWD, path, &st);
	if (fd == -EINVAL)
		return S_ISDIR(st.st_mode) ? -EISDIR : -MEMSZ_ENOTREG;
	if (fd < 0)
		return fd;
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	ret = reader_new(fd, NULL, (size_t)st.st_size, out);
	if (ret < 0)
		close(fd);
	return ret;
}

int md_reader_open_mem(const void *buf, size_t size, struct md_reader **out)
{
	return reader_new(-1, buf, size, out);
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
bool md_reader_img_known(const struct md_reader *r, uint32_t id, size_t *at)
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

/* Decode the payload of a record of a known type and check it against
 * the records before; unknown types return 1. */
static int decode(struct md_reader *r, struct md_cur *c, struct md_record *rec)
{
	const struct md_rectype *t = md_rectype_of(rec->type);

	if (!t || !t->decode)
		return 1;
	return t->decode(r, c, rec);
}

static int reader_fail(struct md_reader *r, int err, const char *why)
{
	r->err = err;
	r->why = why;
	return err;
}

/* The window could not be filled (reader_at): the file shrank since it
 * was opened (it was truncated while being read), or reading it failed. */
static int read_failed(struct md_reader *r)
{
	return reader_fail(r, r->io_err,
			   r->io_err == -MEMSZ_ETRUNC
			       ? "the file shrank while it was read"
			       : "the file cannot be read");
}

/* Does the crc word of the record of size bytes at p hold its CRC-32C
 * (header flag CRC), or 0 in a file without checksums? */
static bool crc_ok(const struct md_reader *r, const uint8_t *p, uint64_t size)
{
	uint32_t crc = get_u32(p + REC_CRC);

	return (r->hdr.flags & MD_F_CRC) ? crc == md_record_crc(p, size) : !crc;
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
	if (!all_zero(p + MD_PACKED_HDR + zsize, len - MD_PACKED_HDR - zsize))
		return "packed record not zero padded";
	xgrow(&r->z, &r->zcap, raw, 1);
	if (codec == MD_CODEC_NONE) {
		memcpy(r->z, p + MD_PACKED_HDR, raw);
	} else {
		if (!r->dctx && !(r->dctx = ZSTD_createDCtx()))
			return "no memory to decompress packed records";
		got = ZSTD_decompressDCtx(r->dctx, r->z, raw, p + MD_PACKED_HDR,
					  zsize);
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
	c = (struct md_cur){.p = p + MD_REC_HDR, .len = size - MD_REC_HDR};
	r->in_packed = true;
	if (decode(r, &c, rec) == 0 && c.pos != c.len)
		md_cur_fail(&c, "bytes after the fields of the record");
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
			r->cut_short =
			    (r->hdr.flags & MD_F_END) && !r->seen_end;
			return 0;
		}
		if (r->seen_end)
			return reader_fail(r, -MEMSZ_EBADDATA,
					   "bytes after the END record");
		if (left < MD_REC_HDR)
			return reader_fail(r, -MEMSZ_ETRUNC,
					   "the file ends inside a record");
		if (!(p = reader_at(r, r->off, MD_REC_HDR)))
			return read_failed(r);
		size = get_u64(p + REC_SIZE);
		if (size < MD_REC_HDR || size % 8)
			return reader_fail(r, -MEMSZ_EBADDATA,
					   "record size not a multiple of 8");
		if (size > left)
			return reader_fail(r, -MEMSZ_ETRUNC,
					   "the file ends inside a record");
		if (!(p = reader_at(r, r->off, size)))
			return read_failed(r);
		crc = get_u32(p + REC_CRC);
		if (!crc_ok(r, p, size))
			return reader_fail(r, -MEMSZ_EBADDATA,
					   "checksum mismatch");
		memset(rec, 0, sizeof(*rec));
		rec->type = get_u32(p + REC_TYPE);
		rec->crc = crc;
		rec->offset = r->off;
		rec->size = size;
		c = (struct md_cur){.p = p + MD_REC_HDR,
				    .len = size - MD_REC_HDR};
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
			md_cur_fail(&c, "bytes after the fields of the record");
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
	if (r->fd >= 0)
		close(r->fd);
	free(r->buf);
	free(r->runs);
	md_map_prev_free(&r->mprev);
	free(r->subject);
	free(r->u64s);
	free(r->img_ids);
	free(r->img_kinds);
	free(r->jit);
	free(r->cgs);
	free(r->chg);
	free(r->fc);
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
		put_u32(p + off + REC_CRC, md_record_crc(p + off, rsize));
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
	put_u32(buf + HDR_CRC, md_header_crc(buf, hsize));
	for (off = hsize; len - off >= MD_REC_HDR; off += size, n++) {
		size = get_u64(buf + off + REC_SIZE);
		if (size < MD_REC_HDR || size > len - off)
			break;
		if (get_u32(buf + off + REC_TYPE) == MD_REC_PACKED)
			n += packed_checksum_fix(buf + off, size);
		put_u32(buf + off + REC_CRC, md_record_crc(buf + off, size));
	}
	return n;
}
