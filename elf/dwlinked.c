// SPDX-License-Identifier: GPL-2.0-or-later
/* dwlinked.c — the files libdw would open by itself for an image's
 * DWARF: its dwz file (.gnu_debugaltlink), which memsz opens, claims
 * (elf_dwarf_claim()) and inflates (elf_dwarf_inflate()) where libdw
 * would, and hands to libdw; and the .dwo files of its skeleton units,
 * which libdw 0.188 opens by path and inflates whole, claimed where
 * libdw looks for them. A file libdw would open that memsz cannot check
 * makes the DWARF naming it unread (struct elf_dwref). */
#include "config.h"

#include "elf/elfpriv.h"
#include "util/hashmap.h"
#include "util/util.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Files libdw opens on its own and inflates whole (dwarf_begin()), each
 * path opened once here: found by path (by_path), and by its device and
 * inode (by_id) when a new path names a file already claimed. libdw
 * opens and inflates a .dwo again for each skeleton unit naming it, each
 * a handle of its own kept to the end, so its inflated bytes count each
 * time; its compressed bytes are the file's, counted once. Counted again,
 * eight units naming one .dwo of 4 MiB claiming 256 MiB kept the ratio
 * under 64 while libdw inflated 2 GiB. */
struct claimed {
	char *path;
	dev_t dev;
	ino_t ino;
	uint64_t in, out; /* what elf_dwarf_claim() found in it */
};

struct claim_cache {
	struct claimed *v;
	size_t n, cap;
	struct hashmap by_path, by_id;
};

/* Keep why (and path, err) in ref unless it has a reason already. */
static void refuse(struct elf_dwref *ref, int why, const char *path, int err)
{
	if (ref->why || !why)
		return;
	ref->why = why;
	ref->err = err;
	ref->path = xstrdup(path);
}

/* The names under which libdw reads a file's link to its dwz file: in
 * a plain file and in a split one (".dwo"), GNU-compressed or not. Which
 * of them libdw takes depends on the kind it reads the file as (by its
 * first DWARF section's name): any of them counts. */
static const char *const altlink_names[] = {
    ".gnu_debugaltlink",
    ".gnu_debugaltlink.dwo",
    ".zgnu_debugaltlink",
    ".zgnu_debugaltlink.dwo",
};

/* True if img has a section libdw may read as its link to a dwz file. */
static bool names_alt(const struct elfimg *img)
{
	for (size_t i = 1; i < img->nsecs; i++)
		for (size_t k = 0; k < ARRAY_SIZE(altlink_names); k++)
			if (!strcmp(img->secs[i].name, altlink_names[k]))
				return true;
	return false;
}

/* Errors opening a file that libdw's open() of the path meets too (same
 * process, same path): the file is not there for libdw either. */
static const int absent_errs[] = {ENOENT, ENOTDIR, EACCES, ELOOP, ENAMETOOLONG};

/* Open the file at path, one libdw would open by itself, to check it
 * (into *f). 0 if opened; 1 if it is not there (for libdw either); else
 * -errno: libdw's open() would succeed on what memsz cannot read as a
 * regular ELF file (a FIFO or device, where libdw's open() blocks or
 * arms something; no ELF; headers out of the file) and libdw would read
 * it unchecked, so its DWARF is refused (why, path into ref). */
static int linked_open(const char *path, struct elfimg **f,
		       struct elf_dwref *ref)
{
	int r = elfimg_open_mode(path, true, f);

	if (!r)
		return 0;
	*f = NULL;
	for (size_t i = 0; i < ARRAY_SIZE(absent_errs); i++)
		if (r == -absent_errs[i])
			return 1;
	refuse(ref, ELF_DWARF_LINK_ODD, path, r);
	return r;
}

/* The entry of cc for a file of device dev and inode ino claimed under
 * another path, with h the hash of its identity, or NULL (p then where
 * to put one). */
static struct claimed *claimed_by_id(struct claim_cache *cc, dev_t dev,
				     ino_t ino, uint32_t h,
				     struct hashmap_probe *p)
{
	for (uint32_t i = hashmap_first(&cc->by_id, h, p); i != HASHMAP_NONE;
	     i = hashmap_next(&cc->by_id, p))
		if (cc->v[i].dev == dev && cc->v[i].ino == ino)
			return &cc->v[i];
	return NULL;
}

/* Open the ELF file at path, new to cc, and claim it into e (nothing if
 * it is not there); its compressed bytes into *in unless cc holds the
 * same file under another path; a reason to refuse it to ref. */
static void claimed_open(struct claim_cache *cc, struct claimed *e,
			 uint64_t *in, struct elf_dwref *ref)
{
	struct elfimg *f;
	struct stat st;
	struct hashmap_probe p;
	const struct claimed *same;
	uint32_t h;

	if (linked_open(e->path, &f, ref))
		return;
	refuse(ref, elf_dwarf_claim(f, &e->in, &e->out), e->path, 0);
	/* libdw looks for a dwz file of the .dwo itself (dwarf_getalt()
	 * of the handle it opens) */
	refuse(ref, names_alt(f) ? ELF_DWARF_DWO_ALT : 0, e->path, 0);
	if (!fstat(((struct elfimg_priv *)f->priv)->fd, &st)) {
		uint64_t id[2] = {(uint64_t)st.st_dev, (uint64_t)st.st_ino};

		e->dev = st.st_dev;
		e->ino = st.st_ino;
		h = hashmap_hash_bytes(id, sizeof(id));
		same = claimed_by_id(cc, e->dev, e->ino, h, &p);
		if (!same)
			hashmap_put(&cc->by_id, &p, (uint32_t)(e - cc->v));
	} else {
		same = NULL;
	}
	if (!same)
		elf_add_sat(in, e->in);
	elfimg_close(f);
}

/* Add what dwarf_begin() would inflate of the ELF file at path (nothing
 * if it is not there) to *out, each time; its compressed bytes to *in
 * the first time the file is claimed; a reason to refuse it to ref. */
static void claim_file(struct claim_cache *cc, const char *path, uint64_t *in,
		       uint64_t *out, struct elf_dwref *ref)
{
	uint32_t h = hashmap_hash_bytes(path, strlen(path));
	struct hashmap_probe p;
	struct claimed *e = NULL;

	for (uint32_t i = hashmap_first(&cc->by_path, h, &p);
	     i != HASHMAP_NONE && !e; i = hashmap_next(&cc->by_path, &p))
		if (!strcmp(cc->v[i].path, path))
			e = &cc->v[i];
	if (!e) {
		xgrow(&cc->v, &cc->cap, cc->n + 1, sizeof(*cc->v));
		e = &cc->v[cc->n];
		*e = (struct claimed){.path = xstrdup(path)};
		hashmap_put(&cc->by_path, &p, (uint32_t)cc->n++);
		claimed_open(cc, e, in, ref);
	}
	elf_add_sat(out, e->out);
}

static void claim_cache_free(struct claim_cache *cc)
{
	for (size_t i = 0; i < cc->n; i++)
		free(cc->v[i].path);
	free(cc->v);
	hashmap_free(&cc->by_path);
	hashmap_free(&cc->by_id);
}

char *libdw_path(const char *debugdir, const char *dir, const char *file)
{
	if (!file || strnlen(file, PATH_MAX) >= PATH_MAX ||
	    (dir && strnlen(dir, PATH_MAX) >= PATH_MAX))
		return NULL;
	if (file[0] == '/')
		return xstrdup(file);
	if (dir && dir[0] == '/')
		return xasprintf("%s%s%s", dir,
				 dir[strlen(dir) - 1] == '/' ? "" : "/", file);
	if (!debugdir)
		return NULL;
	if (dir && dir[0])
		return xasprintf("%s%s%s%s", debugdir, dir,
				 dir[strlen(dir) - 1] == '/' ? "" : "/", file);
	return xasprintf("%s%s", debugdir, file);
}

char *libdw_debugdir(const struct elfimg *img)
{
	const struct elfimg_priv *priv = img->priv;
	char link[64], *path, *slash;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", priv->fd);
	path = realpath(link, NULL);
	if (path && path[0] == '/' && (slash = strrchr(path, '/'))) {
		slash[1] = 0;
		return path;
	}
	free(path);
	return NULL;
}

/* The dwz file of dbg (.gnu_debugaltlink) opened where libdw's
 * dwarf_getalt() looks for it, the first place that opens: by build-id
 * under /usr/lib/debug, then by its name. NULL if none: not there, or
 * there but not one memsz can read (why into ref). */
static struct elfimg *alt_open(Dwarf *dbg, const char *debugdir,
			       struct elf_dwref *ref)
{
	const char *name;
	const void *id;
	ssize_t n = dwelf_dwarf_gnu_debugaltlink(dbg, &name, &id);
	struct elfimg *alt = NULL;
	char *path;
	int r = 1;

	if (n <= 0)
		return NULL;
	if (n >= 3 && n <= 64) {
		const unsigned char *b = id;
		char hex[2 * 64 + 1];

		for (ssize_t i = 0; i < n; i++)
			snprintf(hex + 2 * i, 3, "%02x", b[i]);
		path = xasprintf("/usr/lib/debug/.build-id/%.2s/%s.debug", hex,
				 hex + 2);
		r = linked_open(path, &alt, ref);
		free(path);
	}
	/* libdw tries its name only if the first did not open */
	path = r == 1 ? libdw_path(debugdir, NULL, name) : NULL;
	if (path)
		linked_open(path, &alt, ref);
	free(path);
	return alt;
}

void elf_dwarf_alt_claim(struct elfimg *img, Dwarf *dbg, struct elf_dwalt *alt,
			 uint64_t *in, uint64_t *out, struct elf_dwref *ref)
{
	char *debugdir = libdw_debugdir(img);

	*in = *out = 0;
	alt->dbg = NULL;
	alt->img = alt_open(dbg, debugdir, ref);
	if (alt->img)
		refuse(ref, elf_dwarf_claim(alt->img, in, out), alt->img->path,
		       0);
	free(debugdir);
}

/* Tell libdw that dbg has no dwz file, so that it never looks for one
 * itself: memsz looked where libdw would and found none (a file put there
 * later would be opened and inflated unchecked), or the one found has no
 * DWARF libdw reads. libdw has no call for it; libdw 0.188's (Debian 12;
 * and later ones') dwarf_getalt() returns NULL without looking when the
 * handle's dwz file is (Dwarf *)-1, the value it stores itself after
 * looking in vain, which dwarf_setalt() stores as it is given; and
 * dwarf_end() ends a dwz file only if libdw opened it itself (its
 * alt_fd), never this one. t1106 checks libdw opens no such file. */
static void libdw_no_alt(Dwarf *dbg)
{
	dwarf_setalt(dbg, (Dwarf *)-1);
}

void elf_dwarf_alt_use(struct elf_dwalt *alt, Dwarf *dbg)
{
	/* what it hides is hidden for good: only libdw reads it */
	if (alt->img && elf_dwarf_inflate(alt->img, NULL, NULL))
		alt->dbg =
		    dwarf_begin_elf(elfimg_elf(alt->img), DWARF_C_READ, NULL);
	if (alt->dbg) {
		/* the dwz file's own dwz file (no tool makes one): none */
		libdw_no_alt(alt->dbg);
		dwarf_setalt(dbg, alt->dbg);
	} else {
		libdw_no_alt(dbg);
	}
}

void elf_dwarf_alt_end(struct elf_dwalt *alt)
{
	if (alt->dbg)
		dwarf_end(alt->dbg);
	if (alt->img)
		elfimg_close(alt->img);
	alt->dbg = NULL;
	alt->img = NULL;
}

/* The split units' .dwo files libdw's __libdw_find_split_unit() opens
 * for the skeleton units of dbg: DW_AT_dwo_name under debugdir, then
 * under DW_AT_comp_dir. Each one a unit names is counted: libdw opens
 * it for each. */
static void claim_dwos(Dwarf *dbg, const char *debugdir, struct claim_cache *cc,
		       uint64_t *in, uint64_t *out, struct elf_dwref *ref)
{
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie;
	uint8_t type;

	while (dwarf_get_units(dbg, cu, &cu, NULL, &type, &cudie, NULL) == 0) {
		Dwarf_Attribute a;
		const char *dwo, *dir;
		char *path, *first;

		if (type != DW_UT_skeleton)
			continue;
		dwo = dwarf_formstring(dwarf_attr(&cudie, DW_AT_dwo_name, &a));
		if (!dwo)
			dwo = dwarf_formstring(
			    dwarf_attr(&cudie, DW_AT_GNU_dwo_name, &a));
		if (!dwo)
			continue;
		first = libdw_path(debugdir, NULL, dwo);
		if (first)
			claim_file(cc, first, in, out, ref);
		/* the second place is tried when the first did not hold the
		 * unit: counted if it is another file */
		dir = dwarf_formstring(dwarf_attr(&cudie, DW_AT_comp_dir, &a));
		path = dir ? libdw_path(debugdir, dir, dwo) : NULL;
		if (path && (!first || strcmp(path, first)))
			claim_file(cc, path, in, out, ref);
		free(path);
		free(first);
	}
}

void elf_dwarf_claim_dwos(struct elfimg *img, Dwarf *dbg, uint64_t *in,
			  uint64_t *out, struct elf_dwref *ref)
{
	char *debugdir = libdw_debugdir(img);
	struct claim_cache cc = {0};

	*in = *out = 0;
	claim_dwos(dbg, debugdir, &cc, in, out, ref);
	claim_cache_free(&cc);
	free(debugdir);
}
