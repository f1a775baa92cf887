// SPDX-License-Identifier: GPL-2.0-or-later
/* zinflate.c — inflate whole zlib streams with zlib; see zinflate.h.
 *
 * The loop is libelf's own (__libelf_decompress()): one stream after
 * another, inflateReset() between them, so that no match reaches into
 * the previous stream's output, and the output must come out exactly as
 * long as the compression header says. With all of the input and an
 * output buffer of the final size, zlib inflates straight into the
 * caller's buffer.
 *
 * Each stream's 2-byte zlib header and 4-byte adler32 trailer are
 * checked here, as zlib checks them, and zlib inflates the raw DEFLATE
 * data between (negative windowBits), in one Z_FINISH call per stream as
 * before (zlib keeps no window). zlib's adler32() summed each output a
 * few bytes a cycle, 4 % of `size --by compileunits` on libc's debug
 * file; the sum here is the same one, 16 bytes a step with SSE2. A
 * stream zlib would refuse is refused: a header that is not a multiple
 * of 31, not DEFLATE, a window over 32 KiB, a preset dictionary (FDICT:
 * zlib asks for it, libelf has none), a corrupt block or distance, a
 * stream or trailer cut short, a trailer that is not the adler32 of the
 * stream's output.
 */
#include "config.h"

#include "util/zinflate.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <zlib.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* adler32's modulus, and the most bytes summed between reductions (zlib's
 * NMAX, a multiple of 16): s1 and s2 are 64-bit here, so what it bounds is
 * the SSE2 path's 32-bit lanes, which stay far below 2^32 in a block */
#define ADLER_BASE 65521u
#define ADLER_NMAX 5536u

/* adler32 of p[0, n), continued from adler: zlib's adler32(). */
static uint32_t adler_sum(uint32_t adler, const unsigned char *p, size_t n)
{
	uint64_t s1 = adler & 0xffff, s2 = adler >> 16;

	while (n) {
		size_t k = n < ADLER_NMAX ? n : ADLER_NMAX, i = 0;
#ifdef __SSE2__
		/* per 16 bytes b[0..15]: s2 += 16 * s1 + sum (16 - j) *
		 * b[j], s1 += sum b[j]; vps sums, before each 16, the block's
		 * bytes before them, s1's growth within the block */
		const __m128i zero = _mm_setzero_si128();
		const __m128i wlo =
		    _mm_setr_epi16(16, 15, 14, 13, 12, 11, 10, 9);
		const __m128i whi = _mm_setr_epi16(8, 7, 6, 5, 4, 3, 2, 1);
		__m128i vs1 = zero, vs2 = zero, vps = zero;
		uint32_t a[4], b[4], c[4];

		s2 += s1 * (k & ~(size_t)15);
		for (; i + 16 <= k; i += 16) {
			__m128i v = _mm_loadu_si128((const __m128i *)(p + i));

			vps = _mm_add_epi32(vps, vs1);
			vs1 = _mm_add_epi32(vs1, _mm_sad_epu8(v, zero));
			vs2 = _mm_add_epi32(
			    vs2,
			    _mm_madd_epi16(_mm_unpacklo_epi8(v, zero), wlo));
			vs2 = _mm_add_epi32(
			    vs2,
			    _mm_madd_epi16(_mm_unpackhi_epi8(v, zero), whi));
		}
		_mm_storeu_si128((__m128i *)a, vs1);
		_mm_storeu_si128((__m128i *)b, vs2);
		_mm_storeu_si128((__m128i *)c, vps);
		s1 += (uint64_t)a[0] + a[2];
		s2 += (uint64_t)b[0] + b[1] + b[2] + b[3] +
		      16 * ((uint64_t)c[0] + c[2]);
#endif
		for (; i < k; i++) {
			s1 += p[i];
			s2 += s1;
		}
		s1 %= ADLER_BASE;
		s2 %= ADLER_BASE;
		p += k;
		n -= k;
	}
	return (uint32_t)(s2 << 16 | s1);
}

/* The zlib header at p (2 bytes) is one zlib inflates without a
 * dictionary (inflate()'s HEAD state, windowBits 15). */
static bool header_ok(const unsigned char *p)
{
	return !(((unsigned)p[0] << 8 | p[1]) % 31) && (p[0] & 15) == 8 &&
	       (p[0] >> 4) + 8 <= 15 && !(p[1] & 0x20);
}

/* The big-endian 32 bits at p. */
static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

int zinflate(const unsigned char *in, size_t in_len, unsigned char *out,
	     size_t out_len)
{
	z_stream z = {
	    .next_in = (Bytef *)in,
	    .avail_in = (uInt)in_len,
	    .next_out = out,
	    .avail_out = (uInt)out_len,
	};
	bool ok = true;

	if (in_len > UINT_MAX || out_len > UINT_MAX)
		return -EINVAL;
	if (inflateInit2(&z, -15) != Z_OK)
		return -ENOMEM;
	while (z.avail_in > 0 && ok) {
		unsigned char *from;

		ok = z.avail_in >= 2 && header_ok(z.next_in) &&
		     inflateReset(&z) == Z_OK;
		if (!ok)
			break;
		z.next_in += 2;
		z.avail_in -= 2;
		from = z.next_out;
		ok = inflate(&z, Z_FINISH) == Z_STREAM_END && z.avail_in >= 4 &&
		     be32(z.next_in) ==
			 adler_sum(1, from, (size_t)(z.next_out - from));
		if (ok) {
			z.next_in += 4;
			z.avail_in -= 4;
		}
	}
	inflateEnd(&z);
	return ok && z.avail_out == 0 ? 0 : -EINVAL;
}
