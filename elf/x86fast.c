// SPDX-License-Identifier: GPL-2.0-or-later
/* x86fast.c — x86_decode_tab()'s tables (elf/x86dec.h), as elf/x86gen
 * computes them from x86_decode_fast() when memsz is built. */
#include "config.h"

#include "elf/x86dec.h"

#include "elf/x86fast.inc"
