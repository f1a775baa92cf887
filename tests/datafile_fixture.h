/* SPDX-License-Identifier: GPL-2.0-or-later */
/* datafile_fixture.h — what the memsz.data codec tests share
 * (test_datafile_records.c, test_datafile_corrupt.c,
 * test_datafile_image.c, test_datafile_pages.c, test_datafile_pgfields.c,
 * test_datafile_samples.c, test_datafile_nospace.c): their temporary directory,
 * a file with a record of every type, record boundaries, a copy of a file
 * patched, a file made one from before checksums, raw little-endian fields and
 * a record as dump prints it.
 *
 * Include after <cmocka.h>; a failure inside a helper fails the running
 * test through cmocka's assertions.
 */
#ifndef MEMSZ_DATAFILE_FIXTURE_H
#define MEMSZ_DATAFILE_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "data/datafile.h"

/* The tests' directory (tmpdir_make()): datafile_setup() makes it,
 * datafile_teardown() removes it (cmocka group set-up and tear-down). */
extern char tmpdir[];
int datafile_setup(void **state);
int datafile_teardown(void **state);

/* "<tmpdir>/<name>", malloc'ed: the caller frees. */
char *tpath(const char *name);

/* The page runs of the mapping write_all_types() writes. */
extern const struct md_run runs[3];
/* A page-aligned end of a mapping that holds the runs above. */
#define RUNS_END 0x20000000ull

/* Writes one record of every type; returns the count written. */
int write_all_types(struct md_writer *w);

/* md_writer_open() flags of make_full_file() and write_layout(): the
 * tests that patch SNAP_MAPPING fields at fixed offsets write version 5
 * (MD_WRITER_V5), where every field has its own bytes. */
extern unsigned wr_flags;

/* Writes tmpdir's all.data (write_all_types(), committed and closed, with
 * wr_flags); returns its malloc'ed path. */
char *make_full_file(void);

/* Record boundaries of the full file, from the reader itself and
 * cross-checked against the size fields read raw: into b (the first at
 * 64, the last at len); returns how many. */
size_t boundaries(const uint8_t *raw, size_t len, uint64_t *b);

/* Opens into *r a copy of src (tmpdir's patched.data) with the n bytes at
 * offset at replaced by bytes and its checksums made right again, so that
 * the checks behind them are reached; returns md_reader_open()'s result. */
int open_patched(const char *src, size_t at, const void *bytes, size_t n,
		 struct md_reader **r);

/* Reads r to its end or first error and closes it; returns the last
 * md_read_next() result, with *off the reader's offset there. */
int read_until_error(struct md_reader *r, uint64_t *off);

/* Stores v little-endian at p (4 and 8 bytes). */
void put_le32(uint8_t *p, uint32_t v);
void put_le64(uint8_t *p, uint64_t v);

/* Make raw (records at the nb offsets of bnd) a file as written before the
 * header flags existed: no flags, no checksums. */
void strip_checksums(uint8_t *raw, const uint64_t *bnd, size_t nb);

/* rec as `memsz dump` prints it (with verbose, its details too), in
 * static storage valid until the next call. */
const char *print_record(const struct md_record *rec, bool verbose);

#endif
