// SPDX-License-Identifier: GPL-2.0-or-later
/* session_cgroup.c — the memory cgroups' own counters in a recording (see
 * session_int.h and memcg.h): after each snapshot, a CGROUP record of the
 * process's memory cgroup and, with -G, one of the -G cgroup, so that
 * the report has the kernel's charge of the same moment as the pages. */
#include "config.h"

#include "record/session_int.h"

#include "record/machine.h"
#include "record/memcg.h"
#include "record/snapshot.h"
#include "record/targets_scan.h"
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* How long a cgroup's counters stand for the cgroup of the next process
 * snapshotted in it, without --interval. */
#define COUNTERS_NS (1000ull * 1000 * 1000)

/* Write the counters m (ret: what reading them returned) as a CGROUP
 * record for pid with flags added; *version (may be NULL) gets the
 * cgroup's version. Returns ret: 0, or -ENOENT (no memory controller
 * there) or another -errno when nothing was written. */
static int write_counters(struct session *r, struct memcg *m, int ret,
			  uint32_t pid, uint32_t flags, uint32_t *version)
{
	struct md_cgroup g;

	if (ret == 0) {
		memcg_record(m, pid, mono_ns(), &g);
		g.flags |= flags;
		if (version)
			*version = m->version;
		rec_wfail(r, md_write_cgroup(r->w, &g));
	}
	memcg_release(m);
	return ret;
}

/* Read dir's counters and write them (write_counters). */
static int write_dir(struct session *r, const char *dir, uint32_t pid,
		     uint32_t flags, uint32_t *version)
{
	struct memcg m = {0};
	int ret = memcg_read(dir, &m);

	return write_counters(r, &m, ret, pid, flags, version);
}

/* Close the cgroup directory held for the counters. */
static void own_drop(struct session *r)
{
	if (r->cg.has_dfd)
		close(r->cg.dfd);
	free(r->cg.dfd_dir);
	r->cg.dfd_dir = NULL;
	r->cg.has_dfd = false;
}

/* Read the counters of the snapshot process's memory cgroup (r->cg.dir,
 * inode r->cg.ino) into *m: through its directory held open while the
 * recording's processes stay in it (opened again for another path or
 * inode: a cgroup removed and made again under its name), its version's
 * files first. Returns what memcg_read_at() returns. */
static int read_own(struct session *r, struct memcg *m)
{
	struct stat st;
	int fd, ret;

	if (!r->cg.has_dfd || r->cg.dfd_ino != r->cg.ino ||
	    strcmp(r->cg.dfd_dir, r->cg.dir)) {
		own_drop(r);
		fd = open(r->cg.dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		if (fstat(fd, &st) < 0) {
			ret = -errno;
			close(fd);
			return ret;
		}
		r->cg.has_dfd = true;
		r->cg.dfd = fd;
		r->cg.dfd_dir = xstrdup(r->cg.dir);
		r->cg.dfd_ino = st.st_ino;
	}
	return memcg_read_at(r->cg.dfd, r->cg.dir, r->cg.dfd_ino,
			     memcg_dir_version(r->cg.mounts, r->cg.dir), m);
}

/* True if dir is the root of the cgroup2 hierarchy and has the memory
 * controller's files but memory.current, which the root has not. */
static bool is_v2_root(const struct session *r, const char *dir)
{
	char *stat;
	bool ret;

	if (!r->cg.mounts || strcmp(dir, r->cg.mounts->v2))
		return false;
	stat = xasprintf("%s/memory.stat", dir);
	ret = access(stat, F_OK) == 0;
	free(stat);
	return ret;
}

/* The -G cgroup's counters; a cgroup without memory controller, or
 * removed while its processes that left it are still recorded, is said
 * once (their own memory cgroups are still recorded). */
static void write_target(struct session *r)
{
	const char *dir = target_scan_dir(r->sc.scan);
	char *msg;

	if (write_dir(r, dir, 0, MD_CG_F_TARGET, NULL) != -ENOENT || r->cg.told)
		return;
	r->cg.told = true;
	if (access(dir, F_OK) < 0 && errno == ENOENT)
		msg = xasprintf("cgroup '%s' was removed: its charge is not "
				"recorded from then on, only its processes' "
				"memory cgroups",
				dir);
	else if (is_v2_root(r, dir))
		msg = xasprintf("cgroup '%s' is the root cgroup, which has no "
				"memory.current: its charge is not recorded, "
				"only its processes' memory cgroups ('record "
				"-a' accounts for the machine's memory)",
				dir);
	else
		msg = xasprintf("cgroup '%s' has no memory controller: its "
				"charge is not recorded, only its processes' "
				"memory cgroups",
				dir);
	rec_note(r, MD_NOTE_NO_MEMCG, msg);
	rec_say(r, true, msg);
	free(msg);
}

/* True if the CGROUP record of payer ino was written (else remember it
 * as written now). */
static bool named(struct session *r, uint64_t ino)
{
	for (size_t i = 0; i < r->cg.nnamed; i++)
		if (r->cg.named[i] == ino)
			return true;
	xgrow(&r->cg.named, &r->cg.namedcap, r->cg.nnamed + 1,
	      sizeof(*r->cg.named));
	r->cg.named[r->cg.nnamed++] = ino;
	return false;
}

/* A CGROUP record (flag payer) naming the cgroup dir of inode ino: the
 * report takes only its path from it (report/cgcharge.c), so its
 * counters are not read (four files, a memory.stat of some thirty lines,
 * per cgroup). The version is that of the hierarchy walked
 * (memcg_find_inos: v1's when there is one). */
static void write_name(struct session *r, const char *dir, uint64_t ino)
{
	struct md_cgroup g = {.time = mono_ns(),
			      .version = r->cg.mounts->v1[0] ? 1 : 2,
			      .flags = MD_CG_F_PAYER,
			      .ino = ino,
			      .path = dir};

	rec_wfail(r, md_write_cgroup(r->w, &g));
}

/* A CGROUP record (flag payer) for each memory cgroup the last snapshot
 * found pages charged to that has none yet: the report names it. They
 * are found in one walk of cgroupfs that stops when all are named. One
 * that cannot be found (removed since) stays a number. */
static void write_payers(struct session *r)
{
	const uint64_t *inos;
	size_t n = snapper_payers(r->sn.s, &inos), m = 0;
	uint64_t *want;
	char **dirs;

	if (!n)
		return;
	want = xmalloc(n * sizeof(*want));
	for (size_t i = 0; i < n; i++)
		if (inos[i] && !named(r, inos[i]))
			want[m++] = inos[i];
	dirs = xmalloc((m ? m : 1) * sizeof(*dirs));
	if (m)
		memcg_find_inos(r->cg.mounts, r->cg.dir, want, m, dirs);
	for (size_t i = 0; i < m; i++) {
		if (dirs[i] && !r->werr)
			write_name(r, dirs[i], want[i]);
		free(dirs[i]);
	}
	free(dirs);
	free(want);
}

void rec_prepare_cgroup(struct session *r, struct rec_target *t)
{
	struct memcg_mounts *mm;
	struct stat st;
	char *dir = NULL;

	free(r->cg.dir);
	r->cg.dir = NULL;
	r->cg.ino = 0;
	if (!r->cg.mounts && !r->cg.mounts_err) {
		mm = xmalloc(sizeof(*mm));
		if (memcg_mounts_read(mm) < 0) {
			free(mm);
			r->cg.mounts_err = true;
		} else {
			r->cg.mounts = mm;
		}
	}
	if (r->cg.mounts && memcg_dir_of_pid(t->pid, r->cg.mounts, &dir) == 0 &&
	    stat(dir, &st) == 0) {
		r->cg.dir = dir;
		r->cg.ino = st.st_ino;
	} else {
		free(dir);
	}
	snapper_set_cgroup(r->sn.s, r->cg.ino);
	snapper_set_anon_charges(
	    r->sn.s, r->sc.scan && target_scan_is_cgroup(r->sc.scan));
}

/* The counters of pid's memory cgroup (rec_prepare_cgroup), or, when they
 * were recorded lately (within --interval or a second; in a one-shot
 * recording, at all), a record naming the cgroup without them. */
static void write_own(struct session *r, uint32_t pid)
{
	uint64_t now = mono_ns(), period = r->o.interval_ms
					       ? r->o.interval_ms * 1000000ull
					       : COUNTERS_NS;
	struct rec_cgseen *e = NULL;
	struct memcg m = {0};
	struct md_cgroup g;

	if (!r->cg.dir)
		return;
	for (size_t i = 0; i < r->cg.nseen && !e; i++)
		if (r->cg.seen[i].ino == r->cg.ino)
			e = &r->cg.seen[i];
	if (e && (r->o.one_shot || now - e->time < period)) {
		g = (struct md_cgroup){.time = now,
				       .pid = pid,
				       .version = e->version,
				       .ino = r->cg.ino,
				       .path = r->cg.dir};
		rec_wfail(r, md_write_cgroup(r->w, &g));
		return;
	}
	if (!e) {
		xgrow(&r->cg.seen, &r->cg.seencap, r->cg.nseen + 1,
		      sizeof(*r->cg.seen));
		e = &r->cg.seen[r->cg.nseen++];
		*e = (struct rec_cgseen){.ino = r->cg.ino};
	}
	if (write_counters(r, &m, read_own(r, &m), pid, 0, &e->version) == 0)
		e->time = now;
}

void rec_write_cgroups(struct session *r, struct rec_target *t)
{
	if (r->werr)
		return;
	write_own(r, (uint32_t)t->pid);
	if (r->cg.mounts)
		write_payers(r);
	if (r->sc.scan && target_scan_is_cgroup(r->sc.scan) && !r->werr) {
		rec_scan_cache(r, t->pid);
		write_target(r);
	}
}

void rec_machine_round(struct session *r)
{
	struct machine m = {0};
	struct md_machine rec;

	if (r->werr || !r->sc.scan || target_scan_is_cgroup(r->sc.scan))
		return;
	if (machine_read(&m, r->o.frame_walk) == 0) {
		rec = (struct md_machine){.time = mono_ns(),
					  .nstats = (uint32_t)m.n,
					  .stats = m.stats};
		rec_wfail(r, md_write_machine(r->w, &rec));
	}
	machine_release(&m);
}

void rec_cgroups_free(struct session *r)
{
	free(r->cg.named);
	free(r->cg.scanned);
	hashmap_free(&r->cg.scanned_ix);
	free(r->cg.mounts);
	free(r->cg.dir);
	free(r->cg.seen);
	own_drop(r);
	if (r->cg.kpc_tried && r->cg.kpagecgroup_fd >= 0)
		close(r->cg.kpagecgroup_fd);
	memset(&r->cg, 0, sizeof(r->cg));
}
