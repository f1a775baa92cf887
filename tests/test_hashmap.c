// SPDX-License-Identifier: GPL-2.0-or-later
/* test_hashmap.c — the one hash table: lookups over an owner's array,
 * colliding hashes told apart by the owner, growth, clearing, and the
 * two hash functions. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util/hashmap.h"
#include "util/util.h"
#include "tests/testutil.h"

/* An owner: keys in insertion order, indexed by a hashmap. hash_of lets a
 * test force collisions. */
struct keyset {
	uint64_t *keys;
	size_t n, cap;
	struct hashmap map;
	uint32_t (*hash_of)(uint64_t);
	size_t compares;
};

static uint32_t hash_mixed(uint64_t k)
{
	return hashmap_hash_u64(k);
}

static uint32_t hash_three(uint64_t k)
{
	return (uint32_t)(k % 3); /* every key collides with a third */
}

/* Index of k, added if absent; *added says which. */
static uint32_t keyset_get(struct keyset *s, uint64_t k, bool *added)
{
	struct hashmap_probe p;
	uint32_t i;

	for (i = hashmap_first(&s->map, s->hash_of(k), &p); i != HASHMAP_NONE;
	     i = hashmap_next(&s->map, &p)) {
		s->compares++;
		if (s->keys[i] == k) {
			*added = false;
			return i;
		}
	}
	xgrow(&s->keys, &s->cap, s->n + 1, sizeof(*s->keys));
	s->keys[s->n] = k;
	hashmap_put(&s->map, &p, (uint32_t)s->n);
	*added = true;
	return (uint32_t)s->n++;
}

/* Index of k, or HASHMAP_NONE. */
static uint32_t keyset_find(struct keyset *s, uint64_t k)
{
	struct hashmap_probe p;
	uint32_t i;

	for (i = hashmap_first(&s->map, s->hash_of(k), &p); i != HASHMAP_NONE;
	     i = hashmap_next(&s->map, &p))
		if (s->keys[i] == k)
			return i;
	return HASHMAP_NONE;
}

/* The table's own invariants: at most half full, n entries, each index
 * once, each in a slot its probe from its hash reaches. */
static void check_table(const struct keyset *s)
{
	const struct hashmap *m = &s->map;
	size_t nslots = m->mask + 1, used = 0;
	bool *seen;

	assert_int_equal(m->n, s->n);
	if (!m->slots)
		return;
	assert_true((nslots & m->mask) == 0);
	assert_true(2 * m->n <= nslots);
	seen = xcalloc(s->n + 1, 1);
	for (size_t i = 0; i < nslots; i++) {
		const struct hashmap_slot *sl = &m->slots[i];

		if (!sl->idx1)
			continue;
		used++;
		assert_true(sl->idx1 <= s->n);
		assert_false(seen[sl->idx1]);
		seen[sl->idx1] = true;
		assert_int_equal(sl->hash, s->hash_of(s->keys[sl->idx1 - 1]));
		/* no empty slot between the hash's home and here */
		for (size_t j = sl->hash & m->mask; j != i;
		     j = (j + 1) & m->mask)
			assert_true(m->slots[j].idx1 != 0);
	}
	assert_int_equal(used, s->n);
	free(seen);
}

static void keyset_free(struct keyset *s)
{
	free(s->keys);
	hashmap_free(&s->map);
}

static void test_empty(void **state)
{
	struct keyset s = {.hash_of = hash_mixed};
	struct hashmap_probe p;

	(void)state;
	assert_int_equal(hashmap_first(&s.map, 7, &p), HASHMAP_NONE);
	assert_int_equal(keyset_find(&s, 7), HASHMAP_NONE);
	hashmap_clear(&s.map);
	hashmap_free(&s.map);
	hashmap_free(NULL);
	check_table(&s);
}

static void test_many(void **state)
{
	struct keyset s = {.hash_of = hash_mixed};
	const size_t n = 100000;
	bool added;

	(void)state;
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(keyset_get(&s, i * 4096, &added), i);
		assert_true(added);
	}
	check_table(&s);
	/* found again at their first index, nothing added */
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(keyset_get(&s, i * 4096, &added), i);
		assert_false(added);
	}
	assert_int_equal(s.n, n);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(keyset_find(&s, i * 4096 + 1), HASHMAP_NONE);
	/* with a good hash, a lookup compares about one key */
	s.compares = 0;
	for (size_t i = 0; i < n; i++)
		keyset_find(&s, i * 4096);
	assert_true(s.compares < n + n / 100);
	keyset_free(&s);
}

static void test_collisions(void **state)
{
	struct keyset s = {.hash_of = hash_three};
	bool added;

	(void)state;
	for (uint64_t k = 0; k < 300; k++)
		assert_int_equal(keyset_get(&s, k, &added), k);
	check_table(&s);
	for (uint64_t k = 0; k < 300; k++) {
		assert_int_equal(keyset_find(&s, k), k);
		assert_int_equal(keyset_get(&s, k, &added), k);
		assert_false(added);
	}
	assert_int_equal(keyset_find(&s, 300), HASHMAP_NONE);
	keyset_free(&s);
}

static void test_clear(void **state)
{
	struct keyset s = {.hash_of = hash_mixed};
	size_t big;
	bool added;

	(void)state;
	for (uint64_t k = 0; k < 1000; k++)
		keyset_get(&s, k, &added);
	big = s.map.mask + 1;
	/* emptied after as many entries as it holds: the slots stay */
	hashmap_clear(&s.map);
	s.n = 0;
	check_table(&s);
	assert_int_equal(s.map.mask + 1, big);
	assert_int_equal(keyset_find(&s, 5), HASHMAP_NONE);
	/* refilled with a few, the old keys are gone */
	for (uint64_t k = 5000; k < 5010; k++)
		assert_int_equal(keyset_get(&s, k, &added), k - 5000);
	assert_int_equal(keyset_find(&s, 5), HASHMAP_NONE);
	check_table(&s);
	/* emptied after far fewer entries than slots: the slots go */
	hashmap_clear(&s.map);
	s.n = 0;
	assert_null(s.map.slots);
	assert_int_equal(keyset_get(&s, 42, &added), 0);
	assert_true(added);
	check_table(&s);
	keyset_free(&s);
}

/* Entries the owner already has, indexed without lookups (hashmap_add),
 * colliding hashes included: found as if they had been put one by one. */
static void test_add(void **state)
{
	struct keyset s = {.hash_of = hash_three};
	bool added;

	(void)state;
	for (uint64_t k = 0; k < 100; k++) {
		xgrow(&s.keys, &s.cap, s.n + 1, sizeof(*s.keys));
		s.keys[s.n++] = k * 7;
	}
	for (size_t i = 0; i < s.n; i++)
		hashmap_add(&s.map, s.hash_of(s.keys[i]), (uint32_t)i);
	check_table(&s);
	for (uint64_t k = 0; k < 100; k++) {
		assert_int_equal(keyset_find(&s, k * 7), k);
		assert_int_equal(keyset_find(&s, k * 7 + 1), HASHMAP_NONE);
	}
	assert_int_equal(keyset_get(&s, 1000, &added), 100);
	assert_true(added);
	check_table(&s);
	keyset_free(&s);
}

/* hashmap_reserve(): the slots for n entries at once, kept while they
 * come (no rehash), the entries already in found after; never shrinks */
static void test_reserve(void **state)
{
	struct keyset s = {.hash_of = hash_three};
	struct hashmap_slot *slots;
	size_t mask;
	bool added;

	(void)state;
	for (uint64_t k = 0; k < 10; k++)
		keyset_get(&s, k, &added);
	hashmap_reserve(&s.map, 1000);
	check_table(&s);
	assert_true(s.map.mask + 1 >= 2000);
	slots = s.map.slots;
	mask = s.map.mask;
	for (uint64_t k = 0; k < 1000; k++)
		assert_int_equal(keyset_get(&s, k, &added), k);
	assert_ptr_equal(s.map.slots, slots);
	assert_int_equal(s.map.mask, mask);
	check_table(&s);
	hashmap_reserve(&s.map, 10);
	assert_ptr_equal(s.map.slots, slots);
	assert_int_equal(keyset_get(&s, 1000, &added), 1000);
	assert_true(added);
	keyset_free(&s);
}

static void test_hashes(void **state)
{
	static const char a[] = "0123456789abcdef-0123456789abcdef";
	char b[sizeof(a)];
	uint32_t lo_bits = 0;

	(void)state;
	/* length and every byte count, inside and past the 8-byte words */
	assert_int_equal(hashmap_hash_bytes(a, 20), hashmap_hash_bytes(a, 20));
	assert_int_not_equal(hashmap_hash_bytes(a, 20),
			     hashmap_hash_bytes(a, 21));
	assert_int_not_equal(hashmap_hash_bytes("", 0),
			     hashmap_hash_bytes("\0", 1));
	for (size_t i = 0; i < sizeof(a) - 1; i++) {
		memcpy(b, a, sizeof(a));
		b[i] ^= 1;
		assert_int_not_equal(hashmap_hash_bytes(a, sizeof(a) - 1),
				     hashmap_hash_bytes(b, sizeof(a) - 1));
	}
	/* keys that differ in high bits only still differ in the low bits
	 * that pick a slot */
	for (uint64_t k = 0; k < 16; k++)
		lo_bits |= 1u << (hashmap_hash_u64(k << 40) & 31);
	assert_true(__builtin_popcount(lo_bits) >= 8);
	assert_int_not_equal(hashmap_hash_u64(1), hashmap_hash_u64(2));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_empty),      cmocka_unit_test(test_many),
	    cmocka_unit_test(test_collisions), cmocka_unit_test(test_clear),
	    cmocka_unit_test(test_add),	       cmocka_unit_test(test_reserve),
	    cmocka_unit_test(test_hashes),
	};

	return test_run_group(tests, NULL, NULL);
}
