/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ondisk.h — the on-disk report: ELF files -> rows of FILE SIZE and VM SIZE.
 *
 * For each file: open it, build its base DualMap and one DualMap per
 * requested key, then walk file space [0, file size) and the mapped VM
 * space cutting at every label boundary of every key (rmap_rollup), adding
 * each piece to the row tree. Every byte lands in exactly one row per key,
 * so FILE SIZE sums to the file size and VM SIZE to the mapped VM size (I1).
 */
#ifndef MEMSZ_REPORT_ONDISK_H
#define MEMSZ_REPORT_ONDISK_H

#include <stddef.h>
#include <stdint.h>

#include "elf/elfimg.h"
#include "maps/labels.h"
#include "maps/rangemap.h"
#include "rows/rows.h"
#include "report/filter.h"
#include "report/keys.h"
#include "util/strlist.h"

/* Add the bytes of the ELF file at path to tree t (depth nkeys, over
 * label table lb) along keys, only the paths filter keeps (NULL: all).
 * Its maps are built as maps says (NULL: defaults).
 * Notes about this file are appended to notes unless the filter kept none
 * of its bytes. Returns 0, or a negative code: then t may hold part of
 * the file and the caller must not print it. */
int ondisk_add_file(struct rowtree *t, struct labels *lb, const char *path,
		    const enum key_id *keys, size_t nkeys,
		    const struct elf_map_opts *maps, struct filter *filter,
		    struct strlist *notes);

#endif
