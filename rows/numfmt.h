/* SPDX-License-Identifier: GPL-2.0-or-later */
/* numfmt.h — private to rows/: the numbers a table prints on every row,
 * formatted without printf, byte for byte as printf formats them (a table
 * of a big binary has hundreds of thousands of rows; printf's floating
 * point made a quarter of the time of `size --by compileunits,symbols`).
 *
 * Each writes into buf (NUMFMT_MAX bytes) without a NUL and returns the
 * length. Integer arithmetic on the exact binary value of the double
 * printf would get, rounded half to even as glibc rounds it; values out
 * of the fast range go through snprintf itself.
 */
#ifndef MEMSZ_ROWS_NUMFMT_H
#define MEMSZ_ROWS_NUMFMT_H

#include <stddef.h>
#include <stdint.h>

/* Room any of these writes: the longest double "%.1f" can print. */
#define NUMFMT_MAX 330

/* v in decimal: "%" PRIu64. */
size_t numfmt_u64(char *buf, uint64_t v);

/* d with one decimal: "%.1f" (d >= 0 finite is the fast path). */
size_t numfmt_fixed1(char *buf, double d);

/* fmt_human() (util/util.h) of v / 2^shift, shift < 64: "812", "4.00Ki",
 * "12.5Mi", "100Gi". */
size_t numfmt_human(char *buf, uint64_t v, unsigned shift);

#endif
