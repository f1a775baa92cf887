/* session_cgroup.c — the memory cgroups' own counters in a recording (see
 * session_int.h and memcg.h): after each snapshot, a CGROUP record of the
 * process's memory cgroup and, with -G, one of the -G cgroup, so that
 * the report has the kernel's charge of the same moment as the pages. */
#include "config.h"

#include "record/session_int.h"

#include "record/memcg.h"
#include "record/snapshot.h"
#include "record/targets_scan.h"
#include "util/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Read dir's counters and write them as a CGROUP record for pid with
 * flags added. Returns 0, or -ENOENT (no memory controller in dir) or
 * another -errno when nothing was written. */
static int write_dir(struct session *r, const char *dir, uint32_t pid,
		     uint32_t flags)
{
	struct memcg m = { 0 };
	struct md_cgroup g;
	int ret = memcg_read(dir, &m);

	if (ret == 0) {
		memcg_record(&m, pid, mono_ns(), &g);
		g.flags |= flags;
		rec_wfail(r, md_write_cgroup(r->w, &g));
	}
	memcg_release(&m);
	return ret;
}

/* The -G cgroup's counters; a cgroup without memory controller is said
 * once (its processes' own memory cgroups are still recorded). */
static void write_target(struct session *r)
{
	const char *dir = target_scan_dir(r->sc.scan);
	char *msg;

	if (write_dir(r, dir, 0, MD_CG_F_TARGET) != -ENOENT || r->cg.told)
		return;
	r->cg.told = true;
	msg = xasprintf("cgroup '%s' has no memory controller: its charge "
			"is not recorded, only its processes' memory cgroups",
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

/* A CGROUP record (flag payer) for each memory cgroup the last snapshot
 * found pages charged to that has none yet: the report names it. One
 * that cannot be found (removed since) stays a number. */
static void write_payers(struct session *r, const struct memcg_mounts *mm)
{
	const uint64_t *inos;
	size_t n = snapper_payers(r->sn.s, &inos);

	for (size_t i = 0; i < n && !r->werr; i++) {
		char *dir = NULL;

		if (!inos[i] || named(r, inos[i]))
			continue;
		if (memcg_find_ino(mm, inos[i], &dir) == 0)
			write_dir(r, dir, 0, MD_CG_F_PAYER);
		free(dir);
	}
}

void rec_write_cgroups(struct session *r, struct rec_target *t)
{
	struct memcg_mounts *mm;
	char *dir = NULL;

	if (r->werr)
		return;
	mm = xmalloc(sizeof(*mm));
	if (memcg_mounts_read(mm) == 0) {
		if (memcg_dir_of_pid(t->pid, mm, &dir) == 0)
			write_dir(r, dir, (uint32_t)t->pid, 0);
		write_payers(r, mm);
	}
	free(dir);
	free(mm);
	if (r->sc.scan && target_scan_is_cgroup(r->sc.scan) && !r->werr) {
		rec_scan_cache(r, t->pid);
		write_target(r);
	}
}

void rec_cgroups_free(struct session *r)
{
	free(r->cg.named);
	free(r->cg.scanned);
	if (r->cg.kpc_tried && r->cg.kpagecgroup_fd >= 0)
		close(r->cg.kpagecgroup_fd);
	memset(&r->cg, 0, sizeof(r->cg));
}
