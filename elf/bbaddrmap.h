/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bbaddrmap.h — basic-block address maps (SHT_LLVM_BB_ADDR_MAP), as clang
 * emits them with -fbasic-block-sections=labels into .llvm_bb_addr_map.
 *
 * Two section types carry the map:
 *  - 0x6fff4c08 (SHT_LLVM_BB_ADDR_MAP in LLVM 12-14, _V0 later): per
 *    function, with no header: the function address (one ELF word),
 *    ULEB128 block count, then per block ULEB128 offset from the function
 *    start, size and metadata; the block id is its index;
 *  - 0x6fff4c0a (SHT_LLVM_BB_ADDR_MAP from LLVM 15): each function starts
 *    with a version byte and a feature byte. Version 0 is the layout above;
 *    version 1 measures each offset from the end of the previous block;
 *    version 2 adds a ULEB128 block id before each offset.
 * Features (PGO data, several ranges: LLVM 17+) and versions above 2 are
 * not read: parsing stops there with -MEMSZ_ENOTSUP.
 */
#ifndef MEMSZ_ELF_BBADDRMAP_H
#define MEMSZ_ELF_BBADDRMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "elf/elfimg.h"

#define BBADDRMAP_SHT_V0 0x6fff4c08u
#define BBADDRMAP_SHT 0x6fff4c0au

struct bb_block {
	uint32_t func;	 /* index into bbaddrmap.funcs */
	uint32_t id;	 /* basic block id (its index before version 2) */
	uint64_t offset; /* from the function start */
	uint64_t size;
	uint32_t metadata; /* return, tail call, EH pad, can fall through */
};

struct bb_func {
	uint64_t addr;	 /* function address (image VM) */
	uint8_t version; /* 0 for the 0x6fff4c08 type */
	size_t first, n; /* its blocks: blocks[first .. first+n) */
};

struct bbaddrmap {
	struct bb_func *funcs;
	size_t nfuncs;
	struct bb_block *blocks;
	size_t nblocks;
	size_t fcap, bcap;
};

/* Append the functions and blocks of one section's contents buf[0..len)
 * of type sh_type to m (zeroed by the caller before the first call).
 * addr_size is 4 or 8, big_endian the byte order of addresses. Returns
 * 0, or a negative code: -MEMSZ_ETRUNC (a record runs past len or a
 * ULEB128 past 64 bits), -MEMSZ_ENOTSUP (a version > 2 or a feature
 * byte), -EINVAL (not a BB address map type); whatever was decoded before
 * the failure stays in m. */
int bbaddrmap_parse(struct bbaddrmap *m, const uint8_t *buf, size_t len,
		    uint32_t sh_type, unsigned addr_size, bool big_endian);
/* Read every SHT_LLVM_BB_ADDR_MAP section of img into m (zeroed by the
 * caller). Returns the number of sections read, or the first negative
 * code (m holds what came before it). */
int bbaddrmap_read(struct elfimg *img, struct bbaddrmap *m);
/* Free what m holds (not m itself). */
void bbaddrmap_free(struct bbaddrmap *m);

/* Label each block of m in out: its VM range (through base, so its file
 * bytes too) as "FUNCTION#ID", FUNCTION being syms's VM label at the
 * function address (syms is the image's symbols source, built by the
 * caller) or "0xADDR" where syms has no symbol there (nothing, or a
 * "[...]" fallback). Blocks of size 0, or whose end would wrap, are
 * skipped. Fallbacks are left to the caller. */
void bbaddrmap_label(const struct bbaddrmap *m, struct labels *lb,
		     struct dualmap *syms, struct dualmap *base,
		     struct dualmap *out);

#endif
