/* SPDX-License-Identifier: GPL-2.0-or-later */
/* util.h — allocation, error codes and small helpers shared by every layer.
 *
 * Error convention: library functions return 0 (or a count) on success and a
 * negative code on failure: either -errno, or one of the MEMSZ_E* codes below
 * (all below -MEMSZ_EBASE, so they never collide with errno values).
 * Where the code alone cannot say what went wrong, the function also gives
 * one sentence, malloc'd, with no "memsz:" prefix: through a char **msg
 * argument (the caller frees it), or, for an object that lives across
 * calls (struct session), from its *_why() accessor. The command prints it.
 * Library code never prints and never exits; only cmd_* functions talk to the
 * user. Allocation failure is the one exception: x*alloc abort with a message,
 * as git's do, because no caller can do anything useful about it.
 */
#ifndef MEMSZ_UTIL_UTIL_H
#define MEMSZ_UTIL_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define MEMSZ_EBASE 4096

enum memsz_error {
	MEMSZ_ENOTELF = MEMSZ_EBASE + 1, /* not an ELF file */
	MEMSZ_ETRUNC,			 /* file ends inside a structure */
	MEMSZ_EBADELF,			 /* ELF header inconsistent */
	MEMSZ_EBADPHDR,			 /* program header table corrupt */
	MEMSZ_EBADSHDR,			 /* section header table corrupt */
	MEMSZ_EBADSTRTAB,		 /* string table corrupt */
	MEMSZ_EBADSYM,			 /* symbol table corrupt */
	MEMSZ_EBADDATA,			 /* memsz.data: malformed record */
	MEMSZ_EBADMAGIC,		 /* memsz.data: wrong magic */
	MEMSZ_EVERSION,			 /* memsz.data: newer format version */
	MEMSZ_EUSAGE,			 /* bad argument from the user */
	MEMSZ_ENOTSUP,			 /* kernel or file lacks a feature */
	MEMSZ_ENOLIB,	   /* a library loaded on use is missing */
	MEMSZ_ESPECIAL,	   /* a pipe or device not asked for */
	MEMSZ_EUNSAFELINK, /* another user's link, sticky dir */
	MEMSZ_EBADAR,	   /* archive member header corrupt */
	MEMSZ_ETHINAR,	   /* thin archive: members not in it */
	MEMSZ_EDIFDOWN,	   /* debuginfod servers failed earlier */
	MEMSZ_ENOTREG,	   /* a FIFO, device or socket: not read */
	MEMSZ_EFDLINK,	   /* -o leads to a link of /proc */
	MEMSZ_EMIXERR,	   /* -o's file is also memsz's stderr */
	MEMSZ_EMIXCMD,	   /* -o's file is also CMD's stdout/err */
	MEMSZ_ESTDCLOSED,  /* -o's descriptor was closed at start */
	MEMSZ_ENOTWRITE,   /* -o's descriptor is not open for writing */
	MEMSZ_EKERNFS,	   /* -o names a file of /proc, /sys, cgroupfs */
	MEMSZ_ERINGSMALL,  /* a sample ring holds under two samples */
	MEMSZ_EBADDWP,	   /* a .dwp's unit index is corrupt */
	MEMSZ_EDWPNOINFO,  /* a .dwp without .debug_info.dwo */
	MEMSZ_EDWPZ,	   /* a .dwp's DWARF sections are compressed */
	MEMSZ_EDWPOVERLAP, /* two of a .dwp's DWARF sections overlap */
	MEMSZ_EENDED,	   /* memsz.data: a record after its END record */
	MEMSZ_EMLOCK,	   /* perf rings over the locked-memory limit */
	MEMSZ_ESTALLED,	   /* -o's reader stopped reading; a stop signal */
	MEMSZ_ELAST
};

/* The next line of the text [*p, end) as [*ls, *le) (without its
 * newline), *p moved past it; false at the end. */
bool text_next_line(const char **p, const char *end, const char **ls,
		    const char **le);

/* Open path (relative to dfd, or AT_FDCWD) for reading only if it is a
 * regular file, *st its stat: a path a process memsz does not trust
 * names (a target's files, a map_files link) may be swapped for a FIFO
 * that would block open() or a device node whose open has effects. It
 * is opened O_PATH (the file itself is not opened), checked, then
 * reopened through /proc/self/fd, which gives the same inode whatever the
 * path names by then (without /proc, by its path again, and kept only if
 * it is the same inode: a FIFO swapped in meanwhile is refused, though a
 * device node swapped in then is opened). The descriptor blocks on reads
 * as open()'s would. Returns the descriptor or -errno (-EINVAL: not a regular
 * file). */
struct stat;
int open_regular_at(int dfd, const char *path, struct stat *st);
/* Open the regular file st that the O_PATH descriptor pfd holds, for
 * reading without blocking (O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK,
 * and flags: O_NOATIME, say), through /proc/self/fd: the inode pfd holds,
 * whatever its path names by then, checked to be st. Returns the
 * descriptor or -errno (-EINVAL: not st, /proc/self/fd not the
 * kernel's). */
int reopen_path_fd(int pfd, int flags, const struct stat *st);

/* Open the directory of path (all but its last component; the working
 * directory for a bare name) as an O_PATH descriptor, for *at() calls
 * that must reach the directory checked and nothing swapped in after:
 * it is resolved one component at a time from / or the working
 * directory under the kernel's protected_symlinks rule, applied whatever
 * the sysctl says, so that the check and the resolution are one walk: a
 * symlink met on the way (in path or in a link's target) is not followed
 * when it sits in a sticky world-writable directory and is owned by
 * neither the effective user nor that directory's owner (another user's
 * link in /tmp). *base: path's last component (in path; "" when path
 * ends in a slash). Returns the descriptor (caller closes), or
 * -MEMSZ_EUNSAFELINK, or -errno (ENOENT, ENOTDIR, ELOOP, EACCES...). */
int path_dir_open(const char *path, const char **base);
/* path_dir_open() of path relative to directory at (AT_FDCWD: the
 * working directory) when it is relative. */
int path_dir_openat(int at, const char *path, const char **base);
/* Where a symlink leads (path_link_walk()): the directory and name the
 * chain ends at, or the descriptor of memsz it names. */
struct path_link {
	int dfd;     /* directory of name (caller: path_link_free()) */
	char *name;  /* the name the chain ends at: no link (or none) */
	int fd;	     /* memsz's own descriptor N (/proc/self/fd/N), or -1 */
	bool unsafe; /* a link of the chain another user planted */
};
/* Follow the symlink name in directory dfd a link at a time (40 at most),
 * each target's directory resolved as path_dir_open() does, each link
 * checked by symlink_followable() (one that fails sets pl->unsafe; its
 * target is read, never opened through, to tell where it leads). Returns
 * 0 with pl->dfd and pl->name the first name of the chain that is no link
 * (it may not exist: a dangling chain); 1 when the chain reaches a link of
 * a proc file system (a file descriptor's: /dev/stdout, /proc/PID/fd/N;
 * or another), or ends at a name of one (/proc/meminfo), or has a target
 * under /proc/ that leads nowhere (as where no /proc is mounted), pl->fd
 * then N when it is memsz's own descriptor's link (/proc/self/fd/N,
 * /proc/thread-self/fd/N, /proc/<its pid>/fd/N: the directory told by
 * device and inode), else -1; or a negative code (-ELOOP, what
 * path_dir_open() returns: pl then freed). */
int path_link_walk(int dfd, const char *name, struct path_link *pl);
void path_link_free(struct path_link *pl);
/* Whether path_link_walk() of name in dfd reaches a link of /proc. */
bool path_proc_link(int dfd, const char *name);
/* The standard descriptors memsz found closed at start and put /dev/null
 * on (main()): std_fd_set_nulled() says so of fd, std_fd_nulled() tells. */
void std_fd_set_nulled(int fd);
bool std_fd_nulled(int fd);
/* Whether a symlink (lst its lstat) in directory dfd (an fd, O_PATH
 * will do) may be followed under the kernel's protected_symlinks rule
 * (fs/namei.c may_follow_link()), applied whatever the sysctl says: not
 * when it sits in a sticky world-writable directory and is owned by
 * neither the effective user nor the directory's owner; not when dfd
 * cannot be looked at. */
bool symlink_followable(int dfd, const struct stat *lst);

/* Read the regular file at path (not through a symlink in its last
 * component) whole, at most max bytes, into a new NUL-terminated buffer
 * *out (caller frees): /proc, sysfs and cgroupfs files, whose size stat
 * does not tell. Returns its length, or -errno (*out NULL). */
ssize_t read_small_file(const char *path, size_t max, char **out);
/* read_small_file() of path relative to the directory dfd (AT_FDCWD: as
 * read_small_file()): the files of one directory read without walking
 * its path again for each. */
ssize_t read_small_file_at(int dfd, const char *path, size_t max, char **out);
/* read_small_file() of the open file fd, from its offset 0 by pread(2)
 * (its offset unchanged): a /proc file read again through one
 * descriptor, its text made anew at each read from 0. */
ssize_t read_small_fd(int fd, size_t max, char **out);

/* Message for a code returned by a library function (negative errno or
 * -MEMSZ_E*). Never NULL; static storage. */
const char *memsz_strerror(int err);

/* Allocation that cannot fail: on out-of-memory print one line and abort. */
void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* A large buffer that is written whole (an inflated section): n bytes
 * of their own anonymous mapping, whose 2 MiB-aligned part the kernel is
 * asked to back with transparent huge pages (madvise mode): a fault per
 * 2 MiB instead of per 4 KiB page (libc's debug file: 7 MiB inflated,
 * 1 800 faults); below 2 MiB, malloc's. The mapping covers n bytes only,
 * so the resident size is what is touched, as with malloc. Free with
 * xfree_huge(p, n); NULL is fine there. try_malloc_huge() returns NULL
 * where xmalloc_huge() would end the process (a size taken from a file:
 * the caller falls back). */
void *try_malloc_huge(size_t n);
void *xmalloc_huge(size_t n);
void xfree_huge(void *p, size_t n);
/* Ask the kernel to back the 2 MiB-aligned part of [p, p + n), memory
 * not touched yet, with transparent huge pages (madvise mode): a fault
 * per 2 MiB. Advice only; nothing where no aligned 2 MiB fits. */
void advise_huge(void *p, size_t n);
/* Make the pages of [p, p + n), memory about to be written, resident in
 * one call (MADV_POPULATE_WRITE, Linux 5.14) rather than a fault each
 * (~2 us a 4 KiB page here, a third less populated). Advice only: on an
 * older kernel the pages fault as they are written. */
void prefault_write(void *p, size_t n);
/* How many bytes to prefault_write() ahead of an array filled in order
 * that holds used bytes: a quarter of that, from 16 KiB to 256 KiB, so
 * that a small array leaves little resident and unused. */
static inline size_t prefault_ahead(size_t used)
{
	size_t n = used / 4;

	return n < 16384 ? 16384 : n > 262144 ? 262144 : n;
}
/* Allocating sprintf; caller frees. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* xasprintf() with a va_list (ap is consumed); caller frees. */
char *xvasprintf(const char *fmt, va_list ap)
    __attribute__((format(printf, 1, 0)));

/* Grow *arr (element size elem) so that it holds at least need elements;
 * *cap is updated. Amortised doubling. */
void xgrow(void *arr, size_t *cap, size_t need, size_t elem);
/* xgrow() for an array that may grow big and is filled as it grows (a
 * map's pending adds): once it holds 2 MiB, each new block is 2 MiB-aligned
 * and the part the old contents are copied to is asked for transparent
 * huge pages before it is touched (a fault per 2 MiB, not per 4 KiB); the
 * rest, which the array may never fill, stays in small pages, so no more
 * is resident than is used. Below 2 MiB, xgrow()'s. Freed with free(). */
void xgrow_huge(void *arr, size_t *cap, size_t need, size_t elem);
/* A block of n bytes freed with free(): from 1 MiB on rounded up to whole
 * 2 MiB pages (*got: the usable size), 2 MiB-aligned and advised as in
 * xgrow_huge(); below, xmalloc()'s (*got = n). For memory written
 * densely from its start: the first touch of a 2 MiB page makes all of it
 * resident. */
void *xmalloc_huge_aligned(size_t n, size_t *got);

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

/* 2^64 divided by the golden ratio, odd: multiplying a key by it spreads
 * neighbouring keys over the high bits (Fibonacci hashing). */
#define HASH_GOLDEN_U64 0x9e3779b97f4a7c15ULL

/* -1, 0 or 1 as a is below, equal to or above b: the step of a qsort()
 * comparator (a difference would overflow an int). */
static inline int u64_cmp(uint64_t a, uint64_t b)
{
	return (a > b) - (a < b);
}

/* qsort() comparator for an array of uint64_t, ascending. Reads only the
 * first uint64_t of each element, so it also sorts records by a leading
 * uint64_t key. */
int u64_sort_cmp(const void *a, const void *b);

/* Sort keys k[0, n) by their bits from 32 on (value << 32 | index),
 * max the or of those values; stable: keys of equal high bits keep their
 * order. */
void u64_sort_high(uint64_t *k, size_t n, uint64_t max);
/* u64_sort_high() through buf, n keys of scratch the caller has (not
 * overlapping k), instead of an array allocated (and faulted in) for it. */
void u64_sort_high_tmp(uint64_t *k, size_t n, uint64_t max, uint64_t *buf);

/* Human-readable size with binary units as Bloaty prints them
 * ("0", "812", "1.50Ki", "23.4Mi"). buf must hold 16 bytes. Returns buf. */
char *fmt_human(char *buf, size_t len, double bytes);

/* Parse a comma-separated key list ("sections,symbols") against nnames
 * names, name(i) giving the i-th; out[] receives the indexes (at most max).
 * Returns the count, or -1 with *bad a malloc'd copy of the first key that
 * is unknown or repeated, or -E2BIG with *bad the first past max (caller
 * frees). */
int keylist_parse(const char *spec, const char *(*name)(int), int nnames,
		  int *out, size_t max, char **bad);

#define NSEC_PER_SEC 1000000000L
#define NSEC_PER_MSEC 1000000L

/* Nanoseconds of clock id (CLOCK_MONOTONIC, CLOCK_REALTIME, ...). */
uint64_t clock_ns(int clock_id);
/* clock_ns(CLOCK_MONOTONIC): the clock perf events are stamped with. */
uint64_t mono_ns(void);

/* Program name used in messages ("memsz"). */
extern const char *memsz_progname;

/* Print "memsz: <msg>\n" on stderr. Only cmd_* code may call these. */
void memsz_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A command that took a signal asking it to stop (SIGINT: Ctrl-C) and
 * then finished what it could asks that memsz end by that signal, as perf
 * record does: a shell then stops the script or loop that ran it, which
 * it would not for an exit status of 128 + the signal. */
void memsz_die_by_signal(int sig);
/* ret, memsz's exit status, or death by the signal asked for above (its
 * default action restored and unblocked; stdio flushed first). */
int memsz_exit(int ret);
void memsz_warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Parse a non-negative decimal integer that must fill the whole string.
 * Returns 0 or -EINVAL / -ERANGE. */
int parse_u64(const char *s, uint64_t *out);

/* name made absolute with dir when relative and dir is not NULL, then
 * "." and ".." components and repeated slashes removed lexically ("./csu"
 * + "../sysdeps/x.c" -> "sysdeps/x.c"; a ".." with nothing left to remove
 * stays). Returns a malloc'd string. (elf/dwarf.c's unit and line file
 * names.) */
char *path_norm(const char *dir, const char *name);

#endif
