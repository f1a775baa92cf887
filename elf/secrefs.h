/* SPDX-License-Identifier: GPL-2.0-or-later */
/* secrefs.h — entries of a table (.gcc_except_table's LSDAs, .ARM.extab's
 * entries) that other tables point to, without lengths of their own:
 * each charged to the label of the first reference to it, cut at the
 * next entry pointed to (elf/secrefs.c); private to elf/. */
#ifndef MEMSZ_ELF_SECREFS_H
#define MEMSZ_ELF_SECREFS_H

#include <stddef.h>
#include <stdint.h>

struct elfimg;
struct elf_secaddr;
struct metasink;

/* The references, in the order met: where, whose (LABEL_NONE: no
 * label's code, where the entry before it ends only), and the order met
 * in (the first labelled reference to an entry wins). */
struct elf_refs {
	struct elf_ref {
		uint64_t addr;
		uint32_t id;
		size_t seq;
	} * v;
	size_t n, cap;
};

void elf_ref_add(struct elf_refs *r, uint64_t addr, uint32_t id);

/* What elf_refs_charge() asks of its caller: enter (may be NULL), a
 * section sec of x entered, its bytes read; len, the length of the entry
 * at b + off, room bytes before the next entry pointed to or the
 * section's end (0: not decodable, left to the section's label). */
struct elf_refs_ops {
	void (*enter)(void *arg, size_t sec);
	uint64_t (*len)(void *arg, const unsigned char *b, uint64_t off,
			uint64_t room);
};

/* Each entry of r of a label's code lying in a section of x (an index
 * of img's sections) to that label, each once, its len() bytes; each
 * section's entries a table. r is sorted (by address, then order) if it
 * is not in order, and emptied. */
void elf_refs_charge(struct elfimg *img, struct metasink *ms,
		     const struct elf_secaddr *x, struct elf_refs *r,
		     const struct elf_refs_ops *ops, void *arg);

#endif
