// SPDX-License-Identifier: GPL-2.0-or-later
/* tmpl.c — see tmpl.h */
#include "config.h"

#include "report/tmpl.h"

#include <stdlib.h>
#include <string.h>

#include "maps/labels.h"
#include "util/util.h"

static int tmpl_add(void *arg, const uint32_t *labels, uint64_t start,
		    uint64_t end)
{
	struct tmpl *tm = arg;

	(void)end;
	tm->bound[tm->n] = start;
	memcpy(tm->lab + tm->n * tm->k, labels, tm->k * sizeof(*labels));
	tm->n++;
	return 0;
}

/* True if [s, e) was walked before while tm had no template (remembered
 * now if not), or many ranges were and owner is another than the first. */
static bool tmpl_seen(struct tmpl *tm, uint64_t s, uint64_t e, uint64_t owner)
{
	for (size_t i = 0; i < tm->nseen; i++)
		if (tm->seen[i][0] == s && tm->seen[i][1] == e)
			return true;
	if (!tm->nseen)
		tm->owner = owner;
	if (tm->nseen == TMPL_SEEN)
		return owner != tm->owner; /* many ranges, walked again */
	tm->seen[tm->nseen][0] = s;
	tm->seen[tm->nseen][1] = e;
	tm->nseen++;
	return false;
}

const struct tmpl *tmpl_get(struct tmpl *tm, struct rmap *const *maps, size_t k,
			    uint64_t s, uint64_t e, uint64_t owner)
{
	uint64_t lo = UINT64_MAX, hi = 0;
	size_t cap = 0;

	if (tm->bound && tm->k == k &&
	    !memcmp(tm->maps, maps, k * sizeof(*maps)))
		return tm;
	if (k > RMAP_ROLLUP_MAX || !tmpl_seen(tm, s, e, owner))
		return NULL;
	free(tm->bound);
	free(tm->lab);
	memcpy(tm->maps, maps, k * sizeof(*maps));
	tm->k = k;
	tm->n = 0;
	for (size_t i = 0; i < k; i++) {
		size_t n;
		const struct rmap_entry *ent = rmap_entries(maps[i], &n);

		if (!n)
			continue;
		lo = MIN(lo, ent[0].start);
		hi = MAX(hi, ent[n - 1].end);
		cap += 2 * n; /* each entry cuts at most twice */
	}
	tm->bound = xmalloc((cap + 1) * sizeof(*tm->bound));
	tm->lab = xmalloc((cap ? cap : 1) * (k ? k : 1) * sizeof(*tm->lab));
	if (lo < hi) {
		rmap_rollup(maps, k, lo, hi, tmpl_add, tm);
		tm->bound[tm->n] = hi;
	} else {
		tm->bound[0] = 0;
	}
	return tm;
}

void tmpl_free(struct tmpl *tm)
{
	free(tm->bound);
	free(tm->lab);
	memset(tm, 0, sizeof(*tm));
}

int tmpl_rollup(const struct tmpl *tm, uint64_t start, uint64_t end, tmpl_fn fn,
		void *arg)
{
	uint32_t none[RMAP_ROLLUP_MAX];
	uint64_t lo = tm->bound[0], hi = tm->bound[tm->n], pos = start;
	size_t i, l = 0, h = tm->n;
	int ret = 0;

	for (size_t k = 0; k < tm->k; k++)
		none[k] = LABEL_NONE;
	if (!tm->n || pos < lo) {
		uint64_t e = tm->n ? MIN(end, lo) : end;

		ret = fn(arg, none, pos, e, UINT32_MAX);
		pos = e;
	}
	while (l < h) { /* first piece ending after pos */
		size_t mid = l + (h - l) / 2;

		if (tm->bound[mid + 1] <= pos)
			l = mid + 1;
		else
			h = mid;
	}
	for (i = l; !ret && i < tm->n && pos < end; i++) {
		uint64_t e = MIN(end, tm->bound[i + 1]);

		ret = fn(arg, tm->lab + i * tm->k, pos, e, (uint32_t)i);
		pos = e;
	}
	if (!ret && pos < end && tm->n && pos >= hi)
		ret = fn(arg, none, pos, end, UINT32_MAX);
	return ret;
}
