// SPDX-License-Identifier: GPL-2.0-or-later
/* test_procmaps.c — /proc/PID/maps parsing: fixtures in the kernel's exact
 * layout, malformed lines, and the live /proc/self/maps checked against
 * `wc -l` and against /proc/self/map_files. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "record/procmaps.h"
#include "util/util.h"
#include "tests/testutil.h"

/* Lines as the kernel prints them: the fixed part with its trailing space,
 * padded to column 72, one space, the name (see show_map_vma). */
static const char *const lines[][2] = {
    {"55b91efe9000-55b91efeb000 r--p 00000000 fe:00 247134 ", "/usr/bin/cat"},
    {"55b9588f7000-55b958918000 rw-p 00000000 00:00 0 ", "[heap]"},
    {"7f0642ce1000-7f0642da5000 rw-p 00000000 00:00 0 ", NULL},
    {"7f0642feb000-7f0642ff2000 r--s 0001a000 103:10001 332280 ",
     "/tmp/dir with spaces/file name (deleted)"},
    {"7f0642ff5000-7f0642ff9000 r--p 00000000 00:00 0 ", "[anon:my pool]"},
    {"7ffd1c3d2000-7ffd1c3f3000 rw-p 00000000 00:00 0 ", "[stack]"},
    {"ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0 ", "[vsyscall]"},
    /* longer than the padding: the name follows after one space */
    {"ffffffffff600000-ffffffffff601000 r-xs 00000000 fff:fffff "
     "18446744073709551615 ",
     "/x"},
    {"7f0642ff5000-7f0642ff9000 r--p 00000000 00:00 0 ",
     "  two leading spaces"},
};

static char *fixture_text(void)
{
	char *text = xstrdup(""), *t;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(lines); i++) {
		if (lines[i][1])
			t = xasprintf("%s%-72s %s\n", text, lines[i][0],
				      lines[i][1]);
		else
			t = xasprintf("%s%s\n", text, lines[i][0]);
		free(text);
		text = t;
	}
	return text;
}

static FILE *mem(const char *s)
{
	FILE *f = fmemopen((void *)s, strlen(s), "r");

	assert_non_null(f);
	return f;
}

static void test_fixture(void **state)
{
	struct procmaps m = {0};
	char *text = fixture_text();
	FILE *f = mem(text);
	struct procmap *p;

	assert_int_equal(procmaps_parse(f, &m), 9);
	fclose(f);
	free(text);
	p = m.maps;
	assert_int_equal(p[0].start, 0x55b91efe9000);
	assert_int_equal(p[0].end, 0x55b91efeb000);
	assert_int_equal(p[0].prot, PROT_READ);
	assert_int_equal(p[0].flags, MAP_PRIVATE);
	assert_int_equal(p[0].dev_major, 0xfe);
	assert_int_equal(p[0].dev_minor, 0);
	assert_int_equal(p[0].ino, 247134);
	assert_string_equal(p[0].name, "/usr/bin/cat");
	assert_string_equal(p[1].name, "[heap]");
	assert_int_equal(p[1].prot, PROT_READ | PROT_WRITE);
	assert_string_equal(p[2].name, "");
	assert_int_equal(p[3].flags, MAP_SHARED);
	assert_int_equal(p[3].pgoff, 0x1a000);
	assert_int_equal(p[3].dev_major, 0x103);
	assert_int_equal(p[3].dev_minor, 0x10001);
	assert_string_equal(p[3].name,
			    "/tmp/dir with spaces/file name (deleted)");
	assert_string_equal(p[4].name, "[anon:my pool]");
	assert_string_equal(p[5].name, "[stack]");
	assert_int_equal(p[6].start, 0xffffffffff600000);
	assert_int_equal(p[6].prot, PROT_EXEC);
	assert_string_equal(p[6].name, "[vsyscall]");
	assert_int_equal(p[7].start, 0xffffffffff600000);
	assert_int_equal(p[7].flags, MAP_SHARED);
	assert_int_equal(p[7].prot, PROT_READ | PROT_EXEC);
	assert_int_equal(p[7].dev_major, 0xfff);
	assert_int_equal(p[7].dev_minor, 0xfffff);
	assert_int_equal(p[7].ino, UINT64_MAX);
	assert_string_equal(p[7].name, "/x");
	/* the padding ends at column 72, then one space: the rest is name */
	assert_string_equal(p[8].name, "  two leading spaces");
	procmaps_free(&m);
	assert_int_equal(m.n, 0);
	assert_null(m.maps);
	(void)state;
}

/* Out of order, overlapping and empty lines (a maps file read while the
 * address space changed) are put in order or dropped. */
static void test_order(void **state)
{
	struct procmaps m = {0};
	FILE *f = mem("00403000-00404000 rw-p 00000000 00:00 0 \n"
		      "00400000-00402000 r--p 00000000 00:00 0 \n"
		      "00401000-00403000 r-xp 00000000 00:00 0 \n"
		      "00405000-00405000 r--p 00000000 00:00 0 \n"
		      "00402000-00403000 r--p 00000000 00:00 0 \n");

	(void)state;
	assert_int_equal(procmaps_parse(f, &m), 5);
	fclose(f);
	assert_int_equal(procmaps_order(&m), 2);
	assert_int_equal(m.n, 3);
	assert_int_equal(m.maps[0].start, 0x400000);
	assert_int_equal(m.maps[1].start, 0x402000);
	assert_int_equal(m.maps[2].start, 0x403000);
	procmaps_free(&m);
	assert_int_equal(procmaps_order(&m), 0);
}

static void test_malformed(void **state)
{
	static const char *const bad[] = {
	    "zz-1000 r--p 00000000 00:00 0\n",
	    "1000-2000 r--q 00000000 00:00 0\n",
	    "1000-2000 r--p 00000000 0000 0\n",
	    "1000-2000 r--p 00000000 00:00 x\n",
	    "2000-1000 r--p 00000000 00:00 0\n",
	    "1000-2000 r--p\n",
	    "1000-2000 rw-p 00000000 00:00 0\tname\n",
	    "10000000000000000-2000 r--p 00000000 00:00 0\n",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		char *text =
		    xasprintf("1000-2000 r--p 00000000 00:00 0\n%s", bad[i]);
		struct procmaps m = {0};
		FILE *f = mem(text);

		assert_int_equal(procmaps_parse(f, &m), -MEMSZ_EBADDATA);
		/* the good line before it is kept */
		assert_int_equal(m.n, 1);
		fclose(f);
		procmaps_free(&m);
		free(text);
	}
	(void)state;
}

static size_t wc_l(const char *path)
{
	char cmd[256], buf[64];
	FILE *p;
	size_t n = 0;

	snprintf(cmd, sizeof(cmd), "wc -l < %s", path);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_non_null(fgets(buf, sizeof(buf), p));
	n = strtoul(buf, NULL, 10);
	pclose(p);
	return n;
}

/* Print every parsed mapping back in the kernel's layout: it must give the
 * file's text again, byte for byte. */
static void check_reprint(const char *path, const struct procmaps *m)
{
	FILE *f = fopen(path, "r");
	char line[8192], pre[256], *again;
	size_t i;

	assert_non_null(f);
	for (i = 0; i < m->n; i++) {
		const struct procmap *p = &m->maps[i];

		assert_non_null(fgets(line, sizeof(line), f));
		snprintf(pre, sizeof(pre),
			 "%08lx-%08lx %c%c%c%c %08lx %02x:%02x %lu ",
			 (unsigned long)p->start, (unsigned long)p->end,
			 p->prot & PROT_READ ? 'r' : '-',
			 p->prot & PROT_WRITE ? 'w' : '-',
			 p->prot & PROT_EXEC ? 'x' : '-',
			 p->flags == MAP_SHARED ? 's' : 'p',
			 (unsigned long)p->pgoff, p->dev_major, p->dev_minor,
			 (unsigned long)p->ino);
		if (p->name[0])
			again = xasprintf("%-72s %s\n", pre, p->name);
		else
			again = xasprintf("%s\n", pre);
		assert_string_equal(line, again);
		free(again);
	}
	assert_null(fgets(line, sizeof(line), f));
	fclose(f);
}

/* smaps' VmFlags: "lo" (locked) and "ht" (hugetlb) set the vmflags of the
 * mapping with the same start and end; an entry that matches no mapping
 * (the address space changed between the reads) sets nothing. */
/* A stream that yields one maps line, then fails as a read of
 * /proc/PID/maps does once the process has exited. */
static ssize_t gone_read(void *cookie, char *buf, size_t size)
{
	static const char line[] = "00400000-00401000 r-xp 00000000 08:01 "
				   "42 /bin/x\n";
	int *calls = cookie;

	if ((*calls)++ || size < sizeof(line) - 1) {
		errno = ESRCH;
		return -1;
	}
	memcpy(buf, line, sizeof(line) - 1);
	return (ssize_t)(sizeof(line) - 1);
}

/* The read's own error comes back (-ESRCH: the process went away, which
 * the snapshot takes as such), not a generic -EIO that a recording would
 * report as a failure to write its file. */
static void test_read_error(void **state)
{
	cookie_io_functions_t io = {.read = gone_read};
	struct procmaps m = {0};
	int calls = 0;
	FILE *f;

	(void)state;
	f = fopencookie(&calls, "r", io);
	assert_non_null(f);
	assert_int_equal(procmaps_parse(f, &m), -ESRCH);
	fclose(f);
	procmaps_free(&m);
	calls = 0;
	f = fopencookie(&calls, "r", io);
	assert_non_null(f);
	assert_int_equal(procmaps_parse_vmflags(f, &m), -ESRCH);
	fclose(f);
	procmaps_free(&m);
}

/* Fill m with copies of the n mappings maps, each named "". */
static void maps_of(struct procmaps *m, const struct procmap *maps, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		xgrow(&m->maps, &m->cap, m->n + 1, sizeof(*m->maps));
		m->maps[m->n] = maps[i];
		m->maps[m->n++].name = xstrdup("");
	}
}

static void test_vmflags(void **state)
{
	static const char smaps[] =
	    "00400000-00401000 r-xp 00000000 08:01 99      /bin/true\n"
	    "Size:                  4 kB\n"
	    "Rss:                   4 kB\n"
	    "Locked:                4 kB\n"
	    "THPeligible:    0\n"
	    "VmFlags: rd ex mr mw me lo \n"
	    "00600000-00800000 rw-p 00000000 00:00 0 \n"
	    "AnonHugePages:      2048 kB\n"
	    "VmFlags: rd wr mr mw me ac hg\n"
	    "7f0000000000-7f0000200000 rw-s 00000000 00:0f 1234  "
	    "/anon_hugepage (deleted)\n"
	    "VmFlags: rd wr sh mr mw me ms de ht lo\n"
	    "7f0000400000-7f0000500000 rw-p 00000000 00:00 0 \n"
	    "VmFlags: rd wr lo\n";
	static const struct procmap maps[] = {
	    {.start = 0x400000, .end = 0x401000},
	    {.start = 0x600000, .end = 0x800000},
	    {.start = 0x7f0000000000, .end = 0x7f0000200000},
	    /* not the same end */
	    {.start = 0x7f0000400000, .end = 0x7f0000480000},
	};
	struct procmaps m = {0};
	FILE *f = mem(smaps);

	maps_of(&m, maps, ARRAY_SIZE(maps));
	assert_int_equal(procmaps_parse_vmflags(f, &m), 3);
	fclose(f);
	assert_int_equal(m.maps[0].vmflags, PROCMAP_VM_LOCKED);
	assert_int_equal(m.maps[1].vmflags, 0);
	assert_int_equal(m.maps[2].vmflags,
			 PROCMAP_VM_LOCKED | PROCMAP_VM_HUGETLB);
	assert_int_equal(m.maps[3].vmflags, 0);
	f = mem("00400000-zz r-xp 00000000 08:01 99 /bin/true\n");
	assert_int_equal(procmaps_parse_vmflags(f, &m), -MEMSZ_EBADDATA);
	fclose(f);
	procmaps_free(&m);
	(void)state;
}

/* procmaps_parse_unshared: bit 0 for a mapping smaps counts no page
 * shared of (both Shared_ fields 0 kB), bit 1 for VmFlags' "sd", its
 * AnonHugePages (UINT64_MAX without it); a mapping whose entry lacks a
 * field, or has another end, is left 0. */
static void test_unshared(void **state)
{
	static const char smaps[] =
	    "00600000-00800000 rw-p 00000000 00:00 0 \n"
	    "Shared_Clean:          0 kB\n"
	    "Shared_Dirty:          0 kB\n"
	    "AnonHugePages:      2048 kB\n"
	    "VmFlags: rd wr mr mw me ac sd hg\n"
	    "00a00000-00c00000 rw-p 00000000 00:00 0 \n"
	    "Shared_Clean:          0 kB\n"
	    "Shared_Dirty:          4 kB\n"
	    "VmFlags: rd wr mr mw me ac\n"
	    "00e00000-01000000 rw-p 00000000 00:00 0 \n"
	    "Shared_Dirty:          0 kB\n"
	    "VmFlags: rd wr mr mw me ac\n"
	    "7f0000000000-7f0000200000 rw-p 00000000 00:00 0 \n"
	    "Shared_Clean:          0 kB\n"
	    "Shared_Dirty:          0 kB\n"
	    "VmFlags: rd wr mr mw me ac\n"
	    "7f0000400000-7f0000500000 rw-p 00000000 00:00 0 \n"
	    "Shared_Clean:          0 kB\n"
	    "Shared_Dirty:          0 kB\n"
	    "VmFlags: rd wr mr mw me ac\n";
	static const struct procmap maps[] = {
	    {.start = 0x600000, .end = 0x800000},
	    {.start = 0xa00000, .end = 0xc00000},
	    {.start = 0xe00000, .end = 0x1000000},
	    {.start = 0x7f0000000000, .end = 0x7f0000200000},
	    /* not the same end */
	    {.start = 0x7f0000400000, .end = 0x7f0000480000},
	};
	uint8_t un[ARRAY_SIZE(maps)] = {0};
	uint64_t kb[ARRAY_SIZE(maps)] = {0};
	struct procmaps m = {0};
	FILE *f = mem(smaps);

	maps_of(&m, maps, ARRAY_SIZE(maps));
	assert_int_equal(procmaps_parse_unshared(f, &m, un, kb), 2);
	fclose(f);
	assert_int_equal(kb[0], 2048);
	assert_true(kb[1] == UINT64_MAX);
	assert_int_equal(kb[4], 0);
	assert_int_equal(un[0], 3);
	assert_int_equal(un[1], 0);
	assert_int_equal(un[2], 0);
	assert_int_equal(un[3], 1);
	assert_int_equal(un[4], 0);
	f = mem("00400000-zz r-xp 00000000 08:01 99 /bin/true\n");
	assert_int_equal(procmaps_parse_unshared(f, &m, un, NULL),
			 -MEMSZ_EBADDATA);
	fclose(f);
	procmaps_free(&m);
	(void)state;
}

/* procmaps_parse_kb: each field of an entry with every field and the
 * same start and end, in kB; an entry lacking one, or with another end,
 * is left as it was. */
static void test_parse_kb(void **state)
{
	static const char smaps[] =
	    "00600000-00800000 rw-p 00000000 00:00 0 \n"
	    "Size:               2048 kB\n"
	    "Rss:                 400 kB\n"
	    "Pss:                 300 kB\n"
	    "Pss_Dirty:           200 kB\n"
	    "Shared_Clean:         12 kB\n"
	    "Shared_Dirty:         88 kB\n"
	    "Private_Clean:       100 kB\n"
	    "Private_Dirty:       200 kB\n"
	    "Anonymous:           396 kB\n"
	    "VmFlags: rd wr mr mw me ac\n"
	    "00a00000-00c00000 rw-p 00000000 00:00 0 \n"
	    "Rss:                   4 kB\n"
	    "Shared_Clean:          0 kB\n"
	    "Shared_Dirty:          0 kB\n"
	    "Private_Clean:         0 kB\n"
	    "Private_Dirty:         4 kB\n"
	    "VmFlags: rd wr mr mw me ac\n"
	    "7f0000400000-7f0000500000 rw-p 00000000 00:00 0 \n"
	    "Rss:                   4 kB\n"
	    "Shared_Clean:          0 kB\n"
	    "Shared_Dirty:          0 kB\n"
	    "Private_Clean:         0 kB\n"
	    "Private_Dirty:         4 kB\n"
	    "Anonymous:             4 kB\n"
	    "VmFlags: rd wr mr mw me ac\n";
	static const struct procmap maps[] = {
	    {.start = 0x600000, .end = 0x800000},
	    /* no Anonymous: line */
	    {.start = 0xa00000, .end = 0xc00000},
	    /* not the same end */
	    {.start = 0x7f0000400000, .end = 0x7f0000480000},
	};
	struct smaps_kb kb[ARRAY_SIZE(maps)];
	struct procmaps m = {0};
	FILE *f = mem(smaps);

	memset(kb, 0x55, sizeof(kb));
	maps_of(&m, maps, ARRAY_SIZE(maps));
	assert_int_equal(procmaps_parse_kb(f, &m, kb), 1);
	fclose(f);
	assert_int_equal(kb[0].kb[SMAPS_F_RSS], 400);
	assert_int_equal(kb[0].kb[SMAPS_F_SHARED_CLEAN], 12);
	assert_int_equal(kb[0].kb[SMAPS_F_SHARED_DIRTY], 88);
	assert_int_equal(kb[0].kb[SMAPS_F_PRIVATE_CLEAN], 100);
	assert_int_equal(kb[0].kb[SMAPS_F_PRIVATE_DIRTY], 200);
	assert_int_equal(kb[0].kb[SMAPS_F_ANONYMOUS], 396);
	for (size_t i = 1; i < ARRAY_SIZE(maps); i++)
		for (size_t k = 0; k < SMAPS_F__COUNT; k++)
			assert_true(kb[i].kb[k] == 0x5555555555555555ull);
	f = mem("00400000-zz r-xp 00000000 08:01 99 /bin/true\n");
	assert_int_equal(procmaps_parse_kb(f, &m, kb), -MEMSZ_EBADDATA);
	fclose(f);
	procmaps_free(&m);
	(void)state;
}

/* The live maps of a stopped child (so `wc -l` and our read see the same
 * address space), every file mapping's name checked against the kernel's
 * own map_files link. */
static void test_live(void **state)
{
	struct procmaps m = {0};
	char path[64], link[PATH_MAX + 32], target[PATH_MAX];
	pid_t pid;
	int n, checked = 0;
	size_t i;
	ssize_t len;

	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		for (;;)
			pause();
	}
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	n = procmaps_read(pid, 0, &m);
	assert_true(n > 5);
	assert_int_equal((size_t)n, wc_l(path));
	check_reprint(path, &m);
	for (i = 0; i < m.n; i++) {
		struct procmap *p = &m.maps[i];

		assert_true(p->start < p->end);
		assert_int_equal(p->start % 4096, 0);
		if (p->name[0] != '/')
			continue;
		snprintf(link, sizeof(link), "/proc/%d/map_files/%lx-%lx", pid,
			 (unsigned long)p->start, (unsigned long)p->end);
		len = readlink(link, target, sizeof(target) - 1);
		if (len < 0)
			continue; /* needs CAP_SYS_ADMIN */
		target[len] = 0;
		assert_string_equal(p->name, target);
		checked++;
	}
	if (geteuid() == 0)
		assert_true(checked > 0);
	procmaps_free(&m);
	/* thread maps too */
	assert_true(procmaps_read(pid, pid, &m) > 5);
	procmaps_free(&m);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	assert_int_equal(procmaps_read(pid, 0, &m), -ESRCH);
	(void)state;
}

/* procmaps_read_files against the text's mappings with an inode, field
 * by field, on a stopped child that maps a file shared too; gone, -ESRCH. */
/* procmaps_read_files() of the stopped pid (query: by PROCMAP_QUERY)
 * gives the mappings of m (its text) that have an inode, field by
 * field. */
static void live_files_check(int pid, const struct procmaps *m, bool query)
{
	struct procmaps f = {0};
	size_t k = 0;
	int n = procmaps_read_files(pid, query, &f);

	assert_true(n > 2);
	assert_int_equal((size_t)n, f.n);
	for (size_t i = 0; i < m->n; i++) {
		const struct procmap *p = &m->maps[i], *q;

		if (!p->ino)
			continue;
		assert_true(k < f.n);
		q = &f.maps[k++];
		assert_int_equal(q->start, p->start);
		assert_int_equal(q->end, p->end);
		assert_int_equal(q->pgoff, p->pgoff);
		assert_int_equal(q->dev_major, p->dev_major);
		assert_int_equal(q->dev_minor, p->dev_minor);
		assert_int_equal(q->ino, p->ino);
		assert_int_equal(q->prot, p->prot);
		assert_int_equal(q->flags, p->flags);
		/* names come with the text only (no PROCMAP_QUERY) */
		if (q->name)
			assert_string_equal(q->name, p->name);
		else
			assert_true(query);
	}
	assert_int_equal(k, f.n);
	procmaps_free(&f);
}

static void test_live_files(void **state)
{
	struct procmaps m = {0}, f = {0};
	pid_t pid;
	int n;

	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		FILE *t = tmpfile();

		if (!t || fputs("x", t) < 0 || fflush(t) ||
		    mmap(NULL, 1, PROT_READ, MAP_SHARED, fileno(t), 0) ==
			MAP_FAILED)
			_exit(1);
		raise(SIGSTOP);
		_exit(0);
	}
	assert_true(waitpid(pid, &n, WUNTRACED) == pid && WIFSTOPPED(n));
	assert_true(procmaps_read(pid, 0, &m) > 5);
	/* by PROCMAP_QUERY where the kernel has it, then by the text */
	for (int query = 1; query >= 0; query--)
		live_files_check(pid, &m, query);
	procmaps_free(&m);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	assert_int_equal(procmaps_read_files(pid, true, &f), -ESRCH);
	procmaps_free(&f);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fixture),
	    cmocka_unit_test(test_order),
	    cmocka_unit_test(test_malformed),
	    cmocka_unit_test(test_read_error),
	    cmocka_unit_test(test_vmflags),
	    cmocka_unit_test(test_unshared),
	    cmocka_unit_test(test_parse_kb),
	    cmocka_unit_test(test_live),
	    cmocka_unit_test(test_live_files),
	};

	return test_run_group(tests, NULL, NULL);
}
