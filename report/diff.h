/* SPDX-License-Identifier: GPL-2.0-or-later */
/* diff.h — `memsz diff`: two recordings, two snapshots of one recording,
 * or two ELF files -> one diff tree (rows.h: a row tree of two value sets).
 *
 * Each side is built exactly as `memsz report` (report_build) or `memsz
 * size` (ondisk_add_file) builds its rows, over one label table shared by
 * both sides, so that equal labels are equal ids; the two trees are then
 * merged. Two ELF files are one row at the files level (OLD's path is
 * renamed to NEW's); with --by pids, a process of OLD is matched with the
 * process of NEW that has the same command name when that name is unique
 * on both sides. Notes say how the images of the two sides differ: a new
 * build-id (what a diff is for), or a file that changed while its
 * build-id stayed, or that has none.
 */
#ifndef MEMSZ_REPORT_DIFF_H
#define MEMSZ_REPORT_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "maps/labels.h"
#include "rows/rows.h"
#include "report/filter.h"
#include "report/keys.h"
#include "report/report.h"
#include "util/strlist.h"

enum diff_kind {
	DIFF_KIND_DATA, /* a memsz.data recording */
	DIFF_KIND_ELF,	/* an ELF file */
};

/* The kind of the file at path, by its first bytes. Returns 0 and *kind,
 * -MEMSZ_EBADMAGIC if it is neither, -MEMSZ_ENOTREG if it is not a
 * regular file (a FIFO is never opened, so never waited on), -EISDIR, or
 * -errno if it cannot be read. */
int diff_detect(const char *path, enum diff_kind *kind);

struct diff_side {
	const char *path;
	enum report_pick pick; /* recordings only */
	uint64_t index;	       /* PICK_INDEX */
};

struct diff_opts {
	enum diff_kind kind;
	struct diff_side old, new;
	enum key_id keys[KEYS_MAX];
	size_t nkeys;
	const uint32_t *pids; /* recordings: only these pids (borrowed);
				 none: all */
	size_t npids;
	const char *debug_root; /* NULL: /usr/lib/debug */
	unsigned disasm;	/* elf_map_opts.disasm: ELF_DISASM_* */
	unsigned demangle;	/* elf_map_opts.demangle */
	struct filter *filter;	/* both sides' rows; NULL: all */
};

struct diff_result {
	struct rowtree *d;     /* ROWS_DIFF, merged, not finished */
	bool have_pss;	       /* both sides had PSS */
	bool cgroup_charge;    /* a side is a -G recording with its
				  charges (report_result) */
	unsigned unknown_cols; /* either side's (report_result) */
	struct strlist notes;  /* footer lines */
};

/* Build both sides of o over label table lb and merge them into res
 * (zeroed by the caller). Returns 0, or a negative code with *msg
 * (malloc'd, caller frees) saying which side failed and why; res must be
 * freed with diff_result_free() either way. */
int diff_build(const struct diff_opts *o, struct labels *lb,
	       struct diff_result *res, char **msg);
void diff_result_free(struct diff_result *res);

#endif
