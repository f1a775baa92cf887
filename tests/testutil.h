/* testutil.h — helpers shared by the cmocka tests: a per-program fixture
 * directory, running shell commands and reading their output, whole-file
 * reads and writes, and sums over range maps.
 *
 * Include after <cmocka.h>; failures inside a helper fail the running test
 * through cmocka's assertions.
 */
#ifndef MEMSZ_TESTUTIL_H
#define MEMSZ_TESTUTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "elf/elfimg.h"
#include "maps/rangemap.h"

/* mkdtemp(templ) (templ is modified and must outlive the tests) and make it
 * the directory fx() names files in; returns 0, or -1 on failure. */
int tmpdir_make(char *templ);

/* Removes the tmpdir_make() directory and everything in it (rm -rf);
 * returns rm's exit status as sh() does (0 if there is no directory). */
int tmpdir_remove(void);

/* "<tmpdir>/<name>" in one of 8 rotating static buffers: valid until the
 * eighth next call, never freed. */
char *fx(const char *name);

/* Runs the formatted command with system(3); returns its exit status, or
 * -1 if it did not exit normally. */
int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Everything the formatted shell command writes to stdout, NUL-terminated;
 * caller frees. */
char *sh_output(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

/* The lines (each with its '\n') the formatted shell command writes to
 * stdout, *n of them; caller frees with free_lines(). */
char **lines_of(size_t *n, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Frees the n lines v and v itself (NULL with n 0 is fine). */
void free_lines(char **v, size_t n);

/* A pipe reading the formatted shell command's stdout; caller pcloses. */
FILE *pipe_of(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Size of path per stat(2). */
uint64_t file_size(const char *path);

/* The whole of path, length in *len (one spare byte allocated past it);
 * caller frees. */
void *read_file(const char *path, size_t *len);

/* Creates or truncates path to exactly the len bytes at p. */
void write_file(const char *path, const void *p, size_t len);

/* Creates or truncates path to the string text. */
void write_text(const char *path, const char *text);

/* Sum of the lengths of m's entries. */
uint64_t map_total(struct rmap *m);

/* Bytes of label id in m inside [lo, hi). */
uint64_t bytes_in(struct rmap *m, uint32_t id, uint64_t lo, uint64_t hi);

/* img's section called name, or NULL (the null section is never found). */
const struct elf_section *sec_by_name(const struct elfimg *img,
				      const char *name);

#endif
