// SPDX-License-Identifier: GPL-2.0-or-later
/* targets_scan.c — every process, or every process of a cgroup v2
 * subtree (see targets_scan.h). */
#include "config.h"

#include "record/targets_scan.h"
#include "record/memcg.h"
#include "util/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif
#ifndef CGROUP_SUPER_MAGIC
#define CGROUP_SUPER_MAGIC 0x27e0eb
#endif
/* include/linux/sched.h: the task is a kernel thread */
#define PF_KTHREAD 0x00200000u
/* Largest /proc or cgroupfs file read whole (cgroup.procs of a busy
 * cgroup: a pid a line). */
#define PROC_FILE_MAX (64u << 20)

struct target_scan {
	char *dir; /* cgroup directory, or NULL: all of /proc */
};

int target_scan_parse_mountinfo(const char *buf, size_t len, char *out,
				size_t size)
{
	const char *p = buf, *end = buf + len;
	bool found = false;

	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		const char *le = nl ? nl : end, *sep;
		char mnt[PATH_MAX], fstype[64];
		size_t ml;

		/* "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS... - FSTYPE SRC .."
		 */
		sep = p;
		while (sep + 3 <= le && memcmp(sep, " - ", 3))
			sep++;
		if (sep + 3 <= le &&
		    sscanf(p, "%*s %*s %*s %*s %4095s", mnt) == 1 &&
		    sscanf(sep + 3, "%63s", fstype) == 1 &&
		    !strcmp(fstype, "cgroup2")) {
			ml = strlen(mnt);
			if (ml < size &&
			    (!found || !strcmp(mnt, "/sys/fs/cgroup"))) {
				memcpy(out, mnt, ml + 1);
				found = true;
			}
		}
		p = le + 1;
	}
	return found ? 0 : -ENODEV;
}

int target_scan_parse_procs(const char *buf, size_t len, int **pids, size_t *n,
			    size_t *cap)
{
	const char *p = buf, *end = buf + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		const char *le = nl ? nl : end;
		char num[16];
		uint64_t v;

		if (le > p) {
			if ((size_t)(le - p) >= sizeof(num))
				return -EINVAL;
			memcpy(num, p, le - p);
			num[le - p] = 0;
			if (parse_u64(num, &v) < 0 || !v || v > INT32_MAX)
				return -EINVAL;
			xgrow(pids, cap, *n + 1, sizeof(**pids));
			(*pids)[(*n)++] = (int)v;
		}
		p = le + 1;
	}
	return 0;
}

/* The fields of a /proc/PID/stat text after its comm: "S ppid pgrp ...",
 * or NULL if the text is malformed. comm may hold spaces and
 * parentheses: the last ')' ends it. */
static const char *stat_after_comm(const char *buf, size_t len)
{
	const char *p = NULL;

	for (size_t i = len; i > 0; i--)
		if (buf[i - 1] == ')') {
			p = buf + i;
			break;
		}
	if (!p || p + 3 > buf + len || p[0] != ' ')
		return NULL;
	return p + 1;
}

bool target_scan_stat_kthread(const char *buf, size_t len, char *state)
{
	/* "pid (comm) S ppid pgrp session tty_nr tpgid flags ..." */
	const char *p = stat_after_comm(buf, len);
	unsigned long flags = 0;

	*state = 0;
	if (!p)
		return false;
	*state = p[0];
	if (sscanf(p + 1, "%*d %*d %*d %*d %*d %lu", &flags) != 1) {
		*state = 0;
		return false;
	}
	return flags & PF_KTHREAD;
}

int target_scan_stat_ppid(const char *buf, size_t len, int *ppid)
{
	const char *p = stat_after_comm(buf, len), *end = buf + len, *q;
	uint64_t v = 0;

	/* "S ppid ...", read within len: the digits up to a space, a
	 * newline or the end */
	if (!p || p + 2 >= end || p[1] != ' ')
		return -EINVAL;
	for (q = p + 2; q < end && *q >= '0' && *q <= '9'; q++) {
		v = v * 10 + (uint64_t)(*q - '0');
		if (v > INT32_MAX)
			return -EINVAL;
	}
	if (q == p + 2 || (q < end && *q != ' ' && *q != '\n'))
		return -EINVAL;
	*ppid = (int)v;
	return 0;
}

int target_owner(int pid, uid_t *uid)
{
	char path[32];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d", pid);
	if (stat(path, &st) < 0)
		return -errno;
	*uid = st.st_uid;
	return 0;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* True if the passwd line of nss starts with the source "files" and no
 * [action] (glibc then returns what files finds, nscd aside, a cache of
 * the same answer); false for anything else. */
static bool nss_files_first(const char *nss, size_t len)
{
	const char *p = nss, *end = nss + len, *ls, *le, *c, *src = NULL;
	int found = 0;

	while (text_next_line(&p, end, &ls, &le)) {
		c = memchr(ls, '#', (size_t)(le - ls));
		le = c ? c : le;
		while (ls < le && is_blank(*ls))
			ls++;
		if (le - ls < 6 || strncasecmp(ls, "passwd", 6))
			continue;
		c = ls + 6;
		while (c < le && is_blank(*c))
			c++;
		if (c == le || *c != ':')
			continue;
		for (c++; c < le && is_blank(*c); c++)
			;
		src = c;
		found++;
		if (le - c < 5 || memcmp(c, "files", 5))
			return false;
		for (c += 5; c < le && is_blank(*c); c++)
			;
		if ((c == src + 5 && c < le) || (c < le && *c == '['))
			return false;
	}
	return found == 1;
}

/* The number of the field [s, e) of digits only into *v; false if it is
 * empty, holds another character or does not fit a uid_t. */
static bool pw_id(const char *s, const char *e, uid_t *v)
{
	uint64_t n = 0;

	if (s == e || e - s > 10)
		return false;
	for (; s < e; s++) {
		if (*s < '0' || *s > '9')
			return false;
		n = n * 10 + (uint64_t)(*s - '0');
	}
	*v = (uid_t)n;
	return n == *v;
}

/* The name and uid of a passwd line [ls, le), "name:pw:uid:gid:gecos:
 * dir:shell". False if files would not read it as a plain entry: fewer
 * fields, an empty name, a '+' or '-' (NIS) entry, a uid or gid that is
 * not a number. */
static bool pw_line(const char *ls, const char *le, const char **name,
		    size_t *nlen, uid_t *uid)
{
	const char *f[7], *c = ls;
	uid_t gid;
	int n = 0;

	for (f[n++] = ls; n < 7; f[n++] = ++c)
		if (!(c = memchr(c, ':', (size_t)(le - c))))
			return false;
	if (f[1] - 1 == ls || *ls == '+' || *ls == '-' ||
	    !pw_id(f[2], f[3] - 1, uid) || !pw_id(f[3], f[4] - 1, &gid))
		return false;
	*name = ls;
	*nlen = (size_t)(f[1] - 1 - ls);
	return true;
}

int target_user_from_files(const char *nss, size_t nsslen, const char *passwd,
			   size_t pwlen, uid_t uid, char *user, size_t size)
{
	const char *p = passwd, *end = passwd + pwlen, *ls, *le, *name;
	size_t nlen;
	uid_t u;

	if (!nss_files_first(nss, nsslen))
		return -ENOENT;
	while (text_next_line(&p, end, &ls, &le)) {
		while (ls < le && is_blank(*ls))
			ls++;
		if (ls == le || *ls == '#')
			continue;
		if (!pw_line(ls, le, &name, &nlen, &u))
			return -ENOENT;
		if (u == uid) {
			snprintf(user, size, "%.*s", (int)nlen, name);
			return 0;
		}
	}
	return -ENOENT;
}

/* The user name of uid into user[64], or "" if it has none: from
 * /etc/passwd when nsswitch.conf has it read first (no NSS set-up, no
 * nscd socket tried), else by getpwuid_r(). */
static void user_name(uid_t uid, char *user)
{
	char *nss = NULL, *pwf = NULL, pw[1024];
	struct passwd pwd, *res = NULL;
	ssize_t nn, pn = -1;
	int ret = -ENOENT;

	nn = read_small_file("/etc/nsswitch.conf", 1u << 20, &nss);
	if (nn >= 0 && nss_files_first(nss, (size_t)nn))
		pn = read_small_file("/etc/passwd", PROC_FILE_MAX, &pwf);
	if (pn >= 0)
		ret = target_user_from_files(nss, (size_t)nn, pwf, (size_t)pn,
					     uid, user, 64);
	free(nss);
	free(pwf);
	if (ret == 0)
		return;
	user[0] = 0;
	if (getpwuid_r(uid, &pwd, pw, sizeof(pw), &res) == 0 && res)
		snprintf(user, 64, "%s", res->pw_name);
}

int target_scan_comm(int pid, struct md_task *k, char *comm, char *user)
{
	char path[48], *buf = NULL;
	ssize_t len;
	uid_t uid = 0;
	int ret;

	ret = target_owner(pid, &uid);
	if (ret < 0)
		return ret;
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	len = read_small_file(path, PROC_FILE_MAX, &buf);
	if (len < 0)
		return (int)len;
	/* the kernel ends the name with one '\n'; one before it is the
	 * name's own (PR_SET_NAME takes every byte but 0) */
	if (len > 0 && buf[len - 1] == '\n')
		len--;
	len = MIN(len, 15);
	memcpy(comm, buf, len);
	comm[len] = 0;
	free(buf);
	user_name(uid, user);
	*k = (struct md_task){.time = mono_ns(),
			      .pid = pid,
			      .tid = pid,
			      .comm = comm,
			      .has_owner = true,
			      .uid = uid,
			      .user = user};
	return 0;
}

int target_scan_all(struct target_scan **out)
{
	*out = xcalloc(1, sizeof(**out));
	return 0;
}

/* True if path is a directory of a cgroup file system (v2, or a v1
 * hierarchy), or of the tree MEMSZ_CGROUP2_ROOT names (memcg.h). */
static bool is_cgroup_dir(const char *path)
{
	const char *fake = getenv("MEMSZ_CGROUP2_ROOT");
	size_t fl = fake ? strlen(fake) : 0;
	struct statfs sf;
	struct stat st;

	if (stat(path, &st) < 0 || !S_ISDIR(st.st_mode))
		return false;
	if (fl && !strncmp(path, fake, fl) && (!path[fl] || path[fl] == '/'))
		return true;
	return statfs(path, &sf) == 0 &&
	       ((unsigned long)sf.f_type == CGROUP2_SUPER_MAGIC ||
		(unsigned long)sf.f_type == CGROUP_SUPER_MAGIC);
}

/* path under mount (path absolute as /proc/PID/cgroup shows it, or
 * relative), or NULL if mount is "" or it has no such directory. */
static char *under(const char *mount, const char *path)
{
	char *dir;

	if (!mount[0])
		return NULL;
	dir = xasprintf("%s%s%s", mount, path[0] == '/' ? "" : "/", path);
	if (access(dir, F_OK) == 0)
		return dir;
	free(dir);
	return NULL;
}

/* v2dir, the directory of path under the cgroup2 mount, or the one of
 * the same path in v1's memory hierarchy where v2dir has no memory
 * controller (no memory.current) and v1's exists: a hybrid machine
 * (systemd makes each cgroup in both) has its memory cgroups in v1's
 * hierarchy, the controller on one hierarchy only. Takes v2dir; returns
 * the one kept (caller frees). */
static char *memory_first(const struct memcg_mounts *mm, const char *path,
			  char *v2dir)
{
	char *cur = xasprintf("%s/memory.current", v2dir), *v1dir = NULL;
	bool v2mem = access(cur, F_OK) == 0;

	free(cur);
	if (!v2mem && !mm->v2_given)
		v1dir = under(mm->v1, path);
	if (!v1dir)
		return v2dir;
	free(v2dir);
	return v1dir;
}

/* Tidy the absolute path dir in place as the kernel's paths read
 * (/proc/PID/cgroup after its mount, memcg.h's directories): no empty,
 * "." or ".." component, no slash at the end ("/" stays). The report tells the
 * -G cgroup's descendants by their paths under it (cgcharge.c): "CG/"
 * or "A//CG" kept as typed matched none of them. Lexical: for where
 * realpath() fails, as its result has none of these. */
static void path_tidy(char *dir)
{
	char *w = dir;

	for (const char *s = dir; *s;) {
		const char *e = strchr(s + 1, '/');

		if (!e)
			e = s + strlen(s);

		/* a component "/NAME" is [s, e); "/" and "/." are dropped,
		 * "/.." drops the one before it */
		if (e - s == 3 && s[1] == '.' && s[2] == '.') {
			while (w > dir && *--w != '/')
				;
		} else if (!(e - s == 1 || (e - s == 2 && s[1] == '.'))) {
			memmove(w, s, (size_t)(e - s));
			w += e - s;
		}
		s = e;
	}
	if (w == dir)
		*w++ = '/';
	*w = '\0';
}

int target_scan_cgroup(const char *path, struct target_scan **out)
{
	struct memcg_mounts *mm;
	bool elsewhere; /* path is a directory, not of a cgroup */
	char *dir = NULL, *real;
	int ret;

	*out = NULL;
	if (path[0] == '/' && is_cgroup_dir(path)) {
		dir = xstrdup(path);
		goto done;
	}
	elsewhere = path[0] == '/' && access(path, F_OK) == 0;
	mm = xmalloc(sizeof(*mm));
	ret = memcg_mounts_read(mm);
	/* "/system.slice/x.service" as /proc/PID/cgroup shows it, or a path
	 * relative to the mount: v2 first, then v1's memory hierarchy (first
	 * where v2's has no memory controller: memory_first) */
	if (ret == 0 && !(dir = under(mm->v2, path)))
		dir = under(mm->v1, path);
	else if (ret == 0)
		dir = memory_first(mm, path, dir);
	free(mm);
	if (ret < 0)
		return ret;
	if (!dir)
		return elsewhere ? -ENOTDIR : -ENOENT;
	if (!is_cgroup_dir(dir)) {
		free(dir);
		return -ENOTDIR;
	}
done:
	/* the directory as the kernel reaches it: a symlink on the way
	 * (-G /tmp/lnk, -G /tmp/lnk/..) is followed, not kept as typed */
	real = realpath(dir, NULL);
	if (real) {
		free(dir);
		dir = real;
	}
	path_tidy(dir); /* realpath's is tidy already */
	*out = xcalloc(1, sizeof(**out));
	(*out)->dir = dir;
	return 0;
}

const char *target_scan_dir(const struct target_scan *sc)
{
	return sc->dir;
}

bool target_scan_is_cgroup(const struct target_scan *sc)
{
	return sc->dir != NULL;
}

void target_scan_free(struct target_scan *sc)
{
	if (!sc)
		return;
	free(sc->dir);
	free(sc);
}

/* Open directory path for reading, however long: a path past PATH_MAX
 * (a deep cgroup tree's: the kernel sets no depth) is opened a piece of
 * whole components, shorter than PATH_MAX, at a time, each relative to
 * the last. Returns the descriptor or -errno. */
static int open_dir_long(const char *path)
{
	const char *p = path;
	int dfd = AT_FDCWD, fd;

	while (strlen(p) >= PATH_MAX) {
		const char *cut = p + PATH_MAX - 1;

		while (cut > p && *cut != '/')
			cut--;
		fd = -ENAMETOOLONG; /* no component is that long (NAME_MAX) */
		if (cut > p) {
			char *piece = xstrndup(p, (size_t)(cut - p));

			fd = openat(dfd, piece,
				    O_PATH | O_DIRECTORY | O_CLOEXEC);
			if (fd < 0)
				fd = -errno;
			free(piece);
		}
		if (dfd != AT_FDCWD)
			close(dfd);
		if (fd < 0)
			return fd;
		dfd = fd;
		p = cut + 1;
	}
	fd = openat(dfd, p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		fd = -errno;
	if (dfd != AT_FDCWD)
		close(dfd);
	return fd;
}

/* Append the pids of dir's cgroup.procs; push its child cgroups' paths
 * onto *pending (*npending of *pcap). A descendant (not top) removed
 * meanwhile is skipped. */
static int read_cgroup(const char *dir, bool top, int **pids, size_t *n,
		       size_t *cap, char ***pending, size_t *npending,
		       size_t *pcap)
{
	int dfd = open_dir_long(dir), ret;
	char *buf = NULL;
	struct dirent *de;
	ssize_t len;
	DIR *d;

	if (dfd < 0)
		return dfd == -ENOENT && !top ? 0 : dfd;
	len = read_small_file_at(dfd, "cgroup.procs", PROC_FILE_MAX, &buf);
	if (len < 0) {
		close(dfd);
		return len == -ENOENT && !top ? 0 : (int)len;
	}
	ret = target_scan_parse_procs(buf, (size_t)len, pids, n, cap);
	free(buf);
	d = ret < 0 ? NULL : fdopendir(dfd);
	if (!d) {
		if (ret >= 0)
			ret = -errno;
		close(dfd);
		return ret;
	}
	while ((de = readdir(d))) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		xgrow(pending, pcap, *npending + 1, sizeof(**pending));
		(*pending)[(*npending)++] = xasprintf("%s/%s", dir, de->d_name);
	}
	closedir(d);
	return 0;
}

/* Append the pids of dir's cgroup.procs and of every descendant's, however
 * deep (the kernel sets no depth by default, and whoever was delegated a
 * subtree may nest it thousands of levels to hide a process from a
 * limited walk): a list of the cgroups still to read, each directory
 * closed before its children are read, no recursion. */
static int walk_cgroup(const char *dir, int **pids, size_t *n, size_t *cap)
{
	char **pending = NULL;
	size_t npending = 0, pcap = 0;
	int ret =
	    read_cgroup(dir, true, pids, n, cap, &pending, &npending, &pcap);

	while (npending) {
		char *cur = pending[--npending];

		if (!ret)
			ret = read_cgroup(cur, false, pids, n, cap, &pending,
					  &npending, &pcap);
		free(cur);
	}
	free(pending);
	return ret;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* Keep the pids that are user processes: not memsz, not a kernel thread,
 * not a zombie (counted in st); gone ones are dropped. */
static size_t keep_user(int *pids, size_t n, struct target_scan_stats *st)
{
	int self = getpid(), prev = 0;
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		char path[48], *buf = NULL, state;
		ssize_t len;
		bool kthread;

		if (pids[i] == self || pids[i] == prev)
			continue;
		prev = pids[i];
		snprintf(path, sizeof(path), "/proc/%d/stat", pids[i]);
		len = read_small_file(path, PROC_FILE_MAX, &buf);
		if (len < 0)
			continue;
		kthread = target_scan_stat_kthread(buf, (size_t)len, &state);
		free(buf);
		if (kthread)
			st->kthreads++;
		else if (state == 'Z' || state == 'X')
			st->zombies++;
		else if (state)
			pids[k++] = pids[i];
	}
	return k;
}

/* Append every numeric entry of /proc. */
static int list_proc(int **pids, size_t *n, size_t *cap)
{
	struct dirent *de;
	DIR *d = opendir("/proc");

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		uint64_t v;

		if (parse_u64(de->d_name, &v) < 0 || !v || v > INT32_MAX)
			continue;
		xgrow(pids, cap, *n + 1, sizeof(**pids));
		(*pids)[(*n)++] = (int)v;
	}
	closedir(d);
	return 0;
}

int target_scan_list(struct target_scan *sc, int **pids,
		     struct target_scan_stats *st)
{
	struct target_scan_stats local = {0};
	size_t n = 0, cap = 0;
	int ret;

	*pids = NULL;
	if (!st)
		st = &local;
	memset(st, 0, sizeof(*st));
	if (sc->dir)
		ret = walk_cgroup(sc->dir, pids, &n, &cap);
	else
		ret = list_proc(pids, &n, &cap);
	if (ret < 0) {
		free(*pids);
		*pids = NULL;
		return ret;
	}
	/* an empty cgroup leaves *pids NULL, which qsort may not get */
	if (n > 1)
		qsort(*pids, n, sizeof(**pids), cmp_int);
	return (int)keep_user(*pids, n, st);
}

static int cmp_ppid_pid(const void *a, const void *b)
{
	return cmp_int(&((const struct target_ppid *)a)->pid,
		       &((const struct target_ppid *)b)->pid);
}

static bool is_root(const int *roots, size_t nroots, int pid)
{
	for (size_t i = 0; i < nroots; i++)
		if (roots[i] == pid)
			return true;
	return false;
}

/* True if pid is one of roots[0..nroots) or a process of procs[0..n)
 * (sorted by pid) marked in. */
static bool in_tree(const struct target_ppid *procs, size_t n, const bool *in,
		    const int *roots, size_t nroots, int pid)
{
	struct target_ppid key = {.pid = pid};
	const struct target_ppid *f;

	if (is_root(roots, nroots, pid))
		return true;
	f = bsearch(&key, procs, n, sizeof(*procs), cmp_ppid_pid);
	return f && in[f - procs];
}

size_t target_scan_descendants_of(const struct target_ppid *procs, size_t n,
				  const int *roots, size_t nroots, int **out)
{
	struct target_ppid *by_pid = xmalloc((n + 1) * sizeof(*by_pid));
	bool *in = xcalloc(n + 1, sizeof(*in)), grew = true;
	size_t count = 0, k = 0;

	memcpy(by_pid, procs, n * sizeof(*procs));
	qsort(by_pid, n, sizeof(*by_pid), cmp_ppid_pid);
	/* one generation more each pass, until a pass adds none */
	while (grew) {
		grew = false;
		for (size_t i = 0; i < n; i++) {
			if (in[i] || !in_tree(by_pid, n, in, roots, nroots,
					      by_pid[i].ppid))
				continue;
			in[i] = grew = true;
			count++;
		}
	}
	*out = NULL;
	if (count)
		*out = xmalloc(count * sizeof(**out));
	for (size_t i = 0; i < n; i++)
		if (in[i] && !is_root(roots, nroots, by_pid[i].pid))
			(*out)[k++] = by_pid[i].pid;
	free(in);
	free(by_pid);
	return k;
}

int target_scan_descendants(const int *roots, size_t nroots, int **out)
{
	struct target_scan_stats st = {0};
	struct target_ppid *procs = NULL;
	size_t n = 0, cap = 0, np = 0, pcap = 0, nd;
	int *pids = NULL, ret;

	*out = NULL;
	ret = list_proc(&pids, &n, &cap);
	for (size_t i = 0; !ret && i < n; i++) {
		char path[48], *buf = NULL;
		ssize_t len;
		int ppid;

		snprintf(path, sizeof(path), "/proc/%d/stat", pids[i]);
		len = read_small_file(path, PROC_FILE_MAX, &buf);
		if (len < 0)
			continue; /* gone */
		if (target_scan_stat_ppid(buf, (size_t)len, &ppid) == 0) {
			xgrow(&procs, &pcap, np + 1, sizeof(*procs));
			procs[np++] = (struct target_ppid){pids[i], ppid};
		}
		free(buf);
	}
	free(pids);
	if (ret < 0) {
		free(procs);
		return ret;
	}
	nd = target_scan_descendants_of(procs, np, roots, nroots, out);
	free(procs);
	return (int)keep_user(*out, nd, &st);
}
