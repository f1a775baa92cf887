// SPDX-License-Identifier: GPL-2.0-or-later
/* lsdatab.c — .gcc_except_table's LSDAs charged to their functions.
 *
 * An FDE whose CIE has the 'L' augmentation points to the LSDA of its
 * function (language-specific data: where its call sites land and what
 * they catch) in .gcc_except_table. The LSDA's length is stored nowhere:
 * elf_lsda_len() reads it through, as the personality routine does. The
 * format is GCC's (gcc/except.c, LLVM's EHStreamer), which every
 * personality routine of ELF toolchains reads (C++'s, C's, Objective-C's,
 * Ada's, Go's, D's, Rust's): the routine is not looked at, only the
 * section the pointer lands in. Bytes no LSDA covers (the alignment
 * padding between LSDAs, an LSDA no FDE points to) stay "[section
 * .gcc_except_table]". */
#include "config.h"

#include "elf/ehframe.h"
#include "elf/elfpriv.h"
#include "elf/lsdatab.h"
#include "elf/metasink.h"
#include "elf/secaddr.h"
#include "elf/secrefs.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

/* Is s a loaded .gcc_except_table (GCC names a function section's
 * .gcc_except_table.NAME) with bytes? */
static bool is_except(const struct elfimg *img, const struct elf_section *s)
{
	(void)img;
	return (s->flags & SHF_ALLOC) && s->type == SHT_PROGBITS &&
	       !strncmp(s->name, ".gcc_except_table", 17) &&
	       (!s->name[17] || s->name[17] == '.');
}

/* elf_lsda_add()'s reader: its scratch, the LSDAs it could not read */
struct lsda_read {
	struct elf_lsda_scratch sc;
	const struct elfimg *img;
	uint64_t bad;
};

static uint64_t lsda_len(void *arg, const unsigned char *b, uint64_t off,
			 uint64_t room)
{
	struct lsda_read *lr = arg;
	uint64_t len =
	    elf_lsda_len(b, (size_t)off, (size_t)room, lr->img->elfclass,
			 lr->img->big_endian, false, &lr->sc);

	lr->bad += !len;
	return len;
}

uint64_t elf_lsda_add(struct elfimg *img, struct metasink *ms,
		      struct elf_refs *r)
{
	static const struct elf_refs_ops ops = {NULL, lsda_len};
	struct lsda_read lr = {.img = img};
	struct elf_secaddr x;

	if (!r->n)
		return 0;
	elf_secaddr_build(&x, img, is_except);
	elf_refs_charge(img, ms, &x, r, &ops, &lr);
	elf_secaddr_free(&x);
	elf_lsda_scratch_free(&lr.sc);
	return lr.bad;
}
