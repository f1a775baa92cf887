// SPDX-License-Identifier: GPL-2.0-or-later
/* dfsample.c — the SAMPLE record: written into the writer's batch (a
 * packed batch leaves out the top of a stack that the thread's previous
 * sample held), read back with its stack whole (see datafile.h,
 * man/memsz-data.5). */
#include "config.h"

#include "data/dfcodec.h"
#include "util/util.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

int md_write_sample(struct md_writer *w, const struct md_sample *r)
{
	size_t nregs, nchain, size;
	struct stackref_slot *slot = NULL;
	uint32_t reused = 0;
	uint8_t *q;

	if (!w || (r->nregs && !r->regs) || (r->ncallchain && !r->callchain) ||
	    (r->stack_size && !r->stack) || r->nregs > MD_SAMPLE_MAX_REGS ||
	    r->ncallchain > MD_SAMPLE_MAX_CHAIN)
		return -EINVAL;
	if (w->err) {
		w->samples_lost++;
		return w->err;
	}
	if (w->ended) /* none after the END record (md_rec_begin) */
		return -MEMSZ_EENDED;
	nregs = r->nregs;
	nchain = r->ncallchain;
	/* In a packed batch, the top of the stack that equals the thread's
	 * previous sample is left out (about 12/13 of it on node). */
	if (w->compress && r->stack_size &&
	    (slot = stackref_slot(&w->stk, r->pid, r->tid))) {
		reused = stackref_common_top(&w->stk, slot, r->stack_sp,
					     r->stack, r->stack_size);
		stackref_set(&w->stk, slot, r->stack_sp, r->stack,
			     r->stack_size, reused);
	}
	size = MD_REC_HDR + MD_SAMPLE_HDR + 8 * (nregs + nchain) +
	       align8(r->stack_size - reused);
	/* Encoded straight into the batch: one copy of the stack, and no
	 * zeroing but of the padding (every other byte is written below). */
	xgrow(&w->sb.p, &w->sb.cap, w->sb.len + size, 1);
	q = w->sb.p + w->sb.len;
	w->sb.len += size;
	w->nsb++;
	memset(q + size - 8, 0, 8);
	put_u32(q + REC_TYPE, MD_REC_SAMPLE);
	put_u32(q + REC_CRC, 0);
	put_u64(q + REC_SIZE, size);
	q += MD_REC_HDR;
	put_u64(q + SMP_TIME, r->time);
	put_u32(q + SMP_PID, r->pid);
	put_u32(q + SMP_TID, r->tid);
	put_u64(q + SMP_ADDR, r->addr);
	put_u64(q + SMP_IP, r->ip);
	put_u32(q + SMP_EVENT, r->event);
	put_u32(q + SMP_ABI, r->abi);
	put_u64(q + SMP_REGS_MASK, r->regs_mask);
	put_u32(q + SMP_NREGS, (uint32_t)nregs);
	put_u32(q + SMP_NCHAIN, (uint32_t)nchain);
	put_u64(q + SMP_STACK_SP, r->stack_sp);
	put_u32(q + SMP_STACK_SIZE, r->stack_size);
	put_u32(q + SMP_STACK_REUSED, reused);
	q += MD_SAMPLE_HDR;
	for (size_t i = 0; i < nregs; i++, q += 8)
		put_u64(q, r->regs[i]);
	for (size_t i = 0; i < nchain; i++, q += 8)
		put_u64(q, r->callchain[i]);
	if (r->stack_size > reused)
		memcpy(q, r->stack, r->stack_size - reused);
	q = w->sb.p + w->sb.len - size;
	put_u32(q + REC_CRC, md_record_crc(q, size));
	if (w->sb.len >= MD_SAMPLE_BATCH)
		return md_samples_flush(w);
	return 0;
}

/* The stored bytes of s's stack, zero padded; in a PACKED record the
 * whole stack of each thread's last sample is kept, since the next one
 * may leave out its top. Returns 0 or c->err. */
static int sample_stack(struct md_reader *r, struct md_cur *c,
			struct md_sample *s)
{
	uint32_t stored = s->stack_size - s->stack_reused;
	struct stackref_slot *slot;
	const uint8_t *full;

	if (!s->stack_size)
		return 0;
	s->stack = md_cur_take(c, align8(stored));
	if (!s->stack)
		return c->err;
	if (!all_zero(s->stack + stored, align8(stored) - stored)) {
		md_cur_fail(c, "sample stack not zero padded");
		return c->err;
	}
	if (!r->in_packed)
		return 0;
	slot = stackref_slot(&r->stk, s->pid, s->tid);
	full = slot ? stackref_set(&r->stk, slot, s->stack_sp, s->stack,
				   s->stack_size, s->stack_reused)
		    : NULL;
	if (full)
		s->stack = full;
	else if (s->stack_reused)
		md_cur_fail(c, "sample reusing stack bytes its thread's "
			       "previous sample does not hold");
	return c->err;
}

/* A sample's fields, its arrays and its stack; the stack whole again when
 * the record left out its top (only in a PACKED record of version 3 on). */
int md_sample_decode(struct md_reader *r, struct md_cur *c,
		     struct md_record *rec)
{
	struct md_sample *s = &rec->u.sample;
	const uint8_t *q;
	uint32_t nregs, nchain, stored;
	size_t i;

	s->time = md_cur_u64(c);
	s->pid = md_cur_u32(c);
	s->tid = md_cur_u32(c);
	s->addr = md_cur_u64(c);
	s->ip = md_cur_u64(c);
	s->event = md_cur_u32(c);
	s->abi = md_cur_u32(c);
	s->regs_mask = md_cur_u64(c);
	nregs = md_cur_u32(c);
	nchain = md_cur_u32(c);
	s->stack_sp = md_cur_u64(c);
	s->stack_size = md_cur_u32(c);
	s->stack_reused = md_cur_u32(c);
	if (c->err)
		return c->err;
	if (s->stack_reused > s->stack_size ||
	    (s->stack_reused && (!r->in_packed || r->hdr.version < 3))) {
		md_cur_fail(c, "sample reusing stack bytes it cannot");
		return c->err;
	}
	stored = s->stack_size - s->stack_reused;
	/* Registers are one per bit of the mask (or none at all). */
	if (nregs > MD_SAMPLE_MAX_REGS || nchain > MD_SAMPLE_MAX_CHAIN ||
	    (nregs && nregs != (uint32_t)__builtin_popcountll(s->regs_mask))) {
		md_cur_fail(c, "sample with impossible register or frame "
			       "counts");
		return c->err;
	}
	/* the record is exactly its arrays and its padded stack */
	if (c->len - c->pos != 8 * ((size_t)nregs + nchain) + align8(stored)) {
		md_cur_fail(c, "sample size does not match its contents");
		return c->err;
	}
	q = md_cur_take(c, 8 * ((size_t)nregs + nchain));
	if (!q)
		return c->err;
	xgrow(&r->u64s, &r->u64s_cap, (size_t)nregs + nchain + 1,
	      sizeof(*r->u64s));
	for (i = 0; i < (size_t)nregs + nchain; i++)
		r->u64s[i] = get_u64(q + 8 * i);
	s->nregs = nregs;
	s->regs = nregs ? r->u64s : NULL;
	s->ncallchain = nchain;
	s->callchain = nchain ? r->u64s + nregs : NULL;
	return sample_stack(r, c, s);
}

void md_print_sample(FILE *out, const struct md_record *rec, const char *name,
		     const struct md_print_opts *o)
{
	const struct md_sample *s = &rec->u.sample;

	(void)o;
	md_print_time(out, s->time);
	fprintf(out,
		"%s %u/%u: addr 0x%" PRIx64 " ip 0x%" PRIx64
		" event %u regs %u sp 0x%" PRIx64 " stack %u"
		" (stored %u) callchain %u\n",
		name, s->pid, s->tid, s->addr, s->ip, s->event, s->nregs,
		s->stack_sp, s->stack_size, s->stack_size - s->stack_reused,
		s->ncallchain);
}
