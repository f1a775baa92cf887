// SPDX-License-Identifier: GPL-2.0-or-later
/* perf.c — perf_event_open side-band capture (see perf.h): the cpus, the
 * events opened per task and cpu, their rings mapped; decoding, reading
 * and leashes are beside it (perf_int.h).
 */
#include "config.h"

#include "record/perf_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>

/* "0-3,5,7-8" → list of cpus. */
static int online_cpus(int **out, size_t *n)
{
	char buf[4096], *p, *end;
	size_t cap = 0;
	ssize_t len;
	int fd;

	*out = NULL;
	*n = 0;
	fd = open("/sys/devices/system/cpu/online", O_RDONLY | O_CLOEXEC);
	len = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	if (fd >= 0)
		close(fd);
	if (len <= 0) {
		long c = sysconf(_SC_NPROCESSORS_ONLN);

		if (c < 1)
			c = 1;
		snprintf(buf, sizeof(buf), "0-%ld", c - 1);
		len = strlen(buf);
	}
	buf[len] = 0;
	for (p = buf; *p && *p != '\n';) {
		long lo = strtol(p, &end, 10), hi = lo;

		if (end == p)
			return -MEMSZ_EBADDATA;
		p = end;
		if (*p == '-') {
			hi = strtol(p + 1, &end, 10);
			p = end;
		}
		for (long c = lo; c <= hi; c++) {
			xgrow(out, &cap, *n + 1, sizeof(**out));
			(*out)[(*n)++] = c;
		}
		if (*p == ',')
			p++;
	}
	return *n ? 0 : -MEMSZ_EBADDATA;
}

static void growth_attr(struct perf_event_attr *a, uint64_t period);

/* Side-band ring pages for cpu index i once its sample rings are mapped.
 * With leashes, the leashes let the threads fill leash_room_permille of a
 * sample ring however late memsz drains, and the side-band records that
 * come with those samples (a new mapping, thread, exit every few faults)
 * must fit the side-band ring as well: room for SIDEBAND_PER_SAMPLE bytes
 * for each of the smallest samples of the room of the sample ring mapped
 * (not the one asked for: a ring the locked-memory limit halved), a power
 * of 2, DEFAULT_RING_BYTES at least, SIDEBAND_RING_MAX at most and
 * SIDEBAND_RING_TOTAL over all cpus (but DEFAULT_RING_BYTES). Once the
 * locked-memory limit made all rings smaller (perf_capture_add_task), no
 * more than sideband_cap and SIDEBAND_RING_MIN at least: with 32 KiB stack
 * copies a 512 KiB sample ring wants 5 KiB of side-band ring, and a 512
 * KiB one left the last cpu no room for its sample ring. */
static unsigned sideband_pages(const struct perf_capture *pc, size_t i)
{
	uint64_t ring = 0, min = UINT64_MAX, want, max = SIDEBAND_RING_MAX;
	uint64_t bytes =
	    pc->sideband_cap ? SIDEBAND_RING_MIN : DEFAULT_RING_BYTES;

	while (max > bytes && max * pc->ncpus > SIDEBAND_RING_TOTAL)
		max /= 2;
	if (pc->o.ring_pages)
		return pc->o.ring_pages;
	for (size_t ev = 0; ev < pc->nuser; ev++) {
		const struct ring *sr = &pc->srings[ev * pc->ncpus + i];

		if (sr->fd >= 0)
			ring = ring ? MIN(ring, sr->size) : sr->size;
		min = MIN(min, perf_sample_max_bytes(&pc->sattr[ev]));
	}
	if (ring && pc->o.leash_room_permille) {
		want = ring * pc->o.leash_room_permille / 1000 / min *
		       SIDEBAND_PER_SAMPLE;
		while (bytes < want && bytes < max)
			bytes *= 2;
	}
	if (pc->sideband_cap)
		bytes = MIN(bytes, pc->sideband_cap);
	return ring_pages_of(bytes);
}

static unsigned sample_ring_pages(size_t ncpus)
{
	uint64_t bytes = SAMPLE_RING_MIN;

	while (bytes * 2 <= SAMPLE_RING_MAX &&
	       bytes * 2 * ncpus <= SAMPLE_RING_TOTAL)
		bytes *= 2;
	return ring_pages_of(bytes);
}

int perf_capture_new(const struct perf_capture_opts *o,
		     struct perf_capture **out)
{
	struct perf_capture *pc = xcalloc(1, sizeof(*pc));
	int ret;

	pc->o = *o;
	ret = online_cpus(&pc->cpus, &pc->ncpus);
	if (ret < 0) {
		perf_capture_free(pc);
		return ret;
	}
	pc->rings = xcalloc(pc->ncpus, sizeof(*pc->rings));
	for (size_t i = 0; i < pc->ncpus; i++) {
		pc->rings[i].cpu = pc->cpus[i];
		pc->rings[i].fd = -1;
	}
	pc->nuser = o->nsamples;
	pc->nsattr = o->nsamples + (o->growth_period ? 1 : 0);
	if (pc->nsattr) {
		if (!pc->o.sample_ring_pages)
			pc->o.sample_ring_pages = sample_ring_pages(pc->ncpus);
		pc->sattr = xcalloc(pc->nsattr, sizeof(*pc->sattr));
		if (o->nsamples)
			memcpy(pc->sattr, o->samples,
			       o->nsamples * sizeof(*pc->sattr));
		if (o->growth_period)
			growth_attr(&pc->sattr[pc->nuser], o->growth_period);
		pc->srings =
		    xcalloc(pc->nsattr * pc->ncpus, sizeof(*pc->srings));
		for (size_t i = 0; i < pc->nsattr * pc->ncpus; i++) {
			pc->srings[i].cpu = pc->cpus[i % pc->ncpus];
			pc->srings[i].fd = -1;
		}
	}
	pc->o.samples = NULL;
	*out = pc;
	return 0;
}

/* The growth trigger: user-mode page faults of the task, counted, a
 * sample (TID|TIME) each period faults. */
static void growth_attr(struct perf_event_attr *a, uint64_t period)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_PAGE_FAULTS;
	a->sample_period = period;
	a->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
}

static void fill_attr(const struct perf_capture *pc, struct perf_event_attr *a,
		      bool build_id, uint64_t ring_bytes)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_DUMMY;
	a->sample_period = 1;
	a->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	a->disabled = 1;
	a->inherit = pc->o.inherit;
	a->enable_on_exec = pc->o.enable_on_exec;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
	a->mmap = 1;
	a->mmap2 = 1;
	a->mmap_data = 1;
	a->comm = 1;
	a->comm_exec = 1;
	a->task = 1;
	a->sample_id_all = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->build_id = build_id;
	a->watermark = 1;
	/* wake the reader when the ring is a quarter full; with leashes at
	 * 1/16, as the sample rings: a side-band ring that woke memsz at
	 * 1/4 was past the hold threshold (1/8), so a wake-up from it alone
	 * always held the threads */
	a->wakeup_watermark = (uint32_t)MAX(
	    ring_bytes / (pc->nsattr && pc->o.leash_room_permille ? 16 : 4),
	    page_size());
}

/* Open the side-band event of tid on cpu, its wake-up set for a ring of
 * ring_bytes. */
static int open_event(struct perf_capture *pc, int tid, int cpu,
		      uint64_t ring_bytes)
{
	struct perf_event_attr attr;
	int fd;

	if (!pc->build_id_probed || pc->build_id) {
		fill_attr(pc, &attr, true, ring_bytes);
		fd = sys_perf_event_open(&attr, tid, cpu, -1,
					 PERF_FLAG_FD_CLOEXEC);
		if (fd >= 0 || errno != EINVAL || pc->build_id_probed) {
			if (fd >= 0) {
				pc->build_id = true;
				pc->build_id_probed = true;
			}
			return fd < 0 ? -errno : fd;
		}
		pc->build_id_probed = true;
		pc->build_id = false;
	}
	fill_attr(pc, &attr, false, ring_bytes);
	fd = sys_perf_event_open(&attr, tid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* Open sampling event ev on tid/cpu. When the kernel refuses kernel-mode
 * samples (perf_event_paranoid), every sampling event becomes user-only. */
static int open_sample(struct perf_capture *pc, size_t ev, int tid, int cpu,
		       uint64_t ring_bytes)
{
	struct perf_event_attr a;
	int fd;

	for (;;) {
		a = pc->sattr[ev];
		a.disabled = 1;
		a.inherit = pc->o.inherit;
		a.enable_on_exec = pc->o.enable_on_exec;
		a.sample_id_all = 1; /* LOST records carry TID|TIME too */
		a.use_clockid = 1;
		a.clockid = CLOCK_MONOTONIC;
		a.watermark = 1;
		/* wake the reader early: a ring drained at 1/16 full
		 * absorbs a burst 15 times as long as one drain takes */
		a.wakeup_watermark =
		    (uint32_t)MAX(ring_bytes / 16, page_size());
		if (ev == pc->nuser) {
			/* the growth trigger wakes the reader at once */
			a.watermark = 0;
			a.wakeup_events = 1;
		}
		fd =
		    sys_perf_event_open(&a, tid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd >= 0)
			return fd;
		if ((errno != EACCES && errno != EPERM) ||
		    pc->sattr[ev].exclude_kernel)
			return -errno;
		for (size_t i = 0; i < pc->nsattr; i++)
			pc->sattr[i].exclude_kernel = 1;
		pc->user_only = true;
	}
}

/* Map ring r of event fd at pages. Returns 0 or -errno (EPERM: over the
 * locked-memory limit, ENOMEM). */
static int ring_map(struct ring *r, int fd, unsigned pages)
{
	uint64_t psz = page_size();
	size_t len = (size_t)(pages + 1) * psz;
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	if (p == MAP_FAILED)
		return -errno;
	r->map_len = len;
	r->mp = p;
	r->fd = fd;
	if (r->mp->data_size) {
		r->data = (uint8_t *)p + r->mp->data_offset;
		r->size = r->mp->data_size;
	} else {
		r->data = (uint8_t *)p + psz;
		r->size = (uint64_t)pages * psz;
	}
	return 0;
}

/* Keep fd (of sampling event ev, or SIDEBAND_EV) to be enabled and
 * closed with the capture. */
static void keep_fd(struct perf_capture *pc, int fd, size_t ev)
{
	xgrow(&pc->fds, &pc->fds_cap, pc->nfds + 1, sizeof(int));
	pc->fds[pc->nfds++] = fd;
	if (ev == SIDEBAND_EV)
		return;
	xgrow(&pc->sfds, &pc->sfds_cap, pc->nsfds + 1, sizeof(*pc->sfds));
	pc->sfds[pc->nsfds].fd = fd;
	pc->sfds[pc->nsfds++].ev = ev;
}

/* Close fd and forget it (keep_fd). */
static void drop_fd(struct perf_capture *pc, int fd)
{
	for (size_t i = 0; i < pc->nfds; i++)
		if (pc->fds[i] == fd)
			pc->fds[i--] = pc->fds[--pc->nfds];
	for (size_t i = 0; i < pc->nsfds; i++)
		if (pc->sfds[i].fd == fd)
			pc->sfds[i--] = pc->sfds[--pc->nsfds];
	close(fd);
}

/* Open tid's side-band event (ev SIDEBAND_EV) or sampling event ev on cpu
 * index i, its wake-up set for a ring of ring_bytes. */
static int open_ev(struct perf_capture *pc, size_t ev, int tid, size_t i,
		   uint64_t ring_bytes)
{
	if (ev == SIDEBAND_EV)
		return open_event(pc, tid, pc->cpus[i], ring_bytes);
	return open_sample(pc, ev, tid, pc->cpus[i], ring_bytes);
}

/* Open event ev (open_ev) and write it into ring r, mapped already. */
static int open_into(struct perf_capture *pc, size_t ev, int tid, size_t i,
		     struct ring *r)
{
	int fd = open_ev(pc, ev, tid, i, r->size);

	if (fd < 0)
		return fd;
	keep_fd(pc, fd, ev);
	return ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, r->fd) < 0 ? -errno : 0;
}

static bool sample_ring_small(const struct perf_capture *pc, size_t ev,
			      uint64_t size);

/* Open event ev (open_ev) and map its ring r at pages. A ring over the
 * locked-memory limit (EPERM: perf_event_mlock_kb per cpu for the user,
 * then ulimit -l, unless CAP_IPC_LOCK) or out of memory (ENOMEM) is tried
 * smaller: drop pages if that is smaller, else half, down to
 * RING_MIN_BYTES, and for a user event's sample ring no smaller than
 * sample_ring_small accepts; the event is opened again for each, so that
 * its wake-up is set for the ring it gets. Returns 0 or -errno:
 * -MEMSZ_EMLOCK when the limit refused the smallest ring too (not
 * -MEMSZ_ERINGSMALL for a ring the limit shrank, which blamed -m). */
static int open_map(struct perf_capture *pc, size_t ev, int tid, size_t i,
		    struct ring *r, unsigned pages, unsigned drop)
{
	unsigned min_pages = ring_pages_of(RING_MIN_BYTES);

	for (;;) {
		int fd = open_ev(pc, ev, tid, i, (uint64_t)pages * page_size());
		int ret;

		if (fd < 0)
			return fd;
		ret = ring_map(r, fd, pages);
		if (!ret) {
			keep_fd(pc, fd, ev);
			return 0;
		}
		close(fd);
		if (ret != -EPERM && ret != -ENOMEM)
			return ret;
		pc->sideband_limited |= ev == SIDEBAND_EV;
		pc->ring_limited = true;
		if (pages <= min_pages)
			return ret == -EPERM ? -MEMSZ_EMLOCK : ret;
		pages = drop && pages > drop ? drop : pages / 2;
		if (sample_ring_small(pc, ev, (uint64_t)pages * page_size()))
			return ret == -EPERM ? -MEMSZ_EMLOCK : ret;
	}
}

/* Is the room of sampling event ev's ring of size bytes under what it
 * must hold? A user event's ring must hold one sample whole, and with
 * leashes two in the room they may fill (LEASH_MIN): a smaller one (-m 2
 * with dwarf's 8 KiB stack copy) lost every sample, and -m 4 left a leash
 * of one sample, whose signal made each fault retry and count again;
 * either way a command ran thousands of times slower for a recording of
 * nothing. */
static bool sample_ring_small(const struct perf_capture *pc, size_t ev,
			      uint64_t size)
{
	unsigned permille = pc->o.leash_room_permille;
	uint64_t room = permille ? size * permille / 1000 : size;

	return ev < pc->nuser &&
	       room < (permille ? LEASH_MIN : 1) *
			  perf_sample_max_bytes(&pc->sattr[ev]);
}

/* Halve the largest sample ring of cpu index i that this call mapped
 * (its fds from first on) and that holds what it must at half, to make
 * room for the side-band ring. Returns 1, 0 when none can be, or -errno. */
static int sample_ring_halve(struct perf_capture *pc, int tid, size_t i,
			     size_t first)
{
	struct ring *sr = NULL;
	size_t ev = 0;
	uint64_t half;
	int ret;

	for (size_t e = 0; e < pc->nuser; e++) {
		struct ring *s = &pc->srings[e * pc->ncpus + i];
		bool mine = false;

		for (size_t k = first; k < pc->nfds && s->fd >= 0; k++)
			mine |= pc->fds[k] == s->fd;
		if (mine && s->size / 2 >= RING_MIN_BYTES &&
		    !sample_ring_small(pc, e, s->size / 2) &&
		    (!sr || s->size > sr->size)) {
			sr = s;
			ev = e;
		}
	}
	if (!sr)
		return 0;
	half = sr->size / 2;
	drop_fd(pc, sr->fd);
	munmap(sr->mp, sr->map_len);
	*sr = (struct ring){.cpu = sr->cpu, .fd = -1};
	ret = open_map(pc, ev, tid, i, sr, ring_pages_of(half), 0);
	return ret < 0 ? ret : 1;
}

/* Open tid's events on cpu index i, and map the rings no task mapped yet:
 * the sample rings first (the growth trigger's small one first of all),
 * then the side-band ring, sized from the sample rings mapped
 * (sideband_pages); refused at that size, it is tried at
 * DEFAULT_RING_BYTES, then halved. When the locked-memory limit leaves no
 * room for its smallest, a sample ring mapped here is halved and the
 * side-band ring tried again: an 8 MiB side-band ring mapped first ate
 * what an unprivileged user may lock (ulimit -l 8192), and the growth
 * trigger's ring was refused. */
static int add_on_cpu(struct perf_capture *pc, int tid, size_t i)
{
	size_t first = pc->nfds;
	int ret = 0, halved;

	for (size_t ev = pc->nsattr; ev-- > 0 && ret >= 0;) {
		struct ring *sr = &pc->srings[ev * pc->ncpus + i];

		if (sr->fd >= 0) {
			ret = open_into(pc, ev, tid, i, sr);
			continue;
		}
		ret = open_map(pc, ev, tid, i, sr,
			       ev == pc->nuser ? GROWTH_RING_PAGES
					       : pc->o.sample_ring_pages,
			       0);
		if (!ret && sample_ring_small(pc, ev, sr->size))
			ret = -MEMSZ_ERINGSMALL;
	}
	if (ret < 0)
		return ret;
	if (pc->rings[i].fd >= 0)
		return open_into(pc, SIDEBAND_EV, tid, i, &pc->rings[i]);
	for (;;) {
		ret = open_map(pc, SIDEBAND_EV, tid, i, &pc->rings[i],
			       sideband_pages(pc, i),
			       ring_pages_of(pc->sideband_cap
						 ? pc->sideband_cap
						 : DEFAULT_RING_BYTES));
		if (ret != -MEMSZ_EMLOCK && ret != -ENOMEM)
			return ret;
		halved = sample_ring_halve(pc, tid, i, first);
		if (halved <= 0)
			return halved < 0 ? halved : ret;
	}
}

static int add_task_cpus(struct perf_capture *pc, int tid)
{
	size_t opened = 0;
	int ret = 0;

	for (size_t i = 0; i < pc->ncpus && !ret; i++) {
		size_t before = pc->nfds;

		ret = add_on_cpu(pc, tid, i);
		/* An offline cpu is not an error. */
		if (pc->nfds == before &&
		    (ret == -ENODEV || (ret == -EINVAL && opened)))
			ret = 0;
		else if (pc->nfds > before)
			opened++;
	}
	if (!ret && !opened)
		ret = -ENODEV;
	return ret;
}

/* Close every event and unmap every ring (the first task's, to map them
 * again smaller). */
static void unmap_all(struct perf_capture *pc)
{
	for (size_t i = 0; i < pc->ncpus * (1 + pc->nsattr); i++) {
		struct ring *r =
		    i < pc->ncpus ? &pc->rings[i] : &pc->srings[i - pc->ncpus];

		if (r->mp)
			munmap(r->mp, r->map_len);
		*r = (struct ring){.cpu = r->cpu, .fd = -1};
	}
	for (size_t i = 0; i < pc->nfds; i++)
		close(pc->fds[i]);
	pc->nfds = pc->nsfds = 0;
}

/* The first task's rings are mapped cpu after cpu, and under the
 * locked-memory limit the first cpus may leave the last too little: none
 * for a ring (then memsz failed), or a sample ring under half the largest
 * (the leashes are set for the smallest, and the rest of the largest is
 * locked for nothing). Then all are mapped again with sample rings half
 * the largest the first cpus got, and side-band rings no larger (as long
 * as the sample rings hold what they must). With 2 cpus,
 * perf_event_mlock_kb 516 and ulimit -l 128, cpu 0 took a 1 MiB sample
 * ring and a 64 KiB side-band ring and left cpu 1 no room for its growth
 * trigger's ring; with ulimit -l 8192, cpu 0 took 8 MiB and cpu 1 256 KiB. */
int perf_capture_add_task(struct perf_capture *pc, int tid)
{
	bool first = !pc->nfds;
	int ret;

	for (;;) {
		uint64_t half = 0, least = 0;

		ret = add_task_cpus(pc, tid);
		for (size_t i = 0; i < pc->nuser * pc->ncpus; i++) {
			uint64_t size = pc->srings[i].size;

			if (pc->srings[i].fd < 0)
				continue;
			half = MAX(half, size);
			least = least ? MIN(least, size) : size;
		}
		if (!first || !pc->nuser ||
		    (ret != -MEMSZ_EMLOCK &&
		     (ret || !pc->ring_limited || least * 2 >= half)))
			return ret;
		half =
		    (half ? half : pc->o.sample_ring_pages * page_size()) / 2;
		if (half < RING_MIN_BYTES)
			return ret;
		for (size_t ev = 0; ev < pc->nuser; ev++)
			if (sample_ring_small(pc, ev, half))
				return ret;
		unmap_all(pc);
		pc->o.sample_ring_pages = ring_pages_of(half);
		pc->sideband_cap = half;
	}
}

int perf_capture_enable(struct perf_capture *pc)
{
	for (size_t i = 0; i < pc->nfds; i++)
		if (ioctl(pc->fds[i], PERF_EVENT_IOC_ENABLE, 0) < 0)
			return -errno;
	return 0;
}

void perf_capture_disable(struct perf_capture *pc)
{
	for (size_t i = 0; pc && i < pc->nfds; i++)
		ioctl(pc->fds[i], PERF_EVENT_IOC_DISABLE, 0);
}

size_t perf_capture_nrings(const struct perf_capture *pc)
{
	return pc->ncpus * (1 + pc->nsattr);
}

size_t perf_capture_pollfds(const struct perf_capture *pc, struct pollfd *fds,
			    size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < pc->ncpus && n < max; i++) {
		if (pc->rings[i].fd < 0)
			continue;
		fds[n].fd = pc->rings[i].fd;
		fds[n].events = POLLIN;
		fds[n].revents = 0;
		n++;
	}
	for (size_t i = 0; i < pc->nsattr * pc->ncpus && n < max; i++) {
		if (pc->srings[i].fd < 0)
			continue;
		fds[n].fd = pc->srings[i].fd;
		fds[n].events = POLLIN;
		fds[n].revents = 0;
		n++;
	}
	return n;
}

int perf_capture_sample_counts(const struct perf_capture *pc, uint64_t *counts)
{
	memset(counts, 0, pc->nuser * sizeof(*counts));
	for (size_t i = 0; i < pc->nsfds; i++) {
		uint64_t v;

		if (pc->sfds[i].ev >= pc->nuser)
			continue;
		if (read(pc->sfds[i].fd, &v, sizeof(v)) != sizeof(v))
			return -errno;
		counts[pc->sfds[i].ev] += v;
	}
	return 0;
}

bool perf_capture_samples_user_only(const struct perf_capture *pc)
{
	return pc->user_only;
}

void perf_capture_free(struct perf_capture *pc)
{
	if (!pc)
		return;
	for (size_t i = 0; i < pc->nleash; i++)
		close(pc->leash[i].fd);
	free(pc->leash);
	for (size_t i = 0; pc->rings && i < pc->ncpus; i++)
		if (pc->rings[i].mp)
			munmap(pc->rings[i].mp, pc->rings[i].map_len);
	for (size_t i = 0; pc->srings && i < pc->nsattr * pc->ncpus; i++)
		if (pc->srings[i].mp)
			munmap(pc->srings[i].mp, pc->srings[i].map_len);
	free(pc->srings);
	free(pc->sattr);
	free(pc->sfds);
	for (size_t i = 0; i < pc->nfds; i++)
		close(pc->fds[i]);
	for (size_t i = 0; i < pc->npend; i++)
		free(pc->pend[i].raw);
	free(pc->pend);
	free(pc->fds);
	free(pc->rings);
	free(pc->cpus);
	free(pc);
}
