/* SPDX-License-Identifier: GPL-2.0-or-later */
/* imgcheck.h — is the file at a path still the image a recording mapped,
 * and what a report calls the bytes of one that is not.
 *
 * A report opens each recorded image (report/attrib.c) and checks it
 * here against its IMAGE record: a file replaced since the recording (a
 * library upgraded) must not lend its sections and symbols to bytes that
 * were another file's.
 */
#ifndef MEMSZ_REPORT_IMGCHECK_H
#define MEMSZ_REPORT_IMGCHECK_H

#include "data/datafile.h"

struct elfimg;

/* Compare img, opened from path, with the IMAGE record r: by build-id
 * when r has one, else by device and inode, size and mtime of path (those
 * r has); never the file r recorded as not ELF. Returns NULL if they
 * match, else why not, malloc'd (caller frees): "build-id X on disk, Y
 * recorded", "not the same file (device or inode differs)", ... */
char *imgcheck_verify(const struct md_image *r, const struct elfimg *img,
		      const char *path);

/* The same for a file at path that is not an ELF file (now): an image
 * recorded with a build-id or as ELF (r->kind) was one; else only the
 * device and inode r has must match, not its size or mtime (a data file
 * written through a shared mapping, or grown, is still the file
 * recorded). Returns NULL if the file may be the one recorded (a mapped
 * file that never was ELF), else why not, malloc'd. */
char *imgcheck_not_elf(const struct md_image *r, const char *path);

/* How path's size or mtime differs from r's (device and inode too), or
 * NULL if they match: for the note on a file that is not ELF now but was
 * mapped executable, of a recording that does not say whether it was ELF
 * (r->kind unknown: it may have been). Caller frees. */
char *imgcheck_moved(const struct md_image *r, const char *path);

/* The label of every byte of an image that cannot be read: "PREFIX PATH"
 * ("[deleted] /tmp/x"), path without the " (deleted)" the kernel adds to
 * a file deleted while mapped. Caller frees. */
char *imgcheck_label(const char *prefix, const char *path);

#endif
