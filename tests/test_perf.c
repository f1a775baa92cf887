// SPDX-License-Identifier: GPL-2.0-or-later
/* test_perf.c — perf record decoding, the ring-buffer consumer, and live
 * capture of a forked child's mmaps checked against its /proc/PID/maps. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "record/perf.h"
#include "record/procmaps.h"
#include "record/target.h"
#include "util/util.h"
#include "tests/testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Build a raw MMAP2 record as the kernel lays it out. */
static size_t make_mmap2(uint8_t *buf, uint32_t pid, uint64_t start,
			 uint64_t len, uint64_t pgoff, uint64_t ino,
			 const char *name, uint64_t time)
{
	size_t nlen = (strlen(name) + 1 + 7) & ~(size_t)7;
	size_t size = 8 + 64 + nlen + 16;
	struct perf_event_header h = {PERF_RECORD_MMAP2, 0, size};
	uint8_t *b = buf + 8;
	uint32_t u32;

	memset(buf, 0, size);
	memcpy(buf, &h, 8);
	memcpy(b, &pid, 4);
	memcpy(b + 4, &pid, 4);
	memcpy(b + 8, &start, 8);
	memcpy(b + 16, &len, 8);
	memcpy(b + 24, &pgoff, 8);
	u32 = 254;
	memcpy(b + 32, &u32, 4);
	u32 = 1;
	memcpy(b + 36, &u32, 4);
	memcpy(b + 40, &ino, 8);
	u32 = PROT_READ | PROT_EXEC;
	memcpy(b + 56, &u32, 4);
	u32 = MAP_PRIVATE;
	memcpy(b + 60, &u32, 4);
	strcpy((char *)b + 64, name);
	memcpy(buf + size - 16, &pid, 4);
	memcpy(buf + size - 12, &pid, 4);
	memcpy(buf + size - 8, &time, 8);
	return size;
}

static void test_decode_mmap2(void **state)
{
	uint8_t buf[256];
	struct perf_rec r;
	size_t n;

	(void)state;
	n = make_mmap2(buf, 42, 0x400000, 0x2000, 0x1000, 777,
		       "/usr/lib/libfoo.so", 123456789);
	assert_int_equal(perf_decode(buf, n, &r), 1);
	assert_int_equal(r.type, MD_REC_MMAP2);
	assert_int_equal(r.u.mmap2.pid, 42);
	assert_int_equal(r.u.mmap2.start, 0x400000);
	assert_int_equal(r.u.mmap2.len, 0x2000);
	assert_int_equal(r.u.mmap2.pgoff, 0x1000);
	assert_int_equal(r.u.mmap2.dev_major, 254);
	assert_int_equal(r.u.mmap2.dev_minor, 1);
	assert_int_equal(r.u.mmap2.ino, 777);
	assert_int_equal(r.u.mmap2.prot, PROT_READ | PROT_EXEC);
	assert_int_equal(r.u.mmap2.time, 123456789);
	assert_string_equal(r.u.mmap2.filename, "/usr/lib/libfoo.so");
	/* A size that does not match is malformed, never read past. */
	assert_int_equal(perf_decode(buf, n - 8, &r), -MEMSZ_EBADDATA);
	/* A filename without its NUL is malformed. */
	memset(buf + 8 + 64, 'x', n - 8 - 64 - 16);
	assert_int_equal(perf_decode(buf, n, &r), -MEMSZ_EBADDATA);
}

static void test_decode_build_id(void **state)
{
	uint8_t buf[256];
	struct perf_event_header h;
	struct perf_rec r;
	size_t n;

	(void)state;
	n = make_mmap2(buf, 7, 0x1000, 0x1000, 0, 0, "/bin/x", 5);
	memcpy(&h, buf, 8);
	h.misc |= PERF_RECORD_MISC_MMAP_BUILD_ID;
	memcpy(buf, &h, 8);
	memset(buf + 8 + 32, 0, 24);
	buf[8 + 32] = 20;
	for (int i = 0; i < 20; i++)
		buf[8 + 36 + i] = 0xa0 + i;
	assert_int_equal(perf_decode(buf, n, &r), 1);
	assert_int_equal(r.u.mmap2.build_id_len, 20);
	assert_int_equal(r.u.mmap2.build_id[0], 0xa0);
	assert_int_equal(r.u.mmap2.build_id[19], 0xa0 + 19);
	assert_int_equal(r.u.mmap2.ino, 0);
}

static void test_decode_task_lost(void **state)
{
	uint8_t buf[64] = {0};
	struct perf_event_header h = {PERF_RECORD_FORK, 0, 48};
	uint32_t v[4] = {10, 9, 11, 8};
	uint64_t t = 99, lost[2] = {1, 17};
	struct perf_rec r;

	(void)state;
	memcpy(buf, &h, 8);
	memcpy(buf + 8, v, 16);
	memcpy(buf + 24, &t, 8);
	assert_int_equal(perf_decode(buf, 48, &r), 1);
	assert_int_equal(r.type, MD_REC_FORK);
	assert_int_equal(r.u.task.pid, 10);
	assert_int_equal(r.u.task.ppid, 9);
	assert_int_equal(r.u.task.tid, 11);
	assert_int_equal(r.u.task.ptid, 8);
	assert_int_equal(r.u.task.time, 99);

	h = (struct perf_event_header){PERF_RECORD_LOST, 0, 40};
	memset(buf, 0, sizeof(buf));
	memcpy(buf, &h, 8);
	memcpy(buf + 8, lost, 16);
	memcpy(buf + 32, &t, 8);
	assert_int_equal(perf_decode(buf, 40, &r), 1);
	assert_int_equal(r.type, MD_REC_LOST);
	assert_int_equal(r.u.lost.count, 17);
	assert_int_equal(r.u.lost.time, 99);

	h = (struct perf_event_header){PERF_RECORD_THROTTLE, 0, 40};
	memcpy(buf, &h, 8);
	assert_int_equal(perf_decode(buf, 40, &r), 0);
}

struct seen {
	int n;
	char names[16][64];
	uint64_t times[16];
};

static void collect(const void *raw, size_t len, void *arg)
{
	struct seen *s = arg;
	struct perf_rec r;

	assert_int_equal(perf_decode(raw, len, &r), 1);
	snprintf(s->names[s->n], 64, "%s", r.u.mmap2.filename);
	s->times[s->n++] = r.u.mmap2.time;
}

/* Records written round a 256-byte ring so that some wrap its end. */
static void test_ring_wrap(void **state)
{
	uint8_t ring[256], rec[256];
	uint64_t head = 0, tail = 0;
	struct seen s = {0};
	char name[32];

	(void)state;
	/* Start near the end so the second record straddles it. */
	head = tail = 200;
	for (int i = 0; i < 6; i++) {
		size_t n;

		snprintf(name, sizeof(name), "/lib/x%d.so", i);
		n = make_mmap2(rec, 1, i, 1, 0, 1, name, 1000 + i);
		for (size_t k = 0; k < n; k++)
			ring[(head + k) & 255] = rec[k];
		head += n;
		if (i % 2 == 1) {
			tail = perf_ring_consume(ring, sizeof(ring), tail, head,
						 collect, &s);
			assert_int_equal(tail, head);
		}
	}
	assert_int_equal(s.n, 6);
	for (int i = 0; i < 6; i++) {
		snprintf(name, sizeof(name), "/lib/x%d.so", i);
		assert_string_equal(s.names[i], name);
		assert_int_equal(s.times[i], 1000 + i);
	}
	/* A record whose tail is not yet published is left for later. */
	make_mmap2(rec, 1, 0, 1, 0, 1, "/lib/y.so", 7);
	for (size_t k = 0; k < 104; k++)
		ring[(head + k) & 255] = rec[k];
	assert_int_equal(
	    perf_ring_consume(ring, sizeof(ring), tail, head + 40, collect, &s),
	    tail);
	assert_int_equal(s.n, 6);
}

struct live {
	int pid;
	char file[256];
	int nmmap, nfile, nfork, nexit, ncomm;
	uint64_t last_time;
	bool ordered;
	uint64_t file_start, file_len, file_pgoff;
	int child_pid_mmaps;
};

static int on_rec(void *arg, const struct perf_rec *r)
{
	struct live *l = arg;
	uint64_t t = r->type == MD_REC_MMAP2  ? r->u.mmap2.time
		     : r->type == MD_REC_LOST ? r->u.lost.time
					      : r->u.task.time;

	if (t < l->last_time)
		l->ordered = false;
	l->last_time = t;
	switch (r->type) {
	case MD_REC_MMAP2:
		l->nmmap++;
		if (!strcmp(r->u.mmap2.filename, l->file)) {
			l->nfile++;
			l->file_start = r->u.mmap2.start;
			l->file_len = r->u.mmap2.len;
			l->file_pgoff = r->u.mmap2.pgoff;
			if ((int)r->u.mmap2.pid != l->pid)
				l->child_pid_mmaps++;
		}
		break;
	case MD_REC_FORK:
		l->nfork++;
		break;
	case MD_REC_EXIT:
		l->nexit++;
		break;
	case MD_REC_COMM:
		l->ncomm++;
		break;
	default:
		break;
	}
	return 0;
}

/* A child waits on a pipe, maps 2 pages at offset 4096 of a file, forks a
 * grandchild that maps it too, and exits. Events come from an inherited,
 * enable_on_exec-less capture opened before the child runs. */
static void test_live_child(void **state)
{
	struct perf_capture_opts o = {.inherit = true};
	struct perf_capture *pc;
	struct live l = {.ordered = true};
	char tmpl[] = "/tmp/test_perf.XXXXXX";
	int go[2], fd, ret, st;
	char buf[3 * 4096] = {0};

	(void)state;
	fd = mkstemp(tmpl);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, sizeof(buf)), sizeof(buf));
	snprintf(l.file, sizeof(l.file), "%s", tmpl);
	assert_int_equal(pipe(go), 0);
	l.pid = fork();
	if (l.pid == 0) {
		char c;
		void *p;
		pid_t g;

		if (read(go[0], &c, 1) != 1)
			_exit(1);
		p = mmap(NULL, 8192, PROT_READ, MAP_PRIVATE, fd, 4096);
		g = fork();
		if (g == 0) {
			p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
			_exit(p == MAP_FAILED);
		}
		waitpid(g, NULL, 0);
		_exit(p == MAP_FAILED);
	}
	ret = perf_capture_new(&o, &pc);
	assert_int_equal(ret, 0);
	ret = perf_capture_add_task(pc, l.pid);
	if (ret == -EACCES || ret == -EPERM) {
		kill(l.pid, SIGKILL);
		waitpid(l.pid, NULL, 0);
		perf_capture_free(pc);
		unlink(tmpl);
		test_skip("perf_event_open refused: %s", strerror(-ret));
	}
	assert_int_equal(ret, 0);
	assert_int_equal(perf_capture_enable(pc), 0);
	assert_int_equal(write(go[1], "g", 1), 1);
	waitpid(l.pid, &st, 0);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	ret = perf_capture_drain(pc, true, on_rec, &l);
	assert_true(ret > 0);
	assert_int_equal(perf_capture_bad(pc), 0);
	/* Two mmaps of the file: the child's, then the grandchild's. */
	assert_int_equal(l.nfile, 2);
	assert_int_equal(l.child_pid_mmaps, 1);
	assert_int_equal(l.file_len, 4096);
	assert_int_equal(l.file_pgoff, 0);
	assert_int_equal(l.nfork, 1);
	assert_true(l.nexit >= 2);
	assert_true(l.ordered);
	perf_capture_free(pc);
	close(fd);
	unlink(tmpl);
}

/* Mappings that exist are not reported by perf; a new one is, with exactly
 * the fields /proc/PID/maps shows for it. */
static void test_live_matches_maps(void **state)
{
	struct perf_capture_opts o = {.inherit = false};
	struct perf_capture *pc;
	struct live l = {.ordered = true};
	struct procmaps pm = {0};
	int go[2], back[2], ret, found = 0;
	char c;

	(void)state;
	snprintf(l.file, sizeof(l.file), "/etc/passwd");
	assert_int_equal(pipe(go), 0);
	assert_int_equal(pipe(back), 0);
	l.pid = fork();
	if (l.pid == 0) {
		int fd = open("/etc/passwd", O_RDONLY);
		void *p;

		if (read(go[0], &c, 1) != 1)
			_exit(1);
		p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
		if (write(back[1], "d", 1) != 1 || p == MAP_FAILED)
			_exit(1);
		pause();
		_exit(0);
	}
	assert_int_equal(perf_capture_new(&o, &pc), 0);
	ret = perf_capture_add_task(pc, l.pid);
	if (ret == -EACCES || ret == -EPERM) {
		kill(l.pid, SIGKILL);
		waitpid(l.pid, NULL, 0);
		perf_capture_free(pc);
		test_skip("perf_event_open refused: %s", strerror(-ret));
	}
	assert_int_equal(ret, 0);
	assert_int_equal(perf_capture_enable(pc), 0);
	assert_int_equal(write(go[1], "g", 1), 1);
	assert_int_equal(read(back[0], &c, 1), 1);
	assert_true(procmaps_read(l.pid, 0, &pm) > 0);
	kill(l.pid, SIGKILL);
	waitpid(l.pid, NULL, 0);
	perf_capture_drain(pc, true, on_rec, &l);
	assert_int_equal(l.nfile, 1);
	for (size_t i = 0; i < pm.n; i++)
		if (!strcmp(pm.maps[i].name, "/etc/passwd") &&
		    pm.maps[i].start == l.file_start) {
			found++;
			assert_int_equal(pm.maps[i].end - pm.maps[i].start,
					 l.file_len);
			assert_int_equal(pm.maps[i].pgoff, l.file_pgoff);
		}
	assert_int_equal(found, 1);
	procmaps_free(&pm);
	perf_capture_free(pc);
}

/* Hostile sizes: a user stack size that would wrap a bounds check, and a
 * ring record size that is not a multiple of 8 (the rest of the ring is
 * dropped: the records after it cannot be found). */
static void test_hostile_sizes(void **state)
{
	struct perf_event_attr a = {
	    .sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_STACK_USER,
	};
	uint64_t raw[4] = {0};
	struct perf_event_header h = {.type = PERF_RECORD_SAMPLE,
				      .size = sizeof(raw)};
	struct md_sample smp;
	uint8_t ring[64] = {0};
	struct seen s = {0};

	(void)state;
	memcpy(raw, &h, sizeof(h));
	raw[2] = UINT64_MAX - 7; /* stack size: + 8 wraps to 0 */
	assert_int_equal(perf_decode_sample(&a, raw, sizeof(raw), &smp),
			 -MEMSZ_EBADDATA);
	h.size = 12;
	memcpy(ring, &h, sizeof(h));
	assert_int_equal(
	    perf_ring_consume(ring, sizeof(ring), 0, 48, collect, &s), 48);
	assert_int_equal(s.n, 0);
}

static void test_parse_pids(void **state)
{
	int *p = NULL;

	(void)state;
	assert_int_equal(target_parse_pids("12,34", &p), 2);
	assert_int_equal(p[0], 12);
	assert_int_equal(p[1], 34);
	free(p);
	assert_int_equal(target_parse_pids("12,x", &p), -MEMSZ_EUSAGE);
	assert_int_equal(target_parse_pids("", &p), -MEMSZ_EUSAGE);
	assert_int_equal(target_parse_pids("0", &p), -MEMSZ_EUSAGE);
	assert_int_equal(target_parse_pids("-3", &p), -MEMSZ_EUSAGE);
	assert_int_equal(target_check_pid(getpid()), 0);
	assert_int_equal(target_tgid(getpid()), getpid());
	assert_int_equal(target_state(getpid(), getpid()), 'R');
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_decode_mmap2),
	    cmocka_unit_test(test_decode_build_id),
	    cmocka_unit_test(test_decode_task_lost),
	    cmocka_unit_test(test_ring_wrap),
	    cmocka_unit_test(test_live_child),
	    cmocka_unit_test(test_live_matches_maps),
	    cmocka_unit_test(test_hostile_sizes),
	    cmocka_unit_test(test_parse_pids),
	};

	return test_run_group(tests, NULL, NULL);
}
