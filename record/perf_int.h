/* SPDX-License-Identifier: GPL-2.0-or-later */
/* perf_int.h — what the parts of the perf capture share (not for use
 * outside record/perf*.c): the sizes of the rings, the capture itself.
 *
 * perf.c        the capture: cpus, events opened per task and cpu, rings
 * perf_decode.c raw records (side-band and samples) into perf_rec
 * perf_ring.c   reading the rings: records merged in time order, samples
 * perf_leash.c  leashes: counters that stop sampled threads in time
 */
#ifndef MEMSZ_RECORD_PERF_INT_H
#define MEMSZ_RECORD_PERF_INT_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "record/perf.h"
#include "util/util.h"

/* Side-band ring per cpu: 512 KiB (128 pages of 4 KiB) hold the mmap,
 * comm and task records of a busy process between two drains. */
#define DEFAULT_RING_BYTES (512ull << 10)
/* With leashes the side-band ring is sized for the records that come
 * with a leash's samples (perf.c leashed_ring_pages): 384 bytes for each,
 * a new mapping (MMAP2 of a short path, 96 to 200 bytes), a new thread
 * and an exit (FORK and EXIT, 48 bytes each), up to 16 MiB per cpu. */
#define SIDEBAND_PER_SAMPLE 384
#define SIDEBAND_RING_MAX (16ull << 20)
/* and 128 MiB over all cpus, as the sample rings have 512 MiB: 16 MiB
 * per cpu up to 8 cpus, less with more (the leashes are shorter then:
 * they fit the side-band rings too). */
#define SIDEBAND_RING_TOTAL (128ull << 20)
/* Side-band ring per cpu at least once the locked-memory limit made all
 * rings smaller (perf.c sideband_pages): 64 KiB hold some 400 mappings. */
#define SIDEBAND_RING_MIN (64ull << 10)
/* A ring the kernel refuses (perf_event_mlock_kb and ulimit -l, memory)
 * is halved down to this size before giving up. */
#define RING_MIN_BYTES (32ull << 10)
/* Sample rings: 512 MiB over all cpus, 8 to 64 MiB per cpu and event. A
 * page fault with an 8 KiB stack copy takes 8.4 KiB of ring: 64 MiB hold
 * the 13000 faults of a 50 MB allocation with nothing drained. */
#define SAMPLE_RING_TOTAL (512ull << 20)
#define SAMPLE_RING_MIN (8ull << 20)
#define SAMPLE_RING_MAX (64ull << 20)
#define X86_PERF_REG_SP 7 /* PERF_REG_X86_SP of <asm/perf_regs.h> */
#define SAMPLE_ID_SIZE 16 /* u32 pid, tid; u64 time */
/* While a sample ring is drained, the space read is given back to the
 * kernel every this many bytes. */
#define SAMPLE_DRAIN_CHUNK (256u << 10)
/* The growth trigger's ring per cpu: each overflow is a 24-byte sample and
 * wakes the reader, so 8 pages hold over a thousand undrained ones. */
#define GROWTH_RING_PAGES 8
/* A callchain's PERF_CONTEXT_* markers: at most one per context switch
 * of the walk (PERF_MAX_CONTEXTS_PER_STACK of the kernel). */
#define CALLCHAIN_CONTEXTS 8
#define DEFAULT_MAX_STACK 127 /* kernel.perf_event_max_stack's default */

/* The event index of the side-band event (perf.c), beside the sampling
 * events' 0 to nsattr - 1. */
#define SIDEBAND_EV SIZE_MAX

struct ring {
	int cpu;
	int fd; /* the event whose buffer this is */
	struct perf_event_mmap_page *mp;
	size_t map_len;
	uint8_t *data;
	uint64_t size;
};

struct pending {
	uint64_t time, seq;
	void *raw;
	size_t len;
};

struct perf_capture {
	struct perf_capture_opts o;
	int *cpus;
	size_t ncpus;
	struct ring *rings; /* one per cpu, fd -1 until opened */
	int *fds;	    /* every event fd */
	size_t nfds, fds_cap;
	bool build_id; /* attr.build_id accepted */
	bool build_id_probed;
	struct pending *pend;
	size_t npend, pend_cap;
	uint64_t seq, bad;
	struct perf_event_attr *sattr; /* sampling events (the user's, then
					  the growth trigger if any) */
	size_t nsattr;
	size_t nuser;	     /* the user's sampling events */
	struct ring *srings; /* [event * ncpus + cpu index] */
	struct sfd {
		int fd;
		size_t ev;
	} * sfds; /* every sampling event fd */
	size_t nsfds, sfds_cap;
	bool user_only;	       /* kernel-mode samples refused */
	bool sideband_limited; /* a side-band ring refused at the size
				  asked */
	uint64_t sideband_cap; /* side-band ring bytes at most (0: none) */
	bool ring_limited;     /* a ring refused at the size asked */
	struct leash {
		int tid, fd, sig;
		size_t ev;
	} * leash; /* one per leashed thread and user
		      sampling event */
	size_t nleash, leash_cap;
	unsigned nleashed;	   /* threads leashed */
	unsigned leash_scale;	   /* threads (>= nleashed) the
				      periods are set for */
	bool leash_short;	   /* a sample ring too small for them */
	bool leash_short_sideband; /* a side-band ring too small */
	bool leash_sideband;	   /* a side-band ring shortened a
				      leash */
};

static inline int sys_perf_event_open(struct perf_event_attr *attr, int pid,
				      int cpu, int group_fd,
				      unsigned long flags)
{
	return syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
}

/* The kernel's page size: perf rings are mapped and sized in pages. */
static inline uint64_t page_size(void)
{
	return (uint64_t)sysconf(_SC_PAGESIZE);
}

/* The fewest samples a leash lets a thread take between two signals: with
 * one, the signal pending at each fault made the fault retry and count
 * again, so the thread hardly ran. */
#define LEASH_MIN 2

/* The most ring space one sample of attr a can take (perf_leash.c): its
 * stack copy is always written whole, its callchain as deep as the kernel
 * allows. */
uint64_t perf_sample_max_bytes(const struct perf_event_attr *a);

/* ring_bytes as a number of pages, at least one. */
static inline unsigned ring_pages_of(uint64_t ring_bytes)
{
	return (unsigned)MAX(ring_bytes / page_size(), 1);
}

#endif
