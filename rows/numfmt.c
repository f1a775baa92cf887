// SPDX-License-Identifier: GPL-2.0-or-later
/* numfmt.c — see numfmt.h */
#include "config.h"

#include "rows/numfmt.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "util/util.h"

size_t numfmt_u64(char *buf, uint64_t v)
{
	char tmp[20];
	size_t n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (size_t i = 0; i < n; i++)
		buf[i] = tmp[n - 1 - i];
	return n;
}

/* m * 2^e * mul rounded to an integer, half to even (as printf rounds
 * the exact value); m * mul < 2^64, e <= 0. */
static uint64_t round_scaled(uint64_t m, int e, unsigned mul)
{
	uint64_t n = m * mul, q, r, half;
	unsigned s = (unsigned)-e;

	if (!s)
		return n;
	if (s >= 64) /* n < 2^60 (callers): n / 2^s is under 1/2 */
		return 0;
	q = n >> s;
	r = n & ((UINT64_C(1) << s) - 1);
	half = UINT64_C(1) << (s - 1);
	if (r > half || (r == half && (q & 1)))
		q++;
	return q;
}

/* q / 10^decimals with that many decimals. */
static size_t put_decimals(char *buf, uint64_t q, unsigned decimals)
{
	static const uint64_t pow10[] = {1, 10, 100};
	uint64_t ip = q / pow10[decimals], fp = q % pow10[decimals];
	size_t n = numfmt_u64(buf, ip);

	if (decimals) {
		buf[n++] = '.';
		for (unsigned i = decimals; i-- > 0;) {
			buf[n + i] = (char)('0' + fp % 10);
			fp /= 10;
		}
		n += decimals;
	}
	return n;
}

size_t numfmt_fixed1(char *buf, double d)
{
	uint64_t bits, m;
	int be, e;

	memcpy(&bits, &d, sizeof(bits));
	/* fast: d = m * 2^e, 0 <= d < 2^52 so e < 0, not -0.0 (prints its
	 * sign) */
	if (!(d >= 0 && d < 4503599627370496.0) || bits >> 63) {
		int n = snprintf(buf, NUMFMT_MAX, "%.1f", d);

		return n < 0 ? 0 : (size_t)n;
	}
	be = (int)(bits >> 52 & 0x7ff);
	m = bits & ((UINT64_C(1) << 52) - 1);
	if (be) {
		m |= UINT64_C(1) << 52;
		e = be - 1075;
	} else {
		e = -1074;
	}
	return put_decimals(buf, round_scaled(m, e, 10), 1);
}

size_t numfmt_human(char *buf, uint64_t v, unsigned shift)
{
	static const char *const units[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi"};
	unsigned k = shift, u = 0, decimals;
	size_t n;

	/* v / 2^shift is the double fmt_human gets only while v fits the
	 * 53 bits of a double (and its units' shifts, up to shift + 50,
	 * fit 64 bits); past that, fmt_human itself */
	if (v >> 53 || shift > 13) {
		char tmp[64];

		fmt_human(tmp, sizeof(tmp),
			  (double)v / (double)(UINT64_C(1) << shift));
		n = strlen(tmp);
		memcpy(buf, tmp, n);
		return n;
	}
	if (v >> k < 1024)
		return put_decimals(buf, round_scaled(v, -(int)k, 1), 0);
	while (v >> k >= 1024 && u + 1 < ARRAY_SIZE(units)) {
		k += 10;
		u++;
	}
	decimals = v >> k < 10 ? 2 : v >> k < 100 ? 1 : 0;
	n = put_decimals(buf,
			 round_scaled(v, -(int)k,
				      decimals == 2   ? 100
				      : decimals == 1 ? 10
						      : 1),
			 decimals);
	memcpy(buf + n, units[u], strlen(units[u]));
	return n + strlen(units[u]);
}
