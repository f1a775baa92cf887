// SPDX-License-Identifier: GPL-2.0-or-later
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

void charge_cg_tree(struct report_ctx *c, struct rowtree *t, uint32_t point,
		    uint64_t time)
{
	uint64_t o = 0, tag = t->tag;
	char *note = NULL;
	int ret;

	if (!cgcharge_accounts(c->cg) || !filter_empty(c->o->filter))
		return;
	/* no process holds kernel memory, page cache no process maps or
	 * [free]: the rows of them count no process in PROCS, and the tag
	 * of the last snapshot charged must not reach them */
	rowtree_set_tag(t, 0);
	ret =
	    cgcharge_kernel_rows(c->cg, t, c->o->nkeys, point, time, &o, &note);
	rowtree_set_tag(t, tag);
	if (ret < 0)
		c->cg_missing = true;
	c->cg_over = MAX(c->cg_over, o);
	if (note && !c->cg_walk)
		c->cg_walk = note;
	else
		free(note);
}

void charge_cg_finish(struct report_ctx *c, const bool *chosen)
{
	struct report_result *res = c->res;
	uint64_t latest = 0;
	char buf[32];

	if (!cgcharge_accounts(c->cg))
		return; /* no -G or -a: no charge to account */
	/* kpagecgroup is read by page frame number: without them every
	 * page was taken as its process's cgroup's */
	if (!res->have_pss)
		strlist_add(&res->notes,
			    xstrdup("CHARGE: recorded without page frame "
				    "numbers (needs CAP_SYS_ADMIN): which "
				    "cgroup pays for each page is unknown, "
				    "each is taken as its process's own "
				    "cgroup's"));
	if (!filter_empty(c->o->filter)) {
		strlist_add(&res->notes,
			    xstrdup("CHARGE: with --filter, the cgroup's "
				    "charge no process maps (kernel memory, "
				    "page cache, [unexplained]) is left out"));
		return;
	}
	if (c->o->pick != PICK_ALL) { /* PICK_ALL: done point by point */
		for (size_t i = 0; i < c->nsnaps; i++)
			if (chosen[i])
				latest = MAX(latest, c->snaps[i].time);
		charge_cg_tree(c, c->t, 0, latest);
	}
	if (cgcharge_shm_unsized(c->cg))
		strlist_add(&res->notes,
			    xstrdup("FILE SIZE: the page cache rows of shared "
				    "memory (/dev/shm, memfd, SysV) have "
				    "none, as their mappings have none"));
	if (c->cg_walk) {
		strlist_add(&res->notes, c->cg_walk);
		c->cg_walk = NULL;
	}
	if (c->cg_missing)
		strlist_add(&res->notes,
			    xstrdup("CHARGE: the cgroup's (or machine's) "
				    "counters were not recorded after a "
				    "snapshot: kernel memory, page cache and "
				    "[unexplained] are left out there"));
	if (c->cg_over && !res->have_pss) {
		fmt_human(buf, sizeof(buf), (double)c->cg_over);
		strlist_add(&res->notes,
			    xasprintf("CHARGE: the pages the processes map "
				      "exceed the charge by %s (the cgroups "
				      "that pay for them are unknown)",
				      buf));
	} else if (c->cg_over) {
		/* each page's cgroup was read (kpagecgroup): what is left is
		 * the counters of another moment than the snapshots' */
		fmt_human(buf, sizeof(buf), (double)c->cg_over);
		strlist_add(&res->notes,
			    xasprintf("CHARGE: the pages the processes map "
				      "exceed the charge by %s (the %s, read "
				      "after the snapshots, %s)",
				      buf,
				      cgcharge_group(c->cg)
					  ? "cgroup's counters"
					  : "machine's /proc/meminfo",
				      cgcharge_group(c->cg)
					  ? "no longer held what the processes "
					    "freed meanwhile, and memory.stat "
					    "can lag the charge by seconds"
					  : "no longer held what the processes "
					    "freed meanwhile"));
	}
}
