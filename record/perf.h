/* SPDX-License-Identifier: GPL-2.0-or-later */
/* perf.h — side-band capture with perf_event_open: where images are mapped.
 *
 * One dummy software event per (target thread, cpu), with mmap2, mmap_data,
 * comm, task and sample_id_all (TID|TIME on CLOCK_MONOTONIC), build_id where
 * the kernel has it. The kernel refuses to mmap an inherited per-task event
 * with cpu == -1, so, like `perf record`, events are per task and per cpu,
 * and every event of one cpu writes into that cpu's ring
 * (PERF_EVENT_IOC_SET_OUTPUT).
 * Records of the rings are merged in time order before they are handed out.
 */
#ifndef MEMSZ_RECORD_PERF_H
#define MEMSZ_RECORD_PERF_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "data/datafile.h"

struct perf_capture;

struct perf_event_attr;

struct perf_capture_opts {
	bool inherit;	     /* follow new threads and forked children */
	bool enable_on_exec; /* created disabled, enabled at the next exec */
	/* data pages per cpu side-band ring (power of 2); 0: 512 KiB of
	 * pages, more with leashes (room for the records that come with a
	 * leash's samples, up to 16 MiB) */
	unsigned ring_pages;
	/* Sampling events (faults.h builds them; copied by perf_capture_new).
	 * Each is opened per task and per cpu into its own per-cpu ring of
	 * sample_ring_pages pages (power of 2; 0: 512 MiB shared by the
	 * cpus, 8 to 64 MiB each; halved while the kernel refuses the size
	 * or has not the memory). Their samples
	 * reach the drain callback at once, not through the time-ordering
	 * window of the side-band records. */
	const struct perf_event_attr *samples;
	size_t nsamples;
	unsigned sample_ring_pages;
	/* > 0: also count each task's user-mode page faults and wake the
	 * reader every growth_period of them (a small ring per cpu); each
	 * overflow reaches the drain callback as an MD_REC_SAMPLE with event
	 * PERF_GROWTH_EVENT (pid, tid, time only). */
	uint64_t growth_period;
	/* Leashes (perf_capture_leash): the part of a sample ring, per
	 * mille, that the threads may fill between two looks of the reader
	 * at its fill. */
	unsigned leash_room_permille;
};

#define PERF_GROWTH_EVENT UINT32_MAX

/* One decoded record. type says which member is valid: MD_REC_MMAP2 → mmap2,
 * MD_REC_COMM / MD_REC_FORK / MD_REC_EXIT → task, MD_REC_LOST → lost,
 * MD_REC_SAMPLE → sample (event = index into perf_capture_opts.samples).
 * Strings and arrays point into the raw record (borrowed, valid during the
 * callback). */
struct perf_rec {
	enum md_rec_type type;
	/* MD_REC_LOST: from the ring of the mapping history (MMAP2, COMM,
	 * FORK, EXIT records lost), not from a sample ring */
	bool sideband;
	union {
		struct md_mmap2 mmap2;
		struct md_task task;
		struct md_lost lost;
		struct md_sample sample;
	} u;
};

/* Called for each record, in time order. Returns 0 to go on or a negative
 * code, which stops the drain and is returned by perf_capture_drain(). */
typedef int (*perf_rec_fn)(void *arg, const struct perf_rec *rec);

/* Decode one raw record (len bytes, header included) read from a ring whose
 * events use sample_type TID|TIME with sample_id_all. Returns 1 and *out for
 * a record memsz keeps, 0 for a type it ignores (THROTTLE, ...), or
 * -MEMSZ_EBADDATA when the record is malformed. */
int perf_decode(const void *raw, size_t len, struct perf_rec *out);

/* Decode a PERF_RECORD_SAMPLE (len bytes, header included) of an event
 * opened with attr a (sample_type a subset of IP|TID|TIME|ADDR|CALLCHAIN|
 * REGS_USER|STACK_USER). The callchain starts after its leading
 * PERF_CONTEXT_* markers and ends at the next one (user frames only).
 * Arrays point into raw (borrowed). Returns 0 and *out (event left 0), or
 * -MEMSZ_EBADDATA. */
int perf_decode_sample(const struct perf_event_attr *a, const void *raw,
		       size_t len, struct md_sample *out);

/* Consume the records between tail and head of a ring data area (size bytes,
 * a power of 2): fn(raw, len, arg) for each complete record, a record that
 * wraps the end of the area is first copied to a bounce buffer. Returns the
 * new tail (the position after the last complete record handed out), or
 * head after a header whose size is below 8 or not a multiple of 8 (the
 * records after it cannot be found). */
uint64_t perf_ring_consume(const uint8_t *data, uint64_t size, uint64_t tail,
			   uint64_t head,
			   void (*fn)(const void *raw, size_t len, void *arg),
			   void *arg);

/* New capture with no events yet. Returns 0 and *out or a negative code. */
int perf_capture_new(const struct perf_capture_opts *o,
		     struct perf_capture **out);
/* Open the events of thread tid (one per cpu) and attach them to the cpu
 * rings. Returns 0, -ESRCH (no such thread), -EACCES/-EPERM (not allowed:
 * perf_event_paranoid or another user's process), or another -errno. */
int perf_capture_add_task(struct perf_capture *pc, int tid);
/* Leash thread tid: count its samples of each sampling event (not
 * inherited, counted from its exec when at_exec) and send it sig
 * (F_SETOWN_EX to the thread itself, si_code POLL_IN, si_fd the counter)
 * every K of them. A traced thread stops at that signal, at its next
 * return to user mode, until its tracer lets it go: if the tracer resumes
 * a thread only while every sample ring is filled to less than 1000 -
 * leash_room_permille per mille, a ring cannot overflow however late the
 * reader comes, but for the events of one system call (a read(2) into a
 * fresh buffer faults in the kernel until it returns). K is chosen so that K
 * samples of every leashed thread (as many as are leashed, not unleashed
 * yet: the periods are set again when K changes, for more threads as soon
 * as there are, for twice as many once a quarter are left) and the growth
 * trigger's samples for them fit in leash_room_permille of the smallest
 * ring, the size of a sample taken at its largest (the whole stack copy,
 * a full callchain). Call after the rings are mapped (after the first
 * perf_capture_add_task). Returns 0 (also when there is nothing to leash)
 * or -errno. */
int perf_capture_leash(struct perf_capture *pc, int tid, bool at_exec, int sig);
/* Send sig from now on to leashed thread tid. Returns 0 or -errno. */
int perf_capture_leash_signal(struct perf_capture *pc, int tid, int sig);
/* The signal leashed thread tid is sent; 0 if tid has no leash. */
int perf_capture_leash_sig(const struct perf_capture *pc, int tid);
/* fn(arg, tid, sig) for each leashed thread and the signal it is sent.
 * fn may call perf_capture_leash_signal(). */
void perf_capture_leash_each(const struct perf_capture *pc,
			     void (*fn)(void *arg, int tid, int sig),
			     void *arg);
/* Send no more leash signals; the counters stay known to
 * perf_capture_is_leash(), so that a signal sent before is still told
 * apart. */
void perf_capture_leash_quiet(struct perf_capture *pc);
/* Close the counters of thread tid (it exited); unknown tids are fine. */
void perf_capture_unleash(struct perf_capture *pc, int tid);
/* Is fd (the si_fd of a signal thread tid got) tid's leash counter? */
bool perf_capture_is_leash(const struct perf_capture *pc, int tid, int fd);
/* Look whether the rings have room for LEASH_MIN samples of every thread
 * leashed now (K is LEASH_MIN at least, and the bound does not hold when
 * they have not). Called once the stops reported so far are handled: the
 * count then leaves out the threads that ended, which attaching to a
 * process whose threads come and go leashes for a while (at a period set
 * for them all, since its rescale is not undone at once). */
void perf_capture_leash_check(struct perf_capture *pc);
/* True once perf_capture_leash_check() found the sample rings too small. */
bool perf_capture_leash_short(const struct perf_capture *pc);
/* True once perf_capture_leash_check() found the side-band rings too
 * small: the records that come with LEASH_MIN samples of every thread
 * (SIDEBAND_PER_SAMPLE bytes each) do not fit their room. */
bool perf_capture_leash_short_sideband(const struct perf_capture *pc);
/* True once perf_capture_leash_check() found the side-band rings allow
 * a shorter leash than the sample rings (they set K). */
bool perf_capture_leash_sideband(const struct perf_capture *pc);
/* The samples of the first sampling event a thread may take between two
 * leash signals now (for tests and notes; 0 when nothing is leashed). */
uint64_t perf_capture_leash_samples(const struct perf_capture *pc);
/* Enable every event (attach mode; launched commands use enable_on_exec).
 * Returns 0 or -errno. */
int perf_capture_enable(struct perf_capture *pc);
/* Disable every event (and the copies its tasks' children inherited): no
 * record is written and no count moves from now on, so that what the
 * rings hold and the counts tell agree. The leashes stay. NULL is fine. */
void perf_capture_disable(struct perf_capture *pc);
/* How many ring fds perf_capture_pollfds() can fill at most: one side-band
 * ring per cpu and one per cpu for each sampling event. */
size_t perf_capture_nrings(const struct perf_capture *pc);
/* Fill fds (at most max) with the ring fds to poll for POLLIN.
 * Returns the number filled. */
size_t perf_capture_pollfds(const struct perf_capture *pc, struct pollfd *fds,
			    size_t max);
/* Records of the per-cpu rings are handed out once they are this old, so
 * that a later drain of another ring cannot bring an earlier one. */
#define PERF_REORDER_WINDOW_NS (50ull * 1000 * 1000)

/* Read every ring and hand fn, in time order, the records older than
 * CLOCK_MONOTONIC now - PERF_REORDER_WINDOW_NS (all of them when
 * flush_all), keeping the rest
 * for the next call. The space of a sample ring is given back to the
 * kernel as its records are handed out, a chunk at a time. Returns the
 * number handed out or fn's negative code. */
int perf_capture_drain(struct perf_capture *pc, bool flush_all, perf_rec_fn fn,
		       void *arg);
/* How many times each sampling event fired so far (counts[i] for event i;
 * the caller gives nsamples slots), summed over tasks and cpus; children
 * count once they have exited. With the samples received and the LOST
 * records this tells samples the kernel dropped without a LOST record
 * (a ring still full when the target exited). Returns 0 or -errno. */
int perf_capture_sample_counts(const struct perf_capture *pc, uint64_t *counts);
/* True if the sampling events had to be reopened user-only (the kernel
 * refused kernel-mode faults: perf_event_paranoid). */
bool perf_capture_samples_user_only(const struct perf_capture *pc);
/* Data bytes of the smallest sample ring mapped (0: none yet). */
uint64_t perf_capture_sample_ring_size(const struct perf_capture *pc);
/* Data bytes of the smallest side-band ring mapped if the kernel refused
 * one at the size asked, or the locked-memory limit (perf_event_mlock_kb,
 * ulimit -l) made it smaller than DEFAULT_RING_BYTES; 0 if neither. */
uint64_t perf_capture_sideband_limited(const struct perf_capture *pc);
/* How full the fullest ring backpressure looks at is, a sample ring or
 * (with sampling events) a side-band ring: its unread bytes in per mille
 * of its size (0 without sampling events). */
unsigned perf_capture_ring_fill(const struct perf_capture *pc);
/* Malformed records seen and skipped so far. */
uint64_t perf_capture_bad(const struct perf_capture *pc);
/* Close every event and unmap the rings. NULL is fine. */
void perf_capture_free(struct perf_capture *pc);

#endif
