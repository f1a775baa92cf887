// SPDX-License-Identifier: GPL-2.0-or-later
/* report.c — see report.h. Pass 1 (the recording read once for its
 * images, processes, notes and a summary of each snapshot), the choice of
 * snapshots, the footer notes and report_build(); pass 2, the charging of
 * pages to rows, is charge.c's. */
#include "config.h"

#include "report/report.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "data/datafile.h"
#include "report/cgcharge.h"
#include "report/hugeshare.h"
#include "report/reportctx.h"
#include "util/strbuf.h"
#include "util/util.h"

const struct report_pick_word report_pick_words[] = {
    {"first", PICK_FIRST},
    {"last", PICK_LAST},
    {"peak", PICK_PEAK},
    {NULL, PICK_LAST},
};

int report_pick_parse(const char *s, enum report_pick *pick, uint64_t *index)
{
	for (const struct report_pick_word *w = report_pick_words; w->name;
	     w++) {
		if (!strcmp(s, w->name)) {
			*pick = w->pick;
			return 0;
		}
	}
	if (parse_u64(s, index) < 0)
		return -1;
	*pick = PICK_INDEX;
	return 0;
}

/* The subject of notes about process pid ("pid N"), into buf. */
static const char *pid_subject(char *buf, size_t n, uint32_t pid)
{
	snprintf(buf, n, "pid %u", pid);
	return buf;
}

struct pidinfo *pid_get(struct report_ctx *c, uint32_t pid)
{
	char subject[32];

	for (size_t i = 0; i < c->npids; i++)
		if (c->pids[i].kp.pid == pid)
			return &c->pids[i];
	xgrow(&c->pids, &c->pidcap, c->npids + 1, sizeof(*c->pids));
	c->pids[c->npids] = (struct pidinfo){
	    .subject = labels_intern(
		c->lb, pid_subject(subject, sizeof(subject), pid)),
	};
	keys_proc_init(&c->pids[c->npids].kp, pid);
	return &c->pids[c->npids++];
}

/* A footer note about process pid (dropped with its rows by a filter). */
static void pid_notef(struct report_ctx *c, enum note_kind kind, uint32_t pid,
		      const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void pid_notef(struct report_ctx *c, enum note_kind kind, uint32_t pid,
		      const char *fmt, ...)
{
	char subject[32];
	va_list ap;

	va_start(ap, fmt);
	strlist_add_note(&c->res->notes, kind,
			 pid_subject(subject, sizeof(subject), pid),
			 xvasprintf(fmt, ap));
	va_end(ap);
}

static void note(struct report_ctx *c, char *line)
{
	strlist_add(&c->res->notes, line);
}

/* --- pass 1: images, comms, lost counts, notes, snapshot summaries --- */

/* Keep im's path and build-id in res (for pprof mappings). */
static void result_add_image(struct report_result *res,
			     const struct md_image *im)
{
	char *hex = xcalloc(1, 2 * im->build_id_len + 1);

	for (uint32_t i = 0; i < im->build_id_len && i < 20; i++)
		sprintf(hex + 2 * i, "%02x", im->build_id[i]);
	res->images =
	    xrealloc(res->images, (res->nimages + 1) * sizeof(*res->images));
	res->images[res->nimages++] = (struct out_image){
	    .path = xstrdup(im->path ? im->path : ""),
	    .build_id = hex,
	};
}

/* Keep every complete snapshot's total RSS and its process's exit time,
 * name and command line in res (the html timeline, pprof's labels). */
static void result_set_snaps(struct report_ctx *c, const bool *chosen)
{
	struct report_result *res = c->res;

	res->start_ns = c->start_ns;
	res->snaps = xcalloc(c->nsnaps + 1, sizeof(*res->snaps));
	for (size_t i = 0; i < c->nsnaps; i++) {
		const struct pidinfo *pi = pid_get(c, c->snaps[i].pid);
		const char *comm = pi->kp.comm ? pi->kp.comm : "";
		const char *cmd = pi->kp.cmdline ? pi->kp.cmdline : "";

		if (c->snaps[i].complete)
			res->snaps[res->nsnaps++] = (struct out_snap){
			    .time_ns = c->snaps[i].time,
			    .pid = c->snaps[i].pid,
			    .rss = c->snaps[i].rss_pages * c->page_size,
			    .chosen = chosen[i],
			    .exit_ns = pi->exit_ns,
			    .comm =
				labels_str(c->lb, labels_intern(c->lb, comm)),
			    .cmdline =
				labels_str(c->lb, labels_intern(c->lb, cmd)),
			};
	}
}

/* Pass 1's set-up from the file header: page size, start time, and the
 * fault matcher when fault keys are asked for. Returns 0, or a negative
 * code with *msg. */
static int pass1_setup(struct report_ctx *c, struct md_reader *r, char **msg)
{
	const struct md_file_header *h = md_reader_header(r);

	attrib_set_page_size(c->a, h->page_size);
	if (c->want_faults) {
		c->faults =
		    faults_new(c->a, c->lb, c->o->debug_root, h->page_size);
		if (faults_set_skip(c->faults, c->o->skip_frames
						   ? c->o->skip_frames
						   : FAULTS_SKIP_DEFAULT)) {
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
	char **to = rec->type == MD_REC_COMM ? &pi->kp.comm : &pi->kp.cmdline;

	free(*to);
	*to = xstrdup(rec->u.task.comm ? rec->u.task.comm : "");
	if (rec->type == MD_REC_COMM && rec->u.task.has_owner) {
		free(pi->kp.user);
		pi->kp.user = rec->u.task.user && rec->u.task.user[0]
				  ? xstrdup(rec->u.task.user)
				  : xasprintf("uid %u", rec->u.task.uid);
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
		xgrow(&c->snaps, &c->snapcap, c->nsnaps + 1, sizeof(*c->snaps));
		s = *cur = &c->snaps[c->nsnaps++];
		*s = (struct snapinfo){
		    .pid = rec->u.snap_begin.pid,
		    .seq = rec->u.snap_begin.seq,
		    .flags = rec->u.snap_begin.flags,
		    .offset = rec->offset,
		    .time = rec->u.snap_begin.time,
		    .nmappings = rec->u.snap_begin.nmappings,
		};
		s->pidx = (uint32_t)(pid_get(c, s->pid) - c->pids);
		break;
	case MD_REC_SNAP_MAPPING:
		if (!s)
			break;
		s->seen++;
		hugeshare_add(c->hs, (uint32_t)(s - c->snaps), c->page_size,
			      &rec->u.mapping);
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
		cgcharge_add(c->cg, &rec);
		switch (rec.type) {
		case MD_REC_IMAGE:
			attrib_add_image(c->a, &rec.u.image);
			result_add_image(c->res, &rec.u.image);
			break;
		case MD_REC_IMAGE_KIND:
			if (!rec.u.image_kind.ignored)
				attrib_set_image_kind(c->a, &rec.u.image_kind);
			else if (!c->kinds_ignored++)
				c->kind_ignored_why = rec.u.image_kind.ignored;
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
		case MD_REC_EXIT: /* the process's, not a thread's */
			if (rec.u.task.pid == rec.u.task.tid)
				pid_get(c, rec.u.task.pid)->exit_ns =
				    rec.u.task.time;
			break;
		case MD_REC_NOTE:
			recorded_note(c, &rec.u.note);
			break;
		case MD_REC_NOTE_VALUES:
			recorded_values(c, &rec.u.note_values);
			break;
		case MD_REC_JITMAP:
			jitsyms_add(c->jit, &rec.u.jitmap);
			break;
		default:
			pass1_snap(c, &rec, &cur);
			if (c->faults)
				faults_add_snap(c->faults, &rec);
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
				    "its disk was full)",
				    md_reader_offset(r));
	}
	if (c->stop)
		note(c, xasprintf("'%s' %s: read up to there", c->o->input,
				  c->stop));
	md_reader_close(r);
	points_set_exits(c);
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
				  "(incomplete) ignored",
				  incomplete, incomplete == 1 ? "" : "s"));
}

/* Whether the report shows process pid: one of --pid's, or any without
 * --pid. */
static bool pid_wanted(const struct report_opts *o, uint32_t pid)
{
	for (size_t i = 0; i < o->npids; i++)
		if (o->pids[i] == pid)
			return true;
	return !o->npids;
}

/* PICK_ALL: choose every complete snapshot of the processes --pid names
 * (only; else of all), each numbered among its pid's; returns how many.
 * *most: the most complete snapshots any pid considered has. notes: say
 * what was left out (the pick charged; hugeshare_setup's pick says
 * nothing). */
static size_t choose_all(struct report_ctx *c, bool *chosen, uint64_t *most,
			 bool only, bool notes)
{
	size_t nchosen = 0;

	*most = 0;
	if (notes)
		note_incomplete(c);
	for (size_t p = 0; p < c->npids; p++) {
		uint32_t pid = c->pids[p].kp.pid, n = 0;

		if (only && !pid_wanted(c->o, pid))
			continue;
		for (size_t i = 0; i < c->nsnaps; i++) {
			struct snapinfo *s = &c->snaps[i];

			if (s->pid != pid || !s->complete)
				continue;
			s->nth = n++;
			chosen[i] = true;
			nchosen++;
			if (notes && s->unreadable)
				pid_notef(c, NOTE_SNAP_UNREADABLE, pid,
					  "pid %u snapshot %u: %" PRIu64
					  " page(s) could not be read from "
					  "pagemap",
					  pid, s->nth, s->unreadable);
		}
		*most = MAX(*most, n);
	}
	return nchosen;
}

/* The snapshot of the pid of c->pids[p] the pick chooses (-1: none);
 * *n: its complete snapshots. */
static long choose_one(const struct report_ctx *c, size_t p, uint64_t *n)
{
	uint32_t pid = c->pids[p].kp.pid;
	long best = -1;

	*n = 0;
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
			if (best < 0 || s->rss_pages > c->snaps[best].rss_pages)
				best = (long)i;
			break;
		case PICK_INDEX:
			if (*n == c->o->index)
				best = (long)i;
			break;
		case PICK_ALL: /* choose_all() */
			break;
		}
		(*n)++;
	}
	return best;
}

/* Choose one complete snapshot per pid (only: of the processes --pid
 * names; else of all); returns how many were chosen and marks them in
 * chosen[] (parallel to c->snaps). *most: the most complete snapshots
 * any pid considered has. notes: as choose_all's. */
static size_t choose(struct report_ctx *c, bool *chosen, uint64_t *most,
		     bool only, bool notes)
{
	size_t nchosen = 0;

	*most = 0;
	if (notes)
		note_incomplete(c);
	for (size_t p = 0; p < c->npids; p++) {
		uint32_t pid = c->pids[p].kp.pid;
		uint64_t n;
		long best;

		if (only && !pid_wanted(c->o, pid))
			continue;
		best = choose_one(c, p, &n);
		*most = MAX(*most, n);
		if (best >= 0) {
			chosen[best] = true;
			nchosen++;
		}
		if (!notes)
			continue;
		if (best < 0 && n && c->o->pick == PICK_INDEX)
			pid_notef(c, NOTE_OTHER, pid,
				  "pid %u has %" PRIu64
				  " snapshots, no #%" PRIu64,
				  pid, n, c->o->index);
		if (best >= 0 && c->snaps[best].unreadable)
			pid_notef(c, NOTE_SNAP_UNREADABLE, pid,
				  "pid %u: %" PRIu64 " page(s) could not be "
				  "read from pagemap",
				  pid, c->snaps[best].unreadable);
	}
	return nchosen - points_drop_exited(c, chosen, notes);
}

/* The peak of a process beside what its snapshots caught. */
struct peak {
	const struct pidinfo *pi;
	uint64_t best; /* its highest complete snapshot's RSS */
};

/* True if no snapshot caught p's peak (the percentage a peak note
 * prints would be below 100). */
static bool peak_missed(const struct peak *p)
{
	return 1000.0 * (double)p->best < 995.0 * (double)p->pi->vm_hwm;
}

/* The line standing for n >= 2 peak notes: how many peaks no snapshot
 * caught, and the one missed by most. */
static void peak_summary(struct report_ctx *c, const struct peak *pk, size_t n)
{
	const struct peak *worst = NULL;
	size_t missed = 0;

	for (size_t i = 0; i < n; i++) {
		if (!peak_missed(&pk[i]))
			continue;
		missed++;
		if (!worst || pk[i].pi->vm_hwm - pk[i].best >
				  worst->pi->vm_hwm - worst->best)
			worst = &pk[i];
	}
	if (!worst) {
		strlist_add_about(&c->res->notes, NOTE_PEAK_RSS, 0,
				  NOTEF_SUMMARY,
				  xasprintf("peak RSS (kernel VmHWM) of each "
					    "of the %zu processes caught by a "
					    "snapshot \u2014 -v lists each",
					    n));
		return;
	}
	strlist_add_about(
	    &c->res->notes, NOTE_PEAK_RSS, 0, NOTEF_SUMMARY,
	    xasprintf("peak RSS (kernel VmHWM) above the highest "
		      "snapshot in %zu of %zu processes "
		      "(largest: pid %u %s, peak %.1f MiB, "
		      "highest snapshot %.1f MiB) \u2014 -v lists "
		      "each",
		      missed, n, worst->pi->kp.pid,
		      worst->pi->kp.comm ? worst->pi->kp.comm : "",
		      worst->pi->vm_hwm / 1048576.0, worst->best / 1048576.0));
}

/* A footer line per process whose peak RSS the kernel told (VmHWM): that
 * peak beside its highest complete snapshot's RSS, so a peak no snapshot
 * caught shows; for several processes, one line that stands for them
 * unless -v (peak_summary). */
static void peak_notes(struct report_ctx *c)
{
	struct peak *pk = xcalloc(c->npids + 1, sizeof(*pk));
	size_t n = 0;

	for (size_t p = 0; p < c->npids; p++) {
		const struct pidinfo *pi = &c->pids[p];
		uint64_t best = 0;

		if (!pi->vm_hwm || !pid_wanted(c->o, pi->kp.pid))
			continue;
		for (size_t i = 0; i < c->nsnaps; i++)
			if (c->snaps[i].pid == pi->kp.pid &&
			    c->snaps[i].complete)
				best = MAX(best, c->snaps[i].rss_pages *
						     c->page_size);
		pk[n++] = (struct peak){pi, best};
		pid_notef(c, NOTE_PEAK_RSS, pi->kp.pid,
			  "pid %u: peak RSS %.1f MiB (kernel VmHWM), "
			  "highest snapshot %.1f MiB (%.0f%%)",
			  pi->kp.pid, pi->vm_hwm / 1048576.0, best / 1048576.0,
			  100.0 * best / pi->vm_hwm);
	}
	if (n >= 2)
		peak_summary(c, pk, n);
	free(pk);
}

/* Footer line: the JIT symbols that named anonymous code, if any. */
static void jit_note(struct report_ctx *c)
{
	size_t npids, n = jitsyms_count(c->jit, &npids);

	if (n)
		strlist_add_notef(&c->res->notes, NOTE_JIT, NULL,
				  "JIT code named by %zu symbols of %zu "
				  "process(es) from /tmp/perf-PID.map",
				  n, npids);
}

static void fallback_notes(struct report_ctx *c)
{
	static const char *const rss = "RSS";

	for (size_t i = 0; i < c->o->nkeys; i++)
		if (keydefs[c->o->keys[i]].elfsrc >= 0)
			note(c, keys_fallback_note(NULL, c->o->keys[i], 1,
						   &c->fallback_rss[i], &c->rss,
						   &rss));
}
/* Whether the recording has a process pid. */
static bool pid_recorded(const struct report_ctx *c, uint32_t pid)
{
	for (size_t i = 0; i < c->npids; i++)
		if (c->pids[i].kp.pid == pid)
			return true;
	return false;
}

/* ", " between the items of a list of n, " or " before the last. */
static const char *list_sep(size_t i, size_t n)
{
	return !i ? "" : i + 1 < n ? ", " : " or ";
}

/* No snapshot of the processes --pid names: "of pid A" ("of pid A, B or
 * C"), then those not recorded, if any. Caller frees. */
static char *no_pid_msg(const struct report_ctx *c)
{
	const struct report_opts *o = c->o;
	struct strbuf sb = {0};
	size_t nmissing = 0, k = 0;

	strbuf_addf(&sb, "'%s' has no complete snapshot of pid ", o->input);
	for (size_t i = 0; i < o->npids; i++) {
		strbuf_addf(&sb, "%s%" PRIu32, list_sep(i, o->npids),
			    o->pids[i]);
		nmissing += !pid_recorded(c, o->pids[i]);
	}
	if (nmissing)
		strbuf_adds(&sb, nmissing > 1 ? " (pids " : " (pid ");
	for (size_t i = 0; i < o->npids; i++)
		if (!pid_recorded(c, o->pids[i]))
			strbuf_addf(&sb, "%s%" PRIu32,
				    k++ ? (k < nmissing ? ", " : " and ") : "",
				    o->pids[i]);
	if (nmissing)
		strbuf_adds(&sb, nmissing > 1 ? " were not recorded)"
					      : " was not recorded)");
	return strbuf_detach(&sb);
}

/* Why no snapshot was chosen, for the error message; caller frees. */
static char *no_snapshot_msg(const struct report_ctx *c, uint64_t most)
{
	const char *in = c->o->input;
	size_t np = c->o->npids;

	if (c->o->pick == PICK_INDEX && most)
		return xasprintf(
		    "--snapshot %" PRIu64 ": '%s' has %s%" PRIu64
		    " complete snapshot%s%s, numbered 0 to %" PRIu64,
		    c->o->index, in, np != 1 && c->npids > 1 ? "at most " : "",
		    most, most == 1 ? "" : "s",
		    np == 1		     ? " of that pid"
		    : np > 1 || c->npids > 1 ? " per process"
					     : "",
		    most - 1);
	if (np)
		return no_pid_msg(c);
	if (c->stop) /* damaged or cut short: say where the read stopped */
		return xasprintf("'%s' has no complete snapshot: it %s", in,
				 c->stop);
	if (!c->nsnaps)
		return xasprintf("'%s' has no snapshot: the recording ended "
				 "before the first one",
				 in);
	return xasprintf("'%s' has no complete snapshot", in);
}

/* Say when the TOTAL is not the sum of its rows or not one moment: files
 * on disk (FILE SIZE) and their ranges (VM SIZE: share_level(),
 * share_copy(); vm_share_range() leaves out what has no FILE SIZE)
 * counted once although several processes map them, snapshots of
 * several processes that no one moment has. */
static void moment_notes(struct report_ctx *c, const bool *chosen)
{
	const char *per_proc = NULL; /* the first key whose rows get each
					process's VM: a process or fault
					key */

	for (size_t i = 0; i < c->o->nkeys && !per_proc; i++)
		if (keydefs[c->o->keys[i]].needs &
		    (KEY_NEEDS_PROCS | KEY_NEEDS_FAULTS))
			per_proc = keydefs[c->o->keys[i]].name;
	if (c->shared_once && per_proc)
		strlist_add_about(
		    &c->res->notes, NOTE_COUNT_ONCE,
		    1u << COL_FILE | 1u << COL_VM, 0,
		    xasprintf("FILE SIZE counts a file on disk several "
			      "processes map once, VM SIZE the same range of "
			      "it as often as one process maps it (a page two "
			      "mappings of one process share, twice), in the "
			      "TOTAL and in the rows above the %s key: there "
			      "they are less than the sum of the rows below; "
			      "shared memory (tmpfs, /dev/shm, memfd: no FILE "
			      "SIZE) counts in VM SIZE once for each process "
			      "that maps it",
			      per_proc));
	points_note(c, chosen);
}

static bool has_kind(const struct strlist *l, enum note_kind k)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->kinds[i] == k)
			return true;
	return false;
}

/* Drop the notes about a subject (an image, a mapping, a process) that
 * no kept row comes from: the filter removed all of its rows. */
static void drop_unshown_notes(struct report_ctx *c)
{
	struct strlist kept = {0};
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

/* What the keys of o ask of c: the image keys in c->srcs (labelled by
 * their maps), the others labelled by their hooks, and what they need. */
static void keys_setup(struct report_ctx *c, const struct report_opts *o)
{
	unsigned needs = keys_needs(o->keys, o->nkeys);

	c->want_faults = needs & KEY_NEEDS_FAULTS;
	c->want_jit = needs & KEY_NEEDS_JIT;
	for (size_t i = 0; i < o->nkeys; i++) {
		const struct keydef *kd = &keydefs[o->keys[i]];

		c->src_of_key[i] = -1;
		if ((kd->flags & KEYF_BY_RANGE) && !c->by_range)
			c->by_range = i + 1;
		if (kd->label)
			continue;
		c->src_of_key[i] = (int)c->nsrcs;
		c->srcs[c->nsrcs++] = o->keys[i];
	}
}

/* The processes and columns of the snapshots chosen[] into c->res. */
static void chosen_stats(struct report_ctx *c, const bool *chosen)
{
	struct report_result *res = c->res;

	for (size_t p = 0; p < c->npids; p++)
		for (size_t i = 0; i < c->nsnaps; i++)
			if (chosen[i] && c->snaps[i].pid == c->pids[p].kp.pid) {
				res->nprocs++;
				break;
			}
	res->have_pss = true;
	for (size_t i = 0; i < c->nsnaps; i++) {
		uint32_t f = c->snaps[i].flags;

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
}

/* --pid names some pids the recording has and some it has not: name
 * those left out, which the report could not show (with none recorded,
 * no_pid_msg() says so as an error). */
static void missing_pids_note(struct report_ctx *c)
{
	const struct report_opts *o = c->o;
	struct strbuf sb = {0};
	size_t nmissing = 0, k = 0;

	for (size_t i = 0; i < o->npids; i++)
		nmissing += !pid_recorded(c, o->pids[i]);
	if (!nmissing)
		return;
	strbuf_addf(&sb, "--pid: %s ", nmissing > 1 ? "pids" : "pid");
	for (size_t i = 0; i < o->npids; i++)
		if (!pid_recorded(c, o->pids[i]))
			strbuf_addf(&sb, "%s%" PRIu32,
				    k++ ? (k < nmissing ? ", " : " and ") : "",
				    o->pids[i]);
	strbuf_addf(&sb, " %s not in '%s': not shown",
		    nmissing > 1 ? "are" : "is", o->input);
	note(c, strbuf_detach(&sb));
}

/* The footer notes of a report whose rows are charged. */
static void final_notes(struct report_ctx *c, const bool *chosen)
{
	struct report_result *res = c->res;

	if (c->faults)
		faults_notes(c->faults, &res->notes);
	jit_note(c);
	missing_pids_note(c);
	moment_notes(c, chosen);
	if (c->lost)
		note(c, xasprintf("%" PRIu64 " perf records were lost while "
				  "recording: the mapping history may miss "
				  "events (snapshots are complete)",
				  c->lost));
	if (c->kinds_ignored)
		note(c, xasprintf("%" PRIu64 " IMAGE_KIND record%s ignored "
				  "(the first: %s): an image without a "
				  "valid one is of unknown kind",
				  c->kinds_ignored,
				  c->kinds_ignored == 1 ? "" : "s",
				  c->kind_ignored_why));
	attrib_notes(c->a, &res->notes);
	fallback_notes(c);
	if (!res->have_pss && !has_kind(&res->notes, NOTE_NO_PSS))
		strlist_add_note(&res->notes, NOTE_NO_PSS, NULL,
				 xstrdup("no PSS: recorded without access to "
					 "page frame numbers (needs "
					 "CAP_SYS_ADMIN)"));
	if (!filter_empty(c->o->filter))
		drop_unshown_notes(c);
}

/* Free what report_build allocated in c. */
static void ctx_free(struct report_ctx *c)
{
	for (size_t i = 0; i < c->npids; i++) {
		free(c->pids[i].kp.comm);
		free(c->pids[i].kp.cmdline);
		free(c->pids[i].kp.user);
	}
	free(c->pids);
	free(c->snaps);
	free(c->stop);
	charge_free(c);
	free(c->shown);
	faults_free(c->faults);
	jitsyms_free(c->jit);
	cgcharge_free(c->cg);
	hugeshare_free(c->hs);
	attrib_free(c->a);
}

/* Before the pick charged is planned: to hugeshare_choose the
 * snapshots the same pick chooses with --pid left out (the PSS of a
 * process's pages must not depend on which others are shown) and, with
 * a timeline, the points in time each counts in among them. */
static void hugeshare_setup(struct report_ctx *c)
{
	bool *all = xcalloc(c->nsnaps + 1, sizeof(*all));
	uint32_t *first = xcalloc(c->nsnaps + 1, sizeof(*first));
	uint32_t *end = xcalloc(c->nsnaps + 1, sizeof(*end));
	bool at = c->o->pick == PICK_ALL;
	uint64_t most;

	if (at && choose_all(c, all, &most, false, false)) {
		points_assign(c, all);
		for (size_t i = 0; i < c->nsnaps; i++) {
			first[i] = c->snaps[i].first;
			end[i] = c->snaps[i].end;
			c->snaps[i].first = c->snaps[i].end = 0;
		}
		free(c->points);
		c->points = NULL;
		c->npoints = 0;
	} else if (!at) {
		choose(c, all, &most, false, false);
	}
	hugeshare_choose(c->hs, all, first, end, c->nsnaps, at);
	free(all);
	free(first);
	free(end);
}

/* PICK_ALL, once the pick charged is planned: to hugeshare_points, per
 * point of its timeline, the point of hugeshare_setup's that holds the
 * latest snapshot starting there (the same one without --pid). */
static void hugeshare_points(struct report_ctx *c, const bool *chosen)
{
	uint32_t *map = xcalloc(c->npoints + 1, sizeof(*map));

	for (size_t i = 0; i < c->nsnaps; i++) {
		const struct snapinfo *s = &c->snaps[i];

		if (chosen[i] && s->end > s->first)
			map[s->first] =
			    MAX(map[s->first], hugeshare_point_of(c->hs, i));
	}
	hugeshare_map_points(c->hs, map, c->npoints);
	free(map);
}

int report_build(const struct report_opts *o, struct labels *lb,
		 struct report_result *res, char **msg)
{
	struct report_ctx c = {.o = o, .lb = lb, .res = res, .page_size = 4096};
	bool *chosen = NULL;
	uint64_t most;
	int ret;

	*msg = NULL;
	c.a = attrib_new(lb, &(struct elf_map_opts){.debug_root = o->debug_root,
						    .disasm = o->disasm,
						    .demangle = o->demangle});
	c.jit = jitsyms_new(lb);
	c.hs = hugeshare_new();
	c.jit_label = LABEL_NONE;
	res->t = c.t = rowtree_new(lb, o->nkeys);
	keys_setup(&c, o);
	charge_cg_begin(&c);
	ret = pass1(&c, msg);
	if (ret < 0)
		goto out;
	chosen = xcalloc(c.nsnaps + 1, sizeof(*chosen));
	res->nsnapshots = o->pick == PICK_ALL
			      ? choose_all(&c, chosen, &most, true, true)
			      : choose(&c, chosen, &most, true, true);
	hugeshare_setup(&c);
	result_set_snaps(&c, chosen);
	if (o->pick == PICK_ALL && res->nsnapshots &&
	    points_plan(&c, chosen) < 0) {
		ret = -EINVAL;
		*msg = xstrdup("cannot make a timeline of these keys");
		goto out;
	}
	if (!res->nsnapshots) {
		ret = -ENOENT;
		*msg = no_snapshot_msg(&c, most);
		goto out;
	}
	peak_notes(&c);
	dirty_summary(&c);
	chosen_stats(&c, chosen);
	c.at = (struct key_at){.lb = lb};
	c.at.callers = c.at.site =
	    c.faults ? faults_none(c.faults) : LABEL_NONE;
	if (c.faults) {
		faults_set_jit(c.faults, c.jit);
		ret = charge_read_faults(&c, chosen, msg);
		if (ret < 0)
			goto out;
	}
	charge_cg_setup(&c);
	if (o->pick == PICK_ALL)
		hugeshare_points(&c, chosen);
	ret = charge_snapshots(&c, chosen, msg);
	if (ret < 0)
		goto out;
	charge_cg_finish(&c, chosen);
	if (c.tlb) { /* PICK_ALL: the rows are the timeline's */
		rowtree_free(res->t);
		res->t = rowtree_timeline_end(c.tlb);
		c.tlb = NULL;
	}
	final_notes(&c, chosen);
out:
	free(chosen);
	ctx_free(&c);
	return ret;
}

void report_result_free(struct report_result *res)
{
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
