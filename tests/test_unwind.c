// SPDX-License-Identifier: GPL-2.0-or-later
/* test_unwind.c — the remote unwinder on stacks this process captures of
 * itself.
 *
 * A fixture library compiled at test time with -O2 -fomit-frame-pointer
 * (lib_a -> lib_b -> lib_c -> callback) is dlopen()ed; the callback takes
 * the registers (libunwind's unw_getcontext) and a copy of the top of the
 * stack, as perf's REGS_USER + STACK_USER would, and hands them to
 * unwind_sample() with a find function reading /proc/self/maps. The
 * frames must be the ones glibc's backtrace() sees from the same point,
 * and the dynamic linker (dladdr) must name them lib_c, lib_b, lib_a. A
 * second build of the fixture has no .eh_frame (only .debug_frame, -g
 * -fno-asynchronous-unwind-tables), so its frames unwind through the
 * .debug_frame path; without frame pointers nothing else could.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <execinfo.h>
#include <libunwind.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

#include "report/unwind.h"
#include "tests/testutil.h"
#include "util/util.h"

#define STACK_COPY 8192
#define MAXF 64

static char tmpdir[] = "/tmp/memsz-test-unwind-XXXXXX";
static char lib_eh[256], lib_df[256];

static const char fixture_src[] =
    "typedef void (*cb_fn)(void);\n"
    "static volatile int sink;\n"
    "__attribute__((noinline)) int lib_c(cb_fn cb)\n"
    "{ volatile char buf[40]; buf[0] = 1; cb(); sink += buf[0];"
    "  return sink; }\n"
    "__attribute__((noinline)) int lib_b(cb_fn cb)\n"
    "{ volatile long pad[7]; pad[2] = 2; int r = lib_c(cb);"
    "  return r + (int)pad[2]; }\n"
    "__attribute__((noinline)) int lib_a(cb_fn cb)\n"
    "{ volatile long pad[3]; pad[1] = 3; int r = lib_b(cb);"
    "  return r + (int)pad[1]; }\n";

/* What the callback captured. */
static struct {
	uint64_t regs[32];
	uint64_t mask;
	uint32_t nregs;
	uint64_t sp;
	uint8_t stack[STACK_COPY];
	uint32_t stack_size;
	void *bt[MAXF];
	int nbt;
} cap;

static int run(const char *cmd)
{
	int ret = system(cmd);

	return ret == 0 ? 0 : -1;
}

static int setup(void **state)
{
	char src[300], cmd[1024];

	(void)state;
	if (tmpdir_make(tmpdir))
		return -1;
	snprintf(src, sizeof(src), "%s/fix.c", tmpdir);
	write_text(src, fixture_src);
	snprintf(lib_eh, sizeof(lib_eh), "%s/libeh.so", tmpdir);
	snprintf(lib_df, sizeof(lib_df), "%s/libdf.so", tmpdir);
	snprintf(cmd, sizeof(cmd),
		 "gcc -shared -fPIC -O2 -fomit-frame-pointer "
		 "-fasynchronous-unwind-tables -o %s %s",
		 lib_eh, src);
	if (run(cmd) < 0)
		return -1;
	/* No .eh_frame at all: -g puts the CFI in .debug_frame; the
	 * library is linked without the crt files' .eh_frame. */
	snprintf(cmd, sizeof(cmd),
		 "gcc -shared -fPIC -O2 -fomit-frame-pointer -g "
		 "-fno-asynchronous-unwind-tables -fno-unwind-tables "
		 "-nostartfiles -o %s %s",
		 lib_df, src);
	if (run(cmd) < 0)
		return -1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return tmpdir_remove() == 0 ? 0 : -1;
}

/* Copy the stack without the sanitizers' view of frames getting in the
 * way: a plain byte loop, not instrumented. */
__attribute__((no_sanitize_address, noinline)) static void
copy_stack(uint8_t *dst, const uint8_t *src, size_t n)
{
	for (size_t i = 0; i < n; i++)
		dst[i] = ((const volatile uint8_t *)src)[i];
}

/* Stack top of this thread, from /proc/self/maps. */
static uint64_t stack_end(uint64_t sp)
{
	char line[512];
	uint64_t s, e, end = sp;
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		return sp;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%" SCNx64 "-%" SCNx64, &s, &e) == 2 &&
		    sp >= s && sp < e)
			end = e;
	fclose(f);
	return end;
}

__attribute__((noinline)) static void capture(void)
{
	static const int gregs[] = {
	    [UNWIND_PERF_AX] = REG_RAX,	 [UNWIND_PERF_BX] = REG_RBX,
	    [UNWIND_PERF_CX] = REG_RCX,	 [UNWIND_PERF_DX] = REG_RDX,
	    [UNWIND_PERF_SI] = REG_RSI,	 [UNWIND_PERF_DI] = REG_RDI,
	    [UNWIND_PERF_BP] = REG_RBP,	 [UNWIND_PERF_SP] = REG_RSP,
	    [UNWIND_PERF_IP] = REG_RIP,	 [UNWIND_PERF_R8] = REG_R8,
	    [UNWIND_PERF_R9] = REG_R9,	 [UNWIND_PERF_R10] = REG_R10,
	    [UNWIND_PERF_R11] = REG_R11, [UNWIND_PERF_R12] = REG_R12,
	    [UNWIND_PERF_R13] = REG_R13, [UNWIND_PERF_R14] = REG_R14,
	    [UNWIND_PERF_R15] = REG_R15,
	};
	unw_context_t uc;
	uint64_t end;

	cap.nbt = backtrace(cap.bt, MAXF);
	unw_getcontext(&uc);
	cap.mask = UNWIND_X86_64_REGS_MASK;
	cap.nregs = 0;
	for (unsigned r = 0; r < 64; r++)
		if (cap.mask & (1ULL << r))
			cap.regs[cap.nregs++] =
			    (uint64_t)uc.uc_mcontext.gregs[gregs[r]];
	cap.sp = (uint64_t)uc.uc_mcontext.gregs[REG_RSP];
	end = stack_end(cap.sp);
	cap.stack_size = (uint32_t)MIN((uint64_t)STACK_COPY, end - cap.sp);
	copy_stack(cap.stack, (const uint8_t *)cap.sp, cap.stack_size);
}

/* find function over /proc/self/maps. */
static char map_path[4096];

static int find_self(void *arg, uint64_t addr, struct unwind_map *out)
{
	char line[4096 + 128];
	FILE *f = fopen("/proc/self/maps", "r");
	int ret = -ENOENT;

	(void)arg;
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		uint64_t s, e, off;
		int n = 0;

		if (sscanf(line,
			   "%" SCNx64 "-%" SCNx64 " %*s %" SCNx64 " %*s %*s %n",
			   &s, &e, &off, &n) < 3)
			continue;
		if (addr < s || addr >= e)
			continue;
		line[strcspn(line, "\n")] = 0;
		snprintf(map_path, sizeof(map_path), "%s", line + n);
		out->start = s;
		out->end = e;
		out->pgoff = off;
		out->path = map_path[0] == '/' ? map_path : NULL;
		ret = 0;
		break;
	}
	fclose(f);
	return ret;
}

static int unwind_captured(uint64_t *ips, size_t max, uint32_t stack_size)
{
	struct unwind_regs r = {
	    .abi = 2, /* PERF_SAMPLE_REGS_ABI_64 */
	    .mask = cap.mask,
	    .regs = cap.regs,
	    .nregs = cap.nregs,
	    .sp = cap.sp,
	    .stack = cap.stack,
	    .stack_size = stack_size,
	};
	struct unwinder *u = unwind_new(NULL);
	int n = unwind_sample(u, &r, find_self, NULL, ips, max);

	unwind_free(u);
	return n;
}

/* dladdr's name of the function holding return address ip. */
static const char *fn_name(uint64_t ip)
{
	Dl_info di;

	if (!dladdr((void *)(uintptr_t)(ip - 1), &di) || !di.dli_sname)
		return "?";
	return di.dli_sname;
}

typedef int (*lib_fn)(void (*)(void));

static void *call_fixture(const char *path)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	lib_fn fn;

	assert_non_null(h);
	fn = (lib_fn)dlsym(h, "lib_a");
	assert_non_null(fn);
	memset(&cap, 0, sizeof(cap));
	fn(capture);
	return h;
}

static void test_reg_order(void **state)
{
	uint64_t regs[3] = {11, 22, 33}, v = 0;
	struct unwind_regs r = {
	    .abi = 2,
	    .mask = (1ULL << UNWIND_PERF_BX) | (1ULL << UNWIND_PERF_SP) |
		    (1ULL << UNWIND_PERF_R9),
	    .regs = regs,
	    .nregs = 3,
	};

	(void)state;
	assert_int_equal(unwind_reg(&r, UNWIND_PERF_BX, &v), 0);
	assert_int_equal(v, 11);
	assert_int_equal(unwind_reg(&r, UNWIND_PERF_SP, &v), 0);
	assert_int_equal(v, 22);
	assert_int_equal(unwind_reg(&r, UNWIND_PERF_R9, &v), 0);
	assert_int_equal(v, 33);
	assert_int_equal(unwind_reg(&r, UNWIND_PERF_AX, &v), -ENOENT);
	r.abi = 0;
	assert_int_equal(unwind_reg(&r, UNWIND_PERF_BX, &v), -ENOENT);
}

/* .eh_frame: the same frames as glibc's backtrace() from capture(). */
static void test_eh_frame(void **state)
{
	uint64_t ips[MAXF];
	void *h;
	int n, k, i, j;

	(void)state;
	h = call_fixture(lib_eh);
	n = unwind_captured(ips, MAXF, cap.stack_size);
	/* ips[0] is in capture() after unw_getcontext, bt[0] after
	 * backtrace(): different spots of the same frame. From frame 1 on
	 * both are return addresses of the same calls. */
	assert_true(cap.nbt >= 5);
	assert_true(n >= 5);
	assert_string_equal(fn_name(ips[1]), "lib_c");
	assert_string_equal(fn_name(ips[2]), "lib_b");
	assert_string_equal(fn_name(ips[3]), "lib_a");
	/* backtrace() may see one more frame on top (an interceptor under
	 * the sanitizers): line the lists up at lib_c's return address. */
	for (j = 0; j < cap.nbt; j++)
		if ((uint64_t)(uintptr_t)cap.bt[j] == ips[1])
			break;
	assert_true(j < cap.nbt);
	k = MIN(n - 1, cap.nbt - j);
	for (i = 0; i < k; i++)
		assert_int_equal(ips[1 + i],
				 (uint64_t)(uintptr_t)cap.bt[j + i]);
	/* lib_c, lib_b, lib_a, call_fixture, the test, cmocka... */
	assert_true(k >= 5);
	dlclose(h);
}

/* Only .debug_frame, no frame pointers. */
static void test_debug_frame(void **state)
{
	uint64_t ips[MAXF];
	void *h;
	int n;

	(void)state;
	h = call_fixture(lib_df);
	n = unwind_captured(ips, MAXF, cap.stack_size);
	assert_true(n >= 4);
	assert_string_equal(fn_name(ips[1]), "lib_c");
	assert_string_equal(fn_name(ips[2]), "lib_b");
	assert_string_equal(fn_name(ips[3]), "lib_a");
	dlclose(h);
}

/* A stack copy too short for the caller frames stops the walk cleanly. */
static void test_short_stack(void **state)
{
	uint64_t ips[MAXF];
	void *h;
	int n;

	(void)state;
	h = call_fixture(lib_eh);
	n = unwind_captured(ips, MAXF, 16);
	assert_true(n >= 1 && n < 4);
	n = unwind_captured(ips, 2, cap.stack_size);
	assert_int_equal(n, 2);
	assert_string_equal(fn_name(ips[1]), "lib_c");
	dlclose(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_reg_order),
	    cmocka_unit_test(test_eh_frame),
	    cmocka_unit_test(test_debug_frame),
	    cmocka_unit_test(test_short_stack),
	};

	return test_run_group(tests, setup, teardown);
}
