// SPDX-License-Identifier: GPL-2.0-or-later
/* dfcodec.c — the field encoders and the bounds-checked cursor that every
 * record codec uses, and the record and header checksums (dfcodec.h). */
#include "config.h"

#include "data/dfcodec.h"
#include "data/crc32c.h"
#include "util/escape.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

/* CRC-32C of n bytes at p with the u32 at p + at taken as zero. */
static uint32_t crc_without(const uint8_t *p, size_t n, size_t at)
{
	static const uint8_t zero[4];
	uint32_t c = md_crc32c(0, p, at);

	c = md_crc32c(c, zero, 4);
	return md_crc32c(c, p + at + 4, n - at - 4);
}

uint32_t md_record_crc(const uint8_t *p, uint64_t size)
{
	return crc_without(p, size, REC_CRC);
}

uint32_t md_header_crc(const uint8_t *p, size_t hsize)
{
	return crc_without(p, hsize, HDR_CRC);
}

uint8_t *md_buf_grow(struct md_buf *b, size_t n)
{
	uint8_t *q;

	xgrow(&b->p, &b->cap, b->len + n, 1);
	q = b->p + b->len;
	memset(q, 0, n);
	b->len += n;
	return q;
}

void md_buf_u32(struct md_buf *b, uint32_t v)
{
	put_u32(md_buf_grow(b, 4), v);
}

void md_buf_u64(struct md_buf *b, uint64_t v)
{
	put_u64(md_buf_grow(b, 8), v);
}

void md_buf_str(struct md_buf *b, const char *s)
{
	size_t n, sz;
	uint8_t *q;

	if (!s)
		s = "";
	n = strnlen(s, MD_STR_MAX);
	if (n == MD_STR_MAX) /* cut there, not in a UTF-8 character */
		n = utf8_cut(s, n);
	/* encoded: u32 length, the bytes, at least one NUL, zero padding
	 * to a multiple of 8 */
	sz = align8(4 + n + 1);
	q = md_buf_grow(b, sz); /* zeroed: NUL and padding */
	put_u32(q, (uint32_t)n);
	memcpy(q + 4, s, n);
}

void md_buf_pad8(struct md_buf *b)
{
	if (b->len % 8)
		md_buf_grow(b, 8 - b->len % 8);
}

void md_buf_var(struct md_buf *b, uint64_t v)
{
	size_t n = 1;
	uint8_t *q;

	for (uint64_t t = v; t >= 0x80; t >>= 7)
		n++;
	q = md_buf_grow(b, n);
	for (; v >= 0x80; v >>= 7)
		*q++ = (uint8_t)(v | 0x80);
	*q = (uint8_t)v;
}

void md_buf_build_id(struct md_buf *b, const uint8_t *id, uint32_t len)
{
	uint8_t *q = md_buf_grow(b, MD_BUILD_ID_FIELD);

	if (len > MD_BUILD_ID_MAX)
		len = MD_BUILD_ID_MAX;
	memcpy(q, id, len);
}

void md_cur_fail(struct md_cur *c, const char *why)
{
	if (!c->err) {
		c->err = -MEMSZ_EBADDATA;
		c->why = why;
	}
}

const uint8_t *md_cur_take(struct md_cur *c, size_t n)
{
	const uint8_t *q;

	if (c->err || n > c->len - c->pos) {
		md_cur_fail(c, "a field runs past the end of its record");
		return NULL;
	}
	q = c->p + c->pos;
	c->pos += n;
	return q;
}

uint32_t md_cur_u32(struct md_cur *c)
{
	const uint8_t *q = md_cur_take(c, 4);

	return q ? get_u32(q) : 0;
}

uint64_t md_cur_u64(struct md_cur *c)
{
	const uint8_t *q = md_cur_take(c, 8);

	return q ? get_u64(q) : 0;
}

/* A string: its length must fit the record, the bytes after it up to the
 * next multiple of 8 must be zero (a NUL at least) and it must hold no
 * NUL itself. Returns "" on error (c->err set). */
uint64_t md_cur_var(struct md_cur *c)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < 10; i++) {
		const uint8_t *q = md_cur_take(c, 1);

		if (!q)
			return 0;
		if (i == 9 && *q > 1)
			break;
		v |= (uint64_t)(*q & 0x7f) << (7 * i);
		if (!(*q & 0x80))
			return v;
	}
	md_cur_fail(c, "a LEB128 value over 64 bits");
	return 0;
}

const char *md_cur_str(struct md_cur *c)
{
	uint32_t n = md_cur_u32(c);
	const uint8_t *q;
	size_t end;

	if (c->err)
		return "";
	end = align8(c->pos + (size_t)n + 1);
	if (n > MD_STR_MAX) {
		md_cur_fail(c, "a string is longer than 16 MiB");
		return "";
	}
	if ((size_t)n + 1 > c->len - c->pos || end > c->len) {
		md_cur_fail(c, "a string runs past the end of its record");
		return "";
	}
	q = c->p + c->pos;
	if (memchr(q, 0, n) || !all_zero(q + n, end - c->pos - n)) {
		md_cur_fail(c, "a string holds a NUL or is not NUL padded");
		return "";
	}
	c->pos = end;
	return (const char *)q;
}

void md_cur_build_id(struct md_cur *c, uint8_t *dst, uint32_t len)
{
	const uint8_t *q = md_cur_take(c, MD_BUILD_ID_FIELD);

	if (q)
		memcpy(dst, q, MD_BUILD_ID_MAX);
	if (len > MD_BUILD_ID_MAX)
		md_cur_fail(c, "build-id longer than 20 bytes");
	else if (q && !all_zero(q + len, 24 - len))
		md_cur_fail(c, "build-id not zero padded");
}
