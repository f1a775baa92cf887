// SPDX-License-Identifier: GPL-2.0-or-later
/* charge_faults.c — pass 2 with keys that need fault samples: a part
 * charged in pieces cut where the stack that made its pages resident
 * changes (see reportctx.h). */
#include "config.h"

#include "report/reportctx.h"

#include "data/datafile.h"
#include "util/util.h"

/* --- fault samples: the stack that made each page resident --- */

/* The labels of the keys that need faults, for pages whose fault stack
 * is callers and its first frame of the program's site. */
static void set_fault_labels(struct report_ctx *c, uint32_t callers,
			     uint32_t site)
{
	c->at.callers = callers;
	c->at.site = site;
	for (size_t k = 0; k < c->o->nkeys; k++)
		if (keydefs[c->o->keys[k]].needs & KEY_NEEDS_FAULTS)
			c->fixed[k] = keydefs[c->o->keys[k]].label(&c->at);
}

/* A run of pages of one part with the same fault labels. */
struct fault_group {
	struct report_ctx *c;
	const struct attrib_part *p;
	const struct attrib_map *m;
	bool with_pss;
	uint64_t start, end;
	uint32_t callers, site;
	size_t run; /* first run that may overlap start */
	uint64_t page;
};

static int group_flush(struct fault_group *g)
{
	struct attrib_part sub = *g->p;
	struct attrib_map mm = *g->m;
	size_t last;

	if (g->end <= g->start)
		return 0;
	while (g->run < g->m->nruns &&
	       g->m->runs[g->run].vaddr +
		       (uint64_t)g->m->runs[g->run].npages * g->page <=
		   g->start)
		g->run++;
	last = g->run;
	while (last < g->m->nruns && g->m->runs[last].vaddr < g->end)
		last++;
	/* a mapping with no runs has runs == NULL: no pointer arithmetic */
	mm.runs = last > g->run ? g->m->runs + g->run : NULL;
	mm.nruns = last - g->run;
	sub.start = g->start;
	sub.end = g->end;
	set_fault_labels(g->c, g->callers, g->site);
	return charge_jit(g->c, &sub, &mm, g->with_pss);
}

/* Add [s, e) with labels (callers, site) to the group, flushing it first
 * if the labels change; a gap before s is "[no fault seen]". */
static int group_extend(struct fault_group *g, uint64_t s, uint64_t e,
			uint32_t callers, uint32_t site)
{
	uint32_t none = faults_none(g->c->faults);
	int ret;

	if (s > g->end) {
		ret = group_extend(g, g->end, s, none, none);
		if (ret)
			return ret;
	}
	if (callers != g->callers || site != g->site) {
		ret = group_flush(g);
		if (ret)
			return ret;
		g->start = s;
		g->callers = callers;
		g->site = site;
	}
	g->end = e;
	return 0;
}

/* attrib_charge() of part p, cut where the page's fault stack changes. */
int charge_by_fault(struct report_ctx *c, const struct attrib_part *p,
		    const struct attrib_map *m, bool with_pss)
{
	uint32_t none = faults_none(c->faults);
	struct fault_group g = {
	    .c = c,
	    .p = p,
	    .m = m,
	    .with_pss = with_pss,
	    .start = p->start,
	    .end = p->start,
	    .callers = none,
	    .site = none,
	    .page = c->page_size,
	};
	bool file = p->cls == ACLS_IMAGE || p->cls == ACLS_FILE ||
		    p->cls == ACLS_BROKEN;
	int ret;

	for (size_t i = 0; i < m->nruns; i++) {
		const struct md_run *r = &m->runs[i];
		uint64_t s = MAX(r->vaddr, p->start);
		uint64_t e =
		    MIN(r->vaddr + (uint64_t)r->npages * g.page, p->end);

		if (s >= e || s < g.end)
			continue;
		if (!(r->flags & (MD_PG_PRESENT | MD_PG_SWAPPED))) {
			ret = group_extend(&g, s, e, none, none);
			if (ret)
				return ret;
			continue;
		}
		for (uint64_t va = s; va < e; va += g.page) {
			uint32_t callers, site;
			uint64_t next = faults_next(
			    c->faults, c->cur_pid->kp.pid, va, e, file);

			/* pages no fault can name: one piece, not one
			 * look-up per page */
			if (next > va) {
				ret = group_extend(&g, va, next, none, none);
				if (ret)
					return ret;
				va = next - g.page;
				continue;
			}
			faults_page(c->faults, c->cur_pid->kp.pid, va, file,
				    &callers, &site);
			ret = group_extend(&g, va, MIN(va + g.page, e), callers,
					   site);
			if (ret)
				return ret;
		}
	}
	ret = group_extend(&g, p->end, p->end, none, none);
	if (!ret)
		ret = group_flush(&g);
	set_fault_labels(c, none, none);
	return ret;
}

int charge_read_faults(struct report_ctx *c, const bool *chosen, char **msg)
{
	struct md_reader *r = NULL;
	struct md_record rec;
	int ret;

	for (size_t i = 0; i < c->nsnaps; i++)
		if (chosen[i])
			faults_set_limit(c->faults, c->snaps[i].pid,
					 c->snaps[i].time);
	ret = md_reader_open(c->o->input, &r);
	if (ret < 0) {
		*msg = xasprintf("cannot read '%s': %s", c->o->input,
				 memsz_strerror(ret));
		return ret;
	}
	while ((ret = md_read_next(r, &rec)) > 0)
		if (rec.type == MD_REC_SAMPLE)
			faults_add_sample(c->faults, &rec.u.sample);
	md_reader_close(r);
	return 0; /* a damaged tail was noted in pass 1 */
}
