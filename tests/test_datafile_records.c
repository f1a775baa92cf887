// SPDX-License-Identifier: GPL-2.0-or-later
/* test_datafile_records.c — the memsz.data codec's records: round trip
 * of every record type, the writer's modes (batch, gather, unnamed),
 * strings cut at MD_STR_MAX, notes and their kinds, JITMAP, and records as
 * older versions wrote them. (The other test_datafile_*.c: corrupt input,
 * page states, samples, full disks.) */
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

static void check_all_types(struct md_reader *r)
{
	struct md_record rec;
	uint64_t off = 64;

	assert_int_equal(md_read_next(r, &rec), 1);
	assert_int_equal(rec.type, MD_REC_IMAGE);
	assert_int_equal(rec.offset, off);
	assert_int_equal(rec.u.image.id, 7);
	assert_int_equal(rec.u.image.dev_major, 0x103);
	assert_int_equal(rec.u.image.dev_minor, 0x10001);
	assert_int_equal(rec.u.image.ino, 1234567890123ull);
	assert_int_equal(rec.u.image.size, 4096 * 5 + 3);
	assert_int_equal(rec.u.image.mtime_ns, -5);
	assert_int_equal(rec.u.image.build_id_len, 20);
	assert_int_equal(rec.u.image.build_id[3], 0xef);
	assert_string_equal(rec.u.image.path, "/usr/lib/lib with space.so");
	assert_string_equal(rec.u.image.open_path,
			    "/proc/42/root/usr/lib/lib with space.so");
	off += rec.size;

	assert_int_equal(md_read_next(r, &rec), 1);
	assert_int_equal(rec.type, MD_REC_MMAP2);
	assert_int_equal(rec.offset, off);
	assert_int_equal(rec.u.mmap2.time, 123456789);
	assert_int_equal(rec.u.mmap2.pid, 42);
	assert_int_equal(rec.u.mmap2.tid, 43);
	assert_int_equal(rec.u.mmap2.start, 0x7f0000001000);
	assert_int_equal(rec.u.mmap2.len, 0x3000);
	assert_int_equal(rec.u.mmap2.pgoff, 0x2000);
	assert_int_equal(rec.u.mmap2.dev_major, 8);
	assert_int_equal(rec.u.mmap2.dev_minor, 1);
	assert_int_equal(rec.u.mmap2.ino, 99);
	assert_int_equal(rec.u.mmap2.ino_generation, 5);
	assert_int_equal(rec.u.mmap2.prot, 5);
	assert_int_equal(rec.u.mmap2.flags, 2);
	assert_int_equal(rec.u.mmap2.build_id_len, 3);
	assert_int_equal(rec.u.mmap2.build_id[2], 3);
	assert_true(rec.u.mmap2.synthesized);
	assert_string_equal(rec.u.mmap2.filename, "/bin/true (deleted)");

	assert_int_equal(md_read_next(r, &rec), 1);
	assert_int_equal(rec.type, MD_REC_COMM);
	assert_int_equal(rec.u.task.pid, 42);
	assert_int_equal(rec.u.task.tid, 43);
	assert_string_equal(rec.u.task.comm, "worker");

	assert_int_equal(md_read_next(r, &rec), 1);
	assert_int_equal(rec.type, MD_REC_FORK);
	assert_int_equal(rec.u.task.time, 2);
	assert_int_equal(rec.u.task.pid, 44);
	assert_int_equal(rec.u.task.ppid, 42);
	assert_int_equal(rec.u.task.ptid, 43);
	assert_string_equal(rec.u.task.comm, "");

	assert_int_equal(md_read_next(r, &rec), 1);
	assert_int_equal(rec.type, MD_REC_EXIT);
	assert_int_equal(rec.u.task.time, 3);

	assert_int_equal(md_read_next(r, &rec), 1);
	assert_int_equal(rec.type, MD_REC_LOST);
	assert_int_equal(rec.u.lost.time, 4);
	assert_int_equal(rec.u.lost.count, 17);

	assert_int_equal(md_read_next(r, &rec), 1);
	assert_int_equal(rec.type, MD_REC_SNAP_BEGIN);
	assert_int_equal(rec.u.snap_begin.time, 5);
	assert_int_equal(rec.u.snap_begin.pid, 42);
	assert_int_equal(rec.u.snap_begin.seq, 0);
	assert_int_equal(rec.u.snap_begin.flags, MD_SNAP_F_PFN);
	assert_int_equal(rec.u.snap_begin.nmappings, 2);

	assert_int_equal(md_read_next(r, &rec), 1);
	assert_int_equal(rec.type, MD_REC_SNAP_MAPPING);
	assert_int_equal(rec.u.mapping.start, 0x400000);
	assert_int_equal(rec.u.mapping.end, RUNS_END);
	assert_int_equal(rec.u.mapping.prot, 5);
	assert_int_equal(rec.u.mapping.flags, 2);
	assert_int_equal(rec.u.mapping.image_id, 7);
	assert_string_equal(rec.u.mapping.name, "/bin/true");
	assert_int_equal(rec.u.mapping.nruns, ARRAY_SIZE(runs));
	assert_memory_equal(rec.u.mapping.runs, runs, sizeof(runs));

	assert_int_equal(md_read_next(r, &rec), 1);
	assert_int_equal(rec.type, MD_REC_SNAP_MAPPING);
	assert_int_equal(rec.u.mapping.image_id, UINT32_MAX);
	assert_int_equal(rec.u.mapping.nruns, 0);
	assert_string_equal(rec.u.mapping.name, "");

	assert_int_equal(md_read_next(r, &rec), 1);
	assert_int_equal(rec.type, MD_REC_SNAP_END);
	assert_int_equal(rec.u.snap_end.unreadable_pages, 12);
	assert_int_equal(rec.u.snap_end.vm_hwm, 1 << 20);

	assert_int_equal(md_read_next(r, &rec), 1);
	assert_int_equal(rec.type, MD_REC_NOTE);
	assert_string_equal(rec.u.note.text, "PSS unavailable");
	assert_int_equal(rec.u.note.kind, MD_NOTE_NO_PFN);
	assert_false(rec.u.note.kind_inferred);

	assert_int_equal(md_read_next(r, &rec), 1);
	assert_int_equal(rec.type, MD_REC_MUNMAP);
	assert_int_equal(rec.u.mmap2.time, 9);
	assert_false(rec.u.mmap2.synthesized);
	assert_string_equal(rec.u.mmap2.filename, "/bin/true (deleted)");

	/* the writer's close appended the END record: the file is whole */
	assert_int_equal(md_read_next(r, &rec), 1);
	assert_int_equal(rec.type, MD_REC_END);
	assert_int_equal(rec.u.end.nrecords, 12);
	assert_int_equal(rec.u.end.nsamples, 0);

	assert_int_equal(md_read_next(r, &rec), 0);
	assert_int_equal(md_read_next(r, &rec), 0);
	assert_false(md_reader_cut_short(r));
}

/* A string of a record is at most MD_STR_MAX bytes: the writer cuts a
 * longer one (its u32 length would have wrapped at 4 GiB), a reader
 * refuses a longer one as malformed, naming why (a hostile recording's
 * string of gigabytes went into labels and messages, and a message of
 * 2 GiB or more ended memsz). */
static void test_long_string(void **state)
{
	size_t n = MD_STR_MAX + 1;
	struct md_buf b = {0};
	struct md_cur c = {0};
	char *s = xmalloc(n + 8);
	uint8_t *q;

	memset(s, 'x', n + 7);
	s[n + 7] = 0;
	md_buf_str(&b, s);
	assert_int_equal(get_u32(b.p), MD_STR_MAX);
	assert_int_equal(b.len, (4 + MD_STR_MAX + 1 + 7) & ~(size_t)7);
	c.p = b.p;
	c.len = b.len;
	assert_int_equal(strlen(md_cur_str(&c)), MD_STR_MAX);
	assert_int_equal(c.err, 0);
	/* a UTF-8 character the cut would split is left out whole */
	b.len = 0;
	memcpy(s + MD_STR_MAX - 1, "\xc3\xa9", 2);
	md_buf_str(&b, s);
	assert_int_equal(get_u32(b.p), MD_STR_MAX - 1);
	memset(s + MD_STR_MAX - 1, 'x', 2);
	/* one byte longer, NUL and padding there: refused */
	b.len = 0;
	q = md_buf_grow(&b, (4 + n + 1 + 7) & ~(size_t)7);
	put_u32(q, (uint32_t)n);
	memcpy(q + 4, s, n);
	c = (struct md_cur){.p = b.p, .len = b.len};
	assert_string_equal(md_cur_str(&c), "");
	assert_int_equal(c.err, -MEMSZ_EBADDATA);
	assert_string_equal(c.why, "a string is longer than 16 MiB");
	free(b.p);
	free(s);
	(void)state;
}

/* A COMM record with its owner reads back with it; one without reads
 * back without (has_owner false), as a COMM from perf does. */
static void test_comm_owner(void **state)
{
	char *path = tpath("owner.data");
	struct md_task k = {.time = 1,
			    .pid = 7,
			    .tid = 7,
			    .comm = "sshd",
			    .has_owner = true,
			    .uid = 65534,
			    .user = "nobody"};
	struct md_task plain = {
	    .time = 2, .pid = 8, .tid = 8, .comm = "perfcomm"};
	struct md_writer *w;
	struct md_reader *r;
	struct md_record rec;

	assert_int_equal(md_writer_open(path, &w), 0);
	assert_int_equal(md_write_task(w, MD_REC_COMM, &k), 0);
	assert_int_equal(md_write_task(w, MD_REC_COMM, &plain), 0);
	k.user = "";
	k.uid = 1234;
	assert_int_equal(md_write_task(w, MD_REC_COMM, &k), 0);
	assert_int_equal(md_writer_commit(w), 0);
	assert_int_equal(md_writer_close(w), 0);

	assert_int_equal(md_reader_open(path, &r), 0);
	assert_int_equal(md_read_next(r, &rec), 1);
	assert_string_equal(rec.u.task.comm, "sshd");
	assert_true(rec.u.task.has_owner);
	assert_int_equal(rec.u.task.uid, 65534);
	assert_string_equal(rec.u.task.user, "nobody");
	assert_int_equal(md_read_next(r, &rec), 1);
	assert_string_equal(rec.u.task.comm, "perfcomm");
	assert_false(rec.u.task.has_owner);
	assert_int_equal(md_read_next(r, &rec), 1);
	assert_true(rec.u.task.has_owner);
	assert_int_equal(rec.u.task.uid, 1234);
	assert_string_equal(rec.u.task.user, "");
	assert_int_equal(md_read_next(r, &rec), 1);
	assert_int_equal(rec.type, MD_REC_END);
	assert_int_equal(md_read_next(r, &rec), 0);
	md_reader_close(r);
	unlink(path);
	free(path);
	(void)state;
}

static void test_round_trip(void **state)
{
	char *path = make_full_file();
	struct md_reader *r;
	const struct md_file_header *h;
	size_t len;
	uint8_t *raw;

	assert_int_equal(md_reader_open(path, &r), 0);
	h = md_reader_header(r);
	assert_memory_equal(h->magic, "MEMSZDAT", 8);
	assert_int_equal(h->version, MD_VERSION);
	assert_int_equal(h->header_size, 64);
	assert_int_equal(h->page_size, sysconf(_SC_PAGESIZE));
	assert_true(h->start_realtime_ns > 1600000000ull * 1000000000ull);
	check_all_types(r);
	md_reader_close(r);

	/* the encoding is little-endian byte by byte, whatever the host */
	raw = read_file(path, &len);
	assert_int_equal(len % 8, 0);
	assert_int_equal(raw[8], MD_VERSION);
	assert_int_equal(raw[9] | raw[10] | raw[11], 0);
	assert_int_equal(raw[64], MD_REC_IMAGE);
	assert_int_equal(raw[64 + 16 + 4], 0x03); /* dev_major 0x103 LE */
	assert_int_equal(raw[64 + 16 + 5], 0x01);

	/* the same bytes in memory (md_reader_open_mem): the same records,
	 * and the buffer stays the caller's (freed below, not unmapped) */
	assert_int_equal(md_reader_open_mem(raw, len, &r), 0);
	check_all_types(r);
	md_reader_close(r);
	assert_int_equal(md_reader_open_mem(raw, 40, &r), -MEMSZ_ETRUNC);
	raw[0] = 'X';
	assert_int_equal(md_reader_open_mem(raw, len, &r), -MEMSZ_EBADMAGIC);
	free(raw);
	free(path);
	(void)state;
}

/* MD_WRITER_BATCH: the records stay in memory until a flush (the file
 * holds its header alone meanwhile, while md_writer_offset() counts
 * them), then read back as written one by one. */
static void test_batch(void **state)
{
	char *path = tpath("batch.data");
	struct md_writer_stats ws;
	struct md_writer *w;
	struct md_reader *r;
	struct stat st;

	assert_int_equal(md_writer_open_flags(path, MD_WRITER_BATCH, &w), 0);
	write_all_types(w);
	assert_int_equal(stat(md_writer_temp_path(w), &st), 0);
	assert_int_equal(st.st_size, 64);
	assert_true(md_writer_offset(w) > 64);
	assert_int_equal(md_writer_flush(w), 0);
	assert_int_equal(stat(md_writer_temp_path(w), &st), 0);
	assert_int_equal((uint64_t)st.st_size, md_writer_offset(w));
	md_writer_stats(w, &ws);
	assert_int_equal(ws.bytes, md_writer_offset(w));
	assert_int_equal(md_writer_commit(w), 0);
	assert_int_equal(md_writer_close(w), 0);
	assert_int_equal(md_reader_open(path, &r), 0);
	check_all_types(r);
	md_reader_close(r);
	unlink(path);
	free(path);
	(void)state;
}

/* The entries of the test directory whose name starts with prefix. */
static int entries_named(const char *prefix)
{
	DIR *d = opendir(tmpdir);
	struct dirent *de;
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		n += !strncmp(de->d_name, prefix, strlen(prefix));
	closedir(d);
	return n;
}

/* MD_WRITER_UNNAMED: nothing is named in the directory while the file is
 * written (0600, whatever the umask), the file is linked in at commit
 * (a recording there moved to .old, a symlink replaced, not followed),
 * kept as dest (replacing it) by md_writer_keep, and a writer closed
 * without either leaves nothing behind. */
static void test_unnamed(void **state)
{
	char *path = tpath("unnamed.data"), *old = tpath("unnamed.data.old");
	char *dest = tpath("unnamed.partial"), *victim = tpath("victim");
	struct md_writer *w;
	struct md_reader *r;
	struct stat st, st2;
	mode_t mask = umask(002);
	FILE *f;

	assert_int_equal(md_writer_open_flags(path, MD_WRITER_UNNAMED, &w), 0);
	umask(mask);
	write_all_types(w);
	assert_int_equal(entries_named("unnamed"), 0);
	assert_int_equal(stat(md_writer_temp_path(w), &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(md_writer_commit(w), 0);
	assert_int_equal(md_writer_close(w), 0);
	assert_int_equal(entries_named("unnamed"), 1);
	assert_int_equal(md_reader_open(path, &r), 0);
	check_all_types(r);
	md_reader_close(r);
	assert_int_equal(stat(path, &st), 0);
	/* again: the first moves to .old */
	assert_int_equal(md_writer_open_flags(path, MD_WRITER_UNNAMED, &w), 0);
	write_all_types(w);
	assert_int_equal(md_writer_commit(w), 0);
	assert_int_equal(md_writer_close(w), 0);
	assert_int_equal(stat(old, &st2), 0);
	assert_int_equal(st2.st_ino, st.st_ino);
	assert_int_equal(stat(path, &st2), 0);
	assert_true(st2.st_ino != st.st_ino);
	assert_int_equal(entries_named("unnamed"), 2);
	/* a symlink at path is replaced; what it names stays */
	f = fopen(victim, "w");
	assert_non_null(f);
	fputs("victim", f);
	fclose(f);
	unlink(old);
	unlink(path);
	assert_int_equal(symlink(victim, path), 0);
	assert_int_equal(md_writer_open_flags(path, MD_WRITER_UNNAMED, &w), 0);
	write_all_types(w);
	assert_int_equal(md_writer_commit(w), 0);
	assert_int_equal(md_writer_close(w), 0);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(stat(victim, &st), 0);
	assert_int_equal(st.st_size, 6);
	/* never kept over something at dest (an earlier run's partial
	 * recording; a symlink, neither followed nor replaced): -EEXIST,
	 * then kept as dest once it is free */
	assert_int_equal(symlink(victim, dest), 0);
	assert_int_equal(md_writer_open_flags(path, MD_WRITER_UNNAMED, &w), 0);
	write_all_types(w);
	assert_int_equal(md_writer_keep(w, dest), -EEXIST);
	assert_int_equal(lstat(dest, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_int_equal(stat(victim, &st), 0);
	assert_int_equal(st.st_size, 6);
	assert_int_equal(unlink(dest), 0);
	assert_int_equal(md_writer_keep(w, dest), 0);
	assert_int_equal(md_writer_close(w), 0);
	assert_int_equal(lstat(dest, &st), 0);
	assert_true(S_ISREG(st.st_mode) && st.st_size > 64);
	assert_int_equal(entries_named("unnamed"), 2);
	/* closed uncommitted: nothing left */
	assert_int_equal(md_writer_open_flags(dest, MD_WRITER_UNNAMED, &w), 0);
	write_all_types(w);
	assert_int_equal(md_writer_close(w), 0);
	assert_int_equal(entries_named("unnamed"), 2);
	unlink(path);
	unlink(dest);
	unlink(victim);
	free(path);
	free(old);
	free(dest);
	free(victim);
	(void)state;
}

/* md_writer_gather(): the records written while on stay in memory (the
 * file holds its header alone), off writes them, and they read back as
 * written one by one; the temporary file is its owner's alone (0600,
 * as perf.data: whatever the umask, here 002). */
static void test_gather(void **state)
{
	char *path = tpath("gather.data");
	struct md_writer *w;
	struct md_reader *r;
	struct stat st;
	mode_t old = umask(002);

	assert_int_equal(md_writer_open(path, &w), 0);
	umask(old);
	assert_int_equal(md_writer_gather(w, true), 0);
	write_all_types(w);
	assert_int_equal(stat(md_writer_temp_path(w), &st), 0);
	assert_int_equal(st.st_size, 64);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(md_writer_gather(w, false), 0);
	assert_int_equal(stat(md_writer_temp_path(w), &st), 0);
	assert_int_equal((uint64_t)st.st_size, md_writer_offset(w));
	assert_int_equal(md_writer_commit(w), 0);
	assert_int_equal(md_writer_close(w), 0);
	assert_int_equal(md_reader_open(path, &r), 0);
	check_all_types(r);
	md_reader_close(r);
	unlink(path);
	free(path);
	(void)state;
}

/* Nothing follows the END record: once md_writer_commit() wrote it, a
 * record of any kind (one alone, a snapshot's mapping, a sample), in
 * gather mode or not, is refused (-MEMSZ_EENDED) and leaves the file as
 * it was, whole to its END, also after md_writer_flush() and
 * md_writer_close(); in each writer mode. memsz record's tracer told it of
 * a target's exit after the commit, whose snapshot then went after the
 * END record, and readers called the recording damaged. */
static void test_nothing_after_end(void **state)
{
	static const unsigned modes[] = {0, MD_WRITER_BATCH,
					 MD_WRITER_BATCH | MD_WRITER_UNNAMED};
	const struct md_snap_begin sb = {7, 44, 1, MD_SNAP_F_AT_EXIT, 1};
	const struct md_snap_mapping map = {
	    .start = 0x400000, .end = RUNS_END, .runs = runs, .nruns = 3};
	const struct md_sample sm = {.time = 8, .pid = 44, .tid = 44};
	char *path = tpath("ended.data");

	for (size_t i = 0; i < ARRAY_SIZE(modes); i++) {
		struct md_writer *w;
		struct md_reader *r;
		struct stat st, st2;

		assert_int_equal(md_writer_open_flags(path, modes[i], &w), 0);
		write_all_types(w);
		assert_int_equal(md_writer_commit(w), 0);
		assert_int_equal(stat(path, &st), 0);
		assert_int_equal(
		    md_write_note_kind(w, MD_NOTE_OTHER, NULL, "after the end"),
		    -MEMSZ_EENDED);
		assert_int_equal(md_writer_gather(w, true), 0);
		assert_int_equal(md_write_snap_begin(w, &sb), -MEMSZ_EENDED);
		assert_int_equal(md_write_mapping(w, &map), -MEMSZ_EENDED);
		assert_int_equal(md_writer_gather(w, false), 0);
		assert_int_equal(md_write_sample(w, &sm), -MEMSZ_EENDED);
		assert_int_equal(md_writer_flush(w), 0);
		assert_int_equal(md_writer_close(w), 0);
		assert_int_equal(stat(path, &st2), 0);
		assert_int_equal(st2.st_size, st.st_size);
		assert_int_equal(md_reader_open(path, &r), 0);
		check_all_types(r); /* to its END, nothing after it */
		md_reader_close(r);
		unlink(path);
	}
	free(path);
	(void)state;
}

static void test_old_renamed(void **state)
{
	char *path = tpath("keep.data"), *old = tpath("keep.data.old");
	struct md_writer *w;
	struct stat st;

	write_file(path, "previous", 8);
	assert_int_equal(md_writer_open(path, &w), 0);
	assert_int_equal(md_writer_commit(w), 0);
	assert_int_equal(md_writer_close(w), 0);
	assert_int_equal(stat(old, &st), 0);
	assert_int_equal(st.st_size, 8);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, 64 + 40); /* header, END record */
	free(path);
	free(old);
	(void)state;
}

/* A SNAP_END as files written before vm_hwm was appended hold it (24
 * payload bytes, a file without checksums) reads with vm_hwm 0; a CMDLINE
 * record reads back. */
static void test_old_snap_end(void **state)
{
	char *path = tpath("old-end.data");
	uint8_t b[144] = {0};
	struct md_task k = {
	    .time = 1, .pid = 7, .tid = 7, .comm = "postgres: idle"};
	struct md_writer *w;
	struct md_reader *r;
	struct md_record got;

	memcpy(b, "MEMSZDAT", 8);
	put_le32(b + 8, 2);	/* version */
	put_le32(b + 12, 64);	/* header size; flags 0: no CRC */
	put_le32(b + 40, 4096); /* page size */
	put_le32(b + 64, MD_REC_SNAP_BEGIN);
	put_le64(b + 64 + 8, 16 + 24);
	put_le64(b + 64 + 16, 5); /* time */
	put_le32(b + 64 + 24, 7); /* pid */
	put_le32(b + 64 + 28, 1); /* seq; flags and nmappings 0 */
	put_le32(b + 104, MD_REC_SNAP_END);
	put_le64(b + 104 + 8, 16 + 24);
	put_le64(b + 104 + 16, 6); /* time */
	put_le32(b + 104 + 24, 7); /* pid */
	put_le32(b + 104 + 28, 1); /* seq */
	put_le64(b + 104 + 32, 3); /* unreadable_pages */
	write_file(path, b, sizeof(b));
	assert_int_equal(md_reader_open(path, &r), 0);
	assert_int_equal(md_read_next(r, &got), 1);
	assert_int_equal(got.type, MD_REC_SNAP_BEGIN);
	assert_int_equal(md_read_next(r, &got), 1);
	assert_int_equal(got.type, MD_REC_SNAP_END);
	assert_int_equal(got.u.snap_end.pid, 7);
	assert_int_equal(got.u.snap_end.unreadable_pages, 3);
	assert_int_equal(got.u.snap_end.vm_hwm, 0);
	assert_int_equal(md_read_next(r, &got), 0);
	md_reader_close(r);

	assert_int_equal(md_writer_open(path, &w), 0);
	assert_int_equal(md_write_task(w, MD_REC_CMDLINE, &k), 0);
	assert_int_equal(md_writer_commit(w), 0);
	assert_int_equal(md_writer_close(w), 0);
	assert_int_equal(md_reader_open(path, &r), 0);
	assert_int_equal(md_read_next(r, &got), 1);
	assert_int_equal(got.type, MD_REC_CMDLINE);
	assert_string_equal(got.u.task.comm, "postgres: idle");
	assert_int_equal(md_read_next(r, &got), 1);
	assert_int_equal(got.type, MD_REC_END);
	assert_int_equal(md_read_next(r, &got), 0);
	md_reader_close(r);
	free(path);
	(void)state;
}

/* A NOTE's kind and subject survive the write and the read; a kind the
 * writer does not know is refused; a reserved word that is not 0 is
 * damage. The transitional text-only writer stores the kind its words
 * say. */
static void test_note_kinds(void **state)
{
	char *path = tpath("notes.data");
	static const uint64_t vals[] = {7, 8388608, 1};
	struct md_writer *w;
	struct md_reader *r;
	struct md_record rec;
	uint64_t off;

	assert_int_equal(md_writer_open(path, &w), 0);
	assert_int_equal(md_write_note_kind(w, MD_NOTE_UNREADABLE_PAGES,
					    "[heap]", "2 pages unreadable"),
			 0);
	assert_int_equal(
	    md_write_note_kind(w, MD_NOTE_PAGES_CHANGED, NULL, "pages changed"),
	    0);
	assert_int_equal(md_write_note_kind(w, MD_NOTE__COUNT, NULL, "x"),
			 -EINVAL);
	assert_int_equal(
	    md_write_note_kind(w, MD_NOTE_EVENT, NULL, "event 0: page-faults"),
	    0);
	/* numbers after the text, for a report to add up */
	assert_int_equal(md_write_note_vals(w, MD_NOTE_DIRTY_BY_MAPPING, NULL,
					    "counted clean", vals, 3),
			 0);
	assert_int_equal(md_write_note_vals(w, MD_NOTE_DIRTY_BY_MAPPING, NULL,
					    "x", vals, MD_NOTE_MAX_VALS + 1),
			 -EINVAL);
	assert_int_equal(md_writer_commit(w), 0);
	assert_int_equal(md_writer_close(w), 0);

	assert_int_equal(md_reader_open(path, &r), 0);
	assert_true(md_reader_header(r)->version >= 4);
	assert_int_equal(md_read_next(r, &rec), 1);
	assert_int_equal(rec.type, MD_REC_NOTE);
	assert_int_equal(rec.u.note.kind, MD_NOTE_UNREADABLE_PAGES);
	assert_string_equal(rec.u.note.subject, "[heap]");
	assert_string_equal(rec.u.note.text, "2 pages unreadable");
	assert_false(rec.u.note.kind_inferred);
	/* dump -v shows the stored kind and subject under the note */
	assert_string_equal(print_record(&rec, true),
			    "0x40 [0x40]: NOTE 2 pages unreadable\n"
			    "    kind 2 unreadable-pages subject [heap]\n");
	assert_string_equal(print_record(&rec, false),
			    "0x40 [0x40]: NOTE 2 pages unreadable\n");
	assert_int_equal(md_read_next(r, &rec), 1);
	assert_int_equal(rec.u.note.kind, MD_NOTE_PAGES_CHANGED);
	assert_string_equal(rec.u.note.subject, "");
	assert_int_equal(md_read_next(r, &rec), 1);
	assert_int_equal(rec.u.note.kind, MD_NOTE_EVENT);
	assert_string_equal(rec.u.note.text, "event 0: page-faults");
	assert_false(rec.u.note.kind_inferred);
	assert_int_equal(md_read_next(r, &rec), 1);
	assert_int_equal(rec.u.note.kind, MD_NOTE_DIRTY_BY_MAPPING);
	assert_string_equal(rec.u.note.text, "counted clean");
	/* the values: a record of their own after the note */
	assert_int_equal(md_read_next(r, &rec), 1);
	assert_int_equal(rec.type, MD_REC_NOTE_VALUES);
	assert_int_equal(rec.u.note_values.kind, MD_NOTE_DIRTY_BY_MAPPING);
	assert_int_equal(rec.u.note_values.nvals, 3);
	assert_memory_equal(rec.u.note_values.vals, vals, sizeof(vals));
	assert_string_equal(print_record(&rec, false),
			    "0x130 [0x30]: NOTE_VALUES kind 23 "
			    "dirty-by-mapping 7 8388608 1\n");
	assert_int_equal(md_read_next(r, &rec), 1);
	assert_int_equal(rec.type, MD_REC_END);
	md_reader_close(r);

	/* the reserved word of the first note (after the record header and
	 * the kind) must be 0 */
	assert_int_equal(open_patched(path, 64 + 16 + 4, "\1", 1, &r), 0);
	assert_int_equal(read_until_error(r, &off), -MEMSZ_EBADDATA);
	assert_int_equal(off, 64);
	/* a NOTE_VALUES count that does not fill its record (2 of 3) is
	 * damage, not a value left out */
	assert_int_equal(open_patched(path, 0x130 + 16 + 4, "\2", 1, &r), 0);
	assert_int_equal(read_until_error(r, &off), -MEMSZ_EBADDATA);
	assert_int_equal(off, 0x130);
	free(path);
	(void)state;
}

/* A version 3 file's NOTE is text alone: the reader gives it the kind its
 * words say (and the subject they quote), once, marked inferred. */
static void test_note_v3(void **state)
{
	static const struct {
		const char *text;
		enum md_note_kind kind;
		const char *subject;
	} notes[] = {
	    {"PSS unavailable: PFNs are not readable", MD_NOTE_NO_PFN, ""},
	    {"12 pages of '[heap]' cannot be read from pagemap",
	     MD_NOTE_UNREADABLE_PAGES, "[heap]"},
	    {"event 1: perf::PAGE-FAULTS:u", MD_NOTE_EVENT, ""},
	    {"a message of no known kind", MD_NOTE_OTHER, ""},
	};
	char *path = tpath("v3-notes.data");
	uint8_t b[64 + 4 * 80] = {0};
	size_t at = 64;
	struct md_reader *r;
	struct md_record rec;

	memcpy(b, "MEMSZDAT", 8);
	put_le32(b + 8, 3);	/* version */
	put_le32(b + 12, 64);	/* header size; flags 0: no CRC */
	put_le32(b + 40, 4096); /* page size */
	for (size_t i = 0; i < ARRAY_SIZE(notes); i++) {
		size_t n = strlen(notes[i].text);
		size_t size = 16 + ((4 + n + 1 + 7) & ~(size_t)7);

		put_le32(b + at, MD_REC_NOTE);
		put_le64(b + at + 8, size);
		put_le32(b + at + 16, (uint32_t)n);
		memcpy(b + at + 20, notes[i].text, n);
		at += size;
		assert_true(at <= sizeof(b));
	}
	write_file(path, b, at);
	assert_int_equal(md_reader_open(path, &r), 0);
	for (size_t i = 0; i < ARRAY_SIZE(notes); i++) {
		assert_int_equal(md_read_next(r, &rec), 1);
		assert_int_equal(rec.type, MD_REC_NOTE);
		assert_string_equal(rec.u.note.text, notes[i].text);
		assert_int_equal(rec.u.note.kind, notes[i].kind);
		assert_string_equal(rec.u.note.subject, notes[i].subject);
		assert_true(rec.u.note.kind_inferred);
		/* the file stores no kind: dump -v shows none */
		assert_null(strstr(print_record(&rec, true), "\n    kind"));
	}
	assert_int_equal(md_read_next(r, &rec), 0);
	md_reader_close(r);
	free(path);
	(void)state;
}

/* The legacy table knows every message memsz record wrote before notes
 * had kinds (record/session.c and record/snapshot.c at format version
 * 3), each as its kind. */
static void test_note_legacy_table(void **state)
{
	static const struct {
		const char *text;
		enum md_note_kind kind;
	} t[] = {
	    {"pid 12 (cat) left out: cannot read its memory (Permission "
	     "denied)",
	     MD_NOTE_TARGET_UNREADABLE},
	    {"cannot leash thread 7 (No such process): samples may be "
	     "lost when memsz falls behind",
	     MD_NOTE_LEASH_FAILED},
	    {"perf_event_open failed: polling /proc/PID/maps instead "
	     "(mappings that live less than 100 ms may be missed)",
	     MD_NOTE_POLLING},
	    {"pid 12 (cat) exited before the final snapshot",
	     MD_NOTE_TARGET_EXITED},
	    {"pid 12 (cat) not recorded: it exited before a snapshot "
	     "could be taken",
	     MD_NOTE_TARGET_EXITED},
	    {"event 0: page-faults", MD_NOTE_EVENT},
	    {"kernel-mode faults not permitted (perf_event_paranoid): "
	     "sampling faults taken in user mode only",
	     MD_NOTE_USER_FAULTS_ONLY},
	    {"sample ring buffers limited to 516 KiB per cpu "
	     "(perf_event_mlock_kb): samples may be lost",
	     MD_NOTE_RING_SMALL},
	    {"cannot ptrace pid 5 (Operation not permitted): no snapshot "
	     "at its exit",
	     MD_NOTE_NO_PTRACE},
	    {"pid 12 (cat) not recorded: it exited while memsz attached",
	     MD_NOTE_TARGET_EXITED},
	    {"cannot list the processes of '/sys/fs/cgroup/x' any more: "
	     "No such file or directory",
	     MD_NOTE_SCAN_FAILED},
	    {"3 processes could not be read (Permission denied) and are "
	     "left out: pid 1, 2, 3",
	     MD_NOTE_SCAN_DENIED},
	    {"1 process exited before its first snapshot",
	     MD_NOTE_TARGET_EXITED},
	    {"40 kernel threads skipped (no user memory)", MD_NOTE_KTHREADS},
	    {"threads stopped 3 times at their leash (every 3183 samples "
	     "at most) for memsz to look at the sample rings",
	     MD_NOTE_LEASH_STOPS},
	    {"the sample rings are too small for a leash of one sample "
	     "per traced thread: samples may be lost when memsz falls "
	     "behind (a larger -m helps)",
	     MD_NOTE_LEASH_SHORT},
	    {"targets held 2 times, 0.004 s in all, while memsz drained "
	     "the sample rings (backpressure)",
	     MD_NOTE_HELD},
	    {"17 perf records lost", MD_NOTE_LOST},
	    {"3 pages of '/usr/lib/x.so' cannot be read from pagemap",
	     MD_NOTE_UNREADABLE_PAGES},
	    {"pid 9, snapshot 2: 1 mapping(s) overlapping others in "
	     "/proc/9/maps (it changed while read) left out",
	     MD_NOTE_MAPS_CHANGED},
	    {"PSS unavailable: PFNs are not readable without "
	     "CAP_SYS_ADMIN",
	     MD_NOTE_NO_PFN},
	    {"pid 9, snapshot 2: 141 page(s) changed between the stop "
	     "and the reading of their pagemap entries: counted as they "
	     "were at the stop",
	     MD_NOTE_PAGES_CHANGED},
	    /* what the report never grouped stays ungrouped */
	    {"0 pages of '' cannot be read from pagemap", MD_NOTE_OTHER},
	    {"the PSS unavailable", MD_NOTE_OTHER},
	};
	const char *s;
	size_t len;

	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		enum md_note_kind k =
		    md_note_kind_from_text(t[i].text, &s, &len);

		if (k != t[i].kind)
			fail_msg("'%s': kind %s, not %s", t[i].text,
				 md_note_kind_name(k),
				 md_note_kind_name(t[i].kind));
	}
	assert_int_equal(md_note_kind_from_text(t[18].text, &s, &len),
			 MD_NOTE_UNREADABLE_PAGES);
	assert_int_equal(len, strlen("/usr/lib/x.so"));
	assert_memory_equal(s, "/usr/lib/x.so", len);
	assert_string_equal(md_note_kind_name(MD_NOTE__COUNT + 5), "other");
	(void)state;
}

/* The first SNAP_BEGIN of path, read with the header patched to version
 * (0: as written): its flags. */
static uint32_t first_snap_flags(const char *path, uint32_t version)
{
	struct md_reader *r;
	struct md_record rec;
	uint8_t b[4];
	uint32_t flags = UINT32_MAX;

	put_le32(b, version);
	if (version)
		assert_int_equal(open_patched(path, 8, b, 4, &r), 0);
	else
		assert_int_equal(md_reader_open(path, &r), 0);
	while (md_read_next(r, &rec) == 1)
		if (rec.type == MD_REC_SNAP_BEGIN && flags == UINT32_MAX)
			flags = rec.u.snap_begin.flags;
	md_reader_close(r);
	return flags;
}

/* MD_SNAP_F_MAPS (version 7): a snapshot standing for the MMAP2 records
 * of its mappings reads back flagged; in a file of version 6 the bit
 * meant nothing and reads as 0; a writer of version 5 refuses it (its
 * readers would lose the mapping records). */
static void test_snap_maps_flag(void **state)
{
	char *path = tpath("maps.data"), *v5 = tpath("maps5.data");
	struct md_snap_begin sb = {5, 42, 0, MD_SNAP_F_PFN | MD_SNAP_F_MAPS, 0};
	struct md_snap_end se = {6, 42, 0, 0, 0};
	struct md_writer *w;

	(void)state;
	assert_int_equal(md_writer_open(path, &w), 0);
	assert_int_equal(md_write_snap_begin(w, &sb), 0);
	assert_int_equal(md_write_snap_end(w, &se), 0);
	assert_int_equal(md_writer_commit(w), 0);
	assert_int_equal(md_writer_close(w), 0);
	assert_int_equal(first_snap_flags(path, 0),
			 MD_SNAP_F_PFN | MD_SNAP_F_MAPS);
	assert_int_equal(first_snap_flags(path, 7),
			 MD_SNAP_F_PFN | MD_SNAP_F_MAPS);
	assert_int_equal(first_snap_flags(path, 6), MD_SNAP_F_PFN);
	assert_int_equal(md_writer_open_flags(v5, MD_WRITER_V5, &w), 0);
	assert_int_equal(md_write_snap_begin(w, &sb), -EINVAL);
	sb.flags = MD_SNAP_F_PFN;
	assert_int_equal(md_write_snap_begin(w, &sb), 0);
	assert_int_equal(md_write_snap_end(w, &se), 0);
	assert_int_equal(md_writer_commit(w), 0);
	assert_int_equal(md_writer_close(w), 0);
	free(path);
	free(v5);
}

/* JITMAP: symbols written are read back; bad ones are refused by the
 * writer and, patched into a file, by the reader. */
static void test_jitmap(void **state)
{
	static const struct md_jit_sym syms[] = {
	    {0x7f0000001000, 0x40, "JS:*hot /app/x.js:3:10"},
	    {0x7f0000001040, 0x1b4, ""},
	    {0x7f0000001000, 0x20, "LazyCompile:~later"},
	};
	struct md_jitmap jm = {
	    .time = 77, .pid = 4242, .nsyms = 3, .syms = syms};
	struct md_jit_sym bad = {0xfffffffffffff000ull, 0x2000, "wraps"};
	struct md_jitmap badm = {.pid = 1, .nsyms = 1, .syms = &bad};
	char *path = tpath("jit.data");
	struct md_writer *w;
	struct md_reader *r;
	struct md_record rec;
	uint8_t b[8];
	uint64_t off;

	assert_int_equal(md_writer_open(path, &w), 0);
	assert_int_equal(md_write_jitmap(w, &badm), -EINVAL);
	bad.start = 0x1000;
	bad.size = 0;
	assert_int_equal(md_write_jitmap(w, &badm), -EINVAL);
	badm.nsyms = 0;
	assert_int_equal(md_write_jitmap(w, &badm), -EINVAL);
	assert_int_equal(md_write_jitmap(w, &jm), 0);
	assert_int_equal(md_writer_commit(w), 0);
	assert_int_equal(md_writer_close(w), 0);

	assert_int_equal(md_reader_open(path, &r), 0);
	assert_int_equal(md_read_next(r, &rec), 1);
	assert_int_equal(rec.type, MD_REC_JITMAP);
	assert_int_equal(rec.u.jitmap.time, 77);
	assert_int_equal(rec.u.jitmap.pid, 4242);
	assert_int_equal(rec.u.jitmap.nsyms, 3);
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(rec.u.jitmap.syms[i].start, syms[i].start);
		assert_int_equal(rec.u.jitmap.syms[i].size, syms[i].size);
		assert_string_equal(rec.u.jitmap.syms[i].name, syms[i].name);
	}
	assert_int_equal(md_read_next(r, &rec), 1);
	assert_int_equal(rec.type, MD_REC_END);
	assert_int_equal(md_read_next(r, &rec), 0);
	md_reader_close(r);

	/* payload at 64 + 16: time, pid, nsyms, then start, size, name */
	put_le32(b, 4); /* one symbol more than the record holds */
	assert_int_equal(open_patched(path, 64 + 16 + 12, b, 4, &r), 0);
	assert_int_equal(read_until_error(r, &off), -MEMSZ_EBADDATA);
	put_le32(b, 0); /* no symbol */
	assert_int_equal(open_patched(path, 64 + 16 + 12, b, 4, &r), 0);
	assert_int_equal(read_until_error(r, &off), -MEMSZ_EBADDATA);
	put_le64(b, 0); /* size 0 */
	assert_int_equal(open_patched(path, 64 + 16 + 24, b, 8, &r), 0);
	assert_int_equal(read_until_error(r, &off), -MEMSZ_EBADDATA);
	put_le64(b, UINT64_MAX); /* start + size wraps */
	assert_int_equal(open_patched(path, 64 + 16 + 16, b, 8, &r), 0);
	assert_int_equal(read_until_error(r, &off), -MEMSZ_EBADDATA);
	assert_int_equal(off, 64);
	free(path);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_round_trip),
	    cmocka_unit_test(test_long_string),
	    cmocka_unit_test(test_batch),
	    cmocka_unit_test(test_gather),
	    cmocka_unit_test(test_nothing_after_end),
	    cmocka_unit_test(test_unnamed),
	    cmocka_unit_test(test_comm_owner),
	    cmocka_unit_test(test_old_renamed),
	    cmocka_unit_test(test_jitmap),
	    cmocka_unit_test(test_old_snap_end),
	    cmocka_unit_test(test_snap_maps_flag),
	    cmocka_unit_test(test_note_kinds),
	    cmocka_unit_test(test_note_v3),
	    cmocka_unit_test(test_note_legacy_table),
	};

	return test_run_group(tests, datafile_setup, datafile_teardown);
}
