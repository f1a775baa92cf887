// SPDX-License-Identifier: GPL-2.0-or-later
/* test_snapshot_images.c — the image registry of residency snapshots
 * (record/snap_images.c): a process that maps and unmaps many shared
 * anonymous mappings, and one file changed under it, is snapshotted again
 * and again; the IMAGE records written are checked against the inodes and
 * Rss of /proc/PID/smaps. An image with the kernel's build-id is ELF.
 */
#include "config.h"

#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "data/datafile.h"
#include "elf/elfimg.h"
#include "record/snap_images.h"
#include "record/snapshot.h"
#include "util/util.h"
#include "tests/snapshot_fixture.h"
#include "tests/testutil.h"

/* The registry's child: a shared anonymous page mapped for its whole
 * life, and on each command read from cmd, 'n': a new shared anonymous
 * page in place of the last one (a new shmem inode each), 'f': the file
 * at path mapped shared, 'u': unmapped; it answers each on ack. */
static void images_child(int cmd, int ack, const char *path)
{
	char *last = NULL, *file = NULL, *keep, c;
	int fd = open(path, O_RDONLY);

	keep = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (fd < 0 || keep == MAP_FAILED)
		_exit(1);
	keep[0] = 1;
	while (read(cmd, &c, 1) == 1 && c != 'q') {
		if (c == 'n') {
			if (last)
				munmap(last, 4096);
			last = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
			if (last == MAP_FAILED)
				_exit(1);
			last[0] = 1;
		} else if (c == 'f') {
			file = mmap(NULL, 8192, PROT_READ, MAP_SHARED, fd, 0);
			if (file == MAP_FAILED)
				_exit(1);
			c = *(volatile char *)file;
		} else if (c == 'u') {
			munmap(file, 8192);
		}
		if (write(ack, "k", 1) != 1)
			_exit(1);
	}
	_exit(0);
}

/* Copy the file src to dst. */
static void copy_file(const char *src, const char *dst)
{
	char buf[65536];
	int in = open(src, O_RDONLY), out;
	ssize_t n;

	assert_true(in >= 0);
	out = open(dst, O_CREAT | O_TRUNC | O_WRONLY, 0644);
	assert_true(out >= 0);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		assert_int_equal(write(out, buf, (size_t)n), n);
	assert_int_equal(n, 0);
	close(in);
	close(out);
}

/* Change one byte of the build-id of the ELF file path in place (readelf
 * -n would show another) and set its times back to times. */
static void flip_build_id(const char *path, const struct timespec *times)
{
	uint8_t id[64], buf[65536], b;
	int fd = open(path, O_RDWR), len;
	ssize_t n;
	const uint8_t *at;

	assert_true(fd >= 0);
	len = elf_build_id_read(fd, id, sizeof(id));
	assert_true(len > 0);
	n = pread(fd, buf, sizeof(buf), 0);
	assert_true(n > 0);
	at = memmem(buf, (size_t)n, id, (size_t)len);
	assert_non_null(at);
	b = (uint8_t)(at[0] ^ 0xff);
	assert_int_equal(pwrite(fd, &b, 1, at - buf), 1);
	close(fd);
	assert_int_equal(utimensat(AT_FDCWD, path, times, 0), 0);
}

/* Send c to the child and wait for its answer. */
static void images_step(int cmd, int ack, char c)
{
	assert_int_equal(write(cmd, &c, 1), 1);
	assert_int_equal(read(ack, &c, 1), 1);
}

/* How many IMAGE records of inode ino data holds (their ids distinct),
 * and in pid's last snapshot the image id and present pages of the
 * mapping at start. */
static int images_of(const char *data, uint64_t ino, int pid, uint64_t start,
		     uint32_t *id, uint64_t *present)
{
	struct md_reader *r;
	struct md_record rec;
	uint32_t ids[8];
	int n = 0, ret;
	bool in = false;

	assert_int_equal(md_reader_open(data, &r), 0);
	while ((ret = md_read_next(r, &rec)) == 1) {
		if (rec.type == MD_REC_IMAGE && rec.u.image.ino == ino) {
			for (int i = 0; i < n; i++)
				assert_int_not_equal(ids[i], rec.u.image.id);
			assert_true(n < 8);
			ids[n++] = rec.u.image.id;
		} else if (rec.type == MD_REC_SNAP_BEGIN) {
			in = rec.u.snap_begin.pid == (uint32_t)pid;
		} else if (rec.type == MD_REC_SNAP_MAPPING && in &&
			   rec.u.mapping.start == start) {
			*id = rec.u.mapping.image_id;
			*present = 0;
			for (size_t i = 0; i < rec.u.mapping.nruns; i++)
				if (rec.u.mapping.runs[i].flags & MD_PG_PRESENT)
					*present +=
					    rec.u.mapping.runs[i].npages;
		}
	}
	/* the reader refuses a mapping whose image it has not seen */
	assert_int_equal(ret, 0);
	md_reader_close(r);
	return n;
}

/* Many shared anonymous mappings made and unmapped (each a new shmem
 * inode, "/dev/zero (deleted)"): the image registry holds those of the
 * last two rounds only, not one per inode ever seen. A named file no
 * round mapped is kept: mapped again it keeps its one IMAGE record; with
 * another mtime since (another file's, an inode reused), it gets a second
 * under a new id, and with another build-id (same size and mtime) a third,
 * though a snapshot has no build-id from MMAP2 to compare, which its mapping
 * refers to; the shmem page kept mapped throughout gets one. The last snapshot
 * still has smaps' Rss. */
static void test_images_bounded(void **state)
{
	char *data = xasprintf("%s/images.data", tmpdir);
	char *path = xasprintf("%s/images.file", tmpdir);
	int cmd[2], ack[2], nsm, nfile = 0, nkeep = 0;
	size_t most = 0, first;
	struct smap *sm = NULL;
	struct md_writer *w;
	struct snapper *s;
	uint64_t present, keep_ino = 0, file_ino = 0;
	uint32_t id, seq = 0;
	pid_t pid;
	static const struct timespec old_times[2] = {{1000000000, 0},
						     {1000000000, 0}};

	(void)state;
	copy_file(workload, path); /* an ELF file with a build-id */
	assert_int_equal(pipe(cmd), 0);
	assert_int_equal(pipe(ack), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(cmd[1]);
		close(ack[0]);
		images_child(cmd[0], ack[1], path);
	}
	close(cmd[0]);
	close(ack[1]);
	assert_int_equal(md_writer_open(data, &w), 0);
	assert_int_equal(snapper_new(w, &s), 0);
	images_step(cmd[1], ack[0], 'f');
	assert_int_equal(snapper_take(s, pid, seq++, 0, NULL), 0);
	images_step(cmd[1], ack[0], 'u');
	assert_int_equal(snapper_take(s, pid, seq++, 0, NULL), 0);
	images_step(cmd[1], ack[0], 'n');
	assert_int_equal(snapper_take(s, pid, seq++, 0, NULL), 0);
	first = snap_images_count(s);
	for (int i = 0; i < 300; i++) {
		images_step(cmd[1], ack[0], 'n');
		assert_int_equal(snapper_take(s, pid, seq++, 0, NULL), 0);
		most = MAX(most, snap_images_count(s));
	}
	/* this round's and the last one's: one shmem inode more at most */
	assert_true(most <= first + 1);
	images_step(cmd[1], ack[0], 'f'); /* the same file: its record */
	assert_int_equal(snapper_take(s, pid, seq++, 0, NULL), 0);
	for (int i = 0; i < 3; i++) {
		images_step(cmd[1], ack[0], i ? 'n' : 'u');
		assert_int_equal(snapper_take(s, pid, seq++, 0, NULL), 0);
	}
	/* no longer the same file: a second record */
	assert_int_equal(utimensat(AT_FDCWD, path, old_times, 0), 0);
	images_step(cmd[1], ack[0], 'f');
	assert_int_equal(snapper_take(s, pid, seq++, 0, NULL), 0);
	for (int i = 0; i < 3; i++) {
		images_step(cmd[1], ack[0], i ? 'n' : 'u');
		assert_int_equal(snapper_take(s, pid, seq++, 0, NULL), 0);
	}
	/* same size and mtime, another build-id: a third record */
	flip_build_id(path, old_times);
	images_step(cmd[1], ack[0], 'f');
	assert_int_equal(snapper_take(s, pid, seq++, 0, NULL), 0);
	nsm = (int)read_smaps(pid, &sm);
	snapper_free(s);
	assert_int_equal(md_writer_commit(w), 0);
	assert_int_equal(md_writer_close(w), 0);
	for (int i = 0; i < nsm; i++) {
		uint32_t n;

		if (!strcmp(sm[i].name, path)) {
			file_ino = sm[i].ino;
			n = (uint32_t)images_of(data, sm[i].ino, pid,
						sm[i].start, &id, &present);
			nfile += n;
		} else if (!strncmp(sm[i].name, "/dev/zero", 9) && !keep_ino) {
			keep_ino = sm[i].ino; /* mapped first: lowest */
			n = (uint32_t)images_of(data, sm[i].ino, pid,
						sm[i].start, &id, &present);
			nkeep += n;
		} else {
			continue;
		}
		assert_int_not_equal(id, UINT32_MAX);
		assert_int_equal(present * 4, (uint64_t)sm[i].rss);
	}
	assert_int_not_equal(file_ino, 0);
	/* once, then again with another mtime, then with another build-id
	 * (not at each time mapped) */
	assert_int_equal(nfile, 3);
	assert_int_equal(nkeep, 1); /* mapped all along: written once */
	assert_int_equal(write(cmd[1], "q", 1), 1);
	waitpid(pid, NULL, 0);
	close(cmd[1]);
	close(ack[0]);
	free(sm);
	free(path);
	free(data);
}

/* A build-id the kernel gave (perf's MMAP2) is an ELF file's: the image
 * is recorded as ELF though memsz finds no path to open it (a file gone,
 * a range no process maps), in an IMAGE_KIND record after its IMAGE. */
static void test_kernel_build_id_elf(void **state)
{
	char *data = xasprintf("%s/kernel.data", tmpdir);
	static const uint8_t id[20] = {0xb1, 0xd0, 0x01};
	struct md_reader *r;
	struct md_record rec;
	struct md_writer *w;
	struct snapper *s;
	uint32_t image_id = UINT32_MAX;
	int n = 0;

	(void)state;
	assert_int_equal(md_writer_open(data, &w), 0);
	assert_int_equal(snapper_new(w, &s), 0);
	assert_int_equal(snapper_image(s, getpid(), "/nonexistent/libgone.so",
				       0x1000, 0x2000, 8, 1, 12345, id,
				       sizeof(id), &image_id),
			 0);
	snapper_free(s);
	assert_int_equal(md_writer_commit(w), 0);
	assert_int_equal(md_writer_close(w), 0);
	assert_int_equal(md_reader_open(data, &r), 0);
	while (md_read_next(r, &rec) == 1) {
		if (rec.type == MD_REC_IMAGE) {
			assert_int_equal(rec.u.image.id, image_id);
			assert_string_equal(rec.u.image.open_path, "");
			assert_int_equal(rec.u.image.build_id_len, sizeof(id));
		} else if (rec.type == MD_REC_IMAGE_KIND) {
			assert_int_equal(rec.u.image_kind.id, image_id);
			assert_int_equal(rec.u.image_kind.kind, MD_IMAGE_ELF);
			n++;
		}
	}
	assert_int_equal(n, 1);
	md_reader_close(r);
	unlink(data);
	free(data);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_images_bounded),
	    cmocka_unit_test(test_kernel_build_id_elf),
	};

	return test_run_group(tests, snapshot_setup, snapshot_teardown);
}
