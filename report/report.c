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
#include "report/jitsyms.h"
#include "report/keys.h"
#include "util/util.h"

struct report_ctx;
struct snap_state;

/* Snapshots of several processes further apart than this are not one
 * moment (the footer says so); one round of snapshots of a few processes
 * takes far less. */
#define MOMENT_NS 1000000000ull

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
	uint32_t nth;             /* PICK_ALL: its index among its pid's */
	bool complete;            /* SNAP_END read after all its mappings */
};

struct pidinfo {
	uint32_t pid;
	char *comm;          /* last COMM record */
	char *cmdline;       /* last CMDLINE record */
	uint32_t label;      /* pids: "PID name" */
	uint32_t comm_label; /* comms: the command name */
	uint64_t vm_hwm;     /* highest VmHWM its snapshots recorded */
	char *user;          /* owner, from a COMM record with one */
	uint32_t user_label; /* users: the owner */
};

/* Longest process name in a pids label: command lines can run to
 * kilobytes (a JVM's), a label needs its start. */
#define PID_NAME_MAX 72

/* FILE SIZE and the VM SIZE of file mappings count once per row: a file
 * mapped by several processes counts once in the TOTAL and in every row
 * above the process keys. One entry per (file or VM walk of an image over
 * a file range, level, labels of the keys above that level that do not
 * come from inside images) already charged. */
struct share_key {
	uint32_t image_id;
	uint32_t level;           /* depth, | SHARE_VM for a VM walk */
	uint64_t off, end;        /* file range walked */
	uint32_t step;            /* PICK_ALL: the step charged */
	uint32_t labels[KEYS_MAX];
};
#define SHARE_VM 0x80000000u

struct share_set {
	struct share_key *keys;
	size_t n, cap;
	uint32_t *slots;          /* index + 1 into keys; 0: empty */
	size_t mask;              /* nslots - 1 */
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
	enum key_id srcs[KEYS_MAX];     /* the image keys */
	size_t nsrcs;
	int src_of_key[KEYS_MAX];   /* index into srcs, or -1 */
	uint32_t fixed[KEYS_MAX];   /* labels of process keys */
	const struct pidinfo *cur_pid;
	bool has_mappings_key;
	struct share_set shared;
	bool shared_once;         /* a file counted once for several rows */
	size_t share_from;        /* add_piece: rowtree_add_from() level */
	unsigned share_cols;      /* and columns (0: plain rowtree_add) */
	uint32_t cur_subject[2];  /* labels of the part being charged */
	uint8_t *shown;           /* per label: a kept row came from it */
	size_t showncap;
	/* RSS under fallback labels per key (image keys), and all RSS */
	uint64_t fallback_rss[KEYS_MAX], rss;
	bool want_faults;         /* callers/faultsite keys asked for */
	struct faults *faults;    /* made by pass 1 if want_faults */
	uint64_t page_size;
	struct jitsyms *jit;      /* JIT code names (JITMAP records) */
	bool want_jit;            /* symbols key: name anonymous JIT code */
	uint32_t jit_label;       /* symbols label of the piece charged, or
				     LABEL_NONE */
	uint64_t start_ns;        /* header start_mono_ns */
	uint32_t step;            /* PICK_ALL: step of the snapshot read */
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

/* The labels of process pi: "PID name" for pids, where name is its last
 * command line (cut to PID_NAME_MAX bytes, "..." marking the cut), else its
 * command name; the command name for comms ("[unknown]" without one). */
static void pid_labels(struct labels *lb, struct pidinfo *pi)
{
	const char *name = pi->cmdline && pi->cmdline[0] ? pi->cmdline :
			   pi->comm ? pi->comm : "";
	size_t len = strlen(name);
	char *s;

	if (!name[0])
		s = xasprintf("%u", pi->pid);
	else if (len > PID_NAME_MAX)
		s = xasprintf("%u %.*s...", pi->pid, PID_NAME_MAX, name);
	else
		s = xasprintf("%u %s", pi->pid, name);
	pi->label = labels_intern(lb, s);
	free(s);
	pi->comm_label = labels_intern(lb, pi->comm && pi->comm[0] ?
						   pi->comm : "[unknown]");
	pi->user_label = labels_intern(lb, pi->user ? pi->user :
						      "[unknown user]");
}

static uint32_t label_mapping(struct report_ctx *c,
			      const struct attrib_map *m)
{
	char *s;
	uint32_t id;

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

/* The label of part p of mapping m under key k, a key that is not an
 * image key (those are labelled piece by piece by attrib_charge). Fault
 * keys get a placeholder here: their labels are set per page (see
 * do_fault_groups). */
static uint32_t fixed_label(struct report_ctx *c, enum key_id k,
			    const struct attrib_map *m,
			    const struct attrib_part *p)
{
	switch (keydefs[k].space) {
	case KEYSP_PROCESS:
		if (k == KEY_PIDS)
			return c->cur_pid->label;
		if (k == KEY_COMMS)
			return c->cur_pid->comm_label;
		if (k == KEY_USERS)
			return c->cur_pid->user_label;
		return label_mapping(c, m);
	case KEYSP_FILE:
		return p->file_label;
	case KEYSP_FAULT:
	default:
		return faults_none(c->faults);
	}
}

static void note(struct report_ctx *c, char *line)
{
	strlist_add(&c->res->notes, line);
}

/* How a report shows each kind of note `memsz record` writes (a row per
 * kind the footer treats apart; every other kind is shown as it is): the
 * footer's note kind, and whether it matters only to fault keys. */
static const struct {
	enum note_kind kind;
	bool faults_only;
} recorded_kinds[MD_NOTE__COUNT] = {
	[MD_NOTE_NO_PFN] = { NOTE_NO_PSS, false },
	[MD_NOTE_UNREADABLE_PAGES] = { NOTE_UNREADABLE, false },
	[MD_NOTE_EVENT] = { NOTE_SAMPLING, true },
	[MD_NOTE_USER_FAULTS_ONLY] = { NOTE_SAMPLING, true },
	[MD_NOTE_RING_SMALL] = { NOTE_SAMPLING, true },
	[MD_NOTE_HELD] = { NOTE_SAMPLING, true },
};

/* A note written by `memsz record`, grouped by its recorded kind (a kind
 * this memsz does not know is shown as it is). */
static void recorded_note(struct report_ctx *c, const struct md_note *n)
{
	uint32_t k = n->kind < MD_NOTE__COUNT ? n->kind : MD_NOTE_OTHER;

	if (recorded_kinds[k].faults_only && !c->want_faults)
		return;
	strlist_add_note(&c->res->notes, recorded_kinds[k].kind,
			 n->subject[0] ? n->subject : NULL, xstrdup(n->text));
}

/* --- pass 1: images, comms, lost counts, notes, snapshot summaries --- */

/* Keep im's path and build-id in res (for pprof mappings). */
static void result_add_image(struct report_result *res,
			     const struct md_image *im)
{
	char *hex = xcalloc(1, 2 * im->build_id_len + 1);

	for (uint32_t i = 0; i < im->build_id_len && i < 20; i++)
		sprintf(hex + 2 * i, "%02x", im->build_id[i]);
	res->images = xrealloc(res->images,
			       (res->nimages + 1) * sizeof(*res->images));
	res->images[res->nimages++] = (struct out_image){
		.path = xstrdup(im->path ? im->path : ""),
		.build_id = hex,
	};
}

/* Keep every complete snapshot's total RSS in res (the html timeline). */
static void result_set_snaps(struct report_ctx *c, const bool *chosen)
{
	struct report_result *res = c->res;

	res->snaps = xcalloc(c->nsnaps + 1, sizeof(*res->snaps));
	for (size_t i = 0; i < c->nsnaps; i++)
		if (c->snaps[i].complete)
			res->snaps[res->nsnaps++] = (struct out_snap){
				.time_ns = c->snaps[i].time,
				.pid = c->snaps[i].pid,
				.rss = c->snaps[i].rss_pages * c->page_size,
				.chosen = chosen[i],
			};
}

/* Pass 1's set-up from the file header: page size, start time, and the
 * fault matcher when fault keys are asked for. Returns 0, or a negative
 * code with *msg. */
static int pass1_setup(struct report_ctx *c, struct md_reader *r,
		       char **msg)
{
	const struct md_file_header *h = md_reader_header(r);

	attrib_set_page_size(c->a, h->page_size);
	if (c->want_faults) {
		c->faults = faults_new(c->a, c->lb, c->o->debug_root,
				       h->page_size);
		if (faults_set_skip(c->faults, c->o->skip_frames ?
						       c->o->skip_frames :
						       FAULTS_SKIP_DEFAULT)) {
			*msg = xasprintf("bad --skip-frames '%s'",
					 c->o->skip_frames);
			return -MEMSZ_EUSAGE;
		}
	}
	if (h->page_size)
		c->page_size = h->page_size;
	c->start_ns = h->start_mono_ns;
	return 0;
}

/* A COMM or CMDLINE record: the process's name, command line and owner. */
static void pass1_task(struct report_ctx *c, const struct md_record *rec)
{
	struct pidinfo *pi = pid_get(c, rec->u.task.pid);
	char **to = rec->type == MD_REC_COMM ? &pi->comm : &pi->cmdline;

	free(*to);
	*to = xstrdup(rec->u.task.comm ? rec->u.task.comm : "");
	if (rec->type == MD_REC_COMM && rec->u.task.has_owner) {
		free(pi->user);
		pi->user = rec->u.task.user && rec->u.task.user[0] ?
				   xstrdup(rec->u.task.user) :
				   xasprintf("uid %u", rec->u.task.uid);
	}
}

/* The snapshot records: a summary of each snapshot (*cur is the one being
 * read, NULL between snapshots). */
static void pass1_snap(struct report_ctx *c, const struct md_record *rec,
		       struct snapinfo **cur)
{
	struct snapinfo *s = *cur;

	switch (rec->type) {
	case MD_REC_SNAP_BEGIN:
		xgrow(&c->snaps, &c->snapcap, c->nsnaps + 1,
		      sizeof(*c->snaps));
		s = *cur = &c->snaps[c->nsnaps++];
		*s = (struct snapinfo){
			.pid = rec->u.snap_begin.pid,
			.seq = rec->u.snap_begin.seq,
			.flags = rec->u.snap_begin.flags,
			.offset = rec->offset,
			.time = rec->u.snap_begin.time,
			.nmappings = rec->u.snap_begin.nmappings,
		};
		pid_get(c, s->pid);
		break;
	case MD_REC_SNAP_MAPPING:
		if (!s)
			break;
		s->seen++;
		for (size_t i = 0; i < rec->u.mapping.nruns; i++)
			if (rec->u.mapping.runs[i].flags & MD_PG_PRESENT)
				s->rss_pages += rec->u.mapping.runs[i].npages;
		break;
	case MD_REC_SNAP_END:
		/* a snapshot the process's exit cut short has its SNAP_END
		 * but not all of its mappings */
		if (s && s->pid == rec->u.snap_end.pid &&
		    s->seq == rec->u.snap_end.seq && s->seen == s->nmappings) {
			s->complete = true;
			s->unreadable = rec->u.snap_end.unreadable_pages;
		}
		if (s) {
			struct pidinfo *pi = pid_get(c, s->pid);

			pi->vm_hwm = MAX(pi->vm_hwm, rec->u.snap_end.vm_hwm);
		}
		*cur = NULL;
		break;
	default:
		break;
	}
}

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
	ret = pass1_setup(c, r, msg);
	if (ret < 0) {
		md_reader_close(r);
		return ret;
	}
	while ((ret = md_read_next(r, &rec)) > 0) {
		switch (rec.type) {
		case MD_REC_IMAGE:
			attrib_add_image(c->a, &rec.u.image);
			result_add_image(c->res, &rec.u.image);
			break;
		case MD_REC_COMM:
		case MD_REC_CMDLINE:
			pass1_task(c, &rec);
			break;
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
			recorded_note(c, &rec.u.note);
			break;
		case MD_REC_JITMAP:
			jitsyms_add(c->jit, &rec.u.jitmap);
			break;
		default:
			pass1_snap(c, &rec, &cur);
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

/* Say how many snapshots are incomplete (and so never chosen). */
static void note_incomplete(struct report_ctx *c)
{
	size_t incomplete = 0;

	for (size_t i = 0; i < c->nsnaps; i++)
		if (!c->snaps[i].complete)
			incomplete++;
	if (incomplete)
		note(c, xasprintf("%zu snapshot%s without an end record "
				  "(incomplete) ignored", incomplete,
				  incomplete == 1 ? "" : "s"));
}

/* PICK_ALL: choose every complete snapshot of the pids asked for, each
 * numbered among its pid's; returns how many. *most: the most complete
 * snapshots any pid considered has. */
static size_t choose_all(struct report_ctx *c, bool *chosen, uint64_t *most)
{
	size_t nchosen = 0;

	*most = 0;
	note_incomplete(c);
	for (size_t p = 0; p < c->npids; p++) {
		uint32_t pid = c->pids[p].pid, n = 0;

		if (c->o->pid >= 0 && (long)pid != c->o->pid)
			continue;
		for (size_t i = 0; i < c->nsnaps; i++) {
			struct snapinfo *s = &c->snaps[i];

			if (s->pid != pid || !s->complete)
				continue;
			s->nth = n++;
			chosen[i] = true;
			nchosen++;
			if (s->unreadable)
				note(c, xasprintf("pid %u snapshot %u: %" PRIu64
						  " page(s) could not be "
						  "read from pagemap", pid,
						  s->nth, s->unreadable));
		}
		*most = MAX(*most, n);
	}
	return nchosen;
}

/* Choose one complete snapshot per pid; returns how many were chosen and
 * marks them in chosen[] (parallel to c->snaps). *most: the most complete
 * snapshots any pid considered has. */
static size_t choose(struct report_ctx *c, bool *chosen, uint64_t *most)
{
	size_t nchosen = 0;

	*most = 0;
	note_incomplete(c);
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
			case PICK_ALL: /* choose_all() */
				break;
			}
			n++;
		}
		*most = MAX(*most, n);
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

/* A footer line per process whose peak RSS the kernel told (VmHWM): that
 * peak beside its highest complete snapshot's RSS, so a peak no snapshot
 * caught shows. */
static void peak_notes(struct report_ctx *c, long only_pid)
{
	for (size_t p = 0; p < c->npids; p++) {
		const struct pidinfo *pi = &c->pids[p];
		uint64_t best = 0;

		if (!pi->vm_hwm || (only_pid >= 0 && pi->pid != only_pid))
			continue;
		for (size_t i = 0; i < c->nsnaps; i++)
			if (c->snaps[i].pid == pi->pid && c->snaps[i].complete)
				best = MAX(best, c->snaps[i].rss_pages *
							 c->page_size);
		strlist_add_notef(&c->res->notes, NOTE_PEAK_RSS, NULL,
				  "pid %u: peak RSS %.1f MiB (kernel VmHWM), "
				  "highest snapshot %.1f MiB (%.0f%%)",
				  pi->pid, pi->vm_hwm / 1048576.0,
				  best / 1048576.0,
				  100.0 * best / pi->vm_hwm);
	}
}

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

/* Footer line: the JIT symbols that named anonymous code, if any. */
static void jit_note(struct report_ctx *c)
{
	size_t npids, n = jitsyms_count(c->jit, &npids);

	if (n)
		strlist_add_notef(&c->res->notes, NOTE_JIT, NULL,
				  "JIT code named by %zu symbols of %zu "
				  "process(es) from /tmp/perf-PID.map", n,
				  npids);
}

static void fallback_notes(struct report_ctx *c)
{
	static const char *const rss = "RSS";

	for (size_t i = 0; i < c->o->nkeys; i++)
		if (keydefs[c->o->keys[i]].elfsrc >= 0)
			note(c, keys_fallback_note(NULL, c->o->keys[i], 1,
						   &c->fallback_rss[i],
						   &c->rss, &rss));
}

static int add_piece(void *arg, const uint32_t *labels, const uint64_t *vals)
{
	struct report_ctx *c = arg;
	uint32_t path[KEYS_MAX];

	for (size_t i = 0; i < c->o->nkeys; i++) {
		path[i] = c->src_of_key[i] >= 0 ? labels[c->src_of_key[i]] :
						  c->fixed[i];
		if (c->jit_label != LABEL_NONE && c->o->keys[i] == KEY_SYMBOLS)
			path[i] = c->jit_label;
	}
	if (!filter_keep(c->o->filter, c->lb, path, c->o->nkeys))
		return 0;
	rowtree_add_from(c->t, path, vals, c->share_cols, c->share_from);
	count_fallback(c, path, vals);
	mark_shown(c, c->cur_subject[0]);
	mark_shown(c, c->cur_subject[1]);
	return 0;
}

static size_t share_hash(const struct share_key *k)
{
	const unsigned char *p = (const unsigned char *)k;
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < sizeof(*k); i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return (size_t)(h ^ (h >> 29));
}

/* Insert k into s; true if it was not there. */
static bool share_insert(struct share_set *s, const struct share_key *k)
{
	size_t i;

	if ((s->n + 1) * 2 > s->mask + 1 || !s->slots) {
		size_t nslots = s->slots ? (s->mask + 1) * 2 : 256;

		free(s->slots);
		s->slots = xcalloc(nslots, sizeof(*s->slots));
		s->mask = nslots - 1;
		for (size_t j = 0; j < s->n; j++) {
			i = share_hash(&s->keys[j]) & s->mask;
			while (s->slots[i])
				i = (i + 1) & s->mask;
			s->slots[i] = (uint32_t)j + 1;
		}
	}
	for (i = share_hash(k) & s->mask; s->slots[i]; i = (i + 1) & s->mask)
		if (!memcmp(&s->keys[s->slots[i] - 1], k, sizeof(*k)))
			return false;
	xgrow(&s->keys, &s->cap, s->n + 1, sizeof(*s->keys));
	s->keys[s->n] = *k;
	s->slots[i] = (uint32_t)++s->n;
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

static void set_fault_labels(struct report_ctx *c, uint32_t callers,
			     uint32_t site)
{
	for (size_t k = 0; k < c->o->nkeys; k++)
		if (c->o->keys[k] == KEY_CALLERS)
			c->fixed[k] = callers;
		else if (c->o->keys[k] == KEY_FAULTSITE)
			c->fixed[k] = site;
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
				  jitsyms_map(c->jit, c->cur_pid->pid) :
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
	if (c->faults)
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
	if (c->has_mappings_key) {
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
	n = attrib_classify(c->a, &m, *have_prev ? prev : NULL, parts);
	c->cur_subject[1] = m.name ? labels_intern(c->lb, m.name) :
				     LABEL_NONE;
	for (int i = 0; i < n; i++) {
		const struct attrib_part *p = &parts[i];

		for (size_t k = 0; k < c->o->nkeys; k++)
			if (c->src_of_key[k] < 0)
				c->fixed[k] = fixed_label(c, c->o->keys[k],
							  &m, p);
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

/* Why no snapshot was chosen, for the error message; caller frees. */
static char *no_snapshot_msg(const struct report_ctx *c, uint64_t most)
{
	const char *in = c->o->input;

	if (c->o->pick == PICK_INDEX && most)
		return xasprintf("--snapshot %" PRIu64 ": '%s' has %s%" PRIu64
				 " complete snapshot%s%s, numbered 0 to %"
				 PRIu64, c->o->index, in,
				 c->o->pid < 0 && c->npids > 1 ?
					 "at most " : "",
				 most, most == 1 ? "" : "s",
				 c->o->pid >= 0 ? " of that pid" :
				 c->npids > 1 ? " per process" : "",
				 most - 1);
	if (c->o->pid >= 0) {
		for (size_t i = 0; i < c->npids; i++)
			if ((long)c->pids[i].pid == c->o->pid)
				return xasprintf("'%s' has no complete "
						 "snapshot of pid %ld", in,
						 c->o->pid);
		return xasprintf("'%s' has no complete snapshot of pid %ld "
				 "(pid %ld was not recorded)", in, c->o->pid,
				 c->o->pid);
	}
	if (c->stop) /* damaged or cut short: say where the read stopped */
		return xasprintf("'%s' has no complete snapshot: it %s", in,
				 c->stop);
	if (!c->nsnaps)
		return xasprintf("'%s' has no snapshot: the recording ended "
				 "before the first one", in);
	return xasprintf("'%s' has no complete snapshot", in);
}

/* Say when the TOTAL is not the sum of its rows or not one moment: files
 * counted once although several processes map them, snapshots of
 * several processes taken at different times. */
static void moment_notes(struct report_ctx *c, const bool *chosen)
{
	uint64_t lo = UINT64_MAX, hi = 0;
	bool process_key = false;
	size_t n = 0;

	for (size_t k = 0; k < c->o->nkeys; k++)
		process_key |= keydefs[c->o->keys[k]].space == KEYSP_PROCESS;
	if (c->shared_once && process_key)
		strlist_add(&c->res->notes, xstrdup(
			"FILE SIZE and VM SIZE count a file several processes "
			"map once, in the TOTAL and in the rows above the "
			"pids, users or mappings key: there they are less "
			"than the sum of the rows below"));
	for (size_t i = 0; i < c->nsnaps; i++) {
		if (!chosen[i])
			continue;
		lo = MIN(lo, c->snaps[i].time);
		hi = MAX(hi, c->snaps[i].time);
		n++;
	}
	/* PICK_ALL: the steps are apart by design; each step's own spread
	 * is the timeline's to show */
	if (n < 2 || c->o->pick == PICK_ALL)
		return;
	if (c->o->pick == PICK_PEAK)
		strlist_addf(&c->res->notes,
			     "the TOTAL adds the peak snapshot of each of %zu "
			     "processes, taken %.3f s apart at most: not one "
			     "moment", n, (double)(hi - lo) / 1e9);
	else if (hi - lo >= MOMENT_NS)
		strlist_addf(&c->res->notes,
			     "the TOTAL adds snapshots of %zu processes taken "
			     "%.3f s apart at most: not one moment", n,
			     (double)(hi - lo) / 1e9);
}

static bool has_kind(const struct strlist *l, enum note_kind k)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->kinds[i] == k)
			return true;
	return false;
}

/* Drop the notes about a subject (an image, a mapping) that no kept row
 * comes from: the filter removed all of its rows. */
static void drop_unshown_notes(struct report_ctx *c)
{
	struct strlist kept = { 0 };
	struct strlist *l = &c->res->notes;

	for (size_t i = 0; i < l->n; i++) {
		uint32_t id;

		if (l->subjects[i]) {
			id = labels_intern(c->lb, l->subjects[i]);
			if (id >= c->showncap || !c->shown[id])
				continue;
		}
		strlist_add_copy(&kept, l, i);
	}
	strlist_free(l);
	*l = kept;
}

int report_build(const struct report_opts *o, struct labels *lb,
		 struct report_result *res, char **msg)
{
	struct report_ctx c = { .o = o, .lb = lb, .res = res,
				.page_size = 4096 };
	bool *chosen = NULL;
	uint64_t most;
	int ret;

	*msg = NULL;
	c.a = attrib_new(lb, o->debug_root);
	c.jit = jitsyms_new(lb);
	c.jit_label = LABEL_NONE;
	res->t = c.t = rowtree_new(lb, o->nkeys);
	for (size_t i = 0; i < o->nkeys; i++) {
		c.src_of_key[i] = -1;
		if (o->keys[i] == KEY_MAPPINGS)
			c.has_mappings_key = true;
		if (o->keys[i] == KEY_CALLERS ||
		    o->keys[i] == KEY_FAULTSITE)
			c.want_faults = true;
		if (o->keys[i] == KEY_SYMBOLS)
			c.want_jit = true;
		if (keydefs[o->keys[i]].space != KEYSP_IMAGE)
			continue;
		c.src_of_key[i] = (int)c.nsrcs;
		c.srcs[c.nsrcs++] = o->keys[i];
	}

	ret = pass1(&c, msg);
	if (ret < 0)
		goto out;
	for (size_t i = 0; i < c.npids; i++)
		pid_labels(lb, &c.pids[i]);
	chosen = xcalloc(c.nsnaps + 1, sizeof(*chosen));
	res->nsnapshots = o->pick == PICK_ALL ?
				  choose_all(&c, chosen, &most) :
				  choose(&c, chosen, &most);
	result_set_snaps(&c, chosen);
	if (!res->nsnapshots) {
		ret = -ENOENT;
		*msg = no_snapshot_msg(&c, most);
		goto out;
	}
	peak_notes(&c, o->pid);
	for (size_t p = 0; p < c.npids; p++)
		for (size_t i = 0; i < c.nsnaps; i++)
			if (chosen[i] && c.snaps[i].pid == c.pids[p].pid) {
				res->nprocs++;
				break;
			}
	res->have_pss = true;
	for (size_t i = 0; i < c.nsnaps; i++) {
		uint32_t f = c.snaps[i].flags;

		if (!chosen[i])
			continue;
		if (!(f & MD_SNAP_F_PFN)) {
			res->have_pss = false;
			res->unknown_cols |= 1u << COL_PSS | 1u << COL_LOCKED;
		}
		if (!(f & MD_SNAP_F_PMD))
			res->unknown_cols |= 1u << COL_THP;
		if (!(f & MD_SNAP_F_LOCKED))
			res->unknown_cols |= 1u << COL_LOCKED;
	}

	if (c.faults) {
		faults_set_jit(c.faults, c.jit);
		ret = pass_faults(&c, chosen, msg);
		if (ret < 0)
			goto out;
	}
	ret = pass2(&c, chosen, msg);
	if (ret < 0)
		goto out;
	if (c.faults)
		faults_notes(c.faults, &res->notes);
	jit_note(&c);
	moment_notes(&c, chosen);
	if (c.lost)
		note(&c, xasprintf("%" PRIu64 " perf records were lost while "
				   "recording: the mapping history may miss "
				   "events (snapshots are complete)", c.lost));
	attrib_notes(c.a, &res->notes);
	fallback_notes(&c);
	if (!res->have_pss && !has_kind(&res->notes, NOTE_NO_PSS))
		strlist_add_note(&res->notes, NOTE_NO_PSS, NULL,
				 xstrdup("no PSS: recorded without access to "
					 "page frame numbers (needs "
					 "CAP_SYS_ADMIN)"));
	if (!filter_empty(o->filter))
		drop_unshown_notes(&c);
out:
	free(chosen);
	for (size_t i = 0; i < c.npids; i++) {
		free(c.pids[i].comm);
		free(c.pids[i].cmdline);
		free(c.pids[i].user);
	}
	free(c.pids);
	free(c.snaps);
	free(c.stop);
	free(c.shared.keys);
	free(c.shared.slots);
	free(c.shown);
	faults_free(c.faults);
	jitsyms_free(c.jit);
	attrib_free(c.a);
	return ret;
}

void report_result_free(struct report_result *res)
{
	for (size_t i = 0; i < res->nsteps; i++)
		rowtree_free(res->steps[i].t);
	free(res->steps);
	rowtree_free(res->t);
	strlist_free(&res->notes);
	for (size_t i = 0; i < res->nimages; i++) {
		free((char *)res->images[i].path);
		free((char *)res->images[i].build_id);
	}
	free(res->images);
	free(res->snaps);
	memset(res, 0, sizeof(*res));
}
