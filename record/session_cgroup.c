/* session_cgroup.c — the memory cgroups' own counters in a recording (see
 * session_int.h and memcg.h): after each snapshot, a CGROUP record of the
 * process's memory cgroup and, with -G, one of the -G cgroup, so that
 * the report has the kernel's charge of the same moment as the pages. */
#include "config.h"

#include "record/session_int.h"

#include "record/memcg.h"
#include "record/targets_scan.h"
#include "util/util.h"

#include <errno.h>
#include <stdlib.h>

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

	if (write_dir(r, dir, 0, MD_CG_F_TARGET) != -ENOENT ||
	    r->sc.memcg_told)
		return;
	r->sc.memcg_told = true;
	msg = xasprintf("cgroup '%s' has no memory controller: its charge "
			"is not recorded, only its processes' memory cgroups",
			dir);
	rec_note(r, MD_NOTE_NO_MEMCG, msg);
	rec_say(r, true, msg);
	free(msg);
}

void rec_write_cgroups(struct session *r, struct rec_target *t)
{
	struct memcg_mounts *mm;
	char *dir = NULL;

	if (r->werr)
		return;
	mm = xmalloc(sizeof(*mm));
	if (memcg_mounts_read(mm) == 0 &&
	    memcg_dir_of_pid(t->pid, mm, &dir) == 0)
		write_dir(r, dir, (uint32_t)t->pid, 0);
	free(dir);
	free(mm);
	if (r->sc.scan && target_scan_is_cgroup(r->sc.scan) && !r->werr)
		write_target(r);
}
