/* SPDX-License-Identifier: GPL-2.0-or-later */
/* unwind.h — user stacks of recorded samples, unwound after the fact.
 *
 * A sample carries the user registers at the fault and a copy of the top of
 * the user stack. unwind_sample() walks that stack with libunwind through a
 * remote address space whose accessors read
 *   - registers from the sample (perf's x86_64 register order),
 *   - stack memory from the sample's stack copy,
 *   - every other address from the file mapped there (as the caller's
 *     find function reports it), at the recorded load address,
 * and whose unwind tables are the images' .eh_frame_hdr/.eh_frame (or, for
 * images without them, .debug_frame of the image or of its separate debug
 * file). Where no table covers an address libunwind falls back on frame
 * pointers.
 *
 * The images are the caller's open struct elfimg (their bytes read through
 * elfimg_raw(), nothing copied), with the load bias the caller found; or,
 * for a find function that only knows paths, images the unwinder opens
 * once (by path) and keeps until unwind_free(). x86_64 only; on other
 * machines unwind_sample() returns the sampled ip alone.
 */
#ifndef MEMSZ_REPORT_UNWIND_H
#define MEMSZ_REPORT_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct elfimg;

/* A mapping of the sampled process, as the unwinder needs it. */
struct unwind_map {
	uint64_t start, end, pgoff;
	/* The ELF image mapped there, open; borrowed: it must stay open
	 * until unwind_free(). NULL: see path. */
	struct elfimg *img;
	/* Without img: the file holding the mapped bytes, opened by the
	 * unwinder; NULL: anonymous. Borrowed: valid until the find
	 * function is called again. */
	const char *path;
	/* The load bias (image VM = va - bias), as attrib_image_bias()
	 * finds it; needed with img. Without img and bias the unwinder
	 * takes the process for a live one of this machine and applies
	 * attrib_elf_segment() with this machine's page size. */
	bool have_bias;
	uint64_t bias;
};

/* Resolve an address of the sampled process at the sample's time: fill *out
 * and return 0, or return a negative code if nothing is mapped there. */
typedef int (*unwind_find_fn)(void *arg, uint64_t addr, struct unwind_map *out);

/* The register and stack state of one sample (borrowed). */
struct unwind_regs {
	uint32_t abi;	      /* PERF_SAMPLE_REGS_ABI_*; 0: no registers */
	uint64_t mask;	      /* perf_event_attr.sample_regs_user */
	const uint64_t *regs; /* one per bit of mask, in bit order */
	uint32_t nregs;
	uint64_t sp; /* address of stack[0] */
	const uint8_t *stack;
	uint32_t stack_size;
};

/* perf's x86_64 register numbers (asm/perf_regs.h) and the mask memsz
 * records: every general purpose register, ip and sp. */
enum unwind_perf_reg {
	UNWIND_PERF_AX,
	UNWIND_PERF_BX,
	UNWIND_PERF_CX,
	UNWIND_PERF_DX,
	UNWIND_PERF_SI,
	UNWIND_PERF_DI,
	UNWIND_PERF_BP,
	UNWIND_PERF_SP,
	UNWIND_PERF_IP,
	UNWIND_PERF_FLAGS,
	UNWIND_PERF_CS,
	UNWIND_PERF_SS,
	UNWIND_PERF_DS,
	UNWIND_PERF_ES,
	UNWIND_PERF_FS,
	UNWIND_PERF_GS,
	UNWIND_PERF_R8,
	UNWIND_PERF_R9,
	UNWIND_PERF_R10,
	UNWIND_PERF_R11,
	UNWIND_PERF_R12,
	UNWIND_PERF_R13,
	UNWIND_PERF_R14,
	UNWIND_PERF_R15,
};
#define UNWIND_X86_64_REGS_MASK 0xff01ffULL /* AX..IP, R8..R15 */

struct unwinder;

/* New unwinder (never NULL). Debug files are looked for under debug_root
 * (NULL: /usr/lib/debug; borrowed). Free with unwind_free(). */
struct unwinder *unwind_new(const char *debug_root);
/* Unmap every image and free u. NULL is fine. */
void unwind_free(struct unwinder *u);

/* Unwind the stack of r, resolving addresses with find(arg, ...): the
 * instruction pointers of the frames go to ips[0..max-1], innermost first
 * (ips[0] is the sampled ip; the others are return addresses). Returns the
 * number of frames (0 if r has no ip), or a negative code. */
int unwind_sample(struct unwinder *u, const struct unwind_regs *r,
		  unwind_find_fn find, void *arg, uint64_t *ips, size_t max);

/* Whether an unwind table (.eh_frame, .debug_frame) of the image mapped
 * at ip (as find reports it) has an entry covering ip: where none does,
 * unwind_sample()'s next frame is libunwind's guess (frame pointers, or
 * the word at the stack pointer for code with no image such as JIT code). */
bool unwind_has_info(struct unwinder *u, const struct unwind_regs *r,
		     unwind_find_fn find, void *arg, uint64_t ip);

/* The value of perf register reg in r; returns 0 and *val, or -ENOENT if
 * r does not hold it. */
int unwind_reg(const struct unwind_regs *r, unsigned reg, uint64_t *val);

#endif
