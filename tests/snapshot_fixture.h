/* SPDX-License-Identifier: GPL-2.0-or-later */
/* snapshot_fixture.h — what the residency snapshot tests share
 * (test_snapshot.c, test_snapshot_images.c): their temporary directory
 * with the workload built in it (tests/workloads/snap_workload.c), and
 * /proc/PID/smaps read independently of record/procmaps.c.
 *
 * Include after <cmocka.h>; a failure inside a helper fails the running
 * test through cmocka's assertions.
 */
#ifndef MEMSZ_SNAPSHOT_FIXTURE_H
#define MEMSZ_SNAPSHOT_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The tests' directory and the workload built in it: snapshot_setup()
 * makes them, snapshot_teardown() removes them (cmocka group set-up and
 * tear-down); with as_nobody (a re-run as nobody, given both by its
 * parent) they do neither. */
#define SNAPSHOT_TMPDIR "/tmp/memsz-test-snapshot-XXXXXX"
extern char tmpdir[sizeof(SNAPSHOT_TMPDIR)];
extern char *workload;
extern bool as_nobody;
int snapshot_setup(void **state);
int snapshot_teardown(void **state);

/* One mapping of /proc/PID/smaps: its header and sizes in kB. */
struct smap {
	uint64_t start, end, pgoff, ino;
	unsigned maj, min;
	char perms[5];
	char name[512];
	long rss, pss, swap, sh_clean, sh_dirty, pr_clean, pr_dirty;
	long pmd; /* AnonHugePages + ShmemPmdMapped + FilePmdMapped */
};

/* The mappings of pid's smaps into *out (the caller frees it); returns
 * their number. */
size_t read_smaps(int pid, struct smap **out);

#endif
