// SPDX-License-Identifier: GPL-2.0-or-later
/* test_numfmt.c — the table's fast paths against the slow ones they
 * stand for: its number formatters against printf itself (and
 * fmt_human(), which is printf): every value of some ranges, the
 * boundaries of each unit and decimal count, ties at every place, and
 * pseudo-random values, byte for byte; and its labels (printable ASCII
 * checked eight bytes at a time) against util/escape.h's str_escape(),
 * every byte at every place of a word. */
#include "config.h"

#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rows/fields.h"
#include "rows/numfmt.h"
#include "util/escape.h"
#include "util/strbuf.h"
#include "util/util.h"
#include "tests/testutil.h"

/* xorshift64*: the same sequence on every run. */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * UINT64_C(2685821657736338717);
}

/* The double next to d (d > 0) on the side of dir (-1, +1). */
static double beside(double d, int dir)
{
	uint64_t b;

	memcpy(&b, &d, sizeof(b));
	b = dir < 0 ? b - 1 : b + 1;
	memcpy(&d, &b, sizeof(d));
	return d;
}

static void check_u64(uint64_t v)
{
	char want[32], got[NUMFMT_MAX + 1];
	size_t n = numfmt_u64(got, v);

	snprintf(want, sizeof(want), "%" PRIu64, v);
	got[n] = 0;
	assert_string_equal(got, want);
}

static void check_fixed1(double d)
{
	char want[NUMFMT_MAX + 1], got[NUMFMT_MAX + 1];
	size_t n = numfmt_fixed1(got, d);

	snprintf(want, sizeof(want), "%.1f", d);
	got[n] = 0;
	if (strcmp(got, want))
		fail_msg("%.17g: got %s, printf %s", d, got, want);
}

static void check_human(uint64_t v, unsigned shift)
{
	char want[64], got[NUMFMT_MAX + 1];
	size_t n = numfmt_human(got, v, shift);

	fmt_human(want, sizeof(want),
		  (double)v / (double)(UINT64_C(1) << shift));
	got[n] = 0;
	if (strcmp(got, want))
		fail_msg("%" PRIu64 " >> %u: got %s, fmt_human %s", v, shift,
			 got, want);
}

static void test_u64(void **state)
{
	uint64_t s = 1;

	(void)state;
	for (uint64_t v = 0; v < 100000; v++)
		check_u64(v);
	for (int i = 0; i < 64; i++) {
		check_u64(UINT64_C(1) << i);
		check_u64((UINT64_C(1) << i) - 1);
	}
	check_u64(UINT64_MAX);
	for (int i = 0; i < 100000; i++)
		check_u64(rnd(&s) >> (i % 64));
}

/* The percentages a table prints: 100.0 * v / parent, as table.c
 * computes them, every pair of a small range and random ones; then
 * doubles at and beside every tie x.x5. */
static void test_fixed1(void **state)
{
	uint64_t s = 7;

	(void)state;
	for (uint64_t p = 1; p < 300; p++)
		for (uint64_t v = 0; v <= p; v++)
			check_fixed1(100.0 * (double)v / (double)p);
	for (int i = 0; i < 300000; i++) {
		uint64_t p = rnd(&s) >> (i % 60), v = p ? rnd(&s) % p : 0;

		check_fixed1(100.0 * (double)v / (double)(p ? p : 1));
	}
	for (int i = 0; i < 20000; i++) {
		double d = (double)i / 20.0; /* x.x5: ties and near-ties */

		check_fixed1(d);
		if (i) {
			check_fixed1(beside(d, -1));
			check_fixed1(beside(d, 1));
		}
	}
	/* exact binary ties (half to even), tiny, subnormal, huge, -0 */
	check_fixed1(0.25);
	check_fixed1(0.75);
	check_fixed1(1e-300);
	check_fixed1(4.9e-324);
	check_fixed1(0.05);
	check_fixed1(4503599627370495.5);
	check_fixed1(4503599627370496.0);
	check_fixed1(1e300);
	check_fixed1(-0.0);
	check_fixed1(-12.25);
}

static void test_human(void **state)
{
	static const unsigned shifts[] = {0, 1, 12, 13, 14, 20};
	uint64_t s = 3;

	(void)state;
	for (size_t k = 0; k < ARRAY_SIZE(shifts); k++) {
		unsigned sh = shifts[k];

		for (uint64_t v = 0; v < 300000; v++)
			check_human(v, sh);
		/* each unit's edges: 1024^u and 10, 100 of it, one below
		 * and above, and the roundings that carry into the next */
		for (unsigned u = 0; u < 7; u++) {
			for (uint64_t m = 1; m <= 1024; m *= 2) {
				for (uint64_t base = m; base <= 100 * m;
				     base *= 10) {
					uint64_t e = (base << (10 * u)) << sh;

					for (int64_t d = -3; d <= 3; d++)
						check_human(e + (uint64_t)d,
							    sh);
				}
			}
			for (uint64_t x = 9990; x < 10010; x++) {
				uint64_t e = ((x << (10 * u)) / 1000) << sh;

				for (int64_t d = -2; d <= 2; d++)
					check_human(e + (uint64_t)d, sh);
			}
		}
		for (int i = 0; i < 300000; i++)
			check_human(rnd(&s) >> (i % 64), sh);
	}
	check_human(UINT64_MAX, 0);
	check_human(UINT64_C(1) << 53, 0);
	check_human((UINT64_C(1) << 53) - 1, 0);
	check_human(UINT64_MAX, 63);
}

/* Every byte value at each place of a 21-byte label (two words and a
 * tail) among printable ones: out_label_add() writes what str_escape()
 * makes of it, whole and cut to 9 code points (the head, an ellipsis and
 * the tail of the escaped label). */
static void test_label_bytes(void **state)
{
	char label[22];

	(void)state;
	for (size_t pos = 0; pos < 21; pos++) {
		for (int b = 1; b < 256; b++) {
			struct strbuf sb = STRBUF_INIT;
			size_t ncp;
			char *want;

			for (size_t i = 0; i < 21; i++)
				label[i] = (char)('a' + i);
			label[pos] = (char)b;
			label[21] = 0;
			want = str_escape(label, &ncp);
			out_label_add(&sb, label, 0, false);
			assert_string_equal(strbuf_str(&sb), want);
			strbuf_reset(&sb);
			out_label_add(&sb, label, 9, false);
			/* cut: 4 code points, the ellipsis, 4 more */
			assert_true(ncp > 9);
			assert_memory_equal(strbuf_str(&sb), want, 4);
			assert_string_equal(strbuf_str(&sb) + sb.len - 4,
					    want + strlen(want) - 4);
			assert_memory_equal(strbuf_str(&sb) + 4, "\u2026",
					    strlen("\u2026"));
			strbuf_free(&sb);
			free(want);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_u64),
	    cmocka_unit_test(test_fixed1),
	    cmocka_unit_test(test_human),
	    cmocka_unit_test(test_label_bytes),
	};

	return test_run_group(tests, NULL, NULL);
}
