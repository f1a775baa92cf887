// SPDX-License-Identifier: GPL-2.0-or-later
/* test_zinflate.c — zinflate() (zlib on the raw DEFLATE data, the zlib
 * header and adler32 trailer checked by memsz) answers as zlib's own
 * inflate() of the whole zlib streams does in libelf's loop (libelf()
 * below), on streams zlib's compress2() made: of every length around the
 * 16-byte steps and the 5 536-byte blocks of its adler32, whole,
 * concatenated, into a buffer too small or too large, truncated, with
 * trailing bytes, with a wrong adler32 trailer, a preset dictionary, a
 * window over 32 KiB or a bad header, and with bytes flipped at random
 * (a fixed seed). */
#include "config.h"

#include <errno.h>
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

#include "util/zinflate.h"

/* n bytes of text-like data (DWARF-ish: runs, repeats and noise) */
static unsigned char *sample(size_t n, unsigned seed)
{
	unsigned char *p = malloc(n ? n : 1);

	assert_non_null(p);
	for (size_t i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		p[i] = (seed >> 16) % 7 ? (unsigned char)"abcdefgh"[i % 8]
					: (unsigned char)(seed >> 24);
	}
	return p;
}

/* src compressed by zlib into a new buffer, its size into *n */
static unsigned char *deflated(const unsigned char *src, size_t len, size_t *n)
{
	uLongf cap = compressBound((uLong)len);
	unsigned char *z = malloc(cap);

	assert_non_null(z);
	assert_int_equal(compress2(z, &cap, src, (uLong)len, 6), Z_OK);
	*n = cap;
	return z;
}

/* libelf's __libelf_decompress() loop: zlib inflates each whole zlib
 * stream with Z_FINISH, reset between streams; the output must be full. */
static int libelf(const unsigned char *in, size_t in_len, unsigned char *out,
		  size_t out_len)
{
	z_stream z = {
	    .next_in = (Bytef *)in,
	    .avail_in = (uInt)in_len,
	    .next_out = out,
	    .avail_out = (uInt)out_len,
	};
	int rc = Z_OK;

	assert_int_equal(inflateInit(&z), Z_OK);
	while (z.avail_in > 0 && rc == Z_OK) {
		rc = inflate(&z, Z_FINISH);
		rc = rc == Z_STREAM_END ? inflateReset(&z) : Z_DATA_ERROR;
	}
	inflateEnd(&z);
	return rc == Z_OK && z.avail_out == 0 ? 0 : -EINVAL;
}

/* zinflate() and libelf() of in into out_len bytes agree (code
 * and, when 0, bytes); the code returned. */
static int both(const unsigned char *in, size_t in_len, size_t out_len)
{
	unsigned char *a = malloc(out_len ? out_len : 1);
	unsigned char *b = malloc(out_len ? out_len : 1);
	int ra, rb;

	assert_non_null(a);
	assert_non_null(b);
	ra = zinflate(in, in_len, a, out_len);
	rb = libelf(in, in_len, b, out_len);
	assert_int_equal(ra, rb);
	if (!ra)
		assert_memory_equal(a, b, out_len);
	free(a);
	free(b);
	return ra;
}

static void test_streams(void **state)
{
	size_t n1, n2, n0, len = 300000;
	unsigned char *src = sample(len, 1);
	unsigned char *z1 = deflated(src, len, &n1);
	unsigned char *z2 = deflated(src, 1000, &n2);
	unsigned char *z0 = deflated(src, 0, &n0);
	unsigned char *cat = malloc(n1 + n2 + n0 + 1), *out = malloc(len);

	(void)state;
	assert_non_null(cat);
	assert_non_null(out);
	/* whole: the bytes compressed */
	assert_int_equal(both(z1, n1, len), 0);
	assert_int_equal(zinflate(z1, n1, out, len), 0);
	assert_memory_equal(out, src, len);
	/* the buffer a byte too large or too small */
	assert_int_equal(both(z1, n1, len + 1), -EINVAL);
	assert_int_equal(both(z1, n1, len - 1), -EINVAL);
	/* two streams and an empty one, one after the other */
	memcpy(cat, z1, n1);
	memcpy(cat + n1, z0, n0);
	memcpy(cat + n1 + n0, z2, n2);
	assert_int_equal(both(cat, n1 + n0 + n2, len + 1000), 0);
	assert_int_equal(both(cat, n1 + n0 + n2, len), -EINVAL);
	/* an empty stream into nothing; nothing into nothing */
	assert_int_equal(both(z0, n0, 0), 0);
	assert_int_equal(both(z0, 0, 0), 0);
	/* truncated, and a byte after the stream */
	assert_int_equal(both(z1, n1 - 1, len), -EINVAL);
	memcpy(cat, z1, n1);
	cat[n1] = 0x78;
	assert_int_equal(both(cat, n1 + 1, len), -EINVAL);
	/* the adler32 trailer wrong: the check is made */
	memcpy(cat, z1, n1);
	cat[n1 - 1] ^= 1;
	assert_int_equal(both(cat, n1, len), -EINVAL);
	/* a preset dictionary asked (FDICT, header still a multiple of
	 * 31), a header that is not */
	memcpy(cat, z1, n1);
	cat[1] = 0xbb; /* 0x78bb = 30907 = 31 * 997: FDICT set */
	assert_int_equal(both(cat, n1, len), -EINVAL);
	cat[1] = 0x9d;
	assert_int_equal(both(cat, n1, len), -EINVAL);
	/* CINFO 8: a 64 KiB window (0x881c = 31 * 1124) */
	cat[0] = 0x88;
	cat[1] = 0x1c;
	assert_int_equal(both(cat, n1, len), -EINVAL);
	free(z1);
	free(z2);
	free(z0);
	free(cat);
	free(out);
	free(src);
}

/* Every length from 0 to 600, then around each multiple of 5 536 to
 * 40 000 (the adler32 blocks) and one of 1 MiB: inflated, the sum
 * accepted; the last trailer byte flipped, refused. */
static void test_lengths(void **state)
{
	size_t big = (size_t)1 << 20;
	unsigned char *src = sample(big, 5);

	(void)state;
	for (size_t len = 0; len <= big; len++) {
		size_t n;
		unsigned char *z;

		if (len > 600 && len % 5536 > 20 && len % 5536 < 5516)
			continue;
		if (len > 40000 && len != big)
			continue;
		z = deflated(src, len, &n);
		assert_int_equal(both(z, n, len), 0);
		z[n - 1] ^= 0x80;
		assert_int_equal(both(z, n, len), -EINVAL);
		free(z);
	}
	free(src);
}

/* Bytes flipped at random in a small stream: both refuse or both give
 * the same bytes. */
static void test_flips(void **state)
{
	size_t n, len = 4000;
	unsigned char *src = sample(len, 7);
	unsigned char *z = deflated(src, len, &n);
	unsigned char *bad = malloc(n);
	unsigned seed = 12345;
	int ok = 0;

	(void)state;
	assert_non_null(bad);
	for (int t = 0; t < 3000; t++) {
		memcpy(bad, z, n);
		for (int k = 0; k < 1 + t % 3; k++) {
			seed = seed * 1103515245u + 12345u;
			bad[(seed >> 8) % n] ^=
			    (unsigned char)(1u << (seed % 8));
		}
		ok += both(bad, n, len) == 0;
	}
	/* some flips land where nothing changes (a stored bit unused) */
	assert_true(ok < 3000);
	free(bad);
	free(z);
	free(src);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_streams),
	    cmocka_unit_test(test_flips),
	    cmocka_unit_test(test_lengths),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
