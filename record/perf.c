/* perf.c — perf_event_open side-band capture (see perf.h). */
#include "config.h"

#include "record/perf.h"
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Side-band ring per cpu: 512 KiB (128 pages of 4 KiB) hold the mmap,
 * comm and task records of a busy process between two drains. */
#define DEFAULT_RING_BYTES (512ull << 10)
/* A ring the kernel refuses (perf_event_mlock_kb, memory) is halved down
 * to this size before giving up. */
#define RING_MIN_BYTES (32ull << 10)
/* Sample rings: 512 MiB over all cpus, 8 to 64 MiB per cpu and event. A
 * page fault with an 8 KiB stack copy takes 8.4 KiB of ring: 64 MiB hold
 * the 13000 faults of a 50 MB allocation with nothing drained. */
#define SAMPLE_RING_TOTAL (512ull << 20)
#define SAMPLE_RING_MIN (8ull << 20)
#define SAMPLE_RING_MAX (64ull << 20)
#define X86_PERF_REG_SP 7 /* PERF_REG_X86_SP of <asm/perf_regs.h> */
/* Records of the per-cpu rings are handed out once they are this old, so
 * that a later drain of another ring cannot bring an earlier one. */
#define REORDER_WINDOW_NS (50 * NSEC_PER_MSEC)
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

struct ring {
	int cpu;
	int fd;                         /* the event whose buffer this is */
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
	struct ring *rings;             /* one per cpu, fd -1 until opened */
	int *fds;                       /* every event fd */
	size_t nfds, fds_cap;
	bool build_id;                  /* attr.build_id accepted */
	bool build_id_probed;
	struct pending *pend;
	size_t npend, pend_cap;
	uint64_t seq, bad;
	struct perf_event_attr *sattr;  /* sampling events (the user's, then
					   the growth trigger if any) */
	size_t nsattr;
	size_t nuser;                   /* the user's sampling events */
	struct ring *srings;            /* [event * ncpus + cpu index] */
	struct sfd {
		int fd;
		size_t ev;
	} *sfds;                        /* every sampling event fd */
	size_t nsfds, sfds_cap;
	bool user_only;                 /* kernel-mode samples refused */
	struct leash {
		int tid, fd, sig;
		size_t ev;
	} *leash;                       /* one per leashed thread and user
					   sampling event */
	size_t nleash, leash_cap;
	unsigned nleashed;              /* threads leashed */
	unsigned leash_scale;           /* power of 2 >= nleashed the
					   periods are set for */
	bool leash_short;               /* a ring too small for them */
};

static int sys_perf_event_open(struct perf_event_attr *attr, int pid, int cpu,
			       int group_fd, unsigned long flags)
{
	return syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
}

/* The kernel's page size: perf rings are mapped and sized in pages. */
static uint64_t page_size(void)
{
	return (uint64_t)sysconf(_SC_PAGESIZE);
}

/* ring_bytes as a number of pages, at least one. */
static unsigned ring_pages_of(uint64_t ring_bytes)
{
	return (unsigned)MAX(ring_bytes / page_size(), 1);
}

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
	const size_t fixed = sizeof(struct perf_event_header) + body_size +
			     SAMPLE_ID_SIZE;
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
		out->type = h.type == PERF_RECORD_FORK ? MD_REC_FORK :
							 MD_REC_EXIT;
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
		pc->srings = xcalloc(pc->nsattr * pc->ncpus,
				     sizeof(*pc->srings));
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
		fd = sys_perf_event_open(&a, tid, cpu, -1,
					 PERF_FLAG_FD_CLOEXEC);
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
			uint64_t bytes = sr->fd >= 0 ? sr->size :
				(uint64_t)pc->o.sample_ring_pages * page_size();

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
				ret = ring_map(sr, fd,
					       ev == pc->nuser ?
						       GROWTH_RING_PAGES :
						       pc->o.sample_ring_pages);
			else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT,
				       sr->fd) < 0)
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
	struct ring *r;       /* the ring being read */
	uint64_t pos;         /* its position after the records handed out */
	uint64_t given;       /* its data_tail as last stored */
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
		rec.u.sample.event = c->ev == c->pc->nuser ?
					     PERF_GROWTH_EVENT :
					     (uint32_t)c->ev;
		if (!ret)
			ret = 1;
	} else {
		ret = perf_decode(raw, len, &rec);
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
 * perf_capture_sample_fill() called from fn sees the drain progress (a
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
	struct sample_ctx c = { .pc = pc, .fn = fn, .arg = arg };

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

int perf_capture_drain(struct perf_capture *pc, bool flush_all,
		       perf_rec_fn fn, void *arg)
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
	limit = now > REORDER_WINDOW_NS ? now - REORDER_WINDOW_NS : 0;
	for (; done < pc->npend; done++) {
		struct pending *p = &pc->pend[done];
		struct perf_rec rec;

		if (!flush_all && p->time > limit)
			break;
		if (perf_decode(p->raw, p->len, &rec) == 1)
			ret = fn(arg, &rec);
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

int perf_capture_sample_counts(const struct perf_capture *pc,
			       uint64_t *counts)
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

uint64_t perf_capture_sample_ring_size(const struct perf_capture *pc)
{
	uint64_t min = 0;

	for (size_t i = 0; i < pc->nuser * pc->ncpus; i++)
		if (pc->srings[i].fd >= 0 && (!min || pc->srings[i].size < min))
			min = pc->srings[i].size;
	return min;
}

unsigned perf_capture_sample_fill(const struct perf_capture *pc)
{
	unsigned max = 0;

	for (size_t i = 0; i < pc->nsattr * pc->ncpus; i++) {
		const struct ring *r = &pc->srings[i];
		uint64_t head, used;

		if (r->fd < 0)
			continue;
		head = __atomic_load_n(&r->mp->data_head, __ATOMIC_ACQUIRE);
		used = head - r->mp->data_tail;
		max = MAX(max, (unsigned)MIN(used * 1000 / r->size, 1000));
	}
	return max;
}

uint64_t perf_capture_bad(const struct perf_capture *pc)
{
	return pc->bad;
}

/* --- leashes --- */

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
	fd = open("/proc/sys/kernel/perf_event_max_stack", O_RDONLY | O_CLOEXEC);
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

/* The most ring space one sample of attr a can take: the stack copy is
 * always written whole, a callchain may be as deep as the kernel allows. */
static uint64_t sample_max_bytes(const struct perf_event_attr *a)
{
	uint64_t t = a->sample_type;
	uint64_t fixed = t & ~(uint64_t)(PERF_SAMPLE_CALLCHAIN |
					 PERF_SAMPLE_REGS_USER |
					 PERF_SAMPLE_STACK_USER |
					 PERF_SAMPLE_RAW | PERF_SAMPLE_READ |
					 PERF_SAMPLE_BRANCH_STACK);
	/* header, a u64 per fixed-size field (TID and CPU pack two u32
	 * each), a sample_id trailer to spare */
	uint64_t n = 8 + 8 * (uint64_t)__builtin_popcountll(fixed) +
		     SAMPLE_ID_SIZE;

	if (t & PERF_SAMPLE_CALLCHAIN)
		n += 8 + 8 * (max_stack() + CALLCHAIN_CONTEXTS);
	if (t & PERF_SAMPLE_REGS_USER)
		n += 8 + 8 * (uint64_t)__builtin_popcountll(
				     a->sample_regs_user);
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
 * scale threads are leashed: all of them fit in the allowed room of ev's
 * ring, and the growth trigger's samples for as many page faults fit in
 * the allowed room of its ring. At least 1. */
static uint64_t leash_samples(const struct perf_capture *pc, size_t ev,
			      unsigned scale)
{
	uint64_t room = ev_ring_size(pc, ev) * pc->o.leash_room_permille / 1000;
	uint64_t k = room / (sample_max_bytes(&pc->sattr[ev]) * scale);

	if (pc->nsattr > pc->nuser) {
		/* each growth sample stands for growth_period faults; a
		 * leash period of k samples of ev is k * period events */
		const struct perf_event_attr *g = &pc->sattr[pc->nuser];
		uint64_t groom = ev_ring_size(pc, pc->nuser) *
				 pc->o.leash_room_permille / 1000;
		uint64_t faults = groom * g->sample_period /
				  (sample_max_bytes(g) * scale);

		k = MIN(k, faults / MAX(pc->sattr[ev].sample_period, 1));
	}
	return k;
}

/* The leash period of event ev, in events. Rings too small for that many
 * threads leave it at one sample: the bound does not hold then, which
 * pc->leash_short records. */
static uint64_t leash_period(struct perf_capture *pc, size_t ev)
{
	uint64_t k = leash_samples(pc, ev, pc->leash_scale);

	if (!k)
		pc->leash_short = true;
	return MAX(k, 1) * MAX(pc->sattr[ev].sample_period, 1);
}

/* Set every leash's period for scale threads. Each is disabled meanwhile:
 * a software event given a new period while it counts would first run
 * out the old one, while one enabled again starts the new one afresh. */
static void leash_rescale(struct perf_capture *pc, unsigned scale)
{
	pc->leash_scale = scale;
	for (size_t i = 0; i < pc->nleash; i++) {
		uint64_t p = leash_period(pc, pc->leash[i].ev);
		int fd = pc->leash[i].fd;

		ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		ioctl(fd, PERF_EVENT_IOC_PERIOD, &p);
		ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	}
}

static int leash_open(struct perf_capture *pc, size_t ev, int tid,
		      bool at_exec, int sig)
{
	struct perf_event_attr a = pc->sattr[ev];
	struct f_owner_ex owner = { .type = F_OWNER_TID, .pid = tid };
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

int perf_capture_leash(struct perf_capture *pc, int tid, bool at_exec,
		       int sig)
{
	size_t first = pc->nleash;
	unsigned scale = MAX(pc->leash_scale, 1);

	if (!pc->nuser || !ev_ring_size(pc, 0))
		return 0;
	for (size_t i = 0; i < pc->nleash; i++)
		if (pc->leash[i].tid == tid)
			return 0;
	while (scale < pc->nleashed + 1)
		scale *= 2;
	if (scale != pc->leash_scale)
		leash_rescale(pc, scale);
	for (size_t ev = 0; ev < pc->nuser; ev++) {
		int fd = leash_open(pc, ev, tid, at_exec, sig);

		if (fd < 0) {
			while (pc->nleash > first)
				close(pc->leash[--pc->nleash].fd);
			return fd;
		}
		xgrow(&pc->leash, &pc->leash_cap, pc->nleash + 1,
		      sizeof(*pc->leash));
		pc->leash[pc->nleash++] = (struct leash){ .tid = tid, .fd = fd,
							  .sig = sig, .ev = ev };
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
	/* fewer threads: longer periods, with some slack so that a thread
	 * count going up and down does not set them again each time */
	if (pc->leash_scale > 1 && pc->nleashed * 4 <= pc->leash_scale)
		leash_rescale(pc, pc->leash_scale / 2);
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
	return pc->nleashed ? MAX(leash_samples(pc, 0, pc->leash_scale), 1) :
			      0;
}

bool perf_capture_leash_short(const struct perf_capture *pc)
{
	return pc->leash_short;
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
