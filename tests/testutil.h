/* SPDX-License-Identifier: GPL-2.0-or-later */
/* testutil.h — helpers shared by the cmocka tests: running a group with
 * honest skip accounting, a per-program fixture directory, running shell
 * commands and reading their output, whole-file reads and writes, and sums
 * over range maps.
 *
 * Include after <cmocka.h>; failures inside a helper fail the running test
 * through cmocka's assertions. Every test program's main() returns
 * test_run_group(); a test that cannot check something says why with
 * test_skip() or test_skip_part(), never with cmocka's bare skip().
 */
#ifndef MEMSZ_TESTUTIL_H
#define MEMSZ_TESTUTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "elf/elfimg.h"
#include "maps/rangemap.h"

/* Records that a part of the running test was not checked, and why (a
 * printf format: the missing tool or package, the refused permission); the
 * test goes on with what it can check. */
void test_skip_part(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Records why the running test cannot run, and leaves it (cmocka skip). */
#define test_skip(...)                                                         \
	do {                                                                   \
		test_skip_part(__VA_ARGS__);                                   \
		_skip(__FILE__, __LINE__);                                     \
	} while (0)

/* A bare skip() gives no reason and is not counted: use test_skip(). */
#undef skip
#define skip() use_test_skip_with_a_reason

/* Runs the n tests with cmocka (group setup and teardown may be NULL) and
 * returns main()'s exit status for automake: 1 if a test failed, else 77
 * (SKIP) after one "SKIP: reason" line per test_skip()/test_skip_part() if
 * any was called, else 0. */
int test_run_tests(const char *name, const struct CMUnitTest *tests, size_t n,
		   CMFixtureFunction setup, CMFixtureFunction teardown);

#define test_run_group(tests, setup, teardown)                                 \
	test_run_tests(#tests, tests, sizeof(tests) / sizeof((tests)[0]),      \
		       setup, teardown)

/* Straight cmocka runs would count every skipped test as passed. */
#undef cmocka_run_group_tests
#define cmocka_run_group_tests(...) use_test_run_group

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
char *sh_output(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

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
