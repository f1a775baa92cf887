/* session.c — one `memsz record` run: targets, perf capture, snapshots and
 * the poll loop that drives them (see session.h). */
#include "config.h"

#include "record/session.h"

#include "data/datafile.h"
#include "record/jitmap.h"
#include "record/perf.h"
#include "record/procmaps.h"
#include "record/snapshot.h"
#include "record/target.h"
#include "record/targets_scan.h"
#include "util/strbuf.h"
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Longest wait of the loop: how often the perf rings are drained (records
 * older than the time-ordering window are handed out) and, without perf,
 * how often /proc/PID/maps is polled for changes. */
#define POLL_MS 100
/* After SIGTERM at the end of --duration, a launched command gets this
 * long to exit before it is sent SIGKILL. */
#define KILL_GRACE_NS (2000ull * 1000 * 1000)
/* Fixed entries at the head of the loop's pollfd array: the signalfd, then
 * the interval timerfd (fd -1, ignored by poll, when there is none). */
#define PFD_SIGNAL 0
#define PFD_TIMER 1
#define PFD_FIXED 2
/* Growth snapshots: the kernel wakes memsz every GROWTH_FAULTS user-mode
 * page faults of a target (256 KiB of 4 KiB pages); memsz then reads its
 * RSS and takes a snapshot, holding a traced target, if it grew since its
 * last snapshot by 1/GROWTH_FRACTION, but by at least GROWTH_MIN_STEP and
 * at most GROWTH_MAX_STEP bytes. The highest snapshot is then within
 * about 1/16 (or 1 MiB) + 256 KiB, plus what the process gains and frees
 * while memsz wakes up, of the true peak. Each snapshot reads every page
 * again, so growing from R to 2R costs about GROWTH_FRACTION * ln 2
 * snapshots of up to 2R: the fraction trades the target's time for how
 * close the peak snapshot is (python3 building a 90 MB list of lists was
 * held 0.17 s with 1/64, 0.07 s with 1/16; its 0.11 s of work took
 * 0.08 s longer with every fault sampled). */
#define GROWTH_FAULTS 64
#define GROWTH_FRACTION 16
#define GROWTH_MIN_STEP (1ull << 20)
#define GROWTH_MAX_STEP (32ull << 20)
/* Backpressure: when a sample ring is this full (per mille) as memsz gets
 * to drain it, memsz has fallen behind: the targets are held until it has
 * drained the rings down to RELEASE_FILL_PERMILLE (then they run while it
 * drains the rest). Rings wake memsz at 1/16 full, so a memsz that keeps
 * up never holds; what stays free (7/8 of a ring) absorbs the faults made
 * while the hold takes effect. */
#define HOLD_FILL_PERMILLE 125
#define RELEASE_FILL_PERMILLE 31
/* Leashes: each traced thread stops itself (a signal it gets from its own
 * counter, perf_capture_leash) once it took its share of LEASH_ROOM_PERMILLE
 * of a ring, and memsz lets it go only while no ring is HOLD_FILL_PERMILLE
 * full: the rings cannot overflow even while memsz gets no cpu, is busy
 * in a long snapshot, or is stopped. The rest of a ring is slack. */
#define LEASH_ROOM_PERMILLE 800
_Static_assert(HOLD_FILL_PERMILLE + LEASH_ROOM_PERMILLE < 1000,
	       "the leashed threads' room and the hold threshold fit a ring");
/* While draining, the fill of the rings is looked at again after this many
 * samples: a long drain of one ring must not let another one overflow. */
#define HOLD_CHECK_SAMPLES 64

struct rec_target {
	int pid;
	bool alive;
	bool traced;          /* under ptrace: snapshot at its exit stop */
	bool exit_snap;       /* that snapshot was taken */
	bool unreadable;      /* its pages cannot be read: left out */
	bool told;            /* why it is missing was said and noted */
	int pidfd;            /* attach mode: readable at exit; -1 */
	uint32_t nsnaps;      /* snapshots taken of it */
	uint64_t last_rss;    /* RSS of its last snapshot, bytes */
	bool grew;            /* the growth trigger fired since last looked */
	uint64_t held_ns;     /* --freeze: how long the last snapshot held it */
	uint64_t thawed;      /* ... and when it let it go (monotonic ns) */
	char comm[16];        /* command name when it was added */
	char *cmdline;        /* the last CMDLINE written for it */
	struct procmaps last; /* polling fallback: the maps seen last */
	uint64_t jit_off;     /* bytes of /tmp/perf-PID.map read so far */
};

struct synth_key {
	uint32_t pid;
	uint64_t start, len, pgoff, ino;
};

struct session {
	struct session_opts o;
	char *partial;        /* path.partial kept after a write error */
	const char *path;
	struct md_writer *w;
	struct snapper *s;
	struct perf_capture *pc;    /* NULL: polling fallback */
	struct tracer *tr;          /* launch mode */
	int child;                  /* launched pid or 0 */
	/* Each target is allocated on its own: a pointer to one stays valid
	 * while a drain or a tracer callback (in a snapshot, say) adds the
	 * children they report. */
	struct rec_target **t;
	size_t nt, tcap;
	bool freeze, inherit, started;
	uint32_t seq;
	uint64_t nevents, nsnaps, lost;
	int werr;                   /* first write error */
	bool pss_told;
	struct synth_key *syn;
	size_t nsyn, syncap;
	uint64_t syn_time;          /* perf events up to then may be dups */
	struct perf_event_attr *sattr; /* --faults / -e sampling events */
	size_t nsattr;
	uint64_t nsamples;
	bool hold;                  /* backpressure: hold targets, lose none */
	uint64_t held_ns, nholds;   /* time and times targets were held */
	uint64_t nleash, leash_k;   /* leash stops seen, the longest leash
				     * (samples) then */
	bool leash_told;            /* a thread could not be leashed */
	bool closing;               /* session_free(): let leashes go */
	bool traced_all;            /* the targets at start are traced */
	uint64_t snap_held_ns, nsnap_held; /* ... by snapshots (growth,
					    * --freeze) */
	bool draining, holding;     /* in drain(); targets held in it */
	uint64_t hold_start;
	/* event loop */
	int sfd, tfd;               /* signalfd, interval timerfd (-1) */
	sigset_t oldmask;
	bool masked;                /* oldmask must be restored */
	struct pollfd *pfd;
	size_t pfd_cap;
	bool stop, term_sent, got_exit, exec_failed;
	bool ptrace_told;           /* said once that ptrace was refused */
	uint64_t deadline, kill_at;
	int status;                 /* wait status of the launched command */
	char why[320];              /* explanation of the last failure */
	/* record -a, -G: the scan, and what it left out */
	struct target_scan *scan;
	int *denied;                /* pids whose memory may not be read */
	size_t ndenied, deniedcap;
	int denied_err;
	uint64_t scan_gone;         /* exited before their first snapshot */
	size_t kthreads;            /* kernel threads the first scan skipped */
	int scan_err;               /* the last scan failed (told once) */
};

static void say(struct session *r, bool warning, const char *msg)
{
	if (r->o.say)
		r->o.say(r->o.arg, warning, msg);
}

/* Set the explanation of a failure and return err. */
static int fail(struct session *r, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail(struct session *r, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->why, sizeof(r->why), fmt, ap);
	va_end(ap);
	return err;
}

/* Remember the first write error; later writes are skipped. */
static bool wfail(struct session *r, int ret)
{
	if (ret < 0 && !r->werr)
		r->werr = ret;
	return r->werr != 0;
}

static void note(struct session *r, const char *text)
{
	if (!r->werr)
		wfail(r, md_write_note(r->w, text));
}

/* Growth since t's last snapshot that makes a growth snapshot. */
static uint64_t growth_step(const struct rec_target *t)
{
	return MAX(MIN(t->last_rss / GROWTH_FRACTION, GROWTH_MAX_STEP),
		   GROWTH_MIN_STEP);
}

static struct rec_target *target_find(struct session *r, int pid)
{
	for (size_t i = 0; i < r->nt; i++)
		if (r->t[i]->pid == pid)
			return r->t[i];
	return NULL;
}

static struct rec_target *target_add(struct session *r, int pid, bool traced)
{
	struct rec_target *t = target_find(r, pid);

	if (t) {
		t->alive = true;
		return t;
	}
	xgrow(&r->t, &r->tcap, r->nt + 1, sizeof(*r->t));
	t = xcalloc(1, sizeof(*t));
	r->t[r->nt++] = t;
	t->pid = pid;
	t->alive = true;
	t->traced = traced;
	t->pidfd = -1;
	if (target_comm(pid, t->comm, sizeof(t->comm)) < 0)
		snprintf(t->comm, sizeof(t->comm), "gone");
	return t;
}

/* A synthesized COMM record for pid, from /proc/PID/comm. */
static void write_comm(struct session *r, struct rec_target *t)
{
	struct md_task k = { .time = mono_ns(), .pid = t->pid,
			     .tid = t->pid, .comm = t->comm };

	if (!r->werr && strcmp(t->comm, "gone") &&
	    !wfail(r, md_write_task(r->w, MD_REC_COMM, &k)))
		r->nevents++;
}

/* A process forked by a target: follow it (traced: the tracer already
 * holds it). Attached recordings watch its exit with a pidfd. The kernel
 * gives a child its parent's command name without a COMM record, so one is
 * written. A process seen before (its perf FORK record may come first) is
 * only marked traced when it is. */
static void follow_child(struct session *r, int pid, bool traced)
{
	struct rec_target *t = target_find(r, pid);

	if (t) {
		t->traced |= traced;
		return;
	}
	t = target_add(r, pid, traced);
	if (!r->child)
		t->pidfd = syscall(SYS_pidfd_open, pid, 0);
	if (!r->child && t->pidfd < 0)
		t->alive = false; /* gone already */
	write_comm(r, t);
}

static bool scan_is_denied(const struct session *r, int pid)
{
	for (size_t i = 0; i < r->ndenied; i++)
		if (r->denied[i] == pid)
			return true;
	return false;
}

/* Remember that pid, found by a scan, could not be read (err), once. */
static void scan_denied(struct session *r, int pid, int err)
{
	if (scan_is_denied(r, pid))
		return;
	xgrow(&r->denied, &r->deniedcap, r->ndenied + 1, sizeof(*r->denied));
	r->denied[r->ndenied++] = pid;
	r->denied_err = err;
}

/* dev/ino of a mapping whose perf record carried a build-id instead. */
static void fill_dev_ino(struct md_mmap2 *m)
{
	char path[4096];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%u/map_files/%llx-%llx", m->pid,
		 (unsigned long long)m->start,
		 (unsigned long long)(m->start + m->len));
	if (stat(path, &st) < 0) {
		snprintf(path, sizeof(path), "/proc/%u/root%s", m->pid,
			 m->filename);
		if (stat(path, &st) < 0)
			return;
	}
	m->dev_major = major(st.st_dev);
	m->dev_minor = minor(st.st_dev);
	m->ino = st.st_ino;
}

static void write_mmap2(struct session *r, struct md_mmap2 *m)
{
	uint32_t id;
	int ret;

	if (r->werr)
		return;
	if (m->build_id_len && !m->ino)
		fill_dev_ino(m);
	if (m->filename[0] == '/' && (m->ino || m->build_id_len)) {
		ret = snapper_image(r->s, m->pid, m->filename, m->start,
				    m->start + m->len, m->dev_major,
				    m->dev_minor, m->ino, m->build_id,
				    m->build_id_len, &id);
		if (ret == -ENOSPC || ret == -EIO || ret == -EFBIG)
			wfail(r, ret);
	}
	if (!wfail(r, md_write_mmap2(r->w, m)))
		r->nevents++;
}

static bool synth_dup(struct session *r, const struct md_mmap2 *m)
{
	if (m->time > r->syn_time)
		return false;
	for (size_t i = 0; i < r->nsyn; i++) {
		struct synth_key *k = &r->syn[i];

		if (k->pid == m->pid && k->start == m->start &&
		    k->len == m->len && k->pgoff == m->pgoff &&
		    k->ino == m->ino)
			return true;
	}
	return false;
}

/* The growth trigger fired for t: growth_snapshots() looks at its RSS
 * once the rings are drained. The target is not stopped before: it would
 * wait for the drain, which does not need it stopped. */
static void growth_fired(struct rec_target *t)
{
	if (t && t->alive)
		t->grew = true;
}

static int leash_sig(int tid);

/* Give thread tid's leash the signal leash_sig() picks now, if it is not
 * the one it has. */
static void releash(void *arg, int tid, int sig)
{
	struct session *r = arg;
	int want = leash_sig(tid);

	if (want != sig)
		perf_capture_leash_signal(r->pc, tid, want);
}

/* Backpressure: if memsz has fallen behind (a sample ring is
 * HOLD_FILL_PERMILLE full), hold every traced thread until the drain under
 * way has emptied the rings, so that the kernel never has to drop a sample.
 * Looked at before each drain and during it. The threads are asked to stop
 * and the drain goes on at once: waiting for the stops would only leave
 * the rings undrained meanwhile, and the free part of the rings absorbs
 * what the threads write until they stop. */
static void backpressure(struct session *r)
{
	if (!r->hold || !r->pc || !r->tr || r->werr ||
	    perf_capture_sample_fill(r->pc) < HOLD_FILL_PERMILLE)
		return;
	if (!r->holding) {
		r->hold_start = mono_ns();
		r->holding = true;
		/* a thread may have come to block its leash signal, which
		 * then stops nothing: the rings filled without it */
		perf_capture_leash_each(r->pc, releash, r);
	}
	/* again while holding: threads that started since are held too */
	tracer_interrupt_all(r->tr);
}

/* End a hold: the rings have been drained (down to RELEASE_FILL_PERMILLE
 * at least). The stops that came meanwhile are collected first so that
 * those threads resume now. */
static void release(struct session *r)
{
	if (!r->holding)
		return;
	tracer_poll(r->tr);
	/* a thread that came to its leash meanwhile found the rings filling
	 * again: the hold goes on until the next drain */
	if (perf_capture_sample_fill(r->pc) >= HOLD_FILL_PERMILLE)
		return;
	tracer_release_all(r->tr);
	r->holding = false;
	r->held_ns += mono_ns() - r->hold_start;
	r->nholds++;
}

static int on_perf_rec(void *arg, const struct perf_rec *pr)
{
	struct session *r = arg;
	struct perf_rec c = *pr;

	if (r->werr)
		return r->werr;
	switch (c.type) {
	case MD_REC_MMAP2:
		if (!synth_dup(r, &c.u.mmap2))
			write_mmap2(r, &c.u.mmap2);
		break;
	case MD_REC_COMM:
	case MD_REC_FORK:
	case MD_REC_EXIT:
		if (!wfail(r, md_write_task(r->w, c.type, &c.u.task)))
			r->nevents++;
		/* attached: a new process forked by a target (without
		 * ptrace, this is how it is found) */
		if (c.type == MD_REC_FORK && !r->child && r->inherit &&
		    c.u.task.pid == c.u.task.tid &&
		    c.u.task.pid != c.u.task.ppid &&
		    target_find(r, c.u.task.ppid))
			follow_child(r, c.u.task.pid, false);
		break;
	case MD_REC_SAMPLE:
		if (c.u.sample.event == PERF_GROWTH_EVENT) {
			growth_fired(target_find(r, c.u.sample.pid));
			break;
		}
		if (!wfail(r, md_write_sample(r->w, &c.u.sample)))
			r->nsamples++;
		if (r->nsamples % HOLD_CHECK_SAMPLES == 0) {
			if (r->holding && perf_capture_sample_fill(r->pc) <=
						  RELEASE_FILL_PERMILLE)
				release(r);
			backpressure(r);
		}
		break;
	case MD_REC_LOST:
		r->lost += c.u.lost.count;
		if (!wfail(r, md_write_lost(r->w, &c.u.lost)))
			r->nevents++;
		break;
	default:
		break;
	}
	return r->werr;
}

/* Hand the perf records to on_perf_rec (all of them, or those older than
 * the time-ordering window), holding the targets while it runs if memsz
 * has fallen behind. Not re-entered: a snapshot taken from a tracer
 * callback during a hold leaves the records to the drain under way. */
static void drain(struct session *r, bool all)
{
	if (!r->pc || r->werr || r->draining)
		return;
	r->draining = true;
	backpressure(r);
	perf_capture_drain(r->pc, all, on_perf_rec, r);
	if (r->holding) /* what came while the holds took effect */
		perf_capture_drain(r->pc, all, on_perf_rec, r);
	release(r);
	r->draining = false;
}

static void procmap_to_mmap2(int pid, const struct procmap *p, uint64_t now,
			     struct md_mmap2 *m)
{
	memset(m, 0, sizeof(*m));
	m->time = now;
	m->pid = pid;
	m->tid = pid;
	m->start = p->start;
	m->len = p->end - p->start;
	m->pgoff = p->pgoff;
	m->dev_major = p->dev_major;
	m->dev_minor = p->dev_minor;
	m->ino = p->ino;
	m->prot = p->prot;
	m->flags = p->flags;
	m->synthesized = true;
	/* Name anonymous mappings as the kernel's mmap2 events do. */
	m->filename = p->name && p->name[0] ? p->name : "//anon";
}

static bool procmap_eq(const struct procmap *a, const struct procmap *b)
{
	return a->start == b->start && a->end == b->end &&
	       a->pgoff == b->pgoff && a->ino == b->ino &&
	       a->dev_major == b->dev_major && a->dev_minor == b->dev_minor &&
	       a->prot == b->prot && a->flags == b->flags &&
	       !strcmp(a->name ? a->name : "", b->name ? b->name : "");
}

/* A thread of pid whose maps can be read (the leader may be a zombie). */
static int live_tid(int pid)
{
	int *tids = NULL, n = target_threads(pid, &tids), tid = pid;

	for (int i = 0; i < n; i++) {
		char st = target_state(pid, tids[i]);

		if (st && st != 'Z' && st != 'X') {
			tid = tids[i];
			break;
		}
	}
	free(tids);
	return tid;
}

/* Synthesize MMAP2 records for the mappings pid has now (attach), keeping
 * their keys so that perf events seen meanwhile are not written twice. */
static void synthesize(struct session *r, struct rec_target *t)
{
	struct procmaps pm = { 0 };
	int tid = live_tid(t->pid);
	uint64_t now;

	if (procmaps_read(t->pid, tid == t->pid ? 0 : tid, &pm) < 0)
		goto out;
	now = mono_ns();
	r->syn_time = now;
	for (size_t i = 0; i < pm.n; i++) {
		struct md_mmap2 m;
		struct synth_key *k;

		procmap_to_mmap2(t->pid, &pm.maps[i], now, &m);
		m.tid = tid;
		write_mmap2(r, &m);
		xgrow(&r->syn, &r->syncap, r->nsyn + 1, sizeof(*r->syn));
		k = &r->syn[r->nsyn++];
		k->pid = m.pid;
		k->start = m.start;
		k->len = m.len;
		k->pgoff = m.pgoff;
		k->ino = m.ino;
	}
out:
	procmaps_free(&pm);
}

/* Polling fallback: write MMAP2 / MUNMAP records for what changed in the
 * maps of t since last time. Both lists are sorted by address. */
static void poll_maps(struct session *r, struct rec_target *t)
{
	struct procmaps now = { 0 };
	uint64_t time;
	size_t i = 0, j = 0;

	if (r->pc || r->scan || !t->alive || r->werr)
		return;
	if (procmaps_read(t->pid, 0, &now) < 0) {
		procmaps_free(&now);
		return;
	}
	time = mono_ns();
	while (i < t->last.n || j < now.n) {
		const struct procmap *a = i < t->last.n ? &t->last.maps[i] :
							  NULL;
		const struct procmap *b = j < now.n ? &now.maps[j] : NULL;
		struct md_mmap2 m;

		if (a && b && procmap_eq(a, b)) {
			i++;
			j++;
		} else if (a && (!b || a->start <= b->start)) {
			procmap_to_mmap2(t->pid, a, time, &m);
			if (!wfail(r, md_write_munmap(r->w, &m)))
				r->nevents++;
			i++;
		} else {
			procmap_to_mmap2(t->pid, b, time, &m);
			write_mmap2(r, &m);
			j++;
		}
	}
	procmaps_free(&t->last);
	t->last = now;
}

/* A CMDLINE record for t when its command line changed since the last. */
static void write_cmdline(struct session *r, struct rec_target *t)
{
	struct md_task k = { .pid = t->pid, .tid = t->pid };
	char *line;

	if (r->werr || target_cmdline(t->pid, &line) < 0)
		return;
	if (!line[0] || (t->cmdline && !strcmp(t->cmdline, line))) {
		free(line);
		return;
	}
	free(t->cmdline);
	t->cmdline = line;
	k.time = mono_ns();
	k.comm = line;
	if (!wfail(r, md_write_task(r->w, MD_REC_CMDLINE, &k)))
		r->nevents++;
}

/* Say (and note) that t is left out of the recording, and why. */
static void left_out(struct session *r, struct rec_target *t, int err)
{
	char *msg = xasprintf("pid %d (%s) left out: cannot read its memory "
			      "(%s)", t->pid, t->comm, memsz_strerror(err));

	t->unreadable = true;
	t->told = true;
	say(r, true, msg);
	note(r, msg);
	free(msg);
}

/* The symbols t's JIT compilers added to /tmp/perf-PID.map since the
 * last read, as JITMAP records (the file may go with the process, so it is
 * read at every snapshot and at exit). */
static void write_jit(struct session *r, struct rec_target *t)
{
	struct jitmap jm = { 0 };
	uint64_t now = mono_ns();

	if (r->werr || jitmap_read_pid(t->pid, &t->jit_off, &jm) <= 0)
		goto out;
	for (size_t i = 0; i < jm.n && !r->werr; i += MD_JITMAP_MAX_SYMS) {
		struct md_jitmap rec = {
			.time = now, .pid = (uint32_t)t->pid,
			.nsyms = (uint32_t)MIN(jm.n - i, MD_JITMAP_MAX_SYMS),
			.syms = jm.syms + i,
		};

		if (!wfail(r, md_write_jitmap(r->w, &rec)))
			r->nevents++;
	}
out:
	jitmap_free(&jm);
}

/* Between chunks of a snapshot: the targets may be faulting meanwhile,
 * and a snapshot of a large process takes long; if the rings fill, hold
 * them until the drain after the snapshot (the drain cannot run inside
 * it, between its records). The chunks are a few ms apart: the 7/8 of
 * the rings left free absorb what comes meanwhile (t2106). */
static void snapshot_tick(void *arg)
{
	backpressure(arg);
}

/* A target a snapshot holds, let go by thaw(). */
struct held {
	struct session *r;
	struct rec_target *t;
	uint64_t since;
	bool thawed;
};

static void thaw(void *arg)
{
	struct held *h = arg;

	if (h->thawed)
		return;
	h->thawed = true;
	tracer_thaw(h->r->tr, h->t->pid);
	h->t->thawed = mono_ns();
	h->t->held_ns = h->t->thawed - h->since;
	h->r->snap_held_ns += h->t->held_ns;
	h->r->nsnap_held++;
}

static void snapshot(struct session *r, struct rec_target *t, int read_pid,
		     uint32_t flags)
{
	struct snap_stats st = { 0 };
	struct held h = { .r = r, .t = t, .thawed = true };
	int ret;

	if (r->werr || t->unreadable)
		return;
	/* Only ptrace stops: the kernel ends them if memsz dies. A growth
	 * snapshot of a traced target holds it too, so that what grew is
	 * still there when it is read. What needs no stop is done before
	 * it: draining what the target wrote so far, its command line and
	 * JIT map, and reading memsz's own pages of the files it maps. The
	 * samples of faults between this drain and the stop are drained
	 * after the snapshot: the report matches samples to a snapshot by
	 * time, not by their place in the file. */
	drain(r, true);
	write_cmdline(r, t);
	write_jit(r, t);
	if ((r->freeze || (flags & MD_SNAP_F_GROWTH)) && t->traced && r->tr &&
	    !(flags & MD_SNAP_F_FROZEN)) {
		snapper_prepare(r->s, read_pid);
		h.thawed = false;
		h.since = mono_ns(); /* held from the first interrupt */
		if (tracer_freeze(r->tr, t->pid) == 0)
			flags |= MD_SNAP_F_FROZEN;
		/* Its last thread reached its exit meanwhile: the exit
		 * snapshot (at_exit) was taken then, and what is left of its
		 * memory is being torn down. */
		if (!t->alive) {
			tracer_thaw(r->tr, t->pid);
			return;
		}
	}
	/* without perf events, the mappings as the snapshot sees them
	 * (held, if it holds the target) */
	poll_maps(r, t);
	/* A growth snapshot holds the target only while its page tables
	 * are scanned (which pages are there); their pagemap entries, page
	 * flags and mapcounts are read while it runs again. --freeze holds
	 * it throughout. */
	if (!h.thawed && !r->freeze)
		snapper_set_release(r->s, thaw, &h);
	ret = snapper_take(r->s, read_pid, r->seq++, flags, &st);
	thaw(&h);
	if (ret == -ESRCH) {
		t->alive = false;
		return;
	}
	if (r->scan && (ret == -EACCES || ret == -EPERM)) {
		scan_denied(r, t->pid, ret); /* left out from now */
		t->alive = false;
		return;
	}
	if (ret == -EACCES || ret == -EPERM) {
		left_out(r, t, ret);
		return;
	}
	if (ret < 0) {
		wfail(r, ret);
		return;
	}
	r->nsnaps++;
	t->nsnaps++;
	t->last_rss = st.pages_present * (uint64_t)sysconf(_SC_PAGESIZE);
	if (flags & MD_SNAP_F_AT_EXIT)
		t->exit_snap = true;
	if (!st.pfn_available && !r->pss_told) {
		r->pss_told = true;
		say(r, false, "page frame numbers are not readable "
			      "(no CAP_SYS_ADMIN): recording without PSS, "
			      "mapcounts and page flags");
	}
}

/* --- tracer callbacks (launched and attached targets) --- */

static void at_exec(void *arg, int pid)
{
	struct session *r = arg;
	struct rec_target *t = target_find(r, pid);

	if (!t)
		return;
	/* The address space was replaced: the fallback starts over. */
	procmaps_free(&t->last);
	if (pid == r->child && !r->started) {
		r->started = true;
		snapshot(r, t, pid, MD_SNAP_F_FROZEN);
	} else {
		drain(r, true);
		poll_maps(r, t);
	}
}

static void at_fork(void *arg, int pid, int ppid)
{
	struct session *r = arg;

	(void)ppid;
	follow_child(r, pid, true);
}

static void at_exit(void *arg, int tgid, int tid)
{
	struct session *r = arg;
	struct rec_target *t = target_find(r, tgid);

	if (!t)
		t = target_add(r, tgid, true);
	if (t->alive)
		snapshot(r, t, tid, MD_SNAP_F_AT_EXIT | MD_SNAP_F_FROZEN);
	t->alive = false;
}

#define SIGBIT(s) (1ull << ((s) - 1))

/* The signal a thread's leash sends: one ignored by default that its
 * process does not catch and the thread does not block, SIGURG or else
 * SIGWINCH. If memsz dies while the thread is stopped for it, the kernel
 * delivers it, and then it does nothing; a blocked one would stop nothing
 * (and could be taken by sigwait()). When both are caught or blocked it
 * is SIGURG (the Go runtime, which catches every signal, takes a stray
 * SIGURG as a preemption request). */
static int leash_sig(int tid)
{
	uint64_t busy = target_busy_signals(tid);

	return (busy & SIGBIT(SIGURG)) && !(busy & SIGBIT(SIGWINCH)) ?
		       SIGWINCH :
		       SIGURG;
}

/* Leash each sampled thread while sampling without --lossy: all of them,
 * or with --no-inherit those traced from the start. The launched
 * command's first thread counts from its exec, like the sampling events. */
static void at_thread(void *arg, int tid, bool add)
{
	struct session *r = arg;
	int err;

	if (!r->hold || !r->pc)
		return;
	if (!add) {
		perf_capture_unleash(r->pc, tid);
		return;
	}
	if (!r->inherit && r->traced_all)
		return;
	err = perf_capture_leash(r->pc, tid, tid == r->child && !r->started,
				 leash_sig(tid));
	if (err < 0 && err != -ESRCH && !r->leash_told) {
		char *msg = xasprintf("cannot leash thread %d (%s): samples "
				      "may be lost when memsz falls behind",
				      tid, memsz_strerror(err));

		r->leash_told = true;
		note(r, msg);
		say(r, true, msg);
		free(msg);
	}
}

/* A thread stopped at its leash: let it go unless the rings are filling
 * (then every thread is held until they are drained). Its process may
 * have come to catch the signal since the leash was set: it gets the
 * other one then. */
static bool at_leash(void *arg, int tid, int sig, int fd)
{
	struct session *r = arg;

	if (!r->pc || !perf_capture_is_leash(r->pc, tid, fd))
		return false;
	if (r->closing)
		return true;
	releash(r, tid, sig);
	r->nleash++;
	r->leash_k = MAX(r->leash_k, perf_capture_leash_samples(r->pc));
	backpressure(r);
	return true;
}

static const struct tracer_ops rec_tracer_ops = {
	.at_exec = at_exec,
	.at_fork = at_fork,
	.at_exit = at_exit,
	.at_thread = at_thread,
	.leash_sigs = SIGBIT(SIGURG) | SIGBIT(SIGWINCH),
	.at_leash = at_leash,
};

/* --- setup --- */

static bool perf_disabled_by_env(void)
{
	const char *e = getenv("MEMSZ_NO_PERF");

	return e && *e && strcmp(e, "0");
}

static void fallback(struct session *r, const char *why)
{
	char *msg = xasprintf("%s: polling /proc/PID/maps instead (mappings "
			      "that live less than %d ms may be missed)",
			      why, POLL_MS);

	perf_capture_free(r->pc);
	r->pc = NULL;
	say(r, false, msg);
	note(r, msg);
	free(msg);
}

static const char *paranoid_reason(int err, char *buf, size_t size)
{
	char val[16] = "?";
	int fd = open("/proc/sys/kernel/perf_event_paranoid",
		      O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		ssize_t n = read(fd, val, sizeof(val) - 1);

		val[n > 0 ? n : 0] = 0;
		val[strcspn(val, "\n")] = 0;
		close(fd);
	}
	snprintf(buf, size,
		 "perf_event_open not permitted (%s, perf_event_paranoid=%s)",
		 memsz_strerror(err), val);
	return buf;
}

/* Open perf events on every thread of every attached target (disabled:
 * session_attach() enables them). */
static int attach_perf(struct session *r, unsigned ring_pages)
{
	struct perf_capture_opts o = { .inherit = r->inherit,
				       .samples = r->sattr,
				       .nsamples = r->nsattr,
				       .sample_ring_pages = ring_pages,
				       .growth_period = r->o.no_growth ?
						0 : GROWTH_FAULTS,
				       .leash_room_permille =
					       LEASH_ROOM_PERMILLE };
	int ret = perf_capture_new(&o, &r->pc);

	for (size_t i = 0; !ret && i < r->nt; i++) {
		int *seen = NULL, nseen = 0;

		/* Threads created while we open are caught by a rescan
		 * (inherit covers those created after). */
		for (int pass = 0; pass < 2 && !ret; pass++) {
			int *tids = NULL;
			int n = target_threads(r->t[i]->pid, &tids);

			for (int k = 0; k < n && !ret; k++) {
				bool done = false;

				for (int j = 0; j < nseen && !done; j++)
					done = seen[j] == tids[k];
				if (done)
					continue;
				ret = perf_capture_add_task(r->pc, tids[k]);
				if (ret == -ESRCH)
					ret = 0; /* thread already gone */
				seen = xrealloc(seen,
						(nseen + 1) * sizeof(*seen));
				seen[nseen++] = tids[k];
			}
			free(tids);
		}
		free(seen);
	}
	return ret;
}

static int exit_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 1;
}

static void final_snapshots(struct session *r)
{
	for (size_t i = 0; i < r->nt; i++) {
		struct rec_target *t = r->t[i];
		char *msg = NULL;

		if (t->alive && target_state(t->pid, t->pid) &&
		    target_check_pid(t->pid) == 0)
			snapshot(r, t, live_tid(t->pid), 0);
		else if (t->alive)
			t->alive = false;
		/* a scan's processes without a snapshot (gone or denied)
		 * are counted by note_scan() */
		if (t->alive || t->exit_snap || t->told ||
		    (r->scan && !t->nsnaps))
			continue;
		if (t->nsnaps)
			msg = xasprintf("pid %d (%s) exited before the final "
					"snapshot", t->pid, t->comm);
		else
			msg = xasprintf("pid %d (%s) not recorded: it exited "
					"before a snapshot could be taken",
					t->pid, t->comm);
		note(r, msg);
		if (!t->nsnaps)
			say(r, true, msg);
		free(msg);
	}
}

static bool any_alive(struct session *r)
{
	for (size_t i = 0; i < r->nt; i++) {
		struct rec_target *t = r->t[i];

		if (t->alive && !t->traced && t->pidfd < 0 &&
		    target_check_pid(t->pid) == -ESRCH)
			t->alive = false;
		if (t->alive)
			return true;
	}
	return false;
}

/* NOTE "event N: NAME" for each sampling event, in -e order. */
static void note_events(struct session *r, const char *list)
{
	char *copy = xstrdup(list), *save = NULL, *name;
	unsigned n = 0;

	for (name = strtok_r(copy, ",", &save); name;
	     name = strtok_r(NULL, ",", &save)) {
		char *msg = xasprintf("event %u: %s", n++, name);

		note(r, msg);
		free(msg);
	}
	free(copy);
}

/* Say when sampling is less than asked: user-mode faults only, or rings
 * smaller than asked (perf_event_mlock_kb). */
static void note_samples_user_only(struct session *r, unsigned ring_pages)
{
	const char *msg = "kernel-mode faults not permitted "
			  "(perf_event_paranoid): sampling faults taken "
			  "in user mode only";
	uint64_t got, want;
	char *m;

	if (!r->pc || !r->nsattr)
		return;
	if (perf_capture_samples_user_only(r->pc)) {
		say(r, true, msg);
		note(r, msg);
	}
	got = perf_capture_sample_ring_size(r->pc);
	want = ring_pages ? (uint64_t)ring_pages * sysconf(_SC_PAGESIZE) :
			    8ull << 20;
	if (got && got < want) {
		m = xasprintf("sample ring buffers limited to %llu KiB per "
			      "cpu (perf_event_mlock_kb): samples may be "
			      "lost", (unsigned long long)got >> 10);
		say(r, true, m);
		note(r, m);
		free(m);
	}
}

/* Samples the kernel dropped without telling (no LOST record follows a
 * loss until the ring is written again, and it is not after the target
 * exits): the events' counts minus what arrived and what LOST records
 * told. Written as one more LOST record. */
static void unreported_lost(struct session *r)
{
	uint64_t *counts, expected = 0;
	struct md_lost l = { .time = mono_ns() };

	if (!r->pc || !r->nsattr || r->werr)
		return;
	counts = xcalloc(r->nsattr, sizeof(*counts));
	if (perf_capture_sample_counts(r->pc, counts) == 0) {
		for (size_t i = 0; i < r->nsattr; i++)
			expected += counts[i] / r->sattr[i].sample_period;
		if (expected > r->nsamples + r->lost) {
			l.count = expected - r->nsamples - r->lost;
			r->lost += l.count;
			if (!wfail(r, md_write_lost(r->w, &l)))
				r->nevents++;
		}
	}
	free(counts);
}

/* Open the perf events for a launched child (pid > 0) or for the attached
 * targets (pid 0), or fall back to polling /proc when perf is refused or
 * MEMSZ_NO_PERF is set. Sampling (--faults, -e) has no fallback. Returns 0,
 * or a negative code with r->why. */
static int start_capture(struct session *r, unsigned ring_pages, int pid)
{
	/* a launched command's events start counting at its exec */
	struct perf_capture_opts o = { .inherit = r->inherit,
				       .enable_on_exec = pid > 0,
				       .samples = r->sattr,
				       .nsamples = r->nsattr,
				       .sample_ring_pages = ring_pages,
				       .growth_period = r->o.no_growth ?
						0 : GROWTH_FAULTS,
				       .leash_room_permille =
					       LEASH_ROOM_PERMILLE };
	char reason[160];
	int err;

	if (perf_disabled_by_env()) {
		if (r->nsattr)
			return fail(r, -MEMSZ_ENOTSUP, "cannot sample events: "
				    "MEMSZ_NO_PERF is set");
		fallback(r, "MEMSZ_NO_PERF is set");
		return 0;
	}
	if (pid > 0) {
		err = perf_capture_new(&o, &r->pc);
		if (!err)
			err = perf_capture_add_task(r->pc, pid);
	} else {
		err = attach_perf(r, ring_pages);
	}
	if (err == -EACCES || err == -EPERM) {
		paranoid_reason(err, reason, sizeof(reason));
		if (r->nsattr)
			return fail(r, err, "cannot sample events: %s",
				    reason);
		fallback(r, reason);
	} else if (err < 0) {
		return fail(r, err, "cannot open perf events: %s",
			    memsz_strerror(err));
	}
	return 0;
}

int session_open(const struct session_opts *o, struct session **out)
{
	struct session *r = xcalloc(1, sizeof(*r));
	sigset_t mask;
	int err;

	*out = r;
	r->o = *o;
	r->path = o->path;
	r->freeze = o->freeze;
	r->inherit = o->inherit;
	r->hold = o->nsamples && !o->lossy;
	r->sfd = -1;
	r->tfd = -1;
	if (o->nsamples) {
		r->sattr = xcalloc(o->nsamples, sizeof(*r->sattr));
		memcpy(r->sattr, o->samples, o->nsamples * sizeof(*r->sattr));
		r->nsattr = o->nsamples;
	}
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGCHLD);
	sigprocmask(SIG_BLOCK, &mask, &r->oldmask);
	r->masked = true;
	r->sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (r->sfd < 0)
		return fail(r, -errno, "cannot create a signalfd: %s",
			    strerror(errno));
	err = md_writer_open(r->path, &r->w);
	if (err < 0)
		return fail(r, err, "cannot open '%s': %s", r->path,
			    memsz_strerror(err));
	err = snapper_new(r->w, &r->s);
	if (err < 0)
		return fail(r, err, "cannot start snapshots: %s",
			    memsz_strerror(err));
	snapper_set_tick(r->s, snapshot_tick, r);
	if (o->names)
		note_events(r, o->names);
	return 0;
}

/* Kill and reap a launched child that will not be recorded. */
static void reap_child(struct session *r)
{
	kill(r->child, SIGKILL);
	while (waitpid(r->child, &r->status, __WALL) < 0 && errno == EINTR)
		;
}

int session_launch(struct session *r, char **argv)
{
	int err = target_launch(argv);

	if (err < 0)
		return fail(r, err, "cannot fork: %s", memsz_strerror(err));
	r->child = err;
	target_add(r, r->child, true);
	err = start_capture(r, r->o.ring_pages, r->child);
	if (err < 0)
		goto out_child;
	err = tracer_seize(r->child, r->inherit, &rec_tracer_ops, r, &r->tr);
	r->traced_all = true;
	if (err < 0) {
		fail(r, err, "cannot trace '%s': %s", argv[0],
		     memsz_strerror(err));
		goto out_child;
	}
	note_samples_user_only(r, r->o.ring_pages);
	err = target_launch_go(r->child);
	if (err < 0) {
		fail(r, err, "cannot run '%s': %s", argv[0],
		     memsz_strerror(err));
		r->exec_failed = true;
		goto out_child;
	}
	return 0;
out_child:
	reap_child(r);
	return err;
}

/* Seize the attached targets with ptrace (following the children they
 * fork when inheriting): each gets a snapshot at its exit stop, and can be
 * held by ptrace stops, which end with memsz (--freeze, backpressure).
 * Where ptrace is refused the recording goes on without it: children are
 * then found by their perf FORK records, and snapshot at intervals only.
 * A target already gone is said by note_gone_at_attach(). */
static void trace_attached(struct session *r)
{
	for (size_t i = 0; i < r->nt; i++) {
		struct rec_target *t = r->t[i];
		char *msg;
		int err;

		if (!t->alive)
			continue;
		err = tracer_attach(&r->tr, t->pid, r->inherit,
				    &rec_tracer_ops, r);
		if (!err) {
			t->traced = true;
			continue;
		}
		if (err == -ESRCH || err == -ENOENT)
			continue;
		msg = xasprintf("cannot ptrace pid %d (%s): no snapshot "
				"at its exit%s%s%s", t->pid,
				memsz_strerror(err),
				r->inherit ? "; children it forks are "
					     "snapshot at --interval and at "
					     "the end only" : "",
				r->freeze ? "; snapshots are taken while it "
					    "runs" : "",
				r->hold ? "; samples may be lost when memsz "
					  "falls behind" : "");
		note(r, msg);
		if (!r->ptrace_told)
			say(r, true, msg);
		r->ptrace_told = true;
		free(msg);
	}
}

/* Say (and note) which targets were gone before their first snapshot. */
static void note_gone_at_attach(struct session *r)
{
	for (size_t i = 0; i < r->nt; i++) {
		struct rec_target *t = r->t[i];
		char *msg;

		if (t->nsnaps || t->told)
			continue;
		t->alive = false;
		t->told = true;
		msg = xasprintf("pid %d (%s) not recorded: it exited while "
				"memsz attached", t->pid, t->comm);
		say(r, true, msg);
		note(r, msg);
		free(msg);
	}
}

int session_attach(struct session *r, const int *pids, int n)
{
	int err;

	for (int i = 0; i < n; i++) {
		struct rec_target *t = target_add(r, pids[i], false);

		t->pidfd = syscall(SYS_pidfd_open, pids[i], 0);
		write_comm(r, t);
	}
	if (!r->o.one_shot) {
		err = start_capture(r, r->o.ring_pages, 0);
		if (err < 0)
			return err;
		note_samples_user_only(r, r->o.ring_pages);
	}
	if (!r->o.one_shot || r->freeze)
		trace_attached(r);
	r->traced_all = true;
	/* The events count once the threads are traced and leashed: a
	 * sample ring cannot fill before memsz can hold them. */
	if (r->pc) {
		err = perf_capture_enable(r->pc);
		if (err < 0)
			return fail(r, err, "cannot enable perf events: %s",
				    memsz_strerror(err));
	}
	for (size_t i = 0; r->pc && i < r->nt; i++)
		synthesize(r, r->t[i]);
	for (size_t i = 0; i < r->nt; i++)
		snapshot(r, r->t[i], live_tid(r->t[i]->pid), 0);
	note_gone_at_attach(r);
	return 0;
}

/* --- targets found by a scan (record -a, -G) --- */

/* Follow pid, found by the scan, if it is new (or its pid was reused):
 * name it with its owner and take its first snapshot. */
static void scan_add(struct session *r, int pid)
{
	struct rec_target *t = target_find(r, pid);
	char comm[16], user[64];
	uint64_t before = r->nsnaps;
	struct md_task k;
	int err;

	if (r->werr || (t && t->alive) || scan_is_denied(r, pid))
		return;
	err = target_check_pid(pid);
	if (err == -EACCES || err == -EPERM)
		scan_denied(r, pid, err);
	if (err < 0 || target_scan_comm(pid, &k, comm, user) < 0)
		return; /* unreadable, or gone already */
	t = target_add(r, pid, false);
	procmaps_free(&t->last);
	if (!wfail(r, md_write_task(r->w, MD_REC_COMM, &k)))
		r->nevents++;
	snapshot(r, t, live_tid(pid), 0);
	if (r->nsnaps == before && !r->werr && !scan_is_denied(r, pid)) {
		r->scan_gone++;
		t->alive = false;
	}
}

/* Scan and follow what is new. A failed scan (the cgroup was removed) is
 * noted once; the processes already found are still followed. */
static void scan_targets(struct session *r)
{
	struct target_scan_stats st;
	int *pids = NULL;
	int n = target_scan_list(r->scan, &pids, &st);

	if (n < 0) {
		if (!r->scan_err) {
			char *msg = xasprintf("cannot list the processes of "
					      "'%s' any more: %s",
					      target_scan_dir(r->scan),
					      memsz_strerror(n));

			say(r, true, msg);
			note(r, msg);
			free(msg);
		}
		r->scan_err = n;
		return;
	}
	r->scan_err = 0;
	if (!r->kthreads)
		r->kthreads = st.kthreads;
	for (int i = 0; i < n; i++)
		scan_add(r, pids[i]);
	free(pids);
}

int session_scan(struct session *r, struct target_scan *scan)
{
	int *pids = NULL;
	int n;

	r->scan = scan;
	if (r->nsattr)
		return fail(r, -MEMSZ_EUSAGE, "sampling events cannot be "
			    "recorded with -a or -G");
	n = target_scan_list(scan, &pids, NULL);
	free(pids);
	if (n < 0)
		return fail(r, n, "cannot list the processes of '%s': %s",
			    target_scan_is_cgroup(scan) ? target_scan_dir(scan) :
							  "/proc",
			    memsz_strerror(n));
	scan_targets(r);
	return 0;
}

/* NOTE (and say) what the scan left out: processes that could not be read,
 * processes gone before their first snapshot, kernel threads. */
static void note_scan(struct session *r)
{
	struct strbuf list = STRBUF_INIT;
	char *msg;

	if (!r->scan || r->werr)
		goto out;
	for (size_t i = 0; i < r->ndenied && i < 10; i++)
		strbuf_addf(&list, "%s%d", i ? ", " : "", r->denied[i]);
	if (r->ndenied) {
		msg = xasprintf("%zu process%s could not be read (%s) and %s "
				"left out: pid %s%s", r->ndenied,
				r->ndenied == 1 ? "" : "es",
				memsz_strerror(r->denied_err),
				r->ndenied == 1 ? "is" : "are",
				strbuf_str(&list),
				r->ndenied > 10 ? ", ..." : "");
		say(r, true, msg);
		note(r, msg);
		free(msg);
	}
	if (r->scan_gone) {
		msg = xasprintf("%llu process%s exited before its first "
				"snapshot", (unsigned long long)r->scan_gone,
				r->scan_gone == 1 ? "" : "es");
		note(r, msg);
		free(msg);
	}
	if (r->kthreads && !target_scan_is_cgroup(r->scan)) {
		msg = xasprintf("%zu kernel thread%s skipped (no user memory)",
				r->kthreads, r->kthreads == 1 ? "" : "s");
		note(r, msg);
		free(msg);
	}
out:
	strbuf_free(&list);
}

/* Arm the --interval timer and the --duration deadline. */
static void start_clocks(struct session *r)
{
	uint64_t ms = r->o.interval_ms;

	if (ms) {
		struct itimerspec its = { 0 };

		r->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
		its.it_value.tv_sec = ms / 1000;
		its.it_value.tv_nsec = (ms % 1000) * 1000000;
		its.it_interval = its.it_value;
		if (r->tfd >= 0)
			timerfd_settime(r->tfd, 0, &its, NULL);
	}
	if (r->o.duration_ns)
		r->deadline = mono_ns() + r->o.duration_ns;
}

/* Decide whether the loop goes on: the launched command reaped, the
 * targets gone, a stop asked for. At the deadline, a launched command gets
 * its last snapshot now, then SIGTERM (its exit snapshot follows), then
 * SIGKILL after a grace period — like perf. Returns false to leave. */
static bool loop_continue(struct session *r, uint64_t now)
{
	if (r->tr)
		tracer_poll(r->tr);
	if (r->child) {
		if (tracer_done(r->tr, &r->status)) {
			r->got_exit = true;
			return false;
		}
	}
	if (!r->child && (r->stop || (!r->scan && !any_alive(r))))
		return false;
	if (r->deadline && now >= r->deadline && !r->stop)
		r->stop = true;
	if (r->stop && r->child && !r->term_sent) {
		final_snapshots(r);
		kill(r->child, SIGTERM);
		r->term_sent = true;
		r->kill_at = now + KILL_GRACE_NS;
	}
	if (r->kill_at && now >= r->kill_at) {
		kill(r->child, SIGKILL);
		r->kill_at = 0;
	}
	return true;
}

/* Fill r->pfd: the fixed entries, the live targets' pidfds, the perf
 * rings. Returns the count. */
static size_t fill_pollfds(struct session *r)
{
	size_t n = 0, max = PFD_FIXED + r->nt;

	if (r->pc)
		max += perf_capture_nrings(r->pc);
	xgrow(&r->pfd, &r->pfd_cap, max, sizeof(*r->pfd));
	r->pfd[n++] = (struct pollfd){ .fd = r->sfd, .events = POLLIN };
	r->pfd[n++] = (struct pollfd){ .fd = r->tfd, .events = POLLIN };
	for (size_t i = 0; i < r->nt; i++)
		if (r->t[i]->pidfd >= 0 && r->t[i]->alive)
			r->pfd[n++] = (struct pollfd){ .fd = r->t[i]->pidfd,
						       .events = POLLIN };
	if (r->pc)
		n += perf_capture_pollfds(r->pc, r->pfd + n, max - n);
	return n;
}

/* Snapshot the targets whose growth trigger fired if their RSS grew
 * materially since their last snapshot (see GROWTH_FAULTS). */
static void growth_snapshots(struct session *r)
{
	for (size_t i = 0; i < r->nt && !r->werr; i++) {
		struct rec_target *t = r->t[i];
		int64_t rss;
		bool grown;

		if (!t->grew)
			continue;
		t->grew = false;
		rss = target_rss(t->pid);
		grown = rss > 0 &&
			(uint64_t)rss >= t->last_rss + growth_step(t);
		if (t->alive && grown)
			snapshot(r, t, live_tid(t->pid), MD_SNAP_F_GROWTH);
	}
}

/* --freeze: true while a target has run for less time than its last
 * snapshot held it. Its interval snapshot then waits for a later tick, so
 * that it is held at most half of the time however long snapshots take
 * (a slow snapshot at a short --interval would otherwise hold it from one
 * tick to the next and it would never get to run). */
static bool held_enough(const struct rec_target *t)
{
	return t->held_ns && mono_ns() - t->thawed < t->held_ns;
}

/* Act on what poll() reported in r->pfd[0..n). */
static void handle_pollfds(struct session *r, size_t n)
{
	struct pollfd *pfd = r->pfd;

	if (pfd[PFD_SIGNAL].revents & POLLIN) {
		struct signalfd_siginfo si;

		while (read(r->sfd, &si, sizeof(si)) == sizeof(si))
			if (si.ssi_signo != SIGCHLD)
				r->stop = true;
	}
	if (r->tfd >= 0 && (pfd[PFD_TIMER].revents & POLLIN)) {
		uint64_t ticks;

		if (read(r->tfd, &ticks, sizeof(ticks)) > 0)
			for (size_t i = 0; i < r->nt; i++)
				if (r->t[i]->alive && !held_enough(r->t[i]))
					snapshot(r, r->t[i],
						 live_tid(r->t[i]->pid), 0);
		if (r->scan && !target_scan_is_cgroup(r->scan))
			scan_targets(r);
	}
	for (size_t i = 0; i < r->nt; i++) {
		struct rec_target *t = r->t[i];
		struct pollfd *p = NULL;

		for (size_t k = PFD_FIXED; k < n && !p; k++)
			if (t->pidfd >= 0 && pfd[k].fd == t->pidfd)
				p = &pfd[k];
		if (p && (p->revents & (POLLIN | POLLHUP))) {
			write_jit(r, t);
			t->alive = false;
			close(t->pidfd);
			t->pidfd = -1;
		}
	}
}

void session_run(struct session *r)
{
	if (r->o.one_shot)
		return;
	start_clocks(r);
	while (!r->werr) {
		uint64_t now = mono_ns();
		int timeout = POLL_MS;
		size_t n;

		if (!loop_continue(r, now))
			break;
		if (r->stop && !r->child)
			continue; /* the next turn leaves */
		if (r->deadline && !r->stop)
			timeout = MIN((uint64_t)timeout,
				      (r->deadline - now) / 1000000 + 1);
		n = fill_pollfds(r);
		if (poll(r->pfd, n, timeout) < 0 && errno != EINTR)
			break;
		/* threads at their leash first: they wait for it */
		if (r->tr)
			tracer_poll(r->tr);
		handle_pollfds(r, n);
		if (r->scan && target_scan_is_cgroup(r->scan))
			scan_targets(r);
		drain(r, false);
		growth_snapshots(r);
		for (size_t i = 0; !r->pc && i < r->nt; i++)
			poll_maps(r, r->t[i]);
	}
}

/* Send sig to the launched command and every process forked from it that
 * still exists. Returns true if any does. */
static bool signal_launched(struct session *r, int sig)
{
	bool any = false;

	for (size_t i = 0; i < r->nt; i++)
		if (r->t[i]->traced && kill(r->t[i]->pid, 0) == 0) {
			kill(r->t[i]->pid, sig);
			any = true;
		}
	return any;
}

/* After a write error: end the launched command and what it forked rather
 * than leave them running unwatched (SIGTERM, SIGKILL after the grace
 * period; processes forked meanwhile get the same as the tracer reports
 * them), reaping them through the tracer. */
static void stop_launched(struct session *r)
{
	uint64_t start = mono_ns();

	kill(r->child, SIGTERM);
	for (;;) {
		uint64_t now = mono_ns();
		bool any;

		tracer_poll(r->tr);
		any = signal_launched(r, now - start < KILL_GRACE_NS ? SIGTERM
								     : SIGKILL);
		if ((tracer_done(r->tr, &r->status) && !any) ||
		    now - start > 2 * KILL_GRACE_NS)
			return;
		poll(NULL, 0, 10);
	}
}

void session_finish(struct session *r, struct session_stats *st)
{
	struct md_writer_stats ws = { 0 };

	drain(r, true);
	if (!r->werr && !r->child && !r->o.one_shot)
		final_snapshots(r);
	note_scan(r);
	drain(r, true);
	unreported_lost(r);
	if (r->nleash && !r->werr) {
		char *msg = xasprintf("threads stopped %llu times at their "
				      "leash (every %llu samples at most) "
				      "for memsz to look at the sample rings",
				      (unsigned long long)r->nleash,
				      (unsigned long long)
					      r->leash_k);

		note(r, msg);
		free(msg);
	}
	if (r->pc && perf_capture_leash_short(r->pc) && !r->werr) {
		const char *msg = "the sample rings are too small for a leash "
				  "of one sample per traced thread: samples "
				  "may be lost when memsz falls behind "
				  "(a larger -m helps)";

		note(r, msg);
		say(r, true, msg);
	}
	if (r->nholds && !r->werr) {
		char *msg = xasprintf("targets held %llu times, %.3f s in "
				      "all, while memsz drained the sample "
				      "rings (backpressure)",
				      (unsigned long long)r->nholds,
				      r->held_ns / 1e9);

		note(r, msg);
		free(msg);
	}
	/* the batched samples now, so that the summary counts the file */
	if (r->w)
		wfail(r, md_writer_flush(r->w));
	if (r->werr && r->tr && !r->got_exit)
		stop_launched(r);
	if (r->lost && !r->werr) {
		char *msg = xasprintf("%llu perf records lost",
				      (unsigned long long)r->lost);

		note(r, msg);
		say(r, false, msg);
		free(msg);
	}
	/* The last sample batch, then: only a recording that holds a
	 * snapshot replaces the previous one. */
	if (r->w && !r->werr)
		wfail(r, md_writer_flush(r->w));
	if (!r->werr && r->nsnaps)
		wfail(r, md_writer_commit(r->w));
	/* A write error keeps path as it was; what was written up to the
	 * error (its complete snapshots readable, the file cut short) is
	 * kept beside it rather than thrown away. */
	if (r->w && r->werr && r->nsnaps && !r->partial) {
		char *p = xasprintf("%s.partial", r->o.path);

		if (md_writer_keep(r->w, p) == 0)
			r->partial = p;
		else
			free(p);
	}
	if (!st)
		return;
	st->nevents = r->nevents;
	if (r->w)
		md_writer_stats(r->w, &ws);
	st->nsamples = ws.samples;
	st->unwritten = ws.samples_lost;
	st->lost = r->lost;
	st->nsnaps = r->nsnaps;
	st->held_ns = r->held_ns;
	st->nholds = r->nholds;
	st->snap_held_ns = r->snap_held_ns;
	st->nsnap_held = r->nsnap_held;
	st->bytes = r->w ? md_writer_offset(r->w) : 0;
	st->werr = r->werr;
	st->committed = !r->werr && r->nsnaps;
	st->partial = r->partial;
}

int session_exit_code(const struct session *r)
{
	return r->child && r->got_exit ? exit_code(r->status) : 0;
}

const char *session_why(const struct session *r)
{
	return r->why;
}

bool session_exec_failed(const struct session *r)
{
	return r->exec_failed;
}

int session_free(struct session *r)
{
	int ret;

	if (!r)
		return 0;
	/* No leash signal may reach a thread once it is let go: none is
	 * sent from now on, and those sent before are taken at the stops
	 * tracer_free() handles before it detaches. */
	r->closing = true;
	perf_capture_leash_quiet(r->pc);
	tracer_free(r->tr);
	perf_capture_free(r->pc);
	for (size_t i = 0; i < r->nt; i++) {
		if (r->t[i]->pidfd >= 0)
			close(r->t[i]->pidfd);
		procmaps_free(&r->t[i]->last);
		free(r->t[i]->cmdline);
		free(r->t[i]);
	}
	free(r->t);
	free(r->syn);
	free(r->pfd);
	free(r->partial);
	snapper_free(r->s);
	ret = md_writer_close(r->w);
	if (r->tfd >= 0)
		close(r->tfd);
	if (r->sfd >= 0)
		close(r->sfd);
	if (r->masked)
		sigprocmask(SIG_SETMASK, &r->oldmask, NULL);
	free(r->sattr);
	target_scan_free(r->scan);
	free(r->denied);
	free(r);
	return ret;
}
