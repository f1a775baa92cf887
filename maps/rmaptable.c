// SPDX-License-Identifier: GPL-2.0-or-later
/* rmaptable.c — the tables of a RangeMap (rmap_add_table()) and the walks
 * that see through them (rmap_foreach(), rmap_rollup(), rmap_entries()).
 *
 * A table's labelled elements go in as one add per run of them, labelled
 * TAB_BIT | its index in m->tab: settling moves them about as any add
 * (first writer wins, byte by byte), and the label of a byte is looked up
 * in the table's ids by its element, (addr - start) / stride. The walks
 * see the map as it would be had each element been added on its own: a
 * run of bytes of one label and contiguous translation, through elements
 * and entries alike, is one piece (vrun()), as settling merges entries. */
#include "maps/rmappriv.h"

#include <stdlib.h>
#include <string.h>

#include "util/util.h"

struct rmap_labels *rmap_labels_new(size_t n)
{
	struct rmap_labels *l = xmalloc(sizeof(*l) + n * sizeof(l->id[0]));

	l->refs = 1;
	l->n = n;
	l->at = NULL;
	for (size_t i = 0; i < n; i++)
		l->id[i] = LABEL_NONE;
	return l;
}

struct rmap_labels *rmap_labels_new_at(size_t n)
{
	struct rmap_labels *l = rmap_labels_new(n);

	l->at = xcalloc(n + 1, sizeof(*l->at));
	return l;
}

void rmap_labels_put(struct rmap_labels *l)
{
	if (l && !--l->refs) {
		free(l->at);
		free(l);
	}
}

/* Are the n + 1 bounds of a table from first usable? */
static bool bounds_ok(const struct rmap_labels *l, size_t first, size_t n)
{
	if (!l->at)
		return false;
	for (size_t k = first; k < first + n; k++)
		if (l->at[k + 1] < l->at[k])
			return false;
	return true;
}

void rmap_tables_free(struct rmap *m)
{
	for (size_t i = 0; i < m->ntab; i++)
		rmap_labels_put(m->tab[i].l);
	free(m->tab);
	m->tab = NULL;
	m->ntab = 0;
	m->tabcap = 0;
}

void rmap_add_table(struct rmap *m, uint64_t start, uint64_t stride, size_t n,
		    uint64_t other, struct rmap_labels *l, size_t first)
{
	struct rtab t = {start, stride, n, l, first, LABEL_NONE, 0};
	uint64_t span;
	uint32_t tid;
	size_t k = 0;

	if (!n || first > l->n || n > l->n - first ||
	    (stride ? n > UINT64_MAX / stride : !bounds_ok(l, first, n)))
		return;
	span = stride ? n * stride : l->at[first + n] - l->at[first];
	if (span > UINT64_MAX - start ||
	    (other != NO && span > UINT64_MAX - other))
		return;
	if (!m->no_open) {
		/* open adds end at the next start of any add: of every
		 * element, which only adds of their own record */
		for (k = 0; k < n; k++) {
			uint64_t s = tab_at(&t, k);

			rmap_add_translated(m, s, tab_at(&t, k + 1) - s,
					    other == NO ? NO
							: other + (s - start),
					    l->id[first + k]);
		}
		return;
	}
	if (m->ntab >= TAB_BIT - 1)
		abort(); /* 2 billion tables: cannot happen */
	if (m->ntab >= m->tabcap)
		xgrow(&m->tab, &m->tabcap, m->ntab + 1, sizeof(*m->tab));
	tid = (uint32_t)m->ntab;
	m->tab[m->ntab++] = t;
	l->refs++;
	while (k < n) {
		uint64_t s, e;
		size_t r;

		if (l->id[first + k] == LABEL_NONE) {
			k++;
			continue;
		}
		for (r = k + 1; r < n && l->id[first + r] != LABEL_NONE; r++)
			;
		s = tab_at(&t, k);
		e = tab_at(&t, r);
		if (s < e)
			rmap_add_raw(m, s, e,
				     other == NO ? NO : other + (s - start),
				     TAB_BIT | tid);
		k = r;
	}
}

/* Does a run whose byte at start translates to other go on at byte x
 * with translation o? */
static inline bool run_contiguous(uint64_t start, uint64_t other, uint64_t x,
				  uint64_t o)
{
	if (other == NO || o == NO)
		return other == o;
	return other + (x - start) == o;
}

/* The end of the run of elements of label from end (an element's start
 * inside table entry e) on, e->end at most: the elements stepped through
 * without a division each. k: the element that starts at end, if the
 * caller knows it (label_at()), else UINT64_MAX. */
static inline uint64_t table_run(const struct rmap *m,
				 const struct rmap_entry *e, uint64_t end,
				 uint32_t label, uint64_t limit, uint64_t k)
{
	struct rtab *t = &m->tab[e->label & ~TAB_BIT];
	const uint32_t *id = t->l->id + t->first;
	uint64_t next;

	if (k == UINT64_MAX || !t->stride)
		k = tab_index(t, end);

	if (t->stride) {
		for (; end < e->end && end < limit; k++, end += t->stride)
			if ((id[k] != LABEL_NONE ? id[k] : t->fill) != label)
				return end;
		return end < e->end ? end : e->end;
	}
	for (; end < e->end && end < limit; k++, end = next) {
		next = tab_at(t, k + 1);
		if (next > end && /* not an empty element */
		    (id[k] != LABEL_NONE ? id[k] : t->fill) != label) {
			t->hint = k; /* where the next run starts */
			return end;
		}
	}
	return end < e->end ? end : e->end;
}

/* rmap_label_at() of byte addr of entry e, and *k: for an entry of a
 * table of fixed stride, the element that starts at *end if *end is
 * before e->end (the one after addr's), else UINT64_MAX. */
static inline uint32_t label_at(const struct rmap *m,
				const struct rmap_entry *e, uint64_t addr,
				uint64_t *end, uint64_t *k)
{
	const struct rtab *t;
	uint64_t x, el;
	uint32_t id;

	*k = UINT64_MAX;
	if (!is_tab(e->label) || !m->tab[e->label & ~TAB_BIT].stride)
		return rmap_label_at(m, e, addr, end);
	t = &m->tab[e->label & ~TAB_BIT];
	el = (addr - t->start) / t->stride;
	x = t->start + (el + 1) * t->stride;
	*end = x < e->end ? x : e->end;
	*k = el + 1;
	id = t->l->id[t->first + el];
	return id != LABEL_NONE ? id : t->fill;
}

/* The run from byte *pos on (or from the start of m->ent[*i] if *pos is
 * before it) of one label and contiguous translation, through the
 * elements of m->ent[*i] and the entries that follow it without a gap,
 * into *out; *i and *pos moved to its end (*i: the first entry that ends
 * after it). Requires *i < m->n and m->ent[*i].end > *pos. */
static void vrun(const struct rmap *m, size_t *i, uint64_t *pos, uint64_t limit,
		 struct rmap_entry *out)
{
	const struct rmap_entry *e = &m->ent[*i];
	uint64_t x = MAX(*pos, e->start), end, next, k;

	out->start = x;
	out->other = e->other == NO ? NO : e->other + (x - e->start);
	out->label = label_at(m, e, x, &end, &k);
	if (!m->ntab) { /* settled entries are runs already */
		end = e->end;
		(*i)++;
		goto done;
	}
	for (;;) {
		if (end < e->end) {
			end = table_run(m, e, end, out->label, limit, k);
			if (end < e->end)
				break;
		}
		if (end >= limit) {
			(*i)++;
			break;
		}
		(*i)++;
		if (*i >= m->n)
			break;
		e = &m->ent[*i];
		if (e->start != end ||
		    label_at(m, e, end, &next, &k) != out->label ||
		    !run_contiguous(out->start, out->other, end, e->other))
			break;
		end = next;
	}
done:
	out->end = end;
	*pos = end;
}

/* m's entries with the tables seen through, into a new array (caller
 * frees) of *n entries. */
static struct rmap_entry *runs(const struct rmap *m, size_t *n)
{
	struct rmap_entry *v = xmalloc((m->n ? m->n : 1) * sizeof(*v));
	size_t i = 0, cap = m->n ? m->n : 1;
	uint64_t pos = 0;

	*n = 0;
	while (i < m->n) {
		if (*n >= cap)
			xgrow(&v, &cap, *n + 1, sizeof(*v));
		vrun(m, &i, &pos, UINT64_MAX, &v[(*n)++]);
	}
	return v;
}

const struct rmap_entry *rmap_entries(struct rmap *m, size_t *n)
{
	rmap_settle(m);
	if (m->ntab) {
		size_t nv;
		struct rmap_entry *v = runs(m, &nv);

		free(m->ent);
		m->ent = v;
		m->n = nv;
		m->cap = m->n ? m->n : 1;
		/* adds held back by a freeze may still name the tables */
		if (!m->np)
			rmap_tables_free(m);
		rmap_build_top(m);
		m->ent_checked = false;
	}
	*n = m->n;
	return m->ent;
}

const struct rmap_entry *rmap_extents(struct rmap *m, size_t *n)
{
	rmap_settle(m);
	*n = m->n;
	return m->ent;
}

size_t rmap_count(struct rmap *m)
{
	size_t n;

	rmap_entries(m, &n);
	return n;
}

int rmap_foreach(struct rmap *m, uint64_t start, uint64_t end,
		 int (*fn)(void *arg, const struct rmap_entry *piece),
		 void *arg)
{
	uint64_t pos = start;
	size_t i;

	rmap_settle(m); /* an empty query settles too: see rangemap.h */
	if (start >= end)
		return 0;
	for (i = rmap_find_raw(m, start);
	     i < m->n && m->ent[i].start < end && pos < end;) {
		struct rmap_entry piece;
		int ret;

		vrun(m, &i, &pos, end, &piece);
		if (piece.end > end)
			piece.end = end;
		ret = fn(arg, &piece);
		if (ret)
			return ret;
	}
	return 0;
}

/* rmap_rollup()'s cursor in one map: the run at or after the walk's
 * position (have: there is one), the entry and byte it was found from */
struct cursor {
	struct rmap_entry run;
	bool have;
	size_t i;
	uint64_t pos;
};

static inline void cursor_next(const struct rmap *m, struct cursor *c,
			       uint64_t limit)
{
	c->have = c->i < m->n && c->pos < limit;
	if (c->have)
		vrun(m, &c->i, &c->pos, limit, &c->run);
}

int rmap_rollup(struct rmap *const *maps, size_t n, uint64_t start,
		uint64_t end,
		int (*fn)(void *arg, const uint32_t *labels, uint64_t start,
			  uint64_t end),
		void *arg)
{
	struct cursor cur[RMAP_ROLLUP_MAX];
	uint32_t labels[RMAP_ROLLUP_MAX] = {0};
	uint64_t pos = start;
	size_t k;

	if (n > RMAP_ROLLUP_MAX)
		return -1;
	for (k = 0; k < n; k++) {
		rmap_settle(maps[k]);
		cur[k].i = rmap_find_raw(maps[k], start);
		cur[k].pos = start;
		cursor_next(maps[k], &cur[k], end);
	}
	while (pos < end) {
		uint64_t next = end;
		int ret;

		for (k = 0; k < n; k++) {
			const struct rmap_entry *e = &cur[k].run;

			if (!cur[k].have) {
				labels[k] = LABEL_NONE;
			} else if (e->start <= pos) {
				labels[k] = e->label;
				next = MIN(next, e->end);
			} else {
				labels[k] = LABEL_NONE;
				next = MIN(next, e->start);
			}
		}
		ret = fn(arg, labels, pos, next);
		if (ret)
			return ret;
		pos = next;
		for (k = 0; k < n; k++)
			if (cur[k].have && cur[k].run.end <= pos)
				cursor_next(maps[k], &cur[k], end);
	}
	return 0;
}

int rmap_table_sums(const struct rmap *m, uint32_t label, uint64_t s,
		    uint64_t x, uint64_t (*sums)[2], size_t nsums, int col)
{
	struct rtab *t = &m->tab[label & ~TAB_BIT];
	const uint32_t *id = t->l->id + t->first;
	uint32_t fill = t->fill;
	uint64_t k = tab_index(t, s);

	if (t->stride) {
		uint64_t stride = t->stride, at = t->start + k * stride;

		for (; s < x; k++, at += stride) {
			uint64_t next = MIN(at + stride, x);
			uint32_t l = id[k] != LABEL_NONE ? id[k] : fill;

			if (l >= nsums)
				return -1;
			sums[l][col] += next - s;
			s = next;
		}
		return 0;
	}
	for (; s < x; k++) {
		uint64_t next = MIN(tab_at(t, k + 1), x);
		uint32_t l = id[k] != LABEL_NONE ? id[k] : fill;

		if (next == s)
			continue; /* an empty element */
		if (l >= nsums)
			return -1;
		sums[l][col] += next - s;
		s = next;
	}
	t->hint = k ? k - 1 : 0;
	return 0;
}

int rmap_sum_labels(struct rmap *m, uint64_t start, uint64_t end,
		    uint64_t (*sums)[2], size_t nsums, int col)
{
	uint64_t pos = start;

	rmap_settle(m);
	for (size_t i = rmap_find_raw(m, start); i < m->n && pos < end; i++) {
		const struct rmap_entry *e = &m->ent[i];
		uint64_t x = MIN(e->end, end);

		if (e->start > pos)
			return -1; /* a byte of no label */
		if (rmap_sum_piece(m, e->label, pos, x, sums, nsums, col))
			return -1;
		pos = x;
	}
	return pos < end ? -1 : 0;
}
