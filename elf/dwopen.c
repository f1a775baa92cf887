// SPDX-License-Identifier: GPL-2.0-or-later
/* dwopen.c — libdw opened on an image for compileunits or inlines (see
 * elf_dwarf_open() in elfpriv.h): the DWARF sections neither reads hidden
 * from libdw, what it would inflate bounded. Moved out of dwarf.c, which
 * walks the units.
 */
#include "config.h"

#include "elf/dwstrings.h"
#include "elf/elfpriv.h"
#include "util/util.h"

#include <elfutils/libdw.h>
#include <stdlib.h>
#include <string.h>

/* DWARF sections a source never has libdw read. libdw reads every DWARF
 * section it knows at dwarf_begin_elf(), and inflates the compressed ones
 * there: in libc's debug file .debug_line and .debug_loclists are 27 % of
 * what it would inflate. compileunits walks units, their ranges and
 * their variables, not line tables (their bytes are charged from the raw
 * section: rawsec_open()); inlines reads line tables. Neither reads
 * location lists (a variable's address is one expression in
 * DW_AT_location), macros or call frames. Named without the ".debug_" /
 * ".zdebug_" prefix. */
static const struct {
	const char *name;
	bool cus, inlines; /* hidden for compileunits, inlines */
} unread[] = {
    {"line", true, false}, {"loc", true, true},	    {"loclists", true, true},
    {"macro", true, true}, {"macinfo", true, true}, {"frame", true, true},
};

/* True if name is ".debug_X" or ".zdebug_X" for an X of unread hidden
 * for compileunits (cus) or inlines. */
static bool unread_name(const char *name, bool cus)
{
	const char *x = !strncmp(name, ".debug_", 7)	? name + 7
			: !strncmp(name, ".zdebug_", 8) ? name + 8
							: NULL;

	for (size_t i = 0; x && i < ARRAY_SIZE(unread); i++)
		if (!strcmp(x, unread[i].name))
			return cus ? unread[i].cus : unread[i].inlines;
	return false;
}

/* Hide the sections of unread for compileunits (cus) or inlines from
 * libdw (elf_section_hide(): SHT_NOBITS in libelf's copy of their
 * headers, which dwarf_begin_elf() skips; what is not in the file holds
 * no DWARF); their real types into h (room for img->nsecs), their count
 * returned. The file is read, never written, and img->secs keeps the real
 * types. */
static size_t hide_unread(struct elfimg *img, struct elf_hidden *h, bool cus,
			  bool line_raw)
{
	size_t n = 0;

	for (size_t i = 1; i < img->nsecs; i++) {
		if (img->secs[i].type == SHT_NOBITS ||
		    !unread_name(img->secs[i].name, cus))
			continue;
		/* line programs charged to their units (line_raw: the DWARF
		 * is in the image; rawsec_open()) stay: libdw checks each
		 * unit's DW_AT_stmt_list against the section */
		if (line_raw && !strcmp(img->secs[i].name, ".debug_line") &&
		    !(img->secs[i].flags & SHF_COMPRESSED))
			continue;
		elf_section_hide(img, i, h, &n);
	}
	return n;
}

/* Undo hide_unread() and elf_dwarf_inflate()'s hiding: the n sections of
 * h get their types back. */
static void unhide(struct elfimg *img, const struct elf_hidden *h, size_t n)
{
	Elf *elf = elfimg_elf(img);

	for (size_t i = 0; i < n; i++) {
		Elf_Scn *scn = elf_getscn(elf, h[i].index);
		GElf_Shdr sh;

		if (!scn || !gelf_getshdr(scn, &sh))
			continue;
		sh.sh_type = h[i].type;
		gelf_update_shdr(scn, &sh);
	}
}

/* Add what a file linked to the DWARF (its dwz or .dwo files) would
 * inflate, in from out, to z; whether z is then past the bound. */
static bool linked_refused(struct elf_zclaim *z, uint64_t in, uint64_t out)
{
	z->linked |= out != 0;
	elf_add_sat(&z->in, in);
	elf_add_sat(&z->out, out);
	return elf_dwarf_refused(z);
}

/* dwarf_begin_elf() on dimg without the sections of unread for
 * compileunits (cus) or inlines (line_raw: dimg is the image labelled).
 * NULL if libdw finds no DWARF it can read, or if what it would inflate
 * (of dimg, its dwz file and its .dwo files) is past dwarf.h's bound:
 * then *z says what the compressed sections claim (else it is 0), and
 * nothing past the bound was inflated. */
Dwarf *elf_dwarf_open(struct elfimg *dimg, bool cus, bool line_raw,
		      struct elf_zclaim *z, struct elf_dwalt *alt)
{
	struct elf_hidden *h = xcalloc(dimg->nsecs + 1, sizeof(*h));
	size_t n = hide_unread(dimg, h, cus, line_raw);
	Dwarf *dbg = NULL;
	uint64_t in, out;
	bool refused, unterminated = false;

	/* the claim of what is left after hiding: what would be inflated */
	memset(z, 0, sizeof(*z));
	z->ref.why = elf_dwarf_claim(dimg, &z->in, &z->out);
	refused = elf_dwarf_refused(z);
	/* what libdw reads inflated from the claimed headers only, or
	 * hidden (a file rewritten since the claim: that section unread) */
	if (!refused && elf_dwarf_inflate(dimg, h, &n))
		dbg = dwarf_begin_elf(elfimg_elf(dimg), DWARF_C_READ, NULL);
	/* a .o's relocations first: they may write into the string
	 * sections (none a toolchain makes, but a hostile file may); then
	 * the strings, read from here on (the .dwo files' names) */
	if (dbg && !elf_dwarf_relocate(dimg)) {
		dwarf_end(dbg);
		dbg = NULL;
		z->ref.why = ELF_DWARF_RELOC;
		refused = true;
	} else if (dbg && !elf_dwarf_strings_ok(dimg)) {
		dwarf_end(dbg);
		dbg = NULL;
	}
	/* and of the dwz file, then the .dwo files, libdw would open for
	 * it: known only from the DWARF just opened, which is within the
	 * bound (the .dwo files' names may be in the dwz file) */
	if (dbg) {
		elf_dwarf_alt_claim(dimg, dbg, alt, &in, &out, &z->ref);
		refused = linked_refused(z, in, out);
		if (!refused) {
			elf_dwarf_alt_use(alt, dbg);
			/* the dwz file's strings, read as DW_FORM_GNU_strp_alt
			 */
			unterminated =
			    alt->dbg && !elf_dwarf_strings_ok(alt->img);
		}
		if (!refused && !unterminated) {
			elf_dwarf_claim_dwos(dimg, dbg, &in, &out, &z->ref);
			refused = linked_refused(z, in, out);
		}
		if (refused || unterminated) {
			dwarf_end(dbg);
			dbg = NULL;
		}
	}
	if (!dbg)
		elf_dwarf_alt_end(alt);
	if (!refused)
		memset(z, 0, sizeof(*z));

	unhide(dimg, h, n);
	free(h);
	return dbg;
}

/* Whether img holds DWARF units: a .debug_info section with bytes, or
 * its GNU-compressed form, .zdebug_info (gcc -gz=zlib-gnu, objcopy
 * --compress-debug-sections=zlib-gnu), which libdw reads through libelf's
 * elf_compress_gnu(). */
bool elf_has_dwarf(const struct elfimg *img)
{
	static const char *const names[] = {".debug_info", ".zdebug_info"};

	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		const struct elf_section *s = elf_section_named(img, names[i]);

		if (s && s->type != SHT_NOBITS && s->size)
			return true;
	}
	return false;
}
