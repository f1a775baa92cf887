// SPDX-License-Identifier: GPL-2.0-or-later
/* snap_images.c — the image registry and stack naming (see
 * snap_images.h).
 */
#include "config.h"

#include "record/snap_images.h"

#include "elf/elfimg.h"
#include "record/snap_shmswap.h"
#include "record/target.h"
#include "util/util.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static bool same_file(const struct stat *st, uint32_t maj, uint32_t min,
		      uint64_t ino)
{
	return (uint64_t)st->st_ino == ino && major(st->st_dev) == maj &&
	       minor(st->st_dev) == min;
}

/* A descriptor of /proc/PID/root for pid, kept for the next image of the
 * same process within one snapshot (each path under /proc/PID/root walks
 * /proc, the pid and the root link again), or -1. A pid reused since can only
 * name a file that same_file() refuses. */
static int root_fd(struct snapper *s, int pid)
{
	char path[64];

	if (s->root_pid == pid && s->root_fd >= 0)
		return s->root_fd;
	if (s->root_fd >= 0)
		close(s->root_fd);
	snprintf(path, sizeof(path), "/proc/%d/root", pid);
	s->root_fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	s->root_pid = pid;
	return s->root_fd;
}

/* Close root_fd's descriptor. */
static void images_close_root(struct snapper *s)
{
	if (s->root_fd >= 0)
		close(s->root_fd);
	s->root_fd = -1;
	s->root_pid = 0;
}

/* An O_PATH descriptor of rel under dirfd (followed as stat follows it)
 * if it is the file (maj, min, ino), its stat in *st; else -1. */
static int path_fd_of(int dirfd, const char *rel, uint32_t maj, uint32_t min,
		      uint64_t ino, struct stat *st)
{
	int pfd = openat(dirfd, rel, O_PATH | O_CLOEXEC);

	if (pfd >= 0 && (fstat(pfd, st) < 0 || !same_file(st, maj, min, ino))) {
		close(pfd);
		pfd = -1;
	}
	return pfd;
}

/* Find where the file (dev, ino) mapped by pid at path can be opened:
 * PATH under /proc/PID/root (through root_fd: *dirfd), PATH itself, or an
 * entry of /proc/PID/map_files. Returns an allocated path ("" if none),
 * relative to *dirfd (AT_FDCWD unless under the root), and fills *st;
 * found under the root, *pfd is an O_PATH descriptor of it (the caller
 * closes it), else -1: one walk of the path serves the stat and the
 * open. */
static char *find_open_path(struct snapper *s, int pid, const char *path,
			    uint64_t start, uint64_t end, uint32_t maj,
			    uint32_t min, uint64_t ino, struct stat *st,
			    int *dirfd, int *pfd)
{
	char *p, *clean = xstrdup(path);
	size_t len = strlen(clean);
	static const char deleted[] = " (deleted)";
	int rfd;

	*dirfd = AT_FDCWD;
	*pfd = -1;
	if (len > sizeof(deleted) - 1 &&
	    !strcmp(clean + len - (sizeof(deleted) - 1), deleted))
		clean[len - (sizeof(deleted) - 1)] = 0;
	if (clean[0] == '/') {
		rfd = root_fd(s, pid);
		if (rfd >= 0 && clean[1] &&
		    (*pfd = path_fd_of(rfd, clean + 1, maj, min, ino, st)) >=
			0) {
			*dirfd = rfd;
			p = xstrdup(clean + 1);
			goto found;
		}
		if (!stat(clean, st) && same_file(st, maj, min, ino)) {
			p = xstrdup(clean);
			goto found;
		}
	}
	/* Deleted files, memfd, shared memory, other mount namespaces: the
	 * mapping's own link (one stat, not a walk of every mapping). */
	p = xasprintf("/proc/%d/map_files/%" PRIx64 "-%" PRIx64, pid, start,
		      end);
	if (!stat(p, st) && same_file(st, maj, min, ino))
		goto found;
	free(p);
	free(clean);
	memset(st, 0, sizeof(*st));
	return xstrdup("");
found:
	free(clean);
	return p;
}

int snap_images_self_fd_dir(struct snapper *s)
{
	if (!s->self_fd_tried) {
		s->self_fd_tried = true;
		s->self_fd_dir =
		    open("/proc/self/fd", O_PATH | O_DIRECTORY | O_CLOEXEC);
	}
	return s->self_fd_dir;
}

/* Open rel (under dirfd) for reading only if it is still the regular
 * file (maj, min, ino) that find_open_path() found: the target may have
 * swapped the path meanwhile. With pfd (find_open_path's O_PATH
 * descriptor, checked already), that file is opened again through
 * /proc/self/fd (its number under snap_images_self_fd_dir(), else the
 * whole path), without a walk of the path. Returns the descriptor or
 * -errno (-ESTALE: another file now). */
static int open_regular(struct snapper *s, int dirfd, const char *rel, int pfd,
			uint32_t maj, uint32_t min, uint64_t ino)
{
	char self[40];
	struct stat st;
	int fd, dir;

	if (pfd >= 0) {
		dir = snap_images_self_fd_dir(s);
		snprintf(self, sizeof(self), "%s%d",
			 dir >= 0 ? "" : "/proc/self/fd/", pfd);
		fd = openat(dir >= 0 ? dir : AT_FDCWD, self,
			    O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
		return fd < 0 ? -errno : fd;
	}
	fd = open_regular_at(dirfd, rel, &st);

	if (fd >= 0 && !same_file(&st, maj, min, ino)) {
		close(fd);
		return -ESTALE;
	}
	return fd;
}

static uint32_t image_hash(uint32_t maj, uint32_t min, uint64_t ino)
{
	return hashmap_hash_u64(ino ^ ((uint64_t)maj << 44) ^
				((uint64_t)min << 24));
}

/* The registry's entry of (maj, min, ino), or NULL with *p left where
 * hashmap_put() stores it. */
static struct snap_image *image_find(struct snapper *s, uint32_t maj,
				     uint32_t min, uint64_t ino,
				     struct hashmap_probe *p)
{
	uint32_t i;

	for (i = hashmap_first(&s->images_index, image_hash(maj, min, ino), p);
	     i != HASHMAP_NONE; i = hashmap_next(&s->images_index, p)) {
		struct snap_image *si = &s->images[i];

		if (si->ino == ino && si->dev_major == maj &&
		    si->dev_minor == min)
			return si;
	}
	return NULL;
}

/* Forget the images no snapshot of the last round mapped (their round is
 * older than the last) but those with a name (at most
 * SNAP_IMAGES_DORMANT_MAX of them), keeping the others in order, and
 * index them again. */
static void images_sweep(struct snapper *s)
{
	size_t i, n = 0, dormant = 0, drop;

	for (i = 0; i < s->nimages; i++)
		if (s->images[i].round + 1 < s->images_round &&
		    s->images[i].named)
			dormant++;
	/* named files no round mapped stay (a file mapped again keeps its
	 * one IMAGE record), the oldest forgotten beyond the bound */
	drop = dormant > SNAP_IMAGES_DORMANT_MAX
		   ? dormant - SNAP_IMAGES_DORMANT_MAX
		   : 0;
	for (i = 0; i < s->nimages; i++) {
		const struct snap_image *si = &s->images[i];

		if (si->round + 1 < s->images_round &&
		    (!si->named || (drop && drop--)))
			continue;
		s->images[n++] = *si;
	}
	s->nimages = n;
	if (s->images_cap > 64 && n < s->images_cap / 4) {
		s->images_cap /= 2;
		s->images =
		    xrealloc(s->images, s->images_cap * sizeof(*s->images));
	}
	hashmap_clear(&s->images_index);
	for (i = 0; i < n; i++)
		hashmap_add(&s->images_index,
			    image_hash(s->images[i].dev_major,
				       s->images[i].dev_minor,
				       s->images[i].ino),
			    (uint32_t)i);
}

void snap_images_round(struct snapper *s, int pid)
{
	uint32_t h = hashmap_hash_u64((uint32_t)pid), i;
	struct hashmap_probe p;

	for (i = hashmap_first(&s->round_index, h, &p); i != HASHMAP_NONE;
	     i = hashmap_next(&s->round_index, &p))
		if (s->round_pids[i] == pid)
			break;
	if (i != HASHMAP_NONE) { /* pid again: a new round */
		s->images_round++;
		images_sweep(s);
		s->nround_pids = 0;
		hashmap_clear(&s->round_index);
		hashmap_first(&s->round_index, h, &p);
	}
	xgrow(&s->round_pids, &s->round_pids_cap, s->nround_pids + 1,
	      sizeof(*s->round_pids));
	s->round_pids[s->nround_pids] = pid;
	hashmap_put(&s->round_index, &p, (uint32_t)s->nround_pids++);
}

size_t snap_images_count(const struct snapper *s)
{
	return s->nimages;
}

void snap_images_free(struct snapper *s)
{
	images_close_root(s);
	if (s->self_fd_tried && s->self_fd_dir >= 0)
		close(s->self_fd_dir);
	s->self_fd_tried = false;
	snap_images_close_fds(s);
	free(s->images);
	hashmap_free(&s->images_index);
	free(s->round_pids);
	hashmap_free(&s->round_index);
}

/* Keep fd, open on the regular file of im (st_size size), for the rest
 * of the snapshot (snap_images_fd) while snap_images_map runs and there
 * is room; else close it. */
static void image_fd_keep(struct snapper *s, const struct md_image *im,
			  uint64_t size, int fd)
{
	if (!s->keep_image_fds || s->nimage_fds == SNAP_IMAGE_FDS_MAX) {
		close(fd);
		return;
	}
	s->image_fds[s->nimage_fds++] = (struct snap_image_fd){
	    .dev_major = im->dev_major,
	    .dev_minor = im->dev_minor,
	    .ino = im->ino,
	    .size = size,
	    .name = im->path ? im->path : "",
	    .fd = fd,
	};
}

int snap_images_fd(const struct snapper *s, const struct procmap *m,
		   uint64_t *size)
{
	const char *name = m->name ? m->name : "";

	for (size_t i = 0; i < s->nimage_fds; i++) {
		const struct snap_image_fd *f = &s->image_fds[i];

		if (f->ino == m->ino && f->dev_major == m->dev_major &&
		    f->dev_minor == m->dev_minor && !strcmp(f->name, name)) {
			*size = f->size;
			return f->fd;
		}
	}
	return -1;
}

void snap_images_close_fds(struct snapper *s)
{
	for (size_t i = 0; i < s->nimage_fds; i++)
		close(s->image_fds[i].fd);
	s->nimage_fds = 0;
}

/* What elf_build_id_read()'s result ret says of a file: ELF (a build-id
 * or none, or an ELF header cut short), not ELF, or unknown (a read
 * error). */
static enum md_image_kind image_kind(int ret)
{
	if (ret == -MEMSZ_ENOTELF)
		return MD_IMAGE_NOT_ELF;
	return ret >= 0 || ret == -MEMSZ_ETRUNC ? MD_IMAGE_ELF
						: MD_IMAGE_UNKNOWN;
}

/* The IMAGE record of the file (dev, ino) mapped at [start, end) at path
 * by pid, under the id im->id; *found says whether memsz found where to
 * open it (im->size and im->mtime_ns are its stat's). */
static int image_write(struct snapper *s, struct md_image *im, int pid,
		       uint64_t start, uint64_t end, const uint8_t *build_id,
		       uint32_t build_id_len, bool *found)
{
	struct stat st;
	char *open_path, *rel;
	int dirfd, pfd, fd, ret;

	rel = find_open_path(s, pid, im->path, start, end, im->dev_major,
			     im->dev_minor, im->ino, &st, &dirfd, &pfd);
	/* the record names the file as before: under /proc/PID/root */
	open_path =
	    dirfd == AT_FDCWD ? rel : xasprintf("/proc/%d/root/%s", pid, rel);
	im->open_path = open_path;
	*found = open_path[0] != 0;
	if (open_path[0]) {
		im->size = (uint64_t)st.st_size;
		im->mtime_ns = (int64_t)st.st_mtim.tv_sec * NSEC_PER_SEC +
			       st.st_mtim.tv_nsec;
	}
	/* whether the file is ELF (im->kind): the kernel gives build-ids
	 * of ELF files only; else what reading the build-id found, unknown
	 * where the file was not read */
	if (build_id && build_id_len) {
		im->build_id_len = MIN(build_id_len, sizeof(im->build_id));
		memcpy(im->build_id, build_id, im->build_id_len);
		im->kind = MD_IMAGE_ELF;
	} else if (open_path[0] && S_ISREG(st.st_mode) &&
		   st.st_size < (off_t)sizeof(Elf32_Ehdr)) {
		/* a file shorter than an ELF header (a locale's LC_NUMERIC,
		 * LC_PAPER...: 23 to 50 bytes) is not ELF: not opened */
		im->kind = MD_IMAGE_NOT_ELF;
	} else if (open_path[0] && S_ISREG(st.st_mode)) {
		fd = open_regular(s, dirfd, rel, pfd, im->dev_major,
				  im->dev_minor, im->ino);
		/* a shmem object whose first page is swapped out (a memfd
		 * of data, rarely an ELF file): reading it would swap it in,
		 * taking it out of the process's Swap */
		if (fd >= 0 && shmswap_head_out(s, fd, im->dev_major)) {
			close(fd);
			fd = -1;
		}
		if (fd >= 0) {
			ret = elf_build_id_read(fd, im->build_id,
						sizeof(im->build_id));
			im->build_id_len = ret > 0 ? ret : 0;
			im->kind = image_kind(ret);
			image_fd_keep(s, im, (uint64_t)st.st_size, fd);
		}
	}
	if (pfd >= 0)
		close(pfd);
	ret = md_write_image(s->w, im);
	im->open_path = NULL; /* freed now */
	if (open_path != rel)
		free(open_path);
	free(rel);
	return ret;
}

static uint64_t build_id_hash(const uint8_t *build_id, uint32_t len)
{
	return len ? hashmap_hash_bytes(build_id, len) | 1 : 0;
}

/* A hash of an image's path, which its IMAGE record holds too: a file
 * renamed keeps (dev, ino), size and mtime but needs a record of its new
 * name (the reader merges records with the same path only). */
static uint64_t path_hash(const char *path)
{
	return hashmap_hash_bytes(path ? path : "", path ? strlen(path) : 0);
}

/* Whether the file (dev, ino) that pid maps at [start, end) at path is
 * still the file of si, an image no snapshot of the last round mapped:
 * the same st_size and st_mtim, the same build-id if both have one (read
 * from the file when the caller has none: snapshot-only recordings), and
 * the same path.
 * An inode freed and reused by another file since has another mtime. */
static bool image_same_file(struct snapper *s, const struct snap_image *si,
			    int pid, const char *path, uint64_t start,
			    uint64_t end, const uint8_t *build_id,
			    uint32_t build_id_len)
{
	struct stat st;
	int dirfd, pfd;
	char *rel =
	    find_open_path(s, pid, path ? path : "", start, end, si->dev_major,
			   si->dev_minor, si->ino, &st, &dirfd, &pfd);
	bool same =
	    rel[0] && (uint64_t)st.st_size == si->size &&
	    (int64_t)st.st_mtim.tv_sec * NSEC_PER_SEC + st.st_mtim.tv_nsec ==
		si->mtime_ns &&
	    path_hash(path) == si->path_hash;
	uint8_t id[sizeof(((struct md_image *)0)->build_id)];
	int fd, len;

	/* a snapshot-only recording has no build-id from MMAP2: the file's
	 * own, read as image_write reads it */
	if (same && !build_id_len && si->build_id_hash) {
		fd = open_regular(s, dirfd, rel, pfd, si->dev_major,
				  si->dev_minor, si->ino);
		len = fd >= 0 && !shmswap_head_out(s, fd, si->dev_major)
			  ? elf_build_id_read(fd, id, sizeof(id))
			  : -1;
		if (fd >= 0)
			close(fd);
		if (len > 0) {
			build_id = id;
			build_id_len = (uint32_t)len;
		}
	}
	same = same &&
	       (!build_id_len || !si->build_id_hash ||
		build_id_hash(build_id, build_id_len) == si->build_id_hash);
	if (pfd >= 0)
		close(pfd);
	free(rel);
	return same;
}

/* Whether path names a file that still has it (not "... (deleted)"). */
static bool path_named(const char *path)
{
	static const char deleted[] = " (deleted)";
	size_t len = path ? strlen(path) : 0;

	return len && (len < sizeof(deleted) - 1 ||
		       strcmp(path + len - (sizeof(deleted) - 1), deleted));
}

int snapper_image(struct snapper *s, int pid, const char *path, uint64_t start,
		  uint64_t end, uint32_t dev_major, uint32_t dev_minor,
		  uint64_t ino, const uint8_t *build_id, uint32_t build_id_len,
		  uint32_t *image_id)
{
	struct md_image im = {0};
	struct snap_image *si;
	struct hashmap_probe p;
	bool found = false;
	int ret;

	si = image_find(s, dev_major, dev_minor, ino, &p);
	/* one of the last two rounds, or the same file since: its record */
	if (si && (si->round + 1 >= s->images_round ||
		   image_same_file(s, si, pid, path, start, end, build_id,
				   build_id_len))) {
		si->round = s->images_round;
		*image_id = si->id;
		return 0;
	}
	if (s->next_image_id == UINT32_MAX)
		return -EOVERFLOW;
	im.id = s->next_image_id;
	im.dev_major = dev_major;
	im.dev_minor = dev_minor;
	im.ino = ino;
	im.path = path;
	ret = image_write(s, &im, pid, start, end, build_id, build_id_len,
			  &found);
	if (ret < 0)
		return ret;
	s->next_image_id++;
	if (!si) { /* else another file took the inode: its entry is reused */
		xgrow(&s->images, &s->images_cap, s->nimages + 1,
		      sizeof(*s->images));
		si = &s->images[s->nimages];
		hashmap_put(&s->images_index, &p, (uint32_t)s->nimages++);
	}
	*si = (struct snap_image){
	    .dev_major = dev_major,
	    .dev_minor = dev_minor,
	    .ino = ino,
	    .id = im.id,
	    .round = s->images_round,
	    .size = im.size,
	    .mtime_ns = im.mtime_ns,
	    .build_id_hash = build_id_hash(im.build_id, im.build_id_len),
	    .path_hash = path_hash(path),
	    .named = found && path_named(path),
	};
	*image_id = im.id;
	return 0;
}

void snap_name_thread_stacks(int pid, struct procmaps *maps)
{
	struct target_sp *sps = NULL;
	int n = target_thread_sps(pid, &sps);

	for (int i = 0; i < n; i++) {
		for (size_t k = 0; k < maps->n; k++) {
			struct procmap *m = &maps->maps[k];

			if (sps[i].sp < m->start || sps[i].sp >= m->end)
				continue;
			if (!m->ino && (!m->name || !m->name[0])) {
				free(m->name);
				m->name = xasprintf("[stack:%d]", sps[i].tid);
			}
			break;
		}
	}
	free(sps);
}

int snap_images_map(struct snapper *s, int pid, const struct procmaps *maps,
		    uint32_t **idsp)
{
	uint32_t *ids = xmalloc((maps->n + 1) * sizeof(*ids));
	int ret = 0;

	*idsp = ids;
	snap_images_round(s, pid);
	/* the files opened now serve the snapshot's cachestat(2) questions;
	 * an image already known is not opened again */
	s->keep_image_fds = true;
	for (size_t i = 0; i < maps->n; i++) {
		const struct procmap *m = &maps->maps[i];

		ids[i] = UINT32_MAX;
		if (m->ino == 0 && m->dev_major == 0 && m->dev_minor == 0)
			continue;
		ret = snapper_image(s, pid, m->name, m->start, m->end,
				    m->dev_major, m->dev_minor, m->ino, NULL, 0,
				    &ids[i]);
		if (ret < 0)
			break;
	}
	/* the root is kept for one process's images only: held longer it
	 * would pin an exited container's root (its umount fails with
	 * EBUSY) and outlive a chroot or the pid's reuse */
	images_close_root(s);
	s->keep_image_fds = false;
	return ret < 0 ? ret : 0;
}
