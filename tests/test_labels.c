// SPDX-License-Identifier: GPL-2.0-or-later
/* test_labels.c — label interning and aliases. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#include <cmocka.h>

#include "maps/labels.h"
#include "tests/testutil.h"

static void test_round_trip(void **state)
{
	struct labels *lb = labels_new();
	uint32_t a, b, c, e;

	(void)state;
	assert_int_equal(labels_count(lb), 0);
	assert_int_equal(labels_find(lb, "main"), LABEL_NONE);
	a = labels_intern(lb, "main");
	b = labels_intern(lb, ".text");
	c = labels_intern(lb, "main");
	e = labels_intern(lb, "");
	assert_int_equal(a, 0);
	assert_int_equal(b, 1);
	assert_int_equal(c, a);
	assert_int_equal(e, 2);
	assert_int_equal(labels_count(lb), 3);
	assert_string_equal(labels_str(lb, a), "main");
	assert_string_equal(labels_str(lb, b), ".text");
	assert_string_equal(labels_str(lb, e), "");
	assert_int_equal(labels_find(lb, ".text"), b);
	assert_int_equal(labels_find(lb, ""), e);
	assert_int_equal(labels_find(lb, "mai"), LABEL_NONE);
	assert_int_equal(labels_find(lb, "main2"), LABEL_NONE);
	labels_free(lb);
	labels_free(NULL);
}

static void test_intern_n(void **state)
{
	struct labels *lb = labels_new();
	const char buf[] = "foo.bar.baz"; /* not split by NULs */
	uint32_t foo, bar, foobar;

	(void)state;
	foo = labels_intern_n(lb, buf, 3);
	bar = labels_intern_n(lb, buf + 4, 3);
	foobar = labels_intern_n(lb, buf, 7);
	assert_int_equal(foo, 0);
	assert_int_equal(bar, 1);
	assert_int_equal(foobar, 2);
	assert_string_equal(labels_str(lb, foo), "foo");
	assert_string_equal(labels_str(lb, bar), "bar");
	assert_string_equal(labels_str(lb, foobar), "foo.bar");
	assert_int_equal(labels_intern(lb, "foo"), foo);
	assert_int_equal(labels_find(lb, "bar"), bar);
	assert_int_equal(labels_intern_n(lb, buf + 8, 3),
			 labels_intern(lb, "baz"));
	assert_int_equal(labels_intern_n(lb, buf, 0), labels_intern(lb, ""));
	/* a string with an embedded NUL is its own label */
	assert_int_not_equal(labels_intern_n(lb, "ab\0c", 4),
			     labels_intern(lb, "ab"));
	labels_free(lb);
}

/* A label longer than the limit (lowered here by labels_set_len_max())
 * is its first bytes and a mark giving its length: the same long string
 * is the same label, found by labels_find(), whichever call interned it;
 * another with the same start but another length is another label; one
 * at the limit stays whole; an alias is cut as a label is. */
static void test_cut(void **state)
{
	struct labels *lb = labels_new();
	const char *s10 = "abcdefghij", *s11 = "abcdefghijk";
	uint32_t a, b, c;
	size_t n;

	(void)state;
	labels_set_len_max(lb, 8);
	a = labels_intern(lb, s10);
	assert_string_equal(labels_str(lb, a),
			    "abcdefgh... [cut: 10 bytes, hash 3981703a]");
	assert_int_equal(labels_intern_n(lb, s10, 10), a);
	assert_int_equal(
	    labels_intern_hashed(lb, s10, 10, labels_hash(s10, 10)), a);
	assert_int_equal(labels_find(lb, s10), a);
	b = labels_intern(lb, s11);
	assert_int_not_equal(b, a);
	assert_string_equal(labels_str(lb, b),
			    "abcdefgh... [cut: 11 bytes, hash ce570f9f]");
	/* the same start, the same length, another end: another label,
	 * told by its hash (Python's zlib.crc32()) */
	assert_int_not_equal(labels_intern(lb, "abcdefghiJ"), a);
	assert_string_equal(labels_str(lb, labels_intern(lb, "abcdefghiJ")),
			    "abcdefgh... [cut: 10 bytes, hash 02ef50f2]");
	c = labels_intern_n(lb, s10, 8);
	assert_string_equal(labels_str(lb, c), "abcdefgh");
	assert_int_equal(labels_count(lb), 4);
	labels_add_alias(lb, c, "0123456789");
	assert_string_equal(labels_aliases(lb, c, &n)[0],
			    "01234567... [cut: 10 bytes, hash a684c7c6]");
	assert_int_equal(n, 1);
	labels_add_alias(lb, c, "0123456789"); /* the same, cut the same */
	labels_aliases(lb, c, &n);
	assert_int_equal(n, 1);
	labels_free(lb);
}

/* A suffix ("#N" of a block, ":N" of a line) added to a name that is cut
 * (labels_intern_suffix()) or to a label that was (labels_intern_id_
 * suffix()) comes after the mark: the labels of two suffixes stay apart
 * and show them. A name whose suffix fits with it is the two as they are,
 * as labels_intern() of both; one that does not is cut to the room the
 * suffix leaves (abcdefgh and :5 at 8 bytes), the same label whether the
 * name is given or its label; a suffix over half a label is cut itself.
 * No label made so is over LABEL_STR_MAX (the limit, twice the mark),
 * suffixed once or again and again. */
static void test_suffix(void **state)
{
	struct labels *lb = labels_new();
	const char *s10 = "abcdefghij";
	uint32_t a, b, cut, id;

	(void)state;
	labels_set_len_max(lb, 8);
	a = labels_intern_suffix(lb, s10, 10, "#1");
	b = labels_intern_suffix(lb, s10, 10, "#2");
	assert_int_not_equal(a, b);
	assert_string_equal(labels_str(lb, a),
			    "abcdef... [cut: 10 bytes, hash 3981703a]#1");
	cut = labels_intern(lb, s10);
	assert_int_equal(labels_intern_id_suffix(lb, cut, "#1"), a);
	assert_string_equal(
	    labels_str(lb, labels_intern_id_suffix(lb, cut, ":7")),
	    "abcdef... [cut: 10 bytes, hash 3981703a]:7");
	/* fits: as labels_intern() of it all */
	assert_int_equal(labels_intern_suffix(lb, "abc", 3, ":5"),
			 labels_intern(lb, "abc:5"));
	assert_string_equal(
	    labels_str(lb, labels_intern_suffix(lb, "abcdef", 6, ":5")),
	    "abcdef:5");
	/* the name fits, not with its suffix: the name cut (Python's
	 * zlib.crc32(b"abcdefgh") is aeef2a50) */
	assert_int_equal(
	    labels_intern_suffix(lb, "abcdefgh", 8, ":5"),
	    labels_intern_id_suffix(lb, labels_intern(lb, "abcdefgh"), ":5"));
	assert_string_equal(
	    labels_str(lb, labels_intern_suffix(lb, "abcdefgh", 8, ":5")),
	    "abcdef... [cut: 8 bytes, hash aeef2a50]:5");
	/* a suffix longer than half a label: cut as one, to half */
	assert_string_equal(
	    labels_str(lb, labels_intern_suffix(lb, "x", 1, ":123456789")),
	    "x:123... [cut: 10 bytes, hash b1a6570f]");
	/* suffixed again and again: bounded */
	id = a;
	for (int i = 0; i < 20; i++) {
		id = labels_intern_id_suffix(lb, id, "#12345");
		assert_true(strlen(labels_str(lb, id)) <=
			    8 + 2 * LABEL_MARK_MAX);
	}
	labels_free(lb);
}

/* A label of the size LABEL_LEN_MAX allows, suffixed: the name cut to
 * leave room, the label within LABEL_STR_MAX, its suffix at its end; the
 * limit of a table is never above LABEL_STR_MAX, so a string there is
 * one label whichever way it is interned. */
/* A name that only ends in text like a cut mark, not cut: suffixed by
 * its id as by itself (taken for a cut label, it kept its whole text and
 * got another id). */
static void test_suffix_fake_mark(void **state)
{
	struct labels *lb = labels_new();
	const char *fake =
	    "xxxxxxxxxxxxxxxxxxxx... [cut: 5 bytes, hash 00000000]";
	const char *suffix = ":1234567890123456789";
	size_t n = strlen(fake);
	uint32_t by_name, by_id;

	(void)state;
	labels_set_len_max(lb, 64); /* the name fits, not with the suffix */
	by_id =
	    labels_intern_id_suffix(lb, labels_intern_n(lb, fake, n), suffix);
	by_name = labels_intern_suffix(lb, fake, n, suffix);
	assert_int_equal(by_id, by_name);
	assert_true(strlen(labels_str(lb, by_id)) <= 64 + LABEL_MARK_MAX);
	labels_free(lb);
}

static void test_suffix_big(void **state)
{
	struct labels *lb = labels_new();
	size_t n = LABEL_LEN_MAX - 1;
	char *name = malloc(2 * LABEL_LEN_MAX + 1);
	const char *l;
	uint32_t id;

	(void)state;
	assert_non_null(name);
	memset(name, 'a', 2 * LABEL_LEN_MAX);
	name[2 * LABEL_LEN_MAX] = 0;
	l = labels_str(lb, labels_intern_suffix(lb, name, n, "#3"));
	assert_true(strlen(l) <= LABEL_STR_MAX);
	assert_string_equal(l + strlen(l) - 3, "]#3");
	/* a 2 MiB suffix: cut, the label bounded */
	id = labels_intern_suffix(lb, name, 2 * LABEL_LEN_MAX, name);
	assert_true(strlen(labels_str(lb, id)) <= LABEL_STR_MAX);
	for (int i = 0; i < 4; i++) {
		id = labels_intern_id_suffix(lb, id, ": LABEL");
		l = labels_str(lb, id);
		assert_true(strlen(l) <= LABEL_STR_MAX);
		assert_string_equal(l + strlen(l) - 7, ": LABEL");
	}
	labels_set_len_max(lb, SIZE_MAX);
	name[LABEL_STR_MAX + 1] = 0;
	assert_int_equal(
	    labels_intern(lb, name),
	    labels_intern_hashed(lb, name, LABEL_STR_MAX + 1,
				 labels_hash(name, LABEL_STR_MAX + 1)));
	assert_int_equal(labels_find(lb, name), labels_intern(lb, name));
	free(name);
	labels_free(lb);
}

/* A cut falls between UTF-8 characters: one the limit would split (2, 3
 * or 4 bytes, the limit after any of its bytes) is left out whole; bytes
 * that are not UTF-8 are cut where the limit is. */
static void test_cut_utf8(void **state)
{
	static const struct {
		const char *s;
		size_t max;
		const char *kept;
	} cases[] = {
	    {"ab\xc3\xa9"
	     "cd",
	     3, "ab"},
	    {"ab\xc3\xa9"
	     "cd",
	     4, "ab\xc3\xa9"},
	    {"a\xe2\x82\xac!", 2, "a"},
	    {"a\xe2\x82\xac!", 3, "a"},
	    {"a\xe2\x82\xac!", 4, "a\xe2\x82\xac"},
	    {"a\xf0\x9f\x98\x80!", 4, "a"},
	    {"a\xf0\x9f\x98\x80!", 2, "a"},
	    {"a\xf0\x9f\x98\x80!", 5, "a\xf0\x9f\x98\x80"},
	    {"ab\x80\x80\x80\x80"
	     "cd",
	     4, "ab\x80\x80"},		      /* no lead byte */
	    {"\xc3\xa9\x80x", 2, "\xc3\xa9"}, /* é whole, \x80 stray */
	    {"\xc3\xa9\xa9x", 2, "\xc3\xa9"},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct labels *lb = labels_new();
		char want[64];

		labels_set_len_max(lb, cases[i].max);
		size_t n = strlen(cases[i].s);

		snprintf(want, sizeof(want), "%s" LABEL_CUT_MARK, cases[i].kept,
			 n, (uint32_t)crc32_z(0, (const void *)cases[i].s, n));
		assert_string_equal(
		    labels_str(lb, labels_intern(lb, cases[i].s)), want);
		labels_free(lb);
	}
}

/* A name of 4 GiB and more (labels keep 4-byte lengths) at the real
 * limit: cut, not an abort. The string is a mapping of 4 GiB + 2 pages
 * of which only the first page is written: the rest reads as the zero
 * page, so the test needs no more memory than that page. */
static void test_cut_4g(void **state)
{
	size_t n = (4ull << 30) + 8192, m;
	char *p = mmap(NULL, n, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	struct labels *lb = labels_new();
	char mark[64];
	uint32_t id;

	(void)state;
	if (p == MAP_FAILED) {
		labels_free(lb);
		test_skip(
		    "cannot map 4 GiB (mmap MAP_NORESERVE: %s; ulimit -v, "
		    "or vm.overcommit_memory=2 counting it)",
		    strerror(errno));
	}
	memset(p, 'x', 4096);
	id = labels_intern_n(lb, p, n);
	/* the hash: Python's zlib.crc32() of 4096 "x" and the zeros */
	m = (size_t)snprintf(mark, sizeof(mark), LABEL_CUT_MARK, n,
			     (uint32_t)0xbf343e14);
	assert_string_equal(mark, "... [cut: 4294975488 bytes, hash bf343e14]");
	/* the first LABEL_LEN_MAX bytes (a page of x, then NULs), the mark */
	assert_memory_equal(labels_str(lb, id), p, LABEL_LEN_MAX);
	assert_memory_equal(labels_str(lb, id) + LABEL_LEN_MAX, mark, m + 1);
	assert_int_equal(labels_intern_n(lb, p, n), id);
	/* at the limit: whole */
	assert_int_not_equal(labels_intern_n(lb, p, LABEL_LEN_MAX), id);
	assert_int_equal(labels_count(lb), 2);
	labels_free(lb);
	munmap(p, n);
}

/* labels_hash() of a string longer than a label holds reads none of it:
 * labels_intern_hashed() cuts it and hashes the cut label, once. Past
 * the first page here nothing may be read. */
static void test_hash_long(void **state)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), n = LABEL_STR_MAX + 1;
	char *p = mmap(NULL, n + page, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	(void)state;
	assert_true(p != MAP_FAILED);
	assert_int_equal(mprotect(p, page, PROT_READ | PROT_WRITE), 0);
	assert_int_equal(labels_hash(p, n), 0);
	assert_int_not_equal(labels_hash(p, page), labels_hash(p, page - 1));
	munmap(p, n + page);
}

#define MANY 100000

/* labels_reserve() keeps what is in and makes room for more: the ids
 * still count up from the count, the strings are found */
static void test_reserve(void **state)
{
	struct labels *lb = labels_new();
	char buf[32];

	(void)state;
	assert_int_equal(labels_intern(lb, "a"), 0);
	labels_reserve(lb, 5000);
	assert_int_equal(labels_find(lb, "a"), 0);
	for (int i = 0; i < 6000; i++) {
		snprintf(buf, sizeof(buf), "sym%d", i);
		assert_int_equal(labels_intern(lb, buf), (uint32_t)i + 1);
	}
	labels_reserve(lb, 0);
	for (int i = 0; i < 6000; i++) {
		snprintf(buf, sizeof(buf), "sym%d", i);
		assert_int_equal(labels_find(lb, buf), (uint32_t)i + 1);
		assert_string_equal(labels_str(lb, (uint32_t)i + 1), buf);
	}
	assert_int_equal(labels_count(lb), 6001);
	labels_free(lb);
}

static void test_many(void **state)
{
	struct labels *lb = labels_new();
	char buf[64];
	uint32_t i;

	(void)state;
	for (i = 0; i < MANY; i++) {
		snprintf(buf, sizeof(buf), "_ZN3foo%uEv", i);
		assert_int_equal(labels_intern(lb, buf), i);
	}
	/* a long one (bigger than an arena chunk's share) */
	{
		size_t n = 100000;
		char *big = malloc(n + 1);

		memset(big, 'x', n);
		big[n] = '\0';
		assert_int_equal(labels_intern(lb, big), MANY);
		assert_int_equal(labels_find(lb, big), MANY);
		assert_int_equal(strlen(labels_str(lb, MANY)), n);
		free(big);
	}
	assert_int_equal(labels_count(lb), MANY + 1);
	for (i = 0; i < MANY; i++) {
		snprintf(buf, sizeof(buf), "_ZN3foo%uEv", i);
		if (labels_find(lb, buf) != i || labels_intern(lb, buf) != i ||
		    strcmp(labels_str(lb, i), buf))
			fail_msg("label %u lost after rehash", i);
	}
	assert_int_equal(labels_count(lb), MANY + 1);
	assert_int_equal(labels_find(lb, "_ZN3foo100000Ev"), LABEL_NONE);
	labels_free(lb);
}

static void test_aliases(void **state)
{
	struct labels *lb = labels_new();
	const char *const *al;
	uint32_t a, b;
	size_t n = 99;

	(void)state;
	a = labels_intern(lb, "memcpy");
	b = labels_intern(lb, "memmove");
	al = labels_aliases(lb, a, &n);
	assert_int_equal(n, 0);
	assert_null(al);
	labels_add_alias(lb, a, "__memcpy_avx");
	labels_add_alias(lb, a, "__memcpy_sse2");
	labels_add_alias(lb, a, "__memcpy_avx"); /* duplicate */
	labels_add_alias(lb, a, "memcpy");	 /* the label itself */
	al = labels_aliases(lb, a, &n);
	assert_int_equal(n, 2);
	assert_string_equal(al[0], "__memcpy_avx");
	assert_string_equal(al[1], "__memcpy_sse2");
	al = labels_aliases(lb, b, &n);
	assert_int_equal(n, 0);
	/* aliases on a label interned after the first alias was added */
	b = labels_intern(lb, "later");
	labels_add_alias(lb, b, "later2");
	al = labels_aliases(lb, b, &n);
	assert_int_equal(n, 1);
	assert_string_equal(al[0], "later2");
	/* aliases are not labels */
	assert_int_equal(labels_find(lb, "later2"), LABEL_NONE);
	assert_int_equal(labels_count(lb), 3);
	labels_free(lb);
}

/* 200 000 aliases of one label (a symbol folded 200 000 times): all kept,
 * in order, duplicates still ignored. Quadratic before (strcmp against
 * every alias already there). */
static void test_many_aliases(void **state)
{
	enum { NAL = 200000 };
	struct labels *lb = labels_new();
	const char *const *al;
	char buf[64];
	uint32_t id, other;
	size_t n;

	(void)state;
	id = labels_intern(lb, "folded");
	other = labels_intern(lb, "other");
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < NAL; i++) {
			snprintf(buf, sizeof(buf), "alias_%d", i);
			labels_add_alias(lb, id, buf);
		}
	labels_add_alias(lb, id, "folded");
	labels_add_alias(lb, other, "alias_7");
	al = labels_aliases(lb, id, &n);
	assert_int_equal(n, NAL);
	for (int i = 0; i < NAL; i += 997) {
		snprintf(buf, sizeof(buf), "alias_%d", i);
		assert_string_equal(al[i], buf);
	}
	assert_string_equal(al[NAL - 1], "alias_199999");
	al = labels_aliases(lb, other, &n);
	assert_int_equal(n, 1);
	assert_string_equal(al[0], "alias_7");
	assert_int_equal(labels_count(lb), 2);
	assert_int_equal(labels_find(lb, "alias_5"), LABEL_NONE);
	labels_free(lb);
}

/* Positions: none until set, the last set stands, ids past the table and
 * UINT64_MAX ignored, 0 a position like any other. */
static void test_pos(void **state)
{
	struct labels *lb = labels_new();
	uint32_t a, b;
	uint64_t pos = 7;

	(void)state;
	a = labels_intern(lb, "a");
	b = labels_intern(lb, "b");
	assert_false(labels_pos(lb, a, &pos));
	assert_int_equal(pos, 7);
	labels_set_pos(lb, b, 0x7fff0000);
	assert_false(labels_pos(lb, a, &pos));
	assert_true(labels_pos(lb, b, &pos));
	assert_int_equal(pos, 0x7fff0000);
	labels_set_pos(lb, b, 0);
	assert_true(labels_pos(lb, b, &pos));
	assert_int_equal(pos, 0);
	labels_set_pos(lb, a, UINT64_MAX);
	assert_false(labels_pos(lb, a, &pos));
	labels_set_pos(lb, 99, 1);
	assert_false(labels_pos(lb, 99, &pos));
	assert_false(labels_pos(lb, LABEL_NONE, &pos));
	/* many labels interned after: the table grows */
	for (int i = 0; i < 1000; i++) {
		char s[16];

		snprintf(s, sizeof(s), "l%d", i);
		labels_set_pos(lb, labels_intern(lb, s), (uint64_t)i * 3);
	}
	assert_true(labels_pos(lb, labels_find(lb, "l999"), &pos));
	assert_int_equal(pos, 2997);
	assert_true(labels_pos(lb, b, &pos));
	assert_int_equal(pos, 0);
	labels_free(lb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_round_trip),
	    cmocka_unit_test(test_intern_n),
	    cmocka_unit_test(test_cut),
	    cmocka_unit_test(test_cut_utf8),
	    cmocka_unit_test(test_suffix),
	    cmocka_unit_test(test_suffix_fake_mark),
	    cmocka_unit_test(test_suffix_big),
	    cmocka_unit_test(test_cut_4g),
	    cmocka_unit_test(test_hash_long),
	    cmocka_unit_test(test_many),
	    cmocka_unit_test(test_reserve),
	    cmocka_unit_test(test_aliases),
	    cmocka_unit_test(test_many_aliases),
	    cmocka_unit_test(test_pos),
	};

	return test_run_group(tests, NULL, NULL);
}
