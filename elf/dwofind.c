// SPDX-License-Identifier: GPL-2.0-or-later
/* dwofind.c — a skeleton unit's .dwo looked for as libdw does, and read
 * joined when its sections are in pieces; see dwp.h's dwp_own_dwo(). */
#include "config.h"

#include "elf/dwp.h"
#include "elf/elfpriv.h"
#include "util/util.h"

#include <dwarf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The path of cu's .dwo where libdw's __libdw_find_split_unit() looks
 * for it: its DW_AT_dwo_name in libdw's debugdir (the real directory of
 * the file with the DWARF; where 0), else in its DW_AT_comp_dir (a
 * relative one under debugdir). malloc'd; NULL if it has none, the name
 * is too long, or (where 1) it is the first place again. */
static char *dwo_path(struct dwp_ctx *dc, Dwarf_Die *cudie, int where)
{
	Dwarf_Attribute a;
	const char *name, *dir;
	char *first, *path;

	if (!(dwarf_attr(cudie, DW_AT_dwo_name, &a) ||
	      dwarf_attr(cudie, DW_AT_GNU_dwo_name, &a)) ||
	    !(name = dwarf_formstring(&a)) || !*name)
		return NULL;
	if (!dc->debugdir_done) {
		dc->debugdir_done = true;
		dc->debugdir = libdw_debugdir(dc->dimg);
	}
	first = libdw_path(dc->debugdir, NULL, name);
	if (where == 0)
		return first;
	dir = dwarf_formstring(dwarf_attr(cudie, DW_AT_comp_dir, &a));
	path = dir ? libdw_path(dc->debugdir, dir, name) : NULL;
	if (path && first && !strcmp(path, first)) {
		free(path);
		path = NULL;
	}
	free(first);
	return path;
}

/* The .dwo at path joined into dc->own: the one there if it is of the
 * same file (the skeletons naming one .dwo join it once); a file refused
 * before is not read again. */
static int own_join(struct dwp_ctx *dc, const char *path, const char **sec)
{
	struct stat st;

	*sec = NULL;
	if (stat(path, &st) == 0) {
		const struct dwo_seen *s =
		    dwo_sigs_seen(&dc->dwo_sigs, st.st_dev, st.st_ino);

		if (dc->own.dbg && st.st_dev == dc->own.dev &&
		    st.st_ino == dc->own.ino)
			return 0;
		/* refused for a skeleton before: the same again */
		if (s && s->r < 0) {
			*sec = s->sec;
			return s->r;
		}
	}
	/* the list may be of the image let go */
	dwo_sigs_reset(&dc->dwo_sigs);
	dwo_image_end(&dc->own);
	return dwo_join_file(path, &dc->own, sec);
}

/* The unit of DWO id id in dc->own into sub. */
static bool own_unit(struct dwp_ctx *dc, uint64_t id, Dwarf_Die *sub)
{
	Dwarf_CU *scu = NULL;
	Dwarf_Half v;
	uint8_t type;
	uint64_t sid;

	for (uint32_t i = 0;
	     i < ELF_DWARF_SIG8_UNITS &&
	     dwarf_get_units(dc->own.dbg, scu, &scu, &v, &type, sub, NULL) == 0;
	     i++)
		if ((type == DW_UT_split_compile || type == DW_UT_compile) &&
		    dwarf_tag(sub) == DW_TAG_compile_unit &&
		    dwarf_cu_info(scu, NULL, NULL, NULL, NULL, &sid, NULL,
				  NULL) == 0 &&
		    sid == id)
			return true;
	return false;
}

bool dwp_own_dwo(struct dwp_ctx *dc, Dwarf_Die *cudie, uint64_t id,
		 Dwarf_Die *sub)
{
	for (int w = 0; w < 2; w++) {
		char *path = dwo_path(dc, cudie, w);
		const char *sec;
		int r;

		if (!path)
			continue;
		r = own_join(dc, path, &sec);
		free(path);
		dwo_sigs_unjoined(&dc->dwo_sigs, r, sec, &dc->own);
		if (r == 0 && own_unit(dc, id, sub)) {
			dwo_sigs_used(&dc->dwo_sigs, &dc->own);
			return true;
		}
	}
	return false;
}

char *dwp_libdw_dwo(struct dwp_ctx *dc)
{
	for (int w = 0; w < 2; w++) {
		char *path = dwo_path(dc, &dc->skel, w);
		struct stat st;

		if (path && stat(path, &st) == 0 && S_ISREG(st.st_mode))
			return path;
		free(path);
	}
	return NULL;
}
