// SPDX-License-Identifier: GPL-2.0-or-later
/* session_cache.c — the page cache a -G recording names by file (see
 * session_int.h, pagecache.h): after a process's snapshot, the cached
 * pages of the files it holds open (/proc/PID/fd) and maps, and of the
 * files under --cache-paths (or the file it names), each file at most
 * once per --interval (once in a one-shot recording), as FILE_CACHE
 * records. */
#include "config.h"

#include "record/session_int.h"

#include "record/pagecache.h"
#include "record/procmaps.h"
#include "util/escape.h"
#include "util/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* How often a file is scanned again without --interval. */
#define RESCAN_NS (1000ull * 1000 * 1000)
/* Deepest directory level of --cache-paths walked. */
#define WALK_DEPTH_MAX 32

/* True if file st was scanned since the period began (else it is taken
 * as scanned now). */
static bool scanned_lately(struct session *r, const struct stat *st)
{
	uint64_t now = mono_ns();
	uint64_t period =
	    r->o.interval_ms ? r->o.interval_ms * 1000000ull : RESCAN_NS;
	uint64_t dev = (uint64_t)st->st_dev, ino = st->st_ino;
	struct hashmap_probe p;
	struct rec_scanned *s;
	uint32_t i;

	/* a hash index: a walk of --cache-paths / meets ~10^5-10^6 files */
	for (i = hashmap_first(
		 &r->cg.scanned_ix,
		 hashmap_hash_u64(dev * 0x9e3779b97f4a7c15ull ^ ino), &p);
	     i != HASHMAP_NONE; i = hashmap_next(&r->cg.scanned_ix, &p)) {
		s = &r->cg.scanned[i];
		if (s->dev != dev || s->ino != ino)
			continue;
		if (r->o.one_shot || now - s->time < period)
			return true;
		s->time = now;
		return false;
	}
	xgrow(&r->cg.scanned, &r->cg.scannedcap, r->cg.nscanned + 1,
	      sizeof(*r->cg.scanned));
	r->cg.scanned[r->cg.nscanned] =
	    (struct rec_scanned){.dev = dev, .ino = ino, .time = now};
	hashmap_put(&r->cg.scanned_ix, &p, (uint32_t)r->cg.nscanned++);
	return false;
}

/* Write the cached pages of the open file fd, named path, unless it has
 * none. */
static void write_file(struct session *r, int fd, const char *path)
{
	struct pagecache_file pf = {0};
	struct md_file_cache f;
	uint64_t now = mono_ns(); /* one time for all records of the scan */

	int ret = pagecache_scan(fd, r->cg.kpagecgroup_fd, &pf);

	if (ret == -EPERM && !r->cg.blind_told) {
		char *esc = str_escape(path, NULL);
		char *msg = xasprintf(
		    "the page cache of files memsz neither owns nor may write "
		    "nor has CAP_FOWNER over (such as '%s') is not named by "
		    "file: mincore(2) says every page of them is cached (run "
		    "as root, outside any user namespace)",
		    esc);

		r->cg.blind_told = true;
		rec_say(r, true, msg);
		rec_note(r, MD_NOTE_OTHER, msg);
		free(msg);
		free(esc);
	}
	if (ret < 0 || !pf.nruns) {
		pagecache_release(&pf);
		return;
	}
	for (size_t i = 0; i < pf.nruns && !r->werr; i += MD_CACHE_MAX_RUNS) {
		f = (struct md_file_cache){
		    .time = now,
		    .dev_major = pf.dev_major,
		    .dev_minor = pf.dev_minor,
		    .ino = pf.ino,
		    .size = pf.size,
		    .path = path,
		    .nruns = (uint32_t)MIN(pf.nruns - i, MD_CACHE_MAX_RUNS),
		    .runs = pf.runs + i,
		};
		rec_wfail(r, md_write_file_cache(r->w, &f));
	}
	pagecache_release(&pf);
}

/* Scan the regular file at path (relative to dirfd: a /proc link or a
 * real path; not followed further with nofollow), named name, if not
 * scanned lately. The path is one a target (or a user who may write under
 * --cache-paths) may swap for a FIFO, a device node or a descriptor of
 * one between a look and an open: it is opened O_PATH (which opens
 * nothing), that inode looked at, and only it opened, through
 * /proc/self/fd. */
static void scan_path(struct session *r, int dirfd, const char *path,
		      const char *name, bool nofollow)
{
	struct stat st;
	int pfd, fd;

	pfd = openat(dirfd, path,
		     O_PATH | O_CLOEXEC | (nofollow ? O_NOFOLLOW : 0));
	if (pfd < 0)
		return;
	if (fstat(pfd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    scanned_lately(r, &st)) {
		close(pfd);
		return;
	}
	fd = reopen_path_fd(pfd, O_NOATIME, &st);
	if (fd == -EPERM) /* O_NOATIME: not the file's owner */
		fd = reopen_path_fd(pfd, 0, &st);
	close(pfd);
	if (fd < 0)
		return;
	write_file(r, fd, name);
	close(fd);
}

/* The files pid holds open. */
static void scan_fds(struct session *r, int pid)
{
	char dir[48], link[64 + 256], name[4096];
	struct dirent *de;
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", pid);
	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d)) && !r->werr) {
		ssize_t n;

		if (de->d_name[0] == '.')
			continue;
		snprintf(link, sizeof(link), "%s/%s", dir, de->d_name);
		n = readlink(link, name, sizeof(name) - 1);
		if (n <= 0 || name[0] != '/')
			continue; /* sockets, pipes, anon inodes */
		name[n] = 0;
		scan_path(r, AT_FDCWD, link, name, false);
	}
	closedir(d);
}

/* The files pid maps. */
static void scan_maps(struct session *r, int pid)
{
	struct procmaps maps = {0};
	char link[96];

	if (procmaps_read(pid, 0, &maps) < 0)
		return;
	for (size_t i = 0; i < maps.n && !r->werr; i++) {
		const struct procmap *m = &maps.maps[i];

		if (!m->ino || m->name[0] != '/')
			continue;
		snprintf(link, sizeof(link), "/proc/%d/map_files/%lx-%lx", pid,
			 (unsigned long)m->start, (unsigned long)m->end);
		scan_path(r, AT_FDCWD, link, m->name, false);
	}
	procmaps_free(&maps);
}

/* True if the walks of --cache-paths are to end: a write failed, or a
 * stop signal is pending. The session blocks SIGINT, SIGTERM, SIGHUP and
 * SIGXCPU (r->loop.stopset) and reads them from its signalfd between
 * poll() turns, never during a snapshot: a walk of a large tree
 * (--cache-paths /) would go on for minutes with the signal pending.
 * Taken here instead (sigtimedwait, not waiting), it stops the recording
 * as the loop would (r->loop.stop, SIGXCPU's warning), with a NOTE that
 * the walk was cut short (root, the --cache-paths DIR being walked). */
static bool walk_stopped(struct session *r, const char *root)
{
	static const struct timespec now;
	char *msg;
	int sig;

	if (r->werr || r->cg.walk_cut)
		return true;
	sig = sigtimedwait(&r->loop.stopset, NULL, &now);
	if (sig <= 0)
		return false;
	r->cg.walk_cut = true;
	/* as the loop takes it: SIGXCPU says the CPU time limit */
	rec_take_signal(r, (uint32_t)sig);
	msg = xasprintf("the page cache walk of --cache-paths '%s' was cut "
			"short by a signal (%s): the files under it not "
			"reached yet, and any later walk, are not recorded",
			root, strsignal(sig));
	rec_say(r, true, msg);
	rec_note(r, MD_NOTE_OTHER, msg);
	free(msg);
	return true;
}

/* The regular files under directory dir, open as dfd (taken: closed
 * here), depth levels down already, of the walk of --cache-paths root.
 * Each entry is opened relative to its directory's descriptor, never
 * through a symbolic link: a user who may write under root could
 * otherwise swap a directory already listed for a link (to /, say) and
 * have the walk, as root, go on there. */
static void walk_dir(struct session *r, const char *root, const char *dir,
		     int dfd, int depth)
{
	struct dirent *de;
	DIR *d;

	if (dfd < 0)
		return;
	if (depth > WALK_DEPTH_MAX || walk_stopped(r, root) ||
	    !(d = fdopendir(dfd))) {
		close(dfd);
		return;
	}
	while (!walk_stopped(r, root) && (de = readdir(d))) {
		char *path;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		path = xasprintf("%s/%s", dir, de->d_name);
		if (de->d_type == DT_DIR)
			walk_dir(r, root, path,
				 openat(dirfd(d), de->d_name,
					O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
					    O_CLOEXEC),
				 depth + 1);
		else if (de->d_type == DT_REG || de->d_type == DT_UNKNOWN)
			scan_path(r, dirfd(d), de->d_name, path, true);
		free(path);
	}
	closedir(d);
}

void rec_scan_cache(struct session *r, int pid)
{
	if (r->werr)
		return;
	if (!r->cg.kpc_tried) {
		r->cg.kpc_tried = true;
		r->cg.kpagecgroup_fd =
		    open("/proc/kpagecgroup", O_RDONLY | O_CLOEXEC);
	}
	scan_fds(r, pid);
	scan_maps(r, pid);
	for (size_t i = 0; i < r->o.ncache_paths && !r->werr; i++) {
		const char *p = r->o.cache_paths[i];
		int dfd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		if (dfd < 0 && errno == ENOTDIR) /* a file: itself */
			scan_path(r, AT_FDCWD, p, p, false);
		else
			walk_dir(r, p, p, dfd, 0);
	}
}
