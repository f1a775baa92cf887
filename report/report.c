/* report.c — see report.h */
#include "config.h"

#include "report/report.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "data/datafile.h"
#include "report/attrib.h"
#include "report/faults.h"
#include "util/util.h"

struct report_ctx;
struct snap_state;

/* A key: its name and, for keys whose labels come from the process rather
 * than from inside an image, the function giving the label of a part.
 * Image-internal keys name their attribution source instead. Adding a key
 * is one entry here (and one in enum report_key). */
struct report_keydef {
	const char *name;
	int src; /* enum attrib_src, or -1 */
	uint32_t (*label)(struct report_ctx *c, const struct attrib_map *m,
			  const struct attrib_part *p);
};

static uint32_t label_pid(struct report_ctx *c, const struct attrib_map *m,
			  const struct attrib_part *p);
static uint32_t label_file(struct report_ctx *c, const struct attrib_map *m,
			   const struct attrib_part *p);
static uint32_t label_mapping(struct report_ctx *c,
			      const struct attrib_map *m,
			      const struct attrib_part *p);

static uint32_t label_fault(struct report_ctx *c, const struct attrib_map *m,
			    const struct attrib_part *p);

static const struct report_keydef keydefs[RKEY__COUNT] = {
	[RKEY_PIDS] = { "pids", -1, label_pid },
	[RKEY_FILES] = { "files", -1, label_file },
	[RKEY_MAPPINGS] = { "mappings", -1, label_mapping },
	[RKEY_SEGMENTS] = { "segments", ASRC_SEGMENTS, NULL },
	[RKEY_SECTIONS] = { "sections", ASRC_SECTIONS, NULL },
	[RKEY_SYMBOLS] = { "symbols", ASRC_SYMBOLS, NULL },
	[RKEY_KINDS] = { "kinds", ASRC_KINDS, NULL },
	[RKEY_BBS] = { "bbs", ASRC_BBS, NULL },
	[RKEY_RELOCS] = { "relocs", ASRC_RELOCS, NULL },
	[RKEY_COMPILEUNITS] = { "compileunits", ASRC_COMPILEUNITS, NULL },
	[RKEY_INLINES] = { "inlines", ASRC_INLINES, NULL },
	[RKEY_CALLERS] = { "callers", -1, label_fault },
	[RKEY_FAULTSITE] = { "faultsite", -1, label_fault },
};

const char *report_key_name(enum report_key k)
{
	return keydefs[k].name;
}

const char *report_key_list(void)
{
	return "pids, files, mappings, segments, sections, symbols, kinds, "
	       "bbs, relocs, compileunits, inlines, callers, faultsite";
}

static const char *report_key_name_at(int k)
{
	return report_key_name((enum report_key)k);
}

int report_keys_parse(const char *spec, enum report_key *keys, char **bad)
{
	int idx[REPORT_MAX_KEYS];
	int n = keylist_parse(spec, report_key_name_at, RKEY__COUNT, idx, REPORT_MAX_KEYS, bad);

	for (int i = 0; i < n; i++)
		keys[i] = (enum report_key)idx[i];
	return n;
}

int report_pick_parse(const char *s, enum report_pick *pick,
		      uint64_t *index)
{
	if (!strcmp(s, "last"))
		*pick = PICK_LAST;
	else if (!strcmp(s, "first"))
		*pick = PICK_FIRST;
	else if (!strcmp(s, "peak"))
		*pick = PICK_PEAK;
	else if (parse_u64(s, index) == 0)
		*pick = PICK_INDEX;
	else
		return -1;
	return 0;
}

/* What pass 1 learns about one snapshot. */
struct snapinfo {
	uint64_t time;
	uint32_t pid, seq, flags;
	uint64_t offset;          /* file offset of its SNAP_BEGIN */
	uint64_t rss_pages;
	uint64_t unreadable;
	uint32_t nmappings, seen; /* announced by SNAP_BEGIN, and read */
	bool complete;            /* SNAP_END read after all its mappings */
};

struct pidinfo {
	uint32_t pid;
	char *comm;
	uint32_t label;
};

/* FILE SIZE is added once per image per distinct prefix of the keys that
 * do not come from inside images. */
struct seen_file {
	uint32_t image_id;
	uint32_t labels[REPORT_MAX_KEYS];
};

struct report_ctx {
	const struct report_opts *o;
	struct labels *lb;
	struct attrib *a;
	struct rowtree *t;
	struct report_result *res;

	struct snapinfo *snaps;
	size_t nsnaps, snapcap;
	struct pidinfo *pids;
	size_t npids, pidcap;
	uint64_t lost;
	size_t truncated_at;      /* 0: read to a clean end */
	char *stop;               /* why the read stopped early, or NULL */

	/* the walk */
	enum attrib_src srcs[REPORT_MAX_KEYS];
	size_t nsrcs;
	int src_of_key[REPORT_MAX_KEYS];   /* index into srcs, or -1 */
	uint32_t fixed[REPORT_MAX_KEYS];   /* labels of process keys */
	const struct pidinfo *cur_pid;
	bool has_mappings_key;
	struct seen_file *seen;
	size_t nseen, seencap;
	uint8_t *match;           /* filter cache per label: 0 ?, 1 y, 2 n */
	size_t matchcap;
	/* RSS under fallback labels per key (image keys), and all RSS */
	uint64_t fallback_rss[REPORT_MAX_KEYS], rss;
	bool want_faults;         /* callers/faultsite keys asked for */
	struct faults *faults;    /* made by pass 1 if want_faults */
	uint64_t page_size;
};

static struct pidinfo *pid_get(struct report_ctx *c, uint32_t pid)
{
	for (size_t i = 0; i < c->npids; i++)
		if (c->pids[i].pid == pid)
			return &c->pids[i];
	xgrow(&c->pids, &c->pidcap, c->npids + 1, sizeof(*c->pids));
	c->pids[c->npids] = (struct pidinfo){ .pid = pid };
	return &c->pids[c->npids++];
}

static uint32_t label_pid(struct report_ctx *c, const struct attrib_map *m,
			  const struct attrib_part *p)
{
	(void)m;
	(void)p;
	return c->cur_pid->label;
}

static uint32_t label_file(struct report_ctx *c, const struct attrib_map *m,
			   const struct attrib_part *p)
{
	(void)c;
	(void)m;
	return p->file_label;
}

static uint32_t label_mapping(struct report_ctx *c,
			      const struct attrib_map *m,
			      const struct attrib_part *p)
{
	char *s;
	uint32_t id;

	(void)p;
	s = xasprintf("%" PRIx64 "-%" PRIx64 " %c%c%c%c %s", m->start,
		      m->end, m->prot & PROT_READ ? 'r' : '-',
		      m->prot & PROT_WRITE ? 'w' : '-',
		      m->prot & PROT_EXEC ? 'x' : '-',
		      m->flags & MAP_SHARED ? 's' : 'p',
		      m->name && m->name[0] ? m->name : "[anon]");
	id = labels_intern(c->lb, s);
	free(s);
	return id;
}

static uint32_t label_fault(struct report_ctx *c, const struct attrib_map *m,
			    const struct attrib_part *p)
{
	(void)m;
	(void)p;
	return faults_none(c->faults); /* per page: see do_fault_groups */
}

static void note(struct report_ctx *c, char *line)
{
	strlist_add(&c->res->notes, line);
}

/* --- pass 1: images, comms, lost counts, notes, snapshot summaries --- */

static int pass1(struct report_ctx *c, char **msg)
{
	struct md_reader *r = NULL;
	struct md_record rec;
	struct snapinfo *cur = NULL;
	int ret;

	ret = md_reader_open(c->o->input, &r);
	if (ret < 0) {
		*msg = xasprintf("cannot read '%s': %s", c->o->input,
				 memsz_strerror(ret));
		return ret;
	}
	attrib_set_page_size(c->a, md_reader_header(r)->page_size);
	if (c->want_faults)
		c->faults = faults_new(c->a, c->lb, c->o->debug_root,
				       md_reader_header(r)->page_size);
	if (md_reader_header(r)->page_size)
		c->page_size = md_reader_header(r)->page_size;
	while ((ret = md_read_next(r, &rec)) > 0) {
		switch (rec.type) {
		case MD_REC_IMAGE:
			attrib_add_image(c->a, &rec.u.image);
			break;
		case MD_REC_COMM: {
			struct pidinfo *pi = pid_get(c, rec.u.task.pid);

			free(pi->comm);
			pi->comm = xstrdup(rec.u.task.comm ?
						   rec.u.task.comm : "");
			break;
		}
		case MD_REC_LOST:
			c->lost += rec.u.lost.count;
			break;
		case MD_REC_MMAP2:
		case MD_REC_MUNMAP:
			if (c->faults)
				faults_add_mmap2(c->faults, &rec.u.mmap2,
						 rec.type == MD_REC_MUNMAP);
			break;
		case MD_REC_FORK:
			if (c->faults)
				faults_add_fork(c->faults, &rec.u.task);
			break;
		case MD_REC_NOTE:
			note(c, xstrdup(rec.u.note.text));
			break;
		case MD_REC_SNAP_BEGIN:
			xgrow(&c->snaps, &c->snapcap, c->nsnaps + 1,
			      sizeof(*c->snaps));
			cur = &c->snaps[c->nsnaps++];
			*cur = (struct snapinfo){
				.pid = rec.u.snap_begin.pid,
				.seq = rec.u.snap_begin.seq,
				.flags = rec.u.snap_begin.flags,
				.offset = rec.offset,
				.time = rec.u.snap_begin.time,
				.nmappings = rec.u.snap_begin.nmappings,
			};
			pid_get(c, cur->pid);
			break;
		case MD_REC_SNAP_MAPPING:
			if (!cur)
				break;
			cur->seen++;
			for (size_t i = 0; i < rec.u.mapping.nruns; i++)
				if (rec.u.mapping.runs[i].flags &
				    MD_PG_PRESENT)
					cur->rss_pages +=
						rec.u.mapping.runs[i].npages;
			break;
		case MD_REC_SNAP_END:
			/* a snapshot the process's exit cut short has its
			 * SNAP_END but not all of its mappings */
			if (cur && cur->pid == rec.u.snap_end.pid &&
			    cur->seq == rec.u.snap_end.seq &&
			    cur->seen == cur->nmappings) {
				cur->complete = true;
				cur->unreadable =
					rec.u.snap_end.unreadable_pages;
			}
			cur = NULL;
			break;
		default:
			break;
		}
	}
	if (ret < 0) {
		c->truncated_at = md_reader_offset(r);
		c->stop = xasprintf("is damaged at offset %zu (%s: %s)",
				    c->truncated_at, memsz_strerror(ret),
				    md_reader_why(r));
	} else if (md_reader_cut_short(r)) {
		c->stop = xasprintf("was cut short at offset %" PRIu64 " (no "
				    "END record: the recording was killed or "
				    "its disk was full)", md_reader_offset(r));
	}
	if (c->stop)
		note(c, xasprintf("'%s' %s: read up to there", c->o->input,
				  c->stop));
	md_reader_close(r);
	return 0;
}

/* Choose one complete snapshot per pid; returns how many were chosen and
 * marks them in chosen[] (parallel to c->snaps). */
static size_t choose(struct report_ctx *c, bool *chosen)
{
	size_t nchosen = 0, incomplete = 0;

	for (size_t i = 0; i < c->nsnaps; i++)
		if (!c->snaps[i].complete)
			incomplete++;
	if (incomplete)
		note(c, xasprintf("%zu snapshot%s without an end record "
				  "(incomplete) ignored", incomplete,
				  incomplete == 1 ? "" : "s"));
	for (size_t p = 0; p < c->npids; p++) {
		uint32_t pid = c->pids[p].pid;
		long best = -1;
		uint64_t n = 0;

		if (c->o->pid >= 0 && (long)pid != c->o->pid)
			continue;
		for (size_t i = 0; i < c->nsnaps; i++) {
			const struct snapinfo *s = &c->snaps[i];

			if (s->pid != pid || !s->complete)
				continue;
			switch (c->o->pick) {
			case PICK_FIRST:
				if (best < 0)
					best = (long)i;
				break;
			case PICK_LAST:
				best = (long)i;
				break;
			case PICK_PEAK:
				if (best < 0 ||
				    s->rss_pages > c->snaps[best].rss_pages)
					best = (long)i;
				break;
			case PICK_INDEX:
				if (n == c->o->index)
					best = (long)i;
				break;
			}
			n++;
		}
		if (best < 0) {
			if (n && c->o->pick == PICK_INDEX)
				note(c, xasprintf("pid %u has %" PRIu64
						  " snapshots, no #%" PRIu64,
						  pid, n, c->o->index));
			continue;
		}
		chosen[best] = true;
		nchosen++;
		if (c->snaps[best].unreadable)
			note(c, xasprintf("pid %u: %" PRIu64 " page(s) could "
					  "not be read from pagemap", pid,
					  c->snaps[best].unreadable));
	}
	return nchosen;
}

/* --- pass 2: the chosen snapshots' mappings --- */

static bool label_matches(struct report_ctx *c, uint32_t id)
{
	if (id >= c->matchcap) {
		size_t old = c->matchcap;

		xgrow(&c->match, &c->matchcap, (size_t)id + 1, 1);
		memset(c->match + old, 0, c->matchcap - old);
	}
	if (!c->match[id])
		c->match[id] = regexec(c->o->filter, labels_str(c->lb, id), 0,
				       NULL, 0) == 0 ? 1 : 2;
	return c->match[id] == 1;
}

/* Add the RSS of a piece under a fallback label (size.h) to its key. */
static void count_fallback(struct report_ctx *c, const uint32_t *path,
			   const uint64_t *vals)
{
	c->rss += vals[COL_RSS];
	for (size_t i = 0; i < c->o->nkeys && vals[COL_RSS]; i++) {
		int src = keydefs[c->o->keys[i]].src;

		if (src < 0 || src == ASRC_KINDS)
			continue;
		if (elf_label_is_fallback(src == ASRC_SEGMENTS ?
						   ELFSRC_SEGMENTS :
						   ELFSRC_SYMBOLS,
					   labels_str(c->lb, path[i])))
			c->fallback_rss[i] += vals[COL_RSS];
	}
}

static void fallback_notes(struct report_ctx *c)
{
	for (size_t i = 0; i < c->o->nkeys; i++) {
		int src = keydefs[c->o->keys[i]].src;

		if (src < 0 || src == ASRC_KINDS)
			continue;
		note(c, xasprintf("%s: %" PRIu64 " bytes (%.1f%%) of RSS under "
				  "fallback labels", keydefs[c->o->keys[i]].name,
				  c->fallback_rss[i],
				  c->rss ? 100.0 * (double)c->fallback_rss[i] /
						   (double)c->rss :
					   0.0));
	}
}

static int add_piece(void *arg, const uint32_t *labels, const uint64_t *vals)
{
	struct report_ctx *c = arg;
	uint32_t path[REPORT_MAX_KEYS];
	bool keep = !c->o->filter;

	for (size_t i = 0; i < c->o->nkeys; i++) {
		path[i] = c->src_of_key[i] >= 0 ? labels[c->src_of_key[i]] :
						  c->fixed[i];
		if (!keep && label_matches(c, path[i]))
			keep = true;
	}
	if (keep) {
		rowtree_add(c->t, path, vals);
		count_fallback(c, path, vals);
	}
	return 0;
}

/* True the first time image_id is seen with the current process labels. */
static bool first_file_prefix(struct report_ctx *c, uint32_t image_id)
{
	struct seen_file sf = { .image_id = image_id };

	for (size_t i = 0; i < c->o->nkeys; i++)
		sf.labels[i] = c->src_of_key[i] < 0 ? c->fixed[i] : 0;
	for (size_t i = 0; i < c->nseen; i++)
		if (!memcmp(&c->seen[i], &sf, sizeof(sf)))
			return false;
	xgrow(&c->seen, &c->seencap, c->nseen + 1, sizeof(*c->seen));
	c->seen[c->nseen++] = sf;
	return true;
}

/* --- fault samples: the stack that made each page resident --- */

static void set_fault_labels(struct report_ctx *c, uint32_t callers,
			     uint32_t site)
{
	for (size_t k = 0; k < c->o->nkeys; k++)
		if (c->o->keys[k] == RKEY_CALLERS)
			c->fixed[k] = callers;
		else if (c->o->keys[k] == RKEY_FAULTSITE)
			c->fixed[k] = site;
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
	return attrib_charge(g->c->a, &sub, &mm, g->c->srcs, g->c->nsrcs,
			     g->with_pss, add_piece, g->c);
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
						    c->cur_pid->pid, va, e,
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
			faults_page(c->faults, c->cur_pid->pid, va, file,
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

static int pass_faults(struct report_ctx *c, const bool *chosen, char **msg)
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
	n = attrib_classify(c->a, &m, *have_prev ? prev : NULL, parts);
	for (int i = 0; i < n; i++) {
		const struct attrib_part *p = &parts[i];

		for (size_t k = 0; k < c->o->nkeys; k++)
			if (c->src_of_key[k] < 0)
				c->fixed[k] = keydefs[c->o->keys[k]].label(
					c, &m, p);
		if (c->faults)
			ret = charge_by_fault(c, p, &m, with_pss);
		else
			ret = attrib_charge(c->a, p, &m, c->srcs, c->nsrcs,
					    with_pss, add_piece, c);
		if (ret)
			return ret;
		if (!attrib_file_size(p))
			continue;
		if (c->has_mappings_key) {
			uint64_t off;

			if (p->cls == ACLS_BSS)
				continue;
			off = m.pgoff + (p->start - m.start);
			ret = attrib_file(c->a, p, off,
					  off + (p->end - p->start), c->srcs,
					  c->nsrcs, add_piece, c);
		} else if (first_file_prefix(c, attrib_image_id(p))) {
			ret = attrib_file(c->a, p, 0, UINT64_MAX, c->srcs,
					  c->nsrcs, add_piece, c);
		}
		if (ret)
			return ret;
	}
	*prev = parts[n - 1];
	*have_prev = true;
	return 0;
}

static int pass2(struct report_ctx *c, const bool *chosen, char **msg)
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
				have_prev = false;
				with_pss = c->snaps[next].flags &
					   MD_SNAP_F_PFN;
				for (size_t p = 0; p < c->npids; p++)
					if (c->pids[p].pid ==
					    c->snaps[next].pid)
						c->cur_pid = &c->pids[p];
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

int report_build(const struct report_opts *o, struct labels *lb,
		 struct report_result *res, char **msg)
{
	struct report_ctx c = { .o = o, .lb = lb, .res = res,
				.page_size = 4096 };
	bool *chosen = NULL;
	int ret;

	*msg = NULL;
	c.a = attrib_new(lb, o->debug_root);
	res->t = c.t = rowtree_new(lb, o->nkeys);
	for (size_t i = 0; i < o->nkeys; i++) {
		int src = keydefs[o->keys[i]].src;

		c.src_of_key[i] = -1;
		if (o->keys[i] == RKEY_MAPPINGS)
			c.has_mappings_key = true;
		if (o->keys[i] == RKEY_CALLERS ||
		    o->keys[i] == RKEY_FAULTSITE)
			c.want_faults = true;
		if (src < 0)
			continue;
		c.src_of_key[i] = (int)c.nsrcs;
		c.srcs[c.nsrcs++] = src;
	}

	ret = pass1(&c, msg);
	if (ret < 0)
		goto out;
	for (size_t i = 0; i < c.npids; i++) {
		char *s = c.pids[i].comm && c.pids[i].comm[0] ?
				  xasprintf("%u %s", c.pids[i].pid,
					    c.pids[i].comm) :
				  xasprintf("%u", c.pids[i].pid);

		c.pids[i].label = labels_intern(lb, s);
		free(s);
	}
	chosen = xcalloc(c.nsnaps + 1, sizeof(*chosen));
	res->nsnapshots = choose(&c, chosen);
	if (!res->nsnapshots) {
		ret = -ENOENT;
		if (o->pid >= 0)
			*msg = xasprintf("'%s' has no complete snapshot of "
					 "pid %ld", o->input, o->pid);
		else
			*msg = xasprintf("'%s' has no complete snapshot%s%s",
					 o->input, c.stop ? ": it " : "",
					 c.stop ? c.stop : "");
		goto out;
	}
	res->have_pss = true;
	for (size_t i = 0; i < c.nsnaps; i++)
		if (chosen[i] && !(c.snaps[i].flags & MD_SNAP_F_PFN))
			res->have_pss = false;

	if (c.faults) {
		ret = pass_faults(&c, chosen, msg);
		if (ret < 0)
			goto out;
	}
	ret = pass2(&c, chosen, msg);
	if (ret < 0)
		goto out;
	if (c.faults)
		faults_notes(c.faults, &res->notes);
	if (c.lost)
		note(&c, xasprintf("%" PRIu64 " perf records were lost while "
				   "recording: the mapping history may miss "
				   "events (snapshots are complete)", c.lost));
	attrib_notes(c.a, &res->notes);
	fallback_notes(&c);
	if (!res->have_pss)
		note(&c, xstrdup("no PSS: recorded without access to page "
				 "frame numbers (needs CAP_SYS_ADMIN)"));
out:
	free(chosen);
	for (size_t i = 0; i < c.npids; i++)
		free(c.pids[i].comm);
	free(c.pids);
	free(c.snaps);
	free(c.stop);
	free(c.seen);
	free(c.match);
	faults_free(c.faults);
	attrib_free(c.a);
	return ret;
}

void report_result_free(struct report_result *res)
{
	rowtree_free(res->t);
	strlist_free(&res->notes);
	memset(res, 0, sizeof(*res));
}
