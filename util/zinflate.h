/* SPDX-License-Identifier: GPL-2.0-or-later */
/* zinflate.h — inflate zlib streams (RFC 1950/1951) held whole in memory
 * into a buffer of known size, as libelf inflates an SHF_COMPRESSED
 * section, but into a buffer the caller chose (elf/dwinflate.c). */
#ifndef MEMSZ_UTIL_ZINFLATE_H
#define MEMSZ_UTIL_ZINFLATE_H

#include <stddef.h>

/* Inflate in[0, in_len), one zlib stream after another until the input
 * ends (each stream complete, its distances within its own output), into
 * out, which the streams must fill exactly (out_len bytes). Returns 0;
 * -EINVAL if the input is not that (out's contents are then undefined);
 * -ENOMEM if zlib could not start. */
int zinflate(const unsigned char *in, size_t in_len, unsigned char *out,
	     size_t out_len);

#endif
