// SPDX-License-Identifier: GPL-2.0-or-later
/* snap_share.c — mappings smaps counts no page of as shared (see
 * snap_share.h). */
#include "config.h"

#include "record/snap_share.h"

#include "util/util.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

struct snap_share *snap_share_new(int pid, const struct procmaps *maps)
{
	struct snap_share *sh = xcalloc(1, sizeof(*sh));

	pthread_mutex_init(&sh->mu, NULL);
	sh->pid = pid;
	sh->maps = maps;
	sh->unshared = xcalloc(maps->n + 1, 1);
	sh->pmd_bytes = xcalloc(maps->n + 1, sizeof(*sh->pmd_bytes));
	sh->after = SHARE_AFTER + SHARE_PER_MAP * (uint64_t)maps->n;
	sh->env = -1;
	return sh;
}

void snap_share_free(struct snap_share *sh)
{
	if (!sh)
		return;
	pthread_mutex_destroy(&sh->mu);
	free(sh->unshared);
	free(sh->pmd_bytes);
	free(sh);
}

/* Read sh's process's smaps into sh->unshared; a mapping it cannot tell
 * (smaps unreadable, the process gone) stays 0: checked page by page. */
static void share_read(struct snap_share *sh)
{
	const struct procmaps *m = sh->maps;
	uint64_t *kb = xcalloc(m->n + 1, sizeof(*kb));
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/smaps", sh->pid);
	f = fopen(path, "re");
	if (!f)
		goto out;
	setvbuf(f, NULL, _IOFBF, 1 << 16);
	if (procmaps_parse_unshared(f, m, sh->unshared, kb) < 0)
		memset(sh->unshared, 0, m->n + 1);
	fclose(f);
	for (size_t i = 0; i < m->n; i++)
		if ((sh->unshared[i] & 1) && !m->maps[i].ino &&
		    m->maps[i].flags != MAP_SHARED && kb[i] != UINT64_MAX &&
		    kb[i] * 1024 == sh->pmd_bytes[i])
			sh->unshared[i] |= SHARE_THP_ALL;
out:
	free(kb);
}

/* MEMSZ_SMAPS_SHARE: "1" reads smaps for every snapshot that may hold a
 * PMD-mapped page, "0" never, a testing aid; else -1 (by cost). */
static int share_env(void)
{
	const char *e = getenv("MEMSZ_SMAPS_SHARE");

	return e && !strcmp(e, "1") ? 1 : e && !strcmp(e, "0") ? 0 : -1;
}

void snap_share_pmd(struct snap_share *sh, uint32_t vma, uint64_t bytes)
{
	if (sh && vma < sh->maps->n)
		sh->pmd_bytes[vma] += bytes;
}

void snap_share_plan(struct snap_share *sh, uint64_t hps, uint64_t pages,
		     uint64_t rss)
{
	int env = share_env();

	if (!sh)
		return;
	sh->after = SHARE_AFTER + SHARE_PER_MAP * (uint64_t)sh->maps->n +
		    (rss > pages ? rss - pages : 0) / SHARE_PTE_PAGES;
	if (env >= 0)
		sh->after = env ? 0 : UINT64_MAX;
	sh->hps = hps;
	sh->env = env;
	if (hps >= sh->after) {
		share_read(sh);
		sh->done = true;
	}
}

bool snap_share_unshared(struct snap_share *sh, uint32_t vma)
{
	if (!sh)
		return false;
	if (!__atomic_load_n(&sh->done, __ATOMIC_ACQUIRE)) {
		if (__atomic_add_fetch(&sh->reads, 1, __ATOMIC_RELAXED) <=
		    sh->after)
			return false;
		pthread_mutex_lock(&sh->mu);
		if (!sh->done) {
			share_read(sh);
			__atomic_store_n(&sh->done, true, __ATOMIC_RELEASE);
		}
		pthread_mutex_unlock(&sh->mu);
	}
	return vma < sh->maps->n && (sh->unshared[vma] & 1);
}

void snap_share_tell(const struct snap_share *sh, char *buf, size_t n)
{
	const char *how = sh->done ? "smaps read once for the sharing of "
				     "its huge pages"
				   : "smaps not read: the sharing of its huge "
				     "pages checked one by one";

	if (sh->env >= 0)
		snprintf(buf, n, "%s (MEMSZ_SMAPS_SHARE=%d)", how, sh->env);
	else
		snprintf(buf, n,
			 "%s (%" PRIu64 " huge pages PMD-mapped, %" PRIu64
			 " checked; smaps costs as much as %" PRIu64 " checks)",
			 how, sh->hps, sh->reads, sh->after);
}

bool snap_share_known(struct snap_share *sh, uint32_t vma, bool *softdirty)
{
	if (!sh || !__atomic_load_n(&sh->done, __ATOMIC_ACQUIRE) ||
	    vma >= sh->maps->n ||
	    (sh->unshared[vma] & (1 | SHARE_THP_ALL)) != (1 | SHARE_THP_ALL))
		return false;
	*softdirty = sh->unshared[vma] & 2;
	return true;
}
