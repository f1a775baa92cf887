// SPDX-License-Identifier: GPL-2.0-or-later
/* test_faults.c — sampling events: libpfm4 names to perf_event_attr,
 * suggestions for unknown names, decoding of PERF_RECORD_SAMPLE, and the
 * SAMPLE record of memsz.data (round trip, damaged records). */
#include "config.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "data/datafile.h"
#include "record/events.h"
#include "record/perf.h"
#include "util/util.h"
#include "tests/testutil.h"

static void test_event_names(void **state)
{
	struct events_opts o = {0};
	struct perf_event_attr a;

	(void)state;
	/* ground truth: linux/perf_event.h */
	assert_int_equal(events_attr("page-faults", &o, &a), 0);
	assert_int_equal(a.type, PERF_TYPE_SOFTWARE);
	assert_int_equal(a.config, PERF_COUNT_SW_PAGE_FAULTS);
	assert_int_equal(a.sample_period, 1);
	assert_int_equal(a.exclude_kernel, 0);
	assert_int_equal(a.exclude_callchain_kernel, 1);
	assert_true(a.sample_type & PERF_SAMPLE_ADDR);
	assert_true(a.sample_type & PERF_SAMPLE_STACK_USER);
	assert_false(a.sample_type & PERF_SAMPLE_CALLCHAIN);
	assert_int_equal(a.sample_stack_user, 8192);
#if defined(__x86_64__)
	/* perf's PERF_REGS_MASK: 24 registers minus DS ES FS GS */
	assert_int_equal(a.sample_regs_user, 0xff0fff);
	assert_int_equal(__builtin_popcountll(a.sample_regs_user), 20);
#endif
	assert_int_equal(events_attr("perf::MINOR-FAULTS", &o, &a), 0);
	assert_int_equal(a.config, PERF_COUNT_SW_PAGE_FAULTS_MIN);
	assert_int_equal(events_attr("major-faults", &o, &a), 0);
	assert_int_equal(a.config, PERF_COUNT_SW_PAGE_FAULTS_MAJ);
	assert_int_equal(events_attr("perf::PAGE-FAULTS:u", &o, &a), 0);
	assert_int_equal(a.config, PERF_COUNT_SW_PAGE_FAULTS);
	assert_int_equal(a.exclude_kernel, 1);

	o.period = 10;
	o.cg = EVENTS_CG_FP;
	assert_int_equal(events_attr("page-faults", &o, &a), 0);
	assert_int_equal(a.sample_period, 10);
	assert_true(a.sample_type & PERF_SAMPLE_CALLCHAIN);
#if defined(__x86_64__)
	/* the leaf's caller: bp, sp, ip (perf_regs.h bits 6-8) and 256
	 * bytes of stack beside the kernel's chain */
	assert_int_equal(a.sample_regs_user, 0x1c0);
	assert_true(a.sample_type & PERF_SAMPLE_REGS_USER);
	assert_true(a.sample_type & PERF_SAMPLE_STACK_USER);
	assert_int_equal(a.sample_stack_user, 256);
#else
	assert_false(a.sample_type & PERF_SAMPLE_STACK_USER);
	assert_int_equal(a.sample_regs_user, 0);
#endif

	o.cg = EVENTS_CG_DWARF;
	o.stack_size = 100; /* rounded up to a multiple of 8 */
	assert_int_equal(events_attr("page-faults", &o, &a), 0);
	assert_int_equal(a.sample_stack_user, 104);

	assert_int_equal(events_attr("page-fault", &o, &a), -MEMSZ_EUSAGE);
	assert_int_equal(events_attr("no-such-event-at-all", &o, &a),
			 -MEMSZ_EUSAGE);
}

static void test_suggest(void **state)
{
	char *s;

	(void)state;
	assert_int_equal(events_edit_distance("kitten", "sitting"), 3);
	assert_int_equal(events_edit_distance("PAGE", "page"), 0);
	assert_int_equal(events_edit_distance("", "abc"), 3);
	s = events_suggest("page-fault");
	assert_non_null(s);
	assert_non_null(strstr(s, "page-faults"));
	free(s);
	s = events_suggest("perf::minor-fault:u");
	assert_non_null(s);
	assert_non_null(strstr(s, "minor-faults"));
	free(s);
	s = events_suggest("majorfaults");
	assert_non_null(s);
	assert_non_null(strstr(s, "major-faults"));
	free(s);
	assert_null(events_suggest("zzzzzzzzzzzzzzzzzzzzzz"));
}

/* A PERF_RECORD_SAMPLE laid out by hand as the kernel writes it
 * (perf_event_open(2), "PERF_RECORD_SAMPLE"). */
static size_t build_sample(uint64_t *w, const struct perf_event_attr *a,
			   uint64_t dyn)
{
	struct perf_event_header h = {.type = PERF_RECORD_SAMPLE};
	size_t n = 1, i;

	w[n++] = 0x401234;		  /* ip */
	w[n++] = (uint64_t)77 << 32 | 76; /* pid 76, tid 77 */
	w[n++] = 123456789;		  /* time */
	w[n++] = 0x7f0000005000;	  /* addr */
	if (a->sample_type & PERF_SAMPLE_CALLCHAIN) {
		w[n++] = 4;
		w[n++] = (uint64_t)PERF_CONTEXT_USER;
		w[n++] = 0x401000;
		w[n++] = 0x402000;
		w[n++] = 0x403000;
	}
	if (a->sample_type & PERF_SAMPLE_REGS_USER) {
		w[n++] = PERF_SAMPLE_REGS_ABI_64;
		for (i = 0;
		     i < (size_t)__builtin_popcountll(a->sample_regs_user); i++)
			w[n++] = 1000 + i;
	}
	if (a->sample_type & PERF_SAMPLE_STACK_USER) {
		w[n++] = a->sample_stack_user;
		for (i = 0; i < a->sample_stack_user / 8; i++)
			w[n++] = 0x1111111111111111ull * (i % 15);
		w[n++] = dyn;
	}
	h.size = n * 8;
	memcpy(w, &h, sizeof(h));
	return n * 8;
}

static void test_decode_sample(void **state)
{
	struct events_opts o = {.stack_size = 64};
	struct perf_event_attr a;
	struct md_sample s;
	uint64_t w[256];
	size_t len;

	(void)state;
	assert_int_equal(events_attr("page-faults", &o, &a), 0);
	a.sample_regs_user = EVENTS_X86_64_REGS_MASK;
	a.sample_type |= PERF_SAMPLE_REGS_USER;
	len = build_sample(w, &a, 40);
	assert_int_equal(perf_decode_sample(&a, w, len, &s), 0);
	assert_int_equal(s.ip, 0x401234);
	assert_int_equal(s.pid, 76);
	assert_int_equal(s.tid, 77);
	assert_int_equal(s.time, 123456789);
	assert_int_equal(s.addr, 0x7f0000005000);
	assert_int_equal(s.abi, PERF_SAMPLE_REGS_ABI_64);
	assert_int_equal(s.nregs, 20);
	assert_int_equal(s.regs[19], 1019);
	/* SP is perf register 7, the 8th present one */
	assert_int_equal(s.stack_sp, 1007);
	assert_int_equal(s.stack_size, 40);
	assert_int_equal(s.ncallchain, 0);
	/* dyn_size above size, record too short: malformed */
	len = build_sample(w, &a, 72);
	assert_int_equal(perf_decode_sample(&a, w, len, &s), -MEMSZ_EBADDATA);
	len = build_sample(w, &a, 8);
	assert_int_equal(perf_decode_sample(&a, w, len - 8, &s),
			 -MEMSZ_EBADDATA);

	o.cg = EVENTS_CG_FP;
	assert_int_equal(events_attr("page-faults", &o, &a), 0);
	len = build_sample(w, &a, 0);
	assert_int_equal(perf_decode_sample(&a, w, len, &s), 0);
	assert_int_equal(s.ncallchain, 3);
	assert_int_equal(s.callchain[0], 0x401000);
	assert_int_equal(s.callchain[2], 0x403000);
#if defined(__x86_64__)
	/* bp, sp, ip: sp the second */
	assert_int_equal(s.nregs, 3);
	assert_int_equal(s.stack_sp, 1001);
#else
	assert_int_equal(s.nregs, 0);
#endif
}

static void test_datafile_sample(void **state)
{
	char path[] = "/tmp/memsz-test-faults-XXXXXX";
	uint64_t regs[20], chain[3] = {0x401000, 0x402000, 0x403000};
	uint8_t stack[13];
	struct md_writer *w;
	struct md_reader *r;
	struct md_record rec;
	int fd, n = 0, nsamples = 0, ret;
	FILE *f;
	long size;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	for (int i = 0; i < 20; i++)
		regs[i] = 0x1000000000ull + i;
	memset(stack, 0xab, sizeof(stack));
	assert_int_equal(md_writer_open(path, &w), 0);
	md_writer_set_compress(w, false); /* the plain SAMPLE layout */
	/* enough samples to span several write batches, with other records
	 * in between (they flush the batch first: file order is kept) */
	for (int i = 0; i < 3000; i++) {
		struct md_sample s = {
		    .time = i,
		    .pid = 5,
		    .tid = 6,
		    .addr = 0x1000 + i,
		    .ip = 0x400000,
		    .event = i % 2,
		    .abi = 2,
		    .regs_mask = 0xff0fff,
		    .regs = regs,
		    .nregs = 20,
		    .stack_sp = 0x7ffd0000,
		    .stack = stack,
		    .stack_size = sizeof(stack),
		};
		struct md_sample fp = {.time = i,
				       .pid = 5,
				       .tid = 7,
				       .callchain = chain,
				       .ncallchain = 3};

		assert_int_equal(md_write_sample(w, &s), 0);
		assert_int_equal(md_write_sample(w, &fp), 0);
		if (i % 1000 == 0)
			assert_int_equal(md_write_note_kind(w, MD_NOTE_OTHER,
							    NULL, "between"),
					 0);
	}
	assert_int_equal(md_writer_commit(w), 0);
	assert_int_equal(md_writer_close(w), 0);
	f = fopen(path, "rb");
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	fclose(f);
	/* 16 header + 72 fixed + 160 regs + 16 stack; 16 + 72 + 24; the
	 * notes (16 header, kind and reserved, an empty subject, the text);
	 * the END record */
	assert_int_equal(size, 64 + 3000 * (264 + 112) + 3 * 48 + 40);
	assert_int_equal(md_reader_open(path, &r), 0);
	while ((ret = md_read_next(r, &rec)) == 1) {
		const struct md_sample *s = &rec.u.sample;

		if (rec.type != MD_REC_SAMPLE) {
			if (rec.type == MD_REC_END) {
				assert_int_equal(rec.u.end.nsamples, 6000);
				continue;
			}
			assert_int_equal(rec.type, MD_REC_NOTE);
			assert_int_equal(nsamples % 2000, 2);
			continue;
		}
		if (s->tid == 6) {
			assert_int_equal(s->time, n);
			assert_int_equal(s->addr, 0x1000 + n);
			assert_int_equal(s->event, n % 2);
			assert_int_equal(s->nregs, 20);
			assert_int_equal(s->regs[7], 0x1000000007ull);
			assert_int_equal(s->regs_mask, 0xff0fff);
			assert_int_equal(s->stack_size, 13);
			assert_memory_equal(s->stack, stack, 13);
			assert_int_equal(s->stack_sp, 0x7ffd0000);
			assert_int_equal(s->ncallchain, 0);
		} else {
			assert_int_equal(s->tid, 7);
			assert_int_equal(s->ncallchain, 3);
			assert_int_equal(s->callchain[1], 0x402000);
			assert_int_equal(s->nregs, 0);
			assert_null(s->stack);
			n++;
		}
		nsamples++;
	}
	assert_int_equal(ret, 0);
	assert_int_equal(nsamples, 6000);
	md_reader_close(r);
	unlink(path);
}

/* nregs must match the mask and every array must fit its record. */
static void test_datafile_sample_bad(void **state)
{
	char path[] = "/tmp/memsz-test-faults-XXXXXX";
	uint64_t regs[2] = {1, 2};
	struct md_sample s = {.regs_mask = 0x3, .regs = regs, .nregs = 2};
	struct md_writer *w;
	struct md_reader *r;
	struct md_record rec;
	uint8_t buf[512];
	FILE *f;
	size_t len;
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(md_writer_open(path, &w), 0);
	md_writer_set_compress(w, false); /* the plain SAMPLE layout */
	assert_int_equal(md_write_sample(w, &s), 0);
	assert_int_equal(md_writer_commit(w), 0);
	assert_int_equal(md_writer_close(w), 0);
	f = fopen(path, "rb");
	len = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	assert_int_equal(len, 64 + 16 + 72 + 16 + 40);
	/* regs_mask with 3 bits for 2 registers (checksums fixed: the
	 * check behind them refuses it) */
	buf[64 + 16 + 40] = 0x7;
	md_checksum_fix(buf, len);
	f = fopen(path, "wb");
	fwrite(buf, 1, len, f);
	fclose(f);
	assert_int_equal(md_reader_open(path, &r), 0);
	assert_int_equal(md_read_next(r, &rec), -MEMSZ_EBADDATA);
	md_reader_close(r);
	/* stack_size past the end of the record */
	buf[64 + 16 + 40] = 0x3;
	buf[64 + 16 + 64] = 9;
	md_checksum_fix(buf, len);
	f = fopen(path, "wb");
	fwrite(buf, 1, len, f);
	fclose(f);
	assert_int_equal(md_reader_open(path, &r), 0);
	assert_int_equal(md_read_next(r, &rec), -MEMSZ_EBADDATA);
	md_reader_close(r);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_event_names),
	    cmocka_unit_test(test_suggest),
	    cmocka_unit_test(test_decode_sample),
	    cmocka_unit_test(test_datafile_sample),
	    cmocka_unit_test(test_datafile_sample_bad),
	};

	return test_run_group(tests, NULL, NULL);
}
