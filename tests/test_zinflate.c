// SPDX-License-Identifier: GPL-2.0-or-later
/* test_zinflate.c — zinflate() against zlib, the ground truth: streams
 * deflate() writes (every level and strategy, stored, fixed and dynamic
 * blocks, several streams one after another) must inflate to the same
 * bytes, and every stream zlib refuses (truncated, bits flipped, output
 * of the wrong size, bad headers and checksums, hand-made bad blocks) must
 * be refused too. zlib's side is libelf's loop of inflate() calls, which
 * zinflate() replaces for SHF_COMPRESSED sections. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include <cmocka.h>

#include "util/util.h"
#include "util/zinflate.h"
#include "tests/testutil.h"

/* zlib's answer, as libelf asks it (__libelf_decompress): 0 or -1. */
static int zlib_inflate(const unsigned char *in, size_t n, unsigned char *out,
			size_t m)
{
	z_stream z = {.next_in = (unsigned char *)in,
		      .avail_in = (uInt)n,
		      .next_out = out,
		      .avail_out = (uInt)m};
	int rc = inflateInit(&z);

	while (z.avail_in > 0 && rc == Z_OK) {
		z.next_out = out + (m - z.avail_out);
		rc = inflate(&z, Z_FINISH);
		if (rc != Z_STREAM_END) {
			rc = Z_DATA_ERROR;
			break;
		}
		rc = inflateReset(&z);
	}
	rc = rc == Z_OK && z.avail_out == 0 ? 0 : -1;
	inflateEnd(&z);
	return rc;
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static unsigned ncompared, naccepted;

/* zinflate() and zlib agree on in[0, n) into m bytes. */
static void same(const unsigned char *in, size_t n, size_t m)
{
	unsigned char *a = xmalloc(m + 1), *b = xmalloc(m + 1);
	int za = zlib_inflate(in, n, a, m), zb = zinflate(in, n, b, m);

	assert_int_equal(za, zb ? -1 : 0);
	if (!za)
		assert_memory_equal(a, b, m);
	ncompared++;
	naccepted += !za;
	free(a);
	free(b);
}

/* n bytes of one of four kinds: random, few letters, copies of what came
 * before (near and far: matches of every length and distance), runs. */
static void fill(unsigned char *p, size_t n, unsigned kind)
{
	for (size_t i = 0; i < n; i++) {
		if (kind == 0)
			p[i] = (unsigned char)rnd();
		else if (kind == 1)
			p[i] = "abcab"[rnd() % 5];
		else if (kind == 2)
			p[i] = i && rnd() % 8 ? p[i - 1 - rnd() % MIN(i, 40000)]
					      : (unsigned char)rnd();
		else
			p[i] = (unsigned char)(i / 7 % 3);
	}
}

/* deflate() src into out (room for cap) at level and strategy, window
 * bits wbits; the stream's length. */
static size_t deflate_into(const unsigned char *src, size_t n,
			   unsigned char *out, size_t cap, int level,
			   int strategy, int wbits)
{
	z_stream z = {0};
	size_t len;

	assert_int_equal(
	    deflateInit2(&z, level, Z_DEFLATED, wbits, 8, strategy), Z_OK);
	z.next_in = (unsigned char *)src;
	z.avail_in = (uInt)n;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
	len = z.total_out;
	deflateEnd(&z);
	return len;
}

static void test_deflated(void **state)
{
	(void)state;
	for (int it = 0; it < 400; it++) {
		size_t m = rnd() % 100000, n, cap;
		unsigned char *src = xmalloc(m + m / 2 + 1), *c;
		int level = (int)(rnd() % 10), strategy = (int)(rnd() % 5);

		fill(src, m, (unsigned)(rnd() % 4));
		cap = compressBound(m) * 2 + 64;
		c = xmalloc(cap);
		n = deflate_into(src, m, c, cap, level, strategy,
				 8 + (int)(rnd() % 8));
		if (it % 4 == 0) { /* a second stream after the first */
			n += deflate_into(src, m / 2, c + n, cap - n,
					  (int)(rnd() % 10), Z_DEFAULT_STRATEGY,
					  15);
			m += m / 2;
		}
		same(c, n, m);
		same(c, n, m ? m - 1 : 0);
		same(c, n, m + 1);
		if (n > 1)
			same(c, n - 1 - rnd() % MIN(n - 1, 8), m);
		for (int k = 0; k < 8; k++) {
			unsigned char *d = xmalloc(n);

			memcpy(d, c, n);
			for (int f = 1 + (int)(rnd() % 3); f; f--)
				d[rnd() % n] ^=
				    (unsigned char)(1u << rnd() % 8);
			same(d, n, m);
			free(d);
		}
		free(src);
		free(c);
	}
	/* the valid streams were accepted, not only refused alike */
	assert_true(naccepted >= 400);
}

/* Short random bodies after a valid header: every kind of bad block
 * header, code set and symbol that zlib refuses, and the few it takes. */
static void test_random(void **state)
{
	unsigned char d[256];

	(void)state;
	for (int it = 0; it < 50000; it++) {
		size_t n = 2 + rnd() % 120, m = rnd() % 400;

		for (size_t i = 0; i < n; i++)
			d[i] = (unsigned char)rnd();
		d[0] = 0x78;
		d[1] = 0x9c;
		same(d, n, m);
	}
}

/* Hand-made streams at the edges zlib checks. */
static void test_edges(void **state)
{
	/* an empty stored block: header, BFINAL, LEN 0, NLEN ffff, adler 1 */
	unsigned char st[] = {0x78, 0x01, 0x01, 0x00, 0x00, 0xff,
			      0xff, 0x00, 0x00, 0x00, 0x01};
	unsigned char two[2 * sizeof(st)], bad[sizeof(st)];

	(void)state;
	same(st, sizeof(st), 0);
	same(st, sizeof(st), 1);
	/* two of them, and one after output filled */
	memcpy(two, st, sizeof(st));
	memcpy(two + sizeof(st), st, sizeof(st));
	same(two, sizeof(two), 0);
	/* header: check bits, method, window size, preset dictionary */
	for (unsigned h = 0; h < 0x10000; h++) {
		memcpy(bad, st, sizeof(st));
		bad[0] = (unsigned char)(h >> 8);
		bad[1] = (unsigned char)h;
		same(bad, sizeof(bad), 0);
	}
	/* stored lengths that do not match */
	memcpy(bad, st, sizeof(st));
	bad[5] = 0xfe;
	same(bad, sizeof(bad), 0);
	/* nothing at all, and nothing into something */
	same(st, 0, 0);
	same(st, 0, 1);
	assert_true(ncompared > 0x10000);
}

/* A bit writer for hand-made streams: fields LSB first, Huffman codes
 * MSB first, as RFC 1951 packs them. */
struct bw {
	unsigned char b[64];
	size_t bit;
};

static void put(struct bw *w, unsigned v, unsigned n)
{
	for (unsigned i = 0; i < n; i++, w->bit++)
		if (v >> i & 1)
			w->b[w->bit / 8] |= (unsigned char)(1u << w->bit % 8);
}

static void huff(struct bw *w, unsigned code, unsigned len)
{
	while (len--)
		put(w, code >> len & 1, 1);
}

/* End the stream: to a byte, then the Adler-32 of out[0, m). */
static size_t finish(struct bw *w, const unsigned char *out, size_t m)
{
	uint32_t a = (uint32_t)adler32(adler32(0, NULL, 0), out, (uInt)m);
	size_t n = (w->bit + 7) / 8;

	for (int i = 3; i >= 0; i--)
		w->b[n++] = (unsigned char)(a >> (8 * i));
	return n;
}

/* A dynamic block of ndist distance codes that holds an end-of-block
 * only: literal 0 and end-of-block one bit each, distance 0 dlen bits
 * (an incomplete set: zlib allows it of one 1-bit code only), the rest
 * runs of zeros (code-length codes 0, 1, 2, 18 two bits each). */
static size_t dyn_block(struct bw *w, unsigned ndist, unsigned dlen)
{
	static const uint8_t order[19] = {16, 17, 18, 0, 8,  7, 9,  6, 10, 5,
					  11, 4,  12, 3, 13, 2, 14, 1, 15};

	memset(w, 0, sizeof(*w));
	put(w, 0x78, 8);
	put(w, 0x01, 8);
	put(w, 1, 1); /* BFINAL */
	put(w, 2, 2); /* dynamic */
	put(w, 0, 5); /* 257 literal/length codes */
	put(w, ndist - 1, 5);
	put(w, 18 - 4, 4); /* code-length codes up to that of 1 */
	for (int i = 0; i < 18; i++) {
		unsigned sym = order[i];

		put(w, sym == 0 || sym == 1 || sym == 2 || sym == 18 ? 2 : 0,
		    3);
	}
	/* codes: 0 -> 00, 1 -> 01, 2 -> 10, 18 -> 11 */
	huff(w, 1, 2); /* literal 0: 1 bit */
	huff(w, 3, 2); /* literals 1-138: 0 */
	put(w, 138 - 11, 7);
	huff(w, 3, 2); /* 139-255: 0 */
	put(w, 117 - 11, 7);
	huff(w, 1, 2);	  /* end-of-block: 1 bit */
	huff(w, dlen, 2); /* distance 0: dlen bits */
	huff(w, 3, 2);	  /* the other distances: 0 */
	put(w, ndist - 1 - 11, 7);
	huff(w, 1, 1); /* end-of-block (literal 0 is 0) */
	return finish(w, NULL, 0);
}

/* A stream of a fixed block with 'a' only, then (at w->bit) the
 * stream of fixed_match(). */
static void fixed_a(struct bw *w)
{
	size_t n;

	memset(w, 0, sizeof(*w));
	put(w, 0x78, 8);
	put(w, 0x01, 8);
	put(w, 1, 1);
	put(w, 1, 2);
	huff(w, 0x30 + 'a', 8);
	huff(w, 0, 7);
	n = finish(w, (const unsigned char *)"a", 1);
	w->bit = 8 * n;
}

/* A fixed block: 'a' (unless second: then first in the stream), then a
 * match of 3 bytes at distance dist; out: what it inflates to. */
static size_t fixed_match(struct bw *w, unsigned dist, bool second,
			  unsigned char *out)
{
	if (!second)
		memset(w, 0, sizeof(*w));
	put(w, 0x78, 8);
	put(w, 0x01, 8);
	put(w, 1, 1);
	put(w, 1, 2); /* fixed */
	if (!second)
		huff(w, 0x30 + 'a', 8);
	huff(w, 1, 7);	      /* length 3 (257) */
	huff(w, dist - 1, 5); /* distance 1 or 2 (codes 0, 1) */
	huff(w, 0, 7);	      /* end-of-block */
	memset(out, 'a', 4);
	return finish(w, out, second ? 3 : 4);
}

/* Streams one field away from valid, where zlib draws its lines. */
static void test_lines(void **state)
{
	struct bw w;
	unsigned char out[4], got[4];
	size_t n;

	(void)state;
	/* 30 distance codes: the most zlib takes; 31 refused */
	n = dyn_block(&w, 30, 1);
	assert_int_equal(zlib_inflate(w.b, n, got, 0), 0);
	same(w.b, n, 0);
	n = dyn_block(&w, 31, 1);
	assert_int_equal(zlib_inflate(w.b, n, got, 0), -1);
	same(w.b, n, 0);
	/* a lone distance code of 2 bits: incomplete, refused */
	n = dyn_block(&w, 30, 2);
	assert_int_equal(zlib_inflate(w.b, n, got, 0), -1);
	same(w.b, n, 0);
	/* a match reaching back to the first byte, and one byte further */
	n = fixed_match(&w, 1, false, out);
	assert_int_equal(zlib_inflate(w.b, n, got, 4), 0);
	assert_int_equal(zinflate(w.b, n, got, 4), 0);
	assert_memory_equal(got, out, 4);
	n = fixed_match(&w, 2, false, out);
	assert_int_equal(zlib_inflate(w.b, n, got, 4), -1);
	same(w.b, n, 4);
	/* a second stream's match cannot reach into the first's output */
	fixed_a(&w);
	n = fixed_match(&w, 1, true, out);
	assert_int_equal(zlib_inflate(w.b, n, got, 4), -1);
	same(w.b, n, 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_deflated),
	    cmocka_unit_test(test_random),
	    cmocka_unit_test(test_edges),
	    cmocka_unit_test(test_lines),
	};

	return test_run_group(tests, NULL, NULL);
}
