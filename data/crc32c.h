/* SPDX-License-Identifier: GPL-2.0-or-later */
/* crc32c.h — CRC-32C, the checksum of every memsz.data header and record.
 *
 * zlib's crc32() (linked) cannot serve: it computes CRC-32/IEEE
 * (polynomial 0xedb88320), and the format's checksums are CRC-32C
 * (Castagnoli, 0x82f63b78), the polynomial the SSE4.2 crc32 instruction
 * computes in hardware: a recording checksums every record it writes,
 * 4 MiB sample batches included.
 * The implementation is chosen once, at load time (no lazy set-up that
 * threads could race on).
 */
#ifndef MEMSZ_DATA_CRC32C_H
#define MEMSZ_DATA_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/* CRC-32C (Castagnoli) of n bytes at p, continuing from crc (0 to start).
 * Thread-safe; p may be NULL when n is 0. */
uint32_t md_crc32c(uint32_t crc, const void *p, size_t n);

#endif
