/* charge.c — pass 2 of a report: the pages of the chosen snapshots
 * charged to rows, label by label (see reportctx.h). A piece's labels come
 * from the image maps of the image keys (attrib_charge) and from the label
 * hooks of the others (keys.h); a file counts once per row however many
 * processes map it; under the symbols key JIT code is named by the
 * process's perf-PID.map; with fault keys a part is cut where the stack
 * that made its pages resident changes. */
#include "config.h"

#include "report/reportctx.h"

#include "report/cgcharge.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "data/datafile.h"
#include "util/hashmap.h"
#include "util/util.h"

/* --- pass 2: the chosen snapshots' mappings --- */

/* Remember that a kept row came from label id (a subject of notes). */
static void mark_shown(struct report_ctx *c, uint32_t id)
{
	if (id == LABEL_NONE)
		return;
	if (id >= c->showncap) {
		size_t old = c->showncap;

		xgrow(&c->shown, &c->showncap, (size_t)id + 1, 1);
		memset(c->shown + old, 0, c->showncap - old);
	}
	c->shown[id] = 1;
}

/* Add the RSS of a piece under a fallback label (size.h) to its key. */
static void count_fallback(struct report_ctx *c, const uint32_t *path,
			   const uint64_t *vals)
{
	c->rss += vals[COL_RSS];
	for (size_t i = 0; i < c->o->nkeys && vals[COL_RSS]; i++)
		if (keys_label_is_fallback(c->o->keys[i],
					   labels_str(c->lb, path[i])))
			c->fallback_rss[i] += vals[COL_RSS];
}

/* The labels of the keys labelled by their hook (not by an image map)
 * for part p of mapping m of the current process. The fault keys get the
 * "[no fault seen]" label here: theirs are set per page (set_fault_labels).
 */
static void hook_labels(struct report_ctx *c, const struct attrib_map *m,
			const struct attrib_part *p)
{
	c->at.map = m;
	c->at.file_label = p->file_label;
	for (size_t k = 0; k < c->o->nkeys; k++)
		if (c->src_of_key[k] < 0)
			c->fixed[k] = keydefs[c->o->keys[k]].label(&c->at);
}


static int add_piece(void *arg, const uint32_t *labels, const uint64_t *vals)
{
	struct report_ctx *c = arg;
	uint32_t path[KEYS_MAX];

	for (size_t i = 0; i < c->o->nkeys; i++) {
		path[i] = c->src_of_key[i] >= 0 ? labels[c->src_of_key[i]] :
						  c->fixed[i];
		if (c->jit_label != LABEL_NONE &&
		    (keydefs[c->o->keys[i]].needs & KEY_NEEDS_JIT))
			path[i] = c->jit_label;
	}
	if (c->payer_label != LABEL_NONE)
		cgcharge_relabel(c->cg, c->payer_label, path, c->o->nkeys);
	if (!filter_keep(c->o->filter, c->lb, path, c->o->nkeys))
		return 0;
	rowtree_add_from(c->t, path, vals, c->share_cols, c->share_from);
	count_fallback(c, path, vals);
	mark_shown(c, c->cur_subject[0]);
	mark_shown(c, c->cur_subject[1]);
	return 0;
}

/* Insert k into s; true if it was not there. */
static bool share_insert(struct share_set *s, const struct share_key *k)
{
	struct hashmap_probe p;
	uint32_t i;

	/* keys are hashed and compared as bytes: share_level zeroes their
	 * padding */
	for (i = hashmap_first(&s->index, hashmap_hash_bytes(k, sizeof(*k)),
			       &p);
	     i != HASHMAP_NONE; i = hashmap_next(&s->index, &p))
		if (!memcmp(&s->keys[i], k, sizeof(*k)))
			return false;
	xgrow(&s->keys, &s->cap, s->n + 1, sizeof(*s->keys));
	s->keys[s->n] = *k;
	hashmap_put(&s->index, &p, (uint32_t)s->n++);
	return true;
}

/* The first level (0: the TOTAL, d: the rows of key d-1 and below) at
 * which a walk of image_id over file range [off, end) is news, given the
 * labels of the current process keys; nkeys + 1 if it is news nowhere
 * (charged already with the same labels). vm: a VM walk. */
static size_t share_level(struct report_ctx *c, uint32_t image_id,
			  uint64_t off, uint64_t end, bool vm)
{
	struct share_key k;
	size_t from = c->o->nkeys + 1;

	memset(&k, 0, sizeof(k)); /* padding too: keys are hashed as bytes */
	k.image_id = image_id;
	k.step = c->step;
	k.off = off;
	k.end = end;
	for (size_t d = 0; d <= c->o->nkeys; d++) {
		if (d) {
			size_t i = d - 1;

			k.labels[i] = c->src_of_key[i] < 0 ? c->fixed[i] : 0;
		}
		k.level = (uint32_t)d | (vm ? SHARE_VM : 0);
		if (share_insert(&c->shared, &k) && from > d)
			from = d;
	}
	if (from > 0)
		c->shared_once = true;
	return from;
}

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

/* --- JIT code: anonymous memory named by perf-PID.map symbols --- */

/* attrib_charge() of [s, e) of part p of mapping m (runs sorted by
 * address), symbols labelled jit_label when it is not LABEL_NONE. */
static int charge_range(struct report_ctx *c, const struct attrib_part *p,
			const struct attrib_map *m, uint64_t s, uint64_t e,
			bool with_pss, uint32_t jit_label)
{
	struct attrib_part sub = *p;
	struct attrib_map mm = *m;
	size_t lo = 0, hi = m->nruns, last;
	int ret;

	if (e <= s)
		return 0;
	while (lo < hi) { /* first run ending after s */
		size_t mid = lo + (hi - lo) / 2;
		const struct md_run *r = &m->runs[mid];

		if (r->vaddr + (uint64_t)r->npages * c->page_size <= s)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (last = lo; last < m->nruns && m->runs[last].vaddr < e; last++)
		;
	mm.runs = m->nruns ? m->runs + lo : NULL;
	mm.nruns = last - lo;
	sub.start = s;
	sub.end = e;
	c->jit_label = jit_label;
	ret = attrib_charge(c->a, &sub, &mm, c->srcs, c->nsrcs, with_pss,
			    add_piece, c);
	c->jit_label = LABEL_NONE;
	return ret;
}

/* attrib_charge() of part p of mapping m; under the symbols key, the bytes
 * of anonymous memory that hold JIT code of the process are charged to the
 * JIT symbols there. */
static int charge_jit(struct report_ctx *c, const struct attrib_part *p,
		       const struct attrib_map *m, bool with_pss)
{
	struct rmap *jm = c->want_jit && p->cls == ACLS_ANON ?
				  jitsyms_map(c->jit, c->cur_pid->kp.pid) :
				  NULL;
	const struct rmap_entry *ents;
	uint64_t pos = p->start;
	size_t n, i;
	int ret = 0;

	if (!jm)
		return attrib_charge(c->a, p, m, c->srcs, c->nsrcs, with_pss,
				     add_piece, c);
	ents = rmap_entries(jm, &n);
	for (i = rmap_find(jm, p->start); i < n && !ret; i++) {
		uint64_t s = MAX(ents[i].start, p->start);
		uint64_t e = MIN(ents[i].end, p->end);

		if (s >= p->end)
			break;
		ret = charge_range(c, p, m, pos, s, with_pss, LABEL_NONE);
		if (!ret)
			ret = charge_range(c, p, m, s, e, with_pss,
					   ents[i].label);
		pos = e;
	}
	if (!ret)
		ret = charge_range(c, p, m, pos, p->end, with_pss, LABEL_NONE);
	return ret;
}

/* A run of pages of one part with the same fault labels. */
struct fault_group {
	struct report_ctx *c;
	const struct attrib_part *p;
	const struct attrib_map *m;
	bool with_pss;
	uint64_t start, end;
	uint32_t callers, site;
	size_t run;               /* first run that may overlap start */
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
static int charge_by_fault(struct report_ctx *c, const struct attrib_part *p,
			   const struct attrib_map *m, bool with_pss)
{
	uint32_t none = faults_none(c->faults);
	struct fault_group g = {
		.c = c, .p = p, .m = m, .with_pss = with_pss,
		.start = p->start, .end = p->start,
		.callers = none, .site = none, .page = c->page_size,
	};
	bool file = p->cls == ACLS_IMAGE || p->cls == ACLS_FILE ||
		    p->cls == ACLS_BROKEN;
	int ret;

	for (size_t i = 0; i < m->nruns; i++) {
		const struct md_run *r = &m->runs[i];
		uint64_t s = MAX(r->vaddr, p->start);
		uint64_t e = MIN(r->vaddr + (uint64_t)r->npages * g.page,
				 p->end);

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
			uint64_t next = faults_next(c->faults,
						    c->cur_pid->kp.pid, va, e,
						    file);

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
			ret = group_extend(&g, va, MIN(va + g.page, e),
					   callers, site);
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

/* Part p of mapping m charged as it is (by fault stack or JIT symbols). */
static int charge_plain(struct report_ctx *c, const struct attrib_part *p,
			const struct attrib_map *m, bool with_pss)
{
	return c->faults ? charge_by_fault(c, p, m, with_pss) :
			   charge_jit(c, p, m, with_pss);
}

/* -G: part p of mapping m cut where the cgroup paying for its pages
 * changes (ATTRIB_PG_ELSEWHERE runs, cgcharge.h); what another cgroup
 * pays for is charged under "[charged elsewhere]", by image maps only. */
static int charge_by_payer(struct report_ctx *c, const struct attrib_part *p,
			   const struct attrib_map *m, bool with_pss)
{
	uint64_t pos = p->start;
	bool any = false;
	int ret = 0;

	for (size_t i = 0; i < m->nruns && !any; i++)
		any = m->runs[i].flags & ATTRIB_PG_ELSEWHERE;
	if (!any)
		return charge_plain(c, p, m, with_pss);
	for (size_t i = 0; i < m->nruns && !ret; i++) {
		const struct md_run *r = &m->runs[i];
		uint64_t s = MAX(r->vaddr, p->start);
		uint64_t e = MIN(r->vaddr + (uint64_t)r->npages * c->page_size,
				 p->end);

		if (s >= e || !(r->flags & ATTRIB_PG_ELSEWHERE))
			continue;
		ret = charge_range(c, p, m, pos, s, with_pss, LABEL_NONE);
		c->payer_label = cgcharge_payer(c->cg, r->reserved);
		if (!ret)
			ret = charge_range(c, p, m, s, e, with_pss, LABEL_NONE);
		c->payer_label = LABEL_NONE;
		pos = e;
	}
	if (!ret)
		ret = charge_range(c, p, m, pos, p->end, with_pss, LABEL_NONE);
	return ret;
}

/* Charge the resident pages and VM of part p of mapping m. The VM SIZE of
 * a file mapping counts once per row however many processes map it. */
static int charge_part(struct report_ctx *c, const struct attrib_part *p,
		       const struct attrib_map *m, bool with_pss)
{
	int ret;

	c->share_cols = 0;
	c->share_from = 0;
	if (!c->faults && (p->cls == ACLS_IMAGE || p->cls == ACLS_FILE) &&
	    attrib_file_size(p)) {
		uint64_t off = m->pgoff + (p->start - m->start);
		size_t from = share_level(c, attrib_image_id(p), off,
					  off + (p->end - p->start), true);

		/* from > nkeys: the same range with the same labels again
		 * (mapped twice): its VM is counted already */
		c->share_cols = 1u << COL_VM;
		c->share_from = from;
	}
	if (cgcharge_group(c->cg))
		ret = charge_by_payer(c, p, m, with_pss);
	else if (c->faults)
		ret = charge_by_fault(c, p, m, with_pss);
	else
		ret = charge_jit(c, p, m, with_pss);
	c->share_cols = 0;
	c->share_from = 0;
	return ret;
}

/* Charge the FILE SIZE of the file behind part p of mapping m: with the
 * mappings key the file range it maps, else the whole file once per row. */
static int charge_file(struct report_ctx *c, const struct attrib_part *p,
		       const struct attrib_map *m)
{
	uint64_t off = 0, end = UINT64_MAX;
	int ret;

	if (!attrib_file_size(p))
		return 0;
	if (c->by_range) {
		if (p->cls == ACLS_BSS)
			return 0;
		off = m->pgoff + (p->start - m->start);
		end = off + (p->end - p->start);
	}
	c->share_from = share_level(c, attrib_image_id(p), off, end, false);
	if (c->share_from > c->o->nkeys)
		return 0;
	c->share_cols = 1u << COL_FILE;
	ret = attrib_file(c->a, p, off, end, c->srcs, c->nsrcs, add_piece, c);
	c->share_cols = 0;
	c->share_from = 0;
	return ret;
}

static int do_mapping(struct report_ctx *c, const struct md_snap_mapping *sm,
		      bool with_pss, struct attrib_part *prev,
		      bool *have_prev)
{
	struct attrib_map m = {
		.start = sm->start, .end = sm->end, .pgoff = sm->pgoff,
		.prot = sm->prot, .flags = sm->flags,
		.image_id = sm->image_id, .name = sm->name,
		.runs = sm->runs, .nruns = sm->nruns,
	};
	struct attrib_part parts[2];
	int n, ret;

	if (m.end <= m.start)
		return 0;
	if (c->cg)
		m.runs = cgcharge_runs(c->cg, c->cur_snap_off,
				       c->cur_pid->kp.pid, c->step, sm,
				       &m.nruns);
	n = attrib_classify(c->a, &m, *have_prev ? prev : NULL, parts);
	c->cur_subject[1] = m.name ? labels_intern(c->lb, m.name) :
				     LABEL_NONE;
	for (int i = 0; i < n; i++) {
		const struct attrib_part *p = &parts[i];

		hook_labels(c, &m, p);
		c->cur_subject[0] = p->file_label;
		ret = charge_part(c, p, &m, with_pss);
		if (ret)
			return ret;
		ret = charge_file(c, p, &m);
		if (ret)
			return ret;
	}
	*prev = parts[n - 1];
	*have_prev = true;
	return 0;
}

/* PICK_ALL: rows of snapshot s go to the tree of its step. */
static void enter_step(struct report_ctx *c, const struct snapinfo *s)
{
	struct report_result *res = c->res;
	uint64_t t = s->time > c->start_ns ? s->time - c->start_ns : 0;
	struct report_step *st;

	while (res->nsteps <= s->nth) {
		res->steps = xrealloc(res->steps, (res->nsteps + 1) *
							  sizeof(*res->steps));
		res->steps[res->nsteps++] = (struct report_step){
			.t = rowtree_new(c->lb, c->o->nkeys),
			.time = UINT64_MAX,
		};
	}
	st = &res->steps[s->nth];
	st->time = MIN(st->time, t);
	st->time_last = MAX(st->time_last, t);
	st->nsnapshots++;
	c->t = st->t;
	c->step = s->nth;
}

int charge_snapshots(struct report_ctx *c, const bool *chosen, char **msg)
{
	struct md_reader *r = NULL;
	struct md_record rec;
	struct attrib_part prev;
	bool in = false, have_prev = false, with_pss = false;
	size_t next = 0;
	int ret;

	ret = md_reader_open(c->o->input, &r);
	if (ret < 0) {
		*msg = xasprintf("cannot read '%s': %s", c->o->input,
				 memsz_strerror(ret));
		return ret;
	}
	while ((ret = md_read_next(r, &rec)) > 0) {
		switch (rec.type) {
		case MD_REC_SNAP_BEGIN:
			in = false;
			/* snapshots come in file order: find this one */
			while (next < c->nsnaps &&
			       c->snaps[next].offset < rec.offset)
				next++;
			if (next < c->nsnaps &&
			    c->snaps[next].offset == rec.offset &&
			    chosen[next]) {
				in = true;
				c->cur_snap_off = rec.offset;
				have_prev = false;
				with_pss = c->snaps[next].flags &
					   MD_SNAP_F_PFN;
				for (size_t p = 0; p < c->npids; p++)
					if (c->pids[p].kp.pid ==
					    c->snaps[next].pid)
						c->cur_pid = &c->pids[p];
				c->at.proc = &c->cur_pid->kp;
				if (c->o->pick == PICK_ALL)
					enter_step(c, &c->snaps[next]);
				/* PROCS: one count per snapshot read */
				rowtree_set_tag(c->t, next + 1);
			}
			break;
		case MD_REC_SNAP_MAPPING:
			if (!in)
				break;
			ret = do_mapping(c, &rec.u.mapping, with_pss, &prev,
					 &have_prev);
			if (ret < 0) {
				*msg = xasprintf("cannot attribute mapping "
						 "%" PRIx64 "-%" PRIx64 ": %s",
						 rec.u.mapping.start,
						 rec.u.mapping.end,
						 memsz_strerror(ret));
				goto out;
			}
			break;
		case MD_REC_SNAP_END:
			in = false;
			break;
		default:
			break;
		}
	}
	ret = 0; /* a damaged tail was noted in pass 1 */
out:
	md_reader_close(r);
	return ret;
}

