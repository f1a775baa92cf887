// SPDX-License-Identifier: GPL-2.0-or-later
/* session_targets.c — the targets of a session: found (launched,
 * attached, forked, or by a -a / -G scan), followed, and described by
 * their COMM, CMDLINE, JITMAP and mapping records (synthesized at attach,
 * or polled from /proc/PID/maps without perf).
 */
#include "config.h"

#include "record/session_int.h"

#include "elf/elfimg.h"
#include "record/jitmap.h"
#include "record/procmaps.h"
#include "record/snapshot.h"
#include "record/target.h"
#include "record/targets_scan.h"
#include "util/strbuf.h"
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

struct rec_target *rec_target_find(struct session *r, int pid)
{
	struct hashmap_probe p;
	uint32_t i;

	for (i = hashmap_first(&r->tg.index, hashmap_hash_u64((uint32_t)pid),
			       &p);
	     i != HASHMAP_NONE; i = hashmap_next(&r->tg.index, &p))
		if (r->tg.t[i]->pid == pid)
			return r->tg.t[i];
	return NULL;
}

struct rec_target *rec_target_add(struct session *r, int pid, bool traced)
{
	struct rec_target *t = rec_target_find(r, pid);

	if (t) {
		t->alive = true;
		t->dead_ns = 0;
		return t;
	}
	xgrow(&r->tg.t, &r->tg.cap, r->tg.n + 1, sizeof(*r->tg.t));
	t = xcalloc(1, sizeof(*t));
	hashmap_add(&r->tg.index, hashmap_hash_u64((uint32_t)pid),
		    (uint32_t)r->tg.n);
	r->tg.t[r->tg.n++] = t;
	t->pid = pid;
	t->alive = true;
	t->traced = traced;
	t->pidfd = -1;
	if (target_comm(pid, t->comm, sizeof(t->comm)) < 0)
		snprintf(t->comm, sizeof(t->comm), "gone");
	return t;
}

static void target_free(struct rec_target *t)
{
	if (t->pidfd >= 0)
		close(t->pidfd);
	procmaps_free(&t->last);
	free(t->cmdline);
	free(t);
}

/* Can t, which ended, be freed? Once every perf record older than the
 * moment it was first seen dead has been handed out: a FORK record naming
 * it as the parent of a process to follow, or a sample of it, can no
 * longer come. Without perf events nothing comes later. */
static bool reapable(struct session *r, struct rec_target *t, uint64_t now)
{
	if (t->alive)
		return false;
	if (!t->dead_ns)
		t->dead_ns = now;
	return !r->cap.pc || r->cap.drained_ns > t->dead_ns;
}

void rec_reap_dead(struct session *r)
{
	uint64_t now = mono_ns();
	size_t kept = 0;

	for (size_t i = 0; i < r->tg.n; i++) {
		struct rec_target *t = r->tg.t[i];

		if (!reapable(r, t, now) || r->werr) {
			r->tg.t[kept++] = t;
			continue;
		}
		rec_note_ended(r, t);
		target_free(t);
		r->tg.nreaped++;
	}
	if (kept == r->tg.n)
		return;
	r->tg.n = kept;
	hashmap_clear(&r->tg.index);
	for (size_t i = 0; i < r->tg.n; i++)
		hashmap_add(&r->tg.index,
			    hashmap_hash_u64((uint32_t)r->tg.t[i]->pid),
			    (uint32_t)i);
	/* a burst of processes gone: give back the room they took */
	if (r->tg.cap > 64 && r->tg.n < r->tg.cap / 4) {
		r->tg.cap /= 2;
		r->tg.t = xrealloc(r->tg.t, r->tg.cap * sizeof(*r->tg.t));
	}
}

void rec_targets_free(struct session *r)
{
	for (size_t i = 0; i < r->tg.n; i++)
		target_free(r->tg.t[i]);
	free(r->tg.t);
	hashmap_free(&r->tg.index);
	memset(&r->tg, 0, sizeof(r->tg));
}

/* A synthesized COMM record for t: its command name (/proc/PID/comm) and
 * its owner (the uid owning /proc/PID, with that user's name) as
 * --by users shows them, for every kind of target; without the owner
 * once t is gone (the name it was added with). */
void rec_write_comm(struct session *r, struct rec_target *t)
{
	struct md_task k;
	char comm[16], user[64];

	if (r->werr || !strcmp(t->comm, "gone"))
		return;
	if (target_scan_comm(t->pid, &k, comm, user) < 0)
		k = (struct md_task){.time = mono_ns(),
				     .pid = t->pid,
				     .tid = t->pid,
				     .comm = t->comm};
	if (rec_wfail(r, md_write_task(r->w, MD_REC_COMM, &k)))
		return;
	r->nevents++;
	if (k.has_owner) {
		t->has_owner = true;
		t->owner = k.uid;
	}
}

void rec_write_owner(struct session *r, struct rec_target *t)
{
	uid_t uid;

	if (target_owner(t->pid, &uid) < 0 || (t->has_owner && t->owner == uid))
		return;
	rec_write_comm(r, t);
}

/* A process forked by a target: follow it (traced: the tracer already
 * holds it). Attached recordings watch its exit with a pidfd. The kernel
 * gives a child its parent's command name without a COMM record, so one is
 * written. A process seen before (its perf FORK record may come first) is
 * only marked traced when it is. */
void rec_follow_child(struct session *r, int pid, bool traced)
{
	struct rec_target *t = rec_target_find(r, pid);

	if (t) {
		t->traced |= traced;
		return;
	}
	t = rec_target_add(r, pid, traced);
	if (!r->child)
		t->pidfd = syscall(SYS_pidfd_open, pid, 0);
	if (!r->child && t->pidfd < 0)
		t->alive = false; /* gone already */
	rec_write_comm(r, t);
}

size_t rec_add_descendants(struct session *r, const int *roots, int n)
{
	int *pids = NULL;
	int nd = target_scan_descendants(roots, (size_t)n, &pids);
	size_t added = 0;

	for (int i = 0; i < nd && !r->werr; i++) {
		struct rec_target *t;
		int err;

		/* one a target forked since memsz traced it is followed
		 * already: its fork stop, not yet seen, adds it */
		if (rec_target_find(r, pids[i]) ||
		    target_tracer(pids[i]) == getpid())
			continue;
		err = target_check_pid(pids[i]);
		if (err == -ESRCH)
			continue; /* gone already */
		t = rec_target_add(r, pids[i], false);
		if (err < 0) {
			rec_left_out(r, t, err);
			t->alive = false;
			continue;
		}
		t->pidfd = syscall(SYS_pidfd_open, pids[i], 0);
		rec_write_comm(r, t);
		added++;
	}
	free(pids);
	return added;
}

static bool scan_is_denied(const struct session *r, int pid)
{
	for (size_t i = 0; i < r->sc.ndenied; i++)
		if (r->sc.denied[i] == pid)
			return true;
	return false;
}

/* Remember that pid, found by a scan, could not be read (err), once. */
void rec_scan_denied(struct session *r, int pid, int err)
{
	if (scan_is_denied(r, pid))
		return;
	xgrow(&r->sc.denied, &r->sc.deniedcap, r->sc.ndenied + 1,
	      sizeof(*r->sc.denied));
	r->sc.denied[r->sc.ndenied++] = pid;
	r->sc.denied_err = err;
}

/* Is the file mapped at [start, end) of m's process now another file
 * than m's, by its build-id: another one, none, or no ELF file? False
 * when that cannot be told (map_files not open to memsz). */
static bool other_build_id(const struct md_mmap2 *m, uint64_t start,
			   uint64_t end)
{
	uint8_t id[sizeof(m->build_id)];
	char path[96];
	int fd, len;

	snprintf(path, sizeof(path), "/proc/%u/map_files/%llx-%llx", m->pid,
		 (unsigned long long)start, (unsigned long long)end);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return false;
	len = elf_build_id_read(fd, id, sizeof(id));
	close(fd);
	if (!len || len == -MEMSZ_ENOTELF)
		return true;
	return len > 0 && ((size_t)len != m->build_id_len ||
			   memcmp(id, m->build_id, (size_t)len));
}

/* dev/ino of the file at m's path under its process's root, if that
 * file's build-id is m's: a mapping gone before its record was read
 * (mapped and unmapped between two drains) has nothing else to go by, and
 * a file the target put at the path since (a FIFO, another build) does
 * not carry the build-id, so it lends the record nothing. */
static void path_dev_ino(struct md_mmap2 *m)
{
	char path[4096 + 32];
	uint8_t id[sizeof(m->build_id)];
	struct stat st;
	int fd, n;

	snprintf(path, sizeof(path), "/proc/%u/root%s", m->pid, m->filename);
	fd = open_regular_at(AT_FDCWD, path, &st);
	if (fd < 0)
		return;
	n = elf_build_id_read(fd, id, sizeof(id));
	close(fd);
	if (n <= 0 || (size_t)n != m->build_id_len ||
	    memcmp(id, m->build_id, m->build_id_len))
		return;
	m->dev_major = major(st.st_dev);
	m->dev_minor = minor(st.st_dev);
	m->ino = st.st_ino;
}

/* dev/ino of a mapping whose perf record carried a build-id instead:
 * its /proc/PID/map_files entry, or, once the mapping was split (ld.so
 * maps a library whole, then its segments over it), the mapping that
 * now covers its start at the same file offset, if the file mapped
 * there has the record's build-id (a process that exec'd another program,
 * at the same addresses without randomization, maps another file there);
 * or else the file at its path if it has the record's build-id
 * (path_dev_ino()). Never a file that is merely at its path now: the
 * target may have put another one there (a FIFO, a new version of the
 * library), whose identity the image would take. Left 0 (no image) if
 * none of them. */
static void fill_dev_ino(struct md_mmap2 *m)
{
	struct procmaps maps = {0};
	char path[96];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%u/map_files/%llx-%llx", m->pid,
		 (unsigned long long)m->start,
		 (unsigned long long)(m->start + m->len));
	if (stat(path, &st) == 0) {
		if (other_build_id(m, m->start, m->start + m->len)) {
			path_dev_ino(m);
			return;
		}
		m->dev_major = major(st.st_dev);
		m->dev_minor = minor(st.st_dev);
		m->ino = st.st_ino;
		return;
	}
	if (procmaps_read((int)m->pid, 0, &maps) >= 0) {
		for (size_t i = 0; i < maps.n; i++) {
			const struct procmap *p = &maps.maps[i];

			if (p->start > m->start || p->end <= m->start)
				continue;
			if (p->ino &&
			    p->pgoff + (m->start - p->start) == m->pgoff &&
			    !other_build_id(m, p->start, p->end)) {
				m->dev_major = p->dev_major;
				m->dev_minor = p->dev_minor;
				m->ino = p->ino;
			}
			break;
		}
		procmaps_free(&maps);
	}
	if (!m->ino)
		path_dev_ino(m);
}

void rec_write_mmap2(struct session *r, struct md_mmap2 *m)
{
	uint32_t id;
	int ret;

	if (r->werr)
		return;
	if (m->build_id_len && !m->ino)
		fill_dev_ino(m);
	/* no identity, no image: images are keyed by it, and one of ino 0
	 * would be shared by every file left without one */
	if (m->filename[0] == '/' && m->ino) {
		ret =
		    snapper_image(r->sn.s, m->pid, m->filename, m->start,
				  m->start + m->len, m->dev_major, m->dev_minor,
				  m->ino, m->build_id, m->build_id_len, &id);
		if (ret == -ENOSPC || ret == -EIO || ret == -EFBIG)
			rec_wfail(r, ret);
	}
	if (!rec_wfail(r, md_write_mmap2(r->w, m)))
		r->nevents++;
}

bool rec_synth_dup(struct session *r, const struct md_mmap2 *m)
{
	if (m->time > r->cap.syn_time)
		return false;
	for (size_t i = 0; i < r->cap.nsyn; i++) {
		struct synth_key *k = &r->cap.syn[i];

		if (k->pid == m->pid && k->start == m->start &&
		    k->len == m->len && k->pgoff == m->pgoff &&
		    k->ino == m->ino)
			return true;
	}
	return false;
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

/* A thread of pid whose maps can be read (the leader may be a zombie):
 * the leader when it lives (the first thread /proc/PID/task lists, so
 * the directory is read only when it does not). */
int rec_live_tid(int pid)
{
	char lst = target_state(pid, pid);
	int *tids = NULL, n, tid = pid;

	if (lst && lst != 'Z' && lst != 'X')
		return pid;
	n = target_threads(pid, &tids);
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

/* Synthesize MMAP2 records for the mappings pid has now (attach, when no
 * start snapshot of t stands for them), keeping their keys so that perf
 * events seen meanwhile are not written twice. */
void rec_synthesize(struct session *r, struct rec_target *t)
{
	struct procmaps pm = {0};
	int tid = rec_live_tid(t->pid);
	uint64_t now;

	if (procmaps_read(t->pid, tid == t->pid ? 0 : tid, &pm) < 0)
		goto out;
	now = mono_ns();
	r->cap.syn_time = now;
	for (size_t i = 0; i < pm.n; i++) {
		struct md_mmap2 m;
		struct synth_key *k;

		procmap_to_mmap2(t->pid, &pm.maps[i], now, &m);
		m.tid = tid;
		rec_write_mmap2(r, &m);
		xgrow(&r->cap.syn, &r->cap.syncap, r->cap.nsyn + 1,
		      sizeof(*r->cap.syn));
		k = &r->cap.syn[r->cap.nsyn++];
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
 * maps of t since last time. Both lists are sorted by address. With
 * snap, hand what was read to the snapshot of read_pid about to be taken
 * (when it is t's pid), so that it does not read the maps again; when no
 * record of t's mappings was written yet, that snapshot records them all
 * and stands for their MMAP2 records (MD_SNAP_F_MAPS): none is written.
 * Returns true then. */
static bool poll_maps(struct session *r, struct rec_target *t, bool snap,
		      int read_pid)
{
	struct procmaps now = {0};
	uint64_t time;
	size_t i = 0, j = 0;
	bool by_snap = snap && !t->last.n;

	if (r->cap.pc || r->sc.scan || !t->alive || r->werr)
		return false;
	if (procmaps_read(t->pid, 0, &now) < 0) {
		procmaps_free(&now);
		return false;
	}
	if (snap && read_pid == t->pid)
		snapper_give_maps(r->sn.s, t->pid, &now);
	time = mono_ns();
	while (!by_snap && (i < t->last.n || j < now.n)) {
		const struct procmap *a =
		    i < t->last.n ? &t->last.maps[i] : NULL;
		const struct procmap *b = j < now.n ? &now.maps[j] : NULL;
		struct md_mmap2 m;

		if (a && b && procmap_eq(a, b)) {
			i++;
			j++;
		} else if (a && (!b || a->start <= b->start)) {
			procmap_to_mmap2(t->pid, a, time, &m);
			if (!rec_wfail(r, md_write_munmap(r->w, &m)))
				r->nevents++;
			i++;
		} else {
			procmap_to_mmap2(t->pid, b, time, &m);
			rec_write_mmap2(r, &m);
			j++;
		}
	}
	procmaps_free(&t->last);
	t->last = now;
	return by_snap;
}

void rec_poll_maps(struct session *r, struct rec_target *t)
{
	poll_maps(r, t, false, 0);
}

bool rec_poll_maps_snap(struct session *r, struct rec_target *t, int read_pid)
{
	return poll_maps(r, t, true, read_pid);
}

/* A CMDLINE record for t when its command line changed since the last. */
void rec_write_cmdline(struct session *r, struct rec_target *t)
{
	struct md_task k = {.pid = t->pid, .tid = t->pid};
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
	if (!rec_wfail(r, md_write_task(r->w, MD_REC_CMDLINE, &k)))
		r->nevents++;
}

/* Say (and note) that t is left out of the recording, and why. */
void rec_left_out(struct session *r, struct rec_target *t, int err)
{
	char *msg = xasprintf("pid %d (%s) left out: cannot read its memory "
			      "(%s)",
			      t->pid, t->comm, memsz_strerror(err));

	t->unreadable = true;
	t->told = true;
	rec_say(r, true, msg);
	rec_note(r, MD_NOTE_TARGET_UNREADABLE, msg);
	free(msg);
}

/* jm's symbols as JITMAP records of t at time now. */
static void rec_write_jitmap(struct session *r, struct rec_target *t,
			     const struct jitmap *jm, uint64_t now)
{
	for (size_t i = 0; i < jm->n && !r->werr; i += MD_JITMAP_MAX_SYMS) {
		struct md_jitmap rec = {
		    .time = now,
		    .pid = (uint32_t)t->pid,
		    .nsyms = (uint32_t)MIN(jm->n - i, MD_JITMAP_MAX_SYMS),
		    .syms = jm->syms + i,
		};

		if (!rec_wfail(r, md_write_jitmap(r->w, &rec)))
			r->nevents++;
	}
}

/* What of a target's perf map was said (rec_target.jit_told), once. */
enum {
	JIT_TOLD_REFUSED = 1, /* not read at all */
	JIT_TOLD_CUT = 2,     /* read up to 256 MiB */
	JIT_TOLD_BAD = 4,     /* malformed lines skipped */
};

/* Say (a warning) and note, once for t, what of its perf map jm (just
 * read) is not in the recording: its symbols are left unnamed else with
 * nothing to tell why. */
static void jit_tell(struct session *r, struct rec_target *t,
		     const struct jitmap *jm)
{
	char *msg = NULL;

	if (jm->refused && !(t->jit_told & JIT_TOLD_REFUSED)) {
		t->jit_told |= JIT_TOLD_REFUSED;
		msg = xasprintf("pid %d (%s): its perf map '%s' is not read: "
				"%s",
				t->pid, t->comm, jm->path, jm->refused);
	} else if (jm->cut && !(t->jit_told & JIT_TOLD_CUT)) {
		t->jit_told |= JIT_TOLD_CUT;
		msg = xasprintf("pid %d (%s): its perf map '%s' is read up to "
				"256 MiB: the symbols past that are not "
				"recorded",
				t->pid, t->comm, jm->path);
	} else if (jm->bad && !(t->jit_told & JIT_TOLD_BAD)) {
		t->jit_told |= JIT_TOLD_BAD;
		msg = xasprintf("pid %d (%s): its perf map '%s' has lines that "
				"are not START SIZE NAME, skipped (%" PRIu64
				" in the first read that met any)",
				t->pid, t->comm, jm->path, jm->bad);
	}
	if (!msg)
		return;
	rec_say(r, true, msg);
	rec_note(r, MD_NOTE_OTHER, msg);
	free(msg);
}

/* The symbols t's JIT compilers added to /tmp/perf-PID.map since the
 * last read, as JITMAP records (the file may go with the process, so it is
 * read at every snapshot and at exit): all of them, a read at a time. */
void rec_write_jit(struct session *r, struct rec_target *t)
{
	struct jitmap jm = {0};
	uint64_t now = mono_ns();
	bool more = true;

	while (more && !r->werr) {
		if (jitmap_read_pid(t->pid, &t->jit_off, &jm, &more) > 0)
			rec_write_jitmap(r, t, &jm, now);
		jit_tell(r, t, &jm);
		jitmap_clear(&jm);
		jm.bad = 0;
	}
	jitmap_free(&jm);
}

bool rec_any_alive(struct session *r)
{
	for (size_t i = 0; i < r->tg.n; i++) {
		struct rec_target *t = r->tg.t[i];

		if (t->alive && !t->traced && t->pidfd < 0 &&
		    target_check_pid(t->pid) == -ESRCH)
			t->alive = false;
		if (t->alive)
			return true;
	}
	return false;
}

/* Follow pid, found by the scan, if it is new (or its pid was reused):
 * name it with its owner and take its first snapshot. */
static void scan_add(struct session *r, int pid)
{
	struct rec_target *t = rec_target_find(r, pid);
	char comm[16], user[64];
	uint64_t before = r->sn.nsnaps;
	struct md_task k;
	int err;

	if (r->werr || (t && t->alive) || scan_is_denied(r, pid))
		return;
	err = target_check_pid(pid);
	if (err == -EACCES || err == -EPERM)
		rec_scan_denied(r, pid, err);
	if (err < 0 || target_scan_comm(pid, &k, comm, user) < 0)
		return; /* unreadable, or gone already */
	t = rec_target_add(r, pid, false);
	procmaps_free(&t->last);
	/* no pidfd (one per process of -a would run out of descriptors):
	 * its start time tells when the pid holds another process */
	if (target_start_time(pid, &t->start_ticks) < 0)
		t->start_ticks = 0;
	if (!rec_wfail(r, md_write_task(r->w, MD_REC_COMM, &k)))
		r->nevents++;
	t->has_owner = true;
	t->owner = k.uid;
	trigger_fire(r, TRIGGER_START, t, 0, 0);
	if (r->sn.nsnaps == before && !r->werr && !scan_is_denied(r, pid)) {
		r->sc.scan_gone++;
		t->alive = false;
	}
}

/* One-shot stopped by a signal before pids[0..n) were reached: count
 * those it left out, the processes that could have been recorded; one
 * that cannot be read is named with the others denied, one gone is
 * neither (as scan_add() would have found them). */
static void scan_cut(struct session *r, const int *pids, int n)
{
	for (int i = 0; i < n; i++) {
		int err = target_check_pid(pids[i]);

		if (err == -EACCES || err == -EPERM)
			rec_scan_denied(r, pids[i], err);
		else if (!err)
			r->loop.cut++;
	}
}

/* Scan and follow what is new. A failed scan (the cgroup was removed) is
 * noted once; the processes already found are still followed. */
void rec_scan_targets(struct session *r)
{
	struct target_scan_stats st;
	int *pids = NULL;
	int n = target_scan_list(r->sc.scan, &pids, &st);

	if (n < 0) {
		if (!r->sc.scan_err) {
			char *msg = xasprintf("cannot list the processes of "
					      "'%s' any more: %s",
					      target_scan_dir(r->sc.scan),
					      memsz_strerror(n));

			rec_say(r, true, msg);
			rec_note(r, MD_NOTE_SCAN_FAILED, msg);
			free(msg);
		}
		r->sc.scan_err = n;
		return;
	}
	r->sc.scan_err = 0;
	if (!r->sc.kthreads)
		r->sc.kthreads = st.kthreads;
	for (int i = 0; i < n; i++) {
		if (r->sn.nsnaps && rec_one_shot_cut(r)) {
			scan_cut(r, pids + i, n - i);
			break;
		}
		scan_add(r, pids[i]);
	}
	free(pids);
	rec_machine_round(r);
}

int session_scan(struct session *r, struct target_scan *scan)
{
	int *pids = NULL;
	int n;

	r->sc.scan = scan;
	if (r->cap.nsattr)
		return rec_fail(r, -MEMSZ_EUSAGE,
				"sampling events cannot be "
				"recorded with -a or -G");
	n = target_scan_list(scan, &pids, NULL);
	free(pids);
	if (n < 0)
		return rec_fail(r, n, "cannot list the processes of '%s': %s",
				target_scan_is_cgroup(scan)
				    ? target_scan_dir(scan)
				    : "/proc",
				memsz_strerror(n));
	rec_scan_targets(r);
	return 0;
}

/* NOTE (and say) what the scan left out: processes that could not be read,
 * processes gone before their first snapshot, kernel threads. */
void rec_scan_note(struct session *r)
{
	struct strbuf list = STRBUF_INIT;
	char *msg;

	if (!r->sc.scan || r->werr)
		goto out;
	for (size_t i = 0; i < r->sc.ndenied && i < 10; i++)
		strbuf_addf(&list, "%s%d", i ? ", " : "", r->sc.denied[i]);
	if (r->sc.ndenied) {
		msg = xasprintf("%zu process%s could not be read (%s) and %s "
				"left out: pid %s%s",
				r->sc.ndenied, r->sc.ndenied == 1 ? "" : "es",
				memsz_strerror(r->sc.denied_err),
				r->sc.ndenied == 1 ? "is" : "are",
				strbuf_str(&list),
				r->sc.ndenied > 10 ? ", ..." : "");
		rec_say(r, true, msg);
		rec_note(r, MD_NOTE_SCAN_DENIED, msg);
		free(msg);
	}
	if (r->sc.scan_gone) {
		msg = xasprintf("%llu process%s exited before its first "
				"snapshot",
				(unsigned long long)r->sc.scan_gone,
				r->sc.scan_gone == 1 ? "" : "es");
		rec_note_v(r, MD_NOTE_TARGET_EXITED, msg);
		free(msg);
	}
	if (r->sc.kthreads && !target_scan_is_cgroup(r->sc.scan)) {
		msg = xasprintf("%zu kernel thread%s skipped (no user memory)",
				r->sc.kthreads, r->sc.kthreads == 1 ? "" : "s");
		rec_note_v(r, MD_NOTE_KTHREADS, msg);
		free(msg);
	}
out:
	strbuf_free(&list);
}
