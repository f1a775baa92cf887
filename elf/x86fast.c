// SPDX-License-Identifier: GPL-2.0-or-later
/* x86fast.c — x86_decode_tab()'s table (elf/x86dec.h), as elf/x86gen
 * computes it from x86_decode_fast() when memsz is built. */
#include "config.h"

#include "elf/x86dec.h"

const uint8_t x86_fast_tab[2][256][256] = {
#include "elf/x86fast.inc"
};
