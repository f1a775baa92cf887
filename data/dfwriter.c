// SPDX-License-Identifier: GPL-2.0-or-later
/* dfwriter.c — the memsz.data writer: the file (a temporary file renamed
 * into place on commit), one write() per record (or per batch of them,
 * MD_WRITER_BATCH), sample batches packed with zstd, and the END record. What
 * each record holds is its row's encoder (dfrecords.c). See datafile.h. */
#include "config.h"

#include "data/crc32c.h"
#include "data/dfcodec.h"
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

/* SIGALRM of the timer that interrupts a write (wait_arm): caught, so
 * that the write returns (EINTR, or the bytes written), no SA_RESTART. */
static void tick_caught(int sig)
{
	(void)sig;
}

/* Start (on) or stop the timer of w that interrupts a write every
 * MD_WAIT_TICK_MS, made the first time (SIGALRM caught, unblocked in this
 * thread). False if it cannot be: the write then waits as before. */
static bool wait_arm(struct md_writer *w, bool on)
{
	struct itimerspec its = {0};

	/* the timer interrupts the thread that made it, and no other */
	if (w->has_timer && w->timer_tid != gettid())
		return false;
	if (!w->has_timer) {
		struct sigevent ev = {.sigev_notify = SIGEV_THREAD_ID,
				      .sigev_signo = SIGALRM};
		struct sigaction sa = {.sa_handler = tick_caught};
		sigset_t alrm;

		if (!on)
			return false;
		ev._sigev_un._tid = gettid(); /* sigev_notify_thread_id */
		if (sigaction(SIGALRM, &sa, &w->old_alrm) < 0)
			return false;
		if (timer_create(CLOCK_MONOTONIC, &ev, &w->timer) < 0) {
			sigaction(SIGALRM, &w->old_alrm, NULL);
			return false;
		}
		sigemptyset(&alrm);
		sigaddset(&alrm, SIGALRM);
		pthread_sigmask(SIG_UNBLOCK, &alrm, NULL);
		w->has_timer = true;
		w->timer_tid = gettid();
	}
	if (on)
		its.it_value = its.it_interval =
		    (struct timespec){.tv_nsec = MD_WAIT_TICK_MS * 1000000L};
	return timer_settime(w->timer, 0, &its, NULL) == 0;
}

/* Write the n bytes of p to fd, *done of them written. A descriptor
 * memsz was given may be non-blocking (-o /dev/stdout: a dup shares its
 * flags with the parent's, an event loop's pipe): it waits until the
 * reader makes room, as a blocking write would. For a direct output of
 * w (NULL: none) with a wait hook, a write that waits is interrupted
 * every tick and the hook asked whether to go on (md_writer_set_wait):
 * a reader that stopped reading must not make memsz deaf to SIGINT while
 * the targets it holds wait for it. */
static int write_all(struct md_writer *w, int fd, const uint8_t *p, size_t n,
		     size_t *done)
{
	bool watch = w && w->wait && w->direct && n && wait_arm(w, true);
	uint64_t last = watch ? clock_ns(CLOCK_MONOTONIC) : 0;
	int ret = 0;
	ssize_t k;

	*done = 0;
	while (*done < n && !ret) {
		k = write(fd, p + *done, n - *done);
		if (k > 0) {
			*done += (size_t)k;
			if (watch)
				last = clock_ns(CLOCK_MONOTONIC);
		} else if (k == 0) {
			ret = -ENOSPC;
		} else if (errno == EAGAIN || errno == EWOULDBLOCK) {
			if (poll(&(struct pollfd){.fd = fd, .events = POLLOUT},
				 1, -1) < 0 &&
			    errno != EINTR)
				ret = -errno;
		} else if (errno != EINTR) {
			ret = -errno;
		}
		/* cut short by the tick (EINTR, or part written) */
		if (!ret && watch && *done < n)
			ret = w->wait(w->wait_arg,
				      clock_ns(CLOCK_MONOTONIC) - last);
	}
	if (watch)
		wait_arm(w, false);
	return ret;
}

/* After a failed write of the batch p of nrec whole records of which
 * done bytes reached the file: the bytes of the whole records among them
 * (*n of them), the partial one after them cut off again (best effort),
 * the file offset left at their end. nrec 0: nothing is kept. */
static size_t keep_whole(struct md_writer *w, const uint8_t *p, uint64_t nrec,
			 size_t done, uint64_t *n)
{
	size_t kept = 0;

	*n = 0;
	while (*n < nrec && kept + get_u64(p + kept + REC_SIZE) <= done) {
		kept += get_u64(p + kept + REC_SIZE);
		(*n)++;
	}
	if (done > kept && ftruncate(w->fd, (off_t)(w->off + kept)) == 0)
		(void)lseek(w->fd, (off_t)(w->off + kept), SEEK_SET);
	return kept;
}

/* Write the records gathered in w->rb (MD_WRITER_BATCH), in one write.
 * On a failure the whole records that made it to the file stay, the
 * partial one after them is cut off again (best effort) and the writer
 * stays failed. */
static int records_flush(struct md_writer *w)
{
	size_t done, kept = 0;
	uint64_t n = 0;
	int ret;

	if (w->err || !w->rb.len)
		return w->err;
	ret = write_all(w, w->fd, w->rb.p, w->rb.len, &done);
	if (ret < 0) {
		kept = keep_whole(w, w->rb.p, w->nrb, done, &n);
		w->err = ret;
	}
	w->off += ret < 0 ? kept : w->rb.len;
	w->nrecords += ret < 0 ? n : w->nrb;
	w->rb.len = 0;
	w->nrb = 0;
	return ret;
}

/* Write the n bytes of p, the part of a record after those written
 * already (*done of them), adding what reaches the file to *done. */
static int write_part(struct md_writer *w, const uint8_t *p, size_t n,
		      size_t *done)
{
	size_t d;
	int ret = write_all(w, w->fd, p, n, &d);

	*done += d;
	return ret;
}

int md_rec_commit_tail(struct md_writer *w, enum md_rec_type type,
		       const uint8_t *tail, size_t n)
{
	static const uint8_t zero[8];
	size_t pad = (size_t)(-(w->b.len + n) & 7), size, done = 0;
	uint32_t crc;
	int ret;

	size = w->b.len + n + pad;
	put_u32(w->b.p + REC_TYPE, type);
	put_u32(w->b.p + REC_CRC, 0);
	put_u64(w->b.p + REC_SIZE, size);
	/* the crc word is zero while the CRC is computed */
	crc = md_crc32c(md_crc32c(md_record_crc(w->b.p, w->b.len), tail, n),
			zero, pad);
	put_u32(w->b.p + REC_CRC, crc);
	if ((w->batch || w->gather) && size < MD_RECORD_BATCH) {
		uint8_t *q = md_buf_grow(&w->rb, size);

		memcpy(q, w->b.p, w->b.len);
		if (n)
			memcpy(q + w->b.len, tail, n);
		w->nrb++;
		return w->rb.len >= MD_RECORD_BATCH ? records_flush(w) : 0;
	}
	/* a record of the batch size or more goes out on its own, after
	 * those held (not copied into the batch, which it would grow) */
	ret = records_flush(w);
	if (ret < 0)
		return ret;
	ret = write_part(w, w->b.p, w->b.len, &done);
	if (!ret && n)
		ret = write_part(w, tail, n, &done);
	if (!ret && pad)
		ret = write_part(w, zero, pad, &done);
	if (ret < 0) {
		if (done && ftruncate(w->fd, (off_t)w->off) == 0)
			(void)lseek(w->fd, (off_t)w->off, SEEK_SET);
		w->err = ret;
		return ret;
	}
	w->off += size;
	w->nrecords++;
	return 0;
}

int md_rec_commit(struct md_writer *w, enum md_rec_type type)
{
	md_buf_pad8(&w->b);
	return md_rec_commit_tail(w, type, NULL, 0);
}

/* Start a record: the header is reserved and filled by md_rec_commit.
 * None after the END record (-MEMSZ_EENDED, the file as it was): a
 * reader takes bytes after it for damage. */
int md_rec_begin(struct md_writer *w)
{
	if (!w)
		return -EINVAL;
	if (w->err)
		return w->err;
	if (w->ended)
		return -MEMSZ_EENDED;
	if (w->sb.len && md_samples_flush(w) < 0)
		return w->err;
	w->b.len = 0;
	md_buf_grow(&w->b, MD_REC_HDR);
	return 0;
}

/* The name in w's directory of a file named by path or by a name made
 * from path by a suffix (path.tmp.XXXXXX, path.old, path.partial). */
static const char *in_dir(const struct md_writer *w, const char *name)
{
	return name + w->base;
}

/* Link the unnamed file of w as dest (in w's directory), which must not
 * exist: through its descriptor (AT_EMPTY_PATH: before Linux 6.10 only
 * with CAP_DAC_READ_SEARCH, ENOENT without; since 6.10 also for a file
 * opened with the caller's credentials, as this one was), else its
 * /proc/self/fd link followed (which needs /proc). 0, or -1 and errno
 * (EEXIST: dest exists). */
static int unnamed_linkat(const struct md_writer *w, const char *dest)
{
	if (!linkat(w->fd, "", w->dfd, dest, AT_EMPTY_PATH))
		return 0;
	if (errno != ENOENT && errno != EPERM)
		return -1;
	return linkat(AT_FDCWD, w->tmp, w->dfd, dest, AT_SYMLINK_FOLLOW);
}

/* Copy from offset in of fd to the end into out, at its offset: 0 or -1
 * and errno. */
static ssize_t copy_reads(int fd, loff_t in, int out)
{
	char buf[64 << 10];
	size_t done;
	ssize_t n;

	while ((n = pread(fd, buf, sizeof(buf), in)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || write_all(NULL, out, (const uint8_t *)buf,
				       (size_t)n, &done) < 0)
			return -1;
		in += n;
	}
	return 0;
}

/* Copy the bytes of the unnamed file of w into a new file at tmp (a name
 * made from path, ending in six X, chosen as md_temp_create chooses), which
 * then takes its place in w, for unnamed_name() where no link of it can
 * be made. 0 or -errno (w as it was, nothing left at tmp). */
static int unnamed_copy(struct md_writer *w, char *tmp)
{
	struct stat a, b;
	loff_t in = 0;
	ssize_t n;
	int fd = md_temp_create(w->dfd, tmp, w->base);

	if (fd < 0)
		return fd;
	do
		n = copy_file_range(w->fd, &in, fd, NULL, 1 << 30, 0);
	while (n > 0 || (n < 0 && errno == EINTR));
	/* no copy_file_range here (an old kernel, a seccomp filter, a file
	 * system that refuses it): read and write */
	if (n < 0 && errno != ENOSPC && errno != EIO && errno != EDQUOT)
		n = copy_reads(w->fd, in, fd);
	if (n < 0 || fstat(fd, &a) < 0 || fstat(w->fd, &b) < 0 ||
	    a.st_size != b.st_size) {
		int ret = n < 0 ? -errno : -EIO;

		close(fd);
		unlinkat(w->dfd, in_dir(w, tmp), 0);
		return ret;
	}
	close(w->fd);
	w->fd = fd;
	return 0;
}

/* Give the unnamed file of w a temporary name beside its path
 * (path.tmp.XXXXXX): a link of it, else a copy of its bytes. w is a
 * named writer from then on, so that whatever fails after (a rename over
 * path, to path.partial) leaves the recording where a named one is left,
 * never unlinked: a file linked and unlinked again cannot be linked
 * anew. 0 or -errno (w unnamed still). */
static int unnamed_name(struct md_writer *w)
{
	char *tmp = xasprintf("%s.tmp.XXXXXX", w->path);
	int ret = -EEXIST;

	for (int tries = 0; tries < 100 && ret == -EEXIST; tries++) {
		md_temp_letters(tmp);
		ret = unnamed_linkat(w, in_dir(w, tmp)) ? -errno : 0;
	}
	if (ret < 0)
		ret = unnamed_copy(w, tmp);
	if (ret < 0) {
		free(tmp);
		return ret;
	}
	free(w->tmp);
	w->tmp = tmp;
	w->unnamed = false;
	return 0;
}

int md_writer_open(const char *path, struct md_writer **out)
{
	return md_writer_open_flags(path, 0, out);
}

int md_writer_open_flags(const char *path, unsigned flags,
			 struct md_writer **out)
{
	return md_writer_open_wait(path, flags, NULL, NULL, out);
}

int md_writer_open_wait(const char *path, unsigned flags,
			int (*wait)(void *arg, uint64_t stalled_ns), void *arg,
			struct md_writer **out)
{
	struct md_writer *w;
	uint8_t hdr[MD_HEADER_SIZE] = {0};
	const char *name;
	size_t done, base;
	char *tmp;
	bool unnamed;
	int dfd, fd, ret;

	/* the directory resolved once, no planted link on the way: what
	 * follows is done in it */
	dfd = path_dir_open(path, &name);
	if (dfd < 0)
		return dfd;
	base = (size_t)(name - path);
	fd = md_writer_create(dfd, path, base, flags, &tmp, &unnamed);
	if (fd < 0) {
		close(dfd);
		return fd;
	}
	memcpy(hdr + HDR_MAGIC, MD_MAGIC, MD_MAGIC_LEN);
	put_u32(hdr + HDR_VERSION, flags & MD_WRITER_V5 ? 5 : MD_VERSION);
	put_u32(hdr + HDR_HEADER_SIZE, MD_HEADER_SIZE);
	put_u64(hdr + HDR_FLAGS, MD_F_CRC | MD_F_END);
	put_u64(hdr + HDR_REALTIME, clock_ns(CLOCK_REALTIME));
	put_u64(hdr + HDR_MONO, clock_ns(CLOCK_MONOTONIC));
	put_u32(hdr + HDR_PAGE_SIZE, (uint32_t)sysconf(_SC_PAGESIZE));
	put_u32(hdr + HDR_CRC, md_header_crc(hdr, MD_HEADER_SIZE));
	w = xcalloc(1, sizeof(*w));
	w->fd = fd;
	w->dfd = dfd;
	w->base = base;
	w->path = xstrdup(path);
	w->tmp = tmp;
	w->direct = !tmp;
	w->unnamed = unnamed;
	w->wait = wait;
	w->wait_arg = arg;
	/* the header goes out as every record does: a direct output whose
	 * reader reads nothing stalls here already, and the hook must see
	 * it (the stop signals are blocked by then) */
	ret = write_all(w, fd, hdr, sizeof(hdr), &done);
	if (ret < 0) {
		if (w->has_timer) {
			timer_delete(w->timer);
			sigaction(SIGALRM, &w->old_alrm, NULL);
		}
		close(fd);
		if (tmp && !unnamed)
			unlinkat(dfd, tmp + base, 0);
		close(dfd);
		free(tmp);
		free(w->path);
		free(w);
		return ret;
	}
	w->off = MD_HEADER_SIZE;
	w->version = flags & MD_WRITER_V5 ? 5 : MD_VERSION;
	w->page_shift =
	    (unsigned)__builtin_ctzl((unsigned long)sysconf(_SC_PAGESIZE));
	w->compress = true;
	w->batch = flags & MD_WRITER_BATCH;
	*out = w;
	return 0;
}

/* The batched samples, then the END record (the file is complete), once,
 * unless a write failed. */
static void writer_end(struct md_writer *w)
{
	struct md_record rec = {.type = MD_REC_END};

	md_samples_flush(w);
	if (w->ended || w->err)
		return;
	rec.u.end = (struct md_end){.time = clock_ns(CLOCK_MONOTONIC),
				    .nrecords = w->nrecords,
				    .nsamples = w->nsamples};
	if (md_write_record(w, &rec) == 0 && records_flush(w) == 0)
		w->ended = true;
}

int md_write_record(struct md_writer *w, const struct md_record *rec)
{
	const struct md_rectype *t = rec ? md_rectype_of(rec->type) : NULL;
	int ret;

	if (!t || !t->encode)
		return -EINVAL;
	ret = md_rec_begin(w);
	if (ret < 0)
		return ret;
	t->encode(&w->b, rec);
	return md_rec_commit(w, rec->type);
}

/* fsync the regular file at path (in w's directory), which is about to
 * become path.old (a file that is no longer regular is left alone: the
 * rename moves what is there). 0 or -errno. */
static int sync_old(const struct md_writer *w)
{
	struct stat st;
	int fd = open_regular_at(w->dfd, in_dir(w, w->path), &st);
	int ret = 0;

	if (fd < 0)
		return 0;
	if (fsync(fd) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/* Rename from to to, both named from path (in_dir()), in w's directory.
 * 0 or -errno. */
static int dir_rename(const struct md_writer *w, const char *from,
		      const char *to)
{
	return renameat(w->dfd, in_dir(w, from), w->dfd, in_dir(w, to)) ? -errno
									: 0;
}

/* Make old (path.old) a hard link of the regular file at path, replacing
 * what old names: a link under a name no file has (old.XXXXXX, chosen as
 * md_temp_create chooses) renamed over old. path names the previous
 * recording all along, and old its own previous file until the rename,
 * this one after it: a memsz killed at any point leaves path readable
 * (renaming path to old first left no path until the second rename).
 * 0; 1 when the file system makes no hard link there (EPERM, EMLINK,
 * EOPNOTSUPP: nothing done, path is to be renamed to old instead); or
 * -errno (EISDIR: old is a directory), the link removed again. */
static int link_old(const struct md_writer *w, const char *old)
{
	char *tmp = xasprintf("%s.XXXXXX", old);
	int ret = -EEXIST;

	for (int tries = 0; tries < 100 && ret == -EEXIST; tries++) {
		md_temp_letters(tmp);
		ret = linkat(w->dfd, in_dir(w, w->path), w->dfd, in_dir(w, tmp),
			     0)
			  ? -errno
			  : 0;
	}
	if (ret == -EPERM || ret == -EMLINK || ret == -EOPNOTSUPP) {
		free(tmp);
		return 1;
	}
	if (ret < 0) {
		free(tmp);
		return ret;
	}
	ret = dir_rename(w, tmp, old);
	/* gone unless the rename failed, or did nothing: old was a link of
	 * path already (rename(2) leaves both names then) */
	(void)unlinkat(w->dfd, in_dir(w, tmp), 0);
	free(tmp);
	return ret;
}

/* Rename from to to in w's directory unless to names something: 0,
 * -EEXIST (nothing renamed) or -errno. A file system without
 * RENAME_NOREPLACE gets a look first (a name made between the look and
 * the rename is then replaced). */
static int dir_rename_new(const struct md_writer *w, const char *from,
			  const char *to)
{
	struct stat st;

	if (!renameat2(w->dfd, in_dir(w, from), w->dfd, in_dir(w, to),
		       RENAME_NOREPLACE))
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -errno;
	if (!fstatat(w->dfd, in_dir(w, to), &st, AT_SYMLINK_NOFOLLOW))
		return -EEXIST;
	return dir_rename(w, from, to);
}

/* Whether path names something in w's directory (not followed), *st its
 * lstat. */
static bool path_exists(const struct md_writer *w, struct stat *st)
{
	return !fstatat(w->dfd, in_dir(w, w->path), st, AT_SYMLINK_NOFOLLOW);
}

int md_writer_commit(struct md_writer *w)
{
	struct stat st;
	bool exists, moved = false;
	char *old = NULL;
	int ret;

	if (!w)
		return -EINVAL;
	if (w->committed)
		return 0;
	writer_end(w);
	if (w->err)
		return w->err;
	if (!w->tmp) {
		w->committed = true;
		return 0;
	}
	/* Where path names something (a recording, a link to one), the data
	 * must be on disk before the name points at it, or a crash could
	 * leave an empty file where the old recording was; and a recording
	 * moved to path.old is synced first too (one written to a new name
	 * was left to writeback; syncing one already written back is
	 * cheap). Where path names nothing (or an empty file), no recording
	 * is replaced: a crash can only leave path empty or cut short, as a
	 * crash while recording leaves it, which readers say; the fsync (a
	 * tenth of a small one-shot's CPU) is left to the kernel's writeback,
	 * as perf leaves it. */
	exists = path_exists(w, &st);
	/* an unnamed file becomes path with one link where path is free;
	 * else it is named first and committed as a named one is (path
	 * looked at again: it may have been made meanwhile) */
	if (w->unnamed && !exists) {
		if (!unnamed_linkat(w, in_dir(w, w->path))) {
			w->committed = true;
			return 0;
		}
		exists = path_exists(w, &st);
	}
	if (w->unnamed && (ret = unnamed_name(w)) < 0)
		return w->err = ret;
	if (exists && !(S_ISREG(st.st_mode) && st.st_size == 0) &&
	    fsync(w->fd) < 0)
		return w->err = -errno;
	if (exists && S_ISREG(st.st_mode) && st.st_size > 0) {
		ret = sync_old(w);
		if (ret < 0)
			return w->err = ret;
		old = xasprintf("%s.old", w->path);
		/* path.old a link of path, then the new recording renamed
		 * over path: path is never missing; where no hard link can
		 * be made, path is renamed to path.old first */
		ret = link_old(w, old);
		moved = ret == 1;
		if (moved)
			ret = dir_rename(w, w->path, old);
		if (ret < 0) {
			w->err_path = old; /* the error is about it */
			return w->err = ret;
		}
	}
	ret = dir_rename(w, w->tmp, w->path);
	/* the previous recording back where it was: path as it was */
	if (ret < 0 && moved)
		(void)dir_rename(w, old, w->path);
	free(old);
	if (ret < 0)
		return w->err = ret;
	w->committed = true;
	return 0;
}

bool md_writer_direct(const struct md_writer *w)
{
	return w->direct;
}

const char *md_writer_temp_path(const struct md_writer *w)
{
	return w->tmp && !w->committed ? w->tmp : w->path;
}

uint64_t md_writer_offset(const struct md_writer *w)
{
	return w->off + w->rb.len + w->sb.len;
}

void md_writer_set_compress(struct md_writer *w, bool on)
{
	w->compress = on;
}

void md_writer_set_wait(struct md_writer *w,
			int (*wait)(void *arg, uint64_t stalled_ns), void *arg)
{
	w->wait = wait;
	w->wait_arg = arg;
}

/* The batch in w->sb as a PACKED record in w->zb: a zstd frame, or the
 * records as they are if zstd would not make them much smaller (or
 * failed). */
static void pack_samples(struct md_writer *w)
{
	size_t bound = MAX(ZSTD_compressBound(w->sb.len), w->sb.len), z;
	uint32_t codec = MD_CODEC_ZSTD;
	uint8_t *q, *frame;

	/* Room, not zeroed: every byte up to the frame's padding is set
	 * below (zeroing 4 MiB per batch cost as much as the CRCs). */
	xgrow(&w->zb.p, &w->zb.cap, MD_REC_HDR + MD_PACKED_HDR + align8(bound),
	      1);
	q = w->zb.p;
	frame = q + MD_REC_HDR + MD_PACKED_HDR;
	if (!w->cctx)
		w->cctx = ZSTD_createCCtx();
	z = w->cctx ? ZSTD_compressCCtx(w->cctx, frame, bound, w->sb.p,
					w->sb.len, MD_ZSTD_LEVEL)
		    : 0;
	/* a frame that saves less than 1/16 is not worth unpacking */
	if (!w->cctx || ZSTD_isError(z) ||
	    align8(z) >= w->sb.len - w->sb.len / 16) {
		codec = MD_CODEC_NONE;
		z = w->sb.len;
		memcpy(frame, w->sb.p, z);
	}
	w->zb.len = MD_REC_HDR + MD_PACKED_HDR + align8(z);
	/* zstd may have used the bytes past the frame: the padding is 0 */
	memset(frame + z, 0, align8(z) - z);
	put_u32(q + REC_TYPE, MD_REC_PACKED);
	put_u32(q + REC_CRC, 0);
	put_u64(q + REC_SIZE, w->zb.len);
	put_u32(q + MD_REC_HDR + PK_CODEC, codec);
	put_u32(q + MD_REC_HDR + PK_NRECS, w->nsb);
	put_u64(q + MD_REC_HDR + PK_RAW_SIZE, w->sb.len);
	put_u64(q + MD_REC_HDR + PK_ZSIZE, z);
	put_u32(q + REC_CRC, md_record_crc(q, w->zb.len));
}

/* Write the batched SAMPLE records, as one PACKED record if the writer
 * compresses (md_writer_set_compress), else as they are. On a
 * failure the whole records that made it to the file stay (the partial
 * one after them is cut off again, best effort; a PACKED record is one
 * record), the others are counted lost and the writer stays failed. */
int md_samples_flush(struct md_writer *w)
{
	const struct md_buf *out = &w->sb;
	size_t done, kept = 0;
	uint64_t n = 0;
	int ret;

	/* the records gathered before these samples go first */
	if (records_flush(w) < 0 || !w->sb.len)
		return w->err;
	if (w->compress) {
		pack_samples(w);
		out = &w->zb;
		/* the next batch's samples cannot refer to this one's */
		stackref_reset(&w->stk);
	}
	ret = write_all(w, w->fd, out->p, out->len, &done);
	if (ret < 0) {
		/* a plain batch holds whole records: keep those written */
		kept =
		    keep_whole(w, out->p, out == &w->sb ? w->nsb : 0, done, &n);
		w->err = ret;
		w->samples_lost += w->nsb - n;
	} else {
		kept = out->len;
		n = w->nsb;
	}
	w->off += kept;
	w->nrecords += n;
	w->nsamples += n;
	w->sb.len = 0;
	w->nsb = 0;
	return ret;
}

int md_writer_gather(struct md_writer *w, bool on)
{
	if (!w)
		return -EINVAL;
	w->gather = on;
	/* a batching writer writes at its own pace (and at commit) */
	return on || w->batch ? w->err : records_flush(w);
}

int md_writer_flush(struct md_writer *w)
{
	if (!w)
		return -EINVAL;
	return md_samples_flush(w);
}

void md_writer_stats(const struct md_writer *w, struct md_writer_stats *st)
{
	st->records = w->nrecords;
	st->samples = w->nsamples;
	st->samples_lost = w->samples_lost;
	st->bytes = w->off;
}

int md_writer_keep(struct md_writer *w, const char *dest)
{
	int ret;

	/* dest is a name in path's directory, made from path */
	if (!w->tmp || w->committed || strncmp(dest, w->path, w->base) ||
	    strchr(dest + w->base, '/'))
		return -EINVAL;
	(void)records_flush(w);
	if (w->unnamed && (ret = unnamed_name(w)) < 0)
		return ret;
	ret = dir_rename_new(w, w->tmp, dest);
	if (ret == -EEXIST) /* an earlier run's, never replaced */
		return ret;
	if (ret < 0) {
		w->left = true; /* where it is, which close leaves */
		return 1;
	}
	free(w->tmp);
	w->tmp = NULL; /* close no longer removes it */
	return 0;
}

int md_writer_close(struct md_writer *w)
{
	int ret;

	if (!w)
		return 0;
	writer_end(w);
	ret = w->err;
	if (w->has_timer) {
		timer_delete(w->timer);
		sigaction(SIGALRM, &w->old_alrm, NULL);
	}
	if (close(w->fd) && !ret)
		ret = -errno;
	if (w->tmp && !w->committed && !w->unnamed && !w->left)
		unlinkat(w->dfd, in_dir(w, w->tmp), 0);
	close(w->dfd);
	free(w->tmp);
	free(w->path);
	free(w->err_path);
	free(w->b.p);
	free(w->sb.p);
	pgstate_enc_free(&w->enc);
	md_map_prev_free(&w->mprev);
	free(w->zb.p);
	free(w->rb.p);
	if (w->cctx) /* most recordings compress nothing: no page of zstd's
		      * code faulted in to free nothing */
		ZSTD_freeCCtx(w->cctx);
	stackref_free(&w->stk);
	free(w);
	return ret;
}

const char *md_writer_err_path(const struct md_writer *w)
{
	return w->err_path ? w->err_path : w->path;
}
