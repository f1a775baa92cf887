/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rmappriv.h — the insides of a RangeMap, shared by rangemap.c (adds,
 * settling, lookups) and rmaptable.c (tables, walks). Private to maps/. */
#ifndef MEMSZ_MAPS_RMAPPRIV_H
#define MEMSZ_MAPS_RMAPPRIV_H

#include "maps/labels.h"
#include "maps/rangemap.h"

#define NO RMAP_NO_TRANSLATION

/* A settled entry's label with this bit (and not LABEL_NONE) is a table
 * (rmap_add_table()): the rest of it indexes rmap.tab, and the label of
 * each byte is that of the element holding it. Labels of labels.c stay
 * far below it. */
#define TAB_BIT LABEL_ID_LIMIT

static inline bool is_tab(uint32_t label)
{
	return (label & TAB_BIT) && label != LABEL_NONE;
}

/* A table of rmap_add_table(): element k < n is [tab_at(t, k),
 * tab_at(t, k + 1)) and has label l->id[first + k]. Its holes (LABEL_NONE) are
 * not in it as added; settling may join the bytes later adds gave them
 * to its entries, all of one label: fill (LABEL_NONE until then). */
struct rtab {
	uint64_t start, stride, n;
	struct rmap_labels *l;
	size_t first;
	uint32_t fill;
	uint64_t hint; /* with bounds: the element tab_index() found last */
};

struct pend {
	uint64_t start;
	uint64_t end; /* for an open add: its limit */
	uint64_t other;
	uint32_t label;
	uint32_t seq; /* order of arrival, and PEND_OPEN for an open add */
};

/* The top bit of pend.seq marks an open add; the others number the adds
 * of a batch in order of arrival (settling sorts them in place). */
#define PEND_OPEN 0x80000000u
#define PEND_SEQ(a) ((a)->seq & ~PEND_OPEN)
#define PEND_IS_OPEN(a) (((a)->seq & PEND_OPEN) != 0)

struct rmap {
	struct rmap_entry *ent; /* settled, sorted, disjoint */
	size_t n, cap;

	struct pend *pend; /* pending adds in order of arrival */
	size_t np, pcap;
	size_t pready;	  /* pend[0, pready) is resident (prefaulted) */
	bool pend_sorted; /* pending starts are non-decreasing */
	bool pend_open;	  /* some pending add is open */
	bool frozen;	  /* not settled: see rmap_freeze() */

	uint64_t *starts; /* sorted unique starts of settled adds */
	size_t nstarts;
	/* takes no open adds (a DualMap's): keeps no starts, which only
	 * open adds need */
	bool no_open;

	uint64_t *top; /* end of each block of 2^TOP_SHIFT entries */
	size_t ntop;

	struct rtab *tab; /* the tables entries may name (TAB_BIT) */
	size_t ntab, tabcap;

	size_t np_checked; /* pending adds rmap_check has seen */
	bool ent_checked;  /* rmap_check has seen the settled entries */
};

/* Where element k (0 <= k <= t->n: the end for n) of t starts. */
static inline uint64_t tab_at(const struct rtab *t, uint64_t k)
{
	if (t->stride)
		return t->start + k * t->stride;
	return t->start + t->l->at[t->first + k] - t->l->at[t->first];
}

/* The element of t that holds addr (t->start <= addr < tab_at(t, t->n)):
 * of bounds, the last that starts at or before it (never an empty one),
 * looked for a few steps on from the last one found (walks go forward),
 * else by bisection. */
static inline uint64_t tab_index(struct rtab *t, uint64_t addr)
{
	const uint64_t *at;
	uint64_t rel, lo = t->hint, n = t->n;

	if (t->stride)
		return (addr - t->start) / t->stride;
	at = t->l->at + t->first;
	rel = addr - t->start + at[0];
	if (lo < n && at[lo] <= rel) {
		for (int step = 0; step < 4 && lo + 1 < n && at[lo + 1] <= rel;
		     step++)
			lo++;
		if (rel < at[lo + 1]) {
			t->hint = lo;
			return lo;
		}
	}
	lo = 0;
	while (n > 1) { /* at[lo] <= rel < at[lo + n] */
		uint64_t half = n / 2;

		if (at[lo + half] <= rel) {
			lo += half;
			n -= half;
		} else {
			n = half;
		}
	}
	t->hint = lo;
	return lo;
}

/* The label of the byte at addr of settled entry e of m (e->start <= addr
 * < e->end) and, in *end, the end of the element holding it (e->end for
 * an entry that is not a table). */
static inline uint32_t rmap_label_at(const struct rmap *m,
				     const struct rmap_entry *e, uint64_t addr,
				     uint64_t *end)
{
	struct rtab *t; /* its hint is a cache */
	uint64_t k, x;

	if (!is_tab(e->label)) {
		*end = e->end;
		return e->label;
	}
	t = &m->tab[e->label & ~TAB_BIT];
	k = tab_index(t, addr);
	x = tab_at(t, k + 1);
	*end = x < e->end ? x : e->end;
	return t->l->id[t->first + k] != LABEL_NONE ? t->l->id[t->first + k]
						    : t->fill;
}

/* Settle m (rangemap.c); index of its first settled entry with end > addr
 * (m->n if none); the index of block ends rebuilt after m->ent changed. */
void rmap_settle(struct rmap *m);
size_t rmap_find_raw(const struct rmap *m, uint64_t addr);
void rmap_build_top(struct rmap *m);

/* Add [s, e) (s < e, translated to other) labelled label, which may be
 * a table's (rmap_add_translated() refuses those). */
void rmap_add_raw(struct rmap *m, uint64_t s, uint64_t e, uint64_t other,
		  uint32_t label);

/* rmap_sum_labels() of [s, x) (s < x), bytes of table label (is_tab())
 * of m: each element's bytes to its label, a hole's to the table's fill
 * (rmaptable.c). Returns 0 or -1 as rmap_sum_labels(). */
int rmap_table_sums(const struct rmap *m, uint32_t label, uint64_t s,
		    uint64_t x, uint64_t (*sums)[2], size_t nsums, int col);

/* Add the bytes [s, x) (s < x) of a settled entry or an add of m
 * labelled label to sums[label][col], a table's (is_tab()) element by
 * element: the step of rmap_sum_labels() and rmap_sum_ranges(). Returns
 * 0, or -1 for a label of nsums or more. */
static inline int rmap_sum_piece(const struct rmap *m, uint32_t label,
				 uint64_t s, uint64_t x, uint64_t (*sums)[2],
				 size_t nsums, int col)
{
	if (is_tab(label))
		return rmap_table_sums(m, label, s, x, sums, nsums, col);
	if (label >= nsums)
		return -1;
	sums[label][col] += x - s;
	return 0;
}

/* Drop m's tables (rmaptable.c). */
void rmap_tables_free(struct rmap *m);

/* Sort the pending adds a[0, n) by (start, seq) in place (pendsort.c). */
void rmap_pend_sort(struct pend *a, size_t n);

#endif
