// SPDX-License-Identifier: GPL-2.0-or-later
/* memcg.c — a memory cgroup's own accounting (see memcg.h). */
#include "config.h"

#include "record/memcg.h"
#include "util/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif
#ifndef CGROUP_SUPER_MAGIC
#define CGROUP_SUPER_MAGIC 0x27e0eb
#endif

/* Largest cgroupfs or /proc file read whole (memory.stat is ~2 KiB,
 * mountinfo a few KiB; a container host's can be larger). */
#define SMALL_FILE_MAX (4u << 20)

/* True if the comma-separated list [s, e) holds word. */
static bool list_has(const char *s, const char *e, const char *word)
{
	size_t wl = strlen(word);

	while (s < e) {
		const char *c = memchr(s, ',', (size_t)(e - s));
		const char *te = c ? c : e;

		if ((size_t)(te - s) == wl && !memcmp(s, word, wl))
			return true;
		s = te + 1;
	}
	return false;
}

/* Copy the blank-separated field [s, e) into out (size bytes). */
static bool field_copy(const char *s, const char *e, char *out, size_t size)
{
	if ((size_t)(e - s) >= size)
		return false;
	memcpy(out, s, (size_t)(e - s));
	out[e - s] = 0;
	return true;
}

/* The n-th blank-separated field of [s, e) as [*fs, *fe). */
static bool field_nth(const char *s, const char *e, int n, const char **fs,
		      const char **fe)
{
	for (int i = 0; s < e; i++) {
		const char *b;

		while (s < e && *s == ' ')
			s++;
		b = s;
		while (s < e && *s != ' ')
			s++;
		if (b == s)
			break;
		if (i == n) {
			*fs = b;
			*fe = s;
			return true;
		}
	}
	return false;
}

int memcg_parse_mounts(const char *buf, size_t len, struct memcg_mounts *mm)
{
	const char *p = buf, *end = buf + len, *ls, *le;

	mm->v1[0] = mm->v2[0] = 0;
	/* "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS... - FSTYPE SRC SUPEROPTS" */
	while (text_next_line(&p, end, &ls, &le)) {
		const char *sep = ls, *ms, *me, *ts, *te, *os, *oe;
		char *dst = NULL;

		while (sep + 3 <= le && memcmp(sep, " - ", 3))
			sep++;
		if (sep + 3 > le || !field_nth(ls, sep, 4, &ms, &me) ||
		    !field_nth(sep + 3, le, 0, &ts, &te))
			continue;
		if (te - ts == 7 && !memcmp(ts, "cgroup2", 7)) {
			if (!mm->v2[0] || (me - ms == 14 &&
					   !memcmp(ms, "/sys/fs/cgroup", 14)))
				dst = mm->v2;
		} else if (te - ts == 6 && !memcmp(ts, "cgroup", 6) &&
			   field_nth(sep + 3, le, 2, &os, &oe) &&
			   list_has(os, oe, "memory") && !mm->v1[0]) {
			dst = mm->v1;
		}
		if (dst && !field_copy(ms, me, dst, PATH_MAX))
			dst[0] = 0;
	}
	return mm->v1[0] || mm->v2[0] ? 0 : -ENODEV;
}

/* Bytes of a cgroup file read in one read(2) (memory.stat: ~1-2 KiB). */
#define CG_READ_ONCE 8192

/* The file path (under dfd) read into a new NUL-terminated buffer *out,
 * as read_small_file_at() reads it, in one read(2) where it fits: each
 * cgroupfs file memsz reads, and /proc/PID/cgroup, is one seq_file
 * record, which one read returns whole (the kernel grows its buffer
 * until the record fits), so a read shorter than asked is the end (a
 * regular file's too) and the read(2) that would return 0 is not made.
 * A file that fills the buffer is read again by read_small_file_at().
 * Returns the length or -errno. */
static ssize_t read_cg_file(int dfd, const char *path, char **out)
{
	char *buf;
	ssize_t n;
	int fd = openat(dfd, path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW), err;

	*out = NULL;
	if (fd < 0)
		return -errno;
	buf = xmalloc(CG_READ_ONCE + 1);
	do
		n = read(fd, buf, CG_READ_ONCE);
	while (n < 0 && errno == EINTR);
	err = n < 0 ? -errno : 0;
	close(fd);
	if (n >= 0 && n < CG_READ_ONCE) {
		buf[n] = 0;
		*out = buf;
		return n;
	}
	free(buf);
	return err ? err : read_small_file_at(dfd, path, SMALL_FILE_MAX, out);
}

bool memcg_v2_only(const char *buf, size_t len)
{
	const char *nl = memchr(buf, '\n', len);

	return len >= 4 && !memcmp(buf, "0::/", 4) &&
	       (!nl || nl == buf + len - 1);
}

/* memcg_mounts_v2_fast() given fs, the statfs of /sys/fs/cgroup. */
static int v2_fast(struct memcg_mounts *mm, const struct statfs *fs)
{
	static const char root[] = "/sys/fs/cgroup";
	struct stat cg, up;
	char *buf = NULL;
	ssize_t n;
	bool ok;

	if (fs->f_type != CGROUP2_SUPER_MAGIC || lstat(root, &cg) < 0 ||
	    !S_ISDIR(cg.st_mode) || stat("/sys/fs", &up) < 0 ||
	    up.st_dev == cg.st_dev)
		return -ENOENT;
	n = read_cg_file(AT_FDCWD, "/proc/self/cgroup", &buf);
	ok = n > 0 && memcg_v2_only(buf, (size_t)n);
	free(buf);
	if (!ok)
		return -ENOENT;
	mm->v1[0] = 0;
	memcpy(mm->v2, root, sizeof(root));
	return 0;
}

int memcg_mounts_v2_fast(struct memcg_mounts *mm)
{
	struct statfs fs;

	return statfs("/sys/fs/cgroup", &fs) < 0 ? -ENOENT : v2_fast(mm, &fs);
}

/* True if dir/name exists. */
static bool has_file(const char *dir, const char *name)
{
	char *path = xasprintf("%s/%s", dir, name);
	bool ok = access(path, F_OK) == 0;

	free(path);
	return ok;
}

/* True if path is a directory (not a symlink) on a file system of type
 * magic. */
static bool dir_of_type(const char *path, unsigned long magic)
{
	struct statfs fs;
	struct stat st;

	return statfs(path, &fs) == 0 && (unsigned long)fs.f_type == magic &&
	       lstat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* memcg_mounts_v1_fast() given fs, the statfs of /sys/fs/cgroup. */
static int v1_fast(struct memcg_mounts *mm, const struct statfs *fs)
{
	static const char v1[] = "/sys/fs/cgroup/memory",
			  v2[] = "/sys/fs/cgroup/unified";

	if ((unsigned long)fs->f_type == CGROUP_SUPER_MAGIC ||
	    (unsigned long)fs->f_type == CGROUP2_SUPER_MAGIC ||
	    !dir_of_type(v1, CGROUP_SUPER_MAGIC) ||
	    !has_file(v1, "memory.usage_in_bytes"))
		return -ENOENT;
	memcpy(mm->v1, v1, sizeof(v1));
	mm->v2[0] = 0;
	if (dir_of_type(v2, CGROUP2_SUPER_MAGIC))
		memcpy(mm->v2, v2, sizeof(v2));
	return 0;
}

int memcg_mounts_v1_fast(struct memcg_mounts *mm)
{
	struct statfs fs;

	return statfs("/sys/fs/cgroup", &fs) < 0 ? -ENOENT : v1_fast(mm, &fs);
}

int memcg_mounts_read(struct memcg_mounts *mm)
{
	const char *fake = getenv("MEMSZ_CGROUP2_ROOT");
	struct statfs fs;
	char *mi = NULL;
	ssize_t n;
	int ret = -ENOENT;

	mm->v2_given = false;
	/* a cgroup2-only machine, the common case, without the mount table
	 * (on a container host, hundreds of lines the kernel formats); one
	 * statfs of /sys/fs/cgroup tells both fast cases */
	if (statfs("/sys/fs/cgroup", &fs) == 0) {
		ret = v2_fast(mm, &fs);
		if (ret < 0)
			ret = v1_fast(mm, &fs);
	}
	if (ret < 0) {
		n = read_small_file("/proc/self/mountinfo", SMALL_FILE_MAX,
				    &mi);
		if (n < 0)
			return (int)n;
		ret = memcg_parse_mounts(mi, (size_t)n, mm);
		free(mi);
	}
	if (fake && *fake && strlen(fake) < sizeof(mm->v2)) {
		strcpy(mm->v2, fake);
		mm->v2_given = true;
		ret = 0;
	}
	return ret;
}

int memcg_parse_proc_cgroup(const char *buf, size_t len, char *v1, char *v2,
			    size_t size)
{
	const char *p = buf, *end = buf + len, *ls, *le;

	v1[0] = v2[0] = 0;
	/* "ID:CONTROLLERS:PATH"; v2's is "0::PATH" */
	while (text_next_line(&p, end, &ls, &le)) {
		const char *c1, *c2;

		if (le == ls)
			continue;
		c1 = memchr(ls, ':', (size_t)(le - ls));
		c2 = c1 ? memchr(c1 + 1, ':', (size_t)(le - c1 - 1)) : NULL;
		if (!c2 || c2 + 1 >= le || c2[1] != '/')
			return -EINVAL;
		if (c1 - ls == 1 && ls[0] == '0' && c2 == c1 + 1) {
			if (!field_copy(c2 + 1, le, v2, size))
				return -EINVAL;
		} else if (list_has(c1 + 1, c2, "memory")) {
			if (!field_copy(c2 + 1, le, v1, size))
				return -EINVAL;
		}
	}
	return 0;
}

/* True if mount/path (path "/": mount) has the file name (name NULL:
 * taken as there): the directory into a new string *dir. False where
 * mount or path is "". */
static bool dir_with(const char *mount, const char *path, const char *name,
		     char **dir)
{
	char *d;

	if (!mount[0] || !path[0])
		return false;
	d = xasprintf("%s%s", mount, strcmp(path, "/") ? path : "");
	if (name && !has_file(d, name)) {
		free(d);
		return false;
	}
	*dir = d;
	return true;
}

int memcg_dir_of_pid(int pid, const struct memcg_mounts *mm, char **dir)
{
	char path[48], v1[PATH_MAX], v2[PATH_MAX], *buf = NULL;
	bool v1_first;
	ssize_t n;
	int ret;

	*dir = NULL;
	snprintf(path, sizeof(path), "/proc/%d/cgroup", pid);
	n = read_cg_file(AT_FDCWD, path, &buf);
	if (n < 0)
		return n == -ENOENT ? -ESRCH : (int)n;
	ret = memcg_parse_proc_cgroup(buf, (size_t)n, v1, v2, sizeof(v1));
	free(buf);
	if (ret < 0)
		return ret;
	/* a controller binds to one hierarchy: where v1's memory one is
	 * mounted, v2 has no memory.current to look for (a v2 root given by
	 * MEMSZ_CGROUP2_ROOT is still looked at first); and every directory
	 * of v1's memory hierarchy is a memory cgroup (the mount's root has
	 * memory.usage_in_bytes: memcg_mounts_read), so its file is not
	 * looked for (the caller's stat(2) finds a directory gone since) */
	v1_first = mm->v1[0] && !mm->v2_given;
	if (v1_first && dir_with(mm->v1, v1, NULL, dir))
		return 0;
	if (dir_with(mm->v2, v2, "memory.current", dir))
		return 0;
	if (!v1_first && dir_with(mm->v1, v1, "memory.usage_in_bytes", dir))
		return 0;
	return -ENOENT;
}

/* Deepest cgroup level walked (real hierarchies are a few levels). */
#define MEMCG_DEPTH_MAX 64

/* A walk looking for several inodes at once: dirs[i] gets the directory
 * of inos[i] when found; left counts those not found yet. */
struct find_walk {
	const uint64_t *inos;
	char **dirs;
	size_t n, left;
};

/* Name dir (of inode dino) if it is one sought. */
static void find_match(struct find_walk *w, const char *dir, uint64_t dino)
{
	for (size_t i = 0; i < w->n; i++)
		if (w->inos[i] == dino && !w->dirs[i]) {
			w->dirs[i] = xstrdup(dir);
			w->left--;
		}
}

/* True if ino is one sought and not found yet. */
static bool find_wanted(const struct find_walk *w, uint64_t ino)
{
	for (size_t i = 0; i < w->n; i++)
		if (w->inos[i] == ino && !w->dirs[i])
			return true;
	return false;
}

/* A subdirectory of the one being walked: its name and inode. */
struct find_sub {
	char *name;
	uint64_t ino;
};

/* Walk dir (of inode dino), depth levels down already, until every inode
 * sought is found: each level's directories are matched first, by the
 * inode their directory entry gives (a cgroup file system's d_ino is its
 * st_ino), before any of them is walked, since the cgroups that pay for
 * a process's pages are most often near the top (the machine's, a
 * slice's); a directory is stat'ed only where d_ino is not given. Depth
 * MEMCG_DEPTH_MAX - 1 matches dir's subdirectories without walking
 * them. */
static void find_under(struct find_walk *w, const char *dir, uint64_t dino,
		       int depth)
{
	struct find_sub *subs = NULL;
	size_t nsubs = 0, cap = 0, i;
	struct dirent *de;
	struct stat st;
	char *sub;
	DIR *d;

	find_match(w, dir, dino);
	if (!w->left || depth >= MEMCG_DEPTH_MAX || !(d = opendir(dir)))
		return;
	while ((de = readdir(d))) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		xgrow(&subs, &cap, nsubs + 1, sizeof(*subs));
		subs[nsubs++] =
		    (struct find_sub){xstrdup(de->d_name), (uint64_t)de->d_ino};
	}
	closedir(d);
	for (i = 0; i < nsubs; i++) {
		sub = xasprintf("%s/%s", dir, subs[i].name);
		if (!subs[i].ino && stat(sub, &st) == 0)
			subs[i].ino = st.st_ino;
		if (find_wanted(w, subs[i].ino))
			find_match(w, sub, subs[i].ino);
		free(sub);
	}
	for (i = 0; i < nsubs; i++) {
		if (w->left && depth + 1 < MEMCG_DEPTH_MAX) {
			sub = xasprintf("%s/%s", dir, subs[i].name);
			find_under(w, sub, subs[i].ino, depth + 1);
			free(sub);
		}
		free(subs[i].name);
	}
	free(subs);
}

/* Look for the inodes sought among near (a cgroup under root) and its
 * ancestors, then among the subdirectories of each ancestor, nearest
 * first, each directory read once and not walked further: the cgroups
 * that pay for a process's pages are most often its own, a parent or a
 * sibling (a process of the same service that touched a file first), so
 * that the whole walk from the root is seldom needed. */
static void find_near(struct find_walk *w, const char *root, const char *near)
{
	size_t rl = strlen(root);
	char *dir = xstrdup(near), *slash;
	uint64_t inos[MEMCG_DEPTH_MAX] = {0}; /* of near, its parent ... */
	struct stat st;
	size_t k = 0;

	if (strncmp(near, root, rl) || (near[rl] && near[rl] != '/')) {
		free(dir);
		return;
	}
	for (size_t len = strlen(dir); w->left && len >= rl; k++) {
		dir[len] = 0;
		if (stat(dir, &st) == 0) {
			find_match(w, dir, st.st_ino);
			if (k < MEMCG_DEPTH_MAX)
				inos[k] = st.st_ino;
		}
		if (len == rl || !(slash = strrchr(dir + rl, '/')))
			break;
		len = (size_t)(slash - dir);
	}
	/* the ancestors again, their inodes as stat'ed above */
	strcpy(dir, near);
	for (k = 1; w->left && strlen(dir) > rl; k++) {
		*strrchr(dir + rl, '/') = 0;
		if (k < MEMCG_DEPTH_MAX && inos[k])
			find_under(w, dir, inos[k], MEMCG_DEPTH_MAX - 1);
		else if (stat(dir, &st) == 0)
			find_under(w, dir, st.st_ino, MEMCG_DEPTH_MAX - 1);
	}
	free(dir);
}

size_t memcg_find_inos(const struct memcg_mounts *mm, const char *near,
		       const uint64_t *inos, size_t n, char **dirs)
{
	const char *root = mm->v1[0] ? mm->v1 : mm->v2;
	struct find_walk w = {.inos = inos, .dirs = dirs, .n = n, .left = n};
	struct stat st;

	for (size_t i = 0; i < n; i++)
		dirs[i] = NULL;
	if (!n || !root[0])
		return 0;
	if (near)
		find_near(&w, root, near);
	if (w.left && stat(root, &st) == 0)
		find_under(&w, root, st.st_ino, 0);
	return n - w.left;
}

int memcg_find_ino(const struct memcg_mounts *mm, uint64_t ino, char **dir)
{
	return memcg_find_inos(mm, NULL, &ino, 1, dir) ? 0 : -ENOENT;
}

int memcg_stat_parse(const char *buf, size_t len, struct memcg *m)
{
	const char *p = buf, *end = buf + len, *ls, *le;

	while (text_next_line(&p, end, &ls, &le)) {
		const char *ks, *ke, *vs, *ve, *x;
		char num[24];
		uint64_t v;

		if (le == ls)
			continue;
		if (!field_nth(ls, le, 0, &ks, &ke) ||
		    !field_nth(ls, le, 1, &vs, &ve) ||
		    field_nth(ls, le, 2, &x, &x) ||
		    !field_copy(vs, ve, num, sizeof(num)) ||
		    parse_u64(num, &v) < 0)
			return -EINVAL;
		if (m->nstats >= MD_CGROUP_MAX_STATS)
			return -EINVAL;
		xgrow(&m->stats, &m->cap, m->nstats + 1, sizeof(*m->stats));
		m->stats[m->nstats].key = xstrndup(ks, (size_t)(ke - ks));
		m->stats[m->nstats++].value = v;
	}
	return 0;
}

/* The one number of the file name under the directory dfd into *v.
 * Returns 0 or -errno (-EINVAL: not a number). */
static int read_u64(int dfd, const char *name, uint64_t *v)
{
	char *buf = NULL;
	ssize_t n = read_cg_file(dfd, name, &buf);
	int ret;

	if (n < 0)
		return (int)n;
	buf[strcspn(buf, "\n")] = 0;
	ret = parse_u64(buf, v) < 0 ? -EINVAL : 0;
	free(buf);
	return ret;
}

/* The files of one version: where its charge and kernel part are. */
struct memcg_layout {
	uint32_t version;
	const char *usage; /* the charge, bytes */
	const char *kmem;  /* its kernel part, or NULL */
};

static const struct memcg_layout layouts[] = {
    {2, "memory.current", NULL},
    {1, "memory.usage_in_bytes", "memory.kmem.usage_in_bytes"},
};

int memcg_read_at(int dfd, const char *dir, uint64_t ino, uint32_t version,
		  struct memcg *m)
{
	const struct memcg_layout *l = NULL;
	char *buf = NULL;
	ssize_t n;
	int ret;

	memcg_release(m);
	/* version's files first: on v1, v2's memory.current is an open(2)
	 * that always fails */
	for (size_t i = 0; i < ARRAY_SIZE(layouts) && !l; i++)
		if (layouts[i].version == version &&
		    read_u64(dfd, layouts[i].usage, &m->usage) == 0)
			l = &layouts[i];
	for (size_t i = 0; i < ARRAY_SIZE(layouts) && !l; i++)
		if (layouts[i].version != version &&
		    read_u64(dfd, layouts[i].usage, &m->usage) == 0)
			l = &layouts[i];
	if (!l)
		return -ENOENT;
	m->dir = xstrdup(dir);
	m->version = l->version;
	m->ino = ino;
	m->flags = MD_CG_F_USAGE;
	if (l->kmem && read_u64(dfd, l->kmem, &m->kmem) == 0)
		m->flags |= MD_CG_F_KMEM;
	n = read_cg_file(dfd, "memory.stat", &buf);
	if (n < 0)
		return 0; /* the charge without its parts */
	ret = memcg_stat_parse(buf, (size_t)n, m);
	free(buf);
	return ret;
}

int memcg_read(const char *dir, struct memcg *m)
{
	struct stat st;
	int dfd, ret;

	memcg_release(m);
	dfd = open(dir, O_PATH | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	if (fstat(dfd, &st) < 0)
		ret = -errno;
	else
		ret = memcg_read_at(dfd, dir, st.st_ino, 0, m);
	close(dfd);
	return ret;
}

uint32_t memcg_dir_version(const struct memcg_mounts *mm, const char *dir)
{
	size_t l = strlen(mm->v1);

	return l && !strncmp(dir, mm->v1, l) && (!dir[l] || dir[l] == '/') ? 1
									   : 2;
}

void memcg_record(const struct memcg *m, uint32_t pid, uint64_t time,
		  struct md_cgroup *out)
{
	*out = (struct md_cgroup){.time = time,
				  .pid = pid,
				  .version = m->version,
				  .flags = m->flags,
				  .nstats = (uint32_t)m->nstats,
				  .ino = m->ino,
				  .usage = m->usage,
				  .kmem = m->kmem,
				  .path = m->dir,
				  .stats = m->stats};
}

void memcg_release(struct memcg *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->nstats; i++)
		free((char *)m->stats[i].key);
	free(m->stats);
	free(m->dir);
	memset(m, 0, sizeof(*m));
}
