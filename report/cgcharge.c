// SPDX-License-Identifier: GPL-2.0-or-later
/* cgcharge.c — a report's memory cgroup charges (see cgcharge.h). */
#include "config.h"

#include "report/cgcharge.h"

#include "report/attrib.h"
#include "report/keys.h"
#include "util/hashmap.h"
#include "util/strbuf.h"
#include "util/util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* A memory cgroup the records name. */
struct cg {
	uint64_t ino;
	char *path;	/* NULL: named by no CGROUP record */
	uint32_t label; /* LABEL_NONE until asked */
	bool inside;	/* part of the cgroup reported */
};

/* A process's own memory cgroup (its latest CGROUP record). */
struct pid_cg {
	uint32_t pid;
	uint64_t ino;
};

/* The -G cgroup's counters at one moment (version 1 or 2), or the
 * machine's (version 0: meminfo, slabinfo and, recorded with
 * --frame-walk, the page frame walk). */
struct sample {
	uint64_t time, ino;
	uint32_t version, flags;
	uint64_t usage, kmem;
	struct md_cgroup_stat *stats; /* keys owned */
	uint32_t nstats;
};

/* The SNAP_CHARGE runs of one snapshot: charge[first, first + n). */
struct chmap {
	uint64_t snap_off;
	size_t first, n;
};

/* A page cache page charged in a step: by file and page offset. */
struct pagekey {
	uint32_t dev_major, dev_minor;
	uint64_t ino, page;
	uint32_t step, pad;
};

/* A file whose page cache was scanned (FILE_CACHE records). */
struct cfile {
	uint32_t dev_major, dev_minor;
	uint64_t ino;
	uint32_t label; /* its path */
	bool shm;	/* shared memory (/dev/shm, memfd, SysV): no FILE
			   SIZE */
	size_t *recs;	/* indices into cgcharge.crecs, in time
			   order */
	size_t nrecs, cap;
};

/* One FILE_CACHE record: its time, the file's size then and runs
 * cache[first, first + n). */
struct crec {
	uint64_t time, size;
	size_t first, n;
};

/* The page of a pagekey that says its file is mapped by a process
 * charged in its step (no file has such a page: its pages are numbered
 * below 2^64 / page size). */
#define PAGE_MAPPED UINT64_MAX

struct cgcharge {
	struct labels *lb;
	uint64_t page_size;
	uint64_t snap_off; /* cgcharge_add: the snapshot being read */
	bool group;	   /* a -G recording */
	bool machine;	   /* a -a recording with MACHINE records:
			      every cgroup is the one reported */
	char *target;	   /* the -G cgroup's path */
	struct cg *cgs;
	size_t ncg, cgcap;
	struct pid_cg *pids;
	size_t npid, pidcap;
	struct sample *samples; /* in time order */
	size_t nsamples, samplecap;
	struct chmap *maps; /* in snap_off order */
	size_t nmaps, mapcap;
	struct md_charge_run *charge;
	size_t ncharge, chargecap;
	struct md_run *out; /* cgcharge_runs() */
	size_t nout, outcap;
	struct pagekey *keys; /* page cache pages charged */
	size_t nkeys, keycap;
	struct hashmap keyix;
	uint64_t *file_bytes; /* per step: of them, bytes charged */
	uint64_t *huge;	      /* per step: CHARGE of hugetlb pages
				 (COL_PSS_SHIFT fixed point) */
	size_t nsteps, hugecap;
	uint32_t elsewhere, cache_label;
	bool shm_unsized;    /* a file row of shared memory: no FILE SIZE */
	struct cfile *files; /* FILE_CACHE records, by file */
	size_t nfiles, filecap;
	struct crec *crecs;
	size_t ncrecs, crecap;
	struct md_cache_run *cache;
	size_t ncache, cachecap;
};

/* The cgroup of inode ino (added, unnamed, if new). Returns its index. */
static size_t cg_get(struct cgcharge *g, uint64_t ino)
{
	for (size_t i = 0; i < g->ncg; i++)
		if (g->cgs[i].ino == ino)
			return i;
	xgrow(&g->cgs, &g->cgcap, g->ncg + 1, sizeof(*g->cgs));
	g->cgs[g->ncg] =
	    (struct cg){.ino = ino, .label = LABEL_NONE, .inside = g->machine};
	return g->ncg++;
}

static void cg_name(struct cgcharge *g, uint64_t ino, const char *path)
{
	size_t k = cg_get(g, ino); /* before g->cgs: it may move it */
	struct cg *c = &g->cgs[k];

	if (!c->path)
		c->path = xstrdup(path);
}

static void pid_set(struct cgcharge *g, uint32_t pid, uint64_t ino)
{
	for (size_t i = 0; i < g->npid; i++)
		if (g->pids[i].pid == pid) {
			g->pids[i].ino = ino;
			return;
		}
	xgrow(&g->pids, &g->pidcap, g->npid + 1, sizeof(*g->pids));
	g->pids[g->npid++] = (struct pid_cg){pid, ino};
}

/* The memory cgroup of pid, or 0 if no record names it. */
static uint64_t pid_own(const struct cgcharge *g, uint32_t pid)
{
	for (size_t i = 0; i < g->npid; i++)
		if (g->pids[i].pid == pid)
			return g->pids[i].ino;
	return 0;
}

static struct sample *sample_new(struct cgcharge *g, uint64_t time,
				 const struct md_cgroup_stat *stats,
				 uint32_t nstats)
{
	struct sample *s;

	xgrow(&g->samples, &g->samplecap, g->nsamples + 1, sizeof(*g->samples));
	s = &g->samples[g->nsamples++];
	*s = (struct sample){.time = time, .nstats = nstats};
	s->stats = xcalloc(nstats + 1, sizeof(*s->stats));
	for (uint32_t i = 0; i < nstats; i++)
		s->stats[i] = (struct md_cgroup_stat){xstrdup(stats[i].key),
						      stats[i].value};
	return s;
}

static void sample_add(struct cgcharge *g, const struct md_cgroup *r)
{
	struct sample *s = sample_new(g, r->time, r->stats, r->nstats);

	s->version = r->version;
	s->ino = r->ino;
	s->flags = r->flags;
	s->usage = r->usage;
	s->kmem = r->kmem;
	if (!g->target)
		g->target = xstrdup(r->path);
}

/* A MACHINE record: a sample of version 0 whose charge is MemTotal. */
static void on_machine(struct cgcharge *g, const struct md_machine *r)
{
	struct sample *s;

	if (g->group)
		return;
	s = sample_new(g, r->time, r->stats, r->nstats);
	for (uint32_t i = 0; i < s->nstats; i++)
		if (!strcmp(s->stats[i].key, "MemTotal")) {
			s->usage = s->stats[i].value;
			s->flags = MD_CG_F_USAGE;
		}
	g->machine = true;
}

static void on_cgroup(struct cgcharge *g, const struct md_cgroup *r)
{
	cg_name(g, r->ino, r->path);
	if (r->pid)
		pid_set(g, r->pid, r->ino);
	if (r->flags & MD_CG_F_TARGET) {
		g->group = true;
		sample_add(g, r);
	}
}

static void on_charge(struct cgcharge *g, uint64_t snap_off,
		      const struct md_snap_charge *r)
{
	struct chmap *m = g->nmaps ? &g->maps[g->nmaps - 1] : NULL;

	if (!m || m->snap_off != snap_off) {
		xgrow(&g->maps, &g->mapcap, g->nmaps + 1, sizeof(*g->maps));
		m = &g->maps[g->nmaps++];
		*m = (struct chmap){.snap_off = snap_off, .first = g->ncharge};
	}
	xgrow(&g->charge, &g->chargecap, g->ncharge + r->nruns,
	      sizeof(*g->charge));
	memcpy(g->charge + g->ncharge, r->runs, r->nruns * sizeof(*r->runs));
	g->ncharge += r->nruns;
	m->n += r->nruns;
}

static void on_file_cache(struct cgcharge *g, const struct md_file_cache *r)
{
	struct cfile *f = NULL;

	for (size_t i = 0; i < g->nfiles && !f; i++)
		if (g->files[i].ino == r->ino &&
		    g->files[i].dev_major == r->dev_major &&
		    g->files[i].dev_minor == r->dev_minor)
			f = &g->files[i];
	if (!f) {
		enum attrib_class cls;

		xgrow(&g->files, &g->filecap, g->nfiles + 1, sizeof(*g->files));
		f = &g->files[g->nfiles++];
		attrib_anon_name(r->path, &cls);
		*f = (struct cfile){.dev_major = r->dev_major,
				    .dev_minor = r->dev_minor,
				    .ino = r->ino,
				    .label = labels_intern(g->lb, r->path),
				    .shm = cls == ACLS_SHMEM};
	}
	xgrow(&f->recs, &f->cap, f->nrecs + 1, sizeof(*f->recs));
	f->recs[f->nrecs++] = g->ncrecs;
	xgrow(&g->crecs, &g->crecap, g->ncrecs + 1, sizeof(*g->crecs));
	g->crecs[g->ncrecs++] = (struct crec){.time = r->time,
					      .size = r->size,
					      .first = g->ncache,
					      .n = r->nruns};
	xgrow(&g->cache, &g->cachecap, g->ncache + r->nruns + 1,
	      sizeof(*g->cache));
	memcpy(g->cache + g->ncache, r->runs, r->nruns * sizeof(*r->runs));
	g->ncache += r->nruns;
}

/* Which cgroups are the one reported: the -G cgroup and those below it,
 * else the processes' own. */
static void mark_inside(struct cgcharge *g)
{
	size_t tl = g->target ? strlen(g->target) : 0;

	for (size_t i = 0; i < g->ncg; i++) {
		struct cg *c = &g->cgs[i];

		if (g->machine)
			c->inside = true;
		else if (g->group)
			c->inside = c->path &&
				    !strncmp(c->path, g->target, tl) &&
				    (!c->path[tl] || c->path[tl] == '/');
		else
			for (size_t k = 0; k < g->npid && !c->inside; k++)
				c->inside =
				    g->pids[k].ino == c->ino && g->pids[k].pid;
	}
}

struct cgcharge *cgcharge_new(struct labels *lb)
{
	struct cgcharge *g = xcalloc(1, sizeof(*g));

	g->lb = lb;
	return g;
}

void cgcharge_add(struct cgcharge *g, const struct md_record *rec)
{
	if (rec->type == MD_REC_SNAP_BEGIN)
		g->snap_off = rec->offset;
	else if (rec->type == MD_REC_CGROUP)
		on_cgroup(g, &rec->u.cgroup);
	else if (rec->type == MD_REC_SNAP_CHARGE)
		on_charge(g, g->snap_off, &rec->u.charge);
	else if (rec->type == MD_REC_FILE_CACHE)
		on_file_cache(g, &rec->u.cache);
	else if (rec->type == MD_REC_MACHINE)
		on_machine(g, &rec->u.machine);
}

struct cgcharge *cgcharge_finish(struct cgcharge *g, uint64_t page_size)
{
	bool any = g->group || g->machine;

	for (size_t i = 0; i < g->npid && !any; i++)
		any = g->pids[i].pid != 0;
	if (!any || !page_size) {
		cgcharge_free(g);
		return NULL;
	}
	g->page_size = page_size;
	mark_inside(g);
	g->elsewhere = labels_intern(g->lb, "[charged elsewhere]");
	g->cache_label = labels_intern(g->lb, "[page cache]");
	return g;
}

void cgcharge_free(struct cgcharge *g)
{
	if (!g)
		return;
	for (size_t i = 0; i < g->ncg; i++)
		free(g->cgs[i].path);
	for (size_t i = 0; i < g->nsamples; i++) {
		for (uint32_t k = 0; k < g->samples[i].nstats; k++)
			free((char *)g->samples[i].stats[k].key);
		free(g->samples[i].stats);
	}
	free(g->cgs);
	free(g->pids);
	free(g->samples);
	free(g->maps);
	free(g->charge);
	free(g->out);
	free(g->keys);
	hashmap_free(&g->keyix);
	free(g->file_bytes);
	free(g->huge);
	free(g->target);
	for (size_t i = 0; i < g->nfiles; i++)
		free(g->files[i].recs);
	free(g->files);
	free(g->crecs);
	free(g->cache);
	free(g);
}

bool cgcharge_group(const struct cgcharge *g)
{
	return g && g->group;
}

bool cgcharge_accounts(const struct cgcharge *g)
{
	return g && (g->group || g->machine);
}

bool cgcharge_shm_unsized(const struct cgcharge *g)
{
	return g && g->shm_unsized;
}

void cgcharge_relabel(struct cgcharge *g, uint32_t payer, uint32_t *path,
		      size_t n)
{
	char *both;

	if (!n)
		return;
	/* "PAYER: LABEL", the payer's label as it is (cut or not) and
	 * the other after it, not cut off (labels_intern_id_suffix()) */
	both = xasprintf(": %s", labels_str(g->lb, path[0]));
	memmove(path + 1, path, (n - 1) * sizeof(*path));
	path[0] = g->elsewhere;
	if (n > 1)
		path[1] = labels_intern_id_suffix(g->lb, payer, both);
	free(both);
}

uint32_t cgcharge_payer(const struct cgcharge *g, uint32_t k)
{
	struct cg *c;
	char buf[48];

	if (!k || k > g->ncg)
		return labels_intern(g->lb, "[cgroup unknown]");
	c = &g->cgs[k - 1];
	if (c->label == LABEL_NONE) {
		if (c->path) {
			c->label = labels_intern(g->lb, c->path);
		} else {
			if (c->ino)
				snprintf(buf, sizeof(buf),
					 "[cgroup %" PRIu64 "]", c->ino);
			else
				snprintf(buf, sizeof(buf), "[no cgroup]");
			c->label = labels_intern(g->lb, buf);
		}
	}
	return c->label;
}

/* The SNAP_CHARGE runs of the snapshot at snap_off from the first that
 * ends after address start, and their count in *n (0: none). */
static const struct md_charge_run *charge_of(const struct cgcharge *g,
					     uint64_t snap_off, uint64_t start,
					     size_t *n)
{
	const struct md_charge_run *ch;
	size_t lo = 0, hi = g->nmaps, nch;

	*n = 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (g->maps[mid].snap_off < snap_off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == g->nmaps || g->maps[lo].snap_off != snap_off)
		return NULL;
	ch = g->charge + g->maps[lo].first;
	nch = g->maps[lo].n;
	lo = 0;
	hi = nch;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ch[mid].vaddr + (uint64_t)ch[mid].npages * g->page_size <=
		    start)
			lo = mid + 1;
		else
			hi = mid;
	}
	*n = nch - lo;
	return ch + lo;
}

/* Append run r (or extend the last one when it continues it). */
static void out_push(struct cgcharge *g, const struct md_run *r)
{
	struct md_run *p = g->nout ? &g->out[g->nout - 1] : NULL;

	if (p && p->flags == r->flags && p->mapcount == r->mapcount &&
	    p->reserved == r->reserved &&
	    p->vaddr + (uint64_t)p->npages * g->page_size == r->vaddr &&
	    (uint64_t)p->npages + r->npages <= UINT32_MAX) {
		p->npages += r->npages;
		return;
	}
	xgrow(&g->out, &g->outcap, g->nout + 1, sizeof(*g->out));
	g->out[g->nout++] = *r;
}

/* True if page key k was charged already in its step (else it is now). */
static bool page_seen(struct cgcharge *g, const struct pagekey *k)
{
	struct hashmap_probe p;
	uint32_t i;

	for (i = hashmap_first(&g->keyix, hashmap_hash_bytes(k, sizeof(*k)),
			       &p);
	     i != HASHMAP_NONE; i = hashmap_next(&g->keyix, &p))
		if (!memcmp(&g->keys[i], k, sizeof(*k)))
			return true;
	xgrow(&g->keys, &g->keycap, g->nkeys + 1, sizeof(*g->keys));
	g->keys[g->nkeys] = *k;
	hashmap_put(&g->keyix, &p, (uint32_t)g->nkeys++);
	return false;
}

/* True if file dev_major:dev_minor ino was marked as mapped in step
 * already (else it is now). */
static bool mapped_seen(struct cgcharge *g, uint32_t dev_major,
			uint32_t dev_minor, uint64_t ino, uint32_t step)
{
	struct pagekey k = {.dev_major = dev_major,
			    .dev_minor = dev_minor,
			    .ino = ino,
			    .page = PAGE_MAPPED,
			    .step = step};

	return page_seen(g, &k);
}

/* Make room for step in g->file_bytes. */
static void steps_grow(struct cgcharge *g, uint32_t step)
{
	size_t old = g->nsteps;

	if (step < old)
		return;
	xgrow(&g->file_bytes, &g->nsteps, (size_t)step + 1,
	      sizeof(*g->file_bytes));
	memset(g->file_bytes + old, 0,
	       (g->nsteps - old) * sizeof(*g->file_bytes));
	xgrow(&g->huge, &g->hugecap, g->nsteps, sizeof(*g->huge));
	memset(g->huge + old, 0, (g->nsteps - old) * sizeof(*g->huge));
}

/* The pages [s, e) of run r of mapping m, charged to the reported cgroup,
 * page cache pages: each charged whole where first seen in step. */
static void push_cache(struct cgcharge *g, const struct md_snap_mapping *m,
		       const struct md_run *r, uint64_t s, uint64_t e,
		       uint32_t step)
{
	struct pagekey k = {.dev_major = m->dev_major,
			    .dev_minor = m->dev_minor,
			    .ino = m->ino,
			    .step = step};

	steps_grow(g, step);
	for (uint64_t va = s; va < e; va += g->page_size) {
		struct md_run one = *r;

		k.page = (m->pgoff + (va - m->start)) / g->page_size;
		one.vaddr = va;
		one.npages = 1;
		if (page_seen(g, &k)) {
			one.flags |= ATTRIB_PG_COUNTED;
		} else {
			one.flags |= ATTRIB_PG_ONCE;
			g->file_bytes[step] += g->page_size;
		}
		out_push(g, &one);
	}
}

/* The pages [s, e) of present run r, charged to cgroup ino; with
 * unknown, to the process's own cgroup, which no record names (taken as
 * the one reported). */
static void push_charged(struct cgcharge *g, const struct md_snap_mapping *m,
			 const struct md_run *r, uint64_t s, uint64_t e,
			 uint64_t ino, bool unknown, uint32_t step)
{
	size_t k = cg_get(g, ino);
	struct md_run x = *r;

	x.vaddr = s;
	x.npages = (uint32_t)((e - s) / g->page_size);
	if (!unknown && !g->cgs[k].inside) {
		x.flags |= ATTRIB_PG_ELSEWHERE;
		x.reserved = (uint32_t)k + 1;
		out_push(g, &x);
	} else if (r->flags & MD_PG_HUGE) {
		/* hugetlb: a share per mapper, as attrib.c charges it; no
		 * page cache, even shared (meminfo's Hugetlb, not Cached) */
		steps_grow(g, step);
		g->huge[step] += ((e - s) << COL_PSS_SHIFT) /
				 (r->mapcount > 1 ? r->mapcount : 1);
		out_push(g, &x);
	} else if ((r->flags & MD_PG_FILE) && m->ino) {
		push_cache(g, m, r, s, e, step);
	} else {
		out_push(g, &x);
	}
}

const struct md_run *cgcharge_runs(struct cgcharge *g, uint64_t snap_off,
				   uint32_t pid, uint32_t step,
				   const struct md_snap_mapping *m, size_t *n)
{
	size_t nch, ci = 0;
	const struct md_charge_run *ch = charge_of(g, snap_off, m->start, &nch);
	uint64_t own = pid_own(g, pid), ps = g->page_size;

	/* its FILE SIZE is the mapping's (charge.c): file_rows() leaves it
	 * out */
	if (m->ino)
		mapped_seen(g, m->dev_major, m->dev_minor, m->ino, step);
	g->nout = 0;
	for (size_t i = 0; i < m->nruns; i++) {
		const struct md_run *r = &m->runs[i];
		uint64_t va = r->vaddr, end = va + (uint64_t)r->npages * ps;

		if (!(r->flags & MD_PG_PRESENT)) {
			out_push(g, r);
			continue;
		}
		while (va < end) {
			uint64_t se, ino = own;

			while (ci < nch &&
			       ch[ci].vaddr + (uint64_t)ch[ci].npages * ps <=
				   va)
				ci++;
			if (ci < nch && ch[ci].vaddr <= va) {
				se = MIN(end, ch[ci].vaddr +
						  (uint64_t)ch[ci].npages * ps);
				ino = ch[ci].cgroup;
			} else {
				se = ci < nch ? MIN(end, ch[ci].vaddr) : end;
			}
			push_charged(g, m, r, va, se, ino, !own && ino == own,
				     step);
			va = se;
		}
	}
	*n = g->nout;
	return g->out;
}

/* --- the charge no process maps --- */

/* A row of the kernel's own counters: label, and the memory.stat keys
 * whose values it sums (of cgroup version version). in_kernel: a part
 * of v2's "kernel", which "[kernel: other]" gets the rest of. parts: the
 * prefix of the keys that break it down one level (the rest of it under
 * the label rest), NULL if none do. */
struct kernel_row {
	uint32_t version;
	const char *label;
	const char *keys[3];
	bool in_kernel;
	bool less_huge; /* less the hugetlb pages t's CHARGE counted */
	const char *parts, *rest;
};

static const struct kernel_row kernel_rows[] = {
    {.version = 2,
     .label = "[kernel: slab]",
     .keys = {"slab_reclaimable", "slab_unreclaimable"},
     .in_kernel = true},
    {.version = 2,
     .label = "[kernel: stacks]",
     .keys = {"kernel_stack"},
     .in_kernel = true},
    {.version = 2,
     .label = "[kernel: page tables]",
     .keys = {"pagetables"},
     .in_kernel = true},
    {.version = 2,
     .label = "[kernel: secondary page tables]",
     .keys = {"sec_pagetables"},
     .in_kernel = true},
    {.version = 2,
     .label = "[kernel: percpu]",
     .keys = {"percpu"},
     .in_kernel = true},
    {.version = 2,
     .label = "[kernel: vmalloc]",
     .keys = {"vmalloc"},
     .in_kernel = true},
    {.version = 2, .label = "[kernel: sock]", .keys = {"sock"}},
    {.version = 0, .label = "[free]", .keys = {"MemFree"}},
    {.version = 0,
     .label = "[kernel: slab]",
     .keys = {"Slab"},
     .parts = MD_MACHINE_SLAB_PREFIX,
     .rest = "[not in slabinfo]"},
    {.version = 0, .label = "[kernel: stacks]", .keys = {"KernelStack"}},
    {.version = 0,
     .label = "[kernel: page tables]",
     .keys = {"PageTables", "SecPageTables"}},
    {.version = 0, .label = "[kernel: percpu]", .keys = {"Percpu"}},
    {.version = 0,
     .label = "[hugetlb]",
     .keys = {"Hugetlb"},
     .less_huge = true},
};

/* The inode of a cgroup hierarchy's root directory (kernfs numbers its
 * root first). */
#define CGROUP_ROOT_INO 1

/* The counters of the page cache and of the anonymous memory charged, by
 * version (0: the machine's meminfo). v1's are the total_ ones, the
 * cgroup's and its descendants' as usage_in_bytes counts them ("cache"
 * and "rss" are the cgroup's alone: a child's page cache was left
 * "[unexplained]"); v2's memory.stat counts the subtree. */
static const char *const file_keys[3][2] = {
    {"Buffers", "Cached"}, {"total_cache"}, {"file"}};
static const char *const anon_key[3] = {"AnonPages", "total_rss", "anon"};

/* The sum of the counters keys[0..n-1] of s (those it has). */
static uint64_t stat_sum(const struct sample *s, const char *const *keys,
			 size_t n);

/* The value of key in s; false if s has no such counter. */
static bool stat_get(const struct sample *s, const char *key, uint64_t *v)
{
	for (uint32_t i = 0; i < s->nstats; i++)
		if (!strcmp(s->stats[i].key, key)) {
			*v = s->stats[i].value;
			return true;
		}
	return false;
}

static uint64_t stat_sum(const struct sample *s, const char *const *keys,
			 size_t n)
{
	uint64_t sum = 0, v;

	for (size_t i = 0; i < n && keys[i]; i++)
		if (stat_get(s, keys[i], &v))
			sum += v;
	return sum;
}

/* Add bytes of CHARGE to the row label (the same label at every level). */
static void add_row(struct cgcharge *g, struct rowtree *t, size_t nkeys,
		    const char *label, uint64_t bytes)
{
	uint32_t path[KEYS_MAX];
	uint64_t vals[COL__COUNT] = {0};
	uint32_t l = labels_intern(g->lb, label);

	if (!bytes)
		return;
	for (size_t i = 0; i < nkeys; i++)
		path[i] = l;
	vals[COL_CHARGE] = bytes << COL_PSS_SHIFT;
	rowtree_add(t, path, vals);
}

/* Add row k of sample s, bytes of CHARGE: with more than one key and
 * parts of it in s that it holds, each part's bytes under the part's
 * name (its key without the prefix) one level down, then the rest under
 * k->rest, the same label at the deeper levels; else add_row. */
static void add_parts(struct cgcharge *g, struct rowtree *t, size_t nkeys,
		      const struct kernel_row *k, const struct sample *s,
		      uint64_t bytes)
{
	size_t pre = k->parts ? strlen(k->parts) : 0, np = 0;
	uint64_t vals[COL__COUNT] = {0}, sum = 0;
	uint32_t path[KEYS_MAX];

	for (uint32_t i = 0; pre && i < s->nstats; i++)
		if (!strncmp(s->stats[i].key, k->parts, pre)) {
			sum += s->stats[i].value;
			np++;
		}
	if (nkeys < 2 || !np || sum > bytes) {
		add_row(g, t, nkeys, k->label, bytes);
		return;
	}
	path[0] = labels_intern(g->lb, k->label);
	for (uint32_t i = 0; i <= s->nstats; i++) {
		const char *name = i < s->nstats ? s->stats[i].key : NULL;
		uint64_t v = name ? s->stats[i].value : bytes - sum;

		if (name && strncmp(name, k->parts, pre))
			continue;
		if (!v)
			continue;
		path[1] = labels_intern(g->lb, name ? name + pre : k->rest);
		for (size_t j = 2; j < nkeys; j++)
			path[j] = path[1];
		vals[COL_CHARGE] = v << COL_PSS_SHIFT;
		rowtree_add(t, path, vals);
	}
}

/* The first sample at or after time, else NULL. */
static const struct sample *sample_at(const struct cgcharge *g, uint64_t time)
{
	for (size_t i = 0; i < g->nsamples; i++)
		if (g->samples[i].time >= time)
			return &g->samples[i];
	return NULL;
}

/* The page cache of file f at time charged to the cgroup reported and
 * not counted yet in step: its bytes (then counted); *size receives the
 * file's size at that scan. */
static uint64_t file_charge(struct cgcharge *g, const struct cfile *f,
			    uint32_t step, uint64_t time, uint64_t *size)
{
	struct pagekey k = {.dev_major = f->dev_major,
			    .dev_minor = f->dev_minor,
			    .ino = f->ino,
			    .step = step};
	uint64_t bytes = 0, at;
	size_t last = f->nrecs;

	while (last && g->crecs[f->recs[last - 1]].time > time)
		last--;
	if (!last)
		return 0;
	at = g->crecs[f->recs[last - 1]].time;
	*size = g->crecs[f->recs[last - 1]].size;
	/* the records of that scan: one time for them all */
	for (size_t i = last; i-- > 0 && g->crecs[f->recs[i]].time == at;) {
		const struct crec *c = &g->crecs[f->recs[i]];

		for (size_t j = 0; j < c->n; j++) {
			const struct md_cache_run *u = &g->cache[c->first + j];

			if (!g->cgs[cg_get(g, u->cgroup)].inside)
				continue;
			for (uint64_t p = 0; p < u->npages; p++) {
				k.page = u->page + p;
				if (!page_seen(g, &k))
					bytes += g->page_size;
			}
		}
	}
	return bytes;
}

/* The FILE SIZE of the row of file f, size bytes at its scan, in step:
 * 0 if a process charged in step maps it (the mapping has its FILE SIZE,
 * charge.c) or it is shared memory (no FILE SIZE, as when mapped). */
static uint64_t file_size(struct cgcharge *g, const struct cfile *f,
			  uint32_t step, uint64_t size)
{
	if (mapped_seen(g, f->dev_major, f->dev_minor, f->ino, step))
		return 0;
	if (f->shm) {
		g->shm_unsized = true;
		return 0;
	}
	return size;
}

/* Rows of the page cache of the files scanned at or before time, charged
 * to the cgroup reported: the file's label, "[page cache]" below, with
 * CHARGE and FILE SIZE, the file's size at that scan (file_size()). */
static void file_rows(struct cgcharge *g, struct rowtree *t, size_t nkeys,
		      uint32_t step, uint64_t time)
{
	uint32_t path[KEYS_MAX];
	uint64_t vals[COL__COUNT] = {0};

	steps_grow(g, step);
	for (size_t i = 0; i < g->nfiles; i++) {
		uint64_t size = 0;
		uint64_t b = file_charge(g, &g->files[i], step, time, &size);

		if (!b)
			continue;
		g->file_bytes[step] += b;
		path[0] = g->files[i].label;
		for (size_t k = 1; k < nkeys; k++)
			path[k] = g->cache_label;
		vals[COL_CHARGE] = b << COL_PSS_SHIFT;
		vals[COL_FILE] = file_size(g, &g->files[i], step, size);
		rowtree_add(t, path, vals);
	}
}

/* The page frame walk (record -a --frame-walk) beside /proc/meminfo: each
 * kind of frames whose bytes differ from meminfo's by more than 1 %, one
 * line (malloc'd) that says the rows are meminfo's, or NULL when all agree
 * or nothing was walked. Free frames are the buddy allocator's and those
 * with no flag that MemFree counts (walk_free_unlisted; recordings before
 * it have none). */
static char *walk_note(const struct sample *s)
{
	static const struct {
		const char *what;
		const char *walk[3];
		const char *meminfo[3];
	} pairs[] = {
	    {"free", {"walk_free", "walk_free_unlisted"}, {"MemFree"}},
	    {"slab", {"walk_slab"}, {"Slab"}},
	    {"page tables", {"walk_pgtable"}, {"PageTables", "SecPageTables"}},
	    {"anonymous", {"walk_anon"}, {"AnonPages"}},
	    {"page cache", {"walk_file", "walk_shmem"}, {"Buffers", "Cached"}},
	    {"hugetlb", {"walk_hugetlb"}, {"Hugetlb"}},
	};
	struct strbuf sb = STRBUF_INIT;
	char a[32], b[32], *note;
	uint64_t v;

	if (!stat_get(s, "walk_free", &v))
		return NULL;
	for (size_t i = 0; i < ARRAY_SIZE(pairs); i++) {
		uint64_t w = stat_sum(s, pairs[i].walk, 3);
		uint64_t m = stat_sum(s, pairs[i].meminfo, 3);
		uint64_t d = w > m ? w - m : m - w;

		if (d * 100 <= m)
			continue;
		fmt_human(a, sizeof(a), (double)w);
		fmt_human(b, sizeof(b), (double)m);
		strbuf_addf(&sb, "%s%s %s (meminfo %s)", sb.len ? ", " : "",
			    pairs[i].what, a, b);
	}
	if (!sb.len) {
		strbuf_free(&sb);
		return NULL;
	}
	v = stat_sum(s, (const char *const[]){"walk_unflagged"}, 1);
	fmt_human(a, sizeof(a), (double)v);
	strbuf_addf(&sb, "; kernel frames with no flag: %s", a);
	/* say which of the two the rows show: the walk only checks them */
	note = xasprintf("page frame walk and /proc/meminfo differ by more "
			 "than 1 %%: %s (the rows use /proc/meminfo)",
			 strbuf_str(&sb));
	strbuf_free(&sb);
	return note;
}

int cgcharge_kernel_rows(struct cgcharge *g, struct rowtree *t, size_t nkeys,
			 uint32_t step, uint64_t time, uint64_t *over,
			 char **note)
{
	const struct sample *s;
	uint64_t kernel = 0, parts = 0, file, seen, total, anon, counted, huge;

	*over = 0;
	*note = NULL;
	if (!cgcharge_accounts(g))
		return 0;
	s = sample_at(g, time);
	if (!s || !(s->flags & MD_CG_F_USAGE))
		return -ENOENT;
	steps_grow(g, step);
	/* what the processes' pages explain: page cache, hugetlb pages and
	 * the rest (anonymous) */
	total = t->total.vals[COL_CHARGE] >> COL_PSS_SHIFT;
	huge = g->huge[step] >> COL_PSS_SHIFT;
	counted = total - MIN(g->file_bytes[step] + huge, total);
	for (size_t i = 0; i < ARRAY_SIZE(kernel_rows); i++) {
		const struct kernel_row *k = &kernel_rows[i];
		uint64_t sum;

		if (k->version != s->version)
			continue;
		sum = stat_sum(s, k->keys, ARRAY_SIZE(k->keys));
		if (k->less_huge)
			sum -= MIN(sum, huge);
		add_parts(g, t, nkeys, k, s, sum);
		if (k->in_kernel)
			parts += sum;
	}
	if (s->version == 2 && stat_get(s, "kernel", &kernel) && kernel > parts)
		add_row(g, t, nkeys, "[kernel: other]", kernel - parts);
	/* v1's root is never charged: its usage_in_bytes is its page cache
	 * and anonymous memory (memory.stat), no kernel memory */
	if (s->version == 1 && (s->flags & MD_CG_F_KMEM) &&
	    s->ino != CGROUP_ROOT_INO)
		add_row(g, t, nkeys, "[kernel memory]", s->kmem);
	file_rows(g, t, nkeys, step, s->time);
	seen = g->file_bytes[step];
	file = stat_sum(s, file_keys[s->version], 2);
	if (file > seen)
		add_row(g, t, nkeys, "[page cache, file unknown]", file - seen);
	if (stat_get(s, anon_key[s->version], &anon) && anon > counted)
		add_row(g, t, nkeys, "[anon, process unknown]", anon - counted);
	if (!s->version)
		*note = walk_note(s);
	total = t->total.vals[COL_CHARGE] >> COL_PSS_SHIFT;
	if (total < s->usage)
		add_row(g, t, nkeys, "[unexplained]", s->usage - total);
	else
		*over = total - s->usage;
	return 0;
}
