// SPDX-License-Identifier: GPL-2.0-or-later
/* dfcreate.c — where the memsz.data writer (dfwriter.c) writes: the file
 * it creates beside the path the user named (a temporary file, named or
 * unnamed, mode 0600), or, with MD_WRITER_SPECIAL, the pipe, device,
 * socket or memsz's own descriptor the path or a chain of symlinks at it
 * ends at, each checked to be what was looked at. See dfcodec.h. */
#include "config.h"

#include "data/dfcodec.h"
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>
#include <linux/magic.h>

/* Open name in directory dfd (no link: the end of a chain
 * path_link_walk() followed), a pipe, device or socket st says it is, for
 * MD_WRITER_SPECIAL: without blocking, O_NOFOLLOW, and only if what was
 * opened is what was looked at. Returns the fd or a negative code. */
static int open_special(int dfd, const char *name, const struct stat *st)
{
	struct stat got;
	int fd =
	    openat(dfd, name,
		   O_WRONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW);

	if (fd < 0)
		return -errno;
	if (fstat(fd, &got) < 0 || got.st_dev != st->st_dev ||
	    got.st_ino != st->st_ino) {
		close(fd);
		return -EAGAIN; /* replaced meanwhile */
	}
	/* opened: writes wait for the reader the user named */
	(void)fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return fd;
}

/* Whether fd and the open descriptor other are the same file. */
static bool same_file(const struct stat *st, int other)
{
	struct stat o;

	return fstat(other, &o) == 0 && o.st_dev == st->st_dev &&
	       o.st_ino == st->st_ino;
}

/* Write to memsz's own descriptor n (-o /dev/stdout, /proc/self/fd/N),
 * for MD_WRITER_SPECIAL: a copy of it (F_DUPFD_CLOEXEC), which shares its
 * offset with the shell's (a reopen through /proc would write a regular
 * file from 0 over what others write there). Only a descriptor memsz was
 * given: one open across the exec that started it, so without
 * FD_CLOEXEC; memsz opens its own (signalfd, kpage files, images...)
 * with it, and none of them is an output (-MEMSZ_EFDLINK). Refused too:
 * one not open for writing (-MEMSZ_ENOTWRITE), a descriptor memsz found
 * closed (std_fd_nulled()), a regular file with data in it (>> FILE:
 * -EEXIST), the file that is also memsz's stderr or, with
 * MD_WRITER_CMDOUT, the launched command's stdout or stderr (what it
 * inherits: 1 and 2), into which the recording would be mixed. Returns
 * the fd or a negative code. */
static int open_own_fd(int n, unsigned flags)
{
	struct stat st;
	int fd, ret = 0, fl = fcntl(n, F_GETFD), acc = fcntl(n, F_GETFL);

	if (fl < 0 || acc < 0)
		return -errno;
	if (fl & FD_CLOEXEC)
		return -MEMSZ_EFDLINK;
	/* before the access mode: a closed stdout is on /dev/null open
	 * for reading only (main()) */
	if (std_fd_nulled(n))
		return -MEMSZ_ESTDCLOSED;
	if ((acc & O_PATH) || (acc & O_ACCMODE) == O_RDONLY)
		return -MEMSZ_ENOTWRITE;
	fd = fcntl(n, F_DUPFD_CLOEXEC, 3);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		ret = -errno;
	else if (S_ISDIR(st.st_mode))
		ret = -EISDIR;
	else if (S_ISREG(st.st_mode) && st.st_size > 0)
		ret = -EEXIST;
	else if (same_file(&st, 2))
		ret = -MEMSZ_EMIXERR;
	else if ((flags & MD_WRITER_CMDOUT) && same_file(&st, 1))
		ret = -MEMSZ_EMIXCMD;
	if (ret < 0) {
		close(fd);
		return ret;
	}
	return fd;
}

/* What md_writer_create() does with the symlink name in dfd: follow it a
 * link at a time (path_link_walk()). Returns the fd written (a pipe,
 * device or socket at the end of the chain, memsz's own descriptor it
 * names), a negative code, or REPLACE: replace the link (it leads to a
 * regular file or nowhere). */
#define REPLACE (-MEMSZ_ELAST - 1)
static int writer_link(int dfd, const char *name, unsigned flags)
{
	struct path_link pl;
	struct stat st;
	int ret = path_link_walk(dfd, name, &pl);

	if (ret < 0) {
		/* no end found (a loop, a directory not there): replaced
		 * when it names nothing or a regular file, as before */
		if (fstatat(dfd, name, &st, 0) < 0 || S_ISREG(st.st_mode))
			return REPLACE;
		if (S_ISDIR(st.st_mode))
			return -EISDIR;
		return flags & MD_WRITER_SPECIAL ? ret : -MEMSZ_ESPECIAL;
	}
	if (ret == 1) /* a link of /proc: never replaced */
		ret = pl.unsafe ? -MEMSZ_EUNSAFELINK
		      : !(flags & MD_WRITER_SPECIAL) || pl.fd < 0
			  ? -MEMSZ_EFDLINK
			  : open_own_fd(pl.fd, flags);
	else if (fstatat(pl.dfd, pl.name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		 S_ISREG(st.st_mode))
		ret = REPLACE; /* dangling, or a regular file */
	else if (S_ISDIR(st.st_mode))
		ret = -EISDIR;
	else if (!(flags & MD_WRITER_SPECIAL))
		ret = -MEMSZ_ESPECIAL;
	else
		ret = pl.unsafe ? -MEMSZ_EUNSAFELINK
				: open_special(pl.dfd, pl.name, &st);
	path_link_free(&pl);
	return ret;
}

/* Create the file name (ending in six X) names, its X replaced by letters
 * and digits, a name no file has: open(2) with O_EXCL and mode 0600, as
 * perf creates perf.data: a recording can hold another user's stack bytes
 * (SAMPLE records of --call-graph dwarf) and their command lines, so only
 * its owner reads it. The letters come from getrandom(2) (the clock, a
 * counter and where the name lies in memory where it has no entropy yet);
 * a name taken meanwhile is tried again with others: O_EXCL makes a
 * guessed or planted name a retry, never a file of someone else's
 * written. Returns the fd or -errno. */
void md_temp_letters(char *name)
{
	static const char set[] = "abcdefghijklmnopqrstuvwxyz"
				  "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	static _Atomic uint64_t counter;
	char *x = name + strlen(name) - 6;
	uint64_t v = clock_ns(CLOCK_MONOTONIC) ^
		     (uint64_t)(uintptr_t)name << 16 ^ ++counter << 40;
	uint64_t r = 0;

	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) == sizeof(r))
		v ^= r;
	v *= 0x9e3779b97f4a7c15ull; /* spread the bits to the top */
	for (int i = 0; i < 6; i++, v <<= 6)
		x[i] = set[(v >> 58) % (sizeof(set) - 1)];
}

/* The file of name (the whole path, for messages) created in directory
 * dfd, where it is name + base. */
int md_temp_create(int dfd, char *name, size_t base)
{
	for (int tries = 0; tries < 100; tries++) {
		int fd;

		md_temp_letters(name);
		fd = openat(dfd, name + base,
			    O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd >= 0 || errno != EEXIST)
			return fd >= 0 ? fd : -errno;
	}
	return -EEXIST;
}

/* An unnamed file (O_TMPFILE, mode 0600 as md_temp_create's) in directory
 * dfd, for MD_WRITER_UNNAMED. Returns the fd or -errno (EOPNOTSUPP: its
 * file system has none). */
static int unnamed_create(int dfd)
{
	int fd = openat(dfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);

	return fd < 0 ? -errno : fd;
}

/* The file systems whose files are the kernel's settings and state, not
 * data: a recording never replaces one (no temporary file can be made
 * there either, so the open failed with ENOENT or EACCES, naming the
 * temporary file's error for -o's). */
static const unsigned long kernfs_magic[] = {
    PROC_SUPER_MAGIC, SYSFS_MAGIC,   CGROUP_SUPER_MAGIC, CGROUP2_SUPER_MAGIC,
    DEBUGFS_MAGIC,    TRACEFS_MAGIC, SECURITYFS_MAGIC,	 BPF_FS_MAGIC,
};

/* Whether directory dfd lies on one of kernfs_magic's file systems. */
static bool in_kernfs(int dfd)
{
	struct statfs sf;

	if (fstatfs(dfd, &sf) < 0)
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(kernfs_magic); i++)
		if ((unsigned long)sf.f_type == kernfs_magic[i])
			return true;
	return false;
}

/* Create the file records are written to, for path whose directory is
 * dfd (path_dir_open()) and whose last component is path + base: a
 * temporary file beside path (mode 0600: md_temp_create()), or, with
 * MD_WRITER_SPECIAL, path itself when it is a pipe, device or socket, the
 * one a chain of symlinks at path ends at (writer_link()), or memsz's own
 * descriptor such a chain names (/dev/stdout). A regular file, a dangling
 * symlink or one that leads to a regular file gets the temporary file
 * (renamed over path, the link replaced, not followed); a link that
 * leads to a link of /proc never does. Returns the fd and *tmp (NULL when
 * writing path itself), or a negative code. */
int md_writer_create(int dfd, const char *path, size_t base, unsigned flags,
		     char **tmp, bool *unnamed)
{
	const char *name = path + base;
	struct stat lst;
	int fd;

	*tmp = NULL;
	*unnamed = false;
	if (!*name)
		return -EISDIR; /* path ends in a slash */
	if (!fstatat(dfd, name, &lst, AT_SYMLINK_NOFOLLOW) &&
	    !S_ISREG(lst.st_mode)) {
		if (S_ISDIR(lst.st_mode))
			return -EISDIR;
		fd = S_ISLNK(lst.st_mode)	 ? writer_link(dfd, name, flags)
		     : flags & MD_WRITER_SPECIAL ? open_special(dfd, name, &lst)
						 : -MEMSZ_ESPECIAL;
		if (fd != REPLACE)
			return fd;
	}
	if (in_kernfs(dfd))
		return -MEMSZ_EKERNFS;
	if (flags & MD_WRITER_UNNAMED) {
		fd = unnamed_create(dfd);
		if (fd >= 0) {
			*tmp = xasprintf("/proc/self/fd/%d", fd);
			*unnamed = true;
			return fd;
		}
		/* no O_TMPFILE there: a named temporary file */
	}
	*tmp = xasprintf("%s.tmp.XXXXXX", path);
	fd = md_temp_create(dfd, *tmp, base);
	if (fd < 0) {
		free(*tmp);
		*tmp = NULL;
	}
	return fd;
}
