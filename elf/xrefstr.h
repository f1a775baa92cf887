/* SPDX-License-Identifier: GPL-2.0-or-later */
/* xrefstr.h — whether an address only MOV immediates name lies in text
 * (elf/xrefs.c): a number that may be no address. */
#ifndef MEMSZ_ELF_XREFSTR_H
#define MEMSZ_ELF_XREFSTR_H

#include "elf/elfpriv.h"

#include <stdbool.h>
#include <stdint.h>

/* Where the target of an immediate lies in text (str_probe()) */
enum strpos {
	STR_NONE,   /* in no string: it stands as an address */
	STR_START,  /* a string's first byte */
	STR_INSIDE, /* after a string's first byte: no address */
};

/* What str_probe() reads the data sections with, and the run of text it
 * read last: [a, z) are text bytes of section d, and at z lies a NUL
 * (nul), another byte or d's end (done), or bytes not read yet
 * (neither). */
struct strprobe {
	struct elf_window w;
	const struct elf_section *d;
	uint64_t a, z;
	bool nul, done;
};

/* Start p on img's data (str_probe() reads it through a window); free
 * its window with strprobe_free(). */
void strprobe_init(struct strprobe *p, struct elfimg *img);
void strprobe_free(struct strprobe *p);

/* Where VM address t of data section d lies in text, when only MOV
 * immediates name it (a number that may be no address: V8's root indexes
 * and OpenSSL's error codes land in .rodata by chance): STR_INSIDE if the
 * byte before it is text and the bytes from it on are text up to a NUL
 * (it may be that NUL) or for XREF_TEXT bytes; STR_START if the byte
 * before it is none (or t is d's first) and XREF_STR_MIN text bytes or
 * more and a NUL that ends a string literal follow (str_literal()), its
 * end then (after the NUL and the NULs that pad it) into *end; STR_NONE
 * else (a file that ends before the section reads as no text). The
 * targets are asked in increasing order: a run of text read for one
 * serves the next ones in it, so that every byte is read once. */
enum strpos str_probe(struct strprobe *p, const struct elf_section *d,
		      uint64_t t, uint64_t *end);

#endif
