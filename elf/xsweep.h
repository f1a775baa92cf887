/* SPDX-License-Identifier: GPL-2.0-or-later */
/* xsweep.h — the linear sweep that decodes an image's code once and keeps
 * the references its instructions make into the data span (x86-64), for
 * elf/xrefs.c to charge. */
#ifndef MEMSZ_ELF_XSWEEP_H
#define MEMSZ_ELF_XSWEEP_H

#include "elf/elfpriv.h"
#include "elf/symtab.h"

#include <stdbool.h>
#include <stdint.h>

/* In a sweep's [instruction, target] (position-dependent code only,
 * whose code lies below 2^63: sweep_all()), the instruction's bit 63 says
 * that the target is a MOV's immediate (X86_K_IMM), a number that may be
 * no address; in img's cache ([instruction - code_base, target -
 * data_base], the code less than 2 GiB long), bit 31. */
#define XREF_IMM ((uint64_t)1 << 63)
#define XREF_RAW_IMM ((uint32_t)1 << 31)

/* The end of [addr, addr + size), saturated at UINT64_MAX (a malformed
 * section can wrap, and a span computed from the wrapped end would look
 * small). */
static inline uint64_t span_end(uint64_t addr, uint64_t size)
{
	return addr + size < addr ? UINT64_MAX : addr + size;
}

/* The span of an image's loaded data sections: a reference whose target
 * lies outside is not kept. */
struct dataspan {
	uint64_t lo, hi;
};

/* Where a sweep's references go, in code order: img's cache, each as
 * [instruction - code_base, target - data_base] in 32 bits (compact:
 * the code less than 2 GiB, the data span less than 4 GiB), else a list of
 * [instruction, target] replayed once, not cached. */
struct refsink {
	struct elfimg_priv *pv;
	bool compact;
	uint64_t (*wide)[2];
	size_t nwide, wcap;
	uint64_t imm_bit; /* the wide list's: refsrc's */
};

/* Decode every code section of img into sink (set up here: compact, and
 * the bases of img's cache, when the code and the data span xv fit in 32
 * bits), but for the data symbols of all[0, nall) in them. Returns 0 or a
 * negative code. */
int xref_sweep_all(struct elfimg *img, const struct dataspan *xv,
		   struct refsink *sink, const struct sym *all, size_t nall);

#endif
