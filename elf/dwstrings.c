// SPDX-License-Identifier: GPL-2.0-or-later
/* dwstrings.c — DWARF string sections checked before libdw's pointers
 * into them are read (dwstrings.h). */
#include "config.h"

#include "elf/dwstrings.h"

#include "elf/elfpriv.h"
#include "util/util.h"

#include <string.h>

/* Whether libdw reads img's section named name: false if there is none,
 * it is NOBITS, or it is still SHF_COMPRESSED (libdw could not inflate
 * it and reads none of it). If it does, *d: the bytes libelf holds of it
 * after libdw's inflating (NULL: libelf has none for it). */
static bool read_by_libdw(struct elfimg *img, const char *name, Elf_Data **d)
{
	const struct elf_section *s = elf_section_named(img, name);
	Elf_Scn *scn;
	GElf_Shdr sh;

	*d = NULL;
	if (!s || s->type == SHT_NOBITS)
		return false;
	scn = elf_getscn(elfimg_elf(img), s->index);
	if (!gelf_getshdr(scn, &sh) || (sh.sh_flags & SHF_COMPRESSED))
		return false;
	*d = elf_getdata(scn, NULL);
	return true;
}

/* The string sections libdw hands out pointers into (DW_FORM_strp,
 * line_strp) end with a NUL: libdw does not check it, and a string running
 * off the end would be read past the section. Asked after
 * dwarf_begin_elf(), which inflates compressed sections (SHF_COMPRESSED,
 * .zdebug_) in place: their inflated bytes are checked too. */
static bool strings_terminated(struct elfimg *img)
{
	static const char *const names[] = {".debug_str", ".debug_line_str",
					    ".zdebug_str", ".zdebug_line_str"};

	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		Elf_Data *d;

		if (!read_by_libdw(img, names[i], &d))
			continue;
		/* no bytes for its size: a .zdebug_ name on a section that
		 * is no compressed string table (a RELA one), which libdw
		 * failed to inflate */
		if (!d ||
		    (d->d_size &&
		     (!d->d_buf || ((const char *)d->d_buf)[d->d_size - 1])))
			return false;
	}
	return true;
}

/* Every entry of .debug_str_offsets below strsize: libdw (0.188) hands
 * out a DW_FORM_strx string at .debug_str + entry, and an entry equal to
 * the section's size points just past it. Walked as DWARF 5
 * contributions (a header: unit length, version 5, padding) where the
 * section starts with one, else as GNU's DWARF 4 split form (4-byte
 * entries, no header). */
static bool offsets_inside(const unsigned char *p, size_t n, bool be,
			   uint64_t strsize)
{
	bool v5 = n >= 8 && elf_get_uint(p + 4, 2, be) == 5;
	size_t at = 0;

	while (at < n) {
		/* [at, end): one contribution, its entries from e, w bytes
		 * each; without a header, the whole section */
		size_t e = at, end = n, w = 4;

		if (v5) {
			uint64_t len =
			    n - at >= 4 ? elf_get_uint(p + at, 4, be) : 0;
			size_t lenf = 4;

			if (len == 0xffffffffu) { /* 64-bit DWARF */
				len = n - at >= 12
					  ? elf_get_uint(p + at + 4, 8, be)
					  : 0;
				lenf = 12;
				w = 8;
			}
			/* the length counts version and padding (4 bytes) and
			 * the entries, not itself */
			if (len < 4 || len > n - at - MIN(n - at, lenf))
				return false;
			e = at + lenf + 4;
			end = at + lenf + (size_t)len;
		}
		for (; e + w <= end; e += w)
			if (elf_get_uint(p + e, w, be) >= strsize)
				return false;
		at = end;
	}
	return true;
}

bool elf_dwarf_strings_ok(struct elfimg *img)
{
	Elf_Data *off, *str;

	read_by_libdw(img, ".debug_str_offsets", &off);
	read_by_libdw(img, ".debug_str", &str);
	if (!strings_terminated(img))
		return false;
	if (!off || !off->d_buf || !off->d_size)
		return true;
	return offsets_inside(off->d_buf, off->d_size, img->big_endian,
			      str ? str->d_size : 0);
}
