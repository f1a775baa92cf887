/* SPDX-License-Identifier: GPL-2.0-or-later */
/* events.h — sampling events for `memsz record --faults` and `-e EVENT`:
 * event names through libpfm4, the perf_event_attr of a sampling event that
 * records the faulting address, the ip and the user stack (registers and a
 * stack copy for DWARF unwinding, or the kernel's frame-pointer callchain).
 * The attrs are handed to perf_capture (perf.h), which opens them per task
 * and per cpu into their own rings and decodes their samples.
 */
#ifndef MEMSZ_RECORD_EVENTS_H
#define MEMSZ_RECORD_EVENTS_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>

/* The user registers DWARF unwinding needs, as perf's PERF_REGS_MASK for
 * x86-64: AX..GS and R8..R15 without DS, ES, FS, GS (bits 12-15). */
#define EVENTS_X86_64_REGS_MASK 0xff0fffull

/* What --call-graph fp adds to the kernel's callchain to find the caller of
 * a function that had not set up its frame when it faulted (a leaf built
 * without a frame pointer, glibc's memset, a function's first
 * instructions): the kernel's walk starts at rbp, still the caller's, and
 * skips that caller. Its return address is in the few stack bytes above
 * sp, where the leaf's .eh_frame says (report/faults.c). */
#define EVENTS_X86_64_LEAF_REGS_MASK 0x1c0ull /* BP, SP, IP */
#define EVENTS_DEFAULT_LEAF_STACK 256u

#define EVENTS_DEFAULT_STACK 8192u
#define EVENTS_MAX_STACK 65528u /* perf limits a sample to 64 KiB */

enum events_callgraph {
	EVENTS_CG_DWARF, /* PERF_SAMPLE_REGS_USER | STACK_USER */
	EVENTS_CG_FP,	 /* PERF_SAMPLE_CALLCHAIN (user frames only), and
			    the leaf's registers and stack top */
};

struct events_opts {
	uint64_t period; /* sample every N events; 0: 1 */
	enum events_callgraph cg;
	/* bytes of stack; 0: 8192 (dwarf), 256 (fp: the leaf's frame) */
	uint32_t stack_size;
};

/* Load libpfm4 (on first use) and initialise it, once. Returns 0,
 * -MEMSZ_ENOLIB if libpfm.so.4 cannot be loaded, or -MEMSZ_ENOTSUP. */
int events_init(void);

/* Encode the event name (libpfm4 syntax: "page-faults",
 * "perf::MINOR-FAULTS", "major-faults:u", ...) into *attr, set up to sample
 * TID|TIME|ADDR|IP and the user stack as o says, kernel frames excluded
 * from callchains. Faults taken in kernel mode on behalf of user code are
 * sampled too unless the name says ":u" (perf.c retries user-only when the
 * kernel refuses). Returns 0, -MEMSZ_EUSAGE (unknown name or bad
 * modifier; events_suggest() tells close names), -MEMSZ_ENOLIB or
 * -MEMSZ_ENOTSUP. */
int events_attr(const char *name, const struct events_opts *o,
		struct perf_event_attr *attr);

/* Up to three event names of libpfm4's perf PMU closest to name (edit
 * distance, case-insensitive, "perf::" and modifiers ignored), joined by
 * ", ", or NULL when none is close. Caller frees. */
char *events_suggest(const char *name);

/* Levenshtein distance of a and b, ignoring ASCII case. */
unsigned events_edit_distance(const char *a, const char *b);

/* sample_regs_user for DWARF unwinding on this architecture (0: none). */
uint64_t events_regs_mask(void);

/* sample_regs_user that --call-graph fp adds to find the caller of a
 * leaf on this architecture (0: none, the callchain alone). */
uint64_t events_leaf_regs_mask(void);

#endif
