// SPDX-License-Identifier: GPL-2.0-or-later
/* test_rangemap_random.c — RangeMap and DualMap in randomized runs against
 * a byte-array model. rmap_check() runs after every mutation. (Literal
 * expected maps: test_rangemap_literal.c.)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "maps/labels.h"
#include "maps/rangemap.h"
#include "tests/rangemap_fixture.h"
#include "tests/testutil.h"

#define MIN(a, b) ((a) < (b) ? (a) : (b))

/* --- randomized tests against a byte-array model --- */

#define SPACE 4096

struct model {
	uint32_t label[SPACE];
	uint64_t other[SPACE];
	bool is_start[SPACE + 1]; /* starts of adds settled so far */
	struct madd {
		uint64_t start, end, other;
		uint32_t label;
		bool open;
	} pend[8192];
	size_t np;
};

static uint64_t rng_state;

static uint64_t rnd(void)
{
	uint64_t x = rng_state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	rng_state = x;
	return x * 0x2545f4914f6cdd1dULL;
}

static uint64_t rnd_below(uint64_t n)
{
	return n ? rnd() % n : 0;
}

static void model_init(struct model *md)
{
	size_t i;

	memset(md, 0, sizeof(*md));
	for (i = 0; i < SPACE; i++) {
		md->label[i] = NONE;
		md->other[i] = NO;
	}
}

static void model_settle(struct model *md)
{
	size_t i;
	uint64_t b;

	for (i = 0; i < md->np; i++)
		md->is_start[md->pend[i].start] = true;
	for (i = 0; i < md->np; i++) {
		struct madd *a = &md->pend[i];

		if (a->open)
			for (b = a->start + 1; b < a->end; b++)
				if (md->is_start[b]) {
					a->end = b;
					break;
				}
		for (b = a->start; b < a->end; b++)
			if (md->label[b] == NONE) {
				md->label[b] = a->label;
				md->other[b] = a->other == NO
						   ? NO
						   : a->other + (b - a->start);
			}
	}
	md->np = 0;
}

static unsigned long long cur_seed;

#define CHECK(c)                                                               \
	do {                                                                   \
		if (!(c)) {                                                    \
			print_error("seed %llu: %s:%d: check failed: %s\n",    \
				    cur_seed, __FILE__, __LINE__, #c);         \
			fail();                                                \
		}                                                              \
	} while (0)

/* Entries of the model, merged like the map merges. */
static size_t model_entries(const struct model *md, struct rmap_entry *out)
{
	size_t n = 0;
	uint64_t b;

	for (b = 0; b < SPACE; b++) {
		if (md->label[b] == NONE)
			continue;
		if (n && out[n - 1].end == b &&
		    out[n - 1].label == md->label[b] &&
		    (md->other[b] == NO
			 ? out[n - 1].other == NO
			 : out[n - 1].other != NO &&
			       out[n - 1].other + (b - out[n - 1].start) ==
				   md->other[b])) {
			out[n - 1].end = b + 1;
			continue;
		}
		out[n].start = b;
		out[n].end = b + 1;
		out[n].other = md->other[b];
		out[n].label = md->label[b];
		n++;
	}
	return n;
}

/* Merge adjacent equal entries of a copy of the map's list. */
static size_t merged_entries(struct rmap *m, struct rmap_entry *out)
{
	size_t n, i, k = 0;
	const struct rmap_entry *e = rmap_entries(m, &n);

	for (i = 0; i < n; i++) {
		if (k && out[k - 1].end == e[i].start &&
		    out[k - 1].label == e[i].label &&
		    (e[i].other == NO
			 ? out[k - 1].other == NO
			 : out[k - 1].other != NO &&
			       out[k - 1].other +
				       (out[k - 1].end - out[k - 1].start) ==
				   e[i].other)) {
			out[k - 1].end = e[i].end;
			continue;
		}
		out[k++] = e[i];
	}
	return k;
}

/* Set for maps that take no open adds (a DualMap's): random_add_at()
 * makes its open adds plain ones. */
static bool plain_only;

/* A random add (open, translated or plain) at start. */
static void random_add_at(struct rmap *m, struct model *md, uint64_t start)
{
	uint64_t size, other = NO, limit;
	uint32_t label = rnd_below(8);
	unsigned kind = rnd_below(10);
	struct madd *a;

	CHECK(md->np < ARRAY_SIZE(md->pend));
	size = rnd_below(4) ? rnd_below(64) : rnd_below(SPACE);
	if (size > SPACE - start)
		size = SPACE - start;
	if (kind < 2 && !plain_only) {
		/* open */
		limit = rnd_below(3) ? SPACE : start + rnd_below(200);
		if (limit > SPACE)
			limit = SPACE;
		rmap_add_open(m, start, limit, label);
		CHECK(rmap_check(m) == 0);
		if (limit <= start)
			return;
		a = &md->pend[md->np++];
		a->start = start;
		a->end = limit;
		a->other = NO;
		a->label = label;
		a->open = true;
		return;
	}
	if (kind < 5)
		other = rnd_below(1 << 20);
	rmap_add_translated(m, start, size, other, label);
	CHECK(rmap_check(m) == 0);
	if (!size)
		return;
	a = &md->pend[md->np++];
	a->start = start;
	a->end = start + size;
	a->other = other;
	a->label = label;
	a->open = false;
}

static void random_add(struct rmap *m, struct model *md)
{
	random_add_at(m, md, rnd_below(SPACE));
}

static void random_query(struct rmap *m, struct model *md)
{
	static struct rmap_entry got[SPACE], want[SPACE];
	size_t ng, nw, i;
	uint64_t a, b, o;

	model_settle(md);
	for (i = 0; i < 20; i++) {
		uint32_t l;

		a = rnd_below(SPACE + 2);
		l = rmap_lookup(m, a, &o);
		if (a >= SPACE) {
			CHECK(l == NONE && o == NO);
			continue;
		}
		CHECK(l == md->label[a]);
		CHECK(o == md->other[a]);
		CHECK(rmap_translate(m, a, &o) == (md->other[a] != NO));
		if (md->other[a] != NO)
			CHECK(o == md->other[a]);
	}
	for (i = 0; i < 10; i++) {
		bool want_cov = true;

		a = rnd_below(SPACE);
		b = a + rnd_below(rnd_below(2) ? 16 : SPACE - a + 1);
		for (o = a; o < b; o++)
			if (o >= SPACE || md->label[o] == NONE)
				want_cov = false;
		CHECK(rmap_covers(m, a, b) == want_cov);
	}
	CHECK(rmap_check(m) == 0);
	ng = merged_entries(m, got);
	nw = model_entries(md, want);
	CHECK(ng == nw);
	for (i = 0; i < ng; i++) {
		CHECK(got[i].start == want[i].start);
		CHECK(got[i].end == want[i].end);
		CHECK(got[i].other == want[i].other);
		CHECK(got[i].label == want[i].label);
	}
}

struct fe_check {
	struct model *md;
	uint64_t next; /* pieces must come in order */
	uint64_t start, end;
};

static int fe_check_fn(void *arg, const struct rmap_entry *p)
{
	struct fe_check *c = arg;
	uint64_t b;

	CHECK(p->start >= c->next && p->start < p->end);
	CHECK(p->start >= c->start && p->end <= c->end);
	for (b = c->next; b < p->start; b++)
		CHECK(c->md->label[b] == NONE);
	for (b = p->start; b < p->end; b++) {
		CHECK(c->md->label[b] == p->label);
		CHECK(c->md->other[b] ==
		      (p->other == NO ? NO : p->other + (b - p->start)));
	}
	c->next = p->end;
	return 0;
}

static void random_foreach(struct rmap *m, struct model *md)
{
	struct fe_check c;
	uint64_t b;

	model_settle(md);
	c.md = md;
	c.start = rnd_below(SPACE);
	c.end = c.start + rnd_below(SPACE - c.start + 1);
	c.next = c.start;
	CHECK(rmap_foreach(m, c.start, c.end, fe_check_fn, &c) == 0);
	for (b = c.next; b < c.end; b++)
		CHECK(md->label[b] == NONE);
}

static void test_random_single(void **state)
{
	unsigned iter;

	(void)state;
	for (iter = 0; iter < 300; iter++) {
		struct rmap *m = rmap_new();
		struct model *md = malloc(sizeof(*md));
		unsigned op, nops;

		cur_seed = 0x5eed0000ULL + iter;
		rng_state = cur_seed * 0x9e3779b97f4a7c15ULL | 1;
		model_init(md);
		nops = 1 + rnd_below(iter < 100 ? 20 : 200);
		for (op = 0; op < nops; op++) {
			unsigned r = rnd_below(100);

			if (r < 85)
				random_add(m, md);
			else if (r < 95)
				random_query(m, md);
			else
				random_foreach(m, md);
		}
		random_query(m, md);
		random_foreach(m, md);
		rmap_free(m);
		free(md);
	}
}

/* Adds in order of start (ties too) then a short tail in any order, as
 * a source adds its metadata then its padding and sections: settling
 * sorts the tail alone and merges it into the head (kept if long). */
static void test_random_sorted_head(void **state)
{
	(void)state;
	for (unsigned iter = 0; iter < 300; iter++) {
		struct rmap *m = rmap_new();
		struct model *md = malloc(sizeof(*md));
		size_t nhead, ntail;
		uint64_t start = 0;

		cur_seed = 0x50e7ed00ULL + iter;
		rng_state = cur_seed * 0x9e3779b97f4a7c15ULL | 1;
		model_init(md);
		if (rnd_below(2))
			random_add(m, md); /* settled before: seq 0 */
		random_query(m, md);
		nhead = 1 + rnd_below(400);
		ntail = rnd_below(nhead / 4 + 2);
		for (size_t i = 0; i < nhead && start < SPACE; i++) {
			random_add_at(m, md, start);
			start += rnd_below(3) ? rnd_below(20) : 0;
		}
		for (size_t i = 0; i < ntail; i++)
			random_add(m, md);
		random_query(m, md);
		random_foreach(m, md);
		rmap_free(m);
		free(md);
	}
}

/* Several runs of adds in order of start (ties too), long ones and
 * short ones, and stretches of adds in any order between them, as the
 * sources add symbols, names and references: settling keeps the long
 * runs, sorts the rest and merges the parts, by start and then arrival. */
static void test_random_runs(void **state)
{
	(void)state;
	for (unsigned iter = 0; iter < 300; iter++) {
		struct rmap *m = rmap_new();
		struct model *md = malloc(sizeof(*md));
		unsigned nparts, big;

		cur_seed = 0x7a75ed00ULL + iter;
		rng_state = cur_seed * 0x9e3779b97f4a7c15ULL | 1;
		model_init(md);
		if (rnd_below(2))
			random_add(m, md); /* settled before: seq 0 */
		random_query(m, md);
		/* up to 480 adds; every 8th iteration 2 048-6 047, in runs
		 * about the length pend_sort() keeps as they are
		 * (max(64, n/32)) */
		big = iter % 8 == 7 ? 2048 + rnd_below(4000) : 0;
		nparts = big ? 8192 : 1 + rnd_below(4);
		for (unsigned p = 0, total = 0;
		     p < nparts && total < (big ? big : 1); p++) {
			static const int near[] = {-1, 0, 1};
			uint64_t start = rnd_below(SPACE / 2);
			size_t n =
			    rnd_below(3) ? 1 + rnd_below(120) : rnd_below(40);
			bool ordered = rnd_below(3);

			if (big && rnd_below(2))
				n = (size_t)((rnd_below(2) ? big / 32 : 64) +
					     near[rnd_below(3)]);
			if (big)
				total += (unsigned)n;

			for (size_t i = 0; i < n && start < SPACE; i++) {
				if (!ordered) {
					random_add(m, md);
					continue;
				}
				random_add_at(m, md, start);
				start += rnd_below(3) ? rnd_below(8) : 0;
			}
		}
		random_query(m, md);
		random_foreach(m, md);
		rmap_free(m);
		free(md);
	}
}

struct ru_check {
	struct model **md;
	size_t n;
	uint64_t next;
};

static int ru_check_fn(void *arg, const uint32_t *labels, uint64_t s,
		       uint64_t e)
{
	struct ru_check *c = arg;
	uint64_t b;
	size_t k;

	CHECK(s == c->next && s < e);
	if (s >= SPACE)
		for (k = 0; k < c->n; k++)
			CHECK(labels[k] == NONE);
	for (k = 0; k < c->n; k++)
		for (b = s; b < e && b < SPACE; b++)
			CHECK(c->md[k]->label[b] == labels[k]);
	c->next = e;
	return 0;
}

static void test_random_rollup(void **state)
{
	unsigned iter;

	(void)state;
	for (iter = 0; iter < 200; iter++) {
		struct rmap *m[3];
		struct model *md[3];
		struct ru_check c;
		size_t k, n = 1 + iter % 3, q;

		cur_seed = 0xab0000ULL + iter;
		rng_state = cur_seed * 0x9e3779b97f4a7c15ULL | 1;
		for (k = 0; k < n; k++) {
			unsigned op, nops = rnd_below(60);

			m[k] = rmap_new();
			md[k] = malloc(sizeof(*md[k]));
			model_init(md[k]);
			for (op = 0; op < nops; op++)
				random_add(m[k], md[k]);
			model_settle(md[k]);
		}
		for (q = 0; q < 20; q++) {
			c.md = md;
			c.n = n;
			c.next = rnd_below(SPACE + 10);
			c.next = rnd_below(2) ? c.next : 0;
			{
				uint64_t s = c.next;
				uint64_t e = s + rnd_below(SPACE + 20 - s);

				CHECK(rmap_rollup(m, n, s, e, ru_check_fn,
						  &c) == 0);
				CHECK(c.next == (e > s ? e : s));
			}
		}
		for (k = 0; k < n; k++) {
			rmap_free(m[k]);
			free(md[k]);
		}
	}
}
/* --- tables (rmap_add_table()) against the model, element by element --- */
/* A random table at start: up to 48 elements, about two in five of them
 * holes; of 1 to 12 bytes each, or (one table in two) of 0 to 12 bytes
 * given by bounds. To the model as the adds of its elements. */
static void random_table_at(struct rmap *m, struct model *md, uint64_t start)
{
	uint64_t stride = rnd_below(2) ? 1 + rnd_below(12) : 0;
	uint64_t n = rnd_below(48), end = start;
	uint64_t other = rnd_below(2) ? NO : rnd_below(1 << 20);
	size_t first = rnd_below(4), nl;
	struct rmap_labels *l;

	if (md->np + n > ARRAY_SIZE(md->pend))
		n = ARRAY_SIZE(md->pend) - md->np;
	nl = first + n + rnd_below(3);
	l = stride ? rmap_labels_new(nl) : rmap_labels_new_at(nl);
	for (size_t k = 0; k < l->n; k++)
		l->id[k] = rnd_below(5) < 2 ? NONE : rnd_below(8);
	if (!stride) { /* bounds from an offset, to the end of SPACE */
		l->at[first] = rnd_below(100);
		for (size_t k = first; k < nl; k++)
			l->at[k + 1] = l->at[k] + rnd_below(13);
		while (n && start + l->at[first + n] - l->at[first] > SPACE)
			n--;
	} else if (start + n * stride > SPACE) {
		n = (SPACE - start) / stride;
	}
	rmap_add_table(m, start, stride, n, other, l, first);
	CHECK(rmap_check(m) == 0);
	for (uint64_t k = 0; k < n; k++) {
		uint64_t s = stride ? start + k * stride
				    : start + l->at[first + k] - l->at[first];
		uint64_t e = stride
				 ? s + stride
				 : start + l->at[first + k + 1] - l->at[first];
		struct madd *a;

		end = e;
		if (l->id[first + k] == NONE || s == e)
			continue;
		a = &md->pend[md->np++];
		a->start = s;
		a->end = e;
		a->other = other == NO ? NO : other + (s - start);
		a->label = l->id[first + k];
		a->open = false;
	}
	CHECK(end <= SPACE);
	rmap_labels_put(l);
}

struct pcollect {
	struct rmap_entry *p;
	size_t n;
};

static int collect_all_fn(void *arg, const struct rmap_entry *piece)
{
	struct pcollect *c = arg;

	CHECK(c->n < SPACE);
	c->p[c->n++] = *piece;
	return 0;
}

struct run_check {
	const struct rmap_entry *want;
	size_t nw, i;
	uint64_t next;
};

/* rmap_rollup() of one map over [0, SPACE): its pieces are the model's
 * runs (label and translation) and the gaps between them. */
static int run_check_fn(void *arg, const uint32_t *labels, uint64_t s,
			uint64_t e)
{
	struct run_check *c = arg;

	CHECK(s == c->next && s < e);
	c->next = e;
	if (labels[0] == NONE) {
		CHECK(c->i == c->nw || c->want[c->i].start >= e);
		CHECK(!c->i || c->want[c->i - 1].end <= s);
		return 0;
	}
	CHECK(c->i < c->nw);
	CHECK(c->want[c->i].start == s && c->want[c->i].end == e);
	CHECK(c->want[c->i].label == labels[0]);
	c->i++;
	return 0;
}

/* The sums of m over the nr ranges r (sorted, apart), in a random
 * column, by rmap_sum_ranges() (ranges) or rmap_sum_labels() of r[0]
 * (nr 1): each label's bytes as the model has them, -1 where a byte has
 * none (or a label past the sums); the sums of a failed call are not
 * looked at. */
static void sums_compare(struct rmap *m, const struct model *md,
			 const struct rmap_entry *r, size_t nr, bool ranges)
{
	uint64_t(*got)[2], (*want)[2];
	size_t nsums = 1;
	bool hole = false;
	int col = (int)rnd_below(2), ret;

	for (uint64_t b = 0; b < SPACE; b++)
		if (md->label[b] != NONE && md->label[b] >= nsums)
			nsums = md->label[b] + 1;
	/* sometimes too few sums: a label past them fails the call */
	if (rnd_below(8) == 0 && nsums > 1)
		nsums--;
	got = calloc(nsums, sizeof(*got));
	want = calloc(nsums, sizeof(*want));
	CHECK(got && want);
	for (size_t i = 0; i < nr; i++)
		for (uint64_t b = r[i].start; b < r[i].end; b++) {
			if (md->label[b] == NONE || md->label[b] >= nsums)
				hole = true;
			else
				want[md->label[b]][col]++;
		}
	ret = ranges
		  ? rmap_sum_ranges(m, r, nr, got, nsums, col)
		  : rmap_sum_labels(m, r[0].start, r[0].end, got, nsums, col);
	CHECK(ret == (hole ? -1 : 0));
	CHECK(hole || !memcmp(got, want, nsums * sizeof(*got)));
	free(got);
	free(want);
}

/* rmap_sum_labels() over a random range (sums_compare()). */
static void sums_check(struct rmap *m, const struct model *md)
{
	uint64_t s = rnd_below(SPACE), e = s + rnd_below(SPACE - s + 1);
	struct rmap_entry r = {s, e, NO, 0};

	sums_compare(m, md, &r, 1, false);
}

/* rmap_sum_ranges() over random ranges (sorted, apart, some empty or
 * touching), before any other query settles m (sums_compare()). */
static void ranges_sums_check(struct rmap *m, const struct model *md)
{
	struct rmap_entry r[8];
	uint64_t at = rnd_below(SPACE / 4);
	size_t nr = 0;

	while (nr < ARRAY_SIZE(r) && at < SPACE) {
		uint64_t e = at + rnd_below(MIN(SPACE - at, SPACE / 4) + 1);

		r[nr++] = (struct rmap_entry){at, e, NO, 0};
		at = e + (rnd_below(2) ? 0 : rnd_below(SPACE / 8));
	}
	sums_compare(m, md, r, nr, true);
}

/* Queries that see through the tables (no rmap_entries(), which turns
 * them into entries): lookups, covers, foreach and rollup runs, the
 * bounds of rmap_extents(). */
static void table_queries(struct rmap *m, struct model *md)
{
	static struct rmap_entry want[SPACE], got[SPACE];
	struct pcollect c = {got, 0};
	struct run_check rc = {want, 0, 0, 0};
	const struct rmap_entry *x;
	size_t hint = 0, nx;
	uint64_t o, b;

	model_settle(md);
	/* first, while the adds since the last query are pending */
	for (unsigned i = 0; i < 3; i++)
		ranges_sums_check(m, md);
	for (unsigned i = 0; i < 40; i++) {
		uint64_t a = rnd_below(SPACE);

		CHECK(rmap_lookup(m, a, &o) == md->label[a]);
		CHECK(o == md->other[a]);
	}
	for (b = rnd_below(64); b < SPACE; b += 1 + rnd_below(64))
		CHECK(rmap_lookup_near(m, b, &hint) == md->label[b]);
	x = rmap_extents(m, &nx);
	for (size_t i = 0; i < nx; i++)
		for (b = x[i].start; b < x[i].end; b++)
			CHECK(md->label[b] != NONE);
	for (b = 0, o = 0; b < SPACE; b++)
		o += md->label[b] != NONE;
	for (size_t i = 0; i < nx; i++)
		o -= x[i].end - x[i].start;
	CHECK(o == 0); /* the extents cover every labelled byte */
	for (unsigned i = 0; i < 8; i++)
		sums_check(m, md);
	rc.nw = model_entries(md, want);
	CHECK(rmap_rollup(&m, 1, 0, SPACE, run_check_fn, &rc) == 0);
	CHECK(rc.i == rc.nw && rc.next == SPACE);
	CHECK(rmap_foreach(m, 0, SPACE, collect_all_fn, &c) == 0);
	CHECK(c.n == rc.nw);
	for (size_t i = 0; i < c.n && i < rc.nw; i++) {
		CHECK(got[i].start == want[i].start);
		CHECK(got[i].end == want[i].end);
		CHECK(got[i].other == want[i].other);
		CHECK(got[i].label == want[i].label);
	}
}

/* Tables among plain and open adds, settled in batches of every size:
 * every query answers as if each element had been added on its own, and
 * rmap_entries() (which turns the tables into entries) lists the
 * model's runs. */
static void test_random_tables(void **state)
{
	(void)state;
	for (unsigned iter = 0; iter < 400; iter++) {
		struct model *md = malloc(sizeof(*md));
		struct dualmap dm;
		struct rmap *m;
		unsigned nops;

		/* three in four on a DualMap's map, which keeps the tables;
		 * the others take open adds, and the elements one by one */
		dualmap_init(&dm);
		plain_only = iter % 4 != 0;
		m = plain_only ? dm.vm : dm.file;
		if (!plain_only) {
			rmap_free(dm.file);
			dm.file = m = rmap_new();
		}
		cur_seed = 0x7ab1e000ULL + iter;
		rng_state = cur_seed * 0x9e3779b97f4a7c15ULL | 1;
		model_init(md);
		nops = 1 + rnd_below(iter < 100 ? 20 : 120);
		for (unsigned op = 0; op < nops; op++) {
			unsigned r = rnd_below(100);

			if (md->np + 64 > ARRAY_SIZE(md->pend))
				table_queries(m, md);
			else if (r < 40)
				random_table_at(m, md, rnd_below(SPACE));
			else if (r < 85)
				random_add(m, md);
			else if (r < 95)
				table_queries(m, md);
			else
				random_query(m, md);
		}
		table_queries(m, md);
		random_query(m, md);
		random_foreach(m, md);
		dualmap_free(&dm);
		free(md);
	}
	plain_only = false;
}

/* Many independent settles of tiny batches: a query after every add. */
static void test_random_interleaved(void **state)
{
	unsigned iter;

	(void)state;
	for (iter = 0; iter < 50; iter++) {
		struct rmap *m = rmap_new();
		struct model *md = malloc(sizeof(*md));
		unsigned op;

		cur_seed = 0x1a7e0000ULL + iter;
		rng_state = cur_seed * 0x9e3779b97f4a7c15ULL | 1;
		model_init(md);
		for (op = 0; op < 100; op++) {
			random_add(m, md);
			if (rnd_below(2))
				random_query(m, md);
		}
		random_query(m, md);
		rmap_free(m);
		free(md);
	}
}

/* DualMaps through a random base: paint a byte model of both spaces. */
static void paint(struct model *md, uint64_t b, uint64_t other, uint32_t l)
{
	if (b < SPACE && md->label[b] == NONE) {
		md->label[b] = l;
		md->other[b] = other;
	}
}

static void compare_model(struct rmap *m, const struct model *md)
{
	static struct rmap_entry got[SPACE], want[SPACE];
	size_t ng, nw, i;

	CHECK(rmap_check(m) == 0);
	ng = merged_entries(m, got);
	nw = model_entries(md, want);
	CHECK(ng == nw);
	for (i = 0; i < ng; i++) {
		CHECK(got[i].start == want[i].start);
		CHECK(got[i].end == want[i].end);
		CHECK(got[i].other == want[i].other);
		CHECK(got[i].label == want[i].label);
	}
}

static void test_random_dualmap(void **state)
{
	unsigned iter;

	(void)state;
	for (iter = 0; iter < 200; iter++) {
		struct dualmap b, d;
		struct dualmap_cursor cv, cf;
		uint64_t last = 0;
		struct model *bv = malloc(sizeof(*bv));
		struct model *bf = malloc(sizeof(*bf));
		struct model *dv = malloc(sizeof(*dv));
		struct model *df = malloc(sizeof(*df));
		unsigned k, nseg, op;
		uint64_t x;

		cur_seed = 0xd0a10000ULL + iter;
		rng_state = cur_seed * 0x9e3779b97f4a7c15ULL | 1;
		model_init(bv);
		model_init(bf);
		model_init(dv);
		model_init(df);
		dualmap_init(&b);
		dualmap_init(&d);
		nseg = 1 + rnd_below(4);
		for (k = 0; k < nseg; k++) {
			uint64_t va = rnd_below(SPACE), off = rnd_below(SPACE);
			uint64_t vs = rnd_below(SPACE / 4);
			uint64_t fs = rnd_below(vs + 1);

			if (rnd_below(3) == 0)
				fs = vs; /* no .bss */
			vs = MIN(vs, SPACE - va);
			fs = MIN(fs, SPACE - off);
			dm_both(&b, va, vs, off, fs, k);
			for (x = 0; x < vs; x++)
				paint(bv, va + x,
				      x < MIN(vs, fs) ? off + x : NO, k);
			for (x = 0; x < fs; x++)
				paint(bf, off + x,
				      x < MIN(vs, fs) ? va + x : NO, k);
		}
		compare_model(b.vm, bv);
		compare_model(b.file, bf);
		dualmap_cursor_init(&cv, b.vm);
		dualmap_cursor_init(&cf, b.file);
		for (op = 0; op < 40; op++) {
			uint64_t a = rnd_below(SPACE);
			uint64_t size = rnd_below(SPACE / 8);
			uint32_t l = 100 + rnd_below(5);
			bool vm = rnd_below(2);
			struct model *from = vm ? bv : bf;
			struct model *same = vm ? dv : df;
			struct model *other = vm ? df : dv;

			/* half of them small ones just after the last, as a
			 * cursor's */
			if (rnd_below(2)) {
				/* not in MIN(), which reads it twice */
				a = last + rnd_below(8);
				a = MIN(a, SPACE - 1);
				size = rnd_below(8);
			}
			size = MIN(size, SPACE - a);
			last = a + size;
			if (rnd_below(2) && vm) {
				dualmap_add_vm_cursor(&d, &cv, a, size, l);
				dm_check(&d);
			} else if (rnd_below(2) && !vm) {
				dualmap_add_file_cursor(&d, &cf, a, size, l);
				dm_check(&d);
			} else if (vm) {
				dm_vm(&d, &b, a, size, l);
			} else {
				dm_file(&d, &b, a, size, l);
			}
			for (x = a; x < a + size; x++) {
				if (from->label[x] == NONE)
					continue;
				paint(same, x, from->other[x], l);
				if (from->other[x] != NO)
					paint(other, from->other[x], x, l);
			}
		}
		compare_model(d.vm, dv);
		compare_model(d.file, df);
		dualmap_free(&b);
		dualmap_free(&d);
		free(bv);
		free(bf);
		free(dv);
		free(df);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_random_single),
	    cmocka_unit_test(test_random_sorted_head),
	    cmocka_unit_test(test_random_runs),
	    cmocka_unit_test(test_random_tables),
	    cmocka_unit_test(test_random_rollup),
	    cmocka_unit_test(test_random_interleaved),
	    cmocka_unit_test(test_random_dualmap),
	};

	return test_run_group(tests, NULL, NULL);
}
