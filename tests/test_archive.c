// SPDX-License-Identifier: GPL-2.0-or-later
/* test_archive.c — the static archive reader over archives written here
 * byte by byte: the forms binutils writes only for huge archives (the
 * 64-bit symbol index) or not at all (BSD names, an unpadded last member),
 * and the corrupt headers it must refuse; a FIFO or directory named as an
 * archive or image is refused unopened. tests/t1400 checks real
 * archives against ar, size -A and Bloaty. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "elf/archive.h"
#include "elf/elfimg.h"
#include "util/util.h"
#include "tests/testutil.h"

/* Append a member header (name, decimal size as text) and data (len
 * bytes, padded to even) to the archive being built in buf at *len. */
static void put(unsigned char *buf, size_t *len, const char *name,
		const char *size, const void *data, size_t dlen)
{
	char hdr[AR_HDR_LEN + 1];

	snprintf(hdr, sizeof(hdr), "%-16s%-12s%-6s%-6s%-8s%-10s`\n", name, "0",
		 "0", "0", "644", size);
	memcpy(buf + *len, hdr, AR_HDR_LEN);
	*len += AR_HDR_LEN;
	memcpy(buf + *len, data, dlen);
	*len += dlen;
	if (dlen & 1)
		buf[(*len)++] = '\n';
}

static size_t start(unsigned char *buf)
{
	memcpy(buf, AR_MAGIC, AR_MAGIC_LEN);
	return AR_MAGIC_LEN;
}

static void test_gnu(void **state)
{
	unsigned char buf[1024];
	static const char lt[] = "a_long_member_name.o/\nb.o/\n";
	struct ar_member *m = NULL;
	size_t len = start(buf), n = 0;

	(void)state;
	put(buf, &len, "/SYM64/", "8", "\0\0\0\0\0\0\0\0", 8);
	put(buf, &len, "//", "27", lt, 27);
	put(buf, &len, "/0", "3", "abc", 3);
	put(buf, &len, "short.o/", "2", "xy", 2);
	put(buf, &len, "/22", "1", "z", 1);
	len--; /* the last member's pad byte is missing */
	assert_int_equal(ar_members_read(buf, len, &m, &n), 0);
	assert_int_equal(n, 5);
	assert_int_equal(m[0].kind, AR_SYMTAB);
	assert_null(m[0].name);
	assert_int_equal(m[1].kind, AR_LONGNAMES);
	assert_string_equal(m[2].name, "a_long_member_name.o");
	assert_int_equal(m[2].size, 3);
	assert_int_equal(m[2].pad, 1);
	assert_string_equal(m[3].name, "short.o");
	assert_int_equal(m[3].off, m[3].hdr_off + AR_HDR_LEN);
	assert_string_equal(m[4].name, "b.o");
	assert_int_equal(m[4].pad, 0);
	assert_int_equal(m[4].off + m[4].size, len);
	ar_members_free(m, n);
}

static void test_bsd(void **state)
{
	unsigned char buf[1024];
	struct ar_member *m = NULL;
	size_t len = start(buf), n = 0;

	(void)state;
	put(buf, &len, "#1/20", "24", "__.SYMDEF SORTED\0\0\0\0abcd", 24);
	put(buf, &len, "#1/8", "11", "x.o\0\0\0\0\0ELF", 11);
	put(buf, &len, "plain.o", "2", "ok", 2);
	assert_int_equal(ar_members_read(buf, len, &m, &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(m[0].kind, AR_SYMTAB);
	assert_string_equal(m[1].name, "x.o");
	assert_int_equal(m[1].hdr_len, AR_HDR_LEN + 8);
	assert_int_equal(m[1].size, 3);
	assert_memory_equal(buf + m[1].off, "ELF", 3);
	assert_int_equal(m[1].pad, 1);
	assert_string_equal(m[2].name, "plain.o");
	ar_members_free(m, n);
}

/* Each archive is refused with its code, and nothing is returned. */
static void test_refused(void **state)
{
	static const struct {
		const char *name, *size;
		int err;
	} bad[] = {
	    {"a.o/", "99", -MEMSZ_ETRUNC},	   /* past the end */
	    {"a.o/", "9999999999", -MEMSZ_ETRUNC}, /* far past it */
	    {"a.o/", " 4", -MEMSZ_EBADAR},	   /* not a number */
	    {"a.o/", "4x", -MEMSZ_EBADAR},
	    {"a.o/", "", -MEMSZ_EBADAR},
	    {"/99999999999999", "4", -MEMSZ_EBADAR}, /* no long-name table */
	    {"/x", "4", -MEMSZ_EBADAR},		     /* special, unknown */
	    {"#1/99", "4", -MEMSZ_EBADAR},	     /* BSD name > data */
	};
	struct ar_member sentinel, *m = &sentinel, *keep = m;
	size_t n = 7;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		unsigned char buf[256];
		size_t len = start(buf);

		put(buf, &len, bad[i].name, bad[i].size, "abcd", 4);
		assert_int_equal(ar_members_read(buf, len, &m, &n), bad[i].err);
		assert_ptr_equal(m, keep);
		assert_int_equal(n, 7);
	}
}

/* A member name of PATH_MAX bytes is read; one byte longer (a long-name
 * table entry, a BSD name leading the data) is a corrupt header: names
 * of gigabytes went into every note and label naming the member. */
static void test_name_max(void **state)
{
	size_t cap = 3 * PATH_MAX, len, n;
	unsigned char *buf = xmalloc(cap);
	char *lt = xmalloc(PATH_MAX + 3), size[16], dsize[16];
	struct ar_member *m = NULL;

	(void)state;
	for (size_t k = PATH_MAX; k <= PATH_MAX + 1; k++) {
		int want = k > PATH_MAX ? -MEMSZ_EBADAR : 0;

		memset(lt, 'n', k);
		memcpy(lt + k, "/\n", 2);
		len = start(buf);
		snprintf(size, sizeof(size), "%zu", k + 2);
		put(buf, &len, "//", size, lt, k + 2);
		put(buf, &len, "/0", "2", "ab", 2);
		assert_int_equal(ar_members_read(buf, len, &m, &n), want);
		if (!want) {
			assert_int_equal(strlen(m[1].name), k);
			ar_members_free(m, n);
		}
		len = start(buf);
		snprintf(size, sizeof(size), "#1/%zu", k);
		snprintf(dsize, sizeof(dsize), "%zu", k + 2);
		memset(lt, 'b', k);
		memcpy(lt + k, "ab", 2);
		put(buf, &len, size, dsize, lt, k + 2);
		assert_int_equal(ar_members_read(buf, len, &m, &n), want);
		if (!want) {
			assert_int_equal(strlen(m[0].name), k);
			ar_members_free(m, n);
		}
	}
	free(lt);
	free(buf);
}

static void test_edges(void **state)
{
	unsigned char buf[256];
	struct ar_member *m = NULL;
	size_t len = start(buf), n = 9;
	bool thin;

	(void)state;
	/* only the magic: no members */
	assert_int_equal(ar_members_read(buf, len, &m, &n), 0);
	assert_int_equal(n, 0);
	ar_members_free(m, n);
	/* a header cut short */
	put(buf, &len, "a.o/", "2", "ab", 2);
	assert_int_equal(ar_members_read(buf, len - 5, &m, &n), -MEMSZ_ETRUNC);
	/* a long name unterminated in its table */
	len = start(buf);
	put(buf, &len, "//", "4", "abcd", 4);
	put(buf, &len, "/0", "2", "ab", 2);
	assert_int_equal(ar_members_read(buf, len, &m, &n), -MEMSZ_EBADAR);
	/* the header's end marker */
	len = start(buf);
	put(buf, &len, "a.o/", "2", "ab", 2);
	buf[AR_MAGIC_LEN + 58] = 'x';
	assert_int_equal(ar_members_read(buf, len, &m, &n), -MEMSZ_EBADAR);
	/* thin archives and other files */
	memcpy(buf, AR_THIN_MAGIC, AR_MAGIC_LEN);
	assert_true(ar_is_archive(buf, len, &thin) && thin);
	assert_int_equal(ar_members_read(buf, len, &m, &n), -MEMSZ_ETHINAR);
	assert_int_equal(
	    ar_members_read((const unsigned char *)"\177ELF", 4, &m, &n),
	    -MEMSZ_ENOTELF);
	ar_members_free(NULL, 0);
}

/* ar_file_read() and elf_file_open() refuse a FIFO and a directory
 * without opening them (no inotify IN_OPEN event): a device node in its
 * place would be opened with effects. */
static void test_not_opened(void **state)
{
	char dir[] = "/tmp/memsz-arfile-XXXXXX", fifo[64];
	unsigned char *buf = NULL;
	size_t len = 0;
	struct stat st;
	char ev[4096];
	int in;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	assert_true(in >= 0);
	assert_true(inotify_add_watch(in, fifo, IN_OPEN) >= 0);
	assert_true(inotify_add_watch(in, dir, IN_OPEN) >= 0);
	assert_int_equal(ar_file_read(fifo, &buf, &len), -MEMSZ_ENOTELF);
	assert_int_equal(ar_file_read(dir, &buf, &len), -EISDIR);
	assert_int_equal(elf_file_open(fifo, &st), -MEMSZ_ENOTELF);
	assert_int_equal(elf_file_open(dir, &st), -EISDIR);
	assert_null(buf);
	assert_int_equal(read(in, ev, sizeof(ev)), -1);
	assert_int_equal(errno, EAGAIN);
	close(in);
	unlink(fifo);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_gnu),	       cmocka_unit_test(test_bsd),
	    cmocka_unit_test(test_refused),    cmocka_unit_test(test_edges),
	    cmocka_unit_test(test_not_opened), cmocka_unit_test(test_name_max),
	};

	return test_run_group(tests, NULL, NULL);
}
