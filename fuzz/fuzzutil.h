/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzzutil.h — shared by the libFuzzer targets in fuzz/.
 *
 * The ELF reader reads a file (pread, libelf's mapping): the ELF targets
 * put the fuzz bytes in a memory file (fuzz_file, a memfd: no disk) and
 * open it by path. The end to end targets run commands, their output thrown
 * away (fuzz_quiet_begin/_end).
 */
#ifndef MEMSZ_FUZZ_FUZZUTIL_H
#define MEMSZ_FUZZ_FUZZUTIL_H

#include <stddef.h>
#include <stdint.h>

#include "maps/labels.h"
#include "maps/rangemap.h"

/* Replace the contents of this process's memory file by the n bytes at p.
 * Returns its path ("/proc/self/fd/N", static storage); aborts on error
 * (a harness fault, not a finding). */
const char *fuzz_file(const void *p, size_t n);

struct elfimg;

/* What a source of an image is built into: the labels, the image's base
 * map (built by fuzz_maps_begin) and the source's map. */
struct fuzz_maps {
	struct labels *lb;
	struct dualmap base, out;
};

/* The fuzz bytes as an ELF image: fuzz_file() then elfimg_open(). Returns
 * the image (elfimg_close() it) or NULL if the reader refused the bytes. */
struct elfimg *fuzz_elf_open(const void *p, size_t n);
/* New labels and img's base map (elfimg_base_map) into m, its out map
 * empty for a source's reader; fuzz_maps_end() frees all three. */
void fuzz_maps_begin(struct elfimg *img, struct fuzz_maps *m);
void fuzz_maps_end(struct fuzz_maps *m);
/* Build the base map of img and the map of source src (enum elf_source)
 * over it, then free both: the whole of one source's reader. Returns
 * elfimg_source_map()'s result. */
int fuzz_elf_map(struct elfimg *img, int src);
/* Send stdout and stderr to /dev/null until fuzz_quiet_end() (the end to
 * end targets, which run commands). */
void fuzz_quiet_begin(void);
void fuzz_quiet_end(void);

#endif
