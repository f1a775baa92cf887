// SPDX-License-Identifier: GPL-2.0-or-later
/* test_datafile.c — the memsz.data codec: round trip of every record type,
 * a file cut at every byte, corrupt headers and records, full disks. */
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
#include "data/pgstate.h"
#include "data/stackref.h"
#include "tests/testutil.h"
#include "util/util.h"

static char tmpdir[] = "/tmp/memsz-test-datafile-XXXXXX";

static char *tpath(const char *name)
{
	return xasprintf("%s/%s", tmpdir, name);
}

static const struct md_run runs[] = {
    {0x400000, 3, MD_PG_PRESENT | MD_PG_FILE, 2, 0},
    {0x403000, 1, MD_PG_SWAPPED, 0, 0},
    {0x404000, 100000, MD_PG_PRESENT | MD_PG_EXCLUSIVE | MD_PG_PRIVATE_DIRTY, 1,
     0},
};
/* A page-aligned end of a mapping that holds the runs above. */
#define RUNS_END 0x20000000ull

/* Writes one record of every type; returns the count written. */
static int write_all_types(struct md_writer *w)
{
	struct md_image im = {
	    .id = 7,
	    .dev_major = 0x103,
	    .dev_minor = 0x10001,
	    .ino = 1234567890123ull,
	    .size = 4096 * 5 + 3,
	    .mtime_ns = -5,
	    .build_id = {0xde, 0xad, 0xbe, 0xef, 1, 2},
	    .build_id_len = 20,
	    .path = "/usr/lib/lib with space.so",
	    .open_path = "/proc/42/root/usr/lib/lib with space.so",
	};
	struct md_mmap2 mm = {
	    .time = 123456789,
	    .pid = 42,
	    .tid = 43,
	    .start = 0x7f0000001000,
	    .len = 0x3000,
	    .pgoff = 0x2000,
	    .dev_major = 8,
	    .dev_minor = 1,
	    .ino = 99,
	    .ino_generation = 5,
	    .prot = 5,
	    .flags = 2,
	    .build_id = {1, 2, 3},
	    .build_id_len = 3,
	    .synthesized = true,
	    .filename = "/bin/true (deleted)",
	};
	struct md_task comm = {
	    .time = 1, .pid = 42, .tid = 43, .comm = "worker"};
	struct md_task fork = {.time = 2,
			       .pid = 44,
			       .tid = 44,
			       .ppid = 42,
			       .ptid = 43,
			       .comm = "ignored"};
	struct md_task ex = {
	    .time = 3, .pid = 44, .tid = 44, .ppid = 42, .ptid = 43};
	struct md_lost lost = {4, 17};
	struct md_snap_begin sb = {5, 42, 0, MD_SNAP_F_PFN, 2};
	struct md_snap_mapping map = {
	    .start = 0x400000,
	    .end = RUNS_END,
	    .pgoff = 0,
	    .dev_major = 8,
	    .dev_minor = 1,
	    .ino = 99,
	    .prot = 5,
	    .flags = 2,
	    .image_id = 7,
	    .name = "/bin/true",
	    .runs = runs,
	    .nruns = ARRAY_SIZE(runs),
	};
	struct md_snap_mapping anon = {
	    .start = 0x20000000,
	    .end = 0x20001000,
	    .flags = 2,
	    .image_id = UINT32_MAX,
	    .name = "",
	    .runs = NULL,
	    .nruns = 0,
	};
	struct md_snap_end se = {6, 42, 0, 12, 1 << 20};

	assert_int_equal(md_write_image(w, &im), 0);
	assert_int_equal(md_write_mmap2(w, &mm), 0);
	assert_int_equal(md_write_task(w, MD_REC_COMM, &comm), 0);
	assert_int_equal(md_write_task(w, MD_REC_FORK, &fork), 0);
	assert_int_equal(md_write_task(w, MD_REC_EXIT, &ex), 0);
	assert_int_equal(md_write_lost(w, &lost), 0);
	assert_int_equal(md_write_snap_begin(w, &sb), 0);
	assert_int_equal(md_write_mapping(w, &map), 0);
	assert_int_equal(md_write_mapping(w, &anon), 0);
	assert_int_equal(md_write_snap_end(w, &se), 0);
	assert_int_equal(
	    md_write_note_kind(w, MD_NOTE_NO_PFN, NULL, "PSS unavailable"), 0);
	mm.time = 9;
	mm.synthesized = false;
	mm.build_id_len = 0;
	assert_int_equal(md_write_munmap(w, &mm), 0);
	return 12;
}

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

/* md_writer_open() flags of make_full_file() and write_layout(): the
 * tests that patch SNAP_MAPPING fields at fixed offsets write version 5
 * (MD_WRITER_V5), where every field has its own bytes. */
static unsigned wr_flags;

static char *make_full_file(void)
{
	char *path = tpath("all.data");
	struct md_writer *w;

	assert_int_equal(md_writer_open_flags(path, wr_flags, &w), 0);
	write_all_types(w);
	assert_int_equal(md_writer_commit(w), 0);
	assert_int_equal(md_writer_close(w), 0);
	return path;
}

/* make_full_file() in version 5, for the tests that patch its fields */
static char *make_full_file_v5(void)
{
	char *path;

	wr_flags = MD_WRITER_V5;
	path = make_full_file();
	wr_flags = 0;
	return path;
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
	/* kept as dest, which it replaces */
	assert_int_equal(symlink(victim, dest), 0);
	assert_int_equal(md_writer_open_flags(path, MD_WRITER_UNNAMED, &w), 0);
	write_all_types(w);
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

/* Record boundaries of the full file, from the reader itself and cross-checked
 * against the size fields read raw. */
static size_t boundaries(const uint8_t *raw, size_t len, uint64_t *b)
{
	size_t n = 0;
	uint64_t off = 64;

	b[n++] = off;
	while (off < len) {
		uint64_t sz = 0;
		for (int i = 7; i >= 0; i--)
			sz = sz << 8 | raw[off + 8 + i];
		off += sz;
		b[n++] = off;
	}
	assert_int_equal(off, len);
	return n;
}

static void test_truncated_everywhere(void **state)
{
	char *path = make_full_file(), *cut = tpath("cut.data");
	uint64_t b[64];
	size_t len, nb, i, k;
	uint8_t *raw = read_file(path, &len);

	nb = boundaries(raw, len, b);
	assert_int_equal(nb, 14);
	for (i = 0; i <= len; i++) {
		struct md_reader *r;
		struct md_record rec;
		size_t complete = 0, expect = 0;
		int ret;

		write_file(cut, raw, i);
		ret = md_reader_open(cut, &r);
		if (i < 64) {
			assert_int_equal(ret, -MEMSZ_ETRUNC);
			continue;
		}
		assert_int_equal(ret, 0);
		while ((ret = md_read_next(r, &rec)) == 1)
			complete++;
		for (k = 1; k < nb; k++)
			if (b[k] <= i)
				expect++;
		assert_int_equal(complete, expect);
		if (b[expect] == i) {
			/* cut on a record boundary: a clean end, but before
			 * the END record the file says it was cut short */
			assert_int_equal(ret, 0);
			assert_int_equal(md_reader_cut_short(r), i < len);
		} else {
			assert_int_equal(ret, -MEMSZ_ETRUNC);
			assert_int_equal(md_reader_offset(r), b[expect]);
		}
		md_reader_close(r);
	}
	free(raw);
	free(path);
	free(cut);
	(void)state;
}

static int open_patched(const char *src, size_t at, const void *bytes, size_t n,
			struct md_reader **r)
{
	char *dst = tpath("patched.data");
	size_t len;
	uint8_t *raw = read_file(src, &len);
	int ret;

	memcpy(raw + at, bytes, n);
	/* past the checksums, to reach the checks behind them */
	md_checksum_fix(raw, len);
	write_file(dst, raw, len);
	ret = md_reader_open(dst, r);
	free(raw);
	free(dst);
	return ret;
}

static int read_until_error(struct md_reader *r, uint64_t *off)
{
	struct md_record rec;
	int ret;

	while ((ret = md_read_next(r, &rec)) == 1)
		;
	*off = md_reader_offset(r);
	md_reader_close(r);
	return ret;
}

static uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static void put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = v >> (8 * i);
}

static void put_le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = v >> (8 * i);
}

static void test_corrupt(void **state)
{
	char *path = make_full_file_v5();
	struct md_reader *r;
	uint8_t b[8];
	uint64_t off, bnd[64];
	size_t len;
	uint8_t *raw = read_file(path, &len);

	boundaries(raw, len, bnd);
	/* bad magic */
	assert_int_equal(open_patched(path, 0, "MEMSZDAX", 8, &r),
			 -MEMSZ_EBADMAGIC);
	/* newer version */
	put_le32(b, MD_VERSION + 1);
	assert_int_equal(open_patched(path, 8, b, 4, &r), -MEMSZ_EVERSION);
	/* header_size not a multiple of 8 */
	put_le32(b, 65);
	assert_int_equal(open_patched(path, 12, b, 4, &r), -MEMSZ_EBADDATA);
	/* page_size not a power of two from 4 KiB to 1 GiB */
	for (size_t i = 0; i < 4; i++) {
		static const uint32_t bad[] = {0, 1, 12288, 0x80000000u};

		put_le32(b, bad[i]);
		assert_int_equal(open_patched(path, 40, b, 4, &r),
				 -MEMSZ_EBADDATA);
	}
	put_le32(b, 65536);
	assert_int_equal(open_patched(path, 40, b, 4, &r), 0);
	md_reader_close(r);
	/* record size overrunning the file: third record */
	put_le64(b, len);
	assert_int_equal(open_patched(path, bnd[2] + 8, b, 8, &r), 0);
	assert_int_equal(read_until_error(r, &off), -MEMSZ_ETRUNC);
	assert_int_equal(off, bnd[2]);
	/* record size below the header, or not a multiple of 8 */
	put_le64(b, 8);
	assert_int_equal(open_patched(path, bnd[1] + 8, b, 8, &r), 0);
	assert_int_equal(read_until_error(r, &off), -MEMSZ_EBADDATA);
	assert_int_equal(off, bnd[1]);
	put_le64(b, bnd[2] - bnd[1] + 4);
	assert_int_equal(open_patched(path, bnd[1] + 8, b, 8, &r), 0);
	assert_int_equal(read_until_error(r, &off), -MEMSZ_EBADDATA);
	/* string length overrunning its record: the COMM record's comm */
	put_le32(b, 1000);
	assert_int_equal(open_patched(path, bnd[2] + 16 + 24, b, 4, &r), 0);
	assert_int_equal(read_until_error(r, &off), -MEMSZ_EBADDATA);
	assert_int_equal(off, bnd[2]);
	/* string without its NUL: length one too long for "worker" */
	put_le32(b, 7);
	assert_int_equal(open_patched(path, bnd[2] + 16 + 24, b, 4, &r), 0);
	assert_int_equal(read_until_error(r, &off), -MEMSZ_EBADDATA);
	/* nruns overrunning the mapping record (record 8 = index 7) */
	put_le64(b, 1000);
	assert_int_equal(open_patched(path, bnd[7] + 16 + 56, b, 8, &r), 0);
	assert_int_equal(read_until_error(r, &off), -MEMSZ_EBADDATA);
	assert_int_equal(off, bnd[7]);
	/* an unknown type is skipped by its size */
	put_le32(b, 1000);
	assert_int_equal(open_patched(path, bnd[5], b, 4, &r), 0);
	{
		struct md_record rec;
		int n = 0, ret;

		while ((ret = md_read_next(r, &rec)) == 1) {
			assert_int_not_equal(rec.type, MD_REC_LOST);
			n++;
		}
		assert_int_equal(ret, 0);
		assert_int_equal(n, 12);
		md_reader_close(r);
	}
	free(raw);
	free(path);
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

/* rec as `memsz dump` prints it (static storage, valid until the next
 * call). */
static const char *print_record(const struct md_record *rec, bool verbose)
{
	static char *buf;
	size_t len;
	FILE *f;

	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	md_record_print(f, rec, verbose, 4096);
	assert_int_equal(fclose(f), 0);
	return buf;
}

/* A NOTE's kind and subject survive the write and the read; a kind the
 * writer does not know is refused; a reserved word that is not 0 is
 * damage. The transitional text-only writer stores the kind its words
 * say. */
static void test_note_kinds(void **state)
{
	char *path = tpath("notes.data");
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
	assert_int_equal(rec.type, MD_REC_END);
	md_reader_close(r);

	/* the reserved word of the first note (after the record header and
	 * the kind) must be 0 */
	assert_int_equal(open_patched(path, 64 + 16 + 4, "\1", 1, &r), 0);
	assert_int_equal(read_until_error(r, &off), -MEMSZ_EBADDATA);
	assert_int_equal(off, 64);
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

/* A file with one snapshot of two mappings; patch(raw, len, rec offsets)
 * damages it behind its checksums. */
struct damage {
	const char *what; /* md_reader_why() expected */
	size_t rec;	  /* index of the record that must be refused */
	void (*patch)(uint8_t *raw, const uint64_t *b);
};

static void dm_end_beyond(uint8_t *raw, const uint64_t *b)
{
	put_le64(raw + b[8] + 16 + 8, 0x80007febb63a7000ull);
}

static void dm_overlap(uint8_t *raw, const uint64_t *b)
{
	put_le64(raw + b[8] + 16, 0x1000); /* anon starts before map ends */
}

static void dm_no_image(uint8_t *raw, const uint64_t *b)
{
	put_le32(raw + b[7] + 16 + 48, 8);
}

static void dm_nested(uint8_t *raw, const uint64_t *b)
{
	put_le32(raw + b[9], MD_REC_SNAP_BEGIN);
}

static void dm_end_pairing(uint8_t *raw, const uint64_t *b)
{
	put_le32(raw + b[9] + 16 + 12, 5); /* SNAP_END of seq 5 */
}

/* The palette entry of the mapping at b[7] ("/bin/true") with flags f. */
static uint8_t *pal_entry(uint8_t *raw, const uint64_t *b, uint32_t f)
{
	/* payload: 64 bytes of fields, the name (16), npalette, crc,
	 * nbytes (16), then the palette */
	uint8_t *q = raw + b[7] + 16 + 64 + 16;
	uint32_t npal = get_le32(q);

	for (uint32_t i = 0; i < npal; i++)
		if (get_le32(q + 16 + 8 * i) == f)
			return q + 16 + 8 * i;
	fail();
	return NULL;
}

/* The decoded runs of a version 2 mapping go through the same checks as
 * version 1 runs: a palette entry that is not a page state, an exclusive
 * page mapped twice, kpageflags bits in a snapshot without them. */
static void dm_pal_not_present(uint8_t *raw, const uint64_t *b)
{
	put_le32(pal_entry(raw, b, MD_PG_SWAPPED), MD_PG_FILE);
}

static void dm_pal_mapcount(uint8_t *raw, const uint64_t *b)
{
	put_le32(
	    pal_entry(raw, b,
		      MD_PG_PRESENT | MD_PG_EXCLUSIVE | MD_PG_PRIVATE_DIRTY) +
		4,
	    2);
}

static void dm_pal_kpageflags(uint8_t *raw, const uint64_t *b)
{
	put_le32(pal_entry(raw, b, MD_PG_PRESENT | MD_PG_FILE),
		 MD_PG_PRESENT | MD_PG_FILE | MD_PG_DIRTY);
}

static void dm_end_count(uint8_t *raw, const uint64_t *b)
{
	put_le64(raw + b[12] + 16 + 8, 11);
}

static void test_invariants(void **state)
{
	static const struct damage dm[] = {
	    {"mapping beyond the user address space", 8, dm_end_beyond},
	    {"mapping out of order or overlapping the previous one", 8,
	     dm_overlap},
	    {"mapping of an image id with no IMAGE record", 7, dm_no_image},
	    {"snapshot begins inside another one", 9, dm_nested},
	    {"snapshot end without its begin", 9, dm_end_pairing},
	    {"page states that do not decode", 7, dm_pal_not_present},
	    {"page run with an impossible mapcount", 7, dm_pal_mapcount},
	    {"page run with kpageflags in a snapshot without them", 7,
	     dm_pal_kpageflags},
	    {"the END record counts other records than the file holds", 12,
	     dm_end_count},
	};
	char *path = make_full_file_v5(), *dst = tpath("damaged.data");
	uint64_t b[64], off;
	size_t len;
	uint8_t *raw = read_file(path, &len), *cp = xmalloc(len);
	struct md_reader *r;

	boundaries(raw, len, b);
	for (size_t i = 0; i < ARRAY_SIZE(dm); i++) {
		struct md_record rec;
		size_t n = 0;
		int ret;

		memcpy(cp, raw, len);
		dm[i].patch(cp, b);
		/* without its checksum fixed, the record is refused first */
		write_file(dst, cp, len);
		assert_int_equal(md_reader_open(dst, &r), 0);
		while ((ret = md_read_next(r, &rec)) == 1)
			n++;
		assert_int_equal(ret, -MEMSZ_EBADDATA);
		assert_string_equal(md_reader_why(r), "checksum mismatch");
		md_reader_close(r);
		/* with it fixed, the invariant check refuses it */
		assert_true(md_checksum_fix(cp, len) > 0);
		write_file(dst, cp, len);
		assert_int_equal(md_reader_open(dst, &r), 0);
		n = 0;
		while ((ret = md_read_next(r, &rec)) == 1)
			n++;
		print_message("%s\n", dm[i].what);
		assert_int_equal(ret, -MEMSZ_EBADDATA);
		assert_string_equal(md_reader_why(r), dm[i].what);
		assert_int_equal(n, dm[i].rec);
		off = md_reader_offset(r);
		assert_int_equal(off, b[dm[i].rec]);
		/* the error sticks */
		assert_int_equal(md_read_next(r, &rec), -MEMSZ_EBADDATA);
		md_reader_close(r);
	}
	/* a damaged header checksum, and a header that drops MD_F_CRC but
	 * keeps a checksum, are refused at open */
	memcpy(cp, raw, len);
	cp[24] ^= 1;
	write_file(dst, cp, len);
	assert_int_equal(md_reader_open(dst, &r), -MEMSZ_EBADDATA);
	memcpy(cp, raw, len);
	cp[16] &= (uint8_t)~MD_F_CRC;
	write_file(dst, cp, len);
	assert_int_equal(md_reader_open(dst, &r), -MEMSZ_EBADDATA);
	free(cp);
	free(raw);
	free(dst);
	free(path);
	(void)state;
}

/* One snapshot of one mapping with mapping flags mflags and one run of
 * run flags rflags, in a snapshot with sflags: NULL if the reader takes
 * it (and hands the flags back as written), else md_reader_why(). */
static const char *one_mapping(uint32_t sflags, uint32_t mflags,
			       uint32_t rflags)
{
	static char why[128];
	char *path = tpath("bits.data");
	struct md_run run = {0x600000, 512, rflags,
			     rflags & MD_PG_PRESENT ? 1 : 0, 0};
	struct md_snap_begin sb = {5, 42, 0, sflags, 1};
	struct md_snap_mapping m = {
	    .start = 0x600000,
	    .end = 0xa00000,
	    .prot = 3,
	    .flags = mflags,
	    .image_id = UINT32_MAX,
	    .name = "",
	    .runs = &run,
	    .nruns = 1,
	};
	struct md_snap_end se = {6, 42, 0, 0, 0};
	struct md_writer *w;
	struct md_reader *r;
	struct md_record rec;
	const char *ret = NULL;
	int got;

	assert_int_equal(md_writer_open(path, &w), 0);
	assert_int_equal(md_write_snap_begin(w, &sb), 0);
	assert_int_equal(md_write_mapping(w, &m), 0);
	assert_int_equal(md_write_snap_end(w, &se), 0);
	assert_int_equal(md_writer_commit(w), 0);
	assert_int_equal(md_writer_close(w), 0);
	assert_int_equal(md_reader_open(path, &r), 0);
	while ((got = md_read_next(r, &rec)) == 1) {
		if (rec.type == MD_REC_SNAP_BEGIN)
			assert_int_equal(rec.u.snap_begin.flags, sflags);
		if (rec.type != MD_REC_SNAP_MAPPING)
			continue;
		assert_int_equal(rec.u.mapping.flags, mflags);
		assert_int_equal(rec.u.mapping.nruns, 1);
		assert_int_equal(rec.u.mapping.runs[0].flags, rflags);
	}
	if (got < 0) {
		assert_int_equal(got, -MEMSZ_EBADDATA);
		snprintf(why, sizeof(why), "%s", md_reader_why(r));
		ret = why;
	}
	md_reader_close(r);
	free(path);
	return ret;
}

/* The THP page flag (MD_PG_PMD) and the locked mapping flag
 * (MD_MAP_LOCKED) are read back where the snapshot says it recorded them,
 * and refused where it does not or where they cannot be. */
static void test_pmd_locked_bits(void **state)
{
	const uint32_t anon =
	    MD_PG_PRESENT | MD_PG_EXCLUSIVE | MD_PG_PRIVATE_DIRTY;
	const uint32_t both = MD_SNAP_F_PFN | MD_SNAP_F_PMD | MD_SNAP_F_LOCKED;

	assert_null(
	    one_mapping(both, MAP_PRIVATE | MD_MAP_LOCKED, anon | MD_PG_PMD));
	assert_null(one_mapping(both, MAP_SHARED | MD_MAP_LOCKED, anon));
	/* older files: neither bit, neither snapshot flag */
	assert_null(one_mapping(MD_SNAP_F_PFN, MAP_PRIVATE, anon));
	assert_string_equal(one_mapping(MD_SNAP_F_PFN | MD_SNAP_F_PMD,
					MAP_PRIVATE | MD_MAP_LOCKED, anon),
			    "locked mapping in a snapshot that does not "
			    "record locking");
	assert_string_equal(one_mapping(MD_SNAP_F_PFN | MD_SNAP_F_LOCKED,
					MAP_PRIVATE, anon | MD_PG_PMD),
			    "page run with a PMD flag that cannot be");
	assert_string_equal(
	    one_mapping(both, MAP_PRIVATE, MD_PG_SWAPPED | MD_PG_PMD),
	    "page run with a PMD flag that cannot be");
	assert_string_equal(one_mapping(both, MD_MAP_LOCKED, anon),
			    "mapping with unknown protection or flags");
	assert_string_equal(one_mapping(both, MAP_PRIVATE | 0x4000, anon),
			    "mapping with unknown protection or flags");
	(void)state;
}

/* --- the pages of a snapshot mapping: layouts against a reference --- */

#define LAYOUT_START 0x7f0000000000ull
#define NPAL_REF 600

static uint32_t ref_flags[NPAL_REF], ref_mc[NPAL_REF];
static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545f4914f6cdd1dull;
}

/* Reference palette: entry 0 is a private dirty anon page, then file
 * pages of growing mapcount, a swapped and a zero-page entry. */
static void ref_palette(void)
{
	for (uint32_t i = 0; i < NPAL_REF; i++) {
		ref_flags[i] = MD_PG_PRESENT | MD_PG_FILE;
		ref_mc[i] = i + 1;
	}
	ref_flags[0] = MD_PG_PRESENT | MD_PG_EXCLUSIVE | MD_PG_ANON |
		       MD_PG_SWAPBACKED | MD_PG_DIRTY | MD_PG_PRIVATE_DIRTY;
	ref_mc[0] = 1;
	ref_flags[2] = MD_PG_SWAPPED;
	ref_mc[2] = 0;
	ref_flags[3] = MD_PG_ZERO;
	ref_mc[3] = 0;
}

/* The runs of layout pg (0: absent, else 1 + reference entry), maximal
 * but for random cuts when split. Returns their count. */
static size_t layout_runs(const uint16_t *pg, size_t n, bool split,
			  struct md_run *out)
{
	size_t nr = 0;

	for (size_t i = 0; i < n; i++) {
		struct md_run *last = nr ? &out[nr - 1] : NULL;

		if (!pg[i])
			continue;
		if (last && i && pg[i - 1] == pg[i] &&
		    !(split && rnd() % 8 == 0)) {
			last->npages++;
			continue;
		}
		out[nr++] = (struct md_run){
		    .vaddr = LAYOUT_START + i * 4096ull,
		    .npages = 1,
		    .flags = ref_flags[pg[i] - 1],
		    .mapcount = ref_mc[pg[i] - 1],
		};
	}
	return nr;
}

/* Runs of layout pg when every run is as long as it can be. */
static size_t maximal_runs(const uint16_t *pg, size_t n)
{
	size_t nr = 0;

	for (size_t i = 0; i < n; i++)
		nr += pg[i] && (!i || pg[i - 1] != pg[i]);
	return nr;
}

/* Write layout pg as one snapshot of one mapping (its runs split at
 * random when split); returns the path. With piecewise, the mapping goes
 * through md_mapping_begin/add/end in slices of random lengths, some
 * empty, and *nruns receives the run count md_mapping_end gives. */
static char *write_layout_how(const char *name, const uint16_t *pg, size_t n,
			      bool split, bool piecewise, uint64_t *nruns)
{
	char *path = tpath(name);
	struct md_run *runs_l = xcalloc(n + 1, sizeof(*runs_l));
	/* the reference palette has kpageflags bits */
	struct md_snap_begin sb = {1, 42, 0,
				   MD_SNAP_F_PFN | MD_SNAP_F_KPAGEFLAGS, 1};
	struct md_snap_end se = {2, 42, 0, 0, 0};
	struct md_snap_mapping m = {
	    .start = LAYOUT_START,
	    .end = LAYOUT_START + n * 4096ull,
	    .flags = 2,
	    .image_id = UINT32_MAX,
	    .name = "[anon:layout]",
	};
	struct md_writer *w;
	size_t nr = layout_runs(pg, n, split, runs_l), i = 0;

	assert_int_equal(md_writer_open_flags(path, wr_flags, &w), 0);
	assert_int_equal(md_write_snap_begin(w, &sb), 0);
	if (piecewise) {
		assert_int_equal(md_mapping_begin(w, m.start, m.end), 0);
		while (i < nr) {
			size_t k = rnd() % 50;

			k = MIN(nr - i, k);
			assert_int_equal(md_mapping_add(w, runs_l + i, k), 0);
			i += k;
		}
		assert_int_equal(md_mapping_end(w, &m, nruns), 0);
	} else {
		m.runs = runs_l;
		m.nruns = nr;
		assert_int_equal(md_write_mapping(w, &m), 0);
	}
	assert_int_equal(md_write_snap_end(w, &se), 0);
	assert_int_equal(md_writer_commit(w), 0);
	assert_int_equal(md_writer_close(w), 0);
	free(runs_l);
	return path;
}

static char *write_layout(const char *name, const uint16_t *pg, size_t n,
			  bool split)
{
	return write_layout_how(name, pg, n, split, false, NULL);
}

/* Read the file back: the mapping's runs must give exactly layout pg, in
 * sorted maximal runs. */
static void check_layout(const char *path, const uint16_t *pg, size_t n)
{
	struct md_reader *r;
	struct md_record rec;
	uint16_t *got = xcalloc(n + 1, sizeof(*got));
	const struct md_snap_mapping *m = &rec.u.mapping;

	assert_int_equal(md_reader_open(path, &r), 0);
	assert_int_equal(md_read_next(r, &rec), 1);
	assert_int_equal(rec.type, MD_REC_SNAP_BEGIN);
	assert_int_equal(md_read_next(r, &rec), 1);
	assert_int_equal(rec.type, MD_REC_SNAP_MAPPING);
	assert_int_equal(m->end - m->start, n * 4096ull);
	assert_int_equal(m->nruns, maximal_runs(pg, n));
	for (size_t i = 0; i < m->nruns; i++) {
		const struct md_run *u = &m->runs[i];
		uint64_t first = (u->vaddr - LAYOUT_START) / 4096;
		uint16_t e = 0;

		assert_true(u->vaddr >= LAYOUT_START);
		assert_int_equal(u->vaddr % 4096, 0);
		assert_true(u->npages >= 1);
		assert_true(first + u->npages <= n);
		assert_int_equal(u->reserved, 0);
		for (uint16_t k = 0; k < NPAL_REF; k++)
			if (ref_flags[k] == u->flags &&
			    ref_mc[k] == u->mapcount)
				e = k + 1;
		assert_int_not_equal(e, 0);
		if (i) {
			const struct md_run *p = &m->runs[i - 1];
			bool joined =
			    p->vaddr + p->npages * 4096ull == u->vaddr;

			assert_true(p->vaddr + p->npages * 4096ull <= u->vaddr);
			assert_false(joined && p->flags == u->flags &&
				     p->mapcount == u->mapcount);
		}
		for (uint64_t k = first; k < first + u->npages; k++)
			got[k] = e;
	}
	assert_memory_equal(got, pg, n * sizeof(*pg));
	assert_int_equal(md_read_next(r, &rec), 1);
	assert_int_equal(rec.type, MD_REC_SNAP_END);
	assert_int_equal(md_read_next(r, &rec), 1);
	assert_int_equal(rec.type, MD_REC_END);
	assert_int_equal(md_read_next(r, &rec), 0);
	assert_false(md_reader_cut_short(r));
	md_reader_close(r);
	free(got);
}

enum layout_kind {
	LAYOUT_CONTIGUOUS,
	LAYOUT_EVERY2,
	LAYOUT_EVERY4,
	LAYOUT_RANDOM25,
	LAYOUT_RANDOM_RUNS,
	LAYOUT__COUNT
};

/* Fill pg with a layout of n pages using the first npal entries. */
static void layout_make(uint16_t *pg, size_t n, enum layout_kind kind,
			uint32_t npal)
{
	size_t i = 0;

	memset(pg, 0, n * sizeof(*pg));
	switch (kind) {
	case LAYOUT_CONTIGUOUS:
		for (i = n / 8; i < n - n / 8; i++)
			pg[i] = 1 + (uint16_t)(i * npal / n);
		break;
	case LAYOUT_EVERY2:
	case LAYOUT_EVERY4:
		for (i = 0; i < n; i += kind == LAYOUT_EVERY2 ? 2 : 4)
			pg[i] = 1 + (uint16_t)(rnd() % npal);
		break;
	case LAYOUT_RANDOM25:
		for (i = 0; i < n; i++)
			if (rnd() % 4 == 0)
				pg[i] = 1 + (uint16_t)(rnd() % npal);
		break;
	default:
		/* runs and holes of random lengths, some long */
		while (i < n) {
			size_t len = 1 + rnd() % (rnd() % 4 ? 8 : 300);
			uint16_t e =
			    rnd() % 2 ? 0 : 1 + (uint16_t)(rnd() % npal);

			for (; len && i < n; len--, i++)
				pg[i] = e;
		}
		break;
	}
}

static void test_layouts_round_trip(void **state)
{
	static const size_t sizes[] = {1, 3, 64, 1000, 70001, 200000};
	static const uint32_t npals[] = {1, 2, 3, 5, 300, NPAL_REF};
	uint16_t *pg = xcalloc(200000, sizeof(*pg));

	ref_palette();
	for (size_t si = 0; si < ARRAY_SIZE(sizes); si++) {
		for (int kind = 0; kind < LAYOUT__COUNT; kind++) {
			for (size_t pi = 0; pi < ARRAY_SIZE(npals); pi++) {
				size_t n = sizes[si];
				char *path;

				layout_make(pg, n, kind, npals[pi]);
				path =
				    write_layout("layout.data", pg, n, pi % 2);
				check_layout(path, pg, n);
				free(path);
			}
		}
	}
	free(pg);
	(void)state;
}

/* A mapping written in slices is the same bytes as written whole, and
 * md_mapping_end counts the runs the reader gives back. A slice that goes
 * back fails the record, which is then not written; an ended record is not
 * ended again. */
static void test_mapping_pieces(void **state)
{
	static const size_t sizes[] = {1, 1000, 70001};
	uint16_t *pg = xcalloc(70001, sizeof(*pg));
	struct md_run back[2] = {
	    {LAYOUT_START + 4096, 1, MD_PG_PRESENT, 1, 0},
	    {LAYOUT_START, 1, MD_PG_PRESENT, 1, 0},
	};
	struct md_snap_mapping m = {
	    .start = LAYOUT_START,
	    .end = LAYOUT_START + 8 * 4096ull,
	    .flags = 2,
	    .image_id = UINT32_MAX,
	    .name = "x",
	};
	struct md_writer *w;
	char *path;

	ref_palette();
	for (size_t si = 0; si < ARRAY_SIZE(sizes); si++) {
		for (int kind = 0; kind < LAYOUT__COUNT; kind++) {
			size_t n = sizes[si], la, lb;
			uint64_t nruns = 0;
			char *a, *b;
			uint8_t *da, *db;

			layout_make(pg, n, kind, 5);
			a = write_layout_how("whole.data", pg, n, true, false,
					     NULL);
			b = write_layout_how("pieces.data", pg, n, true, true,
					     &nruns);
			assert_int_equal(nruns, maximal_runs(pg, n));
			da = read_file(a, &la);
			db = read_file(b, &lb);
			/* the same records between the header and the END
			 * record (40 bytes), which hold the times of the
			 * recording */
			assert_int_equal(la, lb);
			assert_true(la > 64 + 40);
			assert_memory_equal(da + 64, db + 64, la - 64 - 40);
			check_layout(b, pg, n);
			free(da);
			free(db);
			free(a);
			free(b);
		}
	}
	free(pg);
	path = tpath("back.data");
	assert_int_equal(md_writer_open(path, &w), 0);
	assert_int_equal(md_mapping_begin(w, m.start, m.end), 0);
	assert_int_equal(md_mapping_add(w, back, 1), 0);
	assert_int_equal(md_mapping_add(w, back + 1, 1), -EINVAL);
	assert_int_equal(md_mapping_end(w, &m, NULL), -EINVAL);
	/* misaligned bounds */
	assert_int_equal(md_mapping_begin(w, m.start + 1, m.end), -EINVAL);
	assert_int_equal(md_mapping_end(w, &m, NULL), -EINVAL);
	/* a record is ended once: a second end, or a slice after the end,
	 * is refused (it would write the record again) */
	assert_int_equal(md_mapping_begin(w, m.start, m.end), 0);
	assert_int_equal(md_mapping_add(w, back, 1), 0);
	assert_int_equal(md_mapping_end(w, &m, NULL), 0);
	assert_int_equal(md_mapping_end(w, &m, NULL), -EINVAL);
	assert_int_equal(md_mapping_add(w, back, 1), -EINVAL);
	md_writer_close(w);
	free(path);
	(void)state;
}

/* The worst layout, every other page present: at most 2 bits per mapped
 * page for the whole file with one or two distinct page states (a
 * presence bit per page, a code bit per present page); four states take
 * two code bits per present page, 2 bits per page and a few hundred bytes
 * of headers. */
static void test_worst_layout_bits(void **state)
{
	size_t n = 1u << 20;
	uint16_t *pg = xcalloc(n, sizeof(*pg));
	static const uint32_t npals[] = {1, 2, 4};

	ref_palette();
	for (size_t pi = 0; pi < ARRAY_SIZE(npals); pi++) {
		struct stat st;
		char *path;
		double bits;

		for (size_t i = 0; i < n; i += 2)
			pg[i] = 1 + (uint16_t)(i / 2 % npals[pi]);
		path = write_layout("worst.data", pg, n, false);
		check_layout(path, pg, n);
		assert_int_equal(stat(path, &st), 0);
		bits = st.st_size * 8.0 / n;
		print_message("every other page, %u page states: %.3f bits "
			      "per mapped page\n",
			      npals[pi], bits);
		assert_true(bits <= (npals[pi] <= 2 ? 2.0 : 2.01));
		/* one state: the presence bitmap alone */
		if (npals[pi] == 1)
			assert_true(bits <= 1.01);
		free(path);
	}
	free(pg);
	(void)state;
}

/* Forked memory: every page present, each with one of four mapcounts
 * (probabilities 0.4 0.4 0.15 0.05, entropy 1.68 bits). A presence bit and
 * a 2-bit code a page would be 3 bits; CODED blocks take the entropy and
 * a few hundred bytes of headers, under 2 bits. */
static void test_forked_layout_bits(void **state)
{
	size_t n = 1u << 20;
	uint16_t *pg = xcalloc(n, sizeof(*pg));
	static const uint16_t entry[] = {1, 2, 5, 6};
	/* -(2 * 0.4 log2 0.4 + 0.15 log2 0.15 + 0.05 log2 0.05) */
	const double h = 1.684;
	double bits;
	struct stat st;
	char *path;

	ref_palette();
	for (size_t i = 0; i < n; i++) {
		unsigned r = rnd() % 20;

		pg[i] = entry[r < 8 ? 0 : r < 16 ? 1 : r < 19 ? 2 : 3];
	}
	path = write_layout("forked.data", pg, n, true);
	check_layout(path, pg, n);
	assert_int_equal(stat(path, &st), 0);
	bits = st.st_size * 8.0 / n;
	print_message("forked, 4 mapcounts: %.3f bits per mapped page "
		      "(entropy %.3f)\n",
		      bits, h);
	assert_true(bits <= h + 0.02);
	assert_true(bits < 2.0);
	free(path);
	free(pg);
	(void)state;
}

/* Decode stream s of a mapping of n pages against the npal entries at
 * pal, CODED blocks allowed when coded. */
static int decode_coded(const uint8_t *pal, uint32_t npal, const uint8_t *s,
			size_t len, uint64_t n, uint64_t nruns, bool coded)
{
	struct md_run *out = NULL;
	size_t cap = 0;
	int ret;

	ret = pgstate_decode(pal, npal, s, len, LAYOUT_START, n, 12, nruns,
			     coded, &out, &cap);
	free(out);
	return ret;
}

/* A mapping whose pages would run past the end of the address space is
 * refused (pgstate_add's range checks take a page below start to wrap to
 * one past npages: true only when start + npages pages does not wrap). */
static void test_pgstate_wrap(void **state)
{
	struct pgstate_enc e = {0};
	const uint64_t top = 0xfffffffffffff000ull;
	struct md_run wrap_runs[] = {{top, 1, MD_PG_PRESENT, 1, 0},
				     {0, 1, MD_PG_PRESENT, 1, 0}};

	(void)state;
	assert_int_equal(pgstate_encode(&e, top, 4, 12, wrap_runs, 2), -EINVAL);
	/* the last page of the address space is a mapping's last page */
	assert_int_equal(pgstate_encode(&e, top, 1, 12, wrap_runs, 1), 0);
	pgstate_enc_free(&e);
}

/* A CODED block's fields are checked; files before version 5 have none. */
static void test_coded_fields(void **state)
{
	/* CODED 64 pages (header 259 as LEB128): m = 2 (palette entry 0,
	 * absent), frequencies 2048 2048, 12 bytes: the state 0x00800000
	 * then 8 zero bytes. Each page costs a bit and is entry 0: the state
	 * ends where it began and every byte is used, but the 64 pages are
	 * one run, which no encoder puts in a CODED block (a run that long
	 * is a RUN block) */
	static const uint8_t run64[] = {
	    0x83, 0x02, 0x01, 0x01, 0x00, 0x80, 0x10, 0x80, 0x10, 12, 0x00,
	    0x80, 0x00, 0x00, 0,    0,	  0,	0,    0,    0,	  0,  0};
	struct pgstate_enc e = {0};
	struct md_run alt[80];
	uint8_t *s;
	size_t len, nr = 0;
	uint64_t x = 7;

	uint8_t pal[PGSTATE_PAL_SIZE];

	put_le32(pal, MD_PG_PRESENT);
	put_le32(pal + 4, 2);
	assert_int_equal(
	    decode_coded(pal, 1, run64, sizeof(run64), 64, 1, true),
	    -MEMSZ_EBADDATA);
	/* 80 pages, each of one of three mapcounts at random: a CODED block
	 * (1.6 bits a page; a MAP block would take 3) */
	for (size_t i = 0; i < 80; i++) {
		uint32_t mc;

		x = x * 6364136223846793005ull + 1442695040888963407ull;
		mc = 2 + (uint32_t)((x >> 32) % 3);
		if (nr && alt[nr - 1].mapcount == mc) {
			alt[nr - 1].npages++;
			continue;
		}
		alt[nr++] = (struct md_run){LAYOUT_START + i * 4096ull, 1,
					    MD_PG_PRESENT, mc, 0};
	}
	assert_int_equal(pgstate_encode(&e, LAYOUT_START, 80, 12, alt, nr), 0);
	assert_true(e.len > 0);
	assert_int_equal(e.out[0] & 3, 3);
	len = e.len;
	s = xmalloc(len + 1);
	memcpy(s, e.out, len);
	assert_int_equal(decode_coded(e.pal, e.npal, s, len, 80, nr, true), 0);
	/* version 2 to 4: kind 3 is invalid */
	assert_int_equal(decode_coded(e.pal, e.npal, s, len, 80, nr, false),
			 -MEMSZ_EBADDATA);
	/* cut anywhere */
	for (size_t k = 1; k < len; k++)
		assert_int_equal(
		    decode_coded(e.pal, e.npal, s, k, 80, nr, true),
		    -MEMSZ_EBADDATA);
	/* one byte more in the coded bytes: the state does not end at its
	 * start value, or not every byte is used */
	s[len] = 0;
	assert_int_equal(decode_coded(e.pal, e.npal, s, len + 1, 80, nr, true),
			 -MEMSZ_EBADDATA);
	pgstate_enc_free(&e);
	free(s);
	(void)state;
}

/* Build a version 1 file by hand (man/memsz-data.5): a snapshot with one
 * mapping holding the runs of runs[] as 24-byte runs. */
static size_t v1_file(uint8_t *b)
{
	size_t off = 0, rec;

	memset(b, 0, 4096);
	memcpy(b, "MEMSZDAT", 8);
	put_le32(b + 8, 1);
	put_le32(b + 12, 64);
	put_le32(b + 40, 4096);
	off = 64;
	/* SNAP_BEGIN: time, pid, seq, flags, nmappings */
	put_le32(b + off, MD_REC_SNAP_BEGIN);
	put_le64(b + off + 8, 16 + 24);
	put_le64(b + off + 16, 5);
	put_le32(b + off + 24, 42);
	put_le32(b + off + 32, MD_SNAP_F_PFN);
	put_le32(b + off + 36, 1);
	off += 40;
	/* SNAP_MAPPING with nruns runs of 24 bytes after the name */
	rec = off;
	put_le32(b + off, MD_REC_SNAP_MAPPING);
	off += 16;
	put_le64(b + off, 0x400000);
	put_le64(b + off + 8, RUNS_END);
	put_le32(b + off + 40, 5);
	put_le32(b + off + 44, 2);
	put_le32(b + off + 48, UINT32_MAX);
	put_le64(b + off + 56, ARRAY_SIZE(runs));
	put_le32(b + off + 64, 4);
	memcpy(b + off + 68, "[v1]", 4);
	off += 64 + 16;
	for (size_t i = 0; i < ARRAY_SIZE(runs); i++, off += 24) {
		put_le64(b + off, runs[i].vaddr);
		put_le32(b + off + 8, runs[i].npages);
		put_le32(b + off + 12, runs[i].flags);
		put_le32(b + off + 16, runs[i].mapcount);
	}
	put_le64(b + rec + 8, off - rec);
	/* SNAP_END: time, pid, seq, unreadable */
	put_le32(b + off, MD_REC_SNAP_END);
	put_le64(b + off + 8, 16 + 24);
	put_le32(b + off + 24, 42);
	off += 40;
	return off;
}

static void test_v1_file(void **state)
{
	char *path = tpath("v1.data");
	uint8_t b[4096];
	size_t len = v1_file(b);
	struct md_reader *r;
	struct md_record rec;
	uint64_t off;

	write_file(path, b, len);
	assert_int_equal(md_reader_open(path, &r), 0);
	assert_int_equal(md_reader_header(r)->version, 1);
	assert_int_equal(md_read_next(r, &rec), 1);
	assert_int_equal(rec.type, MD_REC_SNAP_BEGIN);
	assert_int_equal(rec.u.snap_begin.pid, 42);
	assert_int_equal(md_read_next(r, &rec), 1);
	assert_int_equal(rec.type, MD_REC_SNAP_MAPPING);
	assert_string_equal(rec.u.mapping.name, "[v1]");
	assert_int_equal(rec.u.mapping.end, RUNS_END);
	assert_int_equal(rec.u.mapping.nruns, ARRAY_SIZE(runs));
	assert_memory_equal(rec.u.mapping.runs, runs, sizeof(runs));
	assert_int_equal(md_read_next(r, &rec), 1);
	assert_int_equal(rec.type, MD_REC_SNAP_END);
	assert_int_equal(md_read_next(r, &rec), 0);
	md_reader_close(r);

	/* a version 1 nruns overrunning its record is refused there */
	put_le64(b + 64 + 40 + 16 + 56, 1000);
	write_file(path, b, len);
	assert_int_equal(md_reader_open(path, &r), 0);
	assert_int_equal(read_until_error(r, &off), -MEMSZ_EBADDATA);
	assert_int_equal(off, 64 + 40);
	free(path);
	(void)state;
}

/* Version 1 runs as stored: each rule on runs refuses the mapping record
 * at its offset (the file has no checksums). */
static void test_v1_run_invariants(void **state)
{
	static const struct {
		size_t at; /* offset of the field in its run */
		int run;
		uint64_t v;
		int width;
		const char *what;
	} dm[] = {
	    /* the third run of 100000 pages grows past the mapping */
	    {8, 2, 200000, 4,
	     "page run outside its mapping or "
	     "overlapping the previous run"},
	    /* the second run starts inside the first */
	    {0, 1, 0x401000, 8,
	     "page run outside its mapping or "
	     "overlapping the previous run"},
	    {12, 2, MD_PG_FILE, 4,
	     "page run neither present, swapped "
	     "nor zero page"},
	    {0, 1, 0x403001, 8, "page run empty or not page aligned"},
	    {16, 1, 3, 4, "page run with an impossible mapcount"},
	};
	char *path = tpath("v1-damaged.data");
	uint8_t b[4096], cp[4096];
	size_t len = v1_file(b);
	/* SNAP_BEGIN at 64 (40 bytes), the mapping at 104: its runs after
	 * 64 bytes of fields and the name "[v1]" (16) */
	size_t runs0 = 104 + 16 + 64 + 16;

	for (size_t i = 0; i < ARRAY_SIZE(dm); i++) {
		struct md_reader *r;
		struct md_record rec;
		uint8_t *q = cp + runs0 + 24 * dm[i].run + dm[i].at;
		uint64_t off;

		memcpy(cp, b, len);
		if (dm[i].width == 8)
			put_le64(q, dm[i].v);
		else
			put_le32(q, (uint32_t)dm[i].v);
		write_file(path, cp, len);
		assert_int_equal(md_reader_open(path, &r), 0);
		while (md_read_next(r, &rec) == 1)
			;
		print_message("%s\n", dm[i].what);
		assert_string_equal(md_reader_why(r), dm[i].what);
		assert_int_equal(read_until_error(r, &off), -MEMSZ_EBADDATA);
		assert_int_equal(off, 104);
	}
	free(path);
	(void)state;
}

/* CRC-32C one bit at a time, straight from the definition (reflected
 * polynomial 0x82f63b78): the reference the fast paths must match. */
static uint32_t crc32c_bitwise(const uint8_t *p, size_t n)
{
	uint32_t c = 0xffffffffu;

	while (n--) {
		c ^= *p++;
		for (int k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ 0x82f63b78u : c >> 1;
	}
	return ~c;
}

/* CRC-32C: the check value of the standard, and continuation. */
static void test_crc32c(void **state)
{
	static const char s[] = "123456789";
	uint8_t big[1000], *huge;
	uint32_t x = 1;

	assert_int_equal(md_crc32c(0, s, 9), 0xe3069283u);
	assert_int_equal(md_crc32c(md_crc32c(0, s, 4), s + 4, 5), 0xe3069283u);
	assert_int_equal(md_crc32c(0, NULL, 0), 0);
	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (uint8_t)(i * 7);
	for (size_t cut = 0; cut < sizeof(big); cut += 13)
		assert_int_equal(md_crc32c(md_crc32c(0, big, cut), big + cut,
					   sizeof(big) - cut),
				 md_crc32c(0, big, sizeof(big)));
	/* long buffers (the lanes of the hardware loop and their joins),
	 * every alignment and tail */
	huge = malloc(9000);
	assert_non_null(huge);
	for (size_t i = 0; i < 9000; i++) {
		x = x * 1103515245u + 12345u;
		huge[i] = (uint8_t)(x >> 16);
	}
	assert_int_equal(crc32c_bitwise((const uint8_t *)s, 9), 0xe3069283u);
	for (size_t len = 0; len < 9000 - 8; len += len < 1600 ? 1 : 97)
		for (size_t off = 0; off < 8; off += 3)
			assert_int_equal(md_crc32c(0, huge + off, len),
					 crc32c_bitwise(huge + off, len));
	for (size_t cut = 0; cut < 9000; cut += 331)
		assert_int_equal(
		    md_crc32c(md_crc32c(0, huge, cut), huge + cut, 9000 - cut),
		    crc32c_bitwise(huge, 9000));
	free(huge);
	(void)state;
}

/* Make raw (records at the nb offsets of bnd) a file as written before the
 * header flags existed: no flags, no checksums. */
static void strip_checksums(uint8_t *raw, const uint64_t *bnd, size_t nb)
{
	put_le64(raw + 16, 0);
	put_le32(raw + 44, 0);
	for (size_t i = 0; i < nb; i++)
		put_le32(raw + bnd[i] + 4, 0);
}

/* Any byte of a mapping's page states damaged: the record is refused at
 * its offset, never read as other pages. With header flag CRC the
 * record's CRC-32C refuses it; in a version 2 file without the flag
 * (written before it existed) the page-data CRC-32 does. */
static void test_corrupt_pages(void **state)
{
	size_t n = 5000, len, at, from;
	uint16_t *pg = xcalloc(n, sizeof(*pg));
	uint64_t bnd[8], off;
	uint8_t *raw, *cp;
	char *path, *dst = tpath("pages-damaged.data");
	struct md_reader *r;

	wr_flags = MD_WRITER_V5;

	ref_palette();
	layout_make(pg, n, LAYOUT_RANDOM_RUNS, 3);
	path = write_layout("pages.data", pg, n, false);
	raw = read_file(path, &len);
	cp = xmalloc(len);
	/* 4 records (END the last), and the end of the file */
	assert_int_equal(boundaries(raw, len, bnd), 5);
	/* nruns (payload offset 56), then from npalette (after the name
	 * "[anon:layout]", 24 bytes) to the end of the record */
	from = bnd[1] + 16 + 56;
	for (int stripped = 0; stripped < 2; stripped++) {
		if (stripped) {
			strip_checksums(raw, bnd, 4);
			/* still read whole, without checksums */
			write_file(dst, raw, len);
			check_layout(dst, pg, n);
		}
		for (at = from; at < bnd[2];
		     at = at == from + 7 ? from + 32 : at + 1) {
			static const uint8_t flips[] = {0x01, 0x10, 0x80, 0xff};

			for (size_t k = 0; k < ARRAY_SIZE(flips); k++) {
				memcpy(cp, raw, len);
				cp[at] ^= flips[k];
				write_file(dst, cp, len);
				assert_int_equal(md_reader_open(dst, &r), 0);
				assert_int_equal(read_until_error(r, &off),
						 -MEMSZ_EBADDATA);
				assert_int_equal(off, bnd[1]);
			}
		}
	}
	free(cp);
	free(dst);
	free(raw);
	free(path);
	free(pg);
	(void)state;
	wr_flags = 0;
}

/* Decode a hand-made stream against a two-entry palette over 100 pages. */
static int decode_raw(const uint8_t *s, size_t len, uint64_t nruns,
		      uint32_t bad_flags)
{
	uint8_t pal[2 * PGSTATE_PAL_SIZE] = {0};
	struct md_run *out = NULL;
	size_t cap = 0;
	int ret;

	put_le32(pal, MD_PG_PRESENT);
	put_le32(pal + 4, 1);
	put_le32(pal + 8, bad_flags ? bad_flags : MD_PG_SWAPPED);
	ret = pgstate_decode(pal, 2, s, len, LAYOUT_START, 100, 12, nruns,
			     false, &out, &cap);
	free(out);
	return ret;
}

/* Every field of the block stream is checked. */
static void test_pages_fields(void **state)
{
	/* SKIP 2, RUN 3 of entry 1, MAP 10: m = 2, entries 0 and 1, pages
	 * 0 1 3 present (bits 0b1011), codes 0 0 1 */
	static const uint8_t ok[] = {
	    2 << 2 | 0, 3 << 2 | 1, 1, 10 << 2 | 2, 1, 0, 1, 0x0b, 0, 0x04};
	uint8_t s[sizeof(ok) + 4];
	static const struct {
		size_t at;
		uint8_t v;
	} bad[] = {
	    {0, 0 << 2 | 0},  /* SKIP of no page */
	    {0, 0 << 2 | 3},  /* kind 3 */
	    {0, 0x7f},	      /* 31 pages of kind 3 */
	    {2, 2},	      /* RUN of entry 2 (palette has 2) */
	    {4, 0},	      /* m = 1: the stream shifts by one */
	    {5, 7},	      /* local entry 7 */
	    {8, 0x04},	      /* bitmap bit 10 beyond 10 pages */
	    {9, 0xc0 | 0x04}, /* code bits past the 3 present */
	};
	int ret;

	/* the check of the page states is zlib's CRC-32 */
	assert_int_equal(pgstate_crc(0, (const uint8_t *)"123456789", 9),
			 0xcbf43926);
	assert_int_equal(
	    pgstate_crc(pgstate_crc(0, ok, 3), ok + 3, sizeof(ok) - 3),
	    pgstate_crc(0, ok, sizeof(ok)));
	/* the valid stream: runs [2,5) entry 1, 5 6 entry 0, 8 entry 1 */
	assert_int_equal(decode_raw(ok, sizeof(ok), 3, 0), 0);
	/* run count not the announced one */
	assert_int_equal(decode_raw(ok, sizeof(ok), 2, 0), -MEMSZ_EBADDATA);
	assert_int_equal(decode_raw(ok, sizeof(ok), 4, 0), -MEMSZ_EBADDATA);
	/* a palette entry neither present, swapped nor zero-page */
	assert_int_equal(decode_raw(ok, sizeof(ok), 3, MD_PG_DIRTY),
			 -MEMSZ_EBADDATA);
	/* cut anywhere */
	for (size_t k = 1; k < sizeof(ok); k++) {
		ret = decode_raw(ok, k, 3, 0);
		assert_int_equal(ret, -MEMSZ_EBADDATA);
	}
	/* a block past the mapping's 100 pages */
	memcpy(s, ok, sizeof(ok));
	s[sizeof(ok)] = 0xe8; /* SKIP 90 from page 15: 360 as LEB128 */
	s[sizeof(ok) + 1] = 0x02;
	assert_int_equal(decode_raw(s, sizeof(ok) + 2, 3, 0), -MEMSZ_EBADDATA);
	/* a varint of more than 64 bits */
	memset(s, 0xff, sizeof(s));
	assert_int_equal(decode_raw(s, sizeof(s), 0, 0), -MEMSZ_EBADDATA);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		memcpy(s, ok, sizeof(ok));
		s[bad[i].at] = bad[i].v;
		ret = decode_raw(s, sizeof(ok), 3, 0);
		assert_int_equal(ret, -MEMSZ_EBADDATA);
	}
	(void)state;
}

/* The writer refuses runs that are not pages of the mapping. */
static void test_mapping_runs_refused(void **state)
{
	char *path = tpath("refused.data");
	struct md_writer *w;
	struct md_run bad[2] = {
	    {0x401000, 2, MD_PG_PRESENT, 1, 0},
	    {0x402000, 1, MD_PG_PRESENT, 1, 0}, /* overlaps */
	};
	struct md_snap_mapping m = {
	    .start = 0x400000,
	    .end = 0x410000,
	    .name = "",
	    .runs = bad,
	    .nruns = 2,
	};
	struct stat st;

	assert_int_equal(md_writer_open(path, &w), 0);
	assert_int_equal(md_write_mapping(w, &m), -EINVAL);
	bad[1].vaddr = 0x410000; /* past the end */
	assert_int_equal(md_write_mapping(w, &m), -EINVAL);
	bad[1].vaddr = 0x40f800; /* not page-aligned */
	assert_int_equal(md_write_mapping(w, &m), -EINVAL);
	bad[1].vaddr = 0x40f000;
	bad[1].flags = MD_PG_DIRTY; /* not a stored page */
	assert_int_equal(md_write_mapping(w, &m), -EINVAL);
	bad[1].flags = MD_PG_SWAPPED;
	bad[1].npages = 0;
	assert_int_equal(md_write_mapping(w, &m), -EINVAL);
	bad[1].npages = 1;
	assert_int_equal(md_write_mapping(w, &m), 0);
	assert_int_equal(md_writer_commit(w), 0);
	assert_int_equal(md_writer_close(w), 0);
	assert_int_equal(stat(path, &st), 0);
	/* only the valid record was written */
	assert_true(st.st_size > 64 && st.st_size < 64 + 200);
	free(path);
	(void)state;
}

/* The mappings of test_v6_fields: one of each thing version 6 codes
 * against the previous mapping (a file's next piece, an unpredicted
 * pgoff, a change of protection, image, name, palette, a hole, the
 * vsyscall page far above), and one that only its place tells apart. */
static const struct md_run v6_present[] = {{0, 1, MD_PG_PRESENT, 1, 0}};
static const struct md_run v6_swapped[] = {{0, 1, MD_PG_SWAPPED, 0, 0}};

static const struct md_snap_mapping v6_maps[] = {
    {0x400000, 0x402000, 0, 8, 1, 99, 5, MAP_PRIVATE, 7, "/bin/true", NULL, 0},
    {0x402000, 0x403000, 0x2000, 8, 1, 99, 1, MAP_PRIVATE, 7, "/bin/true", NULL,
     0},
    {0x403000, 0x405000, 0x10000, 8, 1, 99, 3, MAP_PRIVATE | MD_MAP_LOCKED, 7,
     "/bin/true", NULL, 0},
    {0x405000, 0x406000, 0, 0, 0, 0, 3, MAP_PRIVATE, UINT32_MAX, "", NULL, 0},
    {0x7f0000000000, 0x7f0000003000, 0, 0, 0, 0, 3, MAP_PRIVATE, UINT32_MAX,
     "[anon:x]", NULL, 0},
    {0x7f0000003000, 0x7f0000004000, 0, 0, 5, 7, 3, MAP_SHARED, UINT32_MAX,
     "/dev/zero (deleted)", NULL, 0},
    {0x7f0000004000, 0x7f0000005000, 0, 0, 0, 0, 0, MAP_PRIVATE, UINT32_MAX, "",
     NULL, 0},
    {0x7f0000005000, 0x7f0000006000, 0, 0, 0, 0, 0, MAP_PRIVATE, UINT32_MAX, "",
     NULL, 0},
    {0xffffffffff600000ull, 0xffffffffff601000ull, 0, 0, 0, 0, 4, MAP_PRIVATE,
     UINT32_MAX, "[vsyscall]", NULL, 0},
};

/* A file of v6_maps (pages: the first of each, present, except the 5th
 * swapped and the 7th and 8th none) in one snapshot; prot, if not 0, replaces
 * the 4th mapping's. */
static char *write_v6(uint32_t prot)
{
	char *path = tpath("v6.data");
	struct md_writer *w;
	struct md_image im = {.id = 7, .path = "/bin/true"};
	struct md_snap_begin sb = {1, 42, 0, MD_SNAP_F_PFN | MD_SNAP_F_LOCKED,
				   ARRAY_SIZE(v6_maps)};
	struct md_snap_end se = {2, 42, 0, 0, 0};

	assert_int_equal(md_writer_open(path, &w), 0);
	assert_int_equal(md_write_image(w, &im), 0);
	assert_int_equal(md_write_snap_begin(w, &sb), 0);
	for (size_t i = 0; i < ARRAY_SIZE(v6_maps); i++) {
		struct md_snap_mapping m = v6_maps[i];
		struct md_run run = i == 4 ? v6_swapped[0] : v6_present[0];

		run.vaddr = m.start;
		m.runs = &run;
		m.nruns = i == 6 || i == 7 ? 0 : 1;
		if (i == 3 && prot)
			m.prot = prot;
		assert_int_equal(md_write_mapping(w, &m), 0);
	}
	assert_int_equal(md_write_snap_end(w, &se), 0);
	assert_int_equal(md_writer_commit(w), 0);
	assert_int_equal(md_writer_close(w), 0);
	return path;
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

/* Version 6 gives back every field of every mapping as written, and a
 * small anonymous mapping next to the previous one takes 24 bytes; a prot
 * over 7 is coded too (and refused by the reader's check, as in any
 * version); without header flag CRC its mappings are refused; an unknown
 * field bit is refused; any byte damaged behind a fixed checksum is read
 * or refused, never out of bounds (the sanitizer build checks that). */
static void test_v6_fields(void **state)
{
	char *path = write_v6(0), *dst = tpath("v6-damaged.data");
	struct md_record rec;
	struct md_reader *r;
	uint64_t b[16], off;
	size_t i = 0, len;
	uint8_t *raw, *cp;
	int ret;

	assert_int_equal(md_reader_open(path, &r), 0);
	while ((ret = md_read_next(r, &rec)) == 1) {
		const struct md_snap_mapping *m = &rec.u.mapping, *e;

		if (rec.type != MD_REC_SNAP_MAPPING)
			continue;
		e = &v6_maps[i];
		assert_int_equal(m->start, e->start);
		assert_int_equal(m->end, e->end);
		assert_int_equal(m->pgoff, e->pgoff);
		assert_int_equal(m->dev_major, e->dev_major);
		assert_int_equal(m->dev_minor, e->dev_minor);
		assert_int_equal(m->ino, e->ino);
		assert_int_equal(m->prot, e->prot);
		assert_int_equal(m->flags, e->flags);
		assert_int_equal(m->image_id, e->image_id);
		assert_string_equal(m->name, e->name);
		assert_int_equal(m->nruns, i == 6 || i == 7 ? 0 : 1);
		if (m->nruns) {
			assert_int_equal(m->runs[0].vaddr, e->start);
			assert_int_equal(m->runs[0].npages, 1);
			assert_int_equal(m->runs[0].flags, i == 4
							       ? MD_PG_SWAPPED
							       : MD_PG_PRESENT);
		}
		/* the 8th repeats all of the 7th but its place: the has
		 * byte, gap, size, nruns, nbytes, padding */
		if (i == 7)
			assert_int_equal(rec.size, 24);
		i++;
	}
	assert_int_equal(ret, 0);
	assert_int_equal(i, ARRAY_SIZE(v6_maps));
	md_reader_close(r);
	free(path);

	path = write_v6(9);
	assert_int_equal(md_reader_open(path, &r), 0);
	assert_int_equal(read_until_error(r, &off), -MEMSZ_EBADDATA);
	free(path);
	path = write_v6(0);
	raw = read_file(path, &len);
	cp = xmalloc(len);
	/* IMAGE, SNAP_BEGIN, 9 mappings, SNAP_END, END */
	assert_int_equal(boundaries(raw, len, b), 14);
	memcpy(cp, raw, len);
	strip_checksums(cp, b, 13);
	write_file(dst, cp, len);
	assert_int_equal(md_reader_open(dst, &r), 0);
	assert_int_equal(read_until_error(r, &off), -MEMSZ_EBADDATA);
	assert_int_equal(off, b[2]);
	memcpy(cp, raw, len);
	cp[b[3] + 16] |= 0x80;
	assert_true(md_checksum_fix(cp, len) > 0);
	write_file(dst, cp, len);
	assert_int_equal(md_reader_open(dst, &r), 0);
	while ((ret = md_read_next(r, &rec)) == 1)
		;
	assert_int_equal(ret, -MEMSZ_EBADDATA);
	assert_string_equal(md_reader_why(r),
			    "mapping with unknown field bits");
	assert_int_equal(md_reader_offset(r), b[3]);
	md_reader_close(r);
	/* every payload byte of every mapping */
	for (size_t k = 2; k < 11; k++) {
		for (size_t at = b[k] + 16; at < b[k + 1]; at++) {
			memcpy(cp, raw, len);
			cp[at] ^= (uint8_t)(0x5a + at);
			md_checksum_fix(cp, len);
			write_file(dst, cp, len);
			assert_int_equal(md_reader_open(dst, &r), 0);
			ret = read_until_error(r, &off);
			assert_true(ret == 0 || ret == -MEMSZ_EBADDATA);
		}
	}
	free(cp);
	free(raw);
	free(dst);
	free(path);
	(void)state;
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

/* Write n samples with stacks that repeat (as real ones do) to path,
 * compressed or not. */
static void write_samples(const char *path, int n, bool compress)
{
	static uint64_t regs[3] = {1, 2, 0x7ffc00001000};
	uint8_t stack[3000];
	struct md_writer *w;

	for (size_t i = 0; i < sizeof(stack); i++)
		stack[i] = (uint8_t)(i * 7);
	assert_int_equal(md_writer_open(path, &w), 0);
	md_writer_set_compress(w, compress);
	for (int i = 0; i < n; i++) {
		struct md_sample sm = {
		    .time = 1000 + i,
		    .pid = 9,
		    .tid = 10 + i % 3,
		    .addr = 0x10000000 + 4096ull * i,
		    .ip = 0x401000 + i,
		    .abi = 2,
		    .regs_mask = 0x181,
		    .regs = regs,
		    .nregs = 3,
		    .stack_sp = 0x7ffc00001000,
		    .stack = stack,
		    .stack_size = 1000 + i % 2000,
		};

		stack[0] = (uint8_t)i;
		assert_int_equal(md_write_sample(w, &sm), 0);
	}
	assert_int_equal(md_write_note_kind(w, MD_NOTE_OTHER, NULL, "after"),
			 0);
	assert_int_equal(md_writer_commit(w), 0);
	assert_int_equal(md_writer_close(w), 0);
}

/* Read back what write_samples wrote; returns the flags seen. */
static uint32_t check_samples(const char *path, int n)
{
	struct md_reader *r;
	struct md_record rec;
	uint32_t flags = 0;

	assert_int_equal(md_reader_open(path, &r), 0);
	for (int i = 0; i < n; i++) {
		const struct md_sample *sm = &rec.u.sample;

		assert_int_equal(md_read_next(r, &rec), 1);
		assert_int_equal(rec.type, MD_REC_SAMPLE);
		flags |= rec.rec_flags;
		assert_int_equal(sm->time, 1000 + i);
		assert_int_equal(sm->tid, 10 + i % 3);
		assert_int_equal(sm->addr, 0x10000000 + 4096ull * i);
		assert_int_equal(sm->nregs, 3);
		assert_int_equal(sm->regs[2], 0x7ffc00001000);
		assert_int_equal(sm->stack_size, 1000 + i % 2000);
		assert_int_equal(sm->stack[0], (uint8_t)i);
		assert_int_equal(sm->stack[999], (uint8_t)(999 * 7));
	}
	assert_int_equal(md_read_next(r, &rec), 1);
	assert_int_equal(rec.type, MD_REC_NOTE);
	assert_int_equal(md_read_next(r, &rec), 1);
	assert_int_equal(rec.type, MD_REC_END);
	assert_int_equal(rec.u.end.nsamples, (uint64_t)n);
	assert_int_equal(md_read_next(r, &rec), 0);
	md_reader_close(r);
	return flags;
}

/* Sample batches are PACKED (zstd) when that is smaller, and read back
 * record by record; plain SAMPLE records (older files) read the same; a
 * damaged PACKED record is refused at its offset. */
static void test_packed(void **state)
{
	char *plain = tpath("plain.data"), *packed = tpath("packed.data");
	const int n = 5000; /* about 8 MiB of samples: more than a batch */
	struct md_reader *r;
	size_t lp, lz;
	uint8_t *raw, b[8];
	uint64_t off;

	write_samples(plain, n, false);
	write_samples(packed, n, true);
	raw = read_file(plain, &lp);
	assert_int_equal(raw[64], MD_REC_SAMPLE);
	free(raw);
	raw = read_file(packed, &lz);
	assert_int_equal(raw[64], MD_REC_PACKED);
	free(raw);
	assert_true(lz * 10 < lp);
	assert_int_equal(check_samples(plain, n), 0);
	assert_int_equal(check_samples(packed, n), MD_RECF_PACKED);

	/* a byte of the zstd frame flipped */
	raw = read_file(packed, &lz);
	b[0] = raw[64 + 16 + 24 + 40] ^ 0x55;
	free(raw);
	assert_int_equal(open_patched(packed, 64 + 16 + 24 + 40, b, 1, &r), 0);
	assert_int_equal(read_until_error(r, &off), -MEMSZ_EBADDATA);
	assert_int_equal(off, 64);
	/* a record count that does not match the records inside */
	put_le32(b, 7);
	assert_int_equal(open_patched(packed, 64 + 16 + 4, b, 4, &r), 0);
	assert_int_equal(read_until_error(r, &off), -MEMSZ_EBADDATA);
	assert_int_equal(off, 64);
	/* an unknown codec; a raw size that is not a multiple of 8 */
	put_le32(b, 2);
	assert_int_equal(open_patched(packed, 64 + 16, b, 4, &r), 0);
	assert_int_equal(read_until_error(r, &off), -MEMSZ_EBADDATA);
	put_le64(b, 12);
	assert_int_equal(open_patched(packed, 64 + 16 + 8, b, 8, &r), 0);
	assert_int_equal(read_until_error(r, &off), -MEMSZ_EBADDATA);
	free(plain);
	free(packed);
	(void)state;
}

/* The stacks written by write_reuse: thread k's sample i has its stack
 * pointer moving up and down by up to 512 bytes, its low 700 bytes
 * changed and now and then a byte anywhere. */
#define REUSE_N 12000
#define REUSE_STACK 8192
#define REUSE_BASE (0x7ffc00010000ull - 512) /* the lowest sp */

static uint64_t reuse_sp(int i)
{
	return 0x7ffc00010000 - 8 * (uint64_t)((i * 37) % 64);
}

/* the stack's top stays, or ends a little lower (as dyn_size does) */
static uint32_t reuse_size(int i)
{
	return (uint32_t)(REUSE_BASE + REUSE_STACK + 512 - reuse_sp(i)) -
	       8 * (i % 16 == 0) - (i % 7 == 0);
}

/* The stack of sample i of a thread as write_reuse made it: img is the
 * thread's memory image from REUSE_BASE up (REUSE_STACK + 512 bytes),
 * changed by step i. */
static void reuse_step(uint8_t *img, uint64_t *seed, int i)
{
	const size_t len = REUSE_STACK + 512;

	/* the part near the lowest sp changes at every sample */
	for (int k = 0; k < 64; k++) {
		*seed = *seed * 6364136223846793005ull + 1;
		img[(size_t)(*seed >> 33) % 700] ^= (uint8_t)(*seed >> 40);
	}
	if (i % 97 == 0) /* and now and then an outer frame */
		img[(size_t)(*seed >> 33) % len] ^= 0x5a;
}

static void write_reuse(const char *path, uint8_t img[3][REUSE_STACK + 512])
{
	static uint64_t regs[1] = {7};
	uint64_t seed[3] = {1, 2, 3};
	struct md_writer *w;

	for (int k = 0; k < 3; k++)
		for (size_t b = 0; b < REUSE_STACK + 512; b++)
			img[k][b] = (uint8_t)(b * 13 + k);
	assert_int_equal(md_writer_open(path, &w), 0);
	for (int i = 0; i < REUSE_N; i++) {
		int k = i % 3;
		uint64_t sp = reuse_sp(i / 3);
		struct md_sample sm = {
		    .time = 1000 + i,
		    .pid = 9,
		    .tid = 10 + k,
		    .abi = 2,
		    .regs_mask = 1,
		    .regs = regs,
		    .nregs = 1,
		    .stack_sp = sp,
		    .stack_size = reuse_size(i / 3),
		};

		reuse_step(img[k], &seed[k], i / 3);
		sm.stack = img[k] + (sp - REUSE_BASE);
		assert_int_equal(md_write_sample(w, &sm), 0);
		if (i == REUSE_N / 2) /* a batch ends before its time */
			assert_int_equal(md_write_note_kind(w, MD_NOTE_OTHER,
							    NULL, "middle"),
					 0);
	}
	assert_int_equal(md_writer_commit(w), 0);
	assert_int_equal(md_writer_close(w), 0);
}

/* In a PACKED record, a sample leaves out the top of its stack that its
 * thread's previous sample held: every stack reads back whole, byte for
 * byte, across batches; one that refers to bytes no previous sample of
 * its thread held (or outside a PACKED record) is refused at its
 * offset. */
/* A thread with no sample in a PACKED record loses its stack copies at
 * the next reset (data/stackref.h); one that sampled keeps them, and the
 * idle one's slot still counts for when the table is full. */
static void test_stackref_idle_freed(void **state)
{
	static const uint8_t stack[256] = {1, 2, 3};
	struct stackref t = {0};
	struct stackref_slot *a, *b;

	(void)state;
	a = stackref_slot(&t, 1, 1);
	assert_non_null(stackref_set(&t, a, 0x1000, stack, 256, 0));
	b = stackref_slot(&t, 1, 2);
	assert_non_null(stackref_set(&t, b, 0x1000, stack, 256, 0));
	stackref_reset(&t);
	a = stackref_slot(&t, 1, 1); /* only thread 1 samples */
	assert_non_null(stackref_set(&t, a, 0x1000, stack, 256, 0));
	stackref_reset(&t);
	assert_int_equal(t.n, 2);
	a = stackref_slot(&t, 1, 1);
	b = stackref_slot(&t, 1, 2);
	assert_non_null(a->buf);
	assert_null(b->buf);
	assert_null(b->spare);
	assert_int_equal(stackref_common_top(&t, b, 0x1000, stack, 256), 0);
	assert_null(stackref_set(&t, b, 0x1000, stack, 256, 8));
	assert_non_null(stackref_set(&t, b, 0x1000, stack, 256, 0));
	assert_int_equal(stackref_common_top(&t, b, 0x1000, stack, 256), 256);
	stackref_free(&t);
}

static void test_stack_reuse(void **state)
{
	static uint8_t img[3][REUSE_STACK + 512], want[3][REUSE_STACK + 512];
	char *path = tpath("reuse.data");
	uint64_t seed[3] = {1, 2, 3}, stored = 0, total = 0, off;
	struct md_reader *r;
	struct md_record rec;
	size_t len;
	uint8_t *raw, b[8];
	int notes = 0;

	write_reuse(path, img);
	for (int k = 0; k < 3; k++)
		for (size_t x = 0; x < REUSE_STACK + 512; x++)
			want[k][x] = (uint8_t)(x * 13 + k);
	assert_int_equal(md_reader_open(path, &r), 0);
	for (int i = 0; i < REUSE_N; i++) {
		const struct md_sample *sm = &rec.u.sample;
		int k = i % 3;

		assert_int_equal(md_read_next(r, &rec), 1);
		if (rec.type == MD_REC_NOTE) {
			notes++;
			assert_int_equal(md_read_next(r, &rec), 1);
		}
		assert_int_equal(rec.type, MD_REC_SAMPLE);
		assert_int_equal(rec.rec_flags, MD_RECF_PACKED);
		reuse_step(want[k], &seed[k], i / 3);
		assert_int_equal(sm->tid, 10 + k);
		assert_int_equal(sm->stack_sp, reuse_sp(i / 3));
		assert_int_equal(sm->stack_size, reuse_size(i / 3));
		assert_memory_equal(sm->stack,
				    want[k] + (sm->stack_sp - REUSE_BASE),
				    sm->stack_size);
		total += sm->stack_size;
		stored += sm->stack_size - sm->stack_reused;
	}
	assert_int_equal(notes, 1);
	assert_int_equal(md_read_next(r, &rec), 1);
	assert_int_equal(rec.type, MD_REC_END);
	md_reader_close(r);
	/* about 1/4 of the samples have a top above the previous one's
	 * and are stored whole; of the others, up to 700 bytes */
	assert_true(stored > 0 && stored * 3 < total);

	/* a PACKED record stored as is (random stacks do not compress),
	 * whose first sample claims reused bytes: it has no previous one */
	{
		struct md_writer *w;
		static uint8_t noise[4 * 4096];
		static uint64_t regs[1] = {7};
		uint64_t x = 42;

		for (size_t i = 0; i < sizeof(noise); i++)
			noise[i] =
			    (uint8_t)((x = x * 6364136223846793005ull + 1) >>
				      56);
		assert_int_equal(md_writer_open(path, &w), 0);
		for (int i = 0; i < 4; i++) {
			struct md_sample sm = {
			    .time = 1 + i,
			    .pid = 9,
			    .tid = 10 + i,
			    .abi = 2,
			    .regs_mask = 1,
			    .regs = regs,
			    .nregs = 1,
			    .stack_sp = 0x7ffc00010000,
			    .stack = noise + 4096 * i,
			    .stack_size = 4096,
			};

			assert_int_equal(md_write_sample(w, &sm), 0);
		}
		assert_int_equal(md_writer_commit(w), 0);
		assert_int_equal(md_writer_close(w), 0);
	}
	raw = read_file(path, &len);
	assert_int_equal(raw[64], MD_REC_PACKED);
	assert_int_equal(raw[64 + 16], 0); /* codec none */
	free(raw);
	/* the reader's view of it is sound */
	assert_int_equal(md_reader_open(path, &r), 0);
	assert_int_equal(read_until_error(r, &off), 0);
	/* the first sample (at 64 + 16 + 24) claims 8 reused bytes on top
	 * of its 4096 stored ones */
	put_le32(b, 4104);
	put_le32(b + 4, 8);
	assert_int_equal(open_patched(path, 64 + 16 + 24 + 16 + 64, b, 8, &r),
			 0);
	assert_int_equal(read_until_error(r, &off), -MEMSZ_EBADDATA);
	assert_int_equal(off, 64);
	/* more reused bytes than the stack has */
	put_le32(b, 5000);
	assert_int_equal(open_patched(path, 64 + 16 + 24 + 16 + 68, b, 4, &r),
			 0);
	assert_int_equal(read_until_error(r, &off), -MEMSZ_EBADDATA);
	assert_int_equal(off, 64);

	/* more threads than the tables keep: those past the limit store
	 * their stacks whole, alike on both sides, until a batch ends and
	 * the tables start over */
	{
		struct md_writer *w;
		static uint8_t stk[2][512];
		static uint64_t regs[1] = {7};
		const int nt = STACKREF_MAX_THREADS + 500;

		for (size_t i = 0; i < sizeof(stk[0]); i++)
			stk[0][i] = stk[1][i] = (uint8_t)(i * 5);
		stk[1][0] = 1; /* the second sample differs below its top */
		assert_int_equal(md_writer_open(path, &w), 0);
		for (int i = 0; i < 4 * nt; i++) {
			struct md_sample sm = {
			    .time = 1 + i,
			    .pid = 9,
			    .tid = 100 + i % nt,
			    .abi = 2,
			    .regs_mask = 1,
			    .regs = regs,
			    .nregs = 1,
			    .stack_sp = 0x7ffc00010000,
			    .stack = stk[i / nt % 2],
			    .stack_size = 512,
			};

			assert_int_equal(md_write_sample(w, &sm), 0);
			if (i == 2 * nt) /* a batch ends */
				assert_int_equal(
				    md_write_note_kind(w, MD_NOTE_OTHER, NULL,
						       "m"),
				    0);
		}
		assert_int_equal(md_writer_commit(w), 0);
		assert_int_equal(md_writer_close(w), 0);
		assert_int_equal(md_reader_open(path, &r), 0);
		stored = 0;
		for (int i = 0; i < 4 * nt; i++) {
			const struct md_sample *sm = &rec.u.sample;

			assert_int_equal(md_read_next(r, &rec), 1);
			if (rec.type == MD_REC_NOTE)
				assert_int_equal(md_read_next(r, &rec), 1);
			assert_int_equal(sm->tid, 100 + i % nt);
			assert_memory_equal(sm->stack, stk[i / nt % 2], 512);
			stored += sm->stack_size - sm->stack_reused;
		}
		md_reader_close(r);
		/* reused: the second sample of each kept thread (the
		 * first batch) and of each thread in the second */
		assert_true(stored < (uint64_t)4 * nt * 512 -
					 (uint64_t)STACKREF_MAX_THREADS * 500);
	}
	free(path);

	/* outside a PACKED record no sample may reuse: 8 bytes on top of
	 * the 1000 the first one stores */
	path = tpath("plain.data");
	write_samples(path, 10, false);
	put_le32(b, 1008);
	put_le32(b + 4, 8);
	assert_int_equal(open_patched(path, 64 + 16 + 64, b, 8, &r), 0);
	assert_int_equal(read_until_error(r, &off), -MEMSZ_EBADDATA);
	assert_int_equal(off, 64);
	free(path);
	(void)state;
}

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

static void test_not_memsz(void **state)
{
	char *p = tpath("short.data");
	struct md_reader *r;

	write_file(p, "MEMSZ", 5);
	assert_int_equal(md_reader_open(p, &r), -MEMSZ_ETRUNC);
	write_file(p, "ELF\x7f", 4);
	assert_int_equal(md_reader_open(p, &r), -MEMSZ_EBADMAGIC);
	write_file(p, "hello world, this is text", 25);
	assert_int_equal(md_reader_open(p, &r), -MEMSZ_EBADMAGIC);
	assert_int_equal(md_reader_open("/nonexistent/x", &r), -ENOENT);
	free(p);
	(void)state;
}

static int setup(void **state)
{
	(void)state;
	return tmpdir_make(tmpdir);
}

static int teardown(void **state)
{
	(void)state;
	return tmpdir_remove();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_round_trip),
	    cmocka_unit_test(test_long_string),
	    cmocka_unit_test(test_batch),
	    cmocka_unit_test(test_gather),
	    cmocka_unit_test(test_unnamed),
	    cmocka_unit_test(test_records_partial_batch),
	    cmocka_unit_test(test_comm_owner),
	    cmocka_unit_test(test_old_renamed),
	    cmocka_unit_test(test_truncated_everywhere),
	    cmocka_unit_test(test_corrupt),
	    cmocka_unit_test(test_invariants),
	    cmocka_unit_test(test_pmd_locked_bits),
	    cmocka_unit_test(test_crc32c),
	    cmocka_unit_test(test_samples_partial_batch),
	    cmocka_unit_test(test_layouts_round_trip),
	    cmocka_unit_test(test_mapping_pieces),
	    cmocka_unit_test(test_worst_layout_bits),
	    cmocka_unit_test(test_v1_file),
	    cmocka_unit_test(test_v1_run_invariants),
	    cmocka_unit_test(test_corrupt_pages),
	    cmocka_unit_test(test_pages_fields),
	    cmocka_unit_test(test_forked_layout_bits),
	    cmocka_unit_test(test_coded_fields),
	    cmocka_unit_test(test_pgstate_wrap),
	    cmocka_unit_test(test_mapping_runs_refused),
	    cmocka_unit_test(test_v6_fields),
	    cmocka_unit_test(test_jitmap),
	    cmocka_unit_test(test_packed),
	    cmocka_unit_test(test_stack_reuse),
	    cmocka_unit_test(test_stackref_idle_freed),
	    cmocka_unit_test(test_not_memsz),
	    cmocka_unit_test(test_dev_full),
	    cmocka_unit_test(test_old_snap_end),
	    cmocka_unit_test(test_snap_maps_flag),
	    cmocka_unit_test(test_note_kinds),
	    cmocka_unit_test(test_note_v3),
	    cmocka_unit_test(test_note_legacy_table),
	    cmocka_unit_test(test_fsize_limit),
	    cmocka_unit_test(test_full_tmpfs),
	};

	return test_run_group(tests, setup, teardown);
}
