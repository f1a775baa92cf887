// SPDX-License-Identifier: GPL-2.0-or-later
/* coldefs.c — the columns of a row tree (see rows.h): names, fixed point,
 * what kind of figure each is. */
#include "config.h"

#include "rows/rows.h"

#include <string.h>

const struct coldef coldefs[COL__COUNT] = {
    [COL_FILE] = {"FILE SIZE", "file_size", "file", 0, false, false, false},
    [COL_VM] = {"VM SIZE", "vm_size", "vm", 0, false, false, false},
    [COL_RSS] = {"RSS", "rss", "rss", 0, false, false, false},
    [COL_PSS] = {"PSS", "pss", "pss", COL_PSS_SHIFT, false, false, false},
    [COL_USS] = {"USS", "uss", "uss", 0, false, false, false},
    [COL_DIRTY] = {"DIRTY", "dirty", "dirty", 0, false, false, false},
    [COL_SWAP] = {"SWAP", "swap", "swap", 0, false, false, false},
    [COL_RELOCS] = {"RELOCS", "reloc_count", "relocs", 0, true, false, false},
    [COL_SH_CLEAN] = {"SHR CLEAN", "shared_clean", "shclean", 0, false, false,
		      false},
    [COL_SH_DIRTY] = {"SHR DIRTY", "shared_dirty", "shdirty", 0, false, false,
		      false},
    [COL_THP] = {"THP", "thp", "thp", 0, false, false, true},
    [COL_LOCKED] = {"LOCKED", "locked", "locked", COL_PSS_SHIFT, false, false,
		    true},
    [COL_PROCS] = {"PROCS", "processes", "procs", 0, true, false, false},
    [COL_CHARGE] = {"CHARGE", "charge", "charge", COL_PSS_SHIFT, false, false,
		    false},
    [COL_RES_PCT] = {"RES%", "res_pct", "res", 0, false, true, false},
};

int col_from_name(const char *name)
{
	int i;

	if (!name)
		return -1;
	for (i = 0; i < COL__COUNT; i++)
		if (!strcmp(name, coldefs[i].sortname) ||
		    !strcmp(name, coldefs[i].key))
			return i;
	return -1;
}
