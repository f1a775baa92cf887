// SPDX-License-Identifier: GPL-2.0-or-later
/* machine.c — the whole machine's memory (see machine.h). */
#include "config.h"

#include "record/machine.h"
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/kernel-page-flags.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Kernel-internal kpageflags bits (include/linux/kernel-page-flags.h of
 * the kernel source, not exported to user space; stable since 2.6.32). */
#ifndef KPF_RESERVED
#define KPF_RESERVED 32
#endif
#ifndef KPF_PGTABLE
#define KPF_PGTABLE 26
#endif
#ifndef KPF_OFFLINE
#define KPF_OFFLINE 23
#endif
/* kpageflags words read at a time: 1 MiB. */
#define WALK_BLOCK (1u << 17)

static void add(struct machine *m, const char *key, uint64_t v)
{
	for (size_t i = 0; i < m->n; i++)
		if (!strcmp(m->stats[i].key, key)) {
			m->stats[i].value += v;
			return;
		}
	xgrow(&m->stats, &m->cap, m->n + 1, sizeof(*m->stats));
	m->stats[m->n++] = (struct md_cgroup_stat){xstrdup(key), v};
}

uint64_t machine_get(const struct machine *m, const char *key, bool *found)
{
	for (size_t i = 0; i < m->n; i++)
		if (!strcmp(m->stats[i].key, key)) {
			if (found)
				*found = true;
			return m->stats[i].value;
		}
	if (found)
		*found = false;
	return 0;
}

int machine_meminfo_parse(const char *buf, size_t len, struct machine *m)
{
	const char *p = buf, *end = buf + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		char line[128], key[64], unit[8] = "";
		unsigned long long v;
		int k;

		if (le > p) {
			if ((size_t)(le - p) >= sizeof(line))
				return -EINVAL;
			memcpy(line, p, (size_t)(le - p));
			line[le - p] = 0;
			k = sscanf(line, "%63[^:]: %llu %7s", key, &v, unit);
			if (k < 2 || (k == 3 && strcmp(unit, "kB")))
				return -EINVAL;
			add(m, key, k == 3 ? (uint64_t)v << 10 : (uint64_t)v);
		}
		p = le + 1;
	}
	return 0;
}

/* The walk's kinds, in the order a frame is tried (first match wins). */
static const struct {
	const char *key;
	int bit; /* KPF_* the frame has */
} kinds[] = {
    {"walk_hole", KPF_NOPAGE},	     {"walk_offline", KPF_OFFLINE},
    {"walk_reserved", KPF_RESERVED}, {"walk_free", KPF_BUDDY},
    {"walk_hugetlb", KPF_HUGE},	     {"walk_slab", KPF_SLAB},
    {"walk_pgtable", KPF_PGTABLE},   {"walk_anon", KPF_ANON},
    {"walk_shmem", KPF_SWAPBACKED},  {"walk_file", KPF_LRU},
    {"walk_file", KPF_MMAP},
};

void machine_walk_count(const uint64_t *flags, size_t n, uint64_t page_size,
			struct machine *m)
{
	uint64_t cnt[ARRAY_SIZE(kinds) + 1] = {0};

	uint64_t unflagged = 0;

	for (size_t i = 0; i < n; i++) {
		size_t k = 0;

		if (!flags[i]) {
			unflagged++;
			continue;
		}
		while (k < ARRAY_SIZE(kinds) &&
		       !(flags[i] & (1ull << kinds[k].bit)))
			k++;
		cnt[k]++;
	}
	for (size_t k = 0; k < ARRAY_SIZE(kinds); k++)
		add(m, kinds[k].key, cnt[k] * page_size);
	add(m, "walk_other", cnt[ARRAY_SIZE(kinds)] * page_size);
	add(m, "walk_unflagged", unflagged * page_size);
}

int machine_iomem_parse(const char *buf, size_t len, uint64_t page_size,
			struct pfn_range **out, size_t *n)
{
	const char *p = buf, *end = buf + len;
	size_t cap = 0;

	*out = NULL;
	*n = 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		unsigned long long a, b;
		char line[256];
		int used = 0;

		/* only top-level ranges (no indent): "START-END : NAME" */
		if (le > p && *p != ' ' && (size_t)(le - p) < sizeof(line)) {
			memcpy(line, p, (size_t)(le - p));
			line[le - p] = 0;
			if (sscanf(line, "%llx-%llx : %n", &a, &b, &used) ==
				2 &&
			    used && !strcmp(line + used, "System RAM") &&
			    b > a) {
				xgrow(out, &cap, *n + 1, sizeof(**out));
				(*out)[(*n)++] = (struct pfn_range){
				    a / page_size, (b + 1) / page_size};
			}
		}
		p = le + 1;
	}
	return 0;
}

int machine_slabinfo_parse(const char *buf, size_t len, uint64_t page_size,
			   struct machine *m)
{
	const char *p = buf, *end = buf + len;
	char key[96] = MD_MACHINE_SLAB_PREFIX;
	size_t pre = strlen(MD_MACHINE_SLAB_PREFIX);

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		unsigned long long pps, nslabs;
		const char *d;
		char line[512], name[64];

		/* the version line and the "# name ..." header say nothing */
		if (le > p && *p != '#' && strncmp(p, "slabinfo -", 10)) {
			if ((size_t)(le - p) >= sizeof(line))
				return -EINVAL;
			memcpy(line, p, (size_t)(le - p));
			line[le - p] = 0;
			d = strstr(line, ": slabdata ");
			if (sscanf(line, "%63s %*u %*u %*u %*u %llu", name,
				   &pps) != 2 ||
			    !d ||
			    sscanf(d, ": slabdata %*u %llu", &nslabs) != 1)
				return -EINVAL;
			if (nslabs) {
				snprintf(key + pre, sizeof(key) - pre, "%s",
					 name);
				add(m, key, nslabs * pps * page_size);
			}
		}
		p = le + 1;
	}
	return 0;
}

void machine_walk_split(struct machine *m)
{
	uint64_t unflagged = machine_get(m, "walk_unflagged", NULL);
	uint64_t listed = machine_get(m, "walk_free", NULL);
	uint64_t free = machine_get(m, "MemFree", NULL), unlisted;

	unlisted = free > listed ? MIN(free - listed, unflagged) : 0;
	add(m, "walk_free_unlisted", unlisted);
	for (size_t i = 0; i < m->n; i++)
		if (!strcmp(m->stats[i].key, "walk_unflagged"))
			m->stats[i].value -= unlisted;
}

/* The System RAM ranges of /proc/iomem (PFNs) into *out (caller frees),
 * or none (*n 0: every frame counts as RAM) when it cannot be read or
 * shows no addresses (not root). */
static void read_ram(uint64_t page_size, struct pfn_range **out, size_t *n)
{
	char *buf;
	ssize_t len = read_small_file("/proc/iomem", 1u << 20, &buf);

	*out = NULL;
	*n = 0;
	if (len < 0)
		return;
	machine_iomem_parse(buf, (size_t)len, page_size, out, n);
	free(buf);
}

/* Count the n kpageflags words of the frames from pfn on into m: those
 * outside every range of ram[0..nram) as walk_hole (not memory: a PCI
 * hole the kernel keeps frames for), the others by their flags; nram 0:
 * all by their flags. */
static void walk_block(const uint64_t *flags, uint64_t pfn, size_t n,
		       const struct pfn_range *ram, size_t nram,
		       uint64_t page_size, struct machine *m)
{
	size_t i = 0;

	if (!nram) {
		machine_walk_count(flags, n, page_size, m);
		return;
	}
	while (i < n) {
		uint64_t f = pfn + i, stop = pfn + n;
		bool in = false;

		for (size_t r = 0; r < nram; r++) {
			if (f >= ram[r].lo && f < ram[r].hi) {
				in = true;
				stop = MIN(stop, ram[r].hi);
			} else if (ram[r].lo > f) {
				stop = MIN(stop, ram[r].lo);
			}
		}
		if (in)
			machine_walk_count(flags + i, stop - f, page_size, m);
		else
			add(m, "walk_hole", (stop - f) * page_size);
		i += stop - f;
	}
}

/* Read /proc/meminfo whole and parse it into m. */
static int read_meminfo(struct machine *m)
{
	char *buf;
	ssize_t len = read_small_file("/proc/meminfo", 1u << 20, &buf);
	int ret;

	if (len < 0)
		return (int)len;
	ret = machine_meminfo_parse(buf, (size_t)len, m);
	free(buf);
	return ret;
}

/* Room the walk's keys need in a MACHINE record. */
#define WALK_KEYS 16

/* The caches of /proc/slabinfo into m, when it can be read (root), it
 * parses and they fit a MACHINE record beside the walk's keys. */
static void read_slabinfo(uint64_t page_size, struct machine *m)
{
	struct machine c = {0};
	char *buf;
	ssize_t len = read_small_file("/proc/slabinfo", 8u << 20, &buf);

	if (len < 0)
		return;
	if (!machine_slabinfo_parse(buf, (size_t)len, page_size, &c) &&
	    m->n + c.n + WALK_KEYS <= MD_CGROUP_MAX_STATS)
		for (size_t i = 0; i < c.n; i++)
			add(m, c.stats[i].key, c.stats[i].value);
	machine_release(&c);
	free(buf);
}

int machine_read(struct machine *m, bool walk)
{
	uint64_t ps = (uint64_t)sysconf(_SC_PAGESIZE), *blk;
	struct pfn_range *ram;
	size_t nram;
	off_t off = 0;
	ssize_t r;
	int fd, ret;

	machine_release(m);
	ret = read_meminfo(m);
	if (ret < 0)
		return ret;
	read_slabinfo(ps, m);
	if (!walk)
		return 0;
	fd = open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	read_ram(ps, &ram, &nram);
	blk = xmalloc(WALK_BLOCK * sizeof(*blk));
	/* every kind present, in the same order, even when none is found */
	machine_walk_count(blk, 0, ps, m);
	while ((r = pread(fd, blk, WALK_BLOCK * sizeof(*blk), off)) > 0) {
		walk_block(blk, (uint64_t)off / sizeof(*blk),
			   (size_t)r / sizeof(*blk), ram, nram, ps, m);
		off += r;
	}
	machine_walk_split(m);
	free(blk);
	free(ram);
	close(fd);
	return 0;
}

void machine_release(struct machine *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n; i++)
		free((char *)m->stats[i].key);
	free(m->stats);
	memset(m, 0, sizeof(*m));
}
