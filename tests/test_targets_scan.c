// SPDX-License-Identifier: GPL-2.0-or-later
/* test_targets_scan.c — the parsers behind record -a and -G, from text
 * fixtures; a scan of /proc; cgroup paths that are not cgroups. */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pwd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "record/targets_scan.h"
#include "tests/testutil.h"
#include "util/util.h"

static void test_mountinfo(void **state)
{
	static const char hybrid[] =
	    "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw\n"
	    "35 31 0:32 / /sys/fs/cgroup/memory rw - cgroup cgroup rw\n"
	    "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime shared:9 - "
	    "cgroup2 cgroup2 rw\n";
	static const char unified[] =
	    "22 1 0:20 / /mnt/cg2 rw - cgroup2 none rw\n"
	    "30 23 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw\n";
	static const char none[] =
	    "35 31 0:32 / /sys/fs/cgroup/memory rw - cgroup cgroup rw\n"
	    "36 31 0:33 / /x rw - ext4 /dev/sda1 rw";
	char out[256];

	assert_int_equal(target_scan_parse_mountinfo(hybrid, strlen(hybrid),
						     out, sizeof(out)),
			 0);
	assert_string_equal(out, "/sys/fs/cgroup/unified");
	/* /sys/fs/cgroup is preferred when several are mounted */
	assert_int_equal(target_scan_parse_mountinfo(unified, strlen(unified),
						     out, sizeof(out)),
			 0);
	assert_string_equal(out, "/sys/fs/cgroup");
	assert_int_equal(
	    target_scan_parse_mountinfo(none, strlen(none), out, sizeof(out)),
	    -ENODEV);
	assert_int_equal(target_scan_parse_mountinfo("", 0, out, sizeof(out)),
			 -ENODEV);
	(void)state;
}

static void test_procs(void **state)
{
	static const char ok[] = "1\n42\n\n2147483647\n";
	int *pids = NULL;
	size_t n = 0, cap = 0;

	assert_int_equal(
	    target_scan_parse_procs(ok, strlen(ok), &pids, &n, &cap), 0);
	assert_int_equal(n, 3);
	assert_int_equal(pids[0], 1);
	assert_int_equal(pids[1], 42);
	assert_int_equal(pids[2], 2147483647);
	/* no final newline; appended to what is there */
	assert_int_equal(target_scan_parse_procs("7", 1, &pids, &n, &cap), 0);
	assert_int_equal(n, 4);
	assert_int_equal(pids[3], 7);
	assert_int_equal(target_scan_parse_procs("12x\n", 4, &pids, &n, &cap),
			 -EINVAL);
	assert_int_equal(target_scan_parse_procs("0\n", 2, &pids, &n, &cap),
			 -EINVAL);
	assert_int_equal(
	    target_scan_parse_procs("2147483648\n", 11, &pids, &n, &cap),
	    -EINVAL);
	assert_int_equal(target_scan_parse_procs("-3\n", 3, &pids, &n, &cap),
			 -EINVAL);
	free(pids);
	(void)state;
}

static void test_stat(void **state)
{
	/* kthreadd: flags 0x208040 has PF_KTHREAD (0x200000) */
	static const char kthread[] =
	    "2 (kthreadd) S 0 0 0 0 -1 2129984 0 0 0 0 0 0 0 0 20 0 1";
	/* a comm with spaces and parentheses; flags 4194560, no PF_KTHREAD */
	static const char user[] =
	    "77 (a) b (c) R 1 77 77 0 -1 4194560 100 0 0 0 1 2 0 0 20 0";
	static const char zombie[] =
	    "78 (sh) Z 1 78 78 0 -1 4227076 1 0 0 0 0 0 0 0 20 0";
	char st;

	assert_true(target_scan_stat_kthread(kthread, strlen(kthread), &st));
	assert_int_equal(st, 'S');
	assert_false(target_scan_stat_kthread(user, strlen(user), &st));
	assert_int_equal(st, 'R');
	assert_false(target_scan_stat_kthread(zombie, strlen(zombie), &st));
	assert_int_equal(st, 'Z');
	assert_false(target_scan_stat_kthread("garbage", 7, &st));
	assert_int_equal(st, 0);
	assert_false(target_scan_stat_kthread("1 (x) S 1", 9, &st));
	assert_int_equal(st, 0);
	(void)state;
}

/* The ppid field, past a comm with spaces and parentheses, within len. */
static void test_stat_ppid(void **state)
{
	static const char user[] =
	    "77 (a) b (c) R 1234 77 77 0 -1 4194560 100 0 0 0 1 2 0 0 20";
	int ppid = -1;

	(void)state;
	assert_int_equal(target_scan_stat_ppid(user, strlen(user), &ppid), 0);
	assert_int_equal(ppid, 1234);
	/* cut inside the ppid: the digits up to len */
	assert_int_equal(target_scan_stat_ppid(user, 17, &ppid), 0);
	assert_int_equal(ppid, 12);
	assert_int_equal(target_scan_stat_ppid("1 (x) S 0\n", 10, &ppid), 0);
	assert_int_equal(ppid, 0);
	assert_int_equal(target_scan_stat_ppid("1 (x) S", 7, &ppid), -EINVAL);
	assert_int_equal(target_scan_stat_ppid("1 (x) S -1 2", 12, &ppid),
			 -EINVAL);
	assert_int_equal(target_scan_stat_ppid("1 (x) S 9x", 10, &ppid),
			 -EINVAL);
	assert_int_equal(
	    target_scan_stat_ppid("1 (x) S 99999999999", 19, &ppid), -EINVAL);
	assert_int_equal(target_scan_stat_ppid("garbage", 7, &ppid), -EINVAL);
}

/* Descendants from a literal process table: every generation, several
 * roots, roots left out, a root below another root, strangers and a
 * cycle of strangers not taken. */
static void test_descendants_of(void **state)
{
	static const struct target_ppid procs[] = {
	    {1, 0},	{100, 1},   {110, 100}, {111, 110},
	    {112, 111}, {120, 100}, {200, 1},	{210, 200},
	    {300, 1},	{310, 300}, {400, 401}, {401, 400},
	};
	int roots[] = {100, 300, 111}, *out = NULL;
	size_t n;

	(void)state;
	n = target_scan_descendants_of(procs, 12, roots, 3, &out);
	assert_int_equal(n, 4);
	assert_int_equal(out[0], 110);
	assert_int_equal(out[1], 112);
	assert_int_equal(out[2], 120);
	assert_int_equal(out[3], 310);
	free(out);
	n = target_scan_descendants_of(procs, 12, (int[]){112}, 1, &out);
	assert_int_equal(n, 0);
	assert_null(out);
	n = target_scan_descendants_of(procs, 12, (int[]){1}, 1, &out);
	assert_int_equal(n, 9); /* all but 1 and the cycle */
	free(out);
}

/* A live tree: this test forks a child that forks a grandchild; both are
 * descendants of the test, not of its parent's other children. */
static void test_descendants_live(void **state)
{
	int fds[2], self = getpid(), *out = NULL, n, kid, grand = 0;
	bool has_kid = false, has_grand = false, has_self = false;

	(void)state;
	assert_int_equal(pipe(fds), 0);
	kid = fork();
	assert_true(kid >= 0);
	if (kid == 0) {
		char c;

		close(fds[1]);
		if (fork() == 0) {
			/* the grandchild waits for the test to close the
			 * pipe */
			while (read(fds[0], &c, 1) > 0)
				;
			_exit(0);
		}
		while (read(fds[0], &c, 1) > 0)
			;
		_exit(0);
	}
	close(fds[0]);
	/* the grandchild exists once the child's task list shows it */
	for (int i = 0; i < 10000 && !grand; i++) {
		char path[64], buf[64] = "";
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/task/%d/children", kid,
			 kid);
		f = fopen(path, "r");
		if (f && fgets(buf, sizeof(buf), f))
			grand = atoi(buf);
		if (f)
			fclose(f);
		if (!grand)
			usleep(1000);
	}
	assert_true(grand > 0);
	n = target_scan_descendants(&self, 1, &out);
	assert_true(n >= 2);
	for (int i = 0; i < n; i++) {
		has_kid |= out[i] == kid;
		has_grand |= out[i] == grand;
		has_self |= out[i] == self;
	}
	free(out);
	close(fds[1]);
	waitpid(kid, NULL, 0);
	assert_true(has_kid);
	assert_true(has_grand);
	assert_false(has_self);
	n = target_scan_descendants((int[]){getppid()}, 1, &out);
	for (int i = 0; i < n; i++)
		assert_true(out[i] != self); /* memsz itself: never */
	free(out);
}

/* A scan of /proc lists this test's parent but never the test itself. */
static void test_scan_all(void **state)
{
	struct target_scan *sc = NULL;
	int *pids = NULL, n;
	bool parent = false, self = false;

	assert_int_equal(target_scan_all(&sc), 0);
	assert_false(target_scan_is_cgroup(sc));
	assert_null(target_scan_dir(sc));
	n = target_scan_list(sc, &pids, NULL);
	assert_true(n > 0);
	for (int i = 0; i < n; i++) {
		parent |= pids[i] == getppid();
		self |= pids[i] == getpid();
		if (i)
			assert_true(pids[i] > pids[i - 1]);
	}
	assert_true(parent);
	assert_false(self);
	free(pids);
	target_scan_free(sc);
	target_scan_free(NULL);
	(void)state;
}

static void test_cgroup_errors(void **state)
{
	struct target_scan *sc = (struct target_scan *)1;
	int err;

	err = target_scan_cgroup("/tmp", &sc);
	assert_null(sc);
	/* a directory that is not a cgroup, or no cgroup2 mounted at all */
	assert_true(err == -ENOTDIR || err == -ENODEV);
	err = target_scan_cgroup("memsz-no-such-cgroup-XYZ", &sc);
	assert_true(err == -ENOENT || err == -ENODEV);
	assert_null(sc);
	(void)state;
}

/* The user name from /etc/passwd when nsswitch.conf reads it first, and
 * -ENOENT wherever glibc might answer otherwise. */
static void test_user_files(void **state)
{
	static const char pw[] = "# comment\n"
				 "\n"
				 "root:x:0:0:root:/root:/bin/bash\n"
				 "  daemon:x:1:1::/:/bin/sh\n"
				 "dup:x:0:0::/:/bin/sh\n"
				 "alice:x:1000:1000:A:/home/a:/bin/sh\n";
	static const char *const ok[] = {
	    "passwd: files\n",
	    "# x\npasswd:\tfiles systemd # y\ngroup: ldap\n",
	    "passwd : files\n",
	};
	static const char *const no[] = {
	    "passwd: sss files\n",
	    "passwd: files [NOTFOUND=return] ldap\n",
	    "passwd: files[SUCCESS=continue]\n",
	    "passwd: filesystem\n",
	    "passwd: files\npasswd: files\n",
	    "group: files\n",
	    "# passwd: files\n",
	    "",
	};
	char user[64];

	for (size_t i = 0; i < ARRAY_SIZE(ok); i++) {
		assert_int_equal(target_user_from_files(ok[i], strlen(ok[i]),
							pw, strlen(pw), 1000,
							user, sizeof(user)),
				 0);
		assert_string_equal(user, "alice");
	}
	for (size_t i = 0; i < ARRAY_SIZE(no); i++)
		assert_int_equal(target_user_from_files(no[i], strlen(no[i]),
							pw, strlen(pw), 0, user,
							sizeof(user)),
				 -ENOENT);
	/* the first line of the uid; leading blanks skipped; cut to fit */
	assert_int_equal(target_user_from_files(ok[0], strlen(ok[0]), pw,
						strlen(pw), 0, user,
						sizeof(user)),
			 0);
	assert_string_equal(user, "root");
	assert_int_equal(target_user_from_files(ok[0], strlen(ok[0]), pw,
						strlen(pw), 1, user, 4),
			 0);
	assert_string_equal(user, "dae");
	/* no such uid; a line files reads otherwise before it */
	assert_int_equal(target_user_from_files(ok[0], strlen(ok[0]), pw,
						strlen(pw), 7, user,
						sizeof(user)),
			 -ENOENT);
	assert_int_equal(target_user_from_files(ok[0], strlen(ok[0]),
						"+bob:x:7:7::/:/bin/sh\n", 22,
						7, user, sizeof(user)),
			 -ENOENT);
	assert_int_equal(target_user_from_files(ok[0], strlen(ok[0]),
						"bob:x:7:7:/:/bin/sh\n", 20, 7,
						user, sizeof(user)),
			 -ENOENT);
	assert_int_equal(target_user_from_files(ok[0], strlen(ok[0]),
						"bob:x: 7:7::/:/bin/sh\n", 22,
						7, user, sizeof(user)),
			 -ENOENT);
	(void)state;
}

/* The same names as getpwuid() (glibc, ground truth) for every uid of
 * this machine's /etc/passwd, when its nsswitch.conf lets it tell. */
static void test_user_live(void **state)
{
	char *nss = NULL, *pwf = NULL, *p, *line, user[64];
	ssize_t nn = read_small_file("/etc/nsswitch.conf", 1u << 20, &nss);
	ssize_t pn = read_small_file("/etc/passwd", 1u << 24, &pwf);
	size_t checked = 0;

	for (p = pwf; pn > 0 && (line = strsep(&p, "\n"));) {
		struct passwd *pw;
		unsigned uid;

		if (sscanf(line, "%*[^:]:%*[^:]:%u:", &uid) != 1)
			continue;
		pw = getpwuid(uid);
		if (nn < 0 ||
		    target_user_from_files(nss, (size_t)nn, pwf, (size_t)pn,
					   uid, user, sizeof(user)) < 0)
			continue;
		assert_non_null(pw);
		assert_string_equal(user, pw->pw_name);
		checked++;
	}
	free(nss);
	free(pwf);
	if (!checked)
		test_skip("nsswitch.conf does not read /etc/passwd first");
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_mountinfo),
	    cmocka_unit_test(test_procs),
	    cmocka_unit_test(test_stat),
	    cmocka_unit_test(test_stat_ppid),
	    cmocka_unit_test(test_descendants_of),
	    cmocka_unit_test(test_descendants_live),
	    cmocka_unit_test(test_scan_all),
	    cmocka_unit_test(test_cgroup_errors),
	    cmocka_unit_test(test_user_files),
	    cmocka_unit_test(test_user_live),
	};

	return test_run_group(tests, NULL, NULL);
}
