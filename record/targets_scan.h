/* SPDX-License-Identifier: GPL-2.0-or-later */
/* targets_scan.h — targets chosen by a scan rather than by pid: every
 * process of the machine (`record -a`) or every process of a cgroup v2
 * subtree (`record -G CGROUP`).
 *
 * A scan lists the thread-group ids it finds now; the recording calls it
 * again to find processes that appeared since (a process forked inside a
 * cgroup is in that cgroup's cgroup.procs from its fork on, and one moved
 * into it appears there once moved). Kernel threads (no user memory),
 * zombies and memsz itself are never listed. Parsers take a buffer.
 */
#ifndef MEMSZ_RECORD_TARGETS_SCAN_H
#define MEMSZ_RECORD_TARGETS_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "data/datafile.h"

struct target_scan;

/* What one scan found besides the pids it returned. */
struct target_scan_stats {
	size_t kthreads; /* kernel threads skipped */
	size_t zombies;	 /* exited processes not yet reaped, skipped */
};

/* A scan of every process in /proc. Returns 0 and *out (free with
 * target_scan_free()). */
int target_scan_all(struct target_scan **out);
/* A scan of the cgroup directory named by path: absolute (a directory of
 * a cgroup2 file system or of a v1 hierarchy, or a path as /proc/PID/cgroup
 * shows it) or relative; a path that is not a directory itself is taken
 * under the cgroup2 mount (usually /sys/fs/cgroup), then under the v1
 * memory hierarchy, which comes first where the cgroup2 directory has no
 * memory.current (a hybrid machine; memcg.h: MEMSZ_CGROUP2_ROOT stands
 * for the cgroup2 mount when set). The directory kept is its realpath()
 * (symlinks followed), as the kernel writes paths (no slash at the end,
 * no empty, "." or ".." component).
 * Returns 0 and *out, -ENOENT if there is no such cgroup,
 * -ENOTDIR if path is not a cgroup directory, -ENODEV if no cgroup file
 * system is mounted. */
int target_scan_cgroup(const char *path, struct target_scan **out);
/* The cgroup directory a cgroup scan reads (borrowed), or NULL for -a. */
const char *target_scan_dir(const struct target_scan *sc);
/* True for a cgroup scan (cheap enough to repeat at every loop turn). */
bool target_scan_is_cgroup(const struct target_scan *sc);
/* List the processes the scan covers now into a new sorted array *pids
 * (caller frees), filling *st (may be NULL). Returns the count, or -errno
 * when the cgroup or /proc cannot be read. */
int target_scan_list(struct target_scan *sc, int **pids,
		     struct target_scan_stats *st);
void target_scan_free(struct target_scan *sc);

/* The cgroup2 mount point from a /proc/self/mountinfo text buf[0..len),
 * into out (size bytes): the first cgroup2 mount, /sys/fs/cgroup preferred.
 * Returns 0 or -ENODEV. */
int target_scan_parse_mountinfo(const char *buf, size_t len, char *out,
				size_t size);
/* Parse a cgroup.procs text buf[0..len) (one decimal pid a line), appending
 * to *pids (count *n, capacity *cap; caller frees). Returns 0 or -EINVAL
 * at a malformed line. */
int target_scan_parse_procs(const char *buf, size_t len, int **pids, size_t *n,
			    size_t *cap);
/* True if a /proc/PID/stat text buf[0..len) is of a kernel thread
 * (PF_KTHREAD in its flags); *state gets its state letter (0 if the text
 * is malformed). */
bool target_scan_stat_kthread(const char *buf, size_t len, char *state);

/* The parent of a /proc/PID/stat text buf[0..len) (its ppid field: the
 * thread-group id of the parent) into *ppid. Returns 0, or -EINVAL if the
 * text is malformed. */
int target_scan_stat_ppid(const char *buf, size_t len, int *ppid);

/* A process and its parent, as /proc/PID/stat names them. */
struct target_ppid {
	int pid, ppid;
};

/* The descendants among procs[0..n) of roots[0..nroots): the processes
 * whose chain of parents in procs leads to a root (children,
 * grandchildren, ...), roots left out, into a new sorted array *out
 * (caller frees; NULL when there are none). Returns the count. */
size_t target_scan_descendants_of(const struct target_ppid *procs, size_t n,
				  const int *roots, size_t nroots, int **out);

/* The descendants roots[0..nroots) have now (every /proc/PID/stat read
 * once): user processes only, as target_scan_list() keeps them (not
 * memsz, not kernel threads or zombies), sorted, into *out (caller
 * frees). A process forked meanwhile may be missed: the caller follows
 * forks from then on. Returns the count, or -errno if /proc cannot be
 * read. */
int target_scan_descendants(const int *roots, size_t nroots, int **out);

/* The owner of process pid as `ps` and smem show it: the uid owning
 * /proc/PID (its effective uid). Returns 0 and *uid, or -errno. */
int target_owner(int pid, uid_t *uid);

/* The user name of uid as getpwuid() would give it when nss (the text of
 * /etc/nsswitch.conf) has one passwd line whose first source is plain
 * "files" (no [action] after it): the first valid line of passwd (the
 * text of /etc/passwd) with that uid, its name into user (size bytes,
 * cut to fit). Returns 0, or -ENOENT when that cannot be told from the
 * two texts (another first source, an action, no or several passwd
 * lines, no such uid, a line files would read otherwise: '+' or '-'
 * entries, a malformed line): then the caller asks getpwuid(). */
int target_user_from_files(const char *nss, size_t nsslen, const char *passwd,
			   size_t pwlen, uid_t uid, char *user, size_t size);

/* A COMM record for pid naming it (/proc/PID/comm) with its owner and the
 * owner's user name, into *k; the strings point into comm[16] and
 * user[64]. Every target's COMM records are made so, not only a scan's.
 * Returns 0, or -errno if the process is gone. */
int target_scan_comm(int pid, struct md_task *k, char *comm, char *user);

#endif
