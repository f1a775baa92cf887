/* SPDX-License-Identifier: GPL-2.0-or-later */
/* minidebug.h — MiniDebugInfo: the xz-compressed ELF file a
 * .gnu_debugdata section holds, whose .symtab names the functions
 * stripped from the file (Fedora's find-debuginfo.sh makes one for every
 * binary; gdb, perf and libdwfl read it); private to elf/. */
#ifndef MEMSZ_ELF_MINIDEBUG_H
#define MEMSZ_ELF_MINIDEBUG_H

#include <stddef.h>
#include <stdint.h>

#include "elf/elfpriv.h"

/* The inflated payload memsz reads at most: 256 MiB or 64 times its
 * compressed size, whichever is more (the bound of compressed DWARF,
 * elf/dwarf.h). A symbol table compresses 4 to 8 times with xz. The size
 * is the one the stream's index declares, checked before anything is
 * inflated; a stream that inflates past it is refused when it does, so
 * a payload costs memsz at most the bound, however its index lies. */
#define MDI_INFLATE_BYTES_MAX (256ull << 20)
#define MDI_INFLATE_RATIO_MAX 64ull

/* What is known of img's MiniDebugInfo after elf_minidebug_get(). */
struct elf_mdi {
	struct elfimg *img; /* the payload, opened; NULL: none or refused */
	int why;	    /* enum elf_mdi_why: why refused, or 0 */
	int err;	    /* the error opening it (ELF_MDI_NOT_ELF...) */
	uint64_t zsize;	    /* the section's (compressed) bytes */
	uint64_t size;	    /* inflated bytes its index declares */
	bool nested;	    /* it holds a .gnu_debugdata of its own */
	bool searched;	    /* looked for: the answer is cached */
};

/* img's MiniDebugInfo (the first non-empty .gnu_debugdata section),
 * inflated and opened once (cached in img until elfimg_drop_data() or
 * elfimg_close(), then inflated again if asked for) as a debug
 * image would be, checked: one xz stream whose index declares its
 * inflated size within the bound above, that inflates to exactly that
 * size, an ELF file of img's class, byte order and machine with a
 * .symtab. Its own .gnu_debugdata, if any, is never read (nested set).
 * Returns the cached answer (never NULL): ->img NULL and ->why 0 when
 * img has none. */
const struct elf_mdi *elf_minidebug_get(struct elfimg *img);

/* Section index of img for each section index of mdi (the payload), 0
 * where img has no section of that name, address, size and SHF_ALLOC
 * flag: the payload's sections are img's, made NOBITS by objcopy
 * --only-keep-debug. An array of mdi->nsecs entries; caller frees. */
size_t *elf_minidebug_secmap(const struct elfimg *img,
			     const struct elfimg *mdi);

/* The words of why (enum elf_mdi_why) for a note: "its xz stream is
 * corrupt or truncated", ... Never NULL. */
const char *elf_minidebug_why_str(int why);

/* Close what elf_minidebug_get() cached in priv. */
void elf_minidebug_free(struct elfimg_priv *priv);

#endif
