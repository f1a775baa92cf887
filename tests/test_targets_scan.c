/* test_targets_scan.c — the parsers behind record -a and -G, from text
 * fixtures; a scan of /proc; cgroup paths that are not cgroups. */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "record/targets_scan.h"
#include "tests/testutil.h"

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
						     out, sizeof(out)), 0);
	assert_string_equal(out, "/sys/fs/cgroup/unified");
	/* /sys/fs/cgroup is preferred when several are mounted */
	assert_int_equal(target_scan_parse_mountinfo(unified,
						     strlen(unified), out,
						     sizeof(out)), 0);
	assert_string_equal(out, "/sys/fs/cgroup");
	assert_int_equal(target_scan_parse_mountinfo(none, strlen(none), out,
						     sizeof(out)), -ENODEV);
	assert_int_equal(target_scan_parse_mountinfo("", 0, out, sizeof(out)),
			 -ENODEV);
	(void)state;
}

static void test_procs(void **state)
{
	static const char ok[] = "1\n42\n\n2147483647\n";
	int *pids = NULL;
	size_t n = 0, cap = 0;

	assert_int_equal(target_scan_parse_procs(ok, strlen(ok), &pids, &n,
						 &cap), 0);
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
	assert_int_equal(target_scan_parse_procs("2147483648\n", 11, &pids,
						 &n, &cap), -EINVAL);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mountinfo),
		cmocka_unit_test(test_procs),
		cmocka_unit_test(test_stat),
		cmocka_unit_test(test_scan_all),
		cmocka_unit_test(test_cgroup_errors),
	};

	return test_run_group(tests, NULL, NULL);
}
