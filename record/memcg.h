/* SPDX-License-Identifier: GPL-2.0-or-later */
/* memcg.h — a memory cgroup's own accounting, read from cgroupfs: which
 * memory cgroup a process is in, where the hierarchies are mounted, and
 * the counters the kernel keeps for a cgroup (v2 memory.current and
 * memory.stat; v1 memory.usage_in_bytes, memory.kmem.usage_in_bytes and
 * memory.stat).
 *
 * Both hierarchies can be mounted at once (the memory controller on v1, a
 * v2 hierarchy without it beside: this is what many hosts still run). A
 * cgroup is taken from v1's memory hierarchy where one is mounted (the
 * controller binds to one hierarchy only, so v2 then has none), else
 * from v2, where the memory controller is on (memory.current).
 *
 * MEMSZ_CGROUP2_ROOT, when set in the environment, names a directory
 * taken as the cgroup v2 mount: a copied tree of cgroup files
 * (cgroup.procs, memory.current, memory.stat) stands for a v2 hierarchy,
 * which lets tests read v2 files on a machine whose memory controller is
 * on v1. Parsers take a buffer, never a path or a pid.
 */
#ifndef MEMSZ_RECORD_MEMCG_H
#define MEMSZ_RECORD_MEMCG_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "data/datafile.h"

/* Where the hierarchies are mounted: "" where none is. */
struct memcg_mounts {
	char v1[PATH_MAX]; /* the v1 hierarchy with the memory controller */
	char v2[PATH_MAX]; /* the cgroup2 mount (/sys/fs/cgroup preferred) */
	bool v2_given;	   /* v2 is MEMSZ_CGROUP2_ROOT (looked at first) */
};

/* A memory cgroup's counters, read at one moment. */
struct memcg {
	char *dir;	  /* its directory (owned) */
	uint32_t version; /* 1 or 2 */
	uint32_t flags;	  /* MD_CG_F_USAGE, MD_CG_F_KMEM */
	uint64_t ino;	  /* the directory's inode */
	uint64_t usage, kmem;
	struct md_cgroup_stat *stats; /* memory.stat, keys owned */
	size_t nstats, cap;
};

/* The mounts from a /proc/self/mountinfo text buf[0..len) into *mm:
 * v1, the first "cgroup" mount whose super options hold "memory"; v2,
 * the first "cgroup2" mount, /sys/fs/cgroup preferred. Returns 0, or
 * -ENODEV when neither is there. */
int memcg_parse_mounts(const char *buf, size_t len, struct memcg_mounts *mm);
/* True if a /proc/PID/cgroup text buf[0..len) has one line, v2's "0::":
 * no v1 hierarchy exists on the machine (every one, mounted once, has a
 * line in every process's file), so none is mounted. */
bool memcg_v2_only(const char *buf, size_t len);
/* What memcg_parse_mounts() would find in /proc/self/mountinfo, told
 * without it where that is sure: /proc/self/cgroup v2-only
 * (memcg_v2_only) and /sys/fs/cgroup a cgroup2 mount point (its own
 * statfs type, a device other than /sys/fs's, not a symlink) give v1 ""
 * and v2 "/sys/fs/cgroup", the mount memcg_parse_mounts() prefers.
 * Returns 0, or -ENOENT when mountinfo must be read. */
int memcg_mounts_v2_fast(struct memcg_mounts *mm);
/* The mounts of a hybrid machine without the mount table (kept to a few
 * KiB the kernel formats for each snapshot's process): where
 * /sys/fs/cgroup is no cgroup file system and /sys/fs/cgroup/memory a
 * directory (not a symlink) of a v1 hierarchy with the memory controller
 * (memory.usage_in_bytes), v1 is it, and v2 /sys/fs/cgroup/unified where
 * that is a cgroup2 directory, else "" (with v1's memory controller
 * there, v2 has none). The memory hierarchy is one whatever its mounts:
 * this one is preferred as memcg_parse_mounts() prefers /sys/fs/cgroup
 * for v2. Returns 0, or -ENOENT when mountinfo must be read. */
int memcg_mounts_v1_fast(struct memcg_mounts *mm);
/* The mounts of this machine (memcg_mounts_v2_fast, memcg_mounts_v1_fast,
 * else /proc/self/mountinfo), v2 replaced by MEMSZ_CGROUP2_ROOT when it
 * is set. Returns 0, -ENODEV or -errno. */
int memcg_mounts_read(struct memcg_mounts *mm);
/* From a /proc/PID/cgroup text buf[0..len): the path of the v1 line whose
 * controllers name "memory" into v1, that of the v2 line ("0::") into v2
 * (size bytes each; "" where there is no such line). Returns 0, or
 * -EINVAL when a line is malformed or a path does not fit. */
int memcg_parse_proc_cgroup(const char *buf, size_t len, char *v1, char *v2,
			    size_t size);
/* The directory of pid's memory cgroup under the mounts mm, into a new
 * string *dir (caller frees): v2 where it has memory.current, else v1
 * where it has memory.usage_in_bytes. Where v1 has the memory controller
 * (v2 cannot then), v1's directory, not looked at: every directory of
 * that hierarchy is a memory cgroup; the caller's stat(2) or open tells
 * one gone meanwhile. Returns 0, -ENOENT when pid has no memory cgroup
 * memsz can read, or -errno (-ESRCH when the process is gone). */
int memcg_dir_of_pid(int pid, const struct memcg_mounts *mm, char **dir);

/* The directory of the memory cgroup whose inode is ino (as
 * /proc/kpagecgroup gives it), into a new string *dir (caller frees): a
 * walk of the hierarchy with the memory controller (v1's where it is
 * mounted, else v2's). Returns 0 or -ENOENT. */
int memcg_find_ino(const struct memcg_mounts *mm, uint64_t ino, char **dir);

/* memcg_find_ino for the n inodes inos in one walk, that stops when all
 * are found: dirs[i] gets a new string (caller frees) or NULL. near (or
 * NULL): a cgroup directory under the walked root (the process's own)
 * whose ancestors and their subdirectories are looked at first. Returns
 * how many of the n were found. */
size_t memcg_find_inos(const struct memcg_mounts *mm, const char *near,
		       const uint64_t *inos, size_t n, char **dirs);
/* Parse a memory.stat text buf[0..len) ("key value" a line) into m's
 * stats, after those it holds. Returns 0, or -EINVAL at a malformed line
 * (what came before it is kept) or past MD_CGROUP_MAX_STATS counters. */
int memcg_stat_parse(const char *buf, size_t len, struct memcg *m);
/* Read the counters of the cgroup directory dir into *m (released first
 * with memcg_release()): v2 when dir has memory.current, v1 when it has
 * memory.usage_in_bytes. Returns 0, -ENOENT when dir has neither (no
 * memory controller there), or -errno. */
int memcg_read(const char *dir, struct memcg *m);
/* memcg_read() of the directory dir open on dfd (O_PATH is enough), of
 * inode ino, its version's files (1 or 2) looked for first (any other
 * version: v2's, then v1's); dfd stays open. Same returns. */
int memcg_read_at(int dfd, const char *dir, uint64_t ino, uint32_t version,
		  struct memcg *m);
/* The version of the hierarchy of the cgroup directory dir under the
 * mounts mm: 1 under v1's memory mount, else 2. */
uint32_t memcg_dir_version(const struct memcg_mounts *mm, const char *dir);
/* A CGROUP record of m for pid at time, into *out (borrowing m's
 * strings: valid while m is). */
void memcg_record(const struct memcg *m, uint32_t pid, uint64_t time,
		  struct md_cgroup *out);
/* Free what m holds and zero it. NULL is fine. */
void memcg_release(struct memcg *m);

#endif
