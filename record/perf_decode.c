// SPDX-License-Identifier: GPL-2.0-or-later
/* perf_decode.c — raw perf records into perf_rec (see perf.h): the
 * side-band records (MMAP2, COMM, FORK, EXIT, LOST) with their sample_id
 * trailer, and PERF_RECORD_SAMPLE of the sampling events. Bounds are
 * checked: a malformed record is -MEMSZ_EBADDATA, never a read past it.
 */
#include "config.h"

#include "record/perf_int.h"

#include <string.h>

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint64_t rd64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/* The sample_id trailer: u32 pid, tid; u64 time. */
static void trailer(const uint8_t *raw, size_t len, uint32_t *pid,
		    uint32_t *tid, uint64_t *time)
{
	const uint8_t *t = raw + len - SAMPLE_ID_SIZE;

	if (pid)
		*pid = rd32(t);
	if (tid)
		*tid = rd32(t + 4);
	*time = rd64(t + 8);
}

/* A NUL-terminated string in [p, p+n), or NULL. */
static const char *str_in(const uint8_t *p, size_t n)
{
	return memchr(p, 0, n) ? (const char *)p : NULL;
}

/* The bodies (after struct perf_event_header) of the side-band records
 * memsz keeps, as <linux/perf_event.h> describes them in comments (it
 * declares no struct for them). Each is followed by the sample_id trailer
 * (SAMPLE_ID_SIZE bytes); MMAP2 and COMM have a NUL-terminated string,
 * padded to 8 bytes, before it. */
struct mmap2_body {
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	union {
		struct {
			uint32_t maj, min;
			uint64_t ino, ino_generation;
		} dev;
		struct { /* PERF_RECORD_MISC_MMAP_BUILD_ID */
			uint8_t size;
			uint8_t reserved_1;
			uint16_t reserved_2;
			uint8_t id[20];
		} build_id;
	} u;
	uint32_t prot, flags;
	/* char filename[] */
};

struct comm_body {
	uint32_t pid, tid;
	/* char comm[] */
};

struct fork_exit_body {
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
};

struct lost_body {
	uint64_t id, lost;
};

/* The shortest NUL-terminated string a record can carry: one 8-byte
 * word (the kernel pads strings to 8 bytes). */
#define MIN_STR_SIZE 8

/* The fixed body (body_size bytes, copied to body) of record raw (len
 * bytes, header and sample_id trailer included) and the NUL-terminated
 * string that follows it. Returns the string (in raw), or NULL if the
 * record is too short or the string not terminated. */
static const char *body_and_str(const uint8_t *raw, size_t len, void *body,
				size_t body_size)
{
	const size_t fixed =
	    sizeof(struct perf_event_header) + body_size + SAMPLE_ID_SIZE;
	const uint8_t *b = raw + sizeof(struct perf_event_header);

	if (len < fixed + MIN_STR_SIZE)
		return NULL;
	memcpy(body, b, body_size);
	return str_in(b + body_size, len - fixed);
}

/* PERF_RECORD_MMAP2 raw (len bytes, header included; misc from its
 * header) into out->u.mmap2. Returns 1, or -MEMSZ_EBADDATA. */
static int decode_mmap2(const uint8_t *raw, size_t len, uint16_t misc,
			struct perf_rec *out)
{
	struct md_mmap2 *m = &out->u.mmap2;
	struct mmap2_body mb;

	m->filename = body_and_str(raw, len, &mb, sizeof(mb));
	if (!m->filename)
		return -MEMSZ_EBADDATA;
	out->type = MD_REC_MMAP2;
	m->pid = mb.pid;
	m->tid = mb.tid;
	m->start = mb.addr;
	m->len = mb.len;
	m->pgoff = mb.pgoff;
	if (misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
		m->build_id_len = MIN(mb.u.build_id.size, sizeof(m->build_id));
		memcpy(m->build_id, mb.u.build_id.id, m->build_id_len);
	} else {
		m->dev_major = mb.u.dev.maj;
		m->dev_minor = mb.u.dev.min;
		m->ino = mb.u.dev.ino;
		m->ino_generation = mb.u.dev.ino_generation;
	}
	m->prot = mb.prot;
	m->flags = mb.flags;
	trailer(raw, len, NULL, NULL, &m->time);
	return 1;
}

/* PERF_RECORD_COMM into out->u.task. Returns 1, or -MEMSZ_EBADDATA. */
static int decode_comm(const uint8_t *raw, size_t len, struct perf_rec *out)
{
	struct md_task *t = &out->u.task;
	struct comm_body cb;

	t->comm = body_and_str(raw, len, &cb, sizeof(cb));
	if (!t->comm)
		return -MEMSZ_EBADDATA;
	out->type = MD_REC_COMM;
	t->pid = cb.pid;
	t->tid = cb.tid;
	trailer(raw, len, NULL, NULL, &t->time);
	return 1;
}

int perf_decode(const void *rawv, size_t len, struct perf_rec *out)
{
	const uint8_t *raw = rawv;
	struct perf_event_header h;
	const uint8_t *b;

	if (len < sizeof(h))
		return -MEMSZ_EBADDATA;
	memcpy(&h, raw, sizeof(h));
	if (h.size != len || len % 8)
		return -MEMSZ_EBADDATA;
	b = raw + sizeof(h);
	memset(out, 0, sizeof(*out));
	switch (h.type) {
	case PERF_RECORD_MMAP2:
		return decode_mmap2(raw, len, h.misc, out);
	case PERF_RECORD_COMM:
		return decode_comm(raw, len, out);
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT: {
		struct md_task *t = &out->u.task;
		struct fork_exit_body fb;

		if (len < sizeof(h) + sizeof(fb) + SAMPLE_ID_SIZE)
			return -MEMSZ_EBADDATA;
		memcpy(&fb, b, sizeof(fb));
		out->type =
		    h.type == PERF_RECORD_FORK ? MD_REC_FORK : MD_REC_EXIT;
		t->pid = fb.pid;
		t->ppid = fb.ppid;
		t->tid = fb.tid;
		t->ptid = fb.ptid;
		t->time = fb.time;
		return 1;
	}
	case PERF_RECORD_LOST: {
		struct lost_body lb;

		if (len < sizeof(h) + sizeof(lb) + SAMPLE_ID_SIZE)
			return -MEMSZ_EBADDATA;
		memcpy(&lb, b, sizeof(lb));
		out->type = MD_REC_LOST;
		out->u.lost.count = lb.lost;
		trailer(raw, len, NULL, NULL, &out->u.lost.time);
		return 1;
	}
	default:
		return 0;
	}
}

/* A PERF_RECORD_SAMPLE being read: the bytes [p, end) not read yet. */
struct sample_cursor {
	const uint8_t *p, *end;
};

/* Are n more bytes there? */
static bool sample_has(const struct sample_cursor *c, uint64_t n)
{
	return (uint64_t)(c->end - c->p) >= n;
}

/* PERF_SAMPLE_CALLCHAIN (u64 nr; u64 ips[nr]) at c into out: the user
 * frames after the leading PERF_CONTEXT_* markers, up to the next one, at
 * most MD_SAMPLE_MAX_CHAIN of them. Returns 0 or -MEMSZ_EBADDATA. */
static int sample_callchain(struct sample_cursor *c, struct md_sample *out)
{
	const uint64_t *ips;
	uint64_t n, i = 0, k;

	if (!sample_has(c, 8))
		return -MEMSZ_EBADDATA;
	n = rd64(c->p);
	c->p += 8;
	if (n > (uint64_t)(c->end - c->p) / 8)
		return -MEMSZ_EBADDATA;
	ips = (const uint64_t *)c->p; /* records are 8-byte aligned */
	while (i < n && ips[i] >= (uint64_t)PERF_CONTEXT_MAX)
		i++;
	for (k = i; k < n && ips[k] < (uint64_t)PERF_CONTEXT_MAX; k++)
		;
	out->callchain = k > i ? ips + i : NULL;
	out->ncallchain = (uint32_t)MIN(k - i, MD_SAMPLE_MAX_CHAIN);
	c->p += 8 * n;
	return 0;
}

/* PERF_SAMPLE_REGS_USER (u64 abi; u64 regs[weight(mask)] unless abi is 0)
 * at c into out, mask being the event's sample_regs_user. Returns 0 or
 * -MEMSZ_EBADDATA. */
static int sample_regs(struct sample_cursor *c, uint64_t mask,
		       struct md_sample *out)
{
	uint64_t n;

	if (!sample_has(c, 8))
		return -MEMSZ_EBADDATA;
	out->abi = (uint32_t)rd64(c->p);
	c->p += 8;
	if (!out->abi)
		return 0;
	n = (uint64_t)__builtin_popcountll(mask);
	if (!sample_has(c, 8 * n))
		return -MEMSZ_EBADDATA;
	out->regs_mask = mask;
	out->regs = (const uint64_t *)c->p;
	out->nregs = (uint32_t)n;
	c->p += 8 * n;
	return 0;
}

/* PERF_SAMPLE_STACK_USER (u64 size; char data[size]; u64 dyn_size unless
 * size is 0) at c into out: the dyn_size bytes actually copied. Returns 0
 * or -MEMSZ_EBADDATA. */
static int sample_stack(struct sample_cursor *c, struct md_sample *out)
{
	uint64_t size, dyn;

	if (!sample_has(c, 8))
		return -MEMSZ_EBADDATA;
	size = rd64(c->p);
	c->p += 8;
	if (!size)
		return 0;
	/* size + 8 must not wrap: compare with what is left */
	if (size % 8 || !sample_has(c, 8) ||
	    size > (uint64_t)(c->end - c->p) - 8)
		return -MEMSZ_EBADDATA;
	dyn = rd64(c->p + size);
	if (dyn > size)
		return -MEMSZ_EBADDATA;
	out->stack = dyn ? c->p : NULL;
	out->stack_size = (uint32_t)dyn;
	c->p += size + 8;
	return 0;
}

/* The u64 of a fixed-size sample field at c, or -MEMSZ_EBADDATA. */
static int sample_u64(struct sample_cursor *c, uint64_t *v)
{
	if (!sample_has(c, 8))
		return -MEMSZ_EBADDATA;
	*v = rd64(c->p);
	c->p += 8;
	return 0;
}

int perf_decode_sample(const struct perf_event_attr *a, const void *rawv,
		       size_t len, struct md_sample *out)
{
	const uint8_t *raw = rawv;
	struct perf_event_header h;
	struct sample_cursor c;
	uint64_t st = a->sample_type, v;
	int ret = 0;

	if (len < sizeof(h) || len % 8)
		return -MEMSZ_EBADDATA;
	memcpy(&h, raw, sizeof(h));
	if (h.size != len || h.type != PERF_RECORD_SAMPLE)
		return -MEMSZ_EBADDATA;
	memset(out, 0, sizeof(*out));
	c.p = raw + sizeof(h);
	c.end = raw + len;
	/* The fixed u64 fields, in the kernel's order. */
	if ((st & PERF_SAMPLE_IDENTIFIER) && (ret = sample_u64(&c, &v)))
		return ret;
	if ((st & PERF_SAMPLE_IP) && (ret = sample_u64(&c, &out->ip)))
		return ret;
	if (st & PERF_SAMPLE_TID) {
		if (!sample_has(&c, 8))
			return -MEMSZ_EBADDATA;
		out->pid = rd32(c.p);
		out->tid = rd32(c.p + 4);
		c.p += 8;
	}
	if ((st & PERF_SAMPLE_TIME) && (ret = sample_u64(&c, &out->time)))
		return ret;
	if ((st & PERF_SAMPLE_ADDR) && (ret = sample_u64(&c, &out->addr)))
		return ret;
	if (st & ~(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
		   PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_CALLCHAIN |
		   PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER))
		return -MEMSZ_EBADDATA; /* a layout this decoder skips wrong */
	if ((st & PERF_SAMPLE_CALLCHAIN) && (ret = sample_callchain(&c, out)))
		return ret;
	if ((st & PERF_SAMPLE_REGS_USER) &&
	    (ret = sample_regs(&c, a->sample_regs_user, out)))
		return ret;
	if ((st & PERF_SAMPLE_STACK_USER) && (ret = sample_stack(&c, out)))
		return ret;
#if defined(__x86_64__)
	if (out->nregs && (out->regs_mask >> X86_PERF_REG_SP & 1))
		out->stack_sp = out->regs[__builtin_popcountll(
		    out->regs_mask & ((1ull << X86_PERF_REG_SP) - 1))];
#endif
	return 0;
}
