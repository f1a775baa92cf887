// SPDX-License-Identifier: GPL-2.0-or-later
/* test_openreg.c — open_regular_at(): a regular file opens (relative to a
 * directory descriptor too); a FIFO, a directory, a symlink to a FIFO and
 * a missing name are refused without blocking and without opening them
 * (a FIFO opened for reading with no writer would block the test). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "util/util.h"
#include "tests/testutil.h"

struct dir {
	char path[64];
	int fd;
};

static void dir_make(struct dir *d)
{
	int fd;

	snprintf(d->path, sizeof(d->path), "/tmp/memsz-openreg-XXXXXX");
	assert_non_null(mkdtemp(d->path));
	d->fd = open(d->path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(d->fd >= 0);
	fd = openat(d->fd, "file", O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "ELF", 3), 3);
	close(fd);
	assert_int_equal(mkfifoat(d->fd, "fifo", 0600), 0);
	assert_int_equal(mkdirat(d->fd, "sub", 0700), 0);
	assert_int_equal(symlinkat("fifo", d->fd, "tofifo"), 0);
	assert_int_equal(symlinkat("file", d->fd, "tofile"), 0);
}

static void dir_remove(struct dir *d)
{
	static const char *const names[] = {"file", "fifo", "tofifo", "tofile"};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		unlinkat(d->fd, names[i], 0);
	unlinkat(d->fd, "sub", AT_REMOVEDIR);
	close(d->fd);
	rmdir(d->path);
}

static void test_regular(void **state)
{
	struct dir d;
	struct stat st, want;
	char buf[4] = {0};
	char *abs;
	int fd;

	(void)state;
	dir_make(&d);
	assert_int_equal(fstatat(d.fd, "file", &want, 0), 0);
	fd = open_regular_at(d.fd, "file", &st);
	assert_true(fd >= 0);
	assert_int_equal(st.st_ino, want.st_ino);
	assert_int_equal(read(fd, buf, 3), 3);
	assert_string_equal(buf, "ELF");
	/* reads block as open()'s would (a FUSE server sees the flags) */
	assert_int_equal(fcntl(fd, F_GETFL) & O_NONBLOCK, 0);
	close(fd);
	/* a symlink to a regular file is followed, as open() would */
	fd = open_regular_at(d.fd, "tofile", &st);
	assert_true(fd >= 0);
	assert_int_equal(st.st_ino, want.st_ino);
	close(fd);
	abs = xasprintf("%s/file", d.path);
	fd = open_regular_at(AT_FDCWD, abs, &st);
	assert_true(fd >= 0);
	close(fd);
	free(abs);
	dir_remove(&d);
}

static void test_refused(void **state)
{
	struct dir d;
	struct stat st;

	(void)state;
	dir_make(&d);
	assert_int_equal(open_regular_at(d.fd, "fifo", &st), -EINVAL);
	assert_int_equal(open_regular_at(d.fd, "tofifo", &st), -EINVAL);
	assert_int_equal(open_regular_at(d.fd, "sub", &st), -EINVAL);
	assert_int_equal(open_regular_at(d.fd, "missing", &st), -ENOENT);
	dir_remove(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_regular),
	    cmocka_unit_test(test_refused),
	};

	return test_run_group(tests, NULL, NULL);
}
