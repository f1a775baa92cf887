// SPDX-License-Identifier: GPL-2.0-or-later
/* faults.c — see faults.h */
#include "config.h"

#include "report/faults.h"

#include <errno.h>
#include <inttypes.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/jitsyms.h"
#include "report/unwind.h"
#include "util/hashmap.h"
#include "util/util.h"

#define MAX_FRAMES 128	      /* frames kept of one stack, innermost first */
#define FAULT_AROUND_SHIFT 16 /* the kernel's fault_around_bytes: 64 KiB */
/* Callchain entries at or above this are PERF_CONTEXT_* markers, not
 * addresses (<linux/perf_event.h>). */
#define PERF_CONTEXT_MAX ((uint64_t)-4095)
/* Page shift when the recording gives no page size: 4 KiB pages. */
#define DEFAULT_PAGE_SHIFT 12
/* Parents followed through forks to find who mapped or touched a page:
 * bounds the walk on a fork cycle in a damaged recording. */
#define MAX_FORK_DEPTH 16
/* page_key(): the pid goes from bit 40 up, the page number (addr >>
 * shift) below: user addresses of 4-level paging (47 bits) give page
 * numbers of at most 35 bits. */
#define PAGE_KEY_PID_SHIFT 40
/* "[FILE]" names a frame in a file without a symbol there; longer base
 * names are cut to fit. */
#define FRAME_NAME_MAX 300

/* One MMAP2 or MUNMAP record of a pid. */
struct hist_ent {
	uint64_t time, start, end, pgoff, ino;
	uint32_t prot, dev_major, dev_minor;
	size_t seq; /* record order within its pid */
	/* resolved on first use (ent_resolve) */
	uint32_t image_id;  /* UINT32_MAX: none */
	struct elfimg *img; /* usable ELF image, or NULL */
	uint64_t bias;	    /* load bias, if have_bias */
	bool resolved, have_bias, unmap;
	char *name;
};

struct proc {
	uint32_t pid, ppid;
	uint64_t fork_time;
	bool has_parent, has_limit;
	uint64_t limit;
	struct hist_ent *ents; /* sorted by start, then seq, once lookups
				  begin (sorted) */
	size_t n, cap;
	uint64_t *maxend; /* sorted: max end of ents[0..i] */
	bool sorted;
	/* times of its execs (an MMAP2 of "[stack]" from perf that is not
	 * the stack it had grown down: stack_exec()), in record order,
	 * sorted once lookups begin (with ents) */
	uint64_t *execs;
	size_t nexecs, execcap;
	uint64_t stack_start, stack_end; /* its last "[stack]" record's */
};

/* The pages (or fault-around windows) faulted in, by key (page_key). */
struct page_ent {
	uint64_t key, time;
	uint32_t callers, site;
};

struct page_hash {
	struct page_ent *ents; /* n, in order of first fault */
	size_t n, cap;
	struct hashmap index; /* of ents */
};

/* The pages (or windows) with an entry, by pid then address, for
 * faults_next(): appended as entries appear, sorted on first use. */
struct page_pos {
	uint32_t pid;
	uint64_t addr;
};

struct page_index {
	struct page_pos *v;
	size_t n, cap;
	bool sorted;
};

struct faults {
	struct attrib *a;
	struct labels *lb;
	struct unwinder *u;
	unsigned page_shift;
	struct proc *procs;
	size_t nprocs, proccap;
	struct page_hash pages, windows;
	struct page_index pidx, widx; /* of pages, of windows */
	uint32_t none, unknown;
	/* counts for the footer */
	uint64_t samples, used, late, nolimit, ip_only, nostack;
	uint64_t leaf_callers; /* callers chain_frames() put back */
	char *buf;	       /* scratch for stack labels */
	size_t bufcap;
	regex_t skip; /* frames faultsite looks past */
	bool have_skip;
	struct jitsyms *jit; /* names of JIT code, or NULL (borrowed) */
	/* the snapshot being read stands for MMAP2 records (MD_SNAP_F_MAPS)
	 * of this pid */
	bool in_maps;
	uint32_t maps_pid;
};

struct faults *faults_new(struct attrib *a, struct labels *lb,
			  const char *debug_root, uint64_t page_size)
{
	struct faults *f = xcalloc(1, sizeof(*f));

	f->a = a;
	f->lb = lb;
	f->u = unwind_new(debug_root);
	f->page_shift = DEFAULT_PAGE_SHIFT;
	while (page_size && (1ULL << f->page_shift) < page_size)
		f->page_shift++;
	f->none = labels_intern(lb, "[no fault seen]");
	f->unknown = labels_intern(lb, "[unknown]");
	return f;
}

void faults_free(struct faults *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->nprocs; i++) {
		for (size_t j = 0; j < f->procs[i].n; j++)
			free(f->procs[i].ents[j].name);
		free(f->procs[i].ents);
		free(f->procs[i].maxend);
		free(f->procs[i].execs);
	}
	free(f->procs);
	free(f->pages.ents);
	hashmap_free(&f->pages.index);
	free(f->windows.ents);
	hashmap_free(&f->windows.index);
	free(f->pidx.v);
	free(f->widx.v);
	free(f->buf);
	if (f->have_skip)
		regfree(&f->skip);
	unwind_free(f->u);
	free(f);
}

void faults_set_jit(struct faults *f, struct jitsyms *j)
{
	f->jit = j;
}

int faults_set_skip(struct faults *f, const char *regex)
{
	if (f->have_skip)
		regfree(&f->skip);
	f->have_skip = false;
	if (!regex || !regex[0])
		return 0;
	if (regcomp(&f->skip, regex, REG_EXTENDED | REG_NOSUB))
		return -MEMSZ_EUSAGE;
	f->have_skip = true;
	return 0;
}

/* The site of the stack in f->buf whose frame i (innermost first) starts
 * at starts[i]: the innermost frame the skip regex does not match. */
static uint32_t stack_site(struct faults *f, const size_t *starts, int n)
{
	size_t len = strlen(f->buf);

	for (int i = 0; f->have_skip && i < n; i++) {
		/* frame i ends at the ';' before frame i-1, or the end */
		size_t end = i ? starts[i - 1] - 1 : len;
		char save;
		bool skip;

		save = f->buf[end];
		f->buf[end] = 0;
		skip = !regexec(&f->skip, f->buf + starts[i], 0, NULL, 0);
		f->buf[end] = save;
		if (!skip) {
			char *name =
			    xstrndup(f->buf + starts[i], end - starts[i]);
			uint32_t l = labels_intern(f->lb, name);

			free(name);
			return l;
		}
	}
	return labels_intern(f->lb, f->buf + starts[0]);
}

static struct proc *proc_find(struct faults *f, uint32_t pid)
{
	for (size_t i = 0; i < f->nprocs; i++)
		if (f->procs[i].pid == pid)
			return &f->procs[i];
	return NULL;
}

static struct proc *proc_get(struct faults *f, uint32_t pid)
{
	struct proc *p = proc_find(f, pid);

	if (p)
		return p;
	xgrow(&f->procs, &f->proccap, f->nprocs + 1, sizeof(*f->procs));
	p = &f->procs[f->nprocs++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	return p;
}

/* Whether the MMAP2 record m of "[stack]" of p marks an exec. The kernel
 * reports the new stack at every exec, and the stack again each time it
 * grows down by a page: the same end, a lower start. Only a stack that is
 * not the last one grown down is a new program's (under setarch -R the
 * new stack ends where the old one did, but starts again small). */
static bool stack_exec(struct proc *p, const struct md_mmap2 *m)
{
	bool grown = p->stack_end && m->start + m->len == p->stack_end &&
		     m->start < p->stack_start;

	p->stack_start = m->start;
	p->stack_end = m->start + m->len;
	return !m->synthesized && !grown;
}

void faults_add_mmap2(struct faults *f, const struct md_mmap2 *m, bool unmap)
{
	struct proc *p = proc_get(f, m->pid);
	struct hist_ent *e;

	if (!m->len)
		return;
	if (!unmap && m->filename && !strcmp(m->filename, "[stack]") &&
	    stack_exec(p, m)) {
		xgrow(&p->execs, &p->execcap, p->nexecs + 1, sizeof(*p->execs));
		p->execs[p->nexecs++] = m->time;
	}
	xgrow(&p->ents, &p->cap, p->n + 1, sizeof(*p->ents));
	e = &p->ents[p->n++];
	*e = (struct hist_ent){
	    .time = m->time,
	    .start = m->start,
	    .end = m->start + m->len,
	    .pgoff = m->pgoff,
	    .ino = m->ino,
	    .prot = m->prot,
	    .dev_major = m->dev_major,
	    .dev_minor = m->dev_minor,
	    .seq = p->n - 1,
	    .image_id = UINT32_MAX,
	    .unmap = unmap,
	    .name = xstrdup(m->filename ? m->filename : ""),
	};
	p->sorted = false;
}

/* A snapshot's name of the mapping m as /proc/PID/maps gives it: the
 * snapshot names an unnamed anonymous mapping holding a thread's stack
 * pointer "[stack:TID]" (snap_name_thread_stacks), maps leaves it unnamed
 * (as the MMAP2 records synthesized from maps did). */
static const char *maps_name(const struct md_snap_mapping *m)
{
	if (!m->name || (!m->ino && !strncmp(m->name, "[stack:", 7)))
		return "";
	return m->name;
}

void faults_add_snap(struct faults *f, const struct md_record *rec)
{
	const struct md_snap_mapping *m = &rec->u.mapping;
	struct md_mmap2 mm;

	switch (rec->type) {
	case MD_REC_SNAP_BEGIN:
		f->in_maps = rec->u.snap_begin.flags & MD_SNAP_F_MAPS;
		f->maps_pid = rec->u.snap_begin.pid;
		return;
	case MD_REC_SNAP_END:
		f->in_maps = false;
		return;
	case MD_REC_SNAP_MAPPING:
		break;
	default:
		return;
	}
	if (!f->in_maps)
		return;
	/* The mappings were there before the recording: stamped at time 0,
	 * before every perf record, not at the snapshot's time, which is
	 * taken after the maps are read (and after more setup). A perf
	 * MMAP2 of a mapping replacing one of them meanwhile thus wins from
	 * its own time on (lookup: the latest record at or before a
	 * sample), and a sample before the snapshot finds these, not the
	 * first record after it. Time 0 rather than the pid's first record:
	 * equal times go by record order, and the snapshot may be written
	 * before perf records older than its time. */
	mm = (struct md_mmap2){
	    .time = 0,
	    .pid = f->maps_pid,
	    .tid = f->maps_pid,
	    .start = m->start,
	    .len = m->end - m->start,
	    .pgoff = m->pgoff,
	    .dev_major = m->dev_major,
	    .dev_minor = m->dev_minor,
	    .ino = m->ino,
	    .prot = m->prot,
	    .flags = m->flags & ~MD_MAP_LOCKED,
	    .synthesized = true,
	    .filename = maps_name(m),
	};
	faults_add_mmap2(f, &mm, false);
}

void faults_add_fork(struct faults *f, const struct md_task *t)
{
	struct proc *p;

	if (t->pid == t->ppid)
		return; /* a new thread, same address space */
	p = proc_get(f, t->pid);
	p->ppid = t->ppid;
	p->fork_time = t->time;
	p->has_parent = true;
}

void faults_set_limit(struct faults *f, uint32_t pid, uint64_t time)
{
	struct proc *p = proc_get(f, pid);

	p->limit = time;
	p->has_limit = true;
}

static int ent_cmp(const void *x, const void *y)
{
	const struct hist_ent *a = x, *b = y;

	if (a->start != b->start)
		return u64_cmp(a->start, b->start);
	return u64_cmp(a->seq, b->seq);
}

static int u64_cmp_p(const void *x, const void *y)
{
	return u64_cmp(*(const uint64_t *)x, *(const uint64_t *)y);
}

/* Sort p's records by start and note the running maximum of their ends,
 * so that the records holding an address are found by binary search. */
static void proc_sort(struct proc *p)
{
	uint64_t max = 0;

	/* a pid seen only in samples or forks has no records, and ents is
	 * NULL while empty: qsort wants an array */
	if (p->n)
		qsort(p->ents, p->n, sizeof(*p->ents), ent_cmp);
	if (p->nexecs)
		qsort(p->execs, p->nexecs, sizeof(*p->execs), u64_cmp_p);
	free(p->maxend);
	p->maxend = xmalloc((p->n + 1) * sizeof(*p->maxend));
	for (size_t i = 0; i < p->n; i++) {
		max = MAX(max, p->ents[i].end);
		p->maxend[i] = max;
	}
	p->sorted = true;
}

/* The address space of p at time t began at *lo (its latest exec at or
 * before t, 0: none) and ends before *hi (its next exec, UINT64_MAX:
 * none): records and faults outside [*lo, *hi) belong to another
 * program. */
static void exec_span(struct proc *p, uint64_t t, uint64_t *lo, uint64_t *hi)
{
	size_t a = 0, b;

	if (!p->sorted)
		proc_sort(p);
	b = p->nexecs;
	while (a < b) { /* execs [0, a) are at or before t */
		size_t mid = a + (b - a) / 2;

		if (p->execs[mid] <= t)
			a = mid + 1;
		else
			b = mid;
	}
	*lo = a ? p->execs[a - 1] : 0;
	*hi = a < p->nexecs ? p->execs[a] : UINT64_MAX;
}

/* Is e a better pick than cur (NULL: none) for time t: the latest record
 * at or before t (the last one recorded among equal times), else the
 * earliest one after t (the first recorded among equal times)? */
static bool ent_better(const struct hist_ent *e, const struct hist_ent *cur,
		       uint64_t t)
{
	if (!cur)
		return true;
	if ((e->time <= t) != (cur->time <= t))
		return e->time <= t;
	if (e->time != cur->time)
		return e->time <= t ? e->time > cur->time : e->time < cur->time;
	return e->time <= t ? e->seq > cur->seq : e->seq < cur->seq;
}

/* The record of p holding addr at time t among those made in [xlo, xhi):
 * the latest at or before t, else (mappings listed from /proc after the
 * fact) the earliest one. NULL if none. */
static struct hist_ent *lookup_span(struct proc *p, uint64_t t, uint64_t addr,
				    uint64_t xlo, uint64_t xhi)
{
	struct hist_ent *best = NULL;
	size_t lo = 0, hi = p->n;

	/* records [0, hi) start at or before addr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->ents[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = hi; i-- > 0 && p->maxend[i] > addr;) {
		struct hist_ent *e = &p->ents[i];

		if (addr < e->end && e->time >= xlo && e->time < xhi &&
		    ent_better(e, best, t))
			best = e;
	}
	return best;
}

/* The mapping of p holding addr at time t: among the records of the
 * program it ran then (since its last exec, before its next one); else
 * among those of before that exec, then the parent's before the fork:
 * an address the program exec'd does not map is the ip of a fault the
 * kernel took in execve for the new program, with the registers of the
 * old one (they are until execve returns). NULL if none or unmapped. */
static struct hist_ent *lookup(struct faults *f, struct proc *p, uint64_t t,
			       uint64_t addr)
{
	for (int depth = 0; p && depth < MAX_FORK_DEPTH; depth++) {
		struct hist_ent *best;
		uint64_t xlo, xhi;

		exec_span(p, t, &xlo, &xhi);
		best = lookup_span(p, t, addr, xlo, xhi);
		if (!best && xlo)
			best = lookup_span(p, t, addr, 0, xlo);
		if (best)
			return best->unmap ? NULL : best;
		if (!p->has_parent)
			return NULL;
		t = MIN(t, p->fork_time);
		p = proc_find(f, p->ppid);
	}
	return NULL;
}

/* Resolve e's image and load bias (once). */
static void ent_resolve(struct faults *f, struct hist_ent *e)
{
	if (e->resolved)
		return;
	e->resolved = true;
	if (e->name[0] == '/')
		e->image_id = attrib_image_lookup(f->a, e->name, e->dev_major,
						  e->dev_minor, e->ino);
	if (e->image_id == UINT32_MAX)
		return;
	e->img = attrib_image_elf(f->a, e->image_id);
	e->have_bias = attrib_image_bias(f->a, e->image_id, e->start, e->end,
					 e->pgoff, e->prot, &e->bias) == 0;
}

struct find_arg {
	struct faults *f;
	struct proc *p;
	uint64_t time;
};

static int find_map(void *arg, uint64_t addr, struct unwind_map *out)
{
	struct find_arg *fa = arg;
	struct hist_ent *e = lookup(fa->f, fa->p, fa->time, addr);

	if (!e)
		return -ENOENT;
	ent_resolve(fa->f, e);
	*out = (struct unwind_map){
	    .start = e->start,
	    .end = e->end,
	    .pgoff = e->pgoff,
	    .img = e->img,
	    .have_bias = e->have_bias,
	    .bias = e->bias,
	};
	return 0;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* Name of the frame at ip (a return address unless innermost): appended
 * to f->buf at *len. */
static void frame_name(struct faults *f, struct find_arg *fa, uint64_t ip,
		       bool innermost, size_t *len)
{
	uint64_t at = innermost || !ip ? ip : ip - 1;
	struct hist_ent *e = lookup(f, fa->p, fa->time, at);
	char tmp[FRAME_NAME_MAX];
	const char *name = tmp;
	uint32_t l;

	if (e)
		ent_resolve(f, e);
	if (e && e->have_bias &&
	    (l = attrib_image_symbol(f->a, e->image_id, at - e->bias)) !=
		LABEL_NONE) {
		name = labels_str(f->lb, l);
	} else if ((!e || e->image_id == UINT32_MAX) && f->jit &&
		   (l = jitsyms_lookup(f->jit, fa->p->pid, at)) != LABEL_NONE) {
		name = labels_str(f->lb, l);
	} else if (!e) {
		name = "[unknown]";
	} else if (e->name[0] == '[') {
		name = e->name;
	} else if (e->name[0]) {
		snprintf(tmp, sizeof(tmp), "[%s]", base_name(e->name));
	} else {
		name = "[anon]";
	}
	xgrow(&f->buf, &f->bufcap, *len + strlen(name) + 2, 1);
	if (*len)
		f->buf[(*len)++] = ';';
	memcpy(f->buf + *len, name, strlen(name) + 1);
	/* ';' joins the frames: one in a name (JVM perf map agents name
	 * methods by class descriptors, "Ljava/lang/String;::hashCode") would
	 * split the frame in two in folded stacks and flame graphs; it
	 * becomes ':', as perf's stackcollapse does */
	for (char *c = f->buf + *len; (c = strchr(c, ';'));)
		*c = ':';
	*len += strlen(name);
}

/* The entry of key in h, or NULL; p is left ready for a put. */
static struct page_ent *hash_find(const struct page_hash *h, uint64_t key,
				  struct hashmap_probe *p)
{
	uint32_t i;

	for (i = hashmap_first(&h->index, hashmap_hash_u64(key), p);
	     i != HASHMAP_NONE; i = hashmap_next(&h->index, p))
		if (h->ents[i].key == key)
			return &h->ents[i];
	return NULL;
}

/* The entry of key in h, added (zeroed but for its key) if new; *added
 * says which. Borrowed: valid until the next hash_slot() on h. */
static struct page_ent *hash_slot(struct page_hash *h, uint64_t key,
				  bool *added)
{
	struct hashmap_probe p;
	struct page_ent *e = hash_find(h, key, &p);

	*added = !e;
	if (e)
		return e;
	xgrow(&h->ents, &h->cap, h->n + 1, sizeof(*h->ents));
	e = &h->ents[h->n];
	*e = (struct page_ent){.key = key};
	hashmap_put(&h->index, &p, (uint32_t)h->n++);
	return e;
}

static const struct page_ent *hash_get(const struct page_hash *h, uint64_t key)
{
	struct hashmap_probe p;

	return hash_find(h, key, &p);
}

static uint64_t page_key(uint32_t pid, uint64_t addr, unsigned shift)
{
	return ((uint64_t)pid << PAGE_KEY_PID_SHIFT) ^ (addr >> shift);
}

static void index_add(struct page_index *x, uint32_t pid, uint64_t addr)
{
	xgrow(&x->v, &x->cap, x->n + 1, sizeof(*x->v));
	x->v[x->n++] = (struct page_pos){.pid = pid, .addr = addr};
	x->sorted = false;
}

static int pos_cmp(const void *a, const void *b)
{
	const struct page_pos *p = a, *q = b;

	if (p->pid != q->pid)
		return p->pid < q->pid ? -1 : 1;
	return p->addr < q->addr ? -1 : p->addr > q->addr;
}

/* The first entry of pid at or after addr in x, or NULL. */
static const struct page_pos *index_from(struct page_index *x, uint32_t pid,
					 uint64_t addr)
{
	size_t lo = 0, hi = x->n;

	if (!x->sorted) {
		if (x->n)
			qsort(x->v, x->n, sizeof(*x->v), pos_cmp);
		x->sorted = true;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct page_pos *m = &x->v[mid];

		if (m->pid < pid || (m->pid == pid && m->addr < addr))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < x->n && x->v[lo].pid == pid ? &x->v[lo] : NULL;
}

/* Remember callers and site as the stack that made the page of s (and its
 * fault-around window) resident, unless a later fault of it is known. */
static void remember_fault(struct faults *f, struct proc *p,
			   const struct md_sample *s, uint32_t callers,
			   uint32_t site)
{
	struct page_ent *e;
	uint64_t xlo, xhi;
	bool added;

	exec_span(p, s->time, &xlo, &xhi);
	f->used++;
	e = hash_slot(&f->pages, page_key(s->pid, s->addr, f->page_shift),
		      &added);
	if (added)
		index_add(&f->pidx, s->pid,
			  s->addr >> f->page_shift << f->page_shift);
	else if (e->time > s->time)
		goto window; /* a later fault of this page is known */
	*e = (struct page_ent){
	    .key = e->key,
	    .time = s->time,
	    .callers = callers,
	    .site = site,
	};
window:
	e = hash_slot(&f->windows,
		      page_key(s->pid, s->addr, FAULT_AROUND_SHIFT), &added);
	if (!added && e->time <= s->time && e->time >= xlo)
		return; /* the first fault of the window brought it in
			   (since the exec that made the address space) */
	if (added)
		index_add(&f->widx, s->pid,
			  s->addr >> FAULT_AROUND_SHIFT << FAULT_AROUND_SHIFT);
	*e = (struct page_ent){
	    .key = e->key,
	    .time = s->time,
	    .callers = callers,
	    .site = site,
	};
}

/* The frames of s's frame-pointer callchain (--call-graph fp) into ips,
 * innermost first. The kernel walks from rbp, which a function that has
 * not set up its frame (a leaf built without a frame pointer, glibc's
 * memset, a prologue not yet run) leaves as its caller's: the caller is
 * skipped, its caller's return address coming second (perf script shows
 * the same). With the leaf's bp, sp, ip and stack top (recorded since),
 * one step of the leaf's .eh_frame (libunwind) finds its real return
 * address: where the chain's second frame is another, that caller is put
 * back. A leaf whose frame was set up gives the chain's own second
 * frame. Only a leaf whose ip an unwind table covers is stepped: for one
 * without (JIT code in an anonymous mapping, an image without CFI)
 * libunwind guesses (1.6 takes the word at rsp, maybe a pushed register),
 * which would put in a wrong caller.
 * perf does the same on arm64 with the link register it samples beside
 * an fp chain (get_leaf_frame_caller_aarch64: two frames of DWARF
 * unwinding); on x86 it keeps the kernel's chain. Not found: a leaf
 * frame beyond the stack copy, or recursion whose skipped caller has the
 * same return address as its own caller. */
static int chain_frames(struct faults *f, struct find_arg *fa,
			const struct md_sample *s, const struct unwind_regs *r,
			uint64_t *ips)
{
	uint64_t leaf[2];
	int n = 0;

	for (uint32_t i = 0; i < s->ncallchain && n < MAX_FRAMES; i++)
		if (s->callchain[i] < PERF_CONTEXT_MAX)
			ips[n++] = s->callchain[i];
	if (n && n < MAX_FRAMES && s->abi && s->nregs &&
	    unwind_has_info(f->u, r, find_map, fa, ips[0]) &&
	    unwind_sample(f->u, r, find_map, fa, leaf, 2) == 2 &&
	    leaf[0] == ips[0] && (n == 1 || leaf[1] != ips[1])) {
		memmove(ips + 2, ips + 1, (size_t)(n - 1) * sizeof(*ips));
		ips[1] = leaf[1];
		n++;
		f->leaf_callers++;
	}
	return n;
}

int faults_add_sample(struct faults *f, const struct md_sample *s)
{
	struct find_arg fa = {.f = f, .time = s->time};
	struct unwind_regs r = {
	    .abi = s->abi,
	    .mask = s->regs_mask,
	    .regs = s->regs,
	    .nregs = s->nregs,
	    .sp = s->stack_sp,
	    .stack = s->stack,
	    .stack_size = s->stack_size,
	};
	uint64_t ips[MAX_FRAMES];
	size_t starts[MAX_FRAMES];
	uint32_t callers, site;
	size_t len = 0;
	int n = 0;

	f->samples++;
	fa.p = proc_find(f, s->pid);
	if (!fa.p || !fa.p->has_limit) {
		f->nolimit++;
		return 0;
	}
	if (s->time > fa.p->limit) {
		f->late++;
		return 0;
	}
	if (s->ncallchain)
		n = chain_frames(f, &fa, s, &r, ips);
	else if (s->abi && s->nregs)
		n = unwind_sample(f->u, &r, find_map, &fa, ips, MAX_FRAMES);
	if (n <= 0 && s->ip) {
		ips[0] = s->ip;
		n = 1;
		f->nostack++;
	} else if (n == 1) {
		f->ip_only++;
	}
	if (n <= 0) {
		callers = site = f->unknown;
	} else {
		for (int i = n - 1; i >= 0; i--) {
			starts[i] = len ? len + 1 : 0; /* after the ';' */
			frame_name(f, &fa, ips[i], i == 0, &len);
		}
		callers = labels_intern(f->lb, f->buf);
		site = stack_site(f, starts, n);
	}
	remember_fault(f, fa.p, s, callers, site);
	return 0;
}

bool faults_page(struct faults *f, uint32_t pid, uint64_t va, bool file,
		 uint32_t *callers, uint32_t *site)
{
	const struct page_ent *e = NULL;
	struct proc *p = proc_find(f, pid);
	uint64_t before = p && p->has_limit ? p->limit : UINT64_MAX;

	/* A forked child shares its parent's pages of before the fork:
	 * those the child never faulted on are the parent's, unless it has
	 * exec'd since. A fault before the exec that made the address space
	 * is another program's. */
	for (int depth = 0; depth < MAX_FORK_DEPTH; depth++) {
		uint64_t xlo = 0, xhi;

		if (p)
			exec_span(p, before, &xlo, &xhi);
		e = hash_get(&f->pages, page_key(pid, va, f->page_shift));
		if (e && e->time < xlo)
			e = NULL;
		if (!e && file)
			e = hash_get(&f->windows,
				     page_key(pid, va, FAULT_AROUND_SHIFT));
		if (e && (e->time > before || e->time < xlo))
			e = NULL;
		if (e || !p || !p->has_parent || xlo > p->fork_time)
			break;
		before = MIN(before, p->fork_time);
		pid = p->ppid;
		p = proc_find(f, pid);
	}
	if (!e) {
		*callers = *site = f->none;
		return false;
	}
	*callers = e->callers;
	*site = e->site;
	return true;
}

uint64_t faults_next(struct faults *f, uint32_t pid, uint64_t va, uint64_t end,
		     bool file)
{
	const uint64_t wmask = ((uint64_t)1 << FAULT_AROUND_SHIFT) - 1;
	struct proc *p = proc_find(f, pid);
	uint64_t next = end;

	/* the same chain of parents as faults_page() */
	for (int depth = 0; depth < 16 && next > va; depth++) {
		const struct page_pos *e = index_from(&f->pidx, pid, va);

		if (e && e->addr < next)
			next = e->addr;
		if (file) {
			e = index_from(&f->widx, pid, va & ~wmask);
			if (e && e->addr < next)
				next = MAX(e->addr, va);
		}
		if (!p || !p->has_parent)
			break;
		pid = p->ppid;
		p = proc_find(f, pid);
	}
	/* a window may start inside a page larger than it */
	return va + ((next - va) >> f->page_shift << f->page_shift);
}

uint32_t faults_none(const struct faults *f)
{
	return f->none;
}

void faults_notes(const struct faults *f, struct strlist *notes)
{
	if (!f->samples) {
		strlist_add_note(
		    notes, NOTE_SAMPLING, NULL,
		    xstrdup("no fault samples in the recording: every page is "
			    "[no fault seen] (record with --faults)"));
		return;
	}
	strlist_add_notef(notes, NOTE_SAMPLING, NULL,
			  "%" PRIu64 " fault samples, %" PRIu64 " before the "
			  "snapshots used, %" PRIu64 " after them ignored",
			  f->samples, f->used, f->late + f->nolimit);
	if (f->nostack || f->ip_only)
		strlist_add_notef(notes, NOTE_SAMPLING, NULL,
				  "%" PRIu64 " samples had no user stack and "
				  "%" PRIu64 " could not be unwound past "
				  "their first frame",
				  f->nostack, f->ip_only);
	if (f->leaf_callers)
		strlist_add_notef(notes, NOTE_SAMPLING, NULL,
				  "%" PRIu64 " frame-pointer call stacks got "
				  "back the caller of a function that had not "
				  "set up its frame, from its stack and "
				  ".eh_frame",
				  f->leaf_callers);
}
