// SPDX-License-Identifier: GPL-2.0-or-later
/* jitmap.c — perf-PID.map reader (see jitmap.h). */
#include "config.h"

#include "record/jitmap.h"
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Longest line taken: longer ones (a name of kilobytes) are cut. */
#define LINE_MAX_BYTES 4096
/* A map is read up to this size (a JIT that writes more is cut), at most
 * JITMAP_READ_BYTES at a time: the file is its writer's, memsz's memory
 * must not follow it. */
#define JITMAP_MAX_BYTES (256ull << 20)
#define JITMAP_READ_BYTES (16u << 20)

/* "START SIZE NAME": hex numbers with or without 0x. Returns 0 or -1. */
static int parse_line(char *line, struct md_jit_sym *s)
{
	char *p = line, *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(p, &end, 16);
	if (end == p || *end != ' ' || errno)
		return -1;
	s->start = v;
	p = end + 1;
	v = strtoull(p, &end, 16);
	if (end == p || *end != ' ' || errno || !v)
		return -1;
	s->size = v;
	if (s->start + s->size < s->start)
		return -1;
	p = end + 1;
	if (!*p)
		return -1;
	s->name = p;
	return 0;
}

int jitmap_parse(FILE *f, struct jitmap *jm, uint64_t *consumed)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int added = 0;

	*consumed = 0;
	while ((len = getline(&line, &cap, f)) > 0) {
		struct md_jit_sym s;

		if (line[len - 1] != '\n')
			break; /* still being written: next time */
		*consumed += (uint64_t)len;
		line[len - 1] = 0;
		if (len > LINE_MAX_BYTES)
			line[LINE_MAX_BYTES] = 0;
		if (parse_line(line, &s) < 0) {
			jm->bad++;
			continue;
		}
		s.name = xstrdup(s.name);
		xgrow(&jm->syms, &jm->cap, jm->n + 1, sizeof(*jm->syms));
		jm->syms[jm->n++] = s;
		added++;
	}
	free(line);
	return ferror(f) ? -EIO : added;
}

/* Open the map at path as a file its writer controls: never following a
 * symlink at its end, never blocking (a FIFO opens at once and is then
 * refused), only a regular file owned by root or by uid. Returns the fd,
 * -ENOENT when there is none, or -errno; -EPERM for a map refused, with
 * *why set when the process's user (or root) made what is there: one
 * another user planted in /tmp (or left behind by a process that had the
 * pid before) is none of the process's, and nothing is said of it. */
static int open_map(const char *path, uid_t uid, const char **why)
{
	struct stat st;
	int fd;

	fd = open(path,
		  O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
	if (fd < 0 && errno == ELOOP) {
		if (lstat(path, &st) == 0 &&
		    (st.st_uid == 0 || st.st_uid == uid))
			*why = "a symbolic link, not followed";
		return -EPERM;
	}
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	if (S_ISREG(st.st_mode) && (st.st_uid == 0 || st.st_uid == uid))
		return fd;
	if (st.st_uid == 0 || st.st_uid == uid)
		*why = "not a regular file";
	close(fd);
	return -EPERM;
}

/* The owner of process pid (its /proc directory's), or -1. */
static uid_t pid_uid(int pid)
{
	char path[32];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d", pid);
	return stat(path, &st) < 0 ? (uid_t)-1 : st.st_uid;
}

/* Parse the bytes of fd from off, at most JITMAP_READ_BYTES of them and
 * none past JITMAP_MAX_BYTES (read into memory first, so that a file that
 * grows meanwhile cannot make the read endless). Returns the symbols added
 * or -errno; *used gets the bytes of the complete lines taken, *more
 * whether the read stopped at JITMAP_READ_BYTES with bytes left. */
static int parse_fd(int fd, uint64_t off, struct jitmap *jm, uint64_t *used,
		    bool *more)
{
	struct stat st;
	size_t len, got = 0;
	char *buf;
	FILE *f;
	int ret;

	*used = 0;
	*more = false;
	if (fstat(fd, &st) < 0)
		return -errno;
	jm->cut = (uint64_t)st.st_size > JITMAP_MAX_BYTES;
	if ((uint64_t)st.st_size <= off || off >= JITMAP_MAX_BYTES)
		return 0;
	len = (size_t)(MIN((uint64_t)st.st_size, JITMAP_MAX_BYTES) - off);
	*more = len > JITMAP_READ_BYTES;
	len = MIN(len, JITMAP_READ_BYTES);
	buf = xmalloc(len);
	while (got < len) {
		ssize_t n = pread(fd, buf + got, len - got, (off_t)(off + got));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	ret = 0;
	if (got) {
		f = fmemopen(buf, got, "r");
		ret = f ? jitmap_parse(f, jm, used) : -errno;
		if (f)
			fclose(f);
	}
	if (ret >= 0 && !*used && got == JITMAP_READ_BYTES) {
		/* a line longer than a whole read, complete or not: taken
		 * as read (it would hold every later line back for good);
		 * its rest starts the next read and counts as a bad line */
		*used = got;
	}
	*more = *more && got == len;
	free(buf);
	return ret;
}

/* pid as the process itself sees it (the last NSpid of /proc/PID/status:
 * its own PID namespace's), which names the map it writes
 * ("/tmp/perf-%d.map" of getpid(), as perf looks it up by nsinfo's nstgid);
 * pid itself where status says none (before Linux 4.1) or is gone. */
static int ns_pid(int pid)
{
	char path[32], *line = NULL, *p, *end;
	size_t cap = 0;
	long v, last = pid;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "re");
	if (!f)
		return pid;
	while (getline(&line, &cap, f) >= 0) {
		if (strncmp(line, "NSpid:", 6))
			continue;
		for (p = line + 6;; p = end) {
			errno = 0;
			v = strtol(p, &end, 10);
			if (end == p || errno || v <= 0 || v > INT_MAX)
				break;
			last = v;
		}
		break;
	}
	free(line);
	fclose(f);
	return (int)last;
}

int jitmap_read_pid(int pid, uint64_t *off, struct jitmap *jm, bool *more)
{
	char *path = jm->path;
	uint64_t used = 0;
	uid_t uid = pid_uid(pid);
	int fd, ret, nspid = ns_pid(pid);

	*more = false;
	jm->refused = NULL;
	jm->cut = false;
	snprintf(path, sizeof(jm->path), "/proc/%d/root/tmp/perf-%d.map", pid,
		 nspid);
	fd = open_map(path, uid, &jm->refused);
	if (fd == -ENOENT || fd == -ESRCH) {
		/* the process is gone: its /tmp was most likely ours */
		snprintf(path, sizeof(jm->path), "/tmp/perf-%d.map", pid);
		fd = open_map(path, uid, &jm->refused);
	} else {
		/* named as the process names it */
		snprintf(path, sizeof(jm->path), "/tmp/perf-%d.map", nspid);
	}
	if (fd < 0) {
		if (fd == -ENOENT || fd == -ESRCH)
			path[0] = 0;
		return fd == -ENOENT || fd == -ESRCH ? 0 : fd;
	}
	ret = parse_fd(fd, *off, jm, &used, more);
	*off += used;
	*more = *more && used && ret >= 0;
	close(fd);
	return ret;
}

void jitmap_clear(struct jitmap *jm)
{
	for (size_t i = 0; i < jm->n; i++)
		free((char *)jm->syms[i].name);
	jm->n = 0;
}

void jitmap_free(struct jitmap *jm)
{
	jitmap_clear(jm);
	free(jm->syms);
	jm->syms = NULL;
	jm->cap = 0;
}
