// SPDX-License-Identifier: GPL-2.0-or-later
/* perf_leash.c — leashes (see perf_capture_leash in perf.h): per thread
 * and sampling event a counter that signals the thread itself every K
 * samples, K chosen so that the leashed threads fit the room of the
 * smallest ring.
 */
#include "config.h"

#include "record/perf_int.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/ioctl.h>

/* kernel.perf_event_max_stack: the deepest callchain a sample carries. */
static uint64_t max_stack(void)
{
	static uint64_t v;
	char buf[32];
	ssize_t n;
	int fd;

	if (v)
		return v;
	v = DEFAULT_MAX_STACK;
	fd =
	    open("/proc/sys/kernel/perf_event_max_stack", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return v;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n > 0) {
		buf[n] = 0;
		if (strtoull(buf, NULL, 10) > 0)
			v = strtoull(buf, NULL, 10);
	}
	return v;
}

uint64_t perf_sample_max_bytes(const struct perf_event_attr *a)
{
	uint64_t t = a->sample_type;
	uint64_t fixed =
	    t & ~(uint64_t)(PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |
			    PERF_SAMPLE_STACK_USER | PERF_SAMPLE_RAW |
			    PERF_SAMPLE_READ | PERF_SAMPLE_BRANCH_STACK);
	/* header, a u64 per fixed-size field (TID and CPU pack two u32
	 * each), a sample_id trailer to spare */
	uint64_t n =
	    8 + 8 * (uint64_t)__builtin_popcountll(fixed) + SAMPLE_ID_SIZE;

	if (t & PERF_SAMPLE_CALLCHAIN)
		n += 8 + 8 * (max_stack() + CALLCHAIN_CONTEXTS);
	if (t & PERF_SAMPLE_REGS_USER)
		n +=
		    8 + 8 * (uint64_t)__builtin_popcountll(a->sample_regs_user);
	if (t & PERF_SAMPLE_STACK_USER)
		n += 8 + a->sample_stack_user + 8;
	return n;
}

/* Data bytes of the smallest mapped ring of sampling event ev (0: none). */
static uint64_t ev_ring_size(const struct perf_capture *pc, size_t ev)
{
	uint64_t min = 0;

	for (size_t i = 0; i < pc->ncpus; i++) {
		const struct ring *r = &pc->srings[ev * pc->ncpus + i];

		if (r->fd >= 0 && (!min || r->size < min))
			min = r->size;
	}
	return min;
}

/* Samples of event ev a leashed thread may take between two signals when
 * scale threads are leashed, for the sample rings: all of them fit in the
 * allowed room of ev's ring, and the growth trigger's samples for as many
 * page faults fit in the allowed room of its ring. */
static uint64_t ring_samples(const struct perf_capture *pc, size_t ev,
			     unsigned scale)
{
	uint64_t room = ev_ring_size(pc, ev) * pc->o.leash_room_permille / 1000;
	uint64_t k = room / (perf_sample_max_bytes(&pc->sattr[ev]) * scale);

	if (pc->nsattr > pc->nuser) {
		/* each growth sample stands for growth_period faults; a
		 * leash period of k samples of ev is k * period events */
		const struct perf_event_attr *g = &pc->sattr[pc->nuser];
		uint64_t groom = ev_ring_size(pc, pc->nuser) *
				 pc->o.leash_room_permille / 1000;
		uint64_t faults = groom * g->sample_period /
				  (perf_sample_max_bytes(g) * scale);

		k = MIN(k, faults / MAX(pc->sattr[ev].sample_period, 1));
	}
	return k;
}

/* Samples a leashed thread may take of each user event when scale
 * threads are leashed, for the side-band rings: the records that come
 * with them (SIDEBAND_PER_SAMPLE bytes each) fit in the allowed room of
 * the smallest side-band ring, which the locked-memory limit or
 * SIDEBAND_RING_MAX may leave smaller than the sample rings need (with
 * -m 65536 and 8-byte stack copies, four threads mapping a page per fault
 * lost 285,812 mapping records while memsz was stopped). */
static uint64_t sideband_samples(const struct perf_capture *pc, unsigned scale)
{
	uint64_t min = 0;

	for (size_t i = 0; i < pc->ncpus; i++)
		if (pc->rings[i].fd >= 0 && (!min || pc->rings[i].size < min))
			min = pc->rings[i].size;
	if (!min)
		return UINT64_MAX;
	return min * pc->o.leash_room_permille / 1000 /
	       (SIDEBAND_PER_SAMPLE * (uint64_t)scale * MAX(pc->nuser, 1));
}

/* Samples of event ev a leashed thread may take between two signals when
 * scale threads are leashed: what the sample rings and the side-band
 * rings allow. At least 1. */
static uint64_t leash_samples(const struct perf_capture *pc, size_t ev,
			      unsigned scale)
{
	return MIN(ring_samples(pc, ev, scale), sideband_samples(pc, scale));
}

/* The samples of event ev a leash lets a thread take when scale threads
 * are leashed: at least LEASH_MIN, which rings too small for that many
 * threads leave it at (the bound does not hold then). */
static uint64_t leash_k(const struct perf_capture *pc, size_t ev,
			unsigned scale)
{
	return MAX(leash_samples(pc, ev, MAX(scale, 1)), LEASH_MIN);
}

/* The leash period of event ev, in events. */
static uint64_t leash_period(const struct perf_capture *pc, size_t ev)
{
	uint64_t k = leash_k(pc, ev, pc->leash_scale);
	uint64_t p = MAX(pc->sattr[ev].sample_period, 1);

	/* saturated: the kernel refuses a period with bit 63 set, and -c
	 * up to INT64_MAX times k wrapped (each leash failed, EINVAL) */
	return p > INT64_MAX / k ? INT64_MAX : k * p;
}

/* Set the leashes for scale threads. A period is set again only if it
 * changes: each is disabled meanwhile (a software event given a new
 * period while it counts would first run out the old one, while one
 * enabled again starts the new one afresh), so the count of a thread
 * since its last signal starts over. */
static void leash_rescale(struct perf_capture *pc, unsigned scale)
{
	bool same = true;

	for (size_t ev = 0; ev < pc->nuser; ev++)
		same &=
		    leash_k(pc, ev, scale) == leash_k(pc, ev, pc->leash_scale);
	pc->leash_scale = scale;
	for (size_t i = 0; !same && i < pc->nleash; i++) {
		uint64_t p = leash_period(pc, pc->leash[i].ev);
		int fd = pc->leash[i].fd;

		ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		ioctl(fd, PERF_EVENT_IOC_PERIOD, &p);
		ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	}
}

static int leash_open(struct perf_capture *pc, size_t ev, int tid, bool at_exec,
		      int sig)
{
	struct perf_event_attr a = pc->sattr[ev];
	struct f_owner_ex owner = {.type = F_OWNER_TID, .pid = tid};
	int fd, fl;

	/* a counter of the same event, privilege levels and period unit */
	a.sample_type = 0;
	a.sample_regs_user = 0;
	a.sample_stack_user = 0;
	a.sample_period = leash_period(pc, ev);
	a.freq = 0;
	a.inherit = 0;
	/* A launched command counts from its exec: before, memsz waits for
	 * that exec and could not let it go from a leash stop. It has no
	 * other thread then, so no rescale enables it early. */
	a.disabled = at_exec;
	a.enable_on_exec = at_exec;
	a.watermark = 0;
	a.wakeup_events = 0;
	fd = sys_perf_event_open(&a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	fl = fcntl(fd, F_GETFL);
	if (fcntl(fd, F_SETOWN_EX, &owner) < 0 ||
	    fcntl(fd, F_SETSIG, sig) < 0 || fl < 0 ||
	    fcntl(fd, F_SETFL, fl | O_ASYNC) < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

int perf_capture_leash(struct perf_capture *pc, int tid, bool at_exec, int sig)
{
	size_t first = pc->nleash;

	if (!pc->nuser || !ev_ring_size(pc, 0))
		return 0;
	for (size_t i = 0; i < pc->nleash; i++)
		if (pc->leash[i].tid == tid)
			return 0;
	/* the periods are for the threads leashed now, not a power of 2
	 * above: 8 threads that churn are 9 at times, and with 256 KiB
	 * rings 16 would leave no room for a leash of LEASH_MIN samples */
	if (pc->nleashed + 1 > pc->leash_scale)
		leash_rescale(pc, pc->nleashed + 1);
	for (size_t ev = 0; ev < pc->nuser; ev++) {
		int fd = leash_open(pc, ev, tid, at_exec, sig);

		if (fd < 0) {
			while (pc->nleash > first)
				close(pc->leash[--pc->nleash].fd);
			return fd;
		}
		xgrow(&pc->leash, &pc->leash_cap, pc->nleash + 1,
		      sizeof(*pc->leash));
		pc->leash[pc->nleash++] =
		    (struct leash){.tid = tid, .fd = fd, .sig = sig, .ev = ev};
	}
	pc->nleashed++;
	return 0;
}

int perf_capture_leash_signal(struct perf_capture *pc, int tid, int sig)
{
	for (size_t i = 0; i < pc->nleash; i++) {
		if (pc->leash[i].tid != tid)
			continue;
		if (fcntl(pc->leash[i].fd, F_SETSIG, sig) < 0)
			return -errno;
		pc->leash[i].sig = sig;
	}
	return 0;
}

int perf_capture_leash_sig(const struct perf_capture *pc, int tid)
{
	for (size_t i = 0; i < pc->nleash; i++)
		if (pc->leash[i].tid == tid)
			return pc->leash[i].sig;
	return 0;
}

void perf_capture_leash_each(const struct perf_capture *pc,
			     void (*fn)(void *arg, int tid, int sig), void *arg)
{
	/* one call per thread: its leashes share the signal */
	for (size_t i = 0; i < pc->nleash; i++)
		if (pc->leash[i].ev == 0)
			fn(arg, pc->leash[i].tid, pc->leash[i].sig);
}

void perf_capture_leash_quiet(struct perf_capture *pc)
{
	for (size_t i = 0; pc && i < pc->nleash; i++) {
		int fl = fcntl(pc->leash[i].fd, F_GETFL);

		if (fl >= 0)
			fcntl(pc->leash[i].fd, F_SETFL, fl & ~O_ASYNC);
	}
}

void perf_capture_unleash(struct perf_capture *pc, int tid)
{
	bool found = false;

	for (size_t i = 0; i < pc->nleash;) {
		if (pc->leash[i].tid != tid) {
			i++;
			continue;
		}
		close(pc->leash[i].fd);
		pc->leash[i] = pc->leash[--pc->nleash];
		found = true;
	}
	if (!found)
		return;
	pc->nleashed--;
	/* fewer threads: longer periods once a quarter of the threads they
	 * are set for are left, for twice as many as there are (slack: a
	 * thread count going up and down does not set them each time) */
	if (pc->nleashed * 4 <= pc->leash_scale)
		leash_rescale(pc, MAX(pc->nleashed * 2, 1));
}

bool perf_capture_is_leash(const struct perf_capture *pc, int tid, int fd)
{
	for (size_t i = 0; i < pc->nleash; i++)
		if (pc->leash[i].fd == fd && pc->leash[i].tid == tid)
			return true;
	return false;
}

uint64_t perf_capture_leash_samples(const struct perf_capture *pc)
{
	return pc->nleashed ? leash_k(pc, 0, pc->leash_scale) : 0;
}

void perf_capture_leash_check(struct perf_capture *pc)
{
	uint64_t sb;

	if (!pc->nleashed)
		return;
	sb = sideband_samples(pc, pc->nleashed);
	for (size_t ev = 0; ev < pc->nuser; ev++) {
		uint64_t k = ring_samples(pc, ev, pc->nleashed);

		if (k < LEASH_MIN)
			pc->leash_short = true;
		if (sb < LEASH_MIN)
			pc->leash_short_sideband = true;
		if (sb < k)
			pc->leash_sideband = true;
	}
}

bool perf_capture_leash_short(const struct perf_capture *pc)
{
	return pc->leash_short;
}

bool perf_capture_leash_short_sideband(const struct perf_capture *pc)
{
	return pc->leash_short_sideband;
}

bool perf_capture_leash_sideband(const struct perf_capture *pc)
{
	return pc->leash_sideband;
}
