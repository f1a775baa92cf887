// SPDX-License-Identifier: GPL-2.0-or-later
/* snapshot_fixture.c — see snapshot_fixture.h */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "util/util.h"
#include "tests/snapshot_fixture.h"

#ifndef WORKLOAD_DIR
#define WORKLOAD_DIR "tests/workloads"
#endif

char tmpdir[sizeof(SNAPSHOT_TMPDIR)] = SNAPSHOT_TMPDIR;
char *workload;
bool as_nobody;

/* Parse /proc/PID/smaps with sscanf, independently of record/procmaps.c. */
size_t read_smaps(int pid, struct smap **out)
{
	char path[64], line[1024];
	struct smap *v = NULL, *cur = NULL;
	size_t n = 0, cap = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/smaps", pid);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		struct smap m = {0};
		int pos = 0;
		long val;
		char key[64];

		line[strcspn(line, "\n")] = 0;
		if (sscanf(line, "%lx-%lx %4s %lx %x:%x %lu %n", &m.start,
			   &m.end, m.perms, &m.pgoff, &m.maj, &m.min, &m.ino,
			   &pos) >= 7 &&
		    strchr(line, '-') < strchr(line, ' ')) {
			/* the name starts after column 72 and one space */
			if (strlen(line) > 73)
				snprintf(m.name, sizeof(m.name), "%.500s",
					 line + 73);
			xgrow(&v, &cap, n + 1, sizeof(*v));
			v[n] = m;
			cur = &v[n++];
			continue;
		}
		if (!cur || sscanf(line, "%63[^:]: %ld kB", key, &val) != 2)
			continue;
		if (!strcmp(key, "Rss"))
			cur->rss = val;
		else if (!strcmp(key, "Pss"))
			cur->pss = val;
		else if (!strcmp(key, "Swap"))
			cur->swap = val;
		else if (!strcmp(key, "Shared_Clean"))
			cur->sh_clean = val;
		else if (!strcmp(key, "Shared_Dirty"))
			cur->sh_dirty = val;
		else if (!strcmp(key, "Private_Clean"))
			cur->pr_clean = val;
		else if (!strcmp(key, "Private_Dirty"))
			cur->pr_dirty = val;
		else if (!strcmp(key, "AnonHugePages") ||
			 !strcmp(key, "ShmemPmdMapped") ||
			 !strcmp(key, "FilePmdMapped"))
			cur->pmd += val;
	}
	fclose(f);
	*out = v;
	return n;
}

int snapshot_setup(void **state)
{
	char cmd[8192];

	(void)state;
	if (as_nobody)
		return 0;
	if (!mkdtemp(tmpdir) || chmod(tmpdir, 0755))
		return -1;
	workload = xasprintf("%s/snap_workload", tmpdir);
	snprintf(cmd, sizeof(cmd), "gcc -O1 -o %s %s/snap_workload.c", workload,
		 WORKLOAD_DIR);
	return system(cmd) ? -1 : 0;
}

int snapshot_teardown(void **state)
{
	char cmd[128];

	(void)state;
	if (as_nobody)
		return 0;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	return system(cmd);
}
