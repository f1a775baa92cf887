/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dwstrings.h — the string pointers libdw hands out stay inside their
 * section: checked before any is read. */
#ifndef MEMSZ_ELF_DWSTRINGS_H
#define MEMSZ_ELF_DWSTRINGS_H

#include <stdbool.h>

#include "elf/elfimg.h"

/* True if img's DWARF string sections (.debug_str, .debug_line_str, or
 * their .zdebug_ forms) end with a NUL and every entry of its
 * .debug_str_offsets is an offset inside .debug_str. Asked once libdw
 * has opened img (after dwarf_begin_elf(), which inflates compressed
 * sections in place, and after a .o's relocations, which may write into
 * these sections). */
bool elf_dwarf_strings_ok(struct elfimg *img);

#endif
