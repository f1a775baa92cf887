// SPDX-License-Identifier: GPL-2.0-or-later
/* dfcgroup.c — the record types of memory cgroups (see datafile.h):
 * CGROUP (a cgroup's counters), SNAP_CHARGE (a mapping's pages another
 * cgroup pays for), FILE_CACHE (a file's cached pages and who pays for
 * them) and MACHINE (the whole machine's memory), each its encoder,
 * decoder, printer and typed writer; their rows are in dfrecords.c's
 * table. */
#include "config.h"

#include "data/dfcodec.h"
#include "util/escape.h"
#include "util/util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* --- CGROUP: a memory cgroup's counters --- */

void md_cgroup_encode(struct md_buf *b, const struct md_record *rec)
{
	const struct md_cgroup *g = &rec->u.cgroup;

	md_buf_u64(b, g->time);
	md_buf_u32(b, g->pid);
	md_buf_u32(b, g->version);
	md_buf_u32(b, g->flags);
	md_buf_u32(b, g->nstats);
	md_buf_u64(b, g->ino);
	md_buf_u64(b, g->usage);
	md_buf_u64(b, g->kmem);
	md_buf_str(b, g->path);
	for (uint32_t i = 0; i < g->nstats; i++) {
		md_buf_u64(b, g->stats[i].value);
		md_buf_str(b, g->stats[i].key);
	}
}

/* The smallest encoded counter: its value and an empty key. */
#define MD_CG_STAT_MIN 16

int md_cgroup_decode(struct md_reader *r, struct md_cur *c,
		     struct md_record *rec)
{
	struct md_cgroup *g = &rec->u.cgroup;

	g->time = md_cur_u64(c);
	g->pid = md_cur_u32(c);
	g->version = md_cur_u32(c);
	g->flags = md_cur_u32(c);
	g->nstats = md_cur_u32(c);
	g->ino = md_cur_u64(c);
	g->usage = md_cur_u64(c);
	g->kmem = md_cur_u64(c);
	g->path = md_cur_str(c);
	if (c->err)
		return c->err;
	if (g->version < 1 || g->version > 2 ||
	    g->nstats > MD_CGROUP_MAX_STATS ||
	    g->nstats > (c->len - c->pos) / MD_CG_STAT_MIN) {
		md_cur_fail(c, "cgroup version or counter count out of range");
		return c->err;
	}
	xgrow(&r->cgs, &r->cgs_cap, g->nstats ? g->nstats : 1, sizeof(*r->cgs));
	for (uint32_t i = 0; i < g->nstats; i++) {
		r->cgs[i].value = md_cur_u64(c);
		r->cgs[i].key = md_cur_str(c);
		if (c->err)
			return c->err;
	}
	g->stats = r->cgs;
	return 0;
}

/* The n counters stats, each on a line, keys escaped (read from a file). */
static void print_stats(FILE *out, const struct md_cgroup_stat *stats,
			uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		fputs("    ", out);
		fputs_escaped(stats[i].key, out);
		fprintf(out, " %" PRIu64 "\n", stats[i].value);
	}
}

/* With o->verbose, each counter on a line. */
void md_cgroup_print(FILE *out, const struct md_record *rec, const char *name,
		     const struct md_print_opts *o)
{
	const struct md_cgroup *g = &rec->u.cgroup;

	md_print_time(out, g->time);
	fprintf(out, "%s pid %u v%u ino %" PRIu64, name, g->pid, g->version,
		g->ino);
	if (g->flags & MD_CG_F_USAGE)
		fprintf(out, " usage %" PRIu64, g->usage);
	if (g->flags & MD_CG_F_KMEM)
		fprintf(out, " kmem %" PRIu64, g->kmem);
	fprintf(out, " stats %u%s%s ", g->nstats,
		g->flags & MD_CG_F_TARGET ? " target" : "",
		g->flags & MD_CG_F_PAYER ? " payer" : "");
	/* a cgroup's name may hold any byte but '/' and newline */
	fputs_escaped(g->path, out);
	fputc('\n', out);
	print_stats(out, g->stats, o->verbose ? g->nstats : 0);
}

/* --- SNAP_CHARGE: pages charged to another memory cgroup --- */

void md_snap_charge_encode(struct md_buf *b, const struct md_record *rec)
{
	const struct md_snap_charge *g = &rec->u.charge;

	md_buf_u64(b, g->own);
	md_buf_u32(b, g->nruns);
	md_buf_u32(b, 0);
	for (uint32_t i = 0; i < g->nruns; i++) {
		md_buf_u64(b, g->runs[i].vaddr);
		md_buf_u64(b, g->runs[i].cgroup);
		md_buf_u32(b, g->runs[i].npages);
		md_buf_u32(b, 0);
	}
}

#define MD_CHARGE_RUN_SIZE 24

/* The runs must be about the snapshot whose mappings were all read: below
 * the last one's end, in order, after those of an earlier SNAP_CHARGE
 * record of it. */
int md_snap_charge_decode(struct md_reader *r, struct md_cur *c,
			  struct md_record *rec)
{
	struct md_snap_charge *g = &rec->u.charge;
	uint64_t ps = r->hdr.page_size, at;

	g->own = md_cur_u64(c);
	g->nruns = md_cur_u32(c);
	if (md_cur_u32(c) && !c->err)
		md_cur_fail(c, "charge record with a non-zero reserved field");
	if (c->err)
		return c->err;
	if (!r->in_snap || !r->snap_seen || r->snap_seen != r->snap_nmappings) {
		md_cur_fail(c, "charge record not after its snapshot's "
			       "mappings");
		return c->err;
	}
	if (!g->nruns || g->nruns > MD_CHARGE_MAX_RUNS ||
	    g->nruns > (c->len - c->pos) / MD_CHARGE_RUN_SIZE) {
		md_cur_fail(c, "charge run count empty or past the record");
		return c->err;
	}
	xgrow(&r->chg, &r->chg_cap, g->nruns, sizeof(*r->chg));
	at = r->snap_charge_end;
	for (uint32_t i = 0; i < g->nruns; i++) {
		struct md_charge_run *u = &r->chg[i];

		u->vaddr = md_cur_u64(c);
		u->cgroup = md_cur_u64(c);
		u->npages = md_cur_u32(c);
		md_cur_u32(c);
		if (c->err)
			return c->err;
		if (!u->npages || u->vaddr % ps || u->vaddr < at ||
		    u->vaddr >= r->snap_prev_end ||
		    u->npages > (r->snap_prev_end - u->vaddr) / ps) {
			md_cur_fail(c, "charge run outside its snapshot's "
				       "mappings or out of order");
			return c->err;
		}
		at = u->vaddr + (uint64_t)u->npages * ps;
	}
	r->snap_charge_end = at;
	g->runs = r->chg;
	return 0;
}

/* With o->verbose, each run on a line. */
void md_snap_charge_print(FILE *out, const struct md_record *rec,
			  const char *name, const struct md_print_opts *o)
{
	const struct md_snap_charge *g = &rec->u.charge;
	uint64_t pages = 0;

	for (uint32_t i = 0; i < g->nruns; i++)
		pages += g->runs[i].npages;
	fprintf(out, "%s own %" PRIu64 " runs %u pages %" PRIu64 "\n", name,
		g->own, g->nruns, pages);
	for (uint32_t i = 0; o->verbose && i < g->nruns; i++)
		fprintf(out, "    0x%" PRIx64 " %u cgroup %" PRIu64 "\n",
			g->runs[i].vaddr, g->runs[i].npages, g->runs[i].cgroup);
}

/* --- FILE_CACHE: a file's cached pages and who pays for them --- */

void md_file_cache_encode(struct md_buf *b, const struct md_record *rec)
{
	const struct md_file_cache *f = &rec->u.cache;

	md_buf_u64(b, f->time);
	md_buf_u32(b, f->dev_major);
	md_buf_u32(b, f->dev_minor);
	md_buf_u64(b, f->ino);
	md_buf_u64(b, f->size);
	md_buf_u32(b, f->nruns);
	md_buf_u32(b, 0);
	md_buf_str(b, f->path);
	for (uint32_t i = 0; i < f->nruns; i++) {
		md_buf_u64(b, f->runs[i].page);
		md_buf_u64(b, f->runs[i].cgroup);
		md_buf_u32(b, f->runs[i].npages);
		md_buf_u32(b, 0);
	}
}

#define MD_CACHE_RUN_SIZE 24

int md_file_cache_decode(struct md_reader *r, struct md_cur *c,
			 struct md_record *rec)
{
	struct md_file_cache *f = &rec->u.cache;
	uint64_t ps = r->hdr.page_size, at = 0, pages;

	f->time = md_cur_u64(c);
	f->dev_major = md_cur_u32(c);
	f->dev_minor = md_cur_u32(c);
	f->ino = md_cur_u64(c);
	f->size = md_cur_u64(c);
	f->nruns = md_cur_u32(c);
	md_cur_u32(c);
	f->path = md_cur_str(c);
	if (c->err)
		return c->err;
	pages = ps ? f->size / ps + (f->size % ps != 0) : 0;
	if (f->nruns > MD_CACHE_MAX_RUNS ||
	    f->nruns > (c->len - c->pos) / MD_CACHE_RUN_SIZE) {
		md_cur_fail(c, "cache run count past the record");
		return c->err;
	}
	xgrow(&r->fc, &r->fc_cap, f->nruns ? f->nruns : 1, sizeof(*r->fc));
	for (uint32_t i = 0; i < f->nruns; i++) {
		struct md_cache_run *u = &r->fc[i];

		u->page = md_cur_u64(c);
		u->cgroup = md_cur_u64(c);
		u->npages = md_cur_u32(c);
		md_cur_u32(c);
		if (c->err)
			return c->err;
		if (!u->npages || u->page < at || u->page >= pages ||
		    u->npages > pages - u->page) {
			md_cur_fail(c, "cache run outside its file or out "
				       "of order");
			return c->err;
		}
		at = u->page + u->npages;
	}
	f->runs = r->fc;
	return 0;
}

/* With o->verbose, each run on a line. */
void md_file_cache_print(FILE *out, const struct md_record *rec,
			 const char *name, const struct md_print_opts *o)
{
	const struct md_file_cache *f = &rec->u.cache;
	uint64_t pages = 0;

	for (uint32_t i = 0; i < f->nruns; i++)
		pages += f->runs[i].npages;
	md_print_time(out, f->time);
	fprintf(out,
		"%s %02x:%02x %" PRIu64 " size %" PRIu64 " runs %u "
		"pages %" PRIu64 " ",
		name, f->dev_major, f->dev_minor, f->ino, f->size, f->nruns,
		pages);
	fputs_escaped(f->path, out);
	fputc('\n', out);
	for (uint32_t i = 0; o->verbose && i < f->nruns; i++)
		fprintf(out, "    page %" PRIu64 " %u cgroup %" PRIu64 "\n",
			f->runs[i].page, f->runs[i].npages, f->runs[i].cgroup);
}

int md_write_cgroup(struct md_writer *w, const struct md_cgroup *r)
{
	struct md_record rec = {.type = MD_REC_CGROUP, .u.cgroup = *r};

	if (r->version < 1 || r->version > 2 ||
	    r->nstats > MD_CGROUP_MAX_STATS || (r->nstats && !r->stats))
		return -EINVAL;
	for (uint32_t i = 0; i < r->nstats; i++)
		if (!r->stats[i].key)
			return -EINVAL;
	return md_write_record(w, &rec);
}

int md_write_snap_charge(struct md_writer *w, const struct md_snap_charge *r)
{
	struct md_record rec = {.type = MD_REC_SNAP_CHARGE, .u.charge = *r};

	if (!r->nruns || r->nruns > MD_CHARGE_MAX_RUNS || !r->runs)
		return -EINVAL;
	for (uint32_t i = 0; i < r->nruns; i++)
		if (!r->runs[i].npages)
			return -EINVAL;
	return md_write_record(w, &rec);
}

int md_write_file_cache(struct md_writer *w, const struct md_file_cache *r)
{
	struct md_record rec = {.type = MD_REC_FILE_CACHE, .u.cache = *r};

	if (r->nruns > MD_CACHE_MAX_RUNS || (r->nruns && !r->runs))
		return -EINVAL;
	for (uint32_t i = 0; i < r->nruns; i++)
		if (!r->runs[i].npages)
			return -EINVAL;
	return md_write_record(w, &rec);
}

/* --- MACHINE: meminfo and a walk of the page frames --- */

void md_machine_encode(struct md_buf *b, const struct md_record *rec)
{
	const struct md_machine *m = &rec->u.machine;

	md_buf_u64(b, m->time);
	md_buf_u32(b, m->nstats);
	md_buf_u32(b, 0);
	for (uint32_t i = 0; i < m->nstats; i++) {
		md_buf_u64(b, m->stats[i].value);
		md_buf_str(b, m->stats[i].key);
	}
}

int md_machine_decode(struct md_reader *r, struct md_cur *c,
		      struct md_record *rec)
{
	struct md_machine *m = &rec->u.machine;

	m->time = md_cur_u64(c);
	m->nstats = md_cur_u32(c);
	md_cur_u32(c);
	if (c->err)
		return c->err;
	if (m->nstats > MD_CGROUP_MAX_STATS ||
	    m->nstats > (c->len - c->pos) / MD_CG_STAT_MIN) {
		md_cur_fail(c, "machine counter count past the record");
		return c->err;
	}
	xgrow(&r->cgs, &r->cgs_cap, m->nstats ? m->nstats : 1, sizeof(*r->cgs));
	for (uint32_t i = 0; i < m->nstats; i++) {
		r->cgs[i].value = md_cur_u64(c);
		r->cgs[i].key = md_cur_str(c);
		if (c->err)
			return c->err;
	}
	m->stats = r->cgs;
	return 0;
}

/* With o->verbose, each counter on a line. */
void md_machine_print(FILE *out, const struct md_record *rec, const char *name,
		      const struct md_print_opts *o)
{
	const struct md_machine *m = &rec->u.machine;

	md_print_time(out, m->time);
	fprintf(out, "%s stats %u\n", name, m->nstats);
	print_stats(out, m->stats, o->verbose ? m->nstats : 0);
}

int md_write_machine(struct md_writer *w, const struct md_machine *r)
{
	struct md_record rec = {.type = MD_REC_MACHINE, .u.machine = *r};

	if (r->nstats > MD_CGROUP_MAX_STATS || (r->nstats && !r->stats))
		return -EINVAL;
	for (uint32_t i = 0; i < r->nstats; i++)
		if (!r->stats[i].key)
			return -EINVAL;
	return md_write_record(w, &rec);
}
