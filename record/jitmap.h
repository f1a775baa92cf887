/* SPDX-License-Identifier: GPL-2.0-or-later */
/* jitmap.h — symbols of JIT-compiled code from a process's perf map.
 *
 * JIT compilers that support perf (node --perf-basic-prof, the JVM with a
 * perf agent, Python 3.12+ -X perf) append one line per compiled function
 * to /tmp/perf-PID.map:
 *     START SIZE NAME
 * START and SIZE in hex (with or without 0x), NAME the rest of the line.
 * The file is append-only while the process lives and may be deleted when
 * it exits, so memsz reads it at each snapshot (and at exit), taking only
 * the lines added since the last read.
 */
#ifndef MEMSZ_RECORD_JITMAP_H
#define MEMSZ_RECORD_JITMAP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "data/datafile.h"

/* Symbols parsed so far (names owned). */
struct jitmap {
	struct md_jit_sym *syms;
	size_t n, cap;
	uint64_t bad; /* malformed lines skipped */
	/* jitmap_read_pid(): the map it looked at (NULL if none was
	 * there), why it was refused (a static string, or NULL), and whether
	 * it holds bytes past JITMAP_MAX_BYTES, which are never read */
	const char *refused;
	char path[96];
	bool cut;
};

/* Parse the complete lines of f (up to the last newline) into jm,
 * appending; *consumed gets the bytes of those lines (a partial last line
 * is left for the next read). Returns the number of symbols added or
 * -errno. */
int jitmap_parse(FILE *f, struct jitmap *jm, uint64_t *consumed);

/* Read the perf map of pid from byte *off on (through /proc/PID/root, else
 * /tmp), appending to jm and advancing *off. The file is controlled by the
 * process's user, memsz may be root: as perf does, only a regular file
 * owned by root or by the process's user is read, a symlink at its end is
 * not followed, a FIFO or device is not opened for reading (the open never
 * blocks), and at most 256 MiB of it is read, 16 MiB per call: *more
 * says whether bytes are left for another call (the read at exit is the
 * last chance, and a JVM writes its whole map then). A line longer than
 * one read is skipped. Returns the number of symbols added, 0 if there
 * is no map, -EPERM for a map refused (jm->refused says why, if the
 * process's user or root made it: another user's is not the process's
 * map), or -errno;
 * jm->path names the map looked at, jm->cut says whether it holds more
 * than is read. */
int jitmap_read_pid(int pid, uint64_t *off, struct jitmap *jm, bool *more);

/* Free the names and forget the symbols (jm stays usable). */
void jitmap_clear(struct jitmap *jm);
/* Free everything jm holds. */
void jitmap_free(struct jitmap *jm);

#endif
