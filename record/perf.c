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

/* Side-band ring pages with leashes: the leashes let the threads fill
 * leash_room_permille of a sample ring however late memsz drains, and the
 * side-band records that come with those samples (a new mapping, thread,
 * exit every few faults) must fit the side-band ring as well: room for
 * SIDEBAND_PER_SAMPLE bytes for each of the smallest samples of the room,
 * a power of 2, DEFAULT_RING_BYTES at least. */
static unsigned leashed_ring_pages(const struct perf_capture *pc)
{
	uint64_t min = UINT64_MAX, want, bytes = DEFAULT_RING_BYTES;

	for (size_t ev = 0; ev < pc->nuser; ev++)
		min = MIN(min, perf_sample_max_bytes(&pc->sattr[ev]));
	if (!pc->nuser || !pc->o.leash_room_permille)
		return ring_pages_of(bytes);
	want = (uint64_t)pc->o.sample_ring_pages * page_size() *
	       pc->o.leash_room_permille / 1000 / min * SIDEBAND_PER_SAMPLE;
	while (bytes < want && bytes < SIDEBAND_RING_MAX)
		bytes *= 2;
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
	if (!pc->o.ring_pages)
		pc->o.ring_pages = ring_pages_of(DEFAULT_RING_BYTES);
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
	if (!o->ring_pages)
		pc->o.ring_pages = leashed_ring_pages(pc);
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
		      bool build_id)
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
	/* wake the reader when the ring is a quarter full */
	a->wakeup_watermark = (uint32_t)(pc->o.ring_pages * page_size() / 4);
}

static int open_event(struct perf_capture *pc, int tid, int cpu)
{
	struct perf_event_attr attr;
	int fd;

	if (!pc->build_id_probed || pc->build_id) {
		fill_attr(pc, &attr, true);
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
	fill_attr(pc, &attr, false);
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

static int ring_map(struct ring *r, int fd, unsigned pages)
{
	uint64_t psz = page_size();
	unsigned min_pages = ring_pages_of(RING_MIN_BYTES);
	void *p;

	for (;;) {
		size_t len = (size_t)(pages + 1) * psz;

		p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (p != MAP_FAILED) {
			r->map_len = len;
			break;
		}
		/* Over perf_event_mlock_kb or out of memory: try a smaller
		 * ring. */
		if ((errno != EPERM && errno != ENOMEM) || pages <= min_pages)
			return -errno;
		pages /= 2;
	}
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

/* Map sampling event ev's ring sr on fd. A user event's ring must hold
 * one sample whole, and with leashes two in the room they may fill
 * (LEASH_MIN): a smaller one (-m 2 with dwarf's 8 KiB stack copy) lost
 * every sample, and -m 4 left a leash of one sample, whose signal made
 * each fault retry and count again; either way a command ran thousands
 * of times slower for a recording of nothing. */
static int sample_ring_map(struct perf_capture *pc, size_t ev, struct ring *sr,
			   int fd)
{
	int ret = ring_map(sr, fd,
			   ev == pc->nuser ? GROWTH_RING_PAGES
					   : pc->o.sample_ring_pages);
	uint64_t room = pc->o.leash_room_permille
			    ? sr->size * pc->o.leash_room_permille / 1000
			    : sr->size;

	if (!ret && ev < pc->nuser &&
	    room < (pc->o.leash_room_permille ? LEASH_MIN : 1) *
		       perf_sample_max_bytes(&pc->sattr[ev]))
		ret = -MEMSZ_ERINGSMALL;
	return ret;
}

int perf_capture_add_task(struct perf_capture *pc, int tid)
{
	size_t opened = 0;
	int ret = 0;

	for (size_t i = 0; i < pc->ncpus; i++) {
		struct ring *r = &pc->rings[i];
		int fd = open_event(pc, tid, r->cpu);

		if (fd < 0) {
			/* An offline cpu is not an error. */
			if (fd == -ENODEV || (fd == -EINVAL && opened))
				continue;
			ret = fd;
			break;
		}
		xgrow(&pc->fds, &pc->fds_cap, pc->nfds + 1, sizeof(int));
		pc->fds[pc->nfds++] = fd;
		opened++;
		if (r->fd < 0)
			ret = ring_map(r, fd, pc->o.ring_pages);
		else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, r->fd) < 0)
			ret = -errno;
		if (ret < 0)
			break;
		for (size_t ev = 0; ev < pc->nsattr && !ret; ev++) {
			struct ring *sr = &pc->srings[ev * pc->ncpus + i];
			uint64_t bytes =
			    sr->fd >= 0 ? sr->size
					: (uint64_t)pc->o.sample_ring_pages *
					      page_size();

			fd = open_sample(pc, ev, tid, r->cpu, bytes);
			if (fd < 0) {
				ret = fd;
				break;
			}
			xgrow(&pc->fds, &pc->fds_cap, pc->nfds + 1,
			      sizeof(int));
			pc->fds[pc->nfds++] = fd;
			xgrow(&pc->sfds, &pc->sfds_cap, pc->nsfds + 1,
			      sizeof(*pc->sfds));
			pc->sfds[pc->nsfds].fd = fd;
			pc->sfds[pc->nsfds++].ev = ev;
			if (sr->fd < 0)
				ret = sample_ring_map(pc, ev, sr, fd);
			else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, sr->fd) <
				 0)
				ret = -errno;
		}
		if (ret < 0)
			break;
	}
	if (!ret && !opened)
		ret = -ENODEV;
	return ret;
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
