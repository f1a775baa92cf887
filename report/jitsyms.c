// SPDX-License-Identifier: GPL-2.0-or-later
/* jitsyms.c — see jitsyms.h */
#include "config.h"

#include "report/jitsyms.h"

#include <stdlib.h>

#include "util/util.h"

struct jit_ent {
	uint64_t start, size;
	uint32_t label;
};

struct jit_pid {
	uint32_t pid;
	struct jit_ent *ents; /* in the order written */
	size_t n, cap;
	struct rmap *map; /* built from ents on first lookup */
};

struct jitsyms {
	struct labels *lb;
	struct jit_pid *pids;
	size_t npids, cap;
	size_t nsyms;
};

struct jitsyms *jitsyms_new(struct labels *lb)
{
	struct jitsyms *j = xcalloc(1, sizeof(*j));

	j->lb = lb;
	return j;
}

void jitsyms_free(struct jitsyms *j)
{
	if (!j)
		return;
	for (size_t i = 0; i < j->npids; i++) {
		free(j->pids[i].ents);
		rmap_free(j->pids[i].map);
	}
	free(j->pids);
	free(j);
}

static struct jit_pid *pid_find(struct jitsyms *j, uint32_t pid)
{
	for (size_t i = 0; i < j->npids; i++)
		if (j->pids[i].pid == pid)
			return &j->pids[i];
	return NULL;
}

void jitsyms_add(struct jitsyms *j, const struct md_jitmap *m)
{
	struct jit_pid *p = pid_find(j, m->pid);

	if (!p) {
		xgrow(&j->pids, &j->cap, j->npids + 1, sizeof(*j->pids));
		p = &j->pids[j->npids++];
		*p = (struct jit_pid){.pid = m->pid};
	}
	rmap_free(p->map);
	p->map = NULL;
	xgrow(&p->ents, &p->cap, p->n + m->nsyms, sizeof(*p->ents));
	for (uint32_t i = 0; i < m->nsyms; i++)
		p->ents[p->n++] = (struct jit_ent){
		    .start = m->syms[i].start,
		    .size = m->syms[i].size,
		    .label = labels_intern(j->lb, m->syms[i].name),
		};
	j->nsyms += m->nsyms;
}

struct rmap *jitsyms_map(struct jitsyms *j, uint32_t pid)
{
	struct jit_pid *p = pid_find(j, pid);

	if (!p || !p->n)
		return NULL;
	if (!p->map) {
		/* first writer wins in a RangeMap: the last symbol goes in
		 * first */
		p->map = rmap_new();
		for (size_t i = p->n; i-- > 0;)
			rmap_add(p->map, p->ents[i].start, p->ents[i].size,
				 p->ents[i].label);
	}
	return p->map;
}

uint32_t jitsyms_lookup(struct jitsyms *j, uint32_t pid, uint64_t addr)
{
	struct rmap *m = jitsyms_map(j, pid);

	return m ? rmap_lookup(m, addr, NULL) : LABEL_NONE;
}

size_t jitsyms_count(const struct jitsyms *j, size_t *npids)
{
	if (npids)
		*npids = j->npids;
	return j->nsyms;
}
