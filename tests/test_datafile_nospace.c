// SPDX-License-Identifier: GPL-2.0-or-later
/* test_datafile_nospace.c — the memsz.data writer when the disk fills:
 * /dev/full, the file size limit and a full tmpfs; batches of records and
 * of samples cut by them keep the whole records that fit. And when the
 * output stalls: a FIFO whose reader reads nothing. */
#include "config.h"

#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "data/datafile.h"
#include "data/dfcodec.h"
#include "tests/datafile_fixture.h"
#include "tests/testutil.h"
#include "util/util.h"

static void test_dev_full(void **state)
{
	struct md_writer *w;
	struct stat st;

	if (stat("/dev/full", &st) || !S_ISCHR(st.st_mode))
		test_skip("no /dev/full character device");
	/* a device is written only when asked for */
	assert_int_equal(md_writer_open("/dev/full", &w), -MEMSZ_ESPECIAL);
	assert_int_equal(
	    md_writer_open_flags("/dev/full", MD_WRITER_SPECIAL, &w), -ENOSPC);
	/* /dev/full is not renamed away */
	assert_int_equal(stat("/dev/full", &st), 0);
	(void)state;
}

/* Write records until the file system is full; return how many were
 * written and the error of the first failure. */
static int fill(const char *path, int *err)
{
	struct md_writer *w;
	struct md_snap_begin b = {.pid = 1, .nmappings = 1u << 30};
	struct md_run run = {
	    .vaddr = 0x1000,
	    .npages = 1,
	    .flags = MD_PG_PRESENT | MD_PG_EXCLUSIVE,
	    .mapcount = 1,
	};
	struct md_snap_mapping m = {
	    .start = 0x1000,
	    .end = 0x2000,
	    .flags = 2,
	    .image_id = UINT32_MAX,
	    .name = "[heap]",
	    .runs = &run,
	    .nruns = 1,
	};
	char note[700];
	int n = 0, ret;

	memset(note, 'x', sizeof(note) - 1);
	note[sizeof(note) - 1] = 0;
	ret = md_writer_open(path, &w);
	if (ret < 0) {
		*err = ret;
		return 0;
	}
	for (;;) {
		/* one snapshot that never ends: mappings and notes */
		if (n == 0)
			ret = md_write_snap_begin(w, &b);
		else if (n % 2)
			ret = md_write_note_kind(w, MD_NOTE_OTHER, NULL, note);
		else
			ret = md_write_mapping(w, &m);
		if (ret < 0)
			break;
		m.start += 0x2000;
		m.end += 0x2000;
		run.vaddr += 0x2000;
		n++;
	}
	*err = ret;
	/* further writes keep failing, they never append */
	if (md_write_note_kind(w, MD_NOTE_OTHER, NULL, "late") == 0)
		*err = -EINVAL;
	/* A failed recording is never committed; keep what the temporary
	 * file holds under path to check it. */
	if (link(md_writer_temp_path(w), path) < 0)
		*err = -EINVAL;
	md_writer_close(w);
	return n;
}

static void check_filled(const char *path, int n)
{
	struct md_reader *r;
	struct md_record rec;
	int got = 0, ret;

	assert_int_equal(md_reader_open(path, &r), 0);
	while ((ret = md_read_next(r, &rec)) == 1)
		got++;
	/* the partial record was cut off again: a clean end, and with no
	 * END record the file says it was cut short */
	assert_int_equal(ret, 0);
	assert_int_equal(got, n);
	assert_true(md_reader_cut_short(r));
	md_reader_close(r);
}

/* Write SAMPLE records (batched) under a file size limit that cuts a batch
 * in the middle: the whole records written stay, the summary counts what
 * the file holds. */
static void test_samples_partial_batch(void **state)
{
	char *path = tpath("samples.data");
	int status, pipefd[2];
	struct md_writer_stats st[2];
	struct md_reader *r;
	struct md_record rec;
	uint64_t got = 0;
	pid_t pid;
	int ret;

	assert_int_equal(pipe(pipefd), 0);
	pid = fork();
	if (pid == 0) {
		struct rlimit rl = {200000, 200000};
		static uint8_t stack[1000];
		struct md_sample s = {
		    .pid = 1, .tid = 1, .stack = stack, .stack_size = 1000};
		struct md_writer *w;
		uint64_t given = 0;

		signal(SIGXFSZ, SIG_IGN);
		setrlimit(RLIMIT_FSIZE, &rl);
		if (md_writer_open(path, &w))
			_exit(1);
		/* plain SAMPLE records (a PACKED record is kept or cut
		 * whole) */
		md_writer_set_compress(w, false);
		/* 300 KB of samples: more than the limit, less than one
		 * batch, so the limit cuts the batch's only write */
		for (int i = 0; i < 300; i++, given++)
			md_write_sample(w, &s);
		if (md_writer_flush(w) != -EFBIG)
			_exit(2);
		md_writer_stats(w, &st[0]);
		st[1].samples = given;
		/* a failed recording is never committed: keep what the
		 * temporary file holds under path to check it */
		if (link(md_writer_temp_path(w), path) < 0)
			_exit(3);
		md_writer_close(w);
		if (write(pipefd[1], st, sizeof(st)) != sizeof(st))
			_exit(1);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(read(pipefd[0], st, sizeof(st)), sizeof(st));
	close(pipefd[0]);
	close(pipefd[1]);
	assert_int_equal(md_reader_open(path, &r), 0);
	while ((ret = md_read_next(r, &rec)) == 1)
		got += rec.type == MD_REC_SAMPLE;
	assert_int_equal(ret, 0);
	assert_true(md_reader_cut_short(r));
	md_reader_close(r);
	/* about 195 of the 300 fit under the limit: kept, not discarded */
	assert_true(got > 150);
	assert_int_equal(st[0].samples, got);
	assert_int_equal(st[0].samples_lost, st[1].samples - got);
	assert_true(st[0].bytes <= 200000);
	free(path);
	(void)state;
}

/* A batch of records (MD_WRITER_BATCH) cut by the file size limit: the
 * whole records that fit stay, counted as written. */
static void test_records_partial_batch(void **state)
{
	char *path = tpath("rbatch.data");
	int status, pipefd[2], ret;
	struct md_writer_stats st;
	struct md_reader *r;
	struct md_record rec;
	uint64_t got = 0;
	pid_t pid;

	assert_int_equal(pipe(pipefd), 0);
	pid = fork();
	if (pid == 0) {
		struct rlimit rl = {20000, 20000};
		static char text[1000];
		struct md_writer *w;

		memset(text, 'x', sizeof(text) - 1);
		signal(SIGXFSZ, SIG_IGN);
		setrlimit(RLIMIT_FSIZE, &rl);
		if (md_writer_open_flags(path, MD_WRITER_BATCH, &w))
			_exit(1);
		/* 50 KB of records: more than the limit, less than a batch */
		for (int i = 0; i < 50; i++)
			if (md_write_note_kind(w, MD_NOTE_NO_PFN, NULL, text))
				_exit(2);
		if (md_writer_flush(w) != -EFBIG)
			_exit(3);
		md_writer_stats(w, &st);
		if (link(md_writer_temp_path(w), path) < 0)
			_exit(4);
		md_writer_close(w);
		if (write(pipefd[1], &st, sizeof(st)) != sizeof(st))
			_exit(1);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(read(pipefd[0], &st, sizeof(st)), sizeof(st));
	close(pipefd[0]);
	close(pipefd[1]);
	assert_int_equal(md_reader_open(path, &r), 0);
	while ((ret = md_read_next(r, &rec)) == 1)
		got++;
	assert_int_equal(ret, 0);
	assert_true(md_reader_cut_short(r));
	md_reader_close(r);
	/* about 19 of the 50 fit under the limit */
	assert_true(got > 15 && got < 50);
	assert_int_equal(st.records, got);
	assert_true(st.bytes <= 20000);
	unlink(path);
	free(path);
	(void)state;
}

static void test_fsize_limit(void **state)
{
	char *path = tpath("limited.data");
	int status, pipefd[2], res[2];
	pid_t pid;

	assert_int_equal(pipe(pipefd), 0);
	pid = fork();
	if (pid == 0) {
		struct rlimit rl = {10000, 10000};

		signal(SIGXFSZ, SIG_IGN);
		setrlimit(RLIMIT_FSIZE, &rl);
		res[0] = fill(path, &res[1]);
		if (write(pipefd[1], res, sizeof(res)) != sizeof(res))
			_exit(1);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(read(pipefd[0], res, sizeof(res)), sizeof(res));
	close(pipefd[0]);
	close(pipefd[1]);
	assert_int_equal(res[1], -EFBIG);
	assert_true(res[0] > 5);
	check_filled(path, res[0]);
	free(path);
	(void)state;
}

static void test_full_tmpfs(void **state)
{
	char *mnt = tpath("mnt"), *copy = tpath("from-tmpfs.data");
	int status, res[2] = {-1, 0}, pipefd[2];
	pid_t pid;

	if (geteuid() != 0)
		test_skip("mounting a full tmpfs needs root");
	assert_int_equal(mkdir(mnt, 0700), 0);
	assert_int_equal(pipe(pipefd), 0);
	pid = fork();
	if (pid == 0) {
		char *p = xasprintf("%s/x.data", mnt), cmd[512];

		if (unshare(CLONE_NEWNS) ||
		    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
		    mount("tmpfs", mnt, "tmpfs", 0, "size=16k"))
			_exit(77);
		res[0] = fill(p, &res[1]);
		snprintf(cmd, sizeof(cmd), "cp %s %s", p, copy);
		if (system(cmd))
			_exit(2);
		if (write(pipefd[1], res, sizeof(res)) != sizeof(res))
			_exit(1);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	close(pipefd[1]);
	if (WEXITSTATUS(status) == 77) {
		close(pipefd[0]);
		rmdir(mnt);
		test_skip("cannot mount a small tmpfs on '%s'", mnt);
	}
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(read(pipefd[0], res, sizeof(res)), sizeof(res));
	close(pipefd[0]);
	assert_int_equal(res[1], -ENOSPC);
	assert_true(res[0] > 5);
	check_filled(copy, res[0]);
	rmdir(mnt);
	free(mnt);
	free(copy);
	(void)state;
}

/* In a child: a mapping record of 64 runs written directly (not batched)
 * after a snapshot's BEGIN, under a file size limit k bytes past the end
 * of the BEGIN. res: the write's return, the file's size before it and
 * after it. */
static void cut_mapping_at(const char *path, long k, long res[3])
{
	static struct md_run many[64];
	struct md_snap_begin b = {.pid = 1, .nmappings = 1};
	struct md_snap_mapping m = {
	    .start = 0x100000,
	    .end = 0x100000 + 256 * 4096,
	    .flags = 2,
	    .image_id = UINT32_MAX,
	    .name = "[heap]",
	    .runs = many,
	    .nruns = 64,
	};
	struct rlimit rl;
	struct md_writer *w;
	struct stat st;

	/* every other 2-page run present, with mapcounts that differ */
	for (int i = 0; i < 64; i++)
		many[i] = (struct md_run){.vaddr = m.start + i * 4 * 4096,
					  .npages = 2,
					  .flags = MD_PG_PRESENT,
					  .mapcount = 1 + i % 5};
	signal(SIGXFSZ, SIG_IGN);
	if (md_writer_open(path, &w) || md_write_snap_begin(w, &b) ||
	    stat(md_writer_temp_path(w), &st))
		_exit(1);
	res[1] = st.st_size;
	rl = (struct rlimit){st.st_size + k, st.st_size + k};
	if (setrlimit(RLIMIT_FSIZE, &rl))
		_exit(1);
	res[0] = md_write_mapping(w, &m);
	if (stat(md_writer_temp_path(w), &st))
		_exit(1);
	res[2] = st.st_size;
	md_writer_close(w);
}

/* A mapping record cut by a full disk at any byte (within its fields,
 * at the end of its fields where its page states start, within those,
 * before its padding) is cut off again: the file ends where the record
 * began. The page states are written from the encoder's stream after the
 * fields (md_rec_commit_tail), so a cut between the two must count the
 * fields as written. */
static void test_record_cut_anywhere(void **state)
{
	char *path = tpath("cut.data");
	long res[3] = {0}, k, cuts = 0;

	for (k = 1;; k++) {
		int status, pipefd[2];
		pid_t pid;

		assert_int_equal(pipe(pipefd), 0);
		pid = fork();
		if (pid == 0) {
			cut_mapping_at(path, k, res);
			if (write(pipefd[1], res, sizeof(res)) != sizeof(res))
				_exit(1);
			_exit(0);
		}
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_int_equal(WEXITSTATUS(status), 0);
		assert_int_equal(read(pipefd[0], res, sizeof(res)),
				 sizeof(res));
		close(pipefd[0]);
		close(pipefd[1]);
		if (res[0] == 0)
			break; /* the whole record fits under k */
		assert_int_equal(res[0], -EFBIG);
		/* the partial record cut off: the size before it */
		assert_int_equal(res[2], res[1]);
		cuts++;
		assert_true(k < 1 << 20);
	}
	/* the record (fields, page states, padding) needed k bytes: every
	 * limit below it was a cut */
	assert_int_equal(cuts, k - 1);
	assert_true(k > 64);
	free(path);
	(void)state;
}

/* The wait hook of test_stalled_fifo: counts its calls; after the fourth
 * either reads the FIFO empty (a reader that resumes: the write goes on)
 * or fails the write with -ETIMEDOUT. */
struct stall {
	int calls, rfd;
	bool resume;
	uint64_t last_ns;
};

static int stall_wait(void *arg, uint64_t stalled_ns)
{
	struct stall *st = arg;
	char buf[4096];

	st->calls++;
	/* the time since the last byte went out only grows while stalled */
	assert_true(stalled_ns >= st->last_ns);
	st->last_ns = stalled_ns;
	if (st->calls < 4)
		return 0;
	if (!st->resume)
		return -ETIMEDOUT;
	while (read(st->rfd, buf, sizeof(buf)) > 0)
		;
	st->calls = 0;
	st->last_ns = 0;
	return 0;
}

/* A FIFO written directly (MD_WRITER_SPECIAL) whose reader reads nothing:
 * the write that waits for it is interrupted and asks the wait hook
 * (md_writer_set_wait), which ends it with its error (the writer stays
 * failed) or lets it go on once the reader has read. Before the hook the
 * write waited in write(2) forever: the test hung. */
static void test_stalled_fifo(void **state)
{
	const char *fifo = fx("stall.fifo");
	struct stall st = {0};
	struct md_writer *w;
	char text[1024];
	int ret = 0, n;

	memset(text, 'x', sizeof(text) - 1);
	text[sizeof(text) - 1] = 0;
	assert_int_equal(mkfifo(fifo, 0600), 0);
	st.rfd = open(fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	assert_true(st.rfd >= 0);
	assert_int_equal(md_writer_open_flags(fifo, MD_WRITER_SPECIAL, &w), 0);
	md_writer_set_wait(w, stall_wait, &st);
	/* a reader that comes back: 64 KiB of pipe filled ten times over */
	st.resume = true;
	for (n = 0; n < 640 && !ret; n++)
		ret = md_write_note_kind(w, MD_NOTE_OTHER, NULL, text);
	assert_int_equal(ret, 0);
	/* one that does not: the hook's error ends the write */
	st.resume = false;
	for (n = 0; n < 640 && !ret; n++)
		ret = md_write_note_kind(w, MD_NOTE_OTHER, NULL, text);
	assert_int_equal(ret, -ETIMEDOUT);
	assert_int_equal(st.calls, 4);
	assert_true(st.last_ns >= 3ull * MD_WAIT_TICK_MS * 1000000 / 2);
	/* sticky: no write is tried again */
	assert_int_equal(md_write_note_kind(w, MD_NOTE_OTHER, NULL, text),
			 -ETIMEDOUT);
	assert_int_equal(st.calls, 4);
	assert_int_equal(md_writer_close(w), -ETIMEDOUT);
	close(st.rfd);
	unlink(fifo);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_records_partial_batch),
	    cmocka_unit_test(test_samples_partial_batch),
	    cmocka_unit_test(test_dev_full),
	    cmocka_unit_test(test_fsize_limit),
	    cmocka_unit_test(test_full_tmpfs),
	    cmocka_unit_test(test_record_cut_anywhere),
	    cmocka_unit_test(test_stalled_fifo),
	};

	return test_run_group(tests, datafile_setup, datafile_teardown);
}
