/* cmd_record.c — `memsz record`: drive perf capture, targets and snapshots
 * into memsz.data. The logic lives in perf.c, target.c and snapshot.c. */
#include "config.h"

#include "builtin/builtin.h"
#include "data/datafile.h"
#include "record/events.h"
#include "record/perf.h"
#include "record/procmaps.h"
#include "record/snapshot.h"
#include "record/target.h"
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define POLL_MS 100           /* ring drain / maps polling period */
#define KILL_GRACE_NS (2000ull * 1000 * 1000)

struct rec_target {
	int pid;
	bool alive;
	bool traced;          /* launched (or forked from it): under ptrace */
	int pidfd;            /* attach mode: readable at exit; -1 */
	struct procmaps last; /* polling fallback: the maps seen last */
};

struct synth_key {
	uint32_t pid;
	uint64_t start, len, pgoff, ino;
};

struct rec {
	const char *path;
	struct md_writer *w;
	struct snapper *s;
	struct perf_capture *pc;    /* NULL: polling fallback */
	struct tracer *tr;          /* launch mode */
	int child;                  /* launched pid or 0 */
	struct rec_target *t;
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
};

static const struct option record_options[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "pid", required_argument, NULL, 'p' },
	{ "interval", required_argument, NULL, 'I' },
	{ "duration", required_argument, NULL, 'd' },
	{ "freeze", no_argument, NULL, 'F' },
	{ "no-inherit", no_argument, NULL, 'N' },
	{ "faults", no_argument, NULL, 'f' },
	{ "event", required_argument, NULL, 'e' },
	{ "count", required_argument, NULL, 'c' },
	{ "call-graph", required_argument, NULL, 'g' },
	{ "stack-size", required_argument, NULL, 'S' },
	{ "mmap-pages", required_argument, NULL, 'm' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

void usage_record(FILE *out)
{
	fprintf(out,
		"usage: memsz record [-o FILE] [--interval MS] [--duration S] "
		"[--freeze]\n"
		"                    [--no-inherit] [--faults] "
		"[-e EVENT[,EVENT...]] [-c N]\n"
		"                    [--call-graph fp|dwarf] "
		"[--stack-size BYTES]\n"
		"                    [-m PAGES] (-p PID[,PID...] | "
		"-- CMD [ARG...])\n\n"
		"Record where images are loaded (perf mmap2 events) and which "
		"pages are\nresident (snapshots at start, every --interval, "
		"and at the end).\n\n"
		"    -o, --output FILE   write to FILE (default memsz.data; an "
		"existing one\n"
		"                        is kept as FILE.old)\n"
		"    -p, --pid PID,...   attach to running processes (all "
		"their threads)\n"
		"    --interval MS       also take a snapshot every MS "
		"milliseconds\n"
		"    --duration S        stop after S seconds\n"
		"    --freeze            stop the targets while a snapshot is "
		"taken\n"
		"    --no-inherit        do not follow forked children\n"
		"    --faults            sample every page fault with its "
		"address and user\n"
		"                        stack (same as -e page-faults)\n"
		"    -e, --event EVENT,...  sample these events (libpfm4 "
		"names: page-faults,\n"
		"                        minor-faults, major-faults, "
		"perf::PAGE-FAULTS:u ...)\n"
		"    -c, --count N       sample every N-th event (default 1)\n"
		"    --call-graph MODE   dwarf: copy registers and user stack "
		"for unwinding\n"
		"                        at report time (default); fp: the "
		"kernel's\n"
		"                        frame-pointer callchain\n"
		"    --stack-size BYTES  user stack bytes copied per sample "
		"(dwarf; default\n"
		"                        8192, at most 65528)\n"
		"    -m, --mmap-pages PAGES  ring buffer pages per cpu for "
		"samples (a power\n"
		"                        of 2; default 64 MiB per cpu, less "
		"with > 8 cpus)\n");
}

/* Remember the first write error; later writes are skipped. */
static bool wfail(struct rec *r, int ret)
{
	if (ret < 0 && !r->werr)
		r->werr = ret;
	return r->werr != 0;
}

static void note(struct rec *r, const char *text)
{
	if (!r->werr)
		wfail(r, md_write_note(r->w, text));
}

static struct rec_target *target_find(struct rec *r, int pid)
{
	for (size_t i = 0; i < r->nt; i++)
		if (r->t[i].pid == pid)
			return &r->t[i];
	return NULL;
}

static struct rec_target *target_add(struct rec *r, int pid, bool traced)
{
	struct rec_target *t = target_find(r, pid);

	if (t) {
		t->alive = true;
		return t;
	}
	xgrow(&r->t, &r->tcap, r->nt + 1, sizeof(*r->t));
	t = &r->t[r->nt++];
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->alive = true;
	t->traced = traced;
	t->pidfd = -1;
	return t;
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

static void write_mmap2(struct rec *r, struct md_mmap2 *m)
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

static bool synth_dup(struct rec *r, const struct md_mmap2 *m)
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

static int on_perf_rec(void *arg, const struct perf_rec *pr)
{
	struct rec *r = arg;
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
		break;
	case MD_REC_SAMPLE:
		if (!wfail(r, md_write_sample(r->w, &c.u.sample)))
			r->nsamples++;
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

static void drain(struct rec *r, bool all)
{
	if (r->pc && !r->werr)
		perf_capture_drain(r->pc, all, on_perf_rec, r);
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
static void synthesize(struct rec *r, struct rec_target *t)
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
static void poll_maps(struct rec *r, struct rec_target *t)
{
	struct procmaps now = { 0 };
	uint64_t time;
	size_t i = 0, j = 0;

	if (r->pc || !t->alive || r->werr)
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

static void snapshot(struct rec *r, struct rec_target *t, int read_pid,
		     uint32_t flags)
{
	struct snap_stats st = { 0 };
	bool thaw_sig = false, thaw_tr = false;
	int ret;

	if (r->werr)
		return;
	drain(r, true);
	poll_maps(r, t);
	if (r->freeze && !(flags & MD_SNAP_F_FROZEN)) {
		if (t->traced && r->tr) {
			thaw_tr = true;
			if (tracer_freeze(r->tr, t->pid) == 0)
				flags |= MD_SNAP_F_FROZEN;
		} else {
			ret = target_freeze_signal(t->pid);
			thaw_sig = ret == 1;
			if (ret >= 0)
				flags |= MD_SNAP_F_FROZEN;
		}
	}
	ret = snapper_take(r->s, read_pid, r->seq++, flags, &st);
	if (thaw_tr)
		tracer_thaw(r->tr, t->pid);
	if (thaw_sig)
		target_thaw_signal(t->pid);
	if (ret == -ESRCH) {
		t->alive = false;
		return;
	}
	if (ret < 0) {
		wfail(r, ret);
		return;
	}
	r->nsnaps++;
	if (!st.pfn_available && !r->pss_told) {
		r->pss_told = true;
		fprintf(stderr, "memsz: page frame numbers are not readable "
				"(no CAP_SYS_ADMIN): recording without PSS, "
				"mapcounts and page flags\n");
	}
}

/* --- tracer callbacks (launch mode) --- */

static void at_exec(void *arg, int pid)
{
	struct rec *r = arg;
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
	struct rec *r = arg;

	(void)ppid;
	target_add(r, pid, true);
}

static void at_exit(void *arg, int tgid, int tid)
{
	struct rec *r = arg;
	struct rec_target *t = target_find(r, tgid);

	if (!t)
		t = target_add(r, tgid, true);
	if (t->alive)
		snapshot(r, t, tid, MD_SNAP_F_AT_EXIT | MD_SNAP_F_FROZEN);
	t->alive = false;
}

static const struct tracer_ops rec_tracer_ops = {
	.at_exec = at_exec,
	.at_fork = at_fork,
	.at_exit = at_exit,
};

/* --- setup --- */

static bool perf_disabled_by_env(void)
{
	const char *e = getenv("MEMSZ_NO_PERF");

	return e && *e && strcmp(e, "0");
}

static void fallback(struct rec *r, const char *why)
{
	char *msg = xasprintf("%s: polling /proc/PID/maps instead (mappings "
			      "that live less than %d ms may be missed)",
			      why, POLL_MS);

	perf_capture_free(r->pc);
	r->pc = NULL;
	fprintf(stderr, "memsz: %s\n", msg);
	note(r, msg);
	free(msg);
}

static const char *paranoid_reason(int err)
{
	static char buf[160];
	char val[16] = "?";
	int fd = open("/proc/sys/kernel/perf_event_paranoid",
		      O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		ssize_t n = read(fd, val, sizeof(val) - 1);

		val[n > 0 ? n : 0] = 0;
		val[strcspn(val, "\n")] = 0;
		close(fd);
	}
	snprintf(buf, sizeof(buf),
		 "perf_event_open not permitted (%s, perf_event_paranoid=%s)",
		 memsz_strerror(err), val);
	return buf;
}

/* Open perf events on every thread of every attached target. */
static int attach_perf(struct rec *r, unsigned ring_pages)
{
	struct perf_capture_opts o = { .inherit = r->inherit,
				       .samples = r->sattr,
				       .nsamples = r->nsattr,
				       .sample_ring_pages = ring_pages };
	int ret = perf_capture_new(&o, &r->pc);

	for (size_t i = 0; !ret && i < r->nt; i++) {
		int *seen = NULL, nseen = 0;

		/* Threads created while we open are caught by a rescan
		 * (inherit covers those created after). */
		for (int pass = 0; pass < 2 && !ret; pass++) {
			int *tids = NULL, n = target_threads(r->t[i].pid, &tids);

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
	if (!ret)
		ret = perf_capture_enable(r->pc);
	return ret;
}

static int parse_seconds(const char *s, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	if (errno || end == s || *end || !(*out > 0) || !isfinite(*out))
		return -EINVAL;
	return 0;
}

static int exit_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 1;
}

/* Send sig to the launched command and every process forked from it that
 * still exists. Returns true if any does. */
static bool signal_launched(struct rec *r, int sig)
{
	bool any = false;

	for (size_t i = 0; i < r->nt; i++)
		if (r->t[i].traced && kill(r->t[i].pid, 0) == 0) {
			kill(r->t[i].pid, sig);
			any = true;
		}
	return any;
}

/* After a write error: end the launched command and what it forked rather
 * than leave them running unwatched (SIGTERM, SIGKILL after the grace
 * period; processes forked meanwhile get the same as the tracer reports
 * them), reaping them through the tracer. */
static void stop_launched(struct rec *r, int *status)
{
	uint64_t start = mono_ns();

	kill(r->child, SIGTERM);
	for (;;) {
		uint64_t now = mono_ns();
		bool any;

		tracer_poll(r->tr);
		any = signal_launched(r, now - start < KILL_GRACE_NS ?
						 SIGTERM : SIGKILL);
		if ((tracer_done(r->tr, status) && !any) ||
		    now - start > 2 * KILL_GRACE_NS)
			return;
		poll(NULL, 0, 10);
	}
}

static void final_snapshots(struct rec *r)
{
	for (size_t i = 0; i < r->nt; i++) {
		struct rec_target *t = &r->t[i];

		if (t->alive && target_state(t->pid, t->pid) &&
		    target_check_pid(t->pid) == 0)
			snapshot(r, t, live_tid(t->pid), 0);
		else if (t->alive)
			t->alive = false;
		if (!t->alive && !t->traced) {
			char *msg = xasprintf("pid %d exited before the final "
					      "snapshot", t->pid);

			note(r, msg);
			free(msg);
		}
	}
}

static bool any_alive(struct rec *r)
{
	for (size_t i = 0; i < r->nt; i++) {
		struct rec_target *t = &r->t[i];

		if (t->alive && !t->traced && t->pidfd < 0 &&
		    target_check_pid(t->pid) == -ESRCH)
			t->alive = false;
		if (t->alive)
			return true;
	}
	return false;
}

/* Parse the -e list (and --faults) into r->sattr; prints the error. */
static int parse_events(struct rec *r, const char *list,
			const struct events_opts *fo)
{
	char *copy = xstrdup(list), *save = NULL, *name;
	int ret = 0;

	for (name = strtok_r(copy, ",", &save); name && !ret;
	     name = strtok_r(NULL, ",", &save)) {
		struct perf_event_attr a;
		char *hint;

		ret = events_attr(name, fo, &a);
		if (ret == -MEMSZ_EUSAGE) {
			hint = events_suggest(name);
			if (hint)
				memsz_error("unknown event '%s' (did you mean "
					    "%s?)", name, hint);
			else
				memsz_error("unknown event '%s'", name);
			free(hint);
		} else if (ret < 0) {
			memsz_error("cannot encode event '%s': %s", name,
				    memsz_strerror(ret));
		} else {
			r->sattr = xrealloc(r->sattr, (r->nsattr + 1) *
							      sizeof(a));
			r->sattr[r->nsattr++] = a;
		}
	}
	free(copy);
	return ret;
}

/* NOTE "event N: NAME" for each sampling event, in -e order. */
static void note_events(struct rec *r, const char *list)
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
static void note_samples_user_only(struct rec *r, unsigned ring_pages)
{
	const char *msg = "kernel-mode faults not permitted "
			  "(perf_event_paranoid): sampling faults taken "
			  "in user mode only";
	uint64_t got, want;
	char *m;

	if (!r->pc || !r->nsattr)
		return;
	if (perf_capture_samples_user_only(r->pc)) {
		memsz_warning("%s", msg);
		note(r, msg);
	}
	got = perf_capture_sample_ring_size(r->pc);
	want = ring_pages ? (uint64_t)ring_pages * sysconf(_SC_PAGESIZE) :
			    8ull << 20;
	if (got && got < want) {
		m = xasprintf("sample ring buffers limited to %llu KiB per "
			      "cpu (perf_event_mlock_kb): samples may be "
			      "lost", (unsigned long long)got >> 10);
		memsz_warning("%s", m);
		note(r, m);
		free(m);
	}
}

/* Samples the kernel dropped without telling (no LOST record follows a
 * loss until the ring is written again, and it is not after the target
 * exits): the events' counts minus what arrived and what LOST records
 * told. Written as one more LOST record. */
static void unreported_lost(struct rec *r)
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
 * or -1 after printing why recording cannot go on. */
static int start_capture(struct rec *r, unsigned ring_pages, int pid)
{
	/* a launched command's events start counting at its exec */
	struct perf_capture_opts o = { .inherit = r->inherit,
				       .enable_on_exec = pid > 0,
				       .samples = r->sattr,
				       .nsamples = r->nsattr,
				       .sample_ring_pages = ring_pages };
	int err;

	if (perf_disabled_by_env()) {
		if (r->nsattr) {
			memsz_error("cannot sample events: MEMSZ_NO_PERF is "
				    "set");
			return -1;
		}
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
	if ((err == -EACCES || err == -EPERM) && r->nsattr) {
		memsz_error("cannot sample events: %s", paranoid_reason(err));
		return -1;
	} else if (err == -EACCES || err == -EPERM) {
		fallback(r, paranoid_reason(err));
	} else if (err < 0) {
		memsz_error("cannot open perf events: %s",
			    memsz_strerror(err));
		return -1;
	}
	return 0;
}

int cmd_record(int argc, char **argv)
{
	struct rec rec = { .path = "memsz.data", .inherit = true };
	struct rec *r = &rec;
	const char *pidlist = NULL;
	uint64_t interval_ms = 0, deadline = 0, kill_at = 0;
	double duration = 0;
	int *pids = NULL, npids = 0, sfd = -1, tfd = -1, status = 0;
	int ret = 1, c, err;
	bool stop = false, launch, term_sent = false, got_exit = false;
	struct md_writer_stats st;
	sigset_t mask, oldmask;
	struct pollfd *pfd = NULL;
	size_t pfd_cap = 0;
	struct events_opts fo = { .period = 1 };
	unsigned ring_pages = 0;
	char *events = NULL;
	uint64_t v;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+o:p:e:c:m:", record_options,
				NULL)) != -1) {
		switch (c) {
		case 'o':
			r->path = optarg;
			break;
		case 'p':
			pidlist = optarg;
			break;
		case 'I':
			if (parse_u64(optarg, &interval_ms) < 0 ||
			    !interval_ms) {
				memsz_error("invalid --interval '%s': expected "
					    "milliseconds > 0", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'd':
			if (parse_seconds(optarg, &duration) < 0) {
				memsz_error("invalid --duration '%s': expected "
					    "seconds > 0", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'F':
			r->freeze = true;
			break;
		case 'N':
			r->inherit = false;
			break;
		case 'f':
		case 'e': {
			const char *add = c == 'f' ? "page-faults" : optarg;
			char *n = xasprintf("%s%s%s", events ? events : "",
					    events ? "," : "", add);

			free(events);
			events = n;
			break;
		}
		case 'c':
			if (parse_u64(optarg, &fo.period) < 0 || !fo.period) {
				memsz_error("invalid --count '%s': expected an "
					    "integer > 0", optarg);
				goto out_usage;
			}
			break;
		case 'g':
			if (!strcmp(optarg, "fp")) {
				fo.cg = EVENTS_CG_FP;
			} else if (!strcmp(optarg, "dwarf")) {
				fo.cg = EVENTS_CG_DWARF;
			} else {
				memsz_error("invalid --call-graph '%s': "
					    "expected fp or dwarf", optarg);
				goto out_usage;
			}
			break;
		case 'S':
			if (parse_u64(optarg, &v) < 0 || !v ||
			    v > EVENTS_MAX_STACK) {
				memsz_error("invalid --stack-size '%s': "
					    "expected 1 to %u bytes", optarg,
					    EVENTS_MAX_STACK);
				goto out_usage;
			}
			fo.stack_size = (uint32_t)v;
			break;
		case 'm':
			if (parse_u64(optarg, &v) < 0 || v < 2 ||
			    v > (1u << 20) || (v & (v - 1))) {
				memsz_error("invalid --mmap-pages '%s': "
					    "expected a power of 2 from 2 to "
					    "1048576", optarg);
				goto out_usage;
			}
			ring_pages = (unsigned)v;
			break;
		case 'h':
			usage_record(stdout);
			free(events);
			free(r->sattr);
			return 0;
		default:
			usage_record(stderr);
			goto out_usage;
		}
	}
	if (events && parse_events(r, events, &fo) < 0)
		goto out_usage;
	launch = optind < argc;
	if (launch == !!pidlist) {
		memsz_error(launch ? "give either -p PID or a command, not both"
				   : "nothing to record: give -p PID or "
				     "-- CMD [ARG...]");
		goto out_usage;
	}
	if (pidlist) {
		npids = target_parse_pids(pidlist, &pids);
		if (npids < 0) {
			memsz_error("invalid pid list '%s'", pidlist);
			goto out_usage;
		}
		for (int i = 0; i < npids; i++) {
			err = target_check_pid(pids[i]);
			if (err == -ESRCH) {
				memsz_error("no process with pid %d", pids[i]);
				goto out_pids;
			}
			if (err < 0) {
				memsz_error("cannot trace pid %d: %s", pids[i],
					    memsz_strerror(err));
				goto out_pids;
			}
		}
	}

	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGCHLD);
	sigprocmask(SIG_BLOCK, &mask, &oldmask);
	sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0) {
		memsz_error("cannot create a signalfd: %s", strerror(errno));
		goto out_sig;
	}

	err = md_writer_open(r->path, &r->w);
	if (err < 0) {
		memsz_error("cannot open '%s': %s", r->path,
			    memsz_strerror(err));
		goto out_sig;
	}
	err = snapper_new(r->w, &r->s);
	if (err < 0) {
		memsz_error("cannot start snapshots: %s", memsz_strerror(err));
		goto out_writer;
	}
	if (events)
		note_events(r, events);

	if (launch) {
		err = target_launch(argv + optind);
		if (err < 0) {
			memsz_error("cannot fork: %s", memsz_strerror(err));
			goto out_writer;
		}
		r->child = err;
		target_add(r, r->child, true);
		if (start_capture(r, ring_pages, r->child) < 0)
			goto out_child;
		err = tracer_seize(r->child, r->inherit, &rec_tracer_ops, r,
				   &r->tr);
		if (err < 0) {
			memsz_error("cannot trace '%s': %s", argv[optind],
				    memsz_strerror(err));
			goto out_child;
		}
		note_samples_user_only(r, ring_pages);
		err = target_launch_go(r->child);
		if (err < 0) {
			memsz_error("cannot run '%s': %s", argv[optind],
				    memsz_strerror(err));
			ret = 127;
			goto out_child;
		}
	} else {
		for (int i = 0; i < npids; i++) {
			struct rec_target *t = target_add(r, pids[i], false);

			t->pidfd = syscall(SYS_pidfd_open, pids[i], 0);
		}
		if (start_capture(r, ring_pages, 0) < 0)
			goto out_targets;
		note_samples_user_only(r, ring_pages);
		for (size_t i = 0; r->pc && i < r->nt; i++)
			synthesize(r, &r->t[i]);
		for (size_t i = 0; i < r->nt; i++)
			snapshot(r, &r->t[i], live_tid(r->t[i].pid), 0);
	}

	if (interval_ms) {
		struct itimerspec its = { 0 };

		tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
		its.it_value.tv_sec = interval_ms / 1000;
		its.it_value.tv_nsec = (interval_ms % 1000) * 1000000;
		its.it_interval = its.it_value;
		if (tfd >= 0)
			timerfd_settime(tfd, 0, &its, NULL);
	}
	if (duration > 0)
		deadline = mono_ns() + (uint64_t)(duration * 1e9);

	while (!r->werr) {
		size_t n = 0, max = r->nt + 2 + 4096;
		uint64_t now;
		int timeout = POLL_MS;

		if (r->tr) {
			tracer_poll(r->tr);
			if (tracer_done(r->tr, &status)) {
				got_exit = true;
				break;
			}
		} else if (stop || !any_alive(r)) {
			break;
		}
		now = mono_ns();
		if (deadline && now >= deadline && !stop) {
			stop = true;
			continue;
		}
		if (stop && r->child && !term_sent) {
			/* Like perf: the last snapshot now, then end the
			 * workload; its exit snapshot follows. */
			final_snapshots(r);
			kill(r->child, SIGTERM);
			term_sent = true;
			kill_at = now + KILL_GRACE_NS;
		}
		if (kill_at && now >= kill_at) {
			kill(r->child, SIGKILL);
			kill_at = 0;
		}
		if (deadline && !stop)
			timeout = MIN((uint64_t)timeout,
				      (deadline - now) / 1000000 + 1);

		xgrow(&pfd, &pfd_cap, max, sizeof(*pfd));
		pfd[n++] = (struct pollfd){ .fd = sfd, .events = POLLIN };
		pfd[n++] = (struct pollfd){ .fd = tfd, .events = POLLIN };
		for (size_t i = 0; i < r->nt; i++)
			if (r->t[i].pidfd >= 0 && r->t[i].alive)
				pfd[n++] = (struct pollfd){
					.fd = r->t[i].pidfd, .events = POLLIN
				};
		if (r->pc)
			n += perf_capture_pollfds(r->pc, pfd + n, max - n);
		if (poll(pfd, n, timeout) < 0 && errno != EINTR)
			break;

		if (pfd[0].revents & POLLIN) {
			struct signalfd_siginfo si;

			while (read(sfd, &si, sizeof(si)) == sizeof(si))
				if (si.ssi_signo != SIGCHLD)
					stop = true;
		}
		if (tfd >= 0 && (pfd[1].revents & POLLIN)) {
			uint64_t ticks;

			if (read(tfd, &ticks, sizeof(ticks)) > 0)
				for (size_t i = 0; i < r->nt; i++)
					if (r->t[i].alive)
						snapshot(r, &r->t[i],
							 live_tid(r->t[i].pid),
							 0);
		}
		for (size_t i = 0; i < r->nt; i++) {
			struct rec_target *t = &r->t[i];
			struct pollfd *p = NULL;

			for (size_t k = 2; k < n && !p; k++)
				if (t->pidfd >= 0 && pfd[k].fd == t->pidfd)
					p = &pfd[k];
			if (p && (p->revents & (POLLIN | POLLHUP))) {
				t->alive = false;
				close(t->pidfd);
				t->pidfd = -1;
			}
		}
		drain(r, false);
		for (size_t i = 0; !r->pc && i < r->nt; i++)
			poll_maps(r, &r->t[i]);
	}

	drain(r, true);
	if (!r->werr && !r->child)
		final_snapshots(r);
	drain(r, true);
	unreported_lost(r);
	/* the batched samples now, so that the summary counts the file */
	wfail(r, md_writer_flush(r->w));
	if (r->werr && r->tr && !got_exit)
		stop_launched(r, &status);
	if (r->lost && !r->werr) {
		char *msg = xasprintf("%llu perf records lost",
				      (unsigned long long)r->lost);

		note(r, msg);
		fprintf(stderr, "memsz: %s\n", msg);
		free(msg);
	}
	md_writer_stats(r->w, &st);
	if (r->werr) {
		memsz_error("cannot write '%s': %s; recording stopped%s",
			    r->path, memsz_strerror(r->werr),
			    launch ? " and the command ended" : "");
		ret = 1;
	} else {
		ret = launch && got_exit ? exit_code(status) : 0;
	}
	if (r->nsattr) {
		char unwritten[48] = "";

		if (st.samples_lost)
			snprintf(unwritten, sizeof(unwritten),
				 ", %llu not written",
				 (unsigned long long)st.samples_lost);
		fprintf(stderr,
			"[ memsz record: wrote %llu events, %llu samples "
			"(%llu lost%s), %llu snapshots, %.3f MiB to '%s' ]\n",
			(unsigned long long)r->nevents,
			(unsigned long long)st.samples,
			(unsigned long long)r->lost, unwritten,
			(unsigned long long)r->nsnaps,
			md_writer_offset(r->w) / 1048576.0, r->path);
	} else {
		fprintf(stderr,
			"[ memsz record: wrote %llu events, %llu snapshots, "
			"%.3f MiB to '%s' ]\n",
			(unsigned long long)r->nevents,
			(unsigned long long)r->nsnaps,
			md_writer_offset(r->w) / 1048576.0, r->path);
	}
	goto out_targets;

out_child:
	kill(r->child, SIGKILL);
	while (waitpid(r->child, &status, __WALL) < 0 && errno == EINTR)
		;
out_targets:
	tracer_free(r->tr);
	perf_capture_free(r->pc);
	for (size_t i = 0; i < r->nt; i++) {
		if (r->t[i].pidfd >= 0)
			close(r->t[i].pidfd);
		procmaps_free(&r->t[i].last);
	}
	free(r->t);
	free(r->syn);
	free(pfd);
out_writer:
	snapper_free(r->s);
	err = md_writer_close(r->w);
	if (err < 0 && ret == 0) {
		memsz_error("cannot write '%s': %s", r->path,
			    memsz_strerror(err));
		ret = 1;
	}
out_sig:
	if (tfd >= 0)
		close(tfd);
	if (sfd >= 0)
		close(sfd);
	sigprocmask(SIG_SETMASK, &oldmask, NULL);
out_pids:
	free(pids);
	free(events);
	free(r->sattr);
	return ret;

out_usage:
	free(events);
	free(r->sattr);
	return EXIT_USAGE;
}
