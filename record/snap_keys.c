// SPDX-License-Identifier: GPL-2.0-or-later
/* snap_keys.c — look-up keys of page frames (see snap_kpage.h): sorted
 * by PFN, and read from a kpage file in one pread per block of nearby
 * frames, a large set in parallel parts. Moved out of snap_kpage.c, which
 * reads them for a chunk and classifies pages.
 */
#include "config.h"

#include "record/snap_kpage.h"

#include "record/snap_pagemap.h"
#include "util/util.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* One pread, by the system call itself on 64-bit ABIs: glibc's is a
 * cancellation point whose bookkeeping cost 2-4% of a fork snapshot's CPU
 * (a pread per block of frames); memsz cancels no thread. */
static ssize_t pread_once(int fd, void *buf, size_t n, uint64_t off)
{
#if defined(SYS_pread64) && defined(__LP64__)
	return syscall(SYS_pread64, fd, buf, n, (off_t)off);
#else
	return pread(fd, buf, n, (off_t)off);
#endif
}

ssize_t snap_pread_full(int fd, void *buf, size_t n, uint64_t off)
{
	size_t done = 0;
	ssize_t r;

	while (done < n) {
		r = pread_once(fd, (char *)buf + done, n - done, off + done);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return done ? (ssize_t)done : -errno;
		}
		if (r == 0)
			break;
		done += (size_t)r;
	}
	return (ssize_t)done;
}

#define RADIX_MAX_BITS 12

/* Up to this many keys are sorted by insertion: the radix sort clears
 * and sums a 16 KiB count table per pass, whatever n is (a small
 * process's chunk has a few dozen pages to look up). */
#define INSERTION_MAX 48

/* A least-significant-digit radix sort over the bits the largest key
 * has, in as few passes of at most RADIX_MAX_BITS as they need (two up
 * to 64 GiB of RAM); a few keys by insertion, stable as the radix sort
 * is. */
void kpage_keys_sort(uint64_t *a, uint64_t *tmp, size_t n, uint64_t maxkey,
		     unsigned idx_bits)
{
	uint32_t cnt[1u << RADIX_MAX_BITS];
	unsigned top = 64 - (unsigned)__builtin_clzll(maxkey | 1);
	unsigned bits = top > idx_bits ? top - idx_bits : 0;
	unsigned passes = (bits + RADIX_MAX_BITS - 1) / RADIX_MAX_BITS;
	unsigned width = passes ? (bits + passes - 1) / passes : 0;
	uint64_t *src = a, *dst = tmp, *t, mask;

	if (n <= INSERTION_MAX) {
		for (size_t i = 1; i < n; i++) {
			uint64_t k = src[i];
			size_t d = i;

			for (; d && src[d - 1] >> idx_bits > k >> idx_bits; d--)
				src[d] = src[d - 1];
			src[d] = k;
		}
		return;
	}
	mask = ((uint64_t)1 << width) - 1;
	for (unsigned p = 0; p < passes; p++) {
		unsigned sh = idx_bits + p * width;
		uint32_t sum = 0;

		memset(cnt, 0, ((size_t)mask + 1) * sizeof(*cnt));
		for (size_t i = 0; i < n; i++)
			cnt[(src[i] >> sh) & mask]++;
		for (size_t d = 0; d <= mask; d++) {
			uint32_t k = cnt[d];

			cnt[d] = sum;
			sum += k;
		}
		for (size_t i = 0; i < n; i++)
			dst[cnt[(src[i] >> sh) & mask]++] = src[i];
		t = src;
		src = dst;
		dst = t;
	}
	if (src != a)
		memcpy(a, src, n * sizeof(*src));
}

void kpage_keys_sort_rising(uint64_t *a, uint64_t *tmp, size_t n,
			    uint64_t maxkey, unsigned idx_bits)
{
	size_t i;

	for (i = 1; i < n && a[i] >= a[i - 1]; i++)
		;
	if (i < n)
		kpage_keys_sort(a, tmp, n, maxkey, idx_bits);
}

/* The end of the block of kpage_keys_read that starts at key i of the n keys
 * of look (sorted): past the last key whose PFN is at most KPAGE_GAP
 * after the one before and within nbuf entries of the first. */
static size_t keys_block_end(const uint64_t *look, size_t i, size_t n,
			     unsigned idx_bits, size_t nbuf)
{
	uint64_t first = look[i] >> idx_bits, last = first;
	size_t j;

	for (j = i + 1; j < n; j++) {
		uint64_t p = look[j] >> idx_bits;

		if (p - last > KPAGE_GAP || p - first >= nbuf)
			break;
		last = p;
	}
	return j;
}

size_t kpage_keys_blocks(const uint64_t *look, size_t n, unsigned idx_bits,
			 size_t nbuf)
{
	size_t blocks = 0;

	/* no block can reach nbuf entries (n keys at most KPAGE_GAP + 1
	 * apart span fewer): a block starts at each gap wider than
	 * KPAGE_GAP, counted without a branch (on scattered frames it would
	 * be mispredicted often) */
	if (n && nbuf / (KPAGE_GAP + 1) >= n) {
		blocks = 1;
		for (size_t i = 1; i < n; i++)
			blocks +=
			    (look[i] >> idx_bits) - (look[i - 1] >> idx_bits) >
			    KPAGE_GAP;
		return blocks;
	}
	for (size_t i = 0; i < n; blocks++)
		i = keys_block_end(look, i, n, idx_bits, nbuf);
	return blocks;
}

/* kpage_keys_read, the entry of key k into dst[k] when by_pos, else at
 * the key's index. */
static int keys_read(uint64_t *buf, size_t nbuf, const uint64_t *look, size_t n,
		     unsigned idx_bits, int fd, uint64_t *dst, bool by_pos,
		     size_t *preads)
{
	uint64_t mask = ((uint64_t)1 << idx_bits) - 1;
	size_t i = 0, j, k;

	while (i < n) {
		uint64_t first = look[i] >> idx_bits, last;
		ssize_t r;

		j = keys_block_end(look, i, n, idx_bits, nbuf);
		last = look[j - 1] >> idx_bits;
		r = snap_pread_full(fd, buf, (last - first + 1) * 8, first * 8);
		if (r < 0)
			return (int)r;
		(*preads)++;
		for (k = i; k < j; k++) {
			uint64_t o = (look[k] >> idx_bits) - first;

			dst[by_pos ? k : look[k] & mask] =
			    (o + 1) * 8 <= (uint64_t)r ? buf[o] : 0;
		}
		i = j;
	}
	return 0;
}

int kpage_keys_read(uint64_t *buf, size_t nbuf, const uint64_t *look, size_t n,
		    unsigned idx_bits, int fd, uint64_t *dst, size_t *preads)
{
	return keys_read(buf, nbuf, look, n, idx_bits, fd, dst, false, preads);
}

/* One part of sorted keys, read by keys_part_main through the buffer buf
 * of nbuf entries (kpage_parts_run: on a thread of its own but for the
 * first). */
struct keys_part {
	uint64_t *buf;
	size_t nbuf;
	const uint64_t *key;
	size_t n;
	unsigned idx_bits;
	int fd;
	uint64_t *dst;
	bool by_pos;
	size_t preads;
	int ret;
};

/* Read the part's keys into dst at their index (kpage_keys_read: each key its
 * own index, so parts read on threads of their own never write the same
 * entry), or by_pos at their position (dst is then the part's own); ret
 * 0 or -errno. */
static void *keys_part_main(void *arg)
{
	struct keys_part *p = arg;

	p->ret = keys_read(p->buf, p->nbuf, p->key, p->n, p->idx_bits, p->fd,
			   p->dst, p->by_pos, &p->preads);
	return NULL;
}

/* From this many keys on, kpage_keys_read_all reads in parallel parts. */
#define KEYS_PARALLEL_MIN (1u << 16)

unsigned kpage_keys_nparts(const struct snapper *s, size_t n)
{
	unsigned np = 1;

	while (n >= KEYS_PARALLEL_MIN && np < s->nthreads &&
	       np < SNAP_THREADS_MAX)
		np++;
	return np;
}

void kpage_parts_run(void *parts, size_t size, unsigned np, void *(*fn)(void *))
{
	pthread_t tid[SNAP_THREADS_MAX];
	bool started[SNAP_THREADS_MAX] = {false};

	/* a part no thread could be started for is read here */
	for (unsigned t = 1; t < np; t++) {
		void *p = (char *)parts + t * size;

		started[t] = !pthread_create(&tid[t], NULL, fn, p);
		if (!started[t])
			fn(p);
	}
	fn(parts);
	for (unsigned t = 1; t < np; t++)
		if (started[t])
			pthread_join(tid[t], NULL);
}

/* kpage_keys_read_all, or kpage_keys_read_sorted when by_pos. */
static int keys_read_all(struct snapper *s, const uint64_t *key, size_t n,
			 unsigned idx_bits, int fd, uint64_t *dst, bool by_pos,
			 size_t *preads)
{
	struct keys_part part[SNAP_THREADS_MAX];
	unsigned np = kpage_keys_nparts(s, n);
	int ret = 0;

	for (unsigned t = 0; t < np; t++)
		part[t] = (struct keys_part){
		    .buf = t ? xmalloc(KPAGE_BLOCK * sizeof(uint64_t))
			     : s->ctx[0]->kbuf,
		    .nbuf = t ? KPAGE_BLOCK : s->ctx[0]->nkbuf,
		    .key = key + n * t / np,
		    .n = n * (t + 1) / np - n * t / np,
		    .idx_bits = idx_bits,
		    .fd = fd,
		    .dst = by_pos ? dst + n * t / np : dst,
		    .by_pos = by_pos,
		};
	kpage_parts_run(part, sizeof(*part), np, keys_part_main);
	for (unsigned t = 0; t < np; t++) {
		if (!ret)
			ret = part[t].ret;
		if (t) {
			free(part[t].buf);
			part[0].preads += part[t].preads;
		}
	}
	if (preads)
		*preads = part[0].preads;
	return ret;
}

int kpage_keys_read_all(struct snapper *s, const uint64_t *key, size_t n,
			unsigned idx_bits, int fd, uint64_t *dst,
			size_t *preads)
{
	return keys_read_all(s, key, n, idx_bits, fd, dst, false, preads);
}

int kpage_keys_read_sorted(struct snapper *s, const uint64_t *key, size_t n,
			   unsigned idx_bits, int fd, uint64_t *dst)
{
	return keys_read_all(s, key, n, idx_bits, fd, dst, true, NULL);
}
