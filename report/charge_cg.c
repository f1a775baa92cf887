/* charge_cg.c — the memory cgroup charges of a report (see reportctx.h
 * and cgcharge.h): read them before pass 2, and after it, in a -G
 * recording, add the rows of the charge no process maps so that the
 * TOTAL of CHARGE is the cgroup's charge. */
#include "config.h"

#include "report/reportctx.h"

#include "report/cgcharge.h"
#include "report/filter.h"
#include "util/util.h"

#include <errno.h>
#include <stdlib.h>

void charge_cg_begin(struct report_ctx *c)
{
	c->payer_label = LABEL_NONE;
	c->cg = cgcharge_new(c->lb);
}

void charge_cg_setup(struct report_ctx *c)
{
	c->cg = cgcharge_finish(c->cg, c->page_size);
	if (!c->cg)
		c->res->unknown_cols |= 1u << COL_CHARGE;
	c->res->cgroup_charge = cgcharge_accounts(c->cg);
}

/* The kernel rows of tree t at time (absolute, ns); notes say what could
 * not be explained (*walk: the walk's note, kept once). */
static void finish_tree(struct report_ctx *c, struct rowtree *t,
			uint32_t step, uint64_t time, bool *missing,
			uint64_t *over, char **walk)
{
	uint64_t o = 0;
	char *note = NULL;

	if (cgcharge_kernel_rows(c->cg, t, c->o->nkeys, step, time, &o,
				 &note) < 0)
		*missing = true;
	*over = MAX(*over, o);
	if (note && !*walk)
		*walk = note;
	else
		free(note);
}

void charge_cg_finish(struct report_ctx *c, const bool *chosen)
{
	struct report_result *res = c->res;
	bool missing = false;
	uint64_t over = 0, latest = 0;
	char buf[32], *walk = NULL;

	if (!cgcharge_accounts(c->cg))
		return;
	if (!filter_empty(c->o->filter)) {
		strlist_add(&res->notes,
			    xstrdup("CHARGE: with --filter, the cgroup's "
				    "charge no process maps (kernel memory, "
				    "page cache, [unexplained]) is left out"));
		return;
	}
	if (c->o->pick == PICK_ALL) {
		for (size_t s = 0; s < res->nsteps; s++)
			finish_tree(c, res->steps[s].t, (uint32_t)s,
				    res->steps[s].time_last + c->start_ns,
				    &missing, &over, &walk);
	} else {
		for (size_t i = 0; i < c->nsnaps; i++)
			if (chosen[i])
				latest = MAX(latest, c->snaps[i].time);
		finish_tree(c, c->t, 0, latest, &missing, &over, &walk);
	}
	if (walk)
		strlist_add(&res->notes, walk);
	if (missing)
		strlist_add(&res->notes,
			    xstrdup("CHARGE: the cgroup's (or machine's) "
				    "counters were not recorded after a "
				    "snapshot: kernel memory, page cache and "
				    "[unexplained] are left out there"));
	if (over) {
		fmt_human(buf, sizeof(buf), (double)over);
		strlist_add(&res->notes,
			    xasprintf("CHARGE: the pages the processes map "
				      "exceed the charge by %s "
				      "(memory.stat can lag the charge by "
				      "seconds, and anonymous pages charged "
				      "before a process joined the cgroup "
				      "are taken as its own)", buf));
	}
}
