// SPDX-License-Identifier: GPL-2.0-or-later
/* perf_ring.c — reading the perf rings (see perf.h): the records between
 * data_tail and head, side-band records merged across cpus in time order
 * behind a reordering window, samples handed out at once with their
 * space given back as they go; how full the sample and side-band rings
 * are.
 */
#include "config.h"

#include "record/perf_int.h"

#include <stdlib.h>
#include <string.h>

uint64_t perf_ring_consume(const uint8_t *data, uint64_t size, uint64_t tail,
			   uint64_t head,
			   void (*fn)(const void *raw, size_t len, void *arg),
			   void *arg)
{
	uint8_t *bounce = NULL;
	size_t bounce_len = 0;

	while (head - tail >= sizeof(struct perf_event_header)) {
		struct perf_event_header h;
		uint64_t off = tail & (size - 1);
		uint64_t first;

		/* The header itself may wrap (records are 8-byte aligned and
		 * the area a power of 2, so it never does; be safe anyway). */
		first = MIN(sizeof(h), size - off);
		memcpy(&h, data + off, first);
		if (first < sizeof(h))
			memcpy((uint8_t *)&h + first, data, sizeof(h) - first);
		/* a size the kernel never writes: the records after it
		 * cannot be found, drop the rest of the ring */
		if (h.size < sizeof(h) || h.size % 8) {
			tail = head;
			break;
		}
		if (h.size > head - tail)
			break;
		if (off + h.size <= size) {
			fn(data + off, h.size, arg);
		} else {
			if (bounce_len < h.size) {
				bounce = xrealloc(bounce, h.size);
				bounce_len = h.size;
			}
			first = size - off;
			memcpy(bounce, data + off, first);
			memcpy(bounce + first, data, h.size - first);
			fn(bounce, h.size, arg);
		}
		tail += h.size;
	}
	free(bounce);
	return tail;
}

static void collect(const void *raw, size_t len, void *arg)
{
	struct perf_capture *pc = arg;
	struct perf_rec rec;
	struct pending *p;
	int ret = perf_decode(raw, len, &rec);

	if (ret < 0)
		pc->bad++;
	if (ret <= 0)
		return;
	xgrow(&pc->pend, &pc->pend_cap, pc->npend + 1, sizeof(*pc->pend));
	p = &pc->pend[pc->npend++];
	switch (rec.type) {
	case MD_REC_MMAP2:
		p->time = rec.u.mmap2.time;
		break;
	case MD_REC_LOST:
		p->time = rec.u.lost.time;
		break;
	default:
		p->time = rec.u.task.time;
		break;
	}
	p->seq = pc->seq++;
	p->raw = xmalloc(len);
	memcpy(p->raw, raw, len);
	p->len = len;
}

static int pending_cmp(const void *a, const void *b)
{
	const struct pending *x = a, *y = b;

	if (x->time != y->time)
		return u64_cmp(x->time, y->time);
	return u64_cmp(x->seq, y->seq);
}

struct sample_ctx {
	struct perf_capture *pc;
	size_t ev;
	perf_rec_fn fn;
	void *arg;
	int ret;
	size_t n;
	struct ring *r; /* the ring being read */
	uint64_t pos;	/* its position after the records handed out */
	uint64_t given; /* its data_tail as last stored */
};

/* A record of a sample ring: handed out at once. */
static void sample_rec_one(struct sample_ctx *c, const void *raw, size_t len)
{
	struct perf_event_header h;
	struct perf_rec rec;
	int ret;

	if (c->ret < 0)
		return;
	memcpy(&h, raw, sizeof(h));
	if (c->ev == c->pc->nuser && h.type != PERF_RECORD_SAMPLE)
		return; /* the growth trigger's own LOST records */
	if (h.type == PERF_RECORD_SAMPLE) {
		memset(&rec, 0, sizeof(rec));
		rec.type = MD_REC_SAMPLE;
		ret = perf_decode_sample(&c->pc->sattr[c->ev], raw, len,
					 &rec.u.sample);
		rec.u.sample.event =
		    c->ev == c->pc->nuser ? PERF_GROWTH_EVENT : (uint32_t)c->ev;
		if (!ret)
			ret = 1;
	} else {
		ret = perf_decode(raw, len, &rec);
		rec.sideband = false;
	}
	if (ret < 0)
		c->pc->bad++;
	if (ret <= 0)
		return;
	c->n++;
	c->ret = c->fn(c->arg, &rec);
}

/* Hand out a record of a sample ring, then give the space read back to the
 * kernel once it is SAMPLE_DRAIN_CHUNK bytes, not only at the end of the
 * ring: the kernel has the room back sooner, and
 * perf_capture_ring_fill() called from fn sees the drain progress (a
 * hold can end before the ring is empty). */
static void sample_rec(const void *raw, size_t len, void *arg)
{
	struct sample_ctx *c = arg;

	sample_rec_one(c, raw, len);
	c->pos += len;
	if (c->pos - c->given >= SAMPLE_DRAIN_CHUNK) {
		__atomic_store_n(&c->r->mp->data_tail, c->pos,
				 __ATOMIC_RELEASE);
		c->given = c->pos;
	}
}

/* Drain every sample ring into fn. Returns the count or fn's code. */
static int drain_samples(struct perf_capture *pc, perf_rec_fn fn, void *arg)
{
	struct sample_ctx c = {.pc = pc, .fn = fn, .arg = arg};

	/* last event first: the growth trigger is acted on before the
	 * fault samples are written */
	for (size_t k = pc->nsattr * pc->ncpus; k-- > 0 && c.ret >= 0;) {
		size_t i = k;
		struct ring *r = &pc->srings[i];
		uint64_t head, tail;

		if (r->fd < 0)
			continue;
		c.ev = i / pc->ncpus;
		head = __atomic_load_n(&r->mp->data_head, __ATOMIC_ACQUIRE);
		tail = r->mp->data_tail;
		c.r = r;
		c.pos = c.given = tail;
		tail = perf_ring_consume(r->data, r->size, tail, head,
					 sample_rec, &c);
		__atomic_store_n(&r->mp->data_tail, tail, __ATOMIC_RELEASE);
	}
	return c.ret < 0 ? c.ret : (int)MIN(c.n, (size_t)INT32_MAX);
}

int perf_capture_drain(struct perf_capture *pc, bool flush_all, perf_rec_fn fn,
		       void *arg)
{
	uint64_t now = mono_ns(), limit;
	size_t i, done = 0;
	int ret = 0, nsamples = 0;

	if (pc->nsattr) {
		nsamples = drain_samples(pc, fn, arg);
		if (nsamples < 0)
			return nsamples;
	}

	for (i = 0; i < pc->ncpus; i++) {
		struct ring *r = &pc->rings[i];
		uint64_t head, tail;

		if (r->fd < 0)
			continue;
		head = __atomic_load_n(&r->mp->data_head, __ATOMIC_ACQUIRE);
		tail = r->mp->data_tail;
		tail = perf_ring_consume(r->data, r->size, tail, head, collect,
					 pc);
		__atomic_store_n(&r->mp->data_tail, tail, __ATOMIC_RELEASE);
	}
	if (pc->npend)
		qsort(pc->pend, pc->npend, sizeof(*pc->pend), pending_cmp);
	limit = now > PERF_REORDER_WINDOW_NS ? now - PERF_REORDER_WINDOW_NS : 0;
	for (; done < pc->npend; done++) {
		struct pending *p = &pc->pend[done];
		struct perf_rec rec;

		if (!flush_all && p->time > limit)
			break;
		if (perf_decode(p->raw, p->len, &rec) == 1) {
			rec.sideband = true;
			ret = fn(arg, &rec);
		}
		free(p->raw);
		if (ret < 0) {
			done++;
			break;
		}
	}
	if (done) {
		memmove(pc->pend, pc->pend + done,
			(pc->npend - done) * sizeof(*pc->pend));
		pc->npend -= done;
	}
	return ret < 0 ? ret : (int)done + nsamples;
}

uint64_t perf_capture_sample_ring_size(const struct perf_capture *pc)
{
	uint64_t min = 0;

	for (size_t i = 0; i < pc->nuser * pc->ncpus; i++)
		if (pc->srings[i].fd >= 0 && (!min || pc->srings[i].size < min))
			min = pc->srings[i].size;
	return min;
}

uint64_t perf_capture_sideband_limited(const struct perf_capture *pc)
{
	uint64_t min = 0;

	for (size_t i = 0; i < pc->ncpus; i++)
		if (pc->rings[i].fd >= 0 && (!min || pc->rings[i].size < min))
			min = pc->rings[i].size;
	/* refused at a size, or under DEFAULT_RING_BYTES for the limit
	 * (sideband_cap) */
	if (pc->sideband_limited ||
	    (pc->sideband_cap && min && min < DEFAULT_RING_BYTES))
		return min;
	return 0;
}

/* Unread bytes of ring r in per mille of its size (0: not mapped). */
static unsigned ring_fill(const struct ring *r)
{
	uint64_t used;

	if (r->fd < 0)
		return 0;
	used = __atomic_load_n(&r->mp->data_head, __ATOMIC_ACQUIRE) -
	       r->mp->data_tail;
	return (unsigned)MIN(used * 1000 / r->size, 1000);
}

unsigned perf_capture_ring_fill(const struct perf_capture *pc)
{
	unsigned max = 0;

	for (size_t i = 0; i < pc->nsattr * pc->ncpus; i++)
		max = MAX(max, ring_fill(&pc->srings[i]));
	/* the side-band rings too: the records of new mappings and
	 * threads that come with the samples are held back the same way */
	for (size_t i = 0; pc->nsattr && i < pc->ncpus; i++)
		max = MAX(max, ring_fill(&pc->rings[i]));
	return max;
}

uint64_t perf_capture_bad(const struct perf_capture *pc)
{
	return pc->bad;
}
