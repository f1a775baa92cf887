// SPDX-License-Identifier: GPL-2.0-or-later
/* zinflate.c — a DEFLATE decoder for whole buffers; see zinflate.h.
 *
 * Faster than zlib's inflate_fast() where it matters for DWARF (megabytes
 * of short matches and literals) by: a 64-bit bit buffer refilled with
 * one unaligned load, wider first-level Huffman tables (10 bits for
 * literals/lengths, 8 for distances: one look-up for nearly every
 * symbol), and matches copied 8 bytes at a time. zlib's checks are kept
 * one for one (inflate.c and inftrees.c of zlib name them): header,
 * window size, preset dictionary (refused: none is given), block type,
 * stored lengths, code counts, code-length repeats, over-subscribed and
 * incomplete code sets, a missing end-of-block code, invalid symbols,
 * distances before the start of the stream's output, output that does
 * not fit, and the Adler-32 (zlib's adler32()). */
#include "config.h"

#include "util/util.h"
#include "util/zinflate.h"

#include <endian.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <zlib.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

/* Table entry: bits 0-3 the code bits to consume, 4-7 flags, 8-12 the
 * extra bits that follow, 16-31 the value (literal, length or distance
 * base, code-length symbol, or a subtable's offset). */
#define E_LIT 0x10u
#define E_EOB 0x20u
#define E_SUB 0x40u
#define E_BAD 0x80u

#define LIT_TB 10 /* first-level bits, literals/lengths */
#define DIST_TB 8 /* distances */
#define CL_TB 7	  /* code lengths (at most 7 bits long: one level) */
#define MAXBITS 15

/* room for the first level and a subtable per long code at most */
#define LIT_TSIZE ((1u << LIT_TB) + 288u * (1u << (MAXBITS - LIT_TB)))
#define DIST_TSIZE ((1u << DIST_TB) + 32u * (1u << (MAXBITS - DIST_TB)))

enum kind { K_CODES, K_LENS, K_DISTS };

static const uint16_t len_base[29] = {
    3,	4,  5,	6,  7,	8,  9,	10, 11,	 13,  15,  17,	19,  23, 27,
    31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
static const uint8_t len_extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1,
				      1, 1, 2, 2, 2, 2, 3, 3, 3, 3,
				      4, 4, 4, 4, 5, 5, 5, 5, 0};
static const uint16_t dist_base[30] = {
    1,	  2,	3,    4,    5,	  7,	9,    13,    17,    25,
    33,	  49,	65,   97,   129,  193,	257,  385,   513,   769,
    1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
static const uint8_t dist_extra[30] = {0, 0, 0,	 0,  1,	 1,  2,	 2,  3,	 3,
				       4, 4, 5,	 5,  6,	 6,  7,	 7,  8,	 8,
				       9, 9, 10, 10, 11, 11, 12, 12, 13, 13};
/* the order code-length code lengths come in */
static const uint8_t cl_order[19] = {16, 17, 18, 0, 8,	7, 9,  6, 10, 5,
				     11, 4,  12, 3, 13, 2, 14, 1, 15};

/* The entry (without its code bits) for symbol sym of a table of kind. */
static uint32_t sym_entry(enum kind k, unsigned sym)
{
	if (k == K_CODES)
		return (uint32_t)sym << 16;
	if (k == K_DISTS)
		return sym < 30 ? (uint32_t)dist_base[sym] << 16 |
				      (uint32_t)dist_extra[sym] << 8
				: E_BAD;
	if (sym < 256)
		return E_LIT | (uint32_t)sym << 16;
	if (sym == 256)
		return E_EOB;
	if (sym < 286)
		return (uint32_t)len_base[sym - 257] << 16 |
		       (uint32_t)len_extra[sym - 257] << 8;
	return E_BAD;
}

static unsigned bitrev(unsigned code, unsigned len)
{
	unsigned r = 0;

	while (len--) {
		r = r << 1 | (code & 1);
		code >>= 1;
	}
	return r;
}

/* Build the decoding table t (tb first-level bits) of the n code lengths
 * lens. False where zlib's inflate_table() fails: an over-subscribed set,
 * or an incomplete one (allowed only for lengths and distances with a
 * single one-bit code, as zlib allows). No codes at all (max 0) is a
 * table of invalid entries, as zlib's. */
static bool build(enum kind k, const uint8_t *lens, unsigned n, uint32_t *t,
		  unsigned tb)
{
	unsigned count[MAXBITS + 1] = {0}, next[MAXBITS + 1];
	unsigned max = 0, code = 0, sub = MAXBITS - tb, nsub = 0;
	int left = 1;

	for (unsigned i = 0; i < n; i++)
		count[lens[i]]++;
	for (unsigned l = 1; l <= MAXBITS; l++)
		if (count[l])
			max = l;
	for (unsigned i = 0; i < (1u << tb); i++)
		t[i] = E_BAD | 1;
	if (!max)
		return true;
	for (unsigned l = 1; l <= MAXBITS; l++) {
		left <<= 1;
		left -= (int)count[l];
		if (left < 0)
			return false;
	}
	if (left > 0 && (k == K_CODES || max != 1))
		return false;
	count[0] = 0;
	for (unsigned l = 1; l <= MAXBITS; l++) {
		code = (code + count[l - 1]) << 1;
		next[l] = code;
	}
	for (unsigned s = 0; s < n; s++) {
		unsigned l = lens[s], r;
		uint32_t e;

		if (!l)
			continue;
		r = bitrev(next[l]++, l);
		e = sym_entry(k, s);
		if (l <= tb) {
			for (unsigned i = r; i < (1u << tb); i += 1u << l)
				t[i] = e | l;
			continue;
		}
		/* a long code: its first tb bits lead to a subtable of the
		 * next sub bits */
		uint32_t *p = &t[r & ((1u << tb) - 1)], *st;

		if (!(*p & E_SUB)) {
			uint32_t off = (1u << tb) + nsub++ * (1u << sub);

			st = t + off;
			for (unsigned i = 0; i < (1u << sub); i++)
				st[i] = E_BAD | 1;
			*p = E_SUB | tb | off << 16;
		}
		st = t + (*p >> 16);
		for (unsigned i = r >> tb; i < (1u << sub); i += 1u << (l - tb))
			st[i] = e | (l - tb);
	}
	return true;
}

/* The bit reader: bits [0, bc) of bb are the next bits of the input at
 * byte ip - bc / 8 (rounded up); bytes past the end read as zeros,
 * counted in over. */
struct br {
	const unsigned char *ip, *end, *start;
	uint64_t bb;
	unsigned bc;
	size_t over;
};

/* At least 56 bits in the buffer. */
static inline void refill(struct br *b)
{
	if (b->end - b->ip >= 8) {
		uint64_t w;

		memcpy(&w, b->ip, 8);
		w = le64toh(w);
		b->bb |= w << b->bc;
		b->ip += (63 - b->bc) >> 3;
		b->bc |= 56;
		return;
	}
	b->bb &= b->bc ? ~(uint64_t)0 >> (64 - b->bc) : 0;
	while (b->bc <= 56) {
		uint64_t c = 0;

		if (b->ip < b->end)
			c = *b->ip++;
		else
			b->over++;
		b->bb |= c << b->bc;
		b->bc += 8;
	}
}

static inline unsigned bits(struct br *b, unsigned n)
{
	unsigned v = (unsigned)(b->bb & ((1u << n) - 1));

	b->bb >>= n;
	b->bc -= n;
	return v;
}

/* Drop to the byte boundary and empty the buffer: ip is then the next
 * byte. False if that is past the end (bits of the stream were
 * missing). */
static bool realign(struct br *b)
{
	size_t pos = (size_t)(b->ip - b->start) + b->over - b->bc / 8;

	if (pos > (size_t)(b->end - b->start))
		return false;
	b->ip = b->start + pos;
	b->bb = 0;
	b->bc = 0;
	b->over = 0;
	return true;
}

/* One Huffman-coded symbol's entry from table t (tb first-level bits);
 * its code bits consumed. At least 15 bits must be buffered. */
static inline uint32_t decode(struct br *b, const uint32_t *t, unsigned tb)
{
	uint32_t e = t[b->bb & ((1u << tb) - 1)];

	if (e & E_SUB) {
		b->bb >>= tb;
		b->bc -= tb;
		e = t[(e >> 16) + (b->bb & ((1u << (MAXBITS - tb)) - 1))];
	}
	b->bb >>= e & 15;
	b->bc -= e & 15;
	return e;
}

/* Copy a match of len bytes from dist bytes back (src) to op; end: the
 * end of the output, which the match fits before. Returns op + len. */
static inline unsigned char *copy_match(unsigned char *op,
					const unsigned char *src, size_t dist,
					size_t len, unsigned char *end)
{
	unsigned char *stop = op + len;

	if ((size_t)(end - op) < len + 8) {
		while (op < stop)
			*op++ = *src++;
		return stop;
	}
	if (dist < 8) {
		/* the match repeats with period dist, so any multiple of it
		 * is a distance too: bytes one by one until a multiple of at
		 * least 8 reaches back to bytes already there */
		size_t far = dist * ((8 + dist - 1) / dist);

		if (dist == 1) {
			memset(op, *src, len);
			return stop;
		}
		for (size_t i = 0; i < far - dist && op < stop; i++)
			*op++ = *src++;
		src = op - far;
	}
	while (op < stop) {
		memcpy(op, src, 8);
		op += 8;
		src += 8;
	}
	return stop;
}

struct zout {
	unsigned char *op, *end, *stream; /* stream: where this one began */
};

/* Decode one Huffman-coded block's symbols up to its end-of-block. */
static bool codes(struct br *b, struct zout *o, const uint32_t *lt,
		  const uint32_t *dt)
{
	/* the reader in a local: stores through op (unsigned char) may
	 * alias *b, which would keep its fields in memory */
	struct br r = *b;
	unsigned char *op = o->op, *end = o->end;
	bool ok = false;

	for (;;) {
		uint32_t e, x;
		size_t len, dist;

		refill(&r);
		e = decode(&r, lt, LIT_TB);
		if (e & E_LIT) {
			/* up to three literals from one refill (56 bits, 15
			 * a code), the output checked once */
			if (end - op < 3) {
				if (op == end)
					break;
				*op++ = (unsigned char)(e >> 16);
				continue;
			}
			*op++ = (unsigned char)(e >> 16);
			e = decode(&r, lt, LIT_TB);
			if (e & E_LIT) {
				*op++ = (unsigned char)(e >> 16);
				e = decode(&r, lt, LIT_TB);
				if (e & E_LIT) {
					*op++ = (unsigned char)(e >> 16);
					continue;
				}
			}
			refill(&r);
		}
		if (e & (E_EOB | E_BAD)) {
			ok = !(e & E_BAD);
			break;
		}
		/* at least 56 - 15 bits left: 5 + 15 + 13 needed */
		x = e >> 8 & 31;
		len = (e >> 16) + bits(&r, x);
		e = decode(&r, dt, DIST_TB);
		if (e & E_BAD)
			break;
		x = e >> 8 & 31;
		dist = (e >> 16) + bits(&r, x);
		if (dist > (size_t)(op - o->stream) || len > (size_t)(end - op))
			break;
		op = copy_match(op, op - dist, dist, len, end);
		if (r.over > 16)
			break; /* decoding zeros past the end */
	}
	*b = r;
	o->op = op;
	return ok;
}

/* The code lengths of a dynamic block into lt and dt. */
static bool dynamic(struct br *b, uint32_t *lt, uint32_t *dt)
{
	uint8_t lens[286 + 30], cl[19] = {0};
	uint32_t ct[1u << CL_TB];
	unsigned nlen, ndist, ncode, have = 0;

	refill(b);
	nlen = bits(b, 5) + 257;
	ndist = bits(b, 5) + 1;
	ncode = bits(b, 4) + 4;
	if (nlen > 286 || ndist > 30)
		return false;
	for (unsigned i = 0; i < ncode; i++) {
		refill(b);
		cl[cl_order[i]] = (uint8_t)bits(b, 3);
	}
	/* all 19 lengths 0 would decode every length as 0, missing the
	 * end-of-block code: an error in zlib too */
	if (!build(K_CODES, cl, 19, ct, CL_TB) || (ct[0] & E_BAD))
		return false;
	while (have < nlen + ndist) {
		uint32_t e;
		unsigned sym, rep, val = 0;

		refill(b);
		e = decode(b, ct, CL_TB);
		sym = e >> 16;
		if (sym < 16) {
			lens[have++] = (uint8_t)sym;
			continue;
		}
		if (sym == 16) {
			if (!have)
				return false;
			val = lens[have - 1];
			rep = 3 + bits(b, 2);
		} else if (sym == 17) {
			rep = 3 + bits(b, 3);
		} else {
			rep = 11 + bits(b, 7);
		}
		if (have + rep > nlen + ndist)
			return false;
		memset(lens + have, (int)val, rep);
		have += rep;
	}
	if (b->over > 16 || !lens[256])
		return false;
	return build(K_LENS, lens, nlen, lt, LIT_TB) &&
	       build(K_DISTS, lens + nlen, ndist, dt, DIST_TB);
}

/* The fixed codes' tables. */
static void fixed(uint32_t *lt, uint32_t *dt)
{
	uint8_t lens[288];

	memset(lens, 8, 144);
	memset(lens + 144, 9, 112);
	memset(lens + 256, 7, 24);
	memset(lens + 280, 8, 8);
	build(K_LENS, lens, 288, lt, LIT_TB);
	memset(lens, 5, 32);
	build(K_DISTS, lens, 32, dt, DIST_TB);
}

/* A stored block: after the block header, from the next byte. */
static bool stored(struct br *b, struct zout *o)
{
	unsigned len;

	if (!realign(b) || b->end - b->ip < 4)
		return false;
	len = b->ip[0] | b->ip[1] << 8;
	if (len != ((b->ip[2] | b->ip[3] << 8) ^ 0xffffu))
		return false;
	b->ip += 4;
	if ((size_t)(b->end - b->ip) < len || (size_t)(o->end - o->op) < len)
		return false;
	memcpy(o->op, b->ip, len);
	o->op += len;
	b->ip += len;
	return true;
}

#define ADLER_MOD 65521u
/* bytes summed before the sums are reduced (zlib's NMAX, rounded down to
 * whole 16-byte blocks): s2 stays below 2^32 */
#define ADLER_NMAX 5536u

#if defined(__x86_64__) && defined(__GNUC__)
/* Adler-32 of p[0, n) continued from adler, 16 bytes a step with SSSE3:
 * a step adds the bytes to s1 and, weighted 16..1, to s2, which also
 * gains 16 times the s1 of the steps before (zlib's sums, regrouped). */
__attribute__((target("ssse3"))) static uint32_t
adler32_ssse3(uint32_t adler, const unsigned char *p, size_t n)
{
	const __m128i w = _mm_setr_epi8(16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6,
					5, 4, 3, 2, 1);
	const __m128i ones = _mm_set1_epi16(1), zero = _mm_setzero_si128();
	uint64_t s1 = adler & 0xffff, s2 = adler >> 16;

	while (n >= 16) {
		size_t k = MIN(n, ADLER_NMAX) & ~(size_t)15;
		__m128i v1 = zero, v2 = zero, vp = zero;
		uint32_t t[4];

		s2 += s1 * k;
		n -= k;
		for (; k; k -= 16, p += 16) {
			__m128i x = _mm_loadu_si128((const __m128i *)p);

			vp = _mm_add_epi32(vp, v1);
			v1 = _mm_add_epi32(v1, _mm_sad_epu8(x, zero));
			v2 = _mm_add_epi32(
			    v2, _mm_madd_epi16(_mm_maddubs_epi16(x, w), ones));
		}
		_mm_storeu_si128((__m128i *)t, vp);
		s2 += 16 * ((uint64_t)t[0] + t[1] + t[2] + t[3]);
		_mm_storeu_si128((__m128i *)t, v2);
		s2 += (uint64_t)t[0] + t[1] + t[2] + t[3];
		_mm_storeu_si128((__m128i *)t, v1);
		s1 += (uint64_t)t[0] + t[2];
		s1 %= ADLER_MOD;
		s2 %= ADLER_MOD;
	}
	return (uint32_t)adler32((uLong)(s2 << 16 | s1), p, (uInt)n);
}
#endif

/* Adler-32 of p[0, n), as zlib's adler32() computes it. */
static uint32_t adler(const unsigned char *p, size_t n)
{
	uint32_t a = (uint32_t)adler32(0, NULL, 0);

#if defined(__x86_64__) && defined(__GNUC__)
	if (__builtin_cpu_supports("ssse3"))
		return adler32_ssse3(a, p, n);
#endif
	return (uint32_t)adler32(a, p, (uInt)n);
}

/* One zlib stream from b->ip (the reader empty) into o. */
static bool stream(struct br *b, struct zout *o, uint32_t *lt, uint32_t *dt)
{
	const unsigned char *p = b->ip;
	bool last = false;
	uint32_t check;

	if (b->end - p < 2 || ((p[0] << 8) | p[1]) % 31 || (p[0] & 15) != 8 ||
	    (p[0] >> 4) + 8 > 15 || (p[1] & 0x20))
		return false;
	b->ip += 2;
	o->stream = o->op;
	while (!last) {
		unsigned type;

		refill(b);
		last = bits(b, 1);
		type = bits(b, 2);
		if (type == 0) {
			if (!stored(b, o))
				return false;
			continue;
		}
		if (type == 3)
			return false;
		if (type == 1)
			fixed(lt, dt);
		else if (!dynamic(b, lt, dt))
			return false;
		if (!codes(b, o, lt, dt))
			return false;
	}
	if (!realign(b) || b->end - b->ip < 4)
		return false;
	p = b->ip;
	check = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
		(uint32_t)p[2] << 8 | p[3];
	b->ip += 4;
	return check == adler(o->stream, (size_t)(o->op - o->stream));
}

int zinflate(const unsigned char *in, size_t in_len, unsigned char *out,
	     size_t out_len)
{
	uint32_t lt[LIT_TSIZE], dt[DIST_TSIZE]; /* 57 KiB */
	struct br b = {.ip = in, .end = in + in_len, .start = in};
	struct zout o = {.op = out, .end = out + out_len};

	if (out_len > UINT32_MAX)
		return -EINVAL;
	while (b.ip < b.end)
		if (!stream(&b, &o, lt, dt))
			return -EINVAL;
	return o.op == o.end ? 0 : -EINVAL;
}
